// The demo's module Web Worker: loads the engine once, runs inference off the main thread, and
// answers with plain data (the result, plus what model_scan.js reads from the model itself).
//
//   main → worker  {type: 'infer', id, file?: Blob, bytes?: ArrayBuffer, url?: string, name}
//                  {type: 'toModel', id}                    (write-back of the last result)
//                  {type: 'graph', id}                      (the last result's graph, for the graph view)
//   worker → main  {type: 'ready', version, streaming, writeBack}
//                  {type: 'progress', id, phase: 'read'|'scan'|'infer', fraction: number|null}
//                  {type: 'done', id, json, eventsJson, modelJson, info} | {type: 'error', id, error}
//                  {type: 'model', id, bytes}
//                  {type: 'graph', id, json}                (layout_worker.js reads it)
import { init } from '../../js/index.js';
import { fetchModelSource } from '../../js/url_source.js';
import { scanModel } from './model_scan.js';
import { graphJson } from './graph_data.js';

const now = () => performance.timeOrigin + performance.now(); // comparable across threads

let enginePromise = null;
function engine() {
  if (!enginePromise) {
    // The single-file build (build.mjs) defines the wasm bytes inline; otherwise the glue fetches
    // dist/onnx_shapes.wasm next to itself (import.meta.url), which any static server can serve.
    const inline = globalThis.__ONNX_SHAPES_WASM__;
    const options = {};
    if (typeof inline === 'string') {
      const bin = atob(inline);
      const bytes = new Uint8Array(bin.length);
      for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
      options.wasmBinary = bytes;
    }
    enginePromise = init(options);
  }
  return enginePromise;
}

let lastResult = null;
let lastFile = null;

const post = (msg, transfer) => self.postMessage(msg, transfer || []);

/** Normalises the streaming engine's progress callback, whatever form it takes. */
function progressFraction(a, b) {
  if (typeof a === 'number' && typeof b === 'number' && b > 0) return a / b;
  if (typeof a === 'number' && a >= 0 && a <= 1) return a;
  if (a && typeof a === 'object') {
    const done = a.loaded ?? a.bytesRead ?? a.done ?? a.read;
    const total = a.total ?? a.size ?? a.bytesTotal;
    if (typeof done === 'number' && typeof total === 'number' && total > 0) return done / total;
    if (typeof a.fraction === 'number') return a.fraction;
  }
  return null;
}

/** Reads a Blob into memory in chunks, reporting progress (File.arrayBuffer() has no progress). */
async function readBlob(blob, id) {
  const CHUNK = 8 << 20;
  if (blob.size <= CHUNK) return new Uint8Array(await blob.arrayBuffer());
  const out = new Uint8Array(blob.size);
  for (let pos = 0; pos < blob.size; pos += CHUNK) {
    out.set(new Uint8Array(await blob.slice(pos, pos + CHUNK).arrayBuffer()), pos);
    post({ type: 'progress', id, phase: 'read', fraction: Math.min(1, (pos + CHUNK) / blob.size) });
  }
  return out;
}

/**
 * Nodes without their inputs and outputs, which go in two flat arrays (a 100k-node model then
 * parses as two arrays, not 100k objects with two arrays each): `ioNames` holds every node's input
 * names then output names, in node order (an omitted one as ''), and node k's inputs are
 * ioNames[ioStart[2k] .. ioStart[2k+1]), its outputs ioNames[ioStart[2k+1] .. ioStart[2k+2]).
 * No separator character: a name may hold any character (issue 30: U+0001 once split one name in two).
 */
function compactNodes(nodes) {
  const ioNames = [];
  const ioStart = [0];
  for (const n of nodes) {
    for (const k of n.inputs) ioNames.push(k ?? '');
    ioStart.push(ioNames.length);
    for (const k of n.outputs) ioNames.push(k ?? '');
    ioStart.push(ioNames.length);
  }
  return { nodes: nodes.map((n) => ({ name: n.name, opType: n.opType, domain: n.domain })), ioNames, ioStart };
}

/**
 * The result as JSON text (functions such as toModel stay in the worker). For large models a
 * string crosses threads far faster than structured clone of ~10^5 small objects (100k nodes:
 * 2.2 s cloned vs ~0.3 s as JSON). The event log goes as a separate string, which the page only
 * parses when "Why this shape" first needs it.
 */
