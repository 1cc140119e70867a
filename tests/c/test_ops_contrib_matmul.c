/* com.microsoft matmul, gemm, convolution and quantization operators
 * (contrib_matmul.c), with symbolic inputs. */
#include "op_harness.h"
#include "test.h"

#define MS "com.microsoft"

static int is_error(const char *s, const char *code) {
  return s && !strncmp(s, "error:", 6) && !strncmp(s + 6, code, strlen(code));
}

static void test_fused_matmul(OpTest *t) {
  CHECK_STR(op_run(t, MS, "FusedMatMul", 1, "float[B,S,K]", "float[K,N]", NULL), "float[B,S,N]");
  op_attr_int(t, "transB", 1);
  CHECK_STR(op_run(t, MS, "FusedMatMul", 1, "float[B,S,K]", "float[N,K]", NULL), "float[B,S,N]");
  op_attr_int(t, "transA", 1);
  CHECK_STR(op_run(t, MS, "FusedMatMul", 1, "float[B,K,M]", "float[B,K,N]", NULL), "float[B,M,N]");
  /* transBatchA: A [M, b, K] is read as [b, M, K]. */
  op_attr_int(t, "transBatchA", 1);
  CHECK_STR(op_run(t, MS, "FusedMatMul", 1, "float[M,H,K]", "float[H,K,N]", NULL), "float[H,M,N]");
  op_attr_int(t, "transBatchA", 1);
  op_attr_int(t, "transBatchB", 1);
  CHECK_STR(op_run(t, MS, "FusedMatMul", 1, "float[M,H,K]", "float[K,H,N]", NULL), "float[H,M,N]");
  op_attr_int(t, "transBatchB", 1);
  CHECK_STR(op_run(t, MS, "FusedMatMul", 1, "float[M,H,K]", "float[K,H,N]", NULL),
            "float[Broadcast(H,M),H,N]");
  /* Both: A [K, b, M] -> [b, M, K]. */
  op_attr_int(t, "transBatchA", 1);
  op_attr_int(t, "transA", 1);
  CHECK_STR(op_run(t, MS, "FusedMatMul", 1, "float[K,H,M]", "float[H,K,N]", NULL), "float[H,M,N]");
  /* Vectors ignore trans. */
  op_attr_int(t, "transA", 1);
  CHECK_STR(op_run(t, MS, "FusedMatMul", 1, "float[K]", "float[B,K,N]", NULL), "float[B,N]");
  CHECK_STR(op_run(t, MS, "FusedMatMul", 1, "float[*]", "float[K,N]", NULL), "float[*]");
  CHECK(is_error(op_run(t, MS, "FusedMatMul", 1, "float[2,3]", "float[4,5]", NULL), "SHAPE_MISMATCH"));
  op_attr_int(t, "transA", 1);
  op_attr_str(t, "activation", "Relu");
  CHECK_STR(op_run(t, MS, "FusedMatMulActivation", 1, "float16[K,M]", "float16[K,N]", NULL), "float16[M,N]");
  op_attr_int(t, "transB", 1);
  CHECK_STR(op_run(t, MS, "TransposeMatMul", 1, "float[B,M,K]", "float[1,N,K]", NULL), "float[B,M,N]");
}

