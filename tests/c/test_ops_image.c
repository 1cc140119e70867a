/* Shape rules of the resampling, region and detection operators, with
 * symbolic inputs. */
#include <string.h>

#include "op_harness.h"
#include "test.h"

#define IS_ERROR(text, code) (!strncmp((text), "error:" code, strlen("error:" code)))

static void test_resize_scales(OpTest *t) {
  CHECK_STR(op_run(t, "", "Resize", 13, "float[N,C,H,W]", "", "float[4]{1,1,2,2}", NULL),
            "float[N,C,2*H,2*W]");
  CHECK_STR(op_run(t, "", "Resize", 13, "float[N,C,H,W]", "", "float[4]{1,1,0.5,0.25}", NULL),
            "float[N,C,H//2,W//4]");
  /* The runtime computes Trunc(scale * float32(dim)) in float32: 1.5*H rounds above 2^24,
   * so no integer formula holds for every H (README "Sizes computed in float"). */
  CHECK_STR(op_run(t, "", "Resize", 19, "uint8[N,C,H,W]", "", "float[4]{1,1,1.5,0.75}", NULL),
            "uint8[N,C,Trunc(1.5*H),Trunc(0.75*W)]");
  CHECK_STR(op_run(t, "", "Resize", 13, "float[N,C,H,5]", "", "float[4]{1,1,0.6,0.6}", NULL),
            "float[N,C,Trunc(0.6*H),3]");
  /* float32(0.7) * 10 floors to 6 in double but 7 in float: ambiguous. */
  CHECK_STR(op_run(t, "", "Resize", 13, "float[1,1,10,4]", "", "float[4]{1,1,0.699999988079071044921875,1}", NULL),
            "float[1,1,?,4]");
  CHECK_STR(op_run(t, "", "Resize", 13, "float[0,C,H,W]", "", "float[4]{1,1,3,1}", NULL), "float[0,C,Trunc(3.0*H),W]");
  CHECK_STR(op_run(t, "", "Resize", 13, "float[0,C,H,W]", "", "float[4]{1,1,4,0.125}", NULL), "float[0,C,4*H,W//8]");
  /* Scales computed in the graph: min(64 / min(H, W), 2.5) (GeneralizedRCNNTransform's). */
  CHECK_STR(op_run(t, "", "Resize", 13, "float[N,C,H,W]", "", "float[4]{1,1,Min(64/Min(H,W),2.5),Min(64/Min(H,W),2.5)}", NULL),
            "float[N,C,Trunc(H*Min(2.5,64/Min(H,W))),Trunc(W*Min(2.5,64/Min(H,W)))]");
  /* Opset 10: (X, scales). */
  CHECK_STR(op_run(t, "", "Resize", 10, "float[N,C,H,W]", "float[4]{1,1,2,2}", NULL), "float[N,C,2*H,2*W]");
  CHECK_STR(op_run(t, "", "Resize", 10, "float[N,C,H,W]", "float[4]", NULL), "float[?,?,?,?]");
  /* Unknown scales content with axes: the other dims stay. */
  op_attr_ints(t, "axes", 2, (int64_t[]){2, -1});
  CHECK_STR(op_run(t, "", "Resize", 18, "float[N,C,H,W]", "", "float[2]", NULL), "float[N,C,?,?]");
  op_attr_ints(t, "axes", 1, (int64_t[]){-1});
  CHECK_STR(op_run(t, "", "Resize", 18, "float[N,C,H,W]", "", "float[1]{2}", NULL), "float[N,C,H,2*W]");
  CHECK_STR(op_run(t, "", "Resize", 13, "float[*]", "", "float[3]{1,2,2}", NULL), "float[?,?,?]");
  /* tf_crop_and_resize: the spec scales by the roi extent, which the
   * reference ignores; only a full [0, 1] roi is unambiguous. */
  op_attr_str(t, "coordinate_transformation_mode", "tf_crop_and_resize");
  CHECK_STR(op_run(t, "", "Resize", 13, "float[N,H]", "float[4]{0,0.4,1,0.6}", "float[2]{1,2}", NULL),
            "float[N,?]");
  op_attr_str(t, "coordinate_transformation_mode", "tf_crop_and_resize");
  CHECK_STR(op_run(t, "", "Resize", 13, "float[N,H]", "float[4]{0,0,1,1}", "float[2]{1,2}", NULL),
            "float[N,2*H]");
  CHECK(IS_ERROR(op_run(t, "", "Resize", 13, "float[N,C,H,W]", "", "float[3]{1,2,2}", NULL), "INVALID_MODEL"));
  CHECK(IS_ERROR(op_run(t, "", "Resize", 13, "float[N,C]", "", "float[2]{1,2}", "int64[2]{N,4}", NULL),
                 "INVALID_MODEL"));
  CHECK(IS_ERROR(op_run(t, "", "Resize", 13, "float[N,C]", "", "", "", NULL), "INVALID_MODEL"));
}

