/*
 * One normal form for sums of // and % atoms with constant divisors, so that
 * a sum has one id however it was built, and reads the way a person writes
 * it: h + (-h)%4 is 4*((h+3)//4) (printed 4*CeilDiv(h,4)), h + h%2 is
 * 2*((h+1)//2), (h+1)//2 - h//2 is h%2, h - h//2 is (h+1)//2.
 *
 * Identities (d > 0 a constant, N any integer expression):
 *   N % d      = N - d*(N//d)
 *   (Y+e)//2e  = Y//e - Y//2e      (Hermite's identity, two terms; e = 1:
 *                                   (Y+1)//2 = Y - Y//2)
 * Expansion replaces every term k*(N%d) and every k*(N//2e) whose numerator
 * constant is >= e (canonical numerators of // d keep their constant in
 * [0, d)) by the right-hand side, until no such term is left. The expanded
 * sum E of a sum is the same however the sum was built (expansion is linear
 * and acts on each atom alone).
 * Contraction turns E back into atoms, greedily and in a fixed order: the
 * terms k*A, A = N//d, by decreasing d, each trying
 *   mod      c*N - c*d*A   -> c*(N%d)                (c = -k/d)
 *   neg mod  c*N' + c*d*A  -> c*(N'%d), N' = d-1 - N (c = k/d; only when
 *                                                     no constant is left
 *                                                     over: (-h)%4)
 *   hermite  c*(N//e) - c*A -> c*((N+e)//2e)         (d = 2e, c = -k)
 * where the replaced terms must all be in the sum with exactly these
 * coefficients, and the new atom must be the one whose expansion is exactly
 * the replaced terms (checked by rebuilding it with expr_div_raw). A step is
 * taken when it leaves fewer terms, or as many with fewer coefficients other
 * than +-1 (N + N%3, not 2*N - 3*(N//3)): that pair only decreases, so the
 * steps end. So the
 * result expands to E again, and contracting it changes nothing: it is
 * canonical. The larger divisors go first so that (h+3)//4 comes back from
 * h - h//2 - (h+1)//4 (hermite at d = 2, then at d = 4).
 * Every step is an identity over all integers: nothing here depends on the
 * signs of the symbols.
 */
#include <stdlib.h>
#include <string.h>

#include "expr/expr_internal.h"

#define FLOOR_MAX_STEPS 256
/* A contraction candidate whose expansion takes more steps is not tried.
 * Whether it is tried depends on the candidate alone, so the normal form is
 * still one per sum. The exports and torchvision models expand in at most 8
 * steps (a 13-level stride-2 pooling chain in 14); each candidate is
 * expanded again on every contraction step, and at 256 steps a 105-byte
 * chain of % with 19-digit divisors took 0.5 s to parse (5 ms now). */
#define CANDIDATE_MAX_STEPS 32

static int64_t const_divisor(const OsiExprStore *s, OsiExpr m, int kind) {
  int64_t d;
  if (expr_kind(s, m) != kind || !osi_expr_is_const(s, expr_args(s, m)[1], &d) || d < 2) return 0;
  return d;
}

static int64_t numerator_const(const OsiExprStore *s, OsiExpr m) {
  const ExprNode *nd = expr_node(s, expr_args(s, m)[0]);
  return nd->kind == EK_ADD || nd->kind == EK_CONST ? nd->val : 0;
}

/* k*(N//2e) with a numerator constant >= e: the hermite expansion applies. */
static int64_t hermite_divisor(const OsiExprStore *s, OsiExpr m) {
  int64_t d = const_divisor(s, m, EK_FLOORDIV);
  return d && d % 2 == 0 && numerator_const(s, m) >= d / 2 ? d : 0;
}

int expr_poly_has_floor(const OsiExprStore *s, const Poly *p) {
  for (uint32_t i = 0; i < p->n; i++)
    if (const_divisor(s, p->m[i], EK_FLOORDIV) || const_divisor(s, p->m[i], EK_MOD)) return 1;
  return 0;
}

static int poly_copy(Poly *dst, const Poly *src) {
  if (!poly_reserve(dst, src->n)) return 0;
  memcpy(dst->k, src->k, src->n * sizeof *dst->k);
  memcpy(dst->m, src->m, src->n * sizeof *dst->m);
  dst->n = src->n;
  dst->c = src->c;
  return 1;
}

/* p += k*e (p sorted; e any id). */
static int poly_add_expr(const OsiExprStore *s, Poly *p, OsiExpr e, int64_t k) {
  if (!e) return 0;
  Poly pe, out;
  poly_init(&pe);
  poly_init(&out);
  int ok = poly_load(s, e, &pe) && poly_addmul(s, p, &pe, k, &out) && poly_copy(p, &out);
  poly_free(&pe);
  poly_free(&out);
  return ok;
}

