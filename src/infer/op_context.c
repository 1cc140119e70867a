/* Accessors of the op interface (ops/ops.h). */
#include <stdio.h>
#include <string.h>

#include "infer/constraints.h"
#include "infer/facts.h"
#include "infer/op_context.h"

int64_t osi_op_opset(const OsiOpCtx *ctx) { return ctx->opset; }
const char *osi_op_type(const OsiOpCtx *ctx) { return ctx->node->op_type; }
const char *osi_op_name(const OsiOpCtx *ctx) { return ctx->node->name; }
int osi_op_is_onnx(const OsiOpCtx *ctx) {
  const char *d = ctx->node->domain ? ctx->node->domain : "";
  return !d[0] || !strcmp(d, "ai.onnx");
}
OsiArena *osi_op_arena(OsiOpCtx *ctx) { return ctx->scope->run->arena; }
OsiExprStore *osi_op_exprs(OsiOpCtx *ctx) { return ctx->scope->run->exprs; }

int osi_in_count(const OsiOpCtx *ctx) { return ctx->node->n_inputs; }

int osi_in_present(const OsiOpCtx *ctx, int i) {
  if (i < 0 || i >= ctx->node->n_inputs) return 0;
  return ctx->in_entry ? ctx->in_entry[i] != NULL : ctx->node->inputs[i][0] != 0;
}

const OsiType *osi_in(const OsiOpCtx *ctx, int i) {
  return i >= 0 && i < ctx->node->n_inputs ? ctx->in[i] : NULL;
}

const OsiType *osi_in_ranked(const OsiOpCtx *ctx, int i) {
  const OsiType *t = osi_in(ctx, i);
  return t && t->kind == OSI_KIND_TENSOR && t->rank >= 0 ? t : NULL;
}

const OsiValue *osi_in_value(const OsiOpCtx *ctx, int i) {
  const OsiType *t = osi_in(ctx, i);
  return t ? t->value : NULL;
}

int32_t osi_in_dtype(const OsiOpCtx *ctx, int i) {
  const OsiType *t = osi_in(ctx, i);
  return t && t->kind == OSI_KIND_TENSOR ? t->elem_type : 0;
}

const OsiAttr *osi_attr(const OsiOpCtx *ctx, const char *name) {
  return osi_node_attr(ctx->node, name);
}

const OsiAttr *osi_node_attr(const OsiNode *node, const char *name) {
  /* The first byte first: most names asked for are not the attribute
   * looked at, and a call of strcmp per attribute was a CNN's hottest call. */
  for (int i = 0; i < node->n_attrs; i++)
    if (node->attrs[i].name[0] == name[0] && strcmp(node->attrs[i].name, name) == 0) return &node->attrs[i];
  return NULL;
}

int osi_attr_has(const OsiOpCtx *ctx, const char *name) { return osi_attr(ctx, name) != NULL; }

/* The attribute `name` when it has type `want` (or, for `also`, that one),
 * else NULL; a present attribute of another declared type is recorded in
 * ctx->bad_attr (ctx is always a mutable OsiOpCtx of infer_node; the
 * accessors take it const only because ops read through them). An
 * attribute with no declared type (UNDEFINED, very old writers) is left to
 * the caller's default, as before. */
static const OsiAttr *typed_attr(const OsiOpCtx *ctx, const char *name, int want, int also) {
  const OsiAttr *a = osi_attr(ctx, name);
  if (!a) return NULL;
  if ((int)a->type == want || (also && (int)a->type == also)) return a;
  if (a->type != OSI_ATTR_UNDEFINED && !ctx->bad_attr) {
    OsiOpCtx *m = (OsiOpCtx *)ctx;
    m->bad_attr = a;
    m->bad_attr_want = want;
  }
  return NULL;
}

int64_t osi_attr_int(const OsiOpCtx *ctx, const char *name, int64_t dflt) {
  const OsiAttr *a = typed_attr(ctx, name, OSI_ATTR_INT, 0);
  return a ? a->i : dflt;
}

double osi_attr_float(const OsiOpCtx *ctx, const char *name, double dflt) {
  const OsiAttr *a = typed_attr(ctx, name, OSI_ATTR_FLOAT, OSI_ATTR_INT);
  if (!a) return dflt;
  if (a->type == OSI_ATTR_FLOAT) return a->f;
  if (a->type == OSI_ATTR_INT) return (double)a->i;
  return dflt;
}

