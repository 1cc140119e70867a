// Graph analyses of the torchvision differential (tests/exporters/torchvision.mjs), on the summary
// make_torchvision.py writes (NAME.graph.json: the main graph's nodes, attributes, small constants):
// which values have a data-dependent shape (found on the graph, never from the engine), the node
// where a value's shape is first lost, and the pattern that node and its shape arithmetic form.

// Inputs whose contents decide an output's shape (the others only lend theirs).
export const SHAPE_INPUTS = {
  Reshape: [1], Expand: [1], Tile: [1], Slice: [1, 2, 3, 4], Pad: [1, 3], Resize: [1, 2, 3], Upsample: [1],
  ConstantOfShape: [0], Range: [0, 1, 2], TopK: [1], Squeeze: [1], Unsqueeze: [1], Split: [1], OneHot: [1],
  ReduceSum: [1], ReduceMean: [1], ReduceMax: [1], ReduceMin: [1], ReduceProd: [1], ReduceL2: [1],
  CenterCropPad: [1], AffineGrid: [1], Col2Im: [1, 2], MaxUnpool: [2], If: [0], Loop: [0, 1],
};
// Ops whose output size is a count of the contents of their inputs.
export const COUNT_OPS = new Set(['NonZero', 'NonMaxSuppression', 'Unique', 'Compress']);

const CAST_NAMES = { 1: 'float', 6: 'int32', 7: 'int64', 9: 'bool', 10: 'float16', 11: 'double' };
const FLOAT_TYPES = new Set([1, 10, 11, 16]);

export function indexGraph(graph) {
  const producer = new Map();
  graph.nodes.forEach((n, i) => n.outputs.forEach((o) => o && producer.set(o, i)));
  return { graph, producer, constants: new Set(Object.keys(graph.initializers)) };
}

/** The values of a small constant (initializer or Constant node), or null. */
export function constantValues(idx, v) {
  const init = idx.graph.initializers[v];
  if (init) return init.values ?? null;
  const p = idx.producer.get(v);
  const n = p === undefined ? null : idx.graph.nodes[p];
  return n?.op === 'Constant' ? n.attrs.value?.values ?? null : null;
}

const subgraphsOf = (n) => Object.values(n.attrs).filter((a) => a && a.graph);

/**
 * Per value: { contents, shape }: whether its contents / its shape depend on the model's input data.
 * A Shape of a value whose shape does not depend on data has contents that do not either; a count
 * op, a shape input fed by data, a subgraph holding a count op or reading a data-shaped value make
 * the shape data-dependent, and that flows to every value computed from it.
 */
export function dataDependence(idx) {
  const { graph } = idx;
  const dd = new Map();
  const isInput = new Set(graph.inputs.filter((v) => !(v in graph.initializers)));
  const get = (v) => dd.get(v) ?? { contents: isInput.has(v), shape: false };
  for (const n of graph.nodes) {
    const subgraphs = subgraphsOf(n);
    const implicit = subgraphs.flatMap((a) => a.implicit);
    const ins = [...n.inputs.filter(Boolean), ...implicit].map(get);
    const anyContents = ins.some((x) => x.contents);
    const anyShape = ins.some((x) => x.shape);
    let shape;
    let contents = anyContents;
    if (n.op === 'Shape' || n.op === 'Size') {
      contents = get(n.inputs[0]).shape;
      shape = false;
    } else if (COUNT_OPS.has(n.op)) {
      shape = anyContents || anyShape;
    } else {
      const byContents = (SHAPE_INPUTS[n.op] ?? []).some((p) => n.inputs[p] && get(n.inputs[p]).contents);
      const countInside = subgraphs.some((a) => a.graph.some((op) => COUNT_OPS.has(op))) && (anyContents || anyShape);
      shape = anyShape || byContents || countInside;
    }
    for (const o of n.outputs) if (o) dd.set(o, { contents: contents || shape, shape });
  }
  return dd;
}

export function opLabel(n) {
  if (n.op === 'Cast') return `Cast(${CAST_NAMES[n.attrs.to] ?? n.attrs.to})`;
  if (n.op === 'Resize' || n.op === 'Upsample') return `${n.op}(${n.attrs.mode ?? 'nearest'})`;
  return n.op;
}

