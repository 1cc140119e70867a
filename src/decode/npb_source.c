/*
 * The nanopb decoder's source: a memory buffer, or read/skip callbacks
 * behind a 64 KiB buffer. It also enforces the varint length protobuf-c
 * accepts, since nanopb reads varints one byte at a time.
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

/* nanopb reads every varint one byte at a time and skips an unknown one of
 * any length, where protobuf-c refuses a varint longer than 10 bytes: ten
 * 1-byte reads in a row with the continuation bit set are such a varint. */
bool npb_source_read(pb_istream_t *stream, pb_byte_t *out, size_t count) {
  NpbSource *s = stream->state;
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
bool npb_skip_rest(pb_istream_t *stream) {
  size_t n = stream->bytes_left;
  if (!n) return true;
  if (stream->callback != npb_source_read) return pb_read(stream, NULL, n);
  if (!npb_source_skip(stream->state, n)) PB_RETURN_ERROR(stream, "io error");
  stream->bytes_left = 0;
  return true;
}

