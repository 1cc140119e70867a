// onnx-shapes: the ES module entry (Node >= 18, browsers, bundlers). Types: js/index.d.ts.
//
// One call crosses into C per model (src/onnx_shapes.h): the bytes are copied into the wasm
// heap (or streamed from JS memory), osi_infer runs, and its packed result is copied out once and
// read into plain frozen JS data as it is asked for (js/result.js). No wasm pointer outlives the
// call, so a result never pins wasm memory and there is nothing to delete.

import { freezeCostModel } from './cost.js';
import { ShapeInferenceResult, attachAttributes, attachWriter, encodeBytes, readPacked } from './result.js';
import { createModule } from './wasm_module.js';

const isNode = typeof process === 'object' && process !== null &&
  typeof process.versions === 'object' && process.versions !== null &&
  typeof process.versions.node === 'string';

// In Node the class comes from errors.cjs, which the CommonJS entry shares: one class per process.
const { ShapeInferenceError, RequirementError } = (await (isNode ? import('./errors.cjs') : import('./errors.js'))).default;
const fileSource = isNode ? await import('./file_source.js') : null; // inferShapesFromPath's files
export { ShapeInferenceError, RequirementError };


const WASM_FILE = 'onnx_shapes.wasm';
const FLAG_PREFILL_VALUE_INFO = 1; // OSI_OPT_PREFILL_VALUE_INFO
const FLAG_EVENTS = 2;             // OSI_OPT_EVENTS
const FLAG_DECODER_PBC = 1 << 8;   // OSI_OPT_DECODER_PBC
const FLAG_DECODER_NANOPB = 1 << 9; // OSI_OPT_DECODER_NANOPB
const FLAG_FREE_BYTES = 1 << 10;    // OSI_OPT_FREE_BYTES
// options.attributes: not a C flag (osi_result_attributes_json writes them when asked, after
// inference); carried with the flags to where the result is read, and cleared before C sees them.
const FLAG_ATTRIBUTES = 1 << 29;
// options.cost likewise (osi_result_cost_json computes the cost model when asked, after inference).
const FLAG_COST = 1 << 30;
const JS_ONLY_FLAGS = FLAG_ATTRIBUTES | FLAG_COST;
const DECODERS = { 'protobuf-c': FLAG_DECODER_PBC, nanopb: FLAG_DECODER_NANOPB };
const PROGRESS_INTERVAL_MS = 100;  // onProgress is called at most this often (plus once at the end)
// inferShapes(bytes) streams models this big unless told. Below it protobuf-c, which unpacks the whole
// model from a copy of its bytes in the heap (the weights it would copy once more are dropped first),
// is a quarter faster than nanopb on exporter graphs; above it not even the bytes are copied in.
const AUTO_STREAM_BYTES = 32 * 1024 * 1024;
// A wasm memory never shrinks: after a run that left it this much bigger than a fresh module's,
// the engine swaps in a fresh module (about a millisecond) and the big memory can be collected.
// Not at once: calls that follow within HEAP_IDLE_MS reuse the grown memory (a viewer re-inferring,
// a batch of big models), where a fresh module would grow and first-touch it again on every call;
// the swap comes once that long passes without a call, or at once past HEAP_MAX_KEEP of growth.
const HEAP_KEEP_GROWTH = 64 * 1024 * 1024;
const HEAP_MAX_KEEP = 512 * 1024 * 1024;
const HEAP_IDLE_MS = 1000;

// Section - Results (js/result.js)

const COST_TEXT = new TextDecoder();

/**
 * The packed result of osi_infer* result `r` (osi_result_packed), read into a ShapeInferenceResult,
 * with the keys of `extra()` added (inferShapesFromUrl's download) and, when `flags` ask for them
 * (options.attributes), the nodes' attributes: the bytes of osi_result_attributes_json, copied
 * out and parsed when result.nodeAttributes() is first called; and (options.cost) `costModel`,
 * the engine's cost JSON (osi_result_cost_json), which result.cost() and memoryProfile() read.
 */
