/*
 * The inference context: the state of one graph scope while its nodes are
 * walked (values by name, opsets), plus a link to the run state shared by
 * every scope (arena, expressions, diagnostics, the first error).
 */
#ifndef OSI_CONTEXT_H
#define OSI_CONTEXT_H

#include <stdarg.h>

#include "model/graph.h"
#include "onnx_shapes.h"
#include "infer/requirements.h"
#include "infer/value_table.h"

/* A size printed in a diagnostic's message: bytes [at, at + len) of it are
 * the text of e, which a result prints with its named sizes (floor_1). */
typedef struct OsiDiagSize {
  uint32_t at, len;
  OsiExpr e;
} OsiDiagSize;

typedef struct OsiDiagnostic {
  const char *code;    /* "UNSUPPORTED_OP", "DATA_DEPENDENT", ... */
  const char *message;
  const char *node;    /* node name, "" when none */
  const char *op_type; /* "" when none */
  int node_index;      /* -1 when none; in the graph of `path` */
  const char *path;    /* subgraph path of the node ("" at top level) */
  const OsiDiagSize *sizes; /* in message order; NULL when none */
  int n_sizes;
  int uncertain; /* OsiRun.uncertain when it was recorded */
} OsiDiagnostic;

/* A recorded relation between two dims: lhs == rhs or lhs <= rhs. */
typedef struct OsiConstraint {
  OsiExpr lhs, rhs;
} OsiConstraint;

typedef struct OsiConstraintList {
  OsiConstraint *items;
  int count, cap;
  /* Duplicate check (constraints.c): open addressing, slot = 1 + item index,
   * 0 empty. Slots past `count` (after a rollback) are ignored. */
  int *index;
  int index_cap, index_used;
} OsiConstraintList;

/* One entry of the event log (OSI_OPT_EVENTS). */
typedef struct OsiEvent {
  const char *kind;    /* "seed", "node", "set", "anchor", "constraint", "rename", "replace" */
  int node_index;      /* -1 when no node is involved */
  const char *node;    /* node name, "" when none */
  const char *op_type; /* "" when none */
  const char *path;    /* subgraph path ("" at top level) */
  const char *value;   /* value name, "" when none */
  const char *detail;  /* human-readable: the type set, the constraint, the rename */
} OsiEvent;

/* A subgraph value, kept after its scope is gone so results can report it. */
typedef struct OsiSubValue {
  const char *key;     /* scope path + name, e.g. "loop/body/acc_out" */
  const char *path, *name;
  const OsiType *type;
} OsiSubValue;

/* A subgraph or function body as it was last inferred, kept so that the
 * result can describe every node of every scope (viewers draw them). */
typedef struct OsiScopeLog {
  const char *path;   /* e.g. "loop/body/" */
  const char *caller; /* path of the scope holding the calling node */
  int node_index;     /* the calling node's index in the caller's graph */
  const char *tag;    /* the graph attribute, or the called function's name */
  OsiGraph graph;     /* a copy: nodes, inputs and outputs are arena memory */
  /* Path of the scope that defines each name a node of the body reads
   * (every node's inputs in order, then the graph outputs), NULL for an
   * omitted input or a name no scope defines: outer values included. */
  const char **where;
} OsiScopeLog;

/* Diagnostics past this many are not kept (the first error still is). */
#define OSI_MAX_DIAGNOSTICS 10000

