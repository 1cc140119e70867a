/*
 * TypeProto and TensorProto / SparseTensorProto messages for the nanopb
 * decoder: declared types become OsiType, tensor payloads are kept only
 * when inference uses them (see decode_npb.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decode/npb_internal.h"
#include "decode/tensor_data.h"

/* Section - Types */

typedef struct DimB {
  OsiMbDimCase which;
  int64_t value;
  const char *param;
} DimB;

typedef struct DimArg {
  NpbDecoder *d;
  DimB *dim;
} DimArg;

static bool cb_dim_value(pb_istream_t *stream, const pb_field_t *field, void **arg) {
  (void)field;
  DimArg *a = *arg;
  uint64_t u;
  if (!pb_decode_varint(stream, &u)) return false;
  a->dim->which = OSI_MB_DIM_VALUE;
  a->dim->value = (int64_t)u;
  return npb_skip_rest(stream);
}

static bool cb_dim_param(pb_istream_t *stream, const pb_field_t *field, void **arg) {
  (void)field;
  DimArg *a = *arg;
  a->dim->which = OSI_MB_DIM_PARAM;
  return npb_read_bytes(stream, a->d, &a->dim->param, NULL);
}

/* TensorShapeProto.dim -> NpbVec of DimB */
static bool cb_dim(pb_istream_t *stream, const pb_field_t *field, void **arg) {
  (void)field;
  ListArg *a = *arg;
  DimB *dim = npb_vec_push(a->d, a->v);
  if (!dim) return false;
  DimArg da = {a->d, dim};
  onnx_TensorShapeProto_Dimension m = onnx_TensorShapeProto_Dimension_init_zero;
  npb_set_cb(&m.dim_value, cb_dim_value, &da);
  npb_set_cb(&m.dim_param, cb_dim_param, &da);
  return npb_decode_checked(stream, onnx_TensorShapeProto_Dimension_fields, &m);
}

typedef struct ShapeArg {
  NpbDecoder *d;
  int present;
  NpbVec dims; /* DimB */
} ShapeArg;

/* TypeProto.Tensor.shape / SparseTensor.shape (a repeated occurrence merges, as in protobuf-c) */
static bool cb_shape(pb_istream_t *stream, const pb_field_t *field, void **arg) {
  (void)field;
  ShapeArg *a = *arg;
  a->present = 1;
  ListArg la = {a->d, &a->dims};
  onnx_TensorShapeProto m = onnx_TensorShapeProto_init_zero;
  npb_set_cb(&m.dim, cb_dim, &la);
  return npb_decode_checked(stream, onnx_TensorShapeProto_fields, &m);
}

/* TypeProto.Tensor and TypeProto.SparseTensor have the same layout. */
static bool decode_tensor_type(NpbDecoder *d, pb_istream_t *stream, OsiKind kind, const OsiType **out) {
  ShapeArg sa = {d, 0, NPB_VEC(DimB)};
  int32_t elem_type;
  bool ok;
  if (kind == OSI_KIND_TENSOR) {
    onnx_TypeProto_Tensor m = onnx_TypeProto_Tensor_init_zero;
    npb_set_cb(&m.shape, cb_shape, &sa);
    ok = npb_decode_checked(stream, onnx_TypeProto_Tensor_fields, &m);
    elem_type = m.elem_type;
  } else {
    onnx_TypeProto_SparseTensor m = onnx_TypeProto_SparseTensor_init_zero;
    npb_set_cb(&m.shape, cb_shape, &sa);
    ok = npb_decode_checked(stream, onnx_TypeProto_SparseTensor_fields, &m);
    elem_type = m.elem_type;
  }
  if (!ok) {
    npb_vec_free(&sa.dims);
    return false;
  }
  int rank = sa.present ? (sa.dims.n > (size_t)OSI_MAX_RANK ? OSI_MAX_RANK + 1 : (int)sa.dims.n) : -1;
  OsiType *t = osi_mb_tensor_type(d->arena, d->err, kind, elem_type, rank);
  if (t) {
    OsiExpr *dims = osi_type_dims_mut(t);
    const DimB *src = (const DimB *)sa.dims.p;
    for (int i = 0; i < rank; i++) dims[i] = osi_mb_dim(d->exprs, src[i].which, src[i].value, src[i].param);
  }
  npb_vec_free(&sa.dims);
  *out = t;
  return d->err->status == OSI_OK;
}

