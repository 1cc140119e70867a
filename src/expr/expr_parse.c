/*
 * Parser for the expression grammar (Python-like, int64, floor semantics):
 *
 *   expr    := term (('+' | '-') term)*
 *   unary   := ('-' | '+') unary | primary      (binds tighter than *, as in
 *                                                Python: -3//2 is (-3)//2)
 *   term    := unary (('*' | '//' | '%' | '/') unary)*    left-associative
 *   primary := INTEGER | FLOAT | symbol | FUNC '(' expr (',' expr)* ')'
 *            | '(' expr ')'
 *   FUNC    := Max | Min (>= 2 arguments), CeilDiv (2), Broadcast (>= 2),
 *              Floor | Ceil | Round | Trunc | Float (1), matched
 *              case-insensitively (max, MAX, ceildiv, ...)
 *   FLOAT   := DIGITS '.' DIGITS* EXPONENT? | DIGITS EXPONENT,
 *              EXPONENT := ('e' | 'E') ('+' | '-')? DIGITS
 *
 * Types (expr_float.c): every subexpression is an integer or a float32,
 * decided by the syntax alone. FLOAT literals (rounded to float32), '/',
 * Float(x) and any + - * Max Min with a float operand are float; integer
 * operands of a float operation are converted to float32. Floor, Ceil,
 * Round (half to even) and Trunc take a float (or a converted integer) and
 * are integers. // % CeilDiv Broadcast need integer operands: a float
 * operand there is a syntax error.
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
 * EXPR_PARSE_MAX_DEPTH (parentheses, unary signs, function calls) fails, and
 * so does a text whose simplification takes more than OSI_EXPR_WORK_PER_TEXT
 * steps of the work budget (see expr.h); an
 * integer literal outside int64 fails (write INT64_MIN as
 * (-9223372036854775807-1)). Any byte sequence is safe to parse. Failure
 * returns OSI_EXPR_UNKNOWN; a text that parses but whose value is unknown
 * (Broadcast(2,3), overflow, too large) is OSI_EXPR_UNKNOWN too.
 */
#include <stdlib.h>
#include <string.h>

#include "base/parse_double.h"
#include "expr/expr_internal.h"

#define EXPR_PARSE_MAX_LEN (64 * 1024)
/* Deep enough for every text the printer writes: an expression has at most
 * OSI_EXPR_MAX_NODES nodes, so at most that many nested operands, each
 * costing two levels (a parenthesised sum: parse_expr and parse_unary) plus
 * a sign; float sums, which do not reassociate, print right-nested as
 * a+(b+(c+...)). Recursion stays bounded (~2k frames). */
#define EXPR_PARSE_MAX_DEPTH (4 * OSI_EXPR_MAX_NODES + 16)

typedef struct {
  OsiExprStore *s;
  const char *p, *end;
  int depth;
  int err;
} Parser;

/* A parsed subexpression and its syntactic type (the value may be
 * OSI_EXPR_UNKNOWN, whose type is still the syntax's). */
typedef struct {
  OsiExpr e;
  int f; /* float */
} PV;

static const PV PV_ERR = {OSI_EXPR_UNKNOWN, 0};

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

static PV fail(Parser *ps) {
  ps->err = 1;
  return PV_ERR;
}

static PV pv(OsiExpr e, int f) {
  PV r = {e, f};
  return r;
}

static PV parse_expr(Parser *ps);

static int name_is(const char *p, size_t n, const char *fn) {
  if (strlen(fn) != n) return 0;
  for (size_t i = 0; i < n; i++) {
    char c = p[i];
    if (c >= 'A' && c <= 'Z') c = (char)(c - 'A' + 'a');
    if (c != fn[i]) return 0;
  }
  return 1;
}

