/*
 * Per-run arena: everything one inference allocates (graph model, types,
 * values, strings) dies with its result in one free. Op code never frees.
 */
#ifndef OSI_ARENA_H
#define OSI_ARENA_H

#include <stddef.h>
#include <stdint.h>

/* Total bytes one arena may hand out; past it allocation fails and the run
 * ends with OSI_ERR_LIMIT_EXCEEDED. */
#define OSI_ARENA_MAX_BYTES ((size_t)1 << 30)

typedef struct OsiArena OsiArena;

OsiArena *osi_arena_new(void);
void osi_arena_delete(OsiArena *self); /* NULL-safe */
/* Zeroed, 8-byte aligned memory, or NULL (out of memory or over the cap;
 * see osi_arena_exhausted). */
void *osi_arena_alloc(OsiArena *self, size_t size);
/* The same, not zeroed: for blocks the caller writes whole at once. */
void *osi_arena_alloc_uninit(OsiArena *self, size_t size);
/* calloc-style with overflow check on n * size. */
void *osi_arena_array(OsiArena *self, size_t n, size_t size);
char *osi_arena_strdup(OsiArena *self, const char *s);
char *osi_arena_strndup(OsiArena *self, const char *s, size_t n);
/* 1 once an allocation failed because the cap was reached. */
int osi_arena_exhausted(const OsiArena *self);
size_t osi_arena_used(const OsiArena *self);

#endif
