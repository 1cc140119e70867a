// The node panel: what one node is and does. Its operator (domain, opset), every attribute
// (with the defaults a convolution or pooling uses when the model leaves them out, and where its
// kernel comes from), its inputs and outputs with their shapes, the weights it reads (initializers
// and Constant outputs: shape, type, bytes), what the model needs of its sizes, its diagnostics.
// The attributes come from the worker (result node attributes), asked for when the panel opens;
// the node's cost (MACs, FLOPs, bytes) from cost_panel.js.
import { esc, fmtInt, fmtBytes, exprHTML, ELEM_BYTES } from './page_util.js';
import { state, ioAt, nodeAt, valueLink, typeLine, constraintHTML, DIAG_LEVEL } from './page_data.js';
import { nodeCostHTML } from './cost_panel.js';

/** Ops whose spatial attributes default when absent, and the input holding the kernel (its dims[2:]). */
const SPATIAL = {
  Conv: { weight: 1, group: true }, ConvTranspose: { weight: 1, group: true }, ConvInteger: { weight: 1, group: true },
  QLinearConv: { weight: 3, group: true }, DeformConv: { weight: 1, group: true },
  MaxPool: {}, AveragePool: {}, LpPool: {},
};

const opsetOf = (domain) => state.model?.opsets?.find((o) => (o.domain || '') === (domain || '') || (!domain && o.domain === 'ai.onnx'))?.version;

function listText(list, item) {
  if (Array.isArray(list)) return `[${list.map(item).join(', ')}]`;
  if (list && typeof list === 'object' && 'count' in list) return `[${list.head.map(item).join(', ')}, … <span class="muted">${fmtInt(list.count)} values</span>]`;
  return esc(String(list));
}

const scalarText = (v) => (typeof v === 'number' ? String(v) : esc(String(v)));

function tensorHTML(t) {
  if (!t) return '<span class="muted">none</span>';
  const dims = `[${t.dims.join(', ')}]`;
  let count = 1;
  for (const d of t.dims) count *= Number(d);
  const eb = ELEM_BYTES[t.elemType];
  const bytes = eb !== undefined && Number.isFinite(count) ? ` <span class="muted">${fmtBytes(count * eb)}</span>` : '';
  const values = t.values ? ` = <span class="mono">${t.dims.length ? listText(t.count > t.values.length ? { count: t.count, head: t.values } : t.values, scalarText) : scalarText(t.values[0])}</span>` : '';
  return `<span class="etype">${esc(t.elemType ?? '?')}</span> <span class="mono">${t.dims.length ? dims : 'scalar'}</span>${bytes}${values}${t.external ? ' <span class="muted">(external data, not read)</span>' : ''}${t.sparse ? ' <span class="muted">(sparse)</span>' : ''}`;
}

/** The body (a key of result.subgraphs) that graph attribute `attr` of node path/index was inferred as. */
function bodyOf(path, index, attr) {
  for (const [key, g] of Object.entries(state.result.subgraphs || {})) if (g.parent === path && g.node === index && g.attribute === attr) return key;
  return null;
}

function valueHTML(a, path, index) {
  const v = a.value;
  if (v && typeof v === 'object' && 'ref' in v) return `<span class="muted">the caller's</span> <span class="mono">${esc(v.ref)}</span>`;
  switch (a.type) {
    case 'int': case 'float': return `<span class="mono">${scalarText(v)}</span>`;
    case 'string': return `<span class="mono">"${esc(v)}"</span>`;
    case 'ints': case 'floats': return `<span class="mono">${listText(v, scalarText)}</span>`;
    case 'strings': return `<span class="mono">${listText(v, (s) => `"${esc(s)}"`)}</span>`;
    case 'tensor': case 'sparse_tensor': return tensorHTML(v);
    case 'tensors': case 'sparse_tensors': return Array.isArray(v) ? v.map(tensorHTML).join('<br>') : esc(JSON.stringify(v));
    case 'graph': {
      const body = bodyOf(path, index, a.name);
      return `graph <span class="mono">${esc(v?.name || '')}</span> <span class="muted">${fmtInt(v?.nodes ?? 0)} node${v?.nodes === 1 ? '' : 's'}</span>${body ? ` <button type="button" class="link small" data-show-body="${esc(body)}">show in graph</button>` : ''}`;
    }
    default: return `<span class="mono">${esc(JSON.stringify(v))}</span>`;
  }
}

