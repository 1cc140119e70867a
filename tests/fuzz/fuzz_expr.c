/*
 * libFuzzer target: the expression parser, simplifier, printer, evaluator
 * and substitution (src/expr*.c).
 *
 * Input: byte 0 picks the store mode (bit 0: assume_nonneg off; bit 1: the
 * float domain on, with every symbol bound below 2^24) and seeds the symbol
 * bindings; bytes 1.. are the expression text (up to the first
 * NUL, as the C API sees it).
 *
 * Invariants (each a crash when broken, so libFuzzer keeps the input):
 *   1. the text parses (to any id, OSI_EXPR_UNKNOWN included) exactly when
 *      the independent reference parser below accepts it (within the
 *      parser's documented length/depth limits);
 *   2. printing then re-parsing gives the same id;
 *   3. simplification is idempotent (a rebuild through the constructors,
 *      osi_expr_substitute with no pairs, gives the same id);
 *   4. the size is within OSI_EXPR_MAX_NODES;
 *   5. for several bindings derived from the input: wherever the reference
 *      evaluator (Python semantics on the ORIGINAL text, float32 per
 *      operation for float subexpressions; int64 overflow, division by
 *      zero, an undefined Broadcast, truncating NaN, an infinity or a float
 *      outside int64 make it undefined, and a float division by zero is
 *      not compared) is defined, osi_expr_eval (osi_expr_eval_float for a
 *      float text) of the parsed+simplified id gives the same value;
 *   6. substituting one symbol by its bound constant does not change the
 *      value;
 *   7. osi_expr_from_dim_param never fails on a non-empty text, and makes a
 *      float text (no size) the symbol of that name, and so a valid text
 *      whose simplification runs out of the work budget
 *      (OSI_EXPR_WORK_PER_TEXT steps: osi_expr_parse_text says
 *      OSI_EXPR_TEXT_OVER_BUDGET, and osi_expr_parse gives unknown);
 *   8. isolated (as the decoders read dim texts), a text's verdict and value
 *      do not depend on what the store computed before: a fresh store and
 *      this one, after all of the above, agree (the decoders read dim texts
 *      in different orders, and must cut the same ones).
 * OSI_EXPR_UNKNOWN is always allowed (never wrong).
 *
 * Built by CMake with -DOSI_FUZZ=ON (clang); tests/fuzz/replay.c runs it
 * without libFuzzer on the regression inputs (ctest fuzz_expr_replay).
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "expr/expr.h"

#define FUZZ_ASSERT(cond, ...)                                                   \
  do {                                                                           \
    if (!(cond)) {                                                               \
      fprintf(stderr, "fuzz_expr: invariant failed: %s\n  ", #cond);             \
      fprintf(stderr, __VA_ARGS__);                                              \
      fprintf(stderr, "\n");                                                     \
      abort();                                                                   \
    }                                                                            \
  } while (0)

/* Mirrors of expr_parse.c's documented limits. */
#define PARSE_MAX_LEN (64 * 1024)
#define PARSE_MAX_DEPTH 200

/* Section - Bindings: a symbol's value is a hash of its name and the seed */

typedef struct Binding {
  uint64_t seed;
  int nonneg;
  int round;
  int domain; /* the store assumes the float domain: every symbol below 2^24 */
} Binding;

static uint64_t mix(uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdull;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ull;
  x ^= x >> 33;
  return x;
}

static int64_t bind_value_any(const Binding *b, const char *name, size_t n) {
  uint64_t h = mix(b->seed + 0x9E3779B97F4A7C15ull * (uint64_t)(b->round + 1));
  for (size_t i = 0; i < n; i++) h = mix(h ^ (unsigned char)name[i]) + i;
  int pick = (int)(h % 16);
  h = mix(h);
  if (b->nonneg) {
    if (pick < 4) return 0;
    if (pick < 6) return 1;
    if (pick < 14) return (int64_t)(h % 10);
    if (pick == 14) return (int64_t)(h % 100000);
    return (int64_t)(h % ((uint64_t)1 << 62)); /* large: overflow paths */
  }
  if (pick < 3) return 0;
  if (pick < 5) return (pick & 1) ? 1 : -1;
  if (pick < 14) return (int64_t)(h % 19) - 9;
  if (pick == 14) return (int64_t)(h % 200001) - 100000;
  return (h & 1) ? (int64_t)(h >> 2) : -(int64_t)(h >> 2);
}

