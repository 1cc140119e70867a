/*
 * Control flow: If, Loop, Scan. Bodies are graph attributes inferred in a
 * child scope where outer values stay visible. Where one value can take
 * several shapes (the two branches of an If, the iterations of a loop) the
 * types are merged: equal dims are kept; inside a body differing dims
 * become unknown, on the node's outputs they become fresh data-dependent
 * symbols (see merge_dim).
 */
#include <stdio.h>
#include <string.h>

#include "ops/helpers.h"

/* Rounds of re-inferring a loop body on widened carried types before the
 * carried types fall back to kinds and element types only. */
#define MAX_FIXED_POINT_ROUNDS 4
/* Loops of at most this many iterations are inferred iteration by
 * iteration (unroll), when that infers at most MAX_UNROLLED_NODES nodes
 * (subgraphs' included). */
#define MAX_UNROLL 16
#define MAX_UNROLLED_NODES 4096

static const OsiGraph *graph_attr(const OsiOpCtx *ctx, const char *name) {
  const OsiAttr *a = osi_attr(ctx, name);
  return a && a->type == OSI_ATTR_GRAPH ? a->g : NULL;
}

static const OsiType **type_array(OsiOpCtx *ctx, int n) {
  return osi_arena_array(osi_op_arena(ctx), (size_t)n + 1, sizeof(OsiType *));
}

/* Initial value of a carried variable: input i of the node, else the type
 * the body declares for its formal input j (which every iteration meets). */
static const OsiType *initial(const OsiOpCtx *ctx, int i, const OsiGraph *g, int j) {
  const OsiType *t = osi_in(ctx, i);
  return t ? t : g->inputs[j].type;
}

/* Infers a body; an output inference says nothing about falls back to the
 * body's declared output type. */
static OsiStatus infer_body(OsiOpCtx *ctx, const OsiGraph *g, const char *tag, int n_in,
                            const OsiType **in, int n_out, const OsiType **out) {
  OsiStatus st = osi_op_infer_subgraph(ctx, g, tag, n_in, in, n_out, out);
  if (st != OSI_OK) return st;
  for (int i = 0; i < n_out && i < g->n_outputs; i++)
    if (!out[i]) out[i] = g->outputs[i].type;
  return OSI_OK;
}

/* Where a merged dim comes from, for the diagnostic. */
typedef struct MergeSite {
  int output;
  const char *a_label, *b_label;
  int fresh_if_b_unknown; /* loops: a known dim that an iteration loses is data-dependent */
  const char *fresh_name; /* the name of a fresh dim: "if", "loop" */
  OsiExpr cond; /* If: the condition as a 0/1 size predicate (a is taken when it is 1), or unknown */
  const OsiExpr *grown; /* loops: per axis, the dim loop induction found, or unknown */
  int fresh; /* dims that became data-dependent */
} MergeSite;

/* The one size that is `a` where the condition holds and `b` where it
 * does not, when the simplifier proves one of a, b, Min(a, b), Max(a, b) is
 * (x[:4] under x.size(0) > 4, x otherwise: both are Min(x.size(0), 4)). */
static OsiExpr exact_merge(OsiExprStore *s, OsiExpr cond, OsiExpr a, OsiExpr b) {
  if (cond == OSI_EXPR_UNKNOWN || a == OSI_EXPR_UNKNOWN || b == OSI_EXPR_UNKNOWN) return OSI_EXPR_UNKNOWN;
  OsiExpr cands[4] = {a, b, osi_expr_min(s, a, b), osi_expr_max(s, a, b)};
  for (int i = 0; i < 4; i++)
    if (osi_expr_equal_where(s, cond, 1, a, cands[i]) && osi_expr_equal_where(s, cond, 0, b, cands[i]))
      return cands[i];
  return OSI_EXPR_UNKNOWN;
}

/*
 * Dim of a node output that is `a` on one path and `b` on another: the
 * size the condition makes it when that is one expression, else a fresh
 * data-dependent symbol, recorded as one of a and b (so at most Max(a, b)).
 */
static OsiExpr merge_dim(OsiOpCtx *ctx, OsiExpr a, OsiExpr b, int axis, void *user) {
  const MergeSite *site = user;
  OsiExprStore *s = osi_op_exprs(ctx);
  if (a == OSI_EXPR_UNKNOWN || (b == OSI_EXPR_UNKNOWN && !site->fresh_if_b_unknown))
    return OSI_EXPR_UNKNOWN;
  if (site->grown && site->grown[axis] != OSI_EXPR_UNKNOWN) return site->grown[axis];
  OsiExpr exact = exact_merge(s, site->cond, a, b);
  if (exact != OSI_EXPR_UNKNOWN) return exact;
  OsiExpr d = osi_op_fresh_dim(ctx, site->fresh_name);
  ((MergeSite *)site)->fresh++;
  osi_op_constrain_either(ctx, d, a, b);
  osi_op_diag_sizes(ctx, "DATA_DEPENDENT", "output %d dim %d is %E %s and %E %s; it becomes %E",
                    site->output, axis, a, site->a_label, b, site->b_label, d);
  return d;
}

