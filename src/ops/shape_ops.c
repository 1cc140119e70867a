/*
 * Shape-computing and shape-moving operators: Shape, Size, Reshape,
 * Flatten, Transpose, Squeeze, Unsqueeze, Concat, Expand, ConstantOfShape,
 * Constant. These carry value-as-shape: the content of small integer
 * tensors flows through them, so exporter shape subgraphs end symbolic.
 */
#include <stdio.h>
#include <string.h>

#include "ops/helpers.h"

/* Shape(data) -> int64 [end - start]; opset 15 adds start/end (clamped,
 * negative from the back). The value is the slice of data's dims. */
OsiStatus osi_op_shape(OsiOpCtx *ctx) {
  const OsiType *x = osi_in(ctx, 0);
  OsiExprStore *s = osi_op_exprs(ctx);
  if (!x || x->kind != OSI_KIND_TENSOR || x->rank < 0) {
    osi_out_tensor(ctx, 0, OSI_DT_INT64, 1);
    return OSI_OK;
  }
  int64_t r = x->rank, start = osi_attr_int(ctx, "start", 0), end = osi_attr_int(ctx, "end", r);
  if (start < 0) start += r;
  if (end < 0) end += r;
  start = start < 0 ? 0 : start > r ? r : start;
  end = end < 0 ? 0 : end > r ? r : end;
  int64_t n = end > start ? end - start : 0;
  OsiType *y = osi_out_tensor(ctx, 0, OSI_DT_INT64, 1);
  if (!y) return OSI_OK;
  osi_type_dims_mut(y)[0] = osi_expr_const(s, n);
  osi_set_value(ctx, y, n, x->dims + start);
  return OSI_OK;
}

/* Size(data) -> int64 scalar holding the element count. */
OsiStatus osi_op_size(OsiOpCtx *ctx) {
  OsiType *y = osi_out_tensor(ctx, 0, OSI_DT_INT64, 0);
  const OsiType *x = osi_in(ctx, 0);
  if (y && x && x->kind == OSI_KIND_TENSOR) {
    OsiExpr n = osi_type_numel(osi_op_exprs(ctx), x);
    osi_set_value(ctx, y, 1, &n);
  }
  return OSI_OK;
}

static OsiExpr product(OsiExprStore *s, const OsiExpr *d, int from, int to) {
  OsiExpr p = osi_expr_const(s, 1);
  for (int i = from; i < to; i++) p = osi_expr_mul(s, p, d[i]);
  return p;
}

/* 1 when some of x[0..nx) not yet used (a subset of 1 to 3 of them) multiply
 * to t; marks them used. */
static int take_factors(OsiExprStore *s, const OsiExpr *x, int nx, unsigned char *used, OsiExpr t) {
  for (int i = 0; i < nx; i++)
    if (!used[i] && x[i] == t) return used[i] = 1;
  if (nx > 8) return 0; /* products of a few dims of small ranks only */
  for (int i = 0; i < nx; i++) {
    if (used[i]) continue;
    for (int j = i + 1; j < nx; j++) {
      if (used[j]) continue;
      OsiExpr p = osi_expr_mul(s, x[i], x[j]);
      if (p == t) return used[i] = used[j] = 1;
      for (int k = j + 1; k < nx; k++)
        if (!used[k] && osi_expr_mul(s, p, x[k]) == t) return used[i] = used[j] = used[k] = 1;
    }
  }
  return 0;
}

/* The -1 of a Reshape: numel(x) // (the other requested dims), with the
 * factors both sides share cancelled first: a requested dim equal to a dim
 * of x or to the product of a few of them, and a dim of x equal to the
 * product of a few requested dims. An identity wherever the division is
 * defined; it spares dividing products of sums, which the simplifier
 * cannot (B*(H+1) of [B, H+1, W] leaves W), and keeps the dim a product of
 * factors (Swin's windows [-1, 7, 7, C] of [B, 7*CeilDiv(h,7), 7*CeilDiv(w,7), C]
 * are B*CeilDiv(h,7)*CeilDiv(w,7)). */
