// npm run bench: how fast onnx-shapes infers shapes, natively and in wasm, against Debian's
// python3-onnx (onnx.shape_inference.infer_shapes(model, data_prop=True)) on the same bytes.
// A benchmark, not a test: it prints figures and whether the performance targets are met.
//
//   node tests/bench/bench.mjs [--keep] [--only shapes|decode] [--runs N]
//
// shapes: tests/bench/make_models.py (python3-onnx, onnx.helper) writes, in a temp folder,
//   exporter-style decoder-only transformers of 1, 8, 32 and 128 layers (Shape/Gather/Unsqueeze/
//   Concat/Reshape around every attention, KV cache Concat with past, Range/Expand/Where attention
//   mask, rotary Slice/Neg/Concat; symbolic batch/seq/past_seq), a ~100k-node CNN and a 100k-node
//   chain. For each model:
//     native  build/bench_native (tests/bench/bench_native.c): osi_infer + osi_result_json_compact,
//             median of N after a warm-up run;
//     wasm    engine.inferShapes(bytes) in Node, end to end (copy in, decode, inference, JSON,
//             JSON.parse and the frozen result) plus one result.getShape(name), median of N after
//             warm-up runs (>= 0.5 s), in a fresh process per model; "heap" is the wasm memory
//             size afterwards (it never shrinks: the peak). result.values and .producers are
//             built on first read, outside the timed runs: "+objects" is the time of that first read of both;
//             The 32- and 128-layer models also run with each decoder forced, for the growth
//             checks: the default switches to nanopb streaming at 8 MiB;
//     python  onnx.shape_inference.infer_shapes(model, data_prop=True) on the loaded model: only
//             that call is timed, median of a few runs after one warm-up call.
//   Then the download size a browser needs for inferShapes: js/index.js, js/errors.js,
//   dist/onnx_shapes.mjs and dist/onnx_shapes.wasm, gzipped.
// decode: tests/bench/decode_bench.mjs (both decoders on big models, streamed and in memory).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

const SELF = fileURLToPath(import.meta.url);
const HERE = dirname(SELF);
const REPO = join(HERE, '../..');
const MiB = 2 ** 20;
const args = process.argv.slice(2);
const opt = (name, dflt) => (args.includes(name) ? args[args.indexOf(name) + 1] : dflt);

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[s.length >> 1] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

// Section - One wasm measurement (child process)

if (args[0] === '--run-wasm') {
  const [, file, runs, warm, decoder] = args;
  const { init } = await import('../../js/index.js');
  const engine = await init();
  const bytes = readFileSync(file);
  const options = decoder && decoder !== 'auto' ? { decoder } : undefined;
  let r;
  // Warm-up: at least `warm` runs and half a second (V8 tiers hot wasm functions up from its
  // baseline compiler to the optimizing one while they run; small models need many runs for it).
  for (let i = 0, t0 = performance.now(); i < Number(warm) || (performance.now() - t0 < 500 && i < 1000); i++) {
    r = engine.inferShapes(bytes, options);
  }
  const probe = r.names().at(-1); // a value name to look up in each timed run, as callers do
  const times = [];
  for (let i = 0; i < Number(runs); i++) {
    const t0 = performance.now();
    r = engine.inferShapes(bytes, options);
    if (!r.getShape(probe)) throw new Error(`${probe}: no type`);
    times.push(performance.now() - t0);
  }
  const t0 = performance.now();
  const count = Object.keys(r.values).length;
  Object.keys(r.producers);
  const valuesMs = performance.now() - t0;
  console.log(JSON.stringify({ ms: median(times), min: Math.min(...times), heap: engine._heapBytes(), values: count, valuesMs }));
  process.exit(0);
}

// Section - Runners

function run(cmd, argv, what) {
  const p = spawnSync(cmd, argv, { encoding: 'utf8', maxBuffer: 16 * MiB });
  if (p.status !== 0) throw new Error(`${what} failed: ${(p.stderr || p.error?.message || '').trim().split('\n').slice(-3).join(' ')}`);
  return p.stdout.trim().split('\n');
}

function nativeDriver() {
  const exe = join(REPO, 'build/bench_native');
  const p = spawnSync('cmake', ['--build', join(REPO, 'build'), '--target', 'bench_native', '-j2'], { encoding: 'utf8' });
  if (p.status !== 0 && !existsSync(exe)) return null;
  return existsSync(exe) ? exe : null;
}

const PY = `
import sys, time, json, onnx
from onnx import shape_inference
m = onnx.load(sys.argv[1])
shape_inference.infer_shapes(m, data_prop=True)  # warm-up (first-call costs)
ts = []
for _ in range(int(sys.argv[2])):
    s = time.perf_counter(); shape_inference.infer_shapes(m, data_prop=True); ts.append(time.perf_counter() - s)
ts.sort()
n = len(ts)
print(json.dumps({"ms": (ts[n // 2] if n % 2 else (ts[n // 2 - 1] + ts[n // 2]) / 2) * 1e3}))
`;

// Section - Shape inference benchmark