/* 1 when the integer content of input i is one known constant. */
static int in_const_scalar(OsiOpCtx *ctx, int i, int64_t *out) {
  const OsiValue *v = osi_in_value(ctx, i);
  return v && v->ints && v->count == 1 && osi_expr_is_const(osi_op_exprs(ctx), v->ints[0], out);
}

/* The content of a one-element bool input (0 or 1, possibly symbolic:
 * x.size(0) > 4), else unknown. */
static OsiExpr in_bool_scalar(OsiOpCtx *ctx, int i) {
  const OsiValue *v = osi_in_value(ctx, i);
  return osi_in_dtype(ctx, i) == OSI_DT_BOOL && v && v->ints && v->count == 1 ? v->ints[0] : OSI_EXPR_UNKNOWN;
}

/* Whether types a and b lose their ranks or kinds when merged: then only
 * one branch may let the rest of the graph run. */
static int unmergeable(const OsiType *a, const OsiType *b) {
  if (!a || !b) return 0;
  if (a->kind != b->kind) return a->kind != OSI_KIND_UNKNOWN && b->kind != OSI_KIND_UNKNOWN;
  return a->kind == OSI_KIND_TENSOR && a->rank >= 0 && b->rank >= 0 && a->rank != b->rank;
}

/* An If whose branches do not merge, under an open condition `cond`: the
 * one branch after which the rest of the graph runs, its outputs set and
 * the condition that takes it required (1); 0 when both may run. */
static int take_branch_that_runs(OsiOpCtx *ctx, int n, const OsiType **out[2], OsiExpr cond, OsiMark merged) {
  static const char *const tags[2] = {"then_branch", "else_branch"};
  OsiExprStore *s = osi_op_exprs(ctx);
  char why[512];
  const OsiType *const *types[2] = {out[0], out[1]};
  int c = osi_op_branch_that_runs(ctx, n, types, cond, why, sizeof why);
  if (c < 0) return 0;
  osi_op_rollback(ctx, merged); /* the merge's data-dependent dims are not needed */
  OsiExpr lhs, rhs;
  int le;
  if (!osi_expr_predicate_relation(s, cond, c == 0, &lhs, &rhs, &le)) {
    lhs = c == 0 ? osi_expr_const(s, 1) : cond;
    rhs = c == 0 ? cond : osi_expr_const(s, 0);
    le = 1;
  }
  char what[700];
  snprintf(what, sizeof what, "If: only %s lets the model run (after %s, %s)", tags[c], tags[1 - c], why);
  if (osi_op_assume(ctx, lhs, rhs, le, what) != OSI_OK) return 0;
  for (int i = 0; i < n; i++) osi_set_out(ctx, i, out[c][i]);
  return 1;
}

/* If(cond): the outputs of then_branch or else_branch. A known cond picks
 * its branch whole, content included (exporters branch on constants in
 * shape subgraphs); otherwise both branches are merged output by output,
 * unless only one of them lets the rest of the graph run. */
OsiStatus osi_op_if(OsiOpCtx *ctx) {
  static const char *const tags[2] = {"then_branch", "else_branch"};
  const OsiGraph *g[2] = {graph_attr(ctx, tags[0]), graph_attr(ctx, tags[1])};
  int n = osi_out_count(ctx);
  for (int b = 0; b < 2; b++) {
    if (!g[b])
      return osi_op_fail(ctx, OSI_ERR_INVALID_MODEL, "attribute %s must be a graph", tags[b]);
    if (g[b]->n_outputs != n)
      return osi_op_fail(ctx, OSI_ERR_INVALID_MODEL, "%s has %d outputs; the node has %d", tags[b],
                         g[b]->n_outputs, n);
  }
  int64_t c = 0;
  int known = in_const_scalar(ctx, 0, &c);
  const OsiType **out[2] = {type_array(ctx, n), type_array(ctx, n)};
  if (!out[0] || !out[1]) return osi_op_fail(ctx, OSI_ERR_NOMEM, "out of memory");
  for (int b = 0; b < 2; b++) {
    /* The branch not taken may be invalid for these inputs: skip it. */
    if (known && b == (c != 0)) continue;
    OsiStatus st = known ? osi_op_infer_taken_branch(ctx, g[b], tags[b], n, out[b])
                         : infer_body(ctx, g[b], tags[b], 0, NULL, n, out[b]);
    if (st != OSI_OK) return st;
    for (int i = 0; known && i < n && i < g[b]->n_outputs; i++)
      if (!out[b][i]) out[b][i] = g[b]->outputs[i].type;
  }
  OsiMark mark = osi_op_mark(ctx);
  int lost = 0;
  for (int i = 0; i < n; i++) {
    MergeSite site = {i, "in then_branch", "in else_branch", 0, "if", in_bool_scalar(ctx, 0), NULL, 0};
    osi_set_out(ctx, i, known ? out[c ? 0 : 1][i]
                              : osi_type_merge(ctx, out[0][i], out[1][i], merge_dim, &site));
    lost |= site.fresh > 0 || (!known && unmergeable(out[0][i], out[1][i]));
  }
  if (lost) take_branch_that_runs(ctx, n, out, in_bool_scalar(ctx, 0), mark);
  return OSI_OK;
}