/* Binary operation on typed operands: float when either is. */
static PV arith(Parser *ps, char op, PV a, PV b) {
  OsiExprStore *s = ps->s;
  if (ps->err) return PV_ERR;
  if (op == '/' || a.f || b.f) {
    switch (op) {
    case '+': return pv(osi_expr_fadd(s, a.e, b.e), 1);
    case '-': return pv(osi_expr_fsub(s, a.e, b.e), 1);
    case '*': return pv(osi_expr_fmul(s, a.e, b.e), 1);
    case '/': return pv(osi_expr_fdiv(s, a.e, b.e), 1);
    default: return fail(ps); /* // and % are integer operations */
    }
  }
  switch (op) {
  case '+': return pv(osi_expr_add(s, a.e, b.e), 0);
  case '-': return pv(osi_expr_sub(s, a.e, b.e), 0);
  case '*': return pv(osi_expr_mul(s, a.e, b.e), 0);
  case 'd': return pv(osi_expr_floordiv(s, a.e, b.e), 0);
  default: return pv(osi_expr_mod(s, a.e, b.e), 0);
  }
}

static PV parse_call(Parser *ps, const char *name, size_t n) {
  enum { F_MAX, F_MIN, F_CEILDIV, F_BROADCAST, F_FLOOR, F_CEIL, F_ROUND, F_TRUNC, F_FLOAT } f;
  static const char *const names[] = {"max",   "min",  "ceildiv", "broadcast", "floor",
                                      "ceil",  "round", "trunc",  "float"};
  size_t k = 0;
  while (k < sizeof names / sizeof names[0] && !name_is(name, n, names[k])) k++;
  if (k == sizeof names / sizeof names[0]) return fail(ps);
  f = (int)k;
  /* The arguments first: Max and Min are float when any argument is. */
  PV local[8], *args = local;
  size_t nargs = 0, cap = 8;
  int any_float = 0;
  do {
    PV a = parse_expr(ps);
    if (ps->err) break;
    if (nargs == cap) {
      PV *grown = malloc(2 * cap * sizeof *grown);
      if (!grown) {
        ps->err = 1;
        break;
      }
      memcpy(grown, args, nargs * sizeof *args);
      if (args != local) free(args);
      args = grown;
      cap *= 2;
    }
    args[nargs++] = a;
    any_float |= a.f;
  } while (accept(ps, ","));
  PV r = PV_ERR;
  int unary = f >= F_FLOOR;
  if (ps->err || !accept(ps, ")") || (unary ? nargs != 1 : nargs < 2 || (f == F_CEILDIV && nargs != 2)) ||
      (any_float && (f == F_CEILDIV || f == F_BROADCAST))) {
    ps->err = 1;
  } else {
    OsiExprStore *s = ps->s;
    OsiExpr a0 = args[0].e;
    r.f = f == F_FLOAT || (any_float && (f == F_MAX || f == F_MIN));
    switch (f) {
    case F_FLOOR: r.e = osi_expr_ftoint(s, osi_expr_ffloor(s, a0)); break;
    case F_CEIL: r.e = osi_expr_ftoint(s, osi_expr_fceil(s, a0)); break;
    case F_ROUND: r.e = osi_expr_ftoint(s, osi_expr_fround(s, a0)); break;
    case F_TRUNC: r.e = osi_expr_ftoint(s, a0); break;
    case F_FLOAT: r.e = osi_expr_to_float(s, a0); break;
    case F_CEILDIV: r.e = osi_expr_ceildiv(s, a0, args[1].e); break;
    default:
      r.e = a0;
      for (size_t i = 1; i < nargs; i++) {
        OsiExpr b = args[i].e;
        if (f == F_MAX) r.e = r.f ? osi_expr_fmax(s, r.e, b) : osi_expr_max(s, r.e, b);
        else if (f == F_MIN) r.e = r.f ? osi_expr_fmin(s, r.e, b) : osi_expr_min(s, r.e, b);
        else r.e = osi_expr_broadcast(s, r.e, b);
      }
      break;
    }
  }
  if (args != local) free(args);
  return r;
}

static PV parse_quoted(Parser *ps) {
  /* ps->p is just past the opening quote */
  const char *start = ps->p;
  size_t escapes = 0;
  for (;;) {
    if (ps->p == ps->end) break;
    char c = *ps->p++;
    if (c == '\'') {
      size_t n = (size_t)(ps->p - 1 - start);
      if (!escapes) return pv(expr_intern(ps->s, EK_SYM, NULL, 0, NULL, 0, start, n), 0);
      char *buf = malloc(n);
      if (!buf) break;
      size_t o = 0;
      for (const char *q = start; q < ps->p - 1; q++) {
        if (*q == '\\') q++;
        buf[o++] = *q;
      }
      OsiExpr e = expr_intern(ps->s, EK_SYM, NULL, 0, NULL, 0, buf, o);
      free(buf);
      return pv(e, 0);
    }
    if (c == '\\') {
      if (ps->p == ps->end || (*ps->p != '\'' && *ps->p != '\\')) break;
      ps->p++;
      escapes++;
    }
  }
  return fail(ps);
}

