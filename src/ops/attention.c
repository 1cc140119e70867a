/*
 * Attention-family and loss operators: Attention (with KV cache),
 * RotaryEmbedding, LinearAttention, CausalConvWithState, SwiGLU, and the
 * losses NegativeLogLikelihoodLoss / SoftmaxCrossEntropyLoss. Packed 3-D
 * layouts carry heads * head_size in the last dim; per-head sizes are that
 * dim divided by the head count, which valid models make exact.
 */
#include <stdio.h>
#include <string.h>

#include "ops/helpers.h"

/* d / heads for a packed hidden dim; fails on a constant that does not divide. */
static OsiStatus per_head(OsiOpCtx *ctx, OsiExpr d, int64_t heads, const char *what, OsiExpr *out) {
  OsiExprStore *s = osi_op_exprs(ctx);
  int64_t c;
  *out = OSI_EXPR_UNKNOWN;
  if (heads <= 0) return OSI_OK;
  if (osi_expr_is_const(s, d, &c) && c % heads != 0)
    return osi_op_fail(ctx, OSI_ERR_SHAPE_MISMATCH, "%s hidden size %lld is not a multiple of %lld heads",
                       what, (long long)c, (long long)heads);
  *out = osi_expr_floordiv(s, d, osi_expr_const(s, heads));
  return OSI_OK;
}

/* Sequence length, head count and head size of a 3-D packed or 4-D input. */
typedef struct Heads {
  OsiExpr batch, heads, seq, size;
} Heads;

static OsiStatus read_heads(OsiOpCtx *ctx, const OsiType *t, int64_t n_heads, const char *what, Heads *h) {
  OsiExprStore *s = osi_op_exprs(ctx);
  h->batch = h->heads = h->seq = h->size = OSI_EXPR_UNKNOWN;
  if (!t) return OSI_OK;
  if (t->rank == 4) {
    h->batch = t->dims[0], h->heads = t->dims[1], h->seq = t->dims[2], h->size = t->dims[3];
    return OSI_OK;
  }
  if (t->rank != 3)
    return osi_op_fail(ctx, OSI_ERR_SHAPE_MISMATCH, "%s has rank %d, expected 3 or 4", what, t->rank);
  h->batch = t->dims[0], h->seq = t->dims[1];
  if (n_heads > 0) h->heads = osi_expr_const(s, n_heads);
  return per_head(ctx, t->dims[2], n_heads, what, &h->size);
}

static void set_dims4(OsiOpCtx *ctx, int o, int32_t dtype, OsiExpr a, OsiExpr b, OsiExpr c, OsiExpr d) {
  OsiType *t = osi_out_tensor(ctx, o, dtype, 4);
  if (!t) return;
  OsiExpr *dims = osi_type_dims_mut(t);
  dims[0] = a, dims[1] = b, dims[2] = c, dims[3] = d;
}

/* What Attention requires of its inputs (the spec, and onnxruntime's
 * checks): Q, K, V of one rank, 3 or 4; one batch; K and V one sequence;
 * head counts from the attributes or dim 1, q heads a multiple of kv heads;
 * Q and K one head size; past_key / past_value together, [B, kv_heads,
 * past, head_size / v_head_size]; the mask broadcasts to
 * [B, q_heads, S_q, past + S_kv]. */
