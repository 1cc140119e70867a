#include "infer/requirements.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Past this many requirements the rest are neither recorded nor checked
 * against each other (known values are still checked by the caller). */
#define MAX_REQUIREMENTS 20000

/* Section - What the recorded requirements imply
 *
 * Equalities join their (substituted) operands into classes (union-find
 * over expression ids). A class knows at most one value (a constant
 * member, or the constant an equality gave it) and bounds from the
 * requirements `c <= e` and `e <= c`; each fact remembers the requirement
 * that gave it, so a contradiction can name it. Every bare symbol of a
 * class with a value is bound to that value, and operands are rewritten
 * with those bindings before they are compared (M == 3 makes M+1 == 5 a
 * contradiction). */

typedef struct Member {
  OsiExpr e;
  int parent, next; /* union-find; circular list of the class */
  int top;          /* union-find of the top-level graph's equalities alone */
  /* Roots only: the value and bounds, each with the requirement that set it
   * (-1 none; -2 a constant member, true by itself). */
  int val_from, lo_from, hi_from;
  int64_t val, lo, hi;
} Member;

struct OsiKnown {
  Member *m;
  int n, cap;
  int *slots; /* expression -> 1 + member index, open addressing */
  size_t nslots;
  OsiExpr *bind_from, *bind_to;
  int *bind_origin;
  size_t nb, cap_b;
  int joins; /* top-level joins: 0 while no two sizes are known equal where the model runs */
  /* osi_requirements_reduce's results, valid while joins is memo_joins */
  OsiExpr *memo_keys, *memo_vals;
  size_t memo_cap, memo_count;
  int memo_joins;
  /* Requirements found to hold (osi_requirements_add), valid while `gen`
   * is what it was then: gen moves whenever the classes, bounds or
   * bindings may have changed (a reset, a requirement recorded or
   * contradicted). Every layer of a model checks the same sizes again (a
   * 100k-node CNN checks 114k windows, of a handful of distinct sizes),
   * and each check substituted, subtracted and looked up its operands.
   * Made once a run has checked HOLDS_AFTER requirements (an export
   * checks a few dozen). */
  struct Held {
    OsiExpr lhs, rhs;
    uint32_t flags, gen;
  } *holds;
  uint32_t gen, checks;
};

#define HOLDS_SLOTS 256
#define HOLDS_AFTER 64

static size_t expr_slot(const OsiKnown *k, OsiExpr e) {
  size_t mask = k->nslots - 1, i = (size_t)(((uint64_t)e * 0x9e3779b97f4a7c15ull) >> 32) & mask;
  while (k->slots[i] && k->m[k->slots[i] - 1].e != e) i = (i + 1) & mask;
  return i;
}

static int find(OsiKnown *k, int i) {
  while (k->m[i].parent != i) i = k->m[i].parent = k->m[k->m[i].parent].parent;
  return i;
}

static int find_top(OsiKnown *k, int i) {
  while (k->m[i].top != i) i = k->m[i].top = k->m[k->m[i].top].top;
  return i;
}

/* The member for e (added as a class of its own when new), -1 when memory
 * runs out. */
static int member(OsiKnown *k, OsiExprStore *s, OsiExpr e) {
  if ((size_t)(k->n + 1) * 2 > k->nslots) {
    size_t nslots = k->nslots ? k->nslots * 2 : 64;
    int *slots = calloc(nslots, sizeof *slots);
    if (!slots) return -1;
    free(k->slots);
    k->slots = slots;
    k->nslots = nslots;
    for (int i = 0; i < k->n; i++) k->slots[expr_slot(k, k->m[i].e)] = i + 1;
  }
  size_t at = expr_slot(k, e);
  if (k->slots[at]) return k->slots[at] - 1;
  if (k->n == k->cap) {
    int cap = k->cap ? k->cap * 2 : 32;
    Member *m = realloc(k->m, (size_t)cap * sizeof *m);
    if (!m) return -1;
    k->m = m;
    k->cap = cap;
  }
  int i = k->n++;
  Member *x = &k->m[i];
  memset(x, 0, sizeof *x);
  x->e = e;
  x->parent = x->next = x->top = i;
  x->val_from = x->lo_from = x->hi_from = -1;
  if (osi_expr_is_const(s, e, &x->val)) x->val_from = -2;
  k->slots[at] = i + 1;
  return i;
}

