// Turns values of a serialized ONNX model into graph inputs, without a protobuf library: the
// torchvision differential gives a value the engine lost a fresh symbol per lost dim (bound to the
// runtime's sizes) to see which patterns lie behind it. The node that produced the value now writes
// `<name>__cut` instead, and a graph input `<name>` with the given dims is added; every other byte is
// kept (nodes are re-encoded field by field, other fields copied as they are).

const ELEM_TYPES = {
  float: 1, uint8: 2, int8: 3, uint16: 4, int16: 5, int32: 6, int64: 7, string: 8, bool: 9, float16: 10,
  double: 11, uint32: 12, uint64: 13, complex64: 14, complex128: 15, bfloat16: 16,
};
const MODEL_GRAPH = 7;
const GRAPH_NODE = 1;
const GRAPH_INPUT = 11;
const NODE_OUTPUT = 2;

function varint(n) {
  const out = [];
  let v = BigInt(n);
  do {
    let b = Number(v & 0x7fn);
    v >>= 7n;
    if (v) b |= 0x80;
    out.push(b);
  } while (v);
  return Uint8Array.from(out);
}

const lenField = (num, payload) => Buffer.concat([varint((num << 3) | 2), varint(payload.length), payload]);
const intField = (num, n) => Buffer.concat([varint(num << 3), varint(n)]);

function readVarint(b, i) {
  let v = 0n;
  let shift = 0n;
  for (;;) {
    if (i >= b.length) throw new Error('truncated varint');
    const x = b[i++];
    v |= BigInt(x & 0x7f) << shift;
    shift += 7n;
    if (!(x & 0x80)) return [Number(v), i];
  }
}

/** The fields of a message: [{ num, wire, raw (the whole field), payload (wire type 2) }]. */
function fields(buf) {
  const out = [];
  let i = 0;
  while (i < buf.length) {
    const start = i;
    let tag;
    [tag, i] = readVarint(buf, i);
    const wire = tag & 7;
    let payload = null;
    if (wire === 0) [, i] = readVarint(buf, i);
    else if (wire === 1) i += 8;
    else if (wire === 5) i += 4;
    else if (wire === 2) {
      let len;
      [len, i] = readVarint(buf, i);
      payload = buf.subarray(i, i + len);
      i += len;
    } else {
      throw new Error(`unexpected protobuf wire type ${wire} at byte ${start}`);
    }
    out.push({ num: tag >> 3, wire, raw: buf.subarray(start, i), payload });
  }
  return out;
}

/** ValueInfoProto { name, type: TypeProto { tensor_type { elem_type, shape { dim* } } } }. */
function valueInfo({ name, elemType, dims }) {
  const elem = ELEM_TYPES[elemType];
  if (!elem) throw new Error(`input ${name}: no TensorProto type for ${elemType}`);
  const shape = Buffer.concat(dims.map((d) => lenField(1, typeof d === 'number' ? intField(1, d) : lenField(2, Buffer.from(d)))));
  const tensor = Buffer.concat([intField(1, elem), lenField(2, shape)]);
  return Buffer.concat([lenField(1, Buffer.from(name)), lenField(2, lenField(1, tensor))]);
}

function cutNode(node, names) {
  const fs = fields(node);
  if (!fs.some((f) => f.num === NODE_OUTPUT && names.has(f.payload.toString()))) return node;
  return Buffer.concat(fs.map((f) => (f.num === NODE_OUTPUT && names.has(f.payload.toString())
    ? lenField(NODE_OUTPUT, Buffer.from(`${f.payload.toString()}__cut`)) : f.raw)));
}

/**
 * `bytes` (a ModelProto) with each of `entries` ([{ name, elemType: 'float'|…, dims: [number|string] }])
 * made a graph input of the main graph.
 */
export function cutAt(bytes, entries) {
  const names = new Set(entries.map((e) => e.name));
  const parts = fields(bytes).map((f) => {
    if (f.num !== MODEL_GRAPH || f.wire !== 2) return f.raw;
    const graph = fields(f.payload).map((g) => (g.num === GRAPH_NODE && g.wire === 2
      ? lenField(GRAPH_NODE, cutNode(g.payload, names)) : g.raw));
    for (const e of entries) graph.push(lenField(GRAPH_INPUT, valueInfo(e)));
    return lenField(MODEL_GRAPH, Buffer.concat(graph));
  });
  return Buffer.concat(parts);
}
