// The side panels of the demo page: model summary, symbols and sizes, memory, diagnostics (with
// the first broken node), constraints, named sizes.
import { $, esc, fmtInt, fmtBytes, symChip, exprHTML } from './page_util.js';
import { state, ioAt, memoryFigures, DIAG_LEVEL, constraintHTML } from './page_data.js';

export function renderSummary() {
  const { result, model } = state;
  const ops = new Map();
  for (const n of result.nodes) ops.set(n.opType, (ops.get(n.opType) || 0) + 1);
  const topOps = [...ops.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, 10);
  const counts = { input: 0, output: 0, weight: 0, activation: 0, inner: 0 };
  for (const r of state.rows) counts[r.kind]++;
  const opset = model?.opsets?.find((o) => o.domain === '' || o.domain === 'ai.onnx');
  const facts = [
    state.info.fetched ? ['URL', urlFacts(state.info.fetched)]
      : ['File', `<span class="mono">${esc(state.fileName)}</span> <span class="muted">(${fmtBytes(state.fileSize)})</span>`],
    model?.producer ? ['Producer', `${esc(model.producer)} ${esc(model.producerVersion || '')}`] : null,
    model ? ['IR / opset', `${model.irVersion ?? '?'} / ${opset?.version ?? '?'}`] : null,
    ['Nodes', `${fmtInt(result.nodes.length)} <span class="muted">(${fmtInt(ops.size)} op types)</span>`],
    ['Values', `${fmtInt(counts.input)} in · ${fmtInt(counts.output)} out · ${fmtInt(counts.weight)} weights · ${fmtInt(counts.activation)} other${counts.inner ? ` · ${fmtInt(counts.inner)} in subgraphs` : ''}`],
    ['Inference', `${state.info.inferMs.toFixed(1)} ms${state.info.streamed && !state.info.fetched ? ' (streamed: reading included)'
      : state.info.readMs ? ` <span class="muted">(+ ${state.info.readMs.toFixed(1)} ms ${state.info.fetched ? 'fetching' : 'reading the file'})</span>` : ''}${state.info.eventsMs === undefined ? ''
      : ` <span class="muted">(event log: ${state.info.eventsMs.toFixed(1)} ms more, after the table)</span>`}`],
  ].filter(Boolean);
  $('summary').innerHTML = `<dl class="facts">${facts.map(([k, v]) => `<dt>${k}</dt><dd>${v}</dd>`).join('')}</dl>`
    + (topOps.length ? `<div class="ops" aria-label="Most used operators">${topOps.map(([op, n]) =>
      `<button type="button" class="op-chip" data-filter="op:${esc(op)}" aria-label="Filter by op ${esc(op)} (${n} nodes)">${esc(op)}<span>${n}</span></button>`).join('')}</div>` : '');
}

/** What reading a model from a URL cost: bytes fetched of the file's size, requests. */
export function urlFacts(f) {
  const pct = f.size ? (100 * f.bytes) / f.size : 100;
  const how = f.ranged
    ? `fetched ${fmtBytes(f.bytes)} of ${fmtBytes(f.size)} (${pct < 0.1 ? pct.toFixed(3) : pct.toFixed(1)}%) in ${fmtInt(f.requests)} Range request${f.requests === 1 ? '' : 's'}`
    : `the server ignored Range requests: the whole file (${fmtBytes(f.bytes)}) was read`;
  return `<span class="mono url-name">${esc(state.fileName)}</span> <span class="muted" id="url-fetched" data-bytes="${f.bytes}" data-requests="${f.requests}" data-ranged="${f.ranged}">${how}</span>`;
}

