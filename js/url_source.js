// onnx-shapes: the bytes of a model at a URL that inference needs, fetched ahead of the decoder
// (engine.inferShapesFromUrl in js/index.js). Browsers and Node >= 18 (global fetch).
//
// The engine's streaming decoder (nanopb, src/decode/) pulls bytes synchronously and skips weight
// payloads; fetch is asynchronous. So a walk over the protobuf wire format runs first, here: it
// follows the messages the decoder reads (the subset in src/decode/proto/onnx_shapes.proto),
// fetches every byte the decoder will read with HTTP Range requests, and steps over what it skips
// (tensor payloads, fields it does not know). The decoder then runs on the fetched pieces, at the
// file's own offsets; should it read a byte the walk left out, that range is fetched and the
// decoder runs again (`retries` counts those; the tests keep it at 0).
//
// A server that ignores Range (200 instead of 206) is read once from start to end: the walk keeps
// the same pieces and drops the rest as it streams past, and the result says `rangeRequests: false`.

const isNode = typeof process === 'object' && process?.versions?.node !== undefined;
// The class js/index.js exports (in Node from errors.cjs, which the CommonJS entry shares).
const { ShapeInferenceError } = (await (isNode ? import('./errors.cjs') : import('./errors.js'))).default;

const SMALL = 64 * 1024;            // a field this small is fetched whole, without looking inside
// What the decoder reads of a tensor payload (src/decode/decode.h): a raw_data of at most
// OSI_NPB_MAX_KEPT_RAW bytes, and the first OSI_NPB_MAX_KEPT_ELEMS numbers of a packed list of
// floats or doubles (beyond that it skips); packed varints (int32/int64/uint64 data) it reads whole,
// checking every one as protobuf-c does.
const KEPT_RAW = 4096 * 8;
const KEPT_PACKED = 4096 * 8;
const MIN_WINDOW = 64 * 1024;       // a request reads at least this much past where it starts
const MAX_WINDOW = 4 * 1024 * 1024; // ... and doubles, while reads stay contiguous, up to this
const COALESCE = 256 * 1024;        // a gap this small is read through rather than skipped
const MAX_DEPTH = 100;              // deeper messages are fetched whole (the decoder stops at 64)
const MAX_RETRIES = 16;

// Section - What the decoder reads

// Per message, per field: a message name (walked into when big), 'skip' (a callback seeks past
// it), 'raw' (read when at most KEPT_RAW bytes), 'packed' (its first KEPT_PACKED bytes are read),
// or 1 (read whole). Fields a message does not list are unknown to the decoder, and nanopb reads
// unknown fields through (in 16-byte pieces) rather than seeking: they are fetched whole too.
const SCHEMA = {
  Model: { 1: 1, 2: 1, 3: 1, 4: 1, 5: 1, 7: 'Graph', 8: 1, 25: 'Function' },
  Graph: { 1: 'Node', 2: 1, 5: 'Tensor', 11: 1, 12: 1, 13: 1, 15: 'Sparse' },
  Node: { 1: 1, 2: 1, 3: 1, 4: 1, 5: 'Attribute', 7: 1, 8: 1 },
  Attribute: {
    1: 1, 2: 1, 3: 1, 4: 1, 5: 'Tensor', 6: 'Graph', 7: 1, 8: 1, 9: 1, 10: 'Tensor', 11: 'Graph',
    14: 1, 15: 1, 20: 1, 21: 1, 22: 'Sparse', 23: 'skip',
  },
  Tensor: {
    1: 1, 2: 1, 4: 'packed', 5: 1, 6: 'skip', 7: 1, 8: 1, 9: 'raw', 10: 'packed',
    11: 1, 13: 'skip', 14: 1,
  },
  Sparse: { 1: 'Tensor', 2: 'skip', 3: 1 },
  Function: { 1: 1, 4: 1, 5: 1, 6: 1, 7: 'Node', 9: 1, 10: 1, 11: 'Attribute', 12: 1, 13: 1 },
};

// Section - Fetched pieces

