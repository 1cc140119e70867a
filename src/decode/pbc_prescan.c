/*
 * Before protobuf-c unpacks a model (decode_pbc.c).
 *
 * The scan. protobuf-c unpacks submessages recursively with no depth limit,
 * so a few hundred KB of nested TypeProto (sequence of sequence of ...) or
 * GraphProto (If inside If ...) would overflow the C stack before
 * decode_pbc.c could count anything; and it accepts a few encodings the
 * nanopb decoder refuses. The scan walks the wire bytes the way
 * protobuf_c_message_unpack will, with the generated descriptors: it checks
 * one message's own fields (keys, lengths), then descends into its
 * message-typed fields in order. It refuses, naming the byte:
 *  - what protobuf-c would refuse anyway (a field past the end of its
 *    message; a key or length longer than 5 bytes, a varint longer than 10,
 *    a length past 2 GiB; an invalid wire type, field number 0), so that
 *    the message says where; a field past the end of a message that ends
 *    with the file is "the file ends early";
 *  - what protobuf-c reads differently: a length of 2^32 + n (size_t is 32
 *    bits in wasm: it would read n), a 5-byte key whose last byte overflows
 *    32 bits, a non-repeated number whose 10th byte overflows 64 bits;
 *  - a string with a NUL byte (names are refused, never cut: model_build.h);
 *  - nesting: more than OSI_MAX_GRAPH_DEPTH GraphProto and TypeProto
 *    messages on a path, wherever they are (an attribute member its type
 *    does not use counts too: the nanopb decoder reads them all), and more
 *    than OSI_MAX_PROTO_DEPTH messages.
 * Anything else malformed is left to protobuf-c, which refuses it.
 *
 * The merge. A non-repeated message field written more than once must be
 * merged. protobuf-c's merge of two occurrences differs from protobuf's
 * specification in two ways: a oneof member seen again replaces the earlier
 * one instead of merging with it (TypeProto's members), and an empty bytes
 * field loses to an earlier non-empty one (raw_data). When the scan saw such
 * a field, osi_pbc_merge_fields rewrites the bytes with each of them written
 * once, its occurrences concatenated (a concatenation of serialized messages
 * is their merge), recursively; protobuf-c then never merges anything.
 */
#include "decode/pbc_prescan.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decode/model_build.h"
#include "onnx_shapes.pb-c.h"

/* Section - Scan */

typedef struct Scan {
  const uint8_t *base;
  size_t len;
  OsiDecodeError *err;
  int merge;
} Scan;

/* Bytes of the varint at p, when it ends within min(len, 10) bytes; else 0. */
static size_t scan_varint(const uint8_t *p, size_t len, uint64_t *out) {
  uint64_t v = 0;
  for (size_t i = 0; i < len && i < 10; i++) {
    v |= (uint64_t)(p[i] & 0x7f) << (7 * i);
    if (!(p[i] & 0x80)) {
      *out = v;
      return i + 1;
    }
  }
  return 0;
}

/* scan_varint with the one-byte case (most keys and lengths) first. */
static inline size_t scan_varint1(const uint8_t *p, size_t len, uint64_t *out) {
  if (len && p[0] < 0x80) {
    *out = p[0];
    return 1;
  }
  return scan_varint(p, len, out);
}

/* Field keys protobuf-c reads differently from nanopb, which both decoders
 * must then refuse alike: a 5-byte key whose last byte nanopb's varint32
 * calls an overflow (protobuf-c shifts it into an int and wraps), and a key
 * naming field 0 in a longer encoding (protobuf-c only checks the first
 * byte). 1 when p starts with such a key. */
static int scan_bad_key(const uint8_t *p, size_t len) {
  uint32_t key = p[0] & 0x7f;
  for (size_t i = 1; i < len && i < 5 && (p[i - 1] & 0x80); i++) {
    if (i == 4) {
      if ((p[4] & 0x70) != 0 && (p[4] & 0x78) != 0x78) return 1;
      key |= (uint32_t)(p[4] & 0x0f) << 28;
    } else {
      key |= (uint32_t)(p[i] & 0x7f) << (7 * i);
    }
  }
  return (key >> 3) == 0;
}

/* The decode fails on the field whose key is at `field`. */
static int refuse(Scan *s, const uint8_t *field, const char *why) {
  char msg[200];
  snprintf(msg, sizeof msg, "the bytes are not a valid ONNX ModelProto (%s) at byte %llu", why,
           (unsigned long long)(field - s->base));
  return osi_mb_fail(s->err, OSI_ERR_PARSE, msg);
}

