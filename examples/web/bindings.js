// The "Symbols & sizes" inputs: the bindings text field and the per-symbol fields. A change
// recomputes the sizes (sizes.js) and redraws what shows them: symbols, memory, constraints,
// named sizes, the table and an open detail.
import { parseBindings, printSymbol } from '../../js/expr.js';
import { $ } from './page_util.js';
import { state } from './page_data.js';
import { recomputeBindings } from './sizes.js';
import { renderSymbols, renderMemory, renderConstraints, renderDefinitions, updateSymbolPlaceholders } from './panels.js';
import { applyView, setMode } from './table.js';
import { openDetail } from './detail.js';

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

export function bindingsChanged({ rerenderSymbols = true } = {}) {
  recomputeBindings();
  if (state.effective.size && state.mode !== 'concrete') setMode('concrete', false);
  if (!state.effective.size && state.mode !== 'symbolic') setMode('symbolic', false);
  if (rerenderSymbols) renderSymbols(); else { updateSymbolPlaceholders(); renderMemory(); }
  renderConstraints();
  renderDefinitions();
  if ($('bindings-text') !== document.activeElement) {
    $('bindings-text').value = [...state.env].map(([k, v]) => `${printSymbol(k)}=${v}`).join(', ');
  }
  applyView({ keepScroll: true });
  if (state.detail) openDetail(state.detail, { focus: false });
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
