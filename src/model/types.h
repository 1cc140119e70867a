/*
 * What the engine knows about a value: its kind, element type, shape (each
 * dim an OsiExpr) and, for small tensors whose content is known at
 * inference time, that content ("value as shape").
 *
 * Types are immutable once published in a context: ops build a new one and
 * may share sub-objects (dims arrays, values) with their inputs.
 */
#ifndef OSI_TYPES_H
#define OSI_TYPES_H

#include <stdint.h>

#include "base/arena.h"
#include "expr/expr.h"

/* Largest rank accepted anywhere (declared, inferred or computed). */
#define OSI_MAX_RANK 64
/* Largest tensor whose content is tracked as a value (elements). */
#define OSI_MAX_VALUE_ELEMS 4096
/* Longest sequence whose elements' types are tracked one by one. */
#define OSI_MAX_SEQ_ELEMS 64

/* ONNX TensorProto.DataType codes. */
enum {
  OSI_DT_UNDEFINED = 0, OSI_DT_FLOAT = 1, OSI_DT_UINT8 = 2, OSI_DT_INT8 = 3,
  OSI_DT_UINT16 = 4, OSI_DT_INT16 = 5, OSI_DT_INT32 = 6, OSI_DT_INT64 = 7,
  OSI_DT_STRING = 8, OSI_DT_BOOL = 9, OSI_DT_FLOAT16 = 10, OSI_DT_DOUBLE = 11,
  OSI_DT_UINT32 = 12, OSI_DT_UINT64 = 13, OSI_DT_COMPLEX64 = 14,
  OSI_DT_COMPLEX128 = 15, OSI_DT_BFLOAT16 = 16, OSI_DT_FLOAT8E4M3FN = 17,
  OSI_DT_FLOAT8E4M3FNUZ = 18, OSI_DT_FLOAT8E5M2 = 19, OSI_DT_FLOAT8E5M2FNUZ = 20,
  OSI_DT_UINT4 = 21, OSI_DT_INT4 = 22, OSI_DT_FLOAT4E2M1 = 23,
  OSI_DT_FLOAT8E8M0 = 24, OSI_DT_UINT2 = 25, OSI_DT_INT2 = 26,
  OSI_DT_COUNT
};

typedef enum OsiKind {
  OSI_KIND_UNKNOWN = 0,
  OSI_KIND_TENSOR,
  OSI_KIND_SEQUENCE,
  OSI_KIND_MAP,
  OSI_KIND_OPTIONAL,
  OSI_KIND_SPARSE_TENSOR,
} OsiKind;

/*
 * Known content of a tensor, row-major, one expression per element
 * (OSI_EXPR_UNKNOWN for an unknown one): integer expressions in `ints` for
 * integer and bool tensors, float expressions (expr.h: numbers, or float32
 * expressions of the sizes) in `floats` for floating-point tensors; the
 * other pointer is NULL.
 */
typedef struct OsiValue {
  int64_t count;
  const OsiExpr *ints;
  const OsiExpr *floats;
} OsiValue;

typedef struct OsiType {
  OsiKind kind;
  int32_t elem_type;          /* tensor element type; map key type; 0 unknown */
  int32_t rank;               /* -1 when unknown */
  const OsiExpr *dims;        /* rank entries */
  const struct OsiType *elem; /* sequence/optional element, map value; may be NULL */
  const OsiValue *value;      /* NULL when content unknown */
  OsiExpr length;             /* sequence: number of elements, OSI_EXPR_UNKNOWN when unknown */
  /* Sequence whose length is the known n_elems <= OSI_MAX_SEQ_ELEMS: the
   * type of each element, in order (elem covers them all); else NULL.
   * Elements of one sequence may differ in shape (torch's tensor_split),
   * and an element read at a known position then keeps its own. */
  const struct OsiType *const *elems;
  int32_t n_elems;
} OsiType;

/* Lower-case ONNX name ("float", "int64", "float8e4m3fn"), or NULL. */
const char *osi_dtype_name(int32_t dtype);
/* Bytes per element, 0 for string/unknown; sub-byte types round up to 1. */
int osi_dtype_size(int32_t dtype);
int osi_dtype_is_integer(int32_t dtype); /* int*, uint*, bool */
int osi_dtype_is_float(int32_t dtype);   /* float, double, float16, bfloat16, float8*, float4 */

/* Section - Constructors (arena-allocated; NULL on exhaustion) */

/* A tensor type with `rank` dims all OSI_EXPR_UNKNOWN (rank -1: unknown). */
OsiType *osi_type_tensor(OsiArena *a, int32_t elem_type, int32_t rank);
/* A tensor type with the given dims copied. */
OsiType *osi_type_tensor_dims(OsiArena *a, int32_t elem_type, int32_t rank, const OsiExpr *dims);
OsiType *osi_type_copy(OsiArena *a, const OsiType *t); /* shallow: dims copied, value shared */
OsiType *osi_type_sequence(OsiArena *a, const OsiType *elem);
OsiType *osi_type_optional(OsiArena *a, const OsiType *elem);
OsiType *osi_type_map(OsiArena *a, int32_t key_type, const OsiType *value);
/* Writable dims of a freshly built type. */
OsiExpr *osi_type_dims_mut(OsiType *t);

/* Value of `count` integer (float) elements, all OSI_EXPR_UNKNOWN, writable. */
OsiValue *osi_value_ints(OsiArena *a, int64_t count, OsiExpr **elems);
OsiValue *osi_value_floats(OsiArena *a, int64_t count, OsiExpr **elems);

/* Section - Queries */

int osi_type_equal(const OsiType *a, const OsiType *b); /* kind, dtype, dims, elements (not value) */
/* The per-element types of sequence t and their count, when tracked; else
 * NULL. */
const OsiType *const *osi_type_seq_elems(const OsiType *t, int *n);
/* Product of dims as an expression (UNKNOWN if any dim or the rank is). */
OsiExpr osi_type_numel(OsiExprStore *s, const OsiType *t);
/* 1 when every dim is a constant. */
int osi_type_is_static(const OsiExprStore *s, const OsiType *t);

#endif
