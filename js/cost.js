// onnx-shapes: the cost model of a result (README "Cost"), read from what the engine computed
// when asked (inferShapes(bytes, { cost: true }): `result.costModel`, the JSON of
// osi_result_cost_json). result.cost() and result.memoryProfile() call these; so may any code
// holding a result as plain data (a page that got it from a worker as JSON): both take any object
// with the result's `costModel`, `definitions`, `constraints` and `values`.
//
// Counts are numbers, expression strings in the dims' grammar (printing the result's named sizes,
// `definitions`), or null when not known. The engine writes the per-node and per-value counts as
// flat arrays that name each distinct expression once (src/cost/cost_json.c): read here into the
// objects of the API, each expression evaluated once per call. At a binding every count whose symbols the binding
// decides is evaluated exactly (BigInt past 2^53, as evaluateDim); the totals at a binding are the
// sums of the nodes' values, and the activation peak the maximum over the schedule of the live
// bytes, computed here on numbers.
import { bindDefinitions, evaluateDim } from './expr_eval.js';
import { checkedName, resolveBindings } from './bindings.js';

const isNode = typeof process === 'object' && process !== null && typeof process.versions?.node === 'string';
const { ShapeInferenceError } = (await (isNode ? import('./errors.cjs') : import('./errors.js'))).default;

const SAFE = BigInt(Number.MAX_SAFE_INTEGER);
const DECIMAL = /^\d+$/;

/** A number, or the BigInt of an integer past 2^53 (as evaluateDim gives them). */
const exact = (v) => (typeof v === 'bigint' && v <= SAFE && v >= -SAFE ? Number(v) : v);

/** A count as the engine wrote it: a decimal string past 2^53 becomes its BigInt. */
const symbolic = (d) => (typeof d === 'string' && DECIMAL.test(d) ? exact(BigInt(d)) : d);

const freezeAll = (list) => Object.freeze(list.map((x) => (x && typeof x === 'object' ? Object.freeze(x) : x)));

/**
 * The engine's cost JSON, parsed, frozen as a whole (plain data, like the rest of a result): the
 * flat arrays of numbers and strings shallowly, so that freezing does not visit each entry.
 */
export function freezeCostModel(model) {
  const { cost, memory } = model;
  Object.freeze(cost.total);
  for (const g of Object.values(cost.byOpType)) Object.freeze(g);
  Object.freeze(cost.byOpType);
  cost.uncounted = freezeAll(cost.uncounted);
  Object.freeze(cost.nodes);
  Object.freeze(cost);
  Object.freeze(memory.order);
  Object.freeze(memory.values);
  Object.freeze(memory);
  Object.freeze(model.exprs);
  model.ops = freezeAll(model.ops);
  Object.freeze(model.elemTypes);
  return Object.freeze(model);
}

function needsCost(result, what) {
  const model = result?.costModel;
  if (!model || typeof model !== 'object' || !model.cost || !model.memory) {
    throw new ShapeInferenceError(`${what} needs a result inferred with the option { cost: true } `
      + '(inferShapes(bytes, { cost: true }), or the same option of inferShapesFromPath, -FromFile, -FromUrl '
      + 'and -FromSource): the engine computes the cost model only when asked, so that inference costs nothing more '
      + 'otherwise', { code: 'NO_COST_MODEL' });
  }
  return model;
}

/** `bindings` (an object or Map of name -> size) as a Map, checked: sizes are integers >= 0. */
function givenSizes(bindings) {
  const entries = bindings instanceof Map ? [...bindings] : bindings !== null && typeof bindings === 'object' && !Array.isArray(bindings)
    ? Object.entries(bindings) : null;
  if (!entries) throw new TypeError('onnx-shapes: bindings must be an object or a Map of symbol -> size');
  for (const [name, v] of entries) {
    checkedName('onnx-shapes: cost:', name);
    const ok = typeof v === 'bigint' ? v >= 0n : Number.isSafeInteger(v) && v >= 0;
    if (!ok) throw new TypeError(`onnx-shapes: the size of ${name} must be an integer >= 0 (a number or BigInt), not ${String(v)}`);
    // No dim holds it: counts at it would only be "not decided", as if no size were given.
    if (typeof v === 'bigint' && v > INT64_MAX) throw new RangeError(`onnx-shapes: the size of ${name}, ${v}, is past int64 (2^63-1): no dim is`);
  }
  return new Map(entries);
}

/**
 * The sizes to evaluate with: the given ones and what the model's relations derive from them; a
 * binding that breaks a relation (a requirement, an equality, a bound) is a ShapeInferenceError
 * BINDING_REJECTED naming it, as the command line's --bind reports it.
 */
