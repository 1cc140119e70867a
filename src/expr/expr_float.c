/*
 * Float32 expressions: constructors, their canonical forms and rewrites,
 * evaluation, and bounds (layout in expr_internal.h, API in expr.h).
 *
 * Semantics are onnxruntime's on CPU: every float32 operation is IEEE
 * round to nearest, ties to even (+ - * / are correctly rounded, so one
 * rounding of the exact result); an integer operand is converted with the
 * same rounding; Floor, Ceil and Round (half to even) are exact; Cast to an
 * integer truncates toward zero and is undefined for NaN, infinities and
 * values outside int64; Min and Max propagate NaN.
 *
 * Rewrites that hold for EVERY binding (where the original is defined):
 *   - constant folding in float32;
 *   - a + b and a * b operands sorted (IEEE + and * commute); Min/Max
 *     flattened, sorted, deduplicated, constants folded;
 *   - x * 1 -> x, x * -1 -> -x, x / 1 -> x, x + (-0.0) -> x, -(-x) -> x,
 *     -(c*x) -> (-c)*x, -(c/x) -> (-c)/x, -(x/c) -> x/(-c) (negation and
 *     rounding commute);
 *   - scaling by a power of two commutes with one rounding when nothing
 *     overflows or underflows: 2^k * (c*x) -> (2^k*c)*x, 2^k * (c/x) ->
 *     (2^k*c)/x, 2^k * (x/c) -> x/(c/2^k) for x = Float(n) and constants
 *     within [2^-60, 2^60] (|n| <= 2^63 keeps every result normal);
 *   - Min(Float(a), Float(b), c) -> Float(Min(a, b, c)) for integral c with
 *     |c| <= 2^24: rounding is monotone, so it commutes with min and max;
 *   - Floor/Ceil/Round(z) -> z when z is integer-valued (Float(n), a
 *     rounding, an integral constant, or a sum, product, negation, Min or
 *     Max of such: the float32 rounding of an integer is an integer, and
 *     NaN/infinities are kept), and Float(Trunc(z)) -> z;
 * The sign of a zero is not modelled: Float(Trunc(-0.0)) is 0 but the rewrite
 * gives -0, and onnxruntime's Min and Max of 0 and -0 depend on the operand
 * order, which the canonical order does not keep. It only shows through a
 * division by zero (+-inf).
 *   - Trunc of a float whose value is an integer expression y exactly
 *     (exact_int below, symbols unbounded) -> y.
 * Reductions that rely on the float domain (every symbol < 2^24, on by
 * default, osi_expr_store_set_float_domain): the same exact_int with
 * symbols bounded by 2^24 - 1, so that Float(n) == n whenever every value n
 * can take is within [-2^24, 2^24]:
 *   Float(n) -> n;  Floor(n/d) -> n//d and Ceil(n/d) -> CeilDiv(n, d) for an
 *   integer d in [1, 2^24] with |n| < 2^24 (the quotient rounds by less than
 *   its distance 1/d to the next integer: |n/d| * 2^-24 < 1/d); for d a
 *   power of two (or a product by 2^-k) any n (an exact division, and
 *   where n is defined it is a finite float); n*c with c integral when
 *   |n*c| <= 2^24, any n when c is a power of two; sums, Min, Max of exact
 *   parts when the result stays within [-2^24, 2^24]; Trunc(q) as Floor(q)
 *   when q >= 0 and as Ceil(q) when q <= 0; and a rounding that nothing
 *   above reduces is the integer atom Floor(z) (Ceil, Round) itself, equal
 *   to the float wherever that atom is defined.
 */
#include <math.h>
#include <string.h>

#include "expr/expr_internal.h"

#define F24 16777216.0 /* 2^24: float32 holds every integer up to it */

/* Section - Numbers */

static int64_t dbits(double v) {
  int64_t b;
  if (v != v) v = NAN; /* one NaN */
  memcpy(&b, &v, sizeof b);
  return b;
}

double expr_fconst_value(const OsiExprStore *s, OsiExpr e) {
  double v;
  int64_t b = s->nodes[e].val;
  memcpy(&v, &b, sizeof v);
  return v;
}

static int kind_of(const OsiExprStore *s, OsiExpr e) { return s->nodes[e].kind; }

static int is_fconst(const OsiExprStore *s, OsiExpr e, double *v) {
  if (kind_of(s, e) != EK_FCONST) return 0;
  if (v) *v = expr_fconst_value(s, e);
  return 1;
}

/* 1 when v is +-2^k for -60 <= k <= 60. */
static int pow2(double v) {
  int k;
  double m = frexp(fabs(v), &k);
  return m == 0.5 && k - 1 >= -60 && k - 1 <= 60;
}

static int moderate(double v) { return fabs(v) >= 0x1p-60 && fabs(v) <= 0x1p60; }

static int integral(double v) { return isfinite(v) && floor(v) == v; }

/* Round half to even, as ONNX Round (x/2 is exact). */
static float round_even(float x) {
  float r = roundf(x);
  if (fabsf(x - truncf(x)) == 0.5f) r = 2.0f * roundf(x / 2.0f);
  return r;
}

/* Min and Max as both evaluators (C and js/expr.js) compute them: NaN
 * wins, and -0 is below 0. */
static float min2(float x, float y) {
  if (x != x || y != y) return NAN;
  return x < y || (x == y && signbit(x)) ? x : y;
}
static float max2(float x, float y) {
  if (x != x || y != y) return NAN;
  return x > y || (x == y && signbit(y)) ? x : y;
}

