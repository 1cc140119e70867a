/*
 * Sizes under ranges of their symbols (expr_facts.c): hand cases of
 * osi_expr_range, osi_expr_direction and osi_expr_predicate_relation, then
 * randomized soundness: for random expressions over N in [3, 9] and f in
 * [0, 6], every value at a binding where the expression is defined lies in
 * the range; for random expressions over N alone, a direction claimed holds
 * between every N and N+1 in [0, 60] where both are defined.
 */
#include "expr/expr.h"
#include "test.h"

static OsiExprStore *S;

static OsiExpr P(const char *text) { return osi_expr_parse(S, text); }

/* N in [3, 9], f in [0, 6], h unbounded. */
static int range_of(void *user, OsiExpr sym, int64_t *lo, int64_t *hi) {
  (void)user;
  const char *name = osi_expr_str(S, sym);
  if (!strcmp(name, "N")) return *lo = 3, *hi = 9, 1;
  if (!strcmp(name, "f")) return *lo = 0, *hi = 6, 1;
  return 0;
}

static void range(const char *text, int64_t want_lo, int64_t want_hi) {
  int64_t lo, hi;
  osi_expr_range(S, P(text), range_of, NULL, NULL, &lo, &hi);
  CHECK_INT(lo, want_lo);
  CHECK_INT(hi, want_hi);
  if (lo != want_lo || hi != want_hi) fprintf(stderr, "  (range of %s)\n", text);
}

static void test_ranges(void) {
  range("N", 3, 9);
  range("N-3", 0, 6);
  range("(N+1)//4", 1, 2);
  range("CeilDiv(N,2)", 2, 5);
  range("N*f-2", -2, 52);
  range("Min(N,f)", 0, 6);
  range("Max(N-5,0)", 0, 4);
  range("N%4", 0, 3);
  range("h+N", 3, INT64_MAX);        /* h >= 0, unbounded above */
  range("-h", INT64_MIN, 0);
  range("Broadcast(N,f)", 0, 9);     /* one of its arguments */
}

static int direction(const char *text) { return osi_expr_direction(S, P(text), P("x")); }

static void test_directions(void) {
  CHECK_INT(direction("(x+240)//320-1"), 1);
  CHECK_INT(direction("7-x//2"), -1);
  CHECK_INT(direction("3"), 0);
  CHECK_INT(direction("x*x+CeilDiv(x,3)"), 1);
  CHECK_INT(direction("Min(x,5)+Max(x-2,0)"), 1);
  CHECK_INT(direction("x%4"), 2);               /* not monotone */
  CHECK_INT(direction("x//2-x//3"), 2);         /* up and down parts: not known (1 at 2, 0 at 3) */
  CHECK_INT(direction("(x-5)*x"), 2);           /* a factor that may be negative */
  CHECK_INT(direction("Floor(Float(x)*0.5)"), 1);
  CHECK_INT(direction("Floor(Float(x)*-0.5)"), -1);
}

static void relation(const char *pred, int holds, const char *want) {
  OsiExpr lhs, rhs;
  int le;
  char got[256] = "none";
  if (osi_expr_predicate_relation(S, P(pred), holds, &lhs, &rhs, &le))
    snprintf(got, sizeof got, "%s %s %s", osi_expr_str(S, lhs), le ? "<=" : "==", osi_expr_str(S, rhs));
  CHECK_STR(got, want);
}

static void test_relations(void) {
  /* the contents comparisons fold to (fold_math.c): a == b, a > b, a >= b, Not */
  relation("1-Min(Max(T-1,1-T),1)", 1, "T == 1");
  relation("1-Min(Max(T-1,1-T),1)", 0, "none"); /* T != 1: two cases */
  relation("Min(Max(T-4,0),1)", 1, "5 <= T");   /* T > 4 */
  relation("Min(Max(T-4,0),1)", 0, "T <= 4");
  relation("Min(Max(a-b+1,0),1)", 1, "b <= a");  /* a >= b */
  relation("1-Min(Max(T-4,0),1)", 1, "T <= 4");  /* Not(T > 4) */
  relation("1", 1, "none");                      /* decided: no relation */
}

/* Section - Randomized soundness */

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;

