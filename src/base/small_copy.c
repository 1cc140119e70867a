#include "base/small_copy.h"

#include <stdint.h>
#include <string.h>

void osi_copy_small(void *dst, const void *src, size_t n) {
  unsigned char *d = dst;
  const unsigned char *s = src;
  if (n > 64) {
    memcpy(d, s, n);
  } else if (n > 32) { /* the first 32 bytes and the last 32 */
    uint64_t w[8];
    memcpy(w, s, 32);
    memcpy(w + 4, s + n - 32, 32);
    memcpy(d, w, 32);
    memcpy(d + n - 32, w + 4, 32);
  } else if (n >= 8) {
    uint64_t a, b, c, e;
    memcpy(&a, s, 8);
    memcpy(&b, s + n - 8, 8);
    if (n > 16) {
      memcpy(&c, s + 8, 8);
      memcpy(&e, s + n - 16, 8);
      memcpy(d + 8, &c, 8);
      memcpy(d + n - 16, &e, 8);
    }
    memcpy(d, &a, 8);
    memcpy(d + n - 8, &b, 8);
  } else if (n >= 4) {
    uint32_t a, b;
    memcpy(&a, s, 4);
    memcpy(&b, s + n - 4, 4);
    memcpy(d, &a, 4);
    memcpy(d + n - 4, &b, 4);
  } else if (n > 0) {
    unsigned char a = s[0], b = s[n / 2], c = s[n - 1];
    d[0] = a;
    d[n / 2] = b;
    d[n - 1] = c;
  }
}

void osi_zero_small(void *dst, size_t n) {
  unsigned char *d = dst;
  const uint64_t z = 0;
  if (n > 64) {
    memset(d, 0, n);
  } else if (n > 32) {
    memset(d, 0, 32);
    memset(d + n - 32, 0, 32);
  } else if (n >= 8) {
    memcpy(d, &z, 8);
    memcpy(d + n - 8, &z, 8);
    if (n > 16) {
      memcpy(d + 8, &z, 8);
      memcpy(d + n - 16, &z, 8);
    }
  } else if (n >= 4) {
    memcpy(d, &z, 4);
    memcpy(d + n - 4, &z, 4);
  } else if (n > 0) {
    d[0] = 0;
    d[n / 2] = 0;
    d[n - 1] = 0;
  }
}
