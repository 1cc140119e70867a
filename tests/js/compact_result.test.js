// inferShapes reads the engine's compact result form (osi_result_json_compact) and expands it; the
// result must be exactly what parsing the full osi_result_json gives: same keys, same order, same
// data, deeply frozen, including awkward value names ('__proto__', integer-like, escapes).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { init } from '../../js/index.js';
import { model } from './onnx_builder.js';
import { REPO } from './helpers.js';

let engine;
let M;

beforeAll(async () => {
  engine = await init();
  const { default: create } = await import('../../dist/onnx_shapes.mjs');
  M = await create({ wasmBinary: readFileSync(join(REPO, 'dist/onnx_shapes.wasm')) });
});

/** JSON.parse(osi_result_json(...)) straight from a second module instance. */
function fullJson(bytes, flags = 0) {
  const p = M._malloc(bytes.length) >>> 0;
  M.HEAPU8.set(bytes, p);
  const r = M._osi_infer_with(p, bytes.length, flags, 0) >>> 0;
  try {
    return JSON.parse(M.UTF8ToString(M._osi_result_json(r)));
  } finally {
    M._osi_result_delete(r);
    M._free(p);
  }
}

function isDeepFrozen(v) {
  if (v === null || typeof v !== 'object') return true;
  return Object.isFrozen(v) && Object.keys(v).every((k) => isDeepFrozen(v[k]));
}

function expectSameAsFull(bytes, options) {
  const result = engine.inferShapes(bytes, options);
  const full = fullJson(bytes, options?.events ? 2 : 0);
  for (const key of Object.keys(full)) {
    expect(JSON.stringify(result[key])).toBe(JSON.stringify(full[key]));
    expect(Object.keys(result[key] ?? {})).toEqual(Object.keys(full[key] ?? {}));
  }
  expect(Object.keys(result).sort()).toEqual(Object.keys(full).sort());
  expect(Object.isFrozen(result) && Object.keys(result).every((k) => isDeepFrozen(result[k]))).toBe(true);
  return result;
}

test('awkward value names keep their place and are own data properties', () => {
  const names = ['__proto__', '10', '2', 'constructor', 'a"b\\c', 'tab\there', 'ünï', 'x'];
  const nodes = names.map((name, i) => ({ op: i % 2 ? 'Relu' : 'Neg', name: `n${i}`, inputs: [i ? names[i - 1] : 'X'], outputs: [name] }));
  const bytes = model({ inputs: [{ name: 'X', elemType: 'float', dims: ['N', 3] }], outputs: ['x'], nodes });
  const r = expectSameAsFull(bytes);
  expect(Object.hasOwn(r.values, '__proto__')).toBe(true);
  expect(Object.getPrototypeOf(r.values)).toBe(Object.prototype);
  expect(r.getShape('__proto__')).toEqual({ kind: 'tensor', elemType: 'float', dims: ['N', 3] });
  expect(r.producers.__proto__).toBe(0); // eslint-disable-line no-proto
  expect(Object.getPrototypeOf(r.producers)).toBe(Object.prototype);
  expect(r.names()).toEqual(['10', '2', 'X', '__proto__', 'a"b\\c', 'constructor', 'tab\there', 'x', 'ünï']);
});

test('unknown types, several op types and domains, events', () => {
  const bytes = model({
    opsets: [{ domain: '', version: 17 }, { domain: 'com.example', version: 1 }],
    inputs: [{ name: 'X', elemType: 'float', dims: ['N', 3] }, { name: 'S', elemType: 'int64', dims: [2] }],
    outputs: ['Z'],
    nodes: [
      { op: 'Relu', name: 'r', inputs: ['X'], outputs: ['A'] },
      { op: 'Custom', domain: 'com.example', name: 'c', inputs: ['A'], outputs: ['B'] },
      { op: 'Reshape', name: 'reshape', inputs: ['A', 'S'], outputs: ['C'] },
      { op: 'Relu', name: 'r2', inputs: ['C'], outputs: ['Z'] },
    ],
  });
  const r = expectSameAsFull(bytes);
  expect(r.nodes.map((n) => n.opType)).toEqual(['Relu', 'Custom', 'Reshape', 'Relu']);
  expect(r.nodes[1].domain).toBe('com.example');
  expectSameAsFull(bytes, { events: true });
});

test('bundled example models (subgraphs included)', () => {
  for (const name of ['tiny_decoder.onnx', 'cnn_dynamic.onnx', 'control_flow.onnx']) {
    const r = expectSameAsFull(readFileSync(join(REPO, 'examples/models', name)));
    expect(r.names().length).toBeGreaterThan(0);
  }
});
