"""The checks a student sees under each answer: their failures, the known mistakes, all at once.

Everything below the line ``# --- copied into the exercises ---`` is copied, as it is, into each
exercise's locked *known mistakes* cell by :mod:`roofline_grading.fingerprints`, followed by the
table ``KNOWN_MISTAKES`` it computes from the answer key and the sentences ``SAYS`` in the
notebook's language. The cell runs in the student's kernel
and, at grading time, in the sandboxed kernel, so it uses only the standard library and holds
no right answer and no formula: only fingerprints of the known *wrong* answers, each a salted,
slow hash of where a mistaken value falls on a grid as fine as the question's tolerance.

An answer is called out when, at every case in the table, it falls within two grid steps of
the mistake's value; an answer that matches no known mistake is never called right. When more
than one known mistake fits, the earlier parts decide: a mistake an earlier part shows is
preferred, one an earlier part is free of is dropped, and an answer that calls an earlier
function making the mistake is told so ("intensity uses your bytes_read, which ...").

An answer not written yet is the line ``not_answered()`` (nbgrader's code stub, nbgrader_config.py):
a function holding it raises :class:`NotAnswered`, shown as one line naming the function, and a
cell of its own holding it only says so, so that Run All goes on past it.

A check that fails raises :class:`CheckFailed`, whose ``_render_traceback_`` IPython calls to show
it: the message first, then the line of the check, and no traceback (the helpers' frames are
nothing a student can act on). A test cell's plain checks are written
``assert condition, fail("what is wrong")`` to fail the same way. :class:`every_check` runs the
checks of every part again, a failing one not stopping the others, and lists them.

>>> scale = ("rel", 1e-6)
>>> fingerprints("ex1.ops", 0, 2e12, scale, spread=0) <= fingerprints("ex1.ops", 0, 2e12 * (1 + 1e-6), scale)
True
>>> fingerprints("ex1.ops", 0, 2e12, scale, spread=0) & fingerprints("ex1.ops", 0, 4e12, scale)
set()
>>> CheckFailed("ops should be positive").lines()
['ops should be positive']
"""

# ruff: noqa: B905
# The code below is what students read: plain Python, no type hints, no imports beyond the
# standard library.
# --- copied into the exercises ---
import contextlib
import functools
import hashlib
import io
import linecache
import math
import sys
import types
import unicodedata

KNOWN_MISTAKES = {}
SAYS = {}


def fingerprints(question, case, value, scale, spread=2):
    """Hashes of where `value` falls on the tolerance's grid, and of the `spread` steps either side.
    `scale` is ("rel", r): steps of a factor 1 + r, or ("abs", a): steps of a."""
    value = float(value)
    if math.isnan(value):
        return set()
    if math.isinf(value) or (value == 0 and scale[0] == "rel"):
        levels = [repr(value)]
    elif scale[0] == "rel":
        step = round(math.log(abs(value)) / math.log1p(scale[1]))
        levels = [f"{value < 0}:{step + k}" for k in range(-spread, spread + 1)]
    else:
        step = round(value / scale[1])
        levels = [str(step + k) for k in range(-spread, spread + 1)]
    salt = f"roofline known mistakes: {question}, case {case}"
    return {slow_hash(level, salt) for level in levels}


@functools.cache
def slow_hash(level, salt):
    """The salted, slow hash of one grid level. Kept once made: the checks of later parts call the
    functions of earlier ones again, at the same cases, and every check runs twice in a notebook."""
    return hashlib.pbkdf2_hmac("sha256", level.encode(), salt.encode(), 1000).hex()[:16]


def known_mistakes(name, answer):
    """The known mistakes the function `answer` (for the part `name`) fits, as a dict from each
    mistake's name to its message, in the table's order: empty when it fits none, None when that
    cannot be told (no fingerprints for `name`, or the answer fails or returns no number)."""
    entry = KNOWN_MISTAKES.get(name)
    if entry is None:
        return None
    seen = []
    for case, arguments in enumerate(entry["cases"]):
        try:
            seen.append(fingerprints(entry["question"], case, answer(*arguments), entry["scale"]))
        except Exception:  # an answer that fails or returns no number: the other checks say so
            return None
    found = {}
    for mistake, prints, message in entry["mistakes"]:
        if all(p in s for p, s in zip(prints, seen)):
            found.setdefault(mistake, message)
    return found


