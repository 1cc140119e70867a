// Dims whose simplification took minutes (issue 30 item 1) in the page's worker: a 1.8 KB model
// with N//2//3//...//370 kept the worker busy, and a model dropped afterwards was never shown. Now
// the dim ends as a plain symbol (the expression work budget), the page shows the model, and a
// model dropped right after it is shown too. The models are generated here.
import assert from 'node:assert/strict';
import { model } from '../js/onnx_builder.js';
import { test, waitReady, row, openPage } from './harness.mjs';

const upload = (page, name, bytes) => page.setInputFiles('#file-input', { name, mimeType: 'application/octet-stream', buffer: Buffer.from(bytes) });
const range = (from, to) => Array.from({ length: to - from + 1 }, (_, i) => from + i);
const oneDim = (dim) => model({
  inputs: [{ name: 'X', elemType: 'float', dims: [dim, 4] }],
  outputs: ['Y'],
  nodes: [{ op: 'Relu', inputs: ['X'], outputs: ['Y'] }],
});

const HOSTILE = {
  'floordivs.onnx': `N${range(2, 370).map((d) => `//${d}`).join('')}`,
  'ceildivs.onnx': range(1, 400).reduce((s) => `CeilDiv(${s},2)`, 'N'),
  'mods.onnx': range(2, 1001).map((d) => `(N%${d})`).join('+'),
};

test('hostile dims in the worker: each model is shown, and so is the one dropped right after it', async () => {
  const page = await openPage();
  for (const [name, dim] of Object.entries(HOSTILE)) {
    await upload(page, name, oneDim(dim));
    await waitReady(page, name, 10000);
    const y = await row(page, 'Y');
    assert.ok(y && y.dims[0] === `'${dim}'`, `Y's dim is the text as a name: ${y?.shapeText.slice(0, 80)}`);
    // A model dropped while (or right after) the hostile one is read is shown.
    await upload(page, name, oneDim(dim));
    await upload(page, `after-${name}`, oneDim('(H+1)//2'));
    await waitReady(page, `after-${name}`, 10000);
    const after = await row(page, 'Y');
    assert.deepEqual(after.dims, ['(H+1)//2', '4']);
  }
  assert.deepEqual(page.errors, []);
  await page.close();
});