static void test_matmul(OpTest *t) {
  CHECK_STR(op_run(t, MS, "MatMulInteger16", 1, "int16[B,M,K]", "int16[K,N]", NULL), "int32[B,M,N]");
  CHECK_STR(
      op_run(t, MS, "MatMulIntegerToFloat", 1, "uint8[B,S,K]", "int8[K,N]", "float16[]", "float16[N]", NULL),
      "float16[B,S,N]");
  CHECK_STR(op_run(t, MS, "DynamicQuantizeMatMul", 1, "float[B,S,K]", "int8[K,N]", "float[]", NULL),
            "float[B,S,N]");
  CHECK_STR(op_run(t, MS, "GemmFastGelu", 1, "float[B,S,K]", "float[K,N]", "float[N]", NULL), "float[B,S,N]");
  /* B_shape's content gives the logical [K, N] of the packed blob. */
  CHECK_STR(op_run(t, MS, "MatMulFpQ4", 1, "float[B,S,K]", "uint8[X]", "int64[2]{K,N}", NULL),
            "float[B,S,N]");
  CHECK_STR(op_run(t, MS, "MatMulFpQ4", 1, "float[K]", "uint8[X]", "int64[2]{K,64}", NULL), "float[64]");
  CHECK_STR(op_run(t, MS, "MatMulFpQ4", 1, "float[B,M,K]", "uint8[X]", "int64[2]", NULL), "float[B,M,?]");
  CHECK(is_error(op_run(t, MS, "MatMulFpQ4", 1, "float[M,K]", "uint8[X]", "int64[3]{1,2,3}", NULL),
                 "INVALID_MODEL"));

  op_attr_int(t, "K", 4096);
  op_attr_int(t, "N", 11008);
  op_attr_int(t, "block_size", 32);
  CHECK_STR(
      op_run(t, MS, "MatMulNBits", 1, "float16[B,S,4096]", "uint8[11008,128,16]", "float16[11008,128]", NULL),
      "float16[B,S,11008]");
  op_attr_int(t, "K", 4096);
  op_attr_int(t, "N", 11008);
  CHECK_STR(op_run(t, MS, "MatMulNBits", 1, "float[S,K]", "uint8[11008,128,16]", "float[11008,128]", NULL),
            "float[S,11008]");
  op_attr_int(t, "K", 4096);
  op_attr_int(t, "N", 11008);
  CHECK(is_error(
      op_run(t, MS, "MatMulNBits", 1, "float[S,4095]", "uint8[11008,128,16]", "float[11008,128]", NULL),
      "SHAPE_MISMATCH"));
  op_attr_int(t, "K", 64);
  op_attr_int(t, "N", 32);
  CHECK_STR(op_run(t, MS, "MatMulNBits", 1, "float[*]", "uint8[32,2,16]", "float[32,2]", NULL), "float[*]");
  op_attr_int(t, "K", 64);
  op_attr_int(t, "N", 32);
  CHECK_STR(op_run(t, MS, "MatMulBnb4", 1, "float[B,S,64]", "uint8[1024]", "float[32]", NULL),
            "float[B,S,32]");
  /* transB = 0 multiplies by [N, K]: the last dim N becomes K. */
  op_attr_int(t, "K", 64);
  op_attr_int(t, "N", 32);
  op_attr_int(t, "transB", 0);
  CHECK_STR(op_run(t, MS, "MatMulBnb4", 1, "float[B,S,32]", "uint8[1024]", "float[32]", NULL),
            "float[B,S,64]");

  CHECK_STR(op_run(t, MS, "SparseToDenseMatMul", 1, "float[M,K]", "float[K,N]", NULL), "float[M,N]");
  op_attr_int(t, "transA", 1);
  op_attr_int(t, "transB", 1);
  CHECK_STR(op_run(t, MS, "SparseToDenseMatMul", 1, "int64[K,M]", "int64[N,K]", NULL), "int64[M,N]");
  CHECK(is_error(op_run(t, MS, "SparseToDenseMatMul", 1, "float[M,K]", "float[B,K,N]", NULL),
                 "SHAPE_MISMATCH"));
}

static void test_gemm(OpTest *t) {
  op_attr_int(t, "transB", 1);
  op_attr_str(t, "activation", "Relu");
  CHECK_STR(op_run(t, MS, "FusedGemm", 1, "float[M,K]", "float[N,K]", "float[N]", NULL), "float[M,N]");
  op_attr_int(t, "transA", 1);
  CHECK_STR(
      op_run(t, MS, "QGemm", 1, "uint8[K,M]", "float[]", "uint8[]", "int8[K,N]", "float[]", "int8[]", NULL),
      "float[M,N]");
  CHECK_STR(op_run(t, MS, "QGemm", 1, "uint8[M,K]", "float[]", "uint8[]", "int8[K,N]", "float[]", "int8[]",
                   "int32[N]", "float[]", "int8[]", NULL),
            "int8[M,N]");
  CHECK_STR(op_run(t, MS, "QGemm", 1, "uint8[M,K]", "float[]", "uint8[]", "int8[K,N]", "float[]", "int8[]",
                   "", "float[]", NULL),
            "?[M,N]");
  CHECK(is_error(
      op_run(t, MS, "QGemm", 1, "uint8[B,M,K]", "float[]", "uint8[]", "int8[K,N]", "float[]", "int8[]", NULL),
      "SHAPE_MISMATCH"));
  op_attr_int(t, "transB", 1);
  op_attr_int(t, "dtype", 10);
  CHECK_STR(op_run(t, MS, "GemmFloat8", 1, "float8e4m3fn[M,K]", "float8e4m3fn[N,K]", NULL), "float16[M,N]");
  CHECK_STR(op_run(t, MS, "GemmFloat8", 1, "float[M,K]", "float[K,N]", NULL), "float[M,N]");
}

