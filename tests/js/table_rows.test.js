// examples/web/table_rows.js: the demo page's table rows, built in its worker from an engine result
// (plain data, so it runs in Node too): model order (graph inputs, each node's outputs in node
// order with a body's values just before its node's, initializers last), each row's kind and
// producer, and the symbols with the graph input that declares each.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { init } from '../../js/index.js';
import { tableRows, rowBuilder } from '../../examples/web/table_rows.js';
import { REPO } from './helpers.js';
import { model } from './onnx_builder.js';

let engine;
beforeAll(async () => {
  engine = await init();
});

const brief = (rows) => rows.map(([name, , kind, nodeIndex, op, , sub]) => `${name} ${kind} ${nodeIndex} ${op}${sub ? ` in ${sub.path}` : ''}`);

test('control_flow: inputs, each node\'s outputs in node order with its bodies\' values first, weights last', () => {
  const result = engine.inferShapes(readFileSync(join(REPO, 'examples/models/control_flow.onnx')));
  const { rows } = tableRows(result, null);
  expect(brief(rows)).toEqual([
    'x input -1 ',
    'total activation 0 ReduceSum',
    'positive activation 1 Greater',
    'branch/else_branch/else_out inner -1 Neg in branch/else_branch/',
    'branch/then_branch/then_out inner -1 Relu in branch/then_branch/',
    'y activation 2 If',
    'loop/body/acc_in inner -1  in loop/body/',
    'loop/body/acc_out inner -1 Add in loop/body/',
    'loop/body/cond_in inner -1  in loop/body/',
    'loop/body/cond_out inner -1 Identity in loop/body/',
    'loop/body/i inner -1  in loop/body/',
    'loop/body/row inner -1 Identity in loop/body/',
    'acc activation 3 Loop',
    'rows activation 3 Loop',
    'steps weight -1 ',
    'true weight -1 ',
    'zero weight -1 ',
  ]);
  // A body input is seeded (no node of the body writes it).
  expect(rows.find((r) => r[0] === 'loop/body/i')[6].seeded).toBe(true);
  expect(rows.find((r) => r[0] === 'loop/body/acc_out')[6].seeded).toBe(false);
});

test('kinds from the model scan (declared outputs, initializers); symbols from the graph inputs first', () => {
  const bytes = model({
    inputs: [{ name: 'B', elemType: 'float', dims: ['m', 'k'] }, { name: 'A', elemType: 'float', dims: ['n', 'k'] }],
    outputs: ['Y'],
    nodes: [
      { op: 'MatMul', inputs: ['A', 'W'], outputs: ['P'] },
      { op: 'NonZero', inputs: ['P'], outputs: ['Y'] },
    ],
    initializers: [{ name: 'W', elemType: 'float', dims: [4, 2], floatData: new Array(8).fill(0) }],
  });
  const result = engine.inferShapes(bytes);
  const scan = { inputs: [{ name: 'B' }, { name: 'A' }], outputs: [{ name: 'Y' }], initializers: ['W'] };
  const { rows, symbols } = tableRows(result, scan);
  expect(brief(rows)).toEqual(['B input -1 ', 'A input -1 ', 'P activation 0 MatMul', 'Y output 1 NonZero', 'W weight -1 ']);
  // m and k come from B (declared first), n from A; the NonZero count is no input's, listed after.
  expect(symbols.map((s) => [s.name, s.source])).toEqual([['m', 'B'], ['k', 'B'], ['n', 'A'], [symbols[3].name, null]]);
  expect(symbols[3].dataDependent).toBe(true);
});

test('rowBuilder gives the rows in parts as they are asked for: the same rows, the first before the rest are made', () => {
  const bytes = readFileSync(join(REPO, 'examples/models/control_flow.onnx'));
  const result = engine.inferShapes(bytes);
  const all = tableRows(result, null).rows;
  for (const size of [1, 2, 5, 100]) {
    const b = rowBuilder(result, null);
    expect(b.count).toBe(all.length);
    const parts = [];
    for (let part; (part = b.next(size)).length;) {
      expect(part.length).toBeLessThanOrEqual(size);
      parts.push(...part);
    }
    expect(b.done).toBe(true);
    expect(brief(parts)).toEqual(brief(all));
  }
  // A chain of 2,000 nodes: the first rows in model order; the symbols counted over every row.
  const nodes = [];
  for (let i = 0; i < 2000; i++) nodes.push({ op: 'Relu', inputs: [i ? `v${i - 1}` : 'x'], outputs: [`v${i}`] });
  const chain = engine.inferShapes(model({ inputs: [{ name: 'x', elemType: 'float', dims: ['n', 4] }], outputs: ['v1999'], nodes }));
  const b = rowBuilder(chain, { inputs: [{ name: 'x' }], outputs: [{ name: 'v1999' }], initializers: [] });
  expect(brief(b.next(3))).toEqual(['x input -1 ', 'v0 activation 0 Relu', 'v1 activation 1 Relu']);
  while (b.next(500).length);
  expect(b.symbols()).toEqual([{ name: 'n', uses: 2001, source: 'x', rank: 0, dataDependent: false }]);
});
