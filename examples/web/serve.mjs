#!/usr/bin/env node
// A tiny dependency-free static server for the demo: serves a folder (default: the repository
// root) on 127.0.0.1 with the MIME types module scripts and WebAssembly need, and single HTTP
// Range requests (the page's URL field reads a model's graph without its weights).
//
//   node examples/web/serve.mjs [root] [port]     → http://127.0.0.1:8080/examples/web/
//   import { serve } from './serve.mjs'; const server = await serve(root, 0, { onResponse });
//   onResponse({ path, status, bytes }) is called for every answer (tests count bytes with it).
import http from 'node:http';
import { createReadStream, statSync } from 'node:fs';
import { extname, join, normalize, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const MIME = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.cjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.wasm': 'application/wasm',
  '.onnx': 'application/octet-stream',
  '.pb': 'application/octet-stream',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.txt': 'text/plain; charset=utf-8',
  '.md': 'text/markdown; charset=utf-8',
};

const REPO = resolve(fileURLToPath(new URL('../..', import.meta.url)));

/** Starts serving `root` on 127.0.0.1:`port` (0: any free port). Resolves to the http.Server. */
export function serve(root = REPO, port = 0, { quiet = true, onResponse } = {}) {
  const base = resolve(root);
  const server = http.createServer((req, res) => {
    let pathname;
    try {
      pathname = decodeURIComponent(new URL(req.url, 'http://localhost').pathname);
    } catch {
      res.writeHead(400).end('bad request');
      return;
    }
    let file = normalize(join(base, pathname));
    if (file !== base && !file.startsWith(base + sep)) {
      res.writeHead(403).end('forbidden');
      return;
    }
    try {
      if (statSync(file).isDirectory()) {
        if (!pathname.endsWith('/')) {
          res.writeHead(301, { Location: `${pathname}/` }).end();
          return;
        }
        file = join(file, 'index.html');
      }
      const st = statSync(file);
      const headers = {
        'Content-Type': MIME[extname(file).toLowerCase()] || 'application/octet-stream',
        'Cache-Control': 'no-store',
        'X-Content-Type-Options': 'nosniff',
        'Accept-Ranges': 'bytes',
      };
      // One range, "bytes=first-last" or "bytes=first-" (what the page's URL reader sends).
      const range = /^bytes=(\d+)-(\d*)$/.exec(req.headers.range ?? '');
      let first = 0;
      let last = st.size - 1;
      let status = 200;
      if (range) {
        first = Number(range[1]);
        last = range[2] === '' ? st.size - 1 : Math.min(Number(range[2]), st.size - 1);
        if (first >= st.size || first > last) {
          res.writeHead(416, { 'Content-Range': `bytes */${st.size}` }).end();
          onResponse?.({ path: pathname, status: 416, bytes: 0 });
          return;
        }
        status = 206;
        headers['Content-Range'] = `bytes ${first}-${last}/${st.size}`;
      }
      const length = st.size === 0 ? 0 : last - first + 1;
      res.writeHead(status, { ...headers, 'Content-Length': length });
      if (req.method === 'HEAD') { res.end(); return; }
      onResponse?.({ path: pathname, status, bytes: length });
      if (length === 0) res.end();
      else createReadStream(file, { start: first, end: last }).pipe(res);
      if (!quiet) console.log(`${status} ${pathname}${range ? ` ${first}-${last}` : ''}`);
    } catch {
      res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' }).end('not found');
      if (!quiet) console.log(`404 ${pathname}`);
    }
  });
  return new Promise((ok, fail) => {
    server.once('error', fail);
    server.listen(port, '127.0.0.1', () => ok(server));
  });
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const root = process.argv[2] || REPO;
  const port = Number(process.argv[3] || process.env.PORT || 8080);
  const server = await serve(root, port, { quiet: false });
  console.log(`serving ${resolve(root)} on http://127.0.0.1:${server.address().port}/examples/web/`);
}
