// examples/web/warm_up.js: the model the page's worker infers before a model is chosen (to warm
// the engine's code) is a valid ONNX model the engine infers whole, without a diagnostic.
import { init } from '../../js/index.js';
import { warmUpModel } from '../../examples/web/warm_up.js';

test('the warm-up chain infers whole: every node, every value [n, n] float, no diagnostic', async () => {
  const engine = await init();
  const result = engine.inferShapes(warmUpModel(600));
  expect(result.nodes.length).toBe(600);
  expect(result.diagnostics).toEqual([]);
  expect(new Set(result.nodes.map((n) => n.opType))).toEqual(new Set(['Relu', 'Add', 'MatMul', 'Sigmoid', 'Mul', 'Tanh']));
  for (const name of ['x', 'v0', 'v299', 'v599']) {
    expect(result.getShape(name)).toEqual({ kind: 'tensor', elemType: 'float', dims: ['n', 'n'] });
  }
  expect(result.outputs).toEqual(['v599']);
});
