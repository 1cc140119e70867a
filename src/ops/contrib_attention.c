/*
 * com.microsoft attention family (onnxruntime contrib ops, ContribOperators.md):
 * Attention, MultiHeadAttention, GroupQueryAttention and their packed,
 * decoder, sparse, paged, quantized and Longformer variants, the position
 * biases, RemovePadding / RestorePadding, and the recurrent LinearAttention,
 * GatedDeltaNet and causal-conv ops.
 *
 * Packed layouts carry heads * head_size in one dim; per-head sizes are that
 * dim divided by the head count (exact in valid models, checked when
 * constant). KV caches grow by the current kv sequence (present = past +
 * kv_sequence_length) unless past and present share one buffer, in which
 * case present has past's shape. A dim the spec leaves to runtime values
 * (a shared buffer's effective length, a QK output's key length) stays
 * unknown.
 */
#include <string.h>

#include "ops/helpers.h"

#define UNK OSI_EXPR_UNKNOWN

/* Dim i of a ranked tensor type, unknown when t is NULL or too short. */
static OsiExpr dim(const OsiType *t, int i) { return t && t->rank > i ? t->dims[i] : UNK; }

static OsiExpr pick(OsiExpr a, OsiExpr b) { return a != UNK ? a : b; }

static OsiExpr cnst(OsiOpCtx *ctx, int64_t v) { return v > 0 ? osi_expr_const(osi_op_exprs(ctx), v) : UNK; }

/* Publishes output i (when listed) with the n dims d. */
static void set_dims(OsiOpCtx *ctx, int i, int32_t dtype, int n, const OsiExpr *d) {
  if (!osi_out_present(ctx, i)) return;
  OsiType *t = osi_out_tensor(ctx, i, dtype, n);
  if (t) memcpy(osi_type_dims_mut(t), d, (size_t)n * sizeof *d);
}

/* d / k for a packed dim; fails when a constant d is not a multiple of k. */
static OsiStatus div_exact(OsiOpCtx *ctx, OsiExpr d, int64_t k, const char *what, OsiExpr *out) {
  OsiExprStore *s = osi_op_exprs(ctx);
  int64_t c;
  *out = UNK;
  if (k <= 0 || d == UNK) return OSI_OK;
  if (osi_expr_is_const(s, d, &c) && c % k != 0)
    return osi_op_fail(ctx, OSI_ERR_SHAPE_MISMATCH, "%s is %lld, not a multiple of %lld", what,
                       (long long)c, (long long)k);
  *out = osi_expr_floordiv(s, d, osi_expr_const(s, k));
  return OSI_OK;
}

/* Fails unless t (when ranked) has rank a or b. */
static OsiStatus want_rank(OsiOpCtx *ctx, const OsiType *t, int a, int b, const char *what) {
  if (!t || t->rank == a || t->rank == b) return OSI_OK;
  if (a == b) return osi_op_fail(ctx, OSI_ERR_SHAPE_MISMATCH, "%s has rank %d, expected %d", what, t->rank, a);
  return osi_op_fail(ctx, OSI_ERR_SHAPE_MISMATCH, "%s has rank %d, expected %d or %d", what, t->rank, a, b);
}

/* Known content of a scalar (or 1-element) integer input, else unknown. */
static OsiExpr scalar_value(const OsiOpCtx *ctx, int i) {
  const OsiExpr *e;
  return osi_in_exprs(ctx, i, &e) == 1 ? e[0] : UNK;
}

/*
 * Attention / DecoderMaskedSelfAttention / QAttention (input [B, S, Din],
 * weights [Din, H + H + Hv], bias [H + H + Hv], ..., past): output is
 * [B, S, Hv] with Hv = qkv_hidden_sizes[2], else weights[1] / 3; its type is
 * bias's (T3 for QAttention), else input's. present is [2, B, N, P + S,
 * head] for past [2, B, N, P, head] (P = 0 without past), or past's own
 * shape (max_sequence_length) when past_present_share_buffer is set.
 */
