/*
 * com.microsoft transformer building blocks (onnxruntime contrib ops,
 * ContribOperators.md): skip / embed layer normalizations, group norms,
 * the rotary and torch embeddings, and the fused activations and dropouts.
 * Ops whose output simply has the first input's type and shape (Gelu,
 * FastGelu, BiasGelu, QuickGelu, BiasAdd, BiasSoftmax, GatedRMSNorm, the
 * QOrdered activations, RotaryEmbedding, GroupNorm) point at the standard
 * functions in the table.
 */
#include <stdio.h>
#include <string.h>

#include "ops/helpers.h"

#define UNK OSI_EXPR_UNKNOWN

static OsiExpr dim(const OsiType *t, int i) { return t && t->rank > i ? t->dims[i] : UNK; }

static OsiExpr pick(OsiExpr a, OsiExpr b) { return a != UNK ? a : b; }

static void set_dims(OsiOpCtx *ctx, int i, int32_t dtype, int n, const OsiExpr *d) {
  if (!osi_out_present(ctx, i)) return;
  OsiType *t = osi_out_tensor(ctx, i, dtype, n);
  if (t) memcpy(osi_type_dims_mut(t), d, (size_t)n * sizeof *d);
}

/*
 * SkipLayerNormalization / SkipSimplifiedLayerNormalization(input, skip,
 * gamma, ...): output like input; mean and inv_std_var (float) have input's
 * dims with the last one 1 (a LayerNormalization over axis -1);
 * input_skip_bias_sum is like input.
 */
OsiStatus osi_op_ms_skip_layer_norm(OsiOpCtx *ctx) {
  const OsiType *x = osi_in(ctx, 0);
  if (x && x->kind == OSI_KIND_TENSOR && x->rank >= 0 && x->rank != 2 && x->rank != 3)
    return osi_op_fail(ctx, OSI_ERR_SHAPE_MISMATCH, "input has rank %d, expected 3 (or 2: token_count, hidden)",
                       x->rank);
  /* skip [B, S, H], [1, S, H] or [S, H]; gamma, beta, bias [H]. */
  const OsiType *xt = osi_in_ranked(ctx, 0);
  OsiStatus st = OSI_OK;
  if (xt && xt->rank >= 1) {
    st = osi_require_broadcast_to(ctx, "SkipLayerNormalization skip", 1, xt->rank, xt->dims, "the input");
    for (int i = 2; i < osi_in_count(ctx) && i <= 4 && st == OSI_OK; i++) {
      if (!osi_in_present(ctx, i)) continue;
      st = osi_op_require_rank(ctx, i, 1, 1);
      if (st == OSI_OK) st = osi_op_require_dims_eq(ctx, "SkipLayerNormalization hidden size", i, 0, 0, xt->rank - 1);
    }
  }
  if (st == OSI_OK) st = osi_op_layer_norm(ctx);
  if (st != OSI_OK) return st;
  if (osi_out_present(ctx, 3)) osi_out_same_as_input(ctx, 3, 0);
  return OSI_OK;
}

/* Reads hidden_size from an embedding table [rows, hidden] (or gamma). */
static OsiExpr embed_hidden(const OsiOpCtx *ctx, int table_in, int gamma_in) {
  return pick(dim(osi_in_ranked(ctx, table_in), 1), dim(osi_in_ranked(ctx, gamma_in), 0));
}

/*
 * EmbedLayerNormalization(input_ids [B, S], segment_ids, word_embedding
 * [V, H], ...): output [B, S, H] (T), mask_index [B] (int32),
 * embedding_sum [B, S, H] (T).
 */
OsiStatus osi_op_ms_embed_layer_norm(OsiOpCtx *ctx) {
  const OsiType *ids = osi_in_ranked(ctx, 0);
  if (ids && ids->rank != 2)
    return osi_op_fail(ctx, OSI_ERR_SHAPE_MISMATCH, "input_ids has rank %d, expected 2 (batch, sequence)", ids->rank);
  int32_t t = osi_in_dtype(ctx, 2);
  int32_t m = osi_in_dtype(ctx, 0) ? osi_in_dtype(ctx, 0) : OSI_DT_INT32;
  OsiExpr d[3] = {dim(ids, 0), dim(ids, 1), embed_hidden(ctx, 2, 5)};
  set_dims(ctx, 0, t, 3, d);
  set_dims(ctx, 1, m, 1, d);
  set_dims(ctx, 2, t, 3, d);
  return OSI_OK;
}

