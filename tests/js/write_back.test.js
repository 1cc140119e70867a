// result.toModel(): the model with the inferred types written in (C osi_result_model).
// Checked by reading the bytes back, by inferring them again, with the ONNX checker of Debian's
// python3-onnx and by running them in onnxruntime-node (both installed by .ci/setup.sh: a missing
// one fails the test).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { init, ShapeInferenceError } from '../../js/index.js';
import { model, readFields, tensor } from './onnx_builder.js';
import { backendModels, backendPath } from './helpers.js';

const PYTHON = '/usr/bin/python3';
const text = (b) => new TextDecoder().decode(b);
const isBytes = (v) => Object.prototype.toString.call(v) === '[object Uint8Array]';

// Section - Reading a written model

/** { name, type } of each ValueInfoProto of field `field` (12 outputs, 13 value_info) of the graph. */
function entries(bytes, field) {
  const g = readFields(bytes).find((f) => f.field === 7);
  return readFields(g.value).filter((f) => f.field === field).map((f) => {
    const vi = readFields(f.value);
    const name = vi.find((x) => x.field === 1);
    const type = vi.find((x) => x.field === 2);
    return { name: name ? text(name.value) : '', type: type ? typeText(type.value) : null };
  });
}

/** TypeProto bytes → 'float[N,3,?]', 'float[*]' (no shape), 'seq(...)', 'opt(...)', 'map(k,...)'. */
function typeText(bytes) {
  const [f] = readFields(bytes).filter((x) => x.field !== 6);
  const inner = readFields(f.value);
  if (f.field === 4 || f.field === 9) {
    const elem = inner.find((x) => x.field === 1);
    return `${f.field === 4 ? 'seq' : 'opt'}(${elem ? typeText(elem.value) : ''})`;
  }
  if (f.field === 5) {
    const key = inner.find((x) => x.field === 1);
    const value = inner.find((x) => x.field === 2);
    return `map(${key ? Number(key.value) : '?'},${value ? typeText(value.value) : ''})`;
  }
  const elem = inner.find((x) => x.field === 1);
  const shape = inner.find((x) => x.field === 2);
  const dims = shape
    ? readFields(shape.value).filter((x) => x.field === 1).map((d) => {
      const dim = readFields(d.value);
      const v = dim.find((x) => x.field === 1);
      const p = dim.find((x) => x.field === 2);
      if (v) return String(BigInt.asIntN(64, v.value));
      return p ? text(p.value) : '?';
    })
    : null;
  return `${elem ? Number(elem.value) : 0}${dims ? `[${dims.join(',')}]` : '[*]'}`;
}

// Section - Generated models (symbolic batch dims, fed with small sizes in onnxruntime)

const W = tensor({ name: 'W', elemType: 'float', dims: [4, 3], floatData: Array.from({ length: 12 }, (_, i) => i / 10) });

/** X[N,4] → Relu → Concat(axis 0) → MatMul W → Y[2*N,3]; S = Shape(Y). */
const concatMatMul = () => model({
  opset: 17,
  inputs: [{ name: 'X', elemType: 'float', dims: ['N', 4] }],
  initializers: [W],
  outputs: [{ name: 'Y', elemType: 'float' }, 'S'],
  valueInfo: [{ name: 'A', elemType: 'float' }],
  nodes: [
    { op: 'Relu', name: 'relu', inputs: ['X'], outputs: ['A'] },
    { op: 'Concat', name: 'cat', inputs: ['A', 'A'], outputs: ['B'], attrs: { axis: 0 } },
    { op: 'MatMul', name: 'mm', inputs: ['B', 'W'], outputs: ['Y'] },
    { op: 'Shape', name: 'shape', inputs: ['Y'], outputs: ['S'] },
  ],
});

