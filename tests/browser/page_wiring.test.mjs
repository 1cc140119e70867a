// The page's wiring between its worker and its panels: value and node names cross as data, never
// split on a character (issue 30 item 10: a name holding U+0001, once the separator between a
// node's inputs and outputs, showed the wrong input, an unknown shape and no users in "Why this
// shape"; names here hold the control characters a separator would use, and a comma and a bar);
// the event log, recorded after the table, reaches an open panel; a file past the read-whole size
// is streamed.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { matmulChain, writePieces } from '../js/big_model.js';
import { model } from '../js/onnx_builder.js';
import { namedSizeModel } from '../js/model_parts.js';
import { test, ctx, waitReady, openPage, row } from './harness.mjs';

// x -> Relu 're\u0001lu' -> 'a\u0001b' -> Mul with input '\u0001' -> 'w|\u0002,' -> Neg -> y. (A NUL
// cannot be in a name: the engine's names are C strings.)
const A = 'a\u0001b';
const ONE = '\u0001';
const W = 'w|\u0002,';
function wiringModel() {
  return model({
    inputs: [{ name: 'x', elemType: 'float', dims: ['N', 4] }, { name: ONE, elemType: 'float', dims: [1, 4] }],
    outputs: ['y'],
    nodes: [
      { op: 'Relu', name: 're\u0001lu', inputs: ['x'], outputs: [A] },
      { op: 'Mul', name: 'm\u0001ul', inputs: [A, ONE], outputs: [W] },
      { op: 'Neg', name: 'neg', inputs: [W], outputs: ['y'] },
    ],
  });
}

/** The "Why this shape" panel of `name`: {title, producer inputs as [name, shape text], users}. */
async function why(page, name) {
  await page.evaluate((n) => {
    const el = [...document.querySelectorAll('#grid-rows .row')].find((r) => r.querySelector('.vname').textContent === n);
    el.click();
  }, name);
  await page.waitForSelector('#detail:not([hidden])');
  return page.evaluate(() => ({
    title: document.querySelector('#detail-title').textContent,
    type: document.querySelector('#detail .d-type')?.textContent.replace(/\s+/g, ' ').trim(),
    inputs: [...document.querySelectorAll('#d-producer .io-list li')].map((li) => [
      li.querySelector('[data-goto]')?.dataset.goto ?? li.querySelector('.mono')?.textContent ?? null,
      li.querySelector('.shape')?.textContent.replace(/\s+/g, ' ').trim() ?? null,
    ]),
    users: [...document.querySelectorAll('#d-users .io-list li')].map((li) => [
      li.querySelector('.opname')?.textContent, li.querySelector('[data-open-node]')?.textContent, // the reader's name opens its node panel
      li.querySelector('[data-goto]')?.dataset.goto ?? null,
    ]),
  }));
}

