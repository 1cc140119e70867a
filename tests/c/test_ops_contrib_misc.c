/* com.microsoft utility, signal, decoding and generation operators
 * (contrib_misc.c and the standard rules they reuse), with symbolic
 * inputs. */
#include "op_harness.h"
#include "test.h"

#define MS "com.microsoft"

static int is_error(const char *s, const char *code) {
  return s && !strncmp(s, "error:", 6) && !strncmp(s + 6, code, strlen(code));
}

static void test_same_shape(OpTest *t) {
  op_attr_int(t, "k", 2);
  CHECK_STR(op_run(t, MS, "MoE", 1, "float16[B,S,D]", "float16[B*S,E]", "float16[E,2*I,D]", "",
                   "float16[E,D,I]", NULL),
            "float16[B,S,D]");
  CHECK_STR(op_run(t, MS, "QMoE", 1, "float[T,D]", "float[T,E]", "uint8[E,I,D//2]", "float[E,I]", NULL),
            "float[T,D]");
  CHECK_STR(op_run(t, MS, "SampleOp", 1, "int64[N]{N}", NULL), "int64[N]");
  CHECK_STR(op_run(t, MS, "Trilu", 1, "float[B,N,M]", "int64[]{1}", NULL), "float[B,N,M]");
  CHECK_STR(op_run(t, MS, "Inverse", 1, "double[B,N,N]", NULL), "double[B,N,N]");
  CHECK(is_error(op_run(t, MS, "Inverse", 1, "float[B,2,3]", NULL), "SHAPE_MISMATCH"));
  CHECK(is_error(op_run(t, MS, "Inverse", 1, "float[N]", NULL), "SHAPE_MISMATCH"));
  op_attr_int(t, "ngram_size", 3);
  CHECK_STR(op_run(t, MS, "NGramRepeatBlock", 1, "int64[B,S]", "float[B,V]", NULL), "float[B,V]");
  CHECK_STR(op_run(t, MS, "MurmurHash3", 1, "string[N,C]", NULL), "uint32[N,C]");
  op_attr_int(t, "positive", 0);
  CHECK_STR(op_run(t, MS, "MurmurHash3", 1, "int64[N]", NULL), "int32[N]");
  CHECK_STR(op_run(t, MS, "IsAllFinite", 1, "float[N,C]", "float16[M]", NULL), "bool[]");
  op_attr_int(t, "isinf_only", 1);
  op_attr_int(t, "isnan_only", 1);
  CHECK(is_error(op_run(t, MS, "IsAllFinite", 1, "float[N]", NULL), "INVALID_MODEL"));
  CHECK_STR(op_run(t, MS, "ComplexMul", 1, "float[B,N,2]", "float[N,2]", NULL), "float[B,N,2]");
  CHECK_STR(op_run(t, MS, "ComplexMulConj", 1, "float16[B,1,N,2]", "float16[H,N,2]", NULL),
            "float16[B,H,N,2]");
  CHECK_STR(op_run(t, MS, "GridSample", 1, "float[N,C,H,W]", "float[N,Ho,Wo,2]", NULL), "float[N,C,Ho,Wo]");
  CHECK(is_error(op_run(t, MS, "GridSample", 1, "float[N,C,D,H,W]", "float[N,Do,Ho,Wo,3]", NULL),
                 "SHAPE_MISMATCH"));
}

