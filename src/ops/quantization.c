/*
 * Linear quantization: QuantizeLinear, DequantizeLinear,
 * DynamicQuantizeLinear, and the quantized QLinearConv / QLinearMatMul,
 * which follow the Conv and MatMul shape rules with the output element
 * type of their y_zero_point.
 */
#include <stdio.h>

#include "ops/helpers.h"
#include "ops/window.h"

/* 1 when t holds one element (a scalar, [1], [1, 1], ...): per tensor;
 * maybe: symbolic dims count as possibly 1. */
static int single(OsiExprStore *s, const OsiType *t, int maybe) {
  for (int i = 0; i < t->rank; i++) {
    int64_t c;
    if (osi_expr_is_const(s, t->dims[i], &c) ? c != 1 : !maybe) return 0;
  }
  return 1;
}

/* A zero point (input zi) has its scale's (input si) shape; a scalar and
 * a one-element tensor both mean per tensor. */
static OsiStatus check_zero_point(OsiOpCtx *ctx, int si, int zi) {
  OsiExprStore *s = osi_op_exprs(ctx);
  const OsiType *sc = osi_in_ranked(ctx, si), *zp = osi_in_ranked(ctx, zi);
  if (!sc || !zp || !osi_in_present(ctx, zi) || (single(s, sc, 0) && single(s, zp, 0))) return OSI_OK;
  char rule[64];
  snprintf(rule, sizeof rule, "%s zero point", osi_op_type(ctx));
  if (sc->rank == zp->rank) {
    for (int i = 0; i < sc->rank; i++) {
      OsiStatus st = osi_op_require_dims_eq(ctx, rule, zi, i, si, i);
      if (st != OSI_OK) return st;
    }
    return OSI_OK;
  }
  if (!single(s, sc, 1) || !single(s, zp, 1))
    return osi_op_fail(ctx, OSI_ERR_SHAPE_MISMATCH, "%s: the zero point has rank %d and the scale %d; their shapes must match",
                       osi_op_type(ctx), zp->rank, sc->rank);
  /* Ranks differ: both must be per tensor. */
  for (int k = 0; k < 2; k++) {
    const OsiType *t = k ? zp : sc;
    for (int i = 0; i < t->rank; i++) {
      OsiStatus st = osi_op_require_dim(ctx, rule, k ? zi : si, i, osi_expr_const(s, 1), OSI_WHAT("1 (per tensor)"));
      if (st != OSI_OK) return st;
    }
  }
  return OSI_OK;
}

/* The scale (input si) and zero point (input zi) of Quantize/
 * DequantizeLinear against x (input 0): the zero point has the scale's
 * shape; the scale is per tensor (a scalar or [1]), per axis ([x[axis]])
 * or, with block_size (opset 21), x's shape with ceil(x[axis] /
 * block_size) on the axis. */
