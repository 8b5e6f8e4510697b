/* Runs the static explorer's script (rooflinekit/explorer/assets/explorer.js) in node over the
 * sliders' grid and writes what it computes, for tests/rooflinekit/test_explorer_js.py to check against
 * rooflinekit.
 *
 *   node explorer_grid.js SCRIPT GRID.json CASES.json OUT_DIR
 *
 * GRID.json is rooflinekit.explorer.model.grid_data(); CASES.json says which peak and bandwidth
 * positions get whole tables (at 100% of the peak, and at every share of the achieved control
 * on a coarser lattice and for the chips) and which numbers to format. OUT_DIR receives:
 *   figures.json  the peak and bandwidth slider figures, the table cases ([peak, bandwidth,
 *                 share]), the critical intensity of each, the formatted texts;
 *   chip.f64      for every peak x every bandwidth x every D: per matmul operation the exact
 *                 critical batch and the B << D rule, then the critical intensity;
 *   rows.f64      for every table case x every D x every B x every operation: the row's numbers;
 *   axes.f64      for every table case x every D x every set of operations shown (CASES.json's
 *                 "shown", subsets of the operations): the plot's intensity and attainable ranges.
 */
"use strict";
const fs = require("fs");
const path = require("path");
const [script, gridPath, casesPath, outDir] = process.argv.slice(2);
require(path.resolve(script));
const E = globalThis.RooflineExplorer;
const grid = JSON.parse(fs.readFileSync(gridPath, "utf8"));
const cases = JSON.parse(fs.readFileSync(casesPath, "utf8"));

const peaks = E.sliderFigures(grid.peak_range);
const bandwidths = E.sliderFigures(grid.bandwidth_range);
const matmuls = grid.operations.filter((op) => op.matmul);

// Every position of the peak slider with every position of the bandwidth slider, every D.
const perPair = grid.D.length * matmuls.length * 2 + 1;
const chip = new Float64Array(peaks.length * bandwidths.length * perPair);
let at = 0;
for (const peak of peaks) {
  for (const bw of bandwidths) {
    for (const D of grid.D) {
      for (const op of matmuls) {
        chip[at++] = E.criticalBatch(op.matmul, D, peak, bw);
        chip[at++] = E.criticalBatchApprox(op.matmul, peak, bw);
      }
    }
    chip[at++] = E.criticalIntensity(peak, bw);
  }
}

// Whole tables (every D, every B, every operation) for the chip presets at every share, a
// lattice of slider pairs at 100% and a coarser one at every other share.
const shares = grid.shares.map((s) => s.value);
const pairs = [];
for (const c of grid.chips) {
  for (const share of shares) { pairs.push([c.peak, c.bandwidth, share]); }
}
for (const i of cases.peak_positions) {
  for (const j of cases.bandwidth_positions) { pairs.push([peaks[i], bandwidths[j], 1]); }
}
for (const i of cases.share_peak_positions) {
  for (const j of cases.share_bandwidth_positions) {
    for (const share of shares.filter((s) => s !== 1)) { pairs.push([peaks[i], bandwidths[j], share]); }
  }
}
const ridges = pairs.map(([peak, bandwidth, share]) => E.roof({ peak, bandwidth, share }).ridge);
const FIELDS = ["intensity", "attainable", "t_math", "t_comms", "t_lower", "t_upper", "bound",
  "critical_batch", "critical_batch_approx"];
const all = grid.operations.map((op) => op.key);
const rows = new Float64Array(pairs.length * grid.D.length * grid.B.length * all.length * FIELDS.length);
at = 0;
for (const [peak, bandwidth, share] of pairs) {
  for (let iD = 0; iD < grid.D.length; iD++) {
    for (let iB = 0; iB < grid.B.length; iB++) {
      for (const row of E.model(grid, { iD, iB, peak, bandwidth, share, ops: all })) {
        for (const field of FIELDS) {
          const value = row[field];
          rows[at++] = field === "bound" ? (value === "compute" ? 1 : 0) : (value === null ? NaN : value);
        }
      }
    }
  }
}

// The plot's axes for every table pair, every D and every set of operations shown.
const axes = new Float64Array(pairs.length * grid.D.length * cases.shown.length * 4);
at = 0;
for (const [peak, bandwidth, share] of pairs) {
  for (let iD = 0; iD < grid.D.length; iD++) {
    for (const ops of cases.shown) {
      const fitted = E.plotAxes(grid, { iD, iB: 0, peak, bandwidth, share, ops });
      axes.set([...fitted.intensity, ...fitted.attainable], at);
      at += 4;
    }
  }
}

const texts = cases.numbers.map((x) => [E.num(x, 4), E.num(x, 3), E.sci(x, 4), E.seconds(x, 4), E.figure(x)]);
fs.writeFileSync(path.join(outDir, "chip.f64"), Buffer.from(chip.buffer));
fs.writeFileSync(path.join(outDir, "rows.f64"), Buffer.from(rows.buffer));
fs.writeFileSync(path.join(outDir, "axes.f64"), Buffer.from(axes.buffer));
fs.writeFileSync(path.join(outDir, "figures.json"),
  JSON.stringify({ peaks, bandwidths, pairs, ridges, fields: FIELDS, texts }));
