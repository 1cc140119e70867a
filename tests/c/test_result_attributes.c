/*
 * osi_result_attributes_json: every node's attributes for viewers, in the
 * model's graph and in each inferred body, typed and in file order; big
 * integers as strings; a function body with the caller's attribute values.
 */
#include <stdlib.h>

#include "model_builder.h"
#include "onnx_shapes.h"
#include "test.h"

static void test_conv_attributes_in_order(void) {
  Builder *b = builder_new(17);
  builder_input(b, "x", "float[N,3,H,W]");
  builder_input(b, "w", "float[8,3,3,3]");
  builder_node(b, "Conv", "conv", "x", "w", "", "y", "");
  builder_attr_ints(b, "pads", 4, (int64_t[]){1, 1, 1, 1});
  builder_attr_ints(b, "strides", 2, (int64_t[]){2, 2});
  builder_attr_int(b, "group", 1);
  builder_node(b, "Relu", "relu", "y", "", "z", "");
  builder_node(b, "Slice", "old_slice", "z", "", "s", ""); /* opset-1 style attributes */
  builder_attr_ints(b, "ends", 1, (int64_t[]){INT64_MAX});
  builder_attr_ints(b, "starts", 1, (int64_t[]){-9007199254740993LL});
  builder_output(b, "s", "");
  OsiResult *r = builder_infer(b, 0, NULL);
  CHECK_INT(osi_result_status(r), OSI_OK);
  CHECK_STR(osi_result_attributes_json(r),
            "{\"\":[[[\"pads\",\"ints\",[1,1,1,1]],[\"strides\",\"ints\",[2,2]],[\"group\",\"int\",1]],"
            "[],"
            "[[\"ends\",\"ints\",[\"9223372036854775807\"]],[\"starts\",\"ints\",[\"-9007199254740993\"]]]]}");
  /* The same text on the second call (kept by the result). */
  const char *first = osi_result_attributes_json(r);
  CHECK(first == osi_result_attributes_json(r));
  osi_result_delete(r);
}

static void test_bodies_and_function_refs(void) {
  Builder *b = builder_new(17);
  builder_opset(b, "custom", 1);
  builder_input(b, "x", "float[N,C,H]");
  builder_input(b, "cond", "bool[]");
  builder_node(b, "If", "if", "cond", "", "xo", "");
  for (int k = 0; k < 2; k++) {
    builder_subgraph(b, k == 0 ? "then_branch" : "else_branch");
    builder_node(b, "Flatten", k == 0 ? "f0" : "f1", "x", "", "t", "");
    builder_attr_int(b, "axis", k + 1);
    builder_output(b, "t", "");
    builder_subgraph_end(b);
  }
  builder_node(b, "PermuteFlatten", "call", "x", "", "y", "");
  builder_attr_ints(b, "perm", 3, (int64_t[]){2, 0, 1});
  builder_function(b, "PermuteFlatten", "", (const char *[]){"X", NULL}, (const char *[]){"Y", NULL},
                   (const char *[]){"perm", NULL});
  builder_node(b, "Transpose", "t", "X", "", "T", "");
  builder_attr_ref(b, "perm", 7, "perm");
  builder_node(b, "Flatten", "f", "T", "", "Y", "");
  builder_function_end(b);
  builder_output(b, "xo", "");
  builder_output(b, "y", "");
  OsiResult *r = builder_infer(b, 0, NULL);
  CHECK_INT(osi_result_status(r), OSI_OK);
  const char *j = osi_result_attributes_json(r);
  /* The If's branches are graphs, summarised; each body's nodes under its path. */
  CHECK(strstr(j, "{\"\":[[[\"then_branch\",\"graph\",{\"name\":") == j);
  CHECK(strstr(j, "\"nodes\":1,\"inputs\":0,\"outputs\":1}") != NULL);
  CHECK(strstr(j, "[[\"perm\",\"ints\",[2,0,1]]]]") != NULL);
  CHECK(strstr(j, "\"if/then_branch/\":[[[\"axis\",\"int\",1]]]") != NULL);
  CHECK(strstr(j, "\"if/else_branch/\":[[[\"axis\",\"int\",2]]]") != NULL);
  /* In the called function's body, perm (a reference to the caller's attribute) has the
   * caller's value: the body as it was inferred. */
  CHECK(strstr(j, "\"call/PermuteFlatten/\":[[[\"perm\",\"ints\",[2,0,1]]],[]]") != NULL);
  osi_result_delete(r);
}

static void test_failed_result_has_none(void) {
  uint8_t junk[] = {0xff, 0xff, 0xff, 0x01};
  OsiResult *r = osi_infer(junk, sizeof junk, 0);
  CHECK(osi_result_status(r) != OSI_OK);
  CHECK_STR(osi_result_attributes_json(r), "");
  osi_result_delete(r);
  CHECK_STR(osi_result_attributes_json(NULL), "");
}

int main(void) {
  test_conv_attributes_in_order();
  test_bodies_and_function_refs();
  test_failed_result_has_none();
  TEST_MAIN_END();
}
