/* Shape rules of the tensor-manipulation operators, with symbolic inputs. */
#include "op_harness.h"
#include "test.h"

#define IS_ERR(got, code) CHECK(!strncmp((got), "error:" code, strlen("error:" code)))

static void test_pad(OpTest *t) {
  CHECK_STR(op_run(t, "", "Pad", 13, "float[N,C,H,W]", "int64[8]{0,0,1,2,0,0,1,2}", NULL),
            "float[N,C,H+2,W+4]");
  /* Symbolic pads from a shape subgraph; negative pads crop. */
  CHECK_STR(op_run(t, "", "Pad", 13, "float[N,S]", "int64[4]{0,0,0,M-S}", NULL), "float[N,M]");
  CHECK_STR(op_run(t, "", "Pad", 13, "float[N,S]", "int64[4]{0,-1,0,-1}", NULL), "float[N,S-2]");
  CHECK_STR(op_run(t, "", "Pad", 13, "float[N,S]", "int64[4]", NULL), "float[?,?]");
  CHECK_STR(op_run(t, "", "Pad", 13, "float[*]", "int64[4]{1,1,1,1}", NULL), "float[?,?]");
  CHECK_STR(op_run(t, "", "Pad", 13, "float[*]", "int64[4]", NULL), "float[*]");
  IS_ERR(op_run(t, "", "Pad", 13, "float[N,S]", "int64[2]{1,1}", NULL), "INVALID_MODEL");
  /* Opset 18 axes (negative too); a missing constant_value is fine. */
  CHECK_STR(op_run(t, "", "Pad", 18, "float[N,C,H,W]", "int64[4]{1,0,1,3}", "", "int64[2]{-1,1}", NULL),
            "float[N,C+3,H,W+2]");
  CHECK_STR(op_run(t, "", "Pad", 18, "float[N,C,H,W]", "int64[4]{1,0,1,3}", "", "int64[2]", NULL),
            "float[?,?,?,?]");
  IS_ERR(op_run(t, "", "Pad", 18, "float[N,C]", "int64[2]{1,1}", "", "int64[1]{2}", NULL), "INVALID_MODEL");
  IS_ERR(op_run(t, "", "Pad", 18, "float[N,C]", "int64[4]{1,1,1,1}", "", "int64[2]{1,-1}", NULL),
         "INVALID_MODEL");
  /* Attribute forms: `pads` (opset 2-10) and `paddings` (opset 1). */
  op_attr_ints(t, "pads", 4, (int64_t[]){0, 1, 0, 2});
  CHECK_STR(op_run(t, "", "Pad", 2, "float[N,W]", NULL), "float[N,W+3]");
  op_attr_ints(t, "paddings", 4, (int64_t[]){1, 0, 1, 0});
  CHECK_STR(op_run(t, "", "Pad", 1, "float[N,W]", NULL), "float[N+2,W]");
  /* A zero-size dim pads like any other. */
  CHECK_STR(op_run(t, "", "Pad", 13, "float[0,W]", "int64[4]{1,0,1,0}", NULL), "float[2,W]");
  /* Value as shape: padding a shape vector. */
  CHECK_STR(op_run(t, "", "Pad", 13, "int64[2]{N,C}", "int64[2]{1,1}", "int64[]{1}", NULL),
            "int64[4]{1,N,C,1}");
  CHECK_STR(op_run(t, "", "Pad", 13, "int64[2]{N,C}", "int64[2]{0,2}", NULL), "int64[4]{N,C,0,0}");
  op_attr_str(t, "mode", "edge");
  CHECK_STR(op_run(t, "", "Pad", 13, "int64[2]{N,C}", "int64[2]{1,1}", NULL), "int64[4]{N,N,C,C}");
  op_attr_str(t, "mode", "reflect");
  CHECK_STR(op_run(t, "", "Pad", 13, "int64[2]{N,C}", "int64[2]{1,1}", NULL), "int64[4]{C,N,C,N}");
  /* onnxruntime reflects at most dim - 1 on a side (it runs T = 4 with pads 3 and 2, not 3) and
   * repeats an edge only of a nonempty axis: on a symbolic axis, requirements. */
  op_attr_str(t, "mode", "reflect");
  CHECK_STR(op_run(t, "", "Pad", 13, "float[N,T]", "int64[4]{0,3,0,2}", NULL), "float[N,T+5]");
  CHECK_STR(op_requirements(t), "4 <= T");
  CHECK(op_requirements_hold(t, "T", 4) && !op_requirements_hold(t, "T", 3));
  op_attr_str(t, "mode", "edge");
  CHECK_STR(op_run(t, "", "Pad", 13, "float[N,T]", "int64[4]{0,3,0,2}", NULL), "float[N,T+5]");
  CHECK_STR(op_requirements(t), "1 <= T");
  op_attr_str(t, "mode", "reflect");
  CHECK_STR(op_run(t, "", "Pad", 13, "float[N,T]", "int64[4]{0,0,0,0}", NULL), "float[N,T]");
  CHECK_STR(op_requirements(t), "");
  op_attr_str(t, "mode", "reflect");
  CHECK_STR(op_run(t, "", "Pad", 13, "float[N,T]", "int64[4]{0,1,0,1}", NULL), "float[N,T+2]");
  CHECK_STR(op_requirements(t), "2 <= T");
  CHECK_STR(op_run(t, "", "Pad", 13, "float[N,T]", "int64[4]{0,3,0,2}", NULL), "float[N,T+5]"); /* constant */
  CHECK_STR(op_requirements(t), "");
}

