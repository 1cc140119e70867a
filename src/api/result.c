/*
 * The public API (onnx_shapes.h): runs decode + inference and renders the
 * result as JSON once, so the JS side makes a single call per model.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "infer/anchors.h"
#include "infer/constraints.h"
#include "infer/context.h"
#include "decode/decode.h"
#include "infer/infer.h"
#include "base/json.h"
#include "base/small_copy.h"
#include "api/key_sort.h"
#include "api/result_attributes.h"
#include "api/result_domain.h"
#include "api/result_graph.h"
#include "api/result_names.h"
#include "api/result_rows.h"
#include "api/write_back.h"
#include "cost/cost.h"
#include "model/type_json.h"

struct OsiResult {
  OsiArena *arena;
  OsiExprStore *exprs;
  OsiRun run;
  OsiContext root;
  int has_root;
  OsiJson json;
  int json_done;
  uint8_t *packed; /* osi_result_packed */
  size_t packed_len;
  int packed_done;
  int names_done; /* osi_expr_name_sizes run on the result's texts */
  OsiJson cost; /* osi_result_cost_json */
  int cost_done;
  OsiJson attributes; /* osi_result_attributes_json, made on the first call */
  int attributes_done;
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

/* The caller's bytes, once decoded, under OSI_OPT_FREE_BYTES. */
static void release_bytes(const DecodeArgs *a, uint32_t flags) {
  if ((flags & OSI_OPT_FREE_BYTES) && a->decoder != 2) free((void *)a->bytes);
}

