// Sizes at the current bindings: symbols the user bound, those equality constraints derive, the
// named sizes (definitions) evaluated through them, and each row's concrete dims and bytes.
import { bindDefinitions, evalDim, tokenize } from '../../js/expr.js';
import { ELEM_BYTES, sideValue } from './page_util.js';
import { state, shapeCache } from './page_data.js';

export function recomputeBindings() {
  // Derive unbound symbols from equality constraints `sym = expr` whose other side evaluates; the
  // result's named sizes (definitions) are evaluated from the sizes known at each pass.
  const base = new Map(state.env);
  const defs = state.result?.definitions || [];
  const names = new Set(defs.map((d) => d.name));
  let eff = bindDefinitions(base, defs);
  const derived = new Map();
  const equal = state.result?.constraints?.equal || [];
  for (let pass = 0; pass < 8; pass++) {
    let changed = false;
    for (const [a, b] of equal) {
      for (const [x, y] of [[a, b], [b, a]]) {
        if (typeof x !== 'string') continue;
        let toks;
        try { toks = tokenize(x); } catch { continue; }
        if (toks.length !== 1 || toks[0].t !== 'sym' || eff.has(toks[0].v) || names.has(toks[0].v)) continue;
        const v = sideValue(y, eff);
        if (v !== null && Number.isFinite(v)) {
          base.set(toks[0].v, v);
          eff = bindDefinitions(base, defs);
          derived.set(toks[0].v, { value: v, from: String(y) });
          changed = true;
        }
      }
    }
    if (!changed) break;
  }
  for (const [k, v] of eff) if (v === null) eff.delete(k); // a name whose symbols have no size yet
  state.derived = derived;
  state.effective = eff;
  computeSizes();
}

function computeSizes() {
  const env = state.effective;
  // Nothing bound (a model just shown): a dim written with a symbol has no value, and the engine
  // writes a constant dim as a number, so no dim text needs parsing (a 100k-node model may have
  // 100k distinct ones: seconds of the main thread in one task). Unknown is never a wrong size.
  const unbound = env.size === 0;
  const byShape = new Map(); // shapeKey → {conc, count}: rows share few distinct shapes
  for (const r of state.rows) {
    r.bytes = null;
    r.concrete = null;
    if (!r.tensor || !r.dims) continue;
    let c = byShape.get(r.shapeKey);
    if (!c) {
      let count = 1;
      const conc = new Array(r.dims.length);
      for (let k = 0; k < r.dims.length; k++) {
        let v = null;
        const d = r.dims[k];
        if (unbound && typeof d === 'string') v = null;
        else try { v = evalDim(d, env); } catch { v = null; }
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
  shapeCache.clear();
}
