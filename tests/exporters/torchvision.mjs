// Differential check of onnx-shapes against onnxruntime on torchvision's own models.
//
//   node tests/exporters/torchvision.mjs [-v] [--json] [--dir DIR] [--regenerate] [MODEL...]
//     Models come from make_torchvision.py, cached in build/torchvision/<hash of the generators>/
//     (generated on first use: ~90 s of CPU); --dir DIR reads a folder written by it instead.
//     -v: every unresolved / wrong value (model, value, producing op, inferred and runtime dims, its
//     root node and pattern); --json: the whole report as JSON (what tests/js/torchvision.test.js
//     reads: onnxruntime-node's tensors cannot cross into Jest's sandbox realm). MODEL: names or
//     substrings of names. Exit status 1 when a value is wrong, 2 when the check cannot run.
//
// For every model, onnx-shapes infers NAME.onnx; onnxruntime-node runs NAME.all.onnx (every node
// output exposed) at two bindings of the input sizes; every inferred dim, evaluated at the binding
// (only graph-input symbols are bound: a label torch gave a graph output is no size), is compared
// with the runtime's (compareValue of differential.mjs). Each value is then
//   data-dependent  its shape depends on tensor contents (a NonZero / NonMaxSuppression / Unique /
//                   Compress count, a Loop or If driven by data; found on the graph, not from the
//                   engine): fine when exact or when every unbound symbol is a fresh one with a `<=`
//                   bound in result.constraints.lessEqual (checked against the runtime size);
//   size-dependent  otherwise, when its runtime dims differ between the bindings;
//   static          otherwise (same dims at both bindings);
// and exact / unresolved / wrong (a symbol nothing binds must still agree with the runtime
// everywhere it occurs, and so must the constraints). Unresolved and wrong values are traced back
// to their root node (the first node whose output is not exact while what it reads is) and grouped
// into patterns (graph_analysis.mjs); then the roots' lost outputs are cut into graph inputs whose
// dims are symbols bound to the runtime sizes (cut_graph.mjs) and the engine runs again, which
// finds the roots behind them, layer by layer.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { bindDefinitions, evalDim, expandDefinitions, symbolsThrough } from '../../js/expr.js';
import { compareValue, makeFeeds, PYTHON, REPO, rng } from './differential.mjs';
import { badUpstream, classifyRoot, dataDependence, indexGraph } from './graph_analysis.mjs';
import { cutAt } from './cut_graph.mjs';
import { runWatched } from '../tools/run_watched.mjs';

const HERE = dirname(fileURLToPath(import.meta.url));
const GENERATOR = join(HERE, 'make_torchvision.py');
const CACHE = join(REPO, 'build', 'torchvision');
const require = createRequire(import.meta.url);

/** Why the check cannot run here (null when it can). */
export function unavailableReason() {
  const py = spawnSync(PYTHON, ['-c', 'import torch, torchvision, onnx, numpy'], { encoding: 'utf8', timeout: 300_000 });
  if (py.error || py.status !== 0) {
    return `python3-torch/python3-torchvision/python3-onnx not importable by ${PYTHON}: ` +
      `${(py.error?.message ?? py.stderr).trim().split('\n').pop()}`;
  }
  try {
    require.resolve('onnxruntime-node');
  } catch (e) {
    return `onnxruntime-node is not installed: ${e.message.split('\n')[0]}`;
  }
  return null;
}

/** build/torchvision/<hash>: the generators' hash names the cache, so an edit regenerates. */
export function cacheDir() {
  const h = createHash('sha256');
  for (const f of [GENERATOR, join(HERE, 'make_models.py')]) h.update(readFileSync(f));
  return join(CACHE, h.digest('hex').slice(0, 16));
}

/**
 * The models' folder, generated when absent: { dir, generatedSeconds (null when cached) }. The
 * generator prints a line per model: it is stopped when it prints nothing for 20 minutes (one
 * model took 7 at a load average of 25), or after 4 hours.
 */
