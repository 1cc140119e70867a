/*
 * Neural-network operators with spatial arithmetic: MatMul, Gemm, Conv,
 * ConvTranspose, MaxPool/AveragePool/LpPool, Global*Pool,
 * BatchNormalization. Output sizes are formulas over the input dims
 * (floor((H + pads - dilated kernel) / stride) + 1), never fresh symbols.
 */
#include <stdio.h>
#include <string.h>

#include "ops/helpers.h"
#include "ops/window.h"

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
  OsiStatus st = osi_op_require_dims_eq(ctx, "Gemm inner dims", 1, tb ? 1 : 0, 0, ta ? 0 : 1);
  if (st != OSI_OK) return st;
  OsiExpr *d = osi_type_dims_mut(y);
  d[0] = a->dims[ta ? 1 : 0];
  d[1] = b->dims[tb ? 0 : 1];
  /* C broadcasts one way to [M, N] (from opset 7; before, only with the
   * attribute broadcast=1, else C is [M, N] itself). */
  if (osi_in_present(ctx, 2)) {
    int legacy = !strcmp(osi_op_type(ctx), "Gemm") && osi_op_opset(ctx) < 7; /* not FusedGemm */
    if (!legacy || osi_attr_int(ctx, "broadcast", 0))
      return osi_require_broadcast_to(ctx, "Gemm bias", 2, 2, d, "the output [M, N]");
    const OsiType *c = osi_in_ranked(ctx, 2);
    if (c && c->rank != 2)
      return osi_op_fail(ctx, OSI_ERR_SHAPE_MISMATCH, "Gemm bias: input 'C' has rank %d; expected 2 ([M, N]) without broadcast", c->rank);
    for (int k = 0; c && k < 2; k++) {
      st = osi_op_require_eq(ctx, "Gemm bias", c->dims[k], OSI_DIM(2, k), d[k], OSI_WHAT(k ? "N" : "M"));
      if (st != OSI_OK) return st;
    }
  }
  return OSI_OK;
}

/* Conv(X, W, B): [N, M, O...] (osi_conv_out); ConvInteger gives int32. */
OsiStatus osi_op_conv(OsiOpCtx *ctx) {
  int32_t dtype = osi_in_dtype(ctx, 0);
  int integer = !strcmp(osi_op_type(ctx), "ConvInteger");
  return osi_conv_out(ctx, 0, 1, integer ? -1 : 2, integer ? OSI_DT_INT32 : dtype);
}

/* MaxPool/AveragePool/LpPool(X): [N, C, O...]; MaxPool output 1 is int64 indices. */
OsiStatus osi_op_pool(OsiOpCtx *ctx) {
  OsiStatus st = osi_conv_out(ctx, 0, -1, -1, osi_in_dtype(ctx, 0));
  if (st == OSI_OK && osi_out_count(ctx) > 1 && osi_out(ctx, 0))
    osi_out_like(ctx, 1, OSI_DT_INT64, osi_out(ctx, 0));
  return st;
}

/* X, W and B of a ConvTranspose against each other (onnxruntime's
 * checks): one rank, X's channels = W[0] and a multiple of group,
 * kernel_shape = W's spatial dims, B = [W[1] * group]. */
