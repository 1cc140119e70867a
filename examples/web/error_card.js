// What the page says when something fails: the error card (what happened, in a title; the
// engine's or the server's own words; what to do), a card to choose among several models given
// at once, and short toasts that do not disturb the model on screen.
import { $, esc } from './page_util.js';
import { state } from './page_data.js';

const ENGINE_HINTS = {
  INVALID_MODEL: 'The model is structurally invalid: no graph, or a field of the wrong kind. Export it again, or check it with onnx.checker.',
  MISSING_INPUT: 'A node reads a value that no node, graph input or initializer defines: the model is incomplete.',
  DUPLICATE_DEFINITION: 'A value is defined twice (two nodes write it, or a node output shadows an input): the model is malformed.',
  CYCLE: 'The nodes do not form a DAG: the node named is on or after a cycle.',
  LIMIT_EXCEEDED: 'A documented limit was hit (rank 64, subgraph depth, memory per run…).',
  ANCHOR_CONFLICT: 'A declared shape contradicts what the operators imply.',
  NOMEM: 'The WebAssembly heap could not grow enough for this model. Close other tabs, or use the command line (npx onnx-shapes MODEL.onnx).',
  LOAD: 'Serve the repository root over HTTP (node examples/web/serve.mjs) or use the single-file build (npm run build:web).',
};

/**
 * What a failure means for someone who opened `name` (`size`: its bytes, when known): { title,
 * todo } (todo: what to do about it). The message itself (the engine's or the server's words) is
 * shown as well.
 */
export function explainError(err, name, size = null) {
  const code = err?.code || err?.name || 'ERROR';
  const msg = String(err?.message ?? err ?? '');
  const what = name ? esc(name) : 'The model';
  // An empty file decodes as a model without a graph: say what it is.
  if (size === 0 && (code === 'INVALID_MODEL' || code === 'PARSE_ERROR')) {
    return { title: `${what} is empty`, todo: 'The file has no bytes: an interrupted download or copy, or not the file you meant? Get the whole file again.' };
  }
  // A model's first field is its ir_version (a number): a file whose very first field claims more
  // bytes than the file has is not a model's beginning (text, another format), not a cut model.
  if (code === 'PARSE_ERROR' && /ends early|truncated/i.test(msg) && !/field at byte 0 declares/.test(msg)) {
    return { title: `${what} is truncated`, todo: 'The file ends before the model does: an interrupted download or copy? Get the whole file again.' };
  }
  if (code === 'PARSE_ERROR') {
    return { title: `${what} is not an ONNX model`, todo: 'Open an .onnx file (a serialized ONNX ModelProto); an .ort file, a zip, or a TensorFlow or PyTorch checkpoint is not one.' };
  }
  if (code === 'URL') return { title: `${what} is not a URL`, todo: 'Give an address such as https://example.com/model.onnx, or a path on this server.' };
  if (code === 'TIMEOUT' || /not read within \d+ ms|timed? ?out/i.test(msg)) {
    return { title: `${what} did not arrive in time`, todo: 'The server is too slow or stalled. Try again later, or download the file and open it here.' };
  }
  if (code === 'FETCH_ERROR' || code === 'FETCH') {
    const status = /\bHTTP (\d{3})\b/.exec(msg)?.[1];
    if (status === '404' || status === '410') return { title: `${what} was not found`, todo: `The server answered ${status === '404' ? '404 Not Found' : '410 Gone'}: check the address (its spelling, its case, the file's name).` };
    if (status === '401' || status === '403') return { title: `${what} needs permission`, todo: `The server answered ${status}: the file is private. Download it where you are signed in, and open it here.` };
    if (status && status[0] === '5') return { title: `${what} could not be read: the server failed`, todo: `It answered ${status}: try again later.` };
    if (status && status[0] === '4') return { title: `${what} was refused by the server`, todo: `It answered ${status}: check the address.` };
    if (/CORS|Access-Control|cross-origin/i.test(msg)) {
      return { title: `${what} could not be fetched from this page`, todo: 'The server may be down, or not let pages of other sites read its files: a browser needs it to send Access-Control-Allow-Origin. Download the file and open it here, or serve it with that header.' };
    }
    if (/changed while it was being read/i.test(msg)) return { title: `${what} changed while it was read`, todo: 'The file on the server was replaced during the download: open it again.' };
    return { title: `${what} could not be fetched`, todo: 'Check the address and your connection, or download the file and open it here.' };
  }
  if (code === 'LOAD') return { title: 'The engine could not start', todo: ENGINE_HINTS.LOAD };
  return { title: name ? `${what} could not be analysed` : 'Something went wrong', todo: ENGINE_HINTS[code] ?? '' };
}

