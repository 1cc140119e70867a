/*
 * Signal-processing operators: DFT, STFT, the window generators
 * (Hann/Hamming/Blackman) and MelWeightMatrix. Lengths given as scalar
 * inputs (dft_length, frame_step, size, ...) are read from the inputs'
 * known content, symbolic or constant; unknown content leaves the dim
 * unknown.
 */
#include "ops/helpers.h"

/* The content of a scalar (or one-element) integer input as an
 * expression; OSI_EXPR_UNKNOWN when not known. */
static OsiExpr scalar_expr(const OsiOpCtx *ctx, int i) {
  const OsiExpr *e;
  return osi_in_exprs(ctx, i, &e) == 1 ? e[0] : OSI_EXPR_UNKNOWN;
}

/* A length read from scalar input i (see scalar_expr); fails when it is a
 * constant below `min`. */
static OsiStatus length_input(OsiOpCtx *ctx, int i, const char *name, int64_t min, OsiExpr *out) {
  int64_t c;
  *out = scalar_expr(ctx, i);
  if (osi_expr_is_const(osi_op_exprs(ctx), *out, &c) && c < min)
    return osi_op_fail(ctx, OSI_ERR_INVALID_MODEL, "%s is %lld, expected at least %lld", name, (long long)c,
                       (long long)min);
  return OSI_OK;
}

/* Reads the DFT axis: attribute `axis` (default 1) before opset 20, input 2
 * (default -2) from opset 20. Returns 0 when the input's value is unknown. */
static int dft_axis(const OsiOpCtx *ctx, int64_t *axis) {
  if (osi_op_opset(ctx) < 20) {
    *axis = osi_attr_int(ctx, "axis", 1);
    return 1;
  }
  *axis = -2;
  return !osi_in_present(ctx, 2) || osi_in_ints(ctx, 2, axis, 1) == 1;
}

/* DFT (17: axis attribute; 20: axis input): the input shape with the last
 * dim 2 (1 for IRFFT: onesided and inverse) and the axis dim dft_length,
 * or dft_length // 2 + 1 for RFFT (onesided, forward). dft_length defaults
 * to the axis dim, or 2 * (dim - 1) for IRFFT. Axes: [-r, -2] and [0, r-2]. */
OsiStatus osi_op_dft(OsiOpCtx *ctx) {
  OsiExprStore *s = osi_op_exprs(ctx);
  const OsiType *x = osi_in_ranked(ctx, 0);
  if (!x) {
    osi_out_tensor(ctx, 0, osi_in_dtype(ctx, 0), -1);
    return OSI_OK;
  }
  int r = x->rank;
  int64_t last, axis;
  if (r < 2) return osi_op_fail(ctx, OSI_ERR_SHAPE_MISMATCH, "DFT input rank %d is below 2", r);
  if (osi_expr_is_const(s, x->dims[r - 1], &last) && last != 1 && last != 2)
    return osi_op_fail(ctx, OSI_ERR_SHAPE_MISMATCH, "DFT input last dim is %lld, expected 1 or 2",
                       (long long)last);
  int onesided = osi_attr_int(ctx, "onesided", 0) != 0, inverse = osi_attr_int(ctx, "inverse", 0) != 0;
  int irfft = onesided && inverse, known_axis = dft_axis(ctx, &axis);
  if (irfft && osi_expr_is_const(s, x->dims[r - 1], &last) && last != 2)
    return osi_op_fail(ctx, OSI_ERR_SHAPE_MISMATCH, "DFT: an inverse one-sided transform takes a complex input (last dim 2, not %lld)",
                       (long long)last);
  if (onesided && !inverse && osi_expr_is_const(s, x->dims[r - 1], &last) && last != 1)
    return osi_op_fail(ctx, OSI_ERR_SHAPE_MISMATCH, "DFT: a one-sided transform takes a real input (last dim 1, not %lld)",
                       (long long)last);
  int64_t a64 = known_axis ? (axis < 0 ? axis + r : axis) : 0;
  if (known_axis && (axis < -(int64_t)r || a64 > r - 2))
    return osi_op_fail(ctx, OSI_ERR_INVALID_MODEL, "DFT axis %lld is outside [-%d, -2] and [0, %d]",
                       (long long)axis, r, r - 2);
  int has_len = osi_in_present(ctx, 1);
  OsiExpr n = OSI_EXPR_UNKNOWN;
  OsiStatus st = has_len ? length_input(ctx, 1, "dft_length", 1, &n) : OSI_OK;
  if (st != OSI_OK) return st;
  OsiType *y = osi_out_like(ctx, 0, x->elem_type, x);
  if (!y) return OSI_OK;
  OsiExpr *d = osi_type_dims_mut(y);
  d[r - 1] = osi_expr_const(s, irfft ? 1 : 2);
  if (!known_axis) {
    /* Without onesided or dft_length every signal dim keeps its size,
     * whichever axis is transformed. */
    if (onesided || has_len)
      for (int i = 0; i < r - 1; i++) d[i] = OSI_EXPR_UNKNOWN;
    return OSI_OK;
  }
  int a = (int)a64; /* in [0, r - 2] */
  OsiExpr one = osi_expr_const(s, 1), two = osi_expr_const(s, 2);
  if (!has_len) n = irfft ? osi_expr_mul(s, two, osi_expr_sub(s, x->dims[a], one)) : x->dims[a];
  d[a] = onesided && !inverse ? osi_expr_add(s, osi_expr_floordiv(s, n, two), one) : n;
  return OSI_OK;
}

