// Empty dims in the matmul family against onnxruntime-node: its matmul helper pads a 1-D operand
// (B to [1.., K, 1], A to [1.., K]) and broadcasts every position but the last two up from 1 only,
// so a 0 that meets a 1 is refused (numpy would give 0) unless it folds A's batch into rows (B of
// rank >= 2, not above A's, with a batch of 1s). For each op and each pair of shapes: onnxruntime
// runs the model (zeros) or fails; the engine on the concrete shapes gives onnxruntime's output or a
// SHAPE_MISMATCH; and on the same shapes with one operand symbolic, result.evaluate at those sizes
// gives onnxruntime's output or a RequirementError (a requirement `1 <= dim`). Gemm is 2-D only and
// takes empty dims: it is checked the same way.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { init, RequirementError } from '../../js/index.js';
import { model, tensor } from './onnx_builder.js';
import { REPO } from './helpers.js';

const ONE = tensor({ name: 'one', elemType: 'float', dims: [], floatData: [1] });
const ZERO_U8 = tensor({ name: 'zp', elemType: 'uint8', dims: [], rawData: new Uint8Array([0]) });
const MS = [{ domain: '', version: 17 }, { domain: 'com.microsoft', version: 1 }];

// op: [A's type, B's type, extra initializers, the node's inputs, domain, attributes]
const OPS = {
  MatMul: ['float', 'float', [], ['a', 'b']],
  MatMulInteger: ['uint8', 'uint8', [], ['a', 'b']],
  QLinearMatMul: ['uint8', 'uint8', [ONE, ZERO_U8], ['a', 'one', 'zp', 'b', 'one', 'zp', 'one', 'zp']],
  FusedMatMul: ['float', 'float', [], ['a', 'b'], 'com.microsoft'],
  'FusedMatMul transB': ['float', 'float', [], ['a', 'b'], 'com.microsoft', { transB: 1 }],
  MatMulIntegerToFloat: ['uint8', 'uint8', [ONE], ['a', 'b', 'one', 'one'], 'com.microsoft'],
  DynamicQuantizeMatMul: ['float', 'int8', [ONE], ['a', 'b', 'one'], 'com.microsoft'],
};

// [A, B] as MatMul multiplies them (FusedMatMul transB gets B's last two dims swapped).
const SHAPES = [
  [[2, 3, 3], [3]], [[0, 3, 3], [3]], [[2, 0, 3], [3]], [[0, 3], [3]], [[2, 3], [3]], [[1, 0, 3], [3]],
  [[3], [3]], [[0], [0]], [[2, 0], [0]], [[2, 3, 0], [0]],
  [[3], [0, 3, 2]], [[3], [2, 3, 0]], [[3], [3, 0]], [[3], [0, 3, 0]], [[3], [1, 0, 3, 2]],
  [[0, 2, 3], [1, 3, 4]], [[1, 2, 3], [0, 3, 4]], [[1, 1, 2, 3], [0, 1, 3, 4]], [[2, 0, 2, 3], [1, 3, 4]],
  [[0, 3], [1, 3, 2]], [[0, 3], [2, 3, 2]], [[2, 3], [0, 3, 2]], [[0, 2, 3, 4], [1, 1, 4, 5]],
  [[0, 2, 3, 4], [1, 2, 4, 5]], [[2, 1, 3, 4], [2, 0, 4, 5]], [[2, 0, 3, 4], [2, 1, 4, 5]],
];

const transposed = (op, b) => (op.endsWith('transB') && b.length >= 2 ? [...b.slice(0, -2), b.at(-1), b.at(-2)] : b);

function build(op, a, b) {
  const [ta, tb, inits, inputs, domain, attrs] = OPS[op];
  return model({
    opset: 17,
    opsets: domain ? MS : undefined,
    inputs: [{ name: 'a', elemType: ta, dims: a }, { name: 'b', elemType: tb, dims: transposed(op, b) }],
    outputs: ['y'],
    initializers: inits,
    nodes: [{ op: op.split(' ')[0], name: 'mm', domain, inputs, outputs: ['y'], attrs }],
  });
}

// onnxruntime-node in a child process (its objects do not cross into Jest's realm): per case
// { ok, dims } or { ok: false, error }.
function ortRuns(cases) {
  const script = `
    const ort = await import('onnxruntime-node');
    const { readFileSync } = await import('node:fs');
    const ARRAYS = { float32: Float32Array, uint8: Uint8Array, int8: Int8Array };
    const out = [];
    for (const c of JSON.parse(readFileSync(process.argv[1], 'utf8'))) {
      try {
        const s = await ort.InferenceSession.create(c.file, { logSeverityLevel: 4 });
        const feeds = {};
        for (const [name, type, dims] of c.feeds) feeds[name] = new ort.Tensor(type, new ARRAYS[type](dims.reduce((x, y) => x * y, 1)), dims);
        out.push({ ok: true, dims: (await s.run(feeds)).y.dims.map(Number) });
      } catch (e) { out.push({ ok: false, error: String(e.message || e).split('\\n')[0] }); }
    }
    console.log(JSON.stringify(out));`;
  const list = join(dir, 'cases.json');
  writeFileSync(list, JSON.stringify(cases));
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', script, list], { cwd: REPO, encoding: 'utf8', timeout: 600_000 });
  if (r.status !== 0) throw new Error(`onnxruntime-node failed: ${r.stderr}`);
  return JSON.parse(r.stdout.trim().split('\n').pop());
}

