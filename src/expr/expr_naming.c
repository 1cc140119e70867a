/*
 * Named derived sizes ("definitions"): an ordered list name = expression
 * chosen for the texts of a result (dims, contents, constraints), so that a
 * size computed in float or a subterm repeated through a long dim prints as
 * one short name, and the same name everywhere.
 *
 *   (a) every integer atom computed from a float form (Floor/Ceil/Round/
 *       Trunc of a float expression, an FTOINT node) that occurs in a text
 *       is named: floor_1 = Floor(h*Min(96*(1/Min(h,w)),...));
 *   (b) then, while some text (or definition) still prints over NAME_LONG
 *       characters, the integer subterm that shortens the long texts most
 *       (its printed occurrences in them times the characters its name
 *       saves) is named: size_2 = 16*CeilDiv(floor_1,32); at most
 *       NAME_SHORTEN_MAX of those.
 * Names are <word>_<n> (floor, ceil, round, trunc, size) with one counter,
 * in the order of the definitions, skipping any name the store holds as a
 * symbol (graph symbols, labels, fresh symbols); a name is never an
 * expression function name. Definitions are ordered by id: a subterm is
 * interned before every expression that contains it, so each definition is
 * over graph symbols and earlier names only.
 *
 * Substitution is purely at print time: while the names are in use,
 * osi_expr_str prints a named id as its name wherever the printer prints
 * that id as one unit, and the definition of a name is the printing of its
 * id's node over the other names. So a text, evaluated with each name bound
 * to the value of its definition, is the unnamed text evaluated: nothing is
 * substituted in the store, and no assumption on the names' signs is made.
 *
 * Cost: a store without float atoms whose texts all print within NAME_LONG
 * characters pays one scan of the node kinds and one strlen per text.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "expr/expr_internal.h"

#define NAME_LONG 80
#define NAME_FLOAT_MAX 4096
#define NAME_SHORTEN_MAX 64

struct ExprNaming {
  uint32_t cap;       /* ids below cap may be named (those made later never are) */
  uint32_t *def_of;   /* id -> 1 + index in defs, 0 when not named */
  char **strs;        /* printed forms while names are in use, by id (a
                       * named id: its definition); nstrs of them, grown
                       * for ids made after the names were chosen */
  uint32_t nstrs;
  OsiExpr *cached;    /* ids whose strs entry is set */
  uint32_t ncached, capcached;
  OsiExpr *defs;      /* the named ids */
  char **names;
  uint32_t ndefs, capdefs;
};

/* Section - Printing with names (called by expr_print.c) */

const char *expr_name_of(const OsiExprStore *s, OsiExpr e) {
  const ExprNaming *nm = s->naming;
  if (!s->naming_on || !nm || e >= nm->cap || !nm->def_of[e]) return NULL;
  return nm->names[nm->def_of[e] - 1];
}

/* An id made after the names were chosen (a cost summed from the dims, a
 * relation built for a message) is never named itself, but its named
 * subterms print as their names like everywhere else: its text gets a slot. */
static int grow_strs(ExprNaming *nm, uint32_t need) {
  uint32_t n = nm->nstrs;
  while (n < need) n = n == 0 || n > UINT32_MAX / 2 ? need : 2 * n;
  char **t = realloc(nm->strs, (size_t)n * sizeof *t);
  if (!t) return 0;
  memset(t + nm->nstrs, 0, (size_t)(n - nm->nstrs) * sizeof *t);
  nm->strs = t;
  nm->nstrs = n;
  return 1;
}

char **expr_named_slot(OsiExprStore *s, OsiExpr e) {
  ExprNaming *nm = s->naming;
  if (e >= nm->nstrs && (e >= s->nnodes || !grow_strs(nm, e + 1))) return NULL;
  if (!nm->strs[e]) {
    if (nm->ncached == nm->capcached) {
      uint32_t cap = nm->capcached ? 2 * nm->capcached : 256;
      OsiExpr *c = realloc(nm->cached, cap * sizeof *c);
      if (!c) return NULL;
      nm->cached = c;
      nm->capcached = cap;
    }
    nm->cached[nm->ncached++] = e; /* recorded before it is set: cleared either way */
  }
  return &nm->strs[e];
}

