"""The explorer's transformer view: what it shows is rooflinekit's, in JupyterLab and on the site.

- The texts of the view are the library's tables (rooflinekit.transformer), at every setting.
- The kernel-free page's data holds, at every position of its controls (both sets of figures, both
  phases, every batch, every context), the texts rooflinekit gives for that step in every language of the
  course, checked here against transformer_step itself; and its points sit on the roof
  matplotlib drew, at the operation's intensity, the same spot in every language.
- Its script, run in node over the whole grid, shows each position's own cell.
- The live face (ipywidgets) follows its controls with the same texts.
The site's page is driven in chromium by tests/book/test_browser.py.
"""

from __future__ import annotations

import itertools
import json
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

import rooflinekit as rk
from rooflinekit.errors import RooflineInputError
from rooflinekit.explorer import WIDGET_VIEW, transformer_explorer
from rooflinekit.explorer.labels import LANGUAGES, translator
from rooflinekit.explorer.transformer_figure import Canvas
from rooflinekit.explorer.transformer_static import transformer_html, view_data
from rooflinekit.explorer.transformer_view import (
    BATCHES,
    CONTEXTS,
    FIGURES,
    TransformerSettings,
    view,
)
from rooflinekit.transformer import FIGURE_SETS, PHASES, operations_table, step_summary, step_title

# Its module-scoped fixtures, built once (one worker), compute the view at every position of its
# controls: seconds by nature.
pytestmark = [pytest.mark.xdist_group("transformer-view"), pytest.mark.slow]

SCRIPT = Path(rk.__file__).parent / "explorer" / "assets" / "transformer.js"
SETTINGS = TransformerSettings("llama-3.1-70b", "h100-sxm", 8)


def step_at(phase: str, batch: int, context: int, figures: str = "ideal") -> rk.TransformerStep:
    return rk.transformer_step("llama-3.1-70b", "h100-sxm", n_chips=8, phase=phase, batch=batch,
                               context=context, figures=figures)


@pytest.fixture(scope="module")
def data() -> dict[str, Any]:
    return view_data(SETTINGS)["grid"]


def test_the_sliders_span_one_sequence_to_a_thousand_and_short_prompts_to_long_contexts() -> None:
    assert BATCHES[0] == 1 and BATCHES[-1] == 1024 and list(BATCHES) == sorted(set(BATCHES))
    assert CONTEXTS[0] == 128 and CONTEXTS[-1] == 131072 and 2048 in CONTEXTS


def test_a_view_shows_the_librarys_tables() -> None:
    shown = view(SETTINGS.at(batch=64, context=4096))
    step = step_at("decode", 64, 4096)
    assert shown.title == step_title(step.model, step.setup)
    assert list(shown.summary) == step_summary(step)
    table = operations_table(step)
    assert list(shown.header) == list(table.header)
    assert [list(op.row) for op in shown.ops] == table.cells()[1:]
    for op, placed in zip(shown.ops, step.ops, strict=True):
        if placed.op.collective:
            assert op.intensity is None and op.attainable is None
        else:
            assert op.intensity == placed.op.intensity
            h100 = rk.chip("h100-sxm")
            assert op.attainable == rk.attainable_flops(op.intensity, h100.peak("bf16"), h100.hbm_bandwidth)


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_row_of_the_summary_is_labelled_in_words_not_a_code_name(language: str) -> None:
    labels = [line.label for line in view(SETTINGS, language).summary]
    assert labels and not [label for label in labels if re.search(r"\w_\w", label)], labels


def test_a_step_that_does_not_fit_says_how_many_would() -> None:
    shown = view(SETTINGS.at(batch=1024, context=2048))
    assert shown.step is None and not shown.fits and not shown.ops
    most = rk.memory_for("llama-3.1-70b", "h100-sxm", n_chips=8, context=2048).max_batch
    assert shown.message.startswith(f"Does not fit in memory: the batch must be at most {most} sequences")
    too_long = view(SETTINGS.at(context=CONTEXTS[-1], phase="prefill", batch=1024))
    assert too_long.message.startswith("Does not fit in memory: the ")


