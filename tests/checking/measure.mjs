#!/usr/bin/env node
// How many of onnxruntime's shape rejections onnx-shapes catches, and whether it flags valid models.
//
//   node tests/checking/measure.mjs [--json] [--gap FILE]
//     prints the report (--json: as JSON); --gap: writes the missed mutants by op, with an example
//     of onnxruntime's message for each, as Markdown to FILE
//
// For every labelled mutant (labels.jsonl, made by label.mjs) the generator rebuilds its model and
// onnx-shapes (js/index.js, the wasm engine) infers it. Caught: a SHAPE_MISMATCH or INVALID_MODEL
// diagnostic, or inferShapes throwing one of those codes. Scored: the rejected-at-load and
// rejected-at-run mutants (caught is good), the valid mutants and every unmutated test, as the
// generator rewrites it and as shipped (caught is a false alarm). 'other' mutants are not scored.
import { writeFileSync } from 'node:fs';
import { init } from '../../js/index.js';
import { readLabels } from './labels_file.mjs';
import { buildCase, enumerateMutants, GENERATOR_VERSION, listTests, loadTest } from './mutants.mjs';

const CAUGHT_CODES = new Set(['SHAPE_MISMATCH', 'INVALID_MODEL']);

/** onnx-shapes on model bytes: { caught, code, message } (message: the first such diagnostic). */
function check(engine, bytes) {
  try {
    const r = engine.inferShapes(bytes);
    const d = r.diagnostics.find((x) => CAUGHT_CODES.has(x.code));
    return d ? { caught: true, code: d.code, message: `${d.opType ?? ''} ${d.node ?? ''}: ${d.message}`.trim() } : { caught: false };
  } catch (e) {
    if (e && CAUGHT_CODES.has(e.code)) return { caught: true, code: e.code, message: `thrown: ${e.message}` };
    return { caught: false, thrown: `${e?.code ?? 'Error'}: ${e?.message ?? e}` };
  }
}

/**
 * The measurement. Throws when the label file does not list exactly the generator's mutants (stale
 * labels: run label.mjs). Returns { tests, mutants, counts, load, run, caught, rejected, caughtShare,
 * caughtOther, falseAlarms: [{ id, on: 'valid mutant'|'unmutated'|'as shipped', op, code, message }],
 * missedByOp: [{ op, missed, rejected, load, run, examples }], thrown, ms }.
 */
export async function measure({ labels = readLabels() } = {}) {
  const t0 = Date.now();
  const cpu0 = process.cpuUsage();
  if (labels.header.generator !== GENERATOR_VERSION) {
    throw new Error(`labels.jsonl was made by generator version ${labels.header.generator}, the generator is ${GENERATOR_VERSION}: run npm run label:mutants`);
  }
  const names = listTests(); // throws when the backend data is absent
  const labelled = labels.tests.map((t) => t.test);
  if (labelled.join(' ') !== names.join(' ')) {
    const missing = names.filter((n) => !labelled.includes(n));
    throw new Error(`labels.jsonl is stale: it labels ${labelled.length} tests, the backend has ${names.length} (unlabelled: ${missing.slice(0, 5).join(', ') || 'none'}); run npm run label:mutants`);
  }
  const engine = await init();
  const counts = { valid: 0, 'rejected-at-load': 0, 'rejected-at-run': 0, other: 0 };
  const load = { rejected: 0, caught: 0 };
  const run = { rejected: 0, caught: 0 };
  const falseAlarms = [];
  const thrown = [];
  const missed = new Map(); // op → { op, rejected, missed, load, run, examples }
  const stale = [];
  let mutantCount = 0;
  let caughtOther = 0;
  for (const entry of labels.tests) {
    const test = loadTest(entry.test);
    const generated = enumerateMutants(test);
    const ids = generated.map((m) => m.id).join(' ');
    if (ids !== entry.mutants.map((m) => m.id).join(' ')) stale.push(entry.test);
    if (stale.length) continue;
    for (const [variant, bytes] of [['unmutated', buildCase(test).model], ['as shipped', test.modelBytes]]) {
      const c = check(engine, bytes);
      if (c.caught) falseAlarms.push({ id: `${entry.test} (${variant})`, on: variant, op: test.op, ...c });
      else if (c.thrown) thrown.push({ id: `${entry.test} (${variant})`, thrown: c.thrown });
    }
    entry.mutants.forEach((labelled, k) => {
      mutantCount++;
      counts[labelled.label]++;
      const m = generated[k];
      const c = check(engine, buildCase(test, m).model);
      if (labelled.label === 'other') {
        if (c.caught) caughtOther++;
        return;
      }
      if (labelled.label === 'valid') {
        if (c.caught) falseAlarms.push({ id: m.id, on: 'valid mutant', op: test.op, ...c });
        else if (c.thrown) thrown.push({ id: m.id, thrown: c.thrown });
        return;
      }
      const stage = labelled.label === 'rejected-at-load' ? load : run;
      stage.rejected++;
      const op = labelled.op ?? test.op;
      if (!missed.has(op)) missed.set(op, { op, rejected: 0, missed: 0, load: 0, run: 0, examples: [] });
      const o = missed.get(op);
      o.rejected++;
      if (c.caught) {
        stage.caught++;
        return;
      }
      o.missed++;
      o[stage === load ? 'load' : 'run']++;
      o.examples.push({
        id: m.id,
        test: m.test,
        input: test.inputs[m.input].name,
        dim: m.dim,
        from: m.from,
        to: m.to,
        stage: labelled.label,
        message: labelled.message,
      });
    });
  }
  if (stale.length) {
    throw new Error(`labels.jsonl is stale: its mutants differ from the generator's for ${stale.length} tests (first: ${stale[0]}); run npm run label:mutants`);
  }
  const rejected = load.rejected + run.rejected;
  const caught = load.caught + run.caught;
  return {
    tests: labels.tests.length,
    mutants: mutantCount,
    counts,
    load,
    run,
    rejected,
    caught,
    caughtShare: rejected ? caught / rejected : 0,
    caughtOther,
    falseAlarms,
    thrown,
    missedByOp: [...missed.values()].filter((o) => o.missed).sort((a, b) => b.missed - a.missed || a.op.localeCompare(b.op)),
    ms: Date.now() - t0,
    cpuMs: (({ user, system }) => Math.round((user + system) / 1000))(process.cpuUsage(cpu0)),
  };
}