function packedResult(M, r, extra, flags = 0) {
  let attributes = null;
  if (flags & FLAG_ATTRIBUTES) {
    const at = M._osi_result_attributes_json(r) >>> 0;
    const end = M.HEAPU8.indexOf(0, at);
    if (end <= at) throw outOfMemory('attributes'); // "" (the status is OK here)
    attributes = M.HEAPU8.slice(at, end);
  }
  const ptr = M._osi_result_packed(r, 0) >>> 0;
  if (!ptr) throw outOfMemory('result');
  const data = readPacked(M.HEAPU8, ptr, attributes);
  if (flags & FLAG_COST) {
    const at = M._osi_result_cost_json(r) >>> 0;
    const end = at ? M.HEAPU8.indexOf(0, at) : -1;
    if (end <= at) throw outOfMemory('cost model');
    // TextDecoder, not UTF8ToString: a 6k-node model's cost JSON is over half a megabyte
    data.costModel = freezeCostModel(JSON.parse(COST_TEXT.decode(M.HEAPU8.subarray(at, end))));
  }
  return new ShapeInferenceResult(extra ? Object.assign(data, extra()) : data);
}

// Section - Engine

function asBytes(bytes) {
  const tag = Object.prototype.toString.call(bytes); // realm-independent (works for Buffer and in Jest)
  if (tag === '[object Uint8Array]') return bytes;
  if (tag === '[object ArrayBuffer]') return new Uint8Array(bytes);
  throw new TypeError(`onnx-shapes: bytes must be a Uint8Array, Buffer or ArrayBuffer, not ${tag.slice(8, -1)}`);
}

function optionFlags(options) {
  if (options === undefined) return 0;
  if (options === null || typeof options !== 'object') {
    throw new TypeError('onnx-shapes: options must be an object');
  }
  let flags = (options.prefillValueInfo ? FLAG_PREFILL_VALUE_INFO : 0) | (options.events ? FLAG_EVENTS : 0)
    | (options.attributes ? FLAG_ATTRIBUTES : 0) | (options.cost ? FLAG_COST : 0);
  if (options.decoder !== undefined) {
    if (!Object.hasOwn(DECODERS, options.decoder)) {
      throw new TypeError(`onnx-shapes: options.decoder must be 'protobuf-c' or 'nanopb', not ${JSON.stringify(options.decoder)}`);
    }
    flags |= DECODERS[options.decoder];
  }
  if (options.onProgress !== undefined && typeof options.onProgress !== 'function') {
    throw new TypeError('onnx-shapes: options.onProgress must be a function');
  }
  return flags;
}

/** Calls onProgress(bytesRead, totalBytes) at most every PROGRESS_INTERVAL_MS. */
function progressReporter(options, total) {
  const fn = options?.onProgress;
  if (!fn) return { tick() {}, done() {} };
  let last = Date.now();
  fn(0, total);
  return {
    tick(pos) {
      const now = Date.now();
      if (now - last >= PROGRESS_INTERVAL_MS) {
        last = now;
        fn(Math.min(pos, total), total);
      }
    },
    done() {
      fn(total, total);
    },
  };
}

const isBlob = (v) => typeof Blob === 'function' && v instanceof Blob;

function modelChanged() {
  return clean(new Error('onnx-shapes: toModel() needs the bytes given to inferShapes unchanged, and they were modified'));
}

/** Errors thrown once the C engine has returned and everything it handed out is freed. */
const settled = new WeakSet();
const clean = (err) => {
  if (err !== null && (typeof err === 'object' || typeof err === 'function')) settled.add(err);
  return err;
};

function outOfMemory(what) {
  return clean(new ShapeInferenceError(`out of wasm memory (${what})`, { code: 'NOMEM' }));
}

function reentrant(what) {
  return new ShapeInferenceError(`${what} was called while this engine is running a shape function or `
    + 'onProgress callback; the engine runs one call at a time (use another engine, or call it after this one returns)', {
    code: 'REENTRANT_CALL',
  });
}

/** What a thrown value says, whatever it is (a getter or toString that throws included). */
function describeThrown(err) {
  try {
    const m = err?.message;
    if (typeof m === 'string') return typeof err.code === 'string' ? `${err.code}: ${m}` : m;
  } catch { /* a throwing getter: fall through */ }
  try {
    return String(err);
  } catch {
    return 'a value that cannot be shown';
  }
}

/**
 * A loaded wasm module. Synchronous; every call is independent of the ones before, and one runs
 * at a time: a shape function or onProgress callback that calls back into its own engine gets a
 * REENTRANT_CALL error. Should a call be cut short inside the module (a wasm trap, the JavaScript
 * stack running out), the engine replaces the module with a fresh one, so nothing stays taken.
 */
