/* Shape rules of the com.microsoft attention family (ContribOperators.md)
 * with symbolic inputs: B batch, S sequence, L kv sequence, P past length,
 * M max (shared buffer) length, T total / token count. */
#include "op_harness.h"
#include "test.h"

#define MS "com.microsoft"
#define IS_ERR(text, code) (!strncmp((text), "error:" code, strlen("error:" code)))

static void test_attention(OpTest *t) {
  /* Merged weights [Din, 3 * hidden]: output [B, S, hidden]; present grows by S. */
  op_set_outputs(t, 2);
  op_attr_int(t, "num_heads", 12);
  CHECK_STR(op_run(t, MS, "Attention", 1, "float[B,S,768]", "float[768,2304]", "float[2304]", "int32[B]",
                   "float[2,B,12,P,64]", NULL),
            "float[B,S,768]");
  CHECK_STR(op_out(t, 1), "float[2,B,12,P+S,64]");
  /* No past: present holds the current sequence only. */
  op_set_outputs(t, 2);
  op_attr_int(t, "num_heads", 12);
  CHECK_STR(op_run(t, MS, "Attention", 1, "float16[B,S,768]", "float16[768,2304]", "float16[2304]", NULL),
            "float16[B,S,768]");
  CHECK_STR(op_out(t, 1), "float16[2,B,12,S,64]");
  /* Shared buffer: present is past's [2, B, N, max_sequence_length, H]. */
  op_set_outputs(t, 2);
  op_attr_int(t, "num_heads", 12);
  op_attr_int(t, "past_present_share_buffer", 1);
  CHECK_STR(op_run(t, MS, "Attention", 1, "float[B,1,768]", "float[768,2304]", "float[2304]", "int32[B,M]",
                   "float[2,B,12,M,64]", "", "int32[]", NULL),
            "float[B,1,768]");
  CHECK_STR(op_out(t, 1), "float[2,B,12,M,64]");
  /* qkv_hidden_sizes: V's width differs, so present's head size is open. */
  op_set_outputs(t, 2);
  op_attr_int(t, "num_heads", 12);
  op_attr_ints(t, "qkv_hidden_sizes", 3, (int64_t[]){768, 768, 384});
  CHECK_STR(op_run(t, MS, "Attention", 1, "float[B,S,D]", "float[D,1920]", "float[1920]", NULL), "float[B,S,384]");
  CHECK_STR(op_out(t, 1), "float[2,B,12,S,?]");
  /* Symbolic projection width. */
  op_set_outputs(t, 2);
  op_attr_int(t, "num_heads", 4);
  CHECK_STR(op_run(t, MS, "Attention", 1, "float[B,S,D]", "float[D,W]", "", "", "float[2,B,4,P,?]", NULL),
            "float[B,S,W//3]");
  CHECK_STR(op_out(t, 1), "float[2,B,4,P+S,W//12]");
  /* Unknown input rank still gives the stated 3-D output. */
  op_attr_int(t, "num_heads", 12);
  CHECK_STR(op_run(t, MS, "Attention", 1, "float[*]", "float[768,2304]", "float[2304]", NULL), "float[?,?,768]");
  op_attr_int(t, "num_heads", 12);
  CHECK(IS_ERR(op_run(t, MS, "Attention", 1, "float[B,768]", "float[768,2304]", "float[2304]", NULL),
               "SHAPE_MISMATCH"));
  op_attr_int(t, "num_heads", 12);
  CHECK(IS_ERR(op_run(t, MS, "Attention", 1, "float[B,S,768]", "float[768,2000]", "float[2000]", NULL),
               "SHAPE_MISMATCH"));
  op_attr_int(t, "num_heads", 12);
  op_attr_ints(t, "qkv_hidden_sizes", 2, (int64_t[]){768, 768});
  CHECK(IS_ERR(op_run(t, MS, "Attention", 1, "float[B,S,768]", "float[768,2304]", "float[2304]", NULL),
               "INVALID_MODEL"));
  op_set_outputs(t, 2);
  op_attr_int(t, "num_heads", 12);
  CHECK(IS_ERR(op_run(t, MS, "Attention", 1, "float[B,S,768]", "float[768,2304]", "float[2304]", "",
                      "float[B,12,P,64]", NULL),
               "SHAPE_MISMATCH"));
}

