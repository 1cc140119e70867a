// Sizes the model refuses, in headless Chromium: a binding that breaks a requirement of a node
// (the CNN example at H=3: conv2's window is larger than its input) or a relation of the model
// (the decoder's total_seq against past_seq+seq) is shown next to the inputs, naming the
// requirement and its node, the fields of the symbols involved are marked, and no table cell,
// memory figure or named size shows a size until the binding changes.
import assert from 'node:assert/strict';
import { test, waitReady, row, openPage, bindSizes, sizesShown } from './harness.mjs';

const bind = bindSizes;

/** Every size-like text on the page: dim chips (table, panels), size cells, memory figures. */
const sizesOnPage = (page) => page.evaluate(() => ({
  dims: [...document.querySelectorAll('.dim')].map((d) => d.textContent.trim()),
  sizes: [...document.querySelectorAll('#grid-rows .c-size')].map((d) => d.textContent.trim()),
  // rows whose shape is all numbers (weights): their bytes do not depend on the binding
  fixed: [...document.querySelectorAll('#grid-rows .row')].map((r) => [...r.querySelectorAll('.c-shape .dim')].every((d) => !d.classList.contains('symd'))),
  memory: document.querySelector('#memory').textContent,
  definitions: document.querySelector('#definitions').textContent,
}));

