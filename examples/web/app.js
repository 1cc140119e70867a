// onnx-shapes demo page: loads a model into the worker (worker.js), then shows every value with its
// symbolic shape (virtualised table), the model's symbols with size bindings and memory figures,
// diagnostics, constraints, and a "Why this shape" panel per value. No dependencies.
//
// This module wires the page's modules together; each holds one concern:
//   worker_client.js  the inference worker          open_model.js  files, URLs, examples, progress
//   error_card.js     error card and toasts         show_model.js  a result on screen
//   model_rows.js     rows and symbols of a result  sizes.js       sizes at the bindings
//   bindings.js       the bindings inputs           table.js       filter, sort, virtual table
//   detail.js         the side panel                why.js         "why this shape"
//   node_panel.js     a node's attributes, inputs, outputs, weights
//   panels.js         summary, symbols, memory, diagnostics, constraints, named sizes
//   cost_panel.js     MACs, FLOPs, parameters, memory over the schedule (card, column, notes)
//   graph_tab.js      the Graph tab (graph_view.js, layout_worker.js)
import { $, esc, hue } from './page_util.js';
import { state } from './page_data.js';
import { ask, startWorker, onEvents, onParts } from './worker_client.js';
import { eventsArrived, partArrived } from './show_model.js';
import { showError, dismissError, toast } from './error_card.js';
import { loadFiles, loadUrl, loadExample, cancelOpening } from './open_model.js';
import { setFilter, wireTable } from './table.js';
import { openDetail, openNode, closeDetail, gotoValue } from './detail.js';
import { wireBindings } from './bindings.js';
import { stepAt } from './cost_panel.js';
import { graphView, onGraphValue, onGraphNode, setTab, showInGraph, showNodeInGraph, showBodyInGraph, showBrokenInGraph } from './graph_tab.js';

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

  $('progress-cancel').addEventListener('click', cancelOpening);
  wireTable({ openDetail, openNode });
  onEvents(eventsArrived);
  onParts(partArrived);
  onGraphValue((key) => openDetail(key, { focus: false }));
  onGraphNode((path, index) => openNode(path, index, { focus: false }));
  $('detail-close').addEventListener('click', closeDetail);

  // Delegated buttons: data-goto (open a value), data-open-node (a node's panel), data-filter (set
  // the filter), data-show-* (the graph).
  document.addEventListener('click', (e) => {
    if (e.target.closest('#error-card [data-dismiss]')) { dismissError(); return; }
    const sg = e.target.closest('[data-show-graph]');
    if (sg) { showInGraph(sg.dataset.showGraph); return; }
    // A tab button only: the tab panel records the shown tab in its own data-tab.
    const tab = e.target.closest('[role="tab"][data-tab]');
    if (tab) { setTab(tab.dataset.tab); return; }
    if (e.target.closest('[data-broken]')) { showBrokenInGraph(); return; }
    const nd = e.target.closest('[data-open-node]');
    if (nd) { openNode(nd.dataset.openNodePath ?? '', Number(nd.dataset.openNode)); return; }
    const sn = e.target.closest('[data-show-node-graph]');
    if (sn) { showNodeInGraph(sn.dataset.showNodePath ?? '', Number(sn.dataset.showNodeGraph)); return; }
    const sb = e.target.closest('[data-show-body]');
    if (sb) { showBodyInGraph(sb.dataset.showBody); return; }
    const g = e.target.closest('[data-goto]');
    if (g) { gotoValue(g.dataset.goto); return; }
    const f = e.target.closest('[data-filter]');
    if (f) { setFilter(f.dataset.filter); return; }
    const plot = e.target.closest('#cost-memory');
    if (plot) { const node = stepAt(plot, e.clientX); if (node !== null) openNode('', node); }
  });
  document.addEventListener('keydown', (e) => {
    if (e.key === 'Escape' && !$('detail').hidden) { e.preventDefault(); closeDetail(); }
  });

  wireBindings();

  $('download').addEventListener('click', async () => {
    try {
      const msg = await ask({ type: 'toModel', model: state.modelId });
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
startWorker().then(
  (info) => {
    // Each model's graph goes from the inference worker to the layout worker (sent once the
    // worker listens: a message posted while a module worker loads can be lost).
    graphView.connect();
    document.body.dataset.engine = info.version;
    // ?url=... (links from model hubs): open that model.
    const url = new URLSearchParams(location.search).get('url');
    if (url) { $('url-input').value = url; loadUrl(url); }
  },
  (err) => showError({ code: 'LOAD', message: err?.message ?? String(err) }),
);