const char *osi_attr_str(const OsiOpCtx *ctx, const char *name, const char *dflt) {
  const OsiAttr *a = typed_attr(ctx, name, OSI_ATTR_STRING, 0);
  return a && a->s ? a->s : dflt;
}

int osi_attr_ints(const OsiOpCtx *ctx, const char *name, const int64_t **out) {
  const OsiAttr *a = typed_attr(ctx, name, OSI_ATTR_INTS, 0);
  if (!a) return -1;
  *out = a->ints;
  return (int)a->n;
}

int osi_attr_floats(const OsiOpCtx *ctx, const char *name, const double **out) {
  const OsiAttr *a = typed_attr(ctx, name, OSI_ATTR_FLOATS, 0);
  if (!a) return -1;
  *out = a->floats;
  return (int)a->n;
}

const OsiTensor *osi_attr_tensor(const OsiOpCtx *ctx, const char *name) {
  const OsiAttr *a = typed_attr(ctx, name, OSI_ATTR_TENSOR, OSI_ATTR_SPARSE_TENSOR);
  return a ? a->t : NULL;
}

int osi_out_count(const OsiOpCtx *ctx) { return ctx->node->n_outputs; }

int osi_out_present(const OsiOpCtx *ctx, int i) {
  if (i < 0 || i >= ctx->node->n_outputs) return 0;
  return ctx->out_entry ? ctx->out_entry[i] != NULL : ctx->node->outputs[i][0] != 0;
}

void osi_set_out(OsiOpCtx *ctx, int i, const OsiType *type) {
  if (i >= 0 && i < ctx->node->n_outputs) ctx->out[i] = type;
}

const OsiType *osi_out(const OsiOpCtx *ctx, int i) {
  return i >= 0 && i < ctx->node->n_outputs ? ctx->out[i] : NULL;
}

OsiStatus osi_op_fail(OsiOpCtx *ctx, OsiStatus status, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(ctx->message, sizeof ctx->message, fmt, ap);
  va_end(ap);
  return status;
}

void osi_op_diag(OsiOpCtx *ctx, const char *code, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  osi_run_vdiag(ctx->scope->run, code, ctx->node->name, ctx->node->op_type, ctx->node_index, fmt,
                ap);
  va_end(ap);
}

void osi_op_diag_sizes(OsiOpCtx *ctx, const char *code, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  osi_run_vdiag_sizes(ctx->scope->run, code, ctx->node->name, ctx->node->op_type, ctx->node_index,
                      fmt, ap);
  va_end(ap);
}

OsiExpr osi_op_fresh_dim(OsiOpCtx *ctx, const char *what) {
  OsiRun *run = ctx->scope->run;
  if (run->speculating) { /* never in a result: named apart from the real run's (if_3 stays if_3) */
    char name[64];
    snprintf(name, sizeof name, "speculated_%.40s", what);
    return osi_expr_fresh(run->exprs, name);
  }
  return osi_expr_fresh(run->exprs, what);
}

const OsiType *osi_op_tensor_type(OsiOpCtx *ctx, const OsiTensor *t) {
  return osi_tensor_type(ctx->scope->run, t);
}

void osi_op_constrain_le(OsiOpCtx *ctx, OsiExpr lhs, OsiExpr rhs) {
  osi_constraint_less_equal(ctx->scope->run, lhs, rhs);
}

void osi_op_constrain_eq(OsiOpCtx *ctx, OsiExpr a, OsiExpr b) {
  osi_constraint_equal(ctx->scope->run, a, b);
}

void osi_op_constrain_either(OsiOpCtx *ctx, OsiExpr d, OsiExpr a, OsiExpr b) {
  OsiRun *run = ctx->scope->run;
  osi_constraint_either(run, d, a);
  osi_constraint_either(run, d, b);
  if (b != OSI_EXPR_UNKNOWN) osi_constraint_less_equal(run, d, osi_expr_max(run->exprs, a, b));
}

/* Section - Requirements (shape checks) */

const char *osi_op_input_label(OsiOpCtx *ctx, int i, char *buf, size_t cap) {
  const char *name = i >= 0 && i < ctx->node->n_inputs ? ctx->node->inputs[i] : "";
  if (name[0] && strlen(name) <= 64 && !strchr(name, '\'')) snprintf(buf, cap, "input '%s'", name);
  else snprintf(buf, cap, "input %d", i);
  return buf;
}

