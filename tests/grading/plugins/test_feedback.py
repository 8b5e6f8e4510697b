"""The feedback pages' math, without a browser: TeX to MathML (roofline_grading.plugins.feedback).

The released exercises' Markdown has no TeX today (they name sizes in words and in code, such
as ``int8[B, D]``); the formulas an exercise would borrow are the chapters', so every formula
of the chapters must convert, and the course's notation must become the MathML it means. A
released notebook's feedback page must be what nbgrader's own exporter writes, less MathJax.
"""

from __future__ import annotations

import re
from pathlib import Path

import nbformat
import pytest
from bs4 import BeautifulSoup
from nbconvert.exporters import HTMLExporter
from nbconvert.filters.markdown_mistune import IPythonRenderer, MarkdownWithMath

from roofline_grading.plugins.feedback import FeedbackExporter, MathMLRenderer, to_mathml

ROOT = Path(__file__).resolve().parents[3]
RELEASES = sorted((ROOT / "exercises" / "roofline").glob("*.ipynb")) + sorted(
    (ROOT / "exercises" / "ko" / "roofline").glob("*.ipynb")
)
CHAPTERS = sorted((ROOT / "book" / "chapters").glob("*.md"))


def formulas(markdown: str) -> list[tuple[str, bool]]:
    """Each formula in ``markdown`` as nbconvert's Markdown parser finds it (the one the feedback
    page is written with): its TeX and whether it is displayed."""
    found: list[tuple[str, bool]] = []

    class Collect(IPythonRenderer):
        def inline_math(self, body: str) -> str:
            found.append((body, False))
            return ""

        def block_math(self, body: str) -> str:
            found.append((body, True))
            return ""

        def latex_environment(self, name: str, body: str) -> str:
            found.append((f"\\begin{{{name}}}{body}\\end{{{name}}}", True))
            return ""

    MarkdownWithMath(renderer=Collect(escape=False)).render(markdown)
    return found


def release_formulas() -> list[tuple[str, bool]]:
    return [
        formula
        for path in RELEASES
        for cell in nbformat.read(path, as_version=4).cells
        if cell.cell_type == "markdown"
        for formula in formulas(cell.source)
    ]


def chapter_formulas() -> list[tuple[str, bool]]:
    return [formula for path in CHAPTERS for formula in formulas(path.read_text())]


def test_every_formula_of_the_released_exercises_and_of_the_chapters_becomes_mathml() -> None:
    found = release_formulas() + chapter_formulas()
    assert len(chapter_formulas()) > 100, "the chapters' formulas were not found"
    for tex, display in found:
        mathml = to_mathml(tex, display=display)  # raises on a formula it cannot convert
        assert mathml.startswith("<math") and mathml.endswith("</math>"), (tex, mathml)
        assert "merror" not in mathml, (tex, mathml)


@pytest.mark.parametrize(
    ("tex", "elements"),
    [
        (r"I = \frac{2BDF}{BD + DF + BF}", [("mfrac", None), ("mi", "I"), ("mo", "=")]),
        (r"\text{intensity} \approx \frac{\text{FLOPs}}{\text{B}}", [("mtext", "intensity"), ("mo", "≈")]),
        (r"T_\text{lower} = \max(T_\text{math}, T_\text{comms})", [("msub", None), ("mi", "max")]),
        (r"B \ll D \cdot F", [("mo", "≪"), ("mo", "⋅")]),
        (r"\underbrace{2BD}_{\text{reads}}", [("munder", None), ("mo", "⏟")]),
        (r"\dfrac{1}{2} \Longleftrightarrow x \xrightarrow{f} y", [("mfrac", None), ("mo", "⟺")]),
        (r"x \xrightarrow{\text{int8}} y", [("mover", None), ("mtext", "int8")]),
        (r"\left( \sum_{i=1}^{n} i \right) \le \infty", [("munderover", None), ("mo", "∑"), ("mi", "∞")]),
        (r"\begin{aligned} T &= a, \\ U &= b. \end{aligned}", [("mtable", None), ("mtd", None)]),
        (r"\text{HBM 대역폭}", [("mtext", "HBM 대역폭")]),
    ],
)
def test_the_courses_notation_becomes_the_mathml_it_means(
    tex: str, elements: list[tuple[str, str | None]]
) -> None:
    math = BeautifulSoup(to_mathml(tex, display=False), "html.parser").math
    assert math is not None
    found = {(e.name, e.get_text().replace("\xa0", " ")) for e in math.semantics.find_all(True)}
    for name, text in elements:
        assert any(n == name and (text is None or t == text) for n, t in found), (tex, name, text, math)
    assert math.annotation["encoding"] == "application/x-tex" and math.annotation.get_text() == tex


