/*
 * The public API (onnx_shapes.h): runs decode + inference and renders the
 * result as JSON once, so the JS side makes a single call per model.
 */
#include <stdlib.h>
#include <string.h>

#include "anchors.h"
#include "constraints.h"
#include "context.h"
#include "decode.h"
#include "infer.h"
#include "json.h"

struct OsiResult {
  OsiArena *arena;
  OsiExprStore *exprs;
  OsiRun run;
  OsiContext root;
  int has_root;
  OsiJson json;
  int json_done;
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

OsiResult *osi_infer(const uint8_t *bytes, size_t len, uint32_t flags) {
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
  OsiDecodeError derr;
  const OsiModel *m = osi_decode_pbc(bytes ? bytes : (const uint8_t *)"", len, r->arena, r->exprs,
                                     &derr);
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
  if (osi_infer_graph(&r->root, m->graph, 0, NULL) == OSI_OK &&
      osi_anchors_apply(&r->root, m->graph, flags) == OSI_OK)
    osi_constraints_propagate(&r->root, m->graph);
  return r;
}

int osi_result_status(const OsiResult *self) { return self ? (int)self->run.status : OSI_ERR_NOMEM; }

const char *osi_result_error(const OsiResult *self) {
  return self ? self->run.message : "out of memory";
}

const char *osi_result_error_node(const OsiResult *self) {
  return self && self->run.error_node ? self->run.error_node : "";
}

/* Section - JSON rendering */

static void write_dim(OsiJson *j, OsiExprStore *s, OsiExpr d) {
  int64_t v;
  /* Integers past 2^53 would lose precision as JS numbers. */
  if (d == OSI_EXPR_UNKNOWN) osi_json_raw(j, "null");
  else if (osi_expr_is_const(s, d, &v))
    if (v >= -(INT64_C(1) << 53) && v <= (INT64_C(1) << 53)) osi_json_int(j, v);
    else osi_json_raw(j, "null");
  else osi_json_string(j, osi_expr_str(s, d));
}

static void write_dtype(OsiJson *j, int32_t dt) {
  const char *name = osi_dtype_name(dt);
  if (name) osi_json_string(j, name);
  else osi_json_raw(j, "null");
}

static void write_type(OsiJson *j, OsiExprStore *s, const OsiType *t, int depth) {
  if (!t || depth > 64) {
    osi_json_raw(j, "null");
    return;
  }
  switch (t->kind) {
  case OSI_KIND_TENSOR:
  case OSI_KIND_SPARSE_TENSOR:
    osi_json_raw(j, t->kind == OSI_KIND_TENSOR ? "{\"kind\":\"tensor\",\"elemType\":"
                                               : "{\"kind\":\"sparse_tensor\",\"elemType\":");
    write_dtype(j, t->elem_type);
    osi_json_raw(j, ",\"dims\":");
    if (t->rank < 0) {
      osi_json_raw(j, "null");
    } else {
      osi_json_raw(j, "[");
      for (int i = 0; i < t->rank; i++) {
        if (i) osi_json_raw(j, ",");
        write_dim(j, s, t->dims[i]);
      }
      osi_json_raw(j, "]");
    }
    osi_json_raw(j, "}");
    break;
  case OSI_KIND_SEQUENCE:
  case OSI_KIND_OPTIONAL:
    osi_json_raw(j, t->kind == OSI_KIND_SEQUENCE ? "{\"kind\":\"sequence\",\"elem\":"
                                                 : "{\"kind\":\"optional\",\"elem\":");
    write_type(j, s, t->elem, depth + 1);
    osi_json_raw(j, "}");
    break;
  case OSI_KIND_MAP:
    osi_json_raw(j, "{\"kind\":\"map\",\"keyType\":");
    write_dtype(j, t->elem_type);
    osi_json_raw(j, ",\"value\":");
    write_type(j, s, t->elem, depth + 1);
    osi_json_raw(j, "}");
    break;
  default:
    osi_json_raw(j, "null");
  }
}

static int compare_entries(const void *a, const void *b) {
  return strcmp((*(OsiValueEntry *const *)a)->name, (*(OsiValueEntry *const *)b)->name);
}

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

static void render(OsiResult *r) {
  OsiJson *j = &r->json;
  OsiContext *root = &r->root;
  OsiValueEntry **sorted = malloc(((size_t)root->n_order + 1) * sizeof *sorted);
  if (!sorted) {
    j->failed = 1;
    return;
  }
  int n = 0;
  for (int i = 0; i < root->n_order; i++)
    if (root->order[i]->type) sorted[n++] = root->order[i];
  qsort(sorted, (size_t)n, sizeof *sorted, compare_entries);

  osi_json_raw(j, "{\"values\":{");
  for (int i = 0; i < n; i++) {
    if (i) osi_json_raw(j, ",");
    osi_json_string(j, sorted[i]->name);
    osi_json_raw(j, ":");
    write_type(j, r->exprs, sorted[i]->type, 0);
  }
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
  osi_json_raw(j, "}}");
  free(sorted);
}

const char *osi_result_json(OsiResult *self) {
  if (!self || self->run.status != OSI_OK) return "";
  if (!self->json_done) {
    render(self);
    self->json_done = 1;
  }
  return self->json.failed || !self->json.buf ? "" : self->json.buf;
}

void osi_result_delete(OsiResult *self) {
  if (!self) return;
  if (self->has_root) osi_context_free(&self->root);
  free(self->run.diags);
  osi_constraints_free(&self->run);
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
