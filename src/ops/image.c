/*
 * Resampling, region and detection operators: Resize, Upsample, GridSample,
 * AffineGrid, Col2Im, RoiAlign, MaxRoiPool, MaxUnpool, DeformConv,
 * ImageDecoder, NonMaxSuppression. Sizes are formulas over the input dims
 * or the content of size inputs; only decoded images and selected boxes
 * get fresh (data-dependent) symbols.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "ops/helpers.h"
#include "ops/window.h"

/* Section - Resize and Upsample */

/* The size of a dim resized by `scale` (a float element): onnxruntime
 * computes static_cast<int64_t>(scale * dim) in float32, the int64 dim
 * converted to float32: Trunc(scale*dim), a float32 expression (expr.h)
 * that reduces to 2*h, h//2, ... for powers of two. Constant dim and
 * scale: the spec's reference computes floor(dim * scale) in double; where
 * the two disagree the size is ambiguous and stays unknown. */
static OsiExpr scaled_dim(OsiExprStore *s, OsiExpr dim, OsiExpr scale) {
  int64_t c, got;
  double sc;
  if (dim == OSI_EXPR_UNKNOWN || !osi_expr_is_float(s, scale)) return OSI_EXPR_UNKNOWN;
  int known = osi_expr_is_fconst(s, scale, &sc);
  if (known && !(sc > 0 && sc <= 1e9)) return OSI_EXPR_UNKNOWN;
  OsiExpr r = osi_expr_ftoint(s, osi_expr_fmul(s, scale, osi_expr_to_float(s, dim)));
  if (known && osi_expr_is_const(s, dim, &c)) {
    double pd = (double)c * sc;
    if (!(pd < 9e15) || !osi_expr_is_const(s, r, &got) || (int64_t)pd != got) return OSI_EXPR_UNKNOWN;
  }
  return r;
}

/* 1 when float element e is the number v. */
static int fconst_is(OsiExprStore *s, OsiExpr e, double v) {
  double d;
  return osi_expr_is_fconst(s, e, &d) && d == v;
}

/* 1 when optional input i is provably absent: omitted, or (Resize 11+
 * convention) an empty tensor. */
static int param_absent(const OsiOpCtx *ctx, int i) {
  if (!osi_in_present(ctx, i)) return 1;
  const OsiType *t = osi_in_ranked(ctx, i);
  int64_t n;
  if (t && t->value && t->value->count == 0) return 1;
  return t && t->rank == 1 && osi_expr_is_const(osi_op_exprs((OsiOpCtx *)ctx), t->dims[0], &n) && n == 0;
}

/* Number of entries of 1-D input i, or -1 when unknown. */
static int param_count(const OsiOpCtx *ctx, int i) {
  return osi_in_ranked(ctx, i) ? osi_in_length(ctx, i) : -1;
}

/* keep_aspect_ratio_policy not_larger / not_smaller (Resize 18+): one scale,
 * the min / max of sizes[i] / in[axes[i]], then round_half_up(scale * in)
 * on every resized axis. Needs constant sizes and dims; computed exactly,
 * in float and in double, and left unknown where they disagree. */
static void keep_aspect(OsiExprStore *s, const OsiType *x, OsiExpr *d, const int *axes, int n,
                        const OsiExpr *sizes, int larger) {
  int64_t sz[OSI_MAX_RANK], in[OSI_MAX_RANK];
  int best = 0;
  float sf = 0;
  double sd = 0;
  for (int i = 0; i < n; i++) {
    if (!osi_expr_is_const(s, sizes[i], &sz[i]) || !osi_expr_is_const(s, x->dims[axes[i]], &in[i]) ||
        in[i] <= 0 || sz[i] < 0 || sz[i] > (1 << 30) || in[i] > (1 << 30))
      return;
    float fi = (float)sz[i] / (float)in[i];
    double di = (double)sz[i] / (double)in[i];
    int exact_better = larger ? sz[i] * in[best] > sz[best] * in[i] : sz[i] * in[best] < sz[best] * in[i];
    if (i == 0 || (larger ? fi > sf : fi < sf)) sf = fi;
    if (i == 0 || (larger ? di > sd : di < sd)) sd = di;
    if (exact_better) best = i;
  }
  for (int i = 0; i < n; i++) {
    int64_t exact = (2 * sz[best] * in[i] + in[best]) / (2 * in[best]);
    float pf = sf * (float)in[i] + 0.5f;
    double pd = sd * (double)in[i] + 0.5;
    if ((int64_t)pf == exact && (int64_t)pd == exact) d[axes[i]] = osi_expr_const(s, exact);
  }
}

/* Which of Resize's scales (input si) and sizes (input zi, -1 before opset
 * 11) applies: 1 sizes, 0 scales, -1 unknown. An input is taken when it is
 * known to be non-empty or the other one is provably absent. */
