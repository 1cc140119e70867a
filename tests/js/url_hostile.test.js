// inferShapesFromUrl against servers that do not deserve trust (issue 30, items 2, 4, 5, 6, 11, 13;
// issue 29, item 4): each model is generated here and served from memory by a local server that
// counts what it sends; a server that ignores Range, one that changes the file between requests,
// one that lies in its 206 answers, one that trickles. Each ends with a result or a typed error,
// fast, with bounded memory and bounded bytes fetched.
import { jest } from '@jest/globals';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { init, ShapeInferenceError } from '../../js/index.js';
import { runOnUrlModel, fetchModelSource } from '../../js/url_source.js';
import { model, node as nodeBytes } from './onnx_builder.js';
import { Pieces, bigModel, piecesToBytes, twoRequestModel, withModelVersion } from './big_model.js';
import { honest, plain, send, server, virtualFile, zeros } from './model_server.js';
import { REPO } from './helpers.js';

const MiB = 2 ** 20;
jest.setTimeout(60000); // each case takes a second or two; this is for a machine under load
let engine;
beforeAll(async () => {
  engine = await init();
});

const failure = async (promise) => {
  try {
    await promise;
  } catch (e) {
    return e;
  }
  throw new Error('expected a failure');
};

// Section - Generated models

/** X [N, 4] through `count` Relu nodes named as torch names them: a graph of `count` + 1 values. */
function reluChainModel(count) {
  const nodes = [];
  for (let i = 0; i < count; i++) {
    const x = i === 0 ? 'X' : `/model/layers.${i - 1}/act/Relu_output_0`;
    const y = i === count - 1 ? 'Y' : `/model/layers.${i}/act/Relu_output_0`;
    nodes.push(nodeBytes({ op: 'Relu', name: `/model/layers.${i}/act/Relu`, inputs: [x], outputs: [y] }));
  }
  return piecesToBytes(bigModel({ nodes, inputs: [{ name: 'X', elemType: 'float', dims: ['N', 4] }], outputs: ['Y'] }));
}

// Section - A server that ignores Range (item 2) and a file that is no model (item 4)

/**
 * Runs inferShapesFromUrl(url) in a child Node with a 256 MB heap limit (past it V8 aborts the
 * process), sampling heap + array buffers: { outcome, peakMB, bytesFetched }.
 */
function inChild(url, timeoutMs = 60000) {
  const code = `
    const { init } = await import(${JSON.stringify(join(REPO, 'js/index.js'))});
    const engine = await init();
    let peak = 0;
    const sample = () => { const m = process.memoryUsage(); peak = Math.max(peak, m.heapUsed + m.arrayBuffers); };
    const timer = setInterval(sample, 5);
    let outcome;
    try {
      const r = await engine.inferShapesFromUrl(process.argv[1]);
      outcome = { ok: true, values: r.names().length, download: r.download };
    } catch (e) {
      outcome = { ok: false, name: e.name, code: e.code, message: String(e.message).slice(0, 300) };
    }
    sample();
    clearInterval(timer);
    console.log(JSON.stringify({ outcome, peakMB: peak / 2 ** 20 }));`;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--max-old-space-size=256', '--input-type=module', '-e', code, url],
      { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NODE_OPTIONS: '' }, timeout: timeoutMs + 5000 });
    let out = '';
    let err = '';
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.stdout.on('data', (d) => { out += d; });
    child.stderr.on('data', (d) => { err += d; });
    child.on('close', (status, signal) => {
      clearTimeout(timer);
      if (status !== 0) reject(new Error(`child exited ${status ?? signal}: ${err.slice(-2000)}`));
      else resolve(JSON.parse(out));
    });
  });
}

