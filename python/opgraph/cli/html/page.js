// Wires the report: reads the embedded data, builds the scope tree and the
// graph view, the node panel, search, charts and tables. window.opgraphReport
// exposes the view and timings (the browser test reads them).
"use strict";

const INITIAL_BOXES = 40;
const SEARCH_LIMIT = 50;

function nodePanel(node) {
  const tensorRows = [];
  const cost = node.cost;
  const facts = [
    ["op type", node.op],
    ["origin op type", node.origin || "–"],
    ["estimated time", cost ? fmtUs(cost[0]) : "–", "time"],
    ["bound", cost ? cost[1] : "–", "bound"],
    ["FLOPs", cost ? fmtNum(cost[2]) : "–"],
    ["off-chip bytes", cost ? fmtBytes(cost[3]) : "–"],
  ];
  if (cost && cost[4]) facts.push(["fused into", cost[4]]);
  if (cost && cost[5]) facts.push(["note", cost[5]]);
  const inputs = node.inputs.map((input, i) => {
    if (input === null) return [String(i), "(none)", "", "", ""];
    const producer = report.tree.nodes[report.tree.nodeIndex.get(input.slice(0, input.lastIndexOf(":")))];
    const t = producer && producer.outputs[Number(input.slice(input.lastIndexOf(":") + 1))];
    return t ? [String(i), t.name, t.dtype, `${fmtShape(t.shape)} ${t.format}`, `${fmtShape(t.storage_shape)} ${t.storage_format}`] : [String(i), input, "", "", ""];
  });
  const outputs = node.outputs.map((t, i) => {
    const m = t.memory;
    return [String(i), t.dtype, `${fmtShape(t.shape)} ${t.format}`, `${fmtShape(t.storage_shape)} ${t.storage_format}`,
      el("td", { "data-field": "offset" }, m && m[1] !== null && m[1] >= 0 ? String(m[1]) : "–"),
      m ? fmtBytes(m[0]) : "–", m ? `${m[2]}–${m[3]}` : "–", m ? m[4] + (m[5] ? ` (view of ${m[5]})` : "") : "–"];
  });
  const attrs = Object.entries(node.attrs);
  return [
    el("h3", {}, node.name),
    table(["", ""], facts.map(([k, v, field]) => [k, el("td", { "data-field": field || k }, v)])),
    el("h4", {}, "Inputs"),
    table(["#", "tensor", "dtype", "origin shape, format", "storage shape, format"], inputs),
    el("h4", {}, "Outputs"),
    table(["#", "dtype", "origin shape, format", "storage shape, format", "offset", "size", "steps", "region"], outputs),
    el("h4", {}, "Attributes"),
    attrs.length ? table(["name", "value"], attrs) : el("p", { class: "hint" }, "none"),
  ];
}

function scopePanel(group) {
  const types = new Map();
  const stack = [group.id];
  while (stack.length) {
    for (const child of report.tree.groups.get(stack.pop()).children) {
      if (child.startsWith("g:")) stack.push(child);
      else {
        const op = report.tree.nodes[Number(child.slice(2))].op;
        types.set(op, (types.get(op) || 0) + 1);
      }
    }
  }
  const rows = [...types].sort((a, b) => b[1] - a[1]).map(([t, n]) => [t, String(n)]);
  return [el("h3", {}, group.id.slice(2) || "(graph)"), el("p", {}, `${group.ops} ops, ${fmtUs(group.timeUs)}`), table(["op type", "count"], rows)];
}

function showPanel(id) {
  const panel = document.getElementById("node-panel");
  const parts = id.startsWith("n:") ? nodePanel(report.tree.nodes[Number(id.slice(2))]) : scopePanel(report.tree.groups.get(id));
  panel.replaceChildren(...parts);
}

function showByName(name) {
  const node = report.tree.nodeIndex.get(name) ?? report.tree.nodeIndex.get(name.slice(0, name.lastIndexOf(":")));
  if (node !== undefined) {
    document.getElementById("graph-section").scrollIntoView();
    report.view.show("n:" + node);
  }
}

