// Field-level protobuf editing of ONNX models and TensorProtos, for the shape-checking mutants.
// A message is read into its fields (readFields of tests/js/onnx_builder.js) and written back field by
// field, so everything the mutant generator does not touch (attributes, subgraphs, functions, fields
// of newer ONNX versions) goes through byte for byte.
//
// Field numbers are those of ../shared/onnx-spec/onnx.proto.
import { readFields } from '../js/onnx_builder.js';

export { readFields };

const VARINT = 0;
const I64 = 1;
const LEN = 2;
const I32 = 5;

// Section - Writing fields

function pushVarint(out, value) {
  let v = BigInt.asUintN(64, BigInt(value));
  while (v >= 0x80n) {
    out.push(Number(v & 0x7fn) | 0x80);
    v >>= 7n;
  }
  out.push(Number(v));
}

/** Bytes of a list of fields ({ field, wireType, value } as readFields gives them). */
export function writeFields(fields) {
  const parts = [];
  let total = 0;
  for (const { field, wireType, value } of fields) {
    const head = [];
    pushVarint(head, (field << 3) | wireType);
    if (wireType === VARINT) {
      pushVarint(head, value);
      parts.push(Uint8Array.from(head));
      total += head.length;
    } else {
      if (wireType === LEN) pushVarint(head, value.length);
      else if (wireType !== I64 && wireType !== I32) throw new Error(`protobuf: wire type ${wireType}`);
      parts.push(Uint8Array.from(head), value);
      total += head.length + value.length;
    }
  }
  const out = new Uint8Array(total);
  let pos = 0;
  for (const p of parts) {
    out.set(p, pos);
    pos += p.length;
  }
  return out;
}

export const varintField = (field, value) => ({ field, wireType: VARINT, value: BigInt(value) });
export const lenField = (field, value) => ({
  field,
  wireType: LEN,
  value: typeof value === 'string' ? new TextEncoder().encode(value) : value,
});

const text = (b) => new TextDecoder().decode(b);
const toInt64 = (v) => BigInt.asIntN(64, v);

