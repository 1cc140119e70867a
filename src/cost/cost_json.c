/*
 * The cost model as JSON (osi_result_cost_json, js/cost.js reads it):
 *   {"cost": {"total": {...}, "byOpType": {...}, "nodes": [...], "uncounted": [...]},
 *    "memory": {"order": [node index per step], "peakStep": step or null,
 *               "values": [key, bytes, from, to, ...]}}
 * A count is a number when it is one (a decimal string past 2^53, where a
 * JSON reader's double would round it), an expression string in the dims'
 * grammar otherwise, or null when not known.
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

static void write_nodes(OsiJson *j, OsiExprStore *s, const OsiCost *c, const OsiGraph *g) {
  osi_json_char(j, '[');
  for (int i = 0; i < c->n_nodes; i++) {
    const OsiNodeCost *n = &c->nodes[i];
    osi_json_raw(j, i ? ",{\"name\":" : "{\"name\":");
    osi_json_string(j, g->nodes[i].name);
    osi_json_raw(j, ",\"opType\":");
    osi_json_string(j, g->nodes[i].op_type);
    osi_json_raw(j, ",\"domain\":");
    osi_json_string(j, g->nodes[i].domain);
    osi_json_raw(j, ",\"macs\":");
    write_count(j, s, n->macs);
    osi_json_raw(j, ",\"flops\":");
    write_count(j, s, n->flops);
    osi_json_raw(j, ",\"weightBytes\":");
    write_int(j, n->weight_bytes);
    osi_json_raw(j, ",\"outputBytes\":");
    write_count(j, s, n->out_bytes);
    osi_json_raw(j, ",\"elemType\":");
    if (n->elem_type) osi_json_string(j, n->elem_type);
    else osi_json_raw(j, "null");
    osi_json_char(j, '}');
  }
  osi_json_char(j, ']');
}

static void write_memory(OsiJson *j, OsiExprStore *s, const OsiCost *c) {
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
    write_count(j, s, v->bytes);
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
  osi_json_raw(j, ",\"nodes\":");
  write_nodes(j, s, &c, run->model->graph);
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
  osi_json_raw(j, "]},\"memory\":");
  write_memory(j, s, &c);
  osi_json_char(j, '}');
  osi_cost_free(&c);
  return st != 0 || j->failed ? -1 : 0;
}
