/*
 * Symbolic dimension expressions.
 *
 * Every dimension the engine reasons about is an OsiExpr: a small integer id
 * into an OsiExprStore. Expressions are hash-consed, so two ids are equal
 * exactly when the simplifier put both expressions in the same canonical
 * form; comparing dims is comparing ids, and printing is cached per id.
 *
 * Semantics: integers with Python floor semantics for // and %.
 * Symbols stand for tensor dimension sizes, so they are never negative;
 * simplification rules may rely on that when the store's assume_nonneg flag
 * is set (the default), and never otherwise.
 *
 * Constructors never fail loudly: an operand that is OSI_EXPR_UNKNOWN, an
 * int64 overflow while folding constants, or a result past
 * OSI_EXPR_MAX_NODES yields OSI_EXPR_UNKNOWN (or, for the size cap, a fresh
 * symbol when the caller asks for one), never a wrong expression.
 */
#ifndef OSI_EXPR_H
#define OSI_EXPR_H

#include <stddef.h>
#include <stdint.h>

typedef uint32_t OsiExpr;
typedef struct OsiExprStore OsiExprStore;

/* The unknown dimension. Every constructor propagates it. */
#define OSI_EXPR_UNKNOWN ((OsiExpr)0)

/* Largest expression (counted in tree nodes after simplification) kept;
 * bigger results become OSI_EXPR_UNKNOWN. 512: a detection model's anchor
 * count sums five FPN levels of products of sizes computed in float
 * (Floor(h*Min(800/Min(h,w),...)) is 22 nodes, each level about 55). */
#define OSI_EXPR_MAX_NODES 512

/* Section - Work budget
 *
 * Rewriting takes steps, each a bounded amount of work: a sum brought to
 * its normal form, one expansion or contraction step of a sum of // and %
 * atoms, an order proof, a product's terms, a node interned. A store may
 * take at most its budget (osi_expr_set_work_budget; unbounded by default),
 * and an operation (osi_expr_work_begin .. osi_expr_work_end, which nest) at
 * most its cap as well. Past either, every rewrite gives OSI_EXPR_UNKNOWN
 * until the operation ends (past the store's budget: for good): never a
 * partly simplified expression, and nothing computed past it is
 * remembered, so every id a constructor returns is still canonical.
 * Symbols and constants are still made. */

/* Isolated (off by default), rewrites find again only the results
 * remembered since isolation last started, in memos of a fixed size: the
 * work an operation takes, and so whether it is cut, is then the same
 * whatever was computed before it. The decoders read each dim text so, in
 * whatever order each reads them, so that both cut the same texts. */
void osi_expr_store_isolate(OsiExprStore *s, int on);

/* One dim text (osi_expr_parse, osi_expr_from_dim_param): 14 times the most
 * a text of the backend, exporter, torchvision and bench models takes
 * isolated, as the decoders read it, with those models written back with
 * their inferred shapes (toModel) among them (8,959 steps: a detection
 * model's anchor count; the models' own texts take at most 313); a text
 * whose normal form would take minutes (N//2//3//...//370, CeilDiv nested
 * 400 deep) is cut in milliseconds. */
#define OSI_EXPR_WORK_PER_TEXT (1u << 17)

/* An operation in progress (osi_expr_work_begin), held by its caller. */
typedef struct OsiExprWork {
  uint64_t saved, granted;
  int outer_out;
} OsiExprWork;

void osi_expr_set_work_budget(OsiExprStore *s, uint64_t steps);
/* Steps the current operation (or the store) may still take. */
uint64_t osi_expr_work_left(const OsiExprStore *s);
/* Starts an operation that may take at most cap steps (and no more than
 * what encloses it has left). */
void osi_expr_work_begin(OsiExprStore *s, OsiExprWork *w, uint64_t cap);
/* Ends it: 1 when it was cut short (it ran out, or started with nothing
 * left: every rewrite it made after that point gave OSI_EXPR_UNKNOWN), else
 * 0. What it took is taken from what encloses it. */
int osi_expr_work_end(OsiExprStore *s, OsiExprWork *w);
/* 1 when the store's own budget is spent (every rewrite gives unknown). */
int osi_expr_work_exhausted(const OsiExprStore *s);

/* Section - Store */

OsiExprStore *osi_expr_store_new(void);
void osi_expr_store_delete(OsiExprStore *self); /* NULL-safe */

/* When nonzero (the default), symbols are assumed >= 0 during
 * simplification (Max(x, 0) -> x, Min(x, 0) -> 0, ...). */
void osi_expr_store_set_assume_nonneg(OsiExprStore *self, int on);

