// What one view of the graph view shows, and where: the boxes of one graph (groups of the name
// hierarchy, collapsed or open; nodes; graph inputs and outputs), the edges between them, and
// their positions from @dagrejs/dagre. Runs in the layout worker (layout_worker.js).
//
// Each open group is laid out on its own ("per level", as Google's Model Explorer does): its
// items (child groups, nodes, open child groups as frames of their own layout's size) and the
// edges between them. An edge between items of different levels is drawn at the level holding
// both, from frame to frame, and inside each frame from a port (an invisible point at the
// frame's top for what comes in, at its bottom for what goes out) to the box that reads or
// writes it. A level's layout is kept while its items and edges stay the same, so opening a
// group lays out that group and the levels around it, not the rest.
//
// Bounds: a level shows at most `budget` items (past it, the neighbourhood of the focus, breadth
// first; boxes say how many neighbours are hidden); groups open by default level by level while
// the view stays under budget/2 boxes; a box feeding more than FANOUT others at one level (masks,
// position tables) gets a mark on its readers instead of edges, so layers stay a chain.
import { treeOf, prefixOf, labelOf, groupByPrefix, MAX_DEPTH, SOURCE } from './graph_model.js';

/** Most boxes one box may feed with drawn edges at one level (see above). */
export const FANOUT = 8;
/** Ops that move or describe data rather than compute on it (listed last in a group's summary). */
const SHAPE_OPS = new Set(['Shape', 'Size', 'Gather', 'Unsqueeze', 'Squeeze', 'Concat', 'Cast', 'CastLike', 'Reshape', 'Slice',
  'Transpose', 'Expand', 'Range', 'ConstantOfShape', 'Equal', 'Where', 'Identity', 'Constant', 'Flatten', 'Split', 'Tile']);
/** Most graph inputs (outputs) drawn as pills beside closed groups (see compute). */
const FEW_IO = 8;
/** Most folded constants listed in a node's box. */
const MAX_WEIGHTS = 3;
const HEADER = 22; // a frame's label band
/** Text width in px of `chars` characters at the page's box fonts (monospace-ish estimate). */
const textWidth = (chars, px) => Math.ceil(chars * px * 0.62);
const clip = (s, n) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);

/**
 * The view of graph `g` for request `req` ({expanded: prefixes|null, focus, budget, mark,
 * notes: {node, group, edge}, members, fit: {width, height, minZoom}|null}); `env`:
 * {dagre, shapes, types, cache: Map}. With `fit`, the deepest open groups are closed until the
 * view fits the given size at minZoom, or only the default view's groups are left open.
 */
export function makeView(g, req, env) {
  const t0 = performance.now();
  const t = treeOf(g);
  const focus = resolveFocus(g, t, req.focus);
  let open = openGroups(g, t, req, focus);
  let view = compute(g, t, open, req, focus, env);
  let collapsed = 0;
  // Fit closes what was opened beyond the first view, never that view's own groups.
  const base = req.fit ? autoExpand(t, Math.max(8, req.budget >> 1), req.budget) : null;
  while (req.fit && (view.width * req.fit.minZoom > req.fit.width || view.height * req.fit.minZoom > req.fit.height)) {
    const fewer = closeDeepest(t, open, base);
    if (!fewer) break;
    open = fewer;
    collapsed++;
    view = compute(g, t, open, req, focus, env);
  }
  view.stats.collapsed = collapsed;
  view.stats.totalMs = performance.now() - t0;
  return view;
}

// Section - Which groups are open

/** The focus as a node index and/or a group: {node, group, id}. */
function resolveFocus(g, t, f) {
  const out = { node: -1, group: -1, id: null };
  if (!f) return out;
  if (f.node !== undefined && f.node >= 0 && f.node < g.n) out.node = f.node;
  else if (f.key !== undefined) out.node = g.producer.get(f.key) ?? g.consumers.get(f.key)?.[0] ?? -1;
  if (out.node >= 0 && g.folded[out.node]) {
    // A folded constant: its first reader's box shows it.
    const k = g.nodes[out.node][4].find((x) => x !== null);
    out.node = g.consumers.get(k)?.find((j) => !g.folded[j]) ?? -1;
  }
  if (f.group !== undefined) out.group = groupByPrefix(t, f.group);
  if (f.id !== undefined) out.id = f.id;
  return out;
}

