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
  /* Empty inputs still need matching dims (onnxruntime compares every input). */
  op_attr_int(t, "axis", 0);
  CHECK_STR(op_run(t, "", "Concat", 13, "float[0,3]", "float[2,3]", NULL), "float[2,3]");
  op_attr_int(t, "axis", 0);
  MISMATCH(op_run(t, "", "Concat", 13, "float[0,4]", "float[2,3]", NULL));
  op_attr_int(t, "axis", 0);
  MISMATCH(op_run(t, "", "Concat", 13, "float[2]", "float[2,3]", NULL));
  op_attr_int(t, "axis", 0);
  INVALID(op_run(t, "", "Concat", 13, "float[]", "float[]", NULL)); /* no axis in rank 0 */
  /* An unknown input is skipped; the first known one is the reference. */
  op_attr_int(t, "axis", 0);
  MISMATCH(op_run(t, "", "Concat", 13, "float[*]", "float[2,3]", "float[2,4]", NULL));
}

int main(void) {
  OpTest *t = op_test_new();
  test_concat(t);
  op_test_free(t);
  TEST_MAIN_END();
}
