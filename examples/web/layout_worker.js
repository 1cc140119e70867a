// The graph view's Web Worker (a classic script): it holds the model's graph structure and, for
// each view the page asks for, chooses what to show and lays it out with @dagrejs/dagre, so that
// the page's main thread only draws the result.
//
// What it shows (at most `budget` boxes, whatever the model's size):
//   - nodes are grouped by the hierarchy of their names (exporters write /model/layers.3/mlp/Mul):
//     a collapsed group is one box; expanded groups are drawn as clusters around their members;
//   - by default groups are expanded level by level while the view stays under budget/2 boxes
//     (an LLM export shows its layers as one chain of boxes; a flat graph shows its nodes);
//   - the focus (a node, a value, a group) has its groups expanded;
//   - when more boxes than the budget remain, the view is the neighbourhood of the focus, found
//     breadth first; boxes with hidden neighbours say how many.
//
//   page → worker  {type: 'graph', json}       the structure (worker.js makes it, see graphJson)
//                  {type: 'view', id, scope, expanded, focus, budget}
//   worker → page  {type: 'view', id, scope, items, edges, clusters, width, height, stats}
//                  {type: 'error', id, message}
//
// The layout library is loaded from the repository's node_modules when the page is served, and is
// part of this script's text in the single-file build (examples/web/build.mjs).
/* global dagre, importScripts */
'use strict';

if (typeof dagre === 'undefined') importScripts('../../node_modules/@dagrejs/dagre/dist/dagre.min.js');

let graph = null; // { scopes: Map(path -> scope), shapes: {key: text} }

// Section - The structure

/**
 * Indexes of one graph (the model's or a body): its nodes, who writes and reads each value, the
 * bodies each node opens, and each node's name prefixes (built on first use).
 */
function indexScope(s, children) {
  const n = s.nodes.length;
  const producer = new Map();
  const consumers = new Map();
  for (let i = 0; i < n; i++) {
    const [, , , ins, outs] = s.nodes[i];
    for (const k of outs) if (k !== null && !producer.has(k)) producer.set(k, i);
    for (const k of ins) {
      if (k === null) continue;
      const l = consumers.get(k);
      if (l) { if (l[l.length - 1] !== i) l.push(i); } else consumers.set(k, [i]);
    }
  }
  return { ...s, producer, consumers, children: children.get(s.path) ?? new Map(), prefixes: null };
}

/** "/model/layers.3/mlp/Mul_1" → ['model', 'model/layers.3', 'model/layers.3/mlp']. */
function prefixesOf(name) {
  const parts = name.split('/').filter(Boolean);
  const out = [];
  for (let k = 1; k < parts.length; k++) out.push(parts.slice(0, k).join('/'));
  return out;
}

function loadGraph(json) {
  const data = JSON.parse(json);
  const children = new Map(); // parent path -> Map(node index -> [{path, attribute}])
  for (const s of data.scopes) {
    if (s.parent === null) continue;
    let m = children.get(s.parent);
    if (!m) children.set(s.parent, (m = new Map()));
    let l = m.get(s.node);
    if (!l) m.set(s.node, (l = []));
    l.push({ path: s.path, attribute: s.attribute });
  }
  graph = { scopes: new Map(data.scopes.map((s) => [s.path, indexScope(s, children)])), shapes: data.shapes ?? {} };
}

// Section - What to show

/** The item (box) node i is drawn in: its outermost collapsed group, or the node itself. */
function itemOfNode(s, i, expanded) {
  for (const p of s.prefixes[i]) if (!expanded.has(p)) return `g:${p}`;
  return `n:${i}`;
}

/** Groups expanded by default: whole levels, while the boxes stay under `limit` (and at least
 *  until there are a few boxes to see). */
function autoExpand(s, limit) {
  const n = s.nodes.length;
  const count = (exp) => {
    const boxes = new Set();
    for (let i = 0; i < n && boxes.size <= limit; i++) boxes.add(itemOfNode(s, i, exp));
    return boxes.size;
  };
  let expanded = new Set();
  let boxes = count(expanded);
  for (let depth = 0; depth < 64; depth++) {
    const next = new Set(expanded);
    for (let i = 0; i < n; i++) {
      const pre = s.prefixes[i];
      if (depth < pre.length && (depth === 0 || expanded.has(pre[depth - 1]))) next.add(pre[depth]);
    }
    if (next.size === expanded.size) break;
    const nextBoxes = count(next);
    if (nextBoxes > limit && boxes >= 8) break;
    expanded = next;
    boxes = nextBoxes;
    if (boxes > limit) break;
  }
  return expanded;
}