static void test_tensor_utils(OpTest *t) {
  /* Range with delta omitted counts by 1. */
  CHECK_STR(op_run(t, MS, "Range", 1, "int64[]{0}", "int64[]{N}", NULL), "int64[N]");
  CHECK_STR(op_run(t, MS, "Range", 1, "int32[]{2}", "int32[]{5}", NULL), "int32[3]{2,3,4}");
  CHECK_STR(op_run(t, MS, "Range", 1, "int64[]{S}", "int64[]{T}", NULL), "int64[Max(T-S,0)]");
  CHECK_STR(op_run(t, MS, "Range", 1, "int64[]{0}", "int64[]{N}", "int64[]{2}", NULL), "int64[(N+1)//2]");
  CHECK_STR(op_run(t, MS, "Range", 1, "float[]{0.5}", "float[]{3}", NULL), "float[3]");
  CHECK_STR(op_run(t, MS, "Range", 1, "float[]{5}", "float[]{3}", NULL), "float[0]");
  CHECK_STR(op_run(t, MS, "Range", 1, "int64[]", "int64[]{N}", NULL), "int64[?]");

  /* ExpandDims: a negative axis inserts at rank + axis + 1. */
  CHECK_STR(op_run(t, MS, "ExpandDims", 1, "float[N,C]", "int32[]{0}", NULL), "float[1,N,C]");
  CHECK_STR(op_run(t, MS, "ExpandDims", 1, "float[N,C]", "int32[]{2}", NULL), "float[N,C,1]");
  CHECK_STR(op_run(t, MS, "ExpandDims", 1, "float[N,C]", "int32[]{-1}", NULL), "float[N,C,1]");
  CHECK_STR(op_run(t, MS, "ExpandDims", 1, "float[N,C]", "int32[]{-3}", NULL), "float[1,N,C]");
  CHECK_STR(op_run(t, MS, "ExpandDims", 1, "int64[2]{N,C}", "int32[]{0}", NULL), "int64[1,2]{N,C}");
  CHECK_STR(op_run(t, MS, "ExpandDims", 1, "float[N,C]", "int32[]", NULL), "float[?,?,?]");
  CHECK(is_error(op_run(t, MS, "ExpandDims", 1, "float[N,C]", "int32[]{3}", NULL), "INVALID_MODEL"));
  CHECK(is_error(op_run(t, MS, "ExpandDims", 1, "float[N,C]", "int32[]{-4}", NULL), "INVALID_MODEL"));

  CHECK_STR(op_run(t, MS, "Pad", 1, "float[N,C,H,W]", "int64[8]{0,0,1,2,0,0,1,2}", NULL),
            "float[N,C,H+2,W+4]");
  CHECK_STR(op_run(t, MS, "Pad", 1, "float[H,W]", "int64[1,4]{P,0,P,-1}", "float[]", NULL),
            "float[H+2*P,W-1]");
  CHECK_STR(op_run(t, MS, "Pad", 1, "float[H,W]", "int64[4]", NULL), "float[?,?]");
  CHECK(is_error(op_run(t, MS, "Pad", 1, "float[H,W]", "int64[2]{1,1}", NULL), "INVALID_MODEL"));

  op_set_outputs(t, 3);
  CHECK(!strncmp(op_run(t, MS, "Unique", 1, "int64[N]", NULL), "int64[unique_", 13));
  CHECK(!strncmp(op_out(t, 1), "int64[N]", 8));
  CHECK(!strncmp(op_out(t, 2), "int64[unique_", 13));
  CHECK(strstr(op_diags(t), "DATA_DEPENDENT") != NULL);
  op_set_outputs(t, 3);
  CHECK_STR(op_run(t, MS, "Unique", 1, "float[1]", NULL), "float[1]");
  CHECK_STR(op_out(t, 2), "int64[1]");
  CHECK(is_error(op_run(t, MS, "Unique", 1, "float[N,C]", NULL), "SHAPE_MISMATCH"));

  op_attr_int(t, "size", 4);
  op_attr_int(t, "step", 2);
  CHECK_STR(op_run(t, MS, "UnfoldTensor", 1, "float[B,T]", NULL), "float[B,T//2-1,4]");
  op_attr_int(t, "size", 3);
  op_attr_int(t, "dim", 0);
  CHECK_STR(op_run(t, MS, "UnfoldTensor", 1, "float[10,C]", NULL), "float[8,C,3]");
  op_attr_int(t, "size", 11);
  CHECK(is_error(op_run(t, MS, "UnfoldTensor", 1, "float[10]", NULL), "SHAPE_MISMATCH"));
  CHECK(is_error(op_run(t, MS, "UnfoldTensor", 1, "float[10]", NULL), "INVALID_MODEL"));

  CHECK_STR(op_run(t, MS, "CDist", 1, "float[M,D]", "float[K,D]", NULL), "float[M,K]");
  CHECK(is_error(op_run(t, MS, "CDist", 1, "float[M,3]", "float[K,4]", NULL), "SHAPE_MISMATCH"));
  CHECK_STR(
      op_run(t, MS, "CropAndResize", 1, "float[N,C,H,W]", "float[R,4]", "int32[R]", "int32[2]{7,7}", NULL),
      "float[R,C,7,7]");
  CHECK_STR(op_run(t, MS, "CropAndResize", 1, "float[N,C,H,W]", "float[?,4]", "int32[R]", "int32[2]", NULL),
            "float[R,C,?,?]");
  CHECK(
      is_error(op_run(t, MS, "CropAndResize", 1, "float[C,H,W]", "float[R,4]", "int32[R]", "int32[2]", NULL),
               "SHAPE_MISMATCH"));
}

