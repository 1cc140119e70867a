/* Shape rules of GatherElements, GatherND and the scatter operators, with
 * symbolic inputs. */
#include <string.h>

#include "op_harness.h"
#include "test.h"

#define IS_ERROR(text, code) (!strncmp((text), "error:" code, strlen("error:" code)))

static void test_gather_elements(OpTest *t) {
  op_attr_int(t, "axis", 1);
  CHECK_STR(op_run(t, "", "GatherElements", 13, "float[N,C]", "int64[N,K]", NULL), "float[N,K]");
  op_attr_int(t, "axis", -1);
  CHECK_STR(op_run(t, "", "GatherElements", 13, "bool[N,C,3]", "int32[N,C,0]", NULL), "bool[N,C,0]");
  CHECK_STR(op_run(t, "", "GatherElements", 11, "float[*]", "int64[A,B]", NULL), "float[A,B]");
  CHECK_STR(op_run(t, "", "GatherElements", 13, "float[N,C]", "int64[*]", NULL), "float[?,?]");
  CHECK_STR(op_run(t, "", "GatherElements", 13, "float[*]", "int64[*]", NULL), "float[*]");
  /* Content of a 1-D shape-like tensor. */
  CHECK_STR(op_run(t, "", "GatherElements", 13, "int64[3]{N,C,H}", "int64[2]{2,-3}", NULL),
            "int64[2]{H,N}");
  CHECK_STR(op_run(t, "", "GatherElements", 13, "int64[3]{N,C,H}", "int64[2]", NULL), "int64[2]");
  CHECK(IS_ERROR(op_run(t, "", "GatherElements", 13, "int64[3]{N,C,H}", "int64[1]{3}", NULL),
                 "INVALID_MODEL"));
  CHECK(IS_ERROR(op_run(t, "", "GatherElements", 13, "float[N,C]", "int64[N]", NULL), "SHAPE_MISMATCH"));
  op_attr_int(t, "axis", 2);
  CHECK(IS_ERROR(op_run(t, "", "GatherElements", 13, "float[N,C]", "int64[N,C]", NULL), "INVALID_MODEL"));
}

static void test_gather_nd(OpTest *t) {
  CHECK_STR(op_run(t, "", "GatherND", 11, "float[N,C,H]", "int64[K,2]", NULL), "float[K,H]");
  CHECK_STR(op_run(t, "", "GatherND", 13, "float[N,C,H]", "int64[A,B,3]", NULL), "float[A,B]");
  CHECK_STR(op_run(t, "", "GatherND", 13, "float[N,C]", "int64[1]", NULL), "float[C]");
  op_attr_int(t, "batch_dims", 1);
  CHECK_STR(op_run(t, "", "GatherND", 12, "float[B,C,H,W]", "int64[B,K,1]", NULL), "float[B,K,H,W]");
  op_attr_int(t, "batch_dims", 1);
  CHECK_STR(op_run(t, "", "GatherND", 13, "float[B,C,H]", "int64[?,2]", NULL), "float[B]");
  op_attr_int(t, "batch_dims", 2);
  CHECK_STR(op_run(t, "", "GatherND", 13, "float[B,S,C,H]", "int64[B,S,1]", NULL), "float[B,S,H]");
  /* batch_dims did not exist before opset 12. */
  op_attr_int(t, "batch_dims", 1);
  CHECK_STR(op_run(t, "", "GatherND", 11, "float[B,C,H]", "int64[B,1]", NULL), "float[B,C,H]");
  /* The index depth must be a known constant. */
  CHECK_STR(op_run(t, "", "GatherND", 13, "float[N,C]", "int64[K,D]", NULL), "float[*]");
  CHECK_STR(op_run(t, "", "GatherND", 13, "float[*]", "int64[K,1]", NULL), "float[*]");
  CHECK_STR(op_run(t, "", "GatherND", 13, "float[N,C]", "int64[0,2]", NULL), "float[0]");
  CHECK_STR(op_run(t, "", "GatherND", 13, "int64[3]{N,C,H}", "int64[2,1]{2,0}", NULL), "int64[2]{H,N}");
  CHECK_STR(op_run(t, "", "GatherND", 13, "int64[3]{N,C,H}", "int64[1]{-2}", NULL), "int64[]{C}");
  CHECK(IS_ERROR(op_run(t, "", "GatherND", 13, "float[N,C]", "int64[K,3]", NULL), "INVALID_MODEL"));
  CHECK(IS_ERROR(op_run(t, "", "GatherND", 13, "float[N,C]", "int64[]", NULL), "SHAPE_MISMATCH"));
  op_attr_int(t, "batch_dims", 2);
  CHECK(IS_ERROR(op_run(t, "", "GatherND", 13, "float[N,C]", "int64[N,C]", NULL), "INVALID_MODEL"));
}

