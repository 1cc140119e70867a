#include "base/str_hash.h"

#include <string.h>

/* 8 bytes at a time: names run to dozens of bytes, and a byte-at-a-time
 * hash was most of a lookup. */
uint64_t osi_str_hash(const char *s, size_t n) {
  size_t i = 0;
  uint64_t h = 0x9e3779b97f4a7c15ull ^ n;
  for (; i + 8 <= n; i += 8) {
    uint64_t w;
    memcpy(&w, s + i, 8);
    h = (h ^ w) * 0xff51afd7ed558ccdull;
    h ^= h >> 32;
  }
  uint64_t tail = 0;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  if (n >= 8) {
    /* The last 8 bytes, shifted down to the ones past i: the same value as
     * the loop below, in one load instead of up to 7 (little-endian). */
    if (i < n) {
      memcpy(&tail, s + n - 8, 8);
      tail >>= 8 * (8 - (n - i));
    }
  } else if (n >= 4) {
    /* Bytes 0-3 and n-4..n-1, overlapping: the same value again. */
    uint32_t lo, hi;
    memcpy(&lo, s, 4);
    memcpy(&hi, s + n - 4, 4);
    tail = lo | (uint64_t)hi << (8 * (n - 4));
  } else
#endif
    for (size_t k = 0; i + k < n; k++) tail |= (uint64_t)(unsigned char)s[i + k] << (8 * k);
  h = (h ^ tail) * 0xc4ceb9fe1a85ec53ull;
  return h ^ (h >> 29);
}
