"""The graded notebooks in another language, made from the English ones and the translators' catalogs.

A translated release has the same cells, grade ids, points, hidden tests and code as the
English one; only words differ, and they come from gettext catalogs, never typed into a notebook:

- Markdown cells: each paragraph, heading, list item and table cell is looked up in the catalog
  of the exercise's page on the site (``locale/<lang>/LC_MESSAGES/exercises/roofline/<name>.po``,
  which Sphinx's gettext builder and sphinx-intl keep), so the page a reader sees and the
  notebook a student works in say the same thing.
- Code cells: the messages a student reads (assertion messages, written ``fail("...")`` in the
  test cells, docstrings and module-level string constants such as ``NO_ROOFLINEKIT``) are looked up in
  ``locale/<lang>/LC_MESSAGES/exercise-code.po``; :func:`code_messages` lists them, and
  ``extract`` brings that catalog up to date with Babel (new messages empty, changed ones fuzzy).
- The known-mistakes cell and the last cell (every check at once, made of the test cells' visible
  checks, already translated) are written by ``python -m roofline_grading.fingerprints
  --language``, and the misconception feedback comes from the grading package's own catalog.

The translated instructor versions go to ``solutions/<lang>/roofline/``, and
``nbgrader generate_assignment`` (with a throwaway gradebook: the course has one assignment)
releases them to ``exercises/<lang>/roofline/``. Each notebook records its language in its
metadata (``{"roofline": {"language": "ko"}}``), which the grading driver reads to restore a
submission from the right release and to write its feedback in that language.

    python tools/exercise_translations.py extract        # English code messages -> exercise-code.po
    python tools/exercise_translations.py build          # write solutions/<lang>/ and exercises/<lang>/
    python tools/exercise_translations.py build --check  # exit 1 naming the notebooks that are stale

Each language of ``rooflinekit.languages`` is built on its own, and in it each notebook whose
messages are all translated: a language translated in part (a new one) is released for the
notebooks it completes, and each notebook it does not is one line, ``<name>: not released in
<lang>: N messages have no <lang> translation (...)`` (with ``--check``, its messages follow,
indented). The exit status: 0 once every complete notebook is released (gaps or not: ``make
exercises`` goes on for the complete languages and notebooks); with ``--check``, 1 if a notebook is
stale or not released for a gap.

>>> code_messages('assert x > 0, "x should be positive"\\nNOTE = "read me first"\\n')
['x should be positive', 'read me first']
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "book" / "_ext"))  # roofline_book: the book's catalog helpers

from rooflinekit.languages import TRANSLATED  # noqa: E402

ASSIGNMENT = "roofline"
CODE_DOMAIN = "exercise-code"
KNOWN_MISTAKES_SUFFIX = "_known_mistakes"
MADE_SUFFIXES = (KNOWN_MISTAKES_SUFFIX, "_every_check")
"""The grade ids' endings of the code cells roofline_grading.fingerprints writes, in the notebook's
language."""


class MissingTranslations(Exception):
    """Messages a notebook needs that the catalogs do not translate (the message lists them)."""


class NotebookGap(MissingTranslations):
    """The messages one notebook needs in one language that its catalogs do not translate: the
    notebook is not released in that language, and this is its one line.

    >>> print(NotebookGap("ex1_int8_matmul", "xx", ("Bytes moved", "(a) Bytes")))
    ex1_int8_matmul: not released in xx: 2 messages have no xx translation ('Bytes moved', ...)
    """

    def __init__(self, name: str, language: str, messages: tuple[str, ...]) -> None:
        self.name, self.language, self.messages = name, language, messages
        more = ", ..." if len(messages) > 1 else ""
        super().__init__(
            f"{name}: not released in {language}: {len(messages)} messages have no {language} translation"
            f" ({messages[0][:60]!r}{more})"
        )


def code_messages(source: str) -> list[str]:
    """The messages a student reads in a code cell, in order: assertion messages, docstrings and
    string constants given to upper-case names at the top level."""
    return [text for _, text in _message_nodes(source)]


def _message_nodes(source: str) -> Iterator[tuple[ast.Constant, str]]:
    """Each message of :func:`code_messages`, with the string constant that writes it."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return
    candidates: list[ast.expr | None] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Assert):
            candidates.append(_failed(node.msg))
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            first = node.body[0] if node.body else None
            candidates.append(first.value if isinstance(first, ast.Expr) else None)
    candidates += [n.value for n in tree.body if isinstance(n, ast.Assign) and _upper_names(n.targets)]
    for item in candidates:
        if isinstance(item, ast.Constant) and isinstance(item.value, str) and item.value.strip():
            yield item, item.value


def _failed(message: ast.expr | None) -> ast.expr | None:
    """An assertion's message: ``"..."``, or the one ``fail("...")`` is given."""
    if isinstance(message, ast.Call) and isinstance(message.func, ast.Name) and message.func.id == "fail":
        return message.args[0] if message.args else None
    return message


def _upper_names(targets: list[ast.expr]) -> bool:
    return all(isinstance(t, ast.Name) and t.id.isupper() for t in targets)