/** Open groups (1) for the request: the page's list, else the default; the focus's are open. */
function openGroups(g, t, req, focus) {
  let open;
  if (Array.isArray(req.expanded)) {
    open = new Uint8Array(t.size);
    for (const p of req.expanded) {
      const c = groupByPrefix(t, p);
      for (let a = c; a > 0; a = t.parent[a]) open[a] = 1;
    }
  } else open = autoExpand(t, Math.max(8, req.budget >> 1), req.budget);
  if (focus.node >= 0) for (let a = t.groupOf[focus.node]; a > 0; a = t.parent[a]) open[a] = 1;
  if (focus.group > 0) for (let a = focus.group; a > 0; a = t.parent[a]) open[a] = 1;
  if (focus.id?.[0] === 'g') for (let a = t.parent[Number(focus.id.slice(1))] ?? 0; a > 0; a = t.parent[a]) open[a] = 1;
  return open;
}

/** Groups shown as open (frames or transparent), given the open set: visible and open. */
function effectiveOpen(t, open) {
  const eff = new Uint8Array(t.size);
  eff[0] = 1;
  for (let c = 1; c < t.size; c++) if (t.total[c] && eff[t.parent[c]] && (open[c] || t.transparent[c])) eff[c] = 1;
  return eff;
}

/** Boxes a view shows with these groups open (frames are not boxes). */
function countBoxes(t, open) {
  const eff = effectiveOpen(t, open);
  let boxes = t.direct[0];
  for (let c = 1; c < t.size; c++) {
    if (!t.total[c] || !eff[t.parent[c]]) continue;
    boxes += eff[c] ? t.direct[c] : 1;
  }
  return boxes;
}

/** How many boxes opening group c adds (its items, through transparent groups, minus itself). */
function openDelta(t, c) {
  let k = t.direct[c];
  for (const ch of t.children[c]) k += t.transparent[ch] ? openDelta(t, ch) + 1 : 1;
  return k - 1;
}

/**
 * Whole levels open while the boxes stay under `limit` (under `most` while there are fewer than a
 * few boxes); a group holding most of the graph opens alone when its level does not fit (a
 * decoder's `model` opens on its layers, a small position group beside it stays closed).
 */
function autoExpand(t, limit, most) {
  const open = new Uint8Array(t.size);
  let boxes = countBoxes(t, open);
  for (let d = 1; d <= MAX_DEPTH; d++) {
    const eff = effectiveOpen(t, open);
    const level = [];
    let deeper = false;
    for (let c = 1; c < t.size; c++) {
      if (t.depth[c] < d || !t.total[c]) continue;
      deeper = true;
      if (t.depth[c] === d && eff[t.parent[c]] && !t.transparent[c]) level.push([c, openDelta(t, c)]);
    }
    if (!deeper) break;
    if (!level.length) continue;
    const all = level.reduce((k, [, x]) => k + x, 0);
    if (boxes + all <= limit || (boxes < 8 && boxes + all <= most)) {
      for (const [c] of level) open[c] = 1;
      boxes += all;
      continue;
    }
    // A group holding three quarters of the graph is the model itself: it opens alone.
    const main = level.find(([c]) => 4 * t.total[c] > 3 * t.total[0]);
    if (boxes < 8 && main && boxes + main[1] <= most) {
      open[main[0]] = 1;
      boxes += main[1];
      continue;
    }
    break;
  }
  return open;
}

/** The open set without its deepest open frames (`keep`'s aside), or null when none is left. */
function closeDeepest(t, open, keep) {
  let deepest = 0;
  for (let c = 1; c < t.size; c++) if (open[c] && !keep[c] && !t.transparent[c]) deepest = Math.max(deepest, t.depth[c]);
  if (!deepest) return null;
  const out = open.slice();
  for (let c = 1; c < t.size; c++) if (t.depth[c] >= deepest && !keep[c]) out[c] = 0;
  return out;
}

// Section - Items and edges

/**
 * The value's short name for a box: its last path part; of a dotted weight name, the end from the
 * last module name on (`model.layers.0.self_attn.q_proj.weight` → `q_proj.weight`,
 * `features.0.0.weight` stays whole).
 */
export function shortName(key, path) {
  let s = path && key.startsWith(path) ? key.slice(path.length) : key;
  const slash = s.lastIndexOf('/');
  if (slash >= 0 && slash < s.length - 1) s = s.slice(slash + 1);
  if (s.includes('::')) return s;
  const parts = s.split('.');
  let k = parts.length - 2;
  while (k > 0 && /^\d+$/.test(parts[k])) k--;
  return parts.slice(Math.max(0, k)).join('.');
}

