// Puts a model on screen: the worker's result becomes the page's state and rows, the bindings
// start empty, and every panel, the table and the graph view are drawn for it.
import { $, fmtInt } from './page_util.js';
import { state, brokenNode } from './page_data.js';
import { parseResult, buildRows } from './model_rows.js';
import { recomputeBindings } from './sizes.js';
import { renderSummary, renderSymbols, renderDiagnostics, renderConstraints, renderDefinitions } from './panels.js';
import { applyView, setMode } from './table.js';
import { resetBindings } from './bindings.js';
import { graphView } from './graph_tab.js';
import { openDetail } from './detail.js';

/**
 * The event log of the model on screen, which the worker records after the result (a second
 * inference: the table does not wait for it). The summary and an open "Why this shape" panel are
 * drawn again with it; body[data-events=ready] says it is there.
 */
export function eventsArrived(msg) {
  if (msg.id !== state.eventsId) return; // a model no longer on screen
  state.eventsJson = msg.eventsJson;
  state.eventsPending = false;
  state.eventsByValue = null;
  if (state.info) {
    state.info.eventsMs = msg.ms;
    renderSummary();
  }
  if (state.detail !== null && !$('detail').hidden) openDetail(state.detail, { focus: false });
  document.body.dataset.events = 'ready';
}

export function showModel(msg, displayName, size) {
  const { result, model } = parseResult(msg);
  delete document.body.dataset.events;
  state.result = result;
  state.model = model;
  state.info = msg.info;
  state.fileName = displayName;
  state.fileSize = size;
  state.detail = null;
  state.active = -1;
  state.eventsByValue = null;
  state.consumers = null;
  buildRows();

  // Bindings belong to one model: a new model starts symbolic.
  resetBindings();
  state.filter = '';
  $('filter').value = '';
  state.sort = { key: 'order', dir: 1 };
  setMode('symbolic', false);
  recomputeBindings();

  $('welcome').hidden = true;
  $('error-card').hidden = true;
  $('workspace').hidden = false;
  $('detail').hidden = true;
  $('download').hidden = !msg.info.writeBack;
  $('model-title').textContent = `${displayName} · ${fmtInt(result.nodes.length)} nodes · ${fmtInt(state.rows.length)} values`;
  document.title = `${displayName} · onnx-shapes`;

  state.broken = brokenNode();
  renderSummary();
  renderSymbols();
  renderDiagnostics();
  renderConstraints();
  renderDefinitions();
  applyView();
  graphView.reset(result);
  if (state.tab === 'graph') graphView.show();
}
