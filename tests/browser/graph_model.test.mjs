// The graph view's worker logic (examples/web/graph_model.js, graph_layout.js) in Node, on graphs
// written here: constants folded into their readers, the name hierarchy (unscoped nodes joining
// their neighbours' group, loose ops gathered, depth bounded for deep names), views laid out per
// level (opening a group lays out that level and its parents only; edges cross frames through
// ports), and Fit closing groups until the view fits. Registered with the browser tests' runner
// (no page needed).
import assert from 'node:assert/strict';
import dagre from '@dagrejs/dagre';
import { indexScope, treeOf, prefixOf, groupByPrefix, MAX_DEPTH } from '../../examples/web/graph_model.js';
import { makeView, FANOUT } from '../../examples/web/graph_layout.js';
import { test } from './harness.mjs';

/** A scope as graph_data.js writes it: nodes [name, op, domain, inputs, outputs]. */
const scope = (nodes, inputs = ['x'], outputs = [], path = '') => ({ path, parent: null, node: -1, attribute: '', inputs, outputs, nodes });
const N = (name, op, ins, outs) => [name, op, '', ins, outs];
const env = (shapes = {}, types = {}) => ({ dagre, shapes, types, cache: new Map() });
const view = (g, e, req = {}) => makeView(g, { expanded: null, focus: null, budget: 120, mark: -1, ...req }, e);
const boxesOf = (v) => v.items.filter((b) => b.kind === 'node').map((b) => b.op);
const groupsOf = (v) => v.items.filter((b) => b.kind === 'group').map((b) => b.prefix);

test('graph model: Constants, and Identity/Cast of weights, fold into the boxes that read them', () => {
  const g = indexScope(scope([
    N('Constant_0', 'Constant', [], ['shape']),
    N('Identity_1', 'Identity', ['w.weight'], ['w_copy']), // w.weight: an initializer
    N('/m/Constant', 'Constant', [], ['/m/Constant_output_0']),
    N('/m/Cast', 'Cast', ['/m/Constant_output_0'], ['/m/Cast_output_0']),
    N('/m/Reshape', 'Reshape', ['x', 'shape'], ['r']),
    N('/m/MatMul', 'MatMul', ['r', 'w_copy'], ['y']),
    N('/m/Mul', 'Mul', ['y', '/m/Cast_output_0'], ['z']),
    N('Identity_2', 'Identity', ['x'], ['x_copy']), // of a graph input: not a constant
    N('/m/Add', 'Add', ['z', 'x_copy'], ['out']),
    N('Constant_3', 'Constant', [], ['const_out']), // a graph output: stays a box
  ], ['x'], ['out', 'const_out']));
  assert.deepEqual([...g.folded], [1, 1, 1, 1, 0, 0, 0, 0, 0, 0]);
  const shapes = { shape: '[2] = [4, -1]', w_copy: '[16, 8]', '/m/Cast_output_0': 'scalar', r: '[4, 16]' };
  const v = view(g, env(shapes, { shape: 'int64', w_copy: 'float', '/m/Cast_output_0': 'float' }));
  assert.deepEqual(boxesOf(v).sort(), ['Add', 'Constant', 'Identity', 'MatMul', 'Mul', 'Reshape']);
  const byOp = Object.fromEntries(v.items.filter((b) => b.kind === 'node').map((b) => [b.op, b]));
  assert.deepEqual(byOp.Reshape.weights.map((w) => w.text), ['shape int64[2] = [4, -1]']);
  assert.deepEqual(byOp.MatMul.weights.map((w) => [w.key, w.text]), [['w_copy', 'w_copy float[16, 8]']]);
  assert.deepEqual(byOp.Mul.weights.map((w) => w.text), ['Cast_output_0 float scalar']);
  assert.ok(byOp.Reshape.height > 32, 'the box grows for its constant row');
  // The edge Reshape → MatMul carries r and its shape; no edge comes from a folded node.
  const reshapeToMatMul = v.edges.find((e) => e.from === byOp.Reshape.id && e.to === byOp.MatMul.id);
  assert.equal(reshapeToMatMul?.label, '[4, 16]');
  assert.equal(v.stats.folded, 4);
});