static int resize_pick(OsiOpCtx *ctx, int si, int zi, int *n) {
  int scales_n = param_absent(ctx, si) ? 0 : param_count(ctx, si);
  int sizes_n = zi < 0 || param_absent(ctx, zi) ? 0 : param_count(ctx, zi);
  if (scales_n > 0 && sizes_n > 0) return -2;
  if (sizes_n > 0 || (sizes_n < 0 && scales_n == 0)) {
    *n = sizes_n;
    return 1;
  }
  if (scales_n > 0 || (scales_n < 0 && sizes_n == 0)) {
    *n = scales_n;
    return 0;
  }
  *n = -1;
  return scales_n == 0 && sizes_n == 0 ? -3 : -1;
}

/* Fills the resized dims from scales: floor(dim * scale); with
 * tf_crop_and_resize the spec also multiplies by (roi_end - roi_start),
 * which the reference ignores, so only roi [0, 1] axes are sized. */
static void resize_by_scales(OsiOpCtx *ctx, const OsiType *x, OsiExpr *d, const int *axes, int n,
                             const OsiExpr *scales) {
  OsiExprStore *s = osi_op_exprs(ctx);
  const OsiValue *roi = osi_in_present(ctx, 1) && osi_op_opset(ctx) >= 11 ? osi_in_value(ctx, 1) : NULL;
  int crop = !strcmp(osi_attr_str(ctx, "coordinate_transformation_mode", ""), "tf_crop_and_resize");
  for (int i = 0; i < n; i++) {
    if (crop && (!roi || !roi->floats || roi->count != 2 * n || !fconst_is(s, roi->floats[i], 0.0) ||
                 !fconst_is(s, roi->floats[n + i], 1.0)))
      continue;
    d[axes[i]] = scaled_dim(s, x ? x->dims[axes[i]] : OSI_EXPR_UNKNOWN, scales[i]);
  }
}

/* Resize. Opset 10: (X, scales). 11, 13: (X, roi, scales, sizes), exactly
 * one of scales / sizes non-empty (an omitted or empty tensor is absent).
 * 18: `axes` restricts scales/sizes to some dims, keep_aspect_ratio_policy
 * reinterprets sizes. 19: only new sampling modes. Output: sizes, or
 * floor(dim * scale); dims outside axes unchanged. */
OsiStatus osi_op_resize(OsiOpCtx *ctx) {
  int64_t opset = osi_op_opset(ctx);
  const OsiType *x = osi_in_ranked(ctx, 0);
  int si = opset < 11 ? 1 : 2, zi = opset < 11 ? -1 : 3, n;
  int pick = resize_pick(ctx, si, zi, &n);
  if (pick == -2) return osi_op_fail(ctx, OSI_ERR_INVALID_MODEL, "Resize has both scales and sizes");
  if (pick == -3) return osi_op_fail(ctx, OSI_ERR_INVALID_MODEL, "Resize needs scales or sizes");
  const int64_t *ax;
  int n_axes = opset >= 18 ? osi_attr_ints(ctx, "axes", &ax) : -1;
  int rank = x ? x->rank : n_axes < 0 ? n : -1;
  OsiType *y = osi_out_tensor(ctx, 0, osi_in_dtype(ctx, 0), rank);
  if (!y || rank < 0) return OSI_OK;
  OsiExpr *d = osi_type_dims_mut(y);
  int axes[OSI_MAX_RANK], k = n_axes < 0 ? rank : n_axes;
  if (k > rank || (n >= 0 && n != k))
    return osi_op_fail(ctx, OSI_ERR_INVALID_MODEL, "Resize scales/sizes have %d entries for %d axes", n, k);
  for (int i = 0; i < rank; i++) d[i] = x ? x->dims[i] : OSI_EXPR_UNKNOWN;
  for (int i = 0; i < k; i++) {
    if (n_axes < 0) axes[i] = i;
    else if (!osi_norm_axis(ax[i], rank, &axes[i]))
      return osi_op_fail(ctx, OSI_ERR_INVALID_MODEL, "Resize axes[%d] is out of range for rank %d", i, rank);
    d[axes[i]] = OSI_EXPR_UNKNOWN;
  }
  const OsiValue *v = pick >= 0 ? osi_in_value(ctx, pick ? zi : si) : NULL;
  if (!v || v->count != k) return OSI_OK;
  if (pick == 1 && v->ints) {
    OsiStatus st = osi_require_sizes(ctx, "the sizes input", k, v->ints);
    if (st != OSI_OK) return st;
  }
  for (int i = 0; pick == 0 && i < k; i++) {
    double sc;
    const OsiExpr *e = v->floats ? v->floats : v->ints;
    if (e && osi_expr_is_fconst(osi_op_exprs(ctx), e[i], &sc) && !(sc > 0))
      return osi_op_fail(ctx, OSI_ERR_INVALID_MODEL, "Resize: scale %g at entry %d; scales are greater than 0", sc, i);
  }
  const char *policy = opset >= 18 ? osi_attr_str(ctx, "keep_aspect_ratio_policy", "stretch") : "stretch";
  if (pick == 0 && v->floats) {
    resize_by_scales(ctx, x, d, axes, k, v->floats);
  } else if (pick == 1 && v->ints && !strcmp(policy, "stretch")) {
    /* onnxruntime derives a scale size / in per axis: it refuses a size 0
     * for a nonempty axis (scale 0) and a nonzero size for an empty one. */
    for (int i = 0; i < k; i++) {
      int64_t in, out;
      if (x && osi_expr_is_const(osi_op_exprs(ctx), x->dims[axes[i]], &in) &&
          osi_expr_is_const(osi_op_exprs(ctx), v->ints[i], &out) && (in == 0) != (out == 0))
        return osi_op_fail(ctx, OSI_ERR_SHAPE_MISMATCH, "Resize: axis %d of X has %lld elements, the sizes input asks for %lld",
                           axes[i], (long long)in, (long long)out);
    }
    for (int i = 0; i < k; i++) d[axes[i]] = v->ints[i];
  } else if (pick == 1 && v->ints && x) {
    if (strcmp(policy, "not_larger") && strcmp(policy, "not_smaller"))
      return osi_op_fail(ctx, OSI_ERR_INVALID_MODEL, "unknown keep_aspect_ratio_policy '%s'", policy);
    keep_aspect(osi_op_exprs(ctx), x, d, axes, k, v->ints, !strcmp(policy, "not_smaller"));
  }
  return OSI_OK;
}

