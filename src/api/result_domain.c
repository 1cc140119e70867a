/* The input domain of a result: see result_domain.h. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/result_domain.h"
#include "infer/facts.h"

/* The graph inputs' symbols, in order of first appearance, each once: a
 * set by name pointer (the store gives a symbol one name). Every one is
 * listed, however many (past a fixed number, the ranges of the rest would
 * be listed among the relations). */
typedef struct Symbols {
  const char **items;
  int n, cap;
  const char **slots; /* open addressing, cap * 2 of them */
} Symbols;

static size_t slot_of(const Symbols *syms, const char *name) {
  size_t mask = (size_t)syms->cap * 2 - 1, at = ((uintptr_t)name >> 3) * 0x9E3779B97F4A7C15ull & mask;
  while (syms->slots[at] && syms->slots[at] != name) at = (at + 1) & mask;
  return at;
}

static int has_symbol(const Symbols *syms, const char *name) {
  return syms->n > 0 && syms->slots[slot_of(syms, name)] == name;
}

static void note_symbol(const char *name, void *user) {
  Symbols *syms = user;
  if (has_symbol(syms, name)) return;
  if (syms->n == syms->cap) {
    int cap = syms->cap ? 2 * syms->cap : 64;
    const char **items = realloc(syms->items, (size_t)cap * sizeof *items);
    const char **slots = calloc((size_t)cap * 2, sizeof *slots);
    if (!items || !slots) {
      free(slots);
      if (items) syms->items = items;
      return; /* out of memory: the symbol is not listed */
    }
    free(syms->slots);
    syms->items = items;
    syms->slots = slots;
    syms->cap = cap;
    for (int i = 0; i < syms->n; i++) syms->slots[slot_of(syms, syms->items[i])] = syms->items[i];
  }
  syms->slots[slot_of(syms, name)] = name;
  syms->items[syms->n++] = name;
}

/* The symbols of one fact, up to two (whether it has exactly one). */
typedef struct FactSymbols {
  const char *items[2];
  int n;
} FactSymbols;

static void note_fact_symbol(const char *name, void *user) {
  FactSymbols *one = user;
  for (int i = 0; i < one->n; i++)
    if (one->items[i] == name) return;
  if (one->n < 2) one->items[one->n++] = name;
}

static void input_symbols(OsiExprStore *s, const OsiType *t, Symbols *syms, int depth) {
  for (; t && depth < 16; t = t->elem, depth++)
    for (int i = 0; (t->kind == OSI_KIND_TENSOR || t->kind == OSI_KIND_SPARSE_TENSOR) && i < t->rank; i++)
      if (t->dims[i] != OSI_EXPR_UNKNOWN) osi_expr_for_each_symbol(s, t->dims[i], note_symbol, syms);
}

static void write_sides(OsiJson *j, OsiExprStore *s, OsiExpr lhs, int less_equal, OsiExpr rhs) {
  osi_json_raw(j, "\"lhs\":");
  osi_json_string(j, osi_expr_str(s, lhs));
  osi_json_raw(j, ",\"relation\":");
  osi_json_string(j, less_equal ? "<=" : "==");
  osi_json_raw(j, ",\"rhs\":");
  osi_json_string(j, osi_expr_str(s, rhs));
}

void osi_json_requirement_sides(OsiJson *j, OsiExprStore *s, const OsiRequirement *q) {
  if (!q->one_of) {
    write_sides(j, s, q->lhs, q->less_equal, q->rhs);
    return;
  }
  /* Broadcast(x,c) == c: what the model needs, in the dim's own terms, and
   * still a relation any evaluator of dims checks (Broadcast(5,16) has no
   * value). */
  char c[24];
  snprintf(c, sizeof c, "%lld", (long long)q->one_of_size);
  osi_json_raw(j, "\"lhs\":\"Broadcast(");
  osi_json_string_body(j, osi_expr_str(s, q->one_of));
  osi_json_raw(j, ",");
  osi_json_raw(j, c);
  osi_json_raw(j, ")\",\"relation\":\"==\",\"rhs\":");
  osi_json_string(j, c);
}

