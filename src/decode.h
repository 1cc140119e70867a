/*
 * Decoders: serialized ModelProto bytes -> OsiModel (graph.h).
 * Each decoder fills the same model so the rest of the engine does not care
 * which one ran.
 */
#ifndef OSI_DECODE_H
#define OSI_DECODE_H

#include <stddef.h>
#include <stdint.h>

#include "graph.h"
#include "onnx_shapes.h"

/* Deepest nesting of subgraphs (attribute graphs) a decoder accepts. */
#define OSI_MAX_GRAPH_DEPTH 64

typedef struct OsiDecodeError {
  OsiStatus status;
  char message[256];
} OsiDecodeError;

/* protobuf-c decoder: whole message in memory. */
const OsiModel *osi_decode_pbc(const uint8_t *bytes, size_t len, OsiArena *arena,
                               OsiExprStore *exprs, OsiDecodeError *err);

#endif
