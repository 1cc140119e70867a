'use strict';
// onnx-shapes: the CommonJS entry. Same API as js/index.js, which it loads with import() on first
// use; ShapeInferenceError is the very class the ES module exports (both come from errors.cjs).

const { ShapeInferenceError, RequirementError } = require('./errors.cjs');

let esmPromise = null;
let esm = null;

function loadEsm() {
  esmPromise ??= import('./index.js').then(
    (ns) => (esm = ns),
    (err) => {
      esmPromise = null;
      throw err;
    },
  );
  return esmPromise;
}

/** Loads the wasm module once; later calls return the same engine. */
async function init(options) {
  return (await loadEsm()).init(options);
}

/** init(), then engine.inferShapes(bytes, options). */
async function inferShapes(bytes, options) {
  return (await loadEsm()).inferShapes(bytes, options);
}

/** init(), then engine.inferShapesFromPath(path, options) (Node). */
async function inferShapesFromPath(path, options) {
  return (await loadEsm()).inferShapesFromPath(path, options);
}

/** init(), then engine.inferShapesFromUrl(url, options). */
async function inferShapesFromUrl(url, options) {
  return (await loadEsm()).inferShapesFromUrl(url, options);
}

/** init(), then engine.inferShapesFromFile(fileOrBlob, options). */
async function inferShapesFromFile(file, options) {
  return (await loadEsm()).inferShapesFromFile(file, options);
}

/** getShape on the default engine's most recent result; null before any. */
function getShape(name) {
  return esm ? esm.getShape(name) : null;
}

module.exports = {
  init, inferShapes, inferShapesFromPath, inferShapesFromUrl, inferShapesFromFile, getShape, ShapeInferenceError, RequirementError,
};