/* Section - Store flag */

void osi_expr_store_set_float_domain(OsiExprStore *s, int on) {
  if (!s) return;
  s->float_domain = on != 0;
  expr_pair_memo_clear(&s->bcast_memo);
  expr_pair_memo_clear(&s->minmax_memo);
  expr_pair_memo_clear(&s->arith_memo);
  expr_ival_memo_clear(&s->ival_memo);
  expr_pair_memo_clear(&s->expansion_memo);
}

/* Section - Bounds
 *
 * Integer bounds with every symbol in [0 or -symhi, symhi] (saturating at
 * the int64 range, which stands for unbounded), and float bounds of the
 * float32 value (rounding is monotone, so rounding the bounds of the exact
 * result bounds the rounded result; NaN results are flagged separately). */

typedef struct {
  int64_t lo, hi;
} IIv;

typedef struct {
  double lo, hi;
  int nan; /* the value may be NaN */
} FIv;

/* A double bound as an int64 bound (the int64 ends stand for unbounded);
 * `upper` picks the safe side for NaN (inf - inf). */
static int64_t sat_bound(double v, int upper) {
  if (v != v) return upper ? INT64_MAX : INT64_MIN;
  if (v <= -9.2e18) return INT64_MIN;
  if (v >= 9.2e18) return INT64_MAX;
  return (int64_t)v;
}
#define sat_lo(v) sat_bound(v, 0)
#define sat_hi(v) sat_bound(v, 1)

static double wide(int64_t v) {
  return v == INT64_MIN ? -INFINITY : v == INT64_MAX ? INFINITY : (double)v;
}

static IIv ival(const OsiExprStore *s, OsiExpr e, int64_t symhi);
static FIv fival(const OsiExprStore *s, OsiExpr e, int64_t symhi);

/* Products of bounds where 0 * inf counts as 0 (the values near such a
 * corner approach 0, they do not reach infinity). */
static double corner_mul(double a, double b) { return a == 0 || b == 0 ? 0 : a * b; }

static IIv ival(const OsiExprStore *s, OsiExpr e, int64_t symhi) {
  const ExprNode *nd = &s->nodes[e];
  const OsiExpr *args = s->args + nd->off;
  IIv r = {INT64_MIN, INT64_MAX};
  switch (nd->kind) {
  case EK_CONST: r.lo = r.hi = nd->val; return r;
  case EK_SYM:
    r.hi = symhi;
    r.lo = s->assume_nonneg ? 0 : symhi == INT64_MAX ? INT64_MIN : -symhi;
    return r;
  case EK_ADD: {
    double lo = (double)nd->val, hi = (double)nd->val;
    for (uint32_t i = 0; i < nd->n; i++) {
      IIv t = ival(s, args[i], symhi);
      double k = (double)s->coefs[nd->off + i];
      double a = corner_mul(k, wide(t.lo)), b = corner_mul(k, wide(t.hi));
      lo += a < b ? a : b;
      hi += a < b ? b : a;
    }
    r.lo = sat_lo(lo), r.hi = sat_hi(hi);
    return r;
  }
  case EK_MUL: {
    IIv t = ival(s, args[0], symhi);
    double lo = wide(t.lo), hi = wide(t.hi);
    for (uint32_t i = 1; i < nd->n; i++) {
      IIv u = ival(s, args[i], symhi);
      double c[4] = {corner_mul(lo, wide(u.lo)), corner_mul(lo, wide(u.hi)),
                     corner_mul(hi, wide(u.lo)), corner_mul(hi, wide(u.hi))};
      lo = hi = c[0];
      for (int k = 1; k < 4; k++) {
        if (c[k] < lo) lo = c[k];
        if (c[k] > hi) hi = c[k];
      }
    }
    r.lo = sat_lo(lo), r.hi = sat_hi(hi);
    return r;
  }
  case EK_FLOORDIV:
  case EK_CEILDIV: {
    IIv a = ival(s, args[0], symhi), b = ival(s, args[1], symhi);
    if (b.lo < 1) return r; /* canonical divisors are positive; anything else: unknown */
    double d[2] = {wide(b.lo), wide(b.hi)};
    double lo = INFINITY, hi = -INFINITY;
    for (int i = 0; i < 2; i++) {
      double x = wide(i ? a.hi : a.lo);
      for (int j = 0; j < 2; j++) {
        double q = isinf(d[j]) ? 0 : x / d[j];
        q = nd->kind == EK_FLOORDIV ? floor(q) : ceil(q);
        if (q < lo) lo = q;
        if (q > hi) hi = q;
      }
    }
    r.lo = sat_lo(lo), r.hi = sat_hi(hi);
    return r;
  }
  case EK_MOD: {
    IIv b = ival(s, args[1], symhi);
    if (b.lo >= 1) r.lo = 0, r.hi = b.hi == INT64_MAX ? INT64_MAX : b.hi - 1;
    return r;
  }
  case EK_MAX:
  case EK_MIN:
  case EK_BROADCAST: {
    r = ival(s, args[0], symhi);
    for (uint32_t i = 1; i < nd->n; i++) {
      IIv a = ival(s, args[i], symhi);
      if (nd->kind == EK_MAX) {
        r.lo = a.lo > r.lo ? a.lo : r.lo;
        r.hi = a.hi > r.hi ? a.hi : r.hi;
      } else if (nd->kind == EK_MIN) {
        r.lo = a.lo < r.lo ? a.lo : r.lo;
        r.hi = a.hi < r.hi ? a.hi : r.hi;
      } else {
        r.lo = a.lo < r.lo ? a.lo : r.lo;
        r.hi = a.hi > r.hi ? a.hi : r.hi;
      }
    }
    return r;
  }
  case EK_FTOINT: {
    FIv f = fival(s, args[0], symhi);
    r.lo = sat_lo(trunc(f.lo));
    r.hi = sat_hi(trunc(f.hi));
    return r;
  }
  default: return r;
  }
}

