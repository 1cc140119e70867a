/* Accessors of the op interface (ops/ops.h). */
#include <stdio.h>
#include <string.h>

#include "infer/constraints.h"
#include "infer/op_context.h"

int64_t osi_op_opset(const OsiOpCtx *ctx) { return ctx->opset; }
const char *osi_op_type(const OsiOpCtx *ctx) { return ctx->node->op_type; }
const char *osi_op_name(const OsiOpCtx *ctx) { return ctx->node->name; }
OsiArena *osi_op_arena(OsiOpCtx *ctx) { return ctx->scope->run->arena; }
OsiExprStore *osi_op_exprs(OsiOpCtx *ctx) { return ctx->scope->run->exprs; }

int osi_in_count(const OsiOpCtx *ctx) { return ctx->node->n_inputs; }

int osi_in_present(const OsiOpCtx *ctx, int i) {
  return i >= 0 && i < ctx->node->n_inputs && ctx->node->inputs[i][0] != 0;
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
  for (int i = 0; i < node->n_attrs; i++)
    if (strcmp(node->attrs[i].name, name) == 0) return &node->attrs[i];
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
  return i >= 0 && i < ctx->node->n_outputs && ctx->node->outputs[i][0] != 0;
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

OsiExpr osi_op_fresh_dim(OsiOpCtx *ctx, const char *what) {
  char prefix[96];
  snprintf(prefix, sizeof prefix, "%s_%s", ctx->node->op_type, what);
  return osi_expr_fresh(ctx->scope->run->exprs, prefix);
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
