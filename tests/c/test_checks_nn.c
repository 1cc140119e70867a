/*
 * Shape checks of the neural-network rules (Gemm, Conv, ConvTranspose,
 * pools, MaxUnpool, DeformConv): a mismatch between known dims fails the
 * node, a symbolic one becomes a requirement, valid edge cases (dims 0,
 * broadcast biases) pass. Expected values are worked out by hand from the
 * ONNX spec and onnxruntime's kernel checks.
 */
#include <string.h>

#include "op_harness.h"
#include "test.h"

#define MISMATCH(got) CHECK(!strncmp((got), "error:SHAPE_MISMATCH", 20))
#define INVALID(got) CHECK(!strncmp((got), "error:INVALID_MODEL", 19))

static void test_gemm(OpTest *t) {
  CHECK_STR(op_run(t, "", "Gemm", 13, "float[2,3]", "float[3,5]", NULL), "float[2,5]");
  /* The example: [2,3] x [4,5]. */
  CHECK_STR(op_run(t, "", "Gemm", 13, "float[2,3]", "float[4,5]", NULL),
            "error:SHAPE_MISMATCH: Gemm inner dims: dim 0 of input 'in1' is 4 where dim 1 of input 'in0' is 3");
  op_attr_int(t, "transA", 1);
  op_attr_int(t, "transB", 1);
  CHECK_STR(op_run(t, "", "Gemm", 13, "float[3,2]", "float[5,3]", NULL), "float[2,5]");
  op_attr_int(t, "transB", 1);
  MISMATCH(op_run(t, "", "Gemm", 13, "float[2,3]", "float[5,2]", NULL));
  /* Symbolic K: a requirement. */
  CHECK_STR(op_run(t, "", "Gemm", 13, "float[M,K]", "float[3,N]", NULL), "float[M,N]");
  CHECK_STR(op_requirements(t), "K == 3");
  /* C broadcasts one way to [M, N]: scalar, [N], [1, N], [M, 1], [M, N]. */
  CHECK_STR(op_run(t, "", "Gemm", 13, "float[2,3]", "float[3,5]", "float[]", NULL), "float[2,5]");
  CHECK_STR(op_run(t, "", "Gemm", 13, "float[2,3]", "float[3,5]", "float[5]", NULL), "float[2,5]");
  CHECK_STR(op_run(t, "", "Gemm", 13, "float[2,3]", "float[3,5]", "float[2,1]", NULL), "float[2,5]");
  MISMATCH(op_run(t, "", "Gemm", 13, "float[2,3]", "float[3,5]", "float[4]", NULL));
  MISMATCH(op_run(t, "", "Gemm", 13, "float[2,3]", "float[3,5]", "float[5,2]", NULL));
  MISMATCH(op_run(t, "", "Gemm", 13, "float[2,3]", "float[3,5]", "float[1,2,5]", NULL));
  /* A constant bias dim other than 1 fixes a symbolic N. */
  CHECK_STR(op_run(t, "", "Gemm", 13, "float[2,3]", "float[3,N]", "float[7]", NULL), "float[2,N]");
  CHECK_STR(op_requirements(t), "N == 7");
  /* Dims 0 are sizes like the others. */
  CHECK_STR(op_run(t, "", "Gemm", 13, "float[0,3]", "float[3,0]", "float[0]", NULL), "float[0,0]");
  /* Opset 6 without broadcast: C is [M, N]. */
  MISMATCH(op_run(t, "", "Gemm", 6, "float[2,3]", "float[3,5]", "float[5]", NULL));
  op_attr_int(t, "broadcast", 1);
  CHECK_STR(op_run(t, "", "Gemm", 6, "float[2,3]", "float[3,5]", "float[5]", NULL), "float[2,5]");
}

