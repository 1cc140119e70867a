// inferShapes(bytes) without a decoder option streams models of 8 MiB and more (nanopb from JS
// memory), so their weights are never copied into the wasm heap; smaller ones use protobuf-c.
// Both give the same result.
import { init } from '../../js/index.js';
import { model } from './onnx_builder.js';

const MiB = 1024 * 1024;

const withWeights = (mib) => model({
  inputs: [{ name: 'X', elemType: 'float', dims: ['N', 1024] }],
  outputs: ['Y'],
  initializers: [{ name: 'W', elemType: 'float', dims: [1024, mib * 256], rawData: new Uint8Array(mib * MiB) }],
  nodes: [{ op: 'MatMul', inputs: ['X', 'W'], outputs: ['Y'] }],
});

test('a 24 MiB model is streamed: the heap does not grow by its weights', async () => {
  const engine = await init();
  const bytes = withWeights(24);
  const before = engine._heapBytes();
  const r = engine.inferShapes(bytes);
  expect(r.getShape('Y')).toEqual({ kind: 'tensor', elemType: 'float', dims: ['N', 24 * 256] });
  expect(engine._heapBytes() - before).toBeLessThan(8 * MiB);
  // The explicit choice still holds, and agrees.
  const pbc = engine.inferShapes(bytes, { decoder: 'protobuf-c' });
  expect(pbc.values).toEqual(r.values);
  expect(engine._runHeapBytes()).toBeGreaterThan(before + 24 * MiB);
  // Write-back works for streamed in-memory results too.
  expect(engine.inferShapes(r.toModel()).values).toEqual(r.values);
});
