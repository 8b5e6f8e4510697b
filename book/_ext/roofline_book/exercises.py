"""Find the student versions of the graded exercises and describe them for the book.

nbgrader releases each assignment into ``exercises/<assignment>/<notebook>.ipynb``. The book
shows every released notebook as a page (a glob in _toc.yml) and lists them on one page with
their graded parts, points and a download link. Only ``exercises/`` is read: the instructor
versions in ``solutions/`` never reach the site. A page shows the notebook as released, its
helper code folded (:func:`read_released`, myst-nb's reader of ``.ipynb`` pages, _config.yml's
``nb_custom_formats``): the question comes first, the machinery of the checks a click away.

>>> import json, tempfile
>>> from pathlib import Path
>>> root = Path(tempfile.mkdtemp())
>>> (root / "exercises" / "ex1").mkdir(parents=True)
>>> nb = {"cells": [{"cell_type": "markdown", "metadata": {}, "source": "# Int8 matmul\\n"},
...     {"cell_type": "code", "metadata": {"nbgrader": {"grade": True, "points": 2}},
...      "source": "", "outputs": [], "execution_count": None}],
...     "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
>>> _ = (root / "exercises" / "ex1" / "int8.ipynb").write_text(json.dumps(nb))
>>> [(e.docname, e.title, e.graded_parts, e.points) for e in find_exercises(root)]
[('exercises/ex1/int8', 'Int8 matmul', 1, 2.0)]
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

EXERCISES_DIR = "exercises"
_HEADING = re.compile(r"^#\s+(.+?)\s*#*\s*$", re.MULTILINE)


@dataclass(frozen=True)
class ExerciseNotebook:
    """One released (student) notebook."""

    path: Path  # relative to the repository root, e.g. exercises/ex1/int8.ipynb
    title: str
    graded_parts: int
    points: float
    download: Path | None = None
    """The notebook a reader downloads, if not ``path`` (the release in the page's language)."""

    @property
    def docname(self) -> str:
        """The Sphinx document name of the notebook's page."""
        return self.path.with_suffix("").as_posix()


def _source(cell: dict[str, Any]) -> str:
    source = cell.get("source", "")
    return "".join(source) if isinstance(source, list) else str(source)


def describe(root: Path, path: Path) -> ExerciseNotebook:
    """Read one notebook: its first level-1 heading and its nbgrader graded cells."""
    notebook = json.loads((root / path).read_text(encoding="utf-8"))
    title = path.stem
    for cell in notebook.get("cells", []):
        if cell.get("cell_type") == "markdown":
            match = _HEADING.search(_source(cell))
            if match:
                title = match.group(1)
                break
    graded = [
        cell["metadata"]["nbgrader"]
        for cell in notebook.get("cells", [])
        if cell.get("metadata", {}).get("nbgrader", {}).get("grade")
    ]
    points = sum(float(meta.get("points", 0) or 0) for meta in graded)
    return ExerciseNotebook(path=path, title=title, graded_parts=len(graded), points=points)


FOLDED = "hide-input"
"""myst-nb's tag of a cell shown folded: "Show code cell source", its code a click away."""


def is_helper(cell: dict[str, Any]) -> bool:
    """Whether ``cell`` is code the student runs but neither writes nor is graded on (the setup,
    the known mistakes' fingerprints, every check at once): nbgrader's read-only code cells.

    >>> is_helper({"cell_type": "code", "metadata": {"nbgrader": {"locked": True, "grade": False}}})
    True
    >>> is_helper({"cell_type": "code", "metadata": {"nbgrader": {"locked": True, "grade": True}}})  # a check
    False
    """
    marks = cell.get("metadata", {}).get("nbgrader", {})
    return cell.get("cell_type") == "code" and bool(marks.get("locked")) and not marks.get("grade") \
        and not marks.get("solution")


def read_released(text: str) -> Any:
    """A released notebook as its page shows it: every helper cell (:func:`is_helper`) tagged to
    be folded; the notebook a reader downloads is the file itself, untouched.

    >>> cell = {"id": "a", "cell_type": "code", "metadata": {"nbgrader": {"locked": True}}, "source": "",
    ...         "outputs": [], "execution_count": None}
    >>> nb = {"cells": [cell], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    >>> read_released(json.dumps(nb)).cells[0].metadata.tags
    ['hide-input']
    """
    import nbformat

    notebook = nbformat.reads(text, as_version=nbformat.NO_CONVERT)  # type: ignore[no-untyped-call]
    for cell in notebook.cells:
        tags = cell.metadata.setdefault("tags", [])
        if is_helper(cell) and FOLDED not in tags:
            tags.append(FOLDED)
    return notebook


def find_exercises(root: Path) -> list[ExerciseNotebook]:
    """Every ``exercises/<assignment>/<notebook>.ipynb`` under ``root``, sorted by path."""
    base = root / EXERCISES_DIR
    if not base.is_dir():
        return []
    paths = sorted(
        p.relative_to(root)
        for p in base.glob("*/*.ipynb")
        if ".ipynb_checkpoints" not in p.parts
    )
    return [describe(root, p) for p in paths]


def release_in(path: Path, language: str) -> Path:
    """Where ``make exercises`` releases the notebook ``path`` (``exercises/<assignment>/<name>``)
    in ``language``.

    >>> release_in(Path("exercises/roofline/ex1.ipynb"), "ko").as_posix()
    'exercises/ko/roofline/ex1.ipynb'
    """
    return path.parent.parent / language / path.parent.name / path.name


def in_language(root: Path, exercises: list[ExerciseNotebook], language: str) -> list[ExerciseNotebook]:
    """The exercises as a ``language`` edition lists them: each page as before, its title and
    download from the release in that language (``exercises/<language>/<assignment>/``, which
    ``make exercises`` writes) where there is one, with the same graded parts and points.

    >>> in_language(Path("."), [], "ko")
    []
    """
    found = []
    for ex in exercises:
        translated = release_in(ex.path, language)
        if language == "en" or not (root / translated).is_file():
            found.append(ex)
            continue
        other = describe(root, translated)
        if (other.graded_parts, other.points) != (ex.graded_parts, ex.points):
            raise ValueError(f"{translated} grades other parts than {ex.path}: run `make exercises`")
        found.append(ExerciseNotebook(ex.path, other.title, ex.graded_parts, ex.points, download=translated))
    return found


def name_pieces(name: str) -> list[str]:
    """A file name in the pieces a narrow table may break it into: after each underscore and
    before the extension, never inside a word.

    >>> name_pieces("ex4_batched_matmul.ipynb")
    ['ex4_', 'batched_', 'matmul', '.ipynb']
    """
    stem, dot, extension = name.rpartition(".") if "." in name else (name, "", "")
    pieces = re.findall(r"[^_]+_*|_+", stem)
    return pieces + ([dot + extension] if dot else [])


def listing_markdown(exercises: list[ExerciseNotebook]) -> str:
    """A MyST table of the exercises with links to their pages and downloads.

    >>> listing_markdown([])
    '*No exercises have been released yet.*\\n'
    """
    if not exercises:
        return "*No exercises have been released yet.*\n"
    rows = [
        "| Exercise | Graded parts | Points | Notebook |",
        "| --- | --: | --: | --- |",
    ]
    for ex in exercises:
        title = ex.title.replace("|", "\\|").replace("<", "\\<")
        rows.append(
            f"| {{doc}}`{title} </{ex.docname}>` | {ex.graded_parts} | {ex.points:g} "
            f"| {{download}}`{ex.path.name} </{(ex.download or ex.path).as_posix()}>` |"
        )
    return "\n".join(rows) + "\n"