describe('a server that ignores Range: a typed error or a result, in a 256 MB heap', () => {
  let s;
  const files = new Map();
  beforeAll(async () => {
    files.set('zeros', { ...zeros(Math.round(18.7 * MiB)), serve: plain });
    const fields = Buffer.alloc(5 * MiB);
    for (let i = 0; i < fields.length; i += 2) fields[i] = 0x08; // ir_version 0, again and again: valid
    files.set('ir-versions', { ...virtualFile(fields), serve: plain });
    const chain = reluChainModel(100000);
    files.set('chain', { ...virtualFile(chain), serve: plain });
    files.set('chain-ranged', virtualFile(chain));
    s = await server(files);
  });
  afterAll(() => s.close());

  test('18.7 MiB of zeros: PARSE_ERROR at byte 0', async () => {
    const r = await inChild(s.url('zeros'));
    expect(r.outcome).toMatchObject({ ok: false, code: 'PARSE_ERROR' });
    expect(r.peakMB).toBeLessThan(256);
  }, 30000);

  test('5 MiB of valid two-byte fields (08 00 ...): one growing buffer, not 2.6 million pieces', async () => {
    const r = await inChild(s.url('ir-versions'));
    expect(r.outcome.ok).toBe(false);
    expect(r.outcome.name).toBe('ShapeInferenceError');
    expect(r.peakMB).toBeLessThan(64);
  }, 60000);

  test('a 100k-node graph: the same values as with Range, in a bounded heap', async () => {
    const ranged = await inChild(s.url('chain-ranged'));
    const whole = await inChild(s.url('chain'));
    expect(ranged.outcome).toMatchObject({ ok: true, values: 100001 });
    expect(whole.outcome).toMatchObject({ ok: true, values: 100001 });
    expect(whole.outcome.download.rangeRequests).toBe(false);
    expect(whole.peakMB).toBeLessThan(256);
    // Kept: what the decoder reads, about the file's size here; the result dominates the heap either way.
    expect(whole.peakMB).toBeLessThan(ranged.peakMB + 2 * (files.get('chain').size / MiB) + 16);
    console.log(`100k-node chain (${(files.get('chain').size / MiB).toFixed(1)} MiB): peak heap + buffers `
      + `${whole.peakMB.toFixed(0)} MiB without Range, ${ranged.peakMB.toFixed(0)} MiB with Range`);
  }, 120000);
});

test('1 GiB of zeros served honestly: under 1 MiB fetched, PARSE_ERROR', async () => {
  const s = await server(new Map([['zeros.onnx', zeros(2 ** 30)]]));
  try {
    const e = await failure(engine.inferShapesFromUrl(s.url('zeros.onnx')));
    expect(e).toBeInstanceOf(ShapeInferenceError);
    expect(e.code).toBe('PARSE_ERROR');
    expect(s.stats.bytes).toBeLessThan(MiB);
  } finally {
    await s.close();
  }
});

test('the walk stops at the first invalid tag (a group, field 0, wire type 7 after the graph, then 64 MiB)', async () => {
  const head = piecesToBytes(twoRequestModel(8)); // then a bad key after the graph, then 64 MiB of zeros
  const cases = { group: Buffer.from([0x1b]), 'field 0': Buffer.from([0x00, 0x01]), 'wire type 7': Buffer.from([0x0f]) };
  for (const [what, bad] of Object.entries(cases)) {
    const body = new Pieces().bytes(head).bytes(bad).hole(64 * MiB);
    const s = await server(new Map([['m.onnx', virtualFile(body)]]));
    try {
      const e = await failure(engine.inferShapesFromUrl(s.url('m.onnx')));
      expect([what, e.code]).toEqual([what, 'PARSE_ERROR']);
      expect(s.stats.bytes).toBeLessThan(MiB);
    } finally {
      await s.close();
    }
  }
});

// Section - The file changes between requests (item 5)