class Engine {
  #M;
  #newModule; // () => a fresh module, synchronously (js/wasm_module.js)
  #freshHeap = 0; // the size of the wasm memory of a fresh module
  #runHeap = 0; // the size of the wasm memory when the last call ended
  #busy = false; // a call is running inside the module
  #stale = false; // a call was cut short inside the module: its state cannot be trusted
  #release = null; // the timer that swaps a grown memory for a fresh module once idle
  #last = null;
  #fs;
  #initOptions;
  #worker = null;

  #registry = 0; // OsiRegistry *, made on the first registerShapeFunction
  #shapeFns = new Map(); // id -> { fn, domain, opType }, in registration order
  #nextShapeFn = 1;

  constructor(M, newModule, fs, initOptions) {
    this.#newModule = newModule;
    this.#fs = fs;
    this.#initOptions = initOptions ?? {};
    this.#install(M);
  }

  /** Makes `M` the engine's module: the JS side of its callbacks, and the registered functions. */
  #install(M) {
    this.#M = M;
    this.#freshHeap = M.HEAPU8.length;
    this.#runHeap ||= this.#freshHeap;
    // Called by the C engine (EM_JS in src/infer/custom_ops.c) while it infers a node of a registered op.
    M.osiShapeCallback = (id, requestPtr) => this.#answerShapeFn(id, requestPtr);
    this.#registry = 0;
    for (const [id, entry] of this.#shapeFns) this.#addToRegistry(id, entry);
  }

