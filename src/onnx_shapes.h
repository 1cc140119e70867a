/*
 * onnx-shapes: symbolic shape inference for ONNX models.
 *
 * This header is the whole public C API and, unchanged, the WebAssembly ABI:
 * only integers, sizes and pointers cross it, never a struct by value.
 *
 * Memory: osi_infer returns a result that owns every byte it points to.
 * Every `const char *` returned by an osi_result_* function is borrowed from
 * the result and stays valid until osi_result_delete. Nothing else needs
 * freeing.
 */
#ifndef ONNX_SHAPES_H
#define ONNX_SHAPES_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#ifdef __EMSCRIPTEN__
#include <emscripten/emscripten.h>
#define OSI_API EMSCRIPTEN_KEEPALIVE
#else
#define OSI_API
#endif

/* Section - Status */

typedef enum OsiStatus {
  OSI_OK = 0,
  OSI_ERR_NOMEM,                /* an allocation failed */
  OSI_ERR_PARSE,                /* the bytes are not a ModelProto */
  OSI_ERR_INVALID_MODEL,        /* structurally wrong: no graph, bad attribute type, ... */
  OSI_ERR_MISSING_INPUT,        /* a node reads a value nothing defines */
  OSI_ERR_DUPLICATE_DEFINITION, /* two producers for one value name */
  OSI_ERR_CYCLE,                /* the node graph is not acyclic */
  OSI_ERR_LIMIT_EXCEEDED,       /* a documented size/depth limit was hit */
  OSI_ERR_SHAPE_MISMATCH,       /* inputs whose shapes contradict the op's rule */
  OSI_ERR_ANCHOR_CONFLICT,      /* a declared shape contradicts the inferred one */
  OSI_ERR_UNSUPPORTED,          /* used internally by ops; becomes a diagnostic */
  OSI_STATUS_COUNT
} OsiStatus;

/* "PARSE_ERROR", "INVALID_MODEL", ...: the code string JS errors carry.
 * Static storage. */
OSI_API const char *osi_status_name(OsiStatus status);

/* Section - Options (bit flags for osi_infer) */

enum {
  OSI_OPT_PREFILL_VALUE_INFO = 1u << 0, /* existing value_info entries are anchors too */
  OSI_OPT_EVENTS = 1u << 1,             /* record the event log */
  OSI_OPT_STRICT = 1u << 2,             /* an op whose rule fails ends the run (default: diagnostic) */
  /* Which decoder osi_infer uses (at most one). Without either: the build's
   * default (CMake OSI_DECODER, protobuf-c unless configured otherwise),
   * which native builds let the environment variable OSI_DECODER
   * ("protobuf-c"/"pbc" or "nanopb") override. osi_infer_stream and the other
   * streaming entries always use nanopb. Both produce the same result. */
  OSI_OPT_DECODER_PBC = 1u << 8,        /* protobuf-c: unpacks the whole message */
  OSI_OPT_DECODER_NANOPB = 1u << 9,     /* nanopb: one message at a time, payloads skipped */
  /* osi_infer and osi_infer_with free `bytes` (from malloc) as soon as the
   * model is decoded, whatever the outcome, so that inference and the
   * result reuse that memory (the wasm heap never shrinks); osi_result_model
   * then has no bytes to write back into and returns NULL. */
  OSI_OPT_FREE_BYTES = 1u << 10,
};

/* Section - Inference */

typedef struct OsiResult OsiResult;
/* Custom shape functions (see "Custom operators" below). */
typedef struct OsiRegistry OsiRegistry;

/**
 * Infers the type and shape of every value of the serialized ModelProto
 * `bytes[0..len)`. Never returns NULL except when memory for the result
 * itself cannot be had; check osi_result_status().
 */
OSI_API OsiResult *osi_infer(const uint8_t *bytes, size_t len, uint32_t flags);

/* Section - Streaming inference (nanopb decoder) */

/**
 * Pull callbacks for osi_infer_stream. `read` copies up to `len` (<= 64 KiB)
 * next bytes of the model to `dst` and returns how many (0 at the end of the
 * input, < 0 on an error). `skip` moves `n` bytes forward without reading
 * them (a seek); it returns 0 on success. Payloads the engine does not need
 * (weights) are skipped, so a file source never reads them.
 */