static void test_resize_sizes(OpTest *t) {
  CHECK_STR(op_run(t, "", "Resize", 13, "float[N,C,H,W]", "", "", "int64[4]{N,C,2*H,W+1}", NULL),
            "float[N,C,2*H,W+1]");
  /* Opset 11 passes an empty scales tensor next to sizes. */
  CHECK_STR(op_run(t, "", "Resize", 11, "float[N,C,H,W]", "float[0]", "float[0]", "int64[4]{N,C,64,64}", NULL),
            "float[N,C,64,64]");
  CHECK_STR(op_run(t, "", "Resize", 11, "float[N,C,H,W]", "float[0]", "float[?]", "int64[4]{N,C,S,T}", NULL),
            "float[N,C,S,T]");
  CHECK_STR(op_run(t, "", "Resize", 13, "float[N,C,H,W]", "", "", "int64[4]", NULL), "float[?,?,?,?]");
  /* The rank follows sizes when X's is unknown (no axes). */
  CHECK_STR(op_run(t, "", "Resize", 13, "float[*]", "", "", "int64[3]{A,B,C}", NULL), "float[A,B,C]");
  op_attr_ints(t, "axes", 2, (int64_t[]){3, 2});
  CHECK_STR(op_run(t, "", "Resize", 18, "float[N,C,H,W]", "", "", "int64[2]{S,T}", NULL), "float[N,C,T,S]");
  op_attr_ints(t, "axes", 2, (int64_t[]){2, 3});
  CHECK_STR(op_run(t, "", "Resize", 18, "float[*]", "", "", "int64[2]{S,T}", NULL), "float[*]");
  /* keep_aspect_ratio_policy: one scale, min (not_larger) or max. */
  op_attr_ints(t, "axes", 2, (int64_t[]){2, 3});
  op_attr_str(t, "keep_aspect_ratio_policy", "not_larger");
  CHECK_STR(op_run(t, "", "Resize", 18, "float[N,1,2,2]", "", "", "int64[2]{7,8}", NULL), "float[N,1,7,7]");
  op_attr_str(t, "keep_aspect_ratio_policy", "not_smaller");
  CHECK_STR(op_run(t, "", "Resize", 19, "int32[3,5]", "", "", "int64[2]{6,6}", NULL), "int32[6,10]");
  op_attr_str(t, "keep_aspect_ratio_policy", "not_larger");
  CHECK_STR(op_run(t, "", "Resize", 18, "float[N,C,H,W]", "", "", "int64[4]{N,C,8,8}", NULL),
            "float[?,?,?,?]");
  /* Before opset 18 the policy does not exist: sizes are taken as given. */
  op_attr_str(t, "keep_aspect_ratio_policy", "not_larger");
  CHECK_STR(op_run(t, "", "Resize", 13, "float[1,1,2,2]", "", "", "int64[4]{1,1,7,8}", NULL), "float[1,1,7,8]");
  op_attr_str(t, "keep_aspect_ratio_policy", "bogus");
  CHECK(IS_ERROR(op_run(t, "", "Resize", 18, "float[1,2]", "", "", "int64[2]{1,8}", NULL), "INVALID_MODEL"));
  op_attr_ints(t, "axes", 1, (int64_t[]){4});
  CHECK(IS_ERROR(op_run(t, "", "Resize", 18, "float[N,C,H,W]", "", "", "int64[1]{8}", NULL), "INVALID_MODEL"));
}

