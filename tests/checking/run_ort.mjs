// Runs test cases (unmutated tests and mutants) in onnxruntime-node, in child processes
// (ort_worker.mjs), each case time-limited; a crash or a timeout costs only that case.
import { fork } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const WORKER = join(dirname(fileURLToPath(import.meta.url)), 'ort_worker.mjs');

/**
 * Runs `tests` (names; with `only`, just the case ids listed) with `jobs` workers, each batch of
 * `batch` tests in one child. Resolves to Map id → { stage: 'ok'|'load'|'run'|'feed'|'crash'|'timeout',
 * error? }. onProgress(done) is called as results come in.
 */
export function runInOrt(tests, { jobs = 2, batch = 40, timeoutMs = 30_000, only = null, onProgress } = {}) {
  const results = new Map();
  const queue = [];
  for (let i = 0; i < tests.length; i += batch) queue.push({ names: tests.slice(i, i + batch), done: [] });
  return new Promise((resolveAll, rejectAll) => {
    let running = 0;
    const startWorker = (work) => {
      running++;
      // Each case has its own limit (arm() below); `timeout` also bounds a worker that never starts one.
      const child = fork(WORKER, [], {
        timeout: (work.names.length + 1) * timeoutMs, killSignal: 'SIGKILL',
        stdio: ['ignore', 'ignore', 'pipe', 'ipc'], execArgv: [],
      });
      let current = null;
      let timer = null;
      let stderr = '';
      let finished = false;
      child.stderr.on('data', (d) => {
        stderr = (stderr + d).slice(-2000);
      });
      const arm = () => {
        clearTimeout(timer);
        timer = setTimeout(() => {
          results.set(current, { stage: 'timeout', error: `no answer within ${timeoutMs} ms` });
          child.kill('SIGKILL');
        }, timeoutMs);
      };
      child.on('message', (msg) => {
        if (msg.start) {
          current = msg.start;
          arm();
        } else if (msg.done) {
          finished = true;
          clearTimeout(timer);
          child.kill();
        } else {
          clearTimeout(timer);
          const { id, ...r } = msg;
          results.set(id, r);
          work.done.push(id);
          current = null;
          onProgress?.(results.size);
        }
      });
      child.on('exit', (code, signal) => {
        clearTimeout(timer);
        running--;
        if (!finished) {
          if (current === null) {
            rejectAll(new Error(`an onnxruntime worker died outside any case (${signal ?? code}): ${stderr}`));
            return;
          }
          if (!results.has(current)) {
            const tail = stderr.trim().split('\n').slice(-1)[0] ?? '';
            results.set(current, { stage: 'crash', error: `onnxruntime exited (${signal ?? code}) ${tail}`.trim() });
          }
          work.done.push(current);
          // Go on with the rest of the batch after the case that brought the child down.
          queue.unshift(work);
        }
        next();
      });
      child.send({ tests: work.names, only, skip: work.done });
    };
    const next = () => {
      while (running < jobs && queue.length) startWorker(queue.shift());
      if (running === 0 && queue.length === 0) resolveAll(results);
    };
    next();
  });
}
