#include "infer/facts.h"

#include "infer/context.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Past this many facts the rest are not kept (the requirements still are). */
#define MAX_FACTS 20000
/* Ranges are searched for up to this size: a requirement true only past it
 * gives no range (sound: a range is claimed only where it was found). */
#define SEARCH_CAP ((int64_t)1 << 40)
/* Relations tried per proof (the newest first), and Min/Max arguments
 * compared pairwise. */
#define MAX_RELATIONS_TRIED 16
#define SCAN_TRIES 4096          /* sizes tried upward for one fact of no known direction */
#define SCAN_BUDGET (1 << 16)    /* and for all of a run's */
#define MAX_MINMAX_ARGS 8
#define MEMO_CAP 4096u
#define MAX_WHY 4
#define SEEN_CAP 256
#define LATE_IN_CAP 64 /* graph inputs whose list decide_late keeps between calls */
#define MAX_REFINED_CONTENT 64

typedef struct SymRange {
  OsiExpr sym;
  int64_t lo, hi;
  int lo_fact, hi_fact;
} SymRange;

typedef struct Undo {
  int range, fact; /* the range changed, by fact `fact` */
  int64_t lo, hi;
  int lo_fact, hi_fact;
} Undo;

typedef struct MemoEntry {
  OsiExpr key, val;
  uint32_t version;
} MemoEntry;

enum {
  MM_KNOWN = 1,  /* MM_SOME is set */
  MM_SOME = 2,   /* some Min/Max inside */
  NN_KNOWN = 4,  /* NN_SIZE is set */
  NN_SIZE = 8    /* >= 0 for every size of its symbols */
};

typedef struct OsiFacts {
  OsiFact *items;
  OsiExpr *gap; /* per fact: rhs - lhs (>= 0, or == 0) */
  int n, cap;
  SymRange *ranges;
  int n_ranges, cap_ranges;
  int *slots; /* symbol id -> 1 + range index, open addressing */
  size_t nslots;
  Undo *log;
  int nlog, cap_log;
  int n_relations; /* facts that gave no range and have several symbols */
  uint32_t version; /* changes whenever what the facts imply may have */
  /* Per expression id, what its structure says (valid forever): the
   * MM_* bits. */
  uint8_t *mm;
  uint32_t mm_cap;
  MemoEntry *memo, *nonneg;
  /* Intervals under the ranges (osi_expr_range), for version range_version. */
  OsiExprRangeMemo ranges_memo;
  uint32_t range_version;
  /* The facts a proof used (for events: then no interval memo, which
   * would hide them). */
  int why[MAX_WHY];
  int n_why;
  int explain;
  int64_t scanned; /* sizes tried by scan_least */
  /* decide_late's inputs and their seen list (see Refiner), kept while the
   * same inputs come again: it is asked of every value of the graph with
   * the graph inputs, and listing them each time took most of its work.
   * Zeroed: the list of no inputs. */
  const OsiType *late_in[LATE_IN_CAP];
  int late_n_in, late_n_seen;
  OsiExpr late_seen[SEEN_CAP];
} OsiFacts;

static OsiFacts *facts_of(OsiRun *run) {
  if (!run->facts) {
    run->facts = calloc(1, sizeof(OsiFacts));
    run->facts_free = osi_facts_free;
  }
  return run->facts;
}

int osi_facts_mark(const OsiRun *run) { return run->facts ? run->facts->n : 0; }
int osi_facts_count(const OsiRun *run) { return run->facts ? run->facts->n : 0; }
const OsiFact *osi_facts_item(const OsiRun *run, int i) { return &run->facts->items[i]; }
int osi_facts_active(const OsiRun *run) {
  return run->facts && (run->facts->nlog > 0 || run->facts->n_relations > 0);
}

void osi_facts_free(OsiRun *run) {
  OsiFacts *f = run->facts;
  if (!f) return;
  free(f->items);
  free(f->gap);
  free(f->ranges);
  free(f->slots);
  free(f->log);
  free(f->mm);
  free(f->memo);
  free(f->nonneg);
  free(f->ranges_memo.id);
  free(f->ranges_memo.iv);
  free(f);
  run->facts = NULL;
}

/* Section - Symbol ranges */

static size_t sym_slot(const OsiFacts *f, OsiExpr sym) {
  size_t mask = f->nslots - 1, i = (size_t)(((uint64_t)sym * 0x9e3779b97f4a7c15ull) >> 32) & mask;
  while (f->slots[i] && f->ranges[f->slots[i] - 1].sym != sym) i = (i + 1) & mask;
  return i;
}

