/*
 * com.microsoft (onnxruntime contrib) matmul, gemm, convolution, pooling
 * and quantization operators. Most are fused or quantized forms of a
 * standard op and keep its rule: numpy matmul, Gemm's (M, N), Conv and
 * pooling windows (NCHW, or channels-last with C moved to the end),
 * broadcasting, reductions. Where onnxruntime's schema inference and its
 * kernels disagree, the kernel (what actually runs) decides.
 */
#include <string.h>

#include "ops/helpers.h"
#include "ops/window.h"

/* Section - MatMul */

/* A's or B's shape as FusedMatMul multiplies it: with trans the last two
 * dims swap; with trans_batch the leading dim moves behind the batch dims
 * ([M, b1.., K] -> [b1.., M, K]). 1-D operands are left alone. */
static const OsiType *fused_operand(OsiOpCtx *ctx, int i, int trans, int trans_batch) {
  const OsiType *t = osi_in_ranked(ctx, i);
  if (!t || t->rank < 2) return t;
  int r = t->rank, k = 0, rows = trans_batch ? 0 : r - 2;
  OsiType *u = osi_type_tensor(osi_op_arena(ctx), t->elem_type, r);
  if (!u) return NULL;
  OsiExpr *d = osi_type_dims_mut(u);
  for (int j = trans_batch ? 1 : 0; j < (trans_batch ? r - 1 : r - 2); j++) d[k++] = t->dims[j];
  d[k++] = t->dims[trans ? r - 1 : rows];
  d[k] = t->dims[trans ? rows : r - 1];
  return u;
}

/* FusedMatMul / FusedMatMulActivation / TransposeMatMul(A, B): numpy
 * matmul after transA/transB (swap the last two dims) and
 * transBatchA/transBatchB (the first dim moves behind the batch dims);
 * A's element type. */
OsiStatus osi_op_ms_fused_matmul(OsiOpCtx *ctx) {
  const OsiType *a =
      fused_operand(ctx, 0, osi_attr_int(ctx, "transA", 0) != 0, osi_attr_int(ctx, "transBatchA", 0) != 0);
  const OsiType *b =
      fused_operand(ctx, 1, osi_attr_int(ctx, "transB", 0) != 0, osi_attr_int(ctx, "transBatchB", 0) != 0);
  return osi_matmul_operands(ctx, a, b, osi_in_dtype(ctx, 0));
}

/* Numpy matmul of inputs 0 and 1: MatMulInteger16 gives int32 (as
 * onnxruntime infers it), MatMulIntegerToFloat a_scale's type,
 * DynamicQuantizeMatMul and GemmFastGelu A's type. QOrderedMatMul(A,
 * scale_A, B, ...) multiplies inputs 0 and 2, in A's type (int8). */
OsiStatus osi_op_ms_matmul(OsiOpCtx *ctx) {
  const char *op = osi_op_type(ctx);
  int32_t dtype = !strcmp(op, "MatMulInteger16")        ? OSI_DT_INT32
                  : !strcmp(op, "MatMulIntegerToFloat") ? osi_in_dtype(ctx, 2)
                                                        : osi_in_dtype(ctx, 0);
  return osi_matmul_out(ctx, 0, strcmp(op, "QOrderedMatMul") ? 1 : 2, dtype);
}

/* MatMulFpQ4(A, B, B_shape): B is a packed blob of the [K, N] matrix whose
 * shape is B_shape's content; float Y = A @ [K, N]. */
OsiStatus osi_op_ms_matmul_fpq4(OsiOpCtx *ctx) {
  const OsiExpr *bs;
  int n = osi_in_exprs(ctx, 2, &bs);
  if (n >= 0 && n != 2)
    return osi_op_fail(ctx, OSI_ERR_INVALID_MODEL, "B_shape has %d entries; expected 2 ([K, N])", n);
  OsiExpr bd[2] = {n == 2 ? bs[0] : OSI_EXPR_UNKNOWN, n == 2 ? bs[1] : OSI_EXPR_UNKNOWN};
  OsiType b = {.kind = OSI_KIND_TENSOR, .elem_type = OSI_DT_FLOAT, .rank = 2, .dims = bd};
  return osi_matmul_shapes(ctx, osi_in_ranked(ctx, 0), &b, OSI_DT_FLOAT);
}

/* Checks that A (input 0, rank >= 1) ends in the weight's input size k
 * (when both are constants). */
