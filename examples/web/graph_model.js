// The graph view's model of one graph (the model's or a body), built once per graph in the layout
// worker: who writes and reads each value, which nodes fold into their readers (constants), and
// the hierarchy of the node names that the view groups boxes by.
//
// Folding: a Constant, and an Identity or Cast of a weight, is not drawn as a box; the nodes that
// read its output show it inside their box (as Netron shows initializers: name, type, shape).
// Torch exports carry hundreds of them (a 32-layer Llama: 386 Constants and 64 Identities at the top
// level), which would otherwise be most of the boxes of the first view.
//
// Hierarchy: exporters name nodes by module path (torch `/model/layers.7/self_attn/MatMul`,
// tf2onnx `model/dense/MatMul`); each '/'-separated part but the last is a group. Building it costs
// time linear in the names' length and at most MAX_DEPTH levels are kept (a name 60,000 levels deep
// is grouped by its first MAX_DEPTH parts). Nodes without a path (torch's `Identity_3`, `If_1643`)
// join the lowest group that holds all their neighbours, so a detection model's top-level If does
// not sit outside the group it reads from and writes to. A group with a single item inside (one
// node, or one group) is "transparent": always open and never framed (torch's `/model` holds
// everything; a box for one node says nothing a node box does not).

/** Deepest group level kept; deeper name parts are ignored for grouping. */
export const MAX_DEPTH = 24;

/** Ops that fold into their readers: Constant always, the others when they only read constants. */
export const FOLD_OPS = new Set(['Constant', 'Identity', 'Cast']);

/**
 * Indexes of one graph `s` ({path, parent, node, attribute, inputs, outputs, nodes}, nodes as
 * [name, opType, domain, inputs, outputs]); `bodies` maps a node index to the bodies it opens.
 */
export function indexScope(s, bodies = new Map()) {
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
  const inputs = new Set(s.inputs.filter((k) => k !== null));
  const outputs = new Set(s.outputs.filter((k) => k !== null));
  const g = { ...s, n, producer, consumers, inputs, outputs, bodies, folded: null, tree: null, sources: null };
  g.folded = foldConstants(g);
  g.sources = inputSources(g);
  return g;
}

/** inputSources' codes for an input that is not a drawn node's output. */
export const SOURCE = { NONE: -1, CONSTANT: -2, INPUT: -3, OUTER: -4 };

/**
 * Where each node's inputs come from, packed (the view walks every input of every node at each
 * request: a 100k-node model's 10^5 name lookups were most of opening a group): input j of node i
 * is `src[start[i] + j]`, the index of the drawn node that writes it, or a SOURCE code: none
 * (omitted), a constant (a folded node's output or a weight), a graph input, a value of an
 * enclosing graph.
 */
function inputSources(g) {
  const start = new Int32Array(g.n + 1);
  for (let i = 0; i < g.n; i++) start[i + 1] = start[i] + g.nodes[i][3].length;
  const src = new Int32Array(start[g.n]);
  for (let i = 0; i < g.n; i++) {
    const ins = g.nodes[i][3];
    for (let j = 0; j < ins.length; j++) {
      const k = ins[j];
      const p = k === null ? undefined : g.producer.get(k);
      src[start[i] + j] = k === null ? SOURCE.NONE
        : p !== undefined ? (g.folded[p] ? SOURCE.CONSTANT : p)
          : isWeight(g, k) ? SOURCE.CONSTANT : g.inputs.has(k) ? SOURCE.INPUT : SOURCE.OUTER;
    }
  }
  return { start, src };
}

/** A value of an enclosing graph (a body reads it), not one of this graph. */
export const isOuter = (g, k) => g.path !== '' && !k.startsWith(g.path);

/** A value no node of this graph writes and that is not an input: an initializer. */
export const isWeight = (g, k) => !g.producer.has(k) && !g.inputs.has(k) && !isOuter(g, k);

/** Which nodes fold into their readers (1), in as many passes as out-of-order files need. */
function foldConstants(g) {
  const folded = new Uint8Array(g.n);
  const foldable = (i) => {
    const [, op, domain, ins, outs] = g.nodes[i];
    if ((domain && domain !== 'ai.onnx') || !FOLD_OPS.has(op) || g.bodies.has(i)) return false;
    if (outs.some((k) => k !== null && g.outputs.has(k))) return false; // a graph output stays a box
    for (const k of ins) {
      if (k === null) continue;
      const p = g.producer.get(k);
      if (p === undefined ? !isWeight(g, k) : folded[p] !== 1) return false;
    }
    return op !== 'Constant' || ins.every((k) => k === null);
  };
  for (let pass = 0, changed = true; changed && pass < 4; pass++) {
    changed = false;
    for (let i = 0; i < g.n; i++) {
      if (folded[i] || !foldable(i)) continue;
      folded[i] = 1;
      changed = true;
    }
  }
  return folded;
}

// Section - Name hierarchy

/**
 * The groups of graph `g` (built on first use): group 0 is the graph itself; for each group its
 * parent, depth, name part and child groups; for each node the deepest group it is in.
 */
