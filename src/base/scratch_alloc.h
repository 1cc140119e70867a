/*
 * Scratch allocator for short-lived trees of many small blocks (the
 * protobuf-c unpacked message, which decode_pbc.c drops as soon as it has
 * copied what inference keeps). A 100k-node model unpacks into ~1M blocks;
 * with malloc/free that is ~1M calls each way plus the allocator's
 * consolidation afterwards. Here:
 *   - small blocks (<= OSI_SCRATCH_SMALL bytes) are carved from 256 KiB
 *     chunks; freeing one is a no-op (at most the bytes that describe it in
 *     the input are wasted until the end);
 *   - large blocks are malloc'ed one by one and tracked in a pointer set, so
 *     freeing one (protobuf-c's temporary arrays, a bytes field given twice)
 *     returns it at once;
 *   - osi_scratch_release frees everything, osi_scratch_rewind all but
 *     one chunk.
 */
#ifndef OSI_SCRATCH_ALLOC_H
#define OSI_SCRATCH_ALLOC_H

#include <stddef.h>

#define OSI_SCRATCH_SMALL ((size_t)2048)

typedef struct OsiScratchChunk OsiScratchChunk;

typedef struct OsiScratch {
  /* The free bytes of the newest chunk: a small block is carved from here
   * without reading the chunk (protobuf-c asks for ~10 blocks a node). */
  char *at;
  size_t left;
  OsiScratchChunk *chunks;
  void **big;          /* open addressing set of large blocks; NULL = empty */
  size_t big_cap, big_count;
} OsiScratch;

/* An empty scratch is all zeros. NULL when memory runs out. */
void *osi_scratch_alloc(OsiScratch *s, size_t size);
/* p must come from osi_scratch_alloc(s, ...) or be NULL. */
void osi_scratch_free(OsiScratch *s, void *p);
/* The same two with the scratch as a `void *`, for an allocator's function
 * pointers (protobuf-c's ProtobufCAllocator): no wrapper call per block. */
void *osi_scratch_alloc_cb(void *scratch, size_t size);
void osi_scratch_free_cb(void *scratch, void *p);
/* Frees every block but keeps one chunk for the next ones: for a tree
 * unpacked, read and dropped over and over (one node at a time). */
void osi_scratch_rewind(OsiScratch *s);
/* Frees every block; the scratch is empty (reusable) afterwards. */
void osi_scratch_release(OsiScratch *s);

#endif
