/*
 * Write-back at the protobuf wire level (see write_back.h).
 *
 * The output is planned as a list of segments, each a slice of either the
 * source bytes (copied verbatim) or a side buffer holding what we encode
 * (rewritten value_info/output entries, new value_info entries, the graph's
 * new tag + length). Only the top-level ModelProto fields and the fields of
 * GraphProto (field 7) are walked; every other message is opaque bytes, so
 * nothing protobuf-c does not know about is lost. The segments are then
 * concatenated once into an exactly sized buffer: peak memory is the source
 * plus the output plus the (small) side buffer.
 *
 * Every read is bounds-checked; malformed wire data gives OSI_ERR_PARSE.
 */
#include "api/write_back.h"

#include <stdlib.h>
#include <string.h>

/* Section - Protobuf field numbers (src/decode/proto/onnx_shapes.proto) */

enum { WT_VARINT = 0, WT_I64 = 1, WT_LEN = 2, WT_SGROUP = 3, WT_EGROUP = 4, WT_I32 = 5 };

enum {
  F_MODEL_GRAPH = 7,
  F_GRAPH_OUTPUT = 12,
  F_GRAPH_VALUE_INFO = 13,
  F_VI_NAME = 1,
  F_VI_TYPE = 2,
  F_TYPE_TENSOR = 1,
  F_TYPE_SEQUENCE = 4,
  F_TYPE_MAP = 5,
  F_TYPE_SPARSE = 8,
  F_TYPE_OPTIONAL = 9,
  F_TYPE_DENOTATION = 6,
  F_TENSOR_ELEM = 1, /* Tensor.elem_type, SparseTensor.elem_type */
  F_TENSOR_SHAPE = 2,
  F_SHAPE_DIM = 1,
  F_DIM_VALUE = 1,
  F_DIM_PARAM = 2,
  F_WRAP_ELEM = 1, /* Sequence.elem_type, Optional.elem_type */
  F_MAP_KEY = 1,
  F_MAP_VALUE = 2,
};

/* Nested groups skipped before the data is called malformed. */
#define MAX_GROUP_DEPTH 64
/* Type nesting written (sequence of map of optional ...). */
#define MAX_TYPE_DEPTH 64
/* Room reserved for a length prefix before the length is known. */
#define LEN_RESERVE 10

/* Section - Reader */

typedef struct Field {
  uint32_t number;
  int wire;
  const uint8_t *start; /* first byte of the tag */
  const uint8_t *data;  /* payload of a length-delimited field */
  size_t len;
  const uint8_t *end; /* one past the field */
} Field;

static int read_varint(const uint8_t **p, const uint8_t *end, uint64_t *out) {
  uint64_t v = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    if (*p >= end) return 0;
    uint8_t b = *(*p)++;
    v |= (uint64_t)(b & 0x7f) << shift;
    if (!(b & 0x80)) {
      *out = v;
      return 1;
    }
  }
  return 0;
}

/* Reads the field at *p (a whole group for a start-group tag) and advances
 * past it. 0 when the bytes are malformed. */
static int read_field(const uint8_t **p, const uint8_t *end, Field *f, int depth) {
  uint64_t tag, v;
  f->start = *p;
  f->data = NULL;
  f->len = 0;
  if (!read_varint(p, end, &tag)) return 0;
  if ((tag >> 3) == 0 || (tag >> 3) > 0x1fffffff) return 0;
  f->number = (uint32_t)(tag >> 3);
  f->wire = (int)(tag & 7);
  switch (f->wire) {
  case WT_VARINT:
    if (!read_varint(p, end, &v)) return 0;
    break;
  case WT_I64:
    if (end - *p < 8) return 0;
    *p += 8;
    break;
  case WT_I32:
    if (end - *p < 4) return 0;
    *p += 4;
    break;
  case WT_LEN:
    if (!read_varint(p, end, &v) || v > (uint64_t)(end - *p)) return 0;
    f->data = *p;
    f->len = (size_t)v;
    *p += v;
    break;
  case WT_SGROUP:
    if (depth >= MAX_GROUP_DEPTH) return 0;
    for (;;) {
      Field inner;
      if (!read_field(p, end, &inner, depth + 1)) return 0;
      if (inner.wire == WT_EGROUP) {
        if (inner.number != f->number) return 0;
        break;
      }
    }
    break;
  case WT_EGROUP:
    if (depth == 0) return 0; /* only ends a group read above */
    break;
  default:
    return 0;
  }
  f->end = *p;
  return 1;
}

