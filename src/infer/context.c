#include "infer/context.h"

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
  free(ctx->by_id);
  ctx->by_id = NULL;
  free(ctx->order);
  ctx->order = NULL;
}

OsiValueEntry *osi_context_lookup(const OsiContext *ctx, const char *name) {
  if (!ctx) return NULL;
  OsiNameKey key = osi_name_key(name);
  return osi_context_find(ctx, &key);
}

OsiValueTable *osi_context_table(const OsiContext *ctx) {
  if (!ctx->table_pending) return (OsiValueTable *)&ctx->values;
  /* The table is a cache of by_id: filling it changes no answer. */
  OsiContext *c = (OsiContext *)ctx;
  size_t n = 0;
  for (uint32_t id = 1; id < c->n_by_id; id++) n += c->by_id[id] != NULL;
  osi_value_table_free(&c->values);
  if (!osi_value_table_init(&c->values, n)) return NULL;
  for (uint32_t id = 1; id < c->n_by_id; id++)
    if (c->by_id[id] && !osi_value_table_put(&c->values, c->by_id[id])) {
      osi_value_table_free(&c->values);
      return NULL;
    }
  c->table_pending = 0;
  return &c->values;
}

OsiValueEntry *osi_context_get(const OsiContext *ctx, const char *name) {
  const OsiValueTable *t = osi_context_table(ctx);
  return t ? osi_value_table_get(t, name) : NULL;
}

OsiValueEntry *osi_context_get_model_name(const OsiContext *ctx, const char *name) {
  if (!ctx->by_id || !name[0]) return osi_context_get(ctx, name);
  OsiValueEntry *e = ctx->by_id[osi_name_id(name)];
  return e && !e->pending ? e : NULL;
}

/* A new entry of a by_id scope for a model name (of id `id`) with no entry yet. */
static OsiValueEntry *new_by_id(OsiContext *ctx, const char *name, uint32_t id) {
  OsiValueEntry *e = osi_arena_alloc(ctx->run->arena, sizeof *e);
  if (!e) return NULL;
  e->name = name;
  ctx->by_id[id] = e;
  /* Already built: kept in step. */
  if (!ctx->table_pending && !osi_value_table_put(&ctx->values, e)) return NULL;
  return e;
}

OsiValueEntry *osi_context_find(const OsiContext *ctx, const OsiNameKey *key) {
  for (; ctx; ctx = ctx->parent) {
    const OsiValueTable *t = osi_context_table(ctx);
    OsiValueEntry *e = t ? osi_value_table_find(t, key) : NULL;
    if (e && !e->pending) return e;
  }
  return NULL;
}

OsiValueEntry *osi_context_find_id(const OsiContext *ctx, const OsiNameKey *key, uint32_t id) {
  for (; ctx; ctx = ctx->parent) {
    OsiValueEntry *e;
    if (ctx->by_id && id) {
      e = id < ctx->n_by_id ? ctx->by_id[id] : NULL;
    } else {
      const OsiValueTable *t = osi_context_table(ctx);
      e = t ? osi_value_table_find(t, key) : NULL;
    }
    if (e && !e->pending) return e;
  }
  return NULL;
}

OsiValueEntry *osi_context_upsert(OsiContext *ctx, const char *name, uint32_t id, int *created) {
  if (!ctx->by_id) return osi_value_table_upsert(&ctx->values, name, ctx->run->arena, created);
  if (!id) id = osi_name_id(name);
  OsiValueEntry *e = ctx->by_id[id];
  *created = !e;
  return e ? e : new_by_id(ctx, name, id);
}

OsiValueEntry *osi_context_define(OsiContext *ctx, const char *name, const OsiType *type,
                                  int producer) {
  int created;
  OsiValueEntry *e = osi_context_upsert(ctx, name, 0, &created);
  return e ? osi_context_define_entry(ctx, e, created || e->pending, type, producer) : NULL;
}

