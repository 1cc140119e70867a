// The input domain (result.domain, result.evaluate) against onnxruntime.
//
//   node tests/exporters/domain_property.mjs [--json] DIR
//     DIR: models from make_facts_models.py (manifest.json). For every entry with `vary`, each of
//     those symbols is moved while the others keep the first binding's sizes:
//       - the engine's range of it must be the one stated by hand (`domain`), when one is;
//       - at random sizes inside the range (its ends included), onnxruntime runs the model, and
//         result.evaluate gives the graph outputs' dims onnxruntime gives;
//       - just outside (min-1, max+1), onnxruntime fails, and result.evaluate throws a
//         RequirementError naming the relation the size breaks.
//     Each `impossible` binding (inside the ranges, breaking a relation): onnxruntime fails, and
//     result.evaluate throws a RequirementError naming the relation.
//     Exit status 1 when one of those does not hold; --json: the report as JSON.
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { makeFeeds, readManifest, REPO, rng } from './differential.mjs';

const require = createRequire(import.meta.url);

/** onnxruntime at these sizes: { runs: true, dims: { output: [...] } } or { runs: false, error }. */
async function ortAt(ort, session, entry, env, rand) {
  try {
    const feeds = makeFeeds(ort, entry.inputs, env, rand);
    const out = await session.run(feeds);
    return { runs: true, dims: Object.fromEntries(Object.entries(out).map(([k, t]) => [k, t.dims.map(Number)])) };
  } catch (err) {
    return { runs: false, error: String(err.message ?? err).split('\n')[0].slice(0, 200) };
  }
}

/** Sizes to try inside [min, max]: both ends and `n` random ones (a span of 64 past min when there is no max). */
function insideSizes(range, n, rand) {
  const hi = range.max ?? range.min + 64;
  const sizes = new Set([range.min, hi]);
  while (sizes.size < Math.min(n + 2, hi - range.min + 1)) sizes.add(range.min + Math.floor(rand() * (hi - range.min + 1)));
  return [...sizes].sort((a, b) => a - b);
}

export async function runDomainProperty(dir, { engine, ort, samples = 6, seed = 7 } = {}) {
  engine ??= await (await import(pathToFileURL(join(REPO, 'js/index.js')).href)).init();
  ort ??= require('onnxruntime-node');
  const { RequirementError } = await import(pathToFileURL(join(REPO, 'js/index.js')).href);
  const rand = rng(seed);
  const models = [];
  for (const entry of readManifest(dir)) {
    if (!entry.vary && !entry.impossible) continue;
    const result = engine.inferShapes(readFileSync(join(dir, entry.file)));
    const session = await ort.InferenceSession.create(join(dir, entry.file));
    const report = { name: entry.name, symbols: {}, impossible: [], problems: [] };
    const problem = (text) => report.problems.push(text);
    for (const env of entry.impossible ?? []) {
      const rt = await ortAt(ort, session, entry, env, rand);
      let named = null;
      try {
        result.evaluate(env);
        problem(`${JSON.stringify(env)} (impossible): evaluate does not throw`);
      } catch (err) {
        if (err instanceof RequirementError) named = err.message;
        else problem(`${JSON.stringify(env)} (impossible): evaluate throws ${err.name}: ${err.message}`);
      }
      report.impossible.push({ sizes: env, runs: rt.runs, requirement: named, ortError: rt.error ?? null });
      if (rt.runs) problem(`${JSON.stringify(env)} (impossible): onnxruntime runs the model`);
    }
    for (const s of entry.vary ?? []) {
      const range = result.domain.symbols[s];
      const row = { range: range ? { min: range.min, max: range.max } : null, inside: [], outside: [] };
      report.symbols[s] = row;
      if (!range) {
        problem(`${s}: no range in result.domain`);
        continue;
      }
      const want = entry.domain?.[s];
      if (want && (want.min !== range.min || want.max !== range.max)) {
        problem(`${s}: the domain says [${range.min}, ${range.max ?? '∞'}], by hand [${want.min}, ${want.max ?? '∞'}]`);
      }
      for (const v of insideSizes(range, samples, rand)) {
        const env = { ...entry.bindings[0], [s]: v };
        const rt = await ortAt(ort, session, entry, env, rand);
        let ev = null;
        try {
          ev = result.evaluate(env);
        } catch (err) {
          problem(`${s} = ${v} (inside): evaluate throws ${err.name}: ${err.message}`);
        }
        row.inside.push({ size: v, runs: rt.runs });
        if (!rt.runs) problem(`${s} = ${v} (inside): onnxruntime fails: ${rt.error}`);
        else if (ev) {
          for (const [name, dims] of Object.entries(rt.dims)) {
            if (JSON.stringify(ev.values[name]) !== JSON.stringify(dims)) {
              problem(`${s} = ${v}: ${name} is ${JSON.stringify(ev.values[name])}, onnxruntime ${JSON.stringify(dims)}`);
            }
          }
        }
      }
      const outside = [range.min - 1, ...(range.max !== undefined ? [range.max + 1] : [])].filter((v) => v >= 0);
      for (const v of outside) {
        const env = { ...entry.bindings[0], [s]: v };
        const rt = await ortAt(ort, session, entry, env, rand);
        let named = null;
        try {
          result.evaluate(env);
          problem(`${s} = ${v} (outside): evaluate does not throw`);
        } catch (err) {
          if (err instanceof RequirementError) named = err.message;
          else problem(`${s} = ${v} (outside): evaluate throws ${err.name}: ${err.message}`);
        }
        row.outside.push({ size: v, runs: rt.runs, requirement: named, ortError: rt.error ?? null });
        // A size the engine rules out where onnxruntime runs would be an assumption that fails a valid size.
        if (rt.runs) problem(`${s} = ${v} (outside): onnxruntime runs the model`);
      }
    }
    models.push(report);
  }
  return { models, problems: models.flatMap((m) => m.problems.map((p) => `${m.name}: ${p}`)) };
}

export function formatDomainReport({ models }) {
  const lines = [];
  for (const m of models) {
    for (const [s, row] of Object.entries(m.symbols)) {
      const r = row.range ? `[${row.range.min}, ${row.range.max ?? '∞'}]` : 'none';
      const inside = row.inside.filter((x) => x.runs).length;
      lines.push(`${m.name} ${s} in ${r}: onnxruntime runs ${inside}/${row.inside.length} sizes inside; outside: ${row.outside
        .map((o) => `${o.size} ${o.runs ? 'RUNS' : 'fails'}${o.requirement ? ` (engine: ${o.requirement})` : ''}`).join('; ')}`);
    }
    for (const x of m.impossible ?? []) {
      lines.push(`${m.name} at ${JSON.stringify(x.sizes)}: onnxruntime ${x.runs ? 'RUNS' : 'fails'}${x.requirement ? ` (engine: ${x.requirement})` : ''}`);
    }
    for (const p of m.problems) lines.push(`  problem: ${p}`);
  }
  return lines.join('\n');
}

async function main() {
  const args = process.argv.slice(2);
  const json = args.includes('--json');
  const dir = args.find((a) => !a.startsWith('--'));
  if (!dir) {
    console.error('usage: node tests/exporters/domain_property.mjs [--json] DIR');
    process.exit(2);
  }
  const report = await runDomainProperty(resolve(dir));
  console.log(json ? JSON.stringify(report) : formatDomainReport(report));
  process.exit(report.problems.length ? 1 : 0);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) await main();