static OsiExpr reshape_minus_one(OsiExprStore *s, const OsiType *x, const OsiExpr *d, int n,
                                 int infer_at) {
  OsiExpr req[OSI_MAX_RANK];
  unsigned char xused[OSI_MAX_RANK] = {0}, rused[OSI_MAX_RANK] = {0};
  int nr = 0;
  for (int i = 0; i < n; i++)
    if (i != infer_at) req[nr++] = d[i];
  for (int i = 0; i < nr; i++) /* a requested dim made of dims of x */
    if (!osi_expr_is_const(s, req[i], NULL)) rused[i] = take_factors(s, x->dims, x->rank, xused, req[i]);
  for (int i = 0; i < x->rank; i++) /* a dim of x made of requested dims */
    if (!xused[i] && !osi_expr_is_const(s, x->dims[i], NULL))
      xused[i] = take_factors(s, req, nr, rused, x->dims[i]);
  OsiExpr num = osi_expr_const(s, 1), den = osi_expr_const(s, 1);
  for (int i = 0; i < x->rank; i++)
    if (!xused[i]) num = osi_expr_mul(s, num, x->dims[i]);
  for (int i = 0; i < nr; i++)
    if (!rused[i]) den = osi_expr_mul(s, den, req[i]);
  return osi_expr_floordiv(s, num, den);
}

/*
 * Reshape(data, shape) (opset 5+; the `shape` attribute before). A 0 copies
 * the input dim at that position unless allowzero=1 (opset 14); one -1 is
 * inferred as numel(data) / product(other dims).
 */
OsiStatus osi_op_reshape(OsiOpCtx *ctx) {
  OsiExprStore *s = osi_op_exprs(ctx);
  const OsiType *x = osi_in(ctx, 0);
  int32_t dtype = x ? x->elem_type : 0;
  const OsiExpr *shape = NULL;
  int n = -1;
  OsiExpr attr_shape[OSI_MAX_RANK];
  if (osi_op_opset(ctx) < 5) {
    const int64_t *a;
    n = osi_attr_ints(ctx, "shape", &a);
    if (n > OSI_MAX_RANK) return osi_op_fail(ctx, OSI_ERR_LIMIT_EXCEEDED, "the shape input has %d entries; the rank limit is %d", n, OSI_MAX_RANK);
    for (int i = 0; i < n; i++) attr_shape[i] = osi_expr_const(s, a[i]);
    shape = attr_shape;
  } else {
    n = osi_in_exprs(ctx, 1, &shape);
  }
  if (n < 0) {
    /* Content unknown: the rank is still the shape tensor's length. */
    const OsiType *st = osi_in_ranked(ctx, 1);
    int64_t len;
    int rank = st && st->rank == 1 && osi_expr_is_const(s, st->dims[0], &len) && len <= OSI_MAX_RANK
                   ? (int)len : -1;
    osi_out_tensor(ctx, 0, dtype, rank);
    return OSI_OK;
  }
  if (n > OSI_MAX_RANK) return osi_op_fail(ctx, OSI_ERR_LIMIT_EXCEEDED, "the shape input has %d entries; the rank limit is %d", n, OSI_MAX_RANK);
  int allowzero = (int)osi_attr_int(ctx, "allowzero", 0);
  OsiType *y = osi_out_tensor(ctx, 0, dtype, n);
  if (!y) return OSI_OK;
  OsiExpr *d = osi_type_dims_mut(y);
  int infer_at = -1;
  for (int i = 0; i < n; i++) {
    int64_t c;
    d[i] = shape[i];
    if (!osi_expr_is_const(s, shape[i], &c)) continue;
    if (c == 0 && !allowzero) {
      if (x && x->kind == OSI_KIND_TENSOR && x->rank >= 0 && x->rank <= i)
        return osi_op_fail(ctx, OSI_ERR_SHAPE_MISMATCH,
                           "Reshape: shape entry %d is 0 (copy the input's dim) but the input has rank %d", i, x->rank);
      d[i] = x && x->rank > i ? x->dims[i] : OSI_EXPR_UNKNOWN;
    } else if (c == -1) {
      if (infer_at >= 0) return osi_op_fail(ctx, OSI_ERR_INVALID_MODEL, "shape has two -1 entries");
      infer_at = i;
      d[i] = OSI_EXPR_UNKNOWN;
    } else if (c < -1) {
      return osi_op_fail(ctx, OSI_ERR_INVALID_MODEL, "shape entry %d is %lld", i, (long long)c);
    }
  }
  if (infer_at >= 0 && x && x->rank >= 0) {
    OsiExpr rest = osi_expr_const(s, 1);
    for (int i = 0; i < n; i++)
      if (i != infer_at) rest = osi_expr_mul(s, rest, d[i]);
    int64_t rc;
    /* numel // 0 is undefined: with another 0 dim the -1 cannot be inferred. */
    if (osi_expr_is_const(s, rest, &rc) && rc == 0)
      return osi_op_fail(ctx, OSI_ERR_SHAPE_MISMATCH, "Reshape: the dims other than -1 multiply to 0, so -1 has no size");
    d[infer_at] = reshape_minus_one(s, x, d, n, infer_at);
  }
  /* The element count is kept: the -1 must divide it exactly. */
  if (x && x->kind == OSI_KIND_TENSOR && x->rank >= 0) {
    OsiExpr count = osi_expr_const(s, 1);
    for (int i = 0; i < n; i++) count = osi_expr_mul(s, count, d[i]);
    OsiStatus st = osi_op_require_eq(ctx, "Reshape", count, OSI_WHAT("the requested shape's element count"),
                                     osi_type_numel(s, x), OSI_WHAT("the input's element count"));
    if (st != OSI_OK) return st;
  }
  if (x && x->value && x->value->ints) y->value = x->value; /* row-major order is unchanged */
  return OSI_OK;
}

