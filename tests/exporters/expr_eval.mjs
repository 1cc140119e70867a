// Evaluates onnx-shapes dim expressions (README "Symbolic expressions") at a binding of the symbols.
//
// Grammar: integers, identifiers, single-quoted names ('batch size', with \' and \\ escapes),
// binary + - * // % with Python precedence and floor semantics, unary minus, parentheses, and the
// functions Max(a, b, ...), Min(a, b, ...), CeilDiv(a, b), Broadcast(a, b, ...) (numpy broadcast of dims).
// Arithmetic is on BigInt, so large intermediate values stay exact.

/** Thrown for a symbol the binding does not give (the caller counts the dim as unresolved). */
export class UnboundSymbolError extends Error {
  constructor(symbol) {
    super(`unbound symbol ${symbol}`);
    this.name = 'UnboundSymbolError';
    this.symbol = symbol;
  }
}

function tokenize(text) {
  const tokens = [];
  let i = 0;
  while (i < text.length) {
    const ch = text[i];
    if (/\s/.test(ch)) {
      i++;
    } else if (/[0-9]/.test(ch)) {
      let j = i;
      while (j < text.length && /[0-9]/.test(text[j])) j++;
      tokens.push({ kind: 'num', value: BigInt(text.slice(i, j)) });
      i = j;
    } else if (/[A-Za-z_]/.test(ch)) {
      let j = i;
      while (j < text.length && /[A-Za-z0-9_]/.test(text[j])) j++;
      tokens.push({ kind: 'id', value: text.slice(i, j) });
      i = j;
    } else if (ch === "'") {
      let j = i + 1;
      let name = '';
      for (;;) {
        if (j >= text.length) throw new SyntaxError(`unterminated quoted name in ${JSON.stringify(text)}`);
        if (text[j] === '\\' && j + 1 < text.length) {
          name += text[j + 1];
          j += 2;
        } else if (text[j] === "'") {
          j++;
          break;
        } else {
          name += text[j++];
        }
      }
      tokens.push({ kind: 'id', value: name });
      i = j;
    } else if (text.startsWith('//', i)) {
      tokens.push({ kind: 'op', value: '//' });
      i += 2;
    } else if ('+-*%(),'.includes(ch)) {
      tokens.push({ kind: 'op', value: ch });
      i++;
    } else {
      throw new SyntaxError(`unexpected ${JSON.stringify(ch)} in ${JSON.stringify(text)}`);
    }
  }
  return tokens;
}

const floorDiv = (a, b) => {
  if (b === 0n) throw new RangeError('division by zero');
  const q = a / b; // truncates toward zero
  return (a % b !== 0n && (a < 0n) !== (b < 0n)) ? q - 1n : q;
};
const floorMod = (a, b) => a - b * floorDiv(a, b);
const broadcast2 = (a, b) => {
  if (a === b || b === 1n) return a;
  if (a === 1n) return b;
  throw new RangeError(`Broadcast(${a}, ${b}): incompatible dims`);
};
const FUNCS = {
  Max: (args) => args.reduce((m, v) => (v > m ? v : m)),
  Min: (args) => args.reduce((m, v) => (v < m ? v : m)),
  CeilDiv: (args) => {
    if (args.length !== 2) throw new SyntaxError('CeilDiv takes 2 arguments');
    return -floorDiv(-args[0], args[1]);
  },
  Broadcast: (args) => args.reduce(broadcast2),
};

/** Parses `text` into a closure env => BigInt. */
export function parseExpr(text) {
  const tokens = tokenize(String(text));
  let pos = 0;
  const peek = () => tokens[pos];
  const isOp = (v) => peek() && peek().kind === 'op' && peek().value === v;
  const expect = (v) => {
    if (!isOp(v)) throw new SyntaxError(`expected ${v} in ${JSON.stringify(text)}`);
    pos++;
  };
  // additive := multiplicative (('+'|'-') multiplicative)*
  function additive() {
    let left = multiplicative();
    while (isOp('+') || isOp('-')) {
      const op = tokens[pos++].value;
      const l = left;
      const r = multiplicative();
      left = op === '+' ? (env) => l(env) + r(env) : (env) => l(env) - r(env);
    }
    return left;
  }
  // multiplicative := unary (('*'|'//'|'%') unary)*
  function multiplicative() {
    let left = unary();
    while (isOp('*') || isOp('//') || isOp('%')) {
      const op = tokens[pos++].value;
      const l = left;
      const r = unary();
      if (op === '*') left = (env) => l(env) * r(env);
      else if (op === '//') left = (env) => floorDiv(l(env), r(env));
      else left = (env) => floorMod(l(env), r(env));
    }
    return left;
  }
  // unary := '-' unary | '+' unary | primary   (Python: unary minus binds tighter than * // %)
  function unary() {
    if (isOp('-')) {
      pos++;
      const u = unary();
      return (env) => -u(env);
    }
    if (isOp('+')) {
      pos++;
      return unary();
    }
    return primary();
  }
  function primary() {
    const t = peek();
    if (!t) throw new SyntaxError(`unexpected end of ${JSON.stringify(text)}`);
    if (t.kind === 'num') {
      pos++;
      return () => t.value;
    }
    if (t.kind === 'op' && t.value === '(') {
      pos++;
      const e = additive();
      expect(')');
      return e;
    }
    if (t.kind === 'id') {
      pos++;
      if (isOp('(') && Object.hasOwn(FUNCS, t.value)) {
        pos++;
        const args = [additive()];
        while (isOp(',')) {
          pos++;
          args.push(additive());
        }
        expect(')');
        const f = FUNCS[t.value];
        return (env) => f(args.map((a) => a(env)));
      }
      const name = t.value;
      return (env) => {
        const v = env instanceof Map ? env.get(name) : (Object.hasOwn(env, name) ? env[name] : undefined);
        if (v === undefined || v === null) throw new UnboundSymbolError(name);
        return BigInt(v);
      };
    }
    throw new SyntaxError(`unexpected ${JSON.stringify(t.value)} in ${JSON.stringify(text)}`);
  }
  const e = additive();
  if (pos !== tokens.length) throw new SyntaxError(`trailing input in ${JSON.stringify(text)}`);
  return e;
}

/** The symbols `text` mentions (identifiers and quoted names, not function names). */
export function symbolsOf(text) {
  const tokens = tokenize(String(text));
  const out = new Set();
  tokens.forEach((t, i) => {
    const isCall = tokens[i + 1] && tokens[i + 1].kind === 'op' && tokens[i + 1].value === '(' &&
      Object.hasOwn(FUNCS, t.value);
    if (t.kind === 'id' && !isCall) out.add(t.value);
  });
  return [...out];
}

/**
 * Evaluates a dim (number, or expression string) at `env` ({symbol: number} or a Map).
 * Returns a Number; throws UnboundSymbolError for a symbol `env` lacks.
 */
export function evalDim(dim, env) {
  if (typeof dim === 'number') return dim;
  return Number(parseExpr(dim)(env));
}
