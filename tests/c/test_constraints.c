/*
 * The examples of the design's constraint mechanism (constraints.txt), end
 * to end through osi_infer: anchors, equalities with leaf derivation,
 * upper bounds, and the renaming rules.
 */
#include <stdlib.h>

#include "model_builder.h"
#include "onnx_shapes.h"
#include "api/result.h"
#include "test.h"

static int json_has(OsiResult *r, const char *needle) {
  return strstr(osi_result_json(r), needle) != NULL;
}

/* Y: [N, 4] declared, [nnz_1, 4] inferred: the internal symbol
 * becomes N everywhere, and its bound is kept. */
static void test_output_anchor_names_data_dependent_dim(void) {
  Builder *b = builder_new(17);
  builder_input(b, "X", "float[2,3,4,5]");
  builder_node(b, "NonZero", "nz", "X", "", "idx", "");
  builder_node(b, "Transpose", "t", "idx", "", "Y", "");
  builder_output(b, "Y", "int64[N,4]");
  OsiResult *r = builder_infer(b, 0, NULL);
  CHECK_INT(osi_result_status(r), OSI_OK);
  CHECK_STR(result_dims(r, "Y"), "[N,4]");
  CHECK_STR(result_dims(r, "idx"), "[4,N]");
  CHECK(json_has(r, "\"equal\":[[\"N\",\"nnz_"));
  CHECK(json_has(r, "\"lessEqual\":[[\"nnz_"));
  CHECK(json_has(r, "\",\"120\"]"));
  CHECK(json_has(r, "[\"N\",\"120\"]")); /* the label carries the bound of what it names */
  osi_result_delete(r);
}

/* Y: [2*dnz] against [2*nnz_1]: the leaf equality dnz == nnz is
 * derived, so bare occurrences are renamed too. */
static void test_leaf_derivation(void) {
  Builder *b = builder_new(17);
  builder_input(b, "X", "float[5]");
  builder_initializer_ints(b, "flat", 1, (int64_t[]){-1});
  builder_node(b, "NonZero", "nz", "X", "", "idx", "");
  builder_node(b, "Reshape", "r", "idx", "flat", "", "v", "");
  builder_node(b, "Concat", "c", "v", "v", "", "Y", "");
  builder_attr_int(b, "axis", 0);
  builder_output(b, "Y", "int64[2*dnz]");
  OsiResult *r = builder_infer(b, 0, NULL);
  CHECK_INT(osi_result_status(r), OSI_OK);
  CHECK_STR(result_dims(r, "Y"), "[2*dnz]");
  CHECK_STR(result_dims(r, "v"), "[dnz]");
  CHECK_STR(result_dims(r, "idx"), "[1,dnz]");
  CHECK(json_has(r, "[\"2*dnz\",\"2*nnz_1\"]"));
  CHECK(json_has(r, "[\"dnz\",\"nnz_1\"]"));
  osi_result_delete(r);
}

/* past_seq+seq proven equal to the input dim total_seq is rewritten to it,
 * also inside Broadcast(past_seq+seq, total_seq). */
static void test_compound_renamed_to_input_symbol(void) {
  Builder *b = builder_new(17);
  builder_input(b, "past", "float[B,past_seq]");
  builder_input(b, "cur", "float[B,seq]");
  builder_input(b, "mask", "float[B,total_seq]");
  builder_node(b, "Concat", "cat", "past", "cur", "", "kv", "");
  builder_attr_int(b, "axis", 1);
  builder_node(b, "Add", "add", "kv", "mask", "", "scores", "");
  builder_node(b, "Relu", "relu", "scores", "", "probs", "");
  builder_output(b, "kv", "float[B,total_seq]");
  OsiResult *r = builder_infer(b, 0, NULL);
  CHECK_STR(result_dims(r, "kv"), "[B,total_seq]");
  CHECK_STR(result_dims(r, "scores"), "[B,total_seq]");
  CHECK_STR(result_dims(r, "probs"), "[B,total_seq]");
  CHECK(json_has(r, "\"equal\":[[\"past_seq+seq\",\"total_seq\"]]"));
  osi_result_delete(r);
}

/* b+c made of graph-input symbols is authoritative: d, declared on the
 * output only, is a label for it; the output shows b+c too. */