static void test_upsample(OpTest *t) {
  CHECK_STR(op_run(t, "", "Upsample", 9, "float[N,C,H,W]", "float[4]{1,1,2,3}", NULL), "float[N,C,2*H,Trunc(3.0*W)]");
  CHECK_STR(op_run(t, "", "Upsample", 10, "float[N,C,3]", "float[3]{1,1,1.5}", NULL), "float[N,C,4]");
  CHECK_STR(op_run(t, "", "Upsample", 9, "float[N,C,H,W]", "float[4]", NULL), "float[?,?,?,?]");
  CHECK_STR(op_run(t, "", "Upsample", 9, "float[*]", "float[2]{2,2}", NULL), "float[?,?]");
  op_attr_floats(t, "scales", 4, (double[]){1, 1, 2, 2});
  CHECK_STR(op_run(t, "", "Upsample", 7, "int64[N,C,H,W]", NULL), "int64[N,C,2*H,2*W]");
  op_attr_float(t, "height_scale", 2);
  op_attr_float(t, "width_scale", 4);
  CHECK_STR(op_run(t, "", "Upsample", 1, "float[N,C,H,W]", NULL), "float[N,C,2*H,4*W]");
  op_attr_floats(t, "scales", 3, (double[]){1, 2, 2});
  CHECK(IS_ERROR(op_run(t, "", "Upsample", 7, "float[N,C,H,W]", NULL), "INVALID_MODEL"));
}

static void test_grids(OpTest *t) {
  CHECK_STR(op_run(t, "", "GridSample", 16, "float[N,C,H,W]", "float[N,Ho,Wo,2]", NULL), "float[N,C,Ho,Wo]");
  CHECK_STR(op_run(t, "", "GridSample", 20, "float[N,C,D,H,W]", "float[?,A,B,E,3]", NULL),
            "float[N,C,A,B,E]");
  CHECK_STR(op_run(t, "", "GridSample", 22, "float[*]", "float[N,Ho,Wo,2]", NULL), "float[N,?,Ho,Wo]");
  CHECK_STR(op_run(t, "", "GridSample", 22, "float[N,C,H,W]", "float[*]", NULL), "float[N,C,?,?]");
  CHECK(IS_ERROR(op_run(t, "", "GridSample", 16, "float[N,C,D,H,W]", "float[N,A,B,E,3]", NULL),
                 "SHAPE_MISMATCH"));
  CHECK(IS_ERROR(op_run(t, "", "GridSample", 16, "float[N,C,H,W]", "float[N,A,B,3]", NULL), "SHAPE_MISMATCH"));
  CHECK(IS_ERROR(op_run(t, "", "GridSample", 20, "float[N,C,H,W]", "float[N,A,2]", NULL), "SHAPE_MISMATCH"));

  CHECK_STR(op_run(t, "", "AffineGrid", 20, "float[N,2,3]", "int64[4]{N,C,H,W}", NULL), "float[N,H,W,2]");
  CHECK_STR(op_run(t, "", "AffineGrid", 20, "double[N,3,4]", "int64[5]", NULL), "double[N,?,?,?,3]");
  CHECK_STR(op_run(t, "", "AffineGrid", 20, "float[N,2,3]", "int64[?]", NULL), "float[N,?,?,2]");
  CHECK_STR(op_run(t, "", "AffineGrid", 20, "float[*]", "int64[?]", NULL), "float[*]");
  CHECK(IS_ERROR(op_run(t, "", "AffineGrid", 20, "float[N,2,3]", "int64[3]{N,C,H}", NULL), "INVALID_MODEL"));
  CHECK(IS_ERROR(op_run(t, "", "AffineGrid", 20, "float[N,2,3]", "int64[5]", NULL), "SHAPE_MISMATCH"));

  CHECK_STR(op_run(t, "", "Col2Im", 18, "float[N,18,L]", "int64[2]{H,W}", "int64[2]{3,3}", NULL),
            "float[N,2,H,W]");
  CHECK_STR(op_run(t, "", "Col2Im", 18, "float[N,12*C,L]", "int64[3]{5,6,7}", "int64[3]{1,3,4}", NULL),
            "float[N,C,5,6,7]");
  CHECK_STR(op_run(t, "", "Col2Im", 18, "float[N,K,L]", "int64[2]", "int64[2]", NULL), "float[N,?,?,?]");
  CHECK_STR(op_run(t, "", "Col2Im", 18, "float[N,K,L]", "int64[?]", "int64[?]", NULL), "float[*]");
  CHECK(IS_ERROR(op_run(t, "", "Col2Im", 18, "float[N,10,L]", "int64[2]{H,W}", "int64[2]{3,3}", NULL),
                 "SHAPE_MISMATCH"));
  CHECK(IS_ERROR(op_run(t, "", "Col2Im", 18, "float[N,9,L]", "int64[2]{H,W}", "int64[3]{1,3,3}", NULL),
                 "INVALID_MODEL"));
}

