// The symbolic cost against the cost computed at a binding by another path (README "Cost"): the
// same model with the sizes written into its declared dims, inferred again, must give every node's
// MACs, FLOPs and output bytes, the totals and the activation peak that the symbolic counts give
// evaluated at those sizes (named sizes expanded), exactly, at random sizes (0 included). The
// concrete model never sees a symbol: its counts come from concrete shapes only, so a rule or an
// expression that is wrong for some value of the symbols shows up as a difference.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { init } from '../../js/index.js';
import { evaluateDim } from '../../js/expr.js';
import { modelSymbols, resolveBindings } from '../../js/cli_bind.js';
import { REPO } from './helpers.js';
import { attr, model } from './onnx_builder.js';

const PYTHON = '/usr/bin/python3';
const EXAMPLES = join(REPO, 'examples', 'models');

// Writes each job's model with every dim_param of the graph's inputs, outputs and value_info that
// the job's sizes give replaced by its value (jobs as JSON on standard input).
const CONCRETE = String.raw`
import sys, json, onnx
for job in json.load(sys.stdin):
    m = onnx.load(job['src'])
    for v in list(m.graph.input) + list(m.graph.output) + list(m.graph.value_info):
        if not v.type.HasField('tensor_type') or not v.type.tensor_type.HasField('shape'): continue
        for d in v.type.tensor_type.shape.dim:
            if d.HasField('dim_param') and d.dim_param in job['sizes']:
                d.dim_value = job['sizes'][d.dim_param]
    onnx.save(m, job['dst'])
`;

const zeros = (n) => new Array(n).fill(0);
const weight = (name, dims, elemType = 'float') => ({ name, elemType, dims, floatData: zeros(dims.reduce((a, b) => a * b, 1)) });

// A Loop body run S times (its trip count is q's dim 1): a matmul of the carried value and a sum.
const LOOP_BODY = {
  name: 'body',
  inputs: [{ name: 'i', elemType: 'int64', dims: [] }, { name: 'c', elemType: 'bool', dims: [] }, 'acc'],
  outputs: ['c_out', 'acc_out', 'row'],
  initializers: [weight('lm', [3, 3])],
  nodes: [
    { op: 'Identity', inputs: ['c'], outputs: ['c_out'] },
    { op: 'MatMul', inputs: ['acc', 'lm'], outputs: ['prod'] },
    { op: 'Add', inputs: ['prod', 'acc'], outputs: ['acc_out'] },
    { op: 'ReduceSum', inputs: ['acc_out'], outputs: ['row'], attrs: { keepdims: 0 } },
  ],
};

/**
 * A model that runs many cost rules over symbolic sizes: grouped strided Conv, ConvTranspose,
 * pooling with ceil_mode, LpPool, Resize, Gemm, Einsum (with an ellipsis), a broadcast MatMul, Softmax, LSTM, bidirectional GRU, LayerNorm, reductions, com.microsoft Attention
 * and MultiHeadAttention, a Loop whose trip count is a size. `d(sym)` gives each input dim: the
 * symbol itself, or its value.
 */
