/*
 * Reasoning under a size predicate: comparisons of sizes as 0/1 integer
 * expressions (the content of a bool tensor such as x.size(0) > 4), and
 * proofs that two expressions agree wherever such a predicate holds (or
 * fails), which is what lets an If on a size test merge its branches
 * into one exact size.
 *
 * A predicate "P >= 1" (or its negation "P <= 0", P an integer) is taken
 * apart into a disjunction of linear cases, each Y >= 0 or Y == 0:
 *   Min(Y, 1) >= 1  and  Max(Y, 0) >= 1  are  Y >= 1 (<= 0 likewise; Y
 *   may be a Min or Max of the other arguments);
 *   1 - W >= 1 is W <= 0 (Not of a predicate);
 *   Max(Y, -Y) >= 1 is Y >= 1 or -Y >= 1; Max(Y, -Y) <= 0 is Y == 0;
 *   otherwise P >= 1 is P - 1 >= 0 and P <= 0 is -P >= 0.
 * A case is used by solving it for a symbol s with coefficient +-1 that
 * occurs nowhere else in Y (Y = k*s + R): Y >= 0 gives s = k*(t - R) with
 * t = Y >= 0 a new symbol; Y == 0 gives s = -k*R. Every binding where the
 * case holds maps to a binding of the remaining symbols and t that are all
 * >= 0, so an identity the simplifier proves for every such binding (it
 * assumes symbols >= 0, nothing more) holds wherever the case holds.
 */
#include <string.h>

#include "expr/expr_internal.h"

#define MAX_CASES 4
#define MAX_DEPTH 6

typedef struct Case {
  OsiExpr y;
  int eq; /* 1: y == 0; 0: y >= 0 */
} Case;

typedef struct Cases {
  Case items[MAX_CASES];
  int n;
} Cases;

static int add_case(Cases *c, OsiExpr y, int eq) {
  if (y == OSI_EXPR_UNKNOWN || c->n == MAX_CASES) return 0;
  c->items[c->n].y = y;
  c->items[c->n++].eq = eq;
  return 1;
}

/* A Min (kind EK_MIN) or Max atom e with the constant k among its
 * arguments, without it (Min(a, b, 1) -> Min(a, b)); else OSI_EXPR_UNKNOWN. */
OsiExpr expr_without_const(OsiExprStore *s, OsiExpr e, int kind, int64_t k) {
  if (expr_kind(s, e) != kind) return OSI_EXPR_UNKNOWN;
  uint32_t n = expr_node(s, e)->n;
  OsiExpr rest = OSI_EXPR_UNKNOWN;
  int found = 0;
  for (uint32_t i = 0; i < n; i++) {
    OsiExpr a = expr_args(s, e)[i]; /* re-read: building may grow the store */
    int64_t c;
    if (!found && osi_expr_is_const(s, a, &c) && c == k) found = 1;
    else rest = rest == OSI_EXPR_UNKNOWN ? a : kind == EK_MIN ? osi_expr_min(s, rest, a) : osi_expr_max(s, rest, a);
  }
  return found ? rest : OSI_EXPR_UNKNOWN;
}

/* Appends the cases of "p >= 1" (ge1) or "p <= 0" (!ge1). */
static int cases_of(OsiExprStore *s, OsiExpr p, int ge1, Cases *out, int depth) {
  if (p == OSI_EXPR_UNKNOWN || depth > MAX_DEPTH || expr_is_float(s, p)) return 0;
  OsiExpr y = expr_without_const(s, p, EK_MIN, 1);
  if (y == OSI_EXPR_UNKNOWN) y = expr_without_const(s, p, EK_MAX, 0);
  if (y != OSI_EXPR_UNKNOWN) return cases_of(s, y, ge1, out, depth + 1);
  int kind = expr_kind(s, p);
  if (kind == EK_MAX && expr_node(s, p)->n == 2) {
    /* copies: building expressions may move the store's arrays */
    OsiExpr a[2] = {expr_args(s, p)[0], expr_args(s, p)[1]};
    if (a[1] == osi_expr_neg(s, a[0])) {
      if (!ge1) return add_case(out, a[0], 1);
      OsiExpr one = osi_expr_const(s, 1);
      return add_case(out, osi_expr_sub(s, a[0], one), 0) && add_case(out, osi_expr_sub(s, a[1], one), 0);
    }
  }
  if (kind == EK_ADD) {
    OsiExpr w = osi_expr_sub(s, osi_expr_const(s, 1), p);
    int wk = w == OSI_EXPR_UNKNOWN ? EK_UNKNOWN : expr_kind(s, w);
    if (wk == EK_MIN || wk == EK_MAX) return cases_of(s, w, !ge1, out, depth + 1);
  }
  if (ge1) return add_case(out, osi_expr_sub(s, p, osi_expr_const(s, 1)), 0);
  return add_case(out, osi_expr_neg(s, p), 0);
}

