// onnx-shapes: the bytes of a model at a URL that inference needs, fetched ahead of the decoder
// (engine.inferShapesFromUrl in js/index.js). Browsers and Node >= 18 (global fetch).
//
// The engine's streaming decoder (nanopb, src/decode/) pulls bytes synchronously and skips weight
// payloads; fetch is asynchronous. So a walk over the protobuf wire format runs first, here: it
// follows the messages the decoder reads (the subset in src/decode/proto/onnx_shapes.proto),
// fetches every byte the decoder will read (js/url_http.js: Range requests, or one body read from
// start to end when the server ignores Range) and steps over what it skips (tensor payloads,
// fields it does not know). It stops where the decoder would fail (field number 0, a group or an
// invalid wire type, a key of over 5 bytes, a length past its message): a file that is no model
// costs its first request. The decoder then runs on the fetched pieces, at the file's own offsets;
// should it read a byte the walk left out, that range is fetched and the decoder runs again
// (`retries` counts those; the tests keep it at 0). runOnUrlModel gives the same to any reader of
// the fetched bytes (the demo page's worker: the engine and its scanner).

import { UrlReader, fetchFailure } from './url_http.js';

// What the decoder reads of a tensor payload (src/decode/decode.h): a raw_data of at most
// OSI_NPB_MAX_KEPT_RAW bytes, and the first OSI_NPB_MAX_KEPT_ELEMS numbers of a packed list of
// floats or doubles (beyond that it skips); packed varints (int32/int64/uint64 data) it reads whole,
// checking every one as protobuf-c does.
const KEPT_RAW = 4096 * 8;
const KEPT_PACKED = 4096 * 8;
// A field this small is fetched whole, without looking inside: a message up to KEPT_RAW holds no
// payload the decoder skips (but string_data and external_data, which are small there).
const SMALL = KEPT_RAW;
const MAX_DEPTH = 100; // deeper messages are fetched whole (the decoder stops at 64)
const MAX_RETRIES = 16;
const MIN_RETRY_READ = 64 * 1024; // what a retry fetches at the byte the decoder missed, doubling ...
const MAX_RETRY_READ = 4 * 1024 * 1024; // ... up to this

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

// Section - The walk

/**
 * The varint at pos, [value, next pos], its bytes held up to `end`; null when malformed (over
 * `max` bytes) or cut by `end`. Past 2^53 the value is approximate: only its length matters then.
 */
function varintAt(pieces, pos, end, max) {
  let v = 0;
  let mul = 1;
  for (let i = 0; i < max && pos < end; i++) {
    const b = pieces.byte(pos++);
    if (b < 0) return null;
    v += (b & 0x7f) * mul;
    if (b < 0x80) return [v, pos];
    mul *= 128;
  }
  return null;
}

/**
 * Fetches what the decoder reads of the message of `type` in [start, end). False where the
 * decoder fails (malformed bytes, the file ending early): the walk stops there, and the decoder
 * reports it, with its offset, when it gets there.
 */
