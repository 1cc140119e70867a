/*
 * Decoders: serialized ModelProto bytes -> OsiModel (graph.h).
 * Each decoder fills the same model so the rest of the engine does not care
 * which one ran.
 */
#ifndef OSI_DECODE_H
#define OSI_DECODE_H

#include <stddef.h>
#include <stdint.h>

#include "model/graph.h"
#include "onnx_shapes.h"

/* Deepest nesting of subgraphs (attribute graphs) a decoder accepts. */
#define OSI_MAX_GRAPH_DEPTH 64
/* Deepest nesting of protobuf messages (ModelProto is level 1) the
 * protobuf-c decoder unpacks: protobuf-c itself recurses without a limit,
 * so deeper input (e.g. 100,000 nested TypeProto) would overflow the C
 * stack. Every model within OSI_MAX_GRAPH_DEPTH (3 message levels per
 * subgraph, 2 per nested type) stays well below it, and every recursion of
 * the schema goes through a GraphProto or a TypeProto, which the pre-scan
 * counts first (pbc_prescan.c): this one is a safety net. */
#define OSI_MAX_PROTO_DEPTH 256

typedef struct OsiDecodeError {
  OsiStatus status;
  char message[256];
} OsiDecodeError;

/* protobuf-c decoder: whole message in memory. */
const OsiModel *osi_decode_pbc(const uint8_t *bytes, size_t len, OsiArena *arena,
                               OsiExprStore *exprs, OsiDecodeError *err);
/* The same, freeing `bytes` (from malloc) as soon as protobuf-c has
 * unpacked them, before the conversion: the two never take memory at once. */
const OsiModel *osi_decode_pbc_owned(uint8_t *bytes, size_t len, OsiArena *arena, OsiExprStore *exprs,
                                     OsiDecodeError *err);

/* nanopb decoder (decode_npb.c): pulls the message through `read`/`skip`
 * (onnx_shapes.h, OsiReadFn/OsiSkipFn; skip may be NULL) in 64 KiB reads,
 * decoding one NodeProto/TensorProto/... at a time. Tensor payloads that
 * inference does not keep are skipped at the source, never read: raw_data
 * longer than OSI_NPB_MAX_KEPT_RAW bytes and the part of repeated
 * fixed-width data past OSI_NPB_MAX_KEPT_ELEMS elements (repeated varints
 * past it are read, to be checked as protobuf-c checks them, not kept). Fills the same OsiModel as
 * osi_decode_pbc. A truncated or corrupt stream fails with OSI_ERR_PARSE and
 * a message ending in "at byte N". */
#define OSI_NPB_MAX_KEPT_ELEMS OSI_MAX_VALUE_ELEMS
#define OSI_NPB_MAX_KEPT_RAW ((size_t)OSI_MAX_VALUE_ELEMS * 8)
const OsiModel *osi_decode_npb_stream(OsiReadFn read, OsiSkipFn skip, void *user,
                                      uint64_t total_len, OsiArena *arena, OsiExprStore *exprs,
                                      OsiDecodeError *err);
/* The same over a buffer in memory (no copy, no read buffer). */
const OsiModel *osi_decode_npb(const uint8_t *bytes, size_t len, OsiArena *arena,
                               OsiExprStore *exprs, OsiDecodeError *err);

#endif