function compute(g, t, open, req, focus, env) {
  const tStart = performance.now();
  const n = g.n;
  const eff = effectiveOpen(t, open);
  // For each group: the outermost closed group holding it (-1: it is open, and all above it),
  // and the frame it is drawn in (transparent groups are drawn in their parent's).
  const closedAt = new Int32Array(t.size);
  const frame = new Int32Array(t.size);
  closedAt[0] = -1;
  for (let c = 1; c < t.size; c++) {
    const up = closedAt[t.parent[c]];
    closedAt[c] = up >= 0 ? up : eff[c] ? -1 : c;
    frame[c] = t.transparent[c] ? frame[t.parent[c]] : c;
  }

  // Items: nodes, closed groups, open groups (frames), graph inputs and outputs (pills), and the
  // ports inside frames. Each has a serial number (sn) for the edge index.
  const items = new Map(); // id -> group, frame or pill (nodes are in nodeItem)
  const bySn = [];
  const make = (it) => { it.sn = bySn.length; bySn.push(it); it.hiddenIn = 0; it.hiddenOut = 0; it.sharedIn = null; it.sharedOut = 0; it.shown = false; it.out = null; return it; };
  const nodeItem = new Array(n);
  const groupItem = new Array(t.size);
  const itemOf = (i) => {
    const c = closedAt[t.groupOf[i]];
    if (c < 0) return nodeItem[i];
    return groupItem[c];
  };
  for (let i = 0; i < n; i++) {
    if (g.folded[i]) continue;
    const c = closedAt[t.groupOf[i]];
    if (c < 0) {
      nodeItem[i] = make({ id: `n${i}`, kind: 'node', node: i, cont: frame[t.groupOf[i]], order: i });
      continue;
    }
    if (!groupItem[c]) {
      // Its node count and ops are counted once it is known to be shown (a level shows at most
      // `budget` of a 100k-node model's 14k groups).
      const it = groupItem[c] = make({ id: `g${c}`, kind: 'group', group: c, cont: frame[t.parent[c]], order: i, count: 0, ops: null, members: null });
      items.set(it.id, it);
    }
  }
  for (let c = 1; c < t.size; c++) {
    if (closedAt[c] !== -1 || t.transparent[c] || !t.total[c]) continue;
    const it = groupItem[c] = make({ id: `g${c}`, kind: 'frame', group: c, cont: frame[t.parent[c]], order: Infinity });
    items.set(it.id, it);
  }
  const pill = (kind, key, order) => {
    const id = `${kind === 'outer' ? 'u' : kind[0]}:${key}`;
    let it = items.get(id);
    if (!it) items.set(id, (it = make({ id, kind, key, cont: 0, order })));
    return it;
  };

  // Level edges: each value between two items is drawn at the lowest frame holding both, and
  // through ports inside the open frames on the way (one port per frame and outer edge).
  const levels = new Map(); // frame -> { edges: [], index: Map(number -> edge), ports: Map(id -> port) }
  const level = (c) => {
    let l = levels.get(c);
    if (!l) levels.set(c, (l = { frame: c, edges: [], ports: new Map() }));
    return l;
  };
  const addEdge = (c, from, to, k, pair) => {
    // An item's edges are all at one level (its container's): indexed by the item they leave,
    // by the serial number of the one they enter (a small integer key).
    const out = (from.out ??= new Map());
    let e = out.get(to.sn);
    if (!e) {
      e = { from, to, keys: [k], count: 1, all: null, pairs: null, drawn: false, srcPort: null, dstPort: null };
      out.set(to.sn, e);
      level(c).edges.push(e);
    } else if (!e.keys.includes(k) && !e.all?.has(k)) {
      e.count++;
      if (e.keys.length < 8) e.keys.push(k);
      else (e.all ??= new Set()).add(k);
    }
    if (pair && (e.pairs ??= []).length < 64 && !e.pairs.some((p) => p[0] === pair[0] && p[1] === pair[1])) e.pairs.push(pair);
    return e;
  };
  const addPort = (c, name, dir, partner) => {
    const l = level(c);
    const id = `P${c}:${name}`;
    let p = l.ports.get(id);
    if (!p) l.ports.set(id, (p = make({ id, kind: 'port', dir, partner })));
    return p;
  };
  const connect = (A, B, k) => {
    if (A === B) return;
    let a = A;
    let b = B;
    let ca = a.cont;
    let cb = b.cont;
    if (ca === cb) { addEdge(ca, a, b, k, null); return; }
    const upA = [];
    const upB = [];
    while (ca !== cb) {
      if (t.depth[ca] >= t.depth[cb]) { upA.push(ca, a); a = groupItem[ca]; ca = a.cont; } else { upB.push(cb, b); b = groupItem[cb]; cb = b.cont; }
    }
    const pair = [A, B];
    const top = addEdge(ca, a, b, k, pair);
    let outer = top;
    let name = `o${b.id}`;
    for (let j = upA.length - 2; j >= 0; j -= 2) {
      const port = addPort(upA[j], name, 'out', outer);
      outer.srcPort = port;
      outer = addEdge(upA[j], upA[j + 1], port, k, pair);
      name = `o${name}`;
    }
    outer = top;
    name = `i${a.id}`;
    for (let j = upB.length - 2; j >= 0; j -= 2) {
      const port = addPort(upB[j], name, 'in', outer);
      outer.dstPort = port;
      outer = addEdge(upB[j], port, upB[j + 1], k, pair);
      name = `i${name}`;
    }
  };
  // The values between items, and the constants each node box lists. Graph inputs and outputs are
  // pills, but a closed group counts its own when there are many (an LLM's 2 x 32 caches).
  const fewInputs = g.inputs.size <= FEW_IO;
  const fewOutputs = g.outputs.size <= FEW_IO;
  const weights = new Map(); // node -> constant keys it reads
  const io = (it) => { it.io ??= { in: 0, out: 0 }; return it.io; };
  const { start, src } = g.sources;
  for (let i = 0; i < n; i++) {
    if (g.folded[i]) continue;
    const B = itemOf(i);
    const isNode = B.kind === 'node';
    const ins = g.nodes[i][3];
    for (let j = 0; j < ins.length; j++) {
      const p = src[start[i] + j];
      if (p >= 0) connect(itemOf(p), B, ins[j]);
      else if (p === SOURCE.CONSTANT) {
        if (isNode) { const k = ins[j]; const w = weights.get(i); if (!w) weights.set(i, [k]); else if (!w.includes(k)) w.push(k); }
      } else if (p === SOURCE.NONE) continue;
      else if (!isNode && !fewInputs) io(B).in++;
      else connect(pill(p === SOURCE.INPUT ? 'in' : 'outer', ins[j], -1), B, ins[j]);
    }
  }
  for (const k of g.outputs) {
    const p = g.producer.get(k);
    if (p === undefined || g.folded[p]) continue;
    const A = itemOf(p);
    if (A.kind === 'group' && !fewOutputs) io(A).out++;
    else connect(A, pill('out', k, n), k);
  }
  for (const k of g.inputs) if (!g.consumers.has(k)) pill('in', k, -1);
  const byLevel = new Map();
  for (const it of bySn) {
    if (it.kind === 'port') continue;
    level(it.cont);
    let l = byLevel.get(it.cont);
    if (!l) byLevel.set(it.cont, (l = []));
    l.push(it);
  }
  const itemById = (id) => (id[0] === 'n' && /^n\d+$/.test(id) ? nodeItem[Number(id.slice(1))] : items.get(id));

  // What is drawn, level by level from the top: edges whose ports' outer edges are drawn, minus
  // fan-outs (marks instead), within the level's budget (the focus's neighbourhood).
  const focusItems = new Set();
  if (focus.node >= 0) {
    focusItems.add(itemOf(focus.node));
    for (let c = t.groupOf[focus.node]; c > 0; c = t.parent[c]) if (groupItem[c]) focusItems.add(groupItem[c]);
  }
  if (focus.group > 0) for (let c = focus.group; c > 0; c = t.parent[c]) if (groupItem[c]) focusItems.add(groupItem[c]);
  if (focus.id && itemById(focus.id)) focusItems.add(itemById(focus.id));
  const order = [...levels.keys()].sort((x, y) => t.depth[x] - t.depth[y]);
  const shownLevels = [];
  const degree = new Int32Array(bySn.length); // per level, then reset
  const nameOf = (it) => {
    if (it.kind === 'node') return g.nodes[it.node][1];
    if (it.kind === 'group' || it.kind === 'frame') return prefixOf(t, it.group);
    return it.key;
  };
  for (const c of order) {
    if (c !== 0 && !groupItem[c]?.shown) continue;
    const l = levels.get(c);
    const members = (byLevel.get(c) ?? []).sort((x, y) => x.order - y.order);
    const alive = l.edges.filter((e) => (e.from.kind !== 'port' || e.from.partner.drawn) && (e.to.kind !== 'port' || e.to.partner.drawn));
    for (const e of alive) degree[e.from.sn]++;
    const drawable = [];
    for (const e of alive) {
      if (degree[e.from.sn] <= FANOUT) { drawable.push(e); continue; }
      if (e.from.kind !== 'port') e.from.sharedOut++;
      // The mark goes on the box that reads, named after the box that writes.
      for (const [A, B] of e.pairs ?? [[e.from, e.to]]) {
        if (B.kind === 'port') continue;
        B.sharedIn ??= [];
        if (B.sharedIn.length < 6 && !B.sharedIn.some((x) => x.from === A)) B.sharedIn.push({ from: A, key: e.keys[0], label: nameOf(A) });
      }
    }
    for (const e of alive) degree[e.from.sn] = 0;
    let shown = members;
    if (members.length > req.budget) {
      // From the focus, else from the first node (not a graph input, which may feed everything).
      const start = members.find((it) => focusItems.has(it)) ?? members.find((it) => it.order >= 0) ?? members[0];
      const seen = neighbourhood(start, drawable, req.budget, bySn.length);
      shown = members.filter((it) => seen.has(it));
    }
    for (const it of shown) it.shown = true;
    l.drawnEdges = [];
    const usedPorts = new Set();
    for (const e of drawable) {
      const a = e.from.kind === 'port' || e.from.shown;
      const b = e.to.kind === 'port' || e.to.shown;
      if (a && b) {
        e.drawn = true;
        l.drawnEdges.push(e);
        if (e.from.kind === 'port') usedPorts.add(e.from);
        if (e.to.kind === 'port') usedPorts.add(e.to);
      } else if (a && e.from.kind !== 'port') e.from.hiddenOut++;
      else if (b && e.to.kind !== 'port') e.to.hiddenIn++;
    }
    l.shownPorts = [...usedPorts];
    l.shownItems = shown;
    shownLevels.push(c);
  }
  // The shown groups' node counts, ops and (asked for) members.
  for (let i = 0; i < n; i++) {
    if (g.folded[i]) continue;
    const c = closedAt[t.groupOf[i]];
    const it = c >= 0 ? groupItem[c] : null;
    if (!it?.shown) continue;
    it.count++;
    const op = g.nodes[i][1];
    (it.ops ??= new Map()).set(op, (it.ops.get(op) ?? 0) + 1);
    if (req.members) (it.members ??= []).push(i);
  }
  const tItems = performance.now();

  // Box sizes and texts, then each level's layout, innermost first.
  const boxes = new Map();
  for (const c of shownLevels) for (const it of levels.get(c).shownItems) if (it.kind !== 'frame') boxes.set(it.id, boxOf(g, t, it, weights, req, env));
  const layouts = new Map();
  let dagreMs = 0;
  let laidOut = 0;
  for (let k = shownLevels.length - 1; k >= 0; k--) {
    const c = shownLevels[k];
    const l = levels.get(c);
    const r = layoutLevel(g, c, l, boxes, layouts, req, env, t);
    dagreMs += r.ms;
    if (r.ms) laidOut++;
    layouts.set(c, r.layout);
  }

  // Absolute positions, from the top.
  const offset = new Map([[0, [0, 0]]]);
  const outItems = [];
  const outFrames = [];
  const portAt = new Map();
  const outEdges = [];
  for (const c of shownLevels) {
    const lay = layouts.get(c);
    const [ox, oy] = offset.get(c);
    const l = levels.get(c);
    for (const it of l.shownItems) {
      const p = lay.pos.get(it.id);
      if (it.kind === 'frame') {
        const inner = layouts.get(it.group);
        const x = ox + p.x - p.w / 2;
        const y = oy + p.y - p.h / 2;
        offset.set(it.group, [x + (p.w - inner.width) / 2, y + HEADER]);
        outFrames.push({ id: it.id, prefix: prefixOf(t, it.group), label: labelOf(t, it.group), x, y, width: p.w, height: p.h, depth: t.depth[it.group] });
      } else {
        const b = boxes.get(it.id);
        b.x = ox + p.x - b.width / 2;
        b.y = oy + p.y - b.height / 2;
        outItems.push(b);
      }
    }
    for (const port of l.shownPorts) {
      const p = lay.pos.get(port.id);
      portAt.set(port.id, [ox + p.x, oy + p.y]);
    }
  }
  for (const c of shownLevels) {
    const lay = layouts.get(c);
    const [ox, oy] = offset.get(c);
    for (const e of levels.get(c).drawnEdges) {
      const r = lay.edges.get(`${e.from.id}\u0000${e.to.id}`);
      const points = r.points.map(([x, y]) => [x + ox, y + oy]);
      // Ports: the edge continues inside the frames it joins.
      if (e.srcPort && portAt.has(e.srcPort.id)) points[0] = portAt.get(e.srcPort.id);
      if (e.dstPort && portAt.has(e.dstPort.id)) points[points.length - 1] = portAt.get(e.dstPort.id);
      const labelled = e.from.kind !== 'port' && e.to.kind !== 'port';
      const main = mainKey(e.keys, env.shapes);
      outEdges.push({
        from: e.from.id, to: e.to.id, key: main, keys: e.keys, count: e.count,
        label: labelled ? env.shapes[main] ?? '' : '', lx: labelled && r.x !== undefined ? r.x + ox : null, ly: labelled && r.y !== undefined ? r.y + oy : null,
        arrow: !(e.dstPort && portAt.has(e.dstPort.id)) && e.to.kind !== 'port', points,
      });
    }
  }
  const root = layouts.get(0);
  const markItem = req.mark >= 0 && req.mark < n && !g.folded[req.mark] ? itemOf(req.mark) : null;
  for (const b of outItems) if (b.id === markItem?.id) b.broken = true;
  const expanded = [];
  for (let c = 1; c < t.size; c++) if (open[c] && !t.transparent[c] && t.total[c]) expanded.push(prefixOf(t, c));
  return {
    scope: g.path,
    items: outItems,
    edges: outEdges,
    clusters: outFrames,
    expanded,
    width: root.width,
    height: root.height,
    stats: {
      nodes: n, folded: g.folded.reduce((s, x) => s + x, 0), boxes: outItems.length, allBoxes: bySn.filter((it) => it.kind !== 'frame' && it.kind !== 'port').length,
      edges: outEdges.length, frames: outFrames.length, levels: shownLevels.length, laidOut,
      widestLevel: Math.max(...shownLevels.map((c) => levels.get(c).shownItems.length)),
      prepareMs: tItems - tStart, layoutMs: dagreMs,
    },
  };
}