static OsiStatus check_attention(OsiOpCtx *ctx, int64_t qh, int64_t kvh) {
  OsiExprStore *s = osi_op_exprs(ctx);
  const OsiType *in[3] = {osi_in_ranked(ctx, 0), osi_in_ranked(ctx, 1), osi_in_ranked(ctx, 2)};
  int rank = -1;
  OsiStatus st;
  for (int i = 0; i < 3; i++) {
    if (!in[i]) continue;
    if ((st = osi_op_require_rank(ctx, i, 3, 4)) != OSI_OK) return st;
    if (rank >= 0 && in[i]->rank != rank)
      return osi_op_fail(ctx, OSI_ERR_SHAPE_MISMATCH, "Attention: Q, K and V have ranks %d, %d and %d; they must be equal",
                         in[0] ? in[0]->rank : -1, in[1] ? in[1]->rank : -1, in[2] ? in[2]->rank : -1);
    rank = in[i]->rank;
  }
  if (osi_in_present(ctx, 4) != osi_in_present(ctx, 5))
    return osi_op_fail(ctx, OSI_ERR_INVALID_MODEL, "Attention: past_key and past_value are given together or not at all");
  if ((st = osi_op_require_rank(ctx, 4, 4, 4)) != OSI_OK || (st = osi_op_require_rank(ctx, 5, 4, 4)) != OSI_OK) return st;
  const char *B = "Attention batch";
  if ((st = osi_op_require_dims_eq(ctx, B, 1, 0, 0, 0)) != OSI_OK || (st = osi_op_require_dims_eq(ctx, B, 2, 0, 0, 0)) != OSI_OK ||
      (st = osi_op_require_dims_eq(ctx, B, 4, 0, 0, 0)) != OSI_OK || (st = osi_op_require_dims_eq(ctx, B, 5, 0, 0, 0)) != OSI_OK ||
      (st = osi_op_require_dims_eq(ctx, "Attention past sequence", 5, 2, 4, 2)) != OSI_OK)
    return st;
  if (rank < 0) return OSI_OK;
  OsiExpr q_heads, kv_heads, head, v_head, q_seq, kv_seq;
  if (rank == 4) {
    if (qh > 0 && (st = osi_op_require_dim(ctx, "Attention heads", 0, 1, osi_expr_const(s, qh), OSI_WHAT("attribute 'q_num_heads'"))) != OSI_OK)
      return st;
    if (kvh > 0 && ((st = osi_op_require_dim(ctx, "Attention heads", 1, 1, osi_expr_const(s, kvh), OSI_WHAT("attribute 'kv_num_heads'"))) != OSI_OK ||
                    (st = osi_op_require_dim(ctx, "Attention heads", 2, 1, osi_expr_const(s, kvh), OSI_WHAT("attribute 'kv_num_heads'"))) != OSI_OK))
      return st;
    if ((st = osi_op_require_dims_eq(ctx, "Attention kv heads", 2, 1, 1, 1)) != OSI_OK ||
        (st = osi_op_require_dims_eq(ctx, "Attention head size", 1, 3, 0, 3)) != OSI_OK ||
        (st = osi_op_require_dims_eq(ctx, "Attention kv sequence", 2, 2, 1, 2)) != OSI_OK)
      return st;
    q_heads = in[0] ? in[0]->dims[1] : OSI_EXPR_UNKNOWN;
    kv_heads = in[1] ? in[1]->dims[1] : in[2] ? in[2]->dims[1] : OSI_EXPR_UNKNOWN;
    head = in[0] ? in[0]->dims[3] : in[1] ? in[1]->dims[3] : OSI_EXPR_UNKNOWN;
    v_head = in[2] ? in[2]->dims[3] : OSI_EXPR_UNKNOWN;
    q_seq = in[0] ? in[0]->dims[2] : OSI_EXPR_UNKNOWN;
    kv_seq = in[1] ? in[1]->dims[2] : in[2] ? in[2]->dims[2] : OSI_EXPR_UNKNOWN;
  } else {
    if (qh <= 0 || kvh <= 0)
      return osi_op_fail(ctx, OSI_ERR_INVALID_MODEL, "Attention with 3-D inputs needs positive q_num_heads and kv_num_heads");
    OsiExpr k_head;
    if ((st = per_head(ctx, in[0] ? in[0]->dims[2] : OSI_EXPR_UNKNOWN, qh, "Q", &head)) != OSI_OK ||
        (st = per_head(ctx, in[1] ? in[1]->dims[2] : OSI_EXPR_UNKNOWN, kvh, "K", &k_head)) != OSI_OK ||
        (st = per_head(ctx, in[2] ? in[2]->dims[2] : OSI_EXPR_UNKNOWN, kvh, "V", &v_head)) != OSI_OK ||
        (st = osi_op_require_eq(ctx, "Attention head size", k_head, OSI_WHAT("K's head size (dim 2 / kv_num_heads)"), head,
                                OSI_WHAT("Q's head size (dim 2 / q_num_heads)"))) != OSI_OK ||
        (st = osi_op_require_dims_eq(ctx, "Attention kv sequence", 2, 1, 1, 1)) != OSI_OK)
      return st;
    q_heads = osi_expr_const(s, qh);
    kv_heads = osi_expr_const(s, kvh);
    q_seq = in[0] ? in[0]->dims[1] : OSI_EXPR_UNKNOWN;
    kv_seq = in[1] ? in[1]->dims[1] : in[2] ? in[2]->dims[1] : OSI_EXPR_UNKNOWN;
  }
  int64_t a, b;
  if (osi_expr_is_const(s, q_heads, &a) && osi_expr_is_const(s, kv_heads, &b) && (b <= 0 || a % b != 0))
    return osi_op_fail(ctx, OSI_ERR_SHAPE_MISMATCH, "Attention: %lld query heads are not a multiple of %lld key/value heads",
                       (long long)a, (long long)b);
  const char *P = "Attention past";
  if ((st = osi_op_require_dim(ctx, P, 4, 1, kv_heads, OSI_WHAT("the key/value head count"))) != OSI_OK ||
      (st = osi_op_require_dim(ctx, P, 5, 1, kv_heads, OSI_WHAT("the key/value head count"))) != OSI_OK ||
      (st = osi_op_require_dim(ctx, P, 4, 3, head, OSI_WHAT("the head size"))) != OSI_OK ||
      (st = osi_op_require_dim(ctx, P, 5, 3, v_head, OSI_WHAT("V's head size"))) != OSI_OK)
    return st;
  const OsiType *pk = osi_in_ranked(ctx, 4);
  OsiExpr past = !osi_in_present(ctx, 4) ? osi_expr_const(s, 0) : pk ? pk->dims[2] : OSI_EXPR_UNKNOWN;
  OsiExpr batch = in[0] ? in[0]->dims[0] : OSI_EXPR_UNKNOWN, total = osi_expr_add(s, past, kv_seq);
  if (osi_in_present(ctx, 6) && ((st = osi_op_require_rank(ctx, 6, 1, 1)) != OSI_OK ||
                                 (st = osi_op_require_dim(ctx, "Attention nonpad_kv_seqlen", 6, 0, batch, OSI_WHAT("the batch"))) != OSI_OK))
    return st;
  /* onnxruntime's kernel refuses empty batches, sequences, heads and head
   * sizes (the spec allows them). */
  const OsiExpr sizes[6] = {batch, q_seq, kv_seq, q_heads, head, v_head};
  static const char *const names[6] = {"batch", "query sequence", "key/value sequence", "query head count",
                                       "head size", "V's head size"};
  for (int k = 0; k < 6; k++) {
    int64_t c;
    if (osi_expr_is_const(s, sizes[k], &c) && c == 0)
      return osi_op_fail(ctx, OSI_ERR_SHAPE_MISMATCH, "Attention: the %s is 0; onnxruntime needs it positive", names[k]);
  }
  /* The mask: the spec has it broadcast to the scores [B, q_heads, S_q,
   * past + S_kv] (from opset 24 its last dim may also fall short, padded
   * with -inf); onnxruntime takes a mask of rank 2 to 4 whose last two
   * dims are exactly S_q and past + S_kv, and whose leading dims are 1 or
   * the scores'. Where the spec is explicit (opset 24's shorter mask, a
   * backend test) its rule stands. */
  const OsiType *mask = osi_in_ranked(ctx, 3);
  if (!mask) return OSI_OK;
  if (mask->rank < 2 || mask->rank > 4)
    return osi_op_fail(ctx, OSI_ERR_SHAPE_MISMATCH, "Attention mask has rank %d; onnxruntime takes a 2-D to 4-D mask", mask->rank);
  OsiExpr scores[2] = {batch, q_heads};
  for (int k = 0; k < mask->rank - 2; k++) {
    int64_t c;
    if (!osi_expr_is_const(s, mask->dims[k], &c) || c == 1) continue;
    char what[96];
    snprintf(what, sizeof what, "dim %d of the scores [B, q_heads, S_q, past + S_kv]", k + 4 - mask->rank);
    if ((st = osi_op_require_eq(ctx, "Attention mask", mask->dims[k], OSI_DIM(3, k), scores[k + 4 - mask->rank],
                                OSI_WHAT(what))) != OSI_OK)
      return st;
  }
  if ((st = osi_op_require_dim(ctx, "Attention mask", 3, mask->rank - 2, q_seq, OSI_WHAT("the query sequence S_q"))) != OSI_OK)
    return st;
  if (osi_op_opset(ctx) >= 24)
    return osi_op_require_le(ctx, "Attention mask", mask->dims[mask->rank - 1], OSI_DIM(3, mask->rank - 1), total,
                             OSI_WHAT("the total sequence past + S_kv"));
  return osi_op_require_dim(ctx, "Attention mask", 3, mask->rank - 1, total, OSI_WHAT("the total sequence past + S_kv"));
}

