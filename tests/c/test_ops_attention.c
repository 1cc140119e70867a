/* Shape rules of Attention, RotaryEmbedding, LinearAttention,
 * CausalConvWithState, SwiGLU, Swish and the losses, with symbolic inputs. */
#include "op_harness.h"
#include "test.h"

#define IS_ERR(text, code) (!strncmp((text), "error:" code, strlen("error:" code)))

static void test_attention_4d(OpTest *t) {
  CHECK_STR(op_run(t, "", "Attention", 23, "float[B,HQ,S,D]", "float[B,HK,T,D]", "float[B,HK,T,DV]", NULL),
            "float[B,HQ,S,DV]");
  /* KV cache: present = past + current along the sequence. */
  op_set_outputs(t, 4);
  CHECK_STR(op_run(t, "", "Attention", 24, "float16[B,8,S,64]", "float16[B,2,T,64]", "float16[B,2,T,32]",
                   "bool[S,P+T]", "float16[B,2,P,64]", "float16[B,2,P,32]", NULL),
            "float16[B,8,S,32]");
  CHECK_STR(op_out(t, 1), "float16[B,2,P+T,64]");
  CHECK_STR(op_out(t, 2), "float16[B,2,P+T,32]");
  CHECK_STR(op_out(t, 3), "float16[B,8,S,P+T]");
  /* No cache: total sequence = kv sequence (external cache with nonpad_kv_seqlen). */
  op_set_outputs(t, 4);
  CHECK_STR(op_run(t, "", "Attention", 24, "float[B,H,S,D]", "float[B,H,T,D]", "float[B,H,T,D]", "", "", "",
                   "int64[B]", NULL), "float[B,H,S,D]");
  CHECK_STR(op_out(t, 3), "float[B,H,S,T]");
  CHECK_STR(op_run(t, "", "Attention", 23, "float[*]", "float[B,H,T,D]", "float[B,H,T,D]", NULL), "float[*]");
  CHECK(IS_ERR(op_run(t, "", "Attention", 23, "float[B,S]", "float[B,T,D]", "float[B,T,D]", NULL),
               "SHAPE_MISMATCH"));
}

static void test_attention_3d(OpTest *t) {
  /* Packed [B, S, heads * head_size]: Y = [B, S, q_heads * v_head_size]. */
  op_attr_int(t, "q_num_heads", 8);
  op_attr_int(t, "kv_num_heads", 2);
  CHECK_STR(op_run(t, "", "Attention", 23, "float[B,S,512]", "float[B,T,128]", "float[B,T,96]", NULL),
            "float[B,S,384]");
  op_attr_int(t, "q_num_heads", 4);
  op_attr_int(t, "kv_num_heads", 4);
  CHECK_STR(op_run(t, "", "Attention", 23, "float[B,S,HQ]", "float[B,T,HK]", "float[B,T,HV]", NULL),
            "float[B,S,HV]");
  op_attr_int(t, "q_num_heads", 8);
  op_attr_int(t, "kv_num_heads", 2);
  CHECK_STR(op_run(t, "", "Attention", 23, "float[B,S,HQ]", "float[B,T,HK]", "float[B,T,HV]", NULL),
            "float[B,S,8*(HV//2)]");
  op_set_outputs(t, 4);
  op_attr_int(t, "q_num_heads", 8);
  op_attr_int(t, "kv_num_heads", 2);
  CHECK_STR(op_run(t, "", "Attention", 23, "float[B,S,512]", "float[B,T,128]", "float[B,T,128]", "",
                   "float[B,2,P,64]", "float[B,2,P,64]", NULL), "float[B,S,512]");
  CHECK_STR(op_out(t, 1), "float[B,2,P+T,64]");
  CHECK_STR(op_out(t, 2), "float[B,2,P+T,64]");
  CHECK_STR(op_out(t, 3), "float[B,8,S,P+T]");
  /* A constant hidden size that the head count does not divide is invalid. */
  op_attr_int(t, "q_num_heads", 4);
  op_attr_int(t, "kv_num_heads", 4);
  CHECK(IS_ERR(op_run(t, "", "Attention", 23, "float[B,S,30]", "float[B,T,32]", "float[B,T,32]", NULL),
               "SHAPE_MISMATCH"));
  /* 3-D inputs need the head counts (the spec; onnxruntime divides by them). */
  CHECK(IS_ERR(op_run(t, "", "Attention", 23, "float[B,S,64]", "float[B,T,64]", "float[B,T,64]", NULL),
               "INVALID_MODEL"));
}

