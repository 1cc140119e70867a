// The package without a bundler, in headless Chromium: examples/worker/ (inferShapes inside a
// module Web Worker that imports ../../js/index.js; a picked file streamed there with
// inferShapesFromFile), and js/index.js imported by a plain module script on the main thread.
// The repository is served as `node examples/web/serve.mjs` serves it.
//
//   node tests/package/worker.test.mjs        (npm run test:package; needs dist/ built, chromium)
import { join } from 'node:path';
import { serve } from '../../examples/web/serve.mjs';
import { REPO, assert, assertEqual, browser, checks, pageResult } from './util.mjs';

const PRESENT_KEY = /^present_key\s+float \[batch, 4, total_seq, 16\]$/m;

const c = checks();
const server = await serve(REPO, 0);
const base = `http://127.0.0.1:${server.address().port}`;
let b = null;
let page = null;

c.add('examples/worker/: the worker infers the fetched example model and posts the shapes back', async () => {
  b = await browser();
  page = await b.open(`${base}/examples/worker/`);
  const r = await pageResult(page);
  assertEqual(r.state, 'ready', `state (text: ${r.text})`);
  assert(PRESENT_KEY.test(r.text), `no present_key row in:\n${r.text}`);
  assert(page.errors.length === 0, `errors in the page:\n${page.errors.join('\n')}`);
  return (await page.textContent('#status')).trim();
});

c.add('examples/worker/: a picked file is streamed in the worker (inferShapesFromFile)', async () => {
  assert(page, 'needs the page');
  await page.setInputFiles('#file', join(REPO, 'examples/models/cnn_dynamic.onnx'));
  await page.waitForFunction(() => document.body.dataset.model === 'cnn_dynamic.onnx'
    && ['ready', 'error'].includes(document.body.dataset.state), null, { timeout: 30000 });
  const r = await pageResult(page);
  assertEqual(r.state, 'ready', `state (text: ${r.text})`);
  assert(/^value\s+type and shape$/m.test(r.text) && r.text.split('\n').length > 3, `table:\n${r.text}`);
  await page.setInputFiles('#file', { name: 'bad.onnx', mimeType: 'application/octet-stream', buffer: Buffer.from([0xff, 0xff, 0xff]) });
  await page.waitForFunction(() => document.body.dataset.state === 'error', null, { timeout: 30000 });
  const bad = await page.textContent('#out');
  assert(/^bad\.onnx: PARSE_ERROR/.test(bad), `bad model shows: ${bad}`);
  assert(page.errors.length === 0, `errors in the page:\n${page.errors.join('\n')}`);
});

c.add('a plain module script imports js/index.js on the main thread (no bundler)', async () => {
  assert(page, 'needs the page');
  const out = await page.evaluate(async () => {
    const { init, inferShapes, getShape, ShapeInferenceError } = await import('/js/index.js');
    const bytes = await (await fetch('/examples/models/tiny_decoder.onnx')).arrayBuffer();
    const result = await inferShapes(bytes);
    let code = null;
    try { (await init()).inferShapes(new Uint8Array([0xff])); } catch (e) { code = e instanceof ShapeInferenceError && e.code; }
    return { dims: result.getShape('present_key').dims, same: getShape('present_key') === result.getShape('present_key'), code };
  });
  assertEqual(out, { dims: ['batch', 4, 'total_seq', 16], same: true, code: 'PARSE_ERROR' }, 'main-thread result');
  assert(page.errors.length === 0, `errors in the page:\n${page.errors.join('\n')}`);
});

c.add('the minified build (dist/js/index.js, onnx-shapes/min) in a plain page: same results as js/index.js, the stream worker included', async () => {
  assert(page, 'needs the page');
  const out = await page.evaluate(async () => {
    const min = await import('/dist/js/index.js');
    const full = await import('/js/index.js');
    const bytes = await (await fetch('/examples/models/cnn_dynamic.onnx')).arrayBuffer();
    const same = JSON.stringify(await min.inferShapes(bytes, { cost: true })) === JSON.stringify(await full.inferShapes(bytes, { cost: true }));
    // inferShapesFromFile on the main thread streams in dist/js/stream_worker.js.
    const engine = await min.init();
    const streamed = await engine.inferShapesFromFile(new Blob([bytes]));
    let code = null;
    try { engine.inferShapes(new Uint8Array([0xff])); } catch (e) { code = e instanceof min.ShapeInferenceError && e.code; }
    return { same, streamed: streamed.getShape('c2').dims, code };
  });
  assertEqual(out, { same: true, streamed: ['N', 16, '(H+1)//4-2', '(W+1)//4-2'], code: 'PARSE_ERROR' }, 'minified build');
  assert(page.errors.length === 0, `errors in the page:\n${page.errors.join('\n')}`);
});

let code;
try {
  code = await c.run();
} finally {
  await b?.close();
  await new Promise((r) => server.close(r));
}
process.exit(code);
