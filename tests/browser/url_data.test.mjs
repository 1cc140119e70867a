// Opening models without their weights, in headless Chromium: from a URL (the URL field and the
// ?url= parameter; the page's worker fetches the graph with HTTP Range requests, and the server
// counts the bytes it serves), from a server that ignores Range (the whole file, and the page says
// so), and a model saved with external data dropped as a set (only the .onnx is read).
import assert from 'node:assert/strict';
import http from 'node:http';
import { execFileSync } from 'node:child_process';
import { closeSync, ftruncateSync, mkdirSync, openSync, readFileSync, readdirSync, rmSync, writeSync, existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { node, valueInfo, tensor } from '../js/onnx_builder.js';
import { test, ctx, waitReady, row, openPage, REPO } from './harness.mjs';

const DIR = join(REPO, 'build/url_data');

function varint(n) {
  const out = [];
  let v = BigInt(n);
  while (v >= 0x80n) { out.push(Number(v & 0x7fn) | 0x80); v >>= 7n; }
  out.push(Number(v));
  return Uint8Array.from(out);
}
const cat = (...parts) => Uint8Array.from(parts.flatMap((p) => [...p]));
const field = (key, payload) => cat([key], varint(payload.length), payload);

/**
 * A 1 GiB model written as a sparse file: X [batch, 1024] times four float initializers
 * W0..W3 [1024, 65536] (256 MiB of zeros each, the holes of the file), Y_i = MatMul(X, W_i).
 * The initializers come last in the graph, the graph last in the model, so the file is the
 * graph's few hundred bytes, then headers between holes.
 */
function sparseModel(file) {
  const K = 1024, N = 65536, COUNT = 4, PAYLOAD = K * N * 4;
  const nodes = [];
  const outputs = [];
  for (let i = 0; i < COUNT; i++) {
    nodes.push(field(0x0a, node({ op: 'MatMul', name: `mm${i}`, inputs: ['X', `W${i}`], outputs: [`Y${i}`] })));
    outputs.push(field(0x62, valueInfo(`Y${i}`)));
  }
  const graphPrefix = cat(...nodes, field(0x12, new TextEncoder().encode('big')), field(0x5a, valueInfo({ name: 'X', elemType: 'float', dims: ['batch', K] })), ...outputs);
  const headers = [];
  let graphLen = graphPrefix.length;
  for (let i = 0; i < COUNT; i++) {
    const h = cat(tensor({ name: `W${i}`, elemType: 'float', dims: [K, N] }), [0x4a], varint(PAYLOAD));
    const msgLen = h.length + PAYLOAD;
    const lead = cat([0x2a], varint(msgLen), h); // GraphProto.initializer = 5, then the tensor up to its payload
    headers.push(lead);
    graphLen += lead.length + PAYLOAD;
  }
  const opset = field(0x42, cat([0x0a, 0x00], [0x10], varint(17))); // opset_import { domain "", version 17 }
  const prefix = cat([0x08], varint(8), opset, [0x3a], varint(graphLen), graphPrefix);
  const fd = openSync(file, 'w');
  try {
    let pos = 0;
    writeSync(fd, prefix, 0, prefix.length, pos);
    pos += prefix.length;
    for (const h of headers) {
      writeSync(fd, h, 0, h.length, pos);
      pos += h.length + PAYLOAD; // the payload stays a hole
    }
    ftruncateSync(fd, pos);
    return pos;
  } finally {
    closeSync(fd);
  }
}

/** Bytes and requests the server answered for `path` since `from` (an index into env.served). */
function servedFor(path, from) {
  const list = ctx.env.served.slice(from).filter((r) => r.path === path);
  return { requests: list.length, bytes: list.reduce((n, r) => n + r.bytes, 0), statuses: [...new Set(list.map((r) => r.status))] };
}

test('?url= opens a 1 GiB model by fetching less than 1% of it with Range requests', async () => {
  mkdirSync(DIR, { recursive: true });
  const file = join(DIR, 'big_1gib.onnx');
  const size = sparseModel(file);
  assert.ok(size > 2 ** 30, `${size} bytes`);
  const from = ctx.env.served.length;
  const page = await ctx.env.newPage();
  ctx.page = page;
  await page.goto(`${ctx.env.base}/examples/web/?url=${encodeURIComponent('/build/url_data/big_1gib.onnx')}`);
  await waitReady(page, 'big_1gib.onnx', 120000);
  // MatMul of [batch, 1024] and [1024, 65536].
  for (let i = 0; i < 4; i++) assert.deepEqual((await row(page, `Y${i}`)).dims, ['batch', '65536']);
  assert.deepEqual((await row(page, 'W2')).dims, ['1024', '65536']);
  const served = servedFor('/build/url_data/big_1gib.onnx', from);
  const shown = await page.$eval('#url-fetched', (el) => ({ ...el.dataset, text: el.textContent }));
  console.log(`      1 GiB over HTTP: the server sent ${served.bytes.toLocaleString('en-US')} bytes (${(100 * served.bytes / size).toFixed(3)}%) in ${served.requests} requests (${served.statuses.join(', ')}); the page says "${shown.text}"`);
  assert.ok(served.bytes < size / 100, `less than 1% fetched (${served.bytes} of ${size})`);
  assert.ok(served.requests <= 16, `a bounded number of requests (${served.requests})`);
  assert.deepEqual(served.statuses, [206]);
  assert.equal(Number(shown.bytes), served.bytes, 'the page counts what the server sent');
  assert.equal(Number(shown.requests), served.requests);
  assert.match(shown.text, /^fetched .* of 1 GiB \(0\.\d+%\) in \d+ Range requests$/);
  assert.equal(await page.isHidden('#download'), true, 'no write-back without the bytes');
  assert.deepEqual(page.errors, []);
  await page.close();
  rmSync(file, { force: true });
});

test('the URL field opens a model; a server that ignores Range gives the whole file, and the page says so', async () => {
  // A server without Range support, on another port (so with CORS, as a model hub would be).
  const bytes = readFileSync(join(REPO, 'examples/models/tiny_decoder.onnx'));
  const server = http.createServer((req, res) => {
    const headers = { 'Access-Control-Allow-Origin': '*', 'Access-Control-Allow-Headers': 'Range' };
    if (req.method === 'OPTIONS') { res.writeHead(204, headers).end(); return; }
    res.writeHead(200, { ...headers, 'Content-Type': 'application/octet-stream', 'Content-Length': bytes.length }).end(bytes);
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  try {
    const page = await openPage();
    await page.fill('#url-input', `http://127.0.0.1:${server.address().port}/models/tiny_decoder.onnx`);
    await page.click('#url-form [type=submit]');
    await waitReady(page, 'tiny_decoder.onnx');
    assert.deepEqual((await row(page, 'present_key')).dims, ['batch', '4', 'total_seq', '16']);
    const shown = await page.$eval('#url-fetched', (el) => ({ ...el.dataset, text: el.textContent }));
    assert.equal(shown.ranged, 'false');
    assert.equal(Number(shown.bytes), bytes.length);
    assert.match(shown.text, /ignored Range requests: the whole file \(117 KiB\) was read/);
    assert.deepEqual(page.errors, []);
    await page.close();
  } finally {
    server.close();
  }
});

/** A model saved by onnx.save_model(..., save_as_external_data=True): [files] in `dir`. */
function externalDataSet(dir, oneFile) {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  execFileSync('/usr/bin/python3', ['-c', `
import numpy as np, onnx
from onnx import helper, numpy_helper, TensorProto
ws = [numpy_helper.from_array(np.full((64, 64), i, np.float32), f"w{i}") for i in range(3)]
nodes = [helper.make_node("MatMul", ["x" if i == 0 else f"h{i-1}", f"w{i}"], [f"h{i}"], name=f"mm{i}") for i in range(3)]
g = helper.make_graph(nodes, "ext", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 64])],
                      [helper.make_tensor_value_info("h2", TensorProto.FLOAT, None)], ws)
m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
onnx.save_model(m, ${JSON.stringify(join(dir, 'model.onnx'))}, save_as_external_data=True,
                all_tensors_to_one_file=${oneFile ? 'True' : 'False'}, size_threshold=0,
                ${oneFile ? "location='model.onnx.data'" : 'location=None'})
`], { stdio: 'pipe', timeout: 120_000 });
  return readdirSync(dir).sort().map((f) => join(dir, f));
}

test('a model saved with external data, dropped as a set: only the .onnx is read', async () => {
  const files = externalDataSet(join(DIR, 'ext_one'), true);
  assert.deepEqual(files.map((f) => f.split('/').pop()), ['model.onnx', 'model.onnx.data']);
  const page = await openPage();
  // The data file first, as a file manager may list it.
  await page.setInputFiles('#file-input', [files[1], files[0]]);
  await waitReady(page, 'model.onnx');
  assert.deepEqual((await row(page, 'h2')).dims, ['batch', '64']);
  assert.deepEqual((await row(page, 'w1')).dims, ['64', '64']); // shapes of external tensors come from the .onnx
  assert.deepEqual(await page.evaluate(() => window.__onnxShapesDemo.state.loaded), { read: 'model.onnx', ignored: ['model.onnx.data'] });
  assert.match(await page.textContent('#toast'), /Read model\.onnx only\. model\.onnx\.data \(48 KiB\) was not read/);
  assert.deepEqual(page.errors, []);

  // One file per tensor, dropped on the page.
  const many = externalDataSet(join(DIR, 'ext_many'), false);
  assert.equal(many.length, 4);
  const payload = many.map((f) => ({ name: f.split('/').pop(), b64: readFileSync(f).toString('base64') }));
  await page.evaluate((list) => {
    const dt = new DataTransfer();
    for (const { name, b64 } of list) dt.items.add(new File([Uint8Array.from(atob(b64), (c) => c.charCodeAt(0))], name));
    window.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
  }, payload);
  await page.waitForFunction(() => document.body.dataset.state === 'ready' && window.__onnxShapesDemo.state.loaded?.ignored?.length === 3);
  assert.deepEqual((await row(page, 'h2')).dims, ['batch', '64']);
  assert.equal(await page.evaluate(() => window.__onnxShapesDemo.state.loaded.read), 'model.onnx');
  assert.match(await page.textContent('#toast'), /Read model\.onnx only\. 3 other files/);
  assert.deepEqual(page.errors, []);
  await page.close();
});
