// Evaluates onnx-shapes dim expressions ('past_seq+seq', '(H+1)//2', "Max('batch size',1)") for
// given symbol values, exactly as the C engine defines them: integers, identifiers, single-quoted
// names (with \' and \\ escapes), + - * // % with Python precedence and floor semantics, unary
// minus, parentheses, Max, Min, CeilDiv and Broadcast (function names in any case).
// Works in Node and browsers; arithmetic is exact (BigInt).

const FUNCS = new Set(['max', 'min', 'ceildiv', 'broadcast']);

function tokenize(text) {
  const tokens = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i];
    if (/\s/.test(c)) { i++; continue; }
    if (/[0-9]/.test(c)) {
      let j = i;
      while (j < text.length && /[0-9]/.test(text[j])) j++;
      tokens.push({ t: 'num', v: BigInt(text.slice(i, j)) });
      i = j;
    } else if (/[A-Za-z_]/.test(c)) {
      let j = i;
      while (j < text.length && /[A-Za-z0-9_]/.test(text[j])) j++;
      tokens.push({ t: 'id', v: text.slice(i, j) });
      i = j;
    } else if (c === "'") {
      let j = i + 1, name = '';
      for (; j < text.length && text[j] !== "'"; j++) {
        if (text[j] === '\\') {
          j++;
          if (text[j] !== "'" && text[j] !== '\\') throw new SyntaxError(`bad escape in ${text}`);
        }
        name += text[j];
      }
      if (text[j] !== "'") throw new SyntaxError(`unterminated name in ${text}`);
      tokens.push({ t: 'id', v: name, quoted: true });
      i = j + 1;
    } else if (text.startsWith('//', i)) {
      tokens.push({ t: 'op', v: '//' });
      i += 2;
    } else if ('+-*%(),'.includes(c)) {
      tokens.push({ t: 'op', v: c });
      i++;
    } else {
      throw new SyntaxError(`unexpected '${c}' in ${text}`);
    }
  }
  return tokens;
}

const floorDiv = (a, b) => {
  if (b === 0n) throw new RangeError('division by zero');
  const q = a / b;
  return (a % b !== 0n && (a < 0n) !== (b < 0n)) ? q - 1n : q;
};
const floorMod = (a, b) => a - floorDiv(a, b) * b;

/** Parses an expression into a function of a symbol lookup (name → bigint). */
export function compileDim(text) {
  const tokens = tokenize(String(text));
  let pos = 0;
  const peek = () => tokens[pos];
  const take = (v) => {
    const tk = tokens[pos];
    if (!tk || tk.v !== v || tk.t !== 'op') throw new SyntaxError(`expected '${v}' in ${text}`);
    pos++;
  };
  const primary = () => {
    const tk = tokens[pos++];
    if (!tk) throw new SyntaxError(`unexpected end of ${text}`);
    if (tk.t === 'num') return () => tk.v;
    if (tk.t === 'id') {
      const fn = tk.v.toLowerCase();
      if (!tk.quoted && FUNCS.has(fn) && peek()?.v === '(') {
        take('(');
        const args = [sum()];
        while (peek()?.v === ',') { pos++; args.push(sum()); }
        take(')');
        return (env) => {
          const v = args.map((a) => a(env));
          if (fn === 'max') return v.reduce((x, y) => (x > y ? x : y));
          if (fn === 'min') return v.reduce((x, y) => (x < y ? x : y));
          if (v.length !== 2) throw new SyntaxError(`${tk.v} takes 2 arguments`);
          if (fn === 'ceildiv') return -floorDiv(-v[0], v[1]);
          if (v[0] === v[1] || v[1] === 1n) return v[0];
          if (v[0] === 1n) return v[1];
          throw new RangeError(`Broadcast(${v[0]}, ${v[1]}) is undefined`);
        };
      }
      return (env) => env(tk.v);
    }
    if (tk.v === '(') {
      const e = sum();
      take(')');
      return e;
    }
    if (tk.v === '-') { const e = primary(); return (env) => -e(env); }
    if (tk.v === '+') return primary();
    throw new SyntaxError(`unexpected '${tk.v}' in ${text}`);
  };
  const product = () => {
    let e = primary();
    while (peek() && ['*', '//', '%'].includes(peek().v) && peek().t === 'op') {
      const op = tokens[pos++].v, l = e, r = primary();
      e = op === '*' ? (env) => l(env) * r(env) : op === '//' ? (env) => floorDiv(l(env), r(env)) : (env) => floorMod(l(env), r(env));
    }
    return e;
  };
  const sum = () => {
    let e = product();
    while (peek() && (peek().v === '+' || peek().v === '-') && peek().t === 'op') {
      const op = tokens[pos++].v, l = e, r = product();
      e = op === '+' ? (env) => l(env) + r(env) : (env) => l(env) - r(env);
    }
    return e;
  };
  const e = sum();
  if (pos !== tokens.length) throw new SyntaxError(`unexpected '${tokens[pos].v}' in ${text}`);
  return e;
}

/**
 * The value of one dim (number, expression string or null) for symbol bindings
 * ({ batch: 1, seq: 128 } or a Map); null when the dim is unknown or a symbol is unbound.
 */
export function evaluateDim(dim, bindings) {
  if (typeof dim === 'number') return dim;
  if (typeof dim !== 'string') return null;
  const get = bindings instanceof Map ? (k) => bindings.get(k) : (k) => (Object.hasOwn(bindings, k) ? bindings[k] : undefined);
  try {
    const v = compileDim(dim)((name) => {
      const b = get(name);
      if (b === undefined || b === null) throw new ReferenceError(name);
      return BigInt(b);
    });
    return Number(v);
  } catch (err) {
    if (err instanceof ReferenceError || err instanceof RangeError) return null;
    throw err;
  }
}

/** Every symbol an expression mentions, in order of first appearance. */
export function dimSymbols(dim) {
  if (typeof dim !== 'string') return [];
  const seen = [];
  const toks = tokenize(dim);
  toks.forEach((tk, i) => {
    const isFunc = !tk.quoted && tk.t === 'id' && FUNCS.has(tk.v.toLowerCase()) && toks[i + 1]?.v === '(';
    if (tk.t === 'id' && !isFunc && !seen.includes(tk.v)) seen.push(tk.v);
  });
  return seen;
}