static OsiStatus check_conv_transpose_inputs(OsiOpCtx *ctx, const OsiType *x, const OsiType *w, int64_t group) {
  OsiExprStore *s = osi_op_exprs(ctx);
  if (!w) return OSI_OK;
  char xl[96], wl[96];
  if (w->rank != x->rank)
    return osi_op_fail(ctx, OSI_ERR_SHAPE_MISMATCH, "%s has rank %d where %s has rank %d; they must be equal",
                       osi_op_input_label(ctx, 1, wl, sizeof wl), w->rank,
                       osi_op_input_label(ctx, 0, xl, sizeof xl), x->rank);
  OsiStatus st = osi_op_require_dims_eq(ctx, "ConvTranspose channels", 1, 0, 0, 1);
  int64_t c;
  if (st == OSI_OK && osi_expr_is_const(s, x->dims[1], &c) && c % group != 0)
    return osi_op_fail(ctx, OSI_ERR_SHAPE_MISMATCH, "ConvTranspose: the %lld input channels (dim 1 of %s) are not a multiple of group %lld",
                       (long long)c, osi_op_input_label(ctx, 0, xl, sizeof xl), (long long)group);
  const int64_t *k;
  int nk = osi_attr_ints(ctx, "kernel_shape", &k);
  for (int i = 0; st == OSI_OK && i < nk && nk == w->rank - 2; i++)
    st = osi_op_require_dim(ctx, "ConvTranspose kernel", 1, i + 2, osi_expr_const(s, k[i]),
                            OSI_WHAT("its entry in attribute 'kernel_shape'"));
  if (st == OSI_OK && osi_in_present(ctx, 2)) {
    st = osi_op_require_rank(ctx, 2, 1, 1);
    if (st == OSI_OK)
      st = osi_op_require_eq(ctx, "ConvTranspose bias", osi_in_ranked(ctx, 2) ? osi_in_ranked(ctx, 2)->dims[0] : OSI_EXPR_UNKNOWN,
                             OSI_DIM(2, 0), osi_expr_mul(s, w->dims[1], osi_expr_const(s, group)),
                             OSI_WHAT("the output channels (dim 1 of W times group)"));
  }
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
  int64_t group = osi_attr_int(ctx, "group", 1);
  if (group < 1) return osi_op_fail(ctx, OSI_ERR_INVALID_MODEL, "attribute 'group' is %lld; expected at least 1", (long long)group);
  OsiStatus st = check_conv_transpose_inputs(ctx, x, w, group);
  OsiSpatial sp;
  if (st == OSI_OK) st = osi_read_spatial(ctx, n, w, &sp);
  if (st != OSI_OK) return st;
  const int64_t *outpad, *outshape;
  int nop = osi_attr_ints(ctx, "output_padding", &outpad);
  int nos = osi_attr_ints(ctx, "output_shape", &outshape);
  if (nop >= 0 && nop != n)
    return osi_op_fail(ctx, OSI_ERR_INVALID_MODEL, "attribute 'output_padding' has %d entries; expected %d", nop, n);
  if (nos >= 0 && nos != n && nos != n + 2)
    return osi_op_fail(ctx, OSI_ERR_INVALID_MODEL, "attribute 'output_shape' has %d entries; expected %d", nos, n);
  OsiType *y = osi_out_tensor(ctx, 0, dtype, x->rank);
  if (!y) return OSI_OK;
  OsiExpr *d = osi_type_dims_mut(y);
  d[0] = x->dims[0];
  d[1] = w ? osi_expr_mul(s, w->dims[1], osi_expr_const(s, group)) : OSI_EXPR_UNKNOWN;
  int same = sp.same;
  for (int i = 0; i < n; i++) {
    int64_t o;
    if (nos >= 0) {
      o = outshape[nos == n ? i : i + 2];
      if (o < 1)
        return osi_op_fail(ctx, OSI_ERR_INVALID_MODEL, "attribute 'output_shape' has %lld for spatial dim %d; sizes are at least 1",
                           (long long)o, i);
      d[i + 2] = osi_expr_const(s, o);
      int64_t c;
      if (osi_expr_is_const(s, x->dims[i + 2], &c) && c == 0)
        return osi_op_fail(ctx, OSI_ERR_SHAPE_MISMATCH, "ConvTranspose: spatial dim %d of X is 0; with output_shape onnxruntime needs it positive",
                           i + 2);
      /* onnxruntime refuses an input shorter than (output_shape - extent)
       * / stride + 1 (output_padding aside), the least whose windows reach
       * the requested end. */
      if (sp.extent[i] > 0 && o - sp.extent[i] >= sp.stride[i]) {
        char rule[96];
        snprintf(rule, sizeof rule, "ConvTranspose output_shape along spatial dim %d", i);
        st = osi_op_require_le(ctx, rule, osi_expr_const(s, (o - sp.extent[i]) / sp.stride[i] + 1),
                               OSI_WHAT("the least input the output_shape entry allows"), x->dims[i + 2], OSI_DIM(0, i + 2));
        if (st != OSI_OK) return st;
      }
    } else if (same) {
      /* in * stride, from pads of extent + output_padding - stride in all;
       * onnxruntime takes no pads where that is negative (a kernel shorter
       * than the stride): stride * (in - 1) + extent + output_padding. */
      int64_t op = nop == n ? outpad[i] : 0;
      if (sp.extent[i] < 0 || sp.extent[i] >= sp.stride[i] - op)
        d[i + 2] = osi_expr_mul(s, x->dims[i + 2], osi_expr_const(s, sp.stride[i]));
      else if (op == 0)
        d[i + 2] = osi_transpose_window_dim(s, x->dims[i + 2], sp.stride[i], osi_expr_const(s, sp.extent[i]), 0,
                                            osi_expr_const(s, 0));
      else
        d[i + 2] = OSI_EXPR_UNKNOWN; /* (not measured) */
    } else {
      /* The kernel may be W's symbolic dim: the formula is linear in it. */
      int64_t op = nop == n ? outpad[i] : 0;
      d[i + 2] = osi_transpose_window_dim(s, x->dims[i + 2], sp.stride[i], osi_window_extent(s, &sp, i),
                                          op, osi_expr_const(s, sp.pads[i]));
      if (sp.extent[i] > 0) {
        __int128 extra = (__int128)op + sp.extent[i] - sp.pads[i];
        st = extra > INT64_MAX || extra < INT64_MIN
                 ? osi_op_fail(ctx, OSI_ERR_INVALID_MODEL, "ConvTranspose: output_padding, kernel and pads of spatial dim %d add up beyond int64", i)
                 : osi_transpose_window_require(ctx, 0, i + 2, sp.stride[i], (int64_t)extra, 1);
        if (st != OSI_OK) return st;
      }
    }
  }
  return OSI_OK;
}