/* Section - Construction (results are always simplified/canonical) */

OsiExpr osi_expr_const(OsiExprStore *s, int64_t v);
/* A leaf symbol with this exact name (any bytes; the printer quotes names
 * that are not identifiers). */
OsiExpr osi_expr_symbol(OsiExprStore *s, const char *name);
/* A new symbol named "<prefix>_<n>" that collides with no symbol created so
 * far in this store (and no later osi_expr_symbol call can make it collide
 * silently: symbols are interned by name). */
OsiExpr osi_expr_fresh(OsiExprStore *s, const char *prefix);

OsiExpr osi_expr_add(OsiExprStore *s, OsiExpr a, OsiExpr b);
OsiExpr osi_expr_sub(OsiExprStore *s, OsiExpr a, OsiExpr b);
OsiExpr osi_expr_mul(OsiExprStore *s, OsiExpr a, OsiExpr b);
OsiExpr osi_expr_neg(OsiExprStore *s, OsiExpr a);
OsiExpr osi_expr_floordiv(OsiExprStore *s, OsiExpr a, OsiExpr b); /* a // b */
OsiExpr osi_expr_mod(OsiExprStore *s, OsiExpr a, OsiExpr b);      /* a % b (Python) */
OsiExpr osi_expr_ceildiv(OsiExprStore *s, OsiExpr a, OsiExpr b);  /* -((-a) // b) */
OsiExpr osi_expr_max(OsiExprStore *s, OsiExpr a, OsiExpr b);
OsiExpr osi_expr_min(OsiExprStore *s, OsiExpr a, OsiExpr b);
/* Broadcast(a, b): the numpy-broadcast of two dims: a if a == b or b == 1,
 * b if a == 1; undefined otherwise. */
OsiExpr osi_expr_broadcast(OsiExprStore *s, OsiExpr a, OsiExpr b);

/* Section - Float32 expressions (expr_float.c)
 *
 * Sizes that exporters compute in float (Shape -> Cast(float) -> Div/Mul/Min
 * -> Floor -> Cast(int64), Resize scales) are float32 expressions: every
 * operation rounds to the nearest float32 (ties to even), as onnxruntime
 * computes them, and osi_expr_eval evaluates them so. A float expression is
 * never a dim itself: dims are integers, and a float expression enters one
 * only through osi_expr_ftoint (and the rounding functions under it).
 * Integer operands of float operations are converted to float32 first
 * (rounded when beyond 2^24). Float contents of any precision are held as
 * osi_expr_fconst numbers; only float32 operations build symbolic nodes.
 *
 * Reductions to integer forms (Floor(h/2.0) -> h//2, Trunc(2.0*h) -> 2*h,
 * Trunc(Float(h)) -> h) rely on the float domain (on by default): every
 * symbol is below 2^24 = 16,777,216, so that the integers converted to
 * float32 are exact. With it off, only reductions exact for every value of
 * the symbols are made. Constructors return OSI_EXPR_UNKNOWN for an unknown
 * operand, for an integer constructor given a float operand (and vice
 * versa), and for a symbolic expression with a NaN or infinite constant. */

void osi_expr_store_set_float_domain(OsiExprStore *s, int on);

/* A float number (NaN and infinities included, as contents). */
OsiExpr osi_expr_fconst(OsiExprStore *s, double v);
/* float32(a) for an integer a; a float a is returned unchanged. */
OsiExpr osi_expr_to_float(OsiExprStore *s, OsiExpr a);
OsiExpr osi_expr_fadd(OsiExprStore *s, OsiExpr a, OsiExpr b);
OsiExpr osi_expr_fsub(OsiExprStore *s, OsiExpr a, OsiExpr b);
OsiExpr osi_expr_fmul(OsiExprStore *s, OsiExpr a, OsiExpr b);
OsiExpr osi_expr_fdiv(OsiExprStore *s, OsiExpr a, OsiExpr b);
OsiExpr osi_expr_fneg(OsiExprStore *s, OsiExpr a);
OsiExpr osi_expr_fmin(OsiExprStore *s, OsiExpr a, OsiExpr b);
OsiExpr osi_expr_fmax(OsiExprStore *s, OsiExpr a, OsiExpr b);
/* Rounding to an integral float32: floor, ceil, half to even. */
OsiExpr osi_expr_ffloor(OsiExprStore *s, OsiExpr a);
OsiExpr osi_expr_fceil(OsiExprStore *s, OsiExpr a);
OsiExpr osi_expr_fround(OsiExprStore *s, OsiExpr a);
/* The integer a float truncates to (Cast float -> int). */
OsiExpr osi_expr_ftoint(OsiExprStore *s, OsiExpr a);

