#!/usr/bin/env node
// Builds the demo as ONE self-contained HTML file that works opened from disk (file://):
//   npm run build:web            → dist/onnx-shapes-demo.html
//   node examples/web/build.mjs [out.html]
//
// Inlined: styles.css, the page script (app.js and the modules it imports, expr.js), the worker (worker.js +
// model_scan.js + js/index.js + js/errors.js + dist/onnx_shapes.mjs, started from a blob: URL), the
// graph view's layout worker (@dagrejs/dagre's dist/dagre.min.js + layout_worker.js and the
// modules it imports, bundled as a classic script, also from a blob: URL), the wasm (base64, handed to the engine as wasmBinary) and the
// bundled example models (base64).
//
// The ES modules are joined by a deliberately small bundler: each module becomes an async factory
// (top-level await keeps working) and its import/export statements are rewritten. It understands
// the forms this repository uses (named/default/namespace imports, string-literal dynamic imports,
// export function/class/const/let/var/default/{...}) and fails loudly on anything else.
import { readFileSync, writeFileSync, existsSync, mkdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = dirname(fileURLToPath(import.meta.url));
const REPO = resolve(HERE, '../..');
const OUT = resolve(process.argv[2] || join(REPO, 'dist/onnx-shapes-demo.html'));
const EXAMPLES = ['tiny_decoder', 'cnn_dynamic', 'control_flow'];

function need(path, hint) {
  if (!existsSync(path)) {
    console.error(`build:web: missing ${relative(REPO, path)}${hint ? ` (${hint})` : ''}`);
    process.exit(1);
  }
  return path;
}

// Section - Mini bundler

/** Bundles the module graph of `entry` into one module text with no import/export statements. */
export function bundle(entry) {
  const modules = new Map(); // id → transformed factory text
  const order = [];
  const idOf = (abs) => relative(REPO, abs).split('\\').join('/');

  function resolveSpec(spec, from) {
    if (!spec.startsWith('./') && !spec.startsWith('../')) return null; // bare (node:fs/...): left alone
    return resolve(dirname(from), spec);
  }

  function load(abs) {
    const id = idOf(abs);
    if (modules.has(id)) return id;
    modules.set(id, null);
    let src = readFileSync(need(abs), 'utf8');
    const exportsList = []; // [exportedName, localExpr]

    // Re-exports (export { a, b as c } from './x.js'): the names are read from the module and exported.
    src = src.replace(/^\s*export\s*\{([^}]*)\}\s*from\s*(['"])([^'"]+)\2\s*;?/gm, (m, list, q, spec) => {
      const target = resolveSpec(spec, abs);
      if (!target) throw new Error(`${id}: re-export from bare specifier ${spec}`);
      const dep = load(target);
      const parts = [];
      for (const n of list.split(',').map((x) => x.trim()).filter(Boolean)) {
        const as = /^([\w$]+)\s+as\s+([\w$]+)$/.exec(n);
        const local = `__reexport_${as ? as[2] : n}`;
        parts.push(`${as ? as[1] : n}: ${local}`);
        exportsList.push([as ? as[2] : n, local]);
      }
      return `const { ${parts.join(', ')} } = await __load(${JSON.stringify(dep)});`;
    });

    // Static imports.
    src = src.replace(/^\s*import\s+([^'";]+?)\s+from\s+(['"])([^'"]+)\2\s*;?/gm, (m, clause, q, spec) => {
      const target = resolveSpec(spec, abs);
      if (!target) throw new Error(`${id}: static import of bare specifier ${spec}`);
      const dep = load(target);
      const parts = [];
      let rest = clause.trim();
      const ns = /^\*\s+as\s+([A-Za-z_$][\w$]*)$/.exec(rest);
      if (ns) return `const ${ns[1]} = await __load(${JSON.stringify(dep)});`;
      const def = /^([A-Za-z_$][\w$]*)\s*(?:,\s*(.*))?$/.exec(rest);
      if (def && !rest.startsWith('{')) {
        parts.push(`default: ${def[1]}`);
        rest = (def[2] || '').trim();
      }
      if (rest) {
        const named = /^\{([^}]*)\}$/.exec(rest);
        if (!named) throw new Error(`${id}: cannot bundle import clause "${clause}"`);
        for (const n of named[1].split(',').map((x) => x.trim()).filter(Boolean)) {
          const as = /^([\w$]+)\s+as\s+([\w$]+)$/.exec(n);
          parts.push(as ? `${as[1]}: ${as[2]}` : n);
        }
      }
      return `const { ${parts.join(', ')} } = await __load(${JSON.stringify(dep)});`;
    });

    // Dynamic imports with a string literal (comments allowed before it).
    src = src.replace(/\bimport\(\s*(?:\/\*[^*]*\*\/\s*)*(['"])([^'"]+)\1\s*\)/g, (m, q, spec) => {
      const target = resolveSpec(spec, abs);
      if (!target) return m;
      if (target.endsWith('.cjs')) return `Promise.reject(new Error(${JSON.stringify(`${spec} is not bundled (CommonJS)`)}))`;
      if (!existsSync(target)) return `Promise.reject(new Error(${JSON.stringify(`${spec} is not bundled`)}))`;
      return `__load(${JSON.stringify(load(target))})`;
    });

    // Exports.
    src = src.replace(/^export\s+(async\s+function\*?|function\*?|class)\s+([A-Za-z_$][\w$]*)/gm, (m, kw, name) => {
      exportsList.push([name, name]);
      return `${kw} ${name}`;
    });
    src = src.replace(/^export\s+(const|let|var)\s+([A-Za-z_$][\w$]*)/gm, (m, kw, name) => {
      exportsList.push([name, name]);
      return `${kw} ${name}`;
    });
    src = src.replace(/^export\s+default\s+/gm, () => {
      exportsList.push(['default', '__default']);
      return 'const __default = ';
    });
    src = src.replace(/^export\s*\{([^}]*)\}\s*;?/gm, (m, list) => {
      for (const n of list.split(',').map((x) => x.trim()).filter(Boolean)) {
        const as = /^([\w$]+)\s+as\s+([\w$]+)$/.exec(n);
        exportsList.push(as ? [as[2], as[1]] : [n, n]);
      }
      return '';
    });
    // import.meta.url of a blob: module is not a base URL (new URL('x.wasm', import.meta.url)
    // throws): give each module a stable pseudo URL instead. Nothing is fetched from it (the wasm
    // is handed over as wasmBinary).
    src = src.replace(/\bimport\.meta\.url\b/g, JSON.stringify(`https://onnx-shapes.invalid/${id}`));
    const left = /^\s*(import\s[^(]|export\s)/m.exec(src);
    if (left) throw new Error(`${id}: cannot bundle statement near "${src.slice(left.index, left.index + 60)}"`);

    const ret = exportsList.map(([k, v]) => `${JSON.stringify(k)}: ${v}`).join(', ');
    modules.set(id, `// ${id}\n__def(${JSON.stringify(id)}, async () => {\n${src}\nreturn { ${ret} };\n});`);
    order.push(id);
    return id;
  }

  const entryId = load(resolve(entry));
  return [
    '// Bundled by examples/web/build.mjs',
    'const __defs = new Map(), __cache = new Map();',
    'const __def = (id, f) => __defs.set(id, f);',
    'const __load = (id) => { let p = __cache.get(id); if (!p) { p = __defs.get(id)(); __cache.set(id, p); } return p; };',
    ...order.map((id) => modules.get(id)),
    // No top-level await and no import/export left: the text also runs as a classic script,
    // which is what the single-file worker needs (Chromium refuses module workers from blob:
    // URLs on file:// pages, whose origin is opaque).
    `__load(${JSON.stringify(entryId)}).catch((e) => { setTimeout(() => { throw e; }); });`,
  ].join('\n');
}

// Section - The HTML file

function inlineScriptText(text, what) {
  // Inside <script>, only "</script" (any case) and "<!--" could end or confuse the element.
  const safe = text.replace(/<\/(script)/gi, '<\\/$1').replace(/<!--/g, '<\\!--');
  if (/<\/script/i.test(safe)) throw new Error(`${what}: cannot inline`);
  return safe;
}

function build() {
  need(join(REPO, 'dist/onnx_shapes.mjs'), 'run `npm run build` first');
  const wasm = readFileSync(need(join(REPO, 'dist/onnx_shapes.wasm'), 'run `npm run build` first'));
  const html = readFileSync(join(HERE, 'index.html'), 'utf8');
  const css = readFileSync(join(HERE, 'styles.css'), 'utf8');
  const app = bundle(join(HERE, 'app.js'));
  const worker = `globalThis.__ONNX_SHAPES_WASM__ = ${JSON.stringify(wasm.toString('base64'))};\n${bundle(join(HERE, 'worker.js'))}`;
  // The layout library defines the global `dagre`, so layout_worker.js does not import it.
  const dagre = readFileSync(need(join(REPO, 'node_modules/@dagrejs/dagre/dist/dagre.min.js'), 'run `npm ci`'), 'utf8')
    .replace(/^\/\/# sourceMappingURL=.*$/m, '');
  const layout = `${dagre}\n${bundle(join(HERE, 'layout_worker.js'))}`;
  const examples = {};
  for (const name of EXAMPLES) {
    examples[name] = readFileSync(need(join(REPO, `examples/models/${name}.onnx`))).toString('base64');
  }
  const boot = `
// Single-file build: the worker, the wasm and the examples are inline.
globalThis.__ONNX_SHAPES_WORKER_TYPE__ = 'classic';
globalThis.__ONNX_SHAPES_WORKER_URL__ = URL.createObjectURL(new Blob([document.getElementById('onnx-shapes-worker').textContent], { type: 'text/javascript' }));
globalThis.__ONNX_SHAPES_LAYOUT_URL__ = URL.createObjectURL(new Blob([document.getElementById('onnx-shapes-layout').textContent], { type: 'text/javascript' }));
globalThis.__ONNX_SHAPES_EXAMPLES__ = JSON.parse(document.getElementById('onnx-shapes-examples').textContent);`;

  let out = html;
  const replaceOnce = (from, to) => {
    const i = out.indexOf(from);
    if (i < 0 || out.indexOf(from, i + 1) >= 0) throw new Error(`index.html: expected exactly one ${from}`);
    out = out.slice(0, i) + to + out.slice(i + from.length);
  };
  replaceOnce('<link rel="stylesheet" href="styles.css">', `<style>\n${css.replace(/<\/style/gi, '<\\/style')}</style>`);
  replaceOnce('<script type="module" src="app.js"></script>', [
    `<script type="text/plain" id="onnx-shapes-worker">${inlineScriptText(worker, 'worker')}</script>`,
    `<script type="text/plain" id="onnx-shapes-layout">${inlineScriptText(layout, 'layout worker')}</script>`,
    `<script type="application/json" id="onnx-shapes-examples">${JSON.stringify(examples)}</script>`,
    `<script>${boot}</script>`,
    `<script type="module">\n${inlineScriptText(app, 'app')}\n</script>`,
  ].join('\n'));
  out = out.replace('<html lang="en">', '<html lang="en" data-build="single-file">');
  mkdirSync(dirname(OUT), { recursive: true });
  writeFileSync(OUT, out);
  console.log(`wrote ${relative(process.cwd(), OUT) || OUT} (${(statSync(OUT).size / 1024).toFixed(0)} KiB)`);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) build();
