/*
 * The two decoders read the same bytes the same way, as protobuf specifies,
 * on encodings no ONNX writer produces but the wire format allows (or
 * forbids). Every model runs through protobuf-c, nanopb over memory and
 * nanopb streaming in 3-byte reads, and each of the three must give the
 * expected answer:
 *
 *  - a non-repeated message field written twice is merged (protobuf's
 *    "Message::MergeFrom" rule: scalars and strings last-wins, repeated
 *    fields appended, messages merged recursively; a oneof keeps its last
 *    member, and the same member twice is merged). The expected values
 *    were derived from that rule by hand and match what python-onnx
 *    (protobuf 4.21, C++ parser) reads from the same bytes;
 *  - keys and length prefixes longer than 5 bytes, and lengths past 2^31,
 *    are refused (as protobuf's C++ parser and protobuf-c do); values may
 *    take 10 bytes;
 *  - a string field with a NUL byte is refused, never cut;
 *  - a truncated file says where it ends, the same way in both decoders;
 *  - nesting counts wherever it is in the bytes, used or not.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "api/result.h"
#include "model/types.h"
#include "model_builder.h"
#include "onnx_shapes.h"
#include "test.h"
#include "wire_writer.h"

/* Section - Running the three decoders */

#define N_RUNS 3
static const char *const RUN_NAMES[N_RUNS] = {"protobuf-c", "nanopb", "nanopb stream"};

typedef struct Runs {
  OsiResult *r[N_RUNS];
} Runs;

typedef struct Reader {
  const uint8_t *p;
  size_t len, pos;
} Reader;

static int64_t read3(void *user, uint8_t *dst, size_t len) {
  Reader *r = user;
  size_t n = r->len - r->pos;
  if (n > 3) n = 3;
  if (n > len) n = len;
  memcpy(dst, r->p + r->pos, n);
  r->pos += n;
  return (int64_t)n;
}

static Runs run3(const Wire *m) {
  Runs x;
  x.r[0] = osi_infer(m->p, m->n, OSI_OPT_DECODER_PBC);
  x.r[1] = osi_infer(m->p, m->n, OSI_OPT_DECODER_NANOPB);
  Reader rd = {m->p, m->n, 0};
  x.r[2] = osi_infer_stream(read3, NULL, &rd, m->n, 0);
  return x;
}

static void free3(Runs *x) {
  for (int i = 0; i < N_RUNS; i++) osi_result_delete(x->r[i]);
}

/* Each run is OK and `name` has element type `elem` and dims `dims` ("[1,3]"). */
static void expect_tensor(const char *what, Runs *x, const char *name, int elem, const char *dims) {
  for (int i = 0; i < N_RUNS; i++) {
    OsiResult *r = x->r[i];
    test_checks++;
    if (osi_result_status(r) != OSI_OK) {
      test_failures++;
      fprintf(stderr, "%s (%s): status %s: %s\n", what, RUN_NAMES[i],
              osi_status_name((OsiStatus)osi_result_status(r)), osi_result_error(r));
      continue;
    }
    const OsiType *t = osi_result_lookup(r, name);
    const char *got = result_dims(r, name);
    test_checks++;
    if (!t || t->kind != OSI_KIND_TENSOR || t->elem_type != elem || strcmp(got, dims) != 0) {
      test_failures++;
      fprintf(stderr, "%s (%s): '%s' is elem %d %s, want elem %d %s\n", what, RUN_NAMES[i], name,
              t ? t->elem_type : -1, got, elem, dims);
    }
  }
}

/* Each run fails with `status` and a message containing `text`. */
static void expect_error(const char *what, Runs *x, OsiStatus status, const char *text) {
  for (int i = 0; i < N_RUNS; i++) {
    OsiResult *r = x->r[i];
    test_checks++;
    if (osi_result_status(r) != (int)status || !strstr(osi_result_error(r), text)) {
      test_failures++;
      fprintf(stderr, "%s (%s): %s \"%s\", want %s \"...%s...\"\n", what, RUN_NAMES[i],
              osi_status_name((OsiStatus)osi_result_status(r)), osi_result_error(r),
              osi_status_name(status), text);
    }
  }
}

/* Section - Models */

static const char *const X[] = {"x", NULL}, *const Y[] = {"y", NULL}, *const C[] = {"c", NULL};
static const char *const XC[] = {"x", "c", NULL};

