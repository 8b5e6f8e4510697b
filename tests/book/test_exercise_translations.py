"""The Korean release of the graded notebooks: the English notebooks' cells, points and code, in Korean words.

The release is written by ``make exercises`` (tools/exercise_translations.py) from the English
instructor versions and the translators' catalogs; these tests check that what is committed is
what the tool makes, that only words differ, and that a student reads the checks in Korean.
"""

from __future__ import annotations

import ast
import shutil
from pathlib import Path

import exercise_translations as tool  # tools/exercise_translations.py
import nbformat
import pytest
from babel.messages.pofile import read_po, write_po

from roofline_grading import answer_key as key
from tests.support.slips import ASSIGNMENT, ROOT, SLIPS, read

NOTEBOOKS = sorted(p.stem for p in (ROOT / "solutions" / ASSIGNMENT).glob("*.ipynb"))
HANGUL = range(0xAC00, 0xD7A4)


def _korean(text: str) -> bool:
    return any(ord(ch) in HANGUL for ch in text)


def _cells(path: Path) -> list[nbformat.NotebookNode]:
    return list(read(path).cells)


def _shape(source: str) -> str:
    """The code with every string constant blanked: what must not differ between languages."""

    class Blank(ast.NodeTransformer):
        def visit_Constant(self, node: ast.Constant) -> ast.Constant:
            return ast.Constant("") if isinstance(node.value, str) else node

    return ast.unparse(Blank().visit(ast.parse(source)))


@pytest.mark.grading
def test_the_committed_korean_release_is_what_the_catalogs_make() -> None:
    stale, gaps = tool.build("ko", check=True)
    assert stale == [], f"run `make exercises` and commit: {stale}"
    assert gaps == [], f"every Korean exercise is released, none left out for a missing translation: {gaps}"


@pytest.mark.parametrize("notebook", NOTEBOOKS)
@pytest.mark.parametrize("kind", ["solutions", "exercises"])
def test_the_korean_notebook_has_the_same_cells_points_and_code(kind: str, notebook: str) -> None:
    english = _cells(ROOT / kind / ASSIGNMENT / f"{notebook}.ipynb")
    korean = _cells(ROOT / kind / "ko" / ASSIGNMENT / f"{notebook}.ipynb")
    assert [c.cell_type for c in korean] == [c.cell_type for c in english]
    for en, ko in zip(english, korean, strict=True):
        meta_en, meta_ko = en.metadata.get("nbgrader", {}), ko.metadata.get("nbgrader", {})
        same = ("grade_id", "grade", "solution", "locked", "points")
        assert {k: meta_ko.get(k) for k in same} == {k: meta_en.get(k) for k in same}
        if en.cell_type == "markdown":
            assert _korean(ko.source), ko.source[:200]
        elif not meta_en.get("grade_id", "").endswith("known_mistakes"):
            assert _shape(ko.source) == _shape(en.source), meta_en.get("grade_id")
    metadata = read(ROOT / kind / "ko" / ASSIGNMENT / f"{notebook}.ipynb").metadata
    assert metadata["roofline"] == {"language": "ko"}


def _cell_namespace(notebook: str) -> dict[str, object]:
    """The Korean release's setup and known-mistakes cells, run as a student's kernel runs them."""
    namespace: dict[str, object] = {}
    for cell in _cells(ROOT / "exercises" / "ko" / ASSIGNMENT / f"{notebook}.ipynb"):
        grade_id = cell.metadata.get("nbgrader", {}).get("grade_id", "")
        if grade_id.endswith(("_setup", "_known_mistakes")):
            exec(compile(cell.source, grade_id, "exec"), namespace)
    return namespace


def test_a_korean_student_reads_the_known_mistake_and_the_checks_in_korean(
    capsys: pytest.CaptureFixture[str],
) -> None:
    slip = SLIPS["ex1-two-bytes"]
    question = key.question("ex1.bytes_read")
    mistaken = next(m for m in question.mistakes if m.misconception == slip.misconception)
    cell = _cell_namespace("ex1_int8_matmul")
    with pytest.raises(AssertionError) as raised:
        cell["no_known_mistake"]("bytes_read", mistaken.answer)  # type: ignore[operator]
    said = " ".join(str(raised.value).split())
    assert slip.misconception.text("ko") in said and "알려진 실수가 있습니다" in said
    assert slip.misconception.message not in said
    assert cell["no_known_mistake"]("bytes_read", question.reference) is True  # type: ignore[operator]
    assert "숨겨진 테스트가 판정합니다" in capsys.readouterr().out
    assert _korean(str(cell["NO_ROOFLINEKIT"]))


def test_an_untranslated_message_stops_the_korean_release_and_is_named(tmp_path: Path) -> None:
    shutil.copytree(ROOT / "locale", tmp_path / "locale", ignore=shutil.ignore_patterns("*.mo"))
    catalog_file = tmp_path / "locale" / "ko" / "LC_MESSAGES" / f"{tool.CODE_DOMAIN}.po"
    with catalog_file.open("rb") as handle:
        catalog = read_po(handle)
    message = "ops should be positive"
    catalog[message].string = ""
    with catalog_file.open("wb") as handle:
        write_po(handle, catalog, width=0)
    english = read(ROOT / "solutions" / ASSIGNMENT / "ex1_int8_matmul.ipynb")
    with pytest.raises(tool.MissingTranslations, match=message):
        tool.translate_notebook(english, "ex1_int8_matmul", "ko", root=tmp_path)


