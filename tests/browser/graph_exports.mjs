// Real exports for the graph view's tests and benchmark, made once and cached under build/:
//   llamaExport(layers)   a Llama-style decoder with a KV cache exported by torch 1.13
//                         (tests/bench/make_exports.py); 32 layers share `npm run bench`'s cache
//                         (build/bench-models/exports-<hash>/), other sizes go to
//                         build/graph_view/exports-<hash>/
//   torchvisionExport(name)  a torchvision model (tests/exporters/make_torchvision.py): from the
//                         torchvision differential's cache when it is there (Jest makes it), else
//                         only this one is exported, into build/graph_view/torchvision-<hash>/
// Each needs /usr/bin/python3 with python3-torch, python3-torchvision and python3-onnx (installed
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
make_exports.export(${JSON.stringify(tmp)}, 'llama', ${Number(layers)})`], { stdio: 'pipe', maxBuffer: 64 << 20 });
  renameSync(tmp, file);
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
  execFileSync(PYTHON, [gen, tmp, name], { stdio: 'pipe', maxBuffer: 64 << 20 });
  mkdirSync(dir, { recursive: true });
  renameSync(join(tmp, `${name}.onnx`), file);
  rmSync(tmp, { recursive: true, force: true });
  return file;
}