static void clear_cache(ExprNaming *nm) {
  for (uint32_t i = 0; i < nm->ncached; i++) {
    free(nm->strs[nm->cached[i]]);
    nm->strs[nm->cached[i]] = NULL;
  }
  nm->ncached = 0;
}

void expr_naming_free(OsiExprStore *s) {
  ExprNaming *nm = s->naming;
  if (!nm) return;
  clear_cache(nm);
  for (uint32_t i = 0; i < nm->ndefs; i++) free(nm->names[i]);
  free(nm->def_of);
  free(nm->strs);
  free(nm->cached);
  free(nm->defs);
  free(nm->names);
  free(nm);
  s->naming = NULL;
  s->naming_on = 0;
}

void osi_expr_use_names(OsiExprStore *s, int on) {
  if (s) s->naming_on = on && s->naming && s->naming->ndefs;
}

uint32_t osi_expr_definition_count(const OsiExprStore *s) {
  return s && s->naming ? s->naming->ndefs : 0;
}

const char *osi_expr_definition_name(const OsiExprStore *s, uint32_t i) {
  return i < osi_expr_definition_count(s) ? s->naming->names[i] : NULL;
}

OsiExpr osi_expr_definition_expr(const OsiExprStore *s, uint32_t i) {
  return i < osi_expr_definition_count(s) ? s->naming->defs[i] : OSI_EXPR_UNKNOWN;
}

/* The node of a named id printed over the names (its own name is only used
 * by its parents): its definition. */
static const char *definition_text(OsiExprStore *s, OsiExpr e) {
  char **slot = expr_named_slot(s, e);
  if (!slot) return "?";
  if (!*slot) {
    char *t = expr_print_node(s, e);
    slot = expr_named_slot(s, e); /* printing may have grown the slots */
    if (!slot) {
      free(t);
      return "?";
    }
    *slot = t;
  }
  return *slot ? *slot : "?";
}

const char *osi_expr_definition_str(OsiExprStore *s, uint32_t i) {
  if (i >= osi_expr_definition_count(s)) return NULL;
  int was = s->naming_on;
  s->naming_on = 1;
  const char *t = definition_text(s, s->naming->defs[i]);
  s->naming_on = was;
  return t;
}

/* Section - Choosing the names */

static int is_leaf(int kind) { return kind == EK_UNKNOWN || kind == EK_CONST || kind == EK_SYM || kind == EK_FCONST; }

static const char *word_of(const OsiExprStore *s, OsiExpr e) {
  if (expr_kind(s, e) != EK_FTOINT) return "size";
  switch (expr_kind(s, expr_args(s, e)[0])) {
  case EK_FFLOOR: return "floor";
  case EK_FCEIL: return "ceil";
  case EK_FROUND: return "round";
  default: return "trunc";
  }
}

/* "<word>_<n>" for the first n > *counter that the store holds no symbol
 * of; *counter becomes n. */
static char *fresh_name(const OsiExprStore *s, const char *word, uint64_t *counter) {
  char buf[48];
  for (;;) {
    int len = snprintf(buf, sizeof buf, "%s_%llu", word, (unsigned long long)++*counter);
    if (expr_find_symbol(s, buf, (size_t)len) == OSI_EXPR_UNKNOWN) return strdup(buf);
  }
}

