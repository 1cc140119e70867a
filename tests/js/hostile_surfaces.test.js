// Hostile input, round four: the surfaces added with the cost model and the facts (issues 27 and
// 28) attacked as an outside tester would, in wasm through the public API. Each reproducer is
// generated here; README "Hostile input" lists the findings.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { init } from '../../js/index.js';
import { evaluateResult } from '../../js/bindings.js';
import { expandDefinitions, parseBindings, symbolsThrough } from '../../js/expr.js';
import { memoryProfile, resultCost } from '../../js/cost.js';
import { model, node, valueInfo } from './onnx_builder.js';
import { REPO } from './helpers.js';

let engine;
let M; // the wasm module itself, for the work counters of a run (osi_result_work)
beforeAll(async () => {
  engine = await init();
  const { default: create } = await import(join(REPO, 'dist/onnx_shapes.mjs'));
  M = await create({ wasmBinary: readFileSync(join(REPO, 'dist/onnx_shapes.wasm')) });
});

const DECODERS = { 'protobuf-c': 1 << 8, nanopb: 1 << 9 };
/**
 * The work counters of a run of `bytes` (src/onnx_shapes.h, osi_result_work): { status, nodeVisits,
 * trialVisits, nodesCounted }. Work that once grew quadratically is bounded by counts, not by time.
 */
function work(bytes, decoder = 'protobuf-c') {
  const p = M._malloc(bytes.length) >>> 0;
  M.HEAPU8.set(bytes, p);
  const r = M._osi_infer_with(p, bytes.length, DECODERS[decoder], 0) >>> 0;
  try {
    return { status: M._osi_result_status(r), nodeVisits: M._osi_result_work(r, 0), trialVisits: M._osi_result_work(r, 1), nodesCounted: M._osi_result_work(r, 2) };
  } finally {
    M._osi_result_delete(r);
    M._free(p);
  }
}

// Section - If branches that cannot run (issue 28 item 2)

const int64 = (name, dims, values) => ({ op: 'Constant', outputs: [name], attrs: { value: { type: 'tensor', value: { name, elemType: 'int64', dims, int64Data: values } } } });
const floatConst = (name, dims) => ({ op: 'Constant', outputs: [name], attrs: { value: { type: 'tensor', value: { name, elemType: 'float', dims, floatData: [1, 2] } } } });
const boolConst = (name, v) => ({ op: 'Constant', outputs: [name], attrs: { value: { type: 'tensor', value: { name, elemType: 'bool', dims: [], int32Data: [v] } } } });
/** cond = (N == 1) for the input X [N], and r1 [2], r2 [1, 2] for branches to return. */
const openCondition = [
  { op: 'Shape', inputs: ['X'], outputs: ['s'] }, int64('zero', [], [0]), int64('one', [], [1]),
  { op: 'Gather', inputs: ['s', 'zero'], outputs: ['n'] }, { op: 'Equal', inputs: ['n', 'one'], outputs: ['cond'] },
  floatConst('r1', [2]), floatConst('r2', [1, 2]),
];
/** If(cond): r1 (rank 1) or r2 (rank 2), which do not merge: only one may let the model run. */
const rankIf = (out) => ({ op: 'If', inputs: ['cond'], outputs: [out],
  attrs: { then_branch: { type: 'graph', value: { outputs: ['r1'] } }, else_branch: { type: 'graph', value: { outputs: ['r2'] } } } });
const concat = (parts) => {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  parts.reduce((at, p) => (out.set(p, at), at + p.length), 0);
  return out;
};
/** A length-delimited protobuf field of the parts joined (the builder copies byte by byte: too
 * slow for megabytes). */
function field(number, ...parts) {
  const body = concat(parts.map((p) => (typeof p === 'string' ? new TextEncoder().encode(p) : p)));
  const head = [(number << 3) | 2];
  for (let v = body.length; ; v = Math.floor(v / 128)) {
    if (v < 128) { head.push(v); break; }
    head.push((v % 128) | 128);
  }
  return concat([Uint8Array.from(head), body]);
}
/** If(true) whose else_branch, never inferred, holds `size` nodes (an op no rule has). */
function bigUntakenBranch(out, size) {
  const unused = field(1, node({ op: 'Unused' }));
  const nodes = new Uint8Array(unused.length * size);
  for (let i = 0; i < size; i++) nodes.set(unused, i * unused.length);
  const branch = field(6, nodes, field(12, valueInfo('r2')));
  const elseBranch = field(5, field(1, 'else_branch'), branch, Uint8Array.of(0xa0, 0x01, 5)); // AttributeProto type (field 20) = GRAPH
  const ifNode = node({ op: 'If', inputs: ['yes'], outputs: [out], attrs: { then_branch: { type: 'graph', value: { outputs: ['r1'] } } } });
  return [node(boolConst('yes', 1)), concat([ifNode, elseBranch])];
}
/** ModelProto (ir 8, opset 17) of encoded nodes, input X [N], outputs by name. */
const fastModel = (nodes, outputs) => concat([Uint8Array.of(1 << 3, 8),
  field(7, ...nodes.map((n) => field(1, n instanceof Uint8Array ? n : node(n))), field(2, 'g'),
    field(11, valueInfo({ name: 'X', elemType: 'float', dims: ['N'] })), ...outputs.map((o) => field(12, valueInfo(o)))),
  field(8, field(1, ''), Uint8Array.of(2 << 3, 17))]);