/* Flatten(input, axis): [prod(d[:axis]), prod(d[axis:])]; axis may be negative (opset 11). */
OsiStatus osi_op_flatten(OsiOpCtx *ctx) {
  const OsiType *x = osi_in_ranked(ctx, 0);
  OsiExprStore *s = osi_op_exprs(ctx);
  if (!x) {
    osi_out_tensor(ctx, 0, osi_in_dtype(ctx, 0), 2);
    return OSI_OK;
  }
  /* axis in [-rank, rank]; a negative one counts from the end (+ rank, not + rank + 1). */
  int64_t a = osi_attr_int(ctx, "axis", 1);
  if (a < -(int64_t)x->rank || a > x->rank)
    return osi_op_fail(ctx, OSI_ERR_INVALID_MODEL,
                       "attribute 'axis' (%lld) is out of range [-%d, %d] for input rank %d",
                       (long long)a, x->rank, x->rank, x->rank);
  int axis = (int)(a < 0 ? a + x->rank : a);
  OsiType *y = osi_out_tensor(ctx, 0, x->elem_type, 2);
  if (!y) return OSI_OK;
  osi_type_dims_mut(y)[0] = product(s, x->dims, 0, axis);
  osi_type_dims_mut(y)[1] = product(s, x->dims, axis, x->rank);
  if (x->value) y->value = x->value;
  return OSI_OK;
}

/* Transpose(data, perm): default perm reverses the dims. */
OsiStatus osi_op_transpose(OsiOpCtx *ctx) {
  const OsiType *x = osi_in_ranked(ctx, 0);
  const int64_t *perm;
  int np = osi_attr_ints(ctx, "perm", &perm);
  if (!x) {
    osi_out_tensor(ctx, 0, osi_in_dtype(ctx, 0), np >= 0 ? np : -1);
    return OSI_OK;
  }
  if (np >= 0 && np != x->rank)
    return osi_op_fail(ctx, OSI_ERR_INVALID_MODEL, "perm has %d entries for rank %d", np, x->rank);
  OsiType *y = osi_out_tensor(ctx, 0, x->elem_type, x->rank);
  if (!y) return OSI_OK;
  int used[OSI_MAX_RANK] = {0}, order[OSI_MAX_RANK];
  for (int i = 0; i < x->rank; i++) {
    int p;
    if (np < 0) p = x->rank - 1 - i;
    else if (!osi_norm_axis(perm[i], x->rank, &p) || used[p]++)
      return osi_op_fail(ctx, OSI_ERR_INVALID_MODEL, "perm is not a permutation of 0..%d", x->rank - 1);
    osi_type_dims_mut(y)[i] = x->dims[p];
    order[i] = p;
  }
  if (x->value && x->rank <= 1) {
    y->value = x->value;
  } else if (x->value) { /* small constant matrices (torch's F.pad builds its pads so) */
    osi_value_strided(ctx, y, x, order, NULL, NULL);
  }
  return OSI_OK;
}

/* Reads the axes of Squeeze/Unsqueeze/Reduce*: attribute before
 * `input_opset`, input 1 from it on. -2 when absent, -1 when unknown. */