static void test_signal(OpTest *t) {
  CHECK_STR(op_run(t, MS, "Rfft", 1, "float[B,N]", NULL), "float[B,N//2+1,2]");
  op_attr_int(t, "signal_ndim", 2);
  CHECK_STR(op_run(t, MS, "Rfft", 1, "double[B,H,W]", NULL), "double[B,H,W//2+1,2]");
  op_attr_int(t, "onesided", 0);
  CHECK_STR(op_run(t, MS, "Rfft", 1, "float[B,N]", NULL), "float[B,N,2]");
  op_attr_int(t, "signal_ndim", 3);
  CHECK(is_error(op_run(t, MS, "Rfft", 1, "float[B,N]", NULL), "SHAPE_MISMATCH"));
  op_attr_int(t, "signal_ndim", 1);
  CHECK_STR(op_run(t, MS, "Irfft", 1, "float[B,M,2]", NULL), "float[B,2*M-1]");
  op_attr_int(t, "signal_ndim", 1);
  CHECK_STR(op_run(t, MS, "Irfft", 1, "float16[B,9,2]", NULL), "float16[B,17]");
  CHECK(is_error(op_run(t, MS, "Irfft", 1, "float[B,M,2]", NULL), "INVALID_MODEL"));
  op_attr_int(t, "signal_ndim", 2);
  CHECK(is_error(op_run(t, MS, "Irfft", 1, "float[M,2]", NULL), "SHAPE_MISMATCH"));
}

static void test_decoding(OpTest *t) {
  op_set_outputs(t, 2);
  op_attr_int(t, "min_ngram_size", 1);
  op_attr_int(t, "max_ngram_size", 3);
  CHECK_STR(op_run(t, MS, "BifurcationDetector", 1, "int64[S]", "int64[C]", "int64[]", NULL), "int64[C]");
  CHECK_STR(op_out(t, 1), "int64[]");
  op_set_outputs(t, 2);
  CHECK(!strncmp(op_run(t, MS, "BifurcationDetector", 1, "int64[S]", "int64[C]", "int64[]", "int64[P]", NULL),
                 "int64[tokens_", 13));
  CHECK_STR(op_out(t, 1), "int64[]");

  CHECK(!strncmp(op_run(t, MS, "DynamicTimeWarping", 1, "float[M,N]", NULL),
                 "int32[2,warp_path_", 18));
  CHECK(!strncmp(op_run(t, MS, "DynamicTimeWarping", 1, "float[1,M,N]", NULL), "int32[2,", 8));
  CHECK(is_error(op_run(t, MS, "DynamicTimeWarping", 1, "float[M]", NULL), "SHAPE_MISMATCH"));

  op_attr_strings(t, "separators", 1, (const char *const[]){" "});
  CHECK(!strncmp(op_run(t, MS, "Tokenizer", 1, "string[2,3]", NULL), "string[2,3,tokens_", 18));
  CHECK_STR(op_run(t, MS, "Tokenizer", 1, "string[0]", NULL), "string[0]");
  CHECK_STR(op_run(t, MS, "Tokenizer", 1, "string[N,0]", NULL), "string[N,0]");
  /* A symbolic dim may be 0, which drops the token axis. */
  CHECK_STR(op_run(t, MS, "Tokenizer", 1, "string[N]", NULL), "string[*]");
  CHECK(is_error(op_run(t, MS, "Tokenizer", 1, "string[A,B,C]", NULL), "SHAPE_MISMATCH"));

  op_set_outputs(t, 2);
  op_attr_int(t, "max_ngram_size", 3);
  op_attr_int(t, "n_head_per_ngram", 4);
  op_attr_int(t, "pad_id", 0);
  CHECK_STR(op_run(t, MS, "NGramHashMapping", 1, "int64[B,S]", "int64[3]", "int64[8]", "int64[B,2]", NULL),
            "int64[B,S,8]");
  CHECK_STR(op_out(t, 1), "int64[B,2]");
  op_set_outputs(t, 3);
  op_attr_int(t, "max_ngram_size", 2);
  op_attr_int(t, "n_head_per_ngram", 8);
  op_attr_int(t, "pad_id", 0);
  CHECK_STR(
      op_run(t, MS, "VarlenNGramHashMapping", 1, "int32[T]", "int32[2]", "int32[8]", "int32[B+1]", NULL),
      "int32[T,8]");
  CHECK_STR(op_out(t, 1), "int32[B,1]");
  CHECK_STR(op_out(t, 2), "int32[B,1]");
  op_attr_int(t, "max_ngram_size", 1);
  op_attr_int(t, "n_head_per_ngram", 8);
  CHECK(is_error(op_run(t, MS, "NGramHashMapping", 1, "int64[B,S]", "int64[3]", "int64[8]", NULL),
                 "INVALID_MODEL"));
}