/* A loop-like body: inputs [pre | carried | post], outputs
 * [out_off entries | carried | scan outputs]. */
typedef struct LoopBody {
  const OsiGraph *g;
  int n_pre, n_state, n_post, out_off, n_out;
  int same_shape; /* Scan: a state keeps one shape in every iteration */
  const OsiType **in;  /* the carried part is widened to the fixed point */
  const OsiType **out; /* outputs of the last run, valid for every iteration */
} LoopBody;

/* Equal shapes, and the same content all the way down. */
static int same_type(const OsiType *a, const OsiType *b) {
  if (a == b) return 1;
  if (!osi_type_equal(a, b) || a->value != b->value) return 0;
  return a->kind == OSI_KIND_TENSOR || a->kind == OSI_KIND_SPARSE_TENSOR ||
         same_type(a->elem, b->elem);
}

/* Scan states have one shape in every iteration (spec), so a dim known on
 * either side holds for both. */
static OsiExpr same_shape_dim(OsiOpCtx *ctx, OsiExpr a, OsiExpr b, int axis, void *user) {
  (void)ctx, (void)axis, (void)user;
  return a != OSI_EXPR_UNKNOWN ? a : b;
}

/*
 * Re-infers the body with carried types widened by what an iteration
 * produces until nothing changes: the types then cover every iteration.
 * Past MAX_FIXED_POINT_ROUNDS the carried types keep only their kinds and
 * element types, and one last run on those is consistent by construction.
 */
static OsiStatus run_to_fixed_point(OsiOpCtx *ctx, LoopBody *b) {
  OsiDimMerge merge = b->same_shape ? same_shape_dim : NULL;
  const OsiType **state = b->in + b->n_pre;
  for (int round = 0;; round++) {
    /* Only the last round's diagnostics, constraints and events stand. */
    OsiMark mark = osi_op_mark(ctx);
    OsiStatus st = infer_body(ctx, b->g, "body", b->n_pre + b->n_state + b->n_post, b->in,
                              b->n_out, b->out);
    if (st != OSI_OK || round == MAX_FIXED_POINT_ROUNDS) return st;
    int changed = 0;
    for (int i = 0; i < b->n_state; i++) {
      const OsiType *m = osi_type_merge(ctx, state[i], b->out[b->out_off + i], merge, NULL);
      if (!same_type(m, state[i])) {
        state[i] = m;
        changed = 1;
      }
    }
    if (!changed) return OSI_OK;
    osi_op_rollback(ctx, mark);
    if (round == MAX_FIXED_POINT_ROUNDS - 1)
      for (int i = 0; i < b->n_state; i++)
        state[i] = osi_type_merge(ctx, state[i], NULL, NULL, NULL);
  }
}

/* What loop induction follows in a carried value, into *n: a tensor's
 * dims, or a sequence's length (one extent); NULL when neither is known. */
static const OsiExpr *extents(const OsiType *t, int *n) {
  if (t && t->kind == OSI_KIND_TENSOR && t->rank >= 0) return *n = t->rank, t->dims;
  if (t && t->kind == OSI_KIND_SEQUENCE) return *n = 1, &t->length;
  return NULL;
}

/* For probe_steps: clears *ok at a symbol made since `known` (a probe dim,
 * or a data-dependent count of one iteration, which the next may change). */
typedef struct StepCheck {
  OsiExprStore *s;
  uint32_t known;
  int ok;
} StepCheck;

static void check_step_symbol(const char *name, void *user) {
  StepCheck *c = user;
  if (osi_expr_symbol(c->s, name) >= c->known) c->ok = 0;
}

/*
 * Loop induction: runs the body once (nothing of the run kept) with every
 * carried tensor dim a fresh probe symbol p and carried contents unknown.
 * Where an output dim is p + k with k >= 0 made only of symbols known
 * before the probe (so the same in every iteration: not iteration_num, not
 * a carried content, not a count the body makes), the dim is
 * init + n*k after n iterations, for every init. step[i * OSI_MAX_RANK + a]
 * gets k, or unknown. Runs before the fixed point, so the body's recorded
 * values are those of the real runs.
 */
