/*
 * nanopb decoder: the streaming twin of decode_pbc.c. It fills exactly the
 * same OsiModel, but pulls the serialized ModelProto through a read/skip
 * source instead of unpacking it whole.
 *
 * Every submessage field is a nanopb callback (src/proto/onnx_shapes.options),
 * so each NodeProto, TensorProto, ValueInfoProto, AttributeProto, TypeProto,
 * ... is decoded on its own into a struct on the C stack, converted, and
 * copied into the run's arena. Lists whose length is only known at the end
 * (nodes of a graph, attributes of a node, ...) grow in malloc'ed vectors and
 * are copied into the arena once complete.
 *
 * Tensor payloads: dims may come after raw_data in the wire order, so whether
 * a tensor's content is kept (osi_tensor_wants_data) is decided when its
 * message ends. Until then raw_data of at most OSI_NPB_MAX_KEPT_RAW bytes
 * (32 KiB: OSI_MAX_VALUE_ELEMS elements of 8 bytes) is held in a temporary
 * buffer; a longer one cannot be kept anyway and is skipped at the source
 * (a seek for files, a position bump for JS), as is every element of
 * repeated numeric data past OSI_NPB_MAX_KEPT_ELEMS and all of string_data,
 * external_data and SparseTensorProto.indices. Such a tensor is then seen
 * as "too big", which is what osi_tensor_keep_data concludes from the full
 * payload too.
 *
 * Where the wire format allows something protobuf-c handles differently, we
 * follow protobuf-c: the last member of a oneof wins, a repeated ModelProto
 * graph field is merged. Other repeated singular submessages (rare and
 * outside what ONNX writers produce) keep their last occurrence.
 *
 * Fields the schema does not list are skipped by nanopb itself, which reads
 * them in 16-byte pieces; the big ones of ONNX (weights) are all listed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pb_common.h>
#include <pb_decode.h>

#include "decode.h"
#include "model_build.h"
#include "onnx_shapes.pb.h"
#include "tensor_data.h"

#if !defined(PB_FIELD_32BIT)
#error "nanopb code must be compiled with -DPB_FIELD_32BIT (arrays/bytes past 64 KiB)"
#endif

/* Section - Source: memory buffer or read/skip callbacks behind a 64 KiB buffer */

#define SRC_BUF_SIZE ((size_t)64 * 1024)

typedef struct Src {
  const uint8_t *mem; /* memory source when non-NULL */
  OsiReadFn read;
  OsiSkipFn skip;
  void *user;
  uint8_t *buf;
  size_t pos, len;    /* unread window buf[pos..len) */
  uint64_t offset;    /* absolute offset of the next byte handed to the decoder */
  uint64_t fetched;   /* absolute offset of buf[len] (bytes taken from the source) */
  uint64_t total;
  const char *io_error;
  size_t last_read;   /* byte count of the latest read (nanopb reads a varint 1 byte at a time) */
  int msb_run;        /* 1-byte reads in a row with the continuation bit set */
} Src;

static bool refill(Src *s) {
  uint64_t left = s->total - s->fetched;
  size_t want = left < SRC_BUF_SIZE ? (size_t)left : SRC_BUF_SIZE;
  if (want == 0) {
    s->io_error = "unexpected end of input";
    return false;
  }
  int64_t got = s->read(s->user, s->buf, want);
  if (got <= 0 || (uint64_t)got > want) {
    s->io_error = got == 0 ? "unexpected end of input" : "read error";
    return false;
  }
  s->pos = 0;
  s->len = (size_t)got;
  s->fetched += (uint64_t)got;
  return true;
}

static bool src_skip(Src *s, uint64_t n) {
  if (n > s->total - s->offset) {
    s->io_error = "unexpected end of input";
    return false;
  }
  if (s->mem) {
    s->offset += n;
    return true;
  }
  size_t inbuf = s->len - s->pos;
  if (n <= inbuf) {
    s->pos += (size_t)n;
    s->offset += n;
    return true;
  }
  s->offset += inbuf;
  n -= inbuf;
  s->pos = s->len = 0;
  if (s->skip) {
    if (s->skip(s->user, n) != 0) {
      s->io_error = "seek error";
      return false;
    }
    s->offset += n;
    s->fetched += n;
    return true;
  }
  while (n) { /* no skip callback: read and drop */
    if (!refill(s)) return false;
    size_t k = s->len < n ? s->len : (size_t)n;
    s->pos = k;
    s->offset += k;
    n -= k;
  }
  return true;
}

static bool src_pb_read_raw(pb_istream_t *stream, pb_byte_t *out, size_t count) {
  Src *s = stream->state;
  s->last_read = count; /* the wire type of a scalar handed to a callback (cb_wire_check) */
  if (!out) return src_skip(s, count); /* nanopb 0.4.7 never does this, but be safe */
  if (s->mem) {
    memcpy(out, s->mem + s->offset, count);
    s->offset += count;
    return true;
  }
  while (count) {
    if (s->pos == s->len && !refill(s)) return false;
    size_t k = s->len - s->pos;
    if (k > count) k = count;
    memcpy(out, s->buf + s->pos, k);
    s->pos += k;
    s->offset += k;
    out += k;
    count -= k;
  }
  return true;
}

/* nanopb reads every varint one byte at a time and skips an unknown one of
 * any length, where protobuf-c refuses a varint longer than 10 bytes: ten
 * 1-byte reads in a row with the continuation bit set are such a varint. */
static bool src_pb_read(pb_istream_t *stream, pb_byte_t *out, size_t count) {
  Src *s = stream->state;
  if (!src_pb_read_raw(stream, out, count)) return false;
  if (count == 1 && out && (out[0] & 0x80)) {
    if (++s->msb_run >= 10) {
      s->io_error = "a varint is longer than 10 bytes";
      return false;
    }
  } else {
    s->msb_run = 0;
  }
  return true;
}

/* Drops the rest of a field's substream at the source (a seek, not reads).
 * Scalar fields reach callbacks as a copy in a small buffer stream: those
 * are skipped by nanopb itself. */
static bool skip_rest(pb_istream_t *stream) {
  size_t n = stream->bytes_left;
  if (!n) return true;
  if (stream->callback != src_pb_read) return pb_read(stream, NULL, n);
  if (!src_skip(stream->state, n)) PB_RETURN_ERROR(stream, "io error");
  stream->bytes_left = 0;
  return true;
}

/* Section - Decoder state, vectors */

typedef struct D {
  OsiArena *arena;
  OsiExprStore *exprs;
  OsiDecodeError *err;
  int depth;
} D;

static bool nomem(D *d) { return osi_mb_nomem(d->err, d->arena), false; }

static bool fail(D *d, OsiStatus status, const char *msg) {
  return osi_mb_fail(d->err, status, msg), false;
}

