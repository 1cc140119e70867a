/*
 * Shape checks of the attention, normalization and loss rules: a mismatch
 * between known dims fails the node, a symbolic one becomes a requirement,
 * valid layouts (GQA, padded masks, broadcast masks, dims 0) pass. Expected
 * values are worked out by hand from the ONNX spec and onnxruntime's checks.
 */
#include <string.h>

#include "op_harness.h"
#include "test.h"

#define MISMATCH(got) CHECK(!strncmp((got), "error:SHAPE_MISMATCH", 20))
#define INVALID(got) CHECK(!strncmp((got), "error:INVALID_MODEL", 19))

static void test_attention_4d(OpTest *t) {
  const char *q = "float[2,8,4,16]", *k = "float[2,2,6,16]", *v = "float[2,2,6,10]";
  CHECK_STR(op_run(t, "", "Attention", 23, q, k, v, NULL), "float[2,8,4,10]");
  MISMATCH(op_run(t, "", "Attention", 23, "float[3,8,4,16]", k, v, NULL));      /* batch */
  MISMATCH(op_run(t, "", "Attention", 23, q, "float[2,2,6,17]", v, NULL));      /* head size */
  MISMATCH(op_run(t, "", "Attention", 23, q, k, "float[2,2,7,10]", NULL));      /* kv sequence */
  MISMATCH(op_run(t, "", "Attention", 23, q, k, "float[2,4,6,10]", NULL));      /* kv heads */
  MISMATCH(op_run(t, "", "Attention", 23, "float[2,6,4,16]", "float[2,4,6,16]", "float[2,4,6,10]", NULL)); /* 6 % 4 */
  MISMATCH(op_run(t, "", "Attention", 23, q, "float[2,2,6]", v, NULL));          /* ranks */
  op_attr_int(t, "q_num_heads", 4);
  MISMATCH(op_run(t, "", "Attention", 23, q, k, v, NULL));                      /* attribute vs dim 1 */
  /* The spec broadcasts masks to [B, q_heads, S_q, total] (from opset 24 the last dim may be shorter);
   * onnxruntime takes ranks 2 to 4 with the last two dims exactly S_q and total, the leading ones 1 or
   * the scores' (opset 24's shorter mask, which a backend test uses, stays allowed). */
  CHECK_STR(op_run(t, "", "Attention", 23, q, k, v, "float[4,6]", NULL), "float[2,8,4,10]");
  CHECK_STR(op_run(t, "", "Attention", 23, q, k, v, "float[2,1,4,6]", NULL), "float[2,8,4,10]");
  CHECK_STR(op_run(t, "", "Attention", 23, q, k, v, "float[8,4,6]", NULL), "float[2,8,4,10]");
  MISMATCH(op_run(t, "", "Attention", 23, q, k, v, "float[2,1,1,6]", NULL));
  MISMATCH(op_run(t, "", "Attention", 23, q, k, v, "float[4,1]", NULL));
  CHECK_STR(op_run(t, "", "Attention", 24, q, k, v, "float[2,8,4,5]", NULL), "float[2,8,4,10]"); /* the spec's padded kv */
  MISMATCH(op_run(t, "", "Attention", 23, q, k, v, "float[6]", NULL));
  MISMATCH(op_run(t, "", "Attention", 23, q, k, v, "float[4,7]", NULL));
  MISMATCH(op_run(t, "", "Attention", 23, q, k, v, "float[3,6]", NULL));
  MISMATCH(op_run(t, "", "Attention", 23, q, k, v, "float[3,8,4,6]", NULL));
  /* The cache: [B, kv_heads, past, head_size], both or neither. */
  CHECK_STR(op_run(t, "", "Attention", 23, q, k, v, "", "float[2,2,5,16]", "float[2,2,5,10]", NULL), "float[2,8,4,10]");
  MISMATCH(op_run(t, "", "Attention", 23, q, k, v, "", "float[2,2,5,16]", "float[2,2,4,10]", NULL));
  MISMATCH(op_run(t, "", "Attention", 23, q, k, v, "", "float[2,2,5,10]", "float[2,2,5,10]", NULL));
  MISMATCH(op_run(t, "", "Attention", 23, q, k, v, "", "float[2,3,5,16]", "float[2,3,5,10]", NULL));
  INVALID(op_run(t, "", "Attention", 23, q, k, v, "", "float[2,2,5,16]", "", NULL));
  MISMATCH(op_run(t, "", "Attention", 23, q, k, v, "float[4,6]", "float[2,2,5,16]", "float[2,2,5,10]", NULL)); /* total 11 */
  CHECK_STR(op_run(t, "", "Attention", 24, q, k, v, "float[4,6]", "float[2,2,5,16]", "float[2,2,5,10]", NULL), "float[2,8,4,10]");
  CHECK_STR(op_run(t, "", "Attention", 24, q, k, v, "float[4,11]", "float[2,2,5,16]", "float[2,2,5,10]", NULL), "float[2,8,4,10]");
  MISMATCH(op_run(t, "", "Attention", 24, q, k, v, "float[4,12]", "float[2,2,5,16]", "float[2,2,5,10]", NULL));
  /* Symbolic head dims: requirements (the attention head dims). */
  CHECK_STR(op_run(t, "", "Attention", 23, "float[B,8,S,D]", "float[B,2,T,64]", "float[B,2,T,E]", NULL), "float[B,8,S,E]");
  CHECK_STR(op_requirements(t), "D == 64");
  CHECK_STR(op_run(t, "", "Attention", 23, "float[B,H,S,64]", "float[C,2,T,64]", "float[B,K,U,64]", NULL), "float[B,H,S,64]");
  CHECK_STR(op_requirements(t), "C == B; K == 2; U == T");
  /* onnxruntime refuses a batch, sequence or head size of 0 (a past of 0 runs). */
  MISMATCH(op_run(t, "", "Attention", 23, "float[0,8,4,16]", "float[0,2,6,16]", "float[0,2,6,10]", NULL));
  MISMATCH(op_run(t, "", "Attention", 23, "float[2,8,0,16]", k, v, NULL));
  MISMATCH(op_run(t, "", "Attention", 23, q, k, "float[2,2,6,0]", NULL));
  CHECK_STR(op_run(t, "", "Attention", 23, q, k, v, "", "float[2,2,0,16]", "float[2,2,0,10]", NULL), "float[2,8,4,10]");
  /* A symbolic S_q beside a mask's 1: onnxruntime needs S_q == 1. */
  CHECK_STR(op_run(t, "", "Attention", 23, "float[2,8,S,16]", k, v, "float[1,6]", NULL), "float[2,8,S,10]");
  CHECK_STR(op_requirements(t), "S == 1");
}