static void test_compound_of_inputs_preserved(void) {
  Builder *b = builder_new(17);
  builder_input(b, "A", "float[b]");
  builder_input(b, "C", "float[c]");
  builder_node(b, "Concat", "cat", "A", "C", "", "Y", "");
  builder_attr_int(b, "axis", 0);
  builder_node(b, "Relu", "relu", "Y", "", "Z", "");
  builder_output(b, "Y", "float[d]");
  OsiResult *r = builder_infer(b, 0, NULL);
  CHECK_STR(result_dims(r, "Y"), "[b+c]");
  CHECK_STR(result_dims(r, "Z"), "[b+c]");
  CHECK(json_has(r, "\"equal\":[[\"b+c\",\"d\"]]"));
  CHECK(json_has(r, "\"labels\":{\"d\":\"b+c\"}"));
  osi_result_delete(r);
}

/* An input symbol is never renamed: X: [N, 4] stays, and M, declared on
 * an output only, is a label for N. */
static void test_user_symbol_never_renamed(void) {
  Builder *b = builder_new(17);
  builder_input(b, "X", "float[N,4]");
  builder_node(b, "Relu", "relu", "X", "", "Y", "");
  builder_node(b, "Relu", "relu2", "X", "", "Z", "");
  builder_output(b, "Y", "float[M,4]");
  OsiResult *r = builder_infer(b, 0, NULL);
  CHECK_STR(result_dims(r, "X"), "[N,4]");
  CHECK_STR(result_dims(r, "Z"), "[N,4]");
  CHECK_STR(result_dims(r, "Y"), "[N,4]");
  CHECK(json_has(r, "\"equal\":[[\"M\",\"N\"]]"));
  CHECK(json_has(r, "\"labels\":{\"M\":\"N\"}"));
  osi_result_delete(r);
}

static void test_anchor_conflicts(void) {
  /* Output anchors are lenient: the contradicting declaration is skipped. */
  Builder *b = builder_new(17);
  builder_input(b, "X", "float[N,4]");
  builder_node(b, "Relu", "relu", "X", "", "Y", "");
  builder_output(b, "Y", "float[N,5]");
  OsiResult *r = builder_infer(b, 0, NULL);
  CHECK_INT(osi_result_status(r), OSI_OK);
  CHECK_STR(result_dims(r, "Y"), "[N,4]");
  CHECK(json_has(r, "\"ANCHOR_CONFLICT\""));
  osi_result_delete(r);

  /* value_info anchors (opt-in) are strict. */
  b = builder_new(17);
  builder_input(b, "X", "float[N,4]");
  builder_node(b, "Relu", "relu", "X", "", "H", "");
  builder_node(b, "Relu", "relu2", "H", "", "Y", "");
  builder_value_info(b, "H", "float[N,4,1]");
  r = builder_infer(b, OSI_OPT_PREFILL_VALUE_INFO, NULL);
  CHECK_INT(osi_result_status(r), OSI_ERR_ANCHOR_CONFLICT);
  CHECK(strstr(osi_result_error(r), "'H'") != NULL);
  osi_result_delete(r);

  /* Without the option value_info is not read; a concrete anchor dim wins
   * over a symbolic inferred one. */
  b = builder_new(17);
  builder_input(b, "X", "float[N,4]");
  builder_node(b, "Relu", "relu", "X", "", "H", "");
  builder_value_info(b, "H", "float[8,4]");
  r = builder_infer(b, 0, NULL);
  CHECK_STR(result_dims(r, "H"), "[N,4]");
  osi_result_delete(r);
  b = builder_new(17);
  builder_input(b, "X", "float[N,4]");
  builder_node(b, "Relu", "relu", "X", "", "H", "");
  builder_value_info(b, "H", "float[8,4]");
  r = builder_infer(b, OSI_OPT_PREFILL_VALUE_INFO, NULL);
  CHECK_STR(result_dims(r, "H"), "[8,4]");
  osi_result_delete(r);
}

/* torch 1.13 gives unrelated outputs one dim_param: g = X[:1] is
 * [Min(S,1), B] and sel is [S, B], both declared [L, B]. Both equalities
 * would claim S == Min(S,1) (S <= 1): wrong for every S > 1. The first
 * declaration labels its size, the one that contradicts it is ignored. */
