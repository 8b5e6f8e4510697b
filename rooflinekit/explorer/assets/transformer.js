/* The kernel-free transformer view (rooflinekit.explorer.transformer_static).
 *
 * Each view is a <div class="rk-transformer"> holding a <script type="application/json"> with
 * what rooflinekit showed at every position of the controls (figures x phase x batch x context: the
 * ideal figures or the calibrated ones, rooflinekit.transformer.calibration): the
 * title, the step's totals, the texts of the operations table (each distinct text once, in
 * `texts`, the cells holding their numbers) and where each operation's point goes on the
 * roofline, whose axes are already in the page as SVG. This script builds
 * the controls and, on every move, looks the position's cell up and writes it into the page.
 * It computes no number: every text is rooflinekit's (tests/test_transformer_view.py checks the
 * data, tests/book/test_browser.py drives the page in chromium).
 * The data holds its texts, and the page its plot, in every language of the course; the view
 * shows the page's language (<html lang>), or English. This script's own words are English,
 * passed through tr().
 * No dependencies, no network. Defined once per page; every view on it is initialised.
 */
(function () {
  "use strict";
  var root = typeof window !== "undefined" ? window : globalThis;
  if (root.RooflineTransformerView) {
    root.RooflineTransformerView.initAll();
    return;
  }
  var SVG = "http://www.w3.org/2000/svg";

  /* The cell the controls point at: cells[figures][phase][batch][context], the figures by name (the
   * ideal ones when a state names none), the others by index. */
  function cellAt(grid, state) {
    return grid.cells[state.figures || "ideal"][grid.phases.indexOf(state.phase)][state.iB][state.iL];
  }

  function el(tag, attrs, text) {
    var node = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) { node.setAttribute(k, attrs[k]); });
    if (text !== undefined) { node.textContent = text; }
    return node;
  }

  function clear(node) { while (node.firstChild) { node.removeChild(node.firstChild); } }

  /* The view's language: the one it was asked for, else the page's ("ko-KR" is "ko"), else English. */
  function language(data) {
    var page = typeof document !== "undefined" && document.documentElement ? document.documentElement.lang : "";
    return String(data.initial.language || page || "en").toLowerCase().split("-")[0];
  }

  /* `text` in the words' language, its {name} placeholders filled from `values`. */
  function translate(words, text, values) {
    var said = words.labels[text] || text;
    return said.replace(/\{(\w+)\}/g, function (all, name) {
      return values && Object.prototype.hasOwnProperty.call(values, name) ? String(values[name]) : all;
    });
  }

  function slider(id, label, count, index) {
    var wrap = el("div", { "class": "rk-control" });
    wrap.appendChild(el("label", { "for": id }, label));
    var input = el("input", { type: "range", id: id, min: "0", max: String(count - 1), step: "1" });
    input.value = String(index);
    var out = el("output", { "for": id });
    wrap.appendChild(input);
    wrap.appendChild(out);
    return { wrap: wrap, input: input, out: out };
  }

  /* Radio buttons for one of `values` (labelled `shown`), in a fieldset named by `legend`, the one
   * equal to `chosen` checked; `control` names the fieldset's class and the buttons' data-control. */
  function choices(id, control, legend, values, shown, chosen) {
    var set = el("fieldset", { "class": "rk-tv-" + control });
    set.appendChild(el("legend", {}, legend));
    values.forEach(function (value, i) {
      var label = el("label");
      var radio = el("input", { type: "radio", name: id + "-" + control, value: value, "data-control": control });
      radio.checked = value === chosen;
      label.appendChild(radio);
      label.appendChild(document.createTextNode(" " + shown[i]));
      set.appendChild(label);
    });
    return set;
  }

  /* What a slider shows beside it, and what it tells a screen reader for its value (its position
   * is an index, not the batch or the context). */
  function shows(control, text) {
    control.out.textContent = text;
    control.input.setAttribute("aria-valuetext", text);
  }

  function init(view) {
    if (view.getAttribute("data-ready") === "true") { return; }
    var data = JSON.parse(view.querySelector("script.rk-tv-data").textContent);
    var grid = data.grid, initial = data.initial, id = view.id;
    var lang = grid.words[language(data)] ? language(data) : "en";
    var words = grid.words[lang], english = grid.words.en;
    function tr(text, values) { return translate(words, text, values); }
    /* The plot in the view's language; the others go. */
    var plots = Array.prototype.slice.call(view.querySelectorAll(".rk-tv-plot"));
    function plotIn(l) { return plots.filter(function (p) { return p.getAttribute("lang") === l; })[0]; }
    var kept = plotIn(lang) || plotIn("en") || plots[0];
    plots.forEach(function (p) { if (p !== kept) { p.parentNode.removeChild(p); } });
    kept.className = "rk-tv-plot";
    view.setAttribute("lang", kept.getAttribute("lang") || lang);
    var state = {
      figures: initial.figures || "ideal",
      phase: initial.phase,
      iB: grid.batches.indexOf(initial.batch),
      iL: grid.contexts.indexOf(initial.context)
    };
    var title = view.querySelector(".rk-tv-title");
    var plot = kept.querySelector("svg");
    plot.removeAttribute("width");
    plot.removeAttribute("height");
    plot.setAttribute("class", "rk-tv-svg");
    plot.setAttribute("role", "img");
    plot.setAttribute("aria-label", tr("the step's operations on the roofline"));
    var points = document.createElementNS(SVG, "g");
    points.setAttribute("class", "rk-tv-points");
    plot.appendChild(points);

    var ui = el("div", { "class": "rk-ui" });
    var phases = choices(id, "phase", tr("phase"), grid.phases, words.phases, state.phase);
    ui.appendChild(phases);
    var batch = slider(id + "-batch", tr("batch (sequences)"), grid.batches.length, state.iB);
    var context = slider(id + "-context", tr("context (tokens)"), grid.contexts.length, state.iL);
    batch.input.setAttribute("data-control", "batch");
    context.input.setAttribute("data-control", "context");
    ui.appendChild(batch.wrap);
    ui.appendChild(context.wrap);
    /* The ideal figures (the datasheet's) or the calibrated ones: after the sliders, so that a
     * reader moves the step first and then sees what real systems reach. */
    var figures = choices(id, "figures", tr("figures"), grid.figures, words.figures, state.figures);
    ui.appendChild(figures);

    var message = el("p", { "class": "rk-tv-message", "data-key": "message", role: "status" });
    var summary = el("dl", { "class": "rk-tv-summary" });
    var table = el("table", { "class": "rk-table rk-tv-table" });
    /* A box that scrolls sideways on a phone: a keyboard reaches it (tabindex) to scroll it too. */
    var scroll = el("div", { "class": "rk-table-wrap", tabindex: "0", role: "region",
      "aria-label": tr("figures of the step's operations") });
    scroll.appendChild(table);
    var thead = el("thead"), head = el("tr");
    words.header.forEach(function (text) { head.appendChild(el("th", { scope: "col" }, text)); });
    thead.appendChild(head);
    table.appendChild(thead);
    var tbody = el("tbody");
    table.appendChild(tbody);

    function t(number) { return words.texts[number]; }

    function update() {
      var cell = cellAt(grid, state);
      shows(batch, String(grid.batches[state.iB]));
      shows(context, String(grid.contexts[state.iL]));
      var fits = cell.message === undefined;
      title.textContent = t(cell.title);
      message.textContent = fits ? "" : t(cell.message);
      message.hidden = fits;
      clear(summary);
      clear(points);
      clear(tbody);
      view.setAttribute("data-state", JSON.stringify({
        figures: state.figures, phase: state.phase, batch: grid.batches[state.iB], context: grid.contexts[state.iL],
        fits: fits
      }));
      var named = tr("the step's operations on the roofline") + ": " + t(cell.title);
      plot.setAttribute("aria-label", fits ? named : named + ". " + t(cell.message));
      if (!fits) { return; }
      var tips = [];
      grid.summary.forEach(function (key, i) {
        summary.appendChild(el("dt", {}, words.summary[i]));
        summary.appendChild(el("dd", { "data-key": key }, t(cell.summary[i])));
      });
      grid.ops.forEach(function (op, i) {
        var row = el("tr", { "data-op": op.name });
        row.appendChild(el("th", { scope: "row" }, words.ops[i]));
        row.appendChild(el("td", { "data-col": "1" }, String(op.runs)));
        var texts = cell.rows[i].map(t);  /* columns 2 to 7: FLOPs ... share */
        var bound = english.texts[cell.rows[i][3]];  /* "memory", "compute" or "network": a key */
        texts.forEach(function (text, j) {
          var td = el("td", { "data-col": String(j + 2) }, text);
          if (j === 3) { td.className = "rk-" + bound; td.setAttribute("data-bound", bound); }
          row.appendChild(td);
        });
        tbody.appendChild(row);
        var at = cell.points[i];
        if (!at) { return; }
        var mark = document.createElementNS(SVG, "path");
        mark.setAttribute("d", grid.shapes[op.kind]);
        mark.setAttribute("transform", "translate(" + at[0] + " " + at[1] + ")");
        mark.setAttribute("fill", grid.colors[bound]);
        mark.setAttribute("class", "rk-tv-point");
        mark.setAttribute("data-op", op.name);
        var tip = document.createElementNS(SVG, "title");
        tip.textContent = tr("{operation}: {intensity} FLOPs/B, {bound}-bound",
          { operation: words.ops[i], intensity: texts[2], bound: texts[3] });
        mark.appendChild(tip);
        points.appendChild(mark);
        tips.push(tip.textContent);
      });
      /* What the plot shows, for a screen reader (it reads an image by its name): each point. */
      plot.setAttribute("aria-label", named + ". " + tips.join("; "));
    }

    phases.addEventListener("change", function (event) {
      state.phase = event.target.value;
      update();
    });
    figures.addEventListener("change", function (event) {
      state.figures = event.target.value;
      update();
    });
    batch.input.addEventListener("input", function () { state.iB = parseInt(batch.input.value, 10); update(); });
    context.input.addEventListener("input", function () { state.iL = parseInt(context.input.value, 10); update(); });

    view.insertBefore(ui, title);
    view.appendChild(message);
    view.appendChild(summary);
    view.appendChild(scroll);
    var fallbacks = view.querySelectorAll(".rk-noscript");
    for (var f = 0; f < fallbacks.length; f++) { fallbacks[f].parentNode.removeChild(fallbacks[f]); }
    update();
    view.setAttribute("data-ready", "true");
  }

  function initAll() {
    var views = document.querySelectorAll(".rk-transformer");
    for (var i = 0; i < views.length; i++) {
      try { init(views[i]); } catch (err) {
        views[i].setAttribute("data-error", String(err));
        throw err;
      }
    }
  }

  root.RooflineTransformerView = { init: init, initAll: initAll, cellAt: cellAt, language: language };
  if (typeof document === "undefined") { return; }
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", initAll);
  } else {
    initAll();
  }
})();
