/*
 * Size predicates (expr_cases.c): osi_expr_equal_where proves a == b
 * where a 0/1 size predicate holds or fails. Hand cases (what an If on a
 * size test needs, and what must not be proven), then a randomized
 * soundness check: every proof is checked against plain evaluation at every
 * binding of N, M in [0, 14] where the predicate holds (or fails).
 */
#include "expr/expr.h"
#include "test.h"

static OsiExprStore *S;

static OsiExpr P(const char *text) { return osi_expr_parse(S, text); }

static int where(const char *pred, int holds, const char *a, const char *b) {
  return osi_expr_equal_where(S, P(pred), holds, P(a), P(b));
}

static void test_hand_cases(void) {
  OsiExpr gt4 = osi_expr_indicator(S, P("N-4")); /* N > 4 */
  CHECK_STR(osi_expr_str(S, gt4), "Min(Max(N-4,0),1)");
  const char *g = osi_expr_str(S, gt4);
  /* x[:4] is 4 where N > 4 and N where N <= 4. */
  CHECK(where(g, 1, "Min(N,4)", "4"));
  CHECK(where(g, 0, "Min(N,4)", "N"));
  CHECK(!where(g, 1, "Min(N,4)", "N"));
  CHECK(!where(g, 0, "Min(N,4)", "4"));
  /* Not: 1 - c swaps the cases. */
  CHECK(where("1-Min(Max(N-4,0),1)", 1, "Min(N,4)", "N"));
  CHECK(where("1-Min(Max(N-4,0),1)", 0, "Min(N,4)", "4"));
  /* N == M (1 - Min(|N-M|, 1)): M may stand for N where it holds, not where it fails. */
  CHECK(where("1-Min(Max(N-M,M-N),1)", 1, "Max(N,M)+N", "2*M"));
  CHECK(!where("1-Min(Max(N-M,M-N),1)", 0, "Max(N,M)", "N"));
  /* N != 3 as Min(|N-3|, 1): N - 3 >= 1 or 3 - N >= 1; Max(N,3) is not N in the second case. */
  CHECK(!where("Min(Max(N-3,3-N),1)", 1, "Max(N,3)", "N"));
  CHECK(where("Min(Max(N-3,3-N),1)", 0, "Max(N,3)", "N"));
  /* A predicate over two symbols, solved for either. */
  CHECK(where("Min(Max(N-M,0),1)", 1, "Max(N,M)", "N"));
  CHECK(where("Min(Max(N-M,0),1)", 0, "Min(N,M)", "N"));
  /* Not proven: nothing relates the predicate to the sizes. */
  CHECK(!where("Min(Max(N-4,0),1)", 1, "Min(M,4)", "4"));
  CHECK(!where("Min(Max(2*N-4,0),1)", 1, "Min(N,4)", "4")); /* no symbol with coefficient 1 */
  /* M <= 5 does not make 5 - M and M equal (a solved symbol is a new one: 5 - M with M := 5 - t
   * is t, which is not M := 5 - t again). */
  CHECK(!where("1-Min(Max(M-5,0),1)", 1, "5-M", "M"));
  /* Equal expressions need no predicate. */
  CHECK(where("Min(Max(N-4,0),1)", 1, "N+1", "1+N"));
}

/* Section - Randomized soundness */

static uint64_t rng_state = 0x2545F4914F6CDD1Dull;

static int rnd(int n) {
  rng_state ^= rng_state >> 12;
  rng_state ^= rng_state << 25;
  rng_state ^= rng_state >> 27;
  return (int)((rng_state * 0x2545F4914F6CDD1Dull >> 33) % (uint64_t)n);
}

static char *size_text(char *buf, size_t cap, int depth) {
  static const char *const leaves[] = {"N", "M", "0", "1", "2", "3", "4", "5"};
  int k = depth > 2 ? 0 : rnd(9);
  if (k < 3) {
    snprintf(buf, cap, "%s", leaves[rnd(8)]);
    return buf;
  }
  char x[256], y[256];
  size_text(x, sizeof x, depth + 1);
  size_text(y, sizeof y, depth + 1);
  static const char *const forms[] = {"(%s+%s)", "(%s-%s)", "Min(%s,%s)", "Max(%s,%s)", "(%s)//(2+0*%s)", "2*%s+%s"};
  snprintf(buf, cap, forms[k - 3], x, y);
  return buf;
}

/* A predicate as a comparison of x and y would build it: the indicator of
 * their difference (> or >=), its Not, or an equality test. */
static OsiExpr predicate(OsiExpr x, OsiExpr y) {
  OsiExpr d = osi_expr_sub(S, x, y);
  OsiExpr one = osi_expr_const(S, 1);
  switch (rnd(4)) {
  case 0: return osi_expr_indicator(S, d);
  case 1: return osi_expr_sub(S, one, osi_expr_indicator(S, d));
  case 2: return osi_expr_sub(S, one, osi_expr_min(S, osi_expr_max(S, d, osi_expr_neg(S, d)), one));
  default: return osi_expr_indicator(S, osi_expr_add(S, d, one));
  }
}

typedef struct Binding {
  int64_t n, m;
} Binding;

static int lookup(void *user, const char *name, int64_t *value) {
  const Binding *b = user;
  if (!strcmp(name, "N")) *value = b->n;
  else if (!strcmp(name, "M")) *value = b->m;
  else return 0;
  return 1;
}

static void test_random_soundness(void) {
  int proofs = 0, bad = 0;
  for (int iter = 0; iter < 20000 && bad < 5; iter++) {
    char a[256], b[256];
    OsiExpr x = P(size_text(a, sizeof a, 1)), y = P(size_text(b, sizeof b, 1));
    OsiExpr pred = rnd(2) ? predicate(x, y) : predicate(y, x);
    /* Half the pairs are what an If merge tries: Min/Max of the compared sizes against one of
     * them; the others are unrelated sizes. */
    OsiExpr pick[4] = {x, y, osi_expr_min(S, x, y), osi_expr_max(S, x, y)};
    OsiExpr ea = pick[rnd(4)], eb = pick[rnd(4)];
    if (rnd(2)) {
      ea = P(size_text(a, sizeof a, 0));
      eb = P(size_text(b, sizeof b, 0));
    }
    int holds = rnd(2);
    if (pred == OSI_EXPR_UNKNOWN || ea == eb || !osi_expr_equal_where(S, pred, holds, ea, eb)) continue;
    proofs++;
    for (int64_t n = 0; n <= 14; n++)
      for (int64_t m = 0; m <= 14; m++) {
        Binding bind = {n, m};
        int64_t p, va, vb;
        if (osi_expr_eval(S, pred, lookup, &bind, &p) != 0 || (holds ? p < 1 : p > 0)) continue;
        if (osi_expr_eval(S, ea, lookup, &bind, &va) != 0 || osi_expr_eval(S, eb, lookup, &bind, &vb) != 0) continue;
        if (va != vb && bad++ < 5)
          fprintf(stderr, "unsound: %s == %s where %s %s, at N=%lld M=%lld: %lld vs %lld\n",
                  osi_expr_str(S, ea), osi_expr_str(S, eb), osi_expr_str(S, pred), holds ? ">= 1" : "<= 0",
                  (long long)n, (long long)m, (long long)va, (long long)vb);
      }
  }
  CHECK_INT(bad, 0);
  CHECK(proofs > 100); /* the property is not vacuous */
  printf("%d proofs checked\n", proofs);
}

int main(void) {
  S = osi_expr_store_new();
  test_hand_cases();
  test_random_soundness();
  osi_expr_store_delete(S);
  TEST_MAIN_END();
}
