/*
 * The public API (onnx_shapes.h): runs decode + inference and renders the
 * result as JSON once, so the JS side makes a single call per model.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "anchors.h"
#include "constraints.h"
#include "context.h"
#include "decode.h"
#include "infer.h"
#include "json.h"
#include "write_back.h"
#include "type_json.h"

struct OsiResult {
  OsiArena *arena;
  OsiExprStore *exprs;
  OsiRun run;
  OsiContext root;
  int has_root;
  OsiJson json;
  int json_done;
  /* write-back (osi_result_model): the borrowed input, the output once made */
  const uint8_t *src;
  size_t src_len;
  uint8_t *model;
  size_t model_len;
};

static const char *const STATUS_NAMES[OSI_STATUS_COUNT] = {
    "OK",           "NOMEM",          "PARSE_ERROR",    "INVALID_MODEL",
    "MISSING_INPUT", "DUPLICATE_DEFINITION", "CYCLE", "LIMIT_EXCEEDED",
    "SHAPE_MISMATCH", "ANCHOR_CONFLICT", "UNSUPPORTED",
};

const char *osi_status_name(OsiStatus status) {
  return (int)status >= 0 && status < OSI_STATUS_COUNT ? STATUS_NAMES[status] : "UNKNOWN";
}

const char *osi_version(void) { return "0.1.0"; }

/* The decoder osi_infer uses when the flags name none: the build's default
 * (CMake OSI_DECODER), overridable natively by the environment variable
 * OSI_DECODER so that every C test can run against both decoders. */
static int use_nanopb(uint32_t flags) {
  if (flags & OSI_OPT_DECODER_NANOPB) return 1;
  if (flags & OSI_OPT_DECODER_PBC) return 0;
#ifndef __EMSCRIPTEN__
  const char *env = getenv("OSI_DECODER");
  if (env && strcmp(env, "nanopb") == 0) return 1;
  if (env && (strcmp(env, "pbc") == 0 || strcmp(env, "protobuf-c") == 0)) return 0;
#endif
#ifdef OSI_DEFAULT_DECODER_NANOPB
  return 1;
#else
  return 0;
#endif
}

typedef struct DecodeArgs {
  const uint8_t *bytes;
  size_t len;
  OsiReadFn read;
  OsiSkipFn skip;
  void *user;
  uint64_t total_len;
  int decoder; /* 0 protobuf-c, 1 nanopb over bytes, 2 nanopb stream */
} DecodeArgs;

static OsiResult *infer(const DecodeArgs *a, uint32_t flags, const OsiRegistry *registry) {
  OsiResult *r = calloc(1, sizeof *r);
  if (!r) return NULL;
  r->arena = osi_arena_new();
  r->exprs = osi_expr_store_new();
  r->run.flags = flags;
  if (!r->arena || !r->exprs) {
    r->run.status = OSI_ERR_NOMEM;
    strcpy(r->run.message, "out of memory");
    r->run.error_node = "";
    return r;
  }
  r->run.arena = r->arena;
  r->run.exprs = r->exprs;
  r->run.registry = registry;
  r->run.cur_node = -1;
  /* Write-back edits the caller's bytes (valid until the result is
   * deleted); a streamed model has none to edit. */
  r->src = a->decoder == 2 ? NULL : a->bytes;
  r->src_len = a->decoder == 2 ? 0 : a->len;
  OsiDecodeError derr;
  const uint8_t *bytes = a->bytes ? a->bytes : (const uint8_t *)"";
  const OsiModel *m =
      a->decoder == 0   ? osi_decode_pbc(bytes, a->len, r->arena, r->exprs, &derr)
      : a->decoder == 1 ? osi_decode_npb(bytes, a->len, r->arena, r->exprs, &derr)
                        : osi_decode_npb_stream(a->read, a->skip, a->user, a->total_len, r->arena,
                                                r->exprs, &derr);
  if (!m) {
    osi_run_fail(&r->run, derr.status, "", "%s", derr.message);
    return r;
  }
  r->run.model = m;
  if (!osi_context_init(&r->root, &r->run, NULL, "", m->n_opsets, m->opsets,
                        (size_t)m->graph->n_nodes * 2 + (size_t)m->graph->n_initializers)) {
    osi_run_fail(&r->run, OSI_ERR_NOMEM, "", "out of memory");
    return r;
  }
  r->has_root = 1;
  OsiStatus st = osi_infer_graph(&r->root, m->graph, 0, NULL);
  /* Anchors and renaming concern no single node. */
  r->run.cur_node = -1;
  r->run.cur_node_name = r->run.cur_op_type = r->run.cur_path = "";
  if (st == OSI_OK && osi_anchors_apply(&r->root, m->graph, flags) == OSI_OK)
    osi_constraints_propagate(&r->root, m->graph);
  return r;
}

OsiResult *osi_infer(const uint8_t *bytes, size_t len, uint32_t flags) {
  return osi_infer_with(bytes, len, flags, NULL);
}

