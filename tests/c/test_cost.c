/*
 * The cost model (src/cost/, README "Cost"): every row of the operator
 * tables has a rule, the rules' counts on hand-built models (evaluated at
 * sizes and compared with the README's formulas written out here), bodies,
 * weights from declared dims (external data never read), the activation
 * schedule, and that asking for the cost changes nothing else.
 */
#include <stdlib.h>
#include <string.h>

#include "base/json_parse.h"
#include "cost/cost_rule.h"
#include "expr/expr.h"
#include "model_builder.h"
#include "onnx_shapes.h"
#include "ops/op_registry.h"
#include "test.h"

/* Section - The table */

static void test_every_op_has_a_rule(void) {
  int n_domains;
  const OsiOpDomain *d = osi_op_domains(&n_domains);
  int total = 0, uncounted = 0;
  for (int k = 0; k < n_domains; k++) {
    int n = -1;
    const OsiCostRule *rules = osi_cost_rules(k, &n);
    CHECK(rules != NULL);
    CHECK_INT(n, d[k].n_ops);
    for (int i = 0; rules && i < n && i < d[k].n_ops; i++) {
      const OsiCostRule *r = &rules[i];
      total++;
      CHECK(r->kind == OSI_RULE_COUNTED || r->kind == OSI_RULE_BODIES || r->kind == OSI_RULE_UNCOUNTED);
      if (r->kind == OSI_RULE_COUNTED) CHECK(osi_cost_rule_fn(r) != NULL);
      if (r->kind == OSI_RULE_UNCOUNTED) {
        CHECK(osi_cost_rule_reason(r) && strlen(osi_cost_rule_reason(r)) > 10);
        uncounted++;
      }
      CHECK(osi_cost_rule(d[k].domain, d[k].ops[i].name) == r);
    }
  }
  CHECK(osi_cost_rules(n_domains, &total) == NULL);
  CHECK(osi_cost_rule("", "NoSuchOp") == NULL);
  CHECK(osi_cost_rule("my.domain", "Conv") == NULL);
  CHECK(uncounted > 0 && uncounted < total / 4);
}

/* Section - Reading a result's cost */

typedef struct Cost {
  OsiArena *arena;
  const OsiJsonValue *root, *cost, *total, *nodes, *memory;
  const char *text;
  OsiResult *r;
} Cost;

static Cost cost_of(Builder *b) {
  Cost c = {osi_arena_new(), NULL, NULL, NULL, NULL, NULL, NULL, NULL};
  c.r = builder_infer(b, 0, NULL);
  CHECK_INT(osi_result_status(c.r), OSI_OK);
  if (osi_result_status(c.r) != OSI_OK) fprintf(stderr, "  %s\n", osi_result_error(c.r));
  c.text = osi_result_cost_json(c.r);
  c.root = osi_json_parse(c.arena, c.text);
  CHECK(c.root != NULL);
  c.cost = c.root ? osi_json_get(c.root, "cost") : NULL;
  c.total = c.cost ? osi_json_get(c.cost, "total") : NULL;
  c.nodes = c.cost ? osi_json_get(c.cost, "nodes") : NULL;
  c.memory = c.root ? osi_json_get(c.root, "memory") : NULL;
  CHECK(c.total && c.nodes && c.memory);
  return c;
}

static void cost_free(Cost *c) {
  osi_result_delete(c->r);
  osi_arena_delete(c->arena);
}

/* "N=2,H=5" */
typedef struct Env {
  const char *text;
} Env;

static int lookup(void *user, const char *name, int64_t *value) {
  const char *p = ((Env *)user)->text;
  size_t len = strlen(name);
  while (p && *p) {
    if (!strncmp(p, name, len) && p[len] == '=') {
      *value = strtoll(p + len + 1, NULL, 10);
      return 1;
    }
    p = strchr(p, ',');
    if (p) p++;
  }
  return 0;
}

/* A count's value at the sizes `env` ("N=2,H=5"); -1 for null, -2 when it
 * does not evaluate. */
static int64_t at(const OsiJsonValue *v, const char *env) {
  if (!v || v->kind == OSI_JSON_NULL) return -1;
  if (v->kind == OSI_JSON_NUMBER) return (int64_t)v->number;
  if (v->kind != OSI_JSON_STRING) return -2;
  OsiExprStore *s = osi_expr_store_new();
  Env e = {env};
  int64_t out = -2;
  if (osi_expr_eval(s, osi_expr_parse(s, v->string), lookup, &e, &out) != 0) out = -2;
  osi_expr_store_delete(s);
  return out;
}

/* Field `key` of node i, decoded from the flat nodes array (cost_json.c):
 * an expression reference as its exprs string, op and elem as names. */