static void test_tile(OpTest *t) {
  CHECK_STR(op_run(t, "", "Tile", 13, "float[N,C]", "int64[2]{3,1}", NULL), "float[3*N,C]");
  CHECK_STR(op_run(t, "", "Tile", 13, "float[N,C]", "int64[2]{R,2}", NULL), "float[N*R,2*C]");
  CHECK_STR(op_run(t, "", "Tile", 13, "float[N,C]", "int64[2]", NULL), "float[?,?]");
  CHECK_STR(op_run(t, "", "Tile", 13, "float[*]", "int64[3]", NULL), "float[?,?,?]");
  CHECK_STR(op_run(t, "", "Tile", 13, "float[*]", "int64[2]{2,0}", NULL), "float[?,0]");
  IS_ERR(op_run(t, "", "Tile", 13, "float[N,C]", "int64[1]{2}", NULL), "INVALID_MODEL");
  CHECK_STR(op_run(t, "", "Tile", 13, "int64[2]{N,C}", "int64[1]{2}", NULL), "int64[4]{N,C,N,C}");
  /* Opset 1: scalar tiles and axis inputs. */
  CHECK_STR(op_run(t, "", "Tile", 1, "float[N,C]", "float[]{3}", "float[]{1}", NULL), "float[N,3*C]");
  CHECK_STR(op_run(t, "", "Tile", 1, "float[N,C]", "float[]{3}", "float[]", NULL), "float[?,?]");
}

