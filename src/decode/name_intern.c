#include "decode/name_intern.h"

#include <stdlib.h>
#include <string.h>

#include "base/str_hash.h"

/* Arena memory taken at a time for copies; a longer name gets its own. */
#define BLOCK_BYTES 16384

void osi_names_init(OsiNameInterner *n, OsiArena *arena) {
  memset(n, 0, sizeof *n);
  n->arena = arena;
}

void osi_names_free(OsiNameInterner *n) {
  free(n->slots);
  n->slots = NULL;
  n->cap = n->count = 0;
}

/* A copy of s after its 4-byte id. */
static char *copy(OsiNameInterner *n, const char *s, size_t len, uint32_t id) {
  size_t need = sizeof id + len + 1;
  char *at;
  if (need > BLOCK_BYTES / 4) {
    at = osi_arena_alloc(n->arena, need);
  } else {
    if (n->block_left < need) {
      n->block = osi_arena_alloc(n->arena, BLOCK_BYTES);
      n->block_left = n->block ? BLOCK_BYTES : 0;
    }
    at = n->block;
    if (at) n->block += need, n->block_left -= need;
  }
  if (!at) return NULL;
  memcpy(at, &id, sizeof id);
  char *p = at + sizeof id;
  memcpy(p, s, len);
  p[len] = 0;
  return p;
}

/* Doubles the table (at least 1024 slots; at most 2^32, so that the 32
 * bits of hash kept place a name in it); 0 without memory. */
static int grow(OsiNameInterner *n) {
  size_t cap = n->cap ? n->cap * 2 : 1024;
  int fits = cap <= SIZE_MAX / sizeof(OsiNameSlot) && cap - 1 <= UINT32_MAX;
  OsiNameSlot *slots = fits ? calloc(cap, sizeof *slots) : NULL;
  if (!slots) return 0;
  for (size_t i = 0; i < n->cap; i++) {
    if (!n->slots[i].name) continue;
    size_t j = (size_t)n->slots[i].hash & (cap - 1);
    while (slots[j].name) j = (j + 1) & (cap - 1);
    slots[j] = n->slots[i];
  }
  free(n->slots);
  n->slots = slots;
  n->cap = cap;
  return 1;
}

const char *osi_names_intern(OsiNameInterner *n, const char *s, size_t len) {
  if (len == 0) return "";
  /* Without room in the table, a plain copy (not shared: a lookup then
   * compares the strings, as for any name not interned). */
  if (len > UINT32_MAX || n->count + 1 >= UINT32_MAX || ((n->count + 1) * 2 > n->cap && !grow(n))) {
    n->incomplete = 1;
    return osi_arena_strndup(n->arena, s, len);
  }
  uint32_t h = (uint32_t)osi_str_hash(s, len);
  OsiNameSlot *r = &n->recent[(h ^ (h >> 8)) & 255];
  if (r->name && r->hash == h && r->len == len && memcmp(r->name, s, len) == 0) return r->name;
  size_t i = (size_t)h & (n->cap - 1);
  for (; n->slots[i].name; i = (i + 1) & (n->cap - 1))
    if (n->slots[i].hash == h && n->slots[i].len == len && memcmp(n->slots[i].name, s, len) == 0) {
      *r = n->slots[i];
      return r->name;
    }
  char *p = copy(n, s, len, (uint32_t)n->count + 1);
  if (!p) return NULL;
  n->slots[i].name = p;
  n->slots[i].hash = h;
  n->slots[i].len = (uint32_t)len;
  n->count++;
  *r = n->slots[i];
  return p;
}

uint32_t osi_names_id_limit(const OsiNameInterner *n) {
  return n->incomplete ? 0 : (uint32_t)n->count + 1;
}
