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
 * The weights. The scan also notes every TensorProto whose content
 * inference never keeps (osi_tensor_wants_data: its type and dims decide,
 * and they are in its own fields), with the bytes its raw_data and
 * string_data take; pbc_rewrite.c can then drop those payloads before
 * protobuf-c, which copies every bytes field, unpacks the rest.
 */
#include "decode/pbc_prescan.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decode/model_build.h"
#include "decode/pbc_wire.h"
#include "decode/tensor_data.h"
#include "base/str_hash.h"
#include "base/thread_local.h"
#include "onnx_shapes.pb-c.h"

/* Section - Scan */

/* A message-typed field pass 1 met, for pass 2 to descend into. */
typedef struct Sub {
  const ProtobufCMessageDescriptor *desc;
  const uint8_t *p;
  size_t len;
} Sub;

/* An AttributeProto scanned whole without a finding (no payload noted):
 * another with the same bytes, as deep, has none either. */
typedef struct Scanned {
  const uint8_t *p; /* NULL: empty */
  uint32_t len, hash;
  int depth, nest;
} Scanned;

/* Exporters repeat attributes (a GPT-2 export: 5,131, 35 distinct); those
 * up to this long are remembered in SCANNED_SLOTS slots, by hash. */
#define SCANNED_MAX_BYTES 256
#define SCANNED_SLOTS 1024

typedef struct Scan {
  const uint8_t *base;
  size_t len;
  OsiDecodeError *err;
  int merge;
  OsiPbcStrips *strips; /* NULL: not collected */
  /* The submessages of the messages on the path, each message's above its
   * parent's: pass 2 reads them from here instead of parsing the fields
   * again (a graph's tens of thousands of nodes). */
  Sub *subs;
  size_t n_subs, cap_subs;
  Scanned *scanned; /* SCANNED_SLOTS, malloc'ed on first use; NULL: none */
  /* NodeProto's fields 1-15 (one-byte keys), by number: NODE_STRING,
   * NODE_MESSAGES (repeated, e.g. its attributes) or 0 (any other). */
  unsigned char node_field[16];
} Scan;

#define NODE_STRING 1
#define NODE_MESSAGES 2

/* Whether the attribute `sub` (at `depth`, under `nest` graphs and types)
 * has the bytes of one scanned before without a finding; else, when it
 * may be remembered, *slot is where (and *hash its hash). */
static int scanned_before(Scan *s, const Sub *sub, int depth, int nest, Scanned **slot, uint32_t *hash) {
  *slot = NULL;
  if (sub->len == 0 || sub->len > SCANNED_MAX_BYTES) return 0;
  if (!s->scanned && !(s->scanned = calloc(SCANNED_SLOTS, sizeof *s->scanned))) return 0;
  uint32_t h = (uint32_t)osi_str_hash((const char *)sub->p, sub->len);
  Scanned *e = &s->scanned[(h ^ (h >> 16)) & (SCANNED_SLOTS - 1)];
  if (e->p && e->hash == h && e->len == sub->len && e->depth == depth && e->nest == nest &&
      osi_bytes_equal(e->p, sub->p, sub->len))
    return 1;
  *slot = e;
  *hash = h;
  return 0;
}