static int add_def(OsiExprStore *s, OsiExpr e, uint64_t *counter) {
  ExprNaming *nm = s->naming;
  if (nm->ndefs == nm->capdefs) {
    uint32_t cap = nm->capdefs ? 2 * nm->capdefs : 16;
    OsiExpr *d = realloc(nm->defs, cap * sizeof *d);
    if (d) nm->defs = d;
    char **n = realloc(nm->names, cap * sizeof *n);
    if (n) nm->names = n;
    if (!d || !n) return 0;
    nm->capdefs = cap;
  }
  char *name = fresh_name(s, word_of(s, e), counter);
  if (!name) return 0;
  nm->defs[nm->ndefs] = e;
  nm->names[nm->ndefs++] = name;
  nm->def_of[e] = nm->ndefs;
  clear_cache(nm);
  return 1;
}

/* Scratch of one choice: a visit stamp per id, a stack, a list. */
typedef struct {
  uint32_t *stamp;
  uint32_t epoch;
  OsiExpr *stack, *list;
  uint32_t nstack, nlist;
  double *inflow;
  unsigned char *start; /* a long text starts here */
} Scratch;

/* Pushes e unless seen in this epoch; 0 when memory runs out (stack and
 * list hold at most cap ids: each id once per epoch). */
static void visit(Scratch *w, OsiExpr e) {
  if (w->stamp[e] == w->epoch) return;
  w->stamp[e] = w->epoch;
  w->stack[w->nstack++] = e;
  w->list[w->nlist++] = e;
}

/* Every id reachable from roots (all of it: through names too). */
static void reach_all(const OsiExprStore *s, Scratch *w, const OsiExpr *roots, size_t n) {
  w->epoch++;
  w->nstack = w->nlist = 0;
  for (size_t i = 0; i < n; i++)
    if (roots[i] && roots[i] < s->naming->cap) visit(w, roots[i]);
  while (w->nstack) {
    OsiExpr e = w->stack[--w->nstack];
    const ExprNode *nd = expr_node(s, e);
    if (is_leaf(nd->kind)) continue;
    for (uint32_t i = 0; i < nd->n; i++) visit(w, expr_args(s, e)[i]);
  }
}

static int by_id_desc(const void *a, const void *b) {
  OsiExpr x = *(const OsiExpr *)a, y = *(const OsiExpr *)b;
  return x < y ? 1 : x > y ? -1 : 0;
}

static int by_id_asc(const void *a, const void *b) { return -by_id_desc(a, b); }

static size_t named_len(OsiExprStore *s, OsiExpr e) { return strlen(osi_expr_str(s, e)); }

/* One step of rule (b): names the best subterm of the long texts; 0 when
 * no text is long or nothing shortens them. */
