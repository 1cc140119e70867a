// A declared output label is a claim nothing checks: torch 1.13 labels the dims of outputs it was
// not given dynamic_axes for itself, and gives one label to unrelated sizes (`Padpadded_dim_2` on a
// Pad's padded height and on another output's batch). A label set against a graph-input symbol on
// one output and against a size computed from the inputs on another must not make that computed
// size the input symbol (README "How inference works", anchors). Generated for every op below (each
// computes a spatial size from `height`), with dict-form axes (the other output shares the
// symbols) and list-form ones (it has its own), the label on either side of the other output; each
// value is checked at bindings against the op's formula by hand.
import { init } from '../../js/index.js';
import { model } from './onnx_builder.js';

const C = 8;
// name, nodes reading 'x' [N, 8, height, width] and writing 'a', initializers, the size of a's dim 2
// and 3 as a function of (height, width), a's channels.
const OPS = [
  { name: 'MaxPool k3 s2', nodes: [{ op: 'MaxPool', inputs: ['x'], outputs: ['a'], attrs: { kernel_shape: [3, 3], strides: [2, 2] } }],
    size: (h) => Math.floor((h - 3) / 2) + 1, channels: C, min: 3 },
  { name: 'Conv k3 s2 p1', nodes: [{ op: 'Conv', inputs: ['x', 'w'], outputs: ['a'], attrs: { kernel_shape: [3, 3], strides: [2, 2], pads: [1, 1, 1, 1] } }],
    inits: [{ name: 'w', dims: [4, C, 3, 3], floatData: new Array(4 * C * 9).fill(0.5) }],
    size: (h) => Math.floor((h + 2 - 3) / 2) + 1, channels: 4, min: 2 },
  { name: 'DepthToSpace 2', nodes: [{ op: 'DepthToSpace', inputs: ['x'], outputs: ['a'], attrs: { blocksize: 2 } }],
    size: (h) => 2 * h, channels: C / 4, min: 1 },
  { name: 'Pad to +5', nodes: [{ op: 'Pad', inputs: ['x', 'pads'], outputs: ['a'] }],
    inits: [{ name: 'pads', elemType: 'int64', dims: [8], int64Data: [0, 0, 2, 2, 0, 0, 3, 3] }],
    size: (h) => h + 5, channels: C, min: 1 },
  { name: 'Slice step 2', nodes: [{ op: 'Slice', inputs: ['x', 'st', 'en', 'ax', 'sp'], outputs: ['a'] }],
    inits: [{ name: 'st', elemType: 'int64', dims: [2], int64Data: [0, 0] },
      { name: 'en', elemType: 'int64', dims: [2], int64Data: [1000, 1000] },
      { name: 'ax', elemType: 'int64', dims: [2], int64Data: [2, 3] },
      { name: 'sp', elemType: 'int64', dims: [2], int64Data: [2, 2] }],
    size: (h) => Math.ceil(h / 2), channels: C, min: 1 },
  { name: 'ConvTranspose s2 output_padding 1', nodes: [{ op: 'ConvTranspose', inputs: ['x', 'wt'], outputs: ['a'],
    attrs: { kernel_shape: [3, 3], strides: [2, 2], pads: [1, 1, 1, 1], output_padding: [1, 1] } }],
    inits: [{ name: 'wt', dims: [C, 4, 3, 3], floatData: new Array(4 * C * 9).fill(0.5) }],
    size: (h) => 2 * h, channels: 4, min: 1 },
  { name: 'Concat with itself', nodes: [{ op: 'Concat', inputs: ['x', 'x'], outputs: ['a'], attrs: { axis: 2 } }],
    size: (h) => 2 * h, channels: C, min: 1, widthSize: (w) => w },
];

// The other output: 'b' = Identity(t), t [batch, time] (dict form) or [t_0, t_1] (list form), its
// dims declared with a's labels L2, L3 (or L3, L2): torch's `order` [Padpadded_dim_2, Padpadded_dim_3].
function labelledModel(op, { listForm, swap }) {
  const t = listForm ? ['t_0', 't_1'] : ['N', 'time'];
  return model({
    opset: 17,
    inputs: [{ name: 'x', elemType: 'float', dims: ['N', C, 'height', 'width'] }, { name: 't', elemType: 'float', dims: t }],
    outputs: [{ name: 'a', elemType: 'float', dims: ['L0', 'L1', 'L2', 'L3'] },
      { name: 'b', elemType: 'float', dims: swap ? ['L3', 'L2'] : ['L2', 'L3'] }],
    initializers: op.inits ?? [],
    nodes: [...op.nodes, { op: 'Identity', inputs: ['t'], outputs: ['b'] }],
  });
}

