#include "ops/window.h"

#include <stdio.h>
#include <string.h>

#include "ops/helpers.h"

/* (kernel - 1) * dilation + 1, 0 when it leaves int64 (kernel, dilation >= 1). */
static int64_t checked_extent(int64_t kernel, int64_t dilation) {
  int64_t e;
  if (__builtin_mul_overflow(kernel - 1, dilation, &e) || __builtin_add_overflow(e, 1, &e)) return 0;
  return e;
}

OsiExpr osi_window_out(OsiExprStore *s, OsiExpr in, int64_t kernel, int64_t stride,
                       int64_t dilation, int64_t pads, int ceil_mode) {
  if (in == OSI_EXPR_UNKNOWN || kernel < 1 || stride <= 0 || dilation <= 0) return OSI_EXPR_UNKNOWN;
  int64_t extent = checked_extent(kernel, dilation), shift;
  if (extent == 0 || __builtin_sub_overflow(pads, extent, &shift)) return OSI_EXPR_UNKNOWN;
  int64_t c, num;
  if (!ceil_mode && osi_expr_is_const(s, in, &c)) {
    /* onnxruntime divides toward zero: a window a little longer than its
     * input still gives 0 or 1 outputs where floor would give -1 or 0. */
    if (__builtin_add_overflow(c, shift, &num) || num / stride == INT64_MAX) return OSI_EXPR_UNKNOWN;
    return osi_expr_const(s, num / stride + 1);
  }
  /* Stride 1 (most windows): in + shift + 1, in one sum (shift < INT64_MAX). */
  if (stride == 1) return osi_expr_add(s, in, osi_expr_const(s, shift + 1));
  OsiExpr span = osi_expr_add(s, in, osi_expr_const(s, shift));
  OsiExpr st = osi_expr_const(s, stride);
  OsiExpr steps = ceil_mode ? osi_expr_ceildiv(s, span, st) : osi_expr_floordiv(s, span, st);
  return osi_expr_add(s, steps, osi_expr_const(s, 1));
}

/* Reads an ints attribute of n entries (default `dflt` each); -1 when it has another length. */
static int read_ints(OsiOpCtx *ctx, const char *name, int n, int64_t dflt, int64_t *out) {
  const int64_t *v;
  int k = osi_attr_ints(ctx, name, &v);
  if (k >= 0 && k != n) return -1;
  for (int i = 0; i < n; i++) out[i] = k == n ? v[i] : dflt;
  return 0;
}

