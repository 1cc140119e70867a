/*
 * Order prover: proves p <= 0 for a polynomial p over canonical atoms, for
 * every binding of the symbols (symbols >= 0 only when the store's
 * assume_nonneg flag is on) at which p is defined. Used to drop a Max/Min
 * argument that never wins (expr_minmax.c).
 *
 * Three steps, each sound on its own, tried within a small budget:
 *   1. interval: the interval bound of p (ival_poly) has hi <= 0;
 *   2. Max/Min case split, on a term k*Max(a, b, ...) or k*Min(...) of p
 *      (the "all" kind first):
 *      the atom equals one of its arguments at every binding, so
 *        k > 0 with Min, k < 0 with Max: p <= p[atom := a] for every
 *          argument a; proving any one of those <= 0 is enough;
 *        k > 0 with Max, k < 0 with Min: p equals one of the p[atom := a];
 *          all of them must be proven <= 0;
 *      Broadcast(a, b, ...) is one of its arguments wherever it is defined,
 *      so it splits like the latter, whatever the sign of k;
 *   3. floor elimination: for d > 0, N - (d-1) <= d*(N//d) <= N, so with L
 *      the lcm of the divisors of the terms k*(N//d) of p, L*p <= U where U
 *      replaces each L*k*(N//d) by (L/d)*k*N (k > 0) or (L/d)*k*(N-(d-1))
 *      (k < 0). p is an integer, so p <= 0 exactly when L*p <= L-1, which
 *      U <= L-1 proves: the prover recurses on U - (L-1). This is what makes
 *      x <= 2*CeilDiv(x, 2) ((x+1)//2 in canonical form), (h+1)//4 <=
 *      (h+3)//4 and (x+1)//2 <= x (x >= 0) provable, where the interval of
 *      the difference is unbounded.
 */
#include <string.h>

#include "expr/expr_internal.h"

#define PROVE_DEPTH 6
#define PROVE_BUDGET 96
#define PROVE_MAX_LCM ((int64_t)1 << 24)

static int le0(const OsiExprStore *s, const Poly *p, int depth, int *budget);

/* out = p with its term i replaced by k_i * a. */
static int replace_term(const OsiExprStore *s, const Poly *p, uint32_t i, OsiExpr a, Poly *out) {
  Poly rest, pa;
  poly_init(&rest);
  poly_init(&pa);
  int ok = poly_reserve(&rest, p->n) && poly_load(s, a, &pa);
  if (ok) {
    for (uint32_t j = 0; j < p->n; j++)
      if (j != i) rest.k[rest.n] = p->k[j], rest.m[rest.n++] = p->m[j];
    rest.c = p->c;
    ok = poly_addmul(s, &rest, &pa, p->k[i], out);
  }
  poly_free(&rest);
  poly_free(&pa);
  return ok;
}

static int split_minmax(const OsiExprStore *s, const Poly *p, uint32_t i, int depth, int *budget) {
  OsiExpr atom = p->m[i];
  const ExprNode *nd = expr_node(s, atom);
  int any = nd->kind != EK_BROADCAST && (p->k[i] > 0) == (nd->kind == EK_MIN);
  OsiExpr args[OSI_EXPR_MAX_NODES];
  uint32_t n = nd->n;
  memcpy(args, expr_args(s, atom), n * sizeof *args);
  for (uint32_t j = 0; j < n; j++) {
    Poly q;
    poly_init(&q);
    int ok = replace_term(s, p, i, args[j], &q) && le0(s, &q, depth - 1, budget);
    poly_free(&q);
    if (any && ok) return 1;
    if (!any && !ok) return 0;
  }
  return !any;
}

static int64_t gcd_pos(int64_t a, int64_t b) {
  while (b) {
    int64_t t = a % b;
    a = b;
    b = t;
  }
  return a;
}

/* Divisor d > 0 of a linear floor term, or 0. */
static int64_t floor_divisor(const OsiExprStore *s, OsiExpr m) {
  int64_t d;
  if (expr_kind(s, m) != EK_FLOORDIV || !osi_expr_is_const(s, expr_args(s, m)[1], &d) || d <= 0)
    return 0;
  return d;
}

static int poly_copy(Poly *dst, const Poly *src) {
  if (!poly_reserve(dst, src->n)) return 0;
  memcpy(dst->k, src->k, src->n * sizeof *dst->k);
  memcpy(dst->m, src->m, src->n * sizeof *dst->m);
  dst->n = src->n;
  dst->c = src->c;
  return 1;
}

/* 1 when eliminating p's floor term i, k*(N//d), may cancel something: a
 * monomial of N contributes to k*N with the sign opposite to that of the
 * same monomial in another term of p, or in another floor term's k'*N'. */
