#!/usr/bin/env node
// Benchmark (not a test) of the graph view's worker side in Node: the CPU time to choose and lay out
// a view (first view, a group opened, a value deep inside focused) on real exports, for this
// tree's layout worker (graph_model.js + graph_layout.js) and, interleaved with it so both see the
// same machine load, the layout worker of another revision (default: the one before the per-level
// layout, 79de135; a revision with the per-level modules, e.g. `--rev main`, runs its own
// graph_model.js and graph_layout.js). What the page's main thread does is in graph_bench.mjs.
//
//   node tests/browser/graph_worker_bench.mjs [--runs N] [--rev REV] [--only REGEX]
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import dagre from '@dagrejs/dagre';
import { init } from '../../js/index.js';
import { graphJson } from '../../examples/web/graph_data.js';
import { indexScope } from '../../examples/web/graph_model.js';
import { makeView } from '../../examples/web/graph_layout.js';
import { generated, llamaExport, torchvisionExport } from './graph_exports.mjs';
import { REPO } from './harness.mjs';

const arg = (name, dflt) => { const i = process.argv.indexOf(name); return i > 0 ? process.argv[i + 1] : dflt; };
const RUNS = Number(arg('--runs', 5));
const REV = arg('--rev', '79de135');
const ONLY = new RegExp(arg('--only', '.'));

/** The old worker (a classic script) run in this realm: returns view(request) → its answer. */
function oldWorker(json) {
  const src = execFileSync('git', ['-C', REPO, 'show', `${REV}:examples/web/layout_worker.js`], { encoding: 'utf8', timeout: 60_000 });
  const self = { postMessage: (m) => { self.last = m; } };
  // eslint-disable-next-line no-new-func
  new Function('self', 'dagre', 'importScripts', src)(self, dagre, () => {});
  self.onmessage({ data: { type: 'graph', json } });
  return (req) => { self.onmessage({ data: { type: 'view', id: 1, ...req } }); return self.last; };
}

/** A worker of per-level modules (graph_model.js + graph_layout.js) given as `{ indexScope, makeView }`. */
const moduleWorker = ({ indexScope: index, makeView: view }) => (json) => {
  const data = JSON.parse(json);
  const env = { dagre, shapes: data.shapes, types: data.types, cache: new Map() };
  const g = index(data.scopes[0]);
  // members: as the page asks with the cost shown (each group box lists its nodes for its MACs).
  return (req) => view(g, { expanded: null, focus: null, budget: 120, mark: -1, members: true, ...req }, env);
};

const newWorker = moduleWorker({ indexScope, makeView });

/**
 * The other revision's worker: its modules (graph_layout.js and what it imports, from `git
 * archive`) when it has them, else its classic layout_worker.js (before the per-level layout).
 */
async function revWorker(rev) {
  try {
    execFileSync('git', ['-C', REPO, 'cat-file', '-e', `${rev}:examples/web/graph_layout.js`], { stdio: 'ignore', timeout: 60_000 });
  } catch {
    return oldWorker;
  }
  const dir = mkdtempSync(join(tmpdir(), 'osi-graph-rev-'));
  execFileSync('sh', ['-c', `git -C "${REPO}" archive "${rev}" examples/web js | tar -x -C "${dir}"`], { timeout: 60_000 });
  const web = join(dir, 'examples/web');
  return moduleWorker({ ...(await import(pathToFileURL(join(web, 'graph_model.js')).href)), ...(await import(pathToFileURL(join(web, 'graph_layout.js')).href)) });
}

const MODELS = [
  { name: 'llama_64 (torch 1.13, 11.8k nodes)', file: () => llamaExport(64), open: 'layers.40', focus: /^\/layers\.50\/self_attn\/.*MatMul.*output_0$/ },
  { name: 'llama_32 (torch 1.13, 5.9k nodes)', file: () => llamaExport(32), open: 'layers.7', focus: /^\/layers\.20\/self_attn\/.*MatMul.*output_0$/ },
  { name: 'transformer_111 (generated, 10k nodes)', file: () => join(REPO, 'build/graph_view/transformer_111.onnx'), open: 'model/layers.3', focus: /^\/model\/layers\.60\/self_attn\/scores$/ },
  { name: 'faster_rcnn (torchvision)', file: () => torchvisionExport('detection_faster_rcnn_op13_dict'), open: 'model/rpn', focus: /^\/model\/roi_heads\/box_head\/.*output_0$/ },
  { name: 'cnn_100k (generated, 99,996 nodes)', file: () => generated('cnn_100k', 'cnn()'), open: 'blocks.3', focus: /^\/blocks\.6000\/relu1$/ },
].filter((m) => ONLY.test(m.name));


const otherWorker = await revWorker(REV);

// CPU time of this process (user + system): on a loaded machine, wall-clock time mostly measures
// the wait for a core.
const cpuMs = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; };

const eng = await init();
const med = (xs) => { const v = [...xs].sort((a, b) => a - b); return v[Math.floor(v.length / 2)]; };
console.log(`CPU time, median of ${RUNS} runs, this tree against ${REV}, interleaved; load average ${loadavg().map((x) => x.toFixed(1)).join(' ')}`);
for (const m of MODELS) {
  const result = eng.inferShapes(new Uint8Array(readFileSync(m.file())));
  const json = graphJson(result);
  const key = result.names().find((k) => m.focus.test(k));
  const steps = [
    ['first', {}],
    ['open', { expanded: null, focus: { group: m.open }, open: m.open }],
    ['focus', { focus: { key } }],
  ];
  const times = { new: {}, old: {} };
  for (let r = 0; r < RUNS; r++) {
    // Fresh workers each run: the first view includes indexing the graph, as in the page.
    for (const which of r % 2 ? ['old', 'new'] : ['new', 'old']) {
      const t0 = cpuMs();
      const w = which === 'new' ? newWorker(json) : otherWorker(json);
      const tLoad = cpuMs() - t0;
      let expanded = null;
      for (const [step, req] of steps) {
        const q = { scope: '', budget: 120, ...req };
        if (step === 'open') q.expanded = [...(expanded ?? []), m.open];
        const t = cpuMs();
        const v = w(q);
        const ms = cpuMs() - t + (step === 'first' ? tLoad : 0);
        expanded = v.expanded;
        (times[which][step] ??= []).push(ms);
        if (r === 0) (times[which].boxes ??= {})[step] = v.stats.boxes;
      }
    }
  }
  const line = (which) => steps.map(([s]) => `${s} ${Math.round(med(times[which][s]))} ms`).join(', ');
  console.log(`${m.name}\n  this tree: ${line('new')} (boxes ${JSON.stringify(times.new.boxes)})\n  ${REV}:   ${line('old')} (boxes ${JSON.stringify(times.old.boxes)})`);
}
console.log(`load average at the end ${loadavg().map((x) => x.toFixed(1)).join(' ')}`);
