// DOM and number helpers shared by the report's scripts. Every string from the
// model reaches the page through text nodes (el/svg children are text), never
// as markup.
"use strict";

const SVG_NS = "http://www.w3.org/2000/svg";

function fill(node, attrs, children) {
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value !== undefined && value !== null) node.setAttribute(key, String(value));
  }
  for (const child of children) {
    if (child === null || child === undefined) continue;
    node.appendChild(typeof child === "object" ? child : document.createTextNode(String(child)));
  }
  return node;
}

/** An HTML element: el("td", {class: "x"}, "text", otherNode). */
function el(tag, attrs, ...children) {
  return fill(document.createElement(tag), attrs, children);
}

/** An SVG element, as el. */
function svg(tag, attrs, ...children) {
  return fill(document.createElementNS(SVG_NS, tag), attrs, children);
}

function fmtBytes(n) {
  if (n === null || n === undefined || n < 0) return "–";
  const units = [["GiB", 2 ** 30], ["MiB", 2 ** 20], ["KiB", 2 ** 10]];
  for (const [unit, scale] of units) if (n >= scale) return `${(n / scale).toFixed(2)} ${unit}`;
  return `${n} B`;
}

function fmtUs(us) {
  if (us === null || us === undefined) return "–";
  return us >= 1000 ? `${(us / 1000).toFixed(3)} ms` : `${us.toFixed(2)} µs`;
}

function fmtNum(x) {
  if (x === null || x === undefined) return "–";
  return Math.abs(x) >= 1e4 ? x.toExponential(2) : String(Math.round(x * 100) / 100);
}

function fmtShape(dims) {
  return "[" + dims.map((d) => (d === -1 ? "?" : d === -2 ? "??" : d)).join(",") + "]";
}

/** A table: headers, then rows of cells (strings or nodes). */
function table(headers, rows, attrs) {
  const head = el("tr", {}, ...headers.map((h) => el("th", {}, h)));
  return el("table", attrs || { class: "table" }, head, ...rows.map((r) => el("tr", {}, ...r.map((c) => (c instanceof Node && c.tagName === "TD" ? c : el("td", {}, c))))));
}
