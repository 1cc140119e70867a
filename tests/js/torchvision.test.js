// torchvision's own models (classification, segmentation, detection, video, optical flow; random
// weights, small widths), exported by torch.onnx 1.13 at opsets 13/16/17 with dynamic sizes given as
// dict- and list-form dynamic_axes (tests/exporters/make_torchvision.py), inferred by onnx-shapes and
// run by onnxruntime-node at two bindings of odd sizes with every intermediate exposed
// (tests/exporters/torchvision.mjs). Needs python3-torchvision, python3-torch, python3-onnx
// (/usr/bin/python3) and onnxruntime-node, all installed by .ci/setup.sh: without them it fails.
// The models are cached in build/torchvision/<hash of the generators>; a cold run generates them
// first (about a minute on a quiet machine; over 50 minutes under three teams' load).
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { firstOffenders, formatReport, unavailableReason } from '../exporters/torchvision.mjs';
import { runWatched } from '../tools/run_watched.mjs';
import { REPO } from './helpers.js';

const FAMILIES = ['classification', 'segmentation', 'detection', 'video', 'optical_flow'];
const pct = (a, b) => (b ? (100 * a) / b : 100);

describe('torchvision models against onnxruntime', () => {
  let report;
  let t;
  // The first offending values of a kind, one compact line each.
  const offenders = (pred, n = 15) => firstOffenders({ models: report.models.map((m) => ({ ...m, gaps: m.gaps.filter(pred) })) }, n);

  // In a child process: onnxruntime-node's output tensors fail Float32Array instanceof checks in
  // Jest's sandbox realm.
  // The child generates the models first when they are not cached (a minute on a quiet machine,
  // over 50 minutes under three teams' load): it is stopped when it prints nothing for 25 minutes
  // (the generator prints a line per model), or after 4.5 hours.
  beforeAll(async () => {
    const why = unavailableReason();
    if (why) {
      throw new Error(`the torchvision differential cannot run here: ${why} ` +
        '(bash .ci/setup.sh installs python3-torchvision, python3-torch, python3-onnx and onnxruntime-node)');
    }
    const r = await runWatched(process.execPath, [join(REPO, 'tests/exporters/torchvision.mjs'), '--json'], {
      cwd: REPO,
      env: { ...process.env, NODE_OPTIONS: '' },
      idleMs: 1_500_000,
      timeout: 16_200_000,
    });
    if (r.error || r.status > 1 || !r.stdout.trim()) {
      throw new Error(`torchvision.mjs failed (${r.error?.message ?? `exit ${r.status}`}):\n${r.stderr}`);
    }
    report = JSON.parse(r.stdout);
    t = report.totals;
    console.log(`${formatReport(report)}\n(generation: ${report.timing.generatedSeconds ?? 'cached'} s, check: ${report.timing.checkSeconds} s)`);
  }, 16_300_000);

  test('every family is there at opsets 13 (16 for RAFT) and 17, with dict- and list-form axes, and runs at both bindings', () => {
    assert.deepEqual(t.errors, []);
    for (const family of FAMILIES) {
      const ms = report.models.filter((m) => m.family === family);
      assert.deepEqual([...new Set(ms.map((m) => m.axes))].sort(), ['dict', 'list'], family);
      assert.ok(ms.some((m) => m.opset === 17), `${family} at opset 17`);
      assert.ok(ms.some((m) => m.opset === (family === 'optical_flow' ? 16 : 13)), `${family} at opset 13/16`);
    }
    // 48 exports; the count of values is fixed by the generator (seeded, torch and torchvision from
    // Debian): a floor with no margin (fewer means a model or its values went missing).
    assert.equal(t.models, 48, `${t.models} models`);
    assert.ok(t.values >= 31577, `${t.values} values compared, the README says 31,577`);
  });

  test('no inferred dim differs from the runtime, no constraint is violated', () => {
    assert.deepEqual(offenders((g) => g.verdict === 'wrong'), []);
    assert.deepEqual(t.constraintViolations.slice(0, 15), []);
    assert.equal(t.wrong, 0);
  });

  // The README's claims are "every": tested as every (8,291 of 8,291 and 21,105 of 21,105 when written).
  test('every size-dependent value exact', () => {
    const s = t.sizeDependent;
    assert.ok(s.values >= 8291, `${s.values} size-dependent values, the README says 8,291`);
    assert.ok(s.exact === s.values,
      `${s.exact} / ${s.values} size-dependent values exact (${pct(s.exact, s.values).toFixed(1)}%); first:\n` +
      offenders((g) => g.kind === 'size-dependent').join('\n'));
  });

  test('every value whose size is the same at both bindings exact (constant arithmetic folds)', () => {
    const s = t.static;
    assert.ok(s.values >= 21105, `${s.values} static values, the README says 21,105`);
    assert.ok(s.exact === s.values,
      `${s.exact} / ${s.values} static values exact (${pct(s.exact, s.values).toFixed(1)}%); first:\n` +
      offenders((g) => g.kind === 'static').join('\n'));
  });

  test('every data-dependent value is exact or has a fresh symbol with a <= bound', () => {
    const d = t.dataDependent;
    // Which values depend on the data is read from the graph (not the engine): a floor with no
    // margin. Exact ones are a floor too (the engine may come to know more of them exactly).
    assert.ok(d.values >= 2181, `${d.values} data-dependent values, the README says 2,181`);
    assert.ok(d.exact >= 12, `${d.exact} data-dependent values exact, the README says 12`);
    assert.equal(d.unresolved, 0, `${d.unresolved} of ${d.values} data-dependent values have an unknown dim or a ` +
      `symbol without a <= bound; first:\n${offenders((g) => g.kind === 'data-dependent').join('\n')}`);
  });

  test("no dim prints '+-' or is over 80 characters (the README: the longest 78)", () => {
    const r = t.readability;
    const examples = (k) => report.models.flatMap((m) => m.readability.examples[k].map((e) => `${m.name} ${e.value}: ${e.dim}`)).slice(0, 8);
    assert.equal(r.plusMinus, 0, `${r.plusMinus} of ${r.symbolic} symbolic dims print '+-':\n${examples('plusMinus').join('\n')}`);
    assert.equal(r.over80, 0, `${r.over80} of ${r.symbolic} symbolic dims are over 80 characters ` +
      `(${pct(r.over80, r.symbolic).toFixed(1)}%):\n${examples('over80').join('\n')}`);
    assert.equal(r.over200, 0, `${r.over200} symbolic dims are over 200 characters; the longest (${r.longest?.length}): ` +
      `${r.longest?.model} ${r.longest?.value}: ${r.longest?.dim}`);
  });
});
