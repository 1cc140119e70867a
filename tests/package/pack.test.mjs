// The npm package as users get it: `npm pack`, installed from the tarball into a fresh project in
// a temp folder (outside the repository, so nothing resolves to the working tree), then used there:
// ESM import, require(), the subpath exports, the TypeScript types in every module mode, and the
// CLI through `npx onnx-shapes`. A negative control checks that a file missing from the package
// would be noticed.
//
//   node tests/package/pack.test.mjs        (npm run test:package; needs dist/ built)
//
// Network: none (the package is installed with --offline). The TypeScript check uses the
// repository's devDependency `typescript` (npm ci installs it); ONNX_SHAPES_TS="latest 5.4" adds
// versions installed from the registry into the consumer project (a failed install fails the check).
// KEEP_TMP=1 keeps the folders.
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, sep } from 'node:path';
import {
  MODEL, REPO, assert, assertEqual, checks, installInto, pack, run, runOk, strayNodeModules, tempDir,
} from './util.mjs';
import { browserSources } from '../../scripts/minify_js.mjs';

const EXPECTED_DIMS = ['batch', 4, 'total_seq', 16];
const TS_VERSIONS = ['devDependency', ...(process.env.ONNX_SHAPES_TS ?? '').split(/\s+/).filter(Boolean)];

const tmp = tempDir('onnx-shapes-pack-');
const proj = join(tmp.dir, 'consumer');
mkdirSync(proj);
cpSync(MODEL, join(proj, 'tiny_decoder.onnx'));
let packed = null;
let installed = false;
const needInstall = () => assert(installed, 'needs the installed package (an earlier check failed)');
let runtimeKeys = null; // what require('onnx-shapes') exports at run time, for the type check

// Section - Consumer scripts (run with cwd = the consumer project)

const ESM_SCRIPT = `
import { init, inferShapes, getShape, ShapeInferenceError } from 'onnx-shapes';
import { evaluateDim, symbolsOf } from 'onnx-shapes/expr';
import * as api from 'onnx-shapes';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const out = {};
out.resolved = fileURLToPath(import.meta.resolve('onnx-shapes'));
out.exprResolved = fileURLToPath(import.meta.resolve('onnx-shapes/expr'));
out.wasmResolved = fileURLToPath(import.meta.resolve('onnx-shapes/onnx_shapes.wasm'));
out.pkgVersion = createRequire(import.meta.url)('onnx-shapes/package.json').version;
out.keys = Object.keys(api).sort();
const min = await import('onnx-shapes/min');
out.minResolved = fileURLToPath(import.meta.resolve('onnx-shapes/min'));
out.minKeys = Object.keys(min).sort();

const result = await inferShapes(readFileSync(process.argv[2]));
out.presentKey = result.getShape('present_key');
out.minSame = JSON.stringify(await min.inferShapes(readFileSync(process.argv[2]), { cost: true }))
  === JSON.stringify(await inferShapes(readFileSync(process.argv[2]), { cost: true }));
out.moduleGetShape = getShape('present_key');
const engine = await init();
out.version = engine.version;
out.engineGetShape = engine.getShape('present_key');
try {
  engine.inferShapes(new Uint8Array([0xff, 0xff, 0xff]));
  out.error = 'no error';
} catch (e) {
  out.error = { isShapeInferenceError: e instanceof ShapeInferenceError, name: e.name, code: e.code };
}
out.evaluated = out.presentKey.dims.map((d) => evaluateDim(d, { batch: 2, total_seq: 7 }));
out.symbols = out.presentKey.dims.flatMap((d) => symbolsOf(d));
try {
  await import('onnx-shapes/js/index.js');
  out.deepImport = 'allowed';
} catch (e) {
  out.deepImport = e.code;
}
console.log(JSON.stringify(out));
`;

