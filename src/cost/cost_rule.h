/*
 * The cost rules: how one node's multiply-accumulates (MACs) and floating-
 * point operations (FLOPs) are counted from its inferred input and output
 * types. Each row of the operator tables (src/ops/op_list_*.h) names its
 * rule in its last column, so an op cannot be added without one; the
 * columns' tokens are defined in cost_table.c. README "Cost" states every
 * convention. Rules read the engine's types and the node's attributes only.
 */
#ifndef OSI_COST_RULE_H
#define OSI_COST_RULE_H

#include <stdint.h>

#include "model/graph.h"
#include "model/types.h"

/* What a rule sees of its node. */
typedef struct OsiCostIn {
  OsiExprStore *s;
  const OsiNode *node;
  const OsiType *const *in;  /* node->n_inputs entries, NULL: omitted or unknown */
  const OsiType *const *out; /* node->n_outputs entries, likewise */
  int64_t opset;             /* of the node's domain */
  const int8_t *p;           /* the rule's parameters (cost_table.c) */
} OsiCostIn;

/* What a rule found. OSI_EXPR_UNKNOWN macs or flops: the count is not known
 * (a size is unknown, or the case is not one the rule counts), with `why`. */
typedef struct OsiCostOut {
  OsiExpr macs, flops;
  /* The element type the arithmetic is done in, as the README reports it:
   * the weight operand's of a MAC-counting op (packed N-bit weights by
   * their bits, "uint4"), the first output's otherwise. NULL: unknown. */
  const char *elem_type;
  const char *why;
} OsiCostOut;

typedef void (*OsiCostFn)(const OsiCostIn *in, OsiCostOut *out);

typedef enum OsiRuleKind {
  OSI_RULE_COUNTED,   /* fn counts the node */
  OSI_RULE_BODIES,    /* If, Loop, Scan, SequenceMap: the cost of their bodies */
  OSI_RULE_UNCOUNTED, /* not counted, for `reason` */
} OsiRuleKind;

/* A row's rule (5 bytes: the table is in every download of the wasm). */
typedef struct OsiCostRule {
  uint8_t kind;  /* OsiRuleKind */
  uint8_t fn;    /* the rule's function (osi_cost_rule_fn), or the reason (UNCOUNTED) */
  int8_t p[3];   /* the token's arguments */
} OsiCostRule;

/* The rule of (domain, op_type) ("" is ai.onnx), NULL when the op tables
 * have no such op. */
const OsiCostRule *osi_cost_rule(const char *domain, const char *op_type);
/* Rules of the op-table domain at position d of osi_op_domains (same rows,
 * same order); NULL past the last domain. */
const OsiCostRule *osi_cost_rules(int d, int *count);
/* The function of a counted rule, else NULL; the reason of an uncounted
 * one, else NULL. */
OsiCostFn osi_cost_rule_fn(const OsiCostRule *r);
const char *osi_cost_rule_reason(const OsiCostRule *r);

/* Section - Helpers for rules (cost_rules.c) */

/* Input i / output o when it is a tensor of known rank, else NULL. */
const OsiType *osi_cost_in(const OsiCostIn *c, int i);
const OsiType *osi_cost_out(const OsiCostIn *c, int o);
/* Element count of a ranked tensor type (UNKNOWN when a dim is). */
OsiExpr osi_cost_numel(OsiExprStore *s, const OsiType *t);
/* Product of dims [from, to) of t (1 when empty). */
OsiExpr osi_cost_dims(OsiExprStore *s, const OsiType *t, int from, int to);
/* Dim i of t counted from the back when negative; UNKNOWN out of range. */
OsiExpr osi_cost_dim(const OsiType *t, int i);
OsiExpr osi_cost_k(OsiExprStore *s, int64_t v); /* a constant */
/* The node's integer attribute, or dflt. */
int64_t osi_cost_attr_int(const OsiNode *n, const char *name, int64_t dflt);
const char *osi_cost_attr_str(const OsiNode *n, const char *name, const char *dflt);
/* 1 when input i is listed and not "". */
int osi_cost_has_input(const OsiCostIn *c, int i);
/* Sets out to macs, flops = 2*macs + extra (the README's convention for
 * MAC-counting ops), both UNKNOWN with `why` when macs is. */