static const OsiJsonValue *node(const Cost *c, int i, const char *key) {
  static const OsiJsonValue null_value = {OSI_JSON_NULL, 0, NULL, 0, NULL, NULL};
  static const char *const fields[] = {"name", "op", "macs", "flops", "weightBytes", "outputBytes", "elemType"};
  int f = 0, domain = !strcmp(key, "domain");
  while (f < 7 && strcmp(fields[f], domain || !strcmp(key, "opType") ? "op" : key)) f++;
  if (f == 7 || !c->nodes || c->nodes->kind != OSI_JSON_ARRAY || (size_t)(7 * i + 7) > c->nodes->n) return NULL;
  const OsiJsonValue *v = &c->nodes->items[7 * i + f];
  const OsiJsonValue *exprs = osi_json_get(c->root, "exprs"), *ops = osi_json_get(c->root, "ops");
  const OsiJsonValue *elems = osi_json_get(c->root, "elemTypes");
  if (v->kind != OSI_JSON_NUMBER) return v;
  size_t k = (size_t)(v->number < 0 ? -v->number - 1 : v->number);
  if ((f == 2 || f == 3 || f == 5) && v->number < 0) return exprs && k < exprs->n ? &exprs->items[k] : NULL;
  if (f == 1) return ops && k < ops->n && ops->items[k].n == 2 ? &ops->items[k].items[domain] : NULL;
  if (f == 6) return v->number < 0 ? &null_value : elems && k < elems->n ? &elems->items[k] : NULL;
  return v;
}

/* Bytes of memory value i (key, bytes, from, to), decoded like a node's. */
static const OsiJsonValue *value_bytes(const Cost *c, int i) {
  const OsiJsonValue *values = osi_json_get(c->memory, "values"), *exprs = osi_json_get(c->root, "exprs");
  if (!values || (size_t)(4 * i + 4) > values->n) return NULL;
  const OsiJsonValue *v = &values->items[4 * i + 1];
  if (v->kind != OSI_JSON_NUMBER || v->number >= 0) return v;
  size_t k = (size_t)(-v->number - 1);
  return exprs && k < exprs->n ? &exprs->items[k] : NULL;
}

static const OsiJsonValue *total(const Cost *c, const char *key) {
  return c->total ? osi_json_get(c->total, key) : NULL;
}

static const char *str(const OsiJsonValue *v) {
  return v && v->kind == OSI_JSON_STRING ? v->string : v && v->kind == OSI_JSON_NULL ? "null" : "?";
}

/* The reason of entry i of cost.uncounted ("?" when there is none). */
static const char *uncounted_reason(const Cost *c, int i) {
  const OsiJsonValue *u = c->cost ? osi_json_get(c->cost, "uncounted") : NULL;
  return str(u && (size_t)i < u->n ? osi_json_get(&u->items[i], "reason") : NULL);
}

/* Section - Rules */

static void test_conv(void) {
  Builder *b = builder_new(17);
  builder_input(b, "x", "float[N,3,H,W]");
  builder_initializer_shape(b, "w", 1, 4, (int64_t[]){8, 3, 3, 3}, 0);
  builder_initializer_shape(b, "bias", 1, 1, (int64_t[]){8}, 0);
  builder_node(b, "Conv", "conv", "x", "w", "bias", "", "y", "");
  builder_attr_ints(b, "pads", 4, (int64_t[]){1, 1, 1, 1});
  builder_initializer_shape(b, "wg", 1, 4, (int64_t[]){8, 2, 3, 3}, 0);
  builder_node(b, "Conv", "grouped", "y", "wg", "", "z", "");
  builder_attr_int(b, "group", 4);
  builder_attr_ints(b, "strides", 2, (int64_t[]){2, 2});
  builder_output(b, "z", "float[*]");
  Cost c = cost_of(b);
  const char *env = "N=2,H=9,W=7";
  /* N*Cout*prod(out)*Cin/group*prod(kernel); flops 2*MACs + a bias add per output */
  CHECK_INT(at(node(&c, 0, "macs"), env), 2 * 8 * 9 * 7 * 3 * 9);
  CHECK_INT(at(node(&c, 0, "flops"), env), 2 * (2 * 8 * 9 * 7 * 3 * 9) + 2 * 8 * 9 * 7);
  CHECK_INT(at(node(&c, 1, "macs"), env), 2 * 8 * 4 * 3 * 2 * 9); /* out (9-3)//2+1 = 4, (7-3)//2+1 = 3 */
  CHECK_INT(at(node(&c, 1, "flops"), env), 2 * (2 * 8 * 4 * 3 * 2 * 9));
  CHECK_INT(at(node(&c, 0, "weightBytes"), env), 4 * (8 * 27 + 8));
  CHECK_INT(at(node(&c, 0, "outputBytes"), env), 4 * 2 * 8 * 9 * 7);
  CHECK_INT(at(total(&c, "params"), env), 8 * 27 + 8 + 8 * 18);
  CHECK_INT(at(total(&c, "weightBytes"), env), 4 * (8 * 27 + 8 + 8 * 18));
  CHECK_INT(at(total(&c, "macs"), env), 2 * 8 * 9 * 7 * 3 * 9 + 2 * 8 * 4 * 3 * 2 * 9);
  CHECK_STR(str(node(&c, 0, "elemType")), "float");
  cost_free(&c);
}