/* Section - Expansion */

/* The terms that replace the atom m (one step), added k times to p. */
static int expand_atom(OsiExprStore *s, Poly *p, OsiExpr m, int64_t k) {
  OsiExpr n = expr_args(s, m)[0];
  int64_t d = const_divisor(s, m, EK_MOD), nkd;
  if (d) { /* N - d*(N//d) */
    OsiExpr f = expr_div_raw(s, OP_FLOORDIV, n, osi_expr_const(s, d));
    return !__builtin_mul_overflow(k, -d, &nkd) && poly_add_expr(s, p, n, k) &&
           poly_add_expr(s, p, f, nkd);
  }
  d = hermite_divisor(s, m); /* Y//e - Y//2e with Y = N - e */
  OsiExpr y = osi_expr_sub(s, n, osi_expr_const(s, d / 2));
  OsiExpr g = d == 2 ? y : expr_div_raw(s, OP_FLOORDIV, y, osi_expr_const(s, d / 2));
  OsiExpr h = expr_div_raw(s, OP_FLOORDIV, y, osi_expr_const(s, d));
  return k != INT64_MIN && poly_add_expr(s, p, g, k) && poly_add_expr(s, p, h, -k);
}

/* Expands p in place until no term expands: 1; 0 past max_steps; -1 on
 * overflow (or without memory). */
static int expand(OsiExprStore *s, Poly *p, int max_steps) {
  for (int steps = 0;; steps++) {
    uint32_t i = 0;
    while (i < p->n && !const_divisor(s, p->m[i], EK_MOD) && !hermite_divisor(s, p->m[i])) i++;
    if (i == p->n) return 1;
    if (steps == max_steps) return 0;
    if (!expr_spend(s, 1 + (uint64_t)p->n)) return -1;
    OsiExpr m = p->m[i];
    int64_t k = p->k[i];
    memmove(p->k + i, p->k + i + 1, (p->n - i - 1) * sizeof *p->k);
    memmove(p->m + i, p->m + i + 1, (p->n - i - 1) * sizeof *p->m);
    p->n--;
    if (!expand_atom(s, p, m, k)) return -1;
  }
}

/* Section - Contraction */

/* Number of non-constant terms. */
static uint32_t nterms(const Poly *p) { return p->n; }

/* Coefficient of the monomial m in p (0 if absent). */
static int64_t coef_of(const OsiExprStore *s, const Poly *p, OsiExpr m) {
  for (uint32_t i = 0; i < p->n; i++)
    if (p->m[i] == m) return p->k[i];
  (void)s;
  return 0;
}

/* The atom a op d is built from N' with no rewrite (else it is no candidate:
 * a rewritten one is some other expression, seen as its own candidate). */
static OsiExpr candidate_atom(OsiExprStore *s, int op, OsiExpr num, int64_t d) {
  OsiExpr z = expr_div_raw(s, op, num, osi_expr_const(s, d));
  int64_t zd;
  int kind = op == OP_MOD ? EK_MOD : EK_FLOORDIV;
  if (!z || expr_kind(s, z) != kind || expr_args(s, z)[0] != num ||
      !osi_expr_is_const(s, expr_args(s, z)[1], &zd) || zd != d)
    return OSI_EXPR_UNKNOWN;
  return z;
}

#define MAX_CANDIDATES 5

/* Atoms that may stand for terms of a sum with the term k*(N//d): N%d,
 * (d-1-N)%d (the negated remainder: (-h)%4), and for d = 2e with N's
 * constant below e also (N+e)//d, (N+e)%d and (d-1-N-e)%d. */
static int candidates(OsiExprStore *s, OsiExpr a, int64_t d, OsiExpr *out) {
  OsiExpr n = expr_args(s, a)[0];
  /* numerators first, outside the guard: canonical sums */
  OsiExpr nums[MAX_CANDIDATES];
  int ops[MAX_CANDIDATES], cnt = 0;
  nums[cnt] = n, ops[cnt++] = OP_MOD;
  nums[cnt] = osi_expr_sub(s, osi_expr_const(s, d - 1), n), ops[cnt++] = OP_MOD;
  if (d % 2 == 0 && numerator_const(s, a) < d / 2) {
    OsiExpr n3 = osi_expr_add(s, n, osi_expr_const(s, d / 2));
    nums[cnt] = n3, ops[cnt++] = OP_FLOORDIV;
    nums[cnt] = n3, ops[cnt++] = OP_MOD;
    nums[cnt] = osi_expr_sub(s, osi_expr_const(s, d - 1), n3), ops[cnt++] = OP_MOD;
  }
  s->contracting++;
  for (int i = 0; i < cnt; i++) out[i] = nums[i] ? candidate_atom(s, ops[i], nums[i], d) : OSI_EXPR_UNKNOWN;
  s->contracting--;
  return cnt;
}

