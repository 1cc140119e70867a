/*
 * The shape-check mechanism (ops.h osi_op_require_*, infer/requirements.c):
 * known values that contradict an op's rule fail the node; symbolic ones
 * become requirements of the result, checked against later ones, and never
 * rename a dim; the first broken node is the result's firstError.
 */
#include <string.h>

#include "api/result.h"
#include "model_builder.h"
#include "onnx_shapes.h"
#include "op_harness.h"
#include "test.h"

static int starts_with(const char *s, const char *prefix) { return s && !strncmp(s, prefix, strlen(prefix)); }

/* MatMul([N,3], [M,4]) is valid only when M == 3. */
static void test_matmul_requirement(OpTest *t) {
  CHECK_STR(op_run(t, "", "MatMul", 13, "float[N,3]", "float[M,4]", NULL), "float[N,4]");
  CHECK_STR(op_requirements(t), "M == 3");
  CHECK_STR(op_diags(t), "");
  /* Provably equal: nothing recorded. */
  CHECK_STR(op_run(t, "", "MatMul", 13, "float[N,K]", "float[K,4]", NULL), "float[N,4]");
  CHECK_STR(op_requirements(t), "");
  /* Unknown: nothing to require. */
  CHECK_STR(op_run(t, "", "MatMul", 13, "float[N,?]", "float[K,4]", NULL), "float[N,4]");
  CHECK_STR(op_requirements(t), "");
  /* Known and different: the node fails, naming the dims. */
  CHECK_STR(op_run(t, "", "MatMul", 13, "float[N,3]", "float[5,4]", NULL),
            "error:SHAPE_MISMATCH: MatMul inner dims: dim 0 of input 'in1' is 5 where dim 1 of input 'in0' is 3");
  /* Dims of size 0 are sizes like any other. */
  CHECK_STR(op_run(t, "", "MatMul", 13, "float[2,0]", "float[0,4]", NULL), "float[2,4]");
  CHECK(starts_with(op_run(t, "", "MatMul", 13, "float[2,0]", "float[1,4]", NULL), "error:SHAPE_MISMATCH"));
}

/* Requirements across nodes: a later one that contradicts an earlier one
 * fails the later node and names the earlier; none renames a dim. */
static void test_across_nodes(void) {
  Builder *b = builder_new(17);
  builder_input(b, "x", "float[N,3]");
  builder_input(b, "w", "float[M,4]");
  builder_input(b, "v", "float[M,5]");
  builder_input(b, "u", "float[6,2]");
  builder_node(b, "MatMul", "mm1", "x", "w", "", "y", "");
  builder_node(b, "Transpose", "t", "v", "", "vt", "");
  builder_node(b, "MatMul", "mm2", "vt", "u", "", "z", ""); /* needs M == 6 */
  builder_output(b, "y", "float[*]");
  builder_output(b, "z", "float[*]");
  OsiResult *r = builder_infer(b, 0, NULL);
  CHECK_INT(osi_result_status(r), OSI_OK);
  CHECK_STR(result_dims(r, "y"), "[N,4]");
  CHECK_STR(result_dims(r, "vt"), "[5,M]"); /* M stays M: requirements rename nothing */
  CHECK_STR(result_dims(r, "z"), "[*]"); /* the failed node set nothing */
  CHECK_INT(osi_result_requirement_count(r), 1);
  const OsiDiagnostic *e = osi_result_first_error(r);
  CHECK(e != NULL);
  if (e) {
    CHECK_STR(e->code, "SHAPE_MISMATCH");
    CHECK_STR(e->node, "mm2");
    CHECK_STR(e->message,
              "MatMul inner dims: dim 0 of input 'u' is 6 and dim 1 of input 'vt' is M, but node 'mm1' (MatMul) "
              "requires M == 3");
  }
  const char *json = osi_result_json(r);
  CHECK(strstr(json, "\"requirements\":[{\"lhs\":\"M\",\"relation\":\"==\",\"rhs\":\"3\",\"node\":\"mm1\"") != NULL);
  CHECK(strstr(json, "\"firstError\":{\"code\":\"SHAPE_MISMATCH\"") != NULL);
  osi_result_delete(r);

  /* With OSI_OPT_STRICT the first broken node ends the run. */
  b = builder_new(17);
  builder_input(b, "x", "float[2,3]");
  builder_input(b, "w", "float[5,4]");
  builder_node(b, "MatMul", "mm", "x", "w", "", "y", "");
  builder_output(b, "y", "float[*]");
  r = builder_infer(b, OSI_OPT_STRICT, NULL);
  CHECK_INT(osi_result_status(r), OSI_ERR_SHAPE_MISMATCH);
  CHECK_STR(osi_result_error_node(r), "mm");
  osi_result_delete(r);

  /* A consistent model has no firstError. */
  b = builder_new(17);
  builder_input(b, "x", "float[N,3]");
  builder_input(b, "w", "float[3,4]");
  builder_node(b, "MatMul", "mm", "x", "w", "", "y", "");
  builder_output(b, "y", "float[N,4]");
  r = builder_infer(b, 0, NULL);
  CHECK(osi_result_first_error(r) == NULL);
  CHECK(strstr(osi_result_json(r), "\"firstError\":null") != NULL);
  osi_result_delete(r);
}