static void test_split(OpTest *t) {
  op_set_outputs(t, 2);
  op_attr_int(t, "axis", 1);
  CHECK_STR(op_run(t, "", "Split", 13, "float[N,2*H]", "", NULL), "float[N,H]");
  CHECK_STR(op_out(t, 1), "float[N,H]");
  op_set_outputs(t, 2);
  op_attr_int(t, "axis", -1);
  CHECK_STR(op_run(t, "", "Split", 13, "float[N,S]", "int64[2]{A,S-A}", NULL), "float[N,A]");
  CHECK_STR(op_out(t, 1), "float[N,S-A]");
  op_set_outputs(t, 3);
  op_attr_int(t, "axis", 1);
  CHECK_STR(op_run(t, "", "Split", 13, "float[N,S]", "int64[3]", NULL), "float[N,?]");
  CHECK_STR(op_out(t, 2), "float[N,?]");
  /* Opset 18 num_outputs: CeilDiv chunks, the last gets the rest. */
  op_set_outputs(t, 3);
  op_attr_int(t, "num_outputs", 3);
  CHECK_STR(op_run(t, "", "Split", 18, "float[7,C]", NULL), "float[3,C]");
  CHECK_STR(op_out(t, 1), "float[3,C]");
  CHECK_STR(op_out(t, 2), "float[1,C]");
  op_set_outputs(t, 2);
  op_attr_int(t, "num_outputs", 2);
  CHECK_STR(op_run(t, "", "Split", 18, "float[D]", NULL), "float[(D+1)//2]");
  CHECK_STR(op_out(t, 1), "float[D//2]");
  op_set_outputs(t, 3);
  op_attr_int(t, "num_outputs", 2);
  IS_ERR(op_run(t, "", "Split", 18, "float[D]", NULL), "INVALID_MODEL");
  /* Opset < 13: `split` attribute. */
  op_set_outputs(t, 2);
  op_attr_ints(t, "split", 2, (int64_t[]){1, 3});
  CHECK_STR(op_run(t, "", "Split", 11, "float[4,N]", NULL), "float[1,N]");
  CHECK_STR(op_out(t, 1), "float[3,N]");
  /* Opset 1 also took the sizes as input 1; opset 2-12 ignore it. */
  op_set_outputs(t, 2);
  op_attr_int(t, "axis", 1);
  CHECK_STR(op_run(t, "", "Split", 1, "float[N,4]", "int64[2]{1,3}", NULL), "float[N,1]");
  CHECK_STR(op_out(t, 1), "float[N,3]");
  op_set_outputs(t, 2);
  op_attr_int(t, "axis", 1);
  CHECK_STR(op_run(t, "", "Split", 2, "float[N,4]", "int64[2]{1,3}", NULL), "float[N,2]");
  op_set_outputs(t, 2);
  IS_ERR(op_run(t, "", "Split", 13, "float[4,N]", "int64[2]{1,2}", NULL), "SHAPE_MISMATCH");
  op_set_outputs(t, 2);
  IS_ERR(op_run(t, "", "Split", 13, "float[5]", NULL), "SHAPE_MISMATCH");
  op_set_outputs(t, 2);
  IS_ERR(op_run(t, "", "Split", 13, "float[N]", "int64[3]{1,1,N}", NULL), "INVALID_MODEL");
  /* Zero-size pieces; unknown rank. */
  op_set_outputs(t, 2);
  CHECK_STR(op_run(t, "", "Split", 13, "float[N]", "int64[2]{0,N}", NULL), "float[0]");
  CHECK_STR(op_out(t, 1), "float[N]");
  op_set_outputs(t, 2);
  CHECK_STR(op_run(t, "", "Split", 13, "float[*]", "int64[2]{1,1}", NULL), "float[*]");
  /* Value as shape: splitting a shape vector. */
  op_set_outputs(t, 2);
  CHECK_STR(op_run(t, "", "Split", 13, "int64[3]{N,C,H}", "int64[2]{1,2}", NULL), "int64[1]{N}");
  CHECK_STR(op_out(t, 1), "int64[2]{C,H}");
}

static void test_range(OpTest *t) {
  CHECK_STR(op_run(t, "", "Range", 11, "int64[]{0}", "int64[]{N}", "int64[]{1}", NULL), "int64[N]");
  CHECK_STR(op_run(t, "", "Range", 11, "int64[]{S}", "int64[]{N}", "int64[]{2}", NULL),
            "int64[Max((N-S+1)//2,0)]");
  CHECK_STR(op_run(t, "", "Range", 11, "int64[]{N}", "int64[]{0}", "int64[]{-1}", NULL), "int64[N]");
  /* A step that is a size is positive wherever the model runs (0 is an
   * error): EmbeddingBag's offsets Range(0, B*S, S) have B elements. */
  CHECK_STR(op_run(t, "", "Range", 11, "int64[]{0}", "int64[]{N}", "int64[]{D}", NULL), "int64[CeilDiv(N,D)]");
  CHECK_STR(op_run(t, "", "Range", 11, "int64[]{0}", "int64[]{B*S}", "int64[]{S}", NULL), "int64[B]");
  /* A step of unknown sign stays unknown. */
  CHECK_STR(op_run(t, "", "Range", 11, "int64[]{0}", "int64[]{N}", "int64[]{D-3}", NULL), "int64[?]");
  CHECK_STR(op_run(t, "", "Range", 11, "int64[]{N}", "int64[]{N+3}", "int64[]{1}", NULL),
            "int64[3]{N,N+1,N+2}");
  CHECK_STR(op_run(t, "", "Range", 11, "int32[]{10}", "int32[]{4}", "int32[]{-3}", NULL), "int32[2]{10,7}");
  CHECK_STR(op_run(t, "", "Range", 11, "int64[]{5}", "int64[]{1}", "int64[]{1}", NULL), "int64[0]{}");
  CHECK_STR(op_run(t, "", "Range", 11, "float[]{1}", "float[]{5}", "float[]{2}", NULL), "float[2]{1,3}");
  CHECK_STR(op_run(t, "", "Range", 11, "float[]{0}", "float[]{1}", "float[]{0.3}", NULL), "float[4]");
  CHECK_STR(op_run(t, "", "Range", 11, "float[]", "float[]{5}", "float[]{2}", NULL), "float[?]");
  IS_ERR(op_run(t, "", "Range", 11, "int64[]{0}", "int64[]{N}", "int64[]{0}", NULL), "INVALID_MODEL");
}

