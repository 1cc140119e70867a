#include "infer/constraints.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "infer/samples.h"

static size_t pair_hash(OsiExpr a, OsiExpr b) {
  uint64_t h = ((uint64_t)a << 32 | (uint64_t)b) * 0x9e3779b97f4a7c15ull;
  return (size_t)(h >> 32);
}

/* The slot where (a, b) is indexed, or the empty slot where it would go. */
static size_t index_slot(const OsiConstraintList *l, OsiExpr a, OsiExpr b) {
  size_t mask = (size_t)l->index_cap - 1, i = pair_hash(a, b) & mask;
  for (int k; (k = l->index[i]) != 0; i = (i + 1) & mask)
    if (k - 1 < l->count && l->items[k - 1].lhs == a && l->items[k - 1].rhs == b) break;
  return i;
}

static int list_has(const OsiConstraintList *l, OsiExpr a, OsiExpr b) {
  return l->index_cap && l->index[index_slot(l, a, b)] != 0;
}

/* Rebuilds the index for items[0..count) at a size with room to spare. */
static int index_rebuild(OsiConstraintList *l) {
  int cap = 64;
  while (cap < 4 * (l->count + 1)) cap *= 2;
  int *index = calloc((size_t)cap, sizeof *index);
  if (!index) return 0;
  free(l->index);
  l->index = index;
  l->index_cap = cap;
  l->index_used = 0;
  for (int i = 0; i < l->count; i++) {
    size_t mask = (size_t)cap - 1, j = pair_hash(l->items[i].lhs, l->items[i].rhs) & mask;
    while (index[j]) j = (j + 1) & mask;
    index[j] = i + 1;
    l->index_used++;
  }
  return 1;
}

/* Past this many constraints the rest are dropped (pathological models). */
#define MAX_CONSTRAINTS 20000

static void list_add(OsiConstraintList *l, OsiExpr a, OsiExpr b) {
  if (l->count >= MAX_CONSTRAINTS || list_has(l, a, b)) return;
  if (l->count == l->cap) {
    int cap = l->cap ? l->cap * 2 : 16;
    OsiConstraint *items = realloc(l->items, (size_t)cap * sizeof *items);
    if (!items) return;
    l->items = items;
    l->cap = cap;
  }
  /* Slots of rolled-back items count as used: rebuilding drops them. */
  if ((l->index_used + 1) * 2 > l->index_cap && !index_rebuild(l)) return;
  l->items[l->count].lhs = a;
  l->items[l->count].rhs = b;
  l->index[index_slot(l, a, b)] = l->count + 1;
  l->index_used++;
  l->count++;
}

static void add_equal_pair(OsiRun *run, OsiExpr a, OsiExpr b) {
  if (a == b || a == OSI_EXPR_UNKNOWN || b == OSI_EXPR_UNKNOWN) return;
  if (strcmp(osi_expr_str(run->exprs, a), osi_expr_str(run->exprs, b)) > 0) {
    OsiExpr t = a;
    a = b;
    b = t;
  }
  if (!list_has(&run->equal, a, b))
    osi_run_event(run, "constraint", "", "%s == %s", osi_expr_str(run->exprs, a),
                  osi_expr_str(run->exprs, b));
  list_add(&run->equal, a, b);
}

void osi_constraint_equal(OsiRun *run, OsiExpr a, OsiExpr b) {
  add_equal_pair(run, a, b);
  OsiExpr x, y;
  if (a != b && osi_expr_leaf_equality(run->exprs, a, b, &x, &y)) add_equal_pair(run, x, y);
}

void osi_constraint_less_equal(OsiRun *run, OsiExpr lhs, OsiExpr rhs) {
  if (lhs == rhs || lhs == OSI_EXPR_UNKNOWN || rhs == OSI_EXPR_UNKNOWN) return;
  if (!list_has(&run->less_equal, lhs, rhs))
    osi_run_event(run, "constraint", "", "%s <= %s", osi_expr_str(run->exprs, lhs),
                  osi_expr_str(run->exprs, rhs));
  list_add(&run->less_equal, lhs, rhs);
}

void osi_constraint_either(OsiRun *run, OsiExpr d, OsiExpr a) {
  if (d == a || d == OSI_EXPR_UNKNOWN || a == OSI_EXPR_UNKNOWN) return;
  list_add(&run->either, d, a);
}

void osi_constraints_free(OsiRun *run) {
  free(run->either.items);
  free(run->either.index);
  memset(&run->either, 0, sizeof run->either);
  free(run->equal.items);
  free(run->less_equal.items);
  free(run->equal.index);
  free(run->less_equal.index);
  free(run->labels.items);
  free(run->labels.index);
  memset(&run->labels, 0, sizeof run->labels);
  memset(&run->equal, 0, sizeof run->equal);
  memset(&run->less_equal, 0, sizeof run->less_equal);
}

/* Section - Preferred names */

/* A set of symbol names (open addressing over string hashes) that also
 * keeps them in insertion order. */
typedef struct Names {
  const char **items;
  int count, cap;
  const char **slots;
  size_t nslots;
} Names;

static size_t names_find(const Names *n, const char *name) {
  size_t mask = n->nslots - 1, i = (size_t)osi_hash_string(name) & mask;
  while (n->slots[i] && strcmp(n->slots[i], name) != 0) i = (i + 1) & mask;
  return i;
}