/* A growable array in malloc memory; vec_finish moves it into the arena. */
typedef struct Vec {
  char *p;
  size_t n, cap, esz;
} Vec;

#define VEC(T) ((Vec){NULL, 0, 0, sizeof(T)})

static void *vec_push(D *d, Vec *v) {
  if (v->n == v->cap) {
    size_t cap = v->cap ? v->cap * 2 : 8;
    char *p = cap <= SIZE_MAX / v->esz ? realloc(v->p, cap * v->esz) : NULL;
    if (!p) return nomem(d), NULL;
    v->p = p;
    v->cap = cap;
  }
  void *slot = v->p + v->n++ * v->esz;
  memset(slot, 0, v->esz);
  return slot;
}

static void vec_free(Vec *v) {
  free(v->p);
  v->p = NULL;
  v->n = v->cap = 0;
}

/* Arena copy of the elements (at least one zeroed slot, like decode_pbc.c); frees v. */
static void *vec_finish(D *d, Vec *v) {
  void *a = osi_arena_array(d->arena, v->n ? v->n : 1, v->esz);
  if (a && v->n) memcpy(a, v->p, v->n * v->esz);
  vec_free(v);
  if (!a) nomem(d);
  return a;
}

/* Section - Field callbacks for scalars, strings and lists */

/* The bytes of a string/bytes field as a NUL-terminated arena copy. */
static bool read_bytes(pb_istream_t *stream, D *d, const char **out, size_t *len) {
  size_t n = stream->bytes_left;
  char *s = osi_arena_alloc(d->arena, n + 1);
  if (!s) return nomem(d);
  if (!pb_read(stream, (pb_byte_t *)s, n)) return false;
  s[n] = 0;
  *out = s;
  if (len) *len = n;
  return true;
}

typedef struct StrArg {
  D *d;
  const char **out;
} StrArg;

/* string field -> *out (NUL-terminated; like protobuf-c, a C string ends at its first NUL) */
static bool cb_string(pb_istream_t *stream, const pb_field_t *field, void **arg) {
  (void)field;
  StrArg *a = *arg;
  return read_bytes(stream, a->d, a->out, NULL);
}

typedef struct ListArg {
  D *d;
  Vec *v;
} ListArg;

/* repeated string -> Vec of const char * */
static bool cb_string_list(pb_istream_t *stream, const pb_field_t *field, void **arg) {
  (void)field;
  ListArg *a = *arg;
  const char **slot = vec_push(a->d, a->v);
  return slot && read_bytes(stream, a->d, slot, NULL);
}

static bool cb_skip(pb_istream_t *stream, const pb_field_t *field, void **arg) {
  (void)field;
  (void)arg;
  return skip_rest(stream);
}

/* Repeated numbers, packed or not, of which at most `limit` are stored;
 * `count` saturates at limit + 1 ("more than kept") and the rest of a packed
 * run is skipped at the source. */
typedef enum { NUM_VARINT, NUM_SVARINT32, NUM_FIXED32, NUM_FIXED64 } NumWire;

typedef struct NumList {
  D *d;
  NumWire wire;
  size_t limit;
  size_t count;
  size_t esz;      /* stored element: int64_t/int32_t/uint64_t/float/double */
  Vec v;
} NumList;

/* A varint of a repeated number read the way protobuf-c does (at most 10
 * bytes; bits past 64 dropped), where pb_decode_varint refuses a 10th byte
 * over 1: the two decoders must accept the same repeated data. */
static bool varint_as_pbc(pb_istream_t *stream, uint64_t *out) {
  uint64_t v = 0;
  for (int i = 0; i < 10; i++) {
    pb_byte_t b;
    if (!pb_read(stream, &b, 1)) return false;
    v |= (uint64_t)(b & 0x7f) << (7 * i); /* i == 9: only bit 0 survives, as in protobuf-c */
    if (!(b & 0x80)) {
      *out = v;
      return true;
    }
  }
  PB_RETURN_ERROR(stream, "varint overflow");
}

static bool cb_numbers(pb_istream_t *stream, const pb_field_t *field, void **arg) {
  (void)field;
  NumList *l = *arg;
  while (stream->bytes_left) {
    if (l->count >= l->limit) {
      l->count = l->limit + 1;
      return skip_rest(stream);
    }
    void *slot = vec_push(l->d, &l->v);
    if (!slot) return false;
    switch (l->wire) {
    case NUM_VARINT: {
      uint64_t u;
      if (!varint_as_pbc(stream, &u)) return false;
      memcpy(slot, &u, sizeof u); /* int64/uint64 */
      break;
    }
    case NUM_SVARINT32: { /* int32: a 10-byte sign-extended varint when negative */
      uint64_t u;
      if (!varint_as_pbc(stream, &u)) return false;
      int32_t v = (int32_t)(uint32_t)u;
      memcpy(slot, &v, sizeof v);
      break;
    }
    case NUM_FIXED32:
      if (!pb_decode_fixed32(stream, slot)) return false;
      break;
    case NUM_FIXED64:
      if (!pb_decode_fixed64(stream, slot)) return false;
      break;
    }
    l->count++;
  }
  return true;
}

static NumList numlist(D *d, NumWire wire, size_t esz, size_t limit) {
  NumList l = {d, wire, limit, 0, esz, {NULL, 0, 0, esz}};
  return l;
}

static void set_cb(pb_callback_t *cb, bool (*fn)(pb_istream_t *, const pb_field_t *, void **),
                   void *arg) {
  cb->funcs.decode = fn;
  cb->arg = arg;
}

/* Section - Wire types of callback fields
 *
 * nanopb hands a callback field to its callback whatever its wire type (a
 * varint `name` arrives as its raw bytes; a callback left unset skips any
 * wire type), where protobuf-c rejects a known field whose wire type does
 * not fit its type. decode_checked (every pb_decode of this file) routes
 * each callback field of the message through cb_wire_check first, which
 * applies protobuf-c's rule: length-delimited for strings, bytes and
 * messages; varint / 32-bit / 64-bit for numbers, or length-delimited
 * (packed) when repeated. A length-delimited field reaches callbacks on a
 * substream of the source (callback src_pb_read); a scalar one on a copy,
 * whose wire type shows in the size of the latest source read (1 byte at a
 * time for a varint, 4 or 8 at once for fixed32/fixed64). */

typedef struct WireCheck {
  bool (*fn)(pb_istream_t *, const pb_field_t *, void **);
  void *arg;
  const Src *src;
} WireCheck;

