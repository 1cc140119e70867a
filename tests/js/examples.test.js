// The bundled example models: the tiny LLM decoder layer must infer with every intermediate in
// terms of the model's own symbols (batch, seq, past_seq, total_seq), the KV-cache outputs as
// total_seq; the committed .onnx files must be what examples/models/make_models.py generates.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { init } from '../../js/index.js';
import { REPO } from './helpers.js';

const MODELS = join(REPO, 'examples', 'models');
const model = (name) => readFileSync(join(MODELS, `${name}.onnx`));

let engine;
beforeAll(async () => {
  engine = await init();
});

// Every symbol a dim expression mentions (identifiers, not function names).
const symbolsOf = (dim) =>
  typeof dim === 'string' ? [...dim.matchAll(/[A-Za-z_][A-Za-z0-9_]*(?!\s*\()/g)].map((m) => m[0]) : [];

describe('tiny decoder layer with a KV cache', () => {
  test('every value is fully known, in terms of the declared symbols only', () => {
    const r = engine.inferShapes(model('tiny_decoder'));
    const allowed = new Set(['batch', 'seq', 'past_seq', 'total_seq']);
    expect(r.diagnostics).toEqual([]);
    expect(r.names().length).toBeGreaterThan(50);
    for (const name of r.names()) {
      const t = r.getShape(name);
      expect(t.kind).toBe('tensor');
      expect(t.elemType).not.toBeNull();
      expect(t.dims).not.toBeNull();
      for (const d of t.dims) {
        expect(d).not.toBeNull();
        for (const s of symbolsOf(d)) expect([name, s, allowed.has(s)]).toEqual([name, s, true]);
      }
    }
  });

  test('the cache grows to total_seq, and attention scores span it', () => {
    const r = engine.inferShapes(model('tiny_decoder'));
    expect(r.getShape('present_key').dims).toEqual(['batch', 4, 'total_seq', 16]);
    expect(r.getShape('present_value').dims).toEqual(['batch', 4, 'total_seq', 16]);
    expect(r.getShape('scores').dims).toEqual(['batch', 4, 'seq', 'total_seq']);
    expect(r.getShape('q_t').dims).toEqual(['batch', 4, 'seq', 16]);
    expect(r.getShape('ctx').dims).toEqual(['batch', 'seq', 64]);
    expect(r.getShape('logits').dims).toEqual(['batch', 'seq', 100]);
    // The head split's target shape: 4 heads of 16 (examples/models/make_models.py).
    expect(r.getShape('split_shape')).toEqual({ kind: 'tensor', elemType: 'int64', dims: [4], value: ['batch', 'seq', 4, 16] });
    expect(r.constraints.equal).toEqual([['past_seq+seq', 'total_seq']]);
  });
});

test('cnn_dynamic: spatial dims are formulas of H and W', () => {
  const r = engine.inferShapes(model('cnn_dynamic'));
  expect(r.getShape('c1').dims).toEqual(['N', 8, '(H+1)//2', '(W+1)//2']);
  expect(r.getShape('p1').dims).toEqual(['N', 8, '(H+1)//4', '(W+1)//4']);
  expect(r.getShape('c2').dims).toEqual(['N', 16, '(H+1)//4-2', '(W+1)//4-2']);
  expect(r.getShape('logits').dims).toEqual(['N', 10]);
});

const python = '/usr/bin/python3'; // Debian's, with python3-onnx (.ci/setup.sh installs it)
test('committed example models are what the generator writes', () => {
  const dir = mkdtempSync(join(tmpdir(), 'osi-examples-'));
  try {
    const run = spawnSync(python, [join(MODELS, 'make_models.py'), dir], { encoding: 'utf8', timeout: 600_000 });
    expect({ status: run.status, error: run.error?.message, stderr: run.status === 0 ? '' : run.stderr })
      .toEqual({ status: 0, error: undefined, stderr: '' });
    for (const name of ['tiny_decoder', 'cnn_dynamic', 'control_flow']) {
      expect(Buffer.compare(readFileSync(join(dir, `${name}.onnx`)), model(name))).toBe(0);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
