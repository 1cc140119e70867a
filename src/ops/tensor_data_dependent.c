/*
 * Tensor operators whose output size can depend on the data: TopK (when k
 * is not known), Compress, NonZero, Unique. A size that only the data
 * decides becomes a fresh symbol plus a DATA_DEPENDENT diagnostic naming
 * its bound; when the deciding content is known, it is counted instead.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ops/helpers.h"

/* A fresh symbol for a data-dependent size, with the diagnostic and the
 * recorded upper bound. */
static OsiExpr data_dependent(OsiOpCtx *ctx, const char *what, const char *desc, OsiExpr bound) {
  OsiExpr e = osi_op_fresh_dim(ctx, what);
  int64_t c;
  if (osi_expr_is_const(osi_op_exprs(ctx), bound, &c) && c == INT64_MAX) {
    /* every size is at most INT64_MAX: no bound */
    osi_op_diag_sizes(ctx, "DATA_DEPENDENT", "%s; named %E", desc, e);
    return e;
  }
  osi_op_constrain_le(ctx, e, bound);
  if (bound == OSI_EXPR_UNKNOWN)
    osi_op_diag_sizes(ctx, "DATA_DEPENDENT", "%s (at most ?); named %E", desc, e);
  else
    osi_op_diag_sizes(ctx, "DATA_DEPENDENT", "%s (at most %E); named %E", desc, bound, e);
  return e;
}

/* Publishes a 1-D int64 output of length n. */
static void out_1d_int64(OsiOpCtx *ctx, int i, OsiExpr n) {
  OsiType *y = osi_out_tensor(ctx, i, OSI_DT_INT64, 1);
  if (y) osi_type_dims_mut(y)[0] = n;
}

/*
 * TopK(X, K, axis): values (X's type) and int64 indices, both X's shape
 * with dim[axis] = k. k is an attribute before opset 10, then a 1-element
 * input; the spec requires k <= dim[axis], so k is the dim as given.
 */
OsiStatus osi_op_top_k(OsiOpCtx *ctx) {
  OsiExprStore *s = osi_op_exprs(ctx);
  const OsiType *x = osi_in_ranked(ctx, 0);
  int32_t dtype = osi_in_dtype(ctx, 0);
  OsiExpr k = OSI_EXPR_UNKNOWN;
  const OsiExpr *kv;
  if (osi_op_opset(ctx) < 10) {
    if (!osi_attr_has(ctx, "k")) return osi_op_fail(ctx, OSI_ERR_INVALID_MODEL, "attribute 'k' is required");
    k = osi_expr_const(s, osi_attr_int(ctx, "k", 0));
  } else if (osi_in_exprs(ctx, 1, &kv) == 1) {
    k = kv[0];
  }
  /* onnxruntime takes K as a 1-D tensor of one element only ([] and [1, 1] are refused). */
  const OsiType *kt = osi_in_ranked(ctx, 1);
  if (osi_op_opset(ctx) >= 10 && kt && kt->rank != 1)
    return osi_op_fail(ctx, OSI_ERR_SHAPE_MISMATCH, "input 'K' has rank %d; expected a 1-D tensor of one element", kt->rank);
  if (osi_op_opset(ctx) >= 10 && kt) {
    OsiStatus st = osi_op_require_dim(ctx, "TopK", 1, 0, osi_expr_const(s, 1), OSI_WHAT("1 (K holds one value)"));
    if (st != OSI_OK) return st;
  }
  if (!x) {
    osi_out_tensor(ctx, 0, dtype, -1);
    osi_out_tensor(ctx, 1, OSI_DT_INT64, -1);
    return OSI_OK;
  }
  int axis;
  if (!osi_norm_axis(osi_attr_int(ctx, "axis", -1), x->rank, &axis))
    return osi_op_fail(ctx, OSI_ERR_INVALID_MODEL,
                       "attribute 'axis' (%lld) is out of range [-%d, %d] for input rank %d",
                       (long long)osi_attr_int(ctx, "axis", -1), x->rank, x->rank - 1, x->rank);
  int64_t kc, dc;
  if (osi_expr_is_const(s, k, &kc) && kc < 0)
    return osi_op_fail(ctx, OSI_ERR_INVALID_MODEL, "k is %lld, expected >= 0", (long long)kc);
  if (osi_expr_is_const(s, k, &kc) && osi_expr_is_const(s, x->dims[axis], &dc) && kc > dc)
    return osi_op_fail(ctx, OSI_ERR_SHAPE_MISMATCH, "k is %lld but axis %d has only %lld elements",
                       (long long)kc, axis, (long long)dc);
  if (k == OSI_EXPR_UNKNOWN) k = data_dependent(ctx, "topk", "k is not known (input K has no known value), so the dim along axis", x->dims[axis]);
  for (int o = 0; o < 2; o++) {
    OsiType *y = osi_out_tensor(ctx, o, o ? OSI_DT_INT64 : dtype, x->rank);
    if (!y) continue;
    memcpy(osi_type_dims_mut(y), x->dims, (size_t)x->rank * sizeof(OsiExpr));
    osi_type_dims_mut(y)[axis] = k;
  }
  return OSI_OK;
}

