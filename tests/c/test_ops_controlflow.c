/* Control flow (If, Loop, Scan) with hand-built symbolic bodies. */
#include <stdlib.h>
#include <string.h>

#include "op_harness.h"
#include "test.h"

/* Section - Body graphs from text */

#define MAX_PARTS 16

static char *dup(OpTest *t, const char *s, size_t n) {
  char *c = osi_arena_alloc(op_arena(t), n + 1);
  memcpy(c, s, n);
  c[n] = 0;
  return c;
}

/* Splits s at `sep` into at most MAX_PARTS arena strings; returns the count. */
static int split(OpTest *t, const char *s, char sep, char **parts) {
  int n = 0;
  while (*s && n < MAX_PARTS) {
    while (*s == sep || *s == ' ') s++;
    if (!*s) break;
    const char *e = strchr(s, sep);
    size_t len = e ? (size_t)(e - s) : strlen(s);
    while (len && s[len - 1] == ' ') len--;
    parts[n++] = dup(t, s, len);
    s += e ? (size_t)(e - s) : strlen(s);
  }
  return n;
}

static OsiTensor *tensor_from(OpTest *t, const char *text) {
  const OsiType *ty = op_parse_type(t, text);
  OsiTensor *ten = osi_arena_alloc(op_arena(t), sizeof *ten);
  int64_t *dims = osi_arena_array(op_arena(t), (size_t)ty->rank + 1, sizeof(int64_t));
  for (int i = 0; i < ty->rank; i++) osi_expr_is_const(op_exprs(t), ty->dims[i], &dims[i]);
  ten->name = "";
  ten->elem_type = ty->elem_type;
  ten->rank = ty->rank;
  ten->dims = dims;
  if (ty->value) {
    int64_t *v = osi_arena_array(op_arena(t), (size_t)ty->value->count + 1, sizeof(int64_t));
    for (int64_t i = 0; i < ty->value->count; i++) osi_expr_is_const(op_exprs(t), ty->value->ints[i], &v[i]);
    ten->count = ty->value->count;
    ten->ints = v;
  }
  return ten;
}

/* "name=3", "name=1,2" (ints) or "name=int64[1]{0}" (tensor). */
static void parse_attr(OpTest *t, const char *text, OsiAttr *a) {
  const char *eq = strchr(text, '=');
  a->name = dup(t, text, (size_t)(eq - text));
  const char *v = eq + 1;
  if (strchr(v, '[')) {
    a->type = OSI_ATTR_TENSOR;
    a->t = tensor_from(t, v);
  } else if (strchr(v, ',')) {
    char *parts[MAX_PARTS];
    int n = split(t, v, ',', parts);
    int64_t *ints = osi_arena_array(op_arena(t), (size_t)n, sizeof(int64_t));
    for (int i = 0; i < n; i++) ints[i] = strtoll(parts[i], NULL, 10);
    a->type = OSI_ATTR_INTS;
    a->ints = ints;
    a->n = (size_t)n;
  } else {
    a->type = OSI_ATTR_INT;
    a->i = strtoll(v, NULL, 10);
  }
}

/* "Op a b -> c d attr=v" ("-" is an omitted input). */
static void parse_node(OpTest *t, const char *text, OsiNode *node) {
  char *tok[MAX_PARTS];
  int n = split(t, text, ' ', tok), k = 1;
  const char **in = osi_arena_array(op_arena(t), MAX_PARTS, sizeof(char *));
  const char **out = osi_arena_array(op_arena(t), MAX_PARTS, sizeof(char *));
  OsiAttr *attrs = osi_arena_array(op_arena(t), MAX_PARTS, sizeof(OsiAttr));
  memset(node, 0, sizeof *node);
  node->name = "";
  node->domain = "";
  node->op_type = tok[0];
  for (; k < n && strcmp(tok[k], "->"); k++) in[node->n_inputs++] = strcmp(tok[k], "-") ? tok[k] : "";
  for (k++; k < n && !strchr(tok[k], '='); k++) out[node->n_outputs++] = tok[k];
  for (; k < n; k++) parse_attr(t, tok[k], &attrs[node->n_attrs++]);
  node->inputs = in;
  node->outputs = out;
  node->attrs = attrs;
}

/* "name:type" entries separated by spaces; a bare name has no type. */
static int parse_infos(OpTest *t, const char *text, OsiValueInfo **out) {
  char *parts[MAX_PARTS];
  int n = split(t, text, ' ', parts);
  OsiValueInfo *vi = osi_arena_array(op_arena(t), MAX_PARTS, sizeof(OsiValueInfo));
  for (int i = 0; i < n; i++) {
    char *colon = strchr(parts[i], ':');
    if (colon) *colon = 0;
    vi[i].name = parts[i];
    vi[i].type = colon ? op_parse_type(t, colon + 1) : NULL;
  }
  *out = vi;
  return n;
}