/* State shared by every scope of one run. */
typedef struct OsiRun {
  OsiArena *arena;
  OsiExprStore *exprs;
  const OsiModel *model;
  uint32_t flags;
  OsiDiagnostic *diags;
  int n_diags, cap_diags;
  OsiConstraintList equal, less_equal;
  /* Declared labels that name a size inference computed (label -> that
   * size), filled by osi_constraints_propagate; the values keep the size. */
  OsiConstraintList labels;
  /* (d, a) for each value a that the data-dependent dim d may take at run
   * time (osi_op_constrain_either); internal, not reported. */
  OsiConstraintList either;
  OsiRequirements requirements;
  /* What holds whenever the model runs, used while inferring (facts.h),
   * and how to free it (facts.h needs this header: no call back into it). */
  struct OsiFacts *facts;
  void (*facts_free)(struct OsiRun *run);
  /* The first SHAPE_MISMATCH or INVALID_MODEL diagnostic (the first broken
   * node in inference order), kept even past the diagnostics cap;
   * first_error_at is its index in diags (has_first_error 0: none). */
  OsiDiagnostic first_error;
  int has_first_error, first_error_at;
  /* Event log, only filled with OSI_OPT_EVENTS. */
  OsiEvent *events;
  int n_events, cap_events;
  /* The node being inferred (for events and constraints). */
  int cur_node;
  const char *cur_node_name, *cur_op_type, *cur_path;
  /* Values of subgraphs and function bodies, by key. */
  OsiValueTable sub_index;
  OsiSubValue *subs;
  int n_subs, cap_subs;
  /* > 0 while a probe run infers a body (osi_op_probe_subgraph): its
   * values and scopes are not kept, the real runs record them. */
  int probing;
  /* > 0 while the rest of a graph is inferred with one If branch's outputs
   * (infer/branches.c): its fresh dims are named apart, and it is rolled
   * back whatever it finds. */
  int speculating;
  /* Bodies being inferred that may not run where their node does: an If's
   * branch under a condition the sizes leave open, a loop's or a Scan's
   * body (no iteration), not a function body or an If's decided branch. A
   * diagnostic records it, so that a failure there is known for one that
   * may never happen (infer/branches.c). */
  int uncertain;
  /* Top-level graph: the entries node k read and wrote, its inputs then its
   * outputs from top_io[top_io_at[k]] (NULL: omitted), so that the result
   * lists them without looking their names up again. */
  const OsiValueEntry **top_io;
  size_t *top_io_at;
  /* The top-level graph's nodes in the order they were inferred (a
   * topological order: file order where that is one), n_nodes entries;
   * the cost model's schedule. */
  int *top_order;
  /* Subgraph and function body scopes, by path (first inference order). */
  OsiValueTable scope_index;
  OsiScopeLog *scopes;
  int n_scopes, cap_scopes;
  /* Nodes inferred so far, function bodies and fixed-point rounds included,
   * and how many the run may infer (set when the top-level graph starts). */
  int64_t node_visits, max_node_visits;
  /* Nodes the runs of If branches that cannot run inferred (branches.c):
   * counted apart, with a budget of their own as large, so that trying them
   * never leaves the real run short (nested Ifs each try the rest of their
   * body, which holds the next). */
  int64_t speculative_visits;
  /* Nodes looked at to count the rest of a graph after an If (branches.c):
   * linear in the model's nodes (once a graph, saturated); a test reads it
   * (osi_result_work) to bound the work of a graph of many Ifs. */
  int64_t nodes_counted;
  /* Top-level values defined before the requirements last made two sizes
   * equal: the ones whose Broadcasts may reduce once inference ends. */
  int values_before_join, joins_seen;
  /* Top-level nodes' built-in rules (infer.c), by the pointers of their op
   * type and domain: a decoder interns op types, so a model's nodes of one
   * op share them, and the lookups behind a rule (domain, op, opset, arity)
   * are the same for all of them. Only lookups that said nothing go in. */
  struct {
    const char *op_type, *domain;
    void (*rule)(void); /* an OsiOpFn (ops.h) */
    int64_t opset;
    const void *arity;  /* an OsiArity (ops/op_arity.h), or NULL */
  } op_cache[64];
  /* The types osi_tensor_type made, by the tensor, direct-mapped: the
   * decoders give every node of one repeated attribute (a Constant's value:
   * a GPT-2 export's 3,067 Constants hold ~160 distinct) the same
   * OsiTensor, and a type is never changed once made. */
  struct {
    const OsiTensor *t;
    const OsiType *type;
  } tensor_types[128];
  /* Function call nesting (cycle and depth checks). */
  int call_depth;
  const char *call_stack[32];
  const OsiRegistry *registry;
  OsiStatus status;
  char message[512];
  const char *error_node;
} OsiRun;

typedef struct OsiContext {
  OsiRun *run;
  struct OsiContext *parent; /* enclosing scope (subgraphs), NULL at top level */
  const char *path;          /* "" at top level; prefix of nested value names */
  int depth;
  int n_opsets;
  const OsiOpsetImport *opsets;
  OsiValueTable values;
  /* The top-level scope of a decoded model (OsiModel.n_name_ids): its
   * entries by name id, so that inference finds names without hashing
   * (set by infer.c and topo.c; NULL otherwise). `values` is then filled
   * only when a name is first looked up by its text (osi_context_table):
   * on a 128-layer export or a 100k-node graph each insertion was a
   * cache miss, and a viewer reading the packed result needs none. */
  OsiValueEntry **by_id;
  uint32_t n_by_id;
  int table_pending; /* by_id holds entries `values` does not have yet */
  /* Every entry in definition order (for JSON output). */
  OsiValueEntry **order;
  int n_order, cap_order;
  /* The walk of the scope's nodes while osi_infer_graph runs (infer.h),
   * for an op that infers the rest of the graph (infer/branches.c). */
  struct OsiWalk *walk;
} OsiContext;