static OsiStatus fused_attention(OsiOpCtx *ctx, int past_in) {
  OsiExprStore *s = osi_op_exprs(ctx);
  const OsiType *x = osi_in_ranked(ctx, 0), *w = osi_in_ranked(ctx, 1), *bias = osi_in_ranked(ctx, 2);
  const OsiType *past = osi_in_ranked(ctx, past_in);
  int64_t n = osi_attr_int(ctx, "num_heads", 0);
  const int64_t *qkv;
  int nq = osi_attr_ints(ctx, "qkv_hidden_sizes", &qkv);
  OsiStatus st;
  if ((st = want_rank(ctx, x, 3, 3, "input")) != OSI_OK || (st = want_rank(ctx, w, 2, 2, "weights")) != OSI_OK ||
      (st = want_rank(ctx, past, 5, 5, "past")) != OSI_OK)
    return st;
  if (nq >= 0 && nq != 3)
    return osi_op_fail(ctx, OSI_ERR_INVALID_MODEL, "qkv_hidden_sizes has %d entries, expected 3", nq);
  /* weights [input_hidden, Q + K + V widths], bias [Q + K + V widths]. */
  if ((st = osi_op_require_dims_eq(ctx, "Attention weights", 1, 0, 0, 2)) != OSI_OK) return st;
  if (osi_in_present(ctx, 2) && ((st = want_rank(ctx, bias, 1, 1, "bias")) != OSI_OK ||
                                 (st = osi_op_require_dims_eq(ctx, "Attention bias", 2, 0, 1, 1)) != OSI_OK))
    return st;
  if (nq == 3 && w) {
    __int128 sum = (__int128)qkv[0] + qkv[1] + qkv[2];
    if (qkv[0] < 0 || qkv[1] < 0 || qkv[2] < 0 || sum > INT64_MAX)
      return osi_op_fail(ctx, OSI_ERR_INVALID_MODEL, "qkv_hidden_sizes must be sizes");
    if ((st = osi_op_require_dim(ctx, "Attention weights", 1, 1, osi_expr_const(s, (int64_t)sum),
                                 OSI_WHAT("the sum of qkv_hidden_sizes"))) != OSI_OK)
      return st;
  }
  int32_t t = osi_in_present(ctx, 2) && osi_in_dtype(ctx, 2) ? osi_in_dtype(ctx, 2) : osi_in_dtype(ctx, 0);
  OsiExpr hk = UNK, hv = UNK;
  if (nq == 3) {
    hk = cnst(ctx, qkv[1]), hv = cnst(ctx, qkv[2]);
  } else {
    if ((st = div_exact(ctx, pick(dim(w, 1), dim(bias, 0)), 3, "weights dim 1 (3 * hidden_size)", &hk)) != OSI_OK)
      return st;
    hv = hk;
  }
  set_dims(ctx, 0, t, 3, (OsiExpr[]){dim(x, 0), dim(x, 1), hv});
  if (!osi_out_present(ctx, 1)) return OSI_OK;
  if (osi_in_present(ctx, past_in) && osi_attr_int(ctx, "past_present_share_buffer", 0)) {
    osi_out_like(ctx, 1, t, past);
    return OSI_OK;
  }
  /* present stacks K and V, so one head size serves both. */
  OsiExpr head = UNK;
  if (hk == hv && (st = div_exact(ctx, hk, n, "hidden_size", &head)) != OSI_OK) return st;
  OsiExpr p = osi_in_present(ctx, past_in) ? dim(past, 3) : osi_expr_const(s, 0);
  set_dims(ctx, 1, t, 5,
           (OsiExpr[]){osi_expr_const(s, 2), pick(dim(x, 0), dim(past, 1)), pick(cnst(ctx, n), dim(past, 2)),
                       osi_expr_add(s, p, dim(x, 1)), pick(dim(past, 4), head)});
  return OSI_OK;
}

OsiStatus osi_op_ms_attention(OsiOpCtx *ctx) { return fused_attention(ctx, 4); }
OsiStatus osi_op_ms_qattention(OsiOpCtx *ctx) { return fused_attention(ctx, 8); }

/* Batch, query/kv sequence, K/V head sizes and output width of an MHA. */
typedef struct Mha {
  OsiExpr batch, seq, kv_seq, head_k, head_v, width;
  int cross; /* key/value given as BNSH caches: no past concatenation */
} Mha;

/* MultiHeadAttention layouts: packed QKV query [B, L, N, 3, H]; query
 * [B, S, D] with packed KV key [B, L, N, 2, H], key/value [B, L, D] /
 * [B, L, Dv], or BNSH key/value [B, N, L, H] / [B, N, L, Hv]. */
static OsiStatus mha_layout(OsiOpCtx *ctx, int64_t n, Mha *m) {
  OsiExprStore *s = osi_op_exprs(ctx);
  const OsiType *q = osi_in_ranked(ctx, 0), *k = osi_in_ranked(ctx, 1), *v = osi_in_ranked(ctx, 2);
  OsiStatus st;
  memset(m, 0, sizeof *m);
  if ((st = want_rank(ctx, q, 3, 5, "query")) != OSI_OK || (st = want_rank(ctx, v, 3, 4, "value")) != OSI_OK)
    return st;
  if (k && (k->rank < 3 || k->rank > 5))
    return osi_op_fail(ctx, OSI_ERR_SHAPE_MISMATCH, "key has rank %d, expected 3, 4 or 5", k->rank);
  m->batch = dim(q, 0), m->seq = dim(q, 1);
  if (q && q->rank == 5) {
    m->kv_seq = q->dims[1], m->head_k = m->head_v = q->dims[4];
    m->width = osi_expr_mul(s, q->dims[2], q->dims[4]);
  } else if (k && k->rank == 5) {
    m->kv_seq = k->dims[1], m->head_k = m->head_v = k->dims[4], m->width = dim(q, 2);
  } else if (k && k->rank == 4) {
    m->cross = 1, m->kv_seq = k->dims[2], m->head_k = k->dims[3], m->head_v = dim(v, 3);
    m->width = v && v->rank == 4 ? osi_expr_mul(s, v->dims[1], v->dims[3]) : UNK;
  } else if (k || v) {
    /* query [B, S, D], key [B, L, D], value [B, L, Dv]. */
    const char *R = "MultiHeadAttention key/value";
    if ((k && (st = osi_op_require_dims_eq(ctx, R, 1, 0, 0, 0)) != OSI_OK) ||
        (v && v->rank == 3 && (st = osi_op_require_dims_eq(ctx, R, 2, 0, 0, 0)) != OSI_OK) ||
        (k && v && v->rank == 3 && (st = osi_op_require_dims_eq(ctx, R, 2, 1, 1, 1)) != OSI_OK) ||
        (k && q && q->rank == 3 && (st = osi_op_require_dims_eq(ctx, "MultiHeadAttention hidden size", 1, 2, 0, 2)) != OSI_OK))
      return st;
    m->kv_seq = pick(dim(k, 1), dim(v, 1)), m->width = dim(v, 2);
    if ((st = div_exact(ctx, dim(q, 2), n, "query hidden size", &m->head_k)) != OSI_OK ||
        (st = div_exact(ctx, dim(v, 2), n, "value hidden size", &m->head_v)) != OSI_OK)
      return st;
  } else if (q && q->rank == 3) {
    /* DecoderMaskedMultiHeadAttention packed QKV [B, 1, 2 * H + Hv]: Hv is not
     * recoverable from the width alone. */
    m->kv_seq = q->dims[1];
  }
  return OSI_OK;
}

