// The values table: filtering (name, op:, sym:, type:, is:), sorting, model order, and the
// virtualised rows (only the visible rows are in the DOM), with the active row and keyboard moves.
// The MACs column shows the producing node's MACs on its first output (cost_panel.js).
import { $, esc, fmtInt, fmtBytes } from './page_util.js';
import { state, ROW_H, OVERSCAN, shapeCache, shapeHTML, shapeText, KIND_SHORT, KIND_LABEL, isBroken, nodeIO } from './page_data.js';
import { nodeMacs, countShort } from './cost_panel.js';

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

/** The MACs a row shows: its producer's, on the producer's first output; null otherwise. */
function rowMacs(r) {
  if (r.nodeIndex < 0 || r.kind === 'inner' || !state.cost?.at) return null;
  r.firstOutput ??= nodeIO(r.nodeIndex)?.outputs.find((k) => k) === r.name;
  return r.firstOutput ? nodeMacs(r.nodeIndex) : null;
}

/**
 * Rows by their MACs in direction `dir`; in either direction the numbers come first, then the
 * expressions, then the rows without MACs.
 */
function compareMacs(a, b, dir) {
  const x = rowMacs(a), y = rowMacs(b);
  const rank = (v) => (typeof v === 'number' || typeof v === 'bigint' ? 0 : typeof v === 'string' ? 1 : 2);
  const rx = rank(x), ry = rank(y);
  if (rx !== ry) return rx - ry;
  return rx === 2 ? 0 : dir * (x < y ? -1 : x > y ? 1 : 0);
}

/** A row's MACs cell: [text, title, symbolic] ('' and null when it has none). */
function macsText(r) {
  const v = rowMacs(r);
  if (v === null || v === undefined) return ['', null, false];
  return [countShort(v), typeof v === 'string' ? v : `${fmtInt(Number(v))} MACs`, typeof v === 'string'];
}

function macsCell(r) {
  const [text, title, symbolic] = macsText(r);
  return `<div role="gridcell" class="c-macs num${symbolic ? ' symbolic' : ''}"${title === null ? '' : ` title="${esc(title)}"`}>${esc(text)}</div>`;
}

/**
 * The MACs of the rows on screen drawn again in their cells, and nothing else (the cost came, or
 * changed, and the rows did not): rebuilding the rows would make the next frame lay out and
 * paint every visible row (~20 ms CPU on a 32-layer export) for one column. A table sorted by
 * MACs is sorted again.
 */
export function renderMacs() {
  if (state.sort.key === 'macs') { applyView({ keepScroll: true }); return; }
  for (const rowEl of $('grid-rows').children) {
    const r = state.rows[state.view[Number(rowEl.dataset.v)]];
    const cell = rowEl.lastElementChild;
    if (!r || !cell?.classList.contains('c-macs')) continue;
    const [text, title, symbolic] = macsText(r);
    if (cell.textContent !== text) cell.textContent = text;
    if (title === null) cell.removeAttribute('title');
    else if (cell.title !== title) cell.title = title;
    cell.classList.toggle('symbolic', symbolic);
  }
}

export function applyView({ keepScroll = false } = {}) {
  const f = parseFilter(state.filter);
  const any = f.words.length || f.op.length || f.sym.length || f.type.length || f.is.length;
  const rows = state.rows;
  const { key, dir } = state.sort;
  // Start from model order: the rows come in it (table_rows.js); the default view needs no sort.
  state.modelOrder ??= rows.map((r) => r.i);
  let view = state.modelOrder;
  if (any) view = view.filter((i) => matches(rows[i], f));
  else view = view.slice();
  if (key === 'macs') view.sort((x, y) => compareMacs(rows[x], rows[y], dir) || rows[x].order - rows[y].order);
  else if (key !== 'order') view.sort((x, y) => dir * compareRows(rows[x], rows[y], key) || rows[x].order - rows[y].order);
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

/**
 * Rows appended from index `from` on (a model's rows come in parts): those the filter keeps join
 * the view in model order; a view sorted another way is sorted again once all rows are in
 * (show_model.js). The visible rows are drawn again only when new ones reach the screen.
 */
export function rowsAdded(from) {
  const rows = state.rows;
  const view = state.view;
  const shownBefore = view.length;
  if (state.sort.key === 'order') {
    const f = parseFilter(state.filter);
    const any = f.words.length || f.op.length || f.sym.length || f.type.length || f.is.length;
    for (let i = from; i < rows.length; i++) if (!any || matches(rows[i], f)) view.push(i);
    $('values-count').textContent = any ? `${fmtInt(view.length)} of ${fmtInt(rows.length)}` : fmtInt(rows.length);
    $('values').setAttribute('aria-rowcount', String(view.length + 1));
    $('grid-sizer').style.height = `${view.length * ROW_H}px`;
    $('grid-empty').hidden = view.length > 0;
  }
  const scroller = $('grid-scroll');
  const last = Math.ceil((scroller.scrollTop + scroller.clientHeight) / ROW_H) + OVERSCAN;
  if (view.length > shownBefore && last > shownBefore) {
    invalidateRows();
    renderRows();
  }
}

let lastRange = '';
let lastFirst = -1;
let lastLast = -1;
export function renderRows() {
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
        + macsCell(r)
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
export function invalidateRows() {
  lastRange = '';
  lastFirst = -1;
}

function opCell(r) {
  if (r.op && !(r.sub && r.sub.seeded)) {
    // The op opens the node's panel (top-level nodes; a body's node is reached from its values).
    const open = r.nodeIndex >= 0 ? ` data-open-node="${r.nodeIndex}" data-open-node-path="" title="${esc(r.op)} node: attributes, inputs, weights"` : '';
    return `<span class="opname${open ? ' node-link' : ''}"${open}>${esc(r.op)}</span><span class="nodename" title="${esc(r.nodeName)}">${esc(r.nodeName)}</span>`;
  }
  if (r.sub) return `<span class="muted">${r.sub.op ? `${esc(r.sub.op)} body input` : 'subgraph input'}</span>`;
  return `<span class="muted">${r.kind === 'weight' ? 'initializer' : 'graph input'}</span>`;
}

export function setActive(v, { scroll = true } = {}) {
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


export function setFilter(text) {
  state.filter = text;
  $('filter').value = text;
  applyView();
}

/** Symbolic or concrete shapes (the bound sizes) in the table. */
export function setMode(mode, render = true) {
  state.mode = mode;
  for (const b of document.querySelectorAll('.segmented [data-view]')) b.setAttribute('aria-checked', String(b.dataset.view === mode));
  shapeCache.clear();
  if (render) { invalidateRows(); renderRows(); }
}

/**
 * Scrolling, clicks, keys, sort headers, filter box and display mode; openDetail(name, {focus})
 * opens a value's panel, openNode(path, index) a node's (N on a row: its producer).
 */
export function wireTable({ openDetail, openNode }) {
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
    if (e.target.closest('[data-open-node]')) return; // the op: its node's panel (the page's delegation)
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
    } else if (e.key === 'n' && state.active >= 0 && openNode) {
      const r = state.rows[state.view[state.active]];
      if (r.nodeIndex >= 0) { e.preventDefault(); openNode('', r.nodeIndex); }
    }
  });
  for (const b of document.querySelectorAll('[data-sort]')) {
    b.addEventListener('click', () => {
      const key = b.dataset.sort;
      if (state.sort.key === key) {
        if (state.sort.dir === 1) state.sort.dir = -1;
        else state.sort = { key: 'order', dir: 1 };
      } else state.sort = { key, dir: key === 'size' || key === 'macs' ? -1 : 1 };
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
}
