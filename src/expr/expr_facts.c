/*
 * Sizes under ranges of their symbols: what inference may assume once the
 * model's requirements say, for instance, that time >= 400 (infer/facts.c
 * keeps the ranges; this file only reads expressions).
 *
 * Nothing here changes how an expression is canonicalised: the ranges are
 * the caller's, so every result is computed afresh from them (no memo of
 * the store sees them), and the canonical form of an id stays the same
 * whatever the caller knows.
 *
 *  - osi_expr_range: an interval of an integer expression when each symbol
 *    is within its range (intervals, walked on the canonical tree);
 *  - osi_expr_direction: whether an expression only grows (or only
 *    shrinks) with one symbol, from its structure, so that a requirement on
 *    one symbol can be turned into a range by evaluating it at a few points;
 *  - osi_expr_rebuild: a node with other arguments, for rewriting Min/Max
 *    nodes that the ranges decide;
 *  - osi_expr_predicate_relation: the relation a 0/1 size predicate (the
 *    content of x.size(2) == 1) stands for, to state an assumption as a
 *    requirement.
 */
#include <string.h>

#include "expr/expr_internal.h"

#define INF_LO INT64_MIN
#define INF_HI INT64_MAX

typedef struct Range {
  int64_t lo, hi;
} Range;

static const Range ALL = {INF_LO, INF_HI};

/* Saturating: an end past int64 becomes unbounded (sound: wider). */
static int64_t clamp_lo(__int128 v) { return v <= (__int128)INT64_MIN ? INF_LO : v >= (__int128)INT64_MAX ? INT64_MAX - 1 : (int64_t)v; }
static int64_t clamp_hi(__int128 v) { return v >= (__int128)INT64_MAX ? INF_HI : v <= (__int128)INT64_MIN ? INT64_MIN + 1 : (int64_t)v; }

static Range r_add(Range a, Range b) {
  Range r;
  r.lo = a.lo == INF_LO || b.lo == INF_LO ? INF_LO : clamp_lo((__int128)a.lo + b.lo);
  r.hi = a.hi == INF_HI || b.hi == INF_HI ? INF_HI : clamp_hi((__int128)a.hi + b.hi);
  return r;
}

/* An end as an extended value: -1/+1 for the infinities. */
typedef struct Ext {
  int inf;
  __int128 v;
} Ext;

static Ext ext_lo(int64_t x) { return (Ext){x == INF_LO ? -1 : 0, x}; }
static Ext ext_hi(int64_t x) { return (Ext){x == INF_HI ? 1 : 0, x}; }

static Ext ext_mul(Ext a, Ext b) {
  if ((!a.inf && a.v == 0) || (!b.inf && b.v == 0)) return (Ext){0, 0};
  int neg = (a.inf ? a.inf < 0 : a.v < 0) != (b.inf ? b.inf < 0 : b.v < 0);
  if (a.inf || b.inf) return (Ext){neg ? -1 : 1, 0};
  __int128 p = a.v * b.v; /* |a|, |b| < 2^63: no __int128 overflow */
  return (Ext){0, p};
}

static int ext_less(Ext a, Ext b) {
  if (a.inf != b.inf) return a.inf < b.inf;
  return !a.inf && a.v < b.v;
}

static Range r_mul(Range a, Range b) {
  Ext c[4] = {ext_mul(ext_lo(a.lo), ext_lo(b.lo)), ext_mul(ext_lo(a.lo), ext_hi(b.hi)),
              ext_mul(ext_hi(a.hi), ext_lo(b.lo)), ext_mul(ext_hi(a.hi), ext_hi(b.hi))};
  Ext lo = c[0], hi = c[0];
  for (int i = 1; i < 4; i++) {
    if (ext_less(c[i], lo)) lo = c[i];
    if (ext_less(hi, c[i])) hi = c[i];
  }
  Range r;
  r.lo = lo.inf < 0 ? INF_LO : lo.inf > 0 ? INT64_MAX - 1 : clamp_lo(lo.v);
  r.hi = hi.inf > 0 ? INF_HI : hi.inf < 0 ? INT64_MIN + 1 : clamp_hi(hi.v);
  return r;
}

