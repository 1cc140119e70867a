// What a model viewer draws from a result: every node's inputs and outputs (top level, subgraph
// bodies, function bodies) as value keys, producers and consumers, the graph's inputs and
// outputs, and the known content of small integer tensors (getShape(name).value). The expected
// structure is the one each test model is built with; expected contents are worked out by hand.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { init } from '../../js/index.js';
import { model, tensor, attr } from './onnx_builder.js';
import { REPO } from './helpers.js';

let engine;
beforeAll(async () => {
  engine = await init();
});

/** Shape → Gather → Concat → Reshape, the exporters' shape subgraph, plus a second consumer of X. */
function shapeSubgraph() {
  return model({
    inputs: [{ name: 'X', elemType: 'float', dims: ['batch', 8, 'height', 'width'] }],
    outputs: ['Y', 'Z'],
    initializers: [
      tensor({ name: 'idx0', elemType: 'int64', dims: [1], int64Data: [0] }),
      tensor({ name: 'minus1', elemType: 'int64', dims: [1], int64Data: [-1] }),
    ],
    nodes: [
      { op: 'Shape', name: 'shape', inputs: ['X'], outputs: ['x_shape'] },
      { op: 'Gather', name: 'batch', inputs: ['x_shape', 'idx0'], outputs: ['b'], attrs: { axis: 0 } },
      { op: 'Concat', name: 'target', inputs: ['b', 'minus1'], outputs: ['t'], attrs: { axis: 0 } },
      { op: 'Reshape', name: 'flatten', inputs: ['X', 't'], outputs: ['Y'] },
      { op: 'Relu', name: 'relu', inputs: ['X'], outputs: ['Z'] },
    ],
  });
}

describe('nodes, producers and consumers', () => {
  test('every node lists its inputs and outputs, in order', () => {
    const r = engine.inferShapes(shapeSubgraph());
    expect(r.nodes.map((n) => [n.name, n.opType, n.domain, n.inputs, n.outputs])).toEqual([
      ['shape', 'Shape', '', ['X'], ['x_shape']],
      ['batch', 'Gather', '', ['x_shape', 'idx0'], ['b']],
      ['target', 'Concat', '', ['b', 'minus1'], ['t']],
      ['flatten', 'Reshape', '', ['X', 't'], ['Y']],
      ['relu', 'Relu', '', ['X'], ['Z']],
    ]);
    expect(r.inputs).toEqual(['X']);
    expect(r.outputs).toEqual(['Y', 'Z']);
    expect(r.subgraphs).toEqual({});
    expect(Object.isFrozen(r.nodes[3].inputs)).toBe(true);
  });

  test('producer and consumers of a value, with the input position', () => {
    const r = engine.inferShapes(shapeSubgraph());
    expect(r.producer('t')).toEqual({ path: '', index: 2, node: r.nodes[2] });
    expect(r.producer('X')).toBeNull(); // a graph input
    expect(r.producer('idx0')).toBeNull(); // an initializer
    expect(r.producer('nope')).toBeNull();
    expect(r.consumers('X').map((c) => [c.path, c.index, c.input, c.node.name])).toEqual([
      ['', 0, 0, 'shape'], ['', 3, 0, 'flatten'], ['', 4, 0, 'relu'],
    ]);
    expect(r.consumers('t').map((c) => [c.index, c.input])).toEqual([[3, 1]]);
    expect(r.consumers('Y')).toEqual([]); // a graph output nothing reads
    expect(r.node('', 4)).toBe(r.nodes[4]);
    expect(r.node('', 5)).toBeNull();
    expect(r.node('nope/', 0)).toBeNull();
  });

  test('an omitted optional input or output is null and keeps its position', () => {
    const bytes = model({
      inputs: [{ name: 'X', elemType: 'float', dims: ['N', 3] }, { name: 'max', elemType: 'float', dims: [] }],
      outputs: ['Y', 'M'],
      nodes: [
        { op: 'Clip', name: 'clip', inputs: ['X', '', 'max'], outputs: ['Y'] },
        { op: 'Dropout', name: 'drop', inputs: ['Y'], outputs: ['', 'M'] },
      ],
    });
    const r = engine.inferShapes(bytes);
    expect(r.nodes[0].inputs).toEqual(['X', null, 'max']);
    expect(r.nodes[1].outputs).toEqual([null, 'M']);
    expect(r.consumers('max').map((c) => c.input)).toEqual([2]);
    expect(r.producer('M')).toEqual({ path: '', index: 1, node: r.nodes[1] });
  });

  test('graph inputs that an initializer shadows are not listed as inputs', () => {
    const bytes = model({
      inputs: [{ name: 'X', elemType: 'float', dims: ['N', 2] }, { name: 'W', elemType: 'float', dims: [2, 2] }],
      initializers: [tensor({ name: 'W', dims: [2, 2], floatData: [1, 0, 0, 1] })],
      outputs: ['Y'],
      nodes: [{ op: 'MatMul', name: 'mm', inputs: ['X', 'W'], outputs: ['Y'] }],
    });
    expect(engine.inferShapes(bytes).inputs).toEqual(['X']);
  });
});