static int may_cancel(const OsiExprStore *s, const Poly *p, uint32_t i) {
  Poly ni, nj;
  poly_init(&ni);
  poly_init(&nj);
  int r = 0;
  if (poly_load(s, expr_args(s, p->m[i])[0], &ni))
    for (uint32_t j = 0; j < p->n && !r; j++) {
      if (j == i) continue;
      for (uint32_t a = 0; a < ni.n && !r; a++) {
        int sign = (p->k[i] < 0) != (ni.k[a] < 0) ? -1 : 1;
        if (p->m[j] == ni.m[a]) {
          r = (p->k[j] < 0 ? -1 : 1) == -sign;
        } else if (floor_divisor(s, p->m[j]) && poly_load(s, expr_args(s, p->m[j])[0], &nj)) {
          for (uint32_t b = 0; b < nj.n && !r; b++)
            r = nj.m[b] == ni.m[a] && ((p->k[j] < 0) != (nj.k[b] < 0) ? -1 : 1) == -sign;
        }
      }
    }
  poly_free(&ni);
  poly_free(&nj);
  return r;
}

/* Eliminates the floor terms selected by `only` (bit i: term i; all when
 * only is NULL). */
static int eliminate_some(const OsiExprStore *s, const Poly *p, const unsigned char *only,
                          int depth, int *budget);

static int eliminate_floors(const OsiExprStore *s, const Poly *p, int depth, int *budget) {
  /* First only the floor terms that may cancel against others (a floor
   * term bounded by itself, -k*(b//4) <= 0, is better left to the
   * interval), then all of them. */
  unsigned char sel[OSI_EXPR_MAX_NODES * 2];
  int some = 0, all = 1;
  for (uint32_t i = 0; i < p->n && i < sizeof sel; i++) {
    sel[i] = floor_divisor(s, p->m[i]) && may_cancel(s, p, i);
    some |= sel[i];
    all &= sel[i] || !floor_divisor(s, p->m[i]);
  }
  if (p->n > sizeof sel) return eliminate_some(s, p, NULL, depth, budget);
  if (some && eliminate_some(s, p, sel, depth, budget)) return 1;
  return !(some && all) && eliminate_some(s, p, NULL, depth, budget);
}

static int eliminate_some(const OsiExprStore *s, const Poly *p, const unsigned char *only,
                          int depth, int *budget) {
  int64_t lcm = 1;
  int any = 0;
  for (uint32_t i = 0; i < p->n; i++) {
    int64_t d = only && !only[i] ? 0 : floor_divisor(s, p->m[i]), l;
    if (!d) continue;
    any = 1;
    if (__builtin_mul_overflow(lcm / gcd_pos(lcm, d), d, &l) || l > PROVE_MAX_LCM) return 0;
    lcm = l;
  }
  if (!any) return 0;
  Poly u, t, num;
  poly_init(&u);
  poly_init(&t);
  poly_init(&num);
  /* u = lcm * (the other terms and the constant) - (lcm - 1) */
  int ok = poly_reserve(&u, p->n) && !__builtin_mul_overflow(p->c, lcm, &u.c) &&
           !__builtin_sub_overflow(u.c, lcm - 1, &u.c);
  for (uint32_t i = 0; ok && i < p->n; i++) {
    if ((!only || only[i]) && floor_divisor(s, p->m[i])) continue;
    u.m[u.n] = p->m[i];
    ok = !__builtin_mul_overflow(p->k[i], lcm, &u.k[u.n++]);
  }
  for (uint32_t i = 0; ok && i < p->n; i++) {
    int64_t d = only && !only[i] ? 0 : floor_divisor(s, p->m[i]), f, slack;
    if (!d) continue;
    /* + f*N, and for k < 0 also - f*(d-1) (f < 0: a positive slack) */
    ok = poly_load(s, expr_args(s, p->m[i])[0], &num) &&
         !__builtin_mul_overflow(lcm / d, p->k[i], &f);
    if (ok && f < 0)
      ok = !__builtin_mul_overflow(f, d - 1, &slack) && !__builtin_sub_overflow(u.c, slack, &u.c);
    t.n = 0;
    ok = ok && poly_addmul(s, &u, &num, f, &t) && poly_copy(&u, &t);
  }
  ok = ok && le0(s, &u, depth - 1, budget);
  poly_free(&u);
  poly_free(&t);
  poly_free(&num);
  return ok;
}

static int le0(const OsiExprStore *s, const Poly *p, int depth, int *budget) {
  if (--*budget < 0) return 0;
  Ival iv = ival_poly(s, p);
  if (iv.hi != INT64_MAX && iv.hi <= 0) return 1;
  if (depth <= 0) return 0;
  /* Split an atom that must be proven for all its arguments first, so that
   * each branch can pick its own argument for the others: Min(p,64) -
   * Min(p+s,64) <= 0 takes p against p+s and 64 against 64. */
  for (int all = 1; all >= 0; all--)
    for (uint32_t i = 0; i < p->n; i++) {
      int kind = expr_kind(s, p->m[i]);
      int is_all = kind == EK_BROADCAST || (p->k[i] > 0) == (kind == EK_MAX);
      if ((kind == EK_MAX || kind == EK_MIN || kind == EK_BROADCAST) && is_all == all)
        return split_minmax(s, p, i, depth, budget);
    }
  return eliminate_floors(s, p, depth, budget);
}

int expr_prove_nonpositive(const OsiExprStore *s, const Poly *p) {
  int budget = PROVE_BUDGET;
  return le0(s, p, PROVE_DEPTH, &budget);
}