static int64_t floor_div(int64_t a, int64_t d) { /* d > 0 */
  int64_t q = a / d;
  return (a % d != 0 && a < 0) ? q - 1 : q;
}

static int64_t ceil_div(int64_t a, int64_t d) { /* d > 0 */
  int64_t q = a / d;
  return (a % d != 0 && a > 0) ? q + 1 : q;
}

typedef struct Ranger {
  const OsiExprStore *s;
  OsiExprSymbolRange range_of;
  void *user;
  OsiExprRangeMemo *memo;
  int budget; /* nodes left to visit: shared subterms are walked again (without a memo) */
} Ranger;

static Range range(Ranger *g, OsiExpr e);

static Range sym_range(Ranger *g, OsiExpr e) {
  Range r = ALL;
  if (g->s->assume_nonneg) r.lo = 0;
  int64_t lo, hi;
  if (g->range_of && g->range_of(g->user, e, &lo, &hi)) {
    if (lo > r.lo) r.lo = lo;
    if (hi < r.hi) r.hi = hi;
  }
  return r;
}

static Range range_node(Ranger *g, OsiExpr e) {
  const OsiExprStore *s = g->s;
  const ExprNode *nd = expr_node(s, e);
  const OsiExpr *args = expr_args(s, e);
  Range r = ALL, a, b;
  int64_t d;
  switch (nd->kind) {
  case EK_CONST: return (Range){nd->val, nd->val};
  case EK_SYM: return sym_range(g, e);
  case EK_MUL:
    r = range(g, args[0]);
    for (uint32_t i = 1; i < nd->n; i++) r = r_mul(r, range(g, args[i]));
    return r;
  case EK_ADD: {
    r.lo = r.hi = nd->val;
    const int64_t *k = expr_coefs(s, e);
    for (uint32_t i = 0; i < nd->n; i++) r = r_add(r, r_mul((Range){k[i], k[i]}, range(g, args[i])));
    return r;
  }
  case EK_FLOORDIV:
  case EK_CEILDIV:
    a = range(g, args[0]);
    if (osi_expr_is_const(s, args[1], &d) && d > 0) {
      int up = nd->kind == EK_CEILDIV;
      if (a.lo != INF_LO) r.lo = up ? ceil_div(a.lo, d) : floor_div(a.lo, d);
      if (a.hi != INF_HI) r.hi = up ? ceil_div(a.hi, d) : floor_div(a.hi, d);
      return r;
    }
    b = range(g, args[1]);
    if (a.lo >= 0 && b.lo >= 1) { /* both non-negative, b == 0 undefined */
      r.lo = 0;
      r.hi = a.hi; /* a // b and CeilDiv(a, b) are at most a for b >= 1 */
    }
    return r;
  case EK_MOD:
    a = range(g, args[0]), b = range(g, args[1]);
    if (b.lo >= 1) {
      r.lo = 0;
      r.hi = b.hi == INF_HI ? INF_HI : b.hi - 1;
      if (a.lo >= 0 && a.hi < r.hi) r.hi = a.hi;
    }
    return r;
  case EK_MAX:
  case EK_MIN:
  case EK_BROADCAST:
    r = range(g, args[0]);
    for (uint32_t i = 1; i < nd->n; i++) {
      a = range(g, args[i]);
      if (nd->kind == EK_MAX) {
        if (a.lo > r.lo) r.lo = a.lo;
        if (a.hi > r.hi) r.hi = a.hi;
      } else if (nd->kind == EK_MIN) {
        if (a.lo < r.lo) r.lo = a.lo;
        if (a.hi < r.hi) r.hi = a.hi;
      } else { /* one of its arguments wherever it is defined */
        if (a.lo < r.lo) r.lo = a.lo;
        if (a.hi > r.hi) r.hi = a.hi;
      }
    }
    return r;
  case EK_FTOINT:
    /* The store's own bounds (symbols >= 0): sound, if loose, under any ranges. */
    if (!expr_ftoint_bounds(s, e, &r.lo, &r.hi)) return ALL;
    return r;
  default: return ALL;
  }
}

