/*
 * The driver: seed a scope from initializers and inputs, then dispatch each
 * node, in topological order: to a model-local function (its body inferred
 * in a child scope), to a registered custom shape function, or to the
 * built-in operator table. A node whose op is unknown or whose rule cannot
 * apply gets unknown outputs and a diagnostic; inference goes on past it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/small_copy.h"
#include "infer/custom_ops.h"
#include "infer/facts.h"
#include "infer/functions.h"
#include "infer/infer.h"
#include "infer/op_context.h"
#include "ops/fold.h"
#include "ops/op_arity.h"
#include "ops/op_registry.h"

static void event_set(OsiRun *run, const char *kind, const char *name, const OsiType *t) {
  if (!OSI_EVENTS_ON(run)) return;
  char buf[512];
  osi_run_event(run, kind, name, "%s", osi_type_text(run->exprs, t, buf, sizeof buf));
}

static OsiStatus seed(OsiContext *scope, const OsiGraph *g, int n_in,
                      const OsiType *const *in_types) {
  OsiRun *run = scope->run;
  const OsiModel *m = run->model;
  if (!scope->parent && m && g == m->graph && m->n_name_ids && !scope->by_id && !scope->n_order) {
    scope->by_id = calloc(m->n_name_ids, sizeof *scope->by_id);
    if (!scope->by_id) return osi_run_fail(run, OSI_ERR_NOMEM, "", "out of memory");
    scope->n_by_id = m->n_name_ids;
    scope->table_pending = 1;
    osi_value_table_free(&scope->values); /* built when first needed */
  }
  for (int i = 0; i < g->n_initializers; i++) {
    const OsiTensor *t = &g->initializers[i];
    if (!t->name[0]) continue;
    if (osi_context_get_model_name(scope, t->name))
      return osi_run_fail(run, OSI_ERR_DUPLICATE_DEFINITION, "",
                          "initializer '%s' is defined twice", t->name);
    OsiValueEntry *e = osi_context_define(scope, t->name, osi_tensor_type(run, t), -1);
    if (!e) return osi_run_fail(run, OSI_ERR_NOMEM, "", "out of memory");
    e->is_initializer = 1;
  }
  for (int i = 0; i < g->n_inputs; i++) {
    const OsiValueInfo *vi = &g->inputs[i];
    if (!vi->name[0]) continue;
    OsiValueEntry *prev = osi_context_get_model_name(scope, vi->name);
    if (prev && prev->is_initializer) continue; /* initializers shadow inputs */
    if (prev)
      return osi_run_fail(run, OSI_ERR_DUPLICATE_DEFINITION, "",
                          "graph input '%s' is declared twice", vi->name);
    const OsiType *t = i < n_in && in_types && in_types[i] ? in_types[i] : vi->type;
    if (!osi_context_define(scope, vi->name, t, -1))
      return osi_run_fail(run, OSI_ERR_NOMEM, "", "out of memory");
    event_set(run, "seed", vi->name, t);
    osi_facts_add_input_sizes(run, vi->name, t, scope->path);
  }
  return OSI_OK;
}

/* "INT", "FLOATS", ... (AttributeProto.AttributeType names). */
static const char *attr_type_name(OsiAttrType t) {
  static const char *const names[] = {"UNDEFINED", "FLOAT",  "INT",     "STRING",  "TENSOR",
                                      "GRAPH",     "FLOATS", "INTS",    "STRINGS", "TENSORS",
                                      "GRAPHS",    "SPARSE_TENSOR", "SPARSE_TENSORS",
                                      "TYPE_PROTO", "TYPE_PROTOS"};
  return (int)t >= 0 && (size_t)t < sizeof names / sizeof names[0] ? names[t] : "an unknown type";
}

static const char *op_label(const OsiNode *n) {
  return n->domain[0] ? n->domain : "ai.onnx";
}

/* Finds the built-in shape function for a node; NULL with a diagnostic if none. */
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

/* "input" or "inputs", agreeing with the last number allowed() prints. */
static const char *plural(int lo, int hi, const char *word, char *buf, size_t size) {
  int last = hi == OSI_ARITY_ANY || lo == hi ? lo : hi;
  snprintf(buf, size, "%s%s", word, last == 1 ? "" : "s");
  return buf;
}

