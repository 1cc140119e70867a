// onnx-shapes demo page: loads a model into the worker (worker.js), then shows every value with its
// symbolic shape (virtualised table), the model's symbols with size bindings and memory figures,
// diagnostics, constraints, and a "Why this shape" panel per value. No dependencies.
import { evalDim, parseBindings, printSymbol, symbolsOf, tokenize } from '../../js/expr.js';
import { createGraphView } from './graph_view.js';

// Section - Small helpers

const $ = (id) => document.getElementById(id);
const esc = (s) => String(s).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }[c]));
const now = () => performance.timeOrigin + performance.now();
const fmtInt = (n) => n.toLocaleString('en-US');

/** Bytes per element (null: not a fixed-size type). Sub-byte types count half a byte. */
const ELEM_BYTES = {
  float: 4, uint8: 1, int8: 1, uint16: 2, int16: 2, int32: 4, int64: 8, bool: 1, float16: 2,
  double: 8, uint32: 4, uint64: 8, complex64: 8, complex128: 16, bfloat16: 2, float8e4m3fn: 1,
  float8e4m3fnuz: 1, float8e5m2: 1, float8e5m2fnuz: 1, float8e8m0: 1, uint4: 0.5, int4: 0.5, float4e2m1: 0.5,
};

function fmtBytes(n) {
  if (n === null || n === undefined || !Number.isFinite(n)) return '—';
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB'];
  let i = 0;
  let v = n;
  while (v >= 1024 && i < units.length - 1) { v /= 1024; i++; }
  const s = i === 0 ? String(Math.ceil(v)) : v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v.toFixed(2);
  return `${i === 0 ? s : s.replace(/\.?0+$/, '')} ${units[i]}`;
}

/**
 * A hue per symbol name. FNV-1a of the name picks one of 12 well-separated hues; when a model is
 * loaded its symbols claim hues in order (assignHues), probing to the next free hue on a clash,
 * so two symbols of one model never share a colour while there are at most 12 of them. The same
 * symbol always has the same colour everywhere on the page.
 */
const PALETTE = [262, 200, 145, 28, 330, 52, 178, 295, 4, 105, 228, 75];
const hueCache = new Map();
function fnv(name) {
  let x = 0x811c9dc5;
  for (let i = 0; i < name.length; i++) { x ^= name.charCodeAt(i); x = Math.imul(x, 0x01000193); }
  return x >>> 0;
}
function hue(name) {
  let h = hueCache.get(name);
  if (h === undefined) {
    h = PALETTE[fnv(name) % PALETTE.length];
    hueCache.set(name, h);
  }
  return h;
}
function assignHues(names) {
  hueCache.clear();
  const used = new Set();
  for (const name of names) {
    if (used.size >= PALETTE.length) {
      hueCache.set(name, Math.round(((fnv(name) * 0.618033988749895) % 1) * 360));
      continue;
    }
    let slot = fnv(name) % PALETTE.length;
    while (used.has(slot)) slot = (slot + 1) % PALETTE.length;
    used.add(slot);
    hueCache.set(name, PALETTE[slot]);
  }
}

/** A symbol as a coloured inline chip. */
const symChip = (name, extra = '') => `<span class="sym" style="--h:${hue(name)}"${extra}>${esc(printSymbol(name))}</span>`;

/** An expression with each symbol coloured. */
function exprHTML(src) {
  if (typeof src === 'number') return `<span class="num">${src}</span>`;
  if (src === null || src === undefined) return '<span class="unk">?</span>';
  let toks;
  try { toks = tokenize(String(src)); } catch { return esc(src); }
  let out = '';
  for (const t of toks) {
    if (t.t === 'sym') out += `<span class="s" style="--h:${hue(t.v)}">${esc(t.s)}</span>`;
    else if (t.t === 'op') out += `<span class="op">${esc(t.s)}</span>`;
    else if (t.t === ',') out += ', ';
    else out += esc(t.s);
  }
  return out;
}

/** Constraint sides come as strings or numbers; render and evaluate either. */
function sideValue(side, env) {
  try { return evalDim(typeof side === 'number' ? side : String(side), env); } catch { return NaN; }
}

// Section - State

const state = {
  fileName: '',
  fileSize: 0,
  result: null,        // plain result from the worker
  model: null,         // model_scan.js output, or null
  info: null,
  rows: [],            // all rows
  view: [],            // filtered + sorted row indices
  sort: { key: 'order', dir: 1 },
  filter: '',
  env: new Map(),      // user bindings
  derived: new Map(),  // bindings derived from equality constraints
  effective: new Map(),
  mode: 'symbolic',
  tab: 'table',        // 'table' | 'graph'
  broken: null,        // brokenNode() of the model on screen
  active: -1,          // index into state.view
  detail: null,        // name shown in the detail panel
  symbols: [],         // [{name, uses, source, dataDependent}]
  eventsByValue: null,
};