static OsiStatus check_weight_input(OsiOpCtx *ctx, const OsiType *a, int64_t k) {
  int64_t last;
  if (!a) return OSI_OK;
  if (a->rank == 0) return osi_op_fail(ctx, OSI_ERR_SHAPE_MISMATCH, "A must have rank >= 1");
  if (k >= 0 && osi_expr_is_const(osi_op_exprs(ctx), a->dims[a->rank - 1], &last) && last != k)
    return osi_op_fail(ctx, OSI_ERR_SHAPE_MISMATCH, "A's last dim is %lld; the weight expects %lld",
                       (long long)last, (long long)k);
  return OSI_OK;
}

/* Output o = A's shape (unknown rank without A) with the last dim
 * replaced by n (a constant, or unknown when negative). */
static void project_last(OsiOpCtx *ctx, int o, const OsiType *a, int32_t dtype, int64_t n) {
  OsiType *y = osi_out_like(ctx, o, dtype, a);
  if (y && a && a->rank > 0)
    osi_type_dims_mut(y)[a->rank - 1] = n >= 0 ? osi_expr_const(osi_op_exprs(ctx), n) : OSI_EXPR_UNKNOWN;
}

/* MatMulNBits / MatMulBnb4(A, B, ...): B holds a quantized weight of N
 * rows of K (attributes). Y has A's type and shape with the last dim (K)
 * replaced by N; MatMulBnb4 with transB = 0 multiplies by [N, K]
 * instead (last dim N -> K). */
OsiStatus osi_op_ms_matmul_quant_weight(OsiOpCtx *ctx) {
  const OsiType *a = osi_in_ranked(ctx, 0);
  int64_t k = osi_attr_int(ctx, "K", -1), n = osi_attr_int(ctx, "N", -1);
  int trans_b = strcmp(osi_op_type(ctx), "MatMulBnb4") || osi_attr_int(ctx, "transB", 1) != 0;
  OsiStatus st = check_weight_input(ctx, a, trans_b ? k : n);
  if (st == OSI_OK) project_last(ctx, 0, a, osi_in_dtype(ctx, 0), trans_b ? n : k);
  return st;
}

/* MatMulNBitsMlp(A, ...): activation(gate) * up of two K -> N MatMulNBits
 * projections: A's shape with N last. MatMulNBitsQkv(A, ...): Q (last dim
 * Nq), K and V (Nkv). An optional (Skip)SimplifiedLayerNormalization
 * comes first; its residual sum, the optional last output, is A-shaped. */
OsiStatus osi_op_ms_matmul_nbits_fused(OsiOpCtx *ctx) {
  const OsiType *a = osi_in_ranked(ctx, 0);
  int32_t dtype = osi_in_dtype(ctx, 0);
  int qkv = !strcmp(osi_op_type(ctx), "MatMulNBitsQkv");
  OsiStatus st = check_weight_input(ctx, a, osi_attr_int(ctx, "K", -1));
  if (st != OSI_OK) return st;
  if (!qkv) {
    project_last(ctx, 0, a, dtype, osi_attr_int(ctx, "N", -1));
    osi_out_like(ctx, 1, dtype, a);
    return OSI_OK;
  }
  project_last(ctx, 0, a, dtype, osi_attr_int(ctx, "Nq", -1));
  project_last(ctx, 1, a, dtype, osi_attr_int(ctx, "Nkv", -1));
  project_last(ctx, 2, a, dtype, osi_attr_int(ctx, "Nkv", -1));
  osi_out_like(ctx, 3, dtype, a);
  return OSI_OK;
}

/* MatMulBlockQuantizedFp4Weight / Fp8Weight(A [..., K], B [N, K/2] or
 * [N, K], ...): [..., N] in A's type, N being B's first dim. */
OsiStatus osi_op_ms_matmul_block_weight(OsiOpCtx *ctx) {
  const OsiType *a = osi_in_ranked(ctx, 0), *b = osi_in_ranked(ctx, 1);
  if (b && b->rank != 2)
    return osi_op_fail(ctx, OSI_ERR_SHAPE_MISMATCH, "B must be 2-D (got rank %d)", b->rank);
  OsiStatus st = check_weight_input(ctx, a, -1);
  if (st != OSI_OK) return st;
  OsiType *y = osi_out_like(ctx, 0, osi_in_dtype(ctx, 0), a);
  if (y && a) osi_type_dims_mut(y)[a->rank - 1] = b ? b->dims[0] : OSI_EXPR_UNKNOWN;
  return OSI_OK;
}

/* SparseToDenseMatMul(A sparse 2-D, B 2-D): [M, N] with M = A's rows
 * (columns when transA) and N = B's columns (rows when transB), as the
 * kernel computes it; B's element type. */
