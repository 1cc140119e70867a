/*
 * Private layout of the expression store, shared by expr.c (store,
 * interning, queries, evaluation, substitution), expr_simplify.c and
 * expr_minmax.c (constructors and canonicalisation), expr_parse.c and
 * expr_print.c.
 *
 * Canonical forms (every id in a store is one of these):
 *   CONST      an int64 constant (val).
 *   SYM        a leaf symbol (name).
 *   FLOORDIV, MOD, CEILDIV   binary function atoms, arguments canonical.
 *   MAX, MIN, BROADCAST      n-ary (n >= 2) function atoms, arguments
 *              canonical, flattened, deduplicated and sorted by expr_cmp.
 *   MUL        a monomial: >= 2 atoms (SYM or function nodes), sorted by
 *              expr_cmp, repeated for powers (a*a), coefficient 1.
 *   ADD        a polynomial: n >= 1 terms coefs[i]*args[i] where args[i] is
 *              a monomial (atom or MUL), all distinct, sorted by mono_cmp,
 *              coefficients nonzero, plus the constant val; never a lone
 *              monomial with coefficient 1 and constant 0.
 *   FTOINT     an integer function atom: the float args[0] truncated toward
 *              zero (ONNX Cast float -> int); undefined for NaN, infinities
 *              and values outside int64.
 * "Atom" below means SYM or a function node; "monomial" means atom or MUL.
 *
 * Float nodes (kind >= EK_FCONST; expr_float.c) have float32 semantics: each
 * operation rounds to the nearest float32, ties to even. They occur only as
 * arguments of FTOINT or of other float nodes, never as integer operands:
 *   FCONST     a number; val holds the bits of a double (float contents of
 *              any precision are exact doubles; nodes under a float32
 *              operation hold float32 values).
 *   FCAST      float32(args[0]) of an integer expression.
 *   FADD, FMUL binary, arguments sorted by expr_cmp (float + and * commute
 *              but do not associate, so they are never flattened).
 *   FDIV       args[0] / args[1].
 *   FNEG       -args[0].
 *   FMIN, FMAX n-ary (n >= 2), flattened, sorted and deduplicated (min and
 *              max are exact, so they associate).
 *   FFLOOR, FCEIL, FROUND   rounding to an integral float (FROUND: half to
 *              even, as ONNX Round).
 */
#ifndef OSI_EXPR_INTERNAL_H
#define OSI_EXPR_INTERNAL_H

#include "expr/expr.h"

enum {
  EK_UNKNOWN = 0,
  EK_CONST,
  EK_SYM,
  EK_MUL,
  EK_ADD,
  EK_FLOORDIV,
  EK_MOD,
  EK_CEILDIV,
  EK_MAX,
  EK_MIN,
  EK_BROADCAST,
  EK_FTOINT,
  EK_FCONST, /* first float kind */
  EK_FCAST,
  EK_FADD,
  EK_FMUL,
  EK_FDIV,
  EK_FNEG,
  EK_FMIN,
  EK_FMAX,
  EK_FFLOOR,
  EK_FCEIL,
  EK_FROUND
};

typedef struct {
  uint8_t kind;
  uint16_t size;    /* osi_expr_size, <= OSI_EXPR_MAX_NODES */
  uint32_t n;       /* number of arguments */
  uint32_t off;     /* first argument in store->args (ADD: also coefs) */
  uint32_t hash;
  int64_t val;      /* CONST: the value; ADD: the constant term */
  const char *name; /* SYM: the name (store-owned, NUL-terminated) */
} ExprNode;

typedef struct NameChunk NameChunk;
typedef struct ExprNaming ExprNaming; /* expr_naming.c */

/* Results of a binary operation by its operands' ids: direct-mapped
 * entries (a, b, result, epoch), valid when epoch is the store's
 * memo_epoch, placed by the operands' structural hashes (so that which
 * results are found again, and so the work an operation takes, does not
 * depend on the order ids were given out in); it grows with the store up to
 * 2^14 slots, and is cleared when a store flag changes what rules apply. */
typedef struct PairMemo {
  uint32_t *t;
  uint32_t cap;
} PairMemo;

/* Intervals of compound ids by id: direct-mapped, id 0 = empty; grows with
 * the store up to 2^14 slots and is cleared with the pair memos. */
typedef struct IvalMemo {
  uint32_t *id;
  int64_t (*iv)[2];
  uint32_t cap;
} IvalMemo;

