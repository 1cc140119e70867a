// The model's cost on the page (README "Cost"): MACs, FLOPs, parameters, weight bytes and the
// activation peak at the current bindings, a bar chart of MACs by op type, the live activation
// bytes over the schedule, and each node's MACs (the table's MACs column, the graph's boxes, the
// node panel). The worker infers with { cost: true }, keeps the cost model and counts it at the
// page's bindings when asked (worker.js costAt, on js/cost.js): this thread only draws. The counts
// are symbolic (expressions of the model's sizes) until every size they use is bound; at sizes the
// model refuses (state.refused) nothing is priced.
import { siNumber, withUnit } from '../../js/cli_cost.js';
import { $, esc, fmtInt, fmtBytes, exprHTML } from './page_util.js';
import { state } from './page_data.js';
import { ask } from './worker_client.js';

const isCount = (v) => typeof v === 'number' || typeof v === 'bigint';

/** Bytes as the rest of the page shows them (KiB, MiB: binary); an expression as it is. */
const bytesText = (v) => (isCount(v) ? fmtBytes(Number(v)) : v === null || v === undefined ? '?' : String(v));

/** "1.814 G" for a table cell; an expression or '' (not counted) otherwise. */
export function countShort(v) {
  if (!isCount(v)) return v ?? '';
  const [n, prefix] = siNumber(v);
  return prefix ? `${n} ${prefix}` : n;
}

/**
 * A new model: `enabled` when the worker has its cost model. Until the worker answers, the card
 * says it is counting. state.cost = { symbolic, at, asked } (the answers of costAt without
 * bindings and at the current ones; the number of the latest question).
 */
export function resetCost(enabled) {
  state.cost = enabled ? { symbolic: null, at: null, asked: 0 } : null;
}

/**
 * Asks the worker for the cost at the current bindings (and, first, without them), then calls
 * onChange() to draw it; a newer question makes an older answer void. At sizes the page refuses,
 * nothing is asked. Resolves when drawn (or void).
 */
export async function requestCost(onChange) {
  const c = state.cost;
  if (!c) return;
  const asked = ++c.asked;
  if (state.refused.length) {
    c.at = { refused: 'refused' };
    $('cost-card').removeAttribute('data-pending');
    onChange();
    return;
  }
  const bindings = state.env.size ? new Map(state.env) : null;
  $('cost-card').dataset.pending = 'true';
  try {
    if (!c.symbolic) {
      const symbolic = (await ask({ type: 'cost', model: state.modelId, bindings: null })).cost;
      if (state.cost !== c) return;
      c.symbolic = symbolic;
    }
    const at = bindings ? (await ask({ type: 'cost', model: state.modelId, bindings })).cost : c.symbolic;
    if (state.cost !== c || asked !== c.asked) return;
    c.at = at;
  } catch (err) {
    if (state.cost !== c || asked !== c.asked) return;
    c.at = { refused: err?.message ?? String(err) };
  }
  $('cost-card').removeAttribute('data-pending');
  onChange();
}

const priced = () => state.cost?.at && !state.cost.at.refused && !state.refused.length;

/** The MACs of node `index` of the model's graph at the current bindings: a count, an expression, or null. */
export function nodeMacs(index) {
  return priced() ? state.cost.at.nodes.macs[index] ?? null : null;
}

