// The graph view of the demo page: operators as boxes, values as edges labelled with their
// symbolic shapes. What to show and where is decided off the main thread by layout_worker.js
// (graph_model.js, graph_layout.js); this module asks it for views, draws the answers
// (graph_draw.js) and handles zoom, pan, the minimap and clicks.
//
//   const view = createGraphView({ root, hue, tokenize, connectInference, modelId, onValue, onNodeSelect, brokenNode, notes });
//   view.connect()              links the inference worker to the layout worker (once, at start):
//                               each model's graph goes from one to the other, not through here
//   view.reset(result)          a new model (result null: being shown; then complete): its first
//                               view is asked for at once, so that the layout worker lays it out
//                               as soon as the graph comes and the Graph tab opens on it
//   view.show()                 lays out the current scope (the first time: the model's graph, or the
//                               graph of the first broken node, focused on it)
//   view.focusValue(key, path)  the producer of value `key` (or its first reader), in its graph, at a
//                               readable zoom
//   view.focusNode(path, index) node `index` of graph `path`, likewise
//   view.select(key)            highlights a value's edges (the page's open detail)
//   view.setNotes(notes)        an extra short line per box and edge (costs, ...): notes.node({path,
//                               index}), notes.group({path, prefix, members: node indices}),
//                               notes.edge({path, key, keys}) each return a string ('' for none)
//
// Hooks: onValue(key, {fromGraph}) opens a value's details (an edge, a pill, a constant listed in
// a box); onNodeSelect({path, index}) a node's (a node box; without it, its first output's value).
import { drawView, minimapSVG, esc, DEFS } from './graph_draw.js';

const SVG_NS = 'http://www.w3.org/2000/svg';
const now = () => performance.now();

/** Default number of boxes a level may hold (see graph_layout.js for what is shown past it). */
export const DEFAULT_BUDGET = 120;
/** Fit never zooms out further: the smallest text (11 px) stays at least 8 px on screen. */
export const MIN_FIT_ZOOM = 0.75;
/** "Show in graph" zooms to at least this (the box's text at its size). */
export const READABLE_ZOOM = 1;
/** Pieces (boxes, edges, labels) put in per frame once what is on screen is drawn. */
const DRAW_CHUNK = 60;

/**
 * root: the element holding the view's markup (see index.html #graph); hue(symbol) → hue;
 * tokenize(expr) → tokens of js/expr.js; connectInference(port) hands a MessagePort to the
 * inference worker, which posts each model's graph to it ({model, json}: worker.js);
 * modelId() → the id of the model on screen (the `model` of those messages); brokenNode() →
 * {path, nodeIndex} or null; workerUrl/workerType: the layout worker (a module worker when
 * served; the single-file build makes it a classic one).
 */
