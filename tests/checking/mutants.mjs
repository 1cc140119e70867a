// The shape-checking mutants: the ONNX backend node tests, each with one dim of one data input changed.
//
// For every test of ../shared/onnx-backend/node (sorted by name), every graph input that is a
// tensor the op reads as data or as indices (input_roles.mjs; rank-0 inputs and inputs read as
// parameters keep the test's data), every dim d of that input: mutants with d → d+1 and d → 2d,
// and for d >= 2 also d → d-1 and d → 1 (a shrunk dim, and one that looks like a broadcast: both
// found false alarms and misses the growing ones do not); equal sizes give one mutant, d = 0 only
// d+1. The mutant model declares every
// tensor input with the concrete shape it is fed, its graph outputs keep their types without
// shapes, and its value_info is dropped; the mutated input is fed new content drawn from a PRNG
// seeded by the mutant's id (index inputs: values that are valid indices for the test's original
// shapes), the other inputs their test_data_set_0 content. Everything is deterministic: the same
// checkout of the backend data gives the same bytes.
//
// The unmutated case of each test is the same rewrite with the test's own inputs.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { BACKEND } from '../js/helpers.js';
import { inputRole } from './input_roles.mjs';
import { DT, elemBytes, isFloatType, isIntegerType, readModel, readTensor, rewriteModel } from './onnx_proto.mjs';

/** Where the node tests are. */
export const NODE_DIR = join(BACKEND, 'node');
/** Bump when the mutants' bytes or content change: labels of another version are stale. */
export const GENERATOR_VERSION = 2;
const SEED = 20261201;
/** A mutated input larger than this many elements is not generated (none of today's tests comes near). */
const MAX_ELEMENTS = 1 << 22;

// Section - Deterministic randomness

function fnv1a(s) {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}