test('20,000 Ifs whose branches do not merge, before 200,000 nodes: each counts what follows it once, not again', () => {
  // Each If asks how many nodes follow it (a run of the rest is tried only when at most 20,000
  // do): counted again at each If, that was 4*10^9 steps for this 2.5 MB model (13 s in wasm).
  const nodes = [...openCondition];
  for (let i = 0; i < 20000; i++) nodes.push(rankIf(`y${i}`));
  nodes.push(...bigUntakenBranch('z', 200000));
  const bytes = fastModel(nodes, ['z']);
  const r = engine.inferShapes(bytes);
  expect(r.getShape('z')).toEqual({ kind: 'tensor', elemType: 'float', dims: [2] });
  // Too many nodes follow each If to try a run of them: the branches merge, rank unknown.
  expect(r.getShape('y0')).toEqual({ kind: 'tensor', elemType: 'float', dims: null });
  expect(r.getShape('y19999')).toEqual({ kind: 'tensor', elemType: 'float', dims: null });
  // The work, counted (it passed on the quadratic code too, 18 times slower): the nodes looked at
  // to count what follows the Ifs are a few per node of the model's graph (20,001 Ifs and 7 more
  // nodes; the branch of 200,000 is looked at only up to the 20,001 a trial may take), where
  // counting again at each If looked at 20,000 x 20,000 (and x 200,000 without the cap). No trial
  // runs, and each node inferred once.
  for (const decoder of Object.keys(DECODERS)) {
    const w = work(bytes, decoder);
    expect(w.status).toBe(0);
    expect(w.nodesCounted).toBeGreaterThan(20000);
    expect(w.nodesCounted).toBeLessThan(2 * (20008 + 20001));
    expect(w.trialVisits).toBe(0);
    expect(w.nodeVisits).toBe(nodes.length);
  }
});

