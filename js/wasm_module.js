// onnx-shapes: loading the wasm module (dist/onnx_shapes.mjs + .wasm) for js/index.js. The module is
// compiled once and kept, so that the engine can make a fresh instance of it synchronously (an
// instance's memory can grow but never shrink; see Engine#reset in js/index.js).

const WASM_FILE = 'onnx_shapes.wasm';
const isNode = typeof process === 'object' && process !== null &&
  typeof process.versions === 'object' && process.versions !== null &&
  typeof process.versions.node === 'string';

// Written out so that bundlers (Vite, ...) see the asset and emit it; the glue refers to the same file.
const WASM_URL = new URL('../dist/onnx_shapes.wasm', import.meta.url);

/** The compiled wasm module, from init's wasmBinary, the file (Node) or its URL (browsers). */
async function compileWasm(options) {
  if (options.wasmBinary) return WebAssembly.compile(options.wasmBinary);
  const located = typeof options.locateFile === 'function'
    ? String(options.locateFile(WASM_FILE, WASM_URL.href.replace(/[^/]*$/, '')))
    : null;
  if (isNode) {
    // Node's fetch() refuses file paths: read the file.
    const where = located === null ? WASM_URL : located.startsWith('file:') ? new URL(located) : located;
    const { readFile } = await import(/* webpackIgnore: true */ 'node:fs/promises');
    let bytes;
    try {
      bytes = await readFile(where);
    } catch (cause) {
      throw new Error(`onnx-shapes: cannot read ${where} (run \`npm run build\`?)`, { cause });
    }
    return WebAssembly.compile(bytes);
  }
  const url = located ?? WASM_URL.href;
  const get = async () => {
    const res = await fetch(url, { credentials: 'same-origin' });
    if (!res.ok) throw new Error(`onnx-shapes: cannot load ${url} (HTTP ${res.status})`);
    return res;
  };
  if (typeof WebAssembly.compileStreaming === 'function') {
    try {
      return await WebAssembly.compileStreaming(get());
    } catch (err) {
      if (!(err instanceof TypeError)) throw err; // else served with another MIME type than application/wasm
    }
  }
  return WebAssembly.compile(await (await get()).arrayBuffer());
}

/**
 * Loads the module with init's options (locateFile, wasmBinary, instantiateWasm, and anything else
 * the Emscripten factory takes). Returns the module and newModule(), which makes a fresh instance
 * synchronously (null when init's own instantiateWasm hook did not hand over the compiled module).
 */
export async function createModule(options) {
  let createOnnxShapes;
  try {
    ({ default: createOnnxShapes } = await import('../dist/onnx_shapes.mjs'));
  } catch (cause) {
    throw new Error('onnx-shapes: cannot load dist/onnx_shapes.mjs (run `npm run build`?)', { cause });
  }
  // The engine keeps the compiled module, to make a fresh instance of it synchronously when one
  // is needed (see Engine#reset).
  let compiled = null;
  const userHook = options?.instantiateWasm;
  const moduleArg = { ...options };
  delete moduleArg.locateFile; // the glue does not load the .wasm: the hook below does
  delete moduleArg.wasmBinary;
  let failed;
  const failure = new Promise((_, reject) => { failed = reject; });
  if (typeof userHook === 'function') {
    moduleArg.instantiateWasm = (imports, receive) => userHook(imports, (instance, module) => {
      compiled = module ?? null;
      return receive(instance, module);
    });
  } else {
    compiled = await compileWasm({ ...options });
    moduleArg.instantiateWasm = (imports, receive) => {
      WebAssembly.instantiate(compiled, imports).then((instance) => receive(instance, compiled), failed);
      return {};
    };
  }
  const M = await Promise.race([createOnnxShapes(moduleArg), failure]);
  const newModule = () => {
    if (!compiled) return null; // an instantiateWasm hook that did not pass the module on
    const arg = { ...options };
    delete arg.locateFile;
    delete arg.wasmBinary;
    arg.instantiateWasm = (imports, receive) => {
      receive(new WebAssembly.Instance(compiled, imports), compiled);
      return {};
    };
    createOnnxShapes(arg); // ready synchronously: the instance was
    if (!arg.calledRun) throw new Error('onnx-shapes: a fresh wasm instance did not start');
    return arg;
  };
  return { M, newModule };
}