static void test_conv_channels(OpTest *t) {
  CHECK_STR(op_run(t, "", "Conv", 11, "float[1,3,8,8]", "float[4,3,3,3]", NULL), "float[1,4,6,6]");
  /* The example: 3 input channels, a kernel made for 5. */
  CHECK_STR(op_run(t, "", "Conv", 11, "float[1,3,8,8]", "float[4,5,3,3]", NULL),
            "error:SHAPE_MISMATCH: Conv channels: dim 1 of input 'in0' is 3 where dim 1 of input 'in1' times group 1 is 5");
  op_attr_int(t, "group", 3);
  CHECK_STR(op_run(t, "", "Conv", 11, "float[1,6,8,8]", "float[3,2,3,3]", NULL), "float[1,3,6,6]");
  op_attr_int(t, "group", 2);
  MISMATCH(op_run(t, "", "Conv", 11, "float[1,6,8,8]", "float[3,3,3,3]", NULL)); /* 3 outputs, group 2 */
  op_attr_int(t, "group", 0);
  INVALID(op_run(t, "", "Conv", 11, "float[1,6,8,8]", "float[3,6,3,3]", NULL));
  /* Symbolic channels: C == 3 recorded. */
  CHECK_STR(op_run(t, "", "Conv", 11, "float[N,C,H,W]", "float[8,3,3,3]", NULL), "float[N,8,H-2,W-2]");
  CHECK_STR(op_requirements(t), "C == 3; 3 <= H; 3 <= W");
  op_attr_int(t, "group", 2);
  CHECK_STR(op_run(t, "", "Conv", 11, "float[N,C,H]", "float[8,K,1]", NULL), "float[N,8,H]");
  CHECK_STR(op_requirements(t), "C == 2*K; 1 <= H"); /* onnxruntime refuses an empty Conv output */
  /* Ranks, kernel_shape, bias. */
  MISMATCH(op_run(t, "", "Conv", 11, "float[1,3,8,8]", "float[4,3,3]", NULL));
  op_attr_ints(t, "kernel_shape", 2, (int64_t[]){3, 2});
  MISMATCH(op_run(t, "", "Conv", 11, "float[1,3,8,8]", "float[4,3,3,3]", NULL));
  MISMATCH(op_run(t, "", "Conv", 11, "float[1,3,8,8]", "float[4,3,3,3]", "float[3]", NULL));
  MISMATCH(op_run(t, "", "Conv", 11, "float[1,3,8,8]", "float[4,3,3,3]", "float[1,4]", NULL));
  CHECK_STR(op_run(t, "", "Conv", 11, "float[1,3,8,8]", "float[4,3,3,3]", "float[4]", NULL), "float[1,4,6,6]");
  /* A batch of 0 is fine; ConvInteger has no bias input. */
  CHECK_STR(op_run(t, "", "Conv", 11, "float[0,3,8,8]", "float[4,3,3,3]", NULL), "float[0,4,6,6]");
  CHECK_STR(op_run(t, "", "ConvInteger", 10, "uint8[1,3,8]", "uint8[4,3,3]", "uint8[]", "uint8[4]", NULL), "int32[1,4,6]");
}