const pct = (a, b) => (b ? `${((100 * a) / b).toFixed(1)}%` : '-');

/** The report as text. */
export function formatReport(r, { examples = 40 } = {}) {
  const lines = [
    `shape checking on ${r.mutants} mutants of ${r.tests} backend tests (${r.ms} ms, ${r.cpuMs} ms CPU):`,
    `  labels: ${Object.entries(r.counts).map(([k, v]) => `${k} ${v}`).join(', ')}`,
    `  caught: ${r.caught} / ${r.rejected} rejected by onnxruntime (${pct(r.caught, r.rejected)}); ` +
      `at load ${r.load.caught} / ${r.load.rejected} (${pct(r.load.caught, r.load.rejected)}), ` +
      `at run ${r.run.caught} / ${r.run.rejected} (${pct(r.run.caught, r.run.rejected)})`,
    `  false alarms: ${r.falseAlarms.length} (on ${r.counts.valid} valid mutants and ${r.tests} unmutated tests, rewritten and as shipped)`,
    `  flagged among 'other' (not scored): ${r.caughtOther}; exceptions other than SHAPE_MISMATCH/INVALID_MODEL on valid cases: ${r.thrown.length}`,
  ];
  for (const f of r.falseAlarms.slice(0, 50)) lines.push(`  FALSE ALARM ${f.id} [${f.op}]: ${f.message}`);
  if (r.falseAlarms.length > 50) lines.push(`  ... and ${r.falseAlarms.length - 50} more false alarms`);
  lines.push('  missed by op (missed / rejected):');
  lines.push(`    ${r.missedByOp.map((o) => `${o.op} ${o.missed}/${o.rejected}`).join(', ')}`);
  for (const o of r.missedByOp.slice(0, examples)) {
    const e = o.examples[0];
    lines.push(`    ${o.op}: e.g. ${e.test} ${e.input} dim ${e.dim} ${e.from}→${e.to} (${e.stage}): ${e.message}`);
  }
  return lines.join('\n');
}

/**
 * The missed mutants by op, as Markdown: for every op, onnxruntime's distinct messages (digits
 * folded) with how many missed mutants gave each and one example, and the tests involved.
 */
export function formatGap(r, { patterns = 12 } = {}) {
  const out = [
    '# Shape checking: what onnxruntime rejects and onnx-shapes misses',
    '',
    `Generated by \`node tests/checking/measure.mjs --gap FILE\`: ${r.mutants} mutants of ${r.tests} backend node tests, ` +
      `${r.caught} of ${r.rejected} rejections caught (${pct(r.caught, r.rejected)}; at load ` +
      `${r.load.caught}/${r.load.rejected}, at run ${r.run.caught}/${r.run.rejected}), ${r.falseAlarms.length} false alarms.`,
    '',
    'The op is the one onnxruntime names in its message (else the op the test is about). A mutant',
    'changes one dim of one input (`input dim d: from→to`); the other inputs keep the test data.',
    'Messages are onnxruntime\'s, without its source paths and C++ signatures, cut at 160 characters.',
    '',
    '| op | missed | rejected | missed at load | missed at run |',
    '| --- | ---: | ---: | ---: | ---: |',
    ...r.missedByOp.map((o) => `| ${o.op} | ${o.missed} | ${o.rejected} | ${o.load} | ${o.run} |`),
    '',
  ];
  for (const o of r.missedByOp) {
    out.push(`## ${o.op}: ${o.missed} missed of ${o.rejected} (at load ${o.load}, at run ${o.run})`, '');
    const byPattern = new Map();
    for (const e of o.examples) {
      const key = (e.message ?? '(no message)').replace(/\d+/g, 'N');
      if (!byPattern.has(key)) byPattern.set(key, { count: 0, example: e });
      byPattern.get(key).count++;
    }
    const sorted = [...byPattern.values()].sort((a, b) => b.count - a.count);
    for (const { count, example: e } of sorted.slice(0, patterns)) {
      out.push(`- ${count}× e.g. \`${e.test}\` input \`${e.input}\` dim ${e.dim}: ${e.from}→${e.to} (${e.stage}): ${e.message}`);
    }
    if (sorted.length > patterns) out.push(`- ... ${sorted.length - patterns} more distinct messages`);
    const tests = [...new Set(o.examples.map((e) => e.test))];
    out.push(`- tests (${tests.length}): ${tests.slice(0, 40).join(', ')}${tests.length > 40 ? ', ...' : ''}`, '');
  }
  return `${out.join('\n')}\n`;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const a = process.argv.slice(2);
  const report = await measure();
  if (a.includes('--json')) console.log(JSON.stringify(report, null, 1));
  else console.log(formatReport(report));
  const gi = a.indexOf('--gap');
  if (gi >= 0) writeFileSync(a[gi + 1], formatGap(report));
}
