// onnx-shapes demo page: loads a model into the worker (worker.js), then shows every value with its
// symbolic shape (virtualised table), the model's symbols with size bindings and memory figures,
// diagnostics, constraints, and a "Why this shape" panel per value. No dependencies.
import { bindDefinitions, evalDim, parseBindings, printSymbol, symbolsThrough, tokenize } from '../../js/expr.js';
import { $, esc, now, fmtInt, ELEM_BYTES, fmtBytes, hue, assignHues, sideValue } from './page_util.js';
import { state, ROW_H, OVERSCAN, typeText, innerTensor, brokenNode, shapeCache, shapeHTML, shapeText, KIND_SHORT, KIND_LABEL, isBroken } from './page_data.js';
import { whyHTML } from './why.js';
import { renderSummary, renderSymbols, renderMemory, renderDiagnostics, renderConstraints, renderDefinitions, updateSymbolPlaceholders } from './panels.js';
import { createGraphView } from './graph_view.js';

// Section - Worker

let worker = null;
let workerReady = null;
let nextId = 1;
const pending = new Map();

function startWorker() {
  const url = globalThis.__ONNX_SHAPES_WORKER_URL__ ?? new URL('./worker.js', import.meta.url);
  worker = new Worker(url, { type: globalThis.__ONNX_SHAPES_WORKER_TYPE__ ?? 'module', name: 'onnx-shapes' });
  workerReady = new Promise((resolve, reject) => {
    worker.addEventListener('message', function first(ev) {
      if (ev.data.type === 'ready') { worker.removeEventListener('message', first); resolve(ev.data); }
      else if (ev.data.type === 'error' && ev.data.id === null) { reject(ev.data.error); }
    });
    worker.addEventListener('error', (ev) => reject({ code: 'LOAD', message: ev.message || 'the worker could not start' }));
  });
  worker.addEventListener('message', (ev) => {
    const msg = ev.data;
    const p = pending.get(msg.id);
    if (!p) return;
    if (msg.type === 'progress') p.onProgress?.(msg);
    else {
      msg.receivedAt = now();
      pending.delete(msg.id);
      if (msg.type === 'error') p.reject(msg.error);
      else p.resolve(msg);
    }
  });
}

function ask(message, onProgress, transfer) {
  const id = nextId++;
  return new Promise((resolve, reject) => {
    pending.set(id, { resolve, reject, onProgress });
    worker.postMessage({ ...message, id }, transfer || []);
  });
}

// Section - Progress and errors

