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
      osi_constraint_equal(run, a, b);
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
    OsiValueEntry *e = osi_value_table_get(&scope->values, vi[i].name);
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

OsiStatus osi_anchors_apply(OsiContext *scope, const OsiGraph *g, uint32_t flags,
                            OsiAnchorLog *log) {
  OsiStatus st = apply_list(scope, g->outputs, g->n_outputs, 0, log);
  if (st == OSI_OK && (flags & OSI_OPT_PREFILL_VALUE_INFO))
    st = apply_list(scope, g->value_info, g->n_value_info, 1, log);
  return st;
}
