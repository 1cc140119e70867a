// engine.inferShapesFromUrl in headless Chromium (Debian's /usr/bin/chromium + playwright-core), on
// the page's main thread, from another origin (CORS): a 1 GiB model is inferred from less than 1%
// of its bytes; a server that ignores Range is read once (18.7 MiB of zeros from it end at byte 0,
// the JS heap small); one that does not expose Content-Range to the page is sized with a HEAD
// request; one that does not allow the page's origin gets a CORS hint. The model server counts
// what it sends.
import http from 'node:http';
import { closeSync, createReadStream, existsSync, ftruncateSync, mkdtempSync, openSync, readSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { extname, join, normalize } from 'node:path';
import { chromium } from 'playwright-core';
import { REPO } from './helpers.js';
import { matmulChain, writePieces } from './big_model.js';

const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
const MIME = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript', '.mjs': 'text/javascript', '.wasm': 'application/wasm' };

/** The page's origin: the repository (js/, dist/) and an empty page. */
function pageServer() {
  const server = http.createServer((req, res) => {
    const url = new URL(req.url, 'http://x');
    if (url.pathname === '/') {
      res.writeHead(200, { 'Content-Type': MIME['.html'] }).end('<!doctype html><meta charset="utf-8"><link rel="icon" href="data:,">');
      return;
    }
    const p = normalize(join(REPO, decodeURIComponent(url.pathname)));
    if (!p.startsWith(REPO) || !existsSync(p) || !statSync(p).isFile()) return res.writeHead(404).end();
    res.writeHead(200, { 'Content-Type': MIME[extname(p)] || 'application/octet-stream', 'Cache-Control': 'no-store' });
    createReadStream(p).pipe(res);
  });
  return new Promise((ok) => server.listen(0, '127.0.0.1', () => ok(server)));
}

/**
 * Another origin serving `dir` with CORS; `mode`: 'range', 'plain' (no Range), 'hidden' (Content-Range
 * not exposed) or 'nocors' (no CORS headers at all: the page may not read it).
 */
function modelServer(dir, stats) {
  const server = http.createServer((req, res) => {
    const mode = new URL(req.url, 'http://x').searchParams.get('mode');
    const cors = mode === 'nocors' ? {} : {
      'Access-Control-Allow-Origin': '*',
      ...(mode === 'hidden' ? {} : { 'Access-Control-Expose-Headers': 'Content-Range, Content-Length' }),
    };
    if (req.method === 'OPTIONS') {
      stats.preflights++;
      res.writeHead(204, { ...cors, 'Access-Control-Allow-Headers': 'Range', 'Access-Control-Allow-Methods': 'GET, HEAD' }).end();
      return;
    }
    stats.requests++;
    const path = join(dir, new URL(req.url, 'http://x').pathname.slice(1));
    const size = statSync(path).size;
    const m = /^bytes=(\d+)-(\d+)$/.exec(req.headers.range ?? '');
    let start = 0, end = size;
    if (m && mode !== 'plain') {
      start = Number(m[1]);
      end = Math.min(Number(m[2]) + 1, size);
      res.writeHead(206, { ...cors, 'Content-Range': `bytes ${start}-${end - 1}/${size}`, 'Content-Length': end - start, 'Cache-Control': 'no-store' });
    } else {
      res.writeHead(200, { ...cors, 'Content-Length': size, 'Cache-Control': 'no-store' });
    }
    if (req.method === 'HEAD') return res.end();
    const fd = openSync(path, 'r');
    const buf = Buffer.alloc(1 << 20);
    const pump = () => {
      while (start < end) {
        const n = readSync(fd, buf, 0, Math.min(buf.length, end - start), start);
        start += n;
        stats.bytes += n;
        if (!res.write(buf.subarray(0, n))) return void res.once('drain', pump);
      }
      closeSync(fd);
      res.end();
    };
    res.on('close', () => { if (start < end) { start = end; closeSync(fd); } });
    pump();
  });
  return new Promise((ok) => server.listen(0, '127.0.0.1', () => ok(server)));
}

describe('inferShapesFromUrl in Chromium', () => {
  let dir, page, ctx, pages, models;
  const stats = { requests: 0, bytes: 0, preflights: 0 };
  const errors = [];

  beforeAll(async () => {
    if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is required (apt-get install chromium, or set CHROMIUM)`);
    dir = mkdtempSync(join(tmpdir(), 'osi-browser-url-'));
    writePieces(join(dir, 'big.onnx'), matmulChain({ layers: 8, rows: 4096, cols: 8192 })); // 1 GiB
    writePieces(join(dir, 'mid.onnx'), matmulChain({ layers: 2, rows: 1024, cols: 2048 })); // 16 MiB
    const zeros = openSync(join(dir, 'zeros.onnx'), 'w'); // 18.7 MiB of zeros (a sparse file)
    ftruncateSync(zeros, Math.round(18.7 * 2 ** 20));
    closeSync(zeros);
    pages = await pageServer();
    models = await modelServer(dir, stats);
    ctx = await chromium.launchPersistentContext(join(dir, 'profile'), {
      executablePath: CHROMIUM, headless: true,
      args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
        '--disable-component-update', '--disable-sync'],
    });
    page = ctx.pages()[0] ?? await ctx.newPage();
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`http://127.0.0.1:${pages.address().port}/`);
  }, 60000);

  afterAll(async () => {
    await ctx?.close();
    pages?.close();
    models?.closeAllConnections();
    models?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const run = (url) => page.evaluate(async (u) => {
    const api = await import('/js/index.js');
    const engine = await api.init();
    const progress = [];
    try {
      const r = await engine.inferShapesFromUrl(u, { onProgress: (d, t) => progress.push([d, t]) });
      return { y: r.getShape('Y'), download: r.download, last: progress.at(-1), heap: engine._runHeapBytes() };
    } catch (e) {
      return { error: { name: e.name, code: e.code, message: e.message } };
    }
  }, url);

  const at = (name, mode) => `http://127.0.0.1:${models.address().port}/${name}?mode=${mode}`;

  test('a 1 GiB model from another origin: under 1% of its bytes, a bounded number of requests', async () => {
    const size = statSync(join(dir, 'big.onnx')).size;
    Object.assign(stats, { requests: 0, bytes: 0 });
    const out = await run(at('big.onnx', 'range'));
    expect(out.error).toBeUndefined();
    expect(out.y).toEqual({ kind: 'tensor', elemType: 'float', dims: ['N', 4096] });
    expect(stats.bytes).toBeLessThan(size / 100);
    expect(stats.requests).toBeLessThanOrEqual(16);
    expect(out.download).toMatchObject({ size, rangeRequests: true, requests: stats.requests, retries: 0 });
    expect(out.last).toEqual([out.download.bytesFetched, size]);
    expect(out.heap).toBeLessThanOrEqual(32 * 2 ** 20);
    console.log(`Chromium, 1 GiB over HTTP: ${stats.bytes} bytes in ${stats.requests} requests (${stats.preflights} CORS preflights)`);
    expect(errors).toEqual([]);
  }, 60000);

  test('a server that ignores Range: one full read, and the result says so', async () => {
    Object.assign(stats, { requests: 0, bytes: 0 });
    const out = await run(at('mid.onnx', 'plain'));
    const size = statSync(join(dir, 'mid.onnx')).size;
    expect(out.y).toEqual({ kind: 'tensor', elemType: 'float', dims: ['N', 1024] });
    expect(out.download).toMatchObject({ size, rangeRequests: false, requests: 1, bytesFetched: size });
    expect(stats.requests).toBe(1);
  }, 60000);

  test('a server that ignores Range, sending 18.7 MiB of zeros: PARSE_ERROR, the heap small', async () => {
    const out = await page.evaluate(async (u) => {
      const api = await import('/js/index.js');
      const engine = await api.init();
      let peak = 0;
      const timer = setInterval(() => { peak = Math.max(peak, performance.memory.usedJSHeapSize); }, 5);
      try {
        await engine.inferShapesFromUrl(u);
        return { error: null };
      } catch (e) {
        return { error: { name: e.name, code: e.code }, peak: Math.max(peak, performance.memory.usedJSHeapSize) };
      } finally {
        clearInterval(timer);
      }
    }, at('zeros.onnx', 'plain'));
    expect(out.error).toEqual({ name: 'ShapeInferenceError', code: 'PARSE_ERROR' });
    expect(out.peak).toBeLessThan(256 * 2 ** 20);
    console.log(`Chromium, 18.7 MiB of zeros without Range: PARSE_ERROR, JS heap peak ${(out.peak / 2 ** 20).toFixed(1)} MiB`);
  }, 60000);

  test('a server that does not expose Content-Range: sized with HEAD, still ranges', async () => {
    Object.assign(stats, { requests: 0, bytes: 0 });
    const size = statSync(join(dir, 'big.onnx')).size;
    const out = await run(at('big.onnx', 'hidden'));
    expect(out.error).toBeUndefined();
    expect(out.y).toEqual({ kind: 'tensor', elemType: 'float', dims: ['N', 4096] });
    expect(out.download).toMatchObject({ size, rangeRequests: true });
    expect(stats.bytes).toBeLessThan(size / 100);
  }, 60000);

  test('a missing model: FETCH_ERROR that says HTTP 404 and nothing else', async () => {
    const url = `http://127.0.0.1:${pages.address().port}/no-such-model.onnx`;
    const out = await page.evaluate(async (u) => {
      const api = await import('/js/index.js');
      return api.inferShapesFromUrl(u).then(() => 'no error', (e) => ({
        name: e.name, code: e.code, isClass: e instanceof api.ShapeInferenceError, message: e.message,
      }));
    }, url);
    expect(out).toEqual({ name: 'ShapeInferenceError', code: 'FETCH_ERROR', isClass: true, message: `${url}: HTTP 404 Not Found` });
  });

  test('another origin that does not allow this one: FETCH_ERROR with a CORS hint', async () => {
    const out = await run(at('mid.onnx', 'nocors'));
    expect(out.error).toMatchObject({ name: 'ShapeInferenceError', code: 'FETCH_ERROR' });
    expect(out.error.message).toMatch(/Failed to fetch/);
    expect(out.error.message).toMatch(/Access-Control-Allow-Origin/);
  });
});