static void test_contradictory_labels_ignored(void) {
  Builder *b = builder_new(17);
  builder_input(b, "X", "float[S,B]");
  builder_initializer_ints(b, "zero", 1, (int64_t[]){0});
  builder_initializer_ints(b, "one", 1, (int64_t[]){1});
  builder_node(b, "Slice", "first", "X", "zero", "one", "zero", "", "g", "");
  builder_node(b, "Relu", "relu", "g", "", "h", "");
  builder_node(b, "Neg", "neg", "X", "", "sel", "");
  builder_node(b, "Neg", "neg2", "sel", "", "k", "");
  builder_output(b, "g", "float[L,B]");
  builder_output(b, "sel", "float[L,B]");
  builder_output(b, "h", "float[M,B]");
  OsiResult *r = builder_infer(b, 0, NULL);
  CHECK_INT(osi_result_status(r), OSI_OK);
  CHECK_STR(result_dims(r, "g"), "[Min(S,1),B]");
  CHECK_STR(result_dims(r, "sel"), "[S,B]");
  CHECK_STR(result_dims(r, "k"), "[S,B]");
  CHECK_STR(result_dims(r, "h"), "[Min(S,1),B]");
  CHECK(json_has(r, "\"ANCHOR_CONFLICT\""));
  CHECK(json_has(r, "[\"L\",\"Min(S,1)\"]"));
  CHECK(!json_has(r, "[\"L\",\"S\"]"));
  CHECK(json_has(r, "\"labels\":{\"L\":\"Min(S,1)\",\"M\":\"Min(S,1)\"}"));
  osi_result_delete(r);

  /* Two sizes computed from different inputs (p+q and 2*p) under one name
   * would claim q == p. */
  b = builder_new(17);
  builder_input(b, "A", "float[p]");
  builder_input(b, "C", "float[q]");
  builder_node(b, "Concat", "cat", "A", "C", "", "Y1", "");
  builder_attr_int(b, "axis", 0);
  builder_node(b, "Concat", "cat2", "A", "A", "", "Y2", "");
  builder_attr_int(b, "axis", 0);
  builder_output(b, "Y1", "float[L]");
  builder_output(b, "Y2", "float[L]");
  r = builder_infer(b, 0, NULL);
  CHECK_STR(result_dims(r, "Y1"), "[p+q]");
  CHECK_STR(result_dims(r, "Y2"), "[2*p]");
  CHECK(json_has(r, "\"equal\":[[\"L\",\"p+q\"]]"));
  CHECK(json_has(r, "\"ANCHOR_CONFLICT\""));
  osi_result_delete(r);

  /* L stands for the unknown size of Y (its shape is fed at run time) and is
   * declared on Z, of size S, too: taking it would give Y the size S on the
   * declaration's word alone. Y keeps L, Z keeps S. */
  b = builder_new(17);
  builder_input(b, "X", "float[S]");
  builder_input(b, "shape", "int64[1]");
  builder_node(b, "Reshape", "r", "X", "shape", "", "Y", "");
  builder_node(b, "Relu", "relu", "X", "", "Z", "");
  builder_output(b, "Y", "float[L]");
  builder_output(b, "Z", "float[L]");
  r = builder_infer(b, 0, NULL);
  CHECK_STR(result_dims(r, "Y"), "[L]");
  CHECK_STR(result_dims(r, "Z"), "[S]");
  CHECK(json_has(r, "\"equal\":[]"));
  CHECK(json_has(r, "\"ANCHOR_CONFLICT\""));
  osi_result_delete(r);

  /* Two sizes the caller picks (B and S) under one declared name: torch
   * labels Y's batch dim and Z's sequence dim alike. */
  b = builder_new(17);
  builder_input(b, "X", "float[B,S]");
  builder_node(b, "Relu", "relu", "X", "", "Y", "");
  builder_node(b, "Transpose", "t", "X", "", "Z", "");
  builder_output(b, "Y", "float[L,K]");
  builder_output(b, "Z", "float[L,K]");
  r = builder_infer(b, 0, NULL);
  CHECK_STR(result_dims(r, "Y"), "[B,S]");
  CHECK_STR(result_dims(r, "Z"), "[S,B]");
  CHECK(json_has(r, "\"ANCHOR_CONFLICT\""));
  osi_result_delete(r);

  /* One computed size under two names is no conflict. */
  b = builder_new(17);
  builder_input(b, "A", "float[p]");
  builder_input(b, "C", "float[q]");
  builder_node(b, "Concat", "cat", "A", "C", "", "Y1", "");
  builder_attr_int(b, "axis", 0);
  builder_node(b, "Relu", "relu", "Y1", "", "Y2", "");
  builder_output(b, "Y1", "float[L]");
  builder_output(b, "Y2", "float[K]");
  r = builder_infer(b, 0, NULL);
  CHECK_STR(result_dims(r, "Y1"), "[p+q]");
  CHECK_STR(result_dims(r, "Y2"), "[p+q]");
  CHECK(!json_has(r, "\"ANCHOR_CONFLICT\""));
  CHECK(json_has(r, "\"labels\":{\"K\":\"p+q\",\"L\":\"p+q\"}"));
  osi_result_delete(r);
}

/* Labels torch writes for dims it was given no name for: <Op><output>_dim_<k>
 * (reused on another output: AveragePoolpooled_dim_0 on logits too) and,
 * for a list in dynamic_axes, <output>_dynamic_axes_<k>. Each names a size
 * inference computed from the input symbols, which every value keeps. */
