// onnx-shapes: the result of one inference (ShapeInferenceResult), read from the engine's packed
// form (osi_result_packed, described in src/api/result.c).
//
// The packed bytes are copied out of the wasm heap once; everything else is built from them when
// it is first asked for. getShape hashes the name and looks it up in the engine's own hash table
// of the keys (no JS Map or 100k-key object to build first); names, producers, nodes and values
// are decoded on first read. Types are frozen objects shared by every value of the same type.
import { memoryProfile, resultCost } from './cost.js';

function deepFreeze(value) {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const key of Object.keys(value)) deepFreeze(value[key]);
  }
  return value;
}

import { evaluateResult } from './bindings.js';

// ignoreBOM: a name may start with U+FEFF, which a decoder would otherwise drop.
const utf8 = new TextDecoder('utf-8', { ignoreBOM: true });
const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** Length of the well-formed UTF-8 sequence at b[i] (1 to 4), 0 when none starts there. */
function seqLen(b, i) {
  const c = b[i];
  if (c < 0x80) return 1;
  let n, lo = 0x80, hi = 0xbf;
  if (c >= 0xc2 && c <= 0xdf) n = 1;
  else if (c >= 0xe0 && c <= 0xef) {
    n = 2;
    if (c === 0xe0) lo = 0xa0;
    else if (c === 0xed) hi = 0x9f;
  } else if (c >= 0xf0 && c <= 0xf4) {
    n = 3;
    if (c === 0xf0) lo = 0x90;
    else if (c === 0xf4) hi = 0x8f;
  } else return 0;
  if (!(b[i + 1] >= lo && b[i + 1] <= hi)) return 0;
  for (let k = 2; k <= n; k++) if ((b[i + k] & 0xc0) !== 0x80) return 0;
  return n + 1;
}

/**
 * The bytes a string names (decodeBytes' inverse): UTF-8, a lone surrogate U+DC80..U+DCFF as the
 * byte it stands for; null when no name can be these bytes (a NUL, another lone surrogate).
 */
export function encodeBytes(text) {
  if (text.isWellFormed ? text.isWellFormed() && !text.includes('\0') : !/[\0\ud800-\udfff]/.test(text)) {
    return new TextEncoder().encode(text);
  }
  const out = [];
  const enc = new TextEncoder();
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0) return null;
    if (c >= 0xd800 && c < 0xdc00 && i + 1 < text.length && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      out.push(...enc.encode(text.slice(i, i + 2)));
      i++;
    } else if (c >= 0xdc80 && c < 0xdd00) {
      out.push(c - 0xdc00);
    } else if (c >= 0xd800 && c < 0xe000) {
      return null;
    } else {
      out.push(...enc.encode(text[i]));
    }
  }
  return Uint8Array.from(out);
}

/**
 * UTF-8 bytes as a string, a byte that starts no well-formed sequence as the lone surrogate
 * U+DC00 + byte, as the engine's JSON writes it (osi_json_string): names in a model may hold any
 * bytes (onnxruntime runs such models), and two that differ must stay two.
 */
export function decodeBytes(bytes) {
  try {
    return strictUtf8.decode(bytes);
  } catch {
    const units = [];
    for (let i = 0, n; i < bytes.length; i += n || 1) {
      n = seqLen(bytes, i);
      if (n === 0) units.push(0xdc00 + bytes[i]);
      else if (n === 1) units.push(bytes[i]);
      else units.push(...utf8.decode(bytes.subarray(i, i + n)).split('').map((u) => u.charCodeAt(0)));
    }
    let s = '';
    for (let i = 0; i < units.length; i += 4096) s += String.fromCharCode(...units.slice(i, i + 4096));
    return s;
  }
}

/** o[key] = value as JSON.parse would define it (an own property even for '__proto__'). */
function define(o, key, value) {
  if (key === '__proto__') Object.defineProperty(o, key, { value, enumerable: true, writable: true, configurable: true });
  else o[key] = value;
}

// Names are decoded this many bytes at a time (cut after a NUL): V8 makes a string of a few
// hundred KB in its large-object space, where decoding the 240 KB of a 32-layer export's names
// at once took 20 times as long as in pieces (Node 20).
const SPLIT_CHUNK = 8192;

