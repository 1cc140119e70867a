/* Sequence and optional operators with symbolic element types. */
#include <string.h>

#include "op_harness.h"
#include "test.h"

static int starts_with(const char *s, const char *prefix) {
  return s && strncmp(s, prefix, strlen(prefix)) == 0;
}

/* A body of one node `op` over formal inputs in0.. (types as text, "" for
 * undeclared) with n_out outputs out0... */
static const OsiGraph *one_node_body(OpTest *t, const char *op, int n_in, const char *const *in_types,
                                     int n_out) {
  static const char *const in_names[] = {"in0", "in1", "in2", "in3"};
  static const char *const out_names[] = {"out0", "out1", "out2", "out3"};
  OsiArena *a = op_arena(t);
  OsiGraph *g = osi_arena_alloc(a, sizeof *g);
  OsiValueInfo *in = osi_arena_array(a, 4, sizeof *in), *out = osi_arena_array(a, 4, sizeof *out);
  OsiNode *node = osi_arena_alloc(a, sizeof *node);
  for (int i = 0; i < n_in; i++) {
    in[i].name = in_names[i];
    in[i].type = in_types[i][0] ? op_parse_type(t, in_types[i]) : NULL;
  }
  for (int i = 0; i < n_out; i++) out[i].name = out_names[i];
  node->name = "";
  node->domain = "";
  node->op_type = op;
  node->n_inputs = n_in;
  node->n_outputs = n_out;
  node->inputs = (const char *const *)in_names;
  node->outputs = (const char *const *)out_names;
  g->name = "body";
  g->n_inputs = n_in;
  g->n_outputs = n_out;
  g->n_nodes = 1;
  g->nodes = node;
  g->inputs = in;
  g->outputs = out;
  return g;
}

static void test_construct_insert(OpTest *t) {
  CHECK_STR(op_run(t, "", "SequenceConstruct", 11, "float[N,3]", "float[N,3]", NULL), "seq#2(float[N,3])");
  CHECK_STR(op_run(t, "", "SequenceConstruct", 11, "float[N,3]", "float[M,3]", NULL), "seq#2(float[?,3])");
  CHECK_STR(op_run(t, "", "SequenceConstruct", 11, "float[N,3]", "float[N]", NULL), "seq#2(float[*])");
  CHECK_STR(op_run(t, "", "SequenceConstruct", 11, "int64[2]{N,3}", "int64[2]{N,3}", NULL),
            "seq#2(int64[2]{N,3})");
  CHECK_STR(op_run(t, "", "SequenceConstruct", 11, "int64[2]{N,3}", "int64[2]{N,4}", NULL), "seq#2(int64[2])");
  CHECK_STR(op_run(t, "", "SequenceConstruct", 11, "float[0,3]", NULL), "seq#1(float[0,3])");
  CHECK_STR(op_run(t, "", "SequenceEmpty", 11, NULL), "seq#0(float[*])");
  op_attr_int(t, "dtype", 7);
  CHECK_STR(op_run(t, "", "SequenceEmpty", 11, NULL), "seq#0(int64[*])");
  CHECK_STR(op_run(t, "", "SequenceInsert", 11, "seq(float[N,3])", "float[N,3]", NULL), "seq(float[N,3])");
  CHECK_STR(op_run(t, "", "SequenceInsert", 11, "seq(float[N,3])", "float[M,3]", "int64[]{0}", NULL),
            "seq(float[?,3])");
  CHECK_STR(op_run(t, "", "SequenceInsert", 11, "seq(float[*])", "float[M,3]", NULL), "seq(float[*])");
  /* Unknown sequence: only the tensor's element type is certain. */
  CHECK_STR(op_run(t, "", "SequenceInsert", 11, "", "float[M,3]", NULL), "seq(float[*])");
  CHECK_STR(op_run(t, "", "SequenceErase", 11, "seq(float[N,3])", "int64[]{-1}", NULL), "seq(float[N,3])");
  CHECK_STR(op_run(t, "", "SequenceErase", 11, "seq(float[N,3])", NULL), "seq(float[N,3])");
  CHECK_STR(op_run(t, "", "SequenceAt", 11, "seq(float[N,3])", "int64[]{-1}", NULL), "float[N,3]");
  CHECK_STR(op_run(t, "", "SequenceAt", 11, "", "int64[]", NULL), "unknown");
  CHECK_STR(op_run(t, "", "SequenceLength", 11, "seq(float[N,3])", NULL), "int64[]");
}