/* Number of true entries among the first `limit` ones of a known 1-D bool
 * condition (entries past the selected length are discarded). UNKNOWN
 * when it cannot be counted exactly; -1 in *known when the content is
 * unknown. */
static OsiExpr count_true(OsiOpCtx *ctx, OsiExpr limit, int *known) {
  OsiExprStore *s = osi_op_exprs(ctx);
  const OsiValue *v = osi_in_value(ctx, 1);
  *known = 0;
  if (!v || !v->ints) return OSI_EXPR_UNKNOWN;
  int64_t lim, trues = 0, c;
  for (int64_t i = 0; i < v->count; i++) {
    if (!osi_expr_is_const(s, v->ints[i], &c)) return OSI_EXPR_UNKNOWN;
    trues += c != 0;
  }
  *known = 1;
  if (osi_expr_is_const(s, limit, &lim)) {
    trues = 0;
    for (int64_t i = 0; i < v->count && i < lim; i++) {
      osi_expr_is_const(s, v->ints[i], &c);
      trues += c != 0;
    }
    return osi_expr_const(s, trues);
  }
  if (trues == 0) return osi_expr_const(s, 0);
  if (trues == v->count) return osi_expr_min(s, limit, osi_expr_const(s, trues));
  return OSI_EXPR_UNKNOWN;
}

/*
 * Compress(input, condition, axis): with axis, input's shape with dim[axis]
 * = the number of true entries of condition (within that dim); without
 * axis, 1-D over the flattened input.
 */
OsiStatus osi_op_compress(OsiOpCtx *ctx) {
  OsiExprStore *s = osi_op_exprs(ctx);
  const OsiType *x = osi_in_ranked(ctx, 0);
  int32_t dtype = osi_in_dtype(ctx, 0);
  int has_axis = osi_attr_has(ctx, "axis"), axis = 0, known;
  if (has_axis && !x) {
    osi_out_tensor(ctx, 0, dtype, -1);
    return OSI_OK;
  }
  if (has_axis && !osi_norm_axis(osi_attr_int(ctx, "axis", 0), x->rank, &axis))
    return osi_op_fail(ctx, OSI_ERR_INVALID_MODEL,
                       "attribute 'axis' (%lld) is out of range [-%d, %d] for input rank %d",
                       (long long)osi_attr_int(ctx, "axis", 0), x->rank, x->rank - 1, x->rank);
  const OsiType *cond = osi_in_ranked(ctx, 1);
  if (cond && cond->rank != 1)
    return osi_op_fail(ctx, OSI_ERR_INVALID_MODEL, "condition has rank %d, expected 1", cond->rank);
  OsiExpr limit = has_axis ? x->dims[axis] : x ? osi_type_numel(s, x) : OSI_EXPR_UNKNOWN;
  OsiExpr n = count_true(ctx, limit, &known);
  if (!known) {
    OsiExpr bound = cond ? osi_expr_min(s, limit, cond->dims[0]) : limit;
    n = data_dependent(ctx, "compress", "the number of selected entries depends on the condition's content", bound);
  }
  if (!has_axis) {
    OsiType *y = osi_out_tensor(ctx, 0, dtype, 1);
    if (y) osi_type_dims_mut(y)[0] = n;
    return OSI_OK;
  }
  OsiType *y = osi_out_tensor(ctx, 0, dtype, x->rank);
  if (!y) return OSI_OK;
  memcpy(osi_type_dims_mut(y), x->dims, (size_t)x->rank * sizeof(OsiExpr));
  osi_type_dims_mut(y)[axis] = n;
  return OSI_OK;
}

/* Nonzero entries of x's known content; -1 when not all known. */
static int64_t count_nonzero(OsiOpCtx *ctx, const OsiType *x) {
  OsiExprStore *s = osi_op_exprs(ctx);
  int64_t n = osi_static_count(ctx, x), c, nz = 0;
  if (n < 0 || !x->value || x->value->count != n) return -1;
  for (int64_t i = 0; i < n; i++) {
    double f;
    if (x->value->floats) {
      if (!osi_expr_is_fconst(s, x->value->floats[i], &f)) return -1;
      nz += f != 0;
    } else {
      if (!x->value->ints || !osi_expr_is_const(s, x->value->ints[i], &c)) return -1;
      nz += c != 0;
    }
  }
  return nz;
}