static void test_conv_transpose(void) {
  Builder *b = builder_new(17);
  builder_input(b, "x", "float[N,4,H,W]");
  builder_initializer_shape(b, "w", 1, 4, (int64_t[]){4, 3, 3, 3}, 0);
  builder_initializer_shape(b, "bias", 1, 1, (int64_t[]){6}, 0);
  builder_node(b, "ConvTranspose", "up", "x", "w", "bias", "", "y", "");
  builder_attr_int(b, "group", 2);
  builder_attr_ints(b, "strides", 2, (int64_t[]){2, 2});
  builder_output(b, "y", "float[*]");
  Cost c = cost_of(b);
  /* N*Cin*prod(in)*Cout/group*prod(kernel): Cout = 3*2; Y [N,6,2H+1,2W+1] */
  const char *env = "N=3,H=5,W=4";
  CHECK_INT(at(node(&c, 0, "macs"), env), 3 * 4 * 5 * 4 * 3 * 9);
  CHECK_INT(at(node(&c, 0, "flops"), env), 2 * (3 * 4 * 5 * 4 * 3 * 9) + 3 * 6 * 11 * 9);
  cost_free(&c);
}

static void test_matmul_gemm_einsum(void) {
  Builder *b = builder_new(17);
  builder_input(b, "a", "float[2,1,M,7]");
  builder_input(b, "b", "float[3,7,4]");
  builder_node(b, "MatMul", "mm", "a", "b", "", "y", "");
  builder_input(b, "v", "float[7]");
  builder_node(b, "MatMul", "vec", "v", "b", "", "yv", "");
  builder_input(b, "at", "float[6,N]");
  builder_input(b, "g", "float[6,4]");
  builder_input(b, "gc", "float[4]");
  builder_node(b, "Gemm", "gemm", "at", "g", "gc", "", "yg", "");
  builder_attr_int(b, "transA", 1);
  builder_input(b, "e1", "float[B,3,4]");
  builder_input(b, "e2", "float[B,4,5]");
  builder_node(b, "Einsum", "ein", "e1", "e2", "", "ye", "");
  builder_attr_string(b, "equation", "bij,bjk->bik");
  builder_input(b, "e3", "float[2,B,3,4]");
  builder_node(b, "Einsum", "ellipsis", "e3", "e2", "", "ye2", "");
  builder_attr_string(b, "equation", "...ij, ...jk");
  builder_output(b, "y", "float[*]");
  Cost c = cost_of(b);
  const char *env = "M=5,N=9,B=2";
  CHECK_INT(at(node(&c, 0, "macs"), env), 2 * 3 * 5 * 4 * 7); /* broadcast batch * M*N*K */
  CHECK_INT(at(node(&c, 0, "flops"), env), 2 * 2 * 3 * 5 * 4 * 7);
  CHECK_INT(at(node(&c, 1, "macs"), env), 3 * 4 * 7);
  CHECK_INT(at(node(&c, 2, "macs"), env), 9 * 4 * 6); /* M*N*K, K = A's dim 0 under transA */
  CHECK_INT(at(node(&c, 2, "flops"), env), 2 * 9 * 4 * 6 + 9 * 4);
  CHECK_INT(at(node(&c, 3, "macs"), env), 2 * 3 * 4 * 5); /* every index size */
  CHECK_INT(at(node(&c, 4, "macs"), env), 2 * 2 * 3 * 4 * 5);
  cost_free(&c);
}

static void test_rnn(void) {
  Builder *b = builder_new(17);
  builder_input(b, "x", "float[T,B,10]");
  builder_input(b, "w", "float[2,32,10]");
  builder_input(b, "r", "float[2,32,8]");
  builder_input(b, "bias", "float[2,64]");
  builder_node(b, "LSTM", "lstm", "x", "w", "r", "bias", "", "y", "");
  builder_attr_int(b, "hidden_size", 8);
  builder_attr_string(b, "direction", "bidirectional");
  builder_output(b, "y", "float[*]");
  Cost c = cost_of(b);
  /* per step and row: 4 gates * H * (I + H) per direction */
  CHECK_INT(at(node(&c, 0, "macs"), "T=5,B=3"), 5 * 3 * 2 * 4 * 8 * (10 + 8));
  CHECK_INT(at(node(&c, 0, "flops"), "T=5,B=3"), 2 * (5 * 3 * 2 * 4 * 8 * (10 + 8)) + 5 * 3 * 2 * 64);
  cost_free(&c);
}