static void test_conv(OpTest *t) {
  op_attr_ints(t, "pads", 4, (int64_t[]){1, 1, 1, 1});
  op_attr_str(t, "activation", "Relu");
  CHECK_STR(op_run(t, MS, "FusedConv", 1, "float[N,C,H,W]", "float[64,C,3,3]", "float[64]", NULL),
            "float[N,64,H,W]");
  /* NHWC: X [N, H, W, C] -> Y [N, oh, ow, M]; NhwcConv reads its kernel from kernel_shape. */
  op_attr_ints(t, "strides", 2, (int64_t[]){2, 2});
  op_attr_ints(t, "kernel_shape", 2, (int64_t[]){3, 3});
  CHECK_STR(op_run(t, MS, "NhwcConv", 1, "float16[N,H,W,C]", "float16[32,3,3,C]", NULL),
            "float16[N,(H+1)//2-1,(W+1)//2-1,32]");
  op_attr_str(t, "auto_pad", "SAME_UPPER");
  op_attr_ints(t, "strides", 2, (int64_t[]){2, 2});
  CHECK_STR(op_run(t, MS, "NhwcFusedConv", 1, "float[N,H,W,C]", "float[M,C,3,3]", "", "float[N,?,?,M]", NULL),
            "float[N,(H+1)//2,(W+1)//2,M]");
  CHECK_STR(op_run(t, MS, "NhwcConv", 1, "float[N,H,W,C]", "float[M,C,K1,K2]", NULL), "float[N,?,?,M]");
  /* NhwcConv's W layout is not settled: without kernel_shape the kernel is unknown. */
  CHECK_STR(op_run(t, MS, "NhwcConv", 1, "float[N,H,W,C]", "float[M,3,3,C]", NULL), "float[N,?,?,M]");
  CHECK_STR(op_run(t, MS, "NhwcFusedConv", 1, "float[N,H,W,C]", "float[M,C,3,3]", NULL),
            "float[N,H-2,W-2,M]");
  CHECK_STR(op_run(t, MS, "NhwcConv", 1, "float[*]", "float[M,C,3,3]", NULL), "float[?,?,?,?]");
  op_attr_ints(t, "kernel_shape", 2, (int64_t[]){2, 2});
  op_attr_ints(t, "strides", 2, (int64_t[]){2, 2});
  CHECK_STR(op_run(t, MS, "NhwcMaxPool", 1, "uint8[N,H,W,C]", NULL), "uint8[N,Max(H//2,Min((H+1)//2,1)),Max(W//2,Min((W+1)//2,1)),C]");
  op_attr_ints(t, "kernel_shape", 2, (int64_t[]){3, 3});
  op_attr_ints(t, "strides", 2, (int64_t[]){2, 2});
  op_attr_int(t, "ceil_mode", 1);
  CHECK_STR(op_run(t, MS, "NhwcMaxPool", 1, "int8[1,112,112,64]", NULL), "int8[1,56,56,64]");
  op_attr_ints(t, "kernel_shape", 1, (int64_t[]){3});
  CHECK(is_error(op_run(t, MS, "NhwcMaxPool", 1, "int8[N,H,W,C]", NULL), "INVALID_MODEL"));
  op_attr_ints(t, "kernel_shape", 2, (int64_t[]){2, 2});
  op_attr_ints(t, "strides", 2, (int64_t[]){2, 2});
  CHECK_STR(op_run(t, MS, "MaxpoolWithMask", 1, "float[N,C,H,W]", "int32[N,C,H,W]", NULL),
            "float[N,C,Max(H//2,Min((H+1)//2,1)),Max(W//2,Min((W+1)//2,1))]");

  CHECK_STR(op_run(t, MS, "QLinearConv", 1, "uint8[N,C,H,W]", "float[]", "uint8[]", "int8[M,C,3,3]",
                   "float[]", "int8[]", "float[]", "uint8[]", NULL),
            "uint8[N,M,H-2,W-2]");
  op_attr_int(t, "channels_last", 1);
  CHECK_STR(op_run(t, MS, "QLinearConv", 1, "int8[N,H,W,C]", "float[]", "int8[]", "int8[M,C,3,3]", "float[]",
                   "int8[]", "float[]", "int8[]", "int32[M]", NULL),
            "int8[N,H-2,W-2,M]");
  op_attr_ints(t, "kernel_shape", 2, (int64_t[]){2, 2});
  op_attr_ints(t, "strides", 2, (int64_t[]){2, 2});
  CHECK_STR(op_run(t, MS, "QLinearAveragePool", 1, "uint8[N,C,H,W]", "float[]", "uint8[]", "float[]",
                   "uint8[]", NULL),
            "uint8[N,C,Max(H//2,Min((H+1)//2,1)),Max(W//2,Min((W+1)//2,1))]");
  op_attr_ints(t, "kernel_shape", 2, (int64_t[]){2, 2});
  op_attr_ints(t, "strides", 2, (int64_t[]){2, 2});
  op_attr_int(t, "channels_last", 1);
  CHECK_STR(op_run(t, MS, "QLinearAveragePool", 1, "uint8[N,H,W,C]", "float[]", "uint8[]", "float[]",
                   "uint8[]", NULL),
            "uint8[N,Max(H//2,Min((H+1)//2,1)),Max(W//2,Min((W+1)//2,1)),C]");
  CHECK_STR(op_run(t, MS, "QLinearGlobalAveragePool", 1, "int8[N,C,H,W]", "float[]", "int8[]", "float[]",
                   "int8[]", NULL),
            "int8[N,C,1,1]");
  op_attr_int(t, "channels_last", 1);
  CHECK_STR(op_run(t, MS, "QLinearGlobalAveragePool", 1, "int8[N,D,H,W,C]", "float[]", "int8[]", "float[]",
                   "int8[]", NULL),
            "int8[N,1,1,1,C]");
  CHECK(is_error(
      op_run(t, MS, "QLinearGlobalAveragePool", 1, "int8[N]", "float[]", "int8[]", "float[]", "int8[]", NULL),
      "SHAPE_MISMATCH"));

  /* ConvTranspose with the pads as an input. */
  op_attr_ints(t, "strides", 2, (int64_t[]){2, 2});
  CHECK_STR(op_run(t, MS, "ConvTransposeWithDynamicPads", 1, "float[N,C,H,W]", "float[C,M,3,3]",
                   "int64[4]{1,1,1,1}", NULL),
            "float[N,M,2*H-1,2*W-1]");
  CHECK_STR(op_run(t, MS, "ConvTransposeWithDynamicPads", 1, "float[N,C,H,W]", "float[C,M,3,3]", NULL),
            "float[N,M,H+2,W+2]");
  op_attr_int(t, "group", 2);
  CHECK_STR(
      op_run(t, MS, "ConvTransposeWithDynamicPads", 1, "float[N,C,H,W]", "float[C,M,3,3]", "int64[4]", NULL),
      "float[N,2*M,?,?]");
  CHECK_STR(op_run(t, MS, "ConvTransposeWithDynamicPads", 1, "float[N,C,H,W]", "float[C,M,3,3]",
                   "int64[4]{P,0,P,0}", NULL),
            "float[N,M,H-2*P+2,W+2]");
  op_attr_ints(t, "output_shape", 2, (int64_t[]){10, 12});
  CHECK_STR(
      op_run(t, MS, "ConvTransposeWithDynamicPads", 1, "float[N,C,H,W]", "float[C,M,3,3]", "int64[4]", NULL),
      "float[N,M,10,12]");
  CHECK(is_error(op_run(t, MS, "ConvTransposeWithDynamicPads", 1, "float[N,C,H,W]", "float[C,M,3,3]",
                        "int64[2]{1,1}", NULL),
                 "INVALID_MODEL"));
}

