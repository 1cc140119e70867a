/*
 * Attention (README "Cost"): both score matmuls over the lengths the
 * kernel uses, Q*K^T (S x T per head, head size d_qk) and the weights
 * times V (S x T per head, head size d_v), so S*T*(D_qk + D_v) MACs per
 * batch row with D the heads' total size; plus, for com.microsoft
 * Attention, its Q/K/V projection. T is the key length including a past
 * cache: the present cache's length when the node writes one (with a
 * shared buffer, the buffer's length), else the keys' (+ the past's). The
 * causal mask does not shorten it: the kernels compute the whole S x T
 * score matrix. FLOPs: 2*MACs, 6 per score (scale 1, softmax 5), and the
 * projection's bias adds.
 */
#include "cost/cost_rule.h"

static OsiExpr mul(OsiExprStore *s, OsiExpr a, OsiExpr b) { return osi_expr_mul(s, a, b); }
static OsiExpr add(OsiExprStore *s, OsiExpr a, OsiExpr b) { return osi_expr_add(s, a, b); }

/* Rows of a [batch, seq, hidden] tensor (batch*seq) and its hidden size. */
static OsiExpr rows(OsiExprStore *s, const OsiType *t) {
  return t && t->rank >= 1 ? osi_cost_dims(s, t, 0, t->rank - 1) : OSI_EXPR_UNKNOWN;
}

/* The cache length a present output `o` of layout [.., T, head] (T at
 * axis `axis`) gives, or UNKNOWN. */
static OsiExpr present_len(const OsiCostIn *c, int o, int axis) {
  const OsiType *p = osi_cost_out(c, o);
  return p && p->rank > axis ? p->dims[axis] : OSI_EXPR_UNKNOWN;
}

/* Q*K^T and weights*V for `r` query rows over `t` keys, heads' total sizes
 * d_qk and d_v; `scores` = r*heads*t. */
static void scores_cost(const OsiCostIn *c, OsiCostOut *out, OsiExpr r, OsiExpr t, OsiExpr d_qk, OsiExpr d_v,
                        OsiExpr heads, OsiExpr proj_macs, OsiExpr proj_adds) {
  OsiExprStore *s = c->s;
  OsiExpr macs = add(s, proj_macs, mul(s, mul(s, r, t), add(s, d_qk, d_v)));
  OsiExpr softmax = mul(s, osi_cost_k(s, 6), mul(s, mul(s, r, heads), t));
  osi_cost_set_macs(c, out, macs, add(s, softmax, proj_adds));
}

/* ai.onnx Attention (opset 23): Q [B, S, q_heads*d] or [B, q_heads, S, d],
 * K/V likewise with kv heads; past_key input 4, present_key output 1
 * ([B, kv_heads, T, d]). MACs: (numel(Q) + numel(Y)) * T. */
void osi_cost_attention(const OsiCostIn *c, OsiCostOut *out) {
  OsiExprStore *s = c->s;
  const OsiType *q = osi_cost_in(c, 0), *k = osi_cost_in(c, 1), *y = osi_cost_out(c, 0);
  out->elem_type = osi_cost_out_elem(c, 0);
  OsiExpr t = present_len(c, 1, 2);
  if (t == OSI_EXPR_UNKNOWN && k) {
    t = k->rank == 4 ? k->dims[2] : k->rank == 3 ? k->dims[1] : OSI_EXPR_UNKNOWN;
    const OsiType *past = osi_cost_in(c, 4);
    if (osi_cost_has_input(c, 4)) t = past && past->rank == 4 ? add(s, t, past->dims[2]) : OSI_EXPR_UNKNOWN;
  }
  if (!q || !y || (q->rank != 3 && q->rank != 4)) return osi_cost_set_macs(c, out, OSI_EXPR_UNKNOWN, OSI_EXPR_UNKNOWN);
  /* 4-D: per (batch, head, query) row; 3-D: per (batch, query) row over all heads */
  OsiExpr r = q->rank == 4 ? osi_cost_dims(s, q, 0, 3) : rows(s, q);
  OsiExpr heads = q->rank == 4 ? osi_expr_const(s, 1) : osi_cost_k(s, osi_cost_attr_int(c->node, "q_num_heads", -1));
  if (q->rank == 3 && osi_cost_attr_int(c->node, "q_num_heads", -1) < 1) heads = OSI_EXPR_UNKNOWN;
  OsiExpr d_v = y->rank >= 1 ? osi_cost_dim(y, -1) : OSI_EXPR_UNKNOWN;
  scores_cost(c, out, r, t, osi_cost_dim(q, -1), d_v, heads, osi_expr_const(s, 0), osi_expr_const(s, 0));
}

/* com.microsoft Attention, QAttention, DecoderMaskedSelfAttention: input X
 * [B, S, in] (input p0) projected by W [in, D_q + D_k + D_v] (input p1,
 * bias after it): rows*numel(W) MACs and rows*W.dims[1] bias adds; past
 * [2, B, heads, P, d] (input p2), present output 1 [2, B, heads, T, d]. */