/* Section - Side buffer (what we encode) */

typedef struct Buf {
  uint8_t *p;
  size_t n, cap;
  int failed;
} Buf;

static int buf_grow(Buf *b, size_t extra) {
  if (b->failed) return 0;
  if (extra > SIZE_MAX - b->n) return b->failed = 1, 0;
  if (b->n + extra <= b->cap) return 1;
  size_t cap = b->cap ? b->cap : 256;
  while (cap < b->n + extra) {
    if (cap > SIZE_MAX / 2) return b->failed = 1, 0;
    cap *= 2;
  }
  uint8_t *q = realloc(b->p, cap);
  if (!q) return b->failed = 1, 0;
  b->p = q;
  b->cap = cap;
  return 1;
}

static void buf_put(Buf *b, const void *d, size_t n) {
  if (n && buf_grow(b, n)) {
    memcpy(b->p + b->n, d, n);
    b->n += n;
  }
}

static int varint_encode(uint8_t *out, uint64_t v) {
  int k = 0;
  while (v >= 0x80) {
    out[k++] = (uint8_t)(v | 0x80);
    v >>= 7;
  }
  out[k++] = (uint8_t)v;
  return k;
}

static void buf_varint(Buf *b, uint64_t v) {
  uint8_t tmp[LEN_RESERVE];
  buf_put(b, tmp, (size_t)varint_encode(tmp, v));
}

static void buf_tag(Buf *b, uint32_t field, int wire) {
  buf_varint(b, ((uint64_t)field << 3) | (uint64_t)wire);
}

static void buf_bytes_field(Buf *b, uint32_t field, const void *d, size_t n) {
  buf_tag(b, field, WT_LEN);
  buf_varint(b, n);
  buf_put(b, d, n);
}

/* Starts a length-delimited field whose length is filled in by buf_close. */
static size_t buf_open(Buf *b, uint32_t field) {
  buf_tag(b, field, WT_LEN);
  size_t at = b->n;
  if (buf_grow(b, LEN_RESERVE)) b->n += LEN_RESERVE;
  return at;
}

static void buf_close(Buf *b, size_t at) {
  if (b->failed) return;
  size_t body = at + LEN_RESERVE, n = b->n - body;
  uint8_t tmp[LEN_RESERVE];
  int k = varint_encode(tmp, n);
  memmove(b->p + at + k, b->p + body, n);
  memcpy(b->p + at, tmp, (size_t)k);
  b->n = at + (size_t)k + n;
}

/* Section - Output plan */

typedef struct Seg {
  int side;       /* 0: source bytes, 1: side buffer */
  int sealed;     /* a placeholder: nothing merges into it */
  size_t off, n;
} Seg;

typedef struct WriteBack {
  const uint8_t *src;
  const OsiGraph *g;
  const OsiContext *root;
  OsiExprStore *exprs;
  OsiArena *arena; /* merged types, names */
  Buf side;
  Seg *segs;
  size_t n_segs, cap_segs;
  int outputs_seen, value_info_seen;
  OsiStatus status;
} WriteBack;

static void fail(WriteBack *w, OsiStatus st) {
  if (w->status == OSI_OK) w->status = st;
}

