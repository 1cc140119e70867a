// Symbolic dimension expressions as the engine prints them (README "Symbolic expressions"):
// integers, identifiers, quoted names ('batch size', with \' and \\ escapes), + - * // % with
// Python precedence and floor semantics, unary minus, parentheses, and Max(...), Min(...),
// CeilDiv(a, b), Broadcast(a, b); and float32 subexpressions: float literals (0.5, 64.0, 1e-05),
// true division '/', Float(n), and Floor/Ceil/Round/Trunc back to integers. Every float operation
// rounds to float32 (Math.fround), as onnxruntime computes sizes in float. No dependencies; part of
// the package (`onnx-shapes/expr`), used by the command line, the demo page and the tests.

// Function names match case-insensitively (max, MAX, ceildiv), and only before '(' (a dim named Max is a symbol).
const FUNCTIONS = new Map([
  ['max', 'Max'], ['min', 'Min'], ['ceildiv', 'CeilDiv'], ['broadcast', 'Broadcast'], ['floor', 'Floor'],
  ['ceil', 'Ceil'], ['round', 'Round'], ['trunc', 'Trunc'], ['float', 'Float'],
]);
// Integer-valued functions of one float (or converted integer) argument.
const ROUNDINGS = new Set(['Floor', 'Ceil', 'Round', 'Trunc']);

/**
 * Splits an expression into tokens: {t: 'int'|'float'|'sym'|'fn'|'op'|'(' |')'|',', v, s (source text)}.
 * A float literal (a '.' or an exponent) has its float32 value: the C parser reads it the same way
 * (decimal to double, then to float32).
 */
export function tokenize(src) {
  const out = [];
  let i = 0;
  const n = src.length;
  while (i < n) {
    const c = src[i];
    if (/\s/.test(c)) { i++; continue; }
    if (c >= '0' && c <= '9') {
      const m = /^[0-9]+(\.[0-9]*)?([eE][+-]?[0-9]+)?/.exec(src.slice(i));
      const text = m[0];
      const next = src[i + text.length] ?? '';
      if (/[A-Za-z_.]/.test(next)) throw new SyntaxError(`bad number in ${src}`);
      if (m[1] !== undefined || m[2] !== undefined) out.push({ t: 'float', v: Math.fround(Number(text)), s: text });
      else out.push({ t: 'int', v: exactInt(text), s: text });
      i += text.length;
    } else if (/[A-Za-z_]/.test(c)) {
      let j = i;
      while (j < n && /[A-Za-z0-9_]/.test(src[j])) j++;
      const word = src.slice(i, j);
      let k = j;
      while (k < n && /\s/.test(src[k])) k++;
      const fn = FUNCTIONS.get(word.toLowerCase());
      if (fn && src[k] === '(') out.push({ t: 'fn', v: fn, s: word });
      else out.push({ t: 'sym', v: word, s: word });
      i = j;
    } else if (c === "'") {
      let j = i + 1;
      let name = '';
      for (;;) {
        if (j >= n) throw new SyntaxError(`unterminated quoted name in ${src}`);
        if (src[j] === '\\' && j + 1 < n) { name += src[j + 1]; j += 2; continue; }
        if (src[j] === "'") { j++; break; }
        name += src[j++];
      }
      out.push({ t: 'sym', v: name, s: src.slice(i, j) });
      i = j;
    } else if (c === '/' && src[i + 1] === '/') {
      out.push({ t: 'op', v: '//', s: '//' });
      i += 2;
    } else if ('+-*%/'.includes(c)) {
      out.push({ t: 'op', v: c, s: c });
      i++;
    } else if (c === '(' || c === ')' || c === ',') {
      out.push({ t: c, v: c, s: c });
      i++;
    } else {
      throw new SyntaxError(`unexpected '${c}' in ${src}`);
    }
  }
  return out;
}

/**
 * Parses an expression into a tree: {k:'int',v} | {k:'float',v} | {k:'sym',v} | {k:'neg',a} |
 * {k:'bin',op,a,b} | {k:'fn',f,args}; every node has `float`: true when its value is a float32. Types
 * follow the syntax, as in the engine: a float literal, '/', Float() and + - * Max Min with a float
 * operand are float; Floor/Ceil/Round/Trunc are integers; // % CeilDiv Broadcast need integers.
 */
export function parse(src) {
  return parseTokens(String(src), tokenize(String(src)), false);
}

/**
 * parse() of `src`'s tokens; with `spans`, every node also has `from` and `to`, the tokens it spans
 * ([from, to)), and a parenthesised one `outer`, the span with its parentheses.
 */
