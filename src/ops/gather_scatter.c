/*
 * Element-wise gather and scatter operators: GatherElements, GatherND,
 * ScatterElements, ScatterND, Scatter, TensorScatter. Gathers take their
 * shape from the indices; scatters return a tensor shaped like the data.
 * The gathers propagate small known integer content (shape subgraphs).
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "ops/helpers.h"

/* Content of out[k] = data[index[k]] for 1-D integer data with known content
 * and constant indices (negative ones count from the back). Leaves y
 * without content when anything is unknown; fails on an out-of-range index. */
static OsiStatus gather_value_1d(OsiOpCtx *ctx, OsiType *y, const OsiType *data, const OsiValue *idx) {
  OsiExprStore *s = osi_op_exprs(ctx);
  int64_t len, n = osi_static_count(ctx, y);
  if (!data->value || !data->value->ints || data->rank != 1 || !idx || !idx->ints || n < 0 ||
      n != idx->count || !osi_expr_is_const(s, data->dims[0], &len) || len != data->value->count)
    return OSI_OK;
  OsiExpr *e;
  OsiValue *v = osi_value_ints(osi_op_arena(ctx), n, &e);
  if (!v) return OSI_OK;
  for (int64_t i = 0; i < n; i++) {
    int64_t j;
    if (!osi_expr_is_const(s, idx->ints[i], &j)) return OSI_OK;
    if (j < 0) j += len;
    if (j < 0 || j >= len)
      return osi_op_fail(ctx, OSI_ERR_INVALID_MODEL, "index %lld is out of range for size %lld",
                         (long long)idx->ints[i], (long long)len);
    e[i] = data->value->ints[j];
  }
  y->value = v;
  return OSI_OK;
}

/* GatherElements(data, indices, axis) (opset 11, 13): the output has the
 * shape of indices, whose rank must equal data's; the element type is
 * data's. */
OsiStatus osi_op_gather_elements(OsiOpCtx *ctx) {
  const OsiType *x = osi_in_ranked(ctx, 0), *idx = osi_in_ranked(ctx, 1);
  int32_t dtype = osi_in_dtype(ctx, 0);
  if (!idx) {
    osi_out_tensor(ctx, 0, dtype, x ? x->rank : -1);
    return OSI_OK;
  }
  if (x) {
    int axis;
    if (x->rank != idx->rank || x->rank < 1)
      return osi_op_fail(ctx, OSI_ERR_SHAPE_MISMATCH,
                         "indices rank %d must equal data rank %d (at least 1)", idx->rank, x->rank);
    if (!osi_norm_axis(osi_attr_int(ctx, "axis", 0), x->rank, &axis))
      return osi_op_fail(ctx, OSI_ERR_INVALID_MODEL,
                         "attribute 'axis' (%lld) is out of range [-%d, %d] for input rank %d",
                         (long long)osi_attr_int(ctx, "axis", 0), x->rank, x->rank - 1, x->rank);
  }
  /* Off the axis the indices may not reach past the data (onnxruntime). */
  for (int i = 0, axis = -1; x && i < x->rank; i++) {
    if (axis < 0) osi_norm_axis(osi_attr_int(ctx, "axis", 0), x->rank, &axis);
    OsiStatus st = i == axis ? OSI_OK
                             : osi_op_require_le(ctx, "GatherElements indices", idx->dims[i], OSI_DIM(1, i), x->dims[i], OSI_DIM(0, i));
    if (st != OSI_OK) return st;
  }
  OsiType *y = osi_out_like(ctx, 0, dtype, idx);
  if (!y || !x) return OSI_OK;
  return gather_value_1d(ctx, y, x, idx->value);
}

/* GatherND(data, indices, batch_dims) (opset 11; batch_dims since 12):
 * indices.shape[:-1] + data.shape[b + k:] with k = indices.shape[-1],
 * which must be a constant in [1, r - b]. */
