/* Shape rules of the first operator families, with symbolic inputs. */
#include <stdint.h>

#include "op_harness.h"
#include "test.h"

static void test_elementwise(OpTest *t) {
  CHECK_STR(op_run(t, "", "Relu", 14, "float[N,C,H,W]", NULL), "float[N,C,H,W]");
  CHECK_STR(op_run(t, "", "Add", 14, "float[N,1,4]", "float[3,1]", NULL), "float[N,3,4]");
  CHECK_STR(op_run(t, "", "Add", 14, "float[N,4]", "float[M,4]", NULL), "float[Broadcast(M,N),4]");
  CHECK_STR(op_run(t, "", "Add", 14, "float[N,4]", "float[N,1]", NULL), "float[N,4]");
  CHECK_STR(op_run(t, "", "Add", 14, "float[N]", "float[*]", NULL), "float[*]");
  CHECK(!strncmp(op_run(t, "", "Add", 14, "float[3]", "float[4]", NULL), "error:SHAPE_MISMATCH", 20));
  CHECK_STR(op_run(t, "", "Equal", 13, "int64[N]", "int64[N]", NULL), "bool[N]");
  CHECK_STR(op_run(t, "", "Add", 14, "int64[2]{N,C}", "int64[]{1}", NULL), "int64[2]{N+1,C+1}");
  CHECK_STR(op_run(t, "", "Mul", 14, "int64[2]{N,C}", "int64[2]{2,C}", NULL), "int64[2]{2*N,C*C}");
  CHECK_STR(op_run(t, "", "Div", 14, "int64[]{2*N+4}", "int64[]{2}", NULL), "int64[]{N+2}");
  /* Truncating Div of a possibly negative value is not floor division. */
  CHECK_STR(op_run(t, "", "Div", 14, "int64[]{N-5}", "int64[]{2}", NULL), "int64[]");
  CHECK_STR(op_run(t, "", "Neg", 13, "int64[1]{N}", NULL), "int64[1]{-N}");
  /* Small float contents (Range bounds computed in the graph). */
  CHECK_STR(op_run(t, "", "Sub", 14, "float[]{10}", "float[]{1}", NULL), "float[]{9}");
  CHECK_STR(op_run(t, "", "Div", 14, "float[]{10}", "float[]{4}", NULL), "float[]{2.5}");
  CHECK_STR(op_run(t, "", "Ceil", 13, "float[]{2.5}", NULL), "float[]{3}");
  CHECK_STR(op_run(t, "", "Floor", 13, "float[2]{2.5,-0.5}", NULL), "float[2]{2,-1}");
  /* float16 computes in float32, rounded to float16 */
  CHECK_STR(op_run(t, "", "Div", 14, "float16[]{10}", "float16[]{4}", NULL), "float16[]{2.5}");
  CHECK_STR(op_run(t, "", "Div", 14, "float16[]{1}", "float16[]{3}", NULL), "float16[]{0.333252}");
  CHECK_STR(op_run(t, "", "Add", 14, "float16[]{2048}", "float16[]{1}", NULL), "float16[]{2048}");
  CHECK_STR(op_run(t, "", "Add", 14, "bfloat16[]{256}", "bfloat16[]{1}", NULL), "bfloat16[]{256}");
  CHECK_STR(op_run(t, "", "Div", 14, "double[]{1}", "double[]{3}", NULL), "double[]{0.333333}");
  CHECK_STR(op_run(t, "", "Sum", 13, "float[N,1]", "float[1,M]", "float[1]", NULL), "float[N,M]");
  CHECK_STR(op_run(t, "", "Where", 16, "bool[N,1]", "float[1,M]", "float[1]", NULL), "float[N,M]");
  /* Sizes converted to float32 stay symbolic (README "Sizes computed in float"). */
  op_attr_int(t, "to", 1);
  CHECK_STR(op_run(t, "", "Cast", 13, "int64[3]{N,C,4}", NULL), "float[3]{Float(N),Float(C),4}");
  op_attr_int(t, "to", 11); /* double: constants only */
  CHECK_STR(op_run(t, "", "Cast", 13, "int64[3]{N,C,4}", NULL), "double[3]{?,?,4}");
  op_attr_int(t, "to", 6);
  CHECK_STR(op_run(t, "", "Cast", 13, "int64[3]{N,C,4}", NULL), "int32[3]{N,C,4}");
  op_attr_int(t, "to", 1);
  CHECK_STR(op_run(t, "", "Cast", 13, "int64[]{10}", NULL), "float[]{10}");
  op_attr_int(t, "to", 7);
  CHECK_STR(op_run(t, "", "Cast", 13, "float[2]{2.9,-2.9}", NULL), "int64[2]{2,-2}");
  op_attr_int(t, "to", 9);
  CHECK_STR(op_run(t, "", "Cast", 13, "int64[2]{3,0}", NULL), "bool[2]{1,0}");
  op_attr_int(t, "to", 9);
  CHECK_STR(op_run(t, "", "Cast", 13, "int64[1]{N}", NULL), "bool[1]");
  CHECK_STR(op_run(t, "", "Relu", 14, "float[2]{-1.5,2}", NULL), "float[2]{0,2}");
  CHECK_STR(op_run(t, "", "Relu", 14, "int64[2]{N-2,-3}", NULL), "int64[2]{Max(N-2,0),0}");
}

