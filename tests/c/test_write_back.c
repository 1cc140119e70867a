/*
 * Write-back (osi_result_model): the rewritten model decodes, carries the
 * inferred types (dim_value / dim_param / empty Dimension), keeps every other
 * byte (unknown fields and groups included), is idempotent and infers to the
 * same result; malformed bytes give NULL, never a crash. Then the same checks
 * over every ONNX backend model ($OSI_SHARED_DIR/onnx-backend, else
 * ../shared/onnx-backend, or argv[1]; a missing folder fails the test).
 */
#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "model_builder.h"
#include "onnx_shapes.h"
#include "onnx_shapes.pb-c.h"
#include "api/result.h"
#include "test.h"

/* Section - A tiny independent wire reader */

typedef struct WField {
  uint32_t number;
  int wire;
  const uint8_t *start, *end; /* whole field */
  const uint8_t *data;        /* payload (length-delimited) */
  size_t len;
} WField;

typedef struct WList {
  WField *v;
  size_t n, cap;
} WList;

static int wvarint(const uint8_t **p, const uint8_t *end, uint64_t *out) {
  uint64_t v = 0;
  for (int s = 0; s < 70; s += 7) {
    if (*p >= end) return 0;
    uint8_t b = *(*p)++;
    if (s < 64) v |= (uint64_t)(b & 0x7f) << s;
    if (!(b & 0x80)) return *out = v, 1;
  }
  return 0;
}

static int wfield(const uint8_t **p, const uint8_t *end, WField *f) {
  uint64_t tag, v;
  f->start = *p;
  f->data = NULL;
  f->len = 0;
  if (!wvarint(p, end, &tag)) return 0;
  f->number = (uint32_t)(tag >> 3);
  f->wire = (int)(tag & 7);
  switch (f->wire) {
  case 0: if (!wvarint(p, end, &v)) return 0; break;
  case 1: if (end - *p < 8) return 0; *p += 8; break;
  case 5: if (end - *p < 4) return 0; *p += 4; break;
  case 2:
    if (!wvarint(p, end, &v) || v > (uint64_t)(end - *p)) return 0;
    f->data = *p;
    f->len = (size_t)v;
    *p += v;
    break;
  case 3:
    for (;;) {
      WField in;
      if (!wfield(p, end, &in)) return 0;
      if (in.wire == 4) break;
    }
    break;
  case 4: break;
  default: return 0;
  }
  f->end = *p;
  return 1;
}

/* Every field of a message; 0 if malformed. */
static int wparse(const uint8_t *p, size_t len, WList *l) {
  const uint8_t *end = p + len;
  l->n = 0;
  while (p < end) {
    if (l->n == l->cap) {
      l->cap = l->cap ? 2 * l->cap : 64;
      l->v = realloc(l->v, l->cap * sizeof *l->v);
    }
    if (!wfield(&p, end, &l->v[l->n])) return 0;
    l->n++;
  }
  return 1;
}

static int same_bytes(const WField *a, const WField *b) {
  size_t na = (size_t)(a->end - a->start), nb = (size_t)(b->end - b->start);
  return na == nb && memcmp(a->start, b->start, na) == 0;
}

static void wput_varint(uint8_t **p, uint64_t v) {
  while (v >= 0x80) *(*p)++ = (uint8_t)(v | 0x80), v >>= 7;
  *(*p)++ = (uint8_t)v;
}

/* `model` with `graph_extra` appended inside its graph and `model_extra`
 * appended to the model (malloc'ed). */
static uint8_t *with_extra_fields(const uint8_t *model, size_t len, const uint8_t *graph_extra,
                                  size_t n_graph_extra, const uint8_t *model_extra,
                                  size_t n_model_extra, size_t *out_len) {
  WList l = {0};
  uint8_t *out = malloc(len + n_graph_extra + n_model_extra + 32), *p = out;
  CHECK(wparse(model, len, &l));
  for (size_t i = 0; i < l.n; i++) {
    if (l.v[i].number != 7) {
      memcpy(p, l.v[i].start, (size_t)(l.v[i].end - l.v[i].start));
      p += l.v[i].end - l.v[i].start;
      continue;
    }
    wput_varint(&p, (7 << 3) | 2);
    wput_varint(&p, l.v[i].len + n_graph_extra);
    memcpy(p, l.v[i].data, l.v[i].len);
    p += l.v[i].len;
    memcpy(p, graph_extra, n_graph_extra);
    p += n_graph_extra;
  }
  memcpy(p, model_extra, n_model_extra);
  p += n_model_extra;
  *out_len = (size_t)(p - out);
  free(l.v);
  return out;
}

/* Section - Helpers */

static const Onnx__ValueInfoProto *find_vi(Onnx__ValueInfoProto **v, size_t n, const char *name) {
  for (size_t i = 0; i < n; i++)
    if (v[i]->name && strcmp(v[i]->name, name) == 0) return v[i];
  return NULL;
}

/* "float[N,3,?]", "float[*]" (no shape), "seq(float[N])", "opt(...)",
 * "map(int64,...)", or "" (no type) for a decoded TypeProto. */
