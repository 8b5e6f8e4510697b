"""rooflinekit.claims: a sentence of the book that its numbers no longer bear out fails the build,
named with its numbers.

The chapters state their verdicts and comparisons with ``claim`` (checked) or ``verdict`` (the word
chosen by the numbers) in their code cells, so ``make book`` runs every chapter's claims. The last
test builds a one-page book with the course's execution settings and a false claim, and reads the
build's output as a writer would.
"""

from __future__ import annotations

import math
import subprocess
import sys
from pathlib import Path

import build_book  # tools/build_book.py: the build's own arguments
import numpy as np
import pytest
import yaml
from build_log import BuildLog  # tools/build_log.py: what make book prints of a build

from rooflinekit.claims import ClaimError, claim, compare, verdict
from rooflinekit.errors import RooflineInputError

ROOT = Path(__file__).resolve().parents[2]


def test_a_claim_that_holds_says_nothing() -> None:
    assert claim("the v5e's ridge is above a dot product's intensity", 240.2 > 0.5, ridge=240.2) is None


def test_a_false_claim_names_the_sentence_and_the_numbers() -> None:
    with pytest.raises(ClaimError) as caught:
        claim("throughput plateaus past the crossover", 0.31 < 0.05, gain=0.31, batch=335, chip="H100")
    assert str(caught.value) == (
        'the claim "throughput plateaus past the crossover" does not hold for '
        "gain = 0.31, batch = 335, chip = H100"
    )
    assert caught.value.numbers == {"gain": 0.31, "batch": 335, "chip": "H100"}
    assert isinstance(caught.value, AssertionError)  # a failed check, as pytest and readers expect


def test_numpy_comparisons_are_claims_and_a_nan_bears_out_nothing() -> None:
    claim("an array's comparison", np.float64(2.0) > 1.0, value=np.float64(2.0))
    with pytest.raises(ClaimError, match="ratio = nan"):
        claim("the ratio is defined", True, ratio=math.nan)


@pytest.mark.parametrize("holds", [1, 0.5, "yes", None, [True]])
def test_only_a_comparison_is_a_claim(holds: object) -> None:
    with pytest.raises(RooflineInputError, match="holds must be the result of a comparison"):
        claim("a sentence", holds)


def test_the_verdict_follows_the_numbers() -> None:
    assert verdict(206.2 < 295.2, "lower", "higher") == "lower"
    assert verdict(np.float64(206.2) > 295.2, "lower", "higher") == "higher"
    with pytest.raises(RooflineInputError):
        verdict(0.0, "yes", "no")


def test_compare_within_a_share() -> None:
    assert compare(1.04, 1.0, same_within=0.05) == "same"
    assert compare(1.06, 1.0, same_within=0.05) == "more"
    assert compare(0.5, 1.0) == "less"
    with pytest.raises(RooflineInputError):
        compare(1.0, 1.0, same_within=1.5)


def _code_cells(text: str, tag: str) -> list[str]:
    cells = text.split("```{code-cell} ipython3\n")[1:]
    return [cell.split("```", 1)[0] for cell in cells if f":tags: [{tag}]" in cell.split("\n", 1)[0]]


def test_the_chapters_check_their_claims_with_claim_not_a_bare_assert() -> None:
    """A bare ``assert`` in a hidden cell fails with no words; ``claim`` names the sentence."""
    checked = []
    for chapter in sorted((ROOT / "book" / "chapters").glob("*.md")):
        text = chapter.read_text(encoding="utf-8")
        for cell in _code_cells(text, "remove-cell"):
            bare = [line for line in cell.splitlines() if line.lstrip().startswith("assert ")]
            assert not bare, f"{chapter.name}: a claim checked with a bare assert: {bare}"
        if "claim(" in text:
            checked.append(chapter.stem)
    assert len(checked) >= 8, checked  # the chapters whose prose states verdicts check them


@pytest.mark.book
def test_a_false_claim_fails_the_build_and_names_itself(tmp_path: Path) -> None:
    settings = yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))
    config = {"title": "claims", "execute": {**settings["execute"], "cache": str(tmp_path / "cache")},
              "only_build_toc_files": True}
    (tmp_path / "_config.yml").write_text(yaml.safe_dump(config), encoding="utf-8")
    (tmp_path / "_toc.yml").write_text("format: jb-book\nroot: page\n", encoding="utf-8")
    chapter = (ROOT / "book" / "chapters" / "01-where-the-time-goes.md").read_text(encoding="utf-8")
    header = chapter.split("---\n", 2)[1]
    (tmp_path / "page.md").write_text(
        f"---\n{header}---\n\n# A page\n\n"
        "```{code-cell} ipython3\n"
        ":tags: [remove-cell]\n\n"
        "from rooflinekit.claims import claim\n\n"
        "h100, h200 = 295.2, 206.2\n"
        'claim("the H200\'s ridge is above the H100\'s", h200 > h100, h200=h200, h100=h100)\n'
        "```\n\nThe H200's ridge is above the H100's.\n",
        encoding="utf-8",
    )
    jupyter_book = Path(sys.executable).with_name("jupyter-book")
    args = [a if a != "." else str(tmp_path) for a in build_book.BUILD_ARGS]
    done = subprocess.run([str(jupyter_book), *args], capture_output=True, text=True, timeout=600,
                          check=False, cwd=tmp_path)
    output = done.stdout + done.stderr
    assert done.returncode != 0, output
    assert "ClaimError" in output, output
    named = "the claim \"the H200's ridge is above the H100's\" does not hold for h200 = 206.2, h100 = 295.2"
    assert named in output
    # What `make book` prints of this build (tools/build_log.py): the claim and the failure, in full;
    # the tools' chatter (the kernel's TCP notice, the configuration dumps, Sphinx's steps) gone.
    log = BuildLog(tmp_path)
    shown = "\n".join(line for raw in output.splitlines() for line in log.feed(raw))
    assert named in shown and "ClaimError" in shown and "build finished with problems" in shown, shown
    assert "ParserConfig(" in output and "ParserConfig(" not in shown
    assert "reading sources" in output and "reading sources" not in shown
    assert "without encryption" not in shown
    assert "  running page.md" in shown