export async function ensureModels({ regenerate = false } = {}) {
  const dir = cacheDir();
  if (!regenerate && existsSync(join(dir, 'manifest.json'))) return { dir, generatedSeconds: null };
  mkdirSync(CACHE, { recursive: true });
  // Older caches go; a folder another run is generating into (.tmp-<its pid>, alive) stays.
  const alive = (pid) => { try { process.kill(pid, 0); return true; } catch (e) { return e.code === 'EPERM'; } };
  for (const old of readdirSync(CACHE)) {
    const pid = /\.tmp-(\d+)$/.exec(old)?.[1];
    if (!pid || !alive(Number(pid))) rmSync(join(CACHE, old), { recursive: true, force: true });
  }
  const tmp = `${dir}.tmp-${process.pid}`;
  const t0 = Date.now();
  const r = await runWatched(PYTHON, [GENERATOR, tmp], { idleMs: 1_200_000, timeout: 4 * 3_600_000, echo: true });
  if (r.error || r.status !== 0) {
    rmSync(tmp, { recursive: true, force: true });
    throw new Error(`make_torchvision.py failed (${r.error?.message ?? `exit ${r.status}`}):\n${r.stderr}`);
  }
  if (existsSync(join(dir, 'manifest.json'))) rmSync(tmp, { recursive: true, force: true }); // another run finished first
  else renameSync(tmp, dir);
  return { dir, generatedSeconds: (Date.now() - t0) / 1000 };
}

// Section - the check

function readability(result) {
  const r = { symbolic: 0, plusMinus: 0, over80: 0, over200: 0, longest: null, examples: { plusMinus: [], over80: [] } };
  for (const name of result.names()) {
    const t = result.getShape(name);
    if (t?.kind !== 'tensor' || !t.dims) continue;
    for (const d of t.dims) {
      if (typeof d !== 'string') continue;
      r.symbolic++;
      if (d.includes('+-')) {
        r.plusMinus++;
        if (r.examples.plusMinus.length < 3) r.examples.plusMinus.push({ value: name, dim: d });
      }
      if (d.length > 80) {
        r.over80++;
        if (r.examples.over80.length < 3) r.examples.over80.push({ value: name, dim: d });
      }
      if (d.length > 200) r.over200++;
      if (!r.longest || d.length > r.longest.length) r.longest = { value: name, length: d.length, dim: d };
    }
  }
  // The named sizes those dims print (result.definitions): how many, and the longest definition.
  r.definitions = result.definitions.length;
  r.longestDefinition = result.definitions.reduce((n, d) => Math.max(n, d.name.length + 3 + d.expr.length), 0);
  return r;
}

/**
 * Runs the model's every-value copy at each binding: per value its runtime { type, dims } per
 * binding; also notes a graph output whose size differs from eager PyTorch's (an export that traced
 * a size in), data-dependent ones aside (the inputs differ).
 */
async function runtimeSizes(entry, dir, ort, dataDependent) {
  const runtime = new Map();
  const errors = [];
  const eagerMismatch = [];
  let session;
  try {
    session = await ort.InferenceSession.create(join(dir, entry.allFile), {
      graphOptimizationLevel: 'disabled', logSeverityLevel: 3,
    });
  } catch (e) { // a model onnxruntime refuses to load: no runtime sizes to compare with
    errors.push(`onnxruntime refused to load it: ${e.message.split('\n')[0]}`);
    return { runtime, errors, eagerMismatch };
  }
  const rand = rng(12345);
  for (const [bi, binding] of entry.bindings.entries()) {
    let out;
    try {
      out = await session.run(makeFeeds(ort, entry.inputs, { ...binding }, rand));
    } catch (e) {
      errors.push(`onnxruntime refused ${JSON.stringify(entry.sizes[bi])}: ${e.message.split('\n')[0]}`);
      break;
    }
    Object.keys(entry.outputs).forEach((o, k) => {
      const want = entry.eagerOutputs[bi][k];
      if (want && !dataDependent(o) && JSON.stringify(out[o].dims) !== JSON.stringify(want)) {
        eagerMismatch.push(`${o} ${JSON.stringify(out[o].dims)}, eager ${JSON.stringify(want)} at ${JSON.stringify(entry.sizes[bi])}`);
      }
    });
    for (const name of session.outputNames) {
      const t = out[name];
      runtime.set(name, [...(runtime.get(name) ?? []), { type: t.type, dims: t.dims.map(Number) }]);
    }
    for (const t of Object.values(out)) t.dispose?.();
  }
  await session.release?.();
  if (errors.length) runtime.clear();
  return { runtime, errors, eagerMismatch };
}