OsiValueEntry *osi_context_define_entry(OsiContext *ctx, OsiValueEntry *e, int first,
                                        const OsiType *type, int producer) {
  if (first) {
    if (ctx->n_order == ctx->cap_order) {
      int cap = ctx->cap_order ? ctx->cap_order * 2 : 64;
      OsiValueEntry **o = realloc(ctx->order, (size_t)cap * sizeof *o);
      if (!o) return NULL;
      ctx->order = o;
      ctx->cap_order = cap;
    }
    e->order = ctx->n_order;
    ctx->order[ctx->n_order++] = e;
    e->pending = 0;
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

/* A diagnostic saying the model cannot run as it is (the first one is the
 * result's firstError). */
static int is_error_code(const char *code) {
  return strcmp(code, "SHAPE_MISMATCH") == 0 || strcmp(code, "INVALID_MODEL") == 0;
}

/* Appends a diagnostic; past OSI_MAX_DIAGNOSTICS only a first error is kept
 * (in first_error). */
static void add_diag(OsiRun *run, const char *code, const char *node, const char *op_type,
                     int node_index, const char *message, const OsiDiagSize *sizes, int n_sizes) {
  OsiDiagnostic d = {code, osi_arena_strdup(run->arena, message), node ? node : "",
                     op_type ? op_type : "", node_index, run->cur_path ? run->cur_path : "",
                     sizes, n_sizes, run->uncertain};
  if (run->n_diags >= OSI_MAX_DIAGNOSTICS) {
    if (run->has_first_error || !is_error_code(code)) return;
    run->first_error = d;
    run->has_first_error = 1;
    run->first_error_at = run->n_diags;
    return;
  }
  if (run->n_diags == run->cap_diags) {
    int cap = run->cap_diags ? run->cap_diags * 2 : 16;
    OsiDiagnostic *grown = realloc(run->diags, (size_t)cap * sizeof *grown);
    if (!grown) return;
    run->diags = grown;
    run->cap_diags = cap;
  }
  run->diags[run->n_diags++] = d;
  if (!run->has_first_error && is_error_code(code)) {
    run->first_error = d;
    run->has_first_error = 1;
    run->first_error_at = run->n_diags - 1;
  }
}

/* Whether a diagnostic with this code would be kept. */
static int diag_kept(const OsiRun *run, const char *code) {
  return run->n_diags < OSI_MAX_DIAGNOSTICS || (!run->has_first_error && is_error_code(code));
}

void osi_run_vdiag(OsiRun *run, const char *code, const char *node, const char *op_type,
                   int node_index, const char *fmt, va_list ap) {
  if (!diag_kept(run, code)) return;
  char buf[512];
  vsnprintf(buf, sizeof buf, fmt, ap);
  add_diag(run, code, node, op_type, node_index, buf, NULL, 0);
}

#define MAX_DIAG_SIZES 8

void osi_run_vdiag_sizes(OsiRun *run, const char *code, const char *node, const char *op_type,
                         int node_index, const char *fmt, va_list ap) {
  if (!diag_kept(run, code)) return;
  /* The words are cut at 511 bytes, as osi_run_vdiag cuts a message; a
   * size is kept whole (a result prints it named, short). */
  char *buf = NULL;
  size_t len = 0, cap = 0, words = 0;
  OsiDiagSize sizes[MAX_DIAG_SIZES];
  int n = 0;
  for (const char *f = fmt; *f; f++) {
    const char *piece = f;
    size_t k = 1;
    char num[16];
    OsiExpr e = OSI_EXPR_UNKNOWN;
    if (*f == '%' && f[1]) {
      switch (*++f) {
      case 's': piece = va_arg(ap, const char *); break;
      case 'd': snprintf(num, sizeof num, "%d", va_arg(ap, int)); piece = num; break;
      case 'E': e = va_arg(ap, OsiExpr); piece = osi_expr_str(run->exprs, e); break;
      default: piece = "%"; break;
      }
      k = piece ? strlen(piece) : 0;
    }
    int is_size = e != OSI_EXPR_UNKNOWN && n < MAX_DIAG_SIZES;
    if (!is_size && words + k > 511) k = words < 511 ? 511 - words : 0;
    if (len + k + 1 > cap) {
      size_t grown_cap = (len + k + 1) * 2;
      char *grown = realloc(buf, grown_cap);
      if (!grown) break;
      buf = grown;
      cap = grown_cap;
    }
    if (is_size) sizes[n++] = (OsiDiagSize){(uint32_t)len, (uint32_t)k, e};
    else words += k;
    memcpy(buf + len, piece, k);
    len += k;
  }
  if (!buf) return;
  buf[len] = 0;
  OsiDiagSize *kept = n ? osi_arena_array(run->arena, (size_t)n, sizeof *kept) : NULL;
  if (kept) memcpy(kept, sizes, (size_t)n * sizeof *kept);
  add_diag(run, code, node, op_type, node_index, buf, kept, kept ? n : 0);
  free(buf);
}

void osi_run_diag(OsiRun *run, const char *code, const char *node, const char *op_type,
                  int node_index, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  osi_run_vdiag(run, code, node, op_type, node_index, fmt, ap);
  va_end(ap);
}

void osi_run_event(OsiRun *run, const char *kind, const char *value, const char *fmt, ...) {
  if (!OSI_EVENTS_ON(run)) return;
  if (run->n_events == run->cap_events) {
    int cap = run->cap_events ? run->cap_events * 2 : 256;
    OsiEvent *e = realloc(run->events, (size_t)cap * sizeof *e);
    if (!e) return;
    run->events = e;
    run->cap_events = cap;
  }
  char buf[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  OsiEvent *e = &run->events[run->n_events++];
  e->kind = kind;
  e->node_index = run->cur_node;
  e->node = run->cur_node_name ? run->cur_node_name : "";
  e->op_type = run->cur_op_type ? run->cur_op_type : "";
  e->path = run->cur_path ? run->cur_path : "";
  e->value = value ? value : "";
  e->detail = osi_arena_strdup(run->arena, buf);
}

static size_t append(char *buf, size_t cap, size_t at, const char *s) {
  size_t n = strlen(s);
  if (at + n >= cap) n = at + 1 < cap ? cap - at - 1 : 0;
  memcpy(buf + at, s, n);
  buf[at + n] = 0;
  return at + n;
}

static size_t type_text(OsiExprStore *s, const OsiType *t, char *buf, size_t cap, size_t at,
                        int depth) {
  if (!t || depth > 8) return append(buf, cap, at, "?");
  switch (t->kind) {
  case OSI_KIND_SEQUENCE:
  case OSI_KIND_OPTIONAL:
    at = append(buf, cap, at, t->kind == OSI_KIND_SEQUENCE ? "seq(" : "optional(");
    at = type_text(s, t->elem, buf, cap, at, depth + 1);
    return append(buf, cap, at, ")");
  case OSI_KIND_MAP:
    at = append(buf, cap, at, "map(");
    at = append(buf, cap, at, osi_dtype_name(t->elem_type) ? osi_dtype_name(t->elem_type) : "?");
    at = append(buf, cap, at, ",");
    at = type_text(s, t->elem, buf, cap, at, depth + 1);
    return append(buf, cap, at, ")");
  case OSI_KIND_TENSOR:
  case OSI_KIND_SPARSE_TENSOR:
    at = append(buf, cap, at, osi_dtype_name(t->elem_type) ? osi_dtype_name(t->elem_type) : "?");
    if (t->rank < 0) return append(buf, cap, at, "[*]");
    at = append(buf, cap, at, "[");
    for (int i = 0; i < t->rank; i++) {
      if (i) at = append(buf, cap, at, ",");
      at = append(buf, cap, at, osi_expr_str(s, t->dims[i]));
    }
    return append(buf, cap, at, "]");
  default:
    return append(buf, cap, at, "?");
  }
}

const char *osi_type_text(OsiExprStore *s, const OsiType *t, char *buf, size_t cap) {
  if (cap) buf[0] = 0;
  type_text(s, t, buf, cap, 0, 0);
  return buf;
}

void osi_run_keep_sub_value(OsiRun *run, const char *path, const char *name, const OsiType *type) {
  size_t lp = strlen(path), ln = strlen(name);
  char *key = osi_arena_alloc(run->arena, lp + ln + 1);
  if (!key) return;
  memcpy(key, path, lp);
  memcpy(key + lp, name, ln + 1);
  if (!run->sub_index.cap && !osi_value_table_init(&run->sub_index, 64)) return;
  OsiValueEntry *e = osi_value_table_get(&run->sub_index, key);
  if (e) {
    run->subs[e->producer].type = type;
    return;
  }
  if (run->n_subs == run->cap_subs) {
    int cap = run->cap_subs ? run->cap_subs * 2 : 64;
    OsiSubValue *subs = realloc(run->subs, (size_t)cap * sizeof *subs);
    if (!subs) return;
    run->subs = subs;
    run->cap_subs = cap;
  }
  e = osi_arena_alloc(run->arena, sizeof *e);
  if (!e) return;
  e->name = key;
  e->producer = run->n_subs; /* index into run->subs */
  if (!osi_value_table_put(&run->sub_index, e)) return;
  OsiSubValue *sv = &run->subs[run->n_subs++];
  sv->key = key;
  sv->path = path;
  sv->name = name;
  sv->type = type;
}

/* The path of the innermost scope from `ctx` outwards that defines `name`. */
static const char *defining_path(const OsiContext *ctx, const char *name, uint32_t id) {
  if (!name[0]) return NULL;
  for (; ctx; ctx = ctx->parent) {
    /* by id where there is one: no name table built for an outer name */
    const OsiValueEntry *e = ctx->by_id && id ? (id < ctx->n_by_id ? ctx->by_id[id] : NULL)
                                              : osi_context_get(ctx, name);
    if (e && !e->pending) return ctx->path;
  }
  return NULL;
}

void osi_run_keep_scope(OsiRun *run, const OsiContext *child, const OsiGraph *graph,
                        const char *caller, int node_index, const char *tag) {
  size_t refs = (size_t)graph->n_outputs;
  for (int k = 0; k < graph->n_nodes; k++) refs += (size_t)graph->nodes[k].n_inputs;
  const char **where = osi_arena_array(run->arena, refs + 1, sizeof *where);
  char *tag_copy = osi_arena_strdup(run->arena, tag);
  if (!where || !tag_copy) return;
  size_t at = 0;
  for (int k = 0; k < graph->n_nodes; k++) {
    const OsiNode *n = &graph->nodes[k];
    for (int i = 0; i < n->n_inputs; i++)
      where[at++] = defining_path(child, n->inputs[i], n->input_ids ? n->input_ids[i] : 0);
  }
  for (int i = 0; i < graph->n_outputs; i++)
    where[at++] = defining_path(child, graph->outputs[i].name, 0);

  if (!run->scope_index.cap && !osi_value_table_init(&run->scope_index, 16)) return;
  OsiValueEntry *e = osi_value_table_get(&run->scope_index, child->path);
  if (!e) {
    if (run->n_scopes == run->cap_scopes) {
      int cap = run->cap_scopes ? run->cap_scopes * 2 : 16;
      OsiScopeLog *scopes = realloc(run->scopes, (size_t)cap * sizeof *scopes);
      if (!scopes) return;
      run->scopes = scopes;
      run->cap_scopes = cap;
    }
    e = osi_arena_alloc(run->arena, sizeof *e);
    if (!e) return;
    e->name = child->path;
    e->producer = run->n_scopes; /* index into run->scopes */
    if (!osi_value_table_put(&run->scope_index, e)) return;
    run->n_scopes++;
  }
  OsiScopeLog *log = &run->scopes[e->producer];
  log->path = child->path;
  log->caller = caller;
  log->node_index = node_index;
  log->tag = tag_copy;
  log->graph = *graph;
  log->where = where;
}

void osi_run_free(OsiRun *run) {
  free(run->diags);
  free(run->scopes);
  free(run->top_io);
  free(run->top_io_at);
  free(run->top_order);
  run->top_order = NULL;
  osi_value_table_free(&run->scope_index);
  run->scopes = NULL;
  run->top_io = NULL;
  run->top_io_at = NULL;
  free(run->events);
  free(run->subs);
  free(run->equal.items);
  free(run->less_equal.items);
  free(run->equal.index);
  free(run->less_equal.index);
  run->equal.index = run->less_equal.index = NULL;
  free(run->labels.items);
  free(run->labels.index);
  memset(&run->labels, 0, sizeof run->labels);
  free(run->either.items);
  free(run->either.index);
  memset(&run->either, 0, sizeof run->either);
  osi_value_table_free(&run->sub_index);
  osi_requirements_free(&run->requirements);
  if (run->facts_free) run->facts_free(run);
  run->diags = NULL;
  run->events = NULL;
  run->subs = NULL;
  run->equal.items = run->less_equal.items = NULL;
}

const OsiType *osi_tensor_type(OsiRun *run, const OsiTensor *t) {
  size_t slot = ((uintptr_t)t >> 3) % (sizeof run->tensor_types / sizeof run->tensor_types[0]);
  if (run->tensor_types[slot].t == t) return run->tensor_types[slot].type;
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
    } else {
      return type; /* not kept: a later call may have the memory */
    }
  } else if (t->floats) {
    OsiExpr *elems;
    OsiValue *v = osi_value_floats(run->arena, t->count, &elems);
    if (v) {
      for (int64_t i = 0; i < t->count; i++) elems[i] = osi_expr_fconst(run->exprs, t->floats[i]);
      type->value = v;
    } else {
      return type;
    }
  }
  run->tensor_types[slot].t = t;
  run->tensor_types[slot].type = type;
  return type;
}
