// npm run bench: decode+infer time and peak wasm heap of both decoders on generated models, against
// Debian's python3-onnx (onnx.shape_inference.infer_shapes(model, data_prop=True)) on the same files.
//
//   node tests/bench/decode_bench.mjs [--keep]          all models (written to a temp folder)
//   node tests/bench/decode_bench.mjs --run FILE DECODER (internal: one measurement in a fresh process)
//
// Each (model, decoder) runs in its own node process, so "peak heap" is the wasm memory size after
// the runs (it never shrinks). Times are the best of 3. protobuf-c: engine.inferShapes(bytes) with
// the file already in JS memory (the copy into wasm is included); nanopb: engine.inferShapesFromPath
// (file reads included). Python: onnx.load + infer_shapes, peak RSS (ru_maxrss) of its process.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { tensor } from '../js/onnx_builder.js';
import { Pieces, bigModel, bigTensor, matmulChain, writePieces } from '../js/big_model.js';

const SELF = fileURLToPath(import.meta.url);
const MiB = 2 ** 20;

if (process.argv[2] === '--run') {
  const [, , , file, decoder] = process.argv;
  const { init } = await import('../../js/index.js');
  const engine = await init();
  const bytes = decoder === 'protobuf-c' ? readFileSync(file) : null;
  let best = Infinity;
  let nodes = 0;
  for (let i = 0; i < 3; i++) {
    const t0 = performance.now();
    const r = bytes ? engine.inferShapes(bytes, { decoder }) : engine.inferShapesFromPath(file);
    best = Math.min(best, performance.now() - t0);
    nodes = r.nodes.length;
  }
  console.log(JSON.stringify({ ms: best, heap: engine._runHeapBytes(), nodes }));
  process.exit(0);
}

// Section - models

function manyNodes(n = 100000) {
  const nodes = [];
  for (let i = 0; i < n; i++) {
    nodes.push({ op: i % 2 ? 'Relu' : 'Neg', name: `n${i}`, inputs: [i ? `v${i - 1}` : 'X'], outputs: [i === n - 1 ? 'Y' : `v${i}`] });
  }
  return bigModel({ nodes, inputs: [{ name: 'X', elemType: 'float', dims: ['N', 64] }], outputs: ['Y'] });
}

function transformer({ layers = 32, d = 512, heads = 8 } = {}) {
  const nodes = [];
  const inits = [];
  const small = [];
  const w = (name, dims) => inits.push(bigTensor({ name, dims }));
  small.push(tensor({ name: 'split_heads', elemType: 'int64', dims: [4], int64Data: [0, 0, heads, d / heads] }));
  small.push(tensor({ name: 'merge_heads', elemType: 'int64', dims: [3], int64Data: [0, 0, d] }));
  small.push(tensor({ name: 'scale', elemType: 'float', dims: [], floatData: [Math.sqrt(d / heads)] }));
  let x = 'X';
  const add = (op, inputs, outputs, attrs) => nodes.push({ op, name: `${outputs[0]}_${op}`, inputs, outputs, attrs });
  for (let l = 0; l < layers; l++) {
    const p = `l${l}_`;
    w(`${p}ln1_g`, [d]); w(`${p}ln1_b`, [d]);
    add('LayerNormalization', [x, `${p}ln1_g`, `${p}ln1_b`], [`${p}ln1`], { axis: -1 });
    for (const m of ['q', 'k', 'v']) {
      w(`${p}W${m}`, [d, d]);
      add('MatMul', [`${p}ln1`, `${p}W${m}`], [`${p}${m}`]);
      add('Reshape', [`${p}${m}`, 'split_heads'], [`${p}${m}h`]);
      add('Transpose', [`${p}${m}h`], [`${p}${m}t`], { perm: m === 'k' ? [0, 2, 3, 1] : [0, 2, 1, 3] });
    }
    add('MatMul', [`${p}qt`, `${p}kt`], [`${p}scores`]);
    add('Div', [`${p}scores`, 'scale'], [`${p}scaled`]);
    add('Softmax', [`${p}scaled`], [`${p}probs`], { axis: -1 });
    add('MatMul', [`${p}probs`, `${p}vt`], [`${p}ctx`]);
    add('Transpose', [`${p}ctx`], [`${p}ctxt`], { perm: [0, 2, 1, 3] });
    add('Reshape', [`${p}ctxt`, 'merge_heads'], [`${p}merged`]);
    w(`${p}Wo`, [d, d]);
    add('MatMul', [`${p}merged`, `${p}Wo`], [`${p}attn`]);
    add('Add', [x, `${p}attn`], [`${p}res1`]);
    w(`${p}ln2_g`, [d]); w(`${p}ln2_b`, [d]);
    add('LayerNormalization', [`${p}res1`, `${p}ln2_g`, `${p}ln2_b`], [`${p}ln2`], { axis: -1 });
    w(`${p}W1`, [d, 4 * d]); w(`${p}W2`, [4 * d, d]);
    add('MatMul', [`${p}ln2`, `${p}W1`], [`${p}up`]);
    add('Relu', [`${p}up`], [`${p}act`]);
    add('MatMul', [`${p}act`, `${p}W2`], [`${p}down`]);
    const out = l === layers - 1 ? 'Y' : `${p}out`;
    add('Add', [`${p}res1`, `${p}down`], [out]);
    x = out;
  }
  return bigModel({ nodes, initializers: [...small.map((b) => new Pieces().bytes(b)), ...inits], inputs: [{ name: 'X', elemType: 'float', dims: ['B', 'S', d] }], outputs: ['Y'] });
}

