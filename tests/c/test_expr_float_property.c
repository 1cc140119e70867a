/*
 * Randomized property test of float32 expressions (expr_float.c).
 *
 *   test_expr_float_property [count [seed]]   (defaults: 30000, fixed seed)
 *
 * Each case is a random typed tree: integer nodes (symbols a b c, small
 * constants, + - *, // by a constant, Min, Max, and Floor/Ceil/Round/Trunc
 * of a float) and float32 nodes (literals, Float(n), + - * /, unary minus,
 * Min, Max, with integer operands converted implicitly or by Float()). Its
 * text is fully parenthesised. An independent reference evaluates the TREE
 * (not the text) in C float arithmetic, one rounding per operation, as
 * onnxruntime computes: int64 overflow, division by zero, and truncating
 * NaN, an infinity or a value outside int64 make a case undefined there.
 *
 * Two stores: with the float domain (every symbol < 2^24, bindings drawn
 * there: small sizes, 0 often, up to 2^24 - 1) and without it (bindings up
 * to 2^40, many at or above 2^24, where float32 rounds the integers: only
 * exact rewrites may apply). Properties, for the parsed id of each text:
 *   1. value: wherever the reference is defined, osi_expr_eval (integer
 *      trees) or osi_expr_eval_float (float trees) gives the same value
 *      (floats compare as numbers: NaN equals NaN, and the sign of a zero
 *      is not checked; a case that divides by zero is not compared, as the
 *      sign of that infinity is the zero's, see expr_float.c);
 *   2. printing then re-parsing gives the same id;
 *   3. a rebuild through the constructors (osi_expr_substitute with no
 *      pairs) gives the same id.
 * With an argument "--dump N" after count and seed it prints N lines
 * "text<TAB>printed<TAB>a b c<TAB>value" of integer cases that are defined
 * (tests/js/expr_float.test.js checks js/expr.js on them).
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "expr/expr.h"

static uint64_t rng_state = 0x2545F4914F6CDD1Dull;

static uint64_t rnd(void) {
  uint64_t x = rng_state;
  x ^= x >> 12;
  x ^= x << 25;
  x ^= x >> 27;
  rng_state = x;
  return x * 0x2545F4914F6CDD1Dull;
}

static int rint_(int lo, int hi) { return lo + (int)(rnd() % (uint64_t)(hi - lo + 1)); }

/* Section - Trees */

enum {
  I_CONST, I_SYM, I_ADD, I_SUB, I_MUL, I_DIV, I_MIN, I_MAX, I_FLOOR, I_CEIL, I_ROUND, I_TRUNC,
  F_LIT, F_CAST, F_ADD, F_SUB, F_MUL, F_DIV, F_NEG, F_MIN, F_MAX
};

typedef struct Node {
  int op;
  int64_t k;
  float f;
  int sym;
  int n;
  int implicit[3]; /* an integer child of a float op written without Float() */
  struct Node *kid[3];
} Node;

static Node pool[8192];
static int npool;

static int is_float_op(int op) { return op >= F_LIT; }

static Node *node(int op) {
  if (npool >= (int)(sizeof pool / sizeof pool[0])) return NULL;
  Node *nd = &pool[npool++];
  memset(nd, 0, sizeof *nd);
  nd->op = op;
  return nd;
}

static const float LITERALS[] = {0.5f, 2.0f, 1.5f, 0.3f, 32.0f, 64.0f, 100.0f, 800.0f, 1333.0f,
                                 0.25f, 0.1f, 3.0f, 1e-3f, 4.0f, 0.75f, 1.0f, 8.0f, 7.0f, 1e6f};

static float random_literal(void) {
  if (rint_(0, 4)) return LITERALS[rint_(0, (int)(sizeof LITERALS / sizeof LITERALS[0]) - 1)] *
                          (rint_(0, 5) == 0 ? -1.0f : 1.0f);
  /* any moderate float32 */
  uint32_t bits = (uint32_t)(rnd() & 0x007fffff) | ((uint32_t)rint_(110, 150) << 23);
  float f;
  memcpy(&f, &bits, sizeof f);
  return rint_(0, 3) == 0 ? -f : f;
}

static Node *gen(int want_float, int depth);