static double f32(double v) { return (double)(float)v; }

static FIv fival(const OsiExprStore *s, OsiExpr e, int64_t symhi) {
  const ExprNode *nd = &s->nodes[e];
  const OsiExpr *args = s->args + nd->off;
  FIv r = {-INFINITY, INFINITY, 1};
  switch (nd->kind) {
  case EK_FCONST: {
    double v = expr_fconst_value(s, e);
    if (v == v) r.lo = r.hi = v, r.nan = 0;
    return r;
  }
  case EK_FCAST: {
    IIv t = ival(s, args[0], symhi);
    r.lo = f32(wide(t.lo));
    r.hi = f32(wide(t.hi));
    r.nan = 0;
    return r;
  }
  case EK_FNEG: {
    FIv a = fival(s, args[0], symhi);
    r.lo = -a.hi, r.hi = -a.lo, r.nan = a.nan;
    return r;
  }
  case EK_FADD: {
    FIv a = fival(s, args[0], symhi), b = fival(s, args[1], symhi);
    r.nan = a.nan || b.nan || (isinf(a.lo) && isinf(b.hi)) || (isinf(a.hi) && isinf(b.lo));
    r.lo = f32(a.lo + b.lo);
    r.hi = f32(a.hi + b.hi);
    if (r.lo != r.lo) r.lo = -INFINITY;
    if (r.hi != r.hi) r.hi = INFINITY;
    return r;
  }
  case EK_FMUL:
  case EK_FDIV: {
    FIv a = fival(s, args[0], symhi), b = fival(s, args[1], symhi);
    int mul = nd->kind == EK_FMUL;
    int zero_a = a.lo <= 0 && a.hi >= 0, zero_b = b.lo <= 0 && b.hi >= 0;
    int inf_a = isinf(a.lo) || isinf(a.hi), inf_b = isinf(b.lo) || isinf(b.hi);
    r.nan = a.nan || b.nan || (mul ? (zero_a && inf_b) || (inf_a && zero_b)
                                   : (zero_a && zero_b) || (inf_a && inf_b));
    double c[4];
    if (mul) {
      c[0] = corner_mul(a.lo, b.lo), c[1] = corner_mul(a.lo, b.hi);
      c[2] = corner_mul(a.hi, b.lo), c[3] = corner_mul(a.hi, b.hi);
    } else if (b.lo > 0 || b.hi < 0) {
      for (int k = 0; k < 4; k++) {
        double x = k < 2 ? a.lo : a.hi, y = k % 2 ? b.hi : b.lo;
        c[k] = isinf(x) && isinf(y) ? 0 : x / y;
      }
    } else if (b.lo == 0 && b.hi > 0 && a.lo >= 0) { /* x / (0, hi]: x / hi up to +inf */
      c[0] = c[1] = isinf(b.hi) ? 0 : a.lo / b.hi;
      c[2] = c[3] = INFINITY;
    } else if (b.lo == 0 && b.hi > 0 && a.hi <= 0) {
      c[0] = c[1] = isinf(b.hi) ? 0 : a.hi / b.hi;
      c[2] = c[3] = -INFINITY;
    } else {
      return r;
    }
    r.lo = r.hi = c[0];
    for (int k = 1; k < 4; k++) {
      if (c[k] < r.lo) r.lo = c[k];
      if (c[k] > r.hi) r.hi = c[k];
    }
    r.lo = f32(r.lo);
    r.hi = f32(r.hi);
    return r;
  }
  case EK_FMIN:
  case EK_FMAX:
    r = fival(s, args[0], symhi);
    for (uint32_t i = 1; i < nd->n; i++) {
      FIv a = fival(s, args[i], symhi);
      r.nan |= a.nan;
      if (nd->kind == EK_FMAX) {
        r.lo = a.lo > r.lo ? a.lo : r.lo;
        r.hi = a.hi > r.hi ? a.hi : r.hi;
      } else {
        r.lo = a.lo < r.lo ? a.lo : r.lo;
        r.hi = a.hi < r.hi ? a.hi : r.hi;
      }
    }
    return r;
  case EK_FFLOOR:
  case EK_FCEIL:
  case EK_FROUND: {
    FIv a = fival(s, args[0], symhi);
    r = a;
    r.lo = nd->kind == EK_FCEIL ? ceil(a.lo) : floor(a.lo);
    r.hi = nd->kind == EK_FFLOOR ? floor(a.hi) : ceil(a.hi);
    return r;
  }
  default: return r;
  }
}

int expr_ftoint_bounds(const OsiExprStore *s, OsiExpr e, int64_t *lo, int64_t *hi) {
  if (kind_of(s, e) != EK_FTOINT) return 0;
  IIv r = ival(s, e, INT64_MAX);
  *lo = r.lo;
  *hi = r.hi;
  return r.lo != INT64_MIN || r.hi != INT64_MAX;
}

/* Section - Exact integer values
 *
 * exact_int(e) is an integer expression equal to the value of float e at
 * every binding with symbols up to symhi (see the header comment), or
 * OSI_EXPR_UNKNOWN. `within(y, m)`: every value of y is within [-m, m]. */