/* x = the full expansion of z, when it takes at most CANDIDATE_MAX_STEPS
 * and is built across no broken cycle. Every contraction step of every sum
 * tries the candidates of its terms, mostly the same atoms again; an
 * expansion is the same whenever it is built across no broken cycle, so it
 * is memoised (as the sum it is, interned as built) with that proviso. */
static int expansion_of(OsiExprStore *s, OsiExpr z, Poly *x) {
  uint32_t *slot = expr_pair_slot(s, &s->expansion_memo, z, 0, 0);
  if (expr_memo_hit(s, slot, z, 0)) return slot[2] && poly_load(s, slot[2], x);
  x->n = 0;
  x->c = 0;
  uint32_t breaks = s->cycle_breaks;
  int ok = poly_add_expr(s, x, z, 1) && expand(s, x, CANDIDATE_MAX_STEPS) == 1;
  if (s->cycle_breaks != breaks) return 0;
  OsiExpr sum = ok ? poly_intern(s, x) : OSI_EXPR_UNKNOWN;
  if (ok && !sum) return 1; /* not memoised */
  slot = expr_pair_slot(s, &s->expansion_memo, z, 0, 0); /* the table may have grown */
  if (slot) expr_memo_put(s, slot, z, 0, sum);
  return ok;
}

typedef struct {
  OsiExpr atom;
  int64_t c;
} Output;

/* Terms of p whose coefficient is not 1 or -1 (each prints a number). */
static uint32_t scaled_terms(const Poly *p) {
  uint32_t n = 0;
  for (uint32_t i = 0; i < p->n; i++) n += p->k[i] != 1 && p->k[i] != -1;
  return n;
}

/* How a sum reads, smaller is shorter: its terms first, then those with a
 * coefficient other than +-1, then whether a constant is left. */
static uint64_t reading_score(uint32_t terms, uint32_t scaled, int has_const) {
  return ((uint64_t)terms << 33) | ((uint64_t)scaled << 1) | (uint64_t)(has_const != 0);
}

/* One contraction step: the candidate c*z whose expansion, taken out of e,
 * leaves the shortest reading (counting c*z as one term), if that is
 * shorter than e's own, not counting the constant; on a tie one that leaves
 * no constant ((-a)%3, not 2-(a+2)%3), then the smaller constant, then the
 * smaller atom (expr_cmp). */
static int contract_once(OsiExprStore *s, Poly *e, Output *out, uint32_t *nout, int *failed) {
  OsiExpr best_z = OSI_EXPR_UNKNOWN;
  int64_t best_c = 0;
  uint64_t best_abs_c = 0;
  uint64_t best_score = reading_score(nterms(e), scaled_terms(e), 0); /* a step must read shorter */
  Poly x, rest;
  poly_init(&x);
  poly_init(&rest);
  int64_t below = 0;
  for (;;) { /* divisors in decreasing order */
    int64_t d = 0;
    for (uint32_t i = 0; i < e->n; i++) {
      int64_t di = const_divisor(s, e->m[i], EK_FLOORDIV);
      if (di > d && (below == 0 || di < below)) d = di;
    }
    if (d == 0) break;
    for (uint32_t i = 0; i < e->n; i++) {
      if (const_divisor(s, e->m[i], EK_FLOORDIV) != d) continue;
      OsiExpr a = e->m[i], z[MAX_CANDIDATES];
      int64_t k = e->k[i];
      uint32_t breaks = s->cycle_breaks;
      int cnt = candidates(s, a, d, z);
      if (s->cycle_breaks != breaks) continue;
      for (int j = 0; j < cnt; j++) {
        /* a candidate built across a broken cycle may depend on the sums
         * being canonicalised above this one: not taken */
        if (!expr_spend(s, 1 + (uint64_t)e->n)) break;
        if (!z[j] || !expansion_of(s, z[j], &x)) continue;
        int64_t ka = coef_of(s, &x, a);
        if (ka == 0 || (ka == -1 && k == INT64_MIN) || k % ka != 0 || k / ka == INT64_MIN) continue;
        rest.n = 0;
        if (!poly_addmul(s, e, &x, -(k / ka), &rest)) continue;
        int64_t c = k / ka;
        uint64_t score = reading_score(nterms(&rest) + 1, scaled_terms(&rest) + (c != 1 && c != -1), rest.c != 0);
        uint64_t abs_c = rest.c < 0 ? -(uint64_t)rest.c : (uint64_t)rest.c;
        /* Between steps that read alike, the smaller constant left, then
         * the smaller atom: the same choice whichever way round the sum's
         * atom came (N//d or the (d-1-N)//d it is the negation of), where
         * the first one tried would depend on it. */
        if (score < best_score ||
            (score == best_score && best_z != OSI_EXPR_UNKNOWN &&
             (abs_c < best_abs_c || (abs_c == best_abs_c && expr_cmp(s, z[j], best_z) < 0)))) {
          best_score = score;
          best_z = z[j];
          best_c = c;
          best_abs_c = abs_c;
        }
      }
    }
    below = d;
  }
  int ok = best_z != OSI_EXPR_UNKNOWN;
  if (ok) {
    rest.n = 0;
    ok = expansion_of(s, best_z, &x) && poly_addmul(s, e, &x, -best_c, &rest) && poly_copy(e, &rest);
    if (ok) {
      out[*nout].atom = best_z;
      out[(*nout)++].c = best_c;
    } else {
      *failed = 1;
    }
  }
  poly_free(&x);
  poly_free(&rest);
  return ok;
}