test.each([[19997, true], [19998, false]])(
  'nodes nested in a later branch count toward the 20,000 a run of the rest may take (%d nested: run %s)',
  (nested, tried) => {
    // After the If: a Gemm that needs rank 2, the constant, and the If holding `nested` nodes:
    // 20,000 nodes (a run is tried: only else_branch lets the model run) or 20,001 (merged).
    const nodes = [...openCondition, rankIf('y'), { op: 'Gemm', inputs: ['y', 'y'], outputs: ['g'], attrs: { transB: 1 } }, ...bigUntakenBranch('z', nested)];
    const r = engine.inferShapes(fastModel(nodes, ['g', 'z']));
    if (tried) {
      expect(r.getShape('y').dims).toEqual([1, 2]);
      expect(r.constraints.requirements.map((q) => q.message).join('\n')).toMatch(/If: only else_branch lets the model run \(after then_branch, node 8 \(Gemm\): Gemm needs 2-D A and B/);
    } else {
      expect(r.getShape('y').dims).toBeNull();
    }
  },
);

// Section - Sizes at a binding (result.cost, memoryProfile, evaluate)

/** A model of `n` inputs X_i [Floor(Float(a_i)*0.3)]: each size computed in float is a named size. */
function namedSizes(n) {
  const inputs = [], nodes = [], outputs = [];
  for (let i = 0; i < n; i++) {
    inputs.push({ name: `X${i}`, elemType: 'float', dims: [`Floor(Float(a${i})*0.3)`] });
    nodes.push({ op: 'Relu', inputs: [`X${i}`], outputs: [`Y${i}`] });
    outputs.push(`Y${i}`);
  }
  return model({ inputs, outputs, nodes });
}

test('1,000 named sizes: cost, memoryProfile and evaluate at a binding read each definition a bounded number of times', () => {
  // Each count's value bound every named size again (4,096 of them: 76 s for one cost({ bindings })),
  // and evaluate looked each size up among the definitions (quadratic). Counted here through a
  // result as plain data (js/cost.js and js/bindings.js take any object with its fields), whose
  // definitions count how often they are read.
  const n = 1000;
  const r = engine.inferShapes(namedSizes(n), { cost: true });
  expect(r.definitions).toHaveLength(n);
  let reads = 0;
  const definitions = r.definitions.map(({ name, expr }) => ({ get name() { reads++; return name; }, expr }));
  const data = { costModel: r.costModel, definitions, constraints: r.constraints, values: r.values, domain: r.domain, subgraphValues: r.subgraphValues };
  const bindings = Object.fromEntries(Array.from({ length: n }, (_, i) => [`a${i}`, 7 + i]));
  const c = resultCost(data, { bindings });
  // Floor(0.3*a_i) elements, one FLOP each (Relu)
  expect(c.total.flops).toBe(Array.from({ length: n }, (_, i) => Math.floor(Math.fround(Math.fround(7 + i) * Math.fround(0.3)))).reduce((a, b) => a + b));
  expect(c).toEqual(r.cost({ bindings }));
  expect(memoryProfile(data, { bindings })).toEqual(r.memoryProfile({ bindings }));
  const e = evaluateResult(data, bindings);
  expect(e.values.Y999).toEqual([Math.floor(Math.fround(Math.fround(1006) * Math.fround(0.3)))]);
  expect(e).toEqual(r.evaluate(bindings));
  expect(reads).toBeLessThan(20 * n);
});

test('symbolsThrough and expandDefinitions (the page\'s rows) read a result\'s named sizes once, not at every dim', () => {
  // 16,000 dims of a model with 4,096 named sizes took 4 s and 22 s: each call read every definition.
  const n = 1000;
  const r = engine.inferShapes(namedSizes(n));
  let reads = 0;
  // as the page has them: plain data parsed from the worker's JSON (not frozen)
  const definitions = r.definitions.map(({ name, expr }) => ({ get name() { reads++; return name; }, expr }));
  for (let i = 0; i < n; i++) {
    const [dim] = r.getShape(`Y${i}`).dims;
    expect(dim).toBe(`floor_${i + 1}`);
    expect(symbolsThrough(dim, definitions)).toEqual([`a${i}`]);
    expect(symbolsThrough(`${dim}+N`, definitions)).toEqual([`a${i}`, 'N']);
    expect(expandDefinitions(`${dim}+1`, definitions)).toBe(`(Floor(0.3*a${i}))+1`);
  }
  expect(reads).toBeLessThan(10 * n);
  // hand-made definitions out of order or in a cycle are read at each call, as deep as there are names
  const cycle = [{ name: 'p', expr: 'q+N' }, { name: 'q', expr: 'p*M' }];
  expect(symbolsThrough('p', cycle)).toEqual(['p', 'M', 'N']);
  expect(expandDefinitions('q', cycle)).toBe('((q+N)*M)');
});

/**
 * fn's result and the characters regular expressions were run over while it ran (each exec, which
 * test(), match(), replace() and split() call, counts the length of its input).
 */
function regexWork(fn) {
  const exec = RegExp.prototype.exec;
  let chars = 0;
  RegExp.prototype.exec = function counted(input) {
    chars += String(input).length;
    return exec.call(this, input);
  };
  try {
    return [fn(), chars];
  } finally {
    RegExp.prototype.exec = exec;
  }
}

test('parseBindings (--bind, the page\'s sizes box) splits name=value in linear time, as before', () => {
  // A lazy regular expression, /^(.*?)\s*[=:]\s*([^=:]+)$/, backtracked quadratically over a run of
  // spaces: 4 s for 40,000, minutes for 200,000. The work counted: no regular expression is run
  // over the run (the old split ran one over each whole part, 20,001 characters here, backtracking
  // for a second), only over the name and value tokens (none here: each part is refused before).
  for (const text of [`a${' '.repeat(20000)}x`, `a${' '.repeat(20000)}=`, `${' '.repeat(20000)}:`]) {
    const [{ errors }, chars] = regexWork(() => parseBindings(text));
    expect(errors).toHaveLength(1);
    expect(chars).toBeLessThan(100);
  }
  const text = `'a=b' = 2,c:3;  d  =  4*5, 'e f'=6\ng=1=2, h=, =3, i=(7)`;
  const [{ map, errors }, chars] = regexWork(() => parseBindings(text));
  expect([...map]).toEqual([['a=b', 2], ['c', 3], ['d', 20], ['e f', 6], ['i', 7]]);
  expect(errors).toEqual(['"g=1=2" is not name=size', '"h=" is not name=value', '"=3" is not name=size']);
  expect(chars).toBeLessThan(2 * text.length); // the tokens' characters, each looked at about once
});

// Section - The input domain (issue 28 item 3)

test('the domain lists every graph input\'s symbol, however many (not the first 256, the rest as relations)', () => {
  const n = 300;
  const inputs = [], nodes = [], outputs = [];
  for (let i = 0; i < n; i++) {
    inputs.push({ name: `X${i}`, elemType: 'float', dims: [1, 1, `h${i}`] });
    nodes.push({ op: 'MaxPool', inputs: [`X${i}`], outputs: [`Y${i}`], attrs: { kernel_shape: [3] } });
    outputs.push(`Y${i}`);
  }
  for (const decoder of ['protobuf-c', 'nanopb']) {
    const r = engine.inferShapes(model({ inputs, outputs, nodes }), { decoder });
    const symbols = Object.keys(r.domain.symbols);
    expect(symbols).toEqual(Array.from({ length: n }, (_, i) => `h${i}`)); // in order of appearance
    expect(r.domain.symbols.h299).toMatchObject({ min: 2, minBy: { lhs: '2', relation: '<=', rhs: 'h299', nodeIndex: 299 } });
    expect(r.domain.relations).toEqual([]);
    expect(() => r.evaluate({ h299: 1 })).toThrow(/node 299 \(MaxPool\) requires 2 <= h299/);
  }
});

// Section - Custom shape functions

test('a shape function\'s answer holding U+0000 is refused, not cut at the NUL (N\\0M read as N)', () => {
  const bytes = model({
    opsets: [{ domain: '', version: 17 }, { domain: 'my', version: 1 }],
    inputs: [{ name: 'X', elemType: 'float', dims: ['N'] }],
    outputs: ['Y'],
    nodes: [{ op: 'MyOp', domain: 'my', inputs: ['X'], outputs: ['Y'] }],
  });
  try {
    for (const answer of [[{ elemType: 'float', dims: ['N\u0000M'] }], [{ elemType: 'float\u0000x', dims: [1] }]]) {
      engine.registerShapeFunction('my', 'MyOp', () => answer);
      const r = engine.inferShapes(bytes);
      expect(r.getShape('Y')).toBeNull();
      expect(r.diagnostics).toEqual([expect.objectContaining({ code: 'UNSUPPORTED_CASE',
        message: expect.stringMatching(/the custom shape function's answer is not JSON the engine reads \(.*a string holding U\+0000/) })]);
    }
  } finally {
    engine.clearShapeFunctions();
  }
});

test('Ifs nested 20 deep, each body with 10 Ifs whose branches do not merge: a valid model is never refused for its trial runs', () => {
  // Each If tries the rest of its body, which holds the next level: the trials took the node visits
  // the real run needed (LIMIT_EXCEEDED for this 45 KB model). They now have a budget of their own.
  const level = (depth, tag) => {
    const nodes = [floatConst(`r1_${tag}`, [2]), floatConst(`r2_${tag}`, [1, 2])];
    for (let i = 0; i < 10; i++) {
      nodes.push({ op: 'If', inputs: ['cond'], outputs: [`y${i}_${tag}`], attrs: { then_branch: { type: 'graph', value: { outputs: [`r1_${tag}`] } }, else_branch: { type: 'graph', value: { outputs: [`r2_${tag}`] } } } });
      nodes.push({ op: 'Gemm', inputs: [`y${i}_${tag}`, `y${i}_${tag}`], outputs: [`g${i}_${tag}`], attrs: { transB: 1 } });
    }
    if (depth === 0) return { nodes, outputs: [`g0_${tag}`] };
    nodes.push({ op: 'If', inputs: ['cond'], outputs: [`n_${tag}`], attrs: { then_branch: { type: 'graph', value: level(depth - 1, `${tag}t`) },
      else_branch: { type: 'graph', value: { nodes: [floatConst(`z_${tag}`, [1, 2])], outputs: [`z_${tag}`] } } } });
    return { nodes, outputs: [`n_${tag}`] };
  };
  const top = level(20, 'L');
  const r = engine.inferShapes(model({ inputs: [{ name: 'X', elemType: 'float', dims: ['N'] }], outputs: top.outputs, nodes: [...openCondition, ...top.nodes] }));
  // The first Ifs of the top level are decided (only else_branch lets the Gemm after them run).
  expect(r.getShape('y0_L').dims).toEqual([1, 2]);
  expect(r.getShape('g0_L').dims).toEqual([1, 1]);
  expect(r.getShape('n_L').kind).toBe('tensor');
});
