"""A figure or a table in the editions' languages (rooflinekit.figure_languages): its words
translated, its numbers and names left alone, everything put back after the drawing."""

from __future__ import annotations

import base64

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

from rooflinekit.alt_text import ALT_KEY, alt_in, alt_text
from rooflinekit.figure_languages import METADATA_KEY, in_language, install, languages, translations
from rooflinekit.fmt import Composed, Table
from rooflinekit.words import message, translator_from

KOREAN = translator_from({"Batch (sequences)": "배치 (시퀀스)",
                          "{name}: batch {batch}": "{name}: 배치 {batch}", "knee": "무릎"})


def hangul(text: str) -> bool:
    return any("\uac00" <= c <= "\ud7a3" for c in text)


def test_a_figures_marked_words_are_drawn_in_the_language_and_put_back() -> None:
    fig, ax = plt.subplots()
    ax.plot([1, 2], [1, 2], label=message("{name}: batch {batch}", name=message("knee"), batch=14))
    ax.set_xlabel(message("Batch (sequences)"))
    ax.set_title("NVIDIA H100 SXM")  # a name: no catalog entry, stays as it is
    ax.legend()
    with in_language(fig, KOREAN, None):
        shown = {ax.get_xlabel(), ax.get_title(), ax.get_legend().get_texts()[0].get_text()}
    assert shown == {"배치 (시퀀스)", "NVIDIA H100 SXM", "무릎: 배치 14"}
    assert ax.get_xlabel() == "Batch (sequences)"
    assert ax.get_legend().get_texts()[0].get_text() == "knee: batch 14"
    drawn = translations(fig, {"ko": KOREAN})["ko"]
    assert "배치 (시퀀스)" in drawn["texts"] and "무릎: 배치 14" in drawn["texts"]
    assert base64.b64decode(drawn["png"]).startswith(b"\x89PNG")
    assert not any(hangul(t.get_text()) for t in fig.findobj(matplotlib.text.Text))
    plt.close(fig)


def test_the_languages_come_from_catalogs_that_exist() -> None:
    assert languages("ko=/nowhere/computed.po") == {}
    assert languages("") == {}


def test_a_displayed_table_carries_its_messages_in_each_language_and_a_plain_one_nothing() -> None:
    """In a kernel, what the book's build installs: a table or composed Markdown shows its English and
    carries, in its output's metadata, its Markdown in the language, where that differs."""
    from IPython.core.interactiveshell import InteractiveShell

    shell = InteractiveShell.instance()
    try:
        assert install({"ko": KOREAN})
        words = Table(["kind", "B"], [[message("knee"), 14]])
        composed = Composed(["**H100**\n\n", words, "\n- ", message("Batch (sequences)")])
        for shown in (words, composed):
            data, metadata = shell.display_formatter.format(shown)
            assert data["text/markdown"] == shown.to_markdown() and "무릎" not in data["text/markdown"]
            korean = metadata["text/markdown"][METADATA_KEY]["ko"]["markdown"]
            assert korean == shown.translated(KOREAN).to_markdown() and "| 무릎 | 14 |" in korean
        assert "배치 (시퀀스)" in korean
        plain = Table(["kind"], [["knee"]])  # words not marked as messages are not translated
        assert "text/markdown" not in shell.display_formatter.format(plain)[1]
    finally:
        InteractiveShell.clear_instance()
        plt.close("all")


def test_tick_labels_and_categories_are_drawn_in_the_language_and_numbers_keep_their_offset() -> None:
    """matplotlib writes tick labels again from the axis' formatters whenever it draws."""
    fig, (left, right) = plt.subplots(1, 2)
    left.set_xticks([0, 1], [message("{name}: batch {batch}", name=message("knee"), batch=14), "B200"])
    left.plot([0, 1], [1e14, 2e14])  # numbers large enough for an offset text, "1e14"
    right.barh([message("knee"), "B200"], [1, 2])  # categories: labels from the category formatter
    fig.canvas.draw()
    english = [t.get_text() for t in (*left.get_xticklabels(), *right.get_yticklabels())]
    offset = left.yaxis.get_offset_text().get_text()
    drawn = translations(fig, {"ko": KOREAN})["ko"]
    assert {"무릎: 배치 14", "무릎", "B200"} <= set(drawn["texts"]) and offset and offset in drawn["texts"]
    fig.canvas.draw()
    assert [t.get_text() for t in (*left.get_xticklabels(), *right.get_yticklabels())] == english
    plt.close(fig)


def test_a_figure_drawn_in_a_language_is_described_from_that_drawing_and_the_english_stays() -> None:
    """A screen reader on the Korean page hears the Korean drawing's words, not the English ones."""
    fig, (left, right) = plt.subplots(1, 2)
    left.plot([1, 2], [1, 2], label=message("{name}: batch {batch}", name=message("knee"), batch=14))
    left.plot([1.5], [1.5], "o", label=message("knee"))
    left.set_xlabel(message("Batch (sequences)"))
    left.set_title("NVIDIA H100 SXM")
    left.annotate(message("knee"), (1.5, 1.5))
    left.legend()
    right.bar([message("knee"), "B200"], [1, 2], label=message("knee"))
    english = alt_text(fig)
    korean = alt_in(translations(fig, {"ko": KOREAN})["ko"][ALT_KEY], KOREAN)
    for word in ("배치 (시퀀스)", "무릎: 배치 14", "무릎 at (1.5, 1.5)", "NVIDIA H100 SXM", "B200"):
        assert word in korean, (word, korean)
    assert "Batch" not in korean and "knee" not in korean, korean
    assert "Batch (sequences)" in english and "knee: batch 14" in english
    assert alt_text(fig) == english  # the English figure, and its description, as they were
    assert [line.get_label() for line in left.get_lines()] == ["knee: batch 14", "knee"]
    plt.close(fig)
