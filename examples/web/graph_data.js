// The graph of a result as the graph view's layout worker (layout_worker.js) reads it, made in the
// page's inference worker (worker.js): every graph (the model's, then each body) with its nodes as
// [name, opType, domain, inputs, outputs], each value's shape as text, and the element type of the
// values a node box may show inside it (weights and the outputs of folded constants, see
// graph_model.js).
import { FOLD_OPS } from './graph_model.js';

/**
 * "[batch, 8, (H+1)//2]" for an edge label, followed by a short known content ("[4] = [batch,
 * seq, 4, 16]": the shape a Reshape gets); '' when nothing is known.
 */
export function shapeText(t) {
  while (t && (t.kind === 'sequence' || t.kind === 'optional')) t = t.elem;
  if (!t || t.kind !== 'tensor') return t?.kind ?? '';
  const dims = !t.dims ? '[*]' : t.dims.length ? `[${t.dims.map((d) => d ?? '?').join(', ')}]` : 'scalar';
  const value = t.value ? `[${t.value.map((d) => d ?? '?').join(', ')}]` : '';
  return value && value.length <= 40 && t.dims?.length <= 1 ? `${dims} = ${value}` : dims;
}

function elemTypeOf(t) {
  while (t && (t.kind === 'sequence' || t.kind === 'optional')) t = t.elem;
  return t?.kind === 'tensor' ? t.elemType ?? '' : '';
}

/** The JSON text layout_worker.js reads (message {type: 'graph', json}). */
export function graphJson(result) {
  const row = (n) => [n.name, n.opType, n.domain, n.inputs, n.outputs];
  const scopes = [{ path: '', parent: null, node: -1, attribute: '', inputs: result.inputs, outputs: result.outputs, nodes: result.nodes.map(row) }];
  for (const [path, g] of Object.entries(result.subgraphs)) {
    scopes.push({ path, parent: g.parent, node: g.node, attribute: g.attribute, inputs: g.inputs, outputs: g.outputs, nodes: g.nodes.map(row) });
  }
  const shapes = {};
  for (const key of result.names()) shapes[key] = shapeText(result.getShape(key));
  // Types only where a box shows them: what no node of the graph writes, and what folds.
  const types = {};
  const typeOf = (k) => {
    if (k === null || Object.hasOwn(types, k)) return;
    const e = elemTypeOf(result.getShape(k));
    if (e) types[k] = e;
  };
  for (const s of scopes) {
    const written = new Set();
    for (const n of s.nodes) for (const k of n[4]) if (k !== null) written.add(k);
    for (const n of s.nodes) {
      for (const k of n[3]) if (k !== null && !written.has(k)) typeOf(k);
      if (FOLD_OPS.has(n[1])) for (const k of n[4]) typeOf(k);
    }
  }
  return JSON.stringify({ scopes, shapes, types });
}
