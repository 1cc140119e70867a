/*
 * Named derived sizes (expr_naming.c): every Floor/Ceil/Round/Trunc of a
 * float expression is named and printed by its name everywhere; long texts
 * get named subterms until they fit in 80 characters; names collide with no
 * symbol; each definition uses earlier names only; and a text evaluated
 * with each name bound to its definition's value (parsed again in a second
 * store with no sign assumption, evaluated there) is the original
 * expression's value at every binding (the oracle: osi_expr_eval of the
 * original id).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "expr/expr.h"
#include "test.h"

#define MAX_ROOTS 512

static OsiExpr P(OsiExprStore *s, const char *text) {
  OsiExpr e = osi_expr_parse(s, text);
  if (!e) fprintf(stderr, "does not parse: %s\n", text);
  return e;
}

static int is_name(const char *n) {
  static const char *words[] = {"floor_", "ceil_", "round_", "trunc_", "size_"};
  for (int i = 0; i < 5; i++) {
    size_t k = strlen(words[i]);
    if (!strncmp(n, words[i], k) && n[k] >= '1' && n[k] <= '9') {
      for (const char *p = n + k; *p; p++)
        if (*p < '0' || *p > '9') return 0;
      return 1;
    }
  }
  return 0;
}

/* Section - Evaluation through the definitions, in a second store */

typedef struct {
  OsiExprStore *s2;
  OsiExprStore *s1;
  int64_t h, w, b;
  int ndefs;
  OsiExpr def_ids[256]; /* the definitions parsed in s2 */
  int state[256];       /* 0 not yet, 1 defined, 2 undefined */
  int64_t value[256];
} Env;

static int lookup(void *user, const char *name, int64_t *out);

static int def_index(Env *env, const char *name) {
  for (int i = 0; i < env->ndefs; i++)
    if (!strcmp(osi_expr_definition_name(env->s1, (uint32_t)i), name)) return i;
  return -1;
}

static int lookup(void *user, const char *name, int64_t *out) {
  Env *env = user;
  if (!strcmp(name, "h")) return *out = env->h, 1;
  if (!strcmp(name, "w")) return *out = env->w, 1;
  int i = def_index(env, name);
  if (i < 0) { /* graph symbols (floor_1 and size_2 are, in test_detection's texts) */
    if (!strcmp(name, "b") || !strcmp(name, "floor_1") || !strcmp(name, "size_2")) return *out = env->b, 1;
    return 0;
  }
  if (!env->state[i]) {
    int64_t v;
    env->state[i] = osi_expr_eval(env->s2, env->def_ids[i], lookup, env, &v) == 0 ? 1 : 2;
    env->value[i] = v;
  }
  if (env->state[i] != 1) return 0;
  *out = env->value[i];
  return 1;
}

/* Section - The detection-like texts */

static size_t detection_roots(OsiExprStore *s, OsiExpr *roots) {
  char f1[256], f2[256], t[4096];
  size_t n = 0;
  snprintf(f1, sizeof f1, "Floor(h*Min(96*(1/Min(h,w)),160*(1/Max(h,w))))");
  snprintf(f2, sizeof f2, "Floor(w*Min(96*(1/Min(h,w)),160*(1/Max(h,w))))");
  roots[n++] = P(s, f1);
  roots[n++] = P(s, f2);
  for (int k = 2; k <= 64; k *= 2) {
    snprintf(t, sizeof t, "%d*((%s+%d)//%d)", k / 2, f1, k - 1, k);
    roots[n++] = P(s, t);
    snprintf(t, sizeof t, "b*((%s+%d)//%d)*((%s+%d)//%d)", f1, k - 1, k, f2, k - 1, k);
    roots[n++] = P(s, t);
  }
  /* anchors over five levels, and the Min(.., 64) of each */
  size_t len = 0, len2 = 0;
  char t2[8192];
  for (int k = 4; k <= 64; k *= 2) {
    len += (size_t)snprintf(t + len, sizeof t - len, "%s3*((%s+%d)//%d)*((%s+%d)//%d)", k == 4 ? "" : "+", f1,
                            k - 1, k, f2, k - 1, k);
    len2 += (size_t)snprintf(t2 + len2, sizeof t2 - len2, "%sMin(3*((%s+%d)//%d)*((%s+%d)//%d),64)",
                             k == 4 ? "" : "+", f1, k - 1, k, f2, k - 1, k);
  }
  roots[n++] = P(s, t);
  roots[n++] = P(s, t2);
  roots[n++] = P(s, "floor_1*size_2+h"); /* graph symbols named like the names */
  roots[n++] = P(s, "Ceil(0.5*Float(h))+Round(1.5*Float(w))+Trunc(0.3*Float(h))");
  return n;
}

