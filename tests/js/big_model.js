// Streaming protobuf writer for big generated ONNX models (tests and `npm run bench`): the model is
// described as nested "pieces" whose sizes are known up front, and written front to back with
// positioned writes, so nothing close to the model's size is ever held in memory. Tensor payloads
// are holes: the file is sparse (reads of a hole give zeros, as a real zero-filled payload would),
// unless `fill` asks for real bytes (a repeating pattern written from one 1 MiB buffer).
import { closeSync, ftruncateSync, openSync, writeSync } from 'node:fs';
import { node, valueInfo } from './onnx_builder.js';

const enc = new TextEncoder();

function varint(n) {
  const out = [];
  let v = BigInt(n);
  while (v >= 0x80n) {
    out.push(Number(v & 0x7fn) | 0x80);
    v >>= 7n;
  }
  out.push(Number(v));
  return Uint8Array.from(out);
}

/** A message under construction: byte chunks and holes, with its total size. */
export class Pieces {
  constructor() {
    this.parts = [];
    this.size = 0;
  }

  bytes(u8) {
    if (u8.length) {
      this.parts.push(u8);
      this.size += u8.length;
    }
    return this;
  }

  hole(n) {
    this.parts.push(n);
    this.size += n;
    return this;
  }

  int(field, value) {
    return this.bytes(varint(field << 3)).bytes(varint(value));
  }

  /** A length-delimited field holding bytes, a string or another Pieces. */
  len(field, value) {
    const inner = typeof value === 'string' ? enc.encode(value) : value;
    this.bytes(varint((field << 3) | 2)).bytes(varint(inner.size ?? inner.length));
    if (inner instanceof Pieces) {
      for (const p of inner.parts) this.parts.push(p);
      this.size += inner.size;
    } else {
      this.bytes(inner);
    }
    return this;
  }
}

/** TensorProto whose raw_data is a hole of dims.product * 4 bytes (float) or `bytesPerElem`. */
export function bigTensor({ name, dims, dataType = 1, bytesPerElem = 4 }) {
  const t = new Pieces();
  for (const d of dims) t.int(1, d);
  t.int(2, dataType);
  t.len(8, name);
  const n = dims.reduce((a, b) => a * b, 1) * bytesPerElem;
  t.bytes(varint((9 << 3) | 2)).bytes(varint(n)).hole(n);
  return t;
}

/** ModelProto pieces from { nodes (builder specs or bytes), initializers (Pieces), inputs, outputs, opset }. */
export function bigModel({ nodes = [], initializers = [], inputs = [], outputs = [], opset = 17, name = 'big' }) {
  const g = new Pieces();
  for (const n of nodes) g.len(1, n instanceof Uint8Array ? n : node(n));
  g.len(2, name);
  for (const t of initializers) g.len(5, t);
  for (const v of inputs) g.len(11, valueInfo(v));
  for (const v of outputs) g.len(12, valueInfo(v));
  const m = new Pieces().int(1, 8).len(7, g);
  m.len(8, new Pieces().len(1, '').int(2, opset));
  return m;
}

/** The pieces as one Uint8Array, holes as zeros. */
export function piecesToBytes(pieces) {
  const out = new Uint8Array(pieces.size);
  let pos = 0;
  for (const p of pieces.parts) {
    if (typeof p === 'number') pos += p;
    else {
      out.set(p, pos);
      pos += p.length;
    }
  }
  return out;
}

/** Writes pieces to `path`; returns the file size. Holes are left sparse unless `fill`. */
export function writePieces(path, pieces, { fill = false } = {}) {
  const fd = openSync(path, 'w');
  let pos = 0;
  let pattern = null;
  try {
    for (const p of pieces.parts) {
      if (typeof p === 'number') {
        if (fill) {
          pattern ??= Uint8Array.from({ length: 1 << 20 }, (_, i) => (i * 131) & 0xff);
          for (let done = 0; done < p;) {
            const k = Math.min(pattern.length, p - done);
            writeSync(fd, pattern, 0, k, pos + done);
            done += k;
          }
        }
        pos += p;
      } else {
        writeSync(fd, p, 0, p.length, pos);
        pos += p.length;
      }
    }
    ftruncateSync(fd, pos);
  } finally {
    closeSync(fd);
  }
  return pos;
}

/**
 * `layers` float initializers of rows x cols (alternating, so that a MatMul chain type-checks)
 * and one MatMul per initializer: X[N, rows] -> Y[N, rows or cols].
 * 12 layers of 4096 x 8192 floats = 12 x 128 MiB = 1.5 GiB.
 */
export function matmulChain({ layers = 12, rows = 4096, cols = 8192 } = {}) {
  const initializers = [];
  const nodes = [];
  let x = 'X';
  for (let i = 0; i < layers; i++) {
    const dims = i % 2 ? [cols, rows] : [rows, cols];
    initializers.push(bigTensor({ name: `W${i}`, dims }));
    const y = i === layers - 1 ? 'Y' : `h${i}`;
    nodes.push({ op: 'MatMul', name: `mm${i}`, inputs: [x, `W${i}`], outputs: [y] });
    x = y;
  }
  return bigModel({
    nodes,
    initializers,
    inputs: [{ name: 'X', elemType: 'float', dims: ['N', rows] }],
    outputs: ['Y'],
  });
}

/**
 * X [5, cols] -> MatMul with W [cols, 2^19 / cols] (a 2 MiB payload, first in the graph) -> Y: the
 * graph's inputs come after the payload, in a later request. Its size is the same for cols 8 and 16.
 */
export function twoRequestModel(cols) {
  return bigModel({
    initializers: [bigTensor({ name: 'W', dims: [cols, 2 ** 19 / cols] })],
    nodes: [{ op: 'MatMul', name: 'mm', inputs: ['X', 'W'], outputs: ['Y'] }],
    inputs: [{ name: 'X', elemType: 'float', dims: [5, cols] }],
    outputs: ['Y'],
  });
}

/**
 * `pieces` (a model) with ModelProto.model_version = `version` first, as its 64-bit varint: a
 * nanosecond timestamp or -1 takes 9 or 10 bytes, past what a double holds exactly.
 */
export function withModelVersion(version, pieces) {
  const out = new Pieces().int(5, BigInt.asUintN(64, BigInt(version)));
  for (const p of pieces.parts) (typeof p === 'number' ? out.hole(p) : out.bytes(p));
  return out;
}