static int names_has(const Names *n, const char *name) {
  return n->nslots && n->slots[names_find(n, name)] != NULL;
}

static void names_add(const char *name, void *user) {
  Names *n = user;
  if (names_has(n, name)) return;
  if ((size_t)(n->count + 1) * 2 > n->nslots) {
    size_t nslots = n->nslots ? n->nslots * 2 : 64;
    const char **slots = calloc(nslots, sizeof *slots);
    if (!slots) return;
    free(n->slots);
    n->slots = slots;
    n->nslots = nslots;
    for (int i = 0; i < n->count; i++) n->slots[names_find(n, n->items[i])] = n->items[i];
  }
  if (n->count == n->cap) {
    int cap = n->cap ? n->cap * 2 : 32;
    const char **items = realloc(n->items, (size_t)cap * sizeof *items);
    if (!items) return;
    n->items = items;
    n->cap = cap;
  }
  n->slots[names_find(n, name)] = name;
  n->items[n->count++] = name;
}

static void names_free(Names *n) {
  free(n->items);
  free(n->slots);
}

static void collect_type_names(OsiExprStore *s, const OsiType *t, Names *out, int depth) {
  if (!t || depth > 16) return;
  for (int i = 0; i < t->rank; i++) osi_expr_for_each_symbol(s, t->dims[i], names_add, out);
  collect_type_names(s, t->elem, out, depth + 1);
}

static void collect_names(OsiExprStore *s, const OsiValueInfo *vi, int n, Names *out) {
  for (int i = 0; i < n; i++) collect_type_names(s, vi[i].type, out, 0);
}

/* Section - Equivalence classes (union-find over constraint operands) */

typedef struct Classes {
  OsiExpr *members;
  int *parent;
  int *next; /* the members of a class form a ring */
  int count;
  int *slots; /* member -> 1 + index, open addressing; 0 empty */
  size_t mask;
} Classes;

static int class_index(Classes *c, OsiExpr e) {
  size_t i = (size_t)(((uint64_t)e * 0x9e3779b97f4a7c15ull) >> 32) & c->mask;
  for (; c->slots[i]; i = (i + 1) & c->mask)
    if (c->members[c->slots[i] - 1] == e) return c->slots[i] - 1;
  c->members[c->count] = e;
  c->parent[c->count] = c->count;
  c->next[c->count] = c->count;
  c->slots[i] = c->count + 1;
  return c->count++;
}

static int find_root(Classes *c, int i) {
  while (c->parent[i] != i) i = c->parent[i] = c->parent[c->parent[i]];
  return i;
}

typedef struct Ranking {
  OsiExprStore *s;
  const Names *inputs, *preferred;
  const OsiRequirements *req; /* what the model needs to run */
  const OsiConstraintList *declared; /* (declared, inferred) sides of the anchors' equalities */
} Ranking;

static int from_inputs(const Ranking *r, OsiExpr e);

/* Lower is a better canonical name: a graph-input symbol, then a size
 * computed from graph-input symbols alone (past_seq+seq, batch*(h//4)),
 * then a declared label (a symbol declared on outputs or value_info only),
 * then anything holding an internal symbol (nnz_1, 2*L). A label
 * thus names a size only where inference has none of its own. */
static int rank_of(const Ranking *r, OsiExpr e) {
  const char *name;
  int64_t c;
  if (osi_expr_is_const(r->s, e, &c)) return 0;
  int symbol = osi_expr_is_symbol(r->s, e, &name);
  if (symbol && names_has(r->inputs, name)) return 1;
  if (from_inputs(r, e)) return 2;
  if (symbol && names_has(r->preferred, name)) return 3;
  return 4;
}

static int better(const Ranking *r, OsiExpr a, OsiExpr b) {
  int ra = rank_of(r, a), rb = rank_of(r, b);
  if (ra != rb) return ra < rb;
  const char *sa = osi_expr_str(r->s, a), *sb = osi_expr_str(r->s, b);
  size_t la = strlen(sa), lb = strlen(sb);
  if (la != lb) return la < lb;
  return strcmp(sa, sb) < 0;
}

typedef struct AllPreferred {
  const Names *preferred;
  int all;
} AllPreferred;

static void check_preferred(const char *name, void *user) {
  AllPreferred *ap = user;
  if (!names_has(ap->preferred, name)) ap->all = 0;
}

/* Whether key -> target may be applied (the design's keep rules): a
 * graph-input symbol is never renamed; a label gives way to a computed size
 * (Relufeatures_dim_0 -> batch, d -> b+c) but not to another label; a
 * compound of input symbols (b+c) gives way to an input symbol only
 * (past_seq+seq -> total_seq), one of declared names to a computed size. */
static int may_rename(const Ranking *r, OsiExpr key, OsiExpr target) {
  const char *name;
  int64_t c;
  int target_rank = rank_of(r, target);
  if (osi_expr_is_const(r->s, key, &c)) return 0;
  if (osi_expr_is_symbol(r->s, key, &name)) {
    if (names_has(r->inputs, name)) return 0;
    return !names_has(r->preferred, name) || target_rank <= 2;
  }
  if (from_inputs(r, key)) return target_rank == 1;
  AllPreferred ap = {r->preferred, 1};
  osi_expr_for_each_symbol(r->s, key, check_preferred, &ap);
  return !ap.all || target_rank <= 2;
}