export function renderSymbols() {
  const box = $('symbols');
  if (!state.symbols.length) {
    box.innerHTML = '<p class="hint">This model has no symbolic dimensions: every shape is already concrete.</p>';
    renderMemory();
    return;
  }
  // Sizes are chosen for the graph inputs' symbols: they get a field. The others (data-dependent
  // counts, sizes inference named, labels) follow from the model's data or from those inputs;
  // they are listed, and the text field above still binds them.
  const inputSyms = state.symbols.filter((s) => s.source).slice(0, 200);
  const others = state.symbols.filter((s) => !s.source);
  const symRow = (s, k, field) => {
    const d = state.derived.get(s.name);
    const v = state.env.get(s.name);
    const range = field ? domainRange(s.name) : null;
    const src = s.source ? `<button type="button" class="link" data-goto="${esc(s.source)}" title="First declared by graph input ${esc(s.source)}">${esc(s.source)}</button>`
      : `<span>${s.dataDependent ? 'data-dependent' : 'from inference'}</span>`;
    return `<div class="sym-row${field ? '' : ' no-field'}">
      <button type="button" class="sym-btn" data-filter="sym:${esc(s.name)}" aria-label="Show values using ${esc(s.name)}" title="Show the ${s.uses} values that use ${esc(s.name)}">${symChip(s.name)}</button>
      <span class="sym-meta">${src}${range ? `<span class="sym-range" data-range="${esc(s.name)}" title="${esc(range.why)}">${esc(range.text)}</span>` : ''}<span class="uses" title="used by ${s.uses} values">${fmtInt(s.uses)}</span></span>
      ${field ? `<input type="number" min="${range?.min ?? 0}"${range?.max !== undefined ? ` max="${range.max}"` : ''} step="1" inputmode="numeric" id="sym-in-${k}" data-sym="${esc(s.name)}" value="${v ?? ''}" placeholder="${d ? esc(String(d.value)) : ''}" aria-label="Size of ${esc(s.name)}"${d ? ` title="derived from ${esc(d.from)}: ${d.value}"` : ''}>`
        : `<span class="sym-val" data-sym-val="${esc(s.name)}">${symValueHTML(s.name)}</span>`}
    </div>`;
  };
  const shownOthers = others.slice(0, 50);
  box.innerHTML = `<div class="sym-list">${inputSyms.map((s, k) => symRow(s, k, true)).join('')}</div>${
    others.length ? `<h3 class="sym-others-title">Other symbols <span class="count">${fmtInt(others.length)}</span></h3>
      <p class="hint">Not sizes of the graph inputs: counts that depend on the data, and sizes inference named. Bind them in the text field if you need to.</p>
      <div class="sym-list">${shownOthers.map((s, k) => symRow(s, k, false)).join('')}</div>` : ''}${
    others.length > shownOthers.length ? `<p class="hint">and ${fmtInt(others.length - shownOthers.length)} more.</p>` : ''}`;
  renderMemory();
}

/** Where a bound comes from: "Conv conv2 needs 3 ≤ (H+1)//4". */
const boundSource = (b) => (b ? `${b.opType} ${b.node || `node ${b.nodeIndex}`} needs ${b.lhs} ${b.relation === '==' ? '=' : '≤'} ${b.rhs}` : '');

/**
 * The sizes a graph input's symbol runs for (result.domain, as the CLI's "runs for H >= 11"):
 * { text: '≥ 11' | '192–703' | '≤ 703', min, max, why }, or null when any size ≥ 0 runs.
 */
export function domainRange(name) {
  const r = state.result?.domain?.symbols?.[name];
  if (!r || (!(r.min > 0) && r.max === undefined)) return null;
  const text = r.max === undefined ? `≥ ${r.min}` : r.min > 0 ? `${r.min}–${r.max}` : `≤ ${r.max}`;
  const why = [r.min > 0 && `at least ${r.min}: ${boundSource(r.minBy)}`, r.max !== undefined && `at most ${r.max}: ${boundSource(r.maxBy)}`].filter(Boolean);
  return { text, min: r.min ?? 0, max: r.max, why: `The model runs for ${name} ${text} (${why.join('; ')})` };
}

/** The domain as a line of the Constraints card: "Runs for H ≥ 11, W ≥ 11". */
function domainHTML() {
  const syms = Object.keys(state.result?.domain?.symbols ?? {}).map((n) => [n, domainRange(n)]).filter(([, r]) => r);
  if (!syms.length) return '';
  return `<p class="domain-line" id="domain">Runs for ${syms.slice(0, 50).map(([n, r]) => `<span title="${esc(r.why)}">${symChip(n)} ${esc(r.text)}</span>`).join(', ')}${syms.length > 50 ? ` and ${fmtInt(syms.length - 50)} more` : ''}.</p>`;
}

