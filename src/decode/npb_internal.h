/*
 * What the files of the nanopb decoder share (decode_npb.c is the entry):
 * npb_source.c moves bytes from the source (memory or read/skip callbacks)
 * into nanopb, npb_fields.c holds the decoder state, vectors and the
 * callbacks for scalar, string and list fields, npb_types.c decodes
 * TypeProto and TensorProto messages, decode_npb.c graphs, nodes,
 * attributes, functions and the model.
 */
#ifndef OSI_NPB_INTERNAL_H
#define OSI_NPB_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <pb_common.h>
#include <pb_decode.h>

#include "decode/decode.h"
#include "decode/model_build.h"
#include "onnx_shapes.pb.h"

#if !defined(PB_FIELD_32BIT)
#error "nanopb code must be compiled with -DPB_FIELD_32BIT (arrays/bytes past 64 KiB)"
#endif

/* Section - Source (npb_source.c) */

#define NPB_SOURCE_BUF_SIZE ((size_t)64 * 1024)

typedef struct NpbSource {
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
} NpbSource;

/* Skips n bytes at the source (a seek when it can). */
bool npb_source_skip(NpbSource *s, uint64_t n);
/* The pb_istream_t callback reading from an NpbSource; a stream whose
 * callback is this one is a substream of the source. */
bool npb_source_read(pb_istream_t *stream, pb_byte_t *out, size_t count);
/* Drops the rest of a field's substream at the source (a seek, not reads). */
bool npb_skip_rest(pb_istream_t *stream);

/* Section - Decoder state, vectors and field callbacks (npb_fields.c) */

typedef struct NpbDecoder {
  OsiArena *arena;
  OsiExprStore *exprs;
  OsiDecodeError *err;
  int depth;
} NpbDecoder;

/* A growable array in malloc memory; npb_vec_finish moves it into the arena. */
typedef struct NpbVec {
  char *p;
  size_t n, cap, esz;
} NpbVec;

typedef struct StrArg {
  NpbDecoder *d;
  const char **out;
} StrArg;

typedef struct ListArg {
  NpbDecoder *d;
  NpbVec *v;
} ListArg;

/* Repeated numbers, packed or not, of which at most `limit` are stored;
 * `count` saturates at limit + 1 ("more than kept") and the rest of a packed
 * run is skipped at the source. */
typedef enum { NUM_VARINT, NUM_SVARINT32, NUM_FIXED32, NUM_FIXED64 } NumWire;

typedef struct NumList {
  NpbDecoder *d;
  NumWire wire;
  size_t limit;
  size_t count;
  size_t esz;      /* stored element: int64_t/int32_t/uint64_t/float/double */
  NpbVec v;
} NumList;

#define NPB_VEC(T) ((NpbVec){NULL, 0, 0, sizeof(T)})

/* Records an allocation failure / the first error; both return false. */
bool npb_nomem(NpbDecoder *d);
bool npb_fail(NpbDecoder *d, OsiStatus status, const char *msg);
/* A zeroed new last element, or NULL (out of memory). */
void *npb_vec_push(NpbDecoder *d, NpbVec *v);
void npb_vec_free(NpbVec *v);
/* Arena copy of the elements (at least one zeroed slot); frees v. */
void *npb_vec_finish(NpbDecoder *d, NpbVec *v);
/* The bytes of a string/bytes field as a NUL-terminated arena copy. */
bool npb_read_bytes(pb_istream_t *stream, NpbDecoder *d, const char **out, size_t *len);
/* Callbacks: string -> StrArg, repeated string -> ListArg, skipped field,
 * repeated numbers -> NumList. */
bool npb_cb_string(pb_istream_t *stream, const pb_field_t *field, void **arg);
bool npb_cb_string_list(pb_istream_t *stream, const pb_field_t *field, void **arg);
bool npb_cb_skip(pb_istream_t *stream, const pb_field_t *field, void **arg);
bool npb_cb_numbers(pb_istream_t *stream, const pb_field_t *field, void **arg);
NumList npb_numlist(NpbDecoder *d, NumWire wire, size_t esz, size_t limit);
/* A varint read the way protobuf-c reads it (see npb_fields.c). */
bool npb_varint_as_pbc(pb_istream_t *stream, uint64_t *out);
void npb_set_cb(pb_callback_t *cb, bool (*fn)(pb_istream_t *, const pb_field_t *, void **), void *arg);
/* pb_decode with protobuf-c's wire-type rule for callback fields. */
bool npb_decode_checked(pb_istream_t *stream, const pb_msgdesc_t *fields, void *msg);

/* Section - Types and tensors (npb_types.c) */

typedef struct TypeArg {
  NpbDecoder *d;
  const OsiType **out;
  int present;
} TypeArg;

/* One TypeProto message -> *out (NULL when it names no type). */
bool npb_decode_type(NpbDecoder *d, pb_istream_t *stream, const OsiType **out);
/* A `type` field -> TypeArg. */
bool npb_cb_type(pb_istream_t *stream, const pb_field_t *field, void **arg);
/* One TensorProto / SparseTensorProto message -> *out, as decode_pbc.c. */
bool npb_decode_tensor(NpbDecoder *d, pb_istream_t *stream, OsiTensor *out);
bool npb_decode_sparse(NpbDecoder *d, pb_istream_t *stream, OsiTensor *out);

#endif