/* PRelu(X, slope) (opset 7+): the spec has slope broadcast one way to X,
 * Y like X; onnxruntime's kernel broadcasts both ways (slope [3,4,5] over
 * X [1,4,5] runs and gives [3,4,5]), so Y is the broadcast of the two,
 * which is X's shape whenever the spec's rule holds. Before opset 7 the
 * slope was X's shape or a per-channel [C]. */
OsiStatus osi_op_prelu(OsiOpCtx *ctx) {
  const OsiType *x = osi_in_ranked(ctx, 0), *slope = osi_in_ranked(ctx, 1);
  if (!x || !slope || osi_op_opset(ctx) < 7) return osi_out_same_as_input(ctx, 0, 0);
  const OsiType *both[2] = {x, slope};
  OsiExpr dims[OSI_MAX_RANK];
  int rank;
  OsiStatus st = osi_broadcast(ctx, both, 2, &rank, dims);
  if (st != OSI_OK) return st;
  OsiType *y = osi_out_tensor(ctx, 0, x->elem_type, rank);
  if (y && rank > 0) memcpy(osi_type_dims_mut(y), dims, (size_t)rank * sizeof(OsiExpr));
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
  OsiStatus st = osi_refuse_empty_pool_input(ctx, x);
  if (st != OSI_OK) return st;
  OsiType *y = osi_out_like(ctx, 0, x->elem_type, x);
  if (!y) return OSI_OK;
  for (int i = 2; i < x->rank; i++) osi_type_dims_mut(y)[i] = osi_expr_const(osi_op_exprs(ctx), 1);
  return OSI_OK;
}

/* BatchNormalization: Y like X; the optional statistics outputs (training
 * mode, or the opset < 9 outputs) take the shape of the mean input [C]. */
OsiStatus osi_op_batch_norm(OsiOpCtx *ctx) {
  /* scale, B, mean, var are [C] (before opset 9, unless spatial=0). */
  const OsiType *x = osi_in_ranked(ctx, 0);
  OsiStatus st = osi_op_require_rank(ctx, 0, 2, -1);
  for (int i = 1; st == OSI_OK && x && i < 5 && (osi_op_opset(ctx) >= 9 || osi_attr_int(ctx, "spatial", 1)); i++) {
    if (!osi_in_present(ctx, i)) continue;
    st = osi_op_require_rank(ctx, i, 1, 1);
    if (st == OSI_OK) st = osi_op_require_dims_eq(ctx, "BatchNormalization channels", i, 0, 0, 1);
  }
  if (st != OSI_OK) return st;
  osi_out_same_as_input(ctx, 0, 0);
  for (int o = 1; o < osi_out_count(ctx); o++) {
    const OsiType *stat = osi_in(ctx, 3) ? osi_in(ctx, 3) : osi_in(ctx, 1);
    if (stat) osi_out_like(ctx, o, stat->elem_type, stat);
  }
  return OSI_OK;
}