export function renderMemory() {
  const m = memoryFigures();
  const anyBound = state.effective.size > 0 || !state.symbols.length;
  const derivedNote = state.derived.size
    ? `<p class="hint">Derived from constraints: ${[...state.derived].map(([k, d]) => `${symChip(k)} = ${d.value}`).join(', ')}</p>` : '';
  if (!anyBound) {
    $('memory').innerHTML = '<p class="hint">Give the symbols sizes to see every shape as numbers, with the bytes per tensor and the activation memory.</p>';
    return;
  }
  if (state.refused.length) {
    $('memory').innerHTML = `${derivedNote}<p class="hint" id="mem-refused">No memory figures: the model cannot run at these sizes (above).</p>`;
    return;
  }
  $('memory').innerHTML = `${derivedNote}<dl class="mem">
    <div><dt>Activations</dt><dd id="mem-total">${fmtBytes(m.total)}</dd></div>
    <div><dt>Largest</dt><dd id="mem-largest">${m.largest ? `${fmtBytes(m.largest.bytes)}<button type="button" class="link small" data-goto="${esc(m.largest.name)}">${esc(m.largest.name)}</button>` : '—'}</dd></div>
    <div><dt>Weights</dt><dd>${fmtBytes(m.weights)}</dd></div>
  </dl>${m.unknown ? `<p class="hint">${fmtInt(m.unknown)} activations have no size yet (unbound symbols or unknown dims).</p>` : ''}
  <p class="hint">Activations are all values except initializers: graph inputs, outputs and intermediates, each counted once, as if all were alive at once.</p>`;
}

export function renderDiagnostics() {
  const diags = state.result.diagnostics || [];
  $('diagnostics-count').textContent = diags.length ? fmtInt(diags.length) : '';
  if (!diags.length) {
    $('diagnostics').innerHTML = '<p class="ok-line"><span class="ok-dot" aria-hidden="true"></span>No problems: every operator had a shape rule and every declared shape agrees.</p>';
    return;
  }
  const byCode = new Map();
  for (const d of diags) byCode.set(d.code, (byCode.get(d.code) || 0) + 1);
  const b = state.broken;
  const first = b ? `<div class="first-error" id="first-error"><span class="badge error">first error</span><span><span class="opname">${esc(b.opType || '')}</span> <span class="mono">${esc(b.node || `node #${b.nodeIndex}`)}</span>${b.path ? ` <span class="muted">in ${esc(b.path)}</span>` : ''}</span><button type="button" class="link small" data-broken>show in graph</button></div>` : '';
  const shown = diags.slice(0, 200);
  $('diagnostics').innerHTML = `${first}<p class="diag-summary">${[...byCode].map(([c, n]) => `<span class="badge ${DIAG_LEVEL[c] || 'warn'}">${esc(c)} ${n}</span>`).join(' ')}</p>
    <ul class="diag-list">${shown.map((d) => {
      const target = diagTarget(d);
      const where = d.node || d.opType ? `<span class="diag-node">${d.opType ? `<span class="opname">${esc(d.opType)}</span>` : ''}${d.node ? ` <span class="mono">${esc(d.node)}</span>` : ''}</span>` : '';
      return `<li class="diag ${DIAG_LEVEL[d.code] || 'warn'}"><span class="badge ${DIAG_LEVEL[d.code] || 'warn'}">${esc(d.code)}</span>${where}
        <p>${esc(d.message)}</p>${target ? `<button type="button" class="link small" data-goto="${esc(target)}">show ${esc(target)}</button>` : ''}</li>`;
    }).join('')}</ul>${diags.length > shown.length ? `<p class="hint">and ${fmtInt(diags.length - shown.length)} more.</p>` : ''}`;
}

/**
 * The value a diagnostic is about: for a node (in the graph its path names), its first output
 * with a type, else its first such input; for the model (no node), a value its message quotes.
 */
export function diagTarget(d) {
  if (typeof d.nodeIndex === 'number' && d.nodeIndex >= 0) {
    const n = ioAt(d.path ?? '', d.nodeIndex);
    if (!n) return null;
    return n.outputs.find((x) => x && state.byName.has(x)) ?? n.inputs.find((x) => x && state.byName.has(x)) ?? null;
  }
  for (const m of d.message.matchAll(/'([^']+)'/g)) if (state.byName.has(m[1])) return m[1];
  return null;
}