/* A body graph: formal inputs, ';'-separated nodes, outputs. */
static const OsiGraph *body(OpTest *t, const char *inputs, const char *nodes, const char *outputs) {
  OsiGraph *g = osi_arena_alloc(op_arena(t), sizeof *g);
  OsiValueInfo *in, *out;
  char *parts[MAX_PARTS];
  g->name = "body";
  g->n_inputs = parse_infos(t, inputs, &in);
  g->n_outputs = parse_infos(t, outputs, &out);
  g->inputs = in;
  g->outputs = out;
  g->n_nodes = split(t, nodes, ';', parts);
  OsiNode *ns = osi_arena_array(op_arena(t), MAX_PARTS, sizeof(OsiNode));
  for (int i = 0; i < g->n_nodes; i++) parse_node(t, parts[i], &ns[i]);
  g->nodes = ns;
  return g;
}

static int starts_with(const char *s, const char *prefix) {
  return s && strncmp(s, prefix, strlen(prefix)) == 0;
}

/* Section - If */

static void test_if(OpTest *t) {
  const OsiGraph *then_n3 = body(t, "x:float[N,3]", "Identity x -> o", "o");
  const OsiGraph *else_m3 = body(t, "y:float[M,3]", "Identity y -> o", "o");
  /* Unknown cond: differing dims become one fresh data-dependent symbol. */
  op_attr_graph(t, "then_branch", then_n3);
  op_attr_graph(t, "else_branch", else_m3);
  const char *r = op_run(t, "", "If", 16, "bool[]", NULL);
  CHECK(starts_with(r, "float[if_") && strstr(r, ",3]"));
  CHECK(strstr(op_diags(t), "DATA_DEPENDENT: output 0 dim 0 is N in then_branch and M in else_branch") != NULL);
  /* Equal dims stay; an unknown dim on one side stays unknown, no symbol. */
  op_attr_graph(t, "then_branch", then_n3);
  op_attr_graph(t, "else_branch", body(t, "y:float[N,3]", "Identity y -> o", "o"));
  CHECK_STR(op_run(t, "", "If", 16, "bool[]", NULL), "float[N,3]");
  CHECK_STR(op_diags(t), "");
  op_attr_graph(t, "then_branch", then_n3);
  op_attr_graph(t, "else_branch", body(t, "y:float[?,3]", "Identity y -> o", "o"));
  CHECK_STR(op_run(t, "", "If", 16, "bool[]", NULL), "float[?,3]");
  CHECK_STR(op_diags(t), "");
  /* Different ranks: unknown rank; different element types: unknown type. */
  op_attr_graph(t, "then_branch", then_n3);
  op_attr_graph(t, "else_branch", body(t, "y:float[N]", "Identity y -> o", "o"));
  CHECK_STR(op_run(t, "", "If", 11, "bool[]", NULL), "float[*]");
  op_attr_graph(t, "then_branch", then_n3);
  op_attr_graph(t, "else_branch", body(t, "y:int64[N,3]", "Identity y -> o", "o"));
  CHECK_STR(op_run(t, "", "If", 11, "bool[]", NULL), "?[N,3]");
  /* Known cond picks a branch whole, content included; the other branch is
   * not inferred (its unsupported op would leave a diagnostic). */
  const OsiGraph *shape_then = body(t, "x:float[N,3]", "Shape x -> s", "s");
  const OsiGraph *bad_else = body(t, "", "NoSuchOp -> o", "o");
  op_attr_graph(t, "then_branch", shape_then);
  op_attr_graph(t, "else_branch", bad_else);
  CHECK_STR(op_run(t, "", "If", 13, "bool[]{1}", NULL), "int64[2]{N,3}");
  CHECK_STR(op_diags(t), "");
  op_attr_graph(t, "then_branch", bad_else);
  op_attr_graph(t, "else_branch", shape_then);
  CHECK_STR(op_run(t, "", "If", 13, "bool[1]{0}", NULL), "int64[2]{N,3}");
  /* Both shape branches equal in content: content kept after the merge. */
  op_attr_graph(t, "then_branch", shape_then);
  op_attr_graph(t, "else_branch", shape_then);
  CHECK_STR(op_run(t, "", "If", 13, "bool[]", NULL), "int64[2]{N,3}");
  /* Several outputs; sequences merge their elements. */
  op_set_outputs(t, 2);
  op_attr_graph(t, "then_branch", body(t, "x:float[N,3]", "SequenceConstruct x -> s; Identity x -> o", "s o"));
  op_attr_graph(t, "else_branch", body(t, "y:float[N,5]", "SequenceConstruct y -> s; Identity y -> o", "s o"));
  r = op_run(t, "", "If", 16, "bool[]", NULL);
  CHECK(starts_with(r, "seq#1(float[N,if_")); /* both branches build one element */
  CHECK(starts_with(op_out(t, 1), "float[N,if_"));
  CHECK(strcmp(r + 6, op_out(t, 1)) != 0); /* one fresh symbol per output */
  /* A branch output inference cannot type falls back to its declaration. */
  op_attr_graph(t, "then_branch", body(t, "", "NoSuchOp -> o", "o:float[K]"));
  op_attr_graph(t, "else_branch", body(t, "y:float[K]", "Identity y -> o", "o"));
  CHECK_STR(op_run(t, "", "If", 16, "bool[]", NULL), "float[K]");
  /* A condition on sizes, carried as its 0/1 indicator (x.size(0) > 4 is Min(Max(N-4,0),1)):
   * x[:4] where it holds and x where it does not are both Min(N,4) there, one exact size. */
  const OsiGraph *first4 = body(t, "x:float[Min(N,4),3]", "Identity x -> o", "o");
  const OsiGraph *whole = body(t, "y:float[N,3]", "Identity y -> o", "o");
  const char *gt4 = "bool[]{Min(Max(N-4,0),1)}";
  op_attr_graph(t, "then_branch", first4);
  op_attr_graph(t, "else_branch", whole);
  CHECK_STR(op_run(t, "", "If", 13, gt4, NULL), "float[Min(N,4),3]");
  CHECK_STR(op_diags(t), "");
  /* x where N > 4, x[:4] where N <= 4: N either way. */
  op_attr_graph(t, "then_branch", whole);
  op_attr_graph(t, "else_branch", first4);
  CHECK_STR(op_run(t, "", "If", 13, gt4, NULL), "float[N,3]");
  /* Not (1 - c) swaps the cases: x[:4] where N <= 4 is N. */
  op_attr_graph(t, "then_branch", first4);
  op_attr_graph(t, "else_branch", whole);
  CHECK_STR(op_run(t, "", "If", 13, "bool[1]{1-Min(Max(N-4,0),1)}", NULL), "float[N,3]");
  /* N == 4 (1 - Min(|N-4|, 1)): 4 where it holds, N elsewhere, so N. */
  op_attr_graph(t, "then_branch", body(t, "x:float[4,3]", "Identity x -> o", "o"));
  op_attr_graph(t, "else_branch", whole);
  CHECK_STR(op_run(t, "", "If", 13, "bool[]{1-Min(Max(N-4,4-N),1)}", NULL), "float[N,3]");
  /* A condition that does not decide the size (N > M with x[:4] against x): one fresh symbol,
   * bounded by the larger branch. */
  op_attr_graph(t, "then_branch", first4);
  op_attr_graph(t, "else_branch", whole);
  r = op_run(t, "", "If", 13, "bool[]{Min(Max(N-M,0),1)}", NULL);
  CHECK(starts_with(r, "float[if_") && strstr(r, ",3]"));
  CHECK(strstr(op_diags(t), "is Min(N,4) in then_branch and N in else_branch") != NULL);
  /* Invalid: missing branch, or output count mismatch. */
  op_attr_graph(t, "then_branch", then_n3);
  CHECK(starts_with(op_run(t, "", "If", 16, "bool[]", NULL), "error:INVALID_MODEL"));
  op_set_outputs(t, 2);
  op_attr_graph(t, "then_branch", then_n3);
  op_attr_graph(t, "else_branch", else_m3);
  CHECK(starts_with(op_run(t, "", "If", 16, "bool[]", NULL), "error:INVALID_MODEL"));
}

