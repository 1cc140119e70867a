/*
 * Element-wise operators: unary (same shape), binary and variadic with
 * multidirectional broadcasting, comparisons (bool output), Where, Cast.
 * Contents (Shape(x)[1] + 1 staying symbolic, float sizes, constants of
 * every dtype) are computed by the fold (fold.c) once these rules set the
 * output types; comparisons and logical ops also decide here what the
 * simplifier proves and what one known operand decides.
 */
#include <stdint.h>
#include <string.h>

#include "ops/helpers.h"

/* Unary ops whose output has the input's type and shape: Relu, Exp, ... */
OsiStatus osi_op_unary(OsiOpCtx *ctx) { return osi_out_same_as_input(ctx, 0, 0); }

/* Unary predicates (IsNaN, IsInf, Not): input shape, bool output; Not
 * negates the elements of a bool content (if x.dim() != 2, exported as
 * Equal -> Not -> If): c becomes 1 - c. */
OsiStatus osi_op_unary_bool(OsiOpCtx *ctx) {
  const OsiType *x = osi_in(ctx, 0);
  OsiType *y = x ? osi_out_like(ctx, 0, OSI_DT_BOOL, x) : NULL;
  if (!y || !x->value || !x->value->ints || strcmp(osi_op_type(ctx), "Not") != 0) return OSI_OK;
  OsiExprStore *s = osi_op_exprs(ctx);
  OsiExpr *e;
  OsiValue *v = osi_value_ints(osi_op_arena(ctx), x->value->count, &e);
  if (!v) return OSI_OK;
  for (int64_t i = 0; i < x->value->count; i++) {
    int64_t c;
    /* Bool contents are 0 or 1 (constants, or a comparison's indicator). */
    e[i] = osi_expr_is_const(s, x->value->ints[i], &c) ? osi_expr_const(s, c == 0)
                                                        : osi_expr_sub(s, osi_expr_const(s, 1), x->value->ints[i]);
  }
  y->value = v;
  return OSI_OK;
}

/* Broadcast all present inputs; output dtype taken from input dtype_from. */
static OsiType *broadcast_out(OsiOpCtx *ctx, int32_t dtype, OsiStatus *st) {
  const OsiType *in[16];
  int n = 0;
  for (int i = 0; i < osi_in_count(ctx) && n < 16; i++) {
    if (!osi_in_present(ctx, i)) continue;
    in[n++] = osi_in(ctx, i);
  }
  OsiExpr dims[OSI_MAX_RANK];
  int rank;
  *st = osi_broadcast(ctx, in, n, &rank, dims);
  if (*st != OSI_OK) return NULL;
  OsiType *t = osi_out_tensor(ctx, 0, dtype, rank);
  if (t && rank > 0) {
    OsiExpr *d = osi_type_dims_mut(t);
    for (int i = 0; i < rank; i++) d[i] = dims[i];
  }
  return t;
}

/* Comparisons of size elements (osi_expr_compare): decided where the
 * simplifier proves the sign of a - b (symbols are sizes, never negative,
 * which is what makes batch+1 != -1 provable in Equal(Shape, -1) of the
 * exporters' Expand pattern), otherwise their 0/1 indicator. */
static OsiExpr value_equal(OsiExprStore *s, OsiExpr a, OsiExpr b) { return osi_expr_compare(s, OSI_CMP_EQ, a, b); }
static OsiExpr value_less(OsiExprStore *s, OsiExpr a, OsiExpr b) { return osi_expr_compare(s, OSI_CMP_LT, a, b); }
static OsiExpr value_less_eq(OsiExprStore *s, OsiExpr a, OsiExpr b) { return osi_expr_compare(s, OSI_CMP_LE, a, b); }
static OsiExpr value_greater(OsiExprStore *s, OsiExpr a, OsiExpr b) { return osi_expr_compare(s, OSI_CMP_GT, a, b); }
static OsiExpr value_greater_eq(OsiExprStore *s, OsiExpr a, OsiExpr b) {
  return osi_expr_compare(s, OSI_CMP_GE, a, b);
}

/* And, Or, Xor of bool elements: known where the known operands decide,
 * so that false And x is false and true Or x is true whatever x is. */
static int bool_of(OsiExprStore *s, OsiExpr a) {
  int64_t c;
  return osi_expr_is_const(s, a, &c) ? c != 0 : -1;
}
static OsiExpr value_and(OsiExprStore *s, OsiExpr a, OsiExpr b) {
  int x = bool_of(s, a), y = bool_of(s, b);
  if (x == 0 || y == 0) return osi_expr_const(s, 0);
  return x == 1 && y == 1 ? osi_expr_const(s, 1) : OSI_EXPR_UNKNOWN;
}
static OsiExpr value_or(OsiExprStore *s, OsiExpr a, OsiExpr b) {
  int x = bool_of(s, a), y = bool_of(s, b);
  if (x == 1 || y == 1) return osi_expr_const(s, 1);
  return x == 0 && y == 0 ? osi_expr_const(s, 0) : OSI_EXPR_UNKNOWN;
}
static OsiExpr value_xor(OsiExprStore *s, OsiExpr a, OsiExpr b) {
  int x = bool_of(s, a), y = bool_of(s, b);
  return x >= 0 && y >= 0 ? osi_expr_const(s, x != y) : OSI_EXPR_UNKNOWN;
}

typedef struct BinaryRule {
  const char *op;
  OsiExprBinary value;
  int bool_out;
} BinaryRule;