static SymRange *find_range(const OsiFacts *f, OsiExpr sym) {
  if (!f || !f->nslots) return NULL;
  size_t at = sym_slot(f, sym);
  return f->slots[at] ? &f->ranges[f->slots[at] - 1] : NULL;
}

/* The range entry of sym (new: [0, INT64_MAX] for a symbol, a size; any
 * integer for a compound), NULL without memory. */
static SymRange *range_entry(OsiFacts *f, OsiExprStore *s, OsiExpr sym) {
  if ((size_t)(f->n_ranges + 1) * 2 > f->nslots) {
    size_t nslots = f->nslots ? f->nslots * 2 : 32;
    int *slots = calloc(nslots, sizeof *slots);
    if (!slots) return NULL;
    free(f->slots);
    f->slots = slots;
    f->nslots = nslots;
    for (int i = 0; i < f->n_ranges; i++) f->slots[sym_slot(f, f->ranges[i].sym)] = i + 1;
  }
  size_t at = sym_slot(f, sym);
  if (f->slots[at]) return &f->ranges[f->slots[at] - 1];
  if (f->n_ranges == f->cap_ranges) {
    int cap = f->cap_ranges ? 2 * f->cap_ranges : 16;
    SymRange *r = realloc(f->ranges, (size_t)cap * sizeof *r);
    if (!r) return NULL;
    f->ranges = r;
    f->cap_ranges = cap;
  }
  SymRange *r = &f->ranges[f->n_ranges++];
  const char *name;
  *r = (SymRange){sym, osi_expr_is_symbol(s, sym, &name) ? 0 : INT64_MIN, INT64_MAX, -1, -1};
  f->slots[at] = f->n_ranges;
  return r;
}

/* Narrows sym to [lo, hi] by fact `fact` (logged for rollback). */
static void narrow(OsiFacts *f, OsiExprStore *s, OsiExpr sym, int64_t lo, int64_t hi, int fact) {
  SymRange *r = range_entry(f, s, sym);
  if (!r || (lo <= r->lo && hi >= r->hi)) return;
  if (f->nlog == f->cap_log) {
    int cap = f->cap_log ? 2 * f->cap_log : 32;
    Undo *u = realloc(f->log, (size_t)cap * sizeof *u);
    if (!u) return;
    f->log = u;
    f->cap_log = cap;
  }
  f->log[f->nlog++] = (Undo){(int)(r - f->ranges), fact, r->lo, r->hi, r->lo_fact, r->hi_fact};
  if (lo > r->lo) r->lo = lo, r->lo_fact = fact;
  if (hi < r->hi) r->hi = hi, r->hi_fact = fact;
  f->items[fact].range = 1;
  f->version++;
}

void osi_facts_symbol_range(const OsiRun *run, OsiExpr sym, int64_t *lo, int64_t *hi, int *lo_fact,
                            int *hi_fact) {
  const SymRange *r = find_range(run->facts, sym);
  *lo = r ? r->lo : 0;
  *hi = r ? r->hi : INT64_MAX;
  *lo_fact = r ? r->lo_fact : -1;
  *hi_fact = r ? r->hi_fact : -1;
}

void osi_facts_rollback(OsiRun *run, int mark) {
  OsiFacts *f = run->facts;
  if (!f || mark >= f->n) return;
  while (f->nlog > 0 && f->log[f->nlog - 1].fact >= mark) {
    const Undo *u = &f->log[--f->nlog];
    SymRange *r = &f->ranges[u->range];
    r->lo = u->lo, r->hi = u->hi, r->lo_fact = u->lo_fact, r->hi_fact = u->hi_fact;
  }
  f->n = mark < 0 ? 0 : mark;
  f->n_relations = 0;
  for (int i = 0; i < f->n; i++) f->n_relations += !f->items[i].range && f->gap[i] != OSI_EXPR_UNKNOWN;
  f->version++;
}

/* Section - Bounds under the facts */

static void note_why(OsiFacts *f, int fact) {
  if (fact < 0) return;
  for (int i = 0; i < f->n_why; i++)
    if (f->why[i] == fact) return;
  if (f->n_why < MAX_WHY) f->why[f->n_why++] = fact;
}

static int range_of(void *user, OsiExpr sym, int64_t *lo, int64_t *hi) {
  OsiFacts *f = user;
  const SymRange *r = find_range(f, sym);
  if (!r || (r->lo_fact < 0 && r->hi_fact < 0)) return 0;
  *lo = r->lo;
  *hi = r->hi;
  note_why(f, r->lo_fact);
  note_why(f, r->hi_fact);
  return 1;
}

