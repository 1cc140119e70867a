/*
 * Expression store: hash-consing (interning), the structural order used by
 * canonical forms, queries, evaluation, fresh symbols, substitution and the
 * leaf-equality helper. Constructors and simplification live in
 * expr_simplify.c, the parser in expr_parse.c, the printer in expr_print.c.
 *
 * Interning: a node is keyed by (kind, arguments, ADD coefficients, value,
 * name). Ids are dense indices into store->nodes; id 0 is OSI_EXPR_UNKNOWN.
 * Because every constructor returns a canonical node and children are
 * canonical, equal keys mean equal canonical expressions.
 *
 * Size (osi_expr_size, capped by OSI_EXPR_MAX_NODES: a constructor whose
 * result would be larger returns OSI_EXPR_UNKNOWN) counts the nodes of the
 * printed tree: 1 per constant or symbol; a product of k atoms adds k-1
 * '*' nodes; a sum of p parts (terms and a nonzero constant) adds p-1 '+'
 * nodes, and a coefficient other than +-1 adds 2 (the constant and its '*');
 * a function node adds 1 to the sizes of its arguments. So x+1 is 3,
 * 2*x is 3, Max(a,b,c) is 4, (a+b)//2 is 5.
 */
#include <stdlib.h>
#include <string.h>

#include "expr/expr_internal.h"

struct NameChunk {
  NameChunk *next;
  size_t used, cap;
  char data[];
};

/* Section - Python integer helpers */

int expr_floordiv64(int64_t a, int64_t b, int64_t *out) {
  if (b == 0 || (a == INT64_MIN && b == -1)) return 0;
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) q--;
  *out = q;
  return 1;
}

int expr_mod64(int64_t a, int64_t b, int64_t *out) {
  if (b == 0) return 0;
  if (b == -1) {
    *out = 0;
    return 1;
  }
  int64_t r = a % b;
  if (r != 0 && ((r < 0) != (b < 0))) r += b;
  *out = r;
  return 1;
}

/* Section - Store */

OsiExprStore *osi_expr_store_new(void) {
  OsiExprStore *s = calloc(1, sizeof *s);
  if (!s) return NULL;
  s->capnodes = 256;
  s->nodes = malloc(s->capnodes * sizeof *s->nodes);
  s->strs = calloc(s->capnodes, sizeof *s->strs);
  s->capargs = 1024;
  s->args = malloc(s->capargs * sizeof *s->args);
  s->coefs = malloc(s->capargs * sizeof *s->coefs);
  s->tcap = 512;
  s->table = calloc(s->tcap, sizeof *s->table);
  if (!s->nodes || !s->strs || !s->args || !s->coefs || !s->table) {
    osi_expr_store_delete(s);
    return NULL;
  }
  memset(&s->nodes[0], 0, sizeof s->nodes[0]);
  s->nodes[0].kind = EK_UNKNOWN;
  s->nodes[0].size = 1;
  s->nnodes = 1;
  s->assume_nonneg = 1;
  s->float_domain = 1;
  s->work_left = UINT64_MAX;
  s->memo_epoch = 1;
  return s;
}

void osi_expr_store_delete(OsiExprStore *s) {
  if (!s) return;
  expr_naming_free(s);
  osi_expr_print_factors_alone(s, 0);
  if (s->strs)
    for (uint32_t i = 0; i < s->nnodes; i++) free(s->strs[i]);
  for (NameChunk *c = s->chunks, *next; c; c = next) {
    next = c->next;
    free(c);
  }
  free(s->strs);
  free(s->nodes);
  free(s->args);
  free(s->coefs);
  free(s->table);
  free(s->sum_memo);
  free(s->bcast_memo.t);
  free(s->minmax_memo.t);
  free(s->arith_memo.t);
  free(s->ival_memo.id);
  free(s->expansion_memo.t);
  free(s->ival_memo.iv);
  free(s);
}

uint32_t osi_expr_node_count(const OsiExprStore *s) { return s ? s->nnodes : 0; }

void expr_memos_clear(OsiExprStore *s) {
  if (s->sum_memo) memset(s->sum_memo, 0, 3 * (size_t)s->sum_memo_cap * sizeof *s->sum_memo);
  expr_pair_memo_clear(&s->bcast_memo);
  expr_pair_memo_clear(&s->minmax_memo);
  expr_pair_memo_clear(&s->arith_memo);
  expr_ival_memo_clear(&s->ival_memo);
  expr_pair_memo_clear(&s->expansion_memo);
}

void osi_expr_store_set_assume_nonneg(OsiExprStore *s, int on) {
  s->assume_nonneg = on != 0;
  expr_memos_clear(s);
}

