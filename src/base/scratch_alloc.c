#include "base/scratch_alloc.h"

#include <stdint.h>
#include <stdlib.h>

#define CHUNK_BYTES ((size_t)256 * 1024)

struct OsiScratchChunk {
  OsiScratchChunk *next;
  max_align_t data[];
};

static size_t slot_of(const OsiScratch *s, const void *p) {
  uint64_t h = (uint64_t)(uintptr_t)p * 0x9e3779b97f4a7c15ull;
  return (size_t)(h >> 32) & (s->big_cap - 1);
}

static int big_add(OsiScratch *s, void *p) {
  if ((s->big_count + 1) * 2 > s->big_cap) {
    size_t cap = s->big_cap ? s->big_cap * 2 : 64;
    void **old = s->big, **slots = calloc(cap, sizeof *slots);
    if (!slots) return 0;
    size_t old_cap = s->big_cap;
    s->big = slots;
    s->big_cap = cap;
    for (size_t i = 0; i < old_cap; i++) {
      if (!old[i]) continue;
      size_t j = slot_of(s, old[i]);
      while (slots[j]) j = (j + 1) & (cap - 1);
      slots[j] = old[i];
    }
    free(old);
  }
  size_t j = slot_of(s, p);
  while (s->big[j]) j = (j + 1) & (s->big_cap - 1);
  s->big[j] = p;
  s->big_count++;
  return 1;
}

/* Removes p if it is a large block (backward-shift deletion keeps every
 * probe sequence unbroken); 0 if p is not one. */
static int big_remove(OsiScratch *s, const void *p) {
  if (!s->big_cap) return 0;
  size_t mask = s->big_cap - 1, i = slot_of(s, p);
  while (s->big[i] != p) {
    if (!s->big[i]) return 0;
    i = (i + 1) & mask;
  }
  for (size_t j = (i + 1) & mask; s->big[j]; j = (j + 1) & mask) {
    size_t home = slot_of(s, s->big[j]);
    /* s->big[j] may fill the hole at i unless its home lies in (i, j]. */
    if (((j - home) & mask) >= ((j - i) & mask)) {
      s->big[i] = s->big[j];
      i = j;
    }
  }
  s->big[i] = NULL;
  s->big_count--;
  return 1;
}

/* What osi_scratch_alloc does when the block is large, or the newest chunk
 * has no room for it (size: rounded already, when small). Kept out of line:
 * inlined, it made every call save and restore five registers. */
#if defined(__GNUC__)
__attribute__((noinline))
#endif
static void *alloc_slow(OsiScratch *s, size_t size) {
  if (size > OSI_SCRATCH_SMALL) {
    void *p = malloc(size);
    if (p && !big_add(s, p)) {
      free(p);
      return NULL;
    }
    return p;
  }
  OsiScratchChunk *c = malloc(sizeof *c + CHUNK_BYTES);
  if (!c) return NULL;
  c->next = s->chunks;
  s->chunks = c;
  s->at = (char *)c->data + size;
  s->left = CHUNK_BYTES - size;
  return c->data;
}

void *osi_scratch_alloc(OsiScratch *s, size_t size) {
  if (size <= OSI_SCRATCH_SMALL) {
    size = size ? (size + 15) & ~(size_t)15 : 16;
    if (size <= s->left) {
      void *p = s->at;
      s->at += size;
      s->left -= size;
      return p;
    }
  }
  return alloc_slow(s, size);
}

void osi_scratch_free(OsiScratch *s, void *p) {
  if (p && s->big_count && big_remove(s, p)) free(p);
}

void *osi_scratch_alloc_cb(void *scratch, size_t size) { return osi_scratch_alloc(scratch, size); }
void osi_scratch_free_cb(void *scratch, void *p) { osi_scratch_free(scratch, p); }

void osi_scratch_release(OsiScratch *s) {
  for (OsiScratchChunk *c = s->chunks, *next; c; c = next) {
    next = c->next;
    free(c);
  }
  for (size_t i = 0; i < s->big_cap; i++) free(s->big[i]);
  free(s->big);
  s->chunks = NULL;
  s->at = NULL;
  s->left = 0;
  s->big = NULL;
  s->big_cap = s->big_count = 0;
}

void osi_scratch_rewind(OsiScratch *s) {
  OsiScratchChunk *keep = s->chunks;
  if (keep) {
    for (OsiScratchChunk *c = keep->next, *next; c; c = next) {
      next = c->next;
      free(c);
    }
    keep->next = NULL;
    s->at = (char *)keep->data;
    s->left = CHUNK_BYTES;
  }
  /* (Rewound once per node: the table is walked only when it holds a block.) */
  for (size_t i = 0; s->big_count && i < s->big_cap; i++) {
    if (!s->big[i]) continue;
    free(s->big[i]);
    s->big[i] = NULL;
    s->big_count--;
  }
}