static const char *what_text(OsiOpCtx *ctx, OsiWhat w, char *buf, size_t cap) {
  if (w.text && w.input == -2) { /* OSI_DIM_OF */
    snprintf(buf, cap, "dim %d of %s", w.axis, w.text);
    return buf;
  }
  if (w.text) return w.text;
  char label[96];
  snprintf(buf, cap, "dim %d of %s", w.axis, osi_op_input_label(ctx, w.input, label, sizeof label));
  return buf;
}

/* e with the constant arguments of its outer Max (want_max) or Min that
 * can never make c <= e (Max: those below c) or e <= c (Min: those above
 * c) dropped: the requirement holds exactly where it holds of the rest,
 * and reads (and bounds its symbols) without the clamp, as 3 <= (H+1)//4
 * for 3 <= Max((H+1)//4,1). e itself when nothing is dropped or nothing
 * would be left. */
static OsiExpr without_clamps(OsiExprStore *s, OsiExpr e, int64_t c, int want_max) {
  int is_max;
  if (!osi_expr_is_minmax(s, e, &is_max) || is_max != want_max) return e;
  OsiExpr rest = OSI_EXPR_UNKNOWN;
  int dropped = 0;
  for (int i = 0, n = osi_expr_arity(s, e); i < n; i++) {
    OsiExpr x = osi_expr_arg(s, e, i);
    int64_t k;
    if (osi_expr_is_const(s, x, &k) && (want_max ? k < c : k > c)) {
      dropped = 1;
      continue;
    }
    rest = rest == OSI_EXPR_UNKNOWN ? x : want_max ? osi_expr_max(s, rest, x) : osi_expr_min(s, rest, x);
    if (rest == OSI_EXPR_UNKNOWN) return e;
  }
  return dropped && rest != OSI_EXPR_UNKNOWN ? rest : e;
}

/* The rule's name, "<head><tail><number>" (no number when it is below 0):
 * made only when a message needs it. */
typedef struct RuleName {
  const char *head, *tail;
  int number;
} RuleName;

/* (Out of line: it runs only for a message.) */
__attribute__((noinline)) static const char *rule_text(const RuleName *r, char *buf, size_t cap) {
  if (!r->head) return "";
  /* "%s%s%d" would print the tail's NULL; a head alone needs no copy */
  if (!r->tail && r->number < 0) return r->head;
  snprintf(buf, cap, r->number < 0 ? "%s%s" : "%s%s%d", r->head, r->tail ? r->tail : "", r->number);
  return buf;
}

/* `worded`: the requirement's message, instead of one made of rule, wa and wb.
 * `one_of`: a requirement that a size is 1 or a constant (a == b is its
 * product form), else NULL. */