/* "3", "1 to 4", "at least 1": what the spec allows. */
static const char *allowed(int lo, int hi, char *buf, size_t size) {
  if (hi == OSI_ARITY_ANY) snprintf(buf, size, "at least %d", lo);
  else if (lo == hi) snprintf(buf, size, "%d", lo);
  else snprintf(buf, size, "%d to %d", lo, hi);
  return buf;
}

/* osi_in_present / osi_out_present for an index known in range, inline:
 * infer_node asks for every input and output of every node. */
static inline int has_input(const OsiOpCtx *op, int i) {
  return op->in_entry ? op->in_entry[i] != NULL : op->node->inputs[i][0] != 0;
}

static inline int has_output(const OsiOpCtx *op, int o) {
  return op->out_entry ? op->out_entry[o] != NULL : op->node->outputs[o][0] != 0;
}

/* The node's input and output counts against its op's signature at the
 * resolved opset (ops/op_arity.h), as the ONNX checker onnxruntime runs at
 * session creation counts them: every listed name, empty ones included (a
 * trailing "" is an absent optional input, within the maximum), and no
 * single (non-optional, non-variadic) input left empty. */
static OsiStatus check_arity(OsiOpCtx *op, const OsiArity *a) {
  const OsiNode *n = op->node;
  if (!a) return OSI_OK;
  char range[48], word[16];
  if (n->n_inputs < a->min_in || n->n_inputs > a->max_in) {
    snprintf(op->message, sizeof op->message, "%s takes %s %s, this node has %d", n->op_type,
             allowed(a->min_in, a->max_in, range, sizeof range),
             plural(a->min_in, a->max_in, "input", word, sizeof word), n->n_inputs);
    return OSI_ERR_INVALID_MODEL;
  }
  if (n->n_outputs < a->min_out || n->n_outputs > a->max_out) {
    snprintf(op->message, sizeof op->message, "%s takes %s %s, this node has %d", n->op_type,
             allowed(a->min_out, a->max_out, range, sizeof range),
             plural(a->min_out, a->max_out, "output", word, sizeof word), n->n_outputs);
    return OSI_ERR_INVALID_MODEL;
  }
  for (int i = 0; i < n->n_inputs && a->in_kinds[i]; i++)
    if (a->in_kinds[i] == 'r' && !has_input(op, i)) {
      snprintf(op->message, sizeof op->message,
               "input %d of %s is required (not optional), but this node leaves it empty (\"\")", i,
               n->op_type);
      return OSI_ERR_INVALID_MODEL;
    }
  return OSI_OK;
}

/* Runs the node's own rule (a registered shape function's, or the built-in
 * one) within its share of the expression work budget (expr.h): past it,
 * the sizes the rule computes are unknown, and a note says so (once the
 * run's own budget is spent, one note about the run says so instead). */
static OsiStatus run_rule(OsiRun *run, OsiOpCtx *op, OsiOpFn rule, const OsiCustomOp *custom) {
  OsiExprWork work;
  osi_expr_work_begin(run->exprs, &work, OSI_EXPR_WORK_PER_NODE);
  OsiStatus st = rule ? rule(op) : osi_custom_op_call(op, custom);
  /* Contents the rule left out, computed from the inputs' (ops/fold.h). */
  if (rule && st == OSI_OK && !op->node->domain[0]) osi_op_fold(op);
  if (osi_expr_work_end(run->exprs, &work) && !work.outer_out)
    osi_op_diag(op, "LIMIT_EXCEEDED",
                "the sizes this node computes take more than %llu steps of expression work (or "
                "more than the run has left): some are unknown",
                (unsigned long long)work.granted);
  return st;
}

