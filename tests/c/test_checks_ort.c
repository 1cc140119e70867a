/*
 * Shape checks where onnxruntime's kernels, not the spec, decide: models
 * onnxruntime 1.30 runs must pass (each case below was run there, CPU EP,
 * no graph optimization) and the shapes it refuses must fail. The cases
 * come from variant mutants of the backend tests (other mutation sizes,
 * d -> 1, two inputs changed together) that found false alarms and misses.
 */
#include <stdio.h>
#include <string.h>

#include "op_harness.h"
#include "test.h"

#define MISMATCH(got) CHECK(!strncmp((got), "error:SHAPE_MISMATCH", 20))

/* QLinearMatMul(a, a_scale, a_zp, b, b_scale, b_zp, y_scale, y_zp). */
static const char *qlinear_matmul(OpTest *t, const char *a, const char *as, const char *az, const char *b,
                                  const char *bs, const char *bz, const char *ys, const char *yz) {
  return op_run(t, "", "QLinearMatMul", 10, a, as, az, b, bs, bz, ys, yz, NULL);
}

static void test_qlinear_matmul(OpTest *t) {
  const char *a = "uint8[2,3]", *b = "uint8[3,4]", *f0 = "float[]", *u0 = "uint8[]";
  /* b's scale and zero point each per tensor, per column [N] (2-D b) or [1, N]; their shapes
   * need not agree (the backend test's b_scale [1] beside a [3]-long b_zero_point runs). */
  CHECK_STR(qlinear_matmul(t, a, f0, u0, b, "float[4]", u0, f0, u0), "uint8[2,4]");
  CHECK_STR(qlinear_matmul(t, a, f0, u0, b, f0, "uint8[4]", f0, u0), "uint8[2,4]");
  CHECK_STR(qlinear_matmul(t, a, f0, u0, b, "float[1,4]", "uint8[4]", f0, u0), "uint8[2,4]");
  CHECK_STR(qlinear_matmul(t, a, f0, u0, b, "float[1]", "uint8[4]", f0, u0), "uint8[2,4]");
  MISMATCH(qlinear_matmul(t, a, f0, u0, b, "float[3]", u0, f0, u0));
  MISMATCH(qlinear_matmul(t, a, f0, u0, b, "float[4,4]", u0, f0, u0));
  /* A 3-D b takes [4] no more, but [2, 1, 4]. */
  CHECK_STR(qlinear_matmul(t, "uint8[2,2,3]", f0, u0, "uint8[2,3,4]", "float[2,1,4]", "uint8[2,1,4]", f0, u0),
            "uint8[2,2,4]");
  MISMATCH(qlinear_matmul(t, "uint8[2,2,3]", f0, u0, "uint8[2,3,4]", "float[4]", u0, f0, u0));
  MISMATCH(qlinear_matmul(t, "uint8[2,2,3]", f0, u0, "uint8[2,3,4]", "float[1,1,4]", u0, f0, u0));
  /* a's and y's parameters are per tensor: a scalar or [1], not [1, 1] nor per row. */
  CHECK_STR(qlinear_matmul(t, a, "float[1]", "uint8[1]", b, f0, u0, "float[1]", "uint8[1]"), "uint8[2,4]");
  MISMATCH(qlinear_matmul(t, a, "float[1,1]", u0, b, f0, u0, f0, u0));
  MISMATCH(qlinear_matmul(t, a, "float[2]", "uint8[2]", b, f0, u0, f0, u0));
  MISMATCH(qlinear_matmul(t, a, f0, u0, b, f0, u0, "float[4]", "uint8[4]"));
  /* Symbolic lengths: per tensor needs 1; a per-column length may be 1 or N. */
  CHECK_STR(qlinear_matmul(t, a, "float[S]", u0, b, "float[T]", u0, f0, u0), "uint8[2,4]");
  CHECK_STR(op_requirements(t), "S == 1");
}