function shapesBench() {
  const dir = mkdtempSync(join(tmpdir(), 'osi-bench-shapes-'));
  const keep = args.includes('--keep');
  try {
    console.log(`== shape inference (models in ${dir}) ==`);
    const models = run('/usr/bin/python3', [join(HERE, 'make_models.py'), dir], 'make_models.py').map((l) => JSON.parse(l));
    const native = nativeDriver();
    if (!native) console.log('(build/bench_native unavailable: run `npm run build:native`; native column skipped)');
    const rows = [];
    for (const m of models) {
      const big = m.nodes > 20000;
      const runs = Number(opt('--runs', big ? 7 : m.nodes > 1000 ? 15 : 61));
      const nat = native ? JSON.parse(run(native, [m.file, String(runs)], 'bench_native').pop()) : null;
      const wasmRun = (decoder) => JSON.parse(run(process.execPath, [SELF, '--run-wasm', m.file, String(runs), big ? '2' : '5', decoder], 'wasm run').pop());
      const wasm = wasmRun('auto');
      // The growth pair also runs each decoder alone: inferShapes(bytes) switches from protobuf-c
      // to nanopb streaming at 8 MiB (for memory), so 32 vs 128 layers compares two decoders.
      const perDecoder = /^transformer_(32|128)\.onnx$/.test(m.file.split('/').pop())
        ? { pbc: wasmRun('protobuf-c').ms, npb: wasmRun('nanopb').ms } : {};
      const py = JSON.parse(run('/usr/bin/python3', ['-c', PY, m.file, big ? '3' : m.nodes > 1000 ? '5' : '11'], 'python3-onnx').pop());
      const name = m.file.split('/').pop().replace(/\.onnx$/, '');
      rows.push({ name, nodes: m.nodes, mib: m.bytes / MiB, native: nat?.total_ms, nativeJson: nat?.json_ms, wasm: wasm.ms, valuesMs: wasm.valuesMs, heap: wasm.heap / MiB, py: py.ms, ...perDecoder });
      const r = rows[rows.length - 1];
      console.log(`${name.padEnd(16)} ${String(r.nodes).padStart(6)} nodes ${r.mib.toFixed(1).padStart(5)} MiB | native ${fmt(r.native)} ms | wasm ${fmt(r.wasm)} ms (+objects ${fmt(r.valuesMs)}), heap ${r.heap.toFixed(0).padStart(4)} MiB | python3-onnx ${fmt(r.py)} ms | wasm/onnx ${(r.wasm / r.py).toFixed(2)}  wasm/native ${r.native ? (r.wasm / r.native).toFixed(2) : 'n/a'}`);
      if (!keep) rmSync(m.file, { force: true });
    }
    console.log('');
    const by = Object.fromEntries(rows.map((r) => [r.name, r]));
    const checks = [];
    for (const r of rows) checks.push([`${r.name}: wasm <= 0.5 x onnx`, r.wasm / r.py, r.wasm <= 0.5 * r.py]);
    const t32 = by.transformer_32, t128 = by.transformer_128;
    if (t32 && t128) {
      console.log(`wasm, one decoder: transformer_32 protobuf-c ${fmt(t32.pbc)} ms, nanopb ${fmt(t32.npb)} ms | transformer_128 protobuf-c ${fmt(t128.pbc)} ms, nanopb ${fmt(t128.npb)} ms`);
      console.log(`wasm, inferShapes(bytes) default: 32 layers (${t32.mib.toFixed(1)} MiB) protobuf-c, 128 layers (${t128.mib.toFixed(1)} MiB) nanopb streaming: ${(t128.wasm / t32.wasm).toFixed(2)} x`);
      checks.push(['linear growth: wasm protobuf-c 128 layers <= 4.5 x 32 layers', t128.pbc / t32.pbc, t128.pbc <= 4.5 * t32.pbc]);
      checks.push(['linear growth: wasm nanopb 128 layers <= 4.5 x 32 layers', t128.npb / t32.npb, t128.npb <= 4.5 * t32.npb]);
      if (t32.native) checks.push(['linear growth: native 128 layers <= 4.5 x 32 layers', t128.native / t32.native, t128.native <= 4.5 * t32.native]);
    }
    for (const r of rows.filter((x) => x.nodes >= 99000)) checks.push([`${r.name}: wasm < 1 s`, r.wasm / 1000, r.wasm < 1000]);
    const files = ['js/index.js', 'js/errors.js', 'dist/onnx_shapes.mjs', 'dist/onnx_shapes.wasm'];
    const gz = files.reduce((sum, f) => sum + gzipSync(readFileSync(join(REPO, f)), { level: 9 }).length, 0);
    checks.push([`browser download (${files.join(' + ')}) gzipped <= 250 KB: ${(gz / 1024).toFixed(1)} KB`, gz / 1024 / 250, gz <= 250 * 1024]);
    for (const [what, ratio, ok] of checks) console.log(`${ok ? 'PASS' : 'MISS'}  ${what}  (${ratio.toFixed(2)})`);
    console.log('');
    return checks.every((c) => c[2]);
  } finally {
    if (!keep) rmSync(dir, { recursive: true, force: true });
  }
}

function fmt(ms) {
  if (ms === undefined || ms === null) return '     n/a';
  return (ms < 10 ? ms.toFixed(2) : ms < 100 ? ms.toFixed(1) : ms.toFixed(0)).padStart(8);
}

// Section - Main

const only = opt('--only', null);
if (only && only !== 'shapes' && only !== 'decode') throw new Error('--only takes shapes or decode');
if (only !== 'decode') shapesBench();
if (only !== 'shapes') {
  console.log('== decoders on big models (tests/bench/decode_bench.mjs) ==');
  const p = spawnSync(process.execPath, [join(HERE, 'decode_bench.mjs'), ...(args.includes('--keep') ? ['--keep'] : [])], { stdio: 'inherit' });
  if (p.status !== 0) process.exitCode = p.status ?? 1;
}