describe('subgraphs and function bodies', () => {
  test('If and Loop bodies: their nodes, outer values they read, and the calling node', () => {
    const r = engine.inferShapes(readFileSync(join(REPO, 'examples/models/control_flow.onnx')));
    // examples/models/make_models.py: node 2 is If "branch", node 3 Loop "loop".
    expect(Object.keys(r.subgraphs).sort()).toEqual(['branch/else_branch/', 'branch/then_branch/', 'loop/body/']);
    const body = r.subgraphs['loop/body/'];
    expect([body.parent, body.node, body.attribute]).toEqual(['', 3, 'body']);
    expect(body.inputs).toEqual(['loop/body/i', 'loop/body/cond_in', 'loop/body/acc_in']);
    expect(body.outputs).toEqual(['loop/body/cond_out', 'loop/body/acc_out', 'loop/body/row']);
    expect(body.nodes.map((n) => [n.name, n.opType, n.inputs, n.outputs])).toEqual([
      ['keep_going', 'Identity', ['loop/body/cond_in'], ['loop/body/cond_out']],
      ['accumulate', 'Add', ['loop/body/acc_in', 'y'], ['loop/body/acc_out']], // y: the outer If's output
      ['emit_row', 'Identity', ['loop/body/acc_out'], ['loop/body/row']],
    ]);
    const then = r.subgraphs['branch/then_branch/'];
    expect([then.parent, then.node, then.attribute, then.inputs, then.outputs])
      .toEqual(['', 2, 'then_branch', [], ['branch/then_branch/then_out']]);
    // x is read at the top level and, as an outer value, by both branches.
    expect(r.consumers('x').map((c) => `${c.path}${c.node.name}`).sort())
      .toEqual(['branch/else_branch/else_neg', 'branch/then_branch/then_relu', 'total']);
    expect(r.consumers('y').map((c) => [c.path, c.index, c.input])).toEqual([['', 3, 2], ['loop/body/', 1, 1]]);
    expect(r.producer('loop/body/acc_out')).toEqual({ path: 'loop/body/', index: 1, node: body.nodes[1] });
    expect(r.node('loop/body/', 2)).toBe(body.nodes[2]);
    // Every key a body node names is a key of values (they all have a type here).
    for (const g of Object.values(r.subgraphs)) {
      for (const n of g.nodes) for (const k of [...n.inputs, ...n.outputs]) expect(r.getShape(k)).not.toBeNull();
    }
  });

  test('a body value whose key a top-level name already takes is referenced by its ~2 key', () => {
    const body = {
      name: 'body',
      inputs: [{ name: 'i', elemType: 'int64', dims: [] }, { name: 'c', elemType: 'bool', dims: [] }, { name: 'acc', elemType: 'float', dims: ['N'] }],
      outputs: ['c_out', 'acc_out'],
      nodes: [
        { op: 'Identity', name: 'keep', inputs: ['c'], outputs: ['c_out'] },
        { op: 'Neg', name: 'neg', inputs: ['acc'], outputs: ['acc_out'] },
      ],
    };
    const bytes = model({
      inputs: [{ name: 'X', elemType: 'float', dims: ['N'] }, { name: 'n', elemType: 'int64', dims: [] }, { name: 'go', elemType: 'bool', dims: [] }],
      outputs: ['loop/body/acc_out', 'Y'],
      nodes: [
        { op: 'Relu', name: 'first', inputs: ['X'], outputs: ['loop/body/acc_out'] },
        { op: 'Loop', name: 'loop', inputs: ['n', 'go', 'X'], outputs: ['Y'], attrs: { body: attr.graph(body) } },
      ],
    });
    const r = engine.inferShapes(bytes);
    expect(r.subgraphValues['loop/body/acc_out~2']).toEqual({ path: 'loop/body/', name: 'acc_out' });
    expect(r.subgraphs['loop/body/'].nodes[1].outputs).toEqual(['loop/body/acc_out~2']);
    expect(r.subgraphs['loop/body/'].outputs).toEqual(['loop/body/c_out', 'loop/body/acc_out~2']);
    expect(r.producer('loop/body/acc_out')).toEqual({ path: '', index: 0, node: r.nodes[0] });
    expect(r.producer('loop/body/acc_out~2').path).toBe('loop/body/');

    // A top-level value without a type (no row of its own) takes its name from the body's keys too.
    const untyped = model({
      opsets: [{ domain: '', version: 17 }, { domain: 'vendor', version: 1 }],
      inputs: [{ name: 'X', elemType: 'float', dims: ['N'] }, { name: 'n', elemType: 'int64', dims: [] }, { name: 'go', elemType: 'bool', dims: [] }],
      outputs: ['Y'],
      nodes: [
        { op: 'Opaque', domain: 'vendor', name: 'first', inputs: ['X'], outputs: ['loop/body/acc_out'] },
        { op: 'Loop', name: 'loop', inputs: ['n', 'go', 'X'], outputs: ['Y'], attrs: { body: attr.graph(body) } },
      ],
    });
    const u = engine.inferShapes(untyped);
    expect(u.getShape('loop/body/acc_out')).toBeNull();
    expect(u.subgraphValues['loop/body/acc_out~2']).toEqual({ path: 'loop/body/', name: 'acc_out' });
    expect(u.subgraphValues['loop/body/acc_out']).toBeUndefined();
    expect(u.subgraphs['loop/body/'].nodes[1].outputs).toEqual(['loop/body/acc_out~2']);
  });

  test('a call of a model-local function has a body scope named after the function', () => {
    const bytes = model({
      opsets: [{ domain: '', version: 17 }, { domain: 'local', version: 1 }],
      functions: [{
        name: 'Double', domain: 'local', inputs: ['a'], outputs: ['out'],
        opsets: [{ domain: '', version: 17 }],
        nodes: [
          { op: 'Add', name: 'twice', inputs: ['a', 'a'], outputs: ['s'] },
          { op: 'Relu', name: 'act', inputs: ['s'], outputs: ['out'] },
        ],
      }],
      inputs: [{ name: 'X', elemType: 'float', dims: ['N', 3] }],
      outputs: ['Y'],
      nodes: [{ op: 'Double', domain: 'local', name: 'call', inputs: ['X'], outputs: ['Y'] }],
    });
    const r = engine.inferShapes(bytes);
    expect(r.getShape('Y')).toEqual({ kind: 'tensor', elemType: 'float', dims: ['N', 3] });
    const f = r.subgraphs['call/Double/'];
    expect([f.parent, f.node, f.attribute, f.inputs, f.outputs]).toEqual(['', 0, 'Double', ['call/Double/a'], ['call/Double/out']]);
    expect(f.nodes.map((n) => [n.name, n.opType, n.domain, n.inputs, n.outputs])).toEqual([
      ['twice', 'Add', '', ['call/Double/a', 'call/Double/a'], ['call/Double/s']],
      ['act', 'Relu', '', ['call/Double/s'], ['call/Double/out']],
    ]);
    expect(r.consumers('call/Double/a').map((c) => c.input)).toEqual([0, 1]);
  });

  test('a diagnostic inside a body carries the body path with its node index', () => {
    const body = {
      name: 'then',
      outputs: ['bad'],
      nodes: [{ op: 'Add', name: 'mismatch', inputs: ['A', 'B'], outputs: ['bad'] }],
    };
    const bytes = model({
      inputs: [{ name: 'A', elemType: 'float', dims: [2, 3] }, { name: 'B', elemType: 'float', dims: [4, 5] }, { name: 'c', elemType: 'bool', dims: [] }],
      outputs: ['Y'],
      nodes: [{ op: 'If', name: 'cond', inputs: ['c'], outputs: ['Y'], attrs: { then_branch: attr.graph(body), else_branch: attr.graph(body) } }],
    });
    const r = engine.inferShapes(bytes);
    const d = r.diagnostics.find((x) => x.node === 'mismatch');
    expect(d).toBeDefined();
    expect(d.nodeIndex).toBe(0);
    expect(['cond/then_branch/', 'cond/else_branch/']).toContain(d.path);
    expect(r.node(d.path, d.nodeIndex).name).toBe('mismatch');
    // Top-level diagnostics have the empty path.
    for (const x of r.diagnostics) if (x.node === 'cond') expect(x.path).toBe('');
  });
});