OsiStatus osi_op_ms_sparse_to_dense_matmul(OsiOpCtx *ctx) {
  const OsiType *a = osi_in(ctx, 0), *b = osi_in_ranked(ctx, 1);
  if (a && (a->kind != OSI_KIND_SPARSE_TENSOR && a->kind != OSI_KIND_TENSOR)) a = NULL;
  if (a && a->rank < 0) a = NULL;
  if ((a && a->rank != 2) || (b && b->rank != 2))
    return osi_op_fail(ctx, OSI_ERR_SHAPE_MISMATCH, "SparseToDenseMatMul needs 2-D A and B");
  OsiType *y = osi_out_tensor(ctx, 0, osi_in_dtype(ctx, 1), 2);
  if (!y) return OSI_OK;
  int ta = osi_attr_int(ctx, "transA", 0) != 0, tb = osi_attr_int(ctx, "transB", 0) != 0;
  osi_type_dims_mut(y)[0] = a ? a->dims[ta ? 1 : 0] : OSI_EXPR_UNKNOWN;
  osi_type_dims_mut(y)[1] = b ? b->dims[tb ? 0 : 1] : OSI_EXPR_UNKNOWN;
  return OSI_OK;
}

/* Section - Gemm */

/* Output 0 = [M, N] of a Gemm of A (input a_in) and B (b_in), both 2-D,
 * with transA/transB. */
static OsiStatus gemm_out(OsiOpCtx *ctx, int a_in, int b_in, int32_t dtype) {
  const OsiType *a = osi_in_ranked(ctx, a_in), *b = osi_in_ranked(ctx, b_in);
  if ((a && a->rank != 2) || (b && b->rank != 2))
    return osi_op_fail(ctx, OSI_ERR_SHAPE_MISMATCH, "%s needs 2-D A and B", osi_op_type(ctx));
  OsiType *y = osi_out_tensor(ctx, 0, dtype, 2);
  if (!y) return OSI_OK;
  int ta = osi_attr_int(ctx, "transA", 0) != 0, tb = osi_attr_int(ctx, "transB", 0) != 0;
  osi_type_dims_mut(y)[0] = a ? a->dims[ta ? 1 : 0] : OSI_EXPR_UNKNOWN;
  osi_type_dims_mut(y)[1] = b ? b->dims[tb ? 0 : 1] : OSI_EXPR_UNKNOWN;
  return OSI_OK;
}

/* QGemm(A, a_scale, a_zp, B, b_scale, b_zp[, C, y_scale, y_zp]): [M, N];
 * quantized to y_zero_point's type when given, float when y_scale is
 * absent too (a y_scale without zero point leaves the type open). */
OsiStatus osi_op_ms_qgemm(OsiOpCtx *ctx) {
  int32_t dtype = osi_in_present(ctx, 8) ? osi_in_dtype(ctx, 8) : osi_in_present(ctx, 7) ? 0 : OSI_DT_FLOAT;
  return gemm_out(ctx, 0, 3, dtype);
}

/* GemmFloat8(A, B, ...): [M, N] in the `dtype` attribute's type (default
 * float). */
OsiStatus osi_op_ms_gemm_float8(OsiOpCtx *ctx) {
  return gemm_out(ctx, 0, 1, (int32_t)osi_attr_int(ctx, "dtype", OSI_DT_FLOAT));
}

/* Section - Convolution and pooling windows */

/* Where X's channels sit, and whether W's trailing dims give the kernel. */
typedef enum Layout {
  NCHW,         /* X [N, C, D..], W [M, C/g, k..] */
  NHWC,         /* X [N, D.., C], W [M, C/g, k..] */
  NHWC_W_OPAQUE /* X [N, D.., C]; W may be channels-last: its dims give no kernel */
} Layout;

/* Output 0 of a convolution (w_in >= 0: channels = W[0]) or a pool
 * (w_in < 0: X's channels) over input x_in; channels-last layouts give
 * [N, O1.., M] for X [N, D1.., C]. */