test('graph model: nodes without a name path join their neighbours\' group; an If between a group\'s nodes makes no cycle', () => {
  // A detection-like head: /m/... nodes around an unscoped If (torch names it If_12) and Shape.
  const g = indexScope(scope([
    N('/m/a/Conv', 'Conv', ['x'], ['c']),
    N('Shape_3', 'Shape', ['c'], ['s']),
    N('/m/a/Equal', 'Equal', ['s'], ['cond']),
    N('If_12', 'If', ['cond'], ['picked']),
    N('/m/b/Concat', 'Concat', ['picked', 'c'], ['y']),
    N('/m/b/Relu', 'Relu', ['y'], ['out']),
    N('/top/Relu', 'Relu', ['x'], ['side']),
  ], ['x'], ['out', 'side']));
  const t = treeOf(g);
  assert.equal(prefixOf(t, t.groupOf[1]), 'm/a', 'Shape_3 reads and feeds only m/a');
  assert.equal(prefixOf(t, t.groupOf[3]), 'm', 'If_12 reads m/a and feeds m/b: m');
  assert.equal(prefixOf(t, t.groupOf[6]), 'top');
  // Collapsed, m is one box: the If is inside, so no edge goes from m to anything and back.
  const v = view(g, env(), { expanded: [] });
  assert.deepEqual(groupsOf(v).sort(), ['m']);
  const m = v.items.find((b) => b.prefix === 'm');
  assert.ok(!v.edges.some((e) => e.to === m.id && v.edges.some((f) => f.from === m.id && f.to === e.from)), 'no cycle through m');
  assert.equal(m.count, 6);
});

test('graph model: many loose ops beside groups are gathered, by connected piece, into (ops) groups', () => {
  const nodes = [];
  let prev = 'x';
  for (let i = 0; i < 10; i++) { nodes.push(N(`/Mask_${i}`, i % 2 ? 'Where' : 'Unsqueeze', [i ? `mask${i - 1}` : 'ids'], [`mask${i}`])); }
  for (let l = 0; l < 4; l++) {
    nodes.push(N(`/layers.${l}/attn/MatMul`, 'MatMul', [prev, 'mask9'], [`a${l}`]));
    nodes.push(N(`/layers.${l}/Add`, 'Add', [`a${l}`, prev], [`h${l}`]));
    prev = `h${l}`;
  }
  nodes.push(N('/Relu', 'Relu', [prev], ['out'])); // a loose node of its own: stays a node
  const g = indexScope(scope(nodes, ['x', 'ids'], ['out']));
  const v = view(g, env(), { expanded: [] });
  assert.deepEqual(groupsOf(v), ['(ops)', 'layers.0', 'layers.1', 'layers.2', 'layers.3']);
  assert.deepEqual(boxesOf(v), ['Relu']);
  // The layers are a chain: each feeds the next.
  const id = (p) => v.items.find((b) => b.prefix === p).id;
  for (let l = 0; l < 3; l++) assert.ok(v.edges.some((e) => e.from === id(`layers.${l}`) && e.to === id(`layers.${l + 1}`)), `layers.${l} → layers.${l + 1}`);
});

test('graph model: a group feeding more than FANOUT boxes of a level gets marks on its readers instead of edges', () => {
  const nodes = [N('/pos/Range', 'Range', ['x'], ['r']), N('/pos/Sin', 'Sin', ['r'], ['p'])];
  let prev = 'x';
  for (let l = 0; l < FANOUT + 2; l++) {
    nodes.push(N(`/layers.${l}/Add`, 'Add', [prev, 'p'], [`h${l}`]));
    nodes.push(N(`/layers.${l}/Mul`, 'Mul', [`h${l}`, 'p'], [`m${l}`]));
    prev = `m${l}`;
  }
  const g = indexScope(scope(nodes, ['x'], [prev]));
  const v = view(g, env(), { expanded: [] });
  const pos = v.items.find((b) => b.prefix === 'pos');
  assert.equal(pos.sharedOut, FANOUT + 2);
  assert.ok(!v.edges.some((e) => e.from === pos.id), 'no edge drawn from pos');
  const l3 = v.items.find((b) => b.prefix === 'layers.3');
  assert.deepEqual(l3.sharedIn.map((s) => s.label), ['pos']);
});

test('graph model: names 60,000 levels deep (and 2,000 x 3,000) are grouped by their first MAX_DEPTH parts', () => {
  const deep = (levels, leaf) => `${'a/'.repeat(levels)}${leaf}`;
  let g = indexScope(scope([N(deep(60000, 'Relu'), 'Relu', ['x'], ['y'])], ['x'], ['y']));
  let t = treeOf(g);
  assert.equal(t.size, MAX_DEPTH + 1);
  assert.equal(t.depth[t.groupOf[0]], MAX_DEPTH);
  let v = view(g, env({ x: '[2]', y: '[2]' }));
  assert.deepEqual(boxesOf(v), ['Relu'], 'one box (its groups are transparent: each holds one thing)');

  const nodes = [];
  let prev = 'x';
  for (let i = 0; i < 2000; i++) { nodes.push(N(`${i % 2 ? 'b/' : ''}${deep(3000, `n${i}`)}`, 'Relu', [prev], [`v${i}`])); prev = `v${i}`; }
  g = indexScope(scope(nodes, ['x'], [prev]));
  t = treeOf(g);
  assert.ok(t.size <= 2 * MAX_DEPTH + 2, `${t.size} groups`);
  v = view(g, env());
  assert.ok(v.stats.boxes <= 120 && v.stats.boxes >= 1);
  // The page names groups by prefix; a prefix names its group back.
  for (let c = 1; c < t.size; c++) assert.equal(groupByPrefix(t, prefixOf(t, c)), c);
  assert.equal(groupByPrefix(t, 'a/nope'), -1);
});