/*
 * Attention(Q, K, V, attn_mask, past_key, past_value, nonpad_kv_seqlen)
 * (opset 23/24): 4-D inputs are [B, heads, S, head_size]; 3-D inputs are
 * [B, S, heads * head_size] with q_num_heads / kv_num_heads. Y follows Q's
 * layout with V's head size; present_* are [B, kv_heads, past + S_kv, *];
 * qk_matmul_output is [B, q_heads, S_q, past + S_kv].
 */
OsiStatus osi_op_attention(OsiOpCtx *ctx) {
  OsiExprStore *s = osi_op_exprs(ctx);
  const OsiType *q = osi_in_ranked(ctx, 0);
  int64_t qh = osi_attr_int(ctx, "q_num_heads", 0), kvh = osi_attr_int(ctx, "kv_num_heads", 0);
  Heads hq, hk, hv;
  OsiStatus st = check_attention(ctx, qh, kvh);
  if (st != OSI_OK) return st;
  if ((st = read_heads(ctx, q, qh, "Q", &hq)) != OSI_OK ||
      (st = read_heads(ctx, osi_in_ranked(ctx, 1), kvh, "K", &hk)) != OSI_OK ||
      (st = read_heads(ctx, osi_in_ranked(ctx, 2), kvh, "V", &hv)) != OSI_OK)
    return st;
  int32_t t1 = osi_in_dtype(ctx, 0), t2 = osi_in_dtype(ctx, 2);
  if (!q) {
    osi_out_tensor(ctx, 0, t1, -1);
  } else if (q->rank == 4) {
    set_dims4(ctx, 0, t1, hq.batch, hq.heads, hq.seq, hv.size);
  } else {
    OsiType *y = osi_out_tensor(ctx, 0, t1, 3);
    const OsiType *v = osi_in_ranked(ctx, 2);
    if (y) {
      OsiExpr *d = osi_type_dims_mut(y);
      d[0] = hq.batch, d[1] = hq.seq;
      /* Equal head counts keep V's packed width as is. */
      d[2] = v && v->rank == 3 && qh > 0 && qh == kvh ? v->dims[2]
                                                      : osi_expr_mul(s, hv.size, hq.heads);
    }
  }
  /* The cache grows by the current sequence: total = past + S_kv. */
  const OsiType *pk = osi_in_ranked(ctx, 4), *pv = osi_in_ranked(ctx, 5);
  OsiExpr zero = osi_expr_const(s, 0);
  OsiExpr past_k = !osi_in_present(ctx, 4) ? zero : pk && pk->rank == 4 ? pk->dims[2] : OSI_EXPR_UNKNOWN;
  OsiExpr past_v = !osi_in_present(ctx, 5) ? zero : pv && pv->rank == 4 ? pv->dims[2] : OSI_EXPR_UNKNOWN;
  OsiExpr total = osi_expr_add(s, past_k, hk.seq);
  int32_t tk = osi_in_dtype(ctx, 1) ? osi_in_dtype(ctx, 1) : t1;
  OsiExpr bk = hk.batch != OSI_EXPR_UNKNOWN ? hk.batch : hq.batch;
  OsiExpr bv = hv.batch != OSI_EXPR_UNKNOWN ? hv.batch : hq.batch;
  if (osi_out_present(ctx, 1)) set_dims4(ctx, 1, tk, bk, hk.heads, total, hk.size);
  if (osi_out_present(ctx, 2)) set_dims4(ctx, 2, t2, bv, hv.heads, osi_expr_add(s, past_v, hv.seq), hv.size);
  if (osi_out_present(ctx, 3)) set_dims4(ctx, 3, t1, hq.batch, hq.heads, hq.seq, total);
  return OSI_OK;
}