/* Section - Work budget
 *
 * One counter: the steps the innermost operation may still take (the
 * store's own budget outside any). An operation starts with the smaller of
 * its cap and what encloses it has left, and gives back what it did not
 * take; running out sets work_out until the operation ends, or for good
 * when what encloses it has nothing left either. */

int expr_run_out(OsiExprStore *s) {
  if (!s->work_out) {
    s->work_out = 1;
    s->cycle_breaks++; /* nothing computed across it is memoised */
  }
  s->work_left = 0;
  return 0;
}

void osi_expr_store_isolate(OsiExprStore *s, int on) {
  if (!s) return;
  s->isolated = on != 0;
  if (!on) {
    s->memo_epoch = 1;
    return;
  }
  if (s->next_epoch < 2) { /* the first time, or the counter went round: no stale entry left */
    expr_memos_clear(s);
    s->next_epoch = 2;
  }
  s->memo_epoch = s->next_epoch++;
}

void osi_expr_set_work_budget(OsiExprStore *s, uint64_t steps) {
  if (!s) return;
  s->work_left = steps;
  s->work_out = 0;
}

uint64_t osi_expr_work_left(const OsiExprStore *s) { return s ? s->work_left : 0; }

int osi_expr_work_exhausted(const OsiExprStore *s) { return s && s->work_out; }

void osi_expr_work_begin(OsiExprStore *s, OsiExprWork *w, uint64_t cap) {
  w->saved = s->work_left;
  w->outer_out = s->work_out;
  w->granted = cap < s->work_left ? cap : s->work_left;
  s->work_left = w->granted;
}

int osi_expr_work_end(OsiExprStore *s, OsiExprWork *w) {
  int out = s->work_out;
  s->work_left = w->saved - (w->granted - s->work_left);
  if (out && !w->outer_out && s->work_left > 0) s->work_out = 0;
  return out;
}

/* Section - Memos of binary operations */

#define PAIR_MEMO_MAX_CAP (1u << 14)

/* Entries of an isolated store's memos: a fixed number, whatever the
 * tables' size (see osi_expr_store_isolate). */
#define ISOLATED_CAP 1024u

uint32_t *expr_memo_entry(const OsiExprStore *s, uint32_t **table, uint32_t *cap, uint32_t max_cap,
                          uint32_t words, uint32_t h) {
  uint32_t want = s->isolated ? ISOLATED_CAP : *cap < max_cap && *cap < s->nnodes ? s->nnodes : 0;
  if (*cap < want) {
    uint32_t c = *cap ? *cap : 256;
    while (c < want && c < max_cap) c *= 2;
    uint32_t *t = calloc(words * (size_t)c, sizeof *t); /* a new table starts empty */
    if (t) {
      free(*table);
      *table = t;
      *cap = c;
    }
  }
  if (!*table) return NULL;
  return *table + words * (h & ((s->isolated ? ISOLATED_CAP : *cap) - 1));
}

uint32_t *expr_pair_slot(const OsiExprStore *s, PairMemo *m, OsiExpr a, OsiExpr b, uint32_t tag) {
  if (a >= s->nnodes || b >= s->nnodes) return NULL;
  /* By the operands' structural hashes, not their ids: which results are
   * found again must not depend on the order ids were given out in (the
   * decoders intern dims in file order or not), since it decides how much
   * of the work budget an operation takes. */
  uint32_t h = s->nodes[a].hash * 0x9E3779B1u + s->nodes[b].hash * 0x85EBCA77u + tag * 0xC2B2AE3Du;
  h ^= h >> 15;
  h *= 0x2C1B3C6Du;
  h ^= h >> 12;
  return expr_memo_entry(s, &m->t, &m->cap, PAIR_MEMO_MAX_CAP, 4, h);
}

void expr_pair_memo_clear(PairMemo *m) {
  if (m->t) memset(m->t, 0, 4 * (size_t)m->cap * sizeof *m->t);
}

static const char *store_name(OsiExprStore *s, const char *name, size_t len) {
  NameChunk *c = s->chunks;
  if (!c || c->cap - c->used < len + 1) {
    size_t cap = len + 1 > 4096 ? len + 1 : 4096;
    c = malloc(sizeof *c + cap);
    if (!c) return NULL;
    c->next = s->chunks;
    c->used = 0;
    c->cap = cap;
    s->chunks = c;
  }
  char *p = c->data + c->used;
  memcpy(p, name, len);
  p[len] = 0;
  c->used += len + 1;
  return p;
}

/* Section - Hashing and interning */

static uint32_t mix(uint32_t h, uint64_t v) {
  h ^= (uint32_t)v + 0x9e3779b9u + (h << 6) + (h >> 2);
  h ^= (uint32_t)(v >> 32) + 0x9e3779b9u + (h << 6) + (h >> 2);
  return h;
}

/* Structural: from the arguments' hashes, not their ids (see
 * expr_pair_slot). */