static Node *gen_int(int depth) {
  int leaf = depth <= 0 || rint_(0, 9) < 3;
  if (leaf) {
    Node *nd = node(rint_(0, 2) == 0 ? I_CONST : I_SYM);
    if (!nd) return NULL;
    nd->k = rint_(0, 6) == 0 ? -rint_(1, 5) : rint_(0, 40);
    nd->sym = rint_(0, 2);
    return nd;
  }
  static const int ops[] = {I_ADD, I_SUB, I_MUL, I_DIV, I_MIN, I_MAX, I_FLOOR, I_FLOOR,
                            I_CEIL, I_CEIL, I_ROUND, I_TRUNC, I_TRUNC};
  Node *nd = node(ops[rint_(0, (int)(sizeof ops / sizeof ops[0]) - 1)]);
  if (!nd) return NULL;
  if (nd->op >= I_FLOOR) {
    nd->n = 1;
    nd->kid[0] = gen(1, depth - 1);
    return nd->kid[0] ? nd : NULL;
  }
  nd->n = 2;
  nd->kid[0] = gen_int(depth - 1);
  if (nd->op == I_DIV || (nd->op == I_MUL && rint_(0, 1))) {
    nd->kid[1] = node(I_CONST);
    if (nd->kid[1]) nd->kid[1]->k = rint_(1, 9);
  } else {
    nd->kid[1] = gen_int(depth - 1);
  }
  return nd->kid[0] && nd->kid[1] ? nd : NULL;
}

static Node *gen_float(int depth) {
  if (depth <= 0 || rint_(0, 9) < 2) {
    if (rint_(0, 1)) {
      Node *nd = node(F_LIT);
      if (nd) nd->f = random_literal();
      return nd;
    }
    Node *nd = node(F_CAST);
    if (!nd) return NULL;
    nd->n = 1;
    nd->kid[0] = gen_int(depth - 1);
    return nd->kid[0] ? nd : NULL;
  }
  static const int ops[] = {F_ADD, F_SUB, F_MUL, F_MUL, F_DIV, F_DIV, F_NEG, F_MIN, F_MAX};
  Node *nd = node(ops[rint_(0, (int)(sizeof ops / sizeof ops[0]) - 1)]);
  if (!nd) return NULL;
  nd->n = nd->op == F_NEG ? 1 : (nd->op == F_MIN || nd->op == F_MAX) ? rint_(2, 3) : 2;
  /* Operand types: + - * Min Max need one float operand to be float ops. */
  int float_at = rint_(0, nd->n - 1);
  for (int i = 0; i < nd->n; i++) {
    int f = nd->op == F_NEG || i == float_at || rint_(0, 1);
    nd->kid[i] = gen(f, depth - 1);
    if (!nd->kid[i]) return NULL;
    nd->implicit[i] = rint_(0, 1);
  }
  return nd;
}

static Node *gen(int want_float, int depth) { return want_float ? gen_float(depth) : gen_int(depth); }

/* Section - Text (fully parenthesised) */

typedef struct {
  char buf[16384];
  size_t n;
  int overflow;
} Str;

static void sput(Str *s, const char *t) {
  size_t l = strlen(t);
  if (s->n + l + 1 >= sizeof s->buf) {
    s->overflow = 1;
    return;
  }
  memcpy(s->buf + s->n, t, l + 1);
  s->n += l;
}

static const char *SYMS[] = {"a", "b", "c"};

static void emit(Str *s, const Node *nd);

/* A child of a float op: an integer child either implicit or in Float(). */
static void emit_operand(Str *s, const Node *nd, int i) {
  const Node *k = nd->kid[i];
  int wrap = !is_float_op(k->op) && !nd->implicit[i];
  if (wrap) sput(s, "Float(");
  emit(s, k);
  if (wrap) sput(s, ")");
}

static void emit(Str *s, const Node *nd) {
  char tmp[64];
  switch (nd->op) {
  case I_CONST:
    snprintf(tmp, sizeof tmp, nd->k < 0 ? "(%" PRId64 ")" : "%" PRId64, nd->k);
    sput(s, tmp);
    return;
  case I_SYM: sput(s, SYMS[nd->sym]); return;
  case F_LIT:
    /* %.9g reads back as the same float32 through double */
    snprintf(tmp, sizeof tmp, "%.9g", (double)nd->f);
    if (!strpbrk(tmp, ".e")) strcat(tmp, ".0");
    sput(s, "(");
    sput(s, tmp);
    sput(s, ")");
    return;
  case F_CAST:
    sput(s, "Float(");
    emit(s, nd->kid[0]);
    sput(s, ")");
    return;
  case F_NEG:
    sput(s, "(-");
    emit_operand(s, nd, 0);
    sput(s, ")");
    return;
  case I_FLOOR:
  case I_CEIL:
  case I_ROUND:
  case I_TRUNC: {
    static const char *names[] = {"Floor(", "Ceil(", "Round(", "Trunc("};
    sput(s, names[nd->op - I_FLOOR]);
    emit(s, nd->kid[0]);
    sput(s, ")");
    return;
  }
  case I_MIN:
  case I_MAX:
  case F_MIN:
  case F_MAX:
    sput(s, nd->op == I_MIN || nd->op == F_MIN ? "Min(" : "Max(");
    for (int i = 0; i < nd->n; i++) {
      if (i) sput(s, ",");
      if (is_float_op(nd->op)) emit_operand(s, nd, i);
      else emit(s, nd->kid[i]);
    }
    sput(s, ")");
    return;
  default: {
    static const char *ops[] = {"+", "-", "*", "//"};
    static const char *fops[] = {"+", "-", "*", "/"};
    int fl = is_float_op(nd->op);
    sput(s, "(");
    if (fl) emit_operand(s, nd, 0);
    else emit(s, nd->kid[0]);
    sput(s, fl ? fops[nd->op - F_ADD] : ops[nd->op - I_ADD]);
    if (fl) emit_operand(s, nd, 1);
    else emit(s, nd->kid[1]);
    sput(s, ")");
    return;
  }
  }
}