const IDENT = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * Judges every value of `result` against the runtime sizes. `pins[b]`: sizes of the symbols the
 * layered analysis declared, at binding b. Symbols the model's inputs do not give (fresh ones,
 * output labels) never make a value exact, but they must be consistent: a symbol that is a whole
 * dim takes the runtime size there, and every other dim and constraint using it must agree.
 */
function judge(ctx, result, pins) {
  const { entry, runtime, dd, inputSymbols, outputLabels } = ctx;
  const bounds = new Map();
  for (const [a, b] of result.constraints?.lessEqual ?? []) bounds.set(a, [...(bounds.get(a) ?? []), b]);
  // Dims print the result's named sizes (floor_1, size_2): evaluated through their definitions.
  const defs = result.definitions;
  const acc = new Map();
  const constraintViolations = [];
  entry.bindings.forEach((binding, b) => {
    const base = { ...binding, ...(pins?.[b] ?? {}) };
    const env = bindDefinitions(base, defs);
    const learned = {};
    const learnedAt = {};
    const conflicts = new Map();
    for (const [name, rt] of runtime) {
      (result.getShape(name)?.dims ?? []).forEach((d, i) => {
        if (typeof d !== 'string' || !IDENT.test(d) || Object.hasOwn(env, d) || rt[b].dims.length <= i) return;
        const v = rt[b].dims[i];
        if (!Object.hasOwn(learned, d)) {
          learned[d] = v;
          learnedAt[d] = name;
        } else if (learned[d] !== v) {
          conflicts.set(name, `dim ${i} ${d} = ${v} here but ${learned[d]} at ${learnedAt[d]}`);
        }
      });
    }
    const full = bindDefinitions({ ...learned, ...base }, defs);
    const at = ` at ${JSON.stringify(entry.sizes[b])}`;
    for (const [name, rt] of runtime) {
      const inferred = result.getShape(name);
      const r = compareValue(inferred, rt[b], env, env, defs);
      const a = acc.get(name) ?? { resolved: true, problems: [] };
      a.resolved &&= r.resolved;
      a.problems.push(...r.problems.map((p) => p + at));
      if (conflicts.has(name)) a.problems.push(conflicts.get(name) + at);
      (inferred?.dims ?? []).forEach((d, i) => {
        if (typeof d !== 'string' || evalDim(d, env) !== null) return;
        const v = evalDim(d, full);
        if (v !== null && v !== rt[b].dims[i]) a.problems.push(`dim ${i} ${d} = ${v} by the sizes its symbols take, runtime ${rt[b].dims[i]}${at}`);
      });
      acc.set(name, a);
    }
    for (const [rel, pairs] of [['<=', result.constraints?.lessEqual ?? []], ['==', result.constraints?.equal ?? []]]) {
      for (const [x, y] of pairs) {
        const vx = evalDim(x, full);
        const vy = evalDim(y, full);
        if (vx !== null && vy !== null && (rel === '<=' ? vx > vy : vx !== vy)) {
          constraintViolations.push(`${x} ${rel} ${y}: ${vx} vs ${vy}${at}`);
        }
      }
    }
  });
  const values = [];
  const status = new Map();
  for (const [name, a] of acc) {
    const rt = runtime.get(name);
    const dims = result.getShape(name)?.dims ?? null;
    const dataDependent = dd.get(name)?.shape ?? false;
    const varies = rt.some((x) => JSON.stringify(x.dims) !== JSON.stringify(rt[0].dims));
    const kind = dataDependent ? 'data-dependent' : varies ? 'size-dependent' : 'static';
    const unbound = dims ? [...new Set(dims.flatMap((d) => (typeof d === 'string' ? symbolsThrough(d, defs) : [])))]
      .filter((s) => !inputSymbols.has(s) && !Object.hasOwn(pins?.[0] ?? {}, s)) : [];
    let verdict = a.problems.length ? 'wrong' : a.resolved ? 'exact' : 'unresolved';
    if (verdict === 'unresolved' && dataDependent && dims && !dims.includes(null) && unbound.every((s) => bounds.has(s))) {
      verdict = 'bounded';
    }
    const v = { name, kind, verdict, dims, runtime: rt.map((x) => x.dims), problems: a.problems, unbound,
      labels: unbound.filter((s) => outputLabels.has(s)) };
    values.push(v);
    status.set(name, v);
  }
  return { values, status, constraintViolations };
}