static int within(const OsiExprStore *s, OsiExpr y, double m, int64_t symhi) {
  IIv r = ival(s, y, symhi);
  return y != OSI_EXPR_UNKNOWN && wide(r.lo) >= -m && wide(r.hi) <= m;
}

static OsiExpr exact_int(OsiExprStore *s, OsiExpr e, int64_t symhi);

/* Floor (dir -1), Ceil (+1) or Trunc (0) of n / d for exact integer n and
 * positive integer d, or UNKNOWN. `exact_div`: the float division was exact
 * (a power of two), so only the range of n matters. */
static OsiExpr round_quotient(OsiExprStore *s, OsiExpr n, int64_t d, int dir, int exact_div,
                              int64_t symhi) {
  if (n == OSI_EXPR_UNKNOWN || d < 1) return OSI_EXPR_UNKNOWN;
  /* A division by 2^k is exact for any finite float; by another integer
   * the quotient must round by less than 1/d. */
  if (!exact_div && !within(s, n, F24 - 1, symhi)) return OSI_EXPR_UNKNOWN;
  if (dir == 0) {
    IIv r = ival(s, n, symhi);
    if (r.lo >= 0) dir = -1;
    else if (r.hi <= 0) dir = 1;
    else return OSI_EXPR_UNKNOWN;
  }
  OsiExpr dc = osi_expr_const(s, d);
  return dir < 0 ? osi_expr_floordiv(s, n, dc) : osi_expr_ceildiv(s, n, dc);
}

/* Integer d when the float z is n / d or n * (1/d) with d = 2^k. */
static OsiExpr quotient_parts(OsiExprStore *s, OsiExpr z, int64_t *d, int *exact_div) {
  const ExprNode *nd = &s->nodes[z];
  double c;
  if (nd->kind == EK_FDIV && is_fconst(s, s->args[nd->off + 1], &c) && integral(c) && c >= 1 &&
      c <= F24) {
    *d = (int64_t)c;
    *exact_div = pow2(c);
    return s->args[nd->off];
  }
  if (nd->kind == EK_FMUL) {
    for (int i = 0; i < 2; i++) {
      OsiExpr k = s->args[nd->off + i];
      if (is_fconst(s, k, &c) && c > 0 && c < 1 && pow2(c)) {
        *d = (int64_t)(1.0 / c);
        *exact_div = 1;
        return s->args[nd->off + 1 - i];
      }
    }
  }
  return OSI_EXPR_UNKNOWN;
}

/* dir: -1 Floor, +1 Ceil, 0 Trunc, 2 Round. */
static OsiExpr exact_rounded(OsiExprStore *s, OsiExpr z, int dir, int64_t symhi) {
  OsiExpr y = exact_int(s, z, symhi);
  if (y != OSI_EXPR_UNKNOWN || dir == 2) return y;
  int64_t d;
  int exact_div;
  OsiExpr num = quotient_parts(s, z, &d, &exact_div);
  if (num == OSI_EXPR_UNKNOWN) return OSI_EXPR_UNKNOWN;
  return round_quotient(s, exact_int(s, num, symhi), d, dir, exact_div, symhi);
}

static OsiExpr exact_int(OsiExprStore *s, OsiExpr e, int64_t symhi) {
  /* Copies, not a node pointer: the constructors below may grow (move) s->nodes. */
  int kind = s->nodes[e].kind;
  uint32_t n = s->nodes[e].n, off = s->nodes[e].off;
  OsiExpr a0 = n ? s->args[off] : OSI_EXPR_UNKNOWN;
  OsiExpr a1 = n > 1 ? s->args[off + 1] : OSI_EXPR_UNKNOWN;
  double c;
  switch (kind) {
  case EK_FCONST:
    c = expr_fconst_value(s, e);
    return integral(c) && fabs(c) < 0x1p62 ? osi_expr_const(s, (int64_t)c) : OSI_EXPR_UNKNOWN;
  case EK_FCAST: return within(s, a0, F24, symhi) ? a0 : OSI_EXPR_UNKNOWN;
  case EK_FNEG: {
    OsiExpr y = exact_int(s, a0, symhi);
    return y ? osi_expr_neg(s, y) : OSI_EXPR_UNKNOWN;
  }
  case EK_FADD: {
    OsiExpr ya = exact_int(s, a0, symhi), yb = ya ? exact_int(s, a1, symhi) : OSI_EXPR_UNKNOWN;
    OsiExpr y = yb ? osi_expr_add(s, ya, yb) : OSI_EXPR_UNKNOWN;
    return within(s, y, F24, symhi) ? y : OSI_EXPR_UNKNOWN;
  }
  case EK_FMUL: {
    OsiExpr ya = exact_int(s, a0, symhi), yb = ya ? exact_int(s, a1, symhi) : OSI_EXPR_UNKNOWN;
    OsiExpr y = yb ? osi_expr_mul(s, ya, yb) : OSI_EXPR_UNKNOWN;
    if (y == OSI_EXPR_UNKNOWN) return y;
    /* A power-of-two factor scales any finite float without rounding (and
     * where y is defined, in int64, the float is finite). */
    int scaled = (is_fconst(s, a0, &c) && pow2(c)) || (is_fconst(s, a1, &c) && pow2(c));
    return scaled || within(s, y, F24, symhi) ? y : OSI_EXPR_UNKNOWN;
  }
  case EK_FMIN:
  case EK_FMAX: {
    OsiExpr acc = OSI_EXPR_UNKNOWN;
    for (uint32_t i = 0; i < n; i++) {
      OsiExpr y = exact_int(s, s->args[off + i], symhi);
      if (y == OSI_EXPR_UNKNOWN) return y;
      acc = i == 0 ? y : kind == EK_FMIN ? osi_expr_min(s, acc, y) : osi_expr_max(s, acc, y);
    }
    return acc;
  }
  case EK_FFLOOR:
  case EK_FCEIL:
  case EK_FROUND: {
    OsiExpr y = exact_rounded(s, a0, kind == EK_FFLOOR ? -1 : kind == EK_FCEIL ? 1 : 2, symhi);
    /* Otherwise the integer atom Floor(z) itself: its value is the float's
     * wherever it is defined (the float finite, within int64). */
    return y != OSI_EXPR_UNKNOWN ? y : expr_intern(s, EK_FTOINT, &e, 1, NULL, 0, NULL, 0);
  }
  default: return OSI_EXPR_UNKNOWN;
  }
}