/* What RotaryEmbedding (opset 23) requires (the spec, and onnxruntime's
 * checks): head_size from X (4-D: dim 3; 3-D: hidden / num_heads), a
 * rotary_embedding_dim of at most head_size; cos and sin caches of one
 * shape, [max_pos, rot / 2] with position_ids [B, S], else [B, S, rot / 2]. */
static OsiStatus check_rotary(OsiOpCtx *ctx, const OsiType *x) {
  OsiExprStore *s = osi_op_exprs(ctx);
  int64_t heads = osi_attr_int(ctx, "num_heads", 0), rot_attr = osi_attr_int(ctx, "rotary_embedding_dim", 0);
  OsiStatus st = OSI_OK;
  OsiExpr batch = OSI_EXPR_UNKNOWN, seq = OSI_EXPR_UNKNOWN, head = OSI_EXPR_UNKNOWN;
  if (x && x->rank == 4) {
    batch = x->dims[0], seq = x->dims[2], head = x->dims[3];
  } else if (x) {
    if (heads <= 0)
      return osi_op_fail(ctx, OSI_ERR_INVALID_MODEL, "RotaryEmbedding with a 3-D input needs a positive num_heads");
    batch = x->dims[0], seq = x->dims[1];
    if ((st = per_head(ctx, x->dims[2], heads, "X", &head)) != OSI_OK) return st;
  }
  OsiExpr rot = head;
  if (rot_attr > 0) {
    rot = osi_expr_const(s, rot_attr);
    if ((st = osi_op_require_le(ctx, "RotaryEmbedding", rot, OSI_WHAT("attribute 'rotary_embedding_dim'"), head,
                                OSI_WHAT("the head size"))) != OSI_OK)
      return st;
  }
  OsiExpr half = osi_expr_floordiv(s, rot, osi_expr_const(s, 2));
  const char *R = "RotaryEmbedding caches";
  int with_ids = osi_in_present(ctx, 3), r = with_ids ? 2 : 3;
  const OsiType *cos = osi_in_ranked(ctx, 1), *sin = osi_in_ranked(ctx, 2);
  if ((st = osi_op_require_rank(ctx, 1, r, r)) != OSI_OK || (st = osi_op_require_rank(ctx, 2, r, r)) != OSI_OK)
    return st;
  for (int k = 0; k < r && cos && sin; k++)
    if ((st = osi_op_require_dims_eq(ctx, R, 2, k, 1, k)) != OSI_OK) return st;
  const OsiType *cache = cos ? cos : sin;
  int cache_in = cos ? 1 : 2;
  if (with_ids) {
    if ((st = osi_op_require_rank(ctx, 3, 2, 2)) != OSI_OK ||
        (st = osi_op_require_dim(ctx, "RotaryEmbedding position_ids", 3, 0, batch, OSI_WHAT("the batch of X"))) != OSI_OK ||
        (st = osi_op_require_dim(ctx, "RotaryEmbedding position_ids", 3, 1, seq, OSI_WHAT("the sequence of X"))) != OSI_OK)
      return st;
    if (cache) st = osi_op_require_dim(ctx, R, cache_in, 1, half, OSI_WHAT("half the rotary dim"));
  } else if (cache) {
    if ((st = osi_op_require_dim(ctx, R, cache_in, 0, batch, OSI_WHAT("the batch of X"))) != OSI_OK ||
        (st = osi_op_require_dim(ctx, R, cache_in, 1, seq, OSI_WHAT("the sequence of X"))) != OSI_OK)
      return st;
    st = osi_op_require_dim(ctx, R, cache_in, 2, half, OSI_WHAT("half the rotary dim"));
  }
  return st;
}