const MAX_LAYERS = 8;

/**
 * Roots of the gap, layer by layer: layer 0 roots are the nodes where values are first lost; then
 * their lost outputs are made graph inputs (cut_graph.mjs) with a fresh symbol per lost dim, bound
 * to the runtime's size, and the engine runs again: what is still lost has roots further down.
 * Returns per gap value of layer 0 its layer-0 root, and per layer the roots with the values they block.
 */
function layeredRoots(ctx, engine, first) {
  const { idx, runtime } = ctx;
  const declared = [];
  const pins = ctx.entry.bindings.map(() => ({}));
  const layers = [];
  let judged = first;
  let result = ctx.result;
  const firstRoot = new Map();
  for (let layer = 0; layer < MAX_LAYERS; layer++) {
    const bad = (v) => {
      const s = judged.status.get(v);
      return !!s && (s.verdict === 'unresolved' || s.verdict === 'wrong');
    };
    const shapeOf = (v) => result.getShape(v);
    const bounded = new Set((result.constraints?.lessEqual ?? []).map(([a]) => a));
    const dimBad = (d) => d === null || (typeof d === 'string' && symbolsThrough(d, result.definitions)
      .some((x) => !ctx.inputSymbols.has(x) && !Object.hasOwn(pins[0], x) && !bounded.has(x)));
    const memo = new Map();
    const roots = (name) => {
      if (memo.has(name)) return memo.get(name);
      memo.set(name, []);
      const p = idx.producer.get(name);
      if (p === undefined) return [];
      const ups = badUpstream(idx, idx.graph.nodes[p], bad, shapeOf, dimBad);
      const r = ups.length ? [...new Set(ups.flatMap(roots))].sort((a, b) => a - b) : [];
      memo.set(name, r.length ? r : [p]);
      return memo.get(name);
    };
    const gaps = judged.values.filter((v) => (v.verdict === 'unresolved' || v.verdict === 'wrong') && !v.labels.length);
    if (!gaps.length) break;
    const byRoot = new Map();
    for (const v of gaps) {
      const rs = roots(v.name);
      if (layer === 0) firstRoot.set(v.name, rs);
      for (const r of rs) byRoot.set(r, [...(byRoot.get(r) ?? []), v.name]);
    }
    const sizeDependent = (v) => first.status.get(v)?.kind === 'size-dependent';
    const diag = new Map(result.diagnostics.map((d) => [d.nodeIndex, `${d.code}: ${d.message}`]));
    const rootsHere = [...byRoot].map(([r, names]) => ({ index: r, values: names, diagnostic: diag.get(r) ?? null,
      inputs: idx.graph.nodes[r].inputs.map((i) => (i ? `${i}: ${JSON.stringify(result.getShape(i)?.dims ?? null)}` : '')),
      ...classifyRoot(idx, r, sizeDependent, shapeOf) }));
    layers.push(rootsHere);
    // Declare every lost output of this layer's roots.
    let added = 0;
    for (const r of rootsHere) {
      for (const o of idx.graph.nodes[r.index].outputs) {
        const s = judged.status.get(o);
        const rt = runtime.get(o);
        if (!s || !rt || (s.verdict !== 'unresolved' && s.verdict !== 'wrong')) continue;
        const type = result.getShape(o);
        const dims = rt[0].dims.map((_, i) => {
          const d = s.dims?.[i];
          if (typeof d === 'number') return d;
          // a cut input's dim_param: the expression itself, without the result's names
          if (typeof d === 'string' && s.verdict !== 'wrong' && ctx.resolves(d, pins, result.definitions)) {
            return expandDefinitions(d, result.definitions);
          }
          // The same size at every binding: a constant (what folding would give), not a symbol.
          if (rt.every((x) => x.dims[i] === rt[0].dims[i])) return rt[0].dims[i];
          const sym = `pin${layer}_${added}_${i}`;
          rt.forEach((x, b) => { pins[b][sym] = x.dims[i]; });
          return sym;
        });
        declared.push({ name: o, elemType: type?.elemType ?? ORT_TYPES[rt[0].type], dims });
        added++;
      }
    }
    if (!added) break;
    try {
      result = engine.inferShapes(cutAt(ctx.bytes, declared));
    } catch (e) {
      layers.push([{ error: `${e.code ?? ''} ${e.message}` }]);
      break;
    }
    judged = judge(ctx, result, pins);
  }
  // What is still lost after the last layer (0: every lost value is explained by the roots found).
  const residual = judged.values.filter((v) => (v.verdict === 'unresolved' || v.verdict === 'wrong') && !v.labels.length).length;
  return { layers, firstRoot, residual };
}

