// Pieces of test models that several suites build the same way (not a test file).
import { model, tensor } from './onnx_builder.js';

/**
 * A size computed in float as exporters do, from x: [h, w]: Shape -> Gather -> Cast(float) -> Mul
 * 1.5 -> Floor -> Cast(int64) -> Unsqueeze gives `fi1` = [Floor(1.5*h)], and `ws` = [w]. The
 * engine names Floor(1.5*h) (result.definitions). Returns { initializers, nodes } to add to a model
 * whose input `x` has dims ['h', 'w'].
 */
export function floatSizeParts() {
  return {
    initializers: [
      tensor({ name: 'i0', elemType: 'int64', dims: [], int64Data: [0] }),
      tensor({ name: 'i1', elemType: 'int64', dims: [1], int64Data: [1] }),
      tensor({ name: 'k', elemType: 'float', dims: [], floatData: [1.5] }),
      tensor({ name: 'ax', elemType: 'int64', dims: [1], int64Data: [0] }),
    ],
    nodes: [
      { op: 'Shape', inputs: ['x'], outputs: ['s'] },
      { op: 'Gather', inputs: ['s', 'i0'], outputs: ['hs'] },
      { op: 'Gather', inputs: ['s', 'i1'], outputs: ['ws'] },
      { op: 'Cast', inputs: ['hs'], outputs: ['hf'], attrs: { to: 1 } },
      { op: 'Mul', inputs: ['hf', 'k'], outputs: ['m'] },
      { op: 'Floor', inputs: ['m'], outputs: ['f'] },
      { op: 'Cast', inputs: ['f'], outputs: ['fi'], attrs: { to: 7 } },
      { op: 'Unsqueeze', inputs: ['fi', 'ax'], outputs: ['fi1'] },
    ],
  };
}

/**
 * The named-size model of several suites: from x: [h, w], y = ConstantOfShape([Floor(1.5*h),
 * Floor(1.5*h)+w]) (floatSizeParts), whose dims print the named size floor_1; `tail` nodes read y
 * and `output` is the graph's output.
 */
export function namedSizeModel({ tail = [], output = 'y' } = {}) {
  const parts = floatSizeParts();
  return model({
    opset: 17,
    inputs: [{ name: 'x', elemType: 'float', dims: ['h', 'w'] }],
    outputs: [output],
    initializers: parts.initializers,
    nodes: [
      ...parts.nodes,
      { op: 'Add', inputs: ['fi1', 'ws'], outputs: ['fw'] },
      { op: 'Concat', inputs: ['fi1', 'fw'], outputs: ['shape'], attrs: { axis: 0 } },
      { op: 'ConstantOfShape', inputs: ['shape'], outputs: ['y'] },
      ...tail,
    ],
  });
}