static void test_pointwise(void) {
  Builder *b = builder_new(20);
  builder_input(b, "p", "float[N,1]");
  builder_input(b, "q", "float[1,M]");
  builder_node(b, "Add", "add", "p", "q", "", "s", "");
  builder_node(b, "Sum", "sum3", "s", "s", "s", "", "t", "");
  builder_node(b, "Softmax", "softmax", "t", "", "u", "");
  builder_node(b, "ReduceMean", "mean", "u", "", "v", "");
  builder_input(b, "img", "float[1,2,H,H]");
  builder_node(b, "MaxPool", "pool", "img", "", "pooled", "");
  builder_attr_ints(b, "kernel_shape", 2, (int64_t[]){3, 3});
  builder_node(b, "Reshape", "flat", "pooled", "shape", "", "f", "");
  builder_initializer_ints(b, "shape", 2, (int64_t[]){1, -1});
  builder_node(b, "Gelu", "gelu", "t", "", "g", "");
  builder_attr_string(b, "approximate", "tanh");
  builder_output(b, "v", "float[*]");
  Cost c = cost_of(b);
  const char *env = "N=4,M=6,H=8";
  CHECK_INT(at(node(&c, 0, "flops"), env), 24);
  CHECK_INT(at(node(&c, 0, "macs"), env), 0);
  CHECK_INT(at(node(&c, 1, "flops"), env), 2 * 24);
  CHECK_INT(at(node(&c, 2, "flops"), env), 5 * 24);
  CHECK_INT(at(node(&c, 3, "flops"), env), 24); /* one per input element */
  CHECK_INT(at(node(&c, 4, "flops"), env), 9 * 2 * 6 * 6);
  CHECK_INT(at(node(&c, 5, "flops"), env), 0);
  CHECK_INT(at(node(&c, 6, "flops"), env), 9 * 24);
  CHECK_INT(at(node(&c, 5, "weightBytes"), env), 16); /* the int64 shape initializer */
  CHECK_INT(at(total(&c, "uncountedNodes"), env), 0);
  cost_free(&c);
}

static void test_uncounted(void) {
  Builder *b = builder_new(17);
  builder_opset(b, "my.domain", 1);
  builder_input(b, "x", "float[N,8]");
  builder_input(b, "k", "int64[1]");
  builder_node(b, "TopK", "topk", "x", "k", "", "vals", "idx", "");
  builder_node(b, "Custom", "mine", "vals", "", "c", "");
  builder_node_domain(b, "my.domain");
  builder_node(b, "Relu", "relu", "x", "", "y", "");
  builder_output(b, "y", "float[*]");
  Cost c = cost_of(b);
  CHECK_STR(str(node(&c, 0, "macs")), "null");
  CHECK_STR(str(node(&c, 1, "flops")), "null");
  CHECK_INT(at(node(&c, 2, "flops"), "N=3"), 24);
  CHECK_STR(str(node(&c, 1, "name")), "mine");
  CHECK_STR(str(node(&c, 1, "opType")), "Custom");
  CHECK_STR(str(node(&c, 1, "domain")), "my.domain");
  CHECK_STR(str(node(&c, 2, "opType")), "Relu");
  CHECK_STR(str(node(&c, 2, "domain")), "");
  CHECK_STR(str(node(&c, 1, "elemType")), "null");
  CHECK_INT(at(total(&c, "uncountedNodes"), ""), 2);
  CHECK_INT(at(total(&c, "flops"), "N=3"), 24);
  const OsiJsonValue *u = osi_json_get(c.cost, "uncounted");
  CHECK(u && u->n == 2);
  if (u && u->n == 2) {
    CHECK_STR(str(osi_json_get(&u->items[0], "opType")), "TopK");
    CHECK(strstr(str(osi_json_get(&u->items[0], "reason")), "algorithm") != NULL);
    CHECK_STR(str(osi_json_get(&u->items[1], "opType")), "my.domain:Custom");
  }
  const OsiJsonValue *by = osi_json_get(c.cost, "byOpType");
  CHECK(by && osi_json_get(by, "my.domain:Custom") && osi_json_get(by, "Relu"));
  CHECK_STR(str(osi_json_get(osi_json_get(by, "TopK"), "macs")), "null");
  cost_free(&c);
}