/* Runs whichever rule applies to the node; outputs land in op->out. */
static OsiStatus dispatch(OsiContext *scope, OsiOpCtx *op) {
  OsiRun *run = scope->run;
  const OsiNode *n = op->node;
  const OsiFunction *fn = run->model && run->model->n_functions ? osi_function_find(run->model, n) : NULL;
  if (fn) {
    OsiFunctionCall call;
    OsiStatus st = osi_function_enter(op, fn, &call);
    if (st != OSI_OK) return st;
    st = osi_infer_child(op, &call.body, fn->name, NULL, call.n_opsets, call.opsets, call.n_in,
                         call.in_types, call.n_out, op->out);
    osi_function_leave(run);
    return st;
  }
  OsiCustomOp custom = osi_registry_find(run->registry, n->domain, n->op_type);
  if (custom.fn) {
    op->opset = osi_context_opset(scope, n->domain);
    return run_rule(run, op, NULL, &custom);
  }
  /* The top-level scope's opsets are the model's, the same for every node. */
  int top = !scope->parent && !scope->path[0];
  size_t at = ((uintptr_t)n->op_type >> 3) & 63;
  OsiOpFn rule;
  const OsiArity *arity;
  if (top && run->op_cache[at].op_type == n->op_type && run->op_cache[at].domain == n->domain &&
      n->op_type) {
    rule = (OsiOpFn)run->op_cache[at].rule;
    op->opset = run->op_cache[at].opset;
    arity = run->op_cache[at].arity;
  } else {
    rule = resolve_op(scope, n, op->node_index, &op->opset);
    if (!rule) return OSI_OK;
    arity = osi_op_arity(n->domain, n->op_type, op->opset);
    /* (an opset the model imports: resolve_op said nothing) */
    if (top && osi_context_opset(scope, n->domain) == op->opset) {
      run->op_cache[at].op_type = n->op_type;
      run->op_cache[at].domain = n->domain;
      run->op_cache[at].rule = (void (*)(void))rule;
      run->op_cache[at].opset = op->opset;
      run->op_cache[at].arity = arity;
    }
  }
  OsiStatus st = check_arity(op, arity);
  if (st != OSI_OK) return st;
  return run_rule(run, op, rule, NULL);
}

static int fully_known(const OsiType *t, int depth) {
  if (!t || depth > 8) return 0;
  if (t->kind == OSI_KIND_SEQUENCE || t->kind == OSI_KIND_OPTIONAL) return fully_known(t->elem, depth + 1);
  if (t->kind != OSI_KIND_TENSOR && t->kind != OSI_KIND_SPARSE_TENSOR) return 1;
  if (t->rank < 0) return 0;
  for (int i = 0; i < t->rank; i++)
    if (t->dims[i] == OSI_EXPR_UNKNOWN) return 0;
  return 1;
}

/*
 * A node whose inputs are all fully known but which left an output
 * (partly) unknown without saying why gets a diagnostic naming the likely
 * cause: inputs whose content decides the shape but is not known before
 * the model runs. Unknowns inherited from unknown inputs are not repeated.
 */
static void explain_unknown_outputs(OsiRun *run, const OsiOpCtx *op) {
  const OsiNode *n = op->node;
  int first_unknown = -1;
  /* Only tensors: a sequence's element type is by design a merge of its
   * elements' types, which may differ. */
  for (int o = 0; o < n->n_outputs && first_unknown < 0; o++)
    if (has_output(op, o) && op->out[o] && op->out[o]->kind == OSI_KIND_TENSOR &&
        !fully_known(op->out[o], 0))
      first_unknown = o;
  if (first_unknown < 0) return;
  for (int i = 0; i < n->n_inputs; i++)
    if (has_input(op, i) && !fully_known(op->in[i], 0)) return;
  char names[256] = "";
  size_t at = 0;
  for (int i = 0; i < n->n_inputs; i++) {
    const OsiType *t = op->in[i];
    if (!osi_in_present(op, i) || !t || t->kind != OSI_KIND_TENSOR || t->value) continue;
    int is_int = osi_dtype_is_integer(t->elem_type);
    if (!is_int && !osi_dtype_is_float(t->elem_type)) continue;
    int64_t count = 1, d;
    for (int k = 0; k < t->rank && count <= OSI_MAX_VALUE_ELEMS; k++)
      if (!osi_expr_is_const(run->exprs, t->dims[k], &d) || d < 0 || __builtin_mul_overflow(count, d, &count))
        count = OSI_MAX_VALUE_ELEMS + 1; /* unknown, or past any small tensor (checked: no wrap) */
    /* Shape, axes, sizes (integer vectors) and scales (a few floats)
     * decide shapes; larger or float data tensors do not. */
    if (t->rank > 1 || count > (is_int ? 64 : 8)) continue;
    at += (size_t)snprintf(names + at, at < sizeof names ? sizeof names - at : 0, "%s'%s'",
                           at ? ", " : "", n->inputs[i]);
    if (at >= sizeof names) break;
  }
  if (names[0])
    osi_run_diag(run, "DATA_DEPENDENT", n->name, n->op_type, op->node_index,
                 "output '%s' is not fully known: it depends on the content of %s, which is not "
                 "known before the model runs", n->outputs[first_unknown], names);
  else
    osi_run_diag(run, "UNKNOWN_SHAPE", n->name, n->op_type, op->node_index,
                 "output '%s' is not fully known although every input shape is", n->outputs[first_unknown]);
}

