/*
 * Topological order of a graph's nodes (Kahn's algorithm with a min-heap on
 * the file index, so a file that is already sorted keeps its order exactly).
 * A node's dependencies are its inputs plus the outer-scope names its
 * subgraphs read, so If/Loop bodies see values produced before them.
 */
#include <stdlib.h>
#include <string.h>

#include "infer.h"

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

static int node_reads(OsiArena *arena, const OsiNode *n, NameFn fn, void *user, int depth) {
  for (int i = 0; i < n->n_inputs; i++)
    if (n->inputs[i][0] && !fn(user, n->inputs[i])) return 0;
  for (int a = 0; a < n->n_attrs; a++) {
    const OsiAttr *at = &n->attrs[a];
    if (at->type == OSI_ATTR_GRAPH && at->g && !graph_free_names(arena, at->g, fn, user, depth + 1))
      return 0;
    if (at->type == OSI_ATTR_GRAPHS)
      for (size_t k = 0; k < at->n; k++)
        if (!graph_free_names(arena, at->graphs[k], fn, user, depth + 1)) return 0;
  }
  return 1;
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

typedef struct EdgeCtx {
  OsiContext *scope;
  NameSet *producers;
  const OsiGraph *g;
  int node;
  int *indeg;
  int **adj;       /* adjacency lists, built in two passes */
  int *adj_len;
  int counting;    /* pass 1 counts, pass 2 fills */
} EdgeCtx;

static int add_dependency(void *user, const char *name) {
  EdgeCtx *ec = user;
  OsiValueEntry *p = osi_value_table_get(&ec->producers->table, name);
  if (p) {
    if (ec->counting) {
      ec->adj_len[p->producer]++;
    } else {
      ec->adj[p->producer][ec->adj_len[p->producer]++] = ec->node;
      ec->indeg[ec->node]++;
    }
    return 1;
  }
  if (osi_context_lookup(ec->scope, name)) return 1;
  const OsiNode *n = &ec->g->nodes[ec->node];
  osi_run_fail(ec->scope->run, OSI_ERR_MISSING_INPUT, n->name,
               "node %d '%s' (%s) reads '%s', which no node, input or initializer defines",
               ec->node, n->name, n->op_type, name);
  return 0;
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

static OsiStatus collect_producers(OsiContext *scope, const OsiGraph *g, NameSet *producers) {
  for (int i = 0; i < g->n_nodes; i++) {
    const OsiNode *n = &g->nodes[i];
    for (int o = 0; o < n->n_outputs; o++) {
      const char *name = n->outputs[o];
      if (!name[0]) continue;
      OsiValueEntry *prev = osi_value_table_get(&producers->table, name);
      if (prev || osi_value_table_get(&scope->values, name))
        return osi_run_fail(scope->run, OSI_ERR_DUPLICATE_DEFINITION, n->name,
                            "node %d '%s' (%s) defines '%s', which %s already defines", i,
                            n->name, n->op_type, name,
                            prev ? "another node" : "a graph input or initializer");
      if (!set_add(producers, name, i)) return osi_run_fail(scope->run, OSI_ERR_NOMEM, "", "out of memory");
    }
  }
  return OSI_OK;
}

OsiStatus osi_topo_order(OsiContext *scope, const OsiGraph *g, int *order) {
  OsiRun *run = scope->run;
  int n = g->n_nodes;
  NameSet producers = {{0}, run->arena};
  int *indeg = calloc((size_t)n + 1, sizeof(int));
  int *adj_len = calloc((size_t)n + 1, sizeof(int));
  int **adj = calloc((size_t)n + 1, sizeof(int *));
  int *heap = malloc(((size_t)n + 1) * sizeof(int));
  OsiStatus st = OSI_OK;
  if (!indeg || !adj_len || !adj || !heap || !osi_value_table_init(&producers.table, (size_t)n * 2)) {
    st = osi_run_fail(run, OSI_ERR_NOMEM, "", "out of memory");
    goto done;
  }
  if ((st = collect_producers(scope, g, &producers)) != OSI_OK) goto done;

  EdgeCtx ec = {scope, &producers, g, 0, indeg, adj, adj_len, 1};
  for (int pass = 0; pass < 2; pass++) {
    ec.counting = pass == 0;
    if (pass == 1) {
      for (int i = 0; i < n; i++) {
        adj[i] = malloc(((size_t)adj_len[i] + 1) * sizeof(int));
        if (!adj[i]) {
          st = osi_run_fail(run, OSI_ERR_NOMEM, "", "out of memory");
          goto done;
        }
        adj_len[i] = 0;
      }
    }
    for (int i = 0; i < n; i++) {
      ec.node = i;
      if (!node_reads(run->arena, &g->nodes[i], add_dependency, &ec, 0)) {
        st = run->status != OSI_OK ? run->status
                                   : osi_run_fail(run, OSI_ERR_LIMIT_EXCEEDED, g->nodes[i].name,
                                                  "subgraph nesting exceeds the limit");
        goto done;
      }
    }
  }

  int heap_len = 0, done_count = 0;
  for (int i = 0; i < n; i++)
    if (indeg[i] == 0) heap_push(heap, &heap_len, i);
  while (heap_len) {
    int v = heap_pop(heap, &heap_len);
    order[done_count++] = v;
    for (int k = 0; k < adj_len[v]; k++)
      if (--indeg[adj[v][k]] == 0) heap_push(heap, &heap_len, adj[v][k]);
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
  if (adj)
    for (int i = 0; i < n; i++) free(adj[i]);
  free(adj);
  free(adj_len);
  free(indeg);
  free(heap);
  osi_value_table_free(&producers.table);
  return st;
}