const ORT_TYPES = { float32: 'float', int64: 'int64', int32: 'int32', bool: 'bool', float64: 'double', uint8: 'uint8' };

async function checkModel(entry, dir, engine, ort) {
  const graph = JSON.parse(readFileSync(join(dir, entry.graphFile), 'utf8'));
  const idx = indexGraph(graph);
  const bytes = readFileSync(join(dir, entry.file));
  const result = engine.inferShapes(bytes);
  const inputSymbols = new Set(entry.inputs.flatMap((i) => i.dims.filter((d) => typeof d === 'string')));
  const outputLabels = new Set(Object.values(entry.outputs).flat()
    .filter((d) => typeof d === 'string' && !inputSymbols.has(d)));
  const dd = dataDependence(idx);
  const { runtime, errors, eagerMismatch } = await runtimeSizes(entry, dir, ort, (v) => dd.get(v)?.shape ?? false);
  const ctx = { entry, idx, dd, runtime, inputSymbols, outputLabels, result, bytes,
    resolves: (d, pins, defs) => evalDim(d, bindDefinitions({ ...entry.bindings[0], ...pins[0] }, defs)) !== null };
  const judged = judge(ctx, result, null);
  const { layers, firstRoot, residual } = layeredRoots(ctx, engine, judged);
  const rootOf = new Map((layers[0] ?? []).filter((r) => r.index !== undefined).map((r) => [r.index, r]));
  const gaps = [];
  for (const v of judged.values) {
    if (v.verdict !== 'unresolved' && v.verdict !== 'wrong') continue;
    const p = idx.producer.get(v.name);
    const op = graph.nodes[p]?.op ?? null;
    const rs = firstRoot.get(v.name) ?? [];
    const root = v.labels.length
      ? { pattern: v.kind === 'data-dependent' ? 'declared output label replaced a data-dependent size (the label has no <= bound)'
        : 'declared output label replaced computed dim', chain: `${op}→graph output`, op, node: v.name, index: p, diagnostic: null }
      : rootOf.get(rs[0]);
    gaps.push({ value: v.name, op, kind: v.kind, verdict: v.verdict, dims: v.dims, runtime: v.runtime, problems: v.problems,
      unbound: v.unbound, pattern: root?.pattern ?? '?', chain: root?.chain ?? '',
      root: { op: root?.op, value: graph.nodes[root?.index]?.outputs[0] ?? null, inherited: root?.index !== p,
        diagnostic: root?.diagnostic ?? null }, rootCount: rs.length || 1 });
  }
  const blocking = layers.flatMap((roots, layer) => roots.filter((r) => r.index !== undefined).map((r) => ({
    layer, pattern: r.pattern, chain: r.chain, op: r.op, value: graph.nodes[r.index].outputs[0], values: r.values.length,
    diagnostic: r.diagnostic, inputs: r.inputs, attrs: graph.nodes[r.index].attrs,
    example: (() => {
      const s = judged.status.get(graph.nodes[r.index].outputs[0]);
      return s ? { dims: s.dims, runtime: s.runtime } : null;
    })(),
  })));
  const count = (pred) => judged.values.filter(pred).length;
  const byKind = (kind) => ({
    values: count((v) => v.kind === kind),
    exact: count((v) => v.kind === kind && v.verdict === 'exact'),
    bounded: count((v) => v.kind === kind && v.verdict === 'bounded'),
    unresolved: count((v) => v.kind === kind && v.verdict === 'unresolved'),
    wrong: count((v) => v.kind === kind && v.verdict === 'wrong'),
  });
  return {
    name: entry.name, family: entry.family, opset: entry.opset, axes: entry.axes,
    values: judged.values.length,
    exact: count((v) => v.verdict === 'exact'),
    bounded: count((v) => v.verdict === 'bounded'),
    unresolved: count((v) => v.verdict === 'unresolved'),
    wrong: count((v) => v.verdict === 'wrong'),
    sizeDependent: byKind('size-dependent'), static: byKind('static'), dataDependent: byKind('data-dependent'),
    constraintViolations: judged.constraintViolations,
    readability: readability(result), gaps, blocking, layers: layers.length, residual,
    errors: [...errors, ...layers.flat().filter((r) => r.error).map((r) => `layered analysis stopped: ${r.error}`)],
    eagerMismatch, notes: entry.notes ?? [],
    diagnostics: result.diagnostics.map((d) => `${d.code} ${d.opType ?? ''} ${d.node ?? ''}: ${d.message}`),
  };
}

