/*
 * The cost walk (README "Cost"): every node of the model's graph gets its
 * rule's count from the types inference gave its inputs and outputs; a
 * node with bodies gets theirs (a Loop's body times its trip count, an If
 * the Max of its branches or the branch taken, a model-local function its
 * body), read from the scopes inference kept. The totals are the sums over
 * the graph's nodes; what no rule counts is listed with its reason.
 */
#include <stdlib.h>
#include <string.h>

#include "cost/cost_internal.h"
#include "cost/cost_rule.h"
#include "infer/custom_ops.h"
#include "infer/functions.h"

/* Deeper bodies than inference allows cannot occur; this bounds the walk. */
#define MAX_DEPTH 64

typedef struct Walk {
  OsiRun *run;
  const OsiContext *root;
  OsiExprStore *s;
  OsiCost *cost;
  int *scope_order; /* run->scopes indices sorted by (caller, node_index) */
  OsiValueTable weights; /* body initializers by key (path + name), with their types */
  OsiValueTable stats;   /* names BatchNormalization reads as running mean and variance */
  char *key;        /* scratch for path + name */
  size_t key_cap;
} Walk;

/* Section - Sizes */

int osi_cost_elem_bits(int32_t dt) {
  switch (dt) {
  case OSI_DT_UINT2: case OSI_DT_INT2: return 2;
  case OSI_DT_UINT4: case OSI_DT_INT4: case OSI_DT_FLOAT4E2M1: return 4;
  case OSI_DT_STRING: case OSI_DT_UNDEFINED: return 0;
  default: return dt > 0 && dt < OSI_DT_COUNT ? 8 * osi_dtype_size(dt) : 0;
  }
}

OsiExpr osi_cost_type_bytes(OsiExprStore *s, const OsiType *t) {
  if (!t || t->kind != OSI_KIND_TENSOR || t->rank < 0) return OSI_EXPR_UNKNOWN;
  int bits = osi_cost_elem_bits(t->elem_type);
  if (!bits) return OSI_EXPR_UNKNOWN;
  OsiExpr n = osi_type_numel(s, t);
  if (bits % 8 == 0) return osi_expr_mul(s, n, osi_expr_const(s, bits / 8));
  return osi_expr_ceildiv(s, osi_expr_mul(s, n, osi_expr_const(s, bits)), osi_expr_const(s, 8));
}

static uint32_t shape_hash(int bits, const OsiType *t) {
  uint32_t h = 2166136261u ^ (uint32_t)bits;
  h = (h ^ (uint32_t)t->rank) * 16777619u;
  for (int i = 0; i < t->rank; i++) h = (h ^ t->dims[i]) * 16777619u;
  return h;
}

static int same_shape(int bits, const OsiType *a, const OsiType *b) {
  return osi_cost_elem_bits(b->elem_type) == bits && a->rank == b->rank &&
         (a->rank == 0 || !memcmp(a->dims, b->dims, (size_t)a->rank * sizeof *a->dims));
}

static int cache_grow(OsiBytesCache *k) {
  size_t cap = k->cap ? 2 * k->cap : 256;
  struct OsiBytesSlot *slots = calloc(cap, sizeof *slots);
  if (!slots) return 0;
  for (size_t i = 0; i < k->cap; i++) {
    const OsiType *t = k->slots[i].type;
    if (!t) continue;
    size_t at = shape_hash(osi_cost_elem_bits(t->elem_type), t) & (cap - 1);
    while (slots[at].type) at = (at + 1) & (cap - 1);
    slots[at] = k->slots[i];
  }
  free(k->slots);
  k->slots = slots;
  k->cap = cap;
  return 1;
}

OsiExpr osi_cost_bytes_cached(OsiCost *c, OsiExprStore *s, const OsiType *t) {
  int bits = t && t->kind == OSI_KIND_TENSOR && t->rank >= 0 ? osi_cost_elem_bits(t->elem_type) : 0;
  OsiBytesCache *k = &c->bytes;
  if (!bits || (2 * (k->n + 1) > k->cap && !cache_grow(k))) return osi_cost_type_bytes(s, t);
  size_t at = shape_hash(bits, t) & (k->cap - 1);
  for (; k->slots[at].type; at = (at + 1) & (k->cap - 1))
    if (same_shape(bits, t, k->slots[at].type)) return k->slots[at].bytes;
  OsiExpr bytes = osi_cost_type_bytes(s, t);
  k->slots[at].type = t;
  k->slots[at].bytes = bytes;
  k->n++;
  return bytes;
}

