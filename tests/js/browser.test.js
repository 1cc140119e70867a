// The browser code path of js/index.js, exercised in a node process that hides `process` (so the
// wrapper takes its non-Node branch) and stubs fetch(): the wasm must be fetched from
// dist/onnx_shapes.wasm next to the glue, or from where `locateFile` says.
import { spawnSync } from 'node:child_process';
import { pathToFileURL } from 'node:url';
import { model } from './onnx_builder.js';
import { REPO } from './helpers.js';

const MODEL = Buffer.from(model({
  inputs: [{ name: 'X', elemType: 'float', dims: ['N', 4] }],
  outputs: ['Y'],
  nodes: [{ op: 'Relu', inputs: ['X'], outputs: ['Y'] }],
})).toString('base64');

function runAsBrowser(initOptionsSource) {
  const script = `
    import { readFileSync } from 'node:fs';
    const proc = process;
    const wasm = readFileSync('dist/onnx_shapes.wasm');
    const fetched = [];
    globalThis.fetch = async (url) => {
      fetched.push(String(url));
      return new Response(wasm, { headers: { 'Content-Type': 'application/wasm' } });
    };
    delete globalThis.process;
    const api = await import('./js/index.js');
    const engine = await api.init(${initOptionsSource});
    const y = engine.inferShapes(Buffer.from(proc.env.MODEL, 'base64')).getShape('Y');
    let error = null;
    try { engine.inferShapes(new Uint8Array([255, 255, 255])); }
    catch (e) { error = { code: e.code, name: e.name, isClass: e instanceof api.ShapeInferenceError }; }
    const cjsClass = (await import('./js/errors.cjs')).default.ShapeInferenceError;
    proc.stdout.write(JSON.stringify({ fetched, y, error, usesBrowserClass: api.ShapeInferenceError !== cjsClass }) + '\\n');
  `;
  const p = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
    cwd: REPO,
    encoding: 'utf8',
    env: { ...process.env, NODE_OPTIONS: '', MODEL },
    timeout: 60000,
  });
  if (p.status !== 0) throw new Error(`node exited with ${p.status}:\n${p.stderr}`);
  return JSON.parse(p.stdout.trim().split('\n').pop());
}

const expected = (fetched) => ({
  fetched,
  y: { kind: 'tensor', elemType: 'float', dims: ['N', 4] },
  error: { code: 'PARSE_ERROR', name: 'ShapeInferenceError', isClass: true },
  usesBrowserClass: true,
});

test('without options the glue fetches dist/onnx_shapes.wasm beside itself', () => {
  expect(runAsBrowser('')).toEqual(expected([pathToFileURL(`${REPO}/dist/onnx_shapes.wasm`).href]));
});

test('locateFile decides where the wasm comes from', () => {
  const out = runAsBrowser("{ locateFile: (path) => 'https://cdn.example.org/osi/' + path }");
  expect(out).toEqual(expected(['https://cdn.example.org/osi/onnx_shapes.wasm']));
});

test('wasmBinary needs no fetch at all', () => {
  expect(runAsBrowser('{ wasmBinary: wasm }')).toEqual(expected([]));
});