/* A constant negative dim in t (or its elements), with its position. */
static int negative_dim(OsiExprStore *s, const OsiType *t, int depth, int *axis, int64_t *value) {
  if (!t || depth > 8) return 0;
  for (int i = 0; (t->kind == OSI_KIND_TENSOR || t->kind == OSI_KIND_SPARSE_TENSOR) && i < t->rank; i++)
    if (osi_expr_is_const(s, t->dims[i], value) && *value < 0) return *axis = i, 1;
  return negative_dim(s, t->elem, depth + 1, axis, value);
}

/* The last line of defence for hostile attributes and inputs: a rule that
 * computed a negative size was given an impossible one (unless an input
 * already has one: that comes from a declared shape, not this node). The
 * outputs are read first: the inputs only matter when one has such a dim,
 * and reading every input's dims of every node was 6% of a CNN's
 * inference. */
static OsiStatus reject_negative_dims(OsiRun *run, OsiOpCtx *op) {
  const OsiNode *n = op->node;
  for (int o = 0; o < n->n_outputs; o++) {
    int axis;
    int64_t v;
    if (has_output(op, o) && negative_dim(run->exprs, op->out[o], 0, &axis, &v)) {
      for (int i = 0; i < n->n_inputs; i++) {
        int in_axis;
        int64_t in_v;
        if (has_input(op, i) && negative_dim(run->exprs, op->in[i], 0, &in_axis, &in_v)) return OSI_OK;
      }
      snprintf(op->message, sizeof op->message,
               "output '%.100s' would have dim %d = %lld: the node's inputs or attributes give an impossible size",
               n->outputs[o], axis, (long long)v);
      return OSI_ERR_INVALID_MODEL;
    }
  }
  return OSI_OK;
}

/* Nodes of `g` and of every subgraph in its attributes. */
static int64_t count_nodes(const OsiGraph *g, int depth) {
  int64_t n = g ? g->n_nodes : 0;
  for (int i = 0; g && depth < 256 && i < g->n_nodes; i++)
    for (int a = 0; !g->nodes[i].graph_free && a < g->nodes[i].n_attrs; a++) {
      const OsiAttr *at = &g->nodes[i].attrs[a];
      if (at->type == OSI_ATTR_GRAPH) n += count_nodes(at->g, depth + 1);
      for (size_t k = 0; at->type == OSI_ATTR_GRAPHS && k < at->n; k++)
        n += count_nodes(at->graphs[k], depth + 1);
    }
  return n;
}

/* The run's node budget (see OSI_NODE_VISITS_BASE): the model's nodes,
 * function bodies included, OSI_NODE_VISITS_PER_NODE times each. */
static int64_t node_budget(const OsiModel *m) {
  int64_t n = m ? count_nodes(m->graph, 0) : 0;
  for (int f = 0; m && f < m->n_functions; f++) {
    OsiGraph body = {.nodes = m->functions[f].nodes, .n_nodes = m->functions[f].n_nodes};
    n += count_nodes(&body, 0);
  }
  return OSI_NODE_VISITS_BASE + OSI_NODE_VISITS_PER_NODE * n;
}

