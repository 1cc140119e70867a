/*
 * Shape checks of the tensor-manipulation rules (Concat, Reshape, Expand,
 * Tile, Pad, Split, ...): a mismatch between known dims fails the node, a
 * symbolic one becomes a requirement, valid edge cases (dims 0) pass.
 * Expected values are worked out by hand from the ONNX spec and
 * onnxruntime's kernel checks.
 */
#include <string.h>

#include "op_harness.h"
#include "test.h"

#define MISMATCH(got) CHECK(!strncmp((got), "error:SHAPE_MISMATCH", 20))
#define INVALID(got) CHECK(!strncmp((got), "error:INVALID_MODEL", 19))

static void test_concat(OpTest *t) {
  /* The example: [2,6,3,8] and [2,3,4,8] on axis 2 gave [2,6,7,8]. */
  op_attr_int(t, "axis", 2);
  CHECK_STR(op_run(t, "", "Concat", 13, "float[2,6,3,8]", "float[2,3,4,8]", NULL),
            "error:SHAPE_MISMATCH: Concat on axis 2: dim 1 of input 'in1' is 3 where dim 1 of input 'in0' is 6");
  op_attr_int(t, "axis", 2);
  CHECK_STR(op_run(t, "", "Concat", 13, "float[2,6,3,8]", "float[2,6,4,8]", NULL), "float[2,6,7,8]");
  /* Symbolic dims off the axis: requirements. */
  op_attr_int(t, "axis", 1);
  CHECK_STR(op_run(t, "", "Concat", 13, "float[B,3]", "float[M,4]", "float[B,1]", NULL), "float[B,8]");
  CHECK_STR(op_requirements(t), "M == B");
  op_attr_int(t, "axis", 1);
  CHECK_STR(op_run(t, "", "Concat", 13, "float[2,3]", "float[M,4]", NULL), "float[2,7]");
  CHECK_STR(op_requirements(t), "M == 2");
  /* onnxruntime 1.30's kernel skips empty inputs in its dim check and takes the other dims from the
   * first input that is not empty: [0,4] beside [2,3] runs when its load-time inference does not see
   * the shapes (a function body's Reshape), giving [2,3]; ranks must still agree. */
  op_attr_int(t, "axis", 0);
  CHECK_STR(op_run(t, "", "Concat", 13, "float[0,3]", "float[2,3]", NULL), "float[2,3]");
  op_attr_int(t, "axis", 0);
  CHECK_STR(op_run(t, "", "Concat", 13, "float[0,4]", "float[2,3]", NULL), "float[2,3]");
  op_attr_int(t, "axis", 1);
  CHECK_STR(op_run(t, "", "Concat", 13, "float[2,3]", "float[2,4]", "float[0,5]", NULL), "float[2,12]");
  op_attr_int(t, "axis", 0);
  CHECK_STR(op_run(t, "", "Concat", 13, "float[0,3]", "float[0,4]", NULL), "float[0,3]");
  op_attr_int(t, "axis", 0);
  MISMATCH(op_run(t, "", "Concat", 13, "float[0,4]", "float[2,3]", "float[1,4]", NULL));
  op_attr_int(t, "axis", 0);
  MISMATCH(op_run(t, "", "Concat", 13, "float[2]", "float[2,3]", NULL));
  op_attr_int(t, "axis", 0);
  INVALID(op_run(t, "", "Concat", 13, "float[]", "float[]", NULL)); /* no axis in rank 0 */
  /* An unknown input is skipped; the first known one is the reference. */
  op_attr_int(t, "axis", 0);
  MISMATCH(op_run(t, "", "Concat", 13, "float[*]", "float[2,3]", "float[2,4]", NULL));
}

static void test_reshape(OpTest *t) {
  CHECK_STR(op_run(t, "", "Reshape", 14, "float[2,3,4]", "int64[2]{6,4}", NULL), "float[6,4]");
  CHECK_STR(op_run(t, "", "Reshape", 14, "float[2,4,4]", "int64[4]{2,3,2,2}", NULL),
            "error:SHAPE_MISMATCH: Reshape: the requested shape's element count is 24 where the input's element count is 32");
  MISMATCH(op_run(t, "", "Reshape", 14, "float[2,3,5]", "int64[3]{2,-1,2}", NULL)); /* 30 is not a multiple of 4 */
  CHECK_STR(op_run(t, "", "Reshape", 14, "float[2,3,4]", "int64[3]{2,-1,2}", NULL), "float[2,6,2]");
  MISMATCH(op_run(t, "", "Reshape", 14, "float[2,3]", "int64[3]{0,0,0}", NULL)); /* 0 copies a dim past the rank */
  MISMATCH(op_run(t, "", "Reshape", 14, "float[2,0]", "int64[2]{-1,0}", NULL));  /* -1 over a zero product */
  op_attr_int(t, "allowzero", 1);
  CHECK_STR(op_run(t, "", "Reshape", 14, "float[0,3]", "int64[3]{3,0,5}", NULL), "float[3,0,5]");
  /* Symbolic: the element count is a requirement unless provably kept. */
  CHECK_STR(op_run(t, "", "Reshape", 14, "float[B,S,768]", "int64[4]{B,S,12,64}", NULL), "float[B,S,12,64]");
  CHECK_STR(op_requirements(t), "");
  CHECK_STR(op_run(t, "", "Reshape", 14, "float[B,S,H]", "int64[3]{B,S,768}", NULL), "float[B,S,768]");
  CHECK_STR(op_requirements(t), "768*B*S == B*H*S");
}

