// Tiny hand-written protobuf writer (and reader) for ONNX test models: no dependencies.
//
//   import { model, graph, tensor, attr } from './onnx_builder.js';
//   const bytes = model({
//     opset: 17,
//     inputs: [{ name: 'x', elemType: 'float', dims: ['N', 4] }],
//     outputs: ['y'],                                   // a name, or { name, elemType, dims }
//     nodes: [{ op: 'Relu', inputs: ['x'], outputs: ['y'] }],
//   });
//
// Field numbers are those of src/decode/proto/onnx_shapes.proto (= onnx.proto).

/** TensorProto.DataType by lower-case name. */
export const ELEM_TYPES = Object.freeze({
  float: 1, uint8: 2, int8: 3, uint16: 4, int16: 5, int32: 6, int64: 7, string: 8, bool: 9,
  float16: 10, double: 11, uint32: 12, uint64: 13, complex64: 14, complex128: 15, bfloat16: 16,
  float8e4m3fn: 17, float8e4m3fnuz: 18, float8e5m2: 19, float8e5m2fnuz: 20, uint4: 21, int4: 22,
  float4e2m1: 23,
});
/** The lower-case name of a TensorProto.DataType number (undefined if unknown). */
export const elemTypeName = (n) => Object.keys(ELEM_TYPES).find((k) => ELEM_TYPES[k] === n);

const ATTR_TYPES = { float: 1, int: 2, string: 3, tensor: 4, graph: 5, floats: 6, ints: 7, strings: 8 };
const VARINT = 0;
const I64 = 1;
const LEN = 2;
const I32 = 5;

// Section - Writer

class Writer {
  constructor() {
    this.bytes = [];
  }

  varint(value) {
    let v = BigInt.asUintN(64, BigInt(value)); // negative int64 → 10-byte two's complement
    while (v >= 0x80n) {
      this.bytes.push(Number(v & 0x7fn) | 0x80);
      v >>= 7n;
    }
    this.bytes.push(Number(v));
    return this;
  }

  key(field, wireType) {
    return this.varint((field << 3) | wireType);
  }

  raw(bytes) {
    for (const b of bytes) this.bytes.push(b);
    return this;
  }

  /** A varint field (int32/int64/enum/bool); skipped when value is undefined. */
  int(field, value) {
    return value === undefined ? this : this.key(field, VARINT).varint(value);
  }

  /** A length-delimited field: bytes, a string or a nested message (Uint8Array). */
  len(field, value) {
    if (value === undefined) return this;
    const bytes = typeof value === 'string' ? new TextEncoder().encode(value) : value;
    return this.key(field, LEN).varint(bytes.length).raw(bytes);
  }

  float(field, value) {
    if (value === undefined) return this;
    const b = new Uint8Array(4);
    new DataView(b.buffer).setFloat32(0, value, true);
    return this.key(field, I32).raw(b);
  }

  packedInts(field, values) {
    if (!values || values.length === 0) return this;
    const inner = new Writer();
    for (const v of values) inner.varint(v);
    return this.len(field, inner.finish());
  }

  packedFloats(field, values) {
    if (!values || values.length === 0) return this;
    const b = new Uint8Array(4 * values.length);
    const dv = new DataView(b.buffer);
    values.forEach((v, i) => dv.setFloat32(4 * i, v, true));
    return this.len(field, b);
  }

  finish() {
    return Uint8Array.from(this.bytes);
  }
}

const elemTypeNumber = (t) => {
  if (typeof t === 'number') return t;
  if (!(t in ELEM_TYPES)) throw new Error(`onnx_builder: unknown elemType ${t}`);
  return ELEM_TYPES[t];
};

// Section - Messages

/** TensorShapeProto from [4, 'N', null]: null is a dimension with neither value nor param (a
 * Uint8Array is a dim_param of those bytes). */
function shapeProto(dims) {
  const w = new Writer();
  for (const d of dims) {
    const dim = new Writer();
    if (typeof d === 'number' || typeof d === 'bigint') dim.int(1, d);
    else if (typeof d === 'string' || d instanceof Uint8Array) dim.len(2, d); // bytes: any dim_param
    w.len(1, dim.finish());
  }
  return w.finish();
}

/**
 * TypeProto. `{ elemType, dims }` is a tensor (dims undefined: unknown rank);
 * `{ sequence: T }`, `{ optional: T }` and `{ map: [keyType, T] }` nest.
 */
export function typeProto(t) {
  const w = new Writer();
  if (t.sequence) return w.len(4, new Writer().len(1, typeProto(t.sequence)).finish()).finish();
  if (t.optional) return w.len(9, new Writer().len(1, typeProto(t.optional)).finish()).finish();
  if (t.map) {
    const [keyType, value] = t.map;
    return w.len(5, new Writer().int(1, elemTypeNumber(keyType)).len(2, typeProto(value)).finish()).finish();
  }
  const tt = new Writer();
  if (t.elemType !== undefined) tt.int(1, elemTypeNumber(t.elemType));
  if (t.dims !== undefined) tt.len(2, shapeProto(t.dims));
  return w.len(1, tt.finish()).finish();
}

