// The demo's module Web Worker: loads the engine once, runs inference off the main thread, and
// answers with plain data (the result, plus what model_scan.js reads from the model itself).
//
//   main → worker  {type: 'infer', id, file?: Blob, bytes?: ArrayBuffer, url?: string, timeout?: ms, cost?: false, name}
//                  {type: 'cancel', target}                 (stops infer `target`'s fetching; it fails with an AbortError)
//                  {type: 'keep', model}                    (the page shows infer `model`'s result: forget the others)
//                  {type: 'toModel', id, model}             (write-back of infer `model`'s result)
//                  {type: 'graphPort', port}                (once: where each model's graph goes)
//                  {type: 'node', id, model, path, index}   (one node's attributes, for the node panel)
//                  {type: 'cost', id, model, bindings}      (the cost at bindings, a Map or null: costAt)
//                  {type: 'sizesAt', id, model, bindings}   (the table's sizes at bindings, a Map: sizes_at.js)
//                  {type: 'why', id, model, key, syms}      (what "Why this shape" shows of the event log)
//   (`model` defaults to the last result.)
//   worker → main  {type: 'ready', version, streaming, writeBack}
//                  {type: 'progress', id, phase: 'read'|'scan'|'infer', fraction: number|null}
//                  {type: 'done', id, json, rowsJson, modelJson, info}
//                    | {type: 'error', id, error}
//                  {type: 'meta' | 'diagnostics' | 'rows' | 'symbols' | 'nodes' | 'end', id, json} ...
//                  {type: 'sizes', id, sizes}  (before 'end': the sizes with nothing bound, as sizesAt's)
//                                                           (the rest of that result: resultParts)
//                  {type: 'events', id, available, count, ms} (after the parts: the event log of that model is recorded)
//                  {type: 'why', id, events, count, anchored, symbolEvents} (event_log.js forValue; events: null without a log)
//                  {type: 'model', id, bytes}
//                  {type: 'node', id, attributes}           (result.nodeAttributes(path, index), or null)
//                  {type: 'cost', id, cost}
//                  {type: 'sizesAt', id, sizes}            (sizes_at.js sizesAt: typed arrays, transferred)
import { init } from '../../js/index.js';
import { runOnUrlModel } from '../../js/url_source.js';
import { scanModel } from './model_scan.js';
import { graphJson } from './graph_data.js';
import { rowBuilder } from './table_rows.js';
import { warmUpModel } from './warm_up.js';
import { sizeTable, sizesAt } from './sizes_at.js';
import { eventLog } from './event_log.js';

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

// Results by the id of the infer request that made them: the one on the page, and a newer one the
// page may not show (its opening was cancelled, or it is being shown). {result, file, full}: full
// resolves with the result that has the cost model and attributes (completeResult).
const results = new Map();
let latest = null;
const inflight = new Map(); // infer id -> AbortController of its fetching

/** The result a request is about (its `model`, else the latest): {result, file, full}. */
function resultFor(msg) {
  const r = msg.model !== undefined ? results.get(msg.model) : latest;
  if (!r) throw new Error('no model');
  return r;
}

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

/** Rows in the first message (the table's first screens), then per message (one short task each). */
const HEAD_ROWS = 300;
const ROWS_PER_PART = 2000;
const NODES_PER_PART = 10000;
const SYMBOLS_PER_PART = 10000;
const DIAGNOSTICS_PER_PART = 2000;

/**
 * The result as the page gets it: parts made and posted one after the other (JSON text: a string
 * crosses threads far faster than structured clone of ~10^5 small objects; functions such as
 * toModel stay in the worker). The `done` message carries the result's small members (named
 * sizes, inputs, outputs, first error, counts) and the table's first rows, which the page shows
 * at once: it is made as soon as those rows exist (table_rows.js rowBuilder makes the rows in
 * model order as they are asked for). Then `meta` (constraints, which values lie in subgraphs),
 * the `diagnostics`, the other `rows` in model order, the `symbols` (counted over every row), the
 * `nodes` (compactNodes, in node order), the `sizes` with nothing bound and `end` (the subgraphs). Each part is small enough to
 * parse and add in a short task of the page's main thread, so that nothing proportional to the
 * model runs there before the first rows show, nor in one piece after (issue 31). The values and
 * producers never cross: the rows say what the page needs of them.
 */
