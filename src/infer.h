/* The driver: seeds a scope and walks a graph's nodes in topological order. */
#ifndef OSI_INFER_H
#define OSI_INFER_H

#include "context.h"

/*
 * Infers every node of `graph` in `scope`. Formal inputs take in_types[i]
 * when given (subgraph calls) and their declared types otherwise.
 * Initializers shadow same-named inputs.
 */
OsiStatus osi_infer_graph(OsiContext *scope, const OsiGraph *graph, int n_in,
                          const OsiType *const *in_types);

/* Node indices of `graph` in a topological order (computed, never trusted
 * from the file), written to order[0..n_nodes). Reports CYCLE,
 * MISSING_INPUT and DUPLICATE_DEFINITION through the run. */
OsiStatus osi_topo_order(OsiContext *scope, const OsiGraph *graph, int *order);

/* Type of a constant tensor (initializer or Constant attribute). */
const OsiType *osi_tensor_type(OsiRun *run, const OsiTensor *t);

#endif
