// Instructions one wasm inferShapes(bytes) + getShape of every value costs, counted by valgrind
// (callgrind) on Node: unlike a time, the count does not depend on what else the machine runs.
//
//   node tests/bench/wasm_instructions.mjs MODEL.onnx... [--runs N] [--decoder protobuf-c|nanopb] [--engine-only | --js-only]
//
// --js-only counts the JavaScript side alone: the result read from a packed result the engine made
// once (js/result.js readPacked, ShapeInferenceResult), names() and every getShape, the previous
// result kept as the engine keeps it (and told to drop its name strings, as the engine does).
// --engine-only counts the engine's C alone: the raw module's osi_infer_with + osi_result_packed (the
// model copied in, the result packed, no JavaScript result and no getShape), which repeats to about
// 0.6% where the whole call, with V8's collector, moves by a few percent between builds.
//
// Node runs with --no-liftoff (wasm compiled once, by TurboFan, not tiered up by time) and
// --single-threaded; each model is run twice under callgrind, after the same warm-up calls, once
// with N more calls (default 4) and once without, and the difference over N is printed: start-up,
// compilation and warm-up cancel out. Counts repeat to within about 1.5% (V8 still compiles
// JavaScript on its own schedule).
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const SELF = fileURLToPath(import.meta.url);
const REPO = join(dirname(SELF), '../..');
const args = process.argv.slice(2);

if (args[0] === '--child' && args[5] === 'engine') { // MODEL WARMUP RUNS DECODER engine
  const { default: create } = await import(join(REPO, 'dist/onnx_shapes.mjs'));
  const M = await create({ wasmBinary: readFileSync(join(REPO, 'dist/onnx_shapes.wasm')) });
  const bytes = readFileSync(args[1]);
  const flags = args[4] === 'nanopb' ? 1 << 9 : 1 << 8;
  const once = () => {
    const p = M._malloc(bytes.length || 1) >>> 0;
    M.HEAPU8.set(bytes, p);
    const r = M._osi_infer_with(p, bytes.length, flags, 0) >>> 0;
    const len = M._malloc(8) >>> 0;
    M._osi_result_packed(r, len);
    M._free(len);
    M._osi_result_delete(r);
    M._free(p);
  };
  for (let i = 0; i < Number(args[2]) + Number(args[3]); i++) once();
  process.exit(0);
}

if (args[0] === '--child' && args[5] === 'js') { // MODEL WARMUP RUNS DECODER js
  const { default: create } = await import(join(REPO, 'dist/onnx_shapes.mjs'));
  const result = await import(join(REPO, 'js/result.js'));
  const M = await create({ wasmBinary: readFileSync(join(REPO, 'dist/onnx_shapes.wasm')) });
  const bytes = readFileSync(args[1]);
  const p = M._malloc(bytes.length || 1) >>> 0;
  M.HEAPU8.set(bytes, p);
  const r = M._osi_infer_with(p, bytes.length, args[4] === 'nanopb' ? 1 << 9 : 1 << 8, 0) >>> 0;
  const packed = M._osi_result_packed(r, 0) >>> 0;
  let last = null;
  const once = () => {
    if (last) result.releaseStrings?.(last);
    const res = new result.ShapeInferenceResult(result.readPacked(M.HEAPU8, packed));
    for (const name of res.names()) res.getShape(name);
    last = res;
  };
  for (let i = 0; i < Number(args[2]) + Number(args[3]); i++) once();
  process.exit(0);
}

if (args[0] === '--child') { // the measured process: MODEL WARMUP RUNS DECODER
  const { init } = await import(join(REPO, 'js/index.js'));
  const engine = await init();
  const bytes = readFileSync(args[1]);
  const options = args[4] ? { decoder: args[4] } : undefined;
  const once = () => {
    const r = engine.inferShapes(bytes, options);
    for (const name of r.names()) r.getShape(name);
  };
  for (let i = 0; i < Number(args[2]) + Number(args[3]); i++) once();
  process.exit(0);
}

const opt = (name, dflt) => (args.includes(name) ? args[args.indexOf(name) + 1] : dflt);
const runs = Number(opt('--runs', 4));
const decoder = opt('--decoder', '');
const engineOnly = args.includes('--engine-only');
const jsOnly = args.includes('--js-only');
const models = args.filter((a, i) => !a.startsWith('--') && !['--runs', '--decoder'].includes(args[i - 1]));
if (!models.length) {
  console.error('usage: node tests/bench/wasm_instructions.mjs MODEL.onnx... [--runs N] [--decoder protobuf-c|nanopb] [--engine-only | --js-only]');
  process.exit(2);
}

function count(model, n) {
  const p = spawnSync('valgrind', ['--tool=callgrind', '--smc-check=all', '--callgrind-out-file=/dev/null',
    process.execPath, '--no-liftoff', '--single-threaded', SELF, '--child', model, '3', String(n), decoder,
    engineOnly ? 'engine' : jsOnly ? 'js' : ''],
  { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  const m = /Collected : (\d+)/.exec(p.stderr ?? '');
  if (p.status !== 0 || !m) throw new Error(`valgrind failed on ${model}: ${(p.error?.message ?? p.stderr).trim().split('\n').slice(-3).join(' ')}`);
  return Number(m[1]);
}

for (const model of models) {
  const per = (count(model, runs) - count(model, 0)) / runs;
  const what = engineOnly ? "the engine's C: osi_infer_with + osi_result_packed"
    : jsOnly ? 'the JavaScript side: the result read from the packed bytes, names(), every getShape' : 'inferShapes + every getShape';
  console.log(`${basename(model)}: ${(per / 1e6).toFixed(engineOnly || jsOnly ? 2 : 1)}M instructions a call (${what}${decoder ? `, ${decoder}` : ''})`);
}