static OsiStatus window_op(OsiOpCtx *ctx, int x_in, int w_in, int b_in, int32_t dtype, Layout layout) {
  if (layout == NCHW) return osi_conv_out(ctx, x_in, w_in, b_in, dtype);
  OsiExprStore *s = osi_op_exprs(ctx);
  const OsiType *x = osi_in_ranked(ctx, x_in), *w = w_in >= 0 ? osi_in_ranked(ctx, w_in) : NULL;
  if (!x) {
    osi_out_tensor(ctx, 0, dtype, w ? w->rank : -1);
    return OSI_OK;
  }
  if (x->rank < 2) return osi_op_fail(ctx, OSI_ERR_SHAPE_MISMATCH, "input rank %d is below 2", x->rank);
  int n = x->rank - 2;
  OsiSpatial sp;
  OsiStatus st = osi_read_spatial(ctx, n, layout == NHWC ? w : NULL, &sp);
  for (int i = 0; i < n && st == OSI_OK; i++) st = osi_window_require_fit(ctx, x_in, i + 1, &sp, i, w_in >= 0 ? OSI_WINDOW_CONV : OSI_WINDOW_POOL);
  if (st != OSI_OK) return st;
  OsiType *y = osi_out_tensor(ctx, 0, dtype, x->rank);
  if (!y) return OSI_OK;
  OsiExpr *d = osi_type_dims_mut(y);
  d[0] = x->dims[0];
  d[n + 1] = w_in < 0 ? x->dims[n + 1] : w ? w->dims[0] : OSI_EXPR_UNKNOWN;
  for (int i = 0; i < n; i++)
    d[i + 1] = w_in >= 0 ? osi_window_dim(s, x->dims[i + 1], &sp, i) : osi_pool_window_dim(ctx, x->dims[i + 1], &sp, i);
  return OSI_OK;
}

/* FusedConv(X, W, B, Z): Conv's rule (NCHW). */
OsiStatus osi_op_ms_fused_conv(OsiOpCtx *ctx) { return window_op(ctx, 0, 1, 2, osi_in_dtype(ctx, 0), NCHW); }

/* NhwcFusedConv(X [N, D.., C], W [M, C/g, k..]): [N, O.., M]. NhwcConv
 * (X [N, D.., C]): the same, but its W is produced channels-last
 * ([M, k.., C/g]) by onnxruntime's fusion while the spec shows
 * [M, C/g, k..], so only kernel_shape gives the kernel. */
OsiStatus osi_op_ms_nhwc_conv(OsiOpCtx *ctx) {
  Layout layout = strcmp(osi_op_type(ctx), "NhwcConv") ? NHWC : NHWC_W_OPAQUE;
  return window_op(ctx, 0, 1, 2, osi_in_dtype(ctx, 0), layout);
}

/* NhwcMaxPool(x [N, D.., C]): [N, O.., C] (kernel_shape, dilations,
 * ceil_mode as MaxPool). */
OsiStatus osi_op_ms_nhwc_max_pool(OsiOpCtx *ctx) { return window_op(ctx, 0, -1, -1, osi_in_dtype(ctx, 0), NHWC); }

/* MaxpoolWithMask(X, M): MaxPool's window rule on X (NCHW). */
OsiStatus osi_op_ms_maxpool_with_mask(OsiOpCtx *ctx) {
  return window_op(ctx, 0, -1, -1, osi_in_dtype(ctx, 0), NCHW);
}

/* QLinearConv(x, x_scale, x_zp, w, w_scale, w_zp, y_scale, y_zp[, B]):
 * Conv's rule on x and w, NHWC when channels_last; y_zero_point's type. */
OsiStatus osi_op_ms_qlinear_conv(OsiOpCtx *ctx) {
  return window_op(ctx, 0, 3, 8, osi_in_dtype(ctx, 7), osi_attr_int(ctx, "channels_last", 0) ? NHWC : NCHW);
}

/* QLinearAveragePool(X, x_scale, x_zp, y_scale, y_zp): AveragePool's
 * window rule, NHWC when channels_last; X's type. */
OsiStatus osi_op_ms_qlinear_average_pool(OsiOpCtx *ctx) {
  return window_op(ctx, 0, -1, -1, osi_in_dtype(ctx, 0), osi_attr_int(ctx, "channels_last", 0) ? NHWC : NCHW);
}

/* QLinearGlobalAveragePool(X, ...): the spatial dims become 1, giving
 * (N, C, 1..) or, with channels_last, (N, 1.., C); X's type. */
OsiStatus osi_op_ms_qlinear_global_average_pool(OsiOpCtx *ctx) {
  const OsiType *x = osi_in_ranked(ctx, 0);
  int first = osi_attr_int(ctx, "channels_last", 0) != 0 ? 1 : 2;
  if (!x) {
    osi_out_tensor(ctx, 0, osi_in_dtype(ctx, 0), -1);
    return OSI_OK;
  }
  if (x->rank < 2) return osi_op_fail(ctx, OSI_ERR_SHAPE_MISMATCH, "input rank %d is below 2", x->rank);
  OsiType *y = osi_out_like(ctx, 0, x->elem_type, x);
  for (int i = first; y && i < first + x->rank - 2; i++)
    osi_type_dims_mut(y)[i] = osi_expr_const(osi_op_exprs(ctx), 1);
  return OSI_OK;
}

