/*
 * Sliding windows: the output sizes of convolutions, pools and transposed
 * convolutions (nn.c, image.c, quantization.c, contrib_matmul.c), with
 * their attributes checked. Every size is computed without wrapping: the
 * attribute arithmetic in checked int64 (a kernel extent or a pad sum
 * beyond int64 is an invalid model) and the dims as expressions, whose
 * folding gives an unknown dim on overflow.
 */
#ifndef OSI_OPS_WINDOW_H
#define OSI_OPS_WINDOW_H

#include "ops/ops.h"

typedef struct OsiSpatial {
  int n; /* number of spatial dims */
  int64_t kernel[OSI_MAX_RANK], stride[OSI_MAX_RANK], dilation[OSI_MAX_RANK];
  /* The kernel size as a dim: kernel[i] when known, else W's symbolic dim
   * (OSI_EXPR_UNKNOWN when neither); kernel[i] is -1 when not known. */
  OsiExpr kernel_dim[OSI_MAX_RANK];
  /* (kernel - 1) * dilation + 1 when the kernel is known, else -1. */
  int64_t extent[OSI_MAX_RANK];
  int64_t pad_begin[OSI_MAX_RANK], pad_end[OSI_MAX_RANK], pads[OSI_MAX_RANK]; /* pads = begin + end */
  const char *auto_pad;
  int same, valid; /* auto_pad is SAME_UPPER or SAME_LOWER; VALID */
  int ceil_mode;
} OsiSpatial;

/* Reads kernel_shape (or W's spatial dims), strides, dilations, pads,
 * auto_pad and ceil_mode for n spatial dims. INVALID_MODEL for lists of
 * the wrong length, kernels below 1, strides or dilations below 1,
 * negative pads, and extents or pad sums beyond int64. */
OsiStatus osi_read_spatial(OsiOpCtx *ctx, int n, const OsiType *w, OsiSpatial *sp);

/* Length of spatial dim i of a convolution or pooling window over `in`
 * (auto_pad, pads, dilation and ceil_mode of sp). */
OsiExpr osi_window_dim(OsiExprStore *s, OsiExpr in, const OsiSpatial *sp, int i);
/* osi_window_dim for a pool, as onnxruntime sizes it where that differs:
 * the span divided rounding toward zero (a window that overhangs its
 * input by less than a stride still gives one output), and SAME padding
 * computed for the undilated kernel. Written as simply as the node's
 * requirements so far allow. */
OsiExpr osi_pool_window_dim(OsiOpCtx *ctx, OsiExpr in, const OsiSpatial *sp, int i);
/* The dilated kernel extent (kernel - 1) * dilation + 1 of dim i, as a dim. */
OsiExpr osi_window_extent(OsiExprStore *s, const OsiSpatial *sp, int i);
/* Which rule a window's input size follows (osi_window_require_fit). */
typedef enum OsiWindowKind {
  OSI_WINDOW_POOL,  /* onnxruntime's pools: no output size below 0; n >= 1 unless the batch is empty */
  OSI_WINDOW_CONV,  /* its convolutions: at least one output; n >= 1 with SAME padding */
  OSI_WINDOW_FLOOR  /* the floor form's fit (osi_window_out) */
} OsiWindowKind;
/* Requires the input of the window of spatial dim i (dim d of input x_in)
 * to be one onnxruntime runs, by `kind`; a constant breaking it fails the
 * node, a symbolic one gets the requirement. */
OsiStatus osi_window_require_fit(OsiOpCtx *ctx, int x_in, int d, const OsiSpatial *sp, int i, OsiWindowKind kind);

/* onnxruntime's pools (windowed and global) refuse an input with an empty
 * dim unless the batch itself is empty. */
OsiStatus osi_refuse_empty_pool_input(OsiOpCtx *ctx, const OsiType *x);

/* Output 0 = [N, channels, O1..On] of a convolution (weights input w_in:
 * channels = W[0], with X's channels, W's rank, kernel_shape and the
 * bias checked against W) or, with w_in < 0, a pooling window (channels =
 * X[1]). b_in: the bias input of a convolution, -1 when it has none. */
OsiStatus osi_conv_out(OsiOpCtx *ctx, int x_in, int w_in, int b_in, int32_t dtype);

/* Length of a transposed convolution's output along one spatial dim:
 * stride * (in - 1) + output_padding + extent - pads (pads a dim: it may
 * be a runtime input's content). Unknown when any part is. */
OsiExpr osi_transpose_window_dim(OsiExprStore *s, OsiExpr in, int64_t stride, OsiExpr extent,
                                 int64_t output_padding, OsiExpr pads);

/* Requires a transposed window's output stride * (in - 1) + extra to be
 * at least `least` (1 for ConvTranspose, whose empty output onnxruntime
 * refuses; 0 for MaxUnpool), in = dim d of input x_in: a constant below
 * fails the node, a symbolic in gets the requirement it needs (in >= L). */
OsiStatus osi_transpose_window_require(OsiOpCtx *ctx, int x_in, int d, int64_t stride, int64_t extra, int64_t least);

/* Length of a window sliding over `in` with explicit padding `pads`
 * (begin + end): floor((in + pads - ((kernel - 1) * dilation + 1)) / stride)
 * + 1, with ceil instead of floor when ceil_mode. OSI_EXPR_UNKNOWN when in
 * is unknown, kernel < 0 (not known) or the arithmetic leaves int64. */
OsiExpr osi_window_out(OsiExprStore *s, OsiExpr in, int64_t kernel, int64_t stride,
                       int64_t dilation, int64_t pads, int ceil_mode);

#endif
