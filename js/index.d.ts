// Types for onnx-shapes (js/index.js, and js/index.cjs which exposes the same API to require()).

import type { DimBindings, DimValue } from './expr.js';

/** A named derived size of a result: `name` stands for the expression `expr` (see ShapeInferenceResult.definitions). */
export interface Definition {
  readonly name: string;
  readonly expr: string;
}

/** A dimension: a known size, a symbolic expression such as 'N' or 'N*4', or null when unknown. */
export type Dim = number | string | null;

/**
 * An ONNX element type in lower case, as the ONNX TensorProto.DataType enum names it:
 * 'float', 'uint8', 'int8', 'uint16', 'int16', 'int32', 'int64', 'string', 'bool', 'float16',
 * 'double', 'uint32', 'uint64', 'complex64', 'complex128', 'bfloat16', 'float8e4m3fn', ...
 */
export type ElemType = string;

/**
 * The type of one value. Every object a result hands out is frozen (deeply), so callers
 * cannot corrupt a result; copy it (e.g. `structuredClone`) to modify it.
 */
export type ValueType = TensorType | SequenceType | MapType | OptionalType;

export interface TensorType {
  readonly kind: 'tensor';
  /** null when the element type is not known. */
  readonly elemType: ElemType | null;
  /** null when not even the rank is known. */
  readonly dims: readonly Dim[] | null;
  /**
   * The content of an integer or bool tensor when inference knows it and it has at most 64
   * elements (row-major, flattened): the "value as shape" of exporters' shape subgraphs, e.g.
   * `Shape(x)` of x `[batch, 8, height, width]` has value `['batch', 8, 'height', 'width']`.
   * Each element is a number, an expression string, or null when that element is unknown.
   * Absent when the content is not known (or longer).
   */
  readonly value?: readonly Dim[];
}

export interface SequenceType {
  readonly kind: 'sequence';
  readonly elem: ValueType | null;
}

export interface MapType {
  readonly kind: 'map';
  readonly keyType: ElemType;
  readonly value: ValueType;
}

export interface OptionalType {
  readonly kind: 'optional';
  readonly elem: ValueType | null;
}

/** A problem that did not stop inference (for example an operator the engine does not know). */
export interface Diagnostic {
  readonly code: string;
  readonly message: string;
  /**
   * Name of the node concerned ('' for an unnamed node); null when the problem is about the model
   * rather than one node (a declared output shape, a constraint between dims).
   */
  readonly node: string | null;
  /** Its op_type; null when `node` is. */
  readonly opType: string | null;
  /** Its index in its graph (`result.nodes` for the top-level graph); null when `node` is. */
  readonly nodeIndex: number | null;
  /**
   * The graph the node is in: '' for the model's graph, otherwise a key of `result.subgraphs`
   * (then `nodeIndex` indexes that body's nodes: `result.node(path, nodeIndex)`); null when
   * `node` is.
   */
  readonly path: string | null;
}

/**
 * A condition an operator needs of its inputs' dims for the model to run, recorded when a dim is
 * symbolic (MatMul of [N, 3] and [M, 4] requires M == 3). Requirements never rename a dim. A size
 * broadcast against a constant (Add of [N, T] and [16]) must be 1 or that constant: `Broadcast(T,16)
 * == 16`, which the command line and RequirementError say as "T == 1 or T == 16".
 */
export interface Requirement {
  readonly lhs: string;
  readonly relation: '==' | '<=';
  readonly rhs: string;
  /** The node that requires it (name, op, index in its graph, subgraph path). */
  readonly node: string;
  readonly opType: string;
  readonly nodeIndex: number;
  readonly path: string;
  /** In words: "MatMul inner dims: dim 0 of input 'w' == dim 1 of input 'x'". */
  readonly message: string;
}

/** One node of a graph. Value keys are those of `result.values` (getShape(key) gives the type). */
export interface NodeInfo {
  readonly name: string;
  readonly opType: string;
  /** '' for the default (ai.onnx) domain. */
  readonly domain: string;
  /** The value key of each input, in order; null for an omitted optional input. */
  readonly inputs: readonly (string | null)[];
  /** The value key of each output, in order; null for an omitted optional output. */
  readonly outputs: readonly (string | null)[];
}

/** A tensor held by an attribute (a Constant's value): its declared type and, when small, its content. */
export interface AttributeTensor {
  readonly elemType: string | null;
  /** Dims as numbers (strings past 2^53). */
  readonly dims: readonly (number | string)[];
  /** Its data is in an external file (never read). */
  readonly external: boolean;
  readonly sparse: boolean;
  /** When the engine kept the content (integer tensors up to 4096 elements, float ones up to 64): the element count... */
  readonly count?: number;
  /** ...and the first 64 elements, row-major (numbers; int64 past 2^53 and NaN/Infinity as strings). */
  readonly values?: readonly (number | string)[];
}