/* Section - Consistency of joined classes */

typedef struct InputScan {
  const Names *inputs;
  int all_inputs;
} InputScan;

static void scan_symbol(const char *name, void *user) {
  InputScan *sc = user;
  if (!names_has(sc->inputs, name)) sc->all_inputs = 0;
}

/* A size computed from the graph inputs alone: every symbol of e is a
 * graph-input symbol (constants are never class members). */
static int from_inputs(const Ranking *r, OsiExpr e) {
  InputScan sc = {r->inputs, 1};
  osi_expr_for_each_symbol(r->s, e, scan_symbol, &sc);
  return sc.all_inputs;
}

/* Definitions taken from accepted equalities: a graph-input symbol naming
 * a size of other input symbols (total_seq := past_seq+seq). No value
 * contains a defined symbol. */
typedef struct Defs {
  OsiExpr *from, *to;
  size_t n, cap;
} Defs;

static OsiExpr defs_apply(OsiExprStore *s, const Defs *d, OsiExpr e) {
  return d->n ? osi_expr_substitute(s, e, d->from, d->to, d->n) : e;
}

static int defs_add(OsiExprStore *s, Defs *d, OsiExpr symbol, OsiExpr value) {
  if (d->n == d->cap) {
    size_t cap = d->cap ? d->cap * 2 : 8;
    OsiExpr *from = realloc(d->from, cap * sizeof *from);
    if (!from) return 0;
    d->from = from;
    OsiExpr *to = realloc(d->to, cap * sizeof *to);
    if (!to) return 0;
    d->to = to;
    d->cap = cap;
  }
  for (size_t i = 0; i < d->n; i++) {
    OsiExpr v = osi_expr_substitute(s, d->to[i], &symbol, &value, 1);
    if (v == OSI_EXPR_UNKNOWN) return 0;
    d->to[i] = v;
  }
  d->from[d->n] = symbol;
  d->to[d->n++] = value;
  return 1;
}

/* What a class knows of its size, per root: its member made of graph-input
 * symbols only or OSI_EXPR_UNKNOWN, whether it holds a declared name for a
 * size inference does not know (OsiAnchorLog.filled), and whether it holds
 * a size decided at run time (an internal symbol: nnz_2, Min(if_17,8)). */
typedef struct ClassSizes {
  OsiExpr *rep;
  char *unknown, *internal;
  const OsiConstraintList *filled;
} ClassSizes;

/* The root of e's class, adding e as a class of its own when new. */
static int class_of(const Ranking *r, Classes *c, ClassSizes *cs, OsiExpr e) {
  int known = c->count, i = class_index(c, e);
  if (i == known) {
    cs->rep[i] = from_inputs(r, e) ? e : OSI_EXPR_UNKNOWN;
    cs->unknown[i] = (char)list_has(cs->filled, e, e);
    InputScan sc = {r->preferred, 1}; /* a symbol neither of the inputs nor declared */
    osi_expr_for_each_symbol(r->s, e, scan_symbol, &sc);
    cs->internal[i] = (char)!sc.all_inputs;
  }
  return find_root(c, i);
}

/* Whether equating two classes, each with its member made of input
 * symbols (or none), can name one size rather than restrict the graph
 * inputs: S and Min(S,1), p+q and 2*p, or batch and seq, cannot; total_seq
 * and past_seq+seq can (total_seq is then defined as that), and so can a size
 * that the definitions so far make equal to the other at ordinary sizes
 * (GPT-2's past+Broadcast(seq, Min(total,64)-Min(past,64)) and past+seq). */
/* Whether sym is the side of lhs == rhs that a declaration wrote (not the
 * inferred size it was set against); input: and is a graph-input symbol. */
static int declares(const Ranking *r, OsiExpr sym, OsiExpr lhs, OsiExpr rhs, int input) {
  const char *name;
  OsiExpr other = sym == lhs ? rhs : sym == rhs ? lhs : OSI_EXPR_UNKNOWN;
  return other != OSI_EXPR_UNKNOWN && list_has(r->declared, sym, other) &&
         (!input || (osi_expr_is_symbol(r->s, sym, &name) && names_has(r->inputs, name)));
}

static int join_consistent(const Ranking *r, Defs *defs, OsiExpr ra, OsiExpr rb, OsiExpr lhs, OsiExpr rhs) {
  if (ra == OSI_EXPR_UNKNOWN || rb == OSI_EXPR_UNKNOWN) return 1;
  OsiExprStore *s = r->s;
  OsiExpr a = defs_apply(s, defs, ra), b = defs_apply(s, defs, rb);
  if (a == OSI_EXPR_UNKNOWN || b == OSI_EXPR_UNKNOWN) return 0;
  if (a == b) return 1;
  const char *name, *other;
  int sa = osi_expr_is_symbol(s, a, &name), sb = osi_expr_is_symbol(s, b, &other);
  /* An input symbol is defined by a size only where a declaration names
   * that size with the symbol itself: through an output label the two
   * sides are two computed sizes (torch labels half's batch dim and
   * pooled's height dim alike, or a padded height and another output's
   * batch, which inference computed), which only the samples may join. Two
   * graph-input symbols are two sizes the caller picks: equating them is
   * left to the samples too (torch labels batch and seq dims alike). */
  int named = declares(r, ra, lhs, rhs, 0), named_b = declares(r, rb, lhs, rhs, 0);
  if (sa && named && !sb && !osi_expr_mentions(s, b, name)) return defs_add(s, defs, a, b);
  if (sb && named_b && !sa && !osi_expr_mentions(s, a, other)) return defs_add(s, defs, b, a);
  return osi_holds_on_samples(s, r->req, a, b, 0);
}