// Section - runs

function measure(file, decoder) {
  const p = spawnSync(process.execPath, [SELF, '--run', file, decoder], { encoding: 'utf8', maxBuffer: 1 << 20 });
  if (p.status !== 0) return { error: (p.stderr || '').trim().split('\n').slice(-3).join(' ') };
  return JSON.parse(p.stdout.trim().split('\n').pop());
}

const PY = `
import sys, time, resource, onnx
from onnx import shape_inference
t0 = time.perf_counter()
m = onnx.load(sys.argv[1])
t1 = time.perf_counter()
best = None
for _ in range(int(sys.argv[2])):
    s = time.perf_counter(); shape_inference.infer_shapes(m, data_prop=True); e = time.perf_counter() - s
    best = e if best is None else min(best, e)
print('{"load_ms": %f, "infer_ms": %f, "rss": %d}' % ((t1 - t0) * 1e3, best * 1e3, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024))
`;

function python(file, size) {
  const p = spawnSync('/usr/bin/python3', ['-c', PY, file, size > 256 * MiB ? '1' : '3'], { encoding: 'utf8' });
  if (p.status !== 0) return { error: (p.stderr || '').trim().split('\n').slice(-1)[0] };
  return JSON.parse(p.stdout.trim());
}

const dir = mkdtempSync(join(tmpdir(), 'osi-bench-'));
const models = [
  ['100k-node chain', 'many_nodes.onnx', () => manyNodes()],
  ['1 GiB of initializers (8 x 128 MiB)', 'big_weights.onnx', () => matmulChain({ layers: 8 })],
  ['32-layer transformer (d=512, 392 MiB)', 'transformer.onnx', () => transformer()],
];
const fmt = (ms) => (ms < 10 ? ms.toFixed(2) : ms.toFixed(0));
try {
  console.log(`models in ${dir}; times: best of 3 (python: best of 3, 1 for files > 256 MiB)\n`);
  for (const [title, name, make] of models) {
    const file = join(dir, name);
    const size = writePieces(file, make());
    const pbc = measure(file, 'protobuf-c');
    const npb = measure(file, 'nanopb');
    const py = python(file, size);
    console.log(`${title}: ${(size / MiB).toFixed(1)} MiB, ${npb.nodes ?? pbc.nodes} nodes`);
    for (const [dec, r] of [['protobuf-c', pbc], ['nanopb (stream)', npb]]) {
      if (r.error) console.log(`  ${dec.padEnd(16)} FAILED: ${r.error}`);
      else console.log(`  ${dec.padEnd(16)} ${fmt(r.ms).padStart(8)} ms   peak wasm heap ${(r.heap / MiB).toFixed(0).padStart(5)} MiB`);
    }
    if (py.error) console.log(`  python3-onnx     FAILED: ${py.error}`);
    else {
      const ratio = (r) => (r.error ? 'n/a' : `${(py.infer_ms / r.ms).toFixed(1)}x`);
      const mem = (r) => (r.error ? 'n/a' : `${(py.rss / r.heap).toFixed(1)}x`);
      console.log(`  python3-onnx     ${fmt(py.infer_ms).padStart(8)} ms   peak RSS ${(py.rss / MiB).toFixed(0).padStart(5)} MiB  (+ onnx.load ${fmt(py.load_ms)} ms)`);
      console.log(`  python/ours      time protobuf-c ${ratio(pbc)}, nanopb ${ratio(npb)};  memory (RSS/heap) protobuf-c ${mem(pbc)}, nanopb ${mem(npb)}`);
    }
    console.log('');
    if (!process.argv.includes('--keep')) rmSync(file, { force: true });
  }
} finally {
  if (!process.argv.includes('--keep')) rmSync(dir, { recursive: true, force: true });
}