const CJS_SCRIPT = `
const api = require('onnx-shapes');
const { readFileSync } = require('node:fs');
(async () => {
  const out = { resolved: require.resolve('onnx-shapes'), keys: Object.keys(api).sort() };
  out.getShapeBefore = api.getShape('present_key');
  const result = await api.inferShapes(readFileSync(process.argv[2]));
  out.presentKey = result.getShape('present_key');
  out.moduleGetShape = api.getShape('present_key');
  try {
    await api.inferShapes(new Uint8Array([0xff, 0xff, 0xff]));
    out.error = 'no error';
  } catch (e) {
    out.error = { isShapeInferenceError: e instanceof api.ShapeInferenceError, code: e.code };
  }
  const esm = await import('onnx-shapes');
  out.sameClass = esm.ShapeInferenceError === api.ShapeInferenceError;
  out.sameEngine = (await esm.init()) === (await api.init());
  console.log(JSON.stringify(out));
})().catch((e) => { console.error(e); process.exit(1); });
`;

const node = (script, args = [], cwd = proj) => runOk(process.execPath, [script, ...args], { cwd });
// `npx onnx-shapes ...` as users type it (npx's own `--no` would swallow --json/--version); with
// npm_config_yes=false npx never installs anything from the registry when the bin is missing.
const npx = (args, cwd, ok = false) =>
  (ok ? runOk : run)('npx', ['onnx-shapes', ...args], { cwd, env: { npm_config_yes: 'false' } });

// Section - Checks

const c = checks();

c.add('no node_modules above the temp project (only its own can resolve onnx-shapes)', () => {
  const stray = strayNodeModules(proj);
  assert(stray.length === 0, `Node could resolve modules from ${stray.join(', ')}`);
});

c.add('npm pack: the tarball holds the runtime files and nothing else', () => {
  packed = pack(join(tmp.dir, 'pack'));
  const allowed = [/^js\/[^/]+\.(js|cjs|d\.ts|d\.cts)$/, /^dist\/onnx_shapes\.(mjs|wasm)$/, /^dist\/js\/[^/]+\.(js|cjs)$/, /^(README\.md|LICENSE|package\.json)$/];
  const extra = packed.files.filter((f) => !allowed.some((re) => re.test(f)));
  assert(extra.length === 0, `unexpected files in the package: ${extra.join(', ')}`);
  const jsDir = readdirSync(join(REPO, 'js')).filter((f) => /\.(js|cjs|d\.ts|d\.cts)$/.test(f)).map((f) => `js/${f}`);
  const minDir = [...browserSources(), 'errors.cjs'].map((f) => `dist/js/${f}`); // the minified browser build
  const required = [...jsDir, ...minDir, 'dist/onnx_shapes.mjs', 'dist/onnx_shapes.wasm', 'README.md', 'LICENSE', 'package.json'];
  const missing = required.filter((f) => !packed.files.includes(f));
  assert(missing.length === 0, `missing from the package: ${missing.join(', ')}`);
  return `${packed.files.length} files, ${(packed.size / 1024).toFixed(0)} kB packed, ${(packed.unpackedSize / 1024).toFixed(0)} kB unpacked, npm pack ${packed.ms} ms`;
});

