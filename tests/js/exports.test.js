// The wasm export list, the JS wrapper, the C header and index.d.ts agree with each other.
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import * as api from '../../js/index.js';
import { REPO } from './helpers.js';

const read = (...p) => readFileSync(join(REPO, ...p), 'utf8');
const exportsJson = JSON.parse(read('wasm', 'exports.json'));
const jsSources = readdirSync(join(REPO, 'js'))
  .filter((f) => /\.(c?js)$/.test(f))
  .map((f) => read('js', f));

test('every wasm function the JS calls is in wasm/exports.json', () => {
  const used = new Set();
  for (const src of jsSources) {
    for (const m of src.matchAll(/\bM\._([A-Za-z_][A-Za-z0-9_]*)\s*\(/g)) used.add(`_${m[1]}`);
    for (const m of src.matchAll(/\b_osi_[A-Za-z0-9_]+/g)) used.add(m[0]);
  }
  expect(used.size).toBeGreaterThanOrEqual(8);
  expect([...used].filter((s) => !exportsJson.includes(s))).toEqual([]);
});

test('every OSI_API function of src/onnx_shapes.h is exported, and nothing unknown is', () => {
  // Functions declared under `#ifndef __EMSCRIPTEN__` (osi_infer_fd) exist in native builds only.
  const header = read('src', 'onnx_shapes.h').replace(/#ifndef __EMSCRIPTEN__[\s\S]*?(?=#else|#endif)/g, '');
  const declared = [...header.matchAll(/OSI_API\b[^;(]*?\b(osi_[a-z0-9_]+)\s*\(/g)].map((m) => `_${m[1]}`);
  expect(declared.length).toBeGreaterThanOrEqual(7);
  expect(declared.filter((s) => !exportsJson.includes(s))).toEqual([]);
  const libc = ['_malloc', '_free', '_mallinfo'];
  expect(exportsJson.filter((s) => !declared.includes(s) && !libc.includes(s))).toEqual([]);
});

const dist = join(REPO, 'dist', 'onnx_shapes.mjs');
test('the built glue exposes every export', () => {
  const glue = readFileSync(dist, 'utf8');
  expect(exportsJson.filter((s) => !glue.includes(`Module["${s}"]`))).toEqual([]);
});

test('js/index.d.ts declares exactly the runtime exports', () => {
  const dts = read('js', 'index.d.ts');
  const declared = [...dts.matchAll(/^export (?:declare )?(?:function|class|const) ([A-Za-z_$][\w$]*)/gm)].map((m) => m[1]);
  expect([...new Set(declared)].sort()).toEqual(Object.keys(api).sort());
  expect(Object.keys(api).sort()).toEqual(['RequirementError', 'ShapeInferenceError', 'getShape', 'inferShapes', 'inferShapesFromFile', 'inferShapesFromPath', 'inferShapesFromUrl', 'init']);
});