int osi_cost_tensor_size(const OsiTensor *t, int64_t *elems, int64_t *bytes) {
  int64_t n = 1;
  for (int i = 0; i < t->rank; i++)
    if (t->dims[i] < 0 || __builtin_mul_overflow(n, t->dims[i], &n)) return -1;
  int64_t bits = osi_cost_elem_bits(t->elem_type), b;
  if (__builtin_mul_overflow(n, bits, &b)) return -1;
  *elems = n;
  *bytes = b / 8 + (b % 8 != 0);
  return 0;
}

/* A constant size as an int64, or -1. */
static int64_t const_bytes(OsiExprStore *s, OsiExpr e) {
  int64_t v;
  return osi_expr_is_const(s, e, &v) && v >= 0 ? v : -1;
}

static int64_t add_sat(int64_t a, int64_t b) {
  int64_t r;
  return a < 0 || b < 0 || __builtin_add_overflow(a, b, &r) ? -1 : r;
}

/* Section - Lookups */

static const char *join(Walk *w, const char *path, const char *name) {
  size_t lp = strlen(path), ln = strlen(name);
  if (lp + ln + 1 > w->key_cap) {
    size_t cap = 2 * (lp + ln + 1);
    char *k = realloc(w->key, cap);
    if (!k) return w->cost->failed = 1, NULL;
    w->key = k;
    w->key_cap = cap;
  }
  memcpy(w->key, path, lp);
  memcpy(w->key + lp, name, ln + 1);
  return w->key;
}

/* The type of `name` as the scope at `where` defines it ("" the graph's). */
static const OsiType *type_at(Walk *w, const char *where, const char *name) {
  if (!where || !name[0]) return NULL;
  if (!where[0]) {
    const OsiValueEntry *e = osi_context_get(w->root, name);
    return e ? e->type : NULL;
  }
  const char *key = join(w, where, name);
  OsiValueEntry *e = key && w->run->sub_index.cap ? osi_value_table_get(&w->run->sub_index, key) : NULL;
  if (e) return w->run->subs[e->producer].type;
  e = key && w->weights.cap ? osi_value_table_get(&w->weights, key) : NULL;
  return e ? e->type : NULL; /* a body's initializer (not kept as a value) */
}

/* Bytes of a weight (an initializer or a Constant's output) the model's
 * graph reads through entry e, of type t; 0 for anything else. */
static int64_t weight_read(Walk *w, const OsiValueEntry *e, const OsiType *t) {
  const OsiGraph *g = w->run->model->graph;
  int weight = e->is_initializer ||
               (e->producer >= 0 && e->producer < g->n_nodes && !g->nodes[e->producer].domain[0] &&
                !strcmp(g->nodes[e->producer].op_type, "Constant"));
  /* a string tensor's bytes are its strings', which no size says: not counted */
  if (!weight || !t || t->kind != OSI_KIND_TENSOR || !osi_cost_elem_bits(t->elem_type)) return 0;
  return const_bytes(w->s, osi_cost_bytes_cached(w->cost, w->s, t));
}

/* Remembers a body's initializer, which inference keeps no value of. */
static void note_weight(Walk *w, const char *path, const char *name, const OsiType *type) {
  const char *key = join(w, path, name);
  OsiValueEntry *e = key ? osi_arena_alloc(w->run->arena, sizeof *e) : NULL;
  char *copy = key ? osi_arena_strdup(w->run->arena, key) : NULL;
  if (!e || !copy) return (void)(w->cost->failed = 1);
  memset(e, 0, sizeof *e);
  e->name = copy;
  e->type = type;
  if (!osi_value_table_put(&w->weights, e)) w->cost->failed = 1;
}