export function treeOf(g) {
  if (g.tree) return g.tree;
  const parent = [-1];
  const depth = [0];
  const part = [''];
  const kids = [null]; // Map(part -> group), made when a group gets its first child
  const groupOf = new Int32Array(g.n);
  const child = (p, name) => {
    let m = kids[p];
    if (!m) kids[p] = m = new Map();
    let c = m.get(name);
    if (c === undefined) {
      c = parent.length;
      parent.push(p);
      depth.push(depth[p] + 1);
      part.push(name);
      kids.push(null);
      m.set(name, c);
    }
    return c;
  };
  for (let i = 0; i < g.n; i++) {
    if (g.folded[i]) continue;
    const name = g.nodes[i][0];
    let grp = 0;
    // Each part but the last (the node's own name) is a group, up to MAX_DEPTH of them: the scan
    // stops there, so its cost is bounded by the name's length.
    for (let start = 0, d = 0; d < MAX_DEPTH;) {
      const j = name.indexOf('/', start);
      if (j < 0) break;
      if (j > start) { grp = child(grp, name.slice(start, j)); d++; }
      start = j + 1;
    }
    groupOf[i] = grp;
  }
  const t = { parent, depth, part, kids, groupOf, get size() { return parent.length; }, child };
  attachUnscoped(g, t);
  countMembers(g, t);
  if (groupLooseOps(g, t)) countMembers(g, t);
  delete t.child;
  g.tree = t;
  return t;
}

/** The lowest group holding both a and b. */
export function commonGroup(t, a, b) {
  while (t.depth[a] > t.depth[b]) a = t.parent[a];
  while (t.depth[b] > t.depth[a]) b = t.parent[b];
  while (a !== b) { a = t.parent[a]; b = t.parent[b]; }
  return a;
}

/**
 * Nodes without a name path join the lowest group holding their neighbours (writers of what they
 * read, readers of what they write); a chain of such nodes takes a few passes, both ways.
 */
function attachUnscoped(g, t) {
  if (t.size === 1) return; // no node has a path: nothing to join
  const loose = [];
  for (let i = 0; i < g.n; i++) if (!g.folded[i] && t.groupOf[i] === 0 && g.nodes[i][0].indexOf('/') < 0) loose.push(i);
  if (!loose.length) return;
  const placed = new Uint8Array(g.n);
  for (let i = 0; i < g.n; i++) placed[i] = t.groupOf[i] !== 0 ? 1 : 0;
  const place = (i) => {
    let lca = -1;
    const see = (j) => {
      if (j === undefined || j === i || g.folded[j] || !placed[j]) return;
      lca = lca < 0 ? t.groupOf[j] : commonGroup(t, lca, t.groupOf[j]);
    };
    for (const k of g.nodes[i][3]) if (k !== null) see(g.producer.get(k));
    for (const k of g.nodes[i][4]) {
      if (k === null) continue;
      for (const j of g.consumers.get(k) ?? []) { see(j); if (lca === 0) return; }
    }
    if (lca > 0) { t.groupOf[i] = lca; placed[i] = 1; }
  };
  for (let pass = 0; pass < 2; pass++) {
    for (const i of loose) if (!placed[i]) place(i);
    for (let k = loose.length - 1; k >= 0; k--) if (!placed[loose[k]]) place(loose[k]);
  }
}

/** Fewest nodes loose beside groups that are gathered (see groupLooseOps), and per gathering. */
const LOOSE_MIN = 8;
const GATHER_MIN = 4;

/**
 * Nodes directly in a group (or the graph) beside child groups, when there are many, are gathered
 * by connected pieces into groups of their own, `(ops)`, `(ops 2)`, ...: a torch decoder builds its
 * attention mask in its top module's forward (70 nodes beside the 32 layers), which would
 * otherwise crowd the chain of layers. Returns whether any was made.
 */
function groupLooseOps(g, t) {
  const size = t.size;
  const many = new Uint8Array(size);
  let any = false;
  for (let c = 0; c < size; c++) if (t.direct[c] >= LOOSE_MIN && t.children[c].length) { many[c] = 1; any = true; }
  if (!any) return false;
  // Union-find over the edges between loose nodes of the same group.
  const up = new Int32Array(g.n).fill(-1);
  const find = (i) => { while (up[i] >= 0) { if (up[up[i]] >= 0) up[i] = up[up[i]]; i = up[i]; } return i; };
  const loose = (i) => !g.folded[i] && many[t.groupOf[i]];
  for (let i = 0; i < g.n; i++) {
    if (!loose(i)) continue;
    for (const k of g.nodes[i][3]) {
      if (k === null) continue;
      const p = g.producer.get(k);
      if (p === undefined || !loose(p) || t.groupOf[p] !== t.groupOf[i]) continue;
      const a = find(p);
      const b = find(i);
      if (a !== b) up[a] = b;
    }
  }
  const pieces = new Map(); // root -> its nodes
  for (let i = 0; i < g.n; i++) if (loose(i)) { const r = find(i); const l = pieces.get(r); if (l) l.push(i); else pieces.set(r, [i]); }
  const gather = new Set();
  for (const [r, members] of pieces) if (members.length >= GATHER_MIN && !onCycle(g, t, members, (j) => loose(j) && find(j) === r)) gather.add(r);
  const made = new Map(); // root -> group
  const serial = new Map(); // parent group -> pieces made
  let changed = false;
  for (let i = 0; i < g.n; i++) {
    if (!loose(i)) continue;
    const r = find(i);
    if (!gather.has(r)) continue;
    let grp = made.get(r);
    if (grp === undefined) {
      const p = t.groupOf[i];
      let k = (serial.get(p) ?? 0) + 1;
      while (t.kids[p]?.has(k === 1 ? '(ops)' : `(ops ${k})`)) k++;
      serial.set(p, k);
      grp = t.child(p, k === 1 ? '(ops)' : `(ops ${k})`);
      made.set(r, grp);
    }
    t.groupOf[i] = grp;
    changed = true;
  }
  return changed;
}

