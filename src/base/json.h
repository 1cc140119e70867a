/* A minimal append-only JSON writer (one growable buffer). */
#ifndef OSI_JSON_H
#define OSI_JSON_H

#include <stddef.h>
#include <stdint.h>

typedef struct OsiJson {
  char *buf;
  size_t len, cap;
  int failed; /* an allocation failed; the text is incomplete */
} OsiJson;

void osi_json_raw(OsiJson *j, const char *s);
void osi_json_bytes(OsiJson *j, const void *bytes, size_t n); /* n bytes as they are */
void osi_json_string(OsiJson *j, const char *s); /* quoted and escaped */
void osi_json_string_body(OsiJson *j, const char *s); /* escaped, without the quotes */
void osi_json_int(OsiJson *j, int64_t v);
void osi_json_char(OsiJson *j, char c); /* one byte as is (',', '[', ...) */
void osi_json_free(OsiJson *j);
/* 1 if s is well-formed UTF-8 (no overlong forms, surrogates or code points above
 * U+10FFFF): then its byte order is its code point order, and a decoder keeps it intact. */
int osi_utf8_valid(const char *s);

#endif
