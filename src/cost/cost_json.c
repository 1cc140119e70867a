/*
 * The cost model as JSON (osi_result_cost_json, js/cost.js reads it):
 *   {"cost": {"total": {...}, "byOpType": {...}, "uncounted": [...],
 *             "nodes": [name, op, macs, flops, weightBytes, outputBytes, elem, ...]},
 *    "memory": {"order": [node index per step], "peakStep": step or null,
 *               "values": [key, bytes, from, to, ...]},
 *    "exprs": [text, ...], "ops": [[opType, domain], ...], "elemTypes": [name, ...]}
 * In total and byOpType a count is a number when it is one (a decimal
 * string past 2^53, where a JSON reader's double would round it), an
 * expression string in the dims' grammar otherwise, or null when not known.
 * The per-node and per-value arrays are flat (7 and 4 entries) and name
 * each distinct expression once: a count there is a number, null, or -(k+1)
 * for exprs[k] (a decimal past 2^53 too); op and elem index ops and
 * elemTypes (elem -1: unknown); weightBytes is a number, null or a decimal
 * string. A 6k-node export's cost JSON is a fifth of the object form's.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cost/cost.h"
#include "cost/cost_internal.h"

#define MAX_EXACT_DOUBLE ((int64_t)1 << 53)

static void write_int(OsiJson *j, int64_t v) {
  char buf[32];
  if (v < 0) {
    osi_json_raw(j, "null");
  } else if (v > MAX_EXACT_DOUBLE) {
    snprintf(buf, sizeof buf, "\"%lld\"", (long long)v);
    osi_json_raw(j, buf);
  } else {
    osi_json_int(j, v);
  }
}

/* The distinct expressions the flat arrays name, in first-use order. */
typedef struct Exprs {
  uint32_t *slot; /* expression id -> index + 1 in list, 0: not yet */
  uint32_t n_ids;
  OsiExpr *list;
  size_t n, cap;
  int failed;
} Exprs;

/* A count of a flat array: a number, null, or -(k+1) for exprs[k]. */
static void write_ref(OsiJson *j, OsiExprStore *s, Exprs *x, OsiExpr e) {
  int64_t v;
  if (e == OSI_EXPR_UNKNOWN || e >= x->n_ids) {
    osi_json_raw(j, "null");
    return;
  }
  if (osi_expr_is_const(s, e, &v) && v >= 0 && v <= MAX_EXACT_DOUBLE) {
    osi_json_int(j, v);
    return;
  }
  if (!x->slot[e]) {
    if (x->n == x->cap) {
      size_t cap = x->cap ? 2 * x->cap : 64;
      OsiExpr *l = realloc(x->list, cap * sizeof *l);
      if (!l) {
        x->failed = 1;
        osi_json_raw(j, "null");
        return;
      }
      x->list = l;
      x->cap = cap;
    }
    x->list[x->n++] = e;
    x->slot[e] = (uint32_t)x->n;
  }
  osi_json_int(j, -(int64_t)x->slot[e]);
}

static void write_count(OsiJson *j, OsiExprStore *s, OsiExpr e) {
  int64_t v;
  if (e == OSI_EXPR_UNKNOWN) osi_json_raw(j, "null");
  else if (osi_expr_is_const(s, e, &v) && v >= -MAX_EXACT_DOUBLE && v <= MAX_EXACT_DOUBLE) osi_json_int(j, v);
  else osi_json_string(j, osi_expr_str(s, e));
}

static const OsiCost *sort_cost;
static int cmp_key(const void *a, const void *b) {
  int x = *(const int *)a, y = *(const int *)b;
  int c = strcmp(sort_cost->nodes[x].op_key, sort_cost->nodes[y].op_key);
  return c ? c : (x > y) - (x < y);
}

/* byOpType: the graph's nodes grouped by op key, sorted by key; a group's
 * counts sum its counted nodes (null when none is). */