static void test_decoder_self_and_qattention(OpTest *t) {
  op_set_outputs(t, 2);
  op_attr_int(t, "num_heads", 12);
  CHECK_STR(op_run(t, MS, "DecoderMaskedSelfAttention", 1, "float16[B,1,768]", "float16[768,2304]",
                   "float16[2304]", "int32[B,P+1]", "float16[2,B,12,P,64]", "", "int32[1]", NULL),
            "float16[B,1,768]");
  CHECK_STR(op_out(t, 1), "float16[2,B,12,P+1,64]");
  op_set_outputs(t, 2);
  op_attr_int(t, "num_heads", 12);
  op_attr_int(t, "past_present_share_buffer", 1);
  op_run(t, MS, "DecoderMaskedSelfAttention", 1, "float16[B,1,768]", "float16[768,2304]", "float16[2304]", "",
         "float16[2,B,12,M,64]", "", "int32[1]", NULL);
  CHECK_STR(op_out(t, 1), "float16[2,B,12,M,64]");
  /* QAttention: quantized input and weights, float output (bias's type), past at 8. */
  op_set_outputs(t, 2);
  op_attr_int(t, "num_heads", 12);
  CHECK_STR(op_run(t, MS, "QAttention", 1, "uint8[B,S,768]", "int8[768,2304]", "float[2304]", "float[]",
                   "float[]", "int32[B]", "uint8[]", "int8[]", "float[2,B,12,P,64]", NULL),
            "float[B,S,768]");
  CHECK_STR(op_out(t, 1), "float[2,B,12,P+S,64]");
  op_set_outputs(t, 2);
  op_attr_int(t, "num_heads", 8);
  CHECK_STR(op_run(t, MS, "QAttention", 1, "uint8[B,S,D]", "uint8[D,1536]", "float16[1536]", "float16[]",
                   "float16[]", NULL),
            "float16[B,S,512]");
  CHECK_STR(op_out(t, 1), "float16[2,B,8,S,64]");
}

static void test_multi_head_attention(OpTest *t) {
  /* Separate Q, K, V (BSNH) with a past cache: present = past + L. */
  op_set_outputs(t, 4);
  op_attr_int(t, "num_heads", 12);
  CHECK_STR(op_run(t, MS, "MultiHeadAttention", 1, "float[B,S,768]", "float[B,L,768]", "float[B,L,384]", "",
                   "", "", "float[B,12,P,64]", "float[B,12,P,32]", NULL),
            "float[B,S,384]");
  CHECK_STR(op_out(t, 1), "float[B,12,L+P,64]");
  CHECK_STR(op_out(t, 2), "float[B,12,L+P,32]");
  CHECK_STR(op_out(t, 3), "?[B,12,S,L+P]");
  /* Packed QKV [B, L, N, 3, H], no past. */
  op_set_outputs(t, 3);
  op_attr_int(t, "num_heads", 12);
  CHECK_STR(op_run(t, MS, "MultiHeadAttention", 1, "float16[B,S,12,3,64]", NULL), "float16[B,S,768]");
  CHECK_STR(op_out(t, 1), "float16[B,12,S,64]");
  CHECK_STR(op_out(t, 2), "float16[B,12,S,64]");
  /* Packed KV [B, L, N, 2, H]. */
  op_set_outputs(t, 3);
  op_attr_int(t, "num_heads", 12);
  CHECK_STR(op_run(t, MS, "MultiHeadAttention", 1, "float[B,S,768]", "float[B,L,12,2,64]", NULL),
            "float[B,S,768]");
  CHECK_STR(op_out(t, 1), "float[B,12,L,64]");
  /* BNSH key/value (cross attention with cached K/V): present = the cache length. */
  op_set_outputs(t, 4);
  op_attr_int(t, "num_heads", 12);
  CHECK_STR(op_run(t, MS, "MultiHeadAttention", 1, "float[B,S,768]", "float[B,12,L,64]", "float[B,12,L,32]",
                   NULL),
            "float[B,S,384]");
  CHECK_STR(op_out(t, 1), "float[B,12,L,64]");
  CHECK_STR(op_out(t, 2), "float[B,12,L,32]");
  CHECK_STR(op_out(t, 3), "?[B,12,S,L]");
  /* Buffer sharing (past_sequence_length given): present is past's max length. */
  op_set_outputs(t, 4);
  op_attr_int(t, "num_heads", 8);
  CHECK_STR(op_run(t, MS, "MultiHeadAttention", 1, "float[B,S,D]", "float[B,S,D]", "float[B,S,D]", "", "", "",
                   "float[B,8,M,?]", "float[B,8,M,?]", "int32[1]", NULL),
            "float[B,S,D]");
  CHECK_STR(op_out(t, 1), "float[B,8,M,?]");
  CHECK_STR(op_out(t, 3), "?[B,8,S,?]");
  /* Symbolic hidden size: head = D / N. */
  op_set_outputs(t, 3);
  op_attr_int(t, "num_heads", 8);
  op_run(t, MS, "MultiHeadAttention", 1, "float[B,S,D]", "float[B,L,D]", "float[B,L,DV]", NULL);
  CHECK_STR(op_out(t, 1), "float[B,8,L,D//8]");
  CHECK_STR(op_out(t, 2), "float[B,8,L,DV//8]");
  /* Unknown-rank past: the grown length is unknown, the rest still known. */
  op_set_outputs(t, 3);
  op_attr_int(t, "num_heads", 8);
  op_run(t, MS, "MultiHeadAttention", 1, "float[B,S,512]", "float[B,L,512]", "float[B,L,512]", "", "", "",
         "float[*]", "float[*]", NULL);
  CHECK_STR(op_out(t, 1), "float[B,8,?,64]");
  op_attr_int(t, "num_heads", 8);
  CHECK(IS_ERR(op_run(t, MS, "MultiHeadAttention", 1, "float[B,8,S,64]", "float[B,L,512]", "float[B,L,512]",
                      NULL),
               "SHAPE_MISMATCH"));
  op_attr_int(t, "num_heads", 8);
  CHECK(IS_ERR(op_run(t, MS, "MultiHeadAttention", 1, "float[B,S,500]", "float[B,L,500]", "float[B,L,500]",
                      NULL),
               "SHAPE_MISMATCH"));
}