function* resultParts(result, model, done, sizes) {
  const { id } = done;
  // Members that grow with the model (a 100k-node model may have 100k symbols and constraints,
  // 10k diagnostics) come after the first rows too.
  const later = ['diagnostics', 'constraints', 'subgraphValues'];
  const small = {};
  for (const key of Object.keys(result)) {
    if (['events', 'costModel', 'nodes', 'subgraphs', 'values', 'producers', ...later].includes(key) || typeof result[key] === 'function') continue;
    small[key] = result[key];
  }
  const rows = rowBuilder(result, model);
  small.nodeCount = result.nodes.length;
  small.rowCount = rows.count;
  // Rows name their type by index: values share few types (a 100k-node chain has one), and the
  // page parses each once. A part brings the types its rows use first.
  const typeIndex = new Map(); // type object (or its JSON) -> index
  let typeCount = 0;
  const rowsPart = (list) => {
    const types = [];
    const out = list.map(([name, type, kind, nodeIndex, op, nodeName, sub, syms]) => {
      let k = typeIndex.get(type);
      if (k === undefined) {
        const key = JSON.stringify(type);
        k = typeIndex.get(key);
        if (k === undefined) {
          k = typeCount++;
          typeIndex.set(key, k);
          types.push([type, syms]); // the symbols follow from the type's dims
          sizes.addType(type, syms, name);
        }
        typeIndex.set(type, k);
      }
      return sub ? [name, k, kind, nodeIndex, op, nodeName, sub] : [name, k, kind, nodeIndex, op, nodeName];
    });
    return JSON.stringify({ types, rows: out });
  };
  // The first message goes before anything else is made.
  yield { ...done, json: JSON.stringify(small), rowsJson: rowsPart(rows.next(HEAD_ROWS)) };
  yield { type: 'meta', id, json: JSON.stringify({ constraints: result.constraints, subgraphValues: result.subgraphValues }) };
  const diagnostics = result.diagnostics ?? [];
  for (let i = 0; i < diagnostics.length; i += DIAGNOSTICS_PER_PART) {
    yield { type: 'diagnostics', id, json: JSON.stringify(diagnostics.slice(i, i + DIAGNOSTICS_PER_PART)) };
  }
  for (let list; (list = rows.next(ROWS_PER_PART)).length;) yield { type: 'rows', id, json: rowsPart(list) };
  const symbols = rows.symbols();
  for (let i = 0; i < symbols.length; i += SYMBOLS_PER_PART) {
    yield { type: 'symbols', id, json: JSON.stringify(symbols.slice(i, i + SYMBOLS_PER_PART)) };
  }
  for (let k = 0; k < result.nodes.length; k += NODES_PER_PART) {
    yield { type: 'nodes', id, json: JSON.stringify(compactNodes(result.nodes.slice(k, k + NODES_PER_PART))) };
  }
  // The sizes with nothing bound (what the model's relations decide alone, and what they refuse):
  // the page's first sizes step, which on 100k relations took the page's thread 0.3 s CPU in one
  // task. Structured clone: a size may be a BigInt.
  const { answer, transfer } = sizesAt(sizes, new Map());
  yield { type: 'sizes', id, sizes: answer, transfer };
  const subgraphs = {};
  for (const [path, g] of Object.entries(result.subgraphs)) {
    const { nodes, ...rest } = g;
    subgraphs[path] = { ...rest, ...compactNodes(nodes) };
  }
  yield { type: 'end', id, json: JSON.stringify({ subgraphs }) };
}

/** The scan without its initializer names (the rows have them). */
function compactModel(model) {
  if (!model) return null;
  const { initializers, ...rest } = model;
  return { ...rest, initializerCount: initializers.length };
}

