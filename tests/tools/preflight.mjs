#!/usr/bin/env node
// What the test suites need, checked in seconds before any of them runs (.ci/run calls this after
// .ci/setup.sh): without one of these the suites fail, but only after minutes (torch exports,
// browser timeouts). Prints one line per missing prerequisite, naming it and how to get it, and
// exits 1; prints "preflight: ok (...)" and exits 0 when everything is there.
//   node tests/tools/preflight.mjs
// Each check is a child process with a time limit, so a broken tool cannot hang the run.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { model } from '../js/onnx_builder.js';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const SHARED = process.env.OSI_SHARED_DIR || resolve(REPO, '../shared');
const require = createRequire(import.meta.url);
const missing = [];
const found = [];

/** Runs a command with a time limit; returns null when it exits 0, else why not (one line). */
function fails(cmd, args, timeout) {
  const r = spawnSync(cmd, args, { cwd: REPO, encoding: 'utf8', timeout, env: { ...process.env, NODE_OPTIONS: '' } });
  if (r.error) return r.error.code === 'ETIMEDOUT' ? `no answer within ${timeout / 1000} s` : r.error.message;
  if (r.status !== 0) {
    // The error's own line (Node ends a crash with its version line; python with the exception).
    const lines = (r.stderr || r.stdout || '').split('\n').map((l) => l.trim()).filter((l) => l && !/^Node\.js v\d/.test(l));
    return [...lines].reverse().find((l) => /error/i.test(l)) ?? lines.pop() ?? `exit ${r.status}`;
  }
  return null;
}

// The ONNX backend tests and spec (../shared, or OSI_SHARED_DIR: .ci/shared_dir.sh).
const sharedParts = ['onnx-backend/node', 'onnx-backend/light', 'onnx-backend/simple', 'onnx-backend/pytorch-converted',
  'onnx-backend/pytorch-operator', 'onnx-spec/Operators.md', 'onnx-spec/Changelog.md'];
const absent = sharedParts.filter((p) => !existsSync(join(SHARED, p)));
if (absent.length) {
  missing.push(`the shared test data: ${absent.map((p) => join(SHARED, p)).join(', ')} absent ` +
    '(the ONNX backend tests and spec beside the repository, ../shared; or set OSI_SHARED_DIR)');
} else {
  found.push(`shared data ${SHARED}`);
}

// The built engine (npm run build).
const dist = ['dist/onnx_shapes.mjs', 'dist/onnx_shapes.wasm'].filter((f) => !existsSync(join(REPO, f)));
if (dist.length) {
  missing.push(`the built engine: ${dist.join(', ')} absent (npm run build; .ci/setup.sh builds it)`);
} else {
  const why = fails(process.execPath, ['--input-type=module', '-e',
    "const { init } = await import('./js/index.js'); const e = await init(); if (!e.version) process.exit(1);"], 60_000);
  if (why) missing.push(`the built engine: dist/onnx_shapes.wasm does not load in Node: ${why} (npm run build)`);
  else found.push('engine');
}

// python3 with onnx, torch and torchvision (Debian packages; the python3 first on PATH may lack them).
const python = '/usr/bin/python3';
const pyWhy = existsSync(python)
  ? fails(python, ['-c', 'import onnx, torch, torchvision, numpy'], 180_000)
  : `${python} is absent`;
if (pyWhy) {
  missing.push(`python3's onnx/torch/torchvision: ${pyWhy} ` +
    '(apt-get install python3-onnx python3-torch python3-torchvision python3-numpy)');
} else {
  found.push('python3-onnx/torch/torchvision');
}

// onnxruntime-node, loaded and running a model (the differential and shape-checking tests).
let ortPath = null;
try {
  ortPath = require.resolve('onnxruntime-node');
} catch (e) {
  missing.push(`onnxruntime-node: ${e.message.split('\n')[0]} (npm ci)`);
}
if (ortPath) {
  const relu = model({
    inputs: [{ name: 'x', elemType: 'float', dims: [2] }],
    outputs: [{ name: 'y', elemType: 'float', dims: [2] }],
    nodes: [{ op: 'Relu', inputs: ['x'], outputs: ['y'] }],
  });
  const script = `
    const ort = require(${JSON.stringify(ortPath)});
    const bytes = Buffer.from(${JSON.stringify(Buffer.from(relu).toString('base64'))}, 'base64');
    ort.InferenceSession.create(bytes).then((s) => s.run({ x: new ort.Tensor('float32', Float32Array.from([-1, 2]), [2]) }))
      .then((out) => { if (out.y.data[0] !== 0 || out.y.data[1] !== 2) throw new Error('Relu gave ' + out.y.data); })
      .catch((e) => { console.error(String(e.message || e).split('\\n')[0]); process.exit(1); });`;
  const why = fails(process.execPath, ['-e', script], 60_000);
  if (why) missing.push(`onnxruntime-node does not run a model: ${why} (npm ci)`);
  else found.push('onnxruntime-node');
}

// Chromium, driven by playwright-core (the browser tests and the Jest browser suites).
const chromium = [process.env.CHROMIUM, '/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome']
  .find((p) => p && existsSync(p));
if (!chromium) {
  missing.push('chromium: not found at /usr/bin/chromium (apt-get install -y chromium, or set CHROMIUM=/path)');
} else {
  const why = fails(chromium, ['--headless', '--no-sandbox', '--disable-gpu', '--version'], 60_000);
  if (why) missing.push(`chromium: ${chromium} does not run: ${why} (apt-get install -y chromium)`);
  else found.push(`chromium ${chromium}`);
  try {
    require.resolve('playwright-core');
  } catch (e) {
    missing.push(`playwright-core: ${e.message.split('\n')[0]} (npm ci)`);
  }
}

for (const m of missing) console.log(`preflight: MISSING ${m}`);
if (missing.length) {
  console.log(`preflight: ${missing.length} missing: no test suite can pass without it`);
  process.exit(1);
}
console.log(`preflight: ok (${found.join(', ')})`);