static void test_qlinear_conv(OpTest *t) {
  const char *x = "uint8[1,2,5,5]", *w = "uint8[3,2,3,3]", *f0 = "float[]", *u0 = "uint8[]";
  CHECK_STR(op_run(t, "", "QLinearConv", 10, x, f0, u0, w, "float[3]", u0, "float[1]", u0, NULL), "uint8[1,3,3,3]");
  CHECK_STR(op_run(t, "", "QLinearConv", 10, x, f0, u0, w, f0, "uint8[3]", f0, u0, NULL), "uint8[1,3,3,3]");
  MISMATCH(op_run(t, "", "QLinearConv", 10, x, f0, u0, w, "float[4]", u0, f0, u0, NULL));
  MISMATCH(op_run(t, "", "QLinearConv", 10, x, f0, u0, w, "float[1,3]", u0, f0, u0, NULL));
  MISMATCH(op_run(t, "", "QLinearConv", 10, x, "float[2]", u0, w, f0, u0, f0, u0, NULL));
  MISMATCH(op_run(t, "", "QLinearConv", 10, x, f0, "uint8[1,1]", w, f0, u0, f0, u0, NULL));
  MISMATCH(op_run(t, "", "QLinearConv", 10, x, f0, u0, w, f0, u0, f0, "uint8[3]", NULL));
}

/* Pools divide toward zero: kernel 5, stride 3 over 1 gives (1 - 5) / 3 + 1 = 0 outputs; stride 2,
 * (1 - 5) / 2 + 1 = -1, refused. */
static void test_pool_rounding(OpTest *t) {
  const char *pools[3] = {"MaxPool", "AveragePool", "LpPool"};
  for (int k = 0; k < 3; k++) {
    op_attr_ints(t, "kernel_shape", 2, (int64_t[]){5, 5});
    op_attr_ints(t, "strides", 2, (int64_t[]){3, 3});
    CHECK_STR(op_run(t, "", pools[k], 11, "float[1,3,1,32]", NULL), "float[1,3,0,10]");
    op_attr_ints(t, "kernel_shape", 2, (int64_t[]){5, 5});
    op_attr_ints(t, "strides", 2, (int64_t[]){2, 2});
    MISMATCH(op_run(t, "", pools[k], 11, "float[1,3,1,32]", NULL));
  }
  /* Kernel 2, stride 2 over 1: (1 - 2) / 2 + 1 = 1 window, not floor's 0. */
  op_attr_ints(t, "kernel_shape", 1, (int64_t[]){2});
  op_attr_ints(t, "strides", 1, (int64_t[]){2});
  CHECK_STR(op_run(t, "", "MaxPool", 12, "float[1,1,1]", NULL), "float[1,1,1]");
  /* A symbolic input: rounded toward zero too, (H - 5) / 3 + 1 windows,
   * 0 at H = 1 and 2, 1 at H = 3..7 (floor would give 0 at 3 and 4), 2 at
   * 8; onnxruntime runs from H = 1 (an empty input only in an empty batch). */
  op_attr_ints(t, "kernel_shape", 1, (int64_t[]){5});
  op_attr_ints(t, "strides", 1, (int64_t[]){3});
  CHECK_STR(op_run(t, "", "MaxPool", 12, "float[1,1,H]", NULL), "float[1,1,Max(Min(H//3,1),(H+1)//3-1)]");
  CHECK_STR(op_requirements(t), "1 <= H");
  CHECK(op_requirements_hold(t, "H", 1) && !op_requirements_hold(t, "H", 0));
  op_attr_ints(t, "kernel_shape", 1, (int64_t[]){5});
  op_attr_ints(t, "strides", 1, (int64_t[]){3});
  CHECK_STR(op_run(t, "", "MaxPool", 12, "float[N,1,H]", NULL), "float[N,1,Max(Min(H//3,1),(H+1)//3-1)]");
  CHECK_STR(op_requirements(t), "Min(N,1) <= H");
  /* Kernel 7, stride 2: (H - 7) / 2 + 1 is -1 up to H = 3. */
  op_attr_ints(t, "kernel_shape", 1, (int64_t[]){7});
  op_attr_ints(t, "strides", 1, (int64_t[]){2});
  op_run(t, "", "MaxPool", 12, "float[1,1,H]", NULL);
  CHECK_STR(op_requirements(t), "4 <= H");
}