export function renderConstraints() {
  const c = state.result.constraints || {};
  const eq = c.equal || [];
  const le = c.lessEqual || [];
  const reqs = requirementGroups(c.requirements || []);
  const n = eq.length + le.length + reqs.length;
  $('constraints-count').textContent = n ? fmtInt(n) : '';
  const domain = domainHTML();
  if (!n) {
    $('constraints').innerHTML = '<p class="hint">No relations between symbols were needed, and the model needs nothing of its sizes.</p>';
    return;
  }
  const env = state.effective;
  const list = [...eq.slice(0, 200).map(([a, b]) => constraintHTML(a, b, '=', env)), ...le.slice(0, 200).map(([a, b]) => constraintHTML(a, b, '<=', env))];
  const labels = Object.entries(c.labels || {});
  const labelsHTML = labels.length
    ? `<p class="hint">Declared output labels, shown as the size they name: ${labels.slice(0, 200).map(([l, e]) => `<code>${exprHTML(l)} = ${exprHTML(e)}</code>`).join(', ')}</p>` : '';
  const reqHTML = reqs.length ? `<h3 class="sub-title" id="requirements-title">What the model needs to run <span class="count">${fmtInt(reqs.length)}</span></h3>
    <ul class="constraint-list" id="requirements">${reqs.slice(0, 200).map((g) => requirementHTML(g, env)).join('')}</ul>${reqs.length > 200 ? `<p class="hint">and ${fmtInt(reqs.length - 200)} more.</p>` : ''}` : '';
  $('constraints').innerHTML = `${list.length ? `<ul class="constraint-list">${list.join('')}</ul>${labelsHTML}
    <p class="hint">Equalities come from ops that need two dims to match (Add, Concat, MatMul…) and from declared output names; “≤” bounds come from data-dependent sizes.</p>` : labelsHTML}${domain}${reqHTML}`;
}

/** Requirements with the same relation, one entry listing their nodes (a layer's copies). */
function requirementGroups(reqs) {
  const groups = new Map();
  for (const r of reqs) {
    const key = `${r.lhs}\u0000${r.relation}\u0000${r.rhs}`;
    const g = groups.get(key);
    if (g) g.nodes.push(r);
    else groups.set(key, { lhs: r.lhs, relation: r.relation, rhs: r.rhs, nodes: [r] });
  }
  return [...groups.values()];
}

/** A requirement with its check at the current sizes and the first node that needs it. */
function requirementHTML(g, env) {
  const r = g.nodes[0];
  const more = g.nodes.length > 1 ? ` <span class="muted">and ${fmtInt(g.nodes.length - 1)} more</span>` : '';
  const node = `<span class="req-node"><span class="opname">${esc(r.opType)}</span> <button type="button" class="link mono small" data-open-node="${r.nodeIndex}" data-open-node-path="${esc(r.path)}" title="${esc(r.message)}">${esc(r.node || `node ${r.nodeIndex}`)}</button>${more}</span>`;
  return constraintHTML(g.lhs, g.rhs, g.relation === '==' ? '=' : '<=', env).replace(/<\/li>$/, `${node}</li>`);
}

/**
 * The result's named sizes (result.definitions: floor_1 = Floor(...), size_2 = ...), in order, each
 * with its value at the current sizes; the dims use the names.
 */
export function renderDefinitions() {
  const defs = state.result.definitions || [];
  $('definitions-card').hidden = !defs.length;
  $('definitions-count').textContent = defs.length ? fmtInt(defs.length) : '';
  if (!defs.length) {
    $('definitions').innerHTML = '';
    return;
  }
  const env = state.effective;
  const list = defs.slice(0, 500).map(({ name, expr }) => {
    const v = state.refused.length ? undefined : env.get(name);
    const value = typeof v === 'number' || typeof v === 'bigint' ? ` <span class="check ok" title="at these sizes">= ${v}</span>` : '';
    return `<li data-definition="${esc(name)}"><code class="expr-line">${exprHTML(name)} <span class="rel">=</span> ${exprHTML(expr)}</code>${value}</li>`;
  });
  $('definitions').innerHTML = `<ul class="constraint-list">${list.join('')}</ul>
    <p class="hint">Sizes computed in float, and parts that long dims repeat, are named; the shapes use the names.</p>`;
}

/** The size a field-less symbol has now: bound in the text field, or derived. */
export function symValueHTML(name) {
  const v = state.env.get(name);
  const d = state.derived.get(name);
  return v !== undefined ? String(v) : d ? `<span class="muted" title="derived from ${esc(d.from)}">${d.value}</span>` : '';
}

export function updateSymbolPlaceholders() {
  for (const el of document.querySelectorAll('#symbols [data-sym-val]')) el.innerHTML = symValueHTML(el.dataset.symVal);
  for (const input of document.querySelectorAll('#symbols input[data-sym]')) {
    const d = state.derived.get(input.dataset.sym);
    input.placeholder = d ? String(d.value) : '';
    if (d) input.title = `derived from ${d.from}: ${d.value}`; else input.removeAttribute('title');
  }
}
