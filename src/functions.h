/*
 * Model-local functions (ModelProto.functions): a node whose (domain,
 * op_type, overload) names one is expanded by inferring the function body
 * in a child scope, with the caller's attributes bound to the body's
 * attribute references (ref_attr_name) and the function's defaults.
 */
#ifndef OSI_FUNCTIONS_H
#define OSI_FUNCTIONS_H

#include "graph.h"
#include "ops/ops.h"

/* The function a node calls, or NULL. */
const OsiFunction *osi_function_find(const OsiModel *model, const OsiNode *node);
/* Infers the call: the body's outputs become the node's outputs. A
 * function that (indirectly) calls itself ends the run with OSI_ERR_CYCLE. */
OsiStatus osi_function_call(OsiOpCtx *ctx, const OsiFunction *fn);

#endif
