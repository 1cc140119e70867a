#!/usr/bin/env node
// Browser tests of the demo page (examples/web/) in headless Debian chromium via playwright-core.
//   npm run test:browser           (needs dist/ built: npm run build; and `apt-get install chromium`)
// Prints "N passed, N failed" and exits non-zero on a failure. Screenshots: build/screenshots/.
// This file holds the main flows and runs every test file of tests/browser/ (imported below).
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { execFileSync } from 'node:child_process';
import assert from 'node:assert/strict';
import { waitReady, row, REPO, SHOTS, ctx, test, runTests, bindSizes, openPage } from './harness.mjs';

// The ONNX backend test data (../shared, or OSI_SHARED_DIR): a missing file fails its test.
const BACKEND = join(process.env.OSI_SHARED_DIR || join(REPO, '../shared'), 'onnx-backend');
const SQUEEZENET = join(BACKEND, 'light/light_squeezenet.onnx');
const NODE_MODEL = join(BACKEND, 'node/test_conv_with_strides_padding/model.onnx');
const mustExist = (p) => assert.ok(existsSync(p), `${p} is absent (set OSI_SHARED_DIR; see .ci/shared_dir.sh)`);

let page; // one page shared by the tests that follow a flow
const shot = (p, name) => p.screenshot({ path: join(SHOTS, `${name}.png`) });
const noErrors = (p) => assert.deepEqual(p.errors, [], 'no console errors');

test('page loads: welcome screen, engine ready, no console errors', async () => {
  page = ctx.page = await ctx.env.newPage();
  await page.goto(`${ctx.env.base}/examples/web/`);
  await page.waitForFunction(() => document.body.dataset.engine, null, { timeout: 60000 });
  assert.equal(await page.isVisible('#welcome'), true);
  assert.equal(await page.locator('.example-card').count(), 3);
  await shot(page, '01-welcome');
  noErrors(page);
});

test('tiny_decoder (example button): symbolic shapes with coloured symbol chips', async () => {
  await page.click('.example-card[data-example=tiny_decoder]');
  await waitReady(page, 'tiny_decoder.onnx');
  await shot(page, '02-tiny-decoder');
  const pk = await row(page, 'present_key');
  assert.deepEqual(pk.dims, ['batch', '4', 'total_seq', '16']);
  assert.equal(pk.type, 'float');
  assert.equal(pk.op, 'Concat');
  const scores = await row(page, 'scores');
  assert.deepEqual(scores.dims, ['batch', '4', 'seq', 'total_seq']);
  // The same symbol has the same colour everywhere (hue variable on every chip).
  const hues = await page.evaluate(() => {
    const out = {};
    for (const el of document.querySelectorAll('.symd, .sym')) {
      const h = el.style.getPropertyValue('--h');
      const t = el.textContent;
      if (!/^[a-z_]+$/.test(t)) continue;
      (out[t] ??= new Set()).add(h);
    }
    return Object.fromEntries(Object.entries(out).map(([k, v]) => [k, [...v]]));
  });
  assert.equal(hues.batch.length, 1, `batch has one hue: ${hues.batch}`);
  assert.notEqual(hues.batch[0], hues.seq?.[0], 'batch and seq have different colours');
  await page.fill('#filter', '');
  noErrors(page);
});

test('tiny_decoder: filter with op: and sym: prefixes', async () => {
  await page.fill('#filter', 'op:Transpose sym:total_seq');
  await page.waitForTimeout(50);
  const names = await page.$$eval('#grid-rows .row .vname', (els) => els.map((e) => e.textContent));
  assert.deepEqual(names, ['k_T']);
  await page.fill('#filter', 'is:input');
  await page.waitForTimeout(50);
  const inputs = await page.$$eval('#grid-rows .row .vname', (els) => els.map((e) => e.textContent));
  assert.deepEqual(inputs, ['input_ids', 'attention_mask', 'past_key', 'past_value']);
  await page.fill('#filter', '');
  noErrors(page);
});

test('tiny_decoder: bindings make shapes concrete, with byte sizes and memory totals', async () => {
  // Its own page with the model loaded (it passed only after the tests before it had loaded one:
  // BROWSER_TESTS=bindings runs it alone); the flows after it go on with this page.
  await page?.close();
  page = await openPage();
  await page.click('.example-card[data-example=tiny_decoder]');
  await waitReady(page, 'tiny_decoder.onnx');
  await bindSizes(page, 'batch=2, seq=3, past_seq=5, total_seq=8');
  const pk = await row(page, 'present_key');
  assert.deepEqual(pk.dims, ['2', '4', '8', '16']);
  assert.equal(pk.size, '4 KiB');
  assert.equal(pk.sizeTitle, '4,096 bytes');
  const probs = await row(page, 'probs');
  assert.deepEqual(probs.dims, ['2', '4', '3', '8']);
  assert.equal(probs.sizeTitle, `${(2 * 4 * 3 * 8 * 4).toLocaleString('en-US')} bytes`);
  const total = await page.textContent('#mem-total');
  assert.match(total, /KiB/);
  // Constraint past_seq+seq = total_seq holds with these sizes.
  assert.equal(await page.locator('#constraints .constraint-list:not(#requirements) .check.ok').count(), 1);
  await page.fill('#filter', '');
  await shot(page, '03-tiny-decoder-bound');
  noErrors(page);
});

