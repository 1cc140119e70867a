// Where a model runs: result.domain (the sizes of the graph inputs' symbols that every requirement
// and every size allows), result.evaluate (every dim at given sizes, or a RequirementError naming
// the first relation they break), and the command line's domain lines and --bind checks.
// onnxruntime's side of the same limits is tests/exporters/domain_property.mjs (tests/js/facts.test.js).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { init, RequirementError } from '../../js/index.js';
import { model, tensor } from './onnx_builder.js';
import { REPO, thrown } from './helpers.js';

let engine;
beforeAll(async () => {
  engine = await init();
});

const example = (name) => engine.inferShapes(readFileSync(join(REPO, 'examples', 'models', `${name}.onnx`)));
const cli = (...args) => spawnSync(process.execPath, [join(REPO, 'js', 'cli.js'), ...args], { encoding: 'utf8', timeout: 300_000 });

// x: [n, 4]; zeros = ConstantOfShape([n-3, 4]): a dim only sizes >= 3 give (nothing requires it).
const minusThree = () => model({
  opset: 17,
  inputs: [{ name: 'x', elemType: 'float', dims: ['n', 4] }],
  outputs: ['zeros'],
  initializers: [tensor({ name: 'three', elemType: 'int64', dims: [2], int64Data: [3, 0] })],
  nodes: [
    { op: 'Shape', inputs: ['x'], outputs: ['shape'] },
    { op: 'Sub', inputs: ['shape', 'three'], outputs: ['less'] },
    { op: 'ConstantOfShape', inputs: ['less'], outputs: ['zeros'] },
  ],
});

describe('cnn_dynamic (conv 3x3 stride 2 pad 1, max pool 2, conv 3x3): the smallest image is 11x11', () => {
  test('domain: H and W from 11, each by conv2\'s window, N any size', () => {
    const r = example('cnn_dynamic');
    expect(Object.keys(r.domain.symbols)).toEqual(['N', 'H', 'W']);
    expect(r.domain.symbols.N).toEqual({ min: 0 });
    const h = r.domain.symbols.H;
    expect(h.min).toBe(11);
    expect(h.max).toBeUndefined();
    expect(h.minBy).toMatchObject({ lhs: '3', relation: '<=', rhs: '(H+1)//4', node: 'conv2', opType: 'Conv', path: '' });
    // minBy is the requirement itself, by index
    expect(r.constraints.requirements[h.minBy.requirement]).toMatchObject({ lhs: '3', rhs: '(H+1)//4', node: 'conv2' });
    expect(r.domain.symbols.W.min).toBe(11);
    expect(r.domain.relations).toEqual([]);
    expect(Object.isFrozen(r.domain.symbols.H)).toBe(true);
  });

  test('evaluate: every dim at 11x11; at 10 a RequirementError naming conv2', () => {
    const r = example('cnn_dynamic');
    const e = r.evaluate({ N: 2, H: 11, W: 12 });
    expect(e.values.c2).toEqual([2, 16, 1, 1]);
    expect(e.values.logits).toEqual([2, 10]);
    expect(e.sizes).toEqual({ N: 2, H: 11, W: 12 });
    expect(e.unbound).toEqual([]);
    const err = thrown(() => r.evaluate({ N: 2, H: 10, W: 12 }));
    expect(err).toBeInstanceOf(RequirementError);
    expect(err.name).toBe('RequirementError');
    expect(err.code).toBe('OUTSIDE_DOMAIN');
    expect(err.kind).toBe('requirement');
    // the first one broken (pool1's holds at 10), the object itself
    expect(err.relation).toBe(r.constraints.requirements.find((q) => q.node === 'conv2' && q.rhs === '(H+1)//4'));
    expect(err.values).toEqual([3, 2]);
    expect(err.message).toBe("node 3 'conv2' (Conv) requires 3 <= (H+1)//4, but at these sizes 3 is 3 and (H+1)//4 is 2");
  });

  test('evaluate: a symbol without a size leaves its dims null; malformed sizes are argument errors', () => {
    const r = example('cnn_dynamic');
    const e = r.evaluate(new Map([['H', 40n], ['W', 40]]));
    expect(e.values.c1).toEqual([null, 8, 20, 20]);
    expect(e.unbound).toEqual(['N']);
    expect(r.evaluate({ N: 1, H: 40, W: 40, Q: 3 }).unknown).toEqual(['Q']);
    expect(thrown(() => r.evaluate({ H: -1 }))).toBeInstanceOf(RangeError);
    expect(thrown(() => r.evaluate({ H: 1.5 }))).toBeInstanceOf(TypeError);
    expect(thrown(() => r.evaluate('H=3'))).toBeInstanceOf(TypeError);
  });
});

