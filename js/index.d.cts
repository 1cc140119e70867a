// Types for require('onnx-shapes') (js/index.cjs). The API and its documentation are those of
// js/index.d.ts; this file re-exports them for CommonJS consumers, so that TypeScript before 5.8
// (which cannot require() an ES module) resolves the CommonJS entry to CommonJS types.
// Keep the value exports in step with module.exports of js/index.cjs (tests/package/pack.test.mjs
// type-checks every runtime export through both entries).
import type * as esm from './index.js' with { 'resolution-mode': 'import' };

export type * from './index.js' with { 'resolution-mode': 'import' };

export declare const init: typeof esm.init;
export declare const inferShapes: typeof esm.inferShapes;
export declare const inferShapesFromPath: typeof esm.inferShapesFromPath;
export declare const inferShapesFromUrl: typeof esm.inferShapesFromUrl;
export declare const inferShapesFromFile: typeof esm.inferShapesFromFile;
export declare const getShape: typeof esm.getShape;
export declare const ShapeInferenceError: typeof esm.ShapeInferenceError;
export type ShapeInferenceError = esm.ShapeInferenceError;
export declare const RequirementError: typeof esm.RequirementError;
export type RequirementError = esm.RequirementError;