static Range range(Ranger *g, OsiExpr e) {
  if (--g->budget < 0) return ALL;
  int kind = expr_kind(g->s, e);
  uint32_t at = 0;
  if (g->memo && kind != EK_SYM && kind != EK_CONST) {
    at = (uint32_t)(((uint64_t)e * 0x9e3779b97f4a7c15ull) >> 32) & (g->memo->cap - 1);
    if (g->memo->id[at] == e) return (Range){g->memo->iv[at][0], g->memo->iv[at][1]};
  }
  Range r = range_node(g, e);
  /* A compound the caller knows bounds of (a dim: >= 0): intersected. */
  int64_t lo, hi;
  if (kind != EK_SYM && kind != EK_CONST && g->range_of && g->range_of(g->user, e, &lo, &hi)) {
    if (lo > r.lo) r.lo = lo;
    if (hi < r.hi) r.hi = hi;
  }
  if (g->memo && kind != EK_SYM && kind != EK_CONST && g->budget >= 0) {
    g->memo->id[at] = e;
    g->memo->iv[at][0] = r.lo;
    g->memo->iv[at][1] = r.hi;
  }
  return r;
}

int osi_expr_range(const OsiExprStore *s, OsiExpr e, OsiExprSymbolRange range_of, void *user,
                   OsiExprRangeMemo *memo, int64_t *lo, int64_t *hi) {
  *lo = INF_LO, *hi = INF_HI;
  if (!s || e == OSI_EXPR_UNKNOWN || e >= s->nnodes || expr_is_float(s, e)) return 0;
  if (memo && (!memo->id || !memo->iv || !memo->cap)) memo = NULL;
  Ranger g = {s, range_of, user, memo, 4 * OSI_EXPR_MAX_NODES};
  Range r = range(&g, e);
  if (g.budget < 0) return 0;
  *lo = r.lo, *hi = r.hi;
  return r.lo != INF_LO || r.hi != INF_HI;
}

int osi_expr_nonneg(const OsiExprStore *s, OsiExpr e) {
  if (!s || e == OSI_EXPR_UNKNOWN || e >= s->nnodes || expr_is_float(s, e)) return 0;
  return ival_expr(s, e).lo >= 0;
}

/* Section - Direction in one symbol */

enum { DIR_CONST = 0, DIR_UP = 1, DIR_DOWN = -1, DIR_ANY = 2 };

static int dir_join(int a, int b) {
  if (a == DIR_CONST) return b;
  if (b == DIR_CONST || a == b) return a;
  return DIR_ANY;
}

static int dir_flip(int d) { return d == DIR_UP ? DIR_DOWN : d == DIR_DOWN ? DIR_UP : d; }

static int direction(const OsiExprStore *s, OsiExpr e, OsiExpr x, int depth);

/* Sign of a float constant: 1 positive, -1 negative, 0 otherwise (0, NaN). */
static int fconst_sign(const OsiExprStore *s, OsiExpr e) {
  double v;
  if (!osi_expr_is_fconst(s, e, &v)) return 0;
  return v > 0 ? 1 : v < 0 ? -1 : 0;
}

/* Lower bound of e over symbols >= 0 is >= 0 (store bounds; no ranges). */
static int nonneg(const OsiExprStore *s, OsiExpr e) {
  if (expr_is_float(s, e)) {
    double lo, hi;
    return osi_expr_float_bounds(s, e, &lo, &hi) && lo >= 0;
  }
  return ival_expr(s, e).lo >= 0;
}

/* A product of non-negative factors moves with each of them. */
static int product_direction(const OsiExprStore *s, const ExprNode *nd, const OsiExpr *args, OsiExpr x, int depth) {
  int d = DIR_CONST;
  for (uint32_t i = 0; i < nd->n && d != DIR_ANY; i++) {
    if (!nonneg(s, args[i])) return DIR_ANY;
    d = dir_join(d, direction(s, args[i], x, depth + 1));
  }
  return d;
}