/* The window must fit: Conv refuses an empty output, pools a negative one. */
static void test_windows(OpTest *t) {
  /* The example: kernel 5 over width 2 gave [1,1,-2]. */
  CHECK_STR(op_run(t, "", "Conv", 11, "float[1,1,2]", "float[1,1,5]", NULL),
            "error:SHAPE_MISMATCH: Conv window along spatial dim 0: the dilated kernel less the pads is 5, more than "
            "dim 2 of input 'in0' (2)");
  op_attr_ints(t, "pads", 2, (int64_t[]){2, 1});
  CHECK_STR(op_run(t, "", "Conv", 11, "float[1,1,2]", "float[1,1,5]", NULL), "float[1,1,1]");
  op_attr_ints(t, "dilations", 1, (int64_t[]){3});
  MISMATCH(op_run(t, "", "Conv", 11, "float[1,1,6]", "float[1,1,3]", NULL)); /* extent 7 */
  op_attr_str(t, "auto_pad", "SAME_UPPER");
  CHECK_STR(op_run(t, "", "Conv", 11, "float[1,1,2]", "float[1,1,5]", NULL), "float[1,1,2]");
  /* MaxPool: kernel 3 over 1 with stride 2 gives 0 windows (allowed); over 0, -1 (not). */
  op_attr_ints(t, "kernel_shape", 1, (int64_t[]){3});
  op_attr_ints(t, "strides", 1, (int64_t[]){2});
  CHECK_STR(op_run(t, "", "MaxPool", 12, "float[1,1,1]", NULL), "float[1,1,0]");
  op_attr_ints(t, "kernel_shape", 1, (int64_t[]){4});
  MISMATCH(op_run(t, "", "MaxPool", 12, "float[1,1,0]", NULL));
  /* The MaxPool kernel_shape=[0], and other impossible attributes. */
  op_attr_ints(t, "kernel_shape", 1, (int64_t[]){0});
  INVALID(op_run(t, "", "MaxPool", 12, "float[1,1,10]", NULL));
  op_attr_ints(t, "kernel_shape", 1, (int64_t[]){2});
  op_attr_ints(t, "pads", 2, (int64_t[]){-1, 0});
  INVALID(op_run(t, "", "AveragePool", 11, "float[1,1,10]", NULL));
  op_attr_ints(t, "kernel_shape", 1, (int64_t[]){2});
  op_attr_ints(t, "strides", 1, (int64_t[]){0});
  INVALID(op_run(t, "", "LpPool", 11, "float[1,1,10]", NULL));
  /* Symbolic: the window's requirement on the input. */
  op_attr_ints(t, "kernel_shape", 2, (int64_t[]){3, 3});
  CHECK_STR(op_run(t, "", "MaxPool", 12, "float[N,C,H,W]", NULL), "float[N,C,H-2,W-2]");
  CHECK_STR(op_requirements(t), "2 <= H; 2 <= W");
}

/* Size arithmetic never wraps (the examples gave plausible sizes). */
static void test_no_wrapped_sizes(OpTest *t) {
  op_attr_ints(t, "pads", 2, (int64_t[]){INT64_MAX, INT64_MAX});
  INVALID(op_run(t, "", "Conv", 11, "float[1,1,10]", "float[1,1,3]", NULL));
  op_attr_ints(t, "dilations", 1, (int64_t[]){(int64_t)1 << 62});
  INVALID(op_run(t, "", "Conv", 11, "float[1,1,10]", "float[1,1,3]", NULL));
  op_attr_ints(t, "dilations", 1, (int64_t[]){(int64_t)1 << 62});
  INVALID(op_run(t, "", "Conv", 11, "float[1,1,H]", "float[1,1,3]", NULL));
  op_attr_ints(t, "kernel_shape", 1, (int64_t[]){3});
  op_attr_ints(t, "dilations", 1, (int64_t[]){(int64_t)1 << 62});
  INVALID(op_run(t, "", "MaxPool", 12, "float[1,1,10]", NULL));
  op_attr_ints(t, "pads", 2, (int64_t[]){-INT64_MAX, -INT64_MAX});
  INVALID(op_run(t, "", "ConvTranspose", 11, "float[1,1,3]", "float[1,1,3]", NULL));
  /* Large but representable pads: the size is exact or unknown. */
  op_attr_ints(t, "pads", 2, (int64_t[]){(int64_t)1 << 61, (int64_t)1 << 61});
  CHECK_STR(op_run(t, "", "Conv", 11, "float[1,1,10]", "float[1,1,3]", NULL), "float[1,1,4611686018427387912]");
  op_attr_ints(t, "pads", 2, (int64_t[]){(int64_t)1 << 62, ((int64_t)1 << 62) - 1});
  CHECK_STR(op_run(t, "", "Conv", 11, "float[1,1,10]", "float[1,1,3]", NULL), "float[1,1,?]");
}

