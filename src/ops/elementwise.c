/*
 * Element-wise operators: unary (same shape), binary and variadic with
 * multidirectional broadcasting, comparisons (bool output), Where, Cast.
 * Integer ops also compute their value when inputs carry one, which is how
 * exporter shape arithmetic (Shape(x)[1] + 1) stays symbolic.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "ops/helpers.h"

/* Unary ops whose output has the input's type and shape: Relu, Exp, ... */
OsiStatus osi_op_unary(OsiOpCtx *ctx) { return osi_out_same_as_input(ctx, 0, 0); }

/* Unary predicates (IsNaN, IsInf, Not): input shape, bool output; Not
 * negates known elements of a bool content (if x.dim() != 2, exported as
 * Equal -> Not -> If). */
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
    e[i] = osi_expr_is_const(s, x->value->ints[i], &c) ? osi_expr_const(s, c == 0) : OSI_EXPR_UNKNOWN;
  }
  y->value = v;
  return OSI_OK;
}

static OsiExpr value_neg(OsiExprStore *s, OsiExpr a) { return osi_expr_neg(s, a); }

static OsiExpr value_abs(OsiExprStore *s, OsiExpr a) {
  int64_t c;
  if (osi_expr_is_const(s, a, &c)) return c == INT64_MIN ? OSI_EXPR_UNKNOWN : osi_expr_const(s, c < 0 ? -c : c);
  /* |a| = Max(a, -a) holds for every integer a. */
  return osi_expr_max(s, a, osi_expr_neg(s, a));
}

static OsiStatus unary_value(OsiOpCtx *ctx, OsiExpr (*fn)(OsiExprStore *, OsiExpr)) {
  const OsiType *x = osi_in(ctx, 0);
  if (!x) return OSI_OK;
  OsiType *y = osi_out_like(ctx, 0, x->elem_type, x);
  if (y && x->value && x->value->ints) {
    OsiExpr *e;
    OsiValue *v = osi_value_ints(osi_op_arena(ctx), x->value->count, &e);
    if (!v) return OSI_OK;
    for (int64_t i = 0; i < x->value->count; i++) e[i] = fn(osi_op_exprs(ctx), x->value->ints[i]);
    y->value = v;
  }
  return OSI_OK;
}

/* Neg, Abs: same shape; integer content negated / made absolute. */
OsiStatus osi_op_neg(OsiOpCtx *ctx) { return unary_value(ctx, value_neg); }
OsiStatus osi_op_abs(OsiOpCtx *ctx) { return unary_value(ctx, value_abs); }

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

static OsiExpr value_div(OsiExprStore *s, OsiExpr a, OsiExpr b) {
  /* Integer Div truncates toward zero; it equals floor division when both
   * operands are non-negative, which we can only be sure of for constants. */
  int64_t ca, cb;
  if (osi_expr_is_const(s, a, &ca) && osi_expr_is_const(s, b, &cb)) {
    if (cb == 0 || (ca == INT64_MIN && cb == -1)) return OSI_EXPR_UNKNOWN;
    return osi_expr_const(s, ca / cb);
  }
  /* Truncation equals floor division when the numerator is provably
   * non-negative (the simplifier folds Max(a, 0) to a exactly then) and the
   * divisor a positive constant. */
  if (osi_expr_is_const(s, b, &cb) && cb > 0 && osi_expr_max(s, a, osi_expr_const(s, 0)) == a)
    return osi_expr_floordiv(s, a, b);
  return OSI_EXPR_UNKNOWN;
}

static OsiExpr value_mod(OsiExprStore *s, OsiExpr a, OsiExpr b) { return osi_expr_mod(s, a, b); }
static OsiExpr value_max(OsiExprStore *s, OsiExpr a, OsiExpr b) { return osi_expr_max(s, a, b); }
static OsiExpr value_min(OsiExprStore *s, OsiExpr a, OsiExpr b) { return osi_expr_min(s, a, b); }

/* What the simplifier proves about d for every value of the symbols:
 * SIGN_GE0 (d >= 0), SIGN_GE1 (d >= 1), SIGN_LE0 (d <= 0), SIGN_LEM1
 * (d <= -1). Max(d, k) simplifies to d exactly when the simplifier proves
 * d >= k (it only drops an argument on a sound interval bound), so this is
 * as sound as the simplifier: symbols are dimension sizes, never negative,
 * which is what makes batch+1 != -1 provable (Equal(Shape, -1) of the
 * exporters' Expand pattern). */
