/*
 * Max, Min and Broadcast in canonical form, under the soundness contract of
 * expr_simplify.c:
 *   Max/Min: flattened, constants folded, sorted, duplicates removed, and
 *   an argument dropped when an interval bound of its difference with
 *   another argument proves it never wins (Max(x+1, x) -> x+1; with
 *   assume_nonneg also Max(a+b, a) -> a+b, Min(x, 0) -> 0).
 *   Broadcast: flattened, sorted, duplicates and 1s removed; two different
 *   constants other than 1 -> OSI_EXPR_UNKNOWN; any other constant c != 1
 *   -> c.
 */
#include <stdlib.h>
#include <string.h>

#include "expr/expr_internal.h"

#define NARY_MAX OSI_EXPR_MAX_NODES

static int gather(const OsiExprStore *s, int kind, OsiExpr e, OsiExpr *buf, uint32_t *n) {
  if (!s || !e || e >= s->nnodes || expr_is_float(s, e)) return 0;
  const ExprNode *nd = expr_node(s, e);
  uint32_t cnt = nd->kind == kind ? nd->n : 1;
  if (*n + cnt > NARY_MAX) return 0;
  if (nd->kind == kind) memcpy(buf + *n, expr_args(s, e), cnt * sizeof *buf);
  else buf[*n] = e;
  *n += cnt;
  return 1;
}

static uint32_t sort_dedupe(const OsiExprStore *s, OsiExpr *v, uint32_t n) {
  for (uint32_t i = 1; i < n; i++) {
    OsiExpr x = v[i];
    uint32_t j = i;
    while (j > 0 && expr_cmp(s, v[j - 1], x) > 0) v[j] = v[j - 1], j--;
    v[j] = x;
  }
  uint32_t o = 0;
  for (uint32_t i = 0; i < n; i++)
    if (o == 0 || v[o - 1] != v[i]) v[o++] = v[i];
  return o;
}

/* 1 when x >= y (Max) / x <= y (Min) is proven (expr_bounds.c), so y never
 * wins over x. */
static int dominates(OsiExprStore *s, int kind, OsiExpr x, OsiExpr y) {
  Poly px, py, d;
  poly_init(&px);
  poly_init(&py);
  poly_init(&d);
  int r = 0;
  /* a proof tries at most PROVE_BUDGET steps (expr_bounds.c) */
  if (!expr_spend(s, 16)) return 0;
  if (kind == EK_MAX ? poly_load(s, y, &py) && poly_load(s, x, &px) && poly_addmul(s, &py, &px, -1, &d)
                     : poly_load(s, x, &px) && poly_load(s, y, &py) && poly_addmul(s, &px, &py, -1, &d))
    r = expr_prove_nonpositive(s, &d);
  poly_free(&px);
  poly_free(&py);
  poly_free(&d);
  return r;
}

static OsiExpr minmax_uncached(OsiExprStore *s, int kind, OsiExpr a, OsiExpr b);

/* As the sum memo (expr_floor.c): nothing computed inside a contraction or
 * across a cycle break is kept, so a result is the same in any context. */
static OsiExpr minmax(OsiExprStore *s, int kind, OsiExpr a, OsiExpr b) {
  uint32_t kb = b | (kind == EK_MAX ? 0x80000000u : 0);
  if (!s || s->work_out) return OSI_EXPR_UNKNOWN;
  if (!a || (b & 0x80000000u) || s->contracting) return expr_result(s, minmax_uncached(s, kind, a, b));
  uint32_t *m = expr_pair_slot(s, &s->minmax_memo, a, b, kind == EK_MAX);
  if (expr_memo_hit(s, m, a, kb)) return m[2];
  uint32_t breaks = s->cycle_breaks;
  OsiExpr r = minmax_uncached(s, kind, a, b);
  m = expr_pair_slot(s, &s->minmax_memo, a, b, kind == EK_MAX); /* the table may have grown meanwhile */
  if (m && s->cycle_breaks == breaks) expr_memo_put(s, m, a, kb, r);
  return expr_result(s, r);
}

