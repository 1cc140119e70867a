/*
 * Neural-network operators with spatial arithmetic: MatMul, Gemm, Conv,
 * ConvTranspose, MaxPool/AveragePool/LpPool, Global*Pool,
 * BatchNormalization. Output sizes are formulas over the input dims
 * (floor((H + pads - dilated kernel) / stride) + 1), never fresh symbols.
 */
#include <string.h>

#include "ops/helpers.h"

/* MatMul(A, B): numpy matmul (osi_matmul_out); MatMulInteger gives int32. */
OsiStatus osi_op_matmul(OsiOpCtx *ctx) {
  int32_t dtype = osi_in_dtype(ctx, 0);
  if (!strcmp(osi_op_type(ctx), "MatMulInteger")) dtype = OSI_DT_INT32;
  return osi_matmul_out(ctx, 0, 1, dtype);
}

/* Gemm(A, B, C): [M, N] with A [M, K] (or [K, M] when transA), B [K, N]
 * (or [N, K] when transB). Opset < 7 also accepted 1-D... we need 2-D. */
OsiStatus osi_op_gemm(OsiOpCtx *ctx) {
  const OsiType *a = osi_in_ranked(ctx, 0), *b = osi_in_ranked(ctx, 1);
  OsiType *y = osi_out_tensor(ctx, 0, osi_in_dtype(ctx, 0), 2);
  if (!y || !a || !b) return OSI_OK;
  if (a->rank != 2 || b->rank != 2)
    return osi_op_fail(ctx, OSI_ERR_SHAPE_MISMATCH, "Gemm needs 2-D A and B (got ranks %d, %d)",
                       a->rank, b->rank);
  int ta = osi_attr_int(ctx, "transA", 0) != 0, tb = osi_attr_int(ctx, "transB", 0) != 0;
  osi_type_dims_mut(y)[0] = a->dims[ta ? 1 : 0];
  osi_type_dims_mut(y)[1] = b->dims[tb ? 0 : 1];
  return OSI_OK;
}

/* Conv(X, W, B): [N, M, O...] (osi_conv_out); ConvInteger gives int32. */
OsiStatus osi_op_conv(OsiOpCtx *ctx) {
  int32_t dtype = osi_in_dtype(ctx, 0);
  if (!strcmp(osi_op_type(ctx), "ConvInteger")) dtype = OSI_DT_INT32;
  return osi_conv_out(ctx, 0, 1, dtype);
}

/* MaxPool/AveragePool/LpPool(X): [N, C, O...]; MaxPool output 1 is int64 indices. */
OsiStatus osi_op_pool(OsiOpCtx *ctx) {
  OsiStatus st = osi_conv_out(ctx, 0, -1, osi_in_dtype(ctx, 0));
  if (st == OSI_OK && osi_out_count(ctx) > 1 && osi_out(ctx, 0))
    osi_out_like(ctx, 1, OSI_DT_INT64, osi_out(ctx, 0));
  return st;
}

/* ConvTranspose(X, W, B): [N, W[1] * group, O...] with
 * O = stride * (in - 1) + output_padding + dilated kernel - pads, or the
 * output_shape attribute when given. */
OsiStatus osi_op_conv_transpose(OsiOpCtx *ctx) {
  OsiExprStore *s = osi_op_exprs(ctx);
  const OsiType *x = osi_in_ranked(ctx, 0), *w = osi_in_ranked(ctx, 1);
  int32_t dtype = osi_in_dtype(ctx, 0);
  if (!x) {
    osi_out_tensor(ctx, 0, dtype, w ? w->rank : -1);
    return OSI_OK;
  }
  if (x->rank < 2)
    return osi_op_fail(ctx, OSI_ERR_SHAPE_MISMATCH, "input 'X' has rank %d; expected at least 2 ([N, C, ...])", x->rank);
  int n = x->rank - 2;
  OsiSpatial sp;
  OsiStatus st = osi_read_spatial(ctx, n, w, &sp);
  if (st != OSI_OK) return st;
  OsiType *y = osi_out_tensor(ctx, 0, dtype, x->rank);
  if (!y) return OSI_OK;
  OsiExpr *d = osi_type_dims_mut(y);
  d[0] = x->dims[0];
  d[1] = w ? osi_expr_mul(s, w->dims[1], osi_expr_const(s, osi_attr_int(ctx, "group", 1)))
           : OSI_EXPR_UNKNOWN;
  const int64_t *outpad, *outshape;
  int nop = osi_attr_ints(ctx, "output_padding", &outpad);
  int nos = osi_attr_ints(ctx, "output_shape", &outshape);
  int same = !strcmp(sp.auto_pad, "SAME_UPPER") || !strcmp(sp.auto_pad, "SAME_LOWER");
  for (int i = 0; i < n; i++) {
    if (nos == n) {
      d[i + 2] = osi_expr_const(s, outshape[i]);
    } else if (nos == n + 2) {
      d[i + 2] = osi_expr_const(s, outshape[i + 2]);
    } else if (same) {
      d[i + 2] = osi_expr_mul(s, x->dims[i + 2], osi_expr_const(s, sp.stride[i]));
    } else {
      /* The kernel may be W's symbolic dim: the formula is linear in it. */
      int64_t extra = (nop == n ? outpad[i] : 0) - sp.pad_begin[i] - sp.pad_end[i];
      OsiExpr grown = osi_expr_mul(s, osi_expr_sub(s, x->dims[i + 2], osi_expr_const(s, 1)),
                                   osi_expr_const(s, sp.stride[i]));
      OsiExpr extent = osi_window_extent(s, &sp, i);
      d[i + 2] = extent == OSI_EXPR_UNKNOWN
                     ? OSI_EXPR_UNKNOWN
                     : osi_expr_add(s, osi_expr_add(s, grown, extent), osi_expr_const(s, extra));
    }
  }
  return OSI_OK;
}

/* GlobalAveragePool/GlobalMaxPool/GlobalLpPool: [N, C, 1, ..., 1]. */
OsiStatus osi_op_global_pool(OsiOpCtx *ctx) {
  const OsiType *x = osi_in_ranked(ctx, 0);
  if (!x) {
    osi_out_tensor(ctx, 0, osi_in_dtype(ctx, 0), -1);
    return OSI_OK;
  }
  if (x->rank < 2)
    return osi_op_fail(ctx, OSI_ERR_SHAPE_MISMATCH, "input 'X' has rank %d; expected at least 2 ([N, C, ...])", x->rank);
  OsiType *y = osi_out_like(ctx, 0, x->elem_type, x);
  if (!y) return OSI_OK;
  for (int i = 2; i < x->rank; i++) osi_type_dims_mut(y)[i] = osi_expr_const(osi_op_exprs(ctx), 1);
  return OSI_OK;
}

/* BatchNormalization: Y like X; the optional statistics outputs (training
 * mode, or the opset < 9 outputs) take the shape of the mean input [C]. */
OsiStatus osi_op_batch_norm(OsiOpCtx *ctx) {
  osi_out_same_as_input(ctx, 0, 0);
  for (int o = 1; o < osi_out_count(ctx); o++) {
    const OsiType *stat = osi_in(ctx, 3) ? osi_in(ctx, 3) : osi_in(ctx, 1);
    if (stat) osi_out_like(ctx, o, stat->elem_type, stat);
  }
  return OSI_OK;
}