/* Section - Declared names for data-dependent dims */

/* A constraint list's pairs sorted by lhs, to find every rhs of a dim. */
typedef struct ByLhs {
  OsiConstraint *items;
  int count;
} ByLhs;

static int cmp_lhs(const void *a, const void *b) {
  OsiExpr x = ((const OsiConstraint *)a)->lhs, y = ((const OsiConstraint *)b)->lhs;
  return x < y ? -1 : x > y;
}

static int by_lhs_init(ByLhs *b, const OsiConstraintList *l) {
  b->count = 0;
  b->items = NULL;
  if (!l->count) return 1; /* memcpy and qsort take no NULL, even for 0 items */
  b->items = malloc((size_t)l->count * sizeof *b->items);
  if (!b->items) return 0;
  memcpy(b->items, l->items, (size_t)l->count * sizeof *b->items);
  b->count = l->count;
  qsort(b->items, (size_t)b->count, sizeof *b->items, cmp_lhs);
  return 1;
}

/* Index of the first pair with lhs e, or count. */
static int by_lhs_first(const ByLhs *b, OsiExpr e) {
  int lo = 0, hi = b->count;
  while (lo < hi) {
    int mid = lo + (hi - lo) / 2;
    if (b->items[mid].lhs < e) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

typedef struct DataDims {
  const ByLhs *either, *bounds;
} DataDims;

#define EITHER_DEPTH 4

/*
 * Whether the data-dependent dim m may be the size `size` (made of graph-
 * input symbols) at ordinary sizes: every value m may take that is itself
 * made of input symbols (an If's branch) must agree with it, and it must
 * fit every bound of m made of input symbols. torch declares an If's
 * output with the input's name where one branch slices it (`if x.size(0)
 * > 4: x = x[:4]` gives y: [batch, 4]): taken, that name would make the
 * merged size batch where it is Min(batch, 4).
 */
static int data_dim_fits(const Ranking *r, Defs *defs, const DataDims *dd, OsiExpr m, OsiExpr size, int depth) {
  OsiExprStore *s = r->s;
  for (int i = by_lhs_first(dd->either, m); i < dd->either->count && dd->either->items[i].lhs == m; i++) {
    OsiExpr alt = dd->either->items[i].rhs;
    if (from_inputs(r, alt)) {
      OsiExpr a = defs_apply(s, defs, alt), b = defs_apply(s, defs, size);
      if (a == OSI_EXPR_UNKNOWN || b == OSI_EXPR_UNKNOWN || (a != b && !osi_holds_on_samples(s, r->req, a, b, 0))) return 0;
    } else if (depth < EITHER_DEPTH && !data_dim_fits(r, defs, dd, alt, size, depth + 1)) {
      return 0;
    }
  }
  for (int i = by_lhs_first(dd->bounds, m); i < dd->bounds->count && dd->bounds->items[i].lhs == m; i++) {
    OsiExpr bound = dd->bounds->items[i].rhs;
    if (!from_inputs(r, bound)) continue;
    OsiExpr a = defs_apply(s, defs, size), b = defs_apply(s, defs, bound);
    if (a == OSI_EXPR_UNKNOWN || b == OSI_EXPR_UNKNOWN || !osi_holds_on_samples(s, r->req, a, b, 1)) return 0;
  }
  return 1;
}

/* data_dim_fits for every member of class `root` against `size`. */
static int class_fits(const Ranking *r, Defs *defs, const DataDims *dd, const Classes *c, int root, OsiExpr size) {
  if (size == OSI_EXPR_UNKNOWN) return 1;
  int i = root;
  do {
    if (!data_dim_fits(r, defs, dd, c->members[i], size, 0)) return 0;
    i = c->next[i];
  } while (i != root);
  return 1;
}

/* Section - Bounds of what a label names */

#define BOUND_DEPTH 8
#define BOUND_MEMO 32

typedef struct LabelBound {
  const Ranking *r;
  const ByLhs *bounds;
  int depth;
  /* symbols already bounded (any bound found is sound; the memo only saves work) */
  OsiExpr memo_sym[BOUND_MEMO], memo_bound[BOUND_MEMO];
  int n_memo;
} LabelBound;

/* A graph-input symbol stays; another symbol is bounded by its recorded
 * bounds (each bounded in turn), a constant one preferred. */
static OsiExpr symbol_bound(void *user, OsiExpr sym) {
  LabelBound *lb = user;
  const char *name;
  if (osi_expr_is_symbol(lb->r->s, sym, &name) && names_has(lb->r->inputs, name)) return sym;
  for (int i = 0; i < lb->n_memo; i++)
    if (lb->memo_sym[i] == sym) return lb->memo_bound[i];
  if (lb->depth >= BOUND_DEPTH) return OSI_EXPR_UNKNOWN;
  OsiExprStore *s = lb->r->s;
  OsiExpr best = OSI_EXPR_UNKNOWN;
  int64_t c, bc = 0;
  lb->depth++;
  for (int i = by_lhs_first(lb->bounds, sym); i < lb->bounds->count && lb->bounds->items[i].lhs == sym; i++) {
    OsiExpr u = osi_expr_upper_bound(s, lb->bounds->items[i].rhs, symbol_bound, lb);
    if (u == OSI_EXPR_UNKNOWN) continue;
    int uc = osi_expr_is_const(s, u, &c), bconst = best != OSI_EXPR_UNKNOWN && osi_expr_is_const(s, best, &bc);
    if (best == OSI_EXPR_UNKNOWN || (uc && (!bconst || c < bc))) best = u;
    else if (!uc && !bconst) best = osi_expr_min(s, best, u);
  }
  lb->depth--;
  if (lb->n_memo < BOUND_MEMO) {
    lb->memo_sym[lb->n_memo] = sym;
    lb->memo_bound[lb->n_memo++] = best;
  }
  return best;
}

static int is_label(const Ranking *r, OsiExpr e) {
  const char *name;
  return osi_expr_is_symbol(r->s, e, &name) && names_has(r->preferred, name) && !names_has(r->inputs, name);
}

/* The labels of a class of data-dependent sizes (no member made of graph-
 * input symbols) get the bound of its other members: detections for
 * Min(if_17,8) is <= 8, N for nnz_1 (<= 120) is <= 120, and so
 * are the other labels torch gives that size (labels_dynamic_axes_1), which
 * keep their own name on their output. A constant bound is preferred. */
static void bound_labels(OsiRun *run, const Ranking *r, const ByLhs *bounds, const Classes *c, int root) {
  OsiExprStore *s = r->s;
  OsiExpr u = OSI_EXPR_UNKNOWN;
  int64_t k;
  int i = root, labels = 0;
  do {
    OsiExpr m = c->members[i];
    if (from_inputs(r, m)) return;
    if (is_label(r, m)) {
      labels++;
    } else if (u == OSI_EXPR_UNKNOWN || !osi_expr_is_const(s, u, &k)) {
      LabelBound lb = {.r = r, .bounds = bounds};
      OsiExpr b = osi_expr_upper_bound(s, m, symbol_bound, &lb);
      if (b != OSI_EXPR_UNKNOWN && b != m && (u == OSI_EXPR_UNKNOWN || osi_expr_is_const(s, b, &k))) u = b;
    }
    i = c->next[i];
  } while (i != root);
  if (!labels || u == OSI_EXPR_UNKNOWN) return;
  do {
    if (is_label(r, c->members[i])) osi_constraint_less_equal(run, c->members[i], u);
    i = c->next[i];
  } while (i != root);
}

static int pair_in(const OsiConstraintList *l, OsiExpr a, OsiExpr b) {
  return list_has(l, a, b) || list_has(l, b, a);
}

/* `merged` with each dim whose declaration was rejected back to the
 * inferred one (`inferred` has the same structure: the merge built
 * `merged` from it). */
static const OsiType *take_back(OsiRun *run, const OsiConstraintList *rejected, const OsiType *merged,
                                const OsiType *inferred, int depth) {
  if (!merged || !inferred || depth > 16) return merged;
  const OsiType *elem = take_back(run, rejected, merged->elem, inferred->elem, depth + 1);
  int changed = elem != merged->elem;
  OsiExpr dims[OSI_MAX_RANK];
  for (int i = 0; i < merged->rank; i++) {
    dims[i] = merged->dims[i];
    if (inferred->rank == merged->rank && dims[i] != inferred->dims[i] &&
        pair_in(rejected, dims[i], inferred->dims[i])) {
      dims[i] = inferred->dims[i];
      changed = 1;
    }
  }
  if (!changed) return merged;
  OsiType *t = osi_type_copy(run->arena, merged);
  if (!t) return merged;
  for (int i = 0; i < merged->rank; i++) osi_type_dims_mut(t)[i] = dims[i];
  t->elem = elem;
  t->elems = NULL; /* inference has read them; what is shown is elem */
  return t;
}

/* Drops the rejected equalities, says which declarations were ignored, and
 * gives the anchored values their inferred dims back there. */
static void settle_rejected(OsiContext *scope, const OsiConstraintList *rejected,
                            const OsiConstraintList *data_dependent, const OsiAnchorLog *log) {
  OsiRun *run = scope->run;
  OsiExprStore *s = run->exprs;
  for (int i = 0; i < rejected->count; i++) {
    OsiExpr lhs = rejected->items[i].lhs, rhs = rejected->items[i].rhs;
    if (list_has(data_dependent, lhs, rhs))
      osi_run_diag(run, "ANCHOR_CONFLICT", "", "", -1,
                   "the declared output shapes make %s equal to %s, but that size is decided at run "
                   "time and may differ from it at ordinary input sizes (a branch of an If, or its "
                   "bound, says so); this declaration is ignored",
                   osi_expr_str(s, lhs), osi_expr_str(s, rhs));
    else
      osi_run_diag(run, "ANCHOR_CONFLICT", "", "", -1,
                   "the declared output shapes make %s equal to %s, but with the other declarations "
                   "that would hold only for some input sizes; this declaration is ignored",
                   osi_expr_str(s, lhs), osi_expr_str(s, rhs));
  }
  OsiConstraintList *eq = &run->equal;
  int kept = 0;
  for (int i = 0; i < eq->count; i++)
    if (!list_has(rejected, eq->items[i].lhs, eq->items[i].rhs)) eq->items[kept++] = eq->items[i];
  if (kept != eq->count) {
    eq->count = kept;
    index_rebuild(eq);
  }
  for (int i = 0; log && i < log->count; i++) {
    OsiValueEntry *e = log->items[i].entry;
    const OsiType *t = take_back(run, rejected, e->type, log->items[i].inferred, 0);
    if (t != e->type) {
      if (OSI_EVENTS_ON(run)) {
        char before[512], after[512];
        osi_run_event(run, "anchor", e->name, "contradictory declaration ignored: %s -> %s",
                      osi_type_text(s, e->type, before, sizeof before), osi_type_text(s, t, after, sizeof after));
      }
      e->type = t;
    }
  }
}

/* Section - Rewriting */

/* Substitution results by expression: the rename map stays the same while
 * every value's type is rewritten, and the same dims (hash-consed ids) recur
 * across thousands of values. Indexed by the expression's id (ids are dense:
 * the store hands them out in order), each slot the result + 1, 0 when not
 * known yet: one load a dim, where a hash probe cost ~50 instructions and
 * the pass makes ~30k of them on a 32-layer export. Without memory it
 * substitutes every time. */
typedef struct SubstMemo {
  const OsiExpr *from, *to;
  size_t n;
  uint32_t *slot;
  size_t cap;
} SubstMemo;

static int memo_grow(SubstMemo *m, OsiExpr e) {
  size_t cap = m->cap ? m->cap : 4096;
  while (cap <= (size_t)e) cap *= 2;
  uint32_t *slot = realloc(m->slot, cap * sizeof *slot);
  if (!slot) return 0;
  memset(slot + m->cap, 0, (cap - m->cap) * sizeof *slot);
  slot[OSI_EXPR_UNKNOWN] = OSI_EXPR_UNKNOWN + 1; /* stays unknown */
  m->slot = slot;
  m->cap = cap;
  return 1;
}

__attribute__((noinline)) static OsiExpr memo_subst_new(OsiExprStore *s, SubstMemo *m, OsiExpr e) {
  if (e == OSI_EXPR_UNKNOWN) return e;
  OsiExpr r = osi_expr_substitute(s, e, m->from, m->to, m->n);
  if ((e < m->cap || memo_grow(m, e)) && r != UINT32_MAX) m->slot[e] = r + 1;
  return r;
}

/* (A dim seen before, most of them, takes no call.) */
static inline OsiExpr memo_subst(OsiExprStore *s, SubstMemo *m, OsiExpr e) {
  return e < m->cap && m->slot[e] ? m->slot[e] - 1 : memo_subst_new(s, m, e);
}

static const OsiType *rewrite_type(OsiRun *run, const OsiType *t, SubstMemo *memo, int depth) {
  if (!t || depth > 16) return t;
  OsiExprStore *s = run->exprs;
  const OsiType *elem = rewrite_type(run, t->elem, memo, depth + 1);
  int changed = elem != t->elem;
  OsiExpr dims[OSI_MAX_RANK];
  for (int i = 0; i < t->rank; i++) {
    dims[i] = memo_subst(s, memo, t->dims[i]);
    if (dims[i] == OSI_EXPR_UNKNOWN) dims[i] = t->dims[i]; /* never lose a dim to the size cap */
    changed |= dims[i] != t->dims[i];
  }
  const OsiValue *value = t->value;
  OsiExpr *vals = NULL;
  const OsiExpr *elems = value ? (value->ints ? value->ints : value->floats) : NULL;
  for (int64_t i = 0; elems && i < value->count; i++) {
    OsiExpr e = memo_subst(s, memo, elems[i]);
    if (e == OSI_EXPR_UNKNOWN || e == elems[i]) continue;
    if (!vals) {
      OsiValue *nv = value->ints ? osi_value_ints(run->arena, value->count, &vals)
                                 : osi_value_floats(run->arena, value->count, &vals);
      if (!nv) break;
      memcpy(vals, elems, (size_t)value->count * sizeof(OsiExpr));
      value = nv;
    }
    vals[i] = e;
  }
  changed |= value != t->value;
  if (!changed) return t;
  OsiType *nt = osi_type_copy(run->arena, t);
  if (!nt) return t;
  for (int i = 0; i < t->rank; i++) osi_type_dims_mut(nt)[i] = dims[i];
  nt->elem = elem;
  nt->elems = NULL; /* inference has read them; what is shown is elem */
  nt->value = value;
  return nt;
}

typedef struct NamedPair {
  const char *name;
  OsiConstraint pair;
} NamedPair;

static int by_name(const void *a, const void *b) {
  return strcmp(((const NamedPair *)a)->name, ((const NamedPair *)b)->name);
}

/* Labels in name order, so that results do not depend on which output
 * declared one first. */
static void sort_labels(OsiRun *run) {
  OsiConstraintList *l = &run->labels;
  if (l->count < 2) return;
  NamedPair *tmp = malloc((size_t)l->count * sizeof *tmp);
  if (!tmp) return;
  for (int i = 0; i < l->count; i++) tmp[i] = (NamedPair){osi_expr_str(run->exprs, l->items[i].lhs), l->items[i]};
  qsort(tmp, (size_t)l->count, sizeof *tmp, by_name);
  for (int i = 0; i < l->count; i++) l->items[i] = tmp[i].pair;
  free(tmp);
  index_rebuild(l);
}

/* Most passes needed in practice is 2 (a rename exposing another); the cap
 * guards against mappings that keep rewriting each other. */
#define MAX_RENAME_PASSES 4
#define TYPE_MEMO 512 /* types whose rewrite the rename pass remembers (a power of 2) */

OsiStatus osi_constraints_propagate(OsiContext *scope, const OsiGraph *g, const OsiAnchorLog *log) {
  OsiRun *run = scope->run;
  int n = run->equal.count;
  if (n == 0) return OSI_OK;
  OsiExprStore *s = run->exprs;
  Names inputs = {0}, preferred = {0};
  collect_names(s, g->inputs, g->n_inputs, &inputs);
  collect_names(s, g->inputs, g->n_inputs, &preferred);
  collect_names(s, g->outputs, g->n_outputs, &preferred);
  collect_names(s, g->value_info, g->n_value_info, &preferred);
  OsiConstraintList declared = {0};
  for (int i = 0; log && i + 1 < log->n_declared; i += 2) list_add(&declared, log->declared[i], log->declared[i + 1]);
  Ranking r = {s, &inputs, &preferred, &run->requirements, &declared};

  size_t nslots = 16;
  while (nslots < (size_t)n * 4) nslots *= 2; /* 2n members at most, load <= 1/2 */
  Classes c = {malloc(sizeof(OsiExpr) * (size_t)(2 * n)), malloc(sizeof(int) * (size_t)(2 * n)),
               malloc(sizeof(int) * (size_t)(2 * n)), 0, calloc(nslots, sizeof(int)), nslots - 1};
  OsiExpr *from = malloc(sizeof(OsiExpr) * (size_t)(2 * n));
  OsiExpr *to = malloc(sizeof(OsiExpr) * (size_t)(2 * n));
  OsiExpr *best = malloc(sizeof(OsiExpr) * (size_t)(2 * n));
  OsiExpr *rep = malloc(sizeof(OsiExpr) * (size_t)(2 * n)); /* ClassSizes */
  char *unknown = malloc((size_t)(2 * n)), *internal = malloc((size_t)(2 * n));
  OsiConstraintList rejected = {0}, data_rejected = {0}, filled = {0};
  Defs defs = {0};
  for (int i = 0; log && i < log->n_filled; i++) {
    const char *name;
    if (osi_expr_is_symbol(s, log->filled[i], &name) && !names_has(&inputs, name))
      list_add(&filled, log->filled[i], log->filled[i]);
  }
  ClassSizes sizes = {rep, unknown, internal, &filled};
  ByLhs either = {0}, bounds = {0};
  DataDims dd = {&either, &bounds};
  OsiStatus st = OSI_OK;
  if (!c.members || !c.parent || !c.next || !c.slots || !from || !to || !best || !rep || !unknown || !internal ||
      !by_lhs_init(&either, &run->either) || !by_lhs_init(&bounds, &run->less_equal)) {
    st = osi_run_fail(run, OSI_ERR_NOMEM, "", "out of memory");
    goto done;
  }
  /* In declaration order; an equality that cannot name one size given the
   * ones already joined waits, and is tried again once others have joined
   * (what they define may make it fit: two caches declared total_seq, one
   * past+seq and one computed through a Broadcast with seq that is past+seq
   * once total_seq is). Whatever still does not fit is rejected (it renames
   * nothing). */
  char *pending = calloc((size_t)n + 1, 1); /* 1: waits; 2: waits, on a data-dependent size */
  if (!pending) {
    st = osi_run_fail(run, OSI_ERR_NOMEM, "", "out of memory");
    goto done;
  }
  for (int i = 0; i < n; i++) pending[i] = 1;
  for (int progress = 1; progress;) {
    progress = 0;
    for (int i = 0; i < n; i++) {
      if (!pending[i]) continue;
      OsiExpr lhs = run->equal.items[i].lhs, rhs = run->equal.items[i].rhs;
      int a = class_of(&r, &c, &sizes, lhs), b = class_of(&r, &c, &sizes, rhs);
      if (a == b) {
        pending[i] = 0;
        continue;
      }
      /* A size decided at run time is one of the inputs only where declared
       * so (torch labels a masked_select's count as another output's batch). */
      if (!class_fits(&r, &defs, &dd, &c, a, rep[b]) || !class_fits(&r, &defs, &dd, &c, b, rep[a]) ||
          (((internal[a] && rep[b] != OSI_EXPR_UNKNOWN) || (internal[b] && rep[a] != OSI_EXPR_UNKNOWN)) &&
           !declares(&r, lhs, lhs, rhs, 1) && !declares(&r, rhs, lhs, rhs, 1))) {
        pending[i] = 2;
        continue;
      }
      if ((unknown[a] && rep[b] != OSI_EXPR_UNKNOWN) || (unknown[b] && rep[a] != OSI_EXPR_UNKNOWN) ||
          !join_consistent(&r, &defs, rep[a], rep[b], lhs, rhs)) {
        pending[i] = 1;
        continue;
      }
      pending[i] = 0;
      progress = 1;
      c.parent[a] = b;
      int ring = c.next[a];
      c.next[a] = c.next[b];
      c.next[b] = ring;
      if (rep[b] == OSI_EXPR_UNKNOWN) rep[b] = rep[a];
      unknown[b] |= unknown[a];
      internal[b] |= internal[a];
    }
  }
  for (int i = 0; i < n; i++) {
    if (!pending[i]) continue;
    list_add(&rejected, run->equal.items[i].lhs, run->equal.items[i].rhs);
    if (pending[i] == 2) list_add(&data_rejected, run->equal.items[i].lhs, run->equal.items[i].rhs);
  }
  free(pending);
  if (rejected.count) settle_rejected(scope, &rejected, &data_rejected, log);
  for (int i = 0; i < c.count; i++) best[i] = OSI_EXPR_UNKNOWN;
  for (int i = 0; i < c.count; i++) {
    int root = find_root(&c, i);
    if (best[root] == OSI_EXPR_UNKNOWN || better(&r, c.members[i], best[root])) best[root] = c.members[i];
  }
  size_t nmap = 0;
  for (int i = 0; i < c.count; i++) {
    OsiExpr target = best[find_root(&c, i)];
    if (c.members[i] != target && may_rename(&r, c.members[i], target)) {
      const char *name;
      if (osi_expr_is_symbol(s, c.members[i], &name) && names_has(&preferred, name))
        list_add(&run->labels, c.members[i], target);
      from[nmap] = c.members[i];
      to[nmap++] = target;
      osi_run_event(run, "rename", "", "%s -> %s", osi_expr_str(s, c.members[i]), osi_expr_str(s, target));
    }
  }
  sort_labels(run);
  for (int i = 0; i < c.count; i++)
    if (find_root(&c, i) == i) bound_labels(run, &r, &bounds, &c, i);
  SubstMemo memo = {from, to, nmap, NULL, 0};
  struct {
    const OsiType *from, *to;
  } seen_types[TYPE_MEMO];
  memset(seen_types, 0, sizeof seen_types);
  /* Pass after pass until nothing changes; a value a pass leaves as it is
   * stays so in every later one (the substitution is the same), so each
   * pass after the first revisits only what the one before changed. */
  int *changed = nmap ? malloc(((size_t)scope->n_order + 1) * sizeof *changed) : NULL;
  int n_changed = 0;
  for (int pass = 0; nmap && pass < MAX_RENAME_PASSES; pass++) {
    int n_visit = pass == 0 || !changed ? scope->n_order : n_changed;
    n_changed = 0;
    for (int k = 0; k < n_visit; k++) {
      int i = pass == 0 || !changed ? k : changed[k];
      OsiValueEntry *e = scope->order[i];
      /* Values share types (a Constant's tensor type is made once per
       * distinct tensor; Identity passes its input's on): the rewrite of a
       * type seen before is that type's rewrite again (types are never
       * changed once made, and the map is the same in every pass). */
      size_t h = (size_t)(((uint64_t)(uintptr_t)e->type * 0x9e3779b97f4a7c15ull) >> 55) & (TYPE_MEMO - 1);
      const OsiType *t = e->type && seen_types[h].from == e->type ? seen_types[h].to
                                                                  : rewrite_type(run, e->type, &memo, 0);
      seen_types[h].from = e->type, seen_types[h].to = t;
      if (t != e->type) {
        if (OSI_EVENTS_ON(run)) {
          char before[512], after[512];
          osi_run_event(run, "replace", e->name, "%s -> %s", osi_type_text(s, e->type, before, sizeof before),
                        osi_type_text(s, t, after, sizeof after));
        }
        e->type = t;
        if (changed) changed[n_changed] = i; /* (without the list, every pass visits all) */
        n_changed++;
      }
    }
    if (!n_changed) break;
  }
  free(changed);
  /* A label names the size as the values show it: its target renamed too
   * (total_sequence_length -> past+Broadcast(seq, ...) once that Broadcast
   * is renamed to the input's seq, past+seq). */
  for (int i = 0; nmap && i < run->labels.count; i++)
    for (int pass = 0; pass < MAX_RENAME_PASSES; pass++) {
      OsiExpr t = memo_subst(s, &memo, run->labels.items[i].rhs);
      if (t == OSI_EXPR_UNKNOWN || t == run->labels.items[i].rhs) break;
      run->labels.items[i].rhs = t;
    }
  index_rebuild(&run->labels);
  free(memo.slot);
done:
  free(c.members);
  free(c.parent);
  free(c.next);
  free(either.items);
  free(bounds.items);
  free(c.slots);
  free(from);
  free(to);
  free(best);
  free(rep);
  free(unknown);
  free(internal);
  free(filled.items);
  free(filled.index);
  free(defs.from);
  free(defs.to);
  free(rejected.items);
  free(rejected.index);
  free(data_rejected.items);
  free(data_rejected.index);
  free(declared.items);
  free(declared.index);
  names_free(&inputs);
  names_free(&preferred);
  return st;
}