/**
 * Files up to this size are read whole, in one read, and inferred from memory exactly as
 * `inferShapes` infers them in Node (protobuf-c below its 32 MiB streaming size; the scan reads
 * the same bytes, and write-back needs no second read); larger ones are streamed
 * (inferShapesFromFile: reads that grow while the decoder reads on, weights skipped, memory
 * bounded), as inferShapes streams them from memory in Node. tests/browser/bench_open.mjs
 * measures both paths against Node.
 */
const READ_WHOLE_MAX = 32 << 20;

/**
 * The rest of the model just shown, from more inference runs once its table's parts are posted
 * (the first run is `inferShapes(bytes)` as in Node, which the page reports as its inference):
 * the cost model (up to 5x an inference on a 100k-node chain) and the nodes' attributes, whose
 * result then replaces the first (the same model, the same values: `entry.full` resolves with
 * it); then the event log behind "Why this shape" (events double an inference's cost), kept
 * here (event_log.js: the page asks for what a panel shows of it) and announced as
 * {type: 'events', id, available, count, ms}.
 */
async function completeResult(id, entry, source, cost) {
  const eng = await engine();
  const run = (options) => (source.url ? eng.inferShapesFromSource(source.url, options)
    : source.data ? eng.inferShapes(source.data, options) : eng.inferShapesFromFile(source.file, options));
  // A model chosen meanwhile is inferred first; a model the page no longer shows gets no more runs.
  await whenIdle();
  if (results.has(id)) {
    try {
      entry.result = await run({ attributes: true, cost });
    } catch {
      // The same model inferred a moment ago: this only fails on memory; then no cost, no attributes.
    }
  }
  entry.resolveFull(entry.result);
  await whenIdle();
  if (!results.has(id)) return;
  const t0 = now();
  let log = null;
  try {
    const result = await run({ events: true });
    if (Array.isArray(result.events)) log = eventLog(result.events);
  } catch {
    // As above: the panel then has no trace.
  }
  entry.events = log;
  post({ type: 'events', id, available: log !== null, count: log?.count ?? 0, ms: now() - t0 });
}

/** Inferences between their request and their last part posted. */
let inferring = 0;
let idleWaiters = [];

/** Resolves once no inference is in progress, after the messages already received are handled. */
async function whenIdle() {
  await new Promise((resolve) => setTimeout(resolve, 0));
  while (inferring) await new Promise((resolve) => idleWaiters.push(resolve));
}

async function infer(msg) {
  inferring++;
  try {
    await inferAndPost(msg);
  } finally {
    if (--inferring === 0) {
      for (const wake of idleWaiters) wake();
      idleWaiters = [];
    }
  }
}