/* Section - Loop */

static void test_loop(OpTest *t) {
  /* Body: cond passes through, v doubles elementwise (shape kept), scan of v. */
  const OsiGraph *keep = body(t, "i:int64[] c:bool[] v:float[*]",
                              "Identity c -> co; Add v v -> vo; Identity vo -> so", "co vo so");
  op_set_outputs(t, 2);
  op_attr_graph(t, "body", keep);
  CHECK_STR(op_run(t, "", "Loop", 13, "int64[]{T}", "", "float[N,4]", NULL), "float[N,4]");
  CHECK_STR(op_out(t, 1), "float[T,N,4]");
  CHECK_STR(op_diags(t), "");
  /* A trip count that may be negative runs zero times. */
  op_set_outputs(t, 2);
  op_attr_graph(t, "body", keep);
  op_run(t, "", "Loop", 13, "int64[1]{K-2}", "", "float[N,4]", NULL);
  CHECK_STR(op_out(t, 1), "float[Max(K-2,0),N,4]");
  /* cond given and unknown: it may stop early, the count is data-dependent. */
  op_set_outputs(t, 2);
  op_attr_graph(t, "body", keep);
  op_run(t, "", "Loop", 13, "int64[]{T}", "bool[]", "float[N,4]", NULL);
  CHECK_STR(op_out(t, 0), "float[N,4]");
  CHECK(starts_with(op_out(t, 1), "float[iterations_") && strstr(op_out(t, 1), ",N,4]"));
  CHECK(strstr(op_diags(t), "DATA_DEPENDENT") != NULL);
  /* cond constant true and kept true by the body (cond_in holds while the
   * body runs): the count is M. */
  op_set_outputs(t, 2);
  op_attr_graph(t, "body", keep);
  op_run(t, "", "Loop", 13, "int64[]{T}", "bool[]{1}", "float[N,4]", NULL);
  CHECK_STR(op_out(t, 1), "float[T,N,4]");
  /* cond constant false: no iteration; carried values are the initial ones. */
  op_set_outputs(t, 2);
  op_attr_graph(t, "body", keep);
  op_run(t, "", "Loop", 13, "int64[]{T}", "bool[]{0}", "float[N,4]", NULL);
  CHECK_STR(op_out(t, 1), "float[0,N,4]");
  op_set_outputs(t, 2);
  op_attr_graph(t, "body", keep);
  op_run(t, "", "Loop", 13, "int64[]{0}", "", "float[N,4]", NULL);
  CHECK_STR(op_out(t, 1), "float[0,N,4]");
  /* No trip count (while loop). */
  op_set_outputs(t, 2);
  op_attr_graph(t, "body", keep);
  op_run(t, "", "Loop", 13, "", "bool[]", "float[N,4]", NULL);
  CHECK(starts_with(op_out(t, 1), "float[iterations_"));
  CHECK(strstr(op_diags(t), "no trip count") != NULL);
  /* A carried value that grows: data-dependent final dim; the scan output
   * dim (one per iteration, different each time) is unknown. */
  op_set_outputs(t, 2);
  op_attr_graph(t, "body", body(t, "i:int64[] c:bool[] v:float[*]",
                                "Identity c -> co; Concat v v -> vo axis=0; Identity vo -> so",
                                "co vo so"));
  const char *r = op_run(t, "", "Loop", 13, "int64[]{T}", "", "float[N,4]", NULL);
  CHECK(starts_with(r, "float[loop_") && strstr(r, ",4]"));
  CHECK_STR(op_out(t, 1), "float[T,?,4]");
  CHECK(strstr(op_diags(t), "DATA_DEPENDENT: output 0 dim 0 is N before the loop") != NULL);
  /* Loop induction: one row appended per iteration (Concat with a [1,4]
   * row) from N rows gives N + M rows after M iterations: by hand, dim 0 is
   * N, N+1, ..., N+M. */
  const char *append = "Identity c -> co; Constant -> row value=float[1,4]; "
                       "Concat v row -> vo axis=0; Identity vo -> so";
  op_set_outputs(t, 2);
  op_attr_graph(t, "body", body(t, "i:int64[] c:bool[] v:float[*]", append, "co vo so"));
  CHECK_STR(op_run(t, "", "Loop", 13, "int64[]{T}", "", "float[N,4]", NULL), "float[N+T,4]");
  CHECK_STR(op_out(t, 1), "float[T,?,4]");
  CHECK_STR(op_diags(t), "");
  /* From an empty tensor (the exporters' idiom), a trip count that may be
   * negative (no iteration: 0 rows), a constant count. */
  op_set_outputs(t, 2);
  op_attr_graph(t, "body", body(t, "i:int64[] c:bool[] v:float[*]", append, "co vo so"));
  CHECK_STR(op_run(t, "", "Loop", 13, "int64[]{K-2}", "", "float[0,4]", NULL), "float[Max(K-2,0),4]");
  op_set_outputs(t, 2);
  op_attr_graph(t, "body", body(t, "i:int64[] c:bool[] v:float[*]", append, "co vo so"));
  CHECK_STR(op_run(t, "", "Loop", 13, "int64[]{3}", "", "float[0,4]", NULL), "float[3,4]");
  /* T = 0 (count 0, or cond constant false): the initial value. */
  op_set_outputs(t, 2);
  op_attr_graph(t, "body", body(t, "i:int64[] c:bool[] v:float[*]", append, "co vo so"));
  CHECK_STR(op_run(t, "", "Loop", 13, "int64[]{0}", "", "float[N,4]", NULL), "float[N,4]");
  op_set_outputs(t, 2);
  op_attr_graph(t, "body", body(t, "i:int64[] c:bool[] v:float[*]", append, "co vo so"));
  CHECK_STR(op_run(t, "", "Loop", 13, "int64[]{T}", "bool[]{0}", "float[N,4]", NULL), "float[N,4]");
  /* Three columns per iteration: 3*T. */
  op_set_outputs(t, 1);
  op_attr_graph(t, "body", body(t, "i:int64[] c:bool[] v:float[*]",
                                "Identity c -> co; Constant -> w value=float[2,3]; "
                                "Concat v w -> vo axis=1", "co vo"));
  CHECK_STR(op_run(t, "", "Loop", 13, "int64[]{T}", "", "float[2,0]", NULL), "float[2,3*T]");
  /* cond can stop the loop early: between N and N + Max(T,0) rows, a fresh
   * symbol with both bounds recorded. */
  op_set_outputs(t, 2);
  op_attr_graph(t, "body", body(t, "i:int64[] c:bool[] v:float[*]", append, "co vo so"));
  r = op_run(t, "", "Loop", 13, "int64[]{T}", "bool[]", "float[N,4]", NULL);
  CHECK(starts_with(r, "float[loop_") && strstr(r, ",4]"));
  CHECK(strstr(op_diags(t), "grows by 1 per iteration, at most T times") != NULL);
  CHECK(strstr(op_bounds(t), "N <= loop_") != NULL);
  CHECK(strstr(op_bounds(t), " <= N+T") != NULL);
  /* A row count the body computes each iteration (NonZero) may differ
   * between iterations: no induction, today's merge. */
  op_set_outputs(t, 1);
  op_attr_graph(t, "body", body(t, "i:int64[] c:bool[] v:float[*]",
                                "Identity c -> co; Constant -> w value=float[3,2]; NonZero w -> nz; "
                                "Transpose nz -> nzt; "
                                "Cast nzt -> f to=1; Concat v f -> vo axis=0", "co vo"));
  r = op_run(t, "", "Loop", 13, "int64[]{T}", "", "float[N,2]", NULL);
  CHECK(starts_with(r, "float[loop_") && strstr(r, ",2]"));
  CHECK(strstr(op_diags(t), "DATA_DEPENDENT: output 0 dim 0 is N before the loop") != NULL);
  /* Content carried unchanged is kept; content that changes is dropped. */
  op_attr_graph(t, "body", body(t, "i:int64[] c:bool[] v:int64[2]", "Identity c -> co; Identity v -> vo",
                                "co vo"));
  CHECK_STR(op_run(t, "", "Loop", 13, "int64[]{T}", "", "int64[2]{N,4}", NULL), "int64[2]{N,4}");
  op_attr_graph(t, "body", body(t, "i:int64[] c:bool[] v:int64[]",
                                "Identity c -> co; Constant -> one value=int64[]{1}; Add v one -> vo",
                                "co vo"));
  CHECK_STR(op_run(t, "", "Loop", 13, "int64[]{T}", "", "int64[]{N}", NULL), "int64[]");
  /* A carried sequence collecting tensors of two sizes: its elements
   * differ, so the element dim is unknown (no symbol: it is not one value). */
  op_attr_graph(t, "body", body(t, "i:int64[] c:bool[] s x:float[*]",
                                "Identity c -> co; SequenceInsert s x -> so; Identity x -> xo",
                                "co so xo"));
  op_set_outputs(t, 2);
  CHECK_STR(op_run(t, "", "Loop", 13, "int64[]{T}", "", "seq(float[3])", "float[N]", NULL),
            "seq(float[?])");
  CHECK_STR(op_out(t, 1), "float[N]");
  op_attr_graph(t, "body", body(t, "i:int64[] c:bool[] s x:float[*]",
                                "Identity c -> co; SequenceInsert s x -> so; Identity x -> xo",
                                "co so xo"));
  op_set_outputs(t, 2);
  CHECK_STR(op_run(t, "", "Loop", 13, "int64[]{T}", "", "seq(float[N])", "float[N]", NULL),
            "seq(float[N])");
  /* A list appended to once per iteration (torch's scripted
   * `for t in x.unbind(1): outs.append(t)`): from K elements, K + T after
   * T iterations (by hand: K, K+1, ..., K+T); the elements merge. */
  const char *push = "Identity c -> co; SequenceInsert s x -> so; Identity x -> xo";
  op_attr_graph(t, "body", body(t, "i:int64[] c:bool[] s x:float[*]", push, "co so xo"));
  op_set_outputs(t, 2);
  CHECK_STR(op_run(t, "", "Loop", 13, "int64[]{T}", "", "seq#0(float[*])", "float[N,4]", NULL),
            "seq#T(float[N,4])");
  op_attr_graph(t, "body", body(t, "i:int64[] c:bool[] s x:float[*]", push, "co so xo"));
  op_set_outputs(t, 2);
  CHECK_STR(op_run(t, "", "Loop", 13, "int64[]{T}", "bool[]{1}", "seq#K(float[N,4])", "float[N,4]", NULL),
            "seq#K+T(float[N,4])");
  /* cond may stop it: a fresh length between K and K + Max(T,0). */
  op_attr_graph(t, "body", body(t, "i:int64[] c:bool[] s x:float[*]", push, "co so xo"));
  op_set_outputs(t, 2);
  r = op_run(t, "", "Loop", 13, "int64[]{T}", "bool[]", "seq#K(float[N,4])", "float[N,4]", NULL);
  CHECK(starts_with(r, "seq#loop_"));
  CHECK(strstr(op_bounds(t), "K <= loop_") != NULL);
  CHECK(strstr(op_bounds(t), " <= K+T") != NULL);
  CHECK(strstr(op_diags(t), "output 0 length 0 is K before the loop and grows by 1 per iteration") != NULL);
  /* Appended twice per iteration: 2*T; an element erased each time: no growth. */
  op_attr_graph(t, "body", body(t, "i:int64[] c:bool[] s x:float[*]",
                                "Identity c -> co; SequenceInsert s x -> s1; SequenceInsert s1 x -> so; Identity x -> xo",
                                "co so xo"));
  op_set_outputs(t, 2);
  CHECK_STR(op_run(t, "", "Loop", 13, "int64[]{T}", "", "seq#0(float[*])", "float[N,4]", NULL),
            "seq#2*T(float[N,4])");
  op_attr_graph(t, "body", body(t, "i:int64[] c:bool[] s x:float[*]",
                                "Identity c -> co; SequenceInsert s x -> s1; SequenceErase s1 -> so; Identity x -> xo",
                                "co so xo"));
  op_set_outputs(t, 2);
  CHECK_STR(op_run(t, "", "Loop", 13, "int64[]{T}", "", "seq#3(float[N,4])", "float[N,4]", NULL),
            "seq#3(float[N,4])");
  /* Invalid body arity. */
  op_attr_graph(t, "body", keep);
  CHECK(starts_with(op_run(t, "", "Loop", 13, "int64[]{T}", "", "float[N,4]", NULL), "error:INVALID_MODEL"));
}