/* Upsample: floor(dim * scale) per dim. Opset 1 (experimental): 4-D with
 * height_scale / width_scale; 7: `scales` attribute; 9, 10: scales input. */
OsiStatus osi_op_upsample(OsiOpCtx *ctx) {
  int64_t opset = osi_op_opset(ctx);
  const OsiType *x = osi_in_ranked(ctx, 0);
  OsiExprStore *s = osi_op_exprs(ctx);
  /* Attribute scales are floats (float32 in the runtime). */
  OsiExpr buf[OSI_MAX_RANK];
  const OsiExpr *scales = buf;
  int n = 4;
  buf[0] = buf[1] = osi_expr_fconst(s, 1);
  buf[2] = osi_expr_fconst(s, (float)osi_attr_float(ctx, "height_scale", 0));
  buf[3] = osi_expr_fconst(s, (float)osi_attr_float(ctx, "width_scale", 0));
  if (opset >= 9) {
    const OsiValue *v = osi_in_value(ctx, 1);
    scales = v ? v->floats : NULL;
    n = scales ? (int)v->count : param_count(ctx, 1);
  } else if (opset >= 7) {
    const double *a;
    n = osi_attr_floats(ctx, "scales", &a);
    for (int i = 0; i < n && i < OSI_MAX_RANK; i++) buf[i] = osi_expr_fconst(s, (float)a[i]);
    if (n > OSI_MAX_RANK) scales = NULL;
  }
  int rank = x ? x->rank : n;
  OsiType *y = osi_out_tensor(ctx, 0, osi_in_dtype(ctx, 0), rank);
  if (!y || rank < 0) return OSI_OK;
  if (n >= 0 && n != rank)
    return osi_op_fail(ctx, OSI_ERR_INVALID_MODEL, "Upsample has %d scales for rank %d", n, rank);
  if (!scales) return OSI_OK;
  for (int i = 0; i < rank; i++)
    osi_type_dims_mut(y)[i] = scaled_dim(s, x ? x->dims[i] : OSI_EXPR_UNKNOWN, scales[i]);
  return OSI_OK;
}

/* Section - Sampling grids and column images */

/* GridSample(X, grid) (opset 16: 4-D only; 20: N-D): X (N, C, D1..Dr),
 * grid (N, D1_out..Dr_out, r) -> (N, C, D1_out..Dr_out), X's type. */