/* 1 when e is a float expression (FCONST included). */
int osi_expr_is_float(const OsiExprStore *s, OsiExpr e);
/* 1 and *out set when e is a float number. */
int osi_expr_is_fconst(const OsiExprStore *s, OsiExpr e, double *out);
/* Bounds of float e's value for every value of the symbols (>= 0 ones
 * under assume_nonneg): 1 with *lo and *hi set (infinities when unbounded)
 * when e is never NaN, else 0. */
int osi_expr_float_bounds(const OsiExprStore *s, OsiExpr e, double *lo, double *hi);
/* Section - Parsing and printing */

/* How a text reads in the expression grammar (see expr_parse.c). */
typedef enum OsiExprText {
  OSI_EXPR_TEXT_INT = 0,    /* an integer expression: a size */
  OSI_EXPR_TEXT_FLOAT,      /* a float expression: no size */
  OSI_EXPR_TEXT_SYNTAX,     /* not in the grammar (or past its length and nesting limits) */
  OSI_EXPR_TEXT_OVER_BUDGET /* in the grammar, but simplifying it takes more than
                             * OSI_EXPR_WORK_PER_TEXT steps (or what the store has left) */
} OsiExprText;

/* Parses text; *out (when not NULL) is its value for _INT and _FLOAT (which
 * may be OSI_EXPR_UNKNOWN: Broadcast(2,3), an overflow, too large), else
 * OSI_EXPR_UNKNOWN. */
OsiExprText osi_expr_parse_text(OsiExprStore *s, const char *text, OsiExpr *out);
/* Parses text in the expression grammar. Returns OSI_EXPR_UNKNOWN if it does
 * not parse (or is over the work budget). */
OsiExpr osi_expr_parse(OsiExprStore *s, const char *text);
/* How a dim_param becomes a dim: a string that parses as an integer
 * expression (within the work budget) is that expression; any other
 * non-empty string is a symbol with that exact name; "" is
 * OSI_EXPR_UNKNOWN. */
OsiExpr osi_expr_from_dim_param(OsiExprStore *s, const char *text);
/* Canonical text, owned by the store, valid until the store is deleted.
 * "?" for OSI_EXPR_UNKNOWN. Parsing it back gives the same id. */
const char *osi_expr_str(OsiExprStore *s, OsiExpr e);

/* Ids in use are below this (0, OSI_EXPR_UNKNOWN, included). */
uint32_t osi_expr_node_count(const OsiExprStore *s);

/* Section - Names of derived sizes (expr_naming.c)
 *
 * For the texts a result prints (roots: dims, contents, constraints), an
 * ordered list of definitions name = expression: every Floor/Ceil/Round/
 * Trunc of a float expression in them, then the subterms that shorten the
 * texts still over 80 characters most (a bounded number). Names are
 * <word>_<n> (floor_1, size_2) and collide with no symbol of the store;
 * each definition is over graph symbols and earlier names only. While the
 * names are in use, osi_expr_str prints each named id as its name, so a
 * text evaluated with every name bound to its definition's value is the
 * text without names evaluated. */

/* Chooses the definitions for roots[0..n) (replacing earlier ones); the
 * number chosen, or -1 when memory runs out (then there are none). */
int osi_expr_name_sizes(OsiExprStore *s, const OsiExpr *roots, size_t n);
/* Turns printing with names on or off (off by default). */
void osi_expr_use_names(OsiExprStore *s, int on);
/* Turns on or off (off by default) printing every floor division that is a
 * factor as it prints alone, in parentheses: 216*N*((H+1)//2), never
 * 216*N*CeilDiv(H,2). The cost model's texts are products of dims that the
 * shapes print alone ((H+1)//2); while on, texts are kept apart from the
 * others (turning it off drops them), so no other text changes. */
void osi_expr_print_factors_alone(OsiExprStore *s, int on);
uint32_t osi_expr_definition_count(const OsiExprStore *s);
const char *osi_expr_definition_name(const OsiExprStore *s, uint32_t i);
OsiExpr osi_expr_definition_expr(const OsiExprStore *s, uint32_t i);
/* Definition i printed over the earlier names (owned by the store, valid
 * until the names change); NULL past the end. */
const char *osi_expr_definition_str(OsiExprStore *s, uint32_t i);

/* Section - Queries */