def calls(function, seen=None):
    """The notebook's functions that `function` calls, directly or through others of the notebook,
    by name, nearest first."""
    namespace = getattr(function, "__globals__", {})
    seen = {id(function)} if seen is None else seen
    code = getattr(function, "__code__", None)
    names = list(code.co_names) if code else []
    for constant in code.co_consts if code else ():
        names += list(getattr(constant, "co_names", ()))
    found = {}
    for name in names:
        value = namespace.get(name)
        if isinstance(value, types.FunctionType) and value.__globals__ is namespace and id(value) not in seen:
            seen.add(id(value))
            found[name] = value
    for value in list(found.values()):
        for name, deeper in calls(value, seen).items():
            found.setdefault(name, deeper)
    return found


def mistakes_made(name, answer, told=None):
    """The known mistakes the function `answer` (for the part `name`) makes, as far as its results
    and the earlier parts tell: a dict from each mistake's name to the earlier part that shows it
    (or None), empty if it makes none, None when that cannot be told. Of the mistakes its results
    fit, those an earlier part shows are kept; else those no earlier part is free of; else all.
    `told` keeps what was found of other parts, for the other checks of the same call."""
    told = {} if told is None else told
    found = known_mistakes(name, answer)
    if not found:
        return found
    namespace = getattr(answer, "__globals__", {})
    shown, free = {}, set()
    for other in list(KNOWN_MISTAKES)[: list(KNOWN_MISTAKES).index(name)]:
        function = namespace.get(other)
        if not any(m in found for m, _, _ in KNOWN_MISTAKES[other]["mistakes"]) or not callable(function):
            continue
        if other not in told:
            told[other] = mistakes_made(other, function, told)
        if told[other] is None:
            continue
        for mistake, _, _ in KNOWN_MISTAKES[other]["mistakes"]:
            if mistake in found and mistake in told[other]:
                shown.setdefault(mistake, other)
            elif mistake in found and not told[other]:  # that part fits no known mistake at all
                free.add(mistake)
    kept = [m for m in found if m in shown] or [m for m in found if m not in free] or list(found)
    return {m: shown.get(m) for m in kept}


def diagnosis(name, answer):
    """What the check under the part `name` says of the function `answer`: None if it fits no known
    mistake, else the sentence naming the mistake (or the mistakes it may be)."""
    told = {}
    made = mistakes_made(name, answer, told)
    if not made:
        return None
    messages = {m: message for m, _, message in KNOWN_MISTAKES[name]["mistakes"]}
    if len(made) > 1:
        return "\n".join([SAYS["several"].format(name=name)] + ["- " + messages[m] for m in made])
    ((mistake, shown),) = made.items()
    for other, function in calls(answer).items():  # nearest first
        if other in KNOWN_MISTAKES and other != name:
            if other not in told:
                told[other] = mistakes_made(other, function, told)
            if mistake in (told[other] or {}):
                return SAYS["inherited"].format(name=name, source=other, mistake=messages[mistake])
    if shown:
        return SAYS["same"].format(name=name, source=shown, mistake=messages[mistake])
    return SAYS["mistake"].format(name=name, mistake=messages[mistake])


def columns(text):
    """How many columns `text` takes on screen (a Hangul or other wide character takes two)."""
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


def wrapped(text, width=76):
    """`text` in lines of at most `width` columns (or one word); a line "- ..." (one of a list)
    keeps its continuation lines indented under it."""
    lines = []
    for paragraph in text.split("\n"):
        indent = "  " if paragraph.startswith("- ") else ""
        line = ""
        for word in paragraph.split():
            if line.strip() and columns(f"{line} {word}") > width:
                lines.append(line)
                line = indent + word
            else:
                line = f"{line} {word}" if line.strip() else line + word
        lines.append(line)
    return lines


