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

/* The oneof members of TypeProto, by field number. */
enum { TYPE_NONE = 0, TYPE_TENSOR = 1, TYPE_SEQUENCE = 4, TYPE_MAP = 5, TYPE_SPARSE = 8, TYPE_OPTIONAL = 9 };

struct NpbTypeB {
  int which;         /* the member that came last (TYPE_*) */
  int has_elem;      /* tensor / sparse: elem_type; map: key_type */
  int32_t elem;
  int has_shape;     /* tensor / sparse */
  NpbVec dims;       /* DimB */
  NpbTypeB *inner;   /* sequence / optional: elem_type; map: value_type */
};

void npb_type_free(NpbTypeB *b) {
  while (b) { /* inner types form a chain, not a tree */
    NpbTypeB *inner = b->inner;
    npb_vec_free(&b->dims);
    free(b);
    b = inner;
  }
}

/* A member other than the one held replaces it whole (protobuf clears the
 * other members of a oneof); the same member again merges into it. */
static void type_switch(NpbTypeB *b, int which) {
  if (b->which == which) return;
  npb_type_free(b->inner);
  npb_vec_free(&b->dims);
  *b = (NpbTypeB){.which = which, .dims = NPB_VEC(DimB)};
}

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
  return npb_read_string(stream, a->d, &a->dim->param);
}

/* TensorShapeProto.dim -> NpbVec of DimB (a repeated field: each occurrence is a new dim) */
static bool cb_dim(pb_istream_t *stream, const pb_field_t *field, void **arg) {
  (void)field;
  ListArg *a = *arg;
  DimB *dim = npb_vec_push(a->d, a->v);
  if (!dim) return false;
  DimArg da = {a->d, dim};
  onnx_TensorShapeProto_Dimension m = onnx_TensorShapeProto_Dimension_init_zero;
  npb_set_cb(&m.dim_value, cb_dim_value, &da);
  npb_set_cb(&m.dim_param, cb_dim_param, &da);
  npb_set_cb(&m.denotation, npb_cb_string_check, a->d);
  return npb_decode_checked(stream, onnx_TensorShapeProto_Dimension_fields, &m);
}

typedef struct MemberArg {
  NpbDecoder *d;
  NpbTypeB *b;
} MemberArg;

/* TypeProto.Tensor.shape / SparseTensor.shape: a repeated occurrence appends its dims. */
static bool cb_shape(pb_istream_t *stream, const pb_field_t *field, void **arg) {
  (void)field;
  MemberArg *a = *arg;
  a->b->has_shape = 1;
  ListArg la = {a->d, &a->b->dims};
  onnx_TensorShapeProto m = onnx_TensorShapeProto_init_zero;
  npb_set_cb(&m.dim, cb_dim, &la);
  return npb_decode_checked(stream, onnx_TensorShapeProto_fields, &m);
}

/* A nested TypeProto field (Sequence/Optional.elem_type, Map.value_type). */
static bool cb_inner_type(pb_istream_t *stream, const pb_field_t *field, void **arg) {
  (void)field;
  MemberArg *a = *arg;
  return npb_merge_type(a->d, stream, &a->b->inner);
}

/* One occurrence of a TypeProto oneof member (field number `which`). */
static bool merge_member(pb_istream_t *stream, MemberArg *a, int which) {
  NpbTypeB *b = a->b;
  type_switch(b, which);
  bool ok;
  switch (which) {
  case TYPE_TENSOR: { /* TypeProto.Tensor and .SparseTensor have the same layout */
    onnx_TypeProto_Tensor m = onnx_TypeProto_Tensor_init_zero;
    npb_set_cb(&m.shape, cb_shape, a);
    ok = npb_decode_checked(stream, onnx_TypeProto_Tensor_fields, &m);
    if (ok && m.has_elem_type) b->has_elem = 1, b->elem = m.elem_type;
    break;
  }
  case TYPE_SPARSE: {
    onnx_TypeProto_SparseTensor m = onnx_TypeProto_SparseTensor_init_zero;
    npb_set_cb(&m.shape, cb_shape, a);
    ok = npb_decode_checked(stream, onnx_TypeProto_SparseTensor_fields, &m);
    if (ok && m.has_elem_type) b->has_elem = 1, b->elem = m.elem_type;
    break;
  }
  case TYPE_SEQUENCE: {
    onnx_TypeProto_Sequence m = onnx_TypeProto_Sequence_init_zero;
    npb_set_cb(&m.elem_type, cb_inner_type, a);
    ok = npb_decode_checked(stream, onnx_TypeProto_Sequence_fields, &m);
    break;
  }
  case TYPE_OPTIONAL: {
    onnx_TypeProto_Optional m = onnx_TypeProto_Optional_init_zero;
    npb_set_cb(&m.elem_type, cb_inner_type, a);
    ok = npb_decode_checked(stream, onnx_TypeProto_Optional_fields, &m);
    break;
  }
  default: { /* TYPE_MAP */
    onnx_TypeProto_Map m = onnx_TypeProto_Map_init_zero;
    npb_set_cb(&m.value_type, cb_inner_type, a);
    ok = npb_decode_checked(stream, onnx_TypeProto_Map_fields, &m);
    if (ok && m.has_key_type) b->has_elem = 1, b->elem = m.key_type;
    break;
  }
  }
  return ok;
}