static void type_text(const Onnx__TypeProto *tp, char *out, size_t cap) {
  static const char *const names[] = {"?", "float", "uint8", "int8", "uint16", "int16",
                                      "int32", "int64", "string", "bool"};
  out[0] = 0;
  if (!tp) return;
  char inner[512];
  switch (tp->value_case) {
  case ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE: {
    const Onnx__TypeProto__Tensor *t = tp->tensor_type;
    size_t n = (size_t)snprintf(out, cap, "%s", t->elem_type >= 0 && t->elem_type < 10 ? names[t->elem_type] : "other");
    if (!t->shape) {
      snprintf(out + n, cap - n, "[*]");
      break;
    }
    n += (size_t)snprintf(out + n, cap - n, "[");
    for (size_t i = 0; i < t->shape->n_dim && n < cap; i++) {
      const Onnx__TensorShapeProto__Dimension *d = t->shape->dim[i];
      const char *sep = i ? "," : "";
      if (d->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE)
        n += (size_t)snprintf(out + n, cap - n, "%s%lld", sep, (long long)d->dim_value);
      else if (d->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM)
        n += (size_t)snprintf(out + n, cap - n, "%s%s", sep, d->dim_param);
      else
        n += (size_t)snprintf(out + n, cap - n, "%s?", sep);
    }
    if (n < cap) snprintf(out + n, cap - n, "]");
    break;
  }
  case ONNX__TYPE_PROTO__VALUE_SEQUENCE_TYPE:
    type_text(tp->sequence_type->elem_type, inner, sizeof inner);
    snprintf(out, cap, "seq(%s)", inner);
    break;
  case ONNX__TYPE_PROTO__VALUE_OPTIONAL_TYPE:
    type_text(tp->optional_type->elem_type, inner, sizeof inner);
    snprintf(out, cap, "opt(%s)", inner);
    break;
  case ONNX__TYPE_PROTO__VALUE_MAP_TYPE:
    type_text(tp->map_type->value_type, inner, sizeof inner);
    snprintf(out, cap, "map(%d,%s)", tp->map_type->key_type, inner);
    break;
  default:
    snprintf(out, cap, "other");
  }
}

static const char *vi_type(Onnx__ValueInfoProto **v, size_t n, const char *name) {
  static char buf[1024];
  const Onnx__ValueInfoProto *vi = find_vi(v, n, name);
  if (!vi) return "(absent)";
  type_text(vi->type, buf, sizeof buf);
  return buf;
}

static char *dup_str(const char *s) {
  size_t n = strlen(s) + 1;
  return memcpy(malloc(n), s, n);
}

/* Copy of the written bytes of `r` (NULL when it has none). */
static uint8_t *written(OsiResult *r, size_t *len) {
  const uint8_t *m = osi_result_model(r, len);
  if (!m) return NULL;
  uint8_t *copy = malloc(*len ? *len : 1);
  memcpy(copy, m, *len);
  return copy;
}

/*
 * The "values" object of a result's JSON with the numbers of generated
 * symbols ("nnz_1", "iterations_3": <name>_<digits>) replaced
 * by '#' (malloc'ed). Re-inferring a written model may number them
 * differently: the decoder interns the dim_params of every value_info (even
 * when they are not anchors), and osi_expr_fresh skips names already taken.
 */
static char *normalized_values(const char *json) {
  const char *from = strstr(json, "{\"values\":"), *to = strstr(json, ",\"producers\":");
  if (!from || !to || to < from) return dup_str(json);
  size_t n = (size_t)(to - from);
  char *out = malloc(n + 1);
  size_t k = 0;
  for (size_t i = 0; i < n;) {
    char c = from[i];
    if (c == '_' && k && (isalnum((unsigned char)out[k - 1])) && i + 1 < n &&
        isdigit((unsigned char)from[i + 1])) {
      size_t j = i + 1;
      while (j < n && isdigit((unsigned char)from[j])) j++;
      if (j == n || !(isalnum((unsigned char)from[j]) || from[j] == '_')) {
        out[k++] = '_';
        out[k++] = '#';
        i = j;
        continue;
      }
    }
    out[k++] = c;
    i++;
  }
  out[k] = 0;
  return out;
}

/* 1 when the two results have the same values (up to symbol numbering). */
static int same_values(OsiResult *a, OsiResult *b) {
  char *x = normalized_values(osi_result_json(a)), *y = normalized_values(osi_result_json(b));
  int same = strcmp(x, y) == 0;
  if (!same) fprintf(stderr, "values differ:\n  %s\n  %s\n", x, y);
  free(x);
  free(y);
  return same;
}

/* Section - Hand-built models */

/* x float[N,3], s int64[2] (runtime content) ->
 *   a = Relu(x)          existing value_info "float[*]": updated in place
 *   c = Reshape(a, s)    float[?,?]: empty Dimensions
 *   d = Concat(x, x)     output declared float[*]: [2*N,3]
 *   e = NonZero(x)       int64[2,nnz_1]
 *   f = Shape(x)         int64[2]
 *   g = Foo(x)           unknown op: no type, no entry
 *   h = Size(x)          int64 scalar: a shape with no dim
 * value_info "zz" names no value: kept as is. */
