// Work and memory a small input can make the engine spend: model-local functions that each call
// the next twice expand to 2^n bodies (capped: LIMIT_EXCEEDED, in bounded time), and a run that
// grows the wasm memory leaves no big heap behind (the engine swaps in a fresh module).
import { init, ShapeInferenceError } from '../../js/index.js';
import { model } from './onnx_builder.js';
import { bigModel, bigTensor, piecesToBytes } from './big_model.js';

const MiB = 2 ** 20;
let engine;
beforeAll(async () => {
  engine = await init();
});

/** f0 calls f1 twice, f1 calls f2 twice, ..., the last is a Relu: 3 * 2^(levels-1) - 1 nodes to infer. */
function doublingFunctions(levels) {
  const opsets = [{ domain: '', version: 17 }, { domain: 'local', version: 1 }];
  const functions = [];
  for (let i = 0; i < levels; i++) {
    const call = (inputs, outputs) => (i + 1 < levels
      ? { op: `f${i + 1}`, domain: 'local', inputs, outputs }
      : { op: 'Relu', inputs, outputs });
    functions.push({
      name: `f${i}`, domain: 'local', inputs: ['a'], outputs: ['b'], opsets,
      nodes: [call(['a'], ['t']), call(['t'], ['b'])],
    });
  }
  return model({
    opsets,
    functions,
    inputs: [{ name: 'X', elemType: 'float', dims: ['N', 4] }],
    outputs: ['Y'],
    nodes: [{ op: 'f0', domain: 'local', name: 'top', inputs: ['X'], outputs: ['Y'] }],
  });
}

test('functions that each call the next twice: LIMIT_EXCEEDED in bounded time and memory', () => {
  const bytes = doublingFunctions(20); // 2^20 bodies if expanded
  expect(bytes.length).toBeLessThan(2048);
  const heap = engine._heapBytes();
  const t0 = performance.now();
  let err;
  try {
    engine.inferShapes(bytes);
  } catch (e) {
    err = e;
  }
  const ms = performance.now() - t0;
  expect(err).toBeInstanceOf(ShapeInferenceError);
  expect(err.code).toBe('LIMIT_EXCEEDED');
  expect(err.message).toMatch(/more than \d+ nodes/);
  expect(ms).toBeLessThan(10000); // ~0.5 s here; unbounded (minutes, then the 1 GiB arena) before
  expect(engine._heapBytes()).toBeLessThanOrEqual(heap + 64 * MiB);
  // Within the budget the same shape of model infers, every call expanded.
  const r = engine.inferShapes(doublingFunctions(8));
  expect(r.getShape('Y')).toEqual({ kind: 'tensor', elemType: 'float', dims: ['N', 4] });
  expect(Object.keys(r.subgraphValues).length).toBeGreaterThan(2 ** 8);
}, 60000);

test('a run that grows the wasm memory far: calls that follow reuse it, and once idle a fresh module replaces it, which still works', async () => {
  engine.registerShapeFunction('', 'MyRelu', ({ inputs }) => [inputs[0]]);
  const fresh = engine._freshHeapBytes();
  expect(engine._heapBytes()).toBeLessThan(fresh + 64 * MiB);
  // protobuf-c needs the 96 MiB model in the heap (its weights are dropped before it unpacks).
  const bytes = piecesToBytes(bigModel({
    inputs: [{ name: 'X', elemType: 'float', dims: ['N', 1024] }],
    outputs: ['Z'],
    initializers: [bigTensor({ name: 'W', dims: [1024, 96 * 256] })],
    nodes: [{ op: 'MatMul', inputs: ['X', 'W'], outputs: ['Y'] }, { op: 'MyRelu', inputs: ['Y'], outputs: ['Z'] }],
  }));
  const r = engine.inferShapes(bytes, { decoder: 'protobuf-c' });
  expect(r.getShape('Z')).toEqual({ kind: 'tensor', elemType: 'float', dims: ['N', 96 * 256] });
  const grown = engine._runHeapBytes();
  expect(grown).toBeGreaterThan(fresh + 64 * MiB); // the run did grow it, past what is kept
  expect(grown).toBeLessThan(fresh + 150 * MiB); // by the model's bytes, not their weights twice
  // A call that follows at once reuses the grown memory: it does not grow it again.
  expect(engine.inferShapes(bytes, { decoder: 'protobuf-c' }).values).toEqual(r.values);
  expect(engine._heapBytes()).toBe(grown);
  // A second without a call: the memory goes (a fresh module).
  await new Promise((resolve) => { setTimeout(resolve, 1300); });
  expect(engine._heapBytes()).toBe(fresh);
  // The fresh module has the shape function, and write-back (which runs the model again) works.
  expect(engine.inferShapes(bytes, { decoder: 'nanopb' }).getShape('Z').dims).toEqual(['N', 96 * 256]);
  const written = r.toModel();
  expect(engine.inferShapes(written, { decoder: 'nanopb' }).values).toEqual(r.values);
  await new Promise((resolve) => { setTimeout(resolve, 1300); }); // write-back grew it again: idle, it goes
  expect(engine._heapBytes()).toBe(fresh);
  engine.clearShapeFunctions();
}, 60000);
