// The cost model against an independent counter (README "Cost", "Checked against PyTorch"):
// tests/cost/torch_reference.py builds eager torch modules (torchvision's with weights=None, the
// LLM-style decoders of tests/exporters, convolutions the profiler does not count), counts their
// MACs with torch.profiler.profile(with_flops=True) (and, for conv1d/conv3d/conv_transpose, from
// the modules' attributes) at several sizes, and exports each with dynamic axes. Here the engine's
// symbolic count of the export, evaluated at the same sizes, must agree within 0.5% for the ops
// PyTorch counts (Conv, ConvTranspose, MatMul, Gemm, Einsum). More models: tests/bench/cost_torch.mjs.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { init } from '../../js/index.js';
import { evaluateDim } from '../../js/expr.js';
import { withUnit } from '../../js/cli_cost.js';
import { REPO } from './helpers.js';

const PYTHON = '/usr/bin/python3'; // Debian's, with python3-torch and torchvision
export const MAC_OPS = new Set(['Conv', 'ConvTranspose', 'MatMul', 'Gemm', 'Einsum']);

let dir, reference, engine;
beforeAll(async () => {
  engine = await init();
  dir = mkdtempSync(join(tmpdir(), 'osi-cost-torch-'));
  const r = spawnSync(PYTHON, [join(REPO, 'tests', 'cost', 'torch_reference.py'), dir], { encoding: 'utf8', timeout: 600000 });
  if (r.status !== 0) throw new Error(`tests/cost/torch_reference.py failed (${PYTHON} with torch and torchvision is required):\n${r.stderr}`);
  reference = JSON.parse(readFileSync(join(dir, 'reference.json'), 'utf8'));
}, 620000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The MACs of the ops PyTorch counts, at the case's sizes, from the export's cost model. */
function engineMacs(result, bindings) {
  const cost = result.cost({ bindings });
  let macs = 0n;
  for (const n of cost.nodes) {
    if (n.domain !== '' || !MAC_OPS.has(n.opType)) continue;
    if (typeof n.macs !== 'number' && typeof n.macs !== 'bigint') throw new Error(`${n.name} (${n.opType}): MACs ${n.macs} at ${JSON.stringify(bindings)}`);
    macs += BigInt(n.macs);
  }
  return { macs: Number(macs), cost };
}

test('the reference set is there: torchvision, LLM-style decoders, uncounted convolutions', () => {
  expect(reference.map((m) => m.name)).toEqual(['resnet18', 'mobilenet_v3_small', 'convs', 'llama', 'gpt2', 'bloom', 'einsum_attention']);
  expect(reference.find((m) => m.name === 'convs').cases.every((c) => c.derived > 0 && c.profiled > 0)).toBe(true);
});

test.each(['resnet18', 'mobilenet_v3_small', 'convs', 'llama', 'gpt2', 'bloom', 'einsum_attention'])(
  '%s: MACs at every case within 0.5% of PyTorch\'s count, and the symbolic total evaluates to the sum',
  (name) => {
    const m = reference.find((x) => x.name === name);
    const result = engine.inferShapesFromPath(join(dir, m.onnx), { cost: true });
    const symbolic = result.cost();
    for (const c of m.cases) {
      const { macs, cost } = engineMacs(result, c.bindings);
      const error = Math.abs(macs - c.macs) / c.macs;
      if (error > 0.005) throw new Error(`${name} at ${JSON.stringify(c.bindings)}: engine ${macs} MACs, PyTorch ${c.macs}`);
      expect(error).toBeLessThanOrEqual(0.005);
      const env = new Map(Object.entries(c.bindings));
      expect(BigInt(evaluateDim(symbolic.total.macs, env, result.definitions))).toBe(BigInt(cost.total.macs));
    }
  },
);

test('ResNet-18 at 1x3x224x224: 1.814 GMACs and 11.69 M parameters (PyTorch\'s own count)', () => {
  const m = reference.find((x) => x.name === 'resnet18');
  const result = engine.inferShapesFromPath(join(dir, m.onnx), { cost: true });
  const { total } = result.cost({ bindings: { batch: 1, height: 224, width: 224 } });
  expect(withUnit(total.macs, 'MACs')).toBe('1.814 GMACs');
  expect(total.params).toBe(m.params); // BatchNormalization's running statistics are not parameters
  expect(withUnit(total.params, ' params')).toBe('11.69 M params');
  expect(total.macs).toBe(m.cases[0].macs); // every MAC of ResNet-18 is in a Conv or the Gemm
});

test('the LLM-style exports\' MACs are polynomials in batch, seq and past_seq', () => {
  const m = reference.find((x) => x.name === 'llama');
  const { total } = engine.inferShapesFromPath(join(dir, m.onnx), { cost: true }).cost();
  expect(total.macs).toMatch(/^[0-9a-z_*+]+$/);
  expect(new Set(total.macs.match(/[a-z_]+/g))).toEqual(new Set(['batch', 'seq', 'past_seq']));
});