/* 1 and *out set when e is an integer constant, else 0. */
int osi_expr_is_const(const OsiExprStore *s, OsiExpr e, int64_t *out);
/* 1 when e is a single symbol (leaf), with *name set. */
int osi_expr_is_symbol(const OsiExprStore *s, OsiExpr e, const char **name);
/* Number of tree nodes of e (1 for a leaf or constant). */
int osi_expr_size(const OsiExprStore *s, OsiExpr e);
/* Calls fn for each distinct symbol name occurring in e. */
void osi_expr_for_each_symbol(const OsiExprStore *s, OsiExpr e,
                              void (*fn)(const char *name, void *user), void *user);

/* Section - Evaluation and substitution */

/* Looks a symbol up; returns 1 and sets *value when bound. */
typedef int (*OsiExprLookup)(void *user, const char *name, int64_t *value);
/* Evaluates e; returns 0 and sets *out, or -1 when a symbol is unbound, a
 * division by zero or an int64 overflow happens, a Broadcast is undefined,
 * a truncated float is NaN, infinite or outside int64, or e is a float
 * expression (osi_expr_eval_float). */
int osi_expr_eval(const OsiExprStore *s, OsiExpr e, OsiExprLookup lookup, void *user,
                  int64_t *out);

/* Evaluates a float expression with float32 semantics (an integer e is
 * converted to float32); 0 and *out set, or -1 as osi_expr_eval. */
int osi_expr_eval_float(const OsiExprStore *s, OsiExpr e, OsiExprLookup lookup, void *user,
                        float *out);

/* Replaces, bottom-up, every subexpression equal to from[i] by to[i]
 * (leaves and compound subexpressions alike), re-simplifying the result. */
OsiExpr osi_expr_substitute(OsiExprStore *s, OsiExpr e, const OsiExpr *from,
                            const OsiExpr *to, size_t n);

/* Whether two sizes are known equal (the caller's knowledge: sizes a model
 * requires equal to run). */
typedef int (*OsiExprSameFn)(void *user, OsiExpr a, OsiExpr b);
/* e with every Broadcast operand that same() says equals an operand kept
 * before it (in the Broadcast's canonical order) dropped: Broadcast(a, b)
 * is a wherever a == b. Nested Broadcasts first; e itself when nothing
 * changes. */
OsiExpr osi_expr_merge_broadcasts(OsiExprStore *s, OsiExpr e, OsiExprSameFn same, void *user);

/* Section - Size predicates (expr_cases.c) */

/* 1 when d >= 1, else 0, as an integer expression (Min(Max(d, 0), 1)):
 * how a comparison of sizes is carried as bool content (a > b is the
 * indicator of a - b, a >= b of a - b + 1). */
OsiExpr osi_expr_indicator(OsiExprStore *s, OsiExpr d);

/* What the simplifier proves about the sign of d at every binding (it drops
 * a Max/Min argument only on a sound bound): OSI_SIGN_* bits. */
enum { OSI_SIGN_GE0 = 1, OSI_SIGN_GE1 = 2, OSI_SIGN_LE0 = 4, OSI_SIGN_LEM1 = 8 };
int osi_expr_sign_facts(OsiExprStore *s, OsiExpr d);

typedef enum OsiCompare { OSI_CMP_EQ, OSI_CMP_LT, OSI_CMP_LE, OSI_CMP_GT, OSI_CMP_GE } OsiCompare;
/* a op b decided by the sign facts f of a - b: the constant 1 or 0, or
 * OSI_EXPR_UNKNOWN. (Float comparisons pass GE1/LEM1 for strictly
 * positive/negative, which is all these read them as.) */
OsiExpr osi_expr_compare_by_sign(OsiExprStore *s, OsiCompare op, int f);
/* a op b of integer sizes: 1 or 0 where the signs of a - b decide it,
 * otherwise its 0/1 indicator (a > b is [a - b >= 1], a >= b is
 * [a - b + 1 >= 1], a == b is 1 - Min(|a - b|, 1)): exact content an If
 * on it reasons with (osi_expr_equal_where). Unknown if either is. */
OsiExpr osi_expr_compare(OsiExprStore *s, OsiCompare op, OsiExpr a, OsiExpr b);
/* 1 when a == b is proven at every binding of the symbols (>= 0) where
 * pred >= 1 (holds = 1) or pred <= 0 (holds = 0); 0 when not proven.
 * pred is an integer expression, typically built by osi_expr_indicator,
 * 1 - (one of those) for Not. Only in the nonnegative-symbol mode, and not
 * for float expressions. */
int osi_expr_equal_where(OsiExprStore *s, OsiExpr pred, int holds, OsiExpr a, OsiExpr b);

/* Section - Upper bounds (expr_upper.c) */

/* For osi_expr_upper_bound: `symbol` itself to keep it (a graph-input
 * size), an upper bound of it, or OSI_EXPR_UNKNOWN when it has none. */
