#!/usr/bin/env node
// The cost rules of the operator tables (the last column of src/ops/op_list_*.h, README "Cost"),
// as the README's table: one row per rule, what it counts, and the operators that use it. With
// --write it replaces the table between the cost-rules markers in README.md; a Jest test
// (tests/js/cost_rules.test.js) checks that the README table is current and that every rule token
// of the tables is described here.
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

const TABLES = [
  { domain: '', file: 'op_list_onnx.h' },
  { domain: 'ai.onnx.ml', file: 'op_list_ml.h' },
  { domain: 'ai.onnx.preview.training', file: 'op_list_training.h' },
  { domain: 'ai.onnx.preview', file: 'op_list_preview.h' },
  { domain: 'com.microsoft', file: 'op_list_contrib.h' },
];

/** [{ op, domain, token }] for every row of every table. */
export function costRows() {
  const rows = [];
  for (const { domain, file } of TABLES) {
    const text = readFileSync(join(root, 'src', 'ops', file), 'utf8');
    for (const m of text.matchAll(/^OSI_OP\(\s*([A-Za-z0-9_]+)\s*,\s*[a-z0-9_]+\s*,\s*\d+\s*,\s*(.*?)\s*\)\s*$/gm)) {
      rows.push({ op: m[1], domain, token: m[2].replace(/\s+/g, ' ') });
    }
  }
  return rows;
}

// What each rule counts (src/cost/cost_table.c lists the tokens; the rules are in src/cost/).
// `k` is the token's first argument. MACs are 0 where none is named.
const KINDS = {
  NONE: () => ['0', 'moves, selects, converts or generates data'],
  EW: (k) => [`${k} per output element`, ''],
  EWB: (k) => [`${k} per output element, + 1 when the bias input is given`, ''],
  EW_IN: (k) => [`${k} per element of the input read`, 'reductions, global pools, losses: per element read'],
  VARIADIC: (k) => [k === '0' ? '(inputs − 1) per output element' : k === '1' ? 'inputs per output element' : `(inputs − 1 + ${k}) per output element`, ''],
  POOL: (k) => [`${k} per output element per kernel element`, ''],
  CONV: () => ['2·MACs, + 1 per output element with a bias', 'MACs N·Cout·∏(output spatial)·(Cin/group)·∏(kernel)'],
  CONV_T: () => ['2·MACs, + 1 per output element with a bias', 'MACs N·Cin·∏(input spatial)·(Cout/group)·∏(kernel)'],
  MATMUL: () => ['2·MACs, + 1 per output element with a bias', 'MACs ∏(broadcast batch dims)·M·N·K'],
  GEMM: () => ['2·MACs, + 1 per output element when C is given', 'MACs M·N·K'],
  EINSUM: () => ['2·MACs', 'MACs the product of every index size of the equation'],
  RNN: () => ['2·MACs, + 1 per bias element per step and row', 'MACs seq·batch·(numel(W) + numel(R)): every gate\'s input and recurrent matmul per step'],
  ATTENTION: () => ['2·MACs + 6 per score (scale, softmax)', 'MACs Q·Kᵀ and weights·V over S × T per head: (numel(Q) + numel(Y))·T'],
  ATTENTION_MS: () => ['2·MACs + 6 per score + the projection\'s bias adds', 'MACs the Q/K/V projection, rows·numel(W), + S·T·(D_q + D_v) per batch row'],
  MHA: () => ['2·MACs + 6 per score', 'MACs S·T·(D_qk + D_v) per batch row'],
  GQA: () => ['2·MACs + 6 per score', 'MACs 2·numel(Y)·T (every query head over T keys)'],
  MOE: () => ['2·MACs', 'MACs rows·k·(numel(fc1) + numel(fc2) + numel(fc3))/experts'],
  CDIST: () => ['3·N·M·D (subtract, multiply, add)', 'MACs N·M·D'],
  LINEAR_ML: () => ['2·MACs + one add per intercept per row', 'MACs rows·len(coefficients)'],
  NBITS_MLP: () => ['2·MACs + the biases\' adds', 'MACs 2·numel(Y)·K (gate and up projections)'],
  NBITS_QKV: () => ['2·MACs + the biases\' adds', 'MACs (numel(Q) + numel(K) + numel(V))·K'],
  GELU: () => ['5 per output element (erf form), 9 with approximate="tanh"', ''],
  LRN: () => ['2·size + 3 per output element', ''],
  RESIZE: () => ['per output element: 0 nearest, 3·(2^r − 1) linear, 7·(4^r − 1)/3 cubic, r = axes whose size changes at the sizes (an expression: each axis counts Ind(out − in) + Ind(in − out))', ''],
  GRID_SAMPLE: () => ['per output element as RESIZE, r = the spatial axes', ''],
  ROI_ALIGN: () => ['10·sampling_ratio² per output element (uncounted when sampling_ratio is 0: data-dependent)', ''],
  SCATTER: () => ['0, or 1 per update element with a reduction', ''],
  BODY: () => ['the bodies\' counts', 'Loop: body × trip count; Scan: body × scanned length; If: Max of the branches, or the branch taken when decided; SequenceMap: body × sequence length'],
  UNCOUNTED: (why) => ['not counted', `"${reasons()[why] ?? why}"`],
};