describe('getShape(name).value: the known content of small integer tensors', () => {
  test('Shape, Gather, Concat: the value-as-shape content, symbols included', () => {
    const r = engine.inferShapes(shapeSubgraph());
    expect(r.getShape('x_shape')).toEqual({ kind: 'tensor', elemType: 'int64', dims: [4], value: ['batch', 8, 'height', 'width'] });
    expect(r.getShape('b').value).toEqual(['batch']);
    expect(r.getShape('t').value).toEqual(['batch', -1]);
    expect(r.getShape('minus1').value).toEqual([-1]); // an initializer's content
    expect(r.getShape('Y').dims).toEqual(['batch', '8*height*width']);
    expect(r.getShape('Y').value).toBeUndefined(); // float data: no value
    expect(r.getShape('X').value).toBeUndefined();
  });

  test('a content of up to 64 elements is shown, a longer one is not', () => {
    const range = (n) => Array.from({ length: n }, (_, i) => i * 3 - 7);
    const bytes = model({
      inputs: [{ name: 'X', elemType: 'float', dims: ['N'] }],
      outputs: ['Y'],
      initializers: [
        tensor({ name: 'c64', elemType: 'int64', dims: [8, 8], int64Data: range(64) }),
        tensor({ name: 'c65', elemType: 'int64', dims: [65], int64Data: range(65) }),
        tensor({ name: 'i32', elemType: 'int32', dims: [], int32Data: [5] }),
      ],
      nodes: [{ op: 'Relu', name: 'r', inputs: ['X'], outputs: ['Y'] }],
    });
    const r = engine.inferShapes(bytes);
    expect(r.getShape('c64').value).toEqual(range(64)); // row-major, flattened
    expect(r.getShape('c65')).toEqual({ kind: 'tensor', elemType: 'int64', dims: [65] });
    expect(r.getShape('i32')).toEqual({ kind: 'tensor', elemType: 'int32', dims: [], value: [5] });
  });

  test('the CLI prints a known content beside the shape', () => {
    const dir = join(REPO, 'build');
    const file = join(dir, 'viewer_api_shape.onnx');
    writeFileSync(file, shapeSubgraph());
    const out = execFileSync(process.execPath, [join(REPO, 'js/cli.js'), file], { encoding: 'utf8', timeout: 300_000 });
    expect(out).toMatch(/^x_shape\s+Shape\s+int64 \[4\] = \[batch, 8, height, width\]$/m);
    expect(out).toMatch(/^t\s+Concat\s+int64 \[2\] = \[batch, -1\]$/m);
    const bound = execFileSync(process.execPath, [join(REPO, 'js/cli.js'), file, '--bind', 'batch=2,height=3,width=5'], { encoding: 'utf8', timeout: 300_000 });
    expect(bound).toMatch(/^x_shape\s+Shape\s+int64 \[4\] = \[2, 8, 3, 5\]\s+32$/m);
  });
});
