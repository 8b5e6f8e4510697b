"""The check a student sees under each answer: does it make one of the course's known mistakes?

Everything below the line ``# --- copied into the exercises ---`` is copied, as it is, into each
exercise's locked *known mistakes* cell by :mod:`roofline_grading.fingerprints`, followed by the
table ``KNOWN_MISTAKES`` it computes from the answer key and the sentences ``SAYS`` in the
notebook's language. The cell runs in the student's kernel
and, at grading time, in the sandboxed kernel, so it uses only the standard library and holds
no right answer and no formula: only fingerprints of the known *wrong* answers, each a salted,
slow hash of where a mistaken value falls on a grid as fine as the question's tolerance.

An answer is called out when, at every case in the table, it falls within two grid steps of
the mistake's value; an answer that matches no known mistake is never called right.

>>> scale = ("rel", 1e-6)
>>> fingerprints("ex1.ops", 0, 2e12, scale, spread=0) <= fingerprints("ex1.ops", 0, 2e12 * (1 + 1e-6), scale)
True
>>> fingerprints("ex1.ops", 0, 2e12, scale, spread=0) & fingerprints("ex1.ops", 0, 4e12, scale)
set()
"""

# ruff: noqa: B905
# The code below is what students read: plain Python, no type hints, no imports beyond the
# standard library.
# --- copied into the exercises ---
import hashlib
import math
import textwrap

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
    salt = f"roofline known mistakes: {question}, case {case}".encode()
    return {hashlib.pbkdf2_hmac("sha256", level.encode(), salt, 1000).hex()[:16] for level in levels}


def known_mistake(name, answer):
    """What is wrong with the function `answer`, in words, if it makes a known mistake; else None."""
    entry = KNOWN_MISTAKES.get(name)
    if entry is None:
        return None
    seen = []
    for case, arguments in enumerate(entry["cases"]):
        try:
            seen.append(fingerprints(entry["question"], case, answer(*arguments), entry["scale"]))
        except Exception:  # an answer that fails or returns no number: the other checks say so
            return None
    found = [message for prints, message in entry["mistakes"] if all(p in s for p, s in zip(prints, seen))]
    return " ".join(dict.fromkeys(found)) or None


def no_known_mistake(name, answer):
    """True if `answer` makes none of the known mistakes; AssertionError naming the one it makes."""
    __tracebackhide__ = True
    mistake = known_mistake(name, answer)
    if mistake:
        raise AssertionError(
            "\n"
            + textwrap.fill(
                SAYS["mistake"].format(name=name, mistake=mistake), width=76, break_on_hyphens=False
            )
        )
    print(SAYS["none"].format(name=name))
    return True
