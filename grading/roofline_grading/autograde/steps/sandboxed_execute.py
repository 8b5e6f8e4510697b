"""nbgrader's ``Execute``, with the notebook run in the sandbox and its output kept small.

:class:`SandboxedExecute` takes the place of nbgrader's ``Execute`` in the autograde steps.
For each notebook it

1. takes the notebook's sandboxed kernel from :mod:`roofline_grading.autograde.kernels`
   (started while nbgrader worked on the previous notebook): in the bubblewrap sandbox, in a
   group with memory and process limits for its whole process tree, talking over Unix sockets,
   with each question's public inputs in its session file;
2. draws the hidden inputs from the submission's own code and the course's secret
   (:mod:`roofline_grading.autograde.inputs`);
3. runs the cells with a time limit per cell and per notebook; a kernel that dies or cannot be
   interrupted costs the cell it was running and the ones after, nothing before (a kernel that
   dies is seen dead within :data:`ALIVE_SECONDS`);
4. keeps at most ``cell_chars`` characters of output per cell and ``notebook_chars`` per
   notebook (records of answers aside), with a note where output was cut;
5. when the notebook is done (and before its kernel goes), hands the hidden inputs to the copies
   the hidden tests left waiting and collects their answers
   (:mod:`roofline_grading.autograde.hidden`), then kills whatever the kernel left running and
   writes what happened (limits hit, output cut, the audit events, the inputs drawn) to
   ``grading.json`` beside the run, for the worker's report; the issued cases and the hidden
   answers go to the resources, for :class:`JudgeAnswers`.
"""

from __future__ import annotations

import asyncio
import json
import secrets
import shutil
import time
from pathlib import Path
from typing import Any

from jupyter_core.utils import ensure_async, run_sync
from nbclient.exceptions import CellTimeoutError, DeadKernelError
from nbformat.v4 import new_output
from nbgrader.preprocessors import Execute
from traitlets import Dict, Integer, List, Unicode

from roofline_grading.autograde import inputs, kernels
from roofline_grading.autograde.events import HIDDEN_PHASE, UNSEEN, Timeline, attempts
from roofline_grading.session import Issued, issue
from roofline_recorder import MIMETYPE

__all__ = [
    "ALIVE_SECONDS",
    "KERNEL_DIED",
    "NOT_RUN",
    "OUTPUT_CUT",
    "REPORT",
    "KernelStartError",
    "SandboxedExecute",
]

KERNEL_DIED = "KernelDied"
"""``ename`` of the error added to the cell the kernel died in (or could not be interrupted in)."""
NOT_RUN = "NotRun"
"""``ename`` of the error added to code cells that did not run."""
OUTPUT_CUT = "[output cut: {} more than {:,} characters]"
REPORT = "grading.json"
"""What happened while a notebook ran, written beside its run for the worker."""
RECORD_CHARS = 20_000_000
"""Characters of answer records kept per notebook (far more than the exercises need)."""
ERROR_CHARS = 2_000
"""Characters kept of an error's message and of each line of its traceback."""
NAME_CHARS = 200
"""Characters kept of an error's name."""
SEAL_SECONDS = 5
"""Seconds the kernel's monitor has to answer the seal after the last cell."""
ERRORS_KEPT = 3
"""Errors of one cell kept whatever their share (the first decides the score)."""
ALIVE_SECONDS = 0.05
"""How often a running cell's kernel is looked at to see whether it died (nbclient: once a second,
which a notebook whose kernel dies in a cell waited out; the look is a file's existence and the
launcher's exit status)."""


class KernelStartError(RuntimeError):
    """The grading kernel did not start: a problem of the grading machine, not of the notebook."""