static void test_qlinear_elementwise(OpTest *t) {
  CHECK_STR(op_run(t, MS, "QLinearAdd", 1, "uint8[B,S,D]", "float[]", "uint8[]", "uint8[D]", "float[]",
                   "uint8[]", "float[]", "uint8[]", NULL),
            "uint8[B,S,D]");
  CHECK_STR(op_run(t, MS, "QLinearMul", 1, "int8[N,1]", "float[]", "", "int8[1,M]", "float[]", "", "float[]",
                   "", NULL),
            "int8[N,M]");
  CHECK(is_error(op_run(t, MS, "QLinearAdd", 1, "uint8[3]", "float[]", "uint8[]", "uint8[4]", "float[]",
                        "uint8[]", "float[]", "uint8[]", NULL),
                 "SHAPE_MISMATCH"));
  CHECK_STR(op_run(t, MS, "MulInteger", 1, "uint8[N,C]", "uint8[]", "uint8[C]", "uint8[]", NULL),
            "int32[N,C]");
  CHECK_STR(op_run(t, MS, "QLinearWhere", 1, "bool[N,1]", "uint8[1,M]", "float[]", "uint8[]", "uint8[N,M]",
                   "float[]", "uint8[]", "float[]", "uint8[]", NULL),
            "uint8[N,M]");
  op_attr_float(t, "alpha", 0.1);
  CHECK_STR(
      op_run(t, MS, "QLinearLeakyRelu", 1, "int8[B,S,D]", "float[]", "int8[]", "float[]", "int8[]", NULL),
      "int8[B,S,D]");
  CHECK_STR(op_run(t, MS, "QLinearSigmoid", 1, "uint8[B,S]", "float[]", "", "float[]", "", NULL),
            "uint8[B,S]");
  op_attr_int(t, "opset", 13);
  op_attr_int(t, "axis", -1);
  CHECK_STR(
      op_run(t, MS, "QLinearSoftmax", 1, "uint8[B,H,S,T]", "float[]", "uint8[]", "float[]", "uint8[]", NULL),
      "uint8[B,H,S,T]");

  op_attr_int(t, "axis", 1);
  CHECK_STR(op_run(t, MS, "QLinearConcat", 1, "float[]", "uint8[]", "uint8[N,C1,H]", "float[]", "uint8[]",
                   "uint8[N,C2,H]", "float[]", "uint8[]", NULL),
            "uint8[N,C1+C2,H]");
  op_attr_int(t, "axis", -1);
  CHECK_STR(op_run(t, MS, "QLinearConcat", 1, "float[]", "int8[]", "int8[?,4]", "float[]", "int8[]",
                   "int8[N,8]", "float[]", "int8[]", NULL),
            "int8[N,12]");
  op_attr_int(t, "axis", 0);
  CHECK_STR(op_run(t, MS, "QLinearConcat", 1, "float[]", "int8[]", "int8[*]", "float[]", "int8[]",
                   "int8[N,8]", "float[]", "int8[]", NULL),
            "int8[?,8]");
  op_attr_int(t, "axis", 0);
  CHECK(is_error(op_run(t, MS, "QLinearConcat", 1, "float[]", "int8[]", "int8[2,4]", "float[]", "int8[]",
                        "int8[N,8]", "float[]", "int8[]", NULL),
                 "SHAPE_MISMATCH"));
  CHECK(
      is_error(op_run(t, MS, "QLinearConcat", 1, "float[]", "int8[]", "int8[2,4]", "float[]", "int8[]", NULL),
               "INVALID_MODEL"));

  op_attr_ints(t, "axes", 1, (int64_t[]){-1});
  op_attr_int(t, "keepdims", 0);
  CHECK_STR(op_run(t, MS, "ReduceSumInteger", 1, "int8[B,S,D]", NULL), "int32[B,S]");
  op_attr_ints(t, "axes", 2, (int64_t[]){1, 2});
  CHECK_STR(op_run(t, MS, "ReduceSumInteger", 1, "uint8[B,S,D]", NULL), "uint32[B,1,1]");
  CHECK_STR(op_run(t, MS, "ReduceSumInteger", 1, "uint8[B,S,D]", NULL), "uint32[1,1,1]");
  op_attr_ints(t, "axes", 1, (int64_t[]){1});
  CHECK_STR(
      op_run(t, MS, "QLinearReduceMean", 1, "uint8[B,S,D]", "float[]", "uint8[]", "float[]", "uint8[]", NULL),
      "uint8[B,1,D]");
  op_attr_ints(t, "axes", 1, (int64_t[]){3});
  CHECK(is_error(
      op_run(t, MS, "QLinearReduceMean", 1, "uint8[B,S,D]", "float[]", "uint8[]", "float[]", "uint8[]", NULL),
      "INVALID_MODEL"));
}