  /**
   * A fresh module in place of the current one, whose memory is dropped whole. (Without a compiled
   * module to instantiate, the engine goes on with the one it has.)
   */
  #reset() {
    this.#stale = true; // until the new module is in
    const M = this.#newModule();
    if (M) this.#install(M);
    this.#stale = false;
  }

  /** Swaps in a fresh module once HEAP_IDLE_MS pass without a call (the timer keeps no process alive). */
  #releaseWhenIdle() {
    this.#release = setTimeout(() => {
      this.#release = null;
      if (this.#busy) return; // a call is running (cannot be: calls are synchronous); it decides
      try { this.#reset(); } catch { this.#stale = true; /* out of memory: the next call resets */ }
    }, HEAP_IDLE_MS);
    this.#release.unref?.();
  }

  /**
   * Runs `fn`, which calls into the module, as the engine's one running call. An error it throws
   * after the module returned (and everything it handed out was freed) passes through; anything
   * else cut the module short: it is replaced, and the error becomes ABORTED.
   */
  #exclusive(what, fn) {
    if (this.#busy) throw reentrant(what);
    if (this.#stale) this.#reset();
    if (this.#release !== null) { // this call reuses the grown memory
      clearTimeout(this.#release);
      this.#release = null;
    }
    this.#busy = true;
    this.#stale = true;
    try {
      const out = fn();
      this.#stale = false;
      return out;
    } catch (err) {
      if (settled.has(err)) {
        this.#stale = false;
        throw err;
      }
      throw new ShapeInferenceError(`inference was cut short (${describeThrown(err)}); the engine's wasm module was replaced by a fresh one`, {
        code: 'ABORTED', cause: err,
      });
    } finally {
      this.#busy = false;
      if (!this.#stale) {
        this.#runHeap = this.#M.HEAPU8.length;
        const growth = this.#runHeap - this.#freshHeap;
        if (growth > HEAP_MAX_KEEP) this.#stale = true;
        else if (growth > HEAP_KEEP_GROWTH) this.#releaseWhenIdle();
      }
      // Now rather than at the next call, so that the memory goes at once; should that fail
      // (out of memory), the next call tries again.
      if (this.#stale) {
        try { this.#reset(); } catch { /* the next call resets */ }
      }
    }
  }

  /**
   * Registers a shape function for domain:opType ('' or 'ai.onnx' is the default domain); it wins
   * over the built-in rule. fn({ domain, opType, opset, node, inputs, attributes }) returns one type
   * per output in the getShape format (dims: numbers, expression strings such as 'N*2', or null;
   * `kind` may be left out for a tensor), or null for an unknown output. A function that throws,
   * or returns something else, makes a diagnostic on that node; inference goes on. It must not
   * call this engine (REENTRANT_CALL).
   */
  registerShapeFunction(domain, opType, fn) {
    if (typeof domain !== 'string' || typeof opType !== 'string' || !opType) {
      throw new TypeError('onnx-shapes: registerShapeFunction(domain, opType, fn) needs two strings');
    }
    if (typeof fn !== 'function') throw new TypeError('onnx-shapes: the shape function must be a function');
    for (const [what, text] of [['domain', domain], ['opType', opType]]) {
      // A C string ends at a NUL: 'my.domain\0x' must not serve my.domain (nor a lone surrogate
      // stand for U+FFFD).
      if (encodeBytes(text) === null) {
        throw new TypeError(`onnx-shapes: registerShapeFunction: the ${what} ${JSON.stringify(text)} holds a NUL or a lone surrogate, which no ${what} of a model can hold`);
      }
    }
    if (this.#busy) throw reentrant('registerShapeFunction');
    if (domain === 'ai.onnx') domain = '';
    const id = this.#nextShapeFn++;
    const entry = { fn, domain, opType };
    this.#addToRegistry(id, entry);
    for (const [old, e] of this.#shapeFns) {
      if (e.domain === domain && e.opType === opType) this.#shapeFns.delete(old); // replaced
    }
    this.#shapeFns.set(id, entry);
  }

  #addToRegistry(id, { domain, opType }) {
    const M = this.#M;
    if (!this.#registry) {
      this.#registry = M._osi_registry_new() >>> 0;
      if (!this.#registry) throw outOfMemory('registry');
    }
    const db = encodeBytes(domain), ob = encodeBytes(opType);
    const d = this.#cBytes(db), o = this.#cBytes(ob);
    try {
      const st = M._osi_registry_add_js(this.#registry, d, db.length, o, ob.length, id);
      if (st !== 0) throw outOfMemory('registry entry');
    } finally {
      M._free(d);
      M._free(o);
    }
  }

  /** A malloc'ed NUL-terminated copy of bytes. */
  #cBytes(bytes) {
    const M = this.#M;
    const p = M._malloc(bytes.length + 1) >>> 0;
    if (!p) throw outOfMemory('string');
    M.HEAPU8.set(bytes, p);
    M.HEAPU8[p + bytes.length] = 0;
    return p;
  }

  /** Forgets every registered shape function. */
  clearShapeFunctions() {
    if (this.#busy) throw reentrant('clearShapeFunctions');
    if (this.#registry) this.#M._osi_registry_clear(this.#registry);
    this.#shapeFns.clear();
  }

  #cString(text) {
    const M = this.#M;
    const n = M.lengthBytesUTF8(text) + 1;
    const p = M._malloc(n) >>> 0;
    if (!p) throw outOfMemory('string');
    M.stringToUTF8(text, p, n);
    return p;
  }

  /**
   * The JSON answer to one C request, in a malloc'ed buffer the engine frees; 0 (a diagnostic)
   * when not even that can be had. Nothing the shape function does escapes from here.
   */
  #answerShapeFn(id, requestPtr) {
    const M = this.#M;
    let answer;
    try {
      const entry = this.#shapeFns.get(id);
      if (!entry) throw new Error(`no shape function #${id}`);
      const request = JSON.parse(M.UTF8ToString(requestPtr >>> 0));
      const out = entry.fn(request);
      answer = Array.isArray(out)
        ? JSON.stringify(out.map((t) => t ?? null))
        : JSON.stringify({ error: 'the shape function must return an array of output types' });
    } catch (err) {
      answer = JSON.stringify({ error: `the shape function threw: ${describeThrown(err)}` });
    }
    try {
      return this.#cString(answer);
    } catch {
      return 0;
    }
  }

  /** The C engine's version string. */
  get version() {
    return this.#M.UTF8ToString(this.#M._osi_version());
  }

  inferShapes(bytes, options) {
    const input = asBytes(bytes);
    let flags = optionFlags(options);
    // Without a choice, big models stream from JS memory: copying megabytes of weights into wasm
    // (and protobuf-c copying them again) would cost more than the inference itself.
    if (!(flags & (FLAG_DECODER_PBC | FLAG_DECODER_NANOPB)) && input.length >= AUTO_STREAM_BYTES) {
      flags |= FLAG_DECODER_NANOPB;
    }
    if (flags & FLAG_DECODER_NANOPB) {
      // nanopb streams straight from the JS bytes: the weights are never copied into wasm memory.
      return this.#sourced(input, flags, this.#runStream('inferShapes', flags, input.length, options, (pos, dst, len) => {
        const n = Math.min(len, input.length - pos);
        this.#M.HEAPU8.set(input.subarray(pos, pos + n), dst);
        return n;
      }));
    }
    if (input.length > 0xffffffff) throw outOfMemory(`${input.length} bytes do not fit in wasm32 memory`);
    return this.#sourced(input, flags, this.#exclusive('inferShapes', () => {
      const M = this.#M;
      const sp = M.stackSave();
      // Pointers come back as signed i32: `>>> 0` keeps addresses above 2 GB (MAXIMUM_MEMORY=4GB) usable.
      let ptr = M._malloc(input.length || 1) >>> 0;
      if (!ptr) throw outOfMemory(`${input.length} bytes for the model`);
      let r = 0;
      try {
        M.HEAPU8.set(input, ptr); // read HEAPU8 after _malloc: memory may have grown
        // The engine frees the copy once decoded, so that inference and the packed result reuse
        // its memory (toModel() re-infers from a copy of its own).
        const call = ptr;
        ptr = 0;
        r = M._osi_infer_with(call, input.length, (flags & ~JS_ONLY_FLAGS) | FLAG_FREE_BYTES, this.#registry) >>> 0;
        return this.#take(r, undefined, flags);
      } finally {
        M.stackRestore(sp); // a no-op unless a wasm trap skipped the C epilogues
        if (r) M._osi_result_delete(r);
        if (ptr) M._free(ptr);
      }
    }));
  }

  /** Lets result.toModel() write back `input`, the bytes `result` was inferred from. */
  #sourced(input, flags, result) {
    const length = input.length;
    attachWriter(result, () => {
      // A detached ArrayBuffer reads as length 0.
      if (input.length !== length) throw modelChanged();
      return this.#exclusive('toModel', () => this.#writeModel(input, flags & ~FLAG_EVENTS & ~JS_ONLY_FLAGS, result));
    });
    return result;
  }

  /** osi_infer on `input` again, then osi_result_model; checks the values are `result`'s. */
  #writeModel(input, flags, result) {
    const M = this.#M;
    const sp = M.stackSave();
    const ptr = M._malloc(input.length || 1) >>> 0;
    const lenPtr = M._malloc(8) >>> 0; // size_t *len (4 bytes in wasm32)
    let r = 0;
    try {
      if (!ptr || !lenPtr) throw outOfMemory(`${input.length} bytes for the model`);
      M.HEAPU8.set(input, ptr);
      r = M._osi_infer_with(ptr, input.length, flags, this.#registry) >>> 0;
      if (!r) throw outOfMemory('result');
      if (M._osi_result_status(r) !== 0 ||
          JSON.stringify(packedResult(M, r).values) !== JSON.stringify(result.values)) {
        throw modelChanged();
      }
      const out = M._osi_result_model(r, lenPtr) >>> 0;
      if (!out) {
        throw clean(new ShapeInferenceError('the model cannot be written back (malformed protobuf wire data, or out of wasm memory)', {
          code: 'PARSE_ERROR',
        }));
      }
      const H = M.HEAPU8; // after the call: memory may have grown
      const n = (H[lenPtr] | (H[lenPtr + 1] << 8) | (H[lenPtr + 2] << 16) | (H[lenPtr + 3] << 24)) >>> 0;
      return H.slice(out, out + n);
    } finally {
      M.stackRestore(sp);
      if (r) M._osi_result_delete(r);
      if (lenPtr) M._free(lenPtr);
      if (ptr) M._free(ptr);
    }
  }

  /**
   * Streams a model file through the nanopb decoder (Node only): 64 KiB reads with fs.readSync
   * straight into the wasm buffer; payloads are skipped by moving the file position, so neither
   * the file nor its weights are ever held in memory. Synchronous, like inferShapes. An input
   * without a size (pipe, FIFO, socket, device) is read in order and kept, up to maxBytes
   * (js/file_source.js): the decoder reads it once to fail early on bytes that are no model
   * (/dev/zero stops at its first byte), and once its end is known the kept bytes are inferred.
   */
  inferShapesFromPath(path, options) {
    const flags = optionFlags(options);
    const fs = this.#fs;
    if (!fs) throw new TypeError('onnx-shapes: inferShapesFromPath needs Node (use inferShapesFromFile in browsers)');
    if (typeof path !== 'string' && !(path instanceof URL) && !Buffer.isBuffer(path)
        && !(Number.isInteger(path) && path >= 0)) {
      throw new TypeError('onnx-shapes: path must be a string, URL, Buffer or file descriptor');
    }
    const maxBytes = options?.maxBytes ?? fileSource.DEFAULT_MAX_BYTES;
    if (!Number.isInteger(maxBytes) || maxBytes < 1 || maxBytes > fileSource.MAX_MAX_BYTES) {
      throw new TypeError(`onnx-shapes: options.maxBytes must be an integer from 1 to ${fileSource.MAX_MAX_BYTES}`);
    }
    if (this.#busy) throw reentrant('inferShapesFromPath');
    if (options?.name !== undefined && typeof options.name !== 'string') throw new TypeError('onnx-shapes: options.name must be a string');
    const source = fileSource.openSource(fs, path, { maxBytes, name: options?.name, ShapeInferenceError });
    try {
      const read = (pos, dst, len) => source.read(pos, this.#M.HEAPU8, dst, len);
      if (source.size !== null) return this.#runStream('inferShapesFromPath', flags, source.size, options, read);
      try {
        this.#runStream('inferShapesFromPath', flags & ~FLAG_EVENTS & ~JS_ONLY_FLAGS, fileSource.MAX_MAX_BYTES, undefined, read);
      } catch (err) {
        if (!source.ended) throw err; // the bytes read so far already fail (or the limit was hit)
      }
      if (!source.ended) source.pull(1); // decoded whole at exactly the largest size: more is over the limit
      return this.inferShapes(source.bytes(), { ...options, decoder: 'nanopb' });
    } finally {
      source.close();
    }
  }

  /**
   * Streams a File or Blob through the nanopb decoder without copying its weights into wasm
   * memory. In a browser's main thread the work runs in a module Web Worker (js/stream_worker.js)
   * that reads blob.slice()s with FileReaderSync; in a worker it runs here. Elsewhere (Node) the
   * Blob is read with blob.arrayBuffer() into JS memory and streamed from there.
   */
  async inferShapesFromFile(file, options) {
    if (!isBlob(file)) throw new TypeError('onnx-shapes: inferShapesFromFile needs a File or Blob');
    const flags = optionFlags(options);
    if (typeof FileReaderSync === 'function') {
      // Loaded on first use, as the URL modules: what a page downloads to run inferShapes stays small.
      const { blobReader } = await import('./blob_source.js');
      const read = blobReader(file); // reads that grow while the decoder reads on (js/blob_source.js)
      return this.#runStream('inferShapesFromFile', flags, file.size, options, (pos, dst, len) => {
        const chunk = read(pos, len);
        this.#M.HEAPU8.set(chunk, dst);
        return chunk.length;
      });
    }
    if (typeof Worker === 'function' && !isNode) return this.#inWorker(file, options);
    const bytes = new Uint8Array(await file.arrayBuffer());
    return this.inferShapes(bytes, { ...options, decoder: 'nanopb' });
  }

  /**
   * Streams a model from any synchronous random-access source through the nanopb decoder:
   * `source.size` is the file's length and `source.read(pos, len)` returns up to `len` bytes at
   * `pos` (a Uint8Array; fewer only at the end). Weight payloads are skipped, never read.
   * Synchronous, like inferShapes. (For a URL, inferShapesFromUrl.)
   */
  inferShapesFromSource(source, options) {
    if (!source || typeof source.read !== 'function' || !Number.isSafeInteger(source.size) || source.size < 0) {
      throw new TypeError('onnx-shapes: inferShapesFromSource needs { size, read(pos, len) }');
    }
    const flags = optionFlags(options);
    return this.#runStream('inferShapesFromSource', flags, source.size, options, (pos, dst, len) => {
      const chunk = source.read(pos, len);
      const n = Math.min(chunk.length, len);
      this.#M.HEAPU8.set(n === chunk.length ? chunk : chunk.subarray(0, n), dst);
      return n;
    });
  }

  /**
   * Infers the model at `url` from the bytes inference needs (js/url_source.js): the graph, read
   * with HTTP Range requests, and not the weights. A server that ignores Range is read once from
   * start to end (result.download.rangeRequests is then false). Browsers and Node >= 18.
   */
  async inferShapesFromUrl(url, options) {
    const flags = optionFlags(options);
    // The walk, the fetches and the retries are in js/url_source.js (loaded on first use: 13 KB
    // gzipped that inferShapes does not need); each run of the decoder is here.
    const { inferFromUrl } = await import('./url_source.js');
    return inferFromUrl(url, options, (total, copy, download) => this.#runStream('inferShapesFromUrl', flags, total,
      undefined, (pos, dst, len) => copy(pos, this.#M.HEAPU8, dst, len), () => ({ download: download() })));
  }



  /** The module Web Worker for inferShapesFromFile on a browser's main thread (lazily made, reused). */
  #inWorker(file, options) {
    if (!this.#worker) {
      const worker = new Worker(new URL('./stream_worker.js', import.meta.url), { type: 'module' });
      const pending = new Map();
      let nextId = 1;
      // Messages posted before the worker's module (with its top-level await) has run are lost:
      // it says when it listens.
      let markReady;
      const ready = new Promise((resolve) => { markReady = resolve; });
      const fail = (err) => {
        for (const p of pending.values()) p.reject(err);
        pending.clear();
        worker.terminate();
        if (this.#worker?.worker === worker) this.#worker = null;
      };
      worker.onmessage = ({ data }) => {
        if (data.ready) {
          markReady();
          return;
        }
        const p = pending.get(data.id);
        if (!p) return;
        if (data.progress) {
          p.onProgress?.(data.progress[0], data.progress[1]);
          return;
        }
        pending.delete(data.id);
        if (data.error) {
          const e = data.error;
          p.reject(e.name === 'ShapeInferenceError'
            ? new ShapeInferenceError(e.message, { code: e.code, node: e.node })
            : Object.assign(new (e.name === 'TypeError' ? TypeError : Error)(e.message), { code: e.code }));
        } else {
          const result = new ShapeInferenceResult(data.result);
          if (data.attributes) attachAttributes(result, () => data.attributes);
          this.#last = result;
          p.resolve(result);
        }
      };
      worker.onerror = (ev) => fail(new Error(`onnx-shapes: stream worker failed: ${ev.message ?? ev}`));
      // The worker loads its own copy of the module: tell it where the wasm is (functions do not cross).
      const init = {};
      const io = this.#initOptions;
      if (io.wasmBinary) init.wasmBinary = io.wasmBinary;
      else if (typeof io.locateFile === 'function') init.wasmUrl = String(io.locateFile(WASM_FILE, ''));
      this.#worker = {
        worker,
        call: (blob, opts) => new Promise((resolve, reject) => {
          const id = nextId++;
          const { onProgress, ...rest } = opts ?? {};
          pending.set(id, { resolve, reject, onProgress });
          ready.then(() => worker.postMessage({ id, init, blob, options: { ...rest, progress: typeof onProgress === 'function' } }));
        }),
      };
    }
    return this.#worker.call(file, options);
  }

  /** Ends the stream worker, if one was started (it is started again when needed). */
  terminateWorker() {
    this.#worker?.worker.terminate();
    this.#worker = null;
  }

  /**
   * osi_infer_js_stream with `read(pos, dst, len)` as the source; skips only move `pos`.
   * Module.onnxRead/onnxSkip are the EM_JS hooks of src/api/stream_source.c.
   */
  #runStream(what, flags, total, options, read, extra) {
    if (this.#busy) throw reentrant(what);
    const progress = progressReporter(options, total);
    const result = this.#exclusive(what, () => {
      const M = this.#M;
      let pos = 0;
      M.onnxError = null;
      M.onnxRead = (dst, len) => {
        const n = pos < total ? read(pos, dst, Math.min(len, total - pos)) : 0;
        pos += n;
        progress.tick(pos);
        return n;
      };
      M.onnxSkip = (n) => {
        pos += n;
        progress.tick(pos);
        return 0;
      };
      const sp = M.stackSave();
      let r = 0;
      try {
        r = M._osi_infer_js_stream(total, flags & ~(FLAG_DECODER_PBC | FLAG_DECODER_NANOPB | JS_ONLY_FLAGS), this.#registry) >>> 0;
        if (M.onnxError) throw clean(M.onnxError); // the source itself failed (fs error, ...)
        return this.#take(r, extra, flags);
      } finally {
        M.stackRestore(sp);
        M.onnxRead = M.onnxSkip = null;
        M.onnxError = null;
        if (r) M._osi_result_delete(r);
      }
    });
    progress.done();
    return result;
  }

  /**
   * The result of osi_infer*: a ShapeInferenceResult (with `extra`'s keys, and the nodes'
   * attributes and cost model when `flags` ask for them), or a thrown ShapeInferenceError.
   */
  #take(r, extra, flags = 0) {
    const M = this.#M;
    if (!r) throw outOfMemory('result');
    const status = M._osi_result_status(r);
    if (status !== 0) {
      const code = M.UTF8ToString(M._osi_status_name(status));
      throw clean(new ShapeInferenceError(M.UTF8ToString(M._osi_result_error(r)) || code, {
        code,
        node: M.UTF8ToString(M._osi_result_error_node(r)) || null,
      }));
    }
    const result = packedResult(M, r, extra, flags);
    this.#last = result;
    return result;
  }

  /** getShape on this engine's most recent successful result; null before the first one. */
  getShape(name) {
    return this.#last ? this.#last.getShape(name) : null;
  }

  /** @internal Test hook: the size of the wasm linear memory in bytes. */
  _heapBytes() {
    return this.#M.HEAPU8.length;
  }

  /** @internal Test hook: the size the wasm memory had when the last call ended (before a fresh module replaced it). */
  _runHeapBytes() {
    return this.#runHeap;
  }

  /** @internal Test hook: the size of the wasm memory of a fresh module. */
  _freshHeapBytes() {
    return this.#freshHeap;
  }

  /** @internal Test hook: bytes currently allocated by malloc (mallinfo().uordblks), or null. */
  _mallocedBytes() {
    const M = this.#M;
    if (typeof M._mallinfo !== 'function') return null;
    const info = M._malloc(64) >>> 0; // the probe itself is counted, the same 64 bytes every time
    try {
      M._mallinfo(info); // struct mallinfo { int arena, ordblks, smblks, hblks, hblkhd, usmblks, fsmblks, uordblks, ... }
      return M.HEAPU32[(info >>> 2) + 7];
    } finally {
      M._free(info);
    }
  }
}