/** Byte ranges of one file: [start, start + bytes.length), sorted and disjoint. */
export class Pieces {
  constructor() {
    this.starts = [];
    this.chunks = [];
    this.at = 0; // the piece read last (reads mostly go forward)
    this.size = 0; // bytes held
  }

  /** Index of the piece holding `pos`, or -1. */
  find(pos) {
    const { starts, chunks } = this;
    const i = this.at;
    if (i < starts.length && starts[i] <= pos && pos < starts[i] + chunks[i].length) return i;
    if (i + 1 < starts.length && starts[i + 1] <= pos && pos < starts[i + 1] + chunks[i + 1].length) return (this.at = i + 1);
    let lo = 0, hi = starts.length - 1, found = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      if (starts[mid] <= pos) { found = mid; lo = mid + 1; } else hi = mid - 1;
    }
    if (found < 0 || pos >= starts[found] + chunks[found].length) return -1;
    return (this.at = found);
  }

  /** The first position in [pos, end) that no piece holds, or end. */
  firstMissing(pos, end) {
    while (pos < end) {
      const i = this.find(pos);
      if (i < 0) return pos;
      pos = this.starts[i] + this.chunks[i].length;
    }
    return end;
  }

  /** Start of the first piece after `pos`, or Infinity. */
  nextStart(pos) {
    const { starts } = this;
    let lo = 0, hi = starts.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (starts[mid] <= pos) lo = mid + 1; else hi = mid;
    }
    return lo < starts.length ? starts[lo] : Infinity;
  }

  /** Adds bytes at `start`; they must not overlap a piece. */
  add(start, bytes) {
    if (!bytes.length) return;
    let i = this.starts.length;
    while (i > 0 && this.starts[i - 1] > start) i--;
    this.starts.splice(i, 0, start);
    this.chunks.splice(i, 0, bytes);
    this.size += bytes.length;
  }

  /** The byte at `pos`, or -1 when no piece holds it. */
  byte(pos) {
    const i = this.find(pos);
    return i < 0 ? -1 : this.chunks[i][pos - this.starts[i]];
  }

  /** Copies up to `len` bytes at `pos` into `dst` at `at`: as many as one piece holds, 0 when none does. */
  copy(pos, dst, at, len) {
    const i = this.find(pos);
    if (i < 0) return 0;
    const c = this.chunks[i];
    const from = pos - this.starts[i];
    const n = Math.min(len, c.length - from);
    dst.set(c.subarray(from, from + n), at);
    return n;
  }
}

// Section - HTTP

/** A failed or inconsistent HTTP exchange: a ShapeInferenceError with code FETCH_ERROR. */
const fetchFailure = (message, cause) => new ShapeInferenceError(message, { code: 'FETCH_ERROR', cause });

/** "bytes a-b/total" -> { start, end (exclusive), total (null for *) }; "bytes *\/total" -> { total }; or null. */
function contentRange(header) {
  const m = /^\s*bytes\s+(?:(\d+)-(\d+)|\*)\/(\d+|\*)\s*$/i.exec(header ?? '');
  if (!m) return null;
  const total = m[3] === '*' ? null : Number(m[3]);
  return m[1] === undefined ? { start: null, end: null, total } : { start: Number(m[1]), end: Number(m[2]) + 1, total };
}

/** A response body read on from where it is: `pos` bytes read so far. */
class Body {
  constructor(url, res, onBytes) {
    this.url = url;
    this.reader = res.body.getReader();
    this.onBytes = onBytes;
    this.rest = null; // bytes read from the network but not yet handed out
    this.pos = 0;
    this.ended = false;
  }

  async chunk() {
    if (this.rest) {
      const r = this.rest;
      this.rest = null;
      return r;
    }
    if (this.ended) return null;
    let c;
    try {
      c = await this.reader.read();
    } catch (err) {
      if (err?.name === 'AbortError') throw err;
      throw fetchFailure(`${this.url}: the connection failed after byte ${this.pos} (${err?.message ?? err})`, err);
    }
    if (c.done) {
      this.ended = true;
      return null;
    }
    this.onBytes(c.value.length);
    return c.value;
  }