OsiStatus osi_op_gather_nd(OsiOpCtx *ctx) {
  OsiExprStore *s = osi_op_exprs(ctx);
  const OsiType *x = osi_in_ranked(ctx, 0), *idx = osi_in_ranked(ctx, 1);
  int32_t dtype = osi_in_dtype(ctx, 0);
  int64_t b = osi_op_opset(ctx) >= 12 ? osi_attr_int(ctx, "batch_dims", 0) : 0, k;
  if (idx && idx->rank < 1)
    return osi_op_fail(ctx, OSI_ERR_SHAPE_MISMATCH, "input 'indices' has rank %d; expected at least 1", idx->rank);
  if (x && idx && (x->rank < 1 || b < 0 || b >= idx->rank || b >= x->rank))
    return osi_op_fail(ctx, OSI_ERR_INVALID_MODEL,
                       "batch_dims %lld must be below the data rank %d and the indices rank %d",
                       (long long)b, x->rank, idx->rank);
  if (!x || !idx || !osi_expr_is_const(s, idx->dims[idx->rank - 1], &k)) {
    osi_out_tensor(ctx, 0, dtype, -1);
    return OSI_OK;
  }
  /* The spec has equal batch dims; onnxruntime also runs indices whose
   * batch is a multiple of the data's, and refuses any other. */
  int64_t ib = 1, db = 1, c;
  for (int i = 0; i < b && ib >= 0; i++) {
    if (!osi_expr_is_const(s, idx->dims[i], &c) || __builtin_mul_overflow(ib, c, &ib)) ib = -1;
    if (db >= 0 && (!osi_expr_is_const(s, x->dims[i], &c) || __builtin_mul_overflow(db, c, &db))) db = -1;
  }
  if (b > 0 && ib >= 0 && db > 0 && ib % db != 0)
    return osi_op_fail(ctx, OSI_ERR_SHAPE_MISMATCH,
                       "GatherND: the indices' batch dims hold %lld entries, not a multiple of the data's %lld",
                       (long long)ib, (long long)db);
  int q = idx->rank, r = x->rank;
  /* The spec asks for 1..r-b; onnxruntime also runs 0 (whole slices). */
  if (k > r - b)
    return osi_op_fail(ctx, OSI_ERR_INVALID_MODEL,
                       "indices.shape[-1] is %lld; expected 0..%lld (data rank minus batch_dims)",
                       (long long)k, (long long)(r - b));
  if (q - 1 + r - b - k > OSI_MAX_RANK)
    return osi_op_fail(ctx, OSI_ERR_LIMIT_EXCEEDED, "GatherND output rank is over the limit");
  OsiType *y = osi_out_tensor(ctx, 0, dtype, (int)(q - 1 + r - b - k));
  if (!y) return OSI_OK;
  OsiExpr *d = osi_type_dims_mut(y);
  int n = 0;
  for (int i = 0; i < q - 1; i++) {
    /* Batch dims are equal in both inputs: take whichever is known. */
    d[n++] = i < b && idx->dims[i] == OSI_EXPR_UNKNOWN ? x->dims[i] : idx->dims[i];
  }
  for (int64_t i = b + k; i < r; i++) d[n++] = x->dims[i];
  if (b == 0 && r == 1) return gather_value_1d(ctx, y, x, idx->value);
  return OSI_OK;
}

/* ScatterElements/Scatter (opset 9, 11, 13, 16, 18): output is data; indices
 * and updates share a shape of data's rank. */
OsiStatus osi_op_scatter_elements(OsiOpCtx *ctx) {
  const OsiType *x = osi_in_ranked(ctx, 0), *idx = osi_in_ranked(ctx, 1), *upd = osi_in_ranked(ctx, 2);
  if (x) {
    int axis;
    if ((idx && idx->rank != x->rank) || (upd && upd->rank != x->rank))
      return osi_op_fail(ctx, OSI_ERR_SHAPE_MISMATCH, "indices and updates must have the data rank %d",
                         x->rank);
    if (x->rank < 1 || !osi_norm_axis(osi_attr_int(ctx, "axis", 0), x->rank, &axis))
      return osi_op_fail(ctx, OSI_ERR_INVALID_MODEL,
                         "attribute 'axis' (%lld) is out of range [-%d, %d] for input rank %d",
                         (long long)osi_attr_int(ctx, "axis", 0), x->rank, x->rank - 1, x->rank);
    /* updates has the indices' shape; off the axis the indices may not
     * reach past the data (onnxruntime). */
    char rule[64];
    snprintf(rule, sizeof rule, "%s updates", osi_op_type(ctx));
    for (int i = 0; i < x->rank; i++) {
      OsiStatus st = idx && upd ? osi_op_require_dims_eq(ctx, rule, 2, i, 1, i) : OSI_OK;
      if (st == OSI_OK && idx && i != axis)
        st = osi_op_require_le(ctx, rule, idx->dims[i], OSI_DIM(1, i), x->dims[i], OSI_DIM(0, i));
      if (st != OSI_OK) return st;
    }
  }
  return osi_out_same_as_input(ctx, 0, 0);
}

