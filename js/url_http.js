// onnx-shapes: random access to the file at a URL for js/url_source.js, assuming nothing of the
// server. Every number it sends is checked before use (a size must be a safe integer; a 206 must
// carry exactly the bytes asked for, no more, no fewer), the file must stay the same file from the
// first request to the last (ETag / Last-Modified compared on every response, and sent back as
// If-Match / If-Unmodified-Since / If-Range where no CORS preflight is needed for them), and what is
// kept of a body read from start to end is bounded (maxBytes). Every failure is a
// ShapeInferenceError with code FETCH_ERROR (LIMIT_EXCEEDED past maxBytes), except an abort through
// the caller's signal, which rejects with the signal's reason.

import { Pieces } from './url_pieces.js';

const isNode = typeof process === 'object' && process?.versions?.node !== undefined;
// The class js/index.js exports (in Node from errors.cjs, which the CommonJS entry shares).
const { ShapeInferenceError } = (await (isNode ? import('./errors.cjs') : import('./errors.js'))).default;

export const FIRST_REQUEST = 64 * 1024; // bytes 0.. of the file: its start, and whether Range works
const MAX_READ_AHEAD = 4 * 1024 * 1024;
// Read past what the walk asked for, always (a little: after a skipped payload the next stretch is
// most often a tensor's header, of some 100 bytes) ...
const MIN_READ_AHEAD = 256;
// ... and, after a skip, as much as the stretch before it plus a quarter, up to this.
const AFTER_SKIP = 64 * 1024;
const COALESCE = 256 * 1024; // at most this gap is read through rather than skipped (within the budget)
// In a body read from start to end, a gap this small between two kept spans is kept too: the spans
// of one message's fields then grow one buffer rather than make a piece each.
const GAP_KEPT = 4 * 1024;
export const DEFAULT_MAX_BYTES = 2 ** 31;

/** A failed or inconsistent HTTP exchange: a ShapeInferenceError with code FETCH_ERROR. */
export const fetchFailure = (message, cause) => new ShapeInferenceError(message, { code: 'FETCH_ERROR', cause });

/** A size the server sent: a decimal safe integer, or null when it is something else. */
function sizeOf(text) {
  if (typeof text !== 'string' || !/^\d{1,16}$/.test(text.trim())) return null;
  const n = Number(text.trim());
  return Number.isSafeInteger(n) ? n : null;
}

/**
 * Content-Range "bytes a-b/total" -> { start, end (exclusive), total (null for *) }; "bytes *\/total"
 * -> { start: null, end: null, total }; null when absent or malformed, or when a number is not a
 * safe integer (a total of 10^20 is no size, whatever else the response says).
 */
function contentRange(header) {
  const m = /^\s*bytes\s+(?:(\d+)-(\d+)|\*)\/(\d+|\*)\s*$/i.exec(header ?? '');
  if (!m) return null;
  const total = m[3] === '*' ? null : sizeOf(m[3]);
  if (m[3] !== '*' && total === null) return null;
  if (m[1] === undefined) return { start: null, end: null, total };
  const start = sizeOf(m[1]);
  const last = sizeOf(m[2]);
  if (start === null || last === null || last < start) return null;
  return { start, end: last + 1, total };
}

/** Whether `url` is another origin than the page's (never in Node, where nothing is cross-origin). */
function crossOrigin(url) {
  const here = !isNode ? globalThis.location?.origin : undefined;
  if (!here || here === 'null') return false;
  try {
    return new URL(url).origin !== here;
  } catch {
    return false;
  }
}

/** A response body read on from where it is: `pos` bytes of it read so far. */
class Body {
  constructor(owner, res) {
    this.owner = owner;
    this.reader = res.body ? res.body.getReader() : null;
    this.cur = null; // the chunk being read ...
    this.off = 0; // ... and the next byte of it
    this.pos = 0;
    this.ended = !this.reader;
  }