static void index_weights(Walk *w) {
  if (!osi_value_table_init(&w->weights, 64)) return (void)(w->cost->failed = 1);
  for (int k = 0; k < w->run->n_scopes; k++) {
    const OsiScopeLog *sc = &w->run->scopes[k];
    for (int i = 0; i < sc->graph.n_initializers; i++)
      if (sc->graph.initializers[i].name[0])
        note_weight(w, sc->path, sc->graph.initializers[i].name, osi_tensor_type(w->run, &sc->graph.initializers[i]));
  }
}

/* Section - Scopes of a node */

static const Walk *sort_walk;
static int cmp_scope(const void *a, const void *b) {
  const OsiScopeLog *x = &sort_walk->run->scopes[*(const int *)a], *y = &sort_walk->run->scopes[*(const int *)b];
  int c = strcmp(x->caller, y->caller);
  return c ? c : (x->node_index > y->node_index) - (x->node_index < y->node_index);
}

static void index_scopes(Walk *w) {
  int n = w->run->n_scopes;
  w->scope_order = malloc(((size_t)n + 1) * sizeof *w->scope_order);
  if (!w->scope_order) return (void)(w->cost->failed = 1);
  for (int i = 0; i < n; i++) w->scope_order[i] = i;
  sort_walk = w;
  qsort(w->scope_order, (size_t)n, sizeof *w->scope_order, cmp_scope);
  sort_walk = NULL;
}

/* The body of node `index` of the graph at `path` whose tag is `tag`. */
static const OsiScopeLog *body_of(const Walk *w, const char *path, int index, const char *tag) {
  int lo = 0, hi = w->run->n_scopes;
  while (lo < hi) { /* first scope not before (path, index) */
    int mid = (lo + hi) / 2;
    const OsiScopeLog *m = &w->run->scopes[w->scope_order[mid]];
    int c = strcmp(m->caller, path);
    if (c < 0 || (c == 0 && m->node_index < index)) lo = mid + 1;
    else hi = mid;
  }
  for (; lo < w->run->n_scopes; lo++) {
    const OsiScopeLog *m = &w->run->scopes[w->scope_order[lo]];
    if (strcmp(m->caller, path) || m->node_index != index) break;
    if (!strcmp(m->tag, tag)) return m;
  }
  return NULL;
}

/* Section - Nodes */

typedef struct Count {
  OsiExpr macs, flops;
  const char *why; /* set when not counted */
} Count;

static const char *op_key(Walk *w, const OsiNode *n) {
  if (!n->domain[0]) return n->op_type;
  size_t ld = strlen(n->domain), lo = strlen(n->op_type);
  char *k = osi_arena_alloc(w->run->arena, ld + lo + 2);
  if (!k) return w->cost->failed = 1, n->op_type;
  memcpy(k, n->domain, ld);
  k[ld] = ':';
  memcpy(k + ld + 1, n->op_type, lo + 1);
  return k;
}

static void uncounted(Walk *w, const char *key, const char *reason) {
  OsiCost *c = w->cost;
  c->uncounted_nodes++;
  for (int i = 0; i < c->n_uncounted; i++)
    if (!strcmp(c->uncounted[i].op_key, key) && !strcmp(c->uncounted[i].reason, reason)) {
      c->uncounted[i].nodes++;
      return;
    }
  if (c->n_uncounted == c->cap_uncounted) {
    int cap = c->cap_uncounted ? 2 * c->cap_uncounted : 16;
    OsiUncounted *u = realloc(c->uncounted, (size_t)cap * sizeof *u);
    if (!u) return (void)(c->failed = 1);
    c->uncounted = u;
    c->cap_uncounted = cap;
  }
  c->uncounted[c->n_uncounted++] = (OsiUncounted){key, reason, 1};
}

static Count graph_cost(Walk *w, const OsiScopeLog *sc, int depth);
static Count node_cost(Walk *w, const char *path, int index, const OsiNode *n, const OsiType *const *in,
                       const OsiType *const *out, int depth, const char **elem);

static Count not_counted(const char *why) {
  Count c = {OSI_EXPR_UNKNOWN, OSI_EXPR_UNKNOWN, why};
  return c;
}

