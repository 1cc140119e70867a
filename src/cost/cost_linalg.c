/*
 * The MAC-counting rules (README "Cost"): convolutions, matrix products,
 * Einsum, recurrent layers, attention and mixture of experts. MACs follow
 * the formulas of the README's table, written over the tensors the node
 * reads and writes so that layouts and quantized forms need no case of
 * their own (a convolution's Cout*Cin/group*prod(kernel) is its weight's
 * element count); FLOPs are 2*MACs plus the adds the table names.
 */
#include <string.h>

#include "cost/cost_rule.h"

static OsiExpr mul(OsiExprStore *s, OsiExpr a, OsiExpr b) { return osi_expr_mul(s, a, b); }
static OsiExpr add(OsiExprStore *s, OsiExpr a, OsiExpr b) { return osi_expr_add(s, a, b); }

/* numel(t) when input i is given, else 0: the adds of an optional bias. */
static OsiExpr if_given(const OsiCostIn *c, int i, OsiExpr numel) {
  return osi_cost_has_input(c, i) ? numel : osi_expr_const(c->s, 0);
}

/* The packed weights of the N-bit matmuls, named by the bits they hold
 * (their tensors are uint8 bytes); else the weight input's element type. */
static const char *weight_elem(const OsiCostIn *c, int w) {
  const char *op = c->node->op_type;
  if (!strcmp(op, "MatMulNBits") || !strcmp(op, "MatMulNBitsMlp") || !strcmp(op, "MatMulNBitsQkv")) {
    switch (osi_cost_attr_int(c->node, "bits", 4)) {
    case 2: return "uint2";
    case 4: return "uint4";
    case 8: return "uint8";
    default: return NULL;
    }
  }
  if (!strcmp(op, "MatMulBnb4") || !strcmp(op, "MatMulFpQ4")) return "uint4";
  if (!strcmp(op, "MatMulBlockQuantizedFp4Weight")) return "float4e2m1";
  if (!strcmp(op, "MatMulBlockQuantizedFp8Weight")) return "float8e4m3fn";
  return osi_cost_in_elem(c, w);
}

/* Conv family: numel(Y) * prod(W.dims[1:]) = N*Cout*prod(out spatial) *
 * (Cin/group)*prod(kernel), in any layout whose weight starts with Cout;
 * a bias (and FusedConv's Z) is one add per output element. */
void osi_cost_conv(const OsiCostIn *c, OsiCostOut *out) {
  const OsiType *y = osi_cost_out(c, 0), *w = osi_cost_in(c, c->p[0]);
  out->elem_type = weight_elem(c, c->p[0]);
  OsiExpr ny = osi_cost_numel(c->s, y);
  OsiExpr macs = w && w->rank >= 1 ? mul(c->s, ny, osi_cost_dims(c->s, w, 1, w->rank)) : OSI_EXPR_UNKNOWN;
  OsiExpr extra = if_given(c, c->p[1], ny);
  if (!strcmp(c->node->op_type, "FusedConv") || !strcmp(c->node->op_type, "NhwcFusedConv"))
    extra = add(c->s, extra, if_given(c, 3, ny));
  osi_cost_set_macs(c, out, macs, extra);
}

/* ConvTranspose: N*Cin*prod(in spatial)*(Cout/group)*prod(kernel) =
 * numel(X) * prod(W.dims[1:]) (W is [Cin, Cout/group, kernel...]). */
void osi_cost_conv_t(const OsiCostIn *c, OsiCostOut *out) {
  const OsiType *x = osi_cost_in(c, 0), *w = osi_cost_in(c, c->p[0]);
  out->elem_type = weight_elem(c, c->p[0]);
  OsiExpr macs = w && w->rank >= 1 ? mul(c->s, osi_cost_numel(c->s, x), osi_cost_dims(c->s, w, 1, w->rank))
                                   : OSI_EXPR_UNKNOWN;
  osi_cost_set_macs(c, out, macs, if_given(c, c->p[1], osi_cost_numel(c->s, osi_cost_out(c, 0))));
}

/* The contracted size of a matmul's left operand: its last dim, or the
 * one before it when FusedMatMul/TransposeMatMul transpose it (with
 * transBatchA, A is [K, batch..., M] transposed: its first). */
static OsiExpr contracted(const OsiCostIn *c, const OsiType *a) {
  if (!a || a->rank < 1) return OSI_EXPR_UNKNOWN;
  if (!osi_cost_attr_int(c->node, "transA", 0) || a->rank < 2) return osi_cost_dim(a, -1);
  return osi_cost_attr_int(c->node, "transBatchA", 0) ? osi_cost_dim(a, 0) : osi_cost_dim(a, -2);
}

/* MatMul family: prod(broadcast batch dims)*M*N*K = numel(Y) * K. */
void osi_cost_matmul(const OsiCostIn *c, OsiCostOut *out) {
  const OsiType *y = osi_cost_out(c, 0);
  out->elem_type = weight_elem(c, c->p[1]);
  OsiExpr ny = osi_cost_numel(c->s, y);
  OsiExpr extra = if_given(c, c->p[2], ny);
  if (!strcmp(c->node->op_type, "GemmFastGelu")) extra = add(c->s, extra, mul(c->s, osi_cost_k(c->s, 9), ny));
  osi_cost_set_macs(c, out, mul(c->s, ny, contracted(c, osi_cost_in(c, c->p[0]))), extra);
}

