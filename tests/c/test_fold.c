/*
 * Constant folding (src/ops/fold.c, fold_math.c): contents computed from
 * the inputs' contents, every dtype, expected values worked out by hand
 * with the runtime's arithmetic (float32 rounding per operation, integer
 * overflow unknown rather than wrapped).
 */
#include <string.h>

#include "op_harness.h"
#include "test.h"

static void test_float_chains(OpTest *t) {
  /* torchvision's batch padding on a fixed size: Cast -> Div -> Ceil -> Mul -> Cast */
  op_attr_int(t, "to", 1);
  CHECK_STR(op_run(t, "", "Cast", 13, "int64[]{100}", NULL), "float[]{100}");
  CHECK_STR(op_run(t, "", "Div", 14, "float[]{100}", "float[]{32}", NULL), "float[]{3.125}");
  CHECK_STR(op_run(t, "", "Ceil", 13, "float[]{3.125}", NULL), "float[]{4}");
  op_attr_int(t, "to", 7);
  CHECK_STR(op_run(t, "", "Cast", 13, "float[]{128}", NULL), "int64[]{128}");
  /* float32 rounding: 0.1 + 0.2 in float32 is 0.3 rounded (0.300000012) */
  CHECK_STR(op_run(t, "", "Add", 14, "float[]{0.1}", "float[]{0.2}", NULL), "float[]{0.3}");
  op_attr_int(t, "to", 7);
  /* float32(0.1) * 30 = 3.0000000447 in double, 3.0 after float32 rounding: Trunc gives 3 */
  CHECK_STR(op_run(t, "", "Cast", 13, "float[]{3}", NULL), "int64[]{3}");
  /* 16777217 does not exist in float32: the conversion rounds to 2^24 */
  op_attr_int(t, "to", 1);
  CHECK_STR(op_run(t, "", "Cast", 13, "int64[]{16777217}", NULL), "float[]{1.67772e+07}");
  op_attr_int(t, "to", 7);
  CHECK_STR(op_run(t, "", "Cast", 13, "float[]{16777217}", NULL), "int64[]{16777216}");
  /* NaN and infinities have no integer */
  CHECK_STR(op_run(t, "", "Div", 14, "float[]{1}", "float[]{0}", NULL), "float[]{inf}");
  op_attr_int(t, "to", 7);
  CHECK_STR(op_run(t, "", "Cast", 13, "float[]{inf}", NULL), "int64[]");
  CHECK_STR(op_run(t, "", "Sqrt", 13, "float[2]{2,16}", NULL), "float[2]{1.41421,4}");
  CHECK_STR(op_run(t, "", "Reciprocal", 13, "float[]{4}", NULL), "float[]{0.25}");
  CHECK_STR(op_run(t, "", "Round", 11, "float[4]{0.5,1.5,2.5,-2.5}", NULL), "float[4]{0,2,2,-2}");
  /* transcendental functions are not folded */
  CHECK_STR(op_run(t, "", "Exp", 13, "float[]{0}", NULL), "float[]");
  /* Pow only where its exact result is representable */
  CHECK_STR(op_run(t, "", "Pow", 15, "float[]{2}", "float[]{10}", NULL), "float[]{1024}");
  CHECK_STR(op_run(t, "", "Pow", 15, "float[]{2}", "int64[]{3}", NULL), "float[]{8}");
  CHECK_STR(op_run(t, "", "Pow", 15, "float[]{2}", "float[]{0.5}", NULL), "float[]");
  CHECK_STR(op_run(t, "", "Pow", 15, "int64[]{3}", "int64[]{4}", NULL), "int64[]{81}");
}