typedef int64_t (*OsiReadFn)(void *user, uint8_t *dst, size_t len);
typedef int (*OsiSkipFn)(void *user, uint64_t n);

/**
 * Like osi_infer, on a ModelProto of `total_len` bytes pulled through
 * `read`/`skip` (`skip` may be NULL: skipped bytes are then read and
 * dropped). Memory use does not depend on the size of the weights. A
 * truncated or corrupt input gives OSI_ERR_PARSE with a message ending in
 * "at byte N". Decoder flags are ignored (always nanopb).
 */
/** osi_infer_stream with custom shape functions (registry may be NULL). */
OSI_API OsiResult *osi_infer_stream_with(OsiReadFn read, OsiSkipFn skip, void *user,
                                         uint64_t total_len, uint32_t flags,
                                         const OsiRegistry *registry);
OSI_API OsiResult *osi_infer_stream(OsiReadFn read, OsiSkipFn skip, void *user,
                                    uint64_t total_len, uint32_t flags);

#ifndef __EMSCRIPTEN__
/** osi_infer_stream on an open file descriptor from its current offset to
 * the end of the file, with read() and lseek() (native builds only). */
OSI_API OsiResult *osi_infer_fd(int fd, uint32_t flags);
#else
/**
 * osi_infer_stream whose source is JavaScript (WebAssembly builds only):
 * the module calls `Module.onnxRead(ptr, len)` (copy up to len bytes to
 * HEAPU8[ptr..], return the count, 0 at the end) and `Module.onnxSkip(n)`
 * (move n bytes forward, return 0). `total_len` is a double so that sizes
 * past 4 GB reach C exactly without BigInt.
 */
OSI_API OsiResult *osi_infer_js_stream(double total_len, uint32_t flags,
                                       const OsiRegistry *registry);
#endif

/** OSI_OK, or why inference failed. */
OSI_API int osi_result_status(const OsiResult *self);
/** Human-readable error message; "" when OK. */
OSI_API const char *osi_result_error(const OsiResult *self);
/** Name of the node the error is about; "" when none. */
OSI_API const char *osi_result_error_node(const OsiResult *self);
/**
 * The whole result as UTF-8 JSON (documented in js/index.d.ts):
 * {"values":{name:type,...},"producers":{name:nodeIndex},"nodes":[...],
 *  "diagnostics":[...],...,"definitions":[{"name":..,"expr":..},...]}:
 * dims, contents and constraints print the named sizes of "definitions"
 * (README "Named sizes"). "" when the status is not OSI_OK.
 */
OSI_API const char *osi_result_json(OsiResult *self);
/**
 * The same result packed for js/index.js, which reads it back into exactly
 * the osi_result_json object: names and node inputs/outputs as 32-bit words
 * and NUL-terminated strings, distinct types listed once as JSON. The format
 * is described in src/api/result.c and may change with the wrapper. *len
 * gets its size; NULL (and 0) when the status is not OSI_OK or memory ran out.
 */
OSI_API const uint8_t *osi_result_packed(OsiResult *self, size_t *len);

/**
 * The cost model of the result's model (README "Cost"), as UTF-8 JSON:
 * {"cost": {"total", "byOpType", "nodes", "uncounted"}, "memory": {"order",
 * "peakStep", "values"}}, documented in js/index.d.ts (CostModel). Counts
 * are numbers, or expression strings that print the named sizes of
 * osi_result_json's "definitions". Computed on the first call (inference
 * does nothing for it); owned by the result. "" when the status is not
 * OSI_OK or memory runs out.
 */
OSI_API const char *osi_result_cost_json(OsiResult *self);

/**
 * Every node's attributes (pads, strides, a Constant's value, ...), for
 * viewers, as UTF-8 JSON: {"":[node,...],"<body path>":[...],...}, the
 * model's graph then each inferred body, a node being [[name,type,value],
 * ...] (src/api/result_attributes.h; js/index.d.ts NodeAttribute, result.nodeAttributes). Made on
 * the first call (inference never reads attributes for it); owned by the
 * result. "" when the status is not OSI_OK or memory runs out.
 */