static uint32_t hash_key(const OsiExprStore *s, int kind, const OsiExpr *args, uint32_t n,
                         const int64_t *coefs, int64_t val, const char *name, size_t namelen) {
  uint32_t h = 2166136261u ^ (uint32_t)kind;
  h = mix(h, (uint64_t)val);
  for (uint32_t i = 0; i < n; i++) {
    h = mix(h, s->nodes[args[i]].hash);
    if (kind == EK_ADD) h = mix(h, (uint64_t)coefs[i]);
  }
  if (kind == EK_SYM)
    for (size_t i = 0; i < namelen; i++) h = (h ^ (unsigned char)name[i]) * 16777619u;
  return h ? h : 1;
}

static int node_matches(const OsiExprStore *s, const ExprNode *nd, int kind, const OsiExpr *args,
                        uint32_t n, const int64_t *coefs, int64_t val, const char *name,
                        size_t namelen) {
  if (nd->kind != kind || nd->n != n || nd->val != val) return 0;
  if (kind == EK_SYM) return strlen(nd->name) == namelen && memcmp(nd->name, name, namelen) == 0;
  /* (element by element: memcmp is a byte loop in wasm) */
  for (uint32_t i = 0; i < n; i++)
    if (s->args[nd->off + i] != args[i]) return 0;
  for (uint32_t i = 0; kind == EK_ADD && i < n; i++)
    if (s->coefs[nd->off + i] != coefs[i]) return 0;
  return 1;
}

static int table_grow(OsiExprStore *s) {
  uint32_t cap = s->tcap * 2;
  uint32_t *t = calloc(cap, sizeof *t);
  if (!t) return 0;
  for (uint32_t i = 0; i < s->tcap; i++) {
    uint32_t id = s->table[i];
    if (!id) continue;
    uint32_t j = s->nodes[id].hash & (cap - 1);
    while (t[j]) j = (j + 1) & (cap - 1);
    t[j] = id;
  }
  free(s->table);
  s->table = t;
  s->tcap = cap;
  return 1;
}

/* Tree size of a would-be node (see osi_expr_size), capped at MAX+1. */
static uint32_t node_size(const OsiExprStore *s, int kind, const OsiExpr *args, uint32_t n,
                          const int64_t *coefs, int64_t val) {
  uint32_t size = 0;
  switch (kind) {
  case EK_CONST:
  case EK_SYM: return 1;
  case EK_MUL: size = n - 1; break;
  case EK_ADD: size = n - 1 + (val != 0 ? 2 : 0); break;
  default: size = 1; break;
  }
  for (uint32_t i = 0; i < n && size <= OSI_EXPR_MAX_NODES; i++) {
    size += s->nodes[args[i]].size;
    if (kind == EK_ADD && coefs[i] != 1 && coefs[i] != -1) size += 2;
  }
  return size > OSI_EXPR_MAX_NODES ? OSI_EXPR_MAX_NODES + 1 : size;
}

OsiExpr expr_intern(OsiExprStore *s, int kind, const OsiExpr *args, uint32_t n,
                    const int64_t *coefs, int64_t val, const char *name, size_t namelen) {
  for (uint32_t i = 0; i < n; i++)
    if (args[i] == OSI_EXPR_UNKNOWN) return OSI_EXPR_UNKNOWN;
  /* A compound node is a step, found or new (symbols and constants are no
   * rewrite): what a rewrite takes must not depend on what exists. */
  if (kind > EK_SYM && kind != EK_FCONST && !expr_spend(s, 1 + (uint64_t)n)) return OSI_EXPR_UNKNOWN;
  uint32_t h = hash_key(s, kind, args, n, coefs, val, name, namelen);
  uint32_t j = h & (s->tcap - 1);
  for (uint32_t id; (id = s->table[j]) != 0; j = (j + 1) & (s->tcap - 1)) {
    const ExprNode *nd = &s->nodes[id];
    if (nd->hash == h && node_matches(s, nd, kind, args, n, coefs, val, name, namelen)) return id;
  }
  uint32_t size = node_size(s, kind, args, n, coefs, val);
  if (size > OSI_EXPR_MAX_NODES) return OSI_EXPR_UNKNOWN;
  if (s->nnodes == UINT32_MAX - 1) return OSI_EXPR_UNKNOWN;
  if (s->nnodes == s->capnodes) {
    uint32_t cap = s->capnodes * 2;
    ExprNode *nodes = realloc(s->nodes, cap * sizeof *nodes);
    if (!nodes) return OSI_EXPR_UNKNOWN;
    s->nodes = nodes;
    char **strs = realloc(s->strs, cap * sizeof *strs);
    if (!strs) return OSI_EXPR_UNKNOWN;
    memset(strs + s->capnodes, 0, (cap - s->capnodes) * sizeof *strs);
    s->strs = strs;
    s->capnodes = cap;
  }
  if (s->nargs + n > s->capargs) {
    size_t cap = s->capargs * 2;
    while (cap < s->nargs + n) cap *= 2;
    uint32_t *a = realloc(s->args, cap * sizeof *a);
    if (!a) return OSI_EXPR_UNKNOWN;
    s->args = a;
    int64_t *c = realloc(s->coefs, cap * sizeof *c);
    if (!c) return OSI_EXPR_UNKNOWN;
    s->coefs = c;
    s->capargs = cap;
  }
  if ((s->tcount + 1) * 2 > s->tcap) {
    if (!table_grow(s)) return OSI_EXPR_UNKNOWN;
    j = h & (s->tcap - 1);
    while (s->table[j]) j = (j + 1) & (s->tcap - 1);
  }
  const char *stored = NULL;
  if (kind == EK_SYM && !(stored = store_name(s, name, namelen))) return OSI_EXPR_UNKNOWN;
  uint32_t id = s->nnodes++;
  ExprNode *nd = &s->nodes[id];
  nd->kind = (uint8_t)kind;
  nd->size = (uint16_t)size;
  nd->n = n;
  nd->off = (uint32_t)s->nargs;
  nd->hash = h;
  nd->val = val;
  nd->name = stored;
  if (n) {
    memcpy(s->args + s->nargs, args, n * sizeof *args);
    if (kind == EK_ADD) memcpy(s->coefs + s->nargs, coefs, n * sizeof *coefs);
    else memset(s->coefs + s->nargs, 0, n * sizeof *coefs);
  }
  s->nargs += n;
  s->table[j] = id;
  s->tcount++;
  return id;
}

