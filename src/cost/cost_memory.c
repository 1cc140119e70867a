/*
 * Activation memory over the schedule (README "Cost"). The schedule is the
 * engine's topological order of the model graph's nodes (inference's own
 * order: the file's order wherever that is one). An activation is every
 * value of the graph but the weights (initializers and Constant outputs):
 * a graph input is live from the first step, a node's output from its
 * producer's step; each stays live until the last step that reads it (a
 * node whose body reads it counts), a graph output until the last step.
 * The peak is an expression only when one step's live bytes are at least
 * every other step's for every value of the symbols (the expression
 * store's order prover decides); otherwise it is known at a binding only
 * (js/cost.js runs the same sweep on numbers).
 */
#include <stdlib.h>
#include <string.h>

#include "cost/cost_internal.h"

/* Incomparable candidates kept for the peak before giving up on one. */
#define MAX_CANDIDATES 8

static int is_weight(const OsiGraph *g, const OsiValueEntry *e) {
  if (e->is_initializer) return 1;
  if (e->producer < 0 || e->producer >= g->n_nodes) return 0;
  const OsiNode *n = &g->nodes[e->producer];
  return !n->domain[0] && !strcmp(n->op_type, "Constant");
}

/* Steps at which the body `sc` runs: the step of its top-level node. */
static int ancestor_node(const OsiRun *run, const OsiScopeLog *sc) {
  for (int depth = 0; sc && depth < 256; depth++) {
    if (!sc->caller[0]) return sc->node_index;
    OsiValueEntry *e = run->scope_index.cap ? osi_value_table_get(&run->scope_index, sc->caller) : NULL;
    sc = e ? &run->scopes[e->producer] : NULL;
  }
  return -1;
}

static void extend(int *to, const OsiValueEntry *e, int step) {
  if (e && to[e->order] < step) to[e->order] = step;
}

/* The last step of every value, outer reads of bodies and graph outputs
 * included; values at index entry->order. */
static void last_uses(OsiRun *run, const OsiContext *root, const int *step_of, int last, int *to) {
  const OsiGraph *g = run->model->graph;
  for (int k = 0; k < g->n_nodes; k++) {
    const OsiValueEntry *const *io = run->top_io + run->top_io_at[k];
    for (int i = 0; i < g->nodes[k].n_inputs; i++) extend(to, io[i], step_of[k]);
  }
  for (int s = 0; s < run->n_scopes; s++) {
    const OsiScopeLog *sc = &run->scopes[s];
    int node = ancestor_node(run, sc);
    if (node < 0 || node >= g->n_nodes) continue;
    size_t at = 0;
    for (int k = 0; k < sc->graph.n_nodes; k++)
      for (int i = 0; i < sc->graph.nodes[k].n_inputs; i++, at++)
        if (sc->where[at] && !sc->where[at][0]) extend(to, osi_context_get(root, sc->graph.nodes[k].inputs[i]), step_of[node]);
    for (int i = 0; i < sc->graph.n_outputs; i++, at++)
      if (sc->where[at] && !sc->where[at][0]) extend(to, osi_context_get(root, sc->graph.outputs[i].name), step_of[node]);
  }
  for (int i = 0; i < g->n_outputs; i++) extend(to, osi_context_get(root, g->outputs[i].name), last);
}

/* Keeps the candidates no other live-bytes expression is proven to
 * dominate; returns 0 once they are more than MAX_CANDIDATES. */
static int consider(OsiExprStore *s, OsiExpr *cand, int *cand_step, int *n, OsiExpr live, int step) {
  for (int i = 0; i < *n; i++) {
    OsiExpr m = osi_expr_max(s, cand[i], live);
    if (m == cand[i]) return 1; /* dominated (or equal) */
    if (m == live) {            /* dominates cand[i] */
      cand[i] = cand[--*n];
      cand_step[i] = cand_step[*n];
      i--;
    }
  }
  if (*n == MAX_CANDIDATES) return 0;
  cand[*n] = live;
  cand_step[(*n)++] = step;
  return 1;
}