export function bindingsFor(result, bindings) {
  const { env, problems } = resolveBindings(result, givenSizes(bindings), 'onnx-shapes: cost:');
  if (problems.length) {
    const more = problems.length > 1 ? ` (and ${problems.length - 1} more)` : '';
    throw new ShapeInferenceError(`these sizes are impossible for this model: ${problems[0]}${more}`, { code: 'BINDING_REJECTED' });
  }
  return env;
}

/** An evaluator of counts at env: the value, or the count itself when env does not decide it. */
function evaluator(env, definitions) {
  const seen = new Map();
  // The named sizes' values, once (evaluateDim with the definitions binds them at every call: a
  // model of 4,096 named sizes took 76 s for one cost({ bindings })).
  const bound = definitions?.length ? bindDefinitions(env, definitions) : env;
  return (d) => {
    if (d === null || typeof d === 'number' || typeof d === 'bigint') return d;
    if (DECIMAL.test(d)) return symbolic(d);
    let v = seen.get(d);
    if (v === undefined) {
      v = exact(evaluateDim(d, bound));
      seen.set(d, v);
    }
    return v ?? d;
  };
}

const isValue = (v) => typeof v === 'number' || typeof v === 'bigint';

// A count past int64 is not decided at a binding, as in the engine (checked int64 arithmetic) and
// evaluateDim: a sum or a live size past it is not one either, never a number no count could be.
const INT64_MAX = (1n << 63n) - 1n;

/** The sum of counts that are all values, exactly; null when one is not or the sum passes int64. */
function sum(values) {
  let n = 0; // exact while within 2^53; past it, BigInt
  let big = null;
  for (const v of values) {
    if (typeof v === 'number' && big === null && Math.abs(n + v) <= Number.MAX_SAFE_INTEGER) n += v;
    else if (isValue(v)) big = (big ?? BigInt(n)) + BigInt(v);
    else return null;
  }
  if (big === null) return n;
  return big > INT64_MAX ? null : exact(big);
}

const opKey = (n) => (n.domain ? `${n.domain}:${n.opType}` : n.opType);

/**
 * A reader of the flat arrays' counts (cost_json.c): a number, null, or -(k+1) for exprs[k],
 * given as `at` gives it (the expression, or its value at the sizes), each exprs[k] once.
 */
function refs(model, at) {
  const exprs = model.exprs ?? [];
  const memo = new Array(exprs.length);
  return (v) => {
    if (v === null || v >= 0) return v;
    const k = -v - 1;
    if (!(k in memo)) memo[k] = at(symbolic(exprs[k]));
    return memo[k];
  };
}

// What a cost model gives whatever the sizes, read once per model (frozen: it cannot change), as
// a viewer may ask for the cost at many bindings: per node its name, op, weight bytes and element
// type; the nodes counted (MACs not null), and those of each op type.
const skeletons = new WeakMap();

function skeleton(model) {
  let s = skeletons.get(model);
  if (s) return s;
  const flat = model.cost.nodes;
  const { ops, elemTypes } = model;
  const fixed = new Array(flat.length / 7);
  const counted = [];
  const byKey = new Map();
  for (let i = 0, at = 0; i < fixed.length; i++, at += 7) {
    const op = ops[flat[at + 1]];
    fixed[i] = { name: flat[at], opType: op[0], domain: op[1], weightBytes: symbolic(flat[at + 4]),
      elemType: flat[at + 6] < 0 ? null : elemTypes[flat[at + 6]] };
    if (flat[at + 2] === null) continue;
    counted.push(i);
    const key = opKey(fixed[i]);
    if (!byKey.has(key)) byKey.set(key, []);
    byKey.get(key).push(i);
  }
  s = { fixed, counted, byKey };
  if (Object.isFrozen(model)) skeletons.set(model, s);
  return s;
}

/** The nodes of the flat array (7 entries a node), counts through `ref`. */
function readNodes(model, ref) {
  const flat = model.cost.nodes;
  const { fixed } = skeleton(model);
  const nodes = new Array(fixed.length);
  for (let i = 0, at = 0; i < nodes.length; i++, at += 7) {
    const f = fixed[i];
    nodes[i] = { name: f.name, opType: f.opType, domain: f.domain, macs: ref(flat[at + 2]), flops: ref(flat[at + 3]),
      weightBytes: f.weightBytes, outputBytes: ref(flat[at + 5]), elemType: f.elemType };
  }
  return nodes;
}

/**
 * The activation bytes live at each step of the schedule (`ref` gives each value's bytes: null
 * where not known), and the peak. Steps follow costModel.memory.order.
 */