static void test_regions(OpTest *t) {
  op_attr_int(t, "output_height", 7);
  op_attr_int(t, "output_width", 5);
  CHECK_STR(op_run(t, "", "RoiAlign", 16, "float[N,C,H,W]", "float[R,4]", "int64[R]", NULL), "float[R,C,7,5]");
  CHECK_STR(op_run(t, "", "RoiAlign", 10, "float[N,C,H,W]", "float[*]", "int64[R]", NULL), "float[R,C,1,1]");
  CHECK(IS_ERROR(op_run(t, "", "RoiAlign", 22, "float[N,C,H]", "float[R,4]", "int64[R]", NULL), "SHAPE_MISMATCH"));
  op_attr_ints(t, "pooled_shape", 2, (int64_t[]){6, 6});
  CHECK_STR(op_run(t, "", "MaxRoiPool", 1, "float[N,C,H,W]", "float[R,5]", NULL), "float[R,C,6,6]");
  CHECK(IS_ERROR(op_run(t, "", "MaxRoiPool", 1, "float[N,C,H,W]", "float[R,5]", NULL), "INVALID_MODEL"));

  op_attr_ints(t, "kernel_shape", 2, (int64_t[]){2, 2});
  op_attr_ints(t, "strides", 2, (int64_t[]){2, 2});
  CHECK_STR(op_run(t, "", "MaxUnpool", 11, "float[N,C,H,W]", "int64[N,C,H,W]", NULL), "float[N,C,2*H,2*W]");
  op_attr_ints(t, "kernel_shape", 1, (int64_t[]){3});
  op_attr_ints(t, "pads", 2, (int64_t[]){1, 1});
  CHECK_STR(op_run(t, "", "MaxUnpool", 9, "float[N,C,L]", "int64[N,C,L]", NULL), "float[N,C,L]");
  op_attr_ints(t, "kernel_shape", 2, (int64_t[]){2, 2});
  CHECK_STR(op_run(t, "", "MaxUnpool", 11, "float[N,C,H,W]", "int64[N,C,H,W]", "int64[4]{N,C,A,B}", NULL),
            "float[N,C,A,B]");
  op_attr_ints(t, "kernel_shape", 2, (int64_t[]){2, 2});
  CHECK_STR(op_run(t, "", "MaxUnpool", 11, "float[*]", "int64[*]", "int64[?]", NULL), "float[*]");
  op_attr_ints(t, "kernel_shape", 2, (int64_t[]){2, 2});
  CHECK_STR(op_run(t, "", "MaxUnpool", 22, "float[*]", "int64[*]", NULL), "float[?,?,?,?]");
  op_attr_ints(t, "kernel_shape", 1, (int64_t[]){2});
  CHECK(IS_ERROR(op_run(t, "", "MaxUnpool", 11, "float[N,C,H,W]", "int64[N,C,H,W]", NULL), "INVALID_MODEL"));
  op_attr_ints(t, "kernel_shape", 2, (int64_t[]){2, 2});
  CHECK(IS_ERROR(op_run(t, "", "MaxUnpool", 11, "float[N,C,H,W]", "int64[N,C,H,W]", "int64[3]", NULL),
                 "SHAPE_MISMATCH"));

  CHECK_STR(op_run(t, "", "DeformConv", 19, "float[N,C,H,W]", "float[M,C,3,3]", "float[N,18,?,?]", NULL),
            "float[N,M,H-2,W-2]");
  op_attr_ints(t, "pads", 4, (int64_t[]){1, 1, 1, 1});
  op_attr_ints(t, "strides", 2, (int64_t[]){2, 2});
  op_attr_ints(t, "kernel_shape", 2, (int64_t[]){3, 3});
  CHECK_STR(op_run(t, "", "DeformConv", 22, "float[N,C,H,0]", "float[M,C,?,?]", "float[N,18,?,?]", NULL),
            "float[N,M,(H+1)//2,1]"); /* onnxruntime: (0 + 2 - 3) / 2 + 1, divided toward zero */
  /* Unknown input sizes: the offset input carries the output's. */
  CHECK_STR(op_run(t, "", "DeformConv", 19, "float[N,C,?,?]", "float[M,C,3,3]", "float[N,18,Oh,Ow]", NULL),
            "float[N,M,Oh,Ow]");
  CHECK_STR(op_run(t, "", "DeformConv", 19, "float[*]", "float[*]", "float[*]", NULL), "float[*]");
  op_attr_ints(t, "strides", 1, (int64_t[]){2});
  CHECK(IS_ERROR(op_run(t, "", "DeformConv", 19, "float[N,C,H,W]", "float[M,C,3,3]", "float[*]", NULL),
                 "INVALID_MODEL"));
}

