/*
 * Model-local functions, custom shape callbacks, subgraph value reporting
 * and the event log, end to end through osi_infer_with.
 */
#include <stdlib.h>

#include "model_builder.h"
#include "onnx_shapes.h"
#include "api/result.h"
#include "test.h"

static int json_has(OsiResult *r, const char *needle) {
  const char *j = osi_result_json(r);
  int found = strstr(j, needle) != NULL;
  if (!found) fprintf(stderr, "  not in JSON: %s\n  JSON: %.600s\n", needle, j);
  return found;
}

/* A function whose body flattens its input after transposing it with a
 * perm taken from the caller's attribute (ref_attr_name). */
static Builder *model_with_function(void) {
  Builder *b = builder_new(17);
  builder_opset(b, "custom", 1);
  builder_input(b, "x", "float[N,C,H]");
  builder_node(b, "PermuteFlatten", "call", "x", "", "y", "");
  builder_attr_ints(b, "perm", 3, (int64_t[]){2, 0, 1});
  /* domain of the call: */
  builder_function(b, "PermuteFlatten", "", (const char *[]){"X", NULL}, (const char *[]){"Y", NULL},
                   (const char *[]){"perm", NULL});
  builder_node(b, "Transpose", "t", "X", "", "T", "");
  builder_attr_ref(b, "perm", 7, "perm");
  builder_node(b, "Flatten", "f", "T", "", "Y", "");
  builder_attr_int(b, "axis", 1);
  builder_function_end(b);
  return b;
}

static void test_local_function(void) {
  OsiResult *r = builder_infer(model_with_function(), 0, NULL);
  CHECK_INT(osi_result_status(r), OSI_OK);
  CHECK(json_has(r, "\"y\":{\"kind\":\"tensor\",\"elemType\":\"float\",\"dims\":[\"H\",\"C*N\"]}"));
  /* Body values are reported under the call's path. */
  CHECK(json_has(r, "\"call/PermuteFlatten/T\":{\"kind\":\"tensor\",\"elemType\":\"float\",\"dims\":[\"H\",\"N\",\"C\"]}"));
  CHECK(json_has(r, "\"subgraphValues\":{\"call/PermuteFlatten/T\":{\"path\":\"call/PermuteFlatten/\",\"name\":\"T\"}"));
  osi_result_delete(r);
}

static void test_recursive_function_is_a_cycle(void) {
  Builder *b = builder_new(17);
  builder_input(b, "x", "float[N]");
  builder_node(b, "Loopy", "call", "x", "", "y", "");
  builder_function(b, "Loopy", "", (const char *[]){"X", NULL}, (const char *[]){"Y", NULL}, NULL);
  builder_node(b, "Loopy", "again", "X", "", "Y", "");
  builder_function_end(b);
  OsiResult *r = builder_infer(b, 0, NULL);
  CHECK_INT(osi_result_status(r), OSI_ERR_CYCLE);
  CHECK(strstr(osi_result_error(r), "Loopy") != NULL);
  osi_result_delete(r);
}

/* Section - Custom shape callbacks */

static char *dup_str(const char *s) {
  size_t n = strlen(s) + 1;
  return memcpy(malloc(n), s, n);
}

static char *double_last_dim(void *user, const char *request) {
  int *calls = user;
  (*calls)++;
  /* The request carries the input type and the attributes. */
  if (!strstr(request, "\"opType\":\"Doubler\"") || !strstr(request, "\"dims\":[\"N\",4]") ||
      !strstr(request, "\"factor\":2"))
    return dup_str("{\"error\":\"unexpected request\"}");
  return dup_str("[{\"kind\":\"tensor\",\"elemType\":\"float\",\"dims\":[\"N\",\"2*4\"]}]");
}

static char *broken(void *user, const char *request) {
  (void)user, (void)request;
  return dup_str("[{\"kind\":\"tensor\",\"dims\":[\"N\",");
}