/* The interval of e under the symbol ranges. */
static void bounds(OsiFacts *f, OsiExprStore *s, OsiExpr e, int64_t *lo, int64_t *hi) {
  OsiExprRangeMemo *m = &f->ranges_memo;
  if (!m->id) {
    m->id = calloc(MEMO_CAP, sizeof *m->id);
    m->iv = malloc(MEMO_CAP * sizeof *m->iv);
    m->cap = m->id && m->iv ? MEMO_CAP : 0;
    f->range_version = f->version;
  }
  if (m->cap && f->range_version != f->version) {
    memset(m->id, 0, m->cap * sizeof *m->id);
    f->range_version = f->version;
  }
  osi_expr_range(s, e, range_of, f, f->explain ? NULL : m, lo, hi);
}

/* 1 when d <= 0 wherever the facts hold: by the ranges, or d + g <= 0 for
 * a relation g >= 0 (d - g too for g == 0). */
static int prove_nonpositive(OsiFacts *f, OsiExprStore *s, OsiExpr d) {
  int64_t lo, hi;
  if (d == OSI_EXPR_UNKNOWN) return 0;
  int n_why = f->n_why;
  bounds(f, s, d, &lo, &hi);
  if (hi <= 0) return 1;
  f->n_why = n_why;
  int tried = 0;
  for (int i = f->n - 1; i >= 0 && tried < MAX_RELATIONS_TRIED; i--) {
    if (f->items[i].range || f->gap[i] == OSI_EXPR_UNKNOWN) continue;
    tried++;
    for (int sign = 1; sign >= (f->items[i].less_equal ? 1 : -1); sign -= 2) {
      /* d + g is below d's bound only where a term cancels */
      if (!osi_expr_shares_term(s, d, f->gap[i], sign > 0)) continue;
      OsiExpr t = sign > 0 ? osi_expr_add(s, d, f->gap[i]) : osi_expr_sub(s, d, f->gap[i]);
      if (t == OSI_EXPR_UNKNOWN) continue;
      bounds(f, s, t, &lo, &hi);
      if (hi <= 0) {
        note_why(f, i);
        return 1;
      }
      f->n_why = n_why;
    }
  }
  return 0;
}

static int prove_le(OsiFacts *f, OsiExprStore *s, OsiExpr a, OsiExpr b) {
  return a == b || prove_nonpositive(f, s, osi_expr_sub(s, a, b));
}

int osi_facts_prove_le(OsiRun *run, OsiExpr a, OsiExpr b) {
  OsiFacts *f = run->facts;
  if (!f || a == OSI_EXPR_UNKNOWN || b == OSI_EXPR_UNKNOWN) return 0;
  int n_why = f->n_why, r = prove_le(f, run->exprs, a, b);
  f->n_why = n_why;
  return r;
}

/* Section - Ranges from facts on one symbol */

typedef struct OneSymbol {
  const char *name;
  int count;
} OneSymbol;

static void count_symbol(const char *name, void *user) {
  OneSymbol *o = user;
  if (!o->count || strcmp(o->name, name) != 0) o->count++;
  if (o->count == 1) o->name = name;
}

typedef struct At {
  const char *name;
  int64_t v;
} At;

static int lookup_at(void *user, const char *name, int64_t *value) {
  const At *a = user;
  if (strcmp(name, a->name) != 0) return 0;
  *value = a->v;
  return 1;
}

/* The sign of g at x = v: -1, 0, 1, or 2 when g has no value there. */
static int sign_at(OsiExprStore *s, OsiExpr g, const char *name, int64_t v) {
  At at = {name, v};
  int64_t r;
  if (osi_expr_eval(s, g, lookup_at, &at, &r) != 0) return 2;
  return r < 0 ? -1 : r > 0;
}

enum { WANT_GE0, WANT_GT0, WANT_LE0, WANT_LT0 };

static int wanted(int sign, int want) {
  switch (want) {
  case WANT_GE0: return sign >= 0;
  case WANT_GT0: return sign > 0;
  case WANT_LE0: return sign <= 0;
  default: return sign < 0;
  }
}

/* The smallest x in [lo, hi] where `want` holds of g, for a g along which
 * it goes from false to true once; -1 when it never holds there, -2 when g
 * has no value at a point tried. */
