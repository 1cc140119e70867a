/*
 * The narrow interface every operator shape function sees (modelled on the
 * ONNX InferenceContext). Op functions read input types/values and
 * attributes, and publish output types; they never see protobuf structs,
 * the graph, or other nodes.
 *
 * An op function returns OSI_OK when it set what it could (outputs left
 * unset are unknown), or a status from osi_op_fail. OSI_ERR_UNSUPPORTED
 * means "this case is not handled": the driver turns it into a diagnostic
 * and inference goes on.
 */
#ifndef OSI_OPS_H
#define OSI_OPS_H

#include <stddef.h>
#include <stdint.h>

#include "model/graph.h"
#include "onnx_shapes.h"
#include "model/types.h"

typedef struct OsiOpCtx OsiOpCtx;
typedef OsiStatus (*OsiOpFn)(OsiOpCtx *ctx);

/* Section - Node */

int64_t osi_op_opset(const OsiOpCtx *ctx);       /* version of the node's domain */
const char *osi_op_type(const OsiOpCtx *ctx);
const char *osi_op_name(const OsiOpCtx *ctx);    /* node name, "" if none */
/* 1 for a standard (ai.onnx) operator: rules shared with com.microsoft
 * ops that lay their inputs out differently check only these. */
int osi_op_is_onnx(const OsiOpCtx *ctx);
OsiArena *osi_op_arena(OsiOpCtx *ctx);
OsiExprStore *osi_op_exprs(OsiOpCtx *ctx);

/* Section - Inputs */

/* Number of inputs listed on the node, omitted optional ones included. */
int osi_in_count(const OsiOpCtx *ctx);
/* 1 when input i is listed and not the empty name. */
int osi_in_present(const OsiOpCtx *ctx, int i);
/* Type of input i; NULL when omitted, out of range, or of unknown type. */
const OsiType *osi_in(const OsiOpCtx *ctx, int i);
/* Tensor input i with a known rank; NULL otherwise. */
const OsiType *osi_in_ranked(const OsiOpCtx *ctx, int i);
/* Known content of input i, or NULL. */
const OsiValue *osi_in_value(const OsiOpCtx *ctx, int i);
/* Element type of input i, 0 when unknown. */
int32_t osi_in_dtype(const OsiOpCtx *ctx, int i);

/* Section - Attributes */

const OsiAttr *osi_attr(const OsiOpCtx *ctx, const char *name);
int osi_attr_has(const OsiOpCtx *ctx, const char *name);
int64_t osi_attr_int(const OsiOpCtx *ctx, const char *name, int64_t dflt);
double osi_attr_float(const OsiOpCtx *ctx, const char *name, double dflt);
const char *osi_attr_str(const OsiOpCtx *ctx, const char *name, const char *dflt);
/* Number of ints and *out, or -1 when the attribute is absent. */
int osi_attr_ints(const OsiOpCtx *ctx, const char *name, const int64_t **out);
int osi_attr_floats(const OsiOpCtx *ctx, const char *name, const double **out);
const OsiTensor *osi_attr_tensor(const OsiOpCtx *ctx, const char *name);

/* Type (with content when kept) of a constant tensor attribute. */
const OsiType *osi_op_tensor_type(OsiOpCtx *ctx, const OsiTensor *t);

/* Section - Outputs */

int osi_out_count(const OsiOpCtx *ctx);
/* 1 when output i is listed and not the empty name. */
int osi_out_present(const OsiOpCtx *ctx, int i);
/* Publishes the type of output i (ignored when the output is omitted). */
void osi_set_out(OsiOpCtx *ctx, int i, const OsiType *type);
/* The type currently set for output i, or NULL. */
const OsiType *osi_out(const OsiOpCtx *ctx, int i);

/* Section - Errors and diagnostics */