static size_t push_seg(WriteBack *w, int side, size_t off, size_t n, int sealed) {
  if (w->status != OSI_OK) return 0;
  if (!sealed && n == 0) return 0;
  if (!sealed && w->n_segs) {
    Seg *last = &w->segs[w->n_segs - 1];
    if (!last->sealed && last->side == side && last->off + last->n == off) {
      last->n += n;
      return w->n_segs - 1;
    }
  }
  if (w->n_segs == w->cap_segs) {
    size_t cap = w->cap_segs ? w->cap_segs * 2 : 64;
    Seg *s = cap < SIZE_MAX / sizeof *s ? realloc(w->segs, cap * sizeof *s) : NULL;
    if (!s) {
      fail(w, OSI_ERR_NOMEM);
      return 0;
    }
    w->segs = s;
    w->cap_segs = cap;
  }
  w->segs[w->n_segs] = (Seg){side, sealed, off, n};
  return w->n_segs++;
}

static void emit_src(WriteBack *w, const uint8_t *from, const uint8_t *to) {
  push_seg(w, 0, (size_t)(from - w->src), (size_t)(to - from), 0);
}

/* Emits side[mark..side.n) (what was encoded since `mark`). */
static void emit_side(WriteBack *w, size_t mark) {
  if (w->side.failed) fail(w, OSI_ERR_NOMEM);
  else push_seg(w, 1, mark, w->side.n - mark, 0);
}

/* Section - Types */

/* Whether `t` can be written: every element type it needs is known. */
static int writable(const OsiType *t, int depth) {
  if (!t || depth > MAX_TYPE_DEPTH) return 0;
  switch (t->kind) {
  case OSI_KIND_TENSOR:
  case OSI_KIND_SPARSE_TENSOR:
    return t->elem_type != 0 && t->rank <= OSI_MAX_RANK && (t->rank <= 0 || t->dims);
  case OSI_KIND_SEQUENCE:
  case OSI_KIND_OPTIONAL:
    return writable(t->elem, depth + 1);
  case OSI_KIND_MAP:
    return t->elem_type != 0 && writable(t->elem, depth + 1);
  default:
    return 0;
  }
}

static int is_tensor_kind(const OsiType *t) {
  return t->kind == OSI_KIND_TENSOR || t->kind == OSI_KIND_SPARSE_TENSOR;
}

/*
 * The inferred type with its unknown parts (element type, rank, dims) taken
 * from the declaration, unless the two contradict (then inference wins).
 * Outputs already come merged with their declaration (anchors); this matters
 * for value_info entries, which are not anchors by default.
 */
static const OsiType *fill(WriteBack *w, const OsiType *inf, const OsiType *decl, int depth) {
  OsiExprStore *s = w->exprs;
  if (!inf) return decl;
  if (!decl || depth > MAX_TYPE_DEPTH || inf->kind != decl->kind) return inf;
  if (inf->elem_type && decl->elem_type && inf->elem_type != decl->elem_type) return inf;
  int tensor = is_tensor_kind(inf), fill_dims = 0;
  if (tensor && inf->rank >= 0 && decl->rank >= 0) {
    if (inf->rank != decl->rank) return inf;
    for (int i = 0; i < inf->rank; i++) {
      int64_t a, b;
      if (osi_expr_is_const(s, inf->dims[i], &a) && osi_expr_is_const(s, decl->dims[i], &b) &&
          a != b)
        return inf;
      if (inf->dims[i] == OSI_EXPR_UNKNOWN && decl->dims[i] != OSI_EXPR_UNKNOWN) fill_dims = 1;
    }
  }
  const OsiType *elem = tensor ? inf->elem : fill(w, inf->elem, decl->elem, depth + 1);
  int32_t elem_type = inf->elem_type ? inf->elem_type : decl->elem_type;
  int32_t rank = tensor && inf->rank < 0 ? decl->rank : inf->rank;
  if (elem_type == inf->elem_type && rank == inf->rank && elem == inf->elem && !fill_dims)
    return inf;
  OsiType *t = osi_type_tensor(w->arena, elem_type, rank);
  if (!t) return inf;
  t->kind = inf->kind;
  t->elem = elem;
  OsiExpr *d = osi_type_dims_mut(t);
  for (int i = 0; i < rank; i++) {
    d[i] = inf->rank >= 0 ? inf->dims[i] : OSI_EXPR_UNKNOWN;
    if (d[i] == OSI_EXPR_UNKNOWN && decl->rank >= 0) d[i] = decl->dims[i];
  }
  return t;
}

