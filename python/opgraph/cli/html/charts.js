// The report's charts as SVG: the memory timeline (arena over steps, the
// largest tensors numbered and named), time by op type, and the roofline
// (each op at the intensity of the memory link that times it, as the PNG).
"use strict";

const BOUND_COLORS = { cube: "#2d6cdf", vector: "#2e9e44", memory: "#e67e22", overhead: "#888", ai_cpu: "#d33" };

function linear(d0, d1, r0, r1) {
  const k = d1 > d0 ? (r1 - r0) / (d1 - d0) : 0;
  return (v) => r0 + (v - d0) * k;
}

function axisText(x, y, text, anchor) {
  return svg("text", { x, y, "text-anchor": anchor || "middle" }, text);
}

/** Live bytes per step, the arena and its bound, the largest buffers as boxes. */
function memoryChart(m, onName) {
  const W = 960, H = 340, L = 70, R = 20, T = 14, B = 36;
  const top = Math.max(m.arena, m.lower_bound, 1) * 1.06;
  const firstStep = m.boxes.length ? Math.min(...m.boxes.map((b) => b[3])) : 0;
  const x = linear(firstStep, Math.max(m.live.length, firstStep + 1), L, W - R);
  const y = linear(0, top, H - B, T);
  const chart = svg("svg", { class: "chart", id: "memory-chart", width: W, height: H, viewBox: `0 0 ${W} ${H}` });
  const biggest = m.boxes.length ? m.boxes[0][1] : 1;
  m.boxes.forEach(([name, size, offset, first, last], k) => {
    const shade = 35 + 50 * (1 - Math.log2(Math.max(size, 1)) / Math.log2(Math.max(biggest, 2)));
    const box = svg("rect", { x: x(first), y: y(offset + size), width: Math.max(x(last + 1) - x(first), 0.5), height: Math.max(y(offset) - y(offset + size), 0.5), fill: `hsl(150, 45%, ${shade}%)`, stroke: "#fff", "stroke-width": 0.3 });
    if (name !== null) box.append(svg("title", {}, `${name}: ${fmtBytes(size)}, steps ${first}–${last}`));
    chart.append(box);
  });
  // Steps before the first buffer (constants, inputs) hold nothing: the curve starts there.
  const live = m.live.slice(firstStep).map((v, k) => {
    const s = firstStep + k;
    return `${k ? "L" : "M"}${x(s).toFixed(1)},${y(v).toFixed(1)} L${x(s + 1).toFixed(1)},${y(v).toFixed(1)}`;
  }).join(" ");
  chart.append(svg("path", { d: live, fill: "none", stroke: "#e67e22", "stroke-width": 1.2 }));
  for (const [value, color, dash] of [[m.arena, "#000", ""], [m.lower_bound, "#c33", "5 3"]]) {
    chart.append(svg("line", { x1: L, x2: W - R, y1: y(value), y2: y(value), stroke: color, "stroke-dasharray": dash }));
  }
  const named = m.boxes.filter((b) => b[0] !== null);
  named.forEach(([, size, offset, first, last], k) => {
    const cx = (x(first) + x(last + 1)) / 2, cy = (y(offset) + y(offset + size)) / 2;
    chart.append(svg("circle", { cx, cy, r: 7, fill: "#fff", opacity: 0.9 }), axisText(cx, cy + 4, String(k + 1)));
  });
  chart.append(axisText(L - 6, y(top / 1.06) + 4, fmtBytes(top / 1.06), "end"), axisText(L - 6, H - B + 4, "0", "end"),
    axisText((L + W - R) / 2, H - 8, `step (nodes in schedule order), ${firstStep}–${m.live.length}`),
    svg("line", { x1: L, x2: L, y1: T, y2: H - B, stroke: "#999" }), svg("line", { x1: L, x2: W - R, y1: H - B, y2: H - B, stroke: "#999" }));
  const legend = el("ol", { class: "legend", id: "memory-legend" }, ...named.map(([name, size, , first, last]) => {
    const link = el("a", { href: "#graph-section" }, name);
    link.addEventListener("click", () => onName(name));
    return el("li", {}, link, ` — ${fmtBytes(size)}, steps ${first}–${last}`);
  }));
  const key = el("p", {}, `arena ${fmtBytes(m.arena)} (black, ${m.strategy}); lower bound ${fmtBytes(m.lower_bound)} (red dashes); live bytes (orange); boxes: buffers (step span × address span), darker is larger; weights ${fmtBytes(m.weights)}, inputs + outputs ${fmtBytes(m.io)}.`);
  return el("div", {}, key, chart, el("p", {}, "Largest tensors:"), legend);
}