static void test_attention_3d(OpTest *t) {
  op_attr_int(t, "q_num_heads", 8);
  op_attr_int(t, "kv_num_heads", 2);
  CHECK_STR(op_run(t, "", "Attention", 23, "float[2,4,128]", "float[2,6,32]", "float[2,6,20]", NULL), "float[2,4,80]");
  op_attr_int(t, "q_num_heads", 8);
  op_attr_int(t, "kv_num_heads", 2);
  MISMATCH(op_run(t, "", "Attention", 23, "float[2,4,128]", "float[2,6,34]", "float[2,6,20]", NULL)); /* K heads of 17 */
  op_attr_int(t, "q_num_heads", 8);
  op_attr_int(t, "kv_num_heads", 2);
  MISMATCH(op_run(t, "", "Attention", 23, "float[2,4,128]", "float[2,6,32]", "float[2,6,21]", NULL)); /* 21 % 2 */
  op_attr_int(t, "q_num_heads", 8);
  op_attr_int(t, "kv_num_heads", 2);
  MISMATCH(op_run(t, "", "Attention", 23, "float[2,4,128]", "float[2,6,32]", "float[2,5,20]", NULL));
  op_attr_int(t, "q_num_heads", 8);
  op_attr_int(t, "kv_num_heads", 3);
  MISMATCH(op_run(t, "", "Attention", 23, "float[2,4,128]", "float[2,6,48]", "float[2,6,30]", NULL)); /* 8 % 3 */
  op_attr_int(t, "q_num_heads", 4);
  op_attr_int(t, "kv_num_heads", 4);
  CHECK_STR(op_run(t, "", "Attention", 23, "float[B,S,D]", "float[B,T,256]", "float[B,T,256]", NULL), "float[B,S,256]");
  CHECK_STR(op_requirements(t), "D//4 == 64");
}

