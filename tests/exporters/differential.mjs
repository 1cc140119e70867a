// Differential check of onnx-shapes against onnxruntime on exporter-shaped models.
//
//   node tests/exporters/differential.mjs [-v] [--json] [DIR|- [MODEL...]]
//     DIR: models from make_models.py; default (or -): generate them into a temporary folder.
//     -v: list every unresolved value, expectation problem and diagnostic; --json: the report as JSON
//     (what tests/js/exporters.test.js reads: onnxruntime-node's tensors cannot cross into Jest's
//     sandbox realm, so the check runs in a child process). Exit status 1 when a value is wrong.
//
// For every model of DIR/manifest.json, onnx-shapes infers NAME.onnx; onnxruntime-node runs
// NAME.all.onnx (every node output exposed as a graph output) at each binding of the symbols, with
// random inputs; every inferred dim, evaluated at the binding, must equal the runtime's.
// Per value (over all bindings): exact (every dim resolved and equal), bounded (a value whose shape
// depends on the data, by the graph (graph_analysis.mjs): every dim is known, and every symbol the
// binding cannot give has a `<=` bound in result.constraints.lessEqual), unresolved (an unknown
// dim, unknown rank, or a symbol the binding cannot give, such as a fresh one), wrong (a resolved
// dim, the rank or the element type differs; or a symbol the binding cannot give takes two sizes at
// one binding, or a size another dim or a constraint using it contradicts). An exact value whose dims need a declared output label
// (bound through the engine's equality constraints) rather than the graph inputs' symbols alone is
// also counted as `labelOnly`: the engine showed the label where it had computed the size. It also
// checks the model-level expectations: declared graph output dims reproduced (a label by value,
// named in result.constraints.labels), no unknown dim and no fresh symbol in any value.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { bindDefinitions, evalDim, parse, printSymbol, symbolsOf, symbolsThrough } from '../../js/expr.js';
import { dataDependence, indexGraph } from './graph_analysis.mjs';
import { addReadability, dimReadability, formatReadability } from './readability.mjs';

const HERE = dirname(fileURLToPath(import.meta.url));
export const REPO = resolve(HERE, '../..');
export const PYTHON = '/usr/bin/python3';
const require = createRequire(import.meta.url);

/** Why the differential check cannot run here (null when it can). */
export function unavailableReason() {
  const py = spawnSync(PYTHON, ['-c', 'import torch, onnx, numpy'], { encoding: 'utf8', timeout: 300_000 });
  if (py.error || py.status !== 0) {
    return `python3-torch/python3-onnx not importable by ${PYTHON}: ${(py.error?.message ?? py.stderr).trim()}`;
  }
  try {
    require.resolve('onnxruntime-node');
  } catch (e) {
    return `onnxruntime-node is not installed: ${e.message.split('\n')[0]}`;
  }
  return null;
}

/** Runs make_models.py into `dir`; returns the manifest. */
export function generateModels(dir) {
  const r = spawnSync(PYTHON, [join(HERE, 'make_models.py'), dir], { encoding: 'utf8', timeout: 900_000 });
  if (r.error || r.status !== 0) {
    throw new Error(`make_models.py failed (${r.error?.message ?? `exit ${r.status}`}):\n${r.stderr}`);
  }
  return readManifest(dir);
}

export function readManifest(dir) {
  return JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8'));
}

const ORT_TO_ONNX = {
  float32: 'float', float64: 'double', float16: 'float16', int64: 'int64', int32: 'int32', int16: 'int16',
  int8: 'int8', uint8: 'uint8', uint16: 'uint16', uint32: 'uint32', uint64: 'uint64', bool: 'bool',
  string: 'string',
};
// A fresh symbol: <what>_<n> (osi_op_fresh_dim; osi_expr_fresh appends _<counter>), `what` one of
// the words the op rules use.
const FRESH = /^(nnz|nms|topk|compress|unique|if|loop|iterations|image_height|image_width|kept_strings|substrings|tokens|total_tokens|warp_path|max_length|num_beams|num_return_sequences)_[0-9]+$/;
// A dim name the TorchScript exporter makes up for a dim it could not infer: <OpType><output>_dim_<i>.
const EXPORTER_PLACEHOLDER = /^[A-Z][A-Za-z0-9]*.*_dim_[0-9]+$/;