/* QEmbedLayerNormalization: layernorm_out [B, S, H] (float, the scales'
 * type), mask_index_out [B] (int32). */
OsiStatus osi_op_ms_qembed_layer_norm(OsiOpCtx *ctx) {
  const OsiType *ids = osi_in_ranked(ctx, 0);
  if (ids && ids->rank != 2)
    return osi_op_fail(ctx, OSI_ERR_SHAPE_MISMATCH, "input_ids has rank %d, expected 2 (batch, sequence)", ids->rank);
  int32_t t = osi_in_dtype(ctx, 8) ? osi_in_dtype(ctx, 8) : OSI_DT_FLOAT;
  int32_t m = osi_in_dtype(ctx, 0) ? osi_in_dtype(ctx, 0) : OSI_DT_INT32;
  OsiExpr d[3] = {dim(ids, 0), dim(ids, 1), embed_hidden(ctx, 2, 5)};
  set_dims(ctx, 0, t, 3, d);
  set_dims(ctx, 1, m, 1, d);
  return OSI_OK;
}

/* SkipGroupNorm(X, gamma, beta, skip, bias): Y and the sum S like X. */
OsiStatus osi_op_ms_skip_group_norm(OsiOpCtx *ctx) {
  osi_out_same_as_input(ctx, 0, 0);
  if (osi_out_present(ctx, 1)) osi_out_same_as_input(ctx, 1, 0);
  return OSI_OK;
}

/* BiasSplitGelu(X [N, S, D], bias [D]): Y [N, S, D / 2] (the two halves of
 * the last dim are multiplied). */
OsiStatus osi_op_ms_bias_split_gelu(OsiOpCtx *ctx) {
  OsiExprStore *s = osi_op_exprs(ctx);
  const OsiType *x = osi_in_ranked(ctx, 0);
  int32_t t = osi_in_dtype(ctx, 0);
  if (!x) {
    osi_out_tensor(ctx, 0, t, 3);
    return OSI_OK;
  }
  if (x->rank != 3) return osi_op_fail(ctx, OSI_ERR_SHAPE_MISMATCH, "X has rank %d, expected 3 (N, S, D)", x->rank);
  int64_t c;
  if (osi_expr_is_const(s, x->dims[2], &c) && c % 2 != 0)
    return osi_op_fail(ctx, OSI_ERR_SHAPE_MISMATCH, "X's last dim %lld is odd; it must split in halves", (long long)c);
  OsiType *y = osi_out_like(ctx, 0, t, x);
  if (y) osi_type_dims_mut(y)[2] = osi_expr_floordiv(s, x->dims[2], osi_expr_const(s, 2));
  return OSI_OK;
}

/* BiasDropout(data, bias, residual, ratio, training_mode): output like
 * data; mask bool, like data. */
OsiStatus osi_op_ms_bias_dropout(OsiOpCtx *ctx) {
  const OsiType *x = osi_in(ctx, 0);
  osi_out_same_as_input(ctx, 0, 0);
  if (osi_out_present(ctx, 1)) osi_out_like(ctx, 1, OSI_DT_BOOL, x);
  return OSI_OK;
}

/* BitmaskDropout / BitmaskBiasDropout: output like data; the bit-packed
 * uint32 mask holds one bit per element: [CeilDiv(numel(data), 32)]. */
OsiStatus osi_op_ms_bitmask_dropout(OsiOpCtx *ctx) {
  OsiExprStore *s = osi_op_exprs(ctx);
  const OsiType *x = osi_in_ranked(ctx, 0);
  osi_out_same_as_input(ctx, 0, 0);
  if (!osi_out_present(ctx, 1)) return OSI_OK;
  OsiExpr n = x ? osi_type_numel(s, x) : UNK;
  set_dims(ctx, 1, OSI_DT_UINT32, 1, (OsiExpr[]){osi_expr_ceildiv(s, n, osi_expr_const(s, 32))});
  return OSI_OK;
}

/* GemmaRotaryEmbedding(emb, q, q_rot, k, k_rot): output1 like q, output2
 * like k (both [B, N, S, dim] per the spec), float16. */