static int64_t first_where(OsiExprStore *s, OsiExpr g, const char *name, int64_t lo, int64_t hi, int want) {
  int sh = sign_at(s, g, name, hi);
  if (sh == 2) return -2;
  if (!wanted(sh, want)) return -1;
  int sl = sign_at(s, g, name, lo);
  if (sl == 2) return -2;
  if (wanted(sl, want)) return lo;
  while (hi - lo > 1) { /* want is false at lo, true at hi */
    int64_t mid = lo + (hi - lo) / 2;
    int sm = sign_at(s, g, name, mid);
    if (sm == 2) return -2;
    if (wanted(sm, want)) hi = mid;
    else lo = mid;
  }
  return hi;
}

/* The range fact i gives its one symbol x (g = rhs - lhs monotone in x). */
static void derive_range(OsiFacts *f, OsiExprStore *s, int i, OsiExpr x, const char *name, int dir) {
  OsiExpr g = f->gap[i];
  const SymRange *r = find_range(f, x);
  int64_t lo = r ? r->lo : 0, hi = r ? r->hi : INT64_MAX;
  if (hi > SEARCH_CAP) hi = SEARCH_CAP;
  if (lo > hi) return;
  int eq = !f->items[i].less_equal;
  int64_t new_lo = lo, new_hi = r ? r->hi : INT64_MAX, at;
  /* g >= 0 (and g <= 0 for ==): along x, "g >= 0" turns true (up) or false (down) once. */
  if (dir > 0) {
    at = first_where(s, g, name, lo, hi, WANT_GE0);
    if (at == -2) return;
    if (at >= 0) new_lo = at;
    if (eq) {
      at = first_where(s, g, name, lo, hi, WANT_GT0);
      if (at == -2) return;
      if (at >= 0) new_hi = at - 1;
    }
  } else {
    at = first_where(s, g, name, lo, hi, WANT_LT0);
    if (at == -2) return;
    if (at >= 0) new_hi = at - 1;
    if (eq) {
      at = first_where(s, g, name, lo, hi, WANT_LE0);
      if (at == -2) return;
      if (at >= 0) new_lo = at;
    }
  }
  if (new_lo > new_hi) return; /* the model cannot run within these ranges: claim nothing */
  narrow(f, s, x, new_lo, new_hi, i);
}

/* A fact on one symbol x along which g = rhs - lhs has no known direction
 * (7 <= 2*q - Max(q-4,0) + Min(q,4) - 2, q = x//64): the least size of x's
 * range where it can hold, by trying sizes upward. Every size passed
 * breaks it, so the range drops none the model runs at; sizes above may
 * still break it, so the fact stays a relation of the domain too. */
static void scan_least(OsiFacts *f, OsiExprStore *s, int i, OsiExpr x, const char *name) {
  const SymRange *r = find_range(f, x);
  int64_t lo = r ? r->lo : 0, hi = r ? r->hi : INT64_MAX, v = lo;
  int eq = !f->items[i].less_equal;
  for (int tried = 0; v <= hi && tried < SCAN_TRIES && f->scanned < SCAN_BUDGET; v++, tried++, f->scanned++) {
    int sign = sign_at(s, f->gap[i], name, v);
    if (sign == 2 || (eq ? sign == 0 : sign >= 0)) break; /* (no value: not shown to break it) */
    if (v == INT64_MAX) return;
  }
  if (v > lo && v <= hi) {
    narrow(f, s, x, v, hi, i);
    f->items[i].range = 0;
  }
}

/* 1 when g >= 0 (== 0 when eq) already holds wherever the facts do. */
static int implied(OsiFacts *f, OsiExprStore *s, OsiExpr g, int eq) {
  int64_t lo, hi;
  int n_why = f->n_why;
  bounds(f, s, g, &lo, &hi);
  /* the relations need -g, which costs a canonical form: only when there are some */
  int r = (lo >= 0 || (f->n_relations && prove_nonpositive(f, s, osi_expr_neg(s, g)))) &&
          (!eq || prove_nonpositive(f, s, g));
  f->n_why = n_why;
  return r;
}

