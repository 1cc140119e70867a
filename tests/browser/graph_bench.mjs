#!/usr/bin/env node
// Benchmark (not a test) of the graph view in headless Chromium: on each model, in a fresh page,
//   first     the Graph tab clicked → the first view painted (the view's own figure: asked →
//             painted; the graph is sent to the layout worker within it)
//   open      a layer group clicked → painted
//   show      "Show in graph" of a value deep in a layer, from the table → painted
//   fit       Fit clicked → painted
// and the longest main-thread task of each (PerformanceObserver 'longtask'). Targets (issue
// 29, a 12k-node export): first <= 0.3 s, open <= 0.4 s, no task over 250 ms.
//
//   node tests/browser/graph_bench.mjs [--runs N] [--root DIR] [--only REGEX]
//     --root DIR: the page of another checkout of the repository (its tests/browser/harness.mjs
//     serves it), to compare with the same models and the same machine load.
//
// Models: llama_64 (a 64-layer Llama-style decoder exported by torch 1.13: 11.8k nodes, the
// 12k-node export; made once, cached: graph_exports.mjs), the 10k-node transformer of
// tests/bench/make_models.py (the README's earlier figures), Faster R-CNN (torchvision), and the
// deep-name models of graph_deep.test.mjs (issue 30 item 3: shown within 5 s).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { deepChain, llamaExport, torchvisionExport } from './graph_exports.mjs';
import { REPO } from './harness.mjs';

const arg = (name, dflt) => { const i = process.argv.indexOf(name); return i > 0 ? process.argv[i + 1] : dflt; };
const RUNS = Number(arg('--runs', 3));
const ROOT = resolve(arg('--root', REPO));
const ONLY = new RegExp(arg('--only', '.'));

function transformer10k() {
  const file = join(REPO, 'build/graph_view/transformer_111.onnx');
  if (!existsSync(file)) {
    mkdirSync(join(REPO, 'build/graph_view'), { recursive: true });
    execFileSync('/usr/bin/python3', ['-c', `import sys, onnx; sys.path.insert(0, ${JSON.stringify(join(REPO, 'tests/bench'))}); import make_models; onnx.save(make_models.transformer(111), ${JSON.stringify(file)})`]);
  }
  return file;
}

const tmp = mkdtempSync(join(tmpdir(), 'osi-graph-bench-'));
const deepFile = (count, levels) => {
  const f = join(tmp, `deep_${count}x${levels}.onnx`);
  writeFileSync(f, deepChain(count, levels));
  return f;
};

// Each: a file, the group to open (a data-expand prefix of the first view; null: none), and a
// value to show from the table.
const MODELS = [
  { name: 'llama_64 (torch 1.13, 12k nodes)', file: () => llamaExport(64), open: 'layers.40', show: /^\/layers\.50\/self_attn\/.*MatMul.*output_0$/ },
  { name: 'transformer_111 (generated, 10k nodes)', file: transformer10k, open: 'model/layers.3', show: /^\/model\/layers\.60\/self_attn\/scores$/ },
  { name: 'faster_rcnn (torchvision)', file: () => torchvisionExport('detection_faster_rcnn_op13_dict'), open: 'model/rpn', show: /^\/model\/roi_heads\/box_head\/.*output_0$/ },
  { name: 'deep names: one node 60,000 levels', file: () => deepFile(1, 60000), open: null, show: null },
  { name: 'deep names: 2,000 x 3,000 levels', file: () => deepFile(2000, 3000), open: null, show: null },
  { name: 'deep names: 2,000 x 1,000 levels', file: () => deepFile(2000, 1000), open: null, show: null },
].filter((m) => ONLY.test(m.name));

const { start, waitReady } = await import(pathToFileURL(join(ROOT, 'tests/browser/harness.mjs')).href);