/*
 * MultiHeadAttention (past_key at 6, sharing when past_sequence_length is
 * given) and DecoderMaskedMultiHeadAttention (past_key at 5, sharing when
 * past_present_share_buffer): output [B, S, v_hidden]; present_key/value
 * [B, N, P + L, head] (L = kv sequence), past's shape when sharing; qk
 * [B, N, S, P + L] (P the past_sequence_length value when sharing) of type
 * QK, which is not tied to T and stays unknown.
 */
static OsiStatus multi_head(OsiOpCtx *ctx, int past_in, int dmmha) {
  OsiExprStore *s = osi_op_exprs(ctx);
  int64_t n = osi_attr_int(ctx, "num_heads", 0);
  int32_t t = osi_in_dtype(ctx, 0);
  Mha m;
  OsiStatus st = mha_layout(ctx, n, &m);
  if (st != OSI_OK) return st;
  /* v_hidden = N * v_head_size, which past_value also carries. */
  const OsiType *pv = osi_in_ranked(ctx, past_in + 1);
  if (m.width == UNK && n > 0 && dim(pv, 3) != UNK) m.width = osi_expr_mul(s, cnst(ctx, n), pv->dims[3]);
  set_dims(ctx, 0, t, 3, (OsiExpr[]){m.batch, m.seq, m.width});
  int share = dmmha ? osi_attr_int(ctx, "past_present_share_buffer", 0) != 0 : osi_in_present(ctx, 8);
  /* A decoder's cross attention reads its caches as given; the spec does
   * not say what present then holds. */
  int open = m.cross && dmmha;
  for (int o = 1; o <= 2; o++) {
    const OsiType *p = osi_in_ranked(ctx, past_in + o - 1);
    int has_p = osi_in_present(ctx, past_in + o - 1);
    if ((st = want_rank(ctx, p, 4, 4, o == 1 ? "past_key" : "past_value")) != OSI_OK) return st;
    if (share && has_p) {
      if (osi_out_present(ctx, o)) osi_out_like(ctx, o, t, p);
      continue;
    }
    OsiExpr len = open ? UNK : osi_expr_add(s, has_p ? dim(p, 2) : osi_expr_const(s, 0), m.kv_seq);
    set_dims(ctx, o, t, 4,
             (OsiExpr[]){pick(m.batch, dim(p, 0)), pick(cnst(ctx, n), dim(p, 1)), len,
                         pick(o == 1 ? m.head_k : m.head_v, dim(p, 3))});
  }
  /* qk's key axis is the total length past + L; with a shared buffer the
   * past length is the past_sequence_length value, not the buffer's. */
  const OsiType *pk = osi_in_ranked(ctx, past_in);
  OsiExpr past = share ? scalar_value(ctx, past_in + 2)
                       : osi_in_present(ctx, past_in) ? dim(pk, 2) : osi_expr_const(s, 0);
  OsiExpr total = open ? UNK : osi_expr_add(s, past, m.kv_seq);
  set_dims(ctx, 3, 0, 4, (OsiExpr[]){m.batch, cnst(ctx, n), m.seq, total});
  return OSI_OK;
}

OsiStatus osi_op_ms_multi_head_attention(OsiOpCtx *ctx) { return multi_head(ctx, 6, 0); }
OsiStatus osi_op_ms_decoder_masked_mha(OsiOpCtx *ctx) { return multi_head(ctx, 5, 1); }

/*
 * GroupQueryAttention (total_sequence_length at 6) and SparseAttention (at
 * 7): query [B, S, N * H], or packed QKV [B, S, (N + 2 * KVN) * H] when key
 * and value are absent; output [B, S, N * H]. present_key/value are
 * [B, KVN, Max(P, T), H] with P = past length (0 without past) and T the
 * total_sequence_length value, which is both the grown cache (P + S) and a
 * shared max-length buffer (P >= T). SparseAttention and a GQA
 * sliding_window_cache keep past's capacity. A quantized cache without
 * past has no stated type or head width. GQA's output_qk is [B, N, S, T].
 */
