/*
 * The bytes protobuf-c unpacks, written again (decode_pbc.c), after the
 * pre-scan (pbc_prescan.c) walked them and found them well-formed.
 *
 * The merge. A non-repeated message field written more than once must be
 * merged. protobuf-c's merge of two occurrences differs from protobuf's
 * specification in two ways: a oneof member seen again replaces the earlier
 * one instead of merging with it (TypeProto's members), and an empty bytes
 * field loses to an earlier non-empty one (raw_data). When the scan saw such
 * a field, osi_pbc_merge_fields rewrites the bytes with each of them written
 * once, its occurrences concatenated (a concatenation of serialized messages
 * is their merge), recursively; protobuf-c then never merges anything.
 *
 * The weights. protobuf-c copies every bytes field it unpacks, so a model's
 * weights would be copied once more into the heap (in wasm, a heap that
 * never shrinks) only to be dropped unread. osi_pbc_strip_payloads writes
 * the model without the raw_data and string_data of the tensors the scan
 * found inference never keeps: what protobuf-c then builds is the same but
 * for those payloads, which nothing reads (osi_tensor_keep_data decides from
 * the type and dims alone). Only the messages holding such a tensor are
 * written again; every other field is copied as it is.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "decode/pbc_prescan.h"
#include "decode/pbc_wire.h"
#include "onnx_shapes.pb-c.h"

/* Section - Output */

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

