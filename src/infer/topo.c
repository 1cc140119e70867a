/*
 * Topological order of a graph's nodes (Kahn's algorithm with a min-heap on
 * the file index, so a file that is already sorted keeps its order exactly).
 * A node's dependencies are its inputs plus the outer-scope names its
 * subgraphs read, so If/Loop bodies see values produced before them.
 */
#include <stdlib.h>
#include <string.h>

#include "infer/infer.h"

/* A set of names; in the producers set, an entry's `producer` is the node
 * writing it and its `order` that output's slot (OsiWiring). */
typedef struct NameSet {
  OsiValueTable table;
  OsiArena *arena;
} NameSet;

static int set_add(NameSet *s, const char *name, int producer) {
  OsiValueEntry *e = osi_arena_alloc(s->arena, sizeof *e);
  if (!e) return 0;
  e->name = name;
  e->producer = producer;
  return osi_value_table_put(&s->table, e);
}

/* Calls fn for each name `g` reads from outside itself. */
typedef int (*NameFn)(void *user, const char *name);

static int graph_free_names(OsiArena *arena, const OsiGraph *g, NameFn fn, void *user, int depth);

/* The outer names n's subgraphs read. */
static int subgraph_reads(OsiArena *arena, const OsiNode *n, NameFn fn, void *user, int depth) {
  for (int a = 0; !n->graph_free && a < n->n_attrs; a++) {
    const OsiAttr *at = &n->attrs[a];
    if (at->type == OSI_ATTR_GRAPH && at->g && !graph_free_names(arena, at->g, fn, user, depth + 1))
      return 0;
    if (at->type == OSI_ATTR_GRAPHS)
      for (size_t k = 0; k < at->n; k++)
        if (!graph_free_names(arena, at->graphs[k], fn, user, depth + 1)) return 0;
  }
  return 1;
}

static int node_reads(OsiArena *arena, const OsiNode *n, NameFn fn, void *user, int depth) {
  for (int i = 0; i < n->n_inputs; i++)
    if (n->inputs[i][0] && !fn(user, n->inputs[i])) return 0;
  return subgraph_reads(arena, n, fn, user, depth);
}

typedef struct FreeCtx {
  NameSet *defined;
  NameFn fn;
  void *user;
} FreeCtx;

static int forward_if_free(void *user, const char *name) {
  FreeCtx *fc = user;
  if (osi_value_table_get(&fc->defined->table, name)) return 1;
  return fc->fn(fc->user, name);
}

static int graph_free_names(OsiArena *arena, const OsiGraph *g, NameFn fn, void *user, int depth) {
  if (depth > 64) return 0;
  NameSet defined = {{0}, arena};
  if (!osi_value_table_init(&defined.table, (size_t)(g->n_inputs + g->n_initializers + g->n_nodes)))
    return 0;
  int ok = 1;
  for (int i = 0; ok && i < g->n_inputs; i++) ok = set_add(&defined, g->inputs[i].name, -1);
  for (int i = 0; ok && i < g->n_initializers; i++)
    ok = set_add(&defined, g->initializers[i].name, -1);
  for (int i = 0; ok && i < g->n_nodes; i++)
    for (int o = 0; ok && o < g->nodes[i].n_outputs; o++)
      if (g->nodes[i].outputs[o][0]) ok = set_add(&defined, g->nodes[i].outputs[o], i);
  FreeCtx fc = {&defined, fn, user};
  for (int i = 0; ok && i < g->n_nodes; i++)
    ok = node_reads(arena, &g->nodes[i], forward_if_free, &fc, depth);
  osi_value_table_free(&defined.table);
  return ok;
}

/* Every dependency edge (producer -> node) is found with one lookup per
 * name read and kept in a flat array: deps[dep_start[i] .. dep_start[i+1])
 * are the producers node i waits for (once per read). */
typedef struct EdgeCtx {
  OsiContext *scope;
  const OsiGraph *g;
  int node;
  int *deps;
  size_t n_deps, cap_deps;
} EdgeCtx;

/* Node ec->node reads `name` (model name id `id` when not 0): its entry in *entry,
 * found in the scope (a graph input, an initializer, or a node output,
 * pending: then an edge from the node that writes it) or in an enclosing
 * scope. */