static void test_gather_scatter(OpTest *t) {
  op_attr_int(t, "axis", 1);
  CHECK_STR(op_run(t, "", "GatherElements", 13, "float[3,4]", "int64[3,9]", NULL), "float[3,9]");
  op_attr_int(t, "axis", 1);
  MISMATCH(op_run(t, "", "GatherElements", 13, "float[3,4]", "int64[5,2]", NULL)); /* 5 rows of 3 */
  CHECK_STR(op_run(t, "", "GatherElements", 13, "float[3,4]", "int64[2,4]", NULL), "float[2,4]");
  CHECK_STR(op_run(t, "", "GatherElements", 13, "float[N,4]", "int64[M,K]", NULL), "float[M,K]");
  CHECK_STR(op_requirements(t), "K <= 4");
  CHECK_STR(op_run(t, "", "ScatterElements", 16, "float[3,4]", "int64[2,2]", "float[2,2]", NULL), "float[3,4]");
  MISMATCH(op_run(t, "", "ScatterElements", 16, "float[3,4]", "int64[2,2]", "float[2,3]", NULL));
  MISMATCH(op_run(t, "", "ScatterElements", 16, "float[3,4]", "int64[2,5]", "float[2,5]", NULL));
  CHECK_STR(op_run(t, "", "ScatterND", 16, "float[4,4,4]", "int64[2,1]", "float[2,4,4]", NULL), "float[4,4,4]");
  MISMATCH(op_run(t, "", "ScatterND", 16, "float[4,5,4]", "int64[2,1]", "float[2,4,4]", NULL));
  MISMATCH(op_run(t, "", "ScatterND", 16, "float[4,4,4]", "int64[3,1]", "float[2,4,4]", NULL));
  op_attr_int(t, "batch_dims", 1);
  CHECK_STR(op_run(t, "", "GatherND", 13, "int32[2,2,2]", "int64[2,1]", NULL), "int32[2,2]");
  op_attr_int(t, "batch_dims", 1);
  MISMATCH(op_run(t, "", "GatherND", 13, "int32[3,2,2]", "int64[2,1]", NULL));
  CHECK_STR(op_run(t, "", "TensorScatter", 24, "float[2,3,8,5]", "float[2,3,1,5]", "int64[2]", NULL), "float[2,3,8,5]");
  MISMATCH(op_run(t, "", "TensorScatter", 24, "float[2,3,8,5]", "float[2,4,1,5]", "int64[2]", NULL));
  MISMATCH(op_run(t, "", "TensorScatter", 24, "float[2,3,8,5]", "float[2,3,1,5]", "int64[3]", NULL));
}

/* [3/5] item 2: the impossible sizes, each an error on its node. */
static void test_impossible_sizes(OpTest *t) {
  INVALID(op_run(t, "", "Tile", 13, "float[3]", "int64[1]{-2}", NULL));
  MISMATCH(op_run(t, "", "Pad", 13, "float[10]", "int64[2]{-8,-8}", NULL));
  CHECK_STR(op_run(t, "", "Pad", 13, "float[10]", "int64[2]{-3,-2}", NULL), "float[5]");
  CHECK_STR(op_run(t, "", "Pad", 13, "float[H]", "int64[2]{-3,-2}", NULL), "float[H-5]");
  CHECK_STR(op_requirements(t), "5 <= H");
  INVALID(op_run(t, "", "ConstantOfShape", 20, "int64[1]{-5}", NULL));
  INVALID(op_run(t, "", "Expand", 13, "float[1]", "int64[1]{-7}", NULL));
  INVALID(op_run(t, "", "Resize", 13, "float[1,1,4]", "", "", "int64[3]{1,1,-4}", NULL));
  INVALID(op_run(t, "", "Resize", 13, "float[1,1,4]", "", "float[3]{1,1,-2}", NULL));
  op_set_outputs(t, 2);
  INVALID(op_run(t, "", "Split", 13, "float[10]", "int64[2]{15,-5}", NULL));
  op_set_outputs(t, 2);
  MISMATCH(op_run(t, "", "Split", 13, "float[10]", "int64[2]{9223372036854775807,2}", NULL)); /* the sum wraps in int64 */
  op_set_outputs(t, 2);
  CHECK_STR(op_run(t, "", "Split", 13, "float[H]", "int64[2]{3,4}", NULL), "float[3]");
  CHECK_STR(op_requirements(t), "H == 7");
  op_set_outputs(t, 1);
  INVALID(op_run(t, "", "CenterCropPad", 18, "float[10]", "int64[1]{-1}", NULL));
}

int main(void) {
  OpTest *t = op_test_new();
  test_impossible_sizes(t);
  test_concat(t);
  test_reshape(t);
  test_gather_scatter(t);
  op_test_free(t);
  TEST_MAIN_END();
}