/** `count` NUL-terminated UTF-8 strings in `bytes` (names never contain a NUL). */
function splitStrings(bytes, count) {
  if (count === 0) return [];
  const all = new Array(count);
  let n = 0;
  for (let start = 0; n < count;) {
    let end = start + SPLIT_CHUNK < bytes.length ? bytes.lastIndexOf(0, start + SPLIT_CHUNK - 1) : -1;
    if (end < start) end = bytes.indexOf(0, start + SPLIT_CHUNK - 1); // a name longer than a chunk
    if (end < 0) end = bytes.lastIndexOf(0); // (the last chunk)
    // Cut at a NUL, never inside a UTF-8 sequence: decodeBytes reads each piece as it would the whole.
    const part = decodeBytes(bytes.subarray(start, end)).split('\0');
    for (let i = 0; i < part.length && n < count; i++) all[n++] = part[i];
    start = end + 1;
  }
  return all;
}

const FNV_PRIME = 16777619;

/** FNV-1a (32 bits) of the UTF-8 encoding of `s`, as key_hash in src/api/result.c. */
function keyHash(s) {
  let h = 0x811c9dc5 | 0;
  for (let i = 0; i < s.length; i++) {
    let c = s.charCodeAt(i);
    if (c < 0x80) {
      h = Math.imul(h ^ c, FNV_PRIME);
      continue;
    }
    if (c < 0x800) {
      h = Math.imul(h ^ (0xc0 | (c >> 6)), FNV_PRIME);
    } else {
      if (c >= 0xd800 && c < 0xdc00 && i + 1 < s.length) {
        const d = s.charCodeAt(i + 1);
        if (d >= 0xdc00 && d < 0xe000) { // a surrogate pair: 4 bytes
          c = 0x10000 + ((c - 0xd800) << 10) + (d - 0xdc00);
          i++;
          h = Math.imul(h ^ (0xf0 | (c >> 18)), FNV_PRIME);
          h = Math.imul(h ^ (0x80 | ((c >> 12) & 63)), FNV_PRIME);
          h = Math.imul(h ^ (0x80 | ((c >> 6) & 63)), FNV_PRIME);
          h = Math.imul(h ^ (0x80 | (c & 63)), FNV_PRIME);
          continue;
        }
      }
      // (A lone surrogate hashes as itself: no key, being well-formed UTF-8, holds one.)
      h = Math.imul(h ^ (0xe0 | (c >> 12)), FNV_PRIME);
      h = Math.imul(h ^ (0x80 | ((c >> 6) & 63)), FNV_PRIME);
    }
    h = Math.imul(h ^ (0x80 | (c & 63)), FNV_PRIME);
  }
  return h;
}

/** A node's attributes as osi_result_attributes_json lists them: frozen {name, type, value}. */
function frozenAttributes(list) {
  const out = new Array(list.length);
  for (let i = 0; i < list.length; i++) {
    const [name, type, value] = list[i];
    out[i] = Object.freeze({ name, type, value: deepFreeze(value) });
  }
  return Object.freeze(out);
}

/**
 * Frozen {name, opType, domain, inputs, outputs} per node, from node names, op indices (into
 * ops) and io ([n, ref..., m, ref..., ...]); `ref` turns a reference into a value key.
 */
function expandNodes(names, nodeOps, io, ops, ref) {
  const nodes = new Array(nodeOps.length);
  for (let i = 0, at = 0; i < nodes.length; i++) {
    const inputs = new Array(io[at++]);
    for (let k = 0; k < inputs.length; k++) inputs[k] = ref(io[at++]);
    const outputs = new Array(io[at++]);
    for (let k = 0; k < outputs.length; k++) outputs[k] = ref(io[at++]);
    const op = ops[nodeOps[i]];
    nodes[i] = Object.freeze({
      name: names[i], opType: op[0], domain: op[1], inputs: Object.freeze(inputs), outputs: Object.freeze(outputs),
    });
  }
  return Object.freeze(nodes);
}

const HEADER = 10; // words; PACK_HEADER in src/api/result.c
const VERSION = 1;
const FLAG_UTF8 = 1; // every key is well-formed UTF-8
const FLAG_ASTRAL = 2; // some key has a code point above U+FFFF