static void test_shape_ops(OpTest *t) {
  CHECK_STR(op_run(t, "", "Shape", 13, "float[N,3,H]", NULL), "int64[3]{N,3,H}");
  op_attr_int(t, "start", 1);
  op_attr_int(t, "end", -1);
  CHECK_STR(op_run(t, "", "Shape", 15, "float[N,3,H]", NULL), "int64[1]{3}");
  CHECK_STR(op_run(t, "", "Size", 13, "float[N,3,H]", NULL), "int64[]{3*H*N}");
  /* Reshape(x[N,3,4], Concat(Shape(x)[0:1], [12])) -> [N, 12]. */
  CHECK_STR(op_run(t, "", "Reshape", 14, "float[N,3,4]", "int64[2]{N,12}", NULL), "float[N,12]");
  CHECK_STR(op_run(t, "", "Reshape", 14, "float[N,3,4]", "int64[2]{0,-1}", NULL), "float[N,12]");
  CHECK_STR(op_run(t, "", "Reshape", 14, "float[B,S,768]", "int64[4]{B,S,12,64}", NULL), "float[B,S,12,64]");
  CHECK_STR(op_run(t, "", "Reshape", 14, "float[B,S,12,64]", "int64[3]{0,0,-1}", NULL), "float[B,S,768]");
  CHECK_STR(op_run(t, "", "Reshape", 14, "float[N,3,4]", "int64[2]", NULL), "float[?,?]");
  CHECK_STR(op_run(t, "", "Reshape", 14, "float[N,0]", "int64[2]{0,-1}", NULL), "float[N,0]");
  op_attr_int(t, "axis", 2);
  CHECK_STR(op_run(t, "", "Flatten", 13, "float[N,C,H,W]", NULL), "float[C*N,H*W]");
  CHECK_STR(op_run(t, "", "Transpose", 13, "float[N,C,H]", NULL), "float[H,C,N]");
  op_attr_ints(t, "perm", 3, (int64_t[]){0, 2, 1});
  CHECK_STR(op_run(t, "", "Transpose", 13, "float[N,C,H]", NULL), "float[N,H,C]");
  CHECK_STR(op_run(t, "", "Unsqueeze", 13, "int64[]{N}", "int64[1]{0}", NULL), "int64[1]{N}");
  CHECK_STR(op_run(t, "", "Unsqueeze", 13, "float[N,C]", "int64[2]{0,-1}", NULL), "float[1,N,C,1]");
  op_attr_ints(t, "axes", 1, (int64_t[]){1});
  CHECK_STR(op_run(t, "", "Unsqueeze", 11, "float[N,C]", NULL), "float[N,1,C]");
  CHECK_STR(op_run(t, "", "Squeeze", 13, "float[N,1,C]", "int64[1]{1}", NULL), "float[N,C]");
  CHECK_STR(op_run(t, "", "Squeeze", 13, "float[N,1,C]", NULL), "float[*]");
  CHECK_STR(op_run(t, "", "Squeeze", 13, "float[2,1,3]", NULL), "float[2,3]");
  op_attr_int(t, "axis", 0);
  CHECK_STR(op_run(t, "", "Concat", 13, "int64[1]{N}", "int64[1]{12}", NULL), "int64[2]{N,12}");
  op_attr_int(t, "axis", 2);
  CHECK_STR(op_run(t, "", "Concat", 13, "float[B,H,past,D]", "float[B,H,seq,D]", NULL),
            "float[B,H,past+seq,D]");
  CHECK_STR(op_run(t, "", "Expand", 13, "float[N,1]", "int64[3]{2,1,M}", NULL), "float[2,N,M]");
  /* Unknown target content of known length: X's dims other than 1 survive. */
  CHECK_STR(op_run(t, "", "Expand", 13, "float[3,1]", "int64[3]", NULL), "float[?,3,?]");
  CHECK_STR(op_run(t, "", "Expand", 13, "float[3,1]", "int64[K]", NULL), "float[*]");
  CHECK_STR(op_run(t, "", "ConstantOfShape", 13, "int64[2]{N,4}", NULL), "float[N,4]");
  op_attr_tensor(t, "value", "int64[1]{1}");
  CHECK_STR(op_run(t, "", "ConstantOfShape", 13, "int64[1]{3}", NULL), "int64[3]{1,1,1}");
  op_attr_tensor(t, "value", "int64[2]{5,6}");
  CHECK_STR(op_run(t, "", "Constant", 13, NULL), "int64[2]{5,6}");
}