static void test_torch_output_labels(void) {
  Builder *b = builder_new(17);
  builder_input(b, "x", "float[batch,3,height,width]");
  builder_initializer_ints(b, "flat", 2, (int64_t[]){0, -1});
  builder_node(b, "Relu", "relu", "x", "", "features", "");
  builder_node(b, "AveragePool", "pool", "features", "", "pooled", "");
  builder_attr_ints(b, "kernel_shape", 2, (int64_t[]){2, 2});
  builder_attr_ints(b, "strides", 2, (int64_t[]){2, 2});
  builder_node(b, "GlobalAveragePool", "gap", "pooled", "", "gap_out", "");
  builder_node(b, "Reshape", "r", "gap_out", "flat", "", "logits", "");
  builder_output(b, "features", "float[Relufeatures_dim_0,3,Relufeatures_dim_2,Relufeatures_dim_3]");
  builder_output(b, "pooled", "float[AveragePoolpooled_dim_0,3,pooled_dynamic_axes_1,pooled_dynamic_axes_2]");
  builder_output(b, "logits", "float[AveragePoolpooled_dim_0,logits_dynamic_axes_1]");
  OsiResult *r = builder_infer(b, 0, NULL);
  CHECK_INT(osi_result_status(r), OSI_OK);
  CHECK_STR(result_dims(r, "features"), "[batch,3,height,width]");
  /* (onnxruntime pools 1 row into 1: the window overhangs; 0 rows only in an empty batch) */
  CHECK_STR(result_dims(r, "pooled"), "[batch,3,Max(height//2,Min((height+1)//2,1)),Max(width//2,Min((width+1)//2,1))]");
  CHECK_STR(result_dims(r, "gap_out"), "[batch,3,1,1]");
  CHECK_STR(result_dims(r, "logits"), "[batch,3]");
  CHECK(!json_has(r, "ANCHOR_CONFLICT"));
  /* The equalities stay; the labels name their sizes. */
  CHECK(json_has(r, "[\"Relufeatures_dim_0\",\"batch\"]"));
  CHECK(json_has(r, "[\"Max(height//2,Min((height+1)//2,1))\",\"pooled_dynamic_axes_1\"]"));
  CHECK(json_has(r, "\"labels\":{\"AveragePoolpooled_dim_0\":\"batch\",\"Relufeatures_dim_0\":\"batch\","
                    "\"Relufeatures_dim_2\":\"height\",\"Relufeatures_dim_3\":\"width\","
                    "\"pooled_dynamic_axes_1\":\"Max(height//2,Min((height+1)//2,1))\","
                    "\"pooled_dynamic_axes_2\":\"Max(width//2,Min((width+1)//2,1))\"}"));
  osi_result_delete(r);
}

/* paddle2onnx names every dynamic dim of every value p2o.DynamicDimension.N
 * (not an identifier: one quoted symbol). The inputs' are symbols of the
 * inputs, the outputs' own are labels. */
static void test_paddle_labels(void) {
  Builder *b = builder_new(17);
  builder_input(b, "x", "float[p2o.DynamicDimension.0,p2o.DynamicDimension.1]");
  builder_node(b, "Concat", "cat", "x", "x", "", "y", "");
  builder_attr_int(b, "axis", 1);
  builder_node(b, "Relu", "relu", "y", "", "z", "");
  builder_output(b, "y", "float[p2o.DynamicDimension.2,p2o.DynamicDimension.3]");
  OsiResult *r = builder_infer(b, 0, NULL);
  CHECK_STR(result_dims(r, "y"), "['p2o.DynamicDimension.0',2*'p2o.DynamicDimension.1']");
  CHECK_STR(result_dims(r, "z"), "['p2o.DynamicDimension.0',2*'p2o.DynamicDimension.1']");
  CHECK(json_has(r, "\"labels\":{\"'p2o.DynamicDimension.2'\":\"'p2o.DynamicDimension.0'\","
                    "\"'p2o.DynamicDimension.3'\":\"2*'p2o.DynamicDimension.1'\"}"));
  osi_result_delete(r);
}

/* A declared compound of labels (2*L over 2*S): the leaf equality L == S
 * makes L a label of S, and the value keeps 2*S. */
static void test_compound_label(void) {
  Builder *b = builder_new(17);
  builder_input(b, "X", "float[S]");
  builder_node(b, "Concat", "cat", "X", "X", "", "Y", "");
  builder_attr_int(b, "axis", 0);
  builder_node(b, "Relu", "relu", "X", "", "Z", "");
  builder_output(b, "Y", "float[2*L]");
  builder_output(b, "Z", "float[L]");
  OsiResult *r = builder_infer(b, 0, NULL);
  CHECK_STR(result_dims(r, "Y"), "[2*S]");
  CHECK_STR(result_dims(r, "Z"), "[S]");
  CHECK(json_has(r, "\"labels\":{\"L\":\"S\"}"));
  CHECK(!json_has(r, "ANCHOR_CONFLICT"));
  osi_result_delete(r);
}

