// The "why this shape" panel: a value's producer, the event log of how its shape came to be, its
// declared shape and verdict, its symbols with their constraints, diagnostics and readers.
import { nameDefinitionsIn, printSymbol, symbolsOf, symbolsThrough, tokenize } from '../../js/expr.js';
import { esc, fmtInt, fmtBytes, hue, symChip, exprHTML } from './page_util.js';
import { state, nodeIO, ioAt, consumersOf, KIND_SHORT, KIND_LABEL, DIAG_LEVEL, nodeAt, constraintHTML, valueLink, typeLine } from './page_data.js';
import { ask } from './worker_client.js';

/**
 * What the event log says of value `key` (path + name): { events (its own, the first 100), count,
 * anchored, symbolEvents (renames and constraints that mention `syms`) }, asked of the worker,
 * which keeps the log (event_log.js: a 100k-node model's is 23-32 MB, which the page's thread took
 * 0.4-0.7 s to parse); 'pending' while the log is recorded or the answer is on its way
 * (`onArrive` is called when it comes); null when there is no log.
 */
function whyEvents(key, syms, onArrive) {
  if (state.eventLog === 'none') return null;
  if (state.eventLog === 'pending') return 'pending';
  const cache = state.whyEvents;
  const got = cache.get(key);
  if (got === 'asked') return 'pending';
  if (got !== undefined) return got;
  cache.set(key, 'asked');
  ask({ type: 'why', model: state.modelId, key, syms }).then(
    (msg) => (msg.events === null ? null : msg),
    () => null, // the model is gone from the worker: another is being shown
  ).then((answer) => {
    if (state.whyEvents !== cache) return; // another model, or another log, since
    cache.set(key, answer);
    onArrive?.();
  });
  return 'pending';
}