static void test_split_concat(OpTest *t) {
  /* No split: pieces of 1, kept or squeezed. */
  op_attr_int(t, "axis", -1);
  CHECK_STR(op_run(t, "", "SplitToSequence", 11, "float[N,C]", NULL), "seq#C(float[N,1])");
  op_attr_int(t, "keepdims", 0);
  CHECK_STR(op_run(t, "", "SplitToSequence", 11, "float[N,C]", NULL), "seq#N(float[C])");
  /* keepdims is ignored when split is given. */
  op_attr_int(t, "keepdims", 0);
  op_attr_int(t, "axis", 1);
  CHECK_STR(op_run(t, "", "SplitToSequence", 11, "float[N,6]", "int64[]{2}", NULL), "seq#3(float[N,2])");
  /* keepdims = 0 with a scalar split of 1 drops the axis, with a 1-D split
   * it is ignored: onnxruntime 1.30 on x[2,4,5], axis 1, gives SequenceAt(0)
   * [2,5] for split 1, [2,1,5] for split [1,3] (torch's unbind is the
   * first). With a split whose value is unknown the rank is unknown. */
  op_attr_int(t, "keepdims", 0);
  op_attr_int(t, "axis", 1);
  CHECK_STR(op_run(t, "", "SplitToSequence", 11, "float[N,C,5]", "int64[]{1}", NULL), "seq#C(float[N,5])");
  op_attr_int(t, "keepdims", 0);
  op_attr_int(t, "axis", 1);
  op_run(t, "", "SplitToSequence", 11, "float[2,4,5]", "int64[2]{1,3}", NULL);
  CHECK_STR(op_seq_elems(t, 0), "float[2,1,5];float[2,3,5]");
  op_attr_int(t, "keepdims", 0);
  op_attr_int(t, "axis", 1);
  CHECK_STR(op_run(t, "", "SplitToSequence", 11, "float[N,C,5]", "int64[]", NULL), "seq(float[*])");
  op_attr_int(t, "keepdims", 0);
  op_attr_int(t, "axis", 1);
  CHECK_STR(op_run(t, "", "SplitToSequence", 11, "float[N,C,5]", "int64[*]", NULL), "seq(float[*])");
  /* Scalar split with a shorter last chunk: unknown; one chunk: the dim. */
  op_attr_int(t, "axis", 1);
  CHECK_STR(op_run(t, "", "SplitToSequence", 11, "float[N,7]", "int64[]{2}", NULL), "seq#4(float[N,?])");
  op_attr_int(t, "axis", 1);
  CHECK_STR(op_run(t, "", "SplitToSequence", 11, "float[N,7]", "int64[]{9}", NULL), "seq#1(float[N,7])");
  op_attr_int(t, "axis", 1);
  CHECK_STR(op_run(t, "", "SplitToSequence", 11, "float[N,C]", "int64[]{2}", NULL), "seq#(C+1)//2(float[N,?])");
  op_attr_int(t, "axis", 1);
  CHECK_STR(op_run(t, "", "SplitToSequence", 11, "float[N,C]", "int64[]{1}", NULL), "seq#C(float[N,1])");
  op_attr_int(t, "axis", 1);
  CHECK_STR(op_run(t, "", "SplitToSequence", 11, "float[N,C]", "int64[]", NULL), "seq(float[N,?])");
  /* 1-D split: equal entries give the piece size; one entry is the whole dim. */
  CHECK_STR(op_run(t, "", "SplitToSequence", 11, "float[2*K,3]", "int64[2]{K,K}", NULL), "seq#2(float[K,3])");
  CHECK_STR(op_run(t, "", "SplitToSequence", 11, "float[6,3]", "int64[2]{2,4}", NULL), "seq#2(float[?,3])");
  CHECK_STR(op_run(t, "", "SplitToSequence", 11, "float[N,3]", "int64[1]", NULL), "seq#1(float[N,3])");
  CHECK_STR(op_run(t, "", "SplitToSequence", 11, "float[N,3]", "int64[3]", NULL), "seq#3(float[?,3])");
  CHECK_STR(op_run(t, "", "SplitToSequence", 11, "float[*]", NULL), "seq(float[*])");
  op_attr_int(t, "axis", 2);
  CHECK(starts_with(op_run(t, "", "SplitToSequence", 11, "float[N,3]", NULL), "error:INVALID_MODEL"));

  op_attr_int(t, "axis", 1);
  CHECK_STR(op_run(t, "", "ConcatFromSequence", 11, "seq(float[N,C,4])", NULL), "float[N,?,4]");
  op_attr_int(t, "axis", -1);
  op_attr_int(t, "new_axis", 1);
  CHECK_STR(op_run(t, "", "ConcatFromSequence", 11, "seq(float[N,C,4])", NULL), "float[N,C,4,?]");
  op_attr_int(t, "axis", 0);
  op_attr_int(t, "new_axis", 1);
  CHECK_STR(op_run(t, "", "ConcatFromSequence", 11, "seq(float[N])", NULL), "float[?,N]");
  op_attr_int(t, "axis", 1);
  CHECK_STR(op_run(t, "", "ConcatFromSequence", 11, "seq(float[*])", NULL), "float[*]");
  op_attr_int(t, "axis", 1);
  CHECK(starts_with(op_run(t, "", "ConcatFromSequence", 11, "seq(float[N])", NULL), "error:INVALID_MODEL"));
  CHECK(starts_with(op_run(t, "", "ConcatFromSequence", 11, "seq(float[N])", NULL), "error:INVALID_MODEL"));
}