/* A label names a fresh symbol's size (N over nnz_1): nothing was
 * computed, so the label is the value's dim and no alias is needed. A
 * label on a value_info entry (prefillValueInfo) is a label too. */
static void test_label_kinds_fresh_and_value_info(void) {
  Builder *b = builder_new(17);
  builder_input(b, "X", "float[2,3]");
  builder_node(b, "NonZero", "nz", "X", "", "idx", "");
  builder_output(b, "idx", "int64[2,N]");
  OsiResult *r = builder_infer(b, 0, NULL);
  CHECK_STR(result_dims(r, "idx"), "[2,N]");
  CHECK(json_has(r, "\"labels\":{}"));
  osi_result_delete(r);

  b = builder_new(17);
  builder_input(b, "X", "float[N,4]");
  builder_node(b, "Relu", "relu", "X", "", "H", "");
  builder_node(b, "Relu", "relu2", "H", "", "Y", "");
  builder_value_info(b, "H", "float[Hdim,4]");
  r = builder_infer(b, OSI_OPT_PREFILL_VALUE_INFO, NULL);
  CHECK_INT(osi_result_status(r), OSI_OK);
  CHECK_STR(result_dims(r, "H"), "[N,4]");
  CHECK_STR(result_dims(r, "Y"), "[N,4]");
  CHECK(json_has(r, "\"labels\":{\"Hdim\":\"N\"}"));
  osi_result_delete(r);
}

/* torch gives one label to two unrelated dims (the windows model of the
 * exporter differential: half's batch dim and pooled's height dim both
 * Resizehalf_dim_0). Through the label batch would be "defined" as
 * height//2+1; only a declaration that names a size with the input symbol
 * itself may do that, so pooled keeps its computed height. */
static void test_label_shared_by_two_sizes(void) {
  Builder *b = builder_new(17);
  builder_input(b, "x", "float[batch,3,height,width]");
  builder_node(b, "Relu", "relu", "x", "", "half", "");
  builder_node(b, "MaxPool", "pool", "x", "", "pooled", "");
  builder_attr_ints(b, "kernel_shape", 2, (int64_t[]){1, 1});
  builder_attr_ints(b, "strides", 2, (int64_t[]){2, 2});
  builder_attr_ints(b, "pads", 4, (int64_t[]){0, 0, 1, 1});
  builder_output(b, "half", "float[label_0,3,label_1,label_2]");
  builder_output(b, "pooled", "float[label_3,3,label_0,label_4]");
  OsiResult *r = builder_infer(b, 0, NULL);
  CHECK_INT(osi_result_status(r), OSI_OK);
  CHECK_STR(result_dims(r, "half"), "[batch,3,height,width]");
  CHECK_STR(result_dims(r, "pooled"), "[batch,3,height//2+1,width//2+1]");
  CHECK(json_has(r, "ANCHOR_CONFLICT"));
  osi_result_delete(r);
}

/* x[:4] when x.size(0) > 4 (TorchScript: Shape -> Slice -> Greater -> If), then a Relu to the
 * output `out`, declared with `decl`; `flag`: the If's condition is a graph input instead (data). */
static OsiResult *if_first4(const char *decl, int flag, int swapped) {
  Builder *b = builder_new(13);
  builder_input(b, "x", "float[batch,8]");
  if (flag) builder_input(b, "cond", "bool[1]");
  builder_initializer_ints(b, "zero", 1, (int64_t[]){0});
  builder_initializer_ints(b, "one", 1, (int64_t[]){1});
  builder_initializer_ints(b, "four", 1, (int64_t[]){4});
  if (!flag) {
    builder_node(b, "Shape", "shape", "x", "", "s", "");
    builder_node(b, "Slice", "n", "s", "zero", "one", "", "n", "");
    builder_node(b, "Greater", "gt", "n", "four", "", "cond", "");
  }
  builder_node(b, "If", "if", "cond", "", "xo", "");
  for (int k = 0; k < 2; k++) {
    builder_subgraph(b, k == 0 ? "then_branch" : "else_branch");
    if ((k == 0) != swapped) builder_node(b, "Slice", "first4", "x", "zero", "four", "zero", "", "t", "");
    else builder_node(b, "Identity", "all", "x", "", "t", "");
    builder_output(b, "t", "");
    builder_subgraph_end(b);
  }
  builder_node(b, "Relu", "relu", "xo", "", "out", "");
  builder_output(b, "out", decl);
  return builder_infer(b, 0, NULL);
}