/** X[N,T,8] → Reshape to [N, -1] with the shape computed from Shape/Gather/Concat → Y[N,8*T]. */
const reshapeFromShape = () => model({
  opset: 17,
  inputs: [{ name: 'X', elemType: 'float', dims: ['N', 'T', 8] }],
  initializers: [
    tensor({ name: 'zero', elemType: 'int64', dims: [1], int64Data: [0] }),
    tensor({ name: 'minus1', elemType: 'int64', dims: [1], int64Data: [-1] }),
  ],
  outputs: ['Y'],
  nodes: [
    { op: 'Shape', name: 'shape', inputs: ['X'], outputs: ['s'] },
    { op: 'Gather', name: 'gather', inputs: ['s', 'zero'], outputs: ['n'], attrs: { axis: 0 } },
    { op: 'Concat', name: 'cat', inputs: ['n', 'minus1'], outputs: ['target'], attrs: { axis: 0 } },
    { op: 'Reshape', name: 'reshape', inputs: ['X', 'target'], outputs: ['R'] },
    { op: 'Sigmoid', name: 'sig', inputs: ['R'], outputs: ['Y'] },
  ],
});

/** X[N,3] → SequenceConstruct → SequenceAt → Y; the sequence gets a nested value_info. */
const sequenceModel = () => model({
  opset: 17,
  inputs: [{ name: 'X', elemType: 'float', dims: ['N', 3] }],
  initializers: [tensor({ name: 'pos', elemType: 'int64', dims: [], int64Data: [1] })],
  outputs: ['Y'],
  nodes: [
    { op: 'SequenceConstruct', name: 'sc', inputs: ['X', 'X'], outputs: ['seq'] },
    { op: 'SequenceAt', name: 'at', inputs: ['seq', 'pos'], outputs: ['Z'] },
    { op: 'Abs', name: 'abs', inputs: ['Z'], outputs: ['Y'] },
  ],
});

const GENERATED = { concatMatMul, reshapeFromShape, sequenceModel };

// Section - Tests

let engine;
beforeAll(async () => {
  engine = await init();
});

