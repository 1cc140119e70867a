/*
 * Randomized property test of the expression library.
 *
 *   test_expr_property [count [seed [max_depth]]]   (defaults: 100000, fixed
 *                                                   seed, 5)
 *
 * Each case is a random expression text over the symbols a b c d and
 * 'e f' (quoted), small constants (with 0 and negatives), + - * // %,
 * unary minus, Max, Min, CeilDiv and Broadcast (function names in random
 * case, random whitespace), and the idioms exporters emit (`idioms`: pad to
 * a multiple, pooling strides, Min/Max of comparable forms) around random
 * subexpressions. It is checked in two stores:
 *   - assume_nonneg off, bindings in [-9, 9] or [-2, 2];
 *   - assume_nonneg on, bindings in [0, 9] or [0, 2] (0 often);
 *   in both, one binding in eight has some symbols far from 0 (up to 10^6,
 *   or near 2^31).
 * Each case is also printed a second time with parentheses dropped at
 * random (checked for properties 1-3), which tests the parser's precedence.
 * Properties:
 *   1. value: wherever the ORIGINAL text is defined under the independent
 *      reference evaluator below (Python semantics; overflow, division by
 *      zero and undefined Broadcast are "undefined"), osi_expr_eval of the
 *      parsed+simplified id gives the same value;
 *   2. printing then re-parsing gives the same id;
 *   3. simplification is idempotent (rebuilding the id through the
 *      constructors, osi_expr_substitute with no pairs, gives the same id);
 *   4. the text with operands of + * Max Min Broadcast randomly permuted
 *      parses to the same id.
 * An OSI_EXPR_UNKNOWN result is allowed (it is never wrong) and counted.
 * Prints the number of cases checked; exits 1 on the first few mismatches
 * after printing the expression, the binding and both values.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "expr/expr.h"

/* Section - PRNG */

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;

static uint64_t rnd(void) {
  uint64_t x = rng_state;
  x ^= x >> 12;
  x ^= x << 25;
  x ^= x >> 27;
  rng_state = x;
  return x * 0x2545F4914F6CDD1Dull;
}

static int rint_(int lo, int hi) { return lo + (int)(rnd() % (uint64_t)(hi - lo + 1)); }

/* Section - Random expression trees */

enum { T_NUM, T_SYM, T_ADD, T_SUB, T_MUL, T_DIV, T_MOD, T_NEG, T_MAX, T_MIN, T_CEIL, T_BC, T_IDIOM };

/* Exporter idioms over one subexpression X and a constant k (see emit):
 * pad to a multiple, the padding amount, pooling and window arithmetic,
 * and Min/Max of comparable forms. */
static const char *idioms[] = {
    "(X + (-(X)) % K)",            /* pad to a multiple of K */
    "((K - (X) % K) % K)",         /* the padding amount */
    "(K*CeilDiv(X, K))",           /* padded size */
    "(K*((X) // K))",              /* cropped size */
    "(((X) + (X) % 2 + 1) // 2)",  /* pad to even, then stride 2 (Swin patch merging) */
    "((X) + (X) % 2)",             /* pad to even */
    "((((X) + 1) // 2 + 1) // K)", /* nested pooling strides */
    "(((X) - K) // 2 + 1)",        /* conv/pool output */
    "Min(X, K*CeilDiv(X, K))",
    "Max(X, K*((X) // K))",
    "Min(((X) + 1) // 2, CeilDiv(X, 2))",
    "Min((X) // K, ((X) + 1) // K)",
    "Min(CeilDiv((X) - K, 2) + 1, CeilDiv(X, 2))", /* ceil-mode pooling */
    "(((X) + (-(X)) % K) // K)",   /* windows per side */
    "((X) - (X) // K)",
    "((X) - (X) % K)",
    "Max((X) - Min(a, 1)*Max((X) - a, 0), 0)",  /* length of x[-a:] */
    "Broadcast(a, (X) + a - (X)*Min(a, 1))",    /* T5's bias[-a:] of X+a rows, with a */
    "Broadcast(a, Min(a, 1) + K*(1 - Min(a, 1)))", /* 1 wherever a is 1 */
    "Broadcast(Max(X, 0), X)",                  /* a conv output beside its [:-1] slice */
    "Broadcast(Max(X, 1 - K), X, Max(X, 1))",
};
#define NIDIOMS ((int)(sizeof idioms / sizeof idioms[0]))

