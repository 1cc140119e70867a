/*
 * The protobuf-c decoder reads the model graph's node envelopes from their
 * bytes (decode/pbc_node_fields.h) instead of having protobuf-c unpack
 * them. The oracle is protobuf-c itself: on every node the pre-scan
 * accepts, the reader must accept exactly when protobuf-c's unpack of the
 * node as a NodeProto does (but for the attributes' own contents, which
 * protobuf-c still unpacks, each on its own), and read the same names in
 * the same order, the same last name, op type, domain and overload, and
 * attributes that unpack to what protobuf-c unpacked. And on any bytes at
 * all (the pre-scan aside) it must stay inside them: each input sits in a
 * buffer of its exact size, for ASan to catch a read past it.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "decode/pbc_node_fields.h"
#include "decode/pbc_prescan.h"
#include "onnx_shapes.pb-c.h"
#include "test.h"
#include "wire_writer.h"

/* Whether the span holds the string s (protobuf-c's copy: NUL-terminated,
 * "" or NULL when absent). */
static int span_is(OsiPbcSpan sp, const char *s) {
  size_t n = s ? strlen(s) : 0;
  return sp.len == n && (n == 0 || memcmp(sp.p, s, n) == 0);
}

static int spans_are(const OsiPbcSpans *sp, char **s, size_t n) {
  if (sp->n != n) return 0;
  for (size_t i = 0; i < n; i++)
    if (!span_is(sp->v[i], s[i])) return 0;
  return 1;
}

/* Whether two AttributeProtos are the same message (packed the same). */
static int same_attr(const Onnx__AttributeProto *a, const Onnx__AttributeProto *b) {
  size_t na = onnx__attribute_proto__get_packed_size(a), nb = onnx__attribute_proto__get_packed_size(b);
  if (na != nb) return 0;
  uint8_t *pa = malloc(na ? na : 1), *pb = malloc(nb ? nb : 1);
  onnx__attribute_proto__pack(a, pa);
  onnx__attribute_proto__pack(b, pb);
  int same = memcmp(pa, pb, na) == 0;
  free(pa);
  free(pb);
  return same;
}

/* The node's bytes wrapped as ModelProto { graph { node } }, for the
 * pre-scan. 1 when it accepts them. */
static int prescan_accepts(const uint8_t *p, size_t n) {
  Wire g = {0}, m = {0};
  w_bytes(&g, 1, p, n);
  w_msg(&m, 7, &g);
  OsiDecodeError err = {0};
  int merge = 0;
  int ok = osi_pbc_prescan(m.p, m.n, &err, &merge, NULL);
  w_free(&m);
  return ok;
}

/* The copy the last check_node read (f's spans point into it). */
static uint8_t *last_copy;

/* The reader against protobuf-c on the n bytes at src (copied into a
 * buffer of exactly n bytes). Returns what the reader said. */