static int direction_node(const OsiExprStore *s, OsiExpr e, OsiExpr x, int depth) {
  const ExprNode *nd = expr_node(s, e);
  const OsiExpr *args = expr_args(s, e);
  int d = DIR_CONST, k;
  int64_t c;
  switch (nd->kind) {
  case EK_CONST:
  case EK_FCONST: return DIR_CONST;
  case EK_SYM: return e == x ? DIR_UP : DIR_CONST;
  case EK_ADD:
    for (uint32_t i = 0; i < nd->n && d != DIR_ANY; i++) {
      k = direction(s, args[i], x, depth + 1);
      d = dir_join(d, expr_coefs(s, e)[i] < 0 ? dir_flip(k) : k);
    }
    return d;
  case EK_FMUL:
    /* by a constant: its sign says which way */
    for (int i = 0; i < 2; i++) {
      int sg = fconst_sign(s, args[i]);
      if (!osi_expr_is_fconst(s, args[i], NULL)) continue;
      k = direction(s, args[1 - i], x, depth + 1);
      return sg > 0 ? k : sg < 0 ? dir_flip(k) : k == DIR_CONST ? DIR_CONST : DIR_ANY;
    }
    return product_direction(s, nd, args, x, depth);
  case EK_MUL: return product_direction(s, nd, args, x, depth);
  case EK_FLOORDIV:
  case EK_CEILDIV:
    if (osi_expr_is_const(s, args[1], &c) && c > 0) return direction(s, args[0], x, depth + 1);
    break;
  case EK_MAX:
  case EK_MIN:
  case EK_FMIN:
  case EK_FMAX:
    for (uint32_t i = 0; i < nd->n && d != DIR_ANY; i++) d = dir_join(d, direction(s, args[i], x, depth + 1));
    return d;
  case EK_FTOINT:
  case EK_FCAST:
  case EK_FFLOOR:
  case EK_FCEIL:
  case EK_FROUND: return direction(s, args[0], x, depth + 1); /* rounding is monotone */
  case EK_FADD:
    return dir_join(direction(s, args[0], x, depth + 1), direction(s, args[1], x, depth + 1));
  case EK_FNEG: return dir_flip(direction(s, args[0], x, depth + 1));
  case EK_FDIV: {
    int a = direction(s, args[0], x, depth + 1), b = direction(s, args[1], x, depth + 1);
    if (b == DIR_CONST) {
      int sg = fconst_sign(s, args[1]);
      return sg > 0 ? a : sg < 0 ? dir_flip(a) : a == DIR_CONST ? DIR_CONST : DIR_ANY;
    }
    return DIR_ANY;
  }
  default: break;
  }
  /* %, Broadcast, a symbolic divisor: only when x is not in them */
  for (uint32_t i = 0; i < nd->n; i++)
    if (direction(s, args[i], x, depth + 1) != DIR_CONST) return DIR_ANY;
  return DIR_CONST;
}

static int direction(const OsiExprStore *s, OsiExpr e, OsiExpr x, int depth) {
  if (depth > OSI_EXPR_MAX_NODES) return DIR_ANY;
  return direction_node(s, e, x, depth);
}

int osi_expr_direction(const OsiExprStore *s, OsiExpr e, OsiExpr x) {
  if (!s || e == OSI_EXPR_UNKNOWN || e >= s->nnodes || x >= s->nnodes) return DIR_ANY;
  return direction(s, e, x, 0);
}

/* Section - Rebuilding */