static void test_sequence_map(OpTest *t) {
  /* The body sees elements of sequence inputs and tensors as they are. */
  op_attr_graph(t, "body", one_node_body(t, "Add", 2, (const char *const[]){"float[K]", "float[K]"}, 1));
  CHECK_STR(op_run(t, "", "SequenceMap", 17, "seq(float[N,3])", "float[3]", NULL), "seq(float[N,3])");
  op_attr_graph(t, "body", one_node_body(t, "Shape", 1, (const char *const[]){"float[H,W,C]"}, 1));
  CHECK_STR(op_run(t, "", "SequenceMap", 17, "seq(float[?,?,3])", NULL), "seq(int64[3]{?,?,3})");
  op_attr_graph(t, "body", one_node_body(t, "Add", 2, (const char *const[]){"", ""}, 1));
  CHECK_STR(op_run(t, "", "SequenceMap", 17, "seq(float[N])", "seq(float[N])", NULL), "seq(float[N])");
  op_attr_graph(t, "body", one_node_body(t, "Add", 2, (const char *const[]){"", ""}, 1));
  CHECK(starts_with(op_run(t, "", "SequenceMap", 17, "seq(float[N])", NULL), "error:INVALID_MODEL"));
}

static void test_optional(OpTest *t) {
  CHECK_STR(op_run(t, "", "Optional", 15, "float[N,3]", NULL), "opt(float[N,3])");
  CHECK_STR(op_run(t, "", "Optional", 15, "seq(float[N])", NULL), "opt(seq(float[N]))");
  CHECK(starts_with(op_run(t, "", "Optional", 15, NULL), "error:INVALID_MODEL"));
  CHECK_STR(op_run(t, "", "OptionalHasElement", 15, "opt(float[N])", NULL), "bool[]");
  CHECK_STR(op_run(t, "", "OptionalHasElement", 18, "float[N]", NULL), "bool[]{1}");
  CHECK_STR(op_run(t, "", "OptionalHasElement", 18, "", NULL), "bool[]{0}");
  CHECK_STR(op_run(t, "", "OptionalHasElement", 18, NULL), "bool[]{0}");
  CHECK_STR(op_run(t, "", "OptionalGetElement", 15, "opt(float[N,3])", NULL), "float[N,3]");
  CHECK_STR(op_run(t, "", "OptionalGetElement", 18, "opt(int64[2]{N,3})", NULL), "int64[2]{N,3}");
  CHECK_STR(op_run(t, "", "OptionalGetElement", 18, "float[N,3]", NULL), "float[N,3]");
  CHECK_STR(op_run(t, "", "OptionalGetElement", 18, "seq(float[N])", NULL), "seq(float[N])");
  CHECK_STR(op_run(t, "", "OptionalGetElement", 18, "", NULL), "unknown");
}

