/*
 * Upper bounds of a size from upper bounds of its symbols: a declared
 * label that names a data-dependent size (detections for Min(if_17,8))
 * carries the bound that size has (detections <= 8).
 *
 * Sizes are monotone in their symbols almost everywhere: + and * of
 * nonnegative factors, Max, Min, Broadcast (one of its arguments), // and
 * CeilDiv by a positive constant. Walking the canonical tree with an upper
 * and a lower bound per subexpression (a negative coefficient swaps them)
 * gives a sound bound: each step only uses an inequality that holds for
 * every value in the subexpression's range. A symbol the caller keeps
 * bounds itself; a bounded symbol is >= 0 (sizes) and <= its bound; any
 * other construction (%, a symbolic divisor, floats, a factor that may be
 * negative) gives up. A Min needs one bounded argument, and takes the
 * smallest constant bound among them when there is one, which is what a
 * reader wants to see (Min(n, 8) <= 8, not <= Min(4*h*w, 8)).
 */
#include <string.h>

#include "expr/expr_internal.h"

typedef struct Bounder {
  OsiExprStore *s;
  OsiExprSymbolBound bound_of;
  void *user;
} Bounder;

static OsiExpr bound(const Bounder *b, OsiExpr e, int upper, int depth);

static OsiExpr scaled(OsiExprStore *s, int64_t k, OsiExpr e) {
  return e == OSI_EXPR_UNKNOWN ? e : osi_expr_mul(s, osi_expr_const(s, k), e);
}

/* Min (upper of a Min, lower of a Max: ok with any subset) or Max of the
 * bounds of the arguments. */
static OsiExpr bound_minmax(const Bounder *b, OsiExpr e, int kind, int upper, int depth) {
  OsiExprStore *s = b->s;
  int take_min = kind == EK_MIN; /* Min(args) <= Min(upper bounds), >= Min(lower bounds) */
  int any_subset = (kind == EK_MIN) == upper;
  uint32_t n = expr_node(s, e)->n;
  OsiExpr acc = OSI_EXPR_UNKNOWN;
  int64_t best = 0;
  int has_const = 0;
  for (uint32_t i = 0; i < n; i++) {
    OsiExpr x = bound(b, expr_args(s, e)[i], upper, depth + 1);
    if (x == OSI_EXPR_UNKNOWN) {
      if (!any_subset) return OSI_EXPR_UNKNOWN;
      continue;
    }
    int64_t c;
    if (any_subset && upper && osi_expr_is_const(s, x, &c) && (!has_const || c < best)) {
      best = c;
      has_const = 1;
    }
    acc = acc == OSI_EXPR_UNKNOWN ? x : take_min ? osi_expr_min(s, acc, x) : osi_expr_max(s, acc, x);
    if (acc == OSI_EXPR_UNKNOWN) return acc;
  }
  return has_const ? osi_expr_const(s, best) : acc;
}

static int provably_nonneg(OsiExprStore *s, OsiExpr e) {
  int64_t c;
  if (osi_expr_is_const(s, e, &c)) return c >= 0;
  return e != OSI_EXPR_UNKNOWN && osi_expr_max(s, e, osi_expr_const(s, 0)) == e;
}

static OsiExpr bound(const Bounder *b, OsiExpr e, int upper, int depth) {
  OsiExprStore *s = b->s;
  if (e == OSI_EXPR_UNKNOWN || depth > OSI_EXPR_MAX_NODES) return OSI_EXPR_UNKNOWN;
  /* copies: building expressions may move the store's arrays */
  int kind = expr_node(s, e)->kind;
  uint32_t n = expr_node(s, e)->n;
  int64_t val = expr_node(s, e)->val;
  if (kind == EK_CONST) return e;
  if (kind == EK_SYM) {
    OsiExpr u = b->bound_of(b->user, e);
    if (u == e) return e;
    if (!upper) return s->assume_nonneg ? osi_expr_const(s, 0) : OSI_EXPR_UNKNOWN;
    return u;
  }
  if (kind == EK_ADD) {
    OsiExpr acc = osi_expr_const(s, val);
    for (uint32_t i = 0; i < n && acc != OSI_EXPR_UNKNOWN; i++) {
      int64_t k = expr_coefs(s, e)[i];
      OsiExpr t = bound(b, expr_args(s, e)[i], k > 0 ? upper : !upper, depth + 1);
      acc = osi_expr_add(s, acc, scaled(s, k, t));
    }
    return acc;
  }
  if (kind == EK_MUL) {
    /* a product of factors that are >= 0 in their whole range is monotone in each */
    OsiExpr acc = osi_expr_const(s, 1);
    for (uint32_t i = 0; i < n && acc != OSI_EXPR_UNKNOWN; i++) {
      OsiExpr f = expr_args(s, e)[i];
      OsiExpr lo = bound(b, f, 0, depth + 1);
      if (!provably_nonneg(s, lo)) return OSI_EXPR_UNKNOWN;
      acc = osi_expr_mul(s, acc, upper ? bound(b, f, 1, depth + 1) : lo);
    }
    return acc;
  }
  if (kind == EK_FLOORDIV || kind == EK_CEILDIV) {
    int64_t d;
    if (!osi_expr_is_const(s, expr_args(s, e)[1], &d) || d <= 0) return OSI_EXPR_UNKNOWN;
    OsiExpr x = bound(b, expr_args(s, e)[0], upper, depth + 1);
    OsiExpr dd = osi_expr_const(s, d);
    return kind == EK_FLOORDIV ? osi_expr_floordiv(s, x, dd) : osi_expr_ceildiv(s, x, dd);
  }
  if (kind == EK_MIN || kind == EK_MAX) return bound_minmax(b, e, kind, upper, depth);
  if (kind == EK_BROADCAST) {
    /* one of its arguments wherever it is defined */
    return bound_minmax(b, e, upper ? EK_MAX : EK_MIN, upper, depth);
  }
  return OSI_EXPR_UNKNOWN;
}

typedef struct Names {
  const char *items[OSI_EXPR_MAX_NODES];
  int n;
} Names;

static void note_symbol(const char *name, void *user) {
  Names *names = user;
  if (names->n < OSI_EXPR_MAX_NODES) names->items[names->n++] = name;
}

OsiExpr osi_expr_upper_bound(OsiExprStore *s, OsiExpr e, OsiExprSymbolBound bound_of, void *user) {
  if (!s || !bound_of || e == OSI_EXPR_UNKNOWN || e >= s->nnodes) return OSI_EXPR_UNKNOWN;
  Bounder b = {s, bound_of, user};
  /* The symbols first: bound_of may build expressions, which the walk must not see. */
  Names names = {.n = 0};
  osi_expr_for_each_symbol(s, e, note_symbol, &names);
  int touched = 0;
  for (int i = 0; i < names.n && !touched; i++) {
    OsiExpr sym = expr_find_symbol(s, names.items[i], strlen(names.items[i]));
    touched = sym != OSI_EXPR_UNKNOWN && bound_of(user, sym) != sym;
  }
  if (!touched) return e; /* floats, % and the rest are fine when nothing is replaced */
  return expr_result(s, bound(&b, e, 1, 0));
}
