// Sizes for a result's symbols, checked against what the model needs to run: the sizes given, the
// sizes they decide through the model's relations (an equality `past_seq+seq == total_seq`, a label
// `Reluy_dim_0 = batch`), every relation and requirement checked at them, the input domain
// (result.domain) and every dim of the model's graph (a size is never negative). Used by
// result.evaluate (js/result.js), the command line's --bind (js/cli.js) and the demo page.
// Linear: each relation is looked at again only when one of its symbols gets a size.
import { evalDim, evaluate, parse, parseCached, printSymbol, symbolsOf, tokenize } from './expr_eval.js';

const isNode = typeof process === 'object' && process !== null &&
  typeof process.versions === 'object' && process.versions !== null &&
  typeof process.versions.node === 'string';
// In Node the class comes from errors.cjs, as js/index.js's: one class per process.
const { RequirementError } = (await (isNode ? import('./errors.cjs') : import('./errors.js'))).default;

/**
 * A dim's value at `env`: null when a symbol has no size; a RangeError (returned, not thrown) when
 * the expression has no value there (Broadcast(3, 4), a division by 0).
 */
function valueAt(dim, env) {
  try {
    return evalDim(dim, env);
  } catch (err) {
    if (err instanceof RangeError) return err;
    throw err;
  }
}

/**
 * An expression parsed once, for evaluating it at many sizes: a number or null as it is, a string
 * as its tree, or the SyntaxError parsing it threw (thrown again where it is evaluated, as evalDim).
 */
function compiled(dim, cache) {
  if (typeof dim !== 'string') return { dim };
  let c = cache.get(dim);
  if (c) return c;
  try {
    c = { tree: parse(dim) };
  } catch (err) {
    c = { error: err };
  }
  cache.set(dim, c);
  return c;
}

/** valueAt for a compiled() expression. */
function valueOf(c, env) {
  if (c.tree === undefined) {
    if (c.error) throw c.error;
    return typeof c.dim === 'number' ? c.dim : null;
  }
  try {
    return evaluate(c.tree, env);
  } catch (err) {
    if (err instanceof RangeError) return err;
    throw err;
  }
}

/** Whether `tree` is affine in symbol `s`: s only under +, -, negation and products with no other s. */
function affineIn(tree, s) {
  const has = (e) => (e.k === 'sym' ? e.v === s : e.k === 'neg' ? has(e.a) : e.k === 'bin' ? has(e.a) || has(e.b)
    : e.k === 'fn' ? e.args.some(has) : false);
  const ok = (e) => {
    if (!has(e)) return true;
    if (e.k === 'sym') return true;
    if (e.k === 'neg') return ok(e.a);
    if (e.k === 'bin' && (e.op === '+' || e.op === '-')) return ok(e.a) && ok(e.b);
    if (e.k === 'bin' && e.op === '*' && !e.float) return has(e.a) !== has(e.b) && ok(has(e.a) ? e.a : e.b);
    return false;
  };
  return !tree.float && ok(tree);
}

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/**
 * The size of the one symbol of `text` that has none yet for `text` to equal `target`, when
 * `text` is affine in it (`past_seq+seq` = 10 with seq = 7 gives past_seq = 3); else null.
 */
function solveFor(text, target, env) {
  let tree;
  try {
    tree = parseCached(text);
  } catch {
    return null;
  }
  const free = symbolsOf(text).filter((s) => !env.has(s));
  if (free.length !== 1 || !affineIn(tree, free[0])) return null;
  const s = free[0];
  const at = (v) => { // s tried at v, and taken back (env has no size for s)
    env.set(s, v);
    try {
      return valueAt(text, env);
    } finally {
      env.delete(s);
    }
  };
  const e0 = at(0);
  const e1 = at(1);
  if (!Number.isSafeInteger(e0) || !Number.isSafeInteger(e1) || e1 === e0) return null;
  if (typeof target === 'number' && !Number.isSafeInteger(target)) return null;
  // In BigInt: the target may be past 2^53 (a size is a BigInt there, as evaluate gives it).
  const num = BigInt(target) - BigInt(e0);
  const slope = BigInt(e1 - e0);
  if (num % slope !== 0n) return [s, null];
  const q = num / slope;
  const v = q >= -MAX_SAFE && q <= MAX_SAFE ? Number(q) : q;
  return at(v) == target ? [s, v] : [s, null]; // == on purpose: a size is a number or a BigInt
}

