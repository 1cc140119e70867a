// js/expr.js past 2^53: dims are int64 in ONNX, and a Number holds integers exactly only up to
// 2^53. Values beyond come back as exact BigInts, and anything outside int64 (the final value or
// one on the way) as null, as the engine's checked int64 arithmetic gives an unknown.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { evaluate, evaluateDim, parse, parseBindings } from '../../js/expr.js';
import { REPO } from './helpers.js';
import { model } from './onnx_builder.js';

const SAFE = Number.MAX_SAFE_INTEGER; // 2^53 - 1
const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

test('9007199254740993*N at N=3 is 27021597764222979, not a rounded number', () => {
  expect(evaluateDim('9007199254740993*N', { N: 3 })).toBe(27021597764222979n);
  expect(evaluateDim('9007199254740993', {})).toBe(9007199254740993n);
  expect(evaluateDim('N+1', { N: SAFE })).toBe(9007199254740992n);
  expect(evaluateDim('N*N', { N: 2 ** 26 + 1 })).toBe(4503599761588225); // 2^52 + 2^27 + 1: still safe
  expect(evaluateDim('N*N', { N: 2 ** 27 + 1 })).toBe(18014398777917441n); // 2^54 + 2^28 + 1
});

test('results that are safe are numbers, even when they pass through BigInts on the way', () => {
  expect(evaluateDim('9007199254740993*N//N', { N: 3 })).toBe(9007199254740993n);
  expect(evaluateDim('(9007199254740993*N)//(3*N)', { N: 5 })).toBe(3002399751580331);
  expect(evaluateDim('9007199254740993-9007199254740992', {})).toBe(1);
  expect(evaluateDim('N', { N: 7n })).toBe(7);
  expect(evaluateDim('Max(a,b)', { a: 9007199254740993n, b: 1 })).toBe(9007199254740993n);
  expect(evaluateDim('Min(a,b)', { a: 9007199254740993n, b: 1 })).toBe(1);
  expect(evaluateDim('Broadcast(a,1,a)', { a: 9007199254740993n })).toBe(9007199254740993n);
});

test('outside int64, final or intermediate: null', () => {
  expect(evaluateDim('N*4', { N: 2 ** 62 })).toBeNull(); // 2^64
  expect(evaluateDim('N*2-N', { N: 2n ** 62n + 1n })).toBeNull(); // 2^63 + 2 on the way
  expect(evaluateDim('9223372036854775807+1', {})).toBeNull();
  expect(evaluateDim('9223372036854775807', {})).toBe(INT64_MAX);
  expect(evaluateDim('-9223372036854775807-1', {})).toBe(INT64_MIN);
  expect(evaluateDim('99999999999999999999', {})).toBeNull();
  expect(evaluateDim('N', { N: 2n ** 63n })).toBeNull();
});

test('floor division, modulo and CeilDiv on BigInts follow Python', () => {
  const a = 2n ** 60n + 7n;
  expect(evaluateDim('-a//3', { a })).toBe(-384307168202282328n); // -(2^60+7) = 3*(-384307168202282328) + 1
  expect(evaluateDim('-a%3', { a })).toBe(1);
  expect(evaluateDim('a%-3', { a })).toBe(-1); // 2^60+7 = (-3)*(-384307168202282328) - 1
  expect(evaluateDim('CeilDiv(a,2)', { a })).toBe(2n ** 59n + 4n);
  expect(evaluateDim('a//0', { a })).toBeNull();
});

test('parseBindings keeps big values exact', () => {
  const { map, errors } = parseBindings('a=9007199254740993, b=2*4611686018427387903, c=3');
  expect(errors).toEqual([]);
  expect(map.get('a')).toBe(9007199254740993n);
  expect(map.get('b')).toBe(9223372036854775806n);
  expect(map.get('c')).toBe(3);
  expect(parseBindings('d=9223372036854775808').errors).toHaveLength(1); // past int64
});

// Section - Property: random expressions against an all-BigInt evaluator written here

/** A small PRNG (mulberry32), so that a failure reproduces. */
function rng(seed) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

