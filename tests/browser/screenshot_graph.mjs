#!/usr/bin/env node
// Takes the README's screenshots of the graph view (not a test):
//   examples/web/screenshot-graph.png  the whole page: a 10k-node exporter-style transformer
//                                      (tests/bench/make_models.py, 111 layers), one attention
//                                      score shown in the graph, its "why this shape" panel open
//   examples/web/graph-llama.png       the Graph panel's first view of a 32-layer Llama export
//   examples/web/graph-llama-layer.png the same with layer 7 open
//   examples/web/graph-detection.png   Faster R-CNN (torchvision) at first sight
//   examples/web/graph-swin.png        Swin (torchvision) at first sight
// The exports come from graph_exports.mjs (made once, cached).
//   node tests/browser/screenshot_graph.mjs [outdir]
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { llamaExport, torchvisionExport } from './graph_exports.mjs';
import { start, waitReady, row, REPO } from './harness.mjs';

const outDir = process.argv[2] || join(REPO, 'examples/web');
const dir = mkdtempSync(join(tmpdir(), 'osi-shot-'));

const painted = async (page, action) => {
  const before = await page.evaluate(() => window.__onnxShapesDemo.graph);
  await action();
  await page.waitForFunction((b) => {
    const m = window.__onnxShapesDemo.graph;
    return m && (!b || m.totalMs !== b.totalMs || m.boxes !== b.boxes) && document.querySelector('#graph').dataset.busy === 'false';
  }, before, { timeout: 120000 });
  await page.waitForTimeout(300);
};

async function openModel(env, file) {
  const page = await env.newPage();
  await page.goto(`${env.base}/examples/web/`);
  await page.waitForFunction(() => document.body.dataset.engine, null, { timeout: 60000 });
  await page.setInputFiles('#file-input', file);
  await waitReady(page, file.split('/').pop(), 180000);
  return page;
}

/** The Graph panel alone, as a small PNG. */
const panelShot = (page, name) => page.locator('#graph').screenshot({ path: join(outDir, name) }).then(() => console.log(`wrote ${join(outDir, name)}`));

const env = await start({ viewport: { width: 1440, height: 860 } });
try {
  // The whole page on the 10k-node transformer.
  const file = join(dir, 'llm_111_layers.onnx');
  execFileSync('/usr/bin/python3', ['-c', `import sys, onnx; sys.path.insert(0, ${JSON.stringify(join(REPO, 'tests/bench'))}); import make_models; onnx.save(make_models.transformer(111), ${JSON.stringify(file)})`], { timeout: 300_000 });
  let page = await openModel(env, file);
  const key = '/model/layers.7/self_attn/scores';
  await row(page, key);
  await page.click(`#grid-rows .row:has(.vname:text-is("${key}"))`);
  await painted(page, () => page.click(`#detail [data-show-graph="${key}"]`));
  await page.screenshot({ path: join(outDir, 'screenshot-graph.png') });
  console.log(`wrote ${join(outDir, 'screenshot-graph.png')}`);
  await page.close();

  // The exports' first views (and one layer open).
  page = await openModel(env, llamaExport(32));
  await page.setViewportSize({ width: 1280, height: 820 });
  await painted(page, () => page.click('#tab-graph'));
  await panelShot(page, 'graph-llama.png');
  await painted(page, () => page.click('#graph .gv-group[data-expand="layers.7"]'));
  await panelShot(page, 'graph-llama-layer.png');
  await page.close();
  for (const [name, out] of [['detection_faster_rcnn_op13_dict', 'graph-detection.png'], ['classification_swin_op17_dict', 'graph-swin.png']]) {
    page = await openModel(env, torchvisionExport(name));
    await page.setViewportSize({ width: 1280, height: 820 });
    await painted(page, () => page.click('#tab-graph'));
    await panelShot(page, out);
    await page.close();
  }
} finally {
  await env.close();
  rmSync(dir, { recursive: true, force: true });
}