typedef struct Node {
  int op;
  int64_t num;
  int sym;
  int n;
  struct Node *kid[3];
} Node;

static Node pool[4096];
static int npool;

static const char *sym_names[] = {"a", "b", "c", "d", "'e f'"};
static const char *sym_plain[] = {"a", "b", "c", "d", "e f"};
#define NSYMS 5

static Node *gen(int depth) {
  if (npool >= (int)(sizeof pool / sizeof pool[0])) return NULL;
  Node *nd = &pool[npool++];
  memset(nd, 0, sizeof *nd);
  int leaf = depth <= 0 || rint_(0, 9) < 3;
  if (leaf) {
    if (rint_(0, 2) == 0) {
      nd->op = T_NUM;
      int r = rint_(0, 19);
      nd->num = r < 14 ? r - 4 : r < 18 ? rint_(10, 64) : (int64_t)rint_(1, 1000) * 1000000007;
    } else {
      nd->op = T_SYM;
      nd->sym = rint_(0, 20) == 0 ? 4 : rint_(0, 3);
    }
    return nd;
  }
  static const int ops[] = {T_ADD, T_ADD, T_SUB, T_SUB, T_MUL, T_MUL, T_DIV, T_DIV, T_MOD,
                            T_NEG, T_MAX, T_MIN, T_CEIL, T_BC, T_BC, T_IDIOM, T_IDIOM};
  nd->op = ops[rint_(0, (int)(sizeof ops / sizeof ops[0]) - 1)];
  nd->n = nd->op == T_NEG || nd->op == T_IDIOM ? 1
          : (nd->op == T_MAX || nd->op == T_MIN || nd->op == T_BC) ? rint_(2, 3) : 2;
  if (nd->op == T_IDIOM) {
    nd->sym = rint_(0, NIDIOMS - 1);
    nd->num = rint_(0, 3) == 0 ? 7 : rint_(1, 8);
  }
  for (int i = 0; i < nd->n; i++) {
    nd->kid[i] = gen(depth - 1);
    if (!nd->kid[i]) return NULL;
  }
  return nd;
}

typedef struct {
  char buf[8192];
  size_t n;
} Str;

static void sput(Str *s, const char *t) {
  size_t l = strlen(t);
  if (s->n + l + 1 >= sizeof s->buf) return;
  memcpy(s->buf + s->n, t, l + 1);
  s->n += l;
}

static void sp(Str *s) {
  if (rint_(0, 5) == 0) sput(s, " ");
}

static void put_fname(Str *s, const char *name) {
  char tmp[16];
  int mode = rint_(0, 5);
  size_t i;
  for (i = 0; name[i]; i++) {
    char c = name[i];
    if (mode == 1 && c >= 'A' && c <= 'Z') c = (char)(c + 32);
    if (mode == 2 && c >= 'a' && c <= 'z') c = (char)(c - 32);
    tmp[i] = c;
  }
  tmp[i] = 0;
  sput(s, tmp);
}

/* Prints the tree fully parenthesised; with `perm`, commutative operands
 * are randomly permuted; with `loose`, parentheses of binary operators and
 * of unary minus are dropped at random (the text then means whatever
 * Python precedence says, which the reference evaluator follows too). */