  /** Whether a byte is at hand (false at the end of the body). */
  async #fill() {
    if (this.cur && this.off < this.cur.length) return true;
    this.cur = null;
    if (this.ended) return false;
    let c;
    try {
      c = await this.reader.read();
    } catch (err) {
      throw this.owner.failure(err, () => `${this.owner.url}: the connection failed after byte ${this.pos} of a response (${err?.message ?? err})`);
    }
    if (c.done) {
      this.ended = true;
      return false;
    }
    this.owner.received(c.value.length);
    this.cur = c.value;
    this.off = 0;
    return true;
  }

  /** Drops the next `n` bytes; false when the body ends first. */
  async drop(n) {
    while (n > 0 && (await this.#fill())) {
      const k = Math.min(n, this.cur.length - this.off);
      this.off += k;
      this.pos += k;
      n -= k;
    }
    return n === 0;
  }

  /** Hands the next `n` bytes (fewer at the end of the body) to `into(view)` in parts; how many. */
  async read(n, into) {
    let got = 0;
    while (got < n && (await this.#fill())) {
      const k = Math.min(n - got, this.cur.length - this.off);
      into(this.cur.subarray(this.off, this.off + k));
      this.off += k;
      this.pos += k;
      got += k;
    }
    return got;
  }

  /** Whether the body has ended (reads on to find out). */
  async atEnd() {
    return !(await this.#fill());
  }

  async cancel() {
    this.ended = true;
    this.cur = null;
    await this.reader?.cancel().catch(() => {});
  }
}

/**
 * Random access to the file at `url`: Range requests, or, when the server ignores Range, one
 * read of the whole body from start to end (reading behind it starts the body again).
 * Options: fetch, headers, signal, timeout (ms, for everything), maxBytes (the most kept),
 * onProgress(bytesFetched, fileSize).
 */
export class UrlReader {
  constructor(url, { fetch: fetchFn, headers, signal, timeout, maxBytes, onProgress } = {}) {
    this.url = String(url);
    // Called as a plain function: a browser's fetch refuses any other `this` than the window.
    const f = fetchFn ?? globalThis.fetch;
    this.fetchFn = (input, init) => f.call(globalThis, input, init);
    this.headers = headers;
    this.userSignal = signal ?? null;
    this.timeout = timeout ?? null;
    this.maxBytes = maxBytes ?? DEFAULT_MAX_BYTES;
    this.onProgress = onProgress;
    this.pieces = new Pieces();
    this.total = null; // the file's size, once known
    this.ranges = true; // false once the server has ignored a Range request
    this.bytesFetched = 0; // bytes received (what a byte-counting server sends)
    this.requests = 0;
    this.needed = 0; // bytes the walk asked for (the read-ahead budget is twice this)
    this.neededTo = 0; // ... up to here (the walk goes forward)
    this.runStart = 0; // where the walk's current stretch without a skip started ...
    this.lastRun = 0; // ... and how long the one before it was
    this.lastEnd = -1; // where the last range ended (coalescing)
    this.body = null; // the Body read from start to end (no Range support)
    this.hiddenRanges = false; // a cross-origin server that does not expose Content-Range
    this.validators = null; // { etag, lastModified } of the first response
    // Conditional request headers are not CORS-safelisted: from another origin they would cost a
    // preflight that a server allowing Range alone refuses. There the validators are compared only.
    this.conditional = !crossOrigin(this.url);
    this.lastReport = 0;
    this.timedOut = false;
    // One signal for every fetch: the caller's, and the timeout.
    this.controller = new AbortController();
    this.signal = this.controller.signal;
    this.onAbort = () => this.controller.abort(this.userSignal.reason);
    this.userSignal?.addEventListener('abort', this.onAbort, { once: true });
    if (this.userSignal?.aborted) this.controller.abort(this.userSignal.reason);
    this.timer = this.timeout !== null ? setTimeout(() => {
      this.timedOut = true;
      this.controller.abort();
    }, this.timeout) : null;
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

  received(n) {
    this.bytesFetched += n;
    this.progress(false);
  }

  /** Throws the caller's abort reason, or the timeout, when either has happened. */
  checkAborted() {
    if (this.signal.aborted) throw this.failure(null, () => '');
  }

  /**
   * What to throw for `err` (from fetch or a body): the caller's abort reason as it is, a
   * FETCH_ERROR for the timeout, else a FETCH_ERROR with `message()`.
   */
  failure(err, message) {
    if (this.userSignal?.aborted) return this.userSignal.reason ?? err;
    if (this.timedOut) {
      return fetchFailure(`${this.url}: not read within ${this.timeout} ms (options.timeout): ${this.bytesFetched} bytes `
        + `received in ${this.requests} requests`, err ?? undefined);
    }
    if (err?.name === 'AbortError') return err;
    if (err instanceof ShapeInferenceError) return err;
    return fetchFailure(message(), err ?? undefined);
  }

  /** Why a fetch got no response at all, when that may be CORS (a browser says only "Failed to fetch"). */
  #corsHint(err) {
    if (isNode || !(err instanceof TypeError) || !crossOrigin(this.url)) return '';
    return ` (the server at ${new URL(this.url).origin} may be down, or not allow this page's origin: a model on another `
      + 'origin needs a server that sends Access-Control-Allow-Origin)';
  }

  /** Headers for a request: the caller's, the range, and the validators of the first response. */
  #requestHeaders(range) {
    const headers = new Headers(this.headers ?? undefined);
    if (range) headers.set('Range', `bytes=${range[0]}-${range[1] - 1}`);
    const v = this.validators;
    if (v && this.conditional) {
      const strong = v.etag !== null && !v.etag.startsWith('W/') ? v.etag : null;
      if (strong) headers.set('If-Match', strong);
      else if (v.lastModified !== null) headers.set('If-Unmodified-Since', v.lastModified);
      if (range && (strong ?? v.lastModified) !== null) headers.set('If-Range', strong ?? v.lastModified);
    }
    return headers;
  }

  /** The first response's validators; any later response with others is another file. */
  #checkSameFile(res) {
    const etag = res.headers.get('ETag');
    const lastModified = res.headers.get('Last-Modified');
    const v = this.validators;
    if (!v) {
      this.validators = { etag, lastModified };
      return;
    }
    const changed = v.etag !== null && etag !== null && etag !== v.etag ? `ETag ${v.etag}, then ${etag}`
      : v.lastModified !== null && lastModified !== null && lastModified !== v.lastModified
        ? `Last-Modified ${v.lastModified}, then ${lastModified}` : null;
    if (changed) throw this.#changed(changed);
  }

  #sentIfRange() {
    const v = this.validators;
    return this.conditional && v !== null && (v.etag !== null && !v.etag.startsWith('W/') || v.lastModified !== null);
  }

  #sameValidator(res) {
    const v = this.validators;
    return (v.etag !== null && res.headers.get('ETag') === v.etag)
      || (v.lastModified !== null && res.headers.get('Last-Modified') === v.lastModified);
  }

  #changed(how) {
    return fetchFailure(`${this.url} changed while it was being read (${how}): the bytes fetched before and after `
      + 'would mix two files');
  }

  async #send(init, range) {
    this.checkAborted();
    this.requests++;
    try {
      return await this.fetchFn(this.url, { ...init, headers: this.#requestHeaders(range), signal: this.signal });
    } catch (err) {
      throw this.failure(err, () => `cannot fetch ${this.url}: ${err?.message ?? err}${this.#corsHint(err)}`);
    }
  }

  /** A GET, of `range` ([start, end), never empty) or the whole file; a 200, 206 or 416 response. */
  async request(range) {
    if (range && !(range[1] > range[0])) throw new Error(`onnx-shapes: internal error: an empty range ${range[0]}-${range[1]}`);
    const res = await this.#send({}, range);
    try {
      if (res.status === 412) throw this.#changed(`HTTP 412 ${res.statusText || 'Precondition Failed'}`);
      if (res.status === 200 || res.status === 206 || (res.status === 416 && range?.[0] === 0)) {
        this.#checkSameFile(res);
        return res;
      }
      const what = range && this.total !== null ? ` (bytes ${range[0]}-${range[1] - 1} of its ${this.total})` : '';
      throw fetchFailure(`${this.url}: HTTP ${res.status}${res.statusText ? ` ${res.statusText}` : ''}${what}`);
    } catch (err) {
      await res.body?.cancel().catch(() => {});
      throw err;
    }
  }

  /** The first request (bytes 0..FIRST_REQUEST): the size, and whether the server honours Range. */
  async open() {
    const res = await this.request([0, FIRST_REQUEST]);
    const header = res.headers.get('Content-Range');
    const cr = contentRange(header);
    if (res.status === 416) {
      // Nothing at byte 0: an empty file, if the server says so.
      await res.body?.cancel().catch(() => {});
      if (cr?.total !== 0) throw fetchFailure(`${this.url}: HTTP 416 for its first bytes`);
      this.total = 0;
    } else if (res.status === 206 && header === null) {
      // A cross-origin server that does not expose Content-Range: the size comes from a HEAD
      // request's Content-Length, and each range is checked by its length alone.
      this.hiddenRanges = true;
      const first = new Uint8Array(FIRST_REQUEST + 1); // one more: a longer body is not the range
      let got = 0;
      const body = new Body(this, res);
      await body.read(first.length, (v) => {
        first.set(v, got);
        got += v.length;
      });
      await body.cancel();
      this.total = await this.headSize();
      if (got !== Math.min(FIRST_REQUEST, this.total)) {
        throw fetchFailure(`${this.url}: asked for bytes 0-${FIRST_REQUEST - 1} of a file of ${this.total} bytes (HEAD), `
          + `the server sent ${got > FIRST_REQUEST ? 'more' : got}`);
      }
      if (got) this.pieces.add(0, first.subarray(0, got));
      this.lastEnd = got;
    } else if (res.status === 206) {
      const want = cr?.total === null || cr?.total === undefined ? null : Math.min(FIRST_REQUEST, cr.total);
      if (cr === null || cr.start !== 0 || want === null || want === 0 || cr.end !== want) {
        await res.body?.cancel().catch(() => {});
        throw fetchFailure(`${this.url}: asked for bytes 0-${FIRST_REQUEST - 1}, the server answered Content-Range ${header}`);
      }
      this.total = cr.total;
      await this.take(res, 0, cr.end);
    } else {
      this.ranges = false;
      this.total = this.#bodyLength(res);
      this.body = new Body(this, res);
    }
    this.progress(true);
    return this.total;
  }

  /** The length of a whole-file body from its Content-Length (null when absent or encoded). */
  #bodyLength(res) {
    const encoded = (res.headers.get('Content-Encoding') ?? 'identity').trim().toLowerCase() !== 'identity';
    const text = res.headers.get('Content-Length');
    if (text === null || encoded) return null;
    const n = sizeOf(text);
    if (n === null) throw fetchFailure(`${this.url}: the server says the file has ${JSON.stringify(text)} bytes (Content-Length)`);
    if (this.total !== null && n !== this.total) {
      throw fetchFailure(`${this.url}: the file had ${this.total} bytes, the server now sends ${n} (Content-Length)`);
    }
    return n;
  }

  /** The size from a HEAD request's Content-Length. */
  async headSize() {
    const res = await this.#send({ method: 'HEAD' }, null);
    await res.body?.cancel().catch(() => {});
    if (res.status === 412) throw this.#changed(`HTTP 412 ${res.statusText || 'Precondition Failed'}`);
    if (res.ok) this.#checkSameFile(res);
    const text = res.headers.get('Content-Length');
    const n = sizeOf(text);
    if (!res.ok || n === null) {
      throw fetchFailure(`${this.url}: neither Content-Range nor a HEAD request tells the file's size `
        + `(HTTP ${res.status}${text === null ? '' : `, Content-Length ${JSON.stringify(text)}`})`);
    }
    return n;
  }

  /** Fails when what is kept is over maxBytes. */
  #checkKept() {
    if (this.pieces.size > this.maxBytes) {
      throw new ShapeInferenceError(`${this.url}: the model needs more than ${this.maxBytes} bytes in memory (options.maxBytes)`,
        { code: 'LIMIT_EXCEEDED' });
    }
  }

  /** Keeps the body of a 206 response for [start, end), which must be exactly that long. */
  async take(res, start, end) {
    const n = end - start;
    const length = res.headers.get('Content-Length');
    const encoded = (res.headers.get('Content-Encoding') ?? 'identity').trim().toLowerCase() !== 'identity';
    if (length !== null && !encoded && sizeOf(length) !== n) {
      await res.body?.cancel().catch(() => {});
      throw fetchFailure(`${this.url}: bytes ${start}-${end - 1} are ${n} bytes, the server says ${JSON.stringify(length)} (Content-Length)`);
    }
    const body = new Body(this, res);
    const bytes = new Uint8Array(n);
    let at = 0;
    await body.read(n, (v) => {
      bytes.set(v, at);
      at += v.length;
    });
    // A body longer than its range is not those bytes (a server that restarted at byte 0, say).
    const exact = at === n && (await body.atEnd());
    await body.cancel();
    if (!exact) {
      throw fetchFailure(`${this.url}: the server sent ${at === n ? 'more than' : at} bytes for bytes ${start}-${end - 1} (${n} bytes)`);
    }
    this.pieces.add(start, bytes);
    this.lastEnd = end;
    this.#checkKept();
  }

  /**
   * Bytes [pos, pos + n), clipped to the file: held now (a number: how many the file has, fewer
   * than n at its end), or a promise of that number once fetched. The walk goes forward: what it
   * asks for is the budget of what is read ahead.
   */
  need(pos, n) {
    const end = this.total === null ? pos + n : Math.min(pos + n, this.total);
    const from = Math.max(pos, this.neededTo);
    if (end > from) {
      if (pos > this.neededTo) { // a skip: a new stretch starts
        this.lastRun = this.neededTo - this.runStart;
        this.runStart = pos;
      }
      this.needed += end - from;
      this.neededTo = end;
    }
    if (this.pieces.firstMissing(pos, end) >= end) return Math.max(0, end - pos);
    return this.#fetch(pos, n);
  }

  async #fetch(pos, n) {
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

  /**
   * One Range request for [from, end), read ahead (and through a gap behind it) as far as the
   * walk is likely to go on without a skip: half as far again as its current stretch has gone (a
   * contiguous graph is read in requests growing by half), or, at the start of a stretch, as far
   * as the last one went (a layer between two skipped payloads in one request, a tensor's header
   * in one). Never past the budget: what is fetched stays within twice what the walk asked for
   * (the bytes the decoder reads), plus the first request.
   */
  async range(from, end) {
    const budget = 2 * this.needed + FIRST_REQUEST - this.bytesFetched - (end - from);
    const run = this.neededTo - this.runStart;
    const likely = Math.max(Math.floor(run / 2), Math.min(AFTER_SKIP, this.lastRun + Math.floor(this.lastRun / 4) + 128));
    let ahead = Math.min(MAX_READ_AHEAD, Math.max(MIN_READ_AHEAD, Math.min(budget, likely)));
    const gap = from - this.lastEnd;
    if (this.lastEnd >= 0 && gap > 0 && gap <= Math.min(COALESCE, ahead - MIN_READ_AHEAD)) {
      from = this.pieces.firstMissing(this.lastEnd, from);
      ahead -= gap;
    }
    const to = Math.min(end + ahead, this.total, this.pieces.nextStart(from));
    const res = await this.request([from, to]);
    if (res.status === 206) {
      const header = res.headers.get('Content-Range');
      const cr = this.hiddenRanges && header === null ? { start: from, end: to, total: null } : contentRange(header);
      if (!cr || cr.start !== from || cr.end !== to || (cr.total !== null && cr.total !== this.total)) {
        await res.body?.cancel().catch(() => {});
        throw fetchFailure(`${this.url}: asked for bytes ${from}-${to - 1} of ${this.total}, `
          + `the server answered Content-Range ${header}`);
      }
      await this.take(res, from, to);
    } else if (this.#sentIfRange() && !this.#sameValidator(res)) {
      // If-Range was sent: the whole file instead of the range is what a server sends for another file.
      await res.body?.cancel().catch(() => {});
      throw this.#changed('a conditional range was answered with a whole file that has no validator of the first');
    } else {
      // The server stopped honouring Range (a 200 is the whole file): take the range out of it.
      this.ranges = false;
      this.#bodyLength(res);
      const body = new Body(this, res);
      const bytes = new Uint8Array(to - from);
      let at = 0;
      const reached = await body.drop(from);
      if (reached) await body.read(to - from, (v) => { bytes.set(v, at); at += v.length; });
      await body.cancel();
      if (at !== to - from) throw fetchFailure(`${this.url}: the file ends at byte ${from + at}, before byte ${to}`);
      this.pieces.add(from, bytes);
      this.lastEnd = to;
      this.#checkKept();
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
      const res = await this.request(null);
      if (res.status !== 200) {
        await res.body?.cancel().catch(() => {});
        throw fetchFailure(`${this.url}: asked for the whole file again, the server answered HTTP ${res.status}`);
      }
      this.#bodyLength(res);
      this.body = new Body(this, res);
    }
    const b = this.body;
    // Kept with the span before it when the gap is small: one growing buffer rather than a piece per field.
    if (from > b.pos && from - b.pos <= GAP_KEPT && this.pieces.endBefore(b.pos) === b.pos) from = b.pos;
    const to = Math.min(end, this.pieces.nextStart(from));
    let got = 0;
    if (await b.drop(from - b.pos)) {
      got = await b.read(to - from, (v) => {
        this.pieces.append(from + got, v);
        got += v.length;
      });
      this.#checkKept();
    }
    this.progress(false);
    if (got === to - from) return true;
    // The end of the body: now the size is known, and it must be what the server said.
    if (this.total !== null && this.total !== b.pos) {
      throw fetchFailure(`${this.url}: the body ends at byte ${b.pos}, but the server said the file has ${this.total}`);
    }
    this.total = b.pos;
    return false;
  }

  /** Ends a body still being read and the timeout, and reports the last progress. */
  async close() {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    this.userSignal?.removeEventListener('abort', this.onAbort);
    if (this.body) await this.body.cancel();
    this.progress(true);
  }
}