static void test_symbolic_floats(OpTest *t) {
  /* detection preprocessing: scale = min(64 / min(h, w), 100 / max(h, w)) */
  op_attr_int(t, "to", 1);
  CHECK_STR(op_run(t, "", "Cast", 13, "int64[]{Min(H,W)}", NULL), "float[]{Float(Min(H,W))}");
  CHECK_STR(op_run(t, "", "Reciprocal", 13, "float[]{Float(Min(H,W))}", NULL), "float[]{1/Min(H,W)}");
  CHECK_STR(op_run(t, "", "Mul", 14, "float[]{1/Min(H,W)}", "float[]{64}", NULL), "float[]{64/Min(H,W)}");
  CHECK_STR(op_run(t, "", "Mul", 14, "float[]{Float(H)}", "float[]{Min(64/Min(H,W),1.5)}", NULL),
            "float[]{H*Min(1.5,64/Min(H,W))}");
  CHECK_STR(op_run(t, "", "Floor", 13, "float[]{H*Min(1.5,64/Min(H,W))}", NULL),
            "float[]{Float(Floor(H*Min(1.5,64/Min(H,W))))}");
  op_attr_int(t, "to", 7);
  CHECK_STR(op_run(t, "", "Cast", 13, "float[]{Float(Floor(H*Min(1.5,64/Min(H,W))))}", NULL),
            "int64[]{Floor(H*Min(1.5,64/Min(H,W)))}");
  /* Ceil(h / 32) * 32 as integers: 32*CeilDiv(h, 32) */
  op_attr_int(t, "to", 7);
  CHECK_STR(op_run(t, "", "Cast", 13, "float[]{Ceil(H/32)*32.0}", NULL), "int64[]{32*CeilDiv(H,32)}");
  /* scale 2 and 0.5: integer forms; 1.5: the float form */
  op_attr_int(t, "to", 7);
  CHECK_STR(op_run(t, "", "Cast", 13, "float[3]{2.0*H,0.5*H,1.5*H}", NULL), "int64[3]{2*H,H//2,Trunc(1.5*H)}");
  CHECK_STR(op_run(t, "", "Floor", 13, "float[1]{1.5*H}", NULL), "float[1]{Float(Floor(1.5*H))}");
  /* comparisons of float sizes decided by bounds */
  CHECK_STR(op_run(t, "", "Greater", 13, "float[]{Float(H)+0.5}", "float[]{0}", NULL), "bool[]{1}");
  CHECK_STR(op_run(t, "", "Less", 13, "float[]{Float(H)}", "float[]{0.5}", NULL), "bool[]");
}

static void test_integers(OpTest *t) {
  /* overflow: unknown, never wrapped */
  CHECK_STR(op_run(t, "", "Add", 14, "int32[]{2147483647}", "int32[]{1}", NULL), "int32[]");
  CHECK_STR(op_run(t, "", "Mul", 14, "uint8[2]{16,15}", "uint8[]{16}", NULL), "uint8[2]{?,240}");
  op_attr_int(t, "to", 3);
  CHECK_STR(op_run(t, "", "Cast", 13, "int64[2]{127,128}", NULL), "int8[2]{127,?}");
  CHECK_STR(op_run(t, "", "Div", 14, "int64[2]{-7,7}", "int64[]{2}", NULL), "int64[2]{-3,3}");
  /* an exact quotient of sizes: truncated or floored alike */
  CHECK_STR(op_run(t, "", "Div", 14, "int64[]{9*A*B+9*C}", "int64[]{A*B+C}", NULL), "int64[]{9}");
  CHECK_STR(op_run(t, "", "Div", 14, "int64[]{N*C}", "int64[]{C}", NULL), "int64[]{N}");
  CHECK_STR(op_run(t, "", "Div", 14, "int64[]{N*C+1}", "int64[]{C}", NULL), "int64[]");
  CHECK_STR(op_run(t, "", "Mod", 13, "int64[2]{-7,7}", "int64[]{3}", NULL), "int64[2]{2,1}");
  op_attr_int(t, "fmod", 1);
  CHECK_STR(op_run(t, "", "Mod", 13, "int64[2]{-7,7}", "int64[]{3}", NULL), "int64[2]{-1,1}");
  op_attr_str(t, "direction", "LEFT");
  CHECK_STR(op_run(t, "", "BitShift", 11, "uint8[2]{1,128}", "uint8[]{1}", NULL), "uint8[2]{2,?}");
  CHECK_STR(op_run(t, "", "BitwiseAnd", 18, "int32[]{12}", "int32[]{10}", NULL), "int32[]{8}");
  CHECK_STR(op_run(t, "", "Max", 13, "int64[]{N}", "int64[]{0}", "int64[]{1}", NULL), "int64[]{Max(N,1)}");
  /* N == 0 is undecided: its indicator 1 - Min(|N|, 1) (1 at N = 0, else 0). */
  CHECK_STR(op_run(t, "", "Equal", 13, "int64[2]{N+1,N}", "int64[]{0}", NULL), "bool[2]{0,1-Min(N,1)}");
  CHECK_STR(op_run(t, "", "Not", 1, "bool[2]{0,1}", NULL), "bool[2]{1,0}");
  CHECK_STR(op_run(t, "", "Sign", 13, "int64[3]{N+1,-N-1,0}", NULL), "int64[3]{1,-1,0}");
  op_attr_int(t, "to", 9);
  CHECK_STR(op_run(t, "", "Cast", 13, "float[3]{0.5,0,-2}", NULL), "bool[3]{1,0,1}");
}

