/* The driver's side of ops/ops.h: what an OsiOpCtx holds. */
#ifndef OSI_OP_CONTEXT_H
#define OSI_OP_CONTEXT_H

#include "infer/context.h"
#include "ops/ops.h"

/* infer_node (infer.c) sets each field by hand, not with `= {0}` (which
 * would clear `message` on every node): a new field needs its line there. */
struct OsiOpCtx {
  OsiContext *scope;
  const OsiNode *node;
  int node_index;
  int64_t opset;
  const OsiType **in;  /* node->n_inputs entries */
  const OsiType **out; /* node->n_outputs entries */
  /* The scope entries of the node's inputs and outputs (NULL: omitted),
   * when the driver has them (its wiring): whether one is present is then
   * read here, not from the name (a cache miss on big graphs). */
  OsiValueEntry *const *in_entry, *const *out_entry;
  char message[384];   /* set by osi_op_fail */
  /* The first attribute a typed accessor (osi_attr_int, ...) found with
   * another type than the one asked for (ONNX attributes have exactly one
   * type: `axis` given as a float or a string is an invalid model); the
   * driver turns it into an INVALID_MODEL failure of the node. */
  const OsiAttr *bad_attr;
  int bad_attr_want; /* OsiAttrType asked for */
};

#endif