// Section - Loading

async function loadEngine(options) {
  const { M, newModule } = await createModule(options);
  const fs = isNode ? await import(/* webpackIgnore: true */ 'node:fs') : null;
  return new Engine(M, newModule, fs, options);
}

let enginePromise = null;
let defaultEngine = null;

/**
 * Loads the wasm module once; every later call returns the same engine (and ignores its options).
 * A failed load rejects, and the next call tries again.
 */
export function init(options) {
  if (options !== undefined && (options === null || typeof options !== 'object')) {
    return Promise.reject(new TypeError('onnx-shapes: init options must be an object'));
  }
  enginePromise ??= loadEngine(options).then(
    (engine) => (defaultEngine = engine),
    (err) => {
      enginePromise = null;
      throw err;
    },
  );
  return enginePromise;
}

/** init(), then engine.inferShapes(bytes, options). */
export async function inferShapes(bytes, options) {
  const engine = await init();
  return engine.inferShapes(bytes, options);
}

/** init(), then engine.inferShapesFromPath(path, options) (Node). */
export async function inferShapesFromPath(path, options) {
  const engine = await init();
  return engine.inferShapesFromPath(path, options);
}

/** init(), then engine.inferShapesFromUrl(url, options). */
export async function inferShapesFromUrl(url, options) {
  const engine = await init();
  return engine.inferShapesFromUrl(url, options);
}

/** init(), then engine.inferShapesFromFile(fileOrBlob, options). */
export async function inferShapesFromFile(file, options) {
  const engine = await init();
  return engine.inferShapesFromFile(file, options);
}

/** getShape on the default engine's most recent result; null before any. */
export function getShape(name) {
  return defaultEngine ? defaultEngine.getShape(name) : null;
}