test('names holding U+0001 and other separators: "Why this shape" shows the right inputs, shapes and users', async () => {
  const page = await openPage();
  ctx.page = page;
  await page.setInputFiles('#file-input', { name: 'wiring.onnx', mimeType: 'application/octet-stream', buffer: Buffer.from(wiringModel()) });
  await waitReady(page, 'wiring.onnx');
  const names = await page.$$eval('#grid-rows .row .vname', (els) => els.map((e) => e.textContent));
  assert.deepEqual([...names].sort(), ['x', ONE, A, W, 'y'].sort());

  const a = await why(page, A);
  assert.equal(a.title, A);
  assert.deepEqual(a.inputs.map(([n]) => n), ['x'], JSON.stringify(a));
  assert.match(a.inputs[0][1] ?? '', /^N.*4$/, `x's shape: ${a.inputs[0][1]}`);
  assert.deepEqual(a.users, [['Mul', 'm\u0001ul', W]]);

  const w = await why(page, W);
  assert.equal(w.title, W);
  assert.deepEqual(w.inputs.map(([n]) => n), [A, ONE]);
  assert.ok(w.inputs.every(([, shape]) => shape !== null), `both inputs have a shape: ${JSON.stringify(w.inputs)}`);
  assert.match(w.type, /float.*N.*4/, `the Mul's output is [N, 4]: ${w.type}`);
  assert.deepEqual(w.users, [['Neg', 'neg', 'y']]);

  const one = await why(page, ONE);
  assert.deepEqual(one.users, [['Mul', 'm\u0001ul', W]]);
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('the event log follows the table: an open "Why this shape" panel shows the trace once it is there', async () => {
  const page = await openPage();
  ctx.page = page;
  await page.click('.example-card[data-example=tiny_decoder]');
  await waitReady(page, 'tiny_decoder.onnx');
  const panel = await why(page, 'present_key');
  assert.equal(panel.title, 'present_key');
  // The worker records the log in a second inference after the result: the panel opened before
  // it came is drawn again when it does.
  await page.waitForFunction(() => document.body.dataset.events === 'ready', null, { timeout: 60000 });
  await page.waitForSelector('#d-how ol.events li');
  assert.equal(await page.isVisible('#events-pending'), false);
  // The log stays in the worker (event_log.js): the panel lists this value's own events, as the
  // engine recorded them (its producer's rule), and nothing of the log is on the page's state.
  const how = await page.textContent('#d-how');
  assert.match(how, /Set by the shape rule of\s*Concat/);
  assert.equal(await page.evaluate(() => 'events' in window.__onnxShapesDemo.state.result), false);
  // Another value's panel asks the worker for its own events.
  await page.fill('#filter', 'probs');
  await why(page, 'probs');
  await page.waitForSelector('#d-how ol.events li');
  assert.match(await page.textContent('#d-how'), /Set by the shape rule of\s*Softmax/);
  assert.match(await page.textContent('#summary'), /event log: [\d.]+ ms more, after the table/);
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('a file over 32 MiB is streamed (its weights unread) and shown like any other', async () => {
  // 10 MatMuls over 4 MiB weights (a sparse file): past the page's read-whole size (worker.js).
  const dir = mkdtempSync(join(tmpdir(), 'osi-page-'));
  const file = join(dir, 'matmul_40m.onnx');
  try {
    writePieces(file, matmulChain({ layers: 10, rows: 1024, cols: 1024 }));
    const page = await openPage();
    ctx.page = page;
    await page.setInputFiles('#file-input', file);
    await waitReady(page, 'matmul_40m.onnx', 120000);
    assert.deepEqual((await row(page, 'Y')).dims, ['N', '1024']);
    assert.deepEqual((await row(page, 'W3')).dims, ['1024', '1024']);
    assert.match(await page.textContent('#summary'), /\(streamed: reading included\)/);
    assert.deepEqual(page.errors, []);
    await page.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('"Why this shape" prints the derivation with the named sizes the table shows (the log spells them out)', async () => {
  // y = ConstantOfShape([Floor(1.5*h), w+Floor(1.5*h)]), y2 = Flatten(y): the table says floor_1;
  // the event log, written before the names were chosen, says Floor(1.5*h).
  const bytes = namedSizeModel({ tail: [{ op: 'Flatten', inputs: ['y'], outputs: ['y2'], attrs: { axis: 0 } }], output: 'y2' });
  const page = await openPage();
  ctx.page = page;
  await page.setInputFiles('#file-input', { name: 'named.onnx', mimeType: 'application/octet-stream', buffer: Buffer.from(bytes) });
  await waitReady(page, 'named.onnx');
  assert.deepEqual((await row(page, 'y2')).dims, ['1', 'w*floor_1+floor_1*floor_1']);
  await why(page, 'y2');
  await page.waitForFunction(() => document.body.dataset.events === 'ready', null, { timeout: 60000 });
  await page.waitForSelector('#d-how ol.events li');
  const how = (await page.textContent('#d-how')).replace(/\s+/g, '');
  assert.match(how, /SetbytheshaperuleofFlatten.*w\*floor_1\+floor_1\*floor_1/, how);
  assert.doesNotMatch(how, /Floor\(/, how);
  assert.deepEqual(page.errors, []);
  await page.close();
});
