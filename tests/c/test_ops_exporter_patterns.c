/*
 * Shape-value patterns the TorchScript exporter emits (found by the differential test of
 * tests/exporters/): each case is one op of such a pattern, with the content it receives.
 */
#include "op_harness.h"
#include "test.h"

/* x.expand(n, -1, -1) exports as
 *   s = Concat(Unsqueeze(n), [-1], [-1])
 *   Expand(x, Where(Equal(s, Mul(ConstantOfShape(Shape(s)), -1)), ConstantOfShape(Shape(s)), s))
 * Equal(n, -1) is false for every dimension size n >= 0, so the target shape is known. */
static void test_expand_minus_one(OpTest *t) {
  CHECK_STR(op_run(t, "", "Equal", 13, "int64[3]{N,-1,-1}", "int64[3]{-1,-1,-1}", NULL), "bool[3]{0,1,1}");
  CHECK_STR(op_run(t, "", "Where", 16, "bool[3]{0,1,1}", "int64[3]{1,1,1}", "int64[3]{N,-1,-1}", NULL),
            "int64[3]{N,1,1}");
  CHECK_STR(op_run(t, "", "Expand", 13, "float[1,1,32]", "int64[3]{N,1,1}", NULL), "float[N,1,32]");
  /* The difference decides: n + 1 >= 1, so n + 1 != 0; 2*n and n are equal only at 0, which the
   * content says as 1 - Min(|2*N - N|, 1) (1 at N = 0, else 0); N - 1 == 0 only at N = 1. */
  CHECK_STR(op_run(t, "", "Equal", 13, "int64[1]{N+1}", "int64[1]{0}", NULL), "bool[1]{0}");
  CHECK_STR(op_run(t, "", "Equal", 13, "int64[1]{2*N}", "int64[1]{N}", NULL), "bool[1]{1-Min(N,1)}");
  CHECK_STR(op_run(t, "", "Equal", 13, "int64[1]{N-1}", "int64[1]{0}", NULL), "bool[1]{1-Min(Max(1-N,N-1),1)}");
  CHECK_STR(op_run(t, "", "Equal", 13, "int64[1]{N+M}", "int64[1]{M+N}", NULL), "bool[1]{1}");
}

/* Comparisons of dimension arithmetic: decided when the sign of the difference holds for every
 * value of the symbols (N, M >= 0); otherwise the content is the 0/1 indicator of the comparison
 * (N < M is 1 exactly when M - N >= 1: Min(Max(M-N,0),1)), what an If on it reasons with. */
static void test_compare_signs(OpTest *t) {
  CHECK_STR(op_run(t, "", "Less", 13, "int64[2]{N,-1}", "int64[2]{N+1,N}", NULL), "bool[2]{1,1}");
  CHECK_STR(op_run(t, "", "Less", 13, "int64[2]{N,N}", "int64[2]{N,M}", NULL), "bool[2]{0,Min(Max(M-N,0),1)}");
  CHECK_STR(op_run(t, "", "LessOrEqual", 16, "int64[2]{N,N+1}", "int64[2]{N+M,N}", NULL), "bool[2]{1,0}");
  CHECK_STR(op_run(t, "", "Greater", 13, "int64[2]{N+1,0}", "int64[2]{0,N}", NULL), "bool[2]{1,0}");
  CHECK_STR(op_run(t, "", "GreaterOrEqual", 16, "int64[2]{N,-2}", "int64[2]{0,N}", NULL), "bool[2]{1,0}");
  CHECK_STR(op_run(t, "", "Greater", 13, "int64[1]{N}", "int64[1]{M}", NULL), "bool[1]{Min(Max(N-M,0),1)}");
  /* Constants still fold as before. */
  CHECK_STR(op_run(t, "", "Less", 13, "int64[2]{3,5}", "int64[2]{5,3}", NULL), "bool[2]{1,0}");
  CHECK_STR(op_run(t, "", "Equal", 13, "int64[2]{3,5}", "int64[2]{5,5}", NULL), "bool[2]{0,1}");
}