/* dim_param text of a symbolic dim: a lone symbol keeps its exact name
 * when reading that name back gives the same symbol (so "batch size" stays
 * unquoted); anything else is the canonical expression text. */
static const char *dim_text(OsiExprStore *s, OsiExpr d) {
  const char *name;
  if (osi_expr_is_symbol(s, d, &name) && name && name[0] && osi_expr_from_dim_param(s, name) == d)
    return name;
  return osi_expr_str(s, d);
}

static void put_dim(Buf *b, OsiExprStore *s, OsiExpr d) {
  size_t at = buf_open(b, F_SHAPE_DIM);
  int64_t v;
  if (d == OSI_EXPR_UNKNOWN) {
    /* an empty Dimension: neither dim_value nor dim_param */
  } else if (osi_expr_is_const(s, d, &v)) {
    if (v >= 0) {
      buf_tag(b, F_DIM_VALUE, WT_VARINT);
      buf_varint(b, (uint64_t)v);
    }
  } else {
    const char *text = dim_text(s, d);
    if (text && text[0]) buf_bytes_field(b, F_DIM_PARAM, text, strlen(text));
  }
  buf_close(b, at);
}

/* Writes the fields of a TypeProto (t is writable()). */
static void put_type(Buf *b, OsiExprStore *s, const OsiType *t) {
  size_t at, inner;
  switch (t->kind) {
  case OSI_KIND_TENSOR:
  case OSI_KIND_SPARSE_TENSOR:
    at = buf_open(b, t->kind == OSI_KIND_TENSOR ? F_TYPE_TENSOR : F_TYPE_SPARSE);
    buf_tag(b, F_TENSOR_ELEM, WT_VARINT);
    buf_varint(b, (uint64_t)(int64_t)t->elem_type);
    if (t->rank >= 0) {
      inner = buf_open(b, F_TENSOR_SHAPE);
      for (int i = 0; i < t->rank; i++) put_dim(b, s, t->dims[i]);
      buf_close(b, inner);
    }
    buf_close(b, at);
    break;
  case OSI_KIND_SEQUENCE:
  case OSI_KIND_OPTIONAL:
    at = buf_open(b, t->kind == OSI_KIND_SEQUENCE ? F_TYPE_SEQUENCE : F_TYPE_OPTIONAL);
    inner = buf_open(b, F_WRAP_ELEM);
    put_type(b, s, t->elem);
    buf_close(b, inner);
    buf_close(b, at);
    break;
  case OSI_KIND_MAP:
    at = buf_open(b, F_TYPE_MAP);
    buf_tag(b, F_MAP_KEY, WT_VARINT);
    buf_varint(b, (uint64_t)(int64_t)t->elem_type);
    inner = buf_open(b, F_MAP_VALUE);
    put_type(b, s, t->elem);
    buf_close(b, inner);
    buf_close(b, at);
    break;
  default:
    break;
  }
}

/* A ValueInfoProto.type field holding `t`, with the denotation (TypeProto
 * field 6) of the type it replaces, `old` (NULL when none), kept. */
static void put_value_type(Buf *b, OsiExprStore *s, const OsiType *t, const Field *old) {
  size_t at = buf_open(b, F_VI_TYPE);
  put_type(b, s, t);
  if (old && old->wire == WT_LEN) {
    const uint8_t *p = old->data, *end = old->data + old->len;
    Field x;
    while (p < end && read_field(&p, end, &x, 0))
      if (x.number == F_TYPE_DENOTATION) buf_put(b, x.start, (size_t)(x.end - x.start));
  }
  buf_close(b, at);
}

/* Section - Graph fields */

/* One output (12) or value_info (13) entry: re-encoded with the inferred
 * type, or copied as is when that would not change it. */
