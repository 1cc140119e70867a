// Drawing for the graph view (graph_view.js): a view from the layout worker (graph_layout.js) as
// SVG text, and the minimap's SVG. Shapes are drawn with each symbol in its colour.
//
//   drawView(view, { hue, tokenize, selected, notes: {node, group, edge} | null, path }) → SVG pieces
//   minimapSVG(view) → SVG inner text (frames and boxes, no text)

export const esc = (s) => String(s).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }[c]));
const clip = (s, n) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);

/** An expression as SVG tspans, each symbol in its colour. */
function exprSVG(text, { hue, tokenize }) {
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
export function shapeSVG(label, ctx) {
  const eq = label.indexOf('] = [');
  if (eq >= 0) return `${shapeSVG(label.slice(0, eq + 1), ctx)} = ${shapeSVG(label.slice(eq + 4), ctx)}`;
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
  return `[${parts.map((p) => (/^-?\d+$|^\?$/.test(p) ? esc(p) : exprSVG(p, ctx))).join(', ')}]`;
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

/** A note (the page's extra line: cost, ...) from hook `fn`, '' when none or when it throws. */
function noteOf(fn, arg) {
  if (!fn) return '';
  try { return String(fn(arg) ?? ''); } catch { return ''; }
}

/** The marks a box carries: hidden neighbours (+N) and shared inputs/outputs (⇣N, ⇉N). */
function marksSVG(b) {
  const cx = b.x + b.width / 2;
  let s = '';
  if (b.sharedOut) s += `<g class="gv-shared" data-focus="${esc(b.id)}"><title>feeds ${b.sharedOut} boxes of this view (edges not drawn)</title><rect x="${b.x + b.width - 30}" y="${b.y + b.height - 7}" width="34" height="14" rx="7"/><text x="${b.x + b.width - 13}" y="${b.y + b.height + 3.5}">⇉${b.sharedOut}</text></g>`;
  if (b.sharedIn.length) s += `<g class="gv-shared" data-value="${esc(b.sharedIn[0].key)}"><title>also reads ${esc(b.sharedIn.map((x) => `${x.key} (from ${x.label})`).join(', '))}</title><rect x="${b.x + b.width - 22}" y="${b.y - 7}" width="26" height="14" rx="7"/><text x="${b.x + b.width - 9}" y="${b.y + 3.5}">⇣${b.sharedIn.length}</text></g>`;
  if (b.hiddenIn) s += `<g class="gv-more" data-focus="${esc(b.id)}"><title>${b.hiddenIn} more input${b.hiddenIn > 1 ? 's' : ''} not shown: click to centre the view here</title><rect x="${cx - 16}" y="${b.y - 9}" width="32" height="14" rx="7"/><text x="${cx}" y="${b.y + 1.5}">+${b.hiddenIn}</text></g>`;
  if (b.hiddenOut) s += `<g class="gv-more" data-focus="${esc(b.id)}"><title>${b.hiddenOut} more reader${b.hiddenOut > 1 ? 's' : ''} not shown: click to centre the view here</title><rect x="${cx - 16}" y="${b.y + b.height - 5}" width="32" height="14" rx="7"/><text x="${cx}" y="${b.y + b.height + 5.5}">+${b.hiddenOut}</text></g>`;
  return s;
}

function nodeSVG(b, ctx) {
  const cx = b.x + b.width / 2;
  const maxChars = Math.max(8, Math.floor((b.width - 12) / 6.2));
  let rows = '';
  for (const r of b.rows) {
    const y = b.y + r.y;
    if (r.kind === 'op') rows += `<text class="gv-op" x="${cx}" y="${y}">${esc(b.op)}</text>`;
    else if (r.kind === 'name') rows += `<text class="gv-name" x="${cx}" y="${y}">${esc(b.label)}</text>`;
    else if (r.kind === 'bodies') {
      let bx = b.x + (b.width - b.bodies.reduce((w, x) => w + x.width, 0)) / 2;
      for (const x of b.bodies) {
        rows += `<text class="gv-body-link" data-scope="${esc(x.path)}" x="${bx + 4}" y="${y}"><title>open ${esc(x.path)}</title>▸ ${esc(clip(x.attribute, 14))}</text>`;
        bx += x.width;
      }
    } else if (r.kind === 'weight') rows += `<text class="gv-weight" data-value="${esc(r.key)}" x="${cx}" y="${y}"><title>${esc(r.key)}</title>${esc(clip(r.text, maxChars))}</text>`;
    else if (r.kind === 'more') rows += `<text class="gv-weight more" x="${cx}" y="${y}">${esc(r.text)}</text>`;
    else if (r.kind === 'note') rows += `<text class="gv-note" x="${cx}" y="${y}">${esc(clip(noteOf(ctx.notes?.node, { path: ctx.path, index: b.node }), maxChars))}</text>`;
  }
  const sep = b.weights.length ? b.rows.find((r) => r.kind === 'weight') : null;
  const line = sep ? `<line class="gv-sep" x1="${b.x + 6}" x2="${b.x + b.width - 6}" y1="${b.y + sep.y - 12}" y2="${b.y + sep.y - 12}"/>` : '';
  return `<g class="gv-node${b.broken ? ' broken' : ''}${b.domain ? ' custom' : ''}" data-node="${b.node}" data-id="${esc(b.id)}"><title>${esc(b.name || b.op)} (${esc(b.domain ? `${b.domain}:` : '')}${esc(b.op)})</title>`
    + `<rect x="${b.x}" y="${b.y}" width="${b.width}" height="${b.height}" rx="6"/>${line}${rows}${marksSVG(b)}</g>`;
}

function groupSVG(b, ctx) {
  const cx = b.x + b.width / 2;
  let rows = '';
  for (const r of b.rows) {
    const y = b.y + r.y;
    if (r.kind === 'title') rows += `<text class="gv-op" x="${cx}" y="${y}">▸ ${esc(b.label)} <tspan class="gv-count">${b.count}</tspan></text>`;
    else if (r.kind === 'ops') rows += `<text class="gv-name" x="${cx}" y="${y}">${esc(b.ops)}</text>`;
    else if (r.kind === 'note') rows += `<text class="gv-note" x="${cx}" y="${y}">${esc(noteOf(ctx.notes?.group, { path: ctx.path, prefix: b.prefix, members: b.members ?? [] }))}</text>`;
  }
  return `<g class="gv-group${b.broken ? ' broken' : ''}" data-expand="${esc(b.prefix)}" data-id="${esc(b.id)}"><title>${esc(b.prefix)}: ${b.count} nodes${b.io ? `, ${esc(b.io)}` : ''} (click to open)</title>`
    + `<rect class="gv-stack" x="${b.x + 4}" y="${b.y + 4}" width="${b.width}" height="${b.height}" rx="8"/>`
    + `<rect x="${b.x}" y="${b.y}" width="${b.width}" height="${b.height}" rx="8"/>${rows}${marksSVG(b)}</g>`;
}

function pillSVG(b) {
  const cx = b.x + b.width / 2;
  const what = b.kind === 'outer' ? 'a value of an enclosing graph' : b.kind === 'in' ? 'graph input' : 'graph output';
  return `<g class="gv-pill gv-${b.kind}" data-value="${esc(b.key)}" data-id="${esc(b.id)}"><title>${what} ${esc(b.key)}</title>`
    + `<rect x="${b.x}" y="${b.y}" width="${b.width}" height="${b.height}" rx="${b.height / 2}"/>`
    + `<text x="${cx}" y="${b.y + 17}">${esc(b.label)}</text>${marksSVG(b)}</g>`;
}

export const DEFS = '<defs><marker id="gv-arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" class="gv-arrowhead"/></marker></defs>';

/**
 * The view as SVG pieces in three layers (frames, edges and their labels, boxes), each with its
 * bounding box, so that the page can put in what is on screen first: {frames, edges, labels,
 * boxes}, each an array of {x0, y0, x1, y1, html}.
 */
export function drawView(view, ctx) {
  const sel = ctx.selected;
  const out = { frames: [], edges: [], labels: [], boxes: [] };
  for (const c of view.clusters) {
    out.frames.push({
      x0: c.x, y0: c.y, x1: c.x + c.width, y1: c.y + c.height,
      html: `<g class="gv-cluster" data-collapse="${esc(c.prefix)}" data-id="${esc(c.id)}"><rect x="${c.x}" y="${c.y}" width="${c.width}" height="${c.height}" rx="10"/>`
        + `<text x="${c.x + 10}" y="${c.y + 15}" class="gv-cluster-label"><title>${esc(c.prefix)} (click to close)</title>▾ ${esc(clip(c.label, 40))}</text></g>`,
    });
  }
  for (const e of view.edges) {
    const hot = sel && e.keys.includes(sel);
    const d = pathOf(e.points);
    let x0 = Infinity; let y0 = Infinity; let x1 = -Infinity; let y1 = -Infinity;
    for (const [x, y] of e.points) { x0 = Math.min(x0, x); y0 = Math.min(y0, y); x1 = Math.max(x1, x); y1 = Math.max(y1, y); }
    out.edges.push({
      x0, y0, x1, y1,
      html: `<g class="gv-edge${hot ? ' hot' : ''}" data-value="${esc(e.key)}"><path d="${d}"${e.arrow ? ' marker-end="url(#gv-arrow)"' : ''}/><path class="gv-hit" d="${d}"/></g>`,
    });
    if (!e.label || e.lx === null) continue;
    const more = e.count > 1 ? ` +${e.count - 1}` : '';
    const note = ctx.notes?.edge ? noteOf(ctx.notes.edge, { path: ctx.path, key: e.key, keys: e.keys }) : '';
    const w = Math.max(20, (e.label.length + more.length) * 6.6 + 10, note.length * 6.2 + 10);
    const h = note ? 30 : 16;
    out.labels.push({
      x0: e.lx - w / 2, y0: e.ly - h / 2, x1: e.lx + w / 2, y1: e.ly + h / 2,
      html: `<g class="gv-elabel${hot ? ' hot' : ''}" data-value="${esc(e.key)}"><title>${esc(e.keys.join(', '))}${e.count > e.keys.length ? ', …' : ''}</title>`
        + `<rect x="${(e.lx - w / 2).toFixed(1)}" y="${(e.ly - h / 2).toFixed(1)}" width="${w.toFixed(1)}" height="${h}" rx="4"/>`
        + `<text x="${e.lx.toFixed(1)}" y="${(e.ly - h / 2 + 12).toFixed(1)}">${shapeSVG(e.label, ctx)}${more ? `<tspan class="gv-more-values">${esc(more)}</tspan>` : ''}</text>`
        + (note ? `<text class="gv-note" x="${e.lx.toFixed(1)}" y="${(e.ly + 11).toFixed(1)}">${esc(note)}</text>` : '')
        + '</g>',
    });
  }
  for (const b of view.items) {
    const html = b.kind === 'node' ? nodeSVG(b, ctx) : b.kind === 'group' ? groupSVG(b, ctx) : pillSVG(b);
    out.boxes.push({ x0: b.x - 10, y0: b.y - 10, x1: b.x + b.width + 10, y1: b.y + b.height + 10, html });
  }
  return out;
}

/** The minimap: frames and boxes only, in the view's coordinates. */
export function minimapSVG(view) {
  let s = '';
  for (const c of view.clusters) s += `<rect class="mm-frame" x="${c.x}" y="${c.y}" width="${c.width}" height="${c.height}"/>`;
  for (const b of view.items) s += `<rect class="mm-${b.kind === 'group' ? 'group' : b.kind === 'node' ? 'node' : 'pill'}${b.broken ? ' broken' : ''}" x="${b.x}" y="${b.y}" width="${b.width}" height="${b.height}"/>`;
  return s;
}