static int shorten_once(OsiExprStore *s, Scratch *w, const OsiExpr *roots, size_t n, uint64_t *counter) {
  ExprNaming *nm = s->naming;
  w->epoch++;
  w->nstack = w->nlist = 0;
  int any = 0;
  /* long texts: unnamed roots, and definitions */
  for (size_t i = 0; i < n; i++) {
    OsiExpr r = roots[i];
    if (!r || r >= nm->cap || nm->def_of[r] || named_len(s, r) <= NAME_LONG) continue;
    any = 1;
    w->start[r] = 1;
    visit(w, r);
  }
  for (uint32_t i = 0; i < nm->ndefs; i++) {
    OsiExpr d = nm->defs[i];
    if (strlen(definition_text(s, d)) <= NAME_LONG) continue;
    any = 1;
    w->start[d] = 1;
    visit(w, d);
  }
  if (!any) return 0;
  /* what the long texts print as units: below a start or an unnamed id */
  while (w->nstack) {
    OsiExpr e = w->stack[--w->nstack];
    const ExprNode *nd = expr_node(s, e);
    if (is_leaf(nd->kind) || (nm->def_of[e] && !w->start[e])) continue;
    for (uint32_t i = 0; i < nd->n; i++) visit(w, expr_args(s, e)[i]);
  }
  /* occurrences, parents first (a subterm has a smaller id) */
  if (w->nlist) qsort(w->list, w->nlist, sizeof *w->list, by_id_desc); /* no NULL, even for 0 */
  for (uint32_t i = 0; i < w->nlist; i++) w->inflow[w->list[i]] = 0;
  for (uint32_t i = 0; i < w->nlist; i++) {
    OsiExpr e = w->list[i];
    const ExprNode *nd = expr_node(s, e);
    double weight = nm->def_of[e] ? (w->start[e] ? 1 : 0) : w->inflow[e] + (w->start[e] ? 1 : 0);
    if (weight == 0 || is_leaf(nd->kind)) continue;
    for (uint32_t k = 0; k < nd->n; k++) w->inflow[expr_args(s, e)[k]] += weight;
  }
  OsiExpr best = OSI_EXPR_UNKNOWN;
  double best_score = 0;
  char probe[48];
  size_t name_len = (size_t)snprintf(probe, sizeof probe, "size_%llu", (unsigned long long)*counter + 1);
  for (uint32_t i = 0; i < w->nlist; i++) {
    OsiExpr e = w->list[i];
    int kind = expr_kind(s, e);
    w->start[e] = 0;
    if (nm->def_of[e] || is_leaf(kind) || expr_is_float_kind(kind) || w->inflow[e] == 0) continue;
    size_t len = named_len(s, e);
    if (len <= name_len + 1) continue;
    double score = w->inflow[e] * (double)(len - name_len);
    if (score > best_score || (score == best_score && best && e < best)) {
      best_score = score;
      best = e;
    }
  }
  return best && add_def(s, best, counter);
}

/* Definitions in id order (parents after their subterms); the names are
 * dropped: renumber gives them afresh. */
static void sort_defs(ExprNaming *nm) {
  clear_cache(nm);
  for (uint32_t i = 0; i < nm->ndefs; i++) {
    free(nm->names[i]);
    nm->names[i] = NULL;
  }
  if (nm->ndefs) qsort(nm->defs, nm->ndefs, sizeof *nm->defs, by_id_asc); /* defs may be NULL */
  for (uint32_t i = 0; i < nm->ndefs; i++) nm->def_of[nm->defs[i]] = i + 1;
}

/* Drops definitions no text prints (a name used only where the printer
 * does not print its id as a unit), keeping the order (by id). */
static void drop_unused(OsiExprStore *s, Scratch *w, const OsiExpr *roots, size_t n) {
  ExprNaming *nm = s->naming;
  w->epoch++;
  w->nstack = w->nlist = 0;
  for (size_t i = 0; i < n; i++)
    if (roots[i] && roots[i] < nm->cap) visit(w, roots[i]);
  unsigned char *used = w->start; /* all 0 here */
  for (int64_t d = (int64_t)nm->ndefs; d >= 0; d--) {
    if (d < (int64_t)nm->ndefs) { /* then the definitions, last first */
      OsiExpr e = nm->defs[d];
      if (!used[e]) continue;
      const ExprNode *nd = expr_node(s, e);
      for (uint32_t i = 0; i < nd->n; i++) visit(w, expr_args(s, e)[i]);
    }
    while (w->nstack) {
      OsiExpr e = w->stack[--w->nstack];
      const ExprNode *nd = expr_node(s, e);
      if (nm->def_of[e]) {
        used[e] = 1;
        continue;
      }
      if (is_leaf(nd->kind)) continue;
      for (uint32_t i = 0; i < nd->n; i++) visit(w, expr_args(s, e)[i]);
    }
  }
  uint32_t k = 0;
  for (uint32_t i = 0; i < nm->ndefs; i++) {
    OsiExpr e = nm->defs[i];
    if (used[e]) {
      nm->def_of[e] = k + 1;
      nm->defs[k++] = e;
    } else {
      nm->def_of[e] = 0;
    }
    used[e] = 0;
  }
  nm->ndefs = k;
}