export async function runTorchvision(dir, { only, engine, ort } = {}) {
  ort ??= require('onnxruntime-node');
  if (!engine) {
    const { init } = await import(pathToFileURL(join(REPO, 'js/index.js')).href);
    engine = await init();
  }
  const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8'))
    .filter((m) => !only?.length || only.some((o) => m.name.includes(o)));
  const models = [];
  for (const entry of manifest) models.push(await checkModel(entry, dir, engine, ort));
  return { models, totals: totals(models) };
}

function totals(models) {
  const sum = (f) => models.reduce((a, m) => a + f(m), 0);
  const kind = (k) => ({
    values: sum((m) => m[k].values), exact: sum((m) => m[k].exact), bounded: sum((m) => m[k].bounded),
    unresolved: sum((m) => m[k].unresolved), wrong: sum((m) => m[k].wrong),
  });
  const pct = (a, b) => (b ? (100 * a) / b : 100);
  const t = {
    models: models.length, values: sum((m) => m.values), exact: sum((m) => m.exact), bounded: sum((m) => m.bounded),
    unresolved: sum((m) => m.unresolved), wrong: sum((m) => m.wrong),
    sizeDependent: kind('sizeDependent'), static: kind('static'), dataDependent: kind('dataDependent'),
    errors: models.flatMap((m) => m.errors.map((e) => `${m.name}: ${e}`)),
    constraintViolations: models.flatMap((m) => m.constraintViolations.map((e) => `${m.name}: ${e}`)),
  };
  t.sizeDependent.exactPercent = pct(t.sizeDependent.exact, t.sizeDependent.values);
  t.static.exactPercent = pct(t.static.exact, t.static.values);
  t.dataDependent.fine = t.dataDependent.exact + t.dataDependent.bounded;
  const rd = models.map((m) => m.readability);
  t.readability = {
    symbolic: rd.reduce((a, r) => a + r.symbolic, 0), plusMinus: rd.reduce((a, r) => a + r.plusMinus, 0),
    over80: rd.reduce((a, r) => a + r.over80, 0), over200: rd.reduce((a, r) => a + r.over200, 0),
    longest: models.reduce((best, m) => (m.readability.longest && (!best || m.readability.longest.length > best.length)
      ? { model: m.name, ...m.readability.longest } : best), null),
    definitions: rd.reduce((a, r) => a + r.definitions, 0),
    longestDefinition: rd.reduce((a, r) => Math.max(a, r.longestDefinition), 0),
  };
  t.readability.over80Percent = pct(t.readability.over80, t.readability.symbolic);
  // The gap by pattern: values, distinct root nodes, models.
  const patterns = new Map();
  for (const m of models) {
    for (const g of m.gaps) {
      const p = patterns.get(g.pattern) ?? { pattern: g.pattern, values: 0, sizeDependent: 0, static: 0, dataDependent: 0, wrong: 0, roots: new Set(), models: new Set() };
      p.values++;
      if (g.verdict === 'wrong') p.wrong++;
      p[{ 'size-dependent': 'sizeDependent', static: 'static', 'data-dependent': 'dataDependent' }[g.kind]]++;
      p.roots.add(`${m.name}/${g.root.value}`);
      p.models.add(m.name);
      patterns.set(g.pattern, p);
    }
  }
  t.patterns = [...patterns.values()].sort((a, b) => b.values - a.values)
    .map((p) => ({ ...p, roots: p.roots.size, models: [...p.models] }));
  // Every layer's roots: what a fix of each pattern unblocks (a value counts once per layer it is lost at).
  const blocking = new Map();
  for (const m of models) {
    for (const r of m.blocking) {
      const p = blocking.get(r.pattern) ?? { pattern: r.pattern, values: 0, roots: 0, layers: new Set(), models: new Set() };
      p.values += r.values;
      p.roots++;
      p.layers.add(r.layer);
      p.models.add(m.name);
      blocking.set(r.pattern, p);
    }
  }
  t.blocking = [...blocking.values()].sort((a, b) => b.values - a.values)
    .map((p) => ({ ...p, layers: [...p.layers].sort((a, b) => a - b), models: [...p.models] }));
  return t;
}

