// --bind for the command line: the sizes given, the sizes they decide through the model's
// constraints (an equality `past_seq+seq == total_seq`, a label `Reluy_dim_0 = batch`), and the
// checks that the given sizes are possible (every constraint and requirement holds, no derived size
// is negative). Linear: each relation is looked at again only when one of its symbols gets a size.
import { evalDim, parseBindings, parseCached, symbolsOf } from './expr.js';

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
  const slope = at(1) - e0;
  if (!Number.isSafeInteger(e0) || !Number.isSafeInteger(slope) || slope === 0) return null;
  const v = (target - e0) / slope;
  return Number.isSafeInteger(v) && at(v) === target ? [s, v] : [s, null];
}

/** `--bind` text to a Map; throws `fail(message)` on a malformed pair or a negative value. */
export function parseBindArgument(text, fail) {
  const { map, errors } = parseBindings(text);
  if (errors.length) throw fail(`--bind expects name=size pairs (sizes are integers >= 0): ${errors.join(', ')}`);
  return map;
}

/**
 * Every symbol the result mentions: in dims, known contents, constraints, labels and the
 * definitions of its named sizes (the names themselves are not symbols: their definitions say them).
 */
export function modelSymbols(result) {
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
  for (const d of result.definitions ?? []) texts.add(d.expr);
  const names = new Set((result.definitions ?? []).map((d) => d.name));
  for (const text of texts) for (const s of symbolsOf(text)) if (!names.has(s)) seen.add(s);
  return seen;
}

/**
 * The sizes to evaluate the shapes with: `given` (a Map) and what the model's equalities and labels
 * decide from them. Returns { env, derived: [[symbol, size, the relation it comes from]], unknown:
 * [names the model does not have], unbound: [symbols still without a size], problems: [sentences: a relation the sizes break, in the order
 * equalities, labels, upper bounds, requirements], issues: [the problems as data] }.
 */
export function resolveBindings(result, given) {
  const symbols = modelSymbols(result);
  const c = result.constraints ?? {};
  const env = new Map(given);
  const derived = [];
  const unknown = [...given.keys()].filter((k) => !symbols.has(k));

  // Equalities and labels both say "these two are one size"; the checks come after, so that a
  // contradiction is reported at the relation that states it.
  // A named size (result.definitions) is its definition's value: a relation like the others, so that
  // sizes derived later give it a value too; one that has no value at these sizes only stays unbound.
  const names = new Set((result.definitions ?? []).map((d) => d.name));
  const relations = [
    ...(result.definitions ?? []).map((d) => ({ kind: 'definition', a: d.name, b: d.expr, op: '==', says: 'the definition says', definition: true })),
    ...(c.equal ?? []).map(([a, b]) => ({ kind: 'equal', a, b, op: '==', says: 'the model says' })),
    ...Object.entries(c.labels ?? {}).map(([a, b]) => ({ kind: 'label', a, b, op: '==', says: 'the label says' })),
    ...(c.lessEqual ?? []).map(([a, b]) => ({ kind: 'lessEqual', a, b, op: '<=', says: 'the model says' })),
    ...(c.requirements ?? []).map((r) => ({
      kind: 'requirement', requirement: r, a: r.lhs, b: r.rhs, op: r.relation,
      says: `node ${r.nodeIndex}${r.node ? ` '${r.node}'` : ''} (${r.opType})${r.path ? ` in ${r.path}` : ''} requires`,
    })),
  ];
  const bySymbol = new Map();
  relations.forEach((rel, i) => {
    for (const s of new Set([...symbolsOf(rel.a), ...symbolsOf(rel.b)])) {
      if (!bySymbol.has(s)) bySymbol.set(s, []);
      bySymbol.get(s).push(i);
    }
  });
  const found = []; // [relation index, what is wrong with it, the sides' values]
  const judged = new Set();
  const judge = (i, why, values = null) => {
    if (!judged.has(i)) found.push([i, why, values]);
    judged.add(i);
  };
  const queue = relations.map((_, i) => relations.length - 1 - i); // popped in order
  while (queue.length) {
    const i = queue.pop();
    if (judged.has(i)) continue;
    const rel = relations[i];
    const x = valueAt(rel.a, env);
    const y = valueAt(rel.b, env);
    const undefinedSide = x instanceof RangeError ? x : y instanceof RangeError ? y : null;
    if (undefinedSide) {
      if (rel.definition) judged.add(i);
      else judge(i, `which has no value at these sizes (${undefinedSide.message})`);
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
      judge(i, `which no size of ${sym} meets at these sizes (${text} = ${value})`);
      continue;
    }
    env.set(sym, size);
    if (!names.has(sym)) derived.push([sym, size, `${rel.a} ${rel.op} ${rel.b}`]);
    judged.add(i);
    for (const j of bySymbol.get(sym) ?? []) queue.push(j);
  }
  found.sort((p, q) => p[0] - q[0]);
  const unbound = [...symbols].filter((sym) => !env.has(sym) && !names.has(sym)).sort();
  // issues: the problems as data for a page (which input, which node): {sentence, kind, a, op, b,
  // why (the sentence after the relation), values: [a's, b's] or null, requirement: the result's
  // entry for a requirement}.
  const issues = found.map(([i, why, values]) => {
    const { kind, a, op, b, says, requirement } = relations[i];
    return { sentence: `${says} ${a} ${op} ${b}, ${why}`, kind, a, op, b, why, values, requirement: requirement ?? null };
  });
  return { env, derived, unknown, unbound, problems: issues.map((q) => q.sentence), issues };
}