static const BinaryRule BINARY_RULES[] = {
    {"Equal", value_equal, 1},
    {"Less", value_less, 1},         {"LessOrEqual", value_less_eq, 1},
    {"Greater", value_greater, 1},   {"GreaterOrEqual", value_greater_eq, 1},
    {"And", value_and, 1},           {"Or", value_or, 1},
    {"Xor", value_xor, 1},
};

static const BinaryRule *find_rule(const char *op) {
  for (size_t i = 0; i < sizeof BINARY_RULES / sizeof BINARY_RULES[0]; i++)
    if (strcmp(BINARY_RULES[i].op, op) == 0) return &BINARY_RULES[i];
  return NULL;
}

/*
 * Broadcasting element-wise ops (Add, Sub, Mul, Div, Mod, Pow, Max, Min,
 * Sum, Mean, BitShift, Bitwise*, PRelu's broadcast form): output dtype is
 * the first input's.
 */
OsiStatus osi_op_broadcast(OsiOpCtx *ctx) {
  OsiStatus st;
  /* Max, Min, Sum and Mean broadcast from opset 8; before, every input has
   * the first one's shape (onnxruntime's opset-6 kernels check it). */
  const char *op = osi_op_type(ctx);
  if (osi_op_opset(ctx) < 8 && osi_op_is_onnx(ctx) &&
      (!strcmp(op, "Max") || !strcmp(op, "Min") || !strcmp(op, "Sum") || !strcmp(op, "Mean"))) {
    const OsiType *first = osi_in_ranked(ctx, 0);
    for (int i = 1; first && i < osi_in_count(ctx); i++) {
      const OsiType *t = osi_in_ranked(ctx, i);
      if (!t) continue;
      if (t->rank != first->rank)
        return osi_op_fail(ctx, OSI_ERR_SHAPE_MISMATCH, "%s-%lld takes inputs of one shape: input %d has rank %d, input 0 rank %d", op,
                           (long long)osi_op_opset(ctx), i, t->rank, first->rank);
      for (int k = 0; k < t->rank; k++)
        if ((st = osi_op_require_dims_eq(ctx, op, i, k, 0, k)) != OSI_OK) return st;
    }
  }
  broadcast_out(ctx, osi_in_dtype(ctx, 0), &st);
  return st;
}

/* An operand of a logical op with no content (a runtime value such as a
 * sample rate) as content with every element unknown, so that the other
 * operand can still decide. */
static const OsiType *unknown_elements(OsiOpCtx *ctx, const OsiType *t) {
  int64_t n = t && !t->value ? osi_static_count(ctx, t) : -1;
  if (n < 0) return t;
  OsiExpr *e;
  OsiValue *v = osi_value_ints(osi_op_arena(ctx), n, &e);
  OsiType *u = v ? osi_type_copy(osi_op_arena(ctx), t) : NULL;
  if (!u) return t;
  for (int64_t i = 0; i < n; i++) e[i] = OSI_EXPR_UNKNOWN;
  u->value = v;
  return u;
}

/* Comparisons and logical ops (Equal, Less, And, Or, Xor, ...): bool output. */
OsiStatus osi_op_compare(OsiOpCtx *ctx) {
  OsiStatus st;
  const BinaryRule *rule = find_rule(osi_op_type(ctx));
  OsiType *y = broadcast_out(ctx, OSI_DT_BOOL, &st);
  if (st != OSI_OK) return st;
  const OsiType *a = osi_in(ctx, 0), *b = osi_in(ctx, 1);
  if (rule && (rule->value == value_and || rule->value == value_or) && a && b && (a->value || b->value)) {
    a = unknown_elements(ctx, a);
    b = unknown_elements(ctx, b);
  }
  if (rule) osi_value_binary(ctx, y, a, b, rule->value);
  return OSI_OK;
}

/* Where(cond, X, Y): broadcast of all three, X's dtype. */
OsiStatus osi_op_where(OsiOpCtx *ctx) {
  OsiStatus st;
  broadcast_out(ctx, osi_in_dtype(ctx, 1), &st);
  return st;
}

/* Cast: input shape, dtype from `to` (contents, every dtype: fold.c). */
OsiStatus osi_op_cast(OsiOpCtx *ctx) {
  const OsiType *x = osi_in(ctx, 0);
  int32_t to = (int32_t)osi_attr_int(ctx, "to", 0);
  if (x) osi_out_like(ctx, 0, to, x);
  return OSI_OK;
}

/* CastLike(input, target_type): input shape, target's dtype. */
OsiStatus osi_op_cast_like(OsiOpCtx *ctx) {
  const OsiType *x = osi_in(ctx, 0);
  int32_t to = osi_in_dtype(ctx, 1);
  if (x) osi_out_like(ctx, 0, to, x);
  return OSI_OK;
}

/* Identity: passes type and content through (also sequences/optionals). */
OsiStatus osi_op_identity(OsiOpCtx *ctx) {
  osi_set_out(ctx, 0, osi_in(ctx, 0));
  return OSI_OK;
}

/* Dropout: output 0 like the input; output 1 (mask) same shape, bool. */
OsiStatus osi_op_dropout(OsiOpCtx *ctx) {
  const OsiType *x = osi_in(ctx, 0);
  if (!x) return OSI_OK;
  osi_out_like(ctx, 0, x->elem_type, x);
  if (osi_out_count(ctx) > 1)
    osi_out_like(ctx, 1, osi_op_opset(ctx) >= 10 ? OSI_DT_BOOL : x->elem_type, x);
  return OSI_OK;
}