static bool cb_wire_check(pb_istream_t *stream, const pb_field_t *field, void **arg) {
  WireCheck *w = *arg;
  bool ld = stream->callback == src_pb_read;
  bool repeated = PB_HTYPE(field->type) == PB_HTYPE_REPEATED;
  size_t last = w->src->last_read;
  bool ok;
  switch (PB_LTYPE(field->type)) {
  case PB_LTYPE_BOOL:
  case PB_LTYPE_VARINT:
  case PB_LTYPE_UVARINT:
  case PB_LTYPE_SVARINT: ok = ld ? repeated : last == 1; break;
  case PB_LTYPE_FIXED32: ok = ld ? repeated : last == 4; break;
  case PB_LTYPE_FIXED64: ok = ld ? repeated : last == 8; break;
  default: ok = ld; break;
  }
  if (!ok) PB_RETURN_ERROR(stream, "wrong wire type");
  if (!w->fn) return ld ? skip_rest(stream) : true;
  return w->fn(stream, field, &w->arg);
}

static bool decode_checked(pb_istream_t *stream, const pb_msgdesc_t *fields, void *msg) {
  WireCheck checks[32];
  int n = 0;
  pb_field_iter_t it;
  const Src *src = stream->callback == src_pb_read ? stream->state : NULL;
  if (src && pb_field_iter_begin(&it, fields, msg)) {
    do {
      if (PB_ATYPE(it.type) != PB_ATYPE_CALLBACK || n == 32) continue;
      pb_callback_t *cb = it.pData;
      checks[n] = (WireCheck){cb->funcs.decode, cb->arg, src};
      cb->funcs.decode = cb_wire_check;
      cb->arg = &checks[n++];
    } while (pb_field_iter_next(&it));
  }
  return pb_decode(stream, fields, msg);
}

/* Section - Types */

static bool decode_type_msg(D *d, pb_istream_t *stream, const OsiType **out);

typedef struct DimB {
  OsiMbDimCase which;
  int64_t value;
  const char *param;
} DimB;

typedef struct DimArg {
  D *d;
  DimB *dim;
} DimArg;

static bool cb_dim_value(pb_istream_t *stream, const pb_field_t *field, void **arg) {
  (void)field;
  DimArg *a = *arg;
  uint64_t u;
  if (!pb_decode_varint(stream, &u)) return false;
  a->dim->which = OSI_MB_DIM_VALUE;
  a->dim->value = (int64_t)u;
  return skip_rest(stream);
}

static bool cb_dim_param(pb_istream_t *stream, const pb_field_t *field, void **arg) {
  (void)field;
  DimArg *a = *arg;
  a->dim->which = OSI_MB_DIM_PARAM;
  return read_bytes(stream, a->d, &a->dim->param, NULL);
}

/* TensorShapeProto.dim -> Vec of DimB */
static bool cb_dim(pb_istream_t *stream, const pb_field_t *field, void **arg) {
  (void)field;
  ListArg *a = *arg;
  DimB *dim = vec_push(a->d, a->v);
  if (!dim) return false;
  DimArg da = {a->d, dim};
  onnx_TensorShapeProto_Dimension m = onnx_TensorShapeProto_Dimension_init_zero;
  set_cb(&m.dim_value, cb_dim_value, &da);
  set_cb(&m.dim_param, cb_dim_param, &da);
  return decode_checked(stream, onnx_TensorShapeProto_Dimension_fields, &m);
}

typedef struct ShapeArg {
  D *d;
  int present;
  Vec dims; /* DimB */
} ShapeArg;

/* TypeProto.Tensor.shape / SparseTensor.shape (a repeated occurrence merges, as in protobuf-c) */
static bool cb_shape(pb_istream_t *stream, const pb_field_t *field, void **arg) {
  (void)field;
  ShapeArg *a = *arg;
  a->present = 1;
  ListArg la = {a->d, &a->dims};
  onnx_TensorShapeProto m = onnx_TensorShapeProto_init_zero;
  set_cb(&m.dim, cb_dim, &la);
  return decode_checked(stream, onnx_TensorShapeProto_fields, &m);
}

/* TypeProto.Tensor and TypeProto.SparseTensor have the same layout. */
static bool decode_tensor_type(D *d, pb_istream_t *stream, OsiKind kind, const OsiType **out) {
  ShapeArg sa = {d, 0, VEC(DimB)};
  int32_t elem_type;
  bool ok;
  if (kind == OSI_KIND_TENSOR) {
    onnx_TypeProto_Tensor m = onnx_TypeProto_Tensor_init_zero;
    set_cb(&m.shape, cb_shape, &sa);
    ok = decode_checked(stream, onnx_TypeProto_Tensor_fields, &m);
    elem_type = m.elem_type;
  } else {
    onnx_TypeProto_SparseTensor m = onnx_TypeProto_SparseTensor_init_zero;
    set_cb(&m.shape, cb_shape, &sa);
    ok = decode_checked(stream, onnx_TypeProto_SparseTensor_fields, &m);
    elem_type = m.elem_type;
  }
  if (!ok) {
    vec_free(&sa.dims);
    return false;
  }
  int rank = sa.present ? (sa.dims.n > (size_t)OSI_MAX_RANK ? OSI_MAX_RANK + 1 : (int)sa.dims.n) : -1;
  OsiType *t = osi_mb_tensor_type(d->arena, d->err, kind, elem_type, rank);
  if (t) {
    OsiExpr *dims = osi_type_dims_mut(t);
    const DimB *src = (const DimB *)sa.dims.p;
    for (int i = 0; i < rank; i++) dims[i] = osi_mb_dim(d->exprs, src[i].which, src[i].value, src[i].param);
  }
  vec_free(&sa.dims);
  *out = t;
  return d->err->status == OSI_OK;
}

typedef struct TypeB {
  D *d;
  int which; /* the oneof case that came last: 1 tensor, 4 sequence, 5 map, 8 sparse, 9 optional */
  const OsiType *tensor, *sparse, *seq_elem, *opt_elem, *map_value;
  int32_t map_key;
} TypeB;

static bool cb_type_tensor(pb_istream_t *stream, const pb_field_t *field, void **arg) {
  (void)field;
  TypeB *b = *arg;
  b->which = 1;
  return decode_tensor_type(b->d, stream, OSI_KIND_TENSOR, &b->tensor);
}

static bool cb_type_sparse(pb_istream_t *stream, const pb_field_t *field, void **arg) {
  (void)field;
  TypeB *b = *arg;
  b->which = 8;
  return decode_tensor_type(b->d, stream, OSI_KIND_SPARSE_TENSOR, &b->sparse);
}

typedef struct ElemArg {
  D *d;
  const OsiType **out;
} ElemArg;

/* A nested TypeProto field (Sequence/Optional.elem_type, Map.value_type). */
static bool cb_nested_type(pb_istream_t *stream, const pb_field_t *field, void **arg) {
  (void)field;
  ElemArg *a = *arg;
  return decode_type_msg(a->d, stream, a->out);
}

