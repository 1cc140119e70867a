// Symbolic dimension expressions as the engine prints them (README "Symbolic expressions"), read and
// evaluated: integers, identifiers, quoted names ('batch size', with \' and \\ escapes), + - * // %
// with Python precedence and floor semantics, unary minus, parentheses, and Max(...), Min(...),
// CeilDiv(a, b), Broadcast(a, b); and float32 subexpressions: float literals (0.5, 64.0, 1e-05),
// true division '/', Float(n), and Floor/Ceil/Round/Trunc back to integers. Every float operation
// rounds to float32 (Math.fround), as onnxruntime computes sizes in float. No dependencies.
// What a result needs (result.evaluate(), cost(), memoryProfile() through js/bindings.js and
// js/cost.js), so what js/index.js loads; the texts around expressions that only the command line,
// the page and the tools use are in js/expr_text.js, and the package's `onnx-shapes/expr` is
// js/expr.js, both together.

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
 * ([from, to)), and a parenthesised one `outer`, the span with its parentheses (js/expr_text.js
 * names subterms by them).
 */
export function parseTokens(src, toks, spans) {
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