/**
 * The values not exact that node `n`'s result depends on: its bad inputs (and its subgraphs' outer
 * reads), and, through the small integer tensors of shape arithmetic, the values whose unknown dims
 * a Shape / Size reads (a Gather of constant indices out of a Shape reads only those dims).
 * `bad(v)`: v is unresolved or wrong; `shapeOf(v)`: the engine's type of v; `dimBad(d)`: the dim
 * `d` the engine gave is unknown or unusable (a symbol nothing gives or bounds).
 */
export function badUpstream(idx, n, bad, shapeOf, dimBad) {
  const { graph } = idx;
  const found = new Set();
  const seen = new Set();
  const walk = (v, dimsRead) => {
    if (!v || seen.has(`${v}|${dimsRead}`)) return;
    seen.add(`${v}|${dimsRead}`);
    if (!dimsRead && bad(v)) {
      found.add(v);
      return;
    }
    const p = idx.producer.get(v);
    if (p === undefined) return;
    const pn = graph.nodes[p];
    if (pn.op === 'Shape' || pn.op === 'Size') {
      const x = shapeOf(pn.inputs[0]);
      const rank = x?.dims?.length;
      if (rank === undefined) {
        found.add(pn.inputs[0]);
        return;
      }
      const norm = (a, dflt) => (a === undefined ? dflt : a < 0 ? Math.max(a + rank, 0) : Math.min(a, rank));
      const lo = pn.op === 'Size' ? 0 : norm(pn.attrs.start, 0);
      const hi = pn.op === 'Size' ? rank : norm(pn.attrs.end, rank);
      const read = dimsRead ? dimsRead.map((i) => i + lo) : Array.from({ length: Math.max(hi - lo, 0) }, (_, i) => i + lo);
      if (read.some((i) => x.dims[i] === undefined || dimBad(x.dims[i]))) found.add(pn.inputs[0]);
      return;
    }
    const from = graph.nodes[idx.producer.get(pn.inputs[0])];
    const indices = pn.op === 'Gather' && from?.op === 'Shape' ? constantValues(idx, pn.inputs[1]) : null;
    if (indices) {
      const r = shapeOf(from.inputs[0])?.dims?.length ?? 0;
      const span = (from.attrs.end ?? r) - (from.attrs.start ?? 0);
      walk(pn.inputs[0], indices.map((i) => (i < 0 ? i + span : i)));
      return;
    }
    const t = shapeOf(v);
    const small = t?.dims && t.dims.every((d) => typeof d === 'number') && t.dims.reduce((a, b) => a * b, 1) <= 64;
    if (!small) return;
    for (const i of pn.inputs) walk(i, null);
    for (const a of subgraphsOf(pn)) for (const i of a.implicit) walk(i, null);
  };
  for (const i of n.inputs) walk(i, null);
  for (const a of subgraphsOf(n)) for (const i of a.implicit) walk(i, null);
  return [...found];
}

/**
 * The nodes computing a node's shape inputs (none for an op without any), back to Shape /
 * Size / constants / graph inputs, bounded; and the longest producer chain through them, as text.
 */
export function shapeSlice(idx, rootIndex) {
  const { graph } = idx;
  const root = graph.nodes[rootIndex];
  const pos = SHAPE_INPUTS[root.op];
  // An op without shape inputs takes its output shape from its inputs' shapes: no arithmetic to show.
  const starts = (pos ?? []).map((p) => root.inputs[p]).filter(Boolean);
  const seen = new Set();
  const stack = [...starts];
  while (stack.length && seen.size < 200) {
    const p = idx.producer.get(stack.pop());
    if (p === undefined || seen.has(p)) continue;
    seen.add(p);
    const n = graph.nodes[p];
    if (n.op !== 'Shape' && n.op !== 'Size') stack.push(...n.inputs.filter(Boolean));
  }
  const memo = new Map();
  const longest = (v, depth) => {
    const p = idx.producer.get(v);
    if (p === undefined || !seen.has(p) || depth > 40) return [];
    if (memo.has(p)) return memo.get(p);
    const n = graph.nodes[p];
    let best = [];
    if (n.op !== 'Shape' && n.op !== 'Size') {
      for (const i of n.inputs.filter(Boolean)) {
        const c = longest(i, depth + 1);
        if (c.length > best.length) best = c;
      }
    }
    memo.set(p, [...best, p]);
    return memo.get(p);
  };
  let path = [];
  for (const s of starts) {
    const c = longest(s, 0);
    if (c.length > path.length) path = c;
  }
  return { nodes: [...seen], chain: [...path, rootIndex].map((k) => opLabel(graph.nodes[k])).join('→') };
}