/** The reasons of UNCOUNTED(...), as src/cost/cost_table.c words them (cost.uncounted[].reason). */
let reasonText;
function reasons() {
  if (!reasonText) {
    const c = readFileSync(join(root, 'src', 'cost', 'cost_table.c'), 'utf8');
    reasonText = Object.fromEntries([...c.matchAll(/^#define OSI_WHY_([A-Z_]+) "(.*)"$/gm)].map((m) => [m[1], m[2]]));
  }
  return reasonText;
}

/** The kind and arguments of a token: "EW(1)" -> ['EW', ['1']]. */
export function parseToken(token) {
  const m = /^([A-Z_]+)(?:\((.*)\))?$/.exec(token);
  return m ? [m[1], m[2] ? m[2].split(',').map((s) => s.trim()) : []] : [null, []];
}

export function describe(token) {
  const [kind, args] = parseToken(token);
  return KINDS[kind] ? KINDS[kind](...args) : null;
}

const name = (r) => (r.domain ? `${r.domain === 'com.microsoft' ? 'ms' : r.domain}:${r.op}` : r.op);

export function costTable() {
  const groups = new Map();
  for (const r of costRows()) {
    const [kind, args] = parseToken(r.token);
    // The input indices of CONV/MATMUL/... say where the operands are, not how they are counted.
    const key = ['EW', 'EWB', 'EW_IN', 'VARIADIC', 'POOL', 'UNCOUNTED'].includes(kind) ? `${kind}(${args[0]})` : kind;
    if (!groups.has(key)) groups.set(key, { token: r.token, ops: [] });
    groups.get(key).ops.push(name(r));
  }
  const lines = ['| rule | FLOPs | MACs and notes | operators |', '| --- | --- | --- | --- |'];
  const order = (key) => key.replace(/\d+/g, (d) => d.padStart(4, '0'));
  for (const [key, { token, ops }] of [...groups].sort(([a], [b]) => (order(a) < order(b) ? -1 : 1))) {
    const [flops, notes] = describe(token);
    lines.push(`| \`${key}\` | ${flops} | ${notes || (flops === '0' ? '' : 'MACs 0')} | ${ops.join(', ')} |`);
  }
  return lines.join('\n');
}

export const BEGIN = '<!-- cost-rules:begin (generated by tests/tools/cost_rules.mjs --write) -->';
export const END = '<!-- cost-rules:end -->';

if (import.meta.url === `file://${process.argv[1]}`) {
  const table = costTable();
  if (process.argv.includes('--write')) {
    const readme = readFileSync(join(root, 'README.md'), 'utf8');
    const a = readme.indexOf(BEGIN), b = readme.indexOf(END);
    if (a < 0 || b < a) throw new Error('README.md has no cost-rules markers');
    writeFileSync(join(root, 'README.md'), `${readme.slice(0, a + BEGIN.length)}\n${table}\n${readme.slice(b)}`);
  }
  console.log(table);
}