OsiStatus osi_read_spatial(OsiOpCtx *ctx, int n, const OsiType *w, OsiSpatial *sp) {
  OsiExprStore *s = osi_op_exprs(ctx);
  const int64_t *v;
  /* Only dims 0..n-1 are set: the whole struct is 4 KB (OSI_MAX_RANK
   * dims), and clearing it cost a convolution more than its checks. */
  sp->n = n;
  sp->auto_pad = "NOTSET";
  sp->ceil_mode = sp->same = sp->valid = 0;
  int nk = osi_attr_ints(ctx, "kernel_shape", &v);
  if (nk >= 0 && nk != n)
    return osi_op_fail(ctx, OSI_ERR_INVALID_MODEL, "kernel_shape has %d entries for %d spatial dims", nk, n);
  for (int i = 0; i < n; i++) {
    sp->kernel_dim[i] = OSI_EXPR_UNKNOWN;
    if (nk == n) sp->kernel[i] = v[i];
    else if (w && w->rank == n + 2 && osi_expr_is_const(s, w->dims[i + 2], &sp->kernel[i])) ;
    else sp->kernel[i] = -1;
    if (nk == n && v[i] < 1)
      return osi_op_fail(ctx, OSI_ERR_INVALID_MODEL, "attribute 'kernel_shape' has %lld at spatial dim %d; kernel sizes are at least 1",
                         (long long)v[i], i);
    if (sp->kernel[i] == 0)
      return osi_op_fail(ctx, OSI_ERR_SHAPE_MISMATCH, "the kernel (spatial dim %d of W) has size 0", i);
    if (sp->kernel[i] >= 0) sp->kernel_dim[i] = osi_expr_const(s, sp->kernel[i]);
    else if (nk < 0 && w && w->rank == n + 2) sp->kernel_dim[i] = w->dims[i + 2];
  }
  if (read_ints(ctx, "strides", n, 1, sp->stride) < 0)
    return osi_op_fail(ctx, OSI_ERR_INVALID_MODEL, "attribute 'strides' has %d entries; expected %d (one per spatial dim)",
                       osi_attr_ints(ctx, "strides", &v), n);
  if (read_ints(ctx, "dilations", n, 1, sp->dilation) < 0)
    return osi_op_fail(ctx, OSI_ERR_INVALID_MODEL, "attribute 'dilations' has %d entries; expected %d (one per spatial dim)",
                       osi_attr_ints(ctx, "dilations", &v), n);
  int np = osi_attr_ints(ctx, "pads", &v);
  if (np >= 0 && np != 2 * n)
    return osi_op_fail(ctx, OSI_ERR_INVALID_MODEL, "attribute 'pads' has %d entries; expected %d (begin and end per spatial dim)", np, 2 * n);
  for (int i = 0; i < n; i++) {
    sp->pad_begin[i] = np == 2 * n ? v[i] : 0;
    sp->pad_end[i] = np == 2 * n ? v[i + n] : 0;
    if (sp->stride[i] <= 0 || sp->dilation[i] <= 0)
      return osi_op_fail(ctx, OSI_ERR_INVALID_MODEL,
                         "attributes 'strides' and 'dilations' must be positive (spatial dim %d has stride %lld, dilation %lld)",
                         i, (long long)sp->stride[i], (long long)sp->dilation[i]);
    if (sp->pad_begin[i] < 0 || sp->pad_end[i] < 0)
      return osi_op_fail(ctx, OSI_ERR_INVALID_MODEL, "attribute 'pads' has %lld at spatial dim %d; pads are at least 0",
                         (long long)(sp->pad_begin[i] < 0 ? sp->pad_begin[i] : sp->pad_end[i]), i);
    if (__builtin_add_overflow(sp->pad_begin[i], sp->pad_end[i], &sp->pads[i]))
      return osi_op_fail(ctx, OSI_ERR_INVALID_MODEL, "the pads of spatial dim %d add up beyond int64", i);
    sp->extent[i] = -1;
    if (sp->kernel[i] > 0 && !(sp->extent[i] = checked_extent(sp->kernel[i], sp->dilation[i])))
      return osi_op_fail(ctx, OSI_ERR_INVALID_MODEL,
                         "the dilated kernel of spatial dim %d, (%lld - 1) * %lld + 1, is beyond int64", i,
                         (long long)sp->kernel[i], (long long)sp->dilation[i]);
  }
  sp->auto_pad = osi_attr_str(ctx, "auto_pad", "NOTSET");
  sp->same = !strcmp(sp->auto_pad, "SAME_UPPER") || !strcmp(sp->auto_pad, "SAME_LOWER");
  sp->valid = !strcmp(sp->auto_pad, "VALID");
  sp->ceil_mode = (int)osi_attr_int(ctx, "ceil_mode", 0);
  return OSI_OK;
}

OsiExpr osi_window_extent(OsiExprStore *s, const OsiSpatial *sp, int i) {
  if (sp->extent[i] > 0) return osi_expr_const(s, sp->extent[i]);
  OsiExpr k = sp->kernel_dim[i];
  if (k == OSI_EXPR_UNKNOWN) return OSI_EXPR_UNKNOWN;
  OsiExpr one = osi_expr_const(s, 1);
  return osi_expr_add(s, osi_expr_mul(s, osi_expr_sub(s, k, one), osi_expr_const(s, sp->dilation[i])), one);
}