static OsiStatus check_scale(OsiOpCtx *ctx, int si, int zi) {
  OsiExprStore *s = osi_op_exprs(ctx);
  const OsiType *x = osi_in_ranked(ctx, 0), *sc = osi_in_ranked(ctx, si), *zp = osi_in_ranked(ctx, zi);
  const char *op = osi_op_type(ctx);
  char rule[64];
  OsiStatus zst = check_zero_point(ctx, si, zi);
  if (zst != OSI_OK) return zst;
  if (!sc && zp && osi_in_present(ctx, zi)) sc = zp, si = zi;
  if (!sc || !x) return OSI_OK;
  snprintf(rule, sizeof rule, "%s scale", op);
  int64_t block = osi_op_opset(ctx) >= 21 ? osi_attr_int(ctx, "block_size", 0) : 0, c;
  int axis = 1;
  /* axis is ignored for a per-tensor scale: torch exports a [1] scale of a
   * 1-D x (a quantized bias) with the default axis 1, which the runtime
   * accepts. */
  if (osi_op_opset(ctx) >= 13 && sc->rank == 1 && !block && single(s, sc, 1)) return OSI_OK;
  if (osi_op_opset(ctx) >= 13 && (sc->rank > 0 || block > 0) &&
      !osi_norm_axis(osi_attr_int(ctx, "axis", 1), x->rank, &axis))
    return osi_op_fail(ctx, OSI_ERR_INVALID_MODEL, "%s: attribute 'axis' is out of range for rank %d", op, x->rank);
  if (block < 0) return osi_op_fail(ctx, OSI_ERR_INVALID_MODEL, "%s: block_size is negative", op);
  if (block > 0) {
    if (sc->rank != x->rank)
      return osi_op_fail(ctx, OSI_ERR_SHAPE_MISMATCH, "%s: a blocked scale has x's rank %d, not %d", op, x->rank, sc->rank);
    for (int i = 0; i < x->rank; i++) {
      OsiExpr want = i == axis ? osi_expr_ceildiv(s, x->dims[i], osi_expr_const(s, block)) : x->dims[i];
      OsiStatus st = osi_op_require_dim(ctx, rule, si, i, want,
                                        OSI_WHAT(i == axis ? "x's dim on the axis divided by block_size, rounded up" : "x's dim"));
      if (st != OSI_OK) return st;
    }
    return OSI_OK;
  }
  if (sc->rank == 0) return OSI_OK;
  if (sc->rank > 1 || osi_op_opset(ctx) < 13)
    return osi_op_fail(ctx, OSI_ERR_SHAPE_MISMATCH, "%s: the scale has rank %d; expected a scalar%s", op, sc->rank,
                       osi_op_opset(ctx) < 13 ? "" : " or a 1-D per-axis scale");
  /* A symbolic length may be 1 (per tensor). */
  if (!osi_expr_is_const(s, sc->dims[0], &c) || c == 1) return OSI_OK;
  return osi_op_require_dim(ctx, rule, si, 0, x->dims[axis], OSI_WHAT("x's dim on the axis"));
}

/* What onnxruntime's QLinearMatMul, MatMulInteger and QLinearConv kernels
 * take for a per-tensor parameter (input i): a scalar or a 1-D tensor of
 * one element; [1, 1] and per-row forms are refused, whatever the spec
 * allows. */
static OsiStatus check_per_tensor(OsiOpCtx *ctx, int i, const char *what) {
  const OsiType *p = osi_in_ranked(ctx, i);
  if (!p || !osi_in_present(ctx, i) || p->rank == 0) return OSI_OK;
  char rule[96];
  snprintf(rule, sizeof rule, "%s %s", osi_op_type(ctx), what);
  if (p->rank > 1)
    return osi_op_fail(ctx, OSI_ERR_SHAPE_MISMATCH, "%s has rank %d; onnxruntime takes a scalar or a 1-element 1-D tensor",
                       rule, p->rank);
  return osi_op_require_dim(ctx, rule, i, 0, osi_expr_const(osi_op_exprs(ctx), 1), OSI_WHAT("1 (per tensor)"));
}

/* A parameter of B (input i) of QLinearMatMul / MatMulInteger, as
 * onnxruntime takes it: per tensor (a scalar or [1]), [N] for a 2-D B
 * [K, N], or B's shape with 1 in place of K (per column of each matrix). */