/* RotaryEmbedding(X, cos_cache, sin_cache[, position_ids]) (opset 23):
 * Y has X's type and shape; X is 3-D (packed heads) or 4-D. */
OsiStatus osi_op_rotary_embedding(OsiOpCtx *ctx) {
  const OsiType *x = osi_in_ranked(ctx, 0);
  if (x && x->rank != 3 && x->rank != 4)
    return osi_op_fail(ctx, OSI_ERR_SHAPE_MISMATCH, "input X has rank %d, expected 3 or 4", x->rank);
  if (osi_op_is_onnx(ctx)) {
    OsiStatus st = check_rotary(ctx, x);
    if (st != OSI_OK) return st;
  }
  return osi_out_same_as_input(ctx, 0, 0);
}

/*
 * LinearAttention(query, key, value, past_state, decay, beta) (opset 27):
 * packed [B, T, H * d] inputs; output [B, T, q_num_heads * d_v] with
 * d_v = value_width / kv_num_heads; present_state [B, kv_heads, d_k, d_v]
 * with d_k = query_width / q_num_heads, typed like past_state (else T).
 */
OsiStatus osi_op_linear_attention(OsiOpCtx *ctx) {
  OsiExprStore *s = osi_op_exprs(ctx);
  int64_t qh = osi_attr_int(ctx, "q_num_heads", 0), kvh = osi_attr_int(ctx, "kv_num_heads", 0);
  const OsiType *q = osi_in_ranked(ctx, 0), *v = osi_in_ranked(ctx, 2), *past = osi_in_ranked(ctx, 3);
  if (qh <= 0 || kvh <= 0)
    return osi_op_fail(ctx, OSI_ERR_INVALID_MODEL, "q_num_heads and kv_num_heads must be positive");
  if ((q && q->rank != 3) || (v && v->rank != 3))
    return osi_op_fail(ctx, OSI_ERR_SHAPE_MISMATCH, "query and value must be 3-D [B, T, H * d]");
  Heads hq, hv;
  OsiStatus st;
  if ((st = read_heads(ctx, q, qh, "query", &hq)) != OSI_OK ||
      (st = read_heads(ctx, v, kvh, "value", &hv)) != OSI_OK)
    return st;
  int32_t t = osi_in_dtype(ctx, 0);
  OsiType *y = osi_out_tensor(ctx, 0, t, 3);
  if (y) {
    OsiExpr *d = osi_type_dims_mut(y);
    d[0] = hq.batch, d[1] = hq.seq;
    d[2] = qh == kvh && v ? v->dims[2] : osi_expr_mul(s, osi_expr_const(s, qh), hv.size);
  }
  if (!osi_out_present(ctx, 1)) return OSI_OK;
  if (past) {
    if (past->rank != 4) return osi_op_fail(ctx, OSI_ERR_SHAPE_MISMATCH, "past_state must be 4-D");
    osi_out_like(ctx, 1, past->elem_type, past);
    return OSI_OK;
  }
  int32_t st_type = osi_in_present(ctx, 3) ? osi_in_dtype(ctx, 3) : t;
  set_dims4(ctx, 1, st_type, hq.batch, osi_expr_const(s, kvh), hq.size, hv.size);
  return OSI_OK;
}

