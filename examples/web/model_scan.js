// A small protobuf scanner for what the inference result does not say: which values are graph
// inputs, initializers and outputs, and the shapes the model declares on them. It reads the wire
// format directly and skips everything else (nodes, tensor payloads, attributes), so it costs
// little even on large models; it can read from memory (Uint8Array) or, in a worker, from a
// File/Blob slice by slice (FileReaderSync).
//
// Field numbers: onnx.proto (ModelProto.graph = 7; GraphProto initializer 5, input 11, output 12,
// value_info 13, sparse_initializer 15; ValueInfoProto name 1, type 2; TypeProto tensor_type 1
// {elem_type 1, shape 2 {dim 1 {dim_value 1, dim_param 2}}}; TensorProto name 8;
// SparseTensorProto values 1).

import { blobReader } from '../../js/blob_source.js';

const ELEM_TYPE_NAMES = [
  null, 'float', 'uint8', 'int8', 'uint16', 'int16', 'int32', 'int64', 'string', 'bool', 'float16',
  'double', 'uint32', 'uint64', 'complex64', 'complex128', 'bfloat16', 'float8e4m3fn',
  'float8e4m3fnuz', 'float8e5m2', 'float8e5m2fnuz', 'uint4', 'int4', 'float4e2m1', 'float8e8m0',
];

/**
 * A random-access byte source over a Uint8Array, a Blob read synchronously (workers only: reads
 * that grow while the scan reads on, small after a skipped payload, js/blob_source.js), or a
 * { size, read(pos, len) } source (js/url_source.js).
 */
function byteSource(data) {
  if (data instanceof Uint8Array) {
    return { size: data.length, bytes: data, get: (pos, len) => data.subarray(pos, pos + len) };
  }
  if (typeof data.read === 'function') return { size: data.size, get: (pos, len) => data.read(pos, len) };
  const read = blobReader(data);
  return { size: data.size, get: (pos, len) => read(pos, len) };
}

const utf8 = new TextDecoder();

class Scanner {
  constructor(src) {
    this.src = src;
  }

  varint(pos) {
    let result = 0;
    let mul = 1;
    const mem = this.src.bytes; // in memory: index directly (no view per byte)
    for (let i = 0; i < 10; i++) {
      const b = mem ? mem[pos++] : this.src.get(pos++, 1)[0];
      if (b === undefined) throw new RangeError('truncated varint');
      result += (b & 0x7f) * mul;
      mul *= 128;
      if (b < 0x80) return [result, pos];
    }
    throw new RangeError('bad varint');
  }

  /** Calls fn(field, wireType, valuePos, valueLen or varint value) for each field in [pos, end). */
  fields(pos, end, fn) {
    while (pos < end) {
      let key;
      [key, pos] = this.varint(pos);
      const field = Math.floor(key / 8);
      const wt = key & 7;
      if (wt === 0) {
        let v;
        [v, pos] = this.varint(pos);
        fn(field, wt, pos, v);
      } else if (wt === 2) {
        let len;
        [len, pos] = this.varint(pos);
        if (pos + len > end) throw new RangeError('truncated field');
        fn(field, wt, pos, len);
        pos += len;
      } else if (wt === 1) {
        pos += 8;
      } else if (wt === 5) {
        pos += 4;
      } else {
        throw new RangeError(`unsupported wire type ${wt}`);
      }
    }
    if (pos !== end) throw new RangeError('truncated message');
  }

  string(pos, len) {
    const b = this.src.get(pos, len);
    if (len <= 32) {
      // Short ASCII names (the common case) without a TextDecoder call each.
      let ascii = true;
      for (let i = 0; i < len; i++) if (b[i] > 0x7f) { ascii = false; break; }
      if (ascii) {
        let out = '';
        for (let i = 0; i < len; i++) out += String.fromCharCode(b[i]);
        return out;
      }
    }
    return utf8.decode(b);
  }
}

