// Sizes at the current bindings: the symbols the user bound, those the model's relations derive
// (js/cli_bind.js, the CLI's --bind: equalities, labels, named sizes), the checks that the model
// can run at them (every constraint and requirement holds, no dim negative or undefined), and
// each row's concrete dims and bytes. Sizes the model refuses are never shown: state.refused
// lists why, and every row has no concrete dims and no bytes.
import { evalDim } from '../../js/expr.js';
import { resolveBindings } from '../../js/cli_bind.js';
import { ELEM_BYTES } from './page_util.js';
import { state, shapeCache } from './page_data.js';

export function recomputeBindings() {
  const r = state.result;
  // resolveBindings reads the values only to list the model's symbols (for names it does not
  // have), which the page knows already (state.symbols): a 100k-value model skips that walk.
  // Nothing bound: the worker resolved the model's relations alone (show_model.js, a `sizes` part).
  const relations = { values: {}, constraints: r?.constraints ?? {}, definitions: r?.definitions ?? [] };
  const { env, derived, issues } = state.env.size === 0 && state.unboundSizes ? state.unboundSizes : resolveBindings(relations, state.env);
  state.derived = new Map(derived.map(([k, value, from]) => [k, { value, from }]));
  state.effective = new Map(env);
  state.refused = [...issues];
  computeSizes();
}

/** A dim's value at env: a number, null (a symbol without a size), or the RangeError saying why it has none. */
function dimValue(dim, env) {
  try {
    return evalDim(dim, env);
  } catch (err) {
    return err instanceof RangeError ? err : null;
  }
}

function computeSizes() {
  const env = state.effective;
  // Nothing bound (a model just shown): a dim written with a symbol has no value, and the engine
  // writes a constant dim as a number, so no dim text needs parsing (a 100k-node model may have
  // 100k distinct ones: seconds of the main thread in one task). Unknown is never a wrong size.
  const unbound = env.size === 0;
  const byShape = new Map(); // shapeKey → {conc, count}: rows share few distinct shapes
  const broken = []; // dims with no value, or a negative one, at these sizes
  for (const r of state.rows) {
    r.bytes = null;
    r.concrete = null;
    if (!r.tensor || !r.dims) continue;
    let c = byShape.get(r.shapeKey);
    if (!c) {
      let count = 1;
      const conc = new Array(r.dims.length);
      for (let k = 0; k < r.dims.length; k++) {
        const d = r.dims[k];
        let v = unbound && typeof d === 'string' ? null : dimValue(d, env);
        if (v instanceof RangeError || (typeof v === 'number' && v < 0)) {
          if (broken.length < 20) broken.push({ value: r.name, dim: k, expr: d, reason: v instanceof RangeError ? v.message : v });
          v = null;
        }
        conc[k] = v;
        if (v === null || !Number.isFinite(v)) count = null;
        else if (count !== null) count *= v;
      }
      byShape.set(r.shapeKey, (c = { conc, count }));
    }
    r.concrete = c.conc;
    const eb = ELEM_BYTES[r.tensor.elemType];
    if (c.count !== null && eb !== undefined && r.type.kind === 'tensor') r.bytes = Math.ceil(c.count * eb);
  }
  for (const b of broken) {
    const why = typeof b.reason === 'number' ? `would be ${b.reason} at these sizes` : `has no value at these sizes (${b.reason})`;
    state.refused.push({ kind: 'dim', sentence: `dim ${b.dim} of '${b.value}' (${b.expr}) ${why}`, a: b.expr, b: null, why, value: b.value, dim: b.dim });
  }
  if (state.refused.length) {
    // Only the sizes the binding decides are refused; a weight's fixed shape keeps its bytes.
    for (const r of state.rows) if (r.syms.length || (r.dims && r.dims.some((d) => typeof d !== 'number'))) { r.bytes = null; r.concrete = null; }
  }
  shapeCache.clear();
}