/** Every input of `n` has a known shape, with a long expression among its dims (> 150 characters, or > 400 in all). */
function longInputs(n, shapeOf) {
  const types = n.inputs.filter(Boolean).map(shapeOf);
  if (types.some((t) => !t?.dims || t.dims.includes(null))) return false;
  const lengths = types.flatMap((t) => t.dims.map((d) => (typeof d === 'string' ? d.length : 0)));
  return lengths.some((l) => l > 150) || lengths.reduce((a, b) => a + b, 0) > 400;
}

/**
 * The pattern of a root node (a node whose output is not exact while what it reads is).
 * `sizeDependent(v)`: v's runtime size differs between the bindings; `shapeOf(v)`: the engine's type.
 */
export function classifyRoot(idx, rootIndex, sizeDependent, shapeOf) {
  const { graph } = idx;
  const root = graph.nodes[rootIndex];
  const { nodes, chain } = shapeSlice(idx, rootIndex);
  const ops = nodes.map((k) => graph.nodes[k]);
  const floatCast = ops.some((n) => n.op === 'Cast' && FLOAT_TYPES.has(n.attrs.to));
  const rounding = ops.some((n) => n.op === 'Floor' || n.op === 'Ceil' || n.op === 'Round');
  // Only Shape / Size of values whose size is the same at every binding, or none: a constant slice.
  const constant = ops.filter((n) => n.op === 'Shape' || n.op === 'Size').every((n) => !sizeDependent(n.inputs[0]));
  const isConst = (v) => idx.constants.has(v) || graph.nodes[idx.producer.get(v)]?.op === 'Constant';
  const resizeScales = root.op === 'Resize' ? root.inputs[2] : root.op === 'Upsample' ? root.inputs[1] : null;
  let pattern;
  if (COUNT_OPS.has(root.op)) pattern = `data-dependent count without a <= bound (${root.op})`;
  else if (root.op === 'If') pattern = 'If on a shape condition';
  else if (root.op === 'Loop') pattern = 'Loop whose trip count is a size';
  else if (SHAPE_INPUTS[root.op] && !floatCast && ops.some((n) => n.op === 'Div')) {
    pattern = `integer Div of two size expressions (k*X // X) into ${root.op}`;
  } else if (longInputs(root, shapeOf)) pattern = 'expression over the size limit: nested (x+1)//2 strides not simplified';
  else if (!SHAPE_INPUTS[root.op]) {
    const known = root.inputs.filter(Boolean).every((v) => shapeOf(v)?.dims && !shapeOf(v).dims.includes(null));
    pattern = known ? `${root.op}: output unknown although every input shape is known` : `${root.op}: other`;
  } else if (floatCast && constant) pattern = 'unfolded float constants: Cast(float)→…→Ceil/Floor→Cast(int64) on constant sizes';
  else if (floatCast && rounding) pattern = 'sizes computed in float: Cast(float)→Div/Mul→Floor/Ceil→Cast(int64)';
  else if (resizeScales) pattern = isConst(resizeScales) ? 'Resize by constant scales' : 'Resize scales computed';
  else if (root.op === 'Resize') pattern = 'Resize sizes computed';
  else if (floatCast) pattern = 'sizes computed in float, no rounding op';
  else if (root.op === 'Reshape' && ops.some((n) => n.op === 'Mod' || n.op === 'Pad')) pattern = 'Reshape -1 after pad to a multiple';
  else if (ops.some((n) => n.op === 'Mod')) pattern = `pad to a multiple (% k) into ${root.op}`;
  else if (constant && nodes.length) pattern = `constant shape arithmetic not folded, into ${root.op}`;
  else pattern = `${root.op}: other`;
  return { pattern, chain, node: root.name || root.outputs[0], op: root.op };
}