/** A graph attribute (an If branch, a Loop body), summarised; its inferred nodes are in `result.subgraphs`. */
export interface AttributeGraph {
  readonly name: string;
  readonly nodes: number;
  readonly inputs: number;
  readonly outputs: number;
}

type AttributeScalar = number | string | AttributeTensor | AttributeGraph | ValueType | null;

/**
 * One attribute of a node, `type` being ONNX's AttributeType in lower case. Values: 'int' a number
 * (a string past 2^53); 'float' a number (the shortest text of the float32; 'NaN', 'Infinity' as
 * strings); 'string' a string; 'tensor'/'sparse_tensor' an AttributeTensor; 'graph' an
 * AttributeGraph; 'type_proto' a type as getShape gives it; the list types an array of those, or
 * { count, head } (the first 16) past 1024 elements. An attribute of a called function's body that
 * refers to the caller's has the caller's value.
 */
export interface NodeAttribute {
  readonly name: string;
  readonly type: 'int' | 'float' | 'string' | 'tensor' | 'graph' | 'sparse_tensor' | 'type_proto'
    | 'ints' | 'floats' | 'strings' | 'tensors' | 'graphs' | 'sparse_tensors' | 'type_protos' | 'undefined';
  readonly value: AttributeScalar | readonly AttributeScalar[] | { readonly count: number; readonly head: readonly AttributeScalar[] }
    | { readonly ref: string };
}

/**
 * A subgraph (If/Loop/Scan body, ...) or the body of a call of a model-local function, as it was
 * inferred. Its values are keyed `path + name` (see `subgraphValues`); its nodes may read values
 * of the enclosing graphs (their own keys).
 */
export interface SubgraphInfo {
  /** The path of the graph that holds the calling node ('' for the model's graph). */
  readonly parent: string;
  /** The calling node's index in that graph's nodes. */
  readonly node: number;
  /** The graph attribute ('then_branch', 'else_branch', 'body', ...), or the called function's name. */
  readonly attribute: string;
  /** The body's formal inputs (value keys). */
  readonly inputs: readonly (string | null)[];
  /** The body's outputs (value keys, possibly of an enclosing graph). */
  readonly outputs: readonly (string | null)[];
  readonly nodes: readonly NodeInfo[];
}

/** Where a node is: its graph ('' or a key of `subgraphs`) and its index in that graph's nodes. */
export interface NodeRef {
  readonly path: string;
  readonly index: number;
  readonly node: NodeInfo;
}

export interface InferOptions {
  /** Treat the model's existing value_info entries as anchors too (C flag OSI_OPT_PREFILL_VALUE_INFO). */
  prefillValueInfo?: boolean;
  /** Record the event log, returned as `result.events` (C flag OSI_OPT_EVENTS). */
  events?: boolean;
  /**
   * Keep every node's attributes (pads, strides, a Constant's value, ...), for viewers:
   * result.nodeAttributes(path, index). Off by default: inference never reads attributes for them,
   * and a result without this option costs nothing more.
   */
  attributes?: boolean;
  /**
   * Which decoder inferShapes(bytes) uses; both give the same result. 'protobuf-c' copies the
   * bytes into wasm memory and unpacks them whole; 'nanopb' streams them from JS memory one message
   * at a time, skipping weights (the wasm heap stays small). Without this option models under
   * 32 MiB use protobuf-c (a quarter faster; the heap holds a copy of the bytes) and
   * bigger ones nanopb. The *From* functions always use nanopb.
   */
  decoder?: 'protobuf-c' | 'nanopb';
  /**
   * Streaming calls (inferShapesFromPath, inferShapesFromFile, decoder 'nanopb'): called with
   * (0, total) first, then at most every 100 ms while reading, and with (total, total) on success.
   * An exception thrown here aborts the inference and is rethrown.
   */
  onProgress?: (bytesRead: number, totalBytes: number) => void;
  /**
   * Compute the cost model too (README "Cost"): result.costModel, read by result.cost() and
   * result.memoryProfile(). Off by default, so that inference does nothing more unless asked.
   */
  cost?: boolean;
  /**
   * inferShapesFromPath on an input without a size (a pipe, FIFO, socket or character device):
   * the most bytes kept in memory (such an input cannot seek back, so its bytes are kept); one
   * more is a LIMIT_EXCEEDED error. Default 2 GiB (2**31, protobuf's own message size limit); at
   * most 2**32 - 1.
   */
  maxBytes?: number;
  /**
   * inferShapesFromPath: what error messages call the input (default: the path, or "file
   * descriptor N" for a descriptor), e.g. the path a descriptor was opened from.
   */
  name?: string;
}