/**
 * Whether a piece of loose nodes (`members`, all in group p) lies on a cycle through the rest of
 * p: gathered, it would feed a sibling that feeds it back (attention ops around rotary groups),
 * and the group would look like a loop.
 */
function onCycle(g, t, members, inPiece) {
  const p = t.groupOf[members[0]];
  // Nodes are in topological order (ONNX requires it): a path back into the piece only runs
  // through nodes before its last one.
  const last = members[members.length - 1];
  const under = (j) => {
    for (let c = t.groupOf[j]; c >= 0; c = t.parent[c]) if (c === p) return true;
    return false;
  };
  const seen = new Set();
  const queue = [];
  const next = (i) => {
    for (const k of g.nodes[i][4]) {
      if (k === null) continue;
      for (const j of g.consumers.get(k) ?? []) {
        if (j > last || g.folded[j] || seen.has(j) || inPiece(j) || !under(j)) continue;
        seen.add(j);
        queue.push(j);
      }
    }
  };
  for (const i of members) next(i);
  while (queue.length) {
    const j = queue.pop();
    for (const k of g.nodes[j][4]) {
      if (k !== null && (g.consumers.get(k) ?? []).some(inPiece)) return true;
    }
    next(j);
  }
  return false;
}

/** Per group: visible nodes directly in it, in its subtree, its child groups holding any. */
function countMembers(g, t) {
  const direct = new Int32Array(t.size);
  const total = new Int32Array(t.size);
  for (let i = 0; i < g.n; i++) if (!g.folded[i]) direct[t.groupOf[i]]++;
  // Children are made after their parents: a reverse walk sums subtrees.
  for (let c = t.size - 1; c >= 0; c--) {
    total[c] += direct[c];
    if (c > 0) total[t.parent[c]] += total[c];
  }
  const children = Array.from({ length: t.size }, () => []);
  for (let c = 1; c < t.size; c++) if (total[c] > 0) children[t.parent[c]].push(c);
  // Transparent: one item inside (a lone child group, or a lone node), or all there is (the lone
  // item of the graph, or of such a group: torch's `/model`). A frame around either says nothing.
  const transparent = new Uint8Array(t.size);
  const whole = new Uint8Array(t.size);
  const itemsIn = (c) => children[c].length + direct[c];
  whole[0] = 1;
  for (let c = 1; c < t.size; c++) {
    const p = t.parent[c];
    whole[c] = whole[p] && itemsIn(p) === 1 ? 1 : 0;
    if (itemsIn(c) <= 1 || whole[c]) transparent[c] = 1;
  }
  Object.assign(t, { direct, total, children, transparent, whole });
}

/**
 * A group's name in a box or frame: its part, after those of the lone-child groups above it
 * (`features.1/features.1.0`: the first only holds the second), the whole graph's excepted.
 */
export function labelOf(t, grp) {
  let label = t.part[grp];
  for (let c = t.parent[grp]; c > 0 && t.transparent[c] && !t.whole[c] && label.length < 200; c = t.parent[c]) label = `${t.part[c]}/${label}`;
  return label;
}

/** "model/layers.3/mlp": the group's parts joined (at most MAX_DEPTH of them). */
export function prefixOf(t, grp) {
  const parts = [];
  for (let c = grp; c > 0; c = t.parent[c]) parts.push(t.part[c]);
  return parts.reverse().join('/');
}

/** The group named by `prefix` (as prefixOf writes it), or -1. */
export function groupByPrefix(t, prefix) {
  if (prefix === '') return 0;
  let c = 0;
  let start = 0;
  for (let d = 0; d < MAX_DEPTH && start <= prefix.length; d++) {
    let j = prefix.indexOf('/', start);
    if (j < 0) j = prefix.length;
    const next = t.kids[c]?.get(prefix.slice(start, j));
    if (next === undefined) return -1;
    c = next;
    start = j + 1;
  }
  return start > prefix.length ? c : -1;
}