/*
 * ConvTransposeWithDynamicPads(X, W[, Pads, B]): ConvTranspose with the
 * pads taken from input 2 ([begins.., ends..]; zeros when omitted):
 * [N, W[1] * group, O..] with O = stride * (in - 1) + output_padding +
 * dilated kernel - pads, or the output_shape attribute. An auto_pad other
 * than NOTSET leaves the spatial dims unknown.
 */
OsiStatus osi_op_ms_conv_transpose_dynamic_pads(OsiOpCtx *ctx) {
  OsiExprStore *s = osi_op_exprs(ctx);
  const OsiType *x = osi_in_ranked(ctx, 0), *w = osi_in_ranked(ctx, 1);
  int32_t dtype = osi_in_dtype(ctx, 0);
  if (!x) {
    osi_out_tensor(ctx, 0, dtype, w ? w->rank : -1);
    return OSI_OK;
  }
  if (x->rank < 2) return osi_op_fail(ctx, OSI_ERR_SHAPE_MISMATCH, "input rank %d is below 2", x->rank);
  int n = x->rank - 2;
  OsiSpatial sp;
  OsiStatus st = osi_read_spatial(ctx, n, w, &sp);
  if (st != OSI_OK) return st;
  const OsiExpr *pads = NULL;
  int np = osi_in_present(ctx, 2) ? osi_in_exprs(ctx, 2, &pads) : -2;
  if (np >= 0 && np != 2 * n)
    return osi_op_fail(ctx, OSI_ERR_INVALID_MODEL, "Pads has %d entries; expected %d", np, 2 * n);
  const int64_t *outpad, *outshape;
  int nop = osi_attr_ints(ctx, "output_padding", &outpad),
      nos = osi_attr_ints(ctx, "output_shape", &outshape);
  OsiType *y = osi_out_tensor(ctx, 0, dtype, x->rank);
  if (!y) return OSI_OK;
  OsiExpr *d = osi_type_dims_mut(y);
  d[0] = x->dims[0];
  d[1] = w ? osi_expr_mul(s, w->dims[1], osi_expr_const(s, osi_attr_int(ctx, "group", 1))) : OSI_EXPR_UNKNOWN;
  for (int i = 0; i < n; i++) {
    if (nos == n || nos == n + 2) {
      int64_t o = outshape[nos == n ? i : i + 2];
      d[i + 2] = o >= 0 ? osi_expr_const(s, o) : OSI_EXPR_UNKNOWN;
    } else if (!strcmp(sp.auto_pad, "NOTSET") && sp.kernel[i] >= 0 && np != -1) {
      OsiExpr pad = np > 0 ? osi_expr_add(s, pads[i], pads[i + n]) : osi_expr_const(s, 0);
      int64_t op = nop == n ? outpad[i] : 0, p;
      d[i + 2] = osi_transpose_window_dim(s, x->dims[i + 2], sp.stride[i], osi_window_extent(s, &sp, i), op, pad);
      if (osi_expr_is_const(s, pad, &p) && sp.extent[i] > 0) {
        __int128 extra = (__int128)op + sp.extent[i] - p;
        st = extra > INT64_MAX || extra < INT64_MIN
                 ? osi_op_fail(ctx, OSI_ERR_INVALID_MODEL, "output_padding, kernel and pads of spatial dim %d add up beyond int64", i)
                 : osi_transpose_window_require(ctx, 0, i + 2, sp.stride[i], (int64_t)extra, 1);
        if (st != OSI_OK) return st;
      }
    }
  }
  return OSI_OK;
}

/* Section - Element-wise quantized ops */

/* Output 0 = broadcast of inputs idx[0..n) with element type dtype. */
static OsiStatus broadcast_inputs(OsiOpCtx *ctx, const int *idx, int n, int32_t dtype) {
  const OsiType *in[3];
  for (int k = 0; k < n; k++) in[k] = osi_in(ctx, idx[k]);
  OsiExpr dims[OSI_MAX_RANK];
  int rank = -1;
  OsiStatus st = osi_broadcast(ctx, in, n, &rank, dims);
  if (st != OSI_OK) return st;
  OsiType *y = osi_out_tensor(ctx, 0, dtype, rank);
  if (y && rank > 0) memcpy(osi_type_dims_mut(y), dims, (size_t)rank * sizeof(OsiExpr));
  return OSI_OK;
}

