// Float32 dims (sizes computed in float): random typed expressions, written as graph input
// dim_params, are simplified and printed by the engine (wasm); js/expr.js must evaluate both the
// original text and the engine's printed form to what an independent float32 computation of the
// expression tree gives (Math.fround after every operation, as onnxruntime computes in float).
// Bindings stay within the float domain (every symbol below 2^24), which the engine's reductions
// to integer forms assume (README "Symbolic expressions"); the original text is also evaluated at
// sizes from 2^24 up, where float32 rounds the sizes and only js/expr.js's float semantics apply.
import { init } from '../../js/index.js';
import { evaluateDim, parse } from '../../js/expr.js';
import { model } from './onnx_builder.js';

let seed = 12345;
const rnd = () => {
  seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0;
  return seed / 4294967296;
};
const rint = (lo, hi) => lo + Math.floor(rnd() * (hi - lo + 1));
const pick = (xs) => xs[rint(0, xs.length - 1)];

const SYMS = ['a', 'b', 'c'];
const LITERALS = [0.5, 2.0, 1.5, 0.3, 32.0, 64.0, 100.0, 800.0, 1333.0, 0.25, 0.1, 3.0, 4.0, 0.75, 8.0];
const f32 = Math.fround;

// Trees: {op, kids, k | f | sym, implicit[]}; op names say the type (I_* integer, F_* float).
function genInt(depth) {
  if (depth <= 0 || rnd() < 0.3) {
    return rnd() < 0.35 ? { op: 'I_CONST', k: rnd() < 0.15 ? -rint(1, 5) : rint(0, 40) } : { op: 'I_SYM', sym: pick(SYMS) };
  }
  const op = pick(['I_ADD', 'I_SUB', 'I_MUL', 'I_DIV', 'I_MIN', 'I_MAX', 'I_FLOOR', 'I_FLOOR', 'I_CEIL', 'I_CEIL', 'I_ROUND', 'I_TRUNC', 'I_TRUNC']);
  if (['I_FLOOR', 'I_CEIL', 'I_ROUND', 'I_TRUNC'].includes(op)) return { op, kids: [genFloat(depth - 1)] };
  const b = op === 'I_DIV' || (op === 'I_MUL' && rnd() < 0.5) ? { op: 'I_CONST', k: rint(1, 9) } : genInt(depth - 1);
  return { op, kids: [genInt(depth - 1), b] };
}

function genFloat(depth) {
  if (depth <= 0 || rnd() < 0.2) {
    if (rnd() < 0.5) return { op: 'F_LIT', f: f32(pick(LITERALS) * (rnd() < 0.15 ? -1 : 1)) };
    return { op: 'F_CAST', kids: [genInt(depth - 1)] };
  }
  const op = pick(['F_ADD', 'F_SUB', 'F_MUL', 'F_MUL', 'F_DIV', 'F_DIV', 'F_NEG', 'F_MIN', 'F_MAX']);
  const n = op === 'F_NEG' ? 1 : op === 'F_MIN' || op === 'F_MAX' ? rint(2, 3) : 2;
  const at = rint(0, n - 1);
  const kids = [];
  const implicit = [];
  for (let i = 0; i < n; i++) {
    kids.push(op === 'F_NEG' || i === at || rnd() < 0.5 ? genFloat(depth - 1) : genInt(depth - 1));
    implicit.push(rnd() < 0.5);
  }
  return { op, kids, implicit };
}

const isFloat = (t) => t.op.startsWith('F_');

