/*
 * The protobuf-c decoder drops the weights it would copy for nothing
 * (pbc_rewrite.c, osi_pbc_strip_payloads): the rewritten bytes must unpack,
 * in protobuf-c itself, to exactly the message the original bytes unpack to
 * with the payloads of the tensors inference never keeps cleared, and no
 * other; and inference must give the same answer through protobuf-c,
 * nanopb over memory and nanopb streaming.
 *
 * The oracle for "never keeps" is the rule written out by hand here (an
 * integer tensor of at most 4096 elements, a float one of at most 64), not
 * the engine's own function: a tensor on the edge of each side is in the model.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "api/result.h"
#include "decode/pbc_prescan.h"
#include "model/types.h"
#include "model_builder.h"
#include "onnx_shapes.h"
#include "onnx_shapes.pb-c.h"
#include "test.h"
#include "wire_writer.h"

enum { FLOAT = 1, UINT8 = 2, INT64 = 7, STRING = 8 };

/* A TensorProto: dims before or after the payload, packed or one by one. */
static Wire tensor(const char *name, int dtype, int rank, const int64_t *dims, size_t raw_bytes,
                   int dims_last, int packed) {
  Wire t = {0}, d = {0};
  if (packed) {
    for (int i = 0; i < rank; i++) w_varint(&d, (uint64_t)dims[i]);
  } else {
    for (int i = 0; i < rank; i++) w_int(&d, 1, dims[i]);
  }
  if (!dims_last) {
    if (packed) w_bytes(&t, 1, d.p, d.n);
    else w_put(&t, d.p, d.n);
  }
  w_int(&t, 2, dtype);
  w_str(&t, 8, name);
  if (dtype == STRING) {
    uint8_t *s = calloc(raw_bytes ? raw_bytes : 1, 1);
    for (size_t k = 0; k < raw_bytes; k += 1000) w_bytes(&t, 6, s, raw_bytes - k < 1000 ? raw_bytes - k : 1000);
    free(s);
  } else if (raw_bytes) {
    uint8_t *raw = malloc(raw_bytes);
    for (size_t k = 0; k < raw_bytes; k++) raw[k] = (uint8_t)k;
    if (dtype == INT64 && raw_bytes == 16) { /* the Reshape target [-1, 512], little-endian */
      memset(raw, 0xff, 8);
      memset(raw + 8, 0, 8);
      raw[9] = 2;
    }
    w_bytes(&t, 9, raw, raw_bytes);
    free(raw);
  }
  if (dims_last) {
    if (packed) w_bytes(&t, 1, d.p, d.n);
    else w_put(&t, d.p, d.n);
  }
  w_free(&d);
  return t;
}

/* x[N, 256] @ w[256, 512] (a weight), reshaped by the int64 initializer
 * `shape` = [-1, 512] to [N, 512]; beside them initializers inference reads
 * (ints of 4096 elements, floats of 64) or does not (the rest), a Constant
 * node holding a big tensor, and a tensor with a zero dim and a payload. */