/* The constants osi_expr_const finds without hashing: [LO, HI). */
#define OSI_SMALL_CONST_LO (-64)
#define OSI_SMALL_CONST_HI 1024

struct OsiExprStore {
  ExprNode *nodes;
  uint32_t nnodes, capnodes;
  uint32_t *args; /* argument pool */
  int64_t *coefs; /* parallel to args: coefficients of ADD terms */
  size_t nargs, capargs;
  uint32_t *table; /* open addressing, 0 = empty */
  uint32_t tcap, tcount;
  char **strs; /* printed-form cache, indexed by id */
  NameChunk *chunks;
  uint64_t fresh_counter;
  int assume_nonneg;
  int float_domain; /* see osi_expr_store_set_float_domain */
  int contracting; /* expr_floor.c: inside a contraction (no nested one) */
  /* expr_floor.c: canonical forms of sums already seen, by the id of the
   * sum as built; direct-mapped, (key, value, epoch) as the PairMemos */
  uint32_t *sum_memo;
  uint32_t sum_memo_cap;
  /* expr_floor.c: sums being canonicalised (a sum whose canonical form
   * needs itself gets its expansion), and how often that happened or the
   * work budget ran out (expr.c): what is computed across either is not
   * memoised */
  uint32_t canon_stack[32];
  uint32_t canon_depth;
  uint32_t cycle_breaks;
  /* expr.c: steps the current operation may still take (0 once out), and
   * whether it ran out: then every rewrite gives OSI_EXPR_UNKNOWN */
  uint64_t work_left;
  int work_out;
  /* osi_expr_store_isolate: memo entries are valid in the epoch they were
   * made in (1 outside isolation, a new one each time it starts); isolated,
   * the memos have a fixed number of entries (ival_memo aside: it takes no
   * budget) */
  uint32_t memo_epoch, next_epoch;
  int isolated;
  /* expr_minmax.c: results of osi_expr_broadcast (every elementwise op
   * broadcasts the same pairs again, and each try of its rules evaluates
   * and substitutes) and of Max/Min (a model's layers clamp the same slice
   * bounds, and each proof of an order walks the prover) */
  PairMemo bcast_memo, minmax_memo;
  /* expr_simplify.c: results of + - // % CeilDiv on two ids (every layer
   * of a model computes the same window, split and head sizes again) */
  PairMemo arith_memo;
  /* expr_floor.c: expansions of contraction candidates, (atom, 0, sum) */
  PairMemo expansion_memo;
  /* expr_simplify.c: bounds of subterms (a sum's normal form asks for the
   * bounds of the same shared subterms once per path through the DAG) */
  IvalMemo ival_memo;
  /* expr_naming.c: named derived sizes, printed as names while naming_on */
  ExprNaming *naming;
  int naming_on;
  /* expr_print.c: while factors_alone (osi_expr_print_factors_alone), the
   * texts by id (nalone of them), apart from strs and the named ones */
  int factors_alone;
  char **alone_strs;
  uint32_t nalone;
  /* osi_expr_const's ids of the small constants (0 = not interned yet): a
   * shape rule makes a few on every node (pads, strides, 1), and a table
   * lookup is a hash, a probe and a compare per constant */
  uint32_t small_const[OSI_SMALL_CONST_HI - OSI_SMALL_CONST_LO];
};

/* Section - Store internals (expr.c) */

/* Marks the budget spent (work_out, a cycle break); returns 0. */
int expr_run_out(OsiExprStore *s);
/* Takes `steps` steps of the budget: 1, or 0 when they are not left. */
static inline int expr_spend(OsiExprStore *s, uint64_t steps) {
  if (__builtin_expect(s->work_left >= steps, 1)) {
    s->work_left -= steps;
    return 1;
  }
  return expr_run_out(s);
}
/* What a public rewrite returns: r, or OSI_EXPR_UNKNOWN once the budget is
 * out (r may then be a partly simplified form). */
static inline OsiExpr expr_result(const OsiExprStore *s, OsiExpr r) {
  return s->work_out ? OSI_EXPR_UNKNOWN : r;
}

/* Interns a node; args/coefs must not point into the store. coefs is used
 * only for EK_ADD. Returns OSI_EXPR_UNKNOWN when the node would exceed
 * OSI_EXPR_MAX_NODES or memory runs out. */
OsiExpr expr_intern(OsiExprStore *s, int kind, const OsiExpr *args, uint32_t n,
                    const int64_t *coefs, int64_t val, const char *name, size_t namelen);