async function inferAndPost({ id, file, bytes, url, timeout, cost = true, name }) {
  const eng = await engine();
  const t0 = now();
  let result;
  let model = null;
  let streamed = false;
  let readMs = 0;
  let tScan = 0;
  let tInfer = t0; // when inference started: after the whole file is read, or with the stream
  let fetched = null;
  let source; // what completeResult reads again
  const onProgress = (a, b) => post({ type: 'progress', id, phase: 'infer', fraction: progressFraction(a, b) });
  // Inferred as Node's inferShapes(bytes) does: the nodes' attributes and the cost model come from a
  // second run, after the table (completeResult). Both stay in the worker: the page asks for a node's
  // attributes, and for the counts at its bindings (costAt).
  const options = {};
  if (url) {
    // Range requests for what the decoder reads, never the weights (js/url_source.js's
    // runOnUrlModel, as engine.inferShapesFromUrl: a byte the decoder or the scanner reads that was
    // not fetched is fetched, and both run again); the page's cancel and timeout end the fetching.
    streamed = true;
    const controller = new AbortController();
    inflight.set(id, controller);
    post({ type: 'progress', id, phase: 'read', fraction: null });
    try {
      await runOnUrlModel(url, { signal: controller.signal, timeout }, (fetchedSource) => {
        readMs = now() - t0;
        post({ type: 'progress', id, phase: 'infer', fraction: 0 });
        tInfer = now();
        result = eng.inferShapesFromSource(fetchedSource, { ...options, onProgress });
        tScan = now();
        let missed = false; // a byte the scanner needs was not fetched: fetch it, and run again
        const read = fetchedSource.read;
        try {
          model = scanModel({ ...fetchedSource, read: (pos, len) => { try { return read(pos, len); } catch (err) { missed = true; throw err; } } });
        } catch (err) {
          if (missed) throw err;
          model = null;
        }
        const d = fetchedSource.download;
        fetched = { size: d.size, requests: d.requests, bytes: d.bytesFetched, ranged: d.rangeRequests };
        source = { url: fetchedSource };
      });
    } finally {
      inflight.delete(id);
    }
  } else if (file && file.size > READ_WHOLE_MAX && typeof eng.inferShapesFromFile === 'function') {
    // Streaming engine (issue 4/7): the file never has to be in memory at once.
    streamed = true;
    post({ type: 'progress', id, phase: 'infer', fraction: 0 });
    result = await eng.inferShapesFromFile(file, { ...options, onProgress });
    post({ type: 'progress', id, phase: 'scan', fraction: null });
    tScan = now();
    try { model = scanModel(file); } catch { model = null; }
    source = { file };
  } else {
    const data = bytes ? new Uint8Array(bytes) : file.size > READ_WHOLE_MAX ? await readBlob(file, id)
      : new Uint8Array(await file.arrayBuffer());
    readMs = now() - t0;
    post({ type: 'progress', id, phase: 'infer', fraction: null });
    tInfer = now();
    // The inference alone in its task, marked: tests/browser/bench_open.mjs reads its CPU time
    // from a trace (the task's thread time), which a shared machine's load barely changes.
    performance.mark('onnx-shapes:infer');
    result = eng.inferShapes(data, options);
    tScan = now();
    await new Promise((resolve) => setTimeout(resolve, 0));
    try { model = scanModel(data); } catch { model = null; }
    source = { data };
  }
  let resolveFull;
  const full = new Promise((resolve) => { resolveFull = resolve; });
  latest = { result, file: file ?? null, full, resolveFull, sizes: sizeTable(result) };
  results.set(id, latest);
  const t1 = now();
  const info = {
    streamed,
    fetched, // URL: {size, requests, bytes, ranged}
    writeBack: typeof result.toModel === 'function' && !url,
    cost, // counted after the table (completeResult)
    inferMs: tScan - tInfer, // the engine's run (a streamed one reads the file as it goes)
    readMs, // reading the whole file (or fetching a URL's graph) before it
    openMs: tScan - t0, // from the file (or URL) to the result
    scanMs: t1 - tScan,
    version: eng.version,
  };
  const done = { type: 'done', id, name, modelJson: JSON.stringify(compactModel(model)), info };
  for (const { transfer, ...part } of resultParts(result, model, done, latest.sizes)) {
    if (part.type === 'done') {
      info.rowsMs = now() - t1; // the table's rows, in model order, and the first message
      info.doneAt = now();
    }
    post(part, transfer);
  }
  sendGraph(id, result);
  // Not awaited: a model chosen meanwhile goes first.
  completeResult(id, latest, source, cost).catch(() => post({ type: 'events', id, available: false, count: 0, ms: 0 }));
}

/** The graph view's layout worker (layout_worker.js), through a port the page gave. */
let graphPort = null;

/**
 * Sends the graph of model `id` to the layout worker right after the table's parts (before the
 * second run and the event log: completeResult), so that the first view is laid out while the
 * page adds the rows, and its text never crosses the page's main thread (a 100k-node model's is
 * 6–16 MB).
 */
function sendGraph(id, result) {
  if (!graphPort) return;
  let json;
  try {
    json = graphJson(result);
  } catch (err) {
    graphPort.postMessage({ model: id, error: err?.message ?? String(err) });
    return;
  }
  graphPort.postMessage({ model: id, json });
}