static bool cb_type_sequence(pb_istream_t *stream, const pb_field_t *field, void **arg) {
  (void)field;
  TypeB *b = *arg;
  b->which = 4;
  b->seq_elem = NULL;
  ElemArg ea = {b->d, &b->seq_elem};
  onnx_TypeProto_Sequence m = onnx_TypeProto_Sequence_init_zero;
  set_cb(&m.elem_type, cb_nested_type, &ea);
  return decode_checked(stream, onnx_TypeProto_Sequence_fields, &m);
}

static bool cb_type_optional(pb_istream_t *stream, const pb_field_t *field, void **arg) {
  (void)field;
  TypeB *b = *arg;
  b->which = 9;
  b->opt_elem = NULL;
  ElemArg ea = {b->d, &b->opt_elem};
  onnx_TypeProto_Optional m = onnx_TypeProto_Optional_init_zero;
  set_cb(&m.elem_type, cb_nested_type, &ea);
  return decode_checked(stream, onnx_TypeProto_Optional_fields, &m);
}

static bool cb_type_map(pb_istream_t *stream, const pb_field_t *field, void **arg) {
  (void)field;
  TypeB *b = *arg;
  b->which = 5;
  b->map_value = NULL;
  ElemArg ea = {b->d, &b->map_value};
  onnx_TypeProto_Map m = onnx_TypeProto_Map_init_zero;
  set_cb(&m.value_type, cb_nested_type, &ea);
  if (!decode_checked(stream, onnx_TypeProto_Map_fields, &m)) return false;
  b->map_key = m.key_type;
  return true;
}

/* One TypeProto message -> *out (NULL when it has no known case). Counts
 * towards OSI_MAX_GRAPH_DEPTH like decode_pbc.c's decode_type. */
static bool decode_type_msg(D *d, pb_istream_t *stream, const OsiType **out) {
  if (++d->depth > OSI_MAX_GRAPH_DEPTH) return fail(d, OSI_ERR_LIMIT_EXCEEDED, "type nesting exceeds the limit");
  TypeB b = {.d = d};
  onnx_TypeProto m = onnx_TypeProto_init_zero;
  set_cb(&m.tensor_type, cb_type_tensor, &b);
  set_cb(&m.sequence_type, cb_type_sequence, &b);
  set_cb(&m.map_type, cb_type_map, &b);
  set_cb(&m.sparse_tensor_type, cb_type_sparse, &b);
  set_cb(&m.optional_type, cb_type_optional, &b);
  if (!decode_checked(stream, onnx_TypeProto_fields, &m)) return false;
  const OsiType *t = NULL;
  switch (b.which) {
  case 1: t = b.tensor; break;
  case 8: t = b.sparse; break;
  case 4: t = osi_type_sequence(d->arena, b.seq_elem); break;
  case 9: t = osi_type_optional(d->arena, b.opt_elem); break;
  case 5: t = osi_type_map(d->arena, b.map_key, b.map_value); break;
  default: break;
  }
  d->depth--;
  *out = t;
  return true;
}

typedef struct TypeArg {
  D *d;
  const OsiType **out;
  int present;
} TypeArg;

static bool cb_type(pb_istream_t *stream, const pb_field_t *field, void **arg) {
  (void)field;
  TypeArg *a = *arg;
  a->present = 1;
  return decode_type_msg(a->d, stream, a->out);
}

/* Section - Tensors */

typedef struct TensorB {
  D *d;
  int keep;           /* 0: payloads are not needed at all (sparse values) */
  const char *name;
  Vec dims;           /* int64_t, at most OSI_MAX_RANK + 1 stored */
  size_t n_dims;
  NumList int64_data, int32_data, uint64_data, float_data, double_data;
  int has_raw;
  uint8_t *raw;       /* malloc'ed; NULL when skipped */
  size_t raw_len;
} TensorB;

static bool cb_tensor_dims(pb_istream_t *stream, const pb_field_t *field, void **arg) {
  (void)field;
  TensorB *b = *arg;
  while (stream->bytes_left) {
    uint64_t u;
    if (!varint_as_pbc(stream, &u)) return false;
    if (b->n_dims++ <= (size_t)OSI_MAX_RANK) { /* more than that fails when the tensor ends */
      int64_t *slot = vec_push(b->d, &b->dims);
      if (!slot) return false;
      *slot = (int64_t)u;
    }
  }
  return true;
}

static bool cb_raw(pb_istream_t *stream, const pb_field_t *field, void **arg) {
  (void)field;
  TensorB *b = *arg;
  size_t n = stream->bytes_left;
  b->has_raw = 1;
  b->raw_len = n;
  free(b->raw);
  b->raw = NULL;
  if (!b->keep || n > OSI_NPB_MAX_KEPT_RAW) return skip_rest(stream);
  b->raw = malloc(n ? n : 1);
  if (!b->raw) return nomem(b->d);
  return pb_read(stream, b->raw, n);
}

static void tensor_init(TensorB *b, D *d, int keep) {
  memset(b, 0, sizeof *b);
  b->d = d;
  b->keep = keep;
  b->dims = VEC(int64_t);
  size_t lim = keep ? OSI_NPB_MAX_KEPT_ELEMS : 0;
  b->int64_data = numlist(d, NUM_VARINT, sizeof(int64_t), lim);
  b->int32_data = numlist(d, NUM_SVARINT32, sizeof(int32_t), lim);
  b->uint64_data = numlist(d, NUM_VARINT, sizeof(uint64_t), lim);
  b->float_data = numlist(d, NUM_FIXED32, sizeof(float), lim);
  b->double_data = numlist(d, NUM_FIXED64, sizeof(double), lim);
}

static void tensor_free(TensorB *b) {
  vec_free(&b->dims);
  vec_free(&b->int64_data.v);
  vec_free(&b->int32_data.v);
  vec_free(&b->uint64_data.v);
  vec_free(&b->float_data.v);
  vec_free(&b->double_data.v);
  free(b->raw);
  b->raw = NULL;
}

/* Decodes one TensorProto message into b (callbacks point into b). */
static bool decode_tensor_fields(pb_istream_t *stream, TensorB *b, onnx_TensorProto *m) {
  StrArg name = {b->d, &b->name};
  *m = (onnx_TensorProto)onnx_TensorProto_init_zero;
  set_cb(&m->dims, cb_tensor_dims, b);
  set_cb(&m->name, cb_string, &name);
  set_cb(&m->raw_data, cb_raw, b);
  set_cb(&m->int64_data, cb_numbers, &b->int64_data);
  set_cb(&m->int32_data, cb_numbers, &b->int32_data);
  set_cb(&m->uint64_data, cb_numbers, &b->uint64_data);
  set_cb(&m->float_data, cb_numbers, &b->float_data);
  set_cb(&m->double_data, cb_numbers, &b->double_data);
  set_cb(&m->string_data, cb_skip, NULL);
  set_cb(&m->external_data, cb_skip, NULL);
  return decode_checked(stream, onnx_TensorProto_fields, m);
}

