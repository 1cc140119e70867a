/*
 * Sizes tried at a few small values of their symbols: what tells a
 * declared name that can name one size from one that contradicts
 * inference at ordinary sizes (constraints.c). Not proofs.
 */
#ifndef OSI_SAMPLES_H
#define OSI_SAMPLES_H

#include "expr/expr.h"
#include "infer/requirements.h"

/* Whether the symbol `name` occurs in e. */
int osi_expr_mentions(OsiExprStore *s, OsiExpr e, const char *name);
/* Whether a == b (le: a <= b) at a few small sizes of their symbols (all
 * 0, and six spreads of 1..10), counting only sizes where both are
 * defined; at least one must be. Sizes at which one of the top-level
 * graph's requirements (req may be NULL) breaks do not count against it. */
int osi_holds_on_samples(OsiExprStore *s, const OsiRequirements *req, OsiExpr a, OsiExpr b, int le);

#endif
