// result.cost({ bindings }) and memoryProfile at many bindings (a viewer re-evaluating as sizes
// change): what does not depend on the sizes (the nodes' names and ops, the groups by op type, the
// model's symbols) is read once per result; the answers must be those of a result read afresh, and
// the totals the exact sums of the nodes' counts (numbers within 2^53, BigInt past it).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { init } from '../../js/index.js';
import { memoryProfile, resultCost } from '../../js/cost.js';
import { modelSymbols } from '../../js/cli_bind.js';
import { REPO } from './helpers.js';

let engine;
let result;
beforeAll(async () => {
  engine = await init();
  result = engine.inferShapes(readFileSync(join(REPO, 'examples', 'models', 'tiny_decoder.onnx')), { cost: true });
});

/** The same result as plain, unfrozen data (nothing of it can be remembered between calls). */
const afresh = (r) => ({
  costModel: structuredClone(r.costModel),
  definitions: structuredClone(r.definitions),
  constraints: structuredClone(r.constraints),
  values: structuredClone(r.values),
  domain: structuredClone(r.domain),
});

const BINDINGS = [
  { batch: 1, seq: 4, past_seq: 3 },
  { batch: 2, seq: 1, past_seq: 0 },
  { batch: 1, seq: 4, past_seq: 3 }, // again, after another
  { batch: 3, seq: 7 }, // past_seq unbound: some counts stay expressions
  { batch: 2 ** 16, seq: 2 ** 16, past_seq: 16 }, // MACs past 2^53: BigInt
];

test('at each binding, cost() and memoryProfile() are those of the result read afresh', () => {
  expect(Object.isFrozen(result)).toBe(true);
  for (const bindings of [...BINDINGS, ...BINDINGS]) {
    expect(result.cost({ bindings })).toEqual(resultCost(afresh(result), { bindings }));
    expect(result.memoryProfile({ bindings })).toEqual(memoryProfile(afresh(result), { bindings }));
  }
  expect(result.cost()).toEqual(resultCost(afresh(result)));
});

test('the totals are the exact sums of the nodes\' counts, BigInt past 2^53', () => {
  for (const bindings of BINDINGS) {
    const c = result.cost({ bindings });
    const nodes = c.nodes.filter((n) => n.macs !== null);
    if (!nodes.every((n) => typeof n.macs === 'number' || typeof n.macs === 'bigint')) continue;
    const exact = nodes.reduce((s, n) => s + BigInt(n.macs), 0n);
    const want = exact <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(exact) : exact;
    expect(c.total.macs).toBe(want);
    for (const [key, g] of Object.entries(c.byOpType)) {
      const of = nodes.filter((n) => (n.domain ? `${n.domain}:${n.opType}` : n.opType) === key);
      const s = of.reduce((t, n) => t + BigInt(n.macs), 0n);
      expect(g.macs).toBe(s <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(s) : s);
    }
  }
  expect(typeof result.cost({ bindings: BINDINGS[4] }).total.macs).toBe('bigint');
  // the activation peak: the largest of the live sizes over the schedule
  const p = result.memoryProfile({ bindings: BINDINGS[0] });
  expect(p.peakBytes).toBe(Math.max(...p.steps.map((s) => s.liveBytes)));
  expect(result.cost({ bindings: BINDINGS[0] }).total.activationPeakBytes).toBe(p.peakBytes);
});

test('the nodes returned are the caller\'s: changing them changes nothing for the next call', () => {
  const first = result.cost({ bindings: BINDINGS[0] });
  const copy = structuredClone(first);
  first.nodes[0].name = 'changed';
  first.nodes.length = 1;
  expect(result.cost({ bindings: BINDINGS[0] })).toEqual(copy);
  const symbols = modelSymbols(result);
  symbols.add('not_a_symbol');
  expect(modelSymbols(result).has('not_a_symbol')).toBe(false);
});