static void test_one_hot(OpTest *t) {
  CHECK_STR(op_run(t, "", "OneHot", 11, "int64[B,S]", "int64[]{V}", "float[2]", NULL), "float[B,S,V]");
  op_attr_int(t, "axis", 1);
  CHECK_STR(op_run(t, "", "OneHot", 11, "int64[B,S]", "float[1]{10}", "int32[2]", NULL), "int32[B,10,S]");
  op_attr_int(t, "axis", -3);
  CHECK_STR(op_run(t, "", "OneHot", 11, "int64[B,S]", "int64[1]", "float[2]", NULL), "float[?,B,S]");
  op_attr_int(t, "axis", 3);
  IS_ERR(op_run(t, "", "OneHot", 11, "int64[B,S]", "int64[]{4}", "float[2]", NULL), "INVALID_MODEL");
  CHECK_STR(op_run(t, "", "OneHot", 11, "int64[*]", "int64[]{4}", "float[2]", NULL), "float[*]");
}

static void test_top_k(OpTest *t) {
  op_set_outputs(t, 2);
  CHECK_STR(op_run(t, "", "TopK", 11, "float[N,V]", "int64[1]{5}", NULL), "float[N,5]");
  CHECK_STR(op_out(t, 1), "int64[N,5]");
  op_set_outputs(t, 2);
  op_attr_int(t, "axis", 0);
  CHECK_STR(op_run(t, "", "TopK", 11, "float[N,V]", "int64[1]{K}", NULL), "float[K,V]");
  op_set_outputs(t, 2);
  CHECK_STR(op_run(t, "", "TopK", 11, "float[N,V]", "int64[1]", NULL), "float[N,topk_1]");
  CHECK_STR(op_out(t, 1), "int64[N,topk_1]");
  CHECK(strstr(op_diags(t), "DATA_DEPENDENT") != NULL);
  CHECK(strstr(op_diags(t), "at most V") != NULL);
  op_set_outputs(t, 2);
  IS_ERR(op_run(t, "", "TopK", 11, "float[N,3]", "int64[1]{5}", NULL), "SHAPE_MISMATCH");
  op_set_outputs(t, 2);
  op_attr_int(t, "k", 2);
  CHECK_STR(op_run(t, "", "TopK", 1, "float[N,V]", NULL), "float[N,2]");
  op_set_outputs(t, 2);
  CHECK_STR(op_run(t, "", "TopK", 11, "float[*]", "int64[1]{5}", NULL), "float[*]");
  CHECK_STR(op_out(t, 1), "int64[*]");
}

