// init() in Node: a failed load rejects and the next call retries; locateFile picks the .wasm file.
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { init, getShape } from '../../js/index.js';
import { model } from './onnx_builder.js';
import { REPO } from './helpers.js';

test('a failed init rejects, a later init retries, and the engine is then memoised', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'osi-init-'));
  try {
    const missing = join(dir, 'nothing-here.wasm');
    await expect(init({ locateFile: () => missing })).rejects.toThrow(/cannot read/);
    expect(getShape('Y')).toBeNull();

    const located = [];
    copyFileSync(join(REPO, 'dist', 'onnx_shapes.wasm'), join(dir, 'copy.wasm'));
    const engine = await init({
      locateFile: (path) => {
        located.push(path);
        return pathToFileURL(join(dir, 'copy.wasm')).href;
      },
    });
    expect(located).toEqual(['onnx_shapes.wasm']);
    expect(await init()).toBe(engine);
    expect(await init({ locateFile: () => missing })).toBe(engine); // options of later calls are ignored

    const bytes = model({
      inputs: [{ name: 'X', elemType: 'float', dims: [3, 'T'] }],
      outputs: ['Y'],
      nodes: [{ op: 'Relu', inputs: ['X'], outputs: ['Y'] }],
    });
    engine.inferShapes(bytes);
    expect(getShape('Y')).toEqual({ kind: 'tensor', elemType: 'float', dims: [3, 'T'] });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
