/*
 * Linear quantization: QuantizeLinear, DequantizeLinear,
 * DynamicQuantizeLinear, and the quantized QLinearConv / QLinearMatMul,
 * which follow the Conv and MatMul shape rules with the output element
 * type of their y_zero_point.
 */
#include "ops/helpers.h"
#include "ops/window.h"

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
  return osi_conv_out(ctx, 0, 3, 8, osi_in_dtype(ctx, 7));
}

/* QLinearMatMul(a, a_scale, a_zp, b, b_scale, b_zp, y_scale, y_zp)
 * (opset 10): numpy matmul of a and b; y has y_zero_point's type. */
OsiStatus osi_op_qlinear_matmul(OsiOpCtx *ctx) {
  return osi_matmul_out(ctx, 0, 3, osi_in_dtype(ctx, 7));
}