/**
 * Up to `budget` items around `start`, breadth first over `edges` between items (ports aside);
 * the adjacency is packed by item serial number (a level may hold 100k items).
 */
function neighbourhood(start, edges, budget, size) {
  const deg = new Int32Array(size + 1);
  const between = edges.filter((e) => e.from.kind !== 'port' && e.to.kind !== 'port');
  for (const e of between) { deg[e.from.sn + 1]++; deg[e.to.sn + 1]++; }
  for (let k = 1; k <= size; k++) deg[k] += deg[k - 1];
  const fill = deg.slice(0, size);
  const adj = new Array(deg[size]);
  for (const e of between) { adj[fill[e.from.sn]++] = e.to; adj[fill[e.to.sn]++] = e.from; }
  const seen = new Set([start]);
  let frontier = [start];
  while (frontier.length && seen.size < budget) {
    const next = [];
    for (const it of frontier) {
      for (let k = deg[it.sn]; k < deg[it.sn + 1] && seen.size < budget; k++) {
        const nb = adj[k];
        if (!seen.has(nb)) { seen.add(nb); next.push(nb); }
      }
    }
    frontier = next;
  }
  return seen;
}

/** The value whose shape labels an edge carrying several: the first with the most dims. */
function mainKey(keys, shapes) {
  let best = keys[0];
  let score = -1;
  for (const k of keys) {
    const s = shapes[k] ?? '';
    const sc = s.includes('] = [') ? 0 : s.split(',').length + (s.length > 2 ? 1 : 0);
    if (sc > score) { score = sc; best = k; }
  }
  return best;
}