/** Horizontal bars: time per op type. */
function opTypeChart(cost) {
  const rows = cost.by_op_type;
  const W = 720, rowH = 18, L = 160, H = rows.length * rowH + 10;
  const most = Math.max(...rows.map((r) => r[1]), 1e-9);
  const chart = svg("svg", { class: "chart", id: "op-type-chart", width: W, height: H });
  rows.forEach(([type, us], i) => {
    const yy = 4 + i * rowH;
    chart.append(axisText(L - 6, yy + 12, type, "end"),
      svg("rect", { x: L, y: yy, width: ((W - L - 110) * us) / most, height: rowH - 4, fill: "#2d6cdf" }),
      axisText(L + ((W - L - 110) * us) / most + 6, yy + 12, fmtUs(us), "start"));
  });
  return chart;
}

/** Log-log roofline: one ceiling per link, points coloured by bound. */
function rooflineChart(roof, onName) {
  const W = 720, H = 420, L = 70, R = 20, T = 14, B = 40;
  const pts = roof.points;
  const ridges = roof.links.map(([, bw]) => roof.peak / bw);
  const xs = pts.map((p) => p[3]).concat(ridges), ys = pts.map((p) => p[4]).concat([roof.peak]);
  const lx0 = Math.log10(Math.min(...xs) / 4), lx1 = Math.log10(Math.max(...xs) * 4);
  const ly0 = Math.log10(Math.min(...ys) / 4), ly1 = Math.log10(roof.peak * 2);
  const x = (v) => linear(lx0, lx1, L, W - R)(Math.log10(v));
  const y = (v) => linear(ly0, ly1, H - B, T)(Math.log10(v));
  const chart = svg("svg", { class: "chart", id: "roofline-chart", width: W, height: H });
  chart.append(svg("rect", { x: L, y: T, width: W - L - R, height: H - T - B, fill: "none", stroke: "#999" }));
  for (let e = Math.ceil(lx0); e <= lx1; e++) chart.append(axisText(x(10 ** e), H - B + 14, `1e${e}`));
  for (let e = Math.ceil(ly0); e <= ly1; e++) chart.append(axisText(L - 4, y(10 ** e) + 4, `1e${e}`, "end"));
  roof.links.forEach(([link, bw], i) => {
    const from = 10 ** lx0, ridge = ridges[i];
    chart.append(svg("path", { d: `M${x(from)},${y(Math.max(from * bw, 10 ** ly0))} L${x(ridge)},${y(roof.peak)} L${x(10 ** lx1)},${y(roof.peak)}`, fill: "none", stroke: "#000", "stroke-dasharray": link === "L2" ? "6 3" : "" }),
      axisText(x(ridge), y(roof.peak) - 4 + 14 * i, `${link} ridge ${Math.round(ridge)} FLOP/B`, i ? "start" : "end"));
  });
  for (const [name, bound, link, ix, ach] of pts) {
    const cx = x(ix), cy = y(ach), color = BOUND_COLORS[bound] || "#888";
    const mark = link === "L2"
      ? svg("path", { d: `M${cx},${cy - 5} L${cx + 4.5},${cy + 3.5} L${cx - 4.5},${cy + 3.5} z`, fill: color, opacity: 0.8 })
      : svg("circle", { cx, cy, r: 3.5, fill: color, opacity: 0.8 });
    mark.append(svg("title", {}, `${name}: ${bound}-bound, ${fmtNum(ix)} FLOP per ${link} byte, ${fmtNum(ach)} FLOP/s`));
    mark.addEventListener("click", () => onName(name));
    chart.append(mark);
  }
  chart.append(axisText((L + W - R) / 2, H - 8, "FLOP per byte of the link bounding memory time (● off-chip, ▲ L2)"));
  const key = el("p", {}, ...Object.entries(BOUND_COLORS).map(([b, c]) => el("span", { style: `color:${c}; margin-right:10px` }, `● ${b}`)));
  return el("div", {}, chart, key);
}