/** Options of inferShapesFromUrl: those of inferShapes (but the decoder, always nanopb), and the fetch's. */
export interface UrlOptions {
  prefillValueInfo?: boolean;
  events?: boolean;
  cost?: boolean;
  attributes?: boolean;
  /** Request headers (e.g. authorization), sent with every request. */
  headers?: Record<string, string> | Iterable<readonly [string, string]>;
  /** Aborts the fetches (the promise then rejects with the AbortError). */
  signal?: AbortSignal;
  /** The fetch to use (default: the global one). */
  fetch?: typeof fetch;
  /**
   * Called with (bytes fetched so far, the file's size) at most every 100 ms while fetching, and
   * once at the end (where bytesFetched is usually a small part of the size). The size is
   * undefined until known (a server without Range support that sends no Content-Length).
   */
  onProgress?: (bytesFetched: number, fileSize: number | undefined) => void;
  /**
   * The most milliseconds the whole fetching may take (every request, body and retry); past it,
   * a FETCH_ERROR that says so. Default: no limit (a server sending a byte a second is waited for).
   */
  timeout?: number;
  /**
   * The most bytes kept in memory: those the decoder reads (the graph, not the weights), plus
   * what is read ahead. Past it, LIMIT_EXCEEDED. Default 2 GiB (2**31).
   */
  maxBytes?: number;
}

/** How inferShapesFromUrl got the model (result.download). */
export interface DownloadInfo {
  /** The absolute URL fetched. */
  readonly url: string;
  /** The file's size in bytes. */
  readonly size: number;
  /** Bytes received, over every request. */
  readonly bytesFetched: number;
  readonly requests: number;
  /**
   * false when the server ignored Range requests: the whole file was then read once, start to
   * end (the weights were dropped as they streamed past, never held).
   */
  readonly rangeRequests: boolean;
  /** Times the decoder needed bytes the first pass had not fetched (0 in every test). */
  readonly retries: number;
}

/**
 * Options of init(), passed through to the Emscripten module factory. None is needed in Node,
 * which reads dist/onnx_shapes.wasm from disk. In browsers the module fetches the .wasm next to
 * dist/onnx_shapes.mjs unless `locateFile` or `wasmBinary` says otherwise.
 */
export interface InitOptions {
  /** Where to find `path` ('onnx_shapes.wasm'); in Node a file path or file: URL. */
  locateFile?: (path: string, scriptDirectory: string) => string;
  /** The .wasm bytes themselves. */
  wasmBinary?: ArrayBuffer | Uint8Array;
}

/**
 * The codes of ShapeInferenceError: the C status names (osi_status_name), and IO_ERROR (Node:
 * inferShapesFromPath could not open or read the file; `cause` is the fs error).
 */
export type ShapeInferenceErrorCode =
  | 'IO_ERROR'
  | 'NOMEM'
  | 'PARSE_ERROR'
  | 'INVALID_MODEL'
  | 'MISSING_INPUT'
  | 'DUPLICATE_DEFINITION'
  | 'CYCLE'
  | 'LIMIT_EXCEEDED'
  | 'SHAPE_MISMATCH'
  | 'ANCHOR_CONFLICT'
  | 'UNSUPPORTED'
  /** inferShapesFromUrl: the server answered with an error, inconsistent lengths or ranges, or the connection failed. */
  | 'FETCH_ERROR'
  /** A shape function or onProgress called back into the engine that was running it. */
  | 'REENTRANT_CALL'
  /** result.cost() or memoryProfile() on a result inferred without { cost: true }. */
  | 'NO_COST_MODEL'
  /**
   * result.cost({ bindings }) or memoryProfile({ bindings }) with sizes the model refuses: the
   * message names the relation they break (an operator's requirement, an equality, a bound).
   */
  | 'BINDING_REJECTED'
  /**
   * The call was cut short inside the wasm module (a wasm trap, or a JavaScript exception that
   * unwound through it); the engine replaced the module by a fresh one. `cause` is what was thrown.
   * (When the JavaScript stack itself is exhausted, the RangeError may come through instead.)
   */
  | 'ABORTED';

/**
 * Thrown when the engine reports that inference failed. Wrong argument types (bytes that are not a
 * Uint8Array/Buffer/ArrayBuffer, options that are not an object) throw a TypeError instead.
 * The engine stays usable after either.
 */
export class ShapeInferenceError extends Error {
  constructor(message: string, details: { code: string; node?: string | null; cause?: unknown });
  readonly name: 'ShapeInferenceError';
  /** The status name, such as 'PARSE_ERROR' or 'CYCLE'. */
  code: ShapeInferenceErrorCode | (string & {});
  /** Name of the node the error is about, or null. */
  node: string | null;
}

/**
 * A count of the cost model: a number when known (a BigInt past 2^53, exact), an expression string
 * in the dims' grammar (printing the result's named sizes) when it depends on sizes not given.
 */
export type Count = number | bigint | string;

export interface CostOptions {
  /** Symbol sizes (integers >= 0) to evaluate the counts at; an object or a Map. */
  bindings?: Readonly<Record<string, number | bigint>> | ReadonlyMap<string, number | bigint>;
}

