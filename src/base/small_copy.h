/*
 * Copies and clears of a few bytes, for the per-node and per-name hot paths:
 * built with bulk memory, every memcpy or memset whose size is not a
 * constant is a memory.copy / memory.fill, which V8 compiles into a call out
 * of the module (~40 x86 instructions before a byte moves). Here sizes up to
 * 64 bytes move in fixed-size pieces that stay in the module (overlapping
 * where the size is not a multiple of the piece), larger ones go to
 * memcpy/memset; out of line, so that a call site is a call (the module's
 * download stays as it was). Applied where it was measured to pay (README
 * "Speed and size"): forcing it on every copy of the program was tried and
 * cost the 32-layer exports more than it saved.
 */
#ifndef OSI_SMALL_COPY_H
#define OSI_SMALL_COPY_H

#include <stddef.h>

/* memcpy(dst, src, n) for buffers that do not overlap. */
void osi_copy_small(void *dst, const void *src, size_t n);
/* memset(dst, 0, n). */
void osi_zero_small(void *dst, size_t n);

#endif