/* QLinearAdd / QLinearMul(A, A_scale, A_zp, B, ...): broadcast of A and B
 * in A's type. MulInteger(A, A_zp, B, B_zp): broadcast of A and B, int32. */
OsiStatus osi_op_ms_qlinear_binary(OsiOpCtx *ctx) {
  int mul_integer = !strcmp(osi_op_type(ctx), "MulInteger");
  int idx[2] = {0, mul_integer ? 2 : 3};
  return broadcast_inputs(ctx, idx, 2, mul_integer ? OSI_DT_INT32 : osi_in_dtype(ctx, 0));
}

/* QLinearWhere(condition, X, x_scale, x_zp, Y, y_scale, y_zp, z_scale,
 * z_zp): broadcast of condition, X and Y, in X's type. */
OsiStatus osi_op_ms_qlinear_where(OsiOpCtx *ctx) {
  int idx[3] = {0, 1, 4};
  return broadcast_inputs(ctx, idx, 3, osi_in_dtype(ctx, 1));
}

/*
 * QLinearConcat(Y_scale, Y_zero_point, (X, X_scale, X_zero_point)..):
 * the tensors at inputs 2, 5, 8.. joined along `axis` (required): that
 * dim is their sum, the others must agree. Y_zero_point's type.
 */
OsiStatus osi_op_ms_qlinear_concat(OsiOpCtx *ctx) {
  OsiExprStore *s = osi_op_exprs(ctx);
  int nin = osi_in_count(ctx), rank = -1, all = 1, axis;
  if (nin < 5 || (nin - 2) % 3)
    return osi_op_fail(
        ctx, OSI_ERR_INVALID_MODEL,
        "QLinearConcat takes Y_scale, Y_zero_point and (tensor, scale, zero point) triples; got %d inputs",
        nin);
  if (!osi_attr_has(ctx, "axis"))
    return osi_op_fail(ctx, OSI_ERR_INVALID_MODEL, "attribute axis is required");
  for (int i = 2; i < nin; i += 3) {
    const OsiType *t = osi_in_ranked(ctx, i);
    if (!t)
      all = 0;
    else if (rank < 0)
      rank = t->rank;
    else if (t->rank != rank)
      return osi_op_fail(ctx, OSI_ERR_SHAPE_MISMATCH, "input %d has rank %d; expected %d", i, t->rank, rank);
  }
  OsiType *y = osi_out_tensor(ctx, 0, osi_in_dtype(ctx, 1), rank);
  if (!y || rank < 0) return OSI_OK;
  if (!osi_norm_axis(osi_attr_int(ctx, "axis", 0), rank, &axis))
    return osi_op_fail(ctx, OSI_ERR_INVALID_MODEL, "axis is out of range for rank %d", rank);
  OsiExpr *d = osi_type_dims_mut(y), sum = osi_expr_const(s, 0);
  for (int i = 2; i < nin; i += 3) {
    const OsiType *t = osi_in_ranked(ctx, i);
    if (!t) continue;
    sum = osi_expr_add(s, sum, t->dims[axis]);
    for (int j = 0; j < rank; j++) {
      int64_t a, b;
      if (j == axis || t->dims[j] == OSI_EXPR_UNKNOWN) continue;
      if (osi_expr_is_const(s, d[j], &a) && osi_expr_is_const(s, t->dims[j], &b) && a != b)
        return osi_op_fail(ctx, OSI_ERR_SHAPE_MISMATCH, "dim %d is %lld in one input and %lld in another", j,
                           (long long)a, (long long)b);
      if (d[j] == OSI_EXPR_UNKNOWN || osi_expr_is_const(s, t->dims[j], &b)) d[j] = t->dims[j];
    }
  }
  d[axis] = all ? sum : OSI_EXPR_UNKNOWN;
  return OSI_OK;
}

/* ReduceSumInteger(data): ReduceSum's shape rule (axes attribute,
 * keepdims default 1); int8 sums to int32 and uint8 to uint32. */
OsiStatus osi_op_ms_reduce_sum_integer(OsiOpCtx *ctx) {
  OsiStatus st = osi_op_reduce(ctx);
  const OsiType *y = osi_out(ctx, 0);
  if (st != OSI_OK || !y) return st;
  OsiType *t = osi_type_copy(osi_op_arena(ctx), y);
  if (!t) return OSI_OK;
  int32_t in = osi_in_dtype(ctx, 0);
  t->elem_type = in == OSI_DT_UINT8 ? OSI_DT_UINT32 : in == OSI_DT_INT8 ? OSI_DT_INT32 : 0;
  t->value = NULL;
  osi_set_out(ctx, 0, t);
  return OSI_OK;
}