export interface CostTotal {
  /** Sums over the counted nodes of the model's graph (null: too big an expression to hold). */
  macs: Count | null;
  flops: Count | null;
  /** Elements of every initializer of the model (subgraphs' too), from their declared dims. */
  params: number | bigint | null;
  /** Bytes of every initializer from its declared dims and element type (external data included, never read). */
  weightBytes: number | bigint | null;
  /**
   * The peak of live activation bytes over the schedule: an expression when one step's live bytes
   * are at least every other's for all sizes, else null; a number at a binding that decides it.
   */
  activationPeakBytes: Count | null;
  /** Nodes (bodies' included) whose MACs/FLOPs are not counted: see `uncounted`. */
  uncountedNodes: number;
}

export interface CostByOpType {
  /** Nodes of the model's graph with this op type (key "OpType", or "domain:OpType" outside ai.onnx). */
  nodes: number;
  /** Sums over its counted nodes; null when none is counted. */
  macs: Count | null;
  flops: Count | null;
}

/** One node of the model's graph: cost.nodes[i] is result.nodes[i]. */
export interface NodeCost {
  name: string;
  opType: string;
  domain: string;
  /** null when the node is not counted (see Cost.uncounted). */
  macs: Count | null;
  flops: Count | null;
  /** Bytes of the initializers and Constant tensors it reads. */
  weightBytes: number | bigint | null;
  /** Bytes of its outputs; null when a size or element size is unknown. */
  outputBytes: Count | null;
  /** The element type its arithmetic runs in: the weights' for MAC-counting ops (packed N-bit weights by their bits: 'uint4'), the first output's otherwise. */
  elemType: string | null;
}

export interface UncountedOps {
  /** "OpType", or "domain:OpType" outside ai.onnx. */
  opType: string;
  nodes: number;
  reason: string;
}

export interface Cost {
  total: CostTotal;
  byOpType: Record<string, CostByOpType>;
  nodes: NodeCost[];
  uncounted: UncountedOps[];
}

export interface MemoryStep {
  /** Index of the node in result.nodes. */
  node: number;
  name: string;
  opType: string;
  /** Activation bytes live while this node runs; null when a live value's size is not decided. */
  liveBytes: number | bigint | null;
}

export interface MemoryProfile {
  /** The engine's topological order of the graph's nodes (the file's order wherever that is one). */
  steps: MemoryStep[];
  /** The most bytes live at one step, null unless every step is decided. */
  peakBytes: number | bigint | null;
  /** The first step at the peak. */
  peakStep: number | null;
  /** Every activation (graph inputs and node outputs, not weights) with its bytes and live steps, from and to included. */
  values: { key: string; bytes: Count | null; from: number; to: number }[];
}

/** The engine's cost JSON (osi_result_cost_json): what cost() and memoryProfile() read. */
export interface CostModel {
  /**
   * total, byOpType and uncounted as cost() gives them symbolically (counts as the engine prints
   * them: numbers, expression strings, decimal strings past 2^53, null); nodes flattened, 7
   * entries a node: name, index in `ops`, macs, flops, weightBytes, outputBytes, index in
   * `elemTypes` (-1: unknown). A count there is a number, null, or -(k+1) for exprs[k].
   */
  readonly cost: unknown;
  readonly memory: {
    /** Node index per step. */
    readonly order: readonly number[];
    /** The step whose live bytes dominate every other's, or null. */
    readonly peakStep: number | null;
    /** [key, bytes, from, to] per activation, flattened (bytes a count as in nodes). */
    readonly values: readonly (string | number | null)[];
  };
  /** Each distinct expression of the flat arrays once. */
  readonly exprs: readonly string[];
  /** [opType, domain] of the nodes' op indexes. */
  readonly ops: readonly (readonly [string, string])[];
  readonly elemTypes: readonly string[];
}

/**
 * Thrown by result.evaluate when the sizes are outside what the model runs on: `relation` is the
 * first relation they break, in the order of result.evaluate's checks. The message says it in words
 * ("node 3 'conv' (Conv) requires 10 <= time, but at these sizes 10 is 10 and time is 4").
 */
export class RequirementError extends Error {
  constructor(message: string, details: { kind: string; relation?: DomainFact | null; values?: readonly unknown[] | null });
  readonly name: 'RequirementError';
  readonly code: 'OUTSIDE_DOMAIN';
  /**
   * 'requirement' (an operator's, `result.constraints.requirements`), 'size' (a dim of the graph
   * would be negative or has no value, such as Broadcast(3,4)), 'equality' / 'label' / 'bound'
   * (a relation of `result.constraints`: a declared equality, an output label, an upper bound of a
   * data-dependent size).
   */
  kind: 'requirement' | 'size' | 'equality' | 'label' | 'bound' | (string & {});
  /** The requirement or domain fact broken; null for the relations of `constraints` other than requirements. */
  relation: DomainFact | null;
  /** Its two sides at these sizes, [lhs, rhs]; null when a side has no value there. */
  values: readonly DimValue[] | null;
}

