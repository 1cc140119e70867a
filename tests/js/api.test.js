// The public JS API on real models: ONNX backend light/ and simple/ models, plus built ones.
import { readFileSync } from 'node:fs';
import { init, inferShapes, getShape, ShapeInferenceError } from '../../js/index.js';
import { model, readModelSummary, readTensorHeader, elemTypeName } from './onnx_builder.js';
import { backendModels, describeWithBackend, typeProblems } from './helpers.js';

const relu = () => model({
  opset: 17,
  inputs: [{ name: 'X', elemType: 'float', dims: ['N', 4] }],
  outputs: ['Y'],
  nodes: [{ op: 'Relu', name: 'relu0', inputs: ['X'], outputs: ['Y'] }],
});

describe('module state before any inference', () => {
  test('getShape() is null before the first result', () => {
    expect(getShape('Y')).toBeNull();
  });
});

describe('init', () => {
  test('returns the same engine every time', async () => {
    const [a, b] = await Promise.all([init(), init()]);
    expect(a).toBe(b);
    expect(await init()).toBe(a);
    expect(typeof a.inferShapes).toBe('function');
    expect(typeof a.version).toBe('string');
    expect(a.version.length).toBeGreaterThan(0);
  });

  test('an engine has no result before its first inference', async () => {
    expect((await init()).getShape('Y')).toBeNull();
  });
});

describe('a built Relu model', () => {
  let engine;
  beforeAll(async () => {
    engine = await init();
  });

  test('infers a symbolic shape', () => {
    const r = engine.inferShapes(relu());
    expect(r.getShape('Y')).toEqual({ kind: 'tensor', elemType: 'float', dims: ['N', 4] });
    expect(r.getShape('X')).toEqual({ kind: 'tensor', elemType: 'float', dims: ['N', 4] });
    expect(r.names()).toEqual(['X', 'Y']);
    expect(r.getShape('nope')).toBeNull();
    expect(r.getShape('__proto__')).toBeNull();
    expect(r.getShape('toString')).toBeNull();
    expect(Array.isArray(r.diagnostics)).toBe(true);
    expect(r.nodes).toEqual([{ name: 'relu0', opType: 'Relu', domain: '', inputs: ['X'], outputs: ['Y'] }]);
    expect(r.producers).toEqual({ Y: 0 });
  });

  test('accepts Uint8Array, Buffer, ArrayBuffer and offset views', () => {
    const bytes = relu();
    const padded = new Uint8Array(bytes.length + 10);
    padded.set(bytes, 7);
    const inputs = [
      bytes,
      Buffer.from(bytes),
      bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length),
      padded.subarray(7, 7 + bytes.length),
    ];
    for (const input of inputs) {
      expect(engine.inferShapes(input).getShape('Y')).toEqual({ kind: 'tensor', elemType: 'float', dims: ['N', 4] });
    }
  });

  test('results are frozen plain data', () => {
    const r = engine.inferShapes(relu());
    const y = r.getShape('Y');
    expect(Object.isFrozen(y)).toBe(true);
    expect(Object.isFrozen(y.dims)).toBe(true);
    expect(() => { y.dims[0] = 3; }).toThrow(TypeError);
    expect(() => { r.values.Y = null; }).toThrow(TypeError);
    expect(r.getShape('Y').dims).toEqual(['N', 4]);
    const names = r.names();
    names.push('zzz');
    expect(r.names()).toEqual(['X', 'Y']);
    // No wasm pointer survives: the data round-trips through JSON unchanged.
    expect(JSON.parse(JSON.stringify(r.values))).toEqual(r.values);
  });

  test('options are accepted', () => {
    const base = [{}, { prefillValueInfo: true }, { events: true }, { prefillValueInfo: true, events: true }];
    for (const options of base.flatMap((o) => [o, { ...o, decoder: 'protobuf-c' }, { ...o, decoder: 'nanopb' }])) {
      expect(engine.inferShapes(relu(), options).getShape('Y')).toEqual({ kind: 'tensor', elemType: 'float', dims: ['N', 4] });
    }
  });

  test('module-level inferShapes and getShape use the default engine', async () => {
    const r = await inferShapes(relu());
    expect(r.getShape('Y')).toEqual({ kind: 'tensor', elemType: 'float', dims: ['N', 4] });
    expect(getShape('Y')).toEqual(r.getShape('Y'));
    expect(engine.getShape('Y')).toEqual(r.getShape('Y'));
    expect(getShape('missing')).toBeNull();
  });

  test('getShape follows the most recent successful result', () => {
    const other = model({
      inputs: [{ name: 'A', elemType: 'int64', dims: [2, 'K'] }],
      outputs: ['B'],
      nodes: [{ op: 'Neg', inputs: ['A'], outputs: ['B'] }],
    });
    engine.inferShapes(other);
    expect(engine.getShape('B')).toEqual({ kind: 'tensor', elemType: 'int64', dims: [2, 'K'] });
    expect(getShape('B')).toEqual(engine.getShape('B'));
    expect(engine.getShape('Y')).toBeNull();
    expect(() => engine.inferShapes(new Uint8Array([0xff, 0xff, 0xff]))).toThrow(ShapeInferenceError);
    expect(engine.getShape('B')).toEqual({ kind: 'tensor', elemType: 'int64', dims: [2, 'K'] });
  });
});

const models = backendModels();

describeWithBackend('ONNX backend models (light/, simple/)', () => {
  let engine;
  beforeAll(async () => {
    engine = await init();
  });

  test('the model sets are there', () => {
    expect(models.filter((m) => m.name.startsWith('light/')).length).toBeGreaterThanOrEqual(5);
    expect(models.filter((m) => m.name.startsWith('simple/')).length).toBeGreaterThanOrEqual(5);
  });

  const cases = models.flatMap((m) => ['protobuf-c', 'nanopb'].map((decoder) => [m.name, decoder, m]));
  test.each(cases)('%s (%s)', (_name, decoder, m) => {
    const bytes = readFileSync(m.path);
    const summary = readModelSummary(bytes);
    const result = engine.inferShapes(bytes, { decoder });

    const names = result.names();
    expect(names).toEqual([...names].sort());
    expect(names).toEqual(expect.arrayContaining([...summary.inputs, ...summary.outputs]));
    const problems = names.flatMap((n) => typeProblems(result.getShape(n), n));
    expect(problems).toEqual([]);
    for (const out of summary.outputs) {
      const t = result.getShape(out);
      expect(t).not.toBeNull();
      expect(['tensor', 'sequence', 'map', 'optional']).toContain(t.kind);
      expect(engine.getShape(out)).toEqual(t);
    }

    if (m.expected) {
      // light_*: the graph output's shape must be exactly that of the reference output tensor.
      const want = readTensorHeader(readFileSync(m.expected));
      const got = result.getShape(summary.outputs[0]);
      expect({ elemType: got.elemType, dims: got.dims })
        .toEqual({ elemType: elemTypeName(want.dataType), dims: want.dims });
    }
  });
});
