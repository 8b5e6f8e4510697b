/* A small stand-in for the browser's document, enough for the explorers' scripts
 * (rooflinekit/explorer/assets/*.js) to build their controls, plot and tables in node:
 * elements with attributes, children, text, event listeners and simple selectors ("tag",
 * ".class", "tag.class", "#id"). tests/support/explorer_words.js drives the scripts with it;
 * tests/book/test_browser.py drives them in chromium.
 */
"use strict";

class Node {
  constructor() { this.childNodes = []; this.parentNode = null; }
  get firstChild() { return this.childNodes[0] || null; }
  appendChild(child) {
    if (child.parentNode) { child.parentNode.removeChild(child); }
    child.parentNode = this;
    this.childNodes.push(child);
    return child;
  }
  insertBefore(child, before) {
    if (child.parentNode) { child.parentNode.removeChild(child); }
    const at = this.childNodes.indexOf(before);
    child.parentNode = this;
    this.childNodes.splice(at < 0 ? this.childNodes.length : at, 0, child);
    return child;
  }
  removeChild(child) {
    this.childNodes.splice(this.childNodes.indexOf(child), 1);
    child.parentNode = null;
    return child;
  }
  get textContent() { return this.childNodes.map((c) => c.textContent).join(""); }
  set textContent(text) {
    this.childNodes.forEach((c) => { c.parentNode = null; });
    this.childNodes = [];
    if (text !== "") { this.appendChild(new Text(String(text))); }
  }
}

class Text extends Node {
  constructor(data) { super(); this.data = data; }
  get textContent() { return this.data; }
  set textContent(text) { this.data = String(text); }
}

class Element extends Node {
  constructor(tag) {
    super();
    this.localName = tag;
    this.attributes = {};
    this.listeners = {};
    this.hidden = false;
    this.checked = false;
    this.value = "";
  }
  get tagName() { return this.localName.toUpperCase(); }
  get id() { return this.getAttribute("id") || ""; }
  get className() { return this.getAttribute("class") || ""; }
  set className(name) { this.setAttribute("class", name); }
  get options() { return this.childNodes.filter((c) => c.localName === "option"); }
  setAttribute(name, value) {
    this.attributes[name] = String(value);
    if (name === "value") { this.value = String(value); }  /* as an input's value reflects it */
  }
  getAttribute(name) { return name in this.attributes ? this.attributes[name] : null; }
  removeAttribute(name) { delete this.attributes[name]; }
  addEventListener(type, listener) { (this.listeners[type] = this.listeners[type] || []).push(listener); }
  /* What a reader's action does: `type` on this element, bubbling up to its ancestors. */
  dispatch(type) {
    for (let node = this; node; node = node.parentNode) {
      (node.listeners && node.listeners[type] || []).forEach((listener) => listener({ type, target: this }));
    }
  }
  getBoundingClientRect() { return { width: 660, height: 380, right: 660 }; }
  matches(selector) {
    const [, tag, id, cls] = /^([a-z]*)(?:#([\w-]+))?(?:\.([\w-]+))?$/.exec(selector) || [];
    return (!tag || this.localName === tag) && (!id || this.id === id)
      && (!cls || this.className.split(/\s+/).includes(cls));
  }
  querySelectorAll(selector) {
    const found = [];
    const walk = (node) => node.childNodes.forEach((c) => {
      if (c instanceof Element) {
        if (c.matches(selector)) { found.push(c); }
        walk(c);
      }
    });
    walk(this);
    return found;
  }
  querySelector(selector) { return this.querySelectorAll(selector)[0] || null; }
}

const document = {
  readyState: "complete",
  documentElement: new Element("html"),
  createElement: (tag) => new Element(tag),
  createElementNS: (_, tag) => new Element(tag),
  createTextNode: (text) => new Text(String(text)),
  querySelectorAll: () => [],
  addEventListener: () => {}
};

/* Every text a reader meets in `root`: its text (outside scripts and styles, hidden elements
 * left out) and its tooltips and labels for screen readers. */
function shownTexts(root) {
  const texts = [];
  const walk = (node) => node.childNodes.forEach((c) => {
    if (c instanceof Text) {
      if (c.data.trim()) { texts.push(c.data.trim()); }
    } else if (!["script", "style"].includes(c.localName) && !c.hidden) {
      ["title", "aria-label"].forEach((a) => { if (c.getAttribute(a)) { texts.push(c.getAttribute(a)); } });
      walk(c);
    }
  });
  walk(root);
  return texts;
}

module.exports = { document, Element, Text, shownTexts };
