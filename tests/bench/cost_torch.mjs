#!/usr/bin/env node
// The cost model against PyTorch's profiler on more models than CI runs (README "Cost", "Checked
// against PyTorch"): tests/cost/torch_reference.py --set bench builds and counts them (torchvision
// classification models with weights=None, the LLM-style decoders), then each export's symbolic
// MACs of Conv, ConvTranspose, MatMul, Gemm and Einsum are evaluated at the same sizes. A benchmark,
// not a test (it takes minutes: torchvision's bigger models export slowly):
//
//   node tests/bench/cost_torch.mjs [--only resnet50,vit_b_16] [--keep DIR]
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { init } from '../../js/index.js';
import { withUnit } from '../../js/cli_cost.js';

const REPO = join(dirname(fileURLToPath(import.meta.url)), '../..');
const MAC_OPS = new Set(['Conv', 'ConvTranspose', 'MatMul', 'Gemm', 'Einsum']);
const args = process.argv.slice(2);
const opt = (name) => (args.includes(name) ? args[args.indexOf(name) + 1] : null);
const dir = opt('--keep') ?? mkdtempSync(join(tmpdir(), 'osi-cost-bench-'));
const only = opt('--only');

const py = spawnSync('/usr/bin/python3', [join(REPO, 'tests/cost/torch_reference.py'), dir, '--set', 'bench', ...(only ? ['--only', only] : [])],
  { stdio: ['ignore', 'inherit', 'inherit'] });
if (py.status !== 0) process.exit(1);
const reference = JSON.parse(readFileSync(join(dir, 'reference.json'), 'utf8'));
const engine = await init();
let worst = 0;
console.log(`${'model'.padEnd(22)} ${'sizes'.padEnd(40)} ${'PyTorch MACs'.padStart(16)} ${'engine MACs'.padStart(16)}  error   total (all ops)       params (file / torch)`);
for (const m of reference) {
  const result = engine.inferShapesFromPath(join(dir, m.onnx), { cost: true });
  for (const c of m.cases) {
    const cost = result.cost({ bindings: c.bindings });
    let macs = 0n;
    for (const n of cost.nodes) if (n.domain === '' && MAC_OPS.has(n.opType)) macs += BigInt(n.macs ?? NaN);
    const error = Math.abs(Number(macs) - c.macs) / c.macs;
    worst = Math.max(worst, error);
    console.log(`${m.name.padEnd(22)} ${JSON.stringify(c.bindings).padEnd(40)} ${String(c.macs).padStart(16)} ${String(macs).padStart(16)}  ${(100 * error).toFixed(3)}%  ${withUnit(cost.total.macs, 'MACs').padEnd(20)}  ${cost.total.params} / ${m.params}`);
  }
}
console.log(`worst relative error: ${(100 * worst).toFixed(4)}% (${worst <= 0.005 ? 'within' : 'OVER'} 0.5%)`);
if (!opt('--keep')) rmSync(dir, { recursive: true, force: true });
process.exitCode = worst <= 0.005 ? 0 : 1;
