// Child process of label.mjs: runs the unmutated test and its mutants in onnxruntime-node (CPU) and
// reports, for each case, where it failed. A crash or a hang of onnxruntime takes down only this
// process; the parent sees which case was running ('start') and goes on without it.
//
// Messages from the parent: { tests: [name...], only?: [id...], skip: [id...] } (only: run just these
// case ids; skip: cases already answered, when a batch is resumed after a crash)
// Messages to the parent: { start: id }, then { id, stage: 'ok' | 'load' | 'run' | 'feed', error? },
// and { done: true } after the batch. The id of an unmutated test is its name.
import { createRequire } from 'node:module';
import { buildCase, enumerateMutants, loadTest } from './mutants.mjs';

const require = createRequire(import.meta.url);
const ort = require('onnxruntime-node');

const ORT_TYPES = {
  1: ['float32', Float32Array], 2: ['uint8', Uint8Array], 3: ['int8', Int8Array], 4: ['uint16', Uint16Array],
  5: ['int16', Int16Array], 6: ['int32', Int32Array], 7: ['int64', BigInt64Array], 9: ['bool', Uint8Array],
  10: ['float16', Uint16Array], 11: ['float64', Float64Array], 12: ['uint32', Uint32Array],
  13: ['uint64', BigUint64Array],
};

const SESSION_OPTIONS = {
  executionProviders: ['cpu'],
  // The kernels' own checks, not a rewritten graph: no fusion or constant folding in between.
  graphOptimizationLevel: 'disabled',
  intraOpNumThreads: 1,
  interOpNumThreads: 1,
  logSeverityLevel: 3,
};

/** ort.Tensor for a feed, or a string saying why it cannot be fed. */
function toTensor(feed) {
  if (feed.kind !== 'tensor') return `onnxruntime-node cannot feed a ${feed.kind} input`;
  if (feed.dataType === 8) return new ort.Tensor('string', feed.data, feed.dims);
  const t = ORT_TYPES[feed.dataType];
  if (!t || !feed.data) return `onnxruntime-node cannot feed element type ${feed.dataType}`;
  const [type, Ctor] = t;
  const bytes = feed.data.slice(); // own, aligned buffer
  return new ort.Tensor(type, new Ctor(bytes.buffer, 0, bytes.length / Ctor.BYTES_PER_ELEMENT), feed.dims);
}

const send = (msg) => new Promise((resolve) => process.send(msg, resolve));
const message = (e) => String(e && e.message ? e.message : e);

async function runCase(test, mutant) {
  const { model, feeds } = buildCase(test, mutant);
  const inputs = {};
  for (const f of feeds) {
    const t = toTensor(f);
    if (typeof t === 'string') return { stage: 'feed', error: t };
    inputs[f.name] = t;
  }
  let session;
  try {
    session = await ort.InferenceSession.create(model, SESSION_OPTIONS);
  } catch (e) {
    return { stage: 'load', error: message(e) };
  }
  try {
    await session.run(inputs);
    return { stage: 'ok' };
  } catch (e) {
    return { stage: 'run', error: message(e) };
  } finally {
    await session.release();
  }
}

process.on('message', async ({ tests, only, skip = [] }) => {
  const wanted = only ? new Set(only) : null;
  const skipped = new Set(skip);
  for (const name of tests) {
    const test = loadTest(name);
    const cases = [null, ...enumerateMutants(test)].filter((m) => (!wanted || wanted.has(m ? m.id : name)) && !skipped.has(m ? m.id : name));
    for (const m of cases) {
      const id = m ? m.id : name;
      await send({ start: id }); // delivered before onnxruntime can crash on it
      const r = await runCase(test, m);
      await send({ id, ...r });
    }
  }
  await send({ done: true });
});