/**
 * The cost of `result` at `bindings` (a Map, or null: symbolic) for the page, counted here so that
 * the page's thread only draws it (a 6k-node export's cost model is 1.3 MB of JSON): the totals,
 * by op type, uncounted, each node's counts as columns (arrays of primitives clone fast), and the
 * live activation bytes per step of the schedule. { refused } when the model refuses the sizes.
 */
function costAt(result, bindings) {
  if (!result.costModel) return null;
  const options = bindings?.size ? { bindings } : undefined;
  let cost, profile;
  try {
    cost = result.cost(options);
    profile = result.memoryProfile(options);
  } catch (err) {
    if (err?.code === 'BINDING_REJECTED') return { refused: err.message };
    throw err;
  }
  const column = (key) => cost.nodes.map((n) => n[key]);
  return {
    total: cost.total,
    byOpType: cost.byOpType,
    uncounted: cost.uncounted,
    nodes: { macs: column('macs'), flops: column('flops'), weightBytes: column('weightBytes'), outputBytes: column('outputBytes') },
    steps: { node: profile.steps.map((s) => s.node), liveBytes: profile.steps.map((s) => s.liveBytes) },
    peakStep: profile.peakStep,
    peakBytes: profile.peakBytes,
  };
}

self.onmessage = async (ev) => {
  const msg = ev.data;
  try {
    if (msg.type === 'infer') await infer(msg);
    else if (msg.type === 'cancel') inflight.get(msg.target)?.abort(new DOMException('the page cancelled the opening', 'AbortError'));
    else if (msg.type === 'keep') {
      for (const id of results.keys()) if (id !== msg.model) results.delete(id);
    } else if (msg.type === 'node') {
      const result = await resultFor(msg).full;
      if (!result.node(msg.path, msg.index)) throw new Error(`no node ${msg.index} in graph '${msg.path}'`);
      post({ type: 'node', id: msg.id, attributes: result.nodeAttributes(msg.path, msg.index) });
    } else if (msg.type === 'cost') {
      await whenIdle(); // a model chosen meanwhile goes first
      post({ type: 'cost', id: msg.id, cost: costAt(await resultFor(msg).full, msg.bindings) });
    } else if (msg.type === 'why') {
      const log = resultFor(msg).events;
      post({ type: 'why', id: msg.id, ...(log ? log.forValue(msg.key, msg.syms) : { events: null }) });
    } else if (msg.type === 'sizesAt') {
      const { answer, transfer } = sizesAt(resultFor(msg).sizes, msg.bindings);
      post({ type: 'sizesAt', id: msg.id, sizes: answer }, transfer);
    } else if (msg.type === 'graphPort') {
      graphPort = msg.port;
    } else if (msg.type === 'toModel') {
      const { result, file } = resultFor(msg);
      if (typeof result.toModel !== 'function') throw new Error('write-back is not available');
      let out;
      try {
        out = result.toModel();
      } catch (err) {
        // A streamed result has no bytes to rewrite: read the file now and infer from memory.
        if (!file) throw err;
        const eng = await engine();
        const bytes = new Uint8Array(new FileReaderSync().readAsArrayBuffer(file));
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

/**
 * Infers warm_up.js's model twice, unless a model came first: the first model chosen then runs on
 * warm code (warm_up.js). A task of its own after 'ready' (~0.15 s CPU), while nobody has
 * chosen a file yet.
 */
function warmUp(eng) {
  if (inferring || latest) return;
  try {
    const bytes = warmUpModel(5000);
    eng.inferShapes(bytes);
    eng.inferShapes(bytes);
  } catch {
    // Only memory could fail here; the first model then runs cold.
  }
}

engine().then(
  (eng) => {
    post({
      type: 'ready',
      version: eng.version,
      streaming: typeof eng.inferShapesFromFile === 'function',
    });
    setTimeout(() => warmUp(eng), 0);
  },
  (err) => post({ type: 'error', id: null, error: { name: 'LoadError', code: 'LOAD', node: null, message: err?.message ?? String(err) } }),
);