static OsiStatus check_b_qparam(OsiOpCtx *ctx, int i, int b_in, const char *what) {
  OsiExprStore *s = osi_op_exprs(ctx);
  const OsiType *p = osi_in_ranked(ctx, i), *b = osi_in_ranked(ctx, b_in);
  int64_t c;
  if (!p || !osi_in_present(ctx, i) || p->rank == 0) return OSI_OK;
  char rule[96];
  snprintf(rule, sizeof rule, "%s %s", osi_op_type(ctx), what);
  int one = osi_expr_is_const(s, p->dims[0], &c) && c == 1;
  if (p->rank == 1 && (one || !b)) return OSI_OK;
  if (p->rank == 1 && b->rank == 2)
    return osi_expr_is_const(s, p->dims[0], &c) ? osi_op_require_dim(ctx, rule, i, 0, b->dims[1], OSI_WHAT("dim 1 of B (per column)"))
                                                : OSI_OK; /* a symbolic length may be 1 */
  if (p->rank == 1)
    return osi_op_require_dim(ctx, rule, i, 0, osi_expr_const(s, 1), OSI_WHAT("1 (per tensor; per column needs a 2-D B)"));
  if (!b) return OSI_OK;
  if (p->rank != b->rank)
    return osi_op_fail(ctx, OSI_ERR_SHAPE_MISMATCH, "%s has rank %d; beyond per tensor it is [N] or B's shape (rank %d) with 1 for K",
                       rule, p->rank, b->rank);
  for (int k = 0; k < p->rank; k++) {
    OsiStatus st = k == p->rank - 2 ? osi_op_require_dim(ctx, rule, i, k, osi_expr_const(s, 1), OSI_WHAT("1 (in place of K)"))
                                    : osi_op_require_dims_eq(ctx, rule, i, k, b_in, k);
    if (st != OSI_OK) return st;
  }
  return OSI_OK;
}

/* QLinearConv's w_scale / w_zero_point (input i): a scalar or 1-D of 1 or
 * M (W's output channels) entries. */
static OsiStatus check_w_qparam(OsiOpCtx *ctx, int i, OsiExpr m, const char *what) {
  OsiExprStore *s = osi_op_exprs(ctx);
  const OsiType *p = osi_in_ranked(ctx, i);
  int64_t c;
  if (!p || !osi_in_present(ctx, i) || p->rank == 0) return OSI_OK;
  char rule[96];
  snprintf(rule, sizeof rule, "%s %s", osi_op_type(ctx), what);
  if (p->rank > 1)
    return osi_op_fail(ctx, OSI_ERR_SHAPE_MISMATCH, "%s has rank %d; expected a scalar or 1-D (per output channel)", rule, p->rank);
  if (!osi_expr_is_const(s, p->dims[0], &c) || c == 1) return OSI_OK; /* a symbolic length may be 1 */
  return osi_op_require_dim(ctx, rule, i, 0, m, OSI_WHAT("W's output channels"));
}

/*
 * QuantizeLinear(x, y_scale[, y_zero_point]): y has x's shape. Its type is
 * output_dtype (opset 21+) when set, else y_zero_point's type, else uint8.
 * Per-axis and blocked scales do not change the output shape.
 */
OsiStatus osi_op_quantize_linear(OsiOpCtx *ctx) {
  const OsiType *x = osi_in(ctx, 0);
  int32_t dtype = OSI_DT_UINT8;
  int32_t attr = osi_op_opset(ctx) >= 21 ? (int32_t)osi_attr_int(ctx, "output_dtype", 0) : 0;
  if (osi_in_present(ctx, 2)) {
    int32_t zp = osi_in_dtype(ctx, 2);
    if (attr && zp && attr != zp)
      return osi_op_fail(ctx, OSI_ERR_INVALID_MODEL, "output_dtype %d differs from y_zero_point type %d",
                         (int)attr, (int)zp);
    dtype = zp;
  }
  if (attr) dtype = attr;
  OsiStatus st = check_scale(ctx, 1, 2);
  if (st != OSI_OK) return st;
  if (!x) {
    osi_out_tensor(ctx, 0, dtype, -1);
    return OSI_OK;
  }
  osi_out_like(ctx, 0, dtype, x);
  return OSI_OK;
}

/*
 * DequantizeLinear(x, x_scale[, x_zero_point]): y has x's shape. Before
 * opset 19 y is float; from 19 it has x_scale's type; from 23 the
 * output_dtype attribute, when set, overrides that.
 */
