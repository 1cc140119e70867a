/* Shape rules of the ai.onnx.ml operators, with symbolic inputs. */
#include "op_harness.h"
#include "test.h"

#define ML "ai.onnx.ml"

static void test_elementwise(OpTest *t) {
  CHECK_STR(op_run(t, ML, "ArrayFeatureExtractor", 1, "float[N,F]", "int64[K]", NULL), "float[N,K]");
  CHECK_STR(op_run(t, ML, "ArrayFeatureExtractor", 1, "string[A,B,F]", "int64[1,2]", NULL), "string[A,B,2]");
  /* A 1-D X gives one row. */
  CHECK_STR(op_run(t, ML, "ArrayFeatureExtractor", 1, "int64[F]", "int64[3]", NULL), "int64[1,3]");
  CHECK_STR(op_run(t, ML, "ArrayFeatureExtractor", 1, "float[N,F]", "int64[*]", NULL), "float[N,?]");
  op_attr_float(t, "threshold", 1.0);
  CHECK_STR(op_run(t, ML, "Binarizer", 1, "float[N,C,0]", NULL), "float[N,C,0]");
  CHECK_STR(op_run(t, ML, "Imputer", 1, "int64[N,C]", NULL), "int64[N,C]");
  CHECK_STR(op_run(t, ML, "Normalizer", 1, "int32[N,C]", NULL), "float[N,C]");
  CHECK_STR(op_run(t, ML, "Scaler", 1, "double[C]", NULL), "float[C]");
  CHECK_STR(op_run(t, ML, "CategoryMapper", 1, "string[N,C]", NULL), "int64[N,C]");
  CHECK_STR(op_run(t, ML, "CategoryMapper", 1, "int64[C]", NULL), "string[C]");
}

static void test_encoders(OpTest *t) {
  /* v1: string <-> int64. */
  CHECK_STR(op_run(t, ML, "LabelEncoder", 1, "string[N]", NULL), "int64[N]");
  /* v2: the values_* attribute decides. */
  op_attr_strings(t, "keys_strings", 2, (const char *[]){"a", "b"});
  op_attr_floats(t, "values_floats", 2, (double[]){1, 2});
  CHECK_STR(op_run(t, ML, "LabelEncoder", 2, "string[N,M]", NULL), "float[N,M]");
  /* v4: values_tensor. */
  op_attr_tensor(t, "keys_tensor", "int64[2]{1,2}");
  op_attr_tensor(t, "values_tensor", "int16[2]{3,4}");
  CHECK_STR(op_run(t, ML, "LabelEncoder", 4, "int64[N]", NULL), "int16[N]");
  op_attr_strings(t, "keys_strings", 1, (const char *[]){"a"});
  CHECK(!strncmp(op_run(t, ML, "LabelEncoder", 4, "string[N]", NULL), "error:INVALID_MODEL", 19));
  op_attr_strings(t, "cats_strings", 3, (const char *[]){"a", "b", "c"});
  CHECK_STR(op_run(t, ML, "OneHotEncoder", 1, "string[N,C]", NULL), "float[N,C,3]");
  op_attr_ints(t, "cats_int64s", 2, (int64_t[]){4, 8});
  CHECK_STR(op_run(t, ML, "OneHotEncoder", 1, "int64[]", NULL), "float[2]");
  CHECK(!strncmp(op_run(t, ML, "OneHotEncoder", 1, "int64[N]", NULL), "error:INVALID_MODEL", 19));
  op_attr_ints(t, "inputdimensions", 2, (int64_t[]){3, 4});
  CHECK_STR(op_run(t, ML, "FeatureVectorizer", 1, "float[N,3]", "int64[N,4]", NULL), "float[N,7]");
  op_attr_ints(t, "inputdimensions", 1, (int64_t[]){5});
  CHECK_STR(op_run(t, ML, "FeatureVectorizer", 1, "int32[5]", NULL), "float[1,5]");
  /* Map conversions: element type only. */
  op_attr_str(t, "cast_to", "TO_INT64");
  CHECK_STR(op_run(t, ML, "CastMap", 1, "", NULL), "int64[*]");
  op_attr_str(t, "cast_to", "TO_BYTES");
  CHECK(!strncmp(op_run(t, ML, "CastMap", 1, "", NULL), "error:INVALID_MODEL", 19));
}