export function createGraphView({ root, hue, tokenize, connectInference, modelId, onValue, onNodeSelect, brokenNode, workerUrl, workerType, notes = null }) {
  const $ = (sel) => root.querySelector(sel);
  const canvas = $('.graph-canvas');
  const svgHost = $('.graph-svg-host');
  const minimap = document.createElement('div');
  minimap.className = 'graph-minimap';
  minimap.hidden = true;
  minimap.setAttribute('aria-hidden', 'true');
  canvas.after(minimap);
  let worker = null;
  let nextId = 1;
  let latest = 0;
  let model = null; // the id of the model whose graph the layout worker shows
  let prepared = null; // { sig, answer }: the first view of the current model, asked for at once
  let preparing = Promise.resolve(false); // resolves once it is there (true) or not asked for (false)
  const pending = new Map();
  const st = {
    scope: '',
    expanded: new Map(), // scope path -> string[] (null: the worker's default)
    focus: null,
    zoom: 1,
    view: null,
    selected: null,
    budget: DEFAULT_BUDGET,
    subgraphs: {},
    metrics: null,
    notes,
  };

  function ensureWorker() {
    if (worker) return;
    worker = new Worker(workerUrl, { type: workerType ?? 'module', name: 'onnx-shapes-layout' });
    worker.onmessage = ({ data }) => {
      const p = pending.get(data.id);
      if (!p) return;
      pending.delete(data.id);
      if (data.type === 'error') p.reject(new Error(data.message));
      else p.resolve(data);
    };
    worker.onerror = (ev) => {
      for (const p of pending.values()) p.reject(new Error(ev.message || 'the layout worker failed'));
      pending.clear();
    };
  }

  function call(message) {
    ensureWorker();
    const id = nextId++;
    return new Promise((resolve, reject) => {
      pending.set(id, { resolve, reject });
      worker.postMessage({ ...message, id });
    });
  }

  function status(text) {
    $('.graph-status').textContent = text;
  }

  /**
   * Asks the worker for a view of the current scope and focus, and draws it (the newest answer
   * wins). `fit`: the view is made to fit the canvas (deeper groups closed) and zoomed to it;
   * `zoom`: the zoom to draw at; `overview`: a view without focus (the first one, Overview),
   * drawn whole when it fits the canvas at a readable zoom (Fit's zoom), else at 100 % from its top.
   */
  async function refresh({ fit = false, zoom = null, overview = false } = {}) {
    const t0 = now();
    const id = ++latest;
    status('Laying out…');
    root.dataset.busy = 'true';
    try {
      const req = viewRequest(fit);
      const sig = JSON.stringify(req);
      const early = prepared?.sig === sig ? prepared : null;
      prepared = null;
      // A prepared view that failed (its graph was not made) is asked for again: the error shown is the new one's.
      const view = early ? await early.answer.catch(() => call(req)) : await call(req);
      if (id !== latest) return; // a newer request is on its way
      const tView = now();
      st.view = view;
      st.expanded.set(st.scope, view.expanded);
      const whole = fit || (overview && fitsAt(view, fitZoom(view)));
      if (whole) st.zoom = fitZoom(view);
      else if (overview) st.zoom = 1;
      else if (zoom !== null) st.zoom = zoom;
      const rest = draw(view, id, whole);
      const tDraw = now();
      // Painted: the next frame after the SVG went in.
      await new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
      // totalMs: asked → painted (what is on screen); workerMs: choosing and laying out the
      // boxes; waitMs: asked → the layout worker's answer (the first view of a model: its graph
      // being made and read too, unless prepared); drawMs: building the SVG of what is on screen.
      st.metrics = {
        ...view.stats,
        workerMs: view.stats.totalMs,
        totalMs: now() - t0,
        waitMs: tView - t0,
        drawMs: tDraw - tView,
        prepared: !!early, // asked for before the tab was opened (see prepare)
        zoom: st.zoom,
      };
      if (!(await rest) || id !== latest) return;
      root.dataset.busy = 'false';
      status('');
    } catch (err) {
      if (id !== latest) return;
      root.dataset.busy = 'false';
      status(`The graph could not be laid out: ${err.message}`);
    }
  }

  /** The worker request for the current scope, focus and options. */
  function viewRequest(fit) {
    const broken = brokenNode();
    return {
      type: 'view',
      model,
      scope: st.scope,
      expanded: st.expanded.get(st.scope) ?? null,
      focus: fit ? null : st.focus,
      budget: st.budget,
      mark: broken && broken.path === st.scope ? broken.nodeIndex : -1,
      notes: { node: !!st.notes?.node, group: !!st.notes?.group, edge: !!st.notes?.edge },
      members: !!st.notes?.group,
      fit: fit ? { width: canvas.clientWidth, height: canvas.clientHeight, minZoom: MIN_FIT_ZOOM } : null,
    };
  }

  /**
   * Asks the layout worker for the first view of the model now, so that it is laid out as soon as
   * the graph comes from the inference worker (while the page adds the table's rows), and the
   * Graph tab draws it without waiting. Kept while the request stays the same (the model is
   * complete, no broken node moved the focus); a failure is shown when the view is asked for.
   */
  function prepare() {
    const req = viewRequest(false);
    const sig = JSON.stringify(req);
    if (prepared?.sig === sig) return;
    const answer = call(req);
    answer.catch(() => {});
    prepared = { sig, answer };
    preparing = answer.then(() => true, () => false);
  }

  const fitZoom = (v) => Math.max(MIN_FIT_ZOOM, Math.min(canvas.clientWidth / v.width, canvas.clientHeight / v.height, 1));
  const fitsAt = (v, z) => v.width * z <= canvas.clientWidth + 2 && v.height * z <= canvas.clientHeight + 2;

  // Section - Drawing

  /**
   * Draws the view: what the canvas shows (and half a canvas around it) at once, the rest over the
   * next frames, so that a large view never holds the page for long. Resolves to whether all of
   * it went in (false: a newer view replaced it).
   */
  async function draw(view, id, fit) {
    const w = Math.ceil(view.width);
    const h = Math.ceil(view.height);
    const pieces = drawView(view, { hue, tokenize, selected: st.selected, notes: st.notes, path: view.scope });
    const layers = ['frames', 'edges', 'labels', 'boxes'];
    svgHost.innerHTML = `<svg xmlns="${SVG_NS}" class="gv-svg" viewBox="0 0 ${w} ${h}" width="${Math.ceil(w * st.zoom)}" height="${Math.ceil(h * st.zoom)}" role="img" aria-label="Graph of ${esc(view.scope || 'the model')}">${DEFS}${layers.map((l) => `<g class="gv-layer-${l}"></g>`).join('')}</svg>`;
    minimap.innerHTML = `<svg xmlns="${SVG_NS}" viewBox="0 0 ${w} ${h}" preserveAspectRatio="xMidYMid meet">${minimapSVG(view)}<rect class="mm-viewport" x="0" y="0" width="0" height="0"/></svg>`;
    crumbs();
    const s = view.stats;
    $('.graph-stats').textContent = `${s.boxes.toLocaleString('en-US')} boxes of ${s.nodes.toLocaleString('en-US')} nodes${s.folded ? ` (${s.folded.toLocaleString('en-US')} constants shown in their readers)` : ''}${s.allBoxes > s.boxes ? ' · neighbourhood' : ''} · laid out in ${Math.round(s.totalMs)} ms`;
    const broken = brokenNode();
    $('[data-graph=error]').hidden = !broken;
    if (fit) { canvas.scrollLeft = Math.max(0, (view.width * st.zoom - canvas.clientWidth) / 2); canvas.scrollTop = 0; } else scrollToFocus();
    // On screen, grown by half a canvas each way, in the view's coordinates.
    const mx = canvas.clientWidth / 2;
    const my = canvas.clientHeight / 2;
    const x0 = (canvas.scrollLeft - mx) / st.zoom;
    const y0 = (canvas.scrollTop - my) / st.zoom;
    const x1 = (canvas.scrollLeft + canvas.clientWidth + mx) / st.zoom;
    const y1 = (canvas.scrollTop + canvas.clientHeight + my) / st.zoom;
    const near = (p) => p.x1 >= x0 && p.x0 <= x1 && p.y1 >= y0 && p.y0 <= y1;
    const later = [];
    for (const l of layers) {
      const g = svgHost.querySelector(`.gv-layer-${l}`);
      let html = '';
      for (const p of pieces[l]) if (near(p)) html += p.html; else later.push([g, p.html]);
      g.innerHTML = html;
    }
    updateMinimap();
    for (let k = 0; k < later.length; k += DRAW_CHUNK) {
      await new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
      if (id !== latest) return false;
      const batch = new Map();
      for (const [g, html] of later.slice(k, k + DRAW_CHUNK)) batch.set(g, (batch.get(g) ?? '') + html);
      for (const [g, html] of batch) g.insertAdjacentHTML('beforeend', html);
    }
    return true;
  }

  function crumbs() {
    const parts = [{ path: '', label: 'model' }];
    let p = st.scope;
    const chain = [];
    while (p) {
      const g = st.subgraphs[p];
      if (!g) break;
      chain.unshift({ path: p, label: p.slice(g.parent.length, -1) });
      p = g.parent;
    }
    parts.push(...chain);
    $('.graph-crumbs').innerHTML = parts.map((c, k) => (k === parts.length - 1
      ? `<span class="crumb current">${esc(c.label)}</span>`
      : `<button type="button" class="crumb link" data-scope="${esc(c.path)}">${esc(c.label)}</button><span class="crumb-sep">›</span>`)).join('');
  }

  /** The box (or frame, or edge label) the focus designates in the current view. */
  function focusTarget() {
    const v = st.view;
    const f = st.focus;
    if (!v || !f) return null;
    if (f.node !== undefined) return v.items.find((b) => b.node === f.node) ?? v.items.find((b) => b.members?.includes(f.node));
    if (f.key !== undefined) {
      const e = v.edges.find((x) => x.keys.includes(f.key) && x.lx !== null);
      return e ? { x: e.lx, y: e.ly } : v.items.find((b) => b.key === f.key || b.weights?.some((w) => w.key === f.key));
    }
    if (f.group !== undefined) return v.items.find((b) => b.prefix === f.group) ?? v.clusters.find((c) => c.prefix === f.group);
    if (f.id !== undefined) return v.items.find((b) => b.id === f.id);
    return null;
  }

  /** Scrolls the focused box (else the top of the graph) into view. */
  function scrollToFocus() {
    const v = st.view;
    if (!v) return;
    const target = focusTarget();
    if (!target) { canvas.scrollTop = 0; canvas.scrollLeft = Math.max(0, (v.width * st.zoom - canvas.clientWidth) / 2); return; }
    // A frame taller than the canvas: its top, not its middle.
    const tall = (target.height ?? 0) * st.zoom > canvas.clientHeight;
    const x = target.x + (target.width ?? 0) / 2;
    const y = tall ? target.y + canvas.clientHeight / (2 * st.zoom) - 20 : target.y + (target.height ?? 0) / 2;
    canvas.scrollLeft = Math.max(0, x * st.zoom - canvas.clientWidth / 2);
    canvas.scrollTop = Math.max(0, y * st.zoom - canvas.clientHeight / 2);
  }

  function setZoom(z) {
    const v = st.view;
    if (!v) return;
    const cx = (canvas.scrollLeft + canvas.clientWidth / 2) / st.zoom;
    const cy = (canvas.scrollTop + canvas.clientHeight / 2) / st.zoom;
    st.zoom = Math.max(0.15, Math.min(2.5, z));
    const svg = svgHost.querySelector('svg');
    if (svg) {
      svg.setAttribute('width', String(Math.ceil(v.width * st.zoom)));
      svg.setAttribute('height', String(Math.ceil(v.height * st.zoom)));
    }
    canvas.scrollLeft = cx * st.zoom - canvas.clientWidth / 2;
    canvas.scrollTop = cy * st.zoom - canvas.clientHeight / 2;
    if (st.metrics) st.metrics.zoom = st.zoom;
    updateMinimap();
  }

  // Section - Minimap (shown while the drawing overflows the canvas)

  function updateMinimap() {
    const v = st.view;
    const over = v && (v.width * st.zoom > canvas.clientWidth + 2 || v.height * st.zoom > canvas.clientHeight + 2);
    minimap.hidden = !over;
    if (!over) return;
    // Over the canvas's bottom right corner, not over the help text below it (1 to 3 lines).
    minimap.style.bottom = `${root.clientHeight - canvas.offsetTop - canvas.offsetHeight + 14}px`;
    // Its box keeps the view's proportions within 200 x 160 px.
    const k = Math.min(200 / v.width, 160 / v.height);
    minimap.style.width = `${Math.max(24, Math.round(v.width * k))}px`;
    minimap.style.height = `${Math.max(24, Math.round(v.height * k))}px`;
    const r = minimap.querySelector('.mm-viewport');
    if (!r) return;
    r.setAttribute('x', String(canvas.scrollLeft / st.zoom));
    r.setAttribute('y', String(canvas.scrollTop / st.zoom));
    r.setAttribute('width', String(Math.min(v.width, canvas.clientWidth / st.zoom)));
    r.setAttribute('height', String(Math.min(v.height, canvas.clientHeight / st.zoom)));
  }

  /** Centres the canvas on the minimap point under the pointer. */
  function minimapGo(e) {
    const v = st.view;
    const svg = minimap.querySelector('svg');
    if (!v || !svg) return;
    const box = svg.getBoundingClientRect();
    const k = Math.min(box.width / v.width, box.height / v.height);
    const x = (e.clientX - box.left - (box.width - v.width * k) / 2) / k;
    const y = (e.clientY - box.top - (box.height - v.height * k) / 2) / k;
    canvas.scrollLeft = x * st.zoom - canvas.clientWidth / 2;
    canvas.scrollTop = y * st.zoom - canvas.clientHeight / 2;
  }
  let mmDrag = false;
  minimap.addEventListener('pointerdown', (e) => { mmDrag = true; minimap.setPointerCapture(e.pointerId); minimapGo(e); });
  minimap.addEventListener('pointermove', (e) => { if (mmDrag) minimapGo(e); });
  minimap.addEventListener('pointerup', () => { mmDrag = false; });
  canvas.addEventListener('scroll', () => updateMinimap(), { passive: true });

  // Section - Interaction

  function goScope(path, focus = null, opts = {}) {
    st.scope = path;
    st.focus = focus;
    return refresh(opts);
  }

  root.addEventListener('click', (e) => {
    const t = e.target;
    const scopeLink = t.closest('[data-scope]');
    if (scopeLink) { e.stopPropagation(); goScope(scopeLink.dataset.scope); return; }
    const more = t.closest('[data-focus]');
    if (more) {
      const b = st.view?.items.find((x) => x.id === more.dataset.focus);
      st.focus = b?.node !== undefined ? { node: b.node } : b?.prefix ? { group: b.prefix } : { id: more.dataset.focus };
      refresh();
      return;
    }
    const weight = t.closest('.gv-weight[data-value]');
    if (weight) { onValue(weight.dataset.value, { fromGraph: true }); return; }
    const group = t.closest('[data-expand]');
    if (group) {
      const ex = new Set(st.expanded.get(st.scope) ?? []);
      ex.add(group.dataset.expand);
      st.expanded.set(st.scope, [...ex]);
      st.focus = { group: group.dataset.expand };
      refresh();
      return;
    }
    const cluster = t.closest('[data-collapse]');
    if (cluster && t.closest('.gv-cluster-label')) {
      const p = cluster.dataset.collapse;
      st.expanded.set(st.scope, (st.expanded.get(st.scope) ?? []).filter((x) => x !== p && !x.startsWith(`${p}/`)));
      st.focus = { group: p };
      refresh();
      return;
    }
    const node = t.closest('[data-node]');
    if (node) {
      const b = st.view.items.find((x) => x.id === node.dataset.id);
      st.focus = { node: b.node };
      markFocus(b.id);
      if (onNodeSelect) onNodeSelect({ path: st.scope, index: b.node });
      else {
        const out = st.view.edges.find((x) => x.from === b.id)?.key ?? b.outputs?.find((k) => k !== null);
        if (out) onValue(out, { fromGraph: true });
      }
      return;
    }
    const value = t.closest('[data-value]');
    if (value) onValue(value.dataset.value, { fromGraph: true });
    const btn = t.closest('[data-graph]');
    if (btn) {
      const what = btn.dataset.graph;
      if (what === 'in') setZoom(st.zoom * 1.25);
      else if (what === 'out') setZoom(st.zoom / 1.25);
      else if (what === 'fit') refresh({ fit: true });
      else if (what === 'overview') { st.expanded.delete(st.scope); st.focus = null; refresh({ overview: true }); } else if (what === 'error') {
        const b = brokenNode();
        if (b) goScope(b.path, { node: b.nodeIndex }, { zoom: Math.max(st.zoom, READABLE_ZOOM) });
      }
    }
  });

  function markFocus(id) {
    for (const el of svgHost.querySelectorAll('.gv-node.focus')) el.classList.remove('focus');
    svgHost.querySelector(`[data-id="${CSS.escape(id)}"]`)?.classList.add('focus');
  }

  // Drag the background to pan.
  let drag = null;
  canvas.addEventListener('pointerdown', (e) => {
    if (e.button !== 0 || e.target.closest('[data-node],[data-value],[data-expand],[data-focus],[data-scope],[data-collapse]')) return;
    drag = { x: e.clientX, y: e.clientY, l: canvas.scrollLeft, t: canvas.scrollTop };
    canvas.setPointerCapture(e.pointerId);
  });
  canvas.addEventListener('pointermove', (e) => {
    if (!drag) return;
    canvas.scrollLeft = drag.l - (e.clientX - drag.x);
    canvas.scrollTop = drag.t - (e.clientY - drag.y);
  });
  canvas.addEventListener('pointerup', () => { drag = null; });
  canvas.addEventListener('wheel', (e) => {
    if (!e.ctrlKey) return;
    e.preventDefault();
    setZoom(st.zoom * (e.deltaY < 0 ? 1.1 : 1 / 1.1));
  }, { passive: false });

  return {
    /** Links the inference worker to the layout worker (call once, after the inference worker starts). */
    connect() {
      ensureWorker();
      const channel = new MessageChannel();
      worker.postMessage({ type: 'port', port: channel.port2 }, [channel.port2]);
      connectInference(channel.port1);
    },
    /**
     * A new model on screen (`result` null: being shown, its graph on its way to the layout
     * worker), or the same one complete: the first view is asked for at once (see prepare).
     */
    reset(result) {
      const id = modelId();
      if (id !== model) {
        model = id;
        prepared = null;
        preparing = Promise.resolve(false);
        ensureWorker();
        worker.postMessage({ type: 'model', model: id });
      }
      latest++;
      st.scope = '';
      st.expanded.clear();
      st.focus = null;
      st.view = null;
      st.metrics = null;
      st.selected = null;
      st.zoom = 1;
      st.subgraphs = result?.subgraphs ?? {};
      svgHost.innerHTML = '';
      minimap.hidden = true;
      $('.graph-stats').textContent = '';
      const b = brokenNode();
      if (b) { st.scope = b.path; st.focus = { node: b.nodeIndex }; }
      if (id !== null && id !== undefined) prepare();
    },
    /** Lays out the current scope; the first time, the model's overview (see refresh). */
    show: () => refresh({ overview: !st.view && !st.focus }),
    /** Shows the producer of value `key` (or its first reader) in its graph, readable. */
    focusValue(key, path) {
      st.selected = key;
      return goScope(path ?? st.scope, { key }, { zoom: Math.max(st.zoom, READABLE_ZOOM) });
    },
    /** Shows node `index` of graph `path`, readable. */
    focusNode(path, index) {
      return goScope(path, { node: index }, { zoom: Math.max(st.zoom, READABLE_ZOOM) });
    },
    select(key) {
      st.selected = key;
      for (const el of svgHost.querySelectorAll('.gv-edge, .gv-elabel')) {
        const v = st.view?.edges.find((e) => e.key === el.dataset.value);
        el.classList.toggle('hot', !!key && !!v && v.keys.includes(key));
      }
    },
    /** The page's extra lines (see the top of this file); the view is laid out again if shown. */
    setNotes(next) {
      st.notes = next;
      if (st.view) return refresh();
      return null;
    },
    /** Resolves once the current model's first view is prepared (true), or will not be (false). */
    whenPrepared: () => preparing,
    get metrics() { return st.metrics; },
    get state() { return st; },
    setBudget(n) { st.budget = n; },
  };
}
