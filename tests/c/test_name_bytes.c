/*
 * Names that are not UTF-8 (issue 30 item 7). onnxruntime runs a model
 * whose names hold any bytes (its C++ core compares bytes; onnxruntime-node
 * 1.30 loads and runs an input named 0xFF), so such a model is not refused:
 * the names stay bytes, both decoders keep them alike, and the JSON writes a
 * byte that starts no UTF-8 sequence as the escape of the lone surrogate
 * U+DC00 + byte (Python's surrogateescape), so that two names that differ
 * stay two strings in JavaScript, and come back as the same bytes.
 */
#include "base/json.h"
#include "base/json_parse.h"
#include "model_builder.h"
#include "onnx_shapes.h"
#include "test.h"

static int json_has(const char *json, const char *needle) { return json && strstr(json, needle); }

/* Inputs named 0xFF ([3]) and 0xFE ([5]), each read by a Relu. */
static uint8_t *pair_model(size_t *len) {
  Builder *b = builder_new(17);
  builder_input(b, "\xff", "float[3]");
  builder_input(b, "\xfe", "float[5]");
  builder_node(b, "Relu", "r1", "\xfe", "", "Y", "");
  builder_node(b, "Relu", "r2", "\xff", "", "Z", "");
  builder_output(b, "Y", "float[*]");
  builder_output(b, "Z", "float[*]");
  uint8_t *bytes = builder_pack(b, len);
  builder_free(b);
  return bytes;
}

static void test_pair_stays_two(void) {
  size_t len;
  uint8_t *bytes = pair_model(&len);
  OsiResult *pbc = osi_infer(bytes, len, OSI_OPT_DECODER_PBC);
  OsiResult *npb = osi_infer(bytes, len, OSI_OPT_DECODER_NANOPB);
  CHECK_INT(osi_result_status(pbc), OSI_OK);
  const char *j = osi_result_json(pbc);
  CHECK_STR(j, osi_result_json(npb)); /* the decoders agree */
  CHECK(json_has(j, "\"\\udcff\":{\"kind\":\"tensor\",\"elemType\":\"float\",\"dims\":[3]}"));
  CHECK(json_has(j, "\"\\udcfe\":{\"kind\":\"tensor\",\"elemType\":\"float\",\"dims\":[5]}"));
  /* the wiring: Y reads 0xFE */
  CHECK(json_has(j, "\"Y\":{\"kind\":\"tensor\",\"elemType\":\"float\",\"dims\":[5]}"));
  CHECK(json_has(j, "\"Z\":{\"kind\":\"tensor\",\"elemType\":\"float\",\"dims\":[3]}"));
  CHECK(json_has(j, "\"inputs\":[\"\\udcfe\"]"));
  CHECK(osi_utf8_valid(j)); /* the JSON itself is UTF-8 */
  osi_result_delete(pbc);
  osi_result_delete(npb);
  free(bytes);
}

static void test_json_escapes(void) {
  static const char *const cases[][2] = {
      {"caf\xc3\xa9", "\"caf\xc3\xa9\""},              /* UTF-8 stays as it is */
      {"\xff\xfe", "\"\\udcff\\udcfe\""},               /* no sequence: one escape a byte */
      {"\xc3", "\"\\udcc3\""},                          /* a sequence cut short */
      {"\xed\xa0\x80", "\"\\udced\\udca0\\udc80\""},    /* a surrogate's encoding */
      {"\xc0\xaf", "\"\\udcc0\\udcaf\""},               /* overlong */
      {"\xf4\x90\x80\x80", "\"\\udcf4\\udc90\\udc80\\udc80\""}, /* past U+10FFFF */
      {"a\x01\"\\", "\"a\\u0001\\\"\\\\\""},
      {"\xf0\x9f\x98\x80", "\"\xf0\x9f\x98\x80\""},
  };
  OsiArena *arena = osi_arena_new();
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    OsiJson j = {0};
    osi_json_string(&j, cases[i][0]);
    CHECK_STR(j.buf, cases[i][1]);
    /* and the reader gives the bytes back */
    const OsiJsonValue *v = osi_json_parse(arena, j.buf);
    CHECK(v && v->kind == OSI_JSON_STRING);
    if (v) CHECK_STR(v->string, cases[i][0]);
    osi_json_free(&j);
  }
  /* what JSON.stringify writes for an astral character and a lone surrogate */
  const OsiJsonValue *v = osi_json_parse(arena, "\"\\ud83d\\ude00|\\udcff|\\ud800x\"");
  CHECK(v && v->kind == OSI_JSON_STRING);
  if (v) CHECK_STR(v->string, "\xf0\x9f\x98\x80|\xff|\xed\xa0\x80x");
  CHECK(osi_json_parse(arena, "\"\\u12\"") == NULL);
  /* U+0000: a C string would end there ("N\0M" read as "N"), so it is refused */
  CHECK(osi_json_parse(arena, "[\"N\\u0000M\"]") == NULL);
  CHECK(osi_json_parse(arena, "{\"a\\u0000b\":1}") == NULL);
  osi_arena_delete(arena);
}

/* A shape function gets the input's dim printed (a symbol named 0xFF) and
 * gives it back: the same symbol. */
static char *echo_dims(void *user, const char *request) {
  (void)user;
  const char *at = strstr(request, "\"dims\":[");
  const char *end = at ? strchr(at, ']') : NULL;
  if (!end) return NULL;
  size_t n = (size_t)(end - at) + 1;
  char *out = malloc(n + 40);
  snprintf(out, n + 40, "[{\"elemType\":\"float\",%.*s}]", (int)n, at);
  return out;
}

static void test_shape_function_round_trip(void) {
  OsiRegistry *reg = osi_registry_new();
  CHECK_INT(osi_registry_add(reg, "", "Echo", echo_dims, NULL), 0);
  Builder *b = builder_new(17);
  builder_input(b, "x", "float[\xff,\xfe,N]");
  builder_node(b, "Echo", "e", "x", "", "y", "");
  builder_node(b, "Add", "a", "x", "y", "", "z", "");
  OsiResult *r = builder_infer(b, 0, reg);
  const char *j = osi_result_json(r);
  CHECK(json_has(j, "\"y\":{\"kind\":\"tensor\",\"elemType\":\"float\",\"dims\":[\"'\\udcff'\",\"'\\udcfe'\",\"N\"]}"));
  /* x + y: the same sizes, no requirement between two symbols */
  CHECK(json_has(j, "\"z\":{\"kind\":\"tensor\",\"elemType\":\"float\",\"dims\":[\"'\\udcff'\",\"'\\udcfe'\",\"N\"]}"));
  CHECK(json_has(j, "\"requirements\":[]"));
  osi_result_delete(r);
  osi_registry_delete(reg);
}

int main(void) {
  test_pair_stays_two();
  test_json_escapes();
  test_shape_function_round_trip();
  TEST_MAIN_END();
}