def translate_code(source: str, tr: Callable[[str], str | None], missing: list[str]) -> str:
    """``source`` with each of its :func:`code_messages` replaced by its translation."""
    found = sorted(_message_nodes(source), key=lambda m: (m[0].lineno, m[0].col_offset), reverse=True)
    lines = source.split("\n")
    for node, english in found:
        text = tr(english)
        if text is None:
            missing.append(english)
            continue
        assert node.end_lineno is not None and node.end_col_offset is not None
        first, last = node.lineno - 1, node.end_lineno - 1
        is_docstring = lines[first][node.col_offset :].startswith(('"""', "'''"))
        literal = f'"""{text}"""' if is_docstring else json.dumps(text, ensure_ascii=False)
        # ast's offsets count UTF-8 bytes; the cells' English sources are ASCII.
        before = lines[first].encode()[: node.col_offset].decode()
        after = lines[last].encode()[node.end_col_offset :].decode()
        lines[first : last + 1] = [before + literal + after]
    return "\n".join(lines)


def translate_markdown(
    source: str, tr: Callable[[str], str | None], missing: list[str], parser: Any = None
) -> str:
    """``source`` with each paragraph, heading, list item and table cell translated (a paragraph
    becomes one line; list markers, heading marks and table pipes stay). ``parser`` is a
    markdown-it parser (CommonMark with tables if None; MyST's for the chapters)."""
    from markdown_it import MarkdownIt

    tokens = (parser or MarkdownIt("commonmark").enable("table")).parse(source)
    lines = source.split("\n")
    by_block: dict[tuple[int, int], list[str]] = {}
    for token in tokens:
        if token.type == "inline" and token.map and token.content.strip():
            by_block.setdefault((token.map[0], token.map[1]), []).append(token.content)
    for (start, end), contents in sorted(by_block.items(), reverse=True):
        texts = []
        for content in contents:
            message = " ".join(line.strip() for line in content.split("\n")).strip()
            text = tr(message)
            if text is None:
                missing.append(message)
                text = message
            texts.append(text)
        if len(contents) > 1 or lines[start].lstrip().startswith("|"):  # a table row
            lines[start:end] = ["| " + " | ".join(texts) + " |"]
            continue
        first_line = contents[0].split("\n")[0]
        prefix = lines[start][: max(lines[start].find(first_line), 0)]
        lines[start:end] = [prefix + texts[0]]
    return "\n".join(lines)


def lookup(path: Path) -> Callable[[str], str | None]:
    """The translations of a catalog: a message's translation, or None where it has none (or a
    fuzzy one, or the catalog does not exist)."""
    from rooflinekit.words import catalog_translations

    return (catalog_translations(path) if path.is_file() else {}).get

def translate_notebook(notebook: Any, name: str, language: str, root: Path = ROOT) -> Any:
    """A copy of ``notebook`` (the English instructor version of exercise ``name``) in
    ``language``; raises :class:`NotebookGap` listing every message the catalogs lack."""
    import copy

    markdown = lookup(page_catalog(root, language, name))
    code = lookup(root / "locale" / language / "LC_MESSAGES" / f"{CODE_DOMAIN}.po")
    translated = copy.deepcopy(notebook)
    missing: list[str] = []
    for cell in translated.cells:
        grade_id = cell.metadata.get("nbgrader", {}).get("grade_id", "")
        if cell.cell_type == "markdown":
            cell.source = translate_markdown(cell.source, markdown, missing)
        elif cell.cell_type == "code" and not grade_id.endswith(MADE_SUFFIXES):
            cell.source = translate_code(cell.source, code, missing)
    if missing:
        raise NotebookGap(name, language, tuple(dict.fromkeys(missing)))
    translated.metadata.setdefault("roofline", {})["language"] = language
    return translated


def page_catalog(root: Path, language: str, name: str) -> Path:
    """The catalog of exercise ``name``'s page in ``language`` (a new exercise has none until
    ``make translations``: its release in that language waits for it).

    >>> page_catalog(Path("."), "ko", "ex1_int8_matmul").as_posix()
    'locale/ko/LC_MESSAGES/exercises/roofline/ex1_int8_matmul.po'
    """
    return root / "locale" / language / "LC_MESSAGES" / "exercises" / ASSIGNMENT / f"{name}.po"


def solution_paths(root: Path = ROOT) -> list[Path]:
    return sorted((root / "solutions" / ASSIGNMENT).glob("*.ipynb"))


def _translated(language: str, root: Path, course_dir: Path, source_dir: Path) -> list[NotebookGap]:
    """Write each notebook of ``course_dir`` that ``root``'s catalogs translate into ``language``
    to ``source_dir``; what the others lack (a notebook without a page catalog is said at once)."""
    import nbformat

    gaps = []
    for path in solution_paths(course_dir):
        if not page_catalog(root, language, path.stem).is_file():
            print(f"{path.stem}: not released in {language}: its page has no catalog (make translations)")
            continue
        try:
            notebook = translate_notebook(nbformat.read(path, as_version=4), path.stem, language, root)
        except NotebookGap as gap:
            gaps.append(gap)
            continue
        nbformat.write(notebook, source_dir / path.name)
    return gaps


