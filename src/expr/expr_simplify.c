/*
 * Expression constructors: polynomial normal form and the rewrite rules of
 * // % CeilDiv; Max, Min and Broadcast are in expr_minmax.c (canonical
 * forms: see expr_internal.h).
 *
 * Soundness contract: every rewrite preserves the value for ALL int64
 * bindings of the symbols (for non-negative bindings only when the store's
 * assume_nonneg flag is on) at which the original expression is defined.
 * A rewrite may change an expression whose evaluation is undefined (a
 * division or modulo by zero, e.g. (2*H)//H -> 2, or an undefined
 * Broadcast, e.g. Broadcast(x, 5) -> 5), nothing else. Coefficient or
 * constant overflow, and results past OSI_EXPR_MAX_NODES, give
 * OSI_EXPR_UNKNOWN.
 *
 * Main rules (d a positive constant, m a monomial with coefficient c > 0;
 * divisors are first normalised so that their leading coefficient is
 * positive, e.g. a // -3 = (-a) // 3):
 *   (q*d + r) // d -> q + r // d   (exact-multiple terms extracted, the
 *                                  constant reduced into [0, d))
 *   (q*d + r) % d  -> r % d        (coefficients reduced into (-d/2, d/2],
 *                                  the constant into [0, d))
 *   (g*r) // (g*d) -> r // d, (g*r) % (g*d) -> g*(r % d)   (g = gcd > 0)
 *   (x // d1) // d2 -> x // (d1*d2), (x % (k*d)) % d -> x % d
 *   r // d -> k and r % d -> r when the interval of r proves it
 *   a // b, a % b, CeilDiv(a, b) with a = k*b -> k, 0, k
 *   CeilDiv(a, d) -> (a + d - 1) // d
 */
#include <stdlib.h>
#include <string.h>

#include "expr/expr_internal.h"

#define PRODUCT_MAX_TERMS 4096
#define NEG_INF INT64_MIN
#define POS_INF INT64_MAX

/* Section - Scratch polynomials */

void poly_init(Poly *p) {
  p->c = 0;
  p->n = 0;
  p->cap = POLY_INLINE;
  p->k = p->kb;
  p->m = p->mb;
}

void poly_free(Poly *p) {
  if (p->k != p->kb) {
    free(p->k);
    free(p->m);
  }
  poly_init(p);
}

int poly_reserve(Poly *p, uint32_t n) {
  if (n <= p->cap) return 1;
  if (n > PRODUCT_MAX_TERMS * 2) return 0;
  int64_t *k = malloc(n * sizeof *k);
  OsiExpr *m = malloc(n * sizeof *m);
  if (!k || !m) {
    free(k);
    free(m);
    return 0;
  }
  memcpy(k, p->k, p->n * sizeof *k);
  memcpy(m, p->m, p->n * sizeof *m);
  if (p->k != p->kb) {
    free(p->k);
    free(p->m);
  }
  p->k = k;
  p->m = m;
  p->cap = n;
  return 1;
}

static int poly_push(Poly *p, int64_t k, OsiExpr m) {
  if (p->n == p->cap && !poly_reserve(p, p->cap * 2)) return 0;
  p->k[p->n] = k;
  p->m[p->n++] = m;
  return 1;
}

int poly_load(const OsiExprStore *s, OsiExpr e, Poly *p) {
  const ExprNode *nd = expr_node(s, e);
  p->n = 0;
  p->c = 0;
  if (nd->kind == EK_CONST) {
    p->c = nd->val;
    return 1;
  }
  if (nd->kind != EK_ADD) return poly_push(p, 1, e);
  if (!poly_reserve(p, nd->n)) return 0;
  memcpy(p->k, s->coefs + nd->off, nd->n * sizeof *p->k);
  memcpy(p->m, s->args + nd->off, nd->n * sizeof *p->m);
  p->n = nd->n;
  p->c = nd->val;
  return 1;
}

OsiExpr poly_intern(OsiExprStore *s, const Poly *p) {
  if (p->n == 0) return osi_expr_const(s, p->c);
  if (p->n == 1 && p->k[0] == 1 && p->c == 0) return p->m[0];
  return expr_intern(s, EK_ADD, p->m, p->n, p->k, p->c, NULL, 0);
}

OsiExpr poly_expr(OsiExprStore *s, const Poly *p) {
  return expr_poly_has_floor(s, p) ? expr_sum_canonical(s, p) : poly_intern(s, p);
}

int poly_addmul(const OsiExprStore *s, const Poly *a, const Poly *b, int64_t kb, Poly *out) {
  int64_t t;
  if (__builtin_mul_overflow(b->c, kb, &t) || __builtin_add_overflow(a->c, t, &out->c)) return 0;
  if (!poly_reserve(out, a->n + b->n)) return 0;
  uint32_t i = 0, j = 0;
  while (i < a->n || j < b->n) {
    int c = i == a->n ? 1 : j == b->n ? -1 : expr_mono_cmp(s, a->m[i], b->m[j]);
    if (c < 0) {
      out->k[out->n] = a->k[i];
      out->m[out->n++] = a->m[i++];
      continue;
    }
    if (__builtin_mul_overflow(b->k[j], kb, &t)) return 0;
    if (c == 0 && __builtin_add_overflow(t, a->k[i++], &t)) return 0;
    /* Coefficients stay within +-INT64_MAX, so that every one can change
     * sign (a subtraction, a printed minus parsed back): INT64_MIN counts as
     * an overflow. */
    if (t == INT64_MIN) return 0;
    if (t) {
      out->k[out->n] = t;
      out->m[out->n++] = b->m[j];
    }
    j++;
  }
  return 1;
}

