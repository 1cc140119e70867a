// The planted bugs of tests/tools/planted_bugs.mjs (issue 31) are edits of exact source text, and the
// tool takes about an hour, so it is not part of CI. When the code a bug plants into is moved or
// rewritten, the bug goes stale and only that hour-long run would say so; this check says it at once:
// every bug's text is found exactly once in the file it names.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO } from './helpers.js';
import { BUGS } from '../tools/planted_bugs.mjs';

const count = (text, part) => text.split(part).length - 1;

test('the audit\'s planted bugs are all there: thirteen edits', () => {
  expect(BUGS.length).toBe(13);
  expect(new Set(BUGS.map((b) => b.id)).size).toBe(BUGS.length);
});

test.each(BUGS.map((b) => [b.id, b]))('planted bug %s: its text is found exactly once', (_id, bug) => {
  const [file, from, to] = bug.edit;
  expect(from).not.toBe(to);
  expect(count(readFileSync(join(REPO, file), 'utf8'), from)).toBe(1);
});
