/* The kernel-free roofline explorer (rooflinekit.explorer.static).
 *
 * Each explorer is a <div class="rk-explorer"> holding a <script type="application/json">
 * with the data rooflinekit computed at build time: the FLOPs and bytes of every operation at
 * every (D, B) on the sliders, the catalog chips' figures and the element sizes of the
 * matmuls. This script only applies the roofline to them (tests/test_browser.py checks what
 * it shows against rooflinekit):
 *   T_math = FLOPs / peak, T_comms = bytes / bandwidth, T_lower = max, T_upper = sum,
 *   intensity = FLOPs / bytes, attainable = min(peak, intensity * bandwidth),
 *   compute-bound when T_math > T_comms,
 *   critical batch of x[B,D].w[D,F]->out[B,F] (F = D): the B where T_math = T_comms.
 * No dependencies, no network. Defined once per page; every explorer on it is initialised.
 */
(function () {
  "use strict";
  if (window.RooflineExplorer) {
    window.RooflineExplorer.initAll();
    return;
  }
  var SVG = "http://www.w3.org/2000/svg";
  var PLOT = { width: 660, height: 380, left: 72, right: 18, top: 16, bottom: 52 };

  function log10(x) { return Math.log(x) / Math.LN10; }

  /* Three significant digits, as a slider position is read. */
  function roundSig(x, digits) {
    var p = Math.pow(10, digits - 1 - Math.floor(log10(Math.abs(x))));
    return Math.round(x * p) / p;
  }

  /* A number for people: 4 significant digits, exponent form when large or small. */
  function fmt(x) {
    if (x === null || x === undefined) { return "-"; }
    if (!isFinite(x)) { return "never"; }
    var a = Math.abs(x);
    if (a !== 0 && (a >= 1e5 || a < 1e-2)) {
      var parts = x.toExponential(3).split("e");
      var mantissa = parts[0].replace(/\.?0+$/, "");
      return mantissa + "e" + parts[1].replace("+", "");
    }
    return String(parseFloat(x.toPrecision(4)));
  }

  function fmtTime(t) {
    var units = [[1, "s"], [1e-3, "ms"], [1e-6, "µs"], [1e-9, "ns"]];
    for (var i = 0; i < units.length; i++) {
      if (t >= units[i][0] || i === units.length - 1) {
        return String(parseFloat((t / units[i][0]).toPrecision(4))) + " " + units[i][1];
      }
    }
    return String(t);
  }

  /* The roofline model applied to the precomputed costs. */
  function model(grid, state) {
    var iD = state.iD, iB = state.iB, D = grid.D[iD];
    var peak = state.peak, bw = state.bandwidth;
    return grid.operations.filter(function (op) { return state.ops.indexOf(op.key) >= 0; })
      .map(function (op) {
        var flops = grid.flops[op.key][iD][iB], bytes = grid.bytes[op.key][iD][iB];
        var tMath = flops / peak, tComms = bytes / bw, intensity = flops / bytes;
        var row = {
          key: op.key, label: op.label, short: op.short, color: op.color,
          flops: flops, bytes: bytes, intensity: intensity,
          attainable: Math.min(peak, intensity * bw),
          t_math: tMath, t_comms: tComms,
          t_lower: Math.max(tMath, tComms), t_upper: tMath + tComms,
          bound: tMath > tComms ? "compute" : "memory",
          critical_batch: null, critical_batch_approx: null
        };
        if (op.matmul) {
          var s = op.matmul;
          var den = 2 * D * D * bw - peak * (s.x * D + s.out * D);
          row.critical_batch = den > 0 ? peak * s.w * D * D / den : Infinity;
          row.critical_batch_approx = peak * s.w / (2 * bw);
        }
        return row;
      });
  }

  function el(tag, attrs, text) {
    var node = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) { node.setAttribute(k, attrs[k]); });
    if (text !== undefined) { node.textContent = text; }
    return node;
  }

  function svg(tag, attrs, text) {
    var node = document.createElementNS(SVG, tag);
    Object.keys(attrs || {}).forEach(function (k) { node.setAttribute(k, attrs[k]); });
    if (text !== undefined) { node.textContent = text; }
    return node;
  }

  function slider(id, label, min, max, step, value) {
    var wrap = el("div", { "class": "rk-control" });
    wrap.appendChild(el("label", { "for": id }, label));
    var input = el("input", {
      id: id, type: "range", min: String(min), max: String(max), step: String(step)
    });
    input.value = String(value);
    wrap.appendChild(input);
    var out = el("output", { "for": id });
    wrap.appendChild(out);
    return { wrap: wrap, input: input, out: out };
  }

  function superscriptTick(node, exponent) {
    node.appendChild(svg("tspan", {}, "10"));
    node.appendChild(svg("tspan", { dy: "-0.5em", "font-size": "75%" }, String(exponent)));
  }

  function drawPlot(plot, grid, state, rows) {
    while (plot.firstChild) { plot.removeChild(plot.firstChild); }
    var x0 = log10(grid.intensity_range[0]), x1 = log10(grid.intensity_range[1]);
    var y0 = 9, y1 = 17;
    var w = PLOT.width - PLOT.left - PLOT.right, h = PLOT.height - PLOT.top - PLOT.bottom;
    function X(i) { return PLOT.left + (log10(i) - x0) / (x1 - x0) * w; }
    function Y(f) { return PLOT.top + (1 - (log10(f) - y0) / (y1 - y0)) * h; }
    function clampX(i) { return Math.min(Math.max(i, grid.intensity_range[0]), grid.intensity_range[1]); }
    var clip = "rk-clip-" + plot.id;
    var defs = svg("defs");
    var cp = svg("clipPath", { id: clip });
    cp.appendChild(svg("rect", { x: PLOT.left, y: PLOT.top, width: w, height: h }));
    defs.appendChild(cp);
    plot.appendChild(defs);
    var axes = svg("g", { "class": "rk-axes" });
    for (var e = Math.ceil(x0); e <= x1; e++) {
      axes.appendChild(svg("line", { x1: X(Math.pow(10, e)), x2: X(Math.pow(10, e)), y1: PLOT.top, y2: PLOT.top + h, "class": "rk-grid" }));
      var tx = svg("text", { x: X(Math.pow(10, e)), y: PLOT.top + h + 18, "text-anchor": "middle" });
      superscriptTick(tx, e);
      axes.appendChild(tx);
    }
    for (var f = y0; f <= y1; f++) {
      axes.appendChild(svg("line", { x1: PLOT.left, x2: PLOT.left + w, y1: Y(Math.pow(10, f)), y2: Y(Math.pow(10, f)), "class": "rk-grid" }));
      var ty = svg("text", { x: PLOT.left - 8, y: Y(Math.pow(10, f)) + 4, "text-anchor": "end" });
      superscriptTick(ty, f);
      axes.appendChild(ty);
    }
    axes.appendChild(svg("rect", { x: PLOT.left, y: PLOT.top, width: w, height: h, "class": "rk-frame" }));
    axes.appendChild(svg("text", { x: PLOT.left + w / 2, y: PLOT.height - 10, "text-anchor": "middle" },
      "arithmetic intensity (FLOPs per byte)"));
    axes.appendChild(svg("text", { x: 16, y: PLOT.top + h / 2, "text-anchor": "middle",
      transform: "rotate(-90 16 " + (PLOT.top + h / 2) + ")" }, grid.compute + " FLOP/s attainable"));
    plot.appendChild(axes);

    var body = svg("g", { "clip-path": "url(#" + clip + ")" });
    var ridge = state.peak / state.bandwidth;
    var lo = grid.intensity_range[0], hi = grid.intensity_range[1];
    var roof = [[lo, Math.min(state.peak, lo * state.bandwidth)], [clampX(ridge), Math.min(state.peak, clampX(ridge) * state.bandwidth)], [hi, state.peak]];
    body.appendChild(svg("polyline", {
      points: roof.map(function (p) { return X(p[0]) + "," + Y(p[1]); }).join(" "),
      "class": "rk-roof"
    }));
    body.appendChild(svg("line", { x1: X(clampX(ridge)), x2: X(clampX(ridge)), y1: PLOT.top, y2: PLOT.top + h, "class": "rk-ridge" }));
    rows.forEach(function (row) {
      var pts = grid.B.map(function (_, iB) {
        var r = model(grid, { iD: state.iD, iB: iB, peak: state.peak, bandwidth: state.bandwidth, ops: [row.key] })[0];
        return X(clampX(r.intensity)) + "," + Y(r.attainable);
      });
      body.appendChild(svg("polyline", { points: pts.join(" "), stroke: row.color, "class": "rk-path" }));
      var dot = svg("circle", { cx: X(clampX(row.intensity)), cy: Y(row.attainable), r: 6, fill: row.color, "class": "rk-point", "data-op": row.key });
      dot.appendChild(svg("title", {}, row.label + ": " + fmt(row.intensity) + " FLOP/B, " + row.bound + "-bound"));
      body.appendChild(dot);
    });
    plot.appendChild(body);
    var label = svg("text", { x: Math.min(X(clampX(ridge)) + 6, PLOT.left + w - 150), y: PLOT.top + h - 8, "class": "rk-ridge-label" },
      "critical intensity " + fmt(ridge));
    plot.appendChild(label);
  }

  /* One column per operation, one row per quantity: narrow enough for a book page. */
  var QUANTITIES = [
    ["flops", "FLOPs", fmt], ["bytes", "bytes moved", fmt],
    ["intensity", "intensity (FLOP/B)", fmt], ["attainable", "attainable FLOP/s", fmt],
    ["t_math", "T_math", fmtTime], ["t_comms", "T_comms", fmtTime],
    ["t_lower", "T_lower = max", fmtTime], ["t_upper", "T_upper = sum", fmtTime],
    ["bound", "bound", String],
    ["critical_batch", "critical batch, exact", fmt],
    ["critical_batch_approx", "critical batch, B ≪ D rule", fmt]
  ];

  function drawTable(table, rows) {
    while (table.firstChild) { table.removeChild(table.firstChild); }
    var thead = el("thead"), head = el("tr");
    head.appendChild(el("th", {}, ""));
    rows.forEach(function (row) {
      var th = el("th", { "data-op": row.key, title: row.label });
      th.appendChild(el("span", { "class": "rk-swatch", style: "background:" + row.color }));
      th.appendChild(document.createTextNode(row.short));
      head.appendChild(th);
    });
    thead.appendChild(head);
    table.appendChild(thead);
    var tbody = el("tbody");
    QUANTITIES.forEach(function (q) {
      var tr = el("tr", { "data-key": q[0] });
      tr.appendChild(el("th", { scope: "row" }, q[1]));
      rows.forEach(function (row) {
        var value = row[q[0]];
        var td = el("td", { "data-op": row.key, "data-key": q[0] }, q[2](value));
        if (typeof value === "number") { td.setAttribute("data-value", isFinite(value) ? String(value) : "inf"); }
        else if (value !== null && value !== undefined) { td.setAttribute("data-value", String(value)); }
        if (q[0] === "bound") { td.className = "rk-" + value; }
        tr.appendChild(td);
      });
      tbody.appendChild(tr);
    });
    table.appendChild(tbody);
  }

  function init(root) {
    if (root.getAttribute("data-ready") === "true") { return; }
    var data = JSON.parse(root.querySelector("script.rk-data").textContent);
    var grid = data.grid, initial = data.initial, id = root.id;
    var chips = {};
    grid.chips.forEach(function (c) { chips[c.id] = c; });
    var start = chips[initial.chip] || grid.chips[0];
    var state = {
      chip: start.id, peak: start.peak, bandwidth: start.bandwidth,
      iB: grid.B.indexOf(initial.B), iD: grid.D.indexOf(initial.D), ops: initial.operations.slice()
    };
    var ui = el("div", { "class": "rk-ui" });

    var chipWrap = el("div", { "class": "rk-control" });
    chipWrap.appendChild(el("label", { "for": id + "-chip" }, "chip"));
    var select = el("select", { id: id + "-chip", "data-control": "chip" });
    grid.chips.forEach(function (c) { select.appendChild(el("option", { value: c.id }, c.name)); });
    select.appendChild(el("option", { value: "custom" }, "custom (sliders)"));
    select.value = state.chip;
    chipWrap.appendChild(select);
    ui.appendChild(chipWrap);

    var peak = slider(id + "-peak", "peak " + grid.compute + " FLOP/s", log10(grid.peak_range[0]), log10(grid.peak_range[1]), 0.01, log10(state.peak));
    var bw = slider(id + "-bandwidth", "HBM bandwidth (B/s)", log10(grid.bandwidth_range[0]), log10(grid.bandwidth_range[1]), 0.01, log10(state.bandwidth));
    var batch = slider(id + "-batch", "batch B (tokens)", 0, grid.B.length - 1, 1, state.iB);
    var width = slider(id + "-width", "width D = F", 0, grid.D.length - 1, 1, state.iD);
    peak.input.setAttribute("data-control", "peak");
    bw.input.setAttribute("data-control", "bandwidth");
    batch.input.setAttribute("data-control", "batch");
    width.input.setAttribute("data-control", "width");
    [peak, bw, batch, width].forEach(function (s) { ui.appendChild(s.wrap); });

    var opsWrap = el("fieldset", { "class": "rk-ops" });
    opsWrap.appendChild(el("legend", {}, "operations"));
    grid.operations.forEach(function (op) {
      var boxId = id + "-op-" + op.key;
      var label = el("label", { "for": boxId });
      var box = el("input", { type: "checkbox", id: boxId, value: op.key, "data-control": "op" });
      box.checked = state.ops.indexOf(op.key) >= 0;
      label.appendChild(box);
      label.appendChild(el("span", { "class": "rk-swatch", style: "background:" + op.color }));
      label.appendChild(document.createTextNode(op.label));
      opsWrap.appendChild(label);
    });

    var summary = el("p", { "class": "rk-summary" });
    var plot = svg("svg", { id: id + "-plot", viewBox: "0 0 " + PLOT.width + " " + PLOT.height, "class": "rk-plot", role: "img", "aria-label": "roofline plot" });
    var table = el("table", { "class": "rk-table" });
    var scroll = el("div", { "class": "rk-table-wrap" });
    scroll.appendChild(table);

    function readout(key, value, text) {
      var span = el("span", { "data-key": key, "data-value": String(value) }, text);
      return span;
    }

    function update() {
      var rows = model(grid, state);
      peak.out.textContent = fmt(state.peak);
      bw.out.textContent = fmt(state.bandwidth);
      batch.out.textContent = String(grid.B[state.iB]);
      width.out.textContent = String(grid.D[state.iD]);
      while (summary.firstChild) { summary.removeChild(summary.firstChild); }
      summary.appendChild(document.createTextNode("peak "));
      summary.appendChild(readout("peak", state.peak, fmt(state.peak)));
      summary.appendChild(document.createTextNode(" FLOP/s, bandwidth "));
      summary.appendChild(readout("bandwidth", state.bandwidth, fmt(state.bandwidth)));
      summary.appendChild(document.createTextNode(" B/s: critical intensity "));
      summary.appendChild(readout("critical_intensity", state.peak / state.bandwidth, fmt(state.peak / state.bandwidth)));
      summary.appendChild(document.createTextNode(" FLOP/B. B = "));
      summary.appendChild(readout("B", grid.B[state.iB], String(grid.B[state.iB])));
      summary.appendChild(document.createTextNode(", D = F = "));
      summary.appendChild(readout("D", grid.D[state.iD], String(grid.D[state.iD])));
      summary.appendChild(document.createTextNode("."));
      drawPlot(plot, grid, state, rows);
      drawTable(table, rows);
      root.setAttribute("data-state", JSON.stringify({
        chip: state.chip, peak: state.peak, bandwidth: state.bandwidth,
        B: grid.B[state.iB], D: grid.D[state.iD], operations: state.ops
      }));
    }

    function fromSliders() {
      state.peak = roundSig(Math.pow(10, parseFloat(peak.input.value)), 3);
      state.bandwidth = roundSig(Math.pow(10, parseFloat(bw.input.value)), 3);
      var preset = chips[select.value];
      if (!preset || preset.peak !== state.peak || preset.bandwidth !== state.bandwidth) {
        state.chip = "custom";
        select.value = "custom";
      }
      update();
    }

    peak.input.addEventListener("input", fromSliders);
    bw.input.addEventListener("input", fromSliders);
    batch.input.addEventListener("input", function () { state.iB = parseInt(batch.input.value, 10); update(); });
    width.input.addEventListener("input", function () { state.iD = parseInt(width.input.value, 10); update(); });
    select.addEventListener("change", function () {
      var c = chips[select.value];
      if (!c) { state.chip = "custom"; return; }
      state.chip = c.id;
      state.peak = c.peak;
      state.bandwidth = c.bandwidth;
      peak.input.value = String(log10(c.peak));
      bw.input.value = String(log10(c.bandwidth));
      update();
    });
    opsWrap.addEventListener("change", function () {
      state.ops = grid.operations.map(function (op) { return op.key; }).filter(function (key) {
        return root.querySelector("#" + id + "-op-" + key).checked;
      });
      update();
    });

    root.appendChild(ui);
    root.appendChild(opsWrap);
    root.appendChild(summary);
    root.appendChild(plot);
    root.appendChild(scroll);
    var fallback = root.querySelector(".rk-noscript");
    if (fallback) { fallback.parentNode.removeChild(fallback); }
    update();
    root.setAttribute("data-ready", "true");
  }

  function initAll() {
    var roots = document.querySelectorAll(".rk-explorer");
    for (var i = 0; i < roots.length; i++) {
      try { init(roots[i]); } catch (err) {
        roots[i].setAttribute("data-error", String(err));
        throw err;
      }
    }
  }

  window.RooflineExplorer = { init: init, initAll: initAll, model: model, fmt: fmt, roundSig: roundSig };
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", initAll);
  } else {
    initAll();
  }
})();