  /** Drops `skip` bytes, then returns the next `n` (fewer at the end of the body). */
  async read(skip, n) {
    const out = new Uint8Array(n);
    let got = 0;
    while (skip > 0 || got < n) {
      let v = await this.chunk();
      if (!v) break;
      if (skip > 0) {
        const k = Math.min(skip, v.length);
        skip -= k;
        this.pos += k;
        v = v.subarray(k);
      }
      const k = Math.min(v.length, n - got);
      out.set(v.subarray(0, k), got);
      got += k;
      this.pos += k;
      if (k < v.length) this.rest = v.subarray(k);
    }
    return got === n ? out : out.subarray(0, got);
  }

  async cancel() {
    this.ended = true;
    this.rest = null;
    await this.reader.cancel().catch(() => {});
  }
}

/**
 * Random access to the file at `url`: Range requests, or, when the server ignores Range, one
 * read of the whole body from start to end (reading behind it starts the body again).
 */
export class UrlReader {
  constructor(url, { fetch: fetchFn, headers, signal, onProgress } = {}) {
    this.url = String(url);
    // Called as a plain function: a browser's fetch refuses any other `this` than the window.
    const f = fetchFn ?? globalThis.fetch;
    this.fetchFn = (input, init) => f.call(globalThis, input, init);
    this.headers = headers;
    this.signal = signal;
    this.onProgress = onProgress;
    this.pieces = new Pieces();
    this.total = null;        // the file's size, once known
    this.ranges = true;       // false once the server has ignored a Range request
    this.bytesFetched = 0;    // bytes received (what a byte-counting server sends)
    this.requests = 0;
    this.lastEnd = -1;        // where the last range ended (coalescing, window growth)
    this.window = MIN_WINDOW;
    this.body = null;         // the Body read from start to end (no Range support)
    this.hiddenRanges = false; // a cross-origin server that does not expose Content-Range
    this.lastReport = 0;
    this.counted = (n) => {
      this.bytesFetched += n;
      this.progress(false);
    };
  }

  /** onProgress(bytesFetched, fileSize): at most every 100 ms, or now. */
  progress(now) {
    if (!this.onProgress) return;
    const t = Date.now();
    if (now || t - this.lastReport >= 100) {
      this.lastReport = t;
      this.onProgress(this.bytesFetched, this.total ?? undefined);
    }
  }

  async request(range) {
    const headers = new Headers(this.headers ?? undefined);
    if (range) headers.set('Range', `bytes=${range[0]}-${range[1] - 1}`);
    this.requests++;
    let res;
    try {
      res = await this.fetchFn(this.url, { headers, signal: this.signal });
    } catch (err) {
      if (err?.name === 'AbortError') throw err;
      throw fetchFailure(`cannot fetch ${this.url}: ${err?.message ?? err}`, err);
    }
    if (res.status === 200 || res.status === 206 || (res.status === 416 && range?.[0] === 0)) return res;
    await res.body?.cancel().catch(() => {});
    const what = range ? ` (bytes ${range[0]}-${range[1] - 1} of a file said to have ${this.total})` : '';
    throw fetchFailure(`${this.url}: HTTP ${res.status}${res.statusText ? ` ${res.statusText}` : ''}${what}`);
  }

