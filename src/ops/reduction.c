/*
 * Reductions: Reduce{L1,L2,LogSum,LogSumExp,Max,Mean,Min,Prod,Sum,SumSquare}
 * and ArgMax/ArgMin. Reduced dims become 1 (keepdims) or disappear. When
 * an integer input's content is known (exporter shape arithmetic such as
 * ReduceProd(Shape(x)[1:3]) -> C*H), Sum/Prod/Max/Min compute it too.
 */
#include <string.h>

#include "ops/helpers.h"

/* How the axes of one Reduce node are known. */
typedef enum AxesKind { AXES_LIST, AXES_EMPTY, AXES_UNKNOWN } AxesKind;

/* Reads the axes (attribute before `input_since`, input 1 from it on).
 * *n_unknown gets the axes count when only the axes input's length is
 * known (else -1). */
static AxesKind read_axes(OsiOpCtx *ctx, int64_t input_since, int64_t *axes, int *n, int *n_unknown) {
  *n_unknown = -1;
  if (osi_op_opset(ctx) < input_since) {
    const int64_t *a;
    *n = osi_attr_ints(ctx, "axes", &a);
    if (*n <= 0) return AXES_EMPTY;
    if (*n > OSI_MAX_RANK) return AXES_UNKNOWN;
    memcpy(axes, a, (size_t)*n * sizeof(int64_t));
    return AXES_LIST;
  }
  if (!osi_in_present(ctx, 1)) return AXES_EMPTY;
  *n = osi_in_ints(ctx, 1, axes, OSI_MAX_RANK);
  if (*n == 0) return AXES_EMPTY;
  if (*n > 0) return AXES_LIST;
  const OsiType *at = osi_in_ranked(ctx, 1);
  int64_t len;
  if (at && at->rank == 1 && osi_expr_is_const(osi_op_exprs(ctx), at->dims[0], &len)) {
    if (len == 0) return AXES_EMPTY;
    if (len <= OSI_MAX_RANK) *n_unknown = (int)len;
  }
  return AXES_UNKNOWN;
}

/* Marks reduced[] from the axes list; fails on out-of-range axes. A
 * repeated axis is reduced once (onnxruntime runs it, from an attribute or
 * an input). */
static OsiStatus mark_axes(OsiOpCtx *ctx, const int64_t *axes, int n, int rank, int *reduced) {
  memset(reduced, 0, (size_t)rank * sizeof(int));
  for (int k = 0; k < n; k++) {
    int ax;
    if (!osi_norm_axis(axes[k], rank, &ax))
      return osi_op_fail(ctx, OSI_ERR_INVALID_MODEL, "axes entry %lld is out of range for rank %d",
                         (long long)axes[k], rank);
    reduced[ax] = 1;
  }
  return OSI_OK;
}

/* Output dims for reduced[]: 1 (keepdims) or dropped. Returns the rank. */
static int reduced_dims(OsiExprStore *s, const OsiType *x, const int *reduced, int keepdims,
                        OsiExpr *dims) {
  int r = 0;
  for (int i = 0; i < x->rank; i++) {
    if (!reduced[i]) dims[r++] = x->dims[i];
    else if (keepdims) dims[r++] = osi_expr_const(s, 1);
  }
  return r;
}

/* The fold of the reductions whose integer content is tracked, or NULL. */
static OsiExprBinary value_fn(const OsiOpCtx *ctx) {
  const char *op = osi_op_type(ctx);
  return !strcmp(op, "ReduceSum")    ? osi_expr_add
         : !strcmp(op, "ReduceProd") ? osi_expr_mul
         : !strcmp(op, "ReduceMax")  ? osi_expr_max
         : !strcmp(op, "ReduceMin")  ? osi_expr_min
                                     : NULL;
}

/* Integer content of the reduction when x's shape is static and its
 * content known: output element k folds the inputs mapping onto it. */
static void reduce_value(OsiOpCtx *ctx, OsiType *y, const OsiType *x, const int *reduced) {
  OsiExprBinary fn = value_fn(ctx);
  if (!fn || !y || !x->value || !x->value->ints) return;
  OsiExprStore *s = osi_op_exprs(ctx);
  int64_t nx = osi_static_count(ctx, x), ny = osi_static_count(ctx, y), d[OSI_MAX_RANK];
  if (nx < 0 || ny < 0 || x->value->count != nx) return;
  for (int i = 0; i < x->rank; i++) osi_expr_is_const(s, x->dims[i], &d[i]);
  OsiExpr *e;
  OsiValue *v = osi_value_ints(osi_op_arena(ctx), ny, &e);
  if (!v) return;
  /* Empty sums are 0 and empty products 1; an empty Max/Min stays unknown. */
  OsiExpr init = fn == osi_expr_add ? osi_expr_const(s, 0)
                 : fn == osi_expr_mul ? osi_expr_const(s, 1) : OSI_EXPR_UNKNOWN;
  int *seen = osi_arena_array(osi_op_arena(ctx), (size_t)(ny ? ny : 1), sizeof(int));
  if (!seen) return;
  for (int64_t k = 0; k < ny; k++) { e[k] = init; seen[k] = 0; }
  for (int64_t flat = 0; flat < nx; flat++) {
    int64_t rest = flat, out = 0, stride = 1;
    for (int i = x->rank - 1; i >= 0; i--) {
      int64_t c = rest % d[i];
      rest /= d[i];
      if (!reduced[i]) { out += c * stride; stride *= d[i]; }
    }
    e[out] = seen[out] ? fn(s, e[out], x->value->ints[flat]) : x->value->ints[flat];
    seen[out] = 1;
  }
  y->value = v;
}