function manyRules(d) {
  const nodes = [
    { op: 'Conv', inputs: ['x', 'wc', 'bc'], outputs: ['c1'], attrs: { group: 2, strides: [2, 2], pads: [1, 1, 1, 1] } },
    { op: 'Relu', inputs: ['c1'], outputs: ['r1'] },
    { op: 'ConvTranspose', inputs: ['r1', 'wt'], outputs: ['ct'], attrs: { strides: [2, 2] } },
    { op: 'MaxPool', inputs: ['ct'], outputs: ['mp'], attrs: { kernel_shape: [3, 3], strides: [2, 2], ceil_mode: 1 } },
    { op: 'AveragePool', inputs: ['mp'], outputs: ['ap'], attrs: { kernel_shape: [2, 2], pads: [1, 1, 0, 0] } },
    { op: 'Resize', inputs: ['ap', '', 'scales'], outputs: ['rs'], attrs: { mode: 'linear' } },
    { op: 'GlobalAveragePool', inputs: ['rs'], outputs: ['gp'] },
    { op: 'Flatten', inputs: ['gp'], outputs: ['fl'] },
    { op: 'Gemm', inputs: ['fl', 'wg', 'bg'], outputs: ['logits'], attrs: { transB: 1 } },
    { op: 'Einsum', inputs: ['q', 'k'], outputs: ['scores'], attrs: { equation: 'bsd,btd->bst' } },
    { op: 'Softmax', inputs: ['scores'], outputs: ['probs'], attrs: { axis: -1 } },
    { op: 'MatMul', inputs: ['probs', 'vt'], outputs: ['ctx'] },
    { op: 'LayerNormalization', inputs: ['q', 'ln_s', 'ln_b'], outputs: ['qn'], attrs: { axis: -1 } },
    { op: 'ReduceMean', inputs: ['qn'], outputs: ['qm'], attrs: { axes: [1] } },
    { op: 'LSTM', inputs: ['seq', 'lw', 'lr', 'lb'], outputs: ['ly'], attrs: { hidden_size: 5 } },
    { op: 'Attention', domain: 'com.microsoft', inputs: ['q', 'aw', 'ab'], outputs: ['att'], attrs: { num_heads: 2 } },
    { op: 'MultiHeadAttention', domain: 'com.microsoft', inputs: ['q', 'k', 'k'], outputs: ['mha'], attrs: { num_heads: 2 } },
    { op: 'GRU', inputs: ['seq', 'gw', 'gr'], outputs: ['gy'], attrs: { hidden_size: 3, direction: 'bidirectional' } },
    { op: 'Einsum', inputs: ['q', 'vt6'], outputs: ['e2'], attrs: { equation: '...d,de->...e' } },
    { op: 'LpPool', inputs: ['x'], outputs: ['lp'], attrs: { kernel_shape: [2, 3], strides: [1, 2] } },
    { op: 'Shape', inputs: ['q'], outputs: ['qs'] },
    { op: 'Gather', inputs: ['qs', 'one'], outputs: ['trips'] },
    { op: 'Loop', inputs: ['trips', '', 'vt'], outputs: ['looped', 'stacked'], attrs: { body: attr.graph(LOOP_BODY) } },
  ];
  return model({
    opsets: [{ domain: '', version: 17 }, { domain: 'com.microsoft', version: 1 }],
    inputs: [
      { name: 'x', elemType: 'float', dims: [d('N'), 8, d('H'), d('W')] },
      { name: 'q', elemType: 'float', dims: [d('B'), d('S'), 6] },
      { name: 'k', elemType: 'float', dims: [d('B'), d('T'), 6] },
      { name: 'vt', elemType: 'float', dims: [d('T'), 3] },
      { name: 'seq', elemType: 'float', dims: [d('S'), d('B'), 6] },
    ],
    outputs: ['logits', 'ctx', 'qm', 'ly', 'att', 'mha', 'gy', 'e2', 'lp', 'looped', 'stacked'],
    initializers: [
      weight('wc', [16, 4, 3, 3]), weight('bc', [16]), weight('wt', [16, 4, 2, 2]),
      { name: 'scales', elemType: 'float', dims: [4], floatData: [1, 1, 2, 1.5] },
      weight('wg', [5, 4]), weight('bg', [5]), weight('ln_s', [6]), weight('ln_b', [6]),
      weight('lw', [1, 20, 6]), weight('lr', [1, 20, 5]), weight('lb', [1, 40]),
      weight('aw', [6, 18]), weight('ab', [18]), weight('gw', [2, 9, 6]), weight('gr', [2, 9, 3]),
      weight('vt6', [6, 7]), { name: 'one', elemType: 'int64', dims: [], int64Data: [1] },
    ],
    nodes,
  });
}

/** A deterministic generator of sizes 0..max. */
function sizes(seed) {
  let s = seed >>> 0;
  return (max) => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s % (max + 1);
  };
}

