// Runs every package test (tests/package/*.test.mjs) in its own node process, even after a
// failure, and ends with the sum: "N passed, N failed" (exit 1 if any check or script failed).
//
//   node tests/package/run.mjs [name ...]     (npm run test:package; names: pack vite worker examples)
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = dirname(fileURLToPath(import.meta.url));
const wanted = process.argv.slice(2);
const scripts = readdirSync(HERE).filter((f) => f.endsWith('.test.mjs'))
  .filter((f) => wanted.length === 0 || wanted.includes(f.replace('.test.mjs', ''))).sort();
let passed = 0;
let failed = 0;
for (const script of scripts) {
  console.log(`\n== tests/package/${script}`);
  const t0 = Date.now();
  const r = spawnSync(process.execPath, [join(HERE, script)], { stdio: ['ignore', 'pipe', 'inherit'], encoding: 'utf8', timeout: 600_000, killSignal: 'SIGKILL' });
  process.stdout.write(r.stdout ?? '');
  const m = /^(\d+) passed, (\d+) failed(?:, (\d+) skipped)?$/m.exec(r.stdout ?? '');
  if (m) {
    passed += Number(m[1]);
    failed += Number(m[2]) + Number(m[3] ?? 0); // a skipped check counts as failed
  }
  if (!m || (r.status !== 0 && Number(m[2]) === 0)) failed++; // no summary, or crashed before or after its checks
  console.log(`== ${script}: exit ${r.status ?? r.signal}, ${((Date.now() - t0) / 1000).toFixed(1)} s`);
}
console.log(`\n${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