static int read_axes(OsiOpCtx *ctx, int64_t input_opset, int64_t *axes) {
  if (osi_op_opset(ctx) < input_opset) {
    const int64_t *a;
    int n = osi_attr_ints(ctx, "axes", &a);
    if (n < 0) return -2;
    if (n > OSI_MAX_RANK) return -1;
    memcpy(axes, a, (size_t)n * sizeof(int64_t));
    return n;
  }
  if (!osi_in_present(ctx, 1)) return -2;
  return osi_in_ints(ctx, 1, axes, OSI_MAX_RANK);
}

/* Squeeze(data, axes): removes the listed dims (each must be 1); without
 * axes removes every dim equal to 1, which needs every dim known. */
OsiStatus osi_op_squeeze(OsiOpCtx *ctx) {
  const OsiType *x = osi_in_ranked(ctx, 0);
  OsiExprStore *s = osi_op_exprs(ctx);
  int64_t axes[OSI_MAX_RANK];
  int na = read_axes(ctx, 13, axes);
  if (!x || na == -1) {
    osi_out_tensor(ctx, 0, osi_in_dtype(ctx, 0), x && na >= 0 ? x->rank - na : -1);
    return OSI_OK;
  }
  int drop[OSI_MAX_RANK] = {0};
  if (na == -2) {
    for (int i = 0; i < x->rank; i++) {
      int64_t c;
      if (!osi_expr_is_const(s, x->dims[i], &c)) {
        osi_out_tensor(ctx, 0, x->elem_type, -1);
        return OSI_OK;
      }
      drop[i] = c == 1;
    }
  } else {
    for (int k = 0; k < na; k++) {
      int a;
      if (!osi_norm_axis(axes[k], x->rank, &a))
        return osi_op_fail(ctx, OSI_ERR_INVALID_MODEL, "axis %lld is out of range for rank %d",
                           (long long)axes[k], x->rank);
      OsiStatus st = osi_op_require_eq(ctx, "Squeeze", x->dims[a], OSI_DIM(0, a), osi_expr_const(s, 1), OSI_WHAT("1"));
      if (st != OSI_OK) return st;
      drop[a] = 1;
    }
  }
  OsiExpr d[OSI_MAX_RANK];
  int r = 0;
  for (int i = 0; i < x->rank; i++)
    if (!drop[i]) d[r++] = x->dims[i];
  OsiType *y = osi_out_tensor(ctx, 0, x->elem_type, r);
  if (!y) return OSI_OK;
  if (r) memcpy(osi_type_dims_mut(y), d, (size_t)r * sizeof(OsiExpr));
  y->value = x->value;
  return OSI_OK;
}

/* Unsqueeze(data, axes): inserts 1s at the axes of the output rank. */
OsiStatus osi_op_unsqueeze(OsiOpCtx *ctx) {
  const OsiType *x = osi_in_ranked(ctx, 0);
  int64_t axes[OSI_MAX_RANK];
  int na = read_axes(ctx, 13, axes);
  if (na == -2) return osi_op_fail(ctx, OSI_ERR_INVALID_MODEL, "axes are required");
  if (!x || na < 0) {
    osi_out_tensor(ctx, 0, osi_in_dtype(ctx, 0), x && na >= 0 ? x->rank + na : -1);
    return OSI_OK;
  }
  int r = x->rank + na;
  if (r > OSI_MAX_RANK)
    return osi_op_fail(ctx, OSI_ERR_LIMIT_EXCEEDED, "rank %d is over the limit of %d", r, OSI_MAX_RANK);
  int ones[OSI_MAX_RANK] = {0};
  for (int k = 0; k < na; k++) {
    int a;
    if (!osi_norm_axis(axes[k], r, &a) || ones[a]++)
      return osi_op_fail(ctx, OSI_ERR_INVALID_MODEL,
                         "axes entry %d (%lld) is out of range [-%d, %d] for output rank %d or repeated", k,
                         (long long)axes[k], r, r - 1, r);
  }
  OsiType *y = osi_out_tensor(ctx, 0, x->elem_type, r);
  if (!y) return OSI_OK;
  OsiExpr *d = osi_type_dims_mut(y);
  for (int i = 0, j = 0; i < r; i++)
    d[i] = ones[i] ? osi_expr_const(osi_op_exprs(ctx), 1) : x->dims[j++];
  y->value = x->value;
  return OSI_OK;
}