function text(t) {
  const operand = (i) => {
    const k = t.kids[i];
    return !isFloat(k) && !t.implicit[i] ? `Float(${text(k)})` : text(k);
  };
  switch (t.op) {
    case 'I_CONST': return t.k < 0 ? `(${t.k})` : `${t.k}`;
    case 'I_SYM': return t.sym;
    case 'F_LIT': { const s = String(t.f); return `(${/[.e]/.test(s) ? s : `${s}.0`})`; }
    case 'F_CAST': return `Float(${text(t.kids[0])})`;
    case 'F_NEG': return `(-${operand(0)})`;
    case 'I_FLOOR': return `Floor(${text(t.kids[0])})`;
    case 'I_CEIL': return `Ceil(${text(t.kids[0])})`;
    case 'I_ROUND': return `Round(${text(t.kids[0])})`;
    case 'I_TRUNC': return `Trunc(${text(t.kids[0])})`;
    case 'I_MIN': case 'I_MAX': return `${t.op === 'I_MIN' ? 'Min' : 'Max'}(${t.kids.map(text).join(',')})`;
    case 'F_MIN': case 'F_MAX': return `${t.op === 'F_MIN' ? 'Min' : 'Max'}(${t.kids.map((_, i) => operand(i)).join(',')})`;
    default: {
      const sym = { I_ADD: '+', I_SUB: '-', I_MUL: '*', I_DIV: '//', F_ADD: '+', F_SUB: '-', F_MUL: '*', F_DIV: '/' }[t.op];
      return isFloat(t) ? `(${operand(0)}${sym}${operand(1)})` : `(${text(t.kids[0])}${sym}${text(t.kids[1])})`;
    }
  }
}

// Reference: throws 'undefined' where the runtime's value is undefined or not an exact number here
// (an integer past 2^53, truncating NaN/inf/beyond int64, a float division by zero, whose infinity
// takes the sign of a zero that the engine does not model).
class Undefined extends Error {}
function ref(t, env) {
  const int = (v) => {
    if (Math.abs(v) > 2 ** 53) throw new Undefined();
    return v;
  };
  const asF = (k) => f32(ref(k, env));
  const toInt = (x) => {
    if (!(x >= -(2 ** 63) && x < 2 ** 63)) throw new Undefined();
    return int(x + 0);
  };
  switch (t.op) {
    case 'I_CONST': return t.k;
    case 'I_SYM': return env[t.sym];
    case 'I_ADD': return int(ref(t.kids[0], env) + ref(t.kids[1], env));
    case 'I_SUB': return int(ref(t.kids[0], env) - ref(t.kids[1], env));
    case 'I_MUL': return int(ref(t.kids[0], env) * ref(t.kids[1], env));
    case 'I_DIV': return Math.floor(ref(t.kids[0], env) / t.kids[1].k);
    case 'I_MIN': return Math.min(ref(t.kids[0], env), ref(t.kids[1], env));
    case 'I_MAX': return Math.max(ref(t.kids[0], env), ref(t.kids[1], env));
    case 'I_FLOOR': return toInt(Math.floor(asF(t.kids[0])));
    case 'I_CEIL': return toInt(Math.ceil(asF(t.kids[0])));
    case 'I_ROUND': {
      const x = asF(t.kids[0]);
      const r = Math.floor(x);
      const d = x - r; // exact for float32 values
      return toInt(d > 0.5 || (d === 0.5 && r % 2 !== 0) ? r + 1 : r);
    }
    case 'I_TRUNC': return toInt(Math.trunc(asF(t.kids[0])));
    case 'F_LIT': return t.f;
    case 'F_CAST': return f32(ref(t.kids[0], env));
    case 'F_NEG': return -asF(t.kids[0]);
    case 'F_ADD': return f32(asF(t.kids[0]) + asF(t.kids[1]));
    case 'F_SUB': return f32(asF(t.kids[0]) - asF(t.kids[1]));
    case 'F_MUL': return f32(asF(t.kids[0]) * asF(t.kids[1]));
    case 'F_DIV': {
      const y = asF(t.kids[1]);
      if (y === 0) throw new Undefined();
      return f32(asF(t.kids[0]) / y);
    }
    case 'F_MIN': case 'F_MAX': {
      const xs = t.kids.map(asF);
      if (xs.some((x) => Number.isNaN(x))) return NaN;
      return t.op === 'F_MIN' ? Math.min(...xs) : Math.max(...xs);
    }
  }
  throw new Error(`bad node ${t.op}`);
}

