/*
 * Indexing operators that select parts of a tensor: Gather, Slice.
 * Both propagate known integer content, since exporters use them to pick
 * dims out of Shape outputs.
 */
#include <stdint.h>
#include <string.h>

#include "ops/helpers.h"

/* Gather(data, indices, axis): data.shape[:axis] + indices.shape +
 * data.shape[axis+1:]. Negative indices count from the back. */
OsiStatus osi_op_gather(OsiOpCtx *ctx) {
  OsiExprStore *s = osi_op_exprs(ctx);
  const OsiType *x = osi_in_ranked(ctx, 0), *idx = osi_in_ranked(ctx, 1);
  int32_t dtype = osi_in_dtype(ctx, 0);
  if (!x || !idx) {
    osi_out_tensor(ctx, 0, dtype, -1);
    return OSI_OK;
  }
  int axis;
  if (!osi_norm_axis(osi_attr_int(ctx, "axis", 0), x->rank, &axis))
    return osi_op_fail(ctx, OSI_ERR_INVALID_MODEL,
                       "attribute 'axis' (%lld) is out of range [-%d, %d] for input rank %d",
                       (long long)osi_attr_int(ctx, "axis", 0), x->rank, x->rank - 1, x->rank);
  int r = x->rank - 1 + idx->rank;
  if (r > OSI_MAX_RANK)
    return osi_op_fail(ctx, OSI_ERR_LIMIT_EXCEEDED, "output rank %d is over the limit of %d", r, OSI_MAX_RANK);
  OsiType *y = osi_out_tensor(ctx, 0, dtype, r);
  if (!y) return OSI_OK;
  OsiExpr *d = osi_type_dims_mut(y);
  int k = 0;
  for (int i = 0; i < axis; i++) d[k++] = x->dims[i];
  for (int i = 0; i < idx->rank; i++) d[k++] = idx->dims[i];
  for (int i = axis + 1; i < x->rank; i++) d[k++] = x->dims[i];

  /* Content: the shape-subgraph case of a 1-D (or scalar-indexed) data. */
  if (!x->value || !x->value->ints || x->rank != 1 || !idx->value || !idx->value->ints) return OSI_OK;
  int64_t len, n = osi_static_count(ctx, y);
  if (n < 0 || !osi_expr_is_const(s, x->dims[0], &len) || len != x->value->count) return OSI_OK;
  OsiExpr *e;
  OsiValue *v = osi_value_ints(osi_op_arena(ctx), n, &e);
  if (!v || n != idx->value->count) return OSI_OK;
  for (int64_t i = 0; i < n; i++) {
    int64_t j;
    if (!osi_expr_is_const(s, idx->value->ints[i], &j)) return OSI_OK;
    if (j < 0) j += len;
    if (j < 0 || j >= len)
      return osi_op_fail(ctx, OSI_ERR_INVALID_MODEL, "index %lld is out of range for size %lld",
                         (long long)j, (long long)len);
    e[i] = x->value->ints[j];
  }
  y->value = v;
  return OSI_OK;
}

/* Starts and ends at or past this are past either end of any dim a
 * tensor can have (exporters write +-INT64_MAX); an end of INT32_MAX also
 * means "to the end" (onnxruntime reads it so, as numpy's None). */
#define SLICE_END_BIG ((int64_t)1 << 62)

static int known_nonneg(OsiExprStore *s, OsiExpr e) {
  return e != OSI_EXPR_UNKNOWN && osi_expr_max(s, e, osi_expr_const(s, 0)) == e;
}

/* Clamped start/end position for a positive step: a negative constant
 * counts from the back; the result lies in [0, dim]. */
static OsiExpr clamp_pos(OsiExprStore *s, OsiExpr v, OsiExpr dim, int end) {
  int64_t c;
  OsiExpr zero = osi_expr_const(s, 0);
  if (osi_expr_is_const(s, v, &c)) {
    if (c >= SLICE_END_BIG || (end && c == INT32_MAX)) return dim;
    if (c <= -SLICE_END_BIG) return zero;
    if (c < 0) return osi_expr_max(s, osi_expr_add(s, dim, v), zero);
    return osi_expr_min(s, v, dim);
  }
  if (known_nonneg(s, v)) return osi_expr_min(s, v, dim);
  /* v = -w, w >= 0 (x[-seq:], T5's position_bias[:, :, -seq:]): from the
   * back, Max(dim - w, 0), while w >= 1; -0 is 0, the front (x[-0:] is all
   * of x). Min(w, 1) is that indicator. */
  OsiExpr w = osi_expr_neg(s, v);
  if (known_nonneg(s, w))
    return osi_expr_mul(s, osi_expr_min(s, w, osi_expr_const(s, 1)), osi_expr_max(s, osi_expr_sub(s, dim, w), zero));
  /* v = dim + c with c >= 0 is at least dim, so it clamps to dim whatever
   * its sign would otherwise be (exporters slice to Shape(x)[i]). */
  int64_t c2;
  if (osi_expr_is_const(s, osi_expr_sub(s, v, dim), &c2)) {
    if (c2 >= 0) return dim;
    /* v = dim - k (x[:x.shape[0]-1]): dim - k when dim >= k, else v counts
     * from the back to 2*dim - k, clamped at 0; for k <= 2 both cases are
     * Max(dim - k, 0) (dim < k <= 2 leaves 2*dim - k <= 0). */
    if (c2 >= -2) return osi_expr_max(s, v, zero);
  }
  return OSI_EXPR_UNKNOWN;
}