static void probe_steps(OsiOpCtx *ctx, const LoopBody *b, OsiExpr *step) {
  OsiExprStore *s = osi_op_exprs(ctx);
  OsiArena *arena = osi_op_arena(ctx);
  int n_in = b->n_pre + b->n_state + b->n_post, any = 0;
  for (int i = 0; i < b->n_state * OSI_MAX_RANK; i++) step[i] = OSI_EXPR_UNKNOWN;
  const OsiType **in = type_array(ctx, n_in), **out = type_array(ctx, b->n_out);
  if (!in || !out) return;
  StepCheck check = {s, osi_expr_node_count(s), 1};
  for (int j = 0; j < n_in; j++) in[j] = b->in[j];
  for (int i = 0; i < b->n_state; i++) {
    const OsiType *x = b->in[b->n_pre + i];
    OsiType *p = x && x->kind == OSI_KIND_TENSOR ? osi_type_tensor(arena, x->elem_type, x->rank) : NULL;
    in[b->n_pre + i] = p;
    for (int a = 0; p && a < p->rank; a++, any = 1) osi_type_dims_mut(p)[a] = osi_op_fresh_dim(ctx, "probe");
    /* A carried sequence: its length is the probe (a list appended to). */
    OsiType *q = x && x->kind == OSI_KIND_SEQUENCE ? osi_type_sequence(arena, x->elem) : NULL;
    if (q) {
      q->length = osi_op_fresh_dim(ctx, "probe");
      in[b->n_pre + i] = q;
      any = 1;
    }
  }
  if (!any) return;
  OsiMark mark = osi_op_mark(ctx);
  OsiStatus st = osi_op_probe_subgraph(ctx, b->g, "body", n_in, in, b->n_out, out);
  osi_op_rollback(ctx, mark);
  if (st != OSI_OK) return;
  OsiExpr zero = osi_expr_const(s, 0);
  for (int i = 0; i < b->n_state; i++) {
    const OsiType *x = in[b->n_pre + i], *y = out[b->out_off + i];
    int n;
    const OsiExpr *xd = extents(x, &n), *yd = extents(y, &n);
    if (!xd || !yd || y->kind != x->kind || (x->kind == OSI_KIND_TENSOR && y->rank != x->rank)) continue;
    for (int a = 0; a < n; a++) {
      OsiExpr k = osi_expr_sub(s, yd[a], xd[a]);
      check.ok = k != OSI_EXPR_UNKNOWN && osi_expr_max(s, k, zero) == k;
      if (check.ok) osi_expr_for_each_symbol(s, k, check_step_symbol, &check);
      if (check.ok) step[i * OSI_MAX_RANK + a] = k;
    }
  }
}

/*
 * Dims of carried tensor `init` (or the length of a carried sequence)
 * that grow by a fixed step k per iteration (probe_steps), into grown[]:
 * init + T*k after T iterations; with T data-dependent but at most
 * `most`, a fresh symbol between init and init + most*k. Unknown
 * elsewhere.
 */
static void grow(OsiOpCtx *ctx, const OsiType *init, const OsiExpr *step, OsiExpr trips,
                 OsiExpr most, int output, OsiExpr *grown) {
  OsiExprStore *s = osi_op_exprs(ctx);
  for (int a = 0; a < OSI_MAX_RANK; a++) grown[a] = OSI_EXPR_UNKNOWN;
  int n;
  const OsiExpr *d = extents(init, &n);
  for (int a = 0; d && a < n; a++) {
    OsiExpr k = step[a], d0 = d[a];
    int64_t c = -1;
    if (k == OSI_EXPR_UNKNOWN || d0 == OSI_EXPR_UNKNOWN) continue;
    if (trips != OSI_EXPR_UNKNOWN || (osi_expr_is_const(s, k, &c) && c == 0)) {
      grown[a] = trips != OSI_EXPR_UNKNOWN ? osi_expr_add(s, d0, osi_expr_mul(s, trips, k)) : d0;
      continue;
    }
    OsiExpr hi = osi_expr_add(s, d0, osi_expr_mul(s, most, k));
    if (hi == OSI_EXPR_UNKNOWN) continue;
    OsiExpr f = grown[a] = osi_op_fresh_dim(ctx, "loop");
    osi_op_constrain_le(ctx, d0, f);
    osi_op_constrain_le(ctx, f, hi);
    osi_op_diag_sizes(ctx, "DATA_DEPENDENT",
                      "output %d %s %d is %E before the loop and grows by %E per iteration, at most "
                      "%E times; it becomes %E (at most %E)", output,
                      init->kind == OSI_KIND_TENSOR ? "dim" : "length", a, d0, k, most, f, hi);
  }
}

/* Final value of carried variable i: the initial value when no iteration
 * runs, else a merge of the initial and the per-iteration types. A tensor
 * dim an iteration changes is one data-dependent value; an unknown dim of
 * sequence elements may differ between elements, so it stays unknown. */
static const OsiType *carried_out(OsiOpCtx *ctx, const OsiType *init, const OsiType *iter, int i,
                                  int no_iterations, const OsiExpr *grown) {
  if (no_iterations) return init;
  int tensor = init && init->kind == OSI_KIND_TENSOR;
  MergeSite site = {i, "before the loop", "after an iteration", tensor, "loop", OSI_EXPR_UNKNOWN,
                    tensor ? grown : NULL, 0};
  const OsiType *t = osi_type_merge(ctx, init, iter, merge_dim, &site);
  if (!t || t->kind != OSI_KIND_SEQUENCE || grown[0] == OSI_EXPR_UNKNOWN) return t;
  /* A list appended to: the elements merged, the length induction's. */
  OsiType *seq = osi_type_copy(osi_op_arena(ctx), t);
  if (seq) seq->length = grown[0], seq->elems = NULL;
  return seq ? seq : t;
}

/* Stacks per-iteration values of a scan output: `len` inserted at `axis`
 * of the body's type (axis in [-(r+1), r]). */