OsiStatus osi_op_grid_sample(OsiOpCtx *ctx) {
  OsiExprStore *s = osi_op_exprs(ctx);
  const OsiType *x = osi_in_ranked(ctx, 0), *g = osi_in_ranked(ctx, 1);
  int rank = x ? x->rank : g ? g->rank : -1;
  if (rank >= 0 && rank < 3)
    return osi_op_fail(ctx, OSI_ERR_SHAPE_MISMATCH, "GridSample inputs need rank >= 3 (got %d)", rank);
  if (osi_op_opset(ctx) < 20 && rank >= 0 && rank != 4)
    return osi_op_fail(ctx, OSI_ERR_SHAPE_MISMATCH, "GridSample before opset 20 takes 4-D inputs (got %d)", rank);
  if (x && g && g->rank != x->rank)
    return osi_op_fail(ctx, OSI_ERR_SHAPE_MISMATCH, "grid rank %d differs from X rank %d", g->rank, x->rank);
  int64_t last;
  if (g && osi_expr_is_const(s, g->dims[rank - 1], &last) && last != rank - 2)
    return osi_op_fail(ctx, OSI_ERR_SHAPE_MISMATCH, "grid's last dim is %lld; expected %d",
                       (long long)last, rank - 2);
  OsiStatus st = osi_op_require_dims_eq(ctx, "GridSample batch", 1, 0, 0, 0);
  if (st != OSI_OK) return st;
  for (int i = 2; x && i < rank; i++) {
    int64_t c;
    if (osi_expr_is_const(s, x->dims[i], &c) && c == 0)
      return osi_op_fail(ctx, OSI_ERR_SHAPE_MISMATCH, "GridSample: spatial dim %d of X is 0; onnxruntime samples only a nonempty image", i);
  }
  OsiType *y = osi_out_tensor(ctx, 0, osi_in_dtype(ctx, 0), rank);
  if (!y || rank < 0) return OSI_OK;
  OsiExpr *d = osi_type_dims_mut(y);
  d[0] = x && x->dims[0] != OSI_EXPR_UNKNOWN ? x->dims[0] : g ? g->dims[0] : OSI_EXPR_UNKNOWN;
  d[1] = x ? x->dims[1] : OSI_EXPR_UNKNOWN;
  for (int i = 2; i < rank; i++) d[i] = g ? g->dims[i - 1] : OSI_EXPR_UNKNOWN;
  return OSI_OK;
}

/* AffineGrid(theta, size) (opset 20): theta (N, 2, 3) with size
 * (N, C, H, W) -> (N, H, W, 2); theta (N, 3, 4) with size (N, C, D, H, W)
 * -> (N, D, H, W, 3). Element type of theta. */
OsiStatus osi_op_affine_grid(OsiOpCtx *ctx) {
  OsiExprStore *s = osi_op_exprs(ctx);
  const OsiType *theta = osi_in_ranked(ctx, 0);
  const OsiExpr *size;
  int n = osi_in_exprs(ctx, 1, &size);
  int len = n >= 0 ? n : param_count(ctx, 1);
  int64_t t1;
  if (len < 0 && theta && theta->rank == 3 && osi_expr_is_const(s, theta->dims[1], &t1)) len = (int)t1 + 2;
  if (len >= 0 && len != 4 && len != 5)
    return osi_op_fail(ctx, OSI_ERR_INVALID_MODEL, "AffineGrid size has %d entries; expected 4 or 5", len);
  if (theta && theta->rank != 3)
    return osi_op_fail(ctx, OSI_ERR_SHAPE_MISMATCH, "AffineGrid theta must be 3-D (got rank %d)", theta->rank);
  if (theta && len >= 0 && osi_expr_is_const(s, theta->dims[1], &t1) && t1 != len - 2)
    return osi_op_fail(ctx, OSI_ERR_SHAPE_MISMATCH, "theta is for %lld-D grids but size has %d entries",
                       (long long)t1, len);
  if (theta && len >= 0) {
    OsiStatus st = osi_op_require_dim(ctx, "AffineGrid theta", 0, 2, osi_expr_const(s, len - 1),
                                      OSI_WHAT("the spatial rank plus 1"));
    if (st == OSI_OK && n >= 0)
      st = osi_op_require_dim(ctx, "AffineGrid theta", 0, 0, size[0], OSI_WHAT("size[0]"));
    if (st == OSI_OK && n >= 0) st = osi_require_sizes(ctx, "the size input", n, size);
    if (st != OSI_OK) return st;
  }
  OsiType *y = osi_out_tensor(ctx, 0, osi_in_dtype(ctx, 0), len);
  if (!y || len < 0) return OSI_OK;
  OsiExpr *d = osi_type_dims_mut(y);
  d[0] = n >= 0 && size[0] != OSI_EXPR_UNKNOWN ? size[0] : theta ? theta->dims[0] : OSI_EXPR_UNKNOWN;
  for (int i = 1; i < len - 1; i++) d[i] = n >= 0 ? size[i + 1] : OSI_EXPR_UNKNOWN;
  d[len - 1] = osi_expr_const(s, len - 2);
  return OSI_OK;
}

/* Col2Im(input, image_shape, block_shape) (opset 18): input
 * (N, C * prod(block_shape), L) -> (N, C, image_shape...). */
/* Col2Im's window attributes (dilations, pads, strides) with the block
 * shape as the kernel. */
static OsiStatus col2im_spatial(OsiOpCtx *ctx, int n, const int64_t *block, OsiSpatial *sp) {
  OsiStatus st = osi_read_spatial(ctx, n, NULL, sp);
  if (st != OSI_OK) return st;
  OsiExprStore *s = osi_op_exprs(ctx);
  for (int i = 0; i < n; i++) {
    int64_t e;
    sp->kernel[i] = block[i];
    sp->kernel_dim[i] = osi_expr_const(s, block[i]);
    if (__builtin_mul_overflow(block[i] - 1, sp->dilation[i], &e) || __builtin_add_overflow(e, 1, &e))
      return osi_op_fail(ctx, OSI_ERR_INVALID_MODEL, "Col2Im: the dilated block of dim %d is beyond int64", i);
    sp->extent[i] = e;
  }
  return OSI_OK;
}

