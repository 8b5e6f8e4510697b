/* Runs both kernel-free explorers (rooflinekit/explorer/assets/explorer.js and transformer.js,
 * the very files the book's pages carry) in node on a stand-in document (fake_dom.js), once per
 * page language, does what a reader does (chooses a chip, a share of the peak, drags a slider,
 * presses "back to", switches the phase, lengthens the context) and writes what each view shows
 * after each step, for tests/rooflinekit/test_explorer_js.py to check against rooflinekit.
 *
 *   node explorer_words.js EXPLORER_JS TRANSFORMER_JS EXPLORER.json TRANSFORMER.json LANGS OUT.json
 *
 * EXPLORER.json and TRANSFORMER.json are the data the pages embed; LANGS is "en,ko".
 */
"use strict";
const fs = require("fs");
const path = require("path");
const { document, Element, shownTexts } = require("./fake_dom.js");

globalThis.document = document;
const [explorerJs, transformerJs, explorerData, transformerData, langs, outPath] = process.argv.slice(2);
require(path.resolve(explorerJs));
require(path.resolve(transformerJs));
const E = globalThis.RooflineExplorer;
const V = globalThis.RooflineTransformerView;

function element(tag, attrs, text) {
  const node = new Element(tag);
  Object.keys(attrs).forEach((k) => node.setAttribute(k, attrs[k]));
  if (text !== undefined) { node.textContent = text; }
  return node;
}

function page(kind, id, dataClass, data, extra) {
  const root = element("div", { "class": kind, id });
  root.appendChild(element("script", { type: "application/json", "class": dataClass }, JSON.stringify(data)));
  extra.forEach((child) => root.appendChild(child));
  root.appendChild(element("p", { "class": "rk-noscript" }, "This view needs JavaScript."));
  return root;
}

function texts(node, selector) { return node.querySelectorAll(selector).map((e) => e.textContent); }

function explorerSeen(root) {
  return {
    texts: shownTexts(root),
    state: JSON.parse(root.getAttribute("data-state")),
    summary: root.querySelector("p.rk-summary").textContent,
    shares: root.querySelector("#" + root.id + "-achieved").options.map((o) => o.textContent),
    rows: texts(root.querySelector("tbody"), "th"),
    lang: root.getAttribute("lang")
  };
}

function transformerSeen(root) {
  return {
    texts: shownTexts(root),
    state: JSON.parse(root.getAttribute("data-state")),
    title: root.querySelector(".rk-tv-title").textContent,
    message: root.querySelector(".rk-tv-message").hidden ? "" : root.querySelector(".rk-tv-message").textContent,
    header: texts(root.querySelector("thead"), "th"),
    rows: root.querySelector("tbody").querySelectorAll("tr").map((tr) => tr.childNodes.map((c) => c.textContent)),
    summary: texts(root, "dd"),
    plots: root.querySelectorAll("div.rk-tv-plot").map((p) => p.getAttribute("lang")),
    lang: root.getAttribute("lang")
  };
}

function act(control, value, type) {
  control.value = value;
  control.dispatch(type);
}

const out = {};
const roofline = JSON.parse(fs.readFileSync(explorerData, "utf8"));
const transformer = JSON.parse(fs.readFileSync(transformerData, "utf8"));
for (const lang of langs.split(",")) {
  document.documentElement.lang = lang;
  const seen = out[lang] = { explorer: [], transformer: [] };

  const x = page("rk-explorer", "x-" + lang, "rk-data", roofline, []);
  E.init(x);
  const control = (name) => x.querySelector("#" + x.id + "-" + name);
  seen.explorer.push(explorerSeen(x));
  act(control("chip"), "h100-sxm", "change");
  seen.explorer.push(explorerSeen(x));
  act(control("achieved"), "0.85", "change");
  seen.explorer.push(explorerSeen(x));
  act(control("peak"), "15", "input");
  seen.explorer.push(explorerSeen(x));
  x.querySelector("button").dispatch("click");
  seen.explorer.push(explorerSeen(x));

  const plots = langs.split(",").map((l) => {
    const plot = element("div", { "class": "rk-tv-plot rk-by-page", lang: l });
    plot.appendChild(element("svg", {}));
    return plot;
  });
  const t = page("rk-transformer", "t-" + lang, "rk-tv-data", transformer,
    [element("p", { "class": "rk-tv-title" }, "")].concat(plots));
  V.init(t);
  seen.transformer.push(transformerSeen(t));
  t.querySelectorAll("input").filter((i) => i.value === "prefill")[0].dispatch("change");
  act(t.querySelector("#" + t.id + "-batch"), "6", "input");
  seen.transformer.push(transformerSeen(t));
  t.querySelectorAll("input").filter((i) => i.value === "calibrated")[0].dispatch("change");
  seen.transformer.push(transformerSeen(t));
  act(t.querySelector("#" + t.id + "-context"), "10", "input");
  seen.transformer.push(transformerSeen(t));
}
fs.writeFileSync(outPath, JSON.stringify(out));
