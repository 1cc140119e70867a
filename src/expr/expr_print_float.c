/*
 * Printer of float32 expressions and of Floor/Ceil/Round/Trunc (the FTOINT
 * atoms of integer expressions); expr_print.c calls it for those nodes.
 * The text parses back (expr_parse.c) to the same id:
 *
 *   - float literals always show a '.' or an exponent (0.5, 64.0, 1e-05):
 *     the shortest decimal that Math.fround(Number(text)) and
 *     (float)osi_parse_double(text) read back exactly; a non-finite constant prints
 *     as (1.0/0.0), (-1.0/0.0) or (0.0/0.0);
 *   - an integer-like operand (Float(n), a rounding, an integral constant)
 *     prints as the integer it converts, and the parser converts it again,
 *     when the operation is float anyway: an operand of '/', of
 *     Floor/Ceil/Round/Trunc, or of + * Min Max with another operand that
 *     prints as a float. Otherwise the first one says so: Float(n), 64.0;
 *   - a - b is a + (-b): a negated operand, a negative constant or the
 *     conversion of a negative-leading integer prints as a subtraction;
 *   - parentheses follow Python precedence and keep the tree (float + and *
 *     do not associate): a*(b*c), (a+b)*c, a/(b*c); a negation of a
 *     product or quotient is -(a*b).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/parse_double.h"
#include "expr/expr_internal.h"

typedef ExprText FBuf;

static void puts_(FBuf *b, const char *s) { expr_text_put(b, s, strlen(s)); }

/* Precedence of a printed text, as an operand. */
enum { P_SUM = 1, P_PROD, P_UNARY, P_ATOM };

/* Section - Literals */

/* The shortest decimal of v that reads back as v through double then
 * float32 (17 digits for a double that float32 does not hold: such a
 * content never enters a dim), with a '.' or exponent. */
static void put_float_literal(FBuf *b, double v) {
  if (!isfinite(v)) {
    puts_(b, v != v ? "(0.0/0.0)" : v > 0 ? "(1.0/0.0)" : "(-1.0/0.0)");
    return;
  }
  char tmp[40];
  int is_f32 = (double)(float)v == v;
  for (int prec = 1; prec <= 17; prec++) {
    snprintf(tmp, sizeof tmp, "%.*g", prec, v);
    double back = osi_parse_double(tmp, NULL);
    if (is_f32 ? (double)(float)back == v : back == v) break;
  }
  puts_(b, tmp);
  if (!strpbrk(tmp, ".e")) puts_(b, ".0");
}

/* Section - Operand classes */

static int kind_of(const OsiExprStore *s, OsiExpr e) { return s->nodes[e].kind; }
static OsiExpr arg(const OsiExprStore *s, OsiExpr e, uint32_t i) { return s->args[s->nodes[e].off + i]; }

/* An integral constant that an integer literal converts back to exactly. */
static int int_literal(const OsiExprStore *s, OsiExpr e, int64_t *out) {
  if (kind_of(s, e) != EK_FCONST) return 0;
  double c = expr_fconst_value(s, e);
  if (!isfinite(c) || floor(c) != c || fabs(c) >= 0x1p62 || (c == 0 && signbit(c))) return 0;
  if (out) *out = (int64_t)c;
  return 1;
}

/* Prints as an integer the parser converts back to e. */
static int int_like(const OsiExprStore *s, OsiExpr e) {
  int k = kind_of(s, e);
  return k == EK_FCAST || k == EK_FFLOOR || k == EK_FCEIL || k == EK_FROUND || int_literal(s, e, NULL);
}

/* Precedence of an integer expression's printed text (expr_print.c). */
static int int_prec(const OsiExprStore *s, OsiExpr x) {
  if (expr_name_of(s, x)) return P_ATOM;
  const ExprNode *nd = &s->nodes[x];
  switch (nd->kind) {
  case EK_CONST: return nd->val < 0 ? P_UNARY : P_ATOM;
  case EK_SYM: return P_ATOM;
  case EK_MUL:
  case EK_FLOORDIV:
  case EK_MOD: return P_PROD;
  case EK_ADD: /* -m is unary unless m is a product (-a*b), k*m a product */
    if (nd->n == 1 && nd->val == 0)
      return s->coefs[nd->off] == -1 && s->nodes[s->args[nd->off]].kind != EK_MUL ? P_UNARY : P_PROD;
    return P_SUM;
  default: return P_ATOM;
  }
}

static int float_prec(const OsiExprStore *s, OsiExpr e) {
  switch (kind_of(s, e)) {
  case EK_FADD: return P_SUM;
  case EK_FMUL:
  case EK_FDIV: return P_PROD;
  case EK_FNEG: return P_UNARY;
  case EK_FCONST: return expr_fconst_value(s, e) < 0 ? P_UNARY : P_ATOM;
  default: return P_ATOM;
  }
}

/* Section - Printing */