OsiExpr osi_window_dim(OsiExprStore *s, OsiExpr in, const OsiSpatial *sp, int i) {
  if (in == OSI_EXPR_UNKNOWN) return OSI_EXPR_UNKNOWN;
  if (sp->same) return osi_expr_ceildiv(s, in, osi_expr_const(s, sp->stride[i]));
  int valid = sp->valid;
  int64_t pads = valid ? 0 : sp->pads[i];
  if (sp->kernel[i] < 0) {
    /* A symbolic kernel (W's dim): the floor formula still holds. */
    OsiExpr extent = osi_window_extent(s, sp, i);
    if (sp->ceil_mode || extent == OSI_EXPR_UNKNOWN) return OSI_EXPR_UNKNOWN;
    OsiExpr span = osi_expr_sub(s, osi_expr_add(s, in, osi_expr_const(s, pads)), extent);
    return osi_expr_add(s, osi_expr_floordiv(s, span, osi_expr_const(s, sp->stride[i])),
                        osi_expr_const(s, 1));
  }
  OsiExpr out = osi_window_out(s, in, sp->kernel[i], sp->stride[i], sp->dilation[i], pads, sp->ceil_mode);
  if (sp->ceil_mode && out != OSI_EXPR_UNKNOWN) {
    /* A last window that would start inside the end padding is dropped
     * (out - 1 when (out - 1) * stride >= in + pad_begin). With an end pad
     * shorter than the dilated kernel at most that one window starts past
     * in + pad_begin, so the count is exactly
     * Min(out, CeilDiv(in + pad_begin, stride)). */
    int64_t pad_begin = valid ? 0 : sp->pad_begin[i], pad_end = valid ? 0 : sp->pad_end[i];
    if (pad_end >= sp->extent[i]) return OSI_EXPR_UNKNOWN;
    OsiExpr starts = osi_expr_ceildiv(s, osi_expr_add(s, in, osi_expr_const(s, pad_begin)),
                                      osi_expr_const(s, sp->stride[i]));
    out = osi_expr_min(s, out, starts);
  }
  return out;
}

/* x / stride rounded toward zero (stride >= 1), plus 1, as onnxruntime
 * counts a pool's windows over a span x: x // stride + 1 where x >= 0,
 * CeilDiv(x, stride) + 1 below: Max((x + stride) // stride,
 * Min(CeilDiv(x + stride, stride), 1)), Max((x + stride) // stride, 1)
 * where x > -stride is known (known 1), (x + stride) // stride where x >=
 * 0 is (known 2). The facts decide the Min and the Max later where they
 * can (infer/facts.h); this is for what they know of the input but not of
 * the output's expression. */
static OsiExpr trunc_div_plus_one(OsiExprStore *s, OsiExpr x, int64_t stride, int known) {
  OsiExpr one = osi_expr_const(s, 1);
  if (stride == 1) return osi_expr_add(s, x, one);
  OsiExpr st = osi_expr_const(s, stride), up = osi_expr_add(s, x, st), steps = osi_expr_floordiv(s, up, st);
  if (known == 2) return steps;
  return osi_expr_max(s, steps, known == 1 ? one : osi_expr_min(s, osi_expr_ceildiv(s, up, st), one));
}

/* What the requirements so far say of a pool's span x = in + shift: 2
 * when x >= 0 (the window fits), 1 when x > -stride, else 0. */
static int span_known(OsiOpCtx *ctx, OsiExpr in, int64_t shift, int64_t stride) {
  OsiExprStore *s = osi_op_exprs(ctx);
  int64_t least;
  if (__builtin_sub_overflow(0, shift, &least)) return 0;
  if (osi_op_known_le(ctx, osi_expr_const(s, least), in)) return 2;
  return stride > 1 && !__builtin_sub_overflow(least, stride - 1, &least) && osi_op_known_le(ctx, osi_expr_const(s, least), in);
}

