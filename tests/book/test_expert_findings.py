"""An expert's findings on chapters 9 and 12 (issue 33), read from the built site in both editions:
the wrong sentences gone, the verdicts that replace them there with the numbers rooflinekit computes.
The figures of every Korean chapter drawn in Korean: tests/book/test_korean_edition.py."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

import rooflinekit as rk
from rooflinekit.fmt import num, si
from rooflinekit.languages import TRANSLATED

pytestmark = pytest.mark.book

SERVING, HIERARCHY = "book/chapters/09-serving", "book/chapters/12-memory-hierarchy"
EDITIONS = ("", *(f"{language}/" for language in TRANSLATED))
GONE = {
    SERVING: ("the three clocks remain a quick first estimate", "The two meet only at the largest batch",
              "mixtures of experts included", "when both groups are in one server",
              "two all-to-alls, ring", "Either way the all-to-alls are small beside the experts' reads"),
    HIERARCHY: ("It is an upper bound no H100 kernel reaches", "fused, FlashAttention's blocks"),
}


class _Text(HTMLParser):
    """A page's words, without its scripts and styles; and its images' addresses."""

    def __init__(self) -> None:
        super().__init__()
        self.parts: list[str] = []
        self.images: list[str] = []
        self._skip = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._skip += tag in ("script", "style")
        if tag == "img":
            self.images.append(dict(attrs).get("src") or "")

    def handle_endtag(self, tag: str) -> None:
        self._skip -= tag in ("script", "style")

    def handle_data(self, data: str) -> None:
        if not self._skip:
            self.parts.append(data)


def page(site: Path, edition: str, doc: str) -> _Text:
    parsed = _Text()
    parsed.feed((site / f"{edition}{doc}.html").read_text(encoding="utf-8"))
    return parsed


def words(site: Path, edition: str, doc: str) -> str:
    return re.sub(r"\s+", " ", "".join(page(site, edition, doc).parts))


@pytest.mark.parametrize("edition", EDITIONS)
@pytest.mark.parametrize("doc", [SERVING, HIERARCHY])
def test_the_findings_sentences_are_gone(built_site: Path, edition: str, doc: str) -> None:
    text = words(built_site, edition, doc)
    for sentence in GONE[doc]:
        assert sentence not in text, f"{edition}{doc}: {sentence!r}"


@pytest.mark.parametrize("edition", EDITIONS)
def test_the_serving_chapter_states_the_verdicts_with_the_librarys_numbers(built_site: Path,
                                                                           edition: str) -> None:
    text = words(built_site, edition, SERVING)
    llama, h100 = rk.transformer_shape("llama-3.1-70b"), rk.chip("h100-sxm")
    largest = rk.memory_for(llama, h100, n_chips=8, context=2048).max_batch
    clocks = rk.three_clocks(llama, h100, n_chips=8, context=2048, batch=largest)
    step = rk.transformer_step(llama, h100, n_chips=8, context=2048, batch=largest)
    assert clocks.bound == "network" and step.bound == "memory"  # the case the finding names
    assert si(clocks.t_lower, "s") in text and si(step.t_lower, "s") in text
    assert si(clocks.t_network / 8, "s") in text  # the ring's bytes: the clock divided by N
    # The largest disagreement with a peer, recorded from GenZ, and its batch.
    moe = rk.transformer.peers.recorded_peer("genz").case("mixtral decode")
    ratios = {b: rk.transformer_step(moe.model, moe.chip, n_chips=moe.n_chips, batch=b,
                                     context=moe.context).t_lower / s for b, s in moe.seconds.items()}
    worst = max(ratios, key=lambda b: max(ratios[b], 1 / ratios[b]))
    assert num(ratios[worst], 2) in text
    # The KV hand-off: one link is the upper bound; the prefill GPUs' links side by side.
    best = rk.serving_search(llama, h100, ttft=0.5, tpot=0.05, prompt=2048, output=512).cheapest
    assert best is not None
    assert si(best.handoff_time(h100.dcn_bandwidth), "s") in text
    assert si(best.handoff_time(h100.dcn_bandwidth, links=best.handoff_links), "s") in text


@pytest.mark.parametrize("edition", EDITIONS)
def test_the_hierarchy_chapter_labels_the_blocked_bytes_and_tells_the_two_rooflines_apart(
        built_site: Path, edition: str) -> None:
    text = words(built_site, edition, HIERARCHY)
    assert "Ilic" in text and "Yang" in text
    one_head_kv = 2 * 32768 * rk.transformer_shape("llama-3.1-8b").head_dim * rk.dtype_bytes("bf16")
    assert f"{num(one_head_kv / 2**20)} MiB" in text
    assert num(rk.FIGURES["h100_reported_memory"].value / 2**20) in text