static void test_attention_and_quantized(void) {
  Builder *b = builder_new(17);
  builder_opset(b, "com.microsoft", 1);
  /* com.microsoft Attention: projection rows*numel(W), scores S*T*(Dq+Dv) per row */
  builder_input(b, "x", "float[B,S,32]");
  builder_input(b, "w", "float[32,96]");
  builder_input(b, "bias", "float[96]");
  builder_input(b, "past", "float[2,B,4,P,8]");
  builder_node(b, "Attention", "attn", "x", "w", "bias", "-", "past", "", "y", "present", "");
  builder_node_domain(b, "com.microsoft");
  builder_attr_int(b, "num_heads", 4);
  /* GroupQueryAttention: 2*numel(Y)*T */
  builder_input(b, "q", "float[B,S,64]");
  builder_input(b, "k", "float[B,S,16]");
  builder_input(b, "v", "float[B,S,16]");
  builder_input(b, "pk", "float[B,1,P,16]");
  builder_input(b, "pv", "float[B,1,P,16]");
  builder_input(b, "seqlens", "int32[B]");
  builder_input(b, "total", "int32[]");
  builder_node(b, "GroupQueryAttention", "gqa", "q", "k", "v", "pk", "pv", "seqlens", "total", "", "yg", "pko",
               "pvo", "");
  builder_node_domain(b, "com.microsoft");
  builder_attr_int(b, "num_heads", 4);
  builder_attr_int(b, "kv_num_heads", 1);
  /* MatMulNBits: numel(Y)*K, weights reported by their bits */
  builder_input(b, "a", "float[B,S,64]");
  builder_input(b, "qw", "uint8[32,2,16]");
  builder_input(b, "scales", "float[64]");
  builder_node(b, "MatMulNBits", "nbits", "a", "qw", "scales", "", "yn", "");
  builder_node_domain(b, "com.microsoft");
  builder_attr_int(b, "K", 64);
  builder_attr_int(b, "N", 32);
  builder_attr_int(b, "bits", 4);
  builder_attr_int(b, "block_size", 32);
  builder_input(b, "ia", "uint8[M,16]");
  builder_input(b, "ib", "int8[16,8]");
  builder_node(b, "MatMulInteger", "mmi", "ia", "ib", "", "yi", "");
  builder_output(b, "y", "float[*]");
  Cost c = cost_of(b);
  const char *env = "B=2,S=3,P=5,M=7";
  int64_t rows = 2 * 3, t = 5 + 3;
  CHECK_INT(at(node(&c, 0, "macs"), env), rows * 32 * 96 + rows * t * (32 + 32));
  CHECK_INT(at(node(&c, 0, "flops"), env), 2 * (rows * 32 * 96 + rows * t * 64) + 6 * rows * 4 * t + rows * 96);
  CHECK_INT(at(node(&c, 1, "macs"), env), 2 * rows * 64 * t);
  CHECK_INT(at(node(&c, 2, "macs"), env), rows * 32 * 64);
  CHECK_STR(str(node(&c, 2, "elemType")), "uint4");
  CHECK_INT(at(node(&c, 3, "macs"), env), 7 * 8 * 16);
  CHECK_STR(str(node(&c, 3, "elemType")), "int8");
  cost_free(&c);
}

static void test_resize(void) {
  Builder *b = builder_new(13);
  builder_input(b, "x", "float[N,3,H,W]");
  builder_initializer_ints(b, "sizes", 4, (int64_t[]){1, 3, 8, 6});
  builder_node(b, "Resize", "linear", "x", "-", "-", "sizes", "", "y", "");
  builder_attr_string(b, "mode", "linear");
  builder_node(b, "Resize", "nearest", "x", "-", "-", "sizes", "", "z", "");
  builder_node(b, "Resize", "cubic", "x", "-", "-", "sizes", "", "u", "");
  builder_attr_string(b, "mode", "cubic");
  builder_output(b, "y", "float[*]");
  Cost c = cost_of(b);
  /* 3*(2^r - 1) per output element over the r axes whose size is not the
   * input's at these sizes: N -> 1 changes it only when N is not 1 */
  const int64_t numel = 1 * 3 * 8 * 6;
  CHECK_INT(at(node(&c, 0, "flops"), "N=2,H=4,W=3"), 3 * 7 * numel);
  CHECK_INT(at(node(&c, 0, "flops"), "N=1,H=4,W=3"), 3 * 3 * numel);
  CHECK_INT(at(node(&c, 0, "flops"), "N=1,H=8,W=3"), 3 * 1 * numel);
  CHECK_INT(at(node(&c, 0, "flops"), "N=1,H=8,W=6"), 0);
  CHECK_INT(at(node(&c, 0, "flops"), "N=0,H=0,W=0"), 3 * 7 * numel);
  CHECK_INT(at(node(&c, 1, "flops"), "N=1,H=4,W=3"), 0);
  /* cubic: 7*(4^r - 1)/3 */
  CHECK_INT(at(node(&c, 2, "flops"), "N=2,H=4,W=3"), 7 * 21 * numel);
  CHECK_INT(at(node(&c, 2, "flops"), "N=1,H=4,W=3"), 7 * 5 * numel);
  CHECK_INT(at(node(&c, 2, "flops"), "N=1,H=4,W=6"), 7 * 1 * numel);
  cost_free(&c);
}

/* Section - Bodies */