function setProgress(label, fraction) {
  const bar = $('progress');
  bar.hidden = false;
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

function showError(err, fileName) {
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
function dismissError() {
  $('error-card').hidden = true;
  if (state.result) document.body.dataset.state = 'ready';
}

let toastTimer = 0;
/** A short message that does not disturb the page (e.g. a failed download). */
function toast(html, { error = false } = {}) {
  const t = $('toast');
  t.innerHTML = html;
  t.classList.toggle('error', error);
  t.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => { t.hidden = true; }, 6000);
}

// Section - Loading a model

/**
 * The model among files given at once: a model saved with external data comes as model.onnx plus
 * its data files (model.onnx.data, or one file per tensor). Inference reads the graph only, so
 * only the .onnx is read; the others are named in a note. Returns {model, ignored}.
 */
function pickModelFile(files) {
  const list = [...files];
  const onnx = list.filter((f) => /\.(onnx|ort)$/i.test(f.name));
  const model = onnx.length ? onnx.reduce((a, b) => (b.name.length < a.name.length ? b : a)) : list.reduce((a, b) => (b.size > a.size ? b : a), list[0]);
  return { model, ignored: list.filter((f) => f !== model) };
}

/** Loads the model of a set of files (pickModelFile), saying which files were not read. */
async function loadFiles(files) {
  if (!files.length) return;
  const { model, ignored } = pickModelFile(files);
  state.loaded = { read: model.name, ignored: ignored.map((f) => f.name) };
  await loadFile(model);
  if (ignored.length && state.fileName === model.name) {
    const bytes = ignored.reduce((n, f) => n + f.size, 0);
    toast(`Read <code>${esc(model.name)}</code> only. ${ignored.length === 1 ? `<code>${esc(ignored[0].name)}</code>` : `${fmtInt(ignored.length)} other files`} (${fmtBytes(bytes)}) ${ignored.length === 1 ? 'was' : 'were'} not read: inference needs the graph, not the weights.`);
  }
}

/** Loads a model from a URL: the worker fetches the graph with Range requests, skipping weights. */
async function loadUrl(url) {
  let href;
  try { href = new URL(url, location.href).href; } catch { showError({ code: 'URL', message: `${url} is not a URL` }, url); return; }
  const name = decodeURIComponent(new URL(href).pathname.split('/').pop() || href);
  state.loaded = { url: href };
  await loadFrom({ url: href }, name, null);
}

async function loadFile(file, displayName = file.name) {
  await loadFrom({ file }, displayName, file.size);
}

async function loadFrom(message, displayName, size) {
  $('error-card').hidden = true;
  $('toast').hidden = true;
  document.body.dataset.state = 'loading';
  setProgress(`Starting the engine…`, null);
  try {
    await workerReady;
  } catch (err) {
    hideProgress();
    showError({ code: 'LOAD', message: err?.message ?? String(err) });
    return;
  }
  setProgress(`Reading ${displayName}…`, null);
  let msg;
  try {
    msg = await ask({ type: 'infer', name: displayName, ...message }, (p) => {
      const pct = p.fraction === null ? '' : ` ${Math.round(p.fraction * 100)}%`;
      if (p.phase === 'read') setProgress(`Reading ${displayName}…${pct}`, p.fraction);
      else if (p.phase === 'scan') setProgress(`Reading the graph of ${displayName}…`, null);
      else setProgress(`Inferring shapes of ${displayName}…${pct}`, p.fraction);
    });
  } catch (err) {
    hideProgress();
    showError(err, displayName);
    return;
  }
  setProgress('Building the table…', 1);
  await new Promise((r) => requestAnimationFrame(() => r()));
  const t0 = now();
  showModel(msg, displayName, size);
  await new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
  const t1 = now();
  hideProgress();
  window.__onnxShapesDemo.timings = {
    inferMs: msg.info.inferMs,
    scanMs: msg.info.scanMs,
    // From the moment the worker finished inference to the first painted table (includes the
    // transfer of the result to this thread, building rows, and the first render).
    tableMs: t1 - msg.info.doneAt,
    buildMs: t1 - t0,
    transferMs: msg.receivedAt - msg.info.doneAt,
    rows: state.rows.length,
  };
  document.body.dataset.state = 'ready';
  document.body.dataset.model = displayName;
}

async function loadExample(name) {
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

// Section - Building rows

function showModel(msg, displayName, size) {
  const result = JSON.parse(msg.json);
  const model = JSON.parse(msg.modelJson);
  // The event log is parsed on first use (it can be several times larger than the rest).
  let events;
  let eventsJson = msg.eventsJson;
  Object.defineProperty(result, 'events', {
    enumerable: true,
    get() {
      if (eventsJson !== null && events === undefined) { events = JSON.parse(eventsJson); eventsJson = null; }
      return events ?? null;
    },
  });
  state.result = result;
  state.model = model;
  state.info = msg.info;
  state.fileName = displayName;
  state.fileSize = size;
  state.detail = null;
  state.active = -1;
  state.eventsByValue = null;
  state.consumers = null;

  const inputs = new Set(model ? model.inputs.map((v) => v.name) : []);
  const inits = new Set(model ? model.initializers : []);
  const outputs = new Map(model ? model.outputs.map((v) => [v.name, v]) : []);
  const producers = result.producers || {};
  const nodes = result.nodes || [];
  const names = Object.keys(result.values).filter((n) => result.values[n] != null);
  const subgraph = result.subgraphValues || {};
  const nodeByName = new Map(nodes.map((n, k) => [n.name, k]));

  // The event log (when recorded) says which rule set each value, also inside subgraphs.
  const setEvents = new Map();
  const seedEvents = new Map();
  // Only needed for subgraph values (no producer entry) or when the model scan failed.
  if ((!model || Object.keys(subgraph).length) && Array.isArray(result.events)) {
    for (const e of result.events) {
      if (!e || !e.value) continue;
      const key = (e.path || '') + e.value;
      if (e.kind === 'set') setEvents.set(key, e);
      else if (e.kind === 'seed') seedEvents.set(key, e);
    }
  }

  // Model order: graph inputs, then node outputs in node order, then initializers.
  const inputOrder = new Map(model ? model.inputs.map((v, i) => [v.name, i]) : []);
  const rows = new Array(names.length);
  const symUses = new Map();
  const symsByShape = new Map();
  const hasSubgraphs = Object.keys(subgraph).length > 0;
  for (let i = 0; i < names.length; i++) {
    const name = names[i];
    const t = result.values[name];
    const p = producers[name];
    const node = p === undefined ? null : nodes[p];
    let kind;
    let sub = null;
    if (node) kind = outputs.has(name) ? 'output' : 'activation';
    else if (hasSubgraphs && Object.hasOwn(subgraph, name)) {
      kind = 'inner';
      const ev = setEvents.get(name) || seedEvents.get(name);
      const path = subgraph[name].path || '';
      sub = { path, local: subgraph[name].name ?? name.slice(path.length), op: ev?.opType || '', node: ev?.node || '', seeded: !setEvents.has(name) };
    } else if (inits.has(name)) kind = 'weight';
    else if (inputs.has(name)) kind = 'input';
    else if (model) kind = 'weight'; // not an input of the top-level graph: an initializer (or a constant)
    else if (result.events) kind = seedEvents.has(name) ? 'input' : 'weight'; // graph inputs are seeded
    else {
      // Without the model scan: no producer, and only fixed dims → treat as an initializer.
      const tt = innerTensor(t);
      kind = tt && tt.dims && tt.dims.every((d) => typeof d === 'number') ? 'weight' : 'input';
    }
    const tensor = innerTensor(t);
    const dims = tensor ? tensor.dims : null;
    const shapeKey = dims ? `${dims.length}:${dims.join(',')}` : '';
    let syms = symsByShape.get(shapeKey);
    if (!syms) {
      syms = [];
      if (dims) {
        for (const d of dims) {
          if (typeof d !== 'string') continue;
          // a named size (result.definitions) stands for the symbols of its definition
          for (const s of symbolsThrough(d, result.definitions)) if (!syms.includes(s)) syms.push(s);
        }
      }
      symsByShape.set(shapeKey, syms); // shared by every row of this shape: read-only
    }
    for (const s of syms) {
      let u = symUses.get(s);
      if (!u) symUses.set(s, (u = { name: s, uses: 0, source: null, firstRow: i }));
      u.uses++;
    }
    let order;
    if (kind === 'input') order = inputOrder.get(name) ?? 0;
    else if (kind === 'weight') order = 2e9 + i;
    else if (kind === 'inner') order = 1e9 + (nodeByName.get(sub.path.split('/')[0]) ?? nodes.length) - 0.5 + i * 1e-9;
    else order = 1e9 + p;
    const op = node ? node.opType : sub ? sub.op : '';
    rows[i] = {
      i, name, lname: null, type: t, tensor, dims, syms, kind, sub,
      nodeIndex: p ?? -1, op, nodeName: node ? node.name : sub ? sub.node : '',
      lop: op.toLowerCase(), elem: typeText(t), order,
      shapeKey, bytes: null, concrete: null,
    };
  }
  state.rows = rows;
  state.modelOrder = null;
  state.byName = new Map(rows.map((r) => [r.name, r]));

  // Where each symbol first appears: the first graph input (in declaration order) that uses it.
  const byInputOrder = rows.filter((r) => r.kind === 'input').sort((a, b) => a.order - b.order);
  let rank = 0;
  for (const r of byInputOrder) for (const s of r.syms) { const u = symUses.get(s); if (!u.source) { u.source = r.name; u.rank = rank++; } }

  // Symbols: the graph inputs' symbols first (in input order), then the others by name.
  // Symbols a DATA_DEPENDENT diagnostic names: the identifiers of its message that are symbols
  // (one pass over each message, whatever the number of symbols).
  const ddSyms = new Set();
  for (const d of result.diagnostics || []) {
    if (d.code !== 'DATA_DEPENDENT') continue;
    for (const m of d.message.matchAll(/[A-Za-z_][A-Za-z0-9_]*/g)) if (symUses.has(m[0])) ddSyms.add(m[0]);
  }
  state.symbols = [...symUses.values()]
    .map((s) => ({ ...s, dataDependent: ddSyms.has(s.name) }))
    .sort((a, b) => (a.source ? 0 : 1) - (b.source ? 0 : 1)
      || (a.source ? a.rank - b.rank : 0)
      || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  assignHues(state.symbols.map((s) => s.name));
  shapeCache.clear();

  // Bindings belong to one model: a new model starts symbolic.
  state.env.clear();
  $('bindings-text').value = '';
  $('bindings-msg').textContent = '';
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
  $('model-title').textContent = `${displayName} · ${fmtInt(nodes.length)} nodes · ${fmtInt(rows.length)} values`;
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

// Section - Graph view (graph_view.js draws, layout_worker.js lays out)

const graphView = createGraphView({
  root: $('graph'),
  hue,
  tokenize,
  brokenNode,
  workerUrl: globalThis.__ONNX_SHAPES_LAYOUT_URL__ ?? new URL('./layout_worker.js', import.meta.url),
  workerType: 'classic',
  requestGraph: () => ask({ type: 'graph' }).then((m) => m.json),
  onValue: (key) => { if (state.byName.has(key)) openDetail(key, { focus: false }); },
});

function setTab(tab) {
  state.tab = tab;
  for (const b of document.querySelectorAll('[data-tab]')) b.setAttribute('aria-selected', String(b.dataset.tab === tab));
  document.querySelector('.values-panel').dataset.tab = tab;
  $('values').hidden = tab !== 'table';
  $('filter-help').hidden = tab !== 'table';
  $('graph').hidden = tab !== 'graph';
  if (tab === 'graph' && !graphView.state.view) return graphView.show();
  return null;
}

/** Shows value `key` in the graph: its producer (or first reader), in the graph that holds it. */
function showInGraph(key) {
  const path = state.result.subgraphValues?.[key]?.path ?? '';
  state.tab = 'graph';
  setTab('graph');
  return graphView.focusValue(key, path);
}

// Section - Bindings and sizes

function recomputeBindings() {
  // Derive unbound symbols from equality constraints `sym = expr` whose other side evaluates; the
  // result's named sizes (definitions) are evaluated from the sizes known at each pass.
  const base = new Map(state.env);
  const defs = state.result?.definitions || [];
  const names = new Set(defs.map((d) => d.name));
  let eff = bindDefinitions(base, defs);
  const derived = new Map();
  const equal = state.result?.constraints?.equal || [];
  for (let pass = 0; pass < 8; pass++) {
    let changed = false;
    for (const [a, b] of equal) {
      for (const [x, y] of [[a, b], [b, a]]) {
        if (typeof x !== 'string') continue;
        let toks;
        try { toks = tokenize(x); } catch { continue; }
        if (toks.length !== 1 || toks[0].t !== 'sym' || eff.has(toks[0].v) || names.has(toks[0].v)) continue;
        const v = sideValue(y, eff);
        if (v !== null && Number.isFinite(v)) {
          base.set(toks[0].v, v);
          eff = bindDefinitions(base, defs);
          derived.set(toks[0].v, { value: v, from: String(y) });
          changed = true;
        }
      }
    }
    if (!changed) break;
  }
  for (const [k, v] of eff) if (v === null) eff.delete(k); // a name whose symbols have no size yet
  state.derived = derived;
  state.effective = eff;
  computeSizes();
}

function computeSizes() {
  const env = state.effective;
  const byShape = new Map(); // shapeKey → {conc, count}: rows share few distinct shapes
  for (const r of state.rows) {
    r.bytes = null;
    r.concrete = null;
    if (!r.tensor || !r.dims) continue;
    let c = byShape.get(r.shapeKey);
    if (!c) {
      let count = 1;
      const conc = new Array(r.dims.length);
      for (let k = 0; k < r.dims.length; k++) {
        let v = null;
        try { v = evalDim(r.dims[k], env); } catch { v = null; }
        conc[k] = v;
        if (v === null || !Number.isFinite(v)) count = null;
        else if (count !== null) count *= v;
      }
      byShape.set(r.shapeKey, (c = { conc, count }));
    }
    r.concrete = c.conc;
    const eb = ELEM_BYTES[r.tensor.elemType];
    if (c.count !== null && eb !== undefined && r.type.kind === 'tensor') r.bytes = Math.ceil(c.count * eb);
  }
  shapeCache.clear();
}

// Section - Filtering, sorting, virtual table

function parseFilter(text) {
  const f = { words: [], op: [], sym: [], type: [], is: [] };
  for (const tok of text.trim().split(/\s+/)) {
    if (!tok) continue;
    const m = /^(op|sym|type|is|kind|name):(.*)$/i.exec(tok);
    if (m && m[2]) {
      const k = m[1].toLowerCase();
      const v = m[2].toLowerCase();
      if (k === 'name') f.words.push(v);
      else f[k === 'kind' ? 'is' : k].push(v);
    } else f.words.push(tok.toLowerCase());
  }
  return f;
}

const IS_ALIASES = { weight: 'weight', weights: 'weight', initializer: 'weight', init: 'weight', input: 'input', inputs: 'input', output: 'output', outputs: 'output', activation: 'activation', inner: 'inner', subgraph: 'inner', sub: 'inner' };

function matches(r, f) {
  if (f.words.length) {
    const lname = (r.lname ??= r.name.toLowerCase());
    for (const w of f.words) if (!lname.includes(w)) return false;
  }
  if (f.op.length && !f.op.some((o) => r.lop === o || (o.endsWith('*') && r.lop.startsWith(o.slice(0, -1))))) return false;
  if (f.type.length && !f.type.includes(r.elem.toLowerCase())) return false;
  if (f.sym.length && !f.sym.some((s) => r.syms.some((x) => x.toLowerCase() === s))) return false;
  if (f.is.length && !f.is.some((k) => {
    const kk = IS_ALIASES[k] ?? k;
    return kk === r.kind || (kk === 'activation' && r.kind === 'output');
  })) return false;
  return true;
}

function compareRows(a, b, key) {
  switch (key) {
    case 'name': return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
    case 'op': return (a.op || '\uffff').localeCompare(b.op || '\uffff') || a.nodeIndex - b.nodeIndex;
    case 'type': return a.elem.localeCompare(b.elem) || a.order - b.order;
    case 'shape': {
      const ra = a.dims ? a.dims.length : -1;
      const rb = b.dims ? b.dims.length : -1;
      return ra - rb || (a.shapeKey < b.shapeKey ? -1 : a.shapeKey > b.shapeKey ? 1 : 0);
    }
    case 'size': return (a.bytes ?? -1) - (b.bytes ?? -1) || a.order - b.order;
    default: return a.order - b.order;
  }
}

/** Row indices in model order (what sorting by `order` gives), in O(n): buckets per node. */
function modelOrder(rows) {
  const n = state.result.nodes.length;
  const inputs = [];
  const weights = [];
  const byNode = new Array(n + 1);
  const put = (k, i) => { (byNode[k] ??= []).push(i); };
  for (const r of rows) {
    if (r.kind === 'input') inputs.push(r.i);
    else if (r.kind === 'weight') weights.push(r.i);
    else if (r.kind === 'inner') put(Math.min(n, Math.round(r.order - 1e9 + 0.5)), r.i); // before its parent's outputs
    else put(r.nodeIndex, r.i);
  }
  inputs.sort((x, y) => rows[x].order - rows[y].order);
  const out = inputs;
  for (let k = 0; k <= n; k++) {
    const b = byNode[k];
    if (!b) continue;
    if (b.length > 1) b.sort((x, y) => rows[x].order - rows[y].order);
    for (const i of b) out.push(i);
  }
  for (const i of weights) out.push(i);
  return out;
}

function applyView({ keepScroll = false } = {}) {
  const f = parseFilter(state.filter);
  const any = f.words.length || f.op.length || f.sym.length || f.type.length || f.is.length;
  const rows = state.rows;
  const { key, dir } = state.sort;
  // Start from model order (sorted once per model); the default view needs no further sort.
  state.modelOrder ??= modelOrder(rows);
  let view = state.modelOrder;
  if (any) view = view.filter((i) => matches(rows[i], f));
  else view = view.slice();
  if (key !== 'order') view.sort((x, y) => dir * compareRows(rows[x], rows[y], key) || rows[x].order - rows[y].order);
  const prevName = state.active >= 0 ? rows[state.view[state.active]]?.name : null;
  state.view = view;
  state.active = prevName ? view.findIndex((i) => rows[i].name === prevName) : -1;
  $('values-count').textContent = any ? `${fmtInt(view.length)} of ${fmtInt(rows.length)}` : fmtInt(rows.length);
  $('values').setAttribute('aria-rowcount', String(view.length + 1));
  $('grid-sizer').style.height = `${view.length * ROW_H}px`;
  $('grid-empty').hidden = view.length > 0;
  for (const h of document.querySelectorAll('.grid-head [role=columnheader]')) {
    const k = h.dataset.col;
    if (k === key) h.setAttribute('aria-sort', dir > 0 ? 'ascending' : 'descending');
    else h.removeAttribute('aria-sort');
  }
  if (!keepScroll) $('grid-scroll').scrollTop = 0;
  invalidateRows();
  renderRows();
}

let lastRange = '';
let lastFirst = -1;
let lastLast = -1;
function renderRows() {
  const scroller = $('grid-scroll');
  const total = state.view.length;
  const first = Math.max(0, Math.floor(scroller.scrollTop / ROW_H) - OVERSCAN);
  const last = Math.min(total, Math.ceil((scroller.scrollTop + scroller.clientHeight) / ROW_H) + OVERSCAN);
  const range = `${first}:${last}:${state.active}:${state.detail}`;
  if (range === lastRange) return;
  const el = $('grid-rows');
  const rows = state.rows;
  if (lastRange !== '' && first === lastFirst && last === lastLast) {
    // Same rows: only the active/open marks moved. Patch classes, keep the DOM (a click in
    // progress must find the same elements on mouseup).
    for (const rowEl of el.children) {
      const v = Number(rowEl.dataset.v);
      const open = rows[state.view[v]].name === state.detail;
      rowEl.classList.toggle('active', v === state.active);
      rowEl.classList.toggle('open', open);
      rowEl.setAttribute('aria-selected', String(open));
    }
  } else {
    let html = '';
    for (let v = first; v < last; v++) {
      const r = rows[state.view[v]];
      const active = v === state.active;
      const open = r.name === state.detail;
      html += `<div role="row" class="row${active ? ' active' : ''}${open ? ' open' : ''}${v % 2 ? ' odd' : ''}${isBroken(r) ? ' broken' : ''}" id="row-${v}" data-v="${v}" aria-rowindex="${v + 2}" aria-selected="${open}">`
        + `<div role="gridcell" class="c-name"><span class="kind k-${r.kind}" title="${KIND_LABEL[r.kind]}">${KIND_SHORT[r.kind]}</span><span class="vname" title="${esc(r.name)}">${r.sub ? `<span class="vpath">${esc(r.sub.path)}</span>${esc(r.sub.local)}` : esc(r.name)}</span></div>`
        + `<div role="gridcell" class="c-op">${opCell(r)}</div>`
        + `<div role="gridcell" class="c-type"><span class="etype">${esc(r.elem)}</span></div>`
        + `<div role="gridcell" class="c-shape" title="${esc(shapeText(r))}">${shapeHTML(r)}</div>`
        + `<div role="gridcell" class="c-size num"${r.bytes !== null ? ` title="${fmtInt(r.bytes)} bytes"` : ''}>${r.bytes !== null ? fmtBytes(r.bytes) : '<span class="muted">—</span>'}</div>`
        + '</div>';
    }
    el.style.transform = `translateY(${first * ROW_H}px)`;
    el.innerHTML = html;
  }
  lastRange = range;
  lastFirst = first;
  lastLast = last;
  const grid = $('values');
  if (state.active >= 0 && state.active >= first && state.active < last) grid.setAttribute('aria-activedescendant', `row-${state.active}`);
  else grid.removeAttribute('aria-activedescendant');
}

/** Forces the next renderRows() to rebuild the rows (data, sizes or display mode changed). */
function invalidateRows() {
  lastRange = '';
  lastFirst = -1;
}

function opCell(r) {
  if (r.op && !(r.sub && r.sub.seeded)) return `<span class="opname">${esc(r.op)}</span><span class="nodename" title="${esc(r.nodeName)}">${esc(r.nodeName)}</span>`;
  if (r.sub) return `<span class="muted">${r.sub.op ? `${esc(r.sub.op)} body input` : 'subgraph input'}</span>`;
  return `<span class="muted">${r.kind === 'weight' ? 'initializer' : 'graph input'}</span>`;
}

function setActive(v, { scroll = true } = {}) {
  const n = state.view.length;
  if (!n) return;
  state.active = Math.max(0, Math.min(n - 1, v));
  if (scroll) {
    const s = $('grid-scroll');
    const top = state.active * ROW_H;
    if (top < s.scrollTop) s.scrollTop = top;
    else if (top + ROW_H > s.scrollTop + s.clientHeight) s.scrollTop = top + ROW_H - s.clientHeight;
  }
  renderRows();
}

// Section - Why this shape

function openDetail(name, { focus = true } = {}) {
  const html = whyHTML(name);
  if (html === null) return;
  state.detail = name;
  $('detail-title').textContent = name;
  $('detail-body').innerHTML = `<p class="d-actions"><button type="button" class="btn small" data-show-graph="${esc(name)}">Show in graph</button></p>${html}`;
  graphView.select(name);
  $('detail-body').scrollTop = 0;
  $('detail').hidden = false;
  document.body.classList.add('detail-open');
  renderRows();
  if (focus) $('detail-title').focus();
}

function closeDetail() {
  if ($('detail').hidden) return;
  $('detail').hidden = true;
  document.body.classList.remove('detail-open');
  state.detail = null;

  renderRows();
  $('values').focus();
}

/** Shows a value: select its row (clearing a filter that hides it) and open its detail. */
function gotoValue(name) {
  let v = state.view.findIndex((i) => state.rows[i].name === name);
  if (v < 0) {
    state.filter = '';
    $('filter').value = '';
    applyView();
    v = state.view.findIndex((i) => state.rows[i].name === name);
  }
  if (v >= 0) setActive(v);
  openDetail(name);
}

// Section - Events

function setFilter(text) {
  state.filter = text;
  $('filter').value = text;
  applyView();
}

function applyBindingsText(text) {
  const { map, errors } = parseBindings(text);
  for (const [k, v] of map) state.env.set(k, v);
  const unknown = [...map.keys()].filter((k) => !state.symbols.some((s) => s.name === k));
  const msgs = [];
  if (errors.length) msgs.push(`Ignored ${errors.join(', ')}.`);
  if (unknown.length) msgs.push(`Not a symbol of this model: ${unknown.join(', ')}.`);
  $('bindings-msg').textContent = msgs.join(' ');
  bindingsChanged();
}

function bindingsChanged({ rerenderSymbols = true } = {}) {
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

function setMode(mode, render = true) {
  state.mode = mode;
  for (const b of document.querySelectorAll('.segmented [data-view]')) b.setAttribute('aria-checked', String(b.dataset.view === mode));
  shapeCache.clear();
  if (render) { invalidateRows(); renderRows(); }
}

function wire() {
  const fileInput = $('file-input');
  for (const id of ['open-file', 'open-file-2']) $(id).addEventListener('click', () => fileInput.click());
  fileInput.addEventListener('change', () => {
    const files = [...fileInput.files];
    fileInput.value = '';
    loadFiles(files);
  });
  $('url-form').addEventListener('submit', (e) => {
    e.preventDefault();
    const url = $('url-input').value.trim();
    if (url) loadUrl(url);
  });
  for (const b of document.querySelectorAll('[data-example]')) b.addEventListener('click', () => loadExample(b.dataset.example));

  // Drop anywhere.
  let depth = 0;
  const overlay = $('drop-overlay');
  const hasFiles = (e) => [...(e.dataTransfer?.types || [])].includes('Files');
  window.addEventListener('dragenter', (e) => { if (!hasFiles(e)) return; e.preventDefault(); depth++; overlay.hidden = false; });
  window.addEventListener('dragover', (e) => { if (!hasFiles(e)) return; e.preventDefault(); e.dataTransfer.dropEffect = 'copy'; });
  window.addEventListener('dragleave', () => { if (--depth <= 0) { depth = 0; overlay.hidden = true; } });
  window.addEventListener('drop', (e) => {
    e.preventDefault();
    depth = 0;
    overlay.hidden = true;
    loadFiles([...(e.dataTransfer?.files || [])]);
  });

  // Table.
  const scroller = $('grid-scroll');
  let raf = 0;
  scroller.addEventListener('scroll', () => { if (!raf) raf = requestAnimationFrame(() => { raf = 0; renderRows(); }); }, { passive: true });
  new ResizeObserver(() => { invalidateRows(); renderRows(); }).observe(scroller);
  $('grid-rows').addEventListener('click', (e) => {
    const row = e.target.closest('.row');
    if (!row) return;
    const v = Number(row.dataset.v);
    setActive(v, { scroll: false });
    $('values').focus({ preventScroll: true });
    openDetail(state.rows[state.view[v]].name, { focus: false });
  });
  const grid = $('values');
  let pointerFocus = false;
  grid.addEventListener('pointerdown', () => { pointerFocus = true; setTimeout(() => { pointerFocus = false; }, 0); });
  grid.addEventListener('focus', () => {
    if (!pointerFocus && state.active < 0 && state.view.length) setActive(Math.ceil(scroller.scrollTop / ROW_H));
  });
  grid.addEventListener('keydown', (e) => {
    if (e.target !== grid) return;
    const page = Math.max(1, Math.floor(scroller.clientHeight / ROW_H) - 1);
    const moves = { ArrowDown: 1, ArrowUp: -1, PageDown: page, PageUp: -page };
    if (e.key in moves) { e.preventDefault(); setActive(state.active + moves[e.key]); if (state.detail) openDetail(state.rows[state.view[state.active]].name, { focus: false }); }
    else if (e.key === 'Home') { e.preventDefault(); setActive(0); }
    else if (e.key === 'End') { e.preventDefault(); setActive(state.view.length - 1); }
    else if ((e.key === 'Enter' || e.key === ' ') && state.active >= 0) {
      e.preventDefault();
      openDetail(state.rows[state.view[state.active]].name);
    }
  });
  for (const b of document.querySelectorAll('[data-sort]')) {
    b.addEventListener('click', () => {
      const key = b.dataset.sort;
      if (state.sort.key === key) {
        if (state.sort.dir === 1) state.sort.dir = -1;
        else state.sort = { key: 'order', dir: 1 };
      } else state.sort = { key, dir: key === 'size' ? -1 : 1 };
      applyView();
    });
  }
  let filterTimer = 0;
  $('filter').addEventListener('input', (e) => {
    clearTimeout(filterTimer);
    if (state.rows.length <= 20000) { state.filter = e.target.value; applyView(); return; }
    filterTimer = setTimeout(() => { state.filter = e.target.value; applyView(); }, 120); // debounce huge tables
  });
  $('filter').addEventListener('keydown', (e) => {
    if (e.key === 'ArrowDown') { e.preventDefault(); grid.focus(); }
  });
  for (const b of document.querySelectorAll('.segmented [data-view]')) b.addEventListener('click', () => setMode(b.dataset.view));
  $('detail-close').addEventListener('click', closeDetail);

  // Delegated buttons: data-goto (open a value), data-filter (set the filter).
  document.addEventListener('click', (e) => {
    if (e.target.closest('#error-card [data-dismiss]')) { dismissError(); return; }
    const sg = e.target.closest('[data-show-graph]');
    if (sg) { showInGraph(sg.dataset.showGraph); return; }
    const tab = e.target.closest('[data-tab]');
    if (tab) { setTab(tab.dataset.tab); return; }
    const be = e.target.closest('[data-broken]');
    if (be) {
      const b = brokenNode();
      setTab('graph');
      graphView.state.scope = b.path;
      graphView.state.focus = { node: b.nodeIndex };
      graphView.show();
      return;
    }
    const g = e.target.closest('[data-goto]');
    if (g) { gotoValue(g.dataset.goto); return; }
    const f = e.target.closest('[data-filter]');
    if (f) setFilter(f.dataset.filter);
  });
  document.addEventListener('keydown', (e) => {
    if (e.key === 'Escape' && !$('detail').hidden) { e.preventDefault(); closeDetail(); }
  });

  // Bindings.
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

  $('download').addEventListener('click', async () => {
    try {
      const msg = await ask({ type: 'toModel' });
      const blob = new Blob([msg.bytes], { type: 'application/octet-stream' });
      const a = document.createElement('a');
      a.href = URL.createObjectURL(blob);
      a.download = state.fileName.replace(/\.onnx$/i, '') + '.shapes.onnx';
      document.body.append(a);
      a.click();
      a.remove();
      setTimeout(() => URL.revokeObjectURL(a.href), 10000);
      toast(`Downloaded <code>${esc(a.download)}</code>: the model with every inferred shape written into <code>value_info</code>.`);
    } catch (err) {
      toast(`The model could not be written back: ${esc(err?.message ?? String(err))}`, { error: true });
    }
  });
}

// Section - Start

window.__onnxShapesDemo = { timings: null, state, get graph() { return graphView.metrics; }, graphView };
$('lede-example').innerHTML = `<span class="etype">float</span> <span class="shape">${['batch', 4, 'total_seq', 16].map((d) => typeof d === 'number' ? `<span class="dim">${d}</span>` : `<span class="dim symd" style="--h:${hue(d)}">${d}</span>`).join('<span class="x">×</span>')}</span>`;
wire();
startWorker();
workerReady.then(
  (info) => {
    document.body.dataset.engine = info.version;
    // ?url=... (links from model hubs): open that model.
    const url = new URLSearchParams(location.search).get('url');
    if (url) { $('url-input').value = url; loadUrl(url); }
  },
  (err) => showError({ code: 'LOAD', message: err?.message ?? String(err) }),
);