static void test_conv_transpose(OpTest *t) {
  CHECK_STR(op_run(t, "", "ConvTranspose", 11, "float[1,2,3]", "float[2,4,3]", NULL), "float[1,4,5]");
  /* W[0] is X's channel count. */
  MISMATCH(op_run(t, "", "ConvTranspose", 11, "float[1,3,3]", "float[2,4,3]", NULL));
  op_attr_int(t, "group", 2);
  MISMATCH(op_run(t, "", "ConvTranspose", 11, "float[1,3,3]", "float[3,4,3]", NULL)); /* 3 % 2 */
  op_attr_int(t, "group", 2);
  CHECK_STR(op_run(t, "", "ConvTranspose", 11, "float[1,4,3]", "float[4,1,3]", "float[2]", NULL), "float[1,2,5]");
  MISMATCH(op_run(t, "", "ConvTranspose", 11, "float[1,4,3]", "float[4,1,3]", "float[4]", NULL));
  CHECK_STR(op_run(t, "", "ConvTranspose", 11, "float[1,C,3]", "float[2,4,3]", NULL), "float[1,4,5]");
  CHECK_STR(op_requirements(t), "C == 2");
  /* output_shape entries are sizes (the issue: output_shape=[-5]). */
  op_attr_ints(t, "output_shape", 1, (int64_t[]){-5});
  INVALID(op_run(t, "", "ConvTranspose", 11, "float[1,2,3]", "float[2,4,3]", NULL));
  op_attr_ints(t, "output_shape", 1, (int64_t[]){5});
  CHECK_STR(op_run(t, "", "ConvTranspose", 11, "float[1,2,3]", "float[2,4,3]", NULL), "float[1,4,5]");
  /* onnxruntime refuses an input shorter than (output_shape - extent) / stride + 1: 7 needs 5. */
  op_attr_ints(t, "output_shape", 1, (int64_t[]){7});
  MISMATCH(op_run(t, "", "ConvTranspose", 11, "float[1,2,3]", "float[2,4,3]", NULL));
  op_attr_ints(t, "output_shape", 1, (int64_t[]){7});
  CHECK_STR(op_run(t, "", "ConvTranspose", 11, "float[1,2,H]", "float[2,4,3]", NULL), "float[1,4,7]");
  CHECK_STR(op_requirements(t), "5 <= H");
  /* With output_shape a spatial dim of 0 is refused; without, it runs. */
  op_attr_ints(t, "output_shape", 1, (int64_t[]){2});
  MISMATCH(op_run(t, "", "ConvTranspose", 11, "float[1,2,0]", "float[2,4,3]", NULL));
  CHECK_STR(op_run(t, "", "ConvTranspose", 11, "float[1,2,0]", "float[2,4,3]", NULL), "float[1,4,2]");
  /* Pads larger than what the input and kernel give. */
  op_attr_ints(t, "pads", 2, (int64_t[]){3, 3});
  MISMATCH(op_run(t, "", "ConvTranspose", 11, "float[1,2,3]", "float[2,4,3]", NULL));
  /* MaxUnpool's output: (in - 1) * stride - pads + kernel. */
  op_attr_ints(t, "kernel_shape", 1, (int64_t[]){2});
  op_attr_ints(t, "strides", 1, (int64_t[]){2});
  CHECK_STR(op_run(t, "", "MaxUnpool", 11, "float[1,1,3]", "int64[1,1,3]", NULL), "float[1,1,6]");
  op_attr_ints(t, "kernel_shape", 1, (int64_t[]){2});
  op_attr_ints(t, "strides", 1, (int64_t[]){(int64_t)1 << 62});
  CHECK_STR(op_run(t, "", "MaxUnpool", 11, "float[1,1,3]", "int64[1,1,3]", NULL), "float[1,1,?]");
}