/* Lengths of sequences built in the graph. */
static void test_lengths(OpTest *t) {
  /* Inserting into an empty sequence takes the tensor's type as is. */
  CHECK_STR(op_run(t, "", "SequenceInsert", 11, "seq#0(float[*])", "float[2,3,4]", NULL),
            "seq#1(float[2,3,4])");
  CHECK_STR(op_run(t, "", "SequenceInsert", 11, "seq#1(float[2,3,4])", "float[1,3,4]", NULL),
            "seq#2(float[?,3,4])");
  CHECK_STR(op_run(t, "", "SequenceInsert", 11, "seq#K(float[N])", "float[N]", NULL), "seq#K+1(float[N])");
  CHECK_STR(op_run(t, "", "SequenceErase", 11, "seq#K(float[N])", NULL), "seq#K-1(float[N])");
  CHECK(starts_with(op_run(t, "", "SequenceErase", 11, "seq#0(float[N])", NULL), "error:INVALID_MODEL"));
  CHECK_STR(op_run(t, "", "SequenceLength", 11, "seq#3(float[N])", NULL), "int64[]{3}");
  CHECK_STR(op_run(t, "", "SequenceLength", 11, "seq(float[N])", NULL), "int64[]");
  /* Concatenated sizes are count * element size; stacking adds the count. */
  op_attr_int(t, "axis", 1);
  CHECK_STR(op_run(t, "", "ConcatFromSequence", 11, "seq#3(float[2,3,4])", NULL), "float[2,9,4]");
  op_attr_int(t, "axis", -1);
  op_attr_int(t, "new_axis", 1);
  CHECK_STR(op_run(t, "", "ConcatFromSequence", 11, "seq#3(float[2,3,4])", NULL), "float[2,3,4,3]");
  op_attr_int(t, "axis", 0);
  CHECK_STR(op_run(t, "", "ConcatFromSequence", 11, "seq#K(float[N,C])", NULL), "float[K*N,C]");
  /* An unknown position into elements of differing shapes is explained. */
  op_run(t, "", "SequenceAt", 11, "seq#2(float[?,3,4])", "int64[]", NULL);
  CHECK(strstr(op_diags(t), "DATA_DEPENDENT") != NULL);
}

/* Elements of different shapes keep their own types while the length is
 * known: each expected element is the spec's semantics worked by hand
 * (positions count from the back when negative; insert at the end and
 * erase the last by default). */