class CheckFailed(AssertionError):
    """A check under an answer that fails: shown as its message, then the line of the check."""

    def __init__(self, message, where=None):
        super().__init__(message)
        self.where = where

    def lines(self):
        """The message, wrapped, then where the check is (line number and code in its cell)."""
        lines = wrapped(str(self))
        if self.where:
            lines.append(SAYS["where"].format(line=self.where[0], code=self.where[1]))
        return lines

    def _render_traceback_(self):
        """What IPython shows for this error (in JupyterLab, nbgrader validate and the graded
        notebook alike) instead of a traceback."""
        return self.lines()


def where(frame):
    """The line number and code of the check that `frame` (a test cell's) is running, without its
    message (shown above it)."""
    code = linecache.getline(frame.f_code.co_filename, frame.f_lineno).strip().split(", fail(")[0]
    return (frame.f_lineno, code) if code else None


def say(text):
    """Print `text` in one write, so that it reaches the notebook as one output, however busy the
    machine (print writes the text and its newline apart: the kernel may send them apart)."""
    sys.stdout.write(text + "\n")


def fail(message):
    """Fail the check with `message`: a test cell writes `assert condition, fail("what is wrong")`."""
    raise CheckFailed(message, where(sys._getframe(1)))


class NotAnswered(NotImplementedError):
    """A part whose answer is not written yet: shown as one line, not a traceback."""

    def __init__(self, name):
        super().__init__(SAYS["unanswered"].format(name=name))
        self.name = name

    def _render_traceback_(self):
        """One line: the message, no traceback."""
        return [str(self)]


def not_answered():
    """What an answer cell holds until the answer is written: replace the line with your answer.
    In a function, calling the function fails with NotAnswered naming it, so its checks (and the
    hidden tests) find the part unanswered; in a cell of its own, it only says so, so that Run All
    goes on to the cells below."""
    caller = sys._getframe(1).f_code.co_name
    if caller == "<module>":
        say(SAYS["todo"])
        return
    raise NotAnswered(caller)


def no_known_mistake(name, answer):
    """True (saying so) if `answer` makes none of the known mistakes; CheckFailed naming the one it makes."""
    mistake = diagnosis(name, answer)
    if mistake:
        raise CheckFailed(mistake, where(sys._getframe(1)))
    say(SAYS["none"].format(name=name))
    return True


def checks_pass(name):
    """True, saying so: the last line of a test cell whose answer has no known-mistake check."""
    say(SAYS["pass"].format(name=name))
    return True


class every_check:
    """`with every_check() as check:`, then `with check("part"):` and that part's checks, for each
    part: every part's checks run (a failing one does not stop the others) and are listed."""

    def __init__(self):
        self.results = []

    def __enter__(self):
        return self.part

    @contextlib.contextmanager
    def part(self, name):
        try:
            with contextlib.redirect_stdout(io.StringIO()):
                yield
        except CheckFailed as failed:
            self.results.append((name, str(failed)))
        except NotAnswered as error:
            said = SAYS["unanswered_here"] if error.name == name else str(error)
            self.results.append((name, said))
        except NotImplementedError:
            self.results.append((name, SAYS["raised_unanswered"]))
        except NameError as error:
            self.results.append((name, SAYS["not_run"].format(error=error)))
        except Exception as error:
            self.results.append((name, SAYS["raised"].format(error=f"{type(error).__name__}: {error}")))
        else:
            self.results.append((name, None))

    def __exit__(self, *error):
        lines = [SAYS["every"]]
        for name, said in self.results:
            lines.append(f"✓ {name}" if said is None else "✗ " + "\n  ".join(wrapped(f"{name}: {said}", 86)))
        passed = sum(said is None for _, said in self.results)
        tally = SAYS["tally"].format(passed=passed, total=len(self.results))
        lines += wrapped(f"{tally} {SAYS['decide']}" if passed else tally, 88)
        say("\n".join(lines))
        return False