enum { SIGN_GE0 = 1, SIGN_GE1 = 2, SIGN_LE0 = 4, SIGN_LEM1 = 8 };

static int sign_facts(OsiExprStore *s, OsiExpr d) {
  int64_t c;
  if (d == OSI_EXPR_UNKNOWN) return 0;
  if (osi_expr_is_const(s, d, &c))
    return (c >= 0 ? SIGN_GE0 : 0) | (c >= 1 ? SIGN_GE1 : 0) | (c <= 0 ? SIGN_LE0 : 0) | (c <= -1 ? SIGN_LEM1 : 0);
  int f = 0;
  if (osi_expr_max(s, d, osi_expr_const(s, 1)) == d) f |= SIGN_GE0 | SIGN_GE1;
  else if (osi_expr_max(s, d, osi_expr_const(s, 0)) == d) f |= SIGN_GE0;
  if (osi_expr_min(s, d, osi_expr_const(s, -1)) == d) f |= SIGN_LE0 | SIGN_LEM1;
  else if (osi_expr_min(s, d, osi_expr_const(s, 0)) == d) f |= SIGN_LE0;
  return f;
}

static OsiExpr value_equal(OsiExprStore *s, OsiExpr a, OsiExpr b) {
  if (a == OSI_EXPR_UNKNOWN || b == OSI_EXPR_UNKNOWN) return OSI_EXPR_UNKNOWN;
  if (a == b) return osi_expr_const(s, 1);
  int f = sign_facts(s, osi_expr_sub(s, a, b));
  if ((f & SIGN_GE0) && (f & SIGN_LE0)) return osi_expr_const(s, 1);
  if (f & (SIGN_GE1 | SIGN_LEM1)) return osi_expr_const(s, 0);
  return OSI_EXPR_UNKNOWN;
}

/* a < b, a <= b, a > b, a >= b from the proven sign of a - b. */
static OsiExpr compare(OsiExprStore *s, OsiExpr a, OsiExpr b, int lt, int eq) {
  if (a == OSI_EXPR_UNKNOWN || b == OSI_EXPR_UNKNOWN) return OSI_EXPR_UNKNOWN;
  int f = sign_facts(s, osi_expr_sub(s, a, b));
  int yes, no;
  if (lt) {
    yes = eq ? (f & SIGN_LE0) : (f & SIGN_LEM1);
    no = eq ? (f & SIGN_GE1) : (f & SIGN_GE0);
  } else {
    yes = eq ? (f & SIGN_GE0) : (f & SIGN_GE1);
    no = eq ? (f & SIGN_LEM1) : (f & SIGN_LE0);
  }
  if (yes) return osi_expr_const(s, 1);
  if (no) return osi_expr_const(s, 0);
  return OSI_EXPR_UNKNOWN;
}
static OsiExpr value_less(OsiExprStore *s, OsiExpr a, OsiExpr b) { return compare(s, a, b, 1, 0); }
static OsiExpr value_less_eq(OsiExprStore *s, OsiExpr a, OsiExpr b) { return compare(s, a, b, 1, 1); }
static OsiExpr value_greater(OsiExprStore *s, OsiExpr a, OsiExpr b) { return compare(s, a, b, 0, 0); }
static OsiExpr value_greater_eq(OsiExprStore *s, OsiExpr a, OsiExpr b) { return compare(s, a, b, 0, 1); }

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

static double f_add(double a, double b) { return a + b; }
static double f_sub(double a, double b) { return a - b; }
static double f_mul(double a, double b) { return a * b; }
static double f_div(double a, double b) { return a / b; }
static double f_max(double a, double b) { return a > b ? a : b; }
static double f_min(double a, double b) { return a < b ? a : b; }

typedef struct BinaryRule {
  const char *op;
  OsiExprBinary value;
  int bool_out;
  double (*fvalue)(double, double); /* float contents, NULL when not computed */
} BinaryRule;