/**
 * Every symbol the result mentions: in dims, known contents, constraints, labels and the
 * definitions of its named sizes (the names themselves are not symbols: their definitions say them).
 */
export function modelSymbols(result) {
  let seen = symbolsOfResults.get(result);
  if (!seen) {
    seen = collectSymbols(result);
    if (Object.isFrozen(result)) symbolsOfResults.set(result, seen);
  }
  return new Set(seen);
}

// A result's symbols depend on nothing else, and a viewer asks for them at every binding it
// tries (cost({ bindings }), evaluate): found once per result (a frozen one: it cannot change).
const symbolsOfResults = new WeakMap();

function collectSymbols(result) {
  const seen = new Set();
  const texts = new Set();
  const addType = (t) => {
    if (!t || typeof t !== 'object') return;
    for (const d of t.dims ?? []) if (typeof d === 'string') texts.add(d);
    for (const d of t.value ?? []) if (typeof d === 'string') texts.add(d);
    addType(t.elem);
    addType(t.value && !Array.isArray(t.value) ? t.value : null);
  };
  const types = new Set(Object.values(result.values)); // types are shared between values
  for (const t of types) addType(t);
  const c = result.constraints ?? {};
  for (const [a, b] of [...(c.equal ?? []), ...(c.lessEqual ?? [])]) texts.add(a).add(b);
  for (const [label, size] of Object.entries(c.labels ?? {})) texts.add(label).add(size);
  for (const r of c.requirements ?? []) texts.add(r.lhs).add(r.rhs);
  for (const r of result.domain?.relations ?? []) texts.add(r.lhs).add(r.rhs);
  for (const s of Object.keys(result.domain?.symbols ?? {})) seen.add(s);
  for (const d of result.definitions ?? []) texts.add(d.expr);
  const names = new Set((result.definitions ?? []).map((d) => d.name)); // relations[i] defines the i-th
  for (const text of texts) for (const s of symbolsOf(text)) if (!names.has(s)) seen.add(s);
  return seen;
}

/** The top-level arguments of `Broadcast(a,b,...)`, or null when `text` is not one Broadcast. */
function broadcastArgs(text) {
  const head = 'Broadcast(';
  if (!text.startsWith(head) || !text.endsWith(')')) return null;
  const args = [''];
  let depth = 0;
  try {
    for (const tok of tokenize(text.slice(head.length, -1))) {
      if (tok.t === '(') depth++;
      else if (tok.t === ')' && --depth < 0) return null;
      if (tok.t === ',' && depth === 0) args.push('');
      else args[args.length - 1] += tok.s;
    }
  } catch {
    return null;
  }
  return depth === 0 && args.every((a) => a) ? args : null;
}

/**
 * A requirement `Broadcast(x,y) == y` (either side) as the sizes it allows: x is 1 or x is y (a
 * size broadcast against another must come out as that one): { x, y }, else null. A constant y
 * must be > 1 (Broadcast(x,1) == 1 is just x == 1).
 */
export function oneOfParts(lhs, op, rhs) {
  if (op !== '==') return null;
  for (const [b, y] of [[lhs, rhs], [rhs, lhs]]) {
    const args = broadcastArgs(b);
    if (!args || args.length !== 2) continue;
    const i = args.indexOf(y);
    if (i < 0 || (/^[0-9]+$/.test(y) && Number(y) <= 1)) continue;
    return { x: args[1 - i], y };
  }
  return null;
}

/** "x == 1 or x == 16" against a constant; "x == y or x == 1" against a size (checked first). */
function oneOfText({ x, y }) {
  return /^[0-9]+$/.test(y) ? `${x} == 1 or ${x} == ${y}` : `${x} == ${y} or ${x} == 1`;
}

