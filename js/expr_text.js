// The texts around symbolic expressions that the command line, the demo page and the tools read
// and write: bindings typed by a user (`batch=1, seq=128`), a result's named sizes expanded
// (expandDefinitions, symbolsThrough) and put back into texts printed without them (nameDefinitions,
// nameDefinitionsIn: the why panel, --events). A module of its own so that js/index.js, which
// needs only js/expr_eval.js, does not make every page download it; the package's
// `onnx-shapes/expr` (js/expr.js) exports both.
import { evaluate, parse, parseTokens, printSymbol, symbolsOf, tokenize } from './expr_eval.js';

/**
 * Parses a bindings string such as `batch=1, seq=128, 'batch size'=2` into a Map. Values may be
 * expressions over integers. Returns {map, errors: [string]}.
 */
export function parseBindings(text) {
  const map = new Map();
  const errors = [];
  // Split on commas/semicolons/newlines that are not inside quotes.
  const parts = [];
  let cur = '';
  let q = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (q && c === '\\') { cur += c + (text[i + 1] ?? ''); i++; continue; }
    if (c === "'") q = !q;
    if (!q && (c === ',' || c === ';' || c === '\n')) { parts.push(cur); cur = ''; continue; }
    cur += c;
  }
  parts.push(cur);
  for (const part of parts) {
    const s = part.trim();
    if (!s) continue;
    // name=value: the value is what follows the last '=' or ':' (a regular expression with a lazy
    // name and optional spaces took time quadratic in a run of spaces: 4 s for 40,000).
    const at = Math.max(s.lastIndexOf('='), s.lastIndexOf(':'));
    const value = at < 0 ? '' : s.slice(at + 1).trim();
    if (!value) { errors.push(`"${s}" is not name=value`); continue; }
    let name = s.slice(0, at).trim();
    try {
      const toks = tokenize(name);
      if (toks.length !== 1 || toks[0].t !== 'sym') throw new SyntaxError('bad name');
      name = toks[0].v;
      const v = evaluate(parse(value), new Map());
      if (v === null || (typeof v === 'number' && !Number.isSafeInteger(v)) || v < 0) throw new RangeError('not a size');
      map.set(name, v);
    } catch {
      errors.push(`"${s}" is not name=size`);
    }
  }
  return { map, errors };
}
// A result's definitions (each over the graph's symbols and earlier names) read once per array:
// their names, and each name's expansion and symbols, kept for every expression asked about. Made
// again at each call, that was quadratic: 16,000 dims of a model with 4,096 named sizes took 4 s
// through symbolsThrough and 22 s through expandDefinitions (the page asks for every row's). An
// array is taken as the data it was when first met (a result's is frozen; the page's, parsed from
// the worker's JSON, is never changed); one that grew is read again.
const definitionTables = new WeakMap();

function definitionTable(definitions) {
  let table = definitionTables.get(definitions);
  if (table && table.length === definitions.length) return table.ordered ? table : { ...table, expanded: new Map(), symbols: new Map() };
  const defs = new Map(definitions.map((d) => [d.name, d.expr]));
  // When each definition mentions only earlier names (as the engine writes them), what a name
  // stands for does not depend on where it is met, and is kept; otherwise (hand-made data, a
  // cycle) it is found again at each call (a name met inside its own definition stands for itself).
  const seen = new Set();
  const ordered = definitions.every((d) => {
    const ok = symbolsOf(d.expr).every((sym) => !defs.has(sym) || seen.has(sym));
    seen.add(d.name);
    return ok;
  });
  table = { length: definitions.length, defs, ordered, expanded: new Map(), symbols: new Map() };
  definitionTables.set(definitions, table);
  return table;
}

/** The longest expansion expandDefinitions makes: names that each use the one before twice double at each. */
const MAX_EXPANSION = 1 << 20;

/**
 * What each name of the table stands for, found once per name (for a table of hand-made data out of
 * order, once per call), without recursion: `leaf(sym)` is a symbol's own part, `combine(name,
 * parts)` a name's from the parts of its definition's symbols in order. A name met again while its
 * own definition is being read (a cycle) stands for itself.
 */