/** A declared dim_param as the engine reads it: one that does not parse as an integer expression
 * is a single symbol (paddle2onnx's p2o.DynamicDimension.0, optimum's `encoder_sequence_length / 2`,
 * a float expression), printed quoted. */
function asExpr(d) {
  if (typeof d !== 'string') return d;
  try {
    return parse(d).float ? printSymbol(d) : d;
  } catch {
    return printSymbol(d);
  }
}

export function rng(seed) {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 4294967296;
  };
}

export function makeFeeds(ort, inputs, env, rand) {
  const feeds = {};
  for (const inp of inputs) {
    const dims = inp.dims.map((d) => evalDim(asExpr(d), env));
    const n = dims.reduce((a, b) => a * b, 1);
    let data;
    if (inp.fill === 'positions') {
      // position ids: past_sequence_length + j along the last axis
      const last = dims[dims.length - 1];
      const past = evalDim('past_sequence_length', env);
      data = BigInt64Array.from({ length: n }, (_, i) => BigInt(past + (i % last)));
    } else if (inp.fill === 'arange') {
      // positions 0.. along the last axis (a cache_position)
      const last = dims[dims.length - 1];
      data = BigInt64Array.from({ length: n }, (_, i) => BigInt(i % last));
    } else if (inp.fill === 'size') {
      // a lengths input holding a size of the binding (less `minus`): every item at full length
      data = new BigInt64Array(n).fill(BigInt(evalDim(inp.sizeOf, env) - (inp.minus ?? 0)));
    } else if (inp.dtype === 'int64') {
      const lo = inp.low ?? 0;
      const hi = inp.high ?? 2;
      data = BigInt64Array.from({ length: n }, () => BigInt(lo + Math.floor(rand() * (hi - lo))));
    } else if (inp.dtype === 'int32') {
      const lo = inp.low ?? 0;
      const hi = inp.high ?? 2;
      data = Int32Array.from({ length: n }, () => lo + Math.floor(rand() * (hi - lo)));
    } else if (inp.dtype === 'bool') {
      data = Uint8Array.from({ length: n }, () => (rand() < 0.5 ? 1 : 0));
    } else if (inp.dtype === 'float32') {
      data = Float32Array.from({ length: n }, () => rand() * 2 - 1);
    } else if (inp.dtype === 'float16') {
      // IEEE half bit patterns of magnitudes in [0.5, 1), either sign
      data = Uint16Array.from({ length: n }, () => (rand() < 0.5 ? 0x8000 : 0) | 0x3800 | Math.floor(rand() * 1024));
    } else {
      throw new Error(`input ${inp.name}: unsupported dtype ${inp.dtype}`);
    }
    feeds[inp.name] = new ort.Tensor(inp.dtype, data, dims);
  }
  return feeds;
}

/**
 * The binding extended with symbols the engine's equality constraints define (declared names), and
 * with the result's named sizes (definitions) evaluated through it.
 */
function extendEnv(binding, constraints, definitions) {
  const base = { ...binding };
  let env = bindDefinitions(base, definitions);
  const eqs = constraints?.equal ?? [];
  for (let changed = true; changed;) {
    changed = false;
    for (const [a, b] of eqs) {
      for (const [sym, other] of [[a, b], [b, a]]) {
        if (/^[A-Za-z_][A-Za-z0-9_]*$/.test(sym) && !Object.hasOwn(env, sym)) {
          const v = evalDim(other, env); // null while a symbol of `other` is unbound
          if (v !== null) {
            base[sym] = v;
            env = bindDefinitions(base, definitions);
            changed = true;
          }
        }
      }
    }
  }
  return env;
}

