/*
 * Hostile and oversized models: every documented limit ends in a clear
 * status (LIMIT_EXCEEDED, CYCLE, ...) or a diagnostic naming the node, never
 * a crash, a hang or a wrong shape. Models are written as raw protobuf
 * bytes (a small wire writer below), so they can be anything the wire
 * format allows: 100,000-deep nesting, wrongly typed attributes, empty
 * names, a 1e6-element raw_data tensor.
 *
 * Each model runs through both decoders (protobuf-c and nanopb, explicit
 * flags) and the two must agree on the status.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/arena.h"
#include "decode/decode.h"
#include "expr/expr.h"
#include "infer/infer.h"
#include "onnx_shapes.h"
#include "api/result.h"
#include "test.h"
#include "model/types.h"

/* Section - A protobuf wire writer */

typedef struct Buf {
  uint8_t *p;
  size_t n, cap;
} Buf;

static void put(Buf *b, const void *data, size_t n) {
  if (b->n + n > b->cap) {
    size_t cap = b->cap ? b->cap : 64;
    while (cap < b->n + n) cap *= 2;
    b->p = realloc(b->p, cap);
    if (!b->p) abort();
    b->cap = cap;
  }
  if (n) memcpy(b->p + b->n, data, n);
  b->n += n;
}

static void varint(Buf *b, uint64_t v) {
  uint8_t tmp[10];
  int n = 0;
  do {
    tmp[n] = (uint8_t)(v & 0x7f);
    v >>= 7;
    if (v) tmp[n] |= 0x80;
    n++;
  } while (v);
  put(b, tmp, (size_t)n);
}

static void f_int(Buf *b, int field, int64_t v) {
  varint(b, (uint64_t)field << 3);
  varint(b, (uint64_t)v);
}

static void f_float(Buf *b, int field, float v) {
  varint(b, (uint64_t)field << 3 | 5);
  put(b, &v, 4);
}

static void f_bytes(Buf *b, int field, const void *data, size_t n) {
  varint(b, (uint64_t)field << 3 | 2);
  varint(b, n);
  put(b, data, n);
}

static void f_str(Buf *b, int field, const char *s) { f_bytes(b, field, s, strlen(s)); }

/* Appends sub as a length-delimited field and frees it. */
static void f_msg(Buf *b, int field, Buf *sub) {
  f_bytes(b, field, sub->p, sub->n);
  free(sub->p);
  *sub = (Buf){0};
}

/* Deep nesting without quadratic copying: wraps `inner` `levels` times in
 * the wrappers w[0..nw) (innermost first within a level); each wrapper is
 * pre + field `field` (length-delimited, the inner bytes) + suf. Frees
 * inner. */
typedef struct Wrap {
  Buf pre, suf;
  int field;
} Wrap;

static size_t varint_len(uint64_t v) {
  size_t n = 1;
  while (v >= 0x80) v >>= 7, n++;
  return n;
}

static Buf nest(Buf *inner, int levels, Wrap *w, int nw) {
  size_t total = (size_t)levels * (size_t)nw;
  size_t *len = malloc((total + 1) * sizeof *len); /* len[k]: bytes inside wrapper k */
  size_t cur = inner->n;
  for (size_t k = 0; k < total; k++) {
    const Wrap *x = &w[k % (size_t)nw];
    len[k] = cur;
    cur = x->pre.n + varint_len((uint64_t)x->field << 3 | 2) + varint_len(cur) + cur + x->suf.n;
  }
  Buf out = {0};
  out.p = malloc(cur ? cur : 1);
  out.cap = cur ? cur : 1;
  for (size_t k = total; k-- > 0;) { /* outermost first */
    const Wrap *x = &w[k % (size_t)nw];
    put(&out, x->pre.p, x->pre.n);
    varint(&out, (uint64_t)x->field << 3 | 2);
    varint(&out, len[k]);
  }
  put(&out, inner->p, inner->n);
  for (size_t k = 0; k < total; k++) {
    const Wrap *x = &w[k % (size_t)nw];
    put(&out, x->suf.p, x->suf.n);
  }
  free(len);
  free(inner->p);
  *inner = (Buf){0};
  for (int i = 0; i < nw; i++) {
    free(w[i].pre.p);
    free(w[i].suf.p);
  }
  return out;
}

/* Section - ONNX messages */

/* TypeProto of a tensor: dims[i] >= 0 is a dim_value, params[i] (when
 * params and params[i]) a dim_param; rank -1: no shape. */
static Buf tensor_type(int elem, int rank, const int64_t *dims, const char *const *params) {
  Buf t = {0}, shape = {0};
  f_int(&t, 1, elem);
  if (rank >= 0) {
    for (int i = 0; i < rank; i++) {
      Buf d = {0};
      if (params && params[i]) f_str(&d, 2, params[i]);
      else f_int(&d, 1, dims[i]);
      f_msg(&shape, 1, &d);
    }
    if (rank == 0) put(&shape, "", 0);
    f_msg(&t, 2, &shape);
  }
  Buf tp = {0};
  f_msg(&tp, 1, &t);
  return tp;
}

static Buf value_info(const char *name, Buf *type) {
  Buf v = {0};
  f_str(&v, 1, name);
  if (type) f_msg(&v, 2, type);
  return v;
}

/* Node with NULL-terminated input and output lists. */
static Buf node(const char *op, const char *name, const char *const *ins, const char *const *outs) {
  Buf n = {0};
  for (int i = 0; ins && ins[i]; i++) f_str(&n, 1, ins[i]);
  for (int i = 0; outs && outs[i]; i++) f_str(&n, 2, outs[i]);
  if (name) f_str(&n, 3, name);
  f_str(&n, 4, op);
  return n;
}

static void attr_int(Buf *node_buf, const char *name, int64_t v) {
  Buf a = {0};
  f_str(&a, 1, name);
  f_int(&a, 3, v);
  f_int(&a, 20, 2);
  f_msg(node_buf, 5, &a);
}

static void attr_float(Buf *node_buf, const char *name, float v) {
  Buf a = {0};
  f_str(&a, 1, name);
  f_float(&a, 2, v);
  f_int(&a, 20, 1);
  f_msg(node_buf, 5, &a);
}

static void attr_string(Buf *node_buf, const char *name, const char *v) {
  Buf a = {0};
  f_str(&a, 1, name);
  f_str(&a, 4, v);
  f_int(&a, 20, 3);
  f_msg(node_buf, 5, &a);
}

static void attr_ints(Buf *node_buf, const char *name, int n, const int64_t *v) {
  Buf a = {0}, packed = {0};
  f_str(&a, 1, name);
  for (int i = 0; i < n; i++) varint(&packed, (uint64_t)v[i]);
  f_bytes(&a, 8, packed.p, packed.n);
  free(packed.p);
  f_int(&a, 20, 7);
  f_msg(node_buf, 5, &a);
}

