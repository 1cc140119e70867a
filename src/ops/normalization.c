/*
 * Normalizations whose main output has the input's shape:
 * LayerNormalization (with its Mean/InvStdDev statistics outputs),
 * GroupNormalization, InstanceNormalization, RMSNormalization.
 */
#include "ops/helpers.h"

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
  osi_out_like(ctx, 0, osi_in_dtype(ctx, 1), x);
  return OSI_OK;
}