static void put_float(OsiExprStore *s, FBuf *b, OsiExpr e, int implicit, int min_prec, int strict);

static void open_paren(FBuf *b, int prec, int min_prec, int strict) {
  if (prec < min_prec || (strict && prec == min_prec)) expr_text_put(b, "(", 1);
}
static void close_paren(FBuf *b, int prec, int min_prec, int strict) {
  if (prec < min_prec || (strict && prec == min_prec)) expr_text_put(b, ")", 1);
}

static const char *round_name(int kind) {
  return kind == EK_FFLOOR ? "Floor" : kind == EK_FCEIL ? "Ceil" : "Round";
}

/* An integer-like e as the integer it converts (parenthesised as an
 * operand of precedence min_prec; strict: also at equal precedence). */
static void put_int_form(OsiExprStore *s, FBuf *b, OsiExpr e, int min_prec, int strict) {
  int64_t c;
  int k = kind_of(s, e);
  if (k == EK_FCAST) {
    OsiExpr x = arg(s, e, 0);
    int p = int_prec(s, x);
    open_paren(b, p, min_prec, strict);
    puts_(b, osi_expr_str(s, x));
    close_paren(b, p, min_prec, strict);
  } else if (k == EK_FCONST && int_literal(s, e, &c)) {
    char tmp[24];
    snprintf(tmp, sizeof tmp, "%lld", (long long)c);
    int p = c < 0 ? P_UNARY : P_ATOM;
    open_paren(b, p, min_prec, strict);
    puts_(b, tmp);
    close_paren(b, p, min_prec, strict);
  } else {
    puts_(b, round_name(k));
    expr_text_put(b, "(", 1);
    put_float(s, b, arg(s, e, 0), 1, 0, 0);
    expr_text_put(b, ")", 1);
  }
}

/* Operands of + * Min Max: integer-like ones print as integers when some
 * other operand prints as a float; else the first one prints as a float. */
static int explicit_index(const OsiExprStore *s, const OsiExpr *ops, uint32_t n) {
  for (uint32_t i = 0; i < n; i++)
    if (!int_like(s, ops[i])) return -1;
  return 0;
}

static int negative_const(const OsiExprStore *s, OsiExpr e) {
  if (kind_of(s, e) != EK_FCONST) return 0;
  double c = expr_fconst_value(s, e);
  return c < 0 || (c == 0 && signbit(c));
}

/* 1 when e shows as a subtraction in a sum: -x, a negative constant, c*x
 * and c/x with c < 0. The parser negates the magnitude, which gives the
 * same node (negation moves into the constant exactly). */
static int negated_term(const OsiExprStore *s, OsiExpr e) {
  int k = kind_of(s, e);
  if (k == EK_FNEG || negative_const(s, e)) return 1;
  if (k == EK_FMUL || k == EK_FDIV) return negative_const(s, arg(s, e, 0));
  return 0;
}

/* Integer-likeness of what follows the "-" of a negated term. */
static int magnitude_int_like(const OsiExprStore *s, OsiExpr e) {
  int k = kind_of(s, e);
  if (k == EK_FNEG) return int_like(s, arg(s, e, 0));
  if (k == EK_FCONST) {
    double c = -expr_fconst_value(s, e);
    return floor(c) == c && c < 0x1p62;
  }
  return 0;
}

/* A conversion of an integer that prints with a leading minus (Float(-h)):
 * as a later term it would read "+-h". */
static int minus_led(OsiExprStore *s, OsiExpr e) {
  return kind_of(s, e) == EK_FCAST && osi_expr_str(s, arg(s, e, 0))[0] == '-';
}

/* The magnitude of a negated term (after its "-"). No node is created:
 * printing never interns, as callers hold pointers into the store. */
static void put_magnitude(OsiExprStore *s, FBuf *b, OsiExpr e, int implicit, int min_prec) {
  int k = kind_of(s, e);
  if (k == EK_FNEG) {
    /* After a leading "-", an integer form would be negated as an integer
     * (-Floor(z) is the integer -Floor(z)): say Float(Floor(z)). */
    put_float(s, b, arg(s, e, 0), implicit && min_prec != P_UNARY, min_prec, 0);
  } else if (k == EK_FCONST) {
    double c = -expr_fconst_value(s, e);
    if (implicit && floor(c) == c && c < 0x1p62) {
      char tmp[24];
      snprintf(tmp, sizeof tmp, "%lld", (long long)c);
      puts_(b, tmp);
    } else {
      put_float_literal(b, c);
    }
  } else if (k == EK_FMUL || k == EK_FDIV) { /* |c|*y, |c|/y */
    OsiExpr y = arg(s, e, 1);
    double c = -expr_fconst_value(s, arg(s, e, 0));
    if (floor(c) == c && c < 0x1p62 && (k == EK_FDIV || !int_like(s, y))) {
      char tmp[24];
      snprintf(tmp, sizeof tmp, "%lld", (long long)c);
      puts_(b, tmp);
    } else {
      put_float_literal(b, c);
    }
    expr_text_put(b, k == EK_FMUL ? "*" : "/", 1);
    put_float(s, b, y, 1, P_PROD, 1);
  }
}

