/*
 * Normalizations whose main output has the input's shape:
 * LayerNormalization (with its Mean/InvStdDev statistics outputs),
 * GroupNormalization, InstanceNormalization, RMSNormalization.
 */
#include <stdio.h>
#include <string.h>

#include "ops/helpers.h"

/* Scale (and bias) of Layer/RMS normalization: numpy-broadcastable to X
 * (onnxruntime takes X.shape[axis:] and forms that also cover the leading
 * dims, (B, S, ...) or (1, S, ...)). */
static OsiStatus check_affine(OsiOpCtx *ctx, const OsiType *x, int first, int last) {
  OsiExprStore *s = osi_op_exprs(ctx);
  for (int i = first; i <= last; i++) {
    if (!osi_in_present(ctx, i)) continue;
    /* onnxruntime reads a bias without elements as no bias. */
    const OsiType *t = osi_in_ranked(ctx, i);
    int64_t c;
    int empty = 0;
    for (int k = 0; t && i == 2 && k < t->rank; k++) empty |= osi_expr_is_const(s, t->dims[k], &c) && c == 0;
    if (empty) continue;
    OsiStatus st = osi_require_broadcast_to_in(ctx, osi_op_type(ctx), " scale and bias", i, x->rank, x->dims, "X");
    if (st != OSI_OK) return st;
  }
  return OSI_OK;
}

/* Per-channel inputs [C] of a normalization over X [N, C, ...]. */
static OsiStatus check_per_channel(OsiOpCtx *ctx, int first, int last, const char *rule) {
  for (int i = first; i <= last; i++) {
    if (!osi_in_present(ctx, i)) continue;
    OsiStatus st = osi_op_require_rank(ctx, i, 1, 1);
    if (st == OSI_OK) st = osi_op_require_dims_eq(ctx, rule, i, 0, 0, 1);
    if (st != OSI_OK) return st;
  }
  return OSI_OK;
}

/* LayerNormalization(X, Scale[, B]) (opset 17): Y like X. Mean and
 * InvStdDev have X's dims before `axis` (default -1) and 1 from `axis`
 * on; their element type is stash_type (default 1 = float). */
OsiStatus osi_op_layer_norm(OsiOpCtx *ctx) {
  const OsiType *x = osi_in(ctx, 0);
  int64_t axis = osi_attr_int(ctx, "axis", -1);
  int32_t stash = (int32_t)osi_attr_int(ctx, "stash_type", OSI_DT_FLOAT);
  if (!x) return OSI_OK;
  osi_out_like(ctx, 0, x->elem_type, x);
  if (x->kind != OSI_KIND_TENSOR || x->rank < 0) {
    for (int o = 1; o < 3; o++)
      if (osi_out_present(ctx, o)) osi_out_tensor(ctx, o, stash, -1);
    return OSI_OK;
  }
  int ax;
  if (!osi_norm_axis(axis, x->rank, &ax))
    return osi_op_fail(ctx, OSI_ERR_INVALID_MODEL, "axis %lld is out of range for rank %d",
                       (long long)axis, x->rank);
  if (!strcmp(osi_op_type(ctx), "LayerNormalization") || !strcmp(osi_op_type(ctx), "SimplifiedLayerNormalization")) {
    OsiStatus st = check_affine(ctx, x, 1, 2);
    if (st != OSI_OK) return st;
  }
  for (int o = 1; o < 3; o++) {
    if (!osi_out_present(ctx, o)) continue;
    OsiType *t = osi_out_like(ctx, o, stash, x);
    if (!t) continue;
    for (int i = ax; i < x->rank; i++) osi_type_dims_mut(t)[i] = osi_expr_const(osi_op_exprs(ctx), 1);
  }
  return OSI_OK;
}

/* GroupNormalization / InstanceNormalization: Y has X's type and shape
 * (rank >= 2: N, C, spatial...). */