/* Section - Constructors */

/* The rules; the public constructors below return their result through
 * expr_result (unknown once the work budget is out). */
static OsiExpr to_float_rule(OsiExprStore *s, OsiExpr a);
static OsiExpr fneg_rule(OsiExprStore *s, OsiExpr a);
static OsiExpr fadd_rule(OsiExprStore *s, OsiExpr a, OsiExpr b);
static OsiExpr fmul_rule(OsiExprStore *s, OsiExpr a, OsiExpr b);
static OsiExpr fdiv_rule(OsiExprStore *s, OsiExpr a, OsiExpr b);
static OsiExpr ftoint_rule(OsiExprStore *s, OsiExpr a);

static int ok_float(const OsiExprStore *s, OsiExpr a) {
  return s && a != OSI_EXPR_UNKNOWN && a < s->nnodes;
}

OsiExpr osi_expr_fconst(OsiExprStore *s, double v) {
  if (!s) return OSI_EXPR_UNKNOWN;
  return expr_intern(s, EK_FCONST, NULL, 0, NULL, dbits(v), NULL, 0);
}

static OsiExpr f32const(OsiExprStore *s, float v) { return osi_expr_fconst(s, (double)v); }

/* 1 when every value of float e is an integer, an infinity or NaN. */
static int int_valued(const OsiExprStore *s, OsiExpr e) {
  const ExprNode *nd = &s->nodes[e];
  double c;
  switch (nd->kind) {
  case EK_FCONST: c = expr_fconst_value(s, e); return !isfinite(c) || floor(c) == c;
  case EK_FCAST:
  case EK_FFLOOR:
  case EK_FCEIL:
  case EK_FROUND: return 1;
  case EK_FNEG:
  case EK_FADD:
  case EK_FMUL:
  case EK_FMIN:
  case EK_FMAX:
    for (uint32_t i = 0; i < nd->n; i++)
      if (!int_valued(s, s->args[nd->off + i])) return 0;
    return 1;
  default: return 0;
  }
}

/* A symbolic node may not hold a non-finite constant (it would print as no
 * literal); callers fold constants before reaching here. */
static OsiExpr intern_float(OsiExprStore *s, int kind, const OsiExpr *args, uint32_t n) {
  for (uint32_t i = 0; i < n; i++) {
    double c;
    if (is_fconst(s, args[i], &c) && !isfinite(c)) return OSI_EXPR_UNKNOWN;
  }
  return expr_intern(s, kind, args, n, NULL, 0, NULL, 0);
}

static OsiExpr to_float_rule(OsiExprStore *s, OsiExpr a) {
  if (!ok_float(s, a)) return OSI_EXPR_UNKNOWN;
  const ExprNode *nd = &s->nodes[a];
  if (expr_is_float_kind(nd->kind)) return a;
  if (nd->kind == EK_CONST) return f32const(s, (float)nd->val);
  /* Where Trunc(z) is defined, z is integral and below 2^63: float32(Trunc(z))
   * is z (up to the sign of a zero). */
  if (nd->kind == EK_FTOINT && int_valued(s, s->args[nd->off])) return s->args[nd->off];
  return expr_intern(s, EK_FCAST, &a, 1, NULL, 0, NULL, 0);
}

/* Both operands as float32 expressions; constants rounded to float32 (a
 * double content never enters a float32 operation unrounded). */
static int operands(OsiExprStore *s, OsiExpr *a, OsiExpr *b) {
  if (!ok_float(s, *a) || (b && !ok_float(s, *b))) return 0;
  OsiExpr *v[2] = {a, b};
  for (int i = 0; i < 2 && v[i]; i++) {
    double c;
    *v[i] = to_float_rule(s, *v[i]);
    if (*v[i] && is_fconst(s, *v[i], &c) && f32(c) != c && c == c) *v[i] = f32const(s, (float)c);
    if (!*v[i]) return 0;
  }
  return 1;
}

static OsiExpr commutative(OsiExprStore *s, int kind, OsiExpr a, OsiExpr b) {
  OsiExpr args[2] = {a, b};
  if (expr_cmp(s, a, b) > 0) args[0] = b, args[1] = a;
  return intern_float(s, kind, args, 2);
}

