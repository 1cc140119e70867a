#!/usr/bin/env node
// Benchmark (not a test): what the cost model costs the demo page on a real export (issue 27: a
// 6k-node model's cost may cost the page < 50 ms more). The 32-layer Llama export (5.9k nodes,
// tests/browser/graph_exports.mjs) is opened with the page as it is (cost counted) and with
// ?cost=0 (no cost model), interleaved (either first in turn), on fresh pages; medians of the
// runs (and each run's figure):
//   inference   the worker's inference (with the cost model: the engine's cost JSON, parsed)
//   table       inference done -> table painted (the result's transfer, rows, first render)
//   cost        the main thread drawing the cost the worker counted (card,
//               MACs column, graph notes): window.__onnxShapesDemo.costMs; shown: from the
//               model on screen to its cost drawn (costShownMs)
//   bind        a binding submitted -> two frames later (sizes, cost, panels, table redrawn)
//   node [runs]
import { readFileSync } from 'node:fs';
import { llamaExport } from './graph_exports.mjs';
import { start, waitReady } from './harness.mjs';

const RUNS = Number(process.argv[2] || 3);
const file = llamaExport(32);
const bytes = readFileSync(file);
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const env = await start();
const runs = { cost: [], none: [] };
try {
  for (let k = 0; k < RUNS; k++) {
    for (const mode of k % 2 ? ['cost', 'none'] : ['none', 'cost']) { // either first in turn
      const page = await env.newPage();
      await page.goto(`${env.base}/examples/web/${mode === 'none' ? '?cost=0' : ''}`);
      await page.waitForFunction(() => document.body.dataset.engine, null, { timeout: 60000 });
      await page.setInputFiles('#file-input', { name: 'llama_32.onnx', mimeType: 'application/octet-stream', buffer: bytes });
      await waitReady(page, 'llama_32.onnx', 180000);
      if (mode === 'cost') await page.waitForFunction(() => window.__onnxShapesDemo.costMs !== undefined, null, { timeout: 60000 });
      await page.waitForTimeout(300);
      const t = await page.evaluate(() => ({ ...window.__onnxShapesDemo.timings, costMs: window.__onnxShapesDemo.costMs ?? 0, costShownMs: window.__onnxShapesDemo.costShownMs ?? 0 }));
      t.bindMs = await page.evaluate(async () => {
        const t0 = performance.now();
        document.getElementById('bindings-text').value = 'batch_size=1, sequence_length=128, past_sequence_length=1024, total_sequence_length=1152';
        document.getElementById('bindings-form').requestSubmit();
        await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
        return performance.now() - t0;
      });
      // The cost at the binding, drawn once the worker answers.
      const t0 = Date.now();
      if (mode === 'cost') await page.waitForSelector('#cost-card:not([data-pending])', { timeout: 60000 });
      t.bindCostMs = Date.now() - t0;
      if (mode === 'cost') t.macs = await page.textContent('#cost-macs');
      if (page.errors.length) console.log(`console errors: ${page.errors.join('; ')}`);
      runs[mode].push(t);
      await page.close();
    }
  }
} finally {
  await env.close();
}
const fmt = (mode, key) => `${median(runs[mode].map((t) => t[key])).toFixed(0)} ms`;
console.log(`llama_32 (${(bytes.length / 1048576).toFixed(1)} MiB), medians of ${RUNS} runs, without cost / with cost:`);
for (const [label, key] of [['inference (worker)', 'inferMs'], ['inference done -> table', 'tableMs'], ['cost drawn (main thread)', 'costMs'],
  ['table shown -> cost drawn', 'costShownMs'], ['binding -> 2 frames', 'bindMs'], ['... -> its cost drawn', 'bindCostMs']]) {
  const all = (mode) => runs[mode].map((t) => t[key].toFixed(0)).join(' ');
  console.log(`  ${label.padEnd(26)} ${fmt('none', key).padStart(8)}  ${fmt('cost', key).padStart(8)}   (${all('none')} / ${all('cost')})`);
}
console.log(`  MACs at batch_size=1, sequence_length=128, past_sequence_length=1024, total_sequence_length=1152: ${runs.cost[0]?.macs}`);