/* Within the float domain when the store assumes it. */
static int64_t bind_value(const Binding *b, const char *name, size_t n) {
  int64_t v = bind_value_any(b, name, n);
  if (!b->domain) return v;
  int64_t m = v % (1 << 24); /* |m| < 2^24 */
  return b->nonneg && m < 0 ? -m : m;
}

static int lookup(void *user, const char *name, int64_t *value) {
  *value = bind_value(user, name, strlen(name));
  return 1;
}

/* Section - Reference parser/evaluator (independent of expr_parse.c)
 *
 * Values are typed as the grammar says (expr_parse.c): integers, or float32
 * values computed one rounding per operation (C float arithmetic). */

typedef struct RV {
  int f;     /* float */
  int64_t i; /* integer value */
  float x;   /* float value */
} RV;

typedef struct Ref {
  const char *p, *end;
  const Binding *b;
  int depth, max_depth;
  int undef;    /* the value is undefined */
  int zero_div; /* a float division by zero: the infinity's sign is a zero's */
  int bad;      /* syntax error */
  char *name;
  size_t name_cap;
} Ref;

static const RV RV0 = {0, 0, 0};

static RV rv_int(int64_t v) {
  RV r = {0, v, 0};
  return r;
}
static RV rv_float(float x) {
  RV r = {1, 0, x};
  return r;
}
static float as_f(RV v) { return v.f ? v.x : (float)v.i; }

