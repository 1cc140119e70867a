#include "decode/pbc_node_fields.h"

#include <stdlib.h>

#include "decode/pbc_wire.h"

/* NodeProto's field numbers (onnx.proto; protobuf numbers never change). */
enum { INPUT = 1, OUTPUT = 2, NAME = 3, OP_TYPE = 4, ATTRIBUTE = 5, DOMAIN = 7, OVERLOAD = 8 };

static int push(OsiPbcSpans *s, const uint8_t *p, size_t len) {
  if (s->n == s->cap) {
    size_t cap = s->cap ? s->cap * 2 : 16;
    OsiPbcSpan *v = cap <= SIZE_MAX / sizeof *v ? realloc(s->v, cap * sizeof *v) : NULL;
    if (!v) return 0;
    s->v = v;
    s->cap = cap;
  }
  s->v[s->n++] = (OsiPbcSpan){p, len};
  return 1;
}

OsiPbcNodeRead osi_pbc_node_fields_read(OsiPbcNodeFields *f, const uint8_t *p, size_t len) {
  f->name = f->op_type = f->domain = f->overload = (OsiPbcSpan){NULL, 0};
  f->input.n = f->output.n = f->attribute.n = 0;
  for (size_t at = 0; at < len;) {
    size_t avail = len - at;
    const uint8_t *q = p + at;
    /* Most fields: a known field with a one-byte key and length, within
     * the span (what the general path below reads for them, in fewer
     * steps). */
    if (avail >= 2 && q[1] < 0x80 && q[1] <= avail - 2) {
      OsiPbcSpan span = {q + 2, q[1]};
      switch (q[0]) {
      case INPUT << 3 | 2:
        if (!push(&f->input, span.p, span.len)) return OSI_PBC_NODE_NOMEM;
        at += 2 + span.len;
        continue;
      case OUTPUT << 3 | 2:
        if (!push(&f->output, span.p, span.len)) return OSI_PBC_NODE_NOMEM;
        at += 2 + span.len;
        continue;
      case ATTRIBUTE << 3 | 2:
        if (!push(&f->attribute, span.p, span.len)) return OSI_PBC_NODE_NOMEM;
        at += 2 + span.len;
        continue;
      case NAME << 3 | 2: f->name = span; at += 2 + span.len; continue;
      case OP_TYPE << 3 | 2: f->op_type = span; at += 2 + span.len; continue;
      case DOMAIN << 3 | 2: f->domain = span; at += 2 + span.len; continue;
      case OVERLOAD << 3 | 2: f->overload = span; at += 2 + span.len; continue;
      default: break;
      }
    }
    uint64_t key, n = 0;
    /* (protobuf-c reads a key and a length of at most 5 bytes) */
    size_t used = pbc_varint1(p + at, avail < 5 ? avail : 5, &key);
    if (!used || key >> 3 == 0) return OSI_PBC_NODE_REFUSED;
    at += used;
    avail -= used;
    const uint8_t *v = NULL; /* a length-delimited field's bytes */
    switch (key & 7) {
    case 0:
      if (!(used = pbc_varint1(p + at, avail, &n))) return OSI_PBC_NODE_REFUSED;
      at += used;
      break;
    case 1:
    case 5:
      used = (key & 7) == 1 ? 8 : 4;
      if (avail < used) return OSI_PBC_NODE_REFUSED;
      at += used;
      break;
    case 2:
      used = pbc_varint1(p + at, avail < 5 ? avail : 5, &n);
      if (!used || n > avail - used) return OSI_PBC_NODE_REFUSED;
      v = p + at + used;
      at += used + (size_t)n;
      break;
    default: return OSI_PBC_NODE_REFUSED; /* groups, invalid wire types */
    }
    uint64_t id = key >> 3;
    if (id > OVERLOAD || id == 6) continue; /* unknown (6: doc_string, not read) */
    if (!v) return OSI_PBC_NODE_REFUSED;    /* every known field is length-delimited */
    OsiPbcSpan span = {v, (size_t)n};
    switch (id) {
    case INPUT:
      if (!push(&f->input, v, span.len)) return OSI_PBC_NODE_NOMEM;
      break;
    case OUTPUT:
      if (!push(&f->output, v, span.len)) return OSI_PBC_NODE_NOMEM;
      break;
    case ATTRIBUTE:
      if (!push(&f->attribute, v, span.len)) return OSI_PBC_NODE_NOMEM;
      break;
    case NAME: f->name = span; break;
    case OP_TYPE: f->op_type = span; break;
    case DOMAIN: f->domain = span; break;
    default: f->overload = span; break;
    }
  }
  return OSI_PBC_NODE_READ;
}

void osi_pbc_node_fields_free(OsiPbcNodeFields *f) {
  free(f->input.v);
  free(f->output.v);
  free(f->attribute.v);
  f->input = f->output = f->attribute = (OsiPbcSpans){NULL, 0, 0};
}