/* dims of b -> arena, with decode_pbc.c's rank check. */
static bool tensor_dims(D *d, TensorB *b, OsiTensor *out) {
  if (b->n_dims > (size_t)OSI_MAX_RANK) return fail(d, OSI_ERR_LIMIT_EXCEEDED, "tensor rank exceeds the limit");
  out->rank = (int32_t)b->n_dims;
  int64_t *dims = vec_finish(d, &b->dims);
  if (!dims) return false;
  out->dims = dims;
  return true;
}

/* One TensorProto message -> *out, as decode_pbc.c's decode_tensor. */
static bool decode_tensor_msg(D *d, pb_istream_t *stream, OsiTensor *out) {
  TensorB b;
  tensor_init(&b, d, 1);
  onnx_TensorProto m;
  bool ok = decode_tensor_fields(stream, &b, &m);
  if (ok) {
    out->name = b.name ? b.name : "";
    out->elem_type = m.data_type;
    ok = tensor_dims(d, &b, out);
  }
  if (ok) {
    out->external = m.has_data_location && m.data_location == 1;
    OsiTensorSource src = {
        .elem_type = m.data_type,
        .raw = b.raw,
        .raw_len = b.raw_len,
        .has_raw = b.has_raw,
        .int64_data = (const int64_t *)b.int64_data.v.p, .n_int64 = b.int64_data.count,
        .int32_data = (const int32_t *)b.int32_data.v.p, .n_int32 = b.int32_data.count,
        .uint64_data = (const uint64_t *)b.uint64_data.v.p, .n_uint64 = b.uint64_data.count,
        .float_data = (const float *)b.float_data.v.p, .n_float = b.float_data.count,
        .double_data = (const double *)b.double_data.v.p, .n_double = b.double_data.count,
    };
    /* A payload we did not hold (skipped raw_data, or more elements than
     * stored) has a length no kept tensor can have: keep_data rejects it
     * from the lengths alone, before touching the bytes. */
    osi_tensor_keep_data(d->arena, out, &src);
  }
  tensor_free(&b);
  return ok;
}

typedef struct SparseValues {
  D *d;
  int32_t elem_type;
  const char *name;
} SparseValues;

/* SparseTensorProto.values: only the name and element type are used. */
static bool cb_sparse_values(pb_istream_t *stream, const pb_field_t *field, void **arg) {
  (void)field;
  SparseValues *v = *arg;
  TensorB b;
  tensor_init(&b, v->d, 0);
  onnx_TensorProto m;
  bool ok = decode_tensor_fields(stream, &b, &m);
  if (ok) {
    v->elem_type = m.data_type;
    v->name = b.name; /* arena copy; NULL when absent */
  }
  tensor_free(&b);
  return ok;
}

/* One SparseTensorProto -> *out (dims only), as decode_pbc.c. */
static bool decode_sparse_msg(D *d, pb_istream_t *stream, OsiTensor *out) {
  TensorB b; /* only dims are used */
  tensor_init(&b, d, 0);
  SparseValues values = {d, 0, NULL};
  onnx_SparseTensorProto m = onnx_SparseTensorProto_init_zero;
  set_cb(&m.values, cb_sparse_values, &values);
  set_cb(&m.indices, cb_skip, NULL);
  set_cb(&m.dims, cb_tensor_dims, &b);
  bool ok = decode_checked(stream, onnx_SparseTensorProto_fields, &m) && tensor_dims(d, &b, out);
  if (ok) {
    out->elem_type = values.elem_type;
    out->name = values.name ? values.name : "";
  }
  tensor_free(&b);
  return ok;
}

/* Section - Graphs, nodes, attributes */

typedef struct GraphB {
  D *d;
  const char *name;
  Vec nodes, inits, sparse, inputs, outputs, value_info;
} GraphB;

static void graph_init(GraphB *g, D *d) {
  memset(g, 0, sizeof *g);
  g->d = d;
  g->nodes = VEC(OsiNode);
  g->inits = VEC(OsiTensor);
  g->sparse = VEC(OsiTensor);
  g->inputs = g->outputs = g->value_info = VEC(OsiValueInfo);
}

static void graph_free(GraphB *g) {
  vec_free(&g->nodes);
  vec_free(&g->inits);
  vec_free(&g->sparse);
  vec_free(&g->inputs);
  vec_free(&g->outputs);
  vec_free(&g->value_info);
}

static bool decode_graph_fields(pb_istream_t *stream, GraphB *g);
static const OsiGraph *graph_finish(GraphB *g);

/* One GraphProto message -> a new OsiGraph (decode_pbc.c's decode_graph). */
static bool decode_graph_msg(D *d, pb_istream_t *stream, const OsiGraph **out) {
  if (++d->depth > OSI_MAX_GRAPH_DEPTH) return fail(d, OSI_ERR_LIMIT_EXCEEDED, "subgraph nesting exceeds the limit");
  GraphB g;
  graph_init(&g, d);
  if (!decode_graph_fields(stream, &g)) {
    graph_free(&g);
    return false;
  }
  *out = graph_finish(&g);
  d->depth--;
  return *out != NULL;
}

typedef struct AttrB {
  D *d;
  const char *name, *ref_attr_name, *s;
  size_t s_len;
  int has_s;
  Vec ints, floats, strings, tensors, graphs, type_protos; /* int64_t, double, char*, OsiTensor*, OsiGraph*, OsiType* */
  const OsiTensor *t, *sparse;
  const OsiGraph *g;
  const OsiType *tp;
} AttrB;

static bool cb_attr_s(pb_istream_t *stream, const pb_field_t *field, void **arg) {
  (void)field;
  AttrB *a = *arg;
  a->has_s = 1;
  return read_bytes(stream, a->d, &a->s, &a->s_len);
}

static bool cb_attr_ints(pb_istream_t *stream, const pb_field_t *field, void **arg) {
  (void)field;
  AttrB *a = *arg;
  while (stream->bytes_left) {
    uint64_t u;
    if (!varint_as_pbc(stream, &u)) return false;
    int64_t *slot = vec_push(a->d, &a->ints);
    if (!slot) return false;
    *slot = (int64_t)u;
  }
  return true;
}

static bool cb_attr_floats(pb_istream_t *stream, const pb_field_t *field, void **arg) {
  (void)field;
  AttrB *a = *arg;
  while (stream->bytes_left) {
    float f;
    if (!pb_decode_fixed32(stream, &f)) return false;
    double *slot = vec_push(a->d, &a->floats);
    if (!slot) return false;
    *slot = f;
  }
  return true;
}