static void test_decoder_masked_mha(OpTest *t) {
  /* Self attention, no sharing: present = P + 1. */
  op_set_outputs(t, 4);
  op_attr_int(t, "num_heads", 12);
  CHECK_STR(op_run(t, MS, "DecoderMaskedMultiHeadAttention", 1, "float16[B,1,768]", "float16[B,1,768]",
                   "float16[B,1,768]", "int32[B,P+1]", "", "float16[B,12,P,64]", "float16[B,12,P,64]", NULL),
            "float16[B,1,768]");
  CHECK_STR(op_out(t, 1), "float16[B,12,P+1,64]");
  CHECK_STR(op_out(t, 3), "?[B,12,1,P+1]");
  /* Shared buffer: present = past [B, N, M, H]; qk's key axis is runtime. */
  op_set_outputs(t, 4);
  op_attr_int(t, "num_heads", 12);
  op_attr_int(t, "past_present_share_buffer", 1);
  op_run(t, MS, "DecoderMaskedMultiHeadAttention", 1, "float16[B,1,768]", "float16[B,1,768]", "float16[B,1,768]",
         "", "", "float16[B,12,M,64]", "float16[B,12,M,64]", "int32[1]", NULL);
  CHECK_STR(op_out(t, 1), "float16[B,12,M,64]");
  CHECK_STR(op_out(t, 2), "float16[B,12,M,64]");
  CHECK_STR(op_out(t, 3), "?[B,12,1,?]");
  op_set_outputs(t, 4);
  op_attr_int(t, "num_heads", 12);
  op_attr_int(t, "past_present_share_buffer", 1);
  op_run(t, MS, "DecoderMaskedMultiHeadAttention", 1, "float16[B,1,768]", "float16[B,1,768]", "float16[B,1,768]",
         "", "", "float16[B,12,M,64]", "float16[B,12,M,64]", "int32[1]{P}", NULL);
  CHECK_STR(op_out(t, 3), "?[B,12,1,P+1]");
  /* Cross attention (key/value are caches [B, N, L, H]). */
  op_set_outputs(t, 4);
  op_attr_int(t, "num_heads", 12);
  CHECK_STR(op_run(t, MS, "DecoderMaskedMultiHeadAttention", 1, "float[B,1,768]", "float[B,12,L,64]",
                   "float[B,12,L,64]", NULL),
            "float[B,1,768]");
  CHECK_STR(op_out(t, 1), "float[B,12,?,64]");
  CHECK_STR(op_out(t, 3), "?[B,12,1,?]");
  /* Packed QKV [B, 1, 2 * H + Hv]: Hv is not recoverable. */
  op_attr_int(t, "num_heads", 12);
  CHECK_STR(op_run(t, MS, "DecoderMaskedMultiHeadAttention", 1, "float[B,1,2304]", NULL), "float[B,1,?]");
  /* ... unless past_value gives the value head size. */
  op_set_outputs(t, 3);
  op_attr_int(t, "num_heads", 12);
  CHECK_STR(op_run(t, MS, "DecoderMaskedMultiHeadAttention", 1, "float[B,1,2304]", "", "", "", "",
                   "float[B,12,P,64]", "float[B,12,P,64]", NULL),
            "float[B,1,768]");
  CHECK_STR(op_out(t, 1), "float[B,12,P+1,64]");
}