/* t with its dims reduced by the requirements (osi_requirements_reduce);
 * t itself when nothing changes. Contents are left: a Shape reads dims
 * already reduced, and no fold of sizes makes a Broadcast. */
static const OsiType *reduce_type(OsiRun *run, const OsiType *t, int depth) {
  if (!t || depth > 16) return t;
  const OsiType *elem = reduce_type(run, t->elem, depth + 1);
  int changed = elem != t->elem;
  OsiExpr dims[OSI_MAX_RANK];
  for (int i = 0; i < t->rank; i++) {
    dims[i] = osi_requirements_reduce(&run->requirements, run->exprs, t->dims[i]);
    changed |= dims[i] != t->dims[i];
  }
  if (!changed) return t;
  OsiType *nt = osi_type_copy(run->arena, t);
  if (!nt) return t;
  for (int i = 0; i < t->rank; i++) osi_type_dims_mut(nt)[i] = dims[i];
  nt->elem = elem;
  return nt;
}

/* Inputs or outputs of a node whose types infer_node keeps on its stack. */
#define INLINE_IO 16

OsiStatus osi_infer_node(OsiContext *scope, const OsiNode *n, int index, OsiWiring *w) {
  OsiRun *run = scope->run;
  if (run->max_node_visits == 0) run->max_node_visits = node_budget(run->model);
  if (++run->node_visits > run->max_node_visits)
    return osi_run_fail(run, OSI_ERR_LIMIT_EXCEEDED, n->name,
                        "inference would infer more than %lld nodes for this model (function bodies "
                        "are inferred at every call, loop bodies until their types settle)",
                        (long long)run->max_node_visits);
  /* Field by field: `= {0}` would clear the message buffer on every node. */
  OsiOpCtx op;
  op.scope = scope;
  op.node = n;
  op.node_index = index;
  op.opset = 0;
  op.message[0] = '\0';
  op.bad_attr = NULL;
  op.bad_attr_want = 0;
  op.in_entry = w->in + w->in_at[index];
  op.out_entry = w->out + w->out_at[index];
  /* The types in and out live as long as this call (what stays is each
   * output's entry, below): on the stack for the usual counts, not one
   * arena allocation per node. */
  const OsiType *in_here[INLINE_IO + 1], *out_here[INLINE_IO + 1];
  op.in = n->n_inputs <= INLINE_IO ? in_here
                                   : osi_arena_array(run->arena, (size_t)n->n_inputs + 1, sizeof(OsiType *));
  op.out = n->n_outputs <= INLINE_IO ? out_here
                                     : osi_arena_array(run->arena, (size_t)n->n_outputs + 1, sizeof(OsiType *));
  if (!op.in || !op.out) return osi_run_fail(run, OSI_ERR_NOMEM, n->name, "out of memory");
  op.in[n->n_inputs] = NULL;
  osi_zero_small(op.out, ((size_t)n->n_outputs + 1) * sizeof(OsiType *));
  const OsiValueEntry **kept =
      !scope->parent && !scope->path[0] && run->top_io ? run->top_io + run->top_io_at[index] : NULL;
  OsiValueEntry *const *in = w->in + w->in_at[index];
  for (int i = 0; i < n->n_inputs; i++) {
    OsiValueEntry *e = in[i]; /* NULL when omitted */
    op.in[i] = e ? e->type : NULL;
    if (kept) kept[i] = e;
  }
  run->cur_node = index;
  run->cur_node_name = n->name;
  run->cur_op_type = n->op_type;
  run->cur_path = scope->path;
  int diags_before = run->n_diags;
  OsiStatus st = dispatch(scope, &op);
  if (run->status != OSI_OK) return run->status; /* a subgraph failed the run */
  /* An attribute of the wrong type (read by the rule as its default) is the
   * node's real problem, whatever the rule concluded from the default. */
  if (op.bad_attr && st != OSI_ERR_NOMEM && st != OSI_ERR_LIMIT_EXCEEDED) {
    st = OSI_ERR_INVALID_MODEL;
    snprintf(op.message, sizeof op.message, "attribute '%s' has type %s; expected %s",
             op.bad_attr->name, attr_type_name(op.bad_attr->type),
             attr_type_name((OsiAttrType)op.bad_attr_want));
  }
  if (st == OSI_OK) st = reject_negative_dims(run, &op);
  if (st == OSI_OK && osi_requirements_join_any(&run->requirements, run->exprs)) {
    for (int o = 0; o < n->n_outputs; o++) op.out[o] = reduce_type(run, op.out[o], 0);
    int joins = osi_requirements_joins(&run->requirements);
    if (joins != run->joins_seen) {
      const OsiContext *top = scope;
      while (top->parent) top = top->parent;
      run->joins_seen = joins;
      run->values_before_join = top->n_order;
    }
  }
  /* A subgraph walk moved the current node; restore it for this node's events. */
  run->cur_node = index;
  run->cur_node_name = n->name;
  run->cur_op_type = n->op_type;
  run->cur_path = scope->path;
  /* Where the model runs its requirements hold and its sizes are sizes:
   * Min/Max they decide give way to the winner, and the outputs' dims are
   * facts for the nodes after. */
  for (int o = 0; st == OSI_OK && o < n->n_outputs; o++)
    op.out[o] = osi_facts_output(run, op.out[o], n->outputs[o], op.in, n->n_inputs);
  if (st != OSI_OK) {
    memset(op.out, 0, (size_t)n->n_outputs * sizeof(OsiType *));
    if (st == OSI_ERR_NOMEM || st == OSI_ERR_LIMIT_EXCEEDED || (run->flags & OSI_OPT_STRICT))
      return osi_run_fail(run, st, n->name, "node %d '%s' (%s): %s", index, n->name, n->op_type,
                          op.message);
    osi_run_diag(run, st == OSI_ERR_UNSUPPORTED ? "UNSUPPORTED_CASE" : osi_status_name(st), n->name,
                 n->op_type, index, "%s", op.message);
  }
  if (st == OSI_OK && run->n_diags == diags_before) explain_unknown_outputs(run, &op);
  if (OSI_EVENTS_ON(run))
    osi_run_event(run, "node", "", "%s:%s opset %lld%s%s", op_label(n), n->op_type,
                  (long long)op.opset, st == OSI_OK ? "" : ": ", st == OSI_OK ? "" : op.message);
  OsiValueEntry *const *out = w->out + w->out_at[index];
  for (int o = 0; o < n->n_outputs; o++) {
    if (!out[o]) continue; /* omitted */
    OsiValueEntry *e = osi_context_define_entry(scope, out[o], out[o]->pending, op.out[o], index);
    if (!e) return osi_run_fail(run, OSI_ERR_NOMEM, n->name, "out of memory");
    if (kept) kept[n->n_inputs + o] = e;
    event_set(run, "set", n->outputs[o], op.out[o]);
  }
  return osi_arena_exhausted(run->arena)
             ? osi_run_fail(run, OSI_ERR_LIMIT_EXCEEDED, n->name,
                            "the run needs more than %zu bytes", (size_t)OSI_ARENA_MAX_BYTES)
             : OSI_OK;
}