// Section - the report

const pctStr = (a, b) => `${b ? ((100 * a) / b).toFixed(1) : '100.0'}%`;

/**
 * The failures the test reports first, compactly, one line each: the values where a pattern starts
 * (one per model and pattern), then the rest.
 */
export function firstOffenders(report, n = 12) {
  const all = report.models.flatMap((m) => m.gaps.map((g) => ({ model: m.name, g })));
  const picked = [];
  const seen = new Set();
  const pick = (pred) => {
    for (const x of all) {
      if (picked.length >= n) return;
      const key = `${x.model}|${x.g.pattern}`;
      if (picked.includes(x) || !pred(x, key)) continue;
      picked.push(x);
      seen.add(key);
    }
  };
  pick((x, key) => !x.g.root.inherited && !seen.has(key));
  pick((x, key) => !seen.has(key));
  pick(() => true);
  return picked.map(({ model, g }) => {
    const line = `${model} ${g.value} (${g.op}, ${g.kind}, ${g.verdict}): ${JSON.stringify(g.dims)} vs runtime ` +
      `${g.runtime.map((d) => JSON.stringify(d)).join(' / ')}${g.problems.length ? ` {${g.problems[0]}}` : ''} [${g.pattern}]`;
    return line.length > 400 ? `${line.slice(0, 397)}...` : line;
  });
}