/**
 * A fact of the input domain: a requirement (then `requirement` is its index in
 * `result.constraints.requirements`) or a size, a dim of the graph that is never negative (then
 * `requirement` is null, `lhs` is '0' and `message` names the value and dim). `node`, `opType` and
 * `nodeIndex` are null for a dim of a graph input.
 */
export interface DomainFact {
  readonly lhs: string;
  readonly relation: '==' | '<=';
  readonly rhs: string;
  readonly node: string | null;
  readonly opType: string | null;
  readonly nodeIndex: number | null;
  readonly path: string;
  readonly message: string;
  readonly requirement: number | null;
}

/**
 * The sizes the model runs on, as far as inference can tell (README "Where the model runs"): every
 * shape is inferred assuming the model runs, so that its requirements hold and its sizes are sizes.
 */
export interface Domain {
  /**
   * Per symbol of the graph inputs, the range of sizes where every single-symbol requirement holds
   * (`{ time: { min: 400 }, sequence: { min: 192, max: 703 } }`; `max` absent when there is none),
   * with the fact behind each end (absent for the plain 0 of a size).
   */
  readonly symbols: Readonly<Record<string, { readonly min: number; readonly max?: number; readonly minBy?: DomainFact; readonly maxBy?: DomainFact }>>;
  /** The other facts: relations between several symbols, or on sizes that are not the inputs'. */
  readonly relations: readonly DomainFact[];
}

/** What result.evaluate returns: every size known, at the sizes given. */
export interface Evaluation {
  /**
   * Every top-level value's dims at these sizes (numbers, BigInts past 2^53; null for a dim that
   * stays unknown, has a symbol without a size or a value past int64); null for a value of unknown
   * rank or not a tensor.
   * Never a negative size (that is a RequirementError).
   */
  readonly values: Readonly<Record<string, readonly (DimValue | null)[] | null>>;
  /** Every size used: the given ones and the derived ones. */
  readonly sizes: Readonly<Record<string, DimValue>>;
  /** Sizes the model's equalities and labels decided from the given ones, with the relation each comes from. */
  readonly derived: readonly { readonly symbol: string; readonly size: DimValue; readonly from: string }[];
  /** Names given that the model does not have (ignored). */
  readonly unknown: readonly string[];
  /** Symbols of the model still without a size. */
  readonly unbound: readonly string[];
}

