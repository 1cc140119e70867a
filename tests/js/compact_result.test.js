// inferShapes reads the engine's packed result form (osi_result_packed) and expands it; the
// result must be exactly what parsing the full osi_result_json gives: same keys, same order, same
// data, deeply frozen, including awkward value names ('__proto__', integer-like, escapes), and
// getShape (a lookup in the engine's hash table of the keys) must find what the full form lists.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { init } from '../../js/index.js';
import { model, attr, tensor } from './onnx_builder.js';
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

test('node inputs and outputs, graph inputs and outputs, subgraph and function bodies, known contents', () => {
  const body = {
    name: 'body',
    inputs: [{ name: 'i', elemType: 'int64', dims: [] }, { name: 'c', elemType: 'bool', dims: [] }, { name: 'acc', elemType: 'float', dims: ['N'] }],
    outputs: ['c_out', 'acc_out'],
    nodes: [
      { op: 'Identity', name: 'keep', inputs: ['c'], outputs: ['c_out'] },
      { op: 'Add', name: 'add', inputs: ['acc', 'X'], outputs: ['acc_out'] },
    ],
  };
  const bytes = model({
    opsets: [{ domain: '', version: 17 }, { domain: 'local', version: 1 }],
    functions: [{
      name: 'Twice', domain: 'local', inputs: ['a'], outputs: ['out'], opsets: [{ domain: '', version: 17 }],
      nodes: [{ op: 'Add', name: 'sum', inputs: ['a', 'a'], outputs: ['out'] }],
    }],
    inputs: [{ name: 'X', elemType: 'float', dims: ['N'] }, { name: 'n', elemType: 'int64', dims: [] }, { name: 'go', elemType: 'bool', dims: [] }],
    initializers: [tensor({ name: 'axes', elemType: 'int64', dims: [2], int64Data: [0, -1] })],
    outputs: ['loop/body/acc_out', 'Y', 'S', 'T'],
    nodes: [
      { op: 'Relu', name: 'first', inputs: ['X'], outputs: ['loop/body/acc_out'] },
      { op: 'Loop', name: 'loop', inputs: ['n', 'go', 'X'], outputs: ['Y'], attrs: { body: attr.graph(body) } },
      { op: 'Shape', name: 'shape', inputs: ['Y'], outputs: ['S'] },
      { op: 'Twice', domain: 'local', name: 'call', inputs: ['X'], outputs: ['T'] },
    ],
  });
  const r = expectSameAsFull(bytes);
  expect(Object.keys(r.subgraphs)).toEqual(['loop/body/', 'call/Twice/']);
  expect(r.getShape('S').value).toEqual(['N']);
  expectSameAsFull(bytes, { events: true });
});

/** getShape(name) for every name, before anything reads result.values (the hash-table path). */
function shapesBeforeValues(result, names) {
  return names.map((n) => result.getShape(n));
}

test('getShape finds every value without building result.values, in code point order', () => {
  // U+E000..U+FFFF sort before astral characters in UTF-8 (the engine's order) but after them in
  // UTF-16 code units (JS `<`); the search must follow the engine's order.
  const names = ['a', 'B', 'é', '\uE000x', '\uFFEE', '😀', '😀a', '𝒳', 'z', 'Ω', 'a b', '__proto__', '0'];
  const nodes = names.map((name, i) => ({ op: 'Relu', name: `n${i}`, inputs: [i ? names[i - 1] : 'X'], outputs: [name] }));
  const bytes = model({ inputs: [{ name: 'X', elemType: 'float', dims: ['N', 3] }], outputs: [names.at(-1)], nodes });
  const result = engine.inferShapes(bytes);
  const all = [...names, 'X'];
  const found = shapesBeforeValues(result, all);
  for (const t of found) expect(t).toEqual({ kind: 'tensor', elemType: 'float', dims: ['N', 3] });
  for (const missing of ['', 'c', '\uE000', '😀b', '\uD83D', 'constructor', 'toString', 'X ']) {
    expect(result.getShape(missing)).toBeNull();
  }
  // The same frozen objects the materialised values hold.
  all.forEach((n, i) => expect(result.values[n]).toBe(found[i]));
  expect(result.names()).toEqual([...all].sort());
  expectSameAsFull(bytes);
});

test('names that are not UTF-8 fall back to the values object, and stay two names', () => {
  // 'aQ' and 'aW' become 'a\x80' and 'a\x81': the engine sorts them before 'aé' (0xc3 0xa9), but
  // they decode to 'a\uDC80' and 'a\uDC81' (a byte of no UTF-8 sequence is the lone surrogate
  // U+DC00 + byte), which sort after 'aé' in code unit order.
  const names = ['aQ', 'aé', 'aW'];
  const nodes = names.map((name, i) => ({ op: 'Relu', name: `n${i}`, inputs: [i ? names[i - 1] : 'X'], outputs: [name] }));
  const raw = Buffer.from(model({ inputs: [{ name: 'X', elemType: 'float', dims: ['N', 3] }], outputs: ['aW'], nodes }));
  // Same length, so every length prefix stays right.
  for (const [from, to] of [['aQ', 0x80], ['aW', 0x81]]) {
    for (let i = raw.indexOf(from); i >= 0; i = raw.indexOf(from, i + 2)) raw[i + 1] = to;
  }
  const result = engine.inferShapes(raw);
  for (const n of ['aé', 'a\uDC80', 'a\uDC81']) expect(result.getShape(n)).toEqual({ kind: 'tensor', elemType: 'float', dims: ['N', 3] });
  expect(result.getShape('a\uFFFD')).toBeNull();
  expect(result.names()).toEqual(['X', 'aé', 'a\uDC80', 'a\uDC81']);
  expectSameAsFull(raw);
});

