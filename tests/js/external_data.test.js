// Models saved with their weights in separate files (onnx's save_model(..., save_as_external_data=
// True): one .onnx.data file, or one file per tensor) infer from the .onnx alone: the engine never
// needs the weights, so inferShapesFromPath and the CLI never open the data files (an fs spy
// preloaded into a child process records every file opened), inferShapesFromUrl requests only the
// .onnx, the shapes are those of the same model saved inline, and deleting the data files changes
// nothing.
import { spawnSync } from 'node:child_process';
import { createServer } from 'node:http';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { init } from '../../js/index.js';
import { REPO } from './helpers.js';

const PYTHON = '/usr/bin/python3'; // Debian's, with python3-onnx

// A small transformer-like block with real weights: MatMul/Add/LayerNorm-ish ops, a Reshape whose
// shape is an initializer, and 200 extra 4 KiB biases so that "one file per tensor" is 200+ files.
const GENERATE = String.raw`
import sys, os, numpy as np, onnx
from onnx import helper, TensorProto, numpy_helper
out = sys.argv[1]
rng = np.random.default_rng(0)
inits, nodes = [], []
def w(name, *shape):
    inits.append(numpy_helper.from_array(rng.standard_normal(shape).astype(np.float32), name))
w('W1', 64, 256); w('B1', 256); w('W2', 256, 64)
inits.append(numpy_helper.from_array(np.array([0, 0, 8, 8], dtype=np.int64), 'shape'))
nodes += [helper.make_node('MatMul', ['X', 'W1'], ['h1']), helper.make_node('Add', ['h1', 'B1'], ['h2']),
          helper.make_node('Relu', ['h2'], ['h3']), helper.make_node('MatMul', ['h3', 'W2'], ['h4']),
          helper.make_node('Reshape', ['h4', 'shape'], ['h5'])]
for i in range(200):
    w(f'b{i}', 64, 16)  # unused: they only make files
nodes.append(helper.make_node('Transpose', ['h5'], ['Y'], perm=[0, 2, 3, 1]))
g = helper.make_graph(nodes, 'g', [helper.make_tensor_value_info('X', TensorProto.FLOAT, ['batch', 'seq', 64])],
                      [helper.make_tensor_value_info('Y', TensorProto.FLOAT, None)], inits)
m = helper.make_model(g, opset_imports=[helper.make_opsetid('', 17)])
os.makedirs(out, exist_ok=True)
onnx.save_model(m, os.path.join(out, 'inline.onnx'))
for sub, kw in [('one_file', dict(all_tensors_to_one_file=True, location='model.onnx.data')),
                ('many_files', dict(all_tensors_to_one_file=False)),
                ('all_external', dict(all_tensors_to_one_file=True, location='model.onnx.data', size_threshold=0))]:
    d = os.path.join(out, sub)
    os.makedirs(d)
    onnx.save_model(onnx.load(os.path.join(out, 'inline.onnx')), os.path.join(d, 'model.onnx'),
                    save_as_external_data=True, convert_attribute=True, **kw)
`;

// Preloaded with --import into a child process: records the path of every file opened.
const SPY = `
import fs from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
const log = process.env.OSI_OPEN_LOG;
const append = fs.appendFileSync.bind(fs);
const record = (p) => append(log, String(p instanceof URL ? p.pathname : p) + '\\n');
for (const name of ['openSync', 'open', 'readFileSync', 'readFile', 'createReadStream']) {
  const orig = fs[name];
  fs[name] = function (p, ...rest) { if (typeof p !== 'number') record(p); return orig.call(this, p, ...rest); };
}
for (const name of ['open', 'readFile']) {
  const orig = fs.promises[name];
  fs.promises[name] = function (p, ...rest) { if (typeof p !== 'number') record(p); return orig.call(this, p, ...rest); };
}
syncBuiltinESMExports();
`;