static Builder *sample_builder(void) {
  Builder *b = builder_new(17);
  builder_input(b, "x", "float[N,3]");
  builder_input(b, "s", "int64[2]");
  builder_node(b, "Relu", "r", "x", "", "a", "");
  builder_node(b, "Reshape", "rs", "a", "s", "", "c", "");
  builder_node(b, "Concat", "cc", "x", "x", "", "d", "");
  builder_attr_int(b, "axis", 0);
  builder_node(b, "NonZero", "nz", "x", "", "e", "");
  builder_node(b, "Shape", "sh", "x", "", "f", "");
  builder_node(b, "Foo", "foo", "x", "", "g", "");
  builder_node(b, "Size", "sz", "x", "", "h", "");
  builder_value_info(b, "a", "float[*]");
  builder_value_info(b, "zz", "int64[7]");
  builder_output(b, "d", "float[*]");
  return b;
}

static void test_sample(void) {
  Builder *b = sample_builder();
  size_t len, out_len;
  uint8_t *bytes = builder_pack(b, &len);
  OsiResult *r = osi_infer(bytes, len, 0);
  CHECK_INT(osi_result_status(r), OSI_OK);
  uint8_t *out = written(r, &out_len);
  CHECK(out != NULL);
  Onnx__ModelProto *m = out ? onnx__model_proto__unpack(NULL, out_len, out) : NULL;
  CHECK(m != NULL);
  if (m) {
    Onnx__GraphProto *g = m->graph;
    CHECK_INT(g->n_output, 1);
    CHECK_STR(vi_type(g->output, g->n_output, "d"), "float[2*N,3]");
    CHECK_INT(g->n_value_info, 6);
    /* existing entries first, in place */
    CHECK_STR(g->value_info[0]->name, "a");
    CHECK_STR(vi_type(g->value_info, 1, "a"), "float[N,3]");
    CHECK_STR(g->value_info[1]->name, "zz");
    CHECK_STR(vi_type(g->value_info + 1, 1, "zz"), "int64[7]");
    /* then the new ones, sorted; no inputs, outputs or unknown types */
    const char *want[] = {"c", "e", "f", "h"};
    for (int i = 0; i < 4 && (size_t)i + 2 < g->n_value_info; i++)
      CHECK_STR(g->value_info[i + 2]->name, want[i]);
    CHECK_STR(vi_type(g->value_info, g->n_value_info, "c"), "float[?,?]");
    CHECK_STR(vi_type(g->value_info, g->n_value_info, "e"), "int64[2,nnz_1]");
    CHECK_STR(vi_type(g->value_info, g->n_value_info, "f"), "int64[2]");
    CHECK_STR(vi_type(g->value_info, g->n_value_info, "h"), "int64[]");
    CHECK_STR(vi_type(g->value_info, g->n_value_info, "g"), "(absent)");
    CHECK_STR(vi_type(g->value_info, g->n_value_info, "x"), "(absent)");
    /* the empty Dimension really has neither field */
    const Onnx__ValueInfoProto *c = find_vi(g->value_info, g->n_value_info, "c");
    CHECK(c && c->type->tensor_type->shape->dim[0]->value_case ==
                   ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE__NOT_SET);
    CHECK_INT(g->n_input, 2);
    CHECK_STR(vi_type(g->input, g->n_input, "x"), "float[N,3]");
    CHECK_INT(g->n_node, 7);
    onnx__model_proto__free_unpacked(m, NULL);
  }

  /* Round trip: the written model infers to the same values, and its
   * value_info entries are consistent anchors. */
  OsiResult *r2 = osi_infer(out, out_len, 0);
  CHECK(same_values(r2, r));
  OsiResult *r3 = osi_infer(out, out_len, OSI_OPT_PREFILL_VALUE_INFO | OSI_OPT_STRICT);
  CHECK_INT(osi_result_status(r3), OSI_OK);
  osi_result_delete(r3);
  osi_result_delete(r2);
  free(out);
  osi_result_delete(r);
  free(bytes);
  builder_free(b);
}

/* OSI_OPT_FREE_BYTES: the engine frees the bytes once decoded (ASan and
 * valgrind see a use after that), the result is the same, and there is
 * nothing to write back into. */
static void test_free_bytes(void) {
  Builder *b = sample_builder();
  size_t len;
  uint8_t *bytes = builder_pack(b, &len);
  const uint32_t decoders[] = {OSI_OPT_DECODER_PBC, OSI_OPT_DECODER_NANOPB};
  for (int k = 0; k < 2; k++) {
    OsiResult *kept = osi_infer(bytes, len, decoders[k]);
    uint8_t *copy = malloc(len);
    CHECK(copy != NULL);
    if (!copy) break;
    memcpy(copy, bytes, len);
    OsiResult *r = osi_infer(copy, len, decoders[k] | OSI_OPT_FREE_BYTES);
    CHECK_INT(osi_result_status(r), OSI_OK);
    CHECK(same_values(r, kept));
    size_t out_len = 1;
    CHECK(osi_result_model(r, &out_len) == NULL);
    CHECK_INT((int)out_len, 0);
    osi_result_delete(r);
    osi_result_delete(kept);
  }
  /* freed on failure too: not a model */
  uint8_t *junk = malloc(3);
  CHECK(junk != NULL);
  if (junk) {
    memcpy(junk, "\xff\xff\xff", 3);
    OsiResult *r = osi_infer(junk, 3, OSI_OPT_FREE_BYTES);
    CHECK(osi_result_status(r) != OSI_OK);
    osi_result_delete(r);
  }
  free(bytes);
  builder_free(b);
}

