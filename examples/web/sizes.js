// Sizes at the current bindings: the symbols the user bound, those the model's relations derive
// (js/bindings.js, the CLI's --bind: equalities, labels, named sizes), the checks that the model
// can run at them (every constraint and requirement holds, no dim negative or undefined), and
// each row's concrete dims and bytes. The inference worker counts them (sizes_at.js: a 100k-node
// model's relations and shapes took the page's thread 0.2-0.4 s CPU at each binding); the page
// puts its answer on screen. Sizes the model refuses are never shown: state.refused lists why,
// and no row that depends on them has concrete dims or bytes.
import { state, shapeCache } from './page_data.js';
import { ask } from './worker_client.js';

/** A model just shown: nothing known at any size until the worker's first answer. */
export function clearSizes() {
  state.derived = new Map();
  state.effective = new Map();
  state.refused = [];
  state.refusedMore = 0;
  state.refusedSymbols = new Set();
  state.sizes = null;
  for (const r of state.rows) r.bytes = null;
  shapeCache.clear();
}

/**
 * Puts a sizes_at.js answer (the worker's) on the page's state: the derived sizes, why the model
 * refuses them, each row's bytes; the concrete dims are read per type when a row is drawn
 * (page_data.js concreteOf). One pass over the rows, no expression evaluated.
 */
export function applySizes(s) {
  state.derived = new Map(s.derived.map(([k, value, from]) => [k, { value, from }]));
  state.effective = s.env;
  state.refused = s.issues;
  state.refusedMore = s.moreIssues;
  state.refusedSymbols = new Set(s.involved);
  state.sizes = { ...s, big: new Map(s.big), concrete: [] };
  const { bytes, typeCount } = s;
  for (const r of state.rows) {
    const b = r.typeIndex < typeCount ? bytes[r.typeIndex] : NaN;
    r.bytes = Number.isNaN(b) ? null : b;
  }
  shapeCache.clear();
}

// One request in the worker at a time; bindings changed meanwhile are asked for once it answers
// (typing "2048" in a field is four bindings: only the last is put on screen).
let inFlight = false;
let again = false;
let whenDone = null;

/**
 * Asks the worker for the sizes at the current bindings; once they are on the page's state,
 * calls `onApplied` (the last caller's, once, if the model is still the one asked about).
 */
export function requestSizes(onApplied) {
  whenDone = onApplied;
  if (inFlight) {
    again = true;
    return;
  }
  inFlight = true;
  (async () => {
    do {
      again = false;
      const model = state.modelId;
      let answer = null;
      try {
        answer = (await ask({ type: 'sizesAt', model, bindings: new Map(state.env) })).sizes;
      } catch {
        // The model is gone from the worker (another was chosen): its sizes no longer matter.
      }
      if (!again && answer && state.modelId === model) {
        applySizes(answer);
        const done = whenDone;
        whenDone = null;
        done?.();
      }
    } while (again);
    inFlight = false;
  })();
}
