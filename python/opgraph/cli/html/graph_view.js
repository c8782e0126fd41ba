// The graph view: dagre lays out what ScopeTree.visible() returns (expanded
// scopes as dagre clusters, via setParent), and this draws it as SVG with pan
// (drag) and zoom (wheel). Clicking a collapsed scope expands it, a cluster's
// title bar collapses it, an op selects it (onSelect).
"use strict";

const BOX_HEIGHT = 36;
const CHAR_WIDTH = 6.6;
const BAR_HEIGHT = 16;
const MIN_FIT_SCALE = 0.6;

class GraphView {
  constructor(svgElement, tree, onSelect) {
    this.svg = svgElement;
    this.tree = tree;
    this.onSelect = onSelect;
    this.scale = 1;
    this.tx = 0;
    this.ty = 0;
    this.selected = null;
    this.found = new Set();
    this.positions = new Map();
    this.viewport = svg("g", { class: "viewport" });
    const marker = svg("marker", { id: "arrow", viewBox: "0 0 10 10", refX: 10, refY: 5, markerWidth: 6, markerHeight: 6, orient: "auto-start-reverse" },
      svg("path", { d: "M 0 0 L 10 5 L 0 10 z", fill: "#889" }));
    this.svg.append(svg("defs", {}, marker), this.viewport);
    this.listen();
  }

  boxLabel(member) {
    if (member.startsWith("n:")) {
      const node = this.tree.nodes[Number(member.slice(2))];
      return [node.op, this.tree.label(member)];
    }
    const group = this.tree.groups.get(member);
    return [group.label, `${group.ops} op${group.ops === 1 ? "" : "s"}${group.timeUs > 0 ? ", " + fmtUs(group.timeUs) : ""}`];
  }

  /** Lays out and draws the visible graph; returns the layout time in ms. */
  render() {
    const started = performance.now();
    const shown = this.tree.visible();
    const g = new dagre.graphlib.Graph({ compound: true });
    g.setGraph({ rankdir: "TB", nodesep: 18, ranksep: 28, marginx: 20, marginy: 20 });
    g.setDefaultEdgeLabel(() => ({}));
    for (const id of shown.clusters) g.setNode(id, { label: this.tree.groups.get(id).label });
    for (const id of shown.leaves) {
      const lines = this.boxLabel(id);
      const width = Math.min(260, Math.max(...lines.map((l) => l.length)) * CHAR_WIDTH + 16);
      g.setNode(id, { width, height: BOX_HEIGHT });
    }
    for (const id of [...shown.clusters, ...shown.leaves]) {
      const parent = id.startsWith("n:") ? this.tree.parentOf[Number(id.slice(2))] : this.tree.groups.get(id).parent;
      if (parent && parent !== "g:") g.setParent(id, parent);
    }
    for (const [from, to] of shown.edges) g.setEdge(from, to);
    dagre.layout(g);
    this.draw(g, shown);
    this.layoutMs = performance.now() - started;
    return this.layoutMs;
  }

  draw(g, shown) {
    this.viewport.replaceChildren();
    this.positions.clear();
    for (const id of shown.clusters) {
      const box = g.node(id);
      const x = box.x - box.width / 2, y = box.y - box.height / 2;
      this.viewport.append(svg("g", { class: "cluster", "data-id": id },
        svg("rect", { class: "box", x, y, width: box.width, height: box.height }),
        svg("rect", { class: "bar", x, y, width: box.width, height: BAR_HEIGHT }),
        svg("text", { x: x + 4, y: y + 12 }, `▾ ${this.tree.groups.get(id).label}`)));
      this.positions.set(id, box);
    }
    for (const edge of g.edges()) {
      const points = g.edge(edge).points;
      const d = points.map((p, i) => `${i ? "L" : "M"}${p.x.toFixed(1)},${p.y.toFixed(1)}`).join(" ");
      this.viewport.append(svg("path", { class: "edge", d, "marker-end": "url(#arrow)" }));
    }
    for (const id of shown.leaves) {
      const box = g.node(id);
      const [top, bottom] = this.boxLabel(id);
      const isOp = id.startsWith("n:");
      const cost = isOp ? this.tree.nodes[Number(id.slice(2))].cost : null;
      const classes = [isOp ? "op" : "scope"];
      if (cost) classes.push("bound-" + cost[1]);
      if (this.found.has(id)) classes.push("found");
      if (this.selected === id) classes.push("selected");
      const x = box.x - box.width / 2, y = box.y - box.height / 2;
      this.viewport.append(svg("g", { class: classes.join(" "), "data-id": id },
        svg("title", {}, isOp ? this.tree.nodes[Number(id.slice(2))].name : this.tree.groups.get(id).id.slice(2)),
        svg("rect", { x, y, width: box.width, height: box.height, rx: isOp ? 3 : 8 }),
        svg("text", { class: "kind", x: x + 6, y: y + 14 }, clip(top, box.width)),
        svg("text", { x: x + 6, y: y + 29 }, clip(bottom, box.width))));
      this.positions.set(id, box);
    }
    const graph = g.graph();
    this.extent = { width: graph.width || 1, height: graph.height || 1 };
  }

