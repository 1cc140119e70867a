// Hostile input, round five: the newest surfaces (result.evaluate and cost at bindings, the named
// sizes' helpers of onnx-shapes/expr, the node attributes' JSON, the minified build) attacked with
// adversarial models and arguments, in wasm through the public API. README "Hostile input" lists
// what failed (and is fixed) and what held.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as full from '../../js/index.js';
import * as min from '../../dist/js/index.js';
import { expandDefinitions, nameDefinitions, symbolsThrough } from '../../js/expr.js';
import { REPO, thrown } from './helpers.js';
import { attr, model } from './onnx_builder.js';

const CNN = readFileSync(join(REPO, 'examples', 'models', 'cnn_dynamic.onnx'));
const engines = {};
beforeAll(async () => {
  engines.full = await full.init();
  engines.min = await min.init();
});

test.each(['full', 'min'])('%s: sizes keyed by anything but a string, or given as an array, are a TypeError saying so', (which) => {
  // A Map keyed by a number threw "name.replace is not a function" from inside evaluate, and cost
  // ignored it; a Symbol key, "Cannot convert a Symbol value to a string"; an array's indices
  // were taken as names.
  const r = engines[which].inferShapes(CNN, { cost: true });
  const sizes = [['N', 1], ['H', 11], ['W', 11]];
  for (const key of [1, Symbol('N'), null, {}]) {
    const bindings = new Map([...sizes, [key, 2]]);
    const e = thrown(() => r.evaluate(bindings));
    expect(e).toBeInstanceOf(TypeError);
    expect(e.message).toMatch(/^onnx-shapes: evaluate: a size's name is a string \(a symbol of the model\), not (a Symbol|the \w+ .*)$/);
    const c = thrown(() => r.cost({ bindings }));
    expect(c).toBeInstanceOf(TypeError);
    expect(c.message).toMatch(/^onnx-shapes: cost: a size's name is a string/);
  }
  expect(thrown(() => r.evaluate([1, 11, 11]))).toBeInstanceOf(TypeError);
  expect(thrown(() => r.cost({ bindings: [1, 11, 11] }))).toBeInstanceOf(TypeError);
  // what held: a plain object's own keys, __proto__ and toString included, are names (unknown here)
  expect(r.evaluate(JSON.parse('{"__proto__": 3, "toString": 1, "N": 1, "H": 11, "W": 11}')).unknown).toEqual(['__proto__', 'toString']);
  expect(r.evaluate(new Map(sizes)).values.logits).toEqual([1, 10]);
});

test.each(['protobuf-c', 'nanopb'])('a string attribute holding NUL bytes is whole in nodeAttributes (it was cut at the first), %s', (decoder) => {
  const bytes = model({
    inputs: [{ name: 'x', elemType: 'float', dims: ['N', 4] }],
    outputs: ['y'],
    nodes: [{ op: 'Relu', inputs: ['x'], outputs: ['y'], attrs: {
      s: attr.string('nul\u0000after ls\u2028 ps\u2029 "q" \\'),
      i: attr.ints([9223372036854775807n, -9223372036854775808n, 9007199254740992n, 9007199254740993n, -1]),
      f: attr.floats([NaN, Infinity, -Infinity, -0, 1e-45, 3.4028234663852886e38]),
      big: attr.ints(Array.from({ length: 100000 }, (_, k) => k)),
    } }],
  });
  for (const which of ['full', 'min']) {
    const r = engines[which].inferShapes(bytes, { attributes: true, decoder });
    const a = Object.fromEntries(r.nodeAttributes('', 0).map((x) => [x.name, x]));
    expect(a.s).toEqual({ name: 's', type: 'string', value: 'nul\u0000after ls\u2028 ps\u2029 "q" \\' });
    // what held: int64 past 2^53 as exact decimal strings, NaN and the infinities as strings, a
    // float32 as its shortest text, a long list as its count and head
    expect(a.i.value).toEqual(['9223372036854775807', '-9223372036854775808', 9007199254740992, '9007199254740993', -1]);
    expect(a.f.value).toEqual(['NaN', 'Infinity', '-Infinity', -0, 1e-45, 3.4028235e38]); // -0 keeps its sign
    expect(a.big.value).toEqual({ count: 100000, head: Array.from({ length: 16 }, (_, k) => k) });
  }
});

test('named sizes in a chain 5,000 deep: symbolsThrough and expandDefinitions without recursion (they overflowed the stack)', () => {
  // Each definition over the one before, as a model's float sizes computed from each other are
  // named: size_k = size_{k-1}+1. symbolsThrough recursed once per name: "Maximum call stack size
  // exceeded" at about 4,000, on the page's table rows.
  const chain = Array.from({ length: 5000 }, (_, k) => ({ name: `size_${k + 1}`, expr: k ? `size_${k}+1` : 'N+M' }));
  expect(symbolsThrough('size_5000*K', chain)).toEqual(['N', 'M', 'K']);
  const text = expandDefinitions('size_5000', chain);
  expect(text.startsWith('('.repeat(5000))).toBe(true);
  expect(text.length).toBe(5000 * 4 + 3 - 2);
  // a text printed without the names (the event log's) gets the last name back
  expect(nameDefinitions('N+M+4999', chain)).toBe('size_5000');
});

test('names that each use the one before twice: expandDefinitions refuses an expansion past 2^20 characters (it doubled to no end)', () => {
  const doubling = Array.from({ length: 64 }, (_, k) => ({ name: `size_${k + 1}`, expr: k ? `size_${k}*size_${k}` : 'N+1' }));
  expect(expandDefinitions('size_10', doubling).length).toBe(4093);
  const e = thrown(() => expandDefinitions('size_64', doubling));
  expect(e).toBeInstanceOf(RangeError);
  expect(e.message).toMatch(/^onnx-shapes: expandDefinitions: the expansion of size_\d+ is longer than 1048576 characters$/);
  // symbolsThrough and nameDefinitions read each name once: no doubling
  expect(symbolsThrough('size_64', doubling)).toEqual(['N']);
  expect(nameDefinitions('(N+1)*(N+1)', doubling)).toBe('size_2');
});
