// Sliding windows over tiny inputs, against onnxruntime (README "Windows over tiny inputs").
//
//   node tests/exporters/windows.mjs [--json] [-v]
//
// One-node models, written here (tests/js/onnx_builder.js): MaxPool (opset 12), AveragePool
// (11; 19 with dilations), LpPool (11; 18 with dilations or ceil_mode), Conv and ConvTranspose
// (11), over X [B, 1, n] with every mode (pads 0/0, 1/0, 0/1, 1/1, 2/2, auto_pad SAME_UPPER,
// SAME_LOWER, VALID), kernel 1..5, stride 1..3, dilation 1..2, ceil_mode 0/1 for the pools, and
// the same on the first axis of X [B, 1, n, 7] for MaxPool, AveragePool and Conv (dilation 1).
// onnxruntime runs each at n = 0..7 with B = 1 and B = 0 (ConvTranspose not at n = 0: it crashes
// the process there). The engine is judged at each of those bindings:
//   - on the model with symbolic B and n, by result.evaluate (a RequirementError = refused);
//   - on the model with B = 1 and n written in (a SHAPE_MISMATCH / INVALID_MODEL = refused).
// wrong: onnxruntime runs, the engine gives another size; falseAlarm: onnxruntime runs, the engine
// refuses; missed: onnxruntime refuses, the engine gives a size (counted by onnxruntime's message).
// Exit status 1 on a wrong size or a false alarm.
import { createRequire } from 'node:module';
import { resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { model } from '../js/onnx_builder.js';
import { REPO } from './differential.mjs';

const require = createRequire(import.meta.url);
const PAD_MODES = ['p00', 'p10', 'p01', 'p11', 'p22', 'SAME_UPPER', 'SAME_LOWER', 'VALID'];
const POOLS = ['MaxPool', 'AveragePool', 'LpPool'];

/** Every case: { name, op, k, s, d, c, mode, rank }. */
export function windowCases() {
  const cases = [];
  const add = (op, k, s, d, c, mode, rank) => cases.push({ name: `${op}_r${rank}_k${k}_s${s}_d${d}_c${c}_${mode}`, op, k, s, d, c, mode, rank });
  for (const op of [...POOLS, 'Conv', 'ConvTranspose'])
    for (let k = 1; k <= 5; k++)
      for (let s = 1; s <= 3; s++)
        for (const d of [1, 2])
          for (const mode of PAD_MODES)
            for (const c of POOLS.includes(op) ? [0, 1] : [0]) add(op, k, s, d, c, mode, 1);
  for (const op of ['MaxPool', 'AveragePool', 'Conv'])
    for (let k = 1; k <= 5; k++)
      for (let s = 1; s <= 3; s++)
        for (const mode of ['p00', 'p11', 'p01', 'SAME_UPPER', 'SAME_LOWER', 'VALID'])
          for (const c of op === 'Conv' ? [0] : [0, 1]) add(op, k, s, 1, c, mode, 2);
  return cases;
}

/** The model of case `w` over X of dims `xDims` ([B, 1, n] or [B, 1, n, 7]). */
export function windowModel(w, xDims) {
  const ones = (v) => Array(w.rank).fill(v);
  const attrs = { kernel_shape: ones(w.k), strides: ones(w.s) };
  if (w.d !== 1) attrs.dilations = ones(w.d);
  if (w.c) attrs.ceil_mode = 1;
  if (w.mode.startsWith('p')) {
    const [b, e] = [Number(w.mode[1]), Number(w.mode[2])];
    if (b || e) attrs.pads = [...ones(b), ...ones(e)];
  } else {
    attrs.auto_pad = w.mode;
  }
  const conv = w.op.startsWith('Conv');
  let opset = { MaxPool: 12, AveragePool: w.d > 1 ? 19 : 11, LpPool: w.d > 1 || w.c ? 18 : 11 }[w.op] ?? 11;
  const kernel = Array(w.k ** w.rank).fill(1);
  return model({
    opset,
    inputs: [{ name: 'x', elemType: 'float', dims: xDims }],
    outputs: ['y'],
    initializers: conv ? [{ name: 'w', dims: [1, 1, ...ones(w.k)], floatData: kernel }] : [],
    nodes: [{ op: w.op, inputs: conv ? ['x', 'w'] : ['x'], outputs: ['y'], attrs }],
  });
}

const shortError = (msg) => {
  const m = String(msg).replace(/\s+/g, ' ');
  for (const [re, label] of [[/Dilation not supported/, 'SAME conv with dilation'], [/padding values must be non-negative/, 'SAME pool, negative pad'],
    [/Pad should be smaller than kernel/, 'pad >= kernel'], [/Computed output dimension is <= 0/, 'ConvTranspose output <= 0']]) {
    if (re.test(m)) return label;
  }
  return m.replace(/.*?(\] |: )/, '').slice(0, 60);
};