export function formatReport(report, { verbose = false } = {}) {
  const { models, totals: t } = report;
  const lines = [];
  const pad = (s, w) => String(s).padEnd(w);
  const padl = (s, w) => String(s).padStart(w);
  lines.push(`${pad('model', 44)}${padl('values', 7)}${padl('exact', 7)}${padl('unres', 7)}${padl('wrong', 6)}` +
    `${padl('size-dep exact', 16)}${padl('static exact', 14)}${padl('data-dep ok', 13)}${padl('+-', 5)}${padl('>80', 5)}`);
  for (const m of models) {
    const s = m.sizeDependent;
    const st = m.static;
    const d = m.dataDependent;
    lines.push(`${pad(m.name, 44)}${padl(m.values, 7)}${padl(m.exact, 7)}${padl(m.unresolved, 7)}${padl(m.wrong, 6)}` +
      `${padl(`${s.exact}/${s.values}`, 16)}${padl(`${st.exact}/${st.values}`, 14)}${padl(`${d.exact + d.bounded}/${d.values}`, 13)}` +
      `${padl(m.readability.plusMinus, 5)}${padl(m.readability.over80, 5)}`);
    for (const e of m.errors) lines.push(`  ERROR ${e}`);
    for (const e of m.eagerMismatch) lines.push(`  note: graph output differs from eager PyTorch: ${e}`);
    if (m.residual) lines.push(`  note: ${m.residual} values still lost after ${m.layers} layers of roots`);
    for (const g of m.gaps) {
      if (!verbose && g.verdict !== 'wrong') continue;
      lines.push(`  ${g.verdict === 'wrong' ? 'WRONG' : 'unresolved'} ${g.value} (${g.op}, ${g.kind}) inferred ${JSON.stringify(g.dims)} ` +
        `runtime ${g.runtime.map((x) => JSON.stringify(x)).join(' / ')}` +
        `${g.problems.length ? ` {${g.problems.join('; ')}}` : ''} <- root ${g.root.op} ${g.root.value}${g.rootCount > 1 ? ` (+${g.rootCount - 1})` : ''}: ${g.pattern} [${g.chain}]`);
    }
    if (verbose) {
      for (const r of m.blocking) {
        lines.push(`  layer ${r.layer} root ${r.op} ${r.value} blocks ${r.values}: ${r.pattern} [${r.chain}]` +
          `${r.example ? ` inferred ${JSON.stringify(r.example.dims)} runtime ${r.example.runtime.map((x) => JSON.stringify(x)).join(' / ')}` : ''}` +
          `${r.diagnostic ? ` {${r.diagnostic}}` : ''} inputs ${r.inputs.join(', ')} attrs ${JSON.stringify(r.attrs)}`);
      }
    }
    if (verbose) for (const dg of m.diagnostics) lines.push(`  diagnostic: ${dg}`);
  }
  const s = t.sizeDependent;
  lines.push('');
  lines.push(`total: ${t.models} models, ${t.values} values: ${t.exact} exact, ${t.bounded} data-dependent with a bounded fresh symbol, ` +
    `${t.unresolved} unresolved, ${t.wrong} wrong`);
  lines.push(`size-dependent values exact: ${s.exact} / ${s.values} (${pctStr(s.exact, s.values)}); ` +
    `static values exact: ${t.static.exact} / ${t.static.values} (${pctStr(t.static.exact, t.static.values)})`);
  lines.push(`data-dependent values: ${t.dataDependent.values}: ${t.dataDependent.exact} exact, ${t.dataDependent.bounded} bounded fresh symbol, ` +
    `${t.dataDependent.unresolved} without (unknown dim or unbounded symbol), ${t.dataDependent.wrong} wrong`);
  const r = t.readability;
  lines.push(`readability: ${r.symbolic} symbolic dims, ${r.plusMinus} print '+-', ${r.over80} over 80 chars ` +
    `(${pctStr(r.over80, r.symbolic)}), ${r.over200} over 200; longest ${r.longest?.length ?? 0} ` +
    `(${r.longest?.model} ${r.longest?.value}); ${r.definitions} named sizes, the longest 'name = expr' ` +
    `${r.longestDefinition} characters`);
  if (t.patterns.length) {
    lines.push('gap by pattern of the first node that loses each value (each unresolved / wrong value once):');
    for (const p of t.patterns) {
      lines.push(`  ${padl(p.values, 6)} values (${p.sizeDependent} size-dep, ${p.static} static, ${p.dataDependent} data-dep` +
        `${p.wrong ? `, ${p.wrong} wrong` : ''}), ${padl(p.roots, 4)} roots, ${p.models.length} models: ${p.pattern}`);
    }
  }
  if (t.blocking.length) {
    lines.push('every pattern on the way (roots found again after declaring the runtime sizes of the ones before; a value counts once per layer):');
    for (const p of t.blocking) {
      lines.push(`  ${padl(p.values, 6)} values blocked, ${padl(p.roots, 4)} roots, layers ${p.layers.join(',')}, ${p.models.length} models: ${p.pattern}`);
    }
  }
  for (const c of t.constraintViolations) lines.push(`CONSTRAINT VIOLATED ${c}`);
  for (const e of t.errors) lines.push(`ERROR ${e}`);
  return lines.join('\n');
}

async function main() {
  const args = process.argv.slice(2);
  const flag = (f) => {
    const i = args.indexOf(f);
    if (i >= 0) args.splice(i, 1);
    return i >= 0;
  };
  const verbose = flag('-v');
  const json = flag('--json');
  const regenerate = flag('--regenerate');
  let dir = null;
  const di = args.indexOf('--dir');
  if (di >= 0) [, dir] = args.splice(di, 2);
  const why = unavailableReason();
  if (why) {
    console.error(`torchvision differential: ${why}`);
    process.exit(2);
  }
  let generatedSeconds = null;
  if (!dir) ({ dir, generatedSeconds } = await ensureModels({ regenerate }));
  const t0 = Date.now();
  const report = await runTorchvision(dir, { only: args });
  report.timing = { generatedSeconds, checkSeconds: (Date.now() - t0) / 1000, dir };
  if (json) console.log(JSON.stringify(report));
  else {
    console.log(formatReport(report, { verbose }));
    console.log(`models in ${dir} (${generatedSeconds === null ? 'cached' : `generated in ${generatedSeconds.toFixed(1)} s`}); ` +
      `check ${report.timing.checkSeconds.toFixed(1)} s`);
  }
  process.exitCode = report.totals.wrong || report.totals.errors.length ? 1 : 0;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch((e) => {
    console.error(e);
    process.exit(1);
  });
}
