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
#include "decode/name_intern.h"
#include "onnx_shapes.pb.h"

#if !defined(PB_FIELD_32BIT)
#error "nanopb code must be compiled with -DPB_FIELD_32BIT (arrays/bytes past 64 KiB)"
#endif

/* Section - Source (npb_source.c) */

#define NPB_SOURCE_BUF_SIZE ((size_t)64 * 1024)

/* Which varint the next one-byte reads of the decoder belong to (see
 * npb_source.c): keys and lengths take at most 5 bytes, values 10. */
typedef enum { NPB_NEXT_KEY, NPB_NEXT_VALUE, NPB_NEXT_LENGTH } NpbNextVarint;

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
  /* The varint being read one byte at a time (keys, lengths, values). */
  NpbNextVarint next;
  int varint_bytes;      /* bytes of it read so far; 0 between varints */
  uint64_t varint_value;
  uint64_t raw_end;      /* bytes before this offset are content, not varints (strings, packed) */
  /* The latest field: where its key starts, and its length when it has one. */
  uint64_t field_start, field_len;
  uint32_t field_key;
  int field_has_len;
} NpbSource;

/* Skips n bytes at the source (a seek when it can). */
bool npb_source_skip(NpbSource *s, uint64_t n);
/* The pb_istream_t callback reading from an NpbSource; a stream whose
 * callback is this one is a substream of the source. */
bool npb_source_read(pb_istream_t *stream, pb_byte_t *out, size_t count);
/* Drops the rest of a field's substream at the source (a seek, not reads). */
bool npb_skip_rest(pb_istream_t *stream);
/* The stream's next bytes are a message (keys follow), not raw content. */
void npb_source_message_starts(pb_istream_t *stream);
/* Why decoding stopped, for the "not a valid ModelProto" message: a
 * truncated file is said so, with where it ends (model_build.h's wording). */
void npb_source_describe_error(const NpbSource *s, const char *pb_error, OsiDecodeError *err);

/* Section - Decoder state, vectors and field callbacks (npb_fields.c) */

typedef struct NpbDecoder {
  OsiArena *arena;
  OsiExprStore *exprs;
  OsiDecodeError *err;
  int depth;
  OsiNameInterner names; /* value names, op types, attribute names */
  OsiMbDimMemo dim_memo;
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
 * run is checked (varints read, fixed-width data measured) but not kept. */
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
/* The bytes of a bytes field as a NUL-terminated arena copy. */
bool npb_read_bytes(pb_istream_t *stream, NpbDecoder *d, const char **out, size_t *len);
/* The same for a string field, which may not hold a NUL byte (a PARSE_ERROR
 * otherwise: names are never cut). */
bool npb_read_string(pb_istream_t *stream, NpbDecoder *d, const char **out);
/* Callbacks: string -> StrArg, repeated string -> ListArg, a string field
 * only checked (arg: NpbDecoder), skipped field, repeated numbers -> NumList. */
bool npb_cb_string(pb_istream_t *stream, const pb_field_t *field, void **arg);
bool npb_cb_string_check(pb_istream_t *stream, const pb_field_t *field, void **arg);
bool npb_cb_string_list(pb_istream_t *stream, const pb_field_t *field, void **arg);
/* The same for names that repeat (values, op types, attributes), interned
 * (name_intern.h). */
bool npb_cb_name(pb_istream_t *stream, const pb_field_t *field, void **arg);
bool npb_cb_name_list(pb_istream_t *stream, const pb_field_t *field, void **arg);
/* The ids of n interned names (0 for ""), in the arena; NULL without memory. */
const uint32_t *npb_name_ids(NpbDecoder *d, const char *const *v, int n);
bool npb_cb_skip(pb_istream_t *stream, const pb_field_t *field, void **arg);
bool npb_cb_numbers(pb_istream_t *stream, const pb_field_t *field, void **arg);
NumList npb_numlist(NpbDecoder *d, NumWire wire, size_t esz, size_t limit);
/* A varint read the way protobuf-c reads it (see npb_fields.c). */
bool npb_varint_as_pbc(pb_istream_t *stream, uint64_t *out);
void npb_set_cb(pb_callback_t *cb, bool (*fn)(pb_istream_t *, const pb_field_t *, void **), void *arg);
/* pb_decode with protobuf-c's wire-type rule for callback fields. */
bool npb_decode_checked(pb_istream_t *stream, const pb_msgdesc_t *fields, void *msg);

/* Section - Types and tensors (npb_types.c)
 *
 * A non-repeated message field may occur more than once; protobuf then
 * merges the occurrences (scalars: the last one present; repeated fields:
 * appended; messages: merged the same way; a oneof: its last member, the
 * same member twice merged). So such a field is decoded into a builder that
 * outlives one occurrence, and becomes part of the model only when the
 * message holding it ends. */

/* A TypeProto under construction (malloc'ed). */
typedef struct NpbTypeB NpbTypeB;
/* One TypeProto occurrence merged into *b (allocated when NULL). Counts
 * towards OSI_MAX_GRAPH_DEPTH like decode_pbc.c's decode_type. */
bool npb_merge_type(NpbDecoder *d, pb_istream_t *stream, NpbTypeB **b);
/* The type b describes: NULL for none (or when the rank is over the limit:
 * then the error is set). */
const OsiType *npb_type_finish(NpbDecoder *d, const NpbTypeB *b);
void npb_type_free(NpbTypeB *b);

typedef struct TypeArg {
  NpbDecoder *d;
  NpbTypeB *b;
} TypeArg;

/* A `type` field -> TypeArg (merged). */
bool npb_cb_type(pb_istream_t *stream, const pb_field_t *field, void **arg);

/* A TensorProto under construction. */
typedef struct NpbTensorB {
  NpbDecoder *d;
  int keep;           /* 0: payloads are not needed at all (sparse values) */
  const char *name;
  int has_type, has_location;
  int32_t data_type, data_location;
  NpbVec dims;        /* int64_t, at most OSI_MAX_RANK + 1 stored */
  size_t n_dims;
  NumList int64_data, int32_data, uint64_data, float_data, double_data;
  int has_raw;
  uint8_t *raw;       /* malloc'ed; NULL when skipped */
  size_t raw_len;
} NpbTensorB;

void npb_tensor_init(NpbTensorB *b, NpbDecoder *d, int keep);
bool npb_tensor_merge(pb_istream_t *stream, NpbTensorB *b);
/* b -> *out, as decode_pbc.c's decode_tensor. */
bool npb_tensor_finish(NpbTensorB *b, OsiTensor *out);
void npb_tensor_free(NpbTensorB *b);

/* A SparseTensorProto under construction: its dims, and its values (only
 * their name and element type are used). */
typedef struct NpbSparseB {
  NpbTensorB shape, values;
} NpbSparseB;

void npb_sparse_init(NpbSparseB *b, NpbDecoder *d);
bool npb_sparse_merge(pb_istream_t *stream, NpbSparseB *b);
bool npb_sparse_finish(NpbSparseB *b, OsiTensor *out);
void npb_sparse_free(NpbSparseB *b);

/* One TensorProto / SparseTensorProto message -> *out (repeated fields). */
bool npb_decode_tensor(NpbDecoder *d, pb_istream_t *stream, OsiTensor *out);
bool npb_decode_sparse(NpbDecoder *d, pb_istream_t *stream, OsiTensor *out);

#endif