/* graph: nodes (raw NodeProto fields `1:`), input x of type `xtype` (NULL: float[3]), output y. */
static Wire graph_of(Wire *nodes, Wire *xtype) {
  Wire g = {0};
  if (nodes) {
    w_put(&g, nodes->p, nodes->n);
    w_free(nodes);
  }
  w_str(&g, 2, "g");
  Wire xt = xtype ? *xtype : w_tensor_type(1, 1, (const int64_t[]){3});
  Wire vx = w_value_info("x", &xt);
  w_msg(&g, 11, &vx);
  Wire yt = w_tensor_type(1, -1, NULL), vy = w_value_info("y", &yt);
  w_msg(&g, 12, &vy);
  return g;
}

static Wire model_of(Wire *nodes, Wire *xtype) {
  Wire g = graph_of(nodes, xtype);
  return w_model(17, &g);
}

/* NodeProto fields for one node, appended to `nodes` as field 1 of GraphProto. */
static void add_node(Wire *nodes, const char *op, const char *const *in, const char *const *out,
                     Wire *attrs) {
  Wire n = w_node(op, in, out, attrs);
  w_msg(nodes, 1, &n);
}

/* An AttributeProto (field 5 of NodeProto) named `name` of type `type`
 * whose member `field` is written once per entry of parts (each frees). */
static void add_attr_parts(Wire *attrs, const char *name, int type, int field, Wire *parts, int n) {
  Wire a = {0};
  w_str(&a, 1, name);
  for (int i = 0; i < n; i++) w_msg(&a, field, &parts[i]);
  w_int(&a, 20, type);
  w_msg(attrs, 5, &a);
}

/* Section - Merging */

/* Constant's tensor `t` in two occurrences: dims and data_type in the
 * first, the int64 values appended across both: [1, 3]. */
static void test_merge_constant_tensor(void) {
  Wire t[2] = {{0}, {0}}, attrs = {0}, nodes = {0};
  w_int(&t[0], 1, 2);  /* dims: [2] */
  w_int(&t[0], 2, 7);  /* data_type: int64 */
  w_bytes(&t[0], 7, (const uint8_t[]){1}, 1); /* int64_data: packed [1] */
  w_bytes(&t[1], 7, (const uint8_t[]){3}, 1); /* int64_data: packed [3] */
  add_attr_parts(&attrs, "value", 4, 5, t, 2);
  add_node(&nodes, "Constant", NULL, C, &attrs);
  add_node(&nodes, "Reshape", XC, Y, NULL);
  Wire m = model_of(&nodes, NULL);
  Runs x = run3(&m);
  expect_tensor("Constant t in two parts", &x, "c", 7, "[2]");
  expect_tensor("Constant t in two parts", &x, "y", 1, "[1,3]");
  free3(&x);
  w_free(&m);
}

/* A later occurrence's data_type replaces the earlier one; absent in the
 * later one, the earlier one stays (the test above). */
static void test_merge_scalar_last_wins(void) {
  Wire t[2] = {{0}, {0}}, attrs = {0}, nodes = {0};
  w_int(&t[0], 1, 2);
  w_int(&t[0], 2, 1); /* float, then ... */
  w_int(&t[1], 2, 7); /* ... int64 */
  w_bytes(&t[1], 7, (const uint8_t[]){1, 3}, 2);
  add_attr_parts(&attrs, "value", 4, 5, t, 2);
  add_node(&nodes, "Constant", NULL, C, &attrs);
  add_node(&nodes, "Reshape", XC, Y, NULL);
  Wire m = model_of(&nodes, NULL);
  Runs x = run3(&m);
  expect_tensor("data_type written twice", &x, "y", 1, "[1,3]");
  free3(&x);
  w_free(&m);
}

/* raw_data of 8 bytes, then an empty raw_data in a second occurrence of
 * `t`: the empty one wins, so the content (one int64) is not there and
 * Expand's output dim is not known. (protobuf-c's own merge keeps the
 * earlier bytes, which would give [5].) */
static void test_merge_empty_bytes_wins(void) {
  Wire t[2] = {{0}, {0}}, attrs = {0}, nodes = {0};
  w_int(&t[0], 1, 1);
  w_int(&t[0], 2, 7);
  w_bytes(&t[0], 9, (const uint8_t[]){5, 0, 0, 0, 0, 0, 0, 0}, 8);
  w_bytes(&t[1], 9, "", 0);
  add_attr_parts(&attrs, "value", 4, 5, t, 2);
  add_node(&nodes, "Constant", NULL, C, &attrs);
  add_node(&nodes, "Expand", XC, Y, NULL);
  Wire x1 = w_tensor_type(1, 1, (const int64_t[]){1});
  Wire m = model_of(&nodes, &x1);
  Runs x = run3(&m);
  for (int i = 0; i < N_RUNS; i++) {
    const char *d = result_dims(x.r[i], "y");
    test_checks++;
    if (osi_result_status(x.r[i]) != OSI_OK || strcmp(d, "[5]") == 0) {
      test_failures++;
      fprintf(stderr, "empty raw_data last (%s): y is %s (%s)\n", RUN_NAMES[i], d, osi_result_error(x.r[i]));
    }
  }
  free3(&x);
  w_free(&m);
}