static void test_quantize(OpTest *t) {
  CHECK_STR(op_run(t, MS, "QuantizeLinear", 1, "float[N,C]", "float[]", "int8[]", NULL), "int8[N,C]");
  op_attr_int(t, "axis", 1);
  CHECK_STR(op_run(t, MS, "QuantizeLinear", 1, "float16[N,C]", "float16[C]", "uint16[C]", NULL),
            "uint16[N,C]");
  CHECK_STR(op_run(t, MS, "QuantizeLinear", 1, "float[N,C]", "float[]", NULL), "uint8[N,C]");
  CHECK_STR(op_run(t, MS, "DequantizeLinear", 1, "int4[N,C]", "float16[]", "int4[]", NULL), "float16[N,C]");
  CHECK_STR(op_run(t, MS, "DequantizeLinear", 1, "int32[*]", "float[]", NULL), "float[*]");

  op_set_outputs(t, 3);
  op_attr_int(t, "bfp_type", 1);
  CHECK_STR(op_run(t, MS, "QuantizeBFP", 1, "float[B,S,D]", NULL), "uint8[?]");
  CHECK_STR(op_out(t, 1), "int64[3]{B,S,D}");
  CHECK_STR(op_out(t, 2), "int64[3]");
  op_attr_int(t, "bfp_type", 1);
  op_attr_int(t, "dtype", 16);
  CHECK_STR(op_run(t, MS, "DequantizeBFP", 1, "uint8[X]", "int64[3]{B,S,D}", "int64[3]", NULL),
            "bfloat16[B,S,D]");
  op_attr_int(t, "bfp_type", 1);
  CHECK_STR(op_run(t, MS, "DequantizeBFP", 1, "uint8[X]", "int64[2]", "int64[2]", NULL), "float[?,?]");

  /* Gather rows of a block-quantized table: int4 keeps its logical dims. */
  op_attr_int(t, "block_size", 32);
  CHECK_STR(op_run(t, MS, "GatherBlockQuantized", 1, "int4[V,D]", "int64[B,S]", "float16[V,D//32]", NULL),
            "float16[B,S,D]");
  op_attr_int(t, "gather_axis", 1);
  op_attr_int(t, "quantize_axis", 0);
  CHECK_STR(op_run(t, MS, "GatherBlockQuantized", 1, "uint4[E,V]", "int32[S]", "float[E//16,V]", NULL),
            "float[E,S]");
  /* uint8 packs two 4-bit values per byte along the last axis. */
  CHECK_STR(op_run(t, MS, "GatherBlockQuantized", 1, "uint8[V,P]", "int64[B,S]", "float[V,Q]", NULL),
            "float[B,S,2*P]");
  op_attr_int(t, "bits", 2);
  CHECK_STR(op_run(t, MS, "GatherBlockQuantized", 1, "uint8[V,P]", "int64[]", "float[V,Q]", NULL),
            "float[4*P]");
  op_attr_int(t, "bits", 8);
  CHECK_STR(op_run(t, MS, "GatherBlockQuantized", 1, "uint8[V,D]", "int64[S]", "float[V,Q]", NULL),
            "float[S,D]");
  op_attr_int(t, "gather_axis", 1);
  CHECK(is_error(op_run(t, MS, "GatherBlockQuantized", 1, "uint8[V,P]", "int64[S]", "float[V,Q]", NULL),
                 "INVALID_MODEL"));
  op_attr_int(t, "bits", 3);
  CHECK(is_error(op_run(t, MS, "GatherBlockQuantized", 1, "uint8[V,P]", "int64[S]", "float[V,Q]", NULL),
                 "INVALID_MODEL"));
  CHECK_STR(op_run(t, MS, "GatherBlockQuantized", 1, "float8e4m3fn[V,D]", "int64[S]", "float[1,1]", NULL),
            "float[S,D]");
  CHECK_STR(op_run(t, MS, "GatherBlockQuantized", 1, "?[V,D]", "int64[S]", "float[V,Q]", NULL), "float[S,?]");
  CHECK_STR(op_run(t, MS, "GatherBlockQuantized", 1, "int4[*]", "int64[S]", "float[V,Q]", NULL), "float[*]");
}