function serialize(result) {
  const out = {};
  for (const key of Object.keys(result)) {
    if (key === 'events' || key === 'nodes' || key === 'subgraphs' || typeof result[key] === 'function') continue;
    out[key] = result[key];
  }
  Object.assign(out, compactNodes(result.nodes));
  out.subgraphs = {};
  for (const [path, g] of Object.entries(result.subgraphs)) out.subgraphs[path] = { ...g, ...compactNodes(g.nodes) };
  return { json: JSON.stringify(out), eventsJson: Array.isArray(result.events) ? JSON.stringify(result.events) : null };
}

/** The scan without its nodes (the result has them, with subgraphs). */
function compactModel(model) {
  if (!model) return null;
  const { nodes, ...rest } = model;
  return rest;
}

async function infer({ id, file, bytes, url, name }) {
  const eng = await engine();
  const t0 = now();
  let result;
  let model = null;
  let streamed = false;
  let tScan = 0;
  let fetched = null;
  const options = { events: true };
  if (url) {
    // Range requests for what the decoder reads, never the weights (js/url_source.js, the same
    // fetching as engine.inferShapesFromUrl); the scanner reads the same messages.
    streamed = true;
    post({ type: 'progress', id, phase: 'read', fraction: null });
    const source = await fetchModelSource(url); // absolute (the page resolves it)
    post({ type: 'progress', id, phase: 'infer', fraction: 0 });
    result = eng.inferShapesFromSource(source, {
      ...options,
      onProgress: (a, b) => post({ type: 'progress', id, phase: 'infer', fraction: progressFraction(a, b) }),
    });
    tScan = now();
    try { model = scanModel(source); } catch { model = null; }
    const d = source.download;
    fetched = { size: d.size, requests: d.requests, bytes: d.bytesFetched, ranged: d.rangeRequests };
  } else if (file && typeof eng.inferShapesFromFile === 'function') {
    // Streaming engine (issue 4/7): the file never has to be in memory at once.
    streamed = true;
    post({ type: 'progress', id, phase: 'infer', fraction: 0 });
    result = await eng.inferShapesFromFile(file, {
      ...options,
      onProgress: (a, b) => post({ type: 'progress', id, phase: 'infer', fraction: progressFraction(a, b) }),
    });
    post({ type: 'progress', id, phase: 'scan', fraction: null });
    tScan = now();
    try { model = scanModel(file); } catch { model = null; }
  } else {
    const data = bytes ? new Uint8Array(bytes) : await readBlob(file, id);
    post({ type: 'progress', id, phase: 'infer', fraction: null });
    result = eng.inferShapes(data, options);
    tScan = now();
    try { model = scanModel(data); } catch { model = null; }
  }
  lastResult = result;
  lastFile = file ?? null;
  const t1 = now();
  const { json, eventsJson } = serialize(result);
  post({
    type: 'done',
    id,
    name,
    json,
    eventsJson,
    modelJson: JSON.stringify(compactModel(model)),
    info: {
      streamed,
      fetched, // URL: {size, requests, bytes, ranged}
      writeBack: typeof result.toModel === 'function' && !url,
      inferMs: tScan - t0,
      scanMs: t1 - tScan,
      doneAt: now(),
      version: eng.version,
    },
  });
}

self.onmessage = async (ev) => {
  const msg = ev.data;
  try {
    if (msg.type === 'infer') await infer(msg);
    else if (msg.type === 'graph') {
      if (!lastResult) throw new Error('no model');
      post({ type: 'graph', id: msg.id, json: graphJson(lastResult) });
    } else if (msg.type === 'toModel') {
      if (!lastResult || typeof lastResult.toModel !== 'function') throw new Error('write-back is not available');
      let out;
      try {
        out = lastResult.toModel();
      } catch (err) {
        // A streamed result has no bytes to rewrite: read the file now and infer from memory.
        if (!lastFile) throw err;
        const eng = await engine();
        const bytes = new Uint8Array(new FileReaderSync().readAsArrayBuffer(lastFile));
        out = eng.inferShapes(bytes).toModel();
      }
      const copy = out.slice(); // own buffer, transferable
      post({ type: 'model', id: msg.id, bytes: copy.buffer }, [copy.buffer]);
    }
  } catch (err) {
    post({
      type: 'error',
      id: msg.id,
      error: {
        name: err?.name ?? 'Error',
        code: err?.code ?? null,
        node: err?.node ?? null,
        message: err?.message ?? String(err),
      },
    });
  }
};

engine().then(
  (eng) => post({
    type: 'ready',
    version: eng.version,
    streaming: typeof eng.inferShapesFromFile === 'function',
  }),
  (err) => post({ type: 'error', id: null, error: { name: 'LoadError', code: 'LOAD', node: null, message: err?.message ?? String(err) } }),
);
