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
/* Quoted and escaped. A byte that starts no well-formed UTF-8 sequence (a
 * name in a model may hold any bytes: onnxruntime runs such models) is
 * written as the escape of the lone surrogate U+DC00 + byte, \udcff for
 * 0xFF, as Python's surrogateescape decodes it: the text is well-formed
 * UTF-8, and two names that differ stay two strings in JavaScript, whose
 * JSON.stringify writes them back so (osi_json_parse reads them back to the
 * bytes). */
void osi_json_string(OsiJson *j, const char *s);
void osi_json_string_body(OsiJson *j, const char *s); /* escaped, without the quotes */
/* The same for the n bytes at s, NUL bytes included (written \u0000), s[n] being a NUL. */
void osi_json_string_n(OsiJson *j, const char *s, size_t n);
void osi_json_string_body_n(OsiJson *j, const char *s, size_t n);
void osi_json_int(OsiJson *j, int64_t v);
void osi_json_char(OsiJson *j, char c); /* one byte as is (',', '[', ...) */
void osi_json_free(OsiJson *j);
/* 1 if s is well-formed UTF-8 (no overlong forms, surrogates or code points above
 * U+10FFFF): then its byte order is its code point order, and a decoder keeps it intact. */
int osi_utf8_valid(const char *s);
/* Length of the well-formed UTF-8 sequence s starts with (1 to 4; s[0]
 * non-NUL), or 0 when it starts none. */
int osi_utf8_seq_len(const char *s);

#endif
