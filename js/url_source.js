// A model file on an HTTP(S) server as a synchronous random-access byte source, for
// engine.inferShapesFromSource(): the streaming decoder reads the graph and skips weight payloads,
// so only the bytes around the graph are fetched, with HTTP Range requests. Synchronous
// XMLHttpRequest, so Web Workers only (the demo page's worker uses it for its URL field).
//
//   const source = urlSourceSync('https://host/model.onnx');
//   const result = engine.inferShapesFromSource(source);
//   source.stats   // { requests, bytes, ranged }: what was fetched
//
// Reads come in windows: the first request asks for the first `chunkBytes` (64 KiB); a read
// outside the current window asks for a new one from there (so a skipped payload is never
// fetched, and small skips fall inside a window). While the decoder reads on without skipping,
// windows double, up to `maxBytes` (8 MiB), so a large graph section costs few requests. A server that ignores Range answers
// the first request with the whole file (status 200): it is then read from memory, and
// stats.ranged is false.

/** Throws unless `status` is a success; `what` names the request. */
function check(xhr, url) {
  if (xhr.status < 200 || xhr.status >= 300) {
    throw new Error(`HTTP ${xhr.status || 'request failed'} for ${url}`);
  }
}

/** bytes first-last/total from a Content-Range header, or null. */
function contentRange(header) {
  const m = /^bytes (\d+)-(\d+)\/(\d+|\*)$/.exec(header?.trim() ?? '');
  return m ? { first: Number(m[1]), last: Number(m[2]), total: m[3] === '*' ? null : Number(m[3]) } : null;
}

export function urlSourceSync(url, { chunkBytes = 64 << 10, maxBytes = 8 << 20 } = {}) {
  if (typeof XMLHttpRequest !== 'function') throw new TypeError('onnx-shapes: urlSourceSync needs XMLHttpRequest (a browser Web Worker)');
  const stats = { requests: 0, bytes: 0, ranged: true };

  /** GET with a Range header; returns { status, bytes, range }. */
  function get(first, last) {
    const xhr = new XMLHttpRequest();
    xhr.open('GET', url, false);
    xhr.responseType = 'arraybuffer';
    xhr.setRequestHeader('Range', `bytes=${first}-${last}`);
    xhr.send();
    check(xhr, url);
    const bytes = new Uint8Array(xhr.response ?? new ArrayBuffer(0));
    stats.requests++;
    stats.bytes += bytes.length;
    return { status: xhr.status, bytes, range: xhr.status === 206 ? contentRange(xhr.getResponseHeader('Content-Range')) : null };
  }

  const first = get(0, chunkBytes - 1);
  let size;
  let win = first.bytes;
  let winStart = 0;
  if (first.status === 206 && first.range && first.range.total !== null && first.range.first === 0) {
    size = first.range.total;
  } else {
    // The server sent the whole file (or no usable Content-Range): read it from memory.
    stats.ranged = false;
    size = win.length;
  }
  let span = chunkBytes; // the next window's size: doubles while reads go on without a skip

  return {
    size,
    stats,
    url,
    /** `len` bytes at `pos` (fewer at the end of the file). */
    read(pos, len) {
      const end = Math.min(size, pos + len);
      if (pos >= winStart && end <= winStart + win.length) return win.subarray(pos - winStart, end - winStart);
      if (!stats.ranged) return new Uint8Array(0); // (the whole file is the window)
      const sequential = pos === winStart + win.length;
      span = sequential ? Math.min(span * 2, maxBytes) : chunkBytes;
      const last = Math.min(size, pos + Math.max(len, span)) - 1;
      const r = get(pos, last);
      if (r.status !== 206 || !r.range || r.range.first !== pos) throw new Error(`onnx-shapes: ${url} did not answer a Range request for bytes ${pos}-${last}`);
      winStart = pos;
      win = r.bytes;
      return win.subarray(0, end - pos);
    },
  };
}
