// The graph as a tree of name scopes ("a/b/op" is op in scope b in scope a),
// and the graph that is visible when some scopes are expanded: a collapsed
// scope stands for every node under it, and edges are drawn between what is
// visible. A scope with more than MAX_CHILDREN children (a flat graph's root,
// say) is split into numbered runs of consecutive children, so no level of
// the view shows more than that many boxes.
"use strict";

const MAX_CHILDREN = 40;
// Weights and other constants are not drawn, nor nodes computed from
// constants alone (an Identity of a weight): a node's panel lists them among its inputs.
const HIDDEN_OPS = new Set(["Const", "Constant"]);

class ScopeTree {
  constructor(nodes) {
    this.nodes = nodes;
    this.groups = new Map(); // id -> {id, label, parent, children, ops, timeUs}
    this.nodeIndex = new Map(nodes.map((n, i) => [n.name, i]));
    this.parentOf = new Array(nodes.length); // node index -> group id
    this.expanded = new Set(["g:"]);
    this.group("g:", "", null);
    this.hidden = this.constants();
    nodes.forEach((node, i) => {
      if (this.hidden[i]) return;
      const parts = node.name.split("/").filter((p) => p !== "");
      let parent = "g:";
      for (let d = 0; d < parts.length - 1; d++) {
        const id = "g:" + parts.slice(0, d + 1).join("/");
        if (!this.groups.has(id)) this.groups.get(parent).children.push(this.group(id, parts[d], parent).id);
        parent = id;
      }
      this.groups.get(parent).children.push("n:" + i);
      this.parentOf[i] = parent;
    });
    for (const id of [...this.groups.keys()]) this.split(id);
    this.count("g:");
  }

  /** Per node: whether it is a constant or computed from constants alone. */
  constants() {
    const hidden = new Array(this.nodes.length).fill(false);
    let changed = true;
    while (changed) { // nodes are mostly in topological order: one or two passes
      changed = false;
      this.nodes.forEach((node, i) => {
        if (hidden[i]) return;
        const sources = node.inputs.filter((s) => s !== null).map((s) => this.nodeIndex.get(s.slice(0, s.lastIndexOf(":"))));
        const constant = HIDDEN_OPS.has(node.op) || (sources.length > 0 && sources.every((j) => j !== undefined && hidden[j]));
        if (constant) hidden[i] = changed = true;
      });
    }
    return hidden;
  }

  group(id, label, parent) {
    const group = { id, label, parent, children: [], ops: 0, timeUs: 0 };
    this.groups.set(id, group);
    return group;
  }

  /** Splits a scope's children into runs of at most MAX_CHILDREN (again while too many). */
  split(id) {
    const group = this.groups.get(id);
    let level = 0;
    while (group.children.length > MAX_CHILDREN) {
      const runs = [];
      for (let k = 0; k * MAX_CHILDREN < group.children.length; k++) {
        const members = group.children.slice(k * MAX_CHILDREN, (k + 1) * MAX_CHILDREN);
        const run = this.group(`${id}#${level}.${k}`, `${this.label(members[0])} … ${this.label(members[members.length - 1])}`, id);
        run.children = members;
        for (const m of members) this.setParent(m, run.id);
        runs.push(run.id);
      }
      group.children = runs;
      level++;
    }
  }

  setParent(member, parent) {
    if (member.startsWith("n:")) this.parentOf[Number(member.slice(2))] = parent;
    else this.groups.get(member).parent = parent;
  }

  label(member) {
    if (member.startsWith("g:")) return this.groups.get(member).label;
    const name = this.nodes[Number(member.slice(2))].name;
    return name.slice(name.lastIndexOf("/") + 1) || name;
  }

  count(id) {
    const group = this.groups.get(id);
    for (const child of group.children) {
      if (child.startsWith("g:")) {
        this.count(child);
        group.ops += this.groups.get(child).ops;
        group.timeUs += this.groups.get(child).timeUs;
      } else {
        const cost = this.nodes[Number(child.slice(2))].cost;
        group.ops += 1;
        group.timeUs += cost ? cost[0] : 0;
      }
    }
  }

  /** The scopes above member, outermost first (the root excluded). */
  ancestors(member) {
    const chain = [];
    let up = member.startsWith("n:") ? this.parentOf[Number(member.slice(2))] : this.groups.get(member).parent;
    while (up && up !== "g:") {
      chain.push(up);
      up = this.groups.get(up).parent;
    }
    return chain.reverse();
  }

  /** The visible box that stands for member: itself, or its outermost collapsed scope. */
  shownAs(member) {
    for (const id of this.ancestors(member)) if (!this.expanded.has(id)) return id;
    return member;
  }

  /** Expands every scope above member, so it is visible. */
  reveal(member) {
    for (const id of this.ancestors(member)) this.expanded.add(id);
  }

  /** Expands scopes breadth first while the view stays under `budget` boxes. */
  openTo(budget) {
    let shown = this.groups.get("g:").children.length;
    const queue = [...this.groups.get("g:").children];
    while (queue.length) {
      const id = queue.shift();
      if (!id.startsWith("g:")) continue;
      const children = this.groups.get(id).children;
      if (shown - 1 + children.length > budget) continue;
      this.expanded.add(id);
      shown += children.length - 1;
      queue.push(...children);
    }
  }

  /** What to draw: leaves (ops and collapsed scopes), expanded scopes as
   *  clusters with their parent, and the edges between leaves. */
  visible() {
    const leaves = [];
    const clusters = [];
    const walk = (id) => {
      for (const child of this.groups.get(id).children) {
        if (child.startsWith("g:") && this.expanded.has(child)) {
          clusters.push(child);
          walk(child);
        } else leaves.push(child);
      }
    };
    walk("g:");
    const edges = new Map();
    this.nodes.forEach((node, i) => {
      if (this.parentOf[i] === undefined) return; // hidden
      let target = null;
      for (const input of node.inputs) {
        if (input === null) continue;
        const source = this.nodeIndex.get(input.slice(0, input.lastIndexOf(":")));
        if (source === undefined || this.parentOf[source] === undefined) continue;
        target = target || this.shownAs("n:" + i);
        const from = this.shownAs("n:" + source);
        if (from !== target) edges.set(from + "\u0000" + target, [from, target]);
      }
    });
    return { leaves, clusters, edges: [...edges.values()] };
  }

  /** Nodes and scopes whose name or op type contains the text (case ignored). */
  search(text, limit) {
    const needle = text.toLowerCase();
    const found = [];
    for (let i = 0; i < this.nodes.length && found.length < limit; i++) {
      const node = this.nodes[i];
      if (this.parentOf[i] === undefined) continue;
      if (node.name.toLowerCase().includes(needle) || node.op.toLowerCase().includes(needle)) found.push("n:" + i);
    }
    for (const [id, group] of this.groups) {
      if (found.length >= limit) break;
      if (!id.includes("#") && id !== "g:" && id.slice(2).toLowerCase().includes(needle)) found.push(id);
    }
    return found;
  }
}