def build(
    language: str, root: Path = ROOT, *, course_dir: Path | None = None, check: bool = False
) -> tuple[list[str], list[NotebookGap]]:
    """Write (or with ``check``, compare) the translated instructor versions and their release in
    ``course_dir`` (this checkout by default), from its English ones and ``root``'s catalogs: the
    names of the notebooks that were (or would be) changed, and the notebooks left out, each
    with the messages it lacks."""
    course_dir = course_dir or root
    with tempfile.TemporaryDirectory(prefix="exercise-translations-") as scratch:
        course = Path(scratch)
        source_dir = course / "solutions" / language / ASSIGNMENT
        source_dir.mkdir(parents=True)
        gaps = _translated(language, root, course_dir, source_dir)
        if not any(source_dir.glob("*.ipynb")):
            return [], gaps  # a new language that completes no notebook yet: nothing to release
        _run([sys.executable, "-m", "roofline_grading.fingerprints", str(source_dir), "--language", language])
        shutil.copy(course_dir / "nbgrader_config.py", course)
        _run(
            [
                str(Path(sys.executable).with_name("nbgrader")),
                "generate_assignment",
                ASSIGNMENT,
                "--force",
                f"--CourseDirectory.source_directory=solutions/{language}",
                f"--CourseDirectory.release_directory=exercises/{language}",
                f"--CourseDirectory.db_url=sqlite:///{course / 'throwaway.db'}",
            ],
            cwd=course,
        )
        changed = []
        for kind in ("solutions", "exercises"):
            made = course / kind / language / ASSIGNMENT
            target = course_dir / kind / language / ASSIGNMENT
            for path in sorted(made.glob("*.ipynb")):
                current = target / path.name
                if not current.is_file() or current.read_bytes() != path.read_bytes():
                    changed.append(f"{kind}/{language}/{ASSIGNMENT}/{path.name}")
                    if not check:
                        target.mkdir(parents=True, exist_ok=True)
                        shutil.copyfile(path, current)
        return changed, gaps


def _run(command: list[str], cwd: Path | None = None) -> None:
    bin_dir = str(Path(sys.executable).parent)
    env = {
        **os.environ,
        "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}",
    }  # nbgrader calls alembic
    done = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(command[:3])} failed:\n{done.stdout[-2000:]}{done.stderr[-2000:]}")


def extract(language: str, root: Path = ROOT) -> Path:
    """Bring ``exercise-code.po`` up to date with the English notebooks (Babel's own update:
    new messages empty, changed ones fuzzy with the old translation, gone ones obsolete)."""
    import nbformat
    from babel.messages.catalog import Catalog
    from babel.messages.pofile import read_po, write_po

    template = Catalog(project="roofline course exercises")
    for path in solution_paths(root):
        for index, cell in enumerate(nbformat.read(path, as_version=4).cells):
            grade_id = cell.metadata.get("nbgrader", {}).get("grade_id", "")
            if cell.cell_type == "code" and not grade_id.endswith(MADE_SUFFIXES):
                for message in code_messages(cell.source):
                    template.add(message, locations=[(f"solutions/{ASSIGNMENT}/{path.name}", index + 1)])
    target = root / "locale" / language / "LC_MESSAGES" / f"{CODE_DOMAIN}.po"
    if target.is_file():
        with target.open("rb") as handle:
            catalog = read_po(handle, locale=language)
    else:
        catalog = Catalog(locale=language, project="roofline course exercises")
    catalog.update(template, update_header_comment=False)
    target.parent.mkdir(parents=True, exist_ok=True)
    with target.open("wb") as handle:
        write_po(handle, catalog, width=0, omit_header=False, ignore_obsolete=True)
    return target


def main(argv: list[str] | None = None, root: Path = ROOT) -> int:
    """The command; ``root``: the repository whose catalogs translate (this one)."""
    parser = argparse.ArgumentParser(
        prog="python tools/exercise_translations.py", description=__doc__.split("\n")[0]
    )
    parser.add_argument("action", choices=("extract", "build"))
    parser.add_argument("--language", choices=TRANSLATED,
                        help="a language of the course (default: each, rooflinekit.languages)")
    parser.add_argument("--check", action="store_true", help="with build: only report stale notebooks")
    parser.add_argument(
        "--course", type=Path, default=ROOT, help="with build: the nbgrader course (default: here)"
    )
    options = parser.parse_args(argv)
    languages = [options.language] if options.language else TRANSLATED
    if options.action == "extract":
        for language in languages:
            print(f"updated {extract(language).relative_to(ROOT)}")
        return 0
    stale = False
    for language in languages:
        changed, gaps = build(language, root, course_dir=options.course.resolve(), check=options.check)
        for name in changed:
            print(f"{name}: {'stale: run make exercises' if options.check else 'written'}")
        for gap in gaps:
            print(gap)
            if options.check:
                print("\n".join(f"  {message[:100]}" for message in gap.messages))
        stale = stale or bool(changed or gaps)
    return 1 if options.check and stale else 0


if __name__ == "__main__":
    sys.exit(main())