static OsiStatus require_as(OsiOpCtx *ctx, const RuleName *rn, OsiExpr a, OsiWhat wa, OsiExpr b, OsiWhat wb,
                            int le, const char *worded, const OsiRequirement *one_of) {
  if (a == OSI_EXPR_UNKNOWN || b == OSI_EXPR_UNKNOWN || a == b) return OSI_OK;
  OsiRun *run = ctx->scope->run;
  OsiExprStore *s = run->exprs;
  char ta[160], tb[160], what[400], rule_buf[96]; /* (rule_buf: as the callers' buffers were) */
  int64_t ca, cb;
  const char *prefix = "", *sep = "";
  if (le && osi_expr_is_const(s, a, &ca)) b = without_clamps(s, b, ca, 1);
  else if (le && osi_expr_is_const(s, b, &cb)) a = without_clamps(s, a, cb, 0);
  if (a == b) return OSI_OK;
  /* Sizes are never negative: 0 (or less) <= a size always holds. */
  if (le && osi_expr_is_const(s, a, &ca) && ca <= 0 && osi_expr_max(s, b, osi_expr_const(s, 0)) == b) return OSI_OK;
  if (osi_expr_is_const(s, a, &ca) && osi_expr_is_const(s, b, &cb)) {
    if (le ? ca <= cb : ca == cb) return OSI_OK;
    prefix = rule_text(rn, rule_buf, sizeof rule_buf), sep = prefix[0] ? ": " : "";
    return osi_op_fail(ctx, OSI_ERR_SHAPE_MISMATCH, le ? "%s%s%s is %lld, more than %s (%lld)" : "%s%s%s is %lld where %s is %lld",
                       prefix, sep, what_text(ctx, wa, ta, sizeof ta), (long long)ca,
                       what_text(ctx, wb, tb, sizeof tb), (long long)cb);
  }
  /* An equality reads symbol-first (M == 3). */
  OsiExpr ql = a, qr = b;
  if (!le && osi_expr_is_const(s, a, &ca)) ql = b, qr = a;
  OsiRequirement q = {ql, qr, le, ctx->node_index, ctx->node->name, ctx->node->op_type, ctx->scope->path, NULL,
                      one_of ? one_of->one_of : OSI_EXPR_UNKNOWN, one_of ? one_of->one_of_size : 0};
  int against;
  OsiReqVerdict v = osi_requirements_add(&run->requirements, s, run->arena, &q, &against);
  /* The texts only once the requirement is kept or broken: most hold (a
   * 100k-node CNN checks 114k windows and keeps a few dozen of them), and
   * formatting them took a third of its inference. */
  if (v != OSI_REQ_RECORDED && v != OSI_REQ_CONTRADICTS) return OSI_OK;
  prefix = rule_text(rn, rule_buf, sizeof rule_buf), sep = prefix[0] ? ": " : "";
  /* what_text may return its phrase instead of filling the buffer */
  const char *sa = what_text(ctx, wa, ta, sizeof ta), *sb = what_text(ctx, wb, tb, sizeof tb);
  if (v == OSI_REQ_RECORDED) { /* the last item: the text it was added without */
    snprintf(what, sizeof what, "%s%s%s %s %s", prefix, sep, sa, le ? "<=" : "==", sb);
    const char *kept = osi_arena_strdup(run->arena, worded ? worded : what);
    if (kept) run->requirements.items[run->requirements.count - 1].what = kept;
    osi_facts_add_requirement(run, run->requirements.count - 1);
    if (OSI_EVENTS_ON(run)) /* (its text costs more than the rest of the check) */
      osi_run_event(run, "requirement", "", "%s", osi_requirement_text(s, &q, what, sizeof what));
    return OSI_OK;
  }
  if (against < 0 && one_of)
    return osi_op_fail(ctx, OSI_ERR_SHAPE_MISMATCH, "%s, but it is %s, never 1 or %lld", worded,
                       osi_expr_str(s, one_of->one_of), (long long)one_of->one_of_size);
  if (against < 0)
    return osi_op_fail(ctx, OSI_ERR_SHAPE_MISMATCH, "%s%s%s is %s, %s %s (%s)", prefix, sep, sa,
                       osi_expr_str(s, a), le ? "which is never at most" : "which never equals", sb,
                       osi_expr_str(s, b));
  const OsiRequirement *prev = &run->requirements.items[against];
  char node[96], req[400];
  if (prev->node[0]) snprintf(node, sizeof node, "node '%.64s'", prev->node);
  else snprintf(node, sizeof node, "node %d", prev->node_index);
  osi_requirement_text(s, prev, req, sizeof req);
  if (one_of)
    return osi_op_fail(ctx, OSI_ERR_SHAPE_MISMATCH, "%s, so %s must be 1 or %lld, but %s (%s) requires %s",
                       worded, osi_expr_str(s, one_of->one_of), (long long)one_of->one_of_size, node,
                       prev->op_type, req);
  return osi_op_fail(ctx, OSI_ERR_SHAPE_MISMATCH, "%s%s%s is %s and %s is %s, but %s (%s) requires %s",
                     prefix, sep, sa, osi_expr_str(s, a), sb, osi_expr_str(s, b), node, prev->op_type, req);
}

static OsiStatus require(OsiOpCtx *ctx, const char *rule, OsiExpr a, OsiWhat wa, OsiExpr b, OsiWhat wb,
                         int le) {
  RuleName rn = {rule, NULL, -1};
  return require_as(ctx, &rn, a, wa, b, wb, le, NULL, NULL);
}