static void attr_graph(Buf *node_buf, const char *name, Buf *graph) {
  Buf a = {0};
  f_str(&a, 1, name);
  f_msg(&a, 6, graph);
  f_int(&a, 20, 5);
  f_msg(node_buf, 5, &a);
}

/* int64 initializer (TensorProto) with int64_data, or raw_data when raw. */
static Buf tensor_i64(const char *name, int rank, const int64_t *dims, int64_t n,
                      const int64_t *vals, int raw) {
  Buf t = {0};
  for (int i = 0; i < rank; i++) f_int(&t, 1, dims[i]);
  f_int(&t, 2, 7);
  if (raw) {
    f_bytes(&t, 9, vals, (size_t)n * 8);
  } else {
    Buf packed = {0};
    for (int64_t i = 0; i < n; i++) varint(&packed, (uint64_t)vals[i]);
    f_bytes(&t, 7, packed.p, packed.n);
    free(packed.p);
  }
  f_str(&t, 8, name);
  return t;
}

/* ModelProto: IR 8, opset imports "" (opset) and, with functions, the
 * "local" domain. */
static Buf model(int64_t opset, Buf *graph) {
  Buf m = {0}, os = {0};
  f_int(&m, 1, 8);
  f_int(&os, 2, opset);
  f_msg(&m, 8, &os);
  Buf os2 = {0};
  f_str(&os2, 1, "local");
  f_int(&os2, 2, 1);
  f_msg(&m, 8, &os2);
  f_msg(&m, 7, graph);
  return m;
}

/* Section - Running */

static const char *status_name(OsiResult *r) {
  return osi_status_name((OsiStatus)osi_result_status(r));
}

/* Runs bytes through both decoders; returns the protobuf-c result (the
 * caller deletes it) after checking that nanopb ends with the same status
 * (and the same JSON when OK). Frees the model bytes. */
static OsiResult *run_both(Buf *m, uint32_t flags) {
  OsiResult *a = osi_infer(m->p, m->n, flags | OSI_OPT_DECODER_PBC);
  OsiResult *b = osi_infer(m->p, m->n, flags | OSI_OPT_DECODER_NANOPB);
  CHECK_INT(osi_result_status(b), osi_result_status(a));
  if (osi_result_status(a) != osi_result_status(b))
    fprintf(stderr, "  protobuf-c: %s (%s)\n  nanopb: %s (%s)\n", status_name(a),
            osi_result_error(a), status_name(b), osi_result_error(b));
  else if (osi_result_status(a) == OSI_OK)
    CHECK(strcmp(osi_result_json(a), osi_result_json(b)) == 0);
  osi_result_delete(b);
  free(m->p);
  *m = (Buf){0};
  return a;
}

static const char *dims_of(OsiResult *r, const char *name) {
  static char buf[1024];
  const OsiType *t = osi_result_lookup(r, name);
  if (!t) return "none";
  if (t->rank < 0) return "[*]";
  size_t at = 0;
  buf[at++] = '[';
  for (int i = 0; i < t->rank && at < sizeof buf - 64; i++)
    at += (size_t)snprintf(buf + at, sizeof buf - at, "%s%s", i ? "," : "",
                           osi_expr_str(osi_result_exprs(r), t->dims[i]));
  snprintf(buf + at, sizeof buf - at, "]");
  return buf;
}

static int has_diag(OsiResult *r, const char *code, const char *text) {
  for (int i = 0; i < osi_result_diagnostic_count(r); i++)
    if (strcmp(osi_result_diagnostic_code(r, i), code) == 0 &&
        (!text || strstr(osi_result_diagnostic_message(r, i), text)))
      return 1;
  return 0;
}

static void show_diags(OsiResult *r) {
  for (int i = 0; i < osi_result_diagnostic_count(r); i++)
    fprintf(stderr, "  diag %s: %s\n", osi_result_diagnostic_code(r, i),
            osi_result_diagnostic_message(r, i));
}

#define CHECK_STATUS(r, want)                                                    \
  do {                                                                           \
    CHECK_STR(status_name(r), want);                                             \
    if (strcmp(status_name(r), want) != 0) fprintf(stderr, "  error: %s\n", osi_result_error(r)); \
  } while (0)

#define CHECK_CONTAINS(s, sub)                                                   \
  do {                                                                           \
    const char *s_ = (s);                                                        \
    CHECK(strstr(s_, sub) != NULL);                                              \
    if (!strstr(s_, sub)) fprintf(stderr, "  in: %s\n", s_);                     \
  } while (0)

static Buf input_float(const char *name, int rank, const int64_t *dims, const char *const *params) {
  Buf t = tensor_type(1, rank, dims, params);
  return value_info(name, &t);
}

/* A graph with one float input x[rank dims], the given nodes (freed) and
 * one output `out` with no declared type. */
static Buf graph1(const char *gname, Buf *in, Buf *nodes, int n_nodes, const char *out) {
  Buf g = {0};
  for (int i = 0; i < n_nodes; i++) f_msg(&g, 1, &nodes[i]);
  f_str(&g, 2, gname);
  if (in) f_msg(&g, 11, in);
  Buf o = value_info(out, NULL);
  f_msg(&g, 12, &o);
  return g;
}

/* Section - Nesting */

/* TypeProto sequence(sequence(...(float[2]))) `depth` deep. */
static Buf nested_sequence(int depth) {
  int64_t two = 2;
  Buf t = tensor_type(1, 1, &two, NULL);
  /* TypeProto{sequence_type(4): Sequence{elem_type(1): <inner>}} */
  Wrap w[2] = {{{0}, {0}, 1}, {{0}, {0}, 4}};
  return nest(&t, depth, w, 2);
}

