/* Named derived sizes of a result: see result_names.h and expr_naming.c. */
#include <stdlib.h>
#include <string.h>

#include "api/result_names.h"
#include "model/type_json.h"

typedef struct Roots {
  OsiExpr *items;
  size_t count, cap;
  unsigned char *seen; /* by id */
  uint32_t nseen;
  int failed;
} Roots;

static void add_root(Roots *r, OsiExpr e) {
  if (e == OSI_EXPR_UNKNOWN || e >= r->nseen || r->seen[e]) return;
  r->seen[e] = 1;
  if (r->count == r->cap) {
    size_t cap = r->cap ? 2 * r->cap : 256;
    OsiExpr *items = realloc(r->items, cap * sizeof *items);
    if (!items) {
      r->failed = 1;
      return;
    }
    r->items = items;
    r->cap = cap;
  }
  r->items[r->count++] = e;
}

static void add_type_roots(Roots *r, const OsiType *t, int depth) {
  for (; t && depth < 64; t = t->elem, depth++) {
    if (t->kind == OSI_KIND_TENSOR || t->kind == OSI_KIND_SPARSE_TENSOR) {
      for (int i = 0; i < t->rank; i++) add_root(r, t->dims[i]);
      if (depth == 0 && osi_json_has_content(t))
        for (int64_t i = 0; i < t->value->count; i++) add_root(r, t->value->ints[i]);
    }
  }
}

static void add_pair_roots(Roots *r, const OsiConstraintList *l) {
  for (int i = 0; i < l->count; i++) {
    add_root(r, l->items[i].lhs);
    add_root(r, l->items[i].rhs);
  }
}

void osi_result_name_sizes(OsiExprStore *s, const OsiContext *root, const OsiRun *run) {
  Roots roots = {0};
  roots.nseen = osi_expr_node_count(s);
  roots.seen = calloc(roots.nseen ? roots.nseen : 1, 1);
  if (!roots.seen) return;
  for (int i = 0; i < root->n_order; i++) add_type_roots(&roots, root->order[i]->type, 0);
  for (int i = 0; i < run->n_subs; i++) add_type_roots(&roots, run->subs[i].type, 0);
  add_pair_roots(&roots, &run->equal);
  add_pair_roots(&roots, &run->less_equal);
  add_pair_roots(&roots, &run->labels);
  for (int i = 0; i < run->requirements.count; i++) {
    add_root(&roots, run->requirements.items[i].lhs);
    add_root(&roots, run->requirements.items[i].rhs);
  }
  /* the sizes diagnostics print (a NonZero's bound: its named size) */
  for (int i = 0; i < run->n_diags; i++)
    for (int k = 0; k < run->diags[i].n_sizes; k++) add_root(&roots, run->diags[i].sizes[k].e);
  /* without names (out of memory) every text is still exact, only longer */
  if (!roots.failed) osi_expr_name_sizes(s, roots.items, roots.count);
  free(roots.items);
  free(roots.seen);
}

void osi_json_definitions(OsiJson *j, OsiExprStore *s) {
  osi_json_raw(j, ",\"definitions\":[");
  for (uint32_t i = 0, n = osi_expr_definition_count(s); i < n; i++) {
    osi_json_raw(j, i ? ",{\"name\":" : "{\"name\":");
    osi_json_string(j, osi_expr_definition_name(s, i));
    osi_json_raw(j, ",\"expr\":");
    osi_json_string(j, osi_expr_definition_str(s, i));
    osi_json_raw(j, "}");
  }
  osi_json_raw(j, "]");
}

char *osi_result_named_message(OsiExprStore *s, const OsiDiagnostic *d) {
  if (!d->n_sizes) return NULL;
  size_t cap = strlen(d->message) + 1, at = 0;
  for (int i = 0; i < d->n_sizes; i++) {
    const char *text = osi_expr_str(s, d->sizes[i].e);
    if (!text) return NULL;
    cap += strlen(text);
  }
  char *out = malloc(cap);
  if (!out) return NULL;
  size_t len = 0;
  for (int i = 0; i < d->n_sizes; i++) {
    const char *text = osi_expr_str(s, d->sizes[i].e);
    memcpy(out + len, d->message + at, d->sizes[i].at - at);
    len += d->sizes[i].at - at;
    memcpy(out + len, text, strlen(text));
    len += strlen(text);
    at = d->sizes[i].at + d->sizes[i].len;
  }
  strcpy(out + len, d->message + at);
  return out;
}
