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
 * the names the tables compare run to dozens of bytes. The last 1-8 bytes
 * are one 8-byte load each (ending at the end, overlapping bytes already
 * compared), a name of 4-7 bytes two 4-byte loads. */
static inline int osi_bytes_equal(const void *a, const void *b, size_t n) {
  const unsigned char *p = a, *q = b;
  if (n >= 8) {
    uint64_t x, y;
    for (; n > 8; n -= 8, p += 8, q += 8) {
      memcpy(&x, p, 8);
      memcpy(&y, q, 8);
      if (x != y) return 0;
    }
    memcpy(&x, p + n - 8, 8);
    memcpy(&y, q + n - 8, 8);
    return x == y;
  }
  if (n >= 4) {
    uint32_t x0, y0, x1, y1;
    memcpy(&x0, p, 4);
    memcpy(&y0, q, 4);
    memcpy(&x1, p + n - 4, 4);
    memcpy(&y1, q + n - 4, 4);
    return x0 == y0 && x1 == y1;
  }
  for (; n; n--, p++, q++)
    if (*p != *q) return 0;
  return 1;
}

#endif
