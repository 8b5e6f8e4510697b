"""The SandboxedExecute step (roofline_grading.autograde.steps.sandboxed_execute), on small notebooks
and no kernel: what a run keeps of a notebook's output, and what the student reads of a cell that
did not run. (Running a notebook in the sandbox: tests/e2e.)"""

from __future__ import annotations

import asyncio
import contextlib
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from nbclient.exceptions import DeadKernelError
from nbformat.v4 import new_markdown_cell

from roofline_grading.autograde.steps.sandboxed_execute import (
    ALIVE_SECONDS,
    KERNEL_DIED,
    NOT_RUN,
    OUTPUT_CUT,
    SandboxedExecute,
)
from roofline_recorder import MIMETYPE
from tests.support.nbgrader_cells import ANSWER, TEST, TEXT, cell, submitted


def running(**traits: Any) -> SandboxedExecute:
    """The step as a notebook's run starts, a cell executing (as nbclient sets itself up for one)."""
    step = SandboxedExecute(**traits)
    step.begin()
    step.reset_execution_trackers()
    step.clear_before_next_output = False
    return step


def message(kind: str, **content: Any) -> dict[str, Any]:
    return {
        "msg_type": kind,
        "header": {"msg_type": kind},
        "parent_header": {"msg_id": "m"},
        "content": content,
    }


def printed(text: str) -> dict[str, Any]:
    return message("stream", name="stdout", text=text)


def test_a_cell_printing_past_its_share_is_cut_once_with_a_note_and_keeps_what_came_first() -> None:
    step, outs = running(cell_chars=200, notebook_chars=10_000), []
    for _ in range(5):
        step.output(outs, printed("x" * 60), None, 0)
    texts = [o["text"] for o in outs]
    assert texts[:2] == ["x" * 60, "x" * 60]
    assert texts[2:] == [OUTPUT_CUT.format("this cell printed", 200) + "\n"]


def test_the_notebook_has_a_share_of_its_own_across_cells() -> None:
    step = running(cell_chars=1_000, notebook_chars=300)
    first, second = [], []
    step.output(first, printed("a" * 200), None, 0)
    step.output(second, printed("b" * 200), None, 1)
    assert second == [
        {
            "output_type": "stream",
            "name": "stdout",
            "text": OUTPUT_CUT.format("the notebook printed", 300) + "\n",
        }
    ]


def test_an_answers_record_and_a_cells_first_errors_are_kept_whatever_was_printed() -> None:
    step, outs = running(cell_chars=100, notebook_chars=100), []
    step.output(outs, printed("x" * 99), None, 0)
    step.output(outs, message("display_data", data={MIMETYPE: {"t": "none"}}, metadata={}), None, 0)
    step.output(
        outs, message("error", ename="AssertionError", evalue="e" * 5_000, traceback=["t"] * 50), None, 0
    )
    kinds = [o["output_type"] for o in outs]
    assert kinds == ["stream", "display_data", "error"]
    assert len(outs[2]["evalue"]) == 2_000 and len(outs[2]["traceback"]) == 20  # shortened, kept


def test_a_lost_kernel_costs_its_cell_and_the_cells_after_nothing_before() -> None:
    nb = submitted(cell(TEXT), cell(ANSWER, "x = 1"), cell(TEST), new_markdown_cell("end"))
    step = running()
    step._running = 1
    step._lost(nb, DeadKernelError("gone"))
    assert [o["ename"] for o in nb.cells[1].outputs] == [KERNEL_DIED]
    assert [o["ename"] for o in nb.cells[2].outputs] == [NOT_RUN]
    assert step._what_happened(nb) == [
        "kernel lost in answer (the kernel died while running this cell)",
        "1 code cell did not run",
    ]


def test_a_kernel_that_dies_in_a_cell_is_seen_dead_at_the_next_look_a_twentieth_of_a_second_on(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """nbclient looks once a second, and a notebook whose kernel exits in its first cell waited out
    that second: the step looks every ALIVE_SECONDS, and stops waiting for the cell's reply at the
    first look that finds the kernel gone. (The sleeps are recorded, not slept.)"""
    slept: list[float] = []
    alive = iter([True, True, False])

    async def sleep(seconds: float) -> None:
        slept.append(seconds)

    class Client:
        async def is_alive(self) -> bool:
            return next(alive)

    async def poll() -> bool:
        step = running()
        step.kc = Client()
        step.task_poll_for_reply = asyncio.ensure_future(asyncio.Event().wait())  # a reply never sent
        await step._async_poll_kernel_alive()
        with contextlib.suppress(asyncio.CancelledError):
            await step.task_poll_for_reply
        return step.task_poll_for_reply.cancelled()

    monkeypatch.setattr(asyncio, "sleep", sleep)
    # On a thread of its own: in a full run, Playwright's sync API keeps a loop running on this one.
    with ThreadPoolExecutor(1) as thread:
        assert thread.submit(asyncio.run, poll()).result(timeout=60)  # the wait for the reply is over
    assert slept == [ALIVE_SECONDS] * 3 and ALIVE_SECONDS <= 0.1


def test_past_the_notebooks_time_a_code_cell_is_not_run_and_says_why() -> None:
    step = running(notebook_budget=1)
    step._deadline = 0.0  # the budget is spent
    answer, _ = step.preprocess_cell(cell(ANSWER, "x = 1"), {}, 1)
    assert answer.outputs[0]["ename"] == NOT_RUN
    assert answer.outputs[0]["evalue"] == "not run: the notebook used up its 1 s"
    text, _ = step.preprocess_cell(cell(TEXT), {}, 0)
    assert "outputs" not in text
