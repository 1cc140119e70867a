/* Shape rules of the ai.onnx.preview.training operators. */
#include "op_harness.h"
#include "test.h"

#define TR "ai.onnx.preview.training"

static void test_optimizers(OpTest *t) {
  /* Adagrad: X_new like X, H_new like H. */
  op_set_outputs(t, 4);
  op_run(t, TR, "Adagrad", 1, "float[]", "int64[]", "float[A]", "double[B,C]", "float[A]", "double[B,C]",
         "float[A]", "double[B,C]", NULL);
  CHECK_STR(op_out(t, 0), "float[A]");
  CHECK_STR(op_out(t, 1), "double[B,C]");
  CHECK_STR(op_out(t, 2), "float[A]");
  CHECK_STR(op_out(t, 3), "double[B,C]");
  /* Momentum: X_new like X, V_new like V. */
  op_set_outputs(t, 2);
  CHECK_STR(op_run(t, TR, "Momentum", 1, "float[]", "int64[]", "float[N]", "float[N]", "float[*]", NULL),
            "float[N]");
  CHECK_STR(op_out(t, 1), "float[*]");
  /* Adam: X_new, V_new, H_new. */
  op_set_outputs(t, 6);
  op_run(t, TR, "Adam", 1, "float[]", "int64[]", "float[1]", "float[2]", "float[1]", "float[2]", "float[3]",
         "float[4]", "float[5]", "float[6]", NULL);
  CHECK_STR(op_out(t, 0), "float[1]");
  CHECK_STR(op_out(t, 1), "float[2]");
  CHECK_STR(op_out(t, 2), "float[3]");
  CHECK_STR(op_out(t, 3), "float[4]");
  CHECK_STR(op_out(t, 4), "float[5]");
  CHECK_STR(op_out(t, 5), "float[6]");
  /* Input groups of unequal size, or too many outputs. */
  CHECK(!strncmp(op_run(t, TR, "Adam", 1, "float[]", "int64[]", "float[1]", "float[1]", "float[1]", NULL),
                 "error:INVALID_MODEL", 19));
  op_set_outputs(t, 3);
  CHECK(!strncmp(op_run(t, TR, "Momentum", 1, "float[]", "int64[]", "float[1]", "float[1]", "float[1]", NULL),
                 "error:INVALID_MODEL", 19));
}

static void test_gradient(OpTest *t) {
  op_set_outputs(t, 2);
  op_attr_strings(t, "xs", 2, (const char *[]){"a", "b"});
  op_attr_str(t, "y", "c");
  CHECK_STR(op_run(t, TR, "Gradient", 1, "float[N,M]", "double[]", NULL), "float[N,M]");
  CHECK_STR(op_out(t, 1), "double[]");
  /* An xs entry without a matching input: unknown, with a reason. */
  op_set_outputs(t, 2);
  op_attr_strings(t, "xs", 2, (const char *[]){"a", "b"});
  CHECK_STR(op_run(t, TR, "Gradient", 1, "float[N]", NULL), "float[N]");
  CHECK_STR(op_out(t, 1), "unknown");
  CHECK(strstr(op_diags(t), "'b'") != NULL);
  op_set_outputs(t, 2);
  op_attr_strings(t, "xs", 1, (const char *[]){"a"});
  CHECK(!strncmp(op_run(t, TR, "Gradient", 1, "float[N]", "float[N]", NULL), "error:INVALID_MODEL", 19));
  CHECK(!strncmp(op_run(t, TR, "Gradient", 1, "float[N]", NULL), "error:INVALID_MODEL", 19));
}

int main(void) {
  OpTest *t = op_test_new();
  test_optimizers(t);
  test_gradient(t);
  op_test_free(t);
  TEST_MAIN_END();
}