OsiExpr expr_find_symbol(const OsiExprStore *s, const char *name, size_t namelen) {
  uint32_t h = hash_key(s, EK_SYM, NULL, 0, NULL, 0, name, namelen);
  for (uint32_t j = h & (s->tcap - 1), id; (id = s->table[j]) != 0; j = (j + 1) & (s->tcap - 1)) {
    const ExprNode *nd = &s->nodes[id];
    if (nd->hash == h && node_matches(s, nd, EK_SYM, NULL, 0, NULL, 0, name, namelen)) return id;
  }
  return OSI_EXPR_UNKNOWN;
}

OsiExpr osi_expr_const(OsiExprStore *s, int64_t v) {
  if (!s) return OSI_EXPR_UNKNOWN;
  if (v < OSI_SMALL_CONST_LO || v >= OSI_SMALL_CONST_HI) return expr_intern(s, EK_CONST, NULL, 0, NULL, v, NULL, 0);
  uint32_t *slot = &s->small_const[v - OSI_SMALL_CONST_LO];
  if (!*slot) *slot = expr_intern(s, EK_CONST, NULL, 0, NULL, v, NULL, 0);
  return *slot;
}

OsiExpr osi_expr_symbol(OsiExprStore *s, const char *name) {
  if (!s || !name) return OSI_EXPR_UNKNOWN;
  return expr_intern(s, EK_SYM, NULL, 0, NULL, 0, name, strlen(name));
}

OsiExpr osi_expr_fresh(OsiExprStore *s, const char *prefix) {
  if (!s) return OSI_EXPR_UNKNOWN;
  if (!prefix) prefix = "sym";
  size_t plen = strlen(prefix);
  if (plen > 4096) return OSI_EXPR_UNKNOWN;
  char *buf = malloc(plen + 32);
  if (!buf) return OSI_EXPR_UNKNOWN;
  memcpy(buf, prefix, plen);
  OsiExpr r = OSI_EXPR_UNKNOWN;
  for (;;) {
    uint64_t n = ++s->fresh_counter;
    char digits[24];
    int nd = 0;
    do {
      digits[nd++] = (char)('0' + n % 10);
      n /= 10;
    } while (n);
    size_t len = plen;
    buf[len++] = '_';
    while (nd) buf[len++] = digits[--nd];
    if (expr_find_symbol(s, buf, len) == OSI_EXPR_UNKNOWN) {
      r = expr_intern(s, EK_SYM, NULL, 0, NULL, 0, buf, len);
      break;
    }
  }
  free(buf);
  return r;
}

/* Section - Structural order */

static int kind_rank(int kind) {
  switch (kind) {
  case EK_SYM: return 1;
  case EK_FLOORDIV: return 2;
  case EK_MOD: return 3;
  case EK_CEILDIV: return 4;
  case EK_MAX: return 5;
  case EK_MIN: return 6;
  case EK_BROADCAST: return 7;
  case EK_FTOINT: return 8;
  case EK_MUL: return 9;
  case EK_ADD: return 10;
  case EK_CONST: return 11;
  /* Float nodes compare among themselves only: constants first (c*x),
   * then conversions (h*Min(...)). */
  case EK_FCONST: return 20;
  case EK_FCAST: return 21;
  case EK_FNEG: return 22;
  case EK_FDIV: return 23;
  case EK_FMUL: return 24;
  case EK_FADD: return 25;
  case EK_FMIN: return 26;
  case EK_FMAX: return 27;
  case EK_FFLOOR: return 28;
  case EK_FCEIL: return 29;
  case EK_FROUND: return 30;
  default: return 0;
  }
}

