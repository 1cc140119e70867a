// The two decoders read the same bytes the same way in the wasm build too (where size_t is 32
// bits), whichever path a model takes: protobuf-c, nanopb from JS memory, nanopb from a file, and
// the automatic switch to nanopb at 8 MiB. Bytes no ONNX writer produces but protobuf allows: a
// non-repeated message field written twice is merged (python-onnx, the reference, reads the same
// bytes and is asked for the same shapes); encodings protobuf refuses are refused by both; names
// with a NUL byte are refused; a truncated file says where it ends. tests/c/test_decoders_wire.c
// covers each rule natively.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { init } from '../../js/index.js';

const PYTHON = '/usr/bin/python3';

let engine;
let dir;
beforeAll(async () => {
  engine = await init();
  dir = mkdtempSync(join(tmpdir(), 'osi-wire-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// Section - A protobuf writer

const cat = (...parts) => {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
};
const varint = (value, minBytes = 1) => {
  let v = BigInt(value);
  const out = [];
  do {
    out.push(Number(v & 0x7fn));
    v >>= 7n;
  } while (v > 0n || out.length < minBytes);
  return out.map((b, i) => (i < out.length - 1 ? b | 0x80 : b));
};
const key = (field, wire, minBytes) => varint((field << 3) | wire, minBytes);
const int = (field, v) => cat(key(field, 0), varint(v));
const ld = (field, bytes) => cat(key(field, 2), varint(bytes.length), bytes);
const str = (field, s) => ld(field, new TextEncoder().encode(s));

const shape = (dims) => cat(...dims.map((d) => ld(1, int(1, d))));
const tensorType = (elem, dims) => cat(elem ? int(1, elem) : [], dims ? ld(2, shape(dims)) : []);
const typeProto = (elem, dims) => ld(1, tensorType(elem, dims)); // TypeProto{tensor_type}
const valueInfo = (name, ...types) => cat(str(1, name), ...types.map((t) => ld(2, t)));
const node = (op, inputs, outputs, ...attrs) =>
  cat(...inputs.map((n) => str(1, n)), ...outputs.map((n) => str(2, n)), str(4, op), ...attrs.map((a) => ld(5, a)));
const graph = ({ nodes, inputs, outputs, extra = [] }) =>
  cat(...nodes.map((n) => ld(1, n)), str(2, 'g'), ...inputs.map((v) => ld(11, v)), ...outputs.map((v) => ld(12, v)), extra);
const model = (g, graphKeyBytes = 1, graphLenBytes = 1) =>
  cat(int(1, 8), ld(8, int(2, 17)), key(7, 2, graphKeyBytes), varint(g.length, graphLenBytes), g);

// Constant c whose tensor attribute `t` is written in two occurrences (dims and type in the
// first, the int64 values [1] and [3] one in each), then y = Reshape(x, c) with x float[3].
const splitConstant = (extra = []) => model(graph({
  nodes: [
    node('Constant', [], ['c'], cat(str(1, 'value'), ld(5, cat(int(1, 2), int(2, 7), ld(7, [1]))), ld(5, ld(7, [3])), int(20, 4))),
    node('Reshape', ['x', 'c'], ['y']),
  ],
  inputs: [valueInfo('x', typeProto(1, [3]))],
  outputs: [valueInfo('y', typeProto(1))],
  extra,
}));

// x's ValueInfoProto.type in two occurrences: float and dim 1, then dim 3.
const splitType = () => model(graph({
  nodes: [node('Identity', ['x'], ['y'])],
  inputs: [valueInfo('x', typeProto(1, [1]), typeProto(0, [3]))],
  outputs: [valueInfo('y', typeProto(1))],
}));

const plain = () => model(graph({
  nodes: [node('Identity', ['x'], ['y'])],
  inputs: [valueInfo('x', typeProto(1, [3]))],
  outputs: [valueInfo('y', typeProto(1))],
}));

// Section - Running

let n = 0;
// { path: result or error } for protobuf-c, nanopb from memory and nanopb from a file.
function runAll(bytes) {
  const path = join(dir, `m${n++}.onnx`);
  writeFileSync(path, bytes);
  const out = {};
  const runs = {
    'protobuf-c': () => engine.inferShapes(bytes, { decoder: 'protobuf-c' }),
    nanopb: () => engine.inferShapes(bytes, { decoder: 'nanopb' }),
    file: () => engine.inferShapesFromPath(path),
  };
  for (const [name, run] of Object.entries(runs)) {
    try {
      out[name] = run();
    } catch (e) {
      out[name] = e;
    }
  }
  return out;
}

// python-onnx's shape inference on the same bytes: { name: { elemType, dims } } for the inputs
// and outputs of the main graph.
function pythonShapes(bytes) {
  const path = join(dir, `py${n++}.onnx`);
  writeFileSync(path, bytes);
  const script = `
import json, sys, onnx
from onnx import shape_inference
m = onnx.ModelProto(); m.ParseFromString(open(sys.argv[1], 'rb').read())
m = shape_inference.infer_shapes(m, data_prop=True)
out = {}
for v in list(m.graph.input) + list(m.graph.output):
    t = v.type.tensor_type
    out[v.name] = {'elemType': t.elem_type, 'dims': [d.dim_value for d in t.shape.dim] if t.HasField('shape') else None}
print(json.dumps(out))`;
  return JSON.parse(execFileSync(PYTHON, ['-c', script, path], { encoding: 'utf8', timeout: 300_000 }));
}

// Section - Tests

describe('a non-repeated message field written twice is merged', () => {
  test('a Constant tensor in two parts: y = Reshape(x, [1, 3])', () => {
    const bytes = splitConstant();
    expect(pythonShapes(bytes).y).toEqual({ elemType: 1, dims: [1, 3] });
    for (const [name, r] of Object.entries(runAll(bytes))) {
      expect([name, r.getShape?.('y')]).toEqual([name, { kind: 'tensor', elemType: 'float', dims: [1, 3] }]);
    }
  });

  test('the same past 8 MiB, where inferShapes switches to the streaming decoder', () => {
    // an unknown GraphProto field (100) of 9 MiB makes the file big
    const big = splitConstant(ld(100, new Uint8Array(9 * 1024 * 1024)));
    expect(big.length).toBeGreaterThan(8 * 1024 * 1024);
    expect(engine.inferShapes(big).getShape('y').dims).toEqual([1, 3]);
    expect(engine.inferShapes(splitConstant()).getShape('y').dims).toEqual([1, 3]);
  });

  test("a value's type in two parts: float[1, 3]", () => {
    const bytes = splitType();
    expect(pythonShapes(bytes).x).toEqual({ elemType: 1, dims: [1, 3] });
    for (const [name, r] of Object.entries(runAll(bytes))) {
      expect([name, r.getShape?.('x')]).toEqual([name, { kind: 'tensor', elemType: 'float', dims: [1, 3] }]);
    }
  });
});

describe('encodings protobuf refuses are refused by both decoders', () => {
  const parseError = (bytes) => {
    for (const [name, r] of Object.entries(runAll(bytes))) expect([name, r.code]).toEqual([name, 'PARSE_ERROR']);
  };

  test('a length prefix of 2^32 + 1 (1 in a 32-bit size_t)', () => {
    // the graph's name with a length of 2^32 + 1 and one byte of content
    const g = graph({ nodes: [node('Identity', ['x'], ['y'])], inputs: [valueInfo('x', typeProto(1, [3]))], outputs: [valueInfo('y', typeProto(1))] });
    parseError(model(cat(g, key(2, 2), varint(2n ** 32n + 1n), [0x67])));
  });

  test('keys and lengths of 6 bytes; 5 are fine', () => {
    const g = graph({ nodes: [node('Identity', ['x'], ['y'])], inputs: [valueInfo('x', typeProto(1, [3]))], outputs: [valueInfo('y', typeProto(1))] });
    for (const [k, l] of [[5, 1], [1, 5]]) {
      for (const r of Object.values(runAll(model(g, k, l)))) expect(r.getShape('y').dims).toEqual([3]);
    }
    parseError(model(g, 6, 1));
    parseError(model(g, 1, 6));
  });
});

test('a name with a NUL byte is refused by both decoders, not cut', () => {
  const bytes = model(graph({
    nodes: [cat(ld(1, [0x78, 0x00, 0x7a]), str(2, 'y'), str(4, 'Identity'))], // input "x\0z"
    inputs: [valueInfo('x', typeProto(1, [3]))],
    outputs: [valueInfo('y', typeProto(1))],
  }));
  for (const [name, r] of Object.entries(runAll(bytes))) {
    expect([name, r.code, r.message]).toEqual([name, 'PARSE_ERROR', expect.stringContaining('"x\\0z") contains a NUL byte')]);
  }
});

test('a truncated file says where it ends, the same with every decoder', () => {
  const bytes = plain();
  const graphAt = 6; // ir_version (2 bytes), opset_import (4 bytes), then the graph's key
  expect(bytes[graphAt]).toBe((7 << 3) | 2);
  const graphLen = bytes[graphAt + 1];
  for (const cut of [graphAt + 5, bytes.length - 1]) {
    const results = runAll(bytes.subarray(0, cut));
    for (const [name, r] of Object.entries(results)) {
      expect([name, r.code, r.message]).toEqual([name, 'PARSE_ERROR',
        `the file ends early: the field at byte ${graphAt} declares ${graphLen} bytes of content, but the file ends at byte ${cut}`]);
    }
  }
});