/**
 * A relation as a person reads it: "M == 3"; "T == 1 or T == 16" for `Broadcast(T,16) == 16`;
 * "total_seq == past_seq+seq or total_seq == 1" for `past_seq+seq == Broadcast(total_seq,past_seq+seq)`.
 */
export function relationText(lhs, op, rhs) {
  const parts = oneOfParts(lhs, op, rhs);
  return parts ? oneOfText(parts) : `${lhs} ${op} ${rhs}`;
}

/** "node 3 'conv' (Conv) in loop/body/ requires", or "the graph's inputs require" for a fact of no node. */
function requiredBy(r) {
  if (r.nodeIndex === null || r.nodeIndex === undefined) return 'the graph\'s inputs require';
  return `node ${r.nodeIndex}${r.node ? ` '${r.node}'` : ''} (${r.opType})${r.path ? ` in ${r.path}` : ''} requires`;
}

/**
 * What resolveBindings reads of a result whatever the sizes: its symbols, the names of its named
 * sizes, its relations in the order they are checked (each side parsed once) and, for each symbol,
 * the relations that mention it. Made once per frozen result (a viewer binds sizes again and
 * again: a 100k-node model has 10^4-10^5 relations, whose parsing was most of each binding).
 */
function prepared(result) {
  let p = preparedOfResults.get(result);
  if (p) return p;
  const c = result.constraints ?? {};
  // Equalities and labels both say "these two are one size"; the checks come after, so that a
  // contradiction is reported at the relation that states it.
  // A named size (result.definitions) is its definition's value: a relation like the others, so that
  // sizes derived later give it a value too; one that has no value at these sizes only stays unbound.
  const names = new Set((result.definitions ?? []).map((d) => d.name)); // relations[i] defines the i-th
  const pair = (kind, says) => ([a, b]) => ({ kind, a, b, op: kind === 'bound' ? '<=' : '==', says });
  const fromRequirement = (kind) => (r) => ({ kind, a: r.lhs, b: r.rhs, op: r.relation, says: requiredBy(r), relation: r, oneOf: oneOfParts(r.lhs, r.relation, r.rhs) });
  const relations = [
    ...(result.definitions ?? []).map((d) => ({ kind: 'definition', a: d.name, b: d.expr, op: '==', says: 'the definition says', definition: true })),
    ...(c.equal ?? []).map(pair('equality', 'the model says')),
    ...Object.entries(c.labels ?? {}).map(pair('label', 'the label says')),
    ...(c.lessEqual ?? []).map(pair('bound', 'the model says')),
    // A requirement inside an If branch or a loop body holds only where that body runs: a size
    // where another branch runs may break it (only the model's graph's are checked).
    ...(c.requirements ?? []).filter((r) => !r.path).map(fromRequirement('requirement')),
    // Sizes are never negative: a dim of the graph that these sizes make negative (the requirements
    // of the domain are in c.requirements already).
    ...(result.domain?.relations ?? []).filter((r) => r.requirement === null).map(fromRequirement('size')),
  ];
  const bySymbol = new Map();
  const trees = new Map(); // relations repeat their sides (10^4 copies of `4*batch`)
  relations.forEach((rel, i) => {
    rel.ca = compiled(rel.a, trees);
    rel.cb = compiled(rel.b, trees);
    if (rel.oneOf) { rel.cx = compiled(rel.oneOf.x, trees); rel.cy = compiled(rel.oneOf.y, trees); }
    for (const s of new Set([...symbolsOf(rel.a), ...symbolsOf(rel.b)])) {
      const list = bySymbol.get(s);
      if (list) list.push(i);
      else bySymbol.set(s, [i]);
    }
  });
  p = { symbols: modelSymbols(result), names, relations, bySymbol };
  if (Object.isFrozen(result)) preparedOfResults.set(result, p);
  return p;
}

const preparedOfResults = new WeakMap();

