// examples/web/sizes_at.js: the demo page's sizes at its bindings, counted in its worker (plain
// data, so it runs in Node too): each row type's dims and bytes agree with result.evaluate at the
// same sizes, derived sizes are given, and sizes the model refuses hide every size that depends on
// them (a weight's fixed size stays) and say why.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { init } from '../../js/index.js';
import { tableRows } from '../../examples/web/table_rows.js';
import { sizeTable, sizesAt } from '../../examples/web/sizes_at.js';
import { REPO } from './helpers.js';

let engine;
beforeAll(async () => {
  engine = await init();
});

/** The table of `result` with one type per row (the worker shares them; one per row is as valid). */
function tableOf(result) {
  const table = sizeTable(result);
  const { rows } = tableRows(result, null);
  for (const [name, type, , , , , , syms] of rows) table.addType(type, syms, name);
  return { table, rows };
}

/** Row k's dims in an answer: numbers, BigInts or null. */
const dimsOf = (a, k) => {
  const out = [];
  const big = new Map(a.big);
  for (let at = a.dimStart[k]; at < a.dimStart[k + 1]; at++) out.push(Number.isNaN(a.dims[at]) ? null : big.get(at) ?? a.dims[at]);
  return out;
};

test('tiny_decoder: every row\'s dims as result.evaluate gives them, total_seq derived, bytes of each', () => {
  const result = engine.inferShapes(readFileSync(join(REPO, 'examples/models/tiny_decoder.onnx')));
  const { table, rows } = tableOf(result);
  const { answer, transfer } = sizesAt(table, new Map([['batch', 2], ['seq', 3], ['past_seq', 5]]));
  expect(transfer).toHaveLength(3);
  expect(answer.issues).toEqual([]);
  expect(answer.derived.map(([k, v]) => [k, v])).toEqual([['total_seq', 8]]);
  const ev = result.evaluate({ batch: 2, seq: 3, past_seq: 5 });
  let checked = 0;
  rows.forEach(([name, type], k) => {
    if (!Object.hasOwn(ev.values, name) || ev.values[name] === null) return;
    expect([name, dimsOf(answer, k)]).toEqual([name, ev.values[name]]);
    const elements = ev.values[name].reduce((a, b) => a * b, 1);
    const width = { float: 4, int64: 8, bool: 1 }[type.elemType];
    if (width) expect([name, answer.bytes[k]]).toEqual([name, elements * width]);
    checked++;
  });
  expect(checked).toBeGreaterThan(10);
  expect(dimsOf(answer, rows.findIndex((r) => r[0] === 'present_key'))).toEqual([2, 4, 8, 16]);
});

test('nothing bound: constant dims only, no expression evaluated into a size', () => {
  const result = engine.inferShapes(readFileSync(join(REPO, 'examples/models/tiny_decoder.onnx')));
  const { table, rows } = tableOf(result);
  const { answer } = sizesAt(table, new Map());
  const k = rows.findIndex((r) => r[0] === 'present_key');
  expect(dimsOf(answer, k)).toEqual([null, 4, null, 16]);
  expect(Number.isNaN(answer.bytes[k])).toBe(true);
});

test('the CNN at H=3: refused, naming conv2\'s requirement; no dim or byte that depends on it, weights keep theirs', () => {
  const result = engine.inferShapes(readFileSync(join(REPO, 'examples/models/cnn_dynamic.onnx')));
  const { table, rows } = tableOf(result);
  const { answer } = sizesAt(table, new Map([['N', 1], ['H', 3], ['W', 3]]));
  expect(answer.issues.length).toBeGreaterThan(0);
  const req = answer.issues.find((q) => q.kind === 'requirement');
  expect(req.requirement.node).toBe('conv2');
  expect(answer.involved).toEqual(expect.arrayContaining(['H']));
  rows.forEach(([name, type, kind], k) => {
    const symbolic = (type.dims ?? []).some((d) => typeof d !== 'number');
    if (symbolic) {
      expect([name, dimsOf(answer, k).every((d) => d === null), Number.isNaN(answer.bytes[k])]).toEqual([name, true, true]);
    } else if (kind === 'weight') {
      expect([name, answer.bytes[k] > 0]).toEqual([name, true]);
    }
  });
});

test('a dim past 2^53 crosses exactly (as a BigInt beside its rounded number)', () => {
  const result = engine.inferShapes(readFileSync(join(REPO, 'examples/models/tiny_decoder.onnx')));
  const { table, rows } = tableOf(result);
  const huge = 2n ** 60n;
  const { answer } = sizesAt(table, new Map([['batch', 1], ['seq', 1], ['past_seq', huge - 1n]]));
  const k = rows.findIndex((r) => r[0] === 'present_key');
  expect(dimsOf(answer, k)).toEqual([1, 4, huge, 16]);
});