function setupSearch() {
  const box = document.getElementById("search");
  const list = document.getElementById("search-results");
  box.addEventListener("input", () => {
    const text = box.value.trim();
    if (!text) { list.hidden = true; return; }
    const found = report.tree.search(text, SEARCH_LIMIT);
    list.replaceChildren(...found.map((id) => {
      const label = id.startsWith("n:") ? `${report.tree.nodes[Number(id.slice(2))].name} — ${report.tree.nodes[Number(id.slice(2))].op}` : `${id.slice(2)} (scope)`;
      const row = el("div", { "data-id": id }, label);
      row.addEventListener("click", () => { list.hidden = true; report.view.show(id); if (!id.startsWith("n:")) showPanel(id); });
      return row;
    }));
    if (!found.length) list.replaceChildren(el("div", {}, "no node matches"));
    list.hidden = false;
  });
}

function setupCharts(data) {
  const memory = document.getElementById("memory");
  memory.replaceChildren(data.memory ? memoryChart(data.memory, showByName) : el("p", { class: "hint" }, "No memory plan (see the warnings)."));
  const cost = document.getElementById("cost");
  if (data.cost) {
    const c = data.cost;
    cost.replaceChildren(el("p", {}, `${c.device} (${c.precision}): ${fmtUs(c.total_us)} single stream, critical path ${fmtUs(c.critical_path_us)}, ${c.task_count} tasks.`),
      el("h3", {}, "Time by op type"), opTypeChart(c),
      el("h3", {}, "Roofline"), c.roofline ? rooflineChart(c.roofline, showByName) : el("p", { class: "hint" }, "No device preset to draw the ceilings from."));
  } else cost.replaceChildren(el("p", { class: "hint" }, "No cost estimate (see the warnings)."));
  const profiles = document.getElementById("profiles");
  profiles.replaceChildren(data.profiles.length
    ? table(["profile", "arena", "lower bound", "weights", "inputs + outputs", "time", "throughput (/s)"],
      data.profiles.map((p) => [p.label ?? `batch ${p.batch}`, fmtBytes(p.arena_bytes), fmtBytes(p.lower_bound_bytes), fmtBytes(p.weights_bytes), fmtBytes(p.io_bytes), fmtUs(p.total_us), fmtNum(p.throughput)]), { class: "table", id: "profiles-table" })
    : el("p", { class: "hint" }, "No profiles: compile with --batch-sizes (ATC: --dynamic_batch_size, --dynamic_image_size, --dynamic_dims) to get one per profile."));
  const messages = document.getElementById("messages");
  messages.replaceChildren(
    el("ul", {}, ...data.warnings.map((w) => el("li", { class: "warning" }, w))),
    data.errors.length ? table(["kind", "node", "op type", "message"], data.errors.map((e) => [e.kind, e.node || "–", e.op_type || "–", e.message])) : el("p", {}, "No errors."),
  );
  if (!data.warnings.length) messages.prepend(el("p", {}, "No warnings."));
}

const report = {};

function main() {
  const started = performance.now();
  const data = JSON.parse(document.getElementById("report-data").textContent);
  const m = data.model;
  document.getElementById("title").textContent = `${m.name} — opgraph ${m.opgraph_version}`;
  const totals = data.memory_totals ? `, arena ${fmtBytes(data.memory_totals.arena_bytes)}` : "";
  const time = data.cost ? `, ${fmtUs(data.cost.total_us)}` : "";
  document.getElementById("summary").textContent = `${m.path} (${m.framework}) on ${m.soc}, ${m.precision_mode}: ${m.node_count} nodes${totals}${time}`;
  report.tree = new ScopeTree(data.nodes);
  report.tree.openTo(INITIAL_BOXES);
  report.view = new GraphView(document.getElementById("graph"), report.tree, showPanel);
  report.view.render();
  report.view.fit();
  setupSearch();
  document.getElementById("fit").addEventListener("click", () => report.view.fit());
  document.getElementById("collapse-all").addEventListener("click", () => {
    report.tree.expanded = new Set(["g:"]);
    report.view.render();
    report.view.fit();
  });
  setupCharts(data);
  report.loadMs = performance.now() - started;
  document.getElementById("graph-status").textContent = `${data.nodes.length} nodes in ${report.tree.groups.size - 1} scopes; laid out in ${Math.round(report.view.layoutMs)} ms`;
  report.ready = true;
  window.opgraphReport = report;
}

main();