int osi_context_init(OsiContext *ctx, OsiRun *run, OsiContext *parent, const char *path,
                     int n_opsets, const OsiOpsetImport *opsets, size_t expected_values);
void osi_context_free(OsiContext *ctx);

/* The scope's name -> entry table (built from by_id on first use; the
 * context is otherwise unchanged, hence const). NULL without memory. */
OsiValueTable *osi_context_table(const OsiContext *ctx);
/* The scope's entry named `name` (not pending), NULL if none. */
OsiValueEntry *osi_context_get(const OsiContext *ctx, const char *name);
/* The same for a name the model vouches for (OsiModel.n_name_ids): by id
 * at the top level. */
OsiValueEntry *osi_context_get_model_name(const OsiContext *ctx, const char *name);
/* The scope's entry for `name`, or a new zeroed one (*created = 1); in a
 * by_id scope `name` is a model name, `id` its id or 0 to read it. NULL
 * without memory. */
OsiValueEntry *osi_context_upsert(OsiContext *ctx, const char *name, uint32_t id, int *created);

/* Looks a name up in this scope, then the enclosing ones. */
OsiValueEntry *osi_context_lookup(const OsiContext *ctx, const char *name);
/* The same, for a name hashed once (osi_name_key); ctx may be NULL. */
OsiValueEntry *osi_context_find(const OsiContext *ctx, const OsiNameKey *key);
/* The same for a model name of id `id` (osi_name_id; 0: not one): found by
 * id in a by_id scope, whose name table a subgraph reading an outer name
 * would otherwise build (every top-level name hashed, to find one). */
OsiValueEntry *osi_context_find_id(const OsiContext *ctx, const OsiNameKey *key, uint32_t id);
/* Defines a value in this scope (replacing an existing definition); in a
 * by_id scope, `name` is a model name (osi_name_id). */
OsiValueEntry *osi_context_define(OsiContext *ctx, const char *name, const OsiType *type,
                                  int producer);
/* The same for an entry of the scope already found (a pending node output:
 * topo.c); `first` when it is not defined yet (it joins the definition
 * order). Returns e. */
OsiValueEntry *osi_context_define_entry(OsiContext *ctx, OsiValueEntry *e, int first,
                                        const OsiType *type, int producer);
/* Opset version imported for a domain, 0 if not imported. */
int64_t osi_context_opset(const OsiContext *ctx, const char *domain);

/* Records the first error of the run (later ones are ignored); returns it. */
OsiStatus osi_run_fail(OsiRun *run, OsiStatus status, const char *node, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
void osi_run_diag(OsiRun *run, const char *code, const char *node, const char *op_type,
                  int node_index, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 6, 7)))
#endif
    ;
void osi_run_vdiag(OsiRun *run, const char *code, const char *node, const char *op_type,
                   int node_index, const char *fmt, va_list ap);
/* A diagnostic whose message prints sizes: fmt knows %s (a string), %d (an
 * int) and %E (an OsiExpr, recorded as an OsiDiagSize), and %%. */
void osi_run_vdiag_sizes(OsiRun *run, const char *code, const char *node, const char *op_type,
                         int node_index, const char *fmt, va_list ap);

/* Appends an event about the current node (no-op unless OSI_OPT_EVENTS). */
void osi_run_event(OsiRun *run, const char *kind, const char *value, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
#define OSI_EVENTS_ON(run) (((run)->flags & OSI_OPT_EVENTS) != 0)
/* "float[N,3]" / "seq(float[*])" / "?" into buf. */
const char *osi_type_text(OsiExprStore *s, const OsiType *t, char *buf, size_t cap);

/* Remembers a subgraph value under its scope path (replacing an earlier
 * inference of the same scope, e.g. a previous fixed-point round). */
void osi_run_keep_sub_value(OsiRun *run, const char *path, const char *name, const OsiType *type);
/* Remembers the body `graph` just inferred in `child` (still alive: names
 * are resolved through its scopes), replacing an earlier inference of the
 * same path. */
void osi_run_keep_scope(OsiRun *run, const OsiContext *child, const OsiGraph *graph,
                        const char *caller, int node_index, const char *tag);
/* Frees what the run allocated outside the arena. */
void osi_run_free(OsiRun *run);

/* Type of a constant tensor (initializer or Constant attribute), with its
 * content when inference keeps it. */
const OsiType *osi_tensor_type(OsiRun *run, const OsiTensor *t);

#endif
