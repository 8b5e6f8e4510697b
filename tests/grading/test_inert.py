"""Student text never becomes markup, a command or a formula, wherever the course writes it.

The grading notes quote grade ids and the reason a file could not be read as code spans nothing
in them can close; the feedback page's and formgrader's exporters strip a notebook of what a
template could make markup of and sanitize every Markdown's HTML, so that a notebook carrying
HTML in every place a student can put it (a held note's reason, a grade id, a raw cell, an
attachment, the notebook's metadata, an output, a grader's comment) renders with no element
that runs code and with the student's markup shown as text; the report's lines are plain; no
CSV cell the course writes (the report, the grades) starts a spreadsheet formula.
"""

from __future__ import annotations

import base64
import copy
import csv
import re
from pathlib import Path
from typing import Any

import nbformat
import pytest
from bs4 import BeautifulSoup
from nbconvert.exporters import HTMLExporter
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output, new_raw_cell

from roofline_grading.autograde.notes import held_notes, notes, notes_cell
from roofline_grading.autograde.report import progress_line, write_report
from roofline_grading.autograde.results import NotebookResult, StudentResult
from roofline_grading.inert import code_span, plain, spreadsheet_cell
from roofline_grading.pages import NO_DESCRIPTION, InertHTMLExporter, inert_notebook, sanitize_html
from rooflinekit.languages import CODES

PAYLOAD = "<img src=x onerror=window.pwned=1>"
TICKED = f"x`{PAYLOAD}`` **bold** <script>window.pwned=2</script>"
"""A grade id or a reason as a student can make it: a backtick to close a code span, then HTML."""
SVG = "<svg xmlns='http://www.w3.org/2000/svg' onload='window.pwned=3'><script>window.pwned=4</script></svg>"


def rendered_markdown(markdown: str) -> BeautifulSoup:
    """``markdown`` as the feedback page renders it (nbconvert's Markdown, math as MathML, unsanitized):
    what the escaping alone must make inert."""
    from nbconvert.filters.markdown_mistune import MarkdownWithMath

    from roofline_grading.plugins.feedback import MathMLRenderer

    return BeautifulSoup(
        MarkdownWithMath(renderer=MathMLRenderer(escape=False)).render(markdown), "html.parser"
    )


def live(soup: Any, scripts: bool = True) -> list[str]:
    """What in ``soup`` could run code or fetch something: a script (unless ``scripts`` is False:
    a page's own), a frame, an object, a style sheet, an image from anywhere but data written into
    the page, an event handler but formgrader's own, a ``javascript:`` address."""
    own = {"toggle_name(true);", "toggle_name(false);"}  # formgrader's eye icons
    found = []
    for tag in soup.find_all(True):
        if tag.name in ("iframe", "object", "embed", "svg", "style", "form", "link", "base", "meta") or (
            scripts and tag.name == "script"
        ):
            found.append(str(tag)[:80])
        if tag.name == "img" and tag.get("src") and not re.match(r"data:image/(png|jpeg);", tag["src"]):
            found.append(str(tag)[:80])
        found += [f"{tag.name} {k}={v}" for k, v in tag.attrs.items() if k.startswith("on") and v not in own]
        found += [f"{tag.name} {v}" for v in tag.attrs.values() if "javascript:" in str(v)]
    return found


@pytest.mark.parametrize("language", CODES)
def test_a_grade_id_with_a_backtick_and_html_reads_as_text_in_the_grading_notes(language: str) -> None:
    said = notes(None, {"timed_out": [TICKED], "died": [TICKED], "timeout": 30}, language)
    soup = rendered_markdown(notes_cell(said, language).source)
    assert live(soup) == [] and not soup.find_all("b") and len(soup.find_all("strong")) == 1  # the title
    assert soup.find_all("code") and all(c.get_text() == TICKED for c in soup.find_all("code"))


@pytest.mark.parametrize("language", CODES)
def test_why_a_held_notebook_could_not_be_graded_reads_as_text(language: str) -> None:
    why = f"not a valid notebook: {TICKED!r} is not of type 'object'\n\n# heading\n{PAYLOAD}"
    note, _ = held_notes(why, language)
    soup = rendered_markdown(notes_cell([note], language).source)
    assert live(soup) == [] and not soup.find_all("h1") and len(soup.find_all("strong")) == 1
    (code,) = soup.find_all("code")
    assert code.get_text() == plain(why)


@pytest.mark.parametrize(
    "text", ["`", "``a``", " `x` ", "a\nb", "\u202eevil", "$x$", "\\`<b>", "x" * 400, ""]
)
def test_no_text_closes_the_code_span_it_is_quoted_in(text: str) -> None:
    soup = rendered_markdown(f"before {code_span(text)} after")
    (code,) = soup.find_all("code")
    assert code.get_text() == (plain(text) or " ")
    assert soup.get_text().startswith("before ") and soup.get_text().rstrip().endswith(" after")


