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
//   cost CPU    from a Chromium trace of the opening: the CPU time of the main thread's tasks
//               from the cost drawn to the end of the frame that paints it (the page's marks
//               onnx-shapes:cost-draw and :cost-painted), and of all its tasks from the file chosen
//               on (with the cost: until it is painted): CPU time, not wall time, so that the
//               other processes of a shared machine weigh little. Target (issue 27): the cost of
//               a 6k-node model costs the page < 50 ms more.
//   bind        a binding submitted -> two frames later (sizes, cost, panels, table redrawn)
//   node tests/browser/bench_cost.mjs [runs]
import { readFileSync } from 'node:fs';
import { llamaExport } from './graph_exports.mjs';
import { start, waitReady } from './harness.mjs';
import { recordTrace, tasksOf } from './trace.mjs';

const RUNS = Number(process.argv[2] || 3);
const file = llamaExport(32);
const bytes = readFileSync(file);
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/**
 * Runs `action` under a Chromium trace; returns the CPU ms of the page's main thread: `loadCpuMs`
 * (every task), `costCpuMs` (the tasks from the mark onnx-shapes:cost-draw to :cost-painted; 0
 * without them) and `costTaskMs` (the longest of those, wall).
 */
async function traced(cdp, action) {
  const { events, threadOf } = await recordTrace(cdp, action, { marks: true });
  const isMain = (e) => threadOf(e) === 'CrRendererMain';
  const mark = (name) => events.find((e) => e.name === name && e.cat.includes('user_timing'))?.ts;
  const from = mark('onnx-shapes:cost-draw');
  const to = mark('onnx-shapes:cost-painted');
  let loadCpuMs = 0, costCpuMs = 0, costTaskMs = 0;
  for (const e of tasksOf(events)) {
    if (!isMain(e)) continue;
    const cpu = (e.tdur ?? 0) / 1000;
    loadCpuMs += cpu;
    if (from !== undefined && to !== undefined && e.ts + e.dur >= from && e.ts <= to) {
      costCpuMs += cpu;
      costTaskMs = Math.max(costTaskMs, e.dur / 1000);
    }
  }
  return { loadCpuMs, costCpuMs, costTaskMs };
}

const env = await start();
const runs = { cost: [], none: [] };
try {
  for (let k = 0; k < RUNS; k++) {
    for (const mode of k % 2 ? ['cost', 'none'] : ['none', 'cost']) { // either first in turn
      const page = await env.newPage();
      const cdp = await page.context().newCDPSession(page);
      await page.goto(`${env.base}/examples/web/${mode === 'none' ? '?cost=0' : ''}`);
      await page.waitForFunction(() => document.body.dataset.engine, null, { timeout: 60000 });
      const cpu = await traced(cdp, async () => {
        await page.setInputFiles('#file-input', { name: 'llama_32.onnx', mimeType: 'application/octet-stream', buffer: bytes });
        await waitReady(page, 'llama_32.onnx', 180000);
        if (mode === 'cost') await page.waitForFunction(() => performance.getEntriesByName('onnx-shapes:cost-painted').length > 0, null, { timeout: 60000 });
      });
      await page.waitForTimeout(300);
      const t = await page.evaluate(() => ({ ...window.__onnxShapesDemo.timings, costMs: window.__onnxShapesDemo.costMs ?? 0, costShownMs: window.__onnxShapesDemo.costShownMs ?? 0 }));
      Object.assign(t, cpu);
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
  ['cost drawn+painted, CPU', 'costCpuMs'], ['  its longest task (wall)', 'costTaskMs'], ['main thread CPU, opening', 'loadCpuMs'],
  ['table shown -> cost drawn', 'costShownMs'], ['binding -> 2 frames', 'bindMs'], ['... -> its cost drawn', 'bindCostMs']]) {
  const all = (mode) => runs[mode].map((t) => t[key].toFixed(0)).join(' ');
  console.log(`  ${label.padEnd(26)} ${fmt('none', key).padStart(8)}  ${fmt('cost', key).padStart(8)}   (${all('none')} / ${all('cost')})`);
}
const extra = median(runs.cost.map((t) => t.loadCpuMs)) - median(runs.none.map((t) => t.loadCpuMs));
console.log(`the cost on the page's main thread: ${median(runs.cost.map((t) => t.costCpuMs)).toFixed(0)} ms CPU drawing and painting it; `
  + `opening with the cost ${extra.toFixed(0)} ms more CPU than without (medians; target: < 50 ms more)`);
console.log(`  MACs at batch_size=1, sequence_length=128, past_sequence_length=1024, total_sequence_length=1152: ${runs.cost[0]?.macs}`);