static int read_name(EdgeCtx *ec, const char *name, uint32_t id, OsiValueEntry **entry) {
  const OsiContext *scope = ec->scope;
  OsiNameKey key = {0};
  OsiValueEntry *e;
  if (scope->by_id) { /* the top level: no enclosing scope */
    e = scope->by_id[id ? id : osi_name_id(name)];
  } else {
    key = osi_name_key(name);
    e = osi_value_table_find(&scope->values, &key);
  }
  if (e && e->pending) {
    if (ec->n_deps == ec->cap_deps) {
      size_t cap = ec->cap_deps ? ec->cap_deps * 2 : 64;
      int *deps = cap <= SIZE_MAX / sizeof *deps ? realloc(ec->deps, cap * sizeof *deps) : NULL;
      if (!deps) {
        osi_run_fail(ec->scope->run, OSI_ERR_NOMEM, "", "out of memory");
        return 0;
      }
      ec->deps = deps;
      ec->cap_deps = cap;
    }
    ec->deps[ec->n_deps++] = e->producer;
  }
  if (!e && !scope->by_id) e = osi_context_find_id(scope->parent, &key, id);
  if ((*entry = e)) return 1;
  const OsiNode *n = &ec->g->nodes[ec->node];
  osi_run_fail(ec->scope->run, OSI_ERR_MISSING_INPUT, n->name,
               "node %d '%s' (%s) reads '%s', which no node, input or initializer defines",
               ec->node, n->name, n->op_type, name);
  return 0;
}

static int add_dependency(void *user, const char *name) {
  OsiValueEntry *entry;
  return read_name(user, name, 0, &entry);
}

/* The edges into node ec->node, its inputs wired on the way. */
static int read_node(EdgeCtx *ec, OsiWiring *w) {
  const OsiNode *n = &ec->g->nodes[ec->node];
  OsiValueEntry **in = w->in + w->in_at[ec->node];
  /* The ids are those of a model that vouches for its names when its top
   * level is a by_id scope: a subgraph reads its outer names by id then. */
  const uint32_t *ids = n->input_ids;
  int by_id = ec->scope->by_id != NULL;
  for (int i = 0; i < n->n_inputs; i++) {
    in[i] = NULL;
    if (by_id && ids ? ids[i] == 0 : !n->inputs[i][0]) continue; /* omitted */
    if (!read_name(ec, n->inputs[i], ids ? ids[i] : 0, &in[i])) return 0;
  }
  return subgraph_reads(ec->scope->run->arena, n, add_dependency, ec, 0);
}

void osi_wiring_free(OsiWiring *w) {
  free(w->in_at);
  free(w->out_at);
  free(w->in);
  free(w->out);
  memset(w, 0, sizeof *w);
}

/* Room for the wiring of g's nodes; 0 on OOM. */
static int wiring_init(OsiWiring *w, const OsiGraph *g, size_t reads, size_t writes) {
  memset(w, 0, sizeof *w);
  size_t n = (size_t)g->n_nodes;
  w->in_at = malloc((n + 1) * sizeof *w->in_at);
  w->out_at = malloc((n + 1) * sizeof *w->out_at);
  w->in = malloc((reads + 1) * sizeof *w->in);
  w->out = calloc(writes + 1, sizeof *w->out);
  if (!w->in_at || !w->out_at || !w->in || !w->out) return 0;
  size_t in = 0, out = 0;
  for (size_t k = 0; k < n; k++) {
    w->in_at[k] = in;
    w->out_at[k] = out;
    in += (size_t)g->nodes[k].n_inputs;
    out += (size_t)g->nodes[k].n_outputs;
  }
  w->in_at[n] = in;
  w->out_at[n] = out;
  return 1;
}

static void heap_push(int *heap, int *len, int v) {
  int i = (*len)++;
  heap[i] = v;
  while (i > 0 && heap[(i - 1) / 2] > heap[i]) {
    int p = (i - 1) / 2, t = heap[p];
    heap[p] = heap[i];
    heap[i] = t;
    i = p;
  }
}

static int heap_pop(int *heap, int *len) {
  int top = heap[0];
  heap[0] = heap[--(*len)];
  for (int i = 0;;) {
    int l = 2 * i + 1, r = l + 1, m = i;
    if (l < *len && heap[l] < heap[m]) m = l;
    if (r < *len && heap[r] < heap[m]) m = r;
    if (m == i) break;
    int t = heap[m];
    heap[m] = heap[i];
    heap[i] = t;
    i = m;
  }
  return top;
}

/* Every node output joins the scope as a pending entry (its producer the
 * node), so that one lookup finds what a node reads, and inference defines
 * it without looking it up again. A name defined twice is reported at the
 * first output, in graph order, that defines it again: a second node's, or
 * any node's when the graph's inputs or initializers define it (the scope
 * holds only those before this). */
