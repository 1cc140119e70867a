/*
 * The graph part of a result, for viewers: every node's inputs and outputs
 * as value keys (the keys of "values"), the graph's inputs and outputs, and
 * each subgraph or function body that was inferred with its own nodes.
 */
#ifndef OSI_RESULT_GRAPH_H
#define OSI_RESULT_GRAPH_H

#include "base/json.h"
#include "infer/context.h"

typedef struct OsiGraphView {
  const OsiContext *root;
  const OsiRun *run;
  const OsiGraph *graph;       /* the model's graph */
  const char *const *sub_keys; /* per run->subs entry: its key in "values" (NULL: none) */
  /* Compact form: a top-level value is its index in root->order (the
   * "names" list), any other value its key; the full form writes keys. */
  int compact;
} OsiGraphView;

/* One node: ,"inputs":[...],"outputs":[...] (full form: appended inside the
 * node's object) for node k of the top-level graph. */
void osi_json_node_io(OsiJson *j, const OsiGraphView *v, int k);
/* Compact form: "nodeIO":[n_in,ref...,n_out,ref...,...] for every top-level node. */
void osi_json_node_io_compact(OsiJson *j, const OsiGraphView *v);
/* ,"inputs":[...],"outputs":[...]: the graph inputs no initializer
 * shadows, and the graph outputs. */
void osi_json_graph_io(OsiJson *j, const OsiGraphView *v);
/* ,"subgraphs":...: an object keyed by path (full form) or a flat array of
 * path, parent, node, attribute, inputs, outputs, nodeNames, nodeOps,
 * nodeIO per body (compact form, nodeOps indexing the ops interned by
 * intern_op(user, node)). */
void osi_json_subgraphs(OsiJson *j, const OsiGraphView *v, int (*intern_op)(void *, const OsiNode *),
                        void *user);

#endif