class SandboxedExecute(Execute):  # type: ignore[misc]
    """nbgrader's ``Execute`` in the sandbox, with limits (see the module's docstring)."""

    run_root = Unicode("", help="Each notebook runs in <run_root>/<notebook>, created empty").tag(config=True)
    notebook_budget = Integer(0, help="Seconds the whole notebook may run (0: no limit)").tag(config=True)
    secret = Unicode("", help="The course's grading secret, in hexadecimal (none: fresh hidden inputs)").tag(
        config=True
    )
    assignment = Unicode("", help="The assignment graded (part of what the hidden inputs derive from)").tag(
        config=True
    )
    sandbox = Dict(help="How to confine the kernel (see roofline_grading.autograde.settings.Settings)").tag(
        config=True
    )
    upcoming = List(
        Unicode(), help="The notebooks to grade, in order: the next one's kernel starts early"
    ).tag(config=True)
    following = Unicode(
        "", help="A notebook the worker's next student hands in: its kernel starts after this student's last"
    ).tag(config=True)
    spares = Unicode("", help="Where the kernels started for the next student keep their run folders").tag(
        config=True
    )
    cell_chars = Integer(100_000, help="Characters of output kept per cell").tag(config=True)
    notebook_chars = Integer(1_000_000, help="Characters of output kept per notebook").tag(config=True)

    def preprocess(self, nb: Any, resources: Any = None, km: Any = None) -> tuple[Any, Any]:
        name = resources.get("nbgrader", {}).get("notebook", "notebook")
        self._ran = Path(self.run_root or "/tmp") / name
        following = Path(self.spares, self.following) if self.spares and self.following else None
        upcoming, sandbox = list(self.upcoming), dict(self.sandbox)
        self._kernel = kernels.take(name, upcoming, sandbox, self._ran.parent, following)
        self._seed = (
            inputs.seed_for(bytes.fromhex(self.secret), self.assignment, name, inputs.student_code(nb))
            if self.secret
            else None
        )
        self._issued: dict[str, Issued] = issue(name, self._seed)
        self._answered: dict[str, Any] | None = None
        self._nonce: str | None = None
        resources["roofline_issued"] = self._issued
        self.begin()
        failure = None
        try:
            try:
                super().preprocess(nb, resources, km)
            except (DeadKernelError, CellTimeoutError) as error:
                self._lost(nb, error)
            except Exception as error:
                failure = f"{type(error).__name__}: {error}"
                if self._started:
                    raise
                failure = kernels.startup_failure(self._kernel, error)
                raise KernelStartError(failure) from error
        finally:
            ran = self._report(nb, failure)
        resources["roofline_answered"] = self._answered or {}
        resources["roofline_run"] = {
            "timeout": self.timeout,
            "timed_out": [_cell_label(nb, i) for i in self._timed_out],
            "died": [_cell_label(nb, i) for i, _ in self._died],
            "not_run": self._not_run,
            "limits": ran["student_limits"],
            "cut": bool(self._cut),
            "tried": ran["tried"],
        }
        return nb, resources

    def begin(self) -> None:
        """A notebook's run starts: no output kept yet, nothing timed out, lost or not run; its
        time budget counts from now."""
        self._deadline = time.monotonic() + self.notebook_budget if self.notebook_budget else None
        self._running = 0
        self._cut: set[int] = set()
        self._sizes: dict[int, int] = {}
        self._total = 0
        self._record_total = 0
        self._timed_out: list[int] = []
        self._died: list[tuple[int, str]] = []
        self._not_run = 0
        self._started = False
        self._timeline = Timeline()
        self._limits_before: list[str] | None = None

    def _report(self, nb: Any, failure: str | None) -> dict[str, Any]:
        """Write what happened while the notebook ran (see :data:`REPORT`), however it ended. What
        happened once the hidden inputs were handed out is said apart, and never told the student."""
        self._kernel.copies.close()
        limits_hit = self._kernel.group.close()
        before = limits_hit if self._limits_before is None else self._limits_before
        later = [f"{hit} ({HIDDEN_PHASE})" for hit in limits_hit if _kind(hit) not in map(_kind, before)]
        inside, outside = self._kernel.channel.close(), self._kernel.watch.close()
        shutil.rmtree(self._kernel.runtime, ignore_errors=True)  # its sockets: outside the run's scratch
        unseen = _unseen(inside, self._nonce)
        found = attempts(inside, outside, nb.cells, self._timeline)
        cut = [f"output cut in {len(self._cut)} cell{'s' if len(self._cut) > 1 else ''}"] if self._cut else []
        happened = self._what_happened(nb)
        report = {
            "limits": [*happened, *before, *later, *cut],
            "student_limits": [*happened, *before, *cut],
            "attempts": [*found.notebook, *unseen, *found.hidden, *_bad_copies(self._answered)],
            "tried": bool(found.notebook or unseen),
            "watch": _watch_state(outside),
            "failure": failure,
            "sandbox": self.sandbox.get("mode", "bwrap"),
            "group": self._kernel.group.kind,
            "seed": self._seed,
            "hidden": {qid: [_plain(case) for case in item.hidden] for qid, item in self._issued.items()},
        }
        self._ran.mkdir(parents=True, exist_ok=True)  # the kernel's run folder, unless a spare's
        (self._ran / REPORT).write_text(json.dumps(report))
        if self._kernel.spare:
            shutil.rmtree(self._kernel.folder, ignore_errors=True)
        return report

    def _what_happened(self, nb: Any) -> list[str]:
        """Time limits, lost kernels and cells not run, as this run saw them (not as outputs say)."""

        def label(index: int) -> str:
            grade_id = nb.cells[index].metadata.get("nbgrader", {}).get("grade_id")
            return str(grade_id) if grade_id else f"cell {index + 1}"

        found = []
        if self._timed_out:
            found.append("ran past the time limit in " + ", ".join(label(i) for i in self._timed_out))
        if self._died:
            found.append("kernel lost in " + ", ".join(f"{label(i)} ({why})" for i, why in self._died))
        if self._not_run:
            found.append(f"{self._not_run} code cell{'s' if self._not_run > 1 else ''} did not run")
        return found

    async def _async_poll_kernel_alive(self) -> None:
        """nbclient's watch for a kernel that dies while a cell runs, looking every
        :data:`ALIVE_SECONDS` rather than every second: a kernel that exits in a student's cell (a
        crash, ``os._exit``) is known lost at once, not up to a second later in every notebook."""
        while True:
            await asyncio.sleep(ALIVE_SECONDS)
            try:
                await self._async_check_alive()
            except DeadKernelError:
                assert self.task_poll_for_reply is not None
                self.task_poll_for_reply.cancel()
                return

    async def _async_handle_timeout(self, timeout: int, cell: Any = None) -> Any:
        self._timed_out.append(self._running)
        return await super()._async_handle_timeout(timeout, cell)

    def create_kernel_manager(self) -> Any:
        self.km = self._kernel.km  # already started (see roofline_grading.autograde.kernels)
        return self.km

    async def async_start_new_kernel_client(self) -> Any:
        """nbclient's, waiting for the kernel with :func:`kernels.until_ready` (no pause at each start)."""
        self.kc = self.km.client()
        try:
            await ensure_async(self.kc.start_channels())  # type: ignore[func-returns-value]
            await kernels.until_ready(self.kc, self.km, self.startup_timeout)
        except Exception:
            await self._async_cleanup_kernel()
            raise
        self.kc.allow_stdin = False
        return self.kc

    start_new_kernel_client = run_sync(async_start_new_kernel_client)

    async def _async_cleanup_kernel(self) -> None:
        """Hand the hidden inputs to the copies waiting for them (once every cell is done, and
        before anything of the kernel goes), then kill the kernel and collect its process at once
        (jupyter_client polls every 0.1 s for a killed kernel to exit); whatever it started is
        killed with its group after the run."""
        if self._started and self._answered is None:
            if not self._died:  # a lost or stuck kernel cannot answer the seal
                await self._seal()
            self._limits_before = self._kernel.group.hits()
            self._kernel.channel.mark()
            self._timeline.served = time.monotonic_ns()
            self._answered = self._kernel.copies.serve(self._issued, float(self.timeout or 30))
        process = getattr(getattr(self.km, "provisioner", None), "process", None)
        if process is not None and process.poll() is None:
            process.kill()
            process.wait(timeout=5)
        await super()._async_cleanup_kernel()

    _cleanup_kernel = run_sync(_async_cleanup_kernel)

    async def _seal(self) -> None:
        """Ask the kernel's monitor, with a nonce, whether it saw everything (after the last cell,
        out of the notebook: nothing it prints reaches a cell)."""
        if self.kc is None or self.km is None or not await ensure_async(self.km.is_alive()):
            return
        nonce = secrets.token_hex(16)
        code = f"__import__('roofline_recorder').SEAL({nonce!r})"
        try:
            await self.kc.execute_interactive(
                code, silent=True, store_history=False, timeout=SEAL_SECONDS, output_hook=lambda message: None
            )
        except Exception:  # a kernel busy or stuck to the end: nothing can be said either way
            return
        self._nonce = nonce  # it answered: its monitor's seal must be in the channel

    # --- Running cells ---------------------------------------------------------------------

    def preprocess_cell(self, cell: Any, resources: Any, index: int) -> tuple[Any, Any]:
        self._started = True
        self._running = index
        if cell.cell_type == "code":
            self._timeline.cells.append((time.monotonic_ns(), index))
        if self._deadline is not None and time.monotonic() > self._deadline:
            if cell.cell_type == "code":
                self._not_run += 1
                cell.outputs = [
                    _error(NOT_RUN, f"not run: the notebook used up its {self.notebook_budget} s")
                ]
            return cell, resources
        return super().preprocess_cell(cell, resources, index)  # type: ignore[no-any-return]

    def output(self, outs: list[Any], msg: dict[str, Any], display_id: str | None, cell_index: int) -> Any:
        """Keep the output unless its cell or the notebook has had its share. The first few errors
        of a cell are always kept, shortened: an error decides the cell's score."""
        content = msg.get("content") or {}
        size = _size(content)
        if MIMETYPE in (content.get("data") or {}) and self._record_total + size <= RECORD_CHARS:
            self._record_total += size
            return super().output(outs, msg, display_id, cell_index)
        if msg.get("msg_type") == "error":
            errors = sum(o.get("output_type") == "error" for o in outs)
            if errors < ERRORS_KEPT:
                _shorten_error(content)
                self._total += _size(content)
                return super().output(outs, msg, display_id, cell_index)
        if not self._fits(cell_index, size):
            self._cut_here(outs, cell_index, size)
            return None
        self._sizes[cell_index] = self._sizes.get(cell_index, 0) + size
        self._total += size
        return super().output(outs, msg, display_id, cell_index)

    def _update_display_id(self, display_id: str, msg: dict[str, Any]) -> None:
        """An update of an earlier display counts against the running cell's share like new output."""
        size = _size(msg.get("content"))
        if not self._fits(self._running, size):
            self._cut_here(self.nb.cells[self._running].outputs, self._running, size)
            return
        self._sizes[self._running] = self._sizes.get(self._running, 0) + size
        self._total += size
        super()._update_display_id(display_id, msg)

    def _fits(self, cell_index: int, size: int) -> bool:
        used = self._sizes.get(cell_index, 0) + size
        return used <= self.cell_chars and self._total + size <= self.notebook_chars

    def _cut_here(self, outs: list[Any], cell_index: int, size: int) -> None:
        if cell_index in self._cut:
            return
        self._cut.add(cell_index)
        over_cell = self._sizes.get(cell_index, 0) + size > self.cell_chars
        where = "this cell printed" if over_cell else "the notebook printed"
        limit = self.cell_chars if over_cell else self.notebook_chars
        outs.append(new_output("stream", name="stdout", text=OUTPUT_CUT.format(where, limit) + "\n"))

    def _lost(self, nb: Any, error: Exception) -> None:
        why = (
            "the kernel died while running this cell"
            if isinstance(error, DeadKernelError)
            else "this cell ran past the time limit and the kernel could not be interrupted"
        )
        self.log.warning("%s (cell %d)", why, self._running + 1)
        cell = nb.cells[self._running]
        if self._timed_out and self._timed_out[-1] == self._running:
            self._timed_out.pop()  # reported as lost, not twice
        self._died.append((self._running, why))
        if cell.cell_type == "code":
            cell.outputs.append(_error(KERNEL_DIED, why))
        for later in nb.cells[self._running + 1 :]:
            if later.cell_type == "code":
                self._not_run += 1
                later.outputs = [_error(NOT_RUN, "not run: the kernel was lost in an earlier cell")]