/* Unknown fields at model and graph level, and the inputs, nodes, initializers
 * and opset imports, survive byte for byte. */
static void test_unknown_fields(void) {
  Builder *b = sample_builder();
  builder_initializer_ints(b, "k", 3, (int64_t[]){1, 2, 3});
  size_t len, full_len, out_len;
  uint8_t *bytes = builder_pack(b, &len);
  /* field 99 varint 42; field 100 bytes "hello"; field 101 fixed32 */
  const uint8_t graph_extra[] = {0x98, 0x06, 0x2a, 0xa2, 0x06, 5, 'h', 'e', 'l', 'l', 'o',
                                 0xad, 0x06, 1, 2, 3, 4};
  const uint8_t model_extra[] = {0x98, 0x06, 0x2a, 0xa1, 0x06, 1, 2, 3, 4, 5, 6, 7, 8};
  uint8_t *full = with_extra_fields(bytes, len, graph_extra, sizeof graph_extra, model_extra,
                                    sizeof model_extra, &full_len);
  OsiResult *r = osi_infer(full, full_len, 0);
  CHECK_INT(osi_result_status(r), OSI_OK);
  uint8_t *out = written(r, &out_len);
  CHECK(out != NULL);
  if (out) {
    CHECK(out_len > sizeof model_extra &&
          memcmp(out + out_len - sizeof model_extra, model_extra, sizeof model_extra) == 0);
    WList a = {0}, bl = {0}, ga = {0}, gb = {0};
    CHECK(wparse(full, full_len, &a) && wparse(out, out_len, &bl));
    CHECK_INT(a.n, bl.n);
    for (size_t i = 0; i < a.n && i < bl.n; i++) {
      CHECK_INT(a.v[i].number, bl.v[i].number);
      if (a.v[i].number != 7) {
        CHECK(same_bytes(&a.v[i], &bl.v[i]));
        continue;
      }
      CHECK(wparse(a.v[i].data, a.v[i].len, &ga) && wparse(bl.v[i].data, bl.v[i].len, &gb));
      /* graph: every field but outputs and value_info identical, in order */
      size_t j = 0, k = 0;
      for (;;) {
        while (j < ga.n && (ga.v[j].number == 12 || ga.v[j].number == 13)) j++;
        while (k < gb.n && (gb.v[k].number == 12 || gb.v[k].number == 13)) k++;
        if (j == ga.n || k == gb.n) break;
        CHECK(same_bytes(&ga.v[j], &gb.v[k]));
        j++, k++;
      }
      CHECK(j == ga.n && k == gb.n);
      /* the graph's unknown fields are still its last (non-value_info) bytes */
      int found = 0;
      for (size_t q = 0; q + 3 <= gb.n; q++)
        if (gb.v[q].number == 99 && gb.v[q + 1].number == 100 && gb.v[q + 2].number == 101)
          found = (size_t)(gb.v[q + 2].end - gb.v[q].start) == sizeof graph_extra &&
                  memcmp(gb.v[q].start, graph_extra, sizeof graph_extra) == 0;
      CHECK(found);
    }
    free(a.v), free(bl.v), free(ga.v), free(gb.v);
  }
  free(out);
  osi_result_delete(r);
  free(full);
  free(bytes);
  builder_free(b);
}

/* Groups (which protobuf-c itself rejects) are copied verbatim: the borrowed
 * bytes are swapped, after osi_infer, for bytes of the same length where an
 * unknown bytes field has become a group. */
static void test_groups(void) {
  Builder *b = sample_builder();
  size_t len, full_len, out_len;
  uint8_t *bytes = builder_pack(b, &len);
  const uint8_t as_bytes[] = {0x9a, 0x06, 3, 'a', 'b', 'c'};        /* field 99, "abc" */
  const uint8_t as_group[] = {0x93, 0x06, 0x08, 0x05, 0x94, 0x06}; /* group 98 { 1: 5 } */
  uint8_t *full = with_extra_fields(bytes, len, as_bytes, sizeof as_bytes, as_bytes,
                                    sizeof as_bytes, &full_len);
  OsiResult *r = osi_infer(full, full_len, 0);
  CHECK_INT(osi_result_status(r), OSI_OK);
  /* model level: the last 6 bytes; graph level: the first other occurrence */
  memcpy(full + full_len - 6, as_group, 6);
  for (size_t i = 0; i + 6 < full_len; i++)
    if (memcmp(full + i, as_bytes, 6) == 0) {
      memcpy(full + i, as_group, 6);
      break;
    }
  const uint8_t *out = osi_result_model(r, &out_len);
  CHECK(out != NULL);
  if (out) {
    CHECK(memcmp(out + out_len - 6, as_group, 6) == 0);
    WList l = {0}, g = {0};
    CHECK(wparse(out, out_len, &l));
    int found = 0;
    for (size_t i = 0; i < l.n; i++)
      if (l.v[i].number == 7 && wparse(l.v[i].data, l.v[i].len, &g))
        for (size_t j = 0; j < g.n; j++)
          found |= g.v[j].number == 98 && g.v[j].wire == 3 && same_bytes(&g.v[j], &(WField){
                       .start = as_group, .end = as_group + 6});
    CHECK(found);
    free(l.v), free(g.v);
  }
  osi_result_delete(r);
  free(full);
  free(bytes);
  builder_free(b);
}

