/* The driver: seeds a scope and walks a graph's nodes in topological order. */
#ifndef OSI_INFER_H
#define OSI_INFER_H

#include "infer/context.h"

/*
 * Infers every node of `graph` in `scope`. Formal inputs take in_types[i]
 * when given (subgraph calls) and their declared types otherwise.
 * Initializers shadow same-named inputs.
 */
OsiStatus osi_infer_graph(OsiContext *scope, const OsiGraph *graph, int n_in,
                          const OsiType *const *in_types);

/* Where the inputs of a graph's nodes come from and where their outputs go,
 * found while they are ordered, so that inference looks no name up again (a
 * name lookup is a hash and a compare of a long name, and cache misses on
 * big graphs). Input i of node k is the entry in[in_at[k] + i] (NULL for an
 * omitted input), output o its entry out[out_at[k] + o] (NULL for an
 * omitted one): a value of the scope (an output of one of the graph's
 * nodes, pending until that node runs; a graph input, an initializer) or of
 * an enclosing scope. */
typedef struct OsiWiring {
  size_t *in_at, *out_at; /* per node, plus one past the last */
  OsiValueEntry **in;
  OsiValueEntry **out;
} OsiWiring;

void osi_wiring_free(OsiWiring *w);

/* A scope's walk over its graph: node order[at] is the one being inferred. */
typedef struct OsiWalk {
  const OsiGraph *graph;
  const int *order;
  int at;
  OsiWiring *wiring;
  /* Nodes from order[k] to the end, subgraphs included, saturated just
   * past what a speculative run may infer (branches.c); computed once, when
   * an If first asks, and freed with the walk. */
  int32_t *rest;
} OsiWalk;

/* Infers node `n` (index `index` of the scope's graph): its rule, its
 * folded contents, the facts; defines its outputs in the scope. */
OsiStatus osi_infer_node(OsiContext *scope, const OsiNode *n, int index, OsiWiring *w);

/* Node indices of `graph` in a topological order (computed, never trusted
 * from the file), written to order[0..n_nodes), and the wiring of their
 * inputs (free it with osi_wiring_free, on success or not). Reports CYCLE,
 * MISSING_INPUT and DUPLICATE_DEFINITION through the run. */
OsiStatus osi_topo_order(OsiContext *scope, const OsiGraph *graph, int *order, OsiWiring *wiring);

/* Deepest nesting of subgraph scopes and function bodies. */
#define OSI_MAX_SCOPE_DEPTH 32

/* Node inferences per run: every node of the model may be inferred
 * OSI_NODE_VISITS_PER_NODE times (loop bodies go round to a fixed point)
 * and OSI_NODE_VISITS_BASE more are allowed, for function bodies, which are
 * inferred at every call. Past that the run ends in LIMIT_EXCEEDED: a few
 * functions that each call the next twice would otherwise expand to 2^n
 * nodes, and nested loops to 5^depth rounds. */
#define OSI_NODE_VISITS_BASE 50000
#define OSI_NODE_VISITS_PER_NODE 16

/* Steps of expression work (expr.h) one node's rule may take, subgraphs
 * it infers included: 71 times the most a node of the backend, exporter,
 * torchvision and bench models takes (14,724, a stride-2 block of the
 * 100k-node CNN); past it, the node's later sizes are unknown. */
#define OSI_EXPR_WORK_PER_NODE (1u << 20)
/* ... and a whole run, its dim texts included: OSI_EXPR_WORK_PER_RUN plus
 * OSI_EXPR_WORK_PER_BYTE per byte of the model (those models take at most
 * 113,612 steps, the 10 MB CNN, and 10,006 in 12 KB, an export of
 * torchvision's detection transform). */
#define OSI_EXPR_WORK_PER_RUN (1u << 19)
#define OSI_EXPR_WORK_PER_BYTE 16u

/* Infers `graph` in a child scope of `parent` (NULL: no outer scope, as
 * for function bodies), named `tag` under the calling node. Every value of
 * the child is kept for the result under the child's path. */
struct OsiOpCtx;
OsiStatus osi_infer_child(struct OsiOpCtx *ctx, const OsiGraph *graph, const char *tag,
                          OsiContext *parent, int n_opsets, const OsiOpsetImport *opsets, int n_in,
                          const OsiType *const *in_types, int n_out, const OsiType **out_types);

#endif
