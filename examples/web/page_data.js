// The demo page's state (the model on screen, its rows, bindings, view) and what is read from it:
// node inputs and outputs, readers of a value, the first broken node, shapes as HTML.
import { printSymbol, symbolsOf } from '../../js/expr.js';
import { oneOfParts } from '../../js/bindings.js';
import { esc, hue, exprHTML, sideValue } from './page_util.js';

export const state = {
  fileName: '',
  fileSize: 0,
  result: null,        // plain result from the worker
  modelId: null,       // the worker's id of that result (its graph, attributes, write-back)
  model: null,         // model_scan.js output, or null
  info: null,
  rows: [],            // all rows
  view: [],            // filtered + sorted row indices
  sort: { key: 'order', dir: 1 },
  filter: '',
  env: new Map(),      // user bindings
  derived: new Map(),  // bindings derived from equality constraints
  effective: new Map(),
  refused: [],         // why the model cannot run at these sizes (sizes.js); then no size is shown
  refusedMore: 0,      // refused relations the worker did not send (it sends the first 200)
  refusedSymbols: new Set(), // the symbols of every refused relation (their fields are marked)
  sizes: null,         // the worker's sizes at the bindings (sizes_at.js), read by concreteOf
  mode: 'symbolic',
  tab: 'table',        // 'table' | 'graph'
  broken: null,        // brokenNode() of the model on screen
  active: -1,          // index into state.view
  detail: null,        // name shown in the detail panel ("why this shape")
  detailNode: null,    // {path, index} of the node shown in the detail panel instead
  symbols: [],         // [{name, uses, source, dataDependent}]
  eventLog: 'pending',  // the worker's event log of the model on screen: 'pending' (being recorded), 'ready' or 'none'
  whyEvents: new Map(), // value key -> what the worker sent of the log for its panel (why.js), or 'asked'
  cost: null,          // cost_panel.js: the cost model and its counts at the bindings, or null
  bindingsDone: 0,     // how many bindings are on screen (the benchmarks wait for the next)
};

export const ROW_H = 38;

export const OVERSCAN = 8;

/** Node k's {inputs, outputs} (value keys, '' for an omitted one) of the model's graph. */
export const nodeIO = (k) => ioAt('', k);

/**
 * The {inputs, outputs} of node k of graph `path` ('' or a subgraph path), or null: value keys,
 * '' for an omitted one (the worker's ioNames/ioStart, worker.js compactNodes).
 */
export function ioAt(path, k) {
  const g = path === '' ? state.result : state.result.subgraphs?.[path];
  const at = g?.ioStart;
  if (!at || !(k >= 0 && 2 * k + 2 < at.length)) return null;
  return { inputs: g.ioNames.slice(at[2 * k], at[2 * k + 1]), outputs: g.ioNames.slice(at[2 * k + 1], at[2 * k + 2]) };
}

/** Every node that reads value `key`: [{path, index}], indexed once per model. */
export function consumersOf(key) {
  if (!state.consumers) {
    const idx = new Map();
    const add = (path, g) => {
      const at = g.ioStart ?? [0];
      for (let k = 0; 2 * k + 2 < at.length; k++) {
        for (let i = at[2 * k]; i < at[2 * k + 1]; i++) {
          const v = g.ioNames[i];
          if (!v) continue;
          const l = idx.get(v);
          const ref = { path, index: k };
          if (!l) idx.set(v, [ref]);
          else if (l[l.length - 1].index !== k || l[l.length - 1].path !== path) l.push(ref);
        }
      }
    };
    add('', state.result);
    for (const [path, g] of Object.entries(state.result.subgraphs || {})) add(path, g);
    state.consumers = idx;
  }
  return state.consumers.get(key) ?? [];
}

export function typeText(t) {
  if (!t) return '?';
  switch (t.kind) {
    case 'tensor': return t.elemType ?? '?';
    case 'sequence': return `seq<${typeText(t.elem)}>`;
    case 'optional': return `opt<${typeText(t.elem)}>`;
    case 'map': return `map<${t.keyType},${typeText(t.value)}>`;
    default: return t.kind ?? '?';
  }
}