static void test_nested_sequences(void) {
  /* 1000 deep: past OSI_MAX_GRAPH_DEPTH (type nesting counts towards it) */
  Buf t = nested_sequence(1000);
  Buf in = value_info("s", &t);
  Buf id = node("Identity", "id", (const char *[]){"s", NULL}, (const char *[]){"y", NULL});
  Buf g = graph1("g", &in, &id, 1, "y");
  Buf m = model(17, &g);
  OsiResult *r = run_both(&m, 0);
  CHECK_STATUS(r, "LIMIT_EXCEEDED");
  CHECK_CONTAINS(osi_result_error(r), "nest");
  osi_result_delete(r);

  /* 100 deep: within the protobuf nesting limit, past the type nesting one */
  t = nested_sequence(100);
  in = value_info("s", &t);
  id = node("Identity", "id", (const char *[]){"s", NULL}, (const char *[]){"y", NULL});
  g = graph1("g", &in, &id, 1, "y");
  m = model(17, &g);
  r = run_both(&m, 0);
  CHECK_STATUS(r, "LIMIT_EXCEEDED");
  CHECK_CONTAINS(osi_result_error(r), "type nesting exceeds the limit");
  osi_result_delete(r);

  /* 100,000 deep (~800 KB): protobuf-c would overflow the stack unpacking
   * it; the pre-scan refuses it first, at the type nesting limit (every
   * recursion of the schema goes through a TypeProto or a GraphProto, so
   * OSI_MAX_PROTO_DEPTH is only a safety net) */
  t = nested_sequence(100000);
  in = value_info("s", &t);
  id = node("Identity", "id", (const char *[]){"s", NULL}, (const char *[]){"y", NULL});
  g = graph1("g", &in, &id, 1, "y");
  m = model(17, &g);
  r = run_both(&m, 0);
  CHECK_STATUS(r, "LIMIT_EXCEEDED");
  CHECK_CONTAINS(osi_result_error(r), "type nesting exceeds the limit");
  osi_result_delete(r);

  /* 40 deep is fine */
  t = nested_sequence(40);
  in = value_info("s", &t);
  id = node("Identity", "id", (const char *[]){"s", NULL}, (const char *[]){"y", NULL});
  g = graph1("g", &in, &id, 1, "y");
  m = model(17, &g);
  r = run_both(&m, 0);
  CHECK_STATUS(r, "OK");
  osi_result_delete(r);
}

/* If(cond) { If(cond) { ... Identity(x) } } nested `depth` deep; every
 * branch reads x and cond from the outermost scope. */
static Buf nested_if_graph(int depth) {
  Buf inner_id = node("Identity", "leaf", (const char *[]){"x", NULL}, (const char *[]){"y0", NULL});
  Buf body = graph1("b0", NULL, &inner_id, 1, "y0");
  for (int i = 1; i <= depth; i++) {
    char out[32], name[32], gname[32];
    snprintf(out, sizeof out, "y%d", i);
    snprintf(name, sizeof name, "if%d", i);
    snprintf(gname, sizeof gname, "b%d", i);
    Buf n = node("If", name, (const char *[]){"cond", NULL}, (const char *[]){out, NULL});
    Buf leaf = node("Identity", "else_leaf", (const char *[]){"x", NULL},
                    (const char *[]){"e", NULL});
    Buf other = graph1("else", NULL, &leaf, 1, "e");
    attr_graph(&n, "then_branch", &body);
    attr_graph(&n, "else_branch", &other);
    body = graph1(gname, NULL, &n, 1, out);
  }
  return body;
}

static Buf nested_if_model(int depth) {
  Buf g = nested_if_graph(depth);
  /* the outermost body becomes the main graph: add inputs x and cond */
  int64_t two = 2;
  Buf x = input_float("x", 1, &two, NULL);
  Buf ct = tensor_type(9, 0, NULL, NULL);
  Buf c = value_info("cond", &ct);
  f_msg(&g, 11, &x);
  f_msg(&g, 11, &c);
  return model(17, &g);
}

static void test_nested_graphs(void) {
  /* 20 deep: fine */
  Buf m = nested_if_model(20);
  OsiResult *r = run_both(&m, 0);
  CHECK_STATUS(r, "OK");
  CHECK_STR(dims_of(r, "y20"), "[2]");
  osi_result_delete(r);

  /* 40 deep: past OSI_MAX_SCOPE_DEPTH (32): LIMIT_EXCEEDED naming the node */
  m = nested_if_model(40);
  r = run_both(&m, 0);
  CHECK_STATUS(r, "LIMIT_EXCEEDED");
  CHECK_CONTAINS(osi_result_error(r), "nest deeper than 32");
  CHECK(osi_result_error_node(r)[0] != 0);
  osi_result_delete(r);

  /* 70 deep: past OSI_MAX_GRAPH_DEPTH (64) in the decoders */
  m = nested_if_model(70);
  r = run_both(&m, 0);
  CHECK_STATUS(r, "LIMIT_EXCEEDED");
  CHECK_CONTAINS(osi_result_error(r), "subgraph nesting exceeds the limit");
  osi_result_delete(r);

  /* 100 deep: 300 message levels, refused by protobuf-c's pre-scan too */
  m = nested_if_model(100);
  r = run_both(&m, 0);
  CHECK_STATUS(r, "LIMIT_EXCEEDED");
  CHECK_CONTAINS(osi_result_error(r), "nest");
  osi_result_delete(r);

  /* 20,000 deep (only then_branch, ~1 MB): the protobuf-c pre-scan */
  Buf inner_id = node("Identity", "leaf", (const char *[]){"x", NULL}, (const char *[]){"y", NULL});
  Buf body = graph1("b", NULL, &inner_id, 1, "y");
  Wrap w[3] = {{{0}, {0}, 6}, {{0}, {0}, 5}, {{0}, {0}, 1}};
  f_str(&w[0].pre, 1, "then_branch"); /* AttributeProto: name, g(6), type */
  f_int(&w[0].suf, 20, 5);
  f_str(&w[1].pre, 1, "cond"); /* NodeProto: input, output, op_type, attribute(5) */
  f_str(&w[1].pre, 2, "y");
  f_str(&w[1].pre, 4, "If");
  f_str(&w[2].suf, 2, "b"); /* GraphProto: node(1), name, output */
  Buf o = value_info("y", NULL);
  f_msg(&w[2].suf, 12, &o);
  body = nest(&body, 20000, w, 3);
  m = model(17, &body);
  r = run_both(&m, 0);
  CHECK_STATUS(r, "LIMIT_EXCEEDED");
  osi_result_delete(r);
}

/* Section - Functions: recursion, call depth */

static void add_function(Buf *m, const char *name, const char *callee) {
  Buf f = {0};
  f_str(&f, 1, name);
  f_str(&f, 4, "a");
  f_str(&f, 5, "b");
  Buf n = node(callee ? callee : "Relu", "body", (const char *[]){"a", NULL},
               (const char *[]){"b", NULL});
  if (callee) f_str(&n, 7, "local");
  f_msg(&f, 7, &n);
  Buf os = {0};
  f_int(&os, 2, 17);
  f_msg(&f, 9, &os);
  Buf os2 = {0};
  f_str(&os2, 1, "local");
  f_int(&os2, 2, 1);
  f_msg(&f, 9, &os2);
  f_str(&f, 10, "local");
  f_msg(m, 25, &f);
}