/** Most boxes one box may feed with drawn edges (see layoutView). */
const FANOUT = 8;

/** Text width in px of `chars` characters at the page's box fonts (monospace-ish estimate). */
const textWidth = (chars, px) => Math.ceil(chars * px * 0.62);

function layoutView({ scope: path, expanded: given, focus, budget, mark = -1 }) {
  const t0 = performance.now();
  const s = graph.scopes.get(path);
  if (!s) throw new Error(`no graph ${path}`);
  s.prefixes ??= s.nodes.map((nd) => prefixesOf(nd[0]));
  const n = s.nodes.length;
  const expanded = given ? new Set(given) : autoExpand(s, Math.max(8, budget >> 1));
  // The focus's groups are open.
  let focusNode = -1;
  if (focus?.node !== undefined && focus.node >= 0 && focus.node < n) focusNode = focus.node;
  else if (focus?.key !== undefined) focusNode = s.producer.get(focus.key) ?? s.consumers.get(focus.key)?.[0] ?? -1;
  if (focusNode >= 0) for (const p of s.prefixes[focusNode]) expanded.add(p);
  if (focus?.group) for (const p of [...prefixesOf(`${focus.group}/x`)]) expanded.add(p);

  // Items: node or group boxes, graph inputs and outputs as pills.
  const items = new Map();
  const itemOf = new Array(n);
  for (let i = 0; i < n; i++) {
    const id = itemOfNode(s, i, expanded);
    itemOf[i] = id;
    let it = items.get(id);
    if (!it) {
      it = id[0] === 'n'
        ? { id, kind: 'node', node: i, order: i }
        : { id, kind: 'group', prefix: id.slice(2), count: 0, order: i, ops: new Map() };
      items.set(id, it);
    }
    if (it.kind === 'group') {
      it.count++;
      const op = s.nodes[i][1];
      it.ops.set(op, (it.ops.get(op) ?? 0) + 1);
    }
  }
  const isLocal = (k) => path === '' || k.startsWith(path);
  const inputs = new Set(s.inputs.filter((k) => k !== null));
  const pill = (kind, key, order) => {
    const id = `${kind}:${key}`;
    if (!items.has(id)) items.set(id, { id, kind, key, order });
    return id;
  };
  // Edges between items, one per pair, with the values they carry.
  const edges = new Map();
  const link = (from, to, key) => {
    if (from === to) return;
    const id = `${from}\u0000${to}`;
    const e = edges.get(id);
    if (!e) edges.set(id, { from, to, key, keys: [key], all: new Set([key]), count: 1 });
    else if (!e.all.has(key)) {
      e.all.add(key);
      e.count++;
      if (e.keys.length < 4) e.keys.push(key);
    }
  };
  // Graph inputs and outputs are pills beside the node boxes that read or write them; a collapsed
  // group counts its own instead (an LLM export's 2 x 32 cache inputs would crowd the overview).
  const ioOf = (id) => { const it = items.get(id); it.io ??= { in: 0, out: 0 }; return it.io; };
  for (let i = 0; i < n; i++) {
    const grouped = itemOf[i][0] === 'g';
    for (const k of s.nodes[i][3]) {
      if (k === null) continue;
      const p = s.producer.get(k);
      if (p !== undefined) link(itemOf[p], itemOf[i], k);
      else if (inputs.has(k) || !isLocal(k)) {
        // A graph input, or a value of an enclosing graph.
        if (grouped) ioOf(itemOf[i]).in++;
        else link(pill(inputs.has(k) ? 'in' : 'outer', k, -1), itemOf[i], k);
      }
      // (initializers are not drawn: their shapes are in the node's details)
    }
  }
  for (const k of s.outputs) {
    if (k === null) continue;
    const p = s.producer.get(k);
    if (p === undefined) continue;
    if (itemOf[p][0] === 'g') ioOf(itemOf[p]).out++;
    else link(itemOf[p], pill('out', k, n), k);
  }
  for (const k of inputs) if (!s.consumers.has(k)) pill('in', k, -1);

  // A box that feeds more than FANOUT others (an LLM's position tables and mask feed every layer)
  // gets no edges to them: drawn, they would tie every layer to it and turn the chain of layers
  // into a fan. Its readers get a mark instead.
  const targets = new Map();
  for (const e of edges.values()) targets.set(e.from, (targets.get(e.from) ?? 0) + 1);
  for (const e of edges.values()) e.shared = targets.get(e.from) > FANOUT;
  // Too many boxes: the neighbourhood of the focus, breadth first.
  const adj = new Map();
  for (const e of edges.values()) {
    if (e.shared) continue;
    (adj.get(e.from) ?? adj.set(e.from, []).get(e.from)).push(e.to);
    (adj.get(e.to) ?? adj.set(e.to, []).get(e.to)).push(e.from);
  }
  let shown = items;
  let start = focusNode >= 0 ? itemOf[focusNode] : focus?.group && items.has(`g:${focus.group}`) ? `g:${focus.group}` : null;
  if (items.size > budget) {
    start ??= n ? itemOf[0] : [...items.keys()][0];
    const seen = new Set([start]);
    let frontier = [start];
    while (frontier.length && seen.size < budget) {
      const next = [];
      for (const id of frontier) {
        for (const nb of adj.get(id) ?? []) {
          if (seen.size >= budget) break;
          if (!seen.has(nb)) { seen.add(nb); next.push(nb); }
        }
      }
      frontier = next;
    }
    shown = new Map([...seen].map((id) => [id, items.get(id)]));
  }
  // Hidden neighbours per shown box.
  for (const it of shown.values()) { it.hiddenIn = 0; it.hiddenOut = 0; it.sharedIn = []; it.sharedOut = 0; }
  const shownEdges = [];
  for (const e of edges.values()) {
    const a = shown.get(e.from);
    const b = shown.get(e.to);
    if (e.shared) {
      if (a) a.sharedOut++;
      if (b && b.sharedIn.length < 6) b.sharedIn.push({ from: e.from, key: e.key, shown: !!a });
    } else if (a && b) shownEdges.push(e);
    else if (a) a.hiddenOut++;
    else if (b) b.hiddenIn++;
  }

  // Box sizes and texts.
  const out = [];
  for (const it of shown.values()) {
    const box = {
      id: it.id, kind: it.kind, hiddenIn: it.hiddenIn, hiddenOut: it.hiddenOut, sharedOut: it.sharedOut, order: it.order,
      sharedIn: it.sharedIn.map((x) => ({ ...x, label: items.get(x.from)?.prefix ?? items.get(x.from)?.key ?? (items.get(x.from)?.node !== undefined ? s.nodes[items.get(x.from).node][1] : x.from) })),
    };
    if (mark >= 0 && mark < n && itemOf[mark] === it.id) box.broken = true;
    if (it.kind === 'node') {
      const [name, op, domain] = s.nodes[it.node];
      const tail = name.split('/').filter(Boolean).pop() ?? '';
      box.node = it.node;
      box.outputs = s.nodes[it.node][4];
      box.op = op;
      box.domain = domain;
      box.name = name;
      box.label = tail === op ? '' : tail;
      box.bodies = (s.children.get(it.node) ?? []).map((b) => ({ ...b, width: textWidth(Math.min(b.attribute.length, 14) + 2, 11) + 10 }));
      const bodiesWidth = box.bodies.reduce((w, b) => w + b.width, 16);
      box.width = Math.min(300, Math.max(86, textWidth(op.length, 13) + 28, textWidth(box.label.length, 11) + 24, bodiesWidth));
      box.height = box.label || box.bodies.length ? 46 : 32;
      if (box.bodies.length && box.label) box.height = 60;
    } else if (it.kind === 'group') {
      const tail = it.prefix.split('/').pop();
      box.prefix = it.prefix;
      box.count = it.count;
      box.label = tail;
      box.ops = [...it.ops.entries()].sort((x, y) => y[1] - x[1]).slice(0, 3).map(([op, c]) => `${op}×${c}`).join(' ');
      if (it.io?.in || it.io?.out) box.io = `${it.io.in ? `${it.io.in} graph input${it.io.in > 1 ? 's' : ''}` : ''}${it.io.in && it.io.out ? ', ' : ''}${it.io.out ? `${it.io.out} output${it.io.out > 1 ? 's' : ''}` : ''}`;
      box.width = Math.min(280, Math.max(120, textWidth(tail.length, 13) + 70, textWidth(box.ops.length, 10.5) + 24));
      box.height = 50;
    } else {
      box.key = it.key;
      box.label = it.key;
      box.width = Math.min(240, Math.max(70, textWidth(it.key.length, 12) + 26));
      box.height = 26;
    }
    out.push(box);
  }

  // Clusters: the expanded groups that hold shown boxes (nested by prefix), except one that
  // would hold every box (a frame around the whole view says nothing).
  const members = new Map();
  for (const box of out) {
    const pre = box.kind === 'node' ? s.prefixes[box.node] : box.kind === 'group' ? prefixesOf(`${box.prefix}/x`).slice(0, -1) : [];
    for (const p of pre) members.set(p, (members.get(p) ?? 0) + 1);
  }
  const clusters = new Map();
  for (const [p, c] of members) if (c < out.length) clusters.set(p, { id: `c:${p}`, prefix: p });
  const parentCluster = (pre) => {
    for (let k = pre.length - 1; k >= 0; k--) if (clusters.has(pre[k])) return `c:${pre[k]}`;
    return null;
  };

  // Layout.
  const g = new dagre.graphlib.Graph({ compound: clusters.size > 0, multigraph: false });
  g.setGraph({ rankdir: 'TB', nodesep: 18, ranksep: 26, edgesep: 8, marginx: 16, marginy: 16 });
  g.setDefaultEdgeLabel(() => ({}));
  for (const box of out) g.setNode(box.id, { width: box.width, height: box.height });
  for (const c of clusters.values()) g.setNode(c.id, { label: c.prefix, paddingTop: 22 });
  for (const c of clusters.values()) {
    const parent = parentCluster(prefixesOf(`${c.prefix}/x`).slice(0, -1));
    if (parent) g.setParent(c.id, parent);
  }
  for (const box of out) {
    const pre = box.kind === 'node' ? s.prefixes[box.node] : box.kind === 'group' ? prefixesOf(`${box.prefix}/x`).slice(0, -1) : [];
    const parent = parentCluster(pre);
    if (parent) g.setParent(box.id, parent);
  }
  const labelOf = (e) => (e.count > 1 ? `${e.count} values` : graph.shapes[e.key] ?? '');
  for (const e of shownEdges) {
    const text = labelOf(e);
    g.setEdge(e.from, e.to, { width: text ? textWidth(text.length, 11) + 10 : 0, height: text ? 16 : 0, labelpos: 'c' });
  }
  const t1 = performance.now();
  dagre.layout(g);
  const t2 = performance.now();
  for (const box of out) {
    const p = g.node(box.id);
    box.x = p.x - box.width / 2;
    box.y = p.y - box.height / 2;
  }
  const clusterBoxes = [];
  for (const c of clusters.values()) {
    const p = g.node(c.id);
    if (!p || !p.width) continue;
    clusterBoxes.push({ id: c.id, prefix: c.prefix, x: p.x - p.width / 2, y: p.y - p.height / 2, width: p.width, height: p.height });
  }
  const edgeOut = shownEdges.map((e) => {
    const d = g.edge(e.from, e.to);
    return { from: e.from, to: e.to, key: e.key, keys: e.keys, count: e.count, label: labelOf(e), points: d.points.map((q) => [q.x, q.y]), lx: d.x, ly: d.y };
  });
  const gg = g.graph();
  return {
    scope: path,
    items: out,
    edges: edgeOut,
    clusters: clusterBoxes,
    expanded: [...expanded],
    width: gg.width,
    height: gg.height,
    stats: {
      nodes: n, boxes: out.length, allBoxes: items.size, edges: edgeOut.length,
      prepareMs: t1 - t0, layoutMs: t2 - t1, totalMs: performance.now() - t0,
    },
  };
}

self.onmessage = ({ data }) => {
  try {
    if (data.type === 'graph') loadGraph(data.json);
    else if (data.type === 'view') self.postMessage({ type: 'view', id: data.id, ...layoutView(data) });
  } catch (err) {
    self.postMessage({ type: 'error', id: data.id ?? null, message: err?.message ?? String(err) });
  }
};
