/*
 * Canonical printer. The text of an id is built once and cached in the
 * store; children are printed through the cache too.
 *
 * Style (no spaces anywhere):
 *   sums       terms in canonical order (higher degree first), constant
 *              last, but a positive term (or else a positive constant) is
 *              moved to the front: a+b, 2*a-b, b-a, 3-a, -a-b, a*b+a+1
 *   products   factors joined by '*', coefficient first: 4104*a*b, a*a;
 *              a // or % factor is parenthesised: 2*(x//3), a*(b%2),
 *              and so is a negated one: -(x//2); but a factor
 *              (N+d-1)//d is CeilDiv(N,d): 4*CeilDiv(h,4), -CeilDiv(x,3)
 *   // and %   numerator parenthesised only when it is a sum of two or more
 *              parts or starts with a minus sign ((a+b)//2, 2*x//3,
 *              (-x)%3), divisor unless it is a symbol, a constant or a
 *              function call (x//(2*y)); so no printed text has "+-"
 *   functions  Max(a,b,c), Min(...), CeilDiv(a,b), Broadcast(a,b)
 *   symbols    bare when an identifier, otherwise quoted (see expr_parse.c)
 *   INT64_MIN  (-9223372036854775807-1), so that every text parses back
 *   names      while names are in use (expr_naming.c), a named id prints
 *              as its name wherever it is printed as one unit
 *   factors    with osi_expr_print_factors_alone on (the cost model's
 *   alone      texts), a (N+d-1)//d factor prints as alone, in
 *              parentheses: 4*((h+3)//4), as any other // factor
 * Every printed text parses back (osi_expr_parse) to the same id (with
 * names: once each name is replaced by its definition).
 */
#include <stdlib.h>
#include <string.h>

#include "expr/expr_internal.h"

typedef ExprText Buf;

void expr_text_put(ExprText *b, const char *s, size_t len) {
  if (b->oom) return;
  if (b->n + len + 1 > b->cap) {
    size_t cap = b->cap ? b->cap : 64;
    while (cap < b->n + len + 1) cap *= 2;
    char *p = realloc(b->p, cap);
    if (!p) {
      b->oom = 1;
      return;
    }
    b->p = p;
    b->cap = cap;
  }
  memcpy(b->p + b->n, s, len);
  b->n += len;
  b->p[b->n] = 0;
}

static void puts_(Buf *b, const char *s) { expr_text_put(b, s, strlen(s)); }

/* Decimal magnitude of v (v != INT64_MIN) or the INT64_MIN spelling. */
static void put_int(Buf *b, int64_t v) {
  if (v == INT64_MIN) {
    puts_(b, "(-9223372036854775807-1)");
    return;
  }
  char tmp[24];
  int n = 0;
  uint64_t u = v < 0 ? (uint64_t)(-v) : (uint64_t)v;
  do {
    tmp[n++] = (char)('0' + u % 10);
    u /= 10;
  } while (u);
  if (v < 0) expr_text_put(b, "-", 1);
  while (n) expr_text_put(b, &tmp[--n], 1);
}