/* A function whose body calls `callee` twice in a row (Relu when NULL). */
static void add_function_calling_twice(Buf *m, const char *name, const char *callee) {
  Buf f = {0};
  f_str(&f, 1, name);
  f_str(&f, 4, "a");
  f_str(&f, 5, "b");
  const char *op = callee ? callee : "Relu";
  Buf n1 = node(op, "first", (const char *[]){"a", NULL}, (const char *[]){"t", NULL});
  Buf n2 = node(op, "second", (const char *[]){"t", NULL}, (const char *[]){"b", NULL});
  if (callee) {
    f_str(&n1, 7, "local");
    f_str(&n2, 7, "local");
  }
  f_msg(&f, 7, &n1);
  f_msg(&f, 7, &n2);
  Buf os = {0};
  f_int(&os, 2, 17);
  f_msg(&f, 9, &os);
  Buf os2 = {0};
  f_str(&os2, 1, "local");
  f_int(&os2, 2, 1);
  f_msg(&f, 9, &os2);
  f_str(&f, 10, "local");
  f_msg(m, 25, &f);
}

static Buf call_model(const char *fn) {
  int64_t two = 2;
  Buf x = input_float("x", 1, &two, NULL);
  Buf n = node(fn, "call", (const char *[]){"x", NULL}, (const char *[]){"y", NULL});
  f_str(&n, 7, "local");
  Buf g = graph1("g", &x, &n, 1, "y");
  return model(17, &g);
}

static void test_functions(void) {
  /* f calls itself */
  Buf m = call_model("f");
  add_function(&m, "f", "f");
  OsiResult *r = run_both(&m, 0);
  CHECK_STATUS(r, "CYCLE");
  CHECK_CONTAINS(osi_result_error(r), "function 'f' calls itself");
  osi_result_delete(r);

  /* f0 -> f1 -> ... -> f49: deeper than the call stack */
  m = call_model("f0");
  for (int i = 0; i < 50; i++) {
    char name[16], callee[16];
    snprintf(name, sizeof name, "f%d", i);
    snprintf(callee, sizeof callee, "f%d", i + 1);
    add_function(&m, name, i + 1 < 50 ? callee : NULL);
  }
  r = run_both(&m, 0);
  CHECK_STATUS(r, "LIMIT_EXCEEDED");
  CHECK_CONTAINS(osi_result_error(r), "nest deeper than");
  osi_result_delete(r);

  /* 10 deep is fine */
  m = call_model("f0");
  for (int i = 0; i < 10; i++) {
    char name[16], callee[16];
    snprintf(name, sizeof name, "f%d", i);
    snprintf(callee, sizeof callee, "f%d", i + 1);
    add_function(&m, name, i + 1 < 10 ? callee : NULL);
  }
  r = run_both(&m, 0);
  CHECK_STATUS(r, "OK");
  CHECK_STR(dims_of(r, "y"), "[2]");
  osi_result_delete(r);

  /* f0 calls f1 twice, f1 calls f2 twice, ...: a few hundred bytes that
   * expand to 2^n bodies. 24 levels would be 50 million node inferences
   * (minutes and gigabytes); the run stops at OSI_NODE_VISITS_BASE plus
   * OSI_NODE_VISITS_PER_NODE per node of the model. */
  for (int levels = 10; levels <= 24; levels += 14) {
    m = call_model("f0");
    for (int i = 0; i < levels; i++) {
      char name[16], callee[16];
      snprintf(name, sizeof name, "f%d", i);
      snprintf(callee, sizeof callee, "f%d", i + 1);
      add_function_calling_twice(&m, name, i + 1 < levels ? callee : NULL);
    }
    clock_t t0 = clock();
    r = run_both(&m, 0);
    double seconds = (double)(clock() - t0) / CLOCKS_PER_SEC;
    if (levels == 10) {
      /* 3 * 2^10 - 1 = 3,071 inferences: within the budget */
      CHECK_STATUS(r, "OK");
      CHECK_STR(dims_of(r, "y"), "[2]");
    } else {
      CHECK_STATUS(r, "LIMIT_EXCEEDED");
      long long budget = OSI_NODE_VISITS_BASE + OSI_NODE_VISITS_PER_NODE * (1 + 2 * levels);
      char want[64];
      snprintf(want, sizeof want, "more than %lld nodes", budget);
      CHECK_CONTAINS(osi_result_error(r), want);
      CHECK(seconds < 20); /* both decoders, sanitizer builds included */
    }
    osi_result_delete(r);
  }
}

/* Section - Graph structure: cycles, duplicates, dangling inputs, names */

