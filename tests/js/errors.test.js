// Failures: engine errors become ShapeInferenceError with the C status name as `code`,
// argument errors become TypeError, and the engine keeps working after any of them.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import { init, inferShapes, ShapeInferenceError } from '../../js/index.js';
import { ShapeInferenceError as BrowserShapeInferenceError } from '../../js/errors.js';
import { model } from './onnx_builder.js';
import { backendPath } from './helpers.js';

const require = createRequire(import.meta.url);

const good = () => model({
  inputs: [{ name: 'X', elemType: 'float', dims: ['N', 4] }],
  outputs: ['Y'],
  nodes: [{ op: 'Relu', inputs: ['X'], outputs: ['Y'] }],
});
const GOOD_Y = { kind: 'tensor', elemType: 'float', dims: ['N', 4] };

/** Deterministic pseudo-random bytes (mulberry32). */
function randomBytes(seed, n) {
  let a = seed >>> 0;
  const out = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    out[i] = ((t ^ (t >>> 14)) >>> 0) & 0xff;
  }
  return out;
}

let engine;
beforeAll(async () => {
  engine = await init();
});

/** Runs `bytes`, expects a ShapeInferenceError, checks the engine still works, returns the error. */
function failure(bytes) {
  let error;
  try {
    engine.inferShapes(bytes);
  } catch (e) {
    error = e;
  }
  expect(error).toBeInstanceOf(ShapeInferenceError);
  expect(error).toBeInstanceOf(Error);
  expect(error.name).toBe('ShapeInferenceError');
  expect(typeof error.message).toBe('string');
  expect(error.message.length).toBeGreaterThan(0);
  expect(error.node === null || typeof error.node === 'string').toBe(true);
  expect(String(error)).toMatch(/^ShapeInferenceError: /);
  expect(engine.inferShapes(good()).getShape('Y')).toEqual(GOOD_Y);
  return error;
}

describe('parse errors', () => {
  test('ff ff ff', () => {
    expect(failure(new Uint8Array([0xff, 0xff, 0xff])).code).toBe('PARSE_ERROR');
  });

  test.each([1, 2, 3, 4, 5, 6, 7, 8])('random bytes, seed %i', (seed) => {
    const bytes = randomBytes(seed, 64 + seed * 500);
    expect(failure(bytes).code).toBe('PARSE_ERROR');
  });

  test.each([1, 2, 3])('random bytes after a valid prefix, seed %i', (seed) => {
    const prefix = good();
    const bytes = new Uint8Array(prefix.length + 300);
    bytes.set(prefix);
    bytes.set(randomBytes(seed, 300), prefix.length);
    expect(failure(bytes).code).toBe('PARSE_ERROR');
  });

  test('a truncated built model', () => {
    const bytes = good();
    expect(failure(bytes.subarray(0, bytes.length - 3)).code).toBe('PARSE_ERROR');
  });

  test('a truncated real model (light_resnet50)', () => {
    const bytes = readFileSync(backendPath('light', 'light_resnet50.onnx'));
    for (const keep of [0.25, 0.5, 0.9]) {
      expect(failure(bytes.subarray(0, Math.floor(bytes.length * keep))).code).toBe('PARSE_ERROR');
    }
  });
});