describe('a file changed between requests is a FETCH_ERROR, never shapes of two files', () => {
  const a = twoRequestModel(8);
  const b = twoRequestModel(16);
  const bytesA = piecesToBytes(a);
  expect(piecesToBytes(b).length).toBe(bytesA.length);

  /** Serves A for the first request, B (with other validators) after it, by `serve`. */
  async function swapping(validatorsA, validatorsB, serve = honest) {
    const files = new Map();
    const fb = virtualFile(b, { ...validatorsB, serve });
    files.set('m.onnx', virtualFile(a, {
      ...validatorsA,
      serve: (req, res, f, stats) => {
        files.set('m.onnx', fb); // swapped as soon as the first request is in
        serve(req, res, f, stats);
      },
    }));
    return server(files);
  }

  test('unchanged: the validators go back with every request, and nothing changes for an honest server', async () => {
    const s = await server(new Map([['m.onnx', virtualFile(a, { etag: '"a1"', lastModified: 'Mon, 01 Jan 2024 00:00:00 GMT' })]]));
    try {
      const r = await engine.inferShapesFromUrl(s.url('m.onnx'));
      expect(r.values).toEqual(engine.inferShapes(bytesA).values);
      expect(s.stats.requests).toBeGreaterThanOrEqual(2);
      for (const h of s.stats.headers.slice(1)) expect(h).toMatchObject({ 'if-match': '"a1"', 'if-range': '"a1"' });
    } finally {
      await s.close();
    }
  });

  test.each([
    ['an ETag, and a server that honours If-Match (412)', { etag: '"a1"' }, { etag: '"b2"' }, honest],
    ['Last-Modified, and a server that honours If-Unmodified-Since (412)', { lastModified: 'Mon, 01 Jan 2024 00:00:00 GMT' },
      { lastModified: 'Tue, 02 Jan 2024 00:00:00 GMT' }, honest],
    ['a server that ignores every condition but sends the new ETag', { etag: '"a1"' }, { etag: '"b2"' },
      (req, res, f, stats) => honest({ ...req, headers: { range: req.headers.range }, method: req.method }, res, f, stats)],
    ['a server that honours If-Range only (the whole new file)', { etag: '"a1"' }, { etag: '"b2"' },
      (req, res, f, stats) => honest({ ...req, headers: { range: req.headers.range, 'if-range': req.headers['if-range'] }, method: req.method }, res, f, stats)],
    ['a weak ETag compared', { etag: 'W/"a1"' }, { etag: 'W/"b2"' }, honest],
  ])('%s', async (what, va, vb, serve) => {
    const s = await swapping(va, vb, serve);
    try {
      const e = await failure(engine.inferShapesFromUrl(s.url('m.onnx')));
      expect(e).toBeInstanceOf(ShapeInferenceError);
      expect(e.code).toBe('FETCH_ERROR');
      expect(e.message).toMatch(/changed while it was being read/);
    } finally {
      await s.close();
    }
  });
});

// Section - Varints past 2^53 (item 6)

test('a varint past 2^53 (a nanosecond model_version, -1) is stepped over: the model infers over URL', async () => {
  for (const version of [1700000000123456789n, -1n, 2n ** 63n - 1n]) {
    const body = withModelVersion(version, twoRequestModel(8));
    const bytes = piecesToBytes(body);
    const s = await server(new Map([['m.onnx', virtualFile(body)]]));
    try {
      const r = await engine.inferShapesFromUrl(s.url('m.onnx'));
      expect(r.values).toEqual(engine.inferShapes(bytes).values);
      expect(r.getShape('Y').dims).toEqual([5, 65536]);
      expect(r.download.retries).toBe(0);
    } finally {
      await s.close();
    }
  }
});

// Section - Strict 206 (item 11)