  /** The first request (bytes 0..MIN_WINDOW): the size, and whether the server honours Range. */
  async open() {
    const res = await this.request([0, MIN_WINDOW]);
    const cr = contentRange(res.headers.get('Content-Range'));
    if (res.status === 416) {
      // Nothing at byte 0: an empty file, if the server says so.
      if (cr?.total !== 0) throw fetchFailure(`${this.url}: HTTP 416 for its first bytes`);
      this.total = 0;
    } else if (res.status === 206 && cr === null) {
      // A cross-origin server that does not expose Content-Range: the size comes from a HEAD
      // request's Content-Length, and each range is checked by its length alone.
      this.hiddenRanges = true;
      await res.body?.cancel().catch(() => {});
      this.total = await this.headSize();
      await this.range(0, Math.min(MIN_WINDOW, this.total));
    } else if (res.status === 206) {
      if (cr.start !== 0 || cr.total === null || cr.end > cr.total || cr.end > MIN_WINDOW) {
        await res.body?.cancel().catch(() => {});
        throw fetchFailure(`${this.url}: asked for bytes 0-${MIN_WINDOW - 1}, the server answered Content-Range ${res.headers.get('Content-Range')}`);
      }
      this.total = cr.total;
      await this.take(res, 0, cr.end);
    } else {
      this.ranges = false;
      const length = res.headers.get('Content-Length');
      const encoded = (res.headers.get('Content-Encoding') ?? 'identity') !== 'identity';
      this.total = length !== null && !encoded && /^\d+$/.test(length) ? Number(length) : null;
      this.body = new Body(this.url, res, this.counted);
    }
    this.progress(true);
    return this.total;
  }

  /** The size from a HEAD request's Content-Length. */
  async headSize() {
    this.requests++;
    let res;
    try {
      res = await this.fetchFn(this.url, { method: 'HEAD', headers: new Headers(this.headers ?? undefined), signal: this.signal });
    } catch (err) {
      if (err?.name === 'AbortError') throw err;
      throw fetchFailure(`cannot fetch ${this.url}: ${err?.message ?? err}`, err);
    }
    const length = res.headers.get('Content-Length');
    if (!res.ok || length === null || !/^\d+$/.test(length)) {
      throw fetchFailure(`${this.url}: neither Content-Range nor a HEAD request tells the file's size (HTTP ${res.status})`);
    }
    return Number(length);
  }

  /** Keeps the body of a 206 response for [start, end), which must be exactly that long. */
  async take(res, start, end) {
    const body = new Body(this.url, res, this.counted);
    const bytes = await body.read(0, end - start);
    await body.cancel();
    if (bytes.length !== end - start) {
      throw fetchFailure(`${this.url}: the server sent ${bytes.length} bytes for bytes ${start}-${end - 1}`);
    }
    this.pieces.add(start, bytes);
    this.lastEnd = end;
  }

  /**
   * Makes the pieces hold [pos, pos + n), clipped to the file. Returns how many of those bytes
   * the file has (fewer than n at its end).
   */
  async need(pos, n) {
    for (;;) {
      const end = this.total === null ? pos + n : Math.min(pos + n, this.total);
      const from = this.pieces.firstMissing(pos, end);
      if (from >= end) return Math.max(0, end - pos);
      if (this.body) {
        if (!(await this.stream(from, end))) return Math.max(0, this.pieces.firstMissing(pos, end) - pos);
      } else {
        await this.range(from, end);
      }
    }
  }

  /** One Range request from `from` (or from where the last one ended, when that is close) to `end` or beyond. */
  async range(from, end) {
    const onward = this.lastEnd >= 0 && this.lastEnd <= from && from - this.lastEnd <= COALESCE;
    if (onward) from = this.pieces.firstMissing(this.lastEnd, from);
    this.window = onward ? Math.min(this.window * 2, MAX_WINDOW) : MIN_WINDOW;
    const to = Math.min(Math.max(end, from + this.window), this.total, this.pieces.nextStart(from));
    const res = await this.request([from, to]);
    if (res.status === 206) {
      const cr = this.hiddenRanges ? { start: from, end: to, total: null } : contentRange(res.headers.get('Content-Range'));
      if (!cr || cr.start !== from || cr.end !== to || (cr.total !== null && cr.total !== this.total)) {
        await res.body?.cancel().catch(() => {});
        throw fetchFailure(`${this.url}: asked for bytes ${from}-${to - 1} of ${this.total}, `
          + `the server answered Content-Range ${res.headers.get('Content-Range')}`);
      }
      await this.take(res, from, to);
    } else {
      // The server stopped honouring Range (a 200 is the whole file): take the range out of it.
      this.ranges = false;
      const body = new Body(this.url, res, this.counted);
      const bytes = await body.read(from, to - from);
      await body.cancel();
      if (bytes.length !== to - from) throw fetchFailure(`${this.url}: the file ends at byte ${from + bytes.length}, before byte ${to}`);
      this.pieces.add(from, bytes);
      this.lastEnd = to;
    }
    this.progress(false);
  }