/** mulberry32: a small PRNG, good enough for test content, identical on every platform. */
function prng(seedText) {
  let a = fnv1a(`${SEED}:${seedText}`);
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const F32 = new Float32Array(1);
const U32 = new Uint32Array(F32.buffer);

/** IEEE half bits of a float32 in the normal half range (all this generator produces). */
function halfBits(x) {
  F32[0] = x;
  const b = U32[0];
  const sign = (b >>> 16) & 0x8000;
  const exp = ((b >>> 23) & 0xff) - 127 + 15;
  if (exp <= 0) return sign;
  const mant = b & 0x7fffff;
  let h = sign | (exp << 10) | (mant >>> 13);
  if (mant & 0x1000) h += 1; // round half up; a carry into the exponent is still the right value
  return h;
}

/**
 * Content for n elements of dataType: floats in [0.05, 0.95) (valid probabilities, positive scales),
 * integers in [lo, hi) (data: [1, 5), so no division by zero), booleans, short strings. Returns
 * little-endian element bytes, or string[] for STRING, or null for types left unfed (4-bit, complex).
 */
function randomContent(dataType, n, rand, lo = 1, hi = 5) {
  const strings = ['a', 'bb', 'abc', 'x y', 'Hello'];
  if (dataType === DT.STRING) return Array.from({ length: n }, () => strings[Math.floor(rand() * strings.length)]);
  const width = elemBytes(dataType);
  if (width === null) return null;
  const buf = new Uint8Array(n * width);
  const dv = new DataView(buf.buffer);
  const int = () => lo + Math.floor(rand() * Math.max(hi - lo, 1));
  const real = () => 0.05 + 0.9 * rand();
  for (let i = 0; i < n; i++) {
    switch (dataType) {
      case DT.FLOAT: dv.setFloat32(4 * i, real(), true); break;
      case DT.DOUBLE: dv.setFloat64(8 * i, real(), true); break;
      case DT.FLOAT16: dv.setUint16(2 * i, halfBits(real()), true); break;
      case 16: F32[0] = real(); dv.setUint16(2 * i, U32[0] >>> 16, true); break; // bfloat16
      case DT.BOOL: buf[i] = rand() < 0.5 ? 1 : 0; break;
      case DT.INT64: case DT.UINT64: dv.setBigInt64(8 * i, BigInt(int()), true); break;
      case DT.INT32: case DT.UINT32: dv.setInt32(4 * i, int(), true); break;
      case DT.INT16: case DT.UINT16: dv.setInt16(2 * i, int(), true); break;
      case DT.INT8: case DT.UINT8: buf[i] = int() & 0xff; break;
      default: buf[i] = 0x30 + Math.floor(rand() * 8); break; // float8 variants: small positive values
    }
  }
  return buf;
}

// Section - Tests

/** The node test names, sorted. Throws when the backend data is absent. */
export function listTests(dir = NODE_DIR) {
  if (!existsSync(dir)) throw new Error(`the ONNX backend node tests are absent: ${dir} (set OSI_SHARED_DIR)`);
  return readdirSync(dir).filter((t) => existsSync(join(dir, t, 'model.onnx'))).sort();
}

/** test_foo_expanded[_verN] → test_foo. */
export const baseTestName = (name) => name.replace(/_expanded(_ver\d+)?$/, '');

const RANK = { parameter: 2, index: 1, data: 0 };
const roleRank = (r) => (typeof r === 'object' ? RANK.index : RANK[r]);

/**
 * Each graph input's role from the nodes that read it: a parameter anywhere wins over an index,
 * which wins over data. An expanded test takes the roles of its base test's inputs of the same name
 * (its function body reads them through primitive ops).
 */
function rolesByName(nodes) {
  const roles = new Map();
  for (const n of nodes) {
    n.inputs.forEach((name, pos) => {
      if (!name) return;
      const r = inputRole(n.opType, pos);
      if (!roles.has(name) || roleRank(r) > roleRank(roles.get(name))) roles.set(name, r);
    });
  }
  return roles;
}

/**
 * One test, read: { name, dir, modelBytes, op, inputs: [{ name, kind, elemType, role, tensor }] }
 * where tensor is readTensor() of input_<i>.pb (null for non-tensor inputs) and op is the operator
 * the test is about (the base test's single node).
 */
export function loadTest(name, dir = NODE_DIR) {
  const tdir = join(dir, name);
  const modelBytes = new Uint8Array(readFileSync(join(tdir, 'model.onnx')));
  const model = readModel(modelBytes);
  const base = baseTestName(name);
  const baseModel = base !== name && existsSync(join(dir, base, 'model.onnx'))
    ? readModel(new Uint8Array(readFileSync(join(dir, base, 'model.onnx'))))
    : model;
  const roles = rolesByName(baseModel.nodes);
  const ownRoles = rolesByName(model.nodes);
  const first = baseModel.nodes[0];
  const op = first ? (first.domain && first.domain !== 'ai.onnx' ? `${first.domain}.${first.opType}` : first.opType) : '?';
  const inputs = model.dataInputs.map((inp, i) => {
    const pb = join(tdir, 'test_data_set_0', `input_${i}.pb`);
    const tensor = inp.kind === 'tensor' && existsSync(pb) ? readTensor(new Uint8Array(readFileSync(pb))) : null;
    let role = roles.get(inp.name) ?? ownRoles.get(inp.name) ?? 'data';
    if (tensor && tensor.dims.length === 0) role = 'parameter';
    return { name: inp.name, kind: inp.kind, elemType: inp.elemType, role, tensor };
  });
  return { name, dir: tdir, modelBytes, op, opsets: model.opsets, inputs };
}

// Section - Mutants

/** The mutants of a loaded test: [{ id, test, input, dim, from, to }], in a fixed order. */
export function enumerateMutants(test) {
  const out = [];
  test.inputs.forEach((inp, i) => {
    if (!inp.tensor || inp.role === 'parameter') return;
    const dims = inp.tensor.dims;
    const count = dims.reduce((a, b) => a * b, 1);
    dims.forEach((d, j) => {
      const values = [...new Set([d + 1, 2 * d, ...(d >= 2 ? [d - 1, 1] : [])])].filter((v) => v !== d);
      for (const to of values) {
        if (d > 0 && (count / d) * to > MAX_ELEMENTS) continue;
        out.push({ id: `${test.name}:${i}:${j}:${to}`, test: test.name, input: i, dim: j, from: d, to });
      }
    });
  });
  return out;
}

/** The shapes every tensor input is declared with: the test's own, or the mutant's for its input. */
function declaredShapes(test, mutant) {
  const shapes = {};
  test.inputs.forEach((inp, i) => {
    if (!inp.tensor) return;
    const dims = [...inp.tensor.dims];
    if (mutant && mutant.input === i) dims[mutant.dim] = mutant.to;
    shapes[inp.name] = { elemType: inp.tensor.dataType || inp.elemType, dims };
  });
  return shapes;
}

function mutatedContent(test, mutant) {
  const inp = test.inputs[mutant.input];
  const dims = [...inp.tensor.dims];
  dims[mutant.dim] = mutant.to;
  const n = dims.reduce((a, b) => a * b, 1);
  const rand = prng(mutant.id);
  const dt = inp.tensor.dataType;
  if (typeof inp.role === 'object' && isIntegerType(dt)) {
    const { lo, ref, axis, inclusive, hi: fixedHi } = inp.role.index;
    let hi = fixedHi ?? lo + 1;
    if (ref !== null && test.inputs[ref]?.tensor) {
      const rd = test.inputs[ref].tensor.dims;
      if (axis === 'min') hi = Math.min(...rd);
      else hi = rd[axis < 0 ? rd.length + axis : axis] ?? lo + 1;
      if (inclusive) hi += 1;
    }
    return { dims, data: randomContent(dt, n, rand, lo, Math.max(hi, lo + 1)) };
  }
  if (!isFloatType(dt) && !isIntegerType(dt) && dt !== DT.BOOL && dt !== DT.STRING) return { dims, data: null };
  return { dims, data: randomContent(dt, n, rand) };
}

/**
 * What to run for a mutant (null: the unmutated test): { model, feeds } where model is the rewritten
 * model's bytes and feeds is [{ name, dataType, dims, data, kind }] in graph-input order (data null
 * when it cannot be fed: a non-tensor input, or an element type left unfed).
 */
export function buildCase(test, mutant = null) {
  const model = rewriteModel(test.modelBytes, declaredShapes(test, mutant));
  const feeds = test.inputs.map((inp, i) => {
    if (!inp.tensor) return { name: inp.name, kind: inp.kind, dataType: inp.elemType, dims: null, data: null };
    if (mutant && mutant.input === i) {
      const { dims, data } = mutatedContent(test, mutant);
      return { name: inp.name, kind: 'tensor', dataType: inp.tensor.dataType, dims, data };
    }
    return { name: inp.name, kind: 'tensor', dataType: inp.tensor.dataType, dims: inp.tensor.dims, data: inp.tensor.data };
  });
  return { model, feeds };
}

/** Every mutant id of every test, in order (what the label file must list). */
export function allMutantIds(dir = NODE_DIR) {
  return listTests(dir).flatMap((name) => enumerateMutants(loadTest(name, dir)).map((m) => m.id));
}