let dir;
let engine;
beforeAll(async () => {
  engine = await init();
  dir = mkdtempSync(join(tmpdir(), 'osi-extdata-'));
  const r = spawnSync(PYTHON, ['-c', GENERATE, dir], { encoding: 'utf8', timeout: 300_000 });
  if (r.status !== 0) throw new Error(`generating the models failed (${PYTHON} with onnx is required):\n${r.stderr}`);
  writeFileSync(join(dir, 'spy.mjs'), SPY);
}, 60000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const dataFiles = (sub) => readdirSync(join(dir, sub)).filter((f) => f !== 'model.onnx');

/** Runs `script` (an ES module body) in a child node with the spy; returns { stdout, opened }. */
function spied(args) {
  const log = join(dir, `opened-${Math.random().toString(36).slice(2)}.txt`);
  writeFileSync(log, '');
  const r = spawnSync(process.execPath, ['--import', join(dir, 'spy.mjs'), ...args], {
    encoding: 'utf8', env: { ...process.env, OSI_OPEN_LOG: log }, maxBuffer: 64 << 20, timeout: 300_000,
  });
  if (r.status !== 0) throw new Error(`child failed (${r.status}): ${r.stderr}`);
  return { stdout: r.stdout, opened: readFileSync(log, 'utf8').split('\n').filter(Boolean) };
}

test('the saved sets are what they claim: weights outside the .onnx', () => {
  expect(statSync(join(dir, 'one_file', 'model.onnx')).size).toBeLessThan(statSync(join(dir, 'inline.onnx')).size / 10);
  expect(dataFiles('one_file')).toEqual(['model.onnx.data']);
  expect(dataFiles('many_files').length).toBeGreaterThan(200);
});

describe.each(['one_file', 'many_files'])('%s', (sub) => {
  const model = () => join(dir, sub, 'model.onnx');

  test('inferShapesFromPath and inferShapes: the inline model\'s shapes', () => {
    const inline = engine.inferShapesFromPath(join(dir, 'inline.onnx')).values;
    expect(inline.Y).toEqual({ kind: 'tensor', elemType: 'float', dims: ['batch', 8, 8, 'seq'] });
    expect(engine.inferShapesFromPath(model()).values).toEqual(inline);
    expect(engine.inferShapes(readFileSync(model())).values).toEqual(inline);
  });

  test('inferShapesFromPath never opens a data file (fs spy in a child process)', () => {
    const script = `import { init } from ${JSON.stringify(join(REPO, 'js', 'index.js'))};
const e = await init();
process.stdout.write(JSON.stringify(e.inferShapesFromPath(${JSON.stringify(model())}).values));`;
    const { stdout, opened } = spied(['--input-type=module', '-e', script]);
    expect(JSON.parse(stdout).Y.dims).toEqual(['batch', 8, 8, 'seq']);
    expect(opened).toContain(model()); // the spy sees what the engine opens
    const data = new Set(dataFiles(sub).map((f) => join(dir, sub, f)));
    expect(opened.filter((p) => data.has(p))).toEqual([]);
  });

  test('the CLI never opens a data file, with or without --stream, and prints the inline shapes', () => {
    const inline = spawnSync(process.execPath, [join(REPO, 'js', 'cli.js'), '--json', join(dir, 'inline.onnx')], { encoding: 'utf8', timeout: 300_000 });
    const data = new Set(dataFiles(sub).map((f) => join(dir, sub, f)));
    for (const flags of [[], ['--stream']]) {
      const { stdout, opened } = spied([join(REPO, 'js', 'cli.js'), '--json', ...flags, model()]);
      expect(JSON.parse(stdout).values).toEqual(JSON.parse(inline.stdout).values);
      expect(opened).toContain(model());
      expect(opened.filter((p) => data.has(p))).toEqual([]);
    }
  });
});

test('inferShapesFromUrl on the .onnx requests nothing else', async () => {
  const requested = [];
  const server = createServer((req, res) => {
    const name = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    requested.push(name);
    let bytes;
    try {
      bytes = readFileSync(join(dir, name));
    } catch {
      res.writeHead(404).end();
      return;
    }
    const m = /^bytes=(\d+)-(\d+)$/.exec(req.headers.range ?? '');
    const start = m ? Number(m[1]) : 0;
    const end = m ? Math.min(Number(m[2]) + 1, bytes.length) : bytes.length;
    res.writeHead(m ? 206 : 200, m ? { 'Content-Range': `bytes ${start}-${end - 1}/${bytes.length}` } : {});
    res.end(bytes.subarray(start, end));
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  try {
    const inline = engine.inferShapesFromPath(join(dir, 'inline.onnx')).values;
    for (const sub of ['one_file', 'many_files']) {
      const r = await engine.inferShapesFromUrl(`http://127.0.0.1:${server.address().port}/${sub}/model.onnx`);
      expect(r.values).toEqual(inline);
    }
    expect([...new Set(requested)]).toEqual(['/one_file/model.onnx', '/many_files/model.onnx']);
  } finally {
    server.close();
  }
});

test('with the data files deleted, the same shapes', () => {
  const inline = engine.inferShapesFromPath(join(dir, 'inline.onnx')).values;
  for (const sub of ['one_file', 'many_files']) {
    for (const f of dataFiles(sub)) rmSync(join(dir, sub, f));
    expect(dataFiles(sub)).toEqual([]);
    expect(engine.inferShapesFromPath(join(dir, sub, 'model.onnx')).values).toEqual(inline);
  }
});

test('a shape tensor stored outside too (size_threshold=0): its content is unknown, never guessed', () => {
  // The Reshape's target shape [0, 0, 8, 8] is in the data file, which the engine does not read:
  // the dims it decides are unknown, the rest as inline.
  const inline = engine.inferShapesFromPath(join(dir, 'inline.onnx')).values;
  const ext = engine.inferShapesFromPath(join(dir, 'all_external', 'model.onnx')).values;
  expect(Object.keys(ext).sort()).toEqual(Object.keys(inline).sort());
  for (const [name, t] of Object.entries(ext)) {
    const want = inline[name];
    expect(t.elemType).toBe(want.elemType);
    if (t.dims === null) continue;
    expect(t.dims.length).toBe(want.dims.length);
    t.dims.forEach((d, i) => { if (d !== null) expect(d).toEqual(want.dims[i]); });
  }
  expect(ext.h4.dims).toEqual(['batch', 'seq', 64]);
  expect(ext.h5.dims === null || ext.h5.dims.every((d, i) => d === null || d === inline.h5.dims[i])).toBe(true);
  expect(ext.h5).not.toEqual(inline.h5); // the content really was needed
  expect(existsSync(join(dir, 'all_external', 'model.onnx.data'))).toBe(true);
});
