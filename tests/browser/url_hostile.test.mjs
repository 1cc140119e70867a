// The demo page opening models from servers that do not deserve trust (issue 30, items 2, 4, 5, 6),
// in headless Chromium: each file is generated and served from memory by tests/js/model_server.js
// on another origin (with CORS), through the page's URL field, as someone would paste a link. A
// server that ignores Range and sends 18.7 MiB of zeros made the tab grow to 4.6 GB and crash; a
// 1 GiB file of zeros was fetched on and on; a file replaced mid-download gave shapes of two files;
// a nanosecond model_version stopped the walk. Each now ends with a card or the model's shapes.
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { twoRequestModel, withModelVersion } from '../js/big_model.js';
import { honest, plain, server, virtualFile, zeros } from '../js/model_server.js';
import { test, ctx, row, openPage } from './harness.mjs';

const MiB = 2 ** 20;

// Section - Memory of the page's renderer

/** Parent pid and memory (MiB) of a process, or null once it is gone. */
function proc(pid) {
  try {
    const st = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (k) => Number(new RegExp(`${k}:\\s+(\\d+)`).exec(st)?.[1] ?? 0) / 1024;
    return { ppid: Number(/PPid:\s+(\d+)/.exec(st)[1]), rss: kb('VmRSS'), peak: kb('VmHWM') };
  } catch {
    return null;
  }
}

/**
 * Chromium's renderer processes started by this test run (descendants of this process, never
 * another run's on the machine): pid -> { rss, peak } (VmHWM, the most it ever held).
 */
function renderers() {
  const out = new Map();
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    let cmd;
    try { cmd = readFileSync(`/proc/${d}/cmdline`, 'utf8'); } catch { continue; }
    if (!cmd.includes('--type=renderer')) continue;
    const info = proc(d);
    let p = info?.ppid;
    for (let hops = 0; p > 1 && p !== process.pid && hops < 16; hops++) p = proc(p)?.ppid;
    if (info && p === process.pid) out.set(Number(d), info);
  }
  return out;
}

/**
 * Runs `open()` and returns the most any renderer grew meanwhile (MiB): its peak after, less what
 * it held before (the page's worker, its fetches and the engine live in the page's renderer; the
 * others are idle). An upper bound: a peak reached before `open()` counts as growth too.
 */
async function rendererGrowth(open) {
  const before = renderers();
  await open();
  let most = 0;
  for (const [pid, { peak }] of renderers()) most = Math.max(most, peak - (before.get(pid)?.rss ?? 0));
  return most;
}

// Section - Opening a URL

/** Opens `url` with the page's URL field; waits for the model or an error card: 'ready' | 'error'. */
async function openUrl(page, url) {
  await page.fill('#url-input', url);
  await page.click('#url-form [type=submit]');
  await page.waitForFunction(() => ['ready', 'error'].includes(document.body.dataset.state), null, { timeout: 60000 });
  return page.evaluate(() => document.body.dataset.state);
}

const card = (page) => page.evaluate(() => ({
  code: document.querySelector('#error-card .error-meta .badge')?.textContent,
  message: document.querySelector('#error-card .error-message')?.textContent,
}));

/** The page's console errors, less the browser's own line for a failed fetch. */
const pageErrors = (page) => page.errors.filter((e) => !/Failed to load resource/.test(e));

// Section - Tests

test('URL: a server that ignores Range sending 18.7 MiB of zeros: a PARSE_ERROR card, the renderer grown < 256 MB', async () => {
  const s = await server(new Map([['zeros.onnx', { ...zeros(Math.round(18.7 * MiB)), serve: plain }]]), { cors: true });
  try {
    const page = await openPage();
    let state;
    const grown = await rendererGrowth(async () => { state = await openUrl(page, s.url('zeros.onnx')); });
    assert.equal(state, 'error');
    assert.equal((await card(page)).code, 'PARSE_ERROR');
    assert.ok(!page.isClosed() && !page.errors.includes('crash'), 'the tab is alive');
    console.log(`      18.7 MiB of zeros without Range: PARSE_ERROR card; the renderer grew at most ${grown.toFixed(0)} MiB; the server sent ${(s.stats.bytes / MiB).toFixed(1)} MiB`);
    assert.ok(grown < 256, `the renderer grew ${grown.toFixed(0)} MiB`);
    assert.deepEqual(pageErrors(page), []);
    await page.close();
  } finally {
    await s.close();
  }
});

test('URL: 1 GiB of zeros served honestly: a PARSE_ERROR card after less than 1 MiB fetched', async () => {
  const s = await server(new Map([['zeros.onnx', zeros(2 ** 30)]]), { cors: true });
  try {
    const page = await openPage();
    assert.equal(await openUrl(page, s.url('zeros.onnx')), 'error');
    assert.equal((await card(page)).code, 'PARSE_ERROR');
    await page.waitForTimeout(500); // nothing more is fetched once the card is up
    console.log(`      1 GiB of zeros with Range: ${s.stats.bytes.toLocaleString('en-US')} bytes in ${s.stats.requests} requests`);
    assert.ok(s.stats.bytes < MiB, `${s.stats.bytes} bytes fetched`);
    assert.deepEqual(pageErrors(page), []);
    await page.close();
  } finally {
    await s.close();
  }
});

test('URL: a file replaced between two requests (new ETag) is a FETCH_ERROR card, never shapes of two files', async () => {
  // X [5, 8] in the first file, X [5, 16] in the second, the same size: read across the swap, Y
  // would be [5, 65536] from a graph input of one file and a weight of the other.
  const a = twoRequestModel(8);
  const b = twoRequestModel(16);
  assert.equal(a.size, b.size);
  const files = new Map();
  const second = virtualFile(b, { etag: '"b2"' });
  files.set('m.onnx', virtualFile(a, {
    etag: '"a1"',
    serve: (req, res, f, stats) => {
      files.set('m.onnx', second); // replaced as soon as the first request is in
      honest(req, res, f, stats);
    },
  }));
  const s = await server(files, { cors: true });
  try {
    const page = await openPage();
    assert.equal(await openUrl(page, s.url('m.onnx')), 'error');
    const shown = await card(page);
    assert.equal(shown.code, 'FETCH_ERROR');
    assert.match(shown.message, /changed while it was being read/);
    assert.ok(s.stats.requests >= 2, `${s.stats.requests} requests`);
    assert.deepEqual(pageErrors(page), []);
    await page.close();
  } finally {
    await s.close();
  }
});

test('URL: a model whose model_version is a 10-byte varint (-1): its shapes, as from its bytes', async () => {
  const body = withModelVersion(-1n, twoRequestModel(8));
  const s = await server(new Map([['versioned.onnx', virtualFile(body)]]), { cors: true });
  try {
    const page = await openPage();
    assert.equal(await openUrl(page, s.url('versioned.onnx')), 'ready');
    assert.deepEqual((await row(page, 'Y')).dims, ['5', '65536']);
    assert.deepEqual((await row(page, 'X')).dims, ['5', '8']);
    assert.ok(s.stats.requests >= 2, 'the graph\'s inputs come after the weight, in a later request');
    assert.ok(s.stats.bytes < body.size / 4, `${s.stats.bytes} bytes fetched: not the weight`);
    assert.deepEqual(pageErrors(page), []);
    await page.close();
  } finally {
    await s.close();
  }
});
