/*
 * Facts: what holds whenever the model runs, used while inferring.
 *
 * A shape is only ever observed when the model runs, so everything the
 * model needs to run may be assumed: the requirements recorded so far
 * (requirements.h: a Conv needs its padded input at least as long as its
 * dilated kernel) and the sizes themselves (every dim of every value is a
 * size, never negative). From those facts come ranges of the symbols
 * (time >= 400) and relations between them; a Min or Max in a dim or in a
 * content (the truth of a comparison of sizes, a Slice clamp) that they
 * decide is replaced by the argument that wins, and the decision is an
 * event naming the fact it rests on.
 *
 * Facts are scoped: those found inside a subgraph (an If branch, a loop
 * body) hold only when it runs, and go when its scope ends; a superseded
 * fixed-point round takes its facts back with its requirements (OsiMark).
 * Nothing here changes a canonical form: decisions rebuild dims from the
 * winning arguments, and their memo belongs to the facts and is emptied
 * whenever they change.
 */
#ifndef OSI_FACTS_H
#define OSI_FACTS_H

#include "model/types.h"

/* infer/context.h's run (declared here: context.c frees the facts through
 * OsiRun.facts_free rather than this header). */
typedef struct OsiRun OsiRun;

/* One fact: lhs <= rhs (less_equal) or lhs == rhs. */
typedef struct OsiFact {
  OsiExpr lhs, rhs;
  int less_equal;
  /* Its requirement's index in run->requirements.items, or -1: dim `axis`
   * of value `value` is a size (0 <= rhs). */
  int requirement;
  const char *value;
  int axis;
  int node_index; /* the node that required it or wrote the value (-1: a graph input) */
  const char *node, *op_type, *path;
  int range; /* it gave its one symbol a range (the domain lists the others as relations) */
} OsiFact;

/* The number of facts, a mark to roll back to. */
int osi_facts_mark(const OsiRun *run);
/* Drops the facts after the first `mark` and the ranges they gave. */
void osi_facts_rollback(OsiRun *run, int mark);
void osi_facts_free(OsiRun *run);

/* Requirement `index` of run->requirements (just recorded) is a fact. */
void osi_facts_add_requirement(OsiRun *run, int index);
/* The dims of a graph (or body) input `name` of the scope at `path` are sizes. */
void osi_facts_add_input_sizes(OsiRun *run, const char *name, const OsiType *t, const char *path);

/* Output `name` of the current node (type t; the node's inputs' types are
 * in[0..n_in)) where the model runs: every Min/Max of its dims and integer
 * content that the facts decide is replaced by the winning argument
 * (events name the facts, under OSI_OPT_EVENTS; t itself when nothing
 * changes), and its dims become facts (sizes). A dim or element that is
 * one of the inputs' was decided where it was made and is kept. */
const OsiType *osi_facts_output(OsiRun *run, const OsiType *t, const char *name, const OsiType *const *in,
                                int n_in);
/* t (value `name`, inferred before some of the facts) with every Min/Max
 * of its dims and integer content that the facts now decide replaced by
 * the winner: at the end of the main graph, every fact holds wherever the
 * model runs, those found after the value included. A dim or element one
 * of in[0..n_in) has (the graph inputs) is kept. t itself when nothing
 * changes. */
const OsiType *osi_facts_decide_late(OsiRun *run, const OsiType *t, const char *name, const OsiType *const *in,
                                     int n_in);
/* 1 when a <= b wherever the facts so far hold (by the ranges, or a
 * relation): a requirement it proves need not be recorded. */
int osi_facts_prove_le(OsiRun *run, OsiExpr a, OsiExpr b);
/* 1 when some fact gave a range or a relation (else refine changes nothing). */
int osi_facts_active(const OsiRun *run);

/* Reading the facts (the domain of the result). */
int osi_facts_count(const OsiRun *run);
const OsiFact *osi_facts_item(const OsiRun *run, int i);
/* The range the facts give symbol `sym`, with the fact behind each end
 * (-1: none; lo is then 0, hi INT64_MAX). */
void osi_facts_symbol_range(const OsiRun *run, OsiExpr sym, int64_t *lo, int64_t *hi, int *lo_fact,
                            int *hi_fact);

#endif