  /**
   * need() on the body read from start to end: drops what comes before `from`, keeps [from, end)
   * (up to the next piece already held). False at the end of the body.
   */
  async stream(from, end) {
    if (from < this.body.pos) {
      // Behind the body: only a decoder that needs more than the walk found comes here.
      await this.body.cancel();
      this.body = new Body(this.url, await this.request(null), this.counted);
    }
    const b = this.body;
    const to = Math.min(end, this.pieces.nextStart(from));
    const bytes = await b.read(from - b.pos, to - from);
    this.pieces.add(from, bytes);
    this.progress(false);
    if (bytes.length === to - from) return true;
    // The end of the body: now the size is known, and it must be what the server said.
    if (this.total !== null && this.total !== b.pos) {
      throw fetchFailure(`${this.url}: the body ends at byte ${b.pos}, but the server said the file has ${this.total}`);
    }
    this.total = b.pos;
    return false;
  }

  /** Ends a body still being read, and reports the last progress. */
  async close() {
    if (this.body) await this.body.cancel();
    this.progress(true);
  }
}

// Section - The walk

/** The varint at pos, [value, next pos], when its bytes are held; null otherwise (or past 2^53). */
function varintAt(pieces, pos, end) {
  let v = 0;
  let mul = 1;
  for (let i = 0; i < 10 && pos < end; i++) {
    const b = pieces.byte(pos++);
    if (b < 0) return null;
    v += (b & 0x7f) * mul;
    if (b < 0x80) return v <= Number.MAX_SAFE_INTEGER ? [v, pos] : null;
    mul *= 128;
  }
  return null;
}

/**
 * Fetches what the decoder reads of the message of `type` in [start, end). Malformed bytes end the
 * walk of that message: the decoder reports them, with their offset, when it gets there.
 */
async function walk(r, start, end, type, depth) {
  const fields = SCHEMA[type];
  let pos = start;
  while (pos < end) {
    if (await r.need(pos, Math.min(20, end - pos)) === 0) return;
    const tag = varintAt(r.pieces, pos, end);
    if (!tag) return;
    const field = Math.floor(tag[0] / 8);
    const wire = tag[0] % 8;
    pos = tag[1];
    if (wire === 0) {
      const v = varintAt(r.pieces, pos, end);
      if (!v) return;
      pos = v[1];
    } else if (wire === 1 || wire === 5) {
      const n = wire === 1 ? 8 : 4;
      if (await r.need(pos, n) < n) return;
      pos += n;
    } else if (wire === 2) {
      const l = varintAt(r.pieces, pos, end);
      if (!l) return;
      const [len, at] = l;
      if (len > end - at) return; // the decoder stops at this length
      const rule = fields?.[field];
      if (rule === 'skip') {
        // The decoder seeks past it.
      } else if (len <= SMALL || rule === undefined) {
        await r.need(at, len);
      } else if (rule === 'raw') {
        if (len <= KEPT_RAW) await r.need(at, len);
      } else if (rule === 'packed') {
        await r.need(at, Math.min(len, KEPT_PACKED));
      } else if (typeof rule === 'string' && depth < MAX_DEPTH) {
        await walk(r, at, at + len, rule, depth + 1);
      } else {
        await r.need(at, len);
      }
      pos = at + len;
    } else {
      return; // groups and invalid wire types: the decoder fails here
    }
  }
}

/**
 * Opens `url` and fetches every byte of the model the streaming decoder will read. Returns the
 * reader: its `pieces`, the file's `total` size and the figures of the exchange.
 */