static void test_structure(void) {
  int64_t two = 2;
  /* a self-loop: y = Relu(y) */
  Buf x = input_float("x", 1, &two, NULL);
  Buf n = node("Relu", "self", (const char *[]){"y", NULL}, (const char *[]){"y", NULL});
  Buf g = graph1("g", &x, &n, 1, "y");
  Buf m = model(17, &g);
  OsiResult *r = run_both(&m, 0);
  CHECK_STATUS(r, "CYCLE");
  CHECK_CONTAINS(osi_result_error(r), "'self' (Relu)");
  osi_result_delete(r);

  /* a two-node cycle */
  x = input_float("x", 1, &two, NULL);
  Buf ns[2] = {node("Add", "a", (const char *[]){"x", "c", NULL}, (const char *[]){"b", NULL}),
               node("Relu", "r", (const char *[]){"b", NULL}, (const char *[]){"c", NULL})};
  g = graph1("g", &x, ns, 2, "c");
  m = model(17, &g);
  r = run_both(&m, 0);
  CHECK_STATUS(r, "CYCLE");
  osi_result_delete(r);

  /* two producers for one name */
  x = input_float("x", 1, &two, NULL);
  Buf dup[2] = {node("Relu", "p1", (const char *[]){"x", NULL}, (const char *[]){"y", NULL}),
                node("Neg", "p2", (const char *[]){"x", NULL}, (const char *[]){"y", NULL})};
  g = graph1("g", &x, dup, 2, "y");
  m = model(17, &g);
  r = run_both(&m, 0);
  CHECK_STATUS(r, "DUPLICATE_DEFINITION");
  CHECK_CONTAINS(osi_result_error(r), "'y'");
  CHECK_CONTAINS(osi_result_error(r), "'p2' (Neg)");
  osi_result_delete(r);

  /* one node naming the same output twice */
  x = input_float("x", 1, &two, NULL);
  n = node("Split", "sp", (const char *[]){"x", NULL}, (const char *[]){"y", "y", NULL});
  g = graph1("g", &x, &n, 1, "y");
  m = model(17, &g);
  r = run_both(&m, 0);
  CHECK_STATUS(r, "DUPLICATE_DEFINITION");
  osi_result_delete(r);

  /* a node output shadowing a graph input */
  x = input_float("x", 1, &two, NULL);
  n = node("Relu", "shadow", (const char *[]){"x", NULL}, (const char *[]){"x", NULL});
  g = graph1("g", &x, &n, 1, "x");
  m = model(17, &g);
  r = run_both(&m, 0);
  CHECK_STATUS(r, "DUPLICATE_DEFINITION");
  osi_result_delete(r);

  /* a dangling input */
  x = input_float("x", 1, &two, NULL);
  n = node("Add", "dangling", (const char *[]){"x", "nowhere", NULL}, (const char *[]){"y", NULL});
  g = graph1("g", &x, &n, 1, "y");
  m = model(17, &g);
  r = run_both(&m, 0);
  CHECK_STATUS(r, "MISSING_INPUT");
  CHECK_CONTAINS(osi_result_error(r), "'nowhere'");
  CHECK_CONTAINS(osi_result_error(r), "'dangling' (Add)");
  CHECK_STR(osi_result_error_node(r), "dangling");
  osi_result_delete(r);

  /* empty names everywhere: node, graph, an empty (omitted) output and an
   * input named "" (omitted optional input) */
  x = input_float("x", 1, &two, NULL);
  Buf ns2[2] = {node("Relu", "", (const char *[]){"x", NULL}, (const char *[]){"y", NULL}),
                node("Dropout", "", (const char *[]){"y", "", NULL}, (const char *[]){"z", "", NULL})};
  g = graph1("", &x, ns2, 2, "z");
  Buf empty_in = value_info("", NULL);
  f_msg(&g, 11, &empty_in);
  m = model(17, &g);
  r = run_both(&m, 0);
  CHECK_STATUS(r, "OK");
  CHECK_STR(dims_of(r, "z"), "[2]");
  osi_result_delete(r);

  /* a node with no op_type at all */
  x = input_float("x", 1, &two, NULL);
  n = node("", "noop", (const char *[]){"x", NULL}, (const char *[]){"y", NULL});
  g = graph1("g", &x, &n, 1, "y");
  m = model(17, &g);
  r = run_both(&m, 0);
  CHECK_STATUS(r, "OK");
  CHECK(has_diag(r, "UNSUPPORTED_OP", NULL));
  osi_result_delete(r);

  /* no graph */
  Buf nog = {0};
  f_int(&nog, 1, 8);
  r = run_both(&nog, 0);
  CHECK_STATUS(r, "INVALID_MODEL");
  osi_result_delete(r);
}

/* Section - Sizes: long chains, ranks, dims, huge tensors */

static void test_long_chain(void) {
  int64_t two = 2;
  enum { N = 10000 };
  Buf g = {0};
  for (int i = 0; i < N; i++) {
    char in[16], out[16];
    snprintf(in, sizeof in, i ? "v%d" : "x", i);
    snprintf(out, sizeof out, "v%d", i + 1);
    /* written in reverse order: the topological sort has to do the work */
    Buf n = node("Relu", NULL, (const char *[]){in, NULL}, (const char *[]){out, NULL});
    f_msg(&g, 1, &n);
  }
  Buf x = input_float("x", 1, &two, (const char *[]){"N"});
  f_msg(&g, 11, &x);
  Buf o = value_info("v10000", NULL);
  f_msg(&g, 12, &o);
  Buf m = model(17, &g);
  OsiResult *r = run_both(&m, 0);
  CHECK_STATUS(r, "OK");
  CHECK_STR(dims_of(r, "v10000"), "[N]");
  osi_result_delete(r);

  /* 10,000 Concat(prev, x) on a symbolic dim: the expression grows by one
   * term per node and stays N*k (hash-consed); no blow-up */
  g = (Buf){0};
  for (int i = 0; i < N; i++) {
    char in[16], out[16];
    snprintf(in, sizeof in, i ? "v%d" : "x", i);
    snprintf(out, sizeof out, "v%d", i + 1);
    Buf n = node("Concat", NULL, (const char *[]){in, "x", NULL}, (const char *[]){out, NULL});
    attr_int(&n, "axis", 0);
    f_msg(&g, 1, &n);
  }
  x = input_float("x", 1, &two, (const char *[]){"N"});
  f_msg(&g, 11, &x);
  o = value_info("v10000", NULL);
  f_msg(&g, 12, &o);
  m = model(17, &g);
  r = run_both(&m, 0);
  CHECK_STATUS(r, "OK");
  CHECK_STR(dims_of(r, "v10000"), "[10001*N]");
  osi_result_delete(r);
}

static void test_expression_size(void) {
  /* Concat of 300 inputs with distinct symbolic dims: the sum has 599 nodes,
   * more than OSI_EXPR_MAX_NODES, so the output dim is unknown or a fresh
   * symbol, never a truncated sum */
  enum { K = 300 };
  Buf g = {0};
  Buf n = {0};
  for (int i = 0; i < K; i++) {
    char name[16];
    snprintf(name, sizeof name, "x%d", i);
    f_str(&n, 1, name);
  }
  f_str(&n, 2, "y");
  f_str(&n, 3, "cat");
  f_str(&n, 4, "Concat");
  attr_int(&n, "axis", 0);
  f_msg(&g, 1, &n);
  for (int i = 0; i < K; i++) {
    char name[16], dim[16];
    snprintf(name, sizeof name, "x%d", i);
    snprintf(dim, sizeof dim, "d%d", i);
    Buf x = input_float(name, 1, (int64_t[]){0}, (const char *[]){dim});
    f_msg(&g, 11, &x);
  }
  Buf o = value_info("y", NULL);
  f_msg(&g, 12, &o);
  Buf m = model(17, &g);
  OsiResult *r = run_both(&m, 0);
  CHECK_STATUS(r, "OK");
  const char *d = dims_of(r, "y");
  CHECK(strcmp(d, "[?]") == 0 || strncmp(d, "[Concat_", 8) == 0);
  if (!(strcmp(d, "[?]") == 0 || strncmp(d, "[Concat_", 8) == 0)) fprintf(stderr, "  y: %s\n", d);
  osi_result_delete(r);

  /* the expression library itself */
  OsiExprStore *s = osi_expr_store_new();
  OsiExpr sum = osi_expr_const(s, 0);
  for (int i = 0; i < OSI_EXPR_MAX_NODES; i++) { /* 2n-1 nodes */
    char name[16];
    snprintf(name, sizeof name, "s%d", i);
    sum = osi_expr_add(s, sum, osi_expr_symbol(s, name));
  }
  CHECK(sum == OSI_EXPR_UNKNOWN);
  char big[80000];
  size_t at = 0;
  for (int i = 0; i < 7000; i++) at += (size_t)snprintf(big + at, sizeof big - at, "a%d+", i);
  big[at - 1] = 0;
  CHECK(osi_expr_parse(s, big) == OSI_EXPR_UNKNOWN); /* past 64 KiB of text */
  memset(big, '(', 2100); /* the parser nests 4*512+16 levels, as deep as the printer writes */
  big[2100] = 'a';
  memset(big + 2101, ')', 2100);
  big[4201] = 0;
  CHECK(osi_expr_parse(s, big) == OSI_EXPR_UNKNOWN); /* nesting past the parser's limit */
  CHECK(osi_expr_from_dim_param(s, big) != OSI_EXPR_UNKNOWN); /* ... a plain symbol name */
  osi_expr_store_delete(s);
}

