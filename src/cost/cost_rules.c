/*
 * The per-element cost rules (README "Cost", the conventions table): data
 * movement, element-wise ops, normalizations, softmax, reductions, pooling,
 * resize and sampling, scatter with a reduction; and the helpers every rule
 * shares. Counts are expressions of the node's sizes, built with the
 * expression store's checked arithmetic (an overflow is an unknown count).
 */
#include <string.h>

#include "cost/cost_rule.h"

/* Section - Helpers */

static const OsiType *ranked(const OsiType *t) {
  return t && t->kind == OSI_KIND_TENSOR && t->rank >= 0 ? t : NULL;
}

const OsiType *osi_cost_in(const OsiCostIn *c, int i) {
  return i >= 0 && i < c->node->n_inputs ? ranked(c->in[i]) : NULL;
}

const OsiType *osi_cost_out(const OsiCostIn *c, int o) {
  return o >= 0 && o < c->node->n_outputs ? ranked(c->out[o]) : NULL;
}

int osi_cost_has_input(const OsiCostIn *c, int i) {
  return i >= 0 && i < c->node->n_inputs && c->node->inputs[i][0] != '\0';
}

OsiExpr osi_cost_k(OsiExprStore *s, int64_t v) { return osi_expr_const(s, v); }

OsiExpr osi_cost_dims(OsiExprStore *s, const OsiType *t, int from, int to) {
  if (!t || from < 0 || to > t->rank) return OSI_EXPR_UNKNOWN;
  OsiExpr p = osi_expr_const(s, 1);
  for (int i = from; i < to; i++) p = osi_expr_mul(s, p, t->dims[i]);
  return p;
}

OsiExpr osi_cost_numel(OsiExprStore *s, const OsiType *t) {
  return t ? osi_cost_dims(s, t, 0, t->rank) : OSI_EXPR_UNKNOWN;
}

OsiExpr osi_cost_dim(const OsiType *t, int i) {
  if (!t) return OSI_EXPR_UNKNOWN;
  if (i < 0) i += t->rank;
  return i >= 0 && i < t->rank ? t->dims[i] : OSI_EXPR_UNKNOWN;
}

int64_t osi_cost_attr_int(const OsiNode *n, const char *name, int64_t dflt) {
  const OsiAttr *a = osi_node_attr(n, name);
  return a && a->type == OSI_ATTR_INT ? a->i : dflt;
}

const char *osi_cost_attr_str(const OsiNode *n, const char *name, const char *dflt) {
  const OsiAttr *a = osi_node_attr(n, name);
  return a && a->type == OSI_ATTR_STRING && a->s ? a->s : dflt;
}

static const char *elem_of(const OsiType *t) {
  return t && t->kind == OSI_KIND_TENSOR ? osi_dtype_name(t->elem_type) : NULL;
}

const char *osi_cost_in_elem(const OsiCostIn *c, int i) {
  return i >= 0 && i < c->node->n_inputs ? elem_of(c->in[i]) : NULL;
}

const char *osi_cost_out_elem(const OsiCostIn *c, int o) {
  return o >= 0 && o < c->node->n_outputs ? elem_of(c->out[o]) : NULL;
}

static void unknown(OsiCostOut *out, const char *why) {
  out->macs = out->flops = OSI_EXPR_UNKNOWN;
  if (!out->why) out->why = why;
}

void osi_cost_set_macs(const OsiCostIn *c, OsiCostOut *out, OsiExpr macs, OsiExpr extra) {
  OsiExpr flops = osi_expr_add(c->s, osi_expr_mul(c->s, osi_expr_const(c->s, 2), macs), extra);
  if (macs == OSI_EXPR_UNKNOWN || flops == OSI_EXPR_UNKNOWN) return unknown(out, OSI_COST_WHY_SHAPE);
  out->macs = macs;
  out->flops = flops;
}

void osi_cost_set_flops(const OsiCostIn *c, OsiCostOut *out, OsiExpr flops) {
  if (flops == OSI_EXPR_UNKNOWN) return unknown(out, OSI_COST_WHY_SHAPE);
  out->macs = osi_expr_const(c->s, 0);
  out->flops = flops;
}

