/*
 * Model-local functions (ModelProto.functions): a node whose (domain,
 * op_type, overload) names one is expanded by inferring the function body
 * in a child scope, with the caller's attributes bound to the body's
 * attribute references (ref_attr_name) and the function's defaults.
 */
#ifndef OSI_FUNCTIONS_H
#define OSI_FUNCTIONS_H

#include "infer/context.h"
#include "model/graph.h"
#include "ops/ops.h"

/* The function a node calls, or NULL. */
const OsiFunction *osi_function_find(const OsiModel *model, const OsiNode *node);
/* A call ready for the driver to infer in a child scope without outer
 * scope: the body with the caller's attributes bound, the caller's input
 * types for the formal inputs it gave, and the opsets the body uses. */
typedef struct OsiFunctionCall {
  OsiGraph body;
  const OsiType **in_types;
  int n_in;
  int n_out; /* outputs both the node and the function have */
  int n_opsets;
  const OsiOpsetImport *opsets;
} OsiFunctionCall;

/* Prepares the call and pushes fn on the run's call stack (undone by
 * osi_function_leave once the body is inferred). A function that
 * (indirectly) calls itself ends the run with OSI_ERR_CYCLE. */
OsiStatus osi_function_enter(OsiOpCtx *ctx, const OsiFunction *fn, OsiFunctionCall *call);
void osi_function_leave(OsiRun *run);

#endif