static void test_indexing(OpTest *t) {
  /* Shape(x)[1] + 1 chains. */
  CHECK_STR(op_run(t, "", "Gather", 13, "int64[3]{N,C,H}", "int64[]{1}", NULL), "int64[]{C}");
  CHECK_STR(op_run(t, "", "Gather", 13, "int64[3]{N,C,H}", "int64[2]{-1,0}", NULL), "int64[2]{H,N}");
  op_attr_int(t, "axis", 1);
  CHECK_STR(op_run(t, "", "Gather", 13, "float[N,V,D]", "int64[B,S]", NULL), "float[N,B,S,D]");
  CHECK_STR(op_run(t, "", "Slice", 13, "int64[4]{N,C,H,W}", "int64[1]{1}", "int64[1]{3}", NULL),
            "int64[2]{C,H}");
  CHECK_STR(op_run(t, "", "Slice", 13, "int64[4]{N,C,H,W}", "int64[1]{-2}", "int64[1]{9223372036854775807}", NULL),
            "int64[2]{H,W}");
  /* Symbolic dims: clamping must hold for every value, including 0. */
  CHECK_STR(op_run(t, "", "Slice", 13, "float[N,S]", "int64[1]{0}", "int64[1]{9223372036854775807}",
                   "int64[1]{1}", NULL), "float[N,S]");
  CHECK_STR(op_run(t, "", "Slice", 13, "float[S]", "int64[1]{0}", "int64[1]{T}", NULL),
            "float[Min(S,T)]");
  /* An end equal to the dim (of unknown sign as an expression) is the dim. */
  CHECK_STR(op_run(t, "", "Slice", 13, "float[L+K-1]", "int64[1]{L}", "int64[1]{L+K-1}", NULL),
            "float[K+L-Min(L,K+L-1)-1]");
  CHECK_STR(op_run(t, "", "Slice", 13, "float[4]", "int64[1]{-1}", "int64[1]{-9223372036854775807}",
                   "int64[1]{0}", "int64[1]{-1}", NULL), "float[4]");
  CHECK(!strncmp(op_run(t, "", "Slice", 13, "float[4]", "int64[1]{0}", "int64[1]{2}", "int64[1]{0}",
                        "int64[1]{0}", NULL), "error:INVALID_MODEL", 19));
  /* Negative steps as numpy takes them: x[5:-20:-1] of 10 rows is rows 5..0 (the end clamps to
   * -1, before the front, not to 0), x[20::-1] all 10 (the start clamps to the last row). */
  CHECK_STR(op_run(t, "", "Slice", 13, "float[10]", "int64[1]{5}", "int64[1]{-20}", "int64[1]{0}", "int64[1]{-1}", NULL),
            "float[6]");
  CHECK_STR(op_run(t, "", "Slice", 13, "float[10]", "int64[1]{20}", "int64[1]{-9223372036854775807}", "int64[1]{0}",
                   "int64[1]{-1}", NULL), "float[10]");
  CHECK_STR(op_run(t, "", "Slice", 13, "float[10]", "int64[1]{-3}", "int64[1]{-11}", "int64[1]{0}", "int64[1]{-2}", NULL),
            "float[4]");
  /* x[:x.shape[0]-k]: S-1 is negative when S = 0 and then counts from the
   * back (to -1, clamped to 0); Max(S-k, 0) holds for k <= 2 only (S = 2,
   * k = 3 keeps 2*2-3 = 1 element). */
  CHECK_STR(op_run(t, "", "Slice", 13, "float[S,4]", "int64[1]{0}", "int64[1]{S-1}", "int64[1]{0}", NULL),
            "float[Max(S-1,0),4]");
  CHECK_STR(op_run(t, "", "Slice", 13, "float[S]", "int64[1]{S-2}", "int64[1]{S}", NULL), "float[S-Max(S-2,0)]");
  CHECK_STR(op_run(t, "", "Slice", 13, "float[S]", "int64[1]{0}", "int64[1]{S-3}", NULL), "float[?]");
  /* Bounds known only at run time: the axes they name lose their dim, the
   * others keep x's (spec: only axes in `axes` are sliced; without axes,
   * the first len(starts) axes; a scalar bound, which onnxruntime takes,
   * is one entry). Unknown axes: every dim may change. */
  CHECK_STR(op_run(t, "", "Slice", 13, "float[N,S,D]", "int64[1]", "int64[1]", "int64[1]{1}", NULL),
            "float[N,?,D]");
  CHECK_STR(op_run(t, "", "Slice", 13, "float[N,S,D]", "int64[]", "int64[]{5}", "int64[]{-1}", NULL),
            "float[N,S,?]");
  CHECK_STR(op_run(t, "", "Slice", 13, "float[N,S,D]", "int64[2]", "int64[2]", NULL), "float[?,?,D]");
  CHECK_STR(op_run(t, "", "Slice", 13, "float[N,S,D]", "int64[1]{0}", "int64[1]{4}", "int64[1]{1}",
                   "int64[1]", NULL), "float[N,?,D]");
  CHECK_STR(op_run(t, "", "Slice", 13, "float[N,S,D]", "int64[1]", "int64[1]", "int64[1]", NULL), "float[?,?,?]");
  CHECK_STR(op_run(t, "", "Slice", 13, "float[N,S,D]", "int64[K]", "int64[K]", NULL), "float[?,?,?]");
  /* Contents of small matrices follow Slice and Transpose (torch's F.pad
   * reverses and transposes its [rank, 2] pads). */
  CHECK_STR(op_run(t, "", "Slice", 13, "int64[3,2]{1,2,3,4,5,6}", "int64[1]{-1}",
                   "int64[1]{-9223372036854775807}", "int64[1]{0}", "int64[1]{-1}", NULL),
            "int64[3,2]{5,6,3,4,1,2}");
  CHECK_STR(op_run(t, "", "Slice", 13, "int64[3,2]{1,2,3,4,5,6}", "int64[2]{1,1}", "int64[2]{3,2}", NULL),
            "int64[2,1]{4,6}");
  CHECK_STR(op_run(t, "", "Slice", 13, "int64[2,3]{1,2,3,4,5,6}", "int64[1]{0}", "int64[1]{9}",
                   "int64[1]{1}", "int64[1]{2}", NULL), "int64[2,2]{1,3,4,6}");
  CHECK_STR(op_run(t, "", "Slice", 13, "float[2,2]{0.5,1.5,2.5,3.5}", "int64[1]{1}", "int64[1]{2}", NULL),
            "float[1,2]{2.5,3.5}");
  CHECK_STR(op_run(t, "", "Transpose", 13, "int64[3,2]{1,2,3,4,5,6}", NULL), "int64[2,3]{1,3,5,2,4,6}");
  op_attr_ints(t, "perm", 3, (int64_t[]){1, 2, 0});
  CHECK_STR(op_run(t, "", "Transpose", 13, "int64[2,1,3]{1,2,3,4,5,6}", NULL), "int64[1,3,2]{1,4,2,5,3,6}");
  /* A content whose dims are not all known stays unknown. */
  CHECK_STR(op_run(t, "", "Transpose", 13, "int64[N,2]", NULL), "int64[2,N]");
}

