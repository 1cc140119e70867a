// A result from the worker as the page's data, taken in the parts the worker sends it in
// (worker.js resultParts): the result's small members (its event log parsed on first use), the
// rows of the values table (built in the worker: table_rows.js) and the model's symbols, then more
// rows, the nodes, the subgraphs. Each part is added in a step of its own.
import { assignHues } from './page_util.js';
import { state, typeText, innerTensor, shapeCache } from './page_data.js';

/**
 * The worker's `done` message as {result, model}: the result without its nodes yet (addNodes
 * adds them as they come). The event log stays in the worker, which says when it is recorded
 * (show_model.js eventsArrived); "Why this shape" asks it for a value's events (why.js).
 */
export function parseResult(msg) {
  const result = JSON.parse(msg.json);
  result.diagnostics = [];
  result.constraints = {};
  result.subgraphValues = {};
  result.nodes = [];
  result.ioNames = [];
  result.ioStart = [0];
  result.subgraphs = {};
  const model = JSON.parse(msg.modelJson);
  state.eventsId = msg.id;
  state.eventLog = 'pending';
  state.whyEvents = new Map();
  return { result, model };
}

/**
 * What rows of one type share (read-only): the type, its tensor, dims, shape key, element type and
 * symbols (one array per shape).
 */
function typeEntry([type, syms]) {
  const tensor = innerTensor(type);
  const dims = tensor ? tensor.dims : null;
  const shapeKey = dims ? `${dims.length}:${dims.join(',')}` : '';
  let shared = state.symsByShape.get(shapeKey);
  if (!shared) state.symsByShape.set(shapeKey, (shared = syms));
  return { type, tensor, dims, shapeKey, elem: typeText(type), syms: shared };
}

/** A row of the table from the worker's [name, type index, kind, nodeIndex, op, nodeName, sub?]. */
function rowFrom(a, i) {
  const [name, k, kind, nodeIndex, op, nodeName, sub = null] = a;
  const t = state.types[k];
  return {
    i, name, lname: null, type: t.type, typeIndex: k, tensor: t.tensor, dims: t.dims, syms: t.syms, kind, sub, nodeIndex, op, nodeName,
    lop: op.toLowerCase(), elem: t.elem, order: i, shapeKey: t.shapeKey, bytes: null,
  };
}

/** Starts the rows of a new model with the `done` message's first rows. */
export function startRows(msg) {
  state.rows = [];
  state.byName = new Map();
  state.symsByShape = new Map();
  state.types = [];
  state.modelOrder = null;
  state.symbols = [];
  addRows(JSON.parse(msg.rowsJson));
}

/** More of the model's symbols (a `symbols` part, in the model's order), each with its colour. */
export function addSymbols(symbols) {
  const more = state.symbols.length > 0;
  for (const s of symbols) state.symbols.push(s);
  assignHues(symbols.map((s) => s.name), more);
  shapeCache.clear();
}

/**
 * Appends a part's rows ({types, rows}: the types its rows use first; rows come in model order,
 * so a row's index is its place in model order).
 */
export function addRows({ types, rows: list }) {
  for (const t of types) state.types.push(typeEntry(t));
  const rows = state.rows;
  for (const a of list) {
    const r = rowFrom(a, rows.length);
    rows.push(r);
    state.byName.set(r.name, r);
  }
  state.modelOrder = null;
}

/** Appends a `nodes` part: nodes in node order, their inputs and outputs (worker.js compactNodes). */
export function addNodes(part) {
  const r = state.result;
  const offset = r.ioNames.length;
  for (const n of part.nodes) r.nodes.push(n);
  for (const name of part.ioNames) r.ioNames.push(name);
  for (let k = 1; k < part.ioStart.length; k++) r.ioStart.push(offset + part.ioStart[k]);
  state.consumers = null;
}