/* Room for what infer_node keeps of the top-level graph's node inputs and outputs. */
static int keep_top_io(OsiRun *run, const OsiGraph *g) {
  run->top_io_at = malloc(((size_t)g->n_nodes + 1) * sizeof *run->top_io_at);
  if (!run->top_io_at) return 0;
  size_t n = 0;
  for (int k = 0; k < g->n_nodes; k++) {
    run->top_io_at[k] = n;
    n += (size_t)g->nodes[k].n_inputs + (size_t)g->nodes[k].n_outputs;
  }
  run->top_io_at[g->n_nodes] = n;
  run->top_io = calloc(n + 1, sizeof *run->top_io);
  return run->top_io != NULL;
}

/* The graph inputs whose dims the end-of-graph decisions leave as declared. */
#define LATE_INPUTS_SEEN 64

OsiStatus osi_infer_graph(OsiContext *scope, const OsiGraph *g, int n_in,
                          const OsiType *const *in_types) {
  OsiStatus st = seed(scope, g, n_in, in_types);
  if (st != OSI_OK) return st;
  if (!scope->parent && !scope->path[0] && !scope->run->top_io && !keep_top_io(scope->run, g))
    return osi_run_fail(scope->run, OSI_ERR_NOMEM, "", "out of memory");
  int *order = malloc(((size_t)g->n_nodes + 1) * sizeof(int));
  if (!order) return osi_run_fail(scope->run, OSI_ERR_NOMEM, "", "out of memory");
  OsiWiring wiring;
  st = osi_topo_order(scope, g, order, &wiring);
  OsiWalk walk = {g, order, 0, &wiring, NULL};
  scope->walk = &walk;
  for (int k = 0; st == OSI_OK && k < g->n_nodes; k++) {
    walk.at = k;
    st = osi_infer_node(scope, &g->nodes[order[k]], order[k], &wiring);
  }
  scope->walk = NULL;
  free(walk.rest);
  osi_wiring_free(&wiring);
  int top = !scope->parent && !scope->path[0] && !scope->run->top_order && scope->run->model &&
            g == scope->run->model->graph;
  if (top) scope->run->top_order = order; /* kept: the cost model's schedule */
  else free(order);
  /* A requirement found late reduces the Broadcasts formed before it. */
  if (st == OSI_OK && !scope->parent && osi_requirements_join_any(&scope->run->requirements, scope->run->exprs))
    for (int i = 0; i < scope->run->values_before_join && i < scope->n_order; i++)
      scope->order[i]->type = reduce_type(scope->run, scope->order[i]->type, 0);
  /* A fact found late (a requirement of a later node) decides the Min/Max
   * a node formed before it: a pool over a window that may overhang its
   * input gives Max((H+1)//4,1) until a later convolution needs H >= 11.
   * The graph inputs' dims are as declared, and so are their copies. */
  if (st == OSI_OK && !scope->parent) {
    const OsiType *inputs[LATE_INPUTS_SEEN];
    int n = 0;
    for (int i = 0; i < g->n_inputs && n < LATE_INPUTS_SEEN; i++) {
      /* by id where the scope has them: a lookup by text builds the name
       * table of the whole graph (3% of a GPT-2 export's call in wasm) */
      const OsiValueEntry *e = osi_context_get_model_name(scope, g->inputs[i].name);
      if (e && e->type && !e->is_initializer) inputs[n++] = e->type;
    }
    for (int i = 0; i < scope->n_order; i++)
      if (scope->order[i]->type && scope->order[i]->producer >= 0)
        scope->order[i]->type = osi_facts_decide_late(scope->run, scope->order[i]->type, scope->order[i]->name, inputs, n);
  }
  return st;
}