static OsiStatus stack(OsiOpCtx *ctx, int out, const OsiType *elem, OsiExpr len, int64_t axis) {
  if (!elem || elem->kind != OSI_KIND_TENSOR) return OSI_OK;
  if (elem->rank < 0) {
    osi_out_tensor(ctx, out, elem->elem_type, -1);
    return OSI_OK;
  }
  int a, r = elem->rank + 1;
  if (!osi_norm_axis(axis, r, &a))
    return osi_op_fail(ctx, OSI_ERR_INVALID_MODEL,
                       "scan output axis %lld is out of range for rank %d", (long long)axis, r);
  if (r > OSI_MAX_RANK) return osi_op_fail(ctx, OSI_ERR_LIMIT_EXCEEDED, "scan output rank %d", r);
  OsiType *y = osi_out_tensor(ctx, out, elem->elem_type, r);
  if (!y) return OSI_OK;
  OsiExpr *d = osi_type_dims_mut(y);
  for (int i = 0, k = 0; i < r; i++) d[i] = i == a ? len : elem->dims[k++];
  return OSI_OK;
}

/* 1 when a dim or content entry of t (its elements included) names a
 * symbol made since `known`. */
static int names_new_symbol(OsiExprStore *s, const OsiType *t, uint32_t known, int depth) {
  if (!t || depth > 16) return 0;
  StepCheck c = {s, known, 1};
  for (int i = 0; i < t->rank && c.ok; i++) osi_expr_for_each_symbol(s, t->dims[i], check_step_symbol, &c);
  const OsiValue *v = t->value;
  const OsiExpr *e = v ? (v->ints ? v->ints : v->floats) : NULL;
  for (int64_t i = 0; e && i < v->count && c.ok; i++) osi_expr_for_each_symbol(s, e[i], check_step_symbol, &c);
  if (!c.ok || names_new_symbol(s, t->elem, known, depth + 1)) return 1;
  for (int i = 0; t->elems && i < t->n_elems; i++)
    if (names_new_symbol(s, t->elems[i], known, depth + 1)) return 1;
  return 0;
}

/* The content of a body's cond output: 0 or 1, or -1 when not known. */
static int cond_value(OsiExprStore *s, const OsiType *cond) {
  int64_t k;
  const OsiValue *v = cond ? cond->value : NULL;
  return v && v->ints && v->count == 1 && osi_expr_is_const(s, v->ints[0], &k) ? k != 0 : -1;
}

/*
 * Loops whose iterations the shapes decide, run one by one: a trip count
 * known to be at most MAX_UNROLL (cond absent or known true), or a cond
 * known false after one of the first MAX_UNROLL iterations. Each
 * iteration is inferred on the carried values the one before produced,
 * with iteration_num known, so what differs between iterations stays
 * exact: torch's tensor_split is a loop over its split points that
 * inserts pieces of different sizes into a sequence. The runs are probes
 * (nothing of them kept: the fixed point has recorded the body for every
 * iteration). Returns 1 with the node's outputs set; 0, nothing set, when
 * the loop is not unrolled: iterations not decided or too many, a run
 * failing, or an output naming a size some iteration made (a
 * data-dependent count, whose bounds the rollback drops).
 */
static int unroll(OsiOpCtx *ctx, const LoopBody *b) {
  OsiExprStore *s = osi_op_exprs(ctx);
  OsiArena *arena = osi_op_arena(ctx);
  int n_state = b->n_state, n_scan = b->n_out - 1 - n_state, has_cond = osi_in_present(ctx, 1);
  int64_t trips = -1, c = 1;
  if (osi_in_present(ctx, 0) ? !in_const_scalar(ctx, 0, &trips) || trips < 1 || trips > MAX_UNROLL : !has_cond)
    return 0;
  if ((has_cond && (!in_const_scalar(ctx, 1, &c) || c == 0)) || osi_op_probing(ctx)) return 0;
  /* Optional runs: never the ones that would take the run past its node
   * budget (a model of many short loops), at most a quarter of what is left. */
  int64_t limit = trips > 0 ? trips : MAX_UNROLL, weight = limit * osi_op_graph_nodes(b->g);
  if (weight > MAX_UNROLLED_NODES || weight > osi_op_visits_left(ctx) / 4) return 0;
  const OsiType **in = type_array(ctx, 2 + n_state), **out = type_array(ctx, b->n_out);
  const OsiType **scan = type_array(ctx, n_scan);
  if (!in || !out || !scan) return 0;
  for (int i = 0; i < 2 + n_state; i++) in[i] = b->in[i];
  for (int i = 0; i < n_state; i++) in[2 + i] = initial(ctx, 2 + i, b->g, 2 + i);
  uint32_t known = osi_expr_node_count(s);
  OsiMark mark = osi_op_mark(ctx);
  int64_t ran = 0;
  int ended = 0, ok = 1;
  while (ok && !ended && ran < limit) {
    OsiType *iter = osi_type_tensor(arena, OSI_DT_INT64, 0);
    OsiExpr v = osi_expr_const(s, ran);
    if (!iter) break;
    osi_set_value(ctx, iter, 1, &v);
    in[0] = iter;
    ok = osi_op_probe_subgraph(ctx, b->g, "body", 2 + n_state, in, b->n_out, out) == OSI_OK;
    for (int i = 0; ok && i < b->n_out && i < b->g->n_outputs; i++)
      if (!out[i]) out[i] = b->g->outputs[i].type;
    for (int k = 0; ok && k < n_scan; k++)
      scan[k] = ran ? osi_type_merge(ctx, scan[k], out[1 + n_state + k], NULL, NULL) : out[1 + n_state + k];
    for (int i = 0; ok && i < n_state; i++) in[2 + i] = out[1 + i];
    int cv = has_cond && ok ? cond_value(s, out[0]) : 1;
    ok = ok && cv >= 0;
    ended = cv == 0;
    ran++;
  }
  osi_op_rollback(ctx, mark);
  ok = ok && (ended || ran == trips);
  for (int i = 0; ok && i < n_state; i++) ok = !names_new_symbol(s, in[2 + i], known, 0);
  for (int k = 0; ok && k < n_scan; k++) ok = !names_new_symbol(s, scan[k], known, 0);
  if (!ok) return 0;
  for (int i = 0; i < n_state; i++) osi_set_out(ctx, i, in[2 + i]);
  for (int k = 0; k < n_scan; k++)
    if (stack(ctx, n_state + k, scan[k], osi_expr_const(s, ran), 0) != OSI_OK) return 0;
  return 1;
}

