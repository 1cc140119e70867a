// The Graph tab of the page: the graph view (graph_view.js draws, layout_worker.js lays out) fed
// from the inference worker, the Table/Graph tabs, and "Show in graph" for a value; its boxes
// show their MACs (cost_panel.js).
import { tokenize } from '../../js/expr.js';
import { $, hue } from './page_util.js';
import { state, brokenNode } from './page_data.js';
import { tell } from './worker_client.js';
import { createGraphView } from './graph_view.js';
import { graphNotes } from './cost_panel.js';

// What a click on a value or a node in the graph does; set by the page (the detail panel opens them).
const handlers = { onValue: () => {}, onNode: () => {} };

/** Sets what a click on a value (an edge) in the graph does: fn(key). */
export function onGraphValue(fn) { handlers.onValue = fn; }

/** Sets what a click on a node box in the graph does: fn(path, index). */
export function onGraphNode(fn) { handlers.onNode = fn; }

export const graphView = createGraphView({
  root: $('graph'),
  hue,
  tokenize,
  brokenNode,
  workerUrl: globalThis.__ONNX_SHAPES_LAYOUT_URL__ ?? new URL('./layout_worker.js', import.meta.url),
  workerType: globalThis.__ONNX_SHAPES_LAYOUT_URL__ ? 'classic' : 'module', // the single-file build's is a classic script
  // Each model's graph goes from the inference worker to the layout worker through this port.
  connectInference: (port) => tell({ type: 'graphPort', port }, [port]),
  modelId: () => state.modelId,
  onValue: (key) => { if (state.byName.has(key)) handlers.onValue(key); },
  onNodeSelect: ({ path, index }) => handlers.onNode(path, index),
  // Each box's MACs (a group's total) at the bindings, once the cost is counted: the notes are
  // always given, so the layout (which reserves their line) does not change when they do.
  notes: graphNotes(),
});

/** Redraws the graph's notes (the cost changed); the layout is kept. */
export function refreshGraphNotes() {
  if (graphView.state.view) graphView.setNotes(graphNotes());
}

export function setTab(tab) {
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
export function showInGraph(key) {
  const path = state.result.subgraphValues?.[key]?.path ?? '';
  state.tab = 'graph';
  setTab('graph');
  return graphView.focusValue(key, path);
}

/** Shows node `index` of graph `path` in the graph. */
export function showNodeInGraph(path, index) {
  state.tab = 'graph';
  setTab('graph');
  if (typeof graphView.focusNode === 'function') return graphView.focusNode(path, index);
  graphView.state.scope = path;
  graphView.state.focus = { node: index };
  return graphView.show();
}

/** Shows the first broken node in the graph (the diagnostics' "show in graph"). */
export function showBrokenInGraph() {
  const b = brokenNode();
  return showNodeInGraph(b.path, b.nodeIndex);
}

/** Shows body `key` (a key of result.subgraphs) in the graph. */
export function showBodyInGraph(key) {
  state.tab = 'graph';
  setTab('graph');
  graphView.state.scope = key;
  graphView.state.focus = null;
  return graphView.show();
}