test('graph model: opening a group lays out that level and the ones holding it; edges enter frames through ports', () => {
  const nodes = [];
  let prev = 'x';
  for (let l = 0; l < 12; l++) {
    const p = `/layers.${l}`;
    nodes.push(N(`${p}/norm/Mul`, 'Mul', [prev, prev], [`${p}/n`]));
    nodes.push(N(`${p}/attn/MatMul`, 'MatMul', [`${p}/n`, prev], [`${p}/a`]));
    nodes.push(N(`${p}/attn/Softmax`, 'Softmax', [`${p}/a`], [`${p}/s`]));
    nodes.push(N(`${p}/mlp/Gemm`, 'Gemm', [`${p}/s`], [`${p}/m`]));
    nodes.push(N(`${p}/Add`, 'Add', [`${p}/m`, prev], [`${p}/h`]));
    prev = `${p}/h`;
  }
  const g = indexScope(scope(nodes, ['x'], [prev]));
  const e = env();
  const first = view(g, e, { expanded: [] });
  assert.equal(groupsOf(first).length, 12);
  assert.equal(first.stats.laidOut, 1);
  const opened = view(g, e, { expanded: ['layers.3'], focus: { group: 'layers.3' } });
  assert.equal(opened.stats.laidOut, 2, 'layers.3 and the model level');
  assert.deepEqual(opened.clusters.map((c) => c.prefix), ['layers.3']);
  assert.ok(groupsOf(opened).includes('layers.3/attn'));
  // layers.2 → layers.3's norm enters through a port at the frame's top: the edge ends inside it.
  const frame = opened.clusters[0];
  const into = opened.edges.filter((x) => x.from === opened.items.find((b) => b.prefix === 'layers.2').id);
  assert.equal(into.length, 1);
  const end = into[0].points.at(-1);
  assert.ok(end[0] >= frame.x && end[0] <= frame.x + frame.width && end[1] >= frame.y && end[1] <= frame.y + frame.height / 2, `ends in the frame's top half: ${end}`);
  // Opening one more: only it and the model level are laid out again; layers.3 comes from the cache.
  const two = view(g, e, { expanded: ['layers.3', 'layers.7'], focus: { group: 'layers.7' } });
  assert.equal(two.stats.laidOut, 2);
  assert.equal(two.clusters.length, 2);
});

test('graph model: Fit closes the deepest open groups until the view fits at the readable zoom (down to the first view)', () => {
  const nodes = [];
  let prev = 'x';
  for (let l = 0; l < 3; l++) {
    for (let k = 0; k < 45; k++) { nodes.push(N(`/blocks.${l}/op${k}`, 'Relu', [prev], [`b${l}_${k}`])); prev = `b${l}_${k}`; }
  }
  const g = indexScope(scope(nodes, ['x'], [prev]));
  const e = env();
  const all = view(g, e, { expanded: ['blocks.0', 'blocks.1', 'blocks.2'] });
  assert.ok(all.height > 2000);
  const fit = view(g, e, { expanded: ['blocks.0', 'blocks.1', 'blocks.2'], fit: { width: 1200, height: 700, minZoom: 0.75 } });
  assert.deepEqual(fit.expanded, []);
  assert.equal(fit.stats.collapsed, 1);
  assert.ok(fit.height * 0.75 <= 700, `${fit.height}`);
  // A chain too long to fit even closed: the first view's groups stay open (the minimap shows it).
  const long = [];
  prev = 'x';
  for (let l = 0; l < 40; l++) for (let k = 0; k < 2; k++) { long.push(N(`/m/layers.${l}/op${k}`, 'Relu', [prev], [`l${l}_${k}`])); prev = `l${l}_${k}`; }
  long.push(N('/pos/Range', 'Range', ['x'], ['r']), N('/pos/Sin', 'Sin', ['r'], ['p']), N('/head/MatMul', 'MatMul', [prev, 'p'], ['y']), N('/head/Relu', 'Relu', ['y'], ['z']));
  const g2 = indexScope(scope(long, ['x'], ['z']));
  const first = view(g2, e);
  assert.ok(first.expanded.includes('m') && !first.expanded.some((p) => p.startsWith('m/')), first.expanded.join(' '));
  const fit2 = view(g2, e, { expanded: [...first.expanded, 'm/layers.3'], fit: { width: 1200, height: 700, minZoom: 0.75 } });
  assert.deepEqual(fit2.expanded, first.expanded);
  assert.ok(fit2.height * 0.75 > 700, 'still taller than the canvas');
});