/* A number: INTEGER, or FLOAT (a '.' or an exponent), rounded to float32. */
static PV parse_number(Parser *ps) {
  const char *start = ps->p;
  int64_t v = 0;
  int overflow = 0, is_float = 0;
  while (ps->p < ps->end && is_digit(*ps->p)) {
    if (__builtin_mul_overflow(v, 10, &v) || __builtin_add_overflow(v, *ps->p - '0', &v)) overflow = 1;
    ps->p++;
  }
  if (ps->p < ps->end && *ps->p == '.') {
    is_float = 1;
    ps->p++;
    while (ps->p < ps->end && is_digit(*ps->p)) ps->p++;
  }
  if (ps->p < ps->end && (*ps->p == 'e' || *ps->p == 'E')) {
    const char *q = ps->p + 1;
    if (q < ps->end && (*q == '+' || *q == '-')) q++;
    if (q < ps->end && is_digit(*q)) {
      is_float = 1;
      while (q < ps->end && is_digit(*q)) q++;
      ps->p = q;
    }
  }
  if (ps->p < ps->end && (is_alpha(*ps->p) || *ps->p == '.')) return fail(ps); /* "2a", "1.2.3" */
  if (!is_float) return overflow ? fail(ps) : pv(osi_expr_const(ps->s, v), 0);
  size_t n = (size_t)(ps->p - start);
  char buf[64];
  char *text = n < sizeof buf ? buf : malloc(n + 1);
  if (!text) return fail(ps);
  memcpy(text, start, n);
  text[n] = 0;
  /* Decimal -> double -> float32, as JavaScript's Math.fround(Number(text)):
   * both evaluators read a literal the same way (osi_parse_double rounds as
   * strtod and Number do), and the printer only writes literals that come
   * back exact this way. */
  float x = (float)osi_parse_double(text, NULL);
  if (text != buf) free(text);
  return pv(osi_expr_fconst(ps->s, (double)x), 1);
}

static PV parse_primary(Parser *ps) {
  skip_ws(ps);
  if (ps->p == ps->end) return fail(ps);
  char c = *ps->p;
  if (is_digit(c)) return parse_number(ps);
  if (is_alpha(c)) {
    const char *start = ps->p;
    while (ps->p < ps->end && (is_alpha(*ps->p) || is_digit(*ps->p))) ps->p++;
    size_t n = (size_t)(ps->p - start);
    if (accept(ps, "(")) return parse_call(ps, start, n);
    return pv(expr_intern(ps->s, EK_SYM, NULL, 0, NULL, 0, start, n), 0);
  }
  if (c == '\'') {
    ps->p++;
    return parse_quoted(ps);
  }
  if (c == '(') {
    ps->p++;
    PV e = parse_expr(ps);
    if (!ps->err && !accept(ps, ")")) return fail(ps);
    return e;
  }
  return fail(ps);
}

static PV parse_unary(Parser *ps) {
  if (++ps->depth > EXPR_PARSE_MAX_DEPTH) return fail(ps);
  PV e;
  if (accept(ps, "-")) {
    e = parse_unary(ps);
    e.e = e.f ? osi_expr_fneg(ps->s, e.e) : osi_expr_neg(ps->s, e.e);
  } else if (accept(ps, "+")) {
    e = parse_unary(ps);
  } else {
    e = parse_primary(ps);
  }
  ps->depth--;
  return e;
}

/* Atoms of an integer monomial with coefficient 1 (an atom: a symbol or a
 * function node, or a product of them) appended to chain; 0 when e is
 * none, or they would be too many. */
static int chain_atoms(const OsiExprStore *s, PV e, OsiExpr *chain, uint32_t *n) {
  if (e.f || e.e == OSI_EXPR_UNKNOWN) return 0;
  const ExprNode *nd = expr_node(s, e.e);
  int mul = nd->kind == EK_MUL;
  if (!mul && nd->kind != EK_SYM && !expr_is_func(nd->kind)) return 0;
  uint32_t k = mul ? nd->n : 1;
  if (*n + k > OSI_EXPR_MAX_NODES) return 0;
  if (mul) memcpy(chain + *n, expr_args(s, e.e), k * sizeof *chain);
  else chain[*n] = e.e;
  *n += k;
  return 1;
}