export async function fetchModel(url, options) {
  const r = new UrlReader(url, options);
  try {
    const total = await r.open();
    // The size may be unknown until a body read from start to end ends; the walk then reaches it.
    // (`_walk: false`, for tests only, leaves every byte after the first request to the decoder's retries.)
    if (options?._walk !== false) await walk(r, 0, total ?? Number.MAX_SAFE_INTEGER, 'Model', 0);
    if (r.total === null) r.total = r.body ? r.body.pos : 0;
  } finally {
    await r.close();
  }
  return r;
}

// Section - Inference from a URL

/** The URL as an absolute one (relative to the page in browsers), after checking the options. */
function resolveUrl(url, options) {
  const { fetch: fetchFn } = options ?? {};
  if (typeof url !== 'string' && !(url instanceof URL)) throw new TypeError('onnx-shapes: a model URL must be a string or URL');
  if (fetchFn !== undefined && typeof fetchFn !== 'function') throw new TypeError('onnx-shapes: options.fetch must be a function');
  if (fetchFn === undefined && typeof fetch !== 'function') throw new TypeError('onnx-shapes: fetching a model needs fetch (Node >= 18 or a browser)');
  const base = isNode ? undefined : globalThis.location?.href;
  try {
    return new URL(url, base).href; // in Node, a URL must be absolute
  } catch {
    throw new TypeError(`onnx-shapes: not a URL${base ? '' : ' (an absolute one is needed here)'}: ${url}`);
  }
}

const readerOptions = (options) => ({
  fetch: options?.fetch, headers: options?.headers, signal: options?.signal, onProgress: options?.onProgress,
  _walk: options?._walk,
});

const downloadInfo = (href, r, retries) => Object.freeze({
  url: href, size: r.total, bytesFetched: r.bytesFetched, requests: r.requests, rangeRequests: r.ranges, retries,
});

/**
 * The bytes of the model at `url` that the streaming decoder reads, fetched (see above), as a
 * synchronous random-access source: { size, read(pos, len), download } for
 * engine.inferShapesFromSource() and for readers of the same messages (the demo page's scanner).
 * read() returns the bytes at `pos` up to `len` or the end of their piece; a byte that was not
 * fetched (a weight payload) throws. `download` is what result.download says for inferShapesFromUrl.
 * Options: headers, signal, fetch, onProgress(bytesFetched, fileSize).
 */
export async function fetchModelSource(url, options) {
  const href = resolveUrl(url, options);
  const r = await fetchModel(href, readerOptions(options));
  return {
    size: r.total,
    download: downloadInfo(href, r, 0),
    read(pos, len) {
      const out = new Uint8Array(Math.max(0, Math.min(len, r.total - pos)));
      const n = out.length ? r.pieces.copy(pos, out, 0, out.length) : 0;
      if (n === 0 && out.length) throw new Error(`onnx-shapes: byte ${pos} of ${href} was not fetched`);
      return out.subarray(0, n);
    },
  };
}

/**
 * engine.inferShapesFromUrl: fetches what the decoder reads of the model at `url`, then
 * `run(total, copy, download)` runs the decoder on those pieces, where copy(pos, heap, at, len)
 * gives it its bytes. A byte that was not fetched fails that run: its range is fetched, and the
 * decoder runs again (at most MAX_RETRIES times).
 */
export async function inferFromUrl(url, options, run) {
  const href = resolveUrl(url, options);
  const r = await fetchModel(href, readerOptions(options));
  for (let retries = 0; ; retries++) {
    let missing = -1;
    const copy = (pos, heap, at, len) => {
      const n = r.pieces.copy(pos, heap, at, len);
      if (n === 0) {
        missing = pos;
        throw new Error(`byte ${pos} was not fetched`);
      }
      return n;
    };
    try {
      return run(r.total, copy, () => downloadInfo(href, r, retries));
    } catch (err) {
      if (missing < 0) throw err;
      if (retries === MAX_RETRIES) throw fetchFailure(`${href}: the decoder still needs byte ${missing} after ${retries} more fetches`);
    }
    // The decoder read a byte the walk left out: fetch from there, and run it again.
    await r.need(missing, 1);
    r.progress(true);
  }
}