describe('206 answers are checked to the byte', () => {
  const content = twoRequestModel(8);
  const size = content.size;
  const rangeOf = (req) => {
    const m = /^bytes=(\d+)-(\d+)$/.exec(req.headers.range ?? '');
    return m ? [Number(m[1]), Math.min(Number(m[2]) + 1, size)] : null;
  };
  const liars = {
    'a body longer than its Content-Range': (req, res, f, stats) => {
      const [start, end] = rangeOf(req);
      res.writeHead(206, { 'Content-Range': `bytes ${start}-${end - 1}/${size}` }); // no Content-Length: chunked
      send(res, f, start, end, stats, { then: () => res.end(Buffer.alloc(100, 7)) });
    },
    'a body restarting at byte 0': (req, res, f, stats) => {
      const [start, end] = rangeOf(req);
      res.writeHead(206, { 'Content-Range': `bytes ${start}-${end - 1}/${size}` });
      send(res, f, 0, start === 0 ? end : size, stats);
    },
    'a Content-Range total of 10^20': (req, res, f, stats) => {
      const [start, end] = rangeOf(req);
      res.writeHead(206, { 'Content-Range': `bytes ${start}-${end - 1}/100000000000000000000`, 'Content-Length': end - start });
      send(res, f, start, end, stats);
    },
    'a Content-Length other than the range': (req, res, f, stats) => {
      const [start, end] = rangeOf(req);
      const n = Math.max(0, end - start - 10);
      res.writeHead(206, { 'Content-Range': `bytes ${start}-${end - 1}/${size}`, 'Content-Length': n });
      send(res, f, start, start + n, stats);
    },
    'a size past 2^64 in Content-Length, and no Range': (req, res, f, stats) => {
      res.writeHead(200, { 'Content-Length': '36893488147419103232' });
      send(res, f, 0, f.size, stats, { then: () => res.socket.destroy() });
    },
  };
  test.each(Object.keys(liars))('%s: FETCH_ERROR', async (what) => {
    const s = await server(new Map([['m.onnx', virtualFile(content, { serve: liars[what] })]]));
    try {
      const e = await failure(engine.inferShapesFromUrl(s.url('m.onnx')));
      expect(e).toBeInstanceOf(ShapeInferenceError);
      expect([what, e.code]).toEqual([what, 'FETCH_ERROR']);
      expect(engine.inferShapes(piecesToBytes(twoRequestModel(16))).getShape('Y').dims).toEqual([5, 32768]); // healthy
    } finally {
      await s.close();
    }
  });

  test('a HEAD with Content-Length 0 (Content-Range not exposed): never a Range of bytes=0--1', async () => {
    for (const body of [Buffer.alloc(0), Buffer.alloc(100, 1)]) {
      const s = await server(new Map([['m.onnx', {
        size: 0,
        serve: (req, res) => {
          if (req.method === 'HEAD') return res.writeHead(200, { 'Content-Length': 0 }).end();
          return res.writeHead(206, { 'Content-Length': body.length }).end(body); // no Content-Range
        },
      }]]));
      try {
        const e = await failure(engine.inferShapesFromUrl(s.url('m.onnx')));
        expect(e.code).toBe(body.length ? 'FETCH_ERROR' : 'INVALID_MODEL');
        for (const h of s.stats.headers) if (h.range !== undefined) expect(h.range).toMatch(/^bytes=\d+-\d+$/);
        expect(s.stats.headers.map((h) => h.range ?? h.method)).toEqual(['bytes=0-65535', 'HEAD']);
      } finally {
        await s.close();
      }
    }
  });
});

// Section - Errors, timeouts, cancel (item 13; issue 29 item 4)

test('a 404 says so, and nothing about a size it never had', async () => {
  const s = await server(new Map());
  try {
    const url = s.url('nothing.onnx');
    const e = await failure(engine.inferShapesFromUrl(url));
    expect(e.code).toBe('FETCH_ERROR');
    expect(e.message).toBe(`${url}: HTTP 404 Not Found`);
  } finally {
    await s.close();
  }
});

describe('a server sending a byte every 500 ms', () => {
  let s;
  beforeAll(async () => {
    const bytes = piecesToBytes(twoRequestModel(8));
    const trickle = (req, res) => {
      res.writeHead(200, { 'Content-Length': bytes.length });
      let i = 0;
      const t = setInterval(() => (i < bytes.length ? res.write(bytes.subarray(i, ++i)) : res.end()), 500);
      res.on('close', () => clearInterval(t));
    };
    s = await server(new Map([['slow.onnx', { size: bytes.length, serve: trickle }]]));
  });
  afterAll(() => s.close());

  test('options.timeout ends it with a FETCH_ERROR that says so', async () => {
    const t0 = Date.now();
    const e = await failure(engine.inferShapesFromUrl(s.url('slow.onnx'), { timeout: 1500 }));
    expect(e).toBeInstanceOf(ShapeInferenceError);
    expect(e.code).toBe('FETCH_ERROR');
    expect(e.message).toMatch(/not read within 1500 ms/);
    // (The body alone would take 12 days: ending at all is the check; the margin is for a busy machine.)
    expect(Date.now() - t0).toBeLessThan(30000);
  });

  test('the signal aborts it while the body trickles, with the signal\'s reason', async () => {
    const ctl = new AbortController();
    const t0 = Date.now();
    setTimeout(() => ctl.abort(), 700);
    const e = await failure(engine.inferShapesFromUrl(s.url('slow.onnx'), { signal: ctl.signal }));
    expect(e.name).toBe('AbortError');
    expect(Date.now() - t0).toBeLessThan(30000);
  });

  test('bad options are TypeErrors', async () => {
    for (const options of [{ timeout: -1 }, { timeout: 'soon' }, { maxBytes: 0 }, { signal: {} }]) {
      await expect(engine.inferShapesFromUrl(s.url('slow.onnx'), options)).rejects.toThrow(TypeError);
    }
  });
});