const ROW_H = 38;
const OVERSCAN = 8;

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

/** Node k's {inputs, outputs} (value keys, '' for an omitted one) of the model's graph. */
const nodeIO = (k) => ioAt('', k);

/** The {inputs, outputs} of node k of graph `path` ('' or a subgraph path), or null. */
function ioAt(path, k) {
  const g = path === '' ? state.result : state.result.subgraphs?.[path];
  const io = g?.nodeIO?.[k];
  if (io === undefined) return null;
  const [ins, outs] = io.split('\u0001');
  return { inputs: ins === '' ? [] : ins.split('\0'), outputs: outs === '' ? [] : outs.split('\0') };
}

/** Every node that reads value `key`: [{path, index}], indexed once per model. */
function consumersOf(key) {
  if (!state.consumers) {
    const idx = new Map();
    const add = (path, list) => {
      for (let k = 0; k < list.length; k++) {
        const ins = list[k].slice(0, list[k].indexOf('\u0001'));
        if (ins === '') continue;
        for (const v of ins.split('\0')) {
          if (!v) continue;
          const l = idx.get(v);
          const ref = { path, index: k };
          if (!l) idx.set(v, [ref]);
          else if (l[l.length - 1].index !== k || l[l.length - 1].path !== path) l.push(ref);
        }
      }
    };
    add('', state.result.nodeIO || []);
    for (const [path, g] of Object.entries(state.result.subgraphs || {})) add(path, g.nodeIO || []);
    state.consumers = idx;
  }
  return state.consumers.get(key) ?? [];
}

function typeText(t) {
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
function innerTensor(t) {
  while (t && (t.kind === 'sequence' || t.kind === 'optional')) t = t.elem;
  return t && t.kind === 'tensor' ? t : null;
}

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
          for (const s of symbolsOf(d)) if (!syms.includes(s)) syms.push(s);
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
  applyView();
  graphView.reset(result);
  if (state.tab === 'graph') graphView.show();
}

// Section - Graph view (graph_view.js draws, layout_worker.js lays out)

/**
 * The first broken node: result.firstError when the engine gives it, else the first diagnostic
 * saying that a node's inputs contradict its rule. {path, nodeIndex, node, opType, code, message}.
 */
function brokenNode() {
  const r = state.result;
  if (!r) return null;
  const d = r.firstError ?? (r.diagnostics || []).find((x) => (x.code === 'SHAPE_MISMATCH' || x.code === 'INVALID_MODEL') && x.nodeIndex >= 0);
  return d && d.nodeIndex >= 0 ? { ...d, path: d.path ?? '' } : null;
}

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
  // Derive unbound symbols from equality constraints `sym = expr` whose other side evaluates.
  const eff = new Map(state.env);
  const derived = new Map();
  const equal = state.result?.constraints?.equal || [];
  for (let pass = 0; pass < 8; pass++) {
    let changed = false;
    for (const [a, b] of equal) {
      for (const [x, y] of [[a, b], [b, a]]) {
        if (typeof x !== 'string') continue;
        let toks;
        try { toks = tokenize(x); } catch { continue; }
        if (toks.length !== 1 || toks[0].t !== 'sym' || eff.has(toks[0].v)) continue;
        const v = sideValue(y, eff);
        if (v !== null && Number.isFinite(v)) {
          eff.set(toks[0].v, v);
          derived.set(toks[0].v, { value: v, from: String(y) });
          changed = true;
        }
      }
    }
    if (!changed) break;
  }
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