static void rewrite_entry(WriteBack *w, const Field *f, const OsiValueInfo *declared, int n_declared,
                          int *seen) {
  const uint8_t *p = f->data, *end = f->data + f->len;
  const uint8_t *name = NULL;
  size_t name_len = 0;
  Field x;
  while (p < end) {
    if (!read_field(&p, end, &x, 0)) {
      fail(w, OSI_ERR_PARSE);
      return;
    }
    if (x.number == F_VI_NAME && x.wire == WT_LEN) name = x.data, name_len = x.len;
  }
  int k = (*seen)++;
  if (!name || memchr(name, 0, name_len)) {
    emit_src(w, f->start, f->end);
    return;
  }
  char *cname = osi_arena_strndup(w->arena, (const char *)name, name_len);
  if (!cname) {
    fail(w, OSI_ERR_NOMEM);
    return;
  }
  const OsiType *decl = NULL;
  if (k < n_declared && strcmp(declared[k].name, cname) == 0) decl = declared[k].type;
  const OsiValueEntry *e = osi_context_get(w->root, cname);
  const OsiType *t = fill(w, e ? e->type : NULL, decl, 0);
  if (!writable(t, 0) || (decl && osi_type_equal(t, decl))) {
    emit_src(w, f->start, f->end);
    return;
  }

  Buf *b = &w->side;
  size_t mark = b->n, at = buf_open(b, f->number);
  int typed = 0;
  for (p = f->data; p < end;) {
    read_field(&p, end, &x, 0); /* read once above: cannot fail */
    if (x.number != F_VI_TYPE) {
      buf_put(b, x.start, (size_t)(x.end - x.start));
    } else if (!typed) { /* the type goes where the old one was; repeats are dropped */
      put_value_type(b, w->exprs, t, &x);
      typed = 1;
    }
  }
  if (!typed) put_value_type(b, w->exprs, t, NULL);
  buf_close(b, at);
  emit_side(w, mark);
}