static const BinaryRule BINARY_RULES[] = {
    {"Add", osi_expr_add, 0, f_add},   {"Sub", osi_expr_sub, 0, f_sub},
    {"Mul", osi_expr_mul, 0, f_mul},   {"Div", value_div, 0, f_div},
    {"Mod", value_mod, 0, NULL},       {"Max", value_max, 0, f_max},
    {"Min", value_min, 0, f_min},      {"Equal", value_equal, 1, NULL},
    {"Less", value_less, 1, NULL},     {"LessOrEqual", value_less_eq, 1, NULL},
    {"Greater", value_greater, 1, NULL}, {"GreaterOrEqual", value_greater_eq, 1, NULL},
    {"And", value_and, 1, NULL},       {"Or", value_or, 1, NULL},
    {"Xor", value_xor, 1, NULL},
};

static const BinaryRule *find_rule(const char *op) {
  for (size_t i = 0; i < sizeof BINARY_RULES / sizeof BINARY_RULES[0]; i++)
    if (strcmp(BINARY_RULES[i].op, op) == 0) return &BINARY_RULES[i];
  return NULL;
}

/*
 * Broadcasting element-wise ops (Add, Sub, Mul, Div, Mod, Pow, Max, Min,
 * Sum, Mean, BitShift, Bitwise*, PRelu's broadcast form): output dtype is
 * the first input's; integer values are computed for the arithmetic ops
 * of BINARY_RULES when there are exactly two inputs.
 */
OsiStatus osi_op_broadcast(OsiOpCtx *ctx) {
  OsiStatus st;
  int32_t dtype = osi_in_dtype(ctx, 0);
  const BinaryRule *rule = find_rule(osi_op_type(ctx));
  OsiType *y = broadcast_out(ctx, rule && rule->bool_out ? OSI_DT_BOOL : dtype, &st);
  if (st != OSI_OK) return st;
  if (rule && osi_in_count(ctx) == 2 && (osi_dtype_is_integer(dtype) || dtype == 0))
    osi_value_binary(ctx, y, osi_in(ctx, 0), osi_in(ctx, 1), rule->value);
  else if (rule && rule->fvalue && osi_in_count(ctx) == 2)
    osi_value_binary_float(ctx, y, osi_in(ctx, 0), osi_in(ctx, 1), rule->fvalue);
  return OSI_OK;
}

/* Relu: same shape; known contents clipped at 0 (Range lengths are
 * computed as Relu(Ceil((limit - start) / delta))). */
OsiStatus osi_op_relu(OsiOpCtx *ctx) {
  const OsiType *x = osi_in(ctx, 0);
  if (!x) return OSI_OK;
  OsiType *y = osi_out_like(ctx, 0, x->elem_type, x);
  const OsiValue *v = x->value;
  if (!y || !v) return OSI_OK;
  if (v->floats) {
    double *f;
    OsiValue *nv = osi_value_floats(osi_op_arena(ctx), v->count, &f);
    for (int64_t i = 0; nv && i < v->count; i++) f[i] = v->floats[i] > 0 ? v->floats[i] : 0;
    y->value = nv;
  } else {
    OsiExpr *e;
    OsiValue *nv = osi_value_ints(osi_op_arena(ctx), v->count, &e);
    OsiExprStore *s = osi_op_exprs(ctx);
    for (int64_t i = 0; nv && i < v->count; i++) e[i] = osi_expr_max(s, v->ints[i], osi_expr_const(s, 0));
    y->value = nv;
  }
  return OSI_OK;
}