static void test_generation(OpTest *t) {
  op_set_outputs(t, 3);
  op_attr_int(t, "vocab_size", 50257);
  CHECK_STR(op_run(t, MS, "BeamSearch", 1, "int32[B,S]", "int32[1]{L}", "int32[1]{1}", "int32[1]{4}",
                   "int32[1]{R}", "float[1]", NULL),
            "int32[B,R,L]");
  CHECK_STR(op_out(t, 1), "float[B,R]");
  CHECK_STR(op_out(t, 2), "float[L-S,B,4,50257]");
  /* Unknown counts become fresh symbols shared by the outputs. */
  op_set_outputs(t, 2);
  const char *seq = op_run(t, MS, "BeamSearch", 1, "int32[B,S]", "int32[1]", "", "int32[1]", "int32[1]{3}",
                           "float16[1]", NULL);
  CHECK(!strncmp(seq, "int32[B,3,max_length_", 21));
  CHECK_STR(op_out(t, 1), "float16[B,3]");
  CHECK(strstr(op_diags(t), "DATA_DEPENDENT") != NULL);
  /* Encoder-decoder: the generated step count is not max_length - S. */
  op_set_outputs(t, 3);
  op_attr_int(t, "model_type", 1);
  CHECK_STR(
      op_run(t, MS, "BeamSearch", 1, "int32[B,S]", "int32[1]{128}", "", "int32[1]{4}", "int32[1]{1}", NULL),
      "int32[B,1,128]");
  CHECK_STR(op_out(t, 2), "?[?,B,4,?]");
  CHECK(is_error(
      op_run(t, MS, "BeamSearch", 1, "int32[B]", "int32[1]{128}", "", "int32[1]{4}", "int32[1]{1}", NULL),
      "SHAPE_MISMATCH"));

  op_set_outputs(t, 5);
  CHECK_STR(
      op_run(t, MS, "WhisperBeamSearch", 1, "float[B,80,3000]", "int32[1]{448}", "int32[1]{0}", "int32[1]{5}",
             "int32[1]{1}", "float[1]", "float[1]", "", "", "", "", "", "int32[Q,2]", NULL),
      "int32[B,1,448]");
  CHECK_STR(op_out(t, 1), "float[B,1]");
  CHECK_STR(op_out(t, 2), "float[?,B,5,?]");
  CHECK_STR(op_out(t, 3), "float[B,1,Q,?,?]");
  CHECK_STR(op_out(t, 4), "float[B]");

  CHECK_STR(op_run(t, MS, "GreedySearch", 1, "int32[B,S]", "int32[1]{L}", NULL), "int32[B,L]");
  op_set_outputs(t, 2);
  op_attr_int(t, "vocab_size", 32000);
  CHECK_STR(op_run(t, MS, "Sampling", 1, "int32[B,S]", "int32[1]{256}", NULL), "int32[B,256]");
  CHECK_STR(op_out(t, 1), "float[B,32000]");
  CHECK(is_error(op_run(t, MS, "GreedySearch", 1, "int32[B,S,1]", "int32[1]{L}", NULL), "SHAPE_MISMATCH"));
}

static void test_external(OpTest *t) {
  op_attr_str(t, "DLC", "payload");
  CHECK(is_error(op_run(t, MS, "Snpe", 1, "float[1,3,224,224]", NULL), "UNSUPPORTED"));
  op_attr_str(t, "ep_cache_context", "ctx.bin");
  CHECK(is_error(op_run(t, MS, "EPContext", 1, "float[1,3,224,224]", NULL), "UNSUPPORTED"));
}

int main(void) {
  OpTest *t = op_test_new();
  test_same_shape(t);
  test_tensor_utils(t);
  test_signal(t);
  test_decoding(t);
  test_generation(t);
  test_external(t);
  op_test_free(t);
  TEST_MAIN_END();
}