/* k FLOPs per element of t. */
static void per_element(const OsiCostIn *c, OsiCostOut *out, const OsiType *t, int64_t k) {
  osi_cost_set_flops(c, out, osi_expr_mul(c->s, osi_expr_const(c->s, k), osi_cost_numel(c->s, t)));
}

/* Section - Rules */

void osi_cost_none(const OsiCostIn *c, OsiCostOut *out) {
  out->macs = out->flops = osi_expr_const(c->s, 0);
  out->elem_type = osi_cost_out_elem(c, 0);
}

void osi_cost_ew(const OsiCostIn *c, OsiCostOut *out) {
  out->elem_type = osi_cost_out_elem(c, 0);
  per_element(c, out, osi_cost_out(c, 0), c->p[0]);
}

void osi_cost_ewb(const OsiCostIn *c, OsiCostOut *out) {
  out->elem_type = osi_cost_out_elem(c, 0);
  per_element(c, out, osi_cost_out(c, 0), c->p[0] + osi_cost_has_input(c, c->p[1]));
}

void osi_cost_ew_in(const OsiCostIn *c, OsiCostOut *out) {
  out->elem_type = osi_cost_in_elem(c, c->p[1]);
  per_element(c, out, osi_cost_in(c, c->p[1]), c->p[0]);
}

void osi_cost_variadic(const OsiCostIn *c, OsiCostOut *out) {
  int n = 0;
  for (int i = 0; i < c->node->n_inputs; i++) n += osi_cost_has_input(c, i);
  out->elem_type = osi_cost_out_elem(c, 0);
  per_element(c, out, osi_cost_out(c, 0), n > 1 ? n - 1 + c->p[0] : c->p[0]);
}

/* Gelu: 0.5*x*(1+erf(x/sqrt(2))) is 5 operations; approximate="tanh"'s
 * 0.5*x*(1+tanh(sqrt(2/pi)*(x+0.044715*x^3))) 9. */
void osi_cost_gelu(const OsiCostIn *c, OsiCostOut *out) {
  out->elem_type = osi_cost_out_elem(c, 0);
  int tanh = !strcmp(osi_cost_attr_str(c->node, "approximate", "none"), "tanh");
  per_element(c, out, osi_cost_out(c, 0), tanh ? 9 : 5);
}

/* k per output element per kernel element. */
void osi_cost_pool(const OsiCostIn *c, OsiCostOut *out) {
  out->elem_type = osi_cost_out_elem(c, 0);
  const OsiAttr *k = osi_node_attr(c->node, "kernel_shape");
  if (!k || k->type != OSI_ATTR_INTS) return unknown(out, "it has no kernel_shape attribute");
  int64_t window = c->p[0];
  for (size_t i = 0; i < k->n; i++) {
    if (k->ints[i] < 0) return unknown(out, "its kernel_shape is not a size");
    if (__builtin_mul_overflow(window, k->ints[i], &window))
      return unknown(out, "its window (the product of kernel_shape) is past int64 (2^63-1)");
  }
  per_element(c, out, osi_cost_out(c, 0), window);
}

/* size squares summed (2*size - 1), scaled and offset (2), raised to beta
 * (1) and divided into (1). */
void osi_cost_lrn(const OsiCostIn *c, OsiCostOut *out) {
  out->elem_type = osi_cost_out_elem(c, 0);
  int64_t size = osi_cost_attr_int(c->node, "size", -1);
  if (size < 1 || size > (1 << 20)) return unknown(out, "its size attribute is not a size");
  per_element(c, out, osi_cost_out(c, 0), 2 * size + 3);
}

/* Interpolating output elements over r axes: linear is one a + t*(b - a)
 * (3 operations) per pair of taps, 3*(2^r - 1); cubic one 4-tap dot
 * product (7) per group of taps, 7*(4^r - 1)/3; nearest picks (0). */
