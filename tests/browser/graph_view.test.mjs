// The graph view (examples/web/graph_view.js, layout_worker.js) in headless Chromium: operators as
// boxes and values as edges labelled with their shapes, a value's "why this shape" and its
// producer and readers one click away, subgraphs that open, the first broken node marked, and a
// 10k-node transformer export and a 100k-node graph laid out off the main thread (time to first
// paint and the longest main-thread task printed; their targets are checked by the benchmark,
// tests/browser/graph_bench.mjs, not here: a loaded machine is not a failure).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { model, attr } from '../js/onnx_builder.js';
import { test, ctx, waitReady, row, openPage, REPO, SHOTS } from './harness.mjs';

const upload = (page, name, bytes) => page.setInputFiles('#file-input', { name, mimeType: 'application/octet-stream', buffer: Buffer.from(bytes) });

/** Opens the Graph tab and waits for a view newer than `before` (the metrics object). */
async function graphShown(page, action, { timeout = 60000 } = {}) {
  const before = await page.evaluate(() => window.__onnxShapesDemo.graph);
  await action();
  await page.waitForFunction((b) => {
    const m = window.__onnxShapesDemo.graph;
    return m && (!b || m.totalMs !== b.totalMs || m.boxes !== b.boxes) && document.querySelector('#graph')?.dataset.busy === 'false';
  }, before, { timeout });
  return page.evaluate(() => window.__onnxShapesDemo.graph);
}

/** What the view shows: node boxes (op, name), group boxes, pills and edge labels. */
const drawn = (page) => page.evaluate(() => ({
  nodes: [...document.querySelectorAll('#graph .gv-node')].map((g) => ({ op: g.querySelector('.gv-op').textContent, name: g.querySelector('title').textContent, broken: g.classList.contains('broken') })),
  groups: [...document.querySelectorAll('#graph .gv-group')].map((g) => g.dataset.expand),
  pills: [...document.querySelectorAll('#graph .gv-pill')].map((g) => [g.classList.contains('gv-in') ? 'in' : g.classList.contains('gv-out') ? 'out' : 'outer', g.dataset.value]),
  labels: [...document.querySelectorAll('#graph .gv-elabel')].map((g) => [g.dataset.value, g.querySelector('text').textContent]),
  bodies: [...document.querySelectorAll('#graph .gv-body-link')].map((t) => t.dataset.scope),
  crumbs: document.querySelector('#graph .graph-crumbs').textContent,
}));

/** Starts recording main-thread tasks longer than 50 ms (PerformanceObserver 'longtask'). */
const watchLongTasks = (page) => page.evaluate(() => {
  window.__longTasks = [];
  new PerformanceObserver((list) => { for (const e of list.getEntries()) window.__longTasks.push(Math.round(e.duration)); }).observe({ type: 'longtask' });
});
const longestTask = (page) => page.evaluate(() => Math.max(0, ...window.__longTasks));

