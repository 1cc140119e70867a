#include "infer/anchors.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "infer/constraints.h"

static void note_filled(OsiAnchorLog *log, OsiExpr declared) {
  if (!log) return;
  if (log->n_filled == log->cap_filled) {
    int cap = log->cap_filled ? log->cap_filled * 2 : 16;
    OsiExpr *filled = realloc(log->filled, (size_t)cap * sizeof *filled);
    if (!filled) return;
    log->filled = filled;
    log->cap_filled = cap;
  }
  log->filled[log->n_filled++] = declared;
}

/* The equality declared == inferred, with which side was declared (and
 * the same for the symbols it derives: 2*d == 2*n gives d == n). */
static void note_declared(OsiRun *run, OsiAnchorLog *log, OsiExpr declared, OsiExpr inferred) {
  osi_constraint_equal(run, declared, inferred);
  if (!log) return;
  OsiExpr x, y;
  int leaf = osi_expr_leaf_equality(run->exprs, declared, inferred, &x, &y);
  if (log->n_declared + 4 > log->cap_declared) {
    int cap = log->cap_declared ? log->cap_declared * 2 : 32;
    OsiExpr *d = realloc(log->declared, (size_t)cap * sizeof *d);
    if (!d) return;
    log->declared = d;
    log->cap_declared = cap;
  }
  log->declared[log->n_declared++] = declared;
  log->declared[log->n_declared++] = inferred;
  if (leaf) {
    log->declared[log->n_declared++] = x;
    log->declared[log->n_declared++] = y;
  }
}

static const OsiType *merge(OsiRun *run, const OsiType *inf, const OsiType *anc, char *why,
                            size_t cap, int depth, OsiAnchorLog *log) {
  OsiExprStore *s = run->exprs;
  if (!anc) return inf;
  if (!inf) return anc;
  if (depth > 16) return inf;
  if (inf->kind != anc->kind) {
    snprintf(why, cap, "declared a different kind of value (sequence/tensor/map/optional)");
    return NULL;
  }
  if (inf->elem_type && anc->elem_type && inf->elem_type != anc->elem_type) {
    const char *a = osi_dtype_name(anc->elem_type), *b = osi_dtype_name(inf->elem_type);
    snprintf(why, cap, "declared element type %s, inferred %s", a ? a : "?", b ? b : "?");
    return NULL;
  }
  const OsiType *elem = inf->elem;
  if (inf->elem || anc->elem) {
    elem = merge(run, inf->elem, anc->elem, why, cap, depth + 1, log);
    if (!elem && (inf->elem || anc->elem)) return NULL;
  }
  if (inf->rank >= 0 && anc->rank >= 0 && inf->rank != anc->rank) {
    snprintf(why, cap, "declared rank %d, inferred rank %d", anc->rank, inf->rank);
    return NULL;
  }
  int rank = inf->rank >= 0 ? inf->rank : anc->rank;
  OsiType *out = osi_type_tensor(run->arena, inf->elem_type ? inf->elem_type : anc->elem_type, rank);
  if (!out) return inf;
  out->kind = inf->kind;
  out->elem = elem;
  out->value = inf->value;
  OsiExpr *d = osi_type_dims_mut(out);
  for (int i = 0; i < rank; i++) {
    OsiExpr a = anc->rank >= 0 ? anc->dims[i] : OSI_EXPR_UNKNOWN;
    OsiExpr b = inf->rank >= 0 ? inf->dims[i] : OSI_EXPR_UNKNOWN;
    int64_t ca, cb;
    int ka = osi_expr_is_const(s, a, &ca), kb = osi_expr_is_const(s, b, &cb);
    if (a == OSI_EXPR_UNKNOWN) d[i] = b;
    else if (b == OSI_EXPR_UNKNOWN) d[i] = a;
    else if (ka && kb && ca != cb) {
      snprintf(why, cap, "dim %d: declared %lld, inferred %lld", i, (long long)ca, (long long)cb);
      return NULL;
    } else if (kb) d[i] = b;
    else if (ka) d[i] = a;
    else d[i] = a;
  }
  /* Equalities only once the whole anchor is known to merge cleanly. */
  for (int i = 0; i < rank && anc->rank >= 0; i++) {
    int64_t c;
    OsiExpr a = anc->dims[i], b = inf->rank >= 0 ? inf->dims[i] : OSI_EXPR_UNKNOWN;
    if (a != OSI_EXPR_UNKNOWN && b == OSI_EXPR_UNKNOWN && !osi_expr_is_const(s, a, &c)) note_filled(log, a);
    if (a != OSI_EXPR_UNKNOWN && b != OSI_EXPR_UNKNOWN && a != b && !osi_expr_is_const(s, a, &c) &&
        !osi_expr_is_const(s, b, &c))
      note_declared(run, log, a, b);
  }
  return out;
}

