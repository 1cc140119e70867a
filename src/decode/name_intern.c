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

static char *copy(OsiNameInterner *n, const char *s, size_t len) {
  if (len + 1 > BLOCK_BYTES / 4) return osi_arena_strndup(n->arena, s, len);
  if (n->block_left < len + 1) {
    n->block = osi_arena_alloc(n->arena, BLOCK_BYTES);
    n->block_left = n->block ? BLOCK_BYTES : 0;
    if (!n->block) return NULL;
  }
  char *p = n->block;
  memcpy(p, s, len);
  p[len] = 0;
  n->block += len + 1;
  n->block_left -= len + 1;
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
  if (len > UINT32_MAX || ((n->count + 1) * 2 > n->cap && !grow(n)))
    return osi_arena_strndup(n->arena, s, len);
  uint32_t h = (uint32_t)osi_str_hash(s, len);
  size_t i = (size_t)h & (n->cap - 1);
  for (; n->slots[i].name; i = (i + 1) & (n->cap - 1))
    if (n->slots[i].hash == h && n->slots[i].len == len && memcmp(n->slots[i].name, s, len) == 0)
      return n->slots[i].name;
  char *p = copy(n, s, len);
  if (!p) return NULL;
  n->slots[i].name = p;
  n->slots[i].hash = h;
  n->slots[i].len = (uint32_t)len;
  n->count++;
  return p;
}