static void emit(Str *s, const Node *nd, int perm, int loose) {
  char tmp[32];
  int order[3] = {0, 1, 2};
  if (perm && nd->n >= 2 && (nd->op == T_ADD || nd->op == T_MUL || nd->op == T_MAX ||
                             nd->op == T_MIN || nd->op == T_BC)) {
    for (int i = nd->n - 1; i > 0; i--) {
      int j = rint_(0, i), t = order[i];
      order[i] = order[j];
      order[j] = t;
    }
  }
  switch (nd->op) {
  case T_NUM:
    snprintf(tmp, sizeof tmp, nd->num < 0 ? "(%" PRId64 ")" : "%" PRId64, nd->num);
    sput(s, tmp);
    return;
  case T_SYM: sput(s, sym_names[nd->sym]); return;
  case T_IDIOM:
    for (const char *t = idioms[nd->sym]; *t; t++) {
      if (*t == 'X') {
        emit(s, nd->kid[0], perm, loose);
      } else if (*t == 'K') {
        snprintf(tmp, sizeof tmp, "%" PRId64, nd->num);
        sput(s, tmp);
      } else if (*t != ' ' || rint_(0, 1)) {
        char c[2] = {*t, 0};
        sput(s, c);
      }
    }
    return;
  case T_NEG:
    if (loose && rint_(0, 1)) { /* unary minus binds tighter than * // % */
      sput(s, "-");
      emit(s, nd->kid[0], perm, loose);
      return;
    }
    sput(s, "-(");
    emit(s, nd->kid[0], perm, loose);
    sput(s, ")");
    return;
  case T_ADD:
  case T_SUB:
  case T_MUL:
  case T_DIV:
  case T_MOD: {
    static const char *opstr[] = {"+", "-", "*", "//", "%"};
    int paren = !loose || rint_(0, 2) == 0;
    if (paren) sput(s, "(");
    emit(s, nd->kid[order[0]], perm, loose);
    sp(s);
    sput(s, opstr[nd->op - T_ADD]);
    sp(s);
    emit(s, nd->kid[order[1]], perm, loose);
    if (paren) sput(s, ")");
    return;
  }
  default: {
    static const char *fn[] = {"Max", "Min", "CeilDiv", "Broadcast"};
    put_fname(s, fn[nd->op - T_MAX]);
    sp(s);
    sput(s, "(");
    for (int i = 0; i < nd->n; i++) {
      if (i) sput(s, ",");
      sp(s);
      emit(s, nd->kid[order[i]], perm, loose);
    }
    sput(s, ")");
    return;
  }
  }
}

/* Section - Independent reference evaluator (parses the text itself) */

typedef struct {
  const char *p;
  const int64_t *vals;
  int undef; /* value undefined (overflow, /0, Broadcast) */
  int bad;   /* syntax error: a bug in the generator */
} Ref;

static int64_t ref_expr(Ref *r);

static void ref_ws(Ref *r) {
  while (*r->p == ' ') r->p++;
}

static int64_t py_div(Ref *r, int64_t a, int64_t b) {
  if (b == 0 || (a == INT64_MIN && b == -1)) {
    r->undef = 1;
    return 0;
  }
  int64_t q = a / b;
  if (a % b != 0 && ((a < 0) != (b < 0))) q--;
  return q;
}

static int64_t py_mod(Ref *r, int64_t a, int64_t b) {
  if (b == 0) {
    r->undef = 1;
    return 0;
  }
  if (b == -1) return 0;
  int64_t m = a % b;
  if (m != 0 && ((m < 0) != (b < 0))) m += b;
  return m;
}

