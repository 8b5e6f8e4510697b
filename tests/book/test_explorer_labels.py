"""The explorers' labels: one source for the words, translated in full, shipped as the catalog says.

English is written in the code; the Korean comes from locale/ko/LC_MESSAGES/explorer-labels.po,
which tools/explorer_labels.py keeps from the code with Babel and writes to the file rooflinekit
ships (rooflinekit/explorer/assets/labels.json, read at run time without Babel). These tests
read files only: the shipped file is the catalog's, and a label that is new, changed or
untranslated fails `tools/translations.py check` (which `make test` runs through
tests/book/test_translations.py) with a message naming it.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import explorer_labels  # tools/explorer_labels.py
import pytest
import translations as translations_tool  # tools/translations.py
from babel.messages.pofile import read_po, write_po

from rooflinekit.explorer.labels import LANGUAGES, tables, translator
from tests.support.book_site import ROOT

NEW_LABEL = "a label nobody has translated yet"


def _copy(tmp_path: Path) -> Path:
    """What the checks read: the code (rooflinekit), the book's sources and the translations."""
    for name in ("rooflinekit", "book", "exercises", "locale"):
        shutil.copytree(ROOT / name, tmp_path / name,
                        ignore=shutil.ignore_patterns("*.mo", "_static", "__pycache__", "*.egg-info"))
    shutil.copy2(ROOT / "_toc.yml", tmp_path / "_toc.yml")
    return tmp_path


def _check(root: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    capsys.readouterr()
    status = translations_tool.main(["check", "--root", str(root)])
    return status, capsys.readouterr().out


def _catalog(root: Path) -> Path:
    return explorer_labels.catalog_path(root, "ko")


def test_every_label_is_translated_and_rooflinekit_ships_the_catalogs_words() -> None:
    assert explorer_labels.problems(ROOT) == []
    with _catalog(ROOT).open("rb") as handle:
        catalog = read_po(handle)
    translated = {str(m.id): str(m.string) for m in catalog if m.id}
    assert len(translated) > 100 and set(LANGUAGES) - {"en"} == set(tables())
    ko = translator("ko")
    assert all(ko(english) == korean for english, korean in translated.items())
    # the explorers' words as a Korean reader meets them, in the glossary's terms
    assert [ko(w) for w in ("peak", "memory", "compute", "decode", "prefill", "roofline plot")] == [
        "피크 성능", "메모리", "연산", "디코드", "프리필", "루프라인 플롯"]


@pytest.mark.slow  # Babel's extraction and the translations check, on a copy
def test_a_new_label_fails_the_check_until_it_is_translated(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = _copy(tmp_path)  # checked as it is by the test above
    module = root / "rooflinekit" / "explorer" / "widget.py"
    added = f'\n\ndef _more(tr):\n    return tr("{NEW_LABEL}")\n'
    module.write_text(module.read_text(encoding="utf-8") + added, encoding="utf-8")
    status, out = _check(root, capsys)
    assert status == 1 and "not in locale/ko/LC_MESSAGES/explorer-labels.po" in out and NEW_LABEL in out
    explorer_labels.sync(root)  # the catalog gets an empty entry for it: still to translate
    status, out = _check(root, capsys)
    assert status == 1 and f"untranslated in locale/ko/LC_MESSAGES/explorer-labels.po: {NEW_LABEL}" in out
    with _catalog(root).open("rb") as handle:
        catalog = read_po(handle)
    catalog[NEW_LABEL].string = "아직 아무도 번역하지 않은 라벨"
    with _catalog(root).open("wb") as handle:
        write_po(handle, catalog, width=0)
    status, out = _check(root, capsys)
    assert status == 1 and "labels.json is not what the catalogs say" in out  # translated, not shipped
    explorer_labels.sync(root)
    assert _check(root, capsys)[0] == 0
    shipped = json.loads((root / explorer_labels.LABELS).read_text(encoding="utf-8"))
    assert shipped["ko"][NEW_LABEL] == "아직 아무도 번역하지 않은 라벨"


@pytest.mark.slow  # the label tools on a copy of the catalogs (seconds)
def test_a_changed_english_label_is_fuzzy_until_its_translation_is_checked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = _copy(tmp_path)
    script = root / "rooflinekit" / "explorer" / "assets" / "explorer.js"
    text = script.read_text(encoding="utf-8")
    assert text.count('tr("achieved share of the peak")') == 1
    script.write_text(text.replace('tr("achieved share of the peak")', 'tr("achieved share of peak")'),
                      encoding="utf-8")
    explorer_labels.sync(root)
    status, out = _check(root, capsys)
    assert status == 1 and "fuzzy (its English changed)" in out and "achieved share of peak" in out
    with _catalog(root).open("rb") as handle:
        entry = read_po(handle)["achieved share of peak"]
    assert entry.fuzzy and entry.string == translator("ko")("achieved share of the peak")  # the old one
    shipped = json.loads((root / explorer_labels.LABELS).read_text(encoding="utf-8"))
    assert "achieved share of peak" not in shipped["ko"]  # shown in English until checked


@pytest.mark.slow  # the label tools on a copy of the catalogs (seconds)
def test_a_translation_that_drops_a_placeholder_or_types_a_number_is_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = _copy(tmp_path)
    with _catalog(root).open("rb") as handle:
        catalog = read_po(handle)
    catalog["back to {chip}"].string = "돌아가기"
    typed = "{tokens}토큰 시퀀스 {sequences}개 (최대 8개)"
    catalog["{sequences} sequences of {tokens} tokens"].string = typed
    with _catalog(root).open("wb") as handle:
        write_po(handle, catalog, width=0)
    status, out = _check(root, capsys)
    assert status == 1
    assert "placeholders differ from the English ones in locale/ko/LC_MESSAGES/explorer-labels.po: " \
           "back to {chip}" in out
    assert "number 8 typed into the translation" in out