static void test_loop_if_function(void) {
  Builder *b = builder_new(17);
  builder_input(b, "x", "float[N,4]");
  builder_input(b, "w", "float[4,4]");
  builder_input(b, "cond", "bool[]");
  builder_initializer_ints(b, "trips", 1, (int64_t[]){3});
  /* Loop: 3 iterations of x @ w */
  builder_node(b, "Loop", "loop", "trips", "-", "x", "", "xl", "");
  builder_subgraph(b, "body");
  builder_input(b, "i", "int64[]");
  builder_input(b, "c_in", "bool[]");
  builder_input(b, "h", "float[N,4]");
  builder_node(b, "MatMul", "step", "h", "w", "", "h2", "");
  builder_node(b, "Identity", "keep", "c_in", "", "c_out", "");
  builder_output(b, "c_out", "bool[]");
  builder_output(b, "h2", "float[N,4]");
  builder_subgraph_end(b);
  /* If on data: the Max of 16N MACs (then) and 4N FLOPs (else) */
  builder_node(b, "If", "branch", "cond", "", "yi", "");
  builder_subgraph(b, "then_branch");
  builder_node(b, "MatMul", "mm", "x", "w", "", "t_out", "");
  builder_output(b, "t_out", "float[N,4]");
  builder_subgraph_end(b);
  builder_subgraph(b, "else_branch");
  builder_node(b, "Relu", "relu", "x", "", "e_out", "");
  builder_output(b, "e_out", "float[N,4]");
  builder_subgraph_end(b);
  builder_function(b, "Twice", "local", (const char *[]){"a", "m", NULL}, (const char *[]){"o", NULL}, NULL);
  builder_node(b, "MatMul", "f1", "a", "m", "", "t", "");
  builder_node(b, "MatMul", "f2", "t", "m", "", "o", "");
  builder_function_end(b);
  builder_opset(b, "local", 1);
  builder_node(b, "Twice", "call", "x", "w", "", "yf", "");
  builder_node_domain(b, "local");
  builder_output(b, "xl", "float[*]");
  builder_output(b, "yi", "float[*]");
  builder_output(b, "yf", "float[*]");
  Cost c = cost_of(b);
  CHECK_INT(at(node(&c, 0, "macs"), "N=5"), 3 * 5 * 16);
  CHECK_INT(at(node(&c, 1, "macs"), "N=5"), 5 * 16);
  CHECK_INT(at(node(&c, 1, "flops"), "N=5"), 2 * 5 * 16);
  CHECK_INT(at(node(&c, 2, "macs"), "N=5"), 2 * 5 * 16);
  CHECK_INT(at(total(&c, "macs"), "N=5"), 6 * 5 * 16);
  const OsiJsonValue *by = osi_json_get(c.cost, "byOpType");
  CHECK(by && osi_json_get(by, "local:Twice") && osi_json_get(by, "Loop") && osi_json_get(by, "If"));
  cost_free(&c);

  /* an If the shapes decide: the branch taken only */
  b = builder_new(17);
  builder_input(b, "x", "float[N,4]");
  builder_input(b, "w", "float[4,4]");
  builder_node(b, "Shape", "shape", "x", "", "s", "");
  builder_node(b, "Size", "rank", "s", "", "r", "");
  builder_initializer_ints(b, "two", 1, (int64_t[]){2});
  builder_node(b, "Equal", "is2", "r", "two", "", "c", "");
  builder_node(b, "Squeeze", "scalar", "c", "", "cs", "");
  builder_node(b, "If", "decided", "cs", "", "y", "");
  builder_subgraph(b, "then_branch");
  builder_node(b, "Relu", "relu", "x", "", "t_out", "");
  builder_output(b, "t_out", "float[N,4]");
  builder_subgraph_end(b);
  builder_subgraph(b, "else_branch");
  builder_node(b, "MatMul", "mm", "x", "w", "", "e_out", "");
  builder_output(b, "e_out", "float[N,4]");
  builder_subgraph_end(b);
  builder_output(b, "y", "float[*]");
  c = cost_of(b);
  CHECK_INT(at(node(&c, 4, "macs"), "N=5"), 0);
  CHECK_INT(at(node(&c, 4, "flops"), "N=5"), 20);
  cost_free(&c);
}

/* Section - Weights */

static void test_weights_external_and_sub_byte(void) {
  Builder *b = builder_new(21);
  builder_input(b, "x", "float[N,1000]");
  builder_initializer_shape(b, "w", 1, 2, (int64_t[]){1000, 1000}, 1); /* external, no file */
  builder_initializer_shape(b, "q", 22, 2, (int64_t[]){3, 5}, 0);     /* int4: 15 nibbles */
  builder_initializer_shape(b, "d", 11, 1, (int64_t[]){7}, 1);         /* double, external */
  builder_initializer_shape(b, "s", 8, 1, (int64_t[]){4}, 0);          /* strings: no size says */
  builder_node(b, "MatMul", "mm", "x", "w", "", "y", "");
  builder_node(b, "Identity", "idq", "q", "", "qq", "");
  builder_node(b, "Identity", "ids", "s", "", "ss", "");
  builder_output(b, "y", "float[*]");
  Cost c = cost_of(b);
  CHECK_INT(at(total(&c, "params"), ""), 1000000 + 15 + 7 + 4);
  CHECK_INT(at(total(&c, "weightBytes"), ""), 4000000 + 8 + 56);
  CHECK_INT(at(node(&c, 0, "weightBytes"), ""), 4000000);
  CHECK_INT(at(node(&c, 1, "weightBytes"), ""), 8);
  CHECK_INT(at(node(&c, 2, "weightBytes"), ""), 0);
  CHECK_STR(str(node(&c, 2, "outputBytes")), "null");
  CHECK_INT(at(node(&c, 0, "macs"), "N=2"), 2 * 1000 * 1000);
  cost_free(&c);
}

/* BatchNormalization's running mean and variance are statistics: bytes,
 * not params. */