static void test_lstm(OpTest *t) {
  op_set_outputs(t, 3);
  op_attr_int(t, "hidden_size", 128);
  CHECK_STR(op_run(t, MS, "DynamicQuantizeLSTM", 1, "float[S,B,I]", "int8[1,I,512]", "int8[1,128,512]", "",
                   "", "", "", "", "float[1]", "int8[1]", "float[1]", "int8[1]", NULL),
            "float[S,1,B,128]");
  CHECK_STR(op_out(t, 1), "float[1,B,128]");
  CHECK_STR(op_out(t, 2), "float[1,B,128]");
  /* hidden_size read off R [dirs, hidden, 4*hidden]. */
  op_set_outputs(t, 2);
  op_attr_str(t, "direction", "bidirectional");
  CHECK_STR(op_run(t, MS, "DynamicQuantizeLSTM", 1, "float[S,B,I]", "uint8[2,I,4*H]", "uint8[2,H,4*H]", NULL),
            "float[S,2,B,H]");
  CHECK_STR(op_out(t, 1), "float[2,B,H]");
  op_attr_str(t, "direction", "sideways");
  CHECK(is_error(
      op_run(t, MS, "DynamicQuantizeLSTM", 1, "float[S,B,I]", "uint8[1,I,4*H]", "uint8[1,H,4*H]", NULL),
      "INVALID_MODEL"));
}