static void test_same_shape(OpTest *t) {
  CHECK_STR(op_run(t, "", "Trilu", 14, "float[B,N,M]", "int64[]{1}", NULL), "float[B,N,M]");
  CHECK_STR(op_run(t, "", "ReverseSequence", 10, "float[T,B,D]", "int64[B]", NULL), "float[T,B,D]");
  CHECK_STR(op_run(t, "", "CumSum", 14, "int32[N,0]", "int64[]{1}", NULL), "int32[N,0]");
  CHECK_STR(op_run(t, "", "CumProd", 26, "float[*]", "int64[]{0}", NULL), "float[*]");
  CHECK_STR(op_run(t, "", "EyeLike", 22, "int32[N,M]", NULL), "int32[N,M]");
  op_attr_int(t, "dtype", 1);
  CHECK_STR(op_run(t, "", "EyeLike", 22, "int32[N,M]", NULL), "float[N,M]");
  CHECK_STR(op_run(t, "", "EyeLike", 22, "int32[*]", NULL), "int32[?,?]");
  IS_ERR(op_run(t, "", "EyeLike", 22, "int32[N]", NULL), "INVALID_MODEL");
  op_attr_int(t, "to", 6);
  CHECK_STR(op_run(t, "", "BitCast", 26, "float[N,3]", NULL), "int32[N,3]");
  op_attr_int(t, "to", 2);
  CHECK_STR(op_run(t, "", "BitCast", 26, "bool[]", NULL), "uint8[]");
  op_attr_int(t, "to", 7);
  IS_ERR(op_run(t, "", "BitCast", 26, "float[N]", NULL), "INVALID_MODEL");
  op_attr_int(t, "to", 8);
  IS_ERR(op_run(t, "", "BitCast", 26, "uint8[N]", NULL), "INVALID_MODEL");
  CHECK_STR(op_run(t, "", "Det", 11, "float[B,N,N]", NULL), "float[B]");
  CHECK_STR(op_run(t, "", "Det", 11, "float[N,N]", NULL), "float[]");
  IS_ERR(op_run(t, "", "Det", 11, "float[B,2,3]", NULL), "SHAPE_MISMATCH");
  IS_ERR(op_run(t, "", "Det", 11, "float[3]", NULL), "INVALID_MODEL");
}

static void test_blocks(OpTest *t) {
  op_attr_int(t, "blocksize", 2);
  CHECK_STR(op_run(t, "", "DepthToSpace", 13, "float[N,4*C,H,W]", NULL), "float[N,C,2*H,2*W]");
  op_attr_int(t, "blocksize", 2);
  CHECK_STR(op_run(t, "", "DepthToSpace", 13, "float[N,8,H,W]", NULL), "float[N,2,2*H,2*W]");
  op_attr_int(t, "blocksize", 2);
  IS_ERR(op_run(t, "", "DepthToSpace", 13, "float[N,6,H,W]", NULL), "SHAPE_MISMATCH");
  op_attr_int(t, "blocksize", 2);
  CHECK_STR(op_run(t, "", "DepthToSpace", 13, "float[*]", NULL), "float[?,?,?,?]");
  op_attr_int(t, "blocksize", 3);
  CHECK_STR(op_run(t, "", "SpaceToDepth", 13, "float[N,C,3*H,0]", NULL), "float[N,9*C,H,0]");
  op_attr_int(t, "blocksize", 3);
  IS_ERR(op_run(t, "", "SpaceToDepth", 13, "float[N,C,4,3]", NULL), "SHAPE_MISMATCH");
  IS_ERR(op_run(t, "", "SpaceToDepth", 13, "float[N,C,4,4]", NULL), "INVALID_MODEL");
  CHECK_STR(op_run(t, "", "CenterCropPad", 18, "float[N,H,W,3]", "int64[4]{N,S,S,3}", NULL),
            "float[N,S,S,3]");
  op_attr_ints(t, "axes", 2, (int64_t[]){-3, -2});
  CHECK_STR(op_run(t, "", "CenterCropPad", 18, "float[N,H,W,3]", "int64[2]{10,T}", NULL),
            "float[N,10,T,3]");
  op_attr_ints(t, "axes", 2, (int64_t[]){1, 2});
  CHECK_STR(op_run(t, "", "CenterCropPad", 18, "float[N,H,W,3]", "int64[2]", NULL), "float[N,?,?,3]");
  /* One entry for two axes: onnxruntime's function body broadcasts it when the shape comes at run
   * time (its load-time inference refuses it only from an initializer, which the engine does not
   * tell apart from a computed shape); three entries are refused. */
  CHECK_STR(op_run(t, "", "CenterCropPad", 18, "float[N,H]", "int64[1]{2}", NULL), "float[2,2]");
  IS_ERR(op_run(t, "", "CenterCropPad", 18, "float[N,H]", "int64[3]{2,2,2}", NULL), "SHAPE_MISMATCH");
}

/* Fresh symbols are numbered across the whole store (the harness keeps
 * one store for every run), so the suffixes below follow test order. */
