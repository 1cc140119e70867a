/*
 * The nanopb decoder's state, growable vectors and the callbacks for
 * scalar, string and list fields, with protobuf-c's wire-type rules.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decode/npb_internal.h"

/* Section - Decoder state, vectors */

bool npb_nomem(NpbDecoder *d) { return osi_mb_nomem(d->err, d->arena), false; }

bool npb_fail(NpbDecoder *d, OsiStatus status, const char *msg) {
  return osi_mb_fail(d->err, status, msg), false;
}

void *npb_vec_push(NpbDecoder *d, NpbVec *v) {
  if (v->n == v->cap) {
    size_t cap = v->cap ? v->cap * 2 : 8;
    char *p = cap <= SIZE_MAX / v->esz ? realloc(v->p, cap * v->esz) : NULL;
    if (!p) return npb_nomem(d), NULL;
    v->p = p;
    v->cap = cap;
  }
  void *slot = v->p + v->n++ * v->esz;
  memset(slot, 0, v->esz);
  return slot;
}

void npb_vec_free(NpbVec *v) {
  free(v->p);
  v->p = NULL;
  v->n = v->cap = 0;
}

/* Arena copy of the elements (at least one zeroed slot, like decode_pbc.c); frees v. */
void *npb_vec_finish(NpbDecoder *d, NpbVec *v) {
  void *a = osi_arena_array(d->arena, v->n ? v->n : 1, v->esz);
  if (a && v->n) memcpy(a, v->p, v->n * v->esz);
  npb_vec_free(v);
  if (!a) npb_nomem(d);
  return a;
}

/* Section - Field callbacks for scalars, strings and lists */

/* The bytes of a bytes field as a NUL-terminated arena copy. */
bool npb_read_bytes(pb_istream_t *stream, NpbDecoder *d, const char **out, size_t *len) {
  size_t n = stream->bytes_left;
  char *s = osi_arena_alloc(d->arena, n + 1);
  if (!s) return npb_nomem(d);
  if (!pb_read(stream, (pb_byte_t *)s, n)) return false;
  s[n] = 0;
  *out = s;
  if (len) *len = n;
  return true;
}

/* Where the field being read starts (its key), for messages. */
static uint64_t field_start(const pb_istream_t *stream) {
  return stream->callback == npb_source_read ? ((const NpbSource *)stream->state)->field_start : 0;
}

bool npb_read_string(pb_istream_t *stream, NpbDecoder *d, const char **out) {
  size_t n;
  uint64_t at = field_start(stream);
  if (!npb_read_bytes(stream, d, out, &n)) return false;
  if (memchr(*out, 0, n)) return osi_mb_nul_in_string(d->err, at, *out, n), false;
  return true;
}

/* string field -> *out (NUL-terminated) */
bool npb_cb_string(pb_istream_t *stream, const pb_field_t *field, void **arg) {
  (void)field;
  StrArg *a = *arg;
  return npb_read_string(stream, a->d, a->out);
}

/* repeated string -> NpbVec of const char * */
bool npb_cb_string_list(pb_istream_t *stream, const pb_field_t *field, void **arg) {
  (void)field;
  ListArg *a = *arg;
  const char **slot = npb_vec_push(a->d, a->v);
  return slot && npb_read_string(stream, a->d, slot);
}

/* A value name: read into a buffer of its own, checked, and interned. */
static bool read_name(pb_istream_t *stream, NpbDecoder *d, const char **out) {
  size_t n = stream->bytes_left;
  uint64_t at = field_start(stream);
  char small[256];
  char *buf = n < sizeof small ? small : malloc(n + 1);
  if (!buf) return npb_nomem(d);
  bool ok = pb_read(stream, (pb_byte_t *)buf, n);
  if (ok && memchr(buf, 0, n)) ok = (osi_mb_nul_in_string(d->err, at, buf, n), false);
  if (ok && !(*out = osi_names_intern(&d->names, buf, n))) ok = npb_nomem(d);
  if (buf != small) free(buf);
  return ok;
}

const uint32_t *npb_name_ids(NpbDecoder *d, const char *const *v, int n) {
  uint32_t *ids = osi_arena_array(d->arena, n > 0 ? (size_t)n : 1, sizeof *ids);
  if (!ids) return npb_nomem(d), NULL;
  for (int i = 0; i < n; i++) ids[i] = !d->names.incomplete && v[i] && v[i][0] ? osi_name_id(v[i]) : 0;
  return ids;
}

bool npb_cb_name(pb_istream_t *stream, const pb_field_t *field, void **arg) {
  (void)field;
  StrArg *a = *arg;
  return read_name(stream, a->d, a->out);
}

bool npb_cb_name_list(pb_istream_t *stream, const pb_field_t *field, void **arg) {
  (void)field;
  ListArg *a = *arg;
  const char **slot = npb_vec_push(a->d, a->v);
  return slot && read_name(stream, a->d, slot);
}

