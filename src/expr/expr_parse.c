/*
 * Parser for the expression grammar (Python-like, int64, floor semantics):
 *
 *   expr    := term (('+' | '-') term)*
 *   term    := unary (('*' | '//' | '%') unary)*          left-associative
 *   unary   := ('-' | '+') unary | primary      (binds tighter than *, as in
 *                                                Python: -3//2 is (-3)//2)
 *   primary := INTEGER | symbol | FUNC '(' expr (',' expr)* ')' | '(' expr ')'
 *   FUNC    := Max | Min (>= 2 arguments), CeilDiv (2), Broadcast (>= 2),
 *              matched case-insensitively (max, MAX, ceildiv, ...)
 *
 * Whitespace (space, tab, CR, LF, VT, FF) separates tokens and is otherwise
 * ignored; it does not join tokens ("a b" and "/ /" do not parse).
 *
 * Symbols and the quoting rule:
 *   - an identifier [A-Za-z_][A-Za-z0-9_]* is a function name only when the
 *     next token is '('; otherwise it is a symbol of that name, so a
 *     dimension named Max or min round-trips as a bare identifier;
 *   - any other name is written between single quotes, with a backslash
 *     before each ' and \ inside: 'batch size', 'input:0', 'it\'s',
 *     'C:\\dir', '' (the empty name). Any other byte stands for itself
 *     inside quotes; a backslash followed by anything else, or a missing
 *     closing quote, is a syntax error.
 *   The printer (expr_print.c) quotes exactly the names that are not
 *   identifiers, so every printed expression parses back to the same id.
 *
 * Limits: input longer than EXPR_PARSE_MAX_LEN bytes or nesting deeper than
 * EXPR_PARSE_MAX_DEPTH (parentheses, unary signs, function calls) fails; an
 * integer literal outside int64 fails (write INT64_MIN as
 * (-9223372036854775807-1)). Any byte sequence is safe to parse. Failure
 * returns OSI_EXPR_UNKNOWN; a text that parses but whose value is unknown
 * (Broadcast(2,3), overflow, too large) is OSI_EXPR_UNKNOWN too.
 */
#include <stdlib.h>
#include <string.h>

#include "expr/expr_internal.h"

#define EXPR_PARSE_MAX_LEN (64 * 1024)
#define EXPR_PARSE_MAX_DEPTH 200

typedef struct {
  OsiExprStore *s;
  const char *p, *end;
  int depth;
  int err;
} Parser;