test('maxBytes bounds what is kept: LIMIT_EXCEEDED', async () => {
  const bytes = reluChainModel(5000);
  const s = await server(new Map([['m.onnx', { ...virtualFile(bytes), serve: plain }]]));
  try {
    const e = await failure(engine.inferShapesFromUrl(s.url('m.onnx'), { maxBytes: 100000 }));
    expect(e.code).toBe('LIMIT_EXCEEDED');
    expect((await engine.inferShapesFromUrl(s.url('m.onnx'))).names()).toHaveLength(5001);
  } finally {
    await s.close();
  }
});

// Section - The page's reader: the same retries (item 13), and a typed error without them

test('runOnUrlModel: a reader that needs a byte the walk skipped gets it fetched, and runs again', async () => {
  const content = twoRequestModel(8);
  const bytes = piecesToBytes(content);
  const s = await server(new Map([['m.onnx', virtualFile(content)]]));
  try {
    const payloadAt = bytes.length - 200 - MiB / 2; // inside W's payload, which the walk skips
    let runs = 0;
    const out = await runOnUrlModel(s.url('m.onnx'), {}, (source) => {
      runs++;
      return [source.read(payloadAt, 4), engine.inferShapesFromSource(source).getShape('Y'), source.download.retries];
    });
    expect(out[0]).toEqual(bytes.subarray(payloadAt, payloadAt + 4));
    expect(out[1].dims).toEqual([5, 65536]);
    expect([runs, out[2]]).toEqual([2, 1]);
    const once = await fetchModelSource(s.url('m.onnx'));
    expect(() => once.read(payloadAt, 4)).toThrow(expect.objectContaining({ code: 'FETCH_ERROR' }));
  } finally {
    await s.close();
  }
});

// Section - Read-ahead bounded by what the decoder reads (issue 29 item 4)

/**
 * A decoder with its weights in an external file, as onnx saves a big export: per layer a dozen
 * nodes named as torch names them, initializers that are references only (data_location
 * EXTERNAL), and inline Constants of 40-300 KB between them (payloads the decoder skips).
 */
