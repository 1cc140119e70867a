// The graph view's Web Worker: it holds the model's graph structure (graph_model.js) and, for
// each view the page asks for, chooses what to show and lays it out (graph_layout.js, with
// @dagrejs/dagre), so that the page's main thread only draws the result.
//
//   page → worker  {type: 'graph', json}       the structure (worker.js makes it: graph_data.js)
//                  {type: 'view', id, scope, expanded, focus, budget, mark, notes, members, fit}
//   worker → page  {type: 'view', id, scope, items, edges, clusters, expanded, width, height, stats}
//                  {type: 'error', id, message}
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

let graph = null; // { data: the JSON's scopes by path, scopes: Map(path -> indexed scope), shapes, types, cache }

function loadGraph(json) {
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
  graph = {
    data: new Map(data.scopes.map((s) => [s.path, s])),
    bodies,
    scopes: new Map(),
    shapes: data.shapes ?? {},
    types: data.types ?? {},
    cache: new Map(),
  };
}

/** The indexed graph at `path`, built the first time it is shown. */
function scopeAt(path) {
  let s = graph.scopes.get(path);
  if (!s) {
    const raw = graph.data.get(path);
    if (!raw) throw new Error(`no graph ${path}`);
    s = indexScope(raw, graph.bodies.get(path));
    graph.scopes.set(path, s);
  }
  return s;
}

function handle(data, dagre) {
  try {
    if (data.type === 'graph') loadGraph(data.json);
    else if (data.type === 'view') {
      const view = makeView(scopeAt(data.scope), data, { dagre, shapes: graph.shapes, types: graph.types, cache: graph.cache });
      self.postMessage({ type: 'view', id: data.id, ...view });
    }
  } catch (err) {
    self.postMessage({ type: 'error', id: data.id ?? null, message: err?.message ?? String(err) });
  }
}

// In arrival order (all wait on the same promise, resolved once).
self.onmessage = ({ data }) => {
  dagreReady.then((dagre) => handle(data, dagre), (err) => self.postMessage({ type: 'error', id: data.id ?? null, message: `the layout library did not load: ${err?.message ?? err}` }));
};