/* ValueInfoProto.type in two occurrences: elem_type and dim 1 in the first,
 * dim 3 in the second; each has the tensor_type member, so the two are merged. */
static void test_merge_value_type(void) {
  Wire a = w_tensor_type(1, 1, (const int64_t[]){1}), b = w_tensor_type(0, 1, (const int64_t[]){3});
  /* x's ValueInfoProto is written by hand: name, type, type */
  Wire g = {0}, nodes = {0}, vx = {0};
  add_node(&nodes, "Identity", X, Y, NULL);
  w_put(&g, nodes.p, nodes.n);
  w_free(&nodes);
  w_str(&vx, 1, "x");
  w_msg(&vx, 2, &a);
  w_msg(&vx, 2, &b);
  w_msg(&g, 11, &vx);
  Wire yt = w_tensor_type(1, -1, NULL), vy = w_value_info("y", &yt);
  w_msg(&g, 12, &vy);
  Wire m = w_model(17, &g);
  Runs x = run3(&m);
  expect_tensor("value type in two parts", &x, "x", 1, "[1,3]");
  expect_tensor("value type in two parts", &x, "y", 1, "[1,3]");
  free3(&x);
  w_free(&m);
}

/* Within one TypeProto: the oneof member tensor_type twice (merged), the
 * shape twice (merged). */
static void test_merge_oneof_member_and_shape(void) {
  Wire tp = {0};
  Wire a = w_tensor_type_body(1, 1, (const int64_t[]){1}), b = w_tensor_type_body(0, 1, (const int64_t[]){3});
  w_msg(&tp, 1, &a);
  w_msg(&tp, 1, &b);
  Wire nodes = {0};
  add_node(&nodes, "Identity", X, Y, NULL);
  Wire m = model_of(&nodes, &tp);
  Runs x = run3(&m);
  expect_tensor("tensor_type twice", &x, "x", 1, "[1,3]");
  free3(&x);
  w_free(&m);

  Wire body = {0}, s1 = w_shape(1, (const int64_t[]){1}, NULL), s2 = w_shape(1, (const int64_t[]){3}, NULL);
  w_int(&body, 1, 1);
  w_msg(&body, 2, &s1);
  w_msg(&body, 2, &s2);
  tp = (Wire){0};
  w_msg(&tp, 1, &body);
  nodes = (Wire){0};
  add_node(&nodes, "Identity", X, Y, NULL);
  m = model_of(&nodes, &tp);
  x = run3(&m);
  expect_tensor("shape twice", &x, "x", 1, "[1,3]");
  free3(&x);
  w_free(&m);
}

/* A different oneof member replaces the previous one (and clears it: the
 * same member again starts afresh, without the earlier elem_type). */
static void test_oneof_last_member(void) {
  /* tensor_type{float,[5]}, sequence_type{elem_type: tensor_type{float,[2]}} -> sequence */
  Wire tp = {0}, t5 = w_tensor_type_body(1, 1, (const int64_t[]){5});
  w_msg(&tp, 1, &t5);
  Wire elem = w_tensor_type(1, 1, (const int64_t[]){2}), seq = {0};
  w_msg(&seq, 1, &elem);
  w_msg(&tp, 4, &seq);
  Wire nodes = {0};
  add_node(&nodes, "Identity", X, Y, NULL);
  Wire m = model_of(&nodes, &tp);
  Runs x = run3(&m);
  for (int i = 0; i < N_RUNS; i++) {
    const OsiType *t = osi_result_status(x.r[i]) == OSI_OK ? osi_result_lookup(x.r[i], "x") : NULL;
    test_checks++;
    if (!t || t->kind != OSI_KIND_SEQUENCE || !t->elem || t->elem->elem_type != 1 || t->elem->rank != 1) {
      test_failures++;
      fprintf(stderr, "oneof tensor then sequence (%s): x is not a sequence of float[2] (%s)\n",
              RUN_NAMES[i], osi_result_error(x.r[i]));
    }
  }
  free3(&x);
  w_free(&m);

  /* tensor_type{float,[5]}, sequence_type{...}, tensor_type{[3]} -> tensor, no elem_type, [3] */
  tp = (Wire){0};
  t5 = w_tensor_type_body(1, 1, (const int64_t[]){5});
  w_msg(&tp, 1, &t5);
  elem = w_tensor_type(1, 1, (const int64_t[]){2});
  seq = (Wire){0};
  w_msg(&seq, 1, &elem);
  w_msg(&tp, 4, &seq);
  Wire t3 = w_tensor_type_body(0, 1, (const int64_t[]){3});
  w_msg(&tp, 1, &t3);
  nodes = (Wire){0};
  add_node(&nodes, "Identity", X, Y, NULL);
  m = model_of(&nodes, &tp);
  x = run3(&m);
  expect_tensor("tensor, sequence, tensor", &x, "x", 0, "[3]");
  free3(&x);
  w_free(&m);
}