describe('toModel on a built model', () => {
  test('returns a new Uint8Array with outputs and value_info filled in', () => {
    const bytes = concatMatMul();
    const r = engine.inferShapes(bytes);
    const m = r.toModel();
    expect(isBytes(m)).toBe(true);
    const again = r.toModel();
    expect(again).not.toBe(m);
    expect(Buffer.from(again).equals(Buffer.from(m))).toBe(true);
    // outputs updated in place; FLOAT = 1, INT64 = 7
    expect(entries(m, 12)).toEqual([
      { name: 'Y', type: '1[2*N,3]' },
      { name: 'S', type: '7[2]' },
    ]);
    // the existing entry first (updated), then the new ones sorted; no input, initializer or output
    expect(entries(m, 13)).toEqual([
      { name: 'A', type: '1[N,4]' },
      { name: 'B', type: '1[2*N,4]' },
    ]);
    // inputs and initializers untouched
    expect(entries(m, 11)).toEqual(entries(bytes, 11));
  });

  test('symbolic expressions become dim_param, sequences nest', () => {
    let m = engine.inferShapes(reshapeFromShape()).toModel();
    expect(entries(m, 12)).toEqual([{ name: 'Y', type: '1[N,8*T]' }]);
    expect(entries(m, 13).find((e) => e.name === 'R')).toEqual({ name: 'R', type: '1[N,8*T]' });
    expect(entries(m, 13).find((e) => e.name === 'target')).toEqual({ name: 'target', type: '7[2]' });
    m = engine.inferShapes(sequenceModel()).toModel();
    expect(entries(m, 13)).toEqual([
      { name: 'Z', type: '1[N,3]' },
      { name: 'seq', type: 'seq(1[N,3])' },
    ]);
  });

  test('inferring the written model gives the same values', () => {
    for (const build of Object.values(GENERATED)) {
      const r = engine.inferShapes(build());
      const r2 = engine.inferShapes(r.toModel());
      expect(r2.values).toEqual(r.values);
    }
  });

  test('unknown fields survive byte for byte', () => {
    const extra = Uint8Array.from([0x98, 0x06, 0x2a, 0xa2, 0x06, 2, 0x68, 0x69]); // 99: 42; 100: "hi"
    const bytes = new Uint8Array([...concatMatMul(), ...extra]);
    const m = engine.inferShapes(bytes).toModel();
    expect(Buffer.from(m.subarray(m.length - extra.length)).equals(Buffer.from(extra))).toBe(true);
  });

  test('works after inferShapes with the nanopb decoder and with events', () => {
    const bytes = concatMatMul();
    const want = engine.inferShapes(bytes).toModel();
    for (const options of [{ decoder: 'nanopb' }, { events: true }, { prefillValueInfo: true }]) {
      const r = engine.inferShapes(bytes, options);
      expect(Buffer.from(r.toModel()).equals(Buffer.from(want))).toBe(true);
    }
  });

  test('refuses when the bytes given to inferShapes were modified', () => {
    const bytes = concatMatMul();
    const r = engine.inferShapes(bytes);
    bytes.fill(0xff);
    expect(() => r.toModel()).toThrow(/unchanged/);
    const buf = concatMatMul().buffer;
    const r2 = engine.inferShapes(buf);
    structuredClone(buf, { transfer: [buf] }); // detaches it
    expect(() => r2.toModel()).toThrow(/unchanged/);
    expect(() => r2.toModel()).not.toThrow(ShapeInferenceError);
  });

  test('a model streamed from a file has no bytes to rewrite', () => {
    const dir = mkdtempSync(join(tmpdir(), 'onnx-shapes-write-back-'));
    try {
      const path = join(dir, 'm.onnx');
      writeFileSync(path, concatMatMul());
      const r = engine.inferShapesFromPath(path);
      expect(() => r.toModel()).toThrow(/streamed/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('toModel on the backend light/ and simple/ models', () => {
  test.each(backendModels().map((m) => [m.name, m.path]))('%s: decodes, keeps the graph, infers the same', (name, path) => {
    const bytes = readFileSync(path);
    const r = engine.inferShapes(bytes);
    const m = r.toModel();
    const fieldsOf = (b) => readFields(b).map((f) => f.field);
    expect(fieldsOf(m)).toEqual(fieldsOf(bytes));
    const graphFields = (b) => readFields(readFields(b).find((f) => f.field === 7).value)
      .filter((f) => f.field !== 12 && f.field !== 13)
      .map((f) => Buffer.from(f.value instanceof Uint8Array ? f.value : [Number(f.value)]).toString('base64'));
    expect(graphFields(m)).toEqual(graphFields(bytes));
    expect(entries(m, 12).map((e) => e.name)).toEqual(entries(bytes, 12).map((e) => e.name));
    const added = entries(m, 13).slice(entries(bytes, 13).length).map((e) => e.name);
    expect(added).toEqual([...added].sort());
    expect(engine.inferShapes(m).values).toEqual(r.values);
  });
});

// Section - External validators

/** Light models (fed with zeros) that onnxruntime runs in well under a second. */
const LIGHT_FOR_ORT = ['light_squeezenet.onnx', 'light_shufflenet.onnx', 'light_inception_v1.onnx',
  'light_densenet121.onnx', 'light_resnet50.onnx'];

describe('written models in external tools', () => {
  let dir;
  const cases = []; // { name, original, written } file paths
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'onnx-shapes-write-back-'));
    const add = (name, bytes) => {
      const i = cases.length;
      const original = join(dir, `${i}_original.onnx`);
      const written = join(dir, `${i}_written.onnx`);
      writeFileSync(original, bytes);
      writeFileSync(written, engine.inferShapes(bytes).toModel());
      cases.push({ name, original, written });
    };
    for (const [name, build] of Object.entries(GENERATED)) add(name, build());
    for (const m of backendModels()) add(m.name, readFileSync(m.path));
    // and a sample of the node tests: every 8th
    const nodeDir = backendPath('node');
    readdirSync(nodeDir).sort().filter((_, i) => i % 8 === 0).forEach((d) => {
      const bytes = readFileSync(backendPath('node', d, 'model.onnx'));
      try {
        engine.inferShapes(bytes);
      } catch (e) {
        if (!(e instanceof ShapeInferenceError)) throw e;
        return; // a model the engine rejects (an invalid one): nothing to write
      }
      add(`node/${d}`, bytes);
    });
  });
  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  test('pass the ONNX checker (Debian python3-onnx) wherever the original does', () => {
    const probe = spawnSync(PYTHON, ['-c', 'import onnx'], { encoding: 'utf8', timeout: 300_000 });
    expect({ probe: probe.error?.message ?? probe.stderr.trim() })
      .toEqual({ probe: '' }); // python3-onnx (apt-get install python3-onnx; .ci/setup.sh does)
    const script = [
      'import json, sys, onnx',
      'out = {}',
      'for p in json.load(sys.stdin):',
      '    try:',
      '        onnx.checker.check_model(onnx.load(p), full_check=True)',
      '        out[p] = "ok"',
      '    except Exception as e:',
      '        out[p] = str(e)[:300]',
      'print(json.dumps(out))',
    ].join('\n');
    const paths = cases.flatMap((c) => [c.original, c.written]);
    const run = spawnSync(PYTHON, ['-c', script], { input: JSON.stringify(paths), encoding: 'utf8', maxBuffer: 64 << 20, timeout: 600_000 });
    expect(run.status).toBe(0);
    const verdict = JSON.parse(run.stdout);
    let checked = 0;
    const problems = [];
    for (const c of cases) {
      if (verdict[c.original] !== 'ok') continue;
      checked++;
      if (verdict[c.written] !== 'ok') problems.push(`${c.name}: ${verdict[c.written]}`);
    }
    expect(problems).toEqual([]);
    expect(checked).toBeGreaterThan(3);
  }, 120000);

  // onnxruntime-node runs in a child process: inside Jest's vm context its native outputs fail its
  // own instanceof checks (cross-realm typed arrays).
  test('load and run in onnxruntime-node like the original', () => {
    const require = createRequire(import.meta.url);
    const ortPath = require.resolve('onnxruntime-node'); // npm ci installs it (ONNXRUNTIME_NODE_INSTALL=skip)
    const chosen = cases.filter((c) => Object.hasOwn(GENERATED, c.name) ||
      LIGHT_FOR_ORT.some((f) => c.name === `light/${f}`));
    expect(chosen.length).toBeGreaterThanOrEqual(Object.keys(GENERATED).length);
    const jobs = chosen.flatMap((c) => (Object.hasOwn(GENERATED, c.name) ? [1, 3] : [1])
      .map((size) => ({ name: c.name, size, original: c.original, written: c.written })));
    // Zeros for every input, symbolic dims set to `size`; prints { name@size: [original, written] }.
    const script = `
      const ort = require(${JSON.stringify(ortPath)});
      const ARRAYS = { float32: Float32Array, int64: BigInt64Array, int32: Int32Array, uint8: Uint8Array, bool: Uint8Array };
      async function outputs(path, size) {
        const session = await ort.InferenceSession.create(path, { logSeverityLevel: 3 });
        try {
          const feeds = {};
          for (const meta of session.inputMetadata) {
            const dims = meta.shape.map((d) => (typeof d === 'number' ? d : size));
            feeds[meta.name] = new ort.Tensor(meta.type, new ARRAYS[meta.type](dims.reduce((a, b) => a * b, 1)), dims);
          }
          const out = await session.run(feeds);
          return Object.fromEntries(Object.entries(out).map(([k, t]) =>
            [k, { type: t.type, dims: [...t.dims], data: Array.from(t.data, String) }]));
        } catch (e) {
          return { error: String(e.message).split('\\n')[0] };
        } finally {
          await session.release();
        }
      }
      (async () => {
        const result = {};
        for (const j of JSON.parse(require('fs').readFileSync(0, 'utf8'))) {
          result[j.name + '@' + j.size] = [await outputs(j.original, j.size), await outputs(j.written, j.size)];
        }
        process.stdout.write(JSON.stringify(result));
      })().catch((e) => { console.error(e); process.exit(1); });`;
    const run = spawnSync(process.execPath, ['-e', script], {
      input: JSON.stringify(jobs), encoding: 'utf8', maxBuffer: 256 << 20, timeout: 600_000,
    });
    expect(run.stderr.includes('Error') ? run.stderr : '').toBe('');
    expect(run.status).toBe(0);
    const result = JSON.parse(run.stdout);
    expect(Object.keys(result).length).toBe(jobs.length);
    for (const [key, [want, got]] of Object.entries(result)) {
      expect(want.error).toBeUndefined();
      expect({ key, got }).toEqual({ key, got: want });
    }
    // The written shapes agree with what onnxruntime computes for a symbolic batch.
    expect(result['concatMatMul@3'][1].Y.dims).toEqual([6, 3]);
    expect(result['reshapeFromShape@3'][1].Y.dims).toEqual([3, 24]);
  }, 120000);
});