/* The slot of (a, b) in m (its triple), NULL without memory; tag tells
 * apart operations that share a memo (kept with b in the triple). */
uint32_t *expr_pair_slot(const OsiExprStore *s, PairMemo *m, OsiExpr a, OsiExpr b, uint32_t tag);
void expr_pair_memo_clear(PairMemo *m);
/* The entry for hash h of a direct-mapped table of *cap entries of `words`
 * words (the last one the entry's epoch), grown with the store up to
 * max_cap (or to a fixed size while isolated); NULL without memory. */
uint32_t *expr_memo_entry(const OsiExprStore *s, uint32_t **table, uint32_t *cap, uint32_t max_cap,
                          uint32_t words, uint32_t h);
/* Empties every memo (a store flag changed what rules apply). */
void expr_memos_clear(OsiExprStore *s);
/* A PairMemo entry m holds (a, b) made in this epoch; sets it. */
static inline int expr_memo_hit(const OsiExprStore *s, const uint32_t *m, uint32_t a, uint32_t b) {
  return m && m[0] == a && m[1] == b && m[3] == s->memo_epoch;
}
static inline void expr_memo_put(const OsiExprStore *s, uint32_t *m, uint32_t a, uint32_t b, uint32_t r) {
  m[0] = a, m[1] = b, m[2] = r, m[3] = s->memo_epoch;
}
/* Looks a symbol up without creating it. */
OsiExpr expr_find_symbol(const OsiExprStore *s, const char *name, size_t namelen);

static inline const ExprNode *expr_node(const OsiExprStore *s, OsiExpr e) { return &s->nodes[e]; }
static inline const OsiExpr *expr_args(const OsiExprStore *s, OsiExpr e) {
  return s->args + s->nodes[e].off;
}
static inline const int64_t *expr_coefs(const OsiExprStore *s, OsiExpr e) {
  return s->coefs + s->nodes[e].off;
}
static inline int expr_kind(const OsiExprStore *s, OsiExpr e) { return s->nodes[e].kind; }
static inline int expr_is_func(int kind) { return kind >= EK_FLOORDIV && kind <= EK_FTOINT; }
static inline int expr_is_float_kind(int kind) { return kind >= EK_FCONST; }
static inline int expr_is_float(const OsiExprStore *s, OsiExpr e) {
  return expr_is_float_kind(s->nodes[e].kind);
}

/* Section - Broadcast (expr_broadcast.c) */

/* 1 when Broadcast(x, y) is x wherever it is defined, by a rule beyond
 * the constants (y is 1 wherever the symbol x is 1; x is Max(y, c <= 0)). */
int expr_broadcast_drops(OsiExprStore *s, OsiExpr y, OsiExpr x);

/* Structural total order on canonical expressions (0 iff same id). */
int expr_cmp(const OsiExprStore *s, OsiExpr a, OsiExpr b);
/* Order of the terms of a polynomial: higher degree first, then expr_cmp
 * over the atom lists. */
int expr_mono_cmp(const OsiExprStore *s, OsiExpr a, OsiExpr b);

/* Section - Python integer helpers (expr.c); return 0 on overflow/zero divisor */

int expr_floordiv64(int64_t a, int64_t b, int64_t *out);
int expr_mod64(int64_t a, int64_t b, int64_t *out);

/* Section - Scratch polynomials and bounds (expr_simplify.c), shared with
 * expr_bounds.c (the order prover) */

#define POLY_INLINE 8

/* Sum of k[i]*m[i] plus c; m[i] are monomials. Never copied by value. */
typedef struct {
  int64_t c;
  uint32_t n, cap;
  int64_t *k;
  OsiExpr *m;
  int64_t kb[POLY_INLINE];
  OsiExpr mb[POLY_INLINE];
} Poly;

void poly_init(Poly *p);
void poly_free(Poly *p);
int poly_reserve(Poly *p, uint32_t n);
/* p must be initialised; its previous content is dropped. */
int poly_load(const OsiExprStore *s, OsiExpr e, Poly *p);
/* out = a + kb*b (out initialised, distinct from a and b; a and b sorted). */
int poly_addmul(const OsiExprStore *s, const Poly *a, const Poly *b, int64_t kb, Poly *out);

/* Sound bounds; INT64_MIN / INT64_MAX as lo / hi mean unbounded. */
typedef struct {
  int64_t lo, hi;
} Ival;