/* Section - Quantize and dequantize */

/* QuantizeLinear(x, y_scale[, y_zero_point]): x's shape in y_zero_point's
 * type (uint8 without one). DequantizeLinear(x, x_scale[, x_zp]): x's
 * shape in x_scale's type. */
OsiStatus osi_op_ms_quantize_linear(OsiOpCtx *ctx) {
  int32_t dtype = !strcmp(osi_op_type(ctx), "DequantizeLinear") ? osi_in_dtype(ctx, 1)
                  : osi_in_present(ctx, 2)                      ? osi_in_dtype(ctx, 2)
                                                                : OSI_DT_UINT8;
  osi_out_like(ctx, 0, dtype, osi_in(ctx, 0));
  return OSI_OK;
}

/* QuantizeWithOrder(input, scale_input): int8 with input's shape;
 * DequantizeWithOrder(input, scale_input): input's shape in scale_input's
 * type. The cuBLASLt orders only change the memory layout. */
OsiStatus osi_op_ms_quantize_with_order(OsiOpCtx *ctx) {
  int dequant = !strcmp(osi_op_type(ctx), "DequantizeWithOrder");
  osi_out_like(ctx, 0, dequant ? osi_in_dtype(ctx, 1) : OSI_DT_INT8, osi_in(ctx, 0));
  return OSI_OK;
}

/* QuantizeBFP(x): y is 1-D uint8 BFP data (its length depends on
 * bfp_type), shape the int64 [rank] shape of x (content x's dims),
 * strides int64 [rank]. */
OsiStatus osi_op_ms_quantize_bfp(OsiOpCtx *ctx) {
  const OsiType *x = osi_in_ranked(ctx, 0);
  osi_out_tensor(ctx, 0, OSI_DT_UINT8, 1);
  for (int o = 1; o <= 2; o++) {
    OsiType *t = osi_out_tensor(ctx, o, OSI_DT_INT64, 1);
    if (!t || !x) continue;
    osi_type_dims_mut(t)[0] = osi_expr_const(osi_op_exprs(ctx), x->rank);
    if (o == 1) osi_set_value(ctx, t, x->rank, x->dims);
  }
  return OSI_OK;
}

/* DequantizeBFP(x, shape, strides): y's dims are the content of `shape`,
 * in the `dtype` attribute's type (default float). */
OsiStatus osi_op_ms_dequantize_bfp(OsiOpCtx *ctx) {
  OsiExprStore *s = osi_op_exprs(ctx);
  int32_t dtype = (int32_t)osi_attr_int(ctx, "dtype", OSI_DT_FLOAT);
  const OsiExpr *dims;
  int n = osi_in_exprs(ctx, 1, &dims);
  const OsiType *st = osi_in_ranked(ctx, 1);
  int64_t len;
  if (n < 0 && st && st->rank == 1 && osi_expr_is_const(s, st->dims[0], &len) && len <= OSI_MAX_RANK)
    n = (int)len, dims = NULL;
  if (n > OSI_MAX_RANK) return osi_op_fail(ctx, OSI_ERR_LIMIT_EXCEEDED, "shape has %d entries", n);
  OsiType *y = osi_out_tensor(ctx, 0, dtype, n);
  if (y && dims && n > 0) memcpy(osi_type_dims_mut(y), dims, (size_t)n * sizeof(OsiExpr));
  return OSI_OK;
}

/*
 * GatherBlockQuantized(data, indices, scales[, zero_points]): Gather along
 * gather_axis (default 0): data.shape[:g] + indices.shape +
 * data.shape[g+1:], in scales' type. uint8 data packs 8 / bits values
 * (bits default 4) per byte along its last axis (then gather_axis must be
 * 0 and quantize_axis last), which the output unpacks.
 */