/* Records why the op cannot infer; returns status for `return osi_op_fail(...)`. */
OsiStatus osi_op_fail(OsiOpCtx *ctx, OsiStatus status, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
/* Adds a diagnostic about this node (e.g. "DATA_DEPENDENT") and goes on. */
void osi_op_diag(OsiOpCtx *ctx, const char *code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
/* The same, for a message that prints sizes: fmt knows %s, %d and %E (an
 * OsiExpr), which a result prints with its named sizes (floor_1), as its
 * dims. */
void osi_op_diag_sizes(OsiOpCtx *ctx, const char *code, const char *fmt, ...);
/* A fresh symbol "<what>_<n>" for a data-dependent dim (nnz_3, nms_7, if_2):
 * `what` says what it counts in a word, short because sums and Min of such
 * counts are what readers see (Min(nnz_10,40)+Min(nnz_2,40)+...); the
 * DATA_DEPENDENT diagnostic names the node. */
OsiExpr osi_op_fresh_dim(OsiOpCtx *ctx, const char *what);

/* Records lhs <= rhs between dims (e.g. NonZero's count <= numel(X)). */
void osi_op_constrain_le(OsiOpCtx *ctx, OsiExpr lhs, OsiExpr rhs);
/* Records a == b between dims. */
void osi_op_constrain_eq(OsiOpCtx *ctx, OsiExpr a, OsiExpr b);
/* Records that the data-dependent dim d is a or b at run time (an If's two
 * branches, a loop value before and after an iteration; b may be unknown):
 * d <= Max(a, b), and the alternatives, against which a declared name for
 * d is checked (constraints.h). */
void osi_op_constrain_either(OsiOpCtx *ctx, OsiExpr d, OsiExpr a, OsiExpr b);

/* Section - Requirements (shape checks)
 *
 * What a rule needs of its inputs for the model to run. Two known values
 * that differ fail the node with SHAPE_MISMATCH, in words a model author
 * reads: "<rule>: dim 1 of input 'b' is 3 where dim 1 of input 'a' is 6".
 * A symbolic side makes it a requirement of the result (M == 3), checked
 * against the earlier ones (a contradiction is a mismatch naming the node
 * that required the other) and never used to rename a dim. Provably true,
 * or an unknown side: nothing. Each returns OSI_OK or the failure status,
 * for `if ((st = osi_op_require_eq(...)) != OSI_OK) return st;`. */

/* A checked quantity in messages: dim `axis` of input `input` (OSI_DIM), a
 * phrase (OSI_WHAT("attribute 'hidden_size'")), or dim `axis` of what a
 * phrase names (OSI_DIM_OF(2, "X"): "dim 2 of X", made only for a message). */
typedef struct OsiWhat {
  int input, axis;
  const char *text;
} OsiWhat;
#define OSI_DIM(input, axis) ((OsiWhat){(input), (axis), NULL})
#define OSI_WHAT(text) ((OsiWhat){-1, 0, (text)})
#define OSI_DIM_OF(axis, text) ((OsiWhat){-2, (axis), (text)})

/* Requires a == b. */
OsiStatus osi_op_require_eq(OsiOpCtx *ctx, const char *rule, OsiExpr a, OsiWhat wa, OsiExpr b,
                            OsiWhat wb);
/* Requires the size x to be 1 or c (c > 1: x broadcasts against c); `what`
 * says which size (without the rule). */
OsiStatus osi_op_require_one_of(OsiOpCtx *ctx, const char *rule, OsiExpr x, int64_t c, const char *what);
/* Requires a <= b. */
OsiStatus osi_op_require_le(OsiOpCtx *ctx, const char *rule, OsiExpr a, OsiWhat wa, OsiExpr b,
                            OsiWhat wb);
/* osi_op_require_le with the rule named "<rule_head><rule_tail><rule_number>"
 * (no number when it is below 0), a name made only when a message needs it:
 * most requirements hold, and a rule checked on every node of a 100k-node
 * graph paid more for its name than for its check. */
OsiStatus osi_op_require_le_in(OsiOpCtx *ctx, const char *rule_head, const char *rule_tail, int rule_number,
                               OsiExpr a, OsiWhat wa, OsiExpr b, OsiWhat wb);
/* osi_op_require_eq with the rule named "<rule_head><rule_tail>" (tail may
 * be NULL), made only when a message needs it. */
OsiStatus osi_op_require_eq_in(OsiOpCtx *ctx, const char *rule_head, const char *rule_tail, OsiExpr a, OsiWhat wa,
                               OsiExpr b, OsiWhat wb);
/* 1 when a <= b wherever the model runs, by what the node's graph has
 * required so far (infer/facts.h): a requirement it proves adds nothing. */
int osi_op_known_le(OsiOpCtx *ctx, OsiExpr a, OsiExpr b);
/* Requires dim da of input ia == dim db of input ib; nothing when either
 * input's rank is unknown or too small. */
OsiStatus osi_op_require_dims_eq(OsiOpCtx *ctx, const char *rule, int ia, int da, int ib, int db);
/* Requires dim d of input i to be `value` (described by `what`). */
OsiStatus osi_op_require_dim(OsiOpCtx *ctx, const char *rule, int i, int d, OsiExpr value,
                             OsiWhat what);
/* Requires input i, when its rank is known, to have a rank in [lo, hi]
 * (hi < 0: no upper bound): SHAPE_MISMATCH naming the input otherwise. */
OsiStatus osi_op_require_rank(OsiOpCtx *ctx, int i, int lo, int hi);
/* "input 'x'" (or "input 2" when it has no usable name), for messages. */
const char *osi_op_input_label(OsiOpCtx *ctx, int i, char *buf, size_t cap);

/* Section - Subgraphs (control flow) */

/* Infers `graph` (an attribute of this node) in a child scope whose formal
 * inputs get `in_types` (n_in entries, NULL = unknown) and outer-scope
 * values stay visible. Fills out_types[0..n_out) with the graph outputs'
 * inferred types (NULL when unknown). The body may not run where the node
 * does (a loop's, an If's branch under an open condition). */
OsiStatus osi_op_infer_subgraph(OsiOpCtx *ctx, const OsiGraph *graph, const char *tag,
                                int n_in, const OsiType *const *in_types, int n_out,
                                const OsiType **out_types);
/* The same for the branch of an If that its known condition takes (no
 * inputs): it runs wherever the node does, so its failures are the node's. */
OsiStatus osi_op_infer_taken_branch(OsiOpCtx *ctx, const OsiGraph *graph, const char *tag, int n_out,
                                    const OsiType **out_types);

/* Fixed-point iterations infer a body several times; only the last run's
 * diagnostics, constraints and events should stay. Take a mark before a
 * run and roll back to it when the run is superseded. */
typedef struct OsiMark {
  int diags, equal, less_equal, either, events, requirements, facts;
} OsiMark;
OsiMark osi_op_mark(const OsiOpCtx *ctx);
void osi_op_rollback(OsiOpCtx *ctx, OsiMark mark);
/* osi_op_infer_subgraph for a run whose types only the op reads (a loop
 * body on probe dims): the body's values and scopes are not recorded, nor
 * is a failure of the run; the caller rolls the rest back with a mark. */
OsiStatus osi_op_probe_subgraph(OsiOpCtx *ctx, const OsiGraph *graph, const char *tag,
                                int n_in, const OsiType *const *in_types, int n_out,
                                const OsiType **out_types);
/* 1 while the node is inferred inside such a probe run. */
int osi_op_probing(const OsiOpCtx *ctx);
/* For an If whose branches' outputs do not merge (ranks that differ, a dim
 * that would become data-dependent) under a condition the sizes leave
 * open (cond: its 0/1 size predicate): infers the rest of the node's graph
 * once with each branch's outputs (types[b][i], n_out of them), assuming
 * the condition that takes it, and returns the branch (0: then, 1: else)
 * after which the graph runs while with the other a node fails; -1 when
 * both run, both fail, or the run cannot afford it. Nothing of those runs
 * is kept; `why` gets the other branch's failure. */
int osi_op_branch_that_runs(OsiOpCtx *ctx, int n_out, const OsiType *const *types[2], OsiExpr cond, char *why,
                            size_t cap);
/* Records lhs == rhs (le: lhs <= rhs) as a requirement of the node, worded
 * `what`: what the node assumes for the model to run (an If branch that
 * cannot run). Fails like osi_op_require_eq on a contradiction. */
OsiStatus osi_op_assume(OsiOpCtx *ctx, OsiExpr lhs, OsiExpr rhs, int le, const char *what);
/* Node inferences the run may still make (OSI_NODE_VISITS_*), and the
 * nodes of a graph with its subgraphs': what optional extra runs weigh. */
int64_t osi_op_visits_left(const OsiOpCtx *ctx);
int64_t osi_op_graph_nodes(const OsiGraph *g);

#endif