/* A body's cost, or not counted when inference kept no such body. */
static Count body(Walk *w, const char *path, int index, const char *tag, int depth) {
  const OsiScopeLog *sc = body_of(w, path, index, tag);
  return sc ? graph_cost(w, sc, depth + 1) : not_counted("inference did not walk its body");
}

/* A known 0/1 (or integer) scalar content, or -1. */
static int64_t scalar(OsiExprStore *s, const OsiType *t) {
  int64_t v;
  return t && t->value && t->value->ints && t->value->count == 1 && osi_expr_is_const(s, t->value->ints[0], &v)
             ? v
             : -1;
}

/* A Loop's iterations, as inference counts them: Max(M, 0) when M is known
 * and nothing stops the loop early (no cond, or cond true and kept true by
 * the body); 0 when cond starts false; otherwise not known. */
static OsiExpr loop_trips(Walk *w, const OsiNode *n, const OsiType *const *in, const OsiScopeLog *sc) {
  OsiExprStore *s = w->s;
  int has_m = n->n_inputs > 0 && n->inputs[0][0], has_cond = n->n_inputs > 1 && n->inputs[1][0];
  int64_t cond = has_cond ? scalar(s, in[1]) : 1;
  if (cond == 0) return osi_expr_const(s, 0);
  const OsiType *m = has_m ? in[0] : NULL;
  OsiExpr trips = m && m->value && m->value->ints && m->value->count == 1 ? m->value->ints[0] : OSI_EXPR_UNKNOWN;
  int stays = !has_cond;
  if (has_cond && cond == 1 && sc && sc->graph.n_outputs > 0) {
    size_t at = 0;
    for (int k = 0; k < sc->graph.n_nodes; k++) at += (size_t)sc->graph.nodes[k].n_inputs;
    stays = scalar(s, type_at(w, sc->where[at], sc->graph.outputs[0].name)) > 0;
  }
  return stays ? osi_expr_max(s, trips, osi_expr_const(s, 0)) : OSI_EXPR_UNKNOWN;
}

/* Why a count made of known parts came out UNKNOWN: a number past int64
 * when every part is one, else an expression too large to hold. */
static const char *too_large(const OsiExprStore *s, const OsiExpr *parts, int n) {
  int64_t v;
  for (int i = 0; i < n; i++)
    if (!osi_expr_is_const(s, parts[i], &v)) return OSI_COST_WHY_TOO_LARGE;
  return OSI_COST_WHY_INT64;
}

static Count times(OsiExprStore *s, OsiExpr k, Count c) {
  if (c.why) return c;
  Count r = {osi_expr_mul(s, k, c.macs), osi_expr_mul(s, k, c.flops), NULL};
  OsiExpr parts[] = {k, c.macs, c.flops};
  if (r.macs == OSI_EXPR_UNKNOWN || r.flops == OSI_EXPR_UNKNOWN) r.why = too_large(s, parts, 3);
  return r;
}

/* A rule's WHY_SHAPE when no size was missing: every input and output of
 * the node is a tensor of known rank and dims (a missing optional input
 * aside), so what did not fit is the count; NULL when a size is unknown. */
static const char *count_too_large(const OsiExprStore *s, const OsiNode *n, const OsiType *const *in,
                                   const OsiType *const *out) {
  int all_numbers = 1;
  for (int k = 0; k < n->n_inputs + n->n_outputs; k++) {
    int is_in = k < n->n_inputs;
    const OsiType *t = is_in ? in[k] : out[k - n->n_inputs];
    if (is_in && !n->inputs[k][0]) continue;
    if (!t || t->kind != OSI_KIND_TENSOR || t->rank < 0) return NULL;
    for (int d = 0; d < t->rank; d++) {
      int64_t v;
      if (t->dims[d] == OSI_EXPR_UNKNOWN) return NULL;
      if (!osi_expr_is_const(s, t->dims[d], &v)) all_numbers = 0;
    }
  }
  return all_numbers ? OSI_COST_WHY_INT64 : OSI_COST_WHY_TOO_LARGE;
}