static OsiStatus group_query(OsiOpCtx *ctx, int total_in, int sparse) {
  OsiExprStore *s = osi_op_exprs(ctx);
  const OsiType *q = osi_in_ranked(ctx, 0);
  int64_t n = osi_attr_int(ctx, "num_heads", 0), kvn = osi_attr_int(ctx, "kv_num_heads", 0);
  int32_t t = osi_in_dtype(ctx, 0);
  OsiStatus st;
  if ((st = want_rank(ctx, q, 3, 3, "query")) != OSI_OK) return st;
  int packed = !osi_in_present(ctx, 1) && !osi_in_present(ctx, 2);
  OsiExpr head, width = dim(q, 2);
  int64_t parts = packed && n > 0 && kvn > 0 ? n + 2 * kvn : packed ? 0 : n;
  if ((st = div_exact(ctx, dim(q, 2), parts, "query hidden size", &head)) != OSI_OK) return st;
  if (packed) width = head != UNK && n > 0 ? osi_expr_mul(s, head, osi_expr_const(s, n)) : UNK;
  if (n > 0 && kvn > 0 && n % kvn != 0)
    return osi_op_fail(ctx, OSI_ERR_INVALID_MODEL, "num_heads %lld is not a multiple of kv_num_heads %lld",
                       (long long)n, (long long)kvn);
  if (!packed) {
    /* key and value [B, L, kv_num_heads * head_size], one shape. */
    const OsiType *k = osi_in_ranked(ctx, 1), *v = osi_in_ranked(ctx, 2);
    if ((st = want_rank(ctx, k, 3, 3, "key")) != OSI_OK || (st = want_rank(ctx, v, 3, 3, "value")) != OSI_OK) return st;
    const char *R = sparse ? "SparseAttention key/value" : "GroupQueryAttention key/value";
    for (int i = 0; k && v && i < 3; i++)
      if ((st = osi_op_require_dims_eq(ctx, R, 2, i, 1, i)) != OSI_OK) return st;
    if ((st = osi_op_require_dims_eq(ctx, R, 1, 0, 0, 0)) != OSI_OK) return st;
    if (kvn > 0 && head != UNK &&
        (st = osi_op_require_dim(ctx, R, 1, 2, osi_expr_mul(s, head, osi_expr_const(s, kvn)),
                                 OSI_WHAT("kv_num_heads times the head size"))) != OSI_OK)
      return st;
  }
  set_dims(ctx, 0, t, 3, (OsiExpr[]){dim(q, 0), dim(q, 1), width});
  int keep_capacity = sparse || osi_attr_int(ctx, "sliding_window_cache", 0) == 1;
  OsiExpr total = scalar_value(ctx, total_in);
  for (int o = 1; o <= 2; o++) {
    const OsiType *p = osi_in_ranked(ctx, 2 + o);
    int has_p = osi_in_present(ctx, 2 + o);
    if ((st = want_rank(ctx, p, 4, 4, o == 1 ? "past_key" : "past_value")) != OSI_OK) return st;
    if (!osi_out_present(ctx, o)) continue;
    if (has_p && keep_capacity) {
      osi_out_like(ctx, o, osi_in_dtype(ctx, 2 + o), p);
      continue;
    }
    const char *quant = osi_attr_str(ctx, o == 1 ? "k_quant_type" : "v_quant_type", "NONE");
    int plain = has_p || strcmp(quant, "NONE") == 0;
    OsiExpr past_len = has_p ? dim(p, 2) : osi_expr_const(s, 0);
    OsiExpr len = keep_capacity || total == UNK ? UNK : osi_expr_max(s, past_len, total);
    set_dims(ctx, o, has_p ? osi_in_dtype(ctx, 2 + o) : plain ? t : 0, 4,
             (OsiExpr[]){pick(dim(q, 0), dim(p, 0)), pick(cnst(ctx, kvn), dim(p, 1)), len,
                         has_p ? dim(p, 3) : plain ? head : UNK});
  }
  /* output_qk: [B, N, S, total_sequence_length] (the runtime's, also with a
   * longer shared buffer). */
  if (!sparse) set_dims(ctx, 3, t, 4, (OsiExpr[]){dim(q, 0), cnst(ctx, n), dim(q, 1), total});
  return OSI_OK;
}

OsiStatus osi_op_ms_group_query_attention(OsiOpCtx *ctx) { return group_query(ctx, 6, 0); }
OsiStatus osi_op_ms_sparse_attention(OsiOpCtx *ctx) { return group_query(ctx, 7, 1); }

/* PackedAttention(input [T, Din], weights [Din, H + H + Hv], bias, ...):
 * output [T, Hv], Hv = qkv_hidden_sizes[2], else weights[1] / 3. */
OsiStatus osi_op_ms_packed_attention(OsiOpCtx *ctx) {
  const OsiType *x = osi_in_ranked(ctx, 0), *w = osi_in_ranked(ctx, 1), *bias = osi_in_ranked(ctx, 2);
  const int64_t *qkv;
  int nq = osi_attr_ints(ctx, "qkv_hidden_sizes", &qkv);
  OsiStatus st;
  if ((st = want_rank(ctx, x, 2, 2, "input")) != OSI_OK) return st;
  if (nq >= 0 && nq != 3)
    return osi_op_fail(ctx, OSI_ERR_INVALID_MODEL, "qkv_hidden_sizes has %d entries, expected 3", nq);
  OsiExpr hv = UNK;
  if (nq == 3) hv = cnst(ctx, qkv[2]);
  else if ((st = div_exact(ctx, pick(dim(w, 1), dim(bias, 0)), 3, "weights dim 1 (3 * hidden_size)", &hv)) != OSI_OK)
    return st;
  set_dims(ctx, 0, osi_in_dtype(ctx, 0), 2, (OsiExpr[]){dim(x, 0), hv});
  return OSI_OK;
}