/* Merge sort of terms by monomial, then merge equal monomials. */
static void sort_terms(const OsiExprStore *s, int64_t *k, OsiExpr *m, int64_t *tk, OsiExpr *tm,
                       uint32_t n) {
  if (n < 2) return;
  uint32_t h = n / 2;
  sort_terms(s, k, m, tk, tm, h);
  sort_terms(s, k + h, m + h, tk, tm, n - h);
  uint32_t i = 0, j = h, o = 0;
  while (i < h || j < n) {
    if (j == n || (i < h && expr_mono_cmp(s, m[i], m[j]) <= 0)) {
      tk[o] = k[i];
      tm[o++] = m[i++];
    } else {
      tk[o] = k[j];
      tm[o++] = m[j++];
    }
  }
  memcpy(k, tk, n * sizeof *k);
  memcpy(m, tm, n * sizeof *m);
}

/* Sorts p's terms and combines duplicates; 0 on overflow or no memory. */
static int poly_normalize(const OsiExprStore *s, Poly *p) {
  if (p->n > 1) {
    int64_t *tk = malloc(p->n * sizeof *tk);
    OsiExpr *tm = malloc(p->n * sizeof *tm);
    if (!tk || !tm) {
      free(tk);
      free(tm);
      return 0;
    }
    sort_terms(s, p->k, p->m, tk, tm, p->n);
    free(tk);
    free(tm);
  }
  uint32_t o = 0;
  for (uint32_t i = 0; i < p->n; i++) {
    if (o > 0 && p->m[o - 1] == p->m[i]) {
      if (__builtin_add_overflow(p->k[o - 1], p->k[i], &p->k[o - 1]) || p->k[o - 1] == INT64_MIN)
        return 0; /* coefficients stay within +-INT64_MAX (poly_addmul) */
    } else {
      if (o > 0 && p->k[o - 1] == 0) o--;
      p->k[o] = p->k[i];
      p->m[o++] = p->m[i];
    }
  }
  if (o > 0 && p->k[o - 1] == 0) o--;
  p->n = o;
  return 1;
}

/* Atoms of a monomial (copied out: interning may move the pool). */
static uint32_t mono_atoms(const OsiExprStore *s, OsiExpr m, OsiExpr *out) {
  const ExprNode *nd = expr_node(s, m);
  if (nd->kind != EK_MUL) {
    out[0] = m;
    return 1;
  }
  memcpy(out, s->args + nd->off, nd->n * sizeof *out);
  return nd->n;
}

static OsiExpr mono_from_atoms(OsiExprStore *s, const OsiExpr *atoms, uint32_t n) {
  if (n == 0) return osi_expr_const(s, 1);
  if (n == 1) return atoms[0];
  return expr_intern(s, EK_MUL, atoms, n, NULL, 0, NULL, 0);
}

static OsiExpr mono_mul(OsiExprStore *s, OsiExpr a, OsiExpr b) {
  OsiExpr la[OSI_EXPR_MAX_NODES], lb[OSI_EXPR_MAX_NODES], out[2 * OSI_EXPR_MAX_NODES];
  uint32_t na = mono_atoms(s, a, la), nb = mono_atoms(s, b, lb), i = 0, j = 0, o = 0;
  if (na + nb > OSI_EXPR_MAX_NODES || !expr_spend(s, na + nb)) return OSI_EXPR_UNKNOWN;
  while (i < na || j < nb)
    out[o++] = (j == nb || (i < na && expr_cmp(s, la[i], lb[j]) <= 0)) ? la[i++] : lb[j++];
  return mono_from_atoms(s, out, o);
}

/* Sorts atoms[0..n) by expr_cmp (stably: a merge sort), tmp holding n. */
static void sort_atoms(const OsiExprStore *s, OsiExpr *atoms, OsiExpr *tmp, uint32_t n) {
  if (n < 2) return;
  uint32_t h = n / 2, i = 0, j = h, o = 0;
  sort_atoms(s, atoms, tmp, h);
  sort_atoms(s, atoms + h, tmp, n - h);
  while (i < h || j < n) tmp[o++] = (j == n || (i < h && expr_cmp(s, atoms[i], atoms[j]) <= 0)) ? atoms[i++] : atoms[j++];
  memcpy(atoms, tmp, n * sizeof *atoms);
}

OsiExpr expr_atoms_product(OsiExprStore *s, OsiExpr *atoms, uint32_t n) {
  if (n > OSI_EXPR_MAX_NODES || !expr_spend(s, n)) return OSI_EXPR_UNKNOWN;
  OsiExpr tmp[OSI_EXPR_MAX_NODES];
  sort_atoms(s, atoms, tmp, n);
  return expr_result(s, mono_from_atoms(s, atoms, n));
}