static void test_rotary_and_linear(OpTest *t) {
  CHECK_STR(op_run(t, "", "RotaryEmbedding", 23, "float[B,H,S,D]", "float[M,D//2]", "float[M,D//2]",
                   "int64[B,S]", NULL), "float[B,H,S,D]");
  op_attr_int(t, "num_heads", 4);
  CHECK_STR(op_run(t, "", "RotaryEmbedding", 23, "float16[B,S,HD]", "float16[B,S,8]", "float16[B,S,8]", NULL),
            "float16[B,S,HD]");
  CHECK(IS_ERR(op_run(t, "", "RotaryEmbedding", 23, "float[B,S]", "float[S,8]", "float[S,8]", NULL),
               "SHAPE_MISMATCH"));
  op_set_outputs(t, 2);
  op_attr_int(t, "q_num_heads", 4);
  op_attr_int(t, "kv_num_heads", 2);
  CHECK_STR(op_run(t, "", "LinearAttention", 27, "float[B,T,64]", "float[B,T,32]", "float[B,T,48]", NULL),
            "float[B,T,96]");
  CHECK_STR(op_out(t, 1), "float[B,2,16,24]");
  op_set_outputs(t, 2);
  op_attr_int(t, "q_num_heads", 4);
  op_attr_int(t, "kv_num_heads", 4);
  CHECK_STR(op_run(t, "", "LinearAttention", 27, "float16[B,T,Q]", "float16[B,T,K]", "float16[B,T,V]",
                   "float[B,4,DK,DV]", NULL), "float16[B,T,V]");
  CHECK_STR(op_out(t, 1), "float[B,4,DK,DV]");
  op_set_outputs(t, 2);
  op_attr_int(t, "q_num_heads", 4);
  op_attr_int(t, "kv_num_heads", 4);
  CHECK_STR(op_run(t, "", "LinearAttention", 27, "float[B,T,Q]", "float[B,T,K]", "float[B,T,V]", NULL),
            "float[B,T,V]");
  CHECK_STR(op_out(t, 1), "float[B,4,Q//4,V//4]");
  CHECK(IS_ERR(op_run(t, "", "LinearAttention", 27, "float[B,T,Q]", "float[B,T,K]", "float[B,T,V]", NULL),
               "INVALID_MODEL"));
}

static void test_causal_conv_swiglu(OpTest *t) {
  op_set_outputs(t, 2);
  CHECK_STR(op_run(t, "", "CausalConvWithState", 27, "float[B,C,L]", "float[C,1,4]", NULL), "float[B,C,L]");
  CHECK_STR(op_out(t, 1), "float[B,C,3]");
  op_set_outputs(t, 2);
  CHECK_STR(op_run(t, "", "CausalConvWithState", 27, "float[B,C,L]", "float[C,1,K]", "float[C]",
                   "float[B,C,K-1]", NULL), "float[B,C,L]");
  CHECK_STR(op_out(t, 1), "float[B,C,K-1]");
  CHECK(IS_ERR(op_run(t, "", "CausalConvWithState", 27, "float[B,L]", "float[C,1,4]", NULL), "SHAPE_MISMATCH"));
  CHECK_STR(op_run(t, "", "SwiGLU", 28, "float[B,S,F]", "float[B,S,F]", NULL), "float[B,S,F]");
  CHECK_STR(op_run(t, "", "SwiGLU", 28, "float[B,?,F]", "float[B,S,4]", NULL), "float[B,S,4]");
  CHECK_STR(op_run(t, "", "SwiGLU", 28, "float[*]", "float[B,0]", NULL), "float[B,0]");
  CHECK(IS_ERR(op_run(t, "", "SwiGLU", 28, "float[2]", "float[3]", NULL), "SHAPE_MISMATCH"));
  CHECK(IS_ERR(op_run(t, "", "SwiGLU", 28, "float[N]", "float[N,1]", NULL), "SHAPE_MISMATCH"));
  op_attr_float(t, "alpha", 1.702);
  CHECK_STR(op_run(t, "", "Swish", 24, "bfloat16[N,C]", NULL), "bfloat16[N,C]");
}

static void test_losses(OpTest *t) {
  op_attr_str(t, "reduction", "none");
  CHECK_STR(op_run(t, "", "NegativeLogLikelihoodLoss", 13, "float[N,C,D1,D2]", "int64[N,D1,D2]", NULL),
            "float[N,D1,D2]");
  op_attr_str(t, "reduction", "none");
  CHECK_STR(op_run(t, "", "NegativeLogLikelihoodLoss", 13, "float[N,C]", "int64[*]", "float[C]", NULL),
            "float[N]");
  op_attr_str(t, "reduction", "none");
  CHECK_STR(op_run(t, "", "NegativeLogLikelihoodLoss", 13, "float[*]", "int64[N,?]", NULL), "float[N,?]");
  CHECK_STR(op_run(t, "", "NegativeLogLikelihoodLoss", 13, "double[N,C]", "int64[N]", NULL), "double[]");
  op_attr_str(t, "reduction", "sum");
  CHECK_STR(op_run(t, "", "NegativeLogLikelihoodLoss", 12, "float[*]", "int64[*]", NULL), "float[]");
  op_attr_str(t, "reduction", "max");
  CHECK(IS_ERR(op_run(t, "", "NegativeLogLikelihoodLoss", 13, "float[N,C]", "int64[N]", NULL), "INVALID_MODEL"));
  CHECK(IS_ERR(op_run(t, "", "NegativeLogLikelihoodLoss", 13, "float[N,C]", "int64[N,C]", NULL),
               "SHAPE_MISMATCH"));
  /* SoftmaxCrossEntropyLoss: optional log_prob like scores. */
  op_set_outputs(t, 2);
  CHECK_STR(op_run(t, "", "SoftmaxCrossEntropyLoss", 13, "float16[N,C,D]", "int32[N,D]", NULL), "float16[]");
  CHECK_STR(op_out(t, 1), "float16[N,C,D]");
  op_set_outputs(t, 2);
  op_attr_str(t, "reduction", "none");
  CHECK_STR(op_run(t, "", "SoftmaxCrossEntropyLoss", 12, "float[N,C]", "int64[N]", "float[C]", NULL), "float[N]");
  CHECK_STR(op_out(t, 1), "float[N,C]");
}

int main(void) {
  OpTest *t = op_test_new();
  test_attention_4d(t);
  test_attention_3d(t);
  test_rotary_and_linear(t);
  test_causal_conv_swiglu(t);
  test_losses(t);
  op_test_free(t);
  TEST_MAIN_END();
}
