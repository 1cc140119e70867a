// init({ instantiateWasm }) with a hook of the caller's that hands over the instance but not the
// compiled module: the engine cannot make fresh instances, so it keeps the one it has (a grown
// heap stays) and goes on working.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { init } from '../../js/index.js';
import { REPO } from './helpers.js';
import { bigModel, bigTensor, piecesToBytes } from './big_model.js';

test('an instantiateWasm hook without the module: no fresh instances, and no harm', async () => {
  const wasm = readFileSync(join(REPO, 'dist', 'onnx_shapes.wasm'));
  let calls = 0;
  const engine = await init({
    instantiateWasm(imports, receive) {
      calls++;
      WebAssembly.instantiate(wasm, imports).then(({ instance }) => receive(instance));
      return {};
    },
  });
  expect(calls).toBe(1);
  engine.registerShapeFunction('', 'MyRelu', ({ inputs }) => [inputs[0]]);
  const bytes = piecesToBytes(bigModel({
    inputs: [{ name: 'X', elemType: 'float', dims: ['N', 1024] }],
    outputs: ['Z'],
    initializers: [bigTensor({ name: 'W', dims: [1024, 96 * 256] })],
    nodes: [{ op: 'MatMul', inputs: ['X', 'W'], outputs: ['Y'] }, { op: 'MyRelu', inputs: ['Y'], outputs: ['Z'] }],
  }));
  for (let i = 0; i < 2; i++) {
    expect(engine.inferShapes(bytes, { decoder: 'protobuf-c' }).getShape('Z').dims).toEqual(['N', 96 * 256]);
    expect(engine._heapBytes()).toBeGreaterThan(engine._freshHeapBytes() + 64 * 2 ** 20); // kept
  }
  expect(calls).toBe(1);
}, 60000);