async function walk(r, start, end, type, depth) {
  const fields = SCHEMA[type];
  let pos = start;
  while (pos < end) {
    let held = r.need(pos, Math.min(20, end - pos));
    if (typeof held !== 'number') held = await held;
    if (held === 0) return pos === r.total; // the end of a file of unknown size, or a cut one
    const until = pos + held;
    const tag = varintAt(r.pieces, pos, until, 5); // a key of over 5 bytes is refused
    if (!tag || tag[0] > 0xffffffff) return false;
    const field = Math.floor(tag[0] / 8);
    const wire = tag[0] % 8;
    if (field === 0) return false;
    pos = tag[1];
    if (wire === 0) {
      // Skipped by its length: its value (a nanosecond model_version, -1) may be past 2^53.
      const v = varintAt(r.pieces, pos, until, 10);
      if (!v) return false;
      pos = v[1];
    } else if (wire === 1 || wire === 5) {
      const n = wire === 1 ? 8 : 4;
      if (end - pos < n) return false;
      let got = r.need(pos, n);
      if (typeof got !== 'number') got = await got;
      if (got < n) return false;
      pos += n;
    } else if (wire === 2) {
      const l = varintAt(r.pieces, pos, until, 5);
      if (!l) return false;
      const [len, at] = l;
      if (len > end - at) return false; // past its message, or the file
      const rule = fields?.[field];
      let wanted = len;
      if (rule === 'skip') wanted = 0; // the decoder seeks past it
      else if (len <= SMALL || rule === undefined) wanted = len;
      else if (rule === 'raw') wanted = len <= KEPT_RAW ? len : 0;
      else if (rule === 'packed') wanted = Math.min(len, KEPT_PACKED);
      else if (typeof rule === 'string' && depth < MAX_DEPTH) {
        if (!(await walk(r, at, at + len, rule, depth + 1))) return false;
        wanted = 0;
      }
      if (wanted > 0) {
        let got = r.need(at, wanted);
        if (typeof got !== 'number') got = await got;
        if (got < wanted) return false;
      }
      pos = at + len;
    } else {
      return false; // groups and invalid wire types: the decoder fails here
    }
  }
  return true;
}

/**
 * Opens `url` and fetches every byte of the model the streaming decoder will read. Returns the
 * reader, open (close() it): its `pieces`, the file's `total` size and the figures of the exchange.
 */
async function fetchModel(url, options) {
  const r = new UrlReader(url, options);
  try {
    const total = await r.open();
    // The size may be unknown until a body read from start to end ends; the walk then reaches it.
    // (`_walk: false`, for tests only, leaves every byte after the first request to the decoder's retries.)
    if (options?._walk !== false) await walk(r, 0, total ?? Number.MAX_SAFE_INTEGER, 'Model', 0);
    if (r.total === null) r.total = r.body ? r.body.pos : 0;
    // A body read from start to end stops here: what is left of it is not needed.
    if (r.body) await r.body.cancel();
  } catch (err) {
    await r.close();
    throw err;
  }
  return r;
}

// Section - Inference from a URL

/** The URL as an absolute one (relative to the page in browsers), after checking the options. */
function resolveUrl(url, options) {
  const { fetch: fetchFn, timeout, maxBytes, signal } = options ?? {};
  if (typeof url !== 'string' && !(url instanceof URL)) throw new TypeError('onnx-shapes: a model URL must be a string or URL');
  if (fetchFn !== undefined && typeof fetchFn !== 'function') throw new TypeError('onnx-shapes: options.fetch must be a function');
  if (fetchFn === undefined && typeof fetch !== 'function') throw new TypeError('onnx-shapes: fetching a model needs fetch (Node >= 18 or a browser)');
  if (timeout !== undefined && !(Number.isFinite(timeout) && timeout > 0 && timeout <= 2 ** 31 - 1)) {
    throw new TypeError('onnx-shapes: options.timeout must be a number of milliseconds from 1 to 2**31-1');
  }
  if (maxBytes !== undefined && !(Number.isSafeInteger(maxBytes) && maxBytes >= 1)) {
    throw new TypeError('onnx-shapes: options.maxBytes must be a positive integer');
  }
  if (signal !== undefined && signal !== null && typeof signal.addEventListener !== 'function') {
    throw new TypeError('onnx-shapes: options.signal must be an AbortSignal');
  }
  const base = globalThis.process?.versions?.node !== undefined ? undefined : globalThis.location?.href;
  try {
    return new URL(url, base).href; // in Node, a URL must be absolute
  } catch {
    throw new TypeError(`onnx-shapes: not a URL${base ? '' : ' (an absolute one is needed here)'}: ${url}`);
  }
}