static void test_nn(OpTest *t) {
  CHECK_STR(op_run(t, "", "MatMul", 13, "float[B,S,768]", "float[768,3072]", NULL), "float[B,S,3072]");
  CHECK_STR(op_run(t, "", "MatMul", 13, "float[K]", "float[K,M]", NULL), "float[M]");
  CHECK_STR(op_run(t, "", "MatMul", 13, "float[B,H,S,D]", "float[B,H,D,T]", NULL), "float[B,H,S,T]");
  op_attr_int(t, "transB", 1);
  CHECK_STR(op_run(t, "", "Gemm", 13, "float[N,K]", "float[M,K]", "float[M]", NULL), "float[N,M]");
  op_attr_ints(t, "pads", 4, (int64_t[]){1, 1, 1, 1});
  op_attr_ints(t, "strides", 2, (int64_t[]){2, 2});
  /* (H + 2 - 3)//2 + 1 in canonical form. */
  CHECK_STR(op_run(t, "", "Conv", 11, "float[N,3,H,W]", "float[16,3,3,3]", NULL),
            "float[N,16,(H+1)//2,(W+1)//2]");
  op_attr_str(t, "auto_pad", "SAME_UPPER");
  op_attr_ints(t, "strides", 2, (int64_t[]){2, 2});
  /* CeilDiv(H, 2) in canonical form. */
  CHECK_STR(op_run(t, "", "Conv", 11, "float[N,3,H,W]", "float[16,3,3,3]", NULL),
            "float[N,16,(H+1)//2,(W+1)//2]");
  op_attr_ints(t, "kernel_shape", 2, (int64_t[]){3, 3});
  op_attr_ints(t, "strides", 2, (int64_t[]){2, 2});
  op_attr_int(t, "ceil_mode", 1);
  CHECK_STR(op_run(t, "", "MaxPool", 12, "float[1,3,32,32]", NULL), "float[1,3,16,16]");
  /* Symbolic ceil_mode: the last window never starts past the input. */
  op_attr_ints(t, "kernel_shape", 1, (int64_t[]){3});
  op_attr_ints(t, "strides", 1, (int64_t[]){2});
  op_attr_int(t, "ceil_mode", 1);
  CHECK_STR(op_run(t, "", "MaxPool", 12, "float[1,3,H]", NULL), "float[1,3,H//2]"); /* H//2 <= (H+1)//2 */
  op_attr_ints(t, "strides", 2, (int64_t[]){2, 2});
  CHECK_STR(op_run(t, "", "ConvTranspose", 11, "float[N,8,H,W]", "float[8,4,3,3]", NULL),
            "float[N,4,2*H+1,2*W+1]");
  CHECK_STR(op_run(t, "", "GlobalAveragePool", 1, "float[N,C,H,W]", NULL), "float[N,C,1,1]");
}