void osi_cost_schedule(OsiCost *c, OsiRun *run, const OsiContext *root) {
  const OsiGraph *g = run->model->graph;
  OsiExprStore *s = run->exprs;
  int n = g->n_nodes, steps = n > 0 ? n : 1, n_values = root->n_order;
  c->order = run->top_order;
  c->n_steps = n;
  c->peak = OSI_EXPR_UNKNOWN;
  c->peak_step = -1;
  if (n > 0 && (!run->top_order || !run->top_io)) return (void)(c->failed = 1);
  int *step_of = malloc(((size_t)n + 1) * sizeof *step_of);
  int *to = malloc(((size_t)n_values + 1) * sizeof *to);
  c->live = malloc(((size_t)n_values + 1) * sizeof *c->live);
  if (!step_of || !to || !c->live) {
    c->failed = 1;
    goto done;
  }
  for (int k = 0; k < n; k++) step_of[run->top_order[k]] = k;
  for (int v = 0; v < n_values; v++) {
    const OsiValueEntry *e = root->order[v];
    to[v] = e->producer >= 0 && e->producer < n ? step_of[e->producer] : 0;
  }
  last_uses(run, root, step_of, steps - 1, to);
  c->n_live = 0;
  for (int v = 0; v < n_values; v++) {
    const OsiValueEntry *e = root->order[v];
    if (is_weight(g, e)) continue;
    int from = e->producer >= 0 && e->producer < n ? step_of[e->producer] : 0;
    c->live[c->n_live++] = (OsiLiveValue){e->name, osi_cost_bytes_cached(c, s, e->type), from, to[v]};
  }
  /* The sweep: live bytes per step, the unknown ones counted apart. */
  int *starts = calloc((size_t)steps + 1, sizeof *starts), *ends = calloc((size_t)steps + 1, sizeof *ends);
  int *by_start = malloc(((size_t)c->n_live + 1) * sizeof *by_start);
  int *by_end = malloc(((size_t)c->n_live + 1) * sizeof *by_end);
  if (!starts || !ends || !by_start || !by_end) {
    c->failed = 1;
  } else {
    for (int i = 0; i < c->n_live; i++) starts[c->live[i].from + 1]++, ends[c->live[i].to + 1]++;
    for (int k = 0; k < steps; k++) starts[k + 1] += starts[k], ends[k + 1] += ends[k];
    for (int i = 0; i < c->n_live; i++) by_start[starts[c->live[i].from]++] = i, by_end[ends[c->live[i].to]++] = i;
    OsiExpr live = osi_expr_const(s, 0), last = OSI_EXPR_UNKNOWN, cand[MAX_CANDIDATES];
    int unknown = 0, ok = 1, n_cand = 0, cand_step[MAX_CANDIDATES], a = 0, b = 0;
    for (int k = 0; k < steps && ok; k++) {
      for (; a < c->n_live && c->live[by_start[a]].from == k; a++) {
        OsiExpr bytes = c->live[by_start[a]].bytes;
        if (bytes == OSI_EXPR_UNKNOWN) unknown++;
        else live = osi_expr_add(s, live, bytes);
      }
      ok = !unknown && live != OSI_EXPR_UNKNOWN;
      if (ok && live != last) ok = consider(s, cand, cand_step, &n_cand, live, k);
      last = live;
      for (; b < c->n_live && c->live[by_end[b]].to == k; b++) {
        OsiExpr bytes = c->live[by_end[b]].bytes;
        if (bytes == OSI_EXPR_UNKNOWN) unknown--;
        else live = osi_expr_sub(s, live, bytes);
      }
    }
    if (ok && n_cand == 1) {
      c->peak = cand[0];
      c->peak_step = cand_step[0];
    }
  }
  free(starts);
  free(ends);
  free(by_start);
  free(by_end);
done:
  free(step_of);
  free(to);
}