OsiResult *osi_infer_with(const uint8_t *bytes, size_t len, uint32_t flags,
                          const OsiRegistry *registry) {
  DecodeArgs a = {.bytes = bytes, .len = len, .decoder = use_nanopb(flags)};
  return infer(&a, flags, registry);
}

OsiResult *osi_infer_stream(OsiReadFn read, OsiSkipFn skip, void *user, uint64_t total_len,
                            uint32_t flags) {
  return osi_infer_stream_with(read, skip, user, total_len, flags, NULL);
}

OsiResult *osi_infer_stream_with(OsiReadFn read, OsiSkipFn skip, void *user, uint64_t total_len,
                                 uint32_t flags, const OsiRegistry *registry) {
  DecodeArgs a = {.read = read, .skip = skip, .user = user, .total_len = total_len, .decoder = 2};
  return infer(&a, flags, registry);
}

int osi_result_status(const OsiResult *self) { return self ? (int)self->run.status : OSI_ERR_NOMEM; }

const char *osi_result_error(const OsiResult *self) {
  return self ? self->run.message : "out of memory";
}

const char *osi_result_error_node(const OsiResult *self) {
  return self && self->run.error_node ? self->run.error_node : "";
}

/* Section - JSON rendering */

static void write_constraints(OsiJson *j, OsiExprStore *s, const OsiConstraintList *l) {
  osi_json_raw(j, "[");
  for (int i = 0; i < l->count; i++) {
    osi_json_raw(j, i ? ",[" : "[");
    osi_json_string(j, osi_expr_str(s, l->items[i].lhs));
    osi_json_raw(j, ",");
    osi_json_string(j, osi_expr_str(s, l->items[i].rhs));
    osi_json_raw(j, "]");
  }
  osi_json_raw(j, "]");
}

static void write_events(OsiJson *j, const OsiRun *run) {
  osi_json_raw(j, ",\"events\":[");
  for (int i = 0; i < run->n_events; i++) {
    const OsiEvent *e = &run->events[i];
    osi_json_raw(j, i ? ",{\"kind\":" : "{\"kind\":");
    osi_json_string(j, e->kind);
    osi_json_raw(j, ",\"nodeIndex\":");
    osi_json_int(j, e->node_index);
    osi_json_raw(j, ",\"node\":");
    osi_json_string(j, e->node);
    osi_json_raw(j, ",\"opType\":");
    osi_json_string(j, e->op_type);
    osi_json_raw(j, ",\"path\":");
    osi_json_string(j, e->path);
    osi_json_raw(j, ",\"value\":");
    osi_json_string(j, e->value);
    osi_json_raw(j, ",\"detail\":");
    osi_json_string(j, e->detail);
    osi_json_raw(j, "}");
  }
  osi_json_raw(j, "]");
}

typedef struct Row {
  const char *key;
  const OsiType *type;
  const OsiSubValue *sub; /* NULL for top-level values */
} Row;

static int compare_rows(const void *a, const void *b) {
  return strcmp(((const Row *)a)->key, ((const Row *)b)->key);
}

/* Key of a subgraph value: its scope path + name ("loop/body/acc"). Should
 * that string already name a top-level value (or an earlier key), "~2",
 * "~3", ... is appended, so keys never collide with top-level names. */
static const char *sub_key(OsiResult *r, const OsiSubValue *sv, OsiValueTable *used) {
  const char *key = sv->key;
  char buf[1024];
  for (int k = 2; osi_value_table_get(&r->root.values, key) || osi_value_table_get(used, key); k++) {
    snprintf(buf, sizeof buf, "%s~%d", sv->key, k);
    key = osi_arena_strdup(r->arena, buf);
    if (!key) return NULL;
  }
  OsiValueEntry *e = osi_arena_alloc(r->arena, sizeof *e);
  if (!e) return NULL;
  e->name = key;
  osi_value_table_put(used, e);
  return key;
}

