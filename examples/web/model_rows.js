// A result from the worker as the page's data: the parsed result (its event log parsed on first
// use), one row per value with its kind (input, output, weight, activation, inner), model order
// and symbols, and the model's symbols in the order the graph inputs declare them.
import { symbolsThrough } from '../../js/expr.js';
import { assignHues } from './page_util.js';
import { state, typeText, innerTensor, shapeCache } from './page_data.js';

/**
 * The worker's `done` message as {result, model}. The event log follows in an `events` message
 * (show_model.js eventsArrived puts it in state.eventsJson); `result.events` parses it on first
 * read (it can be several times larger than the rest), and is null until then.
 */
export function parseResult(msg) {
  const result = JSON.parse(msg.json);
  const model = JSON.parse(msg.modelJson);
  state.eventsId = msg.id;
  state.eventsJson = msg.eventsJson;
  state.eventsPending = msg.eventsJson === null;
  let events;
  Object.defineProperty(result, 'events', {
    enumerable: true,
    get() {
      if (events === undefined && typeof state.eventsJson === 'string') { events = JSON.parse(state.eventsJson); state.eventsJson = null; }
      return events ?? null;
    },
  });
  return { result, model };
}

/** Fills state.rows, state.byName and state.symbols from state.result and state.model. */
export function buildRows() {
  const { result, model } = state;
  const inputs = new Set(model ? model.inputs.map((v) => v.name) : []);
  const inits = new Set(model ? model.initializers : []);
  const outputs = new Map(model ? model.outputs.map((v) => [v.name, v]) : []);
  const producers = result.producers || {};
  const nodes = result.nodes || [];
  const names = Object.keys(result.values).filter((n) => result.values[n] != null);
  const subgraph = result.subgraphValues || {};
  const nodeByName = new Map(nodes.map((n, k) => [n.name, k]));

  // The node of a body that writes each value inside a subgraph (a value no node writes there
  // is seeded: a body input, or read from an enclosing graph).
  const innerProducer = new Map();
  for (const g of Object.values(result.subgraphs || {})) {
    for (let k = 0; g.ioStart && 2 * k + 2 < g.ioStart.length; k++) {
      for (let j = g.ioStart[2 * k + 1]; j < g.ioStart[2 * k + 2]; j++) if (g.ioNames[j]) innerProducer.set(g.ioNames[j], g.nodes[k]);
    }
  }
  const graphInputs = new Set(result.inputs || []);

  // Model order: graph inputs, then node outputs in node order, then initializers.
  const inputOrder = new Map(model ? model.inputs.map((v, i) => [v.name, i]) : []);
  const rows = new Array(names.length);
  const symUses = new Map();
  const symsByShape = new Map();
  const hasSubgraphs = Object.keys(subgraph).length > 0;
  for (let i = 0; i < names.length; i++) {
    const name = names[i];
    const t = result.values[name];
    const p = producers[name];
    const node = p === undefined ? null : nodes[p];
    let kind;
    let sub = null;
    if (node) kind = outputs.has(name) ? 'output' : 'activation';
    else if (hasSubgraphs && Object.hasOwn(subgraph, name)) {
      kind = 'inner';
      const writer = innerProducer.get(name);
      const path = subgraph[name].path || '';
      sub = { path, local: subgraph[name].name ?? name.slice(path.length), op: writer?.opType || '', node: writer?.name || '', seeded: !writer };
    } else if (inits.has(name)) kind = 'weight';
    else if (inputs.has(name)) kind = 'input';
    else if (model) kind = 'weight'; // not an input of the top-level graph: an initializer (or a constant)
    else if (result.inputs) kind = graphInputs.has(name) ? 'input' : 'weight';
    else {
      // Without the model scan: no producer, and only fixed dims → treat as an initializer.
      const tt = innerTensor(t);
      kind = tt && tt.dims && tt.dims.every((d) => typeof d === 'number') ? 'weight' : 'input';
    }
    const tensor = innerTensor(t);
    const dims = tensor ? tensor.dims : null;
    const shapeKey = dims ? `${dims.length}:${dims.join(',')}` : '';
    let syms = symsByShape.get(shapeKey);
    if (!syms) {
      syms = [];
      if (dims) {
        for (const d of dims) {
          if (typeof d !== 'string') continue;
          // a named size (result.definitions) stands for the symbols of its definition
          for (const s of symbolsThrough(d, result.definitions)) if (!syms.includes(s)) syms.push(s);
        }
      }
      symsByShape.set(shapeKey, syms); // shared by every row of this shape: read-only
    }
    for (const s of syms) {
      let u = symUses.get(s);
      if (!u) symUses.set(s, (u = { name: s, uses: 0, source: null, firstRow: i }));
      u.uses++;
    }
    let order;
    if (kind === 'input') order = inputOrder.get(name) ?? 0;
    else if (kind === 'weight') order = 2e9 + i;
    else if (kind === 'inner') order = 1e9 + (nodeByName.get(sub.path.split('/')[0]) ?? nodes.length) - 0.5 + i * 1e-9;
    else order = 1e9 + p;
    const op = node ? node.opType : sub ? sub.op : '';
    rows[i] = {
      i, name, lname: null, type: t, tensor, dims, syms, kind, sub,
      nodeIndex: p ?? -1, op, nodeName: node ? node.name : sub ? sub.node : '',
      lop: op.toLowerCase(), elem: typeText(t), order,
      shapeKey, bytes: null, concrete: null,
    };
  }
  state.rows = rows;
  state.modelOrder = null;
  state.byName = new Map(rows.map((r) => [r.name, r]));

  // Where each symbol first appears: the first graph input (in declaration order) that uses it.
  const byInputOrder = rows.filter((r) => r.kind === 'input').sort((a, b) => a.order - b.order);
  let rank = 0;
  for (const r of byInputOrder) for (const s of r.syms) { const u = symUses.get(s); if (!u.source) { u.source = r.name; u.rank = rank++; } }

  // Symbols: the graph inputs' symbols first (in input order), then the others by name.
  // Symbols a DATA_DEPENDENT diagnostic names: the identifiers of its message that are symbols
  // (one pass over each message, whatever the number of symbols).
  const ddSyms = new Set();
  for (const d of result.diagnostics || []) {
    if (d.code !== 'DATA_DEPENDENT') continue;
    for (const m of d.message.matchAll(/[A-Za-z_][A-Za-z0-9_]*/g)) if (symUses.has(m[0])) ddSyms.add(m[0]);
  }
  state.symbols = [...symUses.values()]
    .map((s) => ({ ...s, dataDependent: ddSyms.has(s.name) }))
    .sort((a, b) => (a.source ? 0 : 1) - (b.source ? 0 : 1)
      || (a.source ? a.rank - b.rank : 0)
      || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  assignHues(state.symbols.map((s) => s.name));
  shapeCache.clear();
}