const readerOptions = (options) => ({
  fetch: options?.fetch, headers: options?.headers, signal: options?.signal ?? undefined, onProgress: options?.onProgress,
  timeout: options?.timeout, maxBytes: options?.maxBytes, _walk: options?._walk,
});

const downloadInfo = (href, r, retries) => Object.freeze({
  url: href, size: r.total, bytesFetched: r.bytesFetched, requests: r.requests, rangeRequests: r.ranges, retries,
});

/** A byte the walk did not fetch, read by a source (the decoder, a scanner): runOnUrlModel fetches it and runs again. */
class NotFetched extends Error {}

/**
 * The fetched bytes of the model at `url` as a synchronous random-access source, { size,
 * read(pos, len), download }, given to `use(source)`, whose value is returned. read() returns the
 * bytes at `pos` up to `len` or the end of their piece. Should `use` read a byte that was not
 * fetched (the walk steps over the weights), that range is fetched and `use` runs again, at most
 * MAX_RETRIES times (`download.retries`). Options: headers, signal, timeout, maxBytes, fetch,
 * onProgress(bytesFetched, fileSize).
 */
export async function runOnUrlModel(url, options, use) {
  const href = resolveUrl(url, options);
  const r = await fetchModel(href, readerOptions(options));
  try {
    for (let retries = 0; ; retries++) {
      let missing = -1;
      const source = {
        size: r.total,
        download: downloadInfo(href, r, retries),
        read(pos, len) {
          if (!(Number.isSafeInteger(pos) && pos >= 0 && Number.isSafeInteger(len) && len >= 0)) {
            throw new RangeError(`onnx-shapes: read(${pos}, ${len}) out of range`);
          }
          const want = Math.max(0, Math.min(len, r.total - pos));
          const out = r.pieces.view(pos, want);
          if (out.length === 0 && want > 0) {
            missing = pos;
            throw new NotFetched(`onnx-shapes: byte ${pos} of ${href} was not fetched`);
          }
          return out;
        },
      };
      try {
        return use(source);
      } catch (err) {
        // The engine passes a source's error on (the decoder's own failure comes first otherwise).
        if (missing < 0) throw err;
        if (retries === MAX_RETRIES) throw fetchFailure(`${href}: the decoder still needs byte ${missing} after ${retries} more fetches`);
      }
      // The reader read a byte the walk left out: fetch from there, and run it again.
      r.checkAborted();
      // (More each time: without the walk's guidance, reads that go on should take few rounds.)
      const got = r.need(missing, Math.min(MAX_RETRY_READ, MIN_RETRY_READ * 2 ** retries));
      if (typeof got !== 'number') await got;
      r.progress(true);
    }
  } finally {
    await r.close();
  }
}

/**
 * The bytes of the model at `url` that the streaming decoder reads, fetched once, as a synchronous
 * source { size, read(pos, len), download } (see runOnUrlModel, which also fetches what a reader
 * needs beyond them). A byte that was not fetched (a weight payload) throws a FETCH_ERROR.
 */
export async function fetchModelSource(url, options) {
  let kept = null;
  await runOnUrlModel(url, options, (source) => {
    kept = source;
  });
  const { read } = kept;
  return {
    size: kept.size,
    download: kept.download,
    read(pos, len) {
      try {
        return read(pos, len);
      } catch (err) {
        throw err instanceof NotFetched ? fetchFailure(err.message.replace(/^onnx-shapes: /, ''), err) : err;
      }
    },
  };
}

/**
 * engine.inferShapesFromUrl: `run(total, copy, download)` runs the decoder on the fetched pieces,
 * where copy(pos, heap, at, len) gives it its bytes (runOnUrlModel: a byte that was not fetched is
 * fetched, and the decoder runs again).
 */
export function inferFromUrl(url, options, run) {
  return runOnUrlModel(url, options, (source) => run(source.size, (pos, heap, at, len) => {
    const bytes = source.read(pos, len);
    heap.set(bytes, at);
    return bytes.length;
  }, () => source.download));
}