function scanShape(sc, pos, len) {
  const dims = [];
  sc.fields(pos, pos + len, (f, wt, p, l) => {
    if (f !== 1 || wt !== 2) return;
    let dim = null;
    sc.fields(p, p + l, (g, wt2, q, m) => {
      if (g === 1 && wt2 === 0) dim = m;
      else if (g === 2 && wt2 === 2) dim = sc.string(q, m) || null;
    });
    dims.push(dim);
  });
  return dims;
}

function scanType(sc, pos, len) {
  let type = null;
  sc.fields(pos, pos + len, (f, wt, p, l) => {
    if (wt !== 2) return;
    if (f === 1 || f === 8) {
      const t = { kind: f === 1 ? 'tensor' : 'sparse_tensor', elemType: null, dims: null };
      sc.fields(p, p + l, (g, wt2, q, m) => {
        if (g === 1 && wt2 === 0) t.elemType = ELEM_TYPE_NAMES[m] ?? `type${m}`;
        else if (g === 2 && wt2 === 2) t.dims = scanShape(sc, q, m);
      });
      type = t;
    } else if (f === 4) type = { kind: 'sequence' };
    else if (f === 5) type = { kind: 'map' };
    else if (f === 9) type = { kind: 'optional' };
  });
  return type;
}

function scanValueInfo(sc, pos, len) {
  const v = { name: '', type: null };
  sc.fields(pos, pos + len, (f, wt, p, l) => {
    if (f === 1 && wt === 2) v.name = sc.string(p, l);
    else if (f === 2 && wt === 2) v.type = scanType(sc, p, l);
  });
  return v;
}

function tensorName(sc, pos, len) {
  let name = '';
  sc.fields(pos, pos + len, (f, wt, p, l) => {
    if (f === 8 && wt === 2) name = sc.string(p, l);
  });
  return name;
}

/**
 * Scans a serialized ModelProto. Returns {irVersion, producer, opsets: [{domain, version}],
 * graphName, inputs: [{name, type}], outputs: [{name, type}], initializers: [name]} (top-level
 * graph only; the nodes are skipped: the result has them).
 * `onProgress(fraction)` is called now and then.
 */
export function scanModel(data, onProgress) {
  const src = byteSource(data);
  const sc = new Scanner(src);
  const model = {
    irVersion: null, producer: '', producerVersion: '', opsets: [], graphName: '',
    inputs: [], outputs: [], initializers: [], valueInfoCount: 0,
  };
  let lastReport = 0;
  sc.fields(0, src.size, (f, wt, p, l) => {
    if (f === 1 && wt === 0) model.irVersion = l;
    else if (f === 2 && wt === 2) model.producer = sc.string(p, l);
    else if (f === 3 && wt === 2) model.producerVersion = sc.string(p, l);
    else if (f === 8 && wt === 2) {
      const o = { domain: '', version: null };
      sc.fields(p, p + l, (g, wt2, q, m) => {
        if (g === 1 && wt2 === 2) o.domain = sc.string(q, m);
        else if (g === 2 && wt2 === 0) o.version = m;
      });
      model.opsets.push(o);
    } else if (f === 7 && wt === 2) {
      sc.fields(p, p + l, (g, wt2, q, m) => {
        if (wt2 !== 2) return;
        if (onProgress && q - lastReport > 4 << 20) {
          lastReport = q;
          onProgress(q / src.size);
        }
        switch (g) {
          case 2: model.graphName = sc.string(q, m); break;
          case 5: model.initializers.push(tensorName(sc, q, m)); break;
          case 11: model.inputs.push(scanValueInfo(sc, q, m)); break;
          case 12: model.outputs.push(scanValueInfo(sc, q, m)); break;
          case 13: model.valueInfoCount++; break;
          case 15: {
            let name = '';
            sc.fields(q, q + m, (h, wt3, r, k) => {
              if (h === 1 && wt3 === 2) name = tensorName(sc, r, k);
            });
            model.initializers.push(name);
            break;
          }
          default: break;
        }
      });
    }
  });
  return model;
}
