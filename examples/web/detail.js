// The side panel that opens over the page: "Why this shape" of a value (why.js builds it), opened
// from the table, the graph, links in the panels; closed by its button or Escape.
import { $, esc } from './page_util.js';
import { state, ioAt } from './page_data.js';
import { whyHTML } from './why.js';
import { applyView, renderRows, setActive } from './table.js';
import { graphView } from './graph_tab.js';

export function openDetail(name, { focus = true } = {}) {
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

export function closeDetail() {
  if ($('detail').hidden) return;
  $('detail').hidden = true;
  document.body.classList.remove('detail-open');
  state.detail = null;

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

/** Shows node `index` of graph `path`: the detail of its first output that has a type. */
export function gotoNode(path, index) {
  const io = ioAt(path, index);
  const out = io?.outputs.find((k) => k && state.byName.has(k)) ?? io?.inputs.find((k) => k && state.byName.has(k));
  if (out) gotoValue(out);
}