function externalDataDecoder(layers) {
  const g = new Pieces();
  const skipped = { bytes: 0 };
  const ext = (name, dims, offset) => {
    const t = new Pieces();
    for (const d of dims) t.int(1, d);
    t.int(2, 1).len(8, name);
    const entry = (k, v) => new Pieces().len(1, k).len(2, v);
    t.len(13, entry('location', 'model.onnx.data')).len(13, entry('offset', String(offset)))
      .len(13, entry('length', String(dims.reduce((a, b) => a * b, 4))));
    return t.int(14, 1);
  };
  let x = 'input';
  let offset = 0;
  const weights = [];
  for (let l = 0; l < layers; l++) {
    const p = `/model/layers.${l}`;
    const ops = [];
    for (const block of ['self_attn', 'mlp', 'post']) {
      ops.push('LayerNormalization', 'MatMul', 'Add', 'Relu', 'MatMul', 'Add', 'Mul', 'Softmax', 'MatMul', 'Add', 'Relu', 'Add');
      ops.push(...Array(8).fill(block === 'self_attn' ? 'Identity' : 'Neg'));
    }
    for (let k = 0; k < ops.length; k++) {
      const y = `${p}/${ops[k]}_${k}_output_0`;
      const inputs = ops[k] === 'MatMul' ? [x, `${p}.w${k}`] : ops[k] === 'LayerNormalization' ? [x, `${p}.ln${k}`] : [x];
      if (ops[k] === 'MatMul') weights.push([`${p}.w${k}`, [64, 64]]);
      if (ops[k] === 'LayerNormalization') weights.push([`${p}.ln${k}`, [64]]);
      g.len(1, nodeBytes({ op: ops[k], name: `${p}/${ops[k]}_${k}`, inputs, outputs: [y], attrs: ops[k] === 'Softmax' ? { axis: -1 } : {} }));
      x = y;
    }
    // A Constant with a payload inline (a mask, a table): skipped by the decoder past 32 KiB.
    const n = [40, 120, 300][l % 3] * 1024;
    const c = new Pieces().int(1, n / 4).int(2, 1).len(8, `${p}/Constant_attr`);
    c.bytes(Uint8Array.from([0x4a])).bytes(Uint8Array.from(varintBytes(n))).hole(n);
    skipped.bytes += n;
    const attr = new Pieces().len(1, 'value').len(5, c).int(20, 4);
    g.len(1, new Pieces().len(2, `${p}/Constant_output_0`).len(3, `${p}/Constant`).len(4, 'Constant').len(5, attr));
  }
  g.len(2, 'main');
  for (const [name, dims] of weights) {
    g.len(5, ext(name, dims, offset));
    offset += dims.reduce((a, b) => a * b, 4);
  }
  g.len(11, new Pieces().bytes(valueInfoBytes('input', ['batch', 'seq', 64])));
  g.len(12, new Pieces().bytes(valueInfoBytes(x, null)));
  const m = new Pieces().int(1, 8).len(7, g).len(8, new Pieces().len(1, '').int(2, 17));
  return { content: m, skipped: skipped.bytes };
}

function varintBytes(n) {
  const out = [];
  for (; n >= 0x80; n = Math.floor(n / 128)) out.push((n % 128) | 0x80);
  out.push(n);
  return out;
}

function valueInfoBytes(name, dims) {
  const vi = model({ inputs: [{ name, elemType: 'float', ...(dims ? { dims } : {}) }], outputs: [], nodes: [] });
  // The graph's input 11 of that model, taken back out: field 7 (graph), then field 11 in it.
  const find = (bytes, field) => {
    for (let i = 0; i < bytes.length;) {
      let key = 0; let mul = 1; let b;
      do { b = bytes[i++]; key += (b & 0x7f) * mul; mul *= 128; } while (b & 0x80);
      if ((key & 7) === 0) { do { b = bytes[i++]; } while (b & 0x80); continue; }
      let len = 0; mul = 1;
      do { b = bytes[i++]; len += (b & 0x7f) * mul; mul *= 128; } while (b & 0x80);
      if (key >> 3 === field) return bytes.subarray(i, i + len);
      i += len;
    }
    return null;
  };
  return find(find(vi, 7), 11);
}

test('an external-data decoder with inline payloads between its layers: under 2x the bytes the decoder reads', async () => {
  const { content, skipped } = externalDataDecoder(32);
  const own = content.size - skipped; // the graph's own bytes: all but the payloads skipped
  const s = await server(new Map([['llama.onnx', virtualFile(content)]]));
  try {
    const r = await engine.inferShapesFromUrl(s.url('llama.onnx'));
    expect(r.values).toEqual(engine.inferShapes(piecesToBytes(content)).values);
    expect(r.download.retries).toBe(0);
    expect(s.stats.bytes).toBeLessThanOrEqual(2 * own);
    console.log(`external-data decoder of ${(content.size / MiB).toFixed(1)} MiB, graph ${(own / 1024).toFixed(0)} KiB: `
      + `${(s.stats.bytes / 1024).toFixed(0)} KiB fetched (${(s.stats.bytes / own).toFixed(2)}x) in ${s.stats.requests} requests`);
  } finally {
    await s.close();
  }
});