c.add('every relative import / new URL() of a packed module is packed too', () => {
  assert(packed, 'needs the pack');
  const problems = [];
  for (const f of packed.files.filter((p) => /\.(m?js|cjs)$/.test(p))) {
    const text = readFileSync(join(REPO, f), 'utf8');
    const refs = [
      ...text.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*(?:\/\*[^*]*\*\/\s*)?|\brequire\s*\(\s*)['"](\.{1,2}\/[^'"]+)['"]/g),
      ...text.matchAll(/new URL\(\s*['"`]([^'"`$]+)['"`]\s*,\s*import\.meta\.url/g),
    ].map((m) => m[1]);
    for (const ref of refs) {
      const target = new URL(ref, `file:///${f}`).pathname.slice(1);
      if (!packed.files.includes(target)) problems.push(`${f} -> ${ref}`);
    }
  }
  assert(problems.length === 0, `references to files not in the package: ${problems.join(', ')}`);
});

c.add('npm install <tarball> into a fresh project (--offline)', () => {
  assert(packed, 'needs the pack');
  const r = installInto(proj, [packed.tarball], { pkg: { type: 'commonjs' } });
  const dir = join(proj, 'node_modules', 'onnx-shapes');
  assert(existsSync(join(dir, 'dist', 'onnx_shapes.wasm')), 'dist/onnx_shapes.wasm not installed');
  assert(existsSync(join(proj, 'node_modules', '.bin', 'onnx-shapes')), 'bin onnx-shapes not linked');
  installed = true;
  return `${r.ms} ms${r.offline ? ', offline' : ', needed the network'}`;
});

c.add('ESM: import { init, inferShapes, getShape, ShapeInferenceError } from the installed copy', () => {
  needInstall();
  writeFileSync(join(proj, 'esm.mjs'), ESM_SCRIPT);
  const out = JSON.parse(node('esm.mjs', ['tiny_decoder.onnx']).stdout);
  const inside = join(proj, 'node_modules', 'onnx-shapes') + sep;
  for (const k of ['resolved', 'exprResolved', 'wasmResolved']) {
    assert(out[k].startsWith(inside), `${k} is ${out[k]}, not in the installed copy`);
  }
  assert(out.resolved.endsWith(`${sep}js${sep}index.js`), `import resolved to ${out.resolved}`);
  assert(out.minResolved.endsWith(`${sep}dist${sep}js${sep}index.js`), `onnx-shapes/min resolved to ${out.minResolved}`);
  assertEqual(out.minKeys, out.keys, 'onnx-shapes/min exports');
  assert(out.minSame, 'onnx-shapes/min infers tiny_decoder.onnx (with its cost) differently from onnx-shapes');
  assert(out.wasmResolved.endsWith(`${sep}dist${sep}onnx_shapes.wasm`), `wasm subpath resolved to ${out.wasmResolved}`);
  assertEqual(out.pkgVersion, JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')).version, 'onnx-shapes/package.json version');
  assertEqual(out.presentKey, { kind: 'tensor', elemType: 'float', dims: EXPECTED_DIMS }, 'present_key');
  assertEqual(out.moduleGetShape, out.presentKey, 'module-level getShape');
  assertEqual(out.engineGetShape, out.presentKey, 'engine.getShape');
  assertEqual(out.error, { isShapeInferenceError: true, name: 'ShapeInferenceError', code: 'PARSE_ERROR' }, 'bad bytes');
  assertEqual(out.evaluated, [2, 4, 7, 16], 'onnx-shapes/expr evaluateDim');
  assertEqual(out.symbols, ['batch', 'total_seq'], 'onnx-shapes/expr symbolsOf');
  assertEqual(out.deepImport, 'ERR_PACKAGE_PATH_NOT_EXPORTED', 'deep import of a non-exported path');
  runtimeKeys = { esm: out.keys };
  return `engine ${out.version}; exports ${out.keys.join(', ')}`;
});

c.add('CommonJS: require("onnx-shapes") from the installed copy, same class and engine as ESM', () => {
  needInstall();
  writeFileSync(join(proj, 'cjs.cjs'), CJS_SCRIPT);
  const out = JSON.parse(node('cjs.cjs', ['tiny_decoder.onnx']).stdout);
  const expected = join(proj, 'node_modules', 'onnx-shapes', 'js', 'index.cjs');
  assertEqual(out.resolved, expected, 'require.resolve');
  assertEqual(out.getShapeBefore, null, 'getShape before any inference');
  assertEqual(out.presentKey?.dims, EXPECTED_DIMS, 'present_key dims');
  assertEqual(out.moduleGetShape, out.presentKey, 'module-level getShape');
  assertEqual(out.error, { isShapeInferenceError: true, code: 'PARSE_ERROR' }, 'bad bytes');
  assert(out.sameClass, 'require and import give different ShapeInferenceError classes');
  assert(out.sameEngine, 'require and import give different engines');
  if (runtimeKeys) assertEqual(out.keys, runtimeKeys.esm, 'require() keys vs import keys');
  runtimeKeys = { ...runtimeKeys, cjs: out.keys };
});

c.add('CLI: npx onnx-shapes tiny_decoder.onnx prints the table', () => {
  needInstall();
  const r = npx(['tiny_decoder.onnx'], proj, true);
  const lines = r.stdout.split('\n');
  assert(/^value\s+op\s+type and shape$/.test(lines[0]), `header: ${lines[0]}`);
  assert(/^present_key\s+\S+\s+float \[batch, 4, total_seq, 16\]$/m.test(r.stdout), `no present_key row in:\n${r.stdout}`);
  return `${lines.filter(Boolean).length - 1} rows, ${r.ms} ms`;
});

c.add('CLI: npx onnx-shapes --json tiny_decoder.onnx', () => {
  needInstall();
  const r = npx(['--json', 'tiny_decoder.onnx'], proj, true);
  const json = JSON.parse(r.stdout);
  assertEqual(json.values?.present_key?.dims, EXPECTED_DIMS, 'present_key in --json');
});

c.add('CLI: --version, and exit codes 3 (missing file) and 1 (bad model)', () => {
  needInstall();
  const v = npx(['--version'], proj, true);
  assert(v.stdout.trim().length > 0, 'empty --version');
  const missing = npx(['no_such_model.onnx'], proj);
  assertEqual(missing.status, 3, `exit status for a missing file (stderr: ${missing.stderr.trim()})`);
  writeFileSync(join(proj, 'bad.onnx'), Buffer.from([0xff, 0xff, 0xff]));
  const bad = npx(['bad.onnx'], proj);
  assertEqual(bad.status, 1, `exit status for a bad model (stderr: ${bad.stderr.trim()})`);
  assert(/PARSE_ERROR/.test(bad.stderr), `stderr: ${bad.stderr}`);
  return `version ${v.stdout.trim()}`;
});

c.add('negative control: the same project without dist/onnx_shapes.wasm fails', () => {
  needInstall();
  const broken = join(tmp.dir, 'broken');
  cpSync(proj, broken, { recursive: true, verbatimSymlinks: true });
  rmSync(join(broken, 'node_modules', 'onnx-shapes', 'dist', 'onnx_shapes.wasm'));
  const r = run(process.execPath, ['esm.mjs', 'tiny_decoder.onnx'], { cwd: broken });
  assert(r.status !== 0, 'the ESM script still worked without the .wasm: it does not load the installed copy');
  assert(/onnx_shapes\.wasm/.test(r.stderr), `unexpected failure: ${r.stderr}`);
  const cli = npx(['tiny_decoder.onnx'], broken);
  assert(cli.status !== 0, 'the CLI still worked without the .wasm');
});

// TypeScript: every runtime export must be declared, in ESM (.mts), CommonJS (.cts, `import x =
// require()` too) and bundler resolution, and the types must not be `any` (@ts-expect-error lines).
function tsSources(keys) {
  const names = keys.esm ?? keys.cjs ?? ['init', 'inferShapes', 'getShape', 'ShapeInferenceError'];
  const body = `
const engine: Engine = await init();
const result: ShapeInferenceResult = engine.inferShapes(new Uint8Array(0), { decoder: 'nanopb' });
const t: ValueType | null = result.getShape('present_key');
const dims: readonly Dim[] | null = t?.kind === 'tensor' ? t.dims : null;
const r2: Promise<ShapeInferenceResult> = inferShapes(new ArrayBuffer(0));
const e = new ShapeInferenceError('m', { code: 'CYCLE' });
const isErr: boolean = e instanceof ShapeInferenceError && e instanceof Error;
const code: string = e.code;
const g: ValueType | null = getShape('x');
engine.registerShapeFunction('com.example', 'Op', ({ inputs, attributes, opset }) => [inputs[0], null]);
// @ts-expect-error init() resolves to an Engine, not a number (the types are not 'any')
const wrong: number = await init();
// @ts-expect-error inferShapes takes bytes, not a string
engine.inferShapes('model.onnx');
void [${names.join(', ')}, dims, r2, isErr, code, g, wrong];`;
  const importLine = `import { ${names.join(', ')} } from 'onnx-shapes';
import type { Dim, Engine, ShapeInferenceResult, ValueType } from 'onnx-shapes';`;
  const expr = `
import { evaluateDim, symbolsOf, parse, evaluate, parseBindings, type DimExpr } from 'onnx-shapes/expr';
const n: number | bigint | null = evaluateDim('(H+1)//2', { H: 7 });
const huge: number | bigint | null = evaluateDim('N*3', { N: 9007199254740993n });
const s: string[] = symbolsOf(null);
const tree: DimExpr = parse('a+1');
const f: number | bigint | null = evaluate(tree, new Map([['a', 1]]));
const m: Map<string, number | bigint> = parseBindings('batch=1').map;
// @ts-expect-error evaluateDim returns number | bigint | null
const bad: string = evaluateDim(1, new Map());
void [n, huge, s, f, m, bad];`;
  return {
    'esm.mts': `${importLine}\n${expr}\n${body}\nexport {};\n`,
    'bundler.ts': `${importLine}\n${expr}\n${body}\nexport {};\n`,
    'cjs.cts': `${importLine}\nasync function main(): Promise<void> {${body}\n}\nvoid main;\n`,
    'readme.mts': readmeExample(),
    'cjs_require.cts': `import onnx = require('onnx-shapes');
async function main(): Promise<void> {
  const engine: onnx.Engine = await onnx.init();
  const t: onnx.ValueType | null = engine.inferShapes(new Uint8Array(0)).getShape('y');
  const err: onnx.ShapeInferenceError = new onnx.ShapeInferenceError('m', { code: 'CYCLE' });
  // @ts-expect-error getShape takes a name
  onnx.getShape(1);
  void [t, err, ${(keys.cjs ?? names).map((k) => `onnx.${k}`).join(', ')}];
}
void main;
`,
  };
}

/**
 * The README's registerShapeFunction example (its ```js block under "Custom operators"), with the
 * diagnostics' documented types, as a strict TypeScript module: what a new user pastes first.
 */
function readmeExample() {
  const readme = readFileSync(join(REPO, 'README.md'), 'utf8');
  const blocks = [...readme.matchAll(/```js\n([\s\S]*?)```/g)].map((m) => m[1]);
  const example = blocks.find((b) => b.includes('engine.registerShapeFunction('));
  assert(example, 'README.md has no ```js block with engine.registerShapeFunction(');
  return `import { init } from 'onnx-shapes';
const engine = await init();
${example}
const d = engine.inferShapes(new Uint8Array(0)).diagnostics[0];
const where: string | null = d.node;
const index: number | null = d.nodeIndex;
// @ts-expect-error nodeIndex may be null (a diagnostic about the model, not a node)
const notNull: number = d.nodeIndex;
void [where, index, notNull];
export {};
`;
}

const TS_CONFIGS = {
  node16: { module: 'node16', moduleResolution: 'node16', files: ['esm.mts', 'cjs.cts', 'cjs_require.cts', 'readme.mts'] },
  nodenext: { module: 'nodenext', moduleResolution: 'nodenext', files: ['esm.mts', 'cjs.cts', 'cjs_require.cts', 'readme.mts'] },
  bundler: { module: 'esnext', moduleResolution: 'bundler', files: ['bundler.ts'] },
};

for (const version of TS_VERSIONS) {
  c.add(`TypeScript ${version}: types resolve for ${Object.keys(TS_CONFIGS).join(', ')} (tsc --noEmit)`, () => {
    needInstall();
    const dir = join(tmp.dir, `ts-${version}`);
    mkdirSync(dir);
    const local = version === 'devDependency';
    const install = installInto(dir, [packed.tarball, ...(local ? [] : [`typescript@${version}`])], { pkg: { type: 'commonjs' } });
    const tsDir = local ? join(REPO, 'node_modules/typescript') : join(dir, 'node_modules/typescript');
    const tsVersion = JSON.parse(readFileSync(join(tsDir, 'package.json'), 'utf8')).version;
    for (const [name, text] of Object.entries(tsSources(runtimeKeys ?? {}))) writeFileSync(join(dir, name), text);
    const failures = [];
    for (const [mode, { files, ...options }] of Object.entries(TS_CONFIGS)) {
      const config = {
        compilerOptions: { ...options, target: 'es2022', strict: true, noEmit: true, skipLibCheck: false, types: [] },
        files,
      };
      writeFileSync(join(dir, `tsconfig.${mode}.json`), JSON.stringify(config, null, 2));
      const r = run(process.execPath, [join(tsDir, 'bin/tsc'), '-p', `tsconfig.${mode}.json`], { cwd: dir });
      if (r.status !== 0) failures.push(`${mode}:\n${r.stdout}${r.stderr}`);
    }
    assert(failures.length === 0, `tsc ${tsVersion} failed\n${failures.join('\n')}`);
    return `typescript ${tsVersion} (install ${install.ms} ms)`;
  });
}

const t0 = Date.now();
const code = await c.run();
console.log(`(${((Date.now() - t0) / 1000).toFixed(1)} s${process.env.KEEP_TMP ? `; kept ${tmp.dir}` : ''})`);
tmp.remove();
process.exit(code);
