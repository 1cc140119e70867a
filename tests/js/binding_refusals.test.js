// Sizes no model has are refused with a typed error wherever sizes are given (result.evaluate,
// result.cost({ bindings }), the command line's --bind, the onnx-shapes/expr evaluators), never
// evaluated into null dims or sizes no symbol reaches: a size past int64 (no dim holds it), a
// number that is not an integer, and a named size (result.definitions) given as if it were a symbol.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { init } from '../../js/index.js';
import { bindDefinitions, evaluateDim } from '../../js/expr.js';
import { REPO, thrown } from './helpers.js';
// namedSizeModel: y = ConstantOfShape([Floor(1.5*h), Floor(1.5*h)+w]), y's dims print the named size floor_1.
import { namedSizeModel } from './model_parts.js';

let engine;
beforeAll(async () => {
  engine = await init();
});

const CNN = join(REPO, 'examples', 'models', 'cnn_dynamic.onnx');
const cli = (...args) => spawnSync(process.execPath, [join(REPO, 'js', 'cli.js'), ...args], { encoding: 'utf8', timeout: 300_000 });

test('evaluate: a size past int64 is a RangeError (it gave null dims), 2^63-1 is a size', () => {
  const r = engine.inferShapes(readFileSync(CNN));
  for (const N of [2n ** 63n, 2n ** 64n, 2 ** 63, 1e300]) {
    const err = thrown(() => r.evaluate({ N, H: 11, W: 11 }));
    expect(err).toBeInstanceOf(RangeError);
    expect(err.message).toMatch(/^onnx-shapes: evaluate: N = [0-9e+]+ is past int64 \(2\^63-1\): no dim is$/);
  }
  // the largest int64: N itself is a size; image's byte count is past int64, its dims are not
  expect(r.evaluate({ N: 2n ** 63n - 1n, H: 11, W: 11 }).values.image).toEqual([2n ** 63n - 1n, 3, 11, 11]);
  // a number past 2^53 may be rounded already: a TypeError saying to give it as a BigInt
  expect(thrown(() => r.evaluate({ N: 2 ** 60, H: 11, W: 11 })).message).toMatch(/past 2\^53 as a number, .* give it as a BigInt/);
});

test('cost({ bindings }): a size past int64 is a RangeError, not counts left undecided', () => {
  const r = engine.inferShapes(readFileSync(CNN), { cost: true });
  const err = thrown(() => r.cost({ bindings: { N: 2n ** 63n, H: 11, W: 11 } }));
  expect(err).toBeInstanceOf(RangeError);
  expect(err.message).toMatch(/size of N, 9223372036854775808, is past int64/);
  expect(thrown(() => r.memoryProfile({ bindings: { N: 2n ** 64n, H: 11, W: 11 } }))).toBeInstanceOf(RangeError);
  expect(r.cost({ bindings: { N: 1, H: 11, W: 11 } }).total.macs).toEqual(expect.any(Number));
});

test('a named size given as a size is a TypeError in evaluate, cost and --bind (it was taken as a size no h gives)', () => {
  const bytes = namedSizeModel();
  const r = engine.inferShapes(bytes, { cost: true });
  expect(r.definitions).toEqual([{ name: 'floor_1', expr: 'Floor(1.5*h)' }]);
  expect(r.getShape('y').dims).toEqual(['floor_1', 'w+floor_1']);
  // floor_1 = 8 is Floor(1.5*h) for no h: it gave y = [8, 10] and listed floor_1 as "unknown (ignored)"
  for (const b of [{ floor_1: 8, w: 2 }, { floor_1: 7 }]) {
    const e = thrown(() => r.evaluate(b));
    expect(e).toBeInstanceOf(TypeError);
    expect(e.message).toBe('onnx-shapes: evaluate: floor_1 is a named size (floor_1 = Floor(1.5*h)), not a symbol: give the size of h instead');
    const c = thrown(() => r.cost({ bindings: new Map(Object.entries(b)) }));
    expect(c).toBeInstanceOf(TypeError);
    expect(c.message).toMatch(/^onnx-shapes: cost: floor_1 is a named size/);
  }
  expect(r.evaluate({ h: 5, w: 2 }).values.y).toEqual([7, 9]);
  // given with h, floor_1 is checked against its definition (the sizes resolveBindings gives back,
  // named sizes included, are sizes cost takes)
  expect(r.evaluate({ floor_1: 7, h: 5, w: 2 }).values.y).toEqual([7, 9]);
  expect(r.cost({ bindings: { floor_1: 7, h: 5, w: 2 } }).total).toEqual(r.cost({ bindings: { h: 5, w: 2 } }).total);
  expect(thrown(() => r.evaluate({ floor_1: 8, h: 5, w: 2 })).message)
    .toBe('the definition says floor_1 == Floor(1.5*h), but at these sizes floor_1 is 8 and Floor(1.5*h) is 7');
  const dir = mkdtempSync(join(tmpdir(), 'osi-refusals-'));
  try {
    const path = join(dir, 'named.onnx');
    writeFileSync(path, bytes);
    const out = cli(path, '--bind', 'floor_1=8,w=2');
    expect(out.status).toBe(2);
    expect(out.stdout).toBe('');
    expect(out.stderr).toBe('onnx-shapes: --bind: floor_1 is a named size (floor_1 = Floor(1.5*h)), not a symbol: give the size of h instead\n');
    const ok = cli(path, '--bind', 'h=5,w=2');
    expect(ok.status).toBe(0);
    expect(ok.stdout).toMatch(/^y +ConstantOfShape +float \[7, 9\]/m);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('--bind: a size past int64 is a usage error; the largest int64 is a size', () => {
  const past = cli(CNN, '--bind', 'N=9223372036854775808,H=11,W=11');
  expect(past.status).toBe(2);
  expect(past.stderr).toMatch(/"N=9223372036854775808" is not name=size/);
  const max = cli(CNN, '--bind', 'N=9223372036854775807,H=11,W=11');
  expect(max.status).toBe(0);
  expect(max.stdout).toMatch(/^image +float \[9223372036854775807, 3, 11, 11\]/m);
});

test('onnx-shapes/expr: a binding that is not an integer is a TypeError (1.5 gave 2.5, a string was read as a number)', () => {
  for (const v of [1.5, NaN, Infinity, '3', true, {}]) {
    const err = thrown(() => evaluateDim('N+1', { N: v }));
    expect(err).toBeInstanceOf(TypeError);
    expect(err.message).toMatch(/^N = .* is not an integer: a dim is one$/);
    expect(thrown(() => bindDefinitions({ h: v }, [{ name: 'floor_1', expr: 'Floor(1.5*h)' }]))).toBeInstanceOf(TypeError);
  }
  // integers stay values: past 2^53 exact as BigInts, past int64 none (as any integer there)
  expect(evaluateDim('N+1', { N: 2n ** 60n })).toBe(2n ** 60n + 1n);
  expect(evaluateDim('N+1', { N: 2 ** 60 })).toBe(2n ** 60n + 1n);
  expect(evaluateDim('N', { N: 2n ** 63n })).toBeNull();
  expect(evaluateDim('N-1', { N: -5 })).toBe(-6);
});