/** The cost section of a node's panel ('' when there is none: a body's node, no cost model). */
export function nodeCostHTML(path, index) {
  const c = state.cost;
  const s = c?.symbolic?.nodes;
  if (path !== '' || !s || index >= s.macs.length) return '';
  if (!priced()) return '<section class="d-sec" id="n-cost"><h3>Cost</h3><p class="muted">Not priced: the model cannot run at these sizes.</p></section>';
  const v = c.at.nodes;
  const row = (label, key, fmt) => {
    const x = v[key][index];
    const sym = s[key][index];
    const symbolic = !isCount(sym) && sym !== null && isCount(x) ? ` <span class="muted">= <code class="expr-line">${exprHTML(String(sym))}</code></span>` : '';
    const shown = x === null || x === undefined ? '<span class="muted">not counted</span>' : isCount(x) ? esc(fmt(x)) : `<code class="expr-line">${exprHTML(String(x))}</code>`;
    return `<dt>${label}</dt><dd data-cost="${label}">${shown}${symbolic}</dd>`;
  };
  return `<section class="d-sec" id="n-cost"><h3>Cost</h3><dl class="facts">${
    row('MACs', 'macs', (x) => withUnit(x, 'MACs'))}${
    row('FLOPs', 'flops', (x) => withUnit(x, 'FLOPs'))}${
    row('Weights', 'weightBytes', bytesText)}${
    row('Outputs', 'outputBytes', bytesText)}</dl>${
    s.macs[index] === null ? `<p class="hint">${esc(uncountedReason(state.result.nodes[index]?.opType))}</p>` : ''}</section>`;
}

function uncountedReason(opType) {
  const u = state.cost?.symbolic?.uncounted.find((x) => x.opType === opType);
  return u ? `Not counted: ${u.reason}.` : 'Not counted.';
}

// Section - The cost card

/** The cost card: totals, MACs by op type, activation memory over the schedule. */
export function renderCost() {
  const card = $('cost-card');
  const c = state.cost;
  card.hidden = !c;
  if (!c) return;
  const box = $('cost');
  if (!c.at && !state.refused.length) {
    box.innerHTML = '<p class="hint" id="cost-pending">Counting…</p>';
    return;
  }
  if (!priced()) {
    box.innerHTML = `<p class="hint" id="cost-refused">No cost figures: the model cannot run at these sizes (see Symbols &amp; sizes).</p>`;
    return;
  }
  const t = c.at.total;
  const bound = state.env.size > 0;
  const unboundNote = !bound && ![t.macs, t.activationPeakBytes].every(isCount)
    ? '<p class="hint">Counts in the model\'s sizes: give them values (Symbols &amp; sizes) for numbers, the chart and the memory plot.</p>' : '';
  const peakNode = c.at.peakStep !== null ? c.at.steps.node[c.at.peakStep] : null;
  const peakName = peakNode !== null ? state.result.nodes[peakNode]?.name || state.result.nodes[peakNode]?.opType || `node ${peakNode}` : '';
  // An expression takes the card's width.
  const fig = (id, label, v, fmt, extra = '') => `<div${typeof v === 'string' ? ' class="wide"' : ''}><dt>${label}</dt><dd id="${id}" data-count="${esc(String(v))}">${isCount(v) ? esc(fmt(v)) : v === null ? '<span class="muted">?</span>' : `<code class="expr-line">${exprHTML(String(v))}</code>`}${extra}</dd></div>`;
  box.innerHTML = `<dl class="mem cost-totals">
      ${fig('cost-macs', 'MACs', t.macs, (v) => withUnit(v, 'MACs'))}
      ${fig('cost-flops', 'FLOPs', t.flops, (v) => withUnit(v, 'FLOPs'))}
      ${fig('cost-params', 'Parameters', t.params, (v) => withUnit(v, ' params'))}
      ${fig('cost-weights', 'Weights', t.weightBytes, bytesText)}
      ${fig('cost-peak', 'Activation peak', t.activationPeakBytes, bytesText,
        peakNode !== null && isCount(t.activationPeakBytes) ? `<button type="button" class="link small" data-open-node="${peakNode}" data-open-node-path="" title="The live activations are largest after this node">at ${esc(peakName)}</button>` : '')}
    </dl>${unboundNote}${t.uncountedNodes ? `<p class="hint" id="cost-uncounted">${fmtInt(t.uncountedNodes)} node${t.uncountedNodes === 1 ? '' : 's'} not counted: ${c.at.uncounted.slice(0, 6).map((u) => `${esc(u.opType)} ${fmtInt(u.nodes)}`).join(', ')}${c.at.uncounted.length > 6 ? ', …' : ''}.</p>` : ''}
    ${opChartHTML(c.at.byOpType)}
    ${memoryPlotHTML(c.at)}`;
}

const zero = (v) => v === 0 || v === '0';
const opFilter = (op) => `op:${esc(op.slice(op.lastIndexOf(':') + 1))}`; // the table filters by op type alone