static Wire test_model(void) {
  Wire g = {0};
  const char *const mm_in[] = {"x", "w", NULL}, *const mm_out[] = {"xw", NULL};
  Wire n1 = w_node("MatMul", mm_in, mm_out, NULL);
  w_msg(&g, 1, &n1);
  const char *const rs_in[] = {"xw", "shape", NULL}, *const rs_out[] = {"r", NULL};
  Wire n2 = w_node("Reshape", rs_in, rs_out, NULL);
  w_msg(&g, 1, &n2);
  Wire attrs = {0}, a = {0};
  w_str(&a, 1, "value");
  Wire ct = tensor("c", FLOAT, 2, (const int64_t[]){4, 40000}, 4 * 40000 * 4, 1, 1);
  w_msg(&a, 5, &ct);
  w_int(&a, 20, 4); /* TENSOR */
  w_msg(&attrs, 5, &a);
  const char *const c_out[] = {"c", NULL};
  Wire n3 = w_node("Constant", NULL, c_out, &attrs);
  w_msg(&g, 1, &n3);
  w_str(&g, 2, "g");
  Wire inits[] = {
      tensor("w", FLOAT, 2, (const int64_t[]){256, 512}, 256 * 512 * 4, 0, 0),       /* dropped */
      tensor("shape", INT64, 1, (const int64_t[]){2}, 16, 0, 0),                    /* kept: read */
      tensor("ints4096", INT64, 1, (const int64_t[]){4096}, 4096 * 8, 1, 0),        /* kept (edge) */
      tensor("ints4097", INT64, 1, (const int64_t[]){4097}, 4097 * 8, 0, 1),        /* dropped (edge) */
      tensor("floats64", FLOAT, 1, (const int64_t[]){64}, 64 * 4, 0, 0),            /* kept (edge) */
      tensor("floats65", FLOAT, 2, (const int64_t[]){5, 13}, 65 * 4 * 8, 1, 1),     /* dropped: 65 floats */
      tensor("bytes4096", UINT8, 1, (const int64_t[]){4096}, 4096, 0, 0),           /* kept (edge) */
      tensor("empty", FLOAT, 2, (const int64_t[]){0, 7}, 50000, 0, 0),              /* kept: no element */
      tensor("strings", STRING, 1, (const int64_t[]){300}, 300000, 0, 0),           /* dropped */
  };
  for (size_t i = 0; i < sizeof inits / sizeof inits[0]; i++) w_msg(&g, 5, &inits[i]);
  /* x: float [N, 256] */
  Wire shape = w_shape(2, (const int64_t[]){0, 256}, (const char *const[]){"N", NULL});
  Wire tt = {0};
  w_int(&tt, 1, FLOAT);
  w_msg(&tt, 2, &shape);
  Wire tp = {0};
  w_msg(&tp, 1, &tt);
  Wire vx = w_value_info("x", &tp);
  w_msg(&g, 11, &vx);
  Wire rt = w_tensor_type(FLOAT, -1, NULL), vr = w_value_info("r", &rt);
  w_msg(&g, 12, &vr);
  return w_model(17, &g);
}

/* The names of the tensors whose payloads must go, by the rule above. */
static int must_drop(const char *name) {
  static const char *const dropped[] = {"w", "ints4097", "floats65", "strings", "c"};
  for (size_t i = 0; i < sizeof dropped / sizeof dropped[0]; i++)
    if (!strcmp(name, dropped[i])) return 1;
  return 0;
}

/* A tensor's payload fields, cleared for a comparison and put back for
 * protobuf-c to free. */
typedef struct Saved {
  Onnx__TensorProto *t;
  protobuf_c_boolean has_raw;
  ProtobufCBinaryData raw;
  size_t n_strings;
} Saved;

static Saved clear_payload(Onnx__TensorProto *t) {
  Saved s = {t, t->has_raw_data, t->raw_data, t->n_string_data};
  t->has_raw_data = 0;
  t->raw_data.len = 0;
  t->raw_data.data = NULL;
  t->n_string_data = 0;
  return s;
}

static void restore_payload(const Saved *s) {
  s->t->has_raw_data = s->has_raw;
  s->t->raw_data = s->raw;
  s->t->n_string_data = s->n_strings;
}

/* Any message packed again (protobuf-c's own writer, for comparisons). */
static uint8_t *repack_msg(const ProtobufCMessage *m, size_t *len) {
  *len = protobuf_c_message_get_packed_size(m);
  uint8_t *p = malloc(*len ? *len : 1);
  protobuf_c_message_pack(m, p);
  return p;
}

static uint8_t *repack(const Onnx__ModelProto *m, size_t *len) { return repack_msg(&m->base, len); }