/* Loops the shapes decide run iteration by iteration (expected values by
 * hand, iteration by iteration). */
static void test_loop_unrolled(OpTest *t) {
  /* torch's tensor_split(x, (1, 5), dim=1) with x [N,7]: iteration i
   * inserts x[:, b[i]:b[i+1]] for b = (0, 1, 5), so pieces of 1 and 4
   * columns; the scan output is b[i], one per iteration. */
  const char *split = "Identity c -> co; Constant -> b value=int64[3]{0,1,5}; "
                      "Constant -> one value=int64[]{1}; Add i one -> j; Gather b i -> st axis=0; "
                      "Gather b j -> en axis=0; Constant -> ax value=int64[]{1}; Slice x st en ax -> piece; "
                      "SequenceInsert s piece -> so; Identity x -> xo; Identity st -> sc";
  op_set_outputs(t, 3);
  op_attr_graph(t, "body", body(t, "i:int64[] c:bool[] s x:float[*]", split, "co so xo sc"));
  CHECK_STR(op_run(t, "", "Loop", 13, "int64[]{2}", "bool[]{1}", "seq[]", "float[N,7]", NULL),
            "seq#2(float[N,?])");
  CHECK_STR(op_seq_elems(t, 0), "float[N,1];float[N,4]");
  CHECK_STR(op_out(t, 1), "float[N,7]");
  CHECK_STR(op_out(t, 2), "int64[2]");
  /* The body's own values hold for every iteration: there the slice
   * bounds are the content of an unknown iteration. */
  CHECK(strstr(op_diags(t), "output 'piece' is not fully known") != NULL);
  /* The iteration-by-iteration runs are optional: never more than a quarter
   * of the run's remaining node budget (here 80 left, 2 x 11 body nodes
   * wanted), so the fixed point's merged pieces then. */
  op_set_visits(t, 1000, 1080);
  op_set_outputs(t, 3);
  op_attr_graph(t, "body", body(t, "i:int64[] c:bool[] s x:float[*]", split, "co so xo sc"));
  CHECK_STR(op_run(t, "", "Loop", 13, "int64[]{2}", "bool[]{1}", "seq[]", "float[N,7]", NULL),
            "seq#2(float[N,?])");
  CHECK_STR(op_seq_elems(t, 0), "untracked");
  op_set_visits(t, 0, 0);
  /* A count carried as content: N+1 after one iteration, N+3 after three;
   * past MAX_UNROLL (16) iterations the fixed point's unknown content. */
  const char *count = "Identity c -> co; Constant -> one value=int64[]{1}; Add v one -> vo";
  op_set_outputs(t, 1);
  op_attr_graph(t, "body", body(t, "i:int64[] c:bool[] v:int64[]", count, "co vo"));
  CHECK_STR(op_run(t, "", "Loop", 13, "int64[]{3}", "", "int64[]{N}", NULL), "int64[]{N+3}");
  op_attr_graph(t, "body", body(t, "i:int64[] c:bool[] v:int64[]", count, "co vo"));
  CHECK_STR(op_run(t, "", "Loop", 13, "int64[]{16}", "", "int64[]{N}", NULL), "int64[]{N+16}");
  op_attr_graph(t, "body", body(t, "i:int64[] c:bool[] v:int64[]", count, "co vo"));
  CHECK_STR(op_run(t, "", "Loop", 13, "int64[]{17}", "", "int64[]{N}", NULL), "int64[]");
  /* A while loop whose cond the shapes decide: i < 2 holds after
   * iterations 0 and 1 and fails after 2, so 3 iterations; by hand the
   * appended rows are N+3 and the scan output has 3 rows. */
  const char *until = "Constant -> two value=int64[]{2}; Less i two -> co; Constant -> row value=float[1,4]; "
                      "Concat v row -> vo axis=0; Identity i -> so";
  op_set_outputs(t, 2);
  op_attr_graph(t, "body", body(t, "i:int64[] c:bool[] v:float[*]", until, "co vo so"));
  CHECK_STR(op_run(t, "", "Loop", 13, "", "bool[]{1}", "float[N,4]", NULL), "float[N+3,4]");
  CHECK_STR(op_out(t, 1), "int64[3]");
  CHECK_STR(op_diags(t), "");
  /* The same with a trip count of 2: it ends first. */
  op_set_outputs(t, 2);
  op_attr_graph(t, "body", body(t, "i:int64[] c:bool[] v:float[*]", until, "co vo so"));
  CHECK_STR(op_run(t, "", "Loop", 13, "int64[]{2}", "bool[]{1}", "float[N,4]", NULL), "float[N+2,4]");
  CHECK_STR(op_out(t, 1), "int64[2]");
  /* A cond the data decides: not unrolled, the count stays a bounded
   * fresh symbol. */
  op_set_outputs(t, 2);
  op_attr_graph(t, "body", body(t, "i:int64[] c:bool[] v:float[*] w:float[*]",
                                "ReduceMax w -> m keepdims=0; Constant -> z value=float[]; Less z m -> co; "
                                "Constant -> row value=float[1,4]; Concat v row -> vo axis=0; Identity w -> wo",
                                "co vo wo"));
  const char *r = op_run(t, "", "Loop", 13, "int64[]{2}", "bool[]{1}", "float[N,4]", "float[3]", NULL);
  CHECK(starts_with(r, "float[loop_"));
  CHECK(strstr(op_bounds(t), " <= N+2") != NULL);
  /* A count an iteration computes from data (NonZero): not unrolled, the
   * merge's bounded symbol. */
  op_set_outputs(t, 1);
  op_attr_graph(t, "body", body(t, "i:int64[] c:bool[] v:float[*]",
                                "Identity c -> co; Constant -> w value=float[3,2]; NonZero w -> nz; "
                                "Transpose nz -> nzt; "
                                "Cast nzt -> f to=1; Concat v f -> vo axis=0", "co vo"));
  r = op_run(t, "", "Loop", 13, "int64[]{2}", "", "float[N,2]", NULL);
  CHECK(starts_with(r, "float[loop_") && strstr(r, ",2]"));
  CHECK(strstr(op_diags(t), "DATA_DEPENDENT: output 0 dim 0 is N before the loop") != NULL);
}

