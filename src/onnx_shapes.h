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
};

/* Section - Inference */

typedef struct OsiResult OsiResult;

/**
 * Infers the type and shape of every value of the serialized ModelProto
 * `bytes[0..len)`. Never returns NULL except when memory for the result
 * itself cannot be had; check osi_result_status().
 */
OSI_API OsiResult *osi_infer(const uint8_t *bytes, size_t len, uint32_t flags);

/** OSI_OK, or why inference failed. */
OSI_API int osi_result_status(const OsiResult *self);
/** Human-readable error message; "" when OK. */
OSI_API const char *osi_result_error(const OsiResult *self);
/** Name of the node the error is about; "" when none. */
OSI_API const char *osi_result_error_node(const OsiResult *self);
/**
 * The whole result as UTF-8 JSON (documented in js/index.d.ts):
 * {"values":{name:type,...},"producers":{name:nodeIndex},"nodes":[...],
 *  "diagnostics":[...]}. "" when the status is not OSI_OK.
 */
OSI_API const char *osi_result_json(OsiResult *self);
/** Frees the result and everything it owns. NULL-safe. */
OSI_API void osi_result_delete(OsiResult *self);

OSI_API const char *osi_version(void);

#ifdef __cplusplus
}
#endif
#endif