export async function runWindows({ engine, ort } = {}) {
  const index = await import(pathToFileURL(resolve(REPO, 'js/index.js')).href);
  engine ??= await index.init();
  ort ??= require('onnxruntime-node');
  const { RequirementError } = index;
  const totals = { cases: 0, refusedAtLoad: 0, bindings: 0, ortRuns: 0, exact: 0, wrong: 0, falseAlarm: 0, missed: 0, refused: 0 };
  const constant = { exact: 0, wrong: 0, falseAlarm: 0, missed: 0, refused: 0 };
  const problems = [];
  const missedBy = {};
  for (const w of windowCases()) {
    totals.cases++;
    const sym = ['B', 1, 'n', ...(w.rank === 2 ? [7] : [])];
    const bytes = windowModel(w, sym);
    let session;
    try {
      session = await ort.InferenceSession.create(bytes, { logSeverityLevel: 4 });
    } catch (err) {
      totals.refusedAtLoad++; // the engine may still accept these attributes: not counted
      continue;
    }
    const result = engine.inferShapes(bytes);
    for (const B of [1, 0]) {
      for (let n = 0; n <= 7; n++) {
        if (w.op === 'ConvTranspose' && n === 0) continue;
        totals.bindings++;
        const dims = [B, 1, n, ...(w.rank === 2 ? [7] : [])];
        let rt;
        try {
          const out = await session.run({ x: new ort.Tensor('float32', new Float32Array(dims.reduce((a, b) => a * b, 1)), dims) });
          rt = { runs: true, size: Number(out.y.dims[2]) };
        } catch (err) {
          rt = { runs: false, error: shortError(err.message) };
        }
        let size = null;
        try {
          size = result.evaluate({ B, n }).values.y[2];
        } catch (err) {
          if (!(err instanceof RequirementError)) throw err;
        }
        const where = `${w.name} at B=${B}, n=${n}`;
        if (rt.runs) {
          totals.ortRuns++;
          if (size === null) totals.falseAlarm++, problems.push(`${where}: onnxruntime gives ${rt.size}, the engine refuses`);
          else if (size !== rt.size) totals.wrong++, problems.push(`${where}: onnxruntime gives ${rt.size}, the engine ${size}`);
          else totals.exact++;
        } else if (size === null) totals.refused++;
        else totals.missed++, (missedBy[rt.error] = (missedBy[rt.error] ?? 0) + 1);
        if (B !== 1) continue;
        // The same size written into the model.
        const fixed = engine.inferShapes(windowModel(w, dims));
        const alarm = fixed.diagnostics.find((d) => d.code === 'SHAPE_MISMATCH' || d.code === 'INVALID_MODEL');
        const got = fixed.getShape('y')?.dims?.[2];
        if (rt.runs) {
          if (alarm) constant.falseAlarm++, problems.push(`${where} (constant): onnxruntime gives ${rt.size}, the engine: ${alarm.message}`);
          else if (got !== rt.size) constant.wrong++, problems.push(`${where} (constant): onnxruntime gives ${rt.size}, the engine ${got}`);
          else constant.exact++;
        } else if (alarm) constant.refused++;
        else constant.missed++;
      }
    }
  }
  return { totals, constant, missedBy, problems };
}

export function formatWindows({ totals: t, constant: c, missedBy, problems }) {
  return [
    `${t.cases} one-node models (${t.refusedAtLoad} refused by onnxruntime at load: a pad >= kernel), ${t.bindings} bindings, ` +
      `onnxruntime runs ${t.ortRuns}`,
    `symbolic (result.evaluate): ${t.exact} exact, ${t.wrong} wrong, ${t.falseAlarm} false alarms; where onnxruntime ` +
      `refuses: ${t.refused} refused too, ${t.missed} given a size (${Object.entries(missedBy).map(([k, v]) => `${k}: ${v}`).join(', ')})`,
    `constant (B = 1): ${c.exact} exact, ${c.wrong} wrong, ${c.falseAlarm} false alarms; where onnxruntime refuses: ${c.refused} ` +
      `refused too, ${c.missed} given a size`,
    ...problems.slice(0, 40).map((p) => `  problem: ${p}`),
  ].join('\n');
}

async function main() {
  const report = await runWindows();
  console.log(process.argv.includes('--json') ? JSON.stringify(report) : formatWindows(report));
  process.exit(report.totals.wrong || report.totals.falseAlarm || report.constant.wrong || report.constant.falseAlarm ? 1 : 0);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) await main();