static void test_elements(OpTest *t) {
  const char *two = "seq[float[N,1];float[N,5]]";
  CHECK_STR(op_run(t, "", "SequenceConstruct", 11, "float[N,1]", "float[N,5]", NULL), "seq#2(float[N,?])");
  CHECK_STR(op_seq_elems(t, 0), "float[N,1];float[N,5]");
  CHECK_STR(op_run(t, "", "SequenceAt", 11, two, "int64[]{0}", NULL), "float[N,1]");
  CHECK_STR(op_run(t, "", "SequenceAt", 11, two, "int64[]{1}", NULL), "float[N,5]");
  CHECK_STR(op_run(t, "", "SequenceAt", 11, two, "int64[]{-1}", NULL), "float[N,5]");
  CHECK_STR(op_run(t, "", "SequenceAt", 11, two, "int64[1]{-2}", NULL), "float[N,1]");
  /* Out of range (a run-time error) or unknown: what every element shares. */
  CHECK_STR(op_run(t, "", "SequenceAt", 11, two, "int64[]{2}", NULL), "float[N,?]");
  CHECK_STR(op_run(t, "", "SequenceAt", 11, two, "int64[]{-3}", NULL), "float[N,?]");
  CHECK_STR(op_run(t, "", "SequenceAt", 11, two, "int64[]{K}", NULL), "float[N,?]");
  CHECK_STR(op_run(t, "", "SequenceAt", 11, two, "int64[]", NULL), "float[N,?]");

  CHECK_STR(op_run(t, "", "SequenceInsert", 11, two, "float[N,7]", NULL), "seq#3(float[N,?])");
  CHECK_STR(op_seq_elems(t, 0), "float[N,1];float[N,5];float[N,7]");
  op_run(t, "", "SequenceInsert", 11, two, "float[N,7]", "int64[]{0}", NULL);
  CHECK_STR(op_seq_elems(t, 0), "float[N,7];float[N,1];float[N,5]");
  op_run(t, "", "SequenceInsert", 11, two, "float[N,7]", "int64[]{-1}", NULL);
  CHECK_STR(op_seq_elems(t, 0), "float[N,1];float[N,7];float[N,5]");
  op_run(t, "", "SequenceInsert", 11, two, "float[N,7]", "int64[]{2}", NULL);
  CHECK_STR(op_seq_elems(t, 0), "float[N,1];float[N,5];float[N,7]");
  CHECK_STR(op_run(t, "", "SequenceInsert", 11, two, "float[N,7]", "int64[]{3}", NULL), "seq#3(float[N,?])");
  CHECK_STR(op_seq_elems(t, 0), "untracked");
  op_run(t, "", "SequenceInsert", 11, two, "float[N,7]", "int64[]{P}", NULL);
  CHECK_STR(op_seq_elems(t, 0), "untracked");
  op_run(t, "", "SequenceInsert", 11, "seq[]", "float[N,7]", NULL);
  CHECK_STR(op_seq_elems(t, 0), "float[N,7]");

  const char *three = "seq[float[N,1];float[N,5];float[N,7]]";
  CHECK_STR(op_run(t, "", "SequenceErase", 11, three, NULL), "seq#2(float[N,?])");
  CHECK_STR(op_seq_elems(t, 0), "float[N,1];float[N,5]");
  op_run(t, "", "SequenceErase", 11, three, "int64[]{0}", NULL);
  CHECK_STR(op_seq_elems(t, 0), "float[N,5];float[N,7]");
  op_run(t, "", "SequenceErase", 11, three, "int64[]{-3}", NULL);
  CHECK_STR(op_seq_elems(t, 0), "float[N,5];float[N,7]");
  op_run(t, "", "SequenceErase", 11, "seq[float[N,1]]", NULL);
  CHECK_STR(op_seq_elems(t, 0), "");
  op_run(t, "", "SequenceErase", 11, three, "int64[]{3}", NULL);
  CHECK_STR(op_seq_elems(t, 0), "untracked");

  CHECK_STR(op_run(t, "", "SequenceEmpty", 11, NULL), "seq#0(float[*])");
  CHECK_STR(op_seq_elems(t, 0), "");

  /* Pieces of a 1-D split, and of a scalar split with a shorter last one. */
  op_attr_int(t, "axis", 1);
  op_run(t, "", "SplitToSequence", 11, "float[N,7]", "int64[3]{1,2,4}", NULL);
  CHECK_STR(op_seq_elems(t, 0), "float[N,1];float[N,2];float[N,4]");
  op_attr_int(t, "axis", 1);
  op_run(t, "", "SplitToSequence", 11, "float[N,7]", "int64[2]{K,7-K}", NULL);
  CHECK_STR(op_seq_elems(t, 0), "float[N,K];float[N,7-K]");
  op_attr_int(t, "axis", 1);
  op_run(t, "", "SplitToSequence", 11, "float[N,7]", "int64[]{3}", NULL);
  CHECK_STR(op_seq_elems(t, 0), "float[N,3];float[N,3];float[N,1]");
  op_attr_int(t, "axis", 1);
  op_run(t, "", "SplitToSequence", 11, "float[N,C]", "int64[]{3}", NULL);
  CHECK_STR(op_seq_elems(t, 0), "untracked");

  /* Concatenated: the sum of the elements' sizes; elsewhere the dim any
   * element knows (they must agree). */
  op_attr_int(t, "axis", 1);
  CHECK_STR(op_run(t, "", "ConcatFromSequence", 11, two, NULL), "float[N,6]");
  op_attr_int(t, "axis", -1);
  CHECK_STR(op_run(t, "", "ConcatFromSequence", 11, "seq[float[?,K];float[N,5];float[N,?]]", NULL),
            "float[N,?]");
  op_attr_int(t, "axis", 0);
  CHECK_STR(op_run(t, "", "ConcatFromSequence", 11, "seq[float[A,3];float[?,3];float[B,?]]", NULL),
            "float[?,3]");
  op_attr_int(t, "axis", 0);
  CHECK_STR(op_run(t, "", "ConcatFromSequence", 11, "seq[float[A,3];float[B,3]]", NULL), "float[A+B,3]");
  op_attr_int(t, "axis", 0);
  op_attr_int(t, "new_axis", 1);
  CHECK_STR(op_run(t, "", "ConcatFromSequence", 11, "seq[float[?,3];float[N,?]]", NULL), "float[2,N,3]");
}

int main(void) {
  OpTest *t = op_test_new();
  test_elements(t);
  test_lengths(t);
  test_construct_insert(t);
  test_split_concat(t);
  test_sequence_map(t);
  test_optional(t);
  op_test_free(t);
  TEST_MAIN_END();
}