static void add_fact(OsiRun *run, const OsiFact *q) {
  OsiFacts *f = facts_of(run);
  OsiExprStore *s = run->exprs;
  if (!f || f->n >= MAX_FACTS) return;
  OsiExpr g = osi_expr_sub(s, q->rhs, q->lhs);
  if (g == OSI_EXPR_UNKNOWN || osi_expr_is_float(s, g) || osi_expr_is_const(s, g, NULL)) return;
  if (implied(f, s, g, !q->less_equal)) return;
  if (f->n == f->cap) {
    int cap = f->cap ? 2 * f->cap : 32;
    OsiFact *items = realloc(f->items, (size_t)cap * sizeof *items);
    if (!items) return;
    f->items = items;
    OsiExpr *gap = realloc(f->gap, (size_t)cap * sizeof *gap);
    if (!gap) return;
    f->gap = gap;
    f->cap = cap;
  }
  int i = f->n++;
  f->items[i] = *q;
  f->items[i].range = 0;
  f->gap[i] = g;
  OneSymbol one = {NULL, 0};
  osi_expr_for_each_symbol(s, g, count_symbol, &one);
  if (one.count == 1) {
    OsiExpr x = osi_expr_symbol(s, one.name);
    int dir = osi_expr_direction(s, g, x);
    if (dir == 1 || dir == -1) derive_range(f, s, i, x, one.name, dir);
    else scan_least(f, s, i, x, one.name);
  }
  /* A bound of a compound (0 <= a dim on several symbols, c <= e): the
   * expression's own range, which a Broadcast or Min of it reads. */
  int64_t c;
  if (!f->items[i].range && one.count > 1) {
    if (osi_expr_is_const(s, q->lhs, &c)) narrow(f, s, q->rhs, c, q->less_equal ? INT64_MAX : c, i);
    else if (osi_expr_is_const(s, q->rhs, &c)) narrow(f, s, q->lhs, q->less_equal ? INT64_MIN : c, c, i);
    f->items[i].range = 0; /* still a relation of the domain */
  }
  if (!f->items[i].range) {
    f->n_relations++;
    f->version++;
  }
}

void osi_facts_add_requirement(OsiRun *run, int index) {
  const OsiRequirement *q = &run->requirements.items[index];
  OsiFact fact = {q->lhs, q->rhs, q->less_equal, index, NULL, 0, q->node_index, q->node, q->op_type, q->path, 0};
  add_fact(run, &fact);
}

/* Section - Sizes are never negative */

static uint32_t memo_at(OsiExpr e) { return (uint32_t)(((uint64_t)e * 0x9e3779b97f4a7c15ull) >> 40) & (MEMO_CAP - 1); }

static MemoEntry *memo_table(MemoEntry **t) {
  if (!*t) *t = calloc(MEMO_CAP, sizeof **t);
  return *t;
}

/* The structure flags of e (NULL without memory). */
static uint8_t *flags_of(OsiFacts *f, OsiExpr e) {
  if (e >= f->mm_cap) {
    uint32_t cap = f->mm_cap ? f->mm_cap : 1024;
    while (cap <= e) cap *= 2;
    uint8_t *mm = realloc(f->mm, cap);
    if (!mm) return NULL;
    memset(mm + f->mm_cap, 0, cap - f->mm_cap);
    f->mm = mm;
    f->mm_cap = cap;
  }
  return &f->mm[e];
}

/* 1 when dim e is >= 0 without a new fact. */
static int known_nonneg(OsiFacts *f, OsiExprStore *s, OsiExpr e) {
  int64_t lo, hi;
  uint8_t *fl = flags_of(f, e);
  if (fl && (*fl & NN_KNOWN)) {
    if (*fl & NN_SIZE) return 1;
  } else {
    const char *name;
    int size = osi_expr_is_const(s, e, &lo) ? lo >= 0
             : osi_expr_is_symbol(s, e, &name) || osi_expr_is_float(s, e) || osi_expr_nonneg(s, e);
    if (fl) *fl |= NN_KNOWN | (size ? NN_SIZE : 0);
    if (size) return 1; /* for every size of the symbols */
  }
  MemoEntry *m = memo_table(&f->nonneg);
  MemoEntry *slot = m ? &m[memo_at(e)] : NULL;
  if (slot && slot->key == e && slot->version == f->version) return 1;
  bounds(f, s, e, &lo, &hi);
  if (lo < 0) return 0;
  if (slot) *slot = (MemoEntry){e, e, f->version};
  return 1;
}

static void add_sizes(OsiRun *run, const char *name, const OsiType *t, int node, const char *path, int depth) {
  if (!t || depth > 8) return;
  OsiFacts *f = NULL;
  for (int i = 0; (t->kind == OSI_KIND_TENSOR || t->kind == OSI_KIND_SPARSE_TENSOR) && i < t->rank; i++) {
    OsiExpr d = t->dims[i];
    if (d == OSI_EXPR_UNKNOWN) continue;
    if (!f && !(f = facts_of(run))) return;
    if ((d < f->mm_cap && (f->mm[d] & (NN_KNOWN | NN_SIZE)) == (NN_KNOWN | NN_SIZE)) || known_nonneg(f, run->exprs, d))
      continue;
    OsiFact fact = {osi_expr_const(run->exprs, 0), d, 1, -1, name, i, node, node >= 0 ? run->cur_node_name : "",
                    node >= 0 ? run->cur_op_type : "", path, 0};
    add_fact(run, &fact);
  }
  add_sizes(run, name, t->elem, node, path, depth + 1);
}