static void test_rewrite_matches_protobuf_c(void) {
  Wire m = test_model();
  OsiDecodeError err = {0};
  int merge = 0;
  OsiPbcStrips strips = {0};
  CHECK(osi_pbc_prescan(m.p, m.n, &err, &merge, &strips));
  CHECK_INT(merge, 0);
  CHECK_INT(strips.count, 5);
  CHECK(!strips.failed);
  size_t out_len = 0;
  uint8_t *out = osi_pbc_strip_payloads(m.p, m.n, &strips, &out_len);
  CHECK(out != NULL);
  /* The payloads are gone; each message written again may grow by 4 bytes. */
  CHECK(out_len <= m.n - strips.bytes + 4 * 16);
  CHECK(out_len + 256 * 512 * 4 + 300000 < m.n);

  Onnx__ModelProto *orig = onnx__model_proto__unpack(NULL, m.n, m.p);
  Onnx__ModelProto *rewritten = out ? onnx__model_proto__unpack(NULL, out_len, out) : NULL;
  CHECK(orig && rewritten);
  if (orig && rewritten) {
    Onnx__GraphProto *g = orig->graph;
    Saved saved[16];
    int cleared = 0;
    for (size_t i = 0; i < g->n_initializer && cleared < 16; i++)
      if (must_drop(g->initializer[i]->name)) saved[cleared++] = clear_payload(g->initializer[i]);
    for (size_t i = 0; i < g->n_node; i++)
      for (size_t a = 0; a < g->node[i]->n_attribute && cleared < 16; a++)
        if (g->node[i]->attribute[a]->t && must_drop(g->node[i]->attribute[a]->t->name))
          saved[cleared++] = clear_payload(g->node[i]->attribute[a]->t);
    CHECK_INT(cleared, 5);
    size_t la, lb;
    uint8_t *a = repack(orig, &la), *b = repack(rewritten, &lb);
    CHECK_INT(la, lb);
    CHECK(la == lb && memcmp(a, b, la) == 0);
    free(a);
    free(b);
    for (int i = 0; i < cleared; i++) restore_payload(&saved[i]);
  }
  onnx__model_proto__free_unpacked(orig, NULL);
  onnx__model_proto__free_unpacked(rewritten, NULL);
  free(out);
  free(strips.items);
  free(strips.nodes);
  w_free(&m);
}

static uint8_t *repack_node(const Onnx__NodeProto *n, size_t *len) { return repack_msg(&n->base, len); }

/* The nodes left where they are (osi_pbc_strip_nodes) and each written
 * again when it holds a payload to drop (osi_pbc_strip_node): the model
 * without its graph's nodes, and each node, unpack to the original's parts
 * with those payloads cleared. */