OsiStatus osi_op_col2im(OsiOpCtx *ctx) {
  OsiExprStore *s = osi_op_exprs(ctx);
  const OsiType *x = osi_in_ranked(ctx, 0);
  const OsiExpr *image;
  int64_t block[OSI_MAX_RANK];
  int ni = osi_in_exprs(ctx, 1, &image), nb = osi_in_ints(ctx, 2, block, OSI_MAX_RANK);
  int n = ni >= 0 ? ni : nb >= 0 ? nb : param_count(ctx, 1) >= 0 ? param_count(ctx, 1) : param_count(ctx, 2);
  if (x && x->rank != 3)
    return osi_op_fail(ctx, OSI_ERR_SHAPE_MISMATCH, "Col2Im input must be 3-D (got rank %d)", x->rank);
  if ((ni >= 0 && nb >= 0 && ni != nb) || (n >= 0 && n > OSI_MAX_RANK - 2))
    return osi_op_fail(ctx, OSI_ERR_INVALID_MODEL, "image_shape and block_shape lengths differ");
  if (param_count(ctx, 1) >= 0 && param_count(ctx, 2) >= 0 && param_count(ctx, 1) != param_count(ctx, 2))
    return osi_op_fail(ctx, OSI_ERR_SHAPE_MISMATCH, "image_shape has %d entries and block_shape %d; they must be equal",
                       param_count(ctx, 1), param_count(ctx, 2));
  OsiType *y = osi_out_tensor(ctx, 0, osi_in_dtype(ctx, 0), n < 0 ? -1 : n + 2);
  if (!y || n < 0) return OSI_OK;
  OsiExpr *d = osi_type_dims_mut(y);
  for (int i = 0; i < n; i++) d[i + 2] = ni >= 0 ? image[i] : OSI_EXPR_UNKNOWN;
  if (!x) return OSI_OK;
  d[0] = x->dims[0];
  int64_t prod = 1, cb;
  for (int i = 0; i < nb; i++)
    if (block[i] <= 0 || __builtin_mul_overflow(prod, block[i], &prod))
      return osi_op_fail(ctx, OSI_ERR_INVALID_MODEL, "block_shape entries must be positive");
  if (nb < 0) return OSI_OK;
  if (osi_expr_is_const(s, x->dims[1], &cb) && cb % prod != 0)
    return osi_op_fail(ctx, OSI_ERR_SHAPE_MISMATCH, "input dim 1 (%lld) is not a multiple of the block size %lld",
                       (long long)cb, (long long)prod);
  d[1] = osi_expr_floordiv(s, x->dims[1], osi_expr_const(s, prod));
  /* dim 2 is the number of sliding blocks over the padded image. */
  if (ni >= 0 && nb == ni && ni <= OSI_MAX_RANK - 2) {
    OsiSpatial sp;
    OsiStatus st = col2im_spatial(ctx, ni, block, &sp);
    if (st != OSI_OK) return st;
    OsiExpr blocks = osi_expr_const(s, 1);
    for (int i = 0; i < ni; i++) blocks = osi_expr_mul(s, blocks, osi_window_dim(s, image[i], &sp, i));
    st = osi_op_require_dim(ctx, "Col2Im", 0, 2, blocks, OSI_WHAT("the number of sliding blocks"));
    if (st != OSI_OK) return st;
  }
  return OSI_OK;
}

/* Section - Regions of interest and unpooling */

/* RoiAlign(X, rois, batch_indices) (opset 10, 16, 22): (num_rois, C,
 * output_height, output_width); MaxRoiPool(X, rois) (opset 1, 22):
 * (num_rois, C, pooled_shape[0], pooled_shape[1]). */
static OsiStatus roi_op(OsiOpCtx *ctx, int64_t oh, int64_t ow) {
  OsiExprStore *s = osi_op_exprs(ctx);
  const OsiType *x = osi_in_ranked(ctx, 0), *rois = osi_in_ranked(ctx, 1), *bi = osi_in_ranked(ctx, 2);
  if ((x && x->rank != 4) || (rois && rois->rank != 2))
    return osi_op_fail(ctx, OSI_ERR_SHAPE_MISMATCH, "X must be 4-D and rois 2-D");
  if (oh <= 0 || ow <= 0) return osi_op_fail(ctx, OSI_ERR_INVALID_MODEL, "output sizes must be positive");
  OsiType *y = osi_out_tensor(ctx, 0, osi_in_dtype(ctx, 0), 4);
  if (!y) return OSI_OK;
  OsiExpr *d = osi_type_dims_mut(y);
  d[0] = rois ? rois->dims[0] : OSI_EXPR_UNKNOWN;
  if (d[0] == OSI_EXPR_UNKNOWN && bi && bi->rank == 1) d[0] = bi->dims[0];
  d[1] = x ? x->dims[1] : OSI_EXPR_UNKNOWN;
  d[2] = osi_expr_const(s, oh);
  d[3] = osi_expr_const(s, ow);
  return OSI_OK;
}