function throughNames(text, table, memo, leaf, combine, split) {
  const { defs } = table;
  const open = new Set();
  const frame = (name, src) => ({ name, items: split(src), i: 0, parts: [] });
  const stack = [frame(null, text)];
  for (;;) {
    const f = stack[stack.length - 1];
    if (f.i === f.items.length) {
      const value = combine(f.name, f.parts);
      stack.pop();
      if (f.name === null) return value;
      open.delete(f.name);
      memo.set(f.name, value);
      const parent = stack[stack.length - 1];
      parent.parts.push(value);
      parent.i++;
      continue;
    }
    const item = f.items[f.i];
    const name = item.sym ?? null;
    if (name !== null && defs.has(name) && !memo.has(name) && !open.has(name)) {
      open.add(name);
      stack.push(frame(name, defs.get(name)));
      continue;
    }
    f.parts.push(name !== null && memo.has(name) ? memo.get(name) : leaf(item));
    f.i++;
  }
}

/**
 * The expression with every name of `definitions` replaced by its definition, parenthesised (the
 * expression without names, as it would print unnamed up to parentheses). A number or null is
 * returned as it is. Throws a RangeError when an expansion would pass 2^20 characters (a chain of
 * names each using the one before twice doubles at each).
 */
export function expandDefinitions(src, definitions) {
  if (typeof src !== 'string' || !definitions?.length) return src;
  const table = definitionTable(definitions);
  const split = (text) => tokenize(text).map((tok) => (tok.t === 'sym' ? { sym: tok.v, s: tok.s } : { s: tok.s }));
  const join = (name, parts) => {
    let text = name === null ? '' : '(';
    for (const p of parts) {
      text += p;
      if (text.length > MAX_EXPANSION) {
        throw new RangeError(`onnx-shapes: expandDefinitions: the expansion of ${name === null ? src.slice(0, 80) : printSymbol(name)} is longer than ${MAX_EXPANSION} characters`);
      }
    }
    return name === null ? text : `${text})`;
  };
  return throughNames(src, table, table.expanded, (item) => item.s, join, split);
}

/**
 * The symbols of an expression with every name of `definitions` replaced by the symbols of its
 * definition (the graph's own symbols, fresh ones and labels), in order of first appearance.
 */
export function symbolsThrough(src, definitions) {
  if (!definitions?.length) return symbolsOf(src);
  const table = definitionTable(definitions);
  const split = (text) => symbolsOf(text).map((sym) => ({ sym }));
  const union = (name, parts) => [...new Set(parts.flat())];
  return throughNames(src, table, table.symbols, (item) => [item.sym], union, split);
}

// Section - Names in texts printed without them
//
// The event log is written while inference runs, before the names of the result's sizes are
// chosen: its texts spell each named size out (`Floor(1.5*h)` where the dims print floor_1). The
// functions below put the names back: every subterm of a text whose value is, as integer
// arithmetic, the same expression as a definition's (its names expanded) is printed as that name.
// Expressions are compared by a canonical form (sums and products of integers in any order and
// grouping, constants folded, CeilDiv(a,d) as (a+d-1)//d), each distinct form a small number, so
// a text and the definitions are each read once. The rest of a text is kept as it is, byte for byte.

const namingTables = new WeakMap();

/** The canonical forms of a result's definitions: { length, forms, named: form -> name, expansion: name -> form }. */
function namingTable(definitions) {
  let t = namingTables.get(definitions);
  if (t && t.length === definitions.length) return t;
  t = { length: definitions.length, forms: new Map(), monos: new Map(), combos: new Map(), named: new Map(), expansion: new Map() };
  for (const { name, expr } of definitions) {
    let form;
    try {
      form = canonicalForm(parse(expr), t);
    } catch {
      continue; // not an expression (hand-made data): no name for it
    }
    if (!t.named.has(form)) t.named.set(form, name);
    if (!t.expansion.has(name)) t.expansion.set(name, form);
  }
  namingTables.set(definitions, t);
  return t;
}

/** The number of canonical form `key` (the same key, the same number). */
function formOf(t, key) {
  let f = t.forms.get(key);
  if (f === undefined) t.forms.set(key, (f = t.forms.size));
  return f;
}