@pytest.mark.parametrize(
    ("changes", "argument"),
    [({"batch": 3}, "batch"), ({"context": 1000}, "context"), ({"phase": "training"}, "phase"),
     ({"model": "gpt-5"}, "model"), ({"chip": "h100"}, "chip"), ({"n_chips": 1}, "n_chips"),
     ({"n_chips": 3}, "n_chips")],
)
def test_bad_settings_are_named(changes: dict[str, Any], argument: str) -> None:
    with pytest.raises(RooflineInputError) as caught:
        transformer_explorer(**changes)
    assert caught.value.argument == argument


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_page_holds_rooflinekits_step_at_every_position_of_its_controls(
    data: dict[str, Any], language: str
) -> None:
    words, tr = data["words"][language], translator(language)
    texts = words["texts"]
    assert data["batches"] == list(BATCHES) and data["contexts"] == list(CONTEXTS)
    assert data["phases"] == list(PHASES) and data["figures"] == list(FIGURE_SETS)
    names = [op["name"] for op in data["ops"]]
    assert words["ops"] == [tr(name) for name in names] and words["phases"] == [tr(p) for p in PHASES]
    assert words["figures"] == [tr(f) for f in FIGURE_SETS]
    fitting = 0
    for figures, phase, (b, batch), (c, context) in itertools.product(
            FIGURE_SETS, PHASES, enumerate(BATCHES), enumerate(CONTEXTS)):
        cell = data["cells"][figures][PHASES.index(phase)][b][c]
        try:
            step = step_at(phase, batch, context, figures)
        except RooflineInputError as error:
            shown = texts[cell["message"]]
            if language == "en":
                assert shown.endswith(f"must be {error.accepted}."), (phase, batch, context)
            at = SETTINGS.at(phase=phase, batch=batch, context=context, figures=figures)
            assert shown == view(at, language).message
            assert "summary" not in cell
            continue
        fitting += 1
        assert texts[cell["title"]] == step_title(step.model, step.setup, tr)
        assert [texts[i] for i in cell["summary"]] == [line.text for line in step_summary(step, tr)]
        assert words["summary"] == [line.label for line in step_summary(step, tr)]
        table = operations_table(step, tr)
        rows = table.cells()[1:]
        assert [row[0] for row in rows] == words["ops"] and words["header"] == table.header
        assert [[texts[i] for i in shown] for shown in cell["rows"]] == [row[2:] for row in rows]
        assert [op["runs"] for op in data["ops"]] == [row[1] for row in rows]
    assert 0 < fitting < 4 * len(BATCHES) * len(CONTEXTS)  # the grid reaches past what fits


def test_each_point_sits_on_the_roof_at_its_operations_intensity(data: dict[str, Any]) -> None:
    canvas = Canvas.for_chip("h100-sxm")
    h100 = rk.chip("h100-sxm")
    back = canvas.axes.transData.inverted()
    checked = 0
    for p, b, c in [(0, 0, 4), (0, 6, 4), (0, 9, 0), (1, 0, 4), (1, 3, 2)]:
        cell = data["cells"]["ideal"][p][b][c]
        step = step_at(PHASES[p], BATCHES[b], CONTEXTS[c])
        for placed, at in zip(step.ops, cell["points"], strict=True):
            if placed.op.collective:
                assert at is None
                continue
            x, y = back.transform((at[0], canvas.height - at[1]))
            intensity = placed.op.intensity
            assert x == pytest.approx(intensity, rel=2e-3), placed.op.name  # a tenth of a point
            assert y == pytest.approx(rk.attainable_flops(intensity, h100.peak("bf16"), h100.hbm_bandwidth),
                                      rel=2e-3)
            assert 0 < at[0] < canvas.width and 0 < at[1] < canvas.height
            checked += 1
    assert checked > 50


def test_a_korean_roof_puts_each_point_where_the_english_one_does() -> None:
    english, korean = Canvas.for_chip("h100-sxm"), Canvas.for_chip("h100-sxm", "ko")
    assert korean.axes.get_position().bounds == english.axes.get_position().bounds
    for at in (SETTINGS, SETTINGS.at(phase="prefill", batch=8)):
        shown = view(at)
        assert korean.places(shown) == english.places(shown)
    assert korean.axes.get_xlabel() == "산술 강도 (바이트당 FLOPs)"
    assert korean.png(view(SETTINGS))[:4] == b"\x89PNG"


