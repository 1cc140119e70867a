// The page's side of the inference worker (worker.js): starts it once, and asks it for work by
// message id (inference, write-back, the graph for the graph view, a node's attributes), with
// progress callbacks.
import { now } from './page_util.js';

let worker = null;
let nextId = 1;
const pending = new Map();

let workerReady = null;
let eventsHandler = null;
let partsHandler = null;

/** Calls fn(msg) for each {type: 'events'} message: the event log the worker records after a result. */
export function onEvents(fn) {
  eventsHandler = fn;
}

/** Calls fn(msg) for each part of a result that follows its `done` message (worker.js resultParts). */
export function onParts(fn) {
  partsHandler = fn;
}

/** Resolves with the worker's `ready` message (engine version), rejects if it cannot start. */
export const whenReady = () => workerReady;

export function startWorker() {
  const url = globalThis.__ONNX_SHAPES_WORKER_URL__ ?? new URL('./worker.js', import.meta.url);
  worker = new Worker(url, { type: globalThis.__ONNX_SHAPES_WORKER_TYPE__ ?? 'module', name: 'onnx-shapes' });
  workerReady = new Promise((resolve, reject) => {
    worker.addEventListener('message', function first(ev) {
      if (ev.data.type === 'ready') { worker.removeEventListener('message', first); resolve(ev.data); }
      else if (ev.data.type === 'error' && ev.data.id === null) { reject(ev.data.error); }
    });
    worker.addEventListener('error', (ev) => reject({ code: 'LOAD', message: ev.message || 'the worker could not start' }));
  });
  worker.addEventListener('message', (ev) => {
    const msg = ev.data;
    if (msg.type === 'events') { eventsHandler?.(msg); return; }
    if (['meta', 'diagnostics', 'symbols', 'rows', 'nodes', 'sizes', 'end'].includes(msg.type)) { partsHandler?.(msg); return; }
    const p = pending.get(msg.id);
    if (!p) return;
    if (msg.type === 'progress') p.onProgress?.(msg);
    else {
      msg.receivedAt = now();
      pending.delete(msg.id);
      if (msg.type === 'error') p.reject(msg.error);
      else p.resolve(msg);
    }
  });
  return workerReady;
}

/** Sends `message` to the worker: { id, promise } (its answer, or its error). */
export function request(message, onProgress, transfer) {
  const id = nextId++;
  const promise = new Promise((resolve, reject) => {
    pending.set(id, { resolve, reject, onProgress });
    worker.postMessage({ ...message, id }, transfer || []);
  });
  return { id, promise };
}

/** Sends `message` to the worker; resolves with its answer, rejects with its error. */
export const ask = (message, onProgress, transfer) => request(message, onProgress, transfer).promise;

/** Tells the worker something that has no answer (cancel, keep, the graph view's port). */
export function tell(message, transfer) {
  worker.postMessage(message, transfer || []);
}
