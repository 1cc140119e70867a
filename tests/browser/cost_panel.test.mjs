// The page's cost (issue 27 part 3), in headless Chromium: the Cost card's totals, the MACs-by-op
// chart and the memory plot at the bindings, the table's MACs column, the node panel's cost and
// the graph's notes, each compared with what the engine gives in Node for the same model and sizes
// (result.cost({ bindings }), result.memoryProfile({ bindings })); at sizes the model refuses, no
// cost anywhere; a dropped model too.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { init } from '../../js/index.js';
import { withUnit } from '../../js/cli_cost.js';
import { test, waitReady, row, openPage, REPO, bindSizes } from './harness.mjs';

const BACKEND = join(process.env.OSI_SHARED_DIR || join(REPO, '../shared'), 'onnx-backend');
const engine = await init();

/** Binds sizes; waits until the worker's count at them is drawn. */
const bind = async (page, text) => {
  await bindSizes(page, text);
  await page.waitForSelector('#cost-card:not([data-pending])');
};

/** The Cost card's figures as the exact counts it shows (data-count). */
const totals = (page) => page.$$eval('.cost-totals dd', (dds) => Object.fromEntries(dds.map((d) => [d.id, d.dataset.count])));

const byMacs = (a, b) => (BigInt(b[1].macs) > BigInt(a[1].macs) ? 1 : BigInt(b[1].macs) < BigInt(a[1].macs) ? -1 : a[0] < b[0] ? -1 : 1);