OsiStatus osi_op_channel_norm(OsiOpCtx *ctx) {
  const OsiType *x = osi_in(ctx, 0);
  if (x && x->kind == OSI_KIND_TENSOR && x->rank >= 0 && x->rank < 2)
    return osi_op_fail(ctx, OSI_ERR_SHAPE_MISMATCH, "input X has rank %d, expected at least 2 (N, C, ...)",
                       x->rank);
  OsiStatus st = OSI_OK;
  if (!strcmp(osi_op_type(ctx), "InstanceNormalization")) {
    st = check_per_channel(ctx, 1, 2, "InstanceNormalization channels");
  } else if (!strcmp(osi_op_type(ctx), "GroupNormalization")) {
    /* C splits into num_groups. */
    OsiExprStore *s = osi_op_exprs(ctx);
    int64_t groups = osi_attr_int(ctx, "num_groups", 0), c;
    if (groups < 1)
      return osi_op_fail(ctx, OSI_ERR_INVALID_MODEL, "attribute 'num_groups' is %lld; expected at least 1", (long long)groups);
    const OsiType *xt = osi_in_ranked(ctx, 0);
    if (xt && osi_expr_is_const(s, xt->dims[1], &c) && c % groups != 0)
      return osi_op_fail(ctx, OSI_ERR_SHAPE_MISMATCH, "GroupNormalization: %lld channels do not split into %lld groups",
                         (long long)c, (long long)groups);
    /* onnxruntime runs the op's function body, which reshapes scale and
     * bias to [-1, 1] and multiplies them into X as [N, C, -1] (opset 21)
     * or [N, num_groups, -1] (opset 18): any shape of 1 or C (num_groups)
     * elements runs, where the spec says [C] ([num_groups]). */
    int per_channel = osi_op_opset(ctx) >= 21;
    OsiExpr want = per_channel ? (xt ? xt->dims[1] : OSI_EXPR_UNKNOWN) : osi_expr_const(s, groups);
    for (int i = 1; i <= 2 && st == OSI_OK && want != OSI_EXPR_UNKNOWN; i++) {
      const OsiType *p = osi_in_ranked(ctx, i);
      int64_t n = 1, d;
      for (int k = 0; p && k < p->rank && n >= 0; k++)
        if (!osi_expr_is_const(s, p->dims[k], &d) || __builtin_mul_overflow(n, d, &n)) n = -1;
      if (!p || !osi_in_present(ctx, i) || n < 0 || n == 1) continue; /* a symbolic count may be 1 */
      char what[96];
      snprintf(what, sizeof what, "the %lld elements of input %d (1 or %s)", (long long)n, i,
               per_channel ? "X's channels" : "num_groups");
      st = osi_op_require_eq(ctx, per_channel ? "GroupNormalization channels" : "GroupNormalization groups",
                             osi_expr_const(s, n), OSI_WHAT(what), want,
                             per_channel ? OSI_DIM(0, 1) : OSI_WHAT("attribute 'num_groups'"));
    }
  }
  if (st != OSI_OK) return st;
  return osi_out_same_as_input(ctx, 0, 0);
}

/* RMSNormalization(X, scale) (opset 23): Y has X's shape and scale's
 * element type (V); `axis` must be in range. */
OsiStatus osi_op_rms_norm(OsiOpCtx *ctx) {
  const OsiType *x = osi_in(ctx, 0);
  int64_t axis = osi_attr_int(ctx, "axis", -1);
  if (!x) return OSI_OK;
  int ax;
  if (x->kind == OSI_KIND_TENSOR && x->rank >= 0 && !osi_norm_axis(axis, x->rank, &ax))
    return osi_op_fail(ctx, OSI_ERR_INVALID_MODEL, "axis %lld is out of range for rank %d",
                       (long long)axis, x->rank);
  if (x->kind == OSI_KIND_TENSOR && x->rank >= 0) {
    OsiStatus st = check_affine(ctx, x, 1, 1);
    if (st != OSI_OK) return st;
  }
  osi_out_like(ctx, 0, osi_in_dtype(ctx, 1), x);
  return OSI_OK;
}