/**
 * MACs by op type, largest first (FLOPs when the model has no MACs: an If/Loop of reductions):
 * SVG bars, a click filters the table by that op. While a count is an expression, a list.
 */
function opChartHTML(byOpType) {
  const entries = Object.entries(byOpType);
  const metric = entries.some(([, g]) => g.macs !== null && !zero(g.macs)) ? 'macs' : 'flops';
  const unit = metric === 'macs' ? 'MACs' : 'FLOPs';
  // Op types that count none (elementwise ops for MACs, data movement) have no bar.
  const all = entries.filter(([, g]) => g[metric] !== null && !zero(g[metric]));
  if (!all.length) return '';
  const title = `<h3 class="sub-title" id="cost-chart-title">${unit} by op type</h3>`;
  const known = all.filter(([, g]) => isCount(g[metric]));
  if (known.length < all.length) {
    const rows = all.slice(0, 12).map(([op, g]) => `<li><button type="button" class="link mono small" data-filter="${opFilter(op)}">${esc(op)}</button> <span class="muted">${fmtInt(g.nodes)}</span> <code class="expr-line">${isCount(g[metric]) ? esc(withUnit(g[metric], unit)) : exprHTML(String(g[metric]))}</code></li>`);
    return `${title}<ul class="cost-ops" id="cost-ops">${rows.join('')}</ul>`;
  }
  const big = (g) => BigInt(g[metric]);
  known.sort((a, b) => (big(b[1]) > big(a[1]) ? 1 : big(b[1]) < big(a[1]) ? -1 : a[0] < b[0] ? -1 : 1));
  const shown = known.slice(0, 10);
  const rest = known.slice(10);
  const max = Math.max(1, Number(shown[0][1][metric]));
  const ROW = 18, LABEL = 96, W = 300, BAR = W - LABEL - 70;
  const bars = shown.map(([op, g], k) => {
    const v = g[metric];
    const w = Math.max(1, Math.round((BAR * Number(v)) / max));
    const y = k * ROW;
    const label = op.length > 13 ? `${op.slice(0, 12)}…` : op;
    return `<g class="cost-bar" data-filter="${opFilter(op)}" data-op="${esc(op)}" data-count="${String(v)}"><title>${esc(op)}: ${fmtInt(g.nodes)} node${g.nodes === 1 ? '' : 's'}, ${esc(withUnit(g.macs, 'MACs'))}, ${esc(withUnit(g.flops, 'FLOPs'))}</title>
      <text x="${LABEL - 6}" y="${y + 13}" text-anchor="end">${esc(label)}</text>
      <rect x="${LABEL}" y="${y + 3}" width="${w}" height="${ROW - 6}" rx="2"></rect>
      <text x="${LABEL + w + 4}" y="${y + 13}" class="cost-bar-value">${esc(countShort(v))}</text></g>`;
  });
  const restSum = rest.reduce((sum, [, g]) => sum + big(g), 0n);
  return `${title}
    <svg class="cost-chart" id="cost-chart" data-metric="${metric}" viewBox="0 0 ${W} ${shown.length * ROW}" width="100%" role="img" aria-label="${unit} by op type">${bars.join('')}</svg>${
    rest.length ? `<p class="hint">and ${fmtInt(rest.length)} more op type${rest.length === 1 ? '' : 's'} (${esc(withUnit(restSum <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(restSum) : restSum, unit))}).</p>` : ''}`;
}

/**
 * Live activation bytes over the schedule (the engine's topological order): a step line, the peak
 * marked; a step whose live size is not known at these sizes leaves a gap.
 */
