/* Shape rules of the com.microsoft normalizations, embeddings, rotary ops,
 * activations and dropouts (ContribOperators.md) with symbolic inputs. */
#include "op_harness.h"
#include "test.h"

#define MS "com.microsoft"
#define IS_ERR(text, code) (!strncmp((text), "error:" code, strlen("error:" code)))

static void test_skip_layer_norm(OpTest *t) {
  /* output, mean, inv_std_var (float, last dim 1), input_skip_bias_sum. */
  op_set_outputs(t, 4);
  CHECK_STR(op_run(t, MS, "SkipLayerNormalization", 1, "float16[B,S,768]", "float16[S,768]", "float16[768]",
                   "float16[768]", "float16[768]", NULL),
            "float16[B,S,768]");
  CHECK_STR(op_out(t, 1), "float[B,S,1]");
  CHECK_STR(op_out(t, 2), "float[B,S,1]");
  CHECK_STR(op_out(t, 3), "float16[B,S,768]");
  op_set_outputs(t, 4);
  CHECK_STR(op_run(t, MS, "SkipSimplifiedLayerNormalization", 1, "bfloat16[T,H]", "bfloat16[T,H]",
                   "bfloat16[H]", NULL),
            "bfloat16[T,H]");
  CHECK_STR(op_out(t, 1), "float[T,1]");
  CHECK_STR(op_out(t, 3), "bfloat16[T,H]");
  op_set_outputs(t, 2);
  CHECK_STR(op_run(t, MS, "SkipLayerNormalization", 1, "float[*]", "float[B,S,H]", "float[H]", NULL), "float[*]");
  CHECK_STR(op_out(t, 1), "float[*]");
  CHECK(IS_ERR(op_run(t, MS, "SkipLayerNormalization", 1, "float[A,B,S,H]", "float[A,B,S,H]", "float[H]", NULL),
               "SHAPE_MISMATCH"));
}

static void test_embed_layer_norm(OpTest *t) {
  op_set_outputs(t, 3);
  CHECK_STR(op_run(t, MS, "EmbedLayerNormalization", 1, "int32[B,S]", "int32[B,S]", "float[V,768]",
                   "float[512,768]", "float[2,768]", "float[768]", "float[768]", "int32[B,S]", NULL),
            "float[B,S,768]");
  CHECK_STR(op_out(t, 1), "int32[B]");
  CHECK_STR(op_out(t, 2), "float[B,S,768]");
  /* Hidden size from gamma when the table's shape is unknown. */
  op_set_outputs(t, 2);
  CHECK_STR(op_run(t, MS, "EmbedLayerNormalization", 1, "int32[B,S]", "", "float16[*]", "float16[P,H]", "",
                   "float16[H]", "float16[H]", NULL),
            "float16[B,S,H]");
  CHECK_STR(op_out(t, 1), "int32[B]");
  CHECK(IS_ERR(op_run(t, MS, "EmbedLayerNormalization", 1, "int32[B]", "", "float[V,8]", "float[P,8]", "",
                      "float[8]", "float[8]", NULL),
               "SHAPE_MISMATCH"));
  op_set_outputs(t, 2);
  CHECK_STR(op_run(t, MS, "QEmbedLayerNormalization", 1, "int32[B,S]", "", "uint8[V,H]", "uint8[P,H]", "",
                   "uint8[H]", "uint8[H]", "", "float[]", "float[]", "", "float[]", "float[]", "uint8[]", "uint8[]",
                   "", "uint8[]", "uint8[]", NULL),
            "float[B,S,H]");
  CHECK_STR(op_out(t, 1), "int32[B]");
}

static void test_group_norms(OpTest *t) {
  op_attr_int(t, "groups", 32);
  op_attr_int(t, "activation", 1);
  CHECK_STR(op_run(t, MS, "GroupNorm", 1, "float16[N,H,W,C]", "float[C]", "float[C]", NULL), "float16[N,H,W,C]");
  op_set_outputs(t, 2);
  op_attr_int(t, "groups", 32);
  op_attr_int(t, "activation", 0);
  CHECK_STR(op_run(t, MS, "SkipGroupNorm", 1, "float[N,H,W,C]", "float[C]", "float[C]", "float[N,1,1,C]",
                   "float[C]", NULL),
            "float[N,H,W,C]");
  CHECK_STR(op_out(t, 1), "float[N,H,W,C]");
  CHECK_STR(op_run(t, MS, "GatedRMSNorm", 1, "bfloat16[B,T,4*C]", "bfloat16[C]", "bfloat16[B,T,4*C]", NULL),
            "bfloat16[B,T,4*C]");
  CHECK_STR(op_run(t, MS, "QOrderedLayerNormalization", 1, "int8[B,S,H]", "float[]", "float16[H]", "float16[H]",
                   "float[]", NULL),
            "int8[B,S,H]");
}