/* CausalConvWithState(input, weight[, bias, past_state]) (opset 27):
 * output like input [B, C, L]; present_state [B, C, k - 1] with k =
 * weight[2] (weight is [C, 1, k]). */
OsiStatus osi_op_causal_conv_with_state(OsiOpCtx *ctx) {
  OsiExprStore *s = osi_op_exprs(ctx);
  const OsiType *x = osi_in_ranked(ctx, 0), *w = osi_in_ranked(ctx, 1);
  if ((x && x->rank != 3) || (w && w->rank != 3))
    return osi_op_fail(ctx, OSI_ERR_SHAPE_MISMATCH, "input and weight must be 3-D");
  osi_out_same_as_input(ctx, 0, 0);
  if (!osi_out_present(ctx, 1)) return OSI_OK;
  OsiType *p = osi_out_tensor(ctx, 1, osi_in_dtype(ctx, 0), 3);
  if (!p) return OSI_OK;
  OsiExpr *d = osi_type_dims_mut(p);
  d[0] = x ? x->dims[0] : OSI_EXPR_UNKNOWN;
  d[1] = x ? x->dims[1] : w ? w->dims[0] : OSI_EXPR_UNKNOWN;
  d[2] = w ? osi_expr_sub(s, w->dims[2], osi_expr_const(s, 1)) : OSI_EXPR_UNKNOWN;
  return OSI_OK;
}

/* SwiGLU(A, B) (opset 28): A and B have identical shapes (no
 * broadcasting); Y has that shape. A dim known on either side is used. */