/* onnxruntime's default-domain normalizations, as exporters emit them. */
static void test_ort_default_domain(OpTest *t) {
  op_set_outputs(t, 2);
  op_run(t, "", "SimplifiedLayerNormalization", 14, "float16[B,S,64]", "float16[64]", NULL);
  CHECK_STR(op_out(t, 0), "float16[B,S,64]");
  CHECK_STR(op_out(t, 1), "float[B,S,1]");
  CHECK_STR(op_run(t, "", "LayerNormalization", 13, "float[B,S,64]", "float[64]", "float[64]", NULL),
            "float[B,S,64]");
}

/* The spec's Slice (step 1): a negative position counts from the back,
 * then both clamp to [0, dim]. */
static int64_t spec_slice_len(int64_t dim, int64_t start, int64_t end) {
  if (start < 0) start += dim;
  if (end < 0) end += dim;
  start = start < 0 ? 0 : start > dim ? dim : start;
  end = end < 0 ? 0 : end > dim ? dim : end;
  return end > start ? end - start : 0;
}

typedef struct { int64_t p, l, s; } PLS;

static int lookup_pls(void *user, const char *name, int64_t *v) {
  const PLS *b = user;
  if (!strcmp(name, "P")) return *v = b->p, 1;
  if (!strcmp(name, "L")) return *v = b->l, 1;
  if (!strcmp(name, "S")) return *v = b->s, 1;
  return 0;
}