static OsiResult *infer(const DecodeArgs *a, uint32_t flags, const OsiRegistry *registry) {
  OsiResult *r = calloc(1, sizeof *r);
  if (!r) {
    release_bytes(a, flags);
    return NULL;
  }
  r->arena = osi_arena_new();
  r->exprs = osi_expr_store_new();
  r->run.flags = flags;
  if (!r->arena || !r->exprs) {
    release_bytes(a, flags);
    r->run.status = OSI_ERR_NOMEM;
    strcpy(r->run.message, "out of memory");
    r->run.error_node = "";
    return r;
  }
  r->run.arena = r->arena;
  r->run.exprs = r->exprs;
  uint64_t model_bytes = a->decoder == 2 ? a->total_len : a->len;
  osi_expr_set_work_budget(r->exprs, OSI_EXPR_WORK_PER_RUN + OSI_EXPR_WORK_PER_BYTE * model_bytes);
  r->run.registry = registry;
  r->run.cur_node = -1;
  /* Write-back edits the caller's bytes (valid until the result is
   * deleted); a streamed model has none to edit, nor one whose bytes go. */
  int keep = a->decoder != 2 && !(flags & OSI_OPT_FREE_BYTES);
  r->src = keep ? a->bytes : NULL;
  r->src_len = keep ? a->len : 0;
  OsiDecodeError derr;
  const uint8_t *bytes = a->bytes ? a->bytes : (const uint8_t *)"";
  int free_now = a->decoder == 0 && (flags & OSI_OPT_FREE_BYTES) && a->bytes;
  const OsiModel *m =
      free_now          ? osi_decode_pbc_owned((uint8_t *)a->bytes, a->len, r->arena, r->exprs, &derr)
      : a->decoder == 0 ? osi_decode_pbc(bytes, a->len, r->arena, r->exprs, &derr)
      : a->decoder == 1 ? osi_decode_npb(bytes, a->len, r->arena, r->exprs, &derr)
                        : osi_decode_npb_stream(a->read, a->skip, a->user, a->total_len, r->arena,
                                                r->exprs, &derr);
  if (!free_now) release_bytes(a, flags);
  if (!m) {
    osi_run_fail(&r->run, derr.status, "", "%s", derr.message);
    return r;
  }
  /* Which dim texts a spent budget cuts would depend on the order the
   * decoder read them in: past it, the model is refused. */
  if (osi_expr_work_exhausted(r->exprs)) {
    osi_run_fail(&r->run, OSI_ERR_LIMIT_EXCEEDED, "",
                 "reading the model's dim texts takes more than %llu steps of expression work (%u, "
                 "and %u per byte of the model)",
                 (unsigned long long)(OSI_EXPR_WORK_PER_RUN + OSI_EXPR_WORK_PER_BYTE * model_bytes),
                 (unsigned)OSI_EXPR_WORK_PER_RUN, (unsigned)OSI_EXPR_WORK_PER_BYTE);
    return r;
  }
  r->run.model = m;
  /* Sized for every value the graph can define (the table grows anyway if
   * not): a sparser table only spreads lookups over more cache lines. A
   * decoded model's top-level scope keeps its values by name id and builds
   * its table only when something asks for a name's text (seed, infer.c),
   * so it starts with none: clearing one sized for 100k values was 3% of
   * a 100k-node chain's inference. */
  size_t n_values = (size_t)m->graph->n_initializers + (size_t)m->graph->n_inputs;
  for (int i = 0; i < m->graph->n_nodes; i++) n_values += (size_t)m->graph->nodes[i].n_outputs;
  if (m->n_name_ids) n_values = 0;
  if (!osi_context_init(&r->root, &r->run, NULL, "", m->n_opsets, m->opsets, n_values)) {
    osi_run_fail(&r->run, OSI_ERR_NOMEM, "", "out of memory");
    return r;
  }
  r->has_root = 1;
  OsiStatus st = osi_infer_graph(&r->root, m->graph, 0, NULL);
  /* Anchors and renaming concern no single node. */
  r->run.cur_node = -1;
  r->run.cur_node_name = r->run.cur_op_type = r->run.cur_path = "";
  OsiAnchorLog anchored = {0};
  if (st == OSI_OK && osi_anchors_apply(&r->root, m->graph, flags, &anchored) == OSI_OK)
    osi_constraints_propagate(&r->root, m->graph, &anchored);
  osi_anchor_log_free(&anchored);
  if (osi_expr_work_exhausted(r->exprs))
    osi_run_diag(&r->run, "LIMIT_EXCEEDED", "", "", -1,
                 "inferring the model takes more than %llu steps of expression work (%u, and %u "
                 "per byte of the model): the sizes computed after that are unknown",
                 (unsigned long long)(OSI_EXPR_WORK_PER_RUN + OSI_EXPR_WORK_PER_BYTE * model_bytes),
                 (unsigned)OSI_EXPR_WORK_PER_RUN, (unsigned)OSI_EXPR_WORK_PER_BYTE);
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

static void write_diagnostic(OsiJson *j, OsiExprStore *s, const OsiDiagnostic *d) {
  osi_json_raw(j, "{\"code\":");
  osi_json_string(j, d->code);
  osi_json_raw(j, ",\"message\":");
  char *named = osi_result_named_message(s, d);
  osi_json_string(j, named ? named : d->message);
  free(named);
  if (d->node_index < 0) {
    /* About the model, not one node (a declared output shape, a constraint). */
    osi_json_raw(j, ",\"node\":null,\"opType\":null,\"nodeIndex\":null,\"path\":null}");
    return;
  }
  osi_json_raw(j, ",\"node\":");
  osi_json_string(j, d->node);
  osi_json_raw(j, ",\"opType\":");
  osi_json_string(j, d->op_type);
  osi_json_raw(j, ",\"nodeIndex\":");
  osi_json_int(j, d->node_index);
  osi_json_raw(j, ",\"path\":");
  osi_json_string(j, d->path ? d->path : "");
  osi_json_raw(j, "}");
}

static void write_requirements(OsiJson *j, OsiExprStore *s, const OsiRequirements *l) {
  osi_json_raw(j, "[");
  for (int i = 0; i < l->count; i++) {
    const OsiRequirement *q = &l->items[i];
    osi_json_raw(j, i ? ",{" : "{");
    osi_json_requirement_sides(j, s, q);
    osi_json_raw(j, ",\"node\":");
    osi_json_string(j, q->node);
    osi_json_raw(j, ",\"opType\":");
    osi_json_string(j, q->op_type);
    osi_json_raw(j, ",\"nodeIndex\":");
    osi_json_int(j, q->node_index);
    osi_json_raw(j, ",\"path\":");
    osi_json_string(j, q->path);
    osi_json_raw(j, ",\"message\":");
    osi_json_string(j, q->what);
    osi_json_raw(j, "}");
  }
  osi_json_raw(j, "]");
}

static OsiGraphView graph_view(OsiResult *r, const char *const *sub_keys, int compact) {
  OsiGraphView v = {&r->root, &r->run, r->run.model->graph, sub_keys, compact};
  return v;
}

/* The tail both JSON forms share: diagnostics, the first error,
 * constraints, events and the closing brace. */
static void render_tail_to(OsiResult *r, OsiJson *j) {
  const OsiRun *run = &r->run;
  osi_json_raw(j, ",\"diagnostics\":[");
  for (int i = 0; i < run->n_diags; i++) {
    if (i) osi_json_raw(j, ",");
    write_diagnostic(j, r->exprs, &run->diags[i]);
  }
  osi_json_raw(j, "],\"firstError\":");
  if (run->has_first_error) write_diagnostic(j, r->exprs, &run->first_error);
  else osi_json_raw(j, "null");
  osi_json_raw(j, ",\"constraints\":{\"equal\":");
  write_constraints(j, r->exprs, &run->equal);
  osi_json_raw(j, ",\"lessEqual\":");
  write_constraints(j, r->exprs, &run->less_equal);
  osi_json_raw(j, ",\"labels\":{");
  for (int i = 0; i < run->labels.count; i++) {
    if (i) osi_json_raw(j, ",");
    osi_json_string(j, osi_expr_str(r->exprs, run->labels.items[i].lhs));
    osi_json_raw(j, ":");
    osi_json_string(j, osi_expr_str(r->exprs, run->labels.items[i].rhs));
  }
  osi_json_raw(j, "}");
  osi_json_raw(j, ",\"requirements\":");
  write_requirements(j, r->exprs, &run->requirements);
  osi_json_raw(j, "}");
  osi_json_definitions(j, r->exprs);
  osi_json_domain(j, r->exprs, run);
  if (OSI_EVENTS_ON(run)) write_events(j, run);
  osi_json_raw(j, "}");
}

static void render_named(OsiResult *r);

/* Renders with the names in use (and only then: write-back and the C
 * accessors print full expressions). */
static void name_sizes(OsiResult *r) {
  if (r->names_done) return;
  r->names_done = 1;
  osi_result_name_sizes(r->exprs, &r->root, &r->run);
}

static void render(OsiResult *r) {
  name_sizes(r);
  osi_expr_use_names(r->exprs, 1);
  render_named(r);
  osi_expr_use_names(r->exprs, 0);
}

static void render_named(OsiResult *r) {
  OsiJson *j = &r->json;
  OsiContext *root = &r->root;
  int n = 0;
  const char **sub_keys = NULL;
  OsiRow *rows = osi_result_rows(r->arena, &r->root, &r->run, &n, &sub_keys);
  if (!rows) {
    j->failed = 1;
    return;
  }
  OsiGraphView view = graph_view(r, sub_keys, 0);

  osi_json_raw(j, "{\"values\":{");
  for (int i = 0; i < n; i++) {
    if (i) osi_json_raw(j, ",");
    osi_json_string(j, rows[i].key);
    osi_json_raw(j, ":");
    osi_json_type_content(j, r->exprs, rows[i].type);
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
    osi_json_node_io(j, &view, i);
    osi_json_raw(j, "}");
  }
  osi_json_raw(j, "]");
  osi_json_graph_io(j, &view);
  osi_json_subgraphs(j, &view, NULL, NULL);
  free(sub_keys);
  render_tail_to(r, j);
}

/* Section - Packed form (osi_result_packed)
 *
 * What js/index.js reads: the bulk of a result (every value's name, type and
 * producer, every node) as 32-bit words and NUL-terminated UTF-8 names, so
 * that JS copies it out of the wasm heap once and builds only what it is
 * asked for; the rest as one JSON text. Little-endian words, each section
 * 4-byte aligned, in this order:
 *   header     PACK_HEADER words: version, n_names, n_rows, n_nodes,
 *              io_words, table_cap, flags, names_bytes, node_names_bytes,
 *              json_bytes
 *   producers  per name (top-level values in definition order): producing
 *              node index, -1 for none
 *   types      per name: index into "types", -1 when the type is unknown
 *   rows       the entries of "values" in their order (sorted by key, as
 *              strcmp): a name index, or -1-k for subValues entry k
 *   table      table_cap slots (a power of two): 1 + a position in rows, 0
 *              empty; a key sits at the first free slot from its FNV-1a
 *              32-bit hash (of its UTF-8 bytes) & (table_cap - 1), so
 *              getShape hashes the name and compares one or two keys
 *   nodeOps    per node of the graph: index into "ops"
 *   nodeIO     per node: n, n input refs, m, m output refs; a ref is a name
 *              index, -1 (omitted) or -2-k ("refKeys" entry k)
 *   names      n_names names, each NUL-terminated
 *   nodeNames  n_nodes node names, each NUL-terminated
 *   json       {"types":[Type,...],       distinct value types (getShape format)
 *               "subValues":[key,t,path,name,...]   subgraph values (key as in
 *                                         "values", t into types)
 *               "refKeys":[key,...], "inputs":[ref,...], "outputs":[ref,...],
 *               "subgraphs":[path,parent,node,attribute,[ref,...],[ref,...],
 *                  "nodeNames",[op,...],[nodeIO...], ...]   per inferred body
 *               "ops":[[opType,domain],...],   distinct (opType, domain) pairs
 *               "diagnostics":..., "firstError":..., "constraints":...,
 *               "events":...}            as in osi_result_json
 *              where a ref is a name index, a key string, or null.
 * flags: PACK_UTF8 when every key is well-formed UTF-8 (then key order is
 * code point order, and keys decode to distinct strings: JS may hash them),
 * PACK_ASTRAL when a key has a code point above U+FFFF (code point order
 * then differs from JS's code unit order). A 100k-node model has a few dozen
 * distinct types, so the JSON is small. */

enum { PACK_VERSION = 1, PACK_HEADER = 10, PACK_UTF8 = 1, PACK_ASTRAL = 2 };
/* Bytes the packed buffer holds for its JSON before it must grow (a copy). */
#define PACK_JSON_ROOM ((size_t)64 * 1024)

/* Sufficient for identical getShape JSON: same kind, element type, rank,
 * dim ids (hash-consed), element type and shown content (expression ids). */
static int same_json_type(const OsiType *a, const OsiType *b, int depth) {
  if (a == b) return 1;
  if (!a || !b || depth > 16) return 0;
  if (a->kind != b->kind || a->elem_type != b->elem_type || a->rank != b->rank) return 0;
  /* (dim by dim, not memcmp: musl's goes a byte a step in wasm) */
  if (a->kind == OSI_KIND_TENSOR || a->kind == OSI_KIND_SPARSE_TENSOR)
    for (int i = 0; i < a->rank; i++)
      if (a->dims[i] != b->dims[i]) return 0;
  if (depth == 0) {
    int ca = osi_json_has_content(a), cb = osi_json_has_content(b);
    if (ca != cb || (ca && (a->value->count != b->value->count ||
                            memcmp(a->value->ints, b->value->ints,
                                   (size_t)a->value->count * sizeof *a->value->ints) != 0)))
      return 0;
  }
  return same_json_type(a->elem, b->elem, depth + 1);
}

/* The part of a type's hash that a tensor without content or element type
 * (most values) is made of: what intern_type hashes without calls. */
static inline uint32_t hash_type_head(const OsiType *t) {
  uint32_t h = 2166136261u;
  h = (h ^ (uint32_t)t->kind) * 16777619u;
  h = (h ^ (uint32_t)t->elem_type) * 16777619u;
  h = (h ^ (uint32_t)t->rank) * 16777619u;
  if (t->kind == OSI_KIND_TENSOR || t->kind == OSI_KIND_SPARSE_TENSOR)
    for (int i = 0; i < t->rank; i++) h = (h ^ (uint32_t)t->dims[i]) * 16777619u;
  return h;
}

#define NO_TYPE_HASH 0x9e3779b9u /* hash_json_type of no type */

static uint32_t hash_json_type(const OsiType *t, int depth) {
  if (!t || depth > 16) return NO_TYPE_HASH;
  uint32_t h = hash_type_head(t);
  if (depth == 0 && osi_json_has_content(t))
    for (int64_t i = 0; i < t->value->count; i++) h = (h ^ (uint32_t)t->value->ints[i]) * 16777619u;
  return (h ^ hash_json_type(t->elem, depth + 1)) * 16777619u;
}

/* Open-addressing index: slot -> 1 + position in `items`, 0 empty. */
typedef struct Interner {
  int *slots;
  size_t mask;
  const void **items;
  int count;
  /* intern_op: recent (op type, domain) pointers and their index. A decoder
   * interns op types, so a model's nodes of one op share the pointer. */
  struct {
    const char *op_type, *domain;
    int index;
  } recent[64];
} Interner;

static int interner_init(Interner *in, size_t max_items) {
  size_t cap = 16;
  while (cap < 2 * max_items + 2) cap *= 2;
  in->slots = calloc(cap, sizeof *in->slots);
  in->items = malloc((max_items + 1) * sizeof *in->items);
  in->mask = cap - 1;
  in->count = 0;
  return in->slots && in->items;
}

static void interner_free(Interner *in) {
  free(in->slots);
  free(in->items);
}

static int intern_type(Interner *in, const OsiType *t) {
  uint32_t h;
  int plain = t->kind == OSI_KIND_TENSOR && !t->elem && !t->value;
  if (plain)
    h = (hash_type_head(t) ^ NO_TYPE_HASH) * 16777619u; /* hash_json_type(t, 0), without its calls */
  else
    h = hash_json_type(t, 0);
  size_t i = h & in->mask;
  for (; in->slots[i]; i = (i + 1) & in->mask) {
    const OsiType *u = in->items[in->slots[i] - 1];
    if (plain && u->kind == OSI_KIND_TENSOR && !u->elem && !u->value) {
      int same = u->elem_type == t->elem_type && u->rank == t->rank;
      for (int k = 0; same && k < t->rank; k++) same = u->dims[k] == t->dims[k];
      if (same) return in->slots[i] - 1;
    } else if (same_json_type(u, t, 0)) {
      return in->slots[i] - 1;
    }
  }
  in->items[in->count] = t;
  in->slots[i] = ++in->count;
  return in->count - 1;
}

/* Up to the first 8 bytes of s: enough to spread op types and domains. */
static uint32_t prefix_hash(const char *s) {
  uint32_t h = 2166136261u;
  for (int i = 0; i < 8 && s[i]; i++) h = (h ^ (unsigned char)s[i]) * 16777619u;
  return h;
}

static int intern_op(void *user, const OsiNode *n) {
  Interner *in = user;
  size_t r = ((uintptr_t)n->op_type >> 3) & 63;
  if (in->recent[r].op_type == n->op_type && in->recent[r].domain == n->domain && n->op_type)
    return in->recent[r].index;
  size_t i = (size_t)(prefix_hash(n->op_type) * 31u + prefix_hash(n->domain)) & in->mask;
  for (; in->slots[i]; i = (i + 1) & in->mask) {
    const OsiNode *m = in->items[in->slots[i] - 1];
    if (!strcmp(m->op_type, n->op_type) && (m->domain == n->domain || !strcmp(m->domain, n->domain)))
      break;
  }
  if (!in->slots[i]) {
    in->items[in->count] = n;
    in->slots[i] = ++in->count;
  }
  in->recent[r].op_type = n->op_type;
  in->recent[r].domain = n->domain;
  in->recent[r].index = in->slots[i] - 1;
  return in->slots[i] - 1;
}

static size_t pad4(size_t n) { return (n + 3) & ~(size_t)3; }

/* FNV-1a, 32 bits, over the len bytes at s; js/result.js computes the same
 * over a name's UTF-8 encoding. ORs every byte into *seen. */
static uint32_t key_hash(const char *s, size_t len, unsigned *seen) {
  uint32_t h = 2166136261u;
  unsigned any = 0;
  const unsigned char *p = (const unsigned char *)s;
  for (size_t i = 0; i < len; i++) {
    h = (h ^ p[i]) * 16777619u;
    any |= p[i];
  }
  *seen |= any;
  return h;
}

/* PACK_UTF8 and PACK_ASTRAL of n keys, some of which are not ASCII. */
static int key_flags(const OsiRow *rows, int n) {
  int flags = PACK_UTF8;
  for (int i = 0; i < n; i++) {
    const unsigned char *p = (const unsigned char *)rows[i].key;
    while (*p && *p < 0x80) p++;
    if (!*p) continue; /* ASCII */
    if (!osi_utf8_valid(rows[i].key)) return 0;
    for (; *p; p++)
      if (*p >= 0xf0) flags |= PACK_ASTRAL;
  }
  return flags;
}

static void render_packed_named(OsiResult *r);

static void render_packed(OsiResult *r) {
  name_sizes(r);
  osi_expr_use_names(r->exprs, 1);
  render_packed_named(r);
  osi_expr_use_names(r->exprs, 0);
}

static void render_packed_named(OsiResult *r) {
  OsiContext *root = &r->root;
  const OsiGraph *g = r->run.model->graph;
  int n = 0, n_names = root->n_order, n_nodes = g->n_nodes;
  const char **sub_keys = NULL;
  OsiRow *rows = osi_result_rows(r->arena, &r->root, &r->run, &n, &sub_keys);
  size_t cap = 16;
  while (cap < 2 * (size_t)n + 2) cap *= 2;
  size_t n_words = 2 * (size_t)n_names + (size_t)n + cap + (size_t)n_nodes;
  /* each name's length, taken once (strlen goes byte by byte in wasm) */
  uint32_t *name_lens = malloc(((size_t)n_names + (size_t)n_nodes + 1) * sizeof *name_lens);
  uint32_t *node_lens = name_lens ? name_lens + n_names : NULL;
  Interner types = {0}, ops = {0};
  OsiJson json = {0}, ref_keys = {0}, out = {0};
  size_t n_all_nodes = (size_t)n_nodes;
  for (int i = 0; i < r->run.n_scopes; i++) n_all_nodes += (size_t)r->run.scopes[i].graph.n_nodes;
  if (!rows || !name_lens || !interner_init(&types, (size_t)n) || !interner_init(&ops, n_all_nodes))
    goto done;
  /* The packed bytes in one allocation, every section but the JSON (known
   * last, small: it is appended) written in place: parts built apart and
   * then copied together counted twice in the peak heap, and a wasm heap
   * never shrinks. */
  size_t names_len = 0, node_names_len = 0, io_words = 0;
  for (int i = 0; i < n_names; i++) {
    name_lens[i] = (uint32_t)strlen(root->order[i]->name);
    names_len += (size_t)name_lens[i] + 1;
  }
  for (int i = 0; i < n_nodes; i++) {
    node_lens[i] = (uint32_t)strlen(g->nodes[i].name);
    node_names_len += (size_t)node_lens[i] + 1;
    io_words += 2 + (size_t)g->nodes[i].n_inputs + (size_t)g->nodes[i].n_outputs;
  }
  size_t at_words = PACK_HEADER * sizeof(uint32_t), at_io = at_words + n_words * sizeof(int32_t);
  size_t at_names = at_io + io_words * sizeof(int32_t), at_node_names = at_names + pad4(names_len);
  size_t fixed = at_node_names + pad4(node_names_len);
  out.buf = malloc(fixed + PACK_JSON_ROOM);
  if (!out.buf) goto done;
  out.cap = fixed + PACK_JSON_ROOM;
  out.len = fixed;
  int32_t *words = (int32_t *)(void *)(out.buf + at_words);
  OsiWords io = {(int32_t *)(void *)(out.buf + at_io), 0, io_words, 0, 1};
  char *names = out.buf + at_names;
  size_t names_at = 0;
  int32_t *producers = words, *type_of = producers + n_names, *row_refs = type_of + n_names;
  int32_t *table = row_refs + n, *node_ops = table + cap;
  OsiGraphView view = graph_view(r, sub_keys, 1);

  for (int i = 0; i < n_names; i++) type_of[i] = -1;
  memset(table, 0, cap * sizeof *table);
  unsigned seen = 0;
  /* Values share type objects (an op's output often is its input's type):
   * a small cache by address skips hashing and comparing them again. */
  struct {
    const OsiType *type;
    int index;
  } recent[256] = {{0}};
  /* Top-level values are visited in definition order, which is about the
   * order of their names and types in memory: in key order, every name and
   * type read is a cache miss once the model outgrows the caches (a
   * 128-layer export). row_at (in `producers`' room until it is filled)
   * maps a value to its row. */
  int32_t *row_at = producers;
  for (int i = 0; i < n; i++) {
    row_refs[i] = rows[i].ref;
    if (!rows[i].sub) row_at[rows[i].ref] = i;
  }
  osi_json_raw(&json, "{\"subValues\":[");
  for (int i = 0, k = 0; i < n; i++) {
    if (!rows[i].sub) continue;
    int t = intern_type(&types, rows[i].type);
    osi_json_raw(&json, k ? ",\"" : "\"");
    osi_json_string_body(&json, rows[i].key);
    osi_json_raw(&json, "\",");
    osi_json_int(&json, t);
    osi_json_char(&json, ',');
    osi_json_string(&json, rows[i].sub->path);
    osi_json_char(&json, ',');
    osi_json_string(&json, rows[i].sub->name);
    row_refs[i] = -1 - k++;
    size_t slot = key_hash(rows[i].key, strlen(rows[i].key), &seen) & (cap - 1);
    while (table[slot]) slot = (slot + 1) & (cap - 1);
    table[slot] = i + 1;
  }
  for (int v = 0; v < n_names; v++) {
    const OsiValueEntry *e = root->order[v];
    if (!e->type) { /* no row */
      osi_copy_small(names + names_at, e->name, (size_t)name_lens[v] + 1);
      names_at += (size_t)name_lens[v] + 1;
      continue;
    }
    size_t at = ((uintptr_t)e->type >> 4) & 255;
    if (recent[at].type != e->type) {
      recent[at].type = e->type;
      recent[at].index = intern_type(&types, e->type);
    }
    type_of[v] = recent[at].index;
    size_t slot = key_hash(e->name, name_lens[v], &seen) & (cap - 1);
    osi_copy_small(names + names_at, e->name, (size_t)name_lens[v] + 1);
    names_at += (size_t)name_lens[v] + 1;
    while (table[slot]) slot = (slot + 1) & (cap - 1);
    table[slot] = row_at[v] + 1;
  }
  for (int i = 0; i < n_names; i++)
    producers[i] = root->order[i]->producer < 0 ? -1 : root->order[i]->producer;
  osi_json_raw(&json, "],\"types\":[");
  for (int i = 0; i < types.count; i++) {
    if (i) osi_json_char(&json, ',');
    osi_json_type_content(&json, r->exprs, types.items[i]);
  }
  osi_json_raw(&json, "]");
  for (int i = 0; i < n_nodes; i++) node_ops[i] = intern_op(&ops, &g->nodes[i]);
  int n_ref_keys = 0;
  osi_pack_node_io(&view, &io, &ref_keys, &n_ref_keys);
  osi_json_raw(&json, ",\"refKeys\":[");
  if (ref_keys.buf) osi_json_raw(&json, ref_keys.buf);
  osi_json_char(&json, ']');
  osi_json_graph_io(&json, &view);
  osi_json_subgraphs(&json, &view, intern_op, &ops);
  osi_json_raw(&json, ",\"ops\":[");
  for (int i = 0; i < ops.count; i++) {
    const OsiNode *op = ops.items[i];
    osi_json_raw(&json, i ? ",[" : "[");
    osi_json_string(&json, op->op_type);
    osi_json_char(&json, ',');
    osi_json_string(&json, op->domain);
    osi_json_char(&json, ']');
  }
  osi_json_char(&json, ']');
  render_tail_to(r, &json);
  if (json.failed || io.failed || io.count != io_words || ref_keys.failed || names_at != names_len) goto done;

  uint32_t header[PACK_HEADER] = {
      PACK_VERSION, (uint32_t)n_names, (uint32_t)n, (uint32_t)n_nodes, (uint32_t)io.count,
      (uint32_t)cap, (uint32_t)(seen & 0x80 ? key_flags(rows, n) : PACK_UTF8), (uint32_t)names_len,
      (uint32_t)node_names_len, (uint32_t)json.len};
  memcpy(out.buf, header, sizeof header);
  memset(names + names_len, 0, pad4(names_len) - names_len);
  char *node_names = out.buf + at_node_names;
  for (int i = 0; i < n_nodes; i++) {
    osi_copy_small(node_names, g->nodes[i].name, (size_t)node_lens[i] + 1);
    node_names += node_lens[i] + 1;
  }
  memset(node_names, 0, pad4(node_names_len) - node_names_len);
  osi_json_bytes(&out, json.buf, json.len);
  if (out.failed || out.len > INT32_MAX) goto done;
  r->packed = (uint8_t *)out.buf;
  r->packed_len = out.len;
  out.buf = NULL;
done:
  interner_free(&types);
  interner_free(&ops);
  osi_json_free(&json);
  osi_json_free(&ref_keys);
  osi_json_free(&out);
  free(name_lens);
  free(rows);
  free(sub_keys);
}

const uint8_t *osi_result_packed(OsiResult *self, size_t *len) {
  size_t ignored;
  if (!len) len = &ignored;
  *len = 0;
  if (!self || self->run.status != OSI_OK) return NULL;
  if (!self->packed_done) {
    render_packed(self);
    self->packed_done = 1;
  }
  *len = self->packed_len;
  return self->packed;
}

const char *osi_result_json(OsiResult *self) {
  if (!self || self->run.status != OSI_OK) return "";
  if (!self->json_done) {
    render(self);
    self->json_done = 1;
  }
  return self->json.failed || !self->json.buf ? "" : self->json.buf;
}

const char *osi_result_cost_json(OsiResult *self) {
  if (!self || self->run.status != OSI_OK || !self->has_root) return "";
  if (!self->cost_done) {
    self->cost_done = 1;
    name_sizes(self); /* the names every other rendering prints */
    osi_expr_use_names(self->exprs, 1);
    /* a count's factors print as its dims do alone: ((H+1)//2), not CeilDiv(H,2) */
    osi_expr_print_factors_alone(self->exprs, 1);
    if (osi_cost_json(&self->cost, &self->run, &self->root) != 0) self->cost.failed = 1;
    osi_expr_print_factors_alone(self->exprs, 0);
    osi_expr_use_names(self->exprs, 0);
  }
  return self->cost.failed || !self->cost.buf ? "" : self->cost.buf;
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

double osi_result_work(const OsiResult *self, int which) {
  if (!self) return -1;
  switch (which) {
  case OSI_WORK_NODE_VISITS: return (double)self->run.node_visits;
  case OSI_WORK_TRIAL_VISITS: return (double)self->run.speculative_visits;
  case OSI_WORK_NODES_COUNTED: return (double)self->run.nodes_counted;
  default: return -1;
  }
}

void osi_result_delete(OsiResult *self) {
  if (!self) return;
  free(self->model);
  if (self->has_root) osi_context_free(&self->root);
  osi_run_free(&self->run);
  osi_json_free(&self->json);
  osi_json_free(&self->cost);
  osi_json_free(&self->attributes);
  free(self->packed);
  osi_expr_store_delete(self->exprs);
  osi_arena_delete(self->arena);
  free(self);
}

/* Section - Node attributes (osi_result_attributes_json) */

const char *osi_result_attributes_json(OsiResult *self) {
  if (!self || self->run.status != OSI_OK || !self->run.model) return "";
  if (!self->attributes_done) {
    self->attributes_done = 1;
    name_sizes(self); /* type protos print sizes as the rest of the result does */
    osi_expr_use_names(self->exprs, 1);
    osi_json_attributes(&self->attributes, self->exprs, &self->run);
    osi_expr_use_names(self->exprs, 0);
  }
  return self->attributes.failed || !self->attributes.buf ? "" : self->attributes.buf;
}

/* Section - Internal accessors (result.h) */

#include "api/result.h"

const OsiType *osi_result_lookup(const OsiResult *r, const char *name) {
  if (!r || !r->has_root) return NULL;
  OsiValueEntry *e = osi_context_get(&r->root, name);
  return e ? e->type : NULL;
}

OsiExprStore *osi_result_exprs(const OsiResult *r) { return r ? r->exprs : NULL; }
int osi_result_diagnostic_count(const OsiResult *r) { return r ? r->run.n_diags : 0; }
const char *osi_result_diagnostic_code(const OsiResult *r, int i) { return r->run.diags[i].code; }
const char *osi_result_diagnostic_message(const OsiResult *r, int i) {
  return r->run.diags[i].message;
}
int osi_result_requirement_count(const OsiResult *r) { return r ? r->run.requirements.count : 0; }
const OsiRequirement *osi_result_requirement(const OsiResult *r, int i) {
  return &r->run.requirements.items[i];
}
const OsiDiagnostic *osi_result_first_error(const OsiResult *r) {
  return r && r->run.has_first_error ? &r->run.first_error : NULL;
}