/* u / m as a monomial (const 1 when equal); UNKNOWN when m does not divide u. */
static OsiExpr mono_div(OsiExprStore *s, OsiExpr u, OsiExpr m) {
  if (u == m) return osi_expr_const(s, 1);
  OsiExpr lu[OSI_EXPR_MAX_NODES], lm[OSI_EXPR_MAX_NODES], out[OSI_EXPR_MAX_NODES];
  uint32_t nu = mono_atoms(s, u, lu), nm = mono_atoms(s, m, lm), i = 0, j = 0, o = 0;
  while (i < nu) {
    int c = j == nm ? -1 : expr_cmp(s, lu[i], lm[j]);
    if (c < 0) out[o++] = lu[i++];
    else if (c == 0) i++, j++;
    else return OSI_EXPR_UNKNOWN;
  }
  if (j < nm) return OSI_EXPR_UNKNOWN;
  return mono_from_atoms(s, out, o);
}

/* Section - Intervals (sound bounds; NEG_INF / POS_INF as lo / hi mean unbounded) */

static const Ival IV_ALL = {NEG_INF, POS_INF};

static Ival iv_add(Ival a, Ival b) {
  Ival r;
  if (a.lo == NEG_INF || b.lo == NEG_INF || __builtin_add_overflow(a.lo, b.lo, &r.lo)) r.lo = NEG_INF;
  if (a.hi == POS_INF || b.hi == POS_INF || __builtin_add_overflow(a.hi, b.hi, &r.hi)) r.hi = POS_INF;
  return r;
}

/* Extended product: *inf is -1/0/1 for -inf/finite/+inf. */
static int64_t ext_mul(int64_t a, int ainf, int64_t b, int binf, int *inf) {
  *inf = 0;
  if ((!ainf && a == 0) || (!binf && b == 0)) return 0;
  int neg = ((ainf ? ainf < 0 : a < 0) != (binf ? binf < 0 : b < 0));
  int64_t r;
  if (ainf || binf || __builtin_mul_overflow(a, b, &r)) {
    *inf = neg ? -1 : 1;
    return 0;
  }
  return r;
}

static Ival iv_mul(Ival a, Ival b) {
  int64_t av[2] = {a.lo, a.hi}, bv[2] = {b.lo, b.hi};
  int ai[2] = {a.lo == NEG_INF ? -1 : 0, a.hi == POS_INF ? 1 : 0};
  int bi[2] = {b.lo == NEG_INF ? -1 : 0, b.hi == POS_INF ? 1 : 0};
  int loinf = 1, hiinf = -1; /* start empty */
  int64_t lo = 0, hi = 0;
  for (int i = 0; i < 2; i++)
    for (int j = 0; j < 2; j++) {
      int inf;
      int64_t v = ext_mul(av[i], ai[i], bv[j], bi[j], &inf);
      if (inf < 0 || (inf == 0 && loinf == 1) || (inf == 0 && loinf == 0 && v < lo)) {
        if (inf < 0) loinf = -1;
        else if (loinf != -1) loinf = 0, lo = v;
      }
      if (inf > 0 || (inf == 0 && hiinf == -1) || (inf == 0 && hiinf == 0 && v > hi)) {
        if (inf > 0) hiinf = 1;
        else if (hiinf != 1) hiinf = 0, hi = v;
      }
    }
  Ival r = {loinf ? NEG_INF : lo, hiinf ? POS_INF : hi};
  return r;
}

Ival ival_poly(const OsiExprStore *s, const Poly *p) {
  Ival r = {p->c, p->c};
  for (uint32_t i = 0; i < p->n; i++) {
    Ival k = {p->k[i], p->k[i]};
    r = iv_add(r, iv_mul(k, ival_expr(s, p->m[i])));
  }
  return r;
}

static Ival ival_node(const OsiExprStore *s, OsiExpr e, const ExprNode *nd);

#define IVAL_MEMO_MAX_CAP (1u << 14)

void expr_ival_memo_clear(IvalMemo *m) {
  if (m->id) memset(m->id, 0, (size_t)m->cap * sizeof *m->id);
}

static uint32_t *ival_memo_slot(const OsiExprStore *s, IvalMemo *m, OsiExpr e) {
  if (m->cap < IVAL_MEMO_MAX_CAP && m->cap < s->nnodes) {
    uint32_t cap = m->cap ? m->cap : 256;
    while (cap < s->nnodes && cap < IVAL_MEMO_MAX_CAP) cap *= 2;
    uint32_t *id = calloc(cap, sizeof *id); /* a new table starts empty */
    int64_t(*iv)[2] = malloc(cap * sizeof *iv);
    if (id && iv) {
      free(m->id);
      free(m->iv);
      m->id = id;
      m->iv = iv;
      m->cap = cap;
    } else {
      free(id);
      free(iv);
    }
  }
  return m->id ? m->id + (e & (m->cap - 1)) : NULL;
}

/* Ids are immutable and their bounds depend only on the store flags, so a
 * memo by id (cleared when a flag changes) returns what the walk would. */
Ival ival_expr(const OsiExprStore *s, OsiExpr e) {
  const ExprNode *nd = expr_node(s, e);
  if (nd->kind == EK_CONST || nd->kind == EK_SYM || e == OSI_EXPR_UNKNOWN) return ival_node(s, e, nd);
  /* The store is const to its readers; the memo is a cache beside it. */
  IvalMemo *m = (IvalMemo *)&s->ival_memo;
  uint32_t *slot = ival_memo_slot(s, m, e);
  if (slot && *slot == e) {
    Ival r = {m->iv[slot - m->id][0], m->iv[slot - m->id][1]};
    return r;
  }
  Ival r = ival_node(s, e, nd);
  /* The walk below may have grown (and emptied) the memo. */
  slot = ival_memo_slot(s, m, e);
  if (slot) {
    *slot = e;
    m->iv[slot - m->id][0] = r.lo;
    m->iv[slot - m->id][1] = r.hi;
  }
  return r;
}