static void test_rotary(OpTest *t) {
  const char *x = "float[2,4,3,8]";
  CHECK_STR(op_run(t, "", "RotaryEmbedding", 23, x, "float[50,4]", "float[50,4]", "int64[2,3]", NULL), "float[2,4,3,8]");
  MISMATCH(op_run(t, "", "RotaryEmbedding", 23, x, "float[50,4]", "float[51,4]", "int64[2,3]", NULL));
  MISMATCH(op_run(t, "", "RotaryEmbedding", 23, x, "float[50,5]", "float[50,5]", "int64[2,3]", NULL));
  MISMATCH(op_run(t, "", "RotaryEmbedding", 23, x, "float[50,4]", "float[50,4]", "int64[3,3]", NULL));
  MISMATCH(op_run(t, "", "RotaryEmbedding", 23, x, "float[50,4]", "float[50,4]", "int64[2,4]", NULL));
  /* Without position_ids the caches are [B, S, rot / 2]. */
  CHECK_STR(op_run(t, "", "RotaryEmbedding", 23, x, "float[2,3,4]", "float[2,3,4]", NULL), "float[2,4,3,8]");
  MISMATCH(op_run(t, "", "RotaryEmbedding", 23, x, "float[50,4]", "float[50,4]", NULL));
  op_attr_int(t, "rotary_embedding_dim", 4);
  CHECK_STR(op_run(t, "", "RotaryEmbedding", 23, x, "float[50,2]", "float[50,2]", "int64[2,3]", NULL), "float[2,4,3,8]");
  op_attr_int(t, "rotary_embedding_dim", 16);
  MISMATCH(op_run(t, "", "RotaryEmbedding", 23, x, "float[50,8]", "float[50,8]", "int64[2,3]", NULL));
  op_attr_int(t, "num_heads", 4);
  CHECK_STR(op_run(t, "", "RotaryEmbedding", 23, "float[2,3,32]", "float[50,4]", "float[50,4]", "int64[2,3]", NULL),
            "float[2,3,32]");
  op_attr_int(t, "num_heads", 4);
  MISMATCH(op_run(t, "", "RotaryEmbedding", 23, "float[2,3,33]", "float[50,4]", "float[50,4]", "int64[2,3]", NULL));
  INVALID(op_run(t, "", "RotaryEmbedding", 23, "float[2,3,32]", "float[50,4]", "float[50,4]", "int64[2,3]", NULL));
}

static void test_rms_layer_norm(OpTest *t) {
  CHECK_STR(op_run(t, "", "LayerNormalization", 17, "float[B,S,64]", "float[64]", "float[64]", NULL), "float[B,S,64]");
  MISMATCH(op_run(t, "", "LayerNormalization", 17, "float[B,S,64]", "float[65]", NULL));
  MISMATCH(op_run(t, "", "LayerNormalization", 17, "float[B,S,64]", "float[64]", "float[32]", NULL));
  op_attr_int(t, "axis", 1);
  CHECK_STR(op_run(t, "", "LayerNormalization", 17, "float[2,4,8]", "float[4,8]", NULL), "float[2,4,8]");
  op_attr_int(t, "axis", 0);
  MISMATCH(op_run(t, "", "LayerNormalization", 17, "float[4,4]", "float[3,4]", NULL));
  CHECK_STR(op_run(t, "", "LayerNormalization", 17, "float[B,S,H]", "float[768]", NULL), "float[B,S,H]");
  CHECK_STR(op_requirements(t), "H == 768");
  CHECK_STR(op_run(t, "", "RMSNormalization", 23, "float[B,S,64]", "float[64]", NULL), "float[B,S,64]");
  MISMATCH(op_run(t, "", "RMSNormalization", 23, "float[B,S,64]", "float[63]", NULL));
}