/* PackedMultiHeadAttention: query [T, D] with value [T, Dv] gives [T, Dv];
 * packed QKV query [T, N, 3, H] gives [T, N * H]. */
OsiStatus osi_op_ms_packed_mha(OsiOpCtx *ctx) {
  const OsiType *q = osi_in_ranked(ctx, 0), *v = osi_in_ranked(ctx, 2);
  OsiStatus st;
  if ((st = want_rank(ctx, q, 2, 4, "query")) != OSI_OK || (st = want_rank(ctx, v, 2, 2, "value")) != OSI_OK)
    return st;
  OsiExpr width = q && q->rank == 4 ? osi_expr_mul(osi_op_exprs(ctx), q->dims[1], q->dims[3]) : dim(v, 1);
  set_dims(ctx, 0, osi_in_dtype(ctx, 0), 2, (OsiExpr[]){dim(q, 0), width});
  return OSI_OK;
}

/*
 * PagedAttention: output [num_tokens, N * v_head_size]: query's shape when
 * value is given, [T, N * d / (N + 2 * KVN)] for packed QKV, and with
 * kv_cache_layout LATENT [T, N * v_head_size] (query's shape when
 * v_head_size is 0). key_cache_out / value_cache_out alias the caches.
 */
OsiStatus osi_op_ms_paged_attention(OsiOpCtx *ctx) {
  OsiExprStore *s = osi_op_exprs(ctx);
  const OsiType *q = osi_in_ranked(ctx, 0);
  int64_t n = osi_attr_int(ctx, "num_heads", 0), kvn = osi_attr_int(ctx, "kv_num_heads", 0);
  int64_t vhs = osi_attr_int(ctx, "v_head_size", 0);
  const char *layout = osi_attr_str(ctx, "kv_cache_layout", "SEPARATE");
  int latent = strcmp(layout, "LATENT") == 0;
  OsiStatus st;
  if (!latent && strcmp(layout, "SEPARATE") != 0)
    return osi_op_fail(ctx, OSI_ERR_INVALID_MODEL, "kv_cache_layout '%s' is not SEPARATE or LATENT", layout);
  if ((st = want_rank(ctx, q, 2, 2, "query")) != OSI_OK) return st;
  OsiExpr width = dim(q, 1);
  if (latent && vhs > 0 && n > 0) {
    width = osi_expr_const(s, n * vhs);
  } else if (!latent && !osi_in_present(ctx, 2)) {
    OsiExpr head;
    if ((st = div_exact(ctx, dim(q, 1), n > 0 && kvn >= 0 ? n + 2 * kvn : 0, "query hidden size", &head)) != OSI_OK)
      return st;
    width = head != UNK ? osi_expr_mul(s, head, osi_expr_const(s, n)) : UNK;
  }
  set_dims(ctx, 0, osi_in_dtype(ctx, 0), 2, (OsiExpr[]){dim(q, 0), width});
  if (osi_out_present(ctx, 1)) osi_out_same_as_input(ctx, 1, 3);
  if (osi_out_present(ctx, 2)) osi_out_same_as_input(ctx, 2, 4);
  return OSI_OK;
}

/*
 * DecoderAttention(query [S, B, H], key [T, B, H], ...): output like query;
 * new_key_cache / new_value_cache are [B, N, new length, H / N], the new
 * length depending on the static_kv / use_past input values.
 */
OsiStatus osi_op_ms_decoder_attention(OsiOpCtx *ctx) {
  const OsiType *q = osi_in_ranked(ctx, 0), *kc = osi_in_ranked(ctx, 6);
  int64_t n = osi_attr_int(ctx, "num_heads", 0);
  OsiStatus st;
  if ((st = want_rank(ctx, q, 3, 3, "query")) != OSI_OK || (st = want_rank(ctx, kc, 4, 4, "key_cache")) != OSI_OK)
    return st;
  int32_t t = osi_in_dtype(ctx, 0);
  osi_out_like(ctx, 0, t, q);
  OsiExpr head;
  if ((st = div_exact(ctx, dim(q, 2), n, "query hidden size", &head)) != OSI_OK) return st;
  OsiExpr d[4] = {pick(dim(q, 1), dim(kc, 0)), pick(cnst(ctx, n), dim(kc, 1)), UNK, pick(head, dim(kc, 3))};
  set_dims(ctx, 1, t, 4, d);
  set_dims(ctx, 2, t, 4, d);
  return OSI_OK;
}

/* QOrderedAttention(input [B, S, Din], ..., Q/K/V_weight [Din, hidden]):
 * output [B, S, hidden] (V_weight's width), input's int8 type. */
