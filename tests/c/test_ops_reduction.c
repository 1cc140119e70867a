/* Shape rules of Reduce* and ArgMax/ArgMin, with symbolic inputs. */
#include "op_harness.h"
#include "test.h"

#define IS_ERR(text, code) (!strncmp((text), "error:" code, strlen("error:" code)))

static void test_reduce_axes(OpTest *t) {
  /* Axes as an input (ReduceSum from opset 13). */
  CHECK_STR(op_run(t, "", "ReduceSum", 13, "float[N,C,H,W]", "int64[2]{1,-1}", NULL), "float[N,1,H,1]");
  op_attr_int(t, "keepdims", 0);
  CHECK_STR(op_run(t, "", "ReduceSum", 13, "float[N,C,H,W]", "int64[2]{1,-1}", NULL), "float[N,H]");
  /* Axes as an attribute before the migration (opset 13 for ReduceMean, 11 for ReduceSum). */
  op_attr_ints(t, "axes", 1, (int64_t[]){1});
  CHECK_STR(op_run(t, "", "ReduceMean", 13, "float[B,S,D]", NULL), "float[B,1,D]");
  op_attr_ints(t, "axes", 1, (int64_t[]){-1});
  op_attr_int(t, "keepdims", 0);
  CHECK_STR(op_run(t, "", "ReduceSum", 11, "float[B,S,D]", NULL), "float[B,S]");
  CHECK_STR(op_run(t, "", "ReduceMean", 18, "float[B,S,D]", "int64[1]{-1}", NULL), "float[B,S,1]");
  CHECK_STR(op_run(t, "", "ReduceMax", 20, "bool[B,S]", "int64[1]{0}", NULL), "bool[1,S]");
  /* Zero-size dims reduce to 1 like any other. */
  CHECK_STR(op_run(t, "", "ReduceL2", 18, "float[N,0,3]", "int64[1]{1}", NULL), "float[N,1,3]");
  CHECK(IS_ERR(op_run(t, "", "ReduceSum", 13, "float[N,C]", "int64[1]{2}", NULL), "INVALID_MODEL"));
  /* A repeated axis is reduced once (onnxruntime runs it). */
  CHECK_STR(op_run(t, "", "ReduceSum", 13, "float[N,C]", "int64[2]{1,-1}", NULL), "float[N,1]");
  op_attr_ints(t, "axes", 2, (int64_t[]){1, 1});
  op_attr_int(t, "keepdims", 0);
  CHECK_STR(op_run(t, "", "ReduceMax", 11, "float[2,3,4]", NULL), "float[2,4]");
}

static void test_reduce_empty_axes(OpTest *t) {
  /* Absent or empty axes reduce everything ... */
  CHECK_STR(op_run(t, "", "ReduceSum", 13, "float[N,C,H]", NULL), "float[1,1,1]");
  CHECK_STR(op_run(t, "", "ReduceSum", 13, "float[N,C,H]", "int64[0]", NULL), "float[1,1,1]");
  CHECK_STR(op_run(t, "", "ReduceLogSumExp", 11, "float[N,C,H]", NULL), "float[1,1,1]");
  op_attr_int(t, "keepdims", 0);
  CHECK_STR(op_run(t, "", "ReduceMin", 18, "float[N,C,H]", "", NULL), "float[]");
  /* ... even of unknown rank when the result is a scalar. */
  op_attr_int(t, "keepdims", 0);
  CHECK_STR(op_run(t, "", "ReduceProd", 18, "float[*]", NULL), "float[]");
  CHECK_STR(op_run(t, "", "ReduceProd", 18, "float[*]", NULL), "float[*]");
  /* ... or nothing with noop_with_empty_axes (opset 13 / 18 only). */
  op_attr_int(t, "noop_with_empty_axes", 1);
  CHECK_STR(op_run(t, "", "ReduceSumSquare", 18, "float[N,C,H]", NULL), "float[N,C,H]");
  op_attr_int(t, "noop_with_empty_axes", 1);
  op_attr_int(t, "keepdims", 0);
  CHECK_STR(op_run(t, "", "ReduceSum", 13, "float[N,C]", "int64[0]{}", NULL), "float[N,C]");
  op_attr_int(t, "noop_with_empty_axes", 1);
  CHECK_STR(op_run(t, "", "ReduceL1", 13, "float[N,C]", NULL), "float[1,1]");
}

