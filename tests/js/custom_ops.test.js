// Custom shape functions registered from JS: called with the node's inputs and attributes, their
// answers become the outputs' types; a function that throws is a diagnostic, not a crash.
import { readFileSync } from 'node:fs';
import { init } from '../../js/index.js';
import { evaluateDim } from '../../js/expr.js';
import { model } from './onnx_builder.js';

let engine;
beforeAll(async () => {
  engine = await init();
});
afterEach(() => engine.clearShapeFunctions());

const customModel = () => model({
  opset: 17,
  opsets: [{ domain: '', version: 17 }, { domain: 'my.ops', version: 3 }],
  inputs: [{ name: 'x', elemType: 'float', dims: ['N', 4] }],
  outputs: [{ name: 'z', elemType: 'float' }],
  nodes: [
    { op: 'Doubler', domain: 'my.ops', name: 'd', inputs: ['x'], outputs: ['y'], attrs: { factor: 2 } },
    { op: 'Relu', name: 'r', inputs: ['y'], outputs: ['z'] },
  ],
});

test('a registered function gives the outputs their shapes, downstream included', () => {
  const seen = [];
  engine.registerShapeFunction('my.ops', 'Doubler', (req) => {
    seen.push(req);
    const [x] = req.inputs;
    return [{ kind: 'tensor', elemType: x.elemType, dims: [x.dims[0], `${req.attributes.factor}*${x.dims[1]}`] }];
  });
  const r = engine.inferShapes(customModel());
  expect(r.getShape('y')).toEqual({ kind: 'tensor', elemType: 'float', dims: ['N', 8] });
  expect(r.getShape('z').dims).toEqual(['N', 8]);
  expect(r.diagnostics).toEqual([]);
  expect(seen).toHaveLength(1);
  expect(seen[0]).toMatchObject({ domain: 'my.ops', opType: 'Doubler', opset: 3, node: 'd', attributes: { factor: 2 } });
  expect(seen[0].inputs).toEqual([{ kind: 'tensor', elemType: 'float', dims: ['N', 4] }]);
});

test('without a registration the op is unsupported, and unknown downstream', () => {
  const r = engine.inferShapes(customModel());
  expect(r.getShape('y')).toBeNull();
  expect(r.diagnostics.map((d) => d.code)).toContain('UNSUPPORTED_OP');
});

test('a function that throws or answers badly is a diagnostic; the engine keeps working', () => {
  engine.registerShapeFunction('my.ops', 'Doubler', () => { throw new Error('boom'); });
  let r = engine.inferShapes(customModel());
  expect(r.getShape('y')).toBeNull();
  expect(r.diagnostics.some((d) => d.node === 'd' && /boom/.test(d.message))).toBe(true);
  engine.registerShapeFunction('my.ops', 'Doubler', () => 'not an array');
  r = engine.inferShapes(customModel());
  expect(r.diagnostics.some((d) => /must return an array/.test(d.message))).toBe(true);
  engine.registerShapeFunction('my.ops', 'Doubler', () => [{ kind: 'tensor', elemType: 'no-such-type', dims: [1] }]);
  r = engine.inferShapes(customModel());
  expect(r.diagnostics.some((d) => /not a valid type/.test(d.message))).toBe(true);
});

test('known integer content is passed to the function as value', () => {
  let got;
  engine.registerShapeFunction('', 'MyReshape', (req) => {
    got = req.inputs[1];
    return [{ kind: 'tensor', elemType: 'float', dims: req.inputs[1].value }];
  });
  const bytes = model({
    opset: 17,
    inputs: [{ name: 'x', elemType: 'float', dims: ['N', 3, 4] }],
    outputs: [{ name: 'y', elemType: 'float' }],
    nodes: [
      { op: 'Shape', name: 's', inputs: ['x'], outputs: ['shape'] },
      { op: 'MyReshape', name: 'm', inputs: ['x', 'shape'], outputs: ['y'] },
    ],
  });
  const r = engine.inferShapes(bytes);
  expect(got).toEqual({ kind: 'tensor', elemType: 'int64', dims: [3], value: ['N', 3, 4] });
  expect(r.getShape('y').dims).toEqual(['N', 3, 4]);
});

test('arguments are checked', () => {
  expect(() => engine.registerShapeFunction('my.ops', 'X', 'nope')).toThrow(TypeError);
  expect(() => engine.registerShapeFunction(1, 'X', () => [])).toThrow(TypeError);
});