static void test_rank_and_dims(void) {
  /* rank 65 input */
  int64_t dims[100];
  for (int i = 0; i < 100; i++) dims[i] = 1;
  Buf x = input_float("x", OSI_MAX_RANK + 1, dims, NULL);
  Buf n = node("Relu", "r", (const char *[]){"x", NULL}, (const char *[]){"y", NULL});
  Buf g = graph1("g", &x, &n, 1, "y");
  Buf m = model(17, &g);
  OsiResult *r = run_both(&m, 0);
  CHECK_STATUS(r, "LIMIT_EXCEEDED");
  CHECK_CONTAINS(osi_result_error(r), "rank");
  osi_result_delete(r);

  /* rank 64 is fine */
  x = input_float("x", OSI_MAX_RANK, dims, NULL);
  n = node("Relu", "r", (const char *[]){"x", NULL}, (const char *[]){"y", NULL});
  g = graph1("g", &x, &n, 1, "y");
  m = model(17, &g);
  r = run_both(&m, 0);
  CHECK_STATUS(r, "OK");
  osi_result_delete(r);

  /* Unsqueeze past rank 64: LIMIT_EXCEEDED naming the node, not a crash */
  x = input_float("x", OSI_MAX_RANK, dims, NULL);
  Buf axes = tensor_i64("axes", 1, (int64_t[]){1}, 1, (int64_t[]){0}, 0);
  n = node("Unsqueeze", "unsq", (const char *[]){"x", "axes", NULL}, (const char *[]){"y", NULL});
  g = graph1("g", &x, &n, 1, "y");
  f_msg(&g, 5, &axes);
  m = model(17, &g);
  r = run_both(&m, 0);
  CHECK_STATUS(r, "LIMIT_EXCEEDED");
  CHECK_CONTAINS(osi_result_error(r), "node 0 'unsq' (Unsqueeze): rank 65");
  CHECK_STR(osi_result_error_node(r), "unsq");
  osi_result_delete(r);

  /* huge dim_values: the element count overflows int64; Size and Flatten
   * must give unknown, not a wrapped number */
  const int64_t huge[3] = {INT64_MAX, 4, 3037000500};
  x = input_float("x", 3, huge, NULL);
  Buf ns[3] = {node("Size", "size", (const char *[]){"x", NULL}, (const char *[]){"n", NULL}),
               node("Flatten", "flat", (const char *[]){"x", NULL}, (const char *[]){"f", NULL}),
               node("Shape", "shape", (const char *[]){"x", NULL}, (const char *[]){"s", NULL})};
  attr_int(&ns[1], "axis", 0);
  g = graph1("g", &x, ns, 3, "f");
  m = model(17, &g);
  r = run_both(&m, 0);
  CHECK_STATUS(r, "OK");
  CHECK_STR(dims_of(r, "f"), "[1,?]");
  CHECK_STR(dims_of(r, "x"), "[9223372036854775807,4,3037000500]");
  const OsiType *size_t_ = osi_result_lookup(r, "n");
  CHECK(size_t_ && (!size_t_->value || size_t_->value->ints[0] == OSI_EXPR_UNKNOWN));
  osi_result_delete(r);

  /* negative dim_value: unknown, not -5 */
  x = input_float("x", 2, (int64_t[]){-5, INT64_MIN}, NULL);
  n = node("Relu", "r", (const char *[]){"x", NULL}, (const char *[]){"y", NULL});
  g = graph1("g", &x, &n, 1, "y");
  m = model(17, &g);
  r = run_both(&m, 0);
  CHECK_STATUS(r, "OK");
  CHECK_STR(dims_of(r, "y"), "[?,?]");
  osi_result_delete(r);

  /* an initializer with negative and huge dims (no data) */
  Buf t = {0};
  f_int(&t, 1, -3);
  f_int(&t, 1, INT64_MAX);
  f_int(&t, 2, 7);
  f_str(&t, 8, "w");
  n = node("Shape", "sh", (const char *[]){"w", NULL}, (const char *[]){"y", NULL});
  g = graph1("g", NULL, &n, 1, "y");
  f_msg(&g, 5, &t);
  m = model(17, &g);
  r = run_both(&m, 0);
  CHECK_STATUS(r, "OK");
  CHECK_STR(dims_of(r, "w"), "[?,9223372036854775807]");
  osi_result_delete(r);
}