static Ival ival_node(const OsiExprStore *s, OsiExpr e, const ExprNode *nd) {
  const OsiExpr *args = expr_args(s, e);
  Ival r = IV_ALL;
  switch (nd->kind) {
  case EK_CONST: r.lo = r.hi = nd->val; return r;
  case EK_SYM:
    if (s->assume_nonneg) r.lo = 0;
    return r;
  case EK_MUL:
    r = ival_expr(s, args[0]);
    for (uint32_t i = 1; i < nd->n; i++) r = iv_mul(r, ival_expr(s, args[i]));
    return r;
  case EK_ADD: {
    r.lo = r.hi = nd->val;
    const int64_t *k = expr_coefs(s, e);
    for (uint32_t i = 0; i < nd->n; i++) {
      Ival c = {k[i], k[i]};
      r = iv_add(r, iv_mul(c, ival_expr(s, args[i])));
    }
    return r;
  }
  case EK_FLOORDIV:
  case EK_CEILDIV: {
    Ival a = ival_expr(s, args[0]), b = ival_expr(s, args[1]);
    int64_t d;
    if (osi_expr_is_const(s, args[1], &d) && d > 0) {
      /* CeilDiv(x, d) = -((-x) // d); only FLOORDIV nodes have constant
       * divisors in canonical form, but stay general. */
      if (nd->kind == EK_CEILDIV) return IV_ALL;
      if (a.lo != NEG_INF) expr_floordiv64(a.lo, d, &r.lo);
      if (a.hi != POS_INF) expr_floordiv64(a.hi, d, &r.hi);
      return r;
    }
    if (a.lo >= 0 && b.lo >= 0) r.lo = 0, r.hi = a.hi; /* b == 0 is undefined */
    return r;
  }
  case EK_MOD: {
    Ival a = ival_expr(s, args[0]), b = ival_expr(s, args[1]);
    if (b.lo >= 0) {
      r.lo = 0;
      r.hi = b.hi == POS_INF ? POS_INF : b.hi - 1;
      if (a.lo >= 0 && a.hi < r.hi) r.hi = a.hi;
    } else if (b.hi <= 0) {
      r.hi = 0;
      r.lo = b.lo == NEG_INF ? NEG_INF : b.lo + 1;
      if (a.hi <= 0 && a.lo != NEG_INF && a.lo > r.lo) r.lo = a.lo;
    }
    return r;
  }
  case EK_MAX:
  case EK_MIN:
  case EK_BROADCAST:
    r = ival_expr(s, args[0]);
    for (uint32_t i = 1; i < nd->n; i++) {
      Ival a = ival_expr(s, args[i]);
      if (nd->kind == EK_MAX) {
        if (a.lo > r.lo) r.lo = a.lo;
        if (a.hi > r.hi) r.hi = a.hi;
      } else if (nd->kind == EK_MIN) {
        if (a.lo < r.lo) r.lo = a.lo;
        if (a.hi < r.hi) r.hi = a.hi;
      } else {
        if (a.lo < r.lo) r.lo = a.lo;
        if (a.hi > r.hi) r.hi = a.hi;
      }
    }
    return r;
  case EK_FTOINT:
    if (!expr_ftoint_bounds(s, e, &r.lo, &r.hi)) return IV_ALL;
    return r;
  default: return IV_ALL;
  }
}

/* Section - Ring operations */

/* Operands must be known integer ids of this store. */
static int ok2(const OsiExprStore *s, OsiExpr a, OsiExpr b) {
  return s && a && b && a < s->nnodes && b < s->nnodes && !expr_is_float(s, a) && !expr_is_float(s, b);
}

static OsiExpr add_scaled(OsiExprStore *s, OsiExpr a, OsiExpr b, int64_t kb) {
  if (!ok2(s, a, b)) return OSI_EXPR_UNKNOWN;
  const ExprNode *na = expr_node(s, a), *nb = expr_node(s, b);
  if (na->kind == EK_CONST && nb->kind == EK_CONST) {
    int64_t t, r;
    if (__builtin_mul_overflow(nb->val, kb, &t) || __builtin_add_overflow(na->val, t, &r))
      return OSI_EXPR_UNKNOWN;
    return osi_expr_const(s, r);
  }
  Poly pa, pb, out;
  poly_init(&pa);
  poly_init(&pb);
  poly_init(&out);
  OsiExpr r = OSI_EXPR_UNKNOWN;
  if (poly_load(s, a, &pa) && poly_load(s, b, &pb) && poly_addmul(s, &pa, &pb, kb, &out))
    r = poly_expr(s, &out);
  poly_free(&pa);
  poly_free(&pb);
  poly_free(&out);
  return r;
}

/* Section - Memo of the binary constructors */