static void test_custom_callbacks(void) {
  int calls = 0;
  OsiRegistry *reg = osi_registry_new();
  CHECK_INT(osi_registry_add(reg, "my.ops", "Doubler", double_last_dim, &calls), 0);
  CHECK_INT(osi_registry_add(reg, "my.ops", "Broken", broken, NULL), 0);
  Builder *b = builder_new(17);
  builder_opset(b, "my.ops", 1);
  builder_input(b, "x", "float[N,4]");
  builder_node(b, "Doubler", "d", "x", "", "y", "");
  builder_node_domain(b, "my.ops");
  builder_attr_int(b, "factor", 2);
  builder_node(b, "Relu", "r", "y", "", "z", "");
  builder_node(b, "Broken", "bad", "z", "", "w", "");
  builder_node_domain(b, "my.ops");
  builder_node(b, "Doubler", "same_name_other_domain", "x", "", "v", "");
  OsiResult *r = builder_infer(b, 0, reg);
  CHECK_INT(osi_result_status(r), OSI_OK);
  CHECK_INT(calls, 1);
  CHECK(json_has(r, "\"z\":{\"kind\":\"tensor\",\"elemType\":\"float\",\"dims\":[\"N\",8]}"));
  /* A malformed answer is a diagnostic, and w stays unknown. */
  CHECK(json_has(r, "the custom shape function's answer is not JSON the engine reads (malformed"));
  CHECK(!strstr(osi_result_json(r), "\"w\":{"));
  /* Registrations are per domain: ai.onnx:Doubler is still unknown. */
  CHECK(json_has(r, "no shape rule for ai.onnx:Doubler"));
  osi_result_delete(r);
  osi_registry_delete(reg);
}

static void test_events(void) {
  Builder *b = builder_new(17);
  builder_input(b, "past", "float[B,past_seq]");
  builder_input(b, "cur", "float[B,seq]");
  builder_input(b, "mask", "float[B,total_seq]");
  builder_node(b, "Concat", "cat", "past", "cur", "", "kv", "");
  builder_attr_int(b, "axis", 1);
  builder_node(b, "Relu", "relu", "kv", "", "out", "");
  builder_output(b, "kv", "float[B,total_seq]");
  OsiResult *r = builder_infer(b, OSI_OPT_EVENTS, NULL);
  CHECK(json_has(r, "{\"kind\":\"node\",\"nodeIndex\":0,\"node\":\"cat\",\"opType\":\"Concat\",\"path\":\"\",\"value\":\"\",\"detail\":\"ai.onnx:Concat opset 17\"}"));
  CHECK(json_has(r, "{\"kind\":\"set\",\"nodeIndex\":0,\"node\":\"cat\",\"opType\":\"Concat\",\"path\":\"\",\"value\":\"kv\",\"detail\":\"float[B,past_seq+seq]\"}"));
  CHECK(json_has(r, "\"kind\":\"anchor\""));
  CHECK(json_has(r, "\"kind\":\"constraint\""));
  CHECK(json_has(r, "\"kind\":\"rename\",\"nodeIndex\":-1,\"node\":\"\",\"opType\":\"\",\"path\":\"\",\"value\":\"\",\"detail\":\"past_seq+seq -> total_seq\"}"));
  CHECK(json_has(r, "\"kind\":\"replace\",\"nodeIndex\":-1,\"node\":\"\",\"opType\":\"\",\"path\":\"\",\"value\":\"out\",\"detail\":\"float[B,past_seq+seq] -> float[B,total_seq]\"}"));
  osi_result_delete(r);

  /* Without the option there is no log at all. */
  b = builder_new(17);
  builder_input(b, "x", "float[N]");
  builder_node(b, "Relu", "relu", "x", "", "y", "");
  r = builder_infer(b, 0, NULL);
  CHECK(!strstr(osi_result_json(r), "\"events\""));
  osi_result_delete(r);
}

int main(void) {
  test_local_function();
  test_recursive_function_is_a_cycle();
  test_custom_callbacks();
  test_events();
  TEST_MAIN_END();
}
