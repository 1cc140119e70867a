/* A small JSON reader (custom shape functions answer in JSON). Nodes live in
 * the given arena; depth and size are bounded. */
#ifndef OSI_JSON_PARSE_H
#define OSI_JSON_PARSE_H

#include <stddef.h>

#include "base/arena.h"

typedef enum { OSI_JSON_NULL, OSI_JSON_BOOL, OSI_JSON_NUMBER, OSI_JSON_STRING, OSI_JSON_ARRAY,
               OSI_JSON_OBJECT } OsiJsonKind;

typedef struct OsiJsonValue {
  OsiJsonKind kind;
  double number;     /* NUMBER, BOOL (0/1) */
  const char *string; /* STRING */
  size_t n;          /* ARRAY/OBJECT element count */
  const struct OsiJsonValue *items; /* ARRAY/OBJECT values */
  const char *const *keys;          /* OBJECT keys */
} OsiJsonValue;

/* NULL on malformed input, a nesting deeper than 64, or a string holding
 * U+0000 (its C string would end there). */
const OsiJsonValue *osi_json_parse(OsiArena *arena, const char *text);
/* Member of an object, or NULL. */
const OsiJsonValue *osi_json_get(const OsiJsonValue *object, const char *key);

#endif