static int push_sub(Scan *s, const ProtobufCMessageDescriptor *desc, const uint8_t *p, size_t len) {
  if (s->n_subs == s->cap_subs) {
    size_t cap = s->cap_subs ? s->cap_subs * 2 : 256;
    Sub *subs = realloc(s->subs, cap * sizeof *subs);
    if (!subs) return osi_mb_fail(s->err, OSI_ERR_NOMEM, "out of memory while decoding the model");
    s->subs = subs;
    s->cap_subs = cap;
  }
  s->subs[s->n_subs++] = (Sub){desc, p, len};
  return 1;
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

/* Whether the n bytes at p hold a 0: memchr(p, 0, n) != NULL, 8 bytes at a
 * time (musl's memchr, in wasm, goes 4 at a time after a byte loop to
 * alignment; every name of every node goes through here). The last 1-8
 * bytes are one load ending at the end (overlapping bytes already looked
 * at), a string of 4-7 bytes two 4-byte loads. */
#define ZERO_BYTE64(w) (((w) - 0x0101010101010101ull) & ~(w) & 0x8080808080808080ull)
#define ZERO_BYTE32(w) (((w) - 0x01010101u) & ~(w) & 0x80808080u)
static inline int has_nul(const uint8_t *p, size_t n) {
  if (n >= 8) {
    uint64_t w;
    for (; n > 8; n -= 8, p += 8) {
      memcpy(&w, p, 8);
      if (ZERO_BYTE64(w)) return 1;
    }
    memcpy(&w, p + n - 8, 8);
    return ZERO_BYTE64(w) != 0;
  }
  if (n >= 4) {
    uint32_t a, b;
    memcpy(&a, p, 4);
    memcpy(&b, p + n - 4, 4);
    return (ZERO_BYTE32(a) | ZERO_BYTE32(b)) != 0;
  }
  for (; n; n--, p++)
    if (!*p) return 1;
  return 0;
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

/* Bytes a TensorProto's payload fields (raw_data, string_data) take, when
 * inference never keeps its content; 0 when it may, or when its fields say
 * nothing certain (then nothing is dropped). The type and dims are read as
 * protobuf-c reads them: the last data_type, truncated to 32 bits; every
 * dims number, packed or not. Only payloads of wire type 2 count: bytes that
 * protobuf-c would refuse stay, for it to refuse. */
static size_t droppable_payload(const uint8_t *p, size_t len) {
  int32_t dtype = 0;
  int64_t dims[OSI_MAX_RANK];
  int32_t rank = 0;
  size_t payload = 0;
  for (size_t at = 0; at < len;) {
    const uint8_t *field = p + at;
    uint64_t key = 0, v = 0;
    at += pbc_varint1(p + at, len - at, &key); /* the scan found every field well-formed */
    uint32_t id = (uint32_t)(key >> 3), wire = (uint32_t)(key & 7);
    if (wire == 0) {
      at += pbc_varint1(p + at, len - at, &v);
      if (id == 2) dtype = (int32_t)(uint32_t)v;
      if (id == 1 && rank < OSI_MAX_RANK) dims[rank] = (int64_t)v;
      if (id == 1 && rank++ >= OSI_MAX_RANK) return 0; /* refused by the decoder anyway */
    } else if (wire == 2) {
      at += pbc_varint1(p + at, len - at, &v);
      const uint8_t *end = p + at + v;
      if (id == 1) { /* packed dims */
        for (const uint8_t *q = p + at; q < end;) {
          uint64_t d;
          size_t used = pbc_varint(q, (size_t)(end - q), &d);
          if (!used || rank >= OSI_MAX_RANK) return 0;
          dims[rank++] = (int64_t)d;
          q += used;
        }
      } else if (id == 2) {
        return 0; /* protobuf-c refuses it */
      } else if (id == 9 || id == 6) {
        payload += (size_t)(end - field);
      }
      at += (size_t)v;
    } else {
      if (id == 1 || id == 2) return 0; /* protobuf-c refuses these */
      at += wire == 1 ? 8 : 4;
    }
  }
  return osi_tensor_wants_data(dtype, osi_tensor_count(rank, dims)) ? 0 : payload;
}

/* Tensors with less than this in payloads are left alone: dropping a few
 * bytes saves less than writing their messages again costs. And the model
 * is written again only when that saves STRIP_MIN_TOTAL bytes, and an
 * eighth of the model: the rewrite copies everything else once. */
#define STRIP_MIN_PAYLOAD 1024
#define STRIP_MIN_TOTAL ((size_t)256 * 1024)

static OSI_THREAD_LOCAL int strip_always; /* tests: drop every payload the rule allows */

void osi_pbc_strip_always(int on) { strip_always = on; }

int osi_pbc_strip_pays(const OsiPbcStrips *strips, size_t len) {
  if (strips->failed || !strips->count) return 0;
  return strip_always || (strips->bytes >= STRIP_MIN_TOTAL && strips->bytes >= len / 8);
}

static void note_tensor(Scan *s, const uint8_t *p, size_t len) {
  OsiPbcStrips *st = s->strips;
  if (!st || st->failed) return;
  size_t drop = droppable_payload(p, len);
  if (drop < (strip_always ? 1 : STRIP_MIN_PAYLOAD)) return;
  if (st->count == st->cap) {
    size_t cap = st->cap ? st->cap * 2 : 64;
    OsiPbcStrip *items = realloc(st->items, cap * sizeof *items);
    if (!items) {
      st->failed = 1; /* nothing is dropped then; the decode goes on */
      return;
    }
    st->items = items;
    st->cap = cap;
  }
  st->items[st->count++] = (OsiPbcStrip){p, len};
  st->bytes += drop;
}

static void note_node(Scan *s, const uint8_t *p, size_t len) {
  OsiPbcStrips *st = s->strips;
  if (!st || st->nodes_failed) return;
  if (st->n_nodes == st->cap_nodes) {
    size_t cap = st->cap_nodes ? st->cap_nodes * 2 : 256;
    OsiPbcStrip *nodes = realloc(st->nodes, cap * sizeof *nodes);
    if (!nodes) {
      st->nodes_failed = 1; /* the nodes are then unpacked from a copy */
      return;
    }
    st->nodes = nodes;
    st->cap_nodes = cap;
  }
  st->nodes[st->n_nodes++] = (OsiPbcStrip){p, len};
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
  /* ModelProto.graph: the one GraphProto two messages deep */
  int model_graph = depth == 2 && desc == &onnx__graph_proto__descriptor;
  uint64_t seen = 0; /* non-repeated message fields met, by index */
  size_t subs = s->n_subs; /* this message's submessages: s->subs[subs ..] */
  int node = desc == &onnx__node_proto__descriptor;
  for (size_t at = 0; at < len;) {
    const uint8_t *field = p + at;
    size_t avail = len - at;
    uint64_t key, n;
    /* A node's names and attributes (most fields of a model), with a
     * one-byte key and length and within the message: what the general
     * path below does for them, without looking the field up. */
    if (node && avail >= 2 && field[0] < 0x80 && (field[0] & 7) == 2 && field[1] < 0x80 &&
        field[1] <= avail - 2) {
      unsigned kind = s->node_field[field[0] >> 3];
      const uint8_t *v = field + 2;
      size_t vlen = field[1];
      if (kind == NODE_STRING) {
        if (has_nul(v, vlen)) {
          osi_mb_nul_in_string(s->err, (uint64_t)(field - s->base), (const char *)v, vlen);
          return 0;
        }
        at += 2 + vlen;
        continue;
      }
      if (kind == NODE_MESSAGES) {
        if (!push_sub(s, pbc_field_of(desc, field[0])->descriptor, v, vlen)) return 0;
        at += 2 + vlen;
        continue;
      }
    }
    size_t used = pbc_varint1(field, avail, &key);
    if (!used || used > 5) {
      if (used || avail > 5) return refuse(s, field, "a field key is longer than 5 bytes");
      return past_end(s, field, end, 0, 0);
    }
    if (used == 1 ? key < 8 : scan_bad_key(field, avail))
      return refuse(s, field, "a field key overflows 32 bits or names field 0");
    at += used;
    avail -= used;
    const ProtobufCFieldDescriptor *f = pbc_field_of(desc, key);
    switch (key & 7) {
    case 0:
      if (!(used = pbc_varint1(p + at, avail, &n))) {
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
      used = pbc_varint1(p + at, avail, &n);
      if (!used || used > 5) {
        if (used || avail > 5) return refuse(s, field, "a length is longer than 5 bytes");
        return past_end(s, field, end, 0, 0);
      }
      if (n > INT_MAX) return refuse(s, field, "a length is over 2 GiB");
      if (n > avail - used) return past_end(s, field, end, 1, n);
      at += used;
      if (f && f->type == PROTOBUF_C_TYPE_STRING && has_nul(p + at, (size_t)n)) {
        osi_mb_nul_in_string(s->err, (uint64_t)(field - s->base), (const char *)(p + at), (size_t)n);
        return 0;
      }
      if (f && f->type == PROTOBUF_C_TYPE_MESSAGE && !push_sub(s, f->descriptor, p + at, (size_t)n))
        return 0;
      if (model_graph && f && f->id == 1) note_node(s, p + at, (size_t)n);
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
  /* Pass 2: descend into the message-typed fields (all well-formed now), in
   * order; each one's own submessages go above them and are gone when it
   * returns. */
  size_t last = s->n_subs;
  for (size_t i = subs; i < last; i++) {
    Sub sub = s->subs[i]; /* (a copy: deeper pushes may move the array) */
    Scanned *slot = NULL;
    uint32_t hash = 0;
    if (sub.desc == &onnx__attribute_proto__descriptor &&
        scanned_before(s, &sub, depth + 1, nest, &slot, &hash))
      continue;
    size_t noted = s->strips ? s->strips->count : 0;
    if (!scan_msg(s, sub.desc, sub.p, sub.len, depth + 1, nest)) return 0;
    if (slot && (!s->strips || (s->strips->count == noted && !s->strips->failed)))
      *slot = (Scanned){sub.p, (uint32_t)sub.len, hash, depth + 1, nest};
  }
  s->n_subs = subs;
  /* After its descent: the tensors a rewrite drops from are in byte order. */
  if (desc == &onnx__tensor_proto__descriptor) note_tensor(s, p, len);
  return 1;
}

int osi_pbc_prescan(const uint8_t *bytes, size_t len, OsiDecodeError *err, int *merge,
                    OsiPbcStrips *strips) {
  Scan s = {bytes ? bytes : (const uint8_t *)"", len, err, 0, strips, NULL, 0, 0, NULL, {0}};
  for (unsigned id = 1; id < 16; id++) {
    const ProtobufCFieldDescriptor *f = pbc_field_of(&onnx__node_proto__descriptor, (uint64_t)id << 3 | 2);
    if (f && f->type == PROTOBUF_C_TYPE_STRING)
      s.node_field[id] = NODE_STRING;
    else if (f && f->type == PROTOBUF_C_TYPE_MESSAGE && f->label == PROTOBUF_C_LABEL_REPEATED)
      s.node_field[id] = NODE_MESSAGES;
  }
  int ok = scan_msg(&s, &onnx__model_proto__descriptor, s.base, len, 1, 0);
  free(s.subs);
  free(s.scanned);
  *merge = s.merge;
  return ok;
}