static bool cb_type_tensor(pb_istream_t *s, const pb_field_t *f, void **arg) { (void)f; return merge_member(s, *arg, TYPE_TENSOR); }
static bool cb_type_sequence(pb_istream_t *s, const pb_field_t *f, void **arg) { (void)f; return merge_member(s, *arg, TYPE_SEQUENCE); }
static bool cb_type_map(pb_istream_t *s, const pb_field_t *f, void **arg) { (void)f; return merge_member(s, *arg, TYPE_MAP); }
static bool cb_type_sparse(pb_istream_t *s, const pb_field_t *f, void **arg) { (void)f; return merge_member(s, *arg, TYPE_SPARSE); }
static bool cb_type_optional(pb_istream_t *s, const pb_field_t *f, void **arg) { (void)f; return merge_member(s, *arg, TYPE_OPTIONAL); }

bool npb_merge_type(NpbDecoder *d, pb_istream_t *stream, NpbTypeB **b) {
  if (++d->depth > OSI_MAX_GRAPH_DEPTH) return npb_fail(d, OSI_ERR_LIMIT_EXCEEDED, "type nesting exceeds the limit");
  if (!*b) {
    *b = calloc(1, sizeof **b);
    if (!*b) return npb_nomem(d);
    (*b)->dims = NPB_VEC(DimB);
  }
  MemberArg a = {d, *b};
  onnx_TypeProto m = onnx_TypeProto_init_zero;
  npb_set_cb(&m.tensor_type, cb_type_tensor, &a);
  npb_set_cb(&m.sequence_type, cb_type_sequence, &a);
  npb_set_cb(&m.map_type, cb_type_map, &a);
  npb_set_cb(&m.sparse_tensor_type, cb_type_sparse, &a);
  npb_set_cb(&m.optional_type, cb_type_optional, &a);
  npb_set_cb(&m.denotation, npb_cb_string_check, d);
  if (!npb_decode_checked(stream, onnx_TypeProto_fields, &m)) return false;
  d->depth--;
  return true;
}

static const OsiType *tensor_type_finish(NpbDecoder *d, const NpbTypeB *b, OsiKind kind) {
  int rank = b->has_shape ? (b->dims.n > (size_t)OSI_MAX_RANK ? OSI_MAX_RANK + 1 : (int)b->dims.n) : -1;
  OsiType *t = osi_mb_tensor_type(d->arena, d->err, kind, b->has_elem ? b->elem : 0, rank);
  if (t) {
    OsiExpr *dims = osi_type_dims_mut(t);
    const DimB *src = (const DimB *)b->dims.p;
    for (int i = 0; i < rank; i++) dims[i] = osi_mb_dim(d->exprs, &d->dim_memo, src[i].which, src[i].value, src[i].param);
  }
  return t;
}

const OsiType *npb_type_finish(NpbDecoder *d, const NpbTypeB *b) {
  if (!b) return NULL;
  switch (b->which) {
  case TYPE_TENSOR: return tensor_type_finish(d, b, OSI_KIND_TENSOR);
  case TYPE_SPARSE: return tensor_type_finish(d, b, OSI_KIND_SPARSE_TENSOR);
  case TYPE_SEQUENCE: return osi_type_sequence(d->arena, npb_type_finish(d, b->inner));
  case TYPE_OPTIONAL: return osi_type_optional(d->arena, npb_type_finish(d, b->inner));
  case TYPE_MAP: return osi_type_map(d->arena, b->has_elem ? b->elem : 0, npb_type_finish(d, b->inner));
  default: return NULL;
  }
}

bool npb_cb_type(pb_istream_t *stream, const pb_field_t *field, void **arg) {
  (void)field;
  TypeArg *a = *arg;
  return npb_merge_type(a->d, stream, &a->b);
}

/* Section - Tensors */