OsiExpr osi_expr_rebuild(OsiExprStore *s, OsiExpr e, const OsiExpr *args) {
  if (!s || e == OSI_EXPR_UNKNOWN || e >= s->nnodes) return OSI_EXPR_UNKNOWN;
  int kind = s->nodes[e].kind;
  uint32_t n = s->nodes[e].n;
  if (kind == EK_FTOINT || expr_is_float_kind(kind)) return expr_float_rebuild(s, e, args);
  OsiExpr acc;
  switch (kind) {
  case EK_CONST:
  case EK_SYM: return e;
  case EK_ADD:
    acc = osi_expr_const(s, s->nodes[e].val);
    for (uint32_t i = 0; i < n && acc; i++)
      acc = osi_expr_add(s, acc, osi_expr_mul(s, osi_expr_const(s, s->coefs[s->nodes[e].off + i]), args[i]));
    return acc;
  case EK_MUL:
    acc = osi_expr_const(s, 1);
    for (uint32_t i = 0; i < n && acc; i++) acc = osi_expr_mul(s, acc, args[i]);
    return acc;
  case EK_FLOORDIV: return osi_expr_floordiv(s, args[0], args[1]);
  case EK_MOD: return osi_expr_mod(s, args[0], args[1]);
  case EK_CEILDIV: return osi_expr_ceildiv(s, args[0], args[1]);
  default:
    acc = args[0];
    for (uint32_t i = 1; i < n && acc; i++)
      acc = kind == EK_MAX ? osi_expr_max(s, acc, args[i])
          : kind == EK_MIN ? osi_expr_min(s, acc, args[i])
                           : osi_expr_broadcast(s, acc, args[i]);
    return acc;
  }
}

int osi_expr_arity(const OsiExprStore *s, OsiExpr e) {
  if (!s || e >= s->nnodes) return 0;
  int kind = s->nodes[e].kind;
  return kind == EK_CONST || kind == EK_SYM || kind == EK_FCONST ? 0 : (int)s->nodes[e].n;
}

OsiExpr osi_expr_arg(const OsiExprStore *s, OsiExpr e, int i) {
  return osi_expr_arity(s, e) > i && i >= 0 ? expr_args(s, e)[i] : OSI_EXPR_UNKNOWN;
}

int osi_expr_is_minmax(const OsiExprStore *s, OsiExpr e, int *is_max) {
  if (!s || e >= s->nnodes) return 0;
  int kind = s->nodes[e].kind;
  if (kind != EK_MIN && kind != EK_MAX) return 0;
  if (is_max) *is_max = kind == EK_MAX;
  return 1;
}

/* The monomials of e with their coefficients: an ADD's terms, else e itself. */
static uint32_t terms_of(const OsiExprStore *s, OsiExpr e, const OsiExpr **m, const int64_t **k, int64_t *one) {
  if (expr_kind(s, e) == EK_ADD) {
    *m = expr_args(s, e);
    *k = expr_coefs(s, e);
    return expr_node(s, e)->n;
  }
  if (expr_kind(s, e) == EK_CONST) return 0;
  *m = NULL; /* the caller points at e itself */
  *k = one;
  return 1;
}

int osi_expr_shares_term(const OsiExprStore *s, OsiExpr a, OsiExpr b, int opposite) {
  if (!s || a == OSI_EXPR_UNKNOWN || b == OSI_EXPR_UNKNOWN || a >= s->nnodes || b >= s->nnodes) return 0;
  const OsiExpr *ma = NULL, *mb = NULL;
  const int64_t *ka = NULL, *kb = NULL;
  int64_t one = 1;
  OsiExpr ea = a, eb = b;
  uint32_t na = terms_of(s, a, &ma, &ka, &one), nb = terms_of(s, b, &mb, &kb, &one);
  if (na && expr_kind(s, a) != EK_ADD) ma = &ea;
  if (nb && expr_kind(s, b) != EK_ADD) mb = &eb;
  for (uint32_t i = 0; i < na; i++)
    for (uint32_t j = 0; j < nb; j++)
      if (ma[i] == mb[j] && ((ka[i] < 0) != (kb[j] < 0)) == (opposite != 0)) return 1;
  return 0;
}

uint64_t osi_expr_fresh_mark(const OsiExprStore *s) { return s ? s->fresh_counter : 0; }

void osi_expr_fresh_rollback(OsiExprStore *s, uint64_t mark) {
  if (s && mark <= s->fresh_counter) s->fresh_counter = mark;
}

/* Section - Predicates as relations
 *
 * The comparisons of fold_math.c carry their truth as 0/1 expressions:
 * a > b is Min(Max(a-b, 0), 1) (the indicator of a-b), a >= b the
 * indicator of a-b+1, a == b is 1 - Min(Max(d, -d), 1) with d = a-b, Not
 * is 1 - p. Read back, "p >= 1" (holds) or "p <= 0" is one relation y >= 0
 * or y == 0, which is split into positive and negative terms to read
 * lhs <= rhs (lhs == rhs). */