/* Sequence.elem_type twice, and the sequence_type member twice: merged. */
static void test_merge_nested_types(void) {
  for (int split_member = 0; split_member < 2; split_member++) {
    Wire tp = {0};
    Wire e1 = w_tensor_type(1, -1, NULL), e2 = w_tensor_type(0, 1, (const int64_t[]){2});
    if (split_member) {
      Wire s1 = {0}, s2 = {0};
      w_msg(&s1, 1, &e1);
      w_msg(&s2, 1, &e2);
      w_msg(&tp, 4, &s1);
      w_msg(&tp, 4, &s2);
    } else {
      Wire s = {0};
      w_msg(&s, 1, &e1);
      w_msg(&s, 1, &e2);
      w_msg(&tp, 4, &s);
    }
    Wire nodes = {0};
    add_node(&nodes, "Identity", X, Y, NULL);
    Wire m = model_of(&nodes, &tp);
    Runs x = run3(&m);
    for (int i = 0; i < N_RUNS; i++) {
      const OsiType *t = osi_result_status(x.r[i]) == OSI_OK ? osi_result_lookup(x.r[i], "x") : NULL;
      test_checks++;
      if (!t || t->kind != OSI_KIND_SEQUENCE || !t->elem || t->elem->elem_type != 1 || t->elem->rank != 1) {
        test_failures++;
        fprintf(stderr, "%s twice (%s): x is not a sequence of float[2] (%s)\n",
                split_member ? "sequence_type" : "elem_type", RUN_NAMES[i], osi_result_error(x.r[i]));
      }
    }
    free3(&x);
    w_free(&m);
  }
}

/* The attribute member `tp` (Optional's type) in two occurrences, and a
 * map's value_type (in two map_type occurrences): merged. */
static void test_merge_type_attribute_and_map(void) {
  Wire parts[2] = {w_tensor_type(1, -1, NULL), w_tensor_type(0, 1, (const int64_t[]){2})};
  Wire attrs = {0}, nodes = {0};
  add_attr_parts(&attrs, "type", 13, 14, parts, 2);
  add_node(&nodes, "Optional", NULL, (const char *const[]){"o", NULL}, &attrs);
  add_node(&nodes, "Identity", X, Y, NULL);
  /* x: map_type{key_type int64, value_type{float}}, map_type{value_type{[2]}} */
  Wire v1 = w_tensor_type(1, -1, NULL), v2 = w_tensor_type(0, 1, (const int64_t[]){2});
  Wire m1 = {0}, m2 = {0}, tp = {0};
  w_int(&m1, 1, 7);
  w_msg(&m1, 2, &v1);
  w_msg(&m2, 2, &v2);
  w_msg(&tp, 5, &m1);
  w_msg(&tp, 5, &m2);
  Wire m = model_of(&nodes, &tp);
  Runs x = run3(&m);
  for (int i = 0; i < N_RUNS; i++) {
    int ok = osi_result_status(x.r[i]) == OSI_OK;
    const OsiType *o = ok ? osi_result_lookup(x.r[i], "o") : NULL, *mt = ok ? osi_result_lookup(x.r[i], "x") : NULL;
    test_checks++;
    if (!o || o->kind != OSI_KIND_OPTIONAL || !o->elem || o->elem->elem_type != 1 || o->elem->rank != 1 ||
        !mt || mt->kind != OSI_KIND_MAP || mt->elem_type != 7 || !mt->elem || mt->elem->elem_type != 1 ||
        mt->elem->rank != 1) {
      test_failures++;
      fprintf(stderr, "tp / map value_type in two parts (%s): not optional(float[2]) and map(int64, float[2]) (%s)\n",
              RUN_NAMES[i], osi_result_error(x.r[i]));
    }
  }
  free3(&x);
  w_free(&m);
}

/* Two occurrences of a TypeProto field that sets no member merge into a
 * TypeProto without one: valid (protobuf-c's own merge refuses it). */