const OsiType *osi_anchor_merge(OsiRun *run, const OsiType *inferred, const OsiType *anchor,
                                char *why, size_t cap, OsiAnchorLog *log) {
  why[0] = 0;
  return merge(run, inferred, anchor, why, cap, 0, log);
}

static void log_add(OsiAnchorLog *log, OsiValueEntry *e, const OsiType *inferred) {
  if (log->count == log->cap) {
    int cap = log->cap ? log->cap * 2 : 16;
    OsiAnchoredValue *items = realloc(log->items, (size_t)cap * sizeof *items);
    if (!items) return; /* the value then keeps the declared dims, as before */
    log->items = items;
    log->cap = cap;
  }
  log->items[log->count].entry = e;
  log->items[log->count++].inferred = inferred;
}

void osi_anchor_log_free(OsiAnchorLog *log) {
  free(log->items);
  free(log->filled);
  free(log->declared);
  memset(log, 0, sizeof *log);
}

static OsiStatus apply_list(OsiContext *scope, const OsiValueInfo *vi, int n, int strict,
                            OsiAnchorLog *log) {
  OsiRun *run = scope->run;
  for (int i = 0; i < n; i++) {
    if (!vi[i].type || !vi[i].name[0]) continue;
    /* A value_info with an element type but no shape would clash with any
     * non-scalar inferred shape: it is not an anchor. */
    if (strict && vi[i].type->kind == OSI_KIND_TENSOR && vi[i].type->rank < 0) continue;
    OsiValueEntry *e = osi_context_get_model_name(scope, vi[i].name);
    if (!e) continue;
    char why[256];
    const OsiType *merged = osi_anchor_merge(run, e->type, vi[i].type, why, sizeof why, log);
    if (merged) {
      if (OSI_EVENTS_ON(run) && !osi_type_equal(merged, e->type)) {
        char a[512], b[512], c[512];
        osi_run_event(run, "anchor", vi[i].name, "declared %s; inferred %s -> %s",
                      osi_type_text(run->exprs, vi[i].type, a, sizeof a),
                      osi_type_text(run->exprs, e->type, b, sizeof b),
                      osi_type_text(run->exprs, merged, c, sizeof c));
      }
      if (merged != e->type) log_add(log, e, e->type);
      e->type = merged;
    } else if (strict) {
      return osi_run_fail(run, OSI_ERR_ANCHOR_CONFLICT, "", "value_info '%s' contradicts inference: %s",
                          vi[i].name, why);
    } else {
      osi_run_diag(run, "ANCHOR_CONFLICT", "", "", -1,
                   "graph output '%s' is declared with a shape that contradicts inference (%s); "
                   "the declaration is ignored", vi[i].name, why);
    }
  }
  return OSI_OK;
}

/* Section - A declared name given to several unknown dims */

static int cmp_expr(const void *a, const void *b) {
  OsiExpr x = *(const OsiExpr *)a, y = *(const OsiExpr *)b;
  return x < y ? -1 : x > y;
}

/* Where the name fills unknown dims (sorted) and is no graph input's dim. */
typedef struct SharedFills {
  const OsiExpr *sorted;
  int n;
  const OsiGraph *g;
} SharedFills;

static int input_dim(const OsiGraph *g, OsiExpr e) {
  for (int i = 0; i < g->n_inputs; i++) {
    const OsiType *t = g->inputs[i].type;
    for (int k = 0; t && t->kind == OSI_KIND_TENSOR && k < t->rank; k++)
      if (t->dims[k] == e) return 1;
  }
  return 0;
}

