/*
 * Constraints between symbolic dims (design: constraints.txt) and the
 * renaming pass that makes inferred symbols adopt the names the model's
 * author declared on the graph boundary.
 */
#ifndef OSI_CONSTRAINTS_H
#define OSI_CONSTRAINTS_H

#include "infer/context.h"

/* Records a == b: the pair is ordered (smaller canonical string first),
 * duplicates and a == a are dropped. When a - b is c*x - c*y for two
 * symbols, x == y is recorded too (never from x + 1 == y). */
void osi_constraint_equal(OsiRun *run, OsiExpr a, OsiExpr b);
/* Records lhs <= rhs (ordered; trivial and unknown operands dropped). */
void osi_constraint_less_equal(OsiRun *run, OsiExpr lhs, OsiExpr rhs);
/* Records that the data-dependent dim d takes the value a in some runs
 * (unknown a dropped). */
void osi_constraint_either(OsiRun *run, OsiExpr d, OsiExpr a);
void osi_constraints_free(OsiRun *run);

/* What anchor merging changed: each value whose type took a declared dim,
 * with its type as inferred, so that a contradictory declaration can be
 * taken back (osi_constraints_propagate). Malloc'ed items. */
typedef struct OsiAnchoredValue {
  OsiValueEntry *entry;
  const OsiType *inferred;
} OsiAnchoredValue;

typedef struct OsiAnchorLog {
  OsiAnchoredValue *items;
  int count, cap;
  /* Declared dims taken where inference knew nothing of the size. */
  OsiExpr *filled;
  int n_filled, cap_filled;
  /* (declared, inferred) pairs of the equalities the declarations recorded,
   * flat: which side of an equality a declaration wrote. */
  OsiExpr *declared;
  int n_declared, cap_declared;
} OsiAnchorLog;

void osi_anchor_log_free(OsiAnchorLog *log);

/*
 * Turns the equalities into a renaming of the inferred symbols and rewrites
 * every value's dims and content in `scope` (to a fixed point):
 * - each equivalence class (over all equality chains) maps to one
 *   canonical member: a graph-input symbol first, then a size computed
 *   from graph-input symbols alone, then a label (a symbol declared on
 *   outputs or value_info only), then the simplest member;
 * - a graph-input symbol is never renamed; a label gives way to a computed
 *   size only (Relufeatures_dim_0 -> batch: the pair goes to run->labels)
 *   and replaces internal symbols (nnz_1 -> N);
 * - a compound key of input symbols (b+c) is kept, unless the target is a
 *   graph-input symbol (past_seq+seq -> total_seq).
 * Equalities join classes in declaration order. One that would equate two
 * sizes computed from the graph inputs alone which differ at ordinary
 * sizes (seq and Min(seq,1), past+seq and 2*seq) restricts the inputs
 * rather than names a size: exporters write such declarations by mistake
 * (torch gives unrelated outputs one dim_param). It is rejected: it renames
 * nothing, is dropped from the constraints, the values in `log` get their
 * inferred dims back there, and an ANCHOR_CONFLICT diagnostic says so. So
 * is one that equates such a computed size with a declared name that also
 * stands for a size inference does not know (log->filled): nothing checks
 * that claim, and torch reuses its own dim names across unrelated outputs.
 */
OsiStatus osi_constraints_propagate(OsiContext *scope, const OsiGraph *graph, const OsiAnchorLog *log);

#endif