static void test_recurrent(OpTest *t) {
  /* LSTM: X [seq, batch, input], W [dirs, 4*hidden, input], R [dirs, 4*hidden, hidden]. */
  op_set_outputs(t, 3);
  op_attr_int(t, "hidden_size", 3);
  CHECK_STR(op_run(t, "", "LSTM", 14, "float[S,2,5]", "float[1,12,5]", "float[1,12,3]", "float[1,24]", "int32[2]",
                   "float[1,2,3]", "float[1,2,3]", "float[1,9]", NULL), "float[S,1,2,3]");
  op_attr_int(t, "hidden_size", 3);
  MISMATCH(op_run(t, "", "LSTM", 14, "float[S,2,4]", "float[1,12,5]", "float[1,12,3]", NULL)); /* input size */
  op_attr_int(t, "hidden_size", 3);
  MISMATCH(op_run(t, "", "LSTM", 14, "float[S,2,5]", "float[1,13,5]", "float[1,12,3]", NULL));
  op_attr_int(t, "hidden_size", 3);
  MISMATCH(op_run(t, "", "LSTM", 14, "float[S,2,5]", "float[1,12,5]", "float[1,12,3]", "float[1,12]", NULL)); /* B */
  op_attr_int(t, "hidden_size", 3);
  MISMATCH(op_run(t, "", "LSTM", 14, "float[S,2,5]", "float[1,12,5]", "float[1,12,3]", "", "int32[3]", NULL));
  op_attr_int(t, "hidden_size", 3);
  MISMATCH(op_run(t, "", "LSTM", 14, "float[S,2,5]", "float[1,12,5]", "float[1,12,3]", "", "", "float[1,3,3]", NULL));
  op_attr_int(t, "hidden_size", 3);
  MISMATCH(op_run(t, "", "LSTM", 14, "float[S,2,5]", "float[1,12,5]", "float[1,12,3]", "", "", "", "", "float[1,12]", NULL));
  /* layout 1: X [batch, seq, input], initial_h [batch, dirs, hidden]. */
  op_attr_int(t, "hidden_size", 3);
  op_attr_int(t, "layout", 1);
  CHECK_STR(op_run(t, "", "GRU", 14, "float[2,S,5]", "float[1,9,5]", "float[1,9,3]", "", "", "float[2,1,3]", NULL),
            "float[2,S,1,3]");
  /* Without hidden_size it comes from R; a symbolic input size is a requirement. */
  CHECK_STR(op_run(t, "", "RNN", 14, "float[S,B,I]", "float[1,4,5]", "float[1,4,4]", NULL), "float[S,1,B,4]");
  CHECK_STR(op_requirements(t), "I == 5");
  op_set_outputs(t, 1);
}