static OsiExpr minmax_uncached(OsiExprStore *s, int kind, OsiExpr a, OsiExpr b) {
  OsiExpr v[2 * NARY_MAX];
  uint32_t n = 0;
  if (!gather(s, kind, a, v, &n) || !gather(s, kind, b, v, &n) || !expr_spend(s, n)) return OSI_EXPR_UNKNOWN;
  /* fold constants into one */
  uint32_t o = 0;
  int have = 0;
  int64_t best = 0, c;
  for (uint32_t i = 0; i < n; i++) {
    if (!osi_expr_is_const(s, v[i], &c)) {
      v[o++] = v[i];
      continue;
    }
    if (!have || (kind == EK_MAX ? c > best : c < best)) best = c;
    have = 1;
  }
  /* Every int64 is at most INT64_MAX and at least INT64_MIN: Min(x, INT64_MAX)
   * is x (a slice end or a box count written as "all of them"). */
  if (have && !(o > 0 && best == (kind == EK_MAX ? INT64_MIN : INT64_MAX))) v[o++] = osi_expr_const(s, best);
  n = sort_dedupe(s, v, o);
  unsigned char dead[2 * NARY_MAX] = {0};
  if (n <= 32) {
    /* The prover is not transitive (y <= w and w <= x proven, y <= x not):
     * drop what the transitive closure of the proven order dominates, so
     * the result does not depend on the order of the arguments. */
    uint32_t dom[32] = {0}; /* bit j of dom[i]: v[i] dominates v[j] */
    for (uint32_t i = 0; i < n; i++)
      for (uint32_t j = 0; j < n; j++)
        if (j != i && dominates(s, kind, v[i], v[j])) dom[i] |= 1u << j;
    for (uint32_t k = 0; k < n; k++)
      for (uint32_t i = 0; i < n; i++)
        if (dom[i] >> k & 1) dom[i] |= dom[k];
    for (uint32_t j = 0; j < n; j++)
      for (uint32_t i = 0; i < n && !dead[j]; i++) /* of equal ones, keep the first */
        if (i != j && (dom[i] >> j & 1) && (!(dom[j] >> i & 1) || i < j)) dead[j] = 1;
  } else {
    for (uint32_t i = 0; i < n; i++) {
      if (dead[i]) continue;
      for (uint32_t j = 0; j < n; j++)
        if (j != i && !dead[j] && dominates(s, kind, v[i], v[j])) dead[j] = 1;
    }
  }
  o = 0;
  for (uint32_t i = 0; i < n; i++)
    if (!dead[i]) v[o++] = v[i];
  if (o == 1) return v[0];
  return expr_intern(s, kind, v, o, NULL, 0, NULL, 0);
}

OsiExpr osi_expr_max(OsiExprStore *s, OsiExpr a, OsiExpr b) { return minmax(s, EK_MAX, a, b); }
OsiExpr osi_expr_min(OsiExprStore *s, OsiExpr a, OsiExpr b) { return minmax(s, EK_MIN, a, b); }

/* 1 when y is Min(x, c1, ...) with constants c >= 1 (a dim clipped to a
 * buffer size, as slicing a fixed cache gives). Then Broadcast(x, y) is x
 * for every x >= 0: x >= 1 makes 1 <= y <= x, so y is 1 or x; x = 0 makes
 * y = 0. */
static int clipped_copy(const OsiExprStore *s, OsiExpr y, OsiExpr x) {
  if (expr_kind(s, y) != EK_MIN) return 0;
  const OsiExpr *args = expr_args(s, y);
  int has_x = 0;
  for (uint32_t i = 0; i < expr_node(s, y)->n; i++) {
    int64_t c;
    if (args[i] == x) has_x = 1;
    else if (!osi_expr_is_const(s, args[i], &c) || c < 1) return 0;
  }
  return has_x;
}

static OsiExpr broadcast_uncached(OsiExprStore *s, OsiExpr a, OsiExpr b);

OsiExpr osi_expr_broadcast(OsiExprStore *s, OsiExpr a, OsiExpr b) {
  if (a == OSI_EXPR_UNKNOWN || b == OSI_EXPR_UNKNOWN || !s || s->work_out) return OSI_EXPR_UNKNOWN;
  uint32_t *m = expr_pair_slot(s, &s->bcast_memo, a, b, 0);
  if (expr_memo_hit(s, m, a, b)) return m[2];
  uint32_t breaks = s->cycle_breaks;
  OsiExpr r = broadcast_uncached(s, a, b);
  m = expr_pair_slot(s, &s->bcast_memo, a, b, 0); /* the table may have grown meanwhile */
  if (m && s->cycle_breaks == breaks) expr_memo_put(s, m, a, b, r);
  return expr_result(s, r);
}

static OsiExpr broadcast_uncached(OsiExprStore *s, OsiExpr a, OsiExpr b) {
  OsiExpr v[2 * NARY_MAX];
  uint32_t n = 0, o = 0;
  if (!gather(s, EK_BROADCAST, a, v, &n) || !gather(s, EK_BROADCAST, b, v, &n))
    return OSI_EXPR_UNKNOWN;
  int64_t c, k = 1;
  for (uint32_t i = 0; i < n; i++) {
    if (!osi_expr_is_const(s, v[i], &c)) {
      v[o++] = v[i];
    } else if (c != 1) {
      if (k != 1 && c != k) return OSI_EXPR_UNKNOWN; /* Broadcast(2, 3) is an error */
      k = c;
    }
  }
  if (k != 1) return osi_expr_const(s, k); /* defined only if the others are k or 1 */
  n = sort_dedupe(s, v, o);
  if (s->assume_nonneg) {
    /* Drop every operand that is a clipped copy of another one. */
    if (!expr_spend(s, (uint64_t)n * n)) return OSI_EXPR_UNKNOWN;
    unsigned char dead[2 * NARY_MAX] = {0};
    for (uint32_t i = 0; i < n; i++)
      for (uint32_t j = 0; j < n && !dead[i]; j++)
        if (j != i && !dead[j] &&
            (clipped_copy(s, v[i], v[j]) || expr_broadcast_drops(s, v[i], v[j])))
          dead[i] = 1;
    o = 0;
    for (uint32_t i = 0; i < n; i++)
      if (!dead[i]) v[o++] = v[i];
    n = o;
  }
  if (n == 0) return osi_expr_const(s, 1);
  if (n == 1) return v[0];
  return expr_intern(s, EK_BROADCAST, v, n, NULL, 0, NULL, 0);
}