OsiExpr osi_pool_window_dim(OsiOpCtx *ctx, OsiExpr in, const OsiSpatial *sp, int i) {
  OsiExprStore *s = osi_op_exprs(ctx);
  int64_t c, k = sp->kernel[i], stride = sp->stride[i], shift, dk;
  if (in == OSI_EXPR_UNKNOWN || k < 1) return osi_window_dim(s, in, sp, i);
  if (sp->same) {
    /* onnxruntime pads a SAME pool for the undilated kernel, (CeilDiv(in,
     * stride) - 1) * stride + kernel - in, and then slides the dilated
     * one: the span is (CeilDiv(in, stride) - 1) * stride - (kernel - 1)
     * * (dilation - 1); with dilation 1 the output is CeilDiv(in, stride). */
    if (sp->dilation[i] == 1) return osi_window_dim(s, in, sp, i);
    if (__builtin_mul_overflow(k - 1, sp->dilation[i] - 1, &dk) || __builtin_add_overflow(dk, stride, &shift))
      return OSI_EXPR_UNKNOWN;
    OsiExpr st = osi_expr_const(s, stride);
    OsiExpr span = osi_expr_sub(s, osi_expr_mul(s, osi_expr_ceildiv(s, in, st), st), osi_expr_const(s, shift));
    if (!sp->ceil_mode) return trunc_div_plus_one(s, span, stride, 0);
    return osi_expr_add(s, osi_expr_ceildiv(s, span, st), osi_expr_const(s, 1));
  }
  if (sp->ceil_mode || osi_expr_is_const(s, in, &c)) return osi_window_dim(s, in, sp, i);
  int64_t pads = sp->valid ? 0 : sp->pads[i];
  if (__builtin_sub_overflow(pads, sp->extent[i], &shift)) return OSI_EXPR_UNKNOWN;
  OsiExpr span = osi_expr_add(s, in, osi_expr_const(s, shift));
  return trunc_div_plus_one(s, span, stride, span_known(ctx, in, shift, stride));
}

/* The requirements' rule: "<op> window along spatial dim <i>". */
#define WINDOW_RULE " window along spatial dim "

/* A symbolic spatial dim n of a window's input: onnxruntime refuses n = 0
 * for a convolution with SAME padding, and for a pool unless the batch is
 * empty too (an explicitly padded convolution at n = 0 is the window
 * rule's: it runs where the pads hold the kernel). Nothing when the
 * requirements so far already give n >= 1. */
static OsiStatus require_nonempty(OsiOpCtx *ctx, int x_in, const OsiType *x, int d, const OsiSpatial *sp, int i,
                                  OsiWindowKind kind) {
  OsiExprStore *s = osi_op_exprs(ctx);
  OsiExpr n = x->dims[d], one = osi_expr_const(s, 1), least;
  int64_t c;
  if (n == OSI_EXPR_UNKNOWN || (osi_expr_is_const(s, n, &c) && c >= 1)) return OSI_OK;
  if (kind == OSI_WINDOW_CONV && !sp->same) return OSI_OK;
  if (kind == OSI_WINDOW_FLOOR) return OSI_OK;
  if (kind == OSI_WINDOW_CONV) least = one;
  else if (x->dims[0] == OSI_EXPR_UNKNOWN) return OSI_OK; /* n = 0 may be an empty batch's */
  else least = osi_expr_min(s, x->dims[0], one);
  if (osi_op_known_le(ctx, one, n)) return OSI_OK;
  return osi_op_require_le_in(ctx, osi_op_type(ctx), WINDOW_RULE, i, least,
                              OSI_WHAT(kind == OSI_WINDOW_CONV ? "1" : "1 (0 in an empty batch)"), n, OSI_DIM(x_in, d));
}

static OsiStatus require_window(OsiOpCtx *ctx, int x_in, const OsiType *x, int d, const OsiSpatial *sp, int i,
                                OsiWindowKind kind);

OsiStatus osi_window_require_fit(OsiOpCtx *ctx, int x_in, int d, const OsiSpatial *sp, int i, OsiWindowKind kind) {
  const OsiType *x = osi_in_ranked(ctx, x_in);
  if (!x || d >= x->rank) return OSI_OK;
  /* The window's bound first: n >= 1 is then often one of its facts. */
  OsiStatus st = require_window(ctx, x_in, x, d, sp, i, kind);
  return st == OSI_OK ? require_nonempty(ctx, x_in, x, d, sp, i, kind) : st;
}