static void test_fused_projections(OpTest *t) {
  op_set_outputs(t, 2);
  op_attr_int(t, "K", 896);
  op_attr_int(t, "N", 4864);
  op_attr_int(t, "block_size", 32);
  op_attr_str(t, "activation", "silu");
  CHECK_STR(
      op_run(t, MS, "MatMulNBitsMlp", 1, "float16[B,S,896]", "float16[B,S,896]", "float16[896]",
             "uint8[4864,28,16]", "float16[4864,28]", "", "uint8[4864,28,16]", "float16[4864,28]", NULL),
      "float16[B,S,4864]");
  CHECK_STR(op_out(t, 1), "float16[B,S,896]");
  op_set_outputs(t, 4);
  op_attr_int(t, "K", 896);
  op_attr_int(t, "Nq", 896);
  op_attr_int(t, "Nkv", 128);
  op_attr_int(t, "block_size", 32);
  CHECK_STR(
      op_run(t, MS, "MatMulNBitsQkv", 1, "float[B,S,K]", "", "float[K]", "uint8[896,28,16]", "float[896,28]",
             "", "uint8[128,28,16]", "float[128,28]", "", "uint8[128,28,16]", "float[128,28]", NULL),
      "float[B,S,896]");
  CHECK_STR(op_out(t, 1), "float[B,S,128]");
  CHECK_STR(op_out(t, 2), "float[B,S,128]");
  CHECK_STR(op_out(t, 3), "float[B,S,K]");
  op_attr_int(t, "K", 64);
  CHECK(is_error(op_run(t, MS, "MatMulNBitsMlp", 1, "float[B,S,32]", NULL), "SHAPE_MISMATCH"));

  CHECK_STR(op_run(t, MS, "MatMulBlockQuantizedFp8Weight", 1, "bfloat16[B,S,K]", "float8e4m3fn[N,K]",
                   "float[N,K//128]", NULL),
            "bfloat16[B,S,N]");
  CHECK_STR(op_run(t, MS, "MatMulBlockQuantizedFp4Weight", 1, "float16[T,K]", "uint8[N,K//2]",
                   "uint8[N,K//16]", "float[]", NULL),
            "float16[T,N]");
  CHECK(is_error(
      op_run(t, MS, "MatMulBlockQuantizedFp8Weight", 1, "float16[T,K]", "float8e4m3fn[K]", "float[1]", NULL),
      "SHAPE_MISMATCH"));

  CHECK_STR(
      op_run(t, MS, "QOrderedMatMul", 1, "int8[B,M,K]", "float[]", "int8[K,N]", "float[]", "float[]", NULL),
      "int8[B,M,N]");
  CHECK_STR(op_run(t, MS, "QuantizeWithOrder", 1, "float16[B,M,K]", "float[]", NULL), "int8[B,M,K]");
  CHECK_STR(op_run(t, MS, "DequantizeWithOrder", 1, "int8[B,M,K]", "float16[]", NULL), "float16[B,M,K]");
}

int main(void) {
  OpTest *t = op_test_new();
  test_fused_matmul(t);
  test_matmul(t);
  test_gemm(t);
  test_conv(t);
  test_qlinear_elementwise(t);
  test_quantize(t);
  test_lstm(t);
  test_fused_projections(t);
  op_test_free(t);
  TEST_MAIN_END();
}