static OsiPbcNodeRead check_node(OsiPbcNodeFields *f, const uint8_t *src, size_t n, int *compared) {
  free(last_copy);
  uint8_t *p = last_copy = malloc(n ? n : 1);
  if (n) memcpy(p, src, n);
  OsiPbcNodeRead r = osi_pbc_node_fields_read(f, n ? p : NULL, n);
  CHECK(r != OSI_PBC_NODE_NOMEM);
  if (r == OSI_PBC_NODE_READ) { /* every span within the bytes */
    const OsiPbcSpan one[] = {f->name, f->op_type, f->domain, f->overload};
    int inside = 1;
    for (int i = 0; i < 4; i++)
      if (one[i].len && (one[i].p < p || one[i].len > (size_t)(p + n - one[i].p))) inside = 0;
    const OsiPbcSpans *many[] = {&f->input, &f->output, &f->attribute};
    for (int k = 0; k < 3; k++)
      for (size_t i = 0; i < many[k]->n; i++) {
        OsiPbcSpan s = many[k]->v[i];
        if (s.len && (s.p < p || s.len > (size_t)(p + n - s.p))) inside = 0;
      }
    CHECK(inside);
  }
  if (prescan_accepts(p, n)) {
    ++*compared;
    Onnx__NodeProto *np = onnx__node_proto__unpack(NULL, n, p);
    if (np) {
      CHECK_INT(r, OSI_PBC_NODE_READ);
      if (r == OSI_PBC_NODE_READ) {
        CHECK(spans_are(&f->input, np->input, np->n_input));
        CHECK(spans_are(&f->output, np->output, np->n_output));
        CHECK(span_is(f->name, np->name));
        CHECK(span_is(f->op_type, np->op_type));
        CHECK(span_is(f->domain, np->domain));
        CHECK(span_is(f->overload, np->overload));
        CHECK_INT(f->attribute.n, np->n_attribute);
        for (size_t i = 0; i < f->attribute.n && i < np->n_attribute; i++) {
          Onnx__AttributeProto *a = onnx__attribute_proto__unpack(NULL, f->attribute.v[i].len, f->attribute.v[i].p);
          CHECK(a && same_attr(a, np->attribute[i]));
          if (a) onnx__attribute_proto__free_unpacked(a, NULL);
        }
      }
      onnx__node_proto__free_unpacked(np, NULL);
    } else if (r == OSI_PBC_NODE_READ) {
      /* protobuf-c refused: then one of the attributes it unpacks refuses */
      int refused = 0;
      for (size_t i = 0; i < f->attribute.n; i++) {
        Onnx__AttributeProto *a = onnx__attribute_proto__unpack(NULL, f->attribute.v[i].len, f->attribute.v[i].p);
        if (!a) refused = 1;
        else onnx__attribute_proto__free_unpacked(a, NULL);
      }
      CHECK(refused);
    }
  }
  return r;
}

/* Cases written out: what each rule reads. */
static void test_rules(void) {
  OsiPbcNodeFields f = {0};
  int compared = 0;
  /* A name given twice: the last; an empty one after a name: empty. Inputs
   * and outputs in order, unknown fields of every wire type skipped. */
  Wire n = {0};
  w_str(&n, 1, "a");
  w_str(&n, 3, "first");
  w_int(&n, 6, 5);       /* unknown, varint */
  w_str(&n, 1, "b");
  w_key(&n, 9, 1);       /* unknown, 64-bit */
  w_put(&n, "12345678", 8);
  w_key(&n, 200, 5);     /* unknown, 32-bit, two-byte key */
  w_put(&n, "1234", 4);
  w_str(&n, 2, "y");
  w_str(&n, 3, "second");
  w_str(&n, 4, "Add");
  w_str(&n, 16, "unknown bytes");
  w_str(&n, 7, "ai.onnx");
  w_str(&n, 8, "");
  CHECK_INT(check_node(&f, n.p, n.n, &compared), OSI_PBC_NODE_READ);
  CHECK(f.input.n == 2 && span_is(f.input.v[0], "a") && span_is(f.input.v[1], "b"));
  CHECK(f.output.n == 1 && span_is(f.output.v[0], "y"));
  CHECK(span_is(f.name, "second") && span_is(f.op_type, "Add") && span_is(f.domain, "ai.onnx"));
  CHECK(f.overload.len == 0 && f.overload.p != NULL); /* given, empty */
  w_str(&n, 3, "");
  CHECK_INT(check_node(&f, n.p, n.n, &compared), OSI_PBC_NODE_READ);
  CHECK(f.name.len == 0);
  w_free(&n);
  /* A key and a length in longer encodings than needed. */
  w_varint_padded(&n, 1 << 3 | 2, 5);
  w_varint_padded(&n, 3, 5);
  w_put(&n, "abc", 3);
  CHECK_INT(check_node(&f, n.p, n.n, &compared), OSI_PBC_NODE_READ);
  CHECK(f.input.n == 1 && span_is(f.input.v[0], "abc"));
  w_free(&n);
  /* Refused as protobuf-c refuses: a known field as a number; a group; a
   * length past the end; a key cut short; a 6-byte key; field 0. */
  const uint8_t refused[][8] = {
      {2, 0x08, 0x01},             /* input = varint 1 */
      {5, 0x1d, 0, 0, 0, 0},       /* name as fixed32 */
      {2, 0x4b, 0x4c},             /* field 9 as a group */
      {3, 0x0a, 0x05, 'a'},        /* 5 bytes declared, 1 there */
      {1, 0x8a},                   /* a key cut short */
      {7, 0x8a, 0x80, 0x80, 0x80, 0x80, 0x00, 0x00}, /* a 6-byte key */
      {2, 0x02, 0x00},             /* field 0 */
      {3, 0x30, 0xff, 0xff},       /* field 6 varint cut short */
  };
  for (size_t i = 0; i < sizeof refused / sizeof *refused; i++)
    CHECK_INT(check_node(&f, refused[i] + 1, refused[i][0], &compared), OSI_PBC_NODE_REFUSED);
  CHECK_INT(check_node(&f, NULL, 0, &compared), OSI_PBC_NODE_READ); /* an empty node */
  CHECK(f.input.n == 0 && f.name.len == 0);
  CHECK(compared >= 6); /* the pre-scan let the oracle see them */
  osi_pbc_node_fields_free(&f);
}

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static uint32_t rnd(uint32_t n) { /* 0 .. n-1 */
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 7;
  rng_state ^= rng_state << 17;
  return (uint32_t)(rng_state % n);
}