OsiStatus osi_op_ms_qordered_attention(OsiOpCtx *ctx) {
  const OsiType *x = osi_in_ranked(ctx, 0), *wq = osi_in_ranked(ctx, 5), *wv = osi_in_ranked(ctx, 7);
  OsiStatus st;
  if ((st = want_rank(ctx, x, 3, 3, "input")) != OSI_OK) return st;
  set_dims(ctx, 0, osi_in_dtype(ctx, 0), 3, (OsiExpr[]){dim(x, 0), dim(x, 1), pick(dim(wv, 1), dim(wq, 1))});
  return OSI_OK;
}

/* RelativePositionBias(bias_table [buckets, N], query_length, key_length):
 * output [1, N, query_length, key_length] from the two scalar values. */
OsiStatus osi_op_ms_relative_position_bias(OsiOpCtx *ctx) {
  const OsiType *bt = osi_in_ranked(ctx, 0);
  OsiStatus st;
  if ((st = want_rank(ctx, bt, 2, 2, "bias_table")) != OSI_OK) return st;
  set_dims(ctx, 0, osi_in_dtype(ctx, 0), 4,
           (OsiExpr[]){osi_expr_const(osi_op_exprs(ctx), 1), dim(bt, 1), scalar_value(ctx, 1), scalar_value(ctx, 2)});
  return OSI_OK;
}

/* GatedRelativePositionBias: output [B, N, S, S], with B, S from
 * token_offset [B, S] when padding was removed, else from query_layer
 * [B, S, N * H]. */
OsiStatus osi_op_ms_gated_relative_position_bias(OsiOpCtx *ctx) {
  const OsiType *q = osi_in_ranked(ctx, 0), *to = osi_in_ranked(ctx, 6);
  OsiStatus st;
  if ((st = want_rank(ctx, q, 2, 3, "query_layer")) != OSI_OK || (st = want_rank(ctx, to, 2, 2, "token_offset")) != OSI_OK)
    return st;
  const OsiType *src = to ? to : q && q->rank == 3 ? q : NULL;
  OsiExpr b = dim(src, 0), sq = dim(src, 1);
  if (osi_in_present(ctx, 6) && !to) b = sq = UNK;
  set_dims(ctx, 0, osi_in_dtype(ctx, 0), 4, (OsiExpr[]){b, cnst(ctx, osi_attr_int(ctx, "num_heads", 0)), sq, sq});
  return OSI_OK;
}

/*
 * RemovePadding(input [B, S, H], sequence_token_count [B]): output
 * [total_tokens, H] where total_tokens = sum of the counts (data dependent,
 * at most B * S); token_offset [B, S], cumulated_seq_len [B + 1],
 * max_seq_len [1], all of M's type.
 */
OsiStatus osi_op_ms_remove_padding(OsiOpCtx *ctx) {
  OsiExprStore *s = osi_op_exprs(ctx);
  const OsiType *x = osi_in_ranked(ctx, 0);
  OsiStatus st;
  if ((st = want_rank(ctx, x, 3, 3, "input")) != OSI_OK) return st;
  int32_t m = osi_in_dtype(ctx, 1) ? osi_in_dtype(ctx, 1) : OSI_DT_INT32;
  OsiExpr tokens = osi_op_fresh_dim(ctx, "total_tokens");
  OsiExpr bound = osi_expr_mul(s, dim(x, 0), dim(x, 1));
  if (bound != UNK) osi_op_constrain_le(ctx, tokens, bound);
  osi_op_diag_sizes(ctx, "DATA_DEPENDENT", "total_tokens is the sum of sequence_token_count; named %E",
                    tokens);
  set_dims(ctx, 0, osi_in_dtype(ctx, 0), 2, (OsiExpr[]){tokens, dim(x, 2)});
  set_dims(ctx, 1, m, 2, (OsiExpr[]){dim(x, 0), dim(x, 1)});
  set_dims(ctx, 2, m, 1, (OsiExpr[]){osi_expr_add(s, dim(x, 0), osi_expr_const(s, 1))});
  set_dims(ctx, 3, m, 1, (OsiExpr[]){osi_expr_const(s, 1)});
  return OSI_OK;
}

/* RestorePadding(input [total_tokens, H], token_offset [B, S]): [B, S, H]. */
OsiStatus osi_op_ms_restore_padding(OsiOpCtx *ctx) {
  const OsiType *x = osi_in_ranked(ctx, 0), *to = osi_in_ranked(ctx, 1);
  OsiStatus st;
  if ((st = want_rank(ctx, x, 2, 2, "input")) != OSI_OK || (st = want_rank(ctx, to, 2, 2, "token_offset")) != OSI_OK)
    return st;
  set_dims(ctx, 0, osi_in_dtype(ctx, 0), 3, (OsiExpr[]){dim(to, 0), dim(to, 1), dim(x, 1)});
  return OSI_OK;
}

/*
 * LinearAttention (contrib): query [B, T, Hq * dk], value [B, T, Hkv * dv];
 * output [B, T, max(Hq, Hkv) * dv]; present_state [B, Hkv, dk, dv], led by
 * a window axis of extent state_window when it is > 0 (past_state has the
 * same shape). State type: past_state's, else query's.
 */