/* Sequence and optional types nest; an unknown rank writes no shape. */
static void test_nested_and_unranked(void) {
  Builder *b = builder_new(18);
  builder_input(b, "x", "float[N,3]");
  builder_input(b, "u", "float[*]");
  builder_node(b, "SequenceConstruct", "sc", "x", "x", "", "seq", "");
  builder_node(b, "Optional", "op", "x", "", "opt", "");
  builder_node(b, "Relu", "r", "u", "", "ur", "");
  builder_input(b, "pos", "int64[]");
  builder_node(b, "SequenceAt", "sa", "seq", "pos", "", "at", "");
  builder_initializer_ints(b, "k", 2, (int64_t[]){1, 2});
  builder_node(b, "Identity", "id", "k", "", "k2", "");
  builder_output(b, "at", "float[*]");
  size_t len, out_len;
  uint8_t *bytes = builder_pack(b, &len);
  OsiResult *r = osi_infer(bytes, len, 0);
  CHECK_INT(osi_result_status(r), OSI_OK);
  uint8_t *out = written(r, &out_len);
  Onnx__ModelProto *m = out ? onnx__model_proto__unpack(NULL, out_len, out) : NULL;
  CHECK(m != NULL);
  if (m) {
    Onnx__GraphProto *g = m->graph;
    CHECK_STR(vi_type(g->value_info, g->n_value_info, "seq"), "seq(float[N,3])");
    CHECK_STR(vi_type(g->value_info, g->n_value_info, "opt"), "opt(float[N,3])");
    CHECK_STR(vi_type(g->value_info, g->n_value_info, "ur"), "float[*]");
    CHECK_STR(vi_type(g->value_info, g->n_value_info, "pos"), "(absent)"); /* input */
    CHECK_STR(vi_type(g->value_info, g->n_value_info, "k"), "(absent)");   /* initializer */
    CHECK_STR(vi_type(g->value_info, g->n_value_info, "k2"), "int64[2]");
    CHECK_STR(vi_type(g->output, g->n_output, "at"), "float[N,3]");
    onnx__model_proto__free_unpacked(m, NULL);
  }
  OsiResult *r2 = osi_infer(out, out_len, 0);
  CHECK_STR(osi_result_json(r2), osi_result_json(r));
  osi_result_delete(r2);
  free(out);
  osi_result_delete(r);
  free(bytes);
  builder_free(b);
}

/* A value_info whose inferred type has unknown parts keeps what it declares
 * there; one that would not change keeps its bytes; an unknown element type
 * leaves the entry alone. */
static void test_fill_from_declaration(void) {
  Builder *b = builder_new(17);
  builder_input(b, "x", "float[N,3]");
  builder_input(b, "s", "int64[2]");
  builder_node(b, "Reshape", "rs", "x", "s", "", "c", "");
  builder_node(b, "Relu", "r", "x", "", "y", "");
  builder_node(b, "Foo", "foo", "x", "", "g", "");
  builder_value_info(b, "c", "float[6,K]");  /* inferred [?,?] */
  builder_value_info(b, "y", "float[N,3]");  /* unchanged */
  builder_value_info(b, "g", "int8[1]");     /* inferred: nothing */
  builder_output(b, "y", "float[N,3]");
  size_t len, out_len;
  uint8_t *bytes = builder_pack(b, &len);
  OsiResult *r = osi_infer(bytes, len, 0);
  uint8_t *out = written(r, &out_len);
  Onnx__ModelProto *m = out ? onnx__model_proto__unpack(NULL, out_len, out) : NULL;
  CHECK(m != NULL);
  if (m) {
    Onnx__GraphProto *g = m->graph;
    CHECK_INT(g->n_value_info, 3);
    CHECK_STR(vi_type(g->value_info, g->n_value_info, "c"), "float[6,K]");
    CHECK_STR(vi_type(g->value_info, g->n_value_info, "y"), "float[N,3]");
    CHECK_STR(vi_type(g->value_info, g->n_value_info, "g"), "int8[1]");
    onnx__model_proto__free_unpacked(m, NULL);
  }
  /* nothing to change at all: the very same bytes */
  OsiResult *r2 = osi_infer(out, out_len, 0);
  size_t again_len;
  const uint8_t *again = osi_result_model(r2, &again_len);
  CHECK(again && again_len == out_len && memcmp(again, out, out_len) == 0);
  osi_result_delete(r2);
  free(out);
  osi_result_delete(r);
  free(bytes);
  builder_free(b);
}

