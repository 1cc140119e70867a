// The table's sizes at the page's bindings, counted in the inference worker (worker.js) so that
// the page's main thread only puts them on screen: what the model's relations decide from the
// bindings and what they refuse (js/bindings.js resolveBindings, as the CLI's --bind), then each
// row type's concrete dims and bytes. A 100k-node model has 10^4-10^5 relations and as many
// distinct shapes: parsing and evaluating them took the page's thread 0.2-0.4 s CPU in one task
// at each binding (bench_table.mjs --nonzero). Here each expression is parsed once per model, and
// the answer crosses as typed arrays (transferred, not cloned).
import { evaluate, parse, symbolsThrough } from '../../js/expr.js';
import { resolveBindings } from '../../js/bindings.js';
import { ELEM_BYTES } from './page_util.js';

/** At most this many refused relations cross to the page (it shows 5 and counts the rest). */
const ISSUES_SENT = 200;
/** At most this many dims with no value (or a negative one) are listed. */
const DIMS_LISTED = 20;

/** The tensor inside a sequence/optional, for the shape of a value. */
function innerTensor(t) {
  while (t && (t.kind === 'sequence' || t.kind === 'optional')) t = t.elem;
  return t && t.kind === 'tensor' ? t : null;
}

/**
 * What a result's sizes are counted from: its relations (a frozen object, so that resolveBindings
 * prepares them once) and the row types, by the index the page's rows name them by (worker.js
 * rowsPart adds each as the rows that use it are made, with the name of its first row).
 */
export function sizeTable(result) {
  const relations = Object.freeze({
    values: {},
    constraints: result.constraints ?? {},
    definitions: result.definitions ?? [],
  });
  const trees = new Map(); // dim text -> {tree} | {error}: distinct shapes repeat their dims
  const types = [];
  return {
    relations,
    types,
    definitions: result.definitions ?? [],
    /** Row type `types.length` (its type, its symbols, the name of the first row of that type). */
    addType(type, syms, name) {
      const tensor = innerTensor(type);
      const dims = tensor && Array.isArray(tensor.dims) ? tensor.dims.map((d) => compiledDim(d, trees)) : null;
      types.push({
        dims,
        shapeKey: dims ? `${dims.length}:${tensor.dims.join(',')}` : '',
        elemBytes: tensor && type.kind === 'tensor' ? ELEM_BYTES[tensor.elemType] : undefined,
        // Sizes the model refuses hide every size that depends on them; a weight's fixed one stays.
        symbolic: syms.length > 0 || (dims !== null && dims.some((d) => d.text !== undefined)),
        name,
      });
    },
  };
}

function compiledDim(d, trees) {
  if (typeof d !== 'string') return { value: typeof d === 'number' ? d : null };
  let c = trees.get(d);
  if (!c) {
    try {
      c = { text: d, tree: parse(d) };
    } catch (err) {
      c = { text: d, error: err };
    }
    trees.set(d, c);
  }
  return c;
}

/** A dim's value at env: a number, a BigInt, null (a symbol without a size), or the RangeError saying why it has none. */
function dimValue(c, env) {
  if (c.text === undefined) return c.value;
  if (c.error) return null; // not an expression: unknown, never a wrong size
  try {
    return evaluate(c.tree, env);
  } catch (err) {
    return err instanceof RangeError ? err : null;
  }
}

/**
 * The sizes at `bindings` (a Map): { env, derived, issues (the first ISSUES_SENT refused relations,
 * then the dims with no value or a negative one), moreIssues (refused relations not sent),
 * involved (the symbols of every refused relation), typeCount, dimStart (Int32Array: type k's dims
 * are dims[dimStart[k]] up to dimStart[k+1]), dims (Float64Array, NaN: no value), big ([index into
 * dims, BigInt] for a dim past 2^53), bytes (Float64Array per type, NaN: none) }, and the buffers
 * to transfer.
 */
export function sizesAt(table, bindings) {
  const { env, derived, issues: all } = resolveBindings(table.relations, bindings);
  const { types } = table;
  // Nothing bound nor derived (a model just shown): a dim written with a symbol has no value and
  // the engine writes a constant dim as a number: no expression needs evaluating.
  const unbound = env.size === 0;
  const dimStart = new Int32Array(types.length + 1);
  for (let k = 0; k < types.length; k++) dimStart[k + 1] = dimStart[k] + (types[k].dims?.length ?? 0);
  const dims = new Float64Array(dimStart[types.length]).fill(NaN);
  const bytes = new Float64Array(types.length).fill(NaN);
  const big = [];
  const brokenDims = [];
  const listed = new Set(); // shapes whose broken dims are listed (types of one shape differ in element type)
  for (let k = 0; k < types.length; k++) {
    const t = types[k];
    if (!t.dims) continue;
    const firstOfShape = !listed.has(t.shapeKey);
    listed.add(t.shapeKey);
    let count = 1;
    for (let j = 0; j < t.dims.length; j++) {
      const c = t.dims[j];
      let v = unbound && c.text !== undefined ? null : dimValue(c, env);
      if (v instanceof RangeError || (v !== null && v < 0)) {
        if (brokenDims.length < DIMS_LISTED && firstOfShape) {
          const why = v instanceof RangeError ? `has no value at these sizes (${v.message})` : `would be ${v} at these sizes`;
          brokenDims.push({ kind: 'dim', sentence: `dim ${j} of '${t.name}' (${c.text}) ${why}`, a: c.text, b: null, why, value: t.name, dim: j });
        }
        v = null;
      }
      if (v === null) { count = null; continue; }
      const at = dimStart[k] + j;
      dims[at] = Number(v);
      if (typeof v === 'bigint') big.push([at, v]);
      if (count !== null) count *= Number(v);
    }
    if (count !== null && t.elemBytes !== undefined) bytes[k] = Math.ceil(count * t.elemBytes);
  }
  const refused = all.length + brokenDims.length > 0;
  if (refused) {
    // Only the sizes the binding decides are refused; a weight's fixed shape keeps its bytes.
    for (let k = 0; k < types.length; k++) {
      if (!types[k].symbolic) continue;
      bytes[k] = NaN;
      dims.fill(NaN, dimStart[k], dimStart[k + 1]);
    }
  }
  const involved = new Set();
  for (const q of [...all, ...brokenDims]) {
    for (const side of [q.a, q.b]) if (typeof side === 'string') for (const s of symbolsThrough(side, table.definitions)) involved.add(s);
  }
  const answer = {
    env,
    derived,
    issues: [...all.slice(0, ISSUES_SENT), ...brokenDims],
    moreIssues: Math.max(0, all.length - ISSUES_SENT),
    involved: [...involved],
    typeCount: types.length,
    dimStart,
    dims,
    big: refused ? big.filter(([at]) => !Number.isNaN(dims[at])) : big,
    bytes,
  };
  return { answer, transfer: [dimStart.buffer, dims.buffer, bytes.buffer] };
}
