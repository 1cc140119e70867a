/* Value names interned while decoding: one copy per name, in both decoders. */
#include <stdlib.h>
#include <string.h>

#include "base/arena.h"
#include "decode/decode.h"
#include "decode/name_intern.h"
#include "expr/expr.h"
#include "model/graph.h"
#include "model_builder.h"
#include "test.h"

static void test_interner(void) {
  OsiArena *a = osi_arena_new();
  OsiNameInterner n;
  osi_names_init(&n, a);
  const char *x = osi_names_intern(&n, "layer.0/attn/q", 14);
  CHECK(x != NULL);
  CHECK_STR(x, "layer.0/attn/q");
  CHECK(osi_names_intern(&n, "layer.0/attn/qk", 14) == x); /* the first 14 bytes */
  CHECK(osi_names_intern(&n, "layer.0/attn/k", 14) != x);
  CHECK_STR(osi_names_intern(&n, "", 0), "");
  /* Ids count from 1 in the order names are first seen. */
  CHECK_INT(osi_name_id(x), 1);
  CHECK_INT(osi_name_id(osi_names_intern(&n, "layer.0/attn/k", 14)), 2);
  CHECK_INT(osi_names_id_limit(&n), 3);
  /* Past the first table (1024 slots) and block (16 KiB): earlier names
   * keep their copy and are found again. */
  char buf[64];
  const char *first = NULL;
  for (int i = 0; i < 5000; i++) {
    int len = snprintf(buf, sizeof buf, "/model/layers.%d/self_attn/Reshape_output_0", i);
    const char *p = osi_names_intern(&n, buf, (size_t)len);
    CHECK(p != NULL && strcmp(p, buf) == 0);
    if (i == 0) first = p;
  }
  CHECK(osi_names_intern(&n, "/model/layers.0/self_attn/Reshape_output_0", 42) == first);
  CHECK(osi_names_intern(&n, "layer.0/attn/q", 14) == x);
  CHECK_INT(osi_name_id(first), 3);
  CHECK_INT(osi_names_id_limit(&n), 5003);
  /* A name longer than a block's quarter gets its own copy, still shared. */
  char *longname = malloc(10000);
  memset(longname, 'n', 9999);
  longname[9999] = 0;
  const char *l1 = osi_names_intern(&n, longname, 9999);
  CHECK(l1 != NULL && strlen(l1) == 9999);
  CHECK(osi_names_intern(&n, longname, 9999) == l1);
  CHECK_INT(osi_name_id(l1), 5003);
  free(longname);
  osi_names_free(&n);
  osi_arena_delete(a);
}

/* A node reads the very copy its producer writes, and a graph input's and
 * an initializer's names are shared with the nodes reading them. */
static void test_decoders_share_names(void) {
  Builder *b = builder_new(17);
  builder_input(b, "x", "float[N,4]");
  builder_initializer_ints(b, "axes", 1, (int64_t[]){0});
  builder_node(b, "Relu", "r", "x", "", "y", "");
  builder_node(b, "Unsqueeze", "u", "y", "axes", "", "z", "");
  builder_output(b, "z", "float[*]");
  size_t len;
  uint8_t *bytes = builder_pack(b, &len);
  for (int dec = 0; dec < 2; dec++) {
    OsiArena *a = osi_arena_new();
    OsiExprStore *s = osi_expr_store_new();
    OsiDecodeError err;
    const OsiModel *m = dec ? osi_decode_npb(bytes, len, a, s, &err) : osi_decode_pbc(bytes, len, a, s, &err);
    CHECK(m != NULL);
    if (m) {
      const OsiGraph *g = m->graph;
      CHECK_INT(g->n_nodes, 2);
      CHECK(g->nodes[0].inputs[0] == g->inputs[0].name);
      CHECK(g->nodes[1].inputs[0] == g->nodes[0].outputs[0]);
      CHECK(g->nodes[1].inputs[1] == g->initializers[0].name);
      CHECK(g->outputs[0].name == g->nodes[1].outputs[0]);
      CHECK_STR(g->nodes[1].outputs[0], "z");
      /* x, axes, y, z and the op types Relu, Unsqueeze: six ids; the
       * four value names' are distinct */
      CHECK_INT(m->n_name_ids, 7);
      uint32_t seen = 0;
      const char *names[] = {g->inputs[0].name, g->initializers[0].name, g->nodes[0].outputs[0],
                             g->nodes[1].outputs[0]};
      for (int i = 0; i < 4; i++) {
        uint32_t id = osi_name_id(names[i]);
        CHECK(id >= 1 && id < m->n_name_ids);
        if (id >= 1 && id < 32) seen |= 1u << id;
      }
      CHECK_INT(__builtin_popcount(seen), 4);
      /* The nodes carry their names' ids, in order. */
      CHECK(g->nodes[1].input_ids != NULL && g->nodes[1].output_ids != NULL);
      if (g->nodes[1].input_ids && g->nodes[1].output_ids) {
        CHECK_INT(g->nodes[1].input_ids[0], osi_name_id(g->nodes[0].outputs[0]));
        CHECK_INT(g->nodes[1].input_ids[1], osi_name_id(g->initializers[0].name));
        CHECK_INT(g->nodes[1].output_ids[0], osi_name_id(g->outputs[0].name));
      }
    }
    osi_expr_store_delete(s);
    osi_arena_delete(a);
  }
  free(bytes);
  builder_free(b);
}

int main(void) {
  test_interner();
  test_decoders_share_names();
  TEST_MAIN_END();
}
