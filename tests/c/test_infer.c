/* The driver: seeding, topological order, errors as data, diagnostics. */
#include <stdlib.h>

#include "model_builder.h"
#include "base/json.h"
#include "onnx_shapes.h"
#include "api/result.h"
#include "test.h"

/* Nodes listed consumer-first still infer: the order is computed. */
static void test_unsorted_file_order(void) {
  Builder *b = builder_new(17);
  builder_input(b, "x", "float[N,3,4]");
  builder_node(b, "Reshape", "r", "x", "shape", "", "y", "");
  builder_node(b, "Concat", "c", "n", "twelve", "", "shape", "");
  builder_attr_int(b, "axis", 0);
  builder_node(b, "Slice", "s", "sh", "zero", "one", "", "n", "");
  builder_node(b, "Shape", "sh_node", "x", "", "sh", "");
  builder_initializer_ints(b, "zero", 1, (int64_t[]){0});
  builder_initializer_ints(b, "one", 1, (int64_t[]){1});
  builder_initializer_ints(b, "twelve", 1, (int64_t[]){12});
  builder_output(b, "y", "float[*]");
  OsiResult *r = builder_infer(b, 0, NULL);
  CHECK_INT(osi_result_status(r), OSI_OK);
  CHECK_STR(result_dims(r, "y"), "[N,12]");
  CHECK_STR(result_dims(r, "shape"), "[2]");
  osi_result_delete(r);
}

static void test_cycle(void) {
  Builder *b = builder_new(17);
  builder_input(b, "x", "float[2]");
  builder_node(b, "Add", "a", "x", "c", "", "b", "");
  builder_node(b, "Relu", "loop", "b", "", "c", "");
  builder_output(b, "c", "float[*]");
  OsiResult *r = builder_infer(b, 0, NULL);
  CHECK_INT(osi_result_status(r), OSI_ERR_CYCLE);
  CHECK_STR(osi_status_name((OsiStatus)osi_result_status(r)), "CYCLE");
  CHECK_STR(osi_result_error_node(r), "a");
  CHECK_STR(osi_result_json(r), "");
  osi_result_delete(r);

  b = builder_new(17);
  builder_input(b, "x", "float[2]");
  builder_node(b, "Add", "self", "x", "y", "", "y", "");
  r = builder_infer(b, 0, NULL);
  CHECK_INT(osi_result_status(r), OSI_ERR_CYCLE);
  osi_result_delete(r);
}

static void test_missing_and_duplicate(void) {
  Builder *b = builder_new(17);
  builder_input(b, "x", "float[2]");
  builder_node(b, "Add", "adder", "x", "nowhere", "", "y", "");
  OsiResult *r = builder_infer(b, 0, NULL);
  CHECK_INT(osi_result_status(r), OSI_ERR_MISSING_INPUT);
  CHECK_STR(osi_result_error_node(r), "adder");
  CHECK(strstr(osi_result_error(r), "nowhere") != NULL);
  osi_result_delete(r);

  b = builder_new(17);
  builder_input(b, "x", "float[2]");
  builder_node(b, "Relu", "first", "x", "", "y", "");
  builder_node(b, "Relu", "second", "x", "", "y", "");
  r = builder_infer(b, 0, NULL);
  CHECK_INT(osi_result_status(r), OSI_ERR_DUPLICATE_DEFINITION);
  osi_result_delete(r);

  b = builder_new(17);
  builder_input(b, "x", "float[2]");
  builder_node(b, "Relu", "shadow", "x", "", "x", "");
  r = builder_infer(b, 0, NULL);
  CHECK_INT(osi_result_status(r), OSI_ERR_DUPLICATE_DEFINITION);
  osi_result_delete(r);

  /* Both kinds in one graph: the first node, in graph order, that defines
   * a name again is the one reported, whichever kind comes first. */
  for (int flip = 0; flip < 2; flip++) {
    b = builder_new(17);
    builder_input(b, "x", "float[2]");
    builder_node(b, "Relu", "a", "x", "", "y", "");
    builder_node(b, "Relu", "b", "x", "", flip ? "y" : "x", "");
    builder_node(b, "Relu", "c", "x", "", flip ? "x" : "y", "");
    r = builder_infer(b, 0, NULL);
    CHECK_INT(osi_result_status(r), OSI_ERR_DUPLICATE_DEFINITION);
    CHECK_STR(osi_result_error_node(r), "b");
    CHECK(strstr(osi_result_error(r), flip ? "defines 'y', which another node"
                                           : "defines 'x', which a graph input or initializer") != NULL);
    osi_result_delete(r);
  }
}

/* An unknown op leaves its outputs unknown, adds a diagnostic, and
 * inference goes on downstream. */
