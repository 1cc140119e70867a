#include "infer/functions.h"

#include <string.h>

#include "infer/op_context.h"

const OsiFunction *osi_function_find(const OsiModel *model, const OsiNode *node) {
  if (!model) return NULL;
  for (int i = 0; i < model->n_functions; i++) {
    const OsiFunction *f = &model->functions[i];
    if (!strcmp(f->name, node->op_type) && !strcmp(f->domain, node->domain) &&
        !strcmp(f->overload, node->overload))
      return f;
  }
  return NULL;
}

static const OsiAttr *find_attr(const OsiAttr *attrs, int n, const char *name) {
  for (int i = 0; i < n; i++)
    if (!strcmp(attrs[i].name, name)) return &attrs[i];
  return NULL;
}

/* The body's attributes with every reference resolved: the caller's value,
 * else the function's default, else the attribute is left out. */
static const OsiAttr *bind_attrs(OsiArena *arena, const OsiNode *body, const OsiNode *caller,
                                 const OsiFunction *fn, int *n_out) {
  OsiAttr *attrs = osi_arena_array(arena, (size_t)body->n_attrs + 1, sizeof(OsiAttr));
  int n = 0;
  if (!attrs) return NULL;
  for (int i = 0; i < body->n_attrs; i++) {
    const OsiAttr *a = &body->attrs[i];
    if (!a->ref_attr_name) {
      attrs[n++] = *a;
      continue;
    }
    const OsiAttr *v = osi_node_attr(caller, a->ref_attr_name);
    if (!v) v = find_attr(fn->attr_defaults, fn->n_attr_defaults, a->ref_attr_name);
    if (!v) continue;
    attrs[n] = *v;
    attrs[n].name = a->name;
    attrs[n].ref_attr_name = NULL;
    n++;
  }
  *n_out = n;
  return attrs;
}

/* Whether formal input `name` received a value from the caller. */
static int input_bound(const OsiFunction *fn, const OsiNode *caller, const char *name) {
  for (int i = 0; i < fn->n_inputs; i++)
    if (!strcmp(fn->inputs[i], name)) return i < caller->n_inputs && caller->inputs[i][0];
  return 1; /* not a formal input: some body node defines it */
}

/* Copies the body, binding attribute references and turning reads of
 * formal inputs the caller omitted into omitted inputs. */
static const OsiNode *bind_body(OsiArena *arena, const OsiFunction *fn, const OsiNode *caller) {
  OsiNode *nodes = osi_arena_array(arena, (size_t)fn->n_nodes + 1, sizeof(OsiNode));
  if (!nodes) return NULL;
  for (int k = 0; k < fn->n_nodes; k++) {
    const OsiNode *b = &fn->nodes[k];
    nodes[k] = *b;
    nodes[k].attrs = bind_attrs(arena, b, caller, fn, &nodes[k].n_attrs);
    const char **ins = osi_arena_array(arena, (size_t)b->n_inputs + 1, sizeof(char *));
    if (!nodes[k].attrs || !ins) return NULL;
    for (int i = 0; i < b->n_inputs; i++) ins[i] = input_bound(fn, caller, b->inputs[i]) ? b->inputs[i] : "";
    nodes[k].inputs = ins;
    nodes[k].input_ids = NULL; /* some inputs are now omitted */
    nodes[k].graph_free = (unsigned char)osi_attrs_graph_free(nodes[k].attrs, nodes[k].n_attrs);
  }
  return nodes;
}

OsiStatus osi_function_enter(OsiOpCtx *ctx, const OsiFunction *fn, OsiFunctionCall *call) {
  OsiRun *run = ctx->scope->run;
  const OsiNode *caller = ctx->node;
  for (int i = 0; i < run->call_depth; i++)
    if (!strcmp(run->call_stack[i], fn->name))
      return osi_run_fail(run, OSI_ERR_CYCLE, caller->name,
                          "function '%s' calls itself (through node '%s')", fn->name, caller->name);
  int max_depth = (int)(sizeof run->call_stack / sizeof run->call_stack[0]);
  if (run->call_depth >= max_depth)
    return osi_run_fail(run, OSI_ERR_LIMIT_EXCEEDED, caller->name,
                        "function calls nest deeper than %d", max_depth);
  memset(call, 0, sizeof *call);
  OsiGraph *body = &call->body;
  OsiValueInfo *inputs = osi_arena_array(run->arena, (size_t)fn->n_inputs + 1, sizeof(OsiValueInfo));
  OsiValueInfo *outputs = osi_arena_array(run->arena, (size_t)fn->n_outputs + 1, sizeof(OsiValueInfo));
  const OsiType **in = osi_arena_array(run->arena, (size_t)fn->n_inputs + 1, sizeof(OsiType *));
  if (!inputs || !outputs || !in) return osi_run_fail(run, OSI_ERR_NOMEM, caller->name, "out of memory");
  int n_in = 0;
  for (int i = 0; i < fn->n_inputs; i++) {
    if (!input_bound(fn, caller, fn->inputs[i])) continue;
    inputs[n_in].name = fn->inputs[i];
    in[n_in++] = ctx->in[i];
  }
  for (int i = 0; i < fn->n_outputs; i++) outputs[i].name = fn->outputs[i];
  body->name = fn->name;
  body->inputs = inputs;
  body->n_inputs = n_in;
  body->outputs = outputs;
  body->n_outputs = fn->n_outputs;
  body->value_info = fn->value_info;
  body->n_value_info = fn->n_value_info;
  body->nodes = bind_body(run->arena, fn, caller);
  body->n_nodes = fn->n_nodes;
  if (!body->nodes) return osi_run_fail(run, OSI_ERR_NOMEM, caller->name, "out of memory");
  call->in_types = in;
  call->n_in = n_in;
  call->n_out = caller->n_outputs < fn->n_outputs ? caller->n_outputs : fn->n_outputs;
  /* A function without opset imports uses the model's. */
  call->n_opsets = fn->n_opsets ? fn->n_opsets : run->model->n_opsets;
  call->opsets = fn->n_opsets ? fn->opsets : run->model->opsets;
  run->call_stack[run->call_depth++] = fn->name;
  return OSI_OK;
}

void osi_function_leave(OsiRun *run) {
  if (run->call_depth > 0) run->call_depth--;
}
