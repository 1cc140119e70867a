/*
 * The driver: seed a scope from initializers and inputs, then dispatch each
 * node, in topological order, to its shape function through the operator
 * table. A node whose op is unknown or whose rule cannot apply gets unknown
 * outputs and a diagnostic; inference goes on past it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "infer.h"
#include "op_context.h"
#include "ops/op_registry.h"

const OsiType *osi_tensor_type(OsiRun *run, const OsiTensor *t) {
  OsiType *type = osi_type_tensor(run->arena, t->elem_type, t->rank);
  if (!type) return NULL;
  OsiExpr *dims = osi_type_dims_mut(type);
  for (int i = 0; i < t->rank; i++)
    dims[i] = t->dims[i] >= 0 ? osi_expr_const(run->exprs, t->dims[i]) : OSI_EXPR_UNKNOWN;
  if (t->ints) {
    OsiExpr *elems;
    OsiValue *v = osi_value_ints(run->arena, t->count, &elems);
    if (v) {
      for (int64_t i = 0; i < t->count; i++) elems[i] = osi_expr_const(run->exprs, t->ints[i]);
      type->value = v;
    }
  } else if (t->floats) {
    double *elems;
    OsiValue *v = osi_value_floats(run->arena, t->count, &elems);
    if (v) {
      memcpy(elems, t->floats, (size_t)t->count * sizeof(double));
      type->value = v;
    }
  }
  return type;
}

static OsiStatus seed(OsiContext *scope, const OsiGraph *g, int n_in,
                      const OsiType *const *in_types) {
  OsiRun *run = scope->run;
  for (int i = 0; i < g->n_initializers; i++) {
    const OsiTensor *t = &g->initializers[i];
    if (!t->name[0]) continue;
    if (osi_value_table_get(&scope->values, t->name))
      return osi_run_fail(run, OSI_ERR_DUPLICATE_DEFINITION, "",
                          "initializer '%s' is defined twice", t->name);
    OsiValueEntry *e = osi_context_define(scope, t->name, osi_tensor_type(run, t), -1);
    if (!e) return osi_run_fail(run, OSI_ERR_NOMEM, "", "out of memory");
    e->is_initializer = 1;
  }
  for (int i = 0; i < g->n_inputs; i++) {
    const OsiValueInfo *vi = &g->inputs[i];
    if (!vi->name[0]) continue;
    OsiValueEntry *prev = osi_value_table_get(&scope->values, vi->name);
    if (prev && prev->is_initializer) continue; /* initializers shadow inputs */
    if (prev)
      return osi_run_fail(run, OSI_ERR_DUPLICATE_DEFINITION, "",
                          "graph input '%s' is declared twice", vi->name);
    const OsiType *t = i < n_in && in_types && in_types[i] ? in_types[i] : vi->type;
    if (!osi_context_define(scope, vi->name, t, -1))
      return osi_run_fail(run, OSI_ERR_NOMEM, "", "out of memory");
  }
  return OSI_OK;
}

static const char *op_label(const OsiNode *n) {
  return n->domain[0] ? n->domain : "ai.onnx";
}

/* Finds the shape function for a node; NULL with a diagnostic if none. */
static OsiOpFn resolve_op(OsiContext *scope, const OsiNode *n, int index, int64_t *opset) {
  OsiRun *run = scope->run;
  const OsiOpDomain *dom = osi_op_domain(n->domain);
  const OsiOpEntry *entry = osi_op_lookup(dom, n->op_type);
  if (!entry) {
    osi_run_diag(run, "UNSUPPORTED_OP", n->name, n->op_type, index,
                 "no shape rule for %s:%s; its outputs are unknown", op_label(n), n->op_type);
    return NULL;
  }
  *opset = osi_context_opset(scope, n->domain);
  if (*opset == 0) {
    *opset = dom->max_opset;
    osi_run_diag(run, "MISSING_OPSET", n->name, n->op_type, index,
                 "the model imports no opset for domain '%s'; assuming version %d", op_label(n),
                 dom->max_opset);
  }
  if (*opset < entry->since) {
    osi_run_diag(run, "OPSET_MISMATCH", n->name, n->op_type, index,
                 "%s is not defined before opset %d of '%s' (the model imports %lld)", n->op_type,
                 entry->since, op_label(n), (long long)*opset);
    return NULL;
  }
  return entry->fn;
}