/* Names the definitions afresh, in their order. */
static int renumber(OsiExprStore *s) {
  ExprNaming *nm = s->naming;
  uint64_t counter = 0;
  for (uint32_t i = 0; i < nm->ndefs; i++) {
    nm->names[i] = fresh_name(s, word_of(s, nm->defs[i]), &counter);
    if (!nm->names[i]) {
      nm->ndefs = i;
      return 0;
    }
    nm->def_of[nm->defs[i]] = i + 1;
  }
  clear_cache(nm);
  return 1;
}

/* Nothing to name: no float atom in the store and every text short. */
static int nothing_to_name(OsiExprStore *s, const OsiExpr *roots, size_t n) {
  for (uint32_t e = 1; e < s->nnodes; e++)
    if (s->nodes[e].kind == EK_FTOINT) return 0;
  for (size_t i = 0; i < n; i++)
    if (roots[i] && roots[i] < s->nnodes && strlen(osi_expr_str(s, roots[i])) > NAME_LONG) return 0;
  return 1;
}

int osi_expr_name_sizes(OsiExprStore *s, const OsiExpr *roots, size_t n) {
  if (!s) return -1;
  expr_naming_free(s);
  if (nothing_to_name(s, roots, n)) return 0;
  uint32_t cap = s->nnodes;
  ExprNaming *nm = calloc(1, sizeof *nm);
  Scratch w = {0};
  int ok = 0;
  if (!nm) return -1;
  s->naming = nm;
  nm->cap = cap;
  nm->def_of = calloc(cap, sizeof *nm->def_of);
  nm->strs = calloc(cap, sizeof *nm->strs);
  nm->nstrs = nm->strs ? cap : 0;
  w.stamp = calloc(cap, sizeof *w.stamp);
  w.stack = malloc(cap * sizeof *w.stack);
  w.list = malloc(cap * sizeof *w.list);
  w.inflow = malloc(cap * sizeof *w.inflow);
  w.start = calloc(cap, 1);
  if (!nm->def_of || !nm->strs || !w.stamp || !w.stack || !w.list || !w.inflow || !w.start) goto done;
  uint64_t counter = 0;
  /* (a) the float atoms of the texts, however deep, in id order */
  reach_all(s, &w, roots, n);
  if (w.nlist) qsort(w.list, w.nlist, sizeof *w.list, by_id_asc);
  for (uint32_t i = 0, named = 0; i < w.nlist && named < NAME_FLOAT_MAX; i++)
    if (expr_kind(s, w.list[i]) == EK_FTOINT) {
      if (!add_def(s, w.list[i], &counter)) goto done;
      named++;
    }
  /* (b) the subterms that shorten the long texts most; a name only
   * shortens what prints it, so the texts long now are the only ones to
   * look at again */
  s->naming_on = 1;
  size_t nlong = 0;
  OsiExpr *longs = malloc((n + 1) * sizeof *longs);
  if (!longs) goto done;
  for (size_t i = 0; i < n; i++)
    if (roots[i] && roots[i] < cap && named_len(s, roots[i]) > NAME_LONG) longs[nlong++] = roots[i];
  for (int step = 0; step < NAME_SHORTEN_MAX && shorten_once(s, &w, longs, nlong, &counter); step++) {
    size_t k = 0;
    for (size_t i = 0; i < nlong; i++)
      if (!nm->def_of[longs[i]] && named_len(s, longs[i]) > NAME_LONG) longs[k++] = longs[i];
    nlong = k;
  }
  free(longs);
  sort_defs(nm);
  drop_unused(s, &w, roots, n);
  ok = renumber(s);
done:
  s->naming_on = 0;
  free(w.stamp);
  free(w.stack);
  free(w.list);
  free(w.inflow);
  free(w.start);
  if (!ok) {
    expr_naming_free(s);
    return -1;
  }
  if (!nm->ndefs) {
    expr_naming_free(s);
    return 0;
  }
  return (int)nm->ndefs;
}
