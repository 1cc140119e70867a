// Sliding windows over tiny inputs against onnxruntime (README "Windows over tiny inputs"):
// tests/exporters/windows.mjs writes 2,370 one-node pools and convolutions of every mode and runs
// them at sizes 0..7 (batch 1 and 0); the engine's size (result.evaluate on the symbolic model,
// and the model with the size written in) must be onnxruntime's wherever it runs, and no binding
// onnxruntime runs may be refused.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { unavailableReason } from '../exporters/differential.mjs';
import { REPO } from './helpers.js';

let out;
beforeAll(() => {
  const why = unavailableReason();
  if (why) throw new Error(`the windows check cannot run here: ${why}`);
  const r = spawnSync(process.execPath, [join(REPO, 'tests/exporters/windows.mjs'), '--json'], {
    cwd: REPO, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, env: { ...process.env, NODE_OPTIONS: '' }, timeout: 600_000,
  });
  if (r.error || r.status > 1 || !r.stdout.trim()) {
    throw new Error(`windows.mjs failed (${r.error?.message ?? `exit ${r.status}`}):\n${r.stderr.slice(-4000)}`);
  }
  out = JSON.parse(r.stdout);
}, 660_000);

test('every size onnxruntime gives on a symbolic input is the engine\'s, and none it runs is refused', () => {
  expect(out.problems.filter((p) => !p.includes('(constant)'))).toEqual([]);
  expect(out.totals.wrong).toBe(0);
  expect(out.totals.falseAlarm).toBe(0);
  expect(out.totals.exact).toBe(out.totals.ortRuns);
  expect(out.totals.ortRuns).toBeGreaterThan(25000);
});

test('the same with the size written into the model', () => {
  expect(out.problems).toEqual([]);
  expect(out.constant.wrong).toBe(0);
  expect(out.constant.falseAlarm).toBe(0);
  expect(out.constant.exact).toBeGreaterThan(13000);
});

test('onnxruntime refuses a window\'s input by a rule the engine states', () => {
  // Every refusal but onnxruntime's two unmodelled ones (a SAME convolution with dilation, a SAME
  // Max/AveragePool whose pad comes out negative at some sizes) is a requirement the engine names.
  expect(Object.keys(out.missedBy).sort()).toEqual(['SAME conv with dilation', 'SAME pool, negative pad']);
  expect(out.totals.refused).toBeGreaterThan(5000);
});