/* Merges two dims that must be equal: a constant wins over a symbol. */
static OsiExpr merge_equal_dims(OsiExprStore *s, OsiExpr a, OsiExpr b) {
  int64_t c;
  if (a == OSI_EXPR_UNKNOWN) return b;
  if (b == OSI_EXPR_UNKNOWN || osi_expr_is_const(s, a, &c)) return a;
  return osi_expr_is_const(s, b, &c) ? b : a;
}

/* 1 when a dim of t is the constant 0. */
static int known_empty(OsiExprStore *s, const OsiType *t) {
  int64_t c;
  for (int i = 0; i < t->rank; i++)
    if (osi_expr_is_const(s, t->dims[i], &c) && c == 0) return 1;
  return 0;
}

/* Concat(inputs..., axis): dims equal except `axis`, which is summed. */
OsiStatus osi_op_concat(OsiOpCtx *ctx) {
  OsiExprStore *s = osi_op_exprs(ctx);
  int n = osi_in_count(ctx), rank = -1;
  int32_t dtype = 0;
  for (int i = 0; i < n; i++) {
    const OsiType *t = osi_in(ctx, i);
    if (t && !dtype) dtype = t->elem_type;
    if (t && t->rank >= 0) rank = t->rank;
  }
  for (int i = 0; i < n; i++) {
    const OsiType *t = osi_in_ranked(ctx, i);
    if (t && t->rank != rank)
      return osi_op_fail(ctx, OSI_ERR_SHAPE_MISMATCH, "input %d has rank %d, input ranks differ", i, t->rank);
  }
  if (rank < 0) {
    osi_out_tensor(ctx, 0, dtype, -1);
    return OSI_OK;
  }
  int axis;
  if (!osi_norm_axis(osi_attr_int(ctx, "axis", 0), rank, &axis))
    return osi_op_fail(ctx, OSI_ERR_INVALID_MODEL,
                       "attribute 'axis' (%lld) is out of range [-%d, %d] for input rank %d",
                       (long long)osi_attr_int(ctx, "axis", 0), rank, rank - 1, rank);
  if (rank == 0) return osi_op_fail(ctx, OSI_ERR_SHAPE_MISMATCH, "Concat cannot concatenate scalars (rank 0)");
  /* Every dim but the axis is the same in every input, except in an input
   * known to be empty: onnxruntime's kernel skips those (a model whose
   * shapes its load-time inference does not see then runs), and takes the
   * other dims from the first input that is not. */
  /* "Concat on axis %d", without snprintf on every Concat (costly in wasm):
   * 0 <= axis < OSI_MAX_RANK here. */
  char rule[64] = "Concat on axis ";
  size_t rule_len = strlen(rule);
  char digits[12];
  int nd = 0;
  for (int v = axis; nd == 0 || v > 0; v /= 10) digits[nd++] = (char)('0' + v % 10);
  while (nd > 0) rule[rule_len++] = digits[--nd];
  rule[rule_len] = 0;
  int nonempty = 0;
  for (int i = 0; i < n; i++) nonempty += osi_in_ranked(ctx, i) && !known_empty(s, osi_in_ranked(ctx, i));
  for (int i = 0, ref = -1; i < n; i++) {
    if (!osi_in_ranked(ctx, i) || known_empty(s, osi_in_ranked(ctx, i))) continue;
    if (ref < 0) ref = i;
    for (int k = 0; k < rank && ref != i; k++) {
      OsiStatus st = k == axis ? OSI_OK : osi_op_require_dims_eq(ctx, rule, i, k, ref, k);
      if (st != OSI_OK) return st;
    }
  }
  OsiType *y = osi_out_tensor(ctx, 0, dtype, rank);
  if (!y) return OSI_OK;
  OsiExpr *d = osi_type_dims_mut(y);
  OsiExpr sum = osi_expr_const(s, 0);
  int all_values = 1;
  for (int k = 0; k < rank; k++) d[k] = OSI_EXPR_UNKNOWN;
  for (int i = 0; i < n; i++) {
    const OsiType *t = osi_in_ranked(ctx, i);
    if (!t) {
      all_values = 0;
      sum = OSI_EXPR_UNKNOWN;
      continue;
    }
    sum = osi_expr_add(s, sum, t->dims[axis]);
    for (int k = 0; k < rank && !(nonempty && known_empty(s, t)); k++)
      if (k != axis) d[k] = merge_equal_dims(s, d[k], t->dims[k]);
    if (!t->value || !t->value->ints) all_values = 0;
  }
  d[axis] = sum;
  /* Values: the common case of 1-D pieces (or any rank with axis 0) is
   * plain concatenation of the row-major contents. */
  int64_t total = osi_static_count(ctx, y);
  if (all_values && total >= 0 && axis == 0) {
    OsiExpr *e;
    OsiValue *v = osi_value_ints(osi_op_arena(ctx), total, &e);
    int64_t at = 0;
    for (int i = 0; v && i < n; i++) {
      const OsiValue *iv = osi_in(ctx, i)->value;
      if (at + iv->count > total) return OSI_OK;
      memcpy(e + at, iv->ints, (size_t)iv->count * sizeof(OsiExpr));
      at += iv->count;
    }
    if (v && at == total) y->value = v;
  }
  return OSI_OK;
}

