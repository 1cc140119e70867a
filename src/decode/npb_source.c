/*
 * The nanopb decoder's source: a memory buffer, or read/skip callbacks
 * behind a 64 KiB buffer. Since nanopb reads every varint one byte at a
 * time, the source also follows the keys and lengths it reads: to refuse
 * the encodings protobuf-c refuses, and to say where a file ends early.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decode/npb_internal.h"

/* Section - Source: memory buffer or read/skip callbacks behind a 64 KiB buffer */

static bool refill(NpbSource *s) {
  uint64_t left = s->total - s->fetched;
  size_t want = left < NPB_SOURCE_BUF_SIZE ? (size_t)left : NPB_SOURCE_BUF_SIZE;
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

bool npb_source_skip(NpbSource *s, uint64_t n) {
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
  NpbSource *s = stream->state;
  s->last_read = count; /* the wire type of a scalar handed to a callback (cb_wire_check) */
  if (!out) return npb_source_skip(s, count); /* nanopb 0.4.7 never does this, but be safe */
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

/* Section - Keys, lengths and values
 *
 * nanopb reads a key or a length with up to 10 bytes of zero padding and
 * skips an unknown varint of any length, where protobuf-c (like protobuf's
 * C++ parser) refuses a key or a length longer than 5 bytes and any varint
 * longer than 10. So the source follows which varint each one-byte read
 * belongs to: a key's wire type says whether a value (varint), a length
 * (length-delimited) or nothing (fixed-size) comes next; a length is
 * followed by its content, which is either a message (keys again:
 * npb_decode_checked says so through npb_source_message_starts) or raw
 * bytes (strings, bytes, packed numbers: not varints the source checks;
 * the decoder's own readers bound packed varints). The key and length of
 * the latest field are kept for error messages. */

static bool track_byte(NpbSource *s, uint8_t b) {
  uint64_t at = s->offset - 1;
  if (at < s->raw_end) return true;
  if (s->varint_bytes == 0) {
    s->varint_value = 0;
    if (s->next == NPB_NEXT_KEY) {
      s->field_start = at;
      s->field_has_len = 0;
    }
  }
  int i = s->varint_bytes++;
  if (i < 10) s->varint_value |= (uint64_t)(b & 0x7f) << (7 * i);
  if (s->next == NPB_NEXT_VALUE ? s->varint_bytes > 10 : s->varint_bytes > 5) {
    s->io_error = s->next == NPB_NEXT_VALUE ? "a varint is longer than 10 bytes"
                  : s->next == NPB_NEXT_KEY ? "a field key is longer than 5 bytes"
                                            : "a length is longer than 5 bytes";
    return false;
  }
  if (b & 0x80) return true;
  s->varint_bytes = 0;
  switch (s->next) {
  case NPB_NEXT_KEY: {
    unsigned wire = (unsigned)(s->varint_value & 7);
    s->field_key = (uint32_t)s->varint_value;
    s->next = wire == 0 ? NPB_NEXT_VALUE : wire == 2 ? NPB_NEXT_LENGTH : NPB_NEXT_KEY;
    break;
  }
  case NPB_NEXT_LENGTH:
    s->field_len = s->varint_value;
    s->field_has_len = 1;
    s->raw_end = s->offset + (s->varint_value < UINT64_MAX - s->offset ? s->varint_value : UINT64_MAX - s->offset);
    s->next = NPB_NEXT_KEY;
    break;
  default: s->next = NPB_NEXT_KEY; break;
  }
  return true;
}

bool npb_source_read(pb_istream_t *stream, pb_byte_t *out, size_t count) {
  NpbSource *s = stream->state;
  if (!src_pb_read_raw(stream, out, count)) return false;
  if (count == 1 && out) return track_byte(s, out[0]);
  return true;
}

void npb_source_message_starts(pb_istream_t *stream) {
  NpbSource *s = stream->state;
  s->raw_end = 0;
  s->next = NPB_NEXT_KEY;
  s->varint_bytes = 0;
}

void npb_source_describe_error(const NpbSource *s, const char *pb_error, OsiDecodeError *err) {
  const char *why = s->io_error ? s->io_error : pb_error;
  int parent_short = strcmp(why, "parent stream too short") == 0;
  /* The file ends inside the latest field when its declared content runs
   * past the end, or when nanopb wanted more bytes and none are left. */
  if (parent_short && s->field_has_len && s->field_len > s->total - s->offset) {
    osi_mb_truncated(err, s->field_start, 1, s->field_len, s->total);
    return;
  }
  if ((strcmp(why, "end-of-stream") == 0 && s->offset == s->total) ||
      (strcmp(why, "io error") == 0 && s->offset == s->total)) {
    osi_mb_truncated(err, s->field_start, 0, 0, s->total);
    return;
  }
  if (parent_short) why = "a field's length runs past the end of the message holding it";
  else if (strcmp(why, "end-of-stream") == 0) why = "a field runs past the end of the message holding it";
  char msg[200];
  snprintf(msg, sizeof msg, "the bytes are not a valid ONNX ModelProto (%s) at byte %llu", why,
           (unsigned long long)s->offset);
  osi_mb_fail(err, OSI_ERR_PARSE, msg);
}

/* Drops the rest of a field's substream at the source (a seek, not reads).
 * Scalar fields reach callbacks as a copy in a small buffer stream: those
 * are skipped by nanopb itself. */
bool npb_skip_rest(pb_istream_t *stream) {
  size_t n = stream->bytes_left;
  if (!n) return true;
  if (stream->callback != npb_source_read) return pb_read(stream, NULL, n);
  if (!npb_source_skip(stream->state, n)) PB_RETURN_ERROR(stream, "io error");
  stream->bytes_left = 0;
  return true;
}