/** What one inference found: plain, deeply frozen data that holds no wasm memory. */
export interface ShapeInferenceResult {
  /**
   * Every value name → its type. Built on first read (an own enumerable getter, so spreading,
   * JSON.stringify and postMessage see it): on a 100k-value model that object costs V8 about as
   * much as the inference, and getShape/names do not need it.
   */
  readonly values: Readonly<Record<string, ValueType>>;
  /**
   * Value name → index in `nodes` of the node that produces it (graph inputs and initializers
   * have none). Built on first read, like `values`.
   */
  readonly producers: Readonly<Record<string, number>>;
  /** The nodes of the model's graph, in file order. Built on first read, like `values`. */
  readonly nodes: readonly NodeInfo[];
  /** The model's graph inputs that no initializer shadows (value keys). */
  readonly inputs: readonly string[];
  /** The model's graph outputs (value keys). */
  readonly outputs: readonly string[];
  /**
   * Every subgraph and function body that inference walked, by path ('loop/body/',
   * 'call/MyFunction/'), in the order they were first inferred. Built on first read.
   */
  readonly subgraphs: Readonly<Record<string, SubgraphInfo>>;
  readonly diagnostics: readonly Diagnostic[];
  /**
   * Relations between dims found during inference: equalities (from declared output shapes that
   * rename inferred expressions, e.g. ['past_seq+seq', 'total_seq']) and upper bounds of
   * data-dependent dims (e.g. ['nnz_1', '120']). Each entry is [lhs, rhs].
   * `labels`: each name declared on graph outputs (or value_info) only that names a size inference
   * computed from the graph inputs' symbols, with that size, which the values show instead
   * (e.g. { Relufeatures_dim_0: 'batch', logits_dynamic_axes_1: 'batch' }); keys and sizes are
   * canonical expression strings (a name that is not an identifier is quoted), sorted by key.
   * `requirements`: what operators need of symbolic dims for the model to run.
   */
  readonly constraints: {
    readonly equal: readonly (readonly [string, string])[];
    readonly lessEqual: readonly (readonly [string, string])[];
    readonly labels: Readonly<Record<string, string>>;
    /** What the operators need of symbolic dims for the model to run (see Requirement). */
    readonly requirements: readonly Requirement[];
  };
  /**
   * Named derived sizes, in order: each `name` (floor_1, size_2: a word and a number, never a
   * symbol of the model) stands for `expr`, an expression over the graph's symbols and earlier
   * names. Every size computed in float (Floor/Ceil/Round/Trunc of a float expression) that a dim
   * uses is named, then the subterms that shorten dims still over 80 characters most; dims,
   * contents and constraints print the names. Evaluate a dim through them with
   * evaluateDim(dim, bindings, result.definitions) or bindDefinitions (onnx-shapes/expr).
   * Empty when nothing is named.
   */
  readonly definitions: readonly Definition[];
  /**
   * The first node (in inference order, a topological order) whose inputs contradict its
   * operator's rule: the first diagnostic with code 'SHAPE_MISMATCH' or 'INVALID_MODEL', or null
   * when the model is consistent. Its outputs are unknown, so later nodes are judged on what
   * is known.
   */
  readonly firstError: Diagnostic | null;
  /**
   * Values inside subgraphs (If/Loop/Scan bodies) and function bodies are in `values` too, under
   * a key made of the scope path and the name ("loop/body/acc_out": node name, attribute or
   * function name, value name); `subgraphValues` maps each such key to its parts. Should a key
   * equal a top-level name, "~2", "~3", ... is appended, so keys never collide with it.
   */
  readonly subgraphValues: Readonly<Record<string, { readonly path: string; readonly name: string }>>;
  /**
   * The sizes the model runs on, as far as inference can tell: per graph-input symbol the range
   * every single-symbol requirement (and every dim, a size) allows, and the other relations.
   * Shapes are inferred assuming the model runs, so they hold inside it (README "Where the model runs").
   */
  readonly domain: Domain;
  /** Present when inference ran with `{ events: true }`: how every shape came to be, in order. */
  readonly events?: readonly ShapeEvent[];
  /** Present on results of inferShapesFromUrl: what was fetched. */
  readonly download?: DownloadInfo;
  /**
   * Present when inference ran with `{ cost: true }`: the engine's cost model
   * (osi_result_cost_json), plain data that cost() and memoryProfile() read.
   */
  readonly costModel?: CostModel;
  /** Any other key of the engine's JSON is passed through as is. */
  readonly [key: string]: unknown;
  /** The (frozen) type of value `name`, or null when `name` is not a value with a known type. */
  getShape(name: string): ValueType | null;
  /** Every value with a known type, sorted in code-unit order; a fresh array each call. */
  names(): string[];
  /** The node at index `index` of graph `path` ('' or a key of `subgraphs`), or null. */
  node(path: string, index: number): NodeInfo | null;
  /**
   * The attributes of that node in file order (parsed on the first call), or null: no such node,
   * or a result inferred without `{ attributes: true }`.
   */
  nodeAttributes(path: string, index: number): readonly NodeAttribute[] | null;
  /** The node that writes value `key`, or null (a graph input, an initializer, an unknown key). */
  producer(key: string): NodeRef | null;
  /**
   * The nodes that read value `key`, the model's graph first, then each body (a body node that
   * reads an outer value is listed under the body's path); `input` is the position among the
   * node's inputs (a node reading the value twice is listed twice). Built on first call.
   */
  consumers(key: string): readonly (NodeRef & { readonly input: number })[];
  /**
   * The cost model (README "Cost"): MACs, FLOPs, weight and output bytes per node of the model's
   * graph, the totals and totals by op type, and the ops not counted with their reason. Counts are
   * expressions of the model's sizes (named sizes from `definitions`, as dims print them); with
   * `options.bindings`, every count those sizes decide is a number (the sizes the model's relations
   * derive from them included, as the command line's --bind derives them).
   * @throws {ShapeInferenceError} 'NO_COST_MODEL' when inferred without { cost: true };
   *   'BINDING_REJECTED' when the bindings break one of the model's relations.
   * @throws {TypeError} when a size is not an integer >= 0, or a named size of `definitions` is given
   *   where its definition has no value (as evaluate).
   * @throws {RangeError} when a size is past int64.
   */
  cost(options?: CostOptions): Cost;
  /**
   * Activation memory over the schedule at `options.bindings` (README "Cost"): the bytes live at
   * each step of the engine's topological order, the peak, and each value's live range.
   * @throws {ShapeInferenceError} as cost().
   */
  memoryProfile(options?: CostOptions): MemoryProfile;
  /**
   * The serialized ModelProto given to inferShapes with the inferred types written in (a new
   * Uint8Array each call): the graph outputs and existing value_info entries get the inferred type
   * (dims as dim_value when constant, dim_param with the expression text when symbolic, an empty
   * Dimension when unknown), and a value_info entry is appended, sorted by name, for every other
   * inferred value with a known element type. Every other byte (inputs, initializers, nodes,
   * functions, metadata, unknown fields) is kept as is.
   *
   * It runs the inference again on the bytes given to inferShapes, which must not have been
   * modified since (a result of inferShapes(bytes) keeps a reference to them for this).
   * @throws {Error} when the result does not come from inferShapes(bytes) (inferShapesFromPath,
   *   or inferShapesFromFile in a browser, have no bytes to rewrite) or those bytes changed.
   * @throws {ShapeInferenceError} with code 'PARSE_ERROR' when the bytes cannot be rewritten.
   */
  toModel(): Uint8Array;
  /**
   * Every top-level value's dims at these sizes, once the sizes are checked against what the model
   * needs to run, in this order: the relations of `constraints` (equalities, labels, upper bounds,
   * then the requirements of the model's graph in order: a branch's or a loop body's hold only
   * where it runs), the domain's other facts (a relation the sizes make false is named before one
   * they leave without a value), its ranges, and every dim of the graph (a size is never negative,
   * and has a value: not Broadcast(3,4)). Sizes the equalities and
   * labels decide are derived (past_seq+seq == total_seq). A symbol without a size leaves the dims
   * that use it null.
   * @throws {RequirementError} naming the first relation these sizes break.
   * @throws {TypeError} when `bindings` is not an object or Map (an array is neither), a name is not
   *   a string, a size is not an integer (or is a
   *   number past 2^53: give it as a BigInt), or a name is a named size of `definitions` whose
   *   definition has no value at these sizes (bind the symbols it is defined over).
   * @throws {RangeError} when a size is negative or past int64.
   */
  evaluate(bindings: DimBindings): Evaluation;
}