/** ValueInfoProto from a name or { name, elemType?, dims?, sequence?, optional?, map? }. */
export function valueInfo(v) {
  const info = typeof v === 'string' ? { name: v } : v;
  const w = new Writer().len(1, info.name);
  const typed = ['elemType', 'dims', 'sequence', 'optional', 'map'].some((k) => info[k] !== undefined);
  if (typed) w.len(2, typeProto(info));
  return w.finish();
}

/**
 * TensorProto: { name, elemType, dims, int64Data?, int32Data?, floatData?, rawData? }.
 * int64Data is written as int64_data (field 7), floatData as raw little-endian float32.
 */
export function tensor({ name, elemType = 'float', dims = [], int64Data, int32Data, floatData, rawData }) {
  const w = new Writer();
  for (const d of dims) w.int(1, d);
  w.int(2, elemTypeNumber(elemType));
  w.packedInts(5, int32Data);
  w.packedInts(7, int64Data);
  w.len(8, name);
  if (floatData) {
    const b = new Uint8Array(4 * floatData.length);
    floatData.forEach((v, i) => new DataView(b.buffer).setFloat32(4 * i, v, true));
    w.len(9, b);
  } else {
    w.len(9, rawData);
  }
  return w.finish();
}

/** Typed attribute values for when the plain-value guess of attribute() is not what you want. */
export const attr = Object.freeze({
  float: (value) => ({ type: 'float', value }),
  int: (value) => ({ type: 'int', value }),
  string: (value) => ({ type: 'string', value }),
  tensor: (value) => ({ type: 'tensor', value }),
  graph: (value) => ({ type: 'graph', value }),
  floats: (value) => ({ type: 'floats', value }),
  ints: (value) => ({ type: 'ints', value }),
  strings: (value) => ({ type: 'strings', value }),
});

function typedAttr(value) {
  if (value && typeof value === 'object' && 'type' in value && 'value' in value) return value;
  if (typeof value === 'bigint' || Number.isInteger(value)) return attr.int(value);
  if (typeof value === 'number') return attr.float(value);
  if (typeof value === 'string') return attr.string(value);
  if (Array.isArray(value)) {
    if (value.every((v) => typeof v === 'string')) return attr.strings(value);
    return value.every((v) => typeof v === 'bigint' || Number.isInteger(v)) ? attr.ints(value) : attr.floats(value);
  }
  throw new Error(`onnx_builder: cannot guess the attribute type of ${value}; use attr.*`);
}

/** AttributeProto. Plain values are guessed: integer → INT, number → FLOAT, string → STRING, arrays likewise. */
export function attribute(name, value) {
  const { type, value: v } = typedAttr(value);
  const w = new Writer().len(1, name);
  switch (type) {
    case 'float': w.float(2, v); break;
    case 'int': w.int(3, v); break;
    case 'string': w.len(4, v); break;
    case 'tensor': w.len(5, v instanceof Uint8Array ? v : tensor(v)); break;
    case 'graph': w.len(6, v instanceof Uint8Array ? v : graph(v)); break;
    case 'floats': w.packedFloats(7, v); break;
    case 'ints': w.packedInts(8, v); break;
    case 'strings': for (const s of v) w.len(9, s); break;
    default: throw new Error(`onnx_builder: unknown attribute type ${type}`);
  }
  return w.int(20, ATTR_TYPES[type]).finish();
}

/** NodeProto: { op, inputs, outputs, name?, domain?, attrs?: { name: value } }. */
export function node({ op, inputs = [], outputs = [], name, domain, attrs = {} }) {
  const w = new Writer();
  for (const i of inputs) w.len(1, i);
  for (const o of outputs) w.len(2, o);
  w.len(3, name);
  w.len(4, op);
  for (const [k, v] of Object.entries(attrs)) w.len(5, attribute(k, v));
  w.len(7, domain);
  return w.finish();
}

/** GraphProto: { name?, nodes, inputs, outputs, initializers, valueInfo }. */
export function graph({ name = 'g', nodes = [], inputs = [], outputs = [], initializers = [], valueInfo: infos = [] }) {
  const w = new Writer();
  for (const n of nodes) w.len(1, n instanceof Uint8Array ? n : node(n));
  w.len(2, name);
  for (const t of initializers) w.len(5, t instanceof Uint8Array ? t : tensor(t));
  for (const v of inputs) w.len(11, valueInfo(v));
  for (const v of outputs) w.len(12, valueInfo(v));
  for (const v of infos) w.len(13, valueInfo(v));
  return w.finish();
}

const opsetImport = ({ domain = '', version }) => new Writer().len(1, domain).int(2, version).finish();

/**
 * FunctionProto (a model-local function): { name, domain, inputs, outputs, nodes, attributes?,
 * opsets? } where inputs, outputs and attributes are name lists.
 */
