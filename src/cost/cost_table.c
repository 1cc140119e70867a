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
#include "cost/cost_rule.h"
#include "ops/op_registry.h"

/* The rule functions, numbered: a row holds its function's number, so
 * that the table is 5 bytes a row (it is in every download of the wasm). */
#define OSI_COST_FNS(X)                                                                          \
  X(none) X(ew) X(ewb) X(ew_in) X(variadic) X(pool) X(conv) X(conv_t) X(matmul) X(gemm)         \
  X(attention_ms) X(einsum) X(rnn) X(attention) X(mha) X(gqa) X(moe) X(cdist) X(linear_ml)       \
  X(nbits_mlp) X(nbits_qkv) X(gelu) X(lrn) X(resize) X(grid_sample) X(roi_align) X(scatter)
#define OSI_COST_ENUM(name) F_##name,
enum { OSI_COST_FNS(OSI_COST_ENUM) F_COUNT };
#define OSI_COST_PTR(name) osi_cost_##name,
static const OsiCostFn FNS[F_COUNT] = {OSI_COST_FNS(OSI_COST_PTR)};

#define COUNTED(fn, a, b, c) OSI_RULE_COUNTED, F_##fn, {a, b, c}
#define OSI_COST_NONE COUNTED(none, 0, 0, 0)
#define OSI_COST_EW(k) COUNTED(ew, k, 0, 0)
#define OSI_COST_EWB(k, b) COUNTED(ewb, k, b, 0)
#define OSI_COST_EW_IN(k, i) COUNTED(ew_in, k, i, 0)
#define OSI_COST_VARIADIC(k) COUNTED(variadic, k, 0, 0)
#define OSI_COST_POOL(k) COUNTED(pool, k, 0, 0)
#define OSI_COST_CONV(w, b) COUNTED(conv, w, b, 0)
#define OSI_COST_CONV_T(w, b) COUNTED(conv_t, w, b, 0)
#define OSI_COST_MATMUL(a, w, b) COUNTED(matmul, a, w, b)
#define OSI_COST_GEMM(a, w, c) COUNTED(gemm, a, w, c)
#define OSI_COST_ATTENTION_MS(x, w, past) COUNTED(attention_ms, x, w, past)
#define OSI_COST_EINSUM COUNTED(einsum, 0, 0, 0)
#define OSI_COST_RNN COUNTED(rnn, 0, 0, 0)
#define OSI_COST_ATTENTION COUNTED(attention, 0, 0, 0)
#define OSI_COST_MHA COUNTED(mha, 0, 0, 0)
#define OSI_COST_GQA COUNTED(gqa, 0, 0, 0)
#define OSI_COST_MOE COUNTED(moe, 0, 0, 0)
#define OSI_COST_CDIST COUNTED(cdist, 0, 0, 0)
#define OSI_COST_LINEAR_ML COUNTED(linear_ml, 0, 0, 0)
#define OSI_COST_NBITS_MLP COUNTED(nbits_mlp, 0, 0, 0)
#define OSI_COST_NBITS_QKV COUNTED(nbits_qkv, 0, 0, 0)
#define OSI_COST_GELU COUNTED(gelu, 0, 0, 0)
#define OSI_COST_LRN COUNTED(lrn, 0, 0, 0)
#define OSI_COST_RESIZE COUNTED(resize, 0, 0, 0)
#define OSI_COST_GRID_SAMPLE COUNTED(grid_sample, 0, 0, 0)
#define OSI_COST_ROI_ALIGN COUNTED(roi_align, 0, 0, 0)
#define OSI_COST_SCATTER COUNTED(scatter, 0, 0, 0)
#define OSI_COST_BODY OSI_RULE_BODIES, 0, {0, 0, 0}
#define OSI_COST_UNCOUNTED(why) OSI_RULE_UNCOUNTED, WHY_##why, {0, 0, 0}

/* Why an op is not counted (cost.uncounted[].reason; tests/tools/cost_rules.mjs reads these). */
#define OSI_WHY_DATA "its work depends on the content of its inputs, not only their sizes"
#define OSI_WHY_RANDOM "random number generation is not counted"
#define OSI_WHY_STRINGS "string processing is not counted"
#define OSI_WHY_TREES "tree ensembles: the comparisons depend on each input's path through the trees"
#define OSI_WHY_SEARCH "runs its subgraphs a data-dependent number of times (a generation loop)"
#define OSI_WHY_EXTERNAL "runs a precompiled model the file does not describe"
#define OSI_WHY_TRAINING "training operator: not counted"
#define OSI_WHY_ALGORITHM "its arithmetic depends on the algorithm the runtime picks (FFT, sort, factorization, decoder)"
#define OSI_WHY_NOT_MODELLED "its arithmetic is not modelled yet"
#define OSI_WHYS(X) X(DATA) X(RANDOM) X(STRINGS) X(TREES) X(SEARCH) X(EXTERNAL) X(TRAINING) X(ALGORITHM) X(NOT_MODELLED)
#define OSI_WHY_ENUM(name) WHY_##name,
enum { OSI_WHYS(OSI_WHY_ENUM) WHY_COUNT };
#define OSI_WHY_TEXT(name) OSI_WHY_##name,
static const char *const WHYS[WHY_COUNT] = {OSI_WHYS(OSI_WHY_TEXT)};

#define OSI_OP(name, fn, since, cost) {OSI_COST_##cost},
static const OsiCostRule ONNX_RULES[] = {
#include "ops/op_list_onnx.h"
    {OSI_RULE_UNCOUNTED, 0, {0, 0, 0}}};
static const OsiCostRule ML_RULES[] = {
#include "ops/op_list_ml.h"
    {OSI_RULE_UNCOUNTED, 0, {0, 0, 0}}};
static const OsiCostRule TRAINING_RULES[] = {
#include "ops/op_list_training.h"
    {OSI_RULE_UNCOUNTED, 0, {0, 0, 0}}};
static const OsiCostRule PREVIEW_RULES[] = {
#include "ops/op_list_preview.h"
    {OSI_RULE_UNCOUNTED, 0, {0, 0, 0}}};
static const OsiCostRule CONTRIB_RULES[] = {
#include "ops/op_list_contrib.h"
    {OSI_RULE_UNCOUNTED, 0, {0, 0, 0}}};
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
  /* The same lists in the same order make the same rows (and as many:
   * tests/c/test_cost.c checks the counts). */
  return rules && row < count ? &rules[row] : NULL;
}

OsiCostFn osi_cost_rule_fn(const OsiCostRule *r) {
  return r->kind == OSI_RULE_COUNTED && r->fn < F_COUNT ? FNS[r->fn] : NULL;
}

const char *osi_cost_rule_reason(const OsiCostRule *r) {
  return r->kind == OSI_RULE_UNCOUNTED && r->fn < WHY_COUNT ? WHYS[r->fn] : NULL;
}
