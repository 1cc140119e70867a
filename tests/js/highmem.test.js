// Addresses above 2 GB (the module may grow to 4 GB): wasm returns pointers as signed i32, and
// the wrapper must still copy the model in and read the result out. 2.2 GB of ballast is
// malloc'ed (never touched, so it costs address space, not RAM) before the first inference.
import { init } from '../../js/index.js';
import { model } from './onnx_builder.js';

test('inference works when the heap is above 2 GB', async () => {
  const engine = await init({
    onRuntimeInitialized() {
      for (let i = 0; i < 2; i++) {
        if (!this._malloc(1100 * 1024 * 1024)) throw new Error('cannot allocate the ballast');
      }
    },
  });
  expect(engine._heapBytes()).toBeGreaterThan(2 ** 31);
  const bytes = model({
    inputs: [{ name: 'X', elemType: 'float', dims: ['N', 4] }],
    outputs: ['Y'],
    nodes: [{ op: 'Relu', inputs: ['X'], outputs: ['Y'] }],
  });
  for (let i = 0; i < 3; i++) {
    expect(engine.inferShapes(bytes).getShape('Y')).toEqual({ kind: 'tensor', elemType: 'float', dims: ['N', 4] });
    expect(() => engine.inferShapes(bytes.subarray(0, bytes.length - 2))).toThrow(expect.objectContaining({ code: 'PARSE_ERROR' }));
  }
  expect(typeof engine._mallocedBytes()).toBe('number');
});
