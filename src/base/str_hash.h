/*
 * The string hash every name-keyed table uses (value tables, the decoders'
 * name interning), so that a hash computed once can serve them all; and the
 * equality test that confirms a hit.
 */
#ifndef OSI_STR_HASH_H
#define OSI_STR_HASH_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* A 64-bit hash of the len bytes at s. */
uint64_t osi_str_hash(const char *s, size_t len);

/* Whether the n bytes at a and b are the same: memcmp(a, b, n) == 0, 8
 * bytes at a time. In wasm, memcmp is musl's loop of one byte a step, and
 * the names the tables compare run to dozens of bytes. */
static inline int osi_bytes_equal(const void *a, const void *b, size_t n) {
  const unsigned char *p = a, *q = b;
  for (; n >= 8; n -= 8, p += 8, q += 8) {
    uint64_t x, y;
    memcpy(&x, p, 8);
    memcpy(&y, q, 8);
    if (x != y) return 0;
  }
  for (; n; n--, p++, q++)
    if (*p != *q) return 0;
  return 1;
}

#endif