static void test_merge_empty_types(void) {
  Wire seq = {0}, e1 = {0}, e2 = {0}, tp = {0};
  w_msg(&seq, 1, &e1);
  w_msg(&seq, 1, &e2);
  w_msg(&tp, 4, &seq);
  Wire nodes = {0};
  add_node(&nodes, "Identity", X, Y, NULL);
  Wire m = model_of(&nodes, &tp);
  Runs x = run3(&m);
  for (int i = 0; i < N_RUNS; i++) {
    const OsiType *t = osi_result_status(x.r[i]) == OSI_OK ? osi_result_lookup(x.r[i], "x") : NULL;
    test_checks++;
    if (!t || t->kind != OSI_KIND_SEQUENCE || t->elem) {
      test_failures++;
      fprintf(stderr, "empty elem_type twice (%s): x is not a sequence of an unknown type (%s)\n",
              RUN_NAMES[i], osi_result_error(x.r[i]));
    }
  }
  free3(&x);
  w_free(&m);
}

/* Dimension's oneof: the last of dim_value / dim_param wins. */
static void test_dim_oneof(void) {
  Wire shape = {0}, d1 = {0}, d2 = {0};
  w_int(&d1, 1, 4);
  w_str(&d1, 2, "N");
  w_str(&d2, 2, "M");
  w_int(&d2, 1, 4);
  w_msg(&shape, 1, &d1);
  w_msg(&shape, 1, &d2);
  Wire body = {0}, tp = {0};
  w_int(&body, 1, 1);
  w_msg(&body, 2, &shape);
  w_msg(&tp, 1, &body);
  Wire nodes = {0};
  add_node(&nodes, "Identity", X, Y, NULL);
  Wire m = model_of(&nodes, &tp);
  Runs x = run3(&m);
  expect_tensor("dim_value/dim_param", &x, "x", 1, "[N,4]");
  free3(&x);
  w_free(&m);
}

/* If's then_branch in two occurrences: the node in the first, the output in
 * the second. Merged, the branch computes o = Identity(x). */
static void test_merge_graph_attribute(void) {
  Wire parts[2] = {{0}, {0}}, els = {0};
  Wire bn = {0};
  add_node(&bn, "Identity", X, (const char *const[]){"o", NULL}, NULL);
  w_put(&parts[0], bn.p, bn.n);
  w_put(&els, bn.p, bn.n);
  w_free(&bn);
  w_str(&parts[1], 2, "then");
  w_str(&els, 2, "else");
  Wire ot = w_tensor_type(1, 1, (const int64_t[]){3}), vo = w_value_info("o", &ot);
  w_msg_copy(&parts[1], 12, &vo);
  w_msg(&els, 12, &vo);
  Wire attrs = {0};
  add_attr_parts(&attrs, "then_branch", 5, 6, parts, 2);
  add_attr_parts(&attrs, "else_branch", 5, 6, &els, 1);
  Wire nodes = {0};
  add_node(&nodes, "If", (const char *const[]){"cond", NULL}, Y, &attrs);
  Wire g = graph_of(&nodes, NULL);
  Wire ct = w_tensor_type(9, 0, NULL), vc = w_value_info("cond", &ct);
  w_msg(&g, 11, &vc);
  Wire m = w_model(17, &g);
  Runs x = run3(&m);
  expect_tensor("If branch in two parts", &x, "y", 1, "[3]");
  free3(&x);
  w_free(&m);
}

/* Constant sparse_value in two occurrences: dims appended, values' data_type
 * from the second. */
static void test_merge_sparse(void) {
  Wire parts[2] = {{0}, {0}}, vals = {0};
  w_int(&parts[0], 3, 2);
  w_int(&parts[1], 3, 3);
  w_int(&vals, 2, 1);
  w_msg(&parts[1], 1, &vals);
  Wire attrs = {0}, nodes = {0};
  add_attr_parts(&attrs, "sparse_value", 11, 22, parts, 2);
  add_node(&nodes, "Constant", NULL, C, &attrs);
  add_node(&nodes, "Identity", X, Y, NULL);
  Wire m = model_of(&nodes, NULL);
  Runs x = run3(&m);
  expect_tensor("sparse_value in two parts", &x, "c", 1, "[2,3]");
  free3(&x);
  w_free(&m);
}

/* Section - Varint encodings */

