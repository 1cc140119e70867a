// Hostile input, engine side (issue 30 items 1, 7 and 12; issue 29 item 5), in wasm through the
// public API: dims whose simplification would take minutes end as a plain symbol or an unknown
// (the expression work budget), with the engine healthy after; names that are not UTF-8 stay
// distinct; a shape function cannot be registered under a name with a NUL; a shape function's
// dim that is no expression is a diagnostic. The reproducers are generated here.
import { init, ShapeInferenceError } from '../../js/index.js';
import { model } from './onnx_builder.js';

let engine;
beforeAll(async () => {
  engine = await init();
});
afterEach(() => engine.clearShapeFunctions());

// Section - Generators (the shapes of issue 30's reproducers)

const range = (from, to) => Array.from({ length: to - from + 1 }, (_, i) => from + i);
/** N//2//3//...//last, flat or nested in parentheses */
const floorDivs = (last, nested) => (nested
  ? range(2, last).reduce((s, d) => `(${s}//${d})`, 'N')
  : `N${range(2, last).map((d) => `//${d}`).join('')}`);
/** CeilDiv(CeilDiv(...(N,2)...,2),2), depth deep */
const ceilDivs = (depth, n = 'N') => range(1, depth).reduce((s) => `CeilDiv(${s},2)`, n);
/** (N%2)+(N%3)+...+(N%last) */
const modSum = (last) => range(2, last).map((d) => `(N%${d})`).join('+');
/** Max(Max(a0,a1),a2)... of depth + 1 symbols */
const maxNested = (depth) => range(1, depth).reduce((s, i) => `Max(${s},a${i})`, 'a0');
/** p_0*p_1*...*p_{n-1} */
const product = (p, n) => range(0, n - 1).map((i) => `${p}_${i}`).join('*');

const HANGS = {
  'N//2//3//...//370': floorDivs(370, false),
  '((N//2)//3)//...//370': floorDivs(370, true),
  'CeilDiv nested 400 deep': ceilDivs(400),
  '(N%2)+...+(N%1001)': modSum(1001),
  'Max nested 300 deep': maxNested(300),
};

/** One input X with the dim text, a Relu to Y. */
const oneDim = (dim) => model({
  inputs: [{ name: 'X', elemType: 'float', dims: [dim] }],
  outputs: ['Y'],
  nodes: [{ op: 'Relu', inputs: ['X'], outputs: ['Y'] }],
});

/** A healthy engine: an ordinary model infers as ever. */
function expectHealthy() {
  const r = engine.inferShapes(oneDim('(H+2*1-3)//2+1'));
  expect(r.getShape('Y').dims).toEqual(['(H+1)//2']);
}

// Section - Dim texts (the 1.8 KB model that hung the engine)

test.each(Object.entries(HANGS))('a dim %s ends as the symbol of that text, in bounded work', (_, dim) => {
  const bytes = oneDim(dim);
  expect(bytes.length).toBeLessThan(9000);
  const r = engine.inferShapes(bytes);
  // The text is kept as a name (quoted: it is no identifier), as a text past the parser's limits is.
  expect(r.getShape('Y').dims).toEqual([`'${dim}'`]);
  expect(r.getShape('X')).toEqual(r.getShape('Y'));
  expectHealthy();
});

test('the same dims from a custom shape function: unknown, with a note', () => {
  for (const dim of Object.values(HANGS)) {
    engine.registerShapeFunction('my.domain', 'MyOp', () => [{ elemType: 'float', dims: [dim] }]);
    const r = engine.inferShapes(model({
      opsets: [{ domain: '', version: 17 }, { domain: 'my.domain', version: 1 }],
      inputs: [{ name: 'X', elemType: 'float', dims: ['N'] }],
      outputs: ['Y'],
      nodes: [{ op: 'MyOp', domain: 'my.domain', inputs: ['X'], outputs: ['Y'] }],
    }));
    expect(r.getShape('Y')).toEqual({ kind: 'tensor', elemType: 'float', dims: [null] });
    const note = r.diagnostics.find((d) => d.code === 'LIMIT_EXCEEDED');
    expect(note.message).toMatch(/output 0 of the custom shape function: dim 0 .* takes more than 131072 steps of expression work to simplify, so it is unknown/);
    expectHealthy();
  }
});

test('2,000 inputs with products of 64 symbols: every dim kept, in one go each', () => {
  const inputs = [], nodes = [], outputs = [];
  for (let i = 0; i < 2000; i++) {
    inputs.push({ name: `X${i}`, elemType: 'float', dims: [product(`s${i}`, 64)] });
    nodes.push({ op: 'Relu', inputs: [`X${i}`], outputs: [`Y${i}`] });
    outputs.push(`Y${i}`);
  }
  const r = engine.inferShapes(model({ inputs, outputs, nodes }));
  const dims = r.getShape('Y1999').dims[0];
  expect(dims.split('*')).toHaveLength(64); // s1999_0*s1999_1*s1999_10*... sorted by name
  expect(dims.split('*').sort()).toEqual(product('s1999', 64).split('*').sort());
  expect(r.diagnostics).toEqual([]);
});

test('dim texts that each take the whole budget of a text: past the run\'s, LIMIT_EXCEEDED', () => {
  // 40 short texts, each cut at 2^17 steps: more than a 14 KB model may take (2^19 + 16 a byte).
  const inputs = range(0, 39).map((i) => ({ name: `X${i}`, elemType: 'float', dims: [ceilDivs(30, `N${i}`)] }));
  const bytes = model({ inputs, outputs: ['Y'], nodes: [{ op: 'Relu', inputs: ['X0'], outputs: ['Y'] }] });
  for (const decoder of ['protobuf-c', 'nanopb']) {
    let err;
    try {
      engine.inferShapes(bytes, { decoder });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ShapeInferenceError);
    expect(err.code).toBe('LIMIT_EXCEEDED');
    expect(err.message).toMatch(/reading the model's dim texts takes more than \d+ steps of expression work/);
  }
  expectHealthy();
});

// Section - Shape functions

test('a shape function\'s dim that is no integer expression is a diagnostic, not a symbol', () => {
  const mine = (dims) => {
    engine.registerShapeFunction('my.domain', 'MyOp', () => [{ elemType: 'float', dims }]);
    return engine.inferShapes(model({
      opsets: [{ domain: '', version: 17 }, { domain: 'my.domain', version: 1 }],
      inputs: [{ name: 'X', elemType: 'float', dims: ['N'] }],
      outputs: ['Y'],
      nodes: [{ op: 'MyOp', domain: 'my.domain', name: 'mine', inputs: ['X'], outputs: ['Y'] }],
    }));
  };
  for (const bad of ['N+', 'N/2', 'Max(N)', '']) {
    const r = mine(['N', bad]);
    expect(r.getShape('Y')).toBeNull();
    expect(r.diagnostics).toEqual([expect.objectContaining({
      code: 'UNSUPPORTED_CASE',
      node: 'mine',
      message: `output 0 of the custom shape function: dim 1 is '${bad}', which is not an integer expression (a number, a name, or an expression over them)`,
    })]);
  }
  expect(mine(['N', "'N+'"]).getShape('Y').dims).toEqual(['N', "'N+'"]); // a name written as one
});

test('registerShapeFunction refuses a domain or op type with a NUL or a lone surrogate', () => {
  let called = 0;
  for (const [domain, opType] of [['my.domain\0x', 'MyOp'], ['my.domain', 'MyOp\0'], ['\ud800', 'MyOp']]) {
    expect(() => engine.registerShapeFunction(domain, opType, () => { called++; return [null]; }))
      .toThrow(TypeError);
  }
  // Nothing was registered under my.domain::MyOp: the op has no rule.
  const r = engine.inferShapes(model({
    opsets: [{ domain: '', version: 17 }, { domain: 'my.domain', version: 1 }],
    inputs: [{ name: 'X', elemType: 'float', dims: ['N'] }],
    outputs: ['Y'],
    nodes: [{ op: 'MyOp', domain: 'my.domain', inputs: ['X'], outputs: ['Y'] }],
  }));
  expect(called).toBe(0);
  expect(r.diagnostics.map((d) => d.code)).toEqual(['UNSUPPORTED_OP']);
});

// Section - Names that are not UTF-8

test('inputs named 0xFF and 0xFE stay two names, with their own shapes and users, with both decoders', () => {
  const FF = Uint8Array.of(0xff), FE = Uint8Array.of(0xfe);
  const bytes = model({
    inputs: [{ name: FF, elemType: 'float', dims: [3] }, { name: FE, elemType: 'float', dims: [5] }],
    outputs: ['Y', 'Z'],
    nodes: [{ op: 'Relu', inputs: [FE], outputs: ['Y'] }, { op: 'Relu', inputs: [FF], outputs: ['Z'] }],
  });
  for (const decoder of ['protobuf-c', 'nanopb']) {
    const r = engine.inferShapes(bytes, { decoder });
    // The bytes as lone surrogates U+DC00 + byte (Python's surrogateescape).
    expect(Object.keys(r.values).sort()).toEqual(['Y', 'Z', '\udcfe', '\udcff']);
    expect(r.names()).toEqual(['Y', 'Z', '\udcfe', '\udcff']);
    expect(r.getShape('\udcff').dims).toEqual([3]);
    expect(r.getShape('\udcfe').dims).toEqual([5]);
    expect(r.inputs).toEqual(['\udcff', '\udcfe']);
    expect(r.nodes.map((n) => n.inputs)).toEqual([['\udcfe'], ['\udcff']]);
    expect(r.getShape('Y').dims).toEqual([5]);
    expect(r.getShape('Z').dims).toEqual([3]);
    expect(r.getShape('\ufffd')).toBeNull();
  }
});

test('a dim named by bytes that are not UTF-8 goes to a shape function and back as the same size', () => {
  let seen;
  engine.registerShapeFunction('', 'Echo', ({ inputs }) => {
    seen = inputs[0].dims;
    return [inputs[0]];
  });
  const r = engine.inferShapes(model({
    inputs: [{ name: 'X', elemType: 'float', dims: [Uint8Array.of(0xff), Uint8Array.of(0xfe), 'N'] }],
    outputs: ['Z'],
    nodes: [
      { op: 'Echo', inputs: ['X'], outputs: ['E'] },
      { op: 'Add', inputs: ['X', 'E'], outputs: ['Z'] },
    ],
  }));
  expect(seen).toEqual(["'\udcff'", "'\udcfe'", 'N']);
  expect(r.getShape('X').dims).toEqual(seen);
  // X + E: the same sizes (not two that must be equal, or broadcast)
  expect(r.getShape('Z').dims).toEqual(seen);
  expect(r.constraints.requirements).toEqual([]);
  expect(r.diagnostics).toEqual([]);
});
