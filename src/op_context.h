/* The driver's side of ops/ops.h: what an OsiOpCtx holds. */
#ifndef OSI_OP_CONTEXT_H
#define OSI_OP_CONTEXT_H

#include "context.h"
#include "ops/ops.h"

struct OsiOpCtx {
  OsiContext *scope;
  const OsiNode *node;
  int node_index;
  int64_t opset;
  const OsiType **in;  /* node->n_inputs entries */
  const OsiType **out; /* node->n_outputs entries */
  char message[384];   /* set by osi_op_fail */
};

#endif
