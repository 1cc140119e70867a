// The models of make_facts_models.py (conditions only the model's requirements and sizes decide,
// If branches that cannot run) checked against onnxruntime: every value at two bindings
// (differential.mjs) and the input domain at sizes inside and just outside it (domain_property.mjs).
//
//   node tests/exporters/facts.mjs [-v] [--json] [--regenerate]
//     The models are cached in build/facts-models/<hash of the generators>/ (generated on first
//     use, about 20 s of CPU). --json: { differential, domain } as JSON (what tests/js/facts.test.js
//     reads: onnxruntime-node's tensors cannot cross into Jest's sandbox realm). Exit status 1 when
//     a value is wrong or the domain does not match onnxruntime.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { formatReport, PYTHON, REPO, runDifferential } from './differential.mjs';
import { formatDomainReport, runDomainProperty } from './domain_property.mjs';

const HERE = dirname(fileURLToPath(import.meta.url));
const GENERATOR = join(HERE, 'make_facts_models.py');
const CACHE = join(REPO, 'build', 'facts-models');

/** build/facts-models/<hash>: an edit of a generator (or the bundled CNN) regenerates. */
function cacheDir() {
  const h = createHash('sha256');
  for (const f of [GENERATOR, join(HERE, 'make_models.py'), join(REPO, 'examples', 'models', 'cnn_dynamic.onnx')]) {
    h.update(readFileSync(f));
  }
  return join(CACHE, h.digest('hex').slice(0, 16));
}

export function ensureModels({ regenerate = false } = {}) {
  const dir = cacheDir();
  if (!regenerate && existsSync(join(dir, 'manifest.json'))) return { dir, generatedSeconds: null };
  mkdirSync(CACHE, { recursive: true });
  for (const old of readdirSync(CACHE)) rmSync(join(CACHE, old), { recursive: true, force: true });
  const tmp = `${dir}.tmp-${process.pid}`;
  const t0 = Date.now();
  const r = spawnSync(PYTHON, [GENERATOR, tmp], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, timeout: 900_000 });
  if (r.error || r.status !== 0) {
    rmSync(tmp, { recursive: true, force: true });
    throw new Error(`make_facts_models.py failed (${r.error?.message ?? `exit ${r.status}`}):\n${r.stderr}`);
  }
  renameSync(tmp, dir);
  return { dir, generatedSeconds: (Date.now() - t0) / 1000 };
}

async function main() {
  const args = process.argv.slice(2);
  const { dir, generatedSeconds } = ensureModels({ regenerate: args.includes('--regenerate') });
  const differential = await runDifferential(dir);
  const domain = await runDomainProperty(dir);
  if (args.includes('--json')) {
    console.log(JSON.stringify({ differential, domain, generatedSeconds }));
  } else {
    console.log(formatReport(differential, { verbose: args.includes('-v') }));
    console.log(formatDomainReport(domain));
    console.log(`models in ${dir} (${generatedSeconds === null ? 'cached' : `generated in ${generatedSeconds.toFixed(1)} s`})`);
  }
  process.exit(differential.totals.wrong || domain.problems.length ? 1 : 0);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) await main();