/** An integer linear combination { terms: Map(monomial form -> BigInt coefficient), c: BigInt }. */
const combination = (c = 0n) => ({ terms: new Map(), c });
const atomCombination = (mono) => ({ terms: new Map([[mono, 1n]]), c: 0n });

/** The form of a combination: its one monomial when it is 1*m, else a sum's key. */
function combinationForm(t, l) {
  const entries = [...l.terms].filter(([, k]) => k !== 0n);
  if (l.c === 0n && entries.length === 1 && entries[0][1] === 1n) return entries[0][0];
  entries.sort((x, y) => x[0] - y[0]);
  const f = formOf(t, `+${entries.map(([m, k]) => `${k}*${m}`).join(',')}|${l.c}`);
  if (!t.combos.has(f)) t.combos.set(f, l);
  return f;
}

/** The monomial of the product of `factors` (atom forms, repeats kept). */
function monomial(t, factors) {
  if (factors.length === 1) return factors[0];
  const sorted = [...factors].sort((x, y) => x - y);
  const f = formOf(t, `*${sorted.join(',')}`);
  t.monos.set(f, sorted);
  return f;
}

/** The atoms a monomial is the product of. */
const atomsOf = (t, m) => t.monos.get(m) ?? [m];

/**
 * The canonical form (a number) of tree `e`; with `visit`, called with each node and its form,
 * children first. An integer sum or product chain is read as one (its inner nodes get no form).
 */
function canonicalForm(e, t, visit = null) {
  const form = (x) => canonicalForm(x, t, visit);
  let f;
  if (!e.float && (e.k === 'int' || e.k === 'neg' || (e.k === 'bin' && (e.op === '+' || e.op === '-' || e.op === '*')))) {
    f = combinationForm(t, linear(e, t, form));
  } else if (e.k === 'float') {
    f = formOf(t, `f${e.v}`);
  } else if (e.k === 'sym') {
    f = t.expansion.get(e.v) ?? formOf(t, `s${printSymbol(e.v)}`);
  } else if (e.k === 'fn' && e.f === 'CeilDiv' && e.args[1].k === 'int' && BigInt(e.args[1].v) >= 1n) {
    const d = BigInt(e.args[1].v);
    const num = linear(e.args[0], t, form);
    num.c += d - 1n;
    f = formOf(t, `//${combinationForm(t, num)},${form(e.args[1])}`);
  } else if (e.k === 'bin') {
    f = formOf(t, `${e.float ? 'f' : ''}${e.op}${form(e.a)},${form(e.b)}`);
  } else if (e.k === 'neg') {
    f = formOf(t, `f-${form(e.a)}`);
  } else if (e.k === 'fn') {
    f = formOf(t, `${e.float ? 'f' : ''}${e.f}(${e.args.map(form).join(',')})`);
  } else {
    throw new SyntaxError('bad expression');
  }
  if (visit) visit(e, f);
  return f;
}

/**
 * The integer linear combination of tree `e`: a chain of + - * and negations read at once (without
 * recursing along it), its other nodes through `form`.
 */
function linear(e, t, form) {
  if (e.float) return atomCombination(form(e));
  if (e.k === 'sym' && t.expansion.has(e.v)) {
    // a name read in a sum or a product is its definition's terms, not one atom
    const f = form(e);
    const l = t.combos.get(f);
    return l ? scaled(l, 1n) : atomCombination(f);
  }
  if (e.k === 'int') return combination(BigInt(e.v));
  if (e.k === 'neg') return scaled(linear(e.a, t, form), -1n);
  if (e.k === 'bin' && (e.op === '+' || e.op === '-')) {
    // the chain a0 ± a1 ± ... (left-nested), walked without recursion along it
    const parts = [];
    let x = e;
    while (x.k === 'bin' && (x.op === '+' || x.op === '-') && !x.float) {
      parts.push([x.op === '-' ? -1n : 1n, x.b]);
      x = x.a;
    }
    parts.push([1n, x]);
    const out = combination();
    for (let i = parts.length - 1; i >= 0; i--) addInto(out, scaled(linear(parts[i][1], t, form), parts[i][0]));
    return out;
  }
  if (e.k === 'bin' && e.op === '*') {
    const factors = [];
    let x = e;
    while (x.k === 'bin' && x.op === '*' && !x.float) {
      factors.push(x.b);
      x = x.a;
    }
    factors.push(x);
    let coef = 1n;
    const atoms = [];
    let other = null; // a factor that is a sum of several terms: the product is kept as one atom
    for (let i = factors.length - 1; i >= 0; i--) {
      const l = linear(factors[i], t, form);
      const entries = [...l.terms].filter(([, k]) => k !== 0n);
      if (!entries.length) coef *= l.c;
      else if (entries.length === 1 && l.c === 0n) { coef *= entries[0][1]; atoms.push(...atomsOf(t, entries[0][0])); }
      else (other ??= []).push(combinationForm(t, l));
    }
    if (other) atoms.push(...other);
    if (coef === 0n || !atoms.length) return combination(atoms.length ? 0n : coef);
    const out = combination();
    out.terms.set(monomial(t, atoms), coef);
    return out;
  }
  return atomCombination(form(e));
}

