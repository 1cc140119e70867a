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
  free(n->index);
  free(n->names);
  n->index = NULL;
  n->names = NULL;
  n->cap = n->count = n->cap_names = 0;
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

/* Doubles the index (at least 1024 slots; at most 2^32, so that the 32
 * bits of hash kept place a name in it), and the names with it; 0 without
 * memory. */
static int grow(OsiNameInterner *n) {
  size_t cap = n->cap ? n->cap * 2 : 1024;
  if (cap > SIZE_MAX / sizeof(OsiNameIndex) || cap - 1 > UINT32_MAX) return 0;
  if (n->cap_names < cap / 2) {
    OsiNameSlot *names = realloc(n->names, cap / 2 * sizeof *names);
    if (!names) return 0;
    n->names = names;
    n->cap_names = cap / 2;
  }
  OsiNameIndex *index = calloc(cap, sizeof *index);
  if (!index) return 0;
  for (size_t i = 0; i < n->cap; i++) {
    if (!n->index[i].id) continue;
    size_t j = (size_t)n->index[i].hash & (cap - 1);
    while (index[j].id) j = (j + 1) & (cap - 1);
    index[j] = n->index[i];
  }
  free(n->index);
  n->index = index;
  n->cap = cap;
  return 1;
}

void osi_names_reserve(OsiNameInterner *n, size_t count) {
  /* (without the memory, interning grows the table later, or goes on
   * without it) */
  while (count < SIZE_MAX / 4 && (count + 1) * 2 > n->cap && grow(n)) {
  }
}

const char *osi_names_intern(OsiNameInterner *n, const char *s, size_t len) {
  if (len == 0) return "";
  /* Without room in the table, a plain copy (not shared: a lookup then
   * compares the strings, as for any name not interned). */
  if ((n->count + 1) * 2 > n->cap || len > UINT32_MAX) { /* (one test on the way of most names) */
    if (len > UINT32_MAX || n->count + 1 >= UINT32_MAX || ((n->count + 1) * 2 > n->cap && !grow(n))) {
      n->incomplete = 1;
      return osi_arena_strndup(n->arena, s, len);
    }
  }
  uint32_t h = (uint32_t)osi_str_hash(s, len);
  OsiNameSlot *r = &n->recent[(h ^ (h >> 8)) & 255];
  if (r->name && r->hash == h && r->len == len && osi_bytes_equal(r->name, s, len)) return r->name;
  size_t i = (size_t)h & (n->cap - 1);
  for (; n->index[i].id; i = (i + 1) & (n->cap - 1)) {
    if (n->index[i].hash != h) continue;
    const OsiNameSlot *e = &n->names[n->index[i].id - 1];
    if (e->len == len && osi_bytes_equal(e->name, s, len)) {
      *r = *e;
      return r->name;
    }
  }
  uint32_t id = (uint32_t)n->count + 1;
  char *p = copy(n, s, len, id);
  if (!p) return NULL;
  n->names[n->count++] = (OsiNameSlot){p, h, (uint32_t)len};
  n->index[i] = (OsiNameIndex){h, id};
  *r = n->names[id - 1];
  return p;
}

/* osi_names_intern_few past the set's first way (out of line: the hit on
 * the first way, most calls, saves no registers). */
__attribute__((noinline)) static const char *few_miss(OsiNameInterner *n, OsiNameSlot *c, const char *s,
                                                      size_t len) {
  if (c[1].name && c[1].len == len && osi_bytes_equal(c[1].name, s, len)) {
    OsiNameSlot hit = c[1];
    c[1] = c[0];
    c[0] = hit;
    return hit.name;
  }
  const char *p = osi_names_intern(n, s, len);
  if (p && !n->incomplete && len <= UINT32_MAX) {
    c[1] = c[0];
    c[0] = (OsiNameSlot){p, 0, (uint32_t)len};
  }
  return p;
}

const char *osi_names_intern_few(OsiNameInterner *n, const char *s, size_t len) {
  /* Once incomplete, interning may copy instead of sharing: no shortcut. */
  if (len == 0 || n->incomplete) return osi_names_intern(n, s, len);
  const unsigned char *u = (const unsigned char *)s;
  /* Two ways a set, the one used last first: two op types of a model that
   * fall in one set (a CNN's Add and BatchNormalization did, in a cache of
   * one way: every third node a miss) both stay. */
  OsiNameSlot *c = n->few[((unsigned)len * 7u ^ u[0] ^ (unsigned)u[len - 1] << 2) & 15];
  if (c[0].name && c[0].len == len && osi_bytes_equal(c[0].name, s, len)) return c[0].name;
  return few_miss(n, c, s, len);
}

uint32_t osi_names_id_limit(const OsiNameInterner *n) {
  return n->incomplete ? 0 : (uint32_t)n->count + 1;
}
