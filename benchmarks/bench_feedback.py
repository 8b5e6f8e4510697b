"""What does writing one feedback page cost, as nbconvert's exporter writes it and as the course's?

``make feedback`` writes one page per graded notebook with the course's exporter
(:class:`roofline_grading.plugins.feedback.FeedbackExporter`). nbconvert's ``HTMLExporter`` parses
every page it has written again with BeautifulSoup, to add alternative text to images and
``tabindex`` to the lab template's cells, and highlights every code cell of every page; the
course's exporter adds the attributes to the template's tags as it writes
(:func:`roofline_grading.pages.with_accessibility`) and highlights the release's cells, the same
on every student's page, once (:class:`roofline_grading.pages.RememberedHighlights`). Side by
side, in one run, for each solution notebook (the feedback template, nbgrader's resources, the
same exporter object):

- ``nbconvert``: ``HTMLExporter.from_notebook_node`` on the inert notebook, as before;
- ``course``: the course's ``from_notebook_node``.

Each round writes another student's page (the release's cells, answers of their own) both ways,
alternating which goes first; the first round, as the first page of a class, is not counted. The
table gives the median of each, their ratio, and says whether the two pages are the same document.

    python benchmarks/bench_feedback.py [--rounds 7]
"""

from __future__ import annotations

import argparse
import copy
import statistics
import time
from pathlib import Path
from typing import Any

import nbformat
from bs4 import BeautifulSoup
from nbconvert.exporters import HTMLExporter
from nbgrader.converters import GenerateFeedback

from roofline_grading.pages import inert_notebook
from roofline_grading.plugins.feedback import FeedbackExporter

ROOT = Path(__file__).resolve().parents[1]
RESOURCES = {"nbgrader": {"notebook": "ex", "score": 1.0, "max_score": 2.0, "late_penalty": 0}}


def graded(nb: Any, student: int) -> Any:
    """``nb`` as the feedback template reads one student's graded notebook: each graded cell's
    score (full), and answers of the student's own (each answer cell ends with its name)."""
    nb = copy.deepcopy(nb)
    for cell in nb.cells:
        grading = cell.metadata.get("nbgrader", {})
        if grading.get("grade"):
            grading["score"] = grading.get("points", 0)
        if grading.get("solution") and cell.cell_type == "code":
            cell.source += f"\n# student {student}"
    return nb


def nbconverts(exporter: FeedbackExporter, nb: Any) -> str:
    inert = inert_notebook(copy.deepcopy(nb))
    html, _ = HTMLExporter.from_notebook_node(exporter, inert, copy.deepcopy(RESOURCES))
    return str(html)


def courses(exporter: FeedbackExporter, nb: Any) -> str:
    html, _ = exporter.from_notebook_node(nb, copy.deepcopy(RESOURCES))
    return html


def timed(write: Any, exporter: FeedbackExporter, nb: Any) -> tuple[float, str]:
    started = time.perf_counter()
    html = write(exporter, nb)
    return time.perf_counter() - started, html


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=7, help="pages written each way (default 7)")
    rounds = parser.parse_args().rounds
    exporter = FeedbackExporter(config=GenerateFeedback().config)  # type: ignore[no-untyped-call]
    notebooks = sorted((ROOT / "solutions" / "roofline").glob("*.ipynb"))
    print(f"{'notebook':24} {'page KB':>8} {'nbconvert ms':>13} {'course ms':>10} {'ratio':>6}  same page")
    totals = {"nbconvert": 0.0, "course": 0.0}
    for path in notebooks:
        release = nbformat.read(path, as_version=4)  # type: ignore[no-untyped-call]
        seconds: dict[str, list[float]] = {"nbconvert": [], "course": []}
        pages: dict[str, str] = {}
        for round_ in range(rounds + 1):  # the first round warms caches and is not counted
            nb = graded(release, student=round_)  # each round another student's page
            order = [("nbconvert", nbconverts), ("course", courses)]
            for name, write in order if round_ % 2 else order[::-1]:
                took, pages[name] = timed(write, exporter, nb)
                if round_:
                    seconds[name].append(took)
        medians = {name: statistics.median(values) for name, values in seconds.items()}
        for name, median in medians.items():
            totals[name] += median
        same = str(BeautifulSoup(pages["course"], "html.parser")) == pages["nbconvert"]
        ratio = medians["course"] / medians["nbconvert"]
        print(
            f"{path.stem:24} {len(pages['course']) / 1024:8.0f} {medians['nbconvert'] * 1e3:13.0f} "
            f"{medians['course'] * 1e3:10.0f} {ratio:6.2f}  {'yes' if same else 'NO'}"
        )
    ratio = totals["course"] / totals["nbconvert"]
    both = f"{totals['nbconvert'] * 1e3:13.0f} {totals['course'] * 1e3:10.0f}"
    print(f"{'all pages':24} {'':8} {both} {ratio:6.2f}")


if __name__ == "__main__":
    main()
