// The values table's rows of a result, built in the inference worker (worker.js), so that the
// page's main thread does nothing proportional to the model before the first rows show: one row
// per value with its kind (input, output, weight, activation, inner), producer and symbols, in
// model order (graph inputs, then each node's outputs in node order, a body's values before its
// node's outputs, then initializers), and the model's symbols in the order the graph inputs
// declare them. The page turns each row back into its row object (model_rows.js rowFrom).
import { symbolsThrough } from '../../js/expr.js';

/** The tensor inside a sequence/optional, for the shape of a value. */
function innerTensor(t) {
  while (t && (t.kind === 'sequence' || t.kind === 'optional')) t = t.elem;
  return t && t.kind === 'tensor' ? t : null;
}

/**
 * {rows, symbols} of an engine result and the model scan (model_scan.js; null when the scan
 * failed). A row is [name, type, kind, nodeIndex, op, nodeName, sub, syms] (sub: {path, local,
 * op, node, seeded} for a value inside a subgraph, else null), rows in model order.
 */
export function tableRows(result, model) {
  const inputs = new Set(model ? model.inputs.map((v) => v.name) : []);
  const inits = new Set(model ? model.initializers : []);
  const outputs = new Set(model ? model.outputs.map((v) => v.name) : []);
  const producers = result.producers || {};
  const nodes = result.nodes || [];
  const values = result.values;
  const subgraph = result.subgraphValues || {};
  const hasSubgraphs = Object.keys(subgraph).length > 0;
  const nodeByName = new Map(nodes.map((n, k) => [n.name, k]));
  const graphInputs = new Set(result.inputs || []);
  // The node of a body that writes each value inside a subgraph (a value no node writes there
  // is seeded: a body input, or read from an enclosing graph).
  const innerProducer = new Map();
  for (const g of Object.values(result.subgraphs || {})) {
    for (const n of g.nodes) for (const o of n.outputs) if (o) innerProducer.set(o, n);
  }
  const inputOrder = new Map(model ? model.inputs.map((v, i) => [v.name, i]) : []);

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

  // Buckets of model order: graph inputs (by declaration), each node's values, initializers.
  const inputRows = [];
  const weightRows = [];
  const byNode = new Array(nodes.length + 1);
  const put = (k, row) => { (byNode[k] ??= []).push(row); };
  for (const name of Object.keys(values)) {
    const t = values[name];
    if (t == null) continue;
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
    else kind = graphInputs.has(name) ? 'input' : 'weight';
    const tensor = innerTensor(t);
    const syms = symsOf(tensor ? tensor.dims : null);
    for (const s of syms) {
      const u = symUses.get(s);
      if (u) u.uses++;
      else symUses.set(s, { name: s, uses: 1, source: null });
    }
    const op = node ? node.opType : sub ? sub.op : '';
    const row = [name, t, kind, p ?? -1, op, node ? node.name : sub ? sub.node : '', sub, syms];
    if (kind === 'input') inputRows.push(row);
    else if (kind === 'weight') weightRows.push(row);
    else if (kind === 'inner') put(nodeByName.get(sub.path.split('/')[0]) ?? nodes.length, row); // before its node's outputs
    else put(p, row);
  }
  inputRows.sort((a, b) => (inputOrder.get(a[0]) ?? 0) - (inputOrder.get(b[0]) ?? 0));
  const rows = [...inputRows];
  for (const bucket of byNode) {
    if (!bucket) continue;
    // a body's values (inner) first, then the node's outputs in the order the table had them
    if (bucket.length > 1) bucket.sort((a, b) => (a[2] === 'inner' ? 0 : 1) - (b[2] === 'inner' ? 0 : 1));
    for (const row of bucket) rows.push(row);
  }
  for (const row of weightRows) rows.push(row);

  // Where each symbol first appears: the first graph input (in declaration order) that uses it.
  let rank = 0;
  for (const r of inputRows) for (const s of r[7]) { const u = symUses.get(s); if (!u.source) { u.source = r[0]; u.rank = rank++; } }
  // Symbols a DATA_DEPENDENT diagnostic names: the identifiers of its message that are symbols.
  const ddSyms = new Set();
  for (const d of result.diagnostics || []) {
    if (d.code !== 'DATA_DEPENDENT') continue;
    for (const m of d.message.matchAll(/[A-Za-z_][A-Za-z0-9_]*/g)) if (symUses.has(m[0])) ddSyms.add(m[0]);
  }
  // The graph inputs' symbols first (in input order), then the others by name.
  const symbols = [...symUses.values()]
    .map((s) => ({ ...s, dataDependent: ddSyms.has(s.name) }))
    .sort((a, b) => (a.source ? 0 : 1) - (b.source ? 0 : 1)
      || (a.source ? a.rank - b.rank : 0)
      || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return { rows, symbols };
}