static int write_by_op(OsiJson *j, OsiExprStore *s, const OsiCost *c) {
  int *idx = malloc(((size_t)c->n_nodes + 1) * sizeof *idx);
  if (!idx) return -1;
  for (int i = 0; i < c->n_nodes; i++) idx[i] = i;
  sort_cost = c;
  qsort(idx, (size_t)c->n_nodes, sizeof *idx, cmp_key);
  sort_cost = NULL;
  osi_json_raw(j, "{");
  for (int i = 0, first = 1; i < c->n_nodes; first = 0) {
    const char *key = c->nodes[idx[i]].op_key;
    OsiExpr macs = osi_expr_const(s, 0), flops = osi_expr_const(s, 0);
    int nodes = 0, counted = 0;
    for (; i < c->n_nodes && !strcmp(c->nodes[idx[i]].op_key, key); i++, nodes++) {
      const OsiNodeCost *n = &c->nodes[idx[i]];
      if (n->macs == OSI_EXPR_UNKNOWN) continue;
      counted++;
      macs = osi_expr_add(s, macs, n->macs);
      flops = osi_expr_add(s, flops, n->flops);
    }
    if (!first) osi_json_char(j, ',');
    osi_json_string(j, key);
    osi_json_raw(j, ":{\"nodes\":");
    osi_json_int(j, nodes);
    osi_json_raw(j, ",\"macs\":");
    write_count(j, s, counted ? macs : OSI_EXPR_UNKNOWN);
    osi_json_raw(j, ",\"flops\":");
    write_count(j, s, counted ? flops : OSI_EXPR_UNKNOWN);
    osi_json_char(j, '}');
  }
  osi_json_char(j, '}');
  free(idx);
  return 0;
}

/* The ops table's index of (op_type, domain), added when new; -1 when
 * memory runs out. Models have few distinct ops: a linear search. */
typedef struct Ops {
  const OsiNode **first; /* a node of each distinct op */
  int n;
} Ops;

static int op_index(Ops *o, const OsiNode *n) {
  for (int i = 0; i < o->n; i++)
    if (!strcmp(o->first[i]->op_type, n->op_type) && !strcmp(o->first[i]->domain, n->domain)) return i;
  o->first[o->n] = n;
  return o->n++;
}

/* Element type names: at most one per ONNX element type (osi_dtype_name)
 * plus the packed weights' (cost_linalg.c). */
#define MAX_ELEM_NAMES 64

/* The elemTypes index of `elem` (added when new), -1 for none; -2 when the
 * table is full (which the names above never fill). */
static int elem_index(const char **names, int *n, const char *elem) {
  if (!elem) return -1;
  for (int i = 0; i < *n; i++)
    if (!strcmp(names[i], elem)) return i;
  if (*n == MAX_ELEM_NAMES) return -2;
  names[*n] = elem;
  return (*n)++;
}

static int write_nodes(OsiJson *j, OsiExprStore *s, Exprs *x, const OsiCost *c, const OsiGraph *g, Ops *ops,
                       const char **elems, int *n_elems) {
  osi_json_char(j, '[');
  for (int i = 0; i < c->n_nodes; i++) {
    const OsiNodeCost *n = &c->nodes[i];
    if (i) osi_json_char(j, ',');
    osi_json_string(j, g->nodes[i].name);
    osi_json_char(j, ',');
    osi_json_int(j, op_index(ops, &g->nodes[i]));
    osi_json_char(j, ',');
    write_ref(j, s, x, n->macs);
    osi_json_char(j, ',');
    write_ref(j, s, x, n->flops);
    osi_json_char(j, ',');
    write_int(j, n->weight_bytes);
    osi_json_char(j, ',');
    write_ref(j, s, x, n->out_bytes);
    osi_json_char(j, ',');
    int e = elem_index(elems, n_elems, n->elem_type);
    if (e == -2) return -1;
    osi_json_int(j, e);
  }
  osi_json_char(j, ']');
  return 0;
}