def hostile_notebook() -> Any:
    """A notebook with HTML wherever a student's file can carry it past grading's own checks."""
    notes_text = notes_cell([held_notes(TICKED, "en")[0]], "en")
    attached = new_markdown_cell("![plot](attachment:plot.svg) and ![x](javascript:window.pwned=5)")
    attached.attachments = {
        "plot.svg": {"image/svg+xml": base64.b64encode(SVG.encode()).decode(), "image/png": "iVBORw0KGgo="}
    }
    answer = new_code_cell(
        "x = 1",
        metadata={
            "nbgrader": {
                "grade_id": "answer",
                "solution": True,
                "grade": False,
                "locked": False,
                "comment": f"# Hi {PAYLOAD}",
            }
        },
    )
    test = new_code_cell(
        "assert x",
        metadata={
            "nbgrader": {
                "grade_id": f'a"{PAYLOAD}',
                "grade": True,
                "solution": False,
                "points": 1,
                "score": 1,
            },
            "tags": ['"><script>window.pwned=6</script>'],
        },
    )
    test.outputs = [
        new_output("display_data", data={"text/html": PAYLOAD, "image/svg+xml": SVG, "text/plain": "ok"}),
        new_output("error", ename=PAYLOAD, evalue=TICKED, traceback=[PAYLOAD]),
        new_output("stream", name="stdout", text=PAYLOAD),
    ]
    raw = new_raw_cell(PAYLOAD, metadata={"raw_mimetype": "text/html"})
    locked = new_markdown_cell(
        f"Locked text {PAYLOAD} <a href='javascript:window.pwned=7'>x</a>",
        metadata={"nbgrader": {"grade_id": "intro", "locked": True}},
    )
    metadata = {
        "widgets": {
            "application/vnd.jupyter.widget-state+json": {"state": {}, "</script><script>window.pwned=8": 1}
        },
        "title": PAYLOAD,
        "language_info": {"name": "python", "pygments_lexer": PAYLOAD},
        "kernelspec": {"name": PAYLOAD, "display_name": PAYLOAD, "language": "python"},
    }
    return new_notebook(cells=[notes_text, attached, answer, test, raw, locked], metadata=metadata)


def page(kind: str, nb: Any) -> BeautifulSoup:
    """``nb`` as the course's exporter for ``kind`` writes it: the feedback page (nbgrader's
    ``feedback`` template) or formgrader's view of a submission (``formgrade``)."""
    exporter, resources = exporter_for(kind)
    html, _ = exporter.from_notebook_node(nb, resources)
    return BeautifulSoup(html, "html.parser")


def exporter_for(kind: str) -> tuple[Any, dict[str, Any]]:
    """The course's exporter for ``kind`` (``feedback``, ``formgrade``; ``lab``: the inert exporter
    with nbconvert's default template), and the resources its template needs."""
    from nbgrader.converters import GenerateFeedback
    from nbgrader.server_extensions.formgrader import handlers

    from roofline_grading.plugins import formgrader
    from roofline_grading.plugins.feedback import FeedbackExporter

    if kind == "lab":
        return InertHTMLExporter(), {}
    if kind == "feedback":
        exporter: Any = FeedbackExporter(config=GenerateFeedback().config)
        resources: dict[str, Any] = {
            "nbgrader": {"notebook": "ex", "score": 1.0, "max_score": 2.0, "late_penalty": 0}
        }
    else:
        formgrader.install()
        from nbgrader.server_extensions.formgrader import formgrader as app

        exporter = app.HTMLExporter(
            template_name="formgrade", extra_template_basedirs=[handlers.template_path]
        )
        resources = {
            "base_url": "",
            "submission_id": "1",
            "notebook_id": "ex",
            "assignment_id": "a",
            "index": 0,
            "total": 1,
            "notebook_path": "autograded/s/a/ex.ipynb",
            "student": "s",
            "last_name": None,
            "first_name": None,
        }
    return exporter, resources


@pytest.mark.parametrize("kind", ["feedback", "formgrade"])
def test_a_notebook_carrying_html_everywhere_renders_inert_with_its_markup_as_text(kind: str) -> None:
    soup = page(kind, hostile_notebook())
    assert soup.body is not None and live(soup.body, scripts=False) == []
    for script in soup.find_all("script"):  # the page's own: formgrader's files, settings and MathJax
        assert "pwned" not in str(script)
        assert script.get("src", "/formgrader/").startswith(("/formgrader/", "https://cdnjs.cloudflare.com/"))
    if kind == "feedback":
        assert not soup.find_all("script")
    assert "<img src=x onerror=window.pwned=1>" in soup.body.get_text(" ")  # the student's markup, as text


PNG = base64.b64encode(bytes.fromhex("89504e470d0a1a0a")).decode()