/* The denotation of a replaced TypeProto is kept. */
static void test_denotation(void) {
  Builder *b = builder_new(17);
  builder_input(b, "x", "float[N,3]");
  builder_node(b, "Relu", "r", "x", "", "y", "");
  builder_output(b, "y", "float[*]");
  size_t len, out_len;
  uint8_t *bytes = builder_pack(b, &len);
  Onnx__ModelProto *m = onnx__model_proto__unpack(NULL, len, bytes);
  m->graph->output[0]->type->denotation = "TENSOR";
  uint8_t *with = malloc(onnx__model_proto__get_packed_size(m));
  len = onnx__model_proto__pack(m, with);
  m->graph->output[0]->type->denotation = NULL; /* not ours to free */
  onnx__model_proto__free_unpacked(m, NULL);
  OsiResult *r = osi_infer(with, len, 0);
  uint8_t *out = written(r, &out_len);
  m = out ? onnx__model_proto__unpack(NULL, out_len, out) : NULL;
  CHECK(m != NULL);
  if (m) {
    CHECK_STR(vi_type(m->graph->output, 1, "y"), "float[N,3]");
    CHECK_STR(m->graph->output[0]->type->denotation, "TENSOR");
    onnx__model_proto__free_unpacked(m, NULL);
  }
  free(out);
  osi_result_delete(r);
  free(with);
  free(bytes);
  builder_free(b);
}

static void test_refusals(void) {
  size_t len = 123;
  CHECK(osi_result_model(NULL, &len) == NULL);
  CHECK_INT(len, 0);
  const uint8_t garbage[] = {0xff, 0xff, 0xff};
  OsiResult *r = osi_infer(garbage, sizeof garbage, 0);
  len = 123;
  CHECK(osi_result_model(r, &len) == NULL);
  CHECK_INT(len, 0);
  osi_result_delete(r);
}

/* Hostile bytes: after osi_infer the borrowed input is corrupted at random;
 * osi_result_model must return NULL or well-formed bytes, never crash (run
 * under -DOSI_SANITIZE=ON to catch overreads). */
static void test_corrupted_input(void) {
  Builder *b = sample_builder();
  size_t len;
  uint8_t *bytes = builder_pack(b, &len);
  uint8_t *buf = malloc(len);
  uint32_t seed = 12345;
  int ok = 0, refused = 0;
  for (int iter = 0; iter < 3000; iter++) {
    memcpy(buf, bytes, len);
    OsiResult *r = osi_infer(buf, len, 0);
    int flips = 1 + iter % 4;
    for (int k = 0; k < flips; k++) {
      seed = seed * 1103515245u + 12345u;
      size_t at = (seed >> 8) % len;
      seed = seed * 1103515245u + 12345u;
      buf[at] = iter % 3 == 0 ? 0xff : (uint8_t)(seed >> 16);
    }
    size_t n;
    const uint8_t *m = osi_result_model(r, &n);
    if (m) {
      WList l = {0};
      ok++;
      CHECK(wparse(m, n, &l));
      free(l.v);
    } else {
      refused++;
    }
    osi_result_delete(r);
  }
  CHECK(ok > 0 && refused > 0);
  free(buf);
  free(bytes);
  builder_free(b);
}

/* Section - Every backend model */

typedef struct Stats {
  int models, checked, failed_infer, entries_added, idempotent;
} Stats;

