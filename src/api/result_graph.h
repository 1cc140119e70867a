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
  /* Packed form (osi_result_packed): a top-level value is its index in
   * root->order (the "names" list), any other value its key; the full form
   * writes keys. */
  int compact;
} OsiGraphView;

/* One node: ,"inputs":[...],"outputs":[...] (full form: appended inside the
 * node's object) for node k of the top-level graph. */
void osi_json_node_io(OsiJson *j, const OsiGraphView *v, int k);

/* A growable array of 32-bit words. */
typedef struct OsiWords {
  int32_t *items;
  size_t count, cap;
  int failed; /* an allocation failed (or fixed room ran out); the words are incomplete */
  int fixed;  /* items is room the caller owns, cap words: never grown */
} OsiWords;

/* Packed form (osi_result_packed): per top-level node n_in, refs, n_out,
 * refs into io; a ref is an index into root->order, -1 for an omitted name,
 * or -2-k for the k-th key string appended to ref_keys (a JSON list body,
 * *n_ref_keys counts them) when the name is no top-level value. */
void osi_pack_node_io(const OsiGraphView *v, OsiWords *io, OsiJson *ref_keys, int *n_ref_keys);
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
