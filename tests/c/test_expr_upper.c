/*
 * Upper bounds by monotone substitution (expr_upper.c): hand cases, then a
 * randomized soundness check: for random sizes e over a kept symbol N and
 * data-dependent symbols f <= 6 and g <= N + 2, every bound U the function
 * gives satisfies e <= U at every binding (N in [0, 9], f in [0, 6], g in
 * [0, N + 2]) where e is defined.
 */
#include "expr/expr.h"
#include "test.h"

static OsiExprStore *S;

static OsiExpr P(const char *text) { return osi_expr_parse(S, text); }

/* N stays; f <= 6, g <= N+2; h has no bound. */
static OsiExpr bound_of(void *user, OsiExpr sym) {
  (void)user;
  const char *name = osi_expr_str(S, sym);
  if (!strcmp(name, "f")) return P("6");
  if (!strcmp(name, "g")) return P("N+2");
  if (!strcmp(name, "h")) return OSI_EXPR_UNKNOWN;
  return sym;
}

static const char *upper(const char *text) {
  return osi_expr_str(S, osi_expr_upper_bound(S, P(text), bound_of, NULL));
}

static void test_hand_cases(void) {
  CHECK_STR(upper("Min(f,8)"), "6");
  CHECK_STR(upper("Min(h,8)"), "8");          /* one bounded argument is enough for a Min */
  CHECK_STR(upper("Min(g,h)"), "N+2");
  CHECK_STR(upper("Min(g,8)"), "8");          /* a constant bound reads best */
  CHECK_STR(upper("Min(f,40)+Min(h,40)"), "46");
  CHECK_STR(upper("2*f+g"), "N+14");
  CHECK_STR(upper("N-f"), "N");               /* f >= 0 */
  CHECK_STR(upper("f*g"), "6*N+12");
  CHECK_STR(upper("(f+1)//2"), "3");
  CHECK_STR(upper("CeilDiv(g,4)"), "(N+1)//4+1"); /* CeilDiv(N+2,4) */
  CHECK_STR(upper("Max(f,N)"), "Max(N,6)");
  CHECK_STR(upper("Broadcast(f,g)"), "Max(N+2,6)");
  CHECK_STR(upper("N*(h+1)"), "?");           /* h has no bound */
  CHECK_STR(upper("f%4"), "?");               /* not monotone */
  CHECK_STR(upper("f//N"), "?");              /* symbolic divisor */
  CHECK_STR(upper("Min(N-5,2)*f"), "?");      /* a factor that may be negative */
  CHECK_STR(upper("(N-5)//2*f"), "6*CeilDiv(N,2)"); /* f*((N+1)//2) - 3*f in canonical form */
  /* nothing to replace: itself */
  CHECK_STR(upper("N%3+N"), "N+N%3");
}

/* Section - Randomized soundness */

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;

static int rnd(int n) {
  rng_state ^= rng_state >> 12;
  rng_state ^= rng_state << 25;
  rng_state ^= rng_state >> 27;
  return (int)((rng_state * 0x2545F4914F6CDD1Dull >> 33) % (uint64_t)n);
}

static char *text(char *buf, size_t cap, int depth) {
  static const char *const leaves[] = {"N", "f", "g", "f", "g", "0", "1", "3", "-2"};
  int k = depth > 3 ? 0 : rnd(12);
  if (k < 3) {
    snprintf(buf, cap, "%s", leaves[rnd(9)]);
    return buf;
  }
  char x[512], y[512];
  text(x, sizeof x, depth + 1);
  text(y, sizeof y, depth + 1);
  static const char *const forms[] = {"(%s+%s)", "(%s-%s)", "(%s*%s)", "Min(%s,%s)", "Max(%s,%s)",
                                      "(%s)//(3+0*%s)", "CeilDiv(%s,2+0*%s)", "Broadcast(%s,%s)", "(%s)%%(4+0*%s)"};
  snprintf(buf, cap, forms[k - 3], x, y);
  return buf;
}

typedef struct Binding {
  int64_t n, f, g;
} Binding;

static int lookup(void *user, const char *name, int64_t *value) {
  const Binding *b = user;
  if (!strcmp(name, "N")) *value = b->n;
  else if (!strcmp(name, "f")) *value = b->f;
  else if (!strcmp(name, "g")) *value = b->g;
  else return 0;
  return 1;
}

static void test_random_soundness(void) {
  int bounded = 0, bad = 0;
  for (int iter = 0; iter < 20000 && bad < 5; iter++) {
    char buf[512];
    OsiExpr e = P(text(buf, sizeof buf, 0));
    OsiExpr u = osi_expr_upper_bound(S, e, bound_of, NULL);
    if (e == OSI_EXPR_UNKNOWN || u == OSI_EXPR_UNKNOWN) continue;
    bounded++;
    for (int64_t n = 0; n <= 9; n++)
      for (int64_t f = 0; f <= 6; f++)
        for (int64_t g = 0; g <= n + 2; g++) {
          Binding b = {n, f, g};
          int64_t ve, vu;
          if (osi_expr_eval(S, e, lookup, &b, &ve) != 0) continue;
          if (osi_expr_eval(S, u, lookup, &b, &vu) != 0 || ve > vu) {
            if (bad++ < 5)
              fprintf(stderr, "unsound: %s <= %s at N=%lld f=%lld g=%lld\n", osi_expr_str(S, e), osi_expr_str(S, u),
                      (long long)n, (long long)f, (long long)g);
            n = 10, f = 7, g = n + 3; /* next expression */
          }
        }
  }
  CHECK_INT(bad, 0);
  CHECK(bounded > 1000);
  printf("%d bounds checked\n", bounded);
}

int main(void) {
  S = osi_expr_store_new();
  test_hand_cases();
  test_random_soundness();
  osi_expr_store_delete(S);
  TEST_MAIN_END();
}
