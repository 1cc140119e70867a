/*
 * The cost rules of the operator tables: the last column of every row of
 * src/ops/op_list_*.h, read here with the rows' own X-macro. A row without
 * that column does not compile, so no op joins the tables without a rule
 * or an explicit UNCOUNTED(reason). The tokens:
 *
 *   NONE                 moves, selects, converts or generates data: 0 MACs, 0 FLOPs
 *   EW(k)                k FLOPs per element of output 0
 *   EWB(k, b)            k per element of output 0, + 1 when input b (a bias) is given
 *   EW_IN(k, i)          k FLOPs per element of input i (reductions, global pools, ...)
 *   VARIADIC(k)          (inputs - 1 + k) FLOPs per output element (Max, Min, Sum, Mean)
 *   POOL(k)              k FLOPs per output element per kernel element
 *   CONV(w, b)           N*Cout*prod(out spatial)*(Cin/group)*prod(kernel), weight input w, bias b
 *   CONV_T(w, b)         N*Cin*prod(in spatial)*(Cout/group)*prod(kernel)
 *   MATMUL(a, w, b)      prod(Y) * K, K the last dim of input a; w the weight, b the bias
 *   GEMM(a, w, c)        M*N*K, + one add per output element when C (input c) is given
 *   EINSUM, RNN, ATTENTION, ATTENTION_MS(x, w, past), MHA, GQA, MOE, CDIST, LINEAR_ML,
 *   NBITS_MLP, NBITS_QKV, GELU, LRN, RESIZE, GRID_SAMPLE, ROI_ALIGN, SCATTER: their own rules
 *   BODY                 If, Loop, Scan, SequenceMap: the cost of their bodies
 *   UNCOUNTED(why)       not counted; `why` is one of the reasons below
 *
 * A negative input index means none.
 */
#include <string.h>

#include "cost/cost_rule.h"
#include "ops/op_registry.h"

#define OSI_COST_NONE OSI_RULE_COUNTED, osi_cost_none, {0, 0, 0}, NULL
#define OSI_COST_EW(k) OSI_RULE_COUNTED, osi_cost_ew, {k, 0, 0}, NULL
#define OSI_COST_EWB(k, b) OSI_RULE_COUNTED, osi_cost_ewb, {k, b, 0}, NULL
#define OSI_COST_EW_IN(k, i) OSI_RULE_COUNTED, osi_cost_ew_in, {k, i, 0}, NULL
#define OSI_COST_VARIADIC(k) OSI_RULE_COUNTED, osi_cost_variadic, {k, 0, 0}, NULL
#define OSI_COST_POOL(k) OSI_RULE_COUNTED, osi_cost_pool, {k, 0, 0}, NULL
#define OSI_COST_CONV(w, b) OSI_RULE_COUNTED, osi_cost_conv, {w, b, 0}, NULL
#define OSI_COST_CONV_T(w, b) OSI_RULE_COUNTED, osi_cost_conv_t, {w, b, 0}, NULL
#define OSI_COST_MATMUL(a, w, b) OSI_RULE_COUNTED, osi_cost_matmul, {a, w, b}, NULL
#define OSI_COST_GEMM(a, w, c) OSI_RULE_COUNTED, osi_cost_gemm, {a, w, c}, NULL
#define OSI_COST_ATTENTION_MS(x, w, past) OSI_RULE_COUNTED, osi_cost_attention_ms, {x, w, past}, NULL
#define OSI_COST_RULE(fn) OSI_RULE_COUNTED, fn, {0, 0, 0}, NULL
#define OSI_COST_EINSUM OSI_COST_RULE(osi_cost_einsum)
#define OSI_COST_RNN OSI_COST_RULE(osi_cost_rnn)
#define OSI_COST_ATTENTION OSI_COST_RULE(osi_cost_attention)
#define OSI_COST_MHA OSI_COST_RULE(osi_cost_mha)
#define OSI_COST_GQA OSI_COST_RULE(osi_cost_gqa)
#define OSI_COST_MOE OSI_COST_RULE(osi_cost_moe)
#define OSI_COST_CDIST OSI_COST_RULE(osi_cost_cdist)
#define OSI_COST_LINEAR_ML OSI_COST_RULE(osi_cost_linear_ml)
#define OSI_COST_NBITS_MLP OSI_COST_RULE(osi_cost_nbits_mlp)
#define OSI_COST_NBITS_QKV OSI_COST_RULE(osi_cost_nbits_qkv)
#define OSI_COST_GELU OSI_COST_RULE(osi_cost_gelu)
#define OSI_COST_LRN OSI_COST_RULE(osi_cost_lrn)
#define OSI_COST_RESIZE OSI_COST_RULE(osi_cost_resize)
#define OSI_COST_GRID_SAMPLE OSI_COST_RULE(osi_cost_grid_sample)
#define OSI_COST_ROI_ALIGN OSI_COST_RULE(osi_cost_roi_align)
#define OSI_COST_SCATTER OSI_COST_RULE(osi_cost_scatter)
#define OSI_COST_BODY OSI_RULE_BODIES, NULL, {0, 0, 0}, NULL
#define OSI_COST_UNCOUNTED(why) OSI_RULE_UNCOUNTED, NULL, {0, 0, 0}, OSI_WHY_##why