OsiStatus osi_op_swiglu(OsiOpCtx *ctx) {
  OsiExprStore *s = osi_op_exprs(ctx);
  const OsiType *a = osi_in_ranked(ctx, 0), *b = osi_in_ranked(ctx, 1);
  int32_t dtype = osi_in_dtype(ctx, 0) ? osi_in_dtype(ctx, 0) : osi_in_dtype(ctx, 1);
  if (!a || !b) {
    osi_out_like(ctx, 0, dtype, a ? a : b);
    return OSI_OK;
  }
  if (a->rank != b->rank)
    return osi_op_fail(ctx, OSI_ERR_SHAPE_MISMATCH, "A has rank %d and B rank %d; they must be equal",
                       a->rank, b->rank);
  OsiType *y = osi_out_like(ctx, 0, dtype, a);
  if (!y) return OSI_OK;
  for (int i = 0; i < a->rank; i++) {
    int64_t ca, cb;
    int ka = osi_expr_is_const(s, a->dims[i], &ca), kb = osi_expr_is_const(s, b->dims[i], &cb);
    if (ka && kb && ca != cb)
      return osi_op_fail(ctx, OSI_ERR_SHAPE_MISMATCH, "A dim %d is %lld but B's is %lld", i,
                         (long long)ca, (long long)cb);
    if (a->dims[i] == OSI_EXPR_UNKNOWN || (kb && !ka)) osi_type_dims_mut(y)[i] = b->dims[i];
  }
  return OSI_OK;
}

/*
 * NegativeLogLikelihoodLoss(input [N, C, d1..dk], target [N, d1..dk]) and
 * SoftmaxCrossEntropyLoss(scores, labels) (opset 12): reduction "none"
 * gives [N, d1..dk]; "sum" and "mean" (default) a scalar. SCE's optional
 * log_prob output is like scores.
 */
OsiStatus osi_op_loss(OsiOpCtx *ctx) {
  const OsiType *x = osi_in_ranked(ctx, 0), *t = osi_in_ranked(ctx, 1);
  const char *red = osi_attr_str(ctx, "reduction", "mean");
  int32_t dtype = osi_in_dtype(ctx, 0);
  if (x && x->rank < 2)
    return osi_op_fail(ctx, OSI_ERR_SHAPE_MISMATCH, "input has rank %d, expected [N, C, ...]", x->rank);
  if (x && t && t->rank != x->rank - 1)
    return osi_op_fail(ctx, OSI_ERR_SHAPE_MISMATCH, "target rank %d should be input rank %d minus 1",
                       t->rank, x->rank);
  /* target [N, d1..dk] matches input [N, C, d1..dk]. */
  char rule[64];
  snprintf(rule, sizeof rule, "%s target", osi_op_type(ctx));
  for (int i = 0; x && t && i < t->rank; i++) {
    OsiStatus st = osi_op_require_dims_eq(ctx, rule, 1, i, 0, i == 0 ? 0 : i + 1);
    if (st != OSI_OK) return st;
  }
  /* The weight is 1-D; onnxruntime indexes it by the target's classes and
   * does not compare its length with C. */
  if (osi_in_present(ctx, 2)) {
    OsiStatus st = osi_op_require_rank(ctx, 2, 1, 1);
    if (st != OSI_OK) return st;
  }
  if (osi_out_present(ctx, 1) && x) osi_out_like(ctx, 1, dtype, x);
  if (strcmp(red, "none") != 0) {
    if (strcmp(red, "sum") != 0 && strcmp(red, "mean") != 0)
      return osi_op_fail(ctx, OSI_ERR_INVALID_MODEL, "reduction '%s' is not none, sum or mean", red);
    osi_out_tensor(ctx, 0, dtype, 0);
    return OSI_OK;
  }
  if (!x && !t) {
    osi_out_tensor(ctx, 0, dtype, -1);
    return OSI_OK;
  }
  int r = x ? x->rank - 1 : t->rank;
  OsiType *y = osi_out_tensor(ctx, 0, dtype, r);
  if (!y) return OSI_OK;
  for (int i = 0; i < r; i++) {
    OsiExpr from_x = x ? x->dims[i == 0 ? 0 : i + 1] : OSI_EXPR_UNKNOWN;
    osi_type_dims_mut(y)[i] = t && t->dims[i] != OSI_EXPR_UNKNOWN ? t->dims[i] : from_x;
  }
  return OSI_OK;
}
