// The graph view's first sight of real exports (made here with torch 1.13 and torchvision, cached:
// graph_exports.mjs): no Constant box (constants are listed in their readers' boxes), the model's
// name hierarchy (a 32-layer Llama as the chain of its layers, shapes on the edges between them;
// Faster R-CNN as its transform, backbone, rpn and roi_heads; Swin as its stages), a layer that
// opens on its own parts, and Fit that keeps the labels readable (groups closed, or a minimap).
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { llamaExport, torchvisionExport } from './graph_exports.mjs';
import { test, waitReady, openPage, SHOTS } from './harness.mjs';

/** Waits for a view newer than the current one after `action` (see graph_view.test.mjs). */
async function graphShown(page, action, { timeout = 120000 } = {}) {
  const before = await page.evaluate(() => window.__onnxShapesDemo.graph);
  await action();
  await page.waitForFunction((b) => {
    const m = window.__onnxShapesDemo.graph;
    return m && (!b || m.totalMs !== b.totalMs || m.boxes !== b.boxes) && document.querySelector('#graph')?.dataset.busy === 'false';
  }, before, { timeout });
  return page.evaluate(() => window.__onnxShapesDemo.graph);
}

/** What the view shows: node ops, group prefixes, frame prefixes, edges with their labels. */
const drawn = (page) => page.evaluate(() => ({
  ops: [...document.querySelectorAll('#graph .gv-node .gv-op')].map((t) => t.textContent),
  groups: [...document.querySelectorAll('#graph .gv-group')].map((g) => g.dataset.expand),
  frames: [...document.querySelectorAll('#graph .gv-cluster')].map((g) => g.dataset.collapse),
  weights: [...document.querySelectorAll('#graph .gv-weight[data-value]')].map((t) => [...t.childNodes].filter((c) => c.nodeType === 3).map((c) => c.textContent).join('')),
  edges: window.__onnxShapesDemo.graphView.state.view.edges.map((e) => ({ from: e.from, to: e.to, label: e.label })),
  ids: Object.fromEntries([...document.querySelectorAll('#graph .gv-group')].map((g) => [g.dataset.expand, g.dataset.id])),
}));

/** On-screen size in px of the view's smallest text (11 px at zoom 1), and whether it overflows. */
const readability = (page) => page.evaluate(() => {
  const svg = document.querySelector('#graph .gv-svg');
  const canvas = document.querySelector('#graph .graph-canvas');
  const scale = svg.getScreenCTM().a;
  const box = svg.getBoundingClientRect();
  return {
    smallestTextPx: 11 * scale,
    overflows: box.width > canvas.clientWidth + 2 || box.height > canvas.clientHeight + 2,
    minimap: !document.querySelector('#graph .graph-minimap').hidden,
    width: box.width,
  };
});

async function open(file) {
  const page = await openPage();
  await page.setInputFiles('#file-input', file);
  await waitReady(page, file.split('/').pop(), 180000);
  return page;
}