/**
 * A packed result copied out of the wasm heap, decoded piece by piece on demand. Everything it
 * hands out is frozen.
 */
class Packed {
  #nodeNameBytes;
  #names;
  #nodeNames;
  #flags;
  #sorted;
  #next = 0; // the row after the last one lookup found

  /**
   * Reads the packed result at `ptr` (4-byte aligned) in `heap` (a Uint8Array): the names and the
   * JSON part are decoded from there (the result's inputs and outputs need the names at once),
   * the words and node names copied out (one copy, only of what is read later).
   */
  constructor(heap, ptr) {
    const h = new Uint32Array(heap.buffer, heap.byteOffset + ptr, HEADER);
    if (h[0] !== VERSION) throw new Error(`onnx-shapes: packed result version ${h[0]}, expected ${VERSION} (dist/ and js/ from different builds?)`);
    const [, nNames, nRows, nNodes, ioWords, tableCap, flags, namesBytes, nodeNamesBytes, jsonBytes] = h;
    const pad = (n) => (n + 3) & ~3;
    const words = HEADER + 2 * nNames + nRows + tableCap + nNodes + ioWords;
    const namesAt = ptr + 4 * words, nodeNamesAt = namesAt + pad(namesBytes), jsonAt = nodeNamesAt + pad(nodeNamesBytes);
    const bytes = new Uint8Array(4 * words + nodeNamesBytes);
    bytes.set(heap.subarray(ptr, namesAt));
    bytes.set(heap.subarray(nodeNamesAt, nodeNamesAt + nodeNamesBytes), 4 * words);
    const w = new Int32Array(bytes.buffer, 0, words);
    let at = HEADER;
    const take = (n) => w.subarray(at, (at += n));
    this.producers = take(nNames);
    this.typeOf = take(nNames);
    this.rows = take(nRows);
    this.table = take(tableCap);
    this.nodeOps = take(nNodes);
    this.nodeIO = take(ioWords);
    this.#names = splitStrings(heap.subarray(namesAt, namesAt + namesBytes), nNames);
    this.#nodeNameBytes = bytes.subarray(4 * words);
    this.nNames = nNames;
    this.nNodes = nNodes;
    this.#flags = flags;
    const json = JSON.parse(utf8.decode(heap.subarray(jsonAt, jsonAt + jsonBytes)));
    this.json = json;
    this.types = json.types.map(deepFreeze);
    const s = json.subValues;
    this.subKeys = new Array(s.length / 4);
    this.subTypes = new Array(s.length / 4);
    for (let i = 0; i < s.length; i += 4) {
      this.subKeys[i / 4] = s[i];
      this.subTypes[i / 4] = this.types[s[i + 1]];
    }
  }

  /** Top-level value names in definition order. */
  get names() {
    return this.#names;
  }

