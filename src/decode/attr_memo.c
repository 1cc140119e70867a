#include "decode/attr_memo.h"

#include <stdlib.h>
#include <string.h>

#include "base/str_hash.h"

/* 1,024 slots of 176 bytes: a model's distinct short attributes are a few
 * dozen to a few hundred. */
#define SLOTS 1024

struct OsiAttrMemoSlot {
  uint32_t hash;
  uint32_t len; /* 0: empty */
  OsiAttr attr;
  uint8_t bytes[OSI_ATTR_MEMO_MAX_BYTES];
};

static size_t slot_of(uint32_t hash) { return (size_t)(hash ^ (hash >> 16)) & (SLOTS - 1); }

const OsiAttr *osi_attr_memo_find(const OsiAttrMemo *m, const uint8_t *p, size_t len, uint32_t *hash) {
  if (len == 0 || len > OSI_ATTR_MEMO_MAX_BYTES) return NULL;
  uint32_t h = (uint32_t)osi_str_hash((const char *)p, len);
  *hash = h;
  if (!m->slots) return NULL;
  const OsiAttrMemoSlot *s = &m->slots[slot_of(h)];
  return s->hash == h && s->len == len && osi_bytes_equal(s->bytes, p, len) ? &s->attr : NULL;
}

void osi_attr_memo_put(OsiAttrMemo *m, const uint8_t *p, size_t len, uint32_t hash, const OsiAttr *a) {
  if (len == 0 || len > OSI_ATTR_MEMO_MAX_BYTES || m->failed) return;
  if (!m->slots && !(m->slots = calloc(SLOTS, sizeof *m->slots))) {
    m->failed = 1;
    return;
  }
  OsiAttrMemoSlot *s = &m->slots[slot_of(hash)];
  s->hash = hash;
  s->len = (uint32_t)len;
  s->attr = *a;
  memcpy(s->bytes, p, len);
}

void osi_attr_memo_free(OsiAttrMemo *m) {
  free(m->slots);
  m->slots = NULL;
}
