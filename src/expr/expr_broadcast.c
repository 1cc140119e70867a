/*
 * Broadcast beyond its canonical form (expr_minmax.c builds it): the
 * operands it drops because another one is what the Broadcast is wherever
 * it is defined, the memo of its results, and merging operands a caller
 * knows to be equal (sizes a model requires equal).
 */
#include <stdlib.h>
#include <string.h>

#include "expr/expr_internal.h"

/* Section - Operands another one absorbs */

/* 1 when y is 1 wherever the symbol x is 1 (y with x = 1 simplifies to 1).
 * Then Broadcast(x, y) is x wherever it is defined: x = 0 gives 0 or an
 * error, x >= 2 gives x or an error, and x = 1 gives y, which is 1
 * (T5's position_bias[:, :, -seq:] has seq+past-past*Min(seq,1) rows:
 * Broadcast(seq, that) is seq). */
typedef struct OneAt {
  const char *x;
  int64_t others;
} OneAt;

/* (The store holds one symbol node, and so one copy of its name, per name:
 * x is found by its name's address.) */
static int one_at_lookup(void *user, const char *name, int64_t *value) {
  const OneAt *o = user;
  *value = name == o->x ? 1 : o->others;
  return 1;
}

/* 1 when node x (a symbol) occurs in e. */
static int mentions_node(const OsiExprStore *s, OsiExpr e, OsiExpr x) {
  if (e == x) return 1;
  const ExprNode *nd = &s->nodes[e];
  for (uint32_t i = 0; i < nd->n; i++)
    if (mentions_node(s, s->args[nd->off + i], x)) return 1;
  return 0;
}

static int one_where_one(OsiExprStore *s, OsiExpr y, OsiExpr x) {
  if (expr_kind(s, x) != EK_SYM || expr_kind(s, y) == EK_SYM || expr_kind(s, y) == EK_CONST) return 0;
  /* y without x is y at x = 1, not the constant 1 */
  if (!mentions_node(s, y, x)) return 0;
  /* Most candidates are not 1 at x = 1 with the other sizes small or past
   * any buffer a model clips to (Min(p+x,64)-Min(p,64)): evaluating there is
   * far cheaper than the substitution that proves it. */
  for (int k = 0; k < 2; k++) {
    OneAt at = {expr_node(s, x)->name, k ? 1000003 : 3};
    int64_t v;
    if (osi_expr_eval(s, y, one_at_lookup, &at, &v) == 0 && v != 1) return 0;
  }
  OsiExpr one = osi_expr_const(s, 1);
  return osi_expr_substitute(s, y, &x, &one, 1) == one;
}

/* 1 when m is Max(x, c) with a constant c <= 0: equal to x wherever x >= 0,
 * and Broadcast(m, x) of a negative x is an error whatever m is (a conv
 * output (n-k)//s+1 beside its Max(...,0) after a Slice [:-1]). */
static int nonneg_part(const OsiExprStore *s, OsiExpr m, OsiExpr x) {
  if (expr_kind(s, m) != EK_MAX || expr_node(s, m)->n != 2) return 0;
  const OsiExpr *args = expr_args(s, m);
  int64_t c;
  return (args[0] == x && osi_expr_is_const(s, args[1], &c) && c <= 0) ||
         (args[1] == x && osi_expr_is_const(s, args[0], &c) && c <= 0);
}

int expr_broadcast_drops(OsiExprStore *s, OsiExpr y, OsiExpr x) {
  return one_where_one(s, y, x) || nonneg_part(s, x, y);
}

/* Section - Broadcasts of sizes known equal */

/* The Broadcast subterms of e (integer nodes only: floats hold none that
 * matter), each once; at most cap. */
static void find_broadcasts(const OsiExprStore *s, OsiExpr e, OsiExpr *out, uint32_t *n, uint32_t cap) {
  int kind = s->nodes[e].kind;
  if (kind == EK_CONST || kind == EK_SYM || expr_is_float_kind(kind) || kind == EK_FTOINT) return;
  for (uint32_t i = 0; i < s->nodes[e].n; i++) find_broadcasts(s, s->args[s->nodes[e].off + i], out, n, cap);
  if (kind != EK_BROADCAST) return;
  for (uint32_t i = 0; i < *n; i++)
    if (out[i] == e) return;
  if (*n < cap) out[(*n)++] = e;
}

static int by_id(const void *a, const void *b) {
  OsiExpr x = *(const OsiExpr *)a, y = *(const OsiExpr *)b;
  return x < y ? -1 : x > y;
}

OsiExpr osi_expr_merge_broadcasts(OsiExprStore *s, OsiExpr e, OsiExprSameFn same, void *user) {
  if (!s || e == OSI_EXPR_UNKNOWN || e >= s->nnodes || !same) return e;
  OsiExpr list[64], from[64], to[64];
  uint32_t nb = 0, nmap = 0;
  find_broadcasts(s, e, list, &nb, 64);
  if (!nb) return e;
  /* inner ones first (a subterm has a smaller id), so an outer Broadcast
   * sees its operands already merged */
  qsort(list, nb, sizeof *list, by_id);
  for (uint32_t b = 0; b < nb; b++) {
    const ExprNode *nd = &s->nodes[list[b]];
    OsiExpr kept[2 * 64], acc = OSI_EXPR_UNKNOWN;
    uint32_t nk = 0, n = nd->n < 2 * 64 ? nd->n : 0;
    int changed = 0;
    for (uint32_t i = 0; i < n; i++) {
      OsiExpr a = s->args[s->nodes[list[b]].off + i];
      OsiExpr m = nmap ? osi_expr_substitute(s, a, from, to, nmap) : a;
      if (m == OSI_EXPR_UNKNOWN) m = a;
      changed |= m != a;
      uint32_t k = 0;
      while (k < nk && kept[k] != m && !same(user, kept[k], m)) k++;
      if (k < nk) {
        changed = 1;
        continue;
      }
      kept[nk++] = m;
    }
    if (!changed) continue;
    for (uint32_t k = 0; k < nk; k++) acc = k ? osi_expr_broadcast(s, acc, kept[k]) : kept[k];
    if (acc == OSI_EXPR_UNKNOWN || acc == list[b]) continue;
    from[nmap] = list[b];
    to[nmap++] = acc;
  }
  if (!nmap) return e;
  OsiExpr r = osi_expr_substitute(s, e, from, to, nmap);
  return r == OSI_EXPR_UNKNOWN ? e : r;
}