/* Requirements that follow from earlier ones are implied (not recorded
 * again); contradictions through symbol classes and bounds are found. */
static void test_implied_and_bounds(void) {
  Builder *b = builder_new(17);
  builder_input(b, "a", "float[P,Q]");
  builder_input(b, "b", "float[Q2,4]");
  builder_input(b, "c", "float[P,Q2]");
  builder_input(b, "d", "float[7,2]");
  builder_node(b, "MatMul", "m1", "a", "b", "", "y1", "");  /* Q2 == Q */
  builder_node(b, "MatMul", "m2", "c", "b", "", "y2", "");  /* Q2 == Q2: nothing */
  builder_node(b, "Transpose", "t", "a", "", "at", "");      /* [Q,P] */
  builder_node(b, "MatMul", "m3", "d", "at", "", "y3", ""); /* Q == 2 */
  builder_node(b, "Transpose", "t2", "b", "", "bt", "");     /* [4,Q2] */
  builder_node(b, "MatMul", "m4", "bt", "d", "", "y4", ""); /* Q2 == 7: Q2 == Q == 2 */
  builder_output(b, "y4", "float[*]");
  OsiResult *r = builder_infer(b, 0, NULL);
  CHECK_INT(osi_result_requirement_count(r), 2);
  const OsiDiagnostic *e = osi_result_first_error(r);
  CHECK(e && !strcmp(e->node, "m4"));
  if (e) CHECK(strstr(e->message, "but node 'm3' (MatMul) requires Q == 2") != NULL);
  osi_result_delete(r);
}

/* A requirement between two phrases (OSI_WHAT) says them both: the text
 * once read a stack buffer that was never filled (found by fuzz_model: the
 * two decoders' JSON differed in this text). */
static void test_requirement_text(void) {
  Builder *b = builder_new(17);
  builder_input(b, "x", "float[N,2]");
  builder_initializer_ints(b, "s", 2, (const int64_t[]){3, 4});
  builder_node(b, "Reshape", "r", "x", "s", "", "y", "");
  builder_output(b, "y", "float[*]");
  OsiResult *r = builder_infer(b, 0, NULL);
  CHECK_INT(osi_result_status(r), OSI_OK);
  CHECK_INT(osi_result_requirement_count(r), 1);
  const OsiRequirement *q = osi_result_requirement_count(r) == 1 ? osi_result_requirement(r, 0) : NULL;
  CHECK_STR(q ? q->what : NULL, "Reshape: the requested shape's element count == the input's element count");
  osi_result_delete(r);
}

/* List-form dynamic axes give every input its own batch symbol; a Concat
 * of a cache and new keys requires two of them equal. Where the model runs
 * they are, so a Broadcast of them is either (numpy: Broadcast(a, a) = a);
 * one of sizes nothing requires equal stays. A requirement found after the
 * Broadcast formed reduces it too. No dim is renamed: the Concat keeps the
 * symbol the rule gave it. */
static void test_broadcast_of_required_equal(void) {
  Builder *b = builder_new(17);
  builder_input(b, "x", "float[A,4]");
  builder_input(b, "p", "float[B,2]");
  builder_input(b, "y", "float[A,6]");
  builder_input(b, "m", "float[C,6]");
  builder_input(b, "q", "float[D,6]");
  builder_input(b, "z", "float[E,6]");
  builder_node(b, "Add", "early", "q", "z", "", "qz", ""); /* Broadcast(D,E), before D == E is known */
  builder_node(b, "Concat", "cat", "p", "x", "", "pk", ""); /* needs B == A */
  builder_attr_int(b, "axis", 1);
  builder_node(b, "Add", "add1", "pk", "y", "", "s1", "");
  builder_node(b, "Add", "add2", "s1", "m", "", "s2", "");
  builder_node(b, "Concat", "late", "q", "z", "", "qz2", ""); /* needs D == E */
  builder_attr_int(b, "axis", 1);
  builder_output(b, "s2", "float[*]");
  builder_output(b, "qz", "float[*]");
  builder_output(b, "qz2", "float[*]");
  OsiResult *r = builder_infer(b, 0, NULL);
  CHECK_INT(osi_result_status(r), OSI_OK);
  CHECK_STR(result_dims(r, "pk"), "[B,6]");
  /* either name is the size; the canonical order of the operands keeps A */
  CHECK_STR(result_dims(r, "s1"), "[A,6]");
  CHECK_STR(result_dims(r, "s2"), "[Broadcast(A,C),6]");
  CHECK_STR(result_dims(r, "qz"), "[D,6]");
  CHECK_STR(result_dims(r, "qz2"), "[D,12]");
  CHECK_INT(osi_result_requirement_count(r), 2);
  osi_result_delete(r);
}

