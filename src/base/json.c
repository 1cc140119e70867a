#include "base/json.h"

#include <stdlib.h>
#include <string.h>

/* Room for n more bytes plus the terminating NUL; 0 once an allocation failed. */
static int reserve(OsiJson *j, size_t n) {
  if (j->failed) return 0;
  if (j->len + n + 1 > j->cap) {
    size_t cap = j->cap ? j->cap : 4096;
    while (cap < j->len + n + 1) cap *= 2;
    char *b = realloc(j->buf, cap);
    if (!b) {
      j->failed = 1;
      return 0;
    }
    j->buf = b;
    j->cap = cap;
  }
  return 1;
}

static void append(OsiJson *j, const char *s, size_t n) {
  if (!reserve(j, n)) return;
  memcpy(j->buf + j->len, s, n);
  j->len += n;
  j->buf[j->len] = 0;
}

void osi_json_raw(OsiJson *j, const char *s) { append(j, s, strlen(s)); }

void osi_json_bytes(OsiJson *j, const void *bytes, size_t n) { append(j, bytes, n); }

/* What a byte of a string needs: 0 nothing (it is copied), 1 an escape
 * (controls, '"' and '\\'), 2 a UTF-8 check (not ASCII). One load per byte. */
static const unsigned char byte_class[256] = {
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2,
    2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2,
    2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2,
    2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2};

void osi_json_string_body(OsiJson *j, const char *s) { osi_json_string_body_n(j, s, strlen(s)); }

void osi_json_string_body_n(OsiJson *j, const char *s, size_t n) {
  /* One reservation for the worst case (every byte a 6-byte \u escape), then
   * a single pass that copies plain bytes straight into the buffer. */
  if (n > (SIZE_MAX - 8) / 6) {
    j->failed = 1;
    return;
  }
  if (!reserve(j, 6 * n)) return;
  char *out = j->buf + j->len;
  static const char hex[] = "0123456789abcdef";
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    int what = byte_class[c];
    if (!what) {
      *out++ = (char)c;
    } else if (what == 2) {
      int len = osi_utf8_seq_len(s + i);
      if (len) {
        memcpy(out, s + i, (size_t)len);
        out += len;
        i += (size_t)len - 1;
      } else { /* surrogateescape (see json.h) */
        memcpy(out, "\\udc", 4);
        out[4] = hex[c >> 4];
        out[5] = hex[c & 15];
        out += 6;
      }
    } else if (c == '"' || c == '\\') {
      *out++ = '\\';
      *out++ = (char)c;
    } else {
      memcpy(out, "\\u00", 4);
      out[4] = hex[c >> 4];
      out[5] = hex[c & 15];
      out += 6;
    }
  }
  *out = 0;
  j->len = (size_t)(out - j->buf);
}

void osi_json_string(OsiJson *j, const char *s) {
  append(j, "\"", 1);
  osi_json_string_body(j, s);
  append(j, "\"", 1);
}

void osi_json_string_n(OsiJson *j, const char *s, size_t n) {
  append(j, "\"", 1);
  osi_json_string_body_n(j, s, n);
  append(j, "\"", 1);
}

void osi_json_int(OsiJson *j, int64_t v) {
  char b[24], *p = b + sizeof b;
  /* Digits of |v| as unsigned, so INT64_MIN needs no special case. */
  uint64_t u = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
  for (; u > UINT32_MAX; u /= 10) *--p = (char)('0' + u % 10);
  uint32_t w = (uint32_t)u; /* 32-bit division is much cheaper (wasm32 too) */
  do {
    *--p = (char)('0' + w % 10);
    w /= 10;
  } while (w);
  if (v < 0) *--p = '-';
  append(j, p, (size_t)(b + sizeof b - p));
}

void osi_json_char(OsiJson *j, char c) {
  if (!reserve(j, 1)) return;
  j->buf[j->len++] = c;
  j->buf[j->len] = 0;
}

void osi_json_free(OsiJson *j) {
  free(j->buf);
  j->buf = NULL;
  j->len = j->cap = 0;
}

int osi_utf8_seq_len(const char *s) {
  const unsigned char *p = (const unsigned char *)s;
  unsigned char c = *p;
  if (c < 0x80) return 1;
  int n;
  unsigned lo = 0x80, hi = 0xbf; /* allowed range of the second byte */
  if (c >= 0xc2 && c <= 0xdf) n = 1;
  else if (c >= 0xe0 && c <= 0xef) {
    n = 2;
    if (c == 0xe0) lo = 0xa0;        /* overlong */
    else if (c == 0xed) hi = 0x9f;   /* U+D800..U+DFFF */
  } else if (c >= 0xf0 && c <= 0xf4) {
    n = 3;
    if (c == 0xf0) lo = 0x90;        /* overlong */
    else if (c == 0xf4) hi = 0x8f;   /* above U+10FFFF */
  } else {
    return 0;
  }
  if (p[1] < lo || p[1] > hi) return 0; /* (a NUL stops here) */
  for (int k = 2; k <= n; k++)
    if ((p[k] & 0xc0) != 0x80) return 0;
  return n + 1;
}

int osi_utf8_valid(const char *s) {
  for (int n; *s; s += n)
    if (!(n = osi_utf8_seq_len(s))) return 0;
  return 1;
}
