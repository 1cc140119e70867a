// A module Web Worker that runs onnx-shapes off the main thread (see index.html).
//
//   main → worker  { id, bytes: ArrayBuffer }  or  { id, file: File | Blob }
//   worker → main  { ready: true, version }                      once, when it listens
//                  { id, result }  or  { id, error: { name, code, node, message } }
//
// In an app that installed the package, import from 'onnx-shapes' instead of '../../js/index.js'.
import { init, ShapeInferenceError } from '../../js/index.js';

// The glue fetches dist/onnx_shapes.wasm next to dist/onnx_shapes.mjs (import.meta.url): any static
// server that sends .wasm as application/wasm will do.
const engine = await init();

self.onmessage = async ({ data }) => {
  const { id, bytes, file } = data;
  try {
    // inferShapesFromFile streams a File/Blob (FileReaderSync on slices, inside this worker):
    // the weights are never copied into wasm memory. inferShapes decodes bytes already in memory.
    const result = file ? await engine.inferShapesFromFile(file) : engine.inferShapes(bytes);
    // A result is plain frozen data plus two methods (getShape, names); postMessage copies the data.
    self.postMessage({ id, result: { ...result } });
  } catch (e) {
    self.postMessage({
      id,
      error: {
        name: e instanceof ShapeInferenceError ? 'ShapeInferenceError' : (e?.name ?? 'Error'),
        code: e?.code ?? null,
        node: e?.node ?? null,
        message: String(e?.message ?? e),
      },
    });
  }
};

// Messages posted to a module worker before its module has finished evaluating (this one awaits
// init() at the top level) may be lost: the page waits for this before it posts anything.
self.postMessage({ ready: true, version: engine.version });
