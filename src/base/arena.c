#include "base/arena.h"

#include <stdlib.h>
#include <string.h>

#include "base/small_copy.h"

/* Blocks grow geometrically so a 100k-node model costs a few dozen mallocs;
 * an oversized request gets a block of its own. */
#define MIN_BLOCK ((size_t)64 * 1024)
#define MAX_BLOCK ((size_t)4 * 1024 * 1024)

typedef struct Block {
  struct Block *next;
  size_t size, used;
  max_align_t data[];
} Block;

struct OsiArena {
  Block *head;
  size_t total;
  size_t next_block;
  int exhausted;
};

OsiArena *osi_arena_new(void) {
  OsiArena *a = calloc(1, sizeof *a);
  if (a) a->next_block = MIN_BLOCK;
  return a;
}

void osi_arena_delete(OsiArena *self) {
  if (!self) return;
  Block *b = self->head;
  while (b) {
    Block *next = b->next;
    free(b);
    b = next;
  }
  free(self);
}

/* `size` bytes, 16-aligned, not zeroed. */
static void *bump(OsiArena *self, size_t size) {
  /* Past the cap (this also keeps the rounding below from wrapping around
   * for sizes near SIZE_MAX, which would hand out a 16-byte block). */
  if (size > OSI_ARENA_MAX_BYTES) {
    self->exhausted = 1;
    return NULL;
  }
  size = (size + 15) & ~(size_t)15;
  if (size == 0) size = 16;
  Block *b = self->head;
  if (!b || b->size - b->used < size) {
    size_t want = size > self->next_block ? size : self->next_block;
    if (self->total + want > OSI_ARENA_MAX_BYTES || want < size) {
      self->exhausted = 1;
      return NULL;
    }
    b = malloc(sizeof *b + want);
    if (!b) return NULL;
    b->size = want;
    b->used = 0;
    b->next = self->head;
    self->head = b;
    self->total += want;
    if (self->next_block < MAX_BLOCK) self->next_block *= 2;
  }
  void *p = (char *)b->data + b->used;
  b->used += size;
  return p;
}

void *osi_arena_alloc(OsiArena *self, size_t size) {
  void *p = bump(self, size);
  if (p) osi_zero_small(p, size); /* most blocks are a few dozen bytes */
  return p;
}

void *osi_arena_alloc_uninit(OsiArena *self, size_t size) { return bump(self, size); }

void *osi_arena_array(OsiArena *self, size_t n, size_t size) {
  if (size && n > SIZE_MAX / size) {
    self->exhausted = 1;
    return NULL;
  }
  return osi_arena_alloc(self, n * size);
}

char *osi_arena_strndup(OsiArena *self, const char *s, size_t n) {
  /* Not zeroed first: every byte is written below. */
  char *d = n < OSI_ARENA_MAX_BYTES ? bump(self, n + 1) : NULL;
  if (n >= OSI_ARENA_MAX_BYTES) self->exhausted = 1;
  if (d) {
    if (n) memcpy(d, s, n);
    d[n] = 0;
  }
  return d;
}

char *osi_arena_strdup(OsiArena *self, const char *s) {
  return osi_arena_strndup(self, s ? s : "", s ? strlen(s) : 0);
}

int osi_arena_exhausted(const OsiArena *self) { return self->exhausted; }
size_t osi_arena_used(const OsiArena *self) { return self->total; }