static int bind(OsiKnown *k, OsiExprStore *s, OsiExpr symbol, int64_t value, int origin) {
  if (k->nb == k->cap_b) {
    size_t cap = k->cap_b ? k->cap_b * 2 : 16;
    OsiExpr *from = realloc(k->bind_from, cap * sizeof *from);
    if (!from) return 0;
    k->bind_from = from;
    OsiExpr *to = realloc(k->bind_to, cap * sizeof *to);
    if (!to) return 0;
    k->bind_to = to;
    int *org = realloc(k->bind_origin, cap * sizeof *org);
    if (!org) return 0;
    k->bind_origin = org;
    k->cap_b = cap;
  }
  k->bind_from[k->nb] = symbol;
  k->bind_to[k->nb] = osi_expr_const(s, value);
  k->bind_origin[k->nb++] = origin;
  return 1;
}

/* Binds every bare symbol of the class listed from i to value. */
static void bind_class(OsiKnown *k, OsiExprStore *s, int i, int64_t value, int origin) {
  int j = i;
  do {
    const char *name;
    if (osi_expr_is_symbol(s, k->m[j].e, &name)) bind(k, s, k->m[j].e, value, origin);
    j = k->m[j].next;
  } while (j != i);
}

static OsiExpr substitute(const OsiKnown *k, OsiExprStore *s, OsiExpr e) {
  if (!k->nb || e == OSI_EXPR_UNKNOWN) return e;
  OsiExpr r = osi_expr_substitute(s, e, k->bind_from, k->bind_to, k->nb);
  return r == OSI_EXPR_UNKNOWN ? e : r;
}

typedef struct Origin {
  const OsiKnown *k;
  OsiExprStore *s;
  int found;
} Origin;

static void origin_of_symbol(const char *name, void *user) {
  Origin *o = user;
  if (o->found >= 0) return;
  OsiExpr sym = osi_expr_symbol(o->s, name);
  for (size_t i = 0; i < o->k->nb; i++)
    if (o->k->bind_from[i] == sym) {
      o->found = o->k->bind_origin[i];
      return;
    }
}

/* The requirement whose binding made e take a value, -1 when none. */
static int origin_of(const OsiKnown *k, OsiExprStore *s, OsiExpr a, OsiExpr b) {
  Origin o = {k, s, -1};
  osi_expr_for_each_symbol(s, a, origin_of_symbol, &o);
  osi_expr_for_each_symbol(s, b, origin_of_symbol, &o);
  return o.found;
}

static int from_of(int from) { return from >= 0 ? from : -1; }

/* Whether value v fits the bounds of root r; *against set when not. */
static int fits(const Member *r, int64_t v, int *against) {
  if (r->lo_from != -1 && v < r->lo) return *against = from_of(r->lo_from), 0;
  if (r->hi_from != -1 && v > r->hi) return *against = from_of(r->hi_from), 0;
  return 1;
}

/* Joins the classes of a and b; `top`: the requirement is the top-level
 * graph's (a branch or a loop body may not run, so its equalities check
 * later requirements but reduce no Broadcast). */