test('tiny_decoder: a derived binding (total_seq from past_seq+seq)', async () => {
  await bindSizes(page, 'batch=1, seq=1, past_seq=127');
  const pk = await row(page, 'present_key');
  assert.deepEqual(pk.dims, ['1', '4', '128', '16']);
  await bindSizes(page, 'batch=2, seq=3, past_seq=5, total_seq=8');
  await page.fill('#filter', '');
  noErrors(page);
});

test('tiny_decoder: clicking a value opens "Why this shape" naming its producer; Escape closes it', async () => {
  await row(page, 'present_key');
  await page.click('#grid-rows .row:has(.vname:text-is("present_key"))');
  await page.waitForSelector('#detail:not([hidden])');
  assert.equal(await page.textContent('#detail-title'), 'present_key');
  const producer = await page.textContent('#d-producer');
  assert.match(producer, /Concat/);
  assert.match(producer, /kv_cache_k/);
  assert.match(producer, /past_key/); // its inputs, with their shapes
  assert.match(await page.textContent('#verdict'), /consistent/);
  assert.match(await page.textContent('#d-symbols'), /total_seq/);
  await shot(page, '04-why-this-shape');
  await page.keyboard.press('Escape');
  await page.waitForSelector('#detail', { state: 'hidden' });
  await page.fill('#filter', '');
  noErrors(page);
});

test('keyboard: Tab reaches the table, arrows move, Enter opens the detail', async () => {
  await page.focus('#filter');
  await page.keyboard.press('ArrowDown'); // from the filter into the table
  assert.equal(await page.evaluate(() => document.activeElement.id), 'values');
  await page.keyboard.press('Home');
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('Enter');
  await page.waitForSelector('#detail:not([hidden])');
  assert.equal(await page.textContent('#detail-title'), 'attention_mask'); // model order: 2nd input
  await page.keyboard.press('Escape');
  await page.waitForSelector('#detail', { state: 'hidden' });
  assert.equal(await page.evaluate(() => document.activeElement.id), 'values');
  noErrors(page);
});

test('cnn_dynamic (example button): strided conv gives (H+1)//2', async () => {
  await page.click('[data-example=cnn_dynamic]');
  await waitReady(page, 'cnn_dynamic.onnx');
  const c1 = await row(page, 'c1');
  assert.deepEqual(c1.dims, ['N', '8', '(H+1)//2', '(W+1)//2']);
  assert.equal(c1.op, 'Conv');
  const c2 = await row(page, 'c2');
  assert.deepEqual(c2.dims, ['N', '16', '(H+1)//4-2', '(W+1)//4-2']);
  await bindSizes(page, 'N=1, H=224, W=224');
  const c1b = await row(page, 'c1');
  assert.deepEqual(c1b.dims, ['1', '8', '112', '112']);
  assert.equal(c1b.sizeTitle, `${(8 * 112 * 112 * 4).toLocaleString('en-US')} bytes`);
  await page.fill('#filter', '');
  await shot(page, '05-cnn-dynamic');
  noErrors(page);
});

test('cnn_dynamic: "Download with value_info" gives a model that loads', async () => {
  assert.equal(await page.isVisible('#download'), true, 'the download button is shown');
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('#download')]);
  assert.equal(download.suggestedFilename(), 'cnn_dynamic.shapes.onnx');
  const path = join(REPO, 'build/cnn_dynamic.shapes.onnx');
  await download.saveAs(path);
  await page.setInputFiles('#file-input', path);
  await waitReady(page, 'cnn_dynamic.shapes.onnx');
  assert.deepEqual((await row(page, 'c1')).dims, ['N', '8', '(H+1)//2', '(W+1)//2']);
  await page.fill('#filter', '');
  noErrors(page);
});

test('control_flow (example button): If/Loop outputs and subgraph values', async () => {
  await page.click('[data-example=control_flow]');
  await waitReady(page, 'control_flow.onnx');
  assert.deepEqual((await row(page, 'y')).dims, ['N', '4']);
  assert.deepEqual((await row(page, 'rows')).dims, ['3', 'N', '4']);
  await page.fill('#filter', 'is:inner');
  assert.ok(await page.locator('#grid-rows .row').count() > 0, 'subgraph values are listed');
  await page.fill('#filter', '');
  await shot(page, '06-control-flow');
  noErrors(page);
});