/** The binding restricted to the symbols of the graph inputs' dims. */
function inputEnv(binding, inputs) {
  const env = {};
  for (const inp of inputs) {
    for (const d of inp.dims) {
      if (typeof d !== 'string') continue;
      for (const s of symbolsOf(asExpr(d))) if (Object.hasOwn(binding, s)) env[s] = binding[s];
    }
  }
  return env;
}

/** Checks one value's inferred type against the runtime tensor at one binding; `fromInputs`: its
 * dims evaluate with `inputsOnly` (the graph inputs' symbols) too. `env` binds the result's named
 * sizes (bindDefinitions), `definitions` are those names. */
export function compareValue(inferred, tensor, env, inputsOnly, definitions) {
  const problems = [];
  let resolved = true;
  let fromInputs = true;
  const want = ORT_TO_ONNX[tensor.type] ?? tensor.type;
  if (!inferred || inferred.kind !== 'tensor') return { resolved: false, problems };
  if (inferred.elemType !== null && inferred.elemType !== want) {
    problems.push(`elemType ${inferred.elemType}, runtime ${want}`);
  }
  if (inferred.elemType === null) resolved = false;
  if (inferred.dims === null) return { resolved: false, problems };
  if (inferred.dims.length !== tensor.dims.length) {
    problems.push(`rank ${inferred.dims.length} [${inferred.dims}], runtime [${tensor.dims}]`);
    return { resolved, problems };
  }
  for (const d of inferred.dims) {
    if (typeof d === 'string' && symbolsThrough(d, definitions).some((s) => !Object.hasOwn(inputsOnly, s))) fromInputs = false;
  }
  inferred.dims.forEach((d, i) => {
    if (d === null) {
      resolved = false;
      return;
    }
    let v;
    try {
      v = evalDim(d, env);
    } catch (e) {
      problems.push(`dim ${i} ${JSON.stringify(d)}: ${e.message}`);
      return;
    }
    if (v === null) {
      resolved = false;
      return;
    }
    if (v !== tensor.dims[i]) problems.push(`dim ${i} ${JSON.stringify(d)} = ${v}, runtime ${tensor.dims[i]}`);
  });
  return { resolved, problems, fromInputs };
}

const IDENT = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * Sizes of the symbols `env` does not give, learned where one is a whole dim of a value at this
 * binding (`runtime`: name -> tensor). Returns { learned, problems: name -> [why] }: a symbol with
 * two sizes, or a dim that the learned sizes evaluate to something else than the runtime's.
 */
function learnSymbols(result, runtime, env) {
  const learned = {};
  const at = {};
  const problems = new Map();
  const problem = (name, why) => problems.set(name, [...(problems.get(name) ?? []), why]);
  for (const [name, tensor] of runtime) {
    (result.getShape(name)?.dims ?? []).forEach((d, i) => {
      if (typeof d !== 'string' || !IDENT.test(d) || Object.hasOwn(env, d) || tensor.dims.length <= i) return;
      if (!Object.hasOwn(learned, d)) {
        learned[d] = tensor.dims[i];
        at[d] = name;
      } else if (learned[d] !== tensor.dims[i]) {
        problem(name, `dim ${i} ${d} = ${tensor.dims[i]} here but ${learned[d]} at ${at[d]}`);
      }
    });
  }
  // The named sizes again, now through the learned symbols too (a definition over nnz_3, say).
  const defined = new Set((result.definitions ?? []).map((d) => d.name));
  const full = bindDefinitions(Object.fromEntries(Object.entries({ ...learned, ...env })
    .filter(([k, v]) => !defined.has(k) || v !== null)), result.definitions);
  for (const [name, tensor] of runtime) {
    (result.getShape(name)?.dims ?? []).forEach((d, i) => {
      if (typeof d !== 'string' || evalDim(d, env) !== null) return;
      const v = evalDim(d, full);
      if (v !== null && v !== tensor.dims[i]) problem(name, `dim ${i} ${d} = ${v} by the sizes its symbols take, runtime ${tensor.dims[i]}`);
    });
  }
  return { learned: full, problems };
}