// Section - Boxes

/** A box's size and the rows of text it holds (y offsets from its top). */
function boxOf(g, t, it, weights, req, env) {
  const box = {
    id: it.id, kind: it.kind, hiddenIn: it.hiddenIn, hiddenOut: it.hiddenOut, sharedOut: it.sharedOut,
    sharedIn: (it.sharedIn ?? []).map(({ key, label }) => ({ key, label })), rows: [],
  };
  const note = !!req.notes?.[it.kind === 'node' ? 'node' : 'group'];
  let y = 0;
  const row = (kind, h, extra) => { box.rows.push({ kind, y: y + h - 4, ...extra }); y += h; };
  if (it.kind === 'node') {
    const [name, op, domain, , outs] = g.nodes[it.node];
    const tail = name.slice(name.lastIndexOf('/') + 1);
    box.node = it.node;
    box.outputs = outs;
    box.op = op;
    box.domain = domain;
    box.name = name.length > 2000 ? `${name.slice(0, 1999)}…` : name;
    box.label = tail === op ? '' : clip(tail, 34);
    box.bodies = (g.bodies.get(it.node) ?? []).map((b) => ({ ...b, width: textWidth(Math.min(b.attribute.length, 14) + 2, 11) + 10 }));
    const ws = weights.get(it.node) ?? [];
    box.weights = ws.slice(0, MAX_WEIGHTS).map((k) => {
      const shape = env.shapes[k] ?? '';
      const type = env.types[k] ?? '';
      return { key: k, text: clip(`${shortName(k, g.path)} ${type}${shape && shape !== 'scalar' ? shape : shape ? ' scalar' : ''}`, 44) };
    });
    y = 6;
    row('op', 17);
    if (box.label) row('name', 14);
    if (box.bodies.length) row('bodies', 16);
    if (box.weights.length) y += 3;
    for (const w of box.weights) row('weight', 13, { key: w.key, text: w.text });
    if (ws.length > MAX_WEIGHTS) row('more', 13, { text: `+${ws.length - MAX_WEIGHTS} more` });
    if (note) row('note', 14);
    const bodiesWidth = box.bodies.reduce((w, b) => w + b.width, 16);
    const weightsWidth = Math.max(0, ...box.weights.map((w) => textWidth(w.text.length, 10) + 16));
    box.width = Math.min(320, Math.max(86, textWidth(op.length, 13) + 28, textWidth(box.label.length, 11) + 24, bodiesWidth, weightsWidth, note ? 110 : 0));
    box.height = Math.max(32, y + 7);
  } else if (it.kind === 'group') {
    const label = labelOf(t, it.group);
    box.group = it.group;
    box.prefix = prefixOf(t, it.group);
    box.count = it.count;
    box.label = clip(label, 40);
    // What the group computes first (MatMul, Conv, Softmax...), then its shape arithmetic.
    box.ops = [...(it.ops ?? [])].sort((x, y2) => SHAPE_OPS.has(x[0]) - SHAPE_OPS.has(y2[0]) || y2[1] - x[1]).slice(0, 3).map(([op, c]) => `${op}×${c}`).join(' ');
    if (it.members) box.members = it.members;
    if (it.io?.in || it.io?.out) box.io = `${it.io.in ? `${it.io.in} graph input${it.io.in > 1 ? 's' : ''}` : ''}${it.io.in && it.io.out ? ', ' : ''}${it.io.out ? `${it.io.out} output${it.io.out > 1 ? 's' : ''}` : ''}`;
    y = 4;
    row('title', 18);
    row('ops', 16);
    if (note) row('note', 14);
    box.width = Math.min(300, Math.max(120, textWidth(box.label.length, 13) + 70, textWidth(box.ops.length, 10.5) + 24, note ? 110 : 0));
    box.height = y + 8;
  } else {
    box.key = it.key;
    box.label = clip(it.key, 30);
    box.width = Math.min(240, Math.max(70, textWidth(box.label.length, 12) + 26));
    box.height = 26;
  }
  return box;
}