test('light_squeezenet (file input): shapes and op filter', async () => {
  mustExist(SQUEEZENET);
  await page.setInputFiles('#file-input', SQUEEZENET);
  await waitReady(page, 'light_squeezenet.onnx');
  const out = await row(page, 'softmaxout_1');
  assert.deepEqual(out.dims, ['1', '1000', '1', '1']);
  assert.equal(out.op, 'Softmax');
  assert.equal(out.size, '3.91 KiB');
  await page.fill('#filter', 'op:Conv');
  await page.waitForTimeout(50);
  assert.match(await page.textContent('#values-count'), /^26 of /);
  await page.fill('#filter', '');
  await shot(page, '07-squeezenet');
  noErrors(page);
});

test('backend node model (file input): Conv with strides and padding', async () => {
  mustExist(NODE_MODEL);
  await page.setInputFiles('#file-input', NODE_MODEL);
  await waitReady(page, 'model.onnx');
  const y = await row(page, 'y');
  assert.deepEqual(y.dims, ['1', '1', '4', '3']);
  assert.equal(y.op, 'Conv');
  await page.click('#grid-rows .row:has(.vname:text-is("y"))');
  await page.waitForSelector('#detail:not([hidden])');
  assert.match(await page.textContent('#d-producer'), /Conv/);
  await page.keyboard.press('Escape');
  noErrors(page);
});

test('an invalid file shows a friendly error with its code', async () => {
  await page.setInputFiles('#file-input', { name: 'not-a-model.onnx', mimeType: 'application/octet-stream', buffer: Buffer.from([0xff, 0xff, 0xff, 0x01]) });
  await page.waitForFunction(() => document.body.dataset.state === 'error');
  const text = await page.textContent('#error-card');
  assert.match(text, /not-a-model\.onnx is not an ONNX model/);
  assert.match(text, /PARSE_ERROR/);
  await shot(page, '08-error');
  // The engine stays usable.
  await page.click('[data-example=tiny_decoder]');
  await waitReady(page, 'tiny_decoder.onnx');
  assert.equal(await page.isVisible('#error-card'), false);
  noErrors(page);
  await page.close();
});

test('dark colour scheme renders (screenshot)', async () => {
  const p = await ctx.env.newPage({ colorScheme: 'dark' });
  await p.goto(`${ctx.env.base}/examples/web/`);
  await p.waitForFunction(() => document.body.dataset.engine, null, { timeout: 60000 });
  await p.click('.example-card[data-example=tiny_decoder]');
  await waitReady(p, 'tiny_decoder.onnx');
  const bg = await p.evaluate(() => getComputedStyle(document.body).backgroundColor);
  assert.equal(bg, 'rgb(15, 17, 21)');
  await bindSizes(p, 'batch=1, seq=128, past_seq=4096');
  await row(p, 'scores');
  await p.click('#grid-rows .row:has(.vname:text-is("scores"))');
  await p.fill('#filter', '');
  await p.waitForSelector('#detail:not([hidden])');
  await shot(p, '09-dark');
  noErrors(p);
  await p.close();
});

test('single-file build (dist/onnx-shapes-demo.html) works from file://', async () => {
  execFileSync(process.execPath, [join(REPO, 'examples/web/build.mjs'), join(REPO, 'build/onnx-shapes-demo.test.html')], { stdio: 'pipe', timeout: 120_000 });
  const p = await ctx.env.newPage();
  const requests = [];
  p.on('request', (r) => { if (!r.url().startsWith('blob:') && !r.url().startsWith('data:')) requests.push(r.url()); });
  await p.goto(pathToFileURL(join(REPO, 'build/onnx-shapes-demo.test.html')).href);
  await p.waitForFunction(() => document.body.dataset.engine || document.body.dataset.state === 'error', null, { timeout: 60000 });
  await p.click('.example-card[data-example=cnn_dynamic]');
  await waitReady(p, 'cnn_dynamic.onnx');
  assert.deepEqual((await row(p, 'c1')).dims, ['N', '8', '(H+1)//2', '(W+1)//2']);
  await p.fill('#filter', '');
  await shot(p, '10-single-file');
  assert.deepEqual(requests.filter((u) => !u.endsWith('onnx-shapes-demo.test.html')), [], 'no other request than the page itself');
  noErrors(p);
  await p.close();
});

// Section - The other test files, then the run

await import('./page_edges.test.mjs');
await import('./bindings_check.test.mjs');
await import('./node_panel.test.mjs');
await import('./error_cards.test.mjs');
await import('./url_errors.test.mjs');
await import('./cost_panel.test.mjs');
await import('./graph_view.test.mjs');
await import('./graph_model.test.mjs');
await import('./graph_overview.test.mjs');
await import('./graph_deep.test.mjs');
await import('./url_data.test.mjs');
await import('./url_hostile.test.mjs');
await import('./page_wiring.test.mjs');
await import('./hostile_dims.test.mjs');
await runTests();