@pytest.mark.parametrize("kind", ["feedback", "formgrade", "lab"])
def test_a_page_is_the_one_nbconverts_exporter_writes_without_its_second_parse(kind: str) -> None:
    # nbconvert's exporter parses the page it wrote again to add alternative text and tabindex;
    # the course's exporter adds them to the template's tags as it writes (pages.with_accessibility).
    nb = hostile_notebook()
    plotted = new_code_cell("plot()", outputs=[new_output("display_data", data={"image/png": PNG})])
    heading = new_markdown_cell("# 연습 문제 5: H100의 임계 배치")  # Markdown writes a heading as references
    nb.cells += [plotted, new_markdown_cell("![](figure.png) and <img src='other.png'>"), heading]
    another = copy.deepcopy(nb)  # the next student's: the exporter shows the release's cells as it
    another.cells[2].source = "x = 2"  # showed them before (RememberedHighlights), and their own
    exporter, resources = exporter_for(kind)
    for student in (nb, another):
        ours, _ = exporter.from_notebook_node(student, copy.deepcopy(resources))
        inert = inert_notebook(copy.deepcopy(student))
        theirs, _ = HTMLExporter.from_notebook_node(exporter, inert, copy.deepcopy(resources))
        assert str(BeautifulSoup(ours, "html.parser")) == theirs
    shown = BeautifulSoup(ours, "html.parser").get_text()
    assert "x = 2" in shown and "x = 1" not in shown
    assert "연습 문제 5: H100의 임계 배치" in ours  # the page's file reads as Korean, as nbconvert's did
    assert ours.count(f'alt="{NO_DESCRIPTION}"') >= 2  # the plot and the Markdown's second image
    assert (ours.count('tabindex="0"') > 0) == (kind == "lab")  # nbgrader's templates are the classic one's


def test_the_notebook_keeps_nothing_a_template_could_make_markup_of() -> None:
    nb = inert_notebook(hostile_notebook())
    assert set(nb.metadata) == {"language_info"} and nb.metadata.language_info == {"name": "python"}
    kinds = [c.cell_type for c in nb.cells]
    assert kinds == ["markdown", "markdown", "code", "code", "markdown", "markdown"]
    assert nb.cells[1].attachments == {"plot.svg": {"image/png": "iVBORw0KGgo="}}
    assert "nbgrader" not in nb.cells[3].metadata and nb.cells[3].metadata.tags == []
    assert nb.cells[2].metadata.nbgrader.grade_id == "answer"
    assert [sorted(o.get("data", {})) for o in nb.cells[3].outputs] == [["text/plain"], [], []]
    assert nb.cells[4].source.startswith("````text\n")
    nbformat.validate(nb)


def test_the_sanitizer_shows_markup_as_text_and_keeps_the_pages_own() -> None:
    assert sanitize_html(f"<p>{PAYLOAD}</p>") == "<p><img></p>"  # no handler, no address but data
    kept = '<h2 id="a">A<a class="anchor-link" href="#a">¶</a></h2>'
    kept += '<pre><code class="language-python">x</code></pre><img src="data:image/png;base64,iVBO" alt="p">'
    assert sanitize_html(kept) == kept
    for markup in ("<script>1</script>", "<iframe src=x></iframe>", "<style>p{}</style>", "<form></form>"):
        assert "<" not in sanitize_html(markup).replace("&lt;", "")


def test_report_lines_are_plain_and_no_csv_cell_starts_a_formula(tmp_path: Path) -> None:
    attempt = "read /etc/shadow\n\x1b[2Jalice: 38/38 \u202eflagged\u2028"
    notebook = NotebookResult("ex1", "graded", attempts=[attempt], problems=['=HYPERLINK("http://x","y")'])
    result = StudentResult("=cmd|' /C calc'!A0\x1b[1m", [notebook])
    write_report(tmp_path / "r.txt", tmp_path / "r.csv", [result], ["header\x1b[31m"])
    text = (tmp_path / "r.txt").read_text()
    assert all(c == "\n" or c.isprintable() for c in text) and "\u202e" not in text and "\u2028" not in text
    with (tmp_path / "r.csv").open(newline="") as handle:
        rows = list(csv.reader(handle))
    assert rows[1][0].startswith("'=cmd")
    assert all(not cell.startswith(("=", "+", "-", "@", "\t", "\r")) for row in rows for cell in row)
    line = progress_line(1, 1, result, flagged=1, failed=0)
    assert "\x1b" not in line and "\n" not in line


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        ("=1+1", "'=1+1"),
        ("+1", "'+1"),
        ("-1+cmd", "'-1+cmd"),
        ("@SUM(A1)", "'@SUM(A1)"),
        ("\tx", "'\tx"),
        ("\r=x", "'\r=x"),
        ("-2.5", "'-2.5"),
        ("1e-3", "1e-3"),
        ("alice", "alice"),
        (0.0, "0.0"),
    ],
)
def test_a_spreadsheet_shows_each_cell_as_text(value: object, shown: str) -> None:
    assert spreadsheet_cell(value) == shown