function memoryPlotHTML(at) {
  const live = at.steps.liveBytes;
  const n = live.length;
  if (!n) return '';
  let max = 0;
  let known = 0;
  for (const b of live) if (isCount(b)) { known++; max = Math.max(max, Number(b)); }
  if (!known) return '<h3 class="sub-title">Activation memory over the schedule</h3><p class="hint" id="cost-memory-none">Give the sizes values to see it.</p>';
  max = max || 1;
  const W = 300, H = 90, TOP = 6;
  const x = (k) => (n === 1 ? W / 2 : (W * k) / (n - 1));
  const y = (v) => TOP + (H - TOP) * (1 - Number(v) / max);
  // One path, split where a step is unknown; at most ~2 points per pixel column are kept.
  const stride = Math.max(1, Math.floor(n / (2 * W)));
  let d = '';
  let pen = false;
  for (let k = 0; k < n; k += stride) {
    // The largest of the stride's steps, so that the peak is never skipped.
    let v = null;
    let unknown = false;
    for (let j = k; j < Math.min(n, k + stride); j++) {
      const b = live[j];
      if (!isCount(b)) unknown = true;
      else if (v === null || Number(b) > v) v = Number(b);
    }
    if (unknown || v === null) { pen = false; continue; }
    d += `${pen ? 'L' : 'M'}${x(k).toFixed(1)},${y(v).toFixed(1)}`;
    pen = true;
  }
  const p = at.peakStep;
  const peakNode = p !== null ? state.result.nodes[at.steps.node[p]] : null;
  const peak = p !== null ? `<circle class="cost-peak" cx="${x(p).toFixed(1)}" cy="${y(live[p]).toFixed(1)}" r="3.5"><title>peak ${esc(bytesText(at.peakBytes))} after ${esc(peakNode?.name || peakNode?.opType || '')} (step ${p + 1} of ${n})</title></circle>` : '';
  const gaps = n - known;
  return `<h3 class="sub-title">Activation memory over the schedule</h3>
    <svg class="cost-memory" id="cost-memory" viewBox="0 0 ${W} ${H}" width="100%" role="img" aria-label="Live activation bytes at each step of the schedule" data-steps="${n}" data-peak-step="${p ?? ''}">
      <line x1="0" y1="${H}" x2="${W}" y2="${H}" class="axis"></line><path d="${d}"></path>${peak}</svg>
    <p class="hint">${fmtInt(n)} steps (the nodes in the engine's order); the peak, ${esc(bytesText(at.peakBytes))}, is the largest sum of the values alive at once${gaps ? `; ${fmtInt(gaps)} steps unknown at these sizes` : ''}. Click the plot for the node at that step.</p>`;
}

/** The node index at the plot's x position (a click on the memory plot), or null. */
export function stepAt(svg, clientX) {
  const nodes = priced() ? state.cost.at.steps.node : null;
  if (!nodes?.length) return null;
  const box = svg.getBoundingClientRect();
  const k = Math.round(((clientX - box.left) / Math.max(1, box.width)) * (nodes.length - 1));
  return nodes[Math.max(0, Math.min(nodes.length - 1, k))];
}

// Section - Graph notes

/** A node's note in the graph: its MACs, else its FLOPs (an elementwise op), at the bindings. */
function nodeNote(index) {
  if (!priced()) return '';
  const { macs, flops } = state.cost.at.nodes;
  const m = macs[index], f = flops[index];
  if (isCount(m) && m) return withUnit(m, 'MACs');
  if (isCount(f) && f) return withUnit(f, 'FLOPs');
  if (typeof m === 'string') return `${shorten(m)} MACs`;
  return '';
}

/**
 * The graph view's notes (graph_view.js setNotes): a box's MACs, a group's total, at the current
 * bindings, for the model's graph (a body's nodes are not in the cost model); '' until the cost
 * is counted.
 */
export function graphNotes() {
  return {
    node: ({ path, index }) => (path === '' ? nodeNote(index) : ''),
    group: ({ path, members }) => {
      if (path !== '' || !priced()) return '';
      const macs = state.cost.at.nodes.macs;
      let sum = 0n;
      for (const k of members) {
        const v = macs[k] ?? null;
        if (v === null) continue;
        if (!isCount(v)) return ''; // symbolic: a sum of expressions is too long for a box
        sum += BigInt(v);
      }
      return sum ? withUnit(sum <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(sum) : sum, 'MACs') : '';
    },
  };
}

const shorten = (s) => (s.length > 22 ? `${s.slice(0, 21)}…` : s);
