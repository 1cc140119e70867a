/* Named derived sizes of a result (expr_naming.c): its texts (every dim and
 * content of a value type, constraints, labels, requirements, the sizes
 * diagnostics print) are named once, before the first rendering; both JSON
 * forms print with the names in use and list them as "definitions". */
#ifndef OSI_RESULT_NAMES_H
#define OSI_RESULT_NAMES_H

#include "base/json.h"
#include "infer/context.h"

/* Chooses the names for the texts of a result (none when memory runs out:
 * every text is exact without them, only longer). */
void osi_result_name_sizes(OsiExprStore *s, const OsiContext *root, const OsiRun *run);
/* A diagnostic's message with its sizes printed as the result prints dims
 * (with the names in use: floor_1 rather than Floor(...)); malloc'ed, NULL
 * when it prints no size (or memory runs out). */
char *osi_result_named_message(OsiExprStore *s, const OsiDiagnostic *d);
/* ,"definitions":[{"name":...,"expr":...},...] in order. */
void osi_json_definitions(OsiJson *j, OsiExprStore *s);

#endif