static void test_data_dependent(OpTest *t) {
  CHECK_STR(op_run(t, "", "NonZero", 13, "float[N,M]", NULL), "int64[2,nnz_2]");
  CHECK(strstr(op_diags(t), "DATA_DEPENDENT") != NULL);
  CHECK(strstr(op_diags(t), "at most M*N") != NULL);
  CHECK_STR(op_run(t, "", "NonZero", 13, "int64[4]{0,3,0,N}", NULL), "int64[1,nnz_3]");
  CHECK_STR(op_run(t, "", "NonZero", 13, "int64[2,2]{0,3,0,1}", NULL), "int64[2,2]{0,1,1,1}");
  CHECK_STR(op_run(t, "", "NonZero", 13, "float[*]", NULL), "int64[?,nnz_4]");
  CHECK_STR(op_run(t, "", "NonZero", 13, "float[]", NULL), "int64[?,nnz_5]");

  op_attr_int(t, "axis", 1);
  CHECK_STR(op_run(t, "", "Compress", 11, "float[N,C]", "bool[C]", NULL), "float[N,compress_6]");
  CHECK(strstr(op_diags(t), "DATA_DEPENDENT") != NULL);
  op_attr_int(t, "axis", -1);
  CHECK_STR(op_run(t, "", "Compress", 11, "float[N,3]", "bool[4]{1,0,1,1}", NULL), "float[N,2]");
  op_attr_int(t, "axis", 0);
  CHECK_STR(op_run(t, "", "Compress", 11, "float[N,3]", "bool[2]{1,1}", NULL), "float[Min(N,2),3]");
  op_attr_int(t, "axis", 0);
  CHECK_STR(op_run(t, "", "Compress", 11, "float[N,3]", "bool[2]{1,0}", NULL), "float[?,3]");
  CHECK_STR(op_run(t, "", "Compress", 11, "float[2,3]", "bool[3]{1,0,1}", NULL), "float[2]");
  CHECK_STR(op_run(t, "", "Compress", 11, "float[*]", "bool[3]{0,0,0}", NULL), "float[0]");
  op_attr_int(t, "axis", 2);
  IS_ERR(op_run(t, "", "Compress", 11, "float[N,3]", "bool[2]", NULL), "INVALID_MODEL");

  op_set_outputs(t, 4);
  CHECK_STR(op_run(t, "", "Unique", 11, "float[N,M]", NULL), "float[unique_7]");
  CHECK_STR(op_out(t, 1), "int64[unique_7]");
  CHECK_STR(op_out(t, 2), "int64[M*N]");
  CHECK_STR(op_out(t, 3), "int64[unique_7]");
  op_set_outputs(t, 4);
  op_attr_int(t, "axis", -1);
  CHECK_STR(op_run(t, "", "Unique", 11, "float[N,M]", NULL), "float[N,unique_8]");
  CHECK_STR(op_out(t, 2), "int64[M]");
  op_set_outputs(t, 4);
  CHECK_STR(op_run(t, "", "Unique", 11, "int64[4]{3,1,3,N}", NULL), "int64[unique_9]");
  op_set_outputs(t, 4);
  CHECK_STR(op_run(t, "", "Unique", 11, "int64[4]{3,1,3,1}", NULL), "int64[2]");
  op_set_outputs(t, 4);
  CHECK_STR(op_run(t, "", "Unique", 11, "float[3]{1.5,2,1.5}", NULL), "float[2]");
  op_set_outputs(t, 4);
  CHECK_STR(op_run(t, "", "Unique", 11, "float[1,1]", NULL), "float[1]");
  op_set_outputs(t, 4);
  op_attr_int(t, "axis", 0);
  CHECK_STR(op_run(t, "", "Unique", 11, "float[0,M]", NULL), "float[0,M]");
  op_set_outputs(t, 2);
  op_attr_int(t, "axis", 0);
  CHECK_STR(op_run(t, "", "Unique", 11, "float[*]", NULL), "float[*]");
  CHECK_STR(op_out(t, 1), "int64[unique_10]");
}

