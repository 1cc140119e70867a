/* Shape rules of DFT, STFT, the window generators and MelWeightMatrix. */
#include "op_harness.h"
#include "test.h"

static void test_dft(OpTest *t) {
  /* Opset 20: axis input (default -2); complex output. */
  CHECK_STR(op_run(t, "", "DFT", 20, "float[B,N,1]", NULL), "float[B,N,2]");
  CHECK_STR(op_run(t, "", "DFT", 20, "float[B,N,M,2]", "", "int64[]{1}", NULL), "float[B,N,M,2]");
  CHECK_STR(op_run(t, "", "DFT", 20, "float[B,N,M,1]", "int64[]{L}", "int64[]{-3}", NULL), "float[B,L,M,2]");
  /* RFFT: dft_length // 2 + 1 bins on the axis. */
  op_attr_int(t, "onesided", 1);
  CHECK_STR(op_run(t, "", "DFT", 20, "float[B,N,M,1]", "", "int64[]{1}", NULL), "float[B,N//2+1,M,2]");
  op_attr_int(t, "onesided", 1);
  CHECK_STR(op_run(t, "", "DFT", 20, "float[B,N,M,1]", "int64[]{16}", "int64[]{2}", NULL), "float[B,N,9,2]");
  /* IRFFT: real output, default length 2 * (n - 1). */
  op_attr_int(t, "onesided", 1);
  op_attr_int(t, "inverse", 1);
  CHECK_STR(op_run(t, "", "DFT", 20, "float[B,N,M,2]", NULL), "float[B,N,2*M-2,1]");
  /* Unknown axis: without onesided or dft_length every dim keeps its size. */
  CHECK_STR(op_run(t, "", "DFT", 20, "float[B,N,1]", "", "int64[]", NULL), "float[B,N,2]");
  op_attr_int(t, "onesided", 1);
  CHECK_STR(op_run(t, "", "DFT", 20, "float[B,N,1]", "", "int64[]", NULL), "float[?,?,2]");
  /* Opset 17/19: axis attribute, default 1. */
  op_attr_int(t, "onesided", 1);
  CHECK_STR(op_run(t, "", "DFT", 17, "float[B,N,M,1]", NULL), "float[B,N//2+1,M,2]");
  op_attr_int(t, "axis", 2);
  op_attr_int(t, "inverse", 1);
  CHECK_STR(op_run(t, "", "DFT", 19, "float[B,N,M,2]", NULL), "float[B,N,M,2]");
  /* Zero-length signal. */
  CHECK_STR(op_run(t, "", "DFT", 20, "float[B,0,1]", NULL), "float[B,0,2]");
  CHECK_STR(op_run(t, "", "DFT", 20, "float[*]", NULL), "float[*]");
  /* The last axis holds the complex parts and cannot be transformed. */
  CHECK(!strncmp(op_run(t, "", "DFT", 20, "float[B,N,1]", "", "int64[]{-1}", NULL), "error:INVALID_MODEL", 19));
  op_attr_int(t, "axis", 3);
  CHECK(!strncmp(op_run(t, "", "DFT", 17, "float[B,N,M,1]", NULL), "error:INVALID_MODEL", 19));
  CHECK(!strncmp(op_run(t, "", "DFT", 20, "float[B,N,3]", NULL), "error:SHAPE_MISMATCH", 20));
  CHECK(!strncmp(op_run(t, "", "DFT", 20, "float[B,N,1]", "int64[]{0}", NULL), "error:INVALID_MODEL", 19));
}

static void test_stft(OpTest *t) {
  /* frames = (L - frame_length) // frame_step + 1, bins = frame_length // 2 + 1. */
  CHECK_STR(op_run(t, "", "STFT", 17, "float[B,L,1]", "int64[]{8}", "", "int64[]{16}", NULL),
            "float[B,L//8-1,9,2]");
  CHECK_STR(op_run(t, "", "STFT", 17, "float[1,128,1]", "int64[]{8}", "float[16]", NULL), "float[1,15,9,2]");
  op_attr_int(t, "onesided", 0);
  CHECK_STR(op_run(t, "", "STFT", 17, "float[B,L,2]", "int64[]{S}", "float[W]", NULL),
            "float[B,(L-W)//S+1,W,2]");
  /* Unknown frame_step: the frame count is unknown. */
  CHECK_STR(op_run(t, "", "STFT", 17, "float[B,L,1]", "int64[]", "float[16]", NULL), "float[B,?,9,2]");
  CHECK_STR(op_run(t, "", "STFT", 17, "float[*]", "int64[]{4}", NULL), "float[?,?,?,2]");
  CHECK(!strncmp(op_run(t, "", "STFT", 17, "float[B,L,1]", "int64[]{0}", "float[16]", NULL), "error:INVALID_MODEL", 19));
  CHECK(!strncmp(op_run(t, "", "STFT", 17, "float[B,L,1]", "int64[]{4}", "", "int64[]{-16}", NULL), "error:INVALID_MODEL", 19));
  CHECK(!strncmp(op_run(t, "", "STFT", 17, "float[B,L]", "int64[]{1}", "float[16]", NULL), "error:SHAPE_MISMATCH", 20));
}

static void test_windows(OpTest *t) {
  CHECK_STR(op_run(t, "", "HannWindow", 17, "int32[]{10}", NULL), "float[10]");
  op_attr_int(t, "output_datatype", 11);
  op_attr_int(t, "periodic", 0);
  CHECK_STR(op_run(t, "", "HammingWindow", 17, "int64[]{N}", NULL), "double[N]");
  CHECK_STR(op_run(t, "", "BlackmanWindow", 17, "int64[]", NULL), "float[?]");
  CHECK_STR(op_run(t, "", "BlackmanWindow", 17, "int64[]{0}", NULL), "float[0]");
  CHECK(!strncmp(op_run(t, "", "HannWindow", 17, "int64[2,2]", NULL), "error:SHAPE_MISMATCH", 20));
  CHECK(!strncmp(op_run(t, "", "HannWindow", 17, "int64[]{-3}", NULL), "error:INVALID_MODEL", 19));
  CHECK(!strncmp(op_run(t, "", "MelWeightMatrix", 17, "int64[]{-1}", "int64[]{8}", "int64[]", "float[]", "float[]", NULL),
                 "error:INVALID_MODEL", 19));
  /* [dft_length // 2 + 1, num_mel_bins]. */
  CHECK_STR(op_run(t, "", "MelWeightMatrix", 17, "int32[]{8}", "int32[]{16}", "int32[]{8192}", "float[]{0}",
                   "float[]{4096}", NULL), "float[9,8]");
  op_attr_int(t, "output_datatype", 10);
  CHECK_STR(op_run(t, "", "MelWeightMatrix", 17, "int64[]{M}", "int64[]{D}", "int64[]", "float[]", "float[]", NULL),
            "float16[D//2+1,M]");
  CHECK_STR(op_run(t, "", "MelWeightMatrix", 17, "int64[]", "int64[]", "int64[]", "float[]", "float[]", NULL),
            "float[?,?]");
}

int main(void) {
  OpTest *t = op_test_new();
  test_dft(t);
  test_stft(t);
  test_windows(t);
  op_test_free(t);
  TEST_MAIN_END();
}