OsiStatus osi_op_ms_gemma_rotary_embedding(OsiOpCtx *ctx) {
  osi_out_same_as_input(ctx, 0, 1);
  if (osi_out_present(ctx, 1)) osi_out_same_as_input(ctx, 1, osi_in(ctx, 3) ? 3 : 1);
  return OSI_OK;
}

/* TorchEmbedding(weight [N, M], indices, ...): Y is indices' shape + [M],
 * weight's type. */
OsiStatus osi_op_ms_torch_embedding(OsiOpCtx *ctx) {
  const OsiType *w = osi_in_ranked(ctx, 0), *idx = osi_in_ranked(ctx, 1);
  int32_t t = osi_in_dtype(ctx, 0);
  if (w && w->rank != 2)
    return osi_op_fail(ctx, OSI_ERR_SHAPE_MISMATCH, "weight has rank %d, expected 2 (N, M)", w->rank);
  if (!idx || idx->rank + 1 > OSI_MAX_RANK) {
    osi_out_tensor(ctx, 0, t, -1);
    return OSI_OK;
  }
  OsiExpr d[OSI_MAX_RANK];
  if (idx->rank) memcpy(d, idx->dims, (size_t)idx->rank * sizeof *d);
  d[idx->rank] = dim(w, 1);
  set_dims(ctx, 0, t, idx->rank + 1, d);
  return OSI_OK;
}

/* WordConvEmbedding(Sequence, W, B, C): Y has the weights' float type; the
 * spec states no shape. */
OsiStatus osi_op_ms_word_conv_embedding(OsiOpCtx *ctx) {
  osi_out_tensor(ctx, 0, osi_in_dtype(ctx, 1) ? osi_in_dtype(ctx, 1) : OSI_DT_FLOAT, -1);
  return OSI_OK;
}

/* GatedAdd(X, Y, gate): X + Y * gate, with X's shape and type. EngramGate
 * (key, query, value, ...): output and gated_value_normed have key's shape
 * (B, S, hc_mult, hidden). */
OsiStatus osi_op_like_first_input(OsiOpCtx *ctx) {
  for (int o = 0; o < osi_out_count(ctx); o++) osi_out_same_as_input(ctx, o, 0);
  return OSI_OK;
}

/* LinearAttentionGate(a, dt_bias, decay_scale[, b]): decay like a, beta
 * like b. */
OsiStatus osi_op_linear_attention_gate(OsiOpCtx *ctx) {
  osi_out_same_as_input(ctx, 0, 0);
  if (osi_out_count(ctx) > 1) osi_out_same_as_input(ctx, 1, osi_in_present(ctx, 3) ? 3 : 0);
  return OSI_OK;
}

/* BiasGelu(A, B) / FastGelu(X[, bias]) / BiasAdd(X, bias, skip): Y like
 * the input; the bias is [hidden] (the input's last dim), BiasAdd's skip
 * has the input's shape. */
OsiStatus osi_op_ms_bias_activation(OsiOpCtx *ctx) {
  const OsiType *x = osi_in_ranked(ctx, 0);
  OsiStatus st = OSI_OK;
  char rule[48];
  snprintf(rule, sizeof rule, "%s bias", osi_op_type(ctx));
  if (x && x->rank >= 1 && osi_in_present(ctx, 1)) {
    st = osi_op_require_rank(ctx, 1, 1, 1);
    if (st == OSI_OK) st = osi_op_require_dims_eq(ctx, rule, 1, 0, 0, x->rank - 1);
  }
  if (st == OSI_OK && x && !strcmp(osi_op_type(ctx), "BiasAdd") && osi_in_ranked(ctx, 2)) {
    const OsiType *skip = osi_in_ranked(ctx, 2);
    if (skip->rank != x->rank)
      return osi_op_fail(ctx, OSI_ERR_SHAPE_MISMATCH, "BiasAdd: skip has rank %d where the input has %d", skip->rank, x->rank);
    for (int i = 0; i < x->rank && st == OSI_OK; i++) st = osi_op_require_dims_eq(ctx, "BiasAdd skip", 2, i, 0, i);
  }
  if (st != OSI_OK) return st;
  return osi_out_same_as_input(ctx, 0, 0);
}