static void test_data_dependent(OpTest *t) {
  const char *y = op_run(t, "", "ImageDecoder", 20, "uint8[?]", NULL);
  CHECK(!strncmp(y, "uint8[image_height", 18) && strstr(y, ",image_width") &&
        strstr(y, ",3]"));
  CHECK(strstr(op_diags(t), "DATA_DEPENDENT") != NULL);
  op_attr_str(t, "pixel_format", "Grayscale");
  CHECK(strstr(op_run(t, "", "ImageDecoder", 20, "uint8[S]", NULL), ",1]") != NULL);
  op_attr_str(t, "pixel_format", "CMYK");
  CHECK(IS_ERROR(op_run(t, "", "ImageDecoder", 20, "uint8[S]", NULL), "INVALID_MODEL"));

  y = op_run(t, "", "NonMaxSuppression", 11, "float[B,S,4]", "float[B,K,S]", "int64[1]{10}", NULL);
  CHECK(!strncmp(y, "int64[nms_", 10) && strstr(y, ",3]"));
  CHECK(strstr(op_diags(t), "B*K*Min(10,S)") != NULL || strstr(op_diags(t), "B*K*Min(S,10)") != NULL);
  y = op_run(t, "", "NonMaxSuppression", 10, "float[B,S,4]", "float[B,K,S]", "int64[]", NULL);
  CHECK(!strncmp(y, "int64[nms_", 10));
  CHECK(strstr(op_diags(t), "B*K*S") != NULL);
  /* max_output_boxes_per_class omitted or 0: nothing is selected. */
  CHECK_STR(op_run(t, "", "NonMaxSuppression", 11, "float[B,S,4]", "float[B,K,S]", NULL), "int64[0,3]");
  CHECK_STR(op_run(t, "", "NonMaxSuppression", 11, "float[*]", "float[*]", "int64[]{0}", "float[]", NULL),
            "int64[0,3]");
  CHECK(IS_ERROR(op_run(t, "", "NonMaxSuppression", 11, "float[B,S,5]", "float[B,K,S]", NULL), "SHAPE_MISMATCH"));
}

int main(void) {
  OpTest *t = op_test_new();
  test_resize_scales(t);
  test_resize_sizes(t);
  test_upsample(t);
  test_grids(t);
  test_regions(t);
  test_data_dependent(t);
  op_test_free(t);
  TEST_MAIN_END();
}
