// What the model needs to run, used as facts (README "Where the model runs"), against onnxruntime:
// the models of tests/exporters/make_facts_models.py (torchaudio's wav2vec2 with a lengths input,
// torch's expand/repeat/view and slice idioms over computed sizes, Silero-like graphs whose If
// branches differ in rank, the bundled CNN) inferred by onnx-shapes and run by onnxruntime-node:
// every value at two bindings, and the domain at sizes inside it (onnxruntime runs) and just outside
// (onnxruntime fails, and result.evaluate names the requirement). The models are cached in
// build/facts-models/ (tests/exporters/facts.mjs). Needs python3-torch, python3-torchaudio,
// python3-onnx and onnxruntime-node, installed by .ci/setup.sh: without them it fails.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { formatReport, unavailableReason } from '../exporters/differential.mjs';
import { formatDomainReport } from '../exporters/domain_property.mjs';
import { REPO } from './helpers.js';

const MODELS = ['wav2vec2_lengths_op14', 'idioms_op13', 'idioms_op17', 'silero_pt2_op17', 'silero_pt2_nested_op17',
  'silero_v5_like_op17', 'cnn_dynamic', 'tiny_pools_op17'];

let report;
const byName = (name) => report.differential.models.find((m) => m.name === name);

beforeAll(() => {
  const why = unavailableReason();
  if (why) throw new Error(`the facts check cannot run here: ${why}`);
  const r = spawnSync(process.execPath, [join(REPO, 'tests/exporters/facts.mjs'), '--json'], {
    cwd: REPO,
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
    env: { ...process.env, NODE_OPTIONS: '' },
    timeout: 900_000,
  });
  if (r.error || r.status > 1 || !r.stdout.trim()) {
    throw new Error(`facts.mjs failed (${r.error?.message ?? `exit ${r.status}`}):\n${r.stderr}`);
  }
  report = JSON.parse(r.stdout);
  console.log(`${formatReport(report.differential)}\n${formatDomainReport(report.domain)}`);
}, 960_000);

test('the generator wrote every model', () => {
  expect(report.differential.models.map((m) => m.name).sort()).toEqual([...MODELS].sort());
});

test.each(MODELS)('%s: every value is exact against onnxruntime at both bindings', (name) => {
  const m = byName(name);
  expect(m.details.wrong).toEqual([]);
  expect(m.details.unresolved).toEqual([]);
  expect(m.constraintViolations).toEqual([]);
  expect(m.exact).toBe(m.values);
});

test('the domain is the one stated by hand, onnxruntime runs inside it and fails just outside, where evaluate names the requirement', () => {
  expect(report.domain.problems).toEqual([]);
  const symbols = Object.fromEntries(report.domain.models.flatMap((m) => Object.entries(m.symbols).map(([s, row]) => [`${m.name} ${s}`, row])));
  expect(symbols['silero_pt2_op17 samples'].range).toEqual({ min: 192, max: 703 });
  // pytorch 2.3's nesting: the consumer that rules the unsqueezed branch out is inside a branch the
  // sizes take (README "Where the model runs").
  expect(symbols['silero_pt2_nested_op17 samples'].range).toEqual({ min: 192, max: 703 });
  expect(symbols['cnn_dynamic H'].range).toEqual({ min: 11 });
  expect(symbols['idioms_op17 time'].range).toEqual({ min: 5 });
  // Pools whose window overhangs a tiny input: onnxruntime rounds the span toward zero and runs
  // while no output size is negative (README "Windows over tiny inputs"); the floor rule said 2, 10.
  expect(symbols['tiny_pools_op17 H'].range).toEqual({ min: 1 });
  expect(symbols['tiny_pools_op17 W'].range).toEqual({ min: 4 });
  for (const row of Object.values(symbols)) {
    expect(row.inside.length).toBeGreaterThanOrEqual(3);
    expect(row.inside.every((x) => x.runs)).toBe(true);
    expect(row.outside.length).toBeGreaterThanOrEqual(1);
    for (const o of row.outside) {
      expect(o.runs).toBe(false);
      expect(o.requirement).toMatch(/ requires /);
    }
  }
  // wav2vec2: sizes within time's range where the encoder's mask does not broadcast (T neither 1
  // nor 16): onnxruntime fails at that Where, and evaluate names it.
  const wav = report.domain.models.find((m) => m.name === 'wav2vec2_lengths_op14');
  expect(wav.impossible.map((x) => x.sizes.time)).toEqual([1000, 8000]);
  for (const x of wav.impossible) {
    expect(x.runs).toBe(false);
    expect(x.ortError).toMatch(/\/encoder\/Where_1/);
    expect(x.requirement).toMatch(/^node \d+ '\/encoder\/Where_1' \(Where\) requires \(time\+240\)\/\/320-1 == 1 or \(time\+240\)\/\/320-1 == 16, but at these sizes \(time\+240\)\/\/320-1 is \d+$/);
  }
  // Silero: below, the encoder's window; above, the If that needs one frame left.
  const silero = symbols['silero_pt2_op17 samples'].outside;
  expect(silero.map((o) => o.size)).toEqual([191, 704]);
  expect(silero[0].requirement).toMatch(/^node \d+ \(Conv\) requires 192 <= samples/);
  expect(silero[1].requirement).toMatch(/^node 6 \(If\) requires \(samples\+320\)\/\/512 <= 1, but at these sizes \(samples\+320\)\/\/512 is 2 and 1 is 1/);
});