/*
 * Iterations of a Loop: Max(M, 0) when M is known and nothing stops the
 * loop early (cond absent, or true and kept true by the body); 0 when cond
 * is constant false; otherwise data-dependent (UNKNOWN; *why set).
 */
static OsiExpr loop_trips(OsiOpCtx *ctx, const OsiType *cond_out, const char **why,
                          OsiExpr *most) {
  OsiExprStore *s = osi_op_exprs(ctx);
  int64_t c = 1, k = 0;
  int has_cond = osi_in_present(ctx, 1), known_cond = has_cond && in_const_scalar(ctx, 1, &c);
  if (known_cond && c == 0) return osi_expr_const(s, 0);
  const OsiValue *m = osi_in_present(ctx, 0) ? osi_in_value(ctx, 0) : NULL;
  OsiExpr trips = m && m->ints && m->count == 1 ? m->ints[0] : OSI_EXPR_UNKNOWN;
  *most = osi_expr_max(s, trips, osi_expr_const(s, 0));
  int stays = !has_cond || (known_cond && cond_out && cond_out->value && cond_out->value->ints &&
                            cond_out->value->count == 1 &&
                            osi_expr_is_const(s, cond_out->value->ints[0], &k) && k != 0);
  *why = !osi_in_present(ctx, 0) ? "there is no trip count"
         : trips == OSI_EXPR_UNKNOWN ? "the trip count is not known"
         : "the condition can end the loop early";
  return stays && trips != OSI_EXPR_UNKNOWN ? osi_expr_max(s, trips, osi_expr_const(s, 0))
                                            : OSI_EXPR_UNKNOWN;
}

/*
 * Loop(M?, cond?, v_initial...), body(iteration_num, cond_in, v...) ->
 * (cond_out, v..., scan...). Carried values: fixed point over iterations.
 * Scan outputs stack the per-iteration values on a new axis 0 of size the
 * number of iterations (a fresh symbol when data decides it).
 */
OsiStatus osi_op_loop(OsiOpCtx *ctx) {
  const OsiGraph *g = graph_attr(ctx, "body");
  int n_state = osi_in_count(ctx) - 2, n_out = osi_out_count(ctx);
  if (!g) return osi_op_fail(ctx, OSI_ERR_INVALID_MODEL, "attribute body must be a graph");
  if (n_state < 0 || n_out < n_state || g->n_inputs != n_state + 2 || g->n_outputs != n_out + 1)
    return osi_op_fail(ctx, OSI_ERR_INVALID_MODEL,
                       "a Loop with %d carried values and %d outputs needs a body with %d inputs "
                       "and %d outputs (it has %d and %d)", n_state, n_out, n_state + 2, n_out + 1,
                       g->n_inputs, g->n_outputs);
  OsiArena *arena = osi_op_arena(ctx);
  LoopBody b = {g, 2, n_state, 0, 1, n_out + 1, 0, type_array(ctx, n_state + 2),
                type_array(ctx, n_out + 1)};
  OsiType *iter = osi_type_tensor(arena, OSI_DT_INT64, 0);
  OsiType *cond = osi_type_tensor(arena, OSI_DT_BOOL, 0);
  if (!b.in || !b.out || !iter || !cond) return osi_op_fail(ctx, OSI_ERR_NOMEM, "out of memory");
  /* With cond given, the body only runs while it holds. */
  OsiExpr one = osi_expr_const(osi_op_exprs(ctx), 1);
  if (osi_in_present(ctx, 1)) osi_set_value(ctx, cond, 1, &one);
  b.in[0] = iter;
  b.in[1] = cond;
  for (int i = 0; i < n_state; i++) b.in[2 + i] = initial(ctx, 2 + i, g, 2 + i);
  OsiExpr *step = osi_arena_array(arena, (size_t)n_state * OSI_MAX_RANK + 1, sizeof(OsiExpr));
  if (!step) return osi_op_fail(ctx, OSI_ERR_NOMEM, "out of memory");
  probe_steps(ctx, &b, step);
  OsiStatus st = run_to_fixed_point(ctx, &b);
  if (st != OSI_OK || unroll(ctx, &b)) return st;
  const char *why = "";
  OsiExpr most = OSI_EXPR_UNKNOWN, grown[OSI_MAX_RANK];
  OsiExpr trips = loop_trips(ctx, b.out[0], &why, &most);
  int64_t t = -1;
  int none = osi_expr_is_const(osi_op_exprs(ctx), trips, &t) && t == 0;
  for (int i = 0; i < n_state; i++) {
    const OsiType *init = initial(ctx, 2 + i, g, 2 + i);
    if (!none) grow(ctx, init, step + (size_t)i * OSI_MAX_RANK, trips, most, i, grown);
    osi_set_out(ctx, i, carried_out(ctx, init, b.out[1 + i], i, none, grown));
  }
  if (n_out > n_state && trips == OSI_EXPR_UNKNOWN) {
    trips = osi_op_fresh_dim(ctx, "iterations");
    osi_op_diag_sizes(ctx, "DATA_DEPENDENT", "scan outputs have %E rows: %s", trips, why);
  }
  for (int k = n_state; k < n_out && st == OSI_OK; k++) st = stack(ctx, k, b.out[1 + k], trips, 0);
  return st;
}