  get nodeNames() {
    return (this.#nodeNames ??= splitStrings(this.#nodeNameBytes, this.nNodes));
  }

  /** The key and type of entry `row` of rows (a name index, or -1-k for subgraph value k). */
  key(row) {
    return row >= 0 ? this.names[row] : this.subKeys[-1 - row];
  }

  type(row) {
    return row >= 0 ? this.types[this.typeOf[row]] : this.subTypes[-1 - row];
  }

  /** Whether keys hash and sort by their UTF-8 bytes as JS strings (see FLAG_UTF8). */
  get hashable() {
    return (this.#flags & FLAG_UTF8) !== 0;
  }

  /** The type of key `name`, or null; only when hashable. */
  lookup(name) {
    const table = this.table, rows = this.rows, mask = table.length - 1;
    // A viewer reading every shape asks for the keys in names() order, the order of rows: the
    // row after the last one found is tried before hashing the name.
    const next = this.#next;
    if (next < rows.length && this.key(rows[next]) === name) {
      this.#next = next + 1;
      return this.type(rows[next]);
    }
    const names = this.names;
    for (let i = keyHash(name) & mask, slot; (slot = table[i]) !== 0; i = (i + 1) & mask) {
      const row = rows[slot - 1];
      if ((row >= 0 ? names[row] : this.subKeys[-1 - row]) === name) {
        this.#next = slot;
        return this.type(row);
      }
    }
    return null;
  }

  /** Every key, sorted in code unit order (only when hashable). */
  sortedKeys() {
    if (!this.#sorted) {
      const rows = this.rows;
      const keys = new Array(rows.length);
      for (let i = 0; i < rows.length; i++) keys[i] = this.key(rows[i]);
      // rows are in code point order, which is code unit order unless surrogates are involved.
      if (this.#flags & FLAG_ASTRAL) keys.sort();
      this.#sorted = keys;
    }
    return this.#sorted;
  }

  /** A value reference of the JSON part: a name index, a key, or null. */
  ref = (r) => (typeof r === 'number' ? this.names[r] : r);

  /** A reference of nodeIO: a name index, -1 (omitted) or -2-k (refKeys[k]). */
  ioRef = (r) => (r >= 0 ? this.names[r] : r === -1 ? null : this.json.refKeys[-2 - r]);
}

/**
 * The record ShapeInferenceResult is built from: the packed result's lazily built members, and
 * its small members (inputs, outputs, diagnostics, ...) as frozen data, keyed as in osi_result_json.
 * `attributes`: the UTF-8 bytes of osi_result_attributes_json (options.attributes), parsed when
 * result.nodeAttributes is first called.
 */
export function readPacked(heap, ptr, attributes = null) {
  const p = new Packed(heap, ptr);
  const c = p.json;
  const refs = (list) => Object.freeze(list.map(p.ref));
  const subgraphValues = {};
  for (let i = 0, s = c.subValues; i < s.length; i += 4) {
    define(subgraphValues, s[i], Object.freeze({ path: s[i + 2], name: s[i + 3] }));
  }
  const data = {
    [LAZY]: {
      packed: p,
      values() {
        const o = {};
        for (let i = 0, rows = p.rows; i < rows.length; i++) define(o, p.key(rows[i]), p.type(rows[i]));
        return Object.freeze(o);
      },
      producers() {
        const o = {};
        const names = p.names;
        for (let i = 0, prod = p.producers; i < prod.length; i++) {
          if (prod[i] >= 0) define(o, names[i], prod[i]);
        }
        return Object.freeze(o);
      },
      nodes: () => expandNodes(p.nodeNames, p.nodeOps, p.nodeIO, c.ops, p.ioRef),
      attributes: attributes ? () => JSON.parse(utf8.decode(attributes)) : null,
      subgraphs() {
        const o = {};
        for (let i = 0, s = c.subgraphs; i < s.length; i += 9) {
          const names = s[i + 7].length ? s[i + 6].split('\0') : [];
          define(o, s[i], Object.freeze({
            parent: s[i + 1],
            node: s[i + 2],
            attribute: s[i + 3],
            inputs: refs(s[i + 4]),
            outputs: refs(s[i + 5]),
            nodes: expandNodes(names, s[i + 7], s[i + 8], c.ops, p.ref),
          }));
        }
        return Object.freeze(o);
      },
    },
    subgraphValues: Object.freeze(subgraphValues),
    inputs: refs(c.inputs),
    outputs: refs(c.outputs),
    diagnostics: deepFreeze(c.diagnostics),
    firstError: c.firstError ? deepFreeze(c.firstError) : null,
    constraints: deepFreeze(c.constraints),
    definitions: deepFreeze(c.definitions ?? []),
    domain: deepFreeze(c.domain ?? { symbols: {}, relations: [] }),
  };
  if (c.events !== undefined) data.events = deepFreeze(c.events);
  return data;
}

/** readPacked's record of what the lazily built keys are made from. */
const LAZY = Symbol('lazy');
const EMPTY = Object.freeze([]);
/** The property descriptors of the lazily built keys (set in ShapeInferenceResult's static block). */
let lazyGetters;

/** Gives `result.toModel()` its writer (set once, by js/index.js, for results of bytes). */
export let attachWriter;

/**
 * Gives `result.nodeAttributes()` its source, `read()` → { path: [[[name, type, value], ...] per
 * node] } (a result rebuilt from another thread's, which sent attributeLists of it).
 */
export let attachAttributes;

/** The attributes of every node of `result` as plain data (for another thread), or null. */
export let attributeLists;

/** What one osi_infer call found. Everything on it is frozen plain data. */
export class ShapeInferenceResult {
  // A private field rather than a WeakMap keyed by results: V8's scavenger keeps WeakMap
  // entries (and so every recent result, with its names) alive until a full GC.
  #writer = null;
  #names;
  #lazy;
  #values;
  #producers;
  #nodes;
  #subgraphs;
  #links; // { producer: Map(key -> ref), consumers: Map(key -> [ref]) }, built on first use
  #readAttributes = null; // options.attributes: () => the parsed osi_result_attributes_json
  #attributes; // its value, once read
  #nodeAttributes; // Map(path -> frozen attribute lists, built per node when asked for)

  static {
    // One getter function per key, shared by every result (`this` is the result): a getter made
    // per result gives each result a map of its own, which V8 keeps in old space, and a dead
    // result's map kept everything the getter reached (its names, types, nodes) alive through
    // every scavenge until a full GC: on a 32-layer export eight calls' worth of results was
    // copied in each scavenge and promoted (node --trace-gc).
    const lazyGetter = (get) => ({ enumerable: true, get });
    lazyGetters = {
      values: lazyGetter(function values() { return (this.#values ??= this.#lazy.values()); }),
      producers: lazyGetter(function producers() { return (this.#producers ??= this.#lazy.producers()); }),
      nodes: lazyGetter(function nodes() { return (this.#nodes ??= this.#lazy.nodes()); }),
      subgraphs: lazyGetter(function subgraphs() { return (this.#subgraphs ??= this.#lazy.subgraphs()); }),
    };
    attachWriter = (result, write) => {
      result.#writer = write;
    };
    attachAttributes = (result, read) => {
      result.#readAttributes = read;
    };
    attributeLists = (result) => (result.#readAttributes ? (result.#attributes ??= result.#readAttributes()) : null);
  }

  constructor(data) {
    const lazy = data[LAZY];
    deepFreeze(data);
    if (lazy) {
      // Own enumerable accessors, built once on first read: spreading, JSON.stringify and
      // structured clone (postMessage) see them as data properties.
      this.#lazy = lazy;
      this.#readAttributes = lazy.attributes ?? null;
      Object.defineProperty(this, 'values', lazyGetters.values);
      Object.defineProperty(this, 'producers', lazyGetters.producers);
      Object.defineProperty(this, 'nodes', lazyGetters.nodes);
    } else {
      this.values = data.values ?? Object.freeze({});
      this.producers = data.producers ?? Object.freeze({});
      this.nodes = data.nodes ?? Object.freeze([]);
    }
    this.inputs = data.inputs ?? Object.freeze([]);
    this.outputs = data.outputs ?? Object.freeze([]);
    if (lazy) Object.defineProperty(this, 'subgraphs', lazyGetters.subgraphs);
    else this.subgraphs = data.subgraphs ?? Object.freeze({});
    this.diagnostics = data.diagnostics ?? Object.freeze([]);
    this.definitions = data.definitions ?? Object.freeze([]);
    this.domain = data.domain ?? Object.freeze({ symbols: Object.freeze({}), relations: Object.freeze([]) });
    // Keys the engine adds later (constraints, events, ...) pass through unchanged.
    for (const key of Object.keys(data)) {
      if (!(key in this)) this[key] = data[key];
    }
    Object.freeze(this);
  }

  /** The type of value `name` (frozen), or null when `name` is not a value with a known type. */
  getShape(name) {
    if (typeof name !== 'string') return null;
    const packed = this.#lazy?.packed;
    if (packed?.hashable) return packed.lookup(name); // no 100k-key object needed
    if (!Object.hasOwn(this.values, name)) return null;
    return this.values[name] ?? null;
  }

  /**
   * The node at `path` ('' for the model's graph, a key of `subgraphs` for a body) and `index`
   * in that graph's nodes, or null.
   */
  node(path, index) {
    const nodes = path === '' ? this.nodes : Object.hasOwn(this.subgraphs, path) ? this.subgraphs[path].nodes : null;
    return nodes && Number.isInteger(index) && index >= 0 && index < nodes.length ? nodes[index] : null;
  }

  /**
   * The attributes of the node at `path` and `index` (as `node`), in file order: frozen
   * [{ name, type, value }]. null for no such node, or when the result was inferred without
   * `{ attributes: true }`. The engine's text is parsed on the first call.
   */
  nodeAttributes(path, index) {
    const all = attributeLists(this);
    if (!all || !Object.hasOwn(all, path)) return null;
    const lists = all[path];
    if (!Number.isInteger(index) || index < 0 || index >= lists.length) return null;
    const cache = (this.#nodeAttributes ??= new Map());
    let built = cache.get(path);
    if (!built) cache.set(path, (built = new Array(lists.length)));
    return (built[index] ??= lists[index].length ? frozenAttributes(lists[index]) : EMPTY);
  }

  /**
   * Every top-level value's dims at these sizes ({ batch: 2, time: 16000 } or a Map; numbers or
   * BigInts), once the sizes are checked against what the model needs to run: its relations and
   * requirements, its domain, and every dim of its graph (a size is never negative). Returns
   * { values, sizes, derived, unknown, unbound } (js/index.d.ts Evaluation); throws a
   * RequirementError naming the first relation the sizes break.
   */
  evaluate(bindings) {
    return evaluateResult(this, bindings);
  }

  /** The node that writes value `key`: { path, index, node }, or null (graph input, initializer). */
  producer(key) {
    return this.#graphLinks().producer.get(key) ?? null;
  }

  /**
   * The nodes that read value `key`, in graph order (the model's graph, then each body):
   * [{ path, index, input, node }], `input` being the position among the node's inputs. Nodes
   * inside a body that read an outer value are listed with the body's path.
   */
  consumers(key) {
    return this.#graphLinks().consumers.get(key) ?? EMPTY;
  }

  #graphLinks() {
    if (this.#links) return this.#links;
    const producer = new Map();
    const consumers = new Map();
    const walk = (path, nodes) => {
      for (let index = 0; index < nodes.length; index++) {
        const node = nodes[index];
        for (let input = 0; input < node.inputs.length; input++) {
          const key = node.inputs[input];
          if (key === null) continue;
          const ref = Object.freeze({ path, index, input, node });
          const list = consumers.get(key);
          if (list) list.push(ref);
          else consumers.set(key, [ref]);
        }
        let ref = null;
        for (const key of node.outputs) {
          if (key !== null && !producer.has(key)) producer.set(key, (ref ??= Object.freeze({ path, index, node })));
        }
      }
    };
    walk('', this.nodes);
    for (const [path, g] of Object.entries(this.subgraphs)) walk(path, g.nodes);
    for (const list of consumers.values()) Object.freeze(list);
    return (this.#links = { producer, consumers });
  }

  /** Every value with a known type, sorted (code-unit order). A fresh array each call. */
  names() {
    const packed = this.#lazy?.packed; // (the engine lists only values with a known type)
    this.#names ??= packed?.hashable ? packed.sortedKeys() : Object.keys(this.values).filter((n) => this.values[n] != null).sort();
    return this.#names.slice();
  }

  /**
   * The cost model (README "Cost"): { total, byOpType, nodes, uncounted }, counts as numbers or
   * expressions of the model's sizes; with options.bindings, evaluated at those sizes (a binding the
   * model refuses throws ShapeInferenceError BINDING_REJECTED). Needs a result inferred with
   * { cost: true } (otherwise a ShapeInferenceError NO_COST_MODEL). A new object each call.
   */
  cost(options) {
    return resultCost(this, options);
  }

  /**
   * Activation memory over the schedule at options.bindings: { steps: [{ node, name, opType,
   * liveBytes }], peakBytes, peakStep, values: [{ key, bytes, from, to }] }. Needs { cost: true }.
   */
  memoryProfile(options) {
    return memoryProfile(this, options);
  }

  /**
   * The model given to inferShapes with the inferred types written in (C osi_result_model): graph
   * outputs and existing value_info entries get the inferred type, a value_info entry is appended
   * (sorted by name) for every other inferred value with a known element type, and every other
   * byte is kept. A new Uint8Array each call. It runs the inference again on the bytes given to
   * inferShapes (the result holds no wasm memory, only a reference to those bytes), so they must
   * not have been modified.
   */
  toModel() {
    if (!this.#writer) {
      throw new Error('onnx-shapes: toModel() needs a result of inferShapes(bytes); a streamed model has no bytes to rewrite');
    }
    return this.#writer();
  }
}