/* torch writes `out: [batch, 8]` for a scripted `if x.size(0) > 4: x = x[:4]`: the size is
 * Min(batch,4), so the declaration holds only up to batch 4. The condition on sizes makes the If
 * exact; with a condition known only at run time the merged size is a fresh symbol, which may be
 * Min(batch,4): the input's name for it is a contradiction at ordinary sizes either way. */
static void test_if_sliced_branch_declared_as_input(void) {
  OsiResult *r = if_first4("float[batch,8]", 0, 0);
  CHECK_INT(osi_result_status(r), OSI_OK);
  CHECK_STR(result_dims(r, "xo"), "[Min(batch,4),8]");
  CHECK_STR(result_dims(r, "out"), "[Min(batch,4),8]");
  CHECK(json_has(r, "ANCHOR_CONFLICT"));
  osi_result_delete(r);

  r = if_first4("float[batch,8]", 1, 0);
  const char *d = result_dims(r, "out");
  CHECK(strncmp(d, "[if_", 4) == 0 && strstr(d, ",8]"));
  CHECK(json_has(r, "ANCHOR_CONFLICT"));
  CHECK(json_has(r, "decided at run time"));
  CHECK(json_has(r, "\"lessEqual\":[[\"if_"));
  osi_result_delete(r);

  /* x when x.size(0) > 4, x[:4] otherwise: batch either way, and so declared. */
  r = if_first4("float[batch,8]", 0, 1);
  CHECK_STR(result_dims(r, "out"), "[batch,8]");
  CHECK(!json_has(r, "ANCHOR_CONFLICT"));
  osi_result_delete(r);

  /* A label (an output-only name) for the data-dependent size names it. */
  r = if_first4("float[kept,8]", 1, 0);
  CHECK_STR(result_dims(r, "out"), "[kept,8]");
  CHECK(!json_has(r, "ANCHOR_CONFLICT"));
  osi_result_delete(r);
}

/* A data-dependent count bounded by 2 (NonZero of a 2-element tensor) declared with an input
 * symbol N: N can be 3, so the declaration contradicts the bound at ordinary sizes. Bounded by
 * 3*N it may be N, which then names it. */
static void test_data_dependent_declared_beyond_bound(void) {
  Builder *b = builder_new(13);
  builder_input(b, "x", "float[2]");
  builder_input(b, "z", "float[N]");
  builder_node(b, "NonZero", "nz", "x", "", "idx", "");
  builder_output(b, "idx", "int64[1,N]");
  OsiResult *r = builder_infer(b, 0, NULL);
  const char *d = result_dims(r, "idx");
  CHECK(strncmp(d, "[1,nnz_", 7) == 0);
  CHECK(json_has(r, "ANCHOR_CONFLICT"));
  CHECK(json_has(r, "decided at run time"));
  osi_result_delete(r);

  b = builder_new(13);
  builder_input(b, "x", "float[N,3]");
  builder_node(b, "NonZero", "nz", "x", "", "idx", "");
  builder_output(b, "idx", "int64[2,N]");
  r = builder_infer(b, 0, NULL);
  CHECK_STR(result_dims(r, "idx"), "[2,N]");
  CHECK(!json_has(r, "ANCHOR_CONFLICT"));
  osi_result_delete(r);
}

/* torchvision's detections: at most 8 of a data-dependent count (Slice [:8] of NonZero's), declared
 * `detections` on one output and with torch's own list-form labels on others. Each label names the
 * data-dependent size and carries its bound, 8, so that no value is left without one. */
static void test_labels_of_data_dependent_size_bounded(void) {
  Builder *b = builder_new(13);
  builder_input(b, "x", "float[10,3]");
  builder_initializer_ints(b, "zero", 1, (int64_t[]){0});
  builder_initializer_ints(b, "one", 1, (int64_t[]){1});
  builder_initializer_ints(b, "eight", 1, (int64_t[]){8});
  builder_node(b, "NonZero", "nz", "x", "", "idx", "");
  builder_node(b, "Slice", "top", "idx", "zero", "eight", "one", "", "kept", "");
  builder_node(b, "Transpose", "t", "kept", "", "boxes", "");
  builder_node(b, "Gather", "g", "kept", "zero", "", "rows", "");
  builder_node(b, "Squeeze", "sq", "rows", "zero", "", "labels", "");
  builder_output(b, "boxes", "int64[detections,2]");
  builder_output(b, "labels", "int64[labels_dynamic_axes_1]");
  OsiResult *r = builder_infer(b, 0, NULL);
  CHECK_INT(osi_result_status(r), OSI_OK);
  CHECK_STR(result_dims(r, "boxes"), "[detections,2]");
  CHECK_STR(result_dims(r, "kept"), "[2,detections]");
  CHECK_STR(result_dims(r, "labels"), "[labels_dynamic_axes_1]");
  CHECK(json_has(r, "[\"detections\",\"8\"]"));
  CHECK(json_has(r, "[\"labels_dynamic_axes_1\",\"8\"]"));
  CHECK(json_has(r, "\"labels\":{}")); /* nothing computed from the inputs to alias */
  CHECK(!json_has(r, "ANCHOR_CONFLICT"));
  osi_result_delete(r);
}

