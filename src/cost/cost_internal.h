/*
 * What the cost model's parts share: the per-node results of the graph
 * walk (cost_graph.c), the activation schedule (cost_memory.c) and the
 * byte sizes both use; cost_json.c writes them.
 */
#ifndef OSI_COST_INTERNAL_H
#define OSI_COST_INTERNAL_H

#include "infer/context.h"

typedef struct OsiNodeCost {
  OsiExpr macs, flops;   /* UNKNOWN: not counted (the node is in `uncounted`) */
  OsiExpr out_bytes;     /* its outputs' bytes, UNKNOWN when a size is */
  int64_t weight_bytes;  /* initializers and Constant tensors it reads; -1 past int64 */
  const char *elem_type; /* NULL: unknown */
  const char *op_key;    /* "Conv", "com.microsoft:Attention" */
} OsiNodeCost;

typedef struct OsiUncounted {
  const char *op_key, *reason;
  int nodes;
} OsiUncounted;

/* One value of the model's graph in the activation schedule: live from
 * step `from` to step `to` (both included). */
typedef struct OsiLiveValue {
  const char *key;
  OsiExpr bytes; /* UNKNOWN when a size or the element size is */
  int from, to;
} OsiLiveValue;

/* Bytes of the tensor types seen, by element bits and dims (the dims are
 * hash-consed ids): values of one shape are measured once. */
typedef struct OsiBytesCache {
  struct OsiBytesSlot {
    const OsiType *type; /* NULL: empty */
    OsiExpr bytes;
  } *slots;
  size_t cap, n;
} OsiBytesCache;

typedef struct OsiCost {
  OsiNodeCost *nodes; /* the model graph's nodes, file order */
  int n_nodes;
  OsiUncounted *uncounted;
  int n_uncounted, cap_uncounted;
  int uncounted_nodes;
  OsiExpr macs, flops;          /* sums over the counted nodes (UNKNOWN: too big to express) */
  int64_t params, weight_bytes; /* every initializer of the model; -1 past int64 */
  /* The schedule: the engine's topological order of the graph's nodes. */
  const int *order;
  int n_steps;
  OsiLiveValue *live;
  int n_live;
  OsiExpr peak;  /* the activation peak when one step's live bytes dominate every other's; else UNKNOWN */
  int peak_step; /* that step, -1 when none */
  int failed;    /* memory ran out */
  OsiBytesCache bytes;
} OsiCost;

/* Runs the walk (cost_graph.c) and the schedule (cost_memory.c). */
void osi_cost_compute(OsiCost *c, OsiRun *run, const OsiContext *root);
void osi_cost_schedule(OsiCost *c, OsiRun *run, const OsiContext *root);
void osi_cost_free(OsiCost *c);

/* Bits per element of an ONNX element type (4 for int4, 2 for uint2), 0
 * for strings and unknown types. */
int osi_cost_elem_bits(int32_t dtype);
/* Bytes a tensor type takes (CeilDiv(numel*bits, 8)), UNKNOWN for other
 * kinds, unknown sizes and strings. */
OsiExpr osi_cost_type_bytes(OsiExprStore *s, const OsiType *t);
/* The same through c's cache (computed directly when memory runs out). */
OsiExpr osi_cost_bytes_cached(OsiCost *c, OsiExprStore *s, const OsiType *t);
/* Elements and bytes of an initializer from its declared dims and type
 * (never its data): 0 and *bytes set, -1 past int64 or for a string. */
int osi_cost_tensor_size(const OsiTensor *t, int64_t *elems, int64_t *bytes);

#endif
