// The cost model through the JS API and the command line (README "Cost"): result.cost() and
// memoryProfile() read what { cost: true } computed; at random bindings (sizes 0 included) the
// symbolic totals evaluate to the sums of the nodes' values and the symbolic peak to the peak of
// the sweep; a binding the model refuses is a typed error; weights come from declared dims, and a
// model whose data file is gone costs the same (no data file is ever opened).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { init, ShapeInferenceError } from '../../js/index.js';
import { evaluateDim } from '../../js/expr.js';
import { modelSymbols, resolveBindings } from '../../js/cli_bind.js';
import { REPO } from './helpers.js';
import { model } from './onnx_builder.js';
import { floatSizeParts } from './model_parts.js';

const CLI = join(REPO, 'js', 'cli.js');
const EXAMPLES = join(REPO, 'examples', 'models');
const PYTHON = '/usr/bin/python3';

let engine;
beforeAll(async () => {
  engine = await init();
});

/** A model whose dims use a named size computed in float (result.definitions is not empty). */
function namedSizeModel() {
  const parts = floatSizeParts();
  return model({
    opset: 17,
    inputs: [{ name: 'x', elemType: 'float', dims: ['h', 'w'] }],
    outputs: ['z'],
    initializers: parts.initializers,
    nodes: [
      ...parts.nodes,
      { op: 'Concat', inputs: ['fi1', 'ws'], outputs: ['shape'], attrs: { axis: 0 } },
      { op: 'ConstantOfShape', inputs: ['shape'], outputs: ['y'] },
      { op: 'Transpose', inputs: ['y'], outputs: ['yt'], attrs: { perm: [1, 0] } },
      { op: 'Relu', inputs: ['yt'], outputs: ['r'] },
      { op: 'MatMul', inputs: ['r', 'y'], outputs: ['z'] },
    ],
  });
}

const SOURCES = {
  tiny_decoder: () => readFileSync(join(EXAMPLES, 'tiny_decoder.onnx')),
  cnn_dynamic: () => readFileSync(join(EXAMPLES, 'cnn_dynamic.onnx')),
  control_flow: () => readFileSync(join(EXAMPLES, 'control_flow.onnx')),
  named_size: namedSizeModel,
};

const isValue = (v) => typeof v === 'number' || typeof v === 'bigint';
const big = (v) => BigInt(v);

/** A deterministic generator of sizes 0..max. */
function sizes(seed) {
  let s = seed >>> 0;
  return (max) => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s % (max + 1);
  };
}

describe.each(Object.keys(SOURCES))('%s', (name) => {
  let result;
  beforeAll(() => {
    result = engine.inferShapes(SOURCES[name](), { cost: true });
  });

  test('cost() is the JSON contract: totals, byOpType, a node per graph node, uncounted', () => {
    const cost = result.cost();
    expect(Object.keys(cost)).toEqual(['total', 'byOpType', 'nodes', 'uncounted']);
    expect(Object.keys(cost.total)).toEqual(['macs', 'flops', 'params', 'weightBytes', 'activationPeakBytes', 'uncountedNodes']);
    expect(cost.nodes.map((n) => [n.name, n.opType, n.domain])).toEqual(result.nodes.map((n) => [n.name, n.opType, n.domain]));
    let nodes = 0;
    for (const g of Object.values(cost.byOpType)) nodes += g.nodes;
    expect(nodes).toBe(result.nodes.length);
    for (const n of cost.nodes) {
      for (const k of ['macs', 'flops', 'outputBytes']) expect(n[k] === null || isValue(n[k]) || typeof n[k] === 'string').toBe(true);
      expect(Number.isSafeInteger(n.weightBytes)).toBe(true);
    }
  });

  test('at random bindings (0 included) every total is the sum of its nodes, and the symbolic counts evaluate to them', () => {
    const symbolic = result.cost();
    const symbols = [...modelSymbols(result)];
    const next = sizes(name.length * 7919);
    let checked = 0;
    for (let round = 0; round < 60; round++) {
      // symbol by symbol, each one the sizes given so far do not derive (total_seq follows past_seq + seq)
      const given = new Map();
      for (const s of symbols) {
        if (!resolveBindings(result, given).env.has(s)) given.set(s, next(round < 4 ? 1 : round % 2 ? 13 : 300));
      }
      const { env, problems } = resolveBindings(result, given);
      if (problems.length) {
        expect(() => result.cost({ bindings: given })).toThrow(expect.objectContaining({ code: 'BINDING_REJECTED' }));
        continue;
      }
      checked++;
      const at = result.cost({ bindings: given });
      const ev = (d) => (d === null ? null : evaluateDim(d, env, result.definitions));
      let macs = 0n, flops = 0n;
      symbolic.nodes.forEach((n, i) => {
        expect(at.nodes[i].macs).toEqual(ev(n.macs) ?? n.macs);
        expect(at.nodes[i].flops).toEqual(ev(n.flops) ?? n.flops);
        expect(at.nodes[i].outputBytes).toEqual(ev(n.outputBytes) ?? n.outputBytes);
        if (n.macs !== null) {
          expect(isValue(at.nodes[i].macs)).toBe(true);
          macs += big(at.nodes[i].macs);
          flops += big(at.nodes[i].flops);
        }
      });
      expect(big(at.total.macs)).toBe(macs);
      expect(big(at.total.flops)).toBe(flops);
      expect(big(ev(symbolic.total.macs))).toBe(macs);
      expect(big(ev(symbolic.total.flops))).toBe(flops);
      for (const [k, g] of Object.entries(symbolic.byOpType)) {
        if (g.macs === null) continue;
        expect(at.byOpType[k].macs).toEqual(ev(g.macs));
        expect(at.byOpType[k].flops).toEqual(ev(g.flops));
      }
      const profile = result.memoryProfile({ bindings: given });
      expect(at.total.activationPeakBytes).toEqual(profile.peakBytes);
      if (symbolic.total.activationPeakBytes !== null) expect(ev(symbolic.total.activationPeakBytes)).toEqual(profile.peakBytes);
      // the sweep by hand: each step's live values
      const live = profile.steps.map((_, k) => profile.values.filter((v) => v.from <= k && k <= v.to)
        .reduce((s, v) => s + big(v.bytes), 0n));
      expect(profile.steps.map((s) => big(s.liveBytes))).toEqual(live);
      expect(big(profile.peakBytes)).toBe(live.reduce((m, x) => (x > m ? x : m), 0n));
    }
    expect(checked).toBeGreaterThan(10);
  });
});