/**
 * The sizes to evaluate the shapes with: `given` (a Map) and what the model's equalities and labels
 * decide from them. Returns { env, derived: [[symbol, size, the relation it comes from]], unknown:
 * [names the model does not have], unbound: [symbols still without a size], problems: [sentences: a
 * relation the sizes break, those they make false first, each group in the order equalities,
 * labels, upper bounds, requirements, the domain's other relations], broken: the same as { kind,
 * relation, sentence, why, values }, issues: the same for the demo page (js/../examples/web) }.
 * `relation` is the requirement (or domain relation) object itself for those kinds. With
 * `refuseNamesAs` (the start of the message), a named size given as a size is a TypeError.
 */
export function resolveBindings(result, given, refuseNamesAs = null) {
  const { symbols, names, relations, bySymbol } = prepared(result);
  const env = new Map(given);
  const derived = [];
  const unknown = [...given.keys()].filter((k) => !symbols.has(k));
  const found = []; // [relation index, problem]
  const judged = new Set();
  // why: what is wrong, after the relation ("but at these sizes ...").
  // falsified: the sizes make it false (values says so too when both sides have one).
  const judge = (i, why, values, falsified = values !== null) => {
    const rel = relations[i];
    if (!judged.has(i)) found.push([i, { kind: rel.kind, relation: rel.relation ?? null, sentence: `${rel.says} ${relationText(rel.a, rel.op, rel.b)}, ${why}`, why, values, falsified }]);
    judged.add(i);
  };
  const queue = relations.map((_, i) => relations.length - 1 - i); // popped in order
  while (queue.length) {
    const i = queue.pop();
    if (judged.has(i)) continue;
    const rel = relations[i];
    const x = valueOf(rel.ca, env);
    const y = valueOf(rel.cb, env);
    const undefinedSide = x instanceof RangeError ? x : y instanceof RangeError ? y : null;
    const sizeX = rel.oneOf ? valueOf(rel.cx, env) : null;
    const sizeY = rel.oneOf ? valueOf(rel.cy, env) : null;
    const isSize = (v) => typeof v === 'number' || typeof v === 'bigint';
    if (isSize(sizeX) && isSize(sizeY)) { // x is 1 or y
      // == on purpose: a size is a number or a BigInt
      if (sizeX == 1 || sizeX == sizeY) judged.add(i);
      else judge(i, `but at these sizes ${rel.oneOf.x} is ${sizeX}${/^[0-9]+$/.test(rel.oneOf.y) ? '' : ` and ${rel.oneOf.y} is ${sizeY}`}`, null, true);
      continue;
    }
    if (undefinedSide) {
      if (rel.definition) judged.add(i);
      else judge(i, `which has no value at these sizes (${undefinedSide.message})`, null);
      continue;
    }
    if (x !== null && y !== null) {
      if (rel.op === '==' ? x !== y : x > y) judge(i, `but at these sizes ${rel.a} is ${x} and ${rel.b} is ${y}`, [x, y]);
      else judged.add(i);
      continue;
    }
    if (rel.op !== '==' || (x === null && y === null)) continue; // back in the queue when a symbol gets a size
    // One side known, the other affine in its one symbol without a size: that symbol's size.
    const [text, value] = x === null ? [rel.a, y] : [rel.b, x];
    const solved = solveFor(text, value, env);
    if (!solved) continue;
    const [sym, size] = solved;
    if (size === null || size < 0) {
      judge(i, `which no size of ${sym} meets at these sizes (${text} = ${value})`, null);
      continue;
    }
    env.set(sym, size);
    if (!names.has(sym)) derived.push([sym, size, `${rel.a} ${rel.op} ${rel.b}`]);
    judged.add(i);
    for (const j of bySymbol.get(sym) ?? []) queue.push(j);
  }
  if (refuseNamesAs !== null) refuseNamedSizes(names, relations, given, env, refuseNamesAs);
  // A relation these sizes make false comes before one they leave without a value (a Broadcast of
  // two sizes, a label no size meets): that one usually follows from the other.
  const rank = ([i, p]) => (p.falsified ? 0 : 1) * relations.length + i;
  found.sort((p, q) => rank(p) - rank(q));
  const unbound = [...symbols].filter((sym) => !env.has(sym) && !names.has(sym)).sort();
  const broken = found.map(([, { falsified, ...p }]) => p);
  // issues: the same for the demo page (which input, which node): { sentence, kind, a, op, b, why,
  // values, requirement: the result's entry for a requirement, else null }.
  const issues = found.map(([i, p]) => {
    const { kind, a, op, b } = relations[i];
    return { sentence: p.sentence, kind, a, op, b, why: p.why, values: p.values, requirement: kind === 'requirement' ? p.relation : null };
  });
  return { env, derived, unknown, unbound, problems: broken.map((p) => p.sentence), broken, issues };
}