let engine, dir;
beforeAll(async () => {
  engine = await init();
  dir = mkdtempSync(join(tmpdir(), 'osi-cost-concrete-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Up to `count` size sets the model accepts: each free symbol 0..max at random (a few small first). */
function acceptedSizes(result, count, seed) {
  const symbols = [...modelSymbols(result)];
  const next = sizes(seed);
  const out = [];
  for (let round = 0; out.length < count && round < 20 * count; round++) {
    const given = new Map();
    for (const s of symbols) {
      if (!resolveBindings(result, given).env.has(s)) given.set(s, next(round < 3 ? 1 : round % 2 ? 9 : 40));
    }
    const { env, problems } = resolveBindings(result, given);
    if (!problems.length) out.push({ given, env });
  }
  return out;
}

/** The symbolic cost evaluated at env next to the concrete model's, value by value. */
function expectSame(symbolic, env, concrete, definitions) {
  const ev = (d) => (d === null ? null : typeof d === 'string' ? evaluateDim(d, env, definitions) : d);
  const at = symbolic.cost();
  const c = concrete.cost();
  expect(c.nodes.map((n) => [n.name, n.opType])).toEqual(at.nodes.map((n) => [n.name, n.opType]));
  at.nodes.forEach((n, i) => {
    const want = { macs: ev(n.macs), flops: ev(n.flops), outputBytes: ev(n.outputBytes), weightBytes: n.weightBytes };
    const got = { macs: c.nodes[i].macs, flops: c.nodes[i].flops, outputBytes: c.nodes[i].outputBytes, weightBytes: c.nodes[i].weightBytes };
    expect([n.name, n.opType, got]).toEqual([n.name, n.opType, want]);
  });
  for (const k of ['macs', 'flops', 'params', 'weightBytes', 'uncountedNodes']) expect([k, c.total[k]]).toEqual([k, ev(at.total[k])]);
  expect(c.total.activationPeakBytes).toEqual(symbolic.memoryProfile({ bindings: env }).peakBytes);
  if (at.total.activationPeakBytes !== null) expect(c.total.activationPeakBytes).toEqual(ev(at.total.activationPeakBytes));
  expect(c.uncounted).toEqual(at.uncounted);
}

const FILES = ['tiny_decoder', 'cnn_dynamic', 'control_flow'];

test.each(FILES)('%s: the symbolic cost at random sizes is the cost of the model with those sizes written in', (name) => {
  const src = join(EXAMPLES, `${name}.onnx`);
  const symbolic = engine.inferShapes(readFileSync(src), { cost: true });
  const sets = acceptedSizes(symbolic, 12, name.length * 104729);
  expect(sets.length).toBe(12);
  const jobs = sets.map(({ env }, i) => ({ src, dst: join(dir, `${name}_${i}.onnx`), sizes: Object.fromEntries(env) }));
  const py = spawnSync(PYTHON, ['-c', CONCRETE], { input: JSON.stringify(jobs), encoding: 'utf8', timeout: 60000 });
  if (py.status !== 0) throw new Error(`writing the sized models failed (${PYTHON} with onnx is required):\n${py.stderr}`);
  jobs.forEach((job, i) => {
    const concrete = engine.inferShapes(readFileSync(job.dst), { cost: true });
    expect(concrete.definitions ?? []).toEqual([]);
    expectSame(symbolic, sets[i].env, concrete, symbolic.definitions);
  });
}, 60000);

test('many cost rules over symbolic sizes: the symbolic cost at random sizes (0 included) is the sized model\'s', () => {
  const symbolic = engine.inferShapes(manyRules((s) => s), { cost: true });
  const cost = symbolic.cost();
  // every node is counted: the comparison covers each rule
  expect(cost.uncounted).toEqual([]);
  expect(cost.nodes.every((n) => typeof n.macs === 'string' || typeof n.macs === 'number')).toBe(true);
  const sets = acceptedSizes(symbolic, 40, 7);
  expect(sets.length).toBe(40);
  let zeros = 0;
  for (const { env } of sets) {
    if ([...env.values()].includes(0)) zeros++;
    const concrete = engine.inferShapes(manyRules((s) => env.get(s)), { cost: true });
    expectSame(symbolic, env, concrete, symbolic.definitions);
  }
  expect(zeros).toBeGreaterThan(3);
});