/** Model-level expectations: declared outputs reproduced, no unknown dim, no fresh symbol. */
function expectationProblems(entry, result, bindings) {
  const problems = [];
  const inputSymbols = new Set(entry.inputs.flatMap((i) => i.dims.filter((d) => typeof d === 'string')
    .flatMap((d) => symbolsOf(asExpr(d)))));
  const labels = result.constraints?.labels ?? {};
  for (const [name, declared] of Object.entries(entry.outputs)) {
    const t = result.getShape(name);
    if (declared === null) continue; // no declared shape: the value checks stand
    if (!t || !t.dims) {
      problems.push(`output ${name}: inferred ${JSON.stringify(t?.dims ?? null)}, declared ${JSON.stringify(declared)}`);
      continue;
    }
    const same = t.dims.length === declared.length && declared.map(asExpr).every((d, i) => {
      const got = t.dims[i];
      // The TorchScript exporter names a dim its own inference lost `<OpType><output>_dim_<i>`; the
      // engine may know better (a constant): any resolved dim will do.
      if (typeof d === 'string' && EXPORTER_PLACEHOLDER.test(d) && !Object.hasOwn(bindings[0], d)) {
        try {
          return got !== null && bindings.every((env) => Number.isInteger(evalDim(got, env)));
        } catch {
          return false;
        }
      }
      if (typeof d === 'number') return got === d;
      if (parse(d).k === 'sym') {
        if (inputSymbols.has(parse(d).v)) return got === d;
        // A label (declared on outputs only): the computed size is kept, the label names it.
        return got === d || labels[d] === got;
      }
      // A declared expression: the canonical form differs in spelling; compare by value.
      try {
        return got !== null && bindings.every((env) => evalDim(got, env) === evalDim(d, env));
      } catch {
        return false;
      }
    });
    if (!same) problems.push(`output ${name}: inferred ${JSON.stringify(t.dims)}, declared ${JSON.stringify(declared)}`);
  }
  for (const name of result.names()) {
    const t = result.getShape(name);
    if (t.kind !== 'tensor') continue;
    if (t.dims === null) {
      problems.push(`${name}: unknown rank`);
      continue;
    }
    const bad = t.dims.some((d) => d === null ||
      (typeof d === 'string' && symbolsThrough(d, result.definitions).some((s) => FRESH.test(s))));
    if (bad) problems.push(`${name}: ${JSON.stringify(t.dims)}`);
  }
  return problems;
}

/**
 * Runs the check on every model of `dir`. Returns { models: [{name, values, exact, unresolved,
 * wrong, details, expectations, constraintViolations}], totals }.
 */