Ival ival_expr(const OsiExprStore *s, OsiExpr e);
void expr_ival_memo_clear(IvalMemo *m);
Ival ival_poly(const OsiExprStore *s, const Poly *p);

/* The sum of p's terms as a canonical id: p sorted by expr_mono_cmp,
 * monomials distinct, coefficients nonzero; sums of // and % atoms go
 * through expr_sum_canonical. */
OsiExpr poly_expr(OsiExprStore *s, const Poly *p);
/* p as an id, as it is (p sorted and normalized). */
OsiExpr poly_intern(OsiExprStore *s, const Poly *p);

enum { OP_FLOORDIV, OP_MOD, OP_CEILDIV };
/* a op b by every rule of expr_simplify.c, except that a // or % atom of
 * a constant divisor is returned as it is rather than through
 * expr_sum_canonical (which calls this). */
OsiExpr expr_div_raw(OsiExprStore *s, int op, OsiExpr a, OsiExpr b);

/* The product of n atoms (SYM or function nodes, in any order, n <= MAX):
 * what multiplying them one by one gives, sorted and interned once (the
 * parser's chains a*b*c*...). */
OsiExpr expr_atoms_product(OsiExprStore *s, OsiExpr *atoms, uint32_t n);

/* Section - Floor and mod atoms in sums (expr_floor.c) */

/* 1 when p has a term c*(N//d) or c*(N%d), d a constant >= 2. */
int expr_poly_has_floor(const OsiExprStore *s, const Poly *p);
/* The canonical id of such a sum (see expr_floor.c). */
OsiExpr expr_sum_canonical(OsiExprStore *s, const Poly *p);

/* Section - Order prover (expr_bounds.c) */

/* 1 when p <= 0 is proven for every binding of the symbols (>= 0 ones when
 * assume_nonneg is on) at which the expressions in p are defined. */
int expr_prove_nonpositive(const OsiExprStore *s, const Poly *p);

/* Section - Names of derived sizes (expr_naming.c), for the printer */

/* The name e prints as while names are in use, or NULL. */
const char *expr_name_of(const OsiExprStore *s, OsiExpr e);
/* The cache slot of e's printed form while names are in use; NULL when e
 * is newer than the names (or memory runs out): print it without them. */
char **expr_named_slot(OsiExprStore *s, OsiExpr e);
void expr_naming_free(OsiExprStore *s);
/* The text of e's node (children through osi_expr_str), malloc'ed; NULL
 * when memory runs out (expr_print.c). */
char *expr_print_node(OsiExprStore *s, OsiExpr e);

/* Section - Printed text (expr_print.c; expr_print_float.c prints float nodes into it) */

/* A growing string; oom is set (and nothing more appended) when memory runs out. */
typedef struct ExprText {
  char *p;
  size_t n, cap;
  int oom;
} ExprText;

void expr_text_put(ExprText *b, const char *s, size_t len);

/* Section - Float nodes (expr_float.c) */

/* The double a FCONST node holds. */
double expr_fconst_value(const OsiExprStore *s, OsiExpr e);
/* Float32 value of a float node (FTOINT: of its argument) under the
 * bindings; 0 on success, -1 when a symbol is unbound or an integer
 * operand is undefined. */
int expr_eval_float(const OsiExprStore *s, OsiExpr e, OsiExprLookup lookup, void *user, float *out);
/* Sound bounds of FTOINT node e for the integer simplifier (symbols >= 0
 * when assume_nonneg): 1 and *lo and *hi set (INT64_MIN / INT64_MAX when
 * unbounded), or 0 when nothing is known. */
int expr_ftoint_bounds(const OsiExprStore *s, OsiExpr e, int64_t *lo, int64_t *hi);
/* Text of a float node (as a float) or of a FTOINT atom (expr_print_float.c);
 * malloc'ed, NULL when memory runs out. Never interns. */
char *expr_float_text(OsiExprStore *s, OsiExpr e);
/* Rebuilds float node or FTOINT e from already rewritten arguments
 * (substitution, expr.c). */
OsiExpr expr_float_rebuild(OsiExprStore *s, OsiExpr e, const OsiExpr *args);

/* A Min (kind EK_MIN) or Max atom e with the constant k among its
 * arguments, without it (Min(a, b, 1) -> Min(a, b)); else OSI_EXPR_UNKNOWN
 * (expr_cases.c; the facts read relations with it too). */
OsiExpr expr_without_const(OsiExprStore *s, OsiExpr e, int kind, int64_t k);

#endif