static void test_einsum(OpTest *t) {
  op_attr_str(t, "equation", "bij,bjk->bik");
  CHECK_STR(op_run(t, "", "Einsum", 12, "float[B,N,K]", "float[B,K,M]", NULL), "float[B,N,M]");
  op_attr_str(t, "equation", "ij,jk");
  CHECK_STR(op_run(t, "", "Einsum", 12, "float[N,K]", "float[K,M]", NULL), "float[N,M]");
  /* Implicit mode sorts by byte: uppercase first. */
  op_attr_str(t, "equation", "ba,Ab");
  CHECK_STR(op_run(t, "", "Einsum", 12, "float[N,K]", "float[M,N]", NULL), "float[M,K]");
  op_attr_str(t, "equation", "...ij,...jk->...ik");
  CHECK_STR(op_run(t, "", "Einsum", 12, "float[B,H,N,K]", "float[H,K,M]", NULL), "float[B,H,N,M]");
  op_attr_str(t, "equation", "...ij,...jk");
  CHECK_STR(op_run(t, "", "Einsum", 12, "float[B,1,N,K]", "float[H,K,M]", NULL), "float[B,H,N,M]");
  op_attr_str(t, "equation", "... i, ... i -> ...");
  CHECK_STR(op_run(t, "", "Einsum", 12, "float[A,N]", "float[B,N]", NULL), "float[Broadcast(A,B)]");
  /* Repeated letters: a constant wins over a symbol, 1 broadcasts. */
  op_attr_str(t, "equation", "ij,jk->ik");
  CHECK_STR(op_run(t, "", "Einsum", 12, "float[N,K]", "float[64,M]", NULL), "float[N,M]");
  op_attr_str(t, "equation", "ij,jk->ijk");
  CHECK_STR(op_run(t, "", "Einsum", 12, "float[N,K]", "float[64,M]", NULL), "float[N,64,M]");
  op_attr_str(t, "equation", "ij,jk->ijk");
  CHECK_STR(op_run(t, "", "Einsum", 12, "float[N,1]", "float[K,M]", NULL), "float[N,K,M]");
  op_attr_str(t, "equation", "ii->i");
  CHECK_STR(op_run(t, "", "Einsum", 12, "float[N,N]", NULL), "float[N]");
  op_attr_str(t, "equation", "ij->");
  CHECK_STR(op_run(t, "", "Einsum", 12, "float[N,M]", NULL), "float[]");
  op_attr_str(t, "equation", "ij,jk->ik");
  IS_ERR(op_run(t, "", "Einsum", 12, "float[N,3]", "float[4,M]", NULL), "SHAPE_MISMATCH");
  op_attr_str(t, "equation", "ij,jk->ik");
  IS_ERR(op_run(t, "", "Einsum", 12, "float[N,K,L]", "float[K,M]", NULL), "INVALID_MODEL");
  op_attr_str(t, "equation", "ij,jk->iz");
  IS_ERR(op_run(t, "", "Einsum", 12, "float[N,K]", "float[K,M]", NULL), "INVALID_MODEL");
  op_attr_str(t, "equation", "ij,jk,kl->il");
  IS_ERR(op_run(t, "", "Einsum", 12, "float[N,K]", "float[K,M]", NULL), "INVALID_MODEL");
  op_attr_str(t, "equation", "ij->ii");
  IS_ERR(op_run(t, "", "Einsum", 12, "float[N,K]", NULL), "INVALID_MODEL");
  /* Unknown ranks: letters still fix the output rank without "...". */
  op_attr_str(t, "equation", "ij,jk->ik");
  CHECK_STR(op_run(t, "", "Einsum", 12, "float[*]", "float[K,M]", NULL), "float[?,M]");
  op_attr_str(t, "equation", "...j,jk->...k");
  CHECK_STR(op_run(t, "", "Einsum", 12, "float[*]", "float[K,M]", NULL), "float[*]");
  op_attr_str(t, "equation", "...j,jk->k");
  CHECK_STR(op_run(t, "", "Einsum", 12, "float[*]", "float[K,M]", NULL), "float[M]");
}

int main(void) {
  OpTest *t = op_test_new();
  test_pad(t);
  test_tile(t);
  test_split(t);
  test_range(t);
  test_one_hot(t);
  test_top_k(t);
  test_same_shape(t);
  test_blocks(t);
  test_data_dependent(t);
  test_einsum(t);
  op_test_free(t);
  TEST_MAIN_END();
}