export async function runDifferential(dir, { engine, ort, only } = {}) {
  ort ??= require('onnxruntime-node');
  if (!engine) {
    const { init } = await import(pathToFileURL(join(REPO, 'js/index.js')).href);
    engine = await init();
  }
  const manifest = readManifest(dir).filter((m) => !only || only.includes(m.name));
  const models = [];
  for (const entry of manifest) {
    const result = engine.inferShapes(readFileSync(join(dir, entry.file)));
    const dd = dataDependence(indexGraph(JSON.parse(readFileSync(join(dir, entry.graphFile), 'utf8'))));
    const bounded = new Set((result.constraints?.lessEqual ?? []).map(([a]) => a));
    const session = await ort.InferenceSession.create(join(dir, entry.allFile), {
      graphOptimizationLevel: 'disabled',
      logSeverityLevel: 3,
    });
    const rand = rng(12345);
    const perValue = new Map(); // name -> { resolved, problems[] }
    const constraintViolations = [];
    const envs = [];
    const labels = result.constraints?.labels ?? {};
    const labelFits = new Map(); // label -> Map(output dim -> its runtime size at every binding)
    for (const binding of entry.bindings) {
      const env = extendEnv(binding, result.constraints, result.definitions);
      const inputsOnly = inputEnv(binding, entry.inputs);
      envs.push(env);
      for (const [a, b] of result.constraints?.equal ?? []) {
        try {
          const va = evalDim(a, env), vb = evalDim(b, env); // null: a symbol is not bound here
          if (va !== null && vb !== null && va !== vb) constraintViolations.push(`${a} == ${b} at ${JSON.stringify(binding)}`);
        } catch (e) {
          constraintViolations.push(`${a} == ${b}: ${e.message}`);
        }
      }
      const feeds = makeFeeds(ort, entry.inputs, env, rand);
      const out = await session.run(feeds);
      // Output dims whose declared label names, by the engine's labels, their runtime size here.
      for (const [name, declared] of Object.entries(entry.outputs)) {
        (declared ?? []).map(asExpr).forEach((d, i) => {
          const expr = typeof d === 'string' ? labels[d] : undefined;
          if (expr === undefined || !out[name]) return;
          const key = `${name}[${i}]`;
          const ok = evalDim(expr, env) === out[name].dims[i];
          labelFits.set(d, labelFits.get(d) ?? new Map());
          labelFits.get(d).set(key, (labelFits.get(d).get(key) ?? true) && ok);
        });
      }
      const runtime = new Map(session.outputNames.filter((n) => out[n]).map((n) => [n, out[n]]));
      const { learned, problems } = learnSymbols(result, runtime, env);
      for (const [a, b] of result.constraints?.lessEqual ?? []) {
        const va = evalDim(a, learned), vb = evalDim(b, learned);
        if (va !== null && vb !== null && va > vb) constraintViolations.push(`${a} <= ${b}: ${va} > ${vb} at ${JSON.stringify(binding)}`);
      }
      for (const name of session.outputNames) {
        const tensor = out[name];
        const r = compareValue(result.getShape(name), tensor, env, inputsOnly, result.definitions);
        const acc = perValue.get(name) ?? { resolved: true, fromInputs: true, problems: [] };
        acc.resolved &&= r.resolved;
        acc.fromInputs &&= r.fromInputs;
        acc.problems.push(...[...r.problems, ...(problems.get(name) ?? [])].map((p) => `${p} at ${JSON.stringify(binding)}`));
        perValue.set(name, acc);
      }
      for (const t of Object.values(out)) t.dispose?.();
    }
    await session.release?.();
    // A label names the size of an output dim declaring it (torch may have declared it on others too).
    for (const [label, expr] of Object.entries(labels)) {
      if (![...(labelFits.get(label)?.values() ?? [])].some(Boolean)) {
        constraintViolations.push(`label ${label} = ${expr}: no output dim declared ${label} has that size`);
      }
    }
    let exact = 0;
    let unresolved = 0;
    let wrong = 0;
    let labelOnly = 0;
    let boundedValues = 0;
    const details = { unresolved: [], wrong: [], labelOnly: [], bounded: [] };
    // A data-dependent value with every dim known and every symbol the bindings do not give bounded.
    const withBound = (name) => {
      const dims = result.getShape(name)?.dims;
      if (!dd.get(name)?.shape || !dims || dims.includes(null)) return false;
      return dims.every((d) => typeof d !== 'string' ||
        symbolsOf(d).every((s) => envs.every((env) => Object.hasOwn(env, s)) || bounded.has(s)));
    };
    for (const [name, v] of perValue) {
      if (v.problems.length) {
        wrong++;
        details.wrong.push(`${name}: ${v.problems.join('; ')}`);
      } else if (!v.resolved && withBound(name)) {
        boundedValues++;
        details.bounded.push(`${name}: ${JSON.stringify(result.getShape(name).dims)}`);
      } else if (!v.resolved) {
        unresolved++;
        details.unresolved.push(`${name}: ${JSON.stringify(result.getShape(name)?.dims ?? null)}`);
      } else {
        exact++;
        if (!v.fromInputs) {
          labelOnly++;
          details.labelOnly.push(`${name}: ${JSON.stringify(result.getShape(name).dims)}`);
        }
      }
    }
    models.push({
      name: entry.name,
      values: perValue.size,
      exact,
      bounded: boundedValues,
      unresolved,
      wrong,
      labelOnly,
      labels,
      details,
      constraintViolations,
      expectations: expectationProblems(entry, result, envs),
      diagnostics: result.diagnostics.map((d) => `${d.code} ${d.opType ?? ''} ${d.node ?? ''}: ${d.message}`),
      readability: dimReadability(result),
    });
  }
  // Every model counts in every figure: none is exempt.
  const sum = (k) => models.reduce((a, m) => a + m[k], 0);
  const totals = {
    values: sum('values'), exact: sum('exact'), bounded: sum('bounded'), unresolved: sum('unresolved'),
    wrong: sum('wrong'), labelOnly: sum('labelOnly'),
  };
  // Resolved: exact, or data-dependent with a bounded symbol (what the engine can know before the run).
  totals.resolvedPercent = totals.values ? (100 * (totals.exact + totals.bounded)) / totals.values : 100;
  totals.readability = addReadability(models.map((m) => m.readability)); // every model counts
  return { models, totals };
}