typedef struct TypeB {
  NpbDecoder *d;
  int which; /* the oneof case that came last: 1 tensor, 4 sequence, 5 map, 8 sparse, 9 optional */
  const OsiType *tensor, *sparse, *seq_elem, *opt_elem, *map_value;
  int32_t map_key;
} TypeB;

static bool cb_type_tensor(pb_istream_t *stream, const pb_field_t *field, void **arg) {
  (void)field;
  TypeB *b = *arg;
  b->which = 1;
  return decode_tensor_type(b->d, stream, OSI_KIND_TENSOR, &b->tensor);
}

static bool cb_type_sparse(pb_istream_t *stream, const pb_field_t *field, void **arg) {
  (void)field;
  TypeB *b = *arg;
  b->which = 8;
  return decode_tensor_type(b->d, stream, OSI_KIND_SPARSE_TENSOR, &b->sparse);
}

typedef struct ElemArg {
  NpbDecoder *d;
  const OsiType **out;
} ElemArg;

/* A nested TypeProto field (Sequence/Optional.elem_type, Map.value_type). */
static bool cb_nested_type(pb_istream_t *stream, const pb_field_t *field, void **arg) {
  (void)field;
  ElemArg *a = *arg;
  return npb_decode_type(a->d, stream, a->out);
}

static bool cb_type_sequence(pb_istream_t *stream, const pb_field_t *field, void **arg) {
  (void)field;
  TypeB *b = *arg;
  b->which = 4;
  b->seq_elem = NULL;
  ElemArg ea = {b->d, &b->seq_elem};
  onnx_TypeProto_Sequence m = onnx_TypeProto_Sequence_init_zero;
  npb_set_cb(&m.elem_type, cb_nested_type, &ea);
  return npb_decode_checked(stream, onnx_TypeProto_Sequence_fields, &m);
}

static bool cb_type_optional(pb_istream_t *stream, const pb_field_t *field, void **arg) {
  (void)field;
  TypeB *b = *arg;
  b->which = 9;
  b->opt_elem = NULL;
  ElemArg ea = {b->d, &b->opt_elem};
  onnx_TypeProto_Optional m = onnx_TypeProto_Optional_init_zero;
  npb_set_cb(&m.elem_type, cb_nested_type, &ea);
  return npb_decode_checked(stream, onnx_TypeProto_Optional_fields, &m);
}

static bool cb_type_map(pb_istream_t *stream, const pb_field_t *field, void **arg) {
  (void)field;
  TypeB *b = *arg;
  b->which = 5;
  b->map_value = NULL;
  ElemArg ea = {b->d, &b->map_value};
  onnx_TypeProto_Map m = onnx_TypeProto_Map_init_zero;
  npb_set_cb(&m.value_type, cb_nested_type, &ea);
  if (!npb_decode_checked(stream, onnx_TypeProto_Map_fields, &m)) return false;
  b->map_key = m.key_type;
  return true;
}

/* One TypeProto message -> *out (NULL when it has no known case). Counts
 * towards OSI_MAX_GRAPH_DEPTH like decode_pbc.c's decode_type. */
bool npb_decode_type(NpbDecoder *d, pb_istream_t *stream, const OsiType **out) {
  if (++d->depth > OSI_MAX_GRAPH_DEPTH) return npb_fail(d, OSI_ERR_LIMIT_EXCEEDED, "type nesting exceeds the limit");
  TypeB b = {.d = d};
  onnx_TypeProto m = onnx_TypeProto_init_zero;
  npb_set_cb(&m.tensor_type, cb_type_tensor, &b);
  npb_set_cb(&m.sequence_type, cb_type_sequence, &b);
  npb_set_cb(&m.map_type, cb_type_map, &b);
  npb_set_cb(&m.sparse_tensor_type, cb_type_sparse, &b);
  npb_set_cb(&m.optional_type, cb_type_optional, &b);
  if (!npb_decode_checked(stream, onnx_TypeProto_fields, &m)) return false;
  const OsiType *t = NULL;
  switch (b.which) {
  case 1: t = b.tensor; break;
  case 8: t = b.sparse; break;
  case 4: t = osi_type_sequence(d->arena, b.seq_elem); break;
  case 9: t = osi_type_optional(d->arena, b.opt_elem); break;
  case 5: t = osi_type_map(d->arena, b.map_key, b.map_value); break;
  default: break;
  }
  d->depth--;
  *out = t;
  return true;
}