void osi_cost_set_macs(const OsiCostIn *c, OsiCostOut *out, OsiExpr macs, OsiExpr extra);
/* Sets out to 0 MACs and flops (UNKNOWN with a reason when flops is). */
void osi_cost_set_flops(const OsiCostIn *c, OsiCostOut *out, OsiExpr flops);
/* "float", "uint4", ...: the element type name of input i / output o. */
const char *osi_cost_in_elem(const OsiCostIn *c, int i);
const char *osi_cost_out_elem(const OsiCostIn *c, int o);

/* The reasons a count is not known at a node (not the table's reasons).
 * A rule says WHY_SHAPE whenever its count came out UNKNOWN; the walk
 * (cost_graph.c) tells the other two apart when every size was known: the
 * count itself did not fit, as a number (WHY_INT64) or as an expression. */
#define OSI_COST_WHY_SHAPE "an input or output size it needs is not known"
#define OSI_COST_WHY_INT64 "its count is past int64 (2^63-1), too large to count exactly"
#define OSI_COST_WHY_TOO_LARGE \
  "its count has no expression the engine can hold (a coefficient past int64, or too large an expression)"

/* Section - Rules (cost_rules.c: pointwise, pooling, resize; cost_linalg.c:
 * the MAC-counting ops) */

void osi_cost_none(const OsiCostIn *c, OsiCostOut *out);
void osi_cost_ew(const OsiCostIn *c, OsiCostOut *out);
void osi_cost_ewb(const OsiCostIn *c, OsiCostOut *out);
void osi_cost_ew_in(const OsiCostIn *c, OsiCostOut *out);
void osi_cost_variadic(const OsiCostIn *c, OsiCostOut *out);
void osi_cost_gelu(const OsiCostIn *c, OsiCostOut *out);
void osi_cost_pool(const OsiCostIn *c, OsiCostOut *out);
void osi_cost_lrn(const OsiCostIn *c, OsiCostOut *out);
void osi_cost_resize(const OsiCostIn *c, OsiCostOut *out);
void osi_cost_grid_sample(const OsiCostIn *c, OsiCostOut *out);
void osi_cost_roi_align(const OsiCostIn *c, OsiCostOut *out);
void osi_cost_scatter(const OsiCostIn *c, OsiCostOut *out);
void osi_cost_conv(const OsiCostIn *c, OsiCostOut *out);
void osi_cost_conv_t(const OsiCostIn *c, OsiCostOut *out);
void osi_cost_matmul(const OsiCostIn *c, OsiCostOut *out);
void osi_cost_gemm(const OsiCostIn *c, OsiCostOut *out);
void osi_cost_einsum(const OsiCostIn *c, OsiCostOut *out);
void osi_cost_rnn(const OsiCostIn *c, OsiCostOut *out);
void osi_cost_nbits_mlp(const OsiCostIn *c, OsiCostOut *out);
void osi_cost_nbits_qkv(const OsiCostIn *c, OsiCostOut *out);
void osi_cost_moe(const OsiCostIn *c, OsiCostOut *out);
void osi_cost_cdist(const OsiCostIn *c, OsiCostOut *out);
void osi_cost_linear_ml(const OsiCostIn *c, OsiCostOut *out);
void osi_cost_attention(const OsiCostIn *c, OsiCostOut *out);
void osi_cost_attention_ms(const OsiCostIn *c, OsiCostOut *out);
void osi_cost_mha(const OsiCostIn *c, OsiCostOut *out);
void osi_cost_gqa(const OsiCostIn *c, OsiCostOut *out);

#endif