OsiStatus osi_op_roi_align(OsiOpCtx *ctx) {
  return roi_op(ctx, osi_attr_int(ctx, "output_height", 1), osi_attr_int(ctx, "output_width", 1));
}

OsiStatus osi_op_max_roi_pool(OsiOpCtx *ctx) {
  const int64_t *p;
  if (osi_attr_ints(ctx, "pooled_shape", &p) != 2)
    return osi_op_fail(ctx, OSI_ERR_INVALID_MODEL, "MaxRoiPool needs a 2-entry pooled_shape");
  return roi_op(ctx, p[0], p[1]);
}

/* MaxUnpool(X, I, output_shape) (opset 9, 11, 22): the output_shape input
 * (11+) gives the whole shape; else (N, C, (in - 1) * stride - pads +
 * kernel per spatial dim). */
OsiStatus osi_op_max_unpool(OsiOpCtx *ctx) {
  OsiExprStore *s = osi_op_exprs(ctx);
  const OsiType *x = osi_in_ranked(ctx, 0);
  const OsiExpr *shape;
  int32_t dtype = osi_in_dtype(ctx, 0);
  /* The indices have X's shape. */
  const OsiType *ix = osi_in_ranked(ctx, 1);
  if (x && ix && ix->rank != x->rank)
    return osi_op_fail(ctx, OSI_ERR_SHAPE_MISMATCH, "MaxUnpool: the indices have rank %d where X has %d", ix->rank, x->rank);
  for (int i = 0; x && ix && i < x->rank; i++) {
    OsiStatus st = osi_op_require_dims_eq(ctx, "MaxUnpool indices", 1, i, 0, i);
    if (st != OSI_OK) return st;
  }
  if (osi_in_present(ctx, 2)) {
    int n = osi_in_exprs(ctx, 2, &shape), len = n >= 0 ? n : param_count(ctx, 2);
    if (len >= 0 && x && len != x->rank)
      return osi_op_fail(ctx, OSI_ERR_SHAPE_MISMATCH, "output_shape has %d entries for rank %d", len, x->rank);
    OsiType *y = osi_out_tensor(ctx, 0, dtype, len >= 0 ? len : x ? x->rank : -1);
    if (y && n >= 0) memcpy(osi_type_dims_mut(y), shape, (size_t)n * sizeof(OsiExpr));
    return OSI_OK;
  }
  const int64_t *k;
  int nk = osi_attr_ints(ctx, "kernel_shape", &k);
  int rank = x ? x->rank : nk >= 0 ? nk + 2 : -1;
  if (rank >= 0 && (nk != rank - 2 || rank < 3))
    return osi_op_fail(ctx, OSI_ERR_INVALID_MODEL,
                       "MaxUnpool needs kernel_shape (and strides, 2x pads) for each of the %d spatial dims",
                       rank - 2);
  OsiSpatial sp;
  OsiStatus st = rank >= 0 ? osi_read_spatial(ctx, rank - 2, NULL, &sp) : OSI_OK;
  if (st != OSI_OK) return st;
  OsiType *y = osi_out_tensor(ctx, 0, dtype, rank);
  if (!y || !x) return OSI_OK;
  OsiExpr *d = osi_type_dims_mut(y);
  d[0] = x->dims[0];
  d[1] = x->dims[1];
  for (int i = 0; i < nk; i++) {
    d[i + 2] = osi_transpose_window_dim(s, x->dims[i + 2], sp.stride[i], osi_expr_const(s, sp.kernel[i]), 0,
                                        osi_expr_const(s, sp.pads[i]));
    st = osi_transpose_window_require(ctx, 0, i + 2, sp.stride[i], sp.kernel[i] - sp.pads[i], 0);
    if (st != OSI_OK) return st;
  }
  return OSI_OK;
}

/* DeformConv's inputs against each other (the spec; onnxruntime's
 * checks): X's channels = W[1] * group and a multiple of offset_group,
 * kernel_shape = W's spatial dims, B = [W[0]], offset [N, offset_group *
 * 2 * prod(kernel), O...] and mask [N, offset_group * prod(kernel), O...]
 * with O the output's spatial dims. */