def test_the_html_embeds_the_roof_and_the_data_safely() -> None:
    html = transformer_html(SETTINGS.at(phase="prefill", batch=4, context=512), element_id="tv1")
    assert html.startswith('<div class="rk-transformer" id="tv1">')
    match = re.search(r'<script type="application/json" class="rk-tv-data">(.*?)</script>', html, re.S)
    assert match
    embedded = json.loads(match.group(1).replace("<\\/", "</"))
    assert embedded["initial"] == {"model": "llama-3.1-70b", "chip": "h100-sxm", "n_chips": 8,
                                   "phase": "prefill", "batch": 4, "context": 512, "language": None,
                                   "figures": "ideal"}
    for body in re.findall(r"<script[^>]*>(.*?)</script>", html, re.S):
        assert "</" not in body
    svg = re.search(r"<svg.*?</svg>", html, re.S)
    assert svg and 'viewBox="0 0 504 302.4"' in svg.group(0)  # the points' coordinates are in these units
    ids = re.findall(r'\bid="([^"]+)"', svg.group(0))
    assert ids and all(i.startswith("tv1-") for i in ids)  # two views on a page share no id
    assert re.findall(r'href="#([^"]+)"', svg.group(0)) and all(
        ref.startswith("tv1-") for ref in re.findall(r'href="#([^"]+)"', svg.group(0)))
    step = step_at("prefill", 4, 512)
    assert f'<p class="rk-tv-title">{step_title(step.model, step.setup)}</p>' in html
    # The roof in every language, the page's shown: the Korean one's words are Korean.
    plot = r'<div class="rk-tv-plot rk-by-page" lang="(\w+)">(<svg.*?</svg>)</div>'
    plots = dict(re.findall(plot, html, re.S))
    assert set(plots) == set(LANGUAGES)
    tr = translator("ko")
    for english in ("Arithmetic intensity (FLOPs per byte)", "Attainable FLOP/s", "elementwise"):
        assert f">{english}</text>" in plots["en"] and f">{tr(english)}</text>" in plots["ko"], english
    assert tr("Arithmetic intensity (FLOPs per byte)") == "산술 강도 (바이트당 FLOPs)"


def test_the_script_shows_each_positions_own_cell(tmp_path: Path, data: dict[str, Any]) -> None:
    node = shutil.which("node")
    assert node, "node is not installed (apt-get install nodejs)"
    (tmp_path / "grid.json").write_text(json.dumps(data))
    probe = (
        f"require({json.dumps(str(SCRIPT))}); const V = globalThis.RooflineTransformerView;"
        f"const g = JSON.parse(require('fs').readFileSync({json.dumps(str(tmp_path / 'grid.json'))}));"
        "const out = {};"
        "for (const lang in g.words) { out[lang] = [];"
        " for (const figures of g.figures) for (const phase of g.phases)"
        "  for (let iB = 0; iB < g.batches.length; iB++) for (let iL = 0; iL < g.contexts.length; iL++)"
        "   out[lang].push(g.words[lang].texts[V.cellAt(g, {figures, phase, iB, iL}).title]); }"
        "console.log(JSON.stringify(out));"
    )
    titles = json.loads(subprocess.run([node, "-e", probe], capture_output=True, text=True, check=True,
                                       timeout=60).stdout)
    assert set(titles) == set(LANGUAGES)
    for language in LANGUAGES:
        expected = [view(SETTINGS.at(figures=f, phase=p, batch=b, context=c), language).title
                    for f in FIGURE_SETS for p in PHASES for b in BATCHES for c in CONTEXTS]
        assert titles[language] == expected


def test_output_has_both_faces() -> None:
    e = transformer_explorer("llama-3.1-8b", "b200", n_chips=1, batch=8)
    bundle = e._repr_mimebundle_()
    assert {"text/plain", "text/html", WIDGET_VIEW} <= set(bundle)
    assert bundle[WIDGET_VIEW]["model_id"] == e.widget.model_id
    assert set(e._repr_mimebundle_(include=["text/html"])) == {"text/html"}
    assert WIDGET_VIEW not in e._repr_mimebundle_(exclude=[WIDGET_VIEW])


def test_live_controls_show_the_librarys_step() -> None:
    e = transformer_explorer("llama-3.1-70b", "h100-sxm", n_chips=8)
    widget = e.widget
    image, text = widget.children[2], widget.children[3]
    first_image = image.value
    assert first_image[:4] == b"\x89PNG"
    step = step_at("decode", 1, 2048)
    assert step_summary(step)[4].text in text.value

    e._controls["batch"].value = 64
    e._controls["phase"].value = "prefill"
    step = step_at("prefill", 64, 2048)
    shown = e.shown()
    assert shown.step is not None and shown.step.t_lower == step.t_lower
    assert all(line.text in text.value for line in step_summary(step))
    assert image.value != first_image

    e._controls["context"].value = CONTEXTS[-1]
    assert "Does not fit in memory" in text.value
    assert e.shown().step is None


