"""Build the book: ``jupyter-book build . --builder html -W -n --keep-going``, prepared.

``make book`` runs this after installing the environment and the vendored browser assets.
Before handing over to Jupyter Book's own command line (in this process) it

1. drops the execution cache if rooflinekit or the environment changed (tools/book_cache.py),
   since cached outputs are keyed on the chapters' code only;
2. builds matplotlib's font cache if it is missing: its one-off notice on a chapter's stderr
   would fail the build;
3. writes the student environment the exercises page offers as a download
   (``_build/student/roofline-student.zip``, tools/student_environment.py);
4. keeps ``rfc3987_syntax`` from loading. jsonschema imports it, when installed, to check the
   "iri" string format, and it compiles 38 grammars on import: 2.5 s of every build, no-op
   rebuilds included, for a format neither _config.yml nor any notebook schema uses.

Then it builds each translation (``TRANSLATIONS``: Korean) into ``_build/html/<lang>/``
with the same command's settings and strictness, Sphinx's ``language`` set and the catalogs
in ``locale/`` (tools/translations.py keeps them): the same sources, read again, with the
same execution cache, so a chapter is never executed twice and every number is the same.

On success it ends by saying where to open the site (:func:`where_to_open`: each edition's
index, as the README's quick start says, and how to serve it on this machine alone).

It prints its progress and every problem, not the tools' routine chatter: the build runs in a
process of its own (``--verbose``, everything) whose output tools/build_log.py sifts, line by line
(a warning, an error or any line it does not know is shown as it is). ``--verbose``
(``make book VERBOSE=1``) shows everything.

After a failed build it deletes Sphinx's saved environment (``_build/.doctrees``). Sphinx
reports a page's warnings (a failing cell is one) only when it reads the page, and it saves
the pages it has read even when the build fails; without this the next, unchanged build
would read nothing, see no warning and pass.

    python tools/build_book.py [--verbose] [extra jupyter-book build options]
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
import student_environment  # noqa: E402  # tools/student_environment.py
from build_log import BuildLog  # noqa: E402  # tools/build_log.py

from rooflinekit.languages import TRANSLATED  # noqa: E402

BUILD_ARGS = ["build", ".", "--builder", "html", "-W", "-n", "--keep-going"]
BUILD = ROOT / "_build"
TRANSLATIONS = TRANSLATED
"""The translated editions ``make book`` builds (rooflinekit.languages: every language but English);
``BOOK_TRANSLATIONS=""`` in the environment builds the English edition only (benchmarks/bench_build.py
compares the two)."""


def translations() -> tuple[str, ...]:
    chosen = os.environ.get("BOOK_TRANSLATIONS")
    return TRANSLATIONS if chosen is None else tuple(chosen.split())


def edition_overrides(language: str) -> dict[str, object]:
    """Sphinx settings of a translated edition, on top of _config.yml (as ``jupyter-book build``)."""
    return {
        "external_toc_path": (ROOT / "_toc.yml").as_posix(),
        "latex_individualpages": False,
        "nitpicky": True,
        "language": language,
        "locale_dirs": ["locale"],
        "gettext_compact": False,
        "gettext_location": False,  # catalogs do not change when a line moves
        "nb_execution_cache_path": str(BUILD / ".jupyter_cache"),
    }


def build_edition(language: str, builder: str = "html", outdir: Path | None = None) -> int:
    """Build one translated edition (or, with ``builder="gettext"``, the message catalogs)."""
    from jupyter_book.sphinx import build_sphinx

    student_environment.write(ROOT)  # the exercises page's download (tools/translations.py builds here too)
    os.environ["ROOFLINEKIT_FIGURE_LANGUAGES"] = figure_languages()  # a chapter it executes draws them too
    outdir = outdir or BUILD / "html" / language
    with executed_notebooks_beside(outdir):
        result = build_sphinx(
            ROOT,
            outdir,
            noconfig=True,
            path_config=str(ROOT / "_config.yml"),
            confoverrides=edition_overrides(language),
            doctreedir=BUILD / f".doctrees-{builder}-{language}",
            builder=builder,
            warningiserror=True,
            keep_going=True,
        )
    if isinstance(result, BaseException):
        print(f"build_book: the {language} edition failed: {result}", file=sys.stderr)
        return 1
    return int(result or 0)


def where_to_open(languages: tuple[str, ...]) -> str:
    """The build's last lines: each edition's index page (English at the root, each translation
    in its folder) and how to serve them.

    >>> print(where_to_open(("ko",)))
    build_book: the site is built. Open it in a browser:
      _build/html/index.html      (English)
      _build/html/ko/index.html   (한국어)
    or serve it to this machine alone: python -m http.server -b 127.0.0.1 -d _build/html,
    then open http://127.0.0.1:8000/
    """
    pages = [("_build/html/index.html", edition_name(None))]
    pages += [(f"_build/html/{lang}/index.html", edition_name(lang)) for lang in languages]
    width = max(len(path) for path, _ in pages) + 3
    lines = [f"  {path:<{width}}({name})" for path, name in pages]
    return "\n".join([
        "build_book: the site is built. Open it in a browser:",
        *lines,
        f"or serve it to this machine alone: {SERVE},",
        "then open http://127.0.0.1:8000/",
    ])


SERVE = "python -m http.server -b 127.0.0.1 -d _build/html"
"""The README's server: on the loopback address, so that no other machine reaches it."""