static void test_group_query_attention(OpTest *t) {
  /* Separate K/V with past: present = Max(P, total) = P + S for a grown cache. */
  op_set_outputs(t, 4);
  op_attr_int(t, "num_heads", 32);
  op_attr_int(t, "kv_num_heads", 8);
  CHECK_STR(op_run(t, MS, "GroupQueryAttention", 1, "float16[B,S,2048]", "float16[B,S,512]", "float16[B,S,512]",
                   "float16[B,8,P,64]", "float16[B,8,P,64]", "int32[B]", "int32[]{P+S}", NULL),
            "float16[B,S,2048]");
  CHECK_STR(op_out(t, 1), "float16[B,8,P+S,64]");
  CHECK_STR(op_out(t, 2), "float16[B,8,P+S,64]");
  CHECK_STR(op_out(t, 3), "float16[B,32,S,P+S]");
  /* Shared buffer of max length M: present = Max(M, total). */
  op_set_outputs(t, 3);
  op_attr_int(t, "num_heads", 32);
  op_attr_int(t, "kv_num_heads", 8);
  op_run(t, MS, "GroupQueryAttention", 1, "float16[B,S,2048]", "float16[B,S,512]", "float16[B,S,512]",
         "float16[B,8,M,64]", "float16[B,8,M,64]", "int32[B]", "int32[]{T}", NULL);
  CHECK_STR(op_out(t, 1), "float16[B,8,Max(M,T),64]");
  CHECK_STR(op_out(t, 2), "float16[B,8,Max(M,T),64]");
  /* total_sequence_length unknown: the cache length is unknown. */
  op_set_outputs(t, 3);
  op_attr_int(t, "num_heads", 32);
  op_attr_int(t, "kv_num_heads", 8);
  op_run(t, MS, "GroupQueryAttention", 1, "float16[B,S,2048]", "float16[B,S,512]", "float16[B,S,512]",
         "float16[B,8,P,64]", "float16[B,8,P,64]", "int32[B]", "int32[]", NULL);
  CHECK_STR(op_out(t, 1), "float16[B,8,?,64]");
  /* Packed QKV [B, S, (N + 2 * KVN) * H], no past: present = total. */
  op_set_outputs(t, 3);
  op_attr_int(t, "num_heads", 32);
  op_attr_int(t, "kv_num_heads", 8);
  CHECK_STR(op_run(t, MS, "GroupQueryAttention", 1, "bfloat16[B,S,3072]", "", "", "", "", "int32[B]",
                   "int32[]{T}", NULL),
            "bfloat16[B,S,2048]");
  CHECK_STR(op_out(t, 1), "bfloat16[B,8,T,64]");
  op_set_outputs(t, 3);
  op_attr_int(t, "num_heads", 4);
  op_attr_int(t, "kv_num_heads", 2);
  CHECK_STR(op_run(t, MS, "GroupQueryAttention", 1, "float[B,S,D]", "", "", "", "", "int32[B]", "int32[]", NULL),
            "float[B,S,4*(D//8)]");
  CHECK_STR(op_out(t, 1), "float[B,2,?,D//8]");
  /* Windowed cache: present keeps past's capacity C. */
  op_set_outputs(t, 3);
  op_attr_int(t, "num_heads", 32);
  op_attr_int(t, "kv_num_heads", 8);
  op_attr_int(t, "local_window_size", 128);
  op_attr_int(t, "sliding_window_cache", 1);
  op_run(t, MS, "GroupQueryAttention", 1, "float16[1,S,2048]", "float16[1,S,512]", "float16[1,S,512]",
         "float16[1,8,C,64]", "float16[1,8,C,64]", "int32[1]", "int32[]{T}", NULL);
  CHECK_STR(op_out(t, 1), "float16[1,8,C,64]");
  /* Quantized cache: present in past's type; without past, type and width unknown. */
  op_set_outputs(t, 3);
  op_attr_int(t, "num_heads", 32);
  op_attr_int(t, "kv_num_heads", 8);
  op_attr_str(t, "k_quant_type", "PER_TENSOR");
  op_attr_str(t, "v_quant_type", "PER_TENSOR");
  op_run(t, MS, "GroupQueryAttention", 1, "float16[B,S,2048]", "float16[B,S,512]", "float16[B,S,512]",
         "int8[B,8,M,64]", "int8[B,8,M,64]", "int32[B]", "int32[]{T}", NULL);
  CHECK_STR(op_out(t, 1), "int8[B,8,Max(M,T),64]");
  op_set_outputs(t, 3);
  op_attr_int(t, "num_heads", 32);
  op_attr_int(t, "kv_num_heads", 8);
  op_attr_str(t, "k_quant_type", "PER_TENSOR");
  op_run(t, MS, "GroupQueryAttention", 1, "float16[B,S,2048]", "float16[B,S,512]", "float16[B,S,512]", "", "",
         "int32[B]", "int32[]{T}", NULL);
  CHECK_STR(op_out(t, 1), "?[B,8,T,?]");
  CHECK_STR(op_out(t, 2), "float16[B,8,T,64]");
  op_attr_int(t, "num_heads", 32);
  op_attr_int(t, "kv_num_heads", 8);
  CHECK(IS_ERR(op_run(t, MS, "GroupQueryAttention", 1, "float16[B,S,3000]", "", "", "", "", "int32[B]",
                      "int32[]", NULL),
               "SHAPE_MISMATCH"));
}