OsiStatus osi_op_assume(OsiOpCtx *ctx, OsiExpr lhs, OsiExpr rhs, int le, const char *what) {
  RuleName rn = {ctx->node->op_type, NULL, -1};
  OsiStatus st = require_as(ctx, &rn, lhs, OSI_WHAT("the condition"), rhs,
                            OSI_WHAT("what it is compared with"), le, what, NULL);
  /* "why this shape" of each output: the assumption behind it */
  for (int o = 0; st == OSI_OK && o < ctx->node->n_outputs; o++)
    osi_run_event(ctx->scope->run, "assume", ctx->node->outputs[o], "%s %s %s: %s", osi_expr_str(ctx->scope->run->exprs, lhs),
                  le ? "<=" : "==", osi_expr_str(ctx->scope->run->exprs, rhs), what);
  return st;
}

OsiStatus osi_op_require_eq(OsiOpCtx *ctx, const char *rule, OsiExpr a, OsiWhat wa, OsiExpr b,
                            OsiWhat wb) {
  return require(ctx, rule, a, wa, b, wb, 0);
}

OsiStatus osi_op_require_one_of(OsiOpCtx *ctx, const char *rule, OsiExpr x, int64_t c, const char *what) {
  OsiRequirement q;
  char worded[320];
  snprintf(worded, sizeof worded, "%s%s%s", rule && rule[0] ? rule : "", rule && rule[0] ? ": " : "", what);
  osi_requirement_one_of(ctx->scope->run->exprs, x, c, &q);
  RuleName rn = {rule, NULL, -1};
  return require_as(ctx, &rn, q.lhs, OSI_WHAT(what), q.rhs, OSI_WHAT("0"), 0, worded, &q);
}

OsiStatus osi_op_require_le(OsiOpCtx *ctx, const char *rule, OsiExpr a, OsiWhat wa, OsiExpr b,
                            OsiWhat wb) {
  return require(ctx, rule, a, wa, b, wb, 1);
}

OsiStatus osi_op_require_le_in(OsiOpCtx *ctx, const char *rule_head, const char *rule_tail, int rule_number,
                               OsiExpr a, OsiWhat wa, OsiExpr b, OsiWhat wb) {
  RuleName rn = {rule_head, rule_tail, rule_number};
  return require_as(ctx, &rn, a, wa, b, wb, 1, NULL, NULL);
}

OsiStatus osi_op_require_eq_in(OsiOpCtx *ctx, const char *rule_head, const char *rule_tail, OsiExpr a, OsiWhat wa,
                               OsiExpr b, OsiWhat wb) {
  RuleName rn = {rule_head, rule_tail, -1};
  return require_as(ctx, &rn, a, wa, b, wb, 0, NULL, NULL);
}

int osi_op_known_le(OsiOpCtx *ctx, OsiExpr a, OsiExpr b) { return osi_facts_prove_le(ctx->scope->run, a, b); }

static OsiExpr in_dim(const OsiOpCtx *ctx, int i, int d) {
  const OsiType *t = osi_in_ranked(ctx, i);
  return t && d >= 0 && d < t->rank ? t->dims[d] : OSI_EXPR_UNKNOWN;
}

OsiStatus osi_op_require_dims_eq(OsiOpCtx *ctx, const char *rule, int ia, int da, int ib, int db) {
  return require(ctx, rule, in_dim(ctx, ia, da), OSI_DIM(ia, da), in_dim(ctx, ib, db), OSI_DIM(ib, db), 0);
}

OsiStatus osi_op_require_dim(OsiOpCtx *ctx, const char *rule, int i, int d, OsiExpr value, OsiWhat what) {
  return require(ctx, rule, in_dim(ctx, i, d), OSI_DIM(i, d), value, what, 0);
}

OsiStatus osi_op_require_rank(OsiOpCtx *ctx, int i, int lo, int hi) {
  const OsiType *t = osi_in_ranked(ctx, i);
  if (!t || (t->rank >= lo && (hi < 0 || t->rank <= hi))) return OSI_OK;
  char label[96];
  osi_op_input_label(ctx, i, label, sizeof label);
  if (hi == lo) return osi_op_fail(ctx, OSI_ERR_SHAPE_MISMATCH, "%s has rank %d; expected %d", label, t->rank, lo);
  if (hi < 0) return osi_op_fail(ctx, OSI_ERR_SHAPE_MISMATCH, "%s has rank %d; expected at least %d", label, t->rank, lo);
  return osi_op_fail(ctx, OSI_ERR_SHAPE_MISMATCH, "%s has rank %d; expected %d to %d", label, t->rank, lo, hi);
}
