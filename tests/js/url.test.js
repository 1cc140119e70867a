// engine.inferShapesFromUrl in Node, against local HTTP servers that count the bytes and requests
// they serve: a 1 GiB model is inferred from less than 1% of its bytes in a bounded number of Range
// requests; a server without Range support is read once, front to back, and the result says so;
// servers that lie about lengths, fail, or cut the connection give typed errors (FETCH_ERROR).
// Every backend model gives the same result as inferShapes on its bytes.
import { spawnSync } from 'node:child_process';
import { createServer } from 'node:http';
import { closeSync, mkdtempSync, openSync, readFileSync, readSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { init, inferShapesFromUrl, ShapeInferenceError } from '../../js/index.js';
import { model } from './onnx_builder.js';
import { backendModels } from './helpers.js';
import { matmulChain, writePieces } from './big_model.js';

const GiB = 2 ** 30;
let engine;
let dir;
beforeAll(async () => {
  engine = await init();
  dir = mkdtempSync(join(tmpdir(), 'osi-url-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/**
 * Serves files of `dir` over HTTP/1.1 and counts what it sends. `mode`: 'range' (206 for a single
 * range), 'plain' (ignores Range: always 200 with the whole file), or a function (req, res, file)
 * that answers itself.
 */
async function server(mode = 'range') {
  const stats = { requests: 0, bytes: 0, ranges: [] };
  const srv = createServer((req, res) => {
    stats.requests++;
    const path = join(dir, decodeURIComponent(new URL(req.url, 'http://x').pathname.slice(1)));
    let size;
    try {
      size = statSync(path).size;
    } catch {
      res.writeHead(404).end();
      return;
    }
    const count = (n) => { stats.bytes += n; };
    if (typeof mode === 'function') return mode(req, res, { path, size, count, stats });
    const m = /^bytes=(\d+)-(\d*)$/.exec(req.headers.range ?? '');
    if (mode === 'range' && m) {
      const start = Number(m[1]);
      const end = m[2] === '' ? size : Math.min(Number(m[2]) + 1, size);
      if (start >= size) {
        res.writeHead(416, { 'Content-Range': `bytes */${size}` }).end();
        return;
      }
      stats.ranges.push([start, end]);
      res.writeHead(206, { 'Content-Range': `bytes ${start}-${end - 1}/${size}`, 'Content-Length': end - start });
      sendFile(res, path, start, end, count);
    } else {
      res.writeHead(200, { 'Content-Length': size });
      sendFile(res, path, 0, size, count);
    }
  });
  await new Promise((r) => srv.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${srv.address().port}`;
  return {
    stats, url: (name) => `${base}/${encodeURIComponent(name)}`,
    close: () => new Promise((r) => { srv.closeAllConnections(); srv.close(r); }),
  };
}

/** Writes [start, end) of the file to res in 1 MiB chunks, honouring backpressure; counts them. */
function sendFile(res, path, start, end, count, { stopAfter = Infinity } = {}) {
  const fd = openSync(path, 'r');
  const buf = Buffer.alloc(1 << 20);
  let pos = start;
  let sent = 0;
  const pump = () => {
    while (pos < end) {
      if (sent >= stopAfter) {
        closeSync(fd);
        res.socket?.destroy(); // cut the connection mid-body
        return;
      }
      const n = readSync(fd, buf, 0, Math.min(buf.length, end - pos, stopAfter - sent), pos);
      pos += n;
      sent += n;
      count(n);
      if (!res.write(buf.subarray(0, n))) {
        res.once('drain', pump);
        return;
      }
    }
    closeSync(fd);
    if (stopAfter !== Infinity) res.socket?.destroy(); // ends the connection, whatever the headers said
    else res.end();
  };
  res.on('close', () => { pos = end; });
  pump();
}

const relu = () => model({
  inputs: [{ name: 'X', elemType: 'float', dims: ['N', 4] }],
  outputs: ['Y'],
  nodes: [{ op: 'Relu', name: 'r', inputs: ['X'], outputs: ['Y'] }],
});

/** The 1 GiB model (8 MatMul layers, 128 MiB float weights each), written sparse once. */
let bigPath = null;
function big() {
  if (!bigPath) {
    bigPath = join(dir, 'big.onnx');
    const size = writePieces(bigPath, matmulChain({ layers: 8, rows: 4096, cols: 8192 }));
    expect(size).toBeGreaterThan(GiB);
  }
  return bigPath;
}

const codeOf = async (promise) => {
  try {
    await promise;
  } catch (e) {
    expect(e).toBeInstanceOf(ShapeInferenceError);
    return e.code;
  }
  return 'no error';
};

test('a 1 GiB model: under 1% of its bytes, in a bounded number of requests, with progress', async () => {
  const path = big();
  const size = statSync(path).size;
  const s = await server('range');
  try {
    const progress = [];
    const r = await engine.inferShapesFromUrl(s.url('big.onnx'), { onProgress: (done, total) => progress.push([done, total]) });
    expect(r.getShape('Y')).toEqual({ kind: 'tensor', elemType: 'float', dims: ['N', 4096] });
    expect(r.getShape('h0')).toEqual({ kind: 'tensor', elemType: 'float', dims: ['N', 8192] });
    expect(r.getShape('W7')).toEqual({ kind: 'tensor', elemType: 'float', dims: [8192, 4096] });
    expect(r.values).toEqual(engine.inferShapesFromPath(path).values);
    expect(s.stats.bytes).toBeLessThan(size / 100);
    // One request for the start, one per weight tensor that is skipped (8), and a few more.
    expect(s.stats.requests).toBeLessThanOrEqual(16);
    expect(r.download).toEqual({
      url: s.url('big.onnx'), size, bytesFetched: s.stats.bytes, requests: s.stats.requests, rangeRequests: true, retries: 0,
    });
    expect(progress[0][1]).toBe(size);
    expect(progress.at(-1)).toEqual([s.stats.bytes, size]);
    for (let i = 1; i < progress.length; i++) expect(progress[i][0]).toBeGreaterThanOrEqual(progress[i - 1][0]);
    console.log(`1 GiB model over HTTP: ${s.stats.bytes} bytes (${(100 * s.stats.bytes / size).toFixed(4)}%) in ${s.stats.requests} requests`);
  } finally {
    await s.close();
  }
}, 60000);

test('a server that ignores Range: one full read, said in the result, heap small', async () => {
  const path = join(dir, 'mid.onnx');
  const size = writePieces(path, matmulChain({ layers: 4, rows: 1024, cols: 4096 })); // 64 MiB
  const s = await server('plain');
  try {
    const r = await engine.inferShapesFromUrl(s.url('mid.onnx'));
    expect(r.values).toEqual(engine.inferShapesFromPath(path).values);
    expect(r.download).toMatchObject({ rangeRequests: false, requests: 1, size, bytesFetched: size, retries: 0 });
    expect(s.stats.requests).toBe(1);
    expect(engine._runHeapBytes()).toBeLessThanOrEqual(32 * 2 ** 20);
  } finally {
    await s.close();
  }
}, 60000);

test('small models: the same result as inferShapes on the bytes; relative URLs need a base', async () => {
  const bytes = relu();
  writeFileSync(join(dir, 'relu.onnx'), bytes);
  writeFileSync(join(dir, 'empty.onnx'), new Uint8Array(0));
  const s = await server('range');
  try {
    const r = await inferShapesFromUrl(s.url('relu.onnx')); // module-level
    expect(r.values).toEqual(engine.inferShapes(bytes).values);
    expect(r.download).toMatchObject({ size: bytes.length, bytesFetched: bytes.length, requests: 1 });
    expect(await codeOf(engine.inferShapesFromUrl(new URL(s.url('empty.onnx'))))).toBe('INVALID_MODEL');
    await expect(engine.inferShapesFromUrl('relu.onnx')).rejects.toThrow(TypeError);
    await expect(engine.inferShapesFromUrl(42)).rejects.toThrow(TypeError);
  } finally {
    await s.close();
  }
});

// Every kind of payload the decoder skips or reads in part: packed float_data and int64_data, a
// small shape tensor after them, string_data, a sparse initializer, a Constant's 1 MiB tensor
// attribute, 100-200 KB doc strings and metadata (fields the decoder does not know).
const VARIED = String.raw`
import sys, numpy as np, onnx
from onnx import helper, TensorProto, numpy_helper
rng = np.random.default_rng(1)
inits = [
    helper.make_tensor('W', TensorProto.FLOAT, [256, 1024], rng.standard_normal(256 * 1024).astype(np.float32).tolist()),
    helper.make_tensor('ids', TensorProto.INT64, [200000], rng.integers(0, 2**40, 200000).tolist()),
    helper.make_tensor('shape', TensorProto.INT64, [3], [0, 32, 32]),
    helper.make_tensor('names', TensorProto.STRING, [1000], [b'x' * 100] * 1000),
]
sparse = helper.make_sparse_tensor(numpy_helper.from_array(rng.standard_normal(5000).astype(np.float32), 'sp'),
                                   numpy_helper.from_array(np.arange(5000, dtype=np.int64) * 7, 'sp_idx'), [1000, 100])
nodes = [
    helper.make_node('MatMul', ['X', 'W'], ['h1']),
    helper.make_node('Constant', [], ['k'], value=numpy_helper.from_array(rng.standard_normal((512, 512)).astype(np.float32), 'hc')),
    helper.make_node('Reshape', ['h1', 'shape'], ['h2']),
    helper.make_node('Shape', ['k'], ['ks']),
    helper.make_node('Gather', ['ids', 'ks'], ['g']),
    helper.make_node('Identity', ['names'], ['n2']),
    helper.make_node('Identity', ['sp'], ['sp2']),
]
g = helper.make_graph(nodes, 'g', [helper.make_tensor_value_info('X', TensorProto.FLOAT, ['N', 256])],
                      [helper.make_tensor_value_info('h2', TensorProto.FLOAT, None)], inits,
                      doc_string='d' * 200000, sparse_initializer=[sparse])
m = helper.make_model(g, opset_imports=[helper.make_opsetid('', 17)], doc_string='m' * 100000)
helper.set_model_props(m, {'note': 'n' * 100000})
onnx.save(m, sys.argv[1])
`;

test('every kind of payload: the same result as from the bytes, nothing fetched twice, few bytes', async () => {
  const path = join(dir, 'varied.onnx');
  const gen = spawnSync('/usr/bin/python3', ['-c', VARIED, path], { encoding: 'utf8', timeout: 600_000 });
  if (gen.status !== 0) throw new Error(`python3-onnx is required: ${gen.stderr}`);
  const bytes = readFileSync(path);
  const s = await server('range');
  try {
    const r = await engine.inferShapesFromUrl(s.url('varied.onnx'));
    expect(JSON.stringify(r.values)).toBe(JSON.stringify(engine.inferShapes(bytes).values));
    expect(r.getShape('h2').dims).toEqual(['N', 32, 32]); // the shape tensor's content was read
    expect(r.download.retries).toBe(0);
    // Fetched: what inference keeps, and the 200,000 int64 varints of 'ids' whole (the decoder
    // checks every one as protobuf-c does); not the floats, strings, doc strings or metadata.
    const ids = 200000 * 5; // most of them 6 bytes (below 2^40, almost all over 2^35): a floor
    expect(s.stats.bytes).toBeGreaterThan(ids);
    expect(s.stats.bytes).toBeLessThan(ids * 2 + bytes.length / 8);
    // Without the walk, every byte the decoder reads beyond the first request is a retry: the
    // decoder is rerun from the start on what it has, and the result is the same.
    const before = s.stats.requests;
    const again = await engine.inferShapesFromUrl(s.url('varied.onnx'), { _walk: false });
    expect(again.values).toEqual(r.values);
    expect(again.download.retries).toBeGreaterThan(0);
    expect(again.download.requests).toBe(s.stats.requests - before);
  } finally {
    await s.close();
  }
}, 30000);

describe('failures are ShapeInferenceErrors with a code', () => {
  test('404, a refused connection, an aborted fetch', async () => {
    const s = await server('range');
    const missing = s.url('nothing-here.onnx');
    try {
      const e = await engine.inferShapesFromUrl(missing).catch((err) => err);
      expect(e).toBeInstanceOf(ShapeInferenceError);
      expect(e.code).toBe('FETCH_ERROR');
      expect(e.message).toMatch(/HTTP 404/);
    } finally {
      await s.close();
    }
    expect(await codeOf(engine.inferShapesFromUrl(missing))).toBe('FETCH_ERROR'); // nothing listens now
    const ctl = new AbortController();
    ctl.abort();
    const aborted = await engine.inferShapesFromUrl(missing, { signal: ctl.signal }).catch((err) => err);
    expect(aborted.name).toBe('AbortError');
  });

  test('a truncated model: PARSE_ERROR naming where it ends, as from a file', async () => {
    const path = big();
    const cutPath = join(dir, 'cut.onnx');
    const head = Buffer.alloc(4000); // the graph and the start of W0's header
    const fd = openSync(path, 'r');
    readSync(fd, head, 0, head.length, 0);
    closeSync(fd);
    writeFileSync(cutPath, head);
    const s = await server('range');
    try {
      const e = await engine.inferShapesFromUrl(s.url('cut.onnx')).catch((err) => err);
      expect(e.code).toBe('PARSE_ERROR');
      expect(e.message).toMatch(/at byte \d+/);
      expect(e.message).toBe(((() => { try { engine.inferShapesFromPath(cutPath); } catch (x) { return x.message; } return ''; })()));
    } finally {
      await s.close();
    }
  });

  const liars = {
    // Content-Range says the file is twice its size: ranges past the real end are refused.
    'a total twice the real size': (req, res, f) => {
      const m = /^bytes=(\d+)-(\d+)$/.exec(req.headers.range);
      const start = Number(m[1]);
      const end = Math.min(Number(m[2]) + 1, 2 * f.size);
      if (start >= f.size) return res.writeHead(416).end();
      res.writeHead(206, { 'Content-Range': `bytes ${start}-${end - 1}/${2 * f.size}`, 'Content-Length': Math.min(end, f.size) - start });
      sendFile(res, f.path, start, Math.min(end, f.size), f.count);
    },
    // The body of a range is shorter than the range (and than its Content-Length).
    'a short body': (req, res, f) => {
      const m = /^bytes=(\d+)-(\d+)$/.exec(req.headers.range);
      const start = Number(m[1]);
      const end = Math.min(Number(m[2]) + 1, f.size);
      res.writeHead(206, { 'Content-Range': `bytes ${start}-${end - 1}/${f.size}`, 'Content-Length': end - start });
      sendFile(res, f.path, start, end, f.count, { stopAfter: Math.floor((end - start) / 2) });
    },
    // Another range than the one asked for.
    'the wrong range': (req, res, f) => {
      const m = /^bytes=(\d+)-(\d+)$/.exec(req.headers.range);
      const start = Number(m[1]) + (Number(m[1]) > 0 ? 1 : 0);
      const end = Math.min(Number(m[2]) + 1, f.size);
      res.writeHead(206, { 'Content-Range': `bytes ${start}-${end - 1}/${f.size}`, 'Content-Length': end - start });
      sendFile(res, f.path, start, end, f.count);
    },
    // No Range support, and a Content-Length larger than the body: the connection ends early.
    'a Content-Length larger than the body': (req, res, f) => {
      res.writeHead(200, { 'Content-Length': f.size + 1000 });
      sendFile(res, f.path, 0, f.size, f.count, { stopAfter: f.size });
    },
    // The connection is cut in the middle of the whole-file body.
    'a connection cut mid-body': (req, res, f) => {
      res.writeHead(200, { 'Content-Length': f.size });
      sendFile(res, f.path, 0, f.size, f.count, { stopAfter: 3 << 20 });
    },
  };
  test.each(Object.keys(liars))('a server sending %s: FETCH_ERROR', async (name) => {
    const path = join(dir, 'liar.onnx');
    writePieces(path, matmulChain({ layers: 3, rows: 1024, cols: 2048 })); // 3 x 8 MiB of weights
    const s = await server(liars[name]);
    try {
      const e = await engine.inferShapesFromUrl(s.url('liar.onnx')).catch((err) => err);
      expect(e).toBeInstanceOf(ShapeInferenceError);
      expect(e.code).toBe('FETCH_ERROR');
      // The engine is fine afterwards.
      expect(engine.inferShapes(relu()).getShape('Y').dims).toEqual(['N', 4]);
    } finally {
      await s.close();
    }
  });

  test('a Content-Length smaller than the file: the model ends early (PARSE_ERROR)', async () => {
    const path = join(dir, 'short.onnx');
    const size = writePieces(path, matmulChain({ layers: 2, rows: 256, cols: 256 }));
    const s = await server((req, res, f) => {
      res.writeHead(200, { 'Content-Length': size - 100 });
      sendFile(res, f.path, 0, size - 100, f.count);
    });
    try {
      const e = await engine.inferShapesFromUrl(s.url('short.onnx')).catch((err) => err);
      expect(e.code).toBe('PARSE_ERROR');
    } finally {
      await s.close();
    }
  });
});

describe('backend models over HTTP: the same result as from their bytes, nothing fetched twice', () => {
  let s;
  beforeAll(async () => {
    for (const m of backendModels()) writeFileSync(join(dir, m.name.replace(/\//g, '_')), readFileSync(m.path));
    s = await server('range');
  });
  afterAll(() => s.close());
  test.each(backendModels().map((m) => [m.name, m]))('%s', async (name, m) => {
    const bytes = readFileSync(m.path);
    const before = s.stats.bytes;
    const r = await engine.inferShapesFromUrl(s.url(name.replace(/\//g, '_')));
    expect(JSON.stringify(r.values)).toBe(JSON.stringify(engine.inferShapes(bytes).values));
    expect(r.download.retries).toBe(0); // the walk fetched every byte the decoder read
    expect(s.stats.bytes - before).toBeLessThanOrEqual(bytes.length);
  });
});