/** The tensor inside a sequence/optional, for display of a shape. */
export function innerTensor(t) {
  while (t && (t.kind === 'sequence' || t.kind === 'optional')) t = t.elem;
  return t && t.kind === 'tensor' ? t : null;
}

/**
 * The first broken node: result.firstError when the engine gives it, else the first diagnostic
 * saying that a node's inputs contradict its rule. {path, nodeIndex, node, opType, code, message}.
 */
export function brokenNode() {
  const r = state.result;
  if (!r) return null;
  const d = r.firstError ?? (r.diagnostics || []).find((x) => (x.code === 'SHAPE_MISMATCH' || x.code === 'INVALID_MODEL') && x.nodeIndex >= 0);
  return d && d.nodeIndex >= 0 ? { ...d, path: d.path ?? '' } : null;
}

export function memoryFigures() {
  let total = 0;
  let weights = 0;
  let largest = null;
  let unknown = 0;
  for (const r of state.rows) {
    if (r.kind === 'weight') {
      if (r.bytes !== null) weights += r.bytes;
      continue;
    }
    if (r.kind === 'inner') continue; // lives inside a subgraph run, not in the top-level graph
    if (r.bytes === null) { if (r.tensor) unknown++; continue; }
    total += r.bytes;
    if (!largest || r.bytes > largest.bytes) largest = r;
  }
  return { total, weights, largest, unknown };
}

export const shapeCache = new Map();

/**
 * Row r's dims at the current sizes (a number, a BigInt past 2^53, or null for each), read from
 * the worker's answer once per row type; null before it answers.
 */
export function concreteOf(r) {
  const s = state.sizes;
  const k = r.typeIndex;
  if (!s || !(k < s.typeCount)) return null;
  let c = s.concrete[k];
  if (!c) {
    c = [];
    for (let at = s.dimStart[k]; at < s.dimStart[k + 1]; at++) {
      const v = s.dims[at];
      c.push(Number.isNaN(v) ? null : s.big.get(at) ?? v);
    }
    s.concrete[k] = c;
  }
  return c;
}

export function shapeHTML(r) {
  if (!r.tensor) return `<span class="muted">${esc(r.type?.kind ?? 'unknown')}</span>`;
  const concrete = state.mode === 'concrete' ? concreteOf(r) : null;
  const key = (concrete ? 'c' : 's') + r.shapeKey + (concrete ? concrete.join(',') : '');
  let html = shapeCache.get(key);
  if (html !== undefined) return html;
  const dims = r.dims;
  if (!dims) html = '<span class="dim unk" title="rank unknown">unknown rank</span>';
  else if (dims.length === 0) html = '<span class="scalar">scalar</span>';
  else {
    html = '<span class="shape">';
    for (let k = 0; k < dims.length; k++) {
      const d = dims[k];
      if (k) html += '<span class="x" aria-hidden="true">×</span><span class="visually-hidden">, </span>';
      if (d === null) { html += '<span class="dim unk" title="unknown dim">?</span>'; continue; }
      if (typeof d === 'number') { html += `<span class="dim">${d}</span>`; continue; }
      const syms = symbolsOf(d);
      const h = syms.length ? hue(syms[0]) : 0;
      const v = concrete ? concrete[k] : null;
      if (v !== null && v !== undefined) {
        html += `<span class="dim symd bound" style="--h:${h}" title="${esc(d)} = ${v}">${v}</span>`;
      } else if (syms.length === 1 && d === printSymbol(syms[0])) {
        html += `<span class="dim symd" style="--h:${h}">${esc(d)}</span>`;
      } else {
        html += `<span class="dim symd expr" style="--h:${h}">${exprHTML(d)}</span>`;
      }
    }
    html += '</span>';
  }
  shapeCache.set(key, html);
  return html;
}

/** The shape as plain text, for titles: [batch, (H+1)//2, 4]. */
export function shapeText(r) {
  if (!r.tensor) return r.type?.kind ?? 'unknown';
  if (!r.dims) return 'unknown rank';
  const concrete = state.mode === 'concrete' ? concreteOf(r) : null;
  return `[${r.dims.map((d, k) => (concrete && concrete[k] !== null ? concrete[k] : d ?? '?')).join(', ')}]`;
}