class Out extends Error {}
const chk = (v) => {
  if (v < INT64_MIN || v > INT64_MAX) throw new Out();
  return v;
};
const fdiv = (a, b) => {
  if (b === 0n) throw new Out();
  const q = a / b;
  return a % b !== 0n && (a < 0n) !== (b < 0n) ? q - 1n : q;
};
/** The reference: BigInt all the way, every step checked against int64; null when it leaves. */
function reference(t, env) {
  const ev = (e) => {
    switch (e.k) {
      case 'int': return chk(e.v);
      case 'sym': return chk(env[e.v]); // a binding outside int64 is no dim either
      case 'neg': return chk(-ev(e.a));
      case 'bin': {
        const a = ev(e.a), b = ev(e.b);
        switch (e.op) {
          case '+': return chk(a + b);
          case '-': return chk(a - b);
          case '*': return chk(a * b);
          case '//': return chk(fdiv(a, b));
          case '%': return chk(a - b * fdiv(a, b));
          default: throw new Error(e.op);
        }
      }
      case 'max': { const a = ev(e.a), b = ev(e.b); return a > b ? a : b; }
      case 'min': { const a = ev(e.a), b = ev(e.b); return a < b ? a : b; }
      case 'ceil': return chk(-fdiv(-ev(e.a), ev(e.b)));
      default: throw new Error(e.k);
    }
  };
  try {
    return ev(t);
  } catch (e) {
    if (e instanceof Out) return null;
    throw e;
  }
}
const text = (e) => {
  switch (e.k) {
    case 'int': return String(e.v);
    case 'sym': return e.v;
    case 'neg': return `-(${text(e.a)})`;
    case 'bin': return `(${text(e.a)})${e.op}(${text(e.b)})`;
    case 'max': return `Max(${text(e.a)},${text(e.b)})`;
    case 'min': return `Min(${text(e.a)},${text(e.b)})`;
    case 'ceil': return `CeilDiv(${text(e.a)},${text(e.b)})`;
    default: throw new Error(e.k);
  }
};

test('20,000 random expressions near 2^53, 2^63 and 0 agree with the BigInt reference', () => {
  const rand = rng(20261201);
  const pick = (a) => a[Math.floor(rand() * a.length)];
  const magnitudes = [0n, 1n, 2n, 3n, 7n, 2n ** 26n, 2n ** 31n, 2n ** 52n, 2n ** 53n - 1n, 2n ** 53n, 2n ** 53n + 1n,
    2n ** 62n, 2n ** 63n - 1n, 3037000499n, 3037000500n]; // floor(sqrt(2^63)) and one more
  const literal = () => {
    const m = pick(magnitudes) + BigInt(Math.floor(rand() * 5) - 2);
    return m < 0n ? 0n : m;
  };
  const gen = (depth) => {
    const r = rand();
    if (depth === 0 || r < 0.25) return rand() < 0.5 ? { k: 'int', v: literal() } : { k: 'sym', v: pick(['a', 'b', 'c']) };
    if (r < 0.3) return { k: 'neg', a: gen(depth - 1) };
    if (r < 0.85) return { k: 'bin', op: pick(['+', '-', '*', '//', '%']), a: gen(depth - 1), b: gen(depth - 1) };
    return { k: pick(['max', 'min', 'ceil']), a: gen(depth - 1), b: gen(depth - 1) };
  };
  let bigs = 0, nulls = 0, numbers = 0;
  for (let i = 0; i < 20000; i++) {
    const env = { a: literal(), b: literal(), c: literal() };
    const t = gen(4);
    const want = reference(t, env);
    // Bindings as numbers where exact, as the CLI and page pass them.
    const bind = Object.fromEntries(Object.entries(env).map(([k, v]) => [k, v <= BigInt(SAFE) ? Number(v) : v]));
    const got = evaluateDim(text(t), bind);
    const expected = want === null ? null : want >= -BigInt(SAFE) && want <= BigInt(SAFE) ? Number(want) : want;
    if (got !== expected) throw new Error(`${text(t)} with ${JSON.stringify(bind, (k, v) => (typeof v === 'bigint' ? `${v}n` : v))}: got ${got}, want ${expected}`);
    if (typeof got === 'bigint') bigs++;
    else if (got === null) nulls++;
    else numbers++;
  }
  // The three outcomes all occur (the generator reaches past 2^53 and past int64).
  expect(Math.min(bigs, nulls, numbers)).toBeGreaterThan(1000);
});

