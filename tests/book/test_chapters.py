"""The chapters' sources: the files, their notebook headers and the one-source-of-truth rule.

Executing the chapters is the book build's job; these checks read the MyST Markdown only, so
they run in a fraction of a second and point at the line to fix.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

CHAPTERS = Path(__file__).resolve().parents[2] / "book" / "chapters"
NAMES = [
    "01-where-the-time-goes",
    "02-arithmetic-intensity",
    "03-roofline-plots",
    "04-matrix-multiplication",
    "05-quantization",
    "06-batched-matmul",
    "07-gpus-vs-tpus",
    "08-network-rooflines",
    "09-serving",
    "10-errata",
    "11-measure-your-machine",
    "12-memory-hierarchy",
    "13-serving-today",
]

# Numbers the prose may carry because no library could compute them: years of the works it
# cites, exercise and list numbers, the factors 1 and 2 of formulas, "2:4" sparsity, model
# names. Everything else is glued from a code cell or printed by one.
ALLOWED_IN_PROSE = [
    re.compile(r"\b(19|20)\d\d\)"),  # "(Austin et al., 2025)"
    re.compile(r"Llama \d\.\d"),  # a model's name
]


def read(name: str) -> str:
    return (CHAPTERS / f"{name}.md").read_text(encoding="utf-8")


def front_matter(text: str) -> dict[str, object]:
    assert text.startswith("---\n"), "a chapter starts with a YAML header"
    header = yaml.safe_load(text.split("---\n", 2)[1])
    assert isinstance(header, dict)
    return header


def prose(text: str) -> str:
    """The Markdown a reader sees as text: no header, code, math, roles, links or comments."""
    body = text.split("---\n", 2)[2]
    for pattern, flags in [
        (r"```.*?```", re.S),  # code cells and fenced blocks
        (r"\$\$.*?\$\$", re.S),  # display math
        (r"\$[^$\n]+\$", 0),  # inline math
        (r"\{[a-z:]+\}`[^`]*`", 0),  # roles: {eval}`glued.key`, {ref}`label`
        (r"`[^`]*`", 0),  # inline code
        (r"<https?://[^>]+>", 0),  # autolinks
        (r"\]\([^)]*\)", 0),  # link targets
        (r"^%.*$", re.M),  # MyST comments
        (r"^\([\w-]+\)=$", re.M),  # labels
    ]:
        body = re.sub(pattern, " ", body, flags=flags)
    for allowed in ALLOWED_IN_PROSE:
        body = allowed.sub(" ", body)
    return body


def typed_numbers(text: str) -> list[str]:
    """Numbers in the prose with more than one digit or a decimal point (e.g. 240, 8.2e11)."""
    numbers = re.findall(r"(?<![\w.])\d[\d.,e]*\d(?![\w])|(?<![\w.])\d\.\d", prose(text))
    return [n for n in numbers if n != "2:4"]


def test_the_chapters_and_nothing_else() -> None:
    assert sorted(p.stem for p in CHAPTERS.glob("*.md")) == NAMES


@pytest.mark.parametrize("name", NAMES)
def test_chapter_is_a_myst_notebook_with_a_python_kernel(name: str) -> None:
    header = front_matter(read(name))
    jupytext = header["jupytext"]
    kernelspec = header["kernelspec"]
    assert isinstance(jupytext, dict) and isinstance(kernelspec, dict)
    assert jupytext["text_representation"]["format_name"] == "myst"
    assert kernelspec["name"] == "python3"
    # Tables print as Markdown; myst-nb renders them as tables only with this setting, and
    # jupytext keeps it through a save in JupyterLab only if the filter names it.
    assert header["mystnb"] == {"render_markdown_format": "gfm"}
    assert "mystnb" in jupytext["notebook_metadata_filter"]


@pytest.mark.parametrize("name", NAMES)
def test_chapter_computes_with_rooflinekit_and_has_the_standard_parts(name: str) -> None:
    text = read(name)
    assert "import rooflinekit as rk" in text
    assert re.search(r"^\([\w-]+\)=\n# ", text, flags=re.M), "a label before the title"
    assert "mystnb:\n  figure:" in text, "at least one captioned figure"
    for section in ("## Summary", "## Sources"):
        assert f"\n{section}\n" in text
    assert "scaling-book" in text, "credit How to Scale Your Model"


@pytest.mark.parametrize("name", NAMES)
def test_no_number_is_typed_into_the_prose(name: str) -> None:
    assert typed_numbers(read(name)) == []


@pytest.mark.parametrize("name", NAMES)
def test_every_glued_key_is_glued(name: str) -> None:
    text = read(name)
    used = set(re.findall(r"\{eval\}`glued\.(\w+)`", text))
    assert "{glue:" not in text, "glued texts are shown with {eval}`glued.<name>` (rooflinekit.glue)"
    glued = set(re.findall(r"glue\(\s*\"([\w-]+)\"", text))
    assert used <= glued, f"used but never glued: {sorted(used - glued)}"


def test_the_prose_check_catches_a_typed_number() -> None:
    header = "---\nkernelspec: {}\n---\n"
    assert typed_numbers(header + "The v5e's critical intensity is 240 FLOPs per byte.\n") == ["240"]
    assert typed_numbers(header + "HBM moves 8.2e11 B/s.\n") == ["8.2e11"]
    clean = "It is {eval}`glued.ci`, see $D > 8755$ and (Austin et al., 2025) in exercise 1.\n"
    assert typed_numbers(header + clean) == []


def test_chapter_three_has_the_explorer_section() -> None:
    text = read("03-roofline-plots")
    assert "\n## Interactive explorer\n" in text
    assert "from rooflinekit.explorer import explorer" in text


def test_chapter_nine_serves_a_catalog_model_on_a_catalog_chip() -> None:
    text = read("09-serving")
    # The notes' three clocks beside the per-layer model, on one catalog transformer and chip.
    assert "rk.three_clocks(" in text and "rk.transformer_step(" in text
    assert 'rk.transformer_shape("' in text and "rk.chip(" in text


def test_errata_quote_published_figures_once_in_one_table() -> None:
    text = read("10-errata")
    assert text.count("PUBLISHED_FIGURES = {") == 1
    table = text.split("PUBLISHED_FIGURES = {", 1)[1].split("}", 1)[0]
    quoted = re.findall(r"\(([\d.e]+),", table)
    assert quoted, "the table lists the published figures"
    outside = text.replace(table, "")
    for figure in quoted:
        assert not re.search(rf"(?<![\w.]){re.escape(figure)}(?![\w.])", outside), figure