test('cost: the CNN example\'s totals, chart, memory plot, MACs column, node panel and graph notes at N=2, H=W=32', async () => {
  const bytes = readFileSync(join(REPO, 'examples/models/cnn_dynamic.onnx'));
  const ref = engine.inferShapes(bytes, { cost: true });
  const bindings = { N: 2, H: 32, W: 32 };
  const cost = ref.cost({ bindings });
  const profile = ref.memoryProfile({ bindings });
  const symbolic = ref.cost();

  const page = await openPage();
  await page.click('.example-card[data-example=cnn_dynamic]');
  await waitReady(page, 'cnn_dynamic.onnx');
  await page.waitForSelector('#cost-card:not([hidden]) .cost-totals');
  // Before any binding: the counts in the model's sizes, as the engine writes them.
  let t = await totals(page);
  assert.equal(t['cost-macs'], String(symbolic.total.macs));
  assert.match(t['cost-macs'], /\bN\b/, 'symbolic');
  assert.equal(t['cost-params'], String(symbolic.total.params));

  await bind(page, 'N=2, H=32, W=32');
  t = await totals(page);
  assert.equal(t['cost-macs'], String(cost.total.macs));
  assert.equal(t['cost-flops'], String(cost.total.flops));
  assert.equal(t['cost-params'], String(cost.total.params));
  assert.equal(t['cost-weights'], String(cost.total.weightBytes));
  assert.equal(t['cost-peak'], String(cost.total.activationPeakBytes));
  assert.equal(typeof cost.total.macs, 'number');
  assert.equal(await page.textContent('#cost-macs'), withUnit(cost.total.macs, 'MACs'));

  // The chart: the op types by MACs, largest first, as the engine counts them.
  const bars = await page.$$eval('#cost-chart .cost-bar', (gs) => gs.map((g) => [g.dataset.op, g.dataset.count]));
  const want = Object.entries(cost.byOpType).filter(([, g]) => g.macs !== null && g.macs !== 0).sort(byMacs).slice(0, 10).map(([op, g]) => [op, String(g.macs)]);
  assert.deepEqual(bars, want);
  assert.equal(bars[0][0], 'Conv');
  // A bar filters the table by its op.
  await page.click('#cost-chart .cost-bar[data-op=Conv]');
  assert.equal(await page.inputValue('#filter'), 'op:Conv');

  // The memory plot: one step per node, the peak where the engine's schedule has it.
  const plot = await page.$eval('#cost-memory', (s) => ({ steps: Number(s.dataset.steps), peak: s.dataset.peakStep, path: s.querySelector('path').getAttribute('d') }));
  assert.equal(plot.steps, profile.steps.length);
  assert.equal(plot.peak, String(profile.peakStep));
  assert.match(plot.path, /^M[\d.]+,[\d.]+(L[\d.]+,[\d.]+)+$/, 'every step known: one line');
  assert.equal(profile.peakBytes, cost.total.activationPeakBytes);
  // A click on the plot opens the node at that step.
  const box = await page.$eval('#cost-memory', (s) => { const b = s.getBoundingClientRect(); return { x: b.x, y: b.y, w: b.width, h: b.height }; });
  await page.mouse.click(box.x + box.w - 1, box.y + box.h / 2);
  await page.waitForSelector('#detail:not([hidden]) #n-op');
  const last = profile.steps[profile.steps.length - 1];
  assert.equal(await page.textContent('#detail-title'), last.name);
  await page.keyboard.press('Escape');

  // The MACs column: conv2's on its output c2, which the table's own shape of c2 confirms
  // (16 output channels x 8 input channels x a 3x3 kernel, per output element).
  const conv2 = ref.nodes.findIndex((n) => n.name === 'conv2');
  const c2 = await row(page, 'c2');
  const [n, c, h, w] = c2.dims.map(Number);
  assert.equal(c, 16);
  assert.equal(cost.nodes[conv2].macs, n * c * h * w * 8 * 3 * 3);
  const cell = await page.$eval('#grid-rows .row:has(.vname:text-is("c2")) .c-macs', (d) => d.getAttribute('title'));
  assert.equal(cell, `${cost.nodes[conv2].macs.toLocaleString('en-US')} MACs`);
  // Sorted by MACs: the node with the most comes first.
  await page.fill('#filter', '');
  await page.click('[data-sort=macs]');
  const top = cost.nodes.reduce((m, x, i) => (x.macs !== null && x.macs > (cost.nodes[m].macs ?? -1) ? i : m), 0);
  assert.equal(await page.textContent('#grid-rows .row[data-v="0"] .nodename'), cost.nodes[top].name);

  // The node panel: conv2's MACs and FLOPs at the bindings, its expression beside them.
  await page.click('#grid-rows .row:has(.nodename:text-is("conv2")) .opname');
  await page.waitForSelector('#n-cost');
  assert.equal(await page.textContent('#n-cost [data-cost=MACs]'), `${withUnit(cost.nodes[conv2].macs, 'MACs')} = ${symbolic.nodes[conv2].macs}`);
  assert.match(await page.textContent('#n-cost [data-cost=FLOPs]'), new RegExp(`^${withUnit(cost.nodes[conv2].flops, 'FLOPs').replace('.', '\\.')}`));

  // The graph: each box's MACs (else FLOPs) at the bindings.
  await page.click('#tab-graph');
  await page.waitForFunction(() => document.querySelectorAll('#graph .gv-note').length > 0);
  await page.waitForFunction((want) => [...document.querySelectorAll('#graph .gv-note')].some((t) => t.textContent === want), withUnit(cost.nodes[conv2].macs, 'MACs'));
  // New sizes: the notes follow.
  const cost2 = ref.cost({ bindings: { N: 1, H: 64, W: 64 } });
  await bind(page, 'N=1, H=64, W=64');
  await page.waitForFunction((want) => [...document.querySelectorAll('#graph .gv-note')].some((t) => t.textContent === want), withUnit(cost2.nodes[conv2].macs, 'MACs'));
  assert.equal((await totals(page))['cost-macs'], String(cost2.total.macs));
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('cost: at sizes the model refuses (the CNN at H=3) no cost is shown anywhere', async () => {
  const page = await openPage();
  await page.click('.example-card[data-example=cnn_dynamic]');
  await waitReady(page, 'cnn_dynamic.onnx');
  await page.waitForSelector('#cost-card:not([hidden]) .cost-totals');
  await bind(page, 'N=1, H=3, W=3');
  await page.waitForSelector('#cost-refused');
  assert.equal(await page.$('#cost-card .cost-totals'), null);
  const cells = await page.$$eval('#grid-rows .c-macs', (ds) => ds.map((d) => d.textContent).filter(Boolean));
  assert.deepEqual(cells, [], 'no MACs in the table');
  await row(page, 'c2');
  await page.click('#grid-rows .row:has(.vname:text-is("c2")) .opname');
  await page.waitForSelector('#n-cost');
  assert.match(await page.textContent('#n-cost'), /Not priced: the model cannot run at these sizes/);
  await page.click('#tab-graph');
  await page.waitForFunction(() => document.querySelector('#graph .graph-svg-host svg'));
  const notes = await page.$$eval('#graph .gv-note', (ts) => ts.map((t) => t.textContent).filter(Boolean));
  assert.deepEqual(notes, [], 'no MACs in the graph');
  // Sizes it accepts again: the figures come back.
  await bind(page, 'N=1, H=32, W=32');
  await page.waitForSelector('#cost-card .cost-totals');
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('cost: a dropped model with fixed shapes is priced at once, as the engine counts it', async () => {
  const file = join(BACKEND, 'node/test_conv_with_strides_padding/model.onnx');
  const cost = engine.inferShapes(readFileSync(file), { cost: true }).cost();
  const page = await openPage();
  await page.setInputFiles('#file-input', file);
  await waitReady(page, 'model.onnx');
  await page.waitForSelector('#cost-card:not([hidden]) .cost-totals');
  const t = await totals(page);
  assert.equal(t['cost-macs'], String(cost.total.macs));
  assert.equal(typeof cost.total.macs, 'number');
  assert.ok(cost.total.macs > 0);
  assert.equal(t['cost-params'], String(cost.total.params));
  assert.equal(t['cost-peak'], String(cost.total.activationPeakBytes));
  assert.equal(await page.$eval('#cost-chart .cost-bar', (g) => g.dataset.count), String(cost.byOpType.Conv.macs));
  assert.ok(await page.$('#cost-memory path'));
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('cost: the bundled decoder and If/Loop examples show their totals, chart and memory plot at their sizes', async () => {
  const cases = [
    // total_seq is derived (past_seq+seq == total_seq); the decoder's MACs are its MatMuls'
    { name: 'tiny_decoder', text: 'batch=2, seq=8, past_seq=16', bindings: { batch: 2, seq: 8, past_seq: 16 }, metric: 'macs' },
    // a Loop of reductions and an If: no MACs, so the chart is of FLOPs
    { name: 'control_flow', text: 'N=5', bindings: { N: 5 }, metric: 'flops' },
  ];
  const page = await openPage();
  for (const c of cases) {
    const ref = engine.inferShapes(readFileSync(join(REPO, `examples/models/${c.name}.onnx`)), { cost: true });
    const cost = ref.cost({ bindings: c.bindings });
    const profile = ref.memoryProfile({ bindings: c.bindings });
    await page.click(`button.btn[data-example=${c.name}]`);
    await waitReady(page, `${c.name}.onnx`);
    await page.waitForSelector('#cost-card:not([hidden]) .cost-totals');
    await bind(page, c.text);
    const t = await totals(page);
    assert.equal(t['cost-macs'], String(cost.total.macs), c.name);
    assert.equal(t['cost-flops'], String(cost.total.flops), c.name);
    assert.equal(typeof cost.total.flops, 'number');
    assert.equal(t['cost-peak'], String(cost.total.activationPeakBytes), c.name);
    assert.equal(typeof cost.total.activationPeakBytes, 'number');
    const chart = await page.$eval('#cost-chart', (s) => ({ metric: s.dataset.metric, bars: [...s.querySelectorAll('.cost-bar')].map((g) => [g.dataset.op, g.dataset.count]) }));
    assert.equal(chart.metric, c.metric, c.name);
    const byCount = (a, b) => (b[1][c.metric] > a[1][c.metric] ? 1 : b[1][c.metric] < a[1][c.metric] ? -1 : a[0] < b[0] ? -1 : 1);
    assert.deepEqual(chart.bars, Object.entries(cost.byOpType).filter(([, g]) => g[c.metric]).sort(byCount).slice(0, 10).map(([op, g]) => [op, String(g[c.metric])]), c.name);
    assert.equal(await page.$eval('#cost-memory', (s) => s.dataset.peakStep), String(profile.peakStep), c.name);
  }
  assert.deepEqual(page.errors, []);
  await page.close();
});
