/* Attributes decoded once per distinct bytes (decode/attr_memo.h), and the
 * pre-scan's memory of attributes it scanned: a repeated attribute means
 * the same thing every time, and one that differs by a byte is its own. */
#include <stdlib.h>
#include <string.h>

#include "decode/attr_memo.h"
#include "model_builder.h"
#include "onnx_shapes.h"
#include "test.h"

static void test_memo(void) {
  OsiAttrMemo m = {0};
  const uint8_t a[] = {0x0a, 0x04, 'a', 'x', 'i', 's', 0x18, 0x01, 0xa0, 0x01, 0x02};
  uint8_t b[sizeof a];
  memcpy(b, a, sizeof a);
  b[7] = 0x02; /* axis 2, not 1 */
  uint32_t ha = 0, hb = 0;
  CHECK(osi_attr_memo_find(&m, a, sizeof a, &ha) == NULL); /* nothing kept yet */
  OsiAttr one = {.name = "axis", .type = OSI_ATTR_INT, .i = 1};
  osi_attr_memo_put(&m, a, sizeof a, ha, &one);
  uint32_t again = 0;
  const OsiAttr *found = osi_attr_memo_find(&m, a, sizeof a, &again);
  CHECK(found != NULL && found->type == OSI_ATTR_INT && found->i == 1 && again == ha);
  CHECK(osi_attr_memo_find(&m, b, sizeof b, &hb) == NULL); /* one byte apart */
  uint32_t hp = 0;
  CHECK(osi_attr_memo_find(&m, a, sizeof a - 1, &hp) == NULL); /* a prefix */
  /* A slot taken by other bytes forgets the first: found no more, never mistaken. */
  OsiAttr two = {.name = "axis", .type = OSI_ATTR_INT, .i = 2};
  osi_attr_memo_put(&m, b, sizeof b, hb, &two);
  found = osi_attr_memo_find(&m, b, sizeof b, &hb);
  CHECK(found != NULL && found->i == 2);
  found = osi_attr_memo_find(&m, a, sizeof a, &ha);
  CHECK(found == NULL || found->i == 1);
  /* Too long to keep. */
  uint8_t big[OSI_ATTR_MEMO_MAX_BYTES + 1] = {0x0a};
  uint32_t hbig = 0;
  osi_attr_memo_put(&m, big, sizeof big, hbig, &one);
  CHECK(osi_attr_memo_find(&m, big, sizeof big, &hbig) == NULL);
  osi_attr_memo_free(&m);
}

/* Unsqueeze at opset 11 reads its axes from an attribute: nodes with the
 * same axes bytes, then other axes, then the first again, each get theirs. */
static void test_repeated_attributes(void) {
  for (int decoder = 0; decoder < 2; decoder++) {
    Builder *b = builder_new(11);
    builder_input(b, "x", "float[N,4]");
    const char *outs[] = {"a", "b", "c", "d", "e"};
    const int64_t axes[][2] = {{0, 0}, {0, 0}, {1, 0}, {0, 0}, {0, 3}};
    const int n_axes[] = {1, 1, 1, 1, 2};
    for (int i = 0; i < 5; i++) {
      char name[8];
      snprintf(name, sizeof name, "u%d", i);
      builder_node(b, "Unsqueeze", name, "x", "", outs[i], "");
      builder_attr_ints(b, "axes", n_axes[i], axes[i]);
      builder_output(b, outs[i], "");
    }
    OsiResult *r = builder_infer(b, decoder ? OSI_OPT_DECODER_NANOPB : OSI_OPT_DECODER_PBC, NULL);
    CHECK_INT(osi_result_status(r), OSI_OK);
    CHECK_STR(result_dims(r, "a"), "[1,N,4]");
    CHECK_STR(result_dims(r, "b"), "[1,N,4]");
    CHECK_STR(result_dims(r, "c"), "[N,1,4]");
    CHECK_STR(result_dims(r, "d"), "[1,N,4]");
    CHECK_STR(result_dims(r, "e"), "[1,N,4,1]");
    osi_result_delete(r);
  }
}

int main(void) {
  test_memo();
  test_repeated_attributes();
  TEST_MAIN_END();
}