test('an output type without kind is a tensor (kind defaults to tensor), at any depth', () => {
  engine.registerShapeFunction('my.ops', 'Doubler', ({ inputs }) => [{ elemType: inputs[0].elemType, dims: [inputs[0].dims[0], 8] }]);
  let r = engine.inferShapes(customModel());
  expect(r.diagnostics).toEqual([]);
  expect(r.getShape('y')).toEqual({ kind: 'tensor', elemType: 'float', dims: ['N', 8] });
  expect(r.getShape('z')).toEqual({ kind: 'tensor', elemType: 'float', dims: ['N', 8] });
  engine.registerShapeFunction('my.ops', 'Doubler', () => [{ kind: 'sequence', elem: { elemType: 'int64', dims: [2] } }]);
  r = engine.inferShapes(customModel());
  expect(r.getShape('y')).toEqual({ kind: 'sequence', elem: { kind: 'tensor', elemType: 'int64', dims: [2] } });
  // A kind that is there but wrong is still refused, and so is a type that is not an object.
  for (const bad of [{ kind: 'tensr', elemType: 'float', dims: [1] }, { kind: 3 }, 7, 'float', [1]]) {
    engine.registerShapeFunction('my.ops', 'Doubler', () => [bad]);
    r = engine.inferShapes(customModel());
    expect(r.getShape('y')).toBeNull();
    expect(r.diagnostics.some((d) => /not a valid type/.test(d.message))).toBe(true);
  }
});

test('diagnostics about the model, not a node, have node, opType and nodeIndex null (as index.d.ts says)', () => {
  // The declared output [3] contradicts the inferred [4]: a model-level ANCHOR_CONFLICT.
  const bytes = model({
    opset: 17,
    inputs: [{ name: 'x', elemType: 'float', dims: [4] }],
    outputs: [{ name: 'y', elemType: 'float', dims: [3] }],
    nodes: [{ op: 'Relu', name: 'r', inputs: ['x'], outputs: ['y'] }],
  });
  const r = engine.inferShapes(bytes);
  const conflict = r.diagnostics.find((d) => d.code === 'ANCHOR_CONFLICT');
  expect(conflict).toMatchObject({ node: null, opType: null, nodeIndex: null });
  expect(r.getShape('y').dims).toEqual([4]);
  // A node's diagnostic names it, unnamed nodes included ('' is a name; null means "no node").
  const unknownOp = engine.inferShapes(model({
    opset: 17,
    inputs: [{ name: 'x', elemType: 'float', dims: [4] }],
    outputs: ['y'],
    nodes: [{ op: 'Relu', name: 'r', inputs: ['x'], outputs: ['h'] }, { op: 'NoSuchOp', inputs: ['h'], outputs: ['y'] }],
  })).diagnostics.find((d) => d.code === 'UNSUPPORTED_OP');
  expect(unknownOp).toMatchObject({ node: '', opType: 'NoSuchOp', nodeIndex: 1 });
});

test("the README's registerShapeFunction example gives [N, 2*C]", () => {
  const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
  const example = [...readme.matchAll(/```js\n([\s\S]*?)```/g)].map((m) => m[1])
    .find((b) => b.includes('engine.registerShapeFunction('));
  new Function('engine', example)(engine); // eslint-disable-line no-new-func
  const myOp = (dims) => model({
    opset: 17,
    opsets: [{ domain: '', version: 17 }, { domain: 'my.domain', version: 1 }],
    inputs: [{ name: 'x', elemType: 'float16', dims }],
    outputs: ['y'],
    nodes: [{ op: 'MyOp', domain: 'my.domain', inputs: ['x'], outputs: ['y'] }],
  });
  expect(engine.inferShapes(myOp(['N', 4])).getShape('y')).toEqual({ kind: 'tensor', elemType: 'float16', dims: ['N', 8] });
  const [two, sum] = engine.inferShapes(myOp([2, 'a+b'])).getShape('y').dims;
  expect(two).toBe(2);
  for (const [a, b] of [[0, 0], [3, 5], [7, 1]]) expect(evaluateDim(sum, { a, b })).toBe(2 * (a + b));
  const r = engine.inferShapes(myOp(['N']));
  expect(r.getShape('y')).toBeNull();
  expect(r.diagnostics).toEqual([]);
});