static void test_channel_norms(OpTest *t) {
  CHECK_STR(op_run(t, "", "BatchNormalization", 15, "float[N,3,H,W]", "float[3]", "float[3]", "float[3]", "float[3]", NULL),
            "float[N,3,H,W]");
  MISMATCH(op_run(t, "", "BatchNormalization", 15, "float[N,3,H,W]", "float[3]", "float[4]", "float[3]", "float[3]", NULL));
  MISMATCH(op_run(t, "", "BatchNormalization", 15, "float[N,3,H,W]", "float[1,3]", "float[3]", "float[3]", "float[3]", NULL));
  /* Before opset 9, spatial=0 gives per-element statistics. */
  op_attr_int(t, "spatial", 0);
  CHECK_STR(op_run(t, "", "BatchNormalization", 7, "float[N,3,4]", "float[3,4]", "float[3,4]", "float[3,4]", "float[3,4]", NULL),
            "float[N,3,4]");
  CHECK_STR(op_run(t, "", "InstanceNormalization", 6, "float[N,3,H]", "float[3]", "float[3]", NULL), "float[N,3,H]");
  MISMATCH(op_run(t, "", "InstanceNormalization", 6, "float[N,3,H]", "float[4]", "float[3]", NULL));
  op_attr_int(t, "num_groups", 2);
  CHECK_STR(op_run(t, "", "GroupNormalization", 21, "float[N,4,H]", "float[4]", "float[4]", NULL), "float[N,4,H]");
  op_attr_int(t, "num_groups", 2);
  MISMATCH(op_run(t, "", "GroupNormalization", 21, "float[N,5,H]", "float[5]", "float[5]", NULL));
  op_attr_int(t, "num_groups", 2);
  CHECK_STR(op_run(t, "", "GroupNormalization", 18, "float[N,4,H]", "float[2]", "float[2]", NULL), "float[N,4,H]");
  op_attr_int(t, "num_groups", 2);
  MISMATCH(op_run(t, "", "GroupNormalization", 18, "float[N,4,H]", "float[4]", "float[4]", NULL));
}

static void test_losses(OpTest *t) {
  op_attr_str(t, "reduction", "none");
  CHECK_STR(op_run(t, "", "NegativeLogLikelihoodLoss", 13, "float[3,5,6]", "int64[3,6]", NULL), "float[3,6]");
  op_attr_str(t, "reduction", "none");
  MISMATCH(op_run(t, "", "NegativeLogLikelihoodLoss", 13, "float[3,5,6]", "int64[3,7]", NULL));
  MISMATCH(op_run(t, "", "NegativeLogLikelihoodLoss", 13, "float[3,5,6]", "int64[4,6]", NULL));
  /* onnxruntime indexes the weight by class; its length is not compared with C. */
  CHECK_STR(op_run(t, "", "NegativeLogLikelihoodLoss", 13, "float[3,5]", "int64[3]", "float[6]", NULL), "float[]");
  MISMATCH(op_run(t, "", "NegativeLogLikelihoodLoss", 13, "float[3,5]", "int64[3]", "float[1,5]", NULL));
  CHECK_STR(op_run(t, "", "SoftmaxCrossEntropyLoss", 13, "float[N,5,D]", "int64[M,D]", NULL), "float[]");
  CHECK_STR(op_requirements(t), "M == N");
}

#define MS "com.microsoft"