test('bindings: the CNN at H=3 is refused, naming conv2\'s requirement; no size, no negative dim anywhere', async () => {
  const page = await openPage();
  await page.click('.example-card[data-example=cnn_dynamic]');
  await waitReady(page, 'cnn_dynamic.onnx');
  await bind(page, 'N=1, H=3, W=3');
  assert.equal(await page.isVisible('#bindings-issues'), true, 'the refusal is shown by the inputs');
  const text = await page.textContent('#bindings-issues');
  assert.match(text, /cannot run at these sizes/);
  assert.match(text, /Conv\s+conv2\s+needs\s+3\s*≤\s*\(H\+1\)\/\/4/, text);
  assert.match(text, /at these sizes 3 vs 1/);
  assert.match(text, /Conv window along spatial dim 0/, 'the requirement says what it is');
  const invalid = await page.$$eval('#symbols input[aria-invalid=true]', (els) => els.map((e) => e.dataset.sym).sort());
  assert.deepEqual(invalid, ['H', 'W'], 'the fields of H and W are marked');
  // c2 = (H+1)//4-2 would be -1: the table shows no number for it, in either display mode.
  const c2 = await row(page, 'c2');
  assert.deepEqual(c2.dims, ['N', '16', '(H+1)//4-2', '(W+1)//4-2']);
  assert.equal(c2.size, '—');
  assert.equal((await row(page, 'c1_w')).size, '864 B', 'a weight keeps its size (8*3*3*3 floats of 4 bytes)');
  await page.fill('#filter', '');
  for (const mode of ['concrete', 'symbolic']) {
    await page.click(`.segmented [data-view=${mode}]`);
    const s = await sizesOnPage(page);
    assert.deepEqual(s.dims.filter((d) => /^-\d+$/.test(d)), [], `no negative dim (${mode})`);
    assert.deepEqual(s.sizes.filter((d, i) => d !== '—' && !s.fixed[i]), [], `no size cell but the weights' (${mode})`);
  }
  assert.equal(await page.$('#mem-total'), null, 'no memory total');
  assert.match(await page.textContent('#memory'), /No memory figures: the model cannot run/);
  // The requirements are listed with the constraints, the broken ones crossed.
  assert.ok(await page.locator('#requirements .check.bad').count() >= 2);
  // The node link opens that node.
  await page.click('#bindings-issues [data-open-node="3"]');
  await page.waitForSelector('#detail:not([hidden])');
  assert.match(await page.textContent('#detail'), /conv2/);
  await page.keyboard.press('Escape');
  // Sizes the model accepts: the refusal goes, the sizes come back.
  await bind(page, 'N=1, H=224, W=224');
  assert.equal(await page.isVisible('#bindings-issues'), false);
  assert.deepEqual(await page.$$eval('#symbols input[aria-invalid]', (els) => els.length), 0);
  assert.deepEqual((await row(page, 'c2')).dims, ['1', '16', '54', '54']);
  assert.match(await page.textContent('#mem-total'), /KiB|MiB/);
  await page.fill('#filter', '');
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('bindings: total_seq against past_seq+seq is flagged at the total_seq field, and nothing is priced', async () => {
  const page = await openPage();
  await page.click('.example-card[data-example=tiny_decoder]');
  await waitReady(page, 'tiny_decoder.onnx');
  await bind(page, 'batch=1, seq=128, past_seq=4096, total_seq=9999');
  const text = await page.textContent('#bindings-issues');
  assert.match(text, /The model needs\s+past_seq\+seq\s*=\s*total_seq\s+at these sizes 4224 vs 9999/, text);
  const invalid = await page.$$eval('#symbols input[aria-invalid=true]', (els) => els.map((e) => e.dataset.sym));
  assert.ok(invalid.includes('total_seq'), `total_seq's field is marked: ${invalid}`);
  assert.equal(await page.getAttribute('#bindings-text', 'aria-invalid'), '');
  assert.equal(await page.$('#mem-total'), null, 'no activation total (was 3.07 GiB)');
  const pk = await row(page, 'present_key');
  assert.equal(pk.size, '—');
  assert.deepEqual(pk.dims, ['batch', '4', 'total_seq', '16']);
  // The same sizes with total_seq derived are fine.
  await bind(page, 'batch=1, seq=128, past_seq=4096');
  assert.equal(await page.isVisible('#bindings-issues'), false);
  assert.deepEqual((await row(page, 'present_key')).dims, ['1', '4', '4224', '16']);
  assert.match(await page.textContent('#mem-total'), /MiB/);
  // A field typed into breaks the relation too, and is flagged where it is typed.
  await page.fill('#filter', '');
  await page.fill('#symbols input[data-sym=total_seq]', '7');
  await sizesShown(page);
  assert.equal(await page.getAttribute('#symbols input[data-sym=total_seq]', 'aria-invalid'), 'true');
  assert.match(await page.textContent('#bindings-issues'), /4224 vs 7/);
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('a size broadcast against another reads as people write it (total_seq = past_seq+seq or total_seq = 1): Constraints card, node panel, refusal', async () => {
  const page = await openPage();
  await page.click('.example-card[data-example=tiny_decoder]');
  await waitReady(page, 'tiny_decoder.onnx');
  const text = (sel) => page.$eval(sel, (e) => e.textContent.replace(/\s+/g, ' ').trim());
  // The engine's requirement is past_seq+seq == Broadcast(total_seq,past_seq+seq) (MatMul's).
  assert.match(await text('#requirements li'), /^total_seq = past_seq\+seq or total_seq = 1 ?MatMul/);
  assert.doesNotMatch(await text('#constraints'), /Broadcast/);
  await page.click('#requirements [data-open-node]');
  await page.waitForSelector('#n-requirements li');
  assert.match(await text('#n-requirements li'), /^total_seq = past_seq\+seq or total_seq = 1/);
  assert.doesNotMatch(await text('#n-requirements'), /Broadcast/);
  // Checked at the sizes: total_seq is past_seq+seq (holds), then 7 against 5 (broken, and the
  // refusal by the inputs says the same relation).
  await bindSizes(page, 'batch=1, seq=1, past_seq=4, total_seq=5');
  assert.equal(await page.locator('#requirements li .check.ok').count(), 1);
  await bindSizes(page, 'batch=1, seq=1, past_seq=4, total_seq=7');
  assert.equal(await text('#requirements li .check.bad'), '✗ 7 vs 1 or 5');
  const refusal = await text('#bindings-issues');
  assert.match(refusal, /MatMul .* needs total_seq = past_seq\+seq or total_seq = 1/);
  assert.doesNotMatch(refusal, /Broadcast/);
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('the input domain (result.domain) at the symbols\' fields and in the Constraints card: the CNN runs for H ≥ 11, W ≥ 11; the decoder for any size', async () => {
  const page = await openPage();
  await page.click('.example-card[data-example=cnn_dynamic]');
  await waitReady(page, 'cnn_dynamic.onnx');
  const fields = await page.$$eval('#symbols .sym-row', (rows) => rows.map((r) => ({
    sym: r.querySelector('input[data-sym]')?.dataset.sym,
    range: r.querySelector('.sym-range')?.textContent ?? null,
    why: r.querySelector('.sym-range')?.title ?? null,
    min: r.querySelector('input[data-sym]')?.min,
  })));
  const by = Object.fromEntries(fields.map((f) => [f.sym, f]));
  assert.equal(by.N.range, null, 'N runs for any size');
  assert.equal(by.N.min, '0');
  for (const s of ['H', 'W']) {
    assert.equal(by[s].range, '≥ 11', s);
    assert.equal(by[s].min, '11', s);
    assert.match(by[s].why, new RegExp(`runs for ${s} ≥ 11 \\(at least 11: Conv conv2 needs 3 ≤ \\(${s}\\+1\\)//4\\)`));
  }
  assert.equal((await page.textContent('#domain')).replace(/\s+/g, ' ').trim(), 'Runs for H ≥ 11, W ≥ 11.');
  // What the page refuses and what the domain says agree: H = 11 runs, H = 10 does not.
  await bindSizes(page, 'N=1, H=11, W=11');
  assert.equal(await page.isHidden('#bindings-issues'), true, 'H=W=11 is in the domain');
  await bindSizes(page, 'N=1, H=10, W=11');
  assert.match(await page.textContent('#bindings-issues'), /conv2/);
  await page.click('header [data-example=tiny_decoder]');
  await waitReady(page, 'tiny_decoder.onnx');
  assert.equal(await page.$$eval('#symbols .sym-range', (x) => x.length), 0);
  assert.equal(await page.$('#domain'), null);
  assert.deepEqual(page.errors, []);
  await page.close();
});