/* A label declared on two dims inference does not know claims they are one
 * size, which nothing checks: two reshapes to shapes fed at run time may
 * differ (torch labels every piece of a scripted split alike, and they
 * differ). Both stay unknown; on one dim alone the label names it; a
 * graph input's name is the author's and is taken. */
static void test_label_on_several_unknown_dims(void) {
  Builder *b = builder_new(17);
  builder_input(b, "X", "float[S]");
  builder_input(b, "s1", "int64[1]");
  builder_input(b, "s2", "int64[1]");
  builder_node(b, "Reshape", "r1", "X", "s1", "", "Y1", "");
  builder_node(b, "Reshape", "r2", "X", "s2", "", "Y2", "");
  builder_output(b, "Y1", "float[L]");
  builder_output(b, "Y2", "float[L]");
  OsiResult *r = builder_infer(b, 0, NULL);
  CHECK_STR(result_dims(r, "Y1"), "[?]");
  CHECK_STR(result_dims(r, "Y2"), "[?]");
  CHECK(json_has(r, "give L to 2 dims whose sizes inference does not know"));
  osi_result_delete(r);

  b = builder_new(17);
  builder_input(b, "X", "float[S]");
  builder_input(b, "s1", "int64[2]");
  builder_node(b, "Reshape", "r1", "X", "s1", "", "Y1", "");
  builder_output(b, "Y1", "float[L,M]");
  r = builder_infer(b, 0, NULL);
  CHECK_STR(result_dims(r, "Y1"), "[L,M]");
  CHECK(!json_has(r, "ANCHOR_CONFLICT"));
  osi_result_delete(r);

  b = builder_new(17);
  builder_input(b, "X", "float[S]");
  builder_input(b, "s1", "int64[1]");
  builder_input(b, "s2", "int64[1]");
  builder_node(b, "Reshape", "r1", "X", "s1", "", "Y1", "");
  builder_node(b, "Reshape", "r2", "X", "s2", "", "Y2", "");
  builder_output(b, "Y1", "float[S]");
  builder_output(b, "Y2", "float[S]");
  r = builder_infer(b, 0, NULL);
  CHECK_STR(result_dims(r, "Y1"), "[S]");
  CHECK_STR(result_dims(r, "Y2"), "[S]");
  osi_result_delete(r);
}

/* Whisper's decoder: positions are table[past:past+seq], whose length is
 * Min(P+S,40)-Min(P,40); the declared [S] of the sum makes
 * Broadcast(S, that) the input's S, and the cache's [T], a label, names
 * P+S as the values show it (not P+Broadcast(S, ...)). */
static void test_label_names_renamed_size(void) {
  Builder *b = builder_new(17);
  builder_input(b, "x", "float[S]");
  builder_input(b, "past", "float[P]");
  int64_t table[40];
  for (int i = 0; i < 40; i++) table[i] = i;
  builder_initializer_ints(b, "table", 40, table);
  builder_node(b, "Shape", "sp", "past", "", "p_s", "");
  builder_node(b, "Shape", "sx", "x", "", "x_s", "");
  builder_node(b, "Add", "end", "p_s", "x_s", "", "e_s", "");
  builder_node(b, "Slice", "pos", "table", "p_s", "e_s", "", "positions", "");
  builder_node(b, "Cast", "cast", "positions", "", "pos_f", "");
  builder_attr_int(b, "to", 1);
  builder_node(b, "Add", "h", "x", "pos_f", "", "hidden", "");
  builder_node(b, "Concat", "cat", "past", "hidden", "", "present", "");
  builder_attr_int(b, "axis", 0);
  builder_output(b, "hidden", "float[S]");
  builder_output(b, "present", "float[T]");
  OsiResult *r = builder_infer(b, 0, NULL);
  CHECK_STR(result_dims(r, "hidden"), "[S]");
  CHECK_STR(result_dims(r, "present"), "[P+S]");
  CHECK(json_has(r, "\"labels\":{\"T\":\"P+S\"}"));
  osi_result_delete(r);
}