static void test_reduce_unknown_axes(OpTest *t) {
  /* Each dim stays or becomes 1: only a 1 is provably right. */
  CHECK_STR(op_run(t, "", "ReduceSum", 13, "float[N,1,H]", "int64[2]", NULL), "float[?,1,?]");
  /* Two unknown axes may be one axis twice: one or two dims go. */
  op_attr_int(t, "keepdims", 0);
  CHECK_STR(op_run(t, "", "ReduceSum", 13, "float[N,1,H]", "int64[2]", NULL), "float[*]");
  op_attr_int(t, "keepdims", 0);
  CHECK_STR(op_run(t, "", "ReduceSum", 13, "float[N,1,H]", "int64[1]", NULL), "float[?,?]");
  op_attr_int(t, "keepdims", 0);
  CHECK_STR(op_run(t, "", "ReduceSum", 13, "float[N,1,H]", "int64[?]", NULL), "float[*]");
  op_attr_int(t, "keepdims", 0);
  CHECK_STR(op_run(t, "", "ReduceSum", 13, "float[N,1,H]", "int64[0]", NULL), "float[]");
  CHECK_STR(op_run(t, "", "ReduceMean", 18, "float[*]", "int64[1]{1}", NULL), "float[*]");
}

static void test_reduce_values(OpTest *t) {
  /* numel of Shape(x)[1:3] as exporters compute it. */
  op_attr_int(t, "keepdims", 0);
  CHECK_STR(op_run(t, "", "ReduceProd", 18, "int64[2]{C,H}", NULL), "int64[]{C*H}");
  CHECK_STR(op_run(t, "", "ReduceProd", 13, "int64[2]{C,H}", NULL), "int64[1]{C*H}");
  op_attr_int(t, "keepdims", 0);
  CHECK_STR(op_run(t, "", "ReduceSum", 13, "int64[3]{N,C,4}", "int64[1]{0}", NULL), "int64[]{C+N+4}");
  op_attr_int(t, "keepdims", 0);
  CHECK_STR(op_run(t, "", "ReduceSum", 13, "int64[2,2]{A,B,C,D}", "int64[1]{1}", NULL), "int64[2]{A+B,C+D}");
  CHECK_STR(op_run(t, "", "ReduceSum", 13, "int64[2,2]{A,B,C,D}", "int64[1]{0}", NULL), "int64[1,2]{A+C,B+D}");
  op_attr_int(t, "keepdims", 0);
  CHECK_STR(op_run(t, "", "ReduceMax", 18, "int64[2]{N,0}", NULL), "int64[]{N}");
  op_attr_int(t, "keepdims", 0);
  CHECK_STR(op_run(t, "", "ReduceMin", 18, "int64[2]{N,4}", NULL), "int64[]{Min(N,4)}");
  /* Empty reductions: sum 0, product 1, max unknown. */
  op_attr_int(t, "keepdims", 0);
  CHECK_STR(op_run(t, "", "ReduceProd", 18, "int64[0]{}", NULL), "int64[]{1}");
  op_attr_int(t, "keepdims", 0);
  CHECK_STR(op_run(t, "", "ReduceSum", 13, "int64[0]{}", NULL), "int64[]{0}");
  op_attr_int(t, "keepdims", 0);
  CHECK_STR(op_run(t, "", "ReduceMax", 18, "int64[0]{}", NULL), "int64[]{?}");
  /* Other reductions carry no content; no-op Sum keeps it. */
  op_attr_int(t, "keepdims", 0);
  CHECK_STR(op_run(t, "", "ReduceSumSquare", 18, "int64[2]{C,H}", NULL), "int64[]");
  op_attr_int(t, "noop_with_empty_axes", 1);
  CHECK_STR(op_run(t, "", "ReduceSum", 13, "int64[2]{C,H}", NULL), "int64[2]{C,H}");
}

static void test_arg_reduce(OpTest *t) {
  CHECK_STR(op_run(t, "", "ArgMax", 13, "float[N,C,H]", NULL), "int64[1,C,H]");
  op_attr_int(t, "axis", 1);
  CHECK_STR(op_run(t, "", "ArgMax", 13, "float[N,C,H]", NULL), "int64[N,1,H]");
  op_attr_int(t, "axis", -1);
  op_attr_int(t, "keepdims", 0);
  op_attr_int(t, "select_last_index", 1);
  CHECK_STR(op_run(t, "", "ArgMin", 12, "float[N,C,H]", NULL), "int64[N,C]");
  op_attr_int(t, "keepdims", 0);
  CHECK_STR(op_run(t, "", "ArgMin", 13, "float[N]", NULL), "int64[]");
  CHECK_STR(op_run(t, "", "ArgMax", 13, "float[*]", NULL), "int64[*]");
  op_attr_int(t, "axis", 3);
  CHECK(IS_ERR(op_run(t, "", "ArgMax", 13, "float[N,C,H]", NULL), "INVALID_MODEL"));
}

int main(void) {
  OpTest *t = op_test_new();
  test_reduce_axes(t);
  test_reduce_empty_axes(t);
  test_reduce_unknown_axes(t);
  test_reduce_values(t);
  test_arg_reduce(t);
  op_test_free(t);
  TEST_MAIN_END();
}