  listen() {
    let drag = null;
    this.svg.addEventListener("pointerdown", (e) => {
      drag = { x: e.clientX, y: e.clientY, tx: this.tx, ty: this.ty, moved: false };
    });
    this.svg.addEventListener("pointermove", (e) => {
      if (!drag) return;
      const dx = e.clientX - drag.x, dy = e.clientY - drag.y;
      if (Math.abs(dx) + Math.abs(dy) > 3) drag.moved = true;
      if (drag.moved) this.moveTo(drag.tx + dx, drag.ty + dy, this.scale);
    });
    this.svg.addEventListener("pointerleave", () => { drag = null; });
    this.svg.addEventListener("pointerup", (e) => {
      const wasDrag = drag && drag.moved;
      drag = null;
      if (!wasDrag) this.click(e.target);
    });
    this.svg.addEventListener("wheel", (e) => {
      e.preventDefault();
      const rect = this.svg.getBoundingClientRect();
      const px = e.clientX - rect.left, py = e.clientY - rect.top;
      const scale = Math.min(4, Math.max(0.02, this.scale * Math.exp(-e.deltaY * 0.0015)));
      const k = scale / this.scale;
      this.moveTo(px - (px - this.tx) * k, py - (py - this.ty) * k, scale);
    }, { passive: false });
  }

  click(target) {
    const box = target.closest("[data-id]");
    if (!box) return;
    const id = box.getAttribute("data-id");
    if (box.classList.contains("cluster")) this.collapse(id);
    else if (box.classList.contains("scope")) this.expand(id);
    else this.select(id);
  }

  expand(id) {
    this.tree.expanded.add(id);
    this.render();
    this.centerOn(id);
  }

  collapse(id) {
    for (const other of [...this.tree.expanded]) {
      if (other === id || this.tree.ancestors(other).includes(id)) this.tree.expanded.delete(other);
    }
    this.render();
    this.centerOn(id);
  }

  select(id) {
    this.selected = id;
    for (const box of this.viewport.querySelectorAll(".selected")) box.classList.remove("selected");
    const box = this.viewport.querySelector(`[data-id="${CSS.escape(id)}"]`);
    if (box) box.classList.add("selected");
    this.onSelect(id);
  }

  /** Makes member visible, centres on it, and selects it (an op) or marks it. */
  show(member) {
    this.tree.reveal(member);
    this.found = new Set([member]);
    this.render();
    this.centerOn(member);
    if (member.startsWith("n:")) this.select(member);
  }

  moveTo(tx, ty, scale) {
    this.tx = tx;
    this.ty = ty;
    this.scale = scale;
    this.viewport.setAttribute("transform", `translate(${tx},${ty}) scale(${scale})`);
  }

  centerOn(id) {
    const box = this.positions.get(id);
    if (!box) return this.fit();
    const rect = this.svg.getBoundingClientRect();
    const scale = Math.max(this.scale, MIN_FIT_SCALE);
    // A box taller than the view (a large expanded scope) shows its top, where its inputs enter.
    const top = box.height * scale > rect.height ? box.y - box.height / 2 - 20 / scale : null;
    this.moveTo(rect.width / 2 - box.x * scale, top === null ? rect.height / 2 - box.y * scale : -top * scale, scale);
  }

  /** The whole graph in view, or, when that would make it unreadable, its top at a readable size. */
  fit() {
    const rect = this.svg.getBoundingClientRect();
    const whole = Math.min(1.2, rect.width / this.extent.width, rect.height / this.extent.height);
    const scale = Math.max(whole, MIN_FIT_SCALE);
    const ty = scale > whole ? 0 : (rect.height - this.extent.height * scale) / 2;
    this.moveTo((rect.width - this.extent.width * scale) / 2, ty, scale);
  }
}

function clip(text, width) {
  const chars = Math.floor((width - 10) / CHAR_WIDTH);
  return text.length <= chars ? text : text.slice(0, Math.max(1, chars - 1)) + "…";
}
