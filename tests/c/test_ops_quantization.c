/* Shape and type rules of the quantization operators, with symbolic inputs. */
#include "op_harness.h"
#include "test.h"

#define IS_ERR(text, code) (!strncmp((text), "error:" code, strlen("error:" code)))

static void test_quantize(OpTest *t) {
  /* Output type: y_zero_point's, else uint8; output_dtype from opset 21. */
  CHECK_STR(op_run(t, "", "QuantizeLinear", 13, "float[N,C,H,W]", "float[]", NULL), "uint8[N,C,H,W]");
  CHECK_STR(op_run(t, "", "QuantizeLinear", 13, "float[N,C]", "float[C]", "int8[C]", NULL), "int8[N,C]");
  CHECK_STR(op_run(t, "", "QuantizeLinear", 21, "float16[N,C]", "float16[]", "", NULL), "uint8[N,C]");
  op_attr_int(t, "output_dtype", 22);
  CHECK_STR(op_run(t, "", "QuantizeLinear", 21, "float[N,C]", "float[]", NULL), "int4[N,C]");
  /* Blocked quantization: scale [N, ceil(C/B)], output still like x. */
  op_attr_int(t, "block_size", 32);
  op_attr_int(t, "axis", 1);
  CHECK_STR(op_run(t, "", "QuantizeLinear", 21, "float[N,C]", "float[N,(C+31)//32]",
                   "float8e4m3fn[N,(C+31)//32]", NULL), "float8e4m3fn[N,C]");
  op_attr_int(t, "output_dtype", 3);
  CHECK(IS_ERR(op_run(t, "", "QuantizeLinear", 21, "float[N]", "float[]", "uint8[]", NULL), "INVALID_MODEL"));
  CHECK_STR(op_run(t, "", "QuantizeLinear", 19, "float[*]", "float[]", "uint16[]", NULL), "uint16[*]");
  CHECK_STR(op_run(t, "", "QuantizeLinear", 10, "float[0,K]", "float[]", "uint8[]", NULL), "uint8[0,K]");
}

static void test_dequantize(OpTest *t) {
  /* Before opset 19 float; then x_scale's type; from 23 output_dtype. */
  CHECK_STR(op_run(t, "", "DequantizeLinear", 13, "int8[N,C]", "float[]", "int8[]", NULL), "float[N,C]");
  CHECK_STR(op_run(t, "", "DequantizeLinear", 19, "uint8[N,C]", "float16[C]", NULL), "float16[N,C]");
  op_attr_int(t, "block_size", 16);
  CHECK_STR(op_run(t, "", "DequantizeLinear", 21, "int4[N,C]", "bfloat16[N,(C+15)//16]", NULL), "bfloat16[N,C]");
  CHECK_STR(op_requirements(t), "");
  /* A 2-D scale without block_size is neither per tensor nor per axis. */
  CHECK(IS_ERR(op_run(t, "", "DequantizeLinear", 21, "int4[N,C]", "bfloat16[N,(C+15)//16]", NULL), "SHAPE_MISMATCH"));
  op_attr_int(t, "output_dtype", 10);
  CHECK_STR(op_run(t, "", "DequantizeLinear", 23, "int8[K,M]", "float[]", NULL), "float16[K,M]");
  op_attr_int(t, "output_dtype", 10);
  CHECK_STR(op_run(t, "", "DequantizeLinear", 21, "int8[K,M]", "float[]", NULL), "float[K,M]");
  CHECK_STR(op_run(t, "", "DequantizeLinear", 10, "int32[*]", "float[]", NULL), "float[*]");
  /* A one-element scale is per tensor, where axis is ignored: torch's
   * quantized bias, int32[96] with scale [1] and the default axis 1 (out of
   * range for rank 1), runs in onnxruntime and gives float[96]. A scale
   * of 96 entries is per axis, where that axis is an error. */
  CHECK_STR(op_run(t, "", "DequantizeLinear", 13, "int32[96]", "float[1]", "int32[1]", NULL), "float[96]");
  CHECK_STR(op_run(t, "", "QuantizeLinear", 13, "float[K]", "float[1]", "int8[1]", NULL), "int8[K]");
  CHECK(IS_ERR(op_run(t, "", "DequantizeLinear", 13, "int32[96]", "float[96]", "int32[96]", NULL), "INVALID_MODEL"));
}

static void test_dynamic_quantize(OpTest *t) {
  op_set_outputs(t, 3);
  CHECK_STR(op_run(t, "", "DynamicQuantizeLinear", 11, "float[B,S,D]", NULL), "uint8[B,S,D]");
  CHECK_STR(op_out(t, 1), "float[]");
  CHECK_STR(op_out(t, 2), "uint8[]");
  op_set_outputs(t, 3);
  CHECK_STR(op_run(t, "", "DynamicQuantizeLinear", 11, "float[*]", NULL), "uint8[*]");
}

static void test_qlinear(OpTest *t) {
  /* Conv's window rule on x and w (input 3); y has y_zero_point's type. An
   * unknown-rank x still has W's rank. */
  op_attr_ints(t, "pads", 4, (int64_t[]){1, 1, 1, 1});
  op_attr_ints(t, "strides", 2, (int64_t[]){2, 2});
  CHECK_STR(op_run(t, "", "QLinearConv", 10, "uint8[N,3,H,W]", "float[]", "uint8[]", "int8[16,3,3,3]",
                   "float[16]", "int8[16]", "float[]", "int8[]", "int32[16]", NULL),
            "int8[N,16,(H+1)//2,(W+1)//2]");
  /* A symbolic kernel (W's dim K) keeps the formula. */
  CHECK_STR(op_run(t, "", "QLinearConv", 10, "uint8[N,C,L]", "float[]", "uint8[]", "uint8[M,C,K]",
                   "float[]", "uint8[]", "float[]", "uint8[]", NULL), "uint8[N,M,L-K+1]");
  CHECK_STR(op_run(t, "", "QLinearConv", 10, "uint8[*]", "float[]", "uint8[]", "uint8[M,C,3,3]",
                   "float[]", "uint8[]", "float[]", "uint8[]", NULL), "uint8[?,?,?,?]");
  CHECK(IS_ERR(op_run(t, "", "QLinearConv", 10, "uint8[N]", "float[]", "uint8[]", "uint8[M,C,3]", "float[]",
                      "uint8[]", "float[]", "uint8[]", NULL), "SHAPE_MISMATCH"));
  /* MatMul's rule on a and b (input 3). */
  CHECK_STR(op_run(t, "", "QLinearMatMul", 10, "uint8[B,S,K]", "float[]", "uint8[]", "uint8[K,M]", "float[]",
                   "uint8[]", "float[]", "int8[]", NULL), "int8[B,S,M]");
  CHECK_STR(op_run(t, "", "QLinearMatMul", 21, "int8[K]", "float16[]", "int8[]", "int8[B,K,M]", "float16[]",
                   "int8[]", "float16[]", "int8[]", NULL), "int8[B,M]");
  CHECK(IS_ERR(op_run(t, "", "QLinearMatMul", 10, "uint8[2,3]", "float[]", "uint8[]", "uint8[4,5]", "float[]",
                      "uint8[]", "float[]", "uint8[]", NULL), "SHAPE_MISMATCH"));
}

int main(void) {
  OpTest *t = op_test_new();
  test_quantize(t);
  test_dequantize(t);
  test_dynamic_quantize(t);
  test_qlinear(t);
  op_test_free(t);
  TEST_MAIN_END();
}