/* NonZero(X): int64 [rank(X), nnz], the coordinates of nonzero entries.
 * A scalar X's first dim is left unknown (runtimes disagree on 0 vs 1). */
OsiStatus osi_op_non_zero(OsiOpCtx *ctx) {
  OsiExprStore *s = osi_op_exprs(ctx);
  const OsiType *x = osi_in_ranked(ctx, 0);
  OsiType *y = osi_out_tensor(ctx, 0, OSI_DT_INT64, 2);
  if (!y) return OSI_OK;
  OsiExpr *d = osi_type_dims_mut(y);
  d[0] = x && x->rank > 0 ? osi_expr_const(s, x->rank) : OSI_EXPR_UNKNOWN;
  int64_t nz = x ? count_nonzero(ctx, x) : -1;
  OsiExpr numel = x ? osi_type_numel(s, x) : OSI_EXPR_UNKNOWN;
  d[1] = nz >= 0 ? osi_expr_const(s, nz)
                 : data_dependent(ctx, "nnz", "the number of nonzero elements depends on the data", numel);
  return OSI_OK;
}

static int cmp_f64(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Distinct entries of x's known content (flattened, integers compared as
 * exact doubles up to 2^53); -1 if unknown or a NaN is present. */
static int64_t count_distinct(OsiOpCtx *ctx, const OsiType *x) {
  int64_t n = osi_static_count(ctx, x), distinct = 0, c;
  if (n < 0 || !x->value || x->value->count != n) return -1;
  double *v = osi_arena_array(osi_op_arena(ctx), (size_t)n + 1, sizeof(double));
  if (!v) return -1;
  for (int64_t i = 0; i < n; i++) {
    if (x->value->floats) {
      if (!osi_expr_is_fconst(osi_op_exprs(ctx), x->value->floats[i], &v[i])) return -1;
    } else if (x->value->ints && osi_expr_is_const(osi_op_exprs(ctx), x->value->ints[i], &c) &&
             c <= ((int64_t)1 << 53) && c >= -((int64_t)1 << 53))
      v[i] = (double)c;
    else return -1;
    if (v[i] != v[i]) return -1;
  }
  qsort(v, (size_t)n, sizeof(double), cmp_f64);
  for (int64_t i = 0; i < n; i++) distinct += i == 0 || v[i] != v[i - 1];
  return distinct;
}

/*
 * Unique(X, axis): Y holds the U unique elements (1-D) or, with axis, X's
 * shape with dim[axis] = U; indices and counts are [U]; inverse_indices
 * has one entry per element of X (with axis: per slice, X.shape[axis]).
 * U is data-dependent except for 0 or 1 candidates or known content.
 */
OsiStatus osi_op_unique(OsiOpCtx *ctx) {
  OsiExprStore *s = osi_op_exprs(ctx);
  const OsiType *x = osi_in_ranked(ctx, 0);
  int32_t dtype = osi_in_dtype(ctx, 0);
  int has_axis = osi_attr_has(ctx, "axis"), axis = 0;
  if (has_axis && x && !osi_norm_axis(osi_attr_int(ctx, "axis", 0), x->rank, &axis))
    return osi_op_fail(ctx, OSI_ERR_INVALID_MODEL,
                       "attribute 'axis' (%lld) is out of range [-%d, %d] for input rank %d",
                       (long long)osi_attr_int(ctx, "axis", 0), x->rank, x->rank - 1, x->rank);
  OsiExpr cand = !x ? OSI_EXPR_UNKNOWN : has_axis ? x->dims[axis] : osi_type_numel(s, x);
  int64_t c, distinct = x && !has_axis ? count_distinct(ctx, x) : -1;
  OsiExpr u = distinct >= 0 ? osi_expr_const(s, distinct)
              : osi_expr_is_const(s, cand, &c) && c <= 1 ? cand
              : data_dependent(ctx, "unique", "the number of unique elements depends on the data", cand);
  if (has_axis && x) {
    OsiType *y = osi_out_tensor(ctx, 0, dtype, x->rank);
    if (y) {
      memcpy(osi_type_dims_mut(y), x->dims, (size_t)x->rank * sizeof(OsiExpr));
      osi_type_dims_mut(y)[axis] = u;
    }
  } else if (has_axis) {
    osi_out_tensor(ctx, 0, dtype, -1);
  } else {
    OsiType *y = osi_out_tensor(ctx, 0, dtype, 1);
    if (y) osi_type_dims_mut(y)[0] = u;
  }
  out_1d_int64(ctx, 1, u);
  out_1d_int64(ctx, 2, cand);
  out_1d_int64(ctx, 3, u);
  return OSI_OK;
}
