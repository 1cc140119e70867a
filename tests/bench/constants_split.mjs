// Where python3-onnx and the wasm engine spend their time on an export, split by node kind:
// the model as it is, its Constant nodes alone (their outputs as graph outputs), and the rest
// (every Constant made an initializer holding the same tensor). Prints CPU-time medians (9
// python3-onnx runs, 15 wasm runs of inferShapes + every getShape) for each. Not a test.
//
//   node tests/bench/constants_split.mjs MODEL.onnx... [--keep DIR]
//
// --keep DIR writes the variants to DIR and leaves them there (for load-independent instruction
// counts: tests/bench/wasm_instructions.mjs, and valgrind of python3-onnx as PY_COUNT below does).
//
// (The README's "Why GPT-2's ratio to python3-onnx is twice Llama's" comes from this, on
// build/bench-models/exports-*/{llama,gpt2}_32.onnx.)
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO = join(dirname(fileURLToPath(import.meta.url)), '../..');

const PY = `
import sys, time, onnx
from onnx import shape_inference
out = sys.argv[1]
runs = {}
for src in sys.argv[2:]:
    m = onnx.load(src)
    name = src.split('/')[-1][:-5]
    consts = [n for n in m.graph.node if n.op_type == 'Constant']
    mc = onnx.ModelProto(); mc.CopyFrom(m)
    del mc.graph.node[:]; mc.graph.node.extend(consts)
    del mc.graph.input[:]; del mc.graph.initializer[:]; del mc.graph.value_info[:]; del mc.graph.output[:]
    mc.graph.output.extend([onnx.ValueInfoProto(name=n.output[0]) for n in consts])
    mr = onnx.ModelProto(); mr.CopyFrom(m)
    del mr.graph.node[:]; mr.graph.node.extend([n for n in m.graph.node if n.op_type != 'Constant'])
    for n in consts:
        t = onnx.TensorProto(); t.CopyFrom(n.attribute[0].t); t.name = n.output[0]
        mr.graph.initializer.append(t)
    for kind, model in (('all', m), ('constants', mc), ('rest', mr)):
        path = f'{out}/{name}.{kind}.onnx'
        onnx.save(model, path)
        runs[path] = (model, len(model.graph.node))
for path, (model, _) in runs.items(): shape_inference.infer_shapes(model, data_prop=True)
times = {path: [] for path in runs}
for _ in range(9):
    for path, (model, _) in runs.items():
        c = time.process_time(); shape_inference.infer_shapes(model, data_prop=True)
        times[path].append((time.process_time() - c) * 1e3)
for path, (model, nodes) in runs.items(): print(path, nodes, sorted(times[path])[4])
`;

const args = process.argv.slice(2);
const keep = args.includes('--keep') ? args[args.indexOf('--keep') + 1] : null;
const models = args.filter((a, i) => a !== '--keep' && args[i - 1] !== '--keep');
if (!models.length) {
  console.error('usage: node tests/bench/constants_split.mjs MODEL.onnx...');
  process.exit(2);
}
const dir = keep ?? mkdtempSync(join(tmpdir(), 'osi-constants-split-'));
try {
  const py = spawnSync('/usr/bin/python3', ['-c', PY, dir, ...models], { encoding: 'utf8', timeout: 30 * 60 * 1000 });
  if (py.status !== 0) throw new Error(`python3-onnx failed: ${(py.error?.message ?? py.stderr).trim().split('\n').slice(-3).join(' ')}`);
  const { init } = await import(join(REPO, 'js/index.js'));
  const engine = await init();
  const once = (bytes) => {
    const r = engine.inferShapes(bytes);
    for (const k of r.names()) r.getShape(k);
  };
  console.log('model                         nodes   python3-onnx CPU ms   wasm CPU ms   ratio');
  for (const line of py.stdout.trim().split('\n')) {
    const [path, nodes, pyMs] = line.split(' ');
    const bytes = readFileSync(path);
    for (let i = 0; i < 5; i++) once(bytes);
    const v = [];
    for (let i = 0; i < 15; i++) {
      const c = process.cpuUsage();
      once(bytes);
      const d = process.cpuUsage(c);
      v.push((d.user + d.system) / 1000);
    }
    v.sort((a, b) => a - b);
    const w = v[7];
    console.log(`${basename(path).padEnd(28)} ${nodes.padStart(6)}   ${Number(pyMs).toFixed(1).padStart(18)}   ${w.toFixed(2).padStart(11)}   ${(w / Number(pyMs)).toFixed(3)}`);
  }
} finally {
  if (!keep) rmSync(dir, { recursive: true, force: true });
}
