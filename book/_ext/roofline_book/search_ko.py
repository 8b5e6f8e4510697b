"""Korean search for the Korean edition: a Sphinx search language whose splitter is kiwipiepy.

Sphinx ships no Korean search support: its default splitter keeps a Korean word with its
particles attached (루프라인은, 루프라인을), so a search for 루프라인 finds nothing. Korean
attaches particles and endings to the word they follow, so the index needs a morphological
analyzer; kiwipiepy (Kiwi, on PyPI with wheels and its own model, no system library) is a
maintained one made for this.

Each space-separated word is indexed as the word itself, its stem (the word up to its last
content morpheme: 루프라인은 -> 루프라인, 대역폭으로 -> 대역폭) and each content morpheme
(대역, 폭). What a reader types is split at spaces and punctuation by Sphinx's own script,
so the stem is what a one-word query such as 루프라인 meets.

>>> SearchKorean({}).split("루프라인은 HBM 대역폭으로 정해진다.")[:4]
['루프라인은', '루프라인', '루프', '라인']
"""

from __future__ import annotations

import functools
import re
from typing import Any

from sphinx.search import SearchLanguage

# Kiwi's tags of content morphemes: nouns, verbs and adjectives (stems), adverbs, determiners,
# foreign words, numbers, roots, and the Hanja and mixed-script tokens.
CONTENT_TAGS = ("NN", "NP", "NR", "VV", "VA", "MA", "MM", "SL", "SN", "XR", "SH", "W_")
WORD = re.compile(r"\w+")


@functools.cache
def _kiwi() -> Any:
    from kiwipiepy import Kiwi

    return Kiwi()


def _is_content(tag: str) -> bool:
    return tag.startswith(CONTENT_TAGS)


def index_terms(text: str) -> list[str]:
    """The terms ``text`` is found by: each word, its stem and its content morphemes.

    >>> index_terms("계산을")
    ['계산을', '계산']
    """
    words = [m for m in WORD.finditer(text)]
    tokens = _kiwi().tokenize(text) if any(not m.group().isascii() for m in words) else []
    terms: list[str] = []
    at = 0
    for match in words:
        word = match.group()
        terms.append(word)
        while at < len(tokens) and tokens[at].start < match.start():
            at += 1
        inside = []
        while at < len(tokens) and tokens[at].start < match.end():
            inside.append(tokens[at])
            at += 1
        content = [t for t in inside if _is_content(t.tag)]
        if word.isascii() or not content:
            continue
        end = min(content[-1].start + content[-1].len, match.end())
        stem = text[match.start():end]
        if stem != word:
            terms.append(stem)
        terms.extend(t.form for t in content if t.form not in (word, stem) and WORD.fullmatch(t.form))
    return terms


class SearchKorean(SearchLanguage):
    """Sphinx search language ``ko``: words, their stems and morphemes (kiwipiepy)."""

    lang = "ko"
    language_name = "Korean"

    def split(self, input: str) -> list[str]:
        return index_terms(input)

    def word_filter(self, word: str) -> bool:
        return len(word) > 0