/* Section - Reference evaluation (float32 per operation, on the tree) */

typedef struct {
  const int64_t *vals;
  int undef;
  int big;      /* an integer beyond 2^53: JavaScript numbers would round it */
  int zero_div; /* a division by zero: the infinity's sign is the zero's, which
                 * the runtime's own operand order decides (see the header) */
} Ref;

static int64_t note(Ref *r, int64_t v) {
  if (v > (1ll << 53) || v < -(1ll << 53)) r->big = 1;
  return v;
}

static float ref_float(Ref *r, const Node *nd);

static float as_float(Ref *r, const Node *nd);

static int64_t ref_int(Ref *r, const Node *nd) {
  int64_t a, b, v;
  switch (nd->op) {
  case I_CONST: return nd->k;
  case I_SYM: return r->vals[nd->sym];
  case I_ADD:
  case I_SUB:
  case I_MUL:
    a = ref_int(r, nd->kid[0]);
    b = ref_int(r, nd->kid[1]);
    if (nd->op == I_ADD ? __builtin_add_overflow(a, b, &v)
        : nd->op == I_SUB ? __builtin_sub_overflow(a, b, &v)
                          : __builtin_mul_overflow(a, b, &v))
      r->undef = 1;
    return note(r, v);
  case I_DIV: /* Python floor division by a positive constant */
    a = ref_int(r, nd->kid[0]);
    b = nd->kid[1]->k;
    v = a / b;
    if (a % b != 0 && a < 0) v--;
    return v;
  case I_MIN:
  case I_MAX:
    a = ref_int(r, nd->kid[0]);
    b = ref_int(r, nd->kid[1]);
    return nd->op == I_MIN ? (a < b ? a : b) : (a > b ? a : b);
  default: { /* Floor Ceil Round Trunc */
    float x = ref_float(r, nd->kid[0]);
    if (nd->op == I_FLOOR) x = floorf(x);
    else if (nd->op == I_CEIL) x = ceilf(x);
    else if (nd->op == I_ROUND) x = nearbyintf(x); /* default mode: half to even */
    if (!(x >= -0x1p63f && x < 0x1p63f)) {
      r->undef = 1;
      return 0;
    }
    return note(r, (int64_t)x);
  }
  }
}

static float as_float(Ref *r, const Node *nd) {
  return is_float_op(nd->op) ? ref_float(r, nd) : (float)ref_int(r, nd);
}

static float ref_float(Ref *r, const Node *nd) {
  float x, y;
  switch (nd->op) {
  case F_LIT: return nd->f;
  case F_CAST: return (float)ref_int(r, nd->kid[0]);
  case F_NEG: return -as_float(r, nd->kid[0]);
  case F_ADD:
  case F_SUB:
  case F_MUL:
  case F_DIV: {
    x = as_float(r, nd->kid[0]);
    y = as_float(r, nd->kid[1]);
    volatile float z; /* one rounding per operation */
    if (nd->op == F_ADD) z = x + y;
    else if (nd->op == F_SUB) z = x - y;
    else if (nd->op == F_MUL) z = x * y;
    else z = x / y;
    if (nd->op == F_DIV && y == 0) r->zero_div = 1;
    return z;
  }
  default: { /* Min, Max: NaN wins */
    float acc = as_float(r, nd->kid[0]);
    for (int i = 1; i < nd->n; i++) {
      x = as_float(r, nd->kid[i]);
      if (acc != acc || x != x) acc = NAN;
      else if (nd->op == F_MIN ? x < acc : x > acc) acc = x;
    }
    return acc;
  }
  }
}

/* Section - Checks */

typedef struct {
  const int64_t *vals;
} Binding;

