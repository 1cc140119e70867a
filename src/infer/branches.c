/*
 * If branches that cannot run (ops.h osi_op_branch_that_runs).
 *
 * When an If's two branches give outputs that do not merge (a Squeeze of a
 * dim that is 1 in one branch, the input as it is in the other: ranks that
 * differ) and the sizes leave its condition open, the merged type knows
 * little, and neither does anything after it. But the model only runs if
 * what comes after can take the branch's outputs: the rest of the graph is
 * inferred once with each branch's outputs, under the condition that takes
 * that branch (a fact, as a requirement); a branch after which a node of
 * this graph fails (a rank its consumer refuses, a size that contradicts a
 * requirement) cannot be the one taken where the model runs.
 *
 * Such a run is speculative: it is inferred like the real one but leaves
 * nothing behind. Its diagnostics, constraints, requirements, events and
 * facts go back to their marks, the values it defined get their state
 * back, its bodies are not kept (as in a loop probe), its fresh dims are
 * named apart and their numbering is set back, and the run's status and
 * flags are restored. Only failures of nodes that run wherever the If does
 * count: of this graph, or of a later If's branch that its known condition
 * takes (pytorch 2.x's LSTM, its rank test an If inside the If on the
 * state's batch); a node inside a branch under an open condition or in a
 * loop body may be one that never runs.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "infer/facts.h"
#include "infer/infer.h"
#include "infer/op_context.h"

/* The nodes a speculative run may infer (each of the two runs): past that
 * the If merges as it does without it. */
#define MAX_SPECULATED_NODES 20000

typedef struct Saved {
  OsiValueEntry *entry;
  const OsiType *type;
  int pending, producer;
} Saved;

/* Nodes of g and of the graphs nested in it, counted up to `cap` (more
 * gives cap + 1): only whether a run fits MAX_SPECULATED_NODES matters. */
static int64_t nodes_capped(const OsiGraph *g, int64_t cap, int depth, int64_t *looked) {
  int64_t n = g ? g->n_nodes : 0;
  for (int i = 0; g && n <= cap && depth < 256 && i < g->n_nodes; i++) {
    ++*looked;
    for (int a = 0; n <= cap && !g->nodes[i].graph_free && a < g->nodes[i].n_attrs; a++) {
      const OsiAttr *at = &g->nodes[i].attrs[a];
      if (at->type == OSI_ATTR_GRAPH) n += nodes_capped(at->g, cap - n, depth + 1, looked);
      for (size_t k = 0; at->type == OSI_ATTR_GRAPHS && n <= cap && k < at->n; k++)
        n += nodes_capped(at->graphs[k], cap - n, depth + 1, looked);
    }
  }
  return n > cap ? cap + 1 : n;
}

/* Nodes of the rest of the walk, their subgraphs' included, up to
 * MAX_SPECULATED_NODES + 1 (past it no run is tried); -1 out of memory.
 * Counted once per walk from its end, so that a graph of many Ifs costs
 * linear time, not the rest of the graph at each of them. */
static int64_t rest_nodes(OsiRun *run, OsiWalk *w) {
  const int64_t cap = MAX_SPECULATED_NODES + 1;
  if (!w->rest) {
    w->rest = malloc(((size_t)w->graph->n_nodes + 1) * sizeof *w->rest);
    if (!w->rest) return -1;
    int64_t n = 0;
    w->rest[w->graph->n_nodes] = 0;
    for (int k = w->graph->n_nodes - 1; k >= 0; k--) {
      run->nodes_counted++;
      if (n < cap) {
        const OsiNode *node = &w->graph->nodes[w->order[k]];
        n++;
        for (int a = 0; n < cap && !node->graph_free && a < node->n_attrs; a++) {
          const OsiAttr *at = &node->attrs[a];
          if (at->type == OSI_ATTR_GRAPH) n += nodes_capped(at->g, cap - n, 0, &run->nodes_counted);
          for (size_t i = 0; at->type == OSI_ATTR_GRAPHS && n < cap && i < at->n; i++)
            n += nodes_capped(at->graphs[i], cap - n, 0, &run->nodes_counted);
        }
        if (n > cap) n = cap;
      }
      w->rest[k] = (int32_t)n;
    }
  }
  return w->rest[w->at + 1];
}

static int is_failure(const char *code) {
  return strcmp(code, "SHAPE_MISMATCH") == 0 || strcmp(code, "INVALID_MODEL") == 0;
}

/* Whether the rest of the graph fails with the node's outputs typed `types`
 * under the condition of branch b: 1 fails (why says where), 0 runs, -1
 * not known (the run hit a limit, or the diagnostics are full). */
