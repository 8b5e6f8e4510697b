/* The kernel-free roofline explorer (rooflinekit.explorer.static).
 *
 * Each explorer is a <div class="rk-explorer"> holding a <script type="application/json">
 * with the data rooflinekit computed at build time: the FLOPs and bytes of every operation at
 * every (D, B) on the sliders, the catalog chips' figures and the element sizes of the
 * matmuls. This script applies the roofline to them for the peak and bandwidth on the sliders,
 * at the share of the peak chosen on the achieved control (the roof's peak is peak * share, as
 * rooflinekit.analysis.hardware(achieved=...) makes it):
 *   T_math = FLOPs / peak, T_comms = bytes / bandwidth, T_lower = max, T_upper = sum,
 *   intensity = FLOPs / bytes, attainable = min(peak, intensity * bandwidth),
 *   compute-bound when T_math > T_comms,
 *   critical batch of x[B,D].w[D,F]->out[B,F] (F = D), the B where T_math = T_comms, and the
 *   B << D rule, as rooflinekit.critical computes them,
 *   the plot's axes, fitted to the ridge and the shown operations at every batch
 *   (rooflinekit.explorer.model.plot_axes),
 *   and, under an on-chip memory level chosen on the level menu, the level's bandwidth and the
 *   bytes out of it in the tile menu's tiles (rooflinekit.explorer.model.on_level; no roof and
 *   no points under a level whose bandwidth no source gives),
 * and writes numbers as rooflinekit.fmt does. tests/rooflinekit/test_explorer_js.py runs this very file in
 * node over the sliders' whole grid and checks every number and text against rooflinekit;
 * tests/book/test_browser.py drags its sliders in chromium.
 * Its words are in English here, each passed through tr() (or marked N_() where it is written);
 * the page's data carries them in every language of the course (rooflinekit.explorer.labels)
 * and the explorer speaks the page's (<html lang>), or English where there is no translation.
 * No dependencies, no network. Defined once per page; every explorer on it is initialised.
 */