/* Operation codes of arith_memo, kept in the top bits of the second id. */
enum { MEMO_ADD = 1, MEMO_SUB, MEMO_FLOORDIV, MEMO_MOD, MEMO_CEILDIV };
#define MEMO_OP_SHIFT 29

typedef OsiExpr (*BinaryRule)(OsiExprStore *s, int op, OsiExpr a, OsiExpr b);

/* f(s, op, a, b) through s->arith_memo. As the Max/Min memo
 * (expr_minmax.c): nothing computed inside a contraction or across a cycle
 * break is kept, so a result is the same in any context; nor an unknown
 * (it may be a failed allocation). */
static OsiExpr memoised(OsiExprStore *s, int code, int op, OsiExpr a, OsiExpr b, BinaryRule f) {
  if (!s) return OSI_EXPR_UNKNOWN;
  if (s->work_out) return OSI_EXPR_UNKNOWN;
  if (!a || (b >> MEMO_OP_SHIFT) || s->contracting) return expr_result(s, f(s, op, a, b));
  uint32_t kb = b | (uint32_t)code << MEMO_OP_SHIFT;
  uint32_t *m = expr_pair_slot(s, &s->arith_memo, a, b, (uint32_t)code);
  if (expr_memo_hit(s, m, a, kb)) return m[2];
  uint32_t breaks = s->cycle_breaks;
  OsiExpr r = f(s, op, a, b);
  m = expr_pair_slot(s, &s->arith_memo, a, b, (uint32_t)code); /* the table may have grown meanwhile */
  if (m && r && s->cycle_breaks == breaks) expr_memo_put(s, m, a, kb, r);
  return expr_result(s, r);
}

static OsiExpr add_rule(OsiExprStore *s, int kb, OsiExpr a, OsiExpr b) { return add_scaled(s, a, b, kb); }

static OsiExpr add_memoised(OsiExprStore *s, OsiExpr a, OsiExpr b, int kb) {
  int64_t x, y;
  if (osi_expr_is_const(s, a, &x) && osi_expr_is_const(s, b, &y)) return expr_result(s, add_scaled(s, a, b, kb));
  return memoised(s, kb == 1 ? MEMO_ADD : MEMO_SUB, kb, a, b, add_rule);
}

OsiExpr osi_expr_add(OsiExprStore *s, OsiExpr a, OsiExpr b) { return add_memoised(s, a, b, 1); }
OsiExpr osi_expr_sub(OsiExprStore *s, OsiExpr a, OsiExpr b) { return add_memoised(s, a, b, -1); }
OsiExpr osi_expr_neg(OsiExprStore *s, OsiExpr a) {
  if (!s) return OSI_EXPR_UNKNOWN;
  return expr_result(s, add_scaled(s, osi_expr_const(s, 0), a, -1));
}

static OsiExpr scale(OsiExprStore *s, OsiExpr a, int64_t k) {
  if (k == 1 || !a) return a;
  if (k == 0) return osi_expr_const(s, 0);
  return add_scaled(s, osi_expr_const(s, 0), a, k);
}

static OsiExpr mul_rule(OsiExprStore *s, OsiExpr a, OsiExpr b);

OsiExpr osi_expr_mul(OsiExprStore *s, OsiExpr a, OsiExpr b) {
  if (!ok2(s, a, b)) return OSI_EXPR_UNKNOWN;
  return expr_result(s, mul_rule(s, a, b));
}

static OsiExpr mul_rule(OsiExprStore *s, OsiExpr a, OsiExpr b) {
  int64_t k;
  if (osi_expr_is_const(s, a, &k)) return scale(s, b, k);
  if (osi_expr_is_const(s, b, &k)) return scale(s, a, k);
  Poly pa, pb, out;
  poly_init(&pa);
  poly_init(&pb);
  poly_init(&out);
  OsiExpr r = OSI_EXPR_UNKNOWN;
  if (!poly_load(s, a, &pa) || !poly_load(s, b, &pb)) goto done;
  uint64_t count = (uint64_t)(pa.n + 1) * (pb.n + 1);
  if (count > PRODUCT_MAX_TERMS || !expr_spend(s, count) || !poly_reserve(&out, (uint32_t)count)) goto done;
  if (__builtin_mul_overflow(pa.c, pb.c, &out.c)) goto done;
  for (uint32_t i = 0; i <= pa.n; i++)
    for (uint32_t j = 0; j <= pb.n; j++) {
      if (i == pa.n && j == pb.n) continue;
      int64_t ka = i < pa.n ? pa.k[i] : pa.c, kb = j < pb.n ? pb.k[j] : pb.c, kk;
      if (ka == 0 || kb == 0) continue;
      if (__builtin_mul_overflow(ka, kb, &kk) || kk == INT64_MIN) goto done; /* (poly_addmul) */
      OsiExpr m = i == pa.n ? pb.m[j] : j == pb.n ? pa.m[i] : mono_mul(s, pa.m[i], pb.m[j]);
      if (!m) goto done;
      out.k[out.n] = kk;
      out.m[out.n++] = m;
    }
  if (poly_normalize(s, &out)) r = poly_expr(s, &out);
done:
  poly_free(&pa);
  poly_free(&pb);
  poly_free(&out);
  return r;
}

/* Section - Division helpers */