def test_markdown_keeps_its_structure_and_code_its_quotes() -> None:
    words = {"Title": "제목", "A paragraph that spans two lines.": "두 줄에 걸친 문단.", "item": "항목"}
    words |= {"figure": "항목", "value": "값", "peak": "피크"}
    missing: list[str] = []
    source = (
        "# Title\n\nA paragraph that\nspans two lines.\n\n- item\n\n"
        "| figure | value |\n|---|---|\n| peak | 3 |\n"
    )
    translated = tool.translate_markdown(source, lambda m: words.get(m, m if m == "3" else None), missing)
    assert translated == "# 제목\n\n두 줄에 걸친 문단.\n\n- 항목\n\n| 항목 | 값 |\n|---|---|\n| 피크 | 3 |\n"
    assert missing == []
    code = 'def f():\n    """Doc."""\n    assert x, "say \\"so\\""\n'
    done = tool.translate_code(code, {"Doc.": "문서.", 'say "so"': '"그렇다"고'}.get, missing)
    assert done == 'def f():\n    """문서."""\n    assert x, "\\"그렇다\\"고"\n'
    ast.parse(done)


def test_a_korean_student_can_label_the_plot_in_korean() -> None:
    """Exercise 3 asks for a labelled plot: labels in Korean show as Hangul, not as empty boxes
    with a warning per missing glyph (the warnings are errors here). Needs a font with Hangul,
    as a Korean student's machine has (here fonts-nanum, which .ci/run installs)."""
    import io

    import matplotlib
    from matplotlib.figure import Figure

    with matplotlib.rc_context():
        cell = _cell_namespace("ex3_roofline_plot")
        figure = Figure()
        axes = figure.subplots()
        axes.plot([1, 2], [1, 2], label="D = F = 4096")
        axes.set_xlabel("배치 B (토큰)")
        axes.set_ylabel("도달 가능한 FLOP/s")
        axes.legend()
        try:
            figure.savefig(io.BytesIO(), format="png")
        except UserWarning as missing:
            families = matplotlib.rcParams["font.family"]
            pytest.fail(f"{missing} (font families: {families}; fonts with Hangul the notebook "
                        f"looks for: {cell.get('HANGUL_FONTS')}, e.g. NanumGothic from fonts-nanum)")


@pytest.mark.grading  # nbgrader releases the notebooks of a language translated in part
def test_a_language_translated_in_part_releases_what_is_complete_and_names_each_gap(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A language whose catalogs lack one message of exercise 1's page (as a new language's do,
    here Korean's with that message taken out): ``make exercises`` (the tool's build, for every
    language) releases every other notebook in it, says in one line that exercise 1 is not
    released and why, and exits 0; ``--check`` lists the message and exits 1."""
    root, course = tmp_path / "root", tmp_path / "course"
    shutil.copytree(ROOT / "locale" / "ko", root / "locale" / "ko", ignore=shutil.ignore_patterns("*.mo"))
    shutil.copytree(ROOT / "solutions" / ASSIGNMENT, course / "solutions" / ASSIGNMENT)
    shutil.copy(ROOT / "nbgrader_config.py", course)
    page = tool.page_catalog(root, "ko", "ex1_int8_matmul")
    with page.open("rb") as handle:
        catalog = read_po(handle)
    untranslated = next(str(m.id) for m in catalog if m.id and m.string and "Bytes" in str(m.id))
    catalog[untranslated].string = ""
    with page.open("wb") as handle:
        write_po(handle, catalog, width=0)
    gap = f"ex1_int8_matmul: not released in ko: 1 messages have no ko translation ({untranslated[:60]!r})"

    assert tool.main(["build", "--course", str(course)], root=root) == 0
    assert [line for line in capsys.readouterr().out.splitlines() if "not released" in line] == [gap]
    released = sorted(p.stem for p in (course / "exercises" / "ko" / ASSIGNMENT).glob("*.ipynb"))
    assert released == [name for name in NOTEBOOKS if name != "ex1_int8_matmul"]

    assert tool.main(["build", "--check", "--course", str(course)], root=root) == 1
    assert capsys.readouterr().out.splitlines() == [gap, f"  {untranslated[:100]}"]


def test_a_new_language_completing_no_notebook_names_every_gap_and_releases_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """README's "Adding a language", step 4, before any exercise is translated: catalogs written
    by ``make translations`` with every entry empty (here Korean's, emptied). ``make exercises``
    goes on (status 0) with one line per notebook and no release in that language."""
    root, course = tmp_path / "root", tmp_path / "course"
    shutil.copytree(ROOT / "locale" / "ko", root / "locale" / "ko", ignore=shutil.ignore_patterns("*.mo"))
    for path in (root / "locale" / "ko").rglob("*.po"):
        with path.open("rb") as handle:
            catalog = read_po(handle)
        for message in catalog:
            if message.id:
                message.string = ""
        with path.open("wb") as handle:
            write_po(handle, catalog, width=0)
    shutil.copytree(ROOT / "solutions" / ASSIGNMENT, course / "solutions" / ASSIGNMENT)

    assert tool.main(["build", "--language", "ko", "--course", str(course)], root=root) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split(":")[0] for line in lines] == NOTEBOOKS
    assert all(": not released in ko: " in line for line in lines)
    assert not (course / "exercises" / "ko").exists()