/* Section - Child scopes (subgraphs and function bodies) */

OsiStatus osi_infer_child(OsiOpCtx *ctx, const OsiGraph *graph, const char *tag,
                          OsiContext *parent, int n_opsets, const OsiOpsetImport *opsets, int n_in,
                          const OsiType *const *in_types, int n_out, const OsiType **out_types) {
  OsiContext *caller = ctx->scope;
  OsiRun *run = caller->run;
  for (int i = 0; i < n_out; i++) out_types[i] = NULL;
  if (caller->depth + 1 > OSI_MAX_SCOPE_DEPTH)
    return osi_run_fail(run, OSI_ERR_LIMIT_EXCEEDED, ctx->node->name,
                        "subgraphs and function calls nest deeper than %d", OSI_MAX_SCOPE_DEPTH);
  char path[512];
  if (ctx->node->name[0])
    snprintf(path, sizeof path, "%s%s/%s/", caller->path, ctx->node->name, tag);
  else
    snprintf(path, sizeof path, "%s%s#%d/%s/", caller->path, ctx->node->op_type, ctx->node_index, tag);
  OsiContext child;
  if (!osi_context_init(&child, run, parent, osi_arena_strdup(run->arena, path), n_opsets, opsets,
                        (size_t)graph->n_nodes * 2))
    return osi_run_fail(run, OSI_ERR_NOMEM, ctx->node->name, "out of memory");
  child.depth = caller->depth + 1;
  /* What the body's requirements and sizes say holds only where it runs. */
  int facts = osi_facts_mark(run);
  OsiStatus st = osi_infer_graph(&child, graph, n_in, in_types);
  osi_facts_rollback(run, facts);
  if (st == OSI_OK) {
    for (int i = 0; i < n_out && i < graph->n_outputs; i++) {
      OsiValueEntry *e = osi_context_lookup(&child, graph->outputs[i].name);
      out_types[i] = e ? e->type : NULL;
    }
    for (int i = 0; i < child.n_order && !run->probing; i++)
      if (child.order[i]->type && !child.order[i]->is_initializer)
        osi_run_keep_sub_value(run, child.path, child.order[i]->name, child.order[i]->type);
    if (!run->probing) osi_run_keep_scope(run, &child, graph, caller->path, ctx->node_index, tag);
  }
  osi_context_free(&child);
  return st;
}