def test_numbers_in_the_live_table_are_the_books() -> None:
    e = transformer_explorer("llama-3.1-8b", "h100-sxm", n_chips=1, batch=16)
    html = e.widget.children[3].value
    step = rk.transformer_step("llama-3.1-8b", "h100-sxm", batch=16)
    cells = re.findall(r"<td>(.*?)</td>", html)
    for row in operations_table(step).cells()[1:]:
        assert any(cells[i:i + len(row)] == [str(x) for x in row] for i in range(len(cells))), row[0]
    assert "e+" not in html


def test_the_live_view_speaks_korean_when_asked_with_rooflinekits_numbers() -> None:
    tr = translator("ko")
    e = transformer_explorer("llama-3.1-8b", "h100-sxm", n_chips=1, batch=16, language="ko")
    controls, html = e._controls if e.widget else {}, e.widget.children[3].value
    assert [controls[k].description for k in ("phase", "batch", "context")] == ["단계", "배치", "컨텍스트"]
    assert controls["phase"].label == "디코드"
    step = rk.transformer_step("llama-3.1-8b", "h100-sxm", batch=16)
    assert "<th>들어가는 가장 큰 배치</th>" in html and "<th>연산 (칩 하나)</th>" in html
    assert all(line.text in html for line in step_summary(step, tr))
    korean, english = operations_table(step, tr).cells()[1:], operations_table(step).cells()[1:]
    cells = re.findall(r"<td>(.*?)</td>", html)
    for ko, en in zip(korean, english, strict=True):  # the same numbers, the words in Korean
        assert ko[0] == tr(en[0]) != en[0] and ko[5] == tr(en[5]) and ko[1:5] + ko[6:] == en[1:5] + en[6:]
        assert any(cells[i:i + len(ko)] == [str(x) for x in ko] for i in range(len(cells))), en[0]
    assert html.startswith(f"<p><b>{step_title(step.model, step.setup, tr)}</b></p>")
    title = step_title(step.model, step.setup, tr)
    assert title.startswith("1 x NVIDIA H100 SXM의 llama-3.1-8b: 디코드, 배치 16")

    controls["phase"].value = "prefill"
    assert controls["phase"].label == "프리필"
    assert "프리필 전체: 첫 토큰까지의 시간" in e.widget.children[3].value
    controls["context"].value = CONTEXTS[-1]
    assert "메모리에 들어가지 않습니다. " in e.widget.children[3].value and e.shown().step is None


def test_the_view_can_be_costed_at_the_calibrated_figures() -> None:
    calibrated = TransformerSettings("llama-3.1-8b", "h100-sxm", 1, figures="calibrated")
    shown = view(calibrated)
    step = rk.transformer_step("llama-3.1-8b", "h100-sxm", figures="calibrated")
    assert shown.step is not None and shown.step.t_lower == step.t_lower
    assert shown.title.endswith("(calibrated figures)")
    assert view_data(calibrated)["initial"]["figures"] == "calibrated"
    with pytest.raises(rk.RooflineInputError, match="figures"):
        TransformerSettings(figures="measured")


def test_the_toggle_offers_every_set_of_figures_the_library_has() -> None:
    assert FIGURES == FIGURE_SETS


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_live_toggle_switches_between_the_ideal_and_the_calibrated_step(language: str) -> None:
    tr = translator(language)
    e = transformer_explorer("llama-3.1-70b", "h100-sxm", n_chips=8, batch=16, language=language)
    toggle, text = e._controls["figures"] if e.widget else None, e.widget.children[3]
    assert toggle.description == tr("figures") and toggle.label == tr("ideal")
    ideal = step_at("decode", 16, 2048)
    assert step_summary(ideal, tr)[4].text in text.value
    toggle.value = "calibrated"
    assert toggle.label == tr("calibrated")
    calibrated = step_at("decode", 16, 2048, "calibrated")
    assert calibrated.t_lower > ideal.t_lower
    assert all(line.text in text.value for line in step_summary(calibrated, tr))
    assert step_title(calibrated.model, calibrated.setup, tr) in text.value
    assert step_summary(ideal, tr)[4].text not in text.value
