// The README's table of cost rules is the one the operator tables' last column makes, and every
// rule token in those columns is one the generator (tests/tools/cost_rules.mjs) describes.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { BEGIN, END, costRows, costTable, describe as describeToken } from '../tools/cost_rules.mjs';
import { REPO } from './helpers.js';

test('every row of every operator table has a described cost rule', () => {
  const rows = costRows();
  expect(rows.length).toBeGreaterThan(350);
  const undescribed = rows.filter((r) => !describeToken(r.token)).map((r) => `${r.domain}:${r.op} ${r.token}`);
  expect(undescribed).toEqual([]);
  for (const file of ['op_list_onnx.h', 'op_list_ml.h', 'op_list_training.h', 'op_list_preview.h', 'op_list_contrib.h']) {
    const text = readFileSync(join(REPO, 'src', 'ops', file), 'utf8');
    expect(text.match(/^OSI_OP\(/gm).length).toBe(rows.filter((r) => r.domain === { 'op_list_onnx.h': '', 'op_list_ml.h': 'ai.onnx.ml',
      'op_list_training.h': 'ai.onnx.preview.training', 'op_list_preview.h': 'ai.onnx.preview', 'op_list_contrib.h': 'com.microsoft' }[file]).length);
  }
});

test('README\'s cost rules table is current (node tests/tools/cost_rules.mjs --write)', () => {
  const readme = readFileSync(join(REPO, 'README.md'), 'utf8');
  const a = readme.indexOf(BEGIN), b = readme.indexOf(END);
  expect(a).toBeGreaterThan(0);
  expect(readme.slice(a + BEGIN.length, b).trim()).toBe(costTable());
});