static void test_models(OpTest *t) {
  op_set_outputs(t, 2);
  op_attr_strings(t, "classlabels_strings", 3, (const char *[]){"a", "b", "c"});
  op_attr_floats(t, "intercepts", 3, (double[]){0, 0, 0});
  CHECK_STR(op_run(t, ML, "LinearClassifier", 1, "float[N,F]", NULL), "string[N]");
  CHECK_STR(op_out(t, 1), "float[N,3]");
  /* Binary: one intercept, two labels -> two scores; [F] is one example. */
  op_set_outputs(t, 2);
  op_attr_ints(t, "classlabels_ints", 2, (int64_t[]){0, 1});
  op_attr_floats(t, "intercepts", 1, (double[]){0});
  CHECK_STR(op_run(t, ML, "LinearClassifier", 1, "double[F]", NULL), "int64[1]");
  CHECK_STR(op_out(t, 1), "float[1,2]");
  op_attr_int(t, "targets", 3);
  CHECK_STR(op_run(t, ML, "LinearRegressor", 1, "float[N,F]", NULL), "float[N,3]");
  CHECK_STR(op_run(t, ML, "LinearRegressor", 1, "float[F]", NULL), "float[*]");
  CHECK(!strncmp(op_run(t, ML, "LinearRegressor", 1, "float[A,B,F]", NULL), "error:SHAPE_MISMATCH", 20));
  op_set_outputs(t, 2);
  CHECK_STR(op_run(t, ML, "SVMClassifier", 1, "float[N,F]", NULL), "int64[N]");
  CHECK_STR(op_out(t, 1), "float[N,?]");
  CHECK_STR(op_run(t, ML, "SVMRegressor", 1, "float[N,F]", NULL), "float[N,1]");
}

static void test_trees(OpTest *t) {
  op_attr_int(t, "n_targets", 4);
  CHECK_STR(op_run(t, ML, "TreeEnsemble", 5, "double[N,F]", NULL), "double[N,4]");
  CHECK_STR(op_run(t, ML, "TreeEnsemble", 5, "float[N,F]", NULL), "float[N,?]");
  op_attr_int(t, "n_targets", 2);
  CHECK_STR(op_run(t, ML, "TreeEnsembleRegressor", 3, "int64[0,F]", NULL), "float[0,2]");
  op_set_outputs(t, 2);
  op_attr_ints(t, "classlabels_int64s", 3, (int64_t[]){0, 1, 2});
  CHECK_STR(op_run(t, ML, "TreeEnsembleClassifier", 1, "float[N,F]", NULL), "int64[N]");
  CHECK_STR(op_out(t, 1), "float[N,3]");
  op_set_outputs(t, 2);
  op_attr_strings(t, "classlabels_strings", 2, (const char *[]){"x", "y"});
  CHECK_STR(op_run(t, ML, "TreeEnsembleClassifier", 3, "float[*]", NULL), "string[*]");
  CHECK_STR(op_out(t, 1), "float[*]");
}

static void test_zipmap(OpTest *t) {
  op_attr_strings(t, "classlabels_strings", 2, (const char *[]){"a", "b"});
  CHECK_STR(op_run(t, ML, "ZipMap", 1, "float[N,2]", NULL), "seq(map(string,float[]))");
  op_attr_ints(t, "classlabels_int64s", 2, (int64_t[]){1, 2});
  CHECK_STR(op_run(t, ML, "ZipMap", 1, "float[*]", NULL), "seq(map(int64,float[]))");
  CHECK(!strncmp(op_run(t, ML, "ZipMap", 1, "float[N,2]", NULL), "error:INVALID_MODEL", 19));
  op_attr_ints(t, "classlabels_int64s", 2, (int64_t[]){1, 2});
  CHECK(!strncmp(op_run(t, ML, "ZipMap", 1, "float[A,B,2]", NULL), "error:SHAPE_MISMATCH", 20));
}

int main(void) {
  OpTest *t = op_test_new();
  test_elementwise(t);
  test_encoders(t);
  test_models(t);
  test_trees(t);
  test_zipmap(t);
  op_test_free(t);
  TEST_MAIN_END();
}