static void test_normalizations(OpTest *t) {
  /* GroupNormalization runs as its function body: scale and bias of 1 or C (opset 21) or
   * num_groups (opset 18) elements, in any shape. */
  op_attr_int(t, "num_groups", 2);
  CHECK_STR(op_run(t, "", "GroupNormalization", 21, "float[3,4,2,2]", "float[1]", "float[2,2]", NULL), "float[3,4,2,2]");
  op_attr_int(t, "num_groups", 2);
  CHECK_STR(op_run(t, "", "GroupNormalization", 21, "float[3,4,2,2]", "float[]", "float[4,1]", NULL), "float[3,4,2,2]");
  op_attr_int(t, "num_groups", 2);
  MISMATCH(op_run(t, "", "GroupNormalization", 21, "float[3,4,2,2]", "float[2]", "float[4]", NULL));
  op_attr_int(t, "num_groups", 2);
  CHECK_STR(op_run(t, "", "GroupNormalization", 18, "float[3,4,2,2]", "float[1,2]", "float[1]", NULL), "float[3,4,2,2]");
  op_attr_int(t, "num_groups", 2);
  MISMATCH(op_run(t, "", "GroupNormalization", 18, "float[3,4,2,2]", "float[4]", "float[2]", NULL));
  op_attr_int(t, "num_groups", 2);
  MISMATCH(op_run(t, "", "GroupNormalization", 18, "float[3,4,2,2]", "float[2,2]", "float[2]", NULL));
  op_attr_int(t, "num_groups", 2);
  CHECK_STR(op_run(t, "", "GroupNormalization", 21, "float[N,C,H,W]", "float[4]", "float[S]", NULL), "float[N,C,H,W]");
  CHECK_STR(op_requirements(t), "C == 4");
  /* LayerNormalization reads a bias without elements as none; an empty scale is refused. */
  op_attr_int(t, "axis", 0);
  CHECK_STR(op_run(t, "", "LayerNormalization", 17, "float[3,4]", "float[3,4]", "float[0,4]", NULL), "float[3,4]");
  CHECK_STR(op_run(t, "", "LayerNormalization", 17, "float[3,4]", "float[4]", "float[0]", NULL), "float[3,4]");
  MISMATCH(op_run(t, "", "LayerNormalization", 17, "float[3,4]", "float[0]", "float[4]", NULL));
  MISMATCH(op_run(t, "", "LayerNormalization", 17, "float[3,4]", "float[4]", "float[5]", NULL));
}

static void test_gather_nd_whole_slices(OpTest *t) {
  /* indices.shape[-1] = 0 gathers whole slices (the spec asks for at least 1). */
  CHECK_STR(op_run(t, "", "GatherND", 13, "float[2,3]", "int64[4,0]", NULL), "float[4,2,3]");
  CHECK(!strncmp(op_run(t, "", "GatherND", 13, "float[2,3]", "int64[4,3]", NULL), "error:INVALID_MODEL", 19));
}