function parseTokens(src, toks, spans) {
  let p = 0;
  const peek = () => toks[p];
  const expect = (t) => {
    if (!toks[p] || toks[p].t !== t) throw new SyntaxError(`expected '${t}' in ${src}`);
    return toks[p++];
  };
  const typeError = (what) => new SyntaxError(`${what} needs integer operands in ${src}`);
  function primary() {
    const start = p;
    const e = primaryNode();
    if (spans && e.from === undefined) { e.from = start; e.to = p; }
    return e;
  }
  function primaryNode() {
    const start = p;
    const tok = toks[p++];
    if (!tok) throw new SyntaxError(`unexpected end of ${src}`);
    if (tok.t === 'int') return { k: 'int', v: tok.v, float: false };
    if (tok.t === 'float') return { k: 'float', v: tok.v, float: true };
    if (tok.t === 'sym') return { k: 'sym', v: tok.v, float: false };
    if (tok.t === 'op' && tok.v === '-') { const a = unary(); return { k: 'neg', a, float: a.float }; }
    if (tok.t === 'op' && tok.v === '+') return unary();
    if (tok.t === '(') {
      const e = sum();
      expect(')');
      if (spans) e.outer = [start, p];
      return e;
    }
    if (tok.t === 'fn') {
      expect('(');
      const args = [sum()];
      while (peek() && peek().t === ',') { p++; args.push(sum()); }
      expect(')');
      const unaryFn = ROUNDINGS.has(tok.v) || tok.v === 'Float';
      if (unaryFn ? args.length !== 1 : args.length < 2 || (tok.v === 'CeilDiv' && args.length !== 2)) {
        throw new SyntaxError(`${tok.v} has the wrong number of arguments in ${src}`);
      }
      const anyFloat = args.some((a) => a.float);
      if (anyFloat && (tok.v === 'CeilDiv' || tok.v === 'Broadcast')) throw typeError(tok.v);
      const float = tok.v === 'Float' || ((tok.v === 'Max' || tok.v === 'Min') && anyFloat);
      return { k: 'fn', f: tok.v, args, float };
    }
    throw new SyntaxError(`unexpected '${tok.s}' in ${src}`);
  }
  function unary() { return primary(); }
  function product() {
    const start = p;
    let e = unary();
    while (peek() && peek().t === 'op' && ['*', '//', '%', '/'].includes(peek().v)) {
      const op = toks[p++].v;
      const b = unary();
      if ((op === '//' || op === '%') && (e.float || b.float)) throw typeError(op);
      e = { k: 'bin', op, a: e, b, float: op === '/' || e.float || b.float };
      if (spans) { e.from = start; e.to = p; }
    }
    return e;
  }
  function sum() {
    const start = p;
    let e = product();
    while (peek() && peek().t === 'op' && (peek().v === '+' || peek().v === '-')) {
      const op = toks[p++].v;
      const b = product();
      e = { k: 'bin', op, a: e, b, float: e.float || b.float };
      if (spans) { e.from = start; e.to = p; }
    }
    return e;
  }
  const tree = sum();
  if (p !== toks.length) throw new SyntaxError(`unexpected '${toks[p].s}' in ${src}`);
  return tree;
}

// Section - Exact integer arithmetic
//
// Integer values are numbers while they are safe integers (|x| <= 2^53 - 1), where float64
// arithmetic is exact and fast, and BigInts beyond, up to the int64 range of ONNX dims. A value past
// int64 ends the evaluation (evaluateDim gives null), as the engine's checked int64 arithmetic
// gives an unknown.

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
const SAFE_MAX = BigInt(Number.MAX_SAFE_INTEGER);

/** Thrown when a value leaves int64 (a RangeError: evaluateDim returns null). */
class Int64Overflow extends RangeError {}
// (a mark that survives bundling: js/bindings.js leaves such a dim without a number)
Int64Overflow.prototype.outsideInt64 = true;

/** A BigInt result as a value: a number when safe, the BigInt up to int64. */
function fromBig(b) {
  if (b < INT64_MIN || b > INT64_MAX) throw new Int64Overflow('the value leaves the int64 range');
  return b >= -SAFE_MAX && b <= SAFE_MAX ? Number(b) : b;
}

/** Decimal digits as a value (a literal past 2^53 stays exact). */
function exactInt(digits) {
  const n = Number(digits);
  return Number.isSafeInteger(n) ? n : fromBig(BigInt(digits));
}

const big = (x) => (typeof x === 'bigint' ? x : BigInt(x));
const bothNumbers = (a, b) => typeof a === 'number' && typeof b === 'number';

function add(a, b) {
  if (bothNumbers(a, b)) {
    const r = a + b;
    if (Number.isSafeInteger(r)) return r;
  }
  return fromBig(big(a) + big(b));
}

function sub(a, b) {
  if (bothNumbers(a, b)) {
    const r = a - b;
    if (Number.isSafeInteger(r)) return r;
  }
  return fromBig(big(a) - big(b));
}