static void test_sparse_packed_paged(OpTest *t) {
  /* SparseAttention: present_* keep the cache's max length. */
  op_set_outputs(t, 3);
  op_attr_int(t, "num_heads", 32);
  op_attr_int(t, "kv_num_heads", 8);
  op_attr_int(t, "sparse_block_size", 64);
  CHECK_STR(op_run(t, MS, "SparseAttention", 1, "float16[B,S,2048]", "float16[B,S,512]", "float16[B,S,512]",
                   "float16[B,8,M,64]", "float16[B,8,M,64]", "int32[1,K]", "int32[1,Z]", "int32[1]{T}",
                   "int32[B]", NULL),
            "float16[B,S,2048]");
  CHECK_STR(op_out(t, 1), "float16[B,8,M,64]");
  CHECK_STR(op_out(t, 2), "float16[B,8,M,64]");
  /* PackedAttention: [T, Din] -> [T, v_hidden]. */
  op_attr_int(t, "num_heads", 12);
  CHECK_STR(op_run(t, MS, "PackedAttention", 1, "float16[T,768]", "float16[768,2304]", "float16[2304]",
                   "int32[B,S]", "int32[B+1]", NULL),
            "float16[T,768]");
  op_attr_int(t, "num_heads", 12);
  op_attr_ints(t, "qkv_hidden_sizes", 3, (int64_t[]){768, 768, 384});
  CHECK_STR(op_run(t, MS, "PackedAttention", 1, "float[T,D]", "float[D,1920]", "float[1920]", "int32[B,S]",
                   "int32[B+1]", NULL),
            "float[T,384]");
  /* PackedMultiHeadAttention. */
  op_attr_int(t, "num_heads", 12);
  CHECK_STR(op_run(t, MS, "PackedMultiHeadAttention", 1, "float[T,768]", "float[T,768]", "float[T,DV]", "",
                   "int32[B,S]", "int32[B+1]", NULL),
            "float[T,DV]");
  op_attr_int(t, "num_heads", 12);
  CHECK_STR(op_run(t, MS, "PackedMultiHeadAttention", 1, "float16[T,12,3,H]", "", "", "", "int32[B,S]",
                   "int32[B+1]", NULL),
            "float16[T,12*H]");
  /* PagedAttention: caches alias through. */
  op_set_outputs(t, 3);
  op_attr_int(t, "num_heads", 32);
  op_attr_int(t, "kv_num_heads", 8);
  CHECK_STR(op_run(t, MS, "PagedAttention", 1, "float16[T,2048]", "float16[T,512]", "float16[T,512]",
                   "float16[NB,BS,8,64]", "float16[NB,BS,8,64]", "int32[B+1]", "int32[B]", "int32[B,K]", NULL),
            "float16[T,2048]");
  CHECK_STR(op_out(t, 1), "float16[NB,BS,8,64]");
  CHECK_STR(op_out(t, 2), "float16[NB,BS,8,64]");
  op_set_outputs(t, 3);
  op_attr_int(t, "num_heads", 32);
  op_attr_int(t, "kv_num_heads", 8);
  CHECK_STR(op_run(t, MS, "PagedAttention", 1, "bfloat16[T,3072]", "", "", "int8[NB,BS,8,64]", "int8[NB,BS,8,64]",
                   "int32[B+1]", "int32[B]", "int32[B,K]", NULL),
            "bfloat16[T,2048]");
  CHECK_STR(op_out(t, 1), "int8[NB,BS,8,64]");
  op_set_outputs(t, 2);
  op_attr_int(t, "num_heads", 16);
  op_attr_int(t, "kv_num_heads", 1);
  op_attr_str(t, "kv_cache_layout", "LATENT");
  op_attr_int(t, "v_head_size", 512);
  CHECK_STR(op_run(t, MS, "PagedAttention", 1, "float16[T,9216]", "float16[T,576]", "", "float16[NB,BS,1,576]",
                   "", "int32[B+1]", "int32[B]", "int32[B,K]", NULL),
            "float16[T,8192]");
  op_attr_int(t, "num_heads", 16);
  op_attr_int(t, "kv_num_heads", 1);
  op_attr_str(t, "kv_cache_layout", "PAGED");
  CHECK(IS_ERR(op_run(t, MS, "PagedAttention", 1, "float16[T,9216]", NULL), "INVALID_MODEL"));
}