static bool cb_attr_strings(pb_istream_t *stream, const pb_field_t *field, void **arg) {
  (void)field;
  AttrB *a = *arg;
  const char **slot = vec_push(a->d, &a->strings);
  return slot && read_bytes(stream, a->d, slot, NULL);
}

static bool new_tensor(D *d, pb_istream_t *stream, const OsiTensor **out, int sparse) {
  OsiTensor *t = osi_arena_alloc(d->arena, sizeof *t);
  if (!t) return nomem(d);
  *out = t;
  return sparse ? decode_sparse_msg(d, stream, t) : decode_tensor_msg(d, stream, t);
}

static bool cb_attr_t(pb_istream_t *stream, const pb_field_t *field, void **arg) {
  (void)field;
  AttrB *a = *arg;
  return new_tensor(a->d, stream, &a->t, 0);
}

static bool cb_attr_sparse(pb_istream_t *stream, const pb_field_t *field, void **arg) {
  (void)field;
  AttrB *a = *arg;
  return new_tensor(a->d, stream, &a->sparse, 1);
}

static bool cb_attr_tensors(pb_istream_t *stream, const pb_field_t *field, void **arg) {
  (void)field;
  AttrB *a = *arg;
  const OsiTensor **slot = vec_push(a->d, &a->tensors);
  return slot && new_tensor(a->d, stream, slot, 0);
}

static bool cb_attr_g(pb_istream_t *stream, const pb_field_t *field, void **arg) {
  (void)field;
  AttrB *a = *arg;
  return decode_graph_msg(a->d, stream, &a->g);
}

static bool cb_attr_graphs(pb_istream_t *stream, const pb_field_t *field, void **arg) {
  (void)field;
  AttrB *a = *arg;
  const OsiGraph **slot = vec_push(a->d, &a->graphs);
  return slot && decode_graph_msg(a->d, stream, slot);
}

static bool cb_attr_tp(pb_istream_t *stream, const pb_field_t *field, void **arg) {
  (void)field;
  AttrB *a = *arg;
  return decode_type_msg(a->d, stream, &a->tp);
}

static bool cb_attr_type_protos(pb_istream_t *stream, const pb_field_t *field, void **arg) {
  (void)field;
  AttrB *a = *arg;
  const OsiType **slot = vec_push(a->d, &a->type_protos);
  return slot && decode_type_msg(a->d, stream, slot);
}

static void attr_free(AttrB *a) {
  vec_free(&a->ints);
  vec_free(&a->floats);
  vec_free(&a->strings);
  vec_free(&a->tensors);
  vec_free(&a->graphs);
  vec_free(&a->type_protos);
}

/* Moves list `v` into out->`field` (and out->n) when the attribute's type says so. */
static bool attr_list(D *d, Vec *v, const void **field, size_t *n) {
  *n = v->n;
  *field = vec_finish(d, v);
  return *field != NULL;
}

/* One AttributeProto -> *out (decode_pbc.c's decode_attr). Every member is
 * decoded as it arrives, since `type` (field 20) comes after them on the
 * wire; the type then picks which one the attribute carries. */
static bool decode_attr_msg(D *d, pb_istream_t *stream, OsiAttr *out) {
  AttrB a = {.d = d};
  a.ints = VEC(int64_t);
  a.floats = VEC(double);
  a.strings = VEC(const char *);
  a.tensors = VEC(const OsiTensor *);
  a.graphs = VEC(const OsiGraph *);
  a.type_protos = VEC(const OsiType *);
  StrArg name = {d, &a.name}, ref = {d, &a.ref_attr_name};
  onnx_AttributeProto m = onnx_AttributeProto_init_zero;
  set_cb(&m.name, cb_string, &name);
  set_cb(&m.ref_attr_name, cb_string, &ref);
  set_cb(&m.s, cb_attr_s, &a);
  set_cb(&m.t, cb_attr_t, &a);
  set_cb(&m.g, cb_attr_g, &a);
  set_cb(&m.floats, cb_attr_floats, &a);
  set_cb(&m.ints, cb_attr_ints, &a);
  set_cb(&m.strings, cb_attr_strings, &a);
  set_cb(&m.tensors, cb_attr_tensors, &a);
  set_cb(&m.graphs, cb_attr_graphs, &a);
  set_cb(&m.tp, cb_attr_tp, &a);
  set_cb(&m.type_protos, cb_attr_type_protos, &a);
  set_cb(&m.sparse_tensor, cb_attr_sparse, &a);
  set_cb(&m.sparse_tensors, cb_skip, NULL);
  bool ok = decode_checked(stream, onnx_AttributeProto_fields, &m);
  if (ok) {
    out->name = a.name ? a.name : "";
    out->type = (OsiAttrType)m.type;
    out->ref_attr_name = a.ref_attr_name;
    out->i = m.i;
    out->f = m.f;
    if (a.has_s) {
      out->s = a.s;
      out->s_len = a.s_len;
    }
    switch (out->type) {
    case OSI_ATTR_INTS: ok = attr_list(d, &a.ints, (const void **)&out->ints, &out->n); break;
    case OSI_ATTR_FLOATS: ok = attr_list(d, &a.floats, (const void **)&out->floats, &out->n); break;
    case OSI_ATTR_STRINGS: ok = attr_list(d, &a.strings, (const void **)&out->strings, &out->n); break;
    case OSI_ATTR_TENSORS: ok = attr_list(d, &a.tensors, (const void **)&out->tensors, &out->n); break;
    case OSI_ATTR_GRAPHS: ok = attr_list(d, &a.graphs, (const void **)&out->graphs, &out->n); break;
    case OSI_ATTR_TYPE_PROTOS:
      ok = attr_list(d, &a.type_protos, (const void **)&out->type_protos, &out->n);
      break;
    case OSI_ATTR_TENSOR: out->t = a.t; break;
    case OSI_ATTR_SPARSE_TENSOR: out->t = a.sparse; break;
    case OSI_ATTR_GRAPH: out->g = a.g; break;
    case OSI_ATTR_TYPE_PROTO: out->tp = a.tp; break;
    default: break;
    }
  }
  attr_free(&a);
  return ok && d->err->status == OSI_OK;
}

static bool cb_attr_list(pb_istream_t *stream, const pb_field_t *field, void **arg) {
  (void)field;
  ListArg *a = *arg;
  OsiAttr *slot = vec_push(a->d, a->v);
  return slot && decode_attr_msg(a->d, stream, slot);
}

