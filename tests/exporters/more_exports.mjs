// More real exports against onnxruntime and PyTorch's profiler (a benchmark, not CI: README "How good
// it is"). Models: tests/exporters/make_more_exports.py (torchaudio, torchvision at opsets 11/14/16,
// hand-written LLM idioms), cached in build/more-exports/<hash of the generators>/.
//
//   node tests/exporters/more_exports.mjs [-v] [--json] [--ci] [--dir DIR] [MODEL...]
//     --ci: only the CI set (CI_MODELS, cached in build/more-exports-ci/); --json: the summary, the
//     per-model counts and the text as one JSON object (what tests/js/more_exports.test.js reads).
//
// Per model: every value against onnxruntime at two bindings (torchvision.mjs's judge: exact,
// unresolved, wrong); false alarms (a SHAPE_MISMATCH / INVALID_MODEL diagnostic, or result.evaluate
// refusing a binding onnxruntime runs); models onnxruntime refuses at a binding (an export that traced
// a size in): whether result.evaluate refuses it too, naming a requirement; and the MACs of Conv,
// ConvTranspose, MatMul, Gemm, Einsum, LSTM, GRU and RNN at each binding against torch.profiler's count
// (conv2d and the mm family, LSTM/GRU/RNN gates through addmm, other convolutions from the modules'
// attributes). Exit 1 on a wrong value, a false alarm,
// a broken binding the engine accepts, or MACs off by more than 0.5%.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { init } from '../../js/index.js';
import { makeFeeds, PYTHON, REPO, rng } from './differential.mjs';
import { formatReport, runTorchvision } from './torchvision.mjs';

const HERE = dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);
// torch.profiler counts the gate matmuls of nn.LSTM/GRU/RNN (they run through addmm): so do these.
const MAC_OPS = new Set(['Conv', 'ConvTranspose', 'MatMul', 'Gemm', 'Einsum', 'LSTM', 'GRU', 'RNN']);
const GENERATORS = ['make_more_exports.py', 'make_torchvision.py', 'make_models.py', '../cost/torch_reference.py'];

// The CI set (tests/js/more_exports.test.js): the models that export in about a second each, one
// or two variants of each idiom module and audio model, and the two broken exports.
export const CI_MODELS = ['idioms_shapes_op11_dict', 'idioms_shapes_op13_list', 'idioms_sequence_op13_inputs',
  'idioms_sequence_op14_list', 'idioms_signal_op17_dict', 'idioms_signal_op11_dict', 'llm_idioms_arange_op11_inputs',
  'llm_idioms_triu_op14_list', 'broken_idioms_repeat_interleave_op17_dict', 'broken_conformer_lengths_max_op17_dict',
  'audio_conformer_op16_inputs', 'audio_conv_tasnet_op16_list', 'audio_deepspeech_op14_inputs',
  'audio_tacotron2_parts_op17_inputs'];