OsiStatus osi_op_infer_subgraph(OsiOpCtx *ctx, const OsiGraph *graph, const char *tag, int n_in,
                                const OsiType *const *in_types, int n_out,
                                const OsiType **out_types) {
  /* Subgraphs see the enclosing scopes and use their opsets. */
  OsiRun *run = ctx->scope->run;
  run->uncertain++;
  OsiStatus st = osi_infer_child(ctx, graph, tag, ctx->scope, 0, NULL, n_in, in_types, n_out, out_types);
  run->uncertain--;
  return st;
}

OsiStatus osi_op_infer_taken_branch(OsiOpCtx *ctx, const OsiGraph *graph, const char *tag, int n_out,
                                    const OsiType **out_types) {
  return osi_infer_child(ctx, graph, tag, ctx->scope, 0, NULL, 0, NULL, n_out, out_types);
}

/* Section - Speculative runs (fixed-point rounds) */

OsiStatus osi_op_probe_subgraph(OsiOpCtx *ctx, const OsiGraph *graph, const char *tag, int n_in,
                                const OsiType *const *in_types, int n_out,
                                const OsiType **out_types) {
  OsiRun *run = ctx->scope->run;
  OsiStatus before = run->status;
  run->probing++;
  OsiStatus st = osi_op_infer_subgraph(ctx, graph, tag, n_in, in_types, n_out, out_types);
  run->probing--;
  /* A probe that fails says nothing about the real runs (the loop may run
   * no iteration): its status is returned, not kept. */
  if (before == OSI_OK) run->status = OSI_OK;
  return st;
}

int osi_op_probing(const OsiOpCtx *ctx) { return ctx->scope->run->probing > 0; }

int64_t osi_op_visits_left(const OsiOpCtx *ctx) {
  const OsiRun *run = ctx->scope->run;
  int64_t max = run->max_node_visits ? run->max_node_visits : node_budget(run->model);
  return max > run->node_visits ? max - run->node_visits : 0;
}

int64_t osi_op_graph_nodes(const OsiGraph *g) { return count_nodes(g, 0); }

OsiMark osi_op_mark(const OsiOpCtx *ctx) {
  const OsiRun *run = ctx->scope->run;
  OsiMark m = {run->n_diags, run->equal.count, run->less_equal.count, run->either.count, run->n_events,
               run->requirements.count, osi_facts_mark(run)};
  return m;
}

void osi_op_rollback(OsiOpCtx *ctx, OsiMark mark) {
  OsiRun *run = ctx->scope->run;
  if (mark.diags <= run->n_diags) run->n_diags = mark.diags;
  if (mark.equal <= run->equal.count) run->equal.count = mark.equal;
  if (mark.less_equal <= run->less_equal.count) run->less_equal.count = mark.less_equal;
  if (mark.either <= run->either.count) run->either.count = mark.either;
  if (mark.events <= run->n_events) run->n_events = mark.events;
  osi_requirements_rollback(&run->requirements, mark.requirements);
  osi_facts_rollback(run, mark.facts);
  if (run->has_first_error && run->first_error_at >= mark.diags) run->has_first_error = 0;
}