/* x without its dim `axis` (content dropped); unknown rank stays unknown. */
static const OsiType *drop_axis(OsiOpCtx *ctx, const OsiType *x, int axis) {
  if (!x || x->kind != OSI_KIND_TENSOR) return NULL;
  if (x->rank < 0) return osi_type_tensor(osi_op_arena(ctx), x->elem_type, -1);
  OsiType *y = osi_type_tensor(osi_op_arena(ctx), x->elem_type, x->rank - 1);
  if (!y) return NULL;
  for (int i = 0, k = 0; i < x->rank; i++)
    if (i != axis) osi_type_dims_mut(y)[k++] = x->dims[i];
  return y;
}

/* Keeps the first known dim in *acc; two different constants contradict. */
static OsiStatus agree(OsiOpCtx *ctx, OsiExpr *acc, OsiExpr d, const char *what, int input) {
  int64_t a, b;
  OsiExprStore *s = osi_op_exprs(ctx);
  if (*acc != OSI_EXPR_UNKNOWN && osi_expr_is_const(s, *acc, &a) && osi_expr_is_const(s, d, &b) &&
      a != b)
    return osi_op_fail(ctx, OSI_ERR_SHAPE_MISMATCH,
                       "input %d has %s %lld; an earlier input has %lld", input, what,
                       (long long)b, (long long)a);
  if (*acc == OSI_EXPR_UNKNOWN) *acc = d;
  return OSI_OK;
}

/* A Scan body's declared inputs against what the node feeds them (states,
 * scan slices): onnxruntime's load-time inference merges the two and
 * refuses known dims that differ (a Scan state keeps its shape, so unlike
 * Loop's carried values they are not left open). */
static OsiStatus check_declared_inputs(OsiOpCtx *ctx, const OsiGraph *g, int n, const OsiType **in) {
  OsiExprStore *s = osi_op_exprs(ctx);
  for (int i = 0; i < n && i < g->n_inputs; i++) {
    const OsiType *d = g->inputs[i].type, *a = in[i];
    if (!d || !a || d->kind != OSI_KIND_TENSOR || a->kind != OSI_KIND_TENSOR || d->rank < 0 || a->rank < 0) continue;
    if (d->rank != a->rank)
      return osi_op_fail(ctx, OSI_ERR_SHAPE_MISMATCH, "body input %d is declared with rank %d; the node gives it rank %d",
                         i, d->rank, a->rank);
    for (int k = 0; k < d->rank; k++) {
      int64_t x, y;
      if (osi_expr_is_const(s, d->dims[k], &x) && osi_expr_is_const(s, a->dims[k], &y) && x != y)
        return osi_op_fail(ctx, OSI_ERR_SHAPE_MISMATCH, "body input %d is declared with dim %d of %lld; the node gives it %lld",
                           i, k, (long long)x, (long long)y);
    }
  }
  return OSI_OK;
}

/*
 * Scan-8(sequence_lens?, state..., scan...): batch axis 0, sequence axis 1.
 * The body sees states without the batch axis and scan inputs without both;
 * scan outputs are [batch, max sequence length, ...] (shorter sequences are
 * padded), final states [batch, ...].
 */