OsiStatus osi_op_ms_gather_block_quantized(OsiOpCtx *ctx) {
  OsiExprStore *s = osi_op_exprs(ctx);
  const OsiType *data = osi_in_ranked(ctx, 0), *idx = osi_in_ranked(ctx, 1);
  int32_t dtype = osi_in_dtype(ctx, 2), dt = osi_in_dtype(ctx, 0);
  if (!data || !idx) {
    osi_out_tensor(ctx, 0, dtype, -1);
    return OSI_OK;
  }
  int r = data->rank, q = idx->rank, g, qa;
  if (r < 1 || !osi_norm_axis(osi_attr_int(ctx, "gather_axis", 0), r, &g) ||
      !osi_norm_axis(osi_attr_int(ctx, "quantize_axis", 1), r, &qa))
    return osi_op_fail(ctx, OSI_ERR_INVALID_MODEL, "gather_axis or quantize_axis is out of range for rank %d",
                       r);
  int64_t bits = osi_attr_int(ctx, "bits", 4), comp = 1;
  if (dt == OSI_DT_UINT8) {
    if (bits != 2 && bits != 4 && bits != 8)
      return osi_op_fail(ctx, OSI_ERR_INVALID_MODEL, "bits is %lld; uint8 data takes 2, 4 or 8",
                         (long long)bits);
    if (g != 0 || qa != r - 1 || r < 2)
      return osi_op_fail(ctx, OSI_ERR_INVALID_MODEL,
                         "uint8 data needs gather_axis 0 and quantize_axis last (rank >= 2)");
    comp = 8 / bits;
  }
  if (r + q - 1 > OSI_MAX_RANK)
    return osi_op_fail(ctx, OSI_ERR_LIMIT_EXCEEDED, "output rank is over the limit");
  OsiType *y = osi_out_tensor(ctx, 0, dtype, r + q - 1);
  if (!y || r + q - 1 == 0) return OSI_OK;
  OsiExpr *d = osi_type_dims_mut(y);
  int k = 0;
  for (int i = 0; i < g; i++) d[k++] = data->dims[i];
  for (int i = 0; i < q; i++) d[k++] = idx->dims[i];
  for (int i = g + 1; i < r; i++) d[k++] = data->dims[i];
  /* With the data type unknown, a packed last axis cannot be ruled out. */
  if (comp > 1)
    d[k - 1] = osi_expr_mul(s, d[k - 1], osi_expr_const(s, comp));
  else if (dt == 0 && g < r - 1)
    d[k - 1] = OSI_EXPR_UNKNOWN;
  return OSI_OK;
}

/* Section - Recurrent */

/*
 * DynamicQuantizeLSTM(X [seq, batch, in], W [dirs, in, 4*hidden],
 * R [dirs, hidden, 4*hidden], ..., initial_h [dirs, batch, hidden], ...):
 * Y [seq, dirs, batch, hidden], Y_h and Y_c [dirs, batch, hidden] (float);
 * dirs is 2 for bidirectional. hidden_size: the attribute, else R's dim 1,
 * else initial_h's last dim.
 */
OsiStatus osi_op_ms_dynamic_quantize_lstm(OsiOpCtx *ctx) {
  OsiExprStore *s = osi_op_exprs(ctx);
  const char *dir = osi_attr_str(ctx, "direction", "forward");
  int64_t dirs = !strcmp(dir, "bidirectional") ? 2 : 1, h = osi_attr_int(ctx, "hidden_size", -1);
  if (dirs == 1 && strcmp(dir, "forward") && strcmp(dir, "reverse"))
    return osi_op_fail(ctx, OSI_ERR_INVALID_MODEL, "direction '%s' is not forward, reverse or bidirectional",
                       dir);
  const OsiType *x = osi_in_ranked(ctx, 0), *r = osi_in_ranked(ctx, 2), *init = osi_in_ranked(ctx, 5);
  if (x && x->rank != 3)
    return osi_op_fail(ctx, OSI_ERR_SHAPE_MISMATCH, "X must have rank 3 (got %d)", x->rank);
  OsiExpr hidden = h > 0                                                 ? osi_expr_const(s, h)
                   : r && r->rank == 3 && r->dims[1] != OSI_EXPR_UNKNOWN ? r->dims[1]
                   : init && init->rank == 3                             ? init->dims[2]
                                                                         : OSI_EXPR_UNKNOWN;
  OsiExpr seq = x ? x->dims[0] : OSI_EXPR_UNKNOWN, d = osi_expr_const(s, dirs);
  OsiExpr batch = x ? x->dims[1] : init && init->rank == 3 ? init->dims[1] : OSI_EXPR_UNKNOWN;
  OsiType *y = osi_out_tensor(ctx, 0, OSI_DT_FLOAT, 4);
  if (y) {
    OsiExpr *yd = osi_type_dims_mut(y);
    yd[0] = seq, yd[1] = d, yd[2] = batch, yd[3] = hidden;
  }
  for (int o = 1; o <= 2; o++) {
    OsiType *t = osi_out_tensor(ctx, o, OSI_DT_FLOAT, 3);
    if (!t) continue;
    OsiExpr *td = osi_type_dims_mut(t);
    td[0] = d, td[1] = batch, td[2] = hidden;
  }
  return OSI_OK;
}