static int fails_with(OsiOpCtx *ctx, int b, int n_out, const OsiType *const *types, OsiExpr cond, Saved *saved,
                      int n_saved, char *why, size_t cap) {
  OsiContext *scope = ctx->scope;
  OsiRun *run = scope->run;
  OsiWalk *walk = scope->walk;
  OsiExprStore *s = run->exprs;
  OsiMark mark = osi_op_mark(ctx);
  uint32_t flags = run->flags;
  uint64_t fresh = osi_expr_fresh_mark(s);
  int n_order = scope->n_order, before_join = run->values_before_join, joins = run->joins_seen;
  OsiStatus status = run->status;
  int64_t visits = run->node_visits;
  run->flags &= ~(uint32_t)OSI_OPT_STRICT; /* a failure is what is looked for, not the end of the run */
  run->probing++;
  run->speculating++;
  int verdict = 0;
  /* The condition that takes branch b, as a fact for the nodes after. */
  OsiExpr lhs, rhs;
  int le;
  if (!osi_expr_predicate_relation(s, cond, b == 0, &lhs, &rhs, &le)) {
    lhs = b == 0 ? osi_expr_const(s, 1) : cond;
    rhs = b == 0 ? cond : osi_expr_const(s, 0);
    le = 1;
  }
  OsiRequirement q = {lhs, rhs, le, ctx->node_index, ctx->node->name, ctx->node->op_type, scope->path, "",
                      OSI_EXPR_UNKNOWN, 0};
  int against;
  OsiReqVerdict v = osi_requirements_add(&run->requirements, s, run->arena, &q, &against);
  if (v == OSI_REQ_CONTRADICTS) {
    const OsiRequirement *r = against >= 0 ? &run->requirements.items[against] : NULL;
    char req[400];
    if (r)
      snprintf(why, cap, "its condition %s %s %s contradicts what node %d '%.64s' (%s) requires: %s",
               osi_expr_str(s, lhs), le ? "<=" : "==", osi_expr_str(s, rhs), r->node_index, r->node, r->op_type,
               osi_requirement_text(s, r, req, sizeof req));
    else
      snprintf(why, cap, "its condition %s %s %s never holds", osi_expr_str(s, lhs), le ? "<=" : "==",
               osi_expr_str(s, rhs));
    verdict = 1;
  } else {
    if (v == OSI_REQ_RECORDED) osi_facts_add_requirement(run, run->requirements.count - 1);
    OsiValueEntry *const *out = walk->wiring->out + walk->wiring->out_at[walk->order[walk->at]];
    for (int o = 0; o < n_out; o++)
      if (out[o]) osi_context_define_entry(scope, out[o], out[o]->pending, types[o], ctx->node_index);
    for (int k = walk->at + 1; k < walk->graph->n_nodes && run->status == OSI_OK; k++) {
      int node = walk->order[k];
      if (osi_infer_node(scope, &walk->graph->nodes[node], node, walk->wiring) != OSI_OK) break;
    }
    if (run->status != OSI_OK || run->n_diags >= OSI_MAX_DIAGNOSTICS) verdict = -1;
    size_t at = strlen(scope->path);
    for (int i = mark.diags; i < run->n_diags && verdict == 0; i++) {
      const OsiDiagnostic *d = &run->diags[i];
      if (!is_failure(d->code) || d->uncertain != run->uncertain || strncmp(d->path, scope->path, at) != 0) continue;
      const char *in = d->path[at] ? " in " : "", *sub = d->path + at;
      if (d->node[0])
        snprintf(why, cap, "node %d '%.64s' (%s)%s%.100s: %.300s", d->node_index, d->node, d->op_type, in, sub, d->message);
      else snprintf(why, cap, "node %d (%s)%s%.100s: %.300s", d->node_index, d->op_type, in, sub, d->message);
      verdict = 1;
    }
  }
  /* Everything back as it was. */
  run->cur_node = ctx->node_index;
  run->cur_node_name = ctx->node->name;
  run->cur_op_type = ctx->node->op_type;
  run->cur_path = scope->path;
  osi_op_rollback(ctx, mark);
  run->flags = flags;
  run->probing--;
  run->speculating--;
  osi_expr_fresh_rollback(s, fresh);
  for (int i = 0; i < n_saved; i++) {
    saved[i].entry->type = saved[i].type;
    saved[i].entry->pending = saved[i].pending;
    saved[i].entry->producer = saved[i].producer;
  }
  scope->n_order = n_order;
  run->speculative_visits += run->node_visits - visits;
  run->node_visits = visits;
  run->values_before_join = before_join;
  run->joins_seen = joins;
  run->status = status;
  return verdict;
}

int osi_op_branch_that_runs(OsiOpCtx *ctx, int n_out, const OsiType *const *types[2], OsiExpr cond, char *why,
                            size_t cap) {
  OsiContext *scope = ctx->scope;
  OsiRun *run = scope->run;
  OsiWalk *walk = scope->walk;
  if (!walk || run->probing || run->speculating || cond == OSI_EXPR_UNKNOWN) return -1;
  if (walk->order[walk->at] != ctx->node_index) return -1;
  int64_t rest = rest_nodes(run, walk);
  /* Two runs of the rest, within what the real run may still infer (the
   * runs start from its count) and within the budget of such runs. */
  int64_t left = osi_op_visits_left(ctx);
  if (rest <= 0 || rest > MAX_SPECULATED_NODES || left < 2 * rest + 16 ||
      run->speculative_visits + 2 * rest > run->node_visits + left)
    return -1;
  /* The state of every value the runs define: this node's outputs and the rest's. */
  int n_saved = 0, cap_saved = 0;
  for (int k = walk->at; k < walk->graph->n_nodes; k++) cap_saved += walk->graph->nodes[walk->order[k]].n_outputs;
  Saved *saved = osi_arena_array(run->arena, (size_t)cap_saved + 1, sizeof *saved);
  if (!saved) return -1;
  for (int k = walk->at; k < walk->graph->n_nodes; k++) {
    int node = walk->order[k];
    OsiValueEntry *const *out = walk->wiring->out + walk->wiring->out_at[node];
    for (int o = 0; o < walk->graph->nodes[node].n_outputs; o++)
      if (out[o]) saved[n_saved++] = (Saved){out[o], out[o]->type, out[o]->pending, out[o]->producer};
  }
  char whys[2][512] = {"", ""};
  int verdict[2];
  for (int b = 0; b < 2; b++) {
    verdict[b] = fails_with(ctx, b, n_out, types[b], cond, saved, n_saved, whys[b], sizeof whys[b]);
    if (verdict[b] < 0) return -1;
  }
  if (verdict[0] == verdict[1]) return -1;
  int runs = verdict[0] ? 1 : 0;
  snprintf(why, cap, "%s", whys[1 - runs]);
  return runs;
}
