// The source tree shows the engine's layers (README, "Architecture"): one folder per layer, and
// every #include points to the same layer or one below it, never up and never in a circle.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { REPO } from './helpers.js';

const SRC = join(REPO, 'src');
// Each layer and the layers it may include (besides itself and the public header onnx_shapes.h).
const MAY_INCLUDE = {
  base: [],
  expr: ['base'],
  model: ['base', 'expr'],
  decode: ['base', 'expr', 'model'],
  ops: ['base', 'expr', 'model'],
  infer: ['base', 'expr', 'model', 'ops'],
  cost: ['base', 'expr', 'model', 'ops', 'infer'],
  api: ['base', 'expr', 'model', 'decode', 'ops', 'infer', 'cost'],
};
const MAX_LINES = 900;

function sources() {
  const out = [];
  for (const layer of readdirSync(SRC, { withFileTypes: true })) {
    if (!layer.isDirectory()) continue;
    for (const f of readdirSync(join(SRC, layer.name))) {
      if (/\.[ch]$/.test(f)) out.push(`${layer.name}/${f}`);
    }
  }
  return out.sort();
}

const includes = (file) =>
  [...readFileSync(join(SRC, file), 'utf8').matchAll(/^#include "([^"]+)"/gm)].map((m) => m[1]);

test('src/ has one folder per layer and nothing else but the public header', () => {
  const top = readdirSync(SRC).sort();
  expect(top).toEqual([...Object.keys(MAY_INCLUDE), 'onnx_shapes.h'].sort());
});

test('every include names its layer and points to the same layer or one below', () => {
  const bad = [];
  for (const file of sources()) {
    const layer = file.split('/')[0];
    for (const inc of includes(file)) {
      if (inc === 'onnx_shapes.h' || /^onnx_shapes\.pb(-c)?\.h$/.test(inc)) continue; // public / generated
      const target = inc.split('/')[0];
      if (!inc.includes('/') || !(target in MAY_INCLUDE)) bad.push(`${file}: "${inc}" does not name a layer`);
      else if (target !== layer && !MAY_INCLUDE[layer].includes(target)) bad.push(`${file} -> ${inc} points up`);
    }
  }
  expect(bad).toEqual([]);
});

test('no include circle between modules (x.c + x.h) of a layer', () => {
  // x.c, x.h and a private x_internal.h are one module.
  const mod = (file) => file.replace(/(_internal)?\.[ch]$/, '');
  const edges = new Map();
  for (const file of sources()) {
    const from = mod(file);
    if (!edges.has(from)) edges.set(from, new Set());
    for (const inc of includes(file)) if (inc.includes('/') && mod(inc) !== from) edges.get(from).add(mod(inc));
  }
  const state = new Map(); // 1: on the stack, 2: done
  const cycles = [];
  const visit = (m, stack) => {
    state.set(m, 1);
    for (const n of edges.get(m) ?? []) {
      if (state.get(n) === 1) cycles.push([...stack.slice(stack.indexOf(n)), n].join(' -> '));
      else if (!state.has(n)) visit(n, [...stack, n]);
    }
    state.set(m, 2);
  };
  for (const m of [...edges.keys()].sort()) if (!state.has(m)) visit(m, [m]);
  expect(cycles).toEqual([]);
});

test(`no source file is over ${MAX_LINES} lines`, () => {
  const long = sources()
    .map((f) => [f, readFileSync(join(SRC, f), 'utf8').split('\n').length - 1])
    .filter(([, n]) => n > MAX_LINES)
    .map(([f, n]) => `${relative(REPO, join(SRC, f))}: ${n} lines`);
  expect(long).toEqual([]);
});
