// The checked-in labels (labels.jsonl): onnxruntime's verdict on every mutant, so the test need not
// run onnxruntime. JSON lines:
//
//   {"format":1,"generator":1,"onnxruntime":"1.30.0",...}     header (the generator version the
//                                                              labels were made with, and counts)
//   ["m","Concat","Non concat axis dimensions must match..."]  message table: the op onnxruntime
//                                                              names ("" when none) and its short
//                                                              message; referred to by position
//   ["t","test_concat_2d_axis_0","V",null,"0:0:3V 0:1:3L5 ..."]  a test: its unmutated label and
//                                                              message, then per mutant
//                                                              "input:dim:newsize" (the mutant's id
//                                                              after the test name), its label and
//                                                              its message when it has one
//
// Labels: V valid, L rejected-at-load, R rejected-at-run, O other (classify.mjs).
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CODE_OF, LABELS } from './classify.mjs';

export const LABELS_PATH = join(dirname(fileURLToPath(import.meta.url)), 'labels.jsonl');
const FORMAT = 1;

/**
 * Writes the labels. tests: [{ test, unmutated: { label, op, message }, mutants: [{ input, dim, to,
 * label, op, message }] }] in generator order; header: extra header fields.
 */
export function writeLabels(tests, header, path = LABELS_PATH) {
  const messages = new Map();
  const ref = (op, message) => {
    if (!message) return null;
    const key = JSON.stringify([op ?? '', message]);
    if (!messages.has(key)) messages.set(key, messages.size);
    return messages.get(key);
  };
  const testLines = tests.map(({ test, unmutated, mutants }) => JSON.stringify([
    't', test, CODE_OF[unmutated.label], ref(unmutated.op, unmutated.message),
    mutants.map((m) => `${m.input}:${m.dim}:${m.to}${CODE_OF[m.label]}${ref(m.op, m.message) ?? ''}`).join(' '),
  ]));
  const lines = [
    JSON.stringify({ format: FORMAT, ...header }),
    ...[...messages.keys()].map((k) => JSON.stringify(['m', ...JSON.parse(k)])),
    ...testLines,
  ];
  writeFileSync(path, `${lines.join('\n')}\n`);
}

/**
 * Reads the labels: { header, tests: [{ test, unmutated: { label, op, message }, mutants: [{ id,
 * input, dim, to, label, op, message }] }] } (op and message null when onnxruntime gave none).
 */
export function readLabels(path = LABELS_PATH) {
  const lines = readFileSync(path, 'utf8').split('\n').filter(Boolean);
  const header = JSON.parse(lines[0]);
  if (header.format !== FORMAT) throw new Error(`${path}: format ${header.format}, expected ${FORMAT}`);
  const messages = [];
  const tests = [];
  const msg = (i) => (i === null || i === undefined ? { op: null, message: null } : messages[i]);
  for (const line of lines.slice(1)) {
    const row = JSON.parse(line);
    if (row[0] === 'm') {
      messages.push({ op: row[1] || null, message: row[2] });
    } else if (row[0] === 't') {
      const [, test, code, m, mutants] = row;
      tests.push({
        test,
        unmutated: { label: LABELS[code], ...msg(m) },
        mutants: mutants.split(' ').filter(Boolean).map((cell) => {
          const [, input, dim, to, c, mm] = /^(\d+):(\d+):(\d+)([VLRO])(\d*)$/.exec(cell) ?? [];
          if (!c) throw new Error(`${path}: bad mutant cell ${cell} of ${test}`);
          return {
            id: `${test}:${input}:${dim}:${to}`,
            input: Number(input),
            dim: Number(dim),
            to: Number(to),
            label: LABELS[c],
            ...msg(mm === '' ? null : Number(mm)),
          };
        }),
      });
    }
  }
  return { header, tests };
}