test('values and producers are built once, on first read, and survive spreading and JSON', () => {
  const bytes = readFileSync(join(REPO, 'examples/models/tiny_decoder.onnx'));
  const result = engine.inferShapes(bytes);
  const d = Object.getOwnPropertyDescriptor(result, 'values');
  expect(d.enumerable).toBe(true);
  expect(result.values).toBe(result.values);
  expect(result.producers).toBe(result.producers);
  const copy = { ...result };
  expect(copy.values).toBe(result.values);
  expect(Object.keys(JSON.parse(JSON.stringify(result)).producers).length).toBe(Object.keys(result.producers).length);
  expect(structuredClone(copy).values).toEqual(result.values);
  expect(() => { result.values = {}; }).toThrow(TypeError);
});

test('every result shares its lazy getters, and a getter reads the result it is called on', () => {
  // A getter made per result gave each result an object layout (map) of its own in V8's old
  // space, through which a dead result kept its names and types alive in every scavenge.
  const a = engine.inferShapes(readFileSync(join(REPO, 'examples/models/tiny_decoder.onnx')));
  const b = engine.inferShapes(model({
    inputs: [{ name: 'X', elemType: 'float', dims: ['N'] }], outputs: ['Y'],
    nodes: [{ op: 'Relu', name: 'r', inputs: ['X'], outputs: ['Y'] }],
  }));
  for (const key of ['values', 'producers', 'nodes', 'subgraphs']) {
    const get = Object.getOwnPropertyDescriptor(a, key).get;
    expect(Object.getOwnPropertyDescriptor(b, key).get).toBe(get);
    expect(get.call(b)).toBe(b[key]);
    expect(get.call(a)).toBe(a[key]);
  }
  expect(Object.keys(b.values)).toEqual(['X', 'Y']);
  expect(Object.keys(a.values)).not.toEqual(['X', 'Y']);
});

test('getShape on a few thousand values (subgraph values included) finds exactly the full form\'s entries', () => {
  const body = {
    name: 'body',
    inputs: [{ name: 'i', elemType: 'int64', dims: [] }, { name: 'c', elemType: 'bool', dims: [] }, { name: 'acc', elemType: 'float', dims: ['N'] }],
    outputs: ['c_out', 'acc_out'],
    nodes: [
      { op: 'Identity', name: 'keep', inputs: ['c'], outputs: ['c_out'] },
      { op: 'Neg', name: 'neg', inputs: ['acc'], outputs: ['acc_out'] },
    ],
  };
  const n = 3000;
  const nodes = [];
  for (let i = 0; i < n; i++) {
    // Shared prefixes and a few distinct types, as exporters name and shape values.
    const op = ['Neg', 'Relu', 'Shape'][i % 3];
    const input = i % 3 === 0 ? 'X' : `/layers.${(i - 1) % 7}/v_${i - 1}`;
    nodes.push({ op, name: `n${i}`, inputs: [input], outputs: [`/layers.${i % 7}/v_${i}`] });
  }
  nodes.push({ op: 'Loop', name: 'loop', inputs: ['trip', 'go', 'X'], outputs: ['Y'], attrs: { body: attr.graph(body) } });
  const bytes = model({
    inputs: [{ name: 'X', elemType: 'float', dims: ['N'] }, { name: 'trip', elemType: 'int64', dims: [] }, { name: 'go', elemType: 'bool', dims: [] }],
    outputs: ['Y'],
    nodes,
  });
  const result = engine.inferShapes(bytes);
  const full = fullJson(bytes);
  const keys = Object.keys(full.values);
  expect(keys.length).toBeGreaterThan(n);
  expect(keys).toContain('loop/body/acc_out');
  const found = shapesBeforeValues(result, keys);
  keys.forEach((k, i) => expect(found[i]).toEqual(full.values[k]));
  for (const k of keys) expect(result.getShape(k)).toBe(result.values[k]);
  for (let i = 0; i < n; i++) {
    for (const miss of [`/layers.${i % 7}/v_${i}x`, `/layers.${(i + 1) % 7}/v_${i}`, `v_${i}`]) expect(result.getShape(miss)).toBeNull();
  }
  expect(result.names()).toEqual([...keys].sort());
  // In names() order (each key right after the one found before it), backwards, and with misses
  // and jumps in between: the same entries.
  const sorted = result.names();
  for (const order of [sorted, [...sorted].reverse()]) {
    for (const k of order) expect(result.getShape(k)).toBe(result.values[k]);
  }
  sorted.forEach((k, i) => {
    expect(result.getShape(`${k}\u0001`)).toBeNull();
    expect(result.getShape(k)).toEqual(full.values[k]);
    const jump = sorted[(i * 7) % sorted.length];
    expect(result.getShape(jump)).toEqual(full.values[jump]);
  });
  expectSameAsFull(bytes);
});
