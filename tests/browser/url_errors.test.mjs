// Opening a model from a URL when the server misbehaves, in headless Chromium: a server that
// sends a byte every 500 ms ends in an error card once the page's timeout passes (issue 30 item
// 13), the Cancel button stops an opening (the model on screen stays, its graph and node panel
// still work), a server on another origin without CORS headers gives a card that says why, and a
// missing file reads "not found" with the server's words.
import assert from 'node:assert/strict';
import http from 'node:http';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test, ctx, waitReady, openPage, REPO } from './harness.mjs';

/** A server that answers any GET with 200 and a body of `size` bytes sent one byte every `ms`. */
async function tricklingServer({ size = 100000, ms = 500 } = {}) {
  const sockets = new Set();
  const seen = { requests: 0, closed: 0 };
  const server = http.createServer((req, res) => {
    seen.requests++;
    const headers = { 'Content-Length': String(size), 'Content-Type': 'application/octet-stream', 'Access-Control-Allow-Origin': '*', 'Access-Control-Expose-Headers': '*' };
    if (req.method === 'HEAD') { res.writeHead(200, headers).end(); return; }
    res.writeHead(200, headers);
    let sent = 0;
    const timer = setInterval(() => {
      if (sent >= size) { clearInterval(timer); res.end(); return; }
      res.write(Buffer.from([sent === 0 ? 0x08 : 0x00]));
      sent++;
    }, ms);
    res.on('close', () => { clearInterval(timer); seen.closed++; });
  });
  server.on('connection', (s) => { sockets.add(s); s.on('close', () => sockets.delete(s)); });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const close = () => new Promise((r) => { for (const s of sockets) s.destroy(); server.close(r); });
  return { url: `http://127.0.0.1:${server.address().port}/slow.onnx`, seen, close };
}

test('URL: a server sending a byte every 500 ms ends in an error card when the page\'s timeout passes', async () => {
  const slow = await tricklingServer();
  const page = await ctx.env.newPage();
  ctx.page = page;
  await page.addInitScript(() => { globalThis.__ONNX_SHAPES_URL_TIMEOUT_MS__ = 3000; });
  await page.goto(`${ctx.env.base}/examples/web/`);
  await page.waitForFunction(() => document.body.dataset.engine, null, { timeout: 60000 });
  const t0 = Date.now();
  await page.fill('#url-input', slow.url);
  await page.click('#url-form button[type=submit]');
  await page.waitForSelector('#progress-cancel:not([hidden])');
  await page.waitForFunction(() => document.body.dataset.state === 'error', null, { timeout: 30000 });
  const waited = Date.now() - t0;
  assert.match(await page.textContent('#error-card h2'), /^slow\.onnx did not arrive in time$/);
  const card = await page.textContent('#error-card');
  assert.match(card, /not read within 3000 ms/, 'the library\'s words');
  assert.match(card, /What to do: The server is too slow or stalled/);
  assert.ok(waited < 20000, `the card within the timeout and some (${waited} ms)`);
  assert.equal(await page.isVisible('#progress'), false);
  // The page is usable after it.
  await page.click('.example-card[data-example=tiny_decoder]');
  await waitReady(page, 'tiny_decoder.onnx');
  assert.deepEqual(page.errors, []);
  await page.close();
  await slow.close();
});

test('URL: Cancel stops an opening; the model on screen stays, with its graph and node panel', async () => {
  const slow = await tricklingServer();
  const page = await openPage();
  await page.click('.example-card[data-example=cnn_dynamic]');
  await waitReady(page, 'cnn_dynamic.onnx');
  // (the URL field is on the welcome screen, hidden under a model: submitted as a ?url= link would be)
  await page.evaluate((u) => { document.querySelector('#url-input').value = u; document.querySelector('#url-form').requestSubmit(); }, slow.url);
  await page.waitForSelector('#progress-cancel:not([hidden])');
  await page.waitForFunction(() => document.body.dataset.state === 'loading');
  await page.click('#progress-cancel');
  await page.waitForFunction(() => document.body.dataset.state === 'ready');
  assert.equal(await page.isVisible('#progress'), false);
  assert.equal(await page.isVisible('#error-card'), false);
  assert.match(await page.textContent('#toast'), /Stopped opening slow\.onnx\. The model on screen is still cnn_dynamic\.onnx/);
  for (let i = 0; i < 40 && slow.seen.closed < slow.seen.requests; i++) await new Promise((r) => setTimeout(r, 100));
  assert.equal(slow.seen.closed, slow.seen.requests, 'the page dropped its connections to the server');
  // The model on screen still has its worker result: the node panel's attributes and the graph.
  await page.click('#grid-rows .row:has(.vname:text-is("c1")) .opname');
  await page.waitForSelector('#n-attrs table');
  assert.match(await page.textContent('#n-attrs'), /strides/);
  await page.click('#tab-graph');
  await page.waitForFunction(() => document.querySelector('#graph .graph-svg-host svg'), null, { timeout: 30000 });
  assert.match(await page.textContent('#graph'), /Conv/);
  assert.deepEqual(page.errors, []);
  await page.close();
  await slow.close();
});

test('URL: another origin without CORS headers gives a card that says why; a missing file is "not found"', async () => {
  const bytes = readFileSync(join(REPO, 'examples/models/cnn_dynamic.onnx'));
  const server = http.createServer((req, res) => { res.writeHead(200, { 'Content-Length': String(bytes.length) }).end(req.method === 'HEAD' ? undefined : bytes); });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const page = await openPage();
  // localhost and 127.0.0.1 are two origins.
  await page.fill('#url-input', `http://localhost:${server.address().port}/elsewhere.onnx`);
  await page.click('#url-form button[type=submit]');
  await page.waitForFunction(() => document.body.dataset.state === 'error', null, { timeout: 30000 });
  assert.match(await page.textContent('#error-card h2'), /^elsewhere\.onnx could not be fetched from this page$/);
  const card = await page.textContent('#error-card');
  assert.match(card, /Access-Control-Allow-Origin/);
  assert.match(card, /What to do: The server may be down, or not let pages of other sites read its files/);
  await page.fill('#url-input', `${ctx.env.base}/examples/models/no_such_model.onnx`);
  await page.click('#url-form button[type=submit]');
  await page.waitForFunction(() => /no_such_model/.test(document.querySelector('#error-card h2').textContent));
  assert.match(await page.textContent('#error-card h2'), /^no_such_model\.onnx was not found$/);
  const text = await page.textContent('#error-card .error-message');
  assert.match(text, /HTTP 404 Not Found/);
  assert.doesNotMatch(text, /said to have null/);
  // Page errors: the browser logs the refused request itself; nothing else.
  assert.deepEqual(page.errors.filter((e) => !/CORS|Access-Control|Failed to load resource|net::ERR_FAILED/.test(e)), []);
  await page.close();
  await new Promise((r) => server.close(r));
});
