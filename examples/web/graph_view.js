// The graph view of the demo page: operators as boxes, values as edges labelled with their
// symbolic shapes. What to show and where is decided off the main thread by layout_worker.js
// (at most `budget` boxes: collapsed name groups, the neighbourhood of the focus); this module
// asks it for views and draws the answers as SVG.
//
//   const view = createGraphView({ root, hue, tokenize, requestGraph, onValue, onNode });
//   view.reset(result)    a new model (nothing is laid out until the view is shown)
//   view.show()           lays out the current scope (the first time: the model's graph, or the
//                         graph of the first broken node, focused on it)
//   view.focusValue(key)  the producer of value `key` (or its first reader), in its graph
//   view.select(key)      highlights a value's edges (the page's open detail)

const SVG_NS = 'http://www.w3.org/2000/svg';
const esc = (s) => String(s).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }[c]));
const now = () => performance.now();

/** Default number of boxes a view may hold (see layout_worker.js for what is shown past it). */
export const DEFAULT_BUDGET = 120;

/**
 * root: the element holding the view's markup (see index.html #graph); hue(symbol) → hue;
 * tokenize(expr) → tokens of js/expr.js; requestGraph() → Promise of the graph JSON text
 * (worker.js); onValue(key) opens a value's details; brokenNode() → {path, nodeIndex} or null.
 */