static void test_node_rewrites_match_protobuf_c(void) {
  Wire m = test_model();
  OsiDecodeError err = {0};
  int merge = 0;
  OsiPbcStrips strips = {0};
  CHECK(osi_pbc_prescan(m.p, m.n, &err, &merge, &strips));
  CHECK_INT(strips.n_nodes, 3);
  CHECK(!strips.nodes_failed);
  size_t out_len = 0;
  uint8_t *out = osi_pbc_strip_nodes(m.p, m.n, &strips, &out_len);
  CHECK(out != NULL);
  Onnx__ModelProto *orig = onnx__model_proto__unpack(NULL, m.n, m.p);
  Onnx__ModelProto *rewritten = out ? onnx__model_proto__unpack(NULL, out_len, out) : NULL;
  CHECK(orig && rewritten);
  if (orig && rewritten) {
    Onnx__GraphProto *g = orig->graph;
    CHECK_INT(g->n_node, 3);
    CHECK_INT(rewritten->graph->n_node, 0);
    /* each node: its span is where it is, and its rewrite (when it holds
     * a payload to drop) is the node without it */
    size_t next = 0;
    int rewrites = 0;
    for (size_t i = 0; i < g->n_node && i < strips.n_nodes; i++) {
      const OsiPbcStrip *span = &strips.nodes[i];
      while (next < strips.count && strips.items[next].start < span->start) next++;
      Saved saved[4];
      int cleared = 0;
      for (size_t a = 0; a < g->node[i]->n_attribute && cleared < 4; a++)
        if (g->node[i]->attribute[a]->t && must_drop(g->node[i]->attribute[a]->t->name))
          saved[cleared++] = clear_payload(g->node[i]->attribute[a]->t);
      size_t la, lb = span->len;
      uint8_t *a = repack_node(g->node[i], &la), *b = (uint8_t *)span->start;
      if (next < strips.count && strips.items[next].start < span->start + span->len) {
        b = osi_pbc_strip_node(&strips, span, &next, &lb);
        rewrites++;
      }
      CHECK(b != NULL);
      Onnx__NodeProto *nb = b ? onnx__node_proto__unpack(NULL, lb, b) : NULL;
      size_t lc = 0;
      uint8_t *c = nb ? repack_node(nb, &lc) : NULL;
      CHECK(c && la == lc && memcmp(a, c, la) == 0);
      free(a);
      free(c);
      if (b != span->start) free(b);
      onnx__node_proto__free_unpacked(nb, NULL);
      for (int k = 0; k < cleared; k++) restore_payload(&saved[k]);
    }
    CHECK_INT(rewrites, 1); /* the Constant's */
    /* the rest: the original without nodes and with its initializers' payloads cleared */
    Saved saved[16];
    int cleared = 0;
    for (size_t i = 0; i < g->n_initializer && cleared < 16; i++)
      if (must_drop(g->initializer[i]->name)) saved[cleared++] = clear_payload(g->initializer[i]);
    size_t n_node = g->n_node;
    g->n_node = 0;
    size_t la, lb;
    uint8_t *a = repack(orig, &la), *b = repack(rewritten, &lb);
    CHECK(la == lb && memcmp(a, b, la) == 0);
    free(a);
    free(b);
    g->n_node = n_node;
    for (int i = 0; i < cleared; i++) restore_payload(&saved[i]);
  }
  onnx__model_proto__free_unpacked(orig, NULL);
  onnx__model_proto__free_unpacked(rewritten, NULL);
  free(out);
  free(strips.items);
  free(strips.nodes);
  w_free(&m);
}

typedef struct Reader {
  const uint8_t *p;
  size_t len, pos;
} Reader;

static int64_t read7(void *user, uint8_t *dst, size_t len) {
  Reader *r = user;
  size_t n = r->len - r->pos;
  if (n > 7) n = 7;
  if (n > len) n = len;
  memcpy(dst, r->p + r->pos, n);
  r->pos += n;
  return (int64_t)n;
}

static void test_same_answer_in_every_decoder(void) {
  Wire m = test_model();
  OsiResult *r[3];
  r[0] = osi_infer(m.p, m.n, OSI_OPT_DECODER_PBC);
  r[1] = osi_infer(m.p, m.n, OSI_OPT_DECODER_NANOPB);
  Reader rd = {m.p, m.n, 0};
  r[2] = osi_infer_stream(read7, NULL, &rd, m.n, 0);
  for (int i = 0; i < 3; i++) {
    CHECK_INT(osi_result_status(r[i]), OSI_OK);
    if (osi_result_status(r[i]) != OSI_OK) continue;
    /* shape's content [-1, 512] was read: Reshape gives [N, 512] */
    CHECK_STR(result_dims(r[i], "r"), "[N,512]");
    CHECK_STR(result_dims(r[i], "c"), "[4,40000]");
    CHECK_STR(osi_result_json(r[i]), osi_result_json(r[0]));
  }
  for (int i = 0; i < 3; i++) osi_result_delete(r[i]);
  w_free(&m);
}

int main(void) {
  test_rewrite_matches_protobuf_c();
  test_node_rewrites_match_protobuf_c();
  test_same_answer_in_every_decoder();
  TEST_MAIN_END();
}