static OsiReqVerdict join(OsiKnown *k, OsiExprStore *s, OsiExpr a, OsiExpr b, int top, int idx, int *against) {
  int ia = member(k, s, a), ib = member(k, s, b);
  if (ia < 0 || ib < 0) return OSI_REQ_HOLDS;
  if (top && find_top(k, ia) != find_top(k, ib)) {
    k->m[find_top(k, ia)].top = find_top(k, ib);
    k->joins++;
  }
  int ra = find(k, ia), rb = find(k, ib);
  if (ra == rb) return OSI_REQ_HOLDS;
  Member *x = &k->m[ra], *y = &k->m[rb];
  int xv = x->val_from != -1, yv = y->val_from != -1;
  if (xv && yv && x->val != y->val) {
    *against = from_of(x->val_from) >= 0 ? x->val_from : from_of(y->val_from);
    return OSI_REQ_CONTRADICTS;
  }
  if (xv && !fits(y, x->val, against)) return OSI_REQ_CONTRADICTS;
  if (yv && !fits(x, y->val, against)) return OSI_REQ_CONTRADICTS;
  int64_t lo = x->lo, hi = x->hi;
  int lo_from = x->lo_from, hi_from = x->hi_from;
  if (y->lo_from != -1 && (lo_from == -1 || y->lo > lo)) lo = y->lo, lo_from = y->lo_from;
  if (y->hi_from != -1 && (hi_from == -1 || y->hi < hi)) hi = y->hi, hi_from = y->hi_from;
  if (lo_from != -1 && hi_from != -1 && lo > hi) {
    *against = from_of(lo_from) >= 0 ? lo_from : from_of(hi_from);
    return OSI_REQ_CONTRADICTS;
  }
  /* The side without a value gets its symbols bound to the other's. */
  if (xv && !yv) bind_class(k, s, rb, x->val, x->val_from >= 0 ? x->val_from : idx);
  if (yv && !xv) bind_class(k, s, ra, y->val, y->val_from >= 0 ? y->val_from : idx);
  int nx = x->next;
  x->next = y->next;
  y->next = nx;
  x->parent = rb;
  if (xv && !yv) y->val = x->val, y->val_from = x->val_from;
  y->lo = lo, y->lo_from = lo_from, y->hi = hi, y->hi_from = hi_from;
  return OSI_REQ_RECORDED;
}

/* e >= c (upper: e <= c) from requirement idx. */
static OsiReqVerdict bound(OsiKnown *k, OsiExprStore *s, OsiExpr e, int64_t c, int upper, int idx,
                           int *against) {
  int i = member(k, s, e);
  if (i < 0) return OSI_REQ_HOLDS;
  Member *r = &k->m[find(k, i)];
  if (r->val_from != -1) {
    if (upper ? r->val <= c : r->val >= c) return OSI_REQ_HOLDS;
    *against = from_of(r->val_from);
    return OSI_REQ_CONTRADICTS;
  }
  if (upper) {
    if (r->lo_from != -1 && r->lo > c) return *against = from_of(r->lo_from), OSI_REQ_CONTRADICTS;
    if (r->hi_from != -1 && r->hi <= c) return OSI_REQ_HOLDS;
    r->hi = c;
    r->hi_from = idx;
  } else {
    if (r->hi_from != -1 && r->hi < c) return *against = from_of(r->hi_from), OSI_REQ_CONTRADICTS;
    if (r->lo_from != -1 && r->lo >= c) return OSI_REQ_HOLDS;
    r->lo = c;
    r->lo_from = idx;
  }
  return OSI_REQ_RECORDED;
}

/* Decides lhs == rhs (or <=) against k; RECORDED means k now knows it. */
static OsiReqVerdict apply(OsiKnown *k, OsiExprStore *s, OsiExpr lhs, OsiExpr rhs, int le, int top, int idx,
                           int *against) {
  *against = -1;
  OsiExpr a = substitute(k, s, lhs), b = substitute(k, s, rhs);
  int64_t ca, cb;
  int ka = osi_expr_is_const(s, a, &ca), kb = osi_expr_is_const(s, b, &cb);
  if (!le) {
    if (a == b) return OSI_REQ_HOLDS;
    if (ka && kb) {
      *against = origin_of(k, s, lhs, rhs);
      return OSI_REQ_CONTRADICTS;
    }
    return join(k, s, a, b, top, idx, against);
  }
  if (ka && kb) {
    if (ca <= cb) return OSI_REQ_HOLDS;
    *against = origin_of(k, s, lhs, rhs);
    return OSI_REQ_CONTRADICTS;
  }
  int64_t d;
  if (osi_expr_is_const(s, osi_expr_sub(s, b, a), &d)) {
    if (d >= 0) return OSI_REQ_HOLDS;
    *against = origin_of(k, s, lhs, rhs);
    return OSI_REQ_CONTRADICTS;
  }
  if (ka) return bound(k, s, b, ca, 0, idx, against);
  if (kb) return bound(k, s, a, cb, 1, idx, against);
  return OSI_REQ_RECORDED;
}

static void known_reset(OsiKnown *k) {
  k->gen++;
  k->n = 0;
  k->nb = 0;
  k->joins = 0;
  k->memo_joins = -1;
  if (k->slots) memset(k->slots, 0, k->nslots * sizeof *k->slots);
}

