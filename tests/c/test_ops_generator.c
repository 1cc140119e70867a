/* Shape rules of the random generators. */
#include "op_harness.h"
#include "test.h"

static void test_random(OpTest *t) {
  op_attr_ints(t, "shape", 3, (int64_t[]){2, 0, 5});
  CHECK_STR(op_run(t, "", "RandomNormal", 22, NULL), "float[2,0,5]");
  op_attr_ints(t, "shape", 0, (int64_t[]){0});
  op_attr_int(t, "dtype", 11);
  CHECK_STR(op_run(t, "", "RandomUniform", 1, NULL), "double[]");
  CHECK(!strncmp(op_run(t, "", "RandomUniform", 22, NULL), "error:INVALID_MODEL", 19));
  op_attr_ints(t, "shape", 1, (int64_t[]){-1});
  CHECK(!strncmp(op_run(t, "", "RandomNormal", 22, NULL), "error:INVALID_MODEL", 19));
}

static void test_like(OpTest *t) {
  CHECK_STR(op_run(t, "", "RandomNormalLike", 22, "float16[N,C]", NULL), "float16[N,C]");
  op_attr_int(t, "dtype", 1);
  CHECK_STR(op_run(t, "", "RandomUniformLike", 22, "double[N,0]", NULL), "float[N,0]");
  CHECK_STR(op_run(t, "", "RandomUniformLike", 22, "double[*]", NULL), "double[*]");
  /* Bernoulli: the input's type unless dtype says otherwise (bool included). */
  CHECK_STR(op_run(t, "", "Bernoulli", 15, "double[N]", NULL), "double[N]");
  op_attr_int(t, "dtype", 9);
  CHECK_STR(op_run(t, "", "Bernoulli", 22, "float[N,M]", NULL), "bool[N,M]");
}

static void test_multinomial(OpTest *t) {
  CHECK_STR(op_run(t, "", "Multinomial", 7, "float[B,K]", NULL), "int32[B,1]");
  op_attr_int(t, "sample_size", 10);
  op_attr_int(t, "dtype", 7);
  CHECK_STR(op_run(t, "", "Multinomial", 22, "float[B,K]", NULL), "int64[B,10]");
  CHECK_STR(op_run(t, "", "Multinomial", 22, "float[*]", NULL), "int32[?,1]");
  CHECK(!strncmp(op_run(t, "", "Multinomial", 22, "float[K]", NULL), "error:SHAPE_MISMATCH", 20));
}

int main(void) {
  OpTest *t = op_test_new();
  test_random(t);
  test_like(t);
  test_multinomial(t);
  op_test_free(t);
  TEST_MAIN_END();
}