static int64_t gcd64(int64_t a, int64_t b) {
  uint64_t x = a < 0 ? (uint64_t)0 - (uint64_t)a : (uint64_t)a;
  uint64_t y = b < 0 ? (uint64_t)0 - (uint64_t)b : (uint64_t)b;
  while (y) {
    uint64_t t = x % y;
    x = y;
    y = t;
  }
  return x > (uint64_t)INT64_MAX ? 1 : (int64_t)x; /* 2^63 only if all are INT64_MIN */
}

/* gcd of d and every coefficient and the constant of p. */
static int64_t poly_gcd(const Poly *p, int64_t d) {
  int64_t g = gcd64(d, p->c);
  for (uint32_t i = 0; i < p->n && g > 1; i++) g = gcd64(g, p->k[i]);
  return g;
}

/* p / g for g dividing every coefficient (g > 0: order is kept). */
static OsiExpr poly_exact_div(OsiExprStore *s, Poly *p, int64_t g) {
  p->c /= g;
  for (uint32_t i = 0; i < p->n; i++) p->k[i] /= g;
  return poly_expr(s, p);
}

/* 1 when p has terms and all of them have negative coefficients (or p is a
 * negative constant). */
static int poly_all_negative(const Poly *p) {
  if (p->n == 0) return p->c < 0;
  for (uint32_t i = 0; i < p->n; i++)
    if (p->k[i] > 0) return 0;
  return 1;
}

/* If a == k*b as polynomials (b non-constant), sets *k. */
static int poly_multiple(const Poly *a, const Poly *b, int64_t *k) {
  if (a->n != b->n || b->n == 0) return 0;
  if (a->k[0] % b->k[0] != 0) return 0;
  int64_t q = a->k[0] / b->k[0], t;
  for (uint32_t i = 0; i < a->n; i++)
    if (a->m[i] != b->m[i] || __builtin_mul_overflow(b->k[i], q, &t) || t != a->k[i]) return 0;
  if (__builtin_mul_overflow(b->c, q, &t) || t != a->c) return 0;
  *k = q;
  return 1;
}

/* k mod d (d > 0) in (-d/2, d/2]: coefficients under % never grow, so
 * a canonical form cannot overflow where the original did not (-x % 3
 * stays -x % 3 rather than 2*x % 3). */
static int64_t sym_residue(int64_t k, int64_t d) {
  int64_t r;
  expr_mod64(k, d, &r);
  return r > d / 2 ? r - d : r;
}

static OsiExpr div_op(OsiExprStore *s, int op, OsiExpr a, OsiExpr b);

static OsiExpr div_fold(int op, int64_t a, int64_t d, int64_t *out) {
  if (op == OP_FLOORDIV) return expr_floordiv64(a, d, out);
  if (op == OP_MOD) return expr_mod64(a, d, out);
  if (a == INT64_MIN || !expr_floordiv64(-a, d, out) || *out == INT64_MIN) return 0;
  *out = -*out;
  return 1;
}

/* -e, as it is (not through expr_sum_canonical). */
static OsiExpr neg_raw(OsiExprStore *s, OsiExpr e) {
  Poly p;
  poly_init(&p);
  OsiExpr r = OSI_EXPR_UNKNOWN;
  int ok = e && poly_load(s, e, &p) && p.c != INT64_MIN;
  for (uint32_t i = 0; ok && i < p.n; i++) ok = p.k[i] != INT64_MIN, p.k[i] = -p.k[i];
  if (ok) {
    p.c = -p.c;
    r = poly_intern(s, &p);
  }
  poly_free(&p);
  return r;
}