/* x[-S:] and x[:-S] with S a size (>= 0, 0 included: -0 is the front), on a
 * dim L and on T5's P+S rows; each length checked against the spec at every
 * binding in [0, 7]^3. */
static void test_slice_from_back(OpTest *t) {
  static const char *cases[][4] = {
      /* data, starts, ends, the start/end the spec sees as a function of the binding */
      {"float[L]", "int64[1]{-S}", "int64[1]{9223372036854775807}", "start"},
      {"float[L]", "int64[1]{0}", "int64[1]{-S}", "end"},
      {"float[P+S]", "int64[1]{-S}", "int64[1]{9223372036854775807}", "start"},
  };
  for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
    op_run(t, "", "Slice", 13, cases[c][0], cases[c][1], cases[c][2], NULL);
    const OsiType *y = op_out_type(t, 0);
    CHECK(y && y->rank == 1 && y->dims[0] != OSI_EXPR_UNKNOWN);
    if (!y || y->rank != 1) continue;
    int bad = 0;
    for (int64_t p = 0; p < 8; p++)
      for (int64_t l = 0; l < 8; l++)
        for (int64_t sz = 0; sz < 8; sz++) {
          PLS b = {p, l, sz};
          int64_t dim = c == 2 ? p + sz : l, got;
          int64_t want = cases[c][3][0] == 's' ? spec_slice_len(dim, -sz, INT64_MAX) : spec_slice_len(dim, 0, -sz);
          if (osi_expr_eval(op_exprs(t), y->dims[0], lookup_pls, &b, &got) != 0 || got != want) bad++;
        }
    CHECK_INT(bad, 0);
  }
  /* T5's rows broadcast with S: S wherever defined (at S = 1 the slice has
   * one row). */
  CHECK_STR(op_run(t, "", "Add", 14, "float[S,4]", "float[Max(P-P*Min(S,1)+S,0),4]", NULL), "float[S,4]");
}

static void test_preview(OpTest *t) {
  CHECK_STR(op_run(t, "ai.onnx.preview", "FlexAttention", 1, "float[B,8,L,64]", "float[B,2,S,64]",
                   "float[B,2,S,32]", NULL), "float[B,8,L,32]");
  CHECK(!strncmp(op_run(t, "ai.onnx.preview", "FlexAttention", 1, "float[B,L,64]", "float[B,S,64]",
                        "float[B,S,32]", NULL), "error:SHAPE_MISMATCH", 20));
}

int main(void) {
  OpTest *t = op_test_new();
  test_elementwise(t);
  test_shape_ops(t);
  test_indexing(t);
  test_slice_from_back(t);
  test_nn(t);
  test_preview(t);
  test_ort_default_domain(t);
  op_test_free(t);
  TEST_MAIN_END();
}