/* Gemm: M*N*K with K = A's dim 1 (0 when transA), + one add per output
 * element when C is given. */
void osi_cost_gemm(const OsiCostIn *c, OsiCostOut *out) {
  const OsiType *a = osi_cost_in(c, c->p[0]), *y = osi_cost_out(c, 0);
  out->elem_type = weight_elem(c, c->p[1]);
  OsiExpr k = a && a->rank == 2 ? a->dims[osi_cost_attr_int(c->node, "transA", 0) ? 0 : 1] : OSI_EXPR_UNKNOWN;
  OsiExpr ny = osi_cost_numel(c->s, y);
  osi_cost_set_macs(c, out, mul(c->s, ny, k), if_given(c, c->p[2], ny));
}

/* MatMulNBitsMlp: gate and up projections, each numel(Y)*K. */
void osi_cost_nbits_mlp(const OsiCostIn *c, OsiCostOut *out) {
  const OsiType *y = osi_cost_out(c, 0);
  out->elem_type = weight_elem(c, 3);
  OsiExpr ny = osi_cost_numel(c->s, y);
  OsiExpr macs = mul(c->s, osi_cost_k(c->s, 2), mul(c->s, ny, osi_cost_dim(osi_cost_in(c, 0), -1)));
  osi_cost_set_macs(c, out, macs, add(c->s, if_given(c, 5, ny), if_given(c, 8, ny)));
}

/* MatMulNBitsQkv: the Q, K and V projections, (numel(Q)+numel(K)+numel(V))*K. */
void osi_cost_nbits_qkv(const OsiCostIn *c, OsiCostOut *out) {
  out->elem_type = weight_elem(c, 3);
  OsiExpr rows = osi_expr_const(c->s, 0), extra = osi_expr_const(c->s, 0);
  for (int o = 0; o < 3; o++) {
    OsiExpr n = osi_cost_numel(c->s, osi_cost_out(c, o));
    rows = add(c->s, rows, n);
    extra = add(c->s, extra, if_given(c, 5 + 3 * o, n));
  }
  osi_cost_set_macs(c, out, mul(c->s, rows, osi_cost_dim(osi_cost_in(c, 0), -1)), extra);
}

/* Section - Einsum */

/* Each letter's size, the broadcast of its sizes in every operand. */
typedef struct Letters {
  OsiExpr size[128];
  OsiExpr ellipsis[64]; /* right-aligned: ellipsis[63] is the last ellipsis dim */
  int n_ellipsis;
} Letters;

static int letter(char ch) {
  return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z');
}

/* Reads one operand's term [term, end) against its type. */
static int einsum_operand(OsiExprStore *s, const char *term, const char *end, const OsiType *t, Letters *l) {
  int letters = 0, dots = 0;
  for (const char *p = term; p < end; p++) {
    if (letter(*p)) {
      letters++;
    } else if (*p == '.') {
      if (end - p < 3 || p[1] != '.' || p[2] != '.') return 0;
      dots++;
      p += 2;
    } else if (*p != ' ') {
      return 0;
    }
  }
  if (!t || dots > 1 || (!dots && letters != t->rank) || letters > t->rank || t->rank - letters > 64) return 0;
  int n_ell = dots ? t->rank - letters : 0, axis = 0;
  for (const char *p = term; p < end; p++) {
    if (letter(*p)) {
      OsiExpr d = t->dims[axis++], *slot = &l->size[(unsigned char)*p];
      *slot = !*slot ? d : osi_expr_broadcast(s, *slot, d);
      if (*slot == OSI_EXPR_UNKNOWN) return 0;
    } else if (*p == '.') {
      for (int k = 0; k < n_ell; k++) {
        OsiExpr d = t->dims[axis + k], *slot = &l->ellipsis[64 - n_ell + k];
        *slot = !*slot ? d : osi_expr_broadcast(s, *slot, d);
        if (*slot == OSI_EXPR_UNKNOWN) return 0;
      }
      if (n_ell > l->n_ellipsis) l->n_ellipsis = n_ell;
      axis += n_ell;
      p += 2;
    }
  }
  return 1;
}

/* Einsum: the product of every index size of the equation (the ellipsis's
 * broadcast dims included). */