static void test_big_tensors(void) {
  /* a 1e6-element int64 shape tensor in raw_data (8 MB): too big to track
   * as a value (OSI_MAX_VALUE_ELEMS), and a Reshape to rank 1e6 is
   * impossible anyway: the output is not a 1e6-dim tensor */
  enum { E = 1000000 };
  int64_t *vals = malloc(E * sizeof *vals);
  for (int i = 0; i < E; i++) vals[i] = 1;
  int64_t two = 2;
  Buf x = input_float("x", 1, &two, NULL);
  Buf shape = tensor_i64("shape", 1, (int64_t[]){E}, E, vals, 1);
  Buf n = node("Reshape", "reshape", (const char *[]){"x", "shape", NULL},
               (const char *[]){"y", NULL});
  Buf g = graph1("g", &x, &n, 1, "y");
  f_msg(&g, 5, &shape);
  Buf m = model(17, &g);
  OsiResult *r = run_both(&m, 0);
  CHECK_STATUS(r, "OK");
  const OsiType *st = osi_result_lookup(r, "shape");
  CHECK(st && st->rank == 1 && !st->value);
  const OsiType *yt = osi_result_lookup(r, "y");
  CHECK(!yt || yt->rank <= OSI_MAX_RANK);
  osi_result_delete(r);

  /* the same count in int64_data (varints, ~1 MB) */
  x = input_float("x", 1, &two, NULL);
  shape = tensor_i64("shape", 1, (int64_t[]){E}, E, vals, 0);
  n = node("Reshape", "reshape", (const char *[]){"x", "shape", NULL}, (const char *[]){"y", NULL});
  g = graph1("g", &x, &n, 1, "y");
  f_msg(&g, 5, &shape);
  m = model(17, &g);
  r = run_both(&m, 0);
  CHECK_STATUS(r, "OK");
  st = osi_result_lookup(r, "shape");
  CHECK(st && st->rank == 1 && !st->value);
  osi_result_delete(r);
  free(vals);

  /* a shape tensor whose dims claim 2^62 elements with 3 values: the
   * content is not kept (count mismatch) */
  x = input_float("x", 1, &two, NULL);
  shape = tensor_i64("shape", 1, (int64_t[]){(int64_t)1 << 62}, 3, (int64_t[]){1, 2, 1}, 0);
  n = node("Reshape", "reshape", (const char *[]){"x", "shape", NULL}, (const char *[]){"y", NULL});
  g = graph1("g", &x, &n, 1, "y");
  f_msg(&g, 5, &shape);
  m = model(17, &g);
  r = run_both(&m, 0);
  CHECK_STATUS(r, "OK");
  st = osi_result_lookup(r, "shape");
  CHECK(st && !st->value);
  osi_result_delete(r);

  /* ConstantOfShape / Range asked for more than OSI_MAX_VALUE_ELEMS
   * elements: shape known, content not tracked */
  Buf cs = tensor_i64("cs", 1, (int64_t[]){2}, 2, (int64_t[]){1000, 1000}, 0);
  n = node("ConstantOfShape", "cos", (const char *[]){"cs", NULL}, (const char *[]){"y", NULL});
  g = graph1("g", NULL, &n, 1, "y");
  f_msg(&g, 5, &cs);
  m = model(17, &g);
  r = run_both(&m, 0);
  CHECK_STATUS(r, "OK");
  CHECK_STR(dims_of(r, "y"), "[1000,1000]");
  st = osi_result_lookup(r, "y");
  CHECK(st && !st->value);
  osi_result_delete(r);

  /* an INTS attribute with 1e5 entries (Transpose perm): a node failure
   * that names the attribute */
  int64_t *perm = malloc(100000 * sizeof *perm);
  for (int i = 0; i < 100000; i++) perm[i] = i;
  x = input_float("x", 1, &two, NULL);
  n = node("Transpose", "tr", (const char *[]){"x", NULL}, (const char *[]){"y", NULL});
  attr_ints(&n, "perm", 100000, perm);
  g = graph1("g", &x, &n, 1, "y");
  m = model(17, &g);
  r = run_both(&m, 0);
  CHECK_STATUS(r, "OK");
  CHECK(has_diag(r, "SHAPE_MISMATCH", "perm") || has_diag(r, "INVALID_MODEL", "perm"));
  if (!(has_diag(r, "SHAPE_MISMATCH", "perm") || has_diag(r, "INVALID_MODEL", "perm"))) show_diags(r);
  osi_result_delete(r);
  free(perm);
}

/* Section - Attribute and input values */

static Buf slice_model(int64_t start, int64_t end, int64_t step) {
  int64_t ten = 10;
  Buf x = input_float("x", 1, &ten, NULL);
  Buf ts[3] = {tensor_i64("starts", 1, (int64_t[]){1}, 1, &start, 0),
               tensor_i64("ends", 1, (int64_t[]){1}, 1, &end, 0),
               tensor_i64("steps", 1, (int64_t[]){1}, 1, &step, 0)};
  Buf axes = tensor_i64("axes", 1, (int64_t[]){1}, 1, (int64_t[]){0}, 0);
  Buf n = node("Slice", "slice", (const char *[]){"x", "starts", "ends", "axes", "steps", NULL},
               (const char *[]){"y", NULL});
  Buf g = graph1("g", &x, &n, 1, "y");
  for (int i = 0; i < 3; i++) f_msg(&g, 5, &ts[i]);
  f_msg(&g, 5, &axes);
  return model(17, &g);
}