/* Other onnxruntime refusals found by the variant mutants (d -> 1, d - 1, 3d, two inputs changed). */
static void test_kernel_refusals(OpTest *t) {
  /* An inverse one-sided DFT takes a complex signal (last dim 2). */
  op_attr_int(t, "onesided", 1);
  op_attr_int(t, "inverse", 1);
  CHECK_STR(op_run(t, "", "DFT", 20, "float[1,5,2]", NULL), "float[1,8,1]");
  op_attr_int(t, "onesided", 1);
  op_attr_int(t, "inverse", 1);
  MISMATCH(op_run(t, "", "DFT", 20, "float[1,5,1]", NULL));
  /* STFT: a real or complex signal [batch, length, 1 | 2], a frame no longer than the signal. */
  CHECK_STR(op_run(t, "", "STFT", 17, "float[1,128,1]", "int64[]{8}", "float[16]", NULL), "float[1,15,9,2]");
  MISMATCH(op_run(t, "", "STFT", 17, "float[1,128,3]", "int64[]{8}", "float[16]", NULL));
  MISMATCH(op_run(t, "", "STFT", 17, "float[1,10,1]", "int64[]{8}", "float[16]", NULL));
  CHECK_STR(op_run(t, "", "STFT", 17, "float[1,L,1]", "int64[]{8}", "float[16]", NULL), "float[1,L//8-1,9,2]");
  CHECK_STR(op_requirements(t), "16 <= L");
  /* TensorScatter: the update is no longer than the cache. */
  MISMATCH(op_run(t, "", "TensorScatter", 24, "float[2,4,3]", "float[2,5,3]", NULL));
  CHECK_STR(op_run(t, "", "TensorScatter", 24, "float[2,4,3]", "float[2,4,3]", NULL), "float[2,4,3]");
  /* Einsum: a diagonal takes equal dims (no 1 for the other), across operands 1 broadcasts. */
  op_attr_str(t, "equation", "ii->i");
  MISMATCH(op_run(t, "", "Einsum", 12, "float[3,1]", NULL));
  op_attr_str(t, "equation", "...ii->...i");
  CHECK_STR(op_run(t, "", "Einsum", 12, "float[2,N,3]", NULL), "float[2,3]");
  CHECK_STR(op_requirements(t), "N == 3");
  op_attr_str(t, "equation", "ij,jk->ik");
  CHECK_STR(op_run(t, "", "Einsum", 12, "float[2,1]", "float[3,4]", NULL), "float[2,4]");
  /* Resize by sizes: onnxruntime derives a scale per axis and refuses 0 for a nonempty axis or a
   * size for an empty one. */
  MISMATCH(op_run(t, "", "Resize", 13, "float[1,1,4]", "", "", "int64[3]{1,1,0}", NULL));
  MISMATCH(op_run(t, "", "Resize", 13, "float[1,1,0]", "", "", "int64[3]{1,1,3}", NULL));
  CHECK_STR(op_run(t, "", "Resize", 13, "float[1,1,0]", "", "", "int64[3]{1,1,0}", NULL), "float[1,1,0]");
  /* TopK's K is a 1-D tensor of one element. */
  op_set_outputs(t, 2);
  MISMATCH(op_run(t, "", "TopK", 11, "float[3,4]", "int64[]{2}", NULL));
  op_set_outputs(t, 2);
  MISMATCH(op_run(t, "", "TopK", 11, "float[3,4]", "int64[2]", NULL));
  op_set_outputs(t, 2);
  CHECK_STR(op_run(t, "", "TopK", 11, "float[3,4]", "int64[1]{2}", NULL), "float[3,2]");
  op_set_outputs(t, 1);
}

/* Parameters fed at run time still have declared lengths: onnxruntime refuses mismatched ones. */
static void test_parameter_lengths(OpTest *t) {
  MISMATCH(op_run(t, "", "Slice", 13, "float[4,5]", "int64[2]", "int64[1]", NULL));
  MISMATCH(op_run(t, "", "Slice", 13, "float[4,5]", "int64[2]", "int64[2]", "int64[1]", NULL));
  MISMATCH(op_run(t, "", "Slice", 13, "float[4,5]", "int64[1]", "int64[1]", "int64[1]", "int64[2]", NULL));
  CHECK_STR(op_run(t, "", "Slice", 13, "float[4,5]", "int64[2]", "int64[2]", "int64[2]", "int64[2]", NULL), "float[?,?]");
  MISMATCH(op_run(t, "", "Pad", 13, "float[4,5]", "int64[3]", NULL));
  CHECK_STR(op_run(t, "", "Pad", 13, "float[4,5]", "int64[4]", NULL), "float[?,?]");
  MISMATCH(op_run(t, "", "Pad", 18, "float[4,5]", "int64[4]", "", "int64[1]", NULL));
  MISMATCH(op_run(t, "", "Tile", 13, "float[4,5]", "int64[3]", NULL));
  MISMATCH(op_run(t, "", "CenterCropPad", 18, "float[4,5]", "int64[3]", NULL));
  CHECK_STR(op_run(t, "", "CenterCropPad", 18, "float[4,5]", "int64[1]", NULL), "float[?,?]"); /* broadcast */
  MISMATCH(op_run(t, "", "Col2Im", 18, "float[1,4,16]", "int64[2]", "int64[3]", NULL));
  op_set_outputs(t, 2);
  MISMATCH(op_run(t, "", "Split", 13, "float[6]", "int64[3]", NULL));
  op_set_outputs(t, 2);
  CHECK_STR(op_run(t, "", "Split", 13, "float[6]", "int64[2]", NULL), "float[?]");
  op_set_outputs(t, 1);
  /* Split by num_outputs: CeilDiv(D, n) each, the last piece at least 1 (onnxruntime). */
  const int64_t pieces[][3] = {{7, 4, 1}, {5, 3, 1}, {6, 4, 0}, {4, 3, 0}, {1, 2, 0}, {2, 2, 1}};
  for (size_t i = 0; i < sizeof pieces / sizeof pieces[0]; i++) {
    char x[32];
    snprintf(x, sizeof x, "float[%lld,2]", (long long)pieces[i][0]);
    op_set_outputs(t, (int)pieces[i][1]);
    op_attr_int(t, "num_outputs", pieces[i][1]);
    const char *got = op_run(t, "", "Split", 18, x, NULL);
    if (pieces[i][2]) CHECK(strncmp(got, "error:", 6) != 0);
    else MISMATCH(got);
  }
  op_set_outputs(t, 1);
}