/* Ceil and Floor: same shape; small float contents rounded. */
OsiStatus osi_op_ceil_floor(OsiOpCtx *ctx) {
  const OsiType *x = osi_in(ctx, 0);
  if (!x) return OSI_OK;
  OsiType *y = osi_out_like(ctx, 0, x->elem_type, x);
  if (!y || !x->value || !x->value->floats) return OSI_OK;
  double *f;
  OsiValue *v = osi_value_floats(osi_op_arena(ctx), x->value->count, &f);
  if (!v) return OSI_OK;
  int ceil_op = !strcmp(osi_op_type(ctx), "Ceil");
  for (int64_t i = 0; i < x->value->count; i++)
    f[i] = ceil_op ? ceil(x->value->floats[i]) : floor(x->value->floats[i]);
  y->value = v;
  return OSI_OK;
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

/* Where(cond, X, Y): broadcast of all three, X's dtype; integer values
 * selected element by element when the condition is known. */
OsiStatus osi_op_where(OsiOpCtx *ctx) {
  OsiStatus st;
  OsiType *y = broadcast_out(ctx, osi_in_dtype(ctx, 1), &st);
  if (st != OSI_OK || !y) return st;
  const OsiType *c = osi_in(ctx, 0), *a = osi_in(ctx, 1), *b = osi_in(ctx, 2);
  int64_t n = osi_static_count(ctx, y);
  if (n < 0 || !c || !a || !b || !c->value || !a->value || !b->value || !c->value->ints ||
      !a->value->ints || !b->value->ints)
    return OSI_OK;
  /* Only the common exporter case of equal element counts is handled. */
  if (c->value->count != n || a->value->count != n || b->value->count != n) return OSI_OK;
  OsiExpr *e;
  OsiValue *v = osi_value_ints(osi_op_arena(ctx), n, &e);
  if (!v) return OSI_OK;
  OsiExprStore *s = osi_op_exprs(ctx);
  for (int64_t i = 0; i < n; i++) {
    int64_t cond;
    if (!osi_expr_is_const(s, c->value->ints[i], &cond)) return OSI_OK;
    e[i] = cond ? a->value->ints[i] : b->value->ints[i];
  }
  y->value = v;
  return OSI_OK;
}

/* Content across a cast: integers stay integers (exporters Cast shape
 * values to int64 and back); constant integers become floats and
 * integral floats integers (truncation toward zero, as Cast does), which
 * keeps Range/window arithmetic on sizes known. */
static void cast_value(OsiOpCtx *ctx, OsiType *y, const OsiType *x, int32_t to) {
  const OsiValue *v = x->value;
  if (!y || !v) return;
  OsiExprStore *s = osi_op_exprs(ctx);
  if (to == OSI_DT_BOOL) {
    /* Known non-zero-ness only: a Loop condition made from a trip count. */
    OsiExpr *e;
    OsiValue *nv = osi_value_ints(osi_op_arena(ctx), v->count, &e);
    for (int64_t i = 0; nv && i < v->count; i++) {
      int64_t c;
      if (v->floats) e[i] = osi_expr_const(s, v->floats[i] != 0);
      else if (osi_expr_is_const(s, v->ints[i], &c)) e[i] = osi_expr_const(s, c != 0);
      else return;
    }
    y->value = nv;
  } else if (v->ints && osi_dtype_is_integer(to)) {
    y->value = v;
  } else if (v->ints && osi_dtype_is_float(to) && v->count <= OSI_MAX_FLOAT_DATA) {
    double *f;
    OsiValue *nv = osi_value_floats(osi_op_arena(ctx), v->count, &f);
    for (int64_t i = 0; nv && i < v->count; i++) {
      int64_t c;
      if (!osi_expr_is_const(s, v->ints[i], &c)) return;
      f[i] = (double)c;
    }
    y->value = nv;
  } else if (v->floats && osi_dtype_is_integer(to)) {
    OsiExpr *e;
    OsiValue *nv = osi_value_ints(osi_op_arena(ctx), v->count, &e);
    for (int64_t i = 0; nv && i < v->count; i++) {
      double t = trunc(v->floats[i]);
      if (!(t > -9.0e15 && t < 9.0e15)) return; /* NaN, inf, or beyond exact doubles */
      e[i] = osi_expr_const(s, (int64_t)t);
    }
    y->value = nv;
  } else if (v->floats && osi_dtype_is_float(to) && (to == OSI_DT_DOUBLE || to == OSI_DT_FLOAT)) {
    y->value = v; /* exact for the sizes and scales kept here */
  }
}

/* Cast: input shape, dtype from `to`. */
OsiStatus osi_op_cast(OsiOpCtx *ctx) {
  const OsiType *x = osi_in(ctx, 0);
  int32_t to = (int32_t)osi_attr_int(ctx, "to", 0);
  if (!x) return OSI_OK;
  cast_value(ctx, osi_out_like(ctx, 0, to, x), x, to);
  return OSI_OK;
}

/* CastLike(input, target_type): input shape, target's dtype. */
OsiStatus osi_op_cast_like(OsiOpCtx *ctx) {
  const OsiType *x = osi_in(ctx, 0);
  int32_t to = osi_in_dtype(ctx, 1);
  if (!x) return OSI_OK;
  cast_value(ctx, osi_out_like(ctx, 0, to, x), x, to);
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