/* ScatterND(data, indices, updates) (opset 11, 13, 16, 18): output is data;
 * updates has rank q + r - indices.shape[-1] - 1. */
OsiStatus osi_op_scatter_nd(OsiOpCtx *ctx) {
  OsiExprStore *s = osi_op_exprs(ctx);
  const OsiType *x = osi_in_ranked(ctx, 0), *idx = osi_in_ranked(ctx, 1), *upd = osi_in_ranked(ctx, 2);
  int64_t k;
  if (idx && idx->rank < 1)
    return osi_op_fail(ctx, OSI_ERR_SHAPE_MISMATCH, "input 'indices' has rank %d; expected at least 1", idx->rank);
  if (x && idx && osi_expr_is_const(s, idx->dims[idx->rank - 1], &k)) {
    if (k < 1 || k > x->rank)
      return osi_op_fail(ctx, OSI_ERR_INVALID_MODEL, "indices.shape[-1] is %lld; expected 1..%d",
                         (long long)k, x->rank);
    if (upd && upd->rank != idx->rank + x->rank - k - 1)
      return osi_op_fail(ctx, OSI_ERR_SHAPE_MISMATCH, "updates rank %d; expected %lld", upd->rank,
                         (long long)(idx->rank + x->rank - k - 1));
    /* updates = indices.shape[:-1] + data.shape[k:]. */
    for (int i = 0; upd && i < upd->rank; i++) {
      int from_idx = i < idx->rank - 1;
      OsiStatus st = osi_op_require_dims_eq(ctx, "ScatterND updates", 2, i, from_idx ? 1 : 0,
                                            from_idx ? i : (int)(i - (idx->rank - 1) + k));
      if (st != OSI_OK) return st;
    }
    /* onnxruntime refuses indices into an empty indexed dim unless there
     * are none. */
    int64_t c, tuples = 1;
    for (int i = 0; i < idx->rank - 1 && tuples > 0; i++) tuples = osi_expr_is_const(s, idx->dims[i], &c) ? c : -1;
    for (int i = 0; tuples > 0 && i < k; i++)
      if (osi_expr_is_const(s, x->dims[i], &c) && c == 0)
        return osi_op_fail(ctx, OSI_ERR_SHAPE_MISMATCH, "ScatterND: indices into dim %d of the data, which is empty", i);
  }
  return osi_out_same_as_input(ctx, 0, 0);
}

/* TensorScatter(past_cache, update, write_indices) (opset 24): the present
 * cache has past_cache's shape; update differs only along `axis` (not 0).
 * No content: the op models a KV-cache write. */
OsiStatus osi_op_tensor_scatter(OsiOpCtx *ctx) {
  const OsiType *x = osi_in_ranked(ctx, 0), *upd = osi_in_ranked(ctx, 1);
  if (x) {
    int axis;
    if (!osi_norm_axis(osi_attr_int(ctx, "axis", -2), x->rank, &axis) || axis == 0)
      return osi_op_fail(ctx, OSI_ERR_INVALID_MODEL, "axis must name a non-batch dim of rank %d",
                         x->rank);
    if (upd && upd->rank != x->rank)
      return osi_op_fail(ctx, OSI_ERR_SHAPE_MISMATCH, "update rank %d differs from past_cache rank %d",
                         upd->rank, x->rank);
    for (int i = 0; upd && i < x->rank; i++) {
      OsiStatus st = i == axis ? OSI_OK : osi_op_require_dims_eq(ctx, "TensorScatter update", 1, i, 0, i);
      if (st != OSI_OK) return st;
    }
    /* onnxruntime refuses an update longer than the cache (in either mode). */
    if (upd) {
      OsiStatus st = osi_op_require_le(ctx, "TensorScatter update", upd->dims[axis], OSI_DIM(1, axis), x->dims[axis],
                                       OSI_DIM(0, axis));
      if (st != OSI_OK) return st;
    }
    if (osi_in_present(ctx, 2)) {
      OsiStatus st = osi_op_require_rank(ctx, 2, 1, 1);
      if (st == OSI_OK) st = osi_op_require_dims_eq(ctx, "TensorScatter write_indices", 2, 0, 0, 0);
      if (st != OSI_OK) return st;
    }
  }
  return osi_out_same_as_input(ctx, 0, 0);
}
