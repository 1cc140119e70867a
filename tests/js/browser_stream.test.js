// engine.inferShapesFromFile in headless Chromium (Debian's /usr/bin/chromium + playwright-core):
// a generated 1.5 GiB model is picked through an <input type=file> and streamed by the module Web
// Worker (js/stream_worker.js) with FileReaderSync. The wasm heap that does the work, the worker's
// own instance (read through playwright's handle on the worker), must stay small, and the page's
// must not grow. Needs chromium and playwright-core (.ci/setup.sh installs both): a missing one fails.
import http from 'node:http';
import { chromium } from 'playwright-core';
import { createReadStream, existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { extname, join, normalize } from 'node:path';
import { REPO } from './helpers.js';
import { matmulChain, writePieces } from './big_model.js';

const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';

const MIME = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript', '.mjs': 'text/javascript', '.wasm': 'application/wasm' };
const PAGE = `<!doctype html><html><head><meta charset="utf-8"><link rel="icon" href="data:,"></head>
<body><input type="file" id="file"></body></html>`;

function serve(root) {
  const server = http.createServer((req, res) => {
    const url = new URL(req.url, 'http://x');
    if (url.pathname === '/') {
      res.writeHead(200, { 'Content-Type': MIME['.html'] }).end(PAGE);
      return;
    }
    const p = normalize(join(root, decodeURIComponent(url.pathname)));
    if (!p.startsWith(root) || !existsSync(p) || !statSync(p).isFile()) {
      res.writeHead(404).end('not found');
      return;
    }
    res.writeHead(200, { 'Content-Type': MIME[extname(p)] || 'application/octet-stream', 'Cache-Control': 'no-store' });
    createReadStream(p).pipe(res);
  });
  return new Promise((ok) => server.listen(0, '127.0.0.1', () => ok(server)));
}

describe('inferShapesFromFile in Chromium', () => {
  let server;
  let ctx;
  let page;
  let dir;
  const errors = [];

  beforeAll(async () => {
    if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is absent: apt-get install chromium (or set CHROMIUM)`);
    dir = mkdtempSync(join(tmpdir(), 'osi-browser-'));
    server = await serve(REPO);
    ctx = await chromium.launchPersistentContext(join(dir, 'profile'), {
      executablePath: CHROMIUM,
      headless: true,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
        '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
    page = ctx.pages()[0] ?? await ctx.newPage();
    page.on('pageerror', (e) => errors.push(e.message));
    page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
    await page.goto(`http://127.0.0.1:${server.address().port}/`);
  }, 60000);

  afterAll(async () => {
    await ctx?.close();
    server?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  test('a 1.5 GiB model streams in a Web Worker', async () => {
    const path = join(dir, 'big.onnx');
    const size = writePieces(path, matmulChain({ layers: 12, rows: 4096, cols: 8192 }));
    expect(size).toBeGreaterThan(1.5 * 2 ** 30);
    await page.setInputFiles('#file', path);
    // The page's engine starts its stream worker on a first (empty, invalid) Blob.
    const start = await page.evaluate(async () => {
      const api = await import('/js/index.js');
      const engine = await api.init();
      const heap = engine._heapBytes();
      const code = await engine.inferShapesFromFile(new Blob([])).catch((e) => e.code);
      return { heap, code };
    });
    expect(start.code).toBe('INVALID_MODEL'); // an empty Blob is a ModelProto without a graph
    expect(page.workers()).toHaveLength(1);
    const [worker] = page.workers();
    // The worker's own engine: its module map holds the js/index.js that js/stream_worker.js
    // imported, so init() there returns the instance that streams the file.
    const inWorker = () => worker.evaluate(async () => {
      const engine = await (await import('/js/index.js')).init();
      return { heap: engine._heapBytes(), y: engine.getShape('Y') };
    });
    const workerBefore = await inWorker();
    expect(workerBefore.y).toBeNull(); // nothing inferred there yet
    const out = await page.evaluate(async () => {
      const api = await import('/js/index.js');
      const engine = await api.init();
      const file = document.getElementById('file').files[0];
      const progress = [];
      const t0 = performance.now();
      const r = await engine.inferShapesFromFile(file, { onProgress: (d, t) => progress.push([d, t]) });
      const ms = performance.now() - t0;
      let error = null;
      try {
        await engine.inferShapesFromFile(file.slice(0, 1000));
      } catch (e) {
        error = { name: e.name, code: e.code, message: e.message, isClass: e instanceof api.ShapeInferenceError };
      }
      return {
        size: file.size, y: r.getShape('Y'), h0: r.getShape('h0'), n: r.nodes.length, ms,
        heap: engine._heapBytes(), progress: [progress[0], progress.at(-1)], error,
      };
    });
    const workerAfter = await inWorker();
    console.log(`Chromium: ${out.size} bytes inferred in ${out.ms.toFixed(0)} ms; worker heap ` +
      `${workerBefore.heap / 2 ** 20} -> ${workerAfter.heap / 2 ** 20} MiB, page heap ${out.heap / 2 ** 20} MiB`);
    expect(out.y).toEqual({ kind: 'tensor', elemType: 'float', dims: ['N', 4096] });
    expect(out.h0).toEqual({ kind: 'tensor', elemType: 'float', dims: ['N', 8192] });
    expect(out.n).toBe(12);
    // The big file went through the worker's instance (its last good result), whose heap stayed
    // small: the 1.5 GiB of weights were skipped, never copied in.
    expect(workerAfter.y).toEqual(out.y);
    expect(workerAfter.heap).toBeLessThanOrEqual(32 * 2 ** 20);
    expect(workerAfter.heap).toBe(workerBefore.heap);
    expect(out.heap).toBe(start.heap); // and the page's own instance did nothing
    expect(out.progress).toEqual([[0, out.size], [out.size, out.size]]);
    expect(out.error).toEqual({ name: 'ShapeInferenceError', code: 'PARSE_ERROR', message: expect.stringMatching(/at byte \d+$/), isClass: true });
    expect(errors).toEqual([]);
  }, 120000);

  test('node attributes ({ attributes: true }) cross from the stream worker', async () => {
    const attrs = await page.evaluate(async () => {
      const engine = await (await import('/js/index.js')).init();
      const blob = await (await fetch('/examples/models/cnn_dynamic.onnx')).blob();
      const r = await engine.inferShapesFromFile(blob, { attributes: true });
      const plain = await engine.inferShapesFromFile(blob);
      return { conv: r.nodeAttributes('', r.nodes.findIndex((n) => n.name === 'conv1')), none: plain.nodeAttributes('', 0) };
    });
    expect(attrs.none).toBeNull();
    expect(attrs.conv.find((a) => a.name === 'strides')).toEqual({ name: 'strides', type: 'ints', value: [2, 2] });
    expect(errors).toEqual([]);
  }, 60000);
});
