#include "base/json_parse.h"

#include <stdlib.h>
#include <string.h>

#include "base/parse_double.h"

#define MAX_DEPTH 64

typedef struct Parser {
  const char *p;
  OsiArena *arena;
  int depth;
} Parser;

static void skip_ws(Parser *ps) {
  while (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\n' || *ps->p == '\r') ps->p++;
}

static int parse_value(Parser *ps, OsiJsonValue *out);

/* Appends a code point as UTF-8. */
static size_t put_utf8(char *dst, unsigned cp) {
  if (cp < 0x80) { dst[0] = (char)cp; return 1; }
  if (cp < 0x800) { dst[0] = (char)(0xC0 | (cp >> 6)); dst[1] = (char)(0x80 | (cp & 0x3F)); return 2; }
  if (cp >= 0x10000) {
    dst[0] = (char)(0xF0 | (cp >> 18));
    dst[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
    dst[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
    dst[3] = (char)(0x80 | (cp & 0x3F));
    return 4;
  }
  dst[0] = (char)(0xE0 | (cp >> 12));
  dst[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
  dst[2] = (char)(0x80 | (cp & 0x3F));
  return 3;
}

/* The code unit of the \uXXXX escape at q (q at the 'u'), or -1. */
static long escape_unit(const char *q) {
  char hex[5] = {0};
  for (int i = 0; i < 4; i++) {
    char c = q[1 + i];
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'))) return -1;
    hex[i] = c;
  }
  return strtol(hex, NULL, 16);
}

static const char *parse_string(Parser *ps) {
  if (*ps->p != '"') return NULL;
  const char *start = ++ps->p;
  size_t len = 0;
  while (*ps->p && *ps->p != '"') {
    if (*ps->p == '\\' && ps->p[1]) ps->p++;
    ps->p++;
    len++;
  }
  if (*ps->p != '"') return NULL;
  char *out = osi_arena_alloc(ps->arena, len * 3 + 1);
  if (!out) return NULL;
  size_t k = 0;
  for (const char *q = start; q < ps->p; q++) {
    if (*q != '\\') { out[k++] = *q; continue; }
    q++;
    switch (*q) {
    case 'n': out[k++] = '\n'; break;
    case 't': out[k++] = '\t'; break;
    case 'r': out[k++] = '\r'; break;
    case 'b': out[k++] = '\b'; break;
    case 'f': out[k++] = '\f'; break;
    case 'u': {
      long u = escape_unit(q);
      /* A C string ends at NUL: "N\u0000M" would read as "N". */
      if (u <= 0) return NULL;
      q += 4;
      long lo = u >= 0xD800 && u < 0xDC00 && q[1] == '\\' && q[2] == 'u' ? escape_unit(q + 2) : -1;
      if (lo >= 0xDC00 && lo < 0xE000) { /* a surrogate pair */
        k += put_utf8(out + k, 0x10000 + (((unsigned)u - 0xD800) << 10) + ((unsigned)lo - 0xDC00));
        q += 6;
      } else if (u >= 0xDC80 && u < 0xDD00) { /* a byte of no UTF-8 sequence (json.h) */
        out[k++] = (char)(u - 0xDC00);
      } else {
        k += put_utf8(out + k, (unsigned)u);
      }
      break;
    }
    default: out[k++] = *q;
    }
  }
  out[k] = 0;
  ps->p++;
  return out;
}

static int parse_list(Parser *ps, OsiJsonValue *out, int object) {
  char close = object ? '}' : ']';
  ps->p++;
  if (++ps->depth > MAX_DEPTH) return 0;
  size_t cap = 8, n = 0;
  OsiJsonValue *items = osi_arena_array(ps->arena, cap, sizeof *items);
  const char **keys = object ? osi_arena_array(ps->arena, cap, sizeof *keys) : NULL;
  if (!items || (object && !keys)) return 0;
  skip_ws(ps);
  if (*ps->p == close) {
    ps->p++;
  } else {
    for (;;) {
      if (n == cap) {
        OsiJsonValue *ni = osi_arena_array(ps->arena, cap * 2, sizeof *ni);
        const char **nk = object ? osi_arena_array(ps->arena, cap * 2, sizeof *nk) : NULL;
        if (!ni || (object && !nk)) return 0;
        memcpy(ni, items, n * sizeof *ni);
        if (object) memcpy(nk, keys, n * sizeof *nk);
        items = ni;
        keys = nk;
        cap *= 2;
      }
      skip_ws(ps);
      if (object) {
        if (!(keys[n] = parse_string(ps))) return 0;
        skip_ws(ps);
        if (*ps->p++ != ':') return 0;
        skip_ws(ps);
      }
      if (!parse_value(ps, &items[n++])) return 0;
      skip_ws(ps);
      if (*ps->p == ',') { ps->p++; continue; }
      if (*ps->p++ != close) return 0;
      break;
    }
  }
  ps->depth--;
  out->kind = object ? OSI_JSON_OBJECT : OSI_JSON_ARRAY;
  out->items = items;
  out->keys = keys;
  out->n = n;
  return 1;
}

static int parse_value(Parser *ps, OsiJsonValue *out) {
  skip_ws(ps);
  memset(out, 0, sizeof *out);
  char c = *ps->p;
  if (c == '{' || c == '[') return parse_list(ps, out, c == '{');
  if (c == '"') {
    out->kind = OSI_JSON_STRING;
    return (out->string = parse_string(ps)) != NULL;
  }
  if (!strncmp(ps->p, "null", 4)) { ps->p += 4; out->kind = OSI_JSON_NULL; return 1; }
  if (!strncmp(ps->p, "true", 4)) { ps->p += 4; out->kind = OSI_JSON_BOOL; out->number = 1; return 1; }
  if (!strncmp(ps->p, "false", 5)) { ps->p += 5; out->kind = OSI_JSON_BOOL; return 1; }
  char *end;
  out->number = osi_parse_double(ps->p, &end);
  if (end == ps->p) return 0;
  ps->p = end;
  out->kind = OSI_JSON_NUMBER;
  return 1;
}

const OsiJsonValue *osi_json_parse(OsiArena *arena, const char *text) {
  if (!text) return NULL;
  Parser ps = {text, arena, 0};
  OsiJsonValue *v = osi_arena_alloc(arena, sizeof *v);
  if (!v || !parse_value(&ps, v)) return NULL;
  skip_ws(&ps);
  return *ps.p ? NULL : v;
}

const OsiJsonValue *osi_json_get(const OsiJsonValue *object, const char *key) {
  if (!object || object->kind != OSI_JSON_OBJECT) return NULL;
  for (size_t i = 0; i < object->n; i++)
    if (!strcmp(object->keys[i], key)) return &object->items[i];
  return NULL;
}
