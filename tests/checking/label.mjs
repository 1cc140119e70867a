#!/usr/bin/env node
// Labels every shape-checking mutant with onnxruntime-node (CPU) and writes labels.jsonl.
//
//   node tests/checking/label.mjs [--jobs N] [--raw FILE]   (npm run label:mutants)
//       run every test's unmutated case and mutants, write tests/checking/labels.jsonl;
//       --raw: also write onnxruntime's full answers ({ id: { stage, error } }) to FILE
//   node tests/checking/label.mjs --check [N]
//       run about N tests (default 40, a fixed sample across the list) again and compare their labels
//       with labels.jsonl: exit 1 on any difference (a changed onnxruntime, generator or classifier)
//
// Needs ../shared/onnx-backend/node (or OSI_SHARED_DIR) and onnxruntime-node; fails without them.
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { classify, NON_SHAPE_PATTERNS, opInMessage, shortMessage } from './classify.mjs';
import { readLabels, writeLabels, LABELS_PATH } from './labels_file.mjs';
import { enumerateMutants, GENERATOR_VERSION, listTests, loadTest } from './mutants.mjs';
import { runInOrt } from './run_ort.mjs';

const require = createRequire(import.meta.url);
const ORT_VERSION = require('onnxruntime-node/package.json').version;

/** Labels of `tests` from onnxruntime's answers, in the labels-file shape (labels_file.mjs). */
function labelTests(tests, answers) {
  return tests.map((name) => {
    const un = answers.get(name);
    const entry = (answer, unmutated) => ({
      label: classify(answer, unmutated),
      op: answer.error ? opInMessage(answer.error) : null,
      message: answer.error ? shortMessage(answer.error) : null,
    });
    return {
      test: name,
      unmutated: entry(un, null),
      mutants: enumerateMutants(loadTest(name)).map((m) => ({
        input: m.input, dim: m.dim, to: m.to, ...entry(answers.get(m.id), un),
      })),
    };
  });
}

function args() {
  const a = process.argv.slice(2);
  const opt = (name, dflt) => {
    const i = a.indexOf(name);
    return i < 0 ? dflt : a[i + 1];
  };
  return { check: a.includes('--check'), n: Number(a[a.indexOf('--check') + 1]) || 40, jobs: Number(opt('--jobs', 2)), raw: opt('--raw', null) };
}

async function main() {
  const { check, n, jobs, raw } = args();
  const all = listTests();
  const t0 = Date.now();
  if (check) {
    const step = Math.max(1, Math.floor(all.length / n));
    const sample = all.filter((_, i) => i % step === 0);
    const answers = await runInOrt(sample, { jobs });
    const fresh = labelTests(sample, answers);
    const stored = new Map(readLabels().tests.map((t) => [t.test, t]));
    const diffs = [];
    for (const t of fresh) {
      const s = stored.get(t.test);
      if (!s) {
        diffs.push(`${t.test}: not in ${LABELS_PATH}`);
        continue;
      }
      if (s.unmutated.label !== t.unmutated.label) diffs.push(`${t.test}: ${s.unmutated.label} → ${t.unmutated.label}`);
      const old = new Map(s.mutants.map((m) => [m.id, m.label]));
      for (const m of t.mutants) {
        const id = `${t.test}:${m.input}:${m.dim}:${m.to}`;
        if (old.get(id) !== m.label) diffs.push(`${id}: ${old.get(id) ?? 'absent'} → ${m.label} ${m.message ?? ''}`);
      }
      if (old.size !== t.mutants.length) diffs.push(`${t.test}: ${old.size} stored mutants, ${t.mutants.length} generated`);
    }
    const cases = fresh.reduce((k, t) => k + 1 + t.mutants.length, 0);
    console.log(`label check: ${sample.length} tests, ${cases} cases run in onnxruntime ${ORT_VERSION} in ${Date.now() - t0} ms, ${diffs.length} differences`);
    for (const d of diffs.slice(0, 50)) console.log(`  ${d}`);
    process.exit(diffs.length ? 1 : 0);
  }
  let last = 0;
  const answers = await runInOrt(all, {
    jobs,
    onProgress: (done) => {
      if (done - last >= 2000) {
        last = done;
        console.error(`  ${done} cases answered (${((Date.now() - t0) / 1000).toFixed(0)} s)`);
      }
    },
  });
  const tests = labelTests(all, answers);
  const counts = {};
  for (const t of tests) for (const m of t.mutants) counts[m.label] = (counts[m.label] ?? 0) + 1;
  const unmutated = {};
  for (const t of tests) unmutated[t.unmutated.label] = (unmutated[t.unmutated.label] ?? 0) + 1;
  const seconds = Math.round((Date.now() - t0) / 1000);
  writeLabels(tests, {
    generator: GENERATOR_VERSION,
    onnxruntime: ORT_VERSION,
    session: 'onnxruntime-node, CPU EP, graphOptimizationLevel disabled, 1 thread',
    tests: tests.length,
    mutants: tests.reduce((k, t) => k + t.mutants.length, 0),
    counts,
    unmutated,
    nonShapePatterns: NON_SHAPE_PATTERNS.map(String),
  });
  if (raw) writeFileSync(raw, JSON.stringify(Object.fromEntries(answers)));
  console.log(`labelled ${tests.length} tests: mutants ${JSON.stringify(counts)}, unmutated ${JSON.stringify(unmutated)}; ${seconds} s with ${jobs} jobs → ${LABELS_PATH}`);
}

main().catch((e) => {
  console.error(e);
  process.exit(2);
});