/* The model with its graph field's key (or length) written in `len` bytes. */
static Wire model_padded(int key_len, int length_len, uint64_t extra_len) {
  Wire nodes = {0};
  add_node(&nodes, "Identity", X, Y, NULL);
  Wire g = graph_of(&nodes, NULL);
  Wire m = {0}, op = {0};
  w_int(&m, 1, 8);
  w_int(&op, 2, 17);
  w_msg(&m, 8, &op);
  w_varint_padded(&m, 7 << 3 | 2, key_len);
  w_varint_padded(&m, g.n + extra_len, length_len);
  w_put(&m, g.p, g.n);
  w_free(&g);
  return m;
}

static void test_varint_lengths(void) {
  for (int n = 1; n <= 11; n++) {
    char what[64];
    Wire m = model_padded(n, 1, 0);
    Runs x = run3(&m);
    snprintf(what, sizeof what, "%d-byte key", n);
    if (n <= 5) expect_tensor(what, &x, "y", 1, "[3]");
    else expect_error(what, &x, OSI_ERR_PARSE, "");
    free3(&x);
    w_free(&m);
    m = model_padded(1, n, 0);
    x = run3(&m);
    snprintf(what, sizeof what, "%d-byte length", n);
    if (n <= 5) expect_tensor(what, &x, "y", 1, "[3]");
    else expect_error(what, &x, OSI_ERR_PARSE, "");
    free3(&x);
    w_free(&m);
  }
  /* A value (ir_version) may take 10 bytes. */
  Wire nodes = {0};
  add_node(&nodes, "Identity", X, Y, NULL);
  Wire g = graph_of(&nodes, NULL), m = {0}, op = {0};
  w_key(&m, 1, 0);
  w_varint_padded(&m, 8, 10);
  w_int(&op, 2, 17);
  w_msg(&m, 8, &op);
  w_msg(&m, 7, &g);
  Runs x = run3(&m);
  expect_tensor("10-byte value", &x, "y", 1, "[3]");
  free3(&x);
  w_free(&m);
}

/* A length prefix past 2^31 (2^32 + n: size_t is 32-bit in wasm) is refused. */
static void test_huge_length(void) {
  const uint64_t lens[] = {(1ull << 32) + 1, (1ull << 31) + 5, (1ull << 32) + 60};
  for (size_t i = 0; i < sizeof lens / sizeof *lens; i++) {
    Wire nodes = {0};
    add_node(&nodes, "Identity", X, Y, NULL);
    Wire g = graph_of(&nodes, NULL);
    /* the graph name field with a huge length, at the end of the graph */
    w_key(&g, 2, 2);
    w_varint(&g, lens[i]);
    w_put(&g, "g", 1);
    Wire m = w_model(17, &g);
    Runs x = run3(&m);
    expect_error("huge length prefix", &x, OSI_ERR_PARSE, "");
    free3(&x);
    w_free(&m);
  }
}

/* Section - Numbers past what is kept */

/* A Constant whose tensor (data_type `dtype`, one dim of `count`) carries
 * `payload` as its packed field `field`. */
static Wire constant_with_payload(int dtype, int64_t count, int field, const Wire *payload) {
  Wire t = {0};
  w_int(&t, 1, count);
  w_int(&t, 2, dtype);
  w_bytes(&t, field, payload->p, payload->n);
  Wire a = {0};
  w_str(&a, 1, "value");
  w_msg(&a, 5, &t);
  w_int(&a, 20, 4);
  Wire attrs = {0};
  w_msg(&attrs, 5, &a);
  Wire nodes = {0};
  add_node(&nodes, "Constant", (const char *const[]){NULL}, Y, &attrs);
  Wire g = {0};
  w_put(&g, nodes.p, nodes.n);
  w_free(&nodes);
  w_str(&g, 2, "g");
  Wire yt = w_tensor_type(1, -1, NULL), vy = w_value_info("y", &yt);
  w_msg(&g, 12, &vy);
  return w_model(17, &g);
}

/* nanopb keeps the first OSI_NPB_MAX_KEPT_ELEMS numbers of a tensor and
 * passes over the rest, which protobuf-c unpacks all the same: what it
 * refuses there (a varint of 11 bytes, a last varint cut short, fixed-width
 * data that is not a whole number of elements) nanopb must refuse too,
 * kept or not, and what it reads the same must still decode. */