/* Expand(input, shape): bidirectional broadcast of input with `shape`. */
OsiStatus osi_op_expand(OsiOpCtx *ctx) {
  OsiExprStore *s = osi_op_exprs(ctx);
  const OsiType *x = osi_in(ctx, 0);
  const OsiExpr *shape;
  int n = osi_in_exprs(ctx, 1, &shape);
  int32_t dtype = x ? x->elem_type : 0;
  OsiType *target;
  if (n < 0) {
    /* Content unknown but length known: the target is n unknown dims, so
     * the rank is known and X's dims other than 1 survive. */
    const OsiType *st = osi_in_ranked(ctx, 1);
    int64_t len;
    if (!st || st->rank != 1 || !osi_expr_is_const(s, st->dims[0], &len) || len > OSI_MAX_RANK) {
      osi_out_tensor(ctx, 0, dtype, -1);
      return OSI_OK;
    }
    target = osi_type_tensor(osi_op_arena(ctx), dtype, (int)len);
    n = (int)len;
  } else if (n > OSI_MAX_RANK) {
    return osi_op_fail(ctx, OSI_ERR_LIMIT_EXCEEDED, "the shape input has %d entries; the rank limit is %d", n, OSI_MAX_RANK);
  } else {
    OsiStatus st = osi_require_sizes(ctx, "the shape input", n, shape);
    if (st != OSI_OK) return st;
    target = osi_type_tensor_dims(osi_op_arena(ctx), dtype, n, shape);
  }
  if (!target) return OSI_OK;
  const OsiType *in[2] = {x, target};
  OsiExpr dims[OSI_MAX_RANK];
  int rank;
  OsiStatus st = osi_broadcast(ctx, in, 2, &rank, dims);
  if (st != OSI_OK) return st;
  OsiType *y = osi_out_tensor(ctx, 0, dtype, rank);
  if (!y) return OSI_OK;
  if (rank > 0) memcpy(osi_type_dims_mut(y), dims, (size_t)rank * sizeof(OsiExpr));
  /* Broadcasting a known value against ones keeps its elements. */
  if (x && x->value && x->value->ints) {
    OsiType ones = *target;
    OsiExpr one_dims[OSI_MAX_RANK];
    for (int i = 0; i < n; i++) one_dims[i] = osi_expr_const(s, 1);
    ones.dims = one_dims;
    OsiExpr one = osi_expr_const(s, 1);
    OsiValue onev = {1, &one, NULL};
    ones.value = &onev;
    osi_value_binary(ctx, y, x, &ones, osi_expr_mul);
  }
  return OSI_OK;
}

/* ConstantOfShape(shape): dims from the shape input's content; dtype and
 * fill from the `value` attribute (default float 0). */
