// 10,000 inferences mixing good and corrupt models (a real model with both decoders, a built model
// with events and a custom shape function, write-back, garbage and truncated bytes that throw):
// after a warm-up, neither the wasm memory nor the bytes malloc has handed out may grow.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { init, ShapeInferenceError } from '../../js/index.js';
import { model } from './onnx_builder.js';
import { backendPath } from './helpers.js';

const RUNS = 10000;

test(`${RUNS} inferences do not grow the wasm heap`, async () => {
  const engine = await init();
  engine.registerShapeFunction('', 'Neg', ({ inputs }) => [inputs[0]]);
  const built = model({
    inputs: [{ name: 'X', elemType: 'float', dims: ['N', 'C', 8] }],
    outputs: ['Z'],
    nodes: [
      { op: 'Relu', inputs: ['X'], outputs: ['Y'] },
      { op: 'Neg', inputs: ['Y'], outputs: ['Z'] },
    ],
  });
  const real = readFileSync(backendPath('light', 'light_squeezenet.onnx'));
  const garbage = [new Uint8Array([0xff, 0xff, 0xff]), real.subarray(0, real.length >> 1)];

  let ok = 0;
  let failed = 0;
  const step = (i) => {
    switch (i % 4) {
      case 0: engine.inferShapes(real, i % 8 ? {} : { decoder: 'nanopb' }); ok++; break;
      case 1: {
        const r = engine.inferShapes(built, { events: true });
        if (i % 16 === 1) r.toModel();
        ok++;
        break;
      }
      default:
        try {
          engine.inferShapes(garbage[i % 2]);
        } catch (e) {
          if (!(e instanceof ShapeInferenceError)) throw e;
          failed++;
        }
    }
  };

  for (let i = 0; i < 40; i++) step(i); // warm-up: lazy tables, first growth of the heap
  const heap = engine._heapBytes();
  const malloced = engine._mallocedBytes();
  expect(typeof malloced).toBe('number');

  for (let i = 0; i < RUNS; i++) step(i);
  expect({ ok, failed }).toEqual({ ok: (RUNS + 40) / 2, failed: (RUNS + 40) / 2 });
  expect(engine._mallocedBytes()).toBe(malloced);
  expect(engine._heapBytes()).toBe(heap);
  engine.clearShapeFunctions();
}, 120000);