OSI_API const char *osi_result_attributes_json(OsiResult *self);

/* Section - Write-back */

/**
 * The model given to osi_infer with the inferred types written in: graph
 * outputs and existing value_info entries get the inferred type, and a new
 * value_info entry is appended (sorted by name) for every other inferred
 * top-level value with a known element type. Every other byte (inputs,
 * initializers, nodes, functions, metadata, unknown fields) is kept as is.
 * Dims are written as dim_value (constant), dim_param (symbolic: the
 * canonical expression text, except that a lone symbol keeps its exact
 * name, unquoted) or an empty Dimension (unknown). Unknown parts of an
 * existing value_info's type are kept from its declaration when they do not
 * contradict inference; an entry whose inferred element type is unknown, or
 * whose type would not change, keeps its bytes.
 *
 * Reads the bytes given to osi_infer again: they must still be valid and
 * unchanged. Returns `*len` bytes owned by the result (computed once, valid
 * until osi_result_delete), or NULL with *len = 0 when the status is not
 * OSI_OK, the result comes from a streaming entry (no bytes to rewrite),
 * memory runs out or the wire data cannot be rewritten.
 */
OSI_API const uint8_t *osi_result_model(OsiResult *self, size_t *len);

/** Frees the result and everything it owns. NULL-safe. */
OSI_API void osi_result_delete(OsiResult *self);

/**
 * Counters of the work the run did, whatever its status, so that a test can
 * bound work that once grew quadratically with the model without timing it
 * (README "Hostile input"): OSI_WORK_NODE_VISITS, nodes inferred (function
 * bodies and fixed-point rounds included); OSI_WORK_TRIAL_VISITS, nodes the
 * trial runs after an If inferred; OSI_WORK_NODES_COUNTED, nodes looked at
 * to count what follows an If. -1 for another `which` or a NULL result.
 */
enum { OSI_WORK_NODE_VISITS = 0, OSI_WORK_TRIAL_VISITS = 1, OSI_WORK_NODES_COUNTED = 2 };
OSI_API double osi_result_work(const OsiResult *self, int which);

OSI_API const char *osi_version(void);

/* Section - Custom operators */

/**
 * A shape function for an operator the engine does not know.
 * `request_json` describes the node:
 *   {"domain": "", "opType": "MyOp", "opset": 1, "node": "name",
 *    "inputs": [Type + optional "value": [...], or null], "attributes": {name: value}}
 * where Type is the getShape format. The callback returns a malloc'ed
 * UTF-8 JSON string (the engine frees it): an array with one Type (or
 * null) per output, dims as numbers, expression strings or null ("kind"
 * may be left out for a tensor); or {"error": "message"}. NULL or malformed JSON becomes a diagnostic.
 */
typedef char *(*OsiShapeCallback)(void *user, const char *request_json);

OSI_API OsiRegistry *osi_registry_new(void);
/** NULL-safe. */
OSI_API void osi_registry_delete(OsiRegistry *self);
/** Registers (or replaces) the callback for domain:op_type ("" is ai.onnx).
 *  A registered callback wins over the built-in rule. Returns 0 on success. */
OSI_API int osi_registry_add(OsiRegistry *self, const char *domain, const char *op_type,
                             OsiShapeCallback fn, void *user);
/** Removes every registration. */
OSI_API void osi_registry_clear(OsiRegistry *self);
/** osi_infer with custom shape functions (registry may be NULL). */
OSI_API OsiResult *osi_infer_with(const uint8_t *bytes, size_t len, uint32_t flags,
                                  const OsiRegistry *registry);
#ifdef __EMSCRIPTEN__
/** Registers JS shape function number `id` (js/index.js keeps the table
 *  and answers through Module.osiShapeCallback). WebAssembly builds only.
 *  domain and op_type hold exactly *_len bytes: -2 (nothing registered)
 *  when either holds a NUL, which would cut it short. */
OSI_API int osi_registry_add_js(OsiRegistry *self, const char *domain, size_t domain_len,
                                const char *op_type, size_t op_type_len, int id);
#endif

#ifdef __cplusplus
}
#endif
#endif
