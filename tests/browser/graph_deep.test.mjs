// Hostile names in the graph view (issue 30, item 3): node names thousands of levels deep, which
// the old view turned into every prefix of every name (quadratic: a 120 KB model crashed the tab).
// The grouping keeps MAX_DEPTH levels and reads each name once (examples/web/graph_model.js): the
// page must survive each model and show its graph.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deepChain } from './graph_exports.mjs';
import { test, waitReady, openPage } from './harness.mjs';

const CASES = [
  { name: 'one node 60,000 levels deep', count: 1, levels: 60000 },
  { name: '2,000 nodes x 3,000 levels', count: 2000, levels: 3000 },
  { name: '2,000 nodes x 1,000 levels', count: 2000, levels: 1000 },
];

test('graph view: node names thousands of levels deep (one 60,000 deep; 2,000 x 3,000; 2,000 x 1,000) are grouped and shown', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'osi-deep-'));
  try {
    for (const c of CASES) await deepCase(c, dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

async function deepCase(c, dir) {
  const bytes = deepChain(c.count, c.levels);
  const file = `deep_${c.count}x${c.levels}.onnx`;
  writeFileSync(join(dir, file), bytes); // a path: handing 12 MB over the protocol is slower
  const page = await openPage();
  await page.setInputFiles('#file-input', join(dir, file));
  await waitReady(page, file, 180000);
  const t0 = Date.now();
  await page.click('#tab-graph');
  await page.waitForFunction(() => window.__onnxShapesDemo.graph && document.querySelector('#graph').dataset.busy === 'false', null, { timeout: 120000 });
  const wall = Date.now() - t0;
  const m = await page.evaluate(() => window.__onnxShapesDemo.graph);
  const boxes = await page.$$eval('#graph .gv-node', (els) => els.map((e) => e.querySelector('.gv-op').textContent));
  console.log(`      ${c.name} (${(bytes.length / 1024).toFixed(0)} KiB): graph painted ${wall} ms after the click (worker ${Math.round(m.workerMs)} ms), ${m.boxes} boxes`);
  assert.ok(boxes.length >= 1 && boxes.every((op) => op === 'Relu'), `${boxes.length} boxes`);
  assert.ok(m.boxes <= 120);
  // The first node is drawn with its own name (the part after the last '/').
  assert.ok(await page.$('#graph .gv-node[data-node="0"]'), 'node 0 is drawn');
  assert.equal(await page.$eval('#graph .gv-node[data-node="0"] .gv-name', (e) => e.textContent).catch(() => ''), 'n0');
  assert.deepEqual(page.errors, []);
  await page.close();
}
