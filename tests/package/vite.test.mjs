// onnx-shapes in a Vite app, as users would do it: the packed tarball installed into a fresh app in
// a temp folder, `vite build` (base './'), the built dist/ served on 127.0.0.1 and opened in
// headless Chromium, which must run inferShapes on a fetched model (and inferShapesFromFile, whose
// module Web Worker Vite has to bundle) with no console errors. Also: the same app on Vite's dev
// server, and whether a build with no configuration at all works yet (reported, see below).
//
//   node tests/package/vite.test.mjs          (npm run test:package; needs dist/ built, chromium)
//
// Vite is the repository's devDependency (pinned in package.json); no network is used.
import { createRequire } from 'node:module';
import { cpSync, existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { serve } from '../../examples/web/serve.mjs';
import {
  MODEL, assert, assertEqual, browser, checks, installInto, pack, pageResult, run, tempDir,
} from './util.mjs';

const require = createRequire(import.meta.url);
const VITE_DIR = dirname(require.resolve('vite/package.json'));
const VITE_BIN = join(VITE_DIR, 'bin', 'vite.js');
const VITE_VERSION = require('vite/package.json').version;
const EXPECTED = 'present_key batch,4,total_seq,16';

const tmp = tempDir('onnx-shapes-vite-');
const app = join(tmp.dir, 'app');

// Section - The app

const INDEX_HTML = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><link rel="icon" href="data:,"><title>onnx-shapes in Vite</title></head>
<body><pre id="out">loading…</pre><script type="module" src="./main.js"></script></body>
</html>
`;

// What a user writes: import the package, fetch a model, infer. inferShapesFromFile on the main
// thread starts the package's module Web Worker (js/stream_worker.js), which Vite must bundle.
const MAIN_JS = `import { init, inferShapes, getShape, ShapeInferenceError } from 'onnx-shapes';

const out = document.getElementById('out');
try {
  const bytes = new Uint8Array(await (await fetch('./tiny_decoder.onnx')).arrayBuffer());
  const result = await inferShapes(bytes);
  const lines = [\`present_key \${result.getShape('present_key').dims.join(',')}\`];
  lines.push(\`getShape \${getShape('present_key').dims.join(',')}\`);
  const engine = await init();
  const streamed = await engine.inferShapesFromFile(new Blob([bytes]));
  lines.push(\`streamed \${streamed.getShape('present_key').dims.join(',')}\`);
  try {
    engine.inferShapes(new Uint8Array([0xff, 0xff, 0xff]));
  } catch (e) {
    lines.push(\`bad model \${e instanceof ShapeInferenceError ? e.code : e}\`);
  }
  out.textContent = lines.join('\\n');
  document.body.dataset.state = 'ready';
} catch (e) {
  out.textContent = \`\${e?.name}: \${e?.message}\`;
  document.body.dataset.state = 'error';
}
`;

// The configuration the README documents ("In a bundler"):
// - worker.format 'es': the package's stream worker (js/stream_worker.js) imports js/index.js,
//   which uses top-level await and dynamic import(); Vite's default worker format, 'iife', can hold
//   neither (Vite 7: "UMD and IIFE output formats are not supported for code-splitting builds";
//   Vite 8: INVALID_TLA_FORMAT).
// - optimizeDeps.exclude: the dev server's dependency pre-bundling moves the glue into
//   node_modules/.vite/deps/, where new URL('onnx_shapes.wasm', import.meta.url) finds no .wasm
//   (Vite 7; Vite 8 copes without it). Builds do not need it.
const VITE_CONFIG = `export default {
  base: './',
  worker: { format: 'es' },
  optimizeDeps: { exclude: ['onnx-shapes'] },
};
`;

// The explicit way, for bundlers that do not follow new URL('…', import.meta.url): import the
// .wasm's URL through the package's './onnx_shapes.wasm' export and hand it to init().
const MAIN_JS_LOCATE = MAIN_JS
  .replace("from 'onnx-shapes';\n", "from 'onnx-shapes';\nimport wasmUrl from 'onnx-shapes/onnx_shapes.wasm?url';\n")
  .replace('try {\n', 'try {\n  await init({ locateFile: () => wasmUrl });\n');

const EXPECTED_LINES = [EXPECTED, 'getShape batch,4,total_seq,16', 'streamed batch,4,total_seq,16', 'bad model PARSE_ERROR'];

function viteBuild(configText, outDir) {
  writeFileSync(join(app, 'vite.config.js'), configText);
  return run(process.execPath, [VITE_BIN, 'build', '--outDir', outDir, '--emptyOutDir'], { cwd: app });
}

/** Opens `url`, waits for the app, checks its text and that nothing logged an error. */
async function checkPage(b, url) {
  const page = await b.open(url);
  try {
    const r = await pageResult(page);
    assertEqual(r.text.split('\n'), EXPECTED_LINES, `page text (state ${r.state})`);
    assert(page.errors.length === 0, `errors in the page:\n${page.errors.join('\n')}`);
    const wasmWarnings = page.warnings.filter((w) => /wasm|WebAssembly/i.test(w));
    assert(wasmWarnings.length === 0, `wasm warnings:\n${wasmWarnings.join('\n')}`);
  } finally {
    await page.close();
  }
}

// Section - Checks

const c = checks();
let ready = false;
let b = null;
const needApp = () => assert(ready, 'needs the app (an earlier check failed)');

c.add(`install the packed tarball into a fresh app (vite ${VITE_VERSION} from the repository)`, () => {
  const packed = pack(join(tmp.dir, 'pack'));
  mkdirSync(join(app, 'public'), { recursive: true });
  const r = installInto(app, [packed.tarball], { pkg: { type: 'module' } });
  writeFileSync(join(app, 'index.html'), INDEX_HTML);
  writeFileSync(join(app, 'main.js'), MAIN_JS);
  cpSync(MODEL, join(app, 'public', 'tiny_decoder.onnx'));
  ready = true;
  return `npm pack ${packed.ms} ms, install ${r.ms} ms${r.offline ? ' (offline)' : ''}`;
});

c.add('vite build with no configuration but base (reported: known to need worker.format "es")', () => {
  needApp();
  const r = viteBuild("export default { base: './' };\n", 'dist-zero');
  if (r.status === 0) return `zero-config build WORKS now (${r.ms} ms): the README's worker.format line can go`;
  const output = r.stdout + r.stderr;
  assert(/INVALID_TLA_FORMAT|top-level await|"iife" for option "worker\.format"/.test(output),
    `zero-config build failed for an unexpected reason:\n${output}`);
  return 'fails as known: an iife worker bundle cannot hold js/index.js (top-level await, import())';
});

c.add('vite build with the documented config: the .wasm and the stream worker are emitted', () => {
  needApp();
  const r = viteBuild(VITE_CONFIG, 'dist');
  assert(r.status === 0, `vite build failed:\n${r.stdout}\n${r.stderr}`);
  const assets = readdirSync(join(app, 'dist', 'assets'));
  assert(assets.some((f) => /^onnx_shapes-.*\.wasm$/.test(f)), `no .wasm asset in ${assets.join(', ')}`);
  assert(assets.some((f) => /^stream_worker-.*\.js$/.test(f)), `no stream worker chunk in ${assets.join(', ')}`);
  assert(existsSync(join(app, 'dist', 'tiny_decoder.onnx')), 'public/ not copied');
  return `${r.ms} ms, ${assets.length} assets`;
});

c.add('the built app in headless Chromium: inferShapes on a fetched model, no console errors', async () => {
  needApp();
  assert(existsSync(join(app, 'dist', 'index.html')), 'needs the build');
  b ??= await browser();
  const server = await serve(join(app, 'dist'), 0);
  try {
    await checkPage(b, `http://127.0.0.1:${server.address().port}/`);
  } finally {
    await new Promise((r) => server.close(r));
  }
});

c.add("init({ locateFile }) with the URL of 'onnx-shapes/onnx_shapes.wasm?url': built, in Chromium", async () => {
  needApp();
  assert(MAIN_JS_LOCATE.includes('locateFile') && MAIN_JS_LOCATE.includes('?url'), 'MAIN_JS_LOCATE was not derived');
  writeFileSync(join(app, 'main.js'), MAIN_JS_LOCATE);
  try {
    const r = viteBuild(VITE_CONFIG, 'dist-url');
    assert(r.status === 0, `vite build failed:\n${r.stdout}\n${r.stderr}`);
    b ??= await browser();
    const server = await serve(join(app, 'dist-url'), 0);
    try {
      await checkPage(b, `http://127.0.0.1:${server.address().port}/`);
    } finally {
      await new Promise((res) => server.close(res));
    }
  } finally {
    writeFileSync(join(app, 'main.js'), MAIN_JS);
  }
});

c.add('the same app on the Vite dev server (documented config)', async () => {
  needApp();
  const { createServer } = await import('vite');
  const server = await createServer({
    root: app,
    configFile: join(app, 'vite.config.js'),
    logLevel: 'error',
    cacheDir: join(tmp.dir, 'vite-cache'),
    server: { host: '127.0.0.1', port: 0, strictPort: false },
  });
  try {
    await server.listen();
    b ??= await browser();
    await checkPage(b, server.resolvedUrls.local[0]);
  } finally {
    await server.close();
  }
});

const t0 = Date.now();
let code;
try {
  code = await c.run();
} finally {
  await b?.close();
}
console.log(`(${((Date.now() - t0) / 1000).toFixed(1)} s${process.env.KEEP_TMP ? `; kept ${tmp.dir}` : ''})`);
tmp.remove();
process.exit(code);