static int compare_str(const void *a, const void *b) {
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static int writable(const OsiType *t, int depth) {
  if (!t || depth > 64) return 0;
  switch (t->kind) {
  case OSI_KIND_TENSOR:
  case OSI_KIND_SPARSE_TENSOR: return t->elem_type != 0;
  case OSI_KIND_SEQUENCE:
  case OSI_KIND_OPTIONAL: return writable(t->elem, depth + 1);
  case OSI_KIND_MAP: return t->elem_type != 0 && writable(t->elem, depth + 1);
  default: return 0;
  }
}

static uint8_t *read_file(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  uint8_t *buf = malloc(n > 0 ? (size_t)n : 1);
  *len = fread(buf, 1, n > 0 ? (size_t)n : 0, f);
  fclose(f);
  return buf;
}

/* Returns 0 when the model passes (or is skipped), prints why otherwise. */
static int check_backend_model(const char *path, Stats *st) {
  size_t len, out_len;
  uint8_t *bytes = read_file(path, &len);
  if (!bytes) return 0;
  st->models++;
  int bad = 0;
#define FAIL(...) (fprintf(stderr, "%s: ", path), fprintf(stderr, __VA_ARGS__), fputc('\n', stderr), bad = 1)
  OsiResult *r = osi_infer(bytes, len, 0);
  if (osi_result_status(r) != OSI_OK) {
    st->failed_infer++;
    osi_result_delete(r);
    free(bytes);
    return 0;
  }
  st->checked++;
  uint8_t *out = written(r, &out_len);
  Onnx__ModelProto *a = onnx__model_proto__unpack(NULL, len, bytes);
  Onnx__ModelProto *b = out ? onnx__model_proto__unpack(NULL, out_len, out) : NULL;
  if (!out) FAIL("osi_result_model returned NULL");
  else if (!b) FAIL("the written model does not decode");
  WList ma = {0}, mb = {0}, ga = {0}, gb = {0};
  if (b && a && (!wparse(bytes, len, &ma) || !wparse(out, out_len, &mb))) FAIL("wire parse failed");
  if (b && a && !bad) {
    /* Model fields: the same sequence, identical except the graph. */
    if (ma.n != mb.n) FAIL("model has %zu fields, was %zu", mb.n, ma.n);
    for (size_t i = 0; !bad && i < ma.n; i++) {
      if (ma.v[i].number != mb.v[i].number) FAIL("model field %zu changed number", i);
      else if (ma.v[i].number != 7 && !same_bytes(&ma.v[i], &mb.v[i])) FAIL("model field %u changed", ma.v[i].number);
      else if (ma.v[i].number == 7 && (!wparse(ma.v[i].data, ma.v[i].len, &ga) ||
                                       !wparse(mb.v[i].data, mb.v[i].len, &gb)))
        FAIL("graph wire parse failed");
    }
  }
  if (b && a && !bad) {
    /* Graph fields other than output/value_info: identical, in order. */
    size_t j = 0, k = 0;
    for (;;) {
      while (j < ga.n && (ga.v[j].number == 12 || ga.v[j].number == 13)) j++;
      while (k < gb.n && (gb.v[k].number == 12 || gb.v[k].number == 13)) k++;
      if (j == ga.n || k == gb.n) break;
      if (!same_bytes(&ga.v[j], &gb.v[k])) {
        FAIL("graph field %u changed", ga.v[j].number);
        break;
      }
      j++, k++;
    }
    if (!bad && (j != ga.n || k != gb.n)) FAIL("graph fields added or lost");
    /* Outputs and existing value_info: same names, same non-type fields. */
    const Onnx__GraphProto *A = a->graph, *B = b->graph;
    if (A->n_output != B->n_output) FAIL("output count changed");
    if (B->n_value_info < A->n_value_info) FAIL("value_info lost");
    for (size_t i = 0; !bad && i < A->n_output; i++)
      if (strcmp(A->output[i]->name, B->output[i]->name) != 0) FAIL("output %zu renamed", i);
    for (size_t i = 0; !bad && i < A->n_value_info; i++)
      if (strcmp(A->value_info[i]->name, B->value_info[i]->name) != 0) FAIL("value_info %zu renamed", i);
    if (!bad) {
      size_t ia = 0, ib = 0;
      WList va = {0}, vb = {0};
      for (;;) {
        while (ia < ga.n && ga.v[ia].number != 12 && ga.v[ia].number != 13) ia++;
        while (ib < gb.n && gb.v[ib].number != 12 && gb.v[ib].number != 13) ib++;
        if (ia == ga.n || ib == gb.n) break;
        wparse(ga.v[ia].data, ga.v[ia].len, &va);
        wparse(gb.v[ib].data, gb.v[ib].len, &vb);
        size_t p = 0, q = 0;
        for (;;) {
          while (p < va.n && va.v[p].number == 2) p++;
          while (q < vb.n && vb.v[q].number == 2) q++;
          if (p == va.n || q == vb.n) break;
          if (!same_bytes(&va.v[p], &vb.v[q])) FAIL("a value_info/output field changed");
          p++, q++;
        }
        if (p != va.n || q != vb.n) FAIL("value_info/output fields added or lost");
        ia++, ib++;
      }
      free(va.v), free(vb.v);
    }
    /* New entries: sorted, exactly the top-level node outputs with a
     * writable inferred type that are not inputs/initializers/outputs/
     * existing value_info. */
    size_t n_taken = A->n_input + A->n_output + A->n_value_info + A->n_initializer, t = 0;
    const char **taken = malloc((n_taken + 1) * sizeof *taken);
    for (size_t i = 0; i < A->n_input; i++) taken[t++] = A->input[i]->name;
    for (size_t i = 0; i < A->n_output; i++) taken[t++] = A->output[i]->name;
    for (size_t i = 0; i < A->n_value_info; i++) taken[t++] = A->value_info[i]->name;
    for (size_t i = 0; i < A->n_initializer; i++) taken[t++] = A->initializer[i]->name;
    qsort(taken, t, sizeof *taken, compare_str);
    size_t n_want = 0, cap = 16;
    const char **want = malloc(cap * sizeof *want);
    for (size_t i = 0; i < A->n_node; i++)
      for (size_t o = 0; o < A->node[i]->n_output; o++) {
        const char *name = A->node[i]->output[o];
        if (!name[0] || bsearch(&name, taken, t, sizeof *taken, compare_str)) continue;
        if (!writable(osi_result_lookup(r, name), 0)) continue;
        if (n_want == cap) want = realloc(want, (cap *= 2) * sizeof *want);
        want[n_want++] = name;
      }
    qsort(want, n_want, sizeof *want, compare_str);
    size_t n_new = B->n_value_info - A->n_value_info;
    if (!bad && n_new != n_want) FAIL("%zu new value_info, want %zu", n_new, n_want);
    for (size_t i = 0; !bad && i < n_new; i++) {
      const Onnx__ValueInfoProto *vi = B->value_info[A->n_value_info + i];
      if (strcmp(vi->name, want[i]) != 0) FAIL("new value_info %zu is '%s', want '%s'", i, vi->name, want[i]);
      else if (!vi->type) FAIL("new value_info '%s' has no type", vi->name);
    }
    st->entries_added += (int)n_new;
    free(want);
    free(taken);
  }
  if (b && !bad) {
    /* Round trip: the same values; when the whole JSON is the same (no
     * generated symbol renumbered), idempotent; consistent as anchors. */
    OsiResult *r2 = osi_infer(out, out_len, 0);
    if (!same_values(r2, r)) FAIL("re-inference gives other values");
    if (strcmp(osi_result_json(r2), osi_result_json(r)) == 0) {
      size_t n2;
      const uint8_t *again = osi_result_model(r2, &n2);
      if (!again || n2 != out_len || memcmp(again, out, n2) != 0) FAIL("write-back is not idempotent");
      st->idempotent++;
    }
    osi_result_delete(r2);
    OsiResult *p1 = osi_infer(bytes, len, OSI_OPT_PREFILL_VALUE_INFO);
    if (osi_result_status(p1) == OSI_OK) {
      OsiResult *p2 = osi_infer(out, out_len, OSI_OPT_PREFILL_VALUE_INFO);
      if (osi_result_status(p2) != OSI_OK) FAIL("prefill of the written model fails: %s", osi_result_error(p2));
      osi_result_delete(p2);
    }
    osi_result_delete(p1);
  }
#undef FAIL
  free(ma.v), free(mb.v), free(ga.v), free(gb.v);
  if (a) onnx__model_proto__free_unpacked(a, NULL);
  if (b) onnx__model_proto__free_unpacked(b, NULL);
  free(out);
  osi_result_delete(r);
  free(bytes);
  return bad;
}

static int is_dir(const char *p) {
  struct stat s;
  return stat(p, &s) == 0 && S_ISDIR(s.st_mode);
}

/* <dir>/<case>/model.onnx for every case, or <dir>/<file>.onnx when flat. */
static void walk(const char *dir, Stats *st) {
  DIR *d = opendir(dir);
  if (!d) return;
  size_t n = 0, cap = 64;
  char **names = malloc(cap * sizeof *names);
  for (struct dirent *e; (e = readdir(d));) {
    if (e->d_name[0] == '.') continue;
    if (n == cap) names = realloc(names, (cap *= 2) * sizeof *names);
    names[n++] = dup_str(e->d_name);
  }
  closedir(d);
  qsort(names, n, sizeof *names, compare_str);
  for (size_t i = 0; i < n; i++) {
    char path[8192];
    size_t nl = strlen(names[i]);
    snprintf(path, sizeof path, "%s/%s", dir, names[i]);
    if (is_dir(path)) snprintf(path, sizeof path, "%s/%s/model.onnx", dir, names[i]);
    else if (nl < 5 || strcmp(names[i] + nl - 5, ".onnx") != 0) path[0] = 0;
    if (path[0]) CHECK(check_backend_model(path, st) == 0);
    free(names[i]);
  }
  free(names);
}

static void test_backend(const char *root) {
  if (!is_dir(root)) { /* a round trip that ran nothing must not pass */
    fprintf(stderr, "test_write_back: the backend models are missing: %s (set OSI_SHARED_DIR)\n", root);
    CHECK(0);
    return;
  }
  static const char *const subdirs[] = {"node", "simple", "light", "pytorch-converted",
                                        "pytorch-operator"};
  Stats st = {0};
  for (size_t i = 0; i < sizeof subdirs / sizeof *subdirs; i++) {
    char dir[4200];
    snprintf(dir, sizeof dir, "%s/%s", root, subdirs[i]);
    int before = st.models;
    walk(dir, &st);
    if (st.models == before) fprintf(stderr, "test_write_back: no models in %s\n", dir);
    CHECK(st.models > before); /* every set is there */
  }
  printf("backend: %d models, %d written and checked (%d value_info added, %d byte-identical "
         "when written again), %d not inferable\n",
         st.models, st.checked, st.entries_added, st.idempotent, st.failed_infer);
  CHECK(st.checked > 0);
}

int main(int argc, char **argv) {
  test_sample();
  test_free_bytes();
  test_unknown_fields();
  test_groups();
  test_nested_and_unranked();
  test_fill_from_declaration();
  test_denotation();
  test_refusals();
  test_corrupted_input();
  char dflt[4096];
  test_backend(argc > 1 ? argv[1] : test_shared_path("onnx-backend", dflt, sizeof dflt));
  TEST_MAIN_END();
}