test('the example decoder: a polynomial in batch, seq and total_seq; the peak at a binding', () => {
  const r = engine.inferShapes(SOURCES.tiny_decoder(), { cost: true });
  const c = r.cost();
  expect(c.total.macs).toBe('128*batch*seq*total_seq+22784*batch*seq');
  expect(c.total.params).toBe(29322);
  const at = r.cost({ bindings: { batch: 2, seq: 7, past_seq: 3 } }); // total_seq = 10 derived
  expect(at.total.macs).toBe(128 * 2 * 7 * 10 + 22784 * 2 * 7);
  expect(at.byOpType.MatMul.macs).toBe(at.total.macs);
  expect(typeof at.total.activationPeakBytes).toBe('number');
  const profile = r.memoryProfile({ bindings: { batch: 2, seq: 7, past_seq: 3 } });
  expect(profile.steps).toHaveLength(r.nodes.length);
  expect(profile.steps[profile.peakStep].liveBytes).toBe(profile.peakBytes);
});

test('without { cost: true }: a typed error that says what to do; a refused binding names the relation', () => {
  const plain = engine.inferShapes(SOURCES.tiny_decoder());
  expect(plain.costModel).toBeUndefined();
  for (const call of [() => plain.cost(), () => plain.memoryProfile({ bindings: {} })]) {
    expect(call).toThrow(ShapeInferenceError);
    expect(call).toThrow(/\{ cost: true \}/);
  }
  try {
    plain.cost();
  } catch (err) {
    expect(err.code).toBe('NO_COST_MODEL');
  }
  const r = engine.inferShapes(SOURCES.tiny_decoder(), { cost: true });
  let err;
  try {
    r.cost({ bindings: { past_seq: 3, seq: 7, total_seq: 11 } });
  } catch (e) {
    err = e;
  }
  expect(err).toBeInstanceOf(ShapeInferenceError);
  expect(err.code).toBe('BINDING_REJECTED');
  expect(err.message).toMatch(/past_seq\+seq == total_seq/);
  expect(() => r.cost({ bindings: { seq: -1 } })).toThrow(TypeError);
  expect(() => r.cost({ bindings: 'seq=1' })).toThrow(TypeError);
});

