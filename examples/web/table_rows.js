// The values table's rows of a result, built in the inference worker (worker.js), so that the
// page's main thread does nothing proportional to the model before the first rows show: one row
// per value with its kind (input, output, weight, activation, inner), producer and symbols, in
// model order (graph inputs, then each node's outputs in node order, a body's values before its
// node's outputs, then initializers), and the model's symbols in the order the graph inputs
// declare them. The rows are made in model order a part at a time (rowBuilder), so that the
// worker sends the table's first screen as soon as it exists, before the other 100k rows of a
// large model are made. The page turns each row back into its row object (model_rows.js rowFrom).
import { symbolsThrough } from '../../js/expr.js';

/** The tensor inside a sequence/optional, for the shape of a value. */
function innerTensor(t) {
  while (t && (t.kind === 'sequence' || t.kind === 'optional')) t = t.elem;
  return t && t.kind === 'tensor' ? t : null;
}

/**
 * The engine's order of keys (their UTF-8 bytes, i.e. code points): the order of result.values,
 * in which the rows of one node, and the initializers, have always been listed.
 */
function byCodePoint(a, b) {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    if (a.charCodeAt(i) !== b.charCodeAt(i)) return a.codePointAt(i) - b.codePointAt(i);
  }
  return a.length - b.length;
}

/**
 * The rows of an engine result and the model scan (model_scan.js; null when the scan failed), made
 * in model order as they are asked for: `next(n)` gives up to n more rows ([] once all are made),
 * `count` is how many there are in all, `symbols()` (once every row is made) the model's symbols.
 * A row is [name, type, kind, nodeIndex, op, nodeName, sub, syms] (sub: {path, local, op, node,
 * seeded} for a value inside a subgraph, else null).
 *
 * The first rows need no more than the nodes: a graph input (the model's declared inputs in
 * order), then each node's outputs with a type (result.getShape, no 100k-key object) — an engine
 * result defines a top-level value once, by one node or as a graph input or initializer (a second
 * definition fails the inference). The values no node writes (initializers, a body's values of no
 * top-level node) come last, from result.values, once the first screens are sent.
 */