/* One NodeProto -> *out (decode_pbc.c's decode_node). */
static bool decode_node_msg(D *d, pb_istream_t *stream, OsiNode *out) {
  Vec inputs = VEC(const char *), outputs = VEC(const char *), attrs = VEC(OsiAttr);
  const char *name = NULL, *op_type = NULL, *domain = NULL, *overload = NULL;
  StrArg sn = {d, &name}, so = {d, &op_type}, sd = {d, &domain}, sv = {d, &overload};
  ListArg li = {d, &inputs}, lo = {d, &outputs}, la = {d, &attrs};
  onnx_NodeProto m = onnx_NodeProto_init_zero;
  set_cb(&m.input, cb_string_list, &li);
  set_cb(&m.output, cb_string_list, &lo);
  set_cb(&m.name, cb_string, &sn);
  set_cb(&m.op_type, cb_string, &so);
  set_cb(&m.attribute, cb_attr_list, &la);
  set_cb(&m.domain, cb_string, &sd);
  set_cb(&m.overload, cb_string, &sv);
  bool ok = decode_checked(stream, onnx_NodeProto_fields, &m);
  if (ok) {
    out->name = name ? name : "";
    out->op_type = op_type ? op_type : "";
    out->domain = osi_mb_domain(d->arena, domain);
    out->overload = overload ? overload : "";
    out->n_inputs = (int)inputs.n;
    out->n_outputs = (int)outputs.n;
    out->n_attrs = (int)attrs.n;
    ok = (out->inputs = vec_finish(d, &inputs)) && (out->outputs = vec_finish(d, &outputs)) &&
         (out->attrs = vec_finish(d, &attrs));
  }
  vec_free(&inputs);
  vec_free(&outputs);
  vec_free(&attrs);
  return ok;
}

static bool cb_node(pb_istream_t *stream, const pb_field_t *field, void **arg) {
  (void)field;
  ListArg *a = *arg;
  OsiNode *slot = vec_push(a->d, a->v);
  return slot && decode_node_msg(a->d, stream, slot);
}

static bool cb_value_info(pb_istream_t *stream, const pb_field_t *field, void **arg) {
  (void)field;
  ListArg *a = *arg;
  OsiValueInfo *slot = vec_push(a->d, a->v);
  if (!slot) return false;
  const char *name = NULL;
  StrArg sn = {a->d, &name};
  TypeArg ta = {a->d, &slot->type, 0};
  onnx_ValueInfoProto m = onnx_ValueInfoProto_init_zero;
  set_cb(&m.name, cb_string, &sn);
  set_cb(&m.type, cb_type, &ta);
  if (!decode_checked(stream, onnx_ValueInfoProto_fields, &m)) return false;
  slot->name = name ? name : "";
  return a->d->err->status == OSI_OK;
}

static bool cb_initializer(pb_istream_t *stream, const pb_field_t *field, void **arg) {
  (void)field;
  ListArg *a = *arg;
  OsiTensor *slot = vec_push(a->d, a->v);
  return slot && decode_tensor_msg(a->d, stream, slot);
}

static bool cb_sparse_initializer(pb_istream_t *stream, const pb_field_t *field, void **arg) {
  (void)field;
  ListArg *a = *arg;
  OsiTensor *slot = vec_push(a->d, a->v);
  return slot && decode_sparse_msg(a->d, stream, slot);
}

static bool decode_graph_fields(pb_istream_t *stream, GraphB *g) {
  D *d = g->d;
  StrArg sn = {d, &g->name};
  ListArg ln = {d, &g->nodes}, li = {d, &g->inits}, ls = {d, &g->sparse}, lin = {d, &g->inputs},
          lout = {d, &g->outputs}, lvi = {d, &g->value_info};
  onnx_GraphProto m = onnx_GraphProto_init_zero;
  set_cb(&m.node, cb_node, &ln);
  set_cb(&m.name, cb_string, &sn);
  set_cb(&m.initializer, cb_initializer, &li);
  set_cb(&m.input, cb_value_info, &lin);
  set_cb(&m.output, cb_value_info, &lout);
  set_cb(&m.value_info, cb_value_info, &lvi);
  set_cb(&m.sparse_initializer, cb_sparse_initializer, &ls);
  return decode_checked(stream, onnx_GraphProto_fields, &m);
}

/* Moves the graph's lists into the arena; frees g's vectors either way. */
static const OsiGraph *graph_finish(GraphB *g) {
  D *d = g->d;
  OsiGraph *out = osi_arena_alloc(d->arena, sizeof *out);
  if (!out) {
    graph_free(g);
    return nomem(d), NULL;
  }
  out->name = g->name ? g->name : "";
  out->n_nodes = (int)g->nodes.n;
  out->n_inputs = (int)g->inputs.n;
  out->n_outputs = (int)g->outputs.n;
  out->n_value_info = (int)g->value_info.n;
  out->n_initializers = (int)(g->inits.n + g->sparse.n);
  /* initializers, then sparse initializers (dims only) */
  for (size_t i = 0; i < g->sparse.n; i++) {
    OsiTensor *slot = vec_push(d, &g->inits);
    if (!slot) {
      graph_free(g);
      return NULL;
    }
    *slot = ((OsiTensor *)g->sparse.p)[i];
  }
  bool ok = (out->nodes = vec_finish(d, &g->nodes)) && (out->inputs = vec_finish(d, &g->inputs)) &&
            (out->outputs = vec_finish(d, &g->outputs)) &&
            (out->value_info = vec_finish(d, &g->value_info)) &&
            (out->initializers = vec_finish(d, &g->inits));
  graph_free(g);
  return ok ? out : NULL;
}

/* Section - Functions and the model */

static bool cb_opset(pb_istream_t *stream, const pb_field_t *field, void **arg) {
  (void)field;
  ListArg *a = *arg;
  OsiOpsetImport *slot = vec_push(a->d, a->v);
  if (!slot) return false;
  const char *domain = NULL;
  StrArg sd = {a->d, &domain};
  onnx_OperatorSetIdProto m = onnx_OperatorSetIdProto_init_zero;
  set_cb(&m.domain, cb_string, &sd);
  if (!decode_checked(stream, onnx_OperatorSetIdProto_fields, &m)) return false;
  slot->domain = osi_mb_domain(a->d->arena, domain);
  slot->version = m.version;
  return slot->domain != NULL || nomem(a->d);
}