static int is_ident(const char *s) {
  if (!((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') || *s == '_')) return 0;
  for (s++; *s; s++)
    if (!((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') ||
          *s == '_'))
      return 0;
  return 1;
}

static void put_symbol(Buf *b, const char *name) {
  if (is_ident(name)) {
    puts_(b, name);
    return;
  }
  expr_text_put(b, "'", 1);
  for (const char *p = name; *p; p++) {
    if (*p == '\'' || *p == '\\') expr_text_put(b, "\\", 1);
    expr_text_put(b, p, 1);
  }
  expr_text_put(b, "'", 1);
}

static int is_divmod(const OsiExprStore *s, OsiExpr e) {
  int k = expr_kind(s, e);
  return k == EK_FLOORDIV || k == EK_MOD;
}

static void put_sum_const(OsiExprStore *s, Buf *b, OsiExpr e, int64_t c);

/* (N + d-1)//d with N not a constant, as CeilDiv(N,d): the reading of a
 * padded or strided size where it is a factor (4*CeilDiv(h,4),
 * batch*CeilDiv(h,7)); it parses back to the same id. */
static int put_ceildiv(OsiExprStore *s, Buf *b, OsiExpr m) {
  int64_t d;
  if (expr_kind(s, m) != EK_FLOORDIV || !osi_expr_is_const(s, expr_args(s, m)[1], &d) || d < 2)
    return 0;
  OsiExpr n = expr_args(s, m)[0];
  if (expr_kind(s, n) != EK_ADD || expr_node(s, n)->val != d - 1 || expr_name_of(s, n)) return 0;
  puts_(b, "CeilDiv(");
  put_sum_const(s, b, n, 0);
  expr_text_put(b, ",", 1);
  put_int(b, d);
  expr_text_put(b, ")", 1);
  return 1;
}

/* A monomial as a product operand: // and % atoms in parentheses. */
static void put_factor(OsiExprStore *s, Buf *b, OsiExpr m) {
  const char *name = expr_name_of(s, m);
  if (name) {
    puts_(b, name);
    return;
  }
  if (!s->factors_alone && put_ceildiv(s, b, m)) return;
  if (is_divmod(s, m)) {
    expr_text_put(b, "(", 1);
    puts_(b, osi_expr_str(s, m));
    expr_text_put(b, ")", 1);
  } else {
    puts_(b, osi_expr_str(s, m));
  }
}

/* One term k*m of a sum; `first` selects unary rather than binary sign. */
static void put_term(OsiExprStore *s, Buf *b, int64_t k, OsiExpr m, int first) {
  if (k == INT64_MIN) {
    if (!first) expr_text_put(b, "+", 1);
    put_int(b, k);
    expr_text_put(b, "*", 1);
    put_factor(s, b, m);
    return;
  }
  if (k < 0) expr_text_put(b, "-", 1);
  else if (!first) expr_text_put(b, "+", 1);
  uint64_t a = k < 0 ? (uint64_t)(-k) : (uint64_t)k;
  if (a != 1) {
    put_int(b, (int64_t)a);
    expr_text_put(b, "*", 1);
    put_factor(s, b, m);
  } else if (k < 0 && first) {
    put_factor(s, b, m);
  } else {
    puts_(b, osi_expr_str(s, m));
  }
}

static void put_const_part(Buf *b, int64_t c, int first) {
  if (c == INT64_MIN) {
    if (!first) expr_text_put(b, "+", 1);
    put_int(b, c);
  } else if (c < 0 || first) {
    put_int(b, c);
  } else {
    expr_text_put(b, "+", 1);
    put_int(b, c);
  }
}

static void put_sum(OsiExprStore *s, Buf *b, OsiExpr e) { put_sum_const(s, b, e, expr_node(s, e)->val); }

/* The sum e with its constant replaced by c. */
static void put_sum_const(OsiExprStore *s, Buf *b, OsiExpr e, int64_t c) {
  const ExprNode *nd = expr_node(s, e);
  uint32_t n = nd->n, lead = n;
  /* copy: printing children never interns, but keep the pointers local */
  const OsiExpr *m = expr_args(s, e);
  const int64_t *k = expr_coefs(s, e);
  for (uint32_t i = 0; i < n; i++)
    if (k[i] > 0) {
      lead = i;
      break;
    }
  int const_first = lead == n && c > 0;
  int first = 1;
  if (const_first) {
    put_const_part(b, c, 1);
    first = 0;
  } else if (lead < n) {
    put_term(s, b, k[lead], m[lead], 1);
    first = 0;
  }
  for (uint32_t i = 0; i < n; i++) {
    if (i == lead) continue;
    put_term(s, b, k[i], m[i], first);
    first = 0;
  }
  if (c != 0 && !const_first) put_const_part(b, c, first);
}

static void put_div_operand(OsiExprStore *s, Buf *b, OsiExpr e, int divisor) {
  const ExprNode *nd = expr_node(s, e);
  int paren;
  if (expr_name_of(s, e))
    paren = 0;
  else if (divisor)
    paren = !(nd->kind == EK_SYM || (nd->kind == EK_CONST && nd->val >= 0) ||
              nd->kind == EK_CEILDIV || nd->kind >= EK_MAX);
  else /* a sum, or a leading minus sign: (-a)%3, never a+-a%3 in a sum */
    paren = (nd->kind == EK_ADD && nd->n + (nd->val != 0) >= 2) || osi_expr_str(s, e)[0] == '-';
  if (paren) expr_text_put(b, "(", 1);
  puts_(b, osi_expr_str(s, e));
  if (paren) expr_text_put(b, ")", 1);
}

static void put_node(OsiExprStore *s, Buf *b, OsiExpr e) {
  const ExprNode *nd = expr_node(s, e);
  uint32_t n = nd->n;
  if (nd->kind == EK_FTOINT || expr_is_float_kind(nd->kind)) { /* expr_print_float.c */
    char *text = expr_float_text(s, e);
    if (!text) b->oom = 1;
    else puts_(b, text);
    free(text);
    return;
  }
  switch (nd->kind) {
  case EK_CONST: put_int(b, nd->val); return;
  case EK_SYM: put_symbol(b, nd->name); return;
  case EK_MUL:
    for (uint32_t i = 0; i < n; i++) {
      if (i) expr_text_put(b, "*", 1);
      put_factor(s, b, expr_args(s, e)[i]);
    }
    return;
  case EK_ADD: put_sum(s, b, e); return;
  case EK_FLOORDIV:
  case EK_MOD:
    put_div_operand(s, b, expr_args(s, e)[0], 0);
    puts_(b, nd->kind == EK_FLOORDIV ? "//" : "%");
    put_div_operand(s, b, expr_args(s, e)[1], 1);
    return;
  default: {
    static const char *names[] = {"CeilDiv", "Max", "Min", "Broadcast"};
    puts_(b, names[nd->kind - EK_CEILDIV]);
    expr_text_put(b, "(", 1);
    for (uint32_t i = 0; i < n; i++) {
      if (i) expr_text_put(b, ",", 1);
      puts_(b, osi_expr_str(s, expr_args(s, e)[i]));
    }
    expr_text_put(b, ")", 1);
    return;
  }
  }
}

char *expr_print_node(OsiExprStore *s, OsiExpr e) {
  Buf b = {0};
  put_node(s, &b, e);
  if (b.oom || !b.p) {
    free(b.p);
    return NULL;
  }
  return b.p;
}

void osi_expr_print_factors_alone(OsiExprStore *s, int on) {
  if (!s || (on != 0) == s->factors_alone) return;
  s->factors_alone = on != 0;
  if (on) return;
  for (uint32_t i = 0; i < s->nalone; i++) free(s->alone_strs[i]);
  free(s->alone_strs);
  s->alone_strs = NULL;
  s->nalone = 0;
}

/* Where the text of e is kept while factors print alone (NULL: no memory). */
static char **alone_slot(OsiExprStore *s, OsiExpr e) {
  if (e >= s->nalone) {
    uint32_t n = s->nalone;
    while (n <= e) n = n == 0 ? (s->nnodes > e ? s->nnodes : e + 1) : n > UINT32_MAX / 2 ? e + 1 : 2 * n;
    char **t = realloc(s->alone_strs, (size_t)n * sizeof *t);
    if (!t) return NULL;
    memset(t + s->nalone, 0, (size_t)(n - s->nalone) * sizeof *t);
    s->alone_strs = t;
    s->nalone = n;
  }
  return &s->alone_strs[e];
}

const char *osi_expr_str(OsiExprStore *s, OsiExpr e) {
  if (!s || e == OSI_EXPR_UNKNOWN || e >= s->nnodes) return "?";
  char **slot = &s->strs[e];
  if (s->naming_on && s->factors_alone) {
    const char *name = expr_name_of(s, e);
    if (name) return name;
  }
  if (s->factors_alone) {
    slot = alone_slot(s, e);
    if (!slot) return "?";
    if (*slot) return *slot;
    char *t = expr_print_node(s, e);
    slot = alone_slot(s, e); /* printing the children may have grown the slots */
    if (!slot) {
      free(t);
      return "?";
    }
    *slot = t;
    return t ? t : "?";
  }
  if (s->naming_on) { /* expr_naming.c */
    const char *name = expr_name_of(s, e);
    if (name) return name;
    slot = expr_named_slot(s, e);
    if (!slot) { /* no memory for its slot: printed without the names */
      s->naming_on = 0;
      const char *t = osi_expr_str(s, e);
      s->naming_on = 1;
      return t;
    }
  }
  if (*slot) return *slot;
  char *t = expr_print_node(s, e);
  /* Printing the children may have grown the named slots (ids newer than
   * the names get theirs on first print): the slot is looked up again. */
  if (s->naming_on) slot = expr_named_slot(s, e);
  if (!slot) {
    free(t);
    return "?";
  }
  *slot = t;
  return t ? t : "?";
}