static int cmp_lists(const OsiExprStore *s, const OsiExpr *a, uint32_t na, const OsiExpr *b,
                     uint32_t nb) {
  for (uint32_t i = 0; i < na && i < nb; i++) {
    int c = expr_cmp(s, a[i], b[i]);
    if (c) return c;
  }
  return na < nb ? -1 : na > nb ? 1 : 0;
}

int expr_mono_cmp(const OsiExprStore *s, OsiExpr a, OsiExpr b) {
  if (a == b) return 0;
  const ExprNode *x = &s->nodes[a], *y = &s->nodes[b];
  uint32_t na = x->kind == EK_MUL ? x->n : 1, nb = y->kind == EK_MUL ? y->n : 1;
  if (na != nb) return na > nb ? -1 : 1;
  const OsiExpr *la = x->kind == EK_MUL ? s->args + x->off : &a;
  const OsiExpr *lb = y->kind == EK_MUL ? s->args + y->off : &b;
  return cmp_lists(s, la, na, lb, nb);
}

int expr_cmp(const OsiExprStore *s, OsiExpr a, OsiExpr b) {
  if (a == b) return 0;
  const ExprNode *x = &s->nodes[a], *y = &s->nodes[b];
  int ra = kind_rank(x->kind), rb = kind_rank(y->kind);
  if (ra != rb) return ra < rb ? -1 : 1;
  switch (x->kind) {
  case EK_CONST: return x->val < y->val ? -1 : x->val > y->val ? 1 : 0;
  case EK_FCONST: {
    double u = expr_fconst_value(s, a), v = expr_fconst_value(s, b);
    if (u == u && v == v && u != v) return u < v ? -1 : 1;
    return x->val < y->val ? -1 : x->val > y->val ? 1 : 0; /* -0.0, 0.0, NaN: by bits */
  }
  case EK_SYM: {
    int c = strcmp(x->name, y->name);
    return c < 0 ? -1 : c > 0 ? 1 : 0;
  }
  case EK_MUL: return expr_mono_cmp(s, a, b);
  case EK_ADD: {
    const OsiExpr *ta = s->args + x->off, *tb = s->args + y->off;
    const int64_t *ca = s->coefs + x->off, *cb = s->coefs + y->off;
    for (uint32_t i = 0; i < x->n && i < y->n; i++) {
      int c = expr_mono_cmp(s, ta[i], tb[i]);
      if (c) return c;
      if (ca[i] != cb[i]) return ca[i] < cb[i] ? -1 : 1;
    }
    if (x->n != y->n) return x->n < y->n ? -1 : 1;
    return x->val < y->val ? -1 : x->val > y->val ? 1 : 0;
  }
  default: return cmp_lists(s, s->args + x->off, x->n, s->args + y->off, y->n);
  }
}

/* Section - Queries */

int osi_expr_is_const(const OsiExprStore *s, OsiExpr e, int64_t *out) {
  if (!s || e >= s->nnodes || s->nodes[e].kind != EK_CONST) return 0;
  if (out) *out = s->nodes[e].val;
  return 1;
}

int osi_expr_is_symbol(const OsiExprStore *s, OsiExpr e, const char **name) {
  if (!s || e >= s->nnodes || s->nodes[e].kind != EK_SYM) return 0;
  if (name) *name = s->nodes[e].name;
  return 1;
}

int osi_expr_size(const OsiExprStore *s, OsiExpr e) {
  if (!s || e >= s->nnodes) return 1;
  return s->nodes[e].size;
}

/* Depth-first walk; `seen` dedups names (symbols are interned, so by id). */
static void walk_symbols(const OsiExprStore *s, OsiExpr e, OsiExpr *seen, uint32_t *nseen,
                         void (*fn)(const char *, void *), void *user) {
  const ExprNode *nd = &s->nodes[e];
  if (nd->kind == EK_SYM) {
    for (uint32_t i = 0; i < *nseen; i++)
      if (seen[i] == e) return;
    seen[(*nseen)++] = e;
    fn(nd->name, user);
    return;
  }
  for (uint32_t i = 0; i < nd->n; i++) walk_symbols(s, s->args[nd->off + i], seen, nseen, fn, user);
}