static OsiStatus infer_node(OsiContext *scope, const OsiNode *n, int index) {
  OsiRun *run = scope->run;
  OsiOpCtx op = {0};
  op.scope = scope;
  op.node = n;
  op.node_index = index;
  op.in = osi_arena_array(run->arena, (size_t)n->n_inputs + 1, sizeof(OsiType *));
  op.out = osi_arena_array(run->arena, (size_t)n->n_outputs + 1, sizeof(OsiType *));
  if (!op.in || !op.out) return osi_run_fail(run, OSI_ERR_NOMEM, n->name, "out of memory");
  for (int i = 0; i < n->n_inputs; i++) {
    if (!n->inputs[i][0]) continue;
    OsiValueEntry *e = osi_context_lookup(scope, n->inputs[i]);
    op.in[i] = e ? e->type : NULL;
  }
  OsiOpFn fn = resolve_op(scope, n, index, &op.opset);
  if (fn) {
    OsiStatus st = fn(&op);
    if (run->status != OSI_OK) return run->status; /* a subgraph failed the run */
    if (st != OSI_OK) {
      memset(op.out, 0, (size_t)n->n_outputs * sizeof(OsiType *));
      if (st == OSI_ERR_NOMEM || st == OSI_ERR_LIMIT_EXCEEDED || (run->flags & OSI_OPT_STRICT))
        return osi_run_fail(run, st, n->name, "node %d '%s' (%s): %s", index, n->name,
                            n->op_type, op.message);
      osi_run_diag(run, st == OSI_ERR_UNSUPPORTED ? "UNSUPPORTED_CASE" : osi_status_name(st),
                   n->name, n->op_type, index, "%s", op.message);
    }
  }
  for (int o = 0; o < n->n_outputs; o++) {
    if (!n->outputs[o][0]) continue;
    if (!osi_context_define(scope, n->outputs[o], op.out[o], index))
      return osi_run_fail(run, OSI_ERR_NOMEM, n->name, "out of memory");
  }
  return osi_arena_exhausted(run->arena)
             ? osi_run_fail(run, OSI_ERR_LIMIT_EXCEEDED, n->name,
                            "the run needs more than %zu bytes", (size_t)OSI_ARENA_MAX_BYTES)
             : OSI_OK;
}

OsiStatus osi_infer_graph(OsiContext *scope, const OsiGraph *g, int n_in,
                          const OsiType *const *in_types) {
  OsiStatus st = seed(scope, g, n_in, in_types);
  if (st != OSI_OK) return st;
  int *order = malloc(((size_t)g->n_nodes + 1) * sizeof(int));
  if (!order) return osi_run_fail(scope->run, OSI_ERR_NOMEM, "", "out of memory");
  st = osi_topo_order(scope, g, order);
  for (int k = 0; st == OSI_OK && k < g->n_nodes; k++)
    st = infer_node(scope, &g->nodes[order[k]], order[k]);
  free(order);
  return st;
}

/* Deepest subgraph nesting inferred (If inside Loop inside ...). */
#define MAX_SUBGRAPH_DEPTH 32

OsiStatus osi_op_infer_subgraph(OsiOpCtx *ctx, const OsiGraph *graph, const char *tag, int n_in,
                                const OsiType *const *in_types, int n_out,
                                const OsiType **out_types) {
  OsiContext *parent = ctx->scope;
  OsiRun *run = parent->run;
  for (int i = 0; i < n_out; i++) out_types[i] = NULL;
  if (parent->depth + 1 > MAX_SUBGRAPH_DEPTH)
    return osi_run_fail(run, OSI_ERR_LIMIT_EXCEEDED, ctx->node->name,
                        "subgraphs nest deeper than %d", MAX_SUBGRAPH_DEPTH);
  char path[256];
  snprintf(path, sizeof path, "%s%s/%s/", parent->path,
           ctx->node->name[0] ? ctx->node->name : ctx->node->op_type, tag);
  OsiContext child;
  if (!osi_context_init(&child, run, parent, osi_arena_strdup(run->arena, path), 0, NULL,
                        (size_t)graph->n_nodes * 2))
    return osi_run_fail(run, OSI_ERR_NOMEM, ctx->node->name, "out of memory");
  OsiStatus st = osi_infer_graph(&child, graph, n_in, in_types);
  if (st == OSI_OK)
    for (int i = 0; i < n_out && i < graph->n_outputs; i++) {
      OsiValueEntry *e = osi_context_lookup(&child, graph->outputs[i].name);
      out_types[i] = e ? e->type : NULL;
    }
  osi_context_free(&child);
  return st;
}