static int is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}
static int is_alpha(char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_'; }
static int is_digit(char c) { return c >= '0' && c <= '9'; }

static void skip_ws(Parser *ps) {
  while (ps->p < ps->end && is_space(*ps->p)) ps->p++;
}

/* Consumes token tok (after whitespace) if present. */
static int accept(Parser *ps, const char *tok) {
  skip_ws(ps);
  size_t n = strlen(tok);
  if ((size_t)(ps->end - ps->p) >= n && memcmp(ps->p, tok, n) == 0) {
    ps->p += n;
    return 1;
  }
  return 0;
}

static OsiExpr parse_expr(Parser *ps);

static int name_is(const char *p, size_t n, const char *fn) {
  if (strlen(fn) != n) return 0;
  for (size_t i = 0; i < n; i++) {
    char c = p[i];
    if (c >= 'A' && c <= 'Z') c = (char)(c - 'A' + 'a');
    if (c != fn[i]) return 0;
  }
  return 1;
}

static OsiExpr parse_call(Parser *ps, const char *name, size_t n) {
  enum { F_MAX, F_MIN, F_CEILDIV, F_BROADCAST } f;
  if (name_is(name, n, "max")) f = F_MAX;
  else if (name_is(name, n, "min")) f = F_MIN;
  else if (name_is(name, n, "ceildiv")) f = F_CEILDIV;
  else if (name_is(name, n, "broadcast")) f = F_BROADCAST;
  else {
    ps->err = 1;
    return OSI_EXPR_UNKNOWN;
  }
  OsiExpr acc = OSI_EXPR_UNKNOWN, first = OSI_EXPR_UNKNOWN;
  int nargs = 0;
  do {
    OsiExpr a = parse_expr(ps);
    if (ps->err) return OSI_EXPR_UNKNOWN;
    if (nargs == 0) first = acc = a;
    else if (f == F_MAX) acc = osi_expr_max(ps->s, acc, a);
    else if (f == F_MIN) acc = osi_expr_min(ps->s, acc, a);
    else if (f == F_BROADCAST) acc = osi_expr_broadcast(ps->s, acc, a);
    else if (nargs == 1) acc = osi_expr_ceildiv(ps->s, first, a);
    nargs++;
  } while (accept(ps, ","));
  if (!accept(ps, ")") || nargs < 2 || (f == F_CEILDIV && nargs != 2)) {
    ps->err = 1;
    return OSI_EXPR_UNKNOWN;
  }
  return acc;
}

static OsiExpr parse_quoted(Parser *ps) {
  /* ps->p is just past the opening quote */
  const char *start = ps->p;
  size_t escapes = 0;
  for (;;) {
    if (ps->p == ps->end) break;
    char c = *ps->p++;
    if (c == '\'') {
      size_t n = (size_t)(ps->p - 1 - start);
      if (!escapes) return expr_intern(ps->s, EK_SYM, NULL, 0, NULL, 0, start, n);
      char *buf = malloc(n);
      if (!buf) break;
      size_t o = 0;
      for (const char *q = start; q < ps->p - 1; q++) {
        if (*q == '\\') q++;
        buf[o++] = *q;
      }
      OsiExpr e = expr_intern(ps->s, EK_SYM, NULL, 0, NULL, 0, buf, o);
      free(buf);
      return e;
    }
    if (c == '\\') {
      if (ps->p == ps->end || (*ps->p != '\'' && *ps->p != '\\')) break;
      ps->p++;
      escapes++;
    }
  }
  ps->err = 1;
  return OSI_EXPR_UNKNOWN;
}

static OsiExpr parse_primary(Parser *ps) {
  skip_ws(ps);
  if (ps->p == ps->end) {
    ps->err = 1;
    return OSI_EXPR_UNKNOWN;
  }
  char c = *ps->p;
  if (is_digit(c)) {
    int64_t v = 0;
    while (ps->p < ps->end && is_digit(*ps->p)) {
      if (__builtin_mul_overflow(v, 10, &v) || __builtin_add_overflow(v, *ps->p - '0', &v)) {
        ps->err = 1;
        return OSI_EXPR_UNKNOWN;
      }
      ps->p++;
    }
    if (ps->p < ps->end && is_alpha(*ps->p)) { /* "2a" */
      ps->err = 1;
      return OSI_EXPR_UNKNOWN;
    }
    return osi_expr_const(ps->s, v);
  }
  if (is_alpha(c)) {
    const char *start = ps->p;
    while (ps->p < ps->end && (is_alpha(*ps->p) || is_digit(*ps->p))) ps->p++;
    size_t n = (size_t)(ps->p - start);
    if (accept(ps, "(")) return parse_call(ps, start, n);
    return expr_intern(ps->s, EK_SYM, NULL, 0, NULL, 0, start, n);
  }
  if (c == '\'') {
    ps->p++;
    return parse_quoted(ps);
  }
  if (c == '(') {
    ps->p++;
    OsiExpr e = parse_expr(ps);
    if (!ps->err && !accept(ps, ")")) ps->err = 1;
    return e;
  }
  ps->err = 1;
  return OSI_EXPR_UNKNOWN;
}

static OsiExpr parse_unary(Parser *ps) {
  if (++ps->depth > EXPR_PARSE_MAX_DEPTH) {
    ps->err = 1;
    return OSI_EXPR_UNKNOWN;
  }
  OsiExpr e;
  if (accept(ps, "-")) e = osi_expr_neg(ps->s, parse_unary(ps));
  else if (accept(ps, "+")) e = parse_unary(ps);
  else e = parse_primary(ps);
  ps->depth--;
  return e;
}

static OsiExpr parse_term(Parser *ps) {
  OsiExpr e = parse_unary(ps);
  while (!ps->err) {
    if (accept(ps, "*")) e = osi_expr_mul(ps->s, e, parse_unary(ps));
    else if (accept(ps, "//")) e = osi_expr_floordiv(ps->s, e, parse_unary(ps));
    else if (accept(ps, "%")) e = osi_expr_mod(ps->s, e, parse_unary(ps));
    else break;
  }
  return e;
}

static OsiExpr parse_expr(Parser *ps) {
  if (++ps->depth > EXPR_PARSE_MAX_DEPTH) {
    ps->err = 1;
    return OSI_EXPR_UNKNOWN;
  }
  OsiExpr e = parse_term(ps);
  while (!ps->err) {
    if (accept(ps, "+")) e = osi_expr_add(ps->s, e, parse_term(ps));
    else if (accept(ps, "-")) e = osi_expr_sub(ps->s, e, parse_term(ps));
    else break;
  }
  ps->depth--;
  return e;
}

/* 1 when text is syntactically valid; *out is its (maybe unknown) value. */
static int parse_full(OsiExprStore *s, const char *text, OsiExpr *out) {
  *out = OSI_EXPR_UNKNOWN;
  if (!s || !text) return 0;
  size_t len = 0;
  while (len <= EXPR_PARSE_MAX_LEN && text[len]) len++;
  if (len > EXPR_PARSE_MAX_LEN) return 0;
  Parser ps = {s, text, text + len, 0, 0};
  OsiExpr e = parse_expr(&ps);
  skip_ws(&ps);
  if (ps.err || ps.p != ps.end) return 0;
  *out = e;
  return 1;
}

OsiExpr osi_expr_parse(OsiExprStore *s, const char *text) {
  OsiExpr e;
  parse_full(s, text, &e);
  return e;
}

OsiExpr osi_expr_from_dim_param(OsiExprStore *s, const char *text) {
  if (!s || !text || !*text) return OSI_EXPR_UNKNOWN;
  OsiExpr e;
  if (parse_full(s, text, &e)) return e;
  return osi_expr_symbol(s, text);
}