/* The least input onnxruntime runs a window of spatial dim i over. */
static OsiStatus require_window(OsiOpCtx *ctx, int x_in, const OsiType *x, int d, const OsiSpatial *sp, int i,
                                OsiWindowKind kind) {
  OsiExprStore *s = osi_op_exprs(ctx);
  if (sp->same && (kind != OSI_WINDOW_POOL || sp->dilation[i] == 1 || sp->kernel[i] < 1)) return OSI_OK;
  if (sp->same) {
    /* A dilated SAME pool (osi_pool_window_dim) gives no negative output
     * from CeilDiv(in, stride) >= m = CeilDiv(D - stride + 1, stride) on,
     * D = (kernel - 1) * (dilation - 1): in >= (m - 1) * stride + 1. */
    int64_t dk, stride = sp->stride[i], num, m, at_least;
    if (__builtin_mul_overflow(sp->kernel[i] - 1, sp->dilation[i] - 1, &dk) || __builtin_sub_overflow(dk, stride - 1, &num))
      return OSI_OK;
    m = num > 0 ? num / stride + (num % stride != 0) : 0;
    if (m <= 0 || __builtin_mul_overflow(m - 1, stride, &at_least) || __builtin_add_overflow(at_least, 1, &at_least))
      return OSI_OK;
    return osi_op_require_le_in(ctx, osi_op_type(ctx), WINDOW_RULE, i, osi_expr_const(s, at_least),
                                OSI_WHAT("the least input without a negative output"), x->dims[d], OSI_DIM(x_in, d));
  }
  OsiExpr extent = osi_window_extent(s, sp, i);
  if (extent == OSI_EXPR_UNKNOWN) return OSI_OK;
  /* The least input onnxruntime runs (measured on every mode: README
   * "Windows over tiny inputs"): a convolution's output,
   * (in + pads - extent) / stride + 1, must be at least 1: in >= extent -
   * pads (in >= extent for VALID); a pool's, rounded toward zero (or up
   * with ceil_mode), must not be negative: (in + pads - extent) / stride >
   * -2, in >= extent - pads - 2 * stride + 1 (osi_pool_window_dim gives
   * the sizes in between, where the window overhangs its input).
   * OSI_WINDOW_FLOOR (DeformConv): the floor form's own fit, in >= extent
   * - pads (one less at stride 1), where floor agrees with rounding toward
   * zero. */
  int valid = sp->valid;
  int64_t pads = valid ? 0 : sp->pads[i], slack, strides, c;
  int floor_form = kind == OSI_WINDOW_FLOOR && !sp->ceil_mode && !osi_expr_is_const(s, x->dims[d], &c);
  if (kind == OSI_WINDOW_CONV) slack = pads;
  else if (floor_form) slack = sp->stride[i] == 1 && pads < INT64_MAX ? pads + 1 : pads;
  else if (__builtin_mul_overflow(sp->stride[i], 2, &strides) || __builtin_add_overflow(pads, strides - 1, &slack))
    return OSI_OK;
  /* extent - slack, as osi_expr_sub makes it of two constants */
  int64_t at_least;
  OsiExpr least = sp->extent[i] <= 0 ? osi_expr_sub(s, extent, osi_expr_const(s, slack))
                  : __builtin_sub_overflow(sp->extent[i], slack, &at_least) || osi_expr_work_exhausted(s)
                      ? OSI_EXPR_UNKNOWN
                      : osi_expr_const(s, at_least);
  const char *what = kind == OSI_WINDOW_CONV ? (valid ? "the dilated kernel" : "the dilated kernel less the pads")
                   : floor_form ? "the dilated kernel less the pads"
                                : "the dilated kernel less the pads and 2 * stride - 1";
  return osi_op_require_le_in(ctx, osi_op_type(ctx), WINDOW_RULE, i, least, OSI_WHAT(what), x->dims[d], OSI_DIM(x_in, d));
}

/* Checks a convolution's X, W and bias against each other (onnxruntime's
 * checks: X and W of one rank, X's channels = W[1] * group, W[0] a
 * multiple of group, kernel_shape = W's spatial dims, B = [W[0]]). */
