#include "context.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int osi_context_init(OsiContext *ctx, OsiRun *run, OsiContext *parent, const char *path,
                     int n_opsets, const OsiOpsetImport *opsets, size_t expected_values) {
  memset(ctx, 0, sizeof *ctx);
  ctx->run = run;
  ctx->parent = parent;
  ctx->path = path ? path : "";
  ctx->depth = parent ? parent->depth + 1 : 0;
  ctx->n_opsets = n_opsets;
  ctx->opsets = opsets;
  return osi_value_table_init(&ctx->values, expected_values);
}

void osi_context_free(OsiContext *ctx) {
  osi_value_table_free(&ctx->values);
  free(ctx->order);
  ctx->order = NULL;
}

OsiValueEntry *osi_context_lookup(const OsiContext *ctx, const char *name) {
  for (; ctx; ctx = ctx->parent) {
    OsiValueEntry *e = osi_value_table_get(&ctx->values, name);
    if (e) return e;
  }
  return NULL;
}

OsiValueEntry *osi_context_define(OsiContext *ctx, const char *name, const OsiType *type,
                                  int producer) {
  OsiValueEntry *e = osi_value_table_get(&ctx->values, name);
  if (!e) {
    e = osi_arena_alloc(ctx->run->arena, sizeof *e);
    if (!e) return NULL;
    e->name = name;
    if (!osi_value_table_put(&ctx->values, e)) return NULL;
    if (ctx->n_order == ctx->cap_order) {
      int cap = ctx->cap_order ? ctx->cap_order * 2 : 64;
      OsiValueEntry **o = realloc(ctx->order, (size_t)cap * sizeof *o);
      if (!o) return NULL;
      ctx->order = o;
      ctx->cap_order = cap;
    }
    ctx->order[ctx->n_order++] = e;
  }
  e->type = type;
  e->producer = producer;
  return e;
}

int64_t osi_context_opset(const OsiContext *ctx, const char *domain) {
  for (; ctx; ctx = ctx->parent)
    for (int i = 0; i < ctx->n_opsets; i++)
      if (strcmp(ctx->opsets[i].domain, domain) == 0) return ctx->opsets[i].version;
  return 0;
}

OsiStatus osi_run_fail(OsiRun *run, OsiStatus status, const char *node, const char *fmt, ...) {
  if (run->status != OSI_OK) return run->status;
  run->status = status;
  run->error_node = node ? node : "";
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(run->message, sizeof run->message, fmt, ap);
  va_end(ap);
  return status;
}

/* Diagnostics beyond this many are counted into one final entry instead of
 * growing without bound on pathological models. */
#define MAX_DIAGNOSTICS 10000

void osi_run_vdiag(OsiRun *run, const char *code, const char *node, const char *op_type,
                   int node_index, const char *fmt, va_list ap) {
  if (run->n_diags >= MAX_DIAGNOSTICS) return;
  if (run->n_diags == run->cap_diags) {
    int cap = run->cap_diags ? run->cap_diags * 2 : 16;
    OsiDiagnostic *d = realloc(run->diags, (size_t)cap * sizeof *d);
    if (!d) return;
    run->diags = d;
    run->cap_diags = cap;
  }
  char buf[512];
  vsnprintf(buf, sizeof buf, fmt, ap);
  OsiDiagnostic *d = &run->diags[run->n_diags++];
  d->code = code;
  d->message = osi_arena_strdup(run->arena, buf);
  d->node = node ? node : "";
  d->op_type = op_type ? op_type : "";
  d->node_index = node_index;
}

void osi_run_diag(OsiRun *run, const char *code, const char *node, const char *op_type,
                  int node_index, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  osi_run_vdiag(run, code, node, op_type, node_index, fmt, ap);
  va_end(ap);
}
