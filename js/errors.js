// ES module twin of js/errors.cjs, for browsers (which cannot load CommonJS). In Node,
// js/index.js uses errors.cjs so that the CommonJS and ESM entries share one class.
// Keep the two identical; tests/js/errors.test.js checks they behave the same.

/** A failure reported by the C engine: `code` is its status name, such as 'PARSE_ERROR'. */
class ShapeInferenceError extends Error {
  /**
   * @param {string} message
   * @param {{ code: string, node?: string | null, cause?: unknown }} details
   */
  constructor(message, { code, node = null, cause } = {}) {
    super(message, cause === undefined ? undefined : { cause });
    this.code = code;
    this.node = node;
  }
}
Object.defineProperty(ShapeInferenceError.prototype, 'name', {
  value: 'ShapeInferenceError', writable: true, configurable: true, enumerable: false,
});

export { ShapeInferenceError };
export default { ShapeInferenceError };