static OsiExpr fneg_rule(OsiExprStore *s, OsiExpr a) {
  if (!operands(s, &a, NULL)) return OSI_EXPR_UNKNOWN;
  const ExprNode *nd = &s->nodes[a];
  double c;
  if (is_fconst(s, a, &c)) return osi_expr_fconst(s, -c);
  OsiExpr x = nd->n ? s->args[nd->off] : OSI_EXPR_UNKNOWN, y = nd->n > 1 ? s->args[nd->off + 1] : 0;
  switch (nd->kind) {
  case EK_FNEG: return x;
  case EK_FMUL:
    if (is_fconst(s, x, &c)) return fmul_rule(s, osi_expr_fconst(s, -c), y);
    break;
  case EK_FDIV:
    if (is_fconst(s, x, &c)) return fdiv_rule(s, osi_expr_fconst(s, -c), y);
    if (is_fconst(s, y, &c)) return fdiv_rule(s, x, osi_expr_fconst(s, -c));
    break;
  default: break;
  }
  return intern_float(s, EK_FNEG, &a, 1);
}

static OsiExpr fadd_rule(OsiExprStore *s, OsiExpr a, OsiExpr b) {
  if (!operands(s, &a, &b)) return OSI_EXPR_UNKNOWN;
  double x, y;
  int ka = is_fconst(s, a, &x), kb = is_fconst(s, b, &y);
  if (ka && kb) return f32const(s, (float)x + (float)y);
  if ((ka && x != x) || (kb && y != y)) return osi_expr_fconst(s, NAN);
  /* x + (-0) is x for every x, -0 included (not so x + 0: -0 + 0 is 0). */
  if (kb && y == 0 && signbit(y)) return a;
  if (ka && x == 0 && signbit(x)) return b;
  return commutative(s, EK_FADD, a, b);
}

OsiExpr osi_expr_fsub(OsiExprStore *s, OsiExpr a, OsiExpr b) {
  if (!s) return OSI_EXPR_UNKNOWN;
  return expr_result(s, fadd_rule(s, a, fneg_rule(s, b))); /* a - b is a + (-b) exactly */
}

/* 2^k * e as one float32 node when e is c*Float(n), c/Float(n) or
 * Float(n)/c (see the header comment); UNKNOWN when no such form. */
static OsiExpr push_scale(OsiExprStore *s, double k, OsiExpr e) {
  const ExprNode *nd = &s->nodes[e];
  if ((nd->kind != EK_FMUL && nd->kind != EK_FDIV) || !pow2(k)) return OSI_EXPR_UNKNOWN;
  OsiExpr x = s->args[nd->off], y = s->args[nd->off + 1];
  double c;
  if (nd->kind == EK_FMUL && is_fconst(s, x, &c) && kind_of(s, y) == EK_FCAST && moderate(c) &&
      moderate(c * k))
    return fmul_rule(s, osi_expr_fconst(s, c * k), y);
  if (nd->kind == EK_FDIV && is_fconst(s, x, &c) && kind_of(s, y) == EK_FCAST && moderate(c) &&
      moderate(c * k))
    return fdiv_rule(s, osi_expr_fconst(s, c * k), y);
  if (nd->kind == EK_FDIV && is_fconst(s, y, &c) && kind_of(s, x) == EK_FCAST && moderate(c) &&
      moderate(c / k))
    return fdiv_rule(s, x, osi_expr_fconst(s, c / k));
  return OSI_EXPR_UNKNOWN;
}

static OsiExpr fmul_rule(OsiExprStore *s, OsiExpr a, OsiExpr b) {
  if (!operands(s, &a, &b)) return OSI_EXPR_UNKNOWN;
  double x, y;
  int ka = is_fconst(s, a, &x), kb = is_fconst(s, b, &y);
  if (ka && kb) return f32const(s, (float)x * (float)y);
  if ((ka && x != x) || (kb && y != y)) return osi_expr_fconst(s, NAN);
  if (kb) { /* the constant first */
    OsiExpr t = a;
    a = b, b = t, x = y, ka = 1;
  }
  if (ka && x == 1) return b;
  if (ka && x == -1) return fneg_rule(s, b);
  if (ka) {
    OsiExpr r = push_scale(s, x, b);
    if (r != OSI_EXPR_UNKNOWN) return r;
  }
  return commutative(s, EK_FMUL, a, b);
}

static OsiExpr fdiv_rule(OsiExprStore *s, OsiExpr a, OsiExpr b) {
  if (!operands(s, &a, &b)) return OSI_EXPR_UNKNOWN;
  double x, y;
  int ka = is_fconst(s, a, &x), kb = is_fconst(s, b, &y);
  if (ka && kb) return f32const(s, (float)x / (float)y);
  if ((ka && x != x) || (kb && y != y)) return osi_expr_fconst(s, NAN);
  if (kb && y == 1) return a;
  if (kb && y == -1) return fneg_rule(s, a);
  OsiExpr args[2] = {a, b};
  return intern_float(s, EK_FDIV, args, 2);
}

#define MINMAX_MAX 64

static int gather_minmax(const OsiExprStore *s, int kind, OsiExpr e, OsiExpr *buf, uint32_t *n) {
  const ExprNode *nd = &s->nodes[e];
  uint32_t cnt = nd->kind == kind ? nd->n : 1;
  if (*n + cnt > MINMAX_MAX) return 0;
  if (nd->kind == kind) memcpy(buf + *n, s->args + nd->off, cnt * sizeof *buf);
  else buf[*n] = e;
  *n += cnt;
  return 1;
}