static PV parse_term(Parser *ps) {
  PV e = parse_unary(ps);
  /* A chain of monomials a*b*c*... (2,000 inputs with products of 64
   * symbols) is multiplied in one go: one by one, each product copies,
   * compares and interns the atoms of the one before (quadratic). */
  OsiExpr chain[OSI_EXPR_MAX_NODES];
  uint32_t n = 0;
  int chaining = 0;
  while (!ps->err) {
    int op = accept(ps, "*") ? '*' : accept(ps, "//") ? 'd' : accept(ps, "/") ? '/' : accept(ps, "%") ? '%' : 0;
    PV b = op ? parse_unary(ps) : PV_ERR;
    if (op == '*' && !ps->err) {
      uint32_t before = n;
      if ((chaining || chain_atoms(ps->s, e, chain, &n)) && chain_atoms(ps->s, b, chain, &n)) {
        chaining = 1;
        continue;
      }
      n = before;
    }
    if (chaining) { /* the chain ends here */
      e.e = expr_atoms_product(ps->s, chain, n);
      chaining = 0;
      n = 0;
    }
    if (!op) break;
    e = arith(ps, (char)op, e, b);
  }
  if (chaining && !ps->err) e.e = expr_atoms_product(ps->s, chain, n);
  return e;
}

static PV parse_expr(Parser *ps) {
  if (++ps->depth > EXPR_PARSE_MAX_DEPTH) return fail(ps);
  PV e = parse_term(ps);
  while (!ps->err) {
    if (accept(ps, "+")) e = arith(ps, '+', e, parse_term(ps));
    else if (accept(ps, "-")) e = arith(ps, '-', e, parse_term(ps));
    else break;
  }
  ps->depth--;
  return e;
}

/* How text reads (OSI_EXPR_TEXT_*, OSI_EXPR_TEXT_INT or _FLOAT when it is
 * syntactically valid); *out its (maybe unknown) value. One operation of
 * the work budget: a text whose simplification runs out of it is no
 * expression (its value would be an unknown in place of a real size). */
static OsiExprText parse_full(OsiExprStore *s, const char *text, OsiExpr *out) {
  *out = OSI_EXPR_UNKNOWN;
  if (!s || !text) return OSI_EXPR_TEXT_SYNTAX;
  size_t len = 0;
  while (len <= EXPR_PARSE_MAX_LEN && text[len]) len++;
  if (len > EXPR_PARSE_MAX_LEN) return OSI_EXPR_TEXT_SYNTAX;
  Parser ps = {s, text, text + len, 0, 0};
  OsiExprWork w;
  osi_expr_work_begin(s, &w, OSI_EXPR_WORK_PER_TEXT);
  PV e = parse_expr(&ps);
  int out_of_work = osi_expr_work_end(s, &w);
  skip_ws(&ps);
  if (ps.err || ps.p != ps.end) return OSI_EXPR_TEXT_SYNTAX;
  if (out_of_work) return OSI_EXPR_TEXT_OVER_BUDGET;
  *out = e.e;
  return e.f ? OSI_EXPR_TEXT_FLOAT : OSI_EXPR_TEXT_INT;
}

OsiExprText osi_expr_parse_text(OsiExprStore *s, const char *text, OsiExpr *out) {
  OsiExpr e;
  OsiExprText r = parse_full(s, text, &e);
  if (out) *out = e;
  return r;
}

OsiExpr osi_expr_parse(OsiExprStore *s, const char *text) {
  OsiExpr e;
  parse_full(s, text, &e);
  return e;
}

OsiExpr osi_expr_from_dim_param(OsiExprStore *s, const char *text) {
  if (!s || !text || !*text) return OSI_EXPR_UNKNOWN;
  OsiExpr e;
  /* A float expression is no size: such a text stays a name. */
  if (parse_full(s, text, &e) == OSI_EXPR_TEXT_INT) return e;
  return osi_expr_symbol(s, text);
}
