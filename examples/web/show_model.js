// Puts a model on screen: the worker's result becomes the page's state and rows, the bindings
// start empty, and every panel, the table and the graph view are drawn for it. The result comes in
// parts (worker.js resultParts): the first rows show at once, the rest is added a part per task;
// once all are in, the worker counts the cost (cost_panel.js).
import { $, fmtInt } from './page_util.js';
import { state, brokenNode } from './page_data.js';
import { parseResult, startRows, addRows, addNodes, addSymbols } from './model_rows.js';
import { applySizes, clearSizes } from './sizes.js';
import { renderSummary, renderSymbols, renderDiagnostics, renderConstraints, renderDefinitions } from './panels.js';
import { applyView, setMode, invalidateRows, renderRows, rowsAdded } from './table.js';
import { resetBindings, renderRefusal, costChanged, bindingsChanged } from './bindings.js';
import { graphView } from './graph_tab.js';
import { openDetail } from './detail.js';
import { resetCost, requestCost, renderCost } from './cost_panel.js';

/**
 * The event log of the model on screen, which the worker records after the result (a second
 * inference: the table does not wait for it). The summary and an open "Why this shape" panel are
 * drawn again with it; body[data-events=ready] says it is there.
 */
export function eventsArrived(msg) {
  if (msg.id !== state.eventsId) {
    // The log of a model not on screen yet (it can come before showModel runs: a small model's
    // second inference is quicker than a frame), kept for it; that of an older model is dropped.
    if (!(msg.id < state.eventsId)) earlyEvents = msg;
    return;
  }
  earlyEvents = null;
  state.eventLog = msg.available ? 'ready' : 'none';
  state.whyEvents = new Map();
  if (state.info) {
    state.info.eventsMs = msg.ms;
    renderSummary();
  }
  if (state.detail !== null && !$('detail').hidden) openDetail(state.detail, { focus: false });
  document.body.dataset.events = 'ready';
}

/** An event log that came before its model was shown (eventsArrived). */
let earlyEvents = null;

/** The parts of results still to add (worker_client.js routes `rows`, `nodes` and `end` here). */
const parts = [];
/** What is left to do once the last part is in: steps of one short task each. */
let finishing = [];
let scheduled = false;
let onComplete = null;

/** A part of a result from the worker (model_rows.js adds it, one part per task). */
export function partArrived(msg) {
  parts.push(msg);
  schedule();
}

function schedule() {
  if (scheduled || state.loadId === undefined) return;
  if (!finishing.length && !parts.some((p) => p.id <= state.loadId)) return;
  scheduled = true;
  setTimeout(step, 0); // a task of its own: the page paints and answers input in between
}

function step() {
  scheduled = false;
  const t0 = performance.now();
  let what = null;
  while (parts.length && parts[0].id < state.loadId) parts.shift(); // a model no longer on screen
  if (parts.length && parts[0].id === state.loadId) {
    what = parts[0].type;
    addPart(parts.shift());
  } else if (finishing.length) {
    what = `finish ${4 - finishing.length}`;
    finishing.shift()();
  }
  // How long each step took, for tests/browser/bench_table.mjs (the longest main-thread task).
  if (what) (state.steps ??= []).push([what, performance.now() - t0]);
  schedule();
}

function addPart(msg) {
  if (msg.type === 'rows') {
    const from = state.rows.length;
    addRows(JSON.parse(msg.json));
    rowsAdded(from);
    state.onRowsProgress?.(state.rows.length / state.result.rowCount);
  } else if (msg.type === 'meta') {
    Object.assign(state.result, JSON.parse(msg.json));
  } else if (msg.type === 'diagnostics') {
    for (const d of JSON.parse(msg.json)) state.result.diagnostics.push(d);
  } else if (msg.type === 'symbols') {
    addSymbols(JSON.parse(msg.json));
    invalidateRows(); // the symbols' colours
    renderRows();
  } else if (msg.type === 'nodes') {
    addNodes(JSON.parse(msg.json));
  } else if (msg.type === 'sizes') {
    // The sizes with nothing bound, counted by the worker with the rows (every row is in now); a
    // binding given while the rows came in is asked for again over all of them.
    if (state.env.size === 0) applySizes(msg.sizes);
    else bindingsChanged();
  } else if (msg.type === 'end') {
    state.result.subgraphs = JSON.parse(msg.json).subgraphs;
    state.consumers = null;
    finishing = finishSteps();
  }
}