async function shown(page, action, timeout = 180000) {
  const before = await page.evaluate(() => window.__onnxShapesDemo.graph);
  await action();
  await page.waitForFunction((b) => {
    const m = window.__onnxShapesDemo.graph;
    return m && (!b || m.totalMs !== b.totalMs || m.boxes !== b.boxes) && document.querySelector('#graph')?.dataset.busy === 'false';
  }, before, { timeout });
  return page.evaluate(() => window.__onnxShapesDemo.graph);
}

async function once(env, m, file) {
  const page = await env.newPage();
  try {
    await page.goto(`${env.base}/examples/web/`);
    await page.waitForFunction(() => document.body.dataset.engine, null, { timeout: 60000 });
    await page.setInputFiles('#file-input', file);
    await waitReady(page, file.split('/').pop(), 300000);
    await page.evaluate(() => {
      window.__longTasks = [];
      new PerformanceObserver((l) => { for (const e of l.getEntries()) window.__longTasks.push(Math.round(e.duration)); }).observe({ type: 'longtask' });
    });
    const r = {};
    // The longest task of each step (the table and the detail panel's own work in "show" too).
    const longest = async (step) => { r[`task_${step}`] = await page.evaluate(() => Math.max(0, ...window.__longTasks.splice(0))); };
    const first = await shown(page, () => page.click('#tab-graph'));
    await longest('first');
    r.first = first.totalMs;
    r.boxes = first.boxes;
    if (m.open && await page.$(`#graph .gv-group[data-expand="${m.open}"]`)) r.open = (await shown(page, () => page.click(`#graph .gv-group[data-expand="${m.open}"]`))).totalMs;
    await longest('open');
    if (m.show) {
      const key = await page.evaluate((src) => [...window.__onnxShapesDemo.state.byName.keys()].find((k) => new RegExp(src).test(k)), m.show.source);
      if (key) {
        await page.click('#tab-table');
        await page.fill('#filter', key);
        await page.waitForTimeout(100);
        await page.click(`#grid-rows .row:has(.vname:text-is("${key}"))`);
        await page.waitForSelector(`#detail [data-show-graph="${key}"]`);
        await longest('table');
        r.show = (await shown(page, () => page.click(`#detail [data-show-graph="${key}"]`))).totalMs;
        await longest('show');
      }
    }
    // (A page whose Fit only zooms draws no new view: no figure.)
    r.fit = (await shown(page, () => page.click('#graph [data-graph=fit]'), 20000).catch(() => null))?.totalMs;
    await longest('fit');
    if (page.errors.length) r.errors = page.errors;
    return r;
  } finally {
    await page.close();
  }
}

const fmt = (xs) => {
  const v = xs.filter((x) => typeof x === 'number').sort((a, b) => a - b);
  if (!v.length) return '—';
  const med = v[Math.floor(v.length / 2)];
  return `${Math.round(med)} ms (${Math.round(v[0])}–${Math.round(v[v.length - 1])})`;
};

const env = await start();
try {
  console.log(`page of ${ROOT}; ${RUNS} runs per model; load average ${loadavg().map((x) => x.toFixed(1)).join(' ')}`);
  for (const m of MODELS) {
    const file = m.file();
    const runs = [];
    for (let k = 0; k < RUNS; k++) runs.push(await once(env, m, file));
    const col = (key) => fmt(runs.map((r) => r[key]));
    console.log(`${m.name}: first ${col('first')}, open ${col('open')}, show ${col('show')}, fit ${col('fit')}; ${runs[0].boxes} boxes first${runs.some((r) => r.errors) ? `; ERRORS ${JSON.stringify(runs.find((r) => r.errors).errors)}` : ''}`);
    console.log(`  longest main-thread task: first ${col('task_first')}, open ${col('task_open')}, (table and detail ${col('task_table')}), show ${col('task_show')}, fit ${col('task_fit')}`);
  }
  console.log(`load average at the end ${loadavg().map((x) => x.toFixed(1)).join(' ')}`);
} finally {
  await env.close();
  rmSync(tmp, { recursive: true, force: true });
}