typedef struct Mention {
  const char *name;
  int found;
} Mention;

static void note_mention(const char *name, void *user) {
  Mention *m = user;
  if (strcmp(name, m->name) == 0) m->found = 1;
}

static int mentions(const OsiExprStore *s, OsiExpr e, OsiExpr sym) {
  Mention m = {expr_node(s, sym)->name, 0};
  osi_expr_for_each_symbol(s, e, note_mention, &m);
  return m.found;
}

/* A symbol no expression of the store uses yet: `name` with primes. */
static OsiExpr unused_symbol(OsiExprStore *s, const char *name) {
  char buf[128];
  size_t n = strlen(name);
  if (n > 64) return OSI_EXPR_UNKNOWN;
  memcpy(buf, name, n);
  for (size_t len = n + 1; len < sizeof buf; len++) {
    buf[len - 1] = '\'';
    if (expr_find_symbol(s, buf, len) == OSI_EXPR_UNKNOWN) return expr_intern(s, EK_SYM, NULL, 0, NULL, 0, buf, len);
  }
  return OSI_EXPR_UNKNOWN;
}

/* Whether a == b under the case, solved for some symbol of y. */
static int equal_in_case(OsiExprStore *s, const Case *c, OsiExpr a, OsiExpr b) {
  OsiExpr y = c->y;
  int add = expr_kind(s, y) == EK_ADD;
  if (!add && expr_kind(s, y) != EK_SYM) return 0;
  uint32_t n = add ? expr_node(s, y)->n : 1;
  for (uint32_t i = 0; i < n; i++) {
    /* read afresh: building expressions may move the store's arrays */
    OsiExpr sym = add ? expr_args(s, y)[i] : y;
    int64_t k = add ? expr_coefs(s, y)[i] : 1;
    if (expr_kind(s, sym) != EK_SYM || (k != 1 && k != -1)) continue;
    /* y = k*s + r with r free of s */
    OsiExpr r = osi_expr_sub(s, y, k == 1 ? sym : osi_expr_neg(s, sym));
    if (r == OSI_EXPR_UNKNOWN || mentions(s, r, sym)) continue;
    /* t must be a symbol of its own: substitution rewrites its results again (a result equal
     * to s would be replaced once more). */
    OsiExpr t = c->eq ? OSI_EXPR_UNKNOWN : unused_symbol(s, expr_node(s, sym)->name);
    if (!c->eq && t == OSI_EXPR_UNKNOWN) continue;
    OsiExpr value = c->eq ? (k == 1 ? osi_expr_neg(s, r) : r)
                          : (k == 1 ? osi_expr_sub(s, t, r) : osi_expr_sub(s, r, t));
    if (value == OSI_EXPR_UNKNOWN) continue;
    OsiExpr sa = osi_expr_substitute(s, a, &sym, &value, 1);
    OsiExpr sb = osi_expr_substitute(s, b, &sym, &value, 1);
    if (sa != OSI_EXPR_UNKNOWN && sa == sb) return 1;
  }
  return 0;
}

/* Float reductions assume every symbol below 2^24; a solved symbol may
 * not be, so expressions with float parts are left alone. */
static int has_float(const OsiExprStore *s, OsiExpr e, int depth) {
  int kind = expr_kind(s, e);
  if (kind == EK_FTOINT || expr_is_float_kind(kind) || depth > OSI_EXPR_MAX_NODES) return 1;
  if (kind == EK_CONST || kind == EK_SYM) return 0;
  const ExprNode *nd = expr_node(s, e);
  const OsiExpr *args = expr_args(s, e);
  for (uint32_t i = 0; i < nd->n; i++)
    if (has_float(s, args[i], depth + 1)) return 1;
  return 0;
}

