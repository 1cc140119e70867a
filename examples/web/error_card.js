// What the page says when something fails: the error card (what happened, what to do) and short
// toasts that do not disturb the model on screen.
import { $, esc } from './page_util.js';
import { state } from './page_data.js';

const ERROR_HINTS = {
  PARSE_ERROR: 'The file is not a serialized ONNX ModelProto. Is it really an .onnx file (and not, say, an .ort or a zip)?',
  INVALID_MODEL: 'The model is structurally invalid: no graph, or a field of the wrong kind.',
  MISSING_INPUT: 'A node reads a value that no node, graph input or initializer defines.',
  DUPLICATE_DEFINITION: 'A value is defined twice (two nodes write it, or a node output shadows an input).',
  CYCLE: 'The nodes do not form a DAG: the node named is on or after a cycle.',
  LIMIT_EXCEEDED: 'A documented limit was hit (rank 64, subgraph depth, memory per run…).',
  ANCHOR_CONFLICT: 'A declared shape contradicts what the operators imply.',
  NOMEM: 'The WebAssembly heap could not grow enough for this model.',
  LOAD: 'The WebAssembly engine could not be loaded. Serve the repository root over HTTP (node examples/web/serve.mjs) or use the single-file build.',
};

export function showError(err, fileName) {
  const card = $('error-card');
  const code = err?.code || err?.name || 'ERROR';
  card.innerHTML = `
    <div class="error-icon" aria-hidden="true">!</div>
    <div>
      <h2>${fileName ? `${esc(fileName)} could not be analysed` : 'Something went wrong'}</h2>
      <p class="error-meta"><span class="badge error">${esc(code)}</span>${err?.node ? ` at node <code>${esc(err.node)}</code>` : ''}</p>
      <p class="error-message">${esc(err?.message || String(err))}</p>
      ${ERROR_HINTS[code] ? `<p class="hint">${esc(ERROR_HINTS[code])}</p>` : ''}
      <p class="hint">${state.result ? `The model on screen is still ${esc(state.fileName)}.` : 'Try another file, or one of the bundled examples above.'}</p>
    </div>
    <button type="button" class="btn icon ghost error-close" data-dismiss aria-label="Dismiss">
      <svg viewBox="0 0 20 20" aria-hidden="true"><path d="m5 5 10 10M15 5 5 15"/></svg>
    </button>`;
  card.hidden = false;
  document.body.dataset.state = 'error';
  // A model on screen stays there (the error is about another file); otherwise the page goes
  // back to its start: the error on top, the drop zone and examples below.
  if (state.result) return;
  state.result = null;
  state.detail = null;
  $('workspace').hidden = true;
  $('detail').hidden = true;
  $('download').hidden = true;
  $('welcome').hidden = false;
  $('model-title').textContent = 'symbolic shape inference, in your browser';
  document.title = 'onnx-shapes · symbolic shapes of an ONNX model';
  delete document.body.dataset.model;
}

/** Closes the error card; with a model on screen the page is ready again. */
export function dismissError() {
  $('error-card').hidden = true;
  if (state.result) document.body.dataset.state = 'ready';
}

let toastTimer = 0;
/** A short message that does not disturb the page (e.g. a failed download). */
export function toast(html, { error = false } = {}) {
  const t = $('toast');
  t.innerHTML = html;
  t.classList.toggle('error', error);
  t.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => { t.hidden = true; }, 6000);
}