static void write_memory(OsiJson *j, OsiExprStore *s, Exprs *x, const OsiCost *c) {
  osi_json_raw(j, "{\"order\":[");
  for (int k = 0; k < c->n_steps; k++) {
    if (k) osi_json_char(j, ',');
    osi_json_int(j, c->order[k]);
  }
  osi_json_raw(j, "],\"peakStep\":");
  if (c->peak_step >= 0) osi_json_int(j, c->peak_step);
  else osi_json_raw(j, "null");
  osi_json_raw(j, ",\"values\":[");
  for (int i = 0; i < c->n_live; i++) {
    const OsiLiveValue *v = &c->live[i];
    if (i) osi_json_char(j, ',');
    osi_json_string(j, v->key);
    osi_json_char(j, ',');
    write_ref(j, s, x, v->bytes);
    osi_json_char(j, ',');
    osi_json_int(j, v->from);
    osi_json_char(j, ',');
    osi_json_int(j, v->to);
  }
  osi_json_raw(j, "]}");
}

int osi_cost_json(OsiJson *j, OsiRun *run, const OsiContext *root) {
  OsiCost c;
  OsiExprStore *s = run->exprs;
  osi_cost_compute(&c, run, root);
  if (!c.failed) osi_cost_schedule(&c, run, root);
  if (c.failed) {
    osi_cost_free(&c);
    return -1;
  }
  osi_json_raw(j, "{\"cost\":{\"total\":{\"macs\":");
  write_count(j, s, c.macs);
  osi_json_raw(j, ",\"flops\":");
  write_count(j, s, c.flops);
  osi_json_raw(j, ",\"params\":");
  write_int(j, c.params);
  osi_json_raw(j, ",\"weightBytes\":");
  write_int(j, c.weight_bytes);
  osi_json_raw(j, ",\"activationPeakBytes\":");
  write_count(j, s, c.peak);
  osi_json_raw(j, ",\"uncountedNodes\":");
  osi_json_int(j, c.uncounted_nodes);
  osi_json_raw(j, "},\"byOpType\":");
  int st = write_by_op(j, s, &c);
  Exprs x = {0};
  Ops ops = {0};
  const char *elems[MAX_ELEM_NAMES];
  int n_elems = 0;
  x.n_ids = osi_expr_node_count(s);
  x.slot = calloc((size_t)x.n_ids + 1, sizeof *x.slot);
  ops.first = malloc(((size_t)c.n_nodes + 1) * sizeof *ops.first);
  if (!x.slot || !ops.first) st = -1;
  osi_json_raw(j, ",\"uncounted\":[");
  for (int i = 0; i < c.n_uncounted; i++) {
    osi_json_raw(j, i ? ",{\"opType\":" : "{\"opType\":");
    osi_json_string(j, c.uncounted[i].op_key);
    osi_json_raw(j, ",\"nodes\":");
    osi_json_int(j, c.uncounted[i].nodes);
    osi_json_raw(j, ",\"reason\":");
    osi_json_string(j, c.uncounted[i].reason);
    osi_json_char(j, '}');
  }
  osi_json_raw(j, "],\"nodes\":");
  if (st == 0) st = write_nodes(j, s, &x, &c, run->model->graph, &ops, elems, &n_elems);
  osi_json_raw(j, "},\"memory\":");
  if (st == 0) write_memory(j, s, &x, &c);
  osi_json_raw(j, ",\"exprs\":[");
  for (size_t i = 0; i < x.n; i++) {
    if (i) osi_json_char(j, ',');
    osi_json_string(j, osi_expr_str(s, x.list[i]));
  }
  osi_json_raw(j, "],\"ops\":[");
  for (int i = 0; i < ops.n; i++) {
    osi_json_raw(j, i ? ",[" : "[");
    osi_json_string(j, ops.first[i]->op_type);
    osi_json_char(j, ',');
    osi_json_string(j, ops.first[i]->domain);
    osi_json_char(j, ']');
  }
  osi_json_raw(j, "],\"elemTypes\":[");
  for (int i = 0; i < n_elems; i++) {
    if (i) osi_json_char(j, ',');
    osi_json_string(j, elems[i]);
  }
  osi_json_raw(j, "]}");
  if (x.failed) st = -1;
  free(x.slot);
  free(x.list);
  free(ops.first);
  osi_cost_free(&c);
  return st != 0 || j->failed ? -1 : 0;
}