static OsiStatus check_conv_inputs(OsiOpCtx *ctx, int x_in, int w_in, int b_in, const OsiType *x,
                                   const OsiType *w, int64_t *group) {
  OsiExprStore *s = osi_op_exprs(ctx);
  *group = osi_attr_int(ctx, "group", 1);
  if (*group < 1) return osi_op_fail(ctx, OSI_ERR_INVALID_MODEL, "attribute 'group' is %lld; expected at least 1", (long long)*group);
  if (!w) return OSI_OK;
  char xl[96], wl[96], what[200];
  if (w->rank != x->rank)
    return osi_op_fail(ctx, OSI_ERR_SHAPE_MISMATCH, "%s has rank %d where %s has rank %d; they must be equal",
                       osi_op_input_label(ctx, w_in, wl, sizeof wl), w->rank,
                       osi_op_input_label(ctx, x_in, xl, sizeof xl), x->rank);
  OsiExpr channels = osi_expr_mul(s, w->dims[1], osi_expr_const(s, *group));
  OsiStatus st = OSI_OK;
  if (channels != x->dims[1]) { /* (one expression: the requirement holds, its text is not needed) */
    snprintf(what, sizeof what, "dim 1 of %s times group %lld", osi_op_input_label(ctx, w_in, wl, sizeof wl), (long long)*group);
    st = osi_op_require_eq(ctx, "Conv channels", x->dims[1], OSI_DIM(x_in, 1), channels, OSI_WHAT(what));
    if (st != OSI_OK) return st;
  }
  int64_t m;
  if (osi_expr_is_const(s, w->dims[0], &m) && m % *group != 0)
    return osi_op_fail(ctx, OSI_ERR_SHAPE_MISMATCH, "Conv: the %lld output channels (dim 0 of %s) are not a multiple of group %lld",
                       (long long)m, osi_op_input_label(ctx, w_in, wl, sizeof wl), (long long)*group);
  const int64_t *k;
  int nk = osi_attr_ints(ctx, "kernel_shape", &k);
  for (int i = 0; i < nk && nk == w->rank - 2; i++) {
    st = osi_op_require_dim(ctx, "Conv kernel", w_in, i + 2, osi_expr_const(s, k[i]), OSI_WHAT("its entry in attribute 'kernel_shape'"));
    if (st != OSI_OK) return st;
  }
  if (b_in >= 0 && osi_in_present(ctx, b_in)) {
    st = osi_op_require_rank(ctx, b_in, 1, 1);
    if (st == OSI_OK) st = osi_op_require_dims_eq(ctx, "Conv bias", b_in, 0, w_in, 0);
  }
  return st;
}

OsiStatus osi_refuse_empty_pool_input(OsiOpCtx *ctx, const OsiType *x) {
  OsiExprStore *s = osi_op_exprs(ctx);
  int64_t n, c;
  if (!x || x->rank < 1 || !osi_expr_is_const(s, x->dims[0], &n) || n == 0) return OSI_OK;
  for (int i = 1; i < x->rank; i++)
    if (osi_expr_is_const(s, x->dims[i], &c) && c == 0)
      return osi_op_fail(ctx, OSI_ERR_SHAPE_MISMATCH, "%s: dim %d of the input is 0; onnxruntime's pools take an empty batch only",
                         osi_op_type(ctx), i);
  return OSI_OK;
}