/* Length of dim[start:end:step] for every value of the symbols. */
static OsiExpr slice_len(OsiExprStore *s, OsiExpr dim, OsiExpr start, OsiExpr end, int64_t step) {
  OsiExpr zero = osi_expr_const(s, 0);
  if (dim == OSI_EXPR_UNKNOWN) return OSI_EXPR_UNKNOWN;
  if (step > 0) {
    OsiExpr b = clamp_pos(s, start, dim, 0), e = clamp_pos(s, end, dim, 1);
    return osi_expr_max(s, osi_expr_ceildiv(s, osi_expr_sub(s, e, b), osi_expr_const(s, step)), zero);
  }
  /* Negative step: start clamps to [0, dim-1], end to [-1, dim-1]. */
  int64_t sc, ec;
  if (!osi_expr_is_const(s, start, &sc) || !osi_expr_is_const(s, end, &ec)) return OSI_EXPR_UNKNOWN;
  OsiExpr last = osi_expr_sub(s, dim, osi_expr_const(s, 1)), minus1 = osi_expr_const(s, -1);
  /* A start before the front clamps to 0 (the spec; onnxruntime), which
   * for start = -1 is dim - 1 anyway; an empty dim stays empty. */
  OsiExpr front = sc >= -1 ? minus1 : osi_expr_min(s, last, osi_expr_const(s, 0));
  OsiExpr b = sc >= SLICE_END_BIG ? last
              : sc < 0 ? osi_expr_max(s, osi_expr_add(s, dim, start), front)
                       : osi_expr_min(s, start, last);
  OsiExpr e = ec <= -SLICE_END_BIG ? minus1
              : ec < 0 ? osi_expr_max(s, osi_expr_add(s, dim, end), minus1)
                       : osi_expr_min(s, end, last);
  /* -INT64_MIN does not fit; any |step| >= dim takes one element at most,
   * so INT64_MAX gives the same length. */
  int64_t mag = step == INT64_MIN ? INT64_MAX : -step;
  return osi_expr_max(s, osi_expr_ceildiv(s, osi_expr_sub(s, b, e), osi_expr_const(s, mag)), zero);
}

/* Entries of Slice input i (starts) by its shape: 1 for a scalar (which
 * onnxruntime reads as one entry), the length of a 1-D one; -1 unknown. */
static int param_count(OsiOpCtx *ctx, int i) {
  const OsiType *t = osi_op_opset(ctx) >= 10 ? osi_in_ranked(ctx, i) : NULL;
  int64_t n;
  if (!t || t->rank > 1) return -1;
  if (t->rank == 0) return 1;
  return osi_expr_is_const(osi_op_exprs(ctx), t->dims[0], &n) && n <= OSI_MAX_RANK ? (int)n : -1;
}

/* Reads a Slice parameter as expressions: attribute (opset < 10) or input. */
static int slice_param(OsiOpCtx *ctx, const char *attr, int input, OsiExpr *out) {
  OsiExprStore *s = osi_op_exprs(ctx);
  if (osi_op_opset(ctx) < 10) {
    const int64_t *a;
    int n = osi_attr_ints(ctx, attr, &a);
    if (n > OSI_MAX_RANK) return -1;
    for (int i = 0; i < n; i++) out[i] = osi_expr_const(s, a[i]);
    return n < 0 ? -2 : n;
  }
  if (!osi_in_present(ctx, input)) return -2;
  const OsiExpr *e;
  int n = osi_in_exprs(ctx, input, &e);
  if (n < 0 || n > OSI_MAX_RANK) return -1;
  memcpy(out, e, (size_t)n * sizeof(OsiExpr));
  return n;
}

/* Content of a slice with constant parameters: begin[a] and step[a] per
 * touched axis (0 and 1 elsewhere) as the model gives them. */
static void slice_value(OsiOpCtx *ctx, OsiType *y, const OsiType *x, const int *touched,
                        int64_t *begin, const int64_t *step) {
  OsiExprStore *s = osi_op_exprs(ctx);
  int perm[OSI_MAX_RANK];
  for (int a = 0; a < x->rank; a++) {
    perm[a] = a;
    int64_t len, b = begin[a];
    if (!touched[a]) continue;
    if (!osi_expr_is_const(s, x->dims[a], &len)) return;
    if (b < 0) b += len; /* b >= INT64_MIN, len >= 0: no overflow */
    if (step[a] > 0) b = b < 0 ? 0 : b > len ? len : b;
    else b = b < 0 ? (len > 0 ? 0 : -1) : b > len - 1 ? len - 1 : b;
    begin[a] = b;
  }
  osi_value_strided(ctx, y, x, perm, begin, step);
}