static OsiExpr fminmax(OsiExprStore *s, int kind, OsiExpr a, OsiExpr b) {
  if (!operands(s, &a, &b)) return OSI_EXPR_UNKNOWN;
  OsiExpr v[2 * MINMAX_MAX];
  uint32_t n = 0, o = 0;
  if (!gather_minmax(s, kind, a, v, &n) || !gather_minmax(s, kind, b, v, &n)) return OSI_EXPR_UNKNOWN;
  int max = kind == EK_FMAX, have_c = 0;
  float best = 0;
  OsiExpr ints = OSI_EXPR_UNKNOWN; /* the integer Min/Max of the Float(n) operands */
  for (uint32_t i = 0; i < n; i++) {
    double c;
    if (is_fconst(s, v[i], &c)) {
      if (c != c) return osi_expr_fconst(s, NAN);
      best = !have_c ? (float)c : max ? max2(best, (float)c) : min2(best, (float)c);
      have_c = 1;
    } else if (kind_of(s, v[i]) == EK_FCAST) {
      OsiExpr x = s->args[s->nodes[v[i]].off];
      OsiExpr m = !ints ? x : max ? osi_expr_max(s, ints, x) : osi_expr_min(s, ints, x);
      if (m == OSI_EXPR_UNKNOWN) v[o++] = v[i]; /* too large to merge: keep apart */
      else ints = m;
    } else {
      v[o++] = v[i];
    }
  }
  /* A constant that float32 and int64 both hold exactly joins the integers. */
  if (have_c && ints && integral(best) && fabs(best) <= F24 && !(best == 0 && signbit(best))) {
    OsiExpr c = osi_expr_const(s, (int64_t)best);
    OsiExpr m = max ? osi_expr_max(s, ints, c) : osi_expr_min(s, ints, c);
    if (m) ints = m, have_c = 0;
  }
  if (ints) v[o++] = to_float_rule(s, ints);
  if (have_c) v[o++] = f32const(s, best);
  /* insertion sort + dedupe */
  for (uint32_t i = 1; i < o; i++) {
    OsiExpr x = v[i];
    uint32_t j = i;
    while (j > 0 && expr_cmp(s, v[j - 1], x) > 0) v[j] = v[j - 1], j--;
    v[j] = x;
  }
  n = 0;
  for (uint32_t i = 0; i < o; i++)
    if (n == 0 || v[n - 1] != v[i]) v[n++] = v[i];
  for (uint32_t i = 0; i < n; i++)
    if (!v[i]) return OSI_EXPR_UNKNOWN;
  if (n == 1) return v[0];
  return intern_float(s, kind, v, n);
}

OsiExpr osi_expr_fmin(OsiExprStore *s, OsiExpr a, OsiExpr b) {
  return s ? expr_result(s, fminmax(s, EK_FMIN, a, b)) : OSI_EXPR_UNKNOWN;
}
OsiExpr osi_expr_fmax(OsiExprStore *s, OsiExpr a, OsiExpr b) {
  return s ? expr_result(s, fminmax(s, EK_FMAX, a, b)) : OSI_EXPR_UNKNOWN;
}

static OsiExpr fround_kind(OsiExprStore *s, int kind, OsiExpr a) {
  if (!operands(s, &a, NULL)) return OSI_EXPR_UNKNOWN;
  double c;
  if (is_fconst(s, a, &c)) {
    float x = (float)c;
    return f32const(s, kind == EK_FFLOOR ? floorf(x) : kind == EK_FCEIL ? ceilf(x) : round_even(x));
  }
  if (int_valued(s, a)) return a;
  return intern_float(s, kind, &a, 1);
}

OsiExpr osi_expr_ffloor(OsiExprStore *s, OsiExpr a) {
  return s ? expr_result(s, fround_kind(s, EK_FFLOOR, a)) : OSI_EXPR_UNKNOWN;
}
OsiExpr osi_expr_fceil(OsiExprStore *s, OsiExpr a) {
  return s ? expr_result(s, fround_kind(s, EK_FCEIL, a)) : OSI_EXPR_UNKNOWN;
}
OsiExpr osi_expr_fround(OsiExprStore *s, OsiExpr a) {
  return s ? expr_result(s, fround_kind(s, EK_FROUND, a)) : OSI_EXPR_UNKNOWN;
}

static OsiExpr ftoint_rule(OsiExprStore *s, OsiExpr a) {
  if (!operands(s, &a, NULL)) return OSI_EXPR_UNKNOWN;
  double c;
  if (is_fconst(s, a, &c)) {
    /* float32 values in [-2^63, 2^63) truncate into int64; others are undefined */
    float x = (float)c;
    if (!(x >= -0x1p63f && x < 0x1p63f)) return OSI_EXPR_UNKNOWN;
    return osi_expr_const(s, (int64_t)x);
  }
  int k = kind_of(s, a);
  int dir = k == EK_FFLOOR ? -1 : k == EK_FCEIL ? 1 : k == EK_FROUND ? 2 : 0;
  OsiExpr z = dir ? s->args[s->nodes[a].off] : a;
  /* Symbols unbounded first (exact everywhere), then within the float domain. */
  OsiExpr y = exact_rounded(s, z, dir, INT64_MAX);
  if (y == OSI_EXPR_UNKNOWN && s->float_domain) y = exact_rounded(s, z, dir, (int64_t)F24 - 1);
  if (y != OSI_EXPR_UNKNOWN) return y;
  return expr_intern(s, EK_FTOINT, &a, 1, NULL, 0, NULL, 0);
}