void osi_expr_for_each_symbol(const OsiExprStore *s, OsiExpr e,
                              void (*fn)(const char *name, void *user), void *user) {
  if (!s || !fn || e >= s->nnodes) return;
  OsiExpr seen[OSI_EXPR_MAX_NODES]; /* a node has at most MAX_NODES leaves */
  uint32_t nseen = 0;
  walk_symbols(s, e, seen, &nseen, fn, user);
}

/* Section - Evaluation */

/* Sums, products and // % CeilDiv are evaluated in 128 bits, and only a
 * value an int64 is needed for (the result, a Max/Min/Broadcast argument)
 * must fit int64: the expanded canonical form of (x+1)*(y-z) must not fail
 * where the factored original does not. */
__extension__ typedef __int128 Wide;

static inline int fits64(Wide x) { return x >= INT64_MIN && x <= INT64_MAX; }

/* a * b in 128 bits; 1 when it overflows. Two factors that fit 64 bits
 * cannot overflow 128: their product is taken without the check, which in
 * wasm is a call to compiler-rt's __muloti4 and its 128-bit divisions (it
 * made evaluation a few percent of a GPT-2 export's call). */
static inline int mul_wide(Wide a, Wide b, Wide *out) {
  if (fits64(a) && fits64(b)) {
    *out = a * b;
    return 0;
  }
  return __builtin_mul_overflow(a, b, out);
}

static int eval_rec(const OsiExprStore *s, OsiExpr e, OsiExprLookup lookup, void *user,
                    int64_t *out);
static int eval_div(const OsiExprStore *s, OsiExpr e, OsiExprLookup lookup, void *user, Wide *out);

static int eval_poly(const OsiExprStore *s, OsiExpr e, OsiExprLookup lookup, void *user,
                     Wide *out) {
  const ExprNode *nd = &s->nodes[e];
  const OsiExpr *args = s->args + nd->off;
  int64_t a;
  if (nd->kind == EK_MUL) {
    /* A zero factor makes the product 0 even when the other factors would
     * overflow 128 bits in the canonical (sorted) order: the original text
     * may have multiplied by 0 first (0*big*big is defined). */
    Wide acc = 1;
    int overflow = 0, zero = 0;
    for (uint32_t i = 0; i < nd->n; i++) {
      if (eval_rec(s, args[i], lookup, user, &a)) return -1;
      if (a == 0) zero = 1;
      if (!overflow && mul_wide(acc, (Wide)a, &acc)) overflow = 1;
    }
    if (zero) acc = 0;
    else if (overflow) return -1;
    *out = acc;
    return 0;
  }
  if (nd->kind == EK_FLOORDIV || nd->kind == EK_MOD || nd->kind == EK_CEILDIV)
    return eval_div(s, e, lookup, user, out); /* (a*d*q+1)//2 - 4*d*q: the quotient may pass int64 */
  if (nd->kind != EK_ADD) {
    if (eval_rec(s, e, lookup, user, &a)) return -1;
    *out = a;
    return 0;
  }
  const int64_t *coefs = s->coefs + nd->off;
  Wide acc = nd->val, t;
  for (uint32_t i = 0; i < nd->n; i++)
    if (eval_poly(s, args[i], lookup, user, &t) || mul_wide(t, (Wide)coefs[i], &t) ||
        __builtin_add_overflow(acc, t, &acc))
      return -1;
  *out = acc;
  return 0;
}

static int eval_rec(const OsiExprStore *s, OsiExpr e, OsiExprLookup lookup, void *user,
                    int64_t *out) {
  const ExprNode *nd = &s->nodes[e];
  const OsiExpr *args = s->args + nd->off;
  int64_t a;
  switch (nd->kind) {
  case EK_CONST: *out = nd->val; return 0;
  case EK_SYM: return lookup && lookup(user, nd->name, out) ? 0 : -1;
  case EK_MUL:
  case EK_ADD: {
    Wide w;
    if (eval_poly(s, e, lookup, user, &w) || w < INT64_MIN || w > INT64_MAX) return -1;
    *out = (int64_t)w;
    return 0;
  }
  case EK_FLOORDIV:
  case EK_MOD:
  case EK_CEILDIV: {
    Wide v;
    if (eval_div(s, e, lookup, user, &v) || v < INT64_MIN || v > INT64_MAX) return -1;
    *out = (int64_t)v;
    return 0;
  }
  case EK_MAX:
  case EK_MIN:
  case EK_BROADCAST: {
    int64_t acc = 0;
    for (uint32_t i = 0; i < nd->n; i++) {
      if (eval_rec(s, args[i], lookup, user, &a)) return -1;
      if (i == 0) acc = a;
      else if (nd->kind == EK_MAX) acc = a > acc ? a : acc;
      else if (nd->kind == EK_MIN) acc = a < acc ? a : acc;
      else if (acc == 1) acc = a;
      else if (a != 1 && a != acc) return -1;
    }
    *out = acc;
    return 0;
  }
  case EK_FTOINT: {
    /* Cast float -> int64 truncates; NaN, infinities and values outside
     * int64 have no defined result. */
    float f;
    if (expr_eval_float(s, args[0], lookup, user, &f) || !(f >= -0x1p63f && f < 0x1p63f)) return -1;
    *out = (int64_t)f;
    return 0;
  }
  default: return -1;
  }
}