function binding(domain) {
  const one = () => {
    if (domain) return pick([rint(0, 2), rint(0, 20), rint(0, 5000), rint(0, 2 ** 24 - 1), 2 ** 24 - rint(1, 4), rint(100, 2000)]);
    return pick([2 ** 24 + rint(-3, 3), rint(2 ** 24, 2 ** 31), rint(1, 200) * 2 ** 24 + rint(-5, 5), rint(0, 5000)]);
  };
  return { a: one(), b: one(), c: one() };
}

function refOrUndefined(tree, env) {
  try {
    return ref(tree, env);
  } catch (e) {
    if (e instanceof Undefined) return undefined;
    throw e;
  }
}

describe('float32 dims: the engine prints, js/expr.js evaluates, a float32 reference agrees', () => {
  let engine;
  beforeAll(async () => {
    engine = await init();
  });

  test('random expressions over bindings inside and outside the float domain', () => {
    let compared = 0;
    let outside = 0;
    const mismatches = [];
    for (let m = 0; m < 60; m++) {
      const trees = [];
      while (trees.length < 50) {
        const t = genInt(rint(1, 5));
        const s = text(t);
        if (s.length < 2000) trees.push(t);
      }
      const texts = trees.map(text);
      const bytes = model({
        opset: 17,
        inputs: [{ name: 'x', elemType: 'float', dims: texts }],
        outputs: ['y'],
        nodes: [{ op: 'Identity', inputs: ['x'], outputs: ['y'] }],
      });
      // dims print the result's named sizes (floor_1, size_2): evaluated through their definitions
      const result = engine.inferShapes(bytes);
      const printed = result.getShape('y').dims;
      trees.forEach((tree, i) => {
        const p = printed[i];
        for (let r = 0; r < 4; r++) {
          const env = binding(true);
          const want = refOrUndefined(tree, env);
          if (want === undefined) continue;
          const fromText = evaluateDim(texts[i], env);
          const fromEngine = p === null ? null : evaluateDim(p, env, result.definitions);
          compared++;
          if (fromText !== want || (p !== null && fromEngine !== want)) {
            mismatches.push({ text: texts[i], printed: p, definitions: result.definitions, env, want, fromText, fromEngine });
          }
          const wide = binding(false);
          const wantWide = refOrUndefined(tree, wide);
          if (wantWide !== undefined) {
            outside++;
            const got = evaluateDim(texts[i], wide);
            if (got !== wantWide) mismatches.push({ text: texts[i], env: wide, want: wantWide, fromText: got });
          }
        }
      });
    }
    expect(mismatches.slice(0, 5)).toEqual([]);
    expect(compared).toBeGreaterThan(5000);
    expect(outside).toBeGreaterThan(3000);
  });

  test.each([
    ['Floor(h*Min(64/Min(h,w),100*(1/Max(h,w))))', { h: 97, w: 131 }, 63],
    ['Floor(h*Min(64/Min(h,w),100*(1/Max(h,w))))', { h: 161, w: 123 }, 83],
    ['Trunc(0.3*h)', { h: 97 }, 29],
    ['Floor(1.5*h)', { h: 16777215 }, 25165822], // 1.5*h rounds to even in float32
    ['Trunc(h)', { h: 16777217 }, 16777216], // float32(2^24 + 1) is 2^24
    ['Round(h/2)', { h: 5 }, 2], // half to even
    ['Round(h/2)', { h: 7 }, 4],
    ['Floor(1.0/0.0)', {}, null], // an infinity has no integer value
  ])('%s at %j is %j', (dim, env, want) => {
    expect(evaluateDim(dim, env)).toBe(want);
  });

  test('types follow the syntax', () => {
    expect(parse('h/2').float).toBe(true);
    expect(parse('Floor(h/2)').float).toBe(false);
    expect(parse('Max(h, 0.5)').float).toBe(true);
    expect(parse('Float(h)*w').float).toBe(true);
    expect(parse('h*w').float).toBe(false);
    for (const bad of ['h//0.5', 'h%1.5', 'CeilDiv(h,2.0)', 'Broadcast(h,1.0)', 'Floor(h,w)', 'Float()', '1e', '1.2.3', '.5']) {
      expect(() => parse(bad)).toThrow(SyntaxError);
    }
  });
});