static void test_movement(OpTest *t) {
  CHECK_STR(op_run(t, "", "Reshape", 14, "float[4]{1,2,3,4}", "int64[2]{2,2}", NULL), "float[2,2]{1,2,3,4}");
  op_attr_ints(t, "perm", 2, (int64_t[]){1, 0});
  CHECK_STR(op_run(t, "", "Transpose", 13, "float[2,3]{1,2,3,4,5,6}", NULL), "float[3,2]{1,4,2,5,3,6}");
  CHECK_STR(op_run(t, "", "Expand", 13, "float[2,1]{1,2}", "int64[2]{2,3}", NULL), "float[2,3]{1,1,1,2,2,2}");
  CHECK_STR(op_run(t, "", "Tile", 13, "float[2]{1,2}", "int64[1]{2}", NULL), "float[4]{1,2,1,2}");
  op_attr_int(t, "axis", 1);
  CHECK_STR(op_run(t, "", "Concat", 13, "float[2,1]{1,2}", "float[2,2]{3,4,5,6}", NULL), "float[2,3]{1,3,4,2,5,6}");
  CHECK_STR(op_run(t, "", "Slice", 13, "float[5]{0,1,2,3,4}", "int64[1]{-1}", "int64[1]{-9223372036854775807}",
                   "int64[1]{0}", "int64[1]{-2}", NULL),
            "float[3]{4,2,0}");
  op_attr_int(t, "axis", 1);
  CHECK_STR(op_run(t, "", "Gather", 13, "float[2,3]{1,2,3,4,5,6}", "int64[2]{-1,0}", NULL), "float[2,2]{3,1,6,4}");
  op_attr_int(t, "axis", 1);
  CHECK_STR(op_run(t, "", "GatherElements", 13, "float[2,2]{1,2,3,4}", "int64[2,2]{1,1,0,1}", NULL),
            "float[2,2]{2,2,3,4}");
  CHECK_STR(op_run(t, "", "GatherND", 13, "float[2,2]{1,2,3,4}", "int64[2,2]{0,1,1,0}", NULL), "float[2]{2,3}");
  op_attr_int(t, "axis", 0);
  CHECK_STR(op_run(t, "", "ScatterElements", 13, "int64[3]{N,2,3}", "int64[1]{-1}", "int64[1]{C}", NULL),
            "int64[3]{N,2,C}");
  CHECK_STR(op_run(t, "", "ScatterND", 13, "float[2,2]{1,2,3,4}", "int64[1,1]{1}", "float[1,2]{7,8}", NULL),
            "float[2,2]{1,2,7,8}");
  op_attr_str(t, "reduction", "add"); /* duplicates combine in order */
  CHECK_STR(op_run(t, "", "ScatterND", 16, "int64[3]{1,2,3}", "int64[2,1]{0,0}", "int64[2]{10,N}", NULL),
            "int64[3]{N+11,2,3}");
  op_set_outputs(t, 2);
  op_attr_int(t, "axis", 0);
  op_run(t, "", "Split", 13, "float[5]{1,2,3,4,5}", "int64[2]{2,3}", NULL);
  CHECK_STR(op_out(t, 0), "float[2]{1,2}");
  CHECK_STR(op_out(t, 1), "float[3]{3,4,5}");
  CHECK_STR(op_run(t, "", "Pad", 13, "float[2]{1,2}", "int64[2]{1,2}", "float[]{9}", NULL), "float[5]{9,1,2,9,9}");
  op_attr_tensor(t, "value", "float16[1]{0.1}");
  CHECK_STR(op_run(t, "", "ConstantOfShape", 13, "int64[1]{2}", NULL), "float16[2]{0.0999756,0.0999756}");
  CHECK_STR(op_run(t, "", "Where", 16, "bool[3]{1,0,1}", "float[3]{1,2,3}", "float[]{0}", NULL), "float[3]{1,0,3}");
  /* a Where with an unknown condition element keeps that element unknown */
  CHECK_STR(op_run(t, "", "Where", 16, "bool[2]{1,?}", "int64[2]{N,2}", "int64[2]{3,4}", NULL), "int64[2]{N,?}");
}