test('graph overview: a 32-layer Llama export (torch 1.13) opens as the chain of its layers, no Constant box', async () => {
  const page = await open(llamaExport(32));
  const first = await graphShown(page, () => page.click('#tab-graph'));
  const g = await drawn(page);
  assert.deepEqual(g.ops.filter((op) => op === 'Constant' || op === 'Identity'), [], 'constants are folded into their readers');
  assert.ok(first.folded > 2000, `${first.folded} folded`);
  const layers = Array.from({ length: 32 }, (_, k) => `layers.${k}`);
  for (const l of layers) assert.ok(g.groups.includes(l), `${l} is a collapsed box`);
  assert.ok(first.boxes <= 45, `a short chain, not a wall (${first.boxes} boxes)`);
  // The chain: each layer feeds the next, and the edge says the hidden state's shape.
  for (let k = 0; k < 31; k++) {
    const e = g.edges.find((x) => x.from === g.ids[layers[k]] && x.to === g.ids[layers[k + 1]]);
    assert.ok(e, `layers.${k} → layers.${k + 1}`);
    assert.equal(e.label, '[batch_size, sequence_length, 64]');
  }
  // The embedding lists its weight inside its box.
  assert.ok(g.weights.some((w) => /^embed_tokens\.weight float\[1000, 64\]$/.test(w)), g.weights.join(' | '));
  // Too long to fit at a readable size: at 100 % from its top, the rest reached from the
  // minimap, which covers neither the help text below the canvas nor its scroll bar.
  const r = await readability(page);
  assert.equal(first.zoom, 1);
  assert.ok(r.overflows && r.minimap);
  const [mm, help, canvas] = await page.evaluate(() => ['.graph-minimap', '.graph-help', '.graph-canvas']
    .map((q) => document.querySelector(`#graph ${q}`).getBoundingClientRect()).map((b) => ({ top: b.top, bottom: b.bottom })));
  assert.ok(mm.bottom <= help.top && mm.bottom <= canvas.bottom - 12, `minimap ${JSON.stringify(mm)}, help ${JSON.stringify(help)}, canvas ${JSON.stringify(canvas)}`);
  await page.screenshot({ path: join(SHOTS, 'graph-llama32.png') });

  // A layer opens on its parts (attention, MLP, norms), laid out alone: the rest stays as it was.
  const opened = await graphShown(page, () => page.click('#graph .gv-group[data-expand="layers.7"]'));
  const o = await drawn(page);
  assert.deepEqual(o.frames, ['layers.7']);
  for (const part of ['layers.7/self_attn', 'layers.7/mlp']) assert.ok(o.groups.includes(part), `${part} in ${o.groups.join(' ')}`);
  assert.ok(o.groups.includes('layers.8') && o.groups.includes('layers.6'));
  assert.ok(opened.laidOut <= 2, `layers.7 and the model's level laid out (${opened.laidOut})`);
  assert.deepEqual(o.ops.filter((op) => op === 'Constant'), []);
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('graph overview: Faster R-CNN (torchvision) opens on its modules, whole; Fit keeps labels readable at any level', async () => {
  const page = await open(torchvisionExport('detection_faster_rcnn_op13_dict'));
  await graphShown(page, () => page.click('#tab-graph'));
  let g = await drawn(page);
  assert.deepEqual(g.ops.filter((op) => op === 'Constant'), []);
  for (const m of ['model/transform', 'model/backbone', 'model/rpn', 'model/roi_heads']) assert.ok(g.groups.includes(m), `${m} in ${g.groups.join(' ')}`);
  // The unscoped If of the export sits with its neighbours: no edge runs from a group back to
  // something that feeds it.
  const back = g.edges.filter((e) => g.edges.some((f) => f.from === e.to && f.to === e.from));
  assert.deepEqual(back, []);
  // At first sight, whole and readable (it fits the canvas at Fit's zoom, so it is drawn at it).
  let r = await readability(page);
  assert.ok(!r.overflows && r.smallestTextPx >= 8, `first view: ${JSON.stringify(r)}`);
  await page.screenshot({ path: join(SHOTS, 'graph-faster-rcnn.png') });

  // Fit at the first level, then with the big groups open: never smaller than readable.
  await graphShown(page, () => page.click('#graph [data-graph=fit]'));
  r = await readability(page);
  assert.ok(r.smallestTextPx >= 8, `smallest text ${r.smallestTextPx.toFixed(1)} px at Fit`);
  assert.ok(!r.overflows || r.minimap, 'what does not fit is reachable from the minimap');
  for (const m of ['model/rpn', 'model/roi_heads', 'model/backbone']) await graphShown(page, () => page.click(`#graph .gv-group[data-expand="${m}"]`));
  g = await drawn(page);
  assert.ok(g.frames.length >= 3, `open: ${g.frames.join(' ')}`);
  const fitted = await graphShown(page, () => page.click('#graph [data-graph=fit]'));
  r = await readability(page);
  console.log(`      Faster R-CNN, Fit with rpn, roi_heads, backbone open: ${fitted.collapsed} level(s) closed, ${fitted.boxes} boxes, zoom ${fitted.zoom.toFixed(2)}, smallest text ${r.smallestTextPx.toFixed(1)} px, ${Math.round(r.width)} px wide${r.minimap ? ', minimap' : ''}`);
  assert.ok(r.smallestTextPx >= 8, `smallest text ${r.smallestTextPx.toFixed(1)} px at Fit`);
  assert.ok(fitted.collapsed >= 1, 'Fit closed groups to fit');
  assert.ok(!r.overflows || r.minimap);
  await page.screenshot({ path: join(SHOTS, 'graph-faster-rcnn-fit.png') });
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('graph overview: Swin (torchvision) shows its stages, their blocks collapsed', async () => {
  const page = await open(torchvisionExport('classification_swin_op17_dict'));
  await graphShown(page, () => page.click('#tab-graph'));
  const g = await drawn(page);
  assert.deepEqual(g.ops.filter((op) => op === 'Constant' || op === 'Identity'), []);
  assert.ok(g.frames.includes('features'), g.frames.join(' '));
  for (const stage of ['features/features.1/features.1.0', 'features/features.3/features.3.0', 'features/features.5/features.5.0']) {
    assert.ok(g.groups.includes(stage), `${stage} in ${g.groups.join(' ')}`);
  }
  assert.ok(g.weights.some((w) => /weight float\[16, 3, 4, 4\]/.test(w)), 'the patch embedding lists its kernel');
  await page.screenshot({ path: join(SHOTS, 'graph-swin.png') });
  assert.deepEqual(page.errors, []);
  await page.close();
});