test('evaluate() on a parsed tree gives the same values', () => {
  expect(evaluate(parse('a*b'), new Map([['a', 2n ** 40n], ['b', 2 ** 20]]))).toBe(2n ** 60n);
});

test('float forms take integers past 2^53 rounded once to float32, and give BigInts back', () => {
  // 2^60 + 2^36 + 1 is just above the midpoint of two float32 neighbours (spacing 2^37 there): it
  // rounds up. Rounding to float64 first (Number()) would drop the +1 and tie down to 2^60.
  const N = 2n ** 60n + 2n ** 36n + 1n;
  expect(evaluateDim('Floor(Float(N))', { N })).toBe(2n ** 60n + 2n ** 37n);
  expect(evaluateDim('Floor(Float(N))', { N: N - 1n })).toBe(2n ** 60n); // the tie: to even
  expect(evaluateDim('Floor(Float(N)*2.0)', { N: 2n ** 62n })).toBeNull(); // 2^63: no int64
  expect(evaluateDim('Floor(Float(N)/2.0)', { N: 9007199254740993n })).toBe(4503599627370496);
});

test('the CLI: --bind past 2^53 prints exact dims and byte sizes; past int64, the expression', () => {
  const dir = mkdtempSync(join(tmpdir(), 'osi-bigint-'));
  try {
    const path = join(dir, 'big.onnx');
    writeFileSync(path, model({
      inputs: [{ name: 'X', elemType: 'float', dims: ['9007199254740993*N', 'M'] }],
      outputs: ['Y'],
      nodes: [{ op: 'Relu', inputs: ['X'], outputs: ['Y'] }],
    }));
    const cli = (bind) => spawnSync(process.execPath, [join(REPO, 'js', 'cli.js'), path, '--bind', bind], { encoding: 'utf8', timeout: 300_000 });
    let r = cli('N=3,M=1');
    expect(r.status).toBe(0);
    // 9007199254740993 * 3 = 27021597764222979; times 4 bytes = 108086391056891916.
    expect(r.stdout).toMatch(/^Y\s+Relu\s+float \[27021597764222979, 1\]\s+108086391056891916$/m);
    r = cli('N=1,M=9007199254740993');
    expect(r.stdout).toMatch(/^Y\s+Relu\s+float \[9007199254740993, 9007199254740993\]\s+324518553658426798840750058504196$/m);
    r = cli(`N=${2n ** 62n},M=1`); // 9007199254740993 * 2^62 is past int64: no value
    expect(r.stdout).toMatch(/^Y\s+Relu\s+float \[9007199254740993\*N, 1\]\s*$/m);
    expect(cli('N=9223372036854775808,M=1').status).toBe(2); // a binding past int64
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a size derived past 2^53 is exact: total_seq from past_seq+seq (result.evaluate, as the page and --bind derive it)', async () => {
  const { init } = await import('../../js/index.js');
  const { readFileSync } = await import('node:fs');
  const engine = await init();
  const result = engine.inferShapes(readFileSync(join(REPO, 'examples/models/tiny_decoder.onnx')));
  const ev = result.evaluate({ batch: 1, seq: 1, past_seq: 2n ** 60n - 1n });
  expect(ev.derived.map((d) => [d.symbol, d.size])).toEqual([['total_seq', 2n ** 60n]]);
  expect(ev.values.present_key).toEqual([1, 4, 2n ** 60n, 16]);
  // past_seq from total_seq: solved the other way, BigInt target, number answer
  expect(result.evaluate({ batch: 1, seq: 2, total_seq: 2n ** 60n }).sizes.past_seq).toBe(2n ** 60n - 2n);
});
