/* Types to and from the JSON form JS sees (getShape's format). */
#ifndef OSI_TYPE_JSON_H
#define OSI_TYPE_JSON_H

#include "base/json.h"
#include "base/json_parse.h"
#include "model/types.h"

/* {"kind":"tensor","elemType":"float","dims":[4,"N",null]} or null. */
void osi_json_type(OsiJson *j, OsiExprStore *s, const OsiType *t);
/* Most elements of a known integer content that results show: as many as
 * a shape has dims, so that a value costs what a shape does. */
#define OSI_JSON_MAX_CONTENT OSI_MAX_RANK
/* 1 when osi_json_type_content writes t's content. */
int osi_json_has_content(const OsiType *t);
/* osi_json_type, plus "value":[...] (numbers, expression strings, null) for
 * an integer or bool tensor whose content is known and has at most
 * OSI_JSON_MAX_CONTENT elements (row-major). */
void osi_json_type_content(OsiJson *j, OsiExprStore *s, const OsiType *t);
/* What osi_type_from_json found wrong with its input (zeroed by the caller). */
typedef struct OsiTypeJsonIssue {
  int bad;              /* malformed: no type */
  const char *dim_text; /* the first dim string that is no integer expression (then bad is
                         * set), or whose simplification ran out of the work budget (then
                         * that dim is unknown: over_budget); NULL when none */
  int dim;              /* its index in its tensor */
  int over_budget;
} OsiTypeJsonIssue;

/* The inverse; dims may be numbers, integer expression strings or null, and
 * a type without "kind" is a tensor. NULL for JSON null; *issue says what
 * was wrong. */
const OsiType *osi_type_from_json(OsiArena *a, OsiExprStore *s, const OsiJsonValue *v,
                                  OsiTypeJsonIssue *issue);
/* ONNX element type code from its lower-case name, 0 if unknown. */
int32_t osi_dtype_from_name(const char *name);

#endif