const CLOSE = `<button type="button" class="btn icon ghost error-close" data-dismiss aria-label="Dismiss">
      <svg viewBox="0 0 20 20" aria-hidden="true"><path d="m5 5 10 10M15 5 5 15"/></svg>
    </button>`;

export function showError(err, fileName, size = null) {
  const card = $('error-card');
  const code = err?.code || err?.name || 'ERROR';
  const { title, todo } = explainError(err, fileName, size);
  // The welcome screen (drop zone, examples) is below the card; a model on screen stays.
  const after = state.result ? `The model on screen is still ${esc(state.fileName)}.` : 'Or try another file, or one of the bundled examples below.';
  card.className = 'error-card';
  card.innerHTML = `
    <div class="error-icon" aria-hidden="true">!</div>
    <div>
      <h2>${title}</h2>
      <p class="error-meta"><span class="badge error">${esc(code)}</span>${err?.node ? ` at node <code>${esc(err.node)}</code>` : ''}</p>
      <p class="error-message">${esc(err?.message || String(err))}</p>
      ${todo ? `<p class="error-todo"><strong>What to do:</strong> ${esc(todo)}</p>` : ''}
      <p class="hint">${after}</p>
    </div>
    ${CLOSE}`;
  card.hidden = false;
  document.body.dataset.state = 'error';
  // A model on screen stays there (the error is about another file); otherwise the page goes
  // back to its start: the error on top, the drop zone and examples below.
  if (state.result) return;
  state.result = null;
  state.detail = null;
  state.detailNode = null;
  $('workspace').hidden = true;
  $('detail').hidden = true;
  $('download').hidden = true;
  $('welcome').hidden = false;
  $('model-title').textContent = 'symbolic shape inference, in your browser';
  document.title = 'onnx-shapes · symbolic shapes of an ONNX model';
  delete document.body.dataset.model;
}

/**
 * Several models given at once (two .onnx files chosen or dropped together): which one to open.
 * `pick(file)` opens it; the other files given stay its companions (external data).
 */
export function showModelChoice(models, others, pick) {
  const card = $('error-card');
  card.className = 'error-card choice';
  card.innerHTML = `
    <div class="error-icon" aria-hidden="true">?</div>
    <div>
      <h2>${models.length} models were given at once</h2>
      <p>Which one should be opened?${others.length ? ` The other ${others.length === 1 ? 'file' : `${others.length} files`} (${others.map((f) => `<code>${esc(f.name)}</code>`).slice(0, 5).join(', ')}${others.length > 5 ? ', …' : ''}) ${others.length === 1 ? 'is' : 'are'} taken as its external data, which is not read.` : ''}</p>
      <p class="choice-list">${models.map((f, i) => `<button type="button" class="btn" data-choose-model="${i}">${esc(f.name)}</button>`).join(' ')}</p>
    </div>
    ${CLOSE}`;
  card.hidden = false;
  card.onclick = (e) => {
    const b = e.target.closest('[data-choose-model]');
    if (!b) return;
    card.onclick = null;
    card.hidden = true;
    pick(models[Number(b.dataset.chooseModel)]);
  };
  card.querySelector('[data-choose-model]').focus();
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