/* Section - Memo: models build the same sums over and over (every
 * convolution of a CNN adds and subtracts around (H+1)//2). Keyed by the sum
 * as built, interned as it is (a node that may not be canonical; no
 * constructor returns it unless it is), mapped to its canonical form. */

#define MEMO_MAX_CAP (1u << 16)

static uint32_t *memo_slot(OsiExprStore *s, OsiExpr key) {
  uint32_t h = s->nodes[key].hash * 2654435761u; /* structural (expr_pair_slot) */
  return expr_memo_entry(s, &s->sum_memo, &s->sum_memo_cap, MEMO_MAX_CAP, 3, h);
}

static OsiExpr canonical_uncached(OsiExprStore *s, const Poly *p);

/* Section - Entry: memo and cycles. The rewrites of expr_simplify.c that
 * keep a numerator's size (a // d with every term negative, % residues)
 * canonicalise other sums of the same size, so a sum's canonical form can
 * need itself; such a nested request gets the expansion (which needs no
 * contraction, so it is the same in any context), is counted, and nothing
 * computed across it is memoised or contracted into a result (see
 * contract_once): a canonical form is the same whatever is being computed
 * around it. */

OsiExpr expr_sum_canonical(OsiExprStore *s, const Poly *p) {
  if (s->contracting) return canonical_uncached(s, p);
  OsiExpr key = poly_intern(s, p);
  if (!key) return canonical_uncached(s, p);
  for (uint32_t i = 0; i < s->canon_depth; i++)
    if (s->canon_stack[i] == key) {
      s->cycle_breaks++;
      s->contracting++;
      OsiExpr r = canonical_uncached(s, p);
      s->contracting--;
      return r;
    }
  uint32_t *slot = memo_slot(s, key);
  if (slot && slot[0] == key && slot[2] == s->memo_epoch) return slot[1];
  if (s->canon_depth == sizeof s->canon_stack / sizeof s->canon_stack[0]) {
    s->cycle_breaks++; /* too deep to tell: as a cycle */
    s->contracting++;
    OsiExpr r = canonical_uncached(s, p);
    s->contracting--;
    return r;
  }
  uint32_t breaks = s->cycle_breaks;
  s->canon_stack[s->canon_depth++] = key;
  OsiExpr r = canonical_uncached(s, p);
  s->canon_depth--;
  slot = memo_slot(s, key); /* the table may have grown */
  if (slot && r && s->cycle_breaks == breaks) slot[0] = key, slot[1] = r, slot[2] = s->memo_epoch;
  return r;
}

static OsiExpr canonical_uncached(OsiExprStore *s, const Poly *p) {
  Poly e;
  poly_init(&e);
  OsiExpr r = OSI_EXPR_UNKNOWN;
  Output out[FLOOR_MAX_STEPS];
  uint32_t nout = 0;
  int failed = 0;
  if (!expr_spend(s, 1 + (uint64_t)p->n) || !poly_copy(&e, p)) goto done;
  int expanded = expand(s, &e, FLOOR_MAX_STEPS);
  /* Too many steps to normalise: kept as built. A sum whose expansion
   * leaves int64 has no normal form: unknown, as any size arithmetic that
   * overflows (kept as built, it would depend on the order it was built
   * in: a part of it normalises, the whole does not). */
  if (expanded < 0) goto done;
  if (expanded == 0) {
    r = poly_intern(s, p);
    goto done;
  }
  if (!s->contracting)
    while (nout < FLOOR_MAX_STEPS && contract_once(s, &e, out, &nout, &failed)) {
    }
  for (uint32_t i = 0; i < nout && !failed; i++)
    if (!poly_add_expr(s, &e, out[i].atom, out[i].c)) failed = 1;
  if (!failed) r = poly_intern(s, &e);
done:
  poly_free(&e);
  return r;
}