/* A branch may not run: what it requires (a Concat of p[B,2] and x[A,4]
 * in the then-branch of an If on a runtime flag) still checks later
 * requirements, but a Broadcast of A and B outside it stays one: when the
 * else-branch runs, A = 1 and B = 5 is a valid binding and the sum has 5
 * rows. */
static void test_branch_requirement_reduces_nothing(void) {
  Builder *b = builder_new(13);
  builder_input(b, "x", "float[A,4]");
  builder_input(b, "p", "float[B,2]");
  builder_input(b, "y", "float[B,4]");
  builder_input(b, "cond", "bool[1]");
  builder_node(b, "If", "if", "cond", "", "r", "");
  for (int k = 0; k < 2; k++) {
    builder_subgraph(b, k == 0 ? "then_branch" : "else_branch");
    if (k == 0) {
      builder_node(b, "Concat", "cat", "p", "x", "", "t", ""); /* needs B == A */
      builder_attr_int(b, "axis", 1);
    } else {
      builder_node(b, "Identity", "id", "p", "", "t", "");
    }
    builder_output(b, "t", "");
    builder_subgraph_end(b);
  }
  builder_node(b, "Add", "add", "x", "y", "", "s", "");
  builder_output(b, "s", "float[*]");
  builder_output(b, "r", "float[*]");
  OsiResult *r = builder_infer(b, 0, NULL);
  CHECK_INT(osi_result_status(r), OSI_OK);
  CHECK_STR(result_dims(r, "s"), "[Broadcast(A,B),4]");
  CHECK_INT(osi_result_requirement_count(r), 1);
  osi_result_delete(r);
}

/* A size broadcast against a constant c > 1 is 1 or c wherever the node
 * runs (torchaudio's wav2vec2 masks [B,T] against [B,T,16]): the dim is c,
 * and the sizes between are impossible, 0 included. */
static void test_broadcast_against_constant(OpTest *t) {
  CHECK_STR(op_run(t, "", "Add", 14, "float[N,T]", "float[16]", NULL), "float[N,16]");
  CHECK_STR(op_requirements(t), "T == 1 or T == 16");
  /* what is checked is the same: 1 and 16 hold, 0 and the sizes between do not */
  CHECK(op_requirements_hold(t, "T", 1) && op_requirements_hold(t, "T", 16));
  CHECK(!op_requirements_hold(t, "T", 0) && !op_requirements_hold(t, "T", 2) && !op_requirements_hold(t, "T", 17));
  /* the constant first: the same requirement; a computed size reads as its dim */
  CHECK_STR(op_run(t, "", "Where", 16, "bool[16]", "float[N,T]", "float[1]", NULL), "float[N,16]");
  CHECK_STR(op_requirements(t), "T == 1 or T == 16");
  CHECK_STR(op_run(t, "", "Add", 14, "float[N,T//2+1]", "float[64]", NULL), "float[N,64]");
  CHECK_STR(op_requirements(t), "T//2+1 == 1 or T//2+1 == 64");
  /* 1 or the constant by construction: nothing to require */
  CHECK_STR(op_run(t, "", "Add", 14, "float[N,16]", "float[16]", NULL), "float[N,16]");
  CHECK_STR(op_requirements(t), "");
  CHECK_STR(op_run(t, "", "Add", 14, "float[N,T]", "float[1]", NULL), "float[N,T]");
  CHECK_STR(op_requirements(t), "");
  CHECK(starts_with(op_run(t, "", "Add", 14, "float[0]", "float[16]", NULL), "error:SHAPE_MISMATCH"));
}

int main(void) {
  OpTest *t = op_test_new();
  test_broadcast_against_constant(t);
  test_matmul_requirement(t);
  op_test_free(t);
  test_across_nodes();
  test_implied_and_bounds();
  test_requirement_text();
  test_broadcast_of_required_equal();
  test_branch_requirement_reduces_nothing();
  TEST_MAIN_END();
}