static OsiStatus check_deform_conv(OsiOpCtx *ctx, const OsiSpatial *sp, const OsiExpr *out) {
  OsiExprStore *s = osi_op_exprs(ctx);
  const OsiType *x = osi_in_ranked(ctx, 0), *w = osi_in_ranked(ctx, 1);
  int64_t group = osi_attr_int(ctx, "group", 1), og = osi_attr_int(ctx, "offset_group", 1), c;
  if (group < 1 || og < 1)
    return osi_op_fail(ctx, OSI_ERR_INVALID_MODEL, "DeformConv: group and offset_group must be at least 1");
  OsiStatus st = OSI_OK;
  if (w && osi_expr_is_const(s, w->dims[0], &c) && c == 0)
    return osi_op_fail(ctx, OSI_ERR_SHAPE_MISMATCH, "DeformConv: W has no output channels; onnxruntime needs them positive");
  if (x && w) {
    char what[96];
    snprintf(what, sizeof what, "dim 1 of W times group %lld", (long long)group);
    st = osi_op_require_eq(ctx, "DeformConv channels", x->dims[1], OSI_DIM(0, 1),
                           osi_expr_mul(s, w->dims[1], osi_expr_const(s, group)), OSI_WHAT(what));
    if (st != OSI_OK) return st;
  }
  if (x && osi_expr_is_const(s, x->dims[1], &c) && c % og != 0)
    return osi_op_fail(ctx, OSI_ERR_SHAPE_MISMATCH, "DeformConv: %lld input channels are not a multiple of offset_group %lld",
                       (long long)c, (long long)og);
  const int64_t *k;
  int nk = osi_attr_ints(ctx, "kernel_shape", &k);
  for (int i = 0; w && i < nk && nk == w->rank - 2 && st == OSI_OK; i++)
    st = osi_op_require_dim(ctx, "DeformConv kernel", 1, i + 2, osi_expr_const(s, k[i]), OSI_WHAT("its entry in attribute 'kernel_shape'"));
  if (st == OSI_OK && osi_in_present(ctx, 3)) {
    st = osi_op_require_rank(ctx, 3, 1, 1);
    if (st == OSI_OK) st = osi_op_require_dims_eq(ctx, "DeformConv bias", 3, 0, 1, 0);
  }
  if (st != OSI_OK) return st;
  OsiExpr taps = osi_expr_const(s, og);
  for (int i = 0; i < sp->n; i++) taps = osi_expr_mul(s, taps, sp->kernel_dim[i]);
  for (int m = 0; m < 2; m++) {
    int in = m ? 4 : 2;
    if (!osi_in_present(ctx, in) || !osi_in_ranked(ctx, in)) continue;
    const char *rule = m ? "DeformConv mask" : "DeformConv offset";
    if ((st = osi_op_require_rank(ctx, in, sp->n + 2, sp->n + 2)) != OSI_OK ||
        (st = osi_op_require_dims_eq(ctx, rule, in, 0, 0, 0)) != OSI_OK ||
        (st = osi_op_require_dim(ctx, rule, in, 1, m ? taps : osi_expr_mul(s, osi_expr_const(s, 2), taps),
                                 OSI_WHAT(m ? "offset_group times the kernel taps" : "2 times offset_group times the kernel taps"))) != OSI_OK)
      return st;
    for (int i = 0; i < sp->n; i++)
      if ((st = osi_op_require_dim(ctx, rule, in, i + 2, out[i], OSI_WHAT("the output's spatial dim"))) != OSI_OK) return st;
  }
  return OSI_OK;
}

/* DeformConv(X, W, offset, B, mask) (opset 19, 22): Conv's window rule
 * with explicit pads (no auto_pad): (N, W[0], O...). The offset input
 * (N, ..., O...) carries the output sizes too, used when X's are unknown. */
OsiStatus osi_op_deform_conv(OsiOpCtx *ctx) {
  OsiExprStore *s = osi_op_exprs(ctx);
  const OsiType *x = osi_in_ranked(ctx, 0), *w = osi_in_ranked(ctx, 1), *off = osi_in_ranked(ctx, 2);
  int rank = x ? x->rank : w ? w->rank : off ? off->rank : -1;
  if ((x && x->rank != rank) || (w && w->rank != rank) || (off && off->rank != rank) || (rank >= 0 && rank < 3))
    return osi_op_fail(ctx, OSI_ERR_SHAPE_MISMATCH, "DeformConv X, W and offset need one rank >= 3");
  OsiType *y = osi_out_tensor(ctx, 0, osi_in_dtype(ctx, 0), rank);
  if (!y || rank < 0) return OSI_OK;
  int n = rank - 2;
  OsiSpatial sp;
  OsiStatus st = osi_read_spatial(ctx, n, w, &sp);
  for (int i = 0; i < n && st == OSI_OK; i++) st = osi_window_require_fit(ctx, 0, i + 2, &sp, i, OSI_WINDOW_FLOOR);
  if (st != OSI_OK) return st;
  OsiExpr *d = osi_type_dims_mut(y);
  d[0] = x && x->dims[0] != OSI_EXPR_UNKNOWN ? x->dims[0] : off ? off->dims[0] : OSI_EXPR_UNKNOWN;
  d[1] = w ? w->dims[0] : OSI_EXPR_UNKNOWN;
  OsiExpr out[OSI_MAX_RANK];
  for (int i = 0; i < n; i++) {
    out[i] = d[i + 2] = osi_window_out(s, x ? x->dims[i + 2] : OSI_EXPR_UNKNOWN, sp.kernel[i], sp.stride[i],
                                       sp.dilation[i], sp.pads[i], 0);
    if (d[i + 2] == OSI_EXPR_UNKNOWN && off && off->rank == rank) d[i + 2] = off->dims[i + 2];
  }
  return check_deform_conv(ctx, &sp, out);
}

