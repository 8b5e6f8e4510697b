"""The PlainOutputs step (roofline_grading.autograde.steps.plain_outputs), on small notebooks and
no kernel: only inert content reaches the feedback page and formgrader."""

from __future__ import annotations

from nbformat.v4 import new_output

from roofline_grading.autograde.steps.plain_outputs import MAX_CELL_OUTPUT, PlainOutputs
from tests.support.nbgrader_cells import ANSWER, TEST, TEXT, cell, resources, submitted, written


def plain(nb: object) -> object:
    out, _ = PlainOutputs()(nb, resources())
    return written(out)


def test_html_javascript_and_svg_outputs_are_dropped_and_text_and_png_kept() -> None:
    answer = cell(ANSWER, "x = 1")
    answer.outputs = [
        new_output("display_data", data={"text/html": "<script>steal()</script>", "text/plain": "x"}),
        new_output("display_data", data={"application/javascript": "steal()"}),
        new_output("display_data", data={"image/svg+xml": "<svg onload='steal()'/>"}),
        new_output("display_data", data={"image/png": "iVBORw0KGgo="}),
        new_output("stream", name="stdout", text="printed\n"),
    ]
    nb = plain(submitted(cell(TEXT), answer, cell(TEST)))
    kept = [sorted(o.get("data", {})) or o.output_type for o in nb.cells[1].outputs]
    assert kept == [["text/plain"], ["image/png"], "stream"]


def test_a_students_markdown_is_text_and_the_released_markdown_is_kept() -> None:
    own = cell(TEXT, "<img src=x onerror=steal()> *mine*")
    own.metadata["nbgrader"]["locked"] = False
    nb = plain(submitted(cell(TEXT), own, cell(ANSWER, "x = 1")))
    assert nb.cells[0].source == "Set **x**."
    assert nb.cells[1].source == "````text\n<img src=x onerror=steal()> *mine*\n````"  # a code block: text


def test_a_cell_printing_more_than_a_page_may_hold_keeps_its_first_error_and_a_note() -> None:
    test = cell(TEST)
    test.outputs = [
        new_output("stream", name="stdout", text="y" * (MAX_CELL_OUTPUT + 10)),
        new_output("error", ename="AssertionError", evalue="wrong", traceback=["AssertionError: wrong"]),
    ]
    nb = plain(submitted(cell(TEXT), cell(ANSWER, "x = 1"), test))
    outputs = nb.cells[2].outputs
    assert [o.output_type for o in outputs] == ["error", "stream"]
    assert outputs[0].ename == "AssertionError"  # nbgrader still scores the cell 0
    assert outputs[1].text == f"[output cut: more than {MAX_CELL_OUTPUT:,} characters in this cell]\n"


def test_a_cells_printing_is_one_output_a_stream_however_the_kernel_flushed_it() -> None:
    """Two runs of the same code, one whose printing the kernel flushed in two pieces (a loaded
    machine), give the same graded cell."""
    pieces = cell(ANSWER, "print(1); print(2)")
    pieces.outputs = [
        new_output("stream", name="stdout", text="1\n"),
        new_output("stream", name="stderr", text="warning\n"),
        new_output("display_data", data={"text/plain": "x"}),
        new_output("stream", name="stdout", text="2\n"),
        new_output("stream", name="stderr", text="again\n"),
    ]
    whole = cell(ANSWER, "print(1); print(2)")
    whole.outputs = [
        new_output("stream", name="stdout", text="1\n2\n"),
        new_output("stream", name="stderr", text="warning\nagain\n"),
        new_output("display_data", data={"text/plain": "x"}),
    ]
    split, joined = (plain(submitted(cell(TEXT), c, cell(TEST))) for c in (pieces, whole))
    assert split.cells[1].outputs == joined.cells[1].outputs
