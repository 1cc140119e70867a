// engine.inferShapesFromSource: streaming from any synchronous random-access source. The same
// result as inferShapes, and the weight payloads are never read (their offsets are known from
// how the test model is written): no read starts inside them.
import { init } from '../../js/index.js';
import { model, tensor } from './onnx_builder.js';

let engine;
beforeAll(async () => {
  engine = await init();
});

function withWeights() {
  const payload = new Uint8Array(4 * 512 * 512).fill(7);
  const bytes = model({
    inputs: [{ name: 'X', elemType: 'float', dims: ['batch', 512] }],
    outputs: ['Y'],
    initializers: [tensor({ name: 'W', elemType: 'float', dims: [512, 512], rawData: payload })],
    nodes: [{ op: 'MatMul', name: 'mm', inputs: ['X', 'W'], outputs: ['Y'] }],
  });
  // The payload is the only run of 1 MiB of 7 in the file.
  const at = Buffer.from(bytes).indexOf(Buffer.from(payload));
  expect(at).toBeGreaterThan(0);
  return { bytes, payload: [at, at + payload.length] };
}

test('same result as inferShapes, and the payload is skipped, not read', () => {
  const { bytes, payload } = withWeights();
  const reads = [];
  const source = {
    size: bytes.length,
    read(pos, len) {
      reads.push([pos, pos + len]);
      return bytes.subarray(pos, pos + len);
    },
  };
  const r = engine.inferShapesFromSource(source);
  expect(r.getShape('Y')).toEqual({ kind: 'tensor', elemType: 'float', dims: ['batch', 512] });
  expect(JSON.stringify(r.values)).toBe(JSON.stringify(engine.inferShapes(bytes).values));
  const [a, b] = payload;
  // The decoder reads ahead in 64 KiB buffers, so a read may run into the payload; none starts
  // inside it (it is skipped by position).
  for (const [s] of reads) expect(s <= a || s >= b).toBe(true);
  const read = reads.reduce((n, [s, e]) => n + (e - s), 0);
  expect(read).toBeLessThan(bytes.length / 4);
});

test('a source that returns fewer bytes (a short read) or throws', () => {
  const { bytes } = withWeights();
  const short = { size: bytes.length, read: (pos, len) => bytes.subarray(pos, pos + Math.min(len, 100)) };
  expect(engine.inferShapesFromSource(short).getShape('Y').dims).toEqual(['batch', 512]);
  const failing = { size: bytes.length, read: () => { throw new Error('network down'); } };
  expect(() => engine.inferShapesFromSource(failing)).toThrow('network down');
  expect(engine.inferShapes(bytes).getShape('Y').dims).toEqual(['batch', 512]); // still usable
  expect(() => engine.inferShapesFromSource({ read() {} })).toThrow(TypeError);
});