/* a // b, a % b, CeilDiv(a, b) in 128 bits. Operands in 128 bits too:
 * canonical forms rewrite a // b with a negative leading coefficient in b
 * as (-a) // (-b), whose operands may be 2^63 where the original's were
 * INT64_MIN, and extract multiples of the divisor from the numerator. */
static int eval_div(const OsiExprStore *s, OsiExpr e, OsiExprLookup lookup, void *user, Wide *out) {
  const ExprNode *nd = &s->nodes[e];
  const OsiExpr *args = s->args + nd->off;
  Wide wa, wb, q, r;
  if (eval_poly(s, args[0], lookup, user, &wa) || eval_poly(s, args[1], lookup, user, &wb) || wb == 0)
    return -1;
  const Wide lim = (Wide)1 << 126; /* keeps -wa and wa / wb from overflowing */
  if (wa <= -lim || wa >= lim || wb <= -lim || wb >= lim) return -1;
  if (nd->kind == EK_CEILDIV) wa = -wa;
  if (fits64(wa) && fits64(wb) && !(wa == INT64_MIN && wb == -1)) { /* (128-bit division is a call in wasm) */
    q = (int64_t)wa / (int64_t)wb;
    r = (int64_t)wa % (int64_t)wb;
  } else {
    q = wa / wb;
    r = wa % wb;
  }
  if (r != 0 && ((r < 0) != (wb < 0))) {
    q--;
    r += wb;
  }
  if (nd->kind == EK_CEILDIV) q = -q;
  *out = nd->kind == EK_MOD ? r : q;
  return 0;
}

int osi_expr_eval(const OsiExprStore *s, OsiExpr e, OsiExprLookup lookup, void *user,
                  int64_t *out) {
  if (!s || !out || e == OSI_EXPR_UNKNOWN || e >= s->nnodes) return -1;
  int64_t v;
  if (eval_rec(s, e, lookup, user, &v)) return -1;
  *out = v;
  return 0;
}

/* Section - Substitution
 *
 * Bottom-up rebuild through the constructors (so results are re-simplified:
 * Broadcast(p+s, t) with p+s -> t becomes t). A node equal to a key is
 * replaced before and after its children are rewritten. A sum that contains
 * k times every term of a key sum (same monomials, coefficients k times the
 * key's, k a nonzero integer) is rewritten as k*to + (e - k*key), which is
 * an identity whatever the constants: p+s+1 with p+s -> t gives t+1.
 */

static OsiExpr subst_rec(OsiExprStore *s, OsiExpr e, const OsiExpr *from, const OsiExpr *to,
                         size_t n);

/* If the polynomial e contains k times every term of the polynomial f
 * (k a nonzero integer, same k for all terms), returns k. */
static int64_t subsum_multiple(const OsiExprStore *s, OsiExpr e, OsiExpr f) {
  const ExprNode *ne = &s->nodes[e], *nf = &s->nodes[f];
  if (ne->kind != EK_ADD || nf->kind != EK_ADD || nf->n > ne->n) return 0;
  const OsiExpr *te = s->args + ne->off, *tf = s->args + nf->off;
  const int64_t *ce = s->coefs + ne->off, *cf = s->coefs + nf->off;
  int64_t k = 0;
  uint32_t i = 0;
  for (uint32_t j = 0; j < nf->n; j++) {
    while (i < ne->n && te[i] != tf[j] && expr_mono_cmp(s, te[i], tf[j]) < 0) i++;
    if (i == ne->n || te[i] != tf[j]) return 0;
    if (ce[i] % cf[j] != 0) return 0;
    int64_t q = ce[i] / cf[j];
    if (j == 0) k = q;
    else if (q != k) return 0;
    i++;
  }
  if (nf->n == ne->n && nf->val == ne->val && k == 1) return 0; /* whole match handled */
  return k;
}