/* A field that runs past the end of its message: the file ends early when
 * the message ends with the file. has_len: a length-delimited field of
 * `len` bytes of content. */
static int past_end(Scan *s, const uint8_t *field, const uint8_t *msg_end, int has_len, uint64_t len) {
  if (msg_end == s->base + s->len)
    return osi_mb_truncated(s->err, (uint64_t)(field - s->base), has_len, len, s->len);
  return refuse(s, field, has_len ? "a field's length runs past the end of the message holding it"
                                  : "a field runs past the end of the message holding it");
}

static int limit(Scan *s, const char *why) { return osi_mb_fail(s->err, OSI_ERR_LIMIT_EXCEEDED, why); }

static const ProtobufCFieldDescriptor *field_of(const ProtobufCMessageDescriptor *desc, uint64_t key) {
  uint64_t id = key >> 3;
  if (id > UINT32_MAX) return NULL;
  /* The generated descriptors list fields by number, mostly without gaps:
   * look back from where field `id` would be before the binary search
   * (called for every field of every message, it was a third of the scan). */
  for (unsigned i = id < desc->n_fields ? (unsigned)id : desc->n_fields; i-- > 0;) {
    if (desc->fields[i].id == id) return &desc->fields[i];
    if (desc->fields[i].id < id) break;
  }
  return protobuf_c_message_descriptor_get_field(desc, (unsigned)id);
}

/* One message's own fields (pass 1), then its message-typed fields (pass
 * 2). 1: fine so far; 0: refused (s->err set). `nest`: GraphProto and
 * TypeProto messages on the path, this one excluded. */
static int scan_msg(Scan *s, const ProtobufCMessageDescriptor *desc, const uint8_t *p, size_t len,
                    int depth, int nest) {
  if (depth > OSI_MAX_PROTO_DEPTH) {
    char msg[128];
    snprintf(msg, sizeof msg, "protobuf messages nest deeper than %d levels", OSI_MAX_PROTO_DEPTH);
    return limit(s, msg);
  }
  if ((desc == &onnx__graph_proto__descriptor || desc == &onnx__type_proto__descriptor) &&
      ++nest > OSI_MAX_GRAPH_DEPTH)
    return limit(s, desc == &onnx__graph_proto__descriptor ? "subgraph nesting exceeds the limit"
                                                           : "type nesting exceeds the limit");
  const uint8_t *end = p + len;
  uint64_t seen = 0; /* non-repeated message fields met, by index */
  int subs = 0;      /* message-typed fields met */
  for (size_t at = 0; at < len;) {
    const uint8_t *field = p + at;
    size_t avail = len - at;
    uint64_t key, n;
    size_t used = scan_varint1(field, avail, &key);
    if (!used || used > 5) {
      if (used || avail > 5) return refuse(s, field, "a field key is longer than 5 bytes");
      return past_end(s, field, end, 0, 0);
    }
    if (used == 1 ? key < 8 : scan_bad_key(field, avail))
      return refuse(s, field, "a field key overflows 32 bits or names field 0");
    at += used;
    avail -= used;
    const ProtobufCFieldDescriptor *f = field_of(desc, key);
    switch (key & 7) {
    case 0:
      if (!(used = scan_varint1(p + at, avail, &n))) {
        if (avail >= 10) return refuse(s, field, "a varint is longer than 10 bytes");
        return past_end(s, field, end, 0, 0);
      }
      /* A single (not repeated) number nanopb decodes itself, strictly:
       * bits past 64 in a 10th byte fail there ("varint overflow") where
       * protobuf-c drops them; refuse them here too. (Both truncate int32
       * values alike; repeated numbers are read the protobuf-c way by both.) */
      if (f && f->label != PROTOBUF_C_LABEL_REPEATED && used == 10 && (p[at + 9] & 0x7e))
        return refuse(s, field, "a number overflows 64 bits");
      at += used;
      break;
    case 1:
    case 5: {
      size_t size = (key & 7) == 1 ? 8 : 4;
      if (avail < size) return past_end(s, field, end, 0, 0);
      at += size;
      break;
    }
    case 2:
      used = scan_varint1(p + at, avail, &n);
      if (!used || used > 5) {
        if (used || avail > 5) return refuse(s, field, "a length is longer than 5 bytes");
        return past_end(s, field, end, 0, 0);
      }
      if (n > INT_MAX) return refuse(s, field, "a length is over 2 GiB");
      if (n > avail - used) return past_end(s, field, end, 1, n);
      at += used;
      if (f && f->type == PROTOBUF_C_TYPE_STRING && memchr(p + at, 0, (size_t)n)) {
        osi_mb_nul_in_string(s->err, (uint64_t)(field - s->base), (const char *)(p + at), (size_t)n);
        return 0;
      }
      if (f && f->type == PROTOBUF_C_TYPE_MESSAGE) subs++;
      if (f && f->type == PROTOBUF_C_TYPE_MESSAGE && f->label != PROTOBUF_C_LABEL_REPEATED) {
        size_t i = (size_t)(f - desc->fields);
        if (i < 64 && (seen >> i & 1)) s->merge = 1;
        if (i < 64) seen |= (uint64_t)1 << i;
      }
      at += (size_t)n;
      break;
    default: return refuse(s, field, "an invalid wire type");
    }
  }
  /* Pass 2: descend into the message-typed fields (all well-formed now). */
  for (size_t at = 0; subs && at < len;) {
    uint64_t key = 0, n = 0;
    at += scan_varint1(p + at, len - at, &key);
    switch (key & 7) {
    case 0: at += scan_varint1(p + at, len - at, &n); break;
    case 1: at += 8; break;
    case 5: at += 4; break;
    default: {
      at += scan_varint1(p + at, len - at, &n);
      const ProtobufCFieldDescriptor *f = field_of(desc, key);
      if (f && f->type == PROTOBUF_C_TYPE_MESSAGE &&
          !scan_msg(s, f->descriptor, p + at, (size_t)n, depth + 1, nest))
        return 0;
      at += (size_t)n;
      break;
    }
    }
  }
  return 1;
}

