// inferShapes(bytes) without a decoder option streams models of 32 MiB and more (nanopb from JS
// memory), so not even their bytes are copied into the wasm heap; smaller ones use protobuf-c,
// which holds the copied bytes but not the weights a second time (they are dropped before it
// unpacks the rest). Both give the same result.
import { init } from '../../js/index.js';
import { model } from './onnx_builder.js';

const MiB = 1024 * 1024;

const withWeights = (mib) => model({
  inputs: [{ name: 'X', elemType: 'float', dims: ['N', 1024] }],
  outputs: ['Y'],
  initializers: [{ name: 'W', elemType: 'float', dims: [1024, mib * 256], rawData: new Uint8Array(mib * MiB) }],
  nodes: [{ op: 'MatMul', inputs: ['X', 'W'], outputs: ['Y'] }],
});

// First: it needs the fresh module's heap.
test('a 24 MiB model is unpacked by protobuf-c (under 32 MiB): the heap takes its bytes once, and the next call reuses it', async () => {
  const engine = await init();
  const bytes = withWeights(24);
  const before = engine._heapBytes();
  expect(before).toBe(engine._freshHeapBytes());
  const r = engine.inferShapes(bytes);
  expect(r.getShape('Y')).toEqual({ kind: 'tensor', elemType: 'float', dims: ['N', 24 * 256] });
  const grown = engine._runHeapBytes();
  // The copy of the bytes is in the heap (part of it in the fresh heap's free space), the weights
  // are not in it a second time (protobuf-c alone would copy them again: 48 MiB and more).
  expect(grown).toBeGreaterThan(before + 8 * MiB);
  expect(grown).toBeLessThan(before + 32 * MiB);
  expect(engine.inferShapes(bytes, { decoder: 'nanopb' }).values).toEqual(r.values);
  expect(engine.inferShapes(bytes).values).toEqual(r.values);
  expect(engine._heapBytes()).toBe(grown); // not grown again
}, 60000);

test('a 40 MiB model is streamed: the heap does not grow by its bytes', async () => {
  const engine = await init();
  const bytes = withWeights(40);
  const before = engine._heapBytes();
  const r = engine.inferShapes(bytes);
  expect(r.getShape('Y')).toEqual({ kind: 'tensor', elemType: 'float', dims: ['N', 40 * 256] });
  expect(engine._heapBytes() - before).toBeLessThan(8 * MiB);
  // The explicit choice still holds, and agrees: protobuf-c needs the 40 MiB in the heap (the
  // fresh heap's free room takes part of them; the copy is freed once unpacked).
  const pbc = engine.inferShapes(bytes, { decoder: 'protobuf-c' });
  expect(pbc.values).toEqual(r.values);
  expect(engine._runHeapBytes()).toBeGreaterThan(bytes.length);
  expect(engine._runHeapBytes()).toBeLessThan(engine._freshHeapBytes() + 56 * MiB);
  // Write-back works for streamed in-memory results too.
  expect(engine.inferShapes(r.toModel()).values).toEqual(r.values);
}, 60000);
