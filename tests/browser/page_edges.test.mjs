// Rough edges of the demo page that a new user hit, each checked in headless Chromium: a
// diagnostic's "show" link names a value of the node it is about, a file that fails to load
// leaves the model on screen, long shapes are readable whole, only graph-input symbols get a size
// field, a size computed in float shows as a named size whose value the bindings give, and a
// 100k-node model with 10k diagnostics shows its first rows before the rest, which comes in parts.
import assert from 'node:assert/strict';
import { model, attr } from '../js/onnx_builder.js';
import { namedSizeModel } from '../js/model_parts.js';
import { test, ctx, waitReady, row, openPage, bindSizes } from './harness.mjs';

const upload = (page, name, bytes) => page.setInputFiles('#file-input', { name, mimeType: 'application/octet-stream', buffer: Buffer.from(bytes) });

/** A model with a diagnostic of each kind: model-level (a graph output declared with a shape
 *  inference contradicts) and inside an If body (Add of [2,3] and [4,5]). Node 0 of the top
 *  level (Relu → 'first') and node 0 of the body (the Add) share their index. */
function diagnosticsModel() {
  const branch = (name) => ({
    name, outputs: [`${name}_out`],
    nodes: [{ op: 'Add', name: `${name}_add`, inputs: ['A', 'B'], outputs: [`${name}_out`] }],
  });
  return model({
    inputs: [
      { name: 'A', elemType: 'float', dims: [2, 3] }, { name: 'B', elemType: 'float', dims: [4, 5] },
      { name: 'c', elemType: 'bool', dims: [] },
    ],
    outputs: [{ name: 'first', elemType: 'float', dims: [7, 7] }, 'Y'],
    nodes: [
      { op: 'Relu', name: 'relu', inputs: ['A'], outputs: ['first'] },
      { op: 'If', name: 'cond', inputs: ['c'], outputs: ['Y'], attrs: { then_branch: attr.graph(branch('then')), else_branch: attr.graph(branch('else')) } },
    ],
  });
}

