// Every command of examples/README.md, run as written there (the browser side of the worker example
// is tests/package/worker.test.mjs).
//
//   node tests/package/examples.test.mjs       (npm run test:package; needs dist/ built)
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO, assert, checks, runOk } from './util.mjs';

const c = checks();

c.add('examples/README.md lists a command for every example folder', () => {
  const readme = readFileSync(join(REPO, 'examples/README.md'), 'utf8');
  for (const cmd of ['node examples/node/infer.mjs examples/models/tiny_decoder.onnx', 'node examples/web/serve.mjs',
    'node examples/custom-op/register.mjs', '/examples/worker/', '/examples/web/']) {
    assert(readme.includes(cmd), `examples/README.md does not mention ${cmd}`);
  }
});

c.add('node examples/node/infer.mjs examples/models/tiny_decoder.onnx', () => {
  const r = runOk(process.execPath, ['examples/node/infer.mjs', 'examples/models/tiny_decoder.onnx'], { cwd: REPO });
  assert(/^present_key\s+\S+\s+float \[batch, 4, total_seq, 16\]$/m.test(r.stdout), `output:\n${r.stdout}`);
});

c.add('node examples/custom-op/register.mjs', () => {
  const r = runOk(process.execPath, ['examples/custom-op/register.mjs'], { cwd: REPO });
  const expected = [
    /^tokens\s+com\.example\.Patchify\s+float \[N, \(H\/\/16\)\*\(W\/\/16\), 768\]$/m,
    /^act\s+Relu\s+float \[N, \(H\/\/16\)\*\(W\/\/16\), 768\]$/m,
    /^mask\s+com\.example\.ZerosLike\s+float16 \[N, \(H\/\/16\)\*\(W\/\/16\), 768\]$/m,
    /without registerShapeFunction: tokens \?; 2 UNSUPPORTED_OP diagnostics/,
  ];
  for (const re of expected) assert(re.test(r.stdout), `no ${re} in:\n${r.stdout}`);
  assert(!/^note:/m.test(r.stdout), `diagnostics with the shape functions registered:\n${r.stdout}`);
});

c.add('node examples/web/serve.mjs serves both pages, the module and the wasm', async () => {
  const child = spawn(process.execPath, ['examples/web/serve.mjs', REPO, '0'], { cwd: REPO, stdio: ['ignore', 'pipe', 'pipe'], timeout: 120_000 });
  try {
    const base = await new Promise((resolve, reject) => {
      let out = '';
      child.stdout.on('data', (d) => {
        out += d;
        const m = /http:\/\/127\.0\.0\.1:\d+/.exec(out);
        if (m) resolve(m[0]);
      });
      child.on('exit', (code) => reject(new Error(`serve.mjs exited ${code}: ${out}`)));
      setTimeout(() => reject(new Error(`serve.mjs printed no URL: ${out}`)), 10000);
    });
    const types = {
      '/examples/web/': 'text/html', '/examples/worker/': 'text/html', '/examples/worker/worker.js': 'text/javascript',
      '/js/index.js': 'text/javascript', '/dist/onnx_shapes.mjs': 'text/javascript', '/dist/onnx_shapes.wasm': 'application/wasm',
    };
    for (const [path, type] of Object.entries(types)) {
      const res = await fetch(base + path);
      assert(res.ok, `GET ${path}: HTTP ${res.status}`);
      assert(res.headers.get('content-type').startsWith(type), `GET ${path}: ${res.headers.get('content-type')}`);
      await res.arrayBuffer();
    }
  } finally {
    child.kill();
  }
});

process.exit(await c.run());