class Marked(IPythonRenderer):
    """nbconvert's renderer with each formula written as FORMULA."""

    def inline_math(self, body: str) -> str:
        return "FORMULA"

    def block_math(self, body: str) -> str:
        return "FORMULA"

    def latex_environment(self, name: str, body: str) -> str:
        return "FORMULA"


def test_markdown_keeps_everything_but_its_formulas_as_nbconvert_writes_it() -> None:
    markdown = (
        "The matmul moves $BD + DF + BF$ bytes, \\\\(2BDF\\\\) operations; a \\$5 chip, `$x$` in code.\n\n"
        "$$I = \\frac{2BDF}{BD + DF + BF}$$\n\n"
        "\\begin{align}\nT &= t\n\\end{align}\n\n"
        "| figure | value |\n|---|---|\n| intensity | $I$ |\n\n"
        "```python\ncost = '$' + str(5)\n```\n"
    )
    html = MarkdownWithMath(renderer=MathMLRenderer(escape=False)).render(markdown)
    ours = BeautifulSoup(html, "html.parser")
    maths = ours.find_all("math")
    assert [(m.get("display"), m.annotation.get_text()) for m in maths] == [
        (None, "BD + DF + BF"),
        (None, "2BDF"),
        ("block", "I = \\frac{2BDF}{BD + DF + BF}"),
        ("block", "\\begin{align}\nT &= t\n\\end{align}"),
        (None, "I"),
    ]
    for m in maths:
        m.replace_with("FORMULA")
    nbconverts = MarkdownWithMath(renderer=Marked(escape=False)).render(markdown)
    assert str(ours) == str(BeautifulSoup(nbconverts, "html.parser"))
    text = ours.get_text()
    assert "a $5 chip" in text and "$x$" in text and "cost = '$'" in text  # not math, as before


def test_a_formula_that_cannot_be_converted_is_shown_as_tex_and_named() -> None:
    failures: list[tuple[str, str]] = []
    renderer = MathMLRenderer(escape=False, failed=lambda tex, reason: failures.append((tex, reason)))
    html = str(MarkdownWithMath(renderer=renderer).render(r"Before $\unknowncommand{x}$ after $y$."))
    assert "<code>\\unknowncommand{x}</code>" in html and html.count("<math") == 1, html
    ((tex, reason),) = failures
    assert tex == r"\unknowncommand{x}" and "unknowncommand" in reason


def feedback_page(exporter_class: type[HTMLExporter], path: Path) -> BeautifulSoup:
    """The feedback page of the notebook at ``path`` as nbgrader's GenerateFeedback configures
    ``exporter_class`` (template ``feedback``; no gradebook, so no scores)."""
    from nbgrader.converters import GenerateFeedback

    exporter = exporter_class(config=GenerateFeedback().config)
    notebook = nbformat.read(path, as_version=4)
    for cell in notebook.cells:  # what nbgrader's GetGrades writes in before the page is made
        meta = cell.metadata.get("nbgrader", {})
        if meta.get("solution") or meta.get("task"):
            meta["comment"] = None
        if meta.get("grade") or meta.get("task"):
            meta["score"], meta["points"] = 0.0, meta.get("points", 0.0)
    nbgrader = {"notebook": path.stem, "score": 0.0, "max_score": 11.0, "late_penalty": 0.0}
    html, _ = exporter.from_notebook_node(notebook, {"nbgrader": nbgrader})
    return BeautifulSoup(html, "html.parser")


def without_comments(css: str) -> str:
    return re.sub(r"/\*.*?\*/", "", css, flags=re.DOTALL)


@pytest.mark.grading
@pytest.mark.parametrize("path", [RELEASES[0], RELEASES[len(RELEASES) // 2]], ids=["en", "ko"])
def test_a_released_notebooks_page_is_nbgraders_less_mathjax_and_names_no_other_host(path: Path) -> None:
    nbgraders, ours = feedback_page(HTMLExporter, path), feedback_page(FeedbackExporter, path)
    assert ours.body == nbgraders.body  # scores, messages, cells: as nbgrader writes them
    cdn = [s["src"] for s in nbgraders.find_all("script", src=True)]
    assert cdn and all(src.startswith("https://") for src in cdn)  # what the page did before
    assert not ours.find_all(["script", "link", "iframe", "img", "object", "embed"])
    styles = [s.get_text() for s in ours.find_all("style")]
    (added,) = [s for s in styles if "math[display" in s]  # one style more, for display math
    assert [s for s in styles if s != added] == [s.get_text() for s in nbgraders.find_all("style")]
    assert not re.search(r"@import|@font-face", added)
    # No address of another host anywhere, but in the licence notes of Bootstrap's stylesheet.
    for style in ours.find_all("style"):
        style.string = without_comments(style.get_text())
    assert "://" not in str(ours) and "//" not in " ".join(
        str(value) for tag in ours.find_all(True) for value in tag.attrs.values()
    )
