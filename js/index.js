// onnx-shapes: the ES module entry (Node >= 18, browsers, bundlers). Types: js/index.d.ts.
//
// One call crosses into C per model (src/onnx_shapes.h): the bytes are copied into the wasm
// heap, osi_infer runs, and the result's JSON is parsed once into plain frozen JS data. No wasm
// pointer outlives the call, so a result never pins wasm memory and there is nothing to delete.

const isNode = typeof process === 'object' && process !== null &&
  typeof process.versions === 'object' && process.versions !== null &&
  typeof process.versions.node === 'string';

// In Node the class comes from errors.cjs, which the CommonJS entry shares: one class per process.
const { ShapeInferenceError } = (await (isNode ? import('./errors.cjs') : import('./errors.js'))).default;
export { ShapeInferenceError };

const WASM_FILE = 'onnx_shapes.wasm';
const FLAG_PREFILL_VALUE_INFO = 1; // OSI_OPT_PREFILL_VALUE_INFO
const FLAG_EVENTS = 2;             // OSI_OPT_EVENTS

// Section - Results

function deepFreeze(value) {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const key of Object.keys(value)) deepFreeze(value[key]);
  }
  return value;
}

/** What one osi_infer call found. Everything on it is frozen plain data. */
class ShapeInferenceResult {
  #names;

  constructor(data) {
    deepFreeze(data);
    this.values = data.values ?? Object.freeze({});
    this.producers = data.producers ?? Object.freeze({});
    this.nodes = data.nodes ?? Object.freeze([]);
    this.diagnostics = data.diagnostics ?? Object.freeze([]);
    // Keys the engine adds later (constraints, events, ...) pass through unchanged.
    for (const key of Object.keys(data)) {
      if (!(key in this)) this[key] = data[key];
    }
    Object.freeze(this);
  }

  /** The type of value `name` (frozen), or null when `name` is not a value with a known type. */
  getShape(name) {
    if (typeof name !== 'string' || !Object.hasOwn(this.values, name)) return null;
    return this.values[name] ?? null;
  }

  /** Every value with a known type, sorted (code-unit order). A fresh array each call. */
  names() {
    this.#names ??= Object.keys(this.values).filter((n) => this.values[n] != null).sort();
    return this.#names.slice();
  }
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
  return (options.prefillValueInfo ? FLAG_PREFILL_VALUE_INFO : 0) | (options.events ? FLAG_EVENTS : 0);
}

function outOfMemory(what) {
  return new ShapeInferenceError(`out of wasm memory (${what})`, { code: 'NOMEM' });
}

/** A loaded wasm module. Synchronous; every call is independent of the ones before. */
class Engine {
  #M;
  #last = null;

  constructor(M) {
    this.#M = M;
  }

  /** The C engine's version string. */
  get version() {
    return this.#M.UTF8ToString(this.#M._osi_version());
  }

  inferShapes(bytes, options) {
    const input = asBytes(bytes);
    const flags = optionFlags(options);
    const M = this.#M;
    if (input.length > 0xffffffff) throw outOfMemory(`${input.length} bytes do not fit in wasm32 memory`);
    const sp = M.stackSave();
    // Pointers come back as signed i32: `>>> 0` keeps addresses above 2 GB (MAXIMUM_MEMORY=4GB) usable.
    const ptr = M._malloc(input.length || 1) >>> 0;
    if (!ptr) throw outOfMemory(`${input.length} bytes for the model`);
    let r = 0;
    try {
      M.HEAPU8.set(input, ptr); // read HEAPU8 after _malloc: memory may have grown
      r = M._osi_infer(ptr, input.length, flags) >>> 0;
      if (!r) throw outOfMemory('result');
      const status = M._osi_result_status(r);
      if (status !== 0) {
        const code = M.UTF8ToString(M._osi_status_name(status));
        throw new ShapeInferenceError(M.UTF8ToString(M._osi_result_error(r)) || code, {
          code,
          node: M.UTF8ToString(M._osi_result_error_node(r)) || null,
        });
      }
      const result = new ShapeInferenceResult(JSON.parse(M.UTF8ToString(M._osi_result_json(r))));
      this.#last = result;
      return result;
    } finally {
      M.stackRestore(sp); // a no-op unless a wasm trap skipped the C epilogues
      if (r) M._osi_result_delete(r);
      M._free(ptr);
    }
  }

  /** getShape on this engine's most recent successful result; null before the first one. */
  getShape(name) {
    return this.#last ? this.#last.getShape(name) : null;
  }

  /** @internal Test hook: the size of the wasm linear memory in bytes. */
  _heapBytes() {
    return this.#M.HEAPU8.length;
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
  const moduleArg = { ...options };
  if (isNode && !moduleArg.wasmBinary && !moduleArg.instantiateWasm) {
    // Emscripten 3.1.6 glue would fetch() the file, which Node >= 18 refuses for paths: read it ourselves.
    let where = new URL(`../dist/${WASM_FILE}`, import.meta.url);
    if (typeof moduleArg.locateFile === 'function') {
      const located = String(moduleArg.locateFile(WASM_FILE, ''));
      where = located.startsWith('file:') ? new URL(located) : located;
      delete moduleArg.locateFile; // done: the glue gets the bytes
    }
    const { readFile } = await import(/* webpackIgnore: true */ 'node:fs/promises');
    try {
      moduleArg.wasmBinary = await readFile(where);
    } catch (cause) {
      throw new Error(`onnx-shapes: cannot read ${where} (run \`npm run build\`?)`, { cause });
    }
  }
  let createOnnxShapes;
  try {
    ({ default: createOnnxShapes } = await import('../dist/onnx_shapes.mjs'));
  } catch (cause) {
    throw new Error('onnx-shapes: cannot load dist/onnx_shapes.mjs (run `npm run build`?)', { cause });
  }
  return new Engine(await createOnnxShapes(moduleArg));
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

/** getShape on the default engine's most recent result; null before any. */
export function getShape(name) {
  return defaultEngine ? defaultEngine.getShape(name) : null;
}
