// onnx-shapes: the module Web Worker behind engine.inferShapesFromFile() on a browser's main thread.
// It loads its own copy of the wasm module and streams the File/Blob with FileReaderSync on
// blob.slice(): 64 KiB reads into the decoder's buffer, payloads skipped by moving the position.
// Messages in:  { id, init: { wasmUrl?, wasmBinary? }, blob, options: { ..., progress: bool } }
// Messages out: { id, progress: [bytesRead, total] } ... then { id, result } or { id, error }
import { init } from './index.js';
import { attributeLists } from './result.js';

let enginePromise = null;

self.onmessage = async ({ data }) => {
  const { id, blob, options } = data;
  try {
    if (!enginePromise) {
      const initOptions = {};
      if (data.init?.wasmBinary) initOptions.wasmBinary = data.init.wasmBinary;
      else if (data.init?.wasmUrl) initOptions.locateFile = () => data.init.wasmUrl;
      enginePromise = init(initOptions);
    }
    const engine = await enginePromise;
    const { progress, ...rest } = options ?? {};
    if (progress) rest.onProgress = (done, total) => self.postMessage({ id, progress: [done, total] });
    const result = await engine.inferShapesFromFile(blob, rest);
    // Own enumerable data only (getShape/names are rebuilt on the other side); the nodes'
    // attributes (options.attributes) as plain data beside it.
    self.postMessage({ id, result: { ...result }, attributes: attributeLists(result) });
  } catch (e) {
    self.postMessage({ id, error: { name: e?.name ?? 'Error', message: String(e?.message ?? e), code: e?.code, node: e?.node ?? null } });
  }
};

self.postMessage({ ready: true }); // messages sent before this point would have been lost