static void render(OsiResult *r) {
  OsiJson *j = &r->json;
  OsiContext *root = &r->root;
  const OsiRun *run = &r->run;
  Row *rows = malloc(((size_t)root->n_order + (size_t)run->n_subs + 1) * sizeof *rows);
  OsiValueTable used = {0};
  if (!rows || !osi_value_table_init(&used, (size_t)run->n_subs + 1)) {
    free(rows);
    j->failed = 1;
    return;
  }
  int n = 0;
  for (int i = 0; i < root->n_order; i++)
    if (root->order[i]->type) rows[n++] = (Row){root->order[i]->name, root->order[i]->type, NULL};
  for (int i = 0; i < run->n_subs; i++) {
    const char *key = run->subs[i].type ? sub_key(r, &run->subs[i], &used) : NULL;
    if (key) rows[n++] = (Row){key, run->subs[i].type, &run->subs[i]};
  }
  qsort(rows, (size_t)n, sizeof *rows, compare_rows);

  osi_json_raw(j, "{\"values\":{");
  for (int i = 0; i < n; i++) {
    if (i) osi_json_raw(j, ",");
    osi_json_string(j, rows[i].key);
    osi_json_raw(j, ":");
    osi_json_type(j, r->exprs, rows[i].type);
  }
  osi_json_raw(j, "},\"subgraphValues\":{");
  for (int i = 0, first = 1; i < n; i++) {
    if (!rows[i].sub) continue;
    osi_json_raw(j, first ? "" : ",");
    first = 0;
    osi_json_string(j, rows[i].key);
    osi_json_raw(j, ":{\"path\":");
    osi_json_string(j, rows[i].sub->path);
    osi_json_raw(j, ",\"name\":");
    osi_json_string(j, rows[i].sub->name);
    osi_json_raw(j, "}");
  }
  free(rows);
  osi_value_table_free(&used);
  osi_json_raw(j, "},\"producers\":{");
  int first = 1;
  for (int i = 0; i < root->n_order; i++) {
    const OsiValueEntry *e = root->order[i];
    if (e->producer < 0) continue;
    if (!first) osi_json_raw(j, ",");
    first = 0;
    osi_json_string(j, e->name);
    osi_json_raw(j, ":");
    osi_json_int(j, e->producer);
  }
  osi_json_raw(j, "},\"nodes\":[");
  const OsiGraph *g = r->run.model->graph;
  for (int i = 0; i < g->n_nodes; i++) {
    if (i) osi_json_raw(j, ",");
    osi_json_raw(j, "{\"name\":");
    osi_json_string(j, g->nodes[i].name);
    osi_json_raw(j, ",\"opType\":");
    osi_json_string(j, g->nodes[i].op_type);
    osi_json_raw(j, ",\"domain\":");
    osi_json_string(j, g->nodes[i].domain);
    osi_json_raw(j, "}");
  }
  osi_json_raw(j, "],\"diagnostics\":[");
  for (int i = 0; i < r->run.n_diags; i++) {
    const OsiDiagnostic *d = &r->run.diags[i];
    if (i) osi_json_raw(j, ",");
    osi_json_raw(j, "{\"code\":");
    osi_json_string(j, d->code);
    osi_json_raw(j, ",\"message\":");
    osi_json_string(j, d->message);
    osi_json_raw(j, ",\"node\":");
    osi_json_string(j, d->node);
    osi_json_raw(j, ",\"opType\":");
    osi_json_string(j, d->op_type);
    osi_json_raw(j, ",\"nodeIndex\":");
    osi_json_int(j, d->node_index);
    osi_json_raw(j, "}");
  }
  osi_json_raw(j, "],\"constraints\":{\"equal\":");
  write_constraints(j, r->exprs, &r->run.equal);
  osi_json_raw(j, ",\"lessEqual\":");
  write_constraints(j, r->exprs, &r->run.less_equal);
  osi_json_raw(j, "}");
  if (OSI_EVENTS_ON(run)) write_events(j, run);
  osi_json_raw(j, "}");
}

const char *osi_result_json(OsiResult *self) {
  if (!self || self->run.status != OSI_OK) return "";
  if (!self->json_done) {
    render(self);
    self->json_done = 1;
  }
  return self->json.failed || !self->json.buf ? "" : self->json.buf;
}

const uint8_t *osi_result_model(OsiResult *self, size_t *len) {
  size_t ignored;
  if (!len) len = &ignored;
  *len = 0;
  if (!self || self->run.status != OSI_OK || !self->has_root || !self->src) return NULL;
  if (!self->model &&
      osi_write_back(self->src, self->src_len, self->run.model->graph, &self->root, self->exprs,
                     &self->model, &self->model_len) != OSI_OK)
    return NULL;
  *len = self->model_len;
  return self->model;
}

void osi_result_delete(OsiResult *self) {
  if (!self) return;
  free(self->model);
  if (self->has_root) osi_context_free(&self->root);
  osi_run_free(&self->run);
  osi_json_free(&self->json);
  osi_expr_store_delete(self->exprs);
  osi_arena_delete(self->arena);
  free(self);
}

/* Section - Internal accessors (result.h) */

#include "result.h"

const OsiType *osi_result_lookup(const OsiResult *r, const char *name) {
  if (!r || !r->has_root) return NULL;
  OsiValueEntry *e = osi_value_table_get(&r->root.values, name);
  return e ? e->type : NULL;
}

OsiExprStore *osi_result_exprs(const OsiResult *r) { return r ? r->exprs : NULL; }
int osi_result_diagnostic_count(const OsiResult *r) { return r ? r->run.n_diags : 0; }
const char *osi_result_diagnostic_code(const OsiResult *r, int i) { return r->run.diags[i].code; }
const char *osi_result_diagnostic_message(const OsiResult *r, int i) {
  return r->run.diags[i].message;
}