OsiStatus osi_op_dequantize_linear(OsiOpCtx *ctx) {
  const OsiType *x = osi_in(ctx, 0);
  int64_t opset = osi_op_opset(ctx);
  int32_t dtype = opset < 19 ? OSI_DT_FLOAT : osi_in_dtype(ctx, 1);
  if (opset >= 23 && osi_attr_int(ctx, "output_dtype", 0) != 0)
    dtype = (int32_t)osi_attr_int(ctx, "output_dtype", 0);
  OsiStatus st = check_scale(ctx, 1, 2);
  if (st != OSI_OK) return st;
  if (!x) {
    osi_out_tensor(ctx, 0, dtype, -1);
    return OSI_OK;
  }
  osi_out_like(ctx, 0, dtype, x);
  return OSI_OK;
}

/* DynamicQuantizeLinear(x) (opset 11): y uint8 like x, y_scale a float
 * scalar, y_zero_point a uint8 scalar. */
OsiStatus osi_op_dynamic_quantize_linear(OsiOpCtx *ctx) {
  const OsiType *x = osi_in(ctx, 0);
  if (x) osi_out_like(ctx, 0, OSI_DT_UINT8, x);
  else osi_out_tensor(ctx, 0, OSI_DT_UINT8, -1);
  osi_out_tensor(ctx, 1, OSI_DT_FLOAT, 0);
  osi_out_tensor(ctx, 2, OSI_DT_UINT8, 0);
  return OSI_OK;
}

/* QLinearConv(x, x_scale, x_zp, w, w_scale, w_zp, y_scale, y_zp[, B])
 * (opset 10): Conv's shape rule on x and w; y has y_zero_point's type. */
OsiStatus osi_op_qlinear_conv(OsiOpCtx *ctx) {
  const OsiType *w = osi_in_ranked(ctx, 3);
  OsiExpr m = w && w->rank > 0 ? w->dims[0] : OSI_EXPR_UNKNOWN;
  static const int per_tensor[4] = {1, 2, 6, 7};
  static const char *const names[4] = {"x_scale", "x_zero_point", "y_scale", "y_zero_point"};
  OsiStatus st = check_w_qparam(ctx, 4, m, "w_scale");
  if (st == OSI_OK) st = check_w_qparam(ctx, 5, m, "w_zero_point");
  for (int j = 0; j < 4 && st == OSI_OK; j++) st = check_per_tensor(ctx, per_tensor[j], names[j]);
  if (st != OSI_OK) return st;
  return osi_conv_out(ctx, 0, 3, 8, osi_in_dtype(ctx, 7));
}

/* QLinearMatMul(a, a_scale, a_zp, b, b_scale, b_zp, y_scale, y_zp)
 * (opset 10): numpy matmul of a and b; y has y_zero_point's type. */
OsiStatus osi_op_qlinear_matmul(OsiOpCtx *ctx) {
  /* Each parameter on its own: onnxruntime does not tie a zero point's
   * shape to its scale's. */
  static const int per_tensor[4] = {1, 2, 6, 7};
  static const char *const names[4] = {"a_scale", "a_zero_point", "y_scale", "y_zero_point"};
  OsiStatus st = check_b_qparam(ctx, 4, 3, "b_scale");
  if (st == OSI_OK) st = check_b_qparam(ctx, 5, 3, "b_zero_point");
  for (int j = 0; j < 4 && st == OSI_OK; j++) st = check_per_tensor(ctx, per_tensor[j], names[j]);
  if (st != OSI_OK) return st;
  return osi_matmul_out(ctx, 0, 3, osi_in_dtype(ctx, 7));
}

/* MatMulInteger(A, B, a_zero_point, b_zero_point) (opset 10): numpy
 * matmul, int32; a_zero_point per tensor (onnxruntime refuses the spec's
 * per-row form), b_zero_point per tensor or per column of B. */
OsiStatus osi_op_matmul_integer(OsiOpCtx *ctx) {
  OsiStatus st = check_per_tensor(ctx, 2, "a_zero_point");
  if (st == OSI_OK) st = check_b_qparam(ctx, 3, 1, "b_zero_point");
  if (st != OSI_OK) return st;
  return osi_matmul_out(ctx, 0, 1, OSI_DT_INT32);
}
