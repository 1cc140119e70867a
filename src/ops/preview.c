/* ai.onnx.preview operators (experimental, unversioned). */
#include "ops/helpers.h"

/* FlexAttention(Q, K, V): Q (B, Hq, L, E), K (B, Hkv, S, E), V (B, Hkv, S,
 * Ev) -> Y (B, Hq, L, Ev) of Q's type. The score_mod/prob_mod subgraphs
 * preserve the score shape, so they do not change Y. */
OsiStatus osi_op_flex_attention(OsiOpCtx *ctx) {
  const OsiType *q = osi_in_ranked(ctx, 0), *v = osi_in_ranked(ctx, 2);
  OsiType *y = osi_out_tensor(ctx, 0, osi_in_dtype(ctx, 0), 4);
  if (!y) return OSI_OK;
  if ((q && q->rank != 4) || (v && v->rank != 4))
    return osi_op_fail(ctx, OSI_ERR_SHAPE_MISMATCH, "Q, K and V must be rank-4 tensors");
  OsiExpr *d = osi_type_dims_mut(y);
  if (q)
    for (int i = 0; i < 3; i++) d[i] = q->dims[i];
  if (v) {
    d[3] = v->dims[3];
    if (!q) d[0] = v->dims[0];
  }
  return OSI_OK;
}