/* Section - The store */

/* 1 when scope path `outer` holds scope path `inner` ("" holds every one;
 * "If#3/then_branch/" holds "If#3/then_branch/Loop#1/body/"). */
static int encloses(const char *outer, const char *inner) {
  size_t n = strlen(outer);
  return strncmp(outer, inner, n) == 0;
}

static const char *path_of(const OsiRequirement *q) { return q->path ? q->path : ""; }

/* What the requirements of the scope chain of `path` imply, after a
 * rollback or when the scope left is not one of path's. */
static void sync_known(OsiRequirements *r, OsiExprStore *s, const char *path) {
  const char *was = r->known_path ? r->known_path : "";
  if (r->known_count == r->count && (was == path || encloses(was, path))) {
    r->known_path = path;
    return;
  }
  int ignored;
  known_reset(r->known);
  for (int i = 0; i < r->count; i++)
    if (encloses(path_of(&r->items[i]), path))
      apply(r->known, s, r->items[i].lhs, r->items[i].rhs, r->items[i].less_equal, !path_of(&r->items[i])[0], i,
            &ignored);
  r->known_count = r->count;
  r->known_path = path;
}

OsiReqVerdict osi_requirements_add(OsiRequirements *r, OsiExprStore *s, OsiArena *arena,
                                   const OsiRequirement *q, int *against) {
  *against = -1;
  if (q->lhs == OSI_EXPR_UNKNOWN || q->rhs == OSI_EXPR_UNKNOWN || r->count >= MAX_REQUIREMENTS)
    return OSI_REQ_HOLDS;
  if (!r->known) {
    r->known = calloc(1, sizeof *r->known);
    if (!r->known) return OSI_REQ_HOLDS;
  }
  sync_known(r, s, path_of(q));
  OsiKnown *k = r->known;
  uint32_t flags = (uint32_t)(q->less_equal != 0) | (uint32_t)!(q->path && q->path[0]) << 1;
  size_t at = (size_t)((((uint64_t)q->lhs << 32 | q->rhs) ^ flags) * 0x9e3779b97f4a7c15ull >> 56);
  if (!k->holds && ++k->checks > HOLDS_AFTER) k->holds = calloc(HOLDS_SLOTS, sizeof *k->holds);
  if (k->holds && k->holds[at].gen == k->gen && k->holds[at].lhs == q->lhs && k->holds[at].rhs == q->rhs &&
      k->holds[at].flags == flags)
    return OSI_REQ_HOLDS;
  if (r->count == r->cap) {
    int cap = r->cap ? r->cap * 2 : 16;
    OsiRequirement *items = realloc(r->items, (size_t)cap * sizeof *items);
    if (!items) return OSI_REQ_HOLDS;
    r->items = items;
    r->cap = cap;
  }
  OsiReqVerdict v = apply(k, s, q->lhs, q->rhs, q->less_equal, !(q->path && q->path[0]), r->count, against);
  if (v == OSI_REQ_HOLDS && k->holds) {
    k->holds[at].lhs = q->lhs;
    k->holds[at].rhs = q->rhs;
    k->holds[at].flags = flags;
    k->holds[at].gen = k->gen;
    return v;
  }
  if (v == OSI_REQ_HOLDS) return v;
  k->gen++;
  if (v != OSI_REQ_RECORDED) return v;
  OsiRequirement *item = &r->items[r->count++];
  *item = *q;
  item->what = osi_arena_strdup(arena, q->what ? q->what : "");
  if (!item->what) item->what = "";
  r->known_count = r->count;
  return v;
}

/* Section - Broadcasts of sizes required equal */

static int same_class(void *user, OsiExpr a, OsiExpr b) {
  OsiKnown *k = user;
  if (!k->nslots) return 0;
  size_t ia = expr_slot(k, a), ib = expr_slot(k, b);
  if (!k->slots[ia] || !k->slots[ib]) return 0;
  return find_top(k, k->slots[ia] - 1) == find_top(k, k->slots[ib] - 1);
}

static size_t memo_slot(const OsiKnown *k, OsiExpr e) {
  size_t mask = k->memo_cap - 1, i = (size_t)(((uint64_t)e * 0x9e3779b97f4a7c15ull) >> 32) & mask;
  while (k->memo_keys[i] && k->memo_keys[i] != e) i = (i + 1) & mask;
  return i;
}

