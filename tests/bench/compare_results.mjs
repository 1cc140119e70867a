// Digests of everything a result gives, for checking that a speed change changed no result: run it
// from two checkouts (each uses its own js/ and dist/) on the same models and diff the outputs.
//
//   node tests/bench/compare_results.mjs [--cost] OUT.txt PATH...    (PATH: a .onnx file, or a folder searched for them)
//
// With --cost, the results are inferred with { cost: true } and the engine's cost JSON is printed
// before anything else (its texts are printed apart: the shapes must not change), and each line ends
// with `cost <SHA-256 of the cost model>`, so that a diff shows shape and cost changes apart.
//
// Each model is inferred with both decoders; one line per model and decoder holds the SHA-256 of
// names(), every getShape of names(), the whole result as JSON (values, producers, nodes, subgraphs,
// diagnostics, constraints, definitions, domain), the engine's packed bytes and its full JSON
// (osi_result_packed, osi_result_json, read from a second instance of the module), or the error.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO = join(dirname(fileURLToPath(import.meta.url)), '../..');
const args = process.argv.slice(2);
const withCost = args[0] === '--cost';
const [out, ...paths] = withCost ? args.slice(1) : args;
if (!out || !paths.length) {
  console.error('usage: node tests/bench/compare_results.mjs OUT.txt PATH...');
  process.exit(2);
}

const { init } = await import(join(REPO, 'js/index.js'));
const engine = await init();
const { default: create } = await import(join(REPO, 'dist/onnx_shapes.mjs'));
const M = await create({ wasmBinary: readFileSync(join(REPO, 'dist/onnx_shapes.wasm')) });
const DECODERS = { 'protobuf-c': 1 << 8, nanopb: 1 << 9 };

function files(p) {
  if (statSync(p).isFile()) return p.endsWith('.onnx') ? [p] : [];
  return readdirSync(p).sort().flatMap((f) => files(join(p, f)));
}

const sha = (x) => createHash('sha256').update(x).digest('hex').slice(0, 16);

/** The packed bytes and the JSON of the raw module for `bytes`. */
function raw(bytes, flags) {
  const p = M._malloc(bytes.length || 1) >>> 0;
  M.HEAPU8.set(bytes, p);
  const r = M._osi_infer_with(p, bytes.length, flags, 0) >>> 0;
  try {
    if (M._osi_result_status(r) !== 0) return `status ${M._osi_result_status(r)}`;
    const cost = withCost ? ` cost ${sha(M.UTF8ToString(M._osi_result_cost_json(r)))}` : '';
    const len = M._malloc(8) >>> 0;
    const at = M._osi_result_packed(r, len) >>> 0;
    const H = M.HEAPU8; // after the call: memory may have grown
    const n = (H[len] | (H[len + 1] << 8) | (H[len + 2] << 16) | (H[len + 3] << 24)) >>> 0;
    M._free(len);
    return `${sha(H.subarray(at, at + n))} ${sha(M.UTF8ToString(M._osi_result_json(r)))}${cost}`;
  } finally {
    M._osi_result_delete(r);
    M._free(p);
  }
}

const lines = [];
for (const file of paths.flatMap(files)) {
  const bytes = readFileSync(file);
  if (bytes.length > 64 * 1024 * 1024) continue;
  for (const [decoder, flag] of Object.entries(DECODERS)) {
    let line;
    try {
      const r = engine.inferShapes(bytes, { decoder, cost: withCost });
      const names = r.names();
      const shapes = JSON.stringify(names.map((n) => r.getShape(n)));
      const { costModel, ...rest } = JSON.parse(JSON.stringify(r));
      line = `${sha(JSON.stringify(names))} ${sha(shapes)} ${sha(JSON.stringify(rest))} ${raw(bytes, flag)}`;
    } catch (err) {
      line = `error ${err.code ?? ''} ${err.message}`;
    }
    lines.push(`${file} ${decoder} ${line}`);
  }
}
writeFileSync(out, `${lines.join('\n')}\n`);
console.log(`${lines.length} results (${lines.length / 2} models, both decoders) -> ${out}`);