/* Section - Merge
 *
 * Every part below is an occurrence of a field in the original bytes, which
 * the scan has walked and found well-formed. */

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
      size_t used = pbc_varint(p + at, len - at, &key);
      if (!used) {
        ok = 0;
        break;
      }
      at += used;
      r.wire = (int)(key & 7);
      r.f = pbc_field_of(desc, key);
      switch (r.wire) {
      case 0: used = pbc_varint(p + at, len - at, &v); at += used; ok = used != 0; break;
      case 1: at += 8; break;
      case 5: at += 4; break;
      case 2:
        used = pbc_varint(p + at, len - at, &v);
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

/* Section - Strip */

typedef struct Strip {
  const OsiPbcStrips *strips;
  size_t next;      /* the first strip not written yet */
  size_t n_drops;   /* strips->nodes[next_drop .. n_drops): fields left out */
  size_t next_drop;
} Strip;

/* Writes the 5-byte length reserved at len_at for what follows it. */
static int patch_len5(Out *o, size_t len_at) {
  size_t len = o->n - len_at - 5;
  if (o->failed || len > INT_MAX) return 0;
  for (int i = 0; i < 5; i++) o->p[len_at + (size_t)i] = (uint8_t)((len >> (7 * i)) & 0x7f) | (i < 4 ? 0x80 : 0);
  return 1;
}

/* A tensor's fields but its raw_data and string_data (wire type 2, the ones
 * droppable_payload counted), as field `key` of its parent. */
static void strip_tensor(Out *o, uint64_t key, const uint8_t *p, size_t len) {
  out_varint(o, key);
  size_t len_at = o->n;
  out_put(o, "\x80\x80\x80\x80\x00", 5);
  for (size_t at = 0; at < len;) {
    size_t start = at;
    uint64_t k = 0, v = 0;
    at += pbc_varint1(p + at, len - at, &k);
    switch (k & 7) {
    case 0: at += pbc_varint1(p + at, len - at, &v); break;
    case 1: at += 8; break;
    case 5: at += 4; break;
    default: at += pbc_varint1(p + at, len - at, &v); at += (size_t)v; break;
    }
    uint64_t id = k >> 3;
    if ((k & 7) == 2 && (id == 9 || id == 6)) continue;
    out_put(o, p + start, at - start);
  }
  patch_len5(o, len_at);
}

/* The fields of a message (desc, bytes p[0..len)) with the tensors to strip
 * inside it written without their payloads. */
static int strip_msg(Strip *st, Out *o, const ProtobufCMessageDescriptor *desc, const uint8_t *p,
                     size_t len) {
  const OsiPbcStrip *items = st->strips->items;
  size_t count = st->strips->count;
  for (size_t at = 0; at < len && !o->failed;) {
    size_t start = at;
    uint64_t key = 0, v = 0;
    at += pbc_varint1(p + at, len - at, &key);
    const uint8_t *content = NULL;
    switch (key & 7) {
    case 0: at += pbc_varint1(p + at, len - at, &v); break;
    case 1: at += 8; break;
    case 5: at += 4; break;
    default:
      at += pbc_varint1(p + at, len - at, &v);
      content = p + at;
      at += (size_t)v;
      break;
    }
    const OsiPbcStrip *drop = st->next_drop < st->n_drops ? &st->strips->nodes[st->next_drop] : NULL;
    if (drop && content == drop->start) { /* left out, with the strips inside it */
      st->next_drop++;
      while (st->next < count && items[st->next].start < p + at) st->next++;
      continue;
    }
    /* no strip and no field left out starts inside this field: copied as it is */
    if (!content || ((st->next >= count || items[st->next].start >= p + at) &&
                     (!drop || drop->start >= p + at))) {
      out_put(o, p + start, at - start);
      continue;
    }
    const ProtobufCFieldDescriptor *f = pbc_field_of(desc, key);
    if (!f || f->type != PROTOBUF_C_TYPE_MESSAGE) return 0; /* the scan notes only message fields */
    if (st->next < count && items[st->next].start == content && f->descriptor == &onnx__tensor_proto__descriptor) {
      strip_tensor(o, key, content, (size_t)v);
      st->next++;
      continue;
    }
    out_varint(o, key);
    size_t len_at = o->n;
    out_put(o, "\x80\x80\x80\x80\x00", 5);
    if (!strip_msg(st, o, f->descriptor, content, (size_t)v) || !patch_len5(o, len_at)) return 0;
  }
  return !o->failed;
}

/* The message `desc` at bytes[0..len) written again, with st's strips and
 * fields left out, into `cap` bytes to begin with (strip_msg grows them
 * when needed). */
static uint8_t *strip_all(Strip *st, const ProtobufCMessageDescriptor *desc, const uint8_t *bytes,
                          size_t len, size_t cap, size_t *out_len) {
  Out o = {malloc(cap), 0, cap, 0};
  if (!o.p) return NULL;
  if (!strip_msg(st, &o, desc, bytes, len)) {
    free(o.p);
    return NULL;
  }
  *out_len = o.n;
  return o.p;
}

/* Room for the model without `drops` bytes and the strips: each message
 * written again may take 4 bytes more for its length. */
static size_t model_room(const OsiPbcStrips *strips, size_t len, size_t drops) {
  size_t left = strips->bytes + drops <= len ? len - strips->bytes - drops : len;
  return left + 64 * strips->count + 256;
}

uint8_t *osi_pbc_strip_payloads(const uint8_t *bytes, size_t len, const OsiPbcStrips *strips,
                                size_t *out_len) {
  Strip st = {strips, 0, 0, 0};
  uint8_t *out = strip_all(&st, &onnx__model_proto__descriptor, bytes, len, model_room(strips, len, 0), out_len);
  if (out && st.next != strips->count) {
    free(out);
    return NULL;
  }
  return out;
}

uint8_t *osi_pbc_strip_nodes(const uint8_t *bytes, size_t len, const OsiPbcStrips *strips,
                             size_t *out_len) {
  Strip st = {strips, 0, strips->n_nodes, 0};
  size_t drops = 0;
  for (size_t i = 0; i < strips->n_nodes; i++) drops += strips->nodes[i].len;
  uint8_t *out = strip_all(&st, &onnx__model_proto__descriptor, bytes, len, model_room(strips, len, drops), out_len);
  if (out && (st.next != strips->count || st.next_drop != strips->n_nodes)) {
    free(out);
    return NULL;
  }
  return out;
}

uint8_t *osi_pbc_strip_node(const OsiPbcStrips *strips, const OsiPbcStrip *node, size_t *next,
                            size_t *out_len) {
  Strip st = {strips, *next, 0, 0};
  uint8_t *out = strip_all(&st, &onnx__node_proto__descriptor, node->start, node->len, node->len + 256, out_len);
  *next = st.next;
  return out;
}