test('results stay plain data: the cost model survives structured cloning and JSON', () => {
  const r = engine.inferShapes(SOURCES.cnn_dynamic(), { cost: true });
  const copy = JSON.parse(JSON.stringify({ ...r }));
  expect(copy.costModel).toEqual(r.costModel);
  expect(Object.isFrozen(r.costModel)).toBe(true);
  // deeply: every object and array of it
  const open = [];
  const visit = (v, path) => {
    if (v === null || typeof v !== 'object') return;
    if (!Object.isFrozen(v)) open.push(path);
    for (const [k, x] of Object.entries(v)) if (x !== null && typeof x === 'object') visit(x, `${path}.${k}`);
  };
  visit(r.costModel, 'costModel');
  expect(open).toEqual([]);
  expect(structuredClone(r.costModel)).toEqual(r.costModel);
});

test('counts past 2^53 are exact BigInts, and sizes past int64 give unknown counts, never wrapped ones', () => {
  const bytes = model({
    opset: 17,
    inputs: [{ name: 'a', elemType: 'float', dims: ['m', 'k'] }, { name: 'b', elemType: 'float', dims: ['k', 'n'] }],
    outputs: ['y'],
    nodes: [{ op: 'MatMul', inputs: ['a', 'b'], outputs: ['y'] }],
  });
  const r = engine.inferShapes(bytes, { cost: true });
  const at = r.cost({ bindings: { m: 2 ** 20, k: 2 ** 20, n: 2 ** 20 + 1 } });
  expect(at.total.macs).toBe(2n ** 60n + 2n ** 40n);
  expect(r.cost({ bindings: { m: 2 ** 30, k: 2 ** 30, n: 2 ** 30 } }).nodes[0].macs).toBe('k*m*n'); // past int64: not decided
  // two counts that each fit int64 but whose sum does not: the total is not decided either
  const twice = engine.inferShapes(model({
    opset: 17,
    inputs: [{ name: 'a', elemType: 'float', dims: ['m', 'k'] }, { name: 'b', elemType: 'float', dims: ['k', 'n'] }],
    outputs: ['y', 'z'],
    nodes: [{ op: 'MatMul', inputs: ['a', 'b'], outputs: ['y'] }, { op: 'MatMul', inputs: ['a', 'b'], outputs: ['z'] }],
  }), { cost: true }).cost({ bindings: { m: 2 ** 20, k: 2 ** 20, n: 2 ** 22 } });
  expect(twice.nodes.map((n) => n.macs)).toEqual([2n ** 62n, 2n ** 62n]);
  expect(twice.total.macs).toBe('2*k*m*n');
  expect(twice.byOpType.MatMul.macs).toBe('2*k*m*n');
  const zero = r.cost({ bindings: { m: 0, k: 5, n: 3 } });
  expect(zero.total.macs).toBe(0);
  expect(zero.total.activationPeakBytes).toBe(4 * 15);
});

describe('command line', () => {
  const run = (args) => spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', timeout: 60000 });

  test('--cost prints a table by op type and the totals; --bind makes them numbers; --json holds cost as the API gives it', () => {
    const symbolic = run([join(EXAMPLES, 'cnn_dynamic.onnx'), '--cost']);
    expect(symbolic.status).toBe(0);
    expect(symbolic.stdout).toMatch(/^op type\s+nodes\s+MACs\s+FLOPs/);
    expect(symbolic.stdout).toMatch(/^Conv\s+2\s+.*N\*/m);
    expect(symbolic.stdout).toMatch(/params: 1\.552 k params \(6\.208 kB of weights\)/);
    const bound = run([join(EXAMPLES, 'cnn_dynamic.onnx'), '--cost', '--bind', 'N=8,H=224,W=224']);
    expect(bound.status).toBe(0);
    expect(bound.stdout).toMatch(/^total\s+8\s+\d+\.\d+ MMACs\s+\d+\.\d+ MFLOPs/m);
    expect(bound.stdout).toMatch(/activation peak: \d+\.\d+ MB/);
    expect(bound.stdout).toMatch(/^bound: N=8, H=224, W=224/m);
    const json = run([join(EXAMPLES, 'cnn_dynamic.onnx'), '--cost', '--json', '--bind', 'N=8,H=224,W=224']);
    const o = JSON.parse(json.stdout);
    const r = engine.inferShapes(SOURCES.cnn_dynamic(), { cost: true });
    expect(o.cost).toEqual(r.cost({ bindings: { N: 8, H: 224, W: 224 } }));
    expect(o.bindings.given).toEqual({ N: 8, H: 224, W: 224 });
  });

  test('--cost --bind with sizes the model refuses is a usage error naming the relation', () => {
    const r = run([join(EXAMPLES, 'tiny_decoder.onnx'), '--cost', '--bind', 'past_seq=3,seq=7,total_seq=11']);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/past_seq\+seq == total_seq/);
  });
});