function mul(a, b) {
  if (bothNumbers(a, b)) {
    const r = a * b; // exact whenever the exact product is safe (rounding is monotonic)
    if (Number.isSafeInteger(r)) return r + 0; // -0 -> 0
  }
  return fromBig(big(a) * big(b));
}

const neg = (a) => (typeof a === 'number' ? 0 - a : fromBig(-a));

function floorDiv(a, b) {
  if (b === 0 || b === 0n) throw new RangeError('division by zero');
  // For |a| < 2^53 the float64 quotient lies on the right side of every integer.
  if (bothNumbers(a, b)) return Math.floor(a / b) + 0;
  const x = big(a), y = big(b);
  const q = x / y; // truncated
  return fromBig(x % y !== 0n && (x < 0n) !== (y < 0n) ? q - 1n : q);
}

function floorMod(a, b) {
  if (b === 0 || b === 0n) throw new RangeError('modulo by zero');
  if (bothNumbers(a, b)) {
    const r = a % b;
    return r !== 0 && (r < 0) !== (b < 0) ? r + b : r + 0; // |r + b| < |b|: exact
  }
  const x = big(a), y = big(b);
  const r = x % y;
  return fromBig(r !== 0n && (r < 0n) !== (y < 0n) ? r + y : r);
}

const ceilDiv = (a, b) => neg(floorDiv(neg(a), b));
// Numbers and BigInts compare exactly with < and >.
const imax = (args) => args.reduce((x, y) => (y > x ? y : x));
const imin = (args) => args.reduce((x, y) => (y < x ? y : x));

/**
 * A bound symbol's value as the arithmetic takes it: a safe integer as a number, a bigger one as a
 * BigInt (past int64: no value, as any integer there). Anything but an integer is a TypeError, never
 * a value: 1.5 would give sizes no model has, and a string would be read as a number.
 */
function bound(name, v) {
  if (v === undefined || v === null) return null;
  if (typeof v === 'number' && Number.isSafeInteger(v)) return v;
  if (typeof v === 'bigint') return fromBig(v);
  if (typeof v !== 'number' || !Number.isInteger(v)) {
    throw new TypeError(`${printSymbol(name)} = ${String(v)} is not an integer: a dim is one`);
  }
  return fromBig(BigInt(v));
}

/** An integer past 2^53 rounded once to float32 (half to even), as C's (float) of an int64. */
function bigToFloat32(b) {
  const negative = b < 0n;
  let m = negative ? -b : b;
  const shift = m.toString(2).length - 24;
  if (shift > 0) {
    const rest = m & ((1n << BigInt(shift)) - 1n);
    const half = 1n << BigInt(shift - 1);
    m >>= BigInt(shift);
    if (rest > half || (rest === half && (m & 1n) === 1n)) m += 1n;
    m <<= BigInt(shift);
  }
  return negative ? -Number(m) : Number(m);
}

const fround = (x) => Math.fround(typeof x === 'bigint' ? bigToFloat32(x) : x);
// Round half to even (ONNX Round); x / 2 is exact.
const roundEven = (x) => (Math.abs(x % 1) === 0.5 ? 2 * Math.round(x / 2) : Math.round(x));
// Cast float -> int64 is defined for finite values in [-2^63, 2^63); past 2^53 the value is a BigInt.
const toInt = (x) => {
  if (!(x >= -(2 ** 63) && x < 2 ** 63)) throw new RangeError(`${x} is no int64`);
  return Number.isSafeInteger(x) ? x + 0 : fromBig(BigInt(x)); // -0 -> 0
};
// Min and Max of floats: NaN wins, and -0 is below 0 (as the engine's evaluator).
const fmin = (args) => args.reduce((y, x) => (x !== x || y !== y ? NaN : x < y || (x === y && Object.is(x, -0)) ? x : y));
const fmax = (args) => args.reduce((y, x) => (x !== x || y !== y ? NaN : x > y || (x === y && Object.is(y, -0)) ? x : y));

/**
 * Evaluates a tree with `env` (Map or object: symbol → number or BigInt). Returns a number, a
 * BigInt for an integer past 2^53 (exact, up to int64), or null if a symbol is unbound. Float
 * nodes round every operation (and every integer operand) to float32.
 * @throws {RangeError} on division by zero, a Broadcast of two different sizes, or an integer
 *   (final or on the way) outside int64.
 */