function memoryFigures() {
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

// Section - Shapes as chips

const shapeCache = new Map();

function shapeHTML(r) {
  if (!r.tensor) return `<span class="muted">${esc(r.type?.kind ?? 'unknown')}</span>`;
  const concrete = state.mode === 'concrete';
  const key = (concrete ? 'c' : 's') + r.shapeKey + (concrete && r.concrete ? r.concrete.join(',') : '');
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
      const v = concrete && r.concrete ? r.concrete[k] : null;
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
function shapeText(r) {
  if (!r.tensor) return r.type?.kind ?? 'unknown';
  if (!r.dims) return 'unknown rank';
  const concrete = state.mode === 'concrete' && r.concrete;
  return `[${r.dims.map((d, k) => (concrete && r.concrete[k] !== null ? r.concrete[k] : d ?? '?')).join(', ')}]`;
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

const KIND_SHORT = { input: 'in', output: 'out', weight: 'w', activation: '', inner: 'sub' };
const KIND_LABEL = { input: 'graph input', output: 'graph output', weight: 'initializer (weight)', activation: 'intermediate value', inner: 'value inside a subgraph' };

function opCell(r) {
  if (r.op && !(r.sub && r.sub.seeded)) return `<span class="opname">${esc(r.op)}</span><span class="nodename" title="${esc(r.nodeName)}">${esc(r.nodeName)}</span>`;
  if (r.sub) return `<span class="muted">${r.sub.op ? `${esc(r.sub.op)} body input` : 'subgraph input'}</span>`;
  return `<span class="muted">${r.kind === 'weight' ? 'initializer' : 'graph input'}</span>`;
}

/** Whether row r is read or written by the first broken node (its rows are marked red). */
function isBroken(r) {
  const b = state.broken;
  if (!b) return false;
  b.keys ??= new Set(Object.values(ioAt(b.path, b.nodeIndex) ?? {}).flat().filter(Boolean));
  return b.keys.has(r.name);
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

// Section - Side panels

function renderSummary() {
  const { result, model } = state;
  const ops = new Map();
  for (const n of result.nodes) ops.set(n.opType, (ops.get(n.opType) || 0) + 1);
  const topOps = [...ops.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, 10);
  const counts = { input: 0, output: 0, weight: 0, activation: 0, inner: 0 };
  for (const r of state.rows) counts[r.kind]++;
  const opset = model?.opsets?.find((o) => o.domain === '' || o.domain === 'ai.onnx');
  const facts = [
    state.info.fetched ? ['URL', urlFacts(state.info.fetched)]
      : ['File', `<span class="mono">${esc(state.fileName)}</span> <span class="muted">(${fmtBytes(state.fileSize)})</span>`],
    model?.producer ? ['Producer', `${esc(model.producer)} ${esc(model.producerVersion || '')}`] : null,
    model ? ['IR / opset', `${model.irVersion ?? '?'} / ${opset?.version ?? '?'}`] : null,
    ['Nodes', `${fmtInt(result.nodes.length)} <span class="muted">(${fmtInt(ops.size)} op types)</span>`],
    ['Values', `${fmtInt(counts.input)} in · ${fmtInt(counts.output)} out · ${fmtInt(counts.weight)} weights · ${fmtInt(counts.activation)} other${counts.inner ? ` · ${fmtInt(counts.inner)} in subgraphs` : ''}`],
    ['Inference', `${state.info.inferMs.toFixed(1)} ms${state.info.streamed ? ' (streamed)' : ''}`],
  ].filter(Boolean);
  $('summary').innerHTML = `<dl class="facts">${facts.map(([k, v]) => `<dt>${k}</dt><dd>${v}</dd>`).join('')}</dl>`
    + (topOps.length ? `<div class="ops" aria-label="Most used operators">${topOps.map(([op, n]) =>
      `<button type="button" class="op-chip" data-filter="op:${esc(op)}" aria-label="Filter by op ${esc(op)} (${n} nodes)">${esc(op)}<span>${n}</span></button>`).join('')}</div>` : '');
}

/** What reading a model from a URL cost: bytes fetched of the file's size, requests. */
function urlFacts(f) {
  const pct = f.size ? (100 * f.bytes) / f.size : 100;
  const how = f.ranged
    ? `fetched ${fmtBytes(f.bytes)} of ${fmtBytes(f.size)} (${pct < 0.1 ? pct.toFixed(3) : pct.toFixed(1)}%) in ${fmtInt(f.requests)} Range request${f.requests === 1 ? '' : 's'}`
    : `the server ignored Range requests: the whole file (${fmtBytes(f.bytes)}) was read`;
  return `<span class="mono url-name">${esc(state.fileName)}</span> <span class="muted" id="url-fetched" data-bytes="${f.bytes}" data-requests="${f.requests}" data-ranged="${f.ranged}">${how}</span>`;
}

function renderSymbols() {
  const box = $('symbols');
  if (!state.symbols.length) {
    box.innerHTML = '<p class="hint">This model has no symbolic dimensions: every shape is already concrete.</p>';
    renderMemory();
    return;
  }
  // Sizes are chosen for the graph inputs' symbols: they get a field. The others (data-dependent
  // counts, sizes inference named, labels) follow from the model's data or from those inputs;
  // they are listed, and the text field above still binds them.
  const inputSyms = state.symbols.filter((s) => s.source).slice(0, 200);
  const others = state.symbols.filter((s) => !s.source);
  const symRow = (s, k, field) => {
    const d = state.derived.get(s.name);
    const v = state.env.get(s.name);
    const src = s.source ? `<button type="button" class="link" data-goto="${esc(s.source)}" title="First declared by graph input ${esc(s.source)}">${esc(s.source)}</button>`
      : `<span>${s.dataDependent ? 'data-dependent' : 'from inference'}</span>`;
    return `<div class="sym-row${field ? '' : ' no-field'}">
      <button type="button" class="sym-btn" data-filter="sym:${esc(s.name)}" aria-label="Show values using ${esc(s.name)}" title="Show the ${s.uses} values that use ${esc(s.name)}">${symChip(s.name)}</button>
      <span class="sym-meta">${src}<span class="uses" title="used by ${s.uses} values">${fmtInt(s.uses)}</span></span>
      ${field ? `<input type="number" min="0" step="1" inputmode="numeric" id="sym-in-${k}" data-sym="${esc(s.name)}" value="${v ?? ''}" placeholder="${d ? esc(String(d.value)) : ''}" aria-label="Size of ${esc(s.name)}"${d ? ` title="derived: ${esc(d.from)} = ${d.value}"` : ''}>`
        : `<span class="sym-val" data-sym-val="${esc(s.name)}">${symValueHTML(s.name)}</span>`}
    </div>`;
  };
  const shownOthers = others.slice(0, 50);
  box.innerHTML = `<div class="sym-list">${inputSyms.map((s, k) => symRow(s, k, true)).join('')}</div>${
    others.length ? `<h3 class="sym-others-title">Other symbols <span class="count">${fmtInt(others.length)}</span></h3>
      <p class="hint">Not sizes of the graph inputs: counts that depend on the data, and sizes inference named. Bind them in the text field if you need to.</p>
      <div class="sym-list">${shownOthers.map((s, k) => symRow(s, k, false)).join('')}</div>` : ''}${
    others.length > shownOthers.length ? `<p class="hint">and ${fmtInt(others.length - shownOthers.length)} more.</p>` : ''}`;
  renderMemory();
}

function renderMemory() {
  const m = memoryFigures();
  const anyBound = state.effective.size > 0 || !state.symbols.length;
  const derivedNote = state.derived.size
    ? `<p class="hint">Derived from constraints: ${[...state.derived].map(([k, d]) => `${symChip(k)} = ${d.value}`).join(', ')}</p>` : '';
  if (!anyBound) {
    $('memory').innerHTML = '<p class="hint">Give the symbols sizes to see every shape as numbers, with the bytes per tensor and the activation memory.</p>';
    return;
  }
  $('memory').innerHTML = `${derivedNote}<dl class="mem">
    <div><dt>Activations</dt><dd id="mem-total">${fmtBytes(m.total)}</dd></div>
    <div><dt>Largest</dt><dd id="mem-largest">${m.largest ? `${fmtBytes(m.largest.bytes)}<button type="button" class="link small" data-goto="${esc(m.largest.name)}">${esc(m.largest.name)}</button>` : '—'}</dd></div>
    <div><dt>Weights</dt><dd>${fmtBytes(m.weights)}</dd></div>
  </dl>${m.unknown ? `<p class="hint">${fmtInt(m.unknown)} activations have no size yet (unbound symbols or unknown dims).</p>` : ''}
  <p class="hint">Activations are all values except initializers: graph inputs, outputs and intermediates, each counted once, as if all were alive at once.</p>`;
}

const DIAG_LEVEL = { ANCHOR_CONFLICT: 'error', SHAPE_MISMATCH: 'error', INVALID_MODEL: 'error', UNSUPPORTED_OP: 'warn', OPSET_MISMATCH: 'warn', MISSING_OPSET: 'warn', DATA_DEPENDENT: 'info' };

function renderDiagnostics() {
  const diags = state.result.diagnostics || [];
  $('diagnostics-count').textContent = diags.length ? fmtInt(diags.length) : '';
  if (!diags.length) {
    $('diagnostics').innerHTML = '<p class="ok-line"><span class="ok-dot" aria-hidden="true"></span>No problems: every operator had a shape rule and every declared shape agrees.</p>';
    return;
  }
  const byCode = new Map();
  for (const d of diags) byCode.set(d.code, (byCode.get(d.code) || 0) + 1);
  const b = state.broken;
  const first = b ? `<div class="first-error" id="first-error"><span class="badge error">first error</span><span><span class="opname">${esc(b.opType || '')}</span> <span class="mono">${esc(b.node || `node #${b.nodeIndex}`)}</span>${b.path ? ` <span class="muted">in ${esc(b.path)}</span>` : ''}</span><button type="button" class="link small" data-broken>show in graph</button></div>` : '';
  const shown = diags.slice(0, 200);
  $('diagnostics').innerHTML = `${first}<p class="diag-summary">${[...byCode].map(([c, n]) => `<span class="badge ${DIAG_LEVEL[c] || 'warn'}">${esc(c)} ${n}</span>`).join(' ')}</p>
    <ul class="diag-list">${shown.map((d) => {
      const target = diagTarget(d);
      const where = d.node || d.opType ? `<span class="diag-node">${d.opType ? `<span class="opname">${esc(d.opType)}</span>` : ''}${d.node ? ` <span class="mono">${esc(d.node)}</span>` : ''}</span>` : '';
      return `<li class="diag ${DIAG_LEVEL[d.code] || 'warn'}"><span class="badge ${DIAG_LEVEL[d.code] || 'warn'}">${esc(d.code)}</span>${where}
        <p>${esc(d.message)}</p>${target ? `<button type="button" class="link small" data-goto="${esc(target)}">show ${esc(target)}</button>` : ''}</li>`;
    }).join('')}</ul>${diags.length > shown.length ? `<p class="hint">and ${fmtInt(diags.length - shown.length)} more.</p>` : ''}`;
}

/**
 * The value a diagnostic is about: for a node (in the graph its path names), its first output
 * with a type, else its first such input; for the model (no node), a value its message quotes.
 */
function diagTarget(d) {
  if (typeof d.nodeIndex === 'number' && d.nodeIndex >= 0) {
    const n = ioAt(d.path ?? '', d.nodeIndex);
    if (!n) return null;
    return n.outputs.find((x) => x && state.byName.has(x)) ?? n.inputs.find((x) => x && state.byName.has(x)) ?? null;
  }
  for (const m of d.message.matchAll(/'([^']+)'/g)) if (state.byName.has(m[1])) return m[1];
  return null;
}

/** Node `index` of graph `path` ('' or a subgraph path): {name, opType, domain}, or null. */
function nodeAt(path, index) {
  const r = state.result;
  const nodes = path === '' ? r.nodes : r.subgraphs?.[path]?.nodes;
  return nodes && index >= 0 && index < nodes.length ? nodes[index] : null;
}

function constraintHTML(a, b, rel, env) {
  let check = '';
  if (env.size) {
    const va = sideValue(a, env);
    const vb = sideValue(b, env);
    if (va !== null && vb !== null && Number.isFinite(va) && Number.isFinite(vb)) {
      const ok = rel === '=' ? va === vb : va <= vb;
      check = ok ? `<span class="check ok" title="${va} ${rel === '=' ? '=' : '≤'} ${vb}" aria-label="holds">✓</span>`
        : `<span class="check bad" title="${va} vs ${vb}" aria-label="violated">✗ ${va} vs ${vb}</span>`;
    }
  }
  return `<li><code class="expr-line">${exprHTML(a)} <span class="rel">${rel === '=' ? '=' : '≤'}</span> ${exprHTML(b)}</code>${check}</li>`;
}

function renderConstraints() {
  const c = state.result.constraints || {};
  const eq = c.equal || [];
  const le = c.lessEqual || [];
  const n = eq.length + le.length;
  $('constraints-count').textContent = n ? fmtInt(n) : '';
  if (!n) {
    $('constraints').innerHTML = '<p class="hint">No relations between symbols were needed.</p>';
    return;
  }
  const env = state.effective;
  const list = [...eq.slice(0, 200).map(([a, b]) => constraintHTML(a, b, '=', env)), ...le.slice(0, 200).map(([a, b]) => constraintHTML(a, b, '<=', env))];
  const labels = Object.entries(c.labels || {});
  const labelsHTML = labels.length
    ? `<p class="hint">Declared output labels, shown as the size they name: ${labels.slice(0, 200).map(([l, e]) => `<code>${exprHTML(l)} = ${exprHTML(e)}</code>`).join(', ')}</p>` : '';
  $('constraints').innerHTML = `<ul class="constraint-list">${list.join('')}</ul>${labelsHTML}
    <p class="hint">Equalities come from ops that need two dims to match (Add, Concat, MatMul…) and from declared output names; “≤” bounds come from data-dependent sizes.</p>`;
}

// Section - Why this shape

/** Event log entries about value `key` (path + name), indexed once per result. */
function eventsFor(key) {
  const events = state.result.events;
  if (!Array.isArray(events)) return null;
  if (!state.eventsByValue) {
    const idx = new Map();
    for (const e of events) {
      if (!e || typeof e !== 'object' || !e.value) continue;
      const k = (e.path || '') + e.value;
      let l = idx.get(k);
      if (!l) idx.set(k, (l = []));
      l.push(e);
    }
    state.eventsByValue = idx;
  }
  return state.eventsByValue.get(key) || [];
}

const reEscape = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const symRegexCache = new Map();
function mentionsSymbol(text, sym) {
  let re = symRegexCache.get(sym);
  if (!re) symRegexCache.set(sym, (re = new RegExp(`(^|[^A-Za-z0-9_'])${reEscape(printSymbol(sym))}($|[^A-Za-z0-9_'])`)));
  return re.test(text);
}

/** Constraint and rename events that mention one of the symbols. */
function symbolEvents(syms, also = []) {
  const events = state.result.events;
  if (!Array.isArray(events) || !syms.length) return [];
  const out = [];
  for (const e of events) {
    if (!e || (e.kind !== 'constraint' && e.kind !== 'rename') || also.includes(e)) continue;
    const text = String(e.detail ?? '');
    if (syms.some((s) => mentionsSymbol(text, s))) out.push(e);
    if (out.length >= 50) break;
  }
  return out;
}

/** Splits a list at top-level commas (Broadcast(a,b) keeps its comma). */
function splitTop(text) {
  const parts = [];
  let depth = 0;
  let cur = '';
  let q = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (q) { cur += c; if (c === '\\') { cur += text[++i] ?? ''; } else if (c === "'") q = false; continue; }
    if (c === "'") q = true;
    else if (c === '(') depth++;
    else if (c === ')') depth--;
    else if (c === ',' && depth === 0) { parts.push(cur); cur = ''; continue; }
    cur += c;
  }
  parts.push(cur);
  return parts;
}

function dimsHTML(dims) {
  if (!dims.length) return '<span class="scalar">scalar</span>';
  return `<span class="shape">${dims.map((d) => {
    if (d === null || d === '?') return '<span class="dim unk">?</span>';
    if (typeof d === 'number' || /^-?\d+$/.test(d)) return `<span class="dim">${d}</span>`;
    const syms = symbolsOf(d);
    const h = hue(syms[0] ?? d);
    return syms.length === 1 && d === printSymbol(syms[0])
      ? `<span class="dim symd" style="--h:${h}">${esc(d)}</span>`
      : `<span class="dim symd expr" style="--h:${h}">${exprHTML(d)}</span>`;
  }).join('<span class="x" aria-hidden="true">×</span>')}</span>`;
}

/** Renders an event's detail text: `float[a,b]` types become chips, `->` arrows, expressions coloured. */
function detailHTML(text) {
  const out = [];
  const re = /([A-Za-z0-9_]+)\[([^\]]*)\]/g;
  let last = 0;
  let m;
  while ((m = re.exec(text))) {
    out.push(plainDetail(text.slice(last, m.index)));
    out.push(`<span class="etype">${esc(m[1])}</span>${dimsHTML(m[2] === '' ? [] : splitTop(m[2]).map((x) => x.trim()))}`);
    last = m.index + m[0].length;
  }
  out.push(plainDetail(text.slice(last)));
  return out.join('');
}

function plainDetail(text) {
  if (!text) return '';
  // "a == b" and "a -> b": render both sides as expressions when they parse.
  const m = /^\s*(\S.*?)\s*(==|->|<=)\s*(.*?\S)\s*$/.exec(text);
  if (m) {
    try {
      tokenize(m[1]); tokenize(m[3]);
      return `<code class="expr-line">${exprHTML(m[1])} <span class="rel">${{ '==': '=', '->': '→', '<=': '≤' }[m[2]]}</span> ${exprHTML(m[3])}</code>`;
    } catch { /* fall through */ }
  }
  return esc(text).replace(/ -&gt; /g, ' <span class="arrow">→</span> ');
}

const EVENT_TEXT = {
  seed: 'Seeded from the declaration',
  set: 'Set by the shape rule of',
  anchor: 'Reconciled with the declared shape',
  replace: 'Rewritten after a rename',
  rename: 'Renamed',
  constraint: 'Constraint recorded',
  node: 'Visited node',
};

function eventHTML(e) {
  const what = EVENT_TEXT[e.kind] ?? e.kind;
  const node = e.kind === 'set' || (e.kind === 'seed' && e.node)
    ? ` <span class="opname">${esc(e.opType || '')}</span> <span class="mono muted">${esc(e.node || '')}</span>` : '';
  const lines = e.detail ? String(e.detail).split(/;\s+/).map((l) => `<span class="ev-line">${detailHTML(l)}</span>`).join('') : '';
  return `<li class="ev"><span class="badge ev-${esc(e.kind)}">${esc(e.kind)}</span> <span class="ev-what">${esc(what)}${node}</span>${lines ? `<div class="ev-detail">${lines}</div>` : ''}</li>`;
}

function valueLink(name) {
  const r = state.byName.get(name);
  if (!r) return `<span class="mono muted">${esc(name || '(none)')}</span>`;
  return `<button type="button" class="link mono" data-goto="${esc(name)}">${esc(name)}</button>`;
}

function typeLine(r) {
  return `<span class="etype">${esc(r.elem)}</span> ${shapeHTML(r)}`;
}

function declaredVerdict(r, events) {
  if (r.kind !== 'output') return '';
  const out = state.model?.outputs?.find((o) => o.name === r.name);
  const decl = out?.type ?? null;
  const anchor = events?.find((e) => e.kind === 'anchor');
  const declaredDims = decl?.dims ?? null;
  const conflict = (state.result.diagnostics || []).find((d) => d.code === 'ANCHOR_CONFLICT'
    && (d.message.includes(`'${r.name}'`) || d.message.includes(r.name) || d.node === r.name));
  let verdict;
  let text;
  if (conflict) { verdict = 'contradiction'; text = `${conflict.message} The declaration was ignored.`; }
  else if (!out && !anchor) { verdict = 'unknown'; text = 'the model file could not be read for its declaration.'; }
  else if (!declaredDims && !anchor) { verdict = 'unknown'; text = 'the model declares no shape for this output: nothing to check.'; }
  else if (!r.dims) { verdict = 'unknown'; text = 'inference could not find the shape, so the declaration was not checked.'; }
  else { verdict = 'consistent'; text = anchor ? 'the operators imply the same shape; the declared names were kept.' : 'the operators imply the same shape.'; }
  const dd = declaredDims ? dimsHTML(declaredDims) : '<span class="muted">no shape declared</span>';
  return `<section class="d-sec" id="d-declared"><h3>Declared by the model</h3>
    <p class="d-type"><span class="etype">${esc(decl?.elemType ?? '?')}</span> ${dd}</p>
    <p class="verdict" id="verdict"><span class="badge v-${verdict}">${verdict}</span> <span>${esc(text)}</span></p></section>`;
}

function openDetail(name, { focus = true } = {}) {
  const r = state.byName.get(name);
  if (!r) return;
  state.detail = name;
  const { result, model } = state;
  const node = r.nodeIndex >= 0 ? result.nodes[r.nodeIndex] : null;
  const scanned = node ? nodeIO(r.nodeIndex) : null;
  const events = eventsFor(name);
  let html = `<section class="d-sec d-top"><p class="d-kind">${KIND_SHORT[r.kind] ? `<span class="kind k-${r.kind}">${KIND_SHORT[r.kind]}</span>` : ''}${KIND_LABEL[r.kind]}${r.sub ? ` <span class="mono muted">${esc(r.sub.path)}</span>` : ''}</p>
    <p class="d-type">${typeLine(r)}</p>
    ${r.bytes !== null ? `<p class="d-size" id="d-size">${fmtBytes(r.bytes)} <span class="muted">(${fmtInt(r.bytes)} bytes at the current sizes)</span></p>` : ''}</section>`;

  if (node) {
    html += `<section class="d-sec" id="d-producer"><h3>Produced by</h3>
      <p class="d-node"><span class="opname">${esc(node.opType)}</span>${node.domain ? `<span class="muted">${esc(node.domain)}</span>` : ''} <span class="mono">${esc(node.name || `node #${r.nodeIndex}`)}</span> <span class="muted">node #${r.nodeIndex}</span></p>`;
    if (scanned) {
      html += `<h4>Its inputs</h4><ul class="io-list">${scanned.inputs.map((inp, k) => {
        if (!inp) return `<li><span class="muted">#${k} omitted (optional)</span></li>`;
        const ir = state.byName.get(inp);
        return `<li>${valueLink(inp)} ${ir ? typeLine(ir) : '<span class="muted">unknown</span>'}</li>`;
      }).join('') || '<li class="muted">none</li>'}</ul>`;
      if (scanned.outputs.filter(Boolean).length > 1) {
        html += `<h4>Its outputs</h4><ul class="io-list">${scanned.outputs.filter(Boolean).map((o) => {
          const orow = state.byName.get(o);
          return `<li>${o === r.name ? `<strong class="mono">${esc(o)}</strong>` : valueLink(o)} ${orow ? typeLine(orow) : ''}</li>`;
        }).join('')}</ul>`;
      }
    }
    html += '</section>';
  } else if (r.sub) {
    html += `<section class="d-sec" id="d-producer"><h3>${r.sub.seeded ? 'Source' : 'Produced by'}</h3><p class="d-node">${r.sub.seeded
      ? `An input of the subgraph <span class="mono">${esc(r.sub.path)}</span>${r.sub.op ? `, seeded by <span class="opname">${esc(r.sub.op)}</span> <span class="mono">${esc(r.sub.node)}</span>` : ''}.`
      : `<span class="opname">${esc(r.sub.op)}</span> <span class="mono">${esc(r.sub.node)}</span> <span class="muted">in ${esc(r.sub.path)}</span>`}</p></section>`;
  } else {
    html += `<section class="d-sec" id="d-producer"><h3>Source</h3><p>${r.kind === 'weight'
      ? 'An initializer: its shape is stored in the model with its data.'
      : 'A graph input: its shape is declared by the model and seeds the inference.'}</p></section>`;
  }

  // How: the event log when the engine recorded one; otherwise what the result implies.
  html += '<section class="d-sec" id="d-how"><h3>How it was derived</h3>';
  if (events && events.length) {
    html += `<ol class="events">${events.slice(0, 100).map(eventHTML).join('')}</ol>`;
  } else if (node) {
    html += `<p>The shape rule of <span class="opname">${esc(node.opType)}</span> computed it from the shapes of the node's inputs${scanned ? ' above' : ''}.</p>`;
    if (events === null) html += '<p class="hint">This engine build records no event log, so the step-by-step trace is not available.</p>';
  } else {
    html += `<p>${r.kind === 'weight' ? 'Read from the initializer.' : 'Read from the declaration.'}</p>`;
  }
  html += '</section>';

  html += declaredVerdict(r, events);

  // Symbols: where each comes from, constraints and renames that mention them.
  if (r.syms.length) {
    const c = result.constraints || {};
    const mentions = (side) => typeof side === 'string' && symbolsOf(side).some((s) => r.syms.includes(s));
    const eq = (c.equal || []).filter(([a, b]) => mentions(a) || mentions(b)).slice(0, 50);
    const le = (c.lessEqual || []).filter(([a, b]) => mentions(a) || mentions(b)).slice(0, 50);
    const symEv = symbolEvents(r.syms, events || []);
    html += `<section class="d-sec" id="d-symbols"><h3>Its symbols</h3><ul class="sym-origin">${r.syms.map((s) => {
      const info = state.symbols.find((x) => x.name === s);
      const bound = state.effective.get(s);
      const origin = info?.source ? `first declared by ${valueLink(info.source)}`
        : info?.dataDependent ? 'a fresh symbol for a data-dependent size' : 'introduced during inference';
      return `<li>${symChip(s)} <span>${origin}</span>${bound !== undefined ? ` <span class="bound-val">= ${bound}${state.derived.has(s) ? ' <span class="muted">(derived)</span>' : ''}</span>` : ''}</li>`;
    }).join('')}</ul>`;
    if (eq.length || le.length) {
      html += `<h4>Constraints</h4><ul class="constraint-list">${eq.map(([a, b]) => constraintHTML(a, b, '=', state.effective)).join('')}${le.map(([a, b]) => constraintHTML(a, b, '<=', state.effective)).join('')}</ul>`;
    }
    if (symEv.length) html += `<h4>Renames and constraints</h4><ol class="events">${symEv.map(eventHTML).join('')}</ol>`;
    html += '</section>';
  }

  const diags = (result.diagnostics || []).filter((d) => (r.nodeIndex >= 0 && d.nodeIndex === r.nodeIndex && !d.path) || d.message.includes(`'${r.name}'`));
  if (diags.length) {
    html += `<section class="d-sec"><h3>Diagnostics</h3><ul class="diag-list">${diags.map((d) => `<li class="diag ${DIAG_LEVEL[d.code] || 'warn'}"><span class="badge ${DIAG_LEVEL[d.code] || 'warn'}">${esc(d.code)}</span><p>${esc(d.message)}</p></li>`).join('')}</ul></section>`;
  }

  // Consumers: every node that reads it, in the model's graph or a body.
  const users = consumersOf(name);
  if (users.length) {
    html += `<section class="d-sec" id="d-users"><h3>Used by <span class="count">${fmtInt(users.length)}</span></h3><ul class="io-list">${users.slice(0, 30).map((u) => {
      const n = nodeAt(u.path, u.index);
      const o = ioAt(u.path, u.index)?.outputs.find((x) => x && state.byName.has(x));
      return `<li><span class="opname">${esc(n?.opType ?? '')}</span> <span class="mono muted">${esc(n?.name ?? '')}</span>${u.path ? ` <span class="muted">in ${esc(u.path)}</span>` : ''}${o ? ` <span class="arrow">→</span> ${valueLink(o)}` : ''}</li>`;
    }).join('')}</ul>${users.length > 30 ? `<p class="hint">and ${fmtInt(users.length - 30)} more.</p>` : ''}</section>`;
  }

  $('detail-title').textContent = name;
  html = `<p class="d-actions"><button type="button" class="btn small" data-show-graph="${esc(name)}">Show in graph</button></p>${html}`;
  $('detail-body').innerHTML = html;
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
  if ($('bindings-text') !== document.activeElement) {
    $('bindings-text').value = [...state.env].map(([k, v]) => `${printSymbol(k)}=${v}`).join(', ');
  }
  applyView({ keepScroll: true });
  if (state.detail) openDetail(state.detail, { focus: false });
}

/** The size a field-less symbol has now: bound in the text field, or derived. */
function symValueHTML(name) {
  const v = state.env.get(name);
  const d = state.derived.get(name);
  return v !== undefined ? String(v) : d ? `<span class="muted" title="derived: ${esc(d.from)}">${d.value}</span>` : '';
}

function updateSymbolPlaceholders() {
  for (const el of document.querySelectorAll('#symbols [data-sym-val]')) el.innerHTML = symValueHTML(el.dataset.symVal);
  for (const input of document.querySelectorAll('#symbols input[data-sym]')) {
    const d = state.derived.get(input.dataset.sym);
    input.placeholder = d ? String(d.value) : '';
    if (d) input.title = `derived: ${d.from} = ${d.value}`; else input.removeAttribute('title');
  }
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
