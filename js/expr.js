// Symbolic dimension expressions as the engine prints them (README "Symbolic expressions"): the
// package's `onnx-shapes/expr` (types in js/expr.d.ts), used by the command line, the demo page and
// the tests. Two modules hold it: js/expr_eval.js reads and evaluates expressions (what a result
// needs, so what js/index.js loads), js/expr_text.js the texts around them that only the command
// line, the page and the tools use (bindings typed by a user, named sizes expanded and put back).
export {
  bindDefinitions, evalDim, evaluate, evaluateDim, parse, parseCached, printSymbol, symbolsOf, tokenize,
} from './expr_eval.js';
export { expandDefinitions, nameDefinitions, nameDefinitionsIn, parseBindings, symbolsThrough } from './expr_text.js';