export function evaluate(tree, env) {
  const get = env instanceof Map ? (k) => env.get(k) : (k) => (Object.hasOwn(env, k) ? env[k] : undefined);
  function ev(e) {
    switch (e.k) {
      case 'int': return e.v;
      case 'float': return e.v;
      case 'sym': return bound(e.v, get(e.v));
      case 'neg': { const a = ev(e.a); return a === null ? null : e.float ? -fround(a) : neg(a); }
      case 'bin': {
        const a = ev(e.a); const b = ev(e.b);
        if (a === null || b === null) return null;
        if (e.float) {
          const x = fround(a); const y = fround(b);
          switch (e.op) {
            case '+': return fround(x + y);
            case '-': return fround(x - y);
            case '*': return fround(x * y);
            case '/': return fround(x / y);
          }
          break;
        }
        switch (e.op) {
          case '+': return add(a, b);
          case '-': return sub(a, b);
          case '*': return mul(a, b);
          case '//': return floorDiv(a, b);
          case '%': return floorMod(a, b);
        }
        break;
      }
      case 'fn': {
        const args = e.args.map(ev);
        if (args.some((x) => x === null)) return null;
        if (e.float && (e.f === 'Max' || e.f === 'Min')) {
          const xs = args.map(fround);
          return e.f === 'Max' ? fmax(xs) : fmin(xs);
        }
        switch (e.f) {
          case 'Max': return imax(args);
          case 'Min': return imin(args);
          case 'CeilDiv': return ceilDiv(args[0], args[1]);
          case 'Broadcast': // n-ary: the engine flattens nested Broadcasts
            return args.reduce((a, b) => {
              if (a === b || b === 1) return a;
              if (a === 1) return b;
              throw new RangeError(`Broadcast(${a}, ${b}): the dims cannot broadcast`);
            });
          case 'Float': return fround(args[0]);
          case 'Floor': return toInt(Math.floor(fround(args[0])));
          case 'Ceil': return toInt(Math.ceil(fround(args[0])));
          case 'Round': return toInt(roundEven(fround(args[0])));
          case 'Trunc': return toInt(Math.trunc(fround(args[0])));
        }
      }
    }
    throw new SyntaxError('bad expression');
  }
  return ev(tree);
}

const parsed = new Map();
/** parse() with a cache (dims repeat a lot in a model). Throws SyntaxError on a bad expression. */
export function parseCached(src) {
  let t = parsed.get(src);
  if (t === undefined) {
    t = parse(src);
    parsed.set(src, t);
  }
  return t;
}

/** Evaluates a dim (number | string | null) with env; null when unknown or unbound. */
export function evalDim(dim, env) {
  if (typeof dim === 'number') return dim;
  if (typeof dim !== 'string') return null;
  return evaluate(parseCached(dim), env);
}

const symCache = new Map();
/** The symbols of an expression string, in order of first appearance (cached). */
export function symbolsOf(src) {
  let s = symCache.get(src);
  if (s === undefined) {
    s = [];
    try {
      for (const tok of tokenize(src)) if (tok.t === 'sym' && !s.includes(tok.v)) s.push(tok.v);
    } catch { /* not an expression: no symbols */ }
    symCache.set(src, s);
  }
  return s;
}

/** Prints a symbol the way the engine does: identifiers bare, anything else quoted. */
export function printSymbol(name) {
  return /^[A-Za-z_][A-Za-z0-9_]*$/.test(name)
    ? name
    : `'${name.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}

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

/**
 * Not a check that the model runs at these sizes (result.evaluate is: see js/expr.d.ts).
 * The value of one dim (number, expression string or null) for symbol bindings (object or Map,
 * values numbers or BigInts): a number, or a BigInt when it is an integer past 2^53 (exact, where
 * a number would be rounded). null when the dim is unknown, a symbol is unbound, or the expression
 * is undefined there (division by zero, Broadcast of two different sizes, an integer outside
 * int64, which ONNX dims cannot hold). With a result's `definitions`, the names they define
 * (floor_1, size_2) are evaluated through them (bindDefinitions). Throws SyntaxError on a
 * malformed string.
 */
export function evaluateDim(dim, bindings, definitions) {
  try {
    return evalDim(dim, definitions?.length ? bindDefinitions(bindings, definitions) : bindings);
  } catch (err) {
    if (err instanceof RangeError) return null;
    throw err;
  }
}

/**
 * `bindings` (object or Map) with each of a result's `definitions` ([{ name, expr }], in order, each
 * over the graph's symbols and earlier names) evaluated and bound: a copy of the same kind. A name
 * whose definition has an unbound symbol, or is undefined there, is bound to null (unbound), so a
 * dim using it evaluates to null. Names the bindings give already keep their value.
 */
export function bindDefinitions(bindings, definitions) {
  const isMap = bindings instanceof Map;
  const env = isMap ? new Map(bindings) : { ...bindings };
  for (const { name, expr } of definitions ?? []) {
    if (isMap ? env.has(name) : Object.hasOwn(env, name)) continue;
    let v = null;
    try {
      v = evaluate(parseCached(expr), env);
    } catch (err) {
      if (!(err instanceof RangeError)) throw err;
    }
    if (isMap) env.set(name, v);
    else env[name] = v;
  }
  return env;
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