static bool cb_tensor_dims(pb_istream_t *stream, const pb_field_t *field, void **arg) {
  (void)field;
  NpbTensorB *b = *arg;
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

/* raw_data: the last occurrence wins, even an empty one. */
static bool cb_raw(pb_istream_t *stream, const pb_field_t *field, void **arg) {
  (void)field;
  NpbTensorB *b = *arg;
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

void npb_tensor_init(NpbTensorB *b, NpbDecoder *d, int keep) {
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

void npb_tensor_free(NpbTensorB *b) {
  npb_vec_free(&b->dims);
  npb_vec_free(&b->int64_data.v);
  npb_vec_free(&b->int32_data.v);
  npb_vec_free(&b->uint64_data.v);
  npb_vec_free(&b->float_data.v);
  npb_vec_free(&b->double_data.v);
  free(b->raw);
  b->raw = NULL;
}

/* One TensorProto occurrence merged into b. */
bool npb_tensor_merge(pb_istream_t *stream, NpbTensorB *b) {
  StrArg name = {b->d, &b->name};
  onnx_TensorProto m = onnx_TensorProto_init_zero;
  npb_set_cb(&m.dims, cb_tensor_dims, b);
  npb_set_cb(&m.name, npb_cb_name, &name);
  npb_set_cb(&m.raw_data, cb_raw, b);
  npb_set_cb(&m.int64_data, npb_cb_numbers, &b->int64_data);
  npb_set_cb(&m.int32_data, npb_cb_numbers, &b->int32_data);
  npb_set_cb(&m.uint64_data, npb_cb_numbers, &b->uint64_data);
  npb_set_cb(&m.float_data, npb_cb_numbers, &b->float_data);
  npb_set_cb(&m.double_data, npb_cb_numbers, &b->double_data);
  npb_set_cb(&m.string_data, npb_cb_skip, NULL);
  npb_set_cb(&m.external_data, npb_cb_skip, NULL);
  if (!npb_decode_checked(stream, onnx_TensorProto_fields, &m)) return false;
  if (m.has_data_type) b->has_type = 1, b->data_type = m.data_type;
  if (m.has_data_location) b->has_location = 1, b->data_location = m.data_location;
  return true;
}

/* dims of b -> arena, with decode_pbc.c's rank check. */
static bool tensor_dims(NpbTensorB *b, OsiTensor *out) {
  NpbDecoder *d = b->d;
  if (b->n_dims > (size_t)OSI_MAX_RANK) return npb_fail(d, OSI_ERR_LIMIT_EXCEEDED, "tensor rank exceeds the limit");
  out->rank = (int32_t)b->n_dims;
  int64_t *dims = npb_vec_finish(d, &b->dims);
  if (!dims) return false;
  out->dims = dims;
  return true;
}

bool npb_tensor_finish(NpbTensorB *b, OsiTensor *out) {
  out->name = b->name ? b->name : "";
  out->elem_type = b->data_type;
  if (!tensor_dims(b, out)) return false;
  out->external = b->has_location && b->data_location == 1;
  OsiTensorSource src = {
      .elem_type = b->data_type,
      .raw = b->raw,
      .raw_len = b->raw_len,
      .has_raw = b->has_raw,
      .int64_data = (const int64_t *)b->int64_data.v.p, .n_int64 = b->int64_data.count,
      .int32_data = (const int32_t *)b->int32_data.v.p, .n_int32 = b->int32_data.count,
      .uint64_data = (const uint64_t *)b->uint64_data.v.p, .n_uint64 = b->uint64_data.count,
      .float_data = (const float *)b->float_data.v.p, .n_float = b->float_data.count,
      .double_data = (const double *)b->double_data.v.p, .n_double = b->double_data.count,
  };
  /* A payload we did not hold (skipped raw_data, or more elements than
   * stored) has a length no kept tensor can have: keep_data rejects it
   * from the lengths alone, before touching the bytes. */
  osi_tensor_keep_data(b->d->arena, out, &src);
  return true;
}

bool npb_decode_tensor(NpbDecoder *d, pb_istream_t *stream, OsiTensor *out) {
  NpbTensorB b;
  npb_tensor_init(&b, d, 1);
  bool ok = npb_tensor_merge(stream, &b) && npb_tensor_finish(&b, out);
  npb_tensor_free(&b);
  return ok;
}

/* SparseTensorProto.values (a message: merged). */
static bool cb_sparse_values(pb_istream_t *stream, const pb_field_t *field, void **arg) {
  (void)field;
  return npb_tensor_merge(stream, *arg);
}

void npb_sparse_init(NpbSparseB *b, NpbDecoder *d) {
  npb_tensor_init(&b->shape, d, 0);
  npb_tensor_init(&b->values, d, 0);
}

void npb_sparse_free(NpbSparseB *b) {
  npb_tensor_free(&b->shape);
  npb_tensor_free(&b->values);
}

bool npb_sparse_merge(pb_istream_t *stream, NpbSparseB *b) {
  onnx_SparseTensorProto m = onnx_SparseTensorProto_init_zero;
  npb_set_cb(&m.values, cb_sparse_values, &b->values);
  npb_set_cb(&m.indices, npb_cb_skip, NULL);
  npb_set_cb(&m.dims, cb_tensor_dims, &b->shape);
  return npb_decode_checked(stream, onnx_SparseTensorProto_fields, &m);
}

/* dims only, as decode_pbc.c */
bool npb_sparse_finish(NpbSparseB *b, OsiTensor *out) {
  if (!tensor_dims(&b->shape, out)) return false;
  out->elem_type = b->values.data_type;
  out->name = b->values.name ? b->values.name : "";
  return true;
}

bool npb_decode_sparse(NpbDecoder *d, pb_istream_t *stream, OsiTensor *out) {
  NpbSparseB b;
  npb_sparse_init(&b, d);
  bool ok = npb_sparse_merge(stream, &b) && npb_sparse_finish(&b, out);
  npb_sparse_free(&b);
  return ok;
}
