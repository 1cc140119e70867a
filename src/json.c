#include "json.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void append(OsiJson *j, const char *s, size_t n) {
  if (j->failed) return;
  if (j->len + n + 1 > j->cap) {
    size_t cap = j->cap ? j->cap : 4096;
    while (cap < j->len + n + 1) cap *= 2;
    char *b = realloc(j->buf, cap);
    if (!b) {
      j->failed = 1;
      return;
    }
    j->buf = b;
    j->cap = cap;
  }
  memcpy(j->buf + j->len, s, n);
  j->len += n;
  j->buf[j->len] = 0;
}

void osi_json_raw(OsiJson *j, const char *s) { append(j, s, strlen(s)); }

void osi_json_string(OsiJson *j, const char *s) {
  append(j, "\"", 1);
  const char *run = s;
  for (; *s; s++) {
    unsigned char c = (unsigned char)*s;
    if (c >= 0x20 && c != '"' && c != '\\') continue;
    append(j, run, (size_t)(s - run));
    char esc[8];
    if (c == '"' || c == '\\') snprintf(esc, sizeof esc, "\\%c", c);
    else snprintf(esc, sizeof esc, "\\u%04x", c);
    append(j, esc, strlen(esc));
    run = s + 1;
  }
  append(j, run, (size_t)(s - run));
  append(j, "\"", 1);
}

void osi_json_int(OsiJson *j, int64_t v) {
  char b[32];
  snprintf(b, sizeof b, "%lld", (long long)v);
  osi_json_raw(j, b);
}

void osi_json_free(OsiJson *j) {
  free(j->buf);
  j->buf = NULL;
  j->len = j->cap = 0;
}
