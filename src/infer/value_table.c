#include "infer/value_table.h"

#include <stdlib.h>
#include <string.h>

#include "base/str_hash.h"

/* osi_str_hash of s; *len gets its length. */
static uint64_t hash_len(const char *s, size_t *len) {
  *len = strlen(s);
  return osi_str_hash(s, *len);
}

uint64_t osi_hash_string(const char *s) {
  size_t len;
  return hash_len(s, &len);
}

int osi_value_table_init(OsiValueTable *t, size_t expected) {
  size_t cap = 16;
  while (cap < expected * 2) cap *= 2;
  t->slots = calloc(cap, sizeof *t->slots);
  t->cap = t->slots ? cap : 0;
  t->count = 0;
  return t->slots != NULL;
}

void osi_value_table_free(OsiValueTable *t) {
  free(t->slots);
  t->slots = NULL;
  t->cap = t->count = 0;
}

/* The slot holding `name` (of `len` bytes), or the empty slot where it
 * would go. */
static size_t find_slot(const OsiValueSlot *slots, size_t cap, const char *name, uint64_t h,
                        size_t len) {
  uint32_t tag = (uint32_t)(h >> 32);
  size_t i = (size_t)h & (cap - 1);
  /* The decoders intern value names, so a name found is usually the same
   * pointer: no string is read (on a 128-layer export each is a miss). */
  while (slots[i].entry && slots[i].name != name &&
         (slots[i].hash != tag || slots[i].len != len || !osi_bytes_equal(slots[i].name, name, len)))
    i = (i + 1) & (cap - 1);
  return i;
}

OsiValueEntry *osi_value_table_get(const OsiValueTable *t, const char *name) {
  if (!t->cap) return NULL;
  size_t len;
  uint64_t h = hash_len(name, &len);
  OsiValueEntry *e = t->slots[find_slot(t->slots, t->cap, name, h, len)].entry;
  return e && !e->pending ? e : NULL;
}

OsiNameKey osi_name_key(const char *name) {
  OsiNameKey k = {name, 0, 0};
  k.hash = hash_len(name, &k.len);
  return k;
}

OsiValueEntry *osi_value_table_find(const OsiValueTable *t, const OsiNameKey *key) {
  if (!t->cap) return NULL;
  return t->slots[find_slot(t->slots, t->cap, key->name, key->hash, key->len)].entry;
}

static int grow(OsiValueTable *t) {
  size_t cap = t->cap * 2;
  OsiValueSlot *slots = calloc(cap, sizeof *slots);
  if (!slots) return 0;
  for (size_t i = 0; i < t->cap; i++) {
    if (!t->slots[i].entry) continue;
    /* Names are distinct: the first empty slot of the probe sequence. The
     * low bits of the full hash are gone, so rehash the name. */
    size_t j = (size_t)osi_hash_string(t->slots[i].name) & (cap - 1);
    while (slots[j].entry) j = (j + 1) & (cap - 1);
    slots[j] = t->slots[i];
  }
  free(t->slots);
  t->slots = slots;
  t->cap = cap;
  return 1;
}

int osi_value_table_put(OsiValueTable *t, OsiValueEntry *entry) {
  if ((t->count + 1) * 2 > t->cap && !grow(t)) return 0;
  size_t len;
  uint64_t h = hash_len(entry->name, &len);
  if (len > UINT32_MAX) return 0;
  size_t i = find_slot(t->slots, t->cap, entry->name, h, len);
  if (!t->slots[i].entry) t->count++;
  t->slots[i].entry = entry;
  t->slots[i].name = entry->name;
  t->slots[i].hash = (uint32_t)(h >> 32);
  t->slots[i].len = (uint32_t)len;
  return 1;
}

OsiValueEntry *osi_value_table_upsert(OsiValueTable *t, const char *name, OsiArena *arena,
                                      int *created) {
  *created = 0;
  if ((t->count + 1) * 2 > t->cap && !grow(t)) return NULL;
  size_t len;
  uint64_t h = hash_len(name, &len);
  if (len > UINT32_MAX) return NULL;
  size_t i = find_slot(t->slots, t->cap, name, h, len);
  if (t->slots[i].entry) return t->slots[i].entry;
  OsiValueEntry *e = osi_arena_alloc(arena, sizeof *e);
  if (!e) return NULL;
  e->name = name;
  t->slots[i].entry = e;
  t->slots[i].name = name;
  t->slots[i].hash = (uint32_t)(h >> 32);
  t->slots[i].len = (uint32_t)len;
  t->count++;
  *created = 1;
  return e;
}