test('graph view: boxes, edges labelled with shapes, an If and a Loop whose bodies open', async () => {
  const page = await openPage();
  await page.click('.example-card[data-example=control_flow]');
  await waitReady(page, 'control_flow.onnx');
  await graphShown(page, () => page.click('#tab-graph'));
  let g = await drawn(page);
  // examples/models/make_models.py: ReduceSum → Greater → If → Loop, x in, acc and rows out.
  assert.deepEqual(g.nodes.map((n) => n.op).sort(), ['Greater', 'If', 'Loop', 'ReduceSum']);
  assert.deepEqual(g.pills.sort(), [['in', 'x'], ['out', 'acc'], ['out', 'rows']]);
  const label = Object.fromEntries(g.labels);
  assert.equal(label.x, '[N, 4]');
  assert.equal(label.rows, '[3, N, 4]');
  assert.equal(label.y, '[N, 4]');
  assert.deepEqual(g.bodies.sort(), ['branch/else_branch/', 'branch/then_branch/', 'loop/body/']);
  await page.screenshot({ path: join(SHOTS, 'graph-control-flow.png') });

  // The Loop's body: its three nodes, its inputs, and y read from the enclosing graph.
  await graphShown(page, () => page.click('#graph .gv-body-link[data-scope="loop/body/"]'));
  g = await drawn(page);
  assert.match(g.crumbs, /model›\s*loop\/body/);
  assert.deepEqual(g.nodes.map((n) => n.op).sort(), ['Add', 'Identity', 'Identity']);
  assert.ok(g.pills.some(([k, v]) => k === 'outer' && v === 'y'), `y comes from outside: ${JSON.stringify(g.pills)}`);
  assert.ok(g.pills.some(([k, v]) => k === 'in' && v === 'loop/body/acc_in'));
  assert.equal(Object.fromEntries(g.labels)['loop/body/acc_out'], '[N, 4]');

  // One click on a value: why it has that shape, with its producer.
  await page.click('#graph .gv-elabel[data-value="loop/body/acc_out"]');
  await page.waitForSelector('#detail:not([hidden])');
  assert.equal(await page.textContent('#detail-title'), 'loop/body/acc_out');
  assert.match(await page.textContent('#d-producer'), /Add/);
  assert.match(await page.textContent('#d-users'), /Identity/); // emit_row reads it
  // Back to the model's graph.
  await graphShown(page, () => page.click('#graph .graph-crumbs [data-scope=""]'));
  assert.equal((await drawn(page)).nodes.length, 4);
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('graph view: the first view is prepared while the table is shown, for the model on screen only', async () => {
  const page = await openPage();
  await page.click('.example-card[data-example=control_flow]');
  await waitReady(page, 'control_flow.onnx');
  assert.equal(await page.evaluate(() => window.__onnxShapesDemo.graphView.whenPrepared()), true, 'prepared while the table is shown');
  const first = await graphShown(page, () => page.click('#tab-graph'));
  assert.equal(first.prepared, true, 'the tab drew the prepared view');
  assert.deepEqual((await drawn(page)).nodes.map((n) => n.op).sort(), ['Greater', 'If', 'Loop', 'ReduceSum']);
  // Another model, the tab clicked back and forth at once: its own graph, never the one before.
  await page.click('#tab-table');
  await page.click('button.btn[data-example=cnn_dynamic]');
  await waitReady(page, 'cnn_dynamic.onnx');
  await graphShown(page, () => page.click('#tab-graph'));
  const ops = (await drawn(page)).nodes.map((n) => n.op);
  assert.ok(ops.includes('Conv') && !ops.includes('Loop'), `the CNN's boxes: ${ops.join(', ')}`);
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('graph view: "Show in graph" from a value focuses its producer and highlights the value', async () => {
  const page = await openPage();
  await page.click('.example-card[data-example=tiny_decoder]');
  await waitReady(page, 'tiny_decoder.onnx');
  await row(page, 'scores');
  await page.click('#grid-rows .row:has(.vname:text-is("scores"))');
  await page.waitForSelector('#detail:not([hidden])');
  await graphShown(page, () => page.click('#detail [data-show-graph="scores"]'));
  assert.equal(await page.isVisible('#graph'), true);
  const hot = await page.$$eval('#graph .gv-elabel.hot', (els) => els.map((e) => [e.dataset.value, e.querySelector('text').textContent]));
  assert.deepEqual(hot, [['scores', '[batch, 4, seq, total_seq]']]);
  // Its producer (the mask Add, make_models.py) is drawn, and the readers one click away.
  const g = await drawn(page);
  assert.ok(g.nodes.some((n) => n.op === 'Softmax'), 'its reader is drawn');
  await page.click('#graph .gv-elabel[data-value="scores"]');
  assert.equal(await page.textContent('#detail-title'), 'scores');
  assert.match(await page.textContent('#d-users'), /Softmax/);
  // The shape-tensor edges show their content.
  assert.match(Object.fromEntries(g.labels).split_shape ?? '', /^\[4\] = \[batch, seq, 4, 16\]$/);
  await page.screenshot({ path: join(SHOTS, 'graph-tiny-decoder.png') });
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('graph view: the first broken node is marked in the graph, the table and the diagnostics', async () => {
  // Node 0 (Add of [2,3] and [4,5]) is broken; Relu 'after' reads a valid value.
  const branch = (name) => ({ name, outputs: [`${name}_out`], nodes: [{ op: 'Add', name: `${name}_add`, inputs: ['A', 'B'], outputs: [`${name}_out`] }] });
  const bytes = model({
    inputs: [{ name: 'A', elemType: 'float', dims: [2, 3] }, { name: 'B', elemType: 'float', dims: [4, 5] }, { name: 'c', elemType: 'bool', dims: [] }],
    outputs: ['Y', 'R'],
    nodes: [
      { op: 'Relu', name: 'after', inputs: ['A'], outputs: ['R'] },
      { op: 'If', name: 'cond', inputs: ['c'], outputs: ['Y'], attrs: { then_branch: attr.graph(branch('then')), else_branch: attr.graph(branch('else')) } },
    ],
  });
  const page = await openPage();
  await upload(page, 'broken_body.onnx', bytes);
  await waitReady(page, 'broken_body.onnx');
  assert.match(await page.textContent('#first-error'), /Add\s+(then|else)_add\s+in cond\/(then|else)_branch\//);
  // The rows it reads are marked in the table.
  await row(page, 'A');
  assert.equal(await page.$eval('#grid-rows .row:has(.vname:text-is("A"))', (r) => r.classList.contains('broken')), true);
  await row(page, 'R');
  assert.equal(await page.$eval('#grid-rows .row:has(.vname:text-is("R"))', (r) => r.classList.contains('broken')), false);
  await page.fill('#filter', '');
  // The graph opens on it, in its body.
  await graphShown(page, () => page.click('#first-error [data-broken]'));
  const g = await drawn(page);
  assert.match(g.crumbs, /cond\/(then|else)_branch/);
  assert.deepEqual(g.nodes.filter((n) => n.broken).map((n) => n.op), ['Add']);
  assert.equal(await page.isVisible('#graph [data-graph=error]'), true);
  assert.deepEqual(page.errors, []);
  await page.close();
});

/** A 10k-node exporter-style transformer (tests/bench/make_models.py, 111 layers), built once. */
function transformer10k() {
  const file = join(REPO, 'build/graph_view/transformer_111.onnx');
  if (!existsSync(file)) {
    mkdirSync(join(REPO, 'build/graph_view'), { recursive: true });
    execFileSync('/usr/bin/python3', ['-c', `
import sys, onnx
sys.path.insert(0, ${JSON.stringify(join(REPO, 'tests/bench'))})
import make_models
onnx.save(make_models.transformer(111), ${JSON.stringify(file)})`], { stdio: 'pipe', timeout: 300_000 });
  }
  return file;
}

test('graph view: a 10k-node transformer shows its layers collapsed, opens one, laid out in the worker', async () => {
  const file = transformer10k();
  const page = await openPage();
  await page.setInputFiles('#file-input', file);
  await waitReady(page, 'transformer_111.onnx', 120000);
  const nodes = await page.evaluate(() => window.__onnxShapesDemo.state.result.nodes.length);
  assert.ok(nodes >= 10000, `${nodes} nodes`);
  // The cost (the boxes' MACs) in first: once it comes, a view on screen is laid out again (its
  // levels from the layout cache), which would be the view measured here.
  await page.waitForFunction(() => window.__onnxShapesDemo.costShownMs !== undefined, null, { timeout: 120000 });
  await watchLongTasks(page);
  const t0 = Date.now();
  const first = await graphShown(page, () => page.click('#tab-graph'));
  const wall = Date.now() - t0;
  let g = await drawn(page);
  const layers = g.groups.filter((p) => /^model\/layers\.\d+$/.test(p));
  const longest = await longestTask(page);
  console.log(`      10k nodes: first paint ${Math.round(first.totalMs)} ms (click → painted ${wall} ms; worker ${Math.round(first.workerMs)} ms, dagre ${Math.round(first.layoutMs)} ms, ${first.boxes} boxes), longest main-thread task ${longest} ms`);
  assert.ok(layers.length >= 50, `the layers are collapsed boxes (${layers.length})`);
  assert.ok(first.boxes <= 120, `${first.boxes} boxes`);
  assert.ok(first.workerMs > 0 && first.layoutMs > 0, 'chosen and laid out by the layout worker');
  assert.equal(await page.evaluate(() => typeof window.dagre), 'undefined', 'no layout library on the main thread');
  await page.screenshot({ path: join(SHOTS, 'graph-10k-overview.png') });

  // One layer opened: its parts, the rest stays collapsed.
  await watchLongTasks(page);
  const opened = await graphShown(page, () => page.click('#graph .gv-group[data-expand="model/layers.3"]'));
  g = await drawn(page);
  assert.ok(g.groups.includes('model/layers.3/self_attn'), `layer 3's parts: ${g.groups.filter((p) => p.startsWith('model/layers.3')).join(', ')}`);
  assert.ok(g.groups.includes('model/layers.4'));
  console.log(`      10k nodes, a layer opened: ${Math.round(opened.totalMs)} ms, ${opened.boxes} boxes, longest task ${await longestTask(page)} ms`);

  // Fit: the chain of 111 layers cannot fit at a readable size: the smallest zoom Fit uses, and
  // the minimap.
  const fit = await graphShown(page, () => page.click('#graph [data-graph=fit]'));
  assert.equal(fit.zoom, 0.75);
  assert.equal(await page.isVisible('#graph .graph-minimap'), true);

  // A value deep inside, from the table: its node is drawn, its groups open, each level within
  // budget, and the view zoomed back to a readable size around it (not Fit's zoom).
  const key = '/model/layers.60/self_attn/scores';
  await page.evaluate(() => { window.__onnxShapesDemo.state.tab = 'table'; });
  await page.click('#tab-table');
  await row(page, key);
  await page.click(`#grid-rows .row:has(.vname:text-is("${key}"))`);
  await watchLongTasks(page);
  const deep = await graphShown(page, () => page.click(`#detail [data-show-graph="${key}"]`));
  g = await drawn(page);
  assert.ok(deep.widestLevel <= 120, `each level within the budget (${deep.widestLevel})`);
  assert.ok(await page.$(`#graph .gv-elabel.hot[data-value="${key}"]`), 'the value is drawn, highlighted');
  assert.equal(deep.zoom, 1);
  const seen = await page.evaluate((k) => {
    const r = document.querySelector(`#graph .gv-elabel.hot[data-value="${CSS.escape(k)}"]`).getBoundingClientRect();
    const c = document.querySelector('#graph .graph-canvas').getBoundingClientRect();
    return r.left >= c.left && r.right <= c.right && r.top >= c.top && r.bottom <= c.bottom;
  }, key);
  assert.ok(seen, 'its label is within the canvas, at zoom 1');
  console.log(`      10k nodes, focus on ${key}: ${Math.round(deep.totalMs)} ms, ${deep.boxes} boxes, longest task ${await longestTask(page)} ms`);
  await page.screenshot({ path: join(SHOTS, 'graph-10k-focus.png') });
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('graph view: a 100k-node graph degrades to a neighbourhood, still off the main thread', async () => {
  const N = 100000;
  const nodes = [];
  let prev = 'x';
  for (let i = 0; i < N; i++) {
    nodes.push({ op: i % 10 === 9 ? 'Add' : 'Relu', name: `n${i}`, inputs: i % 10 === 9 ? [prev, 'x'] : [prev], outputs: [`v${i}`] });
    prev = `v${i}`;
  }
  const bytes = model({ inputs: [{ name: 'x', elemType: 'float', dims: ['batch', 64] }], outputs: [prev], nodes });
  const page = await openPage();
  await upload(page, 'chain_100k.onnx', bytes);
  await waitReady(page, 'chain_100k.onnx', 120000);
  await watchLongTasks(page);
  const first = await graphShown(page, () => page.click('#tab-graph'), { timeout: 120000 });
  const longest = await longestTask(page);
  console.log(`      100k nodes: first paint ${Math.round(first.totalMs)} ms (waiting for the layout worker ${Math.round(first.waitMs)} ms, worker ${Math.round(first.workerMs)} ms, ${first.boxes} of ${first.allBoxes} boxes), longest main-thread task ${longest} ms`);
  assert.ok(first.boxes <= 120 && first.allBoxes > first.boxes, 'a neighbourhood');
  assert.equal(first.prepared, true, 'asked for when the model was shown');
  assert.ok(first.workerMs > 0, 'chosen and laid out by the layout worker');
  const g = await drawn(page);
  assert.ok(g.nodes.some((n) => n.name === 'n0 (Relu)'), 'it starts at the first node');
  // Centred on a box at the edge of the view: the neighbourhood moves.
  const more = await page.$$eval('#graph .gv-more', (els) => els.map((e) => e.dataset.focus));
  assert.ok(more.length > 0, 'boxes say that neighbours are hidden');
  const moved = await graphShown(page, () => page.click(`#graph .gv-more[data-focus="${more.at(-1)}"]`));
  assert.ok(moved.boxes <= 120);
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('graph view in the single-file build (file://): the layout worker runs from the page itself', async () => {
  const html = join(REPO, 'build/onnx-shapes-demo.graph.html');
  execFileSync(process.execPath, [join(REPO, 'examples/web/build.mjs'), html], { stdio: 'pipe', timeout: 120_000 });
  const page = await ctx.env.newPage();
  ctx.page = page;
  const requests = [];
  page.on('request', (r) => { if (!r.url().startsWith('blob:') && !r.url().startsWith('data:')) requests.push(r.url()); });
  await page.goto(pathToFileURL(html).href);
  await page.waitForFunction(() => document.body.dataset.engine, null, { timeout: 60000 });
  await page.click('.example-card[data-example=control_flow]');
  await waitReady(page, 'control_flow.onnx');
  await graphShown(page, () => page.click('#tab-graph'));
  assert.deepEqual((await drawn(page)).nodes.map((n) => n.op).sort(), ['Greater', 'If', 'Loop', 'ReduceSum']);
  assert.deepEqual(requests.filter((u) => !u.endsWith('onnx-shapes-demo.graph.html')), []);
  assert.deepEqual(page.errors, []);
  await page.close();
});