function sweep(memory, ref) {
  const steps = Math.max(memory.order.length, 1);
  const unknown = new Array(steps + 1).fill(0);
  const v = memory.values;
  const sizes = new Array(v.length / 4);
  let all = 0; // every value's bytes at once: when within 2^53 so is every step's, in numbers
  for (let i = 0; i < v.length; i += 4) {
    const bytes = ref(v[i + 1]);
    sizes[i / 4] = bytes;
    all = typeof bytes === 'number' ? all + bytes : isValue(bytes) ? Infinity : all;
  }
  const zero = all <= Number.MAX_SAFE_INTEGER ? 0 : 0n;
  const delta = new Array(steps + 1).fill(zero);
  for (let i = 0; i < v.length; i += 4) {
    const bytes = sizes[i / 4];
    if (isValue(bytes)) {
      const b = zero === 0 ? bytes : BigInt(bytes);
      delta[v[i + 2]] += b;
      delta[v[i + 3] + 1] -= b;
    } else {
      unknown[v[i + 2]]++;
      unknown[v[i + 3] + 1]--;
    }
  }
  const live = new Array(steps);
  let bytes = zero, missing = 0, peak = null, peakStep = null;
  for (let k = 0; k < steps; k++) {
    bytes += delta[k];
    missing += unknown[k];
    live[k] = missing || bytes > INT64_MAX ? null : exact(bytes);
    if (live[k] === null) peak = undefined;
    else if (peak !== undefined && (peak === null || live[k] > peak)) [peak, peakStep] = [live[k], k];
  }
  return { live, peak: peak ?? null, peakStep: peak === undefined ? null : peakStep };
}

/**
 * The result's cost (README "Cost"): { total, byOpType, nodes, uncounted }, symbolic, or with
 * options.bindings every count the sizes decide as a number.
 */
export function resultCost(result, options) {
  const model = needsCost(result, 'cost()');
  const { cost } = model;
  const bindings = options?.bindings;
  const t = cost.total;
  const uncounted = cost.uncounted.map((u) => ({ ...u }));
  if (bindings === undefined || bindings === null) {
    const byOpType = {};
    for (const [k, g] of Object.entries(cost.byOpType)) byOpType[k] = { ...g, macs: symbolic(g.macs), flops: symbolic(g.flops) };
    return {
      total: { ...t, macs: symbolic(t.macs), flops: symbolic(t.flops), params: symbolic(t.params),
        weightBytes: symbolic(t.weightBytes), activationPeakBytes: symbolic(t.activationPeakBytes) },
      byOpType,
      nodes: readNodes(model, refs(model, (d) => d)),
      uncounted,
    };
  }
  const env = bindingsFor(result, bindings);
  const at = evaluator(env, result.definitions);
  const ref = refs(model, at);
  const nodes = readNodes(model, ref);
  const { counted: countedAt, byKey } = skeleton(model);
  const counted = countedAt.map((i) => nodes[i]);
  // A total at a binding is the sum of its nodes' values; when one is not decided, the symbolic
  // total (evaluated if it can be).
  const total = (key, symbolicTotal, list) => sum(list.map((n) => n[key])) ?? at(symbolicTotal);
  const byOpType = {};
  for (const [k, g] of Object.entries(cost.byOpType)) {
    const list = (byKey.get(k) ?? []).map((i) => nodes[i]);
    byOpType[k] = { ...g, macs: list.length ? total('macs', g.macs, list) : null,
      flops: list.length ? total('flops', g.flops, list) : null };
  }
  const { peak } = sweep(model.memory, ref);
  return {
    total: { ...t, macs: total('macs', t.macs, counted), flops: total('flops', t.flops, counted), params: symbolic(t.params),
      weightBytes: symbolic(t.weightBytes), activationPeakBytes: peak ?? at(t.activationPeakBytes) },
    byOpType,
    nodes,
    uncounted,
  };
}

/**
 * Activation memory over the schedule at options.bindings: per step (the engine's topological
 * order of the graph's nodes) the node and the bytes live there (null where a live value's size
 * is not decided), the peak and its step, and each value's bytes and live range.
 */
export function memoryProfile(result, options) {
  const { memory } = needsCost(result, 'memoryProfile()');
  const bindings = options?.bindings;
  const env = bindings === undefined || bindings === null ? new Map() : bindingsFor(result, bindings);
  const model = result.costModel;
  const ref = refs(model, evaluator(env, result.definitions));
  const { live, peak, peakStep } = sweep(memory, ref);
  const flat = model.cost.nodes;
  const steps = memory.order.map((index, k) => ({ node: index, name: flat[7 * index] ?? '',
    opType: model.ops[flat[7 * index + 1]]?.[0] ?? '', liveBytes: live[k] }));
  const values = [];
  for (let i = 0, v = memory.values; i < v.length; i += 4) {
    values.push({ key: v[i], bytes: ref(v[i + 1]), from: v[i + 2], to: v[i + 3] });
  }
  return { steps, peakBytes: peak, peakStep, values };
}