typedef OsiExpr (*OsiExprSymbolBound)(void *user, OsiExpr symbol);
/* An expression U with e <= U at every binding (symbols >= 0, each at most
 * its bound), made of kept symbols and the bounds; OSI_EXPR_UNKNOWN when
 * e is not monotone enough in the replaced symbols to tell (%, a symbolic
 * divisor, a factor that may be negative, floats). e itself when it has no
 * symbol to replace. */
OsiExpr osi_expr_upper_bound(OsiExprStore *s, OsiExpr e, OsiExprSymbolBound bound_of, void *user);

/* Leaf derivation helper: when a - b simplifies to c*x - c*y (exactly two
 * terms, each a single symbol, coefficients of equal magnitude and opposite
 * sign), sets *x and *y to those symbols and returns 1; otherwise 0. */
int osi_expr_leaf_equality(OsiExprStore *s, OsiExpr a, OsiExpr b, OsiExpr *x, OsiExpr *y);

/* Section - Sizes under ranges of their symbols (expr_facts.c)
 *
 * For what inference assumes from the model's requirements (infer/facts.c):
 * the ranges are the caller's, never the store's, so no canonical form
 * depends on them. */

/* The caller's range of a symbol (or of a compound expression it knows
 * bounds of): 1 with *lo and *hi set when it has one (INT64_MIN /
 * INT64_MAX for an open end), else 0. */
typedef int (*OsiExprSymbolRange)(void *user, OsiExpr symbol, int64_t *lo, int64_t *hi);
/* Intervals osi_expr_range found, by id, for a caller whose ranges stay
 * the same until it empties the memo (zeroes `id`): direct-mapped, cap a
 * power of two; both arrays the caller's. */
typedef struct OsiExprRangeMemo {
  uint32_t *id;
  int64_t (*iv)[2];
  uint32_t cap;
} OsiExprRangeMemo;
/* Bounds of integer e at every binding where each symbol is within its
 * range (and >= 0 under assume_nonneg): 1 with *lo, *hi set (INT64_MIN /
 * INT64_MAX: unbounded), 0 when nothing is known. memo may be NULL. */
int osi_expr_range(const OsiExprStore *s, OsiExpr e, OsiExprSymbolRange range_of, void *user,
                   OsiExprRangeMemo *memo, int64_t *lo, int64_t *hi);
/* 1 when integer e is >= 0 for every value (>= 0) of its symbols. */
int osi_expr_nonneg(const OsiExprStore *s, OsiExpr e);
/* How e moves with symbol x, the other symbols fixed (x >= 0, wherever e
 * is defined), from its structure: 1 never decreases, -1 never increases,
 * 0 does not depend on x, 2 not known. */
int osi_expr_direction(const OsiExprStore *s, OsiExpr e, OsiExpr x);
/* Node e rebuilt (re-simplified) from other arguments (args[i] in place of
 * its i-th), OSI_EXPR_UNKNOWN when that fails. */
OsiExpr osi_expr_rebuild(OsiExprStore *s, OsiExpr e, const OsiExpr *args);
/* The arguments of a node (0 for a constant or a symbol); an ADD node's
 * arguments are its monomials (coefficients apart). */
int osi_expr_arity(const OsiExprStore *s, OsiExpr e);
OsiExpr osi_expr_arg(const OsiExprStore *s, OsiExpr e, int i);
/* 1 when e is a Min or Max node (*is_max says which). */
int osi_expr_is_minmax(const OsiExprStore *s, OsiExpr e, int *is_max);
/* The relation a 0/1 size predicate (osi_expr_indicator, the content of a
 * comparison) stands for where it is 1 (holds) or 0: lhs <= rhs (*le = 1)
 * or lhs == rhs, read as a person writes it (T == 1, 400 <= time). 0 when
 * it is not one relation. */
int osi_expr_predicate_relation(OsiExprStore *s, OsiExpr pred, int holds, OsiExpr *lhs, OsiExpr *rhs, int *le);
/* 1 when a monomial of a (a term of a sum, or a itself) is one of b's with
 * a coefficient of the opposite sign (opposite) or the same sign: whether
 * a + b (a - b) may cancel something. */
int osi_expr_shares_term(const OsiExprStore *s, OsiExpr a, OsiExpr b, int opposite);
/* The counter osi_expr_fresh numbers symbols with, and setting it back: a
 * speculative run whose symbols are named apart (and never kept) leaves
 * the real run's numbering as it would have been. */
uint64_t osi_expr_fresh_mark(const OsiExprStore *s);
void osi_expr_fresh_rollback(OsiExprStore *s, uint64_t mark);

#endif