export function rowBuilder(result, model) {
  const inputs = new Set(model ? model.inputs.map((v) => v.name) : []);
  const inits = new Set(model ? model.initializers : []);
  const outputs = new Set(model ? model.outputs.map((v) => v.name) : []);
  const graphInputs = new Set(result.inputs || []);
  const nodes = result.nodes || [];
  const subgraph = result.subgraphValues || {};
  const count = result.names().length;
  // A body's values go just before the outputs of the top-level node that holds the body (the
  // first segment of its path names it); the node of a body that writes each one (a value no
  // node writes there is seeded: a body input, or read from an enclosing graph).
  const innerByNode = new Map(); // node index (nodes.length: none) -> keys
  const innerProducer = new Map();
  const subKeys = Object.keys(subgraph);
  if (subKeys.length) {
    const nodeByName = new Map(nodes.map((n, k) => [n.name, k]));
    for (const g of Object.values(result.subgraphs || {})) {
      for (const n of g.nodes) for (const o of n.outputs) if (o) innerProducer.set(o, n);
    }
    for (const key of subKeys) {
      if (result.getShape(key) == null) continue;
      const k = nodeByName.get((subgraph[key].path || '').split('/')[0]) ?? nodes.length;
      const list = innerByNode.get(k);
      if (list) list.push(key);
      else innerByNode.set(k, [key]);
    }
    for (const list of innerByNode.values()) list.sort(byCodePoint);
  }

  const symsByShape = new Map();
  const symUses = new Map();
  const symsOf = (dims) => {
    const key = dims ? `${dims.length}:${dims.join(',')}` : '';
    let syms = symsByShape.get(key);
    if (!syms) {
      syms = [];
      for (const d of dims ?? []) {
        if (typeof d !== 'string') continue;
        // a named size (result.definitions) stands for the symbols of its definition
        for (const s of symbolsThrough(d, result.definitions)) if (!syms.includes(s)) syms.push(s);
      }
      symsByShape.set(key, syms);
    }
    return syms;
  };

  const made = new Set(); // keys with a row
  const inputRows = [];
  const row = (name, type, kind, nodeIndex, node, sub) => {
    made.add(name);
    const tensor = innerTensor(type);
    const syms = symsOf(tensor ? tensor.dims : null);
    for (const s of syms) {
      const u = symUses.get(s);
      if (u) u.uses++;
      else symUses.set(s, { name: s, uses: 1, source: null });
    }
    const op = node ? node.opType : sub ? sub.op : '';
    return [name, type, kind, nodeIndex, op, node ? node.name : sub ? sub.node : '', sub, syms];
  };
  const innerRow = (key) => {
    const writer = innerProducer.get(key);
    const path = subgraph[key].path || '';
    const sub = { path, local: subgraph[key].name ?? key.slice(path.length), op: writer?.opType || '', node: writer?.name || '', seeded: !writer };
    return row(key, result.getShape(key), 'inner', -1, null, sub);
  };

  // The steps of model order, each adding the rows of one graph input, one node, or the rest.
  const queue = [];
  let k = 0; // the next node
  let phase = 0; // 0: graph inputs, 1: nodes, 2: the rest, 3: done
  function step() {
    if (phase === 0) {
      const declared = model ? model.inputs.map((v) => v.name) : [...graphInputs].sort(byCodePoint);
      for (const name of declared) {
        const isInput = model ? !inits.has(name) : true;
        if (!isInput || made.has(name) || Object.hasOwn(subgraph, name)) continue;
        const t = result.getShape(name);
        if (t == null) continue;
        const r = row(name, t, 'input', -1, null, null);
        inputRows.push(r);
        queue.push(r);
      }
      phase = 1;
    } else if (phase === 1) {
      if (k >= nodes.length) { phase = 2; return; }
      const node = nodes[k];
      for (const key of innerByNode.get(k) ?? []) queue.push(innerRow(key));
      const outs = [];
      for (const o of node.outputs) {
        if (!o || made.has(o)) continue;
        const t = result.getShape(o);
        if (t != null) outs.push([o, t]);
      }
      if (outs.length > 1) outs.sort((a, b) => byCodePoint(a[0], b[0]));
      for (const [o, t] of outs) queue.push(row(o, t, outputs.has(o) ? 'output' : 'activation', k, node, null));
      k++;
    } else if (phase === 2) {
      for (const key of innerByNode.get(nodes.length) ?? []) queue.push(innerRow(key));
      // Initializers (and, without the scan, whatever is not a graph input), in the engine's order.
      for (const name of Object.keys(result.values)) {
        if (made.has(name) || Object.hasOwn(subgraph, name) || result.values[name] == null) continue;
        queue.push(row(name, result.values[name], 'weight', -1, null, null));
      }
      phase = 3;
    }
  }

  let at = 0; // rows of queue already given
  return {
    count,
    next(n) {
      while (queue.length - at < n && phase < 3) step();
      const out = queue.slice(at, at + n);
      at += out.length;
      if (at > 65536) { queue.splice(0, at); at = 0; } // keep the queue short
      return out;
    },
    get done() {
      return phase === 3 && at >= queue.length;
    },
    /** The model's symbols (once every row is made): the graph inputs' first, in input order, then by name. */
    symbols() {
      // Where each symbol first appears: the first graph input (in declaration order) that uses it.
      let rank = 0;
      for (const r of inputRows) for (const s of r[7]) { const u = symUses.get(s); if (!u.source) { u.source = r[0]; u.rank = rank++; } }
      // Symbols a DATA_DEPENDENT diagnostic names: the identifiers of its message that are symbols.
      const ddSyms = new Set();
      for (const d of result.diagnostics || []) {
        if (d.code !== 'DATA_DEPENDENT') continue;
        for (const m of d.message.matchAll(/[A-Za-z_][A-Za-z0-9_]*/g)) if (symUses.has(m[0])) ddSyms.add(m[0]);
      }
      return [...symUses.values()]
        .map((s) => ({ ...s, dataDependent: ddSyms.has(s.name) }))
        .sort((a, b) => (a.source ? 0 : 1) - (b.source ? 0 : 1)
          || (a.source ? a.rank - b.rank : 0)
          || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    },
  };
}

/** Every row and the symbols at once: {rows, symbols} (rowBuilder's, drained). */
export function tableRows(result, model) {
  const b = rowBuilder(result, model);
  const rows = [];
  for (let part; (part = b.next(65536)).length;) for (const r of part) rows.push(r);
  return { rows, symbols: b.symbols() };
}