let engine;
let dir;
const rows = [];
beforeAll(async () => {
  engine = await init();
  dir = mkdtempSync(join(tmpdir(), 'osi-matmul-empty-'));
  const cases = [];
  for (const op of Object.keys(OPS)) {
    for (const [a, b] of SHAPES) {
      const file = join(dir, `${cases.length}.onnx`);
      writeFileSync(file, build(op, a, b));
      const type = (t) => (t === 'float' ? 'float32' : t);
      cases.push({ file, feeds: [['a', type(OPS[op][0]), a], ['b', type(OPS[op][1]), transposed(op, b)]] });
      rows.push({ op, a, b });
    }
  }
  ortRuns(cases).forEach((ort, i) => { rows[i].ort = ort; });
}, 600_000);

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const label = ({ op, a, b, ort }) => `${op} ${JSON.stringify(a)} x ${JSON.stringify(b)}: onnxruntime ${ort.ok ? `gives ${JSON.stringify(ort.dims)}` : `fails (${ort.error})`}`;

test('onnxruntime runs some cases and refuses others (the grid exercises both)', () => {
  expect(rows.length).toBe(Object.keys(OPS).length * SHAPES.length);
  const refused = rows.filter((r) => !r.ort.ok);
  expect(refused.length).toBeGreaterThan(Object.keys(OPS).length * 8);
  expect(rows.length - refused.length).toBeGreaterThan(Object.keys(OPS).length * 10);
  for (const r of refused) expect(r.ort.error).toMatch(/cannot broadcast on dim/);
});

test('concrete shapes: onnxruntime\'s output, or a SHAPE_MISMATCH where it refuses', () => {
  const wrong = [];
  for (const row of rows) {
    const r = engine.inferShapes(build(row.op, row.a, row.b));
    const mismatch = r.diagnostics.filter((d) => d.code === 'SHAPE_MISMATCH');
    const got = mismatch.length ? 'SHAPE_MISMATCH' : JSON.stringify(r.getShape('y')?.dims);
    const want = row.ort.ok ? JSON.stringify(row.ort.dims) : 'SHAPE_MISMATCH';
    if (got !== want) wrong.push(`${label(row)}; the engine: ${got}`);
  }
  expect(wrong).toEqual([]);
});

// With B's batch all symbols, whether onnxruntime folds turns on two or more of them (A's 0 against
// B's [Y, Z] runs only at Y = Z = 1): no one relation says it, so there the engine refuses nothing
// (a refusal missed, never one made up): those rows are checked one way only.
const foldOpen = (row, side) => side === 1 && row.a.length >= row.b.length && row.b.length - 2 >= 2;

test.each([['A', 0], ['B', 1]])('%s symbolic: evaluate at the sizes gives onnxruntime\'s output, or a RequirementError where it refuses', (_, side) => {
  const wrong = [];
  let refused = 0;
  for (const row of rows) {
    const symbols = (row[side ? 'b' : 'a']).map((_, i) => `d${i}`);
    const [a, b] = side ? [row.a, symbols] : [symbols, row.b];
    const r = engine.inferShapes(build(row.op, a, b));
    const sizes = Object.fromEntries((side ? row.b : row.a).map((v, i) => [`d${i}`, v]));
    // the other operand's sizes alone can break the node (a concrete 0 against a 1)
    const mismatch = r.diagnostics.some((d) => d.code === 'SHAPE_MISMATCH');
    let got = 'SHAPE_MISMATCH';
    try {
      if (!mismatch) got = JSON.stringify(r.evaluate(sizes).values.y);
    } catch (err) {
      if (!(err instanceof RequirementError)) throw err;
      got = `RequirementError: ${err.message}`;
    }
    const refuses = /^(RequirementError|SHAPE_MISMATCH)/.test(got);
    refused += refuses;
    const ok = row.ort.ok ? got === JSON.stringify(row.ort.dims) : refuses || foldOpen(row, side);
    if (!ok) wrong.push(`${label(row)}; the engine: ${got}`);
  }
  expect(wrong).toEqual([]);
  expect(refused).toBeGreaterThanOrEqual(rows.filter((r) => !r.ort.ok && !foldOpen(r, side)).length);
});

test('the requirement names the dim and why: a 1-D B meets every dim of A but the last', () => {
  const r = engine.inferShapes(build('MatMul', ['batch', 'seq', 6], [6]));
  expect(r.getShape('y').dims).toEqual(['batch', 'seq']);
  expect(r.constraints.requirements.map((q) => `${q.lhs} ${q.relation} ${q.rhs}: ${q.message}`)).toEqual([
    "1 <= batch: MatMul: 1 <= dim 0 of input 'a' (B's is 1 there, and onnxruntime broadcasts a 1 up only)",
    "1 <= seq: MatMul: 1 <= dim 1 of input 'a' (B's is 1 there, and onnxruntime broadcasts a 1 up only)",
  ]);
  expect(r.domain.symbols.batch.min).toBe(1);
  expect(r.domain.symbols.seq.min).toBe(1);
  // B's batch of 1s folds A's batch into rows: nothing required of it
  expect(engine.inferShapes(build('MatMul', ['batch', 'seq', 6], [1, 6, 2])).constraints.requirements).toEqual([]);
  // A's 0 against B's 1 runs only folded: B's other batch dim must be 1 too
  const folded = engine.inferShapes(build('MatMul', [0, 2, 3, 4], [1, 'heads', 4, 5]));
  expect(folded.diagnostics.filter((d) => d.code === 'SHAPE_MISMATCH')).toEqual([]);
  expect(folded.constraints.requirements.map((q) => `${q.lhs} ${q.relation} ${q.rhs}`)).toEqual(['heads == 1']);
});