OsiStatus osi_op_ms_linear_attention(OsiOpCtx *ctx) {
  OsiExprStore *s = osi_op_exprs(ctx);
  const OsiType *q = osi_in_ranked(ctx, 0), *v = osi_in_ranked(ctx, 2), *past = osi_in_ranked(ctx, 3);
  int64_t qh = osi_attr_int(ctx, "q_num_heads", 0), kvh = osi_attr_int(ctx, "kv_num_heads", 0);
  int64_t w = osi_attr_int(ctx, "state_window", 0);
  OsiStatus st;
  if (qh <= 0 || kvh <= 0)
    return osi_op_fail(ctx, OSI_ERR_INVALID_MODEL, "q_num_heads and kv_num_heads must be positive");
  if (w < 0 || w > 8) return osi_op_fail(ctx, OSI_ERR_INVALID_MODEL, "state_window %lld is not in [0, 8]", (long long)w);
  if ((st = want_rank(ctx, q, 3, 3, "query")) != OSI_OK || (st = want_rank(ctx, v, 3, 3, "value")) != OSI_OK ||
      (st = want_rank(ctx, past, w ? 5 : 4, w ? 5 : 4, "past_state")) != OSI_OK)
    return st;
  OsiExpr dk, dv;
  if ((st = div_exact(ctx, dim(q, 2), qh, "query hidden size", &dk)) != OSI_OK ||
      (st = div_exact(ctx, dim(v, 2), kvh, "value hidden size", &dv)) != OSI_OK)
    return st;
  int64_t heads = qh > kvh ? qh : kvh;
  OsiExpr width = heads == kvh ? dim(v, 2) : dv != UNK ? osi_expr_mul(s, osi_expr_const(s, heads), dv) : UNK;
  set_dims(ctx, 0, osi_in_dtype(ctx, 0), 3, (OsiExpr[]){dim(q, 0), dim(q, 1), width});
  if (!osi_out_present(ctx, 1)) return OSI_OK;
  int32_t ts = osi_in_present(ctx, 3) ? osi_in_dtype(ctx, 3) : osi_in_dtype(ctx, 0);
  if (past) {
    osi_out_like(ctx, 1, ts, past);
    return OSI_OK;
  }
  OsiExpr d[5] = {osi_expr_const(s, w), dim(q, 0), osi_expr_const(s, kvh), dk, dv};
  set_dims(ctx, 1, ts, w ? 5 : 4, w ? d : d + 1);
  return OSI_OK;
}

/*
 * CausalConvWithState (contrib): output like input. For ndim 1 the
 * present_state is [B, C, (k - 1) * dilation] (k = weight's last dim), or
 * [B, (k - 1) * dilation, d1..dn] with channels_last, led by a window axis
 * of extent state_window when it is > 0. The spec states no shape for
 * ndim 2 or 3.
 */
OsiStatus osi_op_ms_causal_conv_with_state(OsiOpCtx *ctx) {
  OsiExprStore *s = osi_op_exprs(ctx);
  const OsiType *x = osi_in_ranked(ctx, 0), *w = osi_in_ranked(ctx, 1);
  int64_t win = osi_attr_int(ctx, "state_window", 0), dil = osi_attr_int(ctx, "dilation", 1);
  int64_t ndim = osi_attr_int(ctx, "ndim", 1), cl = osi_attr_int(ctx, "channels_last", 0);
  if (win < 0 || win > 8 || dil < 1 || (cl != 0 && cl != 1) || (cl && ndim != 1) || ndim < 1 || ndim > 3)
    return osi_op_fail(ctx, OSI_ERR_INVALID_MODEL,
                       "state_window must be in [0, 8], dilation >= 1, ndim 1..3, channels_last 0/1 (ndim 1 only)");
  if ((x && (cl ? x->rank < 3 : x->rank != 2 + ndim)) || (w && w->rank != 2 + ndim))
    return osi_op_fail(ctx, OSI_ERR_SHAPE_MISMATCH, "input must have rank %s%lld and weight rank %lld",
                       cl ? ">= " : "", (long long)(2 + ndim), (long long)(2 + ndim));
  int32_t t = osi_in_dtype(ctx, 0);
  osi_out_same_as_input(ctx, 0, 0);
  if (!osi_out_present(ctx, 1)) return OSI_OK;
  if (ndim != 1 || (cl && !x)) {
    osi_out_tensor(ctx, 1, t, -1);
    return OSI_OK;
  }
  OsiExpr state = osi_expr_mul(s, osi_expr_sub(s, dim(w, 2), osi_expr_const(s, 1)), osi_expr_const(s, dil));
  OsiExpr d[OSI_MAX_RANK];
  int r = 0;
  if (win) d[r++] = osi_expr_const(s, win);
  d[r++] = dim(x, 0);
  if (cl) {
    d[r++] = state;
    for (int i = 2; i < x->rank && r < OSI_MAX_RANK; i++) d[r++] = x->dims[i];
  } else {
    d[r++] = pick(dim(x, 1), dim(w, 0));
    d[r++] = state;
  }
  set_dims(ctx, 1, t, r, d);
  return OSI_OK;
}

/*
 * VarlenCausalConvWithState(input [T, C], weight [C, 1, k], cu_seqlens
 * [B + 1], bias, initial_state [B, C, (k - 1) * dilation], capture_count):
 * output like input; final_state like initial_state; state_update
 * [B, state_update_capacity, C].
 */
