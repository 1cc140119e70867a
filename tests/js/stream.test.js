// The streaming (nanopb) decoder from JS: options.decoder, inferShapesFromPath, inferShapesFromFile
// (Node fallback), onProgress, broken streams, and a generated 1.5 GiB model inferred with a small
// wasm heap.
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { init, inferShapesFromPath, inferShapesFromFile, ShapeInferenceError } from '../../js/index.js';
import { model } from './onnx_builder.js';
import { backendModels } from './helpers.js';
import { matmulChain, writePieces } from './big_model.js';

let engine;
let dir;
beforeAll(async () => {
  engine = await init();
  dir = mkdtempSync(join(tmpdir(), 'osi-stream-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const relu = () => model({
  inputs: [{ name: 'X', elemType: 'float', dims: ['N', 4] }],
  outputs: ['Y'],
  nodes: [{ op: 'Relu', name: 'r', inputs: ['X'], outputs: ['Y'] }],
});

describe('options.decoder', () => {
  test.each(['protobuf-c', 'nanopb'])('%s infers a built model', (decoder) => {
    expect(engine.inferShapes(relu(), { decoder }).getShape('Y')).toEqual({ kind: 'tensor', elemType: 'float', dims: ['N', 4] });
  });

  test('anything else is a TypeError', () => {
    expect(() => engine.inferShapes(relu(), { decoder: 'protobufjs' })).toThrow(TypeError);
    expect(() => engine.inferShapes(relu(), { onProgress: 3 })).toThrow(TypeError);
  });
});

describe('both decoders and the file stream give the same result', () => {
  test.each(backendModels().map((m) => [m.name, m]))('%s', (_name, m) => {
    const bytes = readFileSync(m.path);
    const pbc = JSON.stringify(engine.inferShapes(bytes, { decoder: 'protobuf-c' }));
    expect(JSON.stringify(engine.inferShapes(bytes, { decoder: 'nanopb' }))).toBe(pbc);
    expect(JSON.stringify(engine.inferShapesFromPath(m.path))).toBe(pbc);
  });
});

describe('inferShapesFromPath', () => {
  test('module-level function, onProgress from 0 to the size', async () => {
    const path = join(dir, 'relu.onnx');
    writeFileSync(path, relu());
    const calls = [];
    const r = await inferShapesFromPath(path, { onProgress: (done, total) => calls.push([done, total]) });
    expect(r.getShape('Y').dims).toEqual(['N', 4]);
    const size = statSync(path).size;
    expect(calls[0]).toEqual([0, size]);
    expect(calls.at(-1)).toEqual([size, size]);
  });

  test('a missing file throws IO_ERROR with the fs error as its cause', () => {
    expect(() => engine.inferShapesFromPath(join(dir, 'nope.onnx')))
      .toThrow(expect.objectContaining({ code: 'IO_ERROR', cause: expect.objectContaining({ code: 'ENOENT' }) }));
  });

  test('an exception in onProgress propagates and leaves the engine usable', () => {
    const path = join(dir, 'relu2.onnx');
    writeFileSync(path, relu());
    expect(() => engine.inferShapesFromPath(path, { onProgress: () => { throw new Error('stop'); } })).toThrow('stop');
    expect(engine.inferShapesFromPath(path).getShape('Y').dims).toEqual(['N', 4]);
  });
});

describe('broken streams: PARSE_ERROR with the byte offset', () => {
  const bytes = relu();
  test.each([1, 5, Math.floor(bytes.length / 2), bytes.length - 1])('truncated to %i bytes', (cut) => {
    const path = join(dir, `cut${cut}.onnx`);
    writeFileSync(path, bytes.subarray(0, cut));
    for (const run of [() => engine.inferShapesFromPath(path), () => engine.inferShapes(bytes.subarray(0, cut), { decoder: 'nanopb' })]) {
      let err;
      try { run(); } catch (e) { err = e; }
      expect(err).toBeInstanceOf(ShapeInferenceError);
      expect(err.code).toBe('PARSE_ERROR');
      expect(err.message).toMatch(/ at byte \d+$/);
    }
  });

  test('garbage', () => {
    expect(() => engine.inferShapes(new Uint8Array([0xff, 0xff, 0xff]), { decoder: 'nanopb' }))
      .toThrow(expect.objectContaining({ code: 'PARSE_ERROR', message: expect.stringMatching(/at byte \d+/) }));
  });

  test('a length prefix past the end of a big model reports where', () => {
    // Cut a 1.5 GiB-declared model after its header: the first initializer runs past the end.
    const pieces = matmulChain({ layers: 2, rows: 64, cols: 64 });
    const path = join(dir, 'short.onnx');
    const size = writePieces(path, pieces);
    const fd = readFileSync(path);
    writeFileSync(path, fd.subarray(0, size - 100));
    expect(() => engine.inferShapesFromPath(path)).toThrow(expect.objectContaining({ code: 'PARSE_ERROR', message: expect.stringMatching(/at byte \d+/) }));
  });
});

test('inferShapesFromFile in Node takes a Blob', async () => {
  const r = await inferShapesFromFile(new Blob([relu()]));
  expect(r.getShape('Y').dims).toEqual(['N', 4]);
  await expect(inferShapesFromFile(relu())).rejects.toThrow(TypeError);
});

test('a 1.5 GiB model streams from disk with a wasm heap of at most 64 MiB', () => {
  const path = join(dir, 'big.onnx');
  const t0 = performance.now();
  const size = writePieces(path, matmulChain({ layers: 12, rows: 4096, cols: 8192 }));
  const tWrite = performance.now() - t0;
  expect(size).toBeGreaterThan(1.5 * 2 ** 30);
  let progressCalls = 0;
  const t1 = performance.now();
  const r = engine.inferShapesFromPath(path, { onProgress: () => progressCalls++ });
  const tInfer = performance.now() - t1;
  expect(r.getShape('Y')).toEqual({ kind: 'tensor', elemType: 'float', dims: ['N', 4096] });
  expect(r.getShape('h0')).toEqual({ kind: 'tensor', elemType: 'float', dims: ['N', 8192] });
  expect(r.getShape('W11')).toEqual({ kind: 'tensor', elemType: 'float', dims: [8192, 4096] });
  expect(engine._runHeapBytes()).toBeLessThanOrEqual(64 * 2 ** 20);
  expect(progressCalls).toBeGreaterThanOrEqual(2);
  expect(tInfer).toBeLessThan(5000);
  console.log(`1.5 GiB model: ${size} bytes, written in ${tWrite.toFixed(0)} ms, inferred in ${tInfer.toFixed(1)} ms, heap ${engine._runHeapBytes() / 2 ** 20} MiB`);
});