def _unseen(events: list[dict[str, Any]], nonce: str | None) -> list[str]:
    """What the monitor could not see, from its seal (asked with ``nonce`` while the kernel was
    still alive; nothing to say if it was not asked): a report clause each."""
    if nonce is None:
        return []
    seals = [e for e in events if e.get("what") == "sealed" and e.get("nonce") == nonce and not e.get("late")]
    if not seals:
        return [
            UNSEEN + "the kernel's monitor did not answer at the end (its channel or the monitor itself "
            "was changed)"
        ]
    missing = seals[-1].get("missing")
    if isinstance(missing, list) and missing:
        return [UNSEEN + "; ".join(str(m)[:120] for m in missing[:5])]
    return []


def _bad_copies(answered: dict[str, Any] | None) -> list[str]:
    """What the copies that sent something other than an answer sent, for the instructor."""
    return [
        f"{HIDDEN_PHASE}: the copy answering {qid} sent {str(entry['bad'])[:200]}"
        for qid, entries in sorted((answered or {}).items())
        for entry in entries
        if isinstance(entry, dict) and "bad" in entry
    ]


def _kind(limit: str) -> str:
    """``memory limit``, ``process limit``...: what a limit hit is about."""
    return limit.split(":", 1)[0].replace(" reached", " hit")


