// Custom shape functions registered from JS: called with the node's inputs and attributes, their
// answers become the outputs' types; a function that throws is a diagnostic, not a crash.
import { init } from '../../js/index.js';
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
