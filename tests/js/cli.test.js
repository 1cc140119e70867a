// The command line (js/cli.js): output formats, bindings, provenance, stdin, exit codes.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { init } from '../../js/index.js';
import { REPO } from './helpers.js';
import { model } from './onnx_builder.js';

const CLI = join(REPO, 'js', 'cli.js');
const DECODER = join(REPO, 'examples', 'models', 'tiny_decoder.onnx');
const CNN = join(REPO, 'examples', 'models', 'cnn_dynamic.onnx');
const cli = (args, input) => spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', input });

test('prints a table of every value', () => {
  const r = cli([DECODER]);
  expect(r.status).toBe(0);
  const lines = r.stdout.trim().split('\n');
  expect(lines[0]).toMatch(/^value\s+op\s+type and shape$/);
  expect(r.stdout).toMatch(/^present_key\s+Concat\s+float \[batch, 4, total_seq, 16\]$/m);
  expect(r.stdout).toMatch(/^logits\s+MatMul\s+float \[batch, seq, 100\]$/m);
});

test('--bind evaluates shapes and byte sizes', () => {
  const r = cli([CNN, '--bind', 'N=2,H=224,W=224']);
  expect(r.status).toBe(0);
  expect(r.stdout).toMatch(/^c1\s+Conv\s+float \[2, 8, 112, 112\]\s+802816$/m);
  expect(r.stdout).toMatch(/^logits\s+MatMul\s+float \[2, 10\]\s+80$/m);
});

test('--json prints the whole result', () => {
  const r = cli([CNN, '--json']);
  expect(r.status).toBe(0);
  const j = JSON.parse(r.stdout);
  expect(j.values.c1.dims).toEqual(['N', 8, '(H+1)//2', '(W+1)//2']);
  expect(j.diagnostics).toEqual([]);
});

test('--events explains a value', () => {
  const r = cli([DECODER, '--events', 'present_key']);
  expect(r.status).toBe(0);
  expect(r.stdout).toMatch(/produced by node \d+ 'kv_cache_k' \(Concat\)/);
  expect(r.stdout).toMatch(/constraint: past_seq\+seq == total_seq/);
  expect(r.stdout).toMatch(/rename: past_seq\+seq -> total_seq/);
  expect(cli([DECODER, '--events', 'no_such_value']).status).toBe(2);
});

test('reads - from standard input', () => {
  const r = cli(['-'], readFileSync(CNN));
  expect(r.status).toBe(0);
  expect(r.stdout).toMatch(/^logits\s+MatMul\s+float \[N, 10\]$/m);
});

test('exit codes: 1 on ShapeInferenceError, 2 on usage errors', () => {
  const bad = cli(['-'], Buffer.from([0xff, 0xff, 0xff]));
  expect(bad.status).toBe(1);
  expect(bad.stderr.trim().split('\n')).toHaveLength(1);
  expect(bad.stderr).toMatch(/^onnx-shapes: PARSE_ERROR: /);
  expect(cli([]).status).toBe(2);
  expect(cli(['--bogus', CNN]).status).toBe(2);
  expect(cli([CNN, '--bind', 'N']).status).toBe(2);
  expect(cli(['/no/such/file.onnx']).status).toBe(2);
  expect(cli(['--help']).status).toBe(0);
});

test('--write writes the model with value_info filled in', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'osi-cli-'));
  try {
    const out = join(dir, 'out.onnx');
    const r = cli([CNN, '--write', out]);
    expect(r.status).toBe(0);
    const engine = await init();
    const again = engine.inferShapes(readFileSync(out), { prefillValueInfo: true });
    expect(again.getShape('c1').dims).toEqual(['N', 8, '(H+1)//2', '(W+1)//2']);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('an output label shows the computed size in the table and names it below', () => {
  // torch labels dims it was given no name for: <Op><output>_dim_<k>, <output>_dynamic_axes_<k>.
  const bytes = model({
    opset: 17,
    inputs: [{ name: 'x', elemType: 'float', dims: ['batch', 4, 'seq'] }],
    outputs: [{ name: 'y', elemType: 'float', dims: ['Reluy_dim_0', 4, 'y_dynamic_axes_2'] }],
    nodes: [{ op: 'Relu', inputs: ['x'], outputs: ['y'] }],
  });
  const r = cli(['-'], Buffer.from(bytes));
  expect(r.status).toBe(0);
  expect(r.stdout).toMatch(/^y\s+Relu\s+float \[batch, 4, seq\]$/m);
  expect(r.stdout).toMatch(/^label: Reluy_dim_0 = batch$/m);
  expect(r.stdout).toMatch(/^label: y_dynamic_axes_2 = seq$/m);
  const j = JSON.parse(cli(['-', '--json'], Buffer.from(bytes)).stdout);
  expect(j.constraints.labels).toEqual({ Reluy_dim_0: 'batch', y_dynamic_axes_2: 'seq' });
  expect(j.constraints.equal).toEqual(expect.arrayContaining([['Reluy_dim_0', 'batch'], ['seq', 'y_dynamic_axes_2']]));
});