static int64_t ref_primary(Ref *r) {
  ref_ws(r);
  if (*r->p == '-') {
    r->p++;
    int64_t v = ref_primary(r);
    if (v == INT64_MIN) r->undef = 1;
    return -v;
  }
  if (*r->p == '(') {
    r->p++;
    int64_t v = ref_expr(r);
    ref_ws(r);
    if (*r->p++ != ')') r->bad = 1;
    return v;
  }
  if (*r->p >= '0' && *r->p <= '9') {
    int64_t v = 0;
    while (*r->p >= '0' && *r->p <= '9') v = v * 10 + (*r->p++ - '0');
    return v;
  }
  if (*r->p == '\'') {
    const char *q = strchr(r->p + 1, '\'');
    if (!q) {
      r->bad = 1;
      return 0;
    }
    for (int i = 0; i < NSYMS; i++)
      if ((size_t)(q - r->p - 1) == strlen(sym_plain[i]) &&
          memcmp(r->p + 1, sym_plain[i], strlen(sym_plain[i])) == 0) {
        r->p = q + 1;
        return r->vals[i];
      }
    r->bad = 1;
    return 0;
  }
  char name[32];
  int n = 0;
  while (((*r->p | 32) >= 'a' && (*r->p | 32) <= 'z') && n < 31) name[n++] = (char)(*r->p++ | 32);
  name[n] = 0;
  ref_ws(r);
  if (*r->p != '(') {
    for (int i = 0; i < 4; i++)
      if (strcmp(name, sym_plain[i]) == 0) return r->vals[i];
    r->bad = 1;
    return 0;
  }
  r->p++;
  int64_t args[8];
  int na = 0;
  do {
    if (na == 8) {
      r->bad = 1;
      return 0;
    }
    args[na++] = ref_expr(r);
    ref_ws(r);
  } while (*r->p == ',' && r->p++);
  if (*r->p++ != ')') r->bad = 1;
  int64_t acc = args[0];
  if (strcmp(name, "max") == 0) {
    for (int i = 1; i < na; i++) acc = args[i] > acc ? args[i] : acc;
  } else if (strcmp(name, "min") == 0) {
    for (int i = 1; i < na; i++) acc = args[i] < acc ? args[i] : acc;
  } else if (strcmp(name, "broadcast") == 0) {
    for (int i = 1; i < na; i++) {
      if (acc == 1) acc = args[i];
      else if (args[i] != 1 && args[i] != acc) r->undef = 1;
    }
  } else if (strcmp(name, "ceildiv") == 0 && na == 2) {
    if (args[0] == INT64_MIN) r->undef = 1;
    else {
      acc = py_div(r, -args[0], args[1]);
      if (acc == INT64_MIN) r->undef = 1;
      acc = -acc;
    }
  } else {
    r->bad = 1;
  }
  return acc;
}

static int64_t ref_term(Ref *r) {
  int64_t v = ref_primary(r);
  for (;;) {
    ref_ws(r);
    int64_t w;
    if (r->p[0] == '*') {
      r->p++;
      w = ref_primary(r);
      if (__builtin_mul_overflow(v, w, &v)) r->undef = 1;
    } else if (r->p[0] == '/' && r->p[1] == '/') {
      r->p += 2;
      w = ref_primary(r);
      v = py_div(r, v, w);
    } else if (r->p[0] == '%') {
      r->p++;
      w = ref_primary(r);
      v = py_mod(r, v, w);
    } else {
      return v;
    }
  }
}

static int64_t ref_expr(Ref *r) {
  int64_t v = ref_term(r);
  for (;;) {
    ref_ws(r);
    int64_t w;
    if (*r->p == '+') {
      r->p++;
      w = ref_term(r);
      if (__builtin_add_overflow(v, w, &v)) r->undef = 1;
    } else if (*r->p == '-') {
      r->p++;
      w = ref_term(r);
      if (__builtin_sub_overflow(v, w, &v)) r->undef = 1;
    } else {
      return v;
    }
  }
}

/* Section - Checking */

static int lookup(void *user, const char *name, int64_t *value) {
  const int64_t *vals = user;
  for (int i = 0; i < NSYMS; i++)
    if (strcmp(name, sym_plain[i]) == 0) {
      *value = vals[i];
      return 1;
    }
  return 0;
}

static long failures, checked_values, unknowns, undefined_skips;

static void fail(const char *what, const char *text, OsiExprStore *s, OsiExpr e, int nonneg) {
  failures++;
  if (failures <= 10)
    fprintf(stderr, "FAIL (%s, assume_nonneg=%d): %s\n  simplified: %s\n", what, nonneg, text,
            osi_expr_str(s, e));
}

