/*
 * Custom shape functions registered by the embedder (C callbacks, or JS
 * functions through the wasm trampoline), for ops the engine does not
 * know. They speak JSON so that C and JS callbacks share one protocol.
 */
#ifndef OSI_CUSTOM_OPS_H
#define OSI_CUSTOM_OPS_H

#include "onnx_shapes.h"
#include "ops/ops.h"

typedef struct OsiCustomOp {
  OsiShapeCallback fn;
  void *user;
} OsiCustomOp;

/* The registered callback for domain:op_type ({NULL} when none). */
OsiCustomOp osi_registry_find(const OsiRegistry *registry, const char *domain, const char *op_type);
/* Calls it: builds the request, parses the answer into the node's outputs.
 * A failing callback (NULL, malformed JSON, {"error": ...}) is a diagnostic. */
OsiStatus osi_custom_op_call(OsiOpCtx *ctx, const OsiCustomOp *op);

#endif