static void test_other_attention(OpTest *t) {
  /* DecoderAttention: [S, B, H] layout; the new cache length is runtime. */
  op_set_outputs(t, 3);
  op_attr_int(t, "num_heads", 12);
  CHECK_STR(op_run(t, MS, "DecoderAttention", 1, "float[S,B,768]", "float[T,B,768]", "float[768,768]",
                   "float[768,1536]", "float[2304]", "bool[B,T]", "float[B,12,P,64]", "float[B,12,P,64]",
                   "bool[]", "bool[]", "bool[]", "bool[]", NULL),
            "float[S,B,768]");
  CHECK_STR(op_out(t, 1), "float[B,12,?,64]");
  CHECK_STR(op_out(t, 2), "float[B,12,?,64]");
  /* LongformerAttention: output like input. */
  CHECK_STR(op_run(t, MS, "LongformerAttention", 1, "float16[B,S,H]", "float16[H,3*H]", "float16[3*H]",
                   "float16[B,S]", "float16[H,3*H]", "float16[3*H]", "int32[B,S]", NULL),
            "float16[B,S,H]");
  CHECK_STR(op_run(t, MS, "QOrderedLongformerAttention", 1, "int8[B,S,H]", NULL), "int8[B,S,H]");
  /* QOrderedAttention: [B, S, hidden] int8. */
  CHECK_STR(op_run(t, MS, "QOrderedAttention", 1, "int8[B,S,768]", "float[]", "float[]", "float[]", "float[]",
                   "int8[768,H]", "int8[768,H]", "int8[768,H]", NULL),
            "int8[B,S,H]");
  /* RelativePositionBias: [1, N, query_length, key_length] from the values. */
  CHECK_STR(op_run(t, MS, "RelativePositionBias", 1, "float[32,12]", "int64[]{S}", "int64[]{L}", NULL),
            "float[1,12,S,L]");
  CHECK_STR(op_run(t, MS, "RelativePositionBias", 1, "float16[32,N]", "int64[]", "int64[]", NULL),
            "float16[1,N,?,?]");
  /* GatedRelativePositionBias: [B, N, S, S]. */
  op_attr_int(t, "num_heads", 12);
  CHECK_STR(op_run(t, MS, "GatedRelativePositionBias", 1, "float[B,S,768]", "float[768]", "float[1,12,S,S]",
                   "float[64,16]", "float[16]", "float[1,12,1,1]", NULL),
            "float[B,12,S,S]");
  op_attr_int(t, "num_heads", 12);
  CHECK_STR(op_run(t, MS, "GatedRelativePositionBias", 1, "float[T,768]", "float[768]", "float[1,12,S,S]",
                   "float[64,16]", "float[16]", "float[1,12,1,1]", "int32[B,S]", NULL),
            "float[B,12,S,S]");
  op_attr_int(t, "num_heads", 12);
  CHECK_STR(op_run(t, MS, "GatedRelativePositionBias", 1, "float[T,768]", NULL), "float[?,12,?,?]");
}