const INT64_MAX = 2n ** 63n - 1n;

/**
 * A size given to result.evaluate: an integer >= 0 (number or BigInt) that an ONNX dim (int64) can
 * hold, as a number when it is safe. Anything else is refused here, never evaluated to null dims.
 */
function checkedSize(name, v) {
  const say = `onnx-shapes: evaluate: ${printSymbol(name)} =`;
  if (typeof v === 'bigint') {
    if (v < 0n) throw new RangeError(`${say} ${v} is negative: a size is never`);
    if (v > INT64_MAX) throw new RangeError(`${say} ${v} is past int64 (2^63-1): no dim is`);
    return v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : v;
  }
  if (typeof v !== 'number' || !Number.isInteger(v)) {
    throw new TypeError(`${say} ${String(v)} is not an integer size`);
  }
  if (v < 0) throw new RangeError(`${say} ${v} is negative: a size is never`);
  if (v >= 2 ** 63) throw new RangeError(`${say} ${v} is past int64 (2^63-1): no dim is`);
  if (!Number.isSafeInteger(v)) {
    throw new TypeError(`${say} ${v} is past 2^53 as a number, which may have rounded it: give it as a BigInt`);
  }
  return v;
}

/**
 * Refuses a named size (result.definitions: floor_1 = Floor(1.5*h)) given as a size where its
 * definition has no value (h has no size, given or derived): the name is no symbol, and a size for
 * it alone gives dims at a value no size of its symbols may reach (Floor(1.5*h) is 8 for no h). One
 * given with its symbols is checked as its definition says; one whose definition decides a symbol
 * (size_2 = 2*N+1) derives it. `who` begins the message ('onnx-shapes: evaluate:').
 */
function refuseNamedSizes(names, relations, given, env, who) {
  let index = null; // name -> its relation, made when one is given
  for (const name of given.keys()) {
    if (!names.has(name)) continue;
    index ??= new Map(relations.filter((rel) => rel.definition).map((rel) => [rel.a, rel]));
    const rel = index.get(name);
    const v = valueOf(rel.cb, env);
    if (typeof v === 'number' || typeof v === 'bigint') continue;
    const expr = rel.b;
    const of = symbolsOf(expr).filter((s) => !index.has(s) && !env.has(s));
    throw new TypeError(`${who} ${printSymbol(name)} is a named size (${printSymbol(name)} = ${expr}), not a symbol: `
      + `give the size${of.length === 1 ? '' : 's'} of ${of.length ? of.map(printSymbol).join(', ') : 'the symbols it is defined over'} instead`);
  }
}

/** The given sizes as a Map (null and undefined entries are left out: no size). */
function givenSizes(bindings) {
  if (bindings === null || typeof bindings !== 'object' || Array.isArray(bindings)) {
    throw new TypeError('onnx-shapes: evaluate expects sizes as an object ({ batch: 1 }) or a Map');
  }
  const entries = bindings instanceof Map ? [...bindings] : Object.entries(bindings);
  const given = new Map();
  for (const [name, v] of entries) {
    checkedName('onnx-shapes: evaluate:', name);
    if (v !== null && v !== undefined) given.set(name, checkedSize(name, v));
  }
  return given;
}