static void check_names(OsiExprStore *s, OsiExpr *roots, size_t n, int long_limit, int planted) {
  uint32_t nd = osi_expr_definition_count(s);
  OsiExprStore *s2 = osi_expr_store_new();
  osi_expr_store_set_assume_nonneg(s2, 0);
  Env env = {.s2 = s2, .s1 = s, .ndefs = (int)nd};
  CHECK(nd <= 256);
  osi_expr_use_names(s, 1);
  /* names: <word>_<n>, distinct, no graph symbol; definitions over earlier names */
  for (uint32_t i = 0; i < nd && i < 256; i++) {
    const char *name = osi_expr_definition_name(s, i);
    CHECK(is_name(name));
    if (planted) CHECK(strcmp(name, "floor_1") != 0 && strcmp(name, "size_2") != 0);
    for (uint32_t j = 0; j < i; j++) CHECK(strcmp(name, osi_expr_definition_name(s, j)) != 0);
    const char *text = osi_expr_definition_str(s, i);
    if (long_limit) CHECK(strlen(text) <= 80);
    /* a float atom is named, and only the atom itself prints Floor( ... ) in its definition */
    const char *fl = strstr(text, "Floor(");
    if (fl) CHECK(fl == text && !strstr(text + 1, "Floor(") && !strncmp(name, "floor_", 6));
    env.def_ids[i] = P(s2, text);
    CHECK(env.def_ids[i] != OSI_EXPR_UNKNOWN);
    /* every name a definition uses comes earlier */
    char copy[4096];
    snprintf(copy, sizeof copy, "%s", text);
    for (char *p = copy; *p; p++) {
      if ((p == copy || !(p[-1] == '_' || (p[-1] >= 'a' && p[-1] <= 'z') || (p[-1] >= '0' && p[-1] <= '9'))) &&
          (!strncmp(p, "floor_", 6) || !strncmp(p, "size_", 5) || !strncmp(p, "ceil_", 5))) {
        char word[32];
        int k = 0;
        while (k < 31 && (p[k] == '_' || (p[k] >= 'a' && p[k] <= 'z') || (p[k] >= '0' && p[k] <= '9'))) word[k] = p[k], k++;
        word[k] = 0;
        int at = def_index(&env, word);
        CHECK(at < (int)i); /* -1: a graph symbol (floor_1, size_2 in the roots) */
      }
    }
  }
  /* texts: no float form left, short, and exact at random bindings */
  OsiExpr named[MAX_ROOTS];
  for (size_t r = 0; r < n; r++) {
    const char *text = osi_expr_str(s, roots[r]);
    CHECK(!strstr(text, "Floor(") && !strstr(text, "Ceil(") && !strstr(text, "Trunc(") &&
          !strstr(text, "Round("));
    if (long_limit && strlen(text) > 80) fprintf(stderr, "long: %s\n", text);
    if (long_limit) CHECK(strlen(text) <= 80);
    named[r] = P(s2, text);
    CHECK(named[r] != OSI_EXPR_UNKNOWN);
  }
  osi_expr_use_names(s, 0);
  uint64_t x = 0x9E3779B97F4A7C15ull;
  for (int trial = 0; trial < 300; trial++) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    env.h = (int64_t)(x % 700);
    env.w = (int64_t)((x >> 20) % 700);
    env.b = (int64_t)((x >> 40) % 9);
    memset(env.state, 0, sizeof env.state);
    for (size_t r = 0; r < n; r++) {
      int64_t want, got;
      int dw = osi_expr_eval(s, roots[r], lookup, &env, &want) == 0;
      int dg = osi_expr_eval(s2, named[r], lookup, &env, &got) == 0;
      CHECK(dw == dg);
      if (dw && dg && want != got) {
        fprintf(stderr, "h=%lld w=%lld b=%lld: %s = %lld, named %lld\n", (long long)env.h, (long long)env.w,
                (long long)env.b, osi_expr_str(s, roots[r]), (long long)want, (long long)got);
        CHECK(want == got);
      }
    }
  }
  osi_expr_store_delete(s2);
}