static void test_quantized(OpTest *t) {
  /* Per tensor (scalar or [1]), per axis ([x[axis]]), blocked; the zero point has the scale's shape. */
  CHECK_STR(op_run(t, "", "QuantizeLinear", 13, "float[2,3]", "float[]", "uint8[1]", NULL), "uint8[2,3]");
  CHECK_STR(op_run(t, "", "QuantizeLinear", 13, "float[2,3]", "float[3]", "uint8[3]", NULL), "uint8[2,3]");
  MISMATCH(op_run(t, "", "QuantizeLinear", 13, "float[2,4]", "float[3]", "uint8[3]", NULL));
  MISMATCH(op_run(t, "", "DequantizeLinear", 13, "uint8[2,3]", "float[3]", "uint8[4]", NULL));
  MISMATCH(op_run(t, "", "DequantizeLinear", 10, "uint8[2,3]", "float[3]", NULL)); /* opset 10: per tensor only */
  op_attr_int(t, "block_size", 2);
  op_attr_int(t, "axis", 1);
  CHECK_STR(op_run(t, "", "DequantizeLinear", 21, "int8[3,5]", "float[3,3]", NULL), "float[3,5]");
  op_attr_int(t, "block_size", 2);
  op_attr_int(t, "axis", 1);
  MISMATCH(op_run(t, "", "DequantizeLinear", 21, "int8[3,5]", "float[3,2]", NULL));
  /* A symbolic length may be 1: nothing to require. */
  CHECK_STR(op_run(t, "", "DequantizeLinear", 13, "uint8[2,3]", "float[S]", NULL), "float[2,3]");
  CHECK_STR(op_requirements(t), "");
  /* QLinearMatMul: each scale has its zero point's shape. */
  MISMATCH(op_run(t, "", "QLinearMatMul", 10, "uint8[2,3]", "float[2]", "uint8[]", "uint8[3,4]", "float[]", "uint8[]",
                  "float[]", "uint8[]", NULL));
  CHECK_STR(op_run(t, "", "QLinearMatMul", 10, "uint8[2,3]", "float[]", "uint8[1]", "uint8[3,4]", "float[]", "uint8[]",
                   "float[]", "uint8[]", NULL), "uint8[2,4]");
  /* MatMulInteger: onnxruntime takes a_zero_point per tensor only (the spec's per-row [M] and a [1, 1]
   * are refused); b_zero_point per tensor, per column [N] or [1, N]. */
  MISMATCH(op_run(t, "", "MatMulInteger", 10, "uint8[4,3]", "uint8[3,2]", "uint8[4]", NULL));
  MISMATCH(op_run(t, "", "MatMulInteger", 10, "uint8[4,3]", "uint8[3,2]", "uint8[1,1]", NULL));
  MISMATCH(op_run(t, "", "MatMulInteger", 10, "uint8[4,3]", "uint8[3,2]", "uint8[2]", NULL));
  CHECK_STR(op_run(t, "", "MatMulInteger", 10, "uint8[4,3]", "uint8[3,2]", "uint8[1]", "uint8[2]", NULL), "int32[4,2]");
  CHECK_STR(op_run(t, "", "MatMulInteger", 10, "uint8[4,3]", "uint8[3,2]", "uint8[]", "uint8[1,2]", NULL), "int32[4,2]");
  MISMATCH(op_run(t, "", "MatMulInteger", 10, "uint8[4,3]", "uint8[3,2]", "uint8[]", "uint8[3]", NULL));
  /* QLinearConv: w_scale per output channel. */
  MISMATCH(op_run(t, "", "QLinearConv", 10, "uint8[1,1,5]", "float[]", "uint8[]", "uint8[2,1,3]", "float[3]", "uint8[3]",
                  "float[]", "uint8[]", NULL));
}