int osi_pbc_prescan(const uint8_t *bytes, size_t len, OsiDecodeError *err, int *merge) {
  Scan s = {bytes ? bytes : (const uint8_t *)"", len, err, 0};
  int ok = scan_msg(&s, &onnx__model_proto__descriptor, s.base, len, 1, 0);
  *merge = s.merge;
  return ok;
}

/* Section - Merge
 *
 * Every part below is an occurrence of a field in the original bytes, which
 * the scan has walked and found well-formed. */

typedef struct Out {
  uint8_t *p;
  size_t n, cap;
  int failed;
} Out;

static void out_put(Out *o, const void *data, size_t n) {
  if (o->failed) return;
  if (n > o->cap - o->n) {
    size_t cap = o->cap ? o->cap : 256;
    while (cap - o->n < n) {
      if (cap > SIZE_MAX / 2) {
        o->failed = 1;
        return;
      }
      cap *= 2;
    }
    uint8_t *p = realloc(o->p, cap);
    if (!p) {
      o->failed = 1;
      return;
    }
    o->p = p;
    o->cap = cap;
  }
  memcpy(o->p + o->n, data, n);
  o->n += n;
}

static void out_varint(Out *o, uint64_t v) {
  uint8_t tmp[10];
  int n = 0;
  do {
    tmp[n] = (uint8_t)(v & 0x7f);
    v >>= 7;
    if (v) tmp[n] |= 0x80;
    n++;
  } while (v);
  out_put(o, tmp, (size_t)n);
}

typedef struct Part {
  const uint8_t *p;
  size_t len;
} Part;

typedef struct Rec {
  const uint8_t *start; /* the whole field, key included */
  size_t size;
  Part content;         /* length-delimited: what follows the length */
  const ProtobufCFieldDescriptor *f; /* NULL: unknown field */
  int wire;
  long next;            /* next occurrence of the same non-repeated message field, -1 */
  int merged;           /* one of the occurrences merged (the others are oneof members cleared) */
} Rec;

static int merge_msg(Out *o, const ProtobufCMessageDescriptor *desc, const Part *parts, size_t n_parts);

/* Field `f` holding the merge of `parts`: its key, a 5-byte length (so that
 * it can be written after the content) and the content. */
static int emit_merged(Out *o, const ProtobufCFieldDescriptor *f, const Part *parts, size_t n_parts) {
  out_varint(o, (uint64_t)f->id << 3 | 2);
  size_t len_at = o->n;
  out_put(o, "\x80\x80\x80\x80\x00", 5);
  if (!merge_msg(o, f->descriptor, parts, n_parts) || o->failed) return 0;
  size_t len = o->n - len_at - 5;
  if (len > INT_MAX) return 0;
  for (int i = 0; i < 5; i++) o->p[len_at + (size_t)i] = (uint8_t)((len >> (7 * i)) & 0x7f) | (i < 4 ? 0x80 : 0);
  return 1;
}

/* The fields of parts[0..n_parts) (one message: their concatenation) with
 * each non-repeated message field once, at its last occurrence, and every
 * message field rewritten the same way inside. A oneof member that a later
 * member cleared stays, unmerged (protobuf-c replaces it): protobuf-c still
 * checks its bytes, as the nanopb decoder does. So protobuf-c never merges
 * anything (its merge of two TypeProto without a member even fails). */