static void test_padding(OpTest *t) {
  /* RemovePadding: total_tokens is data dependent (a fresh symbol). */
  op_set_outputs(t, 4);
  const char *y = op_run(t, MS, "RemovePadding", 1, "float16[B,S,H]", "int32[B]", NULL);
  CHECK(!strncmp(y, "float16[total_tokens", 20));
  CHECK(strstr(y, ",H]") != NULL);
  CHECK(strstr(op_diags(t), "DATA_DEPENDENT") != NULL);
  CHECK_STR(op_out(t, 1), "int32[B,S]");
  CHECK_STR(op_out(t, 2), "int32[B+1]");
  CHECK_STR(op_out(t, 3), "int32[1]");
  CHECK_STR(op_run(t, MS, "RestorePadding", 1, "float[T,H]", "int32[B,S]", NULL), "float[B,S,H]");
  CHECK(IS_ERR(op_run(t, MS, "RestorePadding", 1, "float[B,T,H]", "int32[B,S]", NULL), "SHAPE_MISMATCH"));
}

static void test_recurrent(OpTest *t) {
  /* LinearAttention: output max(Hq, Hkv) * dv; state [B, Hkv, dk, dv]. */
  op_set_outputs(t, 2);
  op_attr_int(t, "q_num_heads", 4);
  op_attr_int(t, "kv_num_heads", 2);
  CHECK_STR(op_run(t, MS, "LinearAttention", 1, "float[B,T,64]", "float[B,T,32]", "float[B,T,48]", NULL),
            "float[B,T,96]");
  CHECK_STR(op_out(t, 1), "float[B,2,16,24]");
  /* Inverse GQA (Hkv > Hq) emits one output per KV head: value's width. */
  op_set_outputs(t, 2);
  op_attr_int(t, "q_num_heads", 2);
  op_attr_int(t, "kv_num_heads", 4);
  CHECK_STR(op_run(t, MS, "LinearAttention", 1, "float16[B,T,Q]", "float16[B,T,K]", "float16[B,T,V]", NULL),
            "float16[B,T,V]");
  CHECK_STR(op_out(t, 1), "float16[B,4,Q//2,V//4]");
  /* State window W leads the state; past_state gives type and shape. */
  op_set_outputs(t, 2);
  op_attr_int(t, "q_num_heads", 4);
  op_attr_int(t, "kv_num_heads", 4);
  op_attr_int(t, "state_window", 3);
  op_run(t, MS, "LinearAttention", 1, "float16[B,T,64]", "float16[B,T,64]", "float16[B,T,64]", NULL);
  CHECK_STR(op_out(t, 1), "float16[3,B,4,16,16]");
  op_set_outputs(t, 2);
  op_attr_int(t, "q_num_heads", 4);
  op_attr_int(t, "kv_num_heads", 4);
  op_run(t, MS, "LinearAttention", 1, "float16[B,T,64]", "float16[B,T,64]", "float16[B,T,64]",
         "float[B,4,16,16]", NULL);
  CHECK_STR(op_out(t, 1), "float[B,4,16,16]");
  op_attr_int(t, "q_num_heads", 4);
  CHECK(IS_ERR(op_run(t, MS, "LinearAttention", 1, "float[B,T,64]", "float[B,T,64]", "float[B,T,64]", NULL),
               "INVALID_MODEL"));
  /* CausalConvWithState: state [B, C, (k - 1) * dilation]. */
  op_set_outputs(t, 2);
  CHECK_STR(op_run(t, MS, "CausalConvWithState", 1, "float[B,C,L]", "float[C,1,4]", "float[C]", "float[B,C,3]",
                   NULL),
            "float[B,C,L]");
  CHECK_STR(op_out(t, 1), "float[B,C,3]");
  op_set_outputs(t, 2);
  op_attr_int(t, "dilation", 2);
  op_run(t, MS, "CausalConvWithState", 1, "float[B,C,L]", "float[C,1,K]", NULL);
  CHECK_STR(op_out(t, 1), "float[B,C,2*K-2]");
  op_set_outputs(t, 2);
  op_attr_int(t, "channels_last", 1);
  op_attr_int(t, "state_window", 2);
  op_run(t, MS, "CausalConvWithState", 1, "float16[B,L,HC,D]", "float16[C,1,4]", NULL);
  CHECK_STR(op_out(t, 1), "float16[2,B,3,HC,D]");
  op_set_outputs(t, 2);
  op_attr_int(t, "ndim", 2);
  op_run(t, MS, "CausalConvWithState", 1, "float[B,C,H,W]", "float[C,1,3,3]", NULL);
  CHECK_STR(op_out(t, 1), "float[*]");
  op_attr_int(t, "channels_last", 1);
  op_attr_int(t, "ndim", 2);
  CHECK(IS_ERR(op_run(t, MS, "CausalConvWithState", 1, "float[B,C,H,W]", "float[C,1,3,3]", NULL), "INVALID_MODEL"));
  /* VarlenCausalConvWithState: batch from cumulative_sequence_length. */
  op_set_outputs(t, 3);
  op_attr_int(t, "state_update_capacity", 2);
  CHECK_STR(op_run(t, MS, "VarlenCausalConvWithState", 1, "float[T,C]", "float[C,1,4]", "int32[B+1]", "",
                   "float[*]", "int32[B]", NULL),
            "float[T,C]");
  CHECK_STR(op_out(t, 1), "float[B,C,3]");
  CHECK_STR(op_out(t, 2), "float[B,2,C]");
  /* GatedDeltaNet: output [T, Max(Hq, Hv), Dv]; float state [B, Hv, Dv, Dqk]. */
  op_set_outputs(t, 3);
  op_attr_int(t, "state_update_capacity", 2);
  CHECK_STR(op_run(t, MS, "GatedDeltaNet", 1, "float16[T,HQ,DK]", "float16[T,HQ,DK]", "float16[T,HV,DV]",
                   "int32[B+1]", NULL),
            "float16[T,Max(HQ,HV),DV]");
  CHECK_STR(op_out(t, 1), "float[B,HV,DV,DK]");
  CHECK_STR(op_out(t, 2), "float[B,2*DK*HQ+2*DV*HV+2*HV]");
  op_set_outputs(t, 2);
  CHECK_STR(op_run(t, MS, "GatedDeltaNet", 1, "float[B,S,4,128]", "float[B,S,4,128]", "float[B,S,8,64]", NULL),
            "float[B,S,8,64]");
  CHECK_STR(op_out(t, 1), "float[B,8,64,128]");
  CHECK(IS_ERR(op_run(t, MS, "GatedDeltaNet", 1, "float[T,4,128]", "float[T,4,128]", "float[B,T,8,64]", NULL),
               "SHAPE_MISMATCH"));
}

int main(void) {
  OpTest *t = op_test_new();
  test_attention(t);
  test_decoder_self_and_qattention(t);
  test_multi_head_attention(t);
  test_decoder_masked_mha(t);
  test_group_query_attention(t);
  test_sparse_packed_paged(t);
  test_other_attention(t);
  test_padding(t);
  test_recurrent(t);
  op_test_free(t);
  TEST_MAIN_END();
}