static int r_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}
static int r_alpha(char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_'; }
static int r_digit(char c) { return c >= '0' && c <= '9'; }

static void r_ws(Ref *r) {
  while (r->p < r->end && r_space(*r->p)) r->p++;
}

static int r_peek(Ref *r, const char *tok) {
  r_ws(r);
  size_t n = strlen(tok);
  return (size_t)(r->end - r->p) >= n && memcmp(r->p, tok, n) == 0;
}

static int r_accept(Ref *r, const char *tok) {
  if (!r_peek(r, tok)) return 0;
  r->p += strlen(tok);
  return 1;
}

static int64_t r_div(Ref *r, int64_t a, int64_t b) {
  if (b == 0 || (a == INT64_MIN && b == -1)) {
    r->undef = 1;
    return 0;
  }
  int64_t q = a / b;
  if (a % b != 0 && ((a < 0) != (b < 0))) q--;
  return q;
}

static int64_t r_mod(Ref *r, int64_t a, int64_t b) {
  if (b == 0) {
    r->undef = 1;
    return 0;
  }
  if (b == -1) return 0;
  int64_t m = a % b;
  if (m != 0 && ((m < 0) != (b < 0))) m += b;
  return m;
}

/* a op b, typed: float when either is (or for '/'). */
static RV r_arith(Ref *r, char op, RV a, RV b) {
  if (op == '/' || a.f || b.f) {
    if (op == 'd' || op == '%') {
      r->bad = 1;
      return RV0;
    }
    float x = as_f(a), y = as_f(b);
    volatile float z;
    if (op == '+') z = x + y;
    else if (op == '-') z = x - y;
    else if (op == '*') z = x * y;
    else z = x / y;
    if (op == '/' && y == 0) r->zero_div = 1;
    return rv_float(z);
  }
  int64_t v = 0;
  switch (op) {
  case '+': if (__builtin_add_overflow(a.i, b.i, &v)) r->undef = 1; break;
  case '-': if (__builtin_sub_overflow(a.i, b.i, &v)) r->undef = 1; break;
  case '*': if (__builtin_mul_overflow(a.i, b.i, &v)) r->undef = 1; break;
  case 'd': v = r_div(r, a.i, b.i); break;
  default: v = r_mod(r, a.i, b.i); break;
  }
  return rv_int(v);
}

/* Cast float -> int64 after a rounding. */
static RV r_to_int(Ref *r, float x) {
  if (!(x >= -0x1p63f && x < 0x1p63f)) {
    r->undef = 1;
    return rv_int(0);
  }
  return rv_int((int64_t)x);
}

static RV r_expr(Ref *r);

static int r_name_is(const char *p, size_t n, const char *fn) {
  if (strlen(fn) != n) return 0;
  for (size_t i = 0; i < n; i++) {
    char c = p[i];
    if (c >= 'A' && c <= 'Z') c = (char)(c + 32);
    if (c != fn[i]) return 0;
  }
  return 1;
}

static RV r_call(Ref *r, const char *fname, size_t fn) {
  static const char *names[] = {"max", "min", "ceildiv", "broadcast", "floor", "ceil", "round", "trunc", "float"};
  int kind = -1;
  for (int k = 0; k < 9 && kind < 0; k++)
    if (r_name_is(fname, fn, names[k])) kind = k;
  if (kind < 0) {
    r->bad = 1;
    return RV0;
  }
  RV args[64];
  int na = 0, any_float = 0, many = 0;
  RV acc = RV0;
  do {
    RV v = r_expr(r);
    if (r->bad) return RV0;
    any_float |= v.f;
    if (na < 64) args[na] = v;
    else many = 1;
    na++;
  } while (r_accept(r, ","));
  if (!r_accept(r, ")") || (kind >= 4 ? na != 1 : na < 2) || (kind == 2 && na != 2) ||
      (any_float && (kind == 2 || kind == 3))) {
    r->bad = 1;
    return RV0;
  }
  if (many) { /* a longer argument list than kept: valid, value not followed */
    r->undef = 1;
    return any_float && kind < 2 ? rv_float(0) : rv_int(0);
  }
  switch (kind) {
  case 0:
  case 1:
    if (any_float) {
      float m = as_f(args[0]);
      for (int i = 1; i < na; i++) {
        float x = as_f(args[i]);
        if (m != m || x != x) m = NAN;
        else if (kind == 0 ? x > m : x < m) m = x;
      }
      return rv_float(m);
    }
    acc = args[0];
    for (int i = 1; i < na; i++)
      if (kind == 0 ? args[i].i > acc.i : args[i].i < acc.i) acc = args[i];
    return acc;
  case 2: /* CeilDiv(a, b) = -((-a) // b) */
    if (args[0].i == INT64_MIN) {
      r->undef = 1;
      return rv_int(0);
    } else {
      int64_t q = r_div(r, -args[0].i, args[1].i);
      if (q == INT64_MIN) r->undef = 1;
      return rv_int(q == INT64_MIN ? 0 : -q);
    }
  case 3:
    acc = args[0];
    for (int i = 1; i < na; i++) {
      if (acc.i == 1) acc = args[i];
      else if (args[i].i != 1 && args[i].i != acc.i) r->undef = 1;
    }
    return acc;
  case 4: return r_to_int(r, floorf(as_f(args[0])));
  case 5: return r_to_int(r, ceilf(as_f(args[0])));
  case 6: return r_to_int(r, nearbyintf(as_f(args[0]))); /* default mode: half to even */
  case 7: return r_to_int(r, as_f(args[0]));
  default: return rv_float(as_f(args[0]));
  }
}

static RV r_number(Ref *r) {
  const char *start = r->p;
  int64_t v = 0;
  int overflow = 0, is_float = 0;
  while (r->p < r->end && r_digit(*r->p)) {
    if (__builtin_mul_overflow(v, 10, &v) || __builtin_add_overflow(v, *r->p - '0', &v)) overflow = 1;
    r->p++;
  }
  if (r->p < r->end && *r->p == '.') {
    is_float = 1;
    for (r->p++; r->p < r->end && r_digit(*r->p);) r->p++;
  }
  if (r->p < r->end && (*r->p == 'e' || *r->p == 'E')) {
    const char *q = r->p + 1;
    if (q < r->end && (*q == '+' || *q == '-')) q++;
    if (q < r->end && r_digit(*q)) {
      is_float = 1;
      while (q < r->end && r_digit(*q)) q++;
      r->p = q;
    }
  }
  if (r->p < r->end && (r_alpha(*r->p) || *r->p == '.')) r->bad = 1;
  if (!is_float) {
    if (overflow) r->bad = 1; /* a literal outside int64 does not parse */
    return rv_int(v);
  }
  size_t n = (size_t)(r->p - start);
  char *tmp = malloc(n + 1);
  if (!tmp) {
    r->bad = 1;
    return RV0;
  }
  memcpy(tmp, start, n);
  tmp[n] = 0;
  RV f = rv_float((float)strtod(tmp, NULL));
  free(tmp);
  return f;
}

static RV r_primary(Ref *r) {
  r_ws(r);
  if (r->p == r->end) {
    r->bad = 1;
    return RV0;
  }
  char c = *r->p;
  if (r_digit(c)) return r_number(r);
  if (r_alpha(c)) {
    const char *start = r->p;
    while (r->p < r->end && (r_alpha(*r->p) || r_digit(*r->p))) r->p++;
    size_t n = (size_t)(r->p - start);
    if (r_accept(r, "(")) return r_call(r, start, n);
    return rv_int(bind_value(r->b, start, n));
  }
  if (c == '\'') {
    r->p++;
    size_t n = 0;
    for (;;) {
      if (r->p == r->end) break;
      char q = *r->p++;
      if (q == '\'') return rv_int(bind_value(r->b, r->name, n));
      if (q == '\\') {
        if (r->p == r->end || (*r->p != '\'' && *r->p != '\\')) break;
        q = *r->p++;
      }
      if (n == r->name_cap) break; /* cannot happen: the buffer is the text's length */
      r->name[n++] = q;
    }
    r->bad = 1;
    return RV0;
  }
  if (c == '(') {
    r->p++;
    RV v = r_expr(r);
    if (!r->bad && !r_accept(r, ")")) r->bad = 1;
    return v;
  }
  r->bad = 1;
  return RV0;
}

static RV r_unary(Ref *r) {
  if (++r->depth > r->max_depth) r->max_depth = r->depth;
  if (r->depth > PARSE_MAX_DEPTH + 8) { /* deep enough: the parser refuses it anyway */
    r->bad = 1;
    r->depth--;
    return RV0;
  }
  RV v;
  if (r_accept(r, "-")) {
    v = r_unary(r);
    if (v.f) {
      v.x = -v.x;
    } else {
      if (v.i == INT64_MIN) r->undef = 1;
      v.i = v.i == INT64_MIN ? 0 : -v.i;
    }
  } else if (r_accept(r, "+")) {
    v = r_unary(r);
  } else {
    v = r_primary(r);
  }
  r->depth--;
  return v;
}

static RV r_term(Ref *r) {
  RV v = r_unary(r);
  while (!r->bad) {
    if (r_accept(r, "*")) v = r_arith(r, '*', v, r_unary(r));
    else if (r_accept(r, "//")) v = r_arith(r, 'd', v, r_unary(r));
    else if (r_accept(r, "/")) v = r_arith(r, '/', v, r_unary(r));
    else if (r_accept(r, "%")) v = r_arith(r, '%', v, r_unary(r));
    else break;
  }
  return v;
}

static RV r_expr(Ref *r) {
  if (++r->depth > r->max_depth) r->max_depth = r->depth;
  if (r->depth > PARSE_MAX_DEPTH + 8) {
    r->bad = 1;
    r->depth--;
    return RV0;
  }
  RV v = r_term(r);
  while (!r->bad) {
    if (r_accept(r, "+")) v = r_arith(r, '+', v, r_term(r));
    else if (r_accept(r, "-")) v = r_arith(r, '-', v, r_term(r));
    else break;
  }
  r->depth--;
  return v;
}

/* Reference result over text[0..len): *ok 1 when it parses, *defined 1 when
 * its value is defined under b (and is no infinity whose sign a zero
 * decides); *max_depth the nesting the parser counts. */
static RV reference(const char *text, size_t len, const Binding *b, int *ok, int *defined,
                    int *max_depth) {
  char *name = malloc(len + 1);
  Ref r = {text, text + len, b, 0, 0, 0, 0, 0, name, len + 1};
  RV v = name ? r_expr(&r) : RV0;
  if (!r.bad) {
    r_ws(&r);
    if (r.p != r.end) r.bad = 1;
  }
  free(name);
  *ok = name && !r.bad;
  *defined = !r.undef && !r.zero_div;
  *max_depth = r.max_depth;
  return v;
}

/* Section - Target */

typedef struct FirstSym {
  const char *name;
} FirstSym;

static void first_symbol(const char *name, void *user) {
  FirstSym *f = user;
  if (!f->name) f->name = name;
}

/* 8: isolated, the store's verdict on text (after whatever it computed)
 * is the fresh store's, how0 with the value printed as text0. */
static void check_verdict(OsiExprStore *s, const char *text, OsiExprText how0, const char *text0) {
  osi_expr_store_isolate(s, 1);
  OsiExpr e1;
  OsiExprText how1 = osi_expr_parse_text(s, text, &e1);
  osi_expr_store_isolate(s, 0);
  FUZZ_ASSERT(how1 == how0, "[%s]: verdict %d in a fresh store, %d after other work", text, (int)how0,
              (int)how1);
  FUZZ_ASSERT(!strcmp(osi_expr_str(s, e1), text0), "[%s]: %s in a fresh store, %s after other work",
              text, text0, osi_expr_str(s, e1));
}

static void check(const char *text, size_t len, uint8_t mode) {
  OsiExprStore *s = osi_expr_store_new();
  if (!s) return;
  int nonneg = !(mode & 1), domain = (mode & 2) != 0;
  osi_expr_store_set_assume_nonneg(s, nonneg);
  osi_expr_store_set_float_domain(s, domain);
  Binding b0 = {mode >> 2, nonneg, 0, domain};

  /* 8: the verdict in a fresh store, isolated */
  OsiExprStore *fresh = osi_expr_store_new();
  if (!fresh) {
    osi_expr_store_delete(s);
    return;
  }
  osi_expr_store_set_assume_nonneg(fresh, nonneg);
  osi_expr_store_set_float_domain(fresh, domain);
  osi_expr_store_isolate(fresh, 1);
  OsiExpr e0;
  OsiExprText how0 = osi_expr_parse_text(fresh, text, &e0);
  char *text0 = strdup(osi_expr_str(fresh, e0));
  osi_expr_store_delete(fresh);

  OsiExpr e = osi_expr_parse(s, text);
  int ok, defined, depth;
  int is_float = reference(text, len, &b0, &ok, &defined, &depth).f;
  int within = len <= PARSE_MAX_LEN && depth <= PARSE_MAX_DEPTH;
  if (how0 == OSI_EXPR_TEXT_OVER_BUDGET && within)
    FUZZ_ASSERT(ok, "over budget, but the reference rejects [%s]", text);
  /* 1. acceptance. The engine's "does not parse" and "parses to unknown"
   * both give OSI_EXPR_UNKNOWN, so only "engine gives an id => the
   * reference accepts" is checked here; the converse through
   * osi_expr_from_dim_param, which makes a non-parsing text a symbol. */
  if (e != OSI_EXPR_UNKNOWN)
    FUZZ_ASSERT(ok, "the engine parsed text the reference rejects: [%s] -> %s", text,
                osi_expr_str(s, e));
  if (len > 0) {
    osi_expr_store_isolate(s, 1); /* as the decoders read dim texts */
    OsiExpr d = osi_expr_from_dim_param(s, text);
    osi_expr_store_isolate(s, 0);
    const char *dname = NULL;
    int is_text_symbol = d != OSI_EXPR_UNKNOWN && osi_expr_is_symbol(s, d, &dname) &&
                         strcmp(dname, text) == 0;
    /* 7 */
    FUZZ_ASSERT(d != OSI_EXPR_UNKNOWN || ok, "from_dim_param gave unknown for [%s]", text);
    if (within && ok && is_float) /* a float expression is no size: it names one */
      FUZZ_ASSERT(is_text_symbol, "float text [%s] is not a symbol: %s", text, osi_expr_str(s, d));
    if (within && ok && !is_float && is_text_symbol && e == OSI_EXPR_UNKNOWN &&
        how0 != OSI_EXPR_TEXT_OVER_BUDGET) {
      /* text is a valid expression but became the symbol named by itself:
       * fine only when the text is an identifier naming that symbol, or
       * when it is over the work budget */
      int ident = r_alpha(text[0]);
      for (size_t i = 0; i < len && ident; i++) ident = r_alpha(text[i]) || r_digit(text[i]);
      FUZZ_ASSERT(ident, "valid expression [%s] treated as a symbol name", text);
    }
    /* (with the store's memos, e may be within the budget where the decoders'
     * reading is not) */
    if (e != OSI_EXPR_UNKNOWN && !is_float && how0 != OSI_EXPR_TEXT_OVER_BUDGET)
      FUZZ_ASSERT(d == e, "from_dim_param differs from parse: [%s]", text);
    if (how0 == OSI_EXPR_TEXT_OVER_BUDGET)
      FUZZ_ASSERT(is_text_symbol, "[%s] is over the budget, but its dim is %s", text, osi_expr_str(s, d));
    if (!ok && within) {
      FUZZ_ASSERT(is_text_symbol, "text the reference rejects is not a symbol: [%s] -> %s", text,
                  osi_expr_str(s, d));
    }
  }
  if (e == OSI_EXPR_UNKNOWN) {
    /* (an isolated reading over the budget was just checked: from_dim_param) */
    if (how0 != OSI_EXPR_TEXT_OVER_BUDGET) check_verdict(s, text, how0, text0);
    free(text0);
    osi_expr_store_delete(s);
    return;
  }

  /* 4. size */
  FUZZ_ASSERT(osi_expr_size(s, e) >= 1 && osi_expr_size(s, e) <= OSI_EXPR_MAX_NODES,
              "size %d of %s", osi_expr_size(s, e), osi_expr_str(s, e));

  /* 2. print -> parse */
  const char *printed = osi_expr_str(s, e);
  FUZZ_ASSERT(printed != NULL, "no text for id %u", e);
  char *printed_copy = strdup(printed);
  /* Read isolated, as the decoders read a dim text: what the first reading
   * left in the memos would make the verdict depend on history (a canonical
   * form may take more than its text to simplify again, and be cut in one
   * reading and not in the next). */
  OsiExpr back;
  osi_expr_store_isolate(s, 1);
  OsiExprText how_back = osi_expr_parse_text(s, printed_copy, &back);
  osi_expr_store_isolate(s, 0);
  FUZZ_ASSERT(back == e || how_back == OSI_EXPR_TEXT_OVER_BUDGET,
              "reparse: [%s] printed as [%s] parses to [%s] (verdict %d)", text, printed_copy,
              osi_expr_str(s, back), (int)how_back);
  free(printed_copy);

  /* 3. idempotent */
  OsiExpr again = osi_expr_substitute(s, e, NULL, NULL, 0);
  FUZZ_ASSERT(again == e, "not idempotent: [%s] -> [%s] rebuilt as [%s]", text,
              osi_expr_str(s, e), osi_expr_str(s, again));

  /* 5/6. values */
  FirstSym fs = {NULL};
  osi_expr_for_each_symbol(s, e, first_symbol, &fs);
  char *sym = fs.name ? strdup(fs.name) : NULL;
  for (int round = 0; round < 4; round++) {
    Binding b = {mode >> 2, nonneg, round, domain};
    RV ref = reference(text, len, &b, &ok, &defined, &depth);
    int64_t got = 0;
    int rc;
    if (ref.f) { /* a float expression: its float32 value (a zero's sign aside) */
      float fgot = 0;
      rc = osi_expr_eval_float(s, e, lookup, &b, &fgot);
      if (defined)
        FUZZ_ASSERT(rc == 0 && (fgot == ref.x || (fgot != fgot && ref.x != ref.x)),
                    "value: [%s] simplified to [%s]: want %.9g, got %.9g (rc %d)", text,
                    osi_expr_str(s, e), (double)ref.x, (double)fgot, rc);
      continue;
    }
    int64_t want = ref.i;
    rc = osi_expr_eval(s, e, lookup, &b, &got);
    if (defined) {
      FUZZ_ASSERT(rc == 0 && got == want,
                  "value: [%s] simplified to [%s]: want %" PRId64 ", got %" PRId64 " (rc %d)",
                  text, osi_expr_str(s, e), want, got, rc);
    }
    if (sym && rc == 0) {
      OsiExpr from = osi_expr_symbol(s, sym);
      OsiExpr to = osi_expr_const(s, bind_value(&b, sym, strlen(sym)));
      OsiExpr sub = osi_expr_substitute(s, e, &from, &to, 1);
      int64_t got2 = 0;
      if (sub != OSI_EXPR_UNKNOWN && osi_expr_eval(s, sub, lookup, &b, &got2) == 0) {
        FUZZ_ASSERT(got2 == got,
                    "substitution: [%s] with %s=%s gives [%s] = %" PRId64 ", not %" PRId64,
                    osi_expr_str(s, e), sym, osi_expr_str(s, to), osi_expr_str(s, sub), got2, got);
      }
    }
  }
  free(sym);
  check_verdict(s, text, how0, text0);
  free(text0);
  osi_expr_store_delete(s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1) return 0;
  if (size > PARSE_MAX_LEN + 2) size = PARSE_MAX_LEN + 2;
  uint8_t mode = data[0];
  char *text = malloc(size);
  if (!text) return 0;
  memcpy(text, data + 1, size - 1);
  text[size - 1] = 0;
  check(text, strlen(text), mode);
  free(text);
  return 0;
}