/* Pad's modes that read the input (run there with pads given as an initializer). */
static void test_pad_modes(OpTest *t) {
  const char *cases[][4] = {
      /* mode, x, pads, expected (NULL: refused) */
      {"reflect", "float[2,1]", "int64[4]{0,1,0,1}", NULL},
      {"reflect", "float[2,2]", "int64[4]{0,1,0,1}", "float[2,4]"},
      {"reflect", "float[2,2]", "int64[4]{0,2,0,0}", NULL},
      {"reflect", "float[2,3]", "int64[4]{0,-1,0,2}", NULL},
      {"reflect", "float[2,3]", "int64[4]{0,-1,0,1}", "float[2,3]"},
      {"reflect", "float[2,3]", "int64[4]{0,1,0,-2}", NULL},
      {"reflect", "float[2,3]", "int64[4]{0,-1,0,-1}", "float[2,1]"},
      {"reflect", "float[2,0]", "int64[4]{0,1,0,1}", NULL},
      {"reflect", "float[0,3]", "int64[4]{0,1,0,1}", "float[0,5]"},
      {"edge", "float[2,0]", "int64[4]{0,1,0,1}", NULL},
      {"edge", "float[2,1]", "int64[4]{0,5,0,5}", "float[2,11]"},
      {"edge", "float[2,2]", "int64[4]{0,-1,0,-1}", NULL},
      {"wrap", "float[0,3]", "int64[4]{0,0,0,0}", NULL},
      {"wrap", "float[2,3]", "int64[4]{0,5,0,5}", "float[2,13]"},
      {"constant", "float[2,2]", "int64[4]{0,-1,0,-1}", "float[2,0]"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    op_attr_str(t, "mode", cases[i][0]);
    const char *got = op_run(t, "", "Pad", 19, cases[i][1], cases[i][2], NULL);
    if (cases[i][3]) CHECK_STR(got, cases[i][3]);
    else MISMATCH(got);
  }
}

/* Max, Min, Sum and Mean before opset 8 take inputs of one shape (no broadcasting). */
static void test_variadic_before_broadcast(OpTest *t) {
  MISMATCH(op_run(t, "", "Max", 6, "float[3,4]", "float[1,4]", NULL));
  MISMATCH(op_run(t, "", "Sum", 6, "float[3,4]", "float[4]", NULL));
  CHECK_STR(op_run(t, "", "Mean", 6, "float[3,4]", "float[3,4]", NULL), "float[3,4]");
  CHECK_STR(op_run(t, "", "Min", 6, "float[3,N]", "float[3,4]", NULL), "float[3,4]");
  CHECK_STR(op_requirements(t), "N == 4");
  CHECK_STR(op_run(t, "", "Max", 8, "float[3,4]", "float[1,4]", NULL), "float[3,4]");
}

/* Empty dims (the d -> 0 variant): what onnxruntime refuses though the spec has a size for it. */
static void test_empty_dims(OpTest *t) {
  /* Pools take an empty batch only; convolutions no empty spatial dim, even with SAME padding. */
  op_attr_ints(t, "kernel_shape", 2, (int64_t[]){1, 1});
  MISMATCH(op_run(t, "", "MaxPool", 12, "float[1,0,4,4]", NULL));
  op_attr_ints(t, "kernel_shape", 2, (int64_t[]){1, 1});
  CHECK_STR(op_run(t, "", "AveragePool", 11, "float[0,3,4,4]", NULL), "float[0,3,4,4]");
  MISMATCH(op_run(t, "", "GlobalAveragePool", 1, "float[1,3,0,4]", NULL));
  CHECK_STR(op_run(t, "", "GlobalMaxPool", 1, "float[0,0,4,4]", NULL), "float[0,0,1,1]");
  op_attr_str(t, "auto_pad", "SAME_UPPER");
  MISMATCH(op_run(t, "", "Conv", 11, "float[1,3,0,4]", "float[2,3,3,3]", NULL));
  CHECK_STR(op_run(t, "", "Conv", 11, "float[1,0,4,4]", "float[2,0,3,3]", NULL), "float[1,2,2,2]");
  /* GridSample samples a nonempty image; an empty grid is fine. */
  MISMATCH(op_run(t, "", "GridSample", 20, "float[1,3,0,4]", "float[1,2,2,2]", NULL));
  CHECK_STR(op_run(t, "", "GridSample", 20, "float[1,3,4,4]", "float[1,0,2,2]", NULL), "float[1,3,0,2]");
  /* ArgMax/ArgMin over an empty axis, unless the output is empty as well. */
  MISMATCH(op_run(t, "", "ArgMax", 13, "float[0,3]", NULL));
  CHECK_STR(op_run(t, "", "ArgMin", 13, "float[0,0]", NULL), "int64[1,0]");
  op_attr_int(t, "axis", -2);
  CHECK(strncmp(op_run(t, "", "ArgMax", 13, "float[0,3]", NULL), "error:", 6) != 0);
  /* MatMul broadcasts a batch dim of 1 up only: [0] against [1] is refused, unless B's batch is all 1. */
  MISMATCH(op_run(t, "", "MatMul", 13, "float[0,2,3,4]", "float[1,2,4,3]", NULL));
  MISMATCH(op_run(t, "", "MatMul", 13, "float[3,4]", "float[0,4,3]", NULL));
  MISMATCH(op_run(t, "", "MatMul", 13, "float[0,2,3,4]", "float[4]", NULL));
  CHECK_STR(op_run(t, "", "MatMul", 13, "float[0,3,4]", "float[1,4,3]", NULL), "float[0,3,3]");
  CHECK_STR(op_run(t, "", "MatMul", 13, "float[0,2,3,4]", "float[0,2,4,3]", NULL), "float[0,2,3,3]");
  /* ScatterND into an empty indexed dim, DeformConv without output channels. */
  MISMATCH(op_run(t, "", "ScatterND", 18, "float[0,4]", "int64[2,1]", "float[2,4]", NULL));
  CHECK_STR(op_run(t, "", "ScatterND", 18, "float[0,4]", "int64[0,1]", "float[0,4]", NULL), "float[0,4]");
  MISMATCH(op_run(t, "", "DeformConv", 19, "float[1,1,3,3]", "float[0,1,2,2]", "float[1,8,2,2]", NULL));
}

int main(void) {
  OpTest *t = op_test_new();
  test_qlinear_matmul(t);
  test_qlinear_conv(t);
  test_pool_rounding(t);
  test_normalizations(t);
  test_gather_nd_whole_slices(t);
  test_kernel_refusals(t);
  test_parameter_lengths(t);
  test_pad_modes(t);
  test_variadic_before_broadcast(t);
  test_empty_dims(t);
  op_test_free(t);
  TEST_MAIN_END();
}