def edition_name(language: str | None) -> str:
    """An edition's name in its own language (None: the English edition, at the site's root).

    >>> edition_name(None), edition_name("ko")
    ('English', '한국어')
    """
    if str(ROOT / "book" / "_ext") not in sys.path:
        sys.path.insert(0, str(ROOT / "book" / "_ext"))
    from roofline_book.editions import EDITIONS, PRIMARY  # each edition's name in its language

    return EDITIONS.get(language or PRIMARY, language or PRIMARY)


@contextlib.contextmanager
def executed_notebooks_beside(outdir: Path) -> Iterator[None]:
    """While a translation builds into ``outdir``, the English build's executed notebooks
    (``_build/jupyter_execute``, which the translation reuses) are also where sphinx-book-theme
    looks for them: beside the output folder, ``outdir/../jupyter_execute``. The theme copies a
    chapter's notebook from there for its launch buttons (on once ``repository.url`` is set), and
    a translation's output folder is ``_build/html/<lang>``: a link ``_build/html/jupyter_execute``,
    removed afterwards, so that it is never part of the site.
    """
    link, executed = outdir.parent / "jupyter_execute", BUILD / "jupyter_execute"
    if link.exists() or link.is_symlink() or link.resolve() == executed.resolve():
        yield
        return
    link.parent.mkdir(parents=True, exist_ok=True)
    link.symlink_to(executed.resolve(), target_is_directory=True)
    try:
        yield
    finally:
        link.unlink()


def warm_matplotlib_font_cache() -> None:
    import matplotlib

    if not list(Path(matplotlib.get_cachedir()).glob("fontlist-v*.json")):
        import matplotlib.font_manager


FIGURE_CATALOGS = ("computed.po", "explorer-labels.po")
"""The catalogs a figure's words are looked up in (the code's messages, the library's labels)."""


def figure_languages() -> str:
    """``ROOFLINEKIT_FIGURE_LANGUAGES`` for the chapters' kernels (rooflinekit.figure_languages): each
    translation and its catalogs, so that every figure is also drawn in each edition's language.

    >>> figure_languages().startswith("ko=")
    True
    """
    return " ".join(
        f"{language}=" + os.pathsep.join(str(ROOT / "locale" / language / "LC_MESSAGES" / name)
                                         for name in FIGURE_CATALOGS)
        for language in TRANSLATIONS
    )



VERBOSE = "--verbose"


def sifted(arguments: list[str]) -> int:
    """The build (``build_book.py --verbose``) in a process of its own, its output sifted by
    tools/build_log.py as it comes; the build's status."""
    log = BuildLog(ROOT)
    child = subprocess.Popen(
        [sys.executable, str(Path(__file__).resolve()), VERBOSE, *arguments],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, encoding="utf-8", errors="replace",
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    assert child.stdout is not None
    for line in child.stdout:
        for shown in log.feed(line):
            print(shown, flush=True)
    return child.wait()


def main(argv: list[str] | None = None) -> int:
    arguments = list(sys.argv[1:] if argv is None else argv)
    if VERBOSE not in arguments:
        return sifted(arguments)
    arguments.remove(VERBOSE)
    import book_cache

    os.chdir(ROOT)
    os.environ["ROOFLINEKIT_FIGURE_LANGUAGES"] = figure_languages()  # the kernels inherit it
    book_cache.refresh()
    warm_matplotlib_font_cache()
    student_environment.write(ROOT)
    sys.modules["rfc3987_syntax"] = None  # type: ignore[assignment]  # import raises ImportError
    from jupyter_book.cli.main import main as jupyter_book

    print(f"build_book: the {edition_name(None)} edition, into _build/html", flush=True)
    sys.argv = ["jupyter-book", *BUILD_ARGS, *arguments]
    try:
        jupyter_book()  # a click command: it exits with the build's status
    except SystemExit as done:
        status = done.code if isinstance(done.code, int) else (0 if done.code is None else 1)
    else:
        status = 0
    for language in translations() if status == 0 else ():
        print(f"build_book: the {edition_name(language)} edition, into _build/html/{language}", flush=True)
        status = build_edition(language)
    if status != 0:
        for doctrees in [BUILD / ".doctrees", *(BUILD / f".doctrees-html-{lang}" for lang in TRANSLATIONS)]:
            shutil.rmtree(doctrees, ignore_errors=True)
        print("build_book: the build failed; the next build reads every page again", file=sys.stderr)
    else:
        print(where_to_open(translations()), flush=True)
    return status


if __name__ == "__main__":
    sys.exit(main())