const CASES = OPS.flatMap((op) => [false, true].flatMap((listForm) => [false, true].map((swap) => [
  `${op.name}, ${listForm ? 'list' : 'dict'}-form axes, labels ${swap ? 'swapped' : 'in order'}`, op, listForm, swap])));

let engine;
beforeAll(async () => {
  engine = await init();
});

test.each(CASES)('%s: the labels name no input symbol', (_, op, listForm, swap) => {
  const result = engine.inferShapes(labelledModel(op, { listForm, swap }));
  const a = result.getShape('a').dims;
  const b = result.getShape('b').dims;
  expect(b).toEqual(listForm ? ['t_0', 't_1'] : ['N', 'time']);
  const widthSize = op.widthSize ?? op.size;
  for (const [N, height, width, time] of [[1, 9, 13, 5], [3, 16, 7, 2], [2, op.min + 1, 40, 11]]) {
    const sizes = listForm ? { N, height, width, t_0: N, t_1: time } : { N, height, width, time };
    const ev = result.evaluate(sizes).values;
    expect(ev.a).toEqual([N, op.channels, op.size(height), widthSize(width)]);
    expect(ev.b).toEqual([N, time]);
  }
  // a's computed sizes keep their expressions: no graph-input symbol stands for them
  expect(a[0]).toBe('N');
  for (const d of a.slice(2)) expect(['N', 'time', 't_0', 't_1']).not.toContain(d);
});

// A size decided at run time labelled alike with a size of the inputs: torch 1.13 labels a
// masked_select's count `GatherElementspicked_dim_0`, as it labels another output's batch. The count
// is never the batch: it keeps its own symbol (or the label, then a name for it alone) with its `<=`
// bound, for each op whose output size the data decides, the label on either output first.
const DATA_OPS = [
  { name: 'NonZero', nodes: [{ op: 'NonZero', inputs: ['m'], outputs: ['nz'] }, { op: 'Transpose', inputs: ['nz'], outputs: ['c'] }],
    rank: 2, countDim: 0, elemType: 'int64' },
  { name: 'Compress', nodes: [{ op: 'Cast', inputs: ['m'], outputs: ['mb'], attrs: { to: 9 } },
    { op: 'Flatten', inputs: ['mb'], outputs: ['mf'], attrs: { axis: 0 } },
    { op: 'Squeeze', inputs: ['mf', 'zero'], outputs: ['ms'] },
    { op: 'Flatten', inputs: ['m'], outputs: ['xf'], attrs: { axis: 0 } },
    { op: 'Squeeze', inputs: ['xf', 'zero'], outputs: ['xs'] },
    { op: 'Compress', inputs: ['xs', 'ms'], outputs: ['c'], attrs: { axis: 0 } }],
  inits: [{ name: 'zero', elemType: 'int64', dims: [1], int64Data: [0] }], rank: 1, countDim: 0 },
  { name: 'Unique', nodes: [{ op: 'Unique', inputs: ['m'], outputs: ['c'] }], rank: 1, countDim: 0 },
];

function dataModel(op, { labelFirst }) {
  const outputs = [{ name: 'c', elemType: op.elemType ?? 'float', dims: op.rank === 2 ? ['L0', 2] : ['L0'] },
    { name: 'b', elemType: 'float', dims: ['L0', 'L1'] }];
  return model({
    opset: 17,
    inputs: [{ name: 'm', elemType: 'float', dims: ['N', 'time'] }, { name: 't', elemType: 'float', dims: ['N', 'time'] }],
    outputs: labelFirst ? outputs.reverse() : outputs,
    initializers: op.inits ?? [],
    nodes: [...op.nodes, { op: 'Identity', inputs: ['t'], outputs: ['b'] }],
  });
}

const DATA_CASES = DATA_OPS.flatMap((op) => [false, true].map((labelFirst) => [
  `${op.name}, ${labelFirst ? 'the batch' : 'the count'} declared first`, op, labelFirst]));

test.each(DATA_CASES)('%s: a label does not make a count the batch', (_, op, labelFirst) => {
  const result = engine.inferShapes(dataModel(op, { labelFirst }));
  expect(result.getShape('b').dims).toEqual(['N', 'time']);
  const count = result.getShape('c').dims[op.countDim];
  expect(typeof count).toBe('string');
  expect(['N', 'time']).not.toContain(count); // its own symbol, or the label (a name for the count alone)
  // its bound: at most every element, N*time
  const bound = (result.constraints.lessEqual ?? []).find(([a]) => a === count)?.[1];
  expect(bound).toBeDefined();
  expect(result.evaluate({ N: 3, time: 5 }).values.b).toEqual([3, 5]);
});