export function functionProto({ name, domain = '', inputs = [], outputs = [], attributes = [], nodes = [], opsets = [] }) {
  const w = new Writer().len(1, name);
  for (const i of inputs) w.len(4, i);
  for (const o of outputs) w.len(5, o);
  for (const a of attributes) w.len(6, a);
  for (const n of nodes) w.len(7, n instanceof Uint8Array ? n : node(n));
  for (const o of opsets) w.len(9, opsetImport(o));
  return w.len(10, domain).finish();
}

/**
 * ModelProto. `opset` is the default-domain version; `opsets` ([{ domain, version }]) lists them all;
 * `functions` are functionProto() specs. Everything else is passed to graph().
 */
export function model({ irVersion = 8, opset = 17, opsets, functions = [], ...graphSpec } = {}) {
  const w = new Writer().int(1, irVersion);
  w.len(7, graph(graphSpec));
  for (const o of opsets ?? [{ domain: '', version: opset }]) w.len(8, opsetImport(o));
  for (const f of functions) w.len(25, functionProto(f));
  return w.finish();
}

// Section - Reader

/**
 * Splits a protobuf message into its fields: [{ field, wireType, value }], where value is a
 * BigInt for varints, a Uint8Array for length-delimited fields and fixed-width fields.
 */
export function readFields(bytes) {
  const out = [];
  let pos = 0;
  const varint = () => {
    let v = 0n;
    let shift = 0n;
    for (;;) {
      if (pos >= bytes.length) throw new Error('protobuf: truncated varint');
      const b = bytes[pos++];
      v |= BigInt(b & 0x7f) << shift;
      if (b < 0x80) return v;
      shift += 7n;
    }
  };
  while (pos < bytes.length) {
    const k = Number(varint());
    const field = k >>> 3;
    const wireType = k & 7;
    let value;
    if (wireType === VARINT) value = varint();
    else if (wireType === LEN) {
      const n = Number(varint());
      if (pos + n > bytes.length) throw new Error('protobuf: truncated field');
      value = bytes.subarray(pos, pos + n);
      pos += n;
    } else if (wireType === I64 || wireType === I32) {
      const n = wireType === I64 ? 8 : 4;
      value = bytes.subarray(pos, pos + n);
      pos += n;
    } else {
      throw new Error(`protobuf: unsupported wire type ${wireType}`);
    }
    out.push({ field, wireType, value });
  }
  return out;
}

const toInt64 = (v) => Number(BigInt.asIntN(64, v));
const text = (b) => new TextDecoder().decode(b);

/** Repeated int64 field, packed or not. */
function int64s(fields, field) {
  const out = [];
  for (const f of fields.filter((x) => x.field === field)) {
    if (f.wireType === VARINT) out.push(toInt64(f.value));
    else for (const p of readPackedVarints(f.value)) out.push(toInt64(p));
  }
  return out;
}

function readPackedVarints(bytes) {
  const out = [];
  let v = 0n;
  let shift = 0n;
  for (const b of bytes) {
    v |= BigInt(b & 0x7f) << shift;
    if (b < 0x80) {
      out.push(v);
      v = 0n;
      shift = 0n;
    } else {
      shift += 7n;
    }
  }
  return out;
}

/** TensorProto → { name, dims, dataType } (the test_data_set *.pb files are TensorProtos). */
export function readTensorHeader(bytes) {
  const fields = readFields(bytes);
  const dt = fields.find((f) => f.field === 2);
  const name = fields.find((f) => f.field === 8);
  return { name: name ? text(name.value) : '', dims: int64s(fields, 1), dataType: dt ? Number(dt.value) : 0 };
}

/** ModelProto → { opsets, inputs, outputs, initializers, nodes } (names only, top-level graph). */
export function readModelSummary(bytes) {
  const model = readFields(bytes);
  const g = model.find((f) => f.field === 7);
  const graphFields = g ? readFields(g.value) : [];
  const nameOf = (msgField, nameField) => graphFields
    .filter((f) => f.field === msgField)
    .map((f) => {
      const n = readFields(f.value).find((x) => x.field === nameField);
      return n ? text(n.value) : '';
    });
  const opsets = model.filter((f) => f.field === 8).map((f) => {
    const o = readFields(f.value);
    const d = o.find((x) => x.field === 1);
    const v = o.find((x) => x.field === 2);
    return { domain: d ? text(d.value) : '', version: v ? Number(v.value) : 0 };
  });
  return {
    opsets,
    inputs: nameOf(11, 1),
    outputs: nameOf(12, 1),
    initializers: nameOf(5, 8),
    nodes: graphFields.filter((f) => f.field === 1).map((f) => {
      const n = readFields(f.value);
      const op = n.find((x) => x.field === 4);
      return {
        opType: op ? text(op.value) : '',
        outputs: n.filter((x) => x.field === 2).map((x) => text(x.value)),
      };
    }),
  };
}