/* Beam search's batch = batch_beams // 3: Reshape(x[B,5], [B//3, 15])
 * runs only when B is a multiple of 3, so the rows gathered back,
 * 3*(B//3), are the declared B (sizes where the Reshape fails are no
 * evidence against it). Without that Reshape, 3*(B//3) differs from B at
 * ordinary sizes and the declaration is refused. */
static void test_declared_name_under_requirement(void) {
  for (int with_reshape = 1; with_reshape >= 0; with_reshape--) {
    Builder *b = builder_new(17);
    builder_input(b, "x", "float[B,5]");
    builder_initializer_ints(b, "zero", 1, (const int64_t[]){0});
    builder_initializer_ints(b, "three", 1, (const int64_t[]){3});
    builder_initializer_ints(b, "fifteen", 1, (const int64_t[]){15});
    builder_initializer_ints(b, "back", 2, (const int64_t[]){-1, 5});
    builder_node(b, "Shape", "shape", "x", "", "xs", "");
    builder_node(b, "Gather", "g", "xs", "zero", "", "bb", "");
    builder_node(b, "Div", "div", "bb", "three", "", "batch", "");
    builder_node(b, "Mul", "mul", "batch", "three", "", "rows", "");
    builder_node(b, "Concat", "cat", "batch", "fifteen", "", "grouped_shape", "");
    builder_attr_int(b, "axis", 0);
    if (with_reshape) {
      builder_node(b, "Reshape", "group", "x", "grouped_shape", "", "grouped", "");
      builder_node(b, "Reshape", "ungroup", "grouped", "back", "", "y", "");
    } else {
      builder_node(b, "Slice", "crop", "x", "zero", "rows", "", "y", "");
    }
    builder_output(b, "y", "float[B,5]");
    OsiResult *r = builder_infer(b, 0, NULL);
    CHECK_STR(result_dims(r, "y"), with_reshape ? "[B,5]" : "[3*(B//3),5]");
    CHECK(json_has(r, "ANCHOR_CONFLICT") == !with_reshape);
    osi_result_delete(r);
  }
}

/* Qwen2's position_ids[:, -seq:] over the mask's T columns has
 * Max(T-Max(T-S,0)*Min(S,1),0) rows; the keys roped with it are
 * P+Broadcast(S, that), the values P+S. Both caches are declared T: the
 * values' declaration defines T as P+S, under which the keys' size is P+S
 * too, whichever output comes first. */
static void test_declarations_in_any_order(void) {
  Builder *b = builder_new(17);
  builder_input(b, "x", "float[S]");
  builder_input(b, "past", "float[P]");
  builder_input(b, "mask", "float[T]");
  builder_initializer_ints(b, "big", 1, (const int64_t[]){INT64_MAX});
  builder_node(b, "Shape", "sx", "x", "", "x_s", "");
  builder_node(b, "Neg", "neg", "x_s", "", "minus_s", "");
  builder_node(b, "Slice", "tail", "mask", "minus_s", "big", "", "positions", "");
  builder_node(b, "Add", "rope", "x", "positions", "", "roped", "");
  builder_node(b, "Concat", "ck", "past", "roped", "", "present_key", "");
  builder_attr_int(b, "axis", 0);
  builder_node(b, "Concat", "cv", "past", "x", "", "present_value", "");
  builder_attr_int(b, "axis", 0);
  builder_output(b, "present_key", "float[T]");
  builder_output(b, "present_value", "float[T]");
  OsiResult *r = builder_infer(b, 0, NULL);
  CHECK_STR(result_dims(r, "present_key"), "[T]");
  CHECK_STR(result_dims(r, "present_value"), "[T]");
  CHECK(!json_has(r, "ANCHOR_CONFLICT"));
  osi_result_delete(r);
}

int main(void) {
  test_label_on_several_unknown_dims();
  test_output_anchor_names_data_dependent_dim();
  test_leaf_derivation();
  test_compound_renamed_to_input_symbol();
  test_compound_of_inputs_preserved();
  test_user_symbol_never_renamed();
  test_anchor_conflicts();
  test_contradictory_labels_ignored();
  test_torch_output_labels();
  test_paddle_labels();
  test_compound_label();
  test_label_kinds_fresh_and_value_info();
  test_label_shared_by_two_sizes();
  test_if_sliced_branch_declared_as_input();
  test_data_dependent_declared_beyond_bound();
  test_labels_of_data_dependent_size_bounded();
  test_label_names_renamed_size();
  test_declared_name_under_requirement();
  test_declarations_in_any_order();
  TEST_MAIN_END();
}