static bool cb_function(pb_istream_t *stream, const pb_field_t *field, void **arg) {
  (void)field;
  ListArg *a = *arg;
  D *d = a->d;
  OsiFunction *f = vec_push(d, a->v);
  if (!f) return false;
  Vec inputs = VEC(const char *), outputs = VEC(const char *), attr_names = VEC(const char *),
      defaults = VEC(OsiAttr), nodes = VEC(OsiNode), opsets = VEC(OsiOpsetImport),
      value_info = VEC(OsiValueInfo);
  const char *name = NULL, *domain = NULL, *overload = NULL;
  StrArg sn = {d, &name}, sd = {d, &domain}, so = {d, &overload};
  ListArg li = {d, &inputs}, lo = {d, &outputs}, lan = {d, &attr_names}, lad = {d, &defaults},
          ln = {d, &nodes}, lop = {d, &opsets}, lvi = {d, &value_info};
  onnx_FunctionProto m = onnx_FunctionProto_init_zero;
  set_cb(&m.name, cb_string, &sn);
  set_cb(&m.input, cb_string_list, &li);
  set_cb(&m.output, cb_string_list, &lo);
  set_cb(&m.attribute, cb_string_list, &lan);
  set_cb(&m.node, cb_node, &ln);
  set_cb(&m.opset_import, cb_opset, &lop);
  set_cb(&m.domain, cb_string, &sd);
  set_cb(&m.attribute_proto, cb_attr_list, &lad);
  set_cb(&m.value_info, cb_value_info, &lvi);
  set_cb(&m.overload, cb_string, &so);
  bool ok = decode_checked(stream, onnx_FunctionProto_fields, &m);
  if (ok) {
    f->name = name ? name : "";
    f->domain = osi_mb_domain(d->arena, domain);
    f->overload = overload ? overload : "";
    f->n_inputs = (int)inputs.n;
    f->n_outputs = (int)outputs.n;
    f->n_attr_names = (int)attr_names.n;
    f->n_attr_defaults = (int)defaults.n;
    f->n_nodes = (int)nodes.n;
    f->n_opsets = (int)opsets.n;
    f->n_value_info = (int)value_info.n;
    ok = (f->inputs = vec_finish(d, &inputs)) && (f->outputs = vec_finish(d, &outputs)) &&
         (f->attr_names = vec_finish(d, &attr_names)) &&
         (f->attr_defaults = vec_finish(d, &defaults)) && (f->nodes = vec_finish(d, &nodes)) &&
         (f->opsets = vec_finish(d, &opsets)) && (f->value_info = vec_finish(d, &value_info));
  }
  vec_free(&inputs);
  vec_free(&outputs);
  vec_free(&attr_names);
  vec_free(&defaults);
  vec_free(&nodes);
  vec_free(&opsets);
  vec_free(&value_info);
  return ok;
}

typedef struct ModelB {
  D *d;
  int has_graph;
  GraphB graph; /* a repeated graph field merges into it, as in protobuf-c */
} ModelB;

static bool cb_model_graph(pb_istream_t *stream, const pb_field_t *field, void **arg) {
  (void)field;
  ModelB *mb = *arg;
  D *d = mb->d;
  mb->has_graph = 1;
  /* decode_pbc.c decodes the main graph at depth 1 */
  if (d->depth + 1 > OSI_MAX_GRAPH_DEPTH) return fail(d, OSI_ERR_LIMIT_EXCEEDED, "subgraph nesting exceeds the limit");
  d->depth++;
  bool ok = decode_graph_fields(stream, &mb->graph);
  d->depth--;
  return ok;
}

static const OsiModel *decode_model(D *d, pb_istream_t *stream, Src *src) {
  ModelB mb = {.d = d};
  graph_init(&mb.graph, d);
  Vec opsets = VEC(OsiOpsetImport), functions = VEC(OsiFunction);
  const char *producer = NULL;
  StrArg sp = {d, &producer};
  ListArg lo = {d, &opsets}, lf = {d, &functions};
  onnx_ModelProto m = onnx_ModelProto_init_zero;
  set_cb(&m.producer_name, cb_string, &sp);
  set_cb(&m.graph, cb_model_graph, &mb);
  set_cb(&m.opset_import, cb_opset, &lo);
  set_cb(&m.functions, cb_function, &lf);
  OsiModel *model = NULL;
  if (!decode_checked(stream, onnx_ModelProto_fields, &m)) {
    if (d->err->status == OSI_OK) {
      char msg[200];
      const char *why = src->io_error ? src->io_error : PB_GET_ERROR(stream);
      snprintf(msg, sizeof msg,
               "the bytes are not a valid ONNX ModelProto (%s) at byte %llu", why,
               (unsigned long long)src->offset);
      osi_mb_fail(d->err, OSI_ERR_PARSE, msg);
    }
    goto done;
  }
  model = osi_arena_alloc(d->arena, sizeof *model);
  if (!model) {
    nomem(d);
    goto done;
  }
  model->ir_version = m.ir_version;
  model->producer_name = producer ? producer : "";
  model->n_opsets = (int)opsets.n;
  model->n_functions = (int)functions.n;
  if (!(model->opsets = vec_finish(d, &opsets)) || !(model->functions = vec_finish(d, &functions))) {
    model = NULL;
    goto done;
  }
  if (!mb.has_graph) {
    fail(d, OSI_ERR_INVALID_MODEL, "the model has no graph");
    model = NULL;
    goto done;
  }
  d->depth++;
  model->graph = graph_finish(&mb.graph); /* frees mb.graph's vectors */
  d->depth--;
  if (!model->graph) model = NULL;
done:
  graph_free(&mb.graph);
  vec_free(&opsets);
  vec_free(&functions);
  if (!model && d->err->status == OSI_OK) nomem(d);
  return model;
}

static const OsiModel *run(Src *src, OsiArena *arena, OsiExprStore *exprs, OsiDecodeError *err) {
  D d = {arena, exprs, err, 0};
  err->status = OSI_OK;
  err->message[0] = 0;
  if (src->total > (uint64_t)SIZE_MAX) {
    osi_mb_fail(err, OSI_ERR_LIMIT_EXCEEDED, "the model is larger than this build can address");
    return NULL;
  }
  pb_istream_t stream = {src_pb_read, src, (size_t)src->total, NULL};
  return decode_model(&d, &stream, src);
}

const OsiModel *osi_decode_npb_stream(OsiReadFn read, OsiSkipFn skip, void *user,
                                      uint64_t total_len, OsiArena *arena, OsiExprStore *exprs,
                                      OsiDecodeError *err) {
  Src src = {.read = read, .skip = skip, .user = user, .total = total_len};
  src.buf = malloc(SRC_BUF_SIZE);
  if (!src.buf) {
    err->status = OSI_OK;
    osi_mb_fail(err, OSI_ERR_NOMEM, "out of memory while decoding the model");
    return NULL;
  }
  const OsiModel *m = run(&src, arena, exprs, err);
  free(src.buf);
  return m;
}

const OsiModel *osi_decode_npb(const uint8_t *bytes, size_t len, OsiArena *arena,
                               OsiExprStore *exprs, OsiDecodeError *err) {
  Src src = {.mem = bytes ? bytes : (const uint8_t *)"", .total = len};
  return run(&src, arena, exprs, err);
}
