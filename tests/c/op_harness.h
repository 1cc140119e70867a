/*
 * Runs one operator's shape function on typed inputs written as text, so
 * op tests read like the spec:
 *
 *   OpTest *t = op_test_new();
 *   op_attr_ints(t, "perm", 3, (int64_t[]){0, 2, 1});
 *   CHECK_STR(op_run(t, "", "Transpose", 13, "float[N,C,H]", NULL), "float[N,H,C]");
 *   op_test_free(t);
 *
 * Type syntax: `<dtype>[d0,d1,...]` with each dim an expression or `?`
 * (unknown); `<dtype>[*]` for unknown rank; `<dtype>[]` for a scalar; an
 * optional `{e0,e1,...}` suffix gives the content (integer expressions, or
 * numbers for float types); "" is an omitted input; "seq(<type>)" and
 * "opt(<type>)" wrap; "seq#<length>(<type>)" is a sequence of known length,
 * "seq[<t0>;<t1>;...]" one of these elements, each type tracked. Outputs
 * print in the same syntax (a sequence as seq#/seq(), see op_seq_elems), with "unknown"
 * for an unset output and "error:<CODE>: message" when the op failed.
 */
#ifndef OSI_OP_HARNESS_H
#define OSI_OP_HARNESS_H

#include <stdint.h>

#include "model/graph.h"
#include "model/types.h"

typedef struct OpTest OpTest;

OpTest *op_test_new(void);
void op_test_free(OpTest *t);

/* Attributes for the next op_run (cleared by it). */
void op_attr_int(OpTest *t, const char *name, int64_t v);
void op_attr_float(OpTest *t, const char *name, double v);
void op_attr_str(OpTest *t, const char *name, const char *v);
void op_attr_ints(OpTest *t, const char *name, int n, const int64_t *v);
void op_attr_floats(OpTest *t, const char *name, int n, const double *v);
void op_attr_strings(OpTest *t, const char *name, int n, const char *const *v);
/* A tensor attribute given in the type syntax, e.g. "int64[]{7}". */
void op_attr_tensor(OpTest *t, const char *name, const char *type_text);
/* A graph attribute (for control-flow tests built by hand). */
void op_attr_graph(OpTest *t, const char *name, const OsiGraph *g);

/* Number of outputs the next op_run declares (default 1). */
void op_set_outputs(OpTest *t, int n);

/* Runs domain:op at `opset` on the NULL-terminated input list; returns
 * output 0 as text (owned by t, valid until the next run). */
const char *op_run(OpTest *t, const char *domain, const char *op, int opset, ...);
/* Output i of the last run, as text. */
const char *op_out(OpTest *t, int i);
/* Output i of the last run as a type (NULL when unset). */
const OsiType *op_out_type(OpTest *t, int i);
/* Node inferences the runs have made so far and may make in all
 * (OSI_NODE_VISITS_*; 0 for max: the default budget). */
void op_set_visits(OpTest *t, int64_t used, int64_t max);
/* The element types a sequence output i keeps one by one, joined by ";"
 * ("" for an empty sequence), or "untracked" (static buffer). */
const char *op_seq_elems(OpTest *t, int i);
/* Diagnostics recorded by the last run, joined by "; ". */
const char *op_diags(OpTest *t);
/* The lhs <= rhs constraints the last run recorded on dims (bounds of
 * fresh symbols: "nnz_1 <= 6"), joined by "; ". */
const char *op_bounds(OpTest *t);
/* Requirements the last run recorded on symbolic dims ("M == 3; K <= H"),
 * joined by "; " (inputs are named in0, in1, ... in messages). */
const char *op_requirements(OpTest *t);
/* 0 when a requirement of the last run is false with `symbol` bound to
 * `value` (requirements that do not evaluate are skipped), else 1. */
int op_requirements_hold(OpTest *t, const char *symbol, int64_t value);

/* Parses the type syntax (NULL on error); exposed for tests. */
const OsiType *op_parse_type(OpTest *t, const char *text);
/* Prints a type in the type syntax. */
const char *op_type_str(OpTest *t, const OsiType *type);
OsiExprStore *op_exprs(OpTest *t);
OsiArena *op_arena(OpTest *t);

#endif