describe('graph errors', () => {
  test('a cycle → CYCLE', () => {
    const bytes = model({
      inputs: [{ name: 'X', elemType: 'float', dims: [2] }],
      outputs: ['B'],
      nodes: [
        { op: 'Add', name: 'add', inputs: ['X', 'B'], outputs: ['A'] },
        { op: 'Relu', name: 'relu', inputs: ['A'], outputs: ['B'] },
      ],
    });
    expect(failure(bytes).code).toBe('CYCLE');
  });

  test('a node reading an undefined value → MISSING_INPUT', () => {
    const bytes = model({
      inputs: [{ name: 'X', elemType: 'float', dims: [2] }],
      outputs: ['Y'],
      nodes: [{ op: 'Add', name: 'reader', inputs: ['X', 'nowhere'], outputs: ['Y'] }],
    });
    const e = failure(bytes);
    expect(e.code).toBe('MISSING_INPUT');
    expect(e.message).toContain('nowhere');
  });

  test('a value produced twice → DUPLICATE_DEFINITION', () => {
    const bytes = model({
      inputs: [{ name: 'X', elemType: 'float', dims: [2] }],
      outputs: ['Y'],
      nodes: [
        { op: 'Relu', name: 'first', inputs: ['X'], outputs: ['Y'] },
        { op: 'Neg', name: 'second', inputs: ['X'], outputs: ['Y'] },
      ],
    });
    const e = failure(bytes);
    expect(e.code).toBe('DUPLICATE_DEFINITION');
    expect(e.message).toContain('Y');
  });

  test('a node output that redefines a graph input → DUPLICATE_DEFINITION', () => {
    const bytes = model({
      inputs: [{ name: 'X', elemType: 'float', dims: [2] }, { name: 'Z', elemType: 'float', dims: [2] }],
      outputs: ['X'],
      nodes: [{ op: 'Relu', name: 'again', inputs: ['Z'], outputs: ['X'] }],
    });
    expect(failure(bytes).code).toBe('DUPLICATE_DEFINITION');
  });
});

describe('argument errors are TypeErrors', () => {
  test.each([
    ['a string', 'abc'],
    ['a number', 42],
    ['null', null],
    ['undefined', undefined],
    ['a plain array', [1, 2, 3]],
    ['an Int8Array', new Int8Array(4)],
    ['a DataView', new DataView(new ArrayBuffer(4))],
  ])('bytes = %s', (_what, bad) => {
    expect(() => engine.inferShapes(bad)).toThrow(TypeError);
    expect(engine.inferShapes(good()).getShape('Y')).toEqual(GOOD_Y);
  });

  test.each([['a string', 'events'], ['null', null], ['a number', 1]])('options = %s', (_what, bad) => {
    expect(() => engine.inferShapes(good(), bad)).toThrow(TypeError);
  });

  test('the module-level inferShapes rejects with the same errors', async () => {
    await expect(inferShapes('abc')).rejects.toThrow(TypeError);
    await expect(inferShapes(new Uint8Array([0xff]))).rejects.toMatchObject({
      name: 'ShapeInferenceError',
      code: 'PARSE_ERROR',
    });
  });

  test('init rejects options that are not an object', async () => {
    await expect(init(42)).rejects.toThrow(TypeError);
    expect(await init()).toBe(engine);
  });
});

describe('ShapeInferenceError', () => {
  test('is the class of js/errors.cjs, and its browser twin js/errors.js behaves the same', () => {
    expect(require('../../js/errors.cjs').ShapeInferenceError).toBe(ShapeInferenceError);
    for (const Cls of [ShapeInferenceError, BrowserShapeInferenceError]) {
      const cause = new Error('root');
      const e = new Cls('boom', { code: 'CYCLE', node: 'n1', cause });
      expect(e).toBeInstanceOf(Error);
      expect(e).toBeInstanceOf(Cls);
      expect(e.name).toBe('ShapeInferenceError');
      expect(Object.keys(e)).toEqual(['code', 'node']);
      expect([e.message, e.code, e.node, e.cause]).toEqual(['boom', 'CYCLE', 'n1', cause]);
      expect(new Cls('m', { code: 'NOMEM' }).node).toBeNull();
      expect('cause' in new Cls('m', { code: 'NOMEM' })).toBe(false);
      expect(String(e)).toBe('ShapeInferenceError: boom');
    }
    const definition = (file) => readFileSync(new URL(`../../js/${file}`, import.meta.url), 'utf8')
      .match(/^class ShapeInferenceError [^]*?^}\);$/m)[0];
    expect(definition('errors.js')).toBe(definition('errors.cjs'));
  });
});
