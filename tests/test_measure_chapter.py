"""The chapter that measures the machine: its prose carries no hand-typed number, every glued
value it shows is glued, and it executes without an error or a byte on stderr."""

from __future__ import annotations

import re
import time
from pathlib import Path

import jupytext
import nbclient
import pytest

ROOT = Path(__file__).resolve().parents[1]
CHAPTER = ROOT / "book" / "chapters" / "11-measure-your-machine.md"
EXECUTION_LIMIT = 60.0
"""The quick measurement has a 20 s budget; the chapter's plots and tables take a few seconds
more. The aim is about 30 s; twice that catches a chapter that ignores its budget without
failing on a busy machine."""


def _prose(text: str) -> str:
    """The chapter's Markdown without front matter, code cells, code spans, glue roles and links."""
    text = text.split("\n---\n", 1)[1]  # after the jupytext header
    text = re.sub(r"```.*?```", "", text, flags=re.S)
    text = re.sub(r"\{glue:text\}`[^`]+`", "", text)
    text = re.sub(r"`[^`]*`", "", text)
    text = re.sub(r"<https?://[^>]+>", "", text)
    return re.sub(r"\b(float|fp)(16|32|64)\b", "", text)


def test_prose_has_no_hand_typed_number() -> None:
    prose = _prose(CHAPTER.read_text())
    assert re.findall(r"\d", prose) == []


def test_every_glued_name_shown_is_glued() -> None:
    text = CHAPTER.read_text()
    shown = set(re.findall(r"\{glue:text\}`(\w+)`", text))
    glued = set(re.findall(r'glue\("(\w+)"', text))
    assert shown, "the chapter shows measured values"
    assert shown <= glued, shown - glued


@pytest.mark.slow
def test_the_chapter_executes_quietly_within_its_time() -> None:
    notebook = jupytext.read(CHAPTER)
    client = nbclient.NotebookClient(notebook, timeout=120, kernel_name="python3", resources={
        "metadata": {"path": str(CHAPTER.parent)}})
    start = time.perf_counter()
    client.execute()
    elapsed = time.perf_counter() - start
    outputs = [out for cell in notebook.cells if cell.cell_type == "code" for out in cell.get("outputs", [])]
    stderr = [out.get("text", "") for out in outputs if out.get("name") == "stderr"]
    assert stderr == []
    assert not [out for out in outputs if out.get("output_type") == "error"]
    assert elapsed < EXECUTION_LIMIT