function scaled(l, k) {
  const out = combination(l.c * k);
  for (const [m, c] of l.terms) out.terms.set(m, c * k);
  return out;
}

function addInto(into, l) {
  into.c += l.c;
  for (const [m, c] of l.terms) into.terms.set(m, (into.terms.get(m) ?? 0n) + c);
}

/**
 * Expression `src` with every subterm that one of `definitions` stands for printed as its name (the
 * inverse of expandDefinitions: `w*Floor(1.5*h)` is `w*floor_1` where floor_1 = Floor(1.5*h)); the
 * rest of the text as it is. A number, null, a text that is not an expression, or one without such a
 * subterm is returned as it is.
 */
export function nameDefinitions(src, definitions) {
  if (typeof src !== 'string' || !definitions?.length) return src;
  const t = namingTable(definitions);
  if (!t.named.size) return src;
  let toks;
  let tree;
  try {
    toks = tokenize(src);
    tree = parseTokens(src, toks, true);
  } catch {
    return src;
  }
  const forms = new Map(); // node -> form
  try {
    canonicalForm(tree, t, (e, f) => forms.set(e, f));
  } catch {
    return src; // too deep to read
  }
  // where each token starts in src (tokenize skips only white space between them)
  const at = [];
  for (let i = 0, k = 0; k < toks.length; k++) {
    while (/\s/.test(src[i])) i++;
    at.push(i);
    i += toks[k].s.length;
  }
  const cuts = []; // [from, to, name], outermost first, in order
  const stack = [tree];
  while (stack.length) {
    const e = stack.pop();
    const name = e.k !== 'sym' && forms.has(e) ? t.named.get(forms.get(e)) : undefined;
    if (name !== undefined) {
      const [a, b] = e.outer ?? [e.from, e.to];
      cuts.push([at[a], at[b - 1] + toks[b - 1].s.length, printSymbol(name)]);
      continue;
    }
    const kids = e.k === 'neg' ? [e.a] : e.k === 'bin' ? [e.a, e.b] : e.k === 'fn' ? e.args : [];
    for (let i = kids.length - 1; i >= 0; i--) stack.push(kids[i]);
  }
  if (!cuts.length) return src;
  cuts.sort((x, y) => x[0] - y[0]);
  let out = '';
  let last = 0;
  for (const [a, b, name] of cuts) {
    out += src.slice(last, a) + name;
    last = b;
  }
  return out + src.slice(last);
}

/**
 * nameDefinitions on every expression of a free text such as an event's detail (`float[1,w*Floor(1.5*h)]`,
 * `Min(x,1) -> 1 where ...`): each run of characters without white space or brackets, split at its
 * top-level commas, that is an expression. Other words are kept as they are.
 */
export function nameDefinitionsIn(text, definitions) {
  if (typeof text !== 'string' || !definitions?.length || !namingTable(definitions).named.size) return text;
  return text.replace(/[^\s[\]]+/g, (run) => {
    const parts = [];
    let depth = 0;
    let from = 0;
    for (let i = 0; i < run.length; i++) {
      if (run[i] === '(') depth++;
      else if (run[i] === ')') depth--;
      else if (run[i] === ',' && depth === 0) { parts.push(run.slice(from, i)); from = i + 1; }
    }
    parts.push(run.slice(from));
    return parts.map((p) => nameDefinitions(p, definitions)).join(',');
  });
}
