// The node panel, in headless Chromium: a Conv's pads, strides, dilations and kernel (given, or
// the defaults and the weight's dims when the model leaves them out) and the weights it reads; a
// Constant's value; reached from the table's op, the keyboard, the why panel and its readers list.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { model, attr, tensor } from '../js/onnx_builder.js';
import { test, waitReady, row, openPage, REPO } from './harness.mjs';

const BACKEND = join(process.env.OSI_SHARED_DIR || join(REPO, '../shared'), 'onnx-backend');

/** The panel's attributes as {name: [value text, note]} once the worker has answered. */
async function attributes(page) {
  await page.waitForSelector('#n-attrs table');
  return page.$$eval('#n-attrs tr', (trs) => Object.fromEntries(trs.map((tr) => [tr.dataset.attr, [tr.children[1].textContent.trim(), tr.children[2].textContent.trim()]])));
}

test('node panel: the CNN\'s conv2 from the table: defaults, kernel from its weight, the weights it reads', async () => {
  const page = await openPage();
  await page.click('.example-card[data-example=cnn_dynamic]');
  await waitReady(page, 'cnn_dynamic.onnx');
  await row(page, 'c2');
  await page.click('#grid-rows .row:has(.vname:text-is("c2")) .opname');
  await page.waitForSelector('#detail:not([hidden])');
  assert.equal(await page.textContent('#detail-kicker'), 'Node');
  assert.equal(await page.textContent('#detail-title'), 'conv2');
  const op = await page.textContent('#n-op');
  assert.match(op, /Conv\s+conv2/);
  assert.match(op, /Domain\s*ai\.onnx/);
  assert.match(op, /Opset\s*17/);
  const a = await attributes(page);
  assert.deepEqual(a.pads, ['[0, 0, 0, 0]', 'ints'], 'given in the model');
  assert.deepEqual(a.kernel_shape, ['[3, 3]', 'from the weight c2_w']);
  assert.deepEqual(a.strides, ['[1, 1]', 'default']);
  assert.deepEqual(a.dilations, ['[1, 1]', 'default']);
  assert.deepEqual(a.group, ['1', 'default']);
  assert.match(await page.textContent('#n-inputs'), /p1[\s\S]*c2_w[\s\S]*c2_b/);
  assert.match(await page.textContent('#n-outputs'), /c2/);
  const weights = await page.textContent('#n-weights');
  assert.match(weights, /c2_w[\s\S]*4\.5 KiB \(4,608 bytes\)/, '16*8*3*3 floats');
  assert.match(weights, /c2_b[\s\S]*64 B/);
  assert.match(await page.textContent('#n-weight-total'), /4\.56 KiB/);
  assert.match(await page.textContent('#n-requirements'), /3\s*≤\s*\(H\+1\)\/\/4/);
  // Show in graph goes to the graph tab.
  await page.click('#detail [data-show-node-graph]');
  await page.waitForFunction(() => document.querySelector('#graph:not([hidden]) .graph-svg-host svg'));
  await page.click('#tab-table');
  // Keyboard: N on a row opens its producer's panel; the why panel links to it too.
  await page.fill('#filter', 'c1');
  await page.focus('#values');
  await page.keyboard.press('Home');
  await page.keyboard.press('n');
  await page.waitForFunction(() => document.querySelector('#detail-title').textContent === 'conv1');
  await page.fill('#filter', '');
  await page.keyboard.press('Escape');
  await row(page, 'r1');
  await page.click('#grid-rows .row:has(.vname:text-is("r1")) .vname');
  await page.waitForSelector('#d-open-node');
  await page.click('#d-open-node');
  await page.waitForFunction(() => document.querySelector('#detail-title').textContent === 'relu1');
  assert.match(await page.textContent('#n-attrs'), /No attributes/);
  // From a value's readers.
  await page.fill('#filter', '');
  await row(page, 'p1');
  await page.click('#grid-rows .row:has(.vname:text-is("p1")) .vname');
  await page.click('#d-users [data-open-node="3"]');
  await page.waitForFunction(() => document.querySelector('#detail-title').textContent === 'conv2');
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('node panel: a Conv with explicit strides and pads; a Constant\'s value; a LeakyRelu\'s float', async () => {
  const page = await openPage();
  await page.setInputFiles('#file-input', join(BACKEND, 'node/test_conv_with_strides_padding/model.onnx'));
  await waitReady(page, 'model.onnx');
  await row(page, 'y');
  await page.click('#grid-rows .row:has(.vname:text-is("y")) .opname');
  let a = await attributes(page);
  assert.deepEqual(a.pads, ['[1, 1, 1, 1]', 'ints']);
  assert.deepEqual(a.strides, ['[2, 2]', 'ints']);
  assert.deepEqual(a.kernel_shape, ['[3, 3]', 'ints']);
  assert.equal(a.dilations?.[1], 'default');

  const bytes = model({
    opset: 17,
    inputs: [{ name: 'x', elemType: 'float', dims: ['n', 2] }],
    outputs: ['y'],
    nodes: [
      { op: 'Constant', name: 'k', inputs: [], outputs: ['c'], attrs: { value: attr.tensor(tensor({ name: '', elemType: 'float', dims: [2, 2], floatData: [0.5, -1, 1e-5, 3] })) } },
      { op: 'MatMul', name: 'mm', inputs: ['x', 'c'], outputs: ['m'] },
      { op: 'LeakyRelu', name: 'act', inputs: ['m'], outputs: ['y'], attrs: { alpha: attr.float(0.1) } },
    ],
  });
  await page.setInputFiles('#file-input', { name: 'constant.onnx', mimeType: 'application/octet-stream', buffer: Buffer.from(bytes) });
  await waitReady(page, 'constant.onnx');
  await row(page, 'c');
  await page.click('#grid-rows .row:has(.vname:text-is("c")) .opname');
  a = await attributes(page);
  assert.deepEqual(a.value, ['float [2, 2] 16 B = [0.5, -1, 0.00001, 3]', 'tensor']);
  await page.fill('#filter', '');
  await row(page, 'y');
  await page.click('#grid-rows .row:has(.vname:text-is("y")) .opname');
  await page.waitForFunction(() => document.querySelector('#detail-title').textContent === 'act');
  a = await attributes(page);
  assert.deepEqual(a.alpha, ['0.1', 'float']);
  // The MatMul reads the Constant's output: a weight of 16 B.
  await page.fill('#filter', '');
  await row(page, 'm');
  await page.click('#grid-rows .row:has(.vname:text-is("m")) .opname');
  await page.waitForSelector('#n-weights');
  assert.match(await page.textContent('#n-weights'), /c[\s\S]*16 B/);
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('node panel: the table\'s op still opens it after the Graph tab was shown (the tab panel\'s own data-tab is not a tab button)', async () => {
  const page = await openPage();
  await page.click('.example-card[data-example=cnn_dynamic]');
  await waitReady(page, 'cnn_dynamic.onnx');
  for (const round of [1, 2]) {
    await page.click('#tab-graph');
    await page.waitForFunction(() => document.querySelector('#graph:not([hidden]) .graph-svg-host svg'));
    await page.click('#tab-table');
    await row(page, 'c2');
    await page.click('#grid-rows .row:has(.vname:text-is("c2")) .opname');
    await page.waitForSelector('#detail:not([hidden])');
    assert.equal(await page.textContent('#detail-kicker'), 'Node', `round ${round}`);
    assert.equal(await page.textContent('#detail-title'), 'conv2', `round ${round}`);
    assert.equal(await page.evaluate(() => document.querySelector('#graph').hidden), true, 'the table stays shown');
    await page.keyboard.press('Escape');
    await page.waitForSelector('#detail', { state: 'hidden' });
    await page.fill('#filter', '');
  }
  assert.deepEqual(page.errors, []);
  await page.close();
});