int osi_expr_equal_where(OsiExprStore *s, OsiExpr pred, int holds, OsiExpr a, OsiExpr b) {
  if (!s || pred >= s->nnodes || a >= s->nnodes || b >= s->nnodes) return 0;
  if (a == OSI_EXPR_UNKNOWN || b == OSI_EXPR_UNKNOWN) return 0;
  if (a == b) return 1;
  if (!s->assume_nonneg || has_float(s, a, 0) || has_float(s, b, 0) || has_float(s, pred, 0)) return 0;
  Cases cases = {.n = 0};
  if (!cases_of(s, pred, holds, &cases, 0)) return 0;
  for (int i = 0; i < cases.n; i++)
    if (!equal_in_case(s, &cases.items[i], a, b)) return 0;
  return !s->work_out; /* (equal_in_case compares known ids only) */
}

OsiExpr osi_expr_indicator(OsiExprStore *s, OsiExpr d) {
  return osi_expr_min(s, osi_expr_max(s, d, osi_expr_const(s, 0)), osi_expr_const(s, 1));
}

int osi_expr_sign_facts(OsiExprStore *s, OsiExpr d) {
  int64_t c;
  if (d == OSI_EXPR_UNKNOWN) return 0;
  if (osi_expr_is_const(s, d, &c))
    return (c >= 0 ? OSI_SIGN_GE0 : 0) | (c >= 1 ? OSI_SIGN_GE1 : 0) | (c <= 0 ? OSI_SIGN_LE0 : 0) |
           (c <= -1 ? OSI_SIGN_LEM1 : 0);
  int f = 0;
  if (osi_expr_max(s, d, osi_expr_const(s, 1)) == d) f |= OSI_SIGN_GE0 | OSI_SIGN_GE1;
  else if (osi_expr_max(s, d, osi_expr_const(s, 0)) == d) f |= OSI_SIGN_GE0;
  if (osi_expr_min(s, d, osi_expr_const(s, -1)) == d) f |= OSI_SIGN_LE0 | OSI_SIGN_LEM1;
  else if (osi_expr_min(s, d, osi_expr_const(s, 0)) == d) f |= OSI_SIGN_LE0;
  return f;
}

OsiExpr osi_expr_compare_by_sign(OsiExprStore *s, OsiCompare op, int f) {
  int yes, no;
  switch (op) {
  case OSI_CMP_EQ: yes = (f & OSI_SIGN_GE0) && (f & OSI_SIGN_LE0); no = f & (OSI_SIGN_GE1 | OSI_SIGN_LEM1); break;
  case OSI_CMP_LT: yes = f & OSI_SIGN_LEM1; no = f & OSI_SIGN_GE0; break;
  case OSI_CMP_LE: yes = f & OSI_SIGN_LE0; no = f & OSI_SIGN_GE1; break;
  case OSI_CMP_GT: yes = f & OSI_SIGN_GE1; no = f & OSI_SIGN_LE0; break;
  default: yes = f & OSI_SIGN_GE0; no = f & OSI_SIGN_LEM1; break; /* OSI_CMP_GE */
  }
  return yes ? osi_expr_const(s, 1) : no ? osi_expr_const(s, 0) : OSI_EXPR_UNKNOWN;
}

OsiExpr osi_expr_compare(OsiExprStore *s, OsiCompare op, OsiExpr a, OsiExpr b) {
  if (a == OSI_EXPR_UNKNOWN || b == OSI_EXPR_UNKNOWN) return OSI_EXPR_UNKNOWN;
  int f = a == b ? OSI_SIGN_GE0 | OSI_SIGN_LE0 : osi_expr_sign_facts(s, osi_expr_sub(s, a, b));
  OsiExpr known = osi_expr_compare_by_sign(s, op, f);
  if (known != OSI_EXPR_UNKNOWN) return known;
  OsiExpr one = osi_expr_const(s, 1);
  OsiExpr d = op == OSI_CMP_LT || op == OSI_CMP_LE ? osi_expr_sub(s, b, a) : osi_expr_sub(s, a, b);
  switch (op) {
  case OSI_CMP_EQ: return osi_expr_sub(s, one, osi_expr_min(s, osi_expr_max(s, d, osi_expr_neg(s, d)), one));
  case OSI_CMP_LT:
  case OSI_CMP_GT: return osi_expr_indicator(s, d);
  default: return osi_expr_indicator(s, osi_expr_add(s, d, one)); /* OSI_CMP_LE, OSI_CMP_GE */
  }
}