/* STFT-17: signal [batch, L, 1|2] -> [batch, frames, bins, 2] with
 * frames = (L - frame_length) // frame_step + 1 (L >= frame_length for a
 * valid signal) and bins = frame_length // 2 + 1 when onesided (default 1),
 * else frame_length. frame_length is input 3, else the window's length. */
OsiStatus osi_op_stft(OsiOpCtx *ctx) {
  OsiExprStore *s = osi_op_exprs(ctx);
  const OsiType *sig = osi_in_ranked(ctx, 0), *win = osi_in_ranked(ctx, 2);
  if (sig && sig->rank != 3)
    return osi_op_fail(ctx, OSI_ERR_SHAPE_MISMATCH, "STFT signal must have rank 3 (got %d)", sig->rank);
  if (win && win->rank != 1)
    return osi_op_fail(ctx, OSI_ERR_SHAPE_MISMATCH, "STFT window must have rank 1 (got %d)", win->rank);
  int64_t c;
  if (sig && osi_expr_is_const(s, sig->dims[2], &c) && c != 1 && c != 2)
    return osi_op_fail(ctx, OSI_ERR_SHAPE_MISMATCH, "STFT signal's last dim is %lld; expected 1 (real) or 2 (complex)", (long long)c);
  OsiExpr one = osi_expr_const(s, 1), two = osi_expr_const(s, 2), step;
  OsiExpr len = win ? win->dims[0] : OSI_EXPR_UNKNOWN;
  OsiStatus st = length_input(ctx, 1, "frame_step", 1, &step);
  if (st == OSI_OK && osi_in_present(ctx, 3)) st = length_input(ctx, 3, "frame_length", 1, &len);
  /* onnxruntime refuses a frame longer than the signal. */
  if (st == OSI_OK && sig)
    st = osi_op_require_le(ctx, "STFT frame", len, OSI_WHAT("the frame length"), sig->dims[1], OSI_DIM(0, 1));
  if (st != OSI_OK) return st;
  OsiType *y = osi_out_tensor(ctx, 0, osi_in_dtype(ctx, 0), 4);
  if (!y) return OSI_OK;
  OsiExpr *d = osi_type_dims_mut(y);
  d[0] = sig ? sig->dims[0] : OSI_EXPR_UNKNOWN;
  d[1] = sig ? osi_expr_add(s, osi_expr_floordiv(s, osi_expr_sub(s, sig->dims[1], len), step), one)
             : OSI_EXPR_UNKNOWN;
  d[2] = osi_attr_int(ctx, "onesided", 1) ? osi_expr_add(s, osi_expr_floordiv(s, len, two), one) : len;
  d[3] = two;
  return OSI_OK;
}

/* HannWindow/HammingWindow/BlackmanWindow-17: [size] of output_datatype
 * (default float); `periodic` does not change the length. */
OsiStatus osi_op_window(OsiOpCtx *ctx) {
  const OsiType *size = osi_in_ranked(ctx, 0);
  if (size && size->rank > 1)
    return osi_op_fail(ctx, OSI_ERR_SHAPE_MISMATCH, "window size must be a scalar (got rank %d)", size->rank);
  OsiExpr n;
  OsiStatus st = length_input(ctx, 0, "size", 0, &n);
  if (st != OSI_OK) return st;
  OsiType *y = osi_out_tensor(ctx, 0, (int32_t)osi_attr_int(ctx, "output_datatype", OSI_DT_FLOAT), 1);
  if (y) osi_type_dims_mut(y)[0] = n;
  return OSI_OK;
}

/* MelWeightMatrix-17: [dft_length // 2 + 1, num_mel_bins] of
 * output_datatype (default float). */
OsiStatus osi_op_mel_weight_matrix(OsiOpCtx *ctx) {
  OsiExprStore *s = osi_op_exprs(ctx);
  OsiExpr bins, dft;
  OsiStatus st = length_input(ctx, 0, "num_mel_bins", 0, &bins);
  if (st == OSI_OK) st = length_input(ctx, 1, "dft_length", 1, &dft);
  if (st != OSI_OK) return st;
  OsiType *y = osi_out_tensor(ctx, 0, (int32_t)osi_attr_int(ctx, "output_datatype", OSI_DT_FLOAT), 2);
  if (!y) return OSI_OK;
  OsiExpr *d = osi_type_dims_mut(y);
  d[0] = osi_expr_add(s, osi_expr_floordiv(s, dft, osi_expr_const(s, 2)), osi_expr_const(s, 1));
  d[1] = bins;
  return OSI_OK;
}