/* Room for one more memo entry (the memo emptied when the classes
 * changed); 0 when memory runs out. */
static int memo_room(OsiKnown *k) {
  if (k->memo_joins != k->joins) {
    if (k->memo_keys) memset(k->memo_keys, 0, k->memo_cap * sizeof *k->memo_keys);
    k->memo_count = 0;
    k->memo_joins = k->joins;
  }
  if ((k->memo_count + 1) * 2 <= k->memo_cap) return 1;
  size_t cap = k->memo_cap ? 2 * k->memo_cap : 256;
  OsiExpr *keys = calloc(cap, sizeof *keys), *vals = malloc(cap * sizeof *vals);
  if (!keys || !vals) {
    free(keys);
    free(vals);
    return 0;
  }
  OsiExpr *ok = k->memo_keys, *ov = k->memo_vals;
  size_t ocap = k->memo_cap;
  k->memo_keys = keys;
  k->memo_vals = vals;
  k->memo_cap = cap;
  for (size_t i = 0; i < ocap; i++)
    if (ok[i]) {
      size_t j = memo_slot(k, ok[i]);
      k->memo_keys[j] = ok[i];
      k->memo_vals[j] = ov[i];
    }
  free(ok);
  free(ov);
  return 1;
}

int osi_requirements_joins(const OsiRequirements *r) { return r->known ? r->known->joins : 0; }

int osi_requirements_join_any(OsiRequirements *r, OsiExprStore *s) {
  if (!r->known || !r->count) return 0;
  if (r->known_count != r->count) sync_known(r, s, r->known_path ? r->known_path : ""); /* (asked after every node) */
  return r->known->joins > 0;
}

OsiExpr osi_requirements_reduce(OsiRequirements *r, OsiExprStore *s, OsiExpr e) {
  const char *name;
  if (!r->known || e == OSI_EXPR_UNKNOWN || osi_expr_is_const(s, e, NULL) || osi_expr_is_symbol(s, e, &name))
    return e; /* no Broadcast in a leaf */
  sync_known(r, s, r->known_path ? r->known_path : "");
  OsiKnown *k = r->known;
  if (!k->joins) return e;
  if (!memo_room(k)) return osi_expr_merge_broadcasts(s, e, same_class, k);
  size_t at = memo_slot(k, e);
  if (k->memo_keys[at] == e) return k->memo_vals[at];
  OsiExpr v = osi_expr_merge_broadcasts(s, e, same_class, k);
  k->memo_keys[at] = e;
  k->memo_vals[at] = v;
  k->memo_count++;
  return v;
}

void osi_requirements_rollback(OsiRequirements *r, int count) {
  if (count < r->count) r->count = count;
}

/* Section - How a requirement reads */

void osi_requirement_one_of(OsiExprStore *s, OsiExpr x, int64_t c, OsiRequirement *q) {
  memset(q, 0, sizeof *q);
  q->lhs = osi_expr_mul(s, osi_expr_sub(s, x, osi_expr_const(s, 1)), osi_expr_sub(s, x, osi_expr_const(s, c)));
  q->rhs = osi_expr_const(s, 0);
  q->one_of = x;
  q->one_of_size = c;
}

const char *osi_requirement_text(OsiExprStore *s, const OsiRequirement *q, char *buf, size_t cap) {
  if (q->one_of) {
    const char *x = osi_expr_str(s, q->one_of);
    snprintf(buf, cap, "%s == 1 or %s == %lld", x, x, (long long)q->one_of_size);
  } else {
    snprintf(buf, cap, "%s %s %s", osi_expr_str(s, q->lhs), q->less_equal ? "<=" : "==", osi_expr_str(s, q->rhs));
  }
  return buf;
}

void osi_requirements_free(OsiRequirements *r) {
  if (r->known) {
    free(r->known->m);
    free(r->known->slots);
    free(r->known->bind_from);
    free(r->known->bind_to);
    free(r->known->bind_origin);
    free(r->known->memo_keys);
    free(r->known->memo_vals);
    free(r->known->holds);
    free(r->known);
  }
  free(r->items);
  memset(r, 0, sizeof *r);
}
