// Finding the first broken node from JS and the CLI: result.firstError, the requirements operators
// put on symbolic dims (constraints.requirements), and `onnx-shapes --strict`.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { init } from '../../js/index.js';
import { REPO } from './helpers.js';
import { model } from './onnx_builder.js';

const CLI = join(REPO, 'js', 'cli.js');

// Two MatMuls: the first needs M == 3 of its symbolic weight, the second (its weight transposed,
// multiplied by a [6, 2] matrix) needs M == 6: it is the node that breaks the model.
const twoMatMuls = (second = [6, 2]) => model({
  opset: 17,
  inputs: [
    { name: 'x', elemType: 'float', dims: ['N', 3] },
    { name: 'w', elemType: 'float', dims: ['M', 4] },
    { name: 'u', elemType: 'float', dims: second },
  ],
  outputs: ['y', 'z'],
  nodes: [
    { op: 'MatMul', name: 'first', inputs: ['x', 'w'], outputs: ['y'] },
    { op: 'Transpose', name: 't', inputs: ['w'], outputs: ['wt'] },
    { op: 'MatMul', name: 'second', inputs: ['wt', 'u'], outputs: ['z'] },
  ],
});

let engine;
beforeAll(async () => {
  engine = await init();
});

test('a symbolic requirement is listed with the node that imposes it, and renames nothing', () => {
  const r = engine.inferShapes(twoMatMuls(['M', 2]));
  expect(r.firstError).toBeNull();
  expect(r.constraints.requirements).toEqual([
    {
      lhs: 'M', relation: '==', rhs: '3', node: 'first', opType: 'MatMul', nodeIndex: 0, path: '',
      message: "MatMul inner dims: dim 0 of input 'w' == dim 1 of input 'x'",
    },
  ]);
  expect(r.getShape('y').dims).toEqual(['N', 4]);
  expect(r.getShape('wt').dims).toEqual([4, 'M']);
  expect(r.getShape('z').dims).toEqual([4, 2]);
  expect(r.constraints.equal).toEqual([]);
});

test('firstError names the first node whose inputs contradict its rule', () => {
  const r = engine.inferShapes(twoMatMuls());
  expect(r.firstError).toEqual({
    code: 'SHAPE_MISMATCH',
    message: "MatMul inner dims: dim 0 of input 'u' is 6 and dim 1 of input 'wt' is M, but node 'first' (MatMul) requires M == 3",
    node: 'second',
    opType: 'MatMul',
    nodeIndex: 2,
    path: '',
  });
  expect(r.diagnostics).toContainEqual(r.firstError);
  expect(r.getShape('z')).toBeNull(); // the broken node's outputs are unknown
  expect(Object.isFrozen(r.firstError)).toBe(true);
});

describe('onnx-shapes --strict', () => {
  let dir;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'osi-strict-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  test('exits 5 at the first broken node, naming it', () => {
    const file = join(dir, 'broken.onnx');
    writeFileSync(file, twoMatMuls());
    const r = spawnSync(process.execPath, [CLI, file, '--strict'], { encoding: 'utf8', timeout: 300_000 });
    expect(r.status).toBe(5);
    expect(r.stdout).toBe('');
    expect(r.stderr.trim()).toBe(
      "onnx-shapes: SHAPE_MISMATCH at node 2 'second' (MatMul): MatMul inner dims: dim 0 of input 'u' is 6 and "
        + "dim 1 of input 'wt' is M, but node 'first' (MatMul) requires M == 3",
    );
    // Without --strict the same model prints its table with the diagnostic as a note.
    const plain = spawnSync(process.execPath, [CLI, file], { encoding: 'utf8', timeout: 300_000 });
    expect(plain.status).toBe(0);
    expect(plain.stdout).toMatch(/^note: SHAPE_MISMATCH \(node 'second', MatMul\): /m);
  });

  test('a consistent model passes', () => {
    const file = join(dir, 'ok.onnx');
    writeFileSync(file, twoMatMuls(['M', 2]));
    const r = spawnSync(process.execPath, [CLI, file, '--strict'], { encoding: 'utf8', timeout: 300_000 });
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^z\s+MatMul\s+float \[4, 2\]$/m);
  });
});
