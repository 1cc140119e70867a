// Real exports for the graph view's tests and benchmark, made once and cached under build/:
//   llamaExport(layers)   a Llama-style decoder with a KV cache exported by torch 1.13
//                         (tests/bench/make_exports.py); 32 layers share `npm run bench`'s cache
//                         (build/bench-models/exports-<hash>/), other sizes go to
//                         build/graph_view/exports-<hash>/
//   torchvisionExport(name)  a torchvision model (tests/exporters/make_torchvision.py): from the
//                         torchvision differential's cache when it is there (Jest makes it), else
//                         only this one is exported, into build/graph_view/torchvision-<hash>/
//   deepChain(count, levels)  a chain of Relu nodes named a/a/.../a/n<i> (issue 30 item 3)
//   generated(name, make)  a model of tests/bench/make_models.py (`make` is the call, e.g. 'cnn()'),
//                         cached as build/graph_view/<name>.onnx
// The exports need /usr/bin/python3 with python3-torch, python3-torchvision and python3-onnx (installed
// by .ci/setup.sh); a missing one fails the test that asked.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { cacheDir as torchvisionCache } from '../exporters/torchvision.mjs';
import { REPO } from './harness.mjs';

const PYTHON = '/usr/bin/python3';
const hashOf = (...files) => {
  const h = createHash('sha256');
  for (const f of files) h.update(readFileSync(f));
  return h;
};

/** The path of `llama_<layers>.onnx`, exported on first use (32 layers: about a minute of CPU). */
export function llamaExport(layers) {
  const script = join(REPO, 'tests/bench/make_exports.py');
  const hash = hashOf(script).digest('hex').slice(0, 12);
  const dir = layers === 32 ? join(REPO, 'build/bench-models', `exports-${hash}`) : join(REPO, 'build/graph_view', `exports-${hash}`);
  const file = join(dir, `llama_${layers}.onnx`);
  if (existsSync(file)) return file;
  mkdirSync(dir, { recursive: true });
  const tmp = `${file}.tmp-${process.pid}.onnx`;
  execFileSync(PYTHON, ['-c', `
import sys
sys.path.insert(0, ${JSON.stringify(join(REPO, 'tests/bench'))})
import make_exports
make_exports.export(${JSON.stringify(tmp)}, 'llama', ${Number(layers)})`], { stdio: 'pipe', maxBuffer: 64 << 20, timeout: 1_800_000 });
  renameSync(tmp, file);
  return file;
}

/** build/graph_view/<name>.onnx made by tests/bench/make_models.py's `make` (cached). */
export function generated(name, make) {
  const file = join(REPO, `build/graph_view/${name}.onnx`);
  if (!existsSync(file)) {
    mkdirSync(join(REPO, 'build/graph_view'), { recursive: true });
    execFileSync(PYTHON, ['-c', `import sys, onnx; sys.path.insert(0, ${JSON.stringify(join(REPO, 'tests/bench'))}); import make_models; onnx.save(make_models.${make}, ${JSON.stringify(file)})`], { timeout: 300_000 });
  }
  return file;
}

/** The path of torchvision export `name` (e.g. detection_faster_rcnn_op13_dict), exported when absent. */
export function torchvisionExport(name) {
  const shared = join(torchvisionCache(), `${name}.onnx`);
  if (existsSync(shared)) return shared;
  const gen = join(REPO, 'tests/exporters/make_torchvision.py');
  const hash = hashOf(gen, join(REPO, 'tests/exporters/make_models.py')).digest('hex').slice(0, 16);
  const dir = join(REPO, 'build/graph_view', `torchvision-${hash}`);
  const file = join(dir, `${name}.onnx`);
  if (existsSync(file)) return file;
  const tmp = `${dir}.tmp-${process.pid}`;
  rmSync(tmp, { recursive: true, force: true });
  execFileSync(PYTHON, [gen, tmp, name], { stdio: 'pipe', maxBuffer: 64 << 20, timeout: 1_800_000 });
  mkdirSync(dir, { recursive: true });
  renameSync(join(tmp, `${name}.onnx`), file);
  rmSync(tmp, { recursive: true, force: true });
  return file;
}

// Section - A small protobuf writer for these models (onnx_builder.js writes byte by byte: the
// 12 MB model would take it seconds)

const varint = (n) => {
  const b = [];
  while (n > 127) { b.push((n % 128) | 128); n = Math.floor(n / 128); }
  b.push(n);
  return Buffer.from(b);
};
const bytesField = (no, payload) => Buffer.concat([varint((no << 3) | 2), varint(payload.length), payload]);
const intField = (no, v) => Buffer.concat([varint(no << 3), varint(v)]);
const str = (no, s) => bytesField(no, Buffer.from(s, 'utf8'));
const FLOAT = 1;

/** ValueInfoProto of a float tensor [N, 4]. */
const tensorInfo = (name) => Buffer.concat([
  str(1, name),
  bytesField(2, bytesField(1, Buffer.concat([intField(1, FLOAT), bytesField(2, Buffer.concat([bytesField(1, str(2, 'N')), bytesField(1, intField(1, 4))]))]))),
]);

/**
 * A chain of `count` Relu nodes named `a/a/.../a/n<i>` (`levels` parts before the leaf), from
 * input x to the last output: one ModelProto (IR 8, opset 17).
 */
export function deepChain(count, levels) {
  const prefix = 'a/'.repeat(levels);
  const nodes = [];
  for (let i = 0; i < count; i++) {
    nodes.push(bytesField(1, Buffer.concat([str(1, i ? `v${i - 1}` : 'x'), str(2, `v${i}`), str(3, `${prefix}n${i}`), str(4, 'Relu')])));
  }
  const graph = Buffer.concat([...nodes, str(2, 'deep'), bytesField(11, tensorInfo('x')), bytesField(12, tensorInfo(`v${count - 1}`))]);
  return Buffer.concat([intField(1, 8), bytesField(8, intField(2, 17)), bytesField(7, graph)]);
}