export function formatReport({ models, totals }, { verbose = false } = {}) {
  const lines = [];
  const pad = (s, n) => String(s).padEnd(n);
  lines.push(`${pad('model', 22)}${pad('values', 8)}${pad('exact', 8)}${pad('bounded', 9)}${pad('unresolved', 12)}wrong`);
  for (const m of models) {
    lines.push(`${pad(m.name, 22)}${pad(m.values, 8)}${pad(m.exact, 8)}${pad(m.bounded, 9)}${pad(m.unresolved, 12)}${m.wrong}`);
    if (verbose || m.wrong) for (const w of m.details.wrong) lines.push(`  WRONG ${w}`);
    if (verbose) for (const u of m.details.unresolved) lines.push(`  unresolved ${u}`);
    if (verbose) for (const u of m.details.bounded) lines.push(`  bounded ${u}`);
    for (const l of m.details.labelOnly) lines.push(`  LABEL ONLY ${l}`);
    if (verbose) for (const e of m.expectations) lines.push(`  expectation: ${e}`);
    for (const c of m.constraintViolations) lines.push(`  CONSTRAINT VIOLATED ${c}`);
    if (verbose) for (const d of m.diagnostics) lines.push(`  diagnostic: ${d}`);
  }
  lines.push(`total: ${totals.values} values compared, ${totals.exact} exact, ${totals.bounded} data-dependent ` +
    `with a bounded symbol (${totals.resolvedPercent.toFixed(2)}% resolved), ${totals.unresolved} unresolved, ${totals.wrong} wrong, ` +
    `${totals.labelOnly} shown by a declared label only`);
  lines.push(formatReadability(totals.readability));
  return lines.join('\n');
}

async function main() {
  const args = process.argv.slice(2);
  const verbose = args.includes('-v');
  const json = args.includes('--json');
  const rest = args.filter((a) => a !== '-v' && a !== '--json');
  let dir = rest[0] && rest[0] !== '-' ? rest[0] : null;
  let tmp = null;
  if (!dir) {
    const why = unavailableReason();
    if (why) {
      console.error(`differential: ${why}`);
      process.exit(2);
    }
    tmp = mkdtempSync(join(tmpdir(), 'osi-exporters-'));
    dir = tmp;
    generateModels(dir);
  }
  try {
    const report = await runDifferential(dir, { only: rest.length > 1 ? rest.slice(1) : undefined });
    console.log(json ? JSON.stringify(report) : formatReport(report, { verbose }));
    process.exitCode = report.totals.wrong ? 1 : 0;
  } finally {
    if (tmp) rmSync(tmp, { recursive: true, force: true });
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch((e) => {
    console.error(e);
    process.exit(1);
  });
}