// Weights from declared dims only: a model saved with external data costs what the inline one
// does, with its data file deleted, and the CLI opens no data file (fs spy in the child).
const GENERATE = String.raw`
import sys, os, numpy as np, onnx
from onnx import helper, TensorProto, numpy_helper
out = sys.argv[1]
rng = np.random.default_rng(0)
arrays = {'W1': rng.standard_normal((64, 256)).astype(np.float32), 'B1': rng.standard_normal(256).astype(np.float16),
          'W2': rng.standard_normal((256, 64)).astype(np.float64), 'Q': rng.integers(0, 9, (33, 3)).astype(np.int8)}
inits = [numpy_helper.from_array(a, n) for n, a in arrays.items()]
nodes = [helper.make_node('MatMul', ['X', 'W1'], ['h1']), helper.make_node('Cast', ['B1'], ['b1'], to=1),
         helper.make_node('Add', ['h1', 'b1'], ['h2']), helper.make_node('Cast', ['h2'], ['h3'], to=11),
         helper.make_node('MatMul', ['h3', 'W2'], ['Y']), helper.make_node('Identity', ['Q'], ['q'])]
g = helper.make_graph(nodes, 'g', [helper.make_tensor_value_info('X', TensorProto.FLOAT, ['batch', 64])],
                      [helper.make_tensor_value_info('Y', TensorProto.DOUBLE, None), helper.make_tensor_value_info('q', TensorProto.INT8, None)], inits)
m = helper.make_model(g, opset_imports=[helper.make_opsetid('', 17)])
onnx.save_model(m, os.path.join(out, 'inline.onnx'))
os.makedirs(os.path.join(out, 'ext'))
onnx.save_model(onnx.load(os.path.join(out, 'inline.onnx')), os.path.join(out, 'ext', 'model.onnx'),
                save_as_external_data=True, all_tensors_to_one_file=True, location='model.onnx.data', size_threshold=0)
print(sum(a.nbytes for a in arrays.values()), sum(a.size for a in arrays.values()))
`;

const SPY = `
import fs from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
const log = process.env.OSI_OPEN_LOG;
const append = fs.appendFileSync.bind(fs);
for (const name of ['openSync', 'open', 'readFileSync', 'readFile', 'createReadStream']) {
  const orig = fs[name];
  fs[name] = function (p, ...rest) { if (typeof p !== 'number') append(log, String(p) + '\\n'); return orig.call(this, p, ...rest); };
}
syncBuiltinESMExports();
`;

describe('weights from declared dims', () => {
  let dir, bytes, elems;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'osi-cost-'));
    const r = spawnSync(PYTHON, ['-c', GENERATE, dir], { encoding: 'utf8', timeout: 60000 });
    if (r.status !== 0) throw new Error(`generating the model failed (${PYTHON} with onnx is required):\n${r.stderr}`);
    [bytes, elems] = r.stdout.trim().split(' ').map(Number);
    writeFileSync(join(dir, 'spy.mjs'), SPY);
  }, 60000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  test('weightBytes is the sum of the initializers\' bytes, inline and external (data file deleted), never read', () => {
    const inline = engine.inferShapesFromPath(join(dir, 'inline.onnx'), { cost: true }).cost();
    expect(inline.total.weightBytes).toBe(bytes);
    expect(inline.total.params).toBe(elems);
    unlinkSync(join(dir, 'ext', 'model.onnx.data'));
    expect(readdirSync(join(dir, 'ext'))).toEqual(['model.onnx']);
    const ext = engine.inferShapesFromPath(join(dir, 'ext', 'model.onnx'), { cost: true }).cost();
    expect(ext).toEqual(inline);
    expect(ext.nodes.find((n) => n.name === '' && n.opType === 'Identity')?.weightBytes ?? ext.nodes[5].weightBytes).toBe(99);
    const log = join(dir, 'opened.txt');
    writeFileSync(log, '');
    const child = spawnSync(process.execPath, ['--import', join(dir, 'spy.mjs'), CLI, join(dir, 'ext', 'model.onnx'), '--cost', '--json'], {
      encoding: 'utf8', env: { ...process.env, OSI_OPEN_LOG: log }, timeout: 60000,
    });
    expect(child.status).toBe(0);
    expect(JSON.parse(child.stdout).cost.total.weightBytes).toBe(bytes);
    const opened = readFileSync(log, 'utf8').split('\n').filter(Boolean);
    expect(opened).toContain(join(dir, 'ext', 'model.onnx'));
    expect(opened.filter((p) => p.includes('.data'))).toEqual([]);
  });
});