static void test_reductions(OpTest *t) {
  op_attr_int(t, "keepdims", 0);
  CHECK_STR(op_run(t, "", "ReduceMax", 13, "float[2,2]{1,5,3,2}", NULL), "float[]{5}");
  op_attr_int(t, "keepdims", 0);
  CHECK_STR(op_run(t, "", "ReduceSum", 13, "float[3]{1,2,3}", "int64[1]{0}", NULL), "float[]{6}");
  /* three floats whose sum rounds: the runtime's order decides, so unknown */
  op_attr_int(t, "keepdims", 0);
  CHECK_STR(op_run(t, "", "ReduceSum", 13, "float[3]{0.1,0.2,0.3}", "int64[1]{0}", NULL), "float[]");
  op_attr_int(t, "keepdims", 0);
  CHECK_STR(op_run(t, "", "ReduceMean", 18, "float[4]{1,2,3,4}", NULL), "float[]{2.5}");
  op_attr_int(t, "axis", 1);
  CHECK_STR(op_run(t, "", "ArgMax", 13, "float[2,3]{1,3,3,9,2,1}", NULL), "int64[2,1]{1,0}");
  op_attr_int(t, "axis", 1);
  op_attr_int(t, "select_last_index", 1);
  CHECK_STR(op_run(t, "", "ArgMax", 13, "float[2,3]{1,3,3,9,2,1}", NULL), "int64[2,1]{2,0}");
  CHECK_STR(op_run(t, "", "CumSum", 14, "int64[3]{N,1,2}", "int64[]{0}", NULL), "int64[3]{N,N+1,N+3}");
  op_attr_int(t, "exclusive", 1);
  op_attr_int(t, "reverse", 1);
  CHECK_STR(op_run(t, "", "CumSum", 14, "float[3]{1,2,3}", "int64[]{0}", NULL), "float[3]{5,3,0}");
  CHECK_STR(op_run(t, "", "NonZero", 13, "bool[3]{1,0,1}", NULL), "int64[1,2]{0,2}");
  op_attr_float(t, "min", 0);
  op_attr_float(t, "max", 6);
  CHECK_STR(op_run(t, "", "Clip", 6, "float[3]{-1,3,9}", NULL), "float[3]{0,3,6}");
}

int main(void) {
  OpTest *t = op_test_new();
  test_float_chains(t);
  test_symbolic_floats(t);
  test_integers(t);
  test_movement(t);
  test_reductions(t);
  op_test_free(t);
  TEST_MAIN_END();
}