static void test_numbers_past_the_kept(void) {
  const int64_t n = OSI_MAX_VALUE_ELEMS + 100; /* OSI_NPB_MAX_KEPT_ELEMS */
  for (int bad = 0; bad < 4; bad++) {
    for (int kept = 0; kept < 2; kept++) {
      int64_t count = kept ? 4 : n; /* the fault within the kept numbers or past them */
      Wire payload = {0};
      int dtype = bad >= 2 ? 1 : 7, field = bad >= 2 ? 4 : 7; /* float_data / int64_data */
      for (int64_t i = 0; i + 1 < count; i++) {
        if (dtype == 7) w_varint(&payload, (uint64_t)i);
        else w_put(&payload, "\0\0\x80\x3f", 4);
      }
      if (bad == 0) w_put(&payload, "\x81\x81\x81\x81\x81\x81\x81\x81\x81\x81\x01", 11);
      if (bad == 1) w_put(&payload, "\x81\x81", 2);
      if (bad == 2) w_put(&payload, "\0\0\x80", 3);
      if (bad == 3) w_put(&payload, "\0\0\x80\x3f", 4); /* well-formed */
      Wire m = constant_with_payload(dtype, count, field, &payload);
      w_free(&payload);
      Runs x = run3(&m);
      char what[80];
      snprintf(what, sizeof what, "packed numbers, case %d, %s", bad, kept ? "kept" : "past the kept");
      if (bad == 3) {
        char dims[32];
        snprintf(dims, sizeof dims, "[%lld]", (long long)count);
        expect_tensor(what, &x, "y", 1, dims);
      } else {
        expect_error(what, &x, OSI_ERR_PARSE, "the bytes are not a valid ONNX ModelProto");
      }
      free3(&x);
      w_free(&m);
    }
  }
}

/* Section - NUL bytes in strings */

static void test_nul_in_names(void) {
  static const char in_nul[] = "x\0junk";
  /* a node input "x\0junk" (would read x) */
  Wire n = {0}, nodes = {0};
  w_bytes(&n, 1, in_nul, sizeof in_nul - 1);
  w_str(&n, 2, "y");
  w_str(&n, 4, "Identity");
  w_msg(&nodes, 1, &n);
  Wire m = model_of(&nodes, NULL);
  Runs x = run3(&m);
  expect_error("NUL in a node input", &x, OSI_ERR_PARSE, "NUL");
  free3(&x);
  w_free(&m);

  /* two dim_params that differ after a NUL */
  Wire shape = {0}, d1 = {0}, d2 = {0};
  w_bytes(&d1, 2, "N\0a", 3);
  w_bytes(&d2, 2, "N\0b", 3);
  w_msg(&shape, 1, &d1);
  w_msg(&shape, 1, &d2);
  Wire body = {0}, tp = {0};
  w_int(&body, 1, 1);
  w_msg(&body, 2, &shape);
  w_msg(&tp, 1, &body);
  nodes = (Wire){0};
  add_node(&nodes, "Identity", X, Y, NULL);
  m = model_of(&nodes, &tp);
  x = run3(&m);
  expect_error("NUL in a dim_param", &x, OSI_ERR_PARSE, "NUL");
  free3(&x);
  w_free(&m);

  /* a string field the engine does not use (TypeProto.denotation) */
  tp = w_tensor_type(1, 1, (const int64_t[]){3});
  w_bytes(&tp, 6, "T\0", 2);
  nodes = (Wire){0};
  add_node(&nodes, "Identity", X, Y, NULL);
  m = model_of(&nodes, &tp);
  x = run3(&m);
  expect_error("NUL in a denotation", &x, OSI_ERR_PARSE, "NUL");
  free3(&x);
  w_free(&m);

  /* bytes are not names: a STRING attribute's value may hold a NUL */
  Wire a = {0}, attrs = {0};
  w_str(&a, 1, "note");
  w_bytes(&a, 4, "a\0b", 3);
  w_int(&a, 20, 3);
  w_msg(&attrs, 5, &a);
  nodes = (Wire){0};
  add_node(&nodes, "Identity", X, Y, &attrs);
  m = model_of(&nodes, NULL);
  x = run3(&m);
  expect_tensor("NUL in a bytes attribute", &x, "y", 1, "[3]");
  free3(&x);
  w_free(&m);
}

/* Section - Truncated files */

