// A model for the worker to infer once the engine is loaded, before a model is chosen: the first
// inference in a fresh worker runs on cold code (wasm from its baseline compiler, the result's JS
// not yet optimized), which took a 100k-node chain's inference 0.55-0.86 s in the page instead of
// 0.24-0.25 s after this warm-up (worker.js warmUp; tests/browser/bench_table.mjs). It is a
// chain of `n` nodes of the ops exported models use most, on a symbolic [n, n] input, written
// as ONNX protobuf here (field numbers: onnx.proto).

const OPS = ['Relu', 'Add', 'MatMul', 'Sigmoid', 'Mul', 'Tanh'];
const UNARY = new Set(['Relu', 'Sigmoid', 'Tanh']);

function varint(out, v) {
  while (v > 127) {
    out.push((v & 127) | 128);
    v >>>= 7;
  }
  out.push(v);
}

/** A length-delimited field: `number`, then `body` (an array of bytes, or an ASCII string). */
function field(out, number, body) {
  const bytes = typeof body === 'string' ? [...body].map((c) => c.charCodeAt(0)) : body;
  varint(out, (number << 3) | 2);
  varint(out, bytes.length);
  for (const b of bytes) out.push(b);
}

function varintField(out, number, v) {
  varint(out, number << 3);
  varint(out, v);
}

/** ValueInfoProto of a float tensor of shape [n, n] (dims named 'n'). */
function valueInfo(name) {
  const dim = [];
  field(dim, 2, 'n'); // Dimension.dim_param
  const shape = [];
  field(shape, 1, dim);
  field(shape, 1, dim);
  const tensor = [];
  varintField(tensor, 1, 1); // elem_type FLOAT
  field(tensor, 2, shape);
  const type = [];
  field(type, 1, tensor); // TypeProto.tensor_type
  const out = [];
  field(out, 1, name);
  field(out, 2, type);
  return out;
}

/** The ONNX bytes of the warm-up chain of `n` nodes. */
export function warmUpModel(n) {
  const graph = [];
  let prev = 'x';
  for (let i = 0; i < n; i++) {
    const op = OPS[i % OPS.length];
    const node = [];
    field(node, 1, prev);
    if (!UNARY.has(op)) field(node, 1, prev);
    field(node, 2, `v${i}`);
    field(node, 3, `n${i}`);
    field(node, 4, op);
    field(graph, 1, node);
    prev = `v${i}`;
  }
  field(graph, 2, 'warm_up');
  field(graph, 11, valueInfo('x'));
  field(graph, 12, valueInfo(prev));
  const opset = [];
  varintField(opset, 2, 17);
  const model = [];
  varintField(model, 1, 8); // ir_version
  field(model, 7, graph);
  field(model, 8, opset);
  return new Uint8Array(model);
}