static int64_t interpolation(const char *mode, int r) {
  if (r <= 0 || r > 8) return r <= 0 ? 0 : -1;
  if (strstr(mode, "cubic")) return 7 * (((int64_t)1 << (2 * r)) - 1) / 3;
  if (strstr(mode, "linear")) return 3 * (((int64_t)1 << r) - 1);
  return 0;
}

/* Resize, Upsample: r is the number of axes whose output size is not the
 * input's at the sizes (an axis scaled by 1.5 keeps a size of 1), so it is
 * counted as an expression: each axis's [out != in] = Ind(out - in) +
 * Ind(in - out), and 2^r - 1 (linear) or (4^r - 1)/3 (cubic) built axis by
 * axis as f += [axis]*(f + 1), g += [axis]*(3g + 1). An axis whose sizes are
 * one expression adds 0. */
void osi_cost_resize(const OsiCostIn *c, OsiCostOut *out) {
  OsiExprStore *s = c->s;
  out->elem_type = osi_cost_out_elem(c, 0);
  const OsiType *x = osi_cost_in(c, 0), *y = osi_cost_out(c, 0);
  if (!x || !y || x->rank != y->rank) return unknown(out, OSI_COST_WHY_SHAPE);
  const char *mode = osi_cost_attr_str(c->node, "mode", "nearest");
  int cubic = strstr(mode, "cubic") != NULL, linear = !cubic && strstr(mode, "linear") != NULL;
  if (!cubic && !linear) return per_element(c, out, y, 0);
  OsiExpr f = osi_expr_const(s, 0), one = osi_expr_const(s, 1);
  for (int i = 0; i < x->rank; i++) {
    if (x->dims[i] == y->dims[i]) continue;
    OsiExpr changed = osi_expr_add(s, osi_expr_indicator(s, osi_expr_sub(s, y->dims[i], x->dims[i])),
                                   osi_expr_indicator(s, osi_expr_sub(s, x->dims[i], y->dims[i])));
    OsiExpr step = cubic ? osi_expr_add(s, osi_expr_mul(s, osi_expr_const(s, 3), f), one) : osi_expr_add(s, f, one);
    f = osi_expr_add(s, f, osi_expr_mul(s, changed, step));
  }
  OsiExpr per = osi_expr_mul(s, osi_expr_const(s, cubic ? 7 : 3), f);
  osi_cost_set_flops(c, out, osi_expr_mul(s, per, osi_cost_numel(s, y)));
}

/* GridSample: every output element interpolates over the spatial axes. */
void osi_cost_grid_sample(const OsiCostIn *c, OsiCostOut *out) {
  out->elem_type = osi_cost_out_elem(c, 0);
  const OsiType *y = osi_cost_out(c, 0);
  if (!y) return unknown(out, OSI_COST_WHY_SHAPE);
  int64_t k = interpolation(osi_cost_attr_str(c->node, "mode", "linear"), y->rank - 2);
  if (k < 0) return unknown(out, "it samples more than 8 axes");
  per_element(c, out, y, k);
}

/* RoiAlign: sampling_ratio^2 bilinear samples per output element, each 9
 * operations and 1 to accumulate it; sampling_ratio 0 adapts the count to
 * each box's size, which the boxes' values decide. */
void osi_cost_roi_align(const OsiCostIn *c, OsiCostOut *out) {
  out->elem_type = osi_cost_out_elem(c, 0);
  int64_t sr = osi_cost_attr_int(c->node, "sampling_ratio", 0);
  if (sr <= 0 || sr > (1 << 15))
    return unknown(out, "sampling_ratio 0: the samples per bin depend on each box's size (the data)");
  per_element(c, out, osi_cost_out(c, 0), 10 * sr * sr);
}

/* Scatter*: a write per update element (0 FLOPs), or with a reduction
 * (add, mul, max, min) one operation per update element. */
void osi_cost_scatter(const OsiCostIn *c, OsiCostOut *out) {
  out->elem_type = osi_cost_out_elem(c, 0);
  if (!strcmp(osi_cost_attr_str(c->node, "reduction", "none"), "none")) {
    out->macs = out->flops = osi_expr_const(c->s, 0);
    return;
  }
  per_element(c, out, osi_cost_in(c, 2), 1);
}
