/* The input domain of a result: the sizes of the graph inputs' symbols for
 * which every fact inference assumed holds (infer/facts.h), as JSON. */
#ifndef OSI_RESULT_DOMAIN_H
#define OSI_RESULT_DOMAIN_H

#include "base/json.h"
#include "infer/context.h"

/* "lhs":..,"relation":..,"rhs":.. of a requirement (js/index.d.ts Requirement):
 * a size that is 1 or c reads Broadcast(x,c) == c. */
void osi_json_requirement_sides(OsiJson *j, OsiExprStore *s, const OsiRequirement *q);
/* ,"domain":{"symbols":{name:{"min":..,"max":..,"minBy":..,"maxBy":..}},"relations":[...]} */
void osi_json_domain(OsiJson *j, OsiExprStore *s, const OsiRun *run);

#endif
