// Arity checks: a node with more or fewer inputs/outputs than its operator's signature (at the
// model's opset) allows, or with a required input left empty, is an INVALID_MODEL diagnostic at
// that node; omitted optional inputs (in the middle or trailing) are fine. onnxruntime-node is the
// oracle: it must refuse each broken model when the session is created and accept the valid one.
// The signature table itself (src/ops/op_arity_table.h) is regenerated from the ONNX spec and must
// be what is committed.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { init } from '../../js/index.js';
import { REPO, SHARED } from './helpers.js';
import { model, tensor } from './onnx_builder.js';

const f = (name, dims) => ({ name, elemType: 'float', dims });

// One valid node first, so the broken one is not simply the first node.
const broken = ({ opset = 17, inputs, node }) => model({
  opset,
  inputs,
  outputs: [node.outputs[0]],
  nodes: [{ op: 'Relu', name: 'ok', inputs: [inputs[0].name], outputs: ['r'] }, { name: 'bad', ...node }],
});

const CASES = [
  {
    what: 'too few inputs',
    bytes: broken({
      inputs: [f('x', [2]), { name: 'c', elemType: 'bool', dims: [2] }],
      node: { op: 'Where', inputs: ['c', 'x'], outputs: ['y'] },
    }),
    message: 'Where takes 3 inputs, this node has 2',
  },
  {
    what: 'a required input named ""',
    bytes: broken({
      inputs: [f('a', [2, 3]), f('b', [3, 4])],
      node: { op: 'Gemm', inputs: ['a', '', 'b'], outputs: ['y'] },
    }),
    message: 'input 1 of Gemm is required (not optional), but this node leaves it empty ("")',
  },
  {
    what: 'too many inputs',
    bytes: broken({
      inputs: [f('x', [2]), f('z', [2])],
      node: { op: 'Relu', inputs: ['x', 'z'], outputs: ['y'] },
    }),
    message: 'Relu takes 1 input, this node has 2',
  },
  {
    what: 'too many inputs for the old opset (Clip-6 has no min/max inputs)',
    bytes: broken({
      opset: 6,
      inputs: [f('x', [2]), f('lo', []), f('hi', [])],
      node: { op: 'Clip', inputs: ['x', 'lo', 'hi'], outputs: ['y'] },
    }),
    message: 'Clip takes 1 input, this node has 3',
  },
  {
    what: 'too many outputs',
    bytes: broken({
      inputs: [f('x', [2, 3])],
      node: { op: 'Transpose', inputs: ['x'], outputs: ['y', 'y2'] },
    }),
    message: 'Transpose takes 1 output, this node has 2',
  },
];

// Omitted optional inputs: Resize's roi and scales (middle), Clip's min (middle), Dropout's
// training_mode (trailing ""), Pad's constant_value (middle) and the same Clip's empty trailing max.
const VALID = model({
  opset: 18,
  inputs: [f('x', [1, 1, 2, 2]), f('hi', [])],
  outputs: ['resized', 'clipped', 'dropped', 'padded', 'clipped2'],
  initializers: [
    tensor({ name: 'sizes', elemType: 'int64', dims: [4], int64Data: [1, 1, 4, 4] }),
    tensor({ name: 'pads', elemType: 'int64', dims: [2], int64Data: [1, 1] }),
    tensor({ name: 'axes', elemType: 'int64', dims: [1], int64Data: [3] }),
  ],
  nodes: [
    { op: 'Resize', name: 'resize', inputs: ['x', '', '', 'sizes'], outputs: ['resized'] },
    { op: 'Clip', name: 'clip', inputs: ['x', '', 'hi'], outputs: ['clipped'] },
    { op: 'Dropout', name: 'dropout', inputs: ['x', 'hi', ''], outputs: ['dropped'] },
    { op: 'Pad', name: 'pad', inputs: ['x', 'pads', '', 'axes'], outputs: ['padded'] },
    { op: 'Clip', name: 'clip2', inputs: ['x', 'hi', ''], outputs: ['clipped2'] },
  ],
});

// Session creation in onnxruntime-node, in a child process (its objects do not cross into Jest's
// realm): { ok, error } per model file.
function ortCreates(files) {
  const script = `
    const ort = await import('onnxruntime-node');
    const out = [];
    for (const f of process.argv.slice(1)) {
      try { await ort.InferenceSession.create(f); out.push({ ok: true }); }
      catch (e) { out.push({ ok: false, error: String(e.message || e) }); }
    }
    console.log(JSON.stringify(out));`;
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', script, ...files], {
    cwd: REPO,
    encoding: 'utf8',
    timeout: 600_000,
  });
  if (r.status !== 0) throw new Error(`onnxruntime-node failed: ${r.stderr}`);
  return JSON.parse(r.stdout.trim().split('\n').pop());
}

let engine;
let dir;
beforeAll(async () => {
  engine = await init();
  dir = mkdtempSync(join(tmpdir(), 'osi-arity-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test('the committed arity table is what tests/tools/gen_arity.py makes of the spec', () => {
  const r = spawnSync('/usr/bin/python3', [join(REPO, 'tests/tools/gen_arity.py'), '--check'], {
    encoding: 'utf8',
    timeout: 600_000,
    env: { ...process.env, OSI_SHARED_DIR: SHARED },
  });
  expect(r.stderr).toBe('');
  expect(r.status).toBe(0);
});

test('onnxruntime refuses every broken model at session creation and accepts the valid one', () => {
  const files = [...CASES.map((c) => c.bytes), VALID].map((bytes, i) => {
    const p = join(dir, `m${i}.onnx`);
    writeFileSync(p, bytes);
    return p;
  });
  const verdicts = ortCreates(files);
  // For its arity (the ONNX checker's words), not for something else.
  CASES.forEach((c, i) => expect({ what: c.what, ...verdicts[i] }).toEqual({
    what: c.what,
    ok: false,
    error: expect.stringMatching(/Node ?\(bad\).* (has input size|has output size|is marked single)/),
  }));
  expect(verdicts[CASES.length]).toEqual({ ok: true });
});

test.each(CASES)('$what: INVALID_MODEL at the node that breaks the model', ({ bytes, message }) => {
  const r = engine.inferShapes(bytes);
  expect(r.firstError).toEqual({ code: 'INVALID_MODEL', message, node: 'bad', opType: expect.any(String), nodeIndex: 1, path: '' });
  expect(r.diagnostics.filter((d) => d.code === 'INVALID_MODEL' || d.code === 'SHAPE_MISMATCH')).toHaveLength(1);
});

test('omitted optional inputs, in the middle or trailing, are not flagged', () => {
  const r = engine.inferShapes(VALID);
  expect(r.firstError).toBeNull();
  expect(r.diagnostics.filter((d) => d.code === 'INVALID_MODEL' || d.code === 'SHAPE_MISMATCH')).toEqual([]);
  expect(r.getShape('resized').dims).toEqual([1, 1, 4, 4]);
  expect(r.getShape('padded').dims).toEqual([1, 1, 2, 4]);
  expect(r.getShape('clipped').dims).toEqual([1, 1, 2, 2]);
});