/* If, Loop, Scan, SequenceMap: their bodies. */
static Count bodies_cost(Walk *w, const char *path, int index, const OsiNode *n, const OsiType *const *in,
                         int depth) {
  OsiExprStore *s = w->s;
  if (!strcmp(n->op_type, "If")) {
    const OsiScopeLog *a = body_of(w, path, index, "then_branch"), *b = body_of(w, path, index, "else_branch");
    if (!a && !b) return not_counted("inference walked neither branch");
    Count x = a ? graph_cost(w, a, depth + 1) : not_counted(""), y = b ? graph_cost(w, b, depth + 1) : not_counted("");
    if (!a || !b) return a ? x : y; /* the condition is decided: the branch taken */
    if (x.why || y.why) return x.why ? x : y;
    Count r = {osi_expr_max(s, x.macs, y.macs), osi_expr_max(s, x.flops, y.flops), NULL};
    OsiExpr parts[] = {x.macs, y.macs, x.flops, y.flops};
    if (r.macs == OSI_EXPR_UNKNOWN || r.flops == OSI_EXPR_UNKNOWN) r.why = too_large(s, parts, 4);
    return r;
  }
  if (!strcmp(n->op_type, "Loop")) {
    OsiExpr trips = loop_trips(w, n, in, body_of(w, path, index, "body"));
    if (trips == OSI_EXPR_UNKNOWN) return not_counted("its trip count is not known before it runs");
    return times(s, trips, body(w, path, index, "body", depth));
  }
  if (!strcmp(n->op_type, "Scan")) {
    int64_t m = osi_cost_attr_int(n, "num_scan_inputs", -1), opset = osi_context_opset(w->root, "");
    int first = n->n_inputs - (int)m;
    const OsiType *x = m >= 1 && first >= 0 && first < n->n_inputs ? in[first] : NULL;
    OsiExpr len = OSI_EXPR_UNKNOWN;
    if (x && x->kind == OSI_KIND_TENSOR && x->rank >= 2 && opset < 9) {
      len = osi_expr_mul(s, x->dims[0], x->dims[1]); /* opset 8: batch, then sequence */
    } else if (x && x->kind == OSI_KIND_TENSOR && x->rank >= 1) {
      const OsiAttr *axes = osi_node_attr(n, "scan_input_axes");
      int64_t axis = axes && axes->type == OSI_ATTR_INTS && axes->n >= 1 ? axes->ints[0] : 0;
      if (axis < 0) axis += x->rank;
      if (axis >= 0 && axis < x->rank) len = x->dims[axis];
    }
    if (len == OSI_EXPR_UNKNOWN) return not_counted("the length it scans is not known");
    return times(s, len, body(w, path, index, "body", depth));
  }
  if (!strcmp(n->op_type, "SequenceMap")) {
    const OsiType *seq = n->n_inputs > 0 ? in[0] : NULL;
    OsiExpr len = seq && seq->kind == OSI_KIND_SEQUENCE ? seq->length : OSI_EXPR_UNKNOWN;
    if (len == OSI_EXPR_UNKNOWN) return not_counted("the length of the sequence it maps is not known");
    return times(s, len, body(w, path, index, "body", depth));
  }
  return not_counted("its bodies are not counted");
}

/* The graph of a body: the sum of its nodes' counts (those not counted
 * are listed, not added). */
static Count graph_cost(Walk *w, const OsiScopeLog *sc, int depth) {
  Count total = {osi_expr_const(w->s, 0), osi_expr_const(w->s, 0), NULL};
  if (depth > MAX_DEPTH) return not_counted("its bodies nest too deep");
  const OsiType *stack_in[17], *stack_out[17];
  size_t at = 0;
  for (int k = 0; k < sc->graph.n_nodes && !w->cost->failed; k++) {
    const OsiNode *n = &sc->graph.nodes[k];
    const OsiType **in = n->n_inputs <= 16 ? stack_in : malloc(((size_t)n->n_inputs + 1) * sizeof *in);
    const OsiType **out = n->n_outputs <= 16 ? stack_out : malloc(((size_t)n->n_outputs + 1) * sizeof *out);
    if (!in || !out) {
      w->cost->failed = 1;
    } else {
      for (int i = 0; i < n->n_inputs; i++) in[i] = type_at(w, sc->where[at + (size_t)i], n->inputs[i]);
      for (int o = 0; o < n->n_outputs; o++) out[o] = type_at(w, sc->path, n->outputs[o]);
      const char *elem;
      Count c = node_cost(w, sc->path, k, n, in, out, depth, &elem);
      if (!c.why) {
        total.macs = osi_expr_add(w->s, total.macs, c.macs);
        total.flops = osi_expr_add(w->s, total.flops, c.flops);
      }
    }
    at += (size_t)n->n_inputs;
    if (in != stack_in) free(in);
    if (out != stack_out) free(out);
  }
  if (total.macs == OSI_EXPR_UNKNOWN || total.flops == OSI_EXPR_UNKNOWN) return not_counted("its body's counts add up past int64 (2^63-1) or to too large an expression");
  return total;
}