static void test_detection(void) {
  OsiExprStore *s = osi_expr_store_new();
  OsiExpr roots[MAX_ROOTS];
  size_t n = detection_roots(s, roots);
  char before[MAX_ROOTS][2048];
  for (size_t i = 0; i < n; i++) snprintf(before[i], sizeof before[i], "%s", osi_expr_str(s, roots[i]));
  int nd = osi_expr_name_sizes(s, roots, n);
  CHECK(nd >= 5); /* Floor of h and of w, Ceil, Round, Trunc at least */
  check_names(s, roots, n, 1, 1);
  /* consistency: the Floor atom prints its one name in every text */
  osi_expr_use_names(s, 1);
  const char *f1 = osi_expr_str(s, roots[0]);
  CHECK(is_name(f1) && !strncmp(f1, "floor_", 6));
  CHECK(strstr(osi_expr_str(s, roots[2]), f1) != NULL);
  osi_expr_use_names(s, 0);
  /* names off: the texts are what they were */
  for (size_t i = 0; i < n; i++) CHECK_STR(osi_expr_str(s, roots[i]), before[i]);
  osi_expr_store_delete(s);
}

/* Long texts with nothing float, and more of them than the cap allows to
 * shorten one by one: the pass stays bounded and exact. */
static void test_bounded(void) {
  OsiExprStore *s = osi_expr_store_new();
  OsiExpr roots[MAX_ROOTS];
  size_t n = 0;
  char t[1024];
  for (int i = 0; i < 300; i++) {
    size_t len = 0;
    for (int k = 0; k < 6; k++)
      len += (size_t)snprintf(t + len, sizeof t - len, "%sMax(h+%d,w*%d)*((h+w+%d)//%d)", k ? "+" : "", i + k,
                              k + 2, (i * 7 + k) % 13, k + 2);
    roots[n++] = P(s, t);
  }
  int nd = osi_expr_name_sizes(s, roots, n);
  CHECK(nd > 0 && nd <= 64);
  check_names(s, roots, n, 0, 0);
  osi_expr_store_delete(s);
}

/* Short texts and no float atom: nothing named, nothing printed differently. */
static void test_nothing_to_name(void) {
  OsiExprStore *s = osi_expr_store_new();
  OsiExpr roots[3] = {P(s, "batch"), P(s, "past_seq+seq"), P(s, "(H+1)//2")};
  CHECK_INT(osi_expr_name_sizes(s, roots, 3), 0);
  CHECK_INT(osi_expr_definition_count(s), 0);
  osi_expr_use_names(s, 1);
  CHECK_STR(osi_expr_str(s, roots[1]), "past_seq+seq");
  osi_expr_use_names(s, 0);
  /* a short float size is still named (every one is, so that each prints one way) */
  OsiExpr f[2] = {P(s, "Floor(1.5*Float(h))"), P(s, "2*Floor(1.5*Float(h))+1")};
  CHECK_INT(osi_expr_name_sizes(s, f, 2), 1);
  osi_expr_use_names(s, 1);
  CHECK_STR(osi_expr_str(s, f[0]), "floor_1");
  CHECK_STR(osi_expr_str(s, f[1]), "2*floor_1+1");
  CHECK_STR(osi_expr_definition_str(s, 0), "Floor(1.5*h)");
  osi_expr_use_names(s, 0);
  CHECK_STR(osi_expr_str(s, f[1]), "2*Floor(1.5*h)+1");
  osi_expr_store_delete(s);
}

int main(void) {
  test_nothing_to_name();
  test_detection();
  test_bounded();
  TEST_MAIN_END();
}