function packedVarints(bytes) {
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

/** A repeated varint field, packed or not, as BigInts (sign-extended from 64 bits). */
function varints(fields, field) {
  const out = [];
  for (const f of fields) {
    if (f.field !== field) continue;
    if (f.wireType === VARINT) out.push(toInt64(f.value));
    else if (f.wireType === LEN) for (const v of packedVarints(f.value)) out.push(toInt64(v));
  }
  return out;
}

/** A repeated fixed-width field (float: 4 bytes, double: 8), packed or not, as the bytes in order. */
function fixedBytes(fields, field, width) {
  const chunks = fields.filter((f) => f.field === field).map((f) => f.value);
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  let pos = 0;
  for (const c of chunks) {
    out.set(c, pos);
    pos += c.length;
  }
  if (out.length % width) throw new Error('protobuf: truncated fixed-width field');
  return out;
}

// Section - Element types

/** TensorProto.DataType numbers used below (onnx.proto). */
export const DT = Object.freeze({
  FLOAT: 1, UINT8: 2, INT8: 3, UINT16: 4, INT16: 5, INT32: 6, INT64: 7, STRING: 8, BOOL: 9,
  FLOAT16: 10, DOUBLE: 11, UINT32: 12, UINT64: 13,
});

/** Bytes per element of the fixed-width types that raw_data stores whole (null: not stored whole). */
const ELEM_BYTES = { 1: 4, 2: 1, 3: 1, 4: 2, 5: 2, 6: 4, 7: 8, 9: 1, 10: 2, 11: 8, 12: 4, 13: 8, 16: 2 };
for (let t = 17; t <= 20; t++) ELEM_BYTES[t] = 1; // float8 variants
export const elemBytes = (dt) => ELEM_BYTES[dt] ?? null;

export const isIntegerType = (dt) => [2, 3, 4, 5, 6, 7, 12, 13, 21, 22].includes(dt);
export const isFloatType = (dt) => [1, 10, 11, 16, 17, 18, 19, 20, 23].includes(dt);

// Section - Tensors

/**
 * TensorProto → { name, dataType, dims: number[], data }. data: a little-endian byte array of the
 * elements (fixed-width types, whatever field held them), or string[] for STRING; null when the
 * tensor's content is external or of a type this reader does not unpack (4-bit, complex).
 */
export function readTensor(bytes) {
  const fields = readFields(bytes);
  const one = (n) => fields.find((f) => f.field === n);
  const dataType = one(2) ? Number(one(2).value) : 0;
  const dims = varints(fields, 1).map(Number);
  const name = one(8) ? text(one(8).value) : '';
  const count = dims.reduce((a, b) => a * b, 1);
  const out = { name, dataType, dims, data: null };
  if (fields.some((f) => f.field === 13 || f.field === 14)) return out; // external data
  if (dataType === DT.STRING) {
    out.data = fields.filter((f) => f.field === 6).map((f) => text(f.value));
    return out;
  }
  const width = elemBytes(dataType);
  if (width === null) return out;
  const raw = one(9);
  if (raw) {
    out.data = Uint8Array.from(raw.value);
  } else {
    const buf = new Uint8Array(count * width);
    const dv = new DataView(buf.buffer);
    if (dataType === DT.FLOAT) buf.set(fixedBytes(fields, 4, 4));
    else if (dataType === DT.DOUBLE) buf.set(fixedBytes(fields, 10, 8));
    else if (dataType === DT.INT64) varints(fields, 7).forEach((v, i) => dv.setBigInt64(8 * i, v, true));
    else if (dataType === DT.UINT32 || dataType === DT.UINT64) {
      varints(fields, 11).forEach((v, i) => {
        if (width === 8) dv.setBigUint64(8 * i, BigInt.asUintN(64, v), true);
        else dv.setUint32(4 * i, Number(BigInt.asUintN(32, v)), true);
      });
    } else {
      // int32_data holds every narrower type (and float16/bfloat16/float8 as their bits).
      varints(fields, 5).forEach((v, i) => {
        const n = Number(BigInt.asIntN(32, v));
        if (width === 4) dv.setInt32(4 * i, n, true);
        else if (width === 2) dv.setUint16(2 * i, n & 0xffff, true);
        else buf[i] = n & 0xff;
      });
    }
    out.data = buf;
  }
  if (out.data.length !== count * width) throw new Error(`tensor ${name}: ${out.data.length} bytes for ${count} elements`);
  return out;
}

// Section - Models

/** Removes every shape from a TypeProto (tensor and sparse tensor types, through sequence/map/optional). */
function stripTypeShapes(typeBytes) {
  return writeFields(readFields(typeBytes).map((f) => {
    if (f.wireType !== LEN) return f;
    if (f.field === 1 || f.field === 8) {
      return { ...f, value: writeFields(readFields(f.value).filter((x) => x.field !== 2)) };
    }
    if (f.field === 4 || f.field === 9) { // sequence / optional: elem_type = 1
      return { ...f, value: writeFields(readFields(f.value).map((x) => (x.field === 1 ? { ...x, value: stripTypeShapes(x.value) } : x))) };
    }
    if (f.field === 5) { // map: value_type = 2
      return { ...f, value: writeFields(readFields(f.value).map((x) => (x.field === 2 ? { ...x, value: stripTypeShapes(x.value) } : x))) };
    }
    return f;
  }));
}

/** The TypeProto of a tensor of elemType with concrete dims. */
function tensorType(elemType, dims) {
  const shape = writeFields(dims.map((d) => lenField(1, writeFields([varintField(1, d)]))));
  return writeFields([lenField(1, writeFields([varintField(1, elemType), lenField(2, shape)]))]);
}

const nameOfValueInfo = (bytes) => {
  const n = readFields(bytes).find((f) => f.field === 1);
  return n ? text(n.value) : '';
};

/** The names of the graph's inputs that no initializer defines, in order. */
export function graphDataInputs(graphFields) {
  const inits = new Set(graphFields.filter((f) => f.field === 5).map((f) => {
    const n = readFields(f.value).find((x) => x.field === 8);
    return n ? text(n.value) : '';
  }));
  return graphFields.filter((f) => f.field === 11).map((f) => nameOfValueInfo(f.value)).filter((n) => !inits.has(n));
}

/**
 * The model with its top-level graph rewritten: graph outputs keep their types without shapes,
 * value_info is dropped, and each input named in `inputShapes` ({ name: { elemType, dims } }) is
 * declared with exactly that concrete shape.
 */
export function rewriteModel(modelBytes, inputShapes) {
  const model = readFields(modelBytes);
  return writeFields(model.map((mf) => {
    if (mf.field !== 7) return mf;
    const graph = readFields(mf.value).flatMap((f) => {
      if (f.field === 13) return []; // value_info
      if (f.field === 12) {
        return [{ ...f, value: writeFields(readFields(f.value).map((x) => (x.field === 2 ? { ...x, value: stripTypeShapes(x.value) } : x))) }];
      }
      if (f.field === 11) {
        const want = inputShapes[nameOfValueInfo(f.value)];
        if (!want) return [f];
        const vi = readFields(f.value).filter((x) => x.field !== 2);
        vi.splice(1, 0, lenField(2, tensorType(want.elemType, want.dims)));
        return [{ ...f, value: writeFields(vi) }];
      }
      return [f];
    });
    return { ...mf, value: writeFields(graph) };
  }));
}

/**
 * A summary of the top-level graph: { opsets, dataInputs: [{ name, kind, elemType }], nodes:
 * [{ opType, domain, inputs, outputs }] } where kind is 'tensor', 'sequence', 'map', 'optional' or
 * 'sparse' (the graph input's TypeProto case).
 */
export function readModel(modelBytes) {
  const model = readFields(modelBytes);
  const g = model.find((f) => f.field === 7);
  const graph = g ? readFields(g.value) : [];
  const opsets = model.filter((f) => f.field === 8).map((f) => {
    const o = readFields(f.value);
    const d = o.find((x) => x.field === 1);
    const v = o.find((x) => x.field === 2);
    return { domain: d ? text(d.value) : '', version: v ? Number(toInt64(v.value)) : 0 };
  });
  const KINDS = { 1: 'tensor', 4: 'sequence', 5: 'map', 8: 'sparse', 9: 'optional' };
  const typeOf = new Map(graph.filter((f) => f.field === 11).map((f) => {
    const vi = readFields(f.value);
    const t = vi.find((x) => x.field === 2);
    const tf = t ? readFields(t.value).find((x) => KINDS[x.field]) : undefined;
    let elemType = 0;
    if (tf && tf.field === 1) {
      const e = readFields(tf.value).find((x) => x.field === 1);
      elemType = e ? Number(e.value) : 0;
    }
    return [nameOfValueInfo(f.value), { kind: tf ? KINDS[tf.field] : 'unknown', elemType }];
  }));
  const dataInputs = graphDataInputs(graph).map((name) => ({ name, ...typeOf.get(name) }));
  const nodes = graph.filter((f) => f.field === 1).map((f) => {
    const n = readFields(f.value);
    const s = (k) => {
      const x = n.find((y) => y.field === k);
      return x ? text(x.value) : '';
    };
    return {
      opType: s(4),
      domain: s(7),
      inputs: n.filter((x) => x.field === 1).map((x) => text(x.value)),
      outputs: n.filter((x) => x.field === 2).map((x) => text(x.value)),
    };
  });
  return { opsets, dataInputs, nodes };
}