static void test_batchnorm_statistics(void) {
  Builder *b = builder_new(15);
  builder_input(b, "x", "float[N,16,4,4]");
  const char *names[] = {"scale", "shift", "mean", "var"};
  for (int i = 0; i < 4; i++) builder_initializer_shape(b, names[i], 1, 1, (int64_t[]){16}, 0);
  builder_node(b, "BatchNormalization", "bn", "x", "scale", "shift", "mean", "var", "", "y", "");
  builder_output(b, "y", "float[*]");
  Cost c = cost_of(b);
  CHECK_INT(at(total(&c, "params"), ""), 32);
  CHECK_INT(at(total(&c, "weightBytes"), ""), 4 * 64);
  CHECK_INT(at(node(&c, 0, "weightBytes"), ""), 4 * 64);
  CHECK_INT(at(node(&c, 0, "flops"), "N=2"), 4 * 2 * 16 * 16);
  cost_free(&c);
}

/* Section - Sizes past int64 */

static void test_overflow_is_unknown(void) {
  Builder *b = builder_new(17);
  builder_input(b, "a", "float[3037000500,3037000500]");
  builder_input(b, "b", "float[3037000500,4]");
  builder_node(b, "MatMul", "mm", "a", "b", "", "y", "");
  builder_output(b, "y", "float[*]");
  Cost c = cost_of(b);
  /* 3037000500^2*4*K overflows int64: unknown, never wrapped */
  CHECK_STR(str(node(&c, 0, "macs")), "null");
  CHECK_INT(at(total(&c, "uncountedNodes"), ""), 1);
  /* and the reason says so (it said a size was not known: every size is) */
  CHECK_STR(uncounted_reason(&c, 0), OSI_COST_WHY_INT64);
  cost_free(&c);

  /* N*2^93: the coefficient does not fit, whatever N is */
  b = builder_new(17);
  builder_input(b, "a", "float[N,2147483648]");
  builder_input(b, "b", "float[2147483648,2147483648]");
  builder_node(b, "MatMul", "mm", "a", "b", "", "y", "");
  builder_node(b, "Relu", "relu", "y", "", "z", "");
  builder_output(b, "z", "float[*]");
  c = cost_of(b);
  CHECK_STR(str(node(&c, 0, "macs")), "null");
  CHECK_STR(uncounted_reason(&c, 0), OSI_COST_WHY_TOO_LARGE);
  CHECK_INT(at(node(&c, 1, "flops"), "N=2"), 2 * 2147483648LL);
  cost_free(&c);

  /* a Loop of 2^40 trips over a body of 2^30 FLOPs: each fits, the product does not */
  b = builder_new(17);
  builder_input(b, "x", "float[1073741824]");
  builder_initializer_ints(b, "trips", 1, (int64_t[]){(int64_t)1 << 40});
  builder_node(b, "Loop", "loop", "trips", "-", "x", "", "y", "");
  builder_subgraph(b, "body");
  builder_input(b, "i", "int64[]");
  builder_input(b, "c_in", "bool[]");
  builder_input(b, "h", "float[1073741824]");
  builder_node(b, "Relu", "step", "h", "", "h2", "");
  builder_node(b, "Identity", "keep", "c_in", "", "c_out", "");
  builder_output(b, "c_out", "bool[]");
  builder_output(b, "h2", "float[1073741824]");
  builder_subgraph_end(b);
  builder_output(b, "y", "float[*]");
  c = cost_of(b);
  CHECK_STR(uncounted_reason(&c, 0), OSI_COST_WHY_INT64);
  cost_free(&c);

  /* an unknown size is still said so */
  b = builder_new(17);
  builder_input(b, "a", "float[*]");
  builder_input(b, "b", "float[4,4]");
  builder_node(b, "MatMul", "mm", "a", "b", "", "y", "");
  builder_output(b, "y", "float[*]");
  c = cost_of(b);
  CHECK_STR(uncounted_reason(&c, 0), OSI_COST_WHY_SHAPE);
  cost_free(&c);
}

/* Section - Printing */

/* x -> Conv (stride 2) -> y [N,8,(H+1)//2,(W+1)//2] -> Flatten -> f [N,8*CeilDiv(H,2)*CeilDiv(W,2)] */
static OsiResult *strided(void) {
  Builder *b = builder_new(17);
  builder_input(b, "x", "float[N,3,H,W]");
  builder_initializer_shape(b, "w", 1, 4, (int64_t[]){8, 3, 3, 3}, 0);
  builder_node(b, "Conv", "conv", "x", "w", "", "y", "");
  builder_attr_ints(b, "pads", 4, (int64_t[]){1, 1, 1, 1});
  builder_attr_ints(b, "strides", 2, (int64_t[]){2, 2});
  builder_node(b, "Flatten", "flat", "y", "", "f", "");
  builder_output(b, "f", "float[*]");
  return builder_infer(b, 0, NULL);
}

