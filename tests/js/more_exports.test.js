// Real exports nobody here wrote the engine against, checked against onnxruntime and PyTorch's
// profiler (README "How good it is"): the CI set of tests/exporters/make_more_exports.py (torch 1.13
// exports of shape, sequence and signal idioms, LLM idioms, torchaudio's Conformer, ConvTasNet,
// DeepSpeech and Tacotron2 parts, at opsets 11 to 17 with dict, list and inputs-only dynamic axes,
// and two exports onnxruntime refuses at other sizes), cached in build/more-exports-ci/. Every value
// exact or a data-dependent size with a bound at two bindings, no false alarm (diagnostics, the
// domain's edges, result.evaluate), every binding onnxruntime refuses refused by result.evaluate
// too, and the MACs of Conv/ConvTranspose/MatMul/Gemm/LSTM/GRU/RNN equal to the profiler's. Needs
// python3-torch, python3-torchaudio, python3-onnx and onnxruntime-node (.ci/setup.sh).
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { unavailableReason } from '../exporters/differential.mjs';
import { REPO } from './helpers.js';

let out;
beforeAll(() => {
  const why = unavailableReason();
  if (why) throw new Error(`the export check cannot run here: ${why}`);
  const r = spawnSync(process.execPath, [join(REPO, 'tests/exporters/more_exports.mjs'), '--ci', '--json'], {
    cwd: REPO, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024, env: { ...process.env, NODE_OPTIONS: '' }, timeout: 900_000,
  });
  if (r.error || r.status > 1 || !r.stdout.trim()) {
    throw new Error(`more_exports.mjs failed (${r.error?.message ?? `exit ${r.status}`}):\n${r.stderr.slice(-4000)}`);
  }
  out = JSON.parse(r.stdout);
  console.log(out.text);
}, 960_000);

test('every model of the CI set was exported and checked', () => {
  expect(out.summary.failedExports).toBe(0);
  expect(out.models.length).toBe(14);
  expect(out.summary.errors.filter((e) => !e.startsWith('broken_'))).toEqual([]);
});

test('no value is wrong, every other one is exact or a data-dependent size with a bound', () => {
  expect(out.models.filter((m) => m.wrong)).toEqual([]);
  expect(out.models.filter((m) => m.unresolved)).toEqual([]);
  expect(out.summary.exact + out.summary.bounded).toBe(out.summary.values);
  expect(out.summary.values).toBeGreaterThan(2000);
});

test('no false alarm; every binding onnxruntime refuses is refused by the engine too', () => {
  expect(out.summary.falseAlarms).toBe(0);
  expect(out.summary.brokenBindings).toBe(4); // the two broken exports, at both bindings
  expect(out.summary.brokenCaught).toBe(out.summary.brokenBindings);
  expect(out.summary.edges).toBeGreaterThan(0);
});

test('the MACs equal what PyTorch\'s profiler counts', () => {
  expect(out.summary.macCases).toBeGreaterThanOrEqual(16);
  expect(out.summary.macBad).toBe(0);
});