void osi_facts_add_input_sizes(OsiRun *run, const char *name, const OsiType *t, const char *path) {
  add_sizes(run, name, t, -1, path, 0);
}

/* Section - Decisions */

static inline int has_minmax(OsiFacts *f, OsiExprStore *s, OsiExpr e, int depth) {
  if (e < f->mm_cap && (f->mm[e] & MM_KNOWN)) return (f->mm[e] & MM_SOME) != 0; /* (asked of every dim) */
  if (e == OSI_EXPR_UNKNOWN || depth > OSI_EXPR_MAX_NODES) return 0;
  uint8_t *fl = flags_of(f, e);
  if (!fl) return 1;
  if (*fl & MM_KNOWN) return (*fl & MM_SOME) != 0;
  int any = osi_expr_is_minmax(s, e, NULL);
  for (int i = 0, n = osi_expr_arity(s, e); i < n && !any; i++) any = has_minmax(f, s, osi_expr_arg(s, e, i), depth + 1);
  fl = flags_of(f, e); /* the walk may have grown the flags */
  if (fl) *fl |= MM_KNOWN | (any ? MM_SOME : 0);
  return any;
}

typedef struct Refiner {
  OsiRun *run;
  OsiFacts *f;
  OsiExprStore *s;
  const char *value; /* for events */
  int events;
  /* The node's input dims and small contents (n_seen -1: not listed yet):
   * an output's dim that is one of them was decided where it was made (an
   * elementwise op's dims, a Shape's content), so it is left as it is.
   * Only those with a Min/Max inside are listed (seen is asked of no
   * other), at the places the first SEEN_CAP of all would have. */
  const OsiType *const *in;
  int n_in;
  const OsiExpr *seen; /* own, or the facts' list for decide_late */
  int n_seen;
  int late; /* decide_late's: in[] are the graph inputs, listed once (OsiFacts.late_in) */
  OsiExpr own[SEEN_CAP];
} Refiner;

static int list_seen(OsiFacts *f, OsiExprStore *s, const OsiType *const *in, int n_in, OsiExpr *list);

/* 1 when e (with a Min/Max inside) is one of the node's input expressions
 * (listed on first use). */
static int seen(Refiner *r, OsiExpr e) {
  if (r->n_seen < 0 && r->late && r->n_in <= LATE_IN_CAP) {
    OsiFacts *f = r->f; /* types are never changed once made: the same pointers, the same list */
    int same = f->late_n_in == r->n_in;
    for (int i = 0; i < r->n_in && same; i++) same = f->late_in[i] == r->in[i];
    if (!same) {
      for (int i = 0; i < r->n_in; i++) f->late_in[i] = r->in[i];
      f->late_n_in = r->n_in;
      f->late_n_seen = list_seen(f, r->s, r->in, r->n_in, f->late_seen);
    }
    r->seen = f->late_seen, r->n_seen = f->late_n_seen;
  }
  if (r->n_seen < 0) r->n_seen = list_seen(r->f, r->s, r->in, r->n_in, r->own), r->seen = r->own;
  for (int i = 0; i < r->n_seen; i++)
    if (r->seen[i] == e) return 1;
  return 0;
}

static void fact_text(OsiRun *run, const OsiFact *q, char *buf, size_t cap) {
  OsiExprStore *s = run->exprs;
  char node[128];
  if (q->node_index < 0) snprintf(node, sizeof node, "a graph input");
  else if (q->node && q->node[0]) snprintf(node, sizeof node, "node %d '%.64s' (%s)", q->node_index, q->node, q->op_type);
  else snprintf(node, sizeof node, "node %d (%s)", q->node_index, q->op_type);
  char req[400];
  if (q->requirement >= 0)
    snprintf(buf, cap, "%s requires %s", node,
             osi_requirement_text(s, &run->requirements.items[q->requirement], req, sizeof req));
  else
    snprintf(buf, cap, "dim %d of '%.64s' is a size, so %s >= 0 (%s)", q->axis, q->value ? q->value : "",
             osi_expr_str(s, q->rhs), node);
}