static int shared(const SharedFills *f, OsiExpr e) {
  const OsiExpr *at = bsearch(&e, f->sorted, (size_t)f->n, sizeof e, cmp_expr);
  if (!at) return 0;
  int count = 0;
  for (const OsiExpr *p = at; p >= f->sorted && *p == e; p--) count++;
  for (const OsiExpr *p = at + 1; p < f->sorted + f->n && *p == e; p++) count++;
  return count >= 2 && !input_dim(f->g, e);
}

/* t (anchored from `inferred`) with each dim a shared name filled back to
 * unknown; the dims given back are counted in *n. */
static const OsiType *unfill(OsiRun *run, const SharedFills *f, const OsiType *t, const OsiType *inferred,
                             int depth, int *n) {
  if (!t || !inferred || depth > 16) return t;
  const OsiType *elem = unfill(run, f, t->elem, inferred->elem, depth + 1, n);
  OsiType *copy = NULL;
  for (int i = 0; i < t->rank; i++) {
    OsiExpr was = inferred->rank == t->rank ? inferred->dims[i] : OSI_EXPR_UNKNOWN;
    if (was != OSI_EXPR_UNKNOWN || t->dims[i] == OSI_EXPR_UNKNOWN || !shared(f, t->dims[i])) continue;
    if (!copy && !(copy = osi_type_copy(run->arena, t))) return t;
    osi_type_dims_mut(copy)[i] = OSI_EXPR_UNKNOWN;
    ++*n;
  }
  if (!copy && elem == t->elem) return t;
  if (!copy && !(copy = osi_type_copy(run->arena, t))) return t;
  copy->elem = elem;
  return copy;
}

/*
 * A declared name that fills two or more dims inference does not know
 * claims they are one size, which nothing checks: torch labels every
 * piece of a scripted split `SequenceAty0_dim_1` whatever its size. Those
 * dims stay unknown (an ANCHOR_CONFLICT says so); a name filling one dim
 * names that size, and graph-input names are the author's.
 */
static void unfill_shared(OsiContext *scope, const OsiGraph *g, OsiAnchorLog *log) {
  OsiRun *run = scope->run;
  if (log->n_filled < 2) return;
  OsiExpr *sorted = malloc((size_t)log->n_filled * sizeof *sorted);
  if (!sorted) return;
  memcpy(sorted, log->filled, (size_t)log->n_filled * sizeof *sorted);
  qsort(sorted, (size_t)log->n_filled, sizeof *sorted, cmp_expr);
  SharedFills f = {sorted, log->n_filled, g};
  int total = 0;
  for (int i = 0; i < log->count; i++) {
    OsiValueEntry *e = log->items[i].entry;
    int n = 0;
    const OsiType *t = unfill(run, &f, e->type, log->items[i].inferred, 0, &n);
    if (t == e->type) continue;
    if (OSI_EVENTS_ON(run)) {
      char before[512], after[512];
      osi_run_event(run, "anchor", e->name, "a name given to several unknown dims ignored: %s -> %s",
                    osi_type_text(run->exprs, e->type, before, sizeof before),
                    osi_type_text(run->exprs, t, after, sizeof after));
    }
    e->type = t;
    total += n;
  }
  for (int i = 0; total && i < f.n; i++) {
    if ((i > 0 && sorted[i] == sorted[i - 1]) || !shared(&f, sorted[i])) continue;
    int n = 0;
    for (int k = i; k < f.n && sorted[k] == sorted[i]; k++) n++;
    osi_run_diag(run, "ANCHOR_CONFLICT", "", "", -1,
                 "the declared output shapes give %s to %d dims whose sizes inference does not know, "
                 "and nothing shows they are one size; it names none of them",
                 osi_expr_str(run->exprs, sorted[i]), n);
  }
  free(sorted);
}

OsiStatus osi_anchors_apply(OsiContext *scope, const OsiGraph *g, uint32_t flags,
                            OsiAnchorLog *log) {
  OsiStatus st = apply_list(scope, g->outputs, g->n_outputs, 0, log);
  if (st == OSI_OK && (flags & OSI_OPT_PREFILL_VALUE_INFO))
    st = apply_list(scope, g->value_info, g->n_value_info, 1, log);
  if (st == OSI_OK) unfill_shared(scope, g, log);
  return st;
}
