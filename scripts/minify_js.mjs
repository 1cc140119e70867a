#!/usr/bin/env node
// The minified browser build of js/: dist/js/<same name>.js for every module js/index.js may load
// in a browser or Node, errors.cjs copied for Node. Each file is minified on its own with
// esbuild, so the module graph stays the one of js/ (the URL and blob modules still load on first
// use, the stream worker is still a file of its own); the two specifiers that reach into dist/
// ('../dist/onnx_shapes.mjs', '../dist/onnx_shapes.wasm') are rewritten to '../', where dist/js/ finds them.
// js/ stays what Node and bundlers import; dist/js/ is for a page that imports the library with
// no bundler (README "In a bundler, a plain page, a worker").
//
//   node scripts/minify_js.mjs        (part of npm run build)
import { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { transformSync } from 'esbuild';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const SRC = join(REPO, 'js');
const OUT = join(REPO, 'dist/js');

/**
 * The js/ modules of the browser build: those index.js reaches through its imports, static and
 * dynamic, and the workers it starts (new URL('./x.js', import.meta.url)).
 */
export function browserSources(entry = 'index.js', seen = new Set()) {
  if (seen.has(entry)) return [...seen].sort();
  seen.add(entry);
  const text = readFileSync(join(SRC, entry), 'utf8');
  for (const m of text.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|new URL\(\s*)'\.\/([\w.-]+\.js)'/g)) browserSources(m[1], seen);
  return [...seen].sort();
}

/** One module's minified text (what dist/js/<file> must hold). */
export function minified(file) {
  const text = readFileSync(join(SRC, file), 'utf8').replaceAll("'../dist/", "'../");
  // keepNames: class and function names stay what users see in a console or a stack trace.
  return transformSync(text, { loader: 'js', format: 'esm', minify: true, keepNames: true, legalComments: 'none', sourcefile: `js/${file}` }).code;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  rmSync(OUT, { recursive: true, force: true });
  mkdirSync(OUT, { recursive: true });
  for (const file of browserSources()) writeFileSync(join(OUT, file), minified(file));
  copyFileSync(join(SRC, 'errors.cjs'), join(OUT, 'errors.cjs'));
  console.log(`minify_js: ${browserSources().length} modules -> dist/js/`);
}