static OsiStatus collect_producers(OsiContext *scope, const OsiGraph *g, OsiWiring *w) {
  for (int i = 0; i < g->n_nodes; i++) {
    const OsiNode *n = &g->nodes[i];
    const uint32_t *ids = scope->by_id ? n->output_ids : NULL;
    for (int o = 0; o < n->n_outputs; o++) {
      const char *name = n->outputs[o];
      if (ids ? ids[o] == 0 : !name[0]) continue; /* omitted */
      int created;
      OsiValueEntry *e = osi_context_upsert(scope, name, ids ? ids[o] : 0, &created);
      if (!e) return osi_run_fail(scope->run, OSI_ERR_NOMEM, "", "out of memory");
      if (!created)
        return osi_run_fail(scope->run, OSI_ERR_DUPLICATE_DEFINITION, n->name,
                            "node %d '%s' (%s) defines '%s', which %s already defines", i, n->name,
                            n->op_type, name, e->pending ? "another node" : "a graph input or initializer");
      e->pending = 1;
      e->producer = i;
      w->out[w->out_at[i] + (size_t)o] = e;
    }
  }
  return OSI_OK;
}

OsiStatus osi_topo_order(OsiContext *scope, const OsiGraph *g, int *order, OsiWiring *wiring) {
  memset(wiring, 0, sizeof *wiring);
  OsiRun *run = scope->run;
  int n = g->n_nodes;
  size_t reads = 0, writes = 0;
  for (int i = 0; i < n; i++) {
    reads += (size_t)g->nodes[i].n_inputs;
    writes += (size_t)g->nodes[i].n_outputs;
  }
  EdgeCtx ec = {scope, g, 0, NULL, 0, 0};
  ec.cap_deps = reads + 1;
  ec.deps = malloc(ec.cap_deps * sizeof *ec.deps);
  size_t *dep_start = malloc(((size_t)n + 1) * sizeof *dep_start);
  int *indeg = calloc((size_t)n + 1, sizeof(int));
  /* Adjacency in CSR form: the nodes waiting for v are adj[adj_start[v] .. adj_start[v+1]). */
  size_t *adj_start = calloc((size_t)n + 2, sizeof *adj_start);
  int *adj = NULL;
  int *heap = malloc(((size_t)n + 1) * sizeof(int));
  OsiStatus st = OSI_OK;
  if (!ec.deps || !dep_start || !indeg || !adj_start || !heap ||
      !wiring_init(wiring, g, reads, writes)) {
    st = osi_run_fail(run, OSI_ERR_NOMEM, "", "out of memory");
    goto done;
  }
  if ((st = collect_producers(scope, g, wiring)) != OSI_OK) goto done;

  for (int i = 0; i < n; i++) {
    ec.node = i;
    dep_start[i] = ec.n_deps;
    if (!read_node(&ec, wiring)) {
      st = run->status != OSI_OK ? run->status
                                 : osi_run_fail(run, OSI_ERR_LIMIT_EXCEEDED, g->nodes[i].name,
                                                "subgraph nesting exceeds the limit");
      goto done;
    }
  }
  dep_start[n] = ec.n_deps;
  /* Exporters write their nodes in order: when every node reads only what
   * earlier nodes wrote, that order is the answer (the heap would give it). */
  int sorted = 1;
  for (int i = 0; i < n && sorted; i++)
    for (size_t k = dep_start[i]; k < dep_start[i + 1]; k++)
      if (ec.deps[k] >= i) {
        sorted = 0;
        break;
      }
  if (sorted) {
    for (int i = 0; i < n; i++) order[i] = i;
    goto done;
  }
  /* Count edges per producer, turn the counts into start offsets, fill. */
  for (size_t k = 0; k < ec.n_deps; k++) adj_start[ec.deps[k] + 2]++;
  for (int v = 0; v < n; v++) adj_start[v + 2] += adj_start[v + 1];
  adj = malloc((ec.n_deps + 1) * sizeof *adj);
  if (!adj) {
    st = osi_run_fail(run, OSI_ERR_NOMEM, "", "out of memory");
    goto done;
  }
  for (int i = 0; i < n; i++)
    for (size_t k = dep_start[i]; k < dep_start[i + 1]; k++) {
      adj[adj_start[ec.deps[k] + 1]++] = i;
      indeg[i]++;
    }

  int heap_len = 0, done_count = 0;
  for (int i = 0; i < n; i++)
    if (indeg[i] == 0) heap_push(heap, &heap_len, i);
  while (heap_len) {
    int v = heap_pop(heap, &heap_len);
    order[done_count++] = v;
    for (size_t k = adj_start[v]; k < adj_start[v + 1]; k++)
      if (--indeg[adj[k]] == 0) heap_push(heap, &heap_len, adj[k]);
  }
  if (done_count < n) {
    int stuck = 0;
    while (stuck < n && indeg[stuck] == 0) stuck++;
    const OsiNode *sn = &g->nodes[stuck];
    st = osi_run_fail(run, OSI_ERR_CYCLE, sn->name,
                      "the graph has a cycle through node %d '%s' (%s); %d of %d nodes are on or "
                      "after a cycle",
                      stuck, sn->name, sn->op_type, n - done_count, n);
  }
done:
  free(ec.deps);
  free(dep_start);
  free(adj_start);
  free(adj);
  free(indeg);
  free(heap);
  return st;
}