/* Section - Data-dependent outputs */

/* ImageDecoder(encoded_stream) (opset 20): uint8 (H, W, C) with H and W
 * read from the stream; C is 3 for RGB / BGR and 1 for Grayscale. */
OsiStatus osi_op_image_decoder(OsiOpCtx *ctx) {
  const char *fmt = osi_attr_str(ctx, "pixel_format", "RGB");
  int64_t c = !strcmp(fmt, "RGB") || !strcmp(fmt, "BGR") ? 3 : !strcmp(fmt, "Grayscale") ? 1 : 0;
  if (!c) return osi_op_fail(ctx, OSI_ERR_INVALID_MODEL, "unknown pixel_format '%s'", fmt);
  OsiType *y = osi_out_tensor(ctx, 0, OSI_DT_UINT8, 3);
  if (!y) return OSI_OK;
  OsiExpr *d = osi_type_dims_mut(y);
  d[0] = osi_op_fresh_dim(ctx, "image_height");
  d[1] = osi_op_fresh_dim(ctx, "image_width");
  d[2] = osi_expr_const(osi_op_exprs(ctx), c);
  osi_op_diag(ctx, "DATA_DEPENDENT", "image height and width are read from the encoded stream");
  return OSI_OK;
}

/* NonMaxSuppression(boxes, scores, max_output_boxes_per_class, ...) (opset
 * 10, 11): int64 (num_selected, 3) with num_selected data-dependent and at
 * most batch * classes * Min(max_output_boxes_per_class, boxes); an
 * omitted or zero max_output_boxes_per_class selects nothing. */
OsiStatus osi_op_non_max_suppression(OsiOpCtx *ctx) {
  OsiExprStore *s = osi_op_exprs(ctx);
  const OsiType *boxes = osi_in_ranked(ctx, 0), *scores = osi_in_ranked(ctx, 1);
  int64_t kmax = -1, last;
  if ((boxes && boxes->rank != 3) || (scores && scores->rank != 3))
    return osi_op_fail(ctx, OSI_ERR_SHAPE_MISMATCH, "boxes and scores must be 3-D");
  if (boxes && osi_expr_is_const(s, boxes->dims[2], &last) && last != 4)
    return osi_op_fail(ctx, OSI_ERR_SHAPE_MISMATCH, "boxes' last dim is %lld; expected 4", (long long)last);
  OsiStatus st;
  if ((st = osi_op_require_dims_eq(ctx, "NonMaxSuppression batches", 1, 0, 0, 0)) != OSI_OK ||
      (st = osi_op_require_dims_eq(ctx, "NonMaxSuppression boxes", 1, 2, 0, 1)) != OSI_OK)
    return st;
  if (!osi_in_present(ctx, 2)) kmax = 0;
  else if (osi_in_ints(ctx, 2, &kmax, 1) != 1) kmax = -1;
  OsiType *y = osi_out_tensor(ctx, 0, OSI_DT_INT64, 2);
  if (!y) return OSI_OK;
  OsiExpr *d = osi_type_dims_mut(y);
  d[1] = osi_expr_const(s, 3);
  if (kmax == 0) {
    d[0] = osi_expr_const(s, 0);
    return OSI_OK;
  }
  d[0] = osi_op_fresh_dim(ctx, "nms");
  OsiExpr batch = boxes ? boxes->dims[0] : scores ? scores->dims[0] : OSI_EXPR_UNKNOWN;
  OsiExpr spatial = boxes ? boxes->dims[1] : scores ? scores->dims[2] : OSI_EXPR_UNKNOWN;
  OsiExpr classes = scores ? scores->dims[1] : OSI_EXPR_UNKNOWN;
  OsiExpr per_class = spatial;
  /* (INT64_MAX boxes per class, as exporters write "all of them", is no limit) */
  if (kmax > 0 && kmax < INT64_MAX)
    per_class = spatial == OSI_EXPR_UNKNOWN ? osi_expr_const(s, kmax)
                                            : osi_expr_min(s, osi_expr_const(s, kmax), spatial);
  OsiExpr bound = osi_expr_mul(s, osi_expr_mul(s, batch, classes), per_class);
  osi_op_constrain_le(ctx, d[0], bound);
  if (bound != OSI_EXPR_UNKNOWN)
    osi_op_diag_sizes(ctx, "DATA_DEPENDENT", "%E (selected boxes) <= %E", d[0], bound);
  else
    osi_op_diag_sizes(ctx, "DATA_DEPENDENT",
                      "%E (selected boxes) <= batch * classes * Min(max_output_boxes_per_class, "
                      "spatial_dimension)", d[0]);
  return OSI_OK;
}