static void test_scatter(OpTest *t) {
  op_attr_int(t, "axis", 1);
  CHECK_STR(op_run(t, "", "ScatterElements", 18, "float[N,C]", "int64[N,K]", "float[N,K]", NULL),
            "float[N,C]");
  CHECK_STR(op_run(t, "", "ScatterElements", 11, "float[*]", "int64[N,K]", "float[N,K]", NULL),
            "float[*]");
  op_attr_int(t, "axis", -2);
  CHECK_STR(op_run(t, "", "Scatter", 9, "int32[N,C]", "int64[N,K]", "int32[N,K]", NULL), "int32[N,C]");
  CHECK(IS_ERROR(op_run(t, "", "ScatterElements", 13, "float[N,C]", "int64[K]", "float[K]", NULL),
                 "SHAPE_MISMATCH"));
  op_attr_int(t, "axis", 2);
  CHECK(IS_ERROR(op_run(t, "", "ScatterElements", 13, "float[N,C]", "int64[N,K]", "float[N,K]", NULL),
                 "INVALID_MODEL"));
  CHECK_STR(op_run(t, "", "ScatterND", 11, "float[N,C,H]", "int64[K,2]", "float[K,H]", NULL), "float[N,C,H]");
  CHECK_STR(op_run(t, "", "ScatterND", 18, "float[N,C,H]", "int64[K,D]", "float[*]", NULL), "float[N,C,H]");
  CHECK_STR(op_run(t, "", "ScatterND", 18, "float[0,C]", "int64[0,1]", "float[0,C]", NULL), "float[0,C]");
  CHECK(IS_ERROR(op_run(t, "", "ScatterND", 13, "float[N,C,H]", "int64[K,2]", "float[K]", NULL),
                 "SHAPE_MISMATCH"));
  CHECK(IS_ERROR(op_run(t, "", "ScatterND", 13, "float[N,C]", "int64[K,3]", "float[K]", NULL),
                 "INVALID_MODEL"));
  /* TensorScatter: the present cache is shaped like the past cache. */
  CHECK_STR(op_run(t, "", "TensorScatter", 24, "float[B,H,max_seq,D]", "float[B,H,seq,D]", "int64[B]", NULL),
            "float[B,H,max_seq,D]");
  op_attr_int(t, "axis", 1);
  op_attr_str(t, "mode", "circular");
  CHECK_STR(op_run(t, "", "TensorScatter", 24, "float16[B,S,D]", "float16[B,1,D]", NULL), "float16[B,S,D]");
  CHECK_STR(op_run(t, "", "TensorScatter", 24, "float[*]", "float[B,1,D]", NULL), "float[*]");
  op_attr_int(t, "axis", 0);
  CHECK(IS_ERROR(op_run(t, "", "TensorScatter", 24, "float[B,S,D]", "float[B,1,D]", NULL), "INVALID_MODEL"));
  CHECK(IS_ERROR(op_run(t, "", "TensorScatter", 24, "float[B,S,D]", "float[B,1]", NULL), "SHAPE_MISMATCH"));
}

int main(void) {
  OpTest *t = op_test_new();
  test_gather_elements(t);
  test_gather_nd(t);
  test_scatter(t);
  op_test_free(t);
  TEST_MAIN_END();
}
