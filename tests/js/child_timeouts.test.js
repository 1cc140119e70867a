// No test can hang on a child process (issue 31): spawnSync and execFileSync block the Jest
// worker's event loop, so Jest's own test timeout cannot end one whose child never exits (the
// FIFO test once waited forever for a writer blocked on a FIFO nobody opened). Every call that
// starts a child process in the test code (tests/, but not tests/bench: benchmarks, which no
// test runs) passes a `timeout` in its options, written at the call: Node kills the child when it
// expires (spawnSync then returns with error ETIMEDOUT). The check reads the call's argument text.
// The limits guard against a hang, they do not measure speed: each is 5 to 10 times what its child
// takes on this 2-core machine under the load of a whole team (a CLI call 300 s, a python3 or
// onnxruntime child 300-900 s, the measurement children 1,500 s). torchvision's 48 exports took
// over 50 minutes on a cold cache under three teams' load: that generator, and the suite's child
// around it, are stopped when they print nothing for 20-25 minutes (tests/tools/run_watched.mjs),
// or after 4-4.5 hours.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { REPO } from './helpers.js';

const CALL = /(?<![.\w$])(spawnSync|execFileSync|execSync|spawn|fork|execFile|exec)\s*\(/g;

function* sources(dir) {
  for (const f of readdirSync(dir).sort()) {
    const p = join(dir, f);
    if (statSync(p).isDirectory()) {
      if (relative(REPO, p) !== join('tests', 'bench')) yield* sources(p);
    } else if (/\.(m|c)?js$/.test(f)) {
      yield p;
    }
  }
}

/** The text of the parenthesised argument list that starts at src[open] ('('). */
function argumentText(src, open) {
  let depth = 0;
  for (let j = open; j < src.length; j++) {
    if (src[j] === '(') depth++;
    else if (src[j] === ')' && --depth === 0) return src.slice(open, j + 1);
  }
  return src.slice(open);
}

/** Every child-process call of the test code: [{ where, fn, limited }]. */
function childCalls() {
  const calls = [];
  for (const file of sources(join(REPO, 'tests'))) {
    const src = readFileSync(file, 'utf8');
    if (!src.includes('node:child_process')) continue;
    for (const m of src.matchAll(CALL)) {
      const args = argumentText(src, m.index + m[0].length - 1);
      calls.push({
        where: `${relative(REPO, file)}:${src.slice(0, m.index).split('\n').length}`,
        fn: m[1],
        limited: /[{,]\s*timeout\s*[:,}]/.test(args),
      });
    }
  }
  return calls;
}

test('every child process a test starts has a timeout', () => {
  const calls = childCalls();
  // The scan sees the calls (the CLI, python3 and onnxruntime children of many suites).
  expect(calls.length).toBeGreaterThan(40);
  expect(calls.filter((c) => !c.limited).map((c) => `${c.where} ${c.fn}(...) has no timeout`)).toEqual([]);
});

test('the scan finds a call without a timeout', () => {
  // The check itself: the same reading on a call written without one, and with one.
  const fn = ['spawn', 'Sync'].join(''); // not a call of this file
  const src = `${fn}('sh', ['-c', 'x'], { encoding: 'utf8' });`;
  const open = fn.length;
  expect(/[{,]\s*timeout\s*[:,}]/.test(argumentText(src, open))).toBe(false);
  const limited = src.replace("{ encoding: 'utf8' }", "{ encoding: 'utf8', timeout: 5000 }");
  expect(/[{,]\s*timeout\s*[:,}]/.test(argumentText(limited, open))).toBe(true);
});