static int compare_names(const void *a, const void *b) {
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static int compare_entries(const void *a, const void *b) {
  return strcmp((*(const OsiValueEntry *const *)a)->name, (*(const OsiValueEntry *const *)b)->name);
}

/* New value_info entries, sorted by name, for every inferred top-level value
 * that is not an input, initializer, output or existing value_info. */
static void append_new_entries(WriteBack *w) {
  const OsiGraph *g = w->g;
  const OsiContext *root = w->root;
  size_t n_taken = (size_t)g->n_inputs + (size_t)g->n_outputs + (size_t)g->n_value_info;
  const char **taken = malloc((n_taken + 1) * sizeof *taken);
  const OsiValueEntry **fresh = malloc(((size_t)root->n_order + 1) * sizeof *fresh);
  if (!taken || !fresh) {
    fail(w, OSI_ERR_NOMEM);
    goto done;
  }
  size_t t = 0, n = 0;
  for (int i = 0; i < g->n_inputs; i++) taken[t++] = g->inputs[i].name;
  for (int i = 0; i < g->n_outputs; i++) taken[t++] = g->outputs[i].name;
  for (int i = 0; i < g->n_value_info; i++) taken[t++] = g->value_info[i].name;
  qsort(taken, t, sizeof *taken, compare_names);
  for (int i = 0; i < root->n_order; i++) {
    const OsiValueEntry *e = root->order[i];
    if (!e->name[0] || e->is_initializer || !writable(e->type, 0)) continue;
    if (bsearch(&e->name, taken, t, sizeof *taken, compare_names)) continue;
    fresh[n++] = e;
  }
  qsort(fresh, n, sizeof *fresh, compare_entries);
  Buf *b = &w->side;
  size_t mark = b->n;
  for (size_t i = 0; i < n; i++) {
    size_t at = buf_open(b, F_GRAPH_VALUE_INFO);
    buf_bytes_field(b, F_VI_NAME, fresh[i]->name, strlen(fresh[i]->name));
    put_value_type(b, w->exprs, fresh[i]->type, NULL);
    buf_close(b, at);
  }
  emit_side(w, mark);
done:
  free(taken);
  free(fresh);
}

/* A GraphProto field of the ModelProto: its outputs and value_info entries
 * rewritten, new value_info appended (to the last graph field, which is the
 * end of the merged graph when the field repeats), the rest verbatim. */
static void rewrite_graph(WriteBack *w, const Field *f, int last) {
  size_t header = push_seg(w, 1, 0, 0, 1);
  size_t first = w->n_segs;
  const uint8_t *p = f->data, *end = f->data + f->len;
  while (p < end && w->status == OSI_OK) {
    Field x;
    if (!read_field(&p, end, &x, 0)) {
      fail(w, OSI_ERR_PARSE);
      return;
    }
    if (x.number == F_GRAPH_OUTPUT && x.wire == WT_LEN)
      rewrite_entry(w, &x, w->g->outputs, w->g->n_outputs, &w->outputs_seen);
    else if (x.number == F_GRAPH_VALUE_INFO && x.wire == WT_LEN)
      rewrite_entry(w, &x, w->g->value_info, w->g->n_value_info, &w->value_info_seen);
    else
      emit_src(w, x.start, x.end);
  }
  if (last) append_new_entries(w);
  if (w->status != OSI_OK) return;
  size_t body = 0;
  for (size_t i = first; i < w->n_segs; i++) {
    if (w->segs[i].n > SIZE_MAX - body) {
      fail(w, OSI_ERR_LIMIT_EXCEEDED);
      return;
    }
    body += w->segs[i].n;
  }
  size_t mark = w->side.n;
  buf_tag(&w->side, F_MODEL_GRAPH, WT_LEN);
  buf_varint(&w->side, body);
  if (w->side.failed) {
    fail(w, OSI_ERR_NOMEM);
    return;
  }
  w->segs[header].off = mark;
  w->segs[header].n = w->side.n - mark;
}

/* Section - Entry point */

OsiStatus osi_write_back(const uint8_t *src, size_t len, const OsiGraph *g,
                         const OsiContext *root, OsiExprStore *exprs, uint8_t **out,
                         size_t *out_len) {
  *out = NULL;
  *out_len = 0;
  if (!g || !root || !exprs) return OSI_ERR_INVALID_MODEL;
  if (!src) {
    if (len) return OSI_ERR_PARSE;
    src = (const uint8_t *)"";
  }
  WriteBack w = {0};
  w.src = src;
  w.g = g;
  w.root = root;
  w.exprs = exprs;
  w.arena = osi_arena_new();
  if (!w.arena) return OSI_ERR_NOMEM;

  const uint8_t *p = src, *end = src + len;
  int n_graphs = 0, seen = 0;
  Field f;
  while (p < end && w.status == OSI_OK) {
    if (!read_field(&p, end, &f, 0)) fail(&w, OSI_ERR_PARSE);
    else if (f.number == F_MODEL_GRAPH) n_graphs++;
  }
  if (w.status == OSI_OK && n_graphs == 0) fail(&w, OSI_ERR_INVALID_MODEL);
  for (p = src; p < end && w.status == OSI_OK;) {
    read_field(&p, end, &f, 0); /* checked above */
    if (f.number != F_MODEL_GRAPH) emit_src(&w, f.start, f.end);
    else if (f.wire != WT_LEN) fail(&w, OSI_ERR_PARSE);
    else rewrite_graph(&w, &f, ++seen == n_graphs);
  }

  size_t total = 0;
  for (size_t i = 0; w.status == OSI_OK && i < w.n_segs; i++) {
    if (w.segs[i].n > SIZE_MAX - total) fail(&w, OSI_ERR_LIMIT_EXCEEDED);
    else total += w.segs[i].n;
  }
  uint8_t *bytes = w.status == OSI_OK ? malloc(total ? total : 1) : NULL;
  if (w.status == OSI_OK && !bytes) fail(&w, OSI_ERR_NOMEM);
  if (w.status == OSI_OK) {
    size_t at = 0;
    for (size_t i = 0; i < w.n_segs; i++) {
      const Seg *s = &w.segs[i];
      if (s->n) memcpy(bytes + at, (s->side ? w.side.p : src) + s->off, s->n);
      at += s->n;
    }
    *out = bytes;
    *out_len = total;
  }
  free(w.side.p);
  free(w.segs);
  osi_arena_delete(w.arena);
  return w.status;
}