export function createGraphView({ root, hue, tokenize, requestGraph, onValue, brokenNode, workerUrl, workerType }) {
  const $ = (sel) => root.querySelector(sel);
  const canvas = $('.graph-canvas');
  const svgHost = $('.graph-svg-host');
  let worker = null;
  let graphSent = null; // Promise: the current model's graph is in the worker
  let nextId = 1;
  let latest = 0;
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
  };

  function ensureWorker() {
    if (worker) return;
    worker = new Worker(workerUrl, { type: workerType, name: 'onnx-shapes-layout' });
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

  /** Asks the worker for a view of the current scope and focus, and draws it (the newest answer wins). */
  async function refresh() {
    const t0 = now();
    const id = ++latest;
    status('Laying out…');
    root.dataset.busy = 'true';
    try {
      if (!graphSent) {
        graphSent = requestGraph().then((json) => {
          ensureWorker();
          worker.postMessage({ type: 'graph', json });
        });
      }
      await graphSent;
      const tGraph = now();
      const broken = brokenNode();
      const view = await call({
        type: 'view',
        scope: st.scope,
        expanded: st.expanded.get(st.scope) ?? null,
        focus: st.focus,
        budget: st.budget,
        mark: broken && broken.path === st.scope ? broken.nodeIndex : -1,
      });
      if (id !== latest) return; // a newer request is on its way
      const tView = now();
      st.view = view;
      st.expanded.set(st.scope, view.expanded);
      draw(view);
      const tDraw = now();
      // Painted: the next frame after the SVG went in.
      await new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
      // totalMs: asked → painted; graphMs: getting the graph to the worker (first view of a
      // model); workerMs: choosing and laying out the boxes; drawMs: building the SVG.
      st.metrics = {
        ...view.stats,
        workerMs: view.stats.totalMs,
        totalMs: now() - t0,
        graphMs: tGraph - t0,
        drawMs: tDraw - tView,
      };
      root.dataset.busy = 'false';
      status('');
    } catch (err) {
      if (id !== latest) return;
      root.dataset.busy = 'false';
      status(`The graph could not be laid out: ${err.message}`);
    }
  }

  // Section - Drawing

  /** An expression as SVG tspans, each symbol in its colour. */
  function exprSVG(text) {
    let toks;
    try { toks = tokenize(text); } catch { return esc(text); }
    let out = '';
    for (const t of toks) {
      if (t.t === 'sym') out += `<tspan class="s" style="--h:${hue(t.v)}">${esc(t.s)}</tspan>`;
      else if (t.t === ',') out += ', ';
      else out += esc(t.s);
    }
    return out;
  }

  /** "[batch, (H+1)//2]" (and " = [content]") with coloured symbols. */
  function shapeSVG(label) {
    const eq = label.indexOf('] = [');
    if (eq >= 0) return `${shapeSVG(label.slice(0, eq + 1))} = ${shapeSVG(label.slice(eq + 4))}`;
    const m = /^\[(.*)\]$/.exec(label);
    if (!m) return esc(label);
    const parts = [];
    let depth = 0;
    let cur = '';
    for (const c of m[1]) {
      if (c === '(') depth++;
      else if (c === ')') depth--;
      if (c === ',' && depth === 0) { parts.push(cur.trim()); cur = ''; } else cur += c;
    }
    if (cur.trim() || parts.length) parts.push(cur.trim());
    return `[${parts.map((p) => (/^-?\d+$|^\?$/.test(p) ? esc(p) : exprSVG(p))).join(', ')}]`;
  }

  function pathOf(points) {
    if (points.length < 2) return '';
    let d = `M${points[0][0].toFixed(1)},${points[0][1].toFixed(1)}`;
    if (points.length === 2) return `${d}L${points[1][0].toFixed(1)},${points[1][1].toFixed(1)}`;
    // Through the midpoints with quadratic curves: a smooth line that follows dagre's route.
    for (let i = 1; i < points.length - 1; i++) {
      const [x, y] = points[i];
      const [nx, ny] = points[i + 1];
      const mx = i === points.length - 2 ? nx : (x + nx) / 2;
      const my = i === points.length - 2 ? ny : (y + ny) / 2;
      d += `Q${x.toFixed(1)},${y.toFixed(1)} ${mx.toFixed(1)},${my.toFixed(1)}`;
    }
    return d;
  }

  function draw(view) {
    const sel = st.selected;
    let html = `<defs><marker id="gv-arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" class="gv-arrowhead"/></marker></defs>`;
    for (const c of view.clusters) {
      const tail = c.prefix.split('/').pop();
      html += `<g class="gv-cluster" data-collapse="${esc(c.prefix)}"><rect x="${c.x}" y="${c.y}" width="${c.width}" height="${c.height}" rx="10"/>`
        + `<text x="${c.x + 10}" y="${c.y + 15}" class="gv-cluster-label"><title>${esc(c.prefix)} (click to collapse)</title>▾ ${esc(tail)}</text></g>`;
    }
    for (const e of view.edges) {
      const hot = sel && e.keys.includes(sel);
      html += `<g class="gv-edge${hot ? ' hot' : ''}" data-value="${esc(e.key)}"><path d="${pathOf(e.points)}" marker-end="url(#gv-arrow)"/>`
        + `<path class="gv-hit" d="${pathOf(e.points)}"/></g>`;
    }
    for (const e of view.edges) {
      if (!e.label) continue;
      const hot = sel && e.keys.includes(sel);
      const w = Math.max(20, e.label.length * 6.6 + 10);
      html += `<g class="gv-elabel${hot ? ' hot' : ''}" data-value="${esc(e.key)}"><title>${esc(e.keys.join(', '))}${e.count > e.keys.length ? ', …' : ''}</title>`
        + `<rect x="${(e.lx - w / 2).toFixed(1)}" y="${(e.ly - 8).toFixed(1)}" width="${w.toFixed(1)}" height="16" rx="4"/>`
        + `<text x="${e.lx.toFixed(1)}" y="${(e.ly + 4).toFixed(1)}">${e.count > 1 ? esc(e.label) : shapeSVG(e.label)}</text></g>`;
    }
    for (const b of view.items) {
      const cx = b.x + b.width / 2;
      const shared = (b.sharedOut ? `<g class="gv-shared" data-focus="${esc(b.id)}"><title>feeds ${b.sharedOut} boxes of this view (edges not drawn)</title><rect x="${b.x + b.width - 30}" y="${b.y + b.height - 7}" width="34" height="14" rx="7"/><text x="${b.x + b.width - 13}" y="${b.y + b.height + 3.5}">⇉${b.sharedOut}</text></g>` : '')
        + (b.sharedIn.length ? `<g class="gv-shared" data-value="${esc(b.sharedIn[0].key)}"><title>also reads ${esc(b.sharedIn.map((x) => `${x.key} (from ${x.label})`).join(', '))}</title><rect x="${b.x + b.width - 22}" y="${b.y - 7}" width="26" height="14" rx="7"/><text x="${b.x + b.width - 9}" y="${b.y + 3.5}">⇣${b.sharedIn.length}</text></g>` : '');
      const hidden = shared + (b.hiddenIn ? `<g class="gv-more" data-focus="${esc(b.id)}"><title>${b.hiddenIn} more input${b.hiddenIn > 1 ? 's' : ''} not shown: click to centre the view here</title><rect x="${cx - 16}" y="${b.y - 9}" width="32" height="14" rx="7"/><text x="${cx}" y="${b.y + 1.5}">+${b.hiddenIn}</text></g>` : '')
        + (b.hiddenOut ? `<g class="gv-more" data-focus="${esc(b.id)}"><title>${b.hiddenOut} more reader${b.hiddenOut > 1 ? 's' : ''} not shown: click to centre the view here</title><rect x="${cx - 16}" y="${b.y + b.height - 5}" width="32" height="14" rx="7"/><text x="${cx}" y="${b.y + b.height + 5.5}">+${b.hiddenOut}</text></g>` : '');
      if (b.kind === 'node') {
        let bx = b.x + (b.width - b.bodies.reduce((w, x) => w + x.width, 0)) / 2;
        const bodies = b.bodies.map((x) => {
          const t = `<text class="gv-body-link" data-scope="${esc(x.path)}" x="${bx + 4}" y="${b.y + b.height - 8}"><title>open ${esc(x.path)}</title>▸ ${esc(x.attribute.length > 14 ? `${x.attribute.slice(0, 13)}…` : x.attribute)}</text>`;
          bx += x.width;
          return t;
        }).join('');
        html += `<g class="gv-node${b.broken ? ' broken' : ''}${b.domain ? ' custom' : ''}" data-node="${b.node}" data-id="${esc(b.id)}"><title>${esc(b.name || b.op)} (${esc(b.domain ? `${b.domain}:` : '')}${esc(b.op)})</title>`
          + `<rect x="${b.x}" y="${b.y}" width="${b.width}" height="${b.height}" rx="6"/>`
          + `<text class="gv-op" x="${cx}" y="${b.y + (b.label || b.bodies.length ? 18 : 20)}">${esc(b.op)}</text>`
          + (b.label ? `<text class="gv-name" x="${cx}" y="${b.y + 33}">${esc(b.label.length > 34 ? `${b.label.slice(0, 33)}…` : b.label)}</text>` : '')
          + `${bodies}${hidden}</g>`;
      } else if (b.kind === 'group') {
        html += `<g class="gv-group${b.broken ? ' broken' : ''}" data-expand="${esc(b.prefix)}" data-id="${esc(b.id)}"><title>${esc(b.prefix)}: ${b.count} nodes${b.io ? `, ${esc(b.io)}` : ''} (click to open)</title>`
          + `<rect class="gv-stack" x="${b.x + 4}" y="${b.y + 4}" width="${b.width}" height="${b.height}" rx="8"/>`
          + `<rect x="${b.x}" y="${b.y}" width="${b.width}" height="${b.height}" rx="8"/>`
          + `<text class="gv-op" x="${cx}" y="${b.y + 20}">▸ ${esc(b.label)} <tspan class="gv-count">${b.count}</tspan></text>`
          + `<text class="gv-name" x="${cx}" y="${b.y + 37}">${esc(b.ops)}</text>${hidden}</g>`;
      } else {
        html += `<g class="gv-pill gv-${b.kind}" data-value="${esc(b.key)}" data-id="${esc(b.id)}"><title>${b.kind === 'outer' ? 'a value of an enclosing graph' : b.kind === 'in' ? 'graph input' : 'graph output'} ${esc(b.key)}</title>`
          + `<rect x="${b.x}" y="${b.y}" width="${b.width}" height="${b.height}" rx="${b.height / 2}"/>`
          + `<text x="${cx}" y="${b.y + 17}">${esc(b.label.length > 30 ? `${b.label.slice(0, 29)}…` : b.label)}</text>${hidden}</g>`;
      }
    }
    const w = Math.ceil(view.width);
    const h = Math.ceil(view.height);
    svgHost.innerHTML = `<svg xmlns="${SVG_NS}" class="gv-svg" viewBox="0 0 ${w} ${h}" width="${Math.ceil(w * st.zoom)}" height="${Math.ceil(h * st.zoom)}" role="img" aria-label="Graph of ${esc(view.scope || 'the model')}">${html}</svg>`;
    crumbs();
    const s = view.stats;
    $('.graph-stats').textContent = `${s.boxes.toLocaleString('en-US')} boxes of ${s.nodes.toLocaleString('en-US')} nodes${s.allBoxes > s.boxes ? ' (neighbourhood)' : ''} · laid out in ${Math.round(s.totalMs)} ms`;
    const broken = brokenNode();
    $('[data-graph=error]').hidden = !broken;
    scrollToFocus();
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

  /** Scrolls the focused box (else the top of the graph) into view. */
  function scrollToFocus() {
    const v = st.view;
    if (!v) return;
    let target = null;
    if (st.focus?.node !== undefined) target = v.items.find((b) => b.node === st.focus.node);
    else if (st.focus?.key !== undefined) target = v.items.find((b) => b.key === st.focus.key) ?? v.edges.find((e) => e.keys.includes(st.focus.key));
    else if (st.focus?.group !== undefined) target = v.items.find((b) => b.prefix === st.focus.group) ?? v.clusters.find((c) => c.prefix === st.focus.group);
    else if (st.focus?.id !== undefined) target = v.items.find((b) => b.id === st.focus.id);
    if (!target) { canvas.scrollTop = 0; canvas.scrollLeft = Math.max(0, (v.width * st.zoom - canvas.clientWidth) / 2); return; }
    const x = (target.x ?? target.lx) + (target.width ?? 0) / 2;
    const y = (target.y ?? target.ly) + (target.height ?? 0) / 2;
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
  }

  // Section - Interaction

  function goScope(path, focus = null) {
    st.scope = path;
    st.focus = focus;
    return refresh();
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
      const out = st.view.edges.find((x) => x.from === b.id)?.key ?? b.outputs?.[0];
      st.focus = { node: b.node };
      if (out) onValue(out, { fromGraph: true });
      markFocus(b.id);
      return;
    }
    const value = t.closest('[data-value]');
    if (value) onValue(value.dataset.value, { fromGraph: true });
    const btn = t.closest('[data-graph]');
    if (btn) {
      const what = btn.dataset.graph;
      if (what === 'in') setZoom(st.zoom * 1.25);
      else if (what === 'out') setZoom(st.zoom / 1.25);
      else if (what === 'fit') {
        const v = st.view;
        if (v) setZoom(Math.min(canvas.clientWidth / v.width, canvas.clientHeight / v.height, 1));
      } else if (what === 'overview') { st.expanded.delete(st.scope); st.focus = null; refresh(); } else if (what === 'error') {
        const b = brokenNode();
        if (b) goScope(b.path, { node: b.nodeIndex });
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
    /** A new model: forget the old graph (the worker gets the new one when the view is shown). */
    reset(result) {
      graphSent = null;
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
      $('.graph-stats').textContent = '';
      const b = brokenNode();
      if (b) { st.scope = b.path; st.focus = { node: b.nodeIndex }; }
    },
    show: () => refresh(),
    /** Shows the producer of value `key` (or its first reader) in its graph. */
    focusValue(key, path) {
      st.selected = key;
      return goScope(path ?? st.scope, { key });
    },
    select(key) {
      st.selected = key;
      for (const el of svgHost.querySelectorAll('.gv-edge, .gv-elabel')) {
        const v = st.view?.edges.find((e) => e.key === el.dataset.value);
        el.classList.toggle('hot', !!key && !!v && v.keys.includes(key));
      }
    },
    get metrics() { return st.metrics; },
    get state() { return st; },
    setBudget(n) { st.budget = n; },
  };
}
