// The package as users load it (through package.json "exports"), in fresh node processes:
// require('onnx-shapes') gives the same API as import, with the very same ShapeInferenceError class.
import { spawnSync } from 'node:child_process';
import { model } from './onnx_builder.js';
import { REPO } from './helpers.js';

const MODEL = Buffer.from(model({
  inputs: [{ name: 'X', elemType: 'float', dims: ['N', 4] }],
  outputs: ['Y'],
  nodes: [{ op: 'Relu', inputs: ['X'], outputs: ['Y'] }],
})).toString('base64');

function run(args, script) {
  const p = spawnSync(process.execPath, [...args, '-e', script], {
    cwd: REPO,
    encoding: 'utf8',
    env: { ...process.env, NODE_OPTIONS: '', MODEL },
    timeout: 60000,
  });
  if (p.status !== 0) throw new Error(`node exited with ${p.status}:\n${p.stderr}`);
  return JSON.parse(p.stdout.trim().split('\n').pop());
}

test('require("onnx-shapes") works', () => {
  const out = run([], `
    const osi = require('onnx-shapes');
    (async () => {
      const before = osi.getShape('Y');
      const bytes = Buffer.from(process.env.MODEL, 'base64');
      const r = await osi.inferShapes(bytes);
      const engine = await osi.init();
      let code = null, sameClass = false;
      try { engine.inferShapes(new Uint8Array([255, 255, 255])); }
      catch (e) { code = e.code; sameClass = e instanceof osi.ShapeInferenceError; }
      console.log(JSON.stringify({
        keys: Object.keys(osi).sort(), before, y: r.getShape('Y'), latest: osi.getShape('Y'),
        same: engine === await osi.init(), code, sameClass,
      }));
    })().catch((e) => { console.error(e); process.exit(1); });
  `);
  expect(out).toEqual({
    keys: ['RequirementError', 'ShapeInferenceError', 'getShape', 'inferShapes', 'inferShapesFromFile', 'inferShapesFromPath', 'inferShapesFromUrl', 'init'],
    before: null,
    y: { kind: 'tensor', elemType: 'float', dims: ['N', 4] },
    latest: { kind: 'tensor', elemType: 'float', dims: ['N', 4] },
    same: true,
    code: 'PARSE_ERROR',
    sameClass: true,
  });
});

test('import and require share one ShapeInferenceError class and one default engine', () => {
  const out = run(['--input-type=module'], `
    import { createRequire } from 'node:module';
    import * as esm from 'onnx-shapes';
    const cjs = createRequire(import.meta.url)('onnx-shapes');
    const bytes = Buffer.from(process.env.MODEL, 'base64');
    await esm.inferShapes(bytes);
    console.log(JSON.stringify({
      sameClass: esm.ShapeInferenceError === cjs.ShapeInferenceError,
      sameEngine: (await esm.init()) === (await cjs.init()),
      cjsSeesEsmResult: cjs.getShape('Y'),
    }));
  `);
  expect(out).toEqual({
    sameClass: true,
    sameEngine: true,
    cjsSeesEsmResult: { kind: 'tensor', elemType: 'float', dims: ['N', 4] },
  });
});

test('the wasm subpath export resolves to dist/onnx_shapes.wasm', () => {
  const out = run([], `console.log(JSON.stringify(require.resolve('onnx-shapes/onnx_shapes.wasm')))`);
  expect(out).toBe(`${REPO}/dist/onnx_shapes.wasm`);
});
