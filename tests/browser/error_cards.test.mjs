// Error cards and files given at once, in headless Chromium: each card says what happened and
// what to do (a truncated file is called truncated; a missing URL "not found"), points to the
// examples where they are (below), a URL with malformed percent-encoding (typed, or in ?url=)
// gives a card and no uncaught URIError, and two models chosen at once make the page ask which.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test, ctx, waitReady, openPage, REPO } from './harness.mjs';

const upload = (page, files) => page.setInputFiles('#file-input', files.map(([name, bytes]) => ({ name, mimeType: 'application/octet-stream', buffer: Buffer.from(bytes) })));
const cardText = (page) => page.textContent('#error-card');
const errorShown = (page) => page.waitForFunction(() => document.body.dataset.state === 'error' && !document.querySelector('#error-card').hidden);

test('error card: a truncated .onnx is called truncated, an empty one empty, with what to do; the examples are below it', async () => {
  const page = await openPage();
  const whole = readFileSync(join(REPO, 'examples/models/cnn_dynamic.onnx'));
  await upload(page, [['cut.onnx', whole.subarray(0, 3000)]]);
  await errorShown(page);
  const text = await cardText(page);
  assert.match(await page.textContent('#error-card h2'), /^cut\.onnx is truncated$/);
  assert.match(text, /the file ends early/, 'the engine\'s own words');
  assert.match(text, /What to do:.*Get the whole file again/);
  assert.doesNotMatch(text, /Is it really an \.onnx/);
  assert.match(text, /bundled examples below/);
  const [card, examples] = await page.evaluate(() => [document.querySelector('#error-card').getBoundingClientRect().bottom, document.querySelector('.example-cards').getBoundingClientRect().top]);
  assert.ok(examples > card, `the examples (${examples}) are below the card (${card})`);
  // Not a model at all: said so, with what an .onnx file is.
  await upload(page, [['notes.onnx', Buffer.from('just some text\n')]]);
  await page.waitForFunction(() => /notes\.onnx/.test(document.querySelector('#error-card h2').textContent));
  assert.match(await page.textContent('#error-card h2'), /^notes\.onnx is not an ONNX model$/);
  assert.match(await cardText(page), /What to do: Open an \.onnx file/);
  // An empty file (a failed download) is called empty, not a model without a graph.
  await upload(page, [['empty.onnx', Buffer.alloc(0)]]);
  await page.waitForFunction(() => /empty\.onnx/.test(document.querySelector('#error-card h2').textContent));
  assert.match(await page.textContent('#error-card h2'), /^empty\.onnx is empty$/);
  assert.match(await cardText(page), /What to do: The file has no bytes/);
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('two models chosen at once: the page asks which to open; the other files are named as data, not the other model', async () => {
  const page = await openPage();
  const a = readFileSync(join(REPO, 'examples/models/tiny_decoder.onnx'));
  const b = readFileSync(join(REPO, 'examples/models/cnn_dynamic.onnx'));
  await upload(page, [['decoder_with_a_long_name.onnx', a], ['cnn.onnx', b], ['cnn.onnx.data', Buffer.alloc(1000)]]);
  await page.waitForSelector('#error-card.choice:not([hidden])');
  const choices = await page.$$eval('#error-card [data-choose-model]', (els) => els.map((e) => e.textContent));
  assert.deepEqual(choices.sort(), ['cnn.onnx', 'decoder_with_a_long_name.onnx']);
  assert.match(await cardText(page), /2 models were given at once/);
  await page.click('#error-card [data-choose-model]:text-is("decoder_with_a_long_name.onnx")');
  await waitReady(page, 'decoder_with_a_long_name.onnx');
  assert.equal(await page.isVisible('#error-card'), false);
  const note = await page.textContent('#toast');
  assert.match(note, /cnn\.onnx\.data/);
  assert.doesNotMatch(note, /cnn\.onnx[^.]/, 'the other model is not called a data file');
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('a URL with malformed percent-encoding (typed, or in ?url=) gives an error card, not an uncaught URIError', async () => {
  const page = await openPage();
  await page.fill('#url-input', `${ctx.env.base}/examples/models/caf%E9.onnx`);
  await page.click('#url-form button[type=submit]');
  await errorShown(page);
  // (serve.mjs answers 400 to a path that is not UTF-8 percent-encoding)
  assert.match(await page.textContent('#error-card h2'), /^caf%E9\.onnx was refused by the server$/);
  assert.match(await cardText(page), /HTTP 400/);
  assert.match(await cardText(page), /What to do: It answered 400: check the address/);
  // A missing file: not found.
  await page.fill('#url-input', `${ctx.env.base}/examples/models/missing.onnx`);
  await page.click('#url-form button[type=submit]');
  await page.waitForFunction(() => /missing\.onnx/.test(document.querySelector('#error-card h2').textContent));
  assert.match(await page.textContent('#error-card h2'), /^missing\.onnx was not found$/);
  assert.match(await cardText(page), /What to do: The server answered 404 Not Found: check the address/);
  assert.deepEqual(page.errors, []);
  await page.close();

  const p2 = await ctx.env.newPage();
  ctx.page = p2;
  await p2.goto(`${ctx.env.base}/examples/web/?url=${encodeURIComponent(`${ctx.env.base}/examples/models/caf%E9.onnx`)}`);
  await p2.waitForFunction(() => document.body.dataset.state === 'error', null, { timeout: 60000 });
  assert.match(await p2.textContent('#error-card h2'), /^caf%E9\.onnx was refused by the server$/);
  assert.deepEqual(p2.errors, []);
  await p2.close();
});
