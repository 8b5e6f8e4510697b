"""The chapter that measures the machine: its prose carries no hand-typed number and every value
it shows is glued. tests/test_notebooks.py executes it with the other chapters."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CHAPTER = ROOT / "book" / "chapters" / "11-measure-your-machine.md"


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
