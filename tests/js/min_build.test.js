// The minified browser build (dist/js/, scripts/minify_js.mjs: what `onnx-shapes/min` and a page
// with no bundler load, and what the download figure of tests/bench/bench.mjs measures): each file
// is the minified text of the js/ module it replaces (so it cannot fall behind js/), and it
// infers what js/ infers, results, shapes, cost and errors, on the bundled examples.
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { browserSources, minified } from '../../scripts/minify_js.mjs';
import * as full from '../../js/index.js';
import * as min from '../../dist/js/index.js';

const REPO = join(import.meta.dirname, '..', '..');
const MODELS = join(REPO, 'examples', 'models');

test('dist/js/ holds the minified text of every module js/index.js can load, nothing stale', () => {
  const files = browserSources();
  // The lazily loaded and worker modules are part of the build too.
  expect(files).toEqual(expect.arrayContaining(['index.js', 'url_source.js', 'url_http.js', 'blob_source.js', 'stream_worker.js', 'file_source.js', 'errors.js']));
  for (const f of files) expect([f, readFileSync(join(REPO, 'dist', 'js', f), 'utf8')]).toEqual([f, minified(f)]);
  expect(readFileSync(join(REPO, 'dist', 'js', 'errors.cjs'), 'utf8')).toBe(readFileSync(join(REPO, 'js', 'errors.cjs'), 'utf8'));
  // No reference into dist/ left unrewritten (dist/js/ is one level below the engine's files).
  for (const f of files) expect([f, /['"]\.\.\/dist\//.test(readFileSync(join(REPO, 'dist', 'js', f), 'utf8'))]).toEqual([f, false]);
});

test('the minified build is smaller than js/ by what comments, spaces and local names take', () => {
  const size = (dir) => browserSources().reduce((n, f) => n + readFileSync(join(REPO, dir, f)).length, 0);
  expect(size('dist/js')).toBeLessThan(size('js') * 0.6);
});

test.each(readdirSync(MODELS).filter((f) => f.endsWith('.onnx')))('%s: same result from dist/js/ as from js/', async (file) => {
  const bytes = readFileSync(join(MODELS, file));
  const a = await full.inferShapes(bytes, { cost: true, attributes: true });
  const b = await min.inferShapes(bytes, { cost: true, attributes: true });
  expect(JSON.stringify(b)).toBe(JSON.stringify(a));
  expect(b.names()).toEqual(a.names());
  for (const n of a.names()) expect(b.getShape(n)).toEqual(a.getShape(n));
  expect(JSON.stringify(b.cost())).toBe(JSON.stringify(a.cost()));
  expect(JSON.stringify(b.memoryProfile())).toBe(JSON.stringify(a.memoryProfile()));
});

test('errors keep their classes and names', async () => {
  expect(existsSync(join(REPO, 'dist', 'js', 'errors.cjs'))).toBe(true);
  const engine = await min.init();
  let caught = null;
  try { engine.inferShapes(new Uint8Array([0xff, 0xff, 0xff])); } catch (e) { caught = e; }
  expect(caught).toBeInstanceOf(min.ShapeInferenceError);
  expect([caught.name, caught.code, caught.constructor.name]).toEqual(['ShapeInferenceError', 'PARSE_ERROR', 'ShapeInferenceError']);
});