/**
 * Refuses a Map key that is not a string (a symbol's name is one: a number or a Symbol was an
 * internal TypeError, or ignored). `who` begins the message.
 */
export function checkedName(who, name) {
  if (typeof name !== 'string') {
    throw new TypeError(`${who} a size's name is a string (a symbol of the model), not ${typeof name === 'symbol' ? 'a Symbol' : `the ${typeof name} ${String(name)}`}`);
  }
}

/**
 * result.evaluate(bindings): every top-level value's dims at these sizes, once every relation,
 * requirement and the domain are checked; the first one broken throws a RequirementError. See
 * js/index.d.ts (Evaluation).
 */
export function evaluateResult(result, bindings) {
  const given = givenSizes(bindings);
  const { names } = prepared(result);
  const { env, derived, unknown, unbound, broken } = resolveBindings(result, given, 'onnx-shapes: evaluate:');
  if (broken.length) {
    const p = broken[0];
    const more = broken.length > 1 ? ` (and ${broken.length - 1} more)` : '';
    throw new RequirementError(`${p.sentence}${more}`,
      { kind: p.kind, relation: p.relation, values: p.values });
  }
  // The domain's ranges (the facts that gave them are checked above when they are requirements; a
  // range from a size is checked here, naming the dim it comes from).
  for (const [sym, range] of Object.entries(result.domain?.symbols ?? {})) {
    const v = env.get(sym);
    if (v === undefined || v === null) continue;
    for (const [end, by, out] of [['min', range.minBy, v < range.min], ['max', range.maxBy, range.max !== undefined && v > range.max]]) {
      if (!out) continue;
      const sentence = `${printSymbol(sym)} = ${v} is ${end === 'min' ? 'below' : 'above'} ${range[end]}, where ${by ? `${requiredBy(by)} ${relationText(by.lhs, by.relation, by.rhs)} (${by.message})` : 'the model runs'}`;
      throw new RequirementError(sentence,
        { kind: by && by.requirement === null ? 'size' : 'requirement', relation: by ?? null, values: null });
    }
  }
  const cache = new Map();
  const dimAt = (d, key, axis) => {
    if (typeof d === 'number' || d === null) return d;
    if (!cache.has(d)) cache.set(d, valueAt(d, env));
    const v = cache.get(d);
    // Past int64 a dim has no number (as evaluateDim's null): it is printed as its expression.
    if (v instanceof RangeError && v.outsideInt64) return null;
    if (v instanceof RangeError || (v !== null && v < 0)) {
      const sentence = v instanceof RangeError
        ? `dim ${axis} of '${key}' is ${d}, which has no value at these sizes (${v.message})`
        : `dim ${axis} of '${key}' is ${d}, a size, but at these sizes it is ${v}`;
      throw new RequirementError(sentence, {
        kind: 'size',
        relation: { lhs: '0', relation: '<=', rhs: d, node: null, opType: null, nodeIndex: null, path: '', message: `dim ${axis} of '${key}' is a size (never negative)`, requirement: null },
        values: v instanceof RangeError ? null : [0, v],
      });
    }
    return v;
  };
  const values = {};
  const sub = result.subgraphValues ?? {};
  for (const key of Object.keys(result.values)) {
    const t = result.values[key];
    if (Object.hasOwn(sub, key)) continue; // a body's values exist only where it runs
    const dims = t && (t.kind === 'tensor' || t.kind === 'sparse_tensor') && Array.isArray(t.dims) ? t.dims : null;
    const out = dims ? dims.map((d, axis) => dimAt(d, key, axis)) : null;
    if (key === '__proto__') Object.defineProperty(values, key, { value: out, enumerable: true, writable: true, configurable: true });
    else values[key] = out;
  }
  return Object.freeze({
    values: Object.freeze(values),
    sizes: Object.freeze(Object.fromEntries([...env].filter(([k]) => !names.has(k)))),
    derived: Object.freeze(derived.map(([symbol, size, from]) => Object.freeze({ symbol, size, from }))),
    unknown: Object.freeze(unknown),
    unbound: Object.freeze(unbound),
  });
}