/*
 * Reduce*(data[, axes]): reduced axes become 1 (keepdims, default 1) or are
 * dropped; empty axes reduce everything, or nothing with
 * noop_with_empty_axes. Axes moved from attribute to input at opset 13
 * (ReduceSum) and 18 (the others).
 */
OsiStatus osi_op_reduce(OsiOpCtx *ctx) {
  OsiExprStore *s = osi_op_exprs(ctx);
  const OsiType *x = osi_in(ctx, 0);
  int32_t dtype = osi_in_dtype(ctx, 0);
  int keepdims = osi_attr_int(ctx, "keepdims", 1) != 0;
  int64_t since = !strcmp(osi_op_type(ctx), "ReduceSum") ? 13 : 18;
  int noop = osi_op_opset(ctx) >= since && osi_attr_int(ctx, "noop_with_empty_axes", 0) != 0;
  int64_t axes[OSI_MAX_RANK];
  int n = 0, n_unknown, reduced[OSI_MAX_RANK];
  AxesKind kind = read_axes(ctx, since, axes, &n, &n_unknown);
  if (kind == AXES_EMPTY && noop) {
    OsiType *y = x ? osi_out_like(ctx, 0, dtype, x) : NULL;
    /* Sum/Prod/Max/Min over no axis are the identity; LogSum etc. are not. */
    if (y && value_fn(ctx)) y->value = x->value;
    return OSI_OK;
  }
  if (kind == AXES_EMPTY && !keepdims) {
    OsiType *y = osi_out_tensor(ctx, 0, dtype, 0);
    if (x && x->rank >= 0) {
      for (int i = 0; i < x->rank; i++) reduced[i] = 1;
      reduce_value(ctx, y, x, reduced);
    }
    return OSI_OK;
  }
  if (!x || x->rank < 0) {
    osi_out_tensor(ctx, 0, dtype, -1);
    return OSI_OK;
  }
  if (kind == AXES_UNKNOWN) {
    /* Each dim is either kept or becomes 1; only a 1 is provably right.
     * Two or more unknown axes may repeat one: the rank is then open. */
    int rank = keepdims ? x->rank : n_unknown == 1 && x->rank >= 1 ? x->rank - 1 : -1;
    OsiType *y = osi_out_tensor(ctx, 0, dtype, rank);
    if (y && keepdims)
      for (int i = 0; i < rank; i++)
        if (x->dims[i] == osi_expr_const(s, 1)) osi_type_dims_mut(y)[i] = x->dims[i];
    return OSI_OK;
  }
  if (kind == AXES_EMPTY) {
    for (int i = 0; i < x->rank; i++) reduced[i] = 1;
  } else {
    OsiStatus st = mark_axes(ctx, axes, n, x->rank, reduced);
    if (st != OSI_OK) return st;
  }
  OsiExpr dims[OSI_MAX_RANK];
  int r = reduced_dims(s, x, reduced, keepdims, dims);
  OsiType *y = osi_out_tensor(ctx, 0, dtype, r);
  if (!y) return OSI_OK;
  if (r) memcpy(osi_type_dims_mut(y), dims, (size_t)r * sizeof(OsiExpr));
  reduce_value(ctx, y, x, reduced);
  return OSI_OK;
}

/* ArgMax/ArgMin(data): int64 indices along `axis` (default 0), which
 * becomes 1 (keepdims, default 1) or is dropped. select_last_index
 * (opset 12) does not change the shape. */
OsiStatus osi_op_arg_reduce(OsiOpCtx *ctx) {
  const OsiType *x = osi_in_ranked(ctx, 0);
  int keepdims = osi_attr_int(ctx, "keepdims", 1) != 0;
  int64_t axis = osi_attr_int(ctx, "axis", 0);
  if (!x) {
    osi_out_tensor(ctx, 0, OSI_DT_INT64, -1);
    return OSI_OK;
  }
  int ax, reduced[OSI_MAX_RANK];
  if (!osi_norm_axis(axis, x->rank, &ax))
    return osi_op_fail(ctx, OSI_ERR_INVALID_MODEL, "axis %lld is out of range for rank %d",
                       (long long)axis, x->rank);
  /* onnxruntime refuses an arg-reduction over an empty axis unless the
   * output is empty too, and only with the axis given from the front (a
   * negative axis over an empty one runs there). */
  OsiExprStore *s = osi_op_exprs(ctx);
  int64_t c;
  if (axis >= 0 && osi_expr_is_const(s, x->dims[ax], &c) && c == 0) {
    int nonempty = 1;
    for (int i = 0; i < x->rank && nonempty; i++)
      if (i != ax) nonempty = osi_expr_is_const(s, x->dims[i], &c) && c != 0;
    if (nonempty)
      return osi_op_fail(ctx, OSI_ERR_SHAPE_MISMATCH, "%s over axis %d, which is empty", osi_op_type(ctx), ax);
  }
  memset(reduced, 0, sizeof reduced);
  reduced[ax] = 1;
  OsiExpr dims[OSI_MAX_RANK];
  int r = reduced_dims(osi_op_exprs(ctx), x, reduced, keepdims, dims);
  OsiType *y = osi_out_tensor(ctx, 0, OSI_DT_INT64, r);
  if (y && r) memcpy(osi_type_dims_mut(y), dims, (size_t)r * sizeof(OsiExpr));
  return OSI_OK;
}