static void test_activations(OpTest *t) {
  CHECK_STR(op_run(t, MS, "Gelu", 1, "float[B,S,H]", NULL), "float[B,S,H]");
  CHECK_STR(op_run(t, MS, "FastGelu", 1, "float16[B,S,H]", "float16[H]", NULL), "float16[B,S,H]");
  CHECK_STR(op_run(t, MS, "BiasGelu", 1, "double[B,S,H]", "double[H]", NULL), "double[B,S,H]");
  op_attr_float(t, "alpha", 1.702);
  CHECK_STR(op_run(t, MS, "QuickGelu", 1, "bfloat16[*]", NULL), "bfloat16[*]");
  CHECK_STR(op_run(t, MS, "QOrderedGelu", 1, "int8[B,S,H]", "float[]", "float[]", NULL), "int8[B,S,H]");
  CHECK_STR(op_run(t, MS, "BiasAdd", 1, "float16[N,S,C]", "float16[C]", "float16[N,S,C]", NULL), "float16[N,S,C]");
  op_attr_int(t, "axis", 3);
  op_attr_int(t, "is_inner_broadcast", 0);
  CHECK_STR(op_run(t, MS, "BiasSoftmax", 1, "float[B,N,S,T]", "float[B,1,S,T]", NULL), "float[B,N,S,T]");
  /* BiasSplitGelu halves the last dim. */
  CHECK_STR(op_run(t, MS, "BiasSplitGelu", 1, "float16[N,S,2560]", "float16[2560]", NULL), "float16[N,S,1280]");
  CHECK_STR(op_run(t, MS, "BiasSplitGelu", 1, "float[N,S,D]", "float[D]", NULL), "float[N,S,D//2]");
  CHECK_STR(op_run(t, MS, "BiasSplitGelu", 1, "float[*]", "float[D]", NULL), "float[?,?,?]");
  CHECK(IS_ERR(op_run(t, MS, "BiasSplitGelu", 1, "float[N,S,5]", "float[5]", NULL), "SHAPE_MISMATCH"));
  CHECK(IS_ERR(op_run(t, MS, "BiasSplitGelu", 1, "float[S,6]", "float[6]", NULL), "SHAPE_MISMATCH"));
}

static void test_dropouts(OpTest *t) {
  op_set_outputs(t, 2);
  CHECK_STR(op_run(t, MS, "BiasDropout", 1, "float16[B,S,H]", "float16[H]", "float16[B,S,H]", "float[]", "bool[]",
                   NULL),
            "float16[B,S,H]");
  CHECK_STR(op_out(t, 1), "bool[B,S,H]");
  /* The bit-packed mask holds one bit per element in uint32 words. */
  op_set_outputs(t, 2);
  CHECK_STR(op_run(t, MS, "BitmaskDropout", 1, "float[2,3,40]", "float[]", "bool[]", NULL), "float[2,3,40]");
  CHECK_STR(op_out(t, 1), "uint32[8]");
  op_set_outputs(t, 2);
  op_run(t, MS, "BitmaskDropout", 1, "float[B,0]", NULL);
  CHECK_STR(op_out(t, 1), "uint32[0]");
  op_set_outputs(t, 2);
  op_run(t, MS, "BitmaskBiasDropout", 1, "float[B,S,H]", "float[H]", NULL);
  CHECK_STR(op_out(t, 1), "uint32[(B*H*S+31)//32]");
  op_set_outputs(t, 2);
  op_run(t, MS, "BitmaskDropout", 1, "float[*]", NULL);
  CHECK_STR(op_out(t, 1), "uint32[?]");
}