/* a op d for a constant d > 1 (a non-constant). */
static OsiExpr div_by_const(OsiExprStore *s, int op, OsiExpr a, OsiExpr b, int64_t d, Poly *pa) {
  if (op == OP_CEILDIV) /* ceil(a/d) = (a + d - 1) // d */
    return div_op(s, OP_FLOORDIV, osi_expr_add(s, a, osi_expr_const(s, d - 1)), b);
  Poly q, r;
  poly_init(&q);
  poly_init(&r);
  OsiExpr res = OSI_EXPR_UNKNOWN;
  int changed = 0;
  if (op == OP_MOD) {
    /* (k*(x % (j*d)) + e) % d = (k*x + e) % d: x % (j*d) and x differ by a
     * multiple of d (7 - w%7 is -w modulo 7). */
    OsiExpr num = osi_expr_const(s, 0);
    for (uint32_t i = 0; i < pa->n && num; i++) {
      int64_t d1;
      OsiExpr t = pa->m[i];
      if (expr_kind(s, t) == EK_MOD && osi_expr_is_const(s, expr_args(s, t)[1], &d1) && d1 % d == 0) {
        t = expr_args(s, t)[0];
        changed = 1;
      }
      num = osi_expr_add(s, num, osi_expr_mul(s, osi_expr_const(s, pa->k[i]), t));
    }
    if (changed) {
      res = num ? div_op(s, op, osi_expr_add(s, num, osi_expr_const(s, pa->c)), b) : num;
      goto done;
    }
  }
  if (op == OP_FLOORDIV && pa->n == 1 && pa->k[0] == 1) {
    /* (x//d1 + c) // d = (x + d1*c) // (d1*d) (below) before anything is
     * taken out of the sum: a pooling stride's ((h+1)//2 - 1)//2 is
     * (h-1)//4 without making the sums (h+1)//2 + 1 and (h+3)//4 - 1 that
     * the steps below would canonicalise, each of which expands every
     * floor atom inside (a chain of pools makes (h+4095)//4096). */
    OsiExpr m = pa->m[0];
    int64_t d1, dd, shifted;
    if (expr_kind(s, m) == EK_FLOORDIV && osi_expr_is_const(s, expr_args(s, m)[1], &d1) && d1 > 0 &&
        !__builtin_mul_overflow(d1, d, &dd) && !__builtin_mul_overflow(d1, pa->c, &shifted)) {
      OsiExpr num = osi_expr_add(s, expr_args(s, m)[0], osi_expr_const(s, shifted));
      if (num != OSI_EXPR_UNKNOWN) {
        res = div_op(s, op, num, osi_expr_const(s, dd));
        goto done;
      }
    }
  }
  if (!poly_reserve(&q, pa->n) || !poly_reserve(&r, pa->n)) goto done;
  for (uint32_t i = 0; i < pa->n; i++) {
    int64_t k = pa->k[i], rem = k % d;
    if (op == OP_MOD) {
      rem = sym_residue(k, d);
      changed |= rem != k;
      if (rem) r.k[r.n] = rem, r.m[r.n++] = pa->m[i];
    } else if (rem == 0) {
      q.k[q.n] = k / d, q.m[q.n++] = pa->m[i];
    } else {
      r.k[r.n] = k, r.m[r.n++] = pa->m[i];
    }
  }
  expr_mod64(pa->c, d, &r.c);
  expr_floordiv64(pa->c, d, &q.c);
  changed |= op == OP_MOD && r.c != pa->c;
  if (q.n || q.c || changed) {
    OsiExpr rest = div_op(s, op, poly_expr(s, &r), b);
    res = op == OP_MOD ? rest : osi_expr_add(s, poly_expr(s, &q), rest);
    goto done;
  }
  /* Here pa == r: nothing to extract. */
  int64_t g = poly_gcd(pa, d);
  if (g > 1) {
    OsiExpr inner = div_op(s, op, poly_exact_div(s, pa, g), osi_expr_const(s, d / g));
    res = op == OP_MOD ? scale(s, inner, g) : inner;
    goto done;
  }
  if (op == OP_FLOORDIV && poly_all_negative(pa)) {
    /* a // d = -CeilDiv(-a, d): numerators never start with a minus sign.
     * Raw (div_op canonicalises the result): expr_floor.c expands atoms
     * through expr_div_raw, and canonicalising -(N//d) here would contract
     * N//d, which may be what is being expanded. */
    OsiExpr na = osi_expr_add(s, osi_expr_neg(s, a), osi_expr_const(s, d - 1));
    res = neg_raw(s, expr_div_raw(s, op, na, b));
    goto done;
  }
  Ival iv = ival_expr(s, a);
  int64_t lo, hi;
  if (iv.lo != NEG_INF && iv.hi != POS_INF) {
    if (op == OP_FLOORDIV && expr_floordiv64(iv.lo, d, &lo) && expr_floordiv64(iv.hi, d, &hi) &&
        lo == hi) {
      res = osi_expr_const(s, lo);
      goto done;
    }
    if (op == OP_MOD && iv.lo >= 0 && iv.hi < d) {
      res = a;
      goto done;
    }
  }
  for (uint32_t i = 0; op == OP_FLOORDIV && i < pa->n; i++) {
    /* (x//d1 + e) // d = (x + d1*e) // (d1*d) for d1, d > 0 (nested pooling
     * strides: ((h+1)//2+1)//2 is (h+3)//4) */
    OsiExpr m = pa->m[i];
    int64_t d1, dd;
    if (pa->k[i] != 1 || expr_kind(s, m) != EK_FLOORDIV ||
        !osi_expr_is_const(s, expr_args(s, m)[1], &d1) || d1 <= 0 ||
        __builtin_mul_overflow(d1, d, &dd))
      continue;
    OsiExpr x = expr_args(s, m)[0];
    OsiExpr num = osi_expr_add(s, x, osi_expr_mul(s, osi_expr_const(s, d1), osi_expr_sub(s, a, m)));
    if (num == OSI_EXPR_UNKNOWN) break;
    res = div_op(s, op, num, osi_expr_const(s, dd));
    goto done;
  }
  OsiExpr args[2] = {a, b};
  res = expr_intern(s, op == OP_MOD ? EK_MOD : EK_FLOORDIV, args, 2, NULL, 0, NULL, 0);
done:
  poly_free(&q);
  poly_free(&r);
  return res;
}