OsiStatus osi_op_ms_varlen_causal_conv(OsiOpCtx *ctx) {
  OsiExprStore *s = osi_op_exprs(ctx);
  const OsiType *x = osi_in_ranked(ctx, 0), *w = osi_in_ranked(ctx, 1), *cu = osi_in_ranked(ctx, 2);
  const OsiType *init = osi_in_ranked(ctx, 4);
  int64_t dil = osi_attr_int(ctx, "dilation", 1), cap = osi_attr_int(ctx, "state_update_capacity", 0);
  OsiStatus st;
  if (dil < 1 || cap < 0 || cap > 8)
    return osi_op_fail(ctx, OSI_ERR_INVALID_MODEL, "dilation must be >= 1 and state_update_capacity in [0, 8]");
  if ((st = want_rank(ctx, x, 2, 2, "input")) != OSI_OK || (st = want_rank(ctx, w, 3, 3, "weight")) != OSI_OK ||
      (st = want_rank(ctx, cu, 1, 1, "cumulative_sequence_length")) != OSI_OK ||
      (st = want_rank(ctx, init, 3, 3, "initial_state")) != OSI_OK)
    return st;
  int32_t t = osi_in_dtype(ctx, 0);
  osi_out_same_as_input(ctx, 0, 0);
  OsiExpr b = pick(dim(init, 0), osi_expr_sub(s, dim(cu, 0), osi_expr_const(s, 1)));
  OsiExpr c = pick(dim(x, 1), pick(dim(init, 1), dim(w, 0)));
  OsiExpr len = osi_expr_mul(s, osi_expr_sub(s, dim(w, 2), osi_expr_const(s, 1)), osi_expr_const(s, dil));
  set_dims(ctx, 1, t, 3, (OsiExpr[]){b, c, pick(dim(init, 2), len)});
  set_dims(ctx, 2, t, 3, (OsiExpr[]){b, osi_expr_const(s, cap), c});
  return OSI_OK;
}

/*
 * GatedDeltaNet(query [tokens.., Hq, Dqk], key [tokens.., Hk, Dqk], value
 * [tokens.., Hv, Dv], cu_seqlens [B + 1], ..., initial_state [B, Hv, Dv,
 * Dqk], ..., capture_count [B]): tokens.. is [T] or [B, S]. output
 * [tokens.., Max(Hq, Hv), Dv]; final_state (float) [B, Hv, Dv, Dqk];
 * state_update (float) [B, C * (Hv + Hk * Dqk + Hv * Dv)].
 */
OsiStatus osi_op_ms_gated_delta_net(OsiOpCtx *ctx) {
  OsiExprStore *s = osi_op_exprs(ctx);
  const OsiType *q = osi_in_ranked(ctx, 0), *k = osi_in_ranked(ctx, 1), *v = osi_in_ranked(ctx, 2);
  const OsiType *cu = osi_in_ranked(ctx, 3), *init = osi_in_ranked(ctx, 6), *cc = osi_in_ranked(ctx, 9);
  int64_t cap = osi_attr_int(ctx, "state_update_capacity", 0);
  OsiStatus st;
  if (cap < 0 || cap > 8) return osi_op_fail(ctx, OSI_ERR_INVALID_MODEL, "state_update_capacity must be in [0, 8]");
  if ((st = want_rank(ctx, q, 3, 4, "query")) != OSI_OK || (st = want_rank(ctx, init, 4, 4, "initial_state")) != OSI_OK)
    return st;
  if ((q && v && v->rank != q->rank) || (q && k && k->rank != q->rank))
    return osi_op_fail(ctx, OSI_ERR_SHAPE_MISMATCH, "query, key and value must have the same rank");
  const OsiType *ref = q ? q : v;
  int td = ref ? ref->rank - 2 : -1;
  OsiExpr hv = td >= 0 ? dim(v, td) : UNK, dvv = td >= 0 ? dim(v, td + 1) : UNK;
  OsiExpr dqk = td >= 0 ? pick(dim(q, td + 1), dim(k, td + 1)) : UNK;
  if (ref) {
    OsiExpr d[4];
    for (int i = 0; i < td; i++) d[i] = pick(dim(q, i), dim(v, i));
    d[td] = osi_expr_max(s, dim(q, td), hv), d[td + 1] = dvv;
    set_dims(ctx, 0, osi_in_dtype(ctx, 0), ref->rank, d);
  } else {
    osi_out_tensor(ctx, 0, osi_in_dtype(ctx, 0), -1);
  }
  OsiExpr b = td == 2 ? pick(dim(q, 0), dim(v, 0)) : UNK;
  b = pick(b, pick(dim(init, 0), pick(osi_expr_sub(s, dim(cu, 0), osi_expr_const(s, 1)), dim(cc, 0))));
  if (init && osi_out_present(ctx, 1)) osi_out_like(ctx, 1, OSI_DT_FLOAT, init);
  else set_dims(ctx, 1, OSI_DT_FLOAT, 4, (OsiExpr[]){b, hv, dvv, dqk});
  OsiExpr hk = td >= 0 ? pick(dim(k, td), dim(q, td)) : UNK;
  OsiExpr per = osi_expr_add(s, hv, osi_expr_add(s, osi_expr_mul(s, hk, dqk), osi_expr_mul(s, hv, dvv)));
  set_dims(ctx, 2, OSI_DT_FLOAT, 2, (OsiExpr[]){b, osi_expr_mul(s, osi_expr_const(s, cap), per)});
  return OSI_OK;
}