/** Attributes a convolution or pooling takes by default when the model omits them, with the kernel. */
function defaultsFor(node, io, given) {
  const spec = SPATIAL[node.opType];
  if (!spec || node.domain) return [];
  const x = state.byName.get(io.inputs[0] ?? '');
  const w = spec.weight !== undefined ? state.byName.get(io.inputs[spec.weight] ?? '') : null;
  const rank = x?.dims ? x.dims.length - 2 : w?.dims ? w.dims.length - 2 : null;
  if (rank === null || rank < 1) return [];
  const ones = `[${new Array(rank).fill(1).join(', ')}]`;
  const out = [];
  if (!given.has('kernel_shape') && w?.dims) out.push(['kernel_shape', `<span class="mono">[${w.dims.slice(2).map((d) => exprHTML(d)).join(', ')}]</span>`, `from the weight ${valueLink(w.name)}`]);
  if (!given.has('strides')) out.push(['strides', `<span class="mono">${ones}</span>`, 'default']);
  if (!given.has('dilations') && node.opType !== 'AveragePool') out.push(['dilations', `<span class="mono">${ones}</span>`, 'default']);
  if (!given.has('pads') && !given.has('auto_pad')) out.push(['pads', `<span class="mono">[${new Array(2 * rank).fill(0).join(', ')}]</span>`, 'default']);
  if (spec.group && !given.has('group')) out.push(['group', '<span class="mono">1</span>', 'default']);
  return out;
}

function attributesHTML(node, io, path, index, attributes) {
  if (attributes === undefined) return '<p class="muted" id="n-attrs-loading">Reading the attributes…</p>';
  if (attributes === null) return '<p class="muted">This engine build gives no attributes.</p>';
  const given = new Set(attributes.map((a) => a.name));
  const rows = attributes.map((a) => `<tr data-attr="${esc(a.name)}"><th scope="row" class="mono">${esc(a.name)}</th><td>${valueHTML(a, path, index)}</td><td class="muted">${esc(a.type)}</td></tr>`);
  for (const [name, html, note] of defaultsFor(node, io, given)) rows.push(`<tr data-attr="${esc(name)}" class="default"><th scope="row" class="mono">${esc(name)}</th><td>${html}</td><td class="muted">${note}</td></tr>`);
  if (!rows.length) return '<p class="muted">No attributes.</p>';
  return `<table class="attr-table"><tbody>${rows.join('')}</tbody></table>`;
}

/** A value the node reads or writes, with its shape and (for a weight) its bytes. */
function ioRow(key, k) {
  if (!key) return `<li><span class="muted">#${k} omitted (optional)</span></li>`;
  const r = state.byName.get(key);
  const tag = r && isWeight(r) ? ' <span class="badge">weight</span>' : '';
  const size = r?.bytes != null ? ` <span class="muted">${fmtBytes(r.bytes)}</span>` : '';
  return `<li>${valueLink(key)}${tag} ${r ? typeLine(r) : '<span class="muted">unknown</span>'}${size}</li>`;
}

/** An initializer, or the output of a Constant node: data the node reads rather than computes. */
function isWeight(r) {
  return r.kind === 'weight' || (r.nodeIndex >= 0 && state.result.nodes[r.nodeIndex]?.opType === 'Constant');
}