static void test_slice_extremes(void) {
  static const struct {
    int64_t start, end, step;
    const char *want;
  } cases[] = {
      {INT64_MIN, INT64_MAX, 1, "[10]"},
      {0, INT64_MIN, 1, "[0]"},
      {INT64_MAX, INT64_MIN, -1, "[10]"},
      {INT64_MAX, INT64_MIN, INT64_MIN, "[1]"},
      {INT64_MIN, INT64_MAX, INT64_MAX, "[1]"},
      {-1, INT64_MIN, -3, "[4]"},
      /* A start before the front clamps to 0 for a negative step (the
       * spec and onnxruntime; numpy would give 0 elements): [0:-1:-BIG]. */
      {INT64_MIN, INT64_MIN, INT64_MIN, "[1]"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    Buf m = slice_model(cases[i].start, cases[i].end, cases[i].step);
    OsiResult *r = run_both(&m, 0);
    CHECK_STATUS(r, "OK");
    CHECK_STR(dims_of(r, "y"), cases[i].want);
    osi_result_delete(r);
  }
  /* step 0: a node failure naming the input */
  Buf m = slice_model(0, 5, 0);
  OsiResult *r = run_both(&m, 0);
  CHECK_STATUS(r, "OK");
  CHECK(osi_result_diagnostic_count(r) > 0);
  CHECK_STR(dims_of(r, "y"), "none");
  CHECK(has_diag(r, "SHAPE_MISMATCH", "step") || has_diag(r, "INVALID_MODEL", "step"));
  if (!(has_diag(r, "SHAPE_MISMATCH", "step") || has_diag(r, "INVALID_MODEL", "step"))) show_diags(r);
  osi_result_delete(r);
}

static void test_zero_strides(void) {
  /* Conv with strides 0 and MaxPool with a zero stride: diagnostics */
  int64_t xd[4] = {1, 3, 8, 8}, wd[4] = {4, 3, 3, 3};
  Buf x = input_float("x", 4, xd, NULL);
  Buf wt = tensor_type(1, 4, wd, NULL);
  Buf w = value_info("w", &wt);
  Buf ns[2] = {node("Conv", "conv", (const char *[]){"x", "w", NULL}, (const char *[]){"y", NULL}),
               node("MaxPool", "pool", (const char *[]){"x", NULL}, (const char *[]){"p", NULL})};
  attr_ints(&ns[0], "strides", 2, (int64_t[]){0, 1});
  attr_ints(&ns[1], "kernel_shape", 2, (int64_t[]){2, 2});
  attr_ints(&ns[1], "strides", 2, (int64_t[]){1, 0});
  Buf g = graph1("g", &x, ns, 2, "y");
  f_msg(&g, 11, &w);
  Buf m = model(17, &g);
  OsiResult *r = run_both(&m, 0);
  CHECK_STATUS(r, "OK");
  CHECK_STR(dims_of(r, "y"), "none");
  CHECK_STR(dims_of(r, "p"), "none");
  CHECK(osi_result_diagnostic_count(r) >= 2);
  CHECK(has_diag(r, "SHAPE_MISMATCH", "stride") || has_diag(r, "INVALID_MODEL", "stride"));
  if (!(has_diag(r, "SHAPE_MISMATCH", "stride") || has_diag(r, "INVALID_MODEL", "stride"))) show_diags(r);
  osi_result_delete(r);

  /* Range with delta 0 */
  Buf ts[3] = {tensor_i64("start", 0, NULL, 1, (int64_t[]){0}, 0),
               tensor_i64("limit", 0, NULL, 1, (int64_t[]){5}, 0),
               tensor_i64("delta", 0, NULL, 1, (int64_t[]){0}, 0)};
  Buf n = node("Range", "range", (const char *[]){"start", "limit", "delta", NULL},
               (const char *[]){"y", NULL});
  g = graph1("g", NULL, &n, 1, "y");
  for (int i = 0; i < 3; i++) f_msg(&g, 5, &ts[i]);
  m = model(17, &g);
  r = run_both(&m, 0);
  CHECK_STATUS(r, "OK");
  CHECK(osi_result_diagnostic_count(r) > 0);
  CHECK_STR(dims_of(r, "y"), "none");
  osi_result_delete(r);
}

static void test_wrong_attribute_types(void) {
  int64_t dims[2] = {2, 3};
  /* axis as a float, as a string: INVALID_MODEL diagnostics naming the
   * attribute and both types, and unknown outputs (not axis 0) */
  for (int k = 0; k < 2; k++) {
    Buf x = input_float("x", 2, dims, NULL);
    Buf n = node("Concat", "cat", (const char *[]){"x", "x", NULL}, (const char *[]){"y", NULL});
    if (k == 0) attr_float(&n, "axis", 1.0f);
    else attr_string(&n, "axis", "1");
    Buf g = graph1("g", &x, &n, 1, "y");
    Buf m = model(17, &g);
    OsiResult *r = run_both(&m, 0);
    CHECK_STATUS(r, "OK");
    CHECK_STR(dims_of(r, "y"), "none");
    CHECK(has_diag(r, "INVALID_MODEL", k == 0 ? "attribute 'axis' has type FLOAT; expected INT"
                                              : "attribute 'axis' has type STRING; expected INT"));
    if (osi_result_diagnostic_count(r) == 0) fprintf(stderr, "  no diagnostic\n");
    osi_result_delete(r);
  }
  /* strict mode: the run fails, naming the node */
  Buf x = input_float("x", 2, dims, NULL);
  Buf n = node("Flatten", "fl", (const char *[]){"x", NULL}, (const char *[]){"y", NULL});
  attr_string(&n, "axis", "last");
  Buf g = graph1("g", &x, &n, 1, "y");
  Buf m = model(17, &g);
  OsiResult *r = run_both(&m, OSI_OPT_STRICT);
  CHECK_STATUS(r, "INVALID_MODEL");
  CHECK_CONTAINS(osi_result_error(r), "node 0 'fl' (Flatten): attribute 'axis' has type STRING");
  CHECK_STR(osi_result_error_node(r), "fl");
  osi_result_delete(r);

  /* perm given as a single INT */
  x = input_float("x", 2, dims, NULL);
  n = node("Transpose", "tr", (const char *[]){"x", NULL}, (const char *[]){"y", NULL});
  attr_int(&n, "perm", 1);
  g = graph1("g", &x, &n, 1, "y");
  m = model(17, &g);
  r = run_both(&m, 0);
  CHECK_STATUS(r, "OK");
  CHECK(has_diag(r, "INVALID_MODEL", "attribute 'perm' has type INT; expected INTS"));
  CHECK_STR(dims_of(r, "y"), "none");
  osi_result_delete(r);

  /* A Constant's value attribute of another type than its name says (the
   * value is the attribute's one member of that type: not read as another) */
  for (int k = 0; k < 3; k++) {
    x = input_float("x", 2, dims, NULL);
    n = node("Constant", "c", (const char *[]){NULL}, (const char *[]){"y", NULL});
    if (k == 0) attr_string(&n, "value_ints", "12");
    else if (k == 1) attr_float(&n, "value_int", 3.0f);
    else attr_int(&n, "value", 7);
    g = graph1("g", &x, &n, 1, "y");
    m = model(17, &g);
    r = run_both(&m, 0);
    CHECK_STATUS(r, "OK");
    CHECK(has_diag(r, "INVALID_MODEL", k == 0   ? "attribute 'value_ints' has type STRING; expected INTS"
                                       : k == 1 ? "attribute 'value_int' has type FLOAT; expected INT"
                                                : "attribute 'value' has type INT; expected TENSOR"));
    CHECK_STR(dims_of(r, "y"), "none");
    osi_result_delete(r);
  }
}

/* Section - Allocation cap */

static void test_arena_cap(void) {
  OsiArena *a = osi_arena_new();
  CHECK(osi_arena_alloc(a, 100) != NULL);
  CHECK(!osi_arena_exhausted(a));
  CHECK(osi_arena_alloc(a, OSI_ARENA_MAX_BYTES + 1) == NULL);
  CHECK(osi_arena_exhausted(a));
  OsiArena *b = osi_arena_new();
  CHECK(osi_arena_alloc(b, SIZE_MAX - 3) == NULL); /* no wrap-around to a tiny block */
  CHECK(osi_arena_array(b, SIZE_MAX / 4, 8) == NULL);
  CHECK(osi_arena_strndup(b, "x", SIZE_MAX) == NULL);
  CHECK(osi_arena_exhausted(b));
  osi_arena_delete(a);
  osi_arena_delete(b);
}

/* Section - Truncation and garbage */

static void test_garbage(void) {
  /* every prefix of a small valid model: no crash, both decoders agree */
  int64_t two = 2;
  Buf x = input_float("x", 1, &two, (const char *[]){"N"});
  Buf n = node("Relu", "r", (const char *[]){"x", NULL}, (const char *[]){"y", NULL});
  Buf g = graph1("g", &x, &n, 1, "y");
  Buf m = model(17, &g);
  for (size_t len = 0; len < m.n; len++) {
    Buf cut = {0};
    put(&cut, m.p, len);
    OsiResult *r = run_both(&cut, 0);
    osi_result_delete(r);
  }
  free(m.p);
}

int main(void) {
  test_nested_sequences();
  test_nested_graphs();
  test_functions();
  test_structure();
  test_long_chain();
  test_expression_size();
  test_rank_and_dims();
  test_big_tensors();
  test_slice_extremes();
  test_zero_strides();
  test_wrong_attribute_types();
  test_arena_cap();
  test_garbage();
  TEST_MAIN_END();
}