static int rnd(int n) {
  rng_state ^= rng_state >> 12;
  rng_state ^= rng_state << 25;
  rng_state ^= rng_state >> 27;
  return (int)((rng_state * 0x2545F4914F6CDD1Dull >> 33) % (uint64_t)n);
}

static char *text(char *buf, size_t cap, int depth, int two) {
  static const char *const leaves[] = {"N", "f", "N", "f", "0", "1", "3", "-2", "5"};
  int k = depth > 3 ? 0 : rnd(12);
  if (k < 3) {
    int i = rnd(9);
    snprintf(buf, cap, "%s", !two && i % 2 == 1 && i < 4 ? "N" : leaves[i]);
    return buf;
  }
  char x[512], y[512];
  text(x, sizeof x, depth + 1, two);
  text(y, sizeof y, depth + 1, two);
  static const char *const forms[] = {"(%s+%s)", "(%s-%s)", "(%s*%s)", "Min(%s,%s)", "Max(%s,%s)",
                                      "(%s)//(3+0*%s)", "CeilDiv(%s,2+0*%s)", "Broadcast(%s,%s)", "(%s)%%(4+0*%s)"};
  snprintf(buf, cap, forms[k - 3], x, y);
  return buf;
}

typedef struct Binding {
  int64_t n, f;
} Binding;

static int lookup(void *user, const char *name, int64_t *value) {
  const Binding *b = user;
  if (!strcmp(name, "N")) *value = b->n;
  else if (!strcmp(name, "f")) *value = b->f;
  else return 0;
  return 1;
}

static void test_random_ranges(void) {
  int bounded = 0, bad = 0;
  for (int iter = 0; iter < 20000 && bad < 5; iter++) {
    char buf[512];
    OsiExpr e = P(text(buf, sizeof buf, 0, 1));
    int64_t lo, hi;
    if (e == OSI_EXPR_UNKNOWN || !osi_expr_range(S, e, range_of, NULL, NULL, &lo, &hi)) continue;
    bounded++;
    for (int64_t n = 3; n <= 9; n++)
      for (int64_t f = 0; f <= 6; f++) {
        Binding b = {n, f};
        int64_t v;
        if (osi_expr_eval(S, e, lookup, &b, &v) != 0 || (v >= lo && v <= hi)) continue;
        if (bad++ < 5)
          fprintf(stderr, "unsound: %s = %lld at N=%lld f=%lld, outside [%lld, %lld]\n", osi_expr_str(S, e), (long long)v,
                  (long long)n, (long long)f, (long long)lo, (long long)hi);
        n = 10, f = 7;
      }
  }
  CHECK_INT(bad, 0);
  CHECK(bounded > 1000);
  printf("%d ranges checked\n", bounded);
}

static void test_random_directions(void) {
  int claimed = 0, bad = 0;
  OsiExpr n_sym = P("N");
  for (int iter = 0; iter < 20000 && bad < 5; iter++) {
    char buf[512];
    OsiExpr e = P(text(buf, sizeof buf, 0, 0));
    int dir = e == OSI_EXPR_UNKNOWN ? 2 : osi_expr_direction(S, e, n_sym);
    if (dir != 1 && dir != -1) continue;
    claimed++;
    for (int64_t n = 0; n < 60; n++) {
      Binding b0 = {n, 0}, b1 = {n + 1, 0};
      int64_t v0, v1;
      if (osi_expr_eval(S, e, lookup, &b0, &v0) != 0 || osi_expr_eval(S, e, lookup, &b1, &v1) != 0) continue;
      if (dir > 0 ? v1 >= v0 : v1 <= v0) continue;
      if (bad++ < 5)
        fprintf(stderr, "unsound: %s claimed %s, but %lld at N=%lld and %lld at N=%lld\n", osi_expr_str(S, e),
                dir > 0 ? "up" : "down", (long long)v0, (long long)n, (long long)v1, (long long)n + 1);
      break;
    }
  }
  CHECK_INT(bad, 0);
  CHECK(claimed > 1000);
  printf("%d directions checked\n", claimed);
}

int main(void) {
  S = osi_expr_store_new();
  test_ranges();
  test_directions();
  test_relations();
  test_random_ranges();
  test_random_directions();
  osi_expr_store_delete(S);
  TEST_MAIN_END();
}