/* A fact as a requirement reads (js/index.d.ts Requirement), with its index
 * in constraints.requirements (null for a size). */
static void write_fact(OsiJson *j, OsiExprStore *s, const OsiRun *run, const OsiFact *q) {
  osi_json_raw(j, "{");
  if (q->requirement >= 0) osi_json_requirement_sides(j, s, &run->requirements.items[q->requirement]);
  else write_sides(j, s, q->lhs, q->less_equal, q->rhs);
  if (q->node_index < 0) {
    osi_json_raw(j, ",\"node\":null,\"opType\":null,\"nodeIndex\":null");
  } else {
    osi_json_raw(j, ",\"node\":");
    osi_json_string(j, q->node ? q->node : "");
    osi_json_raw(j, ",\"opType\":");
    osi_json_string(j, q->op_type ? q->op_type : "");
    osi_json_raw(j, ",\"nodeIndex\":");
    osi_json_int(j, q->node_index);
  }
  osi_json_raw(j, ",\"path\":");
  osi_json_string(j, q->path ? q->path : "");
  osi_json_raw(j, ",\"message\":");
  if (q->requirement >= 0) {
    osi_json_string(j, run->requirements.items[q->requirement].what);
    osi_json_raw(j, ",\"requirement\":");
    osi_json_int(j, q->requirement);
  } else {
    char what[256];
    snprintf(what, sizeof what, "dim %d of '%.160s' is a size (never negative)", q->axis, q->value ? q->value : "");
    osi_json_string(j, what);
    osi_json_raw(j, ",\"requirement\":null");
  }
  osi_json_raw(j, "}");
}

void osi_json_domain(OsiJson *j, OsiExprStore *s, const OsiRun *run) {
  Symbols syms = {NULL, 0, 0, NULL};
  const OsiGraph *g = run->model ? run->model->graph : NULL;
  for (int i = 0; g && i < g->n_inputs; i++) input_symbols(s, g->inputs[i].type, &syms, 0);
  osi_json_raw(j, ",\"domain\":{\"symbols\":{");
  for (int i = 0; i < syms.n; i++) {
    OsiExpr sym = osi_expr_symbol(s, syms.items[i]);
    int64_t lo, hi;
    int lo_fact, hi_fact;
    osi_facts_symbol_range(run, sym, &lo, &hi, &lo_fact, &hi_fact);
    if (i) osi_json_raw(j, ",");
    osi_json_string(j, syms.items[i]);
    osi_json_raw(j, ":{\"min\":");
    osi_json_int(j, lo);
    if (hi != INT64_MAX) {
      osi_json_raw(j, ",\"max\":");
      osi_json_int(j, hi);
    }
    if (lo_fact >= 0) {
      osi_json_raw(j, ",\"minBy\":");
      write_fact(j, s, run, osi_facts_item(run, lo_fact));
    }
    if (hi_fact >= 0) {
      osi_json_raw(j, ",\"maxBy\":");
      write_fact(j, s, run, osi_facts_item(run, hi_fact));
    }
    osi_json_raw(j, "}");
  }
  osi_json_raw(j, "},\"relations\":[");
  int first = 1;
  for (int i = 0; i < osi_facts_count(run); i++) {
    const OsiFact *q = osi_facts_item(run, i);
    /* A fact that gave a graph input's symbol its range is said there. */
    if (q->range) {
      FactSymbols one = {{NULL, NULL}, 0};
      osi_expr_for_each_symbol(s, q->lhs, note_fact_symbol, &one);
      osi_expr_for_each_symbol(s, q->rhs, note_fact_symbol, &one);
      if (one.n == 1 && has_symbol(&syms, one.items[0])) continue;
    }
    if (!first) osi_json_raw(j, ",");
    first = 0;
    write_fact(j, s, run, q);
  }
  osi_json_raw(j, "]}");
  free(syms.items);
  free(syms.slots);
}
