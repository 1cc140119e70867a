// Benchmark (not a test): layout libraries on the kind of graph the demo's graph view lays out,
// to choose one (README, "The demo page"). Neighbourhoods of 50 to 500 operator nodes, found
// breadth first around the middle node of an exporter-style 32-layer transformer
// (tests/bench/make_models.py), every edge with a label box the size of a shape label.
//   node tests/bench/layout_bench.mjs [sizes, default 50,120,250,500]
// @dagrejs/dagre is a devDependency; elkjs and d3-dag are measured when they can be imported
// (npm install --no-save elkjs d3-dag), otherwise reported as not installed.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);
const { init } = await import('../../js/index.js');

const dir = mkdtempSync(join(tmpdir(), 'osi-layout-'));
const file = join(dir, 'transformer_32.onnx');
execFileSync('/usr/bin/python3', ['-c', `import sys, onnx; sys.path.insert(0, ${JSON.stringify(HERE)}); import make_models; onnx.save(make_models.transformer(32), ${JSON.stringify(file)})`]);
const r = (await init()).inferShapes(readFileSync(file));
rmSync(dir, { recursive: true, force: true });
const nodes = r.nodes;

// Node-to-node edges of the model's graph.
const producer = new Map();
nodes.forEach((n, i) => n.outputs.forEach((o) => o && producer.set(o, i)));
const readers = new Map();
nodes.forEach((n, i) => n.inputs.forEach((k) => { if (k && producer.has(k)) (readers.get(k) ?? readers.set(k, []).get(k)).push(i); }));

function neighbourhood(start, max) {
  const seen = new Set([start]);
  let frontier = [start];
  while (frontier.length && seen.size < max) {
    const next = [];
    for (const i of frontier) {
      const around = [...nodes[i].inputs.filter((k) => producer.has(k)).map((k) => producer.get(k)), ...nodes[i].outputs.flatMap((o) => readers.get(o) ?? [])];
      for (const j of around) if (!seen.has(j) && seen.size < max) { seen.add(j); next.push(j); }
    }
    frontier = next;
  }
  const edges = [];
  for (const i of seen) for (const o of nodes[i].outputs) for (const j of readers.get(o) ?? []) if (seen.has(j)) edges.push([i, j]);
  return { ids: [...seen], edges };
}

const W = 120, H = 40, LW = 110, LH = 16; // box and shape label sizes of the graph view
const optional = async (name) => { try { return await import(name); } catch { return null; } };
const dagre = require('@dagrejs/dagre');
const elkjs = await optional('elkjs/lib/elk.bundled.js');
const d3dag = await optional('d3-dag');
const libs = {
  '@dagrejs/dagre': (h) => {
    const g = new dagre.graphlib.Graph();
    g.setGraph({ rankdir: 'TB', nodesep: 18, ranksep: 26 });
    g.setDefaultEdgeLabel(() => ({}));
    for (const i of h.ids) g.setNode(String(i), { width: W, height: H });
    for (const [a, b] of h.edges) g.setEdge(String(a), String(b), { width: LW, height: LH });
    dagre.layout(g);
  },
  elkjs: elkjs && ((h) => new (elkjs.default ?? elkjs)().layout({
    id: 'root', layoutOptions: { 'elk.algorithm': 'layered', 'elk.direction': 'DOWN' },
    children: h.ids.map((i) => ({ id: String(i), width: W, height: H })),
    edges: h.edges.map(([a, b], k) => ({ id: `e${k}`, sources: [String(a)], targets: [String(b)], labels: [{ text: 'x', width: LW, height: LH }] })),
  })),
  'd3-dag sugiyama': d3dag && ((h) => {
    const g = d3dag.graphConnect()(h.edges.map(([a, b]) => [String(a), String(b)]));
    d3dag.sugiyama().nodeSize([W, H + LH]).layering(d3dag.layeringSimplex()).decross(d3dag.decrossTwoLayer()).coord(d3dag.coordSimplex())(g);
  }),
};

const sizes = (process.argv[2] || '50,120,250,500').split(',').map(Number);
const start = Math.floor(nodes.length / 2);
console.log(`transformer, 32 layers: ${nodes.length} nodes; median of 3 runs after one warm-up`);
for (const size of sizes) {
  const h = neighbourhood(start, size);
  const cells = [`${String(h.ids.length).padStart(4)} nodes ${String(h.edges.length).padStart(4)} edges`];
  for (const [name, fn] of Object.entries(libs)) {
    if (!fn) { cells.push(`${name}: not installed`); continue; }
    if (name.startsWith('d3') && size > 300) { cells.push(`${name}: skipped (> 10 s)`); continue; }
    await fn(h);
    const ts = [];
    for (let k = 0; k < 3; k++) { const t = performance.now(); await fn(h); ts.push(performance.now() - t); }
    ts.sort((a, b) => a - b);
    cells.push(`${name} ${ts[1].toFixed(0)} ms`);
  }
  console.log(cells.join(' | '));
}