/* Why an op is not counted (cost.uncounted[].reason). */
#define OSI_WHY_DATA "its work depends on the content of its inputs, not only their sizes"
#define OSI_WHY_RANDOM "random number generation is not counted"
#define OSI_WHY_STRINGS "string processing is not counted"
#define OSI_WHY_TREES "tree ensembles: the comparisons depend on each input's path through the trees"
#define OSI_WHY_SEARCH "runs its subgraphs a data-dependent number of times (a generation loop)"
#define OSI_WHY_EXTERNAL "runs a precompiled model the file does not describe"
#define OSI_WHY_TRAINING "training operator: not counted"
#define OSI_WHY_ALGORITHM "its arithmetic depends on the algorithm the runtime picks (FFT, sort, factorization, decoder)"
#define OSI_WHY_NOT_MODELLED "its arithmetic is not modelled yet"

#define OSI_OP(name, fn, since, cost) {#name, #cost, OSI_COST_##cost},
static const OsiCostRule ONNX_RULES[] = {
#include "ops/op_list_onnx.h"
    {NULL, NULL, OSI_RULE_UNCOUNTED, NULL, {0, 0, 0}, NULL}};
static const OsiCostRule ML_RULES[] = {
#include "ops/op_list_ml.h"
    {NULL, NULL, OSI_RULE_UNCOUNTED, NULL, {0, 0, 0}, NULL}};
static const OsiCostRule TRAINING_RULES[] = {
#include "ops/op_list_training.h"
    {NULL, NULL, OSI_RULE_UNCOUNTED, NULL, {0, 0, 0}, NULL}};
static const OsiCostRule PREVIEW_RULES[] = {
#include "ops/op_list_preview.h"
    {NULL, NULL, OSI_RULE_UNCOUNTED, NULL, {0, 0, 0}, NULL}};
static const OsiCostRule CONTRIB_RULES[] = {
#include "ops/op_list_contrib.h"
    {NULL, NULL, OSI_RULE_UNCOUNTED, NULL, {0, 0, 0}, NULL}};
#undef OSI_OP

#define ROWS(table) ((int)(sizeof table / sizeof table[0]) - 1)

/* In the order of op_registry.c's domains (tests/c/test_cost_table.c checks
 * that every row lines up with the op table's). */
static const struct {
  const OsiCostRule *rules;
  int n;
} DOMAINS[] = {
    {ONNX_RULES, ROWS(ONNX_RULES)},       {ML_RULES, ROWS(ML_RULES)},
    {TRAINING_RULES, ROWS(TRAINING_RULES)}, {PREVIEW_RULES, ROWS(PREVIEW_RULES)},
    {CONTRIB_RULES, ROWS(CONTRIB_RULES)},
};

const OsiCostRule *osi_cost_rules(int d, int *count) {
  if (d < 0 || d >= (int)(sizeof DOMAINS / sizeof DOMAINS[0])) return NULL;
  *count = DOMAINS[d].n;
  return DOMAINS[d].rules;
}

const OsiCostRule *osi_cost_rule(const char *domain, const char *op_type) {
  int n;
  const OsiOpDomain *all = osi_op_domains(&n);
  const OsiOpDomain *d = osi_op_domain(domain);
  const OsiOpEntry *e = osi_op_lookup(d, op_type);
  if (!e) return NULL;
  int at = (int)(d - all), count = 0;
  const OsiCostRule *rules = osi_cost_rules(at, &count);
  int row = (int)(e - d->ops);
  /* The same lists in the same order make the same rows; should they ever
   * not, an op is better uncounted than given another op's rule. */
  if (!rules || row >= count || strcmp(rules[row].op_type, op_type) != 0) return NULL;
  return &rules[row];
}