OsiExpr osi_expr_to_float(OsiExprStore *s, OsiExpr a) {
  return s ? expr_result(s, to_float_rule(s, a)) : OSI_EXPR_UNKNOWN;
}
OsiExpr osi_expr_fneg(OsiExprStore *s, OsiExpr a) {
  return s ? expr_result(s, fneg_rule(s, a)) : OSI_EXPR_UNKNOWN;
}
OsiExpr osi_expr_fadd(OsiExprStore *s, OsiExpr a, OsiExpr b) {
  return s ? expr_result(s, fadd_rule(s, a, b)) : OSI_EXPR_UNKNOWN;
}
OsiExpr osi_expr_fmul(OsiExprStore *s, OsiExpr a, OsiExpr b) {
  return s ? expr_result(s, fmul_rule(s, a, b)) : OSI_EXPR_UNKNOWN;
}
OsiExpr osi_expr_fdiv(OsiExprStore *s, OsiExpr a, OsiExpr b) {
  return s ? expr_result(s, fdiv_rule(s, a, b)) : OSI_EXPR_UNKNOWN;
}
OsiExpr osi_expr_ftoint(OsiExprStore *s, OsiExpr a) {
  return s ? expr_result(s, ftoint_rule(s, a)) : OSI_EXPR_UNKNOWN;
}

/* Section - Queries and rebuilding */

int osi_expr_is_float(const OsiExprStore *s, OsiExpr e) {
  return s && e && e < s->nnodes && expr_is_float_kind(s->nodes[e].kind);
}

int osi_expr_is_fconst(const OsiExprStore *s, OsiExpr e, double *out) {
  return s && e && e < s->nnodes && is_fconst(s, e, out);
}

int osi_expr_float_bounds(const OsiExprStore *s, OsiExpr e, double *lo, double *hi) {
  if (!osi_expr_is_float(s, e)) return 0;
  FIv r = fival(s, e, INT64_MAX);
  *lo = r.lo;
  *hi = r.hi;
  return !r.nan;
}

OsiExpr expr_float_rebuild(OsiExprStore *s, OsiExpr e, const OsiExpr *args) {
  /* Copies, not a node pointer: every constructor below may grow (move) s->nodes. */
  int kind = s->nodes[e].kind;
  uint32_t n = s->nodes[e].n;
  OsiExpr acc;
  switch (kind) {
  case EK_FTOINT: return osi_expr_ftoint(s, args[0]);
  case EK_FCONST: return e;
  case EK_FCAST: return osi_expr_to_float(s, args[0]);
  case EK_FADD: return osi_expr_fadd(s, args[0], args[1]);
  case EK_FMUL: return osi_expr_fmul(s, args[0], args[1]);
  case EK_FDIV: return osi_expr_fdiv(s, args[0], args[1]);
  case EK_FNEG: return osi_expr_fneg(s, args[0]);
  case EK_FFLOOR: return osi_expr_ffloor(s, args[0]);
  case EK_FCEIL: return osi_expr_fceil(s, args[0]);
  case EK_FROUND: return osi_expr_fround(s, args[0]);
  case EK_FMIN:
  case EK_FMAX:
    acc = args[0];
    for (uint32_t i = 1; i < n && acc; i++)
      acc = kind == EK_FMIN ? osi_expr_fmin(s, acc, args[i]) : osi_expr_fmax(s, acc, args[i]);
    return acc;
  default: return OSI_EXPR_UNKNOWN;
  }
}

/* Section - Evaluation */

int expr_eval_float(const OsiExprStore *s, OsiExpr e, OsiExprLookup lookup, void *user, float *out) {
  const ExprNode *nd = &s->nodes[e];
  const OsiExpr *args = s->args + nd->off;
  float x, y = 0;
  int64_t v;
  switch (nd->kind) {
  case EK_FCONST: *out = (float)expr_fconst_value(s, e); return 0;
  case EK_FCAST:
    if (osi_expr_eval(s, args[0], lookup, user, &v)) return -1;
    *out = (float)v;
    return 0;
  case EK_FNEG:
    if (expr_eval_float(s, args[0], lookup, user, &x)) return -1;
    *out = -x;
    return 0;
  case EK_FADD:
  case EK_FMUL:
  case EK_FDIV:
    if (expr_eval_float(s, args[0], lookup, user, &x) || expr_eval_float(s, args[1], lookup, user, &y))
      return -1;
    /* One operation per statement: nothing may be contracted or kept wider. */
    if (nd->kind == EK_FADD) *out = x + y;
    else if (nd->kind == EK_FMUL) *out = x * y;
    else *out = x / y;
    return 0;
  case EK_FMIN:
  case EK_FMAX:
    for (uint32_t i = 0; i < nd->n; i++) {
      if (expr_eval_float(s, args[i], lookup, user, &x)) return -1;
      y = i == 0 ? x : nd->kind == EK_FMIN ? min2(y, x) : max2(y, x);
    }
    *out = y;
    return 0;
  case EK_FFLOOR:
  case EK_FCEIL:
  case EK_FROUND:
    if (expr_eval_float(s, args[0], lookup, user, &x)) return -1;
    *out = nd->kind == EK_FFLOOR ? floorf(x) : nd->kind == EK_FCEIL ? ceilf(x) : round_even(x);
    return 0;
  default:
    if (osi_expr_eval(s, e, lookup, user, &v)) return -1;
    *out = (float)v;
    return 0;
  }
}

int osi_expr_eval_float(const OsiExprStore *s, OsiExpr e, OsiExprLookup lookup, void *user,
                        float *out) {
  if (!s || !out || e == OSI_EXPR_UNKNOWN || e >= s->nnodes) return -1;
  return expr_eval_float(s, e, lookup, user, out);
}