static void put_sum(OsiExprStore *s, FBuf *b, OsiExpr e) {
  OsiExpr t[2] = {arg(s, e, 0), arg(s, e, 1)};
  int neg[2] = {negated_term(s, t[0]), negated_term(s, t[1])};
  /* Lead with the positive term, or with Float(-h) ("-h+0.5"). */
  if ((neg[0] && !neg[1]) || (!neg[0] && !neg[1] && !minus_led(s, t[0]) && minus_led(s, t[1]))) {
    OsiExpr x = t[0];
    int nx = neg[0];
    t[0] = t[1], t[1] = x;
    neg[0] = neg[1], neg[1] = nx;
  }
  /* The integer-likeness of a term is its magnitude's (the sign is
   * printed apart). */
  int like[2], ex = -1;
  for (int i = 0; i < 2; i++) like[i] = neg[i] ? magnitude_int_like(s, t[i]) : int_like(s, t[i]);
  if (like[0] && like[1]) ex = 0;
  for (int i = 0; i < 2; i++) {
    if (neg[i]) {
      expr_text_put(b, "-", 1);
      /* a leading minus binds tighter than * and /: -(a*b) keeps the tree */
      put_magnitude(s, b, t[i], ex != i, i == 0 ? P_UNARY : P_PROD);
    } else {
      if (i) expr_text_put(b, "+", 1);
      put_float(s, b, t[i], ex != i && !(i == 1 && minus_led(s, t[i])), P_SUM, i == 1);
    }
  }
}

static void put_float(OsiExprStore *s, FBuf *b, OsiExpr e, int implicit, int min_prec, int strict) {
  int k = kind_of(s, e);
  if (int_like(s, e)) {
    if (implicit) {
      put_int_form(s, b, e, min_prec, strict);
    } else if (k == EK_FCONST) {
      int p = float_prec(s, e);
      open_paren(b, p, min_prec, strict);
      put_float_literal(b, expr_fconst_value(s, e));
      close_paren(b, p, min_prec, strict);
    } else {
      puts_(b, "Float(");
      put_int_form(s, b, e, 0, 0);
      expr_text_put(b, ")", 1);
    }
    return;
  }
  int p = float_prec(s, e);
  open_paren(b, p, min_prec, strict);
  switch (k) {
  case EK_FCONST: put_float_literal(b, expr_fconst_value(s, e)); break;
  case EK_FNEG:
    expr_text_put(b, "-", 1);
    put_float(s, b, arg(s, e, 0), 0, P_UNARY, 0);
    break;
  case EK_FADD: put_sum(s, b, e); break;
  case EK_FMUL:
  case EK_FDIV: {
    OsiExpr ops[2] = {arg(s, e, 0), arg(s, e, 1)};
    int ex = k == EK_FDIV ? -1 : explicit_index(s, ops, 2);
    put_float(s, b, ops[0], ex != 0, P_PROD, 0);
    expr_text_put(b, k == EK_FMUL ? "*" : "/", 1);
    put_float(s, b, ops[1], ex != 1, P_PROD, 1);
    break;
  }
  case EK_FMIN:
  case EK_FMAX: {
    uint32_t n = s->nodes[e].n;
    int ex = explicit_index(s, s->args + s->nodes[e].off, n);
    puts_(b, k == EK_FMIN ? "Min(" : "Max(");
    for (uint32_t i = 0; i < n; i++) {
      if (i) expr_text_put(b, ",", 1);
      put_float(s, b, arg(s, e, i), ex != (int)i, 0, 0);
    }
    expr_text_put(b, ")", 1);
    break;
  }
  default: b->oom = 1; break;
  }
  close_paren(b, p, min_prec, strict);
}

/* Text of a float node (as a float) or of a FTOINT atom; malloc'ed, NULL
 * when memory runs out. */
char *expr_float_text(OsiExprStore *s, OsiExpr e) {
  FBuf b = {0};
  if (kind_of(s, e) == EK_FTOINT) {
    OsiExpr z = arg(s, e, 0);
    int k = kind_of(s, z);
    if (k == EK_FFLOOR || k == EK_FCEIL || k == EK_FROUND) {
      puts_(&b, round_name(k));
      z = arg(s, z, 0);
    } else {
      puts_(&b, "Trunc");
    }
    expr_text_put(&b, "(", 1);
    put_float(s, &b, z, 1, 0, 0);
    expr_text_put(&b, ")", 1);
  } else {
    put_float(s, &b, e, 0, 0, 0);
  }
  if (b.oom) {
    free(b.p);
    return NULL;
  }
  return b.p;
}