/* Section - Scan */

static void test_scan(OpTest *t) {
  const OsiGraph *sum = body(t, "s:float[*] x:float[*]", "Add s x -> so; Identity so -> y", "so y");
  op_set_outputs(t, 2);
  op_attr_graph(t, "body", sum);
  op_attr_int(t, "num_scan_inputs", 1);
  CHECK_STR(op_run(t, "", "Scan", 16, "float[D]", "float[S,D]", NULL), "float[D]");
  CHECK_STR(op_out(t, 1), "float[S,D]");
  CHECK_STR(op_diags(t), "");
  /* Scan along axis 1 (negative), output stacked on the last axis. */
  op_set_outputs(t, 2);
  op_attr_graph(t, "body", sum);
  op_attr_int(t, "num_scan_inputs", 1);
  op_attr_ints(t, "scan_input_axes", 1, (int64_t[]){-1});
  op_attr_ints(t, "scan_output_axes", 1, (int64_t[]){-1});
  CHECK_STR(op_run(t, "", "Scan", 11, "float[D]", "float[D,S]", NULL), "float[D]");
  CHECK_STR(op_out(t, 1), "float[D,S]");
  op_set_outputs(t, 2);
  op_attr_graph(t, "body", sum);
  op_attr_int(t, "num_scan_inputs", 1);
  op_attr_ints(t, "scan_input_axes", 1, (int64_t[]){2});
  CHECK(starts_with(op_run(t, "", "Scan", 11, "float[D]", "float[D,S]", NULL), "error:INVALID_MODEL"));
  /* Zero-length scan: states are the initial values. */
  op_set_outputs(t, 2);
  op_attr_graph(t, "body", sum);
  op_attr_int(t, "num_scan_inputs", 1);
  CHECK_STR(op_run(t, "", "Scan", 16, "float[D]", "float[0,D]", NULL), "float[D]");
  CHECK_STR(op_out(t, 1), "float[0,D]");
  /* Two scan inputs must agree on their length. */
  op_set_outputs(t, 1);
  op_attr_graph(t, "body", body(t, "a:float[*] b:float[*]", "Add a b -> y", "y"));
  op_attr_int(t, "num_scan_inputs", 2);
  CHECK_STR(op_run(t, "", "Scan", 16, "float[S,D]", "float[S,D]", NULL), "float[S,D]");
  op_attr_graph(t, "body", body(t, "a:float[*] b:float[*]", "Add a b -> y", "y"));
  op_attr_int(t, "num_scan_inputs", 2);
  CHECK(starts_with(op_run(t, "", "Scan", 16, "float[3,D]", "float[4,D]", NULL), "error:SHAPE_MISMATCH"));
  /* The body's declared inputs meet what the node feeds them: onnxruntime's load-time inference
   * refuses a state [3] or a slice [3] where the body declares [2] (the backend test test_scan9_sum
   * with one dim changed); a symbolic or unknown declaration takes anything. */
  const OsiGraph *sum2 = body(t, "s:float[2] x:float[2]", "Add s x -> so; Identity so -> y", "so y");
  op_set_outputs(t, 2);
  op_attr_graph(t, "body", sum2);
  op_attr_int(t, "num_scan_inputs", 1);
  CHECK_STR(op_run(t, "", "Scan", 16, "float[2]", "float[3,2]", NULL), "float[2]");
  op_set_outputs(t, 2);
  op_attr_graph(t, "body", sum2);
  op_attr_int(t, "num_scan_inputs", 1);
  CHECK(starts_with(op_run(t, "", "Scan", 16, "float[3]", "float[3,2]", NULL), "error:SHAPE_MISMATCH"));
  op_set_outputs(t, 2);
  op_attr_graph(t, "body", sum2);
  op_attr_int(t, "num_scan_inputs", 1);
  CHECK(starts_with(op_run(t, "", "Scan", 16, "float[2]", "float[3,3]", NULL), "error:SHAPE_MISMATCH"));
  op_set_outputs(t, 2);
  op_attr_graph(t, "body", body(t, "s:float[D] x:float[*]", "Add s x -> so; Identity so -> y", "so y"));
  op_attr_int(t, "num_scan_inputs", 1);
  CHECK_STR(op_run(t, "", "Scan", 16, "float[3]", "float[4,3]", NULL), "float[3]");
  /* Unknown-rank scan input: the body sees unknown rank. */
  op_set_outputs(t, 2);
  op_attr_graph(t, "body", sum);
  op_attr_int(t, "num_scan_inputs", 1);
  op_run(t, "", "Scan", 16, "float[D]", "float[*]", NULL);
  CHECK_STR(op_out(t, 1), "float[*]");
  /* Scan-8: batch axis 0, sequence axis 1, optional sequence_lens first. */
  op_set_outputs(t, 2);
  op_attr_graph(t, "body", sum);
  op_attr_int(t, "num_scan_inputs", 1);
  CHECK_STR(op_run(t, "", "Scan", 8, "", "float[B,D]", "float[B,S,D]", NULL), "float[B,D]");
  CHECK_STR(op_out(t, 1), "float[B,S,D]");
  op_set_outputs(t, 2);
  op_attr_graph(t, "body", sum);
  op_attr_int(t, "num_scan_inputs", 1);
  CHECK_STR(op_run(t, "", "Scan", 8, "int32[B]", "float[B,D]", "float[B,S,D]", NULL), "float[B,D]");
  CHECK_STR(op_out(t, 1), "float[B,S,D]");
  op_set_outputs(t, 2);
  op_attr_graph(t, "body", sum);
  op_attr_int(t, "num_scan_inputs", 1);
  CHECK(starts_with(op_run(t, "", "Scan", 8, "", "float[B,D]", "float[S]", NULL), "error:INVALID_MODEL"));
  /* States keep one shape in every iteration (spec): a dim known on the
   * initial value or from the body holds throughout. */
  op_set_outputs(t, 2);
  op_attr_graph(t, "body", sum);
  op_attr_int(t, "num_scan_inputs", 1);
  CHECK_STR(op_run(t, "", "Scan", 16, "float[A]", "float[S,B]", NULL), "float[A]");
  CHECK_STR(op_out(t, 1), "float[S,Broadcast(A,B)]");
  op_set_outputs(t, 2);
  op_attr_graph(t, "body", sum);
  op_attr_int(t, "num_scan_inputs", 1);
  CHECK_STR(op_run(t, "", "Scan", 16, "float[?]", "float[S,4]", NULL), "float[4]");
  CHECK_STR(op_out(t, 1), "float[S,4]");
  /* Content of a state the body keeps stays known. */
  op_attr_graph(t, "body", body(t, "s:int64[2] x:float[*]", "Identity s -> so", "so"));
  op_attr_int(t, "num_scan_inputs", 1);
  CHECK_STR(op_run(t, "", "Scan", 16, "int64[2]{N,4}", "float[S,D]", NULL), "int64[2]{N,4}");
}

int main(void) {
  OpTest *t = op_test_new();
  test_if(t);
  test_loop(t);
  test_loop_unrolled(t);
  test_scan(t);
  op_test_free(t);
  TEST_MAIN_END();
}