/** One entry of the event log (`{ events: true }`). */
export interface ShapeEvent {
  /** 'seed' (graph input), 'node' (a node was inferred), 'set' (a value got its type), 'anchor'
   *  (a declared shape was merged in), 'constraint', 'rename', 'replace' (a rename changed a value),
   *  'requirement' (an operator needs a relation between symbolic dims), 'assume' (a Min or Max
   *  that what the model needs to run decides: "Max(time//320-1,0) -> time//320-1 where the model
   *  runs: node 6 'conv' (Conv) requires 640 <= time"; README "Where the model runs"). */
  readonly kind: 'seed' | 'node' | 'set' | 'anchor' | 'constraint' | 'rename' | 'replace' | 'requirement' | 'assume' | (string & {});
  /** Index of the node in its graph, -1 when no node is involved. */
  readonly nodeIndex: number;
  readonly node: string;
  readonly opType: string;
  /** Scope path of a subgraph or function body, '' at top level. */
  readonly path: string;
  /** The value concerned, '' when none. */
  readonly value: string;
  /** The type set, the constraint, or the rename, as text. */
  readonly detail: string;
}

/** What a custom shape function is called with. */
export interface ShapeFunctionRequest {
  readonly domain: string;
  readonly opType: string;
  /** The opset version the model imports for the op's domain (0 when none). */
  readonly opset: number;
  /** The node's name. */
  readonly node: string;
  /** The node's inputs in getShape format (null: omitted or unknown); narrow on `kind` before
   *  reading `elemType`/`dims`. Integer inputs whose content is known carry it as `value`. */
  readonly inputs: readonly (ShapeFunctionInput | null)[];
  /** Attribute name → value: numbers, strings, arrays, or { elemType, dims } for tensors. */
  readonly attributes: Readonly<Record<string, unknown>>;
}

/** An input of a custom op: a ValueType, where a tensor may carry its known content. */
export type ShapeFunctionInput = TensorInput | SequenceType | MapType | OptionalType;

export interface TensorInput extends TensorType {
  /** The content of an integer tensor when inference knows it (numbers, expression strings or
   *  null per element), e.g. the output of `Shape`. */
  readonly value?: readonly Dim[];
}

/** An output type as a shape function returns it: a ValueType, where a tensor's `kind` may be
 *  left out (`{ elemType: 'float', dims: ['N', 4] }`) and a missing `elemType`/`dims` is unknown. */
export type ShapeFunctionOutput = ShapeFunctionTensor | SequenceType | MapType | OptionalType;

export interface ShapeFunctionTensor {
  readonly kind?: 'tensor';
  readonly elemType?: ElemType | null;
  readonly dims?: readonly Dim[] | null;
}

/**
 * Returns one type per output (null: unknown). Throwing, or returning anything else, makes a
 * diagnostic on the node, not a crash. The function must not call back into the engine that
 * called it (see Engine.registerShapeFunction).
 */
export type ShapeFunction = (request: ShapeFunctionRequest) => readonly (ShapeFunctionOutput | null)[];

/** What inferShapesFromSource reads from. */
export interface ByteSource {
  readonly size: number;
  read(pos: number, len: number): Uint8Array;
}

/**
 * A loaded wasm module. Its calls are synchronous and run one at a time: while one runs, a shape
 * function or onProgress callback that calls inferShapes, inferShapesFromPath, inferShapesFromSource
 * (and the decoding of inferShapesFromUrl or, in a worker, inferShapesFromFile), toModel,
 * registerShapeFunction or clearShapeFunctions of the same engine gets a ShapeInferenceError with
 * code 'REENTRANT_CALL' (getShape and version may be called). After a call that left the wasm
 * memory more than 64 MiB bigger than a fresh module's, the engine replaces the module with a
 * fresh one (about a millisecond), so a big model does not keep its heap for the rest of the
 * process; registered shape functions carry over.
 */