static void decision_event(Refiner *r, OsiExpr from, OsiExpr to) {
  OsiFacts *f = r->f;
  char why[1024];
  size_t at = 0;
  why[0] = '\0';
  for (int i = 0; i < f->n_why && at < sizeof why; i++) {
    char one[400];
    fact_text(r->run, &f->items[f->why[i]], one, sizeof one);
    at += (size_t)snprintf(why + at, sizeof why - at, "%s%s", i ? "; " : "", one);
  }
  osi_run_event(r->run, "assume", r->value ? r->value : "", "%s -> %s where the model runs: %s",
                osi_expr_str(r->s, from), osi_expr_str(r->s, to), why);
}

/* Min/Max node e (arguments refined) with every argument that another one
 * beats wherever the facts hold dropped. */
static OsiExpr decide(Refiner *r, OsiExpr e) {
  OsiExprStore *s = r->s;
  int is_max;
  if (!osi_expr_is_minmax(s, e, &is_max)) return e;
  int n = osi_expr_arity(s, e);
  if (n > MAX_MINMAX_ARGS) return e;
  OsiExpr a[MAX_MINMAX_ARGS];
  int keep[MAX_MINMAX_ARGS];
  for (int i = 0; i < n; i++) a[i] = osi_expr_arg(s, e, i), keep[i] = 1;
  r->f->n_why = 0;
  int dropped = 0;
  for (int j = 0; j < n; j++)
    for (int i = 0; i < n && keep[j]; i++) {
      if (i == j || !keep[i]) continue;
      /* a[i] wins over a[j]: a[i] <= a[j] for Min, a[j] <= a[i] for Max */
      if (is_max ? prove_le(r->f, s, a[j], a[i]) : prove_le(r->f, s, a[i], a[j])) keep[j] = 0, dropped = 1;
    }
  if (!dropped) return e;
  OsiExpr acc = OSI_EXPR_UNKNOWN;
  for (int i = 0; i < n; i++) {
    if (!keep[i]) continue;
    acc = acc == OSI_EXPR_UNKNOWN ? a[i] : is_max ? osi_expr_max(s, acc, a[i]) : osi_expr_min(s, acc, a[i]);
    if (acc == OSI_EXPR_UNKNOWN) return e;
  }
  if (r->events) decision_event(r, e, acc);
  return acc;
}

static OsiExpr refine(Refiner *r, OsiExpr e, int depth) {
  OsiFacts *f = r->f;
  OsiExprStore *s = r->s;
  if (e == OSI_EXPR_UNKNOWN || depth > 64 || !has_minmax(f, s, e, 0)) return e;
  /* Events want every decision said again; the memo is for speed. */
  MemoEntry *m = r->events ? NULL : memo_table(&f->memo);
  MemoEntry *slot = m ? &m[memo_at(e)] : NULL;
  if (slot && slot->key == e && slot->version == f->version) return slot->val;
  int n = osi_expr_arity(s, e);
  OsiExpr args[64];
  if (n > 64) return e;
  int changed = 0;
  for (int i = 0; i < n; i++) {
    OsiExpr a = osi_expr_arg(s, e, i);
    args[i] = refine(r, a, depth + 1);
    changed |= args[i] != a;
  }
  OsiExpr out = changed ? osi_expr_rebuild(s, e, args) : e;
  if (out == OSI_EXPR_UNKNOWN) out = e;
  out = decide(r, out);
  if (slot) { /* the walk may have moved the memo's entry: look again */
    slot = &f->memo[memo_at(e)];
    *slot = (MemoEntry){e, out, f->version};
  }
  return out;
}

/* skip_dims: t's dims are an input's (the same array). */
static const OsiType *refine_type(Refiner *r, const OsiType *t, int skip_dims, int depth) {
  if (!t || depth > 8) return t;
  OsiRun *run = r->run;
  const OsiType *elem = refine_type(r, t->elem, 0, depth + 1);
  int changed = elem != t->elem;
  OsiExpr dims[OSI_MAX_RANK];
  for (int i = 0; i < t->rank; i++) {
    OsiExpr d = t->dims[i];
    dims[i] = skip_dims || !has_minmax(r->f, r->s, d, 0) || seen(r, d) ? d : refine(r, d, 0);
    changed |= dims[i] != d;
  }
  /* Contents that sizes are made of are short (shapes, their comparisons):
   * a big constant is not walked on every node that reads it. */
  const OsiValue *v = t->value && t->value->count <= MAX_REFINED_CONTENT ? t->value : NULL;
  OsiExpr *ints = NULL;
  for (int64_t k = 0; v && v->ints && k < v->count; k++) {
    OsiExpr x = !has_minmax(r->f, r->s, v->ints[k], 0) || seen(r, v->ints[k]) ? v->ints[k] : refine(r, v->ints[k], 0);
    if (x == v->ints[k]) continue;
    if (!ints) {
      OsiValue *nv = osi_value_ints(run->arena, v->count, &ints);
      if (!nv) return t;
      memcpy(ints, v->ints, (size_t)v->count * sizeof *ints);
      v = nv;
    }
    ints[k] = x;
  }
  if (!changed && (!v || v == t->value)) return t;
  OsiType *nt = osi_type_copy(run->arena, t);
  if (!nt) return t;
  for (int i = 0; i < t->rank; i++) osi_type_dims_mut(nt)[i] = dims[i];
  nt->elem = elem;
  if (v) nt->value = v;
  return nt;
}