/**
 * The node panel of node `index` of graph `path` ('' or a body's path), as HTML; null when there
 * is no such node. `attributes`: the node's (undefined while they are being read).
 */
export function nodeHTML(path, index, attributes) {
  const node = nodeAt(path, index);
  const io = ioAt(path, index);
  if (!node || !io) return null;
  const opset = opsetOf(node.domain);
  let html = `<section class="d-sec d-top" id="n-op"><p class="d-node"><span class="opname big">${esc(node.opType)}</span> <span class="mono">${esc(node.name || `node #${index}`)}</span></p>
    <dl class="facts"><dt>Domain</dt><dd class="mono">${esc(node.domain || 'ai.onnx')}</dd><dt>Opset</dt><dd>${opset ?? '<span class="muted">not imported</span>'}</dd>
    <dt>Node</dt><dd>#${index}${path ? ` <span class="muted">in</span> <span class="mono">${esc(path)}</span>` : ''}</dd></dl></section>`;
  html += nodeCostHTML(path, index);
  html += `<section class="d-sec" id="n-attrs"><h3>Attributes</h3><div id="n-attrs-body">${attributesHTML(node, io, path, index, attributes)}</div></section>`;
  html += `<section class="d-sec" id="n-inputs"><h3>Inputs</h3><ul class="io-list">${io.inputs.map(ioRow).join('') || '<li class="muted">none</li>'}</ul></section>`;
  html += `<section class="d-sec" id="n-outputs"><h3>Outputs</h3><ul class="io-list">${io.outputs.map(ioRow).join('') || '<li class="muted">none</li>'}</ul></section>`;
  const weights = io.inputs.map((k) => k && state.byName.get(k)).filter((r) => r && isWeight(r));
  if (weights.length) {
    const known = weights.filter((r) => r.bytes !== null);
    const total = known.reduce((n, r) => n + r.bytes, 0);
    html += `<section class="d-sec" id="n-weights"><h3>Weights it reads <span class="count">${fmtInt(weights.length)}</span></h3>
      <ul class="io-list">${weights.map((r) => `<li>${valueLink(r.name)} ${typeLine(r)} <span class="w-bytes">${r.bytes !== null ? `${fmtBytes(r.bytes)} <span class="muted">(${fmtInt(r.bytes)} bytes)</span>` : '<span class="muted">size unknown</span>'}</span></li>`).join('')}</ul>
      <p class="d-size" id="n-weight-total">${fmtBytes(total)}${known.length < weights.length ? ' <span class="muted">(of the weights whose size is known)</span>' : ''}</p></section>`;
  }
  const reqs = (state.result.constraints?.requirements || []).filter((q) => q.nodeIndex === index && (q.path || '') === path);
  if (reqs.length) {
    html += `<section class="d-sec" id="n-requirements"><h3>What it needs of the sizes</h3><ul class="constraint-list">${reqs.map((q) =>
      constraintHTML(q.lhs, q.rhs, q.relation === '==' ? '=' : '<=', state.effective).replace(/<\/li>$/, `<span class="req-why">${esc(q.message)}</span></li>`)).join('')}</ul></section>`;
  }
  const diags = (state.result.diagnostics || []).filter((d) => d.nodeIndex === index && (d.path || '') === path);
  if (diags.length) {
    html += `<section class="d-sec"><h3>Diagnostics</h3><ul class="diag-list">${diags.map((d) => `<li class="diag ${DIAG_LEVEL[d.code] || 'warn'}"><span class="badge ${DIAG_LEVEL[d.code] || 'warn'}">${esc(d.code)}</span><p>${esc(d.message)}</p></li>`).join('')}</ul></section>`;
  }
  return html;
}

/** The attributes section alone (filled in when the worker answers). */
export function nodeAttributesHTML(path, index, attributes) {
  const node = nodeAt(path, index);
  const io = ioAt(path, index);
  return node && io ? attributesHTML(node, io, path, index, attributes) : '';
}