static int merge_msg(Out *o, const ProtobufCMessageDescriptor *desc, const Part *parts, size_t n_parts) {
  Rec *recs = NULL;
  size_t n = 0, cap = 0;
  unsigned nf = desc->n_fields;
  long *head = malloc((nf ? nf : 1) * sizeof *head), *tail = malloc((nf ? nf : 1) * sizeof *tail);
  int ok = head && tail;
  for (unsigned i = 0; ok && i < nf; i++) head[i] = tail[i] = -1;
  for (size_t k = 0; ok && k < n_parts; k++) {
    const uint8_t *p = parts[k].p;
    size_t len = parts[k].len;
    for (size_t at = 0; ok && at < len;) {
      uint64_t key, v;
      Rec r = {p + at, 0, {NULL, 0}, NULL, 0, -1, 0};
      size_t used = scan_varint(p + at, len - at, &key);
      if (!used) {
        ok = 0;
        break;
      }
      at += used;
      r.wire = (int)(key & 7);
      r.f = field_of(desc, key);
      switch (r.wire) {
      case 0: used = scan_varint(p + at, len - at, &v); at += used; ok = used != 0; break;
      case 1: at += 8; break;
      case 5: at += 4; break;
      case 2:
        used = scan_varint(p + at, len - at, &v);
        ok = used != 0 && v <= len - at - used;
        if (ok) {
          r.content = (Part){p + at + used, (size_t)v};
          at += used + (size_t)v;
        }
        break;
      default: ok = 0; break;
      }
      if (!ok || at > len) {
        ok = 0;
        break;
      }
      r.size = (size_t)(p + at - r.start);
      if (n == cap) {
        size_t ncap = cap ? cap * 2 : 32;
        Rec *nr = realloc(recs, ncap * sizeof *nr);
        if (!nr) {
          ok = 0;
          break;
        }
        recs = nr;
        cap = ncap;
      }
      /* A oneof member clears the other message members of its oneof. */
      if (r.f && (r.f->flags & PROTOBUF_C_FIELD_FLAG_ONEOF))
        for (unsigned i = 0; i < nf; i++)
          if (&desc->fields[i] != r.f && (desc->fields[i].flags & PROTOBUF_C_FIELD_FLAG_ONEOF) &&
              desc->fields[i].quantifier_offset == r.f->quantifier_offset)
            head[i] = tail[i] = -1;
      if (r.f && r.f->type == PROTOBUF_C_TYPE_MESSAGE && r.f->label != PROTOBUF_C_LABEL_REPEATED &&
          r.wire == 2) {
        size_t i = (size_t)(r.f - desc->fields);
        if (tail[i] >= 0) recs[tail[i]].next = (long)n;
        else head[i] = (long)n;
        tail[i] = (long)n;
      }
      recs[n++] = r;
    }
  }
  for (unsigned i = 0; ok && i < nf; i++)
    for (long q = head[i]; q >= 0; q = recs[q].next) recs[q].merged = 1;
  for (size_t j = 0; ok && j < n; j++) {
    const Rec *r = &recs[j];
    if (r->f && r->f->type == PROTOBUF_C_TYPE_MESSAGE && r->wire == 2) {
      if (r->f->label == PROTOBUF_C_LABEL_REPEATED || !r->merged) { /* one occurrence, rewritten inside */
        ok = emit_merged(o, r->f, &r->content, 1);
        continue;
      }
      size_t i = (size_t)(r->f - desc->fields);
      if (tail[i] != (long)j) continue; /* merged into the last occurrence */
      size_t count = 0;
      for (long q = head[i]; q >= 0; q = recs[q].next) count++;
      Part *occ = malloc(count * sizeof *occ);
      if (!occ) {
        ok = 0;
        break;
      }
      count = 0;
      for (long q = head[i]; q >= 0; q = recs[q].next) occ[count++] = recs[q].content;
      ok = emit_merged(o, r->f, occ, count);
      free(occ);
    } else {
      out_put(o, r->start, r->size);
    }
  }
  free(recs);
  free(head);
  free(tail);
  return ok && !o->failed;
}

uint8_t *osi_pbc_merge_fields(const uint8_t *bytes, size_t len, size_t *out_len) {
  Out o = {NULL, 0, 0, 0};
  Part whole = {bytes, len};
  if (!merge_msg(&o, &onnx__model_proto__descriptor, &whole, 1)) {
    free(o.p);
    return NULL;
  }
  *out_len = o.n;
  return o.p ? o.p : malloc(1);
}