test('control_flow (an If on a data-dependent condition, a Loop of rows): N any size, 0 included', () => {
  const r = example('control_flow');
  // Relu/Neg, ReduceSum, Greater and a Loop over [N, 4] ask nothing of N: an empty batch runs too.
  expect(r.domain).toEqual({ symbols: { N: { min: 0 } }, relations: [] });
  expect(r.evaluate({ N: 0 }).values.rows).toEqual([3, 0, 4]);
  expect(r.evaluate({ N: 5 }).values.acc).toEqual([5, 4]);
});

test('tiny_decoder: every symbol from 0 (an empty KV cache included), the attention\'s length as a relation', () => {
  const r = example('tiny_decoder');
  expect(r.domain.symbols).toEqual({ batch: { min: 0 }, seq: { min: 0 }, total_seq: { min: 0 }, past_seq: { min: 0 } });
  expect(r.domain.relations).toHaveLength(1);
  expect(r.domain.relations[0]).toMatchObject({ lhs: 'past_seq+seq', relation: '==', node: 'attend', opType: 'MatMul' });
  expect(r.evaluate({ batch: 1, seq: 1, past_seq: 0 }).values.present_key).toEqual([1, 4, 1, 16]);
});

test('tiny_decoder: total_seq derived from past_seq+seq == total_seq; a contradiction names it', () => {
  const r = example('tiny_decoder');
  const e = r.evaluate({ batch: 1, seq: 3, past_seq: 5 });
  expect(e.derived).toEqual([{ symbol: 'total_seq', size: 8, from: 'past_seq+seq == total_seq' }]);
  expect(e.values.present_key).toEqual([1, 4, 8, 16]);
  const err = thrown(() => r.evaluate({ batch: 1, seq: 3, past_seq: 5, total_seq: 9 }));
  expect(err).toBeInstanceOf(RequirementError);
  expect(err.kind).toBe('equality');
  expect(err.relation).toBeNull();
  expect(err.message).toMatch(/^the model says past_seq\+seq == total_seq, but at these sizes past_seq\+seq is 8 and total_seq is 9/);
});

describe('a dim is a size: ConstantOfShape([n-3, 4]) runs for n >= 3', () => {
  test('domain: n from 3, by the dim of `zeros` (no requirement says it)', () => {
    const r = engine.inferShapes(minusThree());
    expect(r.getShape('zeros').dims).toEqual(['n-3', 4]);
    expect(r.constraints.requirements).toEqual([]);
    expect(r.domain.symbols.n).toEqual({
      min: 3,
      minBy: {
        lhs: '0', relation: '<=', rhs: 'n-3', node: '', opType: 'ConstantOfShape', nodeIndex: 2, path: '',
        message: "dim 0 of 'zeros' is a size (never negative)", requirement: null,
      },
    });
  });

  test('evaluate: n = 2 is outside (kind "size"), n = 3 gives an empty tensor', () => {
    const r = engine.inferShapes(minusThree());
    expect(r.evaluate({ n: 3 }).values.zeros).toEqual([0, 4]);
    const err = thrown(() => r.evaluate({ n: 2 }));
    expect(err).toBeInstanceOf(RequirementError);
    expect(err.kind).toBe('size');
    expect(err.relation.message).toBe("dim 0 of 'zeros' is a size (never negative)");
    expect(err.message).toBe("n = 2 is below 3, where node 2 (ConstantOfShape) requires 0 <= n-3 (dim 0 of 'zeros' is a size (never negative))");
  });
});