test('a model-level diagnostic links to the output it names; a body diagnostic to a value of its node', async () => {
  const page = await openPage();
  await upload(page, 'diags.onnx', diagnosticsModel());
  await waitReady(page, 'diags.onnx');
  const items = await page.$$eval('#diagnostics .diag', (els) => els.map((el) => ({
    text: el.querySelector('p').textContent,
    node: el.querySelector('.diag-node .mono')?.textContent.trim() ?? '',
    link: el.querySelector('[data-goto]')?.dataset.goto ?? null,
  })));
  const anchor = items.find((d) => /graph output 'first'/.test(d.text));
  assert.ok(anchor, `an ANCHOR_CONFLICT about 'first': ${JSON.stringify(items)}`);
  assert.equal(anchor.link, 'first', 'the link shows the output the declaration is about');
  const body = items.filter((d) => /_add$/.test(d.node));
  assert.ok(body.length > 0, `a diagnostic on the body's Add: ${JSON.stringify(items)}`);
  for (const d of body) {
    // The Add reads A and B and writes <path>/<branch>_out: the link names one of those, never
    // the top-level node 0's output.
    assert.ok(d.link === null || ['A', 'B'].includes(d.link) || /^cond\/(then|else)_branch\//.test(d.link), `body diagnostic links to ${d.link}`);
    assert.notEqual(d.link, 'first');
  }
  // Following the link opens the value it names.
  await page.click(`#diagnostics [data-goto="first"]`);
  await page.waitForSelector('#detail:not([hidden])');
  assert.equal(await page.textContent('#detail-title'), 'first');
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('a file that fails to load leaves the model on screen, with the error above it', async () => {
  const page = await openPage();
  await page.click('.example-card[data-example=tiny_decoder]');
  await waitReady(page, 'tiny_decoder.onnx');
  await upload(page, 'broken.onnx', [0x08, 0x07, 0x3a, 0xff, 0xff]);
  await page.waitForFunction(() => document.body.dataset.state === 'error');
  const card = await page.textContent('#error-card');
  assert.match(card, /broken\.onnx is truncated/);
  assert.equal(await page.isVisible('#workspace'), true, 'the model is still on screen');
  assert.match(await page.textContent('#model-title'), /tiny_decoder\.onnx/);
  assert.deepEqual((await row(page, 'present_key')).dims, ['batch', '4', 'total_seq', '16']);
  // The error can be dismissed, and the page is back to the model.
  await page.click('#error-card [data-dismiss]');
  assert.equal(await page.isVisible('#error-card'), false);
  assert.equal(await page.evaluate(() => document.body.dataset.state), 'ready');
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('a long shape is readable whole: its cell scrolls, nothing is cut with an ellipsis', async () => {
  // Four stride-2 convolutions on H and W: (((H+1)//2+1)//2...) style dims.
  const convs = [];
  let prev = 'x';
  for (let i = 0; i < 5; i++) {
    convs.push({ op: 'Conv', name: `conv${i}`, inputs: [prev, 'w'], outputs: [`c${i}`], attrs: { strides: [3, 5], pads: [1, 2, 1, 2], dilations: [2, 1] } });
    prev = `c${i}`;
  }
  const bytes = model({
    inputs: [{ name: 'x', elemType: 'float', dims: ['batch_size', 4, 'image_height', 'image_width'] }, { name: 'w', elemType: 'float', dims: [4, 4, 3, 3] }],
    outputs: [prev],
    nodes: convs,
  });
  const page = await openPage();
  await upload(page, 'long.onnx', bytes);
  await waitReady(page, 'long.onnx');
  await row(page, 'c4');
  const cell = await page.evaluate(() => {
    const c = [...document.querySelectorAll('#grid-rows .row')].find((r) => r.querySelector('.vname').textContent === 'c4').querySelector('.c-shape');
    const before = { overflowX: getComputedStyle(c).overflowX, textOverflow: getComputedStyle(c).textOverflow, scroll: c.scrollWidth, client: c.clientWidth };
    c.scrollLeft = c.scrollWidth;
    const cr = c.getBoundingClientRect();
    const chip = [...c.querySelectorAll('.dim')].at(-1);
    const last = chip.getBoundingClientRect();
    // Scrolled to its end, the last dim ends inside the cell, and the chip shows all its text.
    const lastInside = last.right <= cr.right + 0.5 && chip.scrollWidth <= chip.clientWidth + 1;
    return { ...before, title: c.getAttribute('title'), lastText: chip.textContent, lastInside, last: [last.left, last.right], cell: [cr.left, cr.right] };
  });
  assert.ok(cell.scroll > cell.client, `the shape is longer than its cell (${cell.scroll} > ${cell.client}), or the test proves nothing`);
  assert.notEqual(cell.textOverflow, 'ellipsis');
  assert.ok(['auto', 'scroll'].includes(cell.overflowX), `the cell scrolls (${cell.overflowX})`);
  assert.ok(cell.lastInside, `scrolled to its end, the last dim is whole inside the cell: ${JSON.stringify(cell)}`);
  assert.match(cell.title ?? '', /image_width/, 'the whole shape is in the cell title');
  assert.ok(cell.title.endsWith(`${cell.lastText}]`), `the last chip holds the whole last dim (${cell.lastText})`);
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('only symbols of the graph inputs get a size field; others are listed without one', async () => {
  // NonZero's count is a fresh data-dependent symbol; the output's declared name replaces it.
  const bytes = model({
    inputs: [{ name: 'X', elemType: 'float', dims: ['batch', 6] }],
    outputs: [{ name: 'idx', elemType: 'int64', dims: [2, 'num_nonzero'] }, { name: 'Y', elemType: 'float', dims: ['batch', 6] }],
    nodes: [
      { op: 'NonZero', name: 'nz', inputs: ['X'], outputs: ['idx'] },
      { op: 'Relu', name: 'relu', inputs: ['X'], outputs: ['Y'] },
    ],
  });
  const page = await openPage();
  await upload(page, 'labels.onnx', bytes);
  await waitReady(page, 'labels.onnx');
  const idx = await row(page, 'idx');
  const other = idx.dims[1];
  assert.notEqual(other, 'batch');
  assert.ok(/^[A-Za-z_]/.test(other), `idx has a symbolic count (${other})`);
  const fields = await page.$$eval('#symbols input[data-sym]', (els) => els.map((e) => e.dataset.sym));
  assert.deepEqual(fields, ['batch'], 'a field for the graph-input symbol only');
  assert.match(await page.textContent('#symbols'), new RegExp(other), `${other} is still listed`);
  // It can still be bound in the text field.
  await bindSizes(page, `batch=2, ${other}=5`);
  assert.deepEqual((await row(page, 'idx')).dims, ['2', '5']);
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('a size computed in float is a named size: listed with its definition, evaluated by the bindings', async () => {
  // y = ConstantOfShape([Floor(1.5*h), Floor(1.5*h)+w]), computed in float as exporters do.
  const bytes = namedSizeModel();
  const page = await openPage();
  await upload(page, 'float_size.onnx', bytes);
  await waitReady(page, 'float_size.onnx');
  assert.equal(await page.isVisible('#definitions-card'), true, 'the named sizes are listed');
  const defs = await page.$$eval('#definitions li', (els) => els.map((e) => ({ name: e.dataset.definition, text: e.textContent })));
  const floor = defs.find((d) => /Floor\(/.test(d.text));
  assert.ok(floor && /^floor_\d+$/.test(floor.name), `a floor_N definition: ${JSON.stringify(defs)}`);
  const y = await row(page, 'y');
  assert.equal(y.dims[0], floor.name, 'the dim shows the name');
  // only the graph symbols get a size field, not the names
  const fields = await page.$$eval('#symbols input[data-sym]', (els) => els.map((e) => e.dataset.sym));
  assert.deepEqual(fields.sort(), ['h', 'w']);
  // bound sizes evaluate through the definition: Floor(1.5*7) = 10, 10 + 3 = 13 (by hand)
  await bindSizes(page, 'h=7, w=3');
  assert.deepEqual((await row(page, 'y')).dims, ['10', '13']);
  assert.match(await page.textContent(`#definitions li[data-definition="${floor.name}"]`), /= 10\s*$/);
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('100k NonZero nodes and 10k diagnostics: the first rows show before the rest, which comes in parts', async () => {
  // A behaviour check, not a timing: how long this takes is measured by a benchmark
  // (`node tests/browser/bench_table.mjs --nonzero`). The page must paint the table's first rows
  // from the first part of the result, before any other part is added, and add the rest (rows,
  // nodes, diagnostics) one part per task, the table complete at the end.
  const N = 100000;
  const nodes = [];
  for (let i = 0; i < N; i++) nodes.push({ op: 'NonZero', name: `nz${i}`, inputs: ['X'], outputs: [`i${i}`] });
  const bytes = model({ inputs: [{ name: 'X', elemType: 'float', dims: ['batch', 4] }], outputs: [`i${N - 1}`], nodes });
  const page = await openPage();
  // What the page holds when the table's rows are first put in the DOM (a mutation observer runs
  // right after the task that rendered them).
  await page.evaluate(() => {
    const grid = document.querySelector('#grid-rows');
    const obs = new MutationObserver(() => {
      const st = window.__onnxShapesDemo.state;
      if (!grid.querySelector('.row') || !st.result || st.result.nodeCount !== 100000) return;
      window.__firstPaint = {
        domRows: grid.querySelectorAll('.row').length,
        rows: st.rows.length,
        rowsState: document.body.dataset.rows,
        steps: (st.steps ?? []).length,
        diagnostics: st.result.diagnostics.length,
        firstName: grid.querySelector('.row .vname')?.textContent,
      };
      obs.disconnect();
    });
    obs.observe(grid, { childList: true });
  });
  await upload(page, 'nonzero_100k.onnx', bytes);
  await waitReady(page, 'nonzero_100k.onnx', 600000);
  const first = await page.evaluate(() => window.__firstPaint);
  const t = await page.evaluate(() => window.__onnxShapesDemo.timings);
  const steps = await page.evaluate(() => window.__onnxShapesDemo.state.steps.map(([what]) => what));
  const diags = await page.textContent('#diagnostics-count');
  console.log(`      100k NonZero: inference ${t.inferMs.toFixed(0)} ms, inference done -> first rows ${t.tableMs.toFixed(0)} ms, `
    + `complete ${t.completeMs.toFixed(0)} ms after the file; ${t.rows} rows in ${steps.length} steps, ${diags} diagnostics`);
  // The first rows: painted from the first part alone (a screen of rows, not the model).
  assert.ok(first, 'the table had rows in the DOM');
  assert.equal(first.rowsState, 'first');
  assert.equal(first.steps, 0, 'no other part added before the first rows');
  assert.ok(first.rows > 0 && first.rows <= 1000, `the first part holds a screen of rows, not all (${first.rows})`);
  assert.ok(first.domRows > 0 && first.domRows <= first.rows, `${first.domRows} rows in the DOM`);
  assert.equal(first.firstName, 'X', 'the first row is the graph input');
  assert.equal(first.diagnostics, 0, 'the diagnostics come after the first rows');
  // The rest in parts, each its own task: 100,001 rows are many parts, the nodes several.
  const count = (what) => steps.filter((w) => w === what).length;
  assert.ok(count('rows') >= 20, `the rows came in ${count('rows')} parts`);
  assert.ok(count('nodes') >= 2, `the nodes came in ${count('nodes')} parts`);
  assert.equal(count('meta'), 1);
  assert.ok(count('diagnostics') >= 2, `the 10k diagnostics came in ${count('diagnostics')} parts`);
  assert.ok(count('symbols') >= 2, `the 100k symbols came in ${count('symbols')} parts`);
  assert.equal(count('sizes'), 1, 'the sizes with nothing bound, resolved in the worker');
  assert.equal(count('end'), 1);
  assert.equal(steps.at(-1), 'finish 3', 'the finishing steps come last');
  // Complete at the end.
  assert.equal(t.rows, N + 1);
  assert.equal(diags.replace(/,/g, ''), '10000');
  assert.equal(await page.evaluate(() => document.body.dataset.rows), 'complete');
  // Sizes over 20k relations and 100k shapes (counted in the worker, sizes_at.js): a bound count
  // shows in the table with its bytes; one past its bound (nnz_6 <= 4*batch) is refused, naming it.
  await bindSizes(page, 'batch=2, nnz_6=3');
  const i5 = await row(page, 'i5');
  assert.deepEqual(i5.dims, ['2', '3']);
  assert.equal(i5.sizeTitle, '48 bytes', 'int64 [2, 3]');
  assert.equal(await page.isVisible('#bindings-issues'), false);
  await bindSizes(page, 'batch=1, nnz_6=9');
  assert.match(await page.textContent('#bindings-issues'), /nnz_6[\s\S]*4\*batch[\s\S]*9 vs 4/);
  assert.equal((await row(page, 'i5')).sizeTitle, null, 'no size at sizes the model refuses');
  assert.equal(await page.getAttribute('#bindings-text', 'aria-invalid'), '');
  assert.deepEqual(page.errors, []);
  await page.close();
});