void osi_cost_attention_ms(const OsiCostIn *c, OsiCostOut *out) {
  OsiExprStore *s = c->s;
  const OsiType *x = osi_cost_in(c, c->p[0]), *w = osi_cost_in(c, c->p[1]), *y = osi_cost_out(c, 0);
  out->elem_type = osi_cost_in_elem(c, c->p[1]);
  if (!x || !w || w->rank != 2 || !y || y->rank < 1)
    return osi_cost_set_macs(c, out, OSI_EXPR_UNKNOWN, OSI_EXPR_UNKNOWN);
  OsiExpr r = rows(s, x);
  OsiExpr t = present_len(c, 1, 3);
  if (t == OSI_EXPR_UNKNOWN) {
    t = x->rank == 3 ? x->dims[1] : OSI_EXPR_UNKNOWN;
    const OsiType *past = osi_cost_in(c, c->p[2]);
    if (osi_cost_has_input(c, c->p[2])) t = past && past->rank == 5 ? add(s, t, past->dims[3]) : OSI_EXPR_UNKNOWN;
  }
  /* D_q: qkv_hidden_sizes[0], else a third of the projection */
  const OsiAttr *sizes = osi_node_attr(c->node, "qkv_hidden_sizes");
  OsiExpr d_q = sizes && sizes->type == OSI_ATTR_INTS && sizes->n == 3 && sizes->ints[0] >= 0
                    ? osi_expr_const(s, sizes->ints[0])
                    : osi_expr_floordiv(s, w->dims[1], osi_expr_const(s, 3));
  int64_t heads = osi_cost_attr_int(c->node, "num_heads", -1);
  OsiExpr proj = mul(s, r, osi_cost_numel(s, w));
  OsiExpr bias = osi_cost_has_input(c, c->p[1] + 1) ? mul(s, r, w->dims[1]) : osi_expr_const(s, 0);
  scores_cost(c, out, r, t, d_q, osi_cost_dim(y, -1), heads >= 1 ? osi_cost_k(s, heads) : OSI_EXPR_UNKNOWN, proj,
              bias);
}

/* MultiHeadAttention, DecoderMaskedMultiHeadAttention: query [B, S, D_qk]
 * (or packed QKV [B, S, heads, 3, d]), keys [B, L, D_qk] or [B, heads, L,
 * d]; present_key output 1 [B, heads, T, d]; past_key input 6 (MHA). */
void osi_cost_mha(const OsiCostIn *c, OsiCostOut *out) {
  OsiExprStore *s = c->s;
  const OsiType *q = osi_cost_in(c, 0), *k = osi_cost_in(c, 1), *y = osi_cost_out(c, 0);
  out->elem_type = osi_cost_out_elem(c, 0);
  if (!q || !y || y->rank != 3 || (q->rank != 3 && q->rank != 5))
    return osi_cost_set_macs(c, out, OSI_EXPR_UNKNOWN, OSI_EXPR_UNKNOWN);
  OsiExpr d_qk = q->rank == 5 ? mul(s, q->dims[2], q->dims[4]) : q->dims[2];
  OsiExpr t = present_len(c, 1, 2);
  if (t == OSI_EXPR_UNKNOWN) {
    if (!osi_cost_has_input(c, 1)) t = q->dims[1]; /* packed QKV: self-attention */
    else if (k) t = k->rank == 4 ? k->dims[2] : k->rank == 3 ? k->dims[1] : OSI_EXPR_UNKNOWN;
    const OsiType *past = osi_cost_in(c, 6);
    int is_mha = c->node->op_type[0] == 'M';
    if (is_mha && osi_cost_has_input(c, 6)) t = past && past->rank == 4 ? add(s, t, past->dims[2]) : OSI_EXPR_UNKNOWN;
  }
  int64_t heads = osi_cost_attr_int(c->node, "num_heads", -1);
  scores_cost(c, out, rows(s, y), t, d_qk, y->dims[2], heads >= 1 ? osi_cost_k(s, heads) : OSI_EXPR_UNKNOWN,
              osi_expr_const(s, 0), osi_expr_const(s, 0));
}

/* GroupQueryAttention: query heads share kv heads; both score matmuls run
 * per query head over d = D/heads, so 2*numel(Y)*T MACs; T from
 * present_key (output 1, [B, kv_heads, T, d]), else keys + past. */
void osi_cost_gqa(const OsiCostIn *c, OsiCostOut *out) {
  OsiExprStore *s = c->s;
  const OsiType *y = osi_cost_out(c, 0), *q = osi_cost_in(c, 0), *k = osi_cost_in(c, 1), *past = osi_cost_in(c, 3);
  out->elem_type = osi_cost_out_elem(c, 0);
  OsiExpr t = present_len(c, 1, 2);
  if (t == OSI_EXPR_UNKNOWN) {
    t = k && k->rank == 3 ? k->dims[1] : !osi_cost_has_input(c, 1) && q && q->rank == 3 ? q->dims[1] : OSI_EXPR_UNKNOWN;
    if (osi_cost_has_input(c, 3)) t = past && past->rank == 4 ? add(s, t, past->dims[2]) : OSI_EXPR_UNKNOWN;
  }
  if (!y || y->rank != 3) return osi_cost_set_macs(c, out, OSI_EXPR_UNKNOWN, OSI_EXPR_UNKNOWN);
  int64_t heads = osi_cost_attr_int(c->node, "num_heads", -1);
  scores_cost(c, out, rows(s, y), t, y->dims[2], y->dims[2], heads >= 1 ? osi_cost_k(s, heads) : OSI_EXPR_UNKNOWN,
              osi_expr_const(s, 0), osi_expr_const(s, 0));
}