static void test_factors_print_as_alone(void) {
  /* The cost's factors print as the dims print alone (it printed
   * 216*N*CeilDiv(H,2)*CeilDiv(W,2) next to shapes of (H+1)//2); the
   * shapes' own texts are the same whichever is printed first. */
  OsiResult *cost_first = strided(), *shapes_first = strided();
  char *cost = strdup(osi_result_cost_json(cost_first));
  const char *shapes = osi_result_json(cost_first);
  const char *shapes2 = osi_result_json(shapes_first);
  CHECK_STR(osi_result_cost_json(shapes_first), cost);
  CHECK_STR(shapes, shapes2);
  CHECK(strstr(cost, "\"216*N*((H+1)//2)*((W+1)//2)\"") != NULL);
  CHECK(strstr(cost, "CeilDiv") == NULL);
  CHECK(strstr(shapes, "\"(H+1)//2\"") != NULL);
  CHECK(strstr(shapes, "\"8*CeilDiv(H,2)*CeilDiv(W,2)\"") != NULL);
  free(cost);
  osi_result_delete(cost_first);
  osi_result_delete(shapes_first);
}

/* Section - The schedule */

static void test_schedule(void) {
  Builder *b = builder_new(17);
  builder_input(b, "x", "float[N,4]");
  builder_node(b, "Relu", "r1", "x", "", "y1", "");
  builder_node(b, "Relu", "r2", "y1", "", "y2", "");
  builder_node(b, "Relu", "r3", "y2", "", "y3", "");
  builder_node(b, "Add", "add", "y3", "x", "", "z", "");
  builder_output(b, "z", "float[*]");
  Cost c = cost_of(b);
  /* x lives to the Add (step 3): steps 0..2 hold x + two 16N values, 48N */
  CHECK_INT(at(total(&c, "activationPeakBytes"), "N=3"), 48 * 3);
  const OsiJsonValue *order = osi_json_get(c.memory, "order");
  CHECK(order && order->n == 4);
  const OsiJsonValue *values = osi_json_get(c.memory, "values");
  CHECK(values && values->n == 5 * 4);
  if (values && values->n == 20) {
    CHECK_STR(values->items[0].string, "x");
    CHECK_INT(values->items[2].number, 0);
    CHECK_INT(values->items[3].number, 3);
    CHECK_STR(values->items[16].string, "z");
    CHECK_INT(values->items[19].number, 3);
    CHECK_INT(at(value_bytes(&c, 0), "N=3"), 4 * 4 * 3); /* x: float[N,4] */
  }
  cost_free(&c);

  /* steps whose live bytes no order proves: no symbolic peak */
  b = builder_new(17);
  builder_input(b, "x", "float[N]");
  builder_input(b, "y", "float[M]");
  builder_node(b, "Relu", "rx", "x", "", "x1", "");
  builder_node(b, "Relu", "ry", "y", "", "y1", "");
  builder_output(b, "x1", "float[*]");
  builder_output(b, "y1", "float[*]");
  c = cost_of(b);
  CHECK_STR(str(total(&c, "activationPeakBytes")), "null");
  cost_free(&c);
}

/* Section - Nothing else changes */

static Builder *decoder_like(void) {
  Builder *b = builder_new(17);
  builder_input(b, "x", "float[batch,seq,64]");
  builder_input(b, "w", "float[64,64]");
  builder_node(b, "MatMul", "q", "x", "w", "", "qq", "");
  builder_node(b, "Transpose", "t", "qq", "", "kt", "");
  builder_attr_ints(b, "perm", 3, (int64_t[]){0, 2, 1});
  builder_node(b, "MatMul", "scores", "qq", "kt", "", "s", "");
  builder_node(b, "Softmax", "sm", "s", "", "p", "");
  builder_output(b, "p", "float[*]");
  return b;
}

static void test_result_unchanged(void) {
  OsiResult *plain = builder_infer(decoder_like(), 0, NULL);
  OsiResult *costed = builder_infer(decoder_like(), 0, NULL);
  const char *cost = osi_result_cost_json(costed);
  CHECK(strstr(cost, "\"macs\":\"") != NULL);
  CHECK_STR(osi_result_json(costed), osi_result_json(plain));
  size_t la, lb;
  const uint8_t *pa = osi_result_packed(plain, &la), *pb = osi_result_packed(costed, &lb);
  CHECK(la == lb && pa && pb && !memcmp(pa, pb, la));
  CHECK(osi_result_cost_json(costed) == cost); /* computed once */
  osi_result_delete(plain);
  osi_result_delete(costed);
  CHECK_STR(osi_result_cost_json(NULL), "");
}

int main(void) {
  test_every_op_has_a_rule();
  test_conv();
  test_conv_transpose();
  test_matmul_gemm_einsum();
  test_rnn();
  test_pointwise();
  test_uncounted();
  test_attention_and_quantized();
  test_resize();
  test_loop_if_function();
  test_weights_external_and_sub_byte();
  test_batchnorm_statistics();
  test_overflow_is_unknown();
  test_factors_print_as_alone();
  test_schedule();
  test_result_unchanged();
  TEST_MAIN_END();
}
