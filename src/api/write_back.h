/*
 * Write-back (design step 6): the serialized ModelProto with the inferred
 * types written into the top-level graph, rewritten at the protobuf wire
 * level so that every byte the engine does not own survives unchanged
 * (unknown fields, initializers, nodes, metadata, functions, ...).
 *
 * - graph outputs and existing value_info entries get their type replaced
 *   by the inferred one (unknown parts are filled from the declaration when
 *   it does not contradict; an entry whose type would not change, or whose
 *   inferred element type is unknown, keeps its bytes);
 * - a new value_info entry is appended, in sorted (strcmp) name order, for
 *   every other inferred top-level value (not an input, initializer, output
 *   or existing value_info) whose element type is known.
 */
#ifndef OSI_WRITE_BACK_H
#define OSI_WRITE_BACK_H

#include <stddef.h>
#include <stdint.h>

#include "infer/context.h"

/**
 * Rewrites `src[0..len)`, the bytes `g` was decoded from, with the types of
 * `root` (the top-level scope). On OSI_OK, *out is a malloc'ed buffer of
 * *out_len bytes (free() it). OSI_ERR_PARSE when the wire data is malformed,
 * OSI_ERR_NOMEM / OSI_ERR_LIMIT_EXCEEDED when memory runs out.
 */
OsiStatus osi_write_back(const uint8_t *src, size_t len, const OsiGraph *g,
                         const OsiContext *root, OsiExprStore *exprs, uint8_t **out,
                         size_t *out_len);

#endif