static void test_embeddings_and_rotary(OpTest *t) {
  CHECK_STR(op_run(t, MS, "TorchEmbedding", 1, "float[N,M]", "int64[B,S]", NULL), "float[B,S,M]");
  CHECK_STR(op_run(t, MS, "TorchEmbedding", 1, "int32[N,64]", "int64[]", "int64[]", NULL), "int32[64]");
  CHECK_STR(op_run(t, MS, "TorchEmbedding", 1, "float[N,M]", "int64[*]", NULL), "float[*]");
  CHECK(IS_ERR(op_run(t, MS, "TorchEmbedding", 1, "float[N]", "int64[B]", NULL), "SHAPE_MISMATCH"));
  CHECK_STR(op_run(t, MS, "WordConvEmbedding", 1, "int32[S,W]", "float[F,1,K,C]", "float[F]", "float[V,C]", NULL),
            "float[*]");
  CHECK_STR(op_run(t, MS, "RotaryEmbedding", 1, "float16[B,S,H]", "int64[B,S]", "float16[M,D]", "float16[M,D]",
                   NULL),
            "float16[B,S,H]");
  CHECK_STR(op_run(t, MS, "RotaryEmbedding", 1, "float[B,N,S,D]", "int64[1]", "float[M,D//2]", "float[M,D//2]",
                   NULL),
            "float[B,N,S,D]");
  CHECK(IS_ERR(op_run(t, MS, "RotaryEmbedding", 1, "float[S,D]", "int64[1]", "float[M,8]", "float[M,8]", NULL),
               "SHAPE_MISMATCH"));
  op_attr_ints(t, "mrope_section", 3, (int64_t[]){16, 24, 24});
  CHECK_STR(op_run(t, MS, "MRotaryEmbedding", 1, "bfloat16[B,S,H]", "int64[3,B,S]", "bfloat16[M,64]",
                   "bfloat16[M,64]", NULL),
            "bfloat16[B,S,H]");
  op_set_outputs(t, 2);
  CHECK_STR(op_run(t, MS, "GemmaRotaryEmbedding", 1, "float[B,S,D]", "float16[B,N,S,D]", "float16[B,N,S,D]",
                   "float16[B,K,S,D]", "float16[B,K,S,D]", NULL),
            "float16[B,N,S,D]");
  CHECK_STR(op_out(t, 1), "float16[B,K,S,D]");
}

static void test_gates_and_small_ops(OpTest *t) {
  const char *ms = "com.microsoft";
  CHECK_STR(op_run(t, ms, "GatedAdd", 1, "float16[B,S,C]", "float16[B,S,C]", "float16[B,S,1]", NULL),
            "float16[B,S,C]");
  op_set_outputs(t, 2);
  op_run(t, ms, "EngramGate", 1, "float[B,S,4,H]", "float[B,S,4,H]", "float[B,S,H]", "float[4,H]",
         "float[4,H]", "float[4,H]", NULL);
  CHECK_STR(op_out(t, 0), "float[B,S,4,H]");
  CHECK_STR(op_out(t, 1), "float[B,S,4,H]");
  op_set_outputs(t, 2);
  op_run(t, ms, "LinearAttentionGate", 1, "bfloat16[B,T,H]", "float[H]", "float[H]", "bfloat16[B,T,H]", NULL);
  CHECK_STR(op_out(t, 0), "bfloat16[B,T,H]");
  CHECK_STR(op_out(t, 1), "bfloat16[B,T,H]");
  CHECK_STR(op_run(t, ms, "GatherND", 1, "float[N,C,D]", "int64[M,2]", NULL), "float[M,D]");
  /* AttnLSTM: the LSTM outputs, layout 0. */
  op_set_outputs(t, 3);
  op_attr_int(t, "hidden_size", 8);
  op_run(t, ms, "AttnLSTM", 1, "float[S,B,16]", "float[1,32,16]", "float[1,32,8]", NULL);
  CHECK_STR(op_out(t, 0), "float[S,1,B,8]");
  CHECK_STR(op_out(t, 1), "float[1,B,8]");
  CHECK_STR(op_out(t, 2), "float[1,B,8]");
}

int main(void) {
  OpTest *t = op_test_new();
  test_gates_and_small_ops(t);
  test_skip_layer_norm(t);
  test_embed_layer_norm(t);
  test_group_norms(t);
  test_activations(t);
  test_dropouts(t);
  test_embeddings_and_rotary(t);
  op_test_free(t);
  TEST_MAIN_END();
}