/** Splits a list at top-level commas (Broadcast(a,b) keeps its comma). */
export function splitTop(text) {
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

export function dimsHTML(dims) {
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
export function detailHTML(text) {
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

export function plainDetail(text) {
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

export const EVENT_TEXT = {
  seed: 'Seeded from the declaration',
  set: 'Set by the shape rule of',
  anchor: 'Reconciled with the declared shape',
  replace: 'Rewritten after a rename',
  rename: 'Renamed',
  constraint: 'Constraint recorded',
  node: 'Visited node',
};

export function eventHTML(e) {
  const what = EVENT_TEXT[e.kind] ?? e.kind;
  const node = e.kind === 'set' || (e.kind === 'seed' && e.node)
    ? ` <span class="opname">${esc(e.opType || '')}</span> <span class="mono muted">${esc(e.node || '')}</span>` : '';
  // The log is written before the sizes are named: its expressions printed with the table's names.
  const detail = e.detail ? nameDefinitionsIn(String(e.detail), state.result?.definitions) : '';
  const lines = detail ? detail.split(/;\s+/).map((l) => `<span class="ev-line">${detailHTML(l)}</span>`).join('') : '';
  return `<li class="ev"><span class="badge ev-${esc(e.kind)}">${esc(e.kind)}</span> <span class="ev-what">${esc(what)}${node}</span>${lines ? `<div class="ev-detail">${lines}</div>` : ''}</li>`;
}

/** The declared shape of output r and whether inference agrees; `anchor`: the log has an anchor event for it. */
export function declaredVerdict(r, anchor) {
  if (r.kind !== 'output') return '';
  const out = state.model?.outputs?.find((o) => o.name === r.name);
  const decl = out?.type ?? null;
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

/** "Node details" for a value written by a node of a body (found by its output key). */
function bodyProducerButton(r) {
  const n = state.result.subgraphs?.[r.sub.path]?.nodes?.length ?? 0;
  for (let k = 0; k < n; k++) {
    if (ioAt(r.sub.path, k)?.outputs.includes(r.name)) {
      return ` <button type="button" class="btn small" id="d-open-node" data-open-node="${k}" data-open-node-path="${esc(r.sub.path)}">Node details</button>`;
    }
  }
  return '';
}

/**
 * The "why this shape" panel for value `name` (HTML), or null when it is not a value. Its event
 * log part comes from the worker: `onEvents` is called when it arrives (draw the panel again).
 */
export function whyHTML(name, onEvents) {
  const r = state.byName.get(name);
  if (!r) return null;
  const { result } = state;
  // While a large model's nodes are still coming in (show_model.js), the row says which node it is.
  const node = r.nodeIndex >= 0 ? result.nodes[r.nodeIndex] ?? { opType: r.op, name: r.nodeName, domain: '' } : null;
  const scanned = node ? nodeIO(r.nodeIndex) : null;
  const why = whyEvents(name, r.syms, onEvents);
  const events = why && why !== 'pending' ? why.events : null;
  let html = `<section class="d-sec d-top"><p class="d-kind">${KIND_SHORT[r.kind] ? `<span class="kind k-${r.kind}">${KIND_SHORT[r.kind]}</span>` : ''}${KIND_LABEL[r.kind]}${r.sub ? ` <span class="mono muted">${esc(r.sub.path)}</span>` : ''}</p>
    <p class="d-type">${typeLine(r)}</p>
    ${r.bytes !== null ? `<p class="d-size" id="d-size">${fmtBytes(r.bytes)} <span class="muted">(${fmtInt(r.bytes)} bytes at the current sizes)</span></p>` : ''}</section>`;

  if (node) {
    html += `<section class="d-sec" id="d-producer"><h3>Produced by</h3>
      <p class="d-node"><span class="opname">${esc(node.opType)}</span>${node.domain ? `<span class="muted">${esc(node.domain)}</span>` : ''} <span class="mono">${esc(node.name || `node #${r.nodeIndex}`)}</span> <span class="muted">node #${r.nodeIndex}</span>
        <button type="button" class="btn small" id="d-open-node" data-open-node="${r.nodeIndex}" data-open-node-path="">Node details</button></p>`;
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
      : `<span class="opname">${esc(r.sub.op)}</span> <span class="mono">${esc(r.sub.node)}</span> <span class="muted">in ${esc(r.sub.path)}</span>${bodyProducerButton(r)}`}</p></section>`;
  } else {
    html += `<section class="d-sec" id="d-producer"><h3>Source</h3><p>${r.kind === 'weight'
      ? 'An initializer: its shape is stored in the model with its data.'
      : 'A graph input: its shape is declared by the model and seeds the inference.'}</p></section>`;
  }

  // How: the event log when the engine recorded one; otherwise what the result implies.
  html += '<section class="d-sec" id="d-how"><h3>How it was derived</h3>';
  if (events && events.length) {
    html += `<ol class="events">${events.map(eventHTML).join('')}</ol>`;
    if (why.count > events.length) html += `<p class="hint">and ${fmtInt(why.count - events.length)} more events.</p>`;
  } else if (node) {
    html += `<p>The shape rule of <span class="opname">${esc(node.opType)}</span> computed it from the shapes of the node's inputs${scanned ? ' above' : ''}.</p>`;
    if (why === 'pending') {
      html += `<p class="hint pending" id="events-pending">${state.eventLog === 'pending' ? 'The step-by-step trace is being recorded…' : 'Reading the trace…'}</p>`;
    } else if (why === null) {
      html += '<p class="hint">This engine build records no event log, so the step-by-step trace is not available.</p>';
    }
  } else {
    html += `<p>${r.kind === 'weight' ? 'Read from the initializer.' : 'Read from the declaration.'}</p>`;
  }
  html += '</section>';

  html += declaredVerdict(r, why && why !== 'pending' && why.anchored);

  // Symbols: where each comes from, constraints and renames that mention them.
  if (r.syms.length) {
    const c = result.constraints || {};
    const mentions = (side) => typeof side === 'string' && symbolsThrough(side, result.definitions).some((s) => r.syms.includes(s));
    const eq = (c.equal || []).filter(([a, b]) => mentions(a) || mentions(b)).slice(0, 50);
    const le = (c.lessEqual || []).filter(([a, b]) => mentions(a) || mentions(b)).slice(0, 50);
    const symEv = why && why !== 'pending' ? why.symbolEvents : [];
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
      return `<li><span class="opname">${esc(n?.opType ?? '')}</span> <button type="button" class="link mono small" data-open-node="${u.index}" data-open-node-path="${esc(u.path)}" title="the node's panel">${esc(n?.name || `node #${u.index}`)}</button>${u.path ? ` <span class="muted">in ${esc(u.path)}</span>` : ''}${o ? ` <span class="arrow">→</span> ${valueLink(o)}` : ''}</li>`;
    }).join('')}</ul>${users.length > 30 ? `<p class="hint">and ${fmtInt(users.length - 30)} more.</p>` : ''}</section>`;
  }
  return html;
}