export const KIND_SHORT = { input: 'in', output: 'out', weight: 'w', activation: '', inner: 'sub' };

export const KIND_LABEL = { input: 'graph input', output: 'graph output', weight: 'initializer (weight)', activation: 'intermediate value', inner: 'value inside a subgraph' };

/** Whether row r is read or written by the first broken node (its rows are marked red). */
export function isBroken(r) {
  const b = state.broken;
  if (!b) return false;
  b.keys ??= new Set(Object.values(ioAt(b.path, b.nodeIndex) ?? {}).flat().filter(Boolean));
  return b.keys.has(r.name);
}

export const DIAG_LEVEL = { ANCHOR_CONFLICT: 'error', SHAPE_MISMATCH: 'error', INVALID_MODEL: 'error', UNSUPPORTED_OP: 'warn', OPSET_MISMATCH: 'warn', MISSING_OPSET: 'warn', DATA_DEPENDENT: 'info' };

/** Node `index` of graph `path` ('' or a subgraph path): {name, opType, domain}, or null. */
export function nodeAt(path, index) {
  const r = state.result;
  const nodes = path === '' ? r.nodes : r.subgraphs?.[path]?.nodes;
  return nodes && index >= 0 && index < nodes.length ? nodes[index] : null;
}

/**
 * A relation as people write it (js/bindings.js relationText, as the CLI prints it): `a = b`,
 * `a ≤ b`, and a requirement that a size broadcasts to another, `Broadcast(T,16) = 16`, as
 * `T = 1 or T = 16` (`total_seq = past_seq+seq or total_seq = 1` against a size). `rel`: '=' or '<='.
 */
export function relationHTML(a, b, rel) {
  const eq = (x, y) => `<code class="expr-line">${exprHTML(x)} <span class="rel">=</span> ${exprHTML(y)}</code>`;
  const choice = rel === '=' && typeof a === 'string' && typeof b === 'string' ? oneOfParts(a, '==', b) : null;
  if (choice) {
    const { x, y } = choice;
    const [first, second] = /^[0-9]+$/.test(y) ? [eq(x, '1'), eq(x, y)] : [eq(x, y), eq(x, '1')];
    return `<span class="rel-choice">${first} <span class="rel-or">or</span> ${second}</span>`;
  }
  return `<code class="expr-line">${exprHTML(a)} <span class="rel">${rel === '=' ? '=' : '≤'}</span> ${exprHTML(b)}</code>`;
}

/** A relation (relationHTML) as a list item, checked at the sizes `env` when both sides have one. */
export function constraintHTML(a, b, rel, env) {
  let check = '';
  const choice = rel === '=' && typeof a === 'string' && typeof b === 'string' ? oneOfParts(a, '==', b) : null;
  if (env.size) {
    // x = 1 or x = y: the sizes of x and y (the Broadcast itself has none when they differ).
    const va = sideValue(choice ? choice.x : a, env);
    const vb = sideValue(choice ? choice.y : b, env);
    if (va !== null && vb !== null && Number.isFinite(va) && Number.isFinite(vb)) {
      const ok = choice ? va === 1 || va === vb : rel === '=' ? va === vb : va <= vb;
      const holds = choice ? `${choice.x} = ${va}` : `${va} ${rel === '=' ? '=' : '≤'} ${vb}`;
      const broken = choice ? `${va} vs 1 or ${vb}` : `${va} vs ${vb}`;
      check = ok ? `<span class="check ok" title="${esc(holds)}" aria-label="holds">✓</span>`
        : `<span class="check bad" title="${esc(broken)}" aria-label="violated">✗ ${broken}</span>`;
    }
  }
  return `<li>${relationHTML(a, b, rel)}${check}</li>`;
}

export function valueLink(name) {
  const r = state.byName.get(name);
  if (!r) return `<span class="mono muted">${esc(name || '(none)')}</span>`;
  return `<button type="button" class="link mono" data-goto="${esc(name)}">${esc(name)}</button>`;
}

export function typeLine(r) {
  return `<span class="etype">${esc(r.elem)}</span> ${shapeHTML(r)}`;
}
