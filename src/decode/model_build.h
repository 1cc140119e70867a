/*
 * What both decoders (decode_pbc.c, decode_npb.c) need to turn protobuf
 * fields into the graph model (graph.h) the same way: error reporting,
 * domain normalisation and declared dims -> expressions. Keeping this in one
 * place is what makes the two decoders produce the same OsiModel.
 */
#ifndef OSI_MODEL_BUILD_H
#define OSI_MODEL_BUILD_H

#include <stdint.h>

#include "decode/decode.h"
#include "expr/expr.h"
#include "model/types.h"

/* Records the first error of a decode (later ones are dropped); returns 0. */
int osi_mb_fail(OsiDecodeError *err, OsiStatus status, const char *msg);

/* The error for a failed allocation: LIMIT_EXCEEDED once the arena is at its
 * cap, NOMEM otherwise. Returns 0. */
int osi_mb_nomem(OsiDecodeError *err, const OsiArena *arena);

/* The error for a string field (its key at byte `at`) holding a NUL byte:
 * names, op types, domains and dim_params are refused rather than cut at
 * the NUL. Both decoders word it alike. Returns 0. */
int osi_mb_nul_in_string(OsiDecodeError *err, uint64_t at, const char *s, size_t len);

/* The error for a file that ends inside a field whose key starts at byte
 * `at`: a length-delimited one (has_len) that declares `len` bytes of
 * content, or another cut off. Both decoders word it alike. Returns 0. */
int osi_mb_truncated(OsiDecodeError *err, uint64_t at, int has_len, uint64_t len, uint64_t file_len);

/* Arena copy of a NUL-terminated string, "" for NULL. */
const char *osi_mb_str(OsiArena *arena, const char *s);

/* Operator-set domain: "ai.onnx" is the default domain "" (NULL -> ""). */
const char *osi_mb_domain(OsiArena *arena, const char *s);

/* One declared dimension of a TensorShapeProto (the oneof `value`). */
typedef enum OsiMbDimCase { OSI_MB_DIM_NONE = 0, OSI_MB_DIM_VALUE, OSI_MB_DIM_PARAM } OsiMbDimCase;

/* The dim_params a decode parsed, each with its expression and the work its
 * parse took (osi_mb_dim): exporters repeat names (a 32-layer Llama export:
 * batch_size 132 times, past_sequence_length 64, each If branch's own names
 * twice) and a parse is thousands of instructions. All zeros: empty; free
 * with osi_mb_dim_memo_free. */
#define OSI_MB_DIM_MEMO_SLOTS 256
#define OSI_MB_DIM_MEMO_TEXT 80
typedef struct OsiMbDimMemoSlot {
  uint32_t len, hash; /* len 0: empty */
  OsiExpr e;
  uint64_t work;
  char text[OSI_MB_DIM_MEMO_TEXT];
} OsiMbDimMemoSlot;
typedef struct OsiMbDimMemo {
  OsiMbDimMemoSlot *slot; /* OSI_MB_DIM_MEMO_SLOTS, calloc'ed on first use */
  int failed;             /* no memory for them: nothing is remembered */
} OsiMbDimMemo;
void osi_mb_dim_memo_free(OsiMbDimMemo *memo);

/* The expression for one declared dimension: a constant, a parsed
 * dim_param, or unknown (a negative dim_value or no value at all). memo
 * (or NULL): the decode's, which changes nothing but the time taken. */
OsiExpr osi_mb_dim(OsiExprStore *exprs, OsiMbDimMemo *memo, OsiMbDimCase which, int64_t value,
                   const char *param);

/* A tensor (or sparse tensor) type of the given rank (-1: no shape) with
 * unknown dims, or NULL: on a rank over OSI_MAX_RANK (err is set) or when
 * memory runs out (err is not set, as the protobuf-c decoder always did). */
OsiType *osi_mb_tensor_type(OsiArena *arena, OsiDecodeError *err, OsiKind kind,
                            int32_t elem_type, int rank);

#endif