bool npb_cb_type(pb_istream_t *stream, const pb_field_t *field, void **arg) {
  (void)field;
  TypeArg *a = *arg;
  a->present = 1;
  return npb_decode_type(a->d, stream, a->out);
}

/* Section - Tensors */

typedef struct TensorB {
  NpbDecoder *d;
  int keep;           /* 0: payloads are not needed at all (sparse values) */
  const char *name;
  NpbVec dims;           /* int64_t, at most OSI_MAX_RANK + 1 stored */
  size_t n_dims;
  NumList int64_data, int32_data, uint64_data, float_data, double_data;
  int has_raw;
  uint8_t *raw;       /* malloc'ed; NULL when skipped */
  size_t raw_len;
} TensorB;

static bool cb_tensor_dims(pb_istream_t *stream, const pb_field_t *field, void **arg) {
  (void)field;
  TensorB *b = *arg;
  while (stream->bytes_left) {
    uint64_t u;
    if (!npb_varint_as_pbc(stream, &u)) return false;
    if (b->n_dims++ <= (size_t)OSI_MAX_RANK) { /* more than that fails when the tensor ends */
      int64_t *slot = npb_vec_push(b->d, &b->dims);
      if (!slot) return false;
      *slot = (int64_t)u;
    }
  }
  return true;
}

static bool cb_raw(pb_istream_t *stream, const pb_field_t *field, void **arg) {
  (void)field;
  TensorB *b = *arg;
  size_t n = stream->bytes_left;
  b->has_raw = 1;
  b->raw_len = n;
  free(b->raw);
  b->raw = NULL;
  if (!b->keep || n > OSI_NPB_MAX_KEPT_RAW) return npb_skip_rest(stream);
  b->raw = malloc(n ? n : 1);
  if (!b->raw) return npb_nomem(b->d);
  return pb_read(stream, b->raw, n);
}

static void tensor_init(TensorB *b, NpbDecoder *d, int keep) {
  memset(b, 0, sizeof *b);
  b->d = d;
  b->keep = keep;
  b->dims = NPB_VEC(int64_t);
  size_t lim = keep ? OSI_NPB_MAX_KEPT_ELEMS : 0;
  b->int64_data = npb_numlist(d, NUM_VARINT, sizeof(int64_t), lim);
  b->int32_data = npb_numlist(d, NUM_SVARINT32, sizeof(int32_t), lim);
  b->uint64_data = npb_numlist(d, NUM_VARINT, sizeof(uint64_t), lim);
  b->float_data = npb_numlist(d, NUM_FIXED32, sizeof(float), lim);
  b->double_data = npb_numlist(d, NUM_FIXED64, sizeof(double), lim);
}

static void tensor_free(TensorB *b) {
  npb_vec_free(&b->dims);
  npb_vec_free(&b->int64_data.v);
  npb_vec_free(&b->int32_data.v);
  npb_vec_free(&b->uint64_data.v);
  npb_vec_free(&b->float_data.v);
  npb_vec_free(&b->double_data.v);
  free(b->raw);
  b->raw = NULL;
}

/* Decodes one TensorProto message into b (callbacks point into b). */
static bool decode_tensor_fields(pb_istream_t *stream, TensorB *b, onnx_TensorProto *m) {
  StrArg name = {b->d, &b->name};
  *m = (onnx_TensorProto)onnx_TensorProto_init_zero;
  npb_set_cb(&m->dims, cb_tensor_dims, b);
  npb_set_cb(&m->name, npb_cb_string, &name);
  npb_set_cb(&m->raw_data, cb_raw, b);
  npb_set_cb(&m->int64_data, npb_cb_numbers, &b->int64_data);
  npb_set_cb(&m->int32_data, npb_cb_numbers, &b->int32_data);
  npb_set_cb(&m->uint64_data, npb_cb_numbers, &b->uint64_data);
  npb_set_cb(&m->float_data, npb_cb_numbers, &b->float_data);
  npb_set_cb(&m->double_data, npb_cb_numbers, &b->double_data);
  npb_set_cb(&m->string_data, npb_cb_skip, NULL);
  npb_set_cb(&m->external_data, npb_cb_skip, NULL);
  return npb_decode_checked(stream, onnx_TensorProto_fields, m);
}