OsiStatus osi_op_constant_of_shape(OsiOpCtx *ctx) {
  const OsiTensor *fill = osi_attr_tensor(ctx, "value");
  int32_t dtype = fill ? fill->elem_type : OSI_DT_FLOAT;
  const OsiExpr *shape;
  int n = osi_in_exprs(ctx, 0, &shape);
  if (n < 0 || n > OSI_MAX_RANK) {
    const OsiType *st = osi_in_ranked(ctx, 0);
    int64_t len;
    int rank = st && st->rank == 1 && osi_expr_is_const(osi_op_exprs(ctx), st->dims[0], &len) &&
                       len <= OSI_MAX_RANK ? (int)len : -1;
    osi_out_tensor(ctx, 0, dtype, rank);
    return OSI_OK;
  }
  OsiStatus st = osi_require_sizes(ctx, "the shape input", n, shape);
  if (st != OSI_OK) return st;
  OsiType *y = osi_out_tensor(ctx, 0, dtype, n);
  if (!y) return OSI_OK;
  if (n) memcpy(osi_type_dims_mut(y), shape, (size_t)n * sizeof(OsiExpr));
  int64_t count = osi_static_count(ctx, y);
  if (count >= 0 && osi_dtype_is_integer(dtype)) {
    OsiExpr *e;
    OsiValue *v = osi_value_ints(osi_op_arena(ctx), count, &e);
    OsiExpr c = osi_expr_const(osi_op_exprs(ctx), fill && fill->ints && fill->count ? fill->ints[0] : 0);
    if (v) {
      for (int64_t i = 0; i < count; i++) e[i] = c;
      y->value = v;
    }
  }
  return OSI_OK;
}

/* Constant: one of value (tensor), sparse_value, value_float(s),
 * value_int(s), value_string(s). */
OsiStatus osi_op_constant(OsiOpCtx *ctx) {
  OsiExprStore *s = osi_op_exprs(ctx);
  OsiArena *a = osi_op_arena(ctx);
  const OsiTensor *t;
  const int64_t *ints;
  const double *floats;
  int n;
  /* Typed reads: an attribute of another type than its name says is the
   * node's error (reported by infer_node), not a value. */
  if ((t = osi_attr_tensor(ctx, "value")) || (t = osi_attr_tensor(ctx, "sparse_value"))) {
    osi_set_out(ctx, 0, osi_op_tensor_type(ctx, t));
  } else if (osi_attr_has(ctx, "value_int")) {
    OsiType *y = osi_out_tensor(ctx, 0, OSI_DT_INT64, 0);
    OsiExpr e = osi_expr_const(s, osi_attr_int(ctx, "value_int", 0));
    if (y) osi_set_value(ctx, y, 1, &e);
  } else if (osi_attr_has(ctx, "value_ints")) {
    OsiType *y = osi_out_tensor(ctx, 0, OSI_DT_INT64, 1);
    if (!y || (n = osi_attr_ints(ctx, "value_ints", &ints)) < 0) return OSI_OK;
    osi_type_dims_mut(y)[0] = osi_expr_const(s, n);
    OsiExpr *e;
    OsiValue *v = osi_value_ints(a, n, &e);
    if (v) {
      for (int i = 0; i < n; i++) e[i] = osi_expr_const(s, ints[i]);
      y->value = v;
    }
  } else if (osi_attr_has(ctx, "value_float")) {
    OsiType *y = osi_out_tensor(ctx, 0, OSI_DT_FLOAT, 0);
    OsiExpr *f;
    OsiValue *v = osi_value_floats(a, 1, &f);
    if (y && v) {
      f[0] = osi_expr_fconst(s, (double)(float)osi_attr_float(ctx, "value_float", 0.0));
      y->value = v;
    }
  } else if (osi_attr_has(ctx, "value_floats")) {
    OsiType *y = osi_out_tensor(ctx, 0, OSI_DT_FLOAT, 1);
    if (!y || (n = osi_attr_floats(ctx, "value_floats", &floats)) < 0) return OSI_OK;
    osi_type_dims_mut(y)[0] = osi_expr_const(s, n);
    OsiExpr *f;
    OsiValue *v = osi_value_floats(a, n, &f);
    if (v) {
      for (int i = 0; i < n; i++) f[i] = osi_expr_fconst(s, (double)(float)floats[i]);
      y->value = v;
    }
  } else if (osi_attr_has(ctx, "value_string")) {
    osi_out_tensor(ctx, 0, OSI_DT_STRING, 0);
  } else if (osi_attr_has(ctx, "value_strings")) {
    const OsiAttr *at = osi_attr(ctx, "value_strings");
    OsiType *y = osi_out_tensor(ctx, 0, OSI_DT_STRING, 1);
    if (y) osi_type_dims_mut(y)[0] = at->type == OSI_ATTR_STRINGS ? osi_expr_const(s, (int64_t)at->n) : osi_expr_const(s, 0);
  } else {
    return osi_op_fail(ctx, OSI_ERR_INVALID_MODEL, "Constant has no value attribute");
  }
  return OSI_OK;
}