/* y >= 0 (*eq = 0) or y == 0 (*eq = 1) equivalent to p >= 1 (ge1) or p <= 0. */
static OsiExpr relation_of(OsiExprStore *s, OsiExpr p, int ge1, int *eq, int depth) {
  if (p == OSI_EXPR_UNKNOWN || depth > 8 || expr_is_float(s, p)) return OSI_EXPR_UNKNOWN;
  OsiExpr y = expr_without_const(s, p, EK_MIN, 1);
  if (y == OSI_EXPR_UNKNOWN) y = expr_without_const(s, p, EK_MAX, 0);
  if (y != OSI_EXPR_UNKNOWN) return relation_of(s, y, ge1, eq, depth + 1);
  if (expr_kind(s, p) == EK_MAX && expr_node(s, p)->n == 2) {
    OsiExpr a[2] = {expr_args(s, p)[0], expr_args(s, p)[1]};
    /* |d| >= 1 is two cases; |d| <= 0 is d == 0 */
    if (a[1] == osi_expr_neg(s, a[0])) {
      if (ge1) return OSI_EXPR_UNKNOWN;
      *eq = 1;
      return a[0];
    }
  }
  if (expr_kind(s, p) == EK_ADD) {
    OsiExpr w = osi_expr_sub(s, osi_expr_const(s, 1), p);
    int wk = w == OSI_EXPR_UNKNOWN ? EK_UNKNOWN : expr_kind(s, w);
    if (wk == EK_MIN || wk == EK_MAX) return relation_of(s, w, !ge1, eq, depth + 1);
  }
  *eq = 0;
  return ge1 ? osi_expr_sub(s, p, osi_expr_const(s, 1)) : osi_expr_neg(s, p);
}

int osi_expr_predicate_relation(OsiExprStore *s, OsiExpr pred, int holds, OsiExpr *lhs, OsiExpr *rhs, int *le) {
  if (!s || pred == OSI_EXPR_UNKNOWN || pred >= s->nnodes) return 0;
  int eq = 0;
  OsiExpr y = relation_of(s, pred, holds, &eq, 0);
  if (y == OSI_EXPR_UNKNOWN) return 0;
  /* y = pos - neg: the terms with positive coefficients (and a positive
   * constant) on one side; y >= 0 reads neg <= pos. */
  OsiExpr pos = osi_expr_const(s, 0), neg = osi_expr_const(s, 0);
  int kind = expr_kind(s, y);
  if (kind == EK_ADD) {
    uint32_t n = expr_node(s, y)->n;
    int64_t c = expr_node(s, y)->val;
    for (uint32_t i = 0; i < n; i++) {
      OsiExpr m = expr_args(s, y)[i];
      int64_t k = expr_coefs(s, y)[i];
      if (k > 0) pos = osi_expr_add(s, pos, osi_expr_mul(s, osi_expr_const(s, k), m));
      else neg = osi_expr_add(s, neg, osi_expr_mul(s, osi_expr_const(s, k == INT64_MIN ? 0 : -k), m));
      if (k == INT64_MIN) return 0;
    }
    if (c > 0) pos = osi_expr_add(s, pos, osi_expr_const(s, c));
    else if (c < 0 && c != INT64_MIN) neg = osi_expr_add(s, neg, osi_expr_const(s, -c));
    else if (c == INT64_MIN) return 0;
  } else if (kind == EK_CONST) {
    return 0; /* decided: not a relation */
  } else {
    pos = y;
  }
  if (pos == OSI_EXPR_UNKNOWN || neg == OSI_EXPR_UNKNOWN) return 0;
  /* Symbols on the left when one side is a constant (T == 1, 400 <= time reads as is). */
  *le = !eq;
  if (eq && osi_expr_is_const(s, pos, NULL)) *lhs = neg, *rhs = pos;
  else if (eq) *lhs = pos, *rhs = neg;
  else *lhs = neg, *rhs = pos;
  return 1;
}