// Section - Layout of one level

/**
 * Lays out level `c`: its shown items (frames at the size of their own layout), its ports, its
 * drawn edges (labelled with shapes between items). The result is kept while the level's
 * description (items, sizes, edges, labels) stays the same.
 */
function layoutLevel(g, c, l, boxes, layouts, req, env, t) {
  const nodes = [];
  for (const it of l.shownItems) {
    if (it.kind === 'frame') {
      const inner = layouts.get(it.group);
      const labelW = textWidth(Math.min(labelOf(t, it.group).length, 40) + 2, 11.5) + 24;
      nodes.push([it.id, Math.max(inner.width, labelW), inner.height + HEADER]);
    } else {
      const b = boxes.get(it.id);
      nodes.push([it.id, b.width, b.height]);
    }
  }
  const edgeNote = !!req.notes?.edge;
  const edges = l.drawnEdges.map((e) => {
    const labelled = e.from.kind !== 'port' && e.to.kind !== 'port';
    const text = labelled ? env.shapes[mainKey(e.keys, env.shapes)] ?? '' : '';
    const chars = text.length + (e.count > 1 ? String(e.count - 1).length + 2 : 0);
    const w = text ? Math.max(textWidth(chars, 11) + 10, edgeNote ? 80 : 0) : 0;
    return [e.from.id, e.to.id, w, text ? (edgeNote ? 30 : 16) : 0];
  });
  const ins = l.shownPorts.filter((p) => p.dir === 'in').map((p) => p.id);
  const outs = l.shownPorts.filter((p) => p.dir === 'out').map((p) => p.id);
  const sig = JSON.stringify([nodes, edges, ins, outs]);
  const key = `${g.path}\u0000${c}`;
  const hit = env.cache.get(key);
  if (hit && hit.sig === sig) {
    env.cache.delete(key);
    env.cache.set(key, hit); // most recently used
    return { layout: hit.layout, ms: 0 };
  }
  const t0 = performance.now();
  const gl = new env.dagre.graphlib.Graph({ multigraph: false });
  const margin = c === 0 ? 16 : 8;
  gl.setGraph({ rankdir: 'TB', nodesep: 18, ranksep: 26, edgesep: 8, marginx: margin, marginy: margin });
  gl.setDefaultEdgeLabel(() => ({}));
  for (const [id, width, height] of nodes) gl.setNode(id, { width, height });
  for (const id of ins) gl.setNode(id, { width: 2, height: 2 });
  for (const id of outs) gl.setNode(id, { width: 2, height: 2 });
  for (const [from, to, width, height] of edges) gl.setEdge(from, to, { width, height, labelpos: 'c', weight: 1 });
  // Ports at the frame's top and bottom: one anchor above the in-ports, one below the out-ports,
  // pulled tight. (Tying every item to them as well keeps the ports at the very edge, but costs
  // a third more layout time on an attention block, for few ports that would sit elsewhere.)
  if (ins.length) {
    gl.setNode('^', { width: 0, height: 0 });
    for (const id of ins) gl.setEdge('^', id, { weight: 8, minlen: 1 });
  }
  if (outs.length) {
    gl.setNode('$', { width: 0, height: 0 });
    for (const id of outs) gl.setEdge(id, '$', { weight: 8, minlen: 1 });
  }
  env.dagre.layout(gl);
  const pos = new Map();
  for (const [id] of nodes) { const p = gl.node(id); pos.set(id, { x: p.x, y: p.y, w: p.width, h: p.height }); }
  for (const id of [...ins, ...outs]) { const p = gl.node(id); pos.set(id, { x: p.x, y: p.y, w: 0, h: 0 }); }
  const edgeOut = new Map();
  for (const [from, to] of edges) {
    const d = gl.edge(from, to);
    edgeOut.set(`${from}\u0000${to}`, { points: d.points.map((q) => [q.x, q.y]), x: d.x, y: d.y });
  }
  const { width } = gl.graph();
  let { height } = gl.graph();
  // The anchors' empty ranks: trim them off the frame.
  if (ins.length || outs.length) height = trimAnchors(pos, edgeOut, ins.length > 0, outs.length > 0, margin, height);
  const layout = { pos, edges: edgeOut, width, height };
  env.cache.set(key, { sig, layout });
  if (env.cache.size > 400) env.cache.delete(env.cache.keys().next().value);
  return { layout, ms: performance.now() - t0 };
}


/** Removes the empty band the top/bottom anchors leave (their rank), moving everything up. */
function trimAnchors(pos, edgeOut, top, bottom, margin, height) {
  let minY = Infinity;
  let maxY = -Infinity;
  for (const p of pos.values()) { minY = Math.min(minY, p.y - p.h / 2); maxY = Math.max(maxY, p.y + p.h / 2); }
  for (const e of edgeOut.values()) for (const [, y] of e.points) { minY = Math.min(minY, y); maxY = Math.max(maxY, y); }
  const dy = top && Number.isFinite(minY) ? Math.max(0, minY - margin) : 0;
  const newH = (bottom && Number.isFinite(maxY) ? maxY + margin : height) - dy;
  if (dy) {
    for (const p of pos.values()) p.y -= dy;
    for (const e of edgeOut.values()) {
      for (const q of e.points) q[1] -= dy;
      if (e.y !== undefined) e.y -= dy;
    }
  }
  return Math.max(newH, 8);
}