def _watch_state(outside: list[dict[str, Any]]) -> str:
    """Whether the keeper watched the kernel from outside, or why not."""
    for event in outside:
        if event.get("what") == "watching":
            return "outside the kernel"
        if event.get("what") == "unwatched":
            return f"inside the kernel only: {str(event.get('detail', ''))[:200]}"
    return "inside the kernel only: its keeper said nothing"


def _cell_label(nb: Any, index: int) -> str:
    """How a student's note names a cell: its grade id, or its number."""
    grade_id = nb.cells[index].metadata.get("nbgrader", {}).get("grade_id")
    return str(grade_id) if grade_id else f"#{index + 1}"


def _plain(case: tuple[Any, ...]) -> list[Any]:
    """A case as plain JSON values (arrays as lists)."""
    return [value.tolist() if hasattr(value, "tolist") else value for value in case]


def _size(value: Any) -> int:
    """Characters a message's content takes as JSON (how it would be stored)."""
    return len(json.dumps(value, default=str))


def _shorten_error(content: dict[str, Any]) -> None:
    content["ename"] = str(content.get("ename", ""))[:NAME_CHARS]
    content["evalue"] = str(content.get("evalue", ""))[:ERROR_CHARS]
    content["traceback"] = [str(line)[:ERROR_CHARS] for line in list(content.get("traceback") or [])[-20:]]


def _error(name: str, value: str) -> Any:
    return new_output("error", ename=name, evalue=value, traceback=[f"{name}: {value}"])