/* One node: a model-local function's body, a registered shape function
 * (not counted), or the op table's rule; an uncounted node is listed. */
static Count node_cost(Walk *w, const char *path, int index, const OsiNode *n, const OsiType *const *in,
                       const OsiType *const *out, int depth, const char **elem) {
  *elem = NULL;
  Count c;
  const OsiFunction *fn = osi_function_find(w->run->model, n);
  const OsiCostRule *rule = NULL;
  if (fn) {
    c = body(w, path, index, fn->name, depth);
  } else if (osi_registry_find(w->run->registry, n->domain, n->op_type).fn) {
    c = not_counted("a custom operator (a registered shape function): no cost rule");
  } else if (!(rule = osi_cost_rule(n->domain, n->op_type))) {
    c = not_counted("no cost rule: the operator tables do not have this operator");
  } else if (rule->kind == OSI_RULE_UNCOUNTED) {
    c = not_counted(osi_cost_rule_reason(rule));
  } else if (rule->kind == OSI_RULE_BODIES) {
    c = bodies_cost(w, path, index, n, in, depth);
  } else {
    OsiCostIn ci = {w->s, n, in, out, osi_context_opset(w->root, n->domain), rule->p};
    OsiCostOut co = {OSI_EXPR_UNKNOWN, OSI_EXPR_UNKNOWN, NULL, NULL};
    osi_cost_rule_fn(rule)(&ci, &co);
    c.macs = co.macs;
    c.flops = co.flops;
    c.why = co.macs == OSI_EXPR_UNKNOWN || co.flops == OSI_EXPR_UNKNOWN ? (co.why ? co.why : OSI_COST_WHY_SHAPE) : NULL;
    /* (compared as text: the rules' files have their own copy of the literal) */
    const char *why = c.why && !strcmp(c.why, OSI_COST_WHY_SHAPE) ? count_too_large(w->s, n, in, out) : NULL;
    if (why) c.why = why;
    *elem = co.elem_type;
  }
  if (!*elem && n->n_outputs > 0 && out[0] && out[0]->kind == OSI_KIND_TENSOR)
    *elem = osi_dtype_name(out[0]->elem_type);
  if (c.why) uncounted(w, op_key(w, n), c.why);
  return c;
}

/* Section - The model */

/* Calls fn on g and every graph nested in its nodes' attributes. */
static void each_graph(const OsiGraph *g, int depth, void (*fn)(Walk *, const OsiGraph *), Walk *w) {
  if (!g || depth > MAX_DEPTH) return;
  fn(w, g);
  for (int i = 0; i < g->n_nodes; i++)
    for (int a = 0; !g->nodes[i].graph_free && a < g->nodes[i].n_attrs; a++) {
      const OsiAttr *at = &g->nodes[i].attrs[a];
      if (at->type == OSI_ATTR_GRAPH) each_graph(at->g, depth + 1, fn, w);
      for (size_t k = 0; at->type == OSI_ATTR_GRAPHS && k < at->n; k++) each_graph(at->graphs[k], depth + 1, fn, w);
    }
}

/* The running mean and variance BatchNormalization reads (inputs 3 and 4):
 * statistics, not parameters (PyTorch keeps them as buffers). */