/* dims of b -> arena, with decode_pbc.c's rank check. */
static bool tensor_dims(NpbDecoder *d, TensorB *b, OsiTensor *out) {
  if (b->n_dims > (size_t)OSI_MAX_RANK) return npb_fail(d, OSI_ERR_LIMIT_EXCEEDED, "tensor rank exceeds the limit");
  out->rank = (int32_t)b->n_dims;
  int64_t *dims = npb_vec_finish(d, &b->dims);
  if (!dims) return false;
  out->dims = dims;
  return true;
}

/* One TensorProto message -> *out, as decode_pbc.c's decode_tensor. */
bool npb_decode_tensor(NpbDecoder *d, pb_istream_t *stream, OsiTensor *out) {
  TensorB b;
  tensor_init(&b, d, 1);
  onnx_TensorProto m;
  bool ok = decode_tensor_fields(stream, &b, &m);
  if (ok) {
    out->name = b.name ? b.name : "";
    out->elem_type = m.data_type;
    ok = tensor_dims(d, &b, out);
  }
  if (ok) {
    out->external = m.has_data_location && m.data_location == 1;
    OsiTensorSource src = {
        .elem_type = m.data_type,
        .raw = b.raw,
        .raw_len = b.raw_len,
        .has_raw = b.has_raw,
        .int64_data = (const int64_t *)b.int64_data.v.p, .n_int64 = b.int64_data.count,
        .int32_data = (const int32_t *)b.int32_data.v.p, .n_int32 = b.int32_data.count,
        .uint64_data = (const uint64_t *)b.uint64_data.v.p, .n_uint64 = b.uint64_data.count,
        .float_data = (const float *)b.float_data.v.p, .n_float = b.float_data.count,
        .double_data = (const double *)b.double_data.v.p, .n_double = b.double_data.count,
    };
    /* A payload we did not hold (skipped raw_data, or more elements than
     * stored) has a length no kept tensor can have: keep_data rejects it
     * from the lengths alone, before touching the bytes. */
    osi_tensor_keep_data(d->arena, out, &src);
  }
  tensor_free(&b);
  return ok;
}

typedef struct SparseValues {
  NpbDecoder *d;
  int32_t elem_type;
  const char *name;
} SparseValues;

/* SparseTensorProto.values: only the name and element type are used. */
static bool cb_sparse_values(pb_istream_t *stream, const pb_field_t *field, void **arg) {
  (void)field;
  SparseValues *v = *arg;
  TensorB b;
  tensor_init(&b, v->d, 0);
  onnx_TensorProto m;
  bool ok = decode_tensor_fields(stream, &b, &m);
  if (ok) {
    v->elem_type = m.data_type;
    v->name = b.name; /* arena copy; NULL when absent */
  }
  tensor_free(&b);
  return ok;
}

/* One SparseTensorProto -> *out (dims only), as decode_pbc.c. */
bool npb_decode_sparse(NpbDecoder *d, pb_istream_t *stream, OsiTensor *out) {
  TensorB b; /* only dims are used */
  tensor_init(&b, d, 0);
  SparseValues values = {d, 0, NULL};
  onnx_SparseTensorProto m = onnx_SparseTensorProto_init_zero;
  npb_set_cb(&m.values, cb_sparse_values, &values);
  npb_set_cb(&m.indices, npb_cb_skip, NULL);
  npb_set_cb(&m.dims, cb_tensor_dims, &b);
  bool ok = npb_decode_checked(stream, onnx_SparseTensorProto_fields, &m) && tensor_dims(d, &b, out);
  if (ok) {
    out->elem_type = values.elem_type;
    out->name = values.name ? values.name : "";
  }
  tensor_free(&b);
  return ok;
}