/** The models' folder (build/more-exports[-ci]/<hash of the generators>), generated when absent. */
export function ensureModels(dir, names = []) {
  if (!dir) {
    const h = createHash('sha256');
    for (const f of GENERATORS) h.update(readFileSync(join(HERE, f)));
    h.update(names.join(','));
    dir = join(REPO, 'build', names.length ? 'more-exports-ci' : 'more-exports', h.digest('hex').slice(0, 16));
  }
  if (existsSync(join(dir, 'manifest.json'))) return dir;
  const tmp = `${dir}.tmp-${process.pid}`;
  mkdirSync(tmp, { recursive: true });
  const r = spawnSync(PYTHON, [join(HERE, 'make_more_exports.py'), tmp, ...names],
    { stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8', timeout: 3_600_000, maxBuffer: 64 * 1024 * 1024 });
  if (r.status !== 0) throw new Error(`make_more_exports.py failed (${r.error?.message ?? `exit ${r.status}`}):\n${r.stderr}`);
  renameSync(tmp, dir);
  return dir;
}

async function ortRuns(ort, dir, entry) {
  let session;
  try {
    session = await ort.InferenceSession.create(join(dir, entry.file), { logSeverityLevel: 3 });
  } catch (e) {
    return entry.bindings.map(() => `at load: ${e.message.split('\n')[0].replace(/\s+/g, ' ').slice(0, 200)}`);
  }
  const rand = rng(777);
  const runs = [];
  for (const b of entry.bindings) {
    try {
      await session.run(makeFeeds(ort, entry.inputs, { ...b }, rand));
      runs.push(null);
    } catch (e) {
      runs.push(e.message.split('\n')[0].replace(/\s+/g, ' ').slice(0, 200));
    }
  }
  await session.release?.();
  return runs;
}

/**
 * ortRuns at one binding in a child process: onnxruntime 1.30 dies of SIGFPE on some empty sizes
 * (a Conformer at time 0), which counts as refusing them.
 */
function ortRunsApart(dir, entry, binding) {
  const r = spawnSync(process.execPath, [fileURLToPath(import.meta.url), '--ort-child', dir, entry.name, JSON.stringify(binding)],
    { encoding: 'utf8', timeout: 300_000, env: { ...process.env, NODE_OPTIONS: '' } });
  if (r.status === 0 && r.stdout.trim() === 'ok') return [null];
  return [r.status === 0 ? r.stdout.trim() : `onnxruntime died (${r.signal ?? `exit ${r.status}`})`];
}

async function ortChild([dir, name, binding]) {
  const entry = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')).find((m) => m.name === name);
  const [err] = await ortRuns(require('onnxruntime-node'), dir, { ...entry, bindings: [JSON.parse(binding)] });
  console.log(err ?? 'ok');
}

function engineMacs(result, bindings) {
  const cost = result.cost({ bindings });
  let macs = 0n;
  for (const n of cost.nodes) {
    if (n.domain === '' && MAC_OPS.has(n.opType)) {
      if (n.macs === null || n.macs === undefined) return null;
      if (!/^\d+$/.test(String(n.macs))) return String(n.macs); // data-dependent (a count after NMS): not comparable
      macs += BigInt(n.macs);
    }
  }
  return macs;
}

/**
 * The whole check of the models in `dir` (names or substrings `only`): { report (torchvision.mjs's),
 * summary: counts, text: the per-model lines }.
 */
export async function checkMoreExports(dir, { only = [], verbose = false } = {}) {
  const ort = require('onnxruntime-node');
  const engine = await init();
  const report = await runTorchvision(dir, { only, engine, ort });
  const out = [formatReport(report, { verbose })];
  const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8'))
    .filter((m) => !only.length || only.some((o) => m.name.includes(o)));
  const failedExports = existsSync(join(dir, 'failed.json')) ? JSON.parse(readFileSync(join(dir, 'failed.json'), 'utf8')) : [];
  let edges = 0, edgesExact = 0;
  let falseAlarms = 0, brokenBindings = 0, brokenCaught = 0, macCases = 0, macBad = 0, worst = 0;
  out.push('\nper model: false alarms, bindings onnxruntime refuses, MACs against torch.profiler');
  for (const entry of manifest) {
    const result = engine.inferShapes(readFileSync(join(dir, entry.file)), { cost: true });
    const runs = await ortRuns(ort, dir, entry);
    const lines = [];
    const alarms = result.diagnostics.filter((d) => d.code === 'SHAPE_MISMATCH' || d.code === 'INVALID_MODEL');
    entry.bindings.forEach((b, i) => {
      let refusal = null;
      try {
        result.evaluate(b);
      } catch (e) {
        refusal = `${e.name}: ${e.message.split('\n')[0].slice(0, 200)}`;
      }
      if (runs[i] === null) {
        if (refusal) {
          falseAlarms++;
          lines.push(`  FALSE ALARM at ${JSON.stringify(entry.sizes[i])}: onnxruntime runs it, engine: ${refusal}`);
        }
        if (entry.macs?.[i] != null) {
          const got = engineMacs(result, b);
          if (typeof got === 'string') {
            lines.push(`  MACs at ${JSON.stringify(entry.sizes[i])}: torch ${entry.macs[i]}, engine data-dependent (${got.slice(0, 60)}): not compared`);
            return;
          }
          const err = got === null ? Infinity : Math.abs(Number(got) - entry.macs[i]) / entry.macs[i];
          macCases++;
          worst = Math.max(worst, err);
          if (!(err <= 0.005)) macBad++;
          if (!(err <= 0.005) || verbose) lines.push(`  MACs at ${JSON.stringify(entry.sizes[i])}: torch ${entry.macs[i]}, engine ${got} (${(100 * err).toFixed(3)}%)`);
        }
      } else {
        brokenBindings++;
        if (refusal || alarms.length) brokenCaught++;
        lines.push(`  onnxruntime refuses ${JSON.stringify(entry.sizes[i])}: ${runs[i]}\n    engine: ${refusal ?? (alarms.length ? `diagnostic ${alarms[0].message}` : 'ACCEPTS (missed)')}`);
      }
    });
    // The domain's edges: at each end of a symbol's range (the other sizes as in the first binding
    // onnxruntime runs) onnxruntime runs; one past it, it fails (else the domain is a false alarm).
    const base = entry.bindings[runs.indexOf(null)];
    for (const [sym, range] of Object.entries(base ? result.domain?.symbols ?? {} : {})) {
      if (!Object.hasOwn(base, sym)) continue;
      for (const [edge, past] of [['min', -1], ['max', 1]]) {
        if (range[edge] === undefined || range[edge] === null || (edge === 'min' && range.min <= 0)) continue;
        const inside = ortRunsApart(dir, entry, { ...base, [sym]: range[edge] });
        const outside = ortRunsApart(dir, entry, { ...base, [sym]: range[edge] + past });
        edges++;
        if (outside[0] === null) {
          falseAlarms++;
          lines.push(`  FALSE ALARM: domain ${sym} ${edge} ${range[edge]}, but onnxruntime runs ${sym} = ${range[edge] + past}`);
        } else if (inside[0] !== null) {
          lines.push(`  note: domain ${sym} ${edge} ${range[edge]}: onnxruntime fails there too (${inside[0].slice(0, 120)})`);
        } else {
          edgesExact++;
        }
      }
    }
    if (alarms.length && runs.every((r) => r === null)) {
      falseAlarms += alarms.length;
      for (const a of alarms) lines.push(`  FALSE ALARM diagnostic ${a.code} node ${a.node}: ${a.message}`);
    }
    out.push(`${entry.name}${lines.length ? `\n${lines.join('\n')}` : ': ok'}`);
  }
  for (const f of failedExports) out.push(`export failed (torch 1.13): ${f.name}: ${f.error}`);
  const t = report.totals;
  out.push(`\nsummary: ${t.models} models, ${t.values} values: ${t.exact} exact, ${t.bounded} bounded, ` +
    `${t.unresolved} unresolved, ${t.wrong} wrong; ${falseAlarms} false alarms; ` +
    `${brokenCaught}/${brokenBindings} bindings onnxruntime refuses also refused by the engine; ` +
    `MACs ${macCases - macBad}/${macCases} within 0.5% (worst ${(100 * worst).toFixed(3)}%); ` +
    `domain edges ${edgesExact}/${edges} where onnxruntime runs at the edge and fails past it`);
  const summary = { models: t.models, values: t.values, exact: t.exact, bounded: t.bounded, unresolved: t.unresolved,
    wrong: t.wrong, errors: t.errors, falseAlarms, brokenBindings, brokenCaught, macCases, macBad, worstMacError: worst,
    edges, edgesExact, failedExports: failedExports.length };
  return { report, summary, text: out.join('\n') };
}

async function main() {
  const args = process.argv.slice(2);
  const flag = (f) => (args.includes(f) ? (args.splice(args.indexOf(f), 1), true) : false);
  const verbose = flag('-v');
  const json = flag('--json');
  const ci = flag('--ci');
  const di = args.indexOf('--dir');
  const given = di >= 0 ? args.splice(di, 2)[1] : null;
  const dir = ensureModels(given, ci ? CI_MODELS : []);
  const { report, summary, text } = await checkMoreExports(dir, { only: args, verbose });
  if (json) console.log(JSON.stringify({ summary, models: report.models.map((m) => ({ name: m.name, values: m.values,
    exact: m.exact, bounded: m.bounded, unresolved: m.unresolved, wrong: m.wrong })), text }));
  else console.log(text);
  const s = summary;
  process.exitCode = s.wrong || s.falseAlarms || s.brokenCaught < s.brokenBindings || s.macBad ? 1 : 0;
}

// Run as a script (or as the --ort-child of one), not when imported (npm_models.mjs).
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const childAt = process.argv.indexOf('--ort-child');
  (childAt > 0 ? ortChild(process.argv.slice(childAt + 1)) : main()).catch((e) => {
    console.error(e);
    process.exit(2);
  });
}