/* Adds t's dims (and content, when short) to the seen list (up to cap). */
/* The dims and small contents of in[0..n_in), the first SEEN_CAP of them,
 * those with a Min/Max inside -> list; their count. */
static int list_seen(OsiFacts *f, OsiExprStore *s, const OsiType *const *in, int n_in, OsiExpr *list) {
  int n = 0, at = 0; /* at: places used, listed or not */
  for (int j = 0; j < n_in; j++) {
    const OsiType *t = in[j];
    for (int depth = 0; t && depth < 8; t = t->elem, depth++) {
      for (int i = 0; (t->kind == OSI_KIND_TENSOR || t->kind == OSI_KIND_SPARSE_TENSOR) && i < t->rank && at < SEEN_CAP; i++, at++)
        if (has_minmax(f, s, t->dims[i], 0)) list[n++] = t->dims[i];
      for (int64_t k = 0; t->value && t->value->ints && t->value->count <= 16 && k < t->value->count && at < SEEN_CAP; k++, at++)
        if (has_minmax(f, s, t->value->ints[k], 0)) list[n++] = t->value->ints[k];
    }
  }
  return n;
}

/* 1 when every dim and short-content element of tensor t is, by its
 * structure, a size without a Min/Max (flags seen before): nothing to
 * decide, nothing to note. */
static int plain(const OsiFacts *f, const OsiType *t) {
  const uint8_t want = MM_KNOWN | NN_KNOWN | NN_SIZE, mask = want | MM_SOME;
  if (!f || t->kind != OSI_KIND_TENSOR || t->elem) return 0;
  for (int i = 0; i < t->rank; i++)
    if (t->dims[i] >= f->mm_cap || (f->mm[t->dims[i]] & mask) != want) return 0;
  const OsiValue *v = t->value;
  for (int64_t k = 0; v && v->ints && v->count <= MAX_REFINED_CONTENT && k < v->count; k++)
    if (v->ints[k] >= f->mm_cap || (f->mm[v->ints[k]] & (MM_KNOWN | MM_SOME)) != MM_KNOWN) return 0;
  return 1;
}

const OsiType *osi_facts_output(OsiRun *run, const OsiType *t, const char *name, const OsiType *const *in,
                                int n_in) {
  if (!t || plain(run->facts, t)) return t; /* (the usual case, on every node) */
  /* dims an input has (an elementwise op's, a Cast's): decided and noted where they were made */
  int shared = 0;
  for (int i = 0; i < n_in && !shared; i++) shared = in[i] && t->rank > 0 && in[i]->dims == t->dims && in[i]->rank == t->rank;
  if (osi_facts_active(run) && (!shared || t->value || t->elem)) {
    Refiner r; /* field by field: the seen list is filled on first use, not zeroed */
    r.run = run, r.f = run->facts, r.s = run->exprs, r.value = name, r.events = OSI_EVENTS_ON(run);
    r.in = in, r.n_in = n_in, r.n_seen = -1, r.late = 0;
    run->facts->explain = r.events;
    const OsiType *out = refine_type(&r, t, shared, 0);
    run->facts->explain = 0;
    shared &= out->dims == t->dims;
    t = out;
  }
  if (!shared) add_sizes(run, name, t, run->cur_node, run->cur_path, 0);
  return t;
}

const OsiType *osi_facts_decide_late(OsiRun *run, const OsiType *t, const char *name, const OsiType *const *in,
                                     int n_in) {
  if (!t || !run->facts || plain(run->facts, t) || !osi_facts_active(run)) return t;
  Refiner r;
  r.run = run, r.f = run->facts, r.s = run->exprs, r.value = name, r.events = OSI_EVENTS_ON(run);
  r.in = in, r.n_in = n_in, r.n_seen = -1, r.late = 1;
  run->facts->explain = r.events;
  const OsiType *out = refine_type(&r, t, 0, 0);
  run->facts->explain = 0;
  return out;
}