/** Once every row and node is in: what needs them all, in steps. */
function finishSteps() {
  return [
    () => {
      state.broken = brokenNode();
      renderSummary();
    },
    () => {
      renderSymbols();
      renderRefusal();
    },
    () => {
      renderDiagnostics();
      renderConstraints();
    },
    () => {
      applyView({ keepScroll: true });
      graphView.reset(state.result);
      if (state.tab === 'graph') graphView.show();
      document.body.dataset.rows = 'complete';
      if (state.cost) startCost();
      const done = onComplete;
      onComplete = null;
      done?.();
    },
  ];
}

/**
 * Puts the worker's `done` message on screen: the first rows at once, then (a task per part as
 * they come) the other rows, the nodes and, once all are in, what needs them all: sizes,
 * summary, diagnostics, the graph view. Resolves when the model is complete.
 */
export function showModel(msg, displayName, size) {
  const { result, model } = parseResult(msg);
  delete document.body.dataset.events;
  document.body.dataset.rows = 'first';
  state.result = result;
  state.model = model;
  state.info = msg.info;
  state.fileName = displayName;
  state.fileSize = size;
  state.detail = null;
  state.detailNode = null;
  state.active = -1;
  state.consumers = null;
  state.broken = null;
  startRows(msg);
  if (earlyEvents?.id === msg.id) eventsArrived(earlyEvents);
  resetCost(msg.info.cost);

  // Bindings belong to one model: a new model starts symbolic.
  resetBindings();
  state.filter = '';
  $('filter').value = '';
  state.sort = { key: 'order', dir: 1 };
  setMode('symbolic', false);
  clearSizes();

  $('welcome').hidden = true;
  $('error-card').hidden = true;
  $('workspace').hidden = false;
  $('detail').hidden = true;
  $('download').hidden = !msg.info.writeBack;
  $('model-title').textContent = `${displayName} · ${fmtInt(result.nodeCount)} nodes · ${fmtInt(result.rowCount)} values`;
  document.title = `${displayName} · onnx-shapes`;
  $('summary').innerHTML = '<p class="hint">Reading the rest of the model…</p>';
  $('diagnostics').innerHTML = '';
  $('diagnostics-count').textContent = '';
  $('constraints').innerHTML = '';
  $('constraints-count').textContent = '';
  $('symbols').innerHTML = '<p class="hint">Reading the symbols…</p>';
  $('memory').innerHTML = '';
  $('bindings-issues').hidden = true;
  renderDefinitions();
  renderCost();
  applyView();
  graphView.reset(null); // the old model's graph goes; the new one's first view is asked for now

  finishing = [];
  state.steps = [];
  state.loadId = undefined; // parts wait until the first rows are painted
  const complete = new Promise((resolve) => { onComplete = resolve; });
  const token = {};
  state.loadToken = token;
  requestAnimationFrame(() => setTimeout(() => {
    if (state.loadToken !== token) return; // another model came meanwhile
    state.loadId = msg.id;
    schedule();
  }, 0));
  return complete;
}

/**
 * Asks the worker for the cost of the model now complete; it is drawn when the worker answers.
 * Timings for tests/browser/bench_cost.mjs: costMs, the main thread's time drawing it;
 * costShownMs, from here to drawn; the marks onnx-shapes:cost-draw and :cost-painted (the frame
 * that paints it is over), between which the benchmark sums the main thread's CPU time.
 */
function startCost() {
  const t0 = performance.now();
  requestCost(() => {
    const t1 = performance.now();
    performance.mark('onnx-shapes:cost-draw');
    costChanged();
    const t2 = performance.now();
    window.__onnxShapesDemo.costMs = t2 - t1;
    window.__onnxShapesDemo.costShownMs = t2 - t0;
    // After the frame that paints it (the benchmark's CPU window ends here).
    requestAnimationFrame(() => setTimeout(() => performance.mark('onnx-shapes:cost-painted'), 0));
  });
}