static void test_truncated(void) {
  Wire nodes = {0};
  add_node(&nodes, "Identity", X, Y, NULL);
  Wire g = graph_of(&nodes, NULL);
  char name[200];
  memset(name, 'n', sizeof name - 1);
  name[sizeof name - 1] = 0;
  w_str(&g, 2, name); /* a graph of 128+ bytes: a 2-byte length */
  size_t glen = g.n;
  Wire m = w_model(17, &g);
  /* ir_version (2 bytes), opset_import (2 + 2 bytes), then the graph's key at byte 6 */
  size_t gstart = 6;
  CHECK(m.p[gstart] == (7 << 3 | 2));
  for (size_t cut = gstart + 3; cut < m.n; cut += 7) {
    Wire t = {m.p, cut, cut};
    Runs x = run3(&t);
    char want[200];
    snprintf(want, sizeof want,
             "the file ends early: the field at byte %zu declares %zu bytes of content, but the "
             "file ends at byte %zu", gstart, glen, cut);
    expect_error("truncated in the graph", &x, OSI_ERR_PARSE, want);
    free3(&x);
  }
  /* cut inside the graph's length varint (2 bytes when the graph has 128+ bytes) */
  CHECK(glen >= 128);
  {
    Wire t = {m.p, gstart + 2, gstart + 2};
    Runs x = run3(&t);
    char want[200];
    snprintf(want, sizeof want, "the file ends early: the field at byte %zu is cut off at byte %zu",
             gstart, gstart + 2);
    expect_error("truncated in a length", &x, OSI_ERR_PARSE, want);
    free3(&x);
  }
  w_free(&m);
}

/* Section - Which error comes first */

/* Node 0 is a Constant whose tensor has rank 65 (past the limit, found in
 * converting it), node 1 writes its input as a varint (refused by
 * protobuf-c, and by nanopb when it gets there). protobuf-c reads the
 * whole model before converting any of it, as far as errors go (it unpacks
 * the graph's nodes one at a time but checks the rest before reporting
 * what converting found): the refusal. nanopb converts as it reads: the
 * limit. */
static void test_refusal_before_conversion_error(void) {
  Wire t = {0};
  for (int i = 0; i < 65; i++) w_int(&t, 1, 1);
  w_int(&t, 2, 1);
  Wire a = {0};
  w_str(&a, 1, "value");
  w_msg(&a, 5, &t);
  w_int(&a, 20, 4);
  Wire attrs = {0};
  w_msg(&attrs, 5, &a);
  Wire n0 = w_node("Constant", (const char *const[]){NULL}, C, &attrs);
  Wire n1 = w_node("Identity", (const char *const[]){"c", NULL}, Y, NULL);
  w_int(&n1, 1, 5);
  Wire nodes = {0};
  w_msg(&nodes, 1, &n0);
  w_msg(&nodes, 1, &n1);
  Wire m = model_of(&nodes, NULL);
  Runs x = run3(&m);
  const OsiStatus want[N_RUNS] = {OSI_ERR_PARSE, OSI_ERR_LIMIT_EXCEEDED, OSI_ERR_LIMIT_EXCEEDED};
  for (int i = 0; i < N_RUNS; i++) {
    test_checks++;
    if (osi_result_status(x.r[i]) != (int)want[i]) {
      test_failures++;
      fprintf(stderr, "refusal before a conversion error (%s): %s \"%s\", want %s\n", RUN_NAMES[i],
              osi_status_name((OsiStatus)osi_result_status(x.r[i])), osi_result_error(x.r[i]),
              osi_status_name(want[i]));
    }
  }
  free3(&x);
  w_free(&m);
}

/* Section - Nesting counts where it is */

/* An INT attribute that also carries a TypeProto 70 levels deep in `tp`:
 * unused, but the nesting limit (64) holds for every decoder. */
static void test_unused_deep_type(void) {
  Wire tp = w_tensor_type(1, -1, NULL);
  for (int i = 0; i < 70; i++) {
    Wire seq = {0}, outer = {0};
    w_msg(&seq, 1, &tp);
    w_msg(&outer, 4, &seq);
    tp = outer;
  }
  Wire a = {0}, attrs = {0}, nodes = {0};
  w_str(&a, 1, "junk");
  w_int(&a, 3, 1);
  w_msg(&a, 14, &tp);
  w_int(&a, 20, 2);
  w_msg(&attrs, 5, &a);
  add_node(&nodes, "Identity", X, Y, &attrs);
  Wire m = model_of(&nodes, NULL);
  Runs x = run3(&m);
  expect_error("deep unused tp", &x, OSI_ERR_LIMIT_EXCEEDED, "");
  free3(&x);
  w_free(&m);
}

int main(void) {
  test_merge_constant_tensor();
  test_merge_scalar_last_wins();
  test_merge_empty_bytes_wins();
  test_merge_value_type();
  test_merge_oneof_member_and_shape();
  test_oneof_last_member();
  test_merge_nested_types();
  test_merge_type_attribute_and_map();
  test_merge_empty_types();
  test_dim_oneof();
  test_merge_graph_attribute();
  test_merge_sparse();
  test_varint_lengths();
  test_huge_length();
  test_numbers_past_the_kept();
  test_nul_in_names();
  test_truncated();
  test_refusal_before_conversion_error();
  test_unused_deep_type();
  TEST_MAIN_END();
}
