// Shape checking measured on mutants of the ONNX backend node tests (tests/checking/): each test with
// one dim of one data input changed (d → d+1, 2d, d-1, 1), labelled by onnxruntime-node (labels.jsonl, made
// by `npm run label:mutants`). onnx-shapes must report SHAPE_MISMATCH or INVALID_MODEL on every mutant
// onnxruntime rejects at session creation, on at least as many of all it rejects as the README says
// (15,282 of 15,829), and on no valid mutant and no unmutated backend model. Fails (never skips)
// when the backend data, the labels or onnxruntime-node are absent.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { readLabels } from '../checking/labels_file.mjs';
import { formatReport } from '../checking/measure.mjs';
import { allMutantIds } from '../checking/mutants.mjs';
import { REPO } from './helpers.js';

expect.extend({
  toBeAtLeastCaught(received, floor, summary) {
    return {
      pass: received >= floor,
      message: () => `expected at least ${floor} caught, got ${received}: ${summary}`,
    };
  },
});

describe('shape checking on the backend mutants', () => {
  let labels;
  let report;

  // The measurement runs in a child process: the same work takes about 4x the CPU inside Jest's
  // module sandbox (17k protobuf rewrites and inferences).
  beforeAll(() => {
    labels = readLabels();
    const r = spawnSync(process.execPath, [join(REPO, 'tests/checking/measure.mjs'), '--json'], {
      cwd: REPO,
      encoding: 'utf8',
      maxBuffer: 256 * 1024 * 1024,
      env: { ...process.env, NODE_OPTIONS: '' },
      timeout: 1_500_000,
    });
    if (r.error || r.status !== 0 || !r.stdout.trim()) {
      throw new Error(`measure.mjs failed (${r.error?.message ?? `exit ${r.status}`}):\n${r.stderr}`);
    }
    report = JSON.parse(r.stdout);
    console.log(formatReport(report, { examples: 10 }));
  }, 1_560_000);

  test('the label file lists exactly the generator\'s mutants', () => {
    const stored = labels.tests.flatMap((t) => t.mutants.map((m) => m.id));
    const generated = allMutantIds();
    expect(stored.length).toBe(generated.length);
    expect(stored).toEqual(generated);
    expect(labels.header.mutants).toBe(generated.length);
  });

  // A fixed sample of about 40 tests run again in onnxruntime-node (in a child process: its tensors
  // do not cross into Jest's realm): catches an onnxruntime, generator or classifier change that
  // the stored labels no longer reflect, and fails when onnxruntime-node is missing.
  test('onnxruntime-node still gives the stored labels on a sample', () => {
    const r = spawnSync(process.execPath, [join(REPO, 'tests/checking/label.mjs'), '--check', '40'], {
      cwd: REPO,
      encoding: 'utf8',
      env: { ...process.env, NODE_OPTIONS: '' },
      timeout: 600_000,
    });
    expect(`${r.stdout}${r.stderr}`).toMatch(/label check: \d+ tests, \d+ cases .* 0 differences/);
    expect(r.status).toBe(0);
  }, 120_000);

  test('the measurement has cases of every kind', () => {
    expect(report.counts).toEqual(labels.header.counts);
    expect(report.load.rejected).toBeGreaterThan(1000);
    expect(report.run.rejected).toBeGreaterThan(1000);
    expect(report.counts.valid).toBeGreaterThan(1000);
  });

  // The README's figure, with no margin: the measurement is deterministic (stored labels, an
  // engine without randomness, the same mutants each run), so one mutant fewer is a check that
  // went missing (removing MatMul's inner-dim check alone loses about 220). The 547 left are
  // explained in the README (content the engine cannot know, opset-24 Attention masks); a catch
  // more raises the count, and the README's figure with it.
  const CAUGHT = 15282;
  const REJECTED = 15829;
  test(`onnxruntime's shape rejections: at least ${CAUGHT} of ${REJECTED} caught (96.5%), every one at session creation`, () => {
    const summary = `${report.caught} of ${report.rejected} caught (load ${report.load.caught}/${report.load.rejected}, ` +
      `run ${report.run.caught}/${report.run.rejected}); most missed: ` +
      report.missedByOp.slice(0, 8).map((o) => `${o.op} ${o.missed}/${o.rejected}`).join(', ');
    expect(report.rejected).toBe(REJECTED); // fixed by the stored labels (checked against the generator above)
    expect(report.caught).toBeAtLeastCaught(CAUGHT, summary);
    expect(report.load.caught).toBeAtLeastCaught(report.load.rejected, summary);
  });

  test('no false alarm on a valid mutant', () => {
    expect(report.falseAlarms.filter((f) => f.on === 'valid mutant')).toEqual([]);
  });

  test('no false alarm on an unmutated backend model (rewritten or as shipped)', () => {
    expect(report.falseAlarms.filter((f) => f.on !== 'valid mutant')).toEqual([]);
  });
});