(function () {
  "use strict";
  var root = typeof window !== "undefined" ? window : globalThis;
  if (root.RooflineExplorer) {
    root.RooflineExplorer.initAll();
    return;
  }
  var SVG = "http://www.w3.org/2000/svg";
  /* The plot's frame in CSS pixels: the viewBox is as wide as the plot is drawn (at most 660),
   * so that its text keeps its size on a phone. */
  var PLOT = { width: 660, height: 380, left: 64, right: 14, top: 14, bottom: 50, least: 300 };

  function log10(x) { return Math.log(x) / Math.LN10; }

  /* Three significant digits, as a slider position is read. */
  function roundSig(x, digits) {
    var p = Math.pow(10, digits - 1 - Math.floor(log10(Math.abs(x))));
    return Math.round(x * p) / p;
  }

  var STEP = 0.01;  /* a peak or bandwidth slider's step, in decades */

  /* What the explorer says in place of a level's roof when no source gives its bandwidth
   * (rooflinekit.explorer.model.NO_ROOF). */
  var NO_ROOF = N_("{chip}: {level} has no bandwidth figure (no source in the catalog gives one): no roof is drawn for it, and no points under it.");

  /* The figure (peak or bandwidth) at a position of a log slider. */
  function sliderFigure(position) { return roundSig(Math.pow(10, position), 3); }

  /* Every figure a log slider over `range` can show, from one end to the other. */
  function sliderFigures(range) {
    var lo = log10(range[0]), hi = log10(range[1]), figures = [];
    for (var k = 0; lo + k * STEP <= hi; k++) { figures.push(sliderFigure(lo + k * STEP)); }
    return figures;
  }

  /* --- rooflinekit.fmt, ported: num, sci and seconds ------------------------------------ */

  /* The exact decimal digits of |x| (no exponent): what Python's formatting rounds from. */
  function exactDigits(x) {
    var a = Math.abs(x);
    return a >= 1e21 ? BigInt(a).toString() : a.toFixed(100);
  }

  /* The digit string `kept`, plus one unit in its last place if the digits after it (`rest`)
   * call for it: half to even, as Python's formatting rounds. */
  function roundHalfEven(kept, rest) {
    var tie = rest[0] === "5" && !/[1-9]/.test(rest.slice(1));
    var up = rest[0] > "5" || (rest[0] === "5" && !tie) || (tie && Number(kept[kept.length - 1]) % 2 === 1);
    return up ? (BigInt(kept) + 1n).toString().padStart(kept.length, "0") : kept;
  }

  function strip(text) {
    return text.indexOf(".") >= 0 ? text.replace(/0+$/, "").replace(/\.$/, "") : text;
  }

  /* rooflinekit.fmt._fixed: `digits` significant figures, never fewer than the integer part. */
  function fixed(x, digits) {
    if (x === 0) { return "0"; }
    var decimals = Math.max(0, digits - 1 - Math.floor(Math.log10(Math.abs(x))));
    var parts = exactDigits(x).split("."), fraction = parts[1] || "";
    var kept = parts[0] + (fraction + "0".repeat(decimals)).slice(0, decimals);
    var rounded = roundHalfEven(kept, fraction.slice(decimals));
    var whole = rounded.slice(0, rounded.length - decimals);
    var text = decimals ? whole + "." + rounded.slice(rounded.length - decimals) : whole;
    return (x < 0 ? "-" : "") + strip(text);
  }

  function special(x) { return x > 0 ? "inf" : (x < 0 ? "-inf" : "nan"); }

  /* rooflinekit.fmt.sci: exponent form, `digits` significant figures, e.g. 3.94e14, 1e-3. */
  function sci(x, digits) {
    if (!isFinite(x)) { return special(x); }
    if (x === 0) { return "0e0"; }
    var text = exactDigits(x), point = text.indexOf("."), all = text.replace(".", "");
    var first = all.search(/[1-9]/), exponent = (point < 0 ? text.length : point) - first - 1;
    var significant = all.slice(first);
    var kept = roundHalfEven((significant + "0".repeat(digits)).slice(0, digits), significant.slice(digits));
    if (kept.length > digits) {  /* 9.9996 -> 10.00: one more power of ten */
      kept = kept.slice(0, digits);
      exponent += 1;
    }
    return (x < 0 ? "-" : "") + strip(kept[0] + "." + kept.slice(1)) + "e" + exponent;
  }

  /* rooflinekit.fmt.num: fixed between 1e-3 and 1e6, exponent form outside. */
  function num(x, digits) {
    if (x === 0 || (Math.abs(x) >= 1e-3 && Math.abs(x) < 1e6)) { return fixed(x, digits); }
    return sci(x, digits);
  }

  var PREFIXES = [[-15, 1e-15, "f"], [-12, 1e-12, "p"], [-9, 1e-9, "n"], [-6, 1e-6, "µ"], [-3, 1e-3, "m"], [0, 1, ""],
    [3, 1e3, "k"], [6, 1e6, "M"], [9, 1e9, "G"], [12, 1e12, "T"], [15, 1e15, "P"], [18, 1e18, "E"]];

  /* rooflinekit.fmt.si */
  function si(x, unit, digits) {
    if (x === 0 || !isFinite(x)) { return num(x, digits) + " " + unit; }
    var e = 3 * Math.floor(Math.log10(Math.abs(x)) / 3);
    var i = Math.min(Math.max((e + 15) / 3, 0), PREFIXES.length - 1);
    var text = fixed(x / PREFIXES[i][1], digits);
    if (Math.abs(Number(text)) >= 1000 && i < PREFIXES.length - 1) {
      i += 1;
      text = fixed(x / PREFIXES[i][1], digits);
    }
    return text + " " + PREFIXES[i][2] + unit;
  }

  /* rooflinekit.fmt.seconds */
  function seconds(x, digits) {
    return isFinite(x) && Math.abs(x) >= 1 ? num(x, digits) + " s" : si(x, "s", digits);
  }

  /* A table cell, as the live explorer's: "-" where a figure does not apply, "never" where no
   * batch is enough. */
  function figure(x) {
    if (x === null || x === undefined) { return "-"; }
    return isFinite(x) ? num(x, 4) : "never";
  }

  function duration(t) { return seconds(t, 4); }

  /* --- the words: English here, in the page's language on screen ---------------------------- */

  /* A text marked where it is written, translated where it is shown. */
  function N_(text) { return text; }

  /* The explorer's language: the one it was asked for, else the page's (<html lang="ko-KR"> is
   * "ko"), else English. */
  function language(data) {
    var page = typeof document !== "undefined" && document.documentElement ? document.documentElement.lang : "";
    return String(data.initial.language || page || "en").toLowerCase().split("-")[0];
  }

  /* {name} placeholders filled from `values`. */
  function fill(template, values) {
    return template.replace(/\{(\w+)\}/g, function (all, name) {
      return Object.prototype.hasOwnProperty.call(values, name) ? String(values[name]) : all;
    });
  }

  /* What the explorer says in `lang` (English where the data has no words in it): `words`, the
   * texts rooflinekit wrote in that language, and `tr(text, values)`, this script's own. */
  function speaker(data, lang) {
    var words = data.words[lang] || data.words.en;
    return {
      words: words,
      tr: function (text, values) {
        var said = words.labels[text] || text;
        return values ? fill(said, values) : said;
      }
    };
  }

  /* `template` as nodes in `parent`: its text, and at each placeholder the node `nodes` gives. */
  function fillNodes(parent, template, nodes) {
    template.split(/(\{\w+\})/).forEach(function (part) {
      var name = /^\{(\w+)\}$/.exec(part);
      if (name && nodes[name[1]]) { parent.appendChild(nodes[name[1]]); }
      else if (part) { parent.appendChild(document.createTextNode(part)); }
    });
  }

  /* About how wide a line of the plot's 13 px text is: Hangul and other wide letters count twice. */
  function textWidth(line) {
    var width = 0;
    for (var i = 0; i < line.length; i++) { width += line.charCodeAt(i) >= 0x1100 ? 13 : 7; }
    return width;
  }

  /* --- the model: rooflinekit's numbers for the sliders' peak and bandwidth -------------------- */

  /* Critical batches of a matmul operation with F = D (rooflinekit.critical.exact_crossover and
   * rule_of_thumb). */
  function criticalBatch(sizes, D, peak, bw) {
    var den = 2 * D * D * bw - peak * (sizes.x * D + sizes.out * D);
    return den > 0 ? peak * sizes.w * D * D / den : Infinity;
  }

  function criticalBatchApprox(sizes, peak, bw) { return peak * sizes.w / (2 * bw); }

  /* The ridge: FLOPs per byte where math and memory take equally long (Hardware.critical_intensity). */
  function criticalIntensity(peak, bw) { return peak / bw; }

  /* Whether the state's roof is an on-chip level's: its bytes are then those out of that level,
   * the matmuls in tile x tile tiles (rooflinekit.explorer.model.Operation.level_bytes). */
  function onChip(state) { return Boolean(state.level) && state.level !== "hbm"; }

  /* The bandwidth of the chosen level's roof: HBM's (the slider's), an on-chip level's, or null
   * where no source gives it (no roof). */
  function roofBandwidth(state) { return onChip(state) ? state.levelBandwidth : state.bandwidth; }

  /* The roof the figures use: the peak at the chosen share of it (hardware(achieved=share)),
   * the chosen level's bandwidth and their ridge. */
  function roof(state) {
    var peak = state.peak * state.share, bw = roofBandwidth(state);
    return { peak: peak, bandwidth: bw, ridge: bw ? criticalIntensity(peak, bw) : null };
  }

  /* The bytes of operation `key` at the state's D (every batch): out of HBM, or out of the
   * chosen on-chip level in the state's tiles (the same where the operation has no reuse). */
  function bytesOf(grid, state, key) {
    var tiled = onChip(state) ? grid.level_bytes[String(state.tile)][key] : null;
    return (tiled || grid.bytes[key])[state.iD];
  }

  /* One operation of FLOPs and bytes placed on a roofline (rooflinekit.analysis.Roofline). */
  function place(flops, bytes, peak, bw) {
    var tMath = flops / peak, tComms = bytes / bw, intensity = flops / bytes;
    return {
      flops: flops, bytes: bytes, intensity: intensity,
      attainable: Math.min(peak, intensity * bw),
      t_math: tMath, t_comms: tComms,
      t_lower: Math.max(tMath, tComms), t_upper: tMath + tComms,
      bound: tMath > tComms ? "compute" : "memory"
    };
  }

  /* The table's rows: every shown operation at the state's D, B, peak, share and level (none
   * under a level without a roof; the critical batches, HBM's, only at HBM). */
  function model(grid, state) {
    var iD = state.iD, iB = state.iB, D = grid.D[iD];
    var peak = roof(state).peak, bw = roofBandwidth(state), hbm = !onChip(state);
    if (!bw) { return []; }
    return grid.operations.filter(function (op) { return state.ops.indexOf(op.key) >= 0; })
      .map(function (op) {
        var row = place(grid.flops[op.key][iD][iB], bytesOf(grid, state, op.key)[iB], peak, bw);
        row.key = op.key; row.color = op.color;
        row.critical_batch = op.matmul && hbm ? criticalBatch(op.matmul, D, peak, bw) : null;
        row.critical_batch_approx = op.matmul && hbm ? criticalBatchApprox(op.matmul, peak, bw) : null;
        return row;
      });
  }

  /* An axis showing low to high with a margin, two decades at least (model._reach). */
  function reach(grid, low, high) {
    low = low / grid.margin;
    high = high * grid.margin;
    if (high < low * grid.half_span * grid.half_span) {
      var middle = Math.sqrt(low * high);
      low = middle / grid.half_span;
      high = middle * grid.half_span;
    }
    return [low, high];
  }

  /* The plot's axes, fitted to the ridges (at the peak and at its share) and to the shown
   * operations at every batch on the slider, and the roofs over that range
   * (rooflinekit.explorer.model.plot_axes). */
  function plotAxes(grid, state) {
    if (!roofBandwidth(state)) { state = Object.assign({}, state, { level: "hbm" }); }  /* no roof: HBM's axes */
    var lower = roof(state), bw = lower.bandwidth;
    var ridge = criticalIntensity(state.peak, bw);
    var low = Math.min(lower.ridge, ridge), high = Math.max(lower.ridge, ridge);
    grid.operations.forEach(function (op) {
      if (state.ops.indexOf(op.key) < 0) { return; }
      var flops = grid.flops[op.key][state.iD], bytes = bytesOf(grid, state, op.key);
      for (var iB = 0; iB < grid.B.length; iB++) {
        var intensity = flops[iB] / bytes[iB];
        low = Math.min(low, intensity);
        high = Math.max(high, intensity);
      }
    });
    var intensity = reach(grid, low, high);
    return {
      intensity: intensity,
      attainable: reach(grid, Math.min(lower.peak, intensity[0] * bw), state.peak)
    };
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

  /* What a slider shows beside it, and what it tells a screen reader for its value: its position
   * is a logarithm or an index, never the figure. */
  function shows(control, text) {
    control.out.textContent = text;
    control.input.setAttribute("aria-valuetext", text);
  }

  function superscriptTick(node, exponent) {
    node.appendChild(svg("tspan", {}, "10"));
    node.appendChild(svg("tspan", { dy: "-0.5em", "font-size": "75%" }, String(exponent)));
  }

  /* The plot's frame for a plot drawn `width` CSS pixels wide. */
  function frame(width) {
    var w = Math.round(Math.min(PLOT.width, Math.max(PLOT.least, width || PLOT.width)));
    return { width: w, height: Math.round(Math.min(PLOT.height, Math.max(280, w * 0.8))) };
  }

  function drawPlot(plot, grid, state, rows, say) {
    var tr = say.tr;
    while (plot.firstChild) { plot.removeChild(plot.firstChild); }
    var size = frame(plot.getBoundingClientRect ? plot.getBoundingClientRect().width : 0);
    plot.setAttribute("viewBox", "0 0 " + size.width + " " + size.height);
    var fitted = plotAxes(grid, state);
    plot.setAttribute("data-axes", JSON.stringify(fitted));
    var x0 = log10(fitted.intensity[0]), x1 = log10(fitted.intensity[1]);
    var y0 = log10(fitted.attainable[0]), y1 = log10(fitted.attainable[1]);
    var w = size.width - PLOT.left - PLOT.right, h = size.height - PLOT.top - PLOT.bottom;
    function X(i) { return PLOT.left + (log10(i) - x0) / (x1 - x0) * w; }
    function Y(f) { return PLOT.top + (1 - (log10(f) - y0) / (y1 - y0)) * h; }
    var clip = "rk-clip-" + plot.id;
    var defs = svg("defs");
    var cp = svg("clipPath", { id: clip });
    cp.appendChild(svg("rect", { x: PLOT.left, y: PLOT.top, width: w, height: h }));
    defs.appendChild(cp);
    plot.appendChild(defs);
    var axes = svg("g", { "class": "rk-axes" });
    for (var e = Math.ceil(x0); e <= x1; e++) {
      axes.appendChild(svg("line", { x1: X(Math.pow(10, e)), x2: X(Math.pow(10, e)), y1: PLOT.top, y2: PLOT.top + h, "class": "rk-grid" }));
      var tx = svg("text", { x: X(Math.pow(10, e)), y: PLOT.top + h + 18, "text-anchor": "middle", "class": "rk-tick" });
      superscriptTick(tx, e);
      axes.appendChild(tx);
    }
    for (var f = Math.ceil(y0); f <= y1; f++) {
      axes.appendChild(svg("line", { x1: PLOT.left, x2: PLOT.left + w, y1: Y(Math.pow(10, f)), y2: Y(Math.pow(10, f)), "class": "rk-grid" }));
      var ty = svg("text", { x: PLOT.left - 6, y: Y(Math.pow(10, f)) + 4, "text-anchor": "end", "class": "rk-tick" });
      superscriptTick(ty, f);
      axes.appendChild(ty);
    }
    axes.appendChild(svg("rect", { x: PLOT.left, y: PLOT.top, width: w, height: h, "class": "rk-frame" }));
    axes.appendChild(svg("text", { x: PLOT.left + w / 2, y: size.height - 10, "text-anchor": "middle" },
      tr("arithmetic intensity (FLOPs per byte)")));
    axes.appendChild(svg("text", { x: 16, y: PLOT.top + h / 2, "text-anchor": "middle",
      transform: "rotate(-90 16 " + (PLOT.top + h / 2) + ")" }, tr("{compute} FLOP/s attainable", { compute: grid.compute })));
    plot.appendChild(axes);

    var body = svg("g", { "clip-path": "url(#" + clip + ")" });
    var used = roof(state), ridge = used.ridge, share = shareOf(grid, state.share);
    var atShare = share.value === 1 ? "" : tr("at {share} of peak", { share: share.percent });
    var lo = fitted.intensity[0], hi = fitted.intensity[1], bw = used.bandwidth;
    if (!bw) {
      /* A level no source gives a bandwidth for: no roof and no points; the note says why. */
      var none = tr("no roof: no source gives this level's bandwidth");
      plot.appendChild(svg("text", { x: PLOT.left + w / 2, y: PLOT.top + h / 2, "text-anchor": "middle",
        "class": "rk-no-roof" }, none));
      plot.setAttribute("aria-label", tr("roofline plot") + ": " + none);
      return;
    }
    function roofLine(peak, className) {
      var knee = criticalIntensity(peak, bw);
      var points = [[lo, Math.min(peak, lo * bw)], [knee, peak], [hi, peak]];
      body.appendChild(svg("polyline", {
        points: points.map(function (p) { return X(p[0]) + "," + Y(p[1]); }).join(" "),
        "class": className, "data-peak": String(peak), "data-bandwidth": String(bw), "data-level": state.level || "hbm"
      }));
    }
    roofLine(state.peak, "rk-roof");
    if (atShare) {
      /* The roof real kernels live under, dashed, each roof labelled at its right end. */
      roofLine(used.peak, "rk-roof rk-achieved-roof");
      plot.appendChild(svg("text", { x: PLOT.left + w - 4, y: Y(state.peak) - 5, "text-anchor": "end",
        "class": "rk-roof-label" }, tr("peak")));
      plot.appendChild(svg("text", { x: PLOT.left + w - 4, y: Y(used.peak) + 15, "text-anchor": "end",
        "class": "rk-roof-label rk-achieved-label" }, atShare));
    }
    body.appendChild(svg("line", { x1: X(ridge), x2: X(ridge), y1: PLOT.top, y2: PLOT.top + h, "class": "rk-ridge" }));
    var tips = rows.map(function (row) {
      var dot = svg("circle", { cx: X(row.intensity), cy: Y(row.attainable), r: 6, fill: row.color, "class": "rk-point", "data-op": row.key });
      var tip = tr("{operation}: {intensity} FLOP/B, {bound}-bound", {
        operation: say.words.operations[row.key].label, intensity: figure(row.intensity), bound: tr(row.bound)
      });
      dot.appendChild(svg("title", {}, tip));
      body.appendChild(dot);
      return tip;
    });
    plot.appendChild(body);
    /* The share, when there is one, on a line of its own below: a phone's plot is narrow. */
    var lines = [tr("critical intensity {ridge}", { ridge: figure(ridge) })].concat(atShare ? [atShare] : []);
    var longest = Math.max.apply(null, lines.map(textWidth));
    var label = svg("text", { y: PLOT.top + h - 8 - 15 * (lines.length - 1), "class": "rk-ridge-label" });
    /* Right of the ridge when it fits there, else left of it. */
    var right = X(ridge) + 6 + longest <= PLOT.left + w;
    var x = right ? X(ridge) + 6 : X(ridge) - 6;
    lines.forEach(function (line, i) {
      label.appendChild(svg("tspan", { x: x, dy: i ? 15 : 0 }, line));
    });
    label.setAttribute("text-anchor", right ? "start" : "end");
    plot.appendChild(label);
    /* What the plot shows, for a screen reader (it reads an image by its name): its ridge, the
     * roof it is taken under and each operation's point, in the words drawn on the plot. */
    plot.setAttribute("aria-label", tr("roofline plot") + ": " + [lines.join(" ")].concat(tips).join("; "));
  }

  /* One column per operation, one row per quantity: narrow enough for a book page. */
  var QUANTITIES = [
    ["flops", N_("FLOPs"), figure], ["bytes", N_("bytes moved"), figure],
    ["intensity", N_("intensity (FLOP/B)"), figure], ["attainable", N_("attainable FLOP/s"), figure],
    ["t_math", N_("T_math"), duration], ["t_comms", N_("T_comms"), duration],
    ["t_lower", N_("T_lower = max"), duration], ["t_upper", N_("T_upper = sum"), duration],
    ["bound", N_("bound"), String],
    ["critical_batch", N_("critical batch, exact"), figure],
    ["critical_batch_approx", N_("critical batch, B ≪ D rule"), figure]
  ];

  /* The rows whose figures depend on the peak: labelled with the share they are taken at. */
  var AT_SHARE = ["attainable", "t_math", "t_lower", "t_upper", "critical_batch", "critical_batch_approx"];

  /* The achieved control's choice at `share`: its value and its percentage ("80%"). */
  function shareOf(grid, share) {
    return grid.shares.filter(function (s) { return s.value === share; })[0] || { value: 1, percent: "100%" };
  }

  /* " at 80% of peak" (the library's words, in the data), or "" at 100%. */
  function shareNote(grid, words, share) {
    var index = grid.shares.indexOf(shareOf(grid, share));
    return index >= 0 ? words.shares[index].note : "";
  }

  function drawTable(table, rows, note, say) {
    while (table.firstChild) { table.removeChild(table.firstChild); }
    var thead = el("thead"), head = el("tr");
    head.appendChild(el("th", {}, ""));
    rows.forEach(function (row) {
      var named = say.words.operations[row.key];
      var th = el("th", { "data-op": row.key, title: named.label });
      th.appendChild(el("span", { "class": "rk-swatch", style: "background:" + row.color }));
      th.appendChild(document.createTextNode(named.short));
      head.appendChild(th);
    });
    thead.appendChild(head);
    table.appendChild(thead);
    var tbody = el("tbody");
    QUANTITIES.forEach(function (q) {
      var tr = el("tr", { "data-key": q[0] });
      tr.appendChild(el("th", { scope: "row" }, say.tr(q[1]) + (AT_SHARE.indexOf(q[0]) >= 0 ? note : "")));
      rows.forEach(function (row) {
        var value = row[q[0]];
        var text = q[0] === "bound" ? say.tr(value)
          : (typeof value === "number" && !isFinite(value) ? say.tr("never") : q[2](value));
        var td = el("td", { "data-op": row.key, "data-key": q[0] }, text);
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
    var lang = language(data), say = speaker(data, lang), tr = say.tr, words = say.words;
    var chips = {};
    grid.chips.forEach(function (c) { chips[c.id] = c; });
    var start = chips[initial.chip] || grid.chips[0];
    /* A chosen chip's figures are its own, exactly; a moved slider makes custom figures (three
     * significant digits), and "back to <chip>" returns to the last chip chosen. */
    var state = {
      chip: start.id, lastChip: start.id, peak: start.peak, bandwidth: start.bandwidth,
      share: initial.achieved === undefined ? 1 : initial.achieved,
      iB: grid.B.indexOf(initial.B), iD: grid.D.indexOf(initial.D), ops: initial.operations.slice(),
      level: initial.level || "hbm", tile: initial.tile || 128, levelBandwidth: null
    };
    var ui = el("div", { "class": "rk-ui" });

    var chipWrap = el("div", { "class": "rk-control" });
    chipWrap.appendChild(el("label", { "for": id + "-chip" }, tr("chip")));
    var select = el("select", { id: id + "-chip", "data-control": "chip" });
    grid.chips.forEach(function (c) { select.appendChild(el("option", { value: c.id }, c.name)); });
    select.appendChild(el("option", { value: "custom" }, tr("custom (sliders)")));
    select.value = state.chip;
    chipWrap.appendChild(select);
    var back = el("button", { type: "button", "data-control": "back", "class": "rk-back" });
    chipWrap.appendChild(back);
    ui.appendChild(chipWrap);

    var peak = slider(id + "-peak", tr("peak {compute} FLOP/s", { compute: grid.compute }), log10(grid.peak_range[0]), log10(grid.peak_range[1]), STEP, log10(state.peak));
    var bw = slider(id + "-bandwidth", tr("HBM bandwidth (B/s)"), log10(grid.bandwidth_range[0]), log10(grid.bandwidth_range[1]), STEP, log10(state.bandwidth));
    var batch = slider(id + "-batch", tr("batch B (tokens)"), 0, grid.B.length - 1, 1, state.iB);
    var width = slider(id + "-width", tr("width D = F"), 0, grid.D.length - 1, 1, state.iD);
    peak.input.setAttribute("data-control", "peak");
    bw.input.setAttribute("data-control", "bandwidth");
    batch.input.setAttribute("data-control", "batch");
    width.input.setAttribute("data-control", "width");
    [peak, bw, batch, width].forEach(function (s) { ui.appendChild(s.wrap); });

    /* The share of the peak real kernels reach: the chosen chip's typical shares are marked. */
    var shareWrap = el("div", { "class": "rk-control" });
    shareWrap.appendChild(el("label", { "for": id + "-achieved" }, tr("achieved share of the peak")));
    var shareSelect = el("select", { id: id + "-achieved", "data-control": "achieved" });
    grid.shares.forEach(function (s, i) {
      shareSelect.appendChild(el("option", { value: String(s.value) }, words.shares[i].label));
    });
    shareWrap.appendChild(shareSelect);
    ui.appendChild(shareWrap);

    /* The memory level whose roof is drawn: HBM and each on-chip level the chip's catalog entry
     * has (HBM alone for custom figures), and the matmuls' tile out of an on-chip level. */
    var levelWrap = el("div", { "class": "rk-control" });
    levelWrap.appendChild(el("label", { "for": id + "-level" }, tr("memory level")));
    var levelSelect = el("select", { id: id + "-level", "data-control": "level" });
    levelWrap.appendChild(levelSelect);
    ui.appendChild(levelWrap);
    var tileWrap = el("div", { "class": "rk-control" });
    tileWrap.appendChild(el("label", { "for": id + "-tile" }, tr("matmul tile")));
    var tileSelect = el("select", { id: id + "-tile", "data-control": "tile" });
    grid.tiles.forEach(function (b) { tileSelect.appendChild(el("option", { value: String(b) }, b + " x " + b)); });
    tileWrap.appendChild(tileSelect);
    ui.appendChild(tileWrap);

    /* The chip's levels (HBM's alone for custom figures), the chosen one kept where the chip has it. */
    function chipLevels() {
      return state.chip === "custom" ? [{ id: "hbm", name: "HBM", bandwidth: state.bandwidth, kind: null }]
        : chips[state.chip].levels;
    }

    function labelLevels() {
      var found = chipLevels(), names = state.chip === "custom" ? [tr("HBM")] : words.levels[state.chip];
      while (levelSelect.firstChild) { levelSelect.removeChild(levelSelect.firstChild); }
      found.forEach(function (lv, i) { levelSelect.appendChild(el("option", { value: lv.id }, names[i])); });
      var chosen = found.filter(function (lv) { return lv.id === state.level; })[0] || found[0];
      state.level = chosen.id;
      state.levelBandwidth = chosen.id === "hbm" ? null : chosen.bandwidth;
      levelSelect.value = chosen.id;
      tileSelect.value = String(state.tile);
      tileSelect.disabled = !onChip(state);
      return { level: chosen, name: names[found.indexOf(chosen)] };
    }

    /* What the explorer says of the chosen level's roof (rooflinekit.explorer.model.level_note). */
    function levelNote(chosen) {
      if (state.chip === "custom") { return tr("Custom figures have HBM's roof only: the on-chip levels are a catalog chip's."); }
      var chipName = chips[state.chip].name;
      if (!onChip(state)) {
        return chipLevels().length > 1 ? "" : tr("The catalog gives no on-chip memory level of {chip}: HBM's roof only.", { chip: chipName });
      }
      if (!chosen.level.bandwidth) { return tr(NO_ROOF, { chip: chipName, level: chosen.name }); }
      var kind = chosen.level.kind ? words.kinds[chosen.level.kind] || chosen.level.kind : "-";
      return tr("Roof of {level}: {bandwidth} B/s ({kind}), critical intensity {ridge} FLOP/B; the matmuls stream out of it in {tile} x {tile} tiles.", {
        level: chosen.name, bandwidth: num(chosen.level.bandwidth, 3), kind: kind, tile: state.tile, ridge: num(roof(state).ridge, 4)
      });
    }

    function labelShares() {
      var labels = state.chip === "custom" ? words.shares.map(function (s) { return s.label; })
        : words.share_labels[state.chip];
      for (var i = 0; i < grid.shares.length; i++) { shareSelect.options[i].textContent = labels[i]; }
      shareSelect.value = String(state.share);
    }

    var opsWrap = el("fieldset", { "class": "rk-ops" });
    opsWrap.appendChild(el("legend", {}, tr("operations")));
    grid.operations.forEach(function (op) {
      var boxId = id + "-op-" + op.key;
      var label = el("label", { "for": boxId });
      var box = el("input", { type: "checkbox", id: boxId, value: op.key, "data-control": "op" });
      box.checked = state.ops.indexOf(op.key) >= 0;
      label.appendChild(box);
      label.appendChild(el("span", { "class": "rk-swatch", style: "background:" + op.color }));
      label.appendChild(document.createTextNode(words.operations[op.key].label));
      opsWrap.appendChild(label);
    });

    var summary = el("p", { "class": "rk-summary" });
    var levelLine = el("p", { "class": "rk-level" });
    var plot = svg("svg", { id: id + "-plot", viewBox: "0 0 " + PLOT.width + " " + PLOT.height, "class": "rk-plot", role: "img", "aria-label": tr("roofline plot") });
    var table = el("table", { "class": "rk-table" });
    /* A box that scrolls sideways on a phone: a keyboard reaches it (tabindex) to scroll it too. */
    var scroll = el("div", { "class": "rk-table-wrap", tabindex: "0", role: "region",
      "aria-label": tr("figures of the operations") });
    scroll.appendChild(table);

    function readout(key, value, text) {
      var span = el("span", { "data-key": key, "data-value": String(value) }, text);
      return span;
    }

    function update() {
      labelShares();
      var chosen = labelLevels();
      var rows = model(grid, state), note = shareNote(grid, words, state.share);
      var used = roof(Object.assign({}, state, { level: "hbm" }));  /* the caption's figures are HBM's */
      shows(peak, figure(state.peak));
      shows(bw, figure(state.bandwidth));
      shows(batch, String(grid.B[state.iB]));
      shows(width, String(grid.D[state.iD]));
      back.textContent = tr("back to {chip}", { chip: chips[state.lastChip].name });
      back.hidden = state.chip !== "custom";
      while (summary.firstChild) { summary.removeChild(summary.firstChild); }
      var source = state.chip === "custom" ? tr("custom (sliders)") : tr("{chip} (catalog)", { chip: chips[state.chip].name });
      var caption = note
        ? tr("{source}: peak {peak} FLOP/s, bandwidth {bandwidth} B/s; at {share} of peak: {achieved_peak} FLOP/s, critical intensity {critical_intensity} FLOP/B. B = {B}, D = F = {D}.")
        : tr("{source}: peak {peak} FLOP/s, bandwidth {bandwidth} B/s: critical intensity {critical_intensity} FLOP/B. B = {B}, D = F = {D}.");
      fillNodes(summary, caption, {
        source: readout("source", state.chip, source),
        peak: readout("peak", state.peak, figure(state.peak)),
        bandwidth: readout("bandwidth", state.bandwidth, figure(state.bandwidth)),
        share: document.createTextNode(shareOf(grid, state.share).percent),
        achieved_peak: readout("achieved_peak", used.peak, figure(used.peak)),
        critical_intensity: readout("critical_intensity", used.ridge, figure(used.ridge)),
        B: readout("B", grid.B[state.iB], String(grid.B[state.iB])),
        D: readout("D", grid.D[state.iD], String(grid.D[state.iD]))
      });
      levelLine.textContent = levelNote(chosen);
      levelLine.setAttribute("data-level", state.level);
      levelLine.hidden = !levelLine.textContent;
      drawPlot(plot, grid, state, rows, say);
      drawTable(table, rows, note, say);
      root.setAttribute("data-state", JSON.stringify({
        chip: state.chip, peak: state.peak, bandwidth: state.bandwidth, achieved: state.share,
        B: grid.B[state.iB], D: grid.D[state.iD], operations: state.ops, level: state.level,
        level_bandwidth: roofBandwidth(state), tile: state.tile
      }));
    }

    /* Only the reader moves a slider (an input event): the figures become the sliders'. */
    function fromSliders() {
      state.peak = sliderFigure(parseFloat(peak.input.value));
      state.bandwidth = sliderFigure(parseFloat(bw.input.value));
      state.chip = "custom";
      select.value = "custom";
      update();
    }

    function choose(id) {
      var c = chips[id];
      state.chip = state.lastChip = c.id;
      state.peak = c.peak;
      state.bandwidth = c.bandwidth;
      select.value = c.id;
      peak.input.value = String(log10(c.peak));
      bw.input.value = String(log10(c.bandwidth));
      update();
    }

    peak.input.addEventListener("input", fromSliders);
    bw.input.addEventListener("input", fromSliders);
    batch.input.addEventListener("input", function () { state.iB = parseInt(batch.input.value, 10); update(); });
    width.input.addEventListener("input", function () { state.iD = parseInt(width.input.value, 10); update(); });
    select.addEventListener("change", function () {
      if (chips[select.value]) { choose(select.value); } else { select.value = state.chip; }
    });
    back.addEventListener("click", function () { choose(state.lastChip); });
    shareSelect.addEventListener("change", function () { state.share = parseFloat(shareSelect.value); update(); });
    levelSelect.addEventListener("change", function () { state.level = levelSelect.value; update(); });
    tileSelect.addEventListener("change", function () { state.tile = parseInt(tileSelect.value, 10); update(); });
    opsWrap.addEventListener("change", function () {
      state.ops = grid.operations.map(function (op) { return op.key; }).filter(function (key) {
        return root.querySelector("#" + id + "-op-" + key).checked;
      });
      update();
    });

    root.appendChild(ui);
    root.appendChild(opsWrap);
    root.appendChild(summary);
    root.appendChild(levelLine);
    root.appendChild(plot);
    root.appendChild(scroll);
    root.setAttribute("lang", words === data.words[lang] ? lang : "en");
    var fallbacks = root.querySelectorAll(".rk-noscript");
    for (var f = 0; f < fallbacks.length; f++) { fallbacks[f].parentNode.removeChild(fallbacks[f]); }
    update();
    /* Redrawn at its new width when the page's column changes (a phone turned, a sidebar). */
    if (typeof ResizeObserver !== "undefined") {
      var drawnAt = frame(plot.getBoundingClientRect().width).width;
      new ResizeObserver(function () {
        var now = frame(plot.getBoundingClientRect().width).width;
        if (now !== drawnAt) { drawnAt = now; drawPlot(plot, grid, state, model(grid, state), say); }
      }).observe(plot);
    }
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

  root.RooflineExplorer = {
    init: init, initAll: initAll, model: model, roof: roof, roofBandwidth: roofBandwidth, place: place, plotAxes: plotAxes, criticalBatch: criticalBatch,
    criticalBatchApprox: criticalBatchApprox, criticalIntensity: criticalIntensity,
    sliderFigure: sliderFigure, sliderFigures: sliderFigures,
    num: num, sci: sci, si: si, seconds: seconds, figure: figure, language: language, speaker: speaker
  };
  if (typeof document === "undefined") { return; }  /* node, in tests/rooflinekit/test_explorer_js.py */
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", initAll);
  } else {
    initAll();
  }
})();