static void test_image_ops(OpTest *t) {
  CHECK_STR(op_run(t, "", "GridSample", 16, "float[1,3,4,4]", "float[1,2,2,2]", NULL), "float[1,3,2,2]");
  MISMATCH(op_run(t, "", "GridSample", 16, "float[2,3,4,4]", "float[1,2,2,2]", NULL));
  MISMATCH(op_run(t, "", "AffineGrid", 20, "float[2,2,4]", "int64[4]{2,1,5,5}", NULL));
  MISMATCH(op_run(t, "", "AffineGrid", 20, "float[3,2,3]", "int64[4]{2,1,5,5}", NULL));
  CHECK_STR(op_run(t, "", "AffineGrid", 20, "float[2,2,3]", "int64[4]{2,1,5,5}", NULL), "float[2,5,5,2]");
  /* Col2Im: dim 2 is the number of blocks (here 4 x 4 blocks of 2 x 2 over 5 x 5). */
  CHECK_STR(op_run(t, "", "Col2Im", 18, "float[1,4,16]", "int64[2]{5,5}", "int64[2]{2,2}", NULL), "float[1,1,5,5]");
  MISMATCH(op_run(t, "", "Col2Im", 18, "float[1,4,15]", "int64[2]{5,5}", "int64[2]{2,2}", NULL));
  MISMATCH(op_run(t, "", "Col2Im", 18, "float[1,5,16]", "int64[2]{5,5}", "int64[2]{2,2}", NULL));
  op_set_outputs(t, 1);
  CHECK_STR(op_run(t, "", "MaxUnpool", 11, "float[1,1,2,2]", "int64[1,1,2,2]", "int64[4]{1,1,4,4}", NULL), "float[1,1,4,4]");
  MISMATCH(op_run(t, "", "MaxUnpool", 11, "float[1,1,2,2]", "int64[1,1,2,3]", "int64[4]{1,1,4,4}", NULL));
  MISMATCH(op_run(t, "", "NonMaxSuppression", 11, "float[1,6,4]", "float[2,1,6]", NULL));
  MISMATCH(op_run(t, "", "NonMaxSuppression", 11, "float[1,6,4]", "float[1,1,7]", NULL));
  /* DeformConv: offset [N, 2*kH*kW, oH, oW], mask [N, kH*kW, oH, oW]. */
  const char *x = "float[1,1,3,3]", *w = "float[1,1,2,2]";
  CHECK_STR(op_run(t, "", "DeformConv", 19, x, w, "float[1,8,2,2]", "float[1]", "float[1,4,2,2]", NULL), "float[1,1,2,2]");
  MISMATCH(op_run(t, "", "DeformConv", 19, x, w, "float[2,8,2,2]", NULL));
  MISMATCH(op_run(t, "", "DeformConv", 19, x, w, "float[1,6,2,2]", NULL));
  MISMATCH(op_run(t, "", "DeformConv", 19, x, w, "float[1,8,3,2]", NULL));
  MISMATCH(op_run(t, "", "DeformConv", 19, x, w, "float[1,8,2,2]", "float[2]", NULL));
  MISMATCH(op_run(t, "", "DeformConv", 19, x, w, "float[1,8,2,2]", "", "float[1,3,2,2]", NULL));
  MISMATCH(op_run(t, "", "DeformConv", 19, "float[1,2,3,3]", w, "float[1,8,2,2]", NULL));
  /* PRelu: the slope broadcasts one way to X. */
  CHECK_STR(op_run(t, "", "PRelu", 16, "float[3,4,5]", "float[5]", NULL), "float[3,4,5]");
  CHECK_STR(op_run(t, "", "PRelu", 16, "float[3,4,5]", "float[4,1]", NULL), "float[3,4,5]");
  MISMATCH(op_run(t, "", "PRelu", 16, "float[3,4,5]", "float[6]", NULL));
  /* onnxruntime broadcasts both ways (the spec: slope to X only) and runs these. */
  CHECK_STR(op_run(t, "", "PRelu", 16, "float[3,4,5]", "float[2,3,4,5]", NULL), "float[2,3,4,5]");
  CHECK_STR(op_run(t, "", "PRelu", 16, "float[1,4,5]", "float[3,4,5]", NULL), "float[3,4,5]");
  CHECK_STR(op_run(t, "", "PRelu", 9, "float[3,1]", "float[1,5]", NULL), "float[3,5]");
  MISMATCH(op_run(t, "", "PRelu", 16, "float[3,4,5]", "float[2,4,5]", NULL));
  /* ReverseSequence: sequence_lens is [batch]. */
  CHECK_STR(op_run(t, "", "ReverseSequence", 10, "float[4,3]", "int64[3]", NULL), "float[4,3]");
  MISMATCH(op_run(t, "", "ReverseSequence", 10, "float[4,3]", "int64[4]", NULL));
  /* A one-sided DFT takes a real signal. */
  op_attr_int(t, "onesided", 1);
  MISMATCH(op_run(t, "", "DFT", 17, "float[1,8,2]", NULL));
  /* Squeezing a symbolic dim requires it to be 1. */
  CHECK_STR(op_run(t, "", "Squeeze", 13, "float[N,3,K]", "int64[1]{2}", NULL), "float[N,3]");
  CHECK_STR(op_requirements(t), "K == 1");
  MISMATCH(op_run(t, "", "Squeeze", 13, "float[N,3,K]", "int64[1]{1}", NULL));
}

int main(void) {
  OpTest *t = op_test_new();
  test_gemm(t);
  test_conv_channels(t);
  test_windows(t);
  test_no_wrapped_sizes(t);
  test_conv_transpose(t);
  test_recurrent(t);
  test_quantized(t);
  test_image_ops(t);
  op_test_free(t);
  TEST_MAIN_END();
}