static void test_unsupported_op_continues(void) {
  Builder *b = builder_new(17);
  builder_input(b, "x", "float[N,4]");
  builder_node(b, "NoSuchOp", "mystery", "x", "", "m", "");
  builder_node(b, "Relu", "after", "x", "", "y", "");
  builder_node(b, "Relu", "downstream", "m", "", "z", "");
  OsiResult *r = builder_infer(b, 0, NULL);
  CHECK_INT(osi_result_status(r), OSI_OK);
  CHECK_STR(result_dims(r, "y"), "[N,4]");
  CHECK_STR(result_dims(r, "m"), "none");
  CHECK_INT(osi_result_diagnostic_count(r), 1);
  if (osi_result_diagnostic_count(r) > 0)
    CHECK_STR(osi_result_diagnostic_code(r, 0), "UNSUPPORTED_OP");
  CHECK(strstr(osi_result_json(r), "\"UNSUPPORTED_OP\"") != NULL);
  osi_result_delete(r);
}

/* Initializers shadow same-named inputs; their content seeds values. */
static void test_initializer_shadows_input(void) {
  Builder *b = builder_new(17);
  builder_input(b, "x", "float[N,3,4]");
  builder_input(b, "shape", "int64[K]");
  builder_initializer_ints(b, "shape", 2, (int64_t[]){-1, 12});
  builder_node(b, "Reshape", "r", "x", "shape", "", "y", "");
  OsiResult *r = builder_infer(b, 0, NULL);
  CHECK_INT(osi_result_status(r), OSI_OK);
  CHECK_STR(result_dims(r, "shape"), "[2]");
  CHECK_STR(result_dims(r, "y"), "[N,12]");
  osi_result_delete(r);
}

/* A dim_param that parses is an expression; others are names. */
static void test_dim_params(void) {
  Builder *b = builder_new(17);
  builder_input(b, "x", "float[past_sequence_length + 1,batch size]");
  builder_node(b, "Relu", "r", "x", "", "y", "");
  OsiResult *r = builder_infer(b, 0, NULL);
  CHECK_STR(result_dims(r, "y"), "[past_sequence_length+1,'batch size']");
  CHECK(strstr(osi_result_json(r), "\"dims\":[\"past_sequence_length+1\",\"'batch size'\"]") != NULL);
  osi_result_delete(r);
}

static void test_garbage(void) {
  const uint8_t garbage[] = {0xff, 0xff, 0xff};
  OsiResult *r = osi_infer(garbage, sizeof garbage, 0);
  CHECK_INT(osi_result_status(r), OSI_ERR_PARSE);
  CHECK_STR(osi_status_name((OsiStatus)osi_result_status(r)), "PARSE_ERROR");
  osi_result_delete(r);
  r = osi_infer(NULL, 0, 0); /* empty bytes: a ModelProto with no graph */
  CHECK_INT(osi_result_status(r), OSI_ERR_INVALID_MODEL);
  osi_result_delete(r);
}

static void test_opset_awareness(void) {
  /* Shape exists from opset 1; CastLike only from 15. */
  Builder *b = builder_new(13);
  builder_input(b, "x", "float[N]");
  builder_input(b, "y", "int64[N]");
  builder_node(b, "CastLike", "cl", "x", "y", "", "z", "");
  OsiResult *r = builder_infer(b, 0, NULL);
  CHECK_INT(osi_result_status(r), OSI_OK);
  CHECK_STR(result_dims(r, "z"), "none");
  CHECK(strstr(osi_result_json(r), "OPSET_MISMATCH") != NULL);
  osi_result_delete(r);
}

/* The compact result's "keysUtf8" lets JS binary-search the keys in code point
 * order; a byte sequence a decoder would replace must clear it. */
static void test_utf8_valid(void) {
  static const char *good[] = {"", "x", "a b", "\xc3\xa9", "\xe2\x82\xac", "\xef\xbf\xbf",
                               "\xee\x80\x80", "\xf0\x9f\x98\x80", "\xf4\x8f\xbf\xbf",
                               "\xed\x9f\xbf"};
  static const char *bad[] = {"\x80", "a\xff", "\xc0\x80", "\xc1\xbf", "\xe0\x80\x80",
                              "\xe0\x9f\xbf", "\xed\xa0\x80", "\xed\xbf\xbf",
                              "\xf0\x8f\xbf\xbf", "\xf4\x90\x80\x80", "\xf5\x80\x80\x80",
                              "\xc3", "\xe2\x82", "\xf0\x9f\x98", "\xe2\x28\xa1"};
  for (size_t i = 0; i < sizeof good / sizeof *good; i++) CHECK_INT(osi_utf8_valid(good[i]), 1);
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) CHECK_INT(osi_utf8_valid(bad[i]), 0);
}

int main(void) {
  test_utf8_valid();
  test_unsorted_file_order();
  test_cycle();
  test_missing_and_duplicate();
  test_unsupported_op_continues();
  test_initializer_shadows_input();
  test_dim_params();
  test_garbage();
  test_opset_awareness();
  TEST_MAIN_END();
}
