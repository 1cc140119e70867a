// The README's operator coverage table is generated from the operator tables; it must be current.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { BEGIN, END, coverageTable } from '../tools/op_coverage.mjs';
import { REPO, sharedPath } from './helpers.js';

test('README coverage table matches the operator tables', () => {
  sharedPath('onnx-spec', 'Operators.md'); // the spec the table counts from must be there
  const readme = readFileSync(join(REPO, 'README.md'), 'utf8');
  const table = readme.slice(readme.indexOf(BEGIN) + BEGIN.length, readme.indexOf(END)).trim();
  expect(table).toBe(coverageTable());
  // Every ai.onnx operator of the spec has a shape rule.
  expect(table).toMatch(/\| `ai\.onnx` \| (\d+) \| \1 \| 100\.0% \|/);
});
