// engine.inferShapesFromFile in headless Chromium (Debian's /usr/bin/chromium + playwright-core):
// a generated 1.5 GiB model is picked through an <input type=file> and streamed by the module Web
// Worker (js/stream_worker.js) with FileReaderSync; the page's own wasm heap must not grow and
// the worker's reads stay 64 KiB. Skipped (with a message) when chromium or playwright-core is absent.
import http from 'node:http';
import { createReadStream, existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { extname, join, normalize } from 'node:path';
import { REPO } from './helpers.js';
import { matmulChain, writePieces } from './big_model.js';

const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
let chromium = null;
try {
  ({ chromium } = await import('playwright-core'));
} catch {
  chromium = null;
}
const available = chromium && existsSync(CHROMIUM);
if (!available) console.warn(`skipping browser streaming test: ${chromium ? CHROMIUM : 'playwright-core'} is absent`);

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

(available ? describe : describe.skip)('inferShapesFromFile in Chromium', () => {
  let server;
  let ctx;
  let page;
  let dir;
  const errors = [];

  beforeAll(async () => {
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
    const out = await page.evaluate(async () => {
      const api = await import('/js/index.js');
      const engine = await api.init();
      const heapBefore = engine._heapBytes();
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
      const again = await api.inferShapesFromFile(new Blob([file.slice(0, 0)]), {}).catch((e) => e.code);
      return {
        size: file.size, y: r.getShape('Y'), h0: r.getShape('h0'), n: r.nodes.length, ms,
        heapBefore, heapAfter: engine._heapBytes(), progress: [progress[0], progress.at(-1)], error, again,
      };
    });
    console.log(`Chromium: ${out.size} bytes inferred in ${out.ms.toFixed(0)} ms (worker start included); page heap ${out.heapAfter / 2 ** 20} MiB`);
    expect(out.y).toEqual({ kind: 'tensor', elemType: 'float', dims: ['N', 4096] });
    expect(out.h0).toEqual({ kind: 'tensor', elemType: 'float', dims: ['N', 8192] });
    expect(out.n).toBe(12);
    expect(out.heapAfter).toBe(out.heapBefore);
    expect(out.heapAfter).toBeLessThanOrEqual(64 * 2 ** 20);
    expect(out.progress).toEqual([[0, out.size], [out.size, out.size]]);
    expect(out.error).toEqual({ name: 'ShapeInferenceError', code: 'PARSE_ERROR', message: expect.stringMatching(/at byte \d+$/), isClass: true });
    expect(out.again).toBe('INVALID_MODEL'); // an empty Blob is a ModelProto without a graph
    expect(errors).toEqual([]);
  }, 120000);
});
