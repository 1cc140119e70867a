/*
 * Constraints between symbolic dims (design: constraints.txt) and the
 * renaming pass that makes inferred symbols adopt the names the model's
 * author declared on the graph boundary.
 */
#ifndef OSI_CONSTRAINTS_H
#define OSI_CONSTRAINTS_H

#include "context.h"

/* Records a == b: the pair is ordered (smaller canonical string first),
 * duplicates and a == a are dropped. When a - b is c*x - c*y for two
 * symbols, x == y is recorded too (never from x + 1 == y). */
void osi_constraint_equal(OsiRun *run, OsiExpr a, OsiExpr b);
/* Records lhs <= rhs (ordered; trivial and unknown operands dropped). */
void osi_constraint_less_equal(OsiRun *run, OsiExpr lhs, OsiExpr rhs);
void osi_constraints_free(OsiRun *run);

/*
 * Turns the equalities into a renaming of the inferred symbols and rewrites
 * every value's dims and content in `scope` (to a fixed point):
 * - names declared on the graph's inputs, outputs and value_info
 *   ("preferred") are never renamed away;
 * - each equivalence class (over all equality chains) maps to one
 *   canonical member: a graph-input symbol first, then another preferred
 *   symbol, then the simplest member;
 * - a compound key made only of preferred symbols (b+c) is kept, unless
 *   the target is a graph-input symbol (past_seq+seq -> total_seq).
 */
OsiStatus osi_constraints_propagate(OsiContext *scope, const OsiGraph *graph);

#endif
