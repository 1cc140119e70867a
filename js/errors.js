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

/**
 * Sizes outside what a model runs on (result.evaluate): `relation` is the first relation they
 * break (a requirement of `result.constraints.requirements`, a relation of `result.domain`, or a
 * dim that would be negative), `kind` says which sort it is, `values` its two sides at these sizes
 * (null when a side has no value there).
 */
class RequirementError extends Error {
  /**
   * @param {string} message
   * @param {{ kind: string, relation?: object | null, values?: unknown[] | null }} details
   */
  constructor(message, { kind, relation = null, values = null } = {}) {
    super(message);
    this.code = 'OUTSIDE_DOMAIN';
    this.kind = kind;
    this.relation = relation;
    this.values = values;
  }
}
Object.defineProperty(RequirementError.prototype, 'name', {
  value: 'RequirementError', writable: true, configurable: true, enumerable: false,
});

export { ShapeInferenceError, RequirementError };
export default { ShapeInferenceError, RequirementError };