/* A string field the engine does not use, read only to apply the NUL rule
 * to every string of the schema (decode_pbc.c's pre-scan checks them all). */
bool npb_cb_string_check(pb_istream_t *stream, const pb_field_t *field, void **arg) {
  (void)field;
  NpbDecoder *d = *arg;
  uint64_t at = field_start(stream);
  pb_byte_t chunk[256];
  while (stream->bytes_left) {
    size_t k = stream->bytes_left < sizeof chunk ? stream->bytes_left : sizeof chunk;
    if (!pb_read(stream, chunk, k)) return false;
    if (memchr(chunk, 0, k)) return osi_mb_nul_in_string(d->err, at, (const char *)chunk, k), false;
  }
  return true;
}

bool npb_cb_skip(pb_istream_t *stream, const pb_field_t *field, void **arg) {
  (void)field;
  (void)arg;
  return npb_skip_rest(stream);
}

/* A varint of a repeated number read the way protobuf-c does (at most 10
 * bytes; bits past 64 dropped), where pb_decode_varint refuses a 10th byte
 * over 1: the two decoders must accept the same repeated data. */
bool npb_varint_as_pbc(pb_istream_t *stream, uint64_t *out) {
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

/* The rest of a run of numbers, not kept but checked as protobuf-c, which
 * unpacks them all, checks it: every varint complete and at most 10 bytes
 * (so these are read, not skipped at the source), fixed-width data a whole
 * number of elements. */
static bool skip_numbers(pb_istream_t *stream, NumWire wire) {
  if (wire == NUM_FIXED32 || wire == NUM_FIXED64) {
    if (stream->bytes_left % (wire == NUM_FIXED32 ? 4 : 8)) PB_RETURN_ERROR(stream, "end-of-stream");
    return npb_skip_rest(stream);
  }
  while (stream->bytes_left) {
    uint64_t u;
    if (!npb_varint_as_pbc(stream, &u)) return false;
  }
  return true;
}

bool npb_cb_numbers(pb_istream_t *stream, const pb_field_t *field, void **arg) {
  (void)field;
  NumList *l = *arg;
  while (stream->bytes_left) {
    if (l->count >= l->limit) {
      l->count = l->limit + 1;
      return skip_numbers(stream, l->wire);
    }
    void *slot = npb_vec_push(l->d, &l->v);
    if (!slot) return false;
    switch (l->wire) {
    case NUM_VARINT: {
      uint64_t u;
      if (!npb_varint_as_pbc(stream, &u)) return false;
      memcpy(slot, &u, sizeof u); /* int64/uint64 */
      break;
    }
    case NUM_SVARINT32: { /* int32: a 10-byte sign-extended varint when negative */
      uint64_t u;
      if (!npb_varint_as_pbc(stream, &u)) return false;
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

NumList npb_numlist(NpbDecoder *d, NumWire wire, size_t esz, size_t limit) {
  NumList l = {d, wire, limit, 0, esz, {NULL, 0, 0, esz}};
  return l;
}

void npb_set_cb(pb_callback_t *cb, bool (*fn)(pb_istream_t *, const pb_field_t *, void **),
                   void *arg) {
  cb->funcs.decode = fn;
  cb->arg = arg;
}

/* Section - Wire types of callback fields
 *
 * nanopb hands a callback field to its callback whatever its wire type (a
 * varint `name` arrives as its raw bytes; a callback left unset skips any
 * wire type), where protobuf-c rejects a known field whose wire type does
 * not fit its type. npb_decode_checked (every pb_decode of this file) routes
 * each callback field of the message through cb_wire_check first, which
 * applies protobuf-c's rule: length-delimited for strings, bytes and
 * messages; varint / 32-bit / 64-bit for numbers, or length-delimited
 * (packed) when repeated. A length-delimited field reaches callbacks on a
 * substream of the source (callback npb_source_read); a scalar one on a copy,
 * whose wire type shows in the size of the latest source read (1 byte at a
 * time for a varint, 4 or 8 at once for fixed32/fixed64). */

typedef struct WireCheck {
  bool (*fn)(pb_istream_t *, const pb_field_t *, void **);
  void *arg;
  const NpbSource *src;
} WireCheck;

static bool cb_wire_check(pb_istream_t *stream, const pb_field_t *field, void **arg) {
  WireCheck *w = *arg;
  bool ld = stream->callback == npb_source_read;
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
  if (!w->fn) return ld ? npb_skip_rest(stream) : true;
  return w->fn(stream, field, &w->arg);
}

bool npb_decode_checked(pb_istream_t *stream, const pb_msgdesc_t *fields, void *msg) {
  WireCheck checks[32];
  int n = 0;
  pb_field_iter_t it;
  const NpbSource *src = stream->callback == npb_source_read ? stream->state : NULL;
  if (src) npb_source_message_starts(stream);
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