void osi_cost_einsum(const OsiCostIn *c, OsiCostOut *out) {
  out->elem_type = osi_cost_out_elem(c, 0);
  const char *eq = osi_cost_attr_str(c->node, "equation", NULL);
  Letters l;
  memset(&l, 0, sizeof l);
  const char *arrow = eq ? strstr(eq, "->") : NULL;
  const char *end = arrow ? arrow : eq ? eq + strlen(eq) : NULL;
  int operand = 0, ok = eq != NULL;
  for (const char *term = eq; ok && term && term <= end; operand++) {
    const char *comma = memchr(term, ',', (size_t)(end - term));
    const char *stop = comma ? comma : end;
    ok = operand < c->node->n_inputs && einsum_operand(c->s, term, stop, osi_cost_in(c, operand), &l);
    term = comma ? comma + 1 : NULL;
  }
  if (!ok || operand != c->node->n_inputs) {
    out->macs = out->flops = OSI_EXPR_UNKNOWN;
    out->why = eq ? OSI_COST_WHY_SHAPE : "it has no equation";
    return;
  }
  OsiExpr macs = osi_expr_const(c->s, 1);
  for (int i = 0; i < 128; i++)
    if (l.size[i]) macs = mul(c->s, macs, l.size[i]);
  for (int k = 64 - l.n_ellipsis; k < 64; k++) macs = mul(c->s, macs, l.ellipsis[k]);
  osi_cost_set_macs(c, out, macs, osi_expr_const(c->s, 0));
}

/* Section - Recurrent layers */

/* RNN/GRU/LSTM (and DynamicQuantizeLSTM): per step and batch row every
 * gate's input and recurrent matmuls, W [dirs, gates*H, I] and R [dirs,
 * gates*H, H]: seq*batch*(numel(W)+numel(R)); the biases B [dirs,
 * 2*gates*H] one add each per step and row. Gate activations and the cell
 * update are not counted. */
void osi_cost_rnn(const OsiCostIn *c, OsiCostOut *out) {
  const OsiType *x = osi_cost_in(c, 0);
  out->elem_type = weight_elem(c, 1);
  if (!x || x->rank != 3) return osi_cost_set_macs(c, out, OSI_EXPR_UNKNOWN, OSI_EXPR_UNKNOWN);
  OsiExpr steps = mul(c->s, x->dims[0], x->dims[1]); /* seq*batch in either layout */
  OsiExpr weights = add(c->s, osi_cost_numel(c->s, osi_cost_in(c, 1)), osi_cost_numel(c->s, osi_cost_in(c, 2)));
  OsiExpr bias = if_given(c, 3, osi_cost_numel(c->s, osi_cost_in(c, 3)));
  osi_cost_set_macs(c, out, mul(c->s, steps, weights), mul(c->s, steps, bias));
}

/* Section - Mixture of experts, distances, linear models */

/* MoE: each row of the input runs through k experts' fc1, fc2 (and fc3):
 * rows*k*(numel(fc1)+numel(fc2)+numel(fc3))/experts. */
void osi_cost_moe(const OsiCostIn *c, OsiCostOut *out) {
  const OsiType *x = osi_cost_in(c, 0);
  out->elem_type = weight_elem(c, 2);
  int64_t k = osi_cost_attr_int(c->node, "k", 1);
  OsiExpr per_row = osi_expr_const(c->s, 0);
  for (int i = 2; i <= 6; i += 2) {
    if (!osi_cost_has_input(c, i)) continue;
    const OsiType *w = osi_cost_in(c, i);
    per_row = add(c->s, per_row, w && w->rank >= 1 ? osi_cost_dims(c->s, w, 1, w->rank) : OSI_EXPR_UNKNOWN);
  }
  OsiExpr rows = x && x->rank >= 1 ? osi_cost_dims(c->s, x, 0, x->rank - 1) : OSI_EXPR_UNKNOWN;
  osi_cost_set_macs(c, out, mul(c->s, mul(c->s, rows, osi_cost_k(c->s, k < 0 ? 0 : k)), per_row),
                    osi_expr_const(c->s, 0));
}

/* CDist: for each of the N*M pairs, D differences squared and summed
 * (one MAC and one subtraction per component). */
void osi_cost_cdist(const OsiCostIn *c, OsiCostOut *out) {
  out->elem_type = osi_cost_out_elem(c, 0);
  OsiExpr macs = mul(c->s, osi_cost_numel(c->s, osi_cost_out(c, 0)), osi_cost_dim(osi_cost_in(c, 0), -1));
  osi_cost_set_macs(c, out, macs, macs);
}

/* LinearClassifier/Regressor: a row times the coefficient matrix plus the
 * intercepts: N*len(coefficients) MACs, N*len(intercepts) adds. */
void osi_cost_linear_ml(const OsiCostIn *c, OsiCostOut *out) {
  const OsiType *x = osi_cost_in(c, 0);
  out->elem_type = osi_cost_in_elem(c, 0);
  const OsiAttr *co = osi_node_attr(c->node, "coefficients");
  const OsiAttr *in = osi_node_attr(c->node, "intercepts");
  if (!co || co->type != OSI_ATTR_FLOATS) return osi_cost_set_macs(c, out, OSI_EXPR_UNKNOWN, OSI_EXPR_UNKNOWN);
  OsiExpr rows = !x ? OSI_EXPR_UNKNOWN : x->rank == 2 ? x->dims[0] : osi_expr_const(c->s, 1);
  int64_t n_in = in && in->type == OSI_ATTR_FLOATS ? (int64_t)in->n : 0;
  osi_cost_set_macs(c, out, mul(c->s, rows, osi_cost_k(c->s, (int64_t)co->n)), mul(c->s, rows, osi_cost_k(c->s, n_in)));
}