export interface Engine {
  /**
   * Registers a shape function for domain:opType ('' or 'ai.onnx' is the default domain), used
   * instead of any built-in rule by inferShapes and inferShapesFromPath of this engine. (The
   * browser's inferShapesFromFile runs in its own worker engine, which does not see it.)
   */
  registerShapeFunction(domain: string, opType: string, fn: ShapeFunction): void;
  /** Forgets every registered shape function. */
  clearShapeFunctions(): void;
  /** The C engine's version string (osi_version). */
  readonly version: string;
  /**
   * Infers the type and shape of every value of a serialized ONNX ModelProto. Synchronous.
   * @throws {ShapeInferenceError} when the engine fails (its `code` tells why).
   * @throws {TypeError} when `bytes` or `options` has the wrong type.
   */
  inferShapes(bytes: Uint8Array | ArrayBuffer, options?: InferOptions): ShapeInferenceResult;
  /**
   * Node only: streams the model file at `path` through the nanopb decoder with fs.readSync in
   * 64 KiB reads, skipping weights by file position: neither the file nor its weights are held
   * in memory, whatever their size. Synchronous, like inferShapes. `path` may also be an open
   * file descriptor (a regular file is read from its start; the descriptor is not closed). An
   * input without a size (stdin, a pipe, FIFO, socket or device) is read in order and kept in
   * memory up to `options.maxBytes`; decoding starts as it is read, so bytes that are no model
   * fail at once (/dev/zero at its first byte).
   * @throws {ShapeInferenceError} PARSE_ERROR "... at byte N" for a truncated or corrupt file;
   *   IO_ERROR when the file cannot be opened or read (a missing file, a directory; `cause` is
   *   the fs error); LIMIT_EXCEEDED for an input without a size over `maxBytes`.
   */
  inferShapesFromPath(path: string | URL | Uint8Array | number, options?: InferOptions): ShapeInferenceResult;
  /**
   * Streams a File or Blob through the nanopb decoder; its weights are never copied into wasm
   * memory. On a browser's main thread this runs in a module Web Worker (js/stream_worker.js,
   * FileReaderSync on blob.slice()); inside a worker it runs in place; in Node the Blob is read
   * into JS memory (use inferShapesFromPath there).
   */
  inferShapesFromFile(file: Blob, options?: InferOptions): Promise<ShapeInferenceResult>;
  /**
   * Streams a model from a synchronous random-access source through the nanopb decoder: `size`
   * is the file's length, `read(pos, len)` returns up to `len` bytes at `pos` (fewer only at the
   * end). Weight payloads are skipped, never read. Synchronous, like inferShapes.
   */
  inferShapesFromSource(source: ByteSource, options?: InferOptions): ShapeInferenceResult;
  /**
   * Fetches what inference needs of the model at `url` (absolute in Node; relative to the page in
   * browsers) and infers it: the graph, with HTTP Range requests that skip the weights, so a
   * multi-GB model costs a few requests and a small part of its bytes. A server that ignores Range
   * is read once from start to end, the weights dropped as they pass (`result.download` says so).
   * Runs on the calling thread (the decoding itself is synchronous and quick once the bytes are
   * there); registered shape functions apply.
   * @throws {ShapeInferenceError} FETCH_ERROR (HTTP error, inconsistent lengths, connection lost),
   *   or the engine's codes (PARSE_ERROR "... at byte N" for a truncated file, ...).
   * @throws {TypeError} for a URL that is not one, or no fetch.
   */
  inferShapesFromUrl(url: string | URL, options?: UrlOptions): Promise<ShapeInferenceResult>;
  /** Ends the Web Worker inferShapesFromFile started, if any (a later call starts a new one). */
  terminateWorker(): void;
  /** getShape on this engine's most recent successful result; null before the first one. */
  getShape(name: string): ValueType | null;
}

/**
 * Loads the wasm module. The first call starts the load; every later call returns the same
 * engine (its options are ignored). A failed load rejects, and a later call tries again.
 */
export function init(options?: InitOptions): Promise<Engine>;

/** `(await init()).inferShapes(bytes, options)`. */
export function inferShapes(bytes: Uint8Array | ArrayBuffer, options?: InferOptions): Promise<ShapeInferenceResult>;

/** `(await init()).inferShapesFromPath(path, options)` (Node). */
export function inferShapesFromPath(path: string | URL | Uint8Array | number, options?: InferOptions): Promise<ShapeInferenceResult>;

/** `(await init()).inferShapesFromUrl(url, options)`. */
export function inferShapesFromUrl(url: string | URL, options?: UrlOptions): Promise<ShapeInferenceResult>;

/** `(await init()).inferShapesFromFile(file, options)`. */
export function inferShapesFromFile(file: Blob, options?: InferOptions): Promise<ShapeInferenceResult>;

/** getShape on the default engine's most recent successful result; null before any. */
export function getShape(name: string): ValueType | null;
