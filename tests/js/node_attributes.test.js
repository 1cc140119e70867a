// Node attributes for viewers (options.attributes): every node's attributes in file order, typed,
// in the model's graph and in each inferred body, through every entry point; absent without the
// option. Expected values are the ones each test model is built with.
import { init } from '../../js/index.js';
import { model, tensor, attr } from './onnx_builder.js';

let engine;
beforeAll(async () => {
  engine = await init();
});

/** A Conv with its spatial attributes, a Constant with a small float tensor, a LeakyRelu, a long list. */
function convModel() {
  return model({
    opset: 17,
    inputs: [{ name: 'x', elemType: 'float', dims: ['N', 3, 'H', 'W'] }],
    outputs: ['y', 'c', 'r', 'big'],
    initializers: [tensor({ name: 'w', elemType: 'float', dims: [8, 3, 3, 3] })],
    nodes: [
      { op: 'Conv', name: 'conv', inputs: ['x', 'w'], outputs: ['y'], attrs: { pads: [1, 1, 1, 1], strides: [2, 2], dilations: [1, 1], kernel_shape: [3, 3] } },
      { op: 'Constant', name: 'const', inputs: [], outputs: ['c'], attrs: { value: attr.tensor(tensor({ name: '', elemType: 'float', dims: [2, 2], floatData: [0.5, -1, 1e-5, 3] })) } },
      { op: 'LeakyRelu', name: 'lrelu', inputs: ['y'], outputs: ['r'], attrs: { alpha: attr.float(0.1) } },
      { op: 'Constant', name: 'many', inputs: [], outputs: ['big'], attrs: { value_ints: attr.ints(Array.from({ length: 2000 }, (_, i) => i)) } },
    ],
  });
}

test('a Conv\'s pads, strides, dilations and kernel, a Constant\'s value, a float, a long list', () => {
  const r = engine.inferShapes(convModel(), { attributes: true });
  const byName = Object.fromEntries(r.nodes.map((n) => [n.name, n.attributes]));
  expect(byName.conv).toEqual([
    { name: 'pads', type: 'ints', value: [1, 1, 1, 1] },
    { name: 'strides', type: 'ints', value: [2, 2] },
    { name: 'dilations', type: 'ints', value: [1, 1] },
    { name: 'kernel_shape', type: 'ints', value: [3, 3] },
  ]);
  // float32 values written as the shortest text that reads back as the same float32
  expect(byName.const).toEqual([{ name: 'value', type: 'tensor', value: { elemType: 'float', dims: [2, 2], external: false, sparse: false, count: 4, values: [0.5, -1, 1e-5, 3] } }]);
  expect(byName.lrelu).toEqual([{ name: 'alpha', type: 'float', value: 0.1 }]);
  expect(byName.many).toEqual([{ name: 'value_ints', type: 'ints', value: { count: 2000, head: Array.from({ length: 16 }, (_, i) => i) } }]);
  expect(Object.isFrozen(byName.conv[0])).toBe(true);
  expect(Object.isFrozen(byName.const[0].value.values)).toBe(true);
});

test('without the option, nodes have no attributes (the default result is unchanged)', () => {
  const r = engine.inferShapes(convModel());
  expect(r.nodes.map((n) => Object.keys(n).sort())).toEqual(r.nodes.map(() => ['domain', 'inputs', 'name', 'opType', 'outputs']));
});

test('int64 past 2^53 as strings; NaN and infinities as strings; weights never loaded', () => {
  const bytes = model({
    opset: 9,
    inputs: [{ name: 'x', elemType: 'float', dims: ['n'] }],
    outputs: ['s', 'z'],
    nodes: [
      { op: 'Slice', name: 'slice', inputs: ['x'], outputs: ['s'], attrs: { starts: [0], ends: [9223372036854775807n], axes: [0] } },
      { op: 'Constant', name: 'odd', inputs: [], outputs: ['z'], attrs: { value: attr.tensor(tensor({ name: '', elemType: 'float', dims: [3], floatData: [NaN, Infinity, -Infinity] })) } },
    ],
  });
  const r = engine.inferShapes(bytes, { attributes: true });
  expect(r.nodes[0].attributes.find((a) => a.name === 'ends').value).toEqual(['9223372036854775807']);
  expect(r.nodes[1].attributes[0].value.values).toEqual(['NaN', 'Infinity', '-Infinity']);
});

test('bodies: an If\'s branches summarised on the node, their nodes\' attributes in subgraphs', () => {
  const branch = (name, axis) => ({
    name, outputs: [`${name}_out`],
    nodes: [{ op: 'Flatten', name: `${name}_flat`, inputs: ['X'], outputs: [`${name}_out`], attrs: { axis } }],
  });
  const bytes = model({
    inputs: [{ name: 'X', elemType: 'float', dims: [2, 3, 4] }, { name: 'c', elemType: 'bool', dims: [] }],
    outputs: ['Y'],
    nodes: [{ op: 'If', name: 'cond', inputs: ['c'], outputs: ['Y'], attrs: { then_branch: attr.graph(branch('then', 1)), else_branch: attr.graph(branch('else', 2)) } }],
  });
  const r = engine.inferShapes(bytes, { attributes: true });
  expect(r.nodes[0].attributes).toEqual([
    { name: 'then_branch', type: 'graph', value: { name: 'then', nodes: 1, inputs: 0, outputs: 1 } },
    { name: 'else_branch', type: 'graph', value: { name: 'else', nodes: 1, inputs: 0, outputs: 1 } },
  ]);
  expect(r.subgraphs['cond/then_branch/'].nodes[0].attributes).toEqual([{ name: 'axis', type: 'int', value: 1 }]);
  expect(r.subgraphs['cond/else_branch/'].nodes[0].attributes).toEqual([{ name: 'axis', type: 'int', value: 2 }]);
});

test('the streaming entries give the same attributes', async () => {
  const bytes = convModel();
  const want = engine.inferShapes(bytes, { attributes: true }).nodes.map((n) => n.attributes);
  const nanopb = engine.inferShapes(bytes, { attributes: true, decoder: 'nanopb' });
  expect(nanopb.nodes.map((n) => n.attributes)).toEqual(want);
  const source = engine.inferShapesFromSource({ size: bytes.length, read: (pos, len) => bytes.subarray(pos, pos + len) }, { attributes: true });
  expect(source.nodes.map((n) => n.attributes)).toEqual(want);
  const file = await engine.inferShapesFromFile(new Blob([bytes]), { attributes: true });
  expect(file.nodes.map((n) => n.attributes)).toEqual(want);
});