/* Conditions TorchScript builds from shape tests: `x.dim() != 2` is Equal -> Not, `a and b` And,
 * `a or b` Or. Known where the known elements decide, whatever the others are: a shape test
 * decides `x.dim() == 2 and sr == 16000` (sr fed at run time, no content) when it is false. */
static void test_logical_contents(OpTest *t) {
  CHECK_STR(op_run(t, "", "Not", 13, "bool[3]{0,1,?}", NULL), "bool[3]{1,0,?}");
  CHECK_STR(op_run(t, "", "And", 13, "bool[4]{0,1,1,?}", "bool[4]{?,1,0,1}", NULL), "bool[4]{0,1,0,?}");
  CHECK_STR(op_run(t, "", "Or", 13, "bool[4]{1,0,0,?}", "bool[4]{?,0,1,0}", NULL), "bool[4]{1,0,1,?}");
  CHECK_STR(op_run(t, "", "Xor", 13, "bool[4]{1,0,1,?}", "bool[4]{1,1,0,0}", NULL), "bool[4]{0,1,1,?}");
  /* Broadcast, and an operand without content. */
  CHECK_STR(op_run(t, "", "And", 13, "bool[]{0}", "bool[2]", NULL), "bool[2]{0,0}");
  CHECK_STR(op_run(t, "", "And", 13, "bool[]", "bool[]{1}", NULL), "bool[]{?}");
  CHECK_STR(op_run(t, "", "Or", 13, "bool[]", "bool[1]{1}", NULL), "bool[1]{1}");
  CHECK_STR(op_run(t, "", "Xor", 13, "bool[]", "bool[]{1}", NULL), "bool[]");
  CHECK_STR(op_run(t, "", "And", 13, "bool[]", "bool[]", NULL), "bool[]");
  /* Decided comparisons of sizes feed them: Not(Equal(rank, 2)) with rank 2. */
  CHECK_STR(op_run(t, "", "Not", 13, "bool[]{1}", NULL), "bool[]{0}");
  CHECK_STR(op_run(t, "", "Greater", 13, "int64[]{N+1}", "int64[]{0}", NULL), "bool[]{1}");
  /* IsNaN keeps no content. */
  CHECK_STR(op_run(t, "", "IsNaN", 13, "float[2]", NULL), "bool[2]");
}

/* Reshape's -1 is the element count over the other dims; the factors both sides share cancel, so
 * a product of sums needs no polynomial division and the result stays a product of factors. */
static void test_reshape_minus_one(OpTest *t) {
  /* Swin window partition after padding to a multiple of 7, and its reverse */
  CHECK_STR(op_run(t, "", "Reshape", 14, "float[B,7*CeilDiv(h,7),7*CeilDiv(w,7),C]", "int64[4]{-1,7,7,C}", NULL),
            "float[B*CeilDiv(h,7)*CeilDiv(w,7),7,7,C]");
  CHECK_STR(op_run(t, "", "Reshape", 14, "float[B*CeilDiv(h,7)*CeilDiv(w,7),7,7,C]",
                   "int64[6]{B,CeilDiv(h,7),CeilDiv(w,7),7,7,-1}", NULL),
            "float[B,(h+6)//7,(w+6)//7,7,7,C]"); /* alone, CeilDiv(h,7) prints (h+6)//7 */
  /* a requested dim that is a product of sums of the input's */
  CHECK_STR(op_run(t, "", "Reshape", 14, "float[B,H+1,W+2,C]", "int64[2]{(H+1)*(W+2),-1}", NULL),
            "float[H*W+2*H+W+2,B*C]");
  CHECK_STR(op_run(t, "", "Reshape", 14, "float[B,H+1,W,C]", "int64[3]{B*(H+1),-1,C}", NULL),
            "float[B*H+B,W,C]");
  /* an input dim that is a product of requested ones */
  CHECK_STR(op_run(t, "", "Reshape", 14, "float[B*(S+1),D]", "int64[4]{B,S+1,-1,64}", NULL),
            "float[B,S+1,D//64,64]");
}

int main(void) {
  OpTest *t = op_test_new();
  test_reshape_minus_one(t);
  test_expand_minus_one(t);
  test_compare_signs(t);
  test_logical_contents(t);
  op_test_free(t);
  TEST_MAIN_END();
}