static void test_contrib(OpTest *t) {
  op_attr_int(t, "num_heads", 4);
  CHECK_STR(op_run(t, MS, "Attention", 1, "float[B,S,64]", "float[64,192]", "float[192]", NULL), "float[B,S,64]");
  op_attr_int(t, "num_heads", 4);
  MISMATCH(op_run(t, MS, "Attention", 1, "float[B,S,64]", "float[32,192]", "float[192]", NULL));
  op_attr_int(t, "num_heads", 4);
  MISMATCH(op_run(t, MS, "Attention", 1, "float[B,S,64]", "float[64,192]", "float[96]", NULL));
  op_attr_int(t, "num_heads", 4);
  CHECK_STR(op_run(t, MS, "MultiHeadAttention", 1, "float[B,S,64]", "float[B,L,64]", "float[B,L,32]", NULL), "float[B,S,32]");
  op_attr_int(t, "num_heads", 4);
  MISMATCH(op_run(t, MS, "MultiHeadAttention", 1, "float[2,S,64]", "float[3,L,64]", "float[3,L,32]", NULL));
  op_attr_int(t, "num_heads", 4);
  MISMATCH(op_run(t, MS, "MultiHeadAttention", 1, "float[B,S,64]", "float[B,5,64]", "float[B,6,32]", NULL));
  op_attr_int(t, "num_heads", 4);
  MISMATCH(op_run(t, MS, "MultiHeadAttention", 1, "float[B,S,64]", "float[B,L,48]", "float[B,L,32]", NULL));
  op_attr_int(t, "num_heads", 8);
  op_attr_int(t, "kv_num_heads", 2);
  op_set_outputs(t, 3);
  CHECK_STR(op_run(t, MS, "GroupQueryAttention", 1, "float[B,S,128]", "float[B,S,32]", "float[B,S,32]", "", "", "int32[B]",
                   "int32[]", NULL), "float[B,S,128]");
  op_attr_int(t, "num_heads", 8);
  op_attr_int(t, "kv_num_heads", 2);
  MISMATCH(op_run(t, MS, "GroupQueryAttention", 1, "float[B,S,128]", "float[B,S,48]", "float[B,S,48]", "", "", "int32[B]",
                  "int32[]", NULL));
  op_attr_int(t, "num_heads", 8);
  op_attr_int(t, "kv_num_heads", 2);
  MISMATCH(op_run(t, MS, "GroupQueryAttention", 1, "float[B,S,128]", "float[B,S,32]", "float[B,S,16]", "", "", "int32[B]",
                  "int32[]", NULL));
  op_set_outputs(t, 1);
  CHECK_STR(op_run(t, MS, "SkipLayerNormalization", 1, "float[B,S,64]", "float[S,64]", "float[64]", "float[64]", NULL),
            "float[B,S,64]");
  MISMATCH(op_run(t, MS, "SkipLayerNormalization", 1, "float[B,S,64]", "float[B,S,32]", "float[64]", NULL));
  MISMATCH(op_run(t, MS, "SkipLayerNormalization", 1, "float[B,S,64]", "float[B,S,64]", "float[65]", NULL));
  CHECK_STR(op_run(t, MS, "BiasGelu", 1, "float[B,S,64]", "float[64]", NULL), "float[B,S,64]");
  MISMATCH(op_run(t, MS, "BiasGelu", 1, "float[B,S,64]", "float[32]", NULL));
  MISMATCH(op_run(t, MS, "BiasAdd", 1, "float[2,9,64]", "float[64]", "float[2,9,32]", NULL));
  CHECK_STR(op_run(t, MS, "FastGelu", 1, "float[B,S,H]", "float[64]", NULL), "float[B,S,H]");
  CHECK_STR(op_requirements(t), "H == 64");
}

int main(void) {
  OpTest *t = op_test_new();
  test_contrib(t);
  test_attention_4d(t);
  test_attention_3d(t);
  test_rotary(t);
  test_rms_layer_norm(t);
  test_channel_norms(t);
  test_losses(t);
  op_test_free(t);
  TEST_MAIN_END();
}
