#include "model/types.h"

#include <string.h>

#include "base/small_copy.h"

static const char *const DTYPE_NAMES[OSI_DT_COUNT] = {
    NULL,           "float",         "uint8",      "int8",          "uint16",
    "int16",        "int32",         "int64",      "string",        "bool",
    "float16",      "double",        "uint32",     "uint64",        "complex64",
    "complex128",   "bfloat16",      "float8e4m3fn", "float8e4m3fnuz", "float8e5m2",
    "float8e5m2fnuz", "uint4",       "int4",       "float4e2m1",    "float8e8m0",
    "uint2",        "int2",
};

static const signed char DTYPE_SIZES[OSI_DT_COUNT] = {
    0, 4, 1, 1, 2, 2, 4, 8, 0, 1, 2, 8, 4, 8, 8, 16, 2, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
};

const char *osi_dtype_name(int32_t dtype) {
  return dtype > 0 && dtype < OSI_DT_COUNT ? DTYPE_NAMES[dtype] : NULL;
}

int osi_dtype_size(int32_t dtype) {
  return dtype > 0 && dtype < OSI_DT_COUNT ? DTYPE_SIZES[dtype] : 0;
}

int osi_dtype_is_integer(int32_t dtype) {
  switch (dtype) {
  case OSI_DT_UINT8: case OSI_DT_INT8: case OSI_DT_UINT16: case OSI_DT_INT16:
  case OSI_DT_INT32: case OSI_DT_INT64: case OSI_DT_BOOL: case OSI_DT_UINT32:
  case OSI_DT_UINT64: case OSI_DT_UINT4: case OSI_DT_INT4: case OSI_DT_UINT2:
  case OSI_DT_INT2:
    return 1;
  default:
    return 0;
  }
}

int osi_dtype_is_float(int32_t dtype) {
  switch (dtype) {
  case OSI_DT_FLOAT: case OSI_DT_DOUBLE: case OSI_DT_FLOAT16: case OSI_DT_BFLOAT16:
  case OSI_DT_FLOAT8E4M3FN: case OSI_DT_FLOAT8E4M3FNUZ: case OSI_DT_FLOAT8E5M2:
  case OSI_DT_FLOAT8E5M2FNUZ: case OSI_DT_FLOAT4E2M1: case OSI_DT_FLOAT8E8M0:
    return 1;
  default:
    return 0;
  }
}

/* A tensor type whose dims (right after it, in one allocation: read
 * together) the caller writes. Every other field is set here, without a
 * memset: one per node output was a call out of the wasm module. */
static OsiType *tensor_uninit(OsiArena *a, int32_t elem_type, int32_t rank) {
  if (rank > OSI_MAX_RANK) return NULL;
  OsiType *t = osi_arena_alloc_uninit(a, sizeof *t + (rank > 0 ? (size_t)rank * sizeof(OsiExpr) : 0));
  if (!t) return NULL;
  *t = (OsiType){.kind = OSI_KIND_TENSOR, .elem_type = elem_type, .rank = rank < 0 ? -1 : rank};
  if (rank > 0) {
    t->dims = (const OsiExpr *)(t + 1);
  } else if (rank == 0) {
    /* not NULL: rules copy and compare `rank` dims with memcpy/memcmp, which
     * may not be given NULL even for 0 bytes */
    static const OsiExpr no_dims[1];
    t->dims = no_dims;
  }
  return t;
}

OsiType *osi_type_tensor(OsiArena *a, int32_t elem_type, int32_t rank) {
  OsiType *t = tensor_uninit(a, elem_type, rank);
  if (t && rank > 0) osi_zero_small(osi_type_dims_mut(t), (size_t)rank * sizeof(OsiExpr)); /* OSI_EXPR_UNKNOWN */
  return t;
}

OsiType *osi_type_tensor_dims(OsiArena *a, int32_t elem_type, int32_t rank, const OsiExpr *dims) {
  OsiType *t = tensor_uninit(a, elem_type, rank);
  if (t && rank > 0) osi_copy_small(osi_type_dims_mut(t), dims, (size_t)rank * sizeof(OsiExpr));
  return t;
}

