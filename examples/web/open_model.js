// Opening a model: files chosen or dropped (the model among its external data files), a URL (the
// worker fetches the graph with Range requests), a bundled example; the progress bar while the
// worker reads and infers, and the error card when it fails.
import { $, esc, now, fmtInt, fmtBytes } from './page_util.js';
import { state } from './page_data.js';
import { request, tell, whenReady } from './worker_client.js';
import { showError, showModelChoice, toast } from './error_card.js';
import { showModel } from './show_model.js';

function setProgress(label, fraction, cancellable = false) {
  const bar = $('progress');
  bar.hidden = false;
  $('progress-cancel').hidden = !cancellable;
  $('progress-label').textContent = label;
  const fill = $('progress-fill');
  if (fraction === null || fraction === undefined) {
    bar.classList.add('indeterminate');
    fill.style.width = '';
  } else {
    bar.classList.remove('indeterminate');
    fill.style.width = `${Math.round(Math.max(0, Math.min(1, fraction)) * 100)}%`;
  }
}
const hideProgress = () => { $('progress').hidden = true; };

/**
 * The models among files given at once, and the other files. A model saved with external data
 * comes as model.onnx plus its data files (model.onnx.data, or one file per tensor): inference
 * reads the graph only, so the others are named in a note. Files without a model's name: the
 * largest is taken as the model.
 */
function modelsAmong(files) {
  const list = [...files];
  let models = list.filter((f) => /\.(onnx|ort)$/i.test(f.name));
  if (!models.length) models = [list.reduce((a, b) => (b.size > a.size ? b : a), list[0])];
  return { models, others: list.filter((f) => !models.includes(f)) };
}

/**
 * Loads the model of a set of files, saying which files were not read; several models given at
 * once (two .onnx files): the page asks which one to open.
 */
export async function loadFiles(files) {
  if (!files.length) return;
  const { models, others } = modelsAmong(files);
  if (models.length > 1) {
    showModelChoice(models, others, (model) => loadSet(model, others));
    return;
  }
  await loadSet(models[0], others);
}

async function loadSet(model, ignored) {
  state.loaded = { read: model.name, ignored: ignored.map((f) => f.name) };
  await loadFile(model);
  if (ignored.length && state.fileName === model.name) {
    const bytes = ignored.reduce((n, f) => n + f.size, 0);
    toast(`Read <code>${esc(model.name)}</code> only. ${ignored.length === 1 ? `<code>${esc(ignored[0].name)}</code>` : `${fmtInt(ignored.length)} other files`} (${fmtBytes(bytes)}) ${ignored.length === 1 ? 'was' : 'were'} not read: inference needs the graph, not the weights.`);
  }
}

/** A URL's last path segment as a file name: percent-decoded when that is valid UTF-8, else as written. */
function urlFileName(href) {
  const last = new URL(href).pathname.split('/').pop() || href;
  try {
    return decodeURIComponent(last);
  } catch {
    return last; // caf%E9.onnx: not UTF-8 percent-encoding (a URIError)
  }
}

/** Loads a model from a URL: the worker fetches the graph with Range requests, skipping weights. */
export async function loadUrl(url) {
  let href;
  try { href = new URL(url, location.href).href; } catch { showError({ code: 'URL', message: `${url} is not a URL` }, url); return; }
  const name = urlFileName(href);
  state.loaded = { url: href };
  await loadFrom({ url: href }, name, null);
}

async function loadFile(file, displayName = file.name) {
  await loadFrom({ file }, displayName, file.size);
}

/**
 * How long the page waits for a model over HTTP (every request, body and retry), in ms; past it,
 * an error card. A test may set globalThis.__ONNX_SHAPES_URL_TIMEOUT_MS__ before the page loads.
 */
const urlTimeoutMs = () => globalThis.__ONNX_SHAPES_URL_TIMEOUT_MS__ ?? 120000;
// ?cost=0: no cost model (what the page costs without it: tests/browser/bench_cost.mjs).
const costOption = () => (new URLSearchParams(location.search).get('cost') === '0' ? { cost: false } : {});

// The opening in progress: { id, name, cancelled } (its Cancel button stops it).
let opening = null;