/* Slice(data, starts, ends, axes, steps): opset 10 moved the attributes
 * into inputs and added steps; ends past the dim clamp to it. */
OsiStatus osi_op_slice(OsiOpCtx *ctx) {
  OsiExprStore *s = osi_op_exprs(ctx);
  const OsiType *x = osi_in_ranked(ctx, 0);
  int32_t dtype = osi_in_dtype(ctx, 0);
  if (!x) {
    osi_out_tensor(ctx, 0, dtype, -1);
    return OSI_OK;
  }
  /* starts, ends, axes and steps have one length, known from their
   * shapes even when their content comes at run time. */
  static const char *const names[4] = {"starts", "ends", "axes", "steps"};
  int len0 = osi_op_opset(ctx) >= 10 ? osi_in_length(ctx, 1) : -1;
  for (int i = 2; i <= 4 && len0 >= 0; i++) {
    int len = osi_in_length(ctx, i);
    if (len >= 0 && len != len0)
      return osi_op_fail(ctx, OSI_ERR_SHAPE_MISMATCH, "Slice: input '%s' has %d entries where 'starts' has %d", names[i - 1], len,
                         len0);
  }
  OsiType *y = osi_out_tensor(ctx, 0, dtype, x->rank);
  if (!y) return OSI_OK;
  OsiExpr *d = osi_type_dims_mut(y);
  OsiExpr starts[OSI_MAX_RANK], ends[OSI_MAX_RANK], axes_e[OSI_MAX_RANK], steps_e[OSI_MAX_RANK];
  int ns = slice_param(ctx, "starts", 1, starts), ne = slice_param(ctx, "ends", 2, ends);
  int na = slice_param(ctx, "axes", 3, axes_e), nst = slice_param(ctx, "steps", 4, steps_e);
  if ((ns == -1 || ne == -1 || nst == -1) && na != -1) {
    /* Bounds known only at run time: the axes they slice lose their dim,
     * the others keep it. */
    int n = param_count(ctx, 1);
    if (n < 0 || (na >= 0 && na != n)) return OSI_OK;
    for (int i = 0; i < x->rank; i++) d[i] = x->dims[i];
    for (int k = 0; k < n; k++) {
      int64_t axis = k;
      int a;
      if ((na >= 0 && !osi_expr_is_const(s, axes_e[k], &axis)) || !osi_norm_axis(axis, x->rank, &a)) {
        for (int i = 0; i < x->rank; i++) d[i] = OSI_EXPR_UNKNOWN;
        return OSI_OK;
      }
      d[a] = OSI_EXPR_UNKNOWN;
    }
    return OSI_OK;
  }
  if (ns < 0 || ne < 0 || ns != ne || na == -1 || nst == -1 || (na >= 0 && na != ns) ||
      (nst >= 0 && nst != ns)) {
    /* Which axes change is unknown: every dim may. */
    return OSI_OK;
  }
  int touched[OSI_MAX_RANK] = {0};
  for (int i = 0; i < x->rank; i++) d[i] = x->dims[i];
  int64_t begin[OSI_MAX_RANK] = {0}, step_of[OSI_MAX_RANK];
  for (int i = 0; i < x->rank; i++) step_of[i] = 1;
  int all_const = 1;
  for (int k = 0; k < ns; k++) {
    int64_t axis = k, step = 1;
    if (na >= 0 && !osi_expr_is_const(s, axes_e[k], &axis)) {
      for (int i = 0; i < x->rank; i++) d[i] = OSI_EXPR_UNKNOWN;
      return OSI_OK;
    }
    int a;
    if (!osi_norm_axis(axis, x->rank, &a) || touched[a]++)
      return osi_op_fail(ctx, OSI_ERR_INVALID_MODEL,
                         "input 'axes' entry %d (%lld) is out of range [-%d, %d] or repeated", k,
                         (long long)axis, x->rank, x->rank - 1);
    if (nst >= 0 && !osi_expr_is_const(s, steps_e[k], &step)) {
      d[a] = OSI_EXPR_UNKNOWN;
      all_const = 0;
      continue;
    }
    if (step == 0)
      return osi_op_fail(ctx, OSI_ERR_INVALID_MODEL, "input 'steps' entry %d is 0; expected a nonzero step", k);
    d[a] = slice_len(s, x->dims[a], starts[k], ends[k], step);
    if (!osi_expr_is_const(s, starts[k], &begin[a])) all_const = 0;
    step_of[a] = step;
  }
  if (ns == 0) y->value = x->value;
  else if (all_const && x->value) slice_value(ctx, y, x, touched, begin, step_of);
  return OSI_OK;
}
