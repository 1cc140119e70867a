// The graph view's Web Worker: it holds the model's graph structure (graph_model.js) and, for
// each view the page asks for, chooses what to show and lays it out (graph_layout.js, with
// @dagrejs/dagre), so that the page's main thread only draws the result.
//
//   page → worker       {type: 'port', port}      a MessagePort from the inference worker (once)
//                       {type: 'model', model}    the model on screen (a view of another is not made)
//                       {type: 'view', id, model, scope, expanded, focus, budget, mark, notes, members, fit}
//   inference → worker  {model, json} | {model, error} on the port: each model's graph as
//                       worker.js makes it (graph_data.js), right after its table's parts, so
//                       the JSON never crosses the page's main thread and the first view is laid
//                       out before the Graph tab is clicked
//   worker → page       {type: 'view', id, scope, items, edges, clusters, expanded, width, height, stats}
//                       {type: 'error', id, message}
//
// A module worker when the page is served (dagre's ES module is imported from the repository's
// node_modules); in the single-file build (build.mjs) this module is bundled into a classic script
// after dagre's own, which defines the global `dagre`.
import { indexScope } from './graph_model.js';
import { makeView } from './graph_layout.js';

const DAGRE_MODULE = '../../node_modules/@dagrejs/dagre/dist/dagre.esm.js';
// Not a top-level await: the message handler must be set before any message can arrive.
const dagreReady = globalThis.dagre ? Promise.resolve(globalThis.dagre)
  : import(new URL(DAGRE_MODULE, import.meta.url).href).then((m) => m.default);

// Graphs from the inference worker by model id (older ones are dropped as newer ones come), and
// the views waiting for one: model -> [{resolve, reject}].
const arrived = new Map();
const waiting = new Map();
let newestArrived = -Infinity;
let shown = null; // the model the page shows
let graph = null; // its graph: { model, data: the JSON's scopes by path, scopes: Map(path -> indexed scope), shapes, types, cache }

function graphArrived({ model, json, error }) {
  newestArrived = Math.max(newestArrived, model);
  for (const m of arrived.keys()) if (m < model && m !== shown) arrived.delete(m);
  arrived.set(model, error === undefined ? { json } : { error });
  for (const [m, list] of waiting) {
    if (m > newestArrived) continue; // still to come
    // Graphs come in model order: one older than what came will not come.
    waiting.delete(m);
    const failure = m !== model ? 'the graph of that model was not made' : error;
    for (const w of list) if (failure === undefined) w.resolve(); else w.reject(new Error(failure));
  }
}

/** The graph of `model`, read the first time a view needs it. */
async function graphOf(model) {
  if (graph?.model === model) return graph;
  if (!arrived.has(model)) {
    if (model <= newestArrived) throw new Error('the graph of that model was not made');
    await new Promise((resolve, reject) => {
      let list = waiting.get(model);
      if (!list) waiting.set(model, (list = []));
      list.push({ resolve, reject });
    });
  }
  if (model !== shown) throw new Error('another model is shown');
  const got = arrived.get(model);
  if (got.error !== undefined) throw new Error(got.error);
  graph = loadGraph(model, got.json);
  // Only the graph on screen is kept (read); its text goes.
  for (const m of arrived.keys()) if (m <= model) arrived.delete(m);
  return graph;
}

function loadGraph(model, json) {
  const data = JSON.parse(json);
  const bodies = new Map(); // parent path -> Map(node index -> [{path, attribute}])
  for (const s of data.scopes) {
    if (s.parent === null) continue;
    let m = bodies.get(s.parent);
    if (!m) bodies.set(s.parent, (m = new Map()));
    let l = m.get(s.node);
    if (!l) m.set(s.node, (l = []));
    l.push({ path: s.path, attribute: s.attribute });
  }
  return {
    model,
    data: new Map(data.scopes.map((s) => [s.path, s])),
    bodies,
    scopes: new Map(),
    shapes: data.shapes ?? {},
    types: data.types ?? {},
    cache: new Map(),
  };
}

/** The indexed graph at `path`, built the first time it is shown. */
function scopeAt(g, path) {
  let s = g.scopes.get(path);
  if (!s) {
    const raw = g.data.get(path);
    if (!raw) throw new Error(`no graph ${path}`);
    s = indexScope(raw, g.bodies.get(path));
    g.scopes.set(path, s);
  }
  return s;
}

async function handle(data, dagre) {
  try {
    if (data.type === 'view') {
      if (data.model !== shown) throw new Error('another model is shown');
      const g = await graphOf(data.model);
      const view = makeView(scopeAt(g, data.scope), data, { dagre, shapes: g.shapes, types: g.types, cache: g.cache });
      self.postMessage({ type: 'view', id: data.id, ...view });
    }
  } catch (err) {
    self.postMessage({ type: 'error', id: data.id ?? null, message: err?.message ?? String(err) });
  }
}

// The page's messages in arrival order (a view waits for its model's graph, the next message for
// it); the port's as they come.
let queue = dagreReady.then((dagre) => ({ dagre }), (err) => ({ failed: `the layout library did not load: ${err?.message ?? err}` }));
self.onmessage = ({ data }) => {
  if (data.type === 'port') { data.port.onmessage = (e) => graphArrived(e.data); return; }
  if (data.type === 'model') {
    shown = data.model;
    if (graph && graph.model !== shown) graph = null;
    for (const m of arrived.keys()) if (m < shown) arrived.delete(m);
    return;
  }
  queue = queue.then(async (lib) => {
    if (lib.dagre) await handle(data, lib.dagre);
    else self.postMessage({ type: 'error', id: data.id ?? null, message: lib.failed });
    return lib;
  });
};