/** Stops the opening in progress: its fetching ends, and the page goes back to what it showed. */
export function cancelOpening() {
  if (!opening || opening.cancelled) return;
  opening.cancelled = true;
  tell({ type: 'cancel', target: opening.id });
  hideProgress();
  document.body.dataset.state = state.result ? 'ready' : 'empty';
  toast(`Stopped opening <code>${esc(opening.name)}</code>.${state.result ? ` The model on screen is still <code>${esc(state.fileName)}</code>.` : ''}`);
}

async function loadFrom(message, displayName, size) {
  const chosenAt = now();
  $('error-card').hidden = true;
  $('toast').hidden = true;
  if (opening && !opening.cancelled) cancelOpening(); // a new file replaces the one being opened
  document.body.dataset.state = 'loading';
  setProgress(`Starting the engine…`, null);
  try {
    await whenReady();
  } catch (err) {
    hideProgress();
    showError({ code: 'LOAD', message: err?.message ?? String(err) });
    return;
  }
  setProgress(`Reading ${displayName}…`, null, true);
  const this_ = (opening = { id: null, name: displayName, cancelled: false });
  const { id, promise } = request({ type: 'infer', name: displayName, ...message, ...costOption(), ...(message.url ? { timeout: urlTimeoutMs() } : {}) }, (p) => {
    if (this_.cancelled) return;
    const pct = p.fraction === null ? '' : ` ${Math.round(p.fraction * 100)}%`;
    if (p.phase === 'read') setProgress(`Reading ${displayName}…${pct}`, p.fraction, true);
    else if (p.phase === 'scan') setProgress(`Reading the graph of ${displayName}…`, null, true);
    else setProgress(`Inferring shapes of ${displayName}…${pct}`, p.fraction, true);
  });
  this_.id = id;
  let msg;
  try {
    msg = await promise;
  } catch (err) {
    if (this_.cancelled) return; // said so when cancelled
    opening = null;
    hideProgress();
    showError(err, displayName, size);
    return;
  }
  if (this_.cancelled) { // it finished before the worker heard of the cancel: not shown
    tell({ type: 'keep', model: state.modelId });
    return;
  }
  opening = null;
  setProgress('Building the table…', 1);
  await new Promise((r) => requestAnimationFrame(() => r()));
  const t0 = now();
  state.modelId = id;
  tell({ type: 'keep', model: id });
  state.onRowsProgress = (f) => setProgress(`Adding rows to the table… ${Math.round(f * 100)}%`, f);
  const complete = showModel(msg, displayName, size);
  await new Promise((r) => requestAnimationFrame(() => r())); // the first rows are painted in this frame
  const t1 = now();
  const timings = {
    inferMs: msg.info.inferMs,
    openMs: msg.info.openMs, // reading the file included
    scanMs: msg.info.scanMs,
    // From the moment the worker finished inference to the first painted rows (includes the
    // transfer of the first part of the result to this thread, its rows, and the first render).
    tableMs: t1 - msg.info.doneAt,
    buildMs: t1 - t0,
    transferMs: msg.receivedAt - msg.info.doneAt,
    firstRowsMs: t1 - chosenAt, // from the file chosen to the first rows painted
    completeMs: null, // ... to every row, the summary and diagnostics in (the parts that follow)
    rows: null,
  };
  window.__onnxShapesDemo.timings = timings;
  await complete;
  timings.completeMs = now() - chosenAt;
  timings.rows = state.rows.length;
  hideProgress();
  document.body.dataset.state = 'ready';
  document.body.dataset.model = displayName;
}

export async function loadExample(name) {
  const file = `${name}.onnx`;
  let bytes;
  const inline = globalThis.__ONNX_SHAPES_EXAMPLES__;
  try {
    if (inline && inline[name]) {
      const bin = atob(inline[name]);
      bytes = new Uint8Array(bin.length);
      for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
    } else {
      setProgress(`Fetching ${file}…`, null);
      const r = await fetch(new URL(`../models/${file}`, import.meta.url));
      if (!r.ok) throw new Error(`HTTP ${r.status} for ${file}`);
      bytes = new Uint8Array(await r.arrayBuffer());
    }
  } catch (err) {
    hideProgress();
    showError({ code: 'FETCH', message: `The example could not be loaded: ${err.message}` }, file);
    return;
  }
  await loadFile(new File([bytes], file, { type: 'application/octet-stream' }));
}

