/*
 * Requirements: what op rules found their inputs must satisfy for the model
 * to run (MatMul's inner dims equal, a kernel no longer than its padded
 * input). A requirement between known values is decided on the spot by the
 * caller; one with a symbolic side is checked against the requirements
 * recorded so far (M == 3, then M == 4 contradicts it; so does M <= 2) and,
 * when not already implied, recorded.
 *
 * Requirements are not the equalities of constraints.c: those come from
 * declared shapes and rename inferred symbols to declared names. A
 * requirement renames nothing. `M == 3` on a graph input's symbol M says
 * when the model can run, not what M is: the values keep `M`, and the
 * result lists the requirement with the node that imposes it.
 */
#ifndef OSI_REQUIREMENTS_H
#define OSI_REQUIREMENTS_H

#include "base/arena.h"
#include "expr/expr.h"

/* lhs == rhs, or lhs <= rhs, required by a node. */
typedef struct OsiRequirement {
  OsiExpr lhs, rhs;
  int less_equal;
  int node_index;
  const char *node, *op_type, *path;
  const char *what; /* "MatMul inner dims: dim 0 of input 'b' == dim 1 of input 'a'" */
  /* Not 0 for a size broadcast against a constant: one_of is 1 or
   * one_of_size (osi_requirement_one_of). lhs == rhs is then
   * (one_of-1)*(one_of-one_of_size) == 0, which the checks use; the texts
   * say it as a person reads it (osi_requirement_text). */
  OsiExpr one_of;
  int64_t one_of_size;
} OsiRequirement;

typedef struct OsiKnown OsiKnown;

/* The requirements of a run (OsiRun.requirements). */
typedef struct OsiRequirements {
  OsiRequirement *items;
  int count, cap;
  OsiKnown *known; /* what the items of known_path's scope chain among items[0..known_count) imply */
  int known_count;
  /* The scope the known state is for: the requirements of a branch or a
   * body hold only where it runs, so they check the requirements of the
   * scopes inside it, never those after it ends. */
  const char *known_path;
} OsiRequirements;

typedef enum OsiReqVerdict {
  OSI_REQ_HOLDS,       /* provably true, or implied by earlier requirements */
  OSI_REQ_RECORDED,    /* added to the list */
  OSI_REQ_CONTRADICTS, /* false at every value of the symbols given the earlier ones */
} OsiReqVerdict;

/* Checks q->lhs == q->rhs (q->less_equal: <=) against the requirements so
 * far and appends a copy of q (its `what` copied into arena) when it is
 * neither implied nor contradicted. On a contradiction *against is the
 * index in r->items of the earlier requirement it contradicts, or -1 when
 * it is false on its own (M+3 <= M+1). Unknown operands: HOLDS. */
OsiReqVerdict osi_requirements_add(OsiRequirements *r, OsiExprStore *s, OsiArena *arena,
                                   const OsiRequirement *q, int *against);
/* The requirement that the size x is 1 or c (c > 1), as q->lhs == q->rhs
 * with q->one_of set; the caller fills in the node. */
void osi_requirement_one_of(OsiExprStore *s, OsiExpr x, int64_t c, OsiRequirement *q);
/* The requirement as it reads: "M == 3", "3 <= (H+1)//4", "T == 1 or T == 16"
 * (one_of). Returns buf. */
const char *osi_requirement_text(OsiExprStore *s, const OsiRequirement *q, char *buf, size_t cap);

/* e with every Broadcast of sizes the requirements make equal (Concat's
 * dim 0 of a cache and of the new keys, under list-form dynamic axes two
 * symbols) reduced to one of them: where the model runs, Broadcast(a, b)
 * with a == b required is a. Renames nothing: a dim that is a symbol stays
 * that symbol. */
OsiExpr osi_requirements_reduce(OsiRequirements *r, OsiExprStore *s, OsiExpr e);
/* Whether the requirements make any two sizes equal (else reduce changes nothing). */
int osi_requirements_join_any(OsiRequirements *r, OsiExprStore *s);
/* How many joins the classes have had (after osi_requirements_join_any). */
int osi_requirements_joins(const OsiRequirements *r);
/* Drops the requirements after the first `count` (a superseded
 * fixed-point round). */
void osi_requirements_rollback(OsiRequirements *r, int count);
void osi_requirements_free(OsiRequirements *r);

#endif