OsiType *osi_type_copy(OsiArena *a, const OsiType *src) {
  size_t dims = src->rank > 0 ? (size_t)src->rank * sizeof(OsiExpr) : 0;
  OsiType *t = osi_arena_alloc(a, sizeof *t + dims);
  if (!t) return NULL;
  *t = *src;
  if (dims) {
    memcpy(t + 1, src->dims, dims);
    t->dims = (const OsiExpr *)(t + 1);
  }
  return t;
}

static OsiType *wrapper(OsiArena *a, OsiKind kind, int32_t key, const OsiType *elem) {
  OsiType *t = osi_arena_alloc(a, sizeof *t);
  if (!t) return NULL;
  t->kind = kind;
  t->elem_type = key;
  t->rank = -1;
  t->elem = elem;
  return t;
}

OsiType *osi_type_sequence(OsiArena *a, const OsiType *elem) {
  return wrapper(a, OSI_KIND_SEQUENCE, 0, elem);
}
OsiType *osi_type_optional(OsiArena *a, const OsiType *elem) {
  return wrapper(a, OSI_KIND_OPTIONAL, 0, elem);
}
OsiType *osi_type_map(OsiArena *a, int32_t key_type, const OsiType *value) {
  return wrapper(a, OSI_KIND_MAP, key_type, value);
}

OsiExpr *osi_type_dims_mut(OsiType *t) { return (OsiExpr *)t->dims; }

OsiValue *osi_value_ints(OsiArena *a, int64_t count, OsiExpr **elems) {
  if (count < 0 || count > OSI_MAX_VALUE_ELEMS) return NULL;
  OsiValue *v = osi_arena_alloc(a, sizeof *v);
  OsiExpr *e = osi_arena_array(a, (size_t)count, sizeof(OsiExpr));
  if (!v || !e) return NULL;
  v->count = count;
  v->ints = e;
  *elems = e;
  return v;
}

OsiValue *osi_value_floats(OsiArena *a, int64_t count, OsiExpr **elems) {
  if (count < 0 || count > OSI_MAX_VALUE_ELEMS) return NULL;
  OsiValue *v = osi_arena_alloc(a, sizeof *v);
  OsiExpr *e = osi_arena_array(a, (size_t)count, sizeof(OsiExpr));
  if (!v || !e) return NULL;
  v->count = count;
  v->floats = e;
  *elems = e;
  return v;
}

int osi_type_equal(const OsiType *a, const OsiType *b) {
  if (a == b) return 1;
  if (!a || !b || a->kind != b->kind || a->elem_type != b->elem_type || a->rank != b->rank)
    return 0;
  for (int i = 0; i < a->rank; i++)
    if (a->dims[i] != b->dims[i]) return 0;
  if (a->kind == OSI_KIND_TENSOR || a->kind == OSI_KIND_SPARSE_TENSOR) return 1;
  if (a->length != b->length || !osi_type_equal(a->elem, b->elem) || !a->elems != !b->elems) return 0;
  if (a->elems && a->n_elems != b->n_elems) return 0;
  for (int i = 0; a->elems && i < a->n_elems; i++)
    if (!osi_type_equal(a->elems[i], b->elems[i])) return 0;
  return 1;
}

const OsiType *const *osi_type_seq_elems(const OsiType *t, int *n) {
  if (!t || t->kind != OSI_KIND_SEQUENCE || !t->elems || t->n_elems < 0 || t->n_elems > OSI_MAX_SEQ_ELEMS)
    return NULL;
  *n = t->n_elems;
  return t->elems;
}

OsiExpr osi_type_numel(OsiExprStore *s, const OsiType *t) {
  if (!t || t->rank < 0) return OSI_EXPR_UNKNOWN;
  OsiExpr n = osi_expr_const(s, 1);
  for (int i = 0; i < t->rank && n != OSI_EXPR_UNKNOWN; i++) n = osi_expr_mul(s, n, t->dims[i]);
  return n;
}

int osi_type_is_static(const OsiExprStore *s, const OsiType *t) {
  if (!t || t->rank < 0) return 0;
  for (int i = 0; i < t->rank; i++)
  {
    int64_t v;
    if (!osi_expr_is_const(s, t->dims[i], &v)) return 0;
  }
  return 1;
}