/* a op (c*m) for a monomial m and a constant c > 0. */
static OsiExpr div_by_mono(OsiExprStore *s, int op, OsiExpr a, OsiExpr b, Poly *pa, int64_t c,
                           OsiExpr m) {
  Poly r;
  poly_init(&r);
  OsiExpr res = OSI_EXPR_UNKNOWN, q = osi_expr_const(s, 0);
  int changed = 0;
  if (!poly_reserve(&r, pa->n)) goto done;
  r.c = pa->c;
  for (uint32_t i = 0; i < pa->n && q; i++) {
    int64_t k = pa->k[i], rem;
    OsiExpr u = mono_div(s, pa->m[i], m);
    if (u && op == OP_MOD) {
      rem = sym_residue(k, c);
      changed |= rem != k;
      if (rem) r.k[r.n] = rem, r.m[r.n++] = pa->m[i];
    } else if (u && k % c == 0) {
      q = osi_expr_add(s, q, scale(s, u, k / c));
      changed = 1;
    } else {
      r.k[r.n] = k, r.m[r.n++] = pa->m[i];
    }
  }
  if (!q) goto done;
  if (changed) {
    OsiExpr rest = div_op(s, op, poly_expr(s, &r), b);
    res = op == OP_MOD ? rest : osi_expr_add(s, q, rest);
    goto done;
  }
  int64_t g = poly_gcd(pa, c);
  if (g > 1) {
    OsiExpr inner = div_op(s, op, poly_exact_div(s, pa, g), scale(s, m, c / g));
    res = op == OP_MOD ? scale(s, inner, g) : inner;
    goto done;
  }
  OsiExpr args[2] = {a, b};
  static const int kinds[] = {EK_FLOORDIV, EK_MOD, EK_CEILDIV};
  res = expr_intern(s, kinds[op], args, 2, NULL, 0, NULL, 0);
done:
  poly_free(&r);
  return res;
}

OsiExpr expr_div_raw(OsiExprStore *s, int op, OsiExpr a, OsiExpr b) {
  if (!ok2(s, a, b)) return OSI_EXPR_UNKNOWN;
  int64_t x, d, k;
  int aconst = osi_expr_is_const(s, a, &x);
  if (osi_expr_is_const(s, b, &d)) {
    if (d == 0) return OSI_EXPR_UNKNOWN;
    if (aconst) return div_fold(op, x, d, &k) ? osi_expr_const(s, k) : OSI_EXPR_UNKNOWN;
    if (d == INT64_MIN) return OSI_EXPR_UNKNOWN; /* -d does not fit int64 */
    if (d < 0) {
      OsiExpr r = div_op(s, op, osi_expr_neg(s, a), osi_expr_const(s, -d));
      return op == OP_MOD ? osi_expr_neg(s, r) : r;
    }
    if (d == 1) return op == OP_MOD ? osi_expr_const(s, 0) : a;
  }
  if (aconst && x == 0) return a; /* 0 // b, 0 % b, CeilDiv(0, b) */
  Poly pa, pb;
  poly_init(&pa);
  poly_init(&pb);
  OsiExpr res = OSI_EXPR_UNKNOWN;
  if (!poly_load(s, a, &pa) || !poly_load(s, b, &pb) || !expr_spend(s, 1 + (uint64_t)pa.n + pb.n)) goto done;
  if (pb.n == 0) {
    res = div_by_const(s, op, a, b, d, &pa);
    goto done;
  }
  if (pb.k[0] < 0) { /* a // b = (-a) // (-b); a % b = -((-a) % (-b)) */
    OsiExpr r = div_op(s, op, osi_expr_neg(s, a), osi_expr_neg(s, b));
    res = op == OP_MOD ? osi_expr_neg(s, r) : r;
    goto done;
  }
  if (poly_multiple(&pa, &pb, &k)) {
    res = osi_expr_const(s, op == OP_MOD ? 0 : k);
    goto done;
  }
  if (op != OP_MOD && poly_all_negative(&pa)) {
    /* a // b = -CeilDiv(-a, b), CeilDiv(a, b) = -((-a) // b) */
    res = osi_expr_neg(s, div_op(s, op == OP_FLOORDIV ? OP_CEILDIV : OP_FLOORDIV, osi_expr_neg(s, a), b));
    goto done;
  }
  if (pb.n == 1 && pb.c == 0) {
    res = div_by_mono(s, op, a, b, &pa, pb.k[0], pb.m[0]);
    goto done;
  }
  OsiExpr args[2] = {a, b};
  static const int kinds[] = {EK_FLOORDIV, EK_MOD, EK_CEILDIV};
  res = expr_intern(s, kinds[op], args, 2, NULL, 0, NULL, 0);
done:
  poly_free(&pa);
  poly_free(&pb);
  return res;
}

/* expr_div_raw, then the result through expr_sum_canonical (a lone // or %
 * atom as a sum of one term, which may give another form of it). */
static OsiExpr div_op(OsiExprStore *s, int op, OsiExpr a, OsiExpr b) {
  OsiExpr r = expr_div_raw(s, op, a, b);
  if (!r || (expr_kind(s, r) != EK_FLOORDIV && expr_kind(s, r) != EK_MOD && expr_kind(s, r) != EK_ADD))
    return r;
  Poly p;
  poly_init(&p);
  OsiExpr out = poly_load(s, r, &p) ? poly_expr(s, &p) : OSI_EXPR_UNKNOWN;
  poly_free(&p);
  return out;
}

OsiExpr osi_expr_floordiv(OsiExprStore *s, OsiExpr a, OsiExpr b) {
  return memoised(s, MEMO_FLOORDIV, OP_FLOORDIV, a, b, div_op);
}
OsiExpr osi_expr_mod(OsiExprStore *s, OsiExpr a, OsiExpr b) {
  return memoised(s, MEMO_MOD, OP_MOD, a, b, div_op);
}
OsiExpr osi_expr_ceildiv(OsiExprStore *s, OsiExpr a, OsiExpr b) {
  return memoised(s, MEMO_CEILDIV, OP_CEILDIV, a, b, div_op);
}