static OsiStatus scan8(OsiOpCtx *ctx, const OsiGraph *g, int m) {
  int n_in = osi_in_count(ctx) - 1, n_state = n_in - m, n_out = osi_out_count(ctx);
  if (n_state < 0 || n_out < n_state || g->n_inputs != n_in || g->n_outputs != n_out)
    return osi_op_fail(ctx, OSI_ERR_INVALID_MODEL,
                       "the body must take %d inputs and return %d outputs", n_in, n_out);
  LoopBody b = {g, 0, n_state, m, 0, n_out, 1, type_array(ctx, n_in), type_array(ctx, n_out)};
  if (!b.in || !b.out) return osi_op_fail(ctx, OSI_ERR_NOMEM, "out of memory");
  OsiExpr batch = OSI_EXPR_UNKNOWN, len = OSI_EXPR_UNKNOWN;
  OsiStatus st = OSI_OK;
  for (int i = 0; i < n_in && st == OSI_OK; i++) {
    const OsiType *x = osi_in(ctx, 1 + i);
    int scan = i >= n_state;
    if (x && x->kind == OSI_KIND_TENSOR && x->rank >= 0 && x->rank < 1 + scan)
      return osi_op_fail(ctx, OSI_ERR_INVALID_MODEL, "input %d needs a batch%s axis", 1 + i,
                         scan ? " and a sequence" : "");
    b.in[i] = drop_axis(ctx, x, 0);
    if (scan) b.in[i] = drop_axis(ctx, b.in[i], 0);
    if (!osi_in_ranked(ctx, 1 + i)) continue;
    st = agree(ctx, &batch, x->dims[0], "batch size", 1 + i);
    if (st == OSI_OK && scan) st = agree(ctx, &len, x->dims[1], "sequence length", 1 + i);
  }
  if (st == OSI_OK) st = check_declared_inputs(ctx, g, n_in, b.in);
  if (st == OSI_OK) st = run_to_fixed_point(ctx, &b);
  if (st != OSI_OK) return st;
  for (int i = 0; i < n_state && st == OSI_OK; i++)
    st = stack(ctx, i, b.in[i], batch, 0);
  for (int k = n_state; k < n_out && st == OSI_OK; k++) {
    st = stack(ctx, k, b.out[k], len, 0);
    if (st == OSI_OK) st = stack(ctx, k, osi_out(ctx, k), batch, 0);
  }
  return st;
}

/* Axis i of an optional ints attribute, 0 when absent. */
static int64_t axis_at(const OsiOpCtx *ctx, const char *name, int i) {
  const int64_t *v;
  int n = osi_attr_ints(ctx, name, &v);
  return i < n ? v[i] : 0;
}

/*
 * Scan (opset 9+; Scan-8 has a batch axis, see scan8): inputs are state
 * variables then num_scan_inputs scan inputs, iterated along
 * scan_input_axes (the body sees them without that axis). States: fixed
 * point like Loop. Scan outputs get the sequence length inserted at
 * scan_output_axes (default 0). Directions do not change shapes.
 */
OsiStatus osi_op_scan(OsiOpCtx *ctx) {
  const OsiGraph *g = graph_attr(ctx, "body");
  int64_t m = osi_attr_int(ctx, "num_scan_inputs", -1);
  if (!g || m < 0 || m > osi_in_count(ctx))
    return osi_op_fail(ctx, OSI_ERR_INVALID_MODEL,
                       "Scan needs a graph body and num_scan_inputs in [0, %d]", osi_in_count(ctx));
  if (osi_op_opset(ctx) < 9) return scan8(ctx, g, (int)m);
  int n_in = osi_in_count(ctx), n_state = n_in - (int)m, n_out = osi_out_count(ctx);
  if (n_out < n_state || g->n_inputs != n_in || g->n_outputs != n_out)
    return osi_op_fail(ctx, OSI_ERR_INVALID_MODEL,
                       "the body must take %d inputs and return %d outputs", n_in, n_out);
  LoopBody b = {g, 0, n_state, (int)m, 0, n_out, 1, type_array(ctx, n_in), type_array(ctx, n_out)};
  if (!b.in || !b.out) return osi_op_fail(ctx, OSI_ERR_NOMEM, "out of memory");
  OsiExpr len = OSI_EXPR_UNKNOWN;
  OsiStatus st = OSI_OK;
  for (int i = 0; i < n_in && st == OSI_OK; i++) {
    const OsiType *x = osi_in(ctx, i);
    b.in[i] = initial(ctx, i, g, i);
    if (i < n_state) continue;
    int axis = 0;
    b.in[i] = drop_axis(ctx, x, 0);
    if (!osi_in_ranked(ctx, i)) continue;
    if (!osi_norm_axis(axis_at(ctx, "scan_input_axes", i - n_state), x->rank, &axis))
      return osi_op_fail(ctx, OSI_ERR_INVALID_MODEL,
                         "scan_input_axes[%d] is out of range for rank %d", i - n_state, x->rank);
    b.in[i] = drop_axis(ctx, x, axis);
    st = agree(ctx, &len, x->dims[axis], "sequence length", i);
  }
  if (st == OSI_OK) st = check_declared_inputs(ctx, g, n_in, b.in);
  if (st == OSI_OK) st = run_to_fixed_point(ctx, &b);
  if (st != OSI_OK) return st;
  for (int i = 0; i < n_state; i++) osi_set_out(ctx, i, b.in[i]);
  for (int k = n_state; k < n_out && st == OSI_OK; k++)
    st = stack(ctx, k, b.out[k], len, axis_at(ctx, "scan_output_axes", k - n_state));
  return st;
}
