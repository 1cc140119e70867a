// The "Symbols & sizes" inputs: the bindings text field and the per-symbol fields. A change asks
// the worker for the sizes (sizes.js) and then the cost at them (cost_panel.js), and once they
// are in redraws what shows them: symbols, memory, constraints, named sizes, cost, the table, the
// graph's notes and an open detail.
import { parseBindings, printSymbol } from '../../js/expr.js';
import { $, esc, exprHTML } from './page_util.js';
import { state, valueLink, relationHTML } from './page_data.js';
import { requestSizes } from './sizes.js';
import { renderSymbols, renderMemory, renderConstraints, renderDefinitions, updateSymbolPlaceholders } from './panels.js';
import { applyView, setMode, renderMacs } from './table.js';
import { refreshDetail } from './detail.js';
import { requestCost, renderCost } from './cost_panel.js';
import { refreshGraphNotes } from './graph_tab.js';

export function applyBindingsText(text) {
  const { map, errors } = parseBindings(text);
  for (const [k, v] of map) state.env.set(k, v);
  const unknown = [...map.keys()].filter((k) => !state.symbols.some((s) => s.name === k));
  const msgs = [];
  if (errors.length) msgs.push(`Ignored ${errors.join(', ')}.`);
  if (unknown.length) msgs.push(`Not a symbol of this model: ${unknown.join(', ')}.`);
  $('bindings-msg').textContent = msgs.join(' ');
  bindingsChanged();
}

let rerender = false; // a binding waiting for the worker's sizes re-renders the symbols' fields

/**
 * The bindings changed: the worker counts the sizes (the figures on screen stay until it answers),
 * then what shows them is redrawn. `rerenderSymbols: false` while a symbol's field is typed in
 * (its field keeps the focus).
 */
export function bindingsChanged({ rerenderSymbols = true } = {}) {
  rerender ||= rerenderSymbols;
  $('bindings-form').dataset.pending = 'true';
  requestSizes(sizesShown);
}

/** Draws what the sizes just put on the page's state change (sizes.js applySizes). */
export function sizesShown() {
  const rerenderSymbols = rerender;
  rerender = false;
  if (state.effective.size && state.mode !== 'concrete') setMode('concrete', false);
  if (!state.effective.size && state.mode !== 'symbolic') setMode('symbolic', false);
  if (rerenderSymbols) renderSymbols(); else { updateSymbolPlaceholders(); renderMemory(); }
  renderRefusal();
  renderConstraints();
  renderDefinitions();
  // The worker counts the cost at these sizes (the figures on screen stay until it answers).
  if (state.cost) requestCost(costChanged);
  if ($('bindings-text') !== document.activeElement) {
    $('bindings-text').value = [...state.env].map(([k, v]) => `${printSymbol(k)}=${v}`).join(', ');
  }
  applyView({ keepScroll: true });
  refreshDetail();
  delete $('bindings-form').dataset.pending;
  state.bindingsDone++;
}

/** Redraws what shows the cost once it is counted (the table's MACs, the graph's notes, a node panel). */
export function costChanged() {
  renderMacs();
  renderCost();
  refreshGraphNotes();
  if (state.detailNode) refreshDetail();
}

/** One reason the model refuses the sizes, as a list item naming the relation and its node. */
function issueHTML(q) {
  const rel = q.op === '==' || q.op === '<=' ? relationHTML(q.a, q.b, q.op === '==' ? '=' : '<=')
    : `<code class="expr-line">${exprHTML(q.a)} <span class="rel">${esc(q.op)}</span> ${exprHTML(q.b)}</code>`;
  const at = q.values ? ` <span class="check bad">at these sizes ${esc(q.values[0])} vs ${esc(q.values[1])}</span>` : '';
  if (q.kind === 'requirement') {
    const r = q.requirement;
    const node = `<button type="button" class="link mono" data-open-node="${r.nodeIndex}" data-open-node-path="${esc(r.path)}">${esc(r.node || `node ${r.nodeIndex}`)}</button>`;
    return `<li><span class="opname">${esc(r.opType)}</span> ${node}${r.path ? ` <span class="muted">in ${esc(r.path)}</span>` : ''} needs ${rel}${at}
      ${r.message ? `<span class="req-why">${esc(r.message)}</span>` : ''}</li>`;
  }
  if (q.kind === 'dim') return `<li>${valueLink(q.value)}: dim ${q.dim} <code class="expr-line">${exprHTML(q.a)}</code> <span class="check bad">${esc(q.why)}</span></li>`;
  const who = q.kind === 'label' ? 'A declared output label says' : q.kind === 'definition' ? 'The named size' : 'The model needs';
  return `<li>${who} ${rel}${at}${q.values ? '' : ` <span class="check bad">${esc(q.why)}</span>`}</li>`;
}

/**
 * Why the model cannot run at the sizes given, next to the inputs: each broken requirement with
 * its node, each broken relation; the fields of the symbols involved are marked invalid.
 */
export function renderRefusal() {
  const box = $('bindings-issues');
  const issues = state.refused;
  const involved = state.refusedSymbols;
  for (const input of document.querySelectorAll('#symbols input[data-sym]')) {
    const bad = involved.has(input.dataset.sym);
    input.classList.toggle('invalid', bad);
    if (bad) { input.setAttribute('aria-invalid', 'true'); input.setAttribute('aria-describedby', 'bindings-issues'); }
    else { input.removeAttribute('aria-invalid'); input.removeAttribute('aria-describedby'); }
  }
  $('bindings-text').toggleAttribute('aria-invalid', issues.length > 0);
  box.hidden = !issues.length;
  if (!issues.length) { box.innerHTML = ''; return; }
  // A dim that would be negative follows from a broken requirement when there is one: the
  // requirement says why; alone (no requirement covers it) it is shown.
  const relations = issues.filter((q) => q.kind !== 'dim');
  const shown = (relations.length ? relations : issues).slice(0, 5);
  const hidden = (relations.length ? relations.length + state.refusedMore : issues.length) - shown.length;
  box.innerHTML = `<p class="refused-title"><strong>The model cannot run at these sizes</strong>: no size that depends on them is shown until they change.</p>
    <ul class="refused-list">${shown.map(issueHTML).join('')}</ul>${hidden ? `<p class="hint">and ${hidden} more.</p>` : ''}`;
}

/** A new model starts symbolic: no bindings. */
export function resetBindings() {
  state.env.clear();
  $('bindings-text').value = '';
  $('bindings-msg').textContent = '';
}

export function wireBindings() {
  $('bindings-form').addEventListener('submit', (e) => {
    e.preventDefault();
    const text = $('bindings-text').value;
    state.env.clear();
    applyBindingsText(text);
  });
  $('bindings-clear').addEventListener('click', () => {
    state.env.clear();
    $('bindings-text').value = '';
    $('bindings-msg').textContent = '';
    bindingsChanged();
  });
  $('symbols').addEventListener('input', (e) => {
    const input = e.target.closest('input[data-sym]');
    if (!input) return;
    const v = input.value.trim();
    if (v === '') state.env.delete(input.dataset.sym);
    else if (/^\d+$/.test(v)) state.env.set(input.dataset.sym, Number(v));
    else return;
    bindingsChanged({ rerenderSymbols: false });
  });
}