// x: [n, t]; half = x[:, ::2] ([n, (t+1)//2]); y = half + bias[64]: onnxruntime runs it where the
// sliced size broadcasts against 64, so (t+1)//2 is 1 or 64.
const againstConstant = () => model({
  opset: 17,
  inputs: [{ name: 'x', elemType: 'float', dims: ['n', 't'] }],
  outputs: ['y'],
  initializers: [
    tensor({ name: 'bias', elemType: 'float', dims: [64], floatData: new Array(64).fill(0.5) }),
    tensor({ name: 'starts', elemType: 'int64', dims: [1], int64Data: [0] }),
    tensor({ name: 'ends', elemType: 'int64', dims: [1], int64Data: [9223372036854775807n] }),
    tensor({ name: 'axes', elemType: 'int64', dims: [1], int64Data: [1] }),
    tensor({ name: 'steps', elemType: 'int64', dims: [1], int64Data: [2] }),
  ],
  nodes: [
    { op: 'Slice', name: 'every_other', inputs: ['x', 'starts', 'ends', 'axes', 'steps'], outputs: ['half'] },
    { op: 'Add', name: 'plus_bias', inputs: ['half', 'bias'], outputs: ['y'] },
  ],
});

describe('a size broadcast against a constant is 1 or the constant, and reads so', () => {
  test('the requirement is Broadcast(dim,64) == 64 in the result, "dim == 1 or dim == 64" in words', () => {
    const r = engine.inferShapes(againstConstant());
    expect(r.getShape('y').dims).toEqual(['n', 64]);
    const want = {
      lhs: 'Broadcast((t+1)//2,64)', relation: '==', rhs: '64', node: 'plus_bias', opType: 'Add', nodeIndex: 1, path: '',
      message: 'broadcast: dim 1 of the inputs before input 1 broadcasts against 64 (input 1 dim 0)',
    };
    expect(r.constraints.requirements).toEqual([want]);
    expect(r.domain.relations).toEqual([{ ...want, requirement: 0 }]);
    expect(r.evaluate({ n: 2, t: 1 }).values.y).toEqual([2, 64]);
    expect(r.evaluate({ n: 2, t: 128 }).values.y).toEqual([2, 64]);
    for (const t of [0, 5, 129]) {
      const err = thrown(() => r.evaluate({ n: 2, t }));
      expect(err).toBeInstanceOf(RequirementError);
      expect(err.kind).toBe('requirement');
      expect(err.relation).toEqual(want);
      expect(err.message).toBe(`node 1 'plus_bias' (Add) requires (t+1)//2 == 1 or (t+1)//2 == 64, but at these sizes (t+1)//2 is ${Math.floor((t + 1) / 2)}`);
    }
  });

  test('the command line says it the same way, in the domain and for --bind', () => {
    const dir = mkdtempSync(join(tmpdir(), 'osi-domain-'));
    try {
      const file = join(dir, 'against_constant.onnx');
      writeFileSync(file, againstConstant());
      expect(cli(file).stdout).toMatch(/^runs where \(t\+1\)\/\/2 == 1 or \(t\+1\)\/\/2 == 64 \(node 1 'plus_bias', Add\)$/m);
      const bad = cli(file, '--bind', 'n=1,t=6');
      expect(bad.status).toBe(2);
      expect(bad.stderr.trim()).toBe("onnx-shapes: --bind: these sizes are impossible for this model: node 1 'plus_bias' (Add) requires (t+1)//2 == 1 or (t+1)//2 == 64, but at these sizes (t+1)//2 is 3");
      expect(cli(file, '--bind', 'n=1,t=127').stdout).toMatch(/^y +Add +float \[1, 64\]/m);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

// z = x [n, a] + y [n, b] is [n, Broadcast(a,b)]; MatMul(z, w [b, 4]) needs it to be b: a is b or 1.
const againstSize = () => model({
  opset: 17,
  inputs: [
    { name: 'x', elemType: 'float', dims: ['n', 'a'] },
    { name: 'y', elemType: 'float', dims: ['n', 'b'] },
    { name: 'w', elemType: 'float', dims: ['b', 4] },
  ],
  outputs: ['out'],
  nodes: [
    { op: 'Add', name: 'sum', inputs: ['x', 'y'], outputs: ['z'] },
    { op: 'MatMul', name: 'project', inputs: ['z', 'w'], outputs: ['out'] },
  ],
});

describe('a size broadcast against another size is 1 or that size, and reads so', () => {
  test('the command line: "a == b or a == 1" in the domain; --bind checks both ways out', () => {
    const r = engine.inferShapes(againstSize());
    expect(r.constraints.requirements.map((q) => [q.lhs, q.relation, q.rhs, q.node])).toEqual([['b', '==', 'Broadcast(a,b)', 'project']]);
    const dir = mkdtempSync(join(tmpdir(), 'osi-domain-'));
    try {
      const file = join(dir, 'against_size.onnx');
      writeFileSync(file, againstSize());
      expect(cli(file).stdout).toMatch(/^runs where a == b or a == 1 \(node 1 'project', MatMul\)$/m);
      for (const [a, b] of [[3, 5], [5, 1]]) {
        const bad = cli(file, '--bind', `n=2,a=${a},b=${b}`);
        expect(bad.status).toBe(2);
        expect(bad.stderr.trim()).toBe(`onnx-shapes: --bind: these sizes are impossible for this model: node 1 'project' (MatMul) requires a == b or a == 1, but at these sizes a is ${a} and b is ${b}`);
      }
      expect(cli(file, '--bind', 'n=2,a=1,b=5').stdout).toMatch(/^out +MatMul +float \[2, 4\]/m);
      expect(cli(file, '--bind', 'n=2,a=5,b=5').stdout).toMatch(/^out +MatMul +float \[2, 4\]/m);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('command line', () => {
  test('the table ends with the domain', () => {
    const r = cli(join(REPO, 'examples', 'models', 'cnn_dynamic.onnx'));
    expect(r.status).toBe(0);
    const lines = r.stdout.trim().split('\n');
    expect(lines).toContain("runs for H >= 11 (node 3 'conv2', Conv)");
    expect(lines).toContain("runs for W >= 11 (node 3 'conv2', Conv)");
    expect(lines.some((l) => l.startsWith('runs for N'))).toBe(false); // any size
  });

  test('--bind outside the domain fails naming the requirement (exit 2); inside, the shapes', () => {
    const file = join(REPO, 'examples', 'models', 'cnn_dynamic.onnx');
    const bad = cli(file, '--bind', 'N=1,H=10,W=16');
    expect(bad.status).toBe(2);
    expect(bad.stderr.trim()).toBe("onnx-shapes: --bind: these sizes are impossible for this model: node 3 'conv2' (Conv) requires 3 <= (H+1)//4, but at these sizes 3 is 3 and (H+1)//4 is 2");
    const good = cli(file, '--bind', 'N=1,H=11,W=16');
    expect(good.status).toBe(0);
    expect(good.stdout).toMatch(/^c2 +Conv +float \[1, 16, 1, 2\]/m);
  });

  test('--bind that makes a dim negative fails naming the dim', () => {
    const dir = mkdtempSync(join(tmpdir(), 'osi-domain-'));
    try {
      const file = join(dir, 'minus_three.onnx');
      writeFileSync(file, minusThree());
      expect(cli(file).stdout).toMatch(/^runs for n >= 3 \(node 2, ConstantOfShape\)$/m);
      const bad = cli(file, '--bind', 'n=2');
      expect(bad.status).toBe(2);
      expect(bad.stderr.trim()).toBe("onnx-shapes: --bind: these sizes are impossible for this model: n = 2 is below 3, where node 2 (ConstantOfShape) requires 0 <= n-3 (dim 0 of 'zeros' is a size (never negative))");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