/* A random NodeProto field: mostly the known ones, well-formed, with now
 * and then a longer key or length, another wire type, an unknown field, a
 * valid or broken attribute, a NUL in a name. */
static void random_field(Wire *w) {
  static const int ids[] = {1, 1, 2, 3, 4, 5, 5, 7, 8, 6, 9, 16, 300};
  int id = ids[rnd(sizeof ids / sizeof *ids)];
  static const int wires[] = {2, 2, 2, 2, 2, 2, 0, 1, 5, 3};
  int wire = wires[rnd(sizeof wires / sizeof *wires)];
  uint64_t key = (uint64_t)id << 3 | (uint64_t)wire;
  if (rnd(10) == 0) w_varint_padded(w, key, 2 + (int)rnd(4));
  else w_varint(w, key);
  switch (wire) {
  case 0:
    if (rnd(5) == 0) w_varint_padded(w, rnd(1000), 1 + (int)rnd(10));
    else w_varint(w, rnd(100000));
    break;
  case 1: w_put(w, "\x01\x02\x03\x04\x05\x06\x07\x08", 8); break;
  case 5: w_put(w, "\x01\x02\x03\x04", 4); break;
  case 2: {
    Wire body = {0};
    if (id == 5 && rnd(4) != 0) { /* an AttributeProto */
      w_str(&body, 1, rnd(2) ? "axis" : "perm");
      w_int(&body, 20, 2);
      w_int(&body, 3, rnd(5));
      if (rnd(8) == 0) w_key(&body, 2, 0); /* a float as a varint, cut: protobuf-c refuses */
    } else {
      size_t len = rnd(12);
      for (size_t i = 0; i < len; i++) {
        uint8_t c = (uint8_t)('a' + rnd(26));
        if (rnd(60) == 0) c = 0;
        w_put(&body, &c, 1);
      }
    }
    if (rnd(10) == 0) w_varint_padded(w, body.n, 2 + (int)rnd(4));
    else w_varint(w, body.n);
    w_put(w, body.p, body.n);
    w_free(&body);
    break;
  }
  default: break; /* a group start: nothing follows */
  }
}

static void test_random_nodes(void) {
  OsiPbcNodeFields f = {0};
  int compared = 0, read = 0;
  for (int k = 0; k < 20000; k++) {
    Wire n = {0};
    for (int i = (int)rnd(9); i > 0; i--) random_field(&n);
    if (n.n && rnd(8) == 0) n.n = rnd((uint32_t)n.n); /* cut anywhere */
    if (n.n && rnd(8) == 0) n.p[rnd((uint32_t)n.n)] ^= (uint8_t)(1u << rnd(8)); /* a bit flipped */
    read += check_node(&f, n.p, n.n, &compared) == OSI_PBC_NODE_READ;
    w_free(&n);
  }
  /* Both sides of the oracle were exercised. */
  CHECK(compared > 5000);
  CHECK(read > 5000 && read < 20000);
  osi_pbc_node_fields_free(&f);
}

int main(void) {
  test_rules();
  test_random_nodes();
  free(last_copy);
  TEST_MAIN_END();
}
