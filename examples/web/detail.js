// The side panel that opens over the page: "Why this shape" of a value (why.js builds it) or the
// node panel of a node (node_panel.js), opened from the table, the graph, links in the panels;
// closed by its button or Escape.
import { $, esc } from './page_util.js';
import { state, nodeAt } from './page_data.js';
import { whyHTML } from './why.js';
import { nodeHTML, nodeAttributesHTML } from './node_panel.js';
import { applyView, renderRows, setActive } from './table.js';
import { graphView } from './graph_tab.js';
import { ask } from './worker_client.js';

function showPanel(kicker, title, html, focus) {
  $('detail-kicker').textContent = kicker;
  $('detail-title').textContent = title;
  $('detail-body').innerHTML = html;
  $('detail-body').scrollTop = 0;
  $('detail').hidden = false;
  document.body.classList.add('detail-open');
  renderRows();
  if (focus) $('detail-title').focus();
}

export function openDetail(name, { focus = true } = {}) {
  // The value's events come from the worker: drawn again when they do, if still open.
  const html = whyHTML(name, () => { if (state.detail === name && !$('detail').hidden) openDetail(name, { focus: false }); });
  if (html === null) return;
  state.detail = name;
  state.detailNode = null;
  graphView.select(name);
  showPanel('Why this shape', name, `<p class="d-actions"><button type="button" class="btn small" data-show-graph="${esc(name)}">Show in graph</button></p>${html}`, focus);
}

// The attributes of the node last shown (the worker holds the result; a binding change redraws
// the panel without asking again).
let shownAttributes = { path: null, index: -1, attributes: undefined };

/** Opens the node panel of node `index` of graph `path` ('' for the model's graph). */
export function openNode(path, index, { focus = true } = {}) {
  const node = nodeAt(path, index);
  if (!node) return;
  const same = shownAttributes.path === path && shownAttributes.index === index && state.result === shownAttributes.result;
  if (!same) shownAttributes = { path, index, result: state.result, attributes: undefined };
  const html = nodeHTML(path, index, shownAttributes.attributes);
  state.detail = null;
  state.detailNode = { path, index };
  showPanel('Node', node.name || `${node.opType} #${index}`, `<p class="d-actions"><button type="button" class="btn small" data-show-node-graph="${index}" data-show-node-path="${esc(path)}">Show in graph</button></p>${html}`, focus);
  if (shownAttributes.attributes !== undefined) return;
  const asked = shownAttributes;
  ask({ type: 'node', model: state.modelId, path, index }).then(
    (msg) => { asked.attributes = msg.attributes; },
    () => { asked.attributes = null; },
  ).then(() => {
    const open = state.detailNode;
    if (shownAttributes !== asked || !open || open.path !== path || open.index !== index) return; // another panel since
    $('n-attrs-body').innerHTML = nodeAttributesHTML(path, index, asked.attributes);
  });
}

/** Redraws the open panel (the sizes changed). */
export function refreshDetail() {
  if (state.detail) openDetail(state.detail, { focus: false });
  else if (state.detailNode) openNode(state.detailNode.path, state.detailNode.index, { focus: false });
}

export function closeDetail() {
  if ($('detail').hidden) return;
  $('detail').hidden = true;
  document.body.classList.remove('detail-open');
  state.detail = null;
  state.detailNode = null;
  renderRows();
  $('values').focus();
}

/** Shows a value: select its row (clearing a filter that hides it) and open its detail. */
export function gotoValue(name) {
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