static OsiExpr subst_node(OsiExprStore *s, OsiExpr e, const OsiExpr *from, const OsiExpr *to,
                          size_t n) {
  const ExprNode *nd = &s->nodes[e];
  int kind = nd->kind;
  uint32_t nargs = nd->n;
  if (kind == EK_CONST || kind == EK_SYM || kind == EK_FCONST) return e;
  if (kind == EK_FTOINT || expr_is_float_kind(kind)) {
    OsiExpr args[64]; /* float nodes have at most 64 arguments (expr_float.c) */
    if (nargs > 64) return OSI_EXPR_UNKNOWN;
    for (uint32_t i = 0; i < nargs; i++) {
      args[i] = subst_rec(s, s->args[s->nodes[e].off + i], from, to, n);
      if (!args[i]) return OSI_EXPR_UNKNOWN;
    }
    return expr_float_rebuild(s, e, args);
  }
  if (kind == EK_ADD) {
    for (size_t i = 0; i < n; i++) {
      int64_t k = subsum_multiple(s, e, from[i]);
      if (!k) continue;
      OsiExpr kc = osi_expr_const(s, k);
      OsiExpr rest = osi_expr_sub(s, e, osi_expr_mul(s, kc, from[i]));
      return osi_expr_add(s, osi_expr_mul(s, kc, to[i]), subst_rec(s, rest, from, to, n));
    }
    OsiExpr acc = osi_expr_const(s, s->nodes[e].val);
    for (uint32_t i = 0; i < nargs && acc; i++) {
      OsiExpr t = s->args[s->nodes[e].off + i];
      int64_t c = s->coefs[s->nodes[e].off + i];
      t = subst_rec(s, t, from, to, n);
      acc = osi_expr_add(s, acc, osi_expr_mul(s, osi_expr_const(s, c), t));
    }
    return acc;
  }
  if (kind == EK_MUL) {
    OsiExpr acc = osi_expr_const(s, 1);
    for (uint32_t i = 0; i < nargs && acc; i++)
      acc = osi_expr_mul(s, acc, subst_rec(s, s->args[s->nodes[e].off + i], from, to, n));
    return acc;
  }
  if (kind == EK_FLOORDIV || kind == EK_MOD || kind == EK_CEILDIV) {
    OsiExpr a = subst_rec(s, s->args[s->nodes[e].off], from, to, n);
    OsiExpr b = subst_rec(s, s->args[s->nodes[e].off + 1], from, to, n);
    if (kind == EK_FLOORDIV) return osi_expr_floordiv(s, a, b);
    if (kind == EK_MOD) return osi_expr_mod(s, a, b);
    return osi_expr_ceildiv(s, a, b);
  }
  OsiExpr acc = OSI_EXPR_UNKNOWN;
  for (uint32_t i = 0; i < nargs; i++) {
    OsiExpr a = subst_rec(s, s->args[s->nodes[e].off + i], from, to, n);
    if (i == 0) acc = a;
    else if (kind == EK_MAX) acc = osi_expr_max(s, acc, a);
    else if (kind == EK_MIN) acc = osi_expr_min(s, acc, a);
    else acc = osi_expr_broadcast(s, acc, a);
    if (!acc) break;
  }
  return acc;
}

static OsiExpr subst_rec(OsiExprStore *s, OsiExpr e, const OsiExpr *from, const OsiExpr *to,
                         size_t n) {
  if (e == OSI_EXPR_UNKNOWN || !expr_spend(s, 1)) return OSI_EXPR_UNKNOWN;
  for (size_t i = 0; i < n; i++)
    if (from[i] == e) return to[i];
  OsiExpr r = subst_node(s, e, from, to, n);
  if (r != e)
    for (size_t i = 0; i < n; i++)
      if (from[i] == r) return to[i];
  return r;
}

OsiExpr osi_expr_substitute(OsiExprStore *s, OsiExpr e, const OsiExpr *from, const OsiExpr *to,
                            size_t n) {
  if (!s || e >= s->nnodes || (n && (!from || !to))) return OSI_EXPR_UNKNOWN;
  for (size_t i = 0; i < n; i++)
    if (from[i] >= s->nnodes || to[i] >= s->nnodes) return OSI_EXPR_UNKNOWN;
  return expr_result(s, subst_rec(s, e, from, to, n));
}

/* Section - Leaf equality */

int osi_expr_leaf_equality(OsiExprStore *s, OsiExpr a, OsiExpr b, OsiExpr *x, OsiExpr *y) {
  if (!s || a >= s->nnodes || b >= s->nnodes) return 0;
  OsiExpr d = osi_expr_sub(s, a, b);
  if (d == OSI_EXPR_UNKNOWN) return 0;
  const ExprNode *nd = &s->nodes[d];
  if (nd->kind != EK_ADD || nd->n != 2 || nd->val != 0) return 0;
  const OsiExpr *t = s->args + nd->off;
  const int64_t *c = s->coefs + nd->off;
  if (s->nodes[t[0]].kind != EK_SYM || s->nodes[t[1]].kind != EK_SYM) return 0;
  if (c[0] == INT64_MIN || c[0] != -c[1]) return 0;
  int pos = c[0] > 0 ? 0 : 1;
  if (x) *x = t[pos];
  if (y) *y = t[1 - pos];
  return 1;
}
