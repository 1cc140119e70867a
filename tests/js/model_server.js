// A local HTTP server of generated model files for the URL tests (tests/js/url_hostile.test.js in
// Node, tests/browser/url_hostile.test.mjs for the demo page): files held as pieces with holes
// (never written out), an honest server of single ranges with validators, one that ignores Range,
// and room for liars (a file's own `serve`). It counts the requests and bytes it sends.
import { createServer } from 'node:http';
import { Pieces } from './big_model.js';

/** A file served from `pieces` (holes read as zeros) or bytes, never written out: { size, read(pos, len) }. */
export function virtualFile(content, extra = {}) {
  const parts = content instanceof Pieces ? content.parts : [content];
  const starts = [];
  let size = 0;
  for (const p of parts) {
    starts.push(size);
    size += typeof p === 'number' ? p : p.length;
  }
  const read = (pos, len) => {
    const out = Buffer.alloc(Math.max(0, Math.min(len, size - pos)));
    let lo = 0;
    let hi = parts.length - 1;
    while (lo < hi) { // the last part starting at or before pos
      const mid = (lo + hi + 1) >>> 1;
      if (starts[mid] <= pos) lo = mid; else hi = mid - 1;
    }
    for (let i = lo, at = 0; i < parts.length && at < out.length; i++) {
      const p = parts[i];
      const from = pos + at - starts[i];
      const plen = typeof p === 'number' ? p : p.length;
      const k = Math.min(plen - from, out.length - at);
      if (typeof p !== 'number') out.set(p.subarray(from, from + k), at);
      at += k;
    }
    return out;
  };
  return { size, read, ...extra };
}

/** Zeros, `size` of them, without holding them. */
export const zeros = (size) => ({ size, read: (pos, len) => Buffer.alloc(Math.max(0, Math.min(len, size - pos))) });

/** Writes [start, end) of `f` to res in 256 KiB pieces, honouring backpressure; counts them. */
export function send(res, f, start, end, stats, { then = () => res.end() } = {}) {
  let pos = start;
  const pump = () => {
    while (pos < end) {
      const chunk = f.read(pos, Math.min(256 * 1024, end - pos));
      pos += chunk.length;
      stats.bytes += chunk.length;
      if (!res.write(chunk)) return void res.once('drain', pump);
    }
    then();
  };
  res.on('close', () => { pos = end; });
  pump();
}

/**
 * An honest HTTP/1.1 server of single ranges with validators: ETag / Last-Modified when the file
 * has them, If-Match and If-Unmodified-Since (412 when they fail), If-Range (the whole file when it
 * fails), 416 past the end.
 */
export function honest(req, res, f, stats) {
  const validators = {};
  if (f.etag) validators.ETag = f.etag;
  if (f.lastModified) validators['Last-Modified'] = f.lastModified;
  const h = req.headers;
  if ((h['if-match'] && h['if-match'] !== f.etag) || (h['if-unmodified-since'] && h['if-unmodified-since'] !== f.lastModified)) {
    return res.writeHead(412, validators).end();
  }
  const m = /^bytes=(\d+)-(\d+)$/.exec(h.range ?? '');
  const ifRange = h['if-range'];
  if (m && (!ifRange || ifRange === f.etag || ifRange === f.lastModified)) {
    const start = Number(m[1]);
    const end = Math.min(Number(m[2]) + 1, f.size);
    if (start >= f.size) return res.writeHead(416, { 'Content-Range': `bytes */${f.size}` }).end();
    res.writeHead(206, { ...validators, 'Content-Range': `bytes ${start}-${end - 1}/${f.size}`, 'Content-Length': end - start });
    if (req.method === 'HEAD') return res.end();
    return send(res, f, start, end, stats);
  }
  res.writeHead(200, { ...validators, 'Content-Length': f.size });
  if (req.method === 'HEAD') return res.end();
  return send(res, f, 0, f.size, stats);
}

/**
 * Serves `files` (name -> file; a file's `serve(req, res, f, stats)` answers in its own way) on
 * 127.0.0.1. With `cors`, as another origin a page may read: every answer allows any origin and
 * exposes the headers the walk reads, and preflights (counted apart) allow the headers it sends.
 */
export async function server(files, { cors = false } = {}) {
  const stats = { requests: 0, bytes: 0, headers: [], preflights: 0 };
  const srv = createServer((req, res) => {
    if (cors) {
      res.setHeader('Access-Control-Allow-Origin', '*');
      res.setHeader('Access-Control-Expose-Headers', 'Content-Range, Content-Length, ETag, Last-Modified');
      if (req.method === 'OPTIONS') {
        stats.preflights++;
        return res.writeHead(204, {
          'Access-Control-Allow-Headers': 'Range, If-Match, If-Range, If-Unmodified-Since',
          'Access-Control-Allow-Methods': 'GET, HEAD',
        }).end();
      }
    }
    stats.requests++;
    stats.headers.push({ method: req.method, ...req.headers });
    const f = files.get(decodeURIComponent(new URL(req.url, 'http://x').pathname.slice(1)));
    if (!f) return res.writeHead(404).end();
    return (f.serve ?? honest)(req, res, f, stats);
  });
  await new Promise((r) => srv.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${srv.address().port}`;
  return {
    stats,
    url: (name) => `${base}/${encodeURIComponent(name)}`,
    reset: () => Object.assign(stats, { requests: 0, bytes: 0, headers: [], preflights: 0 }),
    close: () => new Promise((r) => { srv.closeAllConnections(); srv.close(r); }),
  };
}

/** A server that ignores Range: always the whole file with 200. */
export const plain = (req, res, f, stats) => {
  res.writeHead(200, { 'Content-Length': f.size });
  send(res, f, 0, f.size, stats);
};
