#!/usr/bin/env node
// Takes the README's screenshot of the graph view (examples/web/screenshot-graph.png): a 10k-node
// exporter-style transformer (tests/bench/make_models.py, 111 layers) with one attention score
// shown in the graph and its "why this shape" panel open. Not a test.
//   node tests/browser/screenshot_graph.mjs [out.png]
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { start, waitReady, row, REPO } from './harness.mjs';

const out = process.argv[2] || join(REPO, 'examples/web/screenshot-graph.png');
const dir = mkdtempSync(join(tmpdir(), 'osi-shot-'));
const file = join(dir, 'llm_111_layers.onnx');
execFileSync('/usr/bin/python3', ['-c', `import sys, onnx; sys.path.insert(0, ${JSON.stringify(join(REPO, 'tests/bench'))}); import make_models; onnx.save(make_models.transformer(111), ${JSON.stringify(file)})`]);
const env = await start({ viewport: { width: 1440, height: 860 } });
try {
  const page = await env.newPage();
  await page.goto(`${env.base}/examples/web/`);
  await page.waitForFunction(() => document.body.dataset.engine, null, { timeout: 60000 });
  await page.setInputFiles('#file-input', file);
  await waitReady(page, 'llm_111_layers.onnx', 120000);
  const key = '/model/layers.7/self_attn/scores';
  await row(page, key);
  await page.click(`#grid-rows .row:has(.vname:text-is("${key}"))`);
  await page.click(`#detail [data-show-graph="${key}"]`);
  await page.waitForFunction(() => window.__onnxShapesDemo.graph && document.querySelector('#graph').dataset.busy === 'false', null, { timeout: 60000 });
  await page.waitForTimeout(300);
  await page.screenshot({ path: out });
  console.log(`wrote ${out}`);
} finally {
  await env.close();
  rmSync(dir, { recursive: true, force: true });
}