static OsiExpr check_text(OsiExprStore *s, int nonneg, const char *text) {
  OsiExpr e = osi_expr_parse(s, text);
  if (e == OSI_EXPR_UNKNOWN) {
    unknowns++;
    if (getenv("SHOW_UNKNOWN")) fprintf(stderr, "unknown: %s\n", text);
    return e;
  }
  /* 2. print / re-parse */
  const char *printed = osi_expr_str(s, e);
  OsiExpr back = osi_expr_parse(s, printed);
  if (back != e) {
    fail("reparse", text, s, e, nonneg);
    fprintf(stderr, "  reparsed: %s\n", osi_expr_str(s, back));
  }
  /* 3. idempotent */
  OsiExpr again = osi_expr_substitute(s, e, NULL, NULL, 0);
  if (again != e) {
    fail("idempotent", text, s, e, nonneg);
    fprintf(stderr, "  rebuilt: %s\n", osi_expr_str(s, again));
  }
  /* 1. values */
  for (int k = 0; k < 6; k++) {
    int64_t vals[NSYMS];
    int small = rint_(0, 1);
    int large = rint_(0, 7) == 0;
    for (int i = 0; i < NSYMS; i++) {
      int lo = nonneg ? 0 : small ? -2 : -9, hi = small ? 2 : 9;
      vals[i] = rint_(0, 4) == 0 ? (nonneg ? 0 : rint_(-1, 1)) : rint_(lo, hi);
      if (large && rint_(0, 1)) /* sizes far from 0, and near 2^31 */
        vals[i] = (rint_(0, 3) ? rint_(0, 1000000) : (int64_t)rint_(0, 1000) + 2147483000) *
                  (nonneg || rint_(0, 1) ? 1 : -1);
    }
    Ref r = {text, vals, 0, 0};
    int64_t want = ref_expr(&r);
    if (r.bad || *r.p) {
      fprintf(stderr, "generator/reference bug: %s\n", text);
      failures++;
      return e;
    }
    if (r.undef) {
      undefined_skips++;
      continue;
    }
    int64_t got = 0;
    checked_values++;
    if (osi_expr_eval(s, e, lookup, vals, &got) != 0 || got != want) {
      fail("value", text, s, e, nonneg);
      if (failures <= 10)
        fprintf(stderr, "  a=%" PRId64 " b=%" PRId64 " c=%" PRId64 " d=%" PRId64 " 'e f'=%" PRId64
                        ": want %" PRId64 ", got %" PRId64 "\n",
                vals[0], vals[1], vals[2], vals[3], vals[4], want, got);
    }
  }
  return e;
}

static void check_case(OsiExprStore *s, int nonneg, const char *text, const char *permuted,
                       const char *loose) {
  OsiExpr e = check_text(s, nonneg, text);
  check_text(s, nonneg, loose);
  /* 4. permutation */
  OsiExpr p = osi_expr_parse(s, permuted);
  if (p != e) {
    fail("permutation", text, s, e, nonneg);
    fprintf(stderr, "  permuted: %s\n  gives: %s\n", permuted, osi_expr_str(s, p));
  }
}

int main(int argc, char **argv) {
  int max_depth = 5;
  long count = argc > 1 ? strtol(argv[1], NULL, 10) : 100000;
  if (argc > 2) rng_state = strtoull(argv[2], NULL, 10) * 0x9E3779B97F4A7C15ull + 0x2545F4914F6CDD1Dull;
  if (argc > 3) max_depth = atoi(argv[3]);
  if (rng_state == 0) rng_state = 1;
  clock_t t0 = clock();
  OsiExprStore *stores[2] = {NULL, NULL};
  long cases = 0;
  for (long i = 0; i < count; i++) {
    if (i % 5000 == 0) {
      for (int m = 0; m < 2; m++) {
        osi_expr_store_delete(stores[m]);
        stores[m] = osi_expr_store_new();
        osi_expr_store_set_assume_nonneg(stores[m], m);
      }
    }
    npool = 0;
    Node *root = gen(rint_(1, max_depth));
    if (!root) continue;
    static Str text, perm, loose;
    text.n = perm.n = loose.n = 0;
    text.buf[0] = perm.buf[0] = loose.buf[0] = 0;
    emit(&text, root, 0, 0);
    emit(&perm, root, 1, 0);
    emit(&loose, root, 0, 1);
    for (int m = 0; m < 2; m++) check_case(stores[m], m, text.buf, perm.buf, loose.buf);
    cases++;
    if (failures > 50) break;
  }
  for (int m = 0; m < 2; m++) osi_expr_store_delete(stores[m]);
  double secs = (double)(clock() - t0) / CLOCKS_PER_SEC;
  printf("%ld cases x 2 modes, %ld value checks, %ld unknown results, %ld undefined bindings "
         "skipped, %ld failures, %.2fs\n",
         cases, checked_values, unknowns, undefined_skips, failures, secs);
  return failures ? 1 : 0;
}