OsiStatus osi_conv_out(OsiOpCtx *ctx, int x_in, int w_in, int b_in, int32_t dtype) {
  OsiExprStore *s = osi_op_exprs(ctx);
  int is_conv = w_in >= 0;
  const OsiType *x = osi_in_ranked(ctx, x_in), *w = is_conv ? osi_in_ranked(ctx, w_in) : NULL;
  if (!x) {
    osi_out_tensor(ctx, 0, dtype, w ? w->rank : -1);
    return OSI_OK;
  }
  if (x->rank < 2)
    return osi_op_fail(ctx, OSI_ERR_SHAPE_MISMATCH, "input 'X' has rank %d; expected at least 2 ([N, C, ...])", x->rank);
  int n = x->rank - 2;
  int64_t group = 1, c;
  /* onnxruntime refuses a convolution over an empty spatial dim, unless
   * its explicit pads hold the dilated kernel (checked once they are
   * read), and a pool over any empty dim but the batch. */
  int empty = 0;
  for (int i = 2; is_conv && i < x->rank && !empty; i++)
    if (osi_expr_is_const(s, x->dims[i], &c) && c == 0) empty = i;
  if (empty && strcmp(osi_attr_str(ctx, "auto_pad", "NOTSET"), "NOTSET"))
    return osi_op_fail(ctx, OSI_ERR_SHAPE_MISMATCH, "%s: spatial dim %d of the input is 0; onnxruntime needs it positive",
                       osi_op_type(ctx), empty);
  OsiStatus st = is_conv ? check_conv_inputs(ctx, x_in, w_in, b_in, x, w, &group) : osi_refuse_empty_pool_input(ctx, x);
  OsiSpatial sp;
  if (st == OSI_OK) st = osi_read_spatial(ctx, n, w, &sp);
  for (int i = 2; st == OSI_OK && empty && i < x->rank; i++)
    if (osi_expr_is_const(s, x->dims[i], &c) && c == 0 && (sp.extent[i - 2] < 0 || sp.pads[i - 2] < sp.extent[i - 2]))
      return osi_op_fail(ctx, OSI_ERR_SHAPE_MISMATCH, "%s: spatial dim %d of the input is 0; onnxruntime needs it positive",
                         osi_op_type(ctx), i);
  for (int i = 0; i < n && st == OSI_OK; i++)
    st = osi_window_require_fit(ctx, x_in, i + 2, &sp, i, is_conv ? OSI_WINDOW_CONV : OSI_WINDOW_POOL);
  if (st != OSI_OK) return st;
  OsiType *y = osi_out_tensor(ctx, 0, dtype, x->rank);
  if (!y) return OSI_OK;
  OsiExpr *d = osi_type_dims_mut(y);
  d[0] = x->dims[0];
  d[1] = is_conv ? (w ? w->dims[0] : OSI_EXPR_UNKNOWN) : x->dims[1];
  for (int i = 0; i < n; i++)
    d[i + 2] = is_conv ? osi_window_dim(s, x->dims[i + 2], &sp, i) : osi_pool_window_dim(ctx, x->dims[i + 2], &sp, i);
  return OSI_OK;
}

OsiExpr osi_transpose_window_dim(OsiExprStore *s, OsiExpr in, int64_t stride, OsiExpr extent,
                                 int64_t output_padding, OsiExpr pads) {
  if (in == OSI_EXPR_UNKNOWN || extent == OSI_EXPR_UNKNOWN || pads == OSI_EXPR_UNKNOWN) return OSI_EXPR_UNKNOWN;
  OsiExpr grown = osi_expr_mul(s, osi_expr_sub(s, in, osi_expr_const(s, 1)), osi_expr_const(s, stride));
  OsiExpr out = osi_expr_add(s, osi_expr_add(s, grown, extent), osi_expr_const(s, output_padding));
  return osi_expr_sub(s, out, pads);
}

OsiStatus osi_transpose_window_require(OsiOpCtx *ctx, int x_in, int d, int64_t stride, int64_t extra, int64_t least) {
  OsiExprStore *s = osi_op_exprs(ctx);
  const OsiType *x = osi_in_ranked(ctx, x_in);
  if (!x || d >= x->rank || x->dims[d] == OSI_EXPR_UNKNOWN) return OSI_OK;
  /* stride * (in - 1) + extra >= least  <=>  in >= 1 + ceil((least - extra) / stride). */
  __int128 need = (__int128)least - extra, at_least;
  at_least = 1 + (need > 0 ? (need + stride - 1) / stride : -((-need) / stride));
  if (at_least <= 0) return OSI_OK;
  char rule[96];
  snprintf(rule, sizeof rule, "%s output along spatial dim %d", osi_op_type(ctx), d - 2);
  if (at_least > INT64_MAX)
    return osi_op_fail(ctx, OSI_ERR_INVALID_MODEL, "%s: the pads leave no input size with an output", rule);
  return osi_op_require_le(ctx, rule, osi_expr_const(s, (int64_t)at_least),
                           OSI_WHAT(least ? "the least input with a nonempty output" : "the least input the pads allow"),
                           x->dims[d], OSI_DIM(x_in, d));
}