static int lookup(void *user, const char *name, int64_t *out) {
  const Binding *b = user;
  for (int i = 0; i < 3; i++)
    if (strcmp(name, SYMS[i]) == 0) {
      *out = b->vals[i];
      return 1;
    }
  return 0;
}

static int64_t draw(int domain) {
  if (domain) {
    switch (rint_(0, 5)) {
    case 0: return rint_(0, 2);
    case 1: return rint_(0, 20);
    case 2: return rint_(0, 5000);
    case 3: return (int64_t)(rnd() % (1u << 24));
    case 4: return (1 << 24) - rint_(1, 4);
    default: return rint_(100, 2000);
    }
  }
  switch (rint_(0, 5)) {
  case 0: return rint_(0, 3);
  case 1: return (1 << 24) + rint_(-3, 3);
  case 2: return (int64_t)(rnd() % (1ull << 40));
  case 3: return ((int64_t)rint_(1, 200) << 24) + rint_(-5, 5);
  case 4: return (int64_t)(rnd() % (1u << 31));
  default: return rint_(0, 5000);
  }
}

static int failures, checked, unknown, dump_left;

static void check_case(int domain, int depth) {
  npool = 0;
  int want_float = rint_(0, 2) == 0;
  Node *root = gen(want_float, depth);
  if (!root) return;
  Str text = {0};
  emit(&text, root);
  if (text.overflow) return;
  OsiExprStore *s = osi_expr_store_new();
  osi_expr_store_set_float_domain(s, domain);
  OsiExpr e = osi_expr_parse(s, text.buf);
  if (e == OSI_EXPR_UNKNOWN) {
    unknown++;
    osi_expr_store_delete(s);
    return;
  }
  checked++;
  char printed[16384];
  snprintf(printed, sizeof printed, "%s", osi_expr_str(s, e));
  OsiExpr back = osi_expr_parse(s, printed);
  if (back != e && failures++ < 10)
    fprintf(stderr, "ROUNDTRIP %s\n  printed %s\n  reparsed %s\n", text.buf, printed, osi_expr_str(s, back));
  OsiExpr again = osi_expr_substitute(s, e, NULL, NULL, 0);
  if (again != e && failures++ < 10)
    fprintf(stderr, "IDEMPOTENCE %s\n  %s\n  rebuilt %s\n", text.buf, printed, osi_expr_str(s, again));
  for (int round = 0; round < 6; round++) {
    int64_t vals[3] = {draw(domain), draw(domain), draw(domain)};
    Ref r = {vals, 0, 0, 0};
    Binding b = {vals};
    if (want_float) {
      float want = ref_float(&r, root), got;
      if (r.undef || r.zero_div) continue;
      int rc = osi_expr_eval_float(s, e, lookup, &b, &got);
      if (rc != 0 || !(got == want || (got != got && want != want))) {
        if (failures++ < 10)
          fprintf(stderr, "VALUE %s\n  simplified %s\n  a=%" PRId64 " b=%" PRId64 " c=%" PRId64
                          ": want %.9g, got %.9g (rc %d)\n",
                  text.buf, printed, vals[0], vals[1], vals[2], (double)want, (double)got, rc);
      }
    } else {
      int64_t want = ref_int(&r, root), got;
      if (r.undef || r.zero_div) continue;
      int rc = osi_expr_eval(s, e, lookup, &b, &got);
      if (rc != 0 || got != want) {
        if (failures++ < 10)
          fprintf(stderr, "VALUE %s\n  simplified %s\n  a=%" PRId64 " b=%" PRId64 " c=%" PRId64
                          ": want %" PRId64 ", got %" PRId64 " (rc %d)\n",
                  text.buf, printed, vals[0], vals[1], vals[2], want, got, rc);
      } else if (dump_left > 0 && !r.big && domain) {
        dump_left--;
        printf("%s\t%s\t%" PRId64 " %" PRId64 " %" PRId64 "\t%" PRId64 "\n", text.buf, printed,
               vals[0], vals[1], vals[2], want);
      }
    }
  }
  osi_expr_store_delete(s);
}

int main(int argc, char **argv) {
  long count = argc > 1 ? strtol(argv[1], NULL, 10) : 30000;
  if (argc > 2) rng_state = strtoull(argv[2], NULL, 10) | 1;
  if (argc > 4 && strcmp(argv[3], "--dump") == 0) dump_left = atoi(argv[4]);
  for (long i = 0; i < count; i++) check_case((int)(i & 1), rint_(1, 5));
  fprintf(argc > 4 ? stderr : stdout, "%d cases checked (%d unknown), %d failures\n", checked,
          unknown, failures);
  return failures ? 1 : 0;
}