static void note_statistics(Walk *w, const OsiGraph *g) {
  for (int i = 0; i < g->n_nodes; i++) {
    const OsiNode *n = &g->nodes[i];
    if (n->domain[0] || strcmp(n->op_type, "BatchNormalization") != 0) continue;
    for (int k = 3; k <= 4 && k < n->n_inputs; k++) {
      if (!n->inputs[k][0] || osi_value_table_get(&w->stats, n->inputs[k])) continue;
      OsiValueEntry *e = osi_arena_alloc(w->run->arena, sizeof *e);
      if (!e) return (void)(w->cost->failed = 1);
      memset(e, 0, sizeof *e);
      e->name = n->inputs[k];
      if (!osi_value_table_put(&w->stats, e)) w->cost->failed = 1;
    }
  }
}

/* params: every initializer's elements but the statistics; weightBytes:
 * every initializer's bytes. */
static void count_initializers(Walk *w, const OsiGraph *g) {
  OsiCost *c = w->cost;
  for (int i = 0; i < g->n_initializers; i++) {
    int64_t elems, bytes;
    if (osi_cost_tensor_size(&g->initializers[i], &elems, &bytes) != 0) {
      c->params = c->weight_bytes = -1;
      continue;
    }
    if (!osi_value_table_get(&w->stats, g->initializers[i].name)) c->params = add_sat(c->params, elems);
    c->weight_bytes = add_sat(c->weight_bytes, bytes);
  }
}

void osi_cost_compute(OsiCost *c, OsiRun *run, const OsiContext *root) {
  memset(c, 0, sizeof *c);
  const OsiGraph *g = run->model->graph;
  Walk w = {run, root, run->exprs, c, NULL, {0}, {0}, NULL, 0};
  c->n_nodes = g->n_nodes;
  c->nodes = calloc((size_t)g->n_nodes + 1, sizeof *c->nodes);
  if (!c->nodes) c->failed = 1;
  index_scopes(&w);
  index_weights(&w);
  if (!osi_value_table_init(&w.stats, 16)) c->failed = 1;
  each_graph(g, 0, note_statistics, &w);
  each_graph(g, 0, count_initializers, &w);
  c->macs = c->flops = osi_expr_const(w.s, 0);
  for (int k = 0; k < g->n_nodes && !c->failed; k++) {
    const OsiNode *n = &g->nodes[k];
    const OsiValueEntry *const *io = run->top_io ? run->top_io + run->top_io_at[k] : NULL;
    const OsiType *stack[33], **types = (size_t)n->n_inputs + (size_t)n->n_outputs <= 32
                                            ? stack
                                            : malloc(((size_t)n->n_inputs + (size_t)n->n_outputs + 1) * sizeof *types);
    if (!types || !io) {
      c->failed = 1;
      break;
    }
    OsiNodeCost *nc = &c->nodes[k];
    nc->weight_bytes = 0;
    nc->out_bytes = osi_expr_const(w.s, 0);
    for (int i = 0; i < n->n_inputs + n->n_outputs; i++) types[i] = io[i] ? io[i]->type : NULL;
    for (int i = 0; i < n->n_inputs; i++)
      if (io[i]) nc->weight_bytes = add_sat(nc->weight_bytes, weight_read(&w, io[i], types[i]));
    for (int o = 0; o < n->n_outputs; o++)
      if (n->outputs[o][0]) nc->out_bytes = osi_expr_add(w.s, nc->out_bytes, osi_cost_bytes_cached(c, w.s, types[n->n_inputs + o]));
    Count cnt = node_cost(&w, "", k, n, types, types + n->n_inputs, 0, &nc->elem_type);
    nc->op_key = op_key(&w, n);
    nc->macs = cnt.why ? OSI_EXPR_UNKNOWN : cnt.macs;
    nc->flops = cnt.why ? OSI_EXPR_UNKNOWN : cnt.flops;
    if (!cnt.why) {
      c->macs = osi_expr_add(w.s, c->macs, cnt.macs);
      c->flops = osi_expr_add(w.s, c->flops, cnt.flops);
    }
    if (types != stack) free(types);
  }
  osi_value_table_free(&w.weights);
  osi_value_table_free(&w.stats);
  free(w.scope_order);
  free(w.key);
}

void osi_cost_free(OsiCost *c) {
  free(c->bytes.slots);
  free(c->nodes);
  free(c->uncounted);
  free(c->live);
  memset(c, 0, sizeof *c);
}
