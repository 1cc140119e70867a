// The public JS API on real models: ONNX backend light/ and simple/ models, plus built ones.
import { readFileSync } from 'node:fs';
import { init, inferShapes, getShape, ShapeInferenceError } from '../../js/index.js';
import { model, readModelSummary, readTensorHeader, elemTypeName } from './onnx_builder.js';
import { rewriteModel } from '../checking/onnx_proto.mjs';
import { backendModels, typeProblems } from './helpers.js';

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

describe('ONNX backend models (light/, simple/)', () => {
  let engine;
  beforeAll(async () => {
    engine = await init();
  });

  test('the model sets are there: all 32 (9 light, 23 simple)', () => {
    // Every model of the shared data, not a sample: a missing one would thin out the tests below.
    expect(models.filter((m) => m.name.startsWith('light/')).length).toBe(9);
    expect(models.filter((m) => m.name.startsWith('simple/')).length).toBe(23);
    expect(models.length).toBe(32);
  });

  const cases = models.flatMap((m) => ['protobuf-c', 'nanopb'].map((decoder) => [m.name, decoder, m]));
  test.each(cases)('%s (%s): well-formed results', (_name, decoder, m) => {
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
  });

  // The declared output shapes and value_info are removed first (they would fill the answer in),
  // then every graph output is compared with the backend's expected output tensor
  // (test_data_set_0/output_<k>.pb, light/*_output_0.pb): its element type and dims exactly, or,
  // where the size depends on what the model reads at run time, unknown with the engine's
  // DATA_DEPENDENT diagnostic for it. A known dim that differs is always a failure.
  test.each(cases)('%s (%s): outputs inferred without their declared shapes equal the expected outputs', (_name, decoder, m) => {
    const bytes = readFileSync(m.path);
    const summary = readModelSummary(bytes);
    expect(summary.outputs.length).toBe(m.outputs.length);
    const result = engine.inferShapes(rewriteModel(bytes, {}), { decoder });
    const dataDependent = result.diagnostics.filter((d) => d.code === 'DATA_DEPENDENT');
    /** Indices of the top-level nodes `value` depends on (read from the graph's structure). */
    const feeding = (value, seen = new Set()) => {
      const n = result.producers[value];
      if (n === undefined || seen.has(n)) return seen;
      seen.add(n);
      for (const v of result.nodes[n].inputs) if (v !== null) feeding(v, seen);
      return seen;
    };
    summary.outputs.forEach((out, k) => {
      const want = readTensorHeader(readFileSync(m.outputs[k]));
      const got = result.getShape(out);
      expect(got).toEqual(expect.objectContaining({ kind: 'tensor', elemType: elemTypeName(want.dataType) }));
      const exact = Array.isArray(got.dims) && got.dims.length === want.dims.length &&
        got.dims.every((d, i) => d === want.dims[i]);
      if (exact) return;
      // Not exact: never a known dim that differs, and the engine says why it does not know.
      expect({ out, rank: got.dims?.length ?? want.dims.length }).toEqual({ out, rank: want.dims.length });
      got.dims?.forEach((d, i) => {
        if (typeof d === 'number') expect({ out, dim: i, value: d }).toEqual({ out, dim: i, value: want.dims[i] });
      });
      const upstream = feeding(out);
      const why = dataDependent.filter((d) => d.path === '' && upstream.has(d.nodeIndex));
      expect({ out, dataDependent: why.length > 0 }).toEqual({ out, dataDependent: true });
    });
    if (m.name.startsWith('light/')) {
      // The light models are whole networks on fixed-size inputs: nothing depends on data.
      expect(dataDependent).toEqual([]);
    }
  });
});
