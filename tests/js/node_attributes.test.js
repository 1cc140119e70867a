// Node attributes for viewers (options.attributes, result.nodeAttributes(path, index)): every
// node's attributes in file order, typed, in the model's graph and in each inferred body, through
// every entry point; null without the option. Expected values are the ones each test model is
// built with.
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
  const byName = Object.fromEntries(r.nodes.map((n, i) => [n.name, r.nodeAttributes('', i)]));
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

test('without the option there are none; no such node gives null; the same frozen array each call', () => {
  const plain = engine.inferShapes(convModel());
  expect(plain.nodeAttributes('', 0)).toBeNull();
  expect(plain.nodes.map((n) => Object.keys(n).sort())).toEqual(plain.nodes.map(() => ['domain', 'inputs', 'name', 'opType', 'outputs']));
  const r = engine.inferShapes(convModel(), { attributes: true });
  expect(r.nodeAttributes('', 4)).toBeNull();
  expect(r.nodeAttributes('', -1)).toBeNull();
  expect(r.nodeAttributes('no/such/', 0)).toBeNull();
  expect(r.nodeAttributes('', 0)).toBe(r.nodeAttributes('', 0));
  expect(Object.isFrozen(r.nodeAttributes('', 0))).toBe(true);
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
  expect(r.nodeAttributes('', 0).find((a) => a.name === 'ends').value).toEqual(['9223372036854775807']);
  expect(r.nodeAttributes('', 1)[0].value.values).toEqual(['NaN', 'Infinity', '-Infinity']);
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
  expect(r.nodeAttributes('', 0)).toEqual([
    { name: 'then_branch', type: 'graph', value: { name: 'then', nodes: 1, inputs: 0, outputs: 1 } },
    { name: 'else_branch', type: 'graph', value: { name: 'else', nodes: 1, inputs: 0, outputs: 1 } },
  ]);
  expect(r.nodeAttributes('cond/then_branch/', 0)).toEqual([{ name: 'axis', type: 'int', value: 1 }]);
  expect(r.nodeAttributes('cond/else_branch/', 0)).toEqual([{ name: 'axis', type: 'int', value: 2 }]);
});

test('the streaming entries give the same attributes', async () => {
  const bytes = convModel();
  const all = (r) => r.nodes.map((n, i) => r.nodeAttributes('', i));
  const want = all(engine.inferShapes(bytes, { attributes: true }));
  expect(want.every((a) => Array.isArray(a))).toBe(true);
  expect(all(engine.inferShapes(bytes, { attributes: true, decoder: 'nanopb' }))).toEqual(want);
  const source = engine.inferShapesFromSource({ size: bytes.length, read: (pos, len) => bytes.subarray(pos, pos + len) }, { attributes: true });
  expect(all(source)).toEqual(want);
  expect(all(await engine.inferShapesFromFile(new Blob([bytes]), { attributes: true }))).toEqual(want);
});
