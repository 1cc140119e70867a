/*
 * Constant folding, the arithmetic half (fold_internal.h): element
 * semantics per dtype, element-wise operators, Cast, Where, Clip, the
 * reductions and CumSum.
 *
 * Exactness, per dtype, as onnxruntime computes on CPU:
 *   - integers: exact; a constant result outside the dtype (overflow) is
 *     unknown rather than wrapped. Symbolic elements follow the integer
 *     expression rules (Div truncates toward zero, which is floor division
 *     only when the numerator is provably non-negative);
 *   - float32: the float32 expressions of expr_float.c (one rounding per
 *     operation, symbolic elements allowed);
 *   - double: constants, one double rounding per operation; float16 and
 *     bfloat16: constants computed in float32 and rounded to the dtype
 *     (how the runtime computes them);
 *   - Sqrt is correctly rounded; Pow only where its exact result is
 *     representable (any implementation with an error below one unit in
 *     the last place returns it); no transcendental function is folded;
 *   - sums and products of more than two floats, whose rounding depends on
 *     the runtime's order, only when every partial result is exact
 *     (integer-valued elements whose magnitudes sum, or multiply, below
 *     the dtype's largest exact integer).
 */
#include <math.h>
#include <string.h>

#include "ops/fold_internal.h"

/* Section - Dtypes */

static int int_range(int32_t dt, int64_t *lo, int64_t *hi) {
  switch (dt) {
  case OSI_DT_BOOL: *lo = 0, *hi = 1; return 1;
  case OSI_DT_INT8: *lo = INT8_MIN, *hi = INT8_MAX; return 1;
  case OSI_DT_UINT8: *lo = 0, *hi = UINT8_MAX; return 1;
  case OSI_DT_INT16: *lo = INT16_MIN, *hi = INT16_MAX; return 1;
  case OSI_DT_UINT16: *lo = 0, *hi = UINT16_MAX; return 1;
  case OSI_DT_INT32: *lo = INT32_MIN, *hi = INT32_MAX; return 1;
  case OSI_DT_UINT32: *lo = 0, *hi = UINT32_MAX; return 1;
  case OSI_DT_INT64: *lo = INT64_MIN, *hi = INT64_MAX; return 1;
  case OSI_DT_UINT64: *lo = 0, *hi = INT64_MAX; return 1; /* larger ones are not held */
  case OSI_DT_INT4: *lo = -8, *hi = 7; return 1;
  case OSI_DT_UINT4: *lo = 0, *hi = 15; return 1;
  case OSI_DT_INT2: *lo = -2, *hi = 1; return 1;
  case OSI_DT_UINT2: *lo = 0, *hi = 3; return 1;
  default: return 0;
  }
}

static int is_real(int32_t dt) {
  return dt == OSI_DT_FLOAT || dt == OSI_DT_DOUBLE || dt == OSI_DT_FLOAT16 || dt == OSI_DT_BFLOAT16;
}

int fold_dtype_ok(int32_t dt) {
  int64_t lo, hi;
  return is_real(dt) || int_range(dt, &lo, &hi);
}

OsiExpr fold_int(OsiExprStore *s, int32_t dt, OsiExpr v) {
  int64_t c, lo, hi;
  if (v == OSI_EXPR_UNKNOWN || osi_expr_is_float(s, v) || !int_range(dt, &lo, &hi)) return OSI_EXPR_UNKNOWN;
  if (osi_expr_is_const(s, v, &c) && (c < lo || c > hi)) return OSI_EXPR_UNKNOWN;
  return v;
}

/* float -> float16, round to nearest even (subnormals, overflow to inf). */
static double half_round(float x) {
  if (x != x || isinf(x)) return x;
  double a = fabs((double)x);
  if (a >= 65520.0) return copysign(INFINITY, x);
  int e;
  frexp(a, &e);
  int q = e - 11; /* the unit in the last place: 2^(e-1-10), at least 2^-24 */
  if (q < -24) q = -24;
  return copysign(ldexp(nearbyint(ldexp(a, -q)), q), x);
}

/* float -> bfloat16, round to nearest even. */
static double bf16_round(float x) {
  if (x != x) return x;
  uint32_t b;
  memcpy(&b, &x, sizeof b);
  b += 0x7fffu + ((b >> 16) & 1u);
  b &= 0xffff0000u;
  float r;
  memcpy(&r, &b, sizeof r);
  return r;
}

static double round_to(int32_t dt, double v) {
  switch (dt) {
  case OSI_DT_DOUBLE: return v;
  case OSI_DT_FLOAT16: return half_round((float)v);
  case OSI_DT_BFLOAT16: return bf16_round((float)v);
  default: return (float)v;
  }
}

OsiExpr fold_real(OsiExprStore *s, int32_t dt, double v) { return osi_expr_fconst(s, round_to(dt, v)); }

/* Largest integer every smaller one of which the dtype holds exactly. */
static double exact_int_limit(int32_t dt) {
  switch (dt) {
  case OSI_DT_DOUBLE: return 0x1p53;
  case OSI_DT_FLOAT16: return 2048;
  case OSI_DT_BFLOAT16: return 256;
  default: return 0x1p24;
  }
}

int fold_truth(OsiExprStore *s, OsiExpr a, int *truth) {
  int64_t c;
  double d;
  if (osi_expr_is_const(s, a, &c)) {
    *truth = c != 0;
    return 1;
  }
  if (osi_expr_is_fconst(s, a, &d)) {
    *truth = d != 0; /* NaN is true */
    return 1;
  }
  return 0;
}

static OsiExpr boolean(OsiExprStore *s, int v) { return osi_expr_const(s, v != 0); }

/* Section - Comparisons (osi_expr_compare) */

static OsiCompare compare_op(int op) {
  switch (op) {
  case FB_EQ: return OSI_CMP_EQ;
  case FB_LT: return OSI_CMP_LT;
  case FB_LE: return OSI_CMP_LE;
  case FB_GT: return OSI_CMP_GT;
  default: return OSI_CMP_GE;
  }
}

/* Section - Element operations */

static OsiExpr int_div(OsiExprStore *s, OsiExpr a, OsiExpr b) {
  int64_t ca, cb;
  if (osi_expr_is_const(s, a, &ca) && osi_expr_is_const(s, b, &cb)) {
    if (cb == 0 || (ca == INT64_MIN && cb == -1)) return OSI_EXPR_UNKNOWN;
    return osi_expr_const(s, ca / cb); /* C truncation, as the runtime */
  }
  /* Truncation is floor division for a non-negative numerator (Max(a, 0)
   * simplifies to a exactly then) over a positive constant. */
  if (osi_expr_is_const(s, b, &cb) && cb > 0 && osi_expr_max(s, a, osi_expr_const(s, 0)) == a)
    return osi_expr_floordiv(s, a, b);
  /* An exact quotient (a == q*b: RetinaNet's anchors per location HWA // HW
   * with HWA = 9*HW) is the same truncated or floored; b = 0 is undefined
   * either way. */
  OsiExpr q = osi_expr_floordiv(s, a, b);
  if (q != OSI_EXPR_UNKNOWN && osi_expr_mul(s, q, b) == a) return q;
  return OSI_EXPR_UNKNOWN;
}

static OsiExpr int_binary(OsiExprStore *s, int op, int32_t dt, OsiExpr a, OsiExpr b) {
  int64_t x, y, r, lo = 0, hi = 0;
  int kx = osi_expr_is_const(s, a, &x), ky = osi_expr_is_const(s, b, &y);
  int_range(dt, &lo, &hi);
  switch (op) {
  case FB_ADD: return fold_int(s, dt, osi_expr_add(s, a, b));
  case FB_SUB: return fold_int(s, dt, osi_expr_sub(s, a, b));
  case FB_MUL: return fold_int(s, dt, osi_expr_mul(s, a, b));
  case FB_MAX: return fold_int(s, dt, osi_expr_max(s, a, b));
  case FB_MIN: return fold_int(s, dt, osi_expr_min(s, a, b));
  case FB_DIV: return fold_int(s, dt, int_div(s, a, b));
  case FB_MOD: return fold_int(s, dt, osi_expr_mod(s, a, b)); /* sign of the divisor */
  case FB_FMOD: /* sign of the dividend: C's % */
    if (kx && ky) return y == 0 ? OSI_EXPR_UNKNOWN : y == -1 ? osi_expr_const(s, 0) : osi_expr_const(s, x % y);
    if (ky && y > 0 && osi_expr_max(s, a, osi_expr_const(s, 0)) == a) return osi_expr_mod(s, a, b);
    return OSI_EXPR_UNKNOWN;
  case FB_POW: /* the runtime goes through double pow: exact below 2^53 */
    if (!kx || !ky || y < 0) return kx && x == 1 ? osi_expr_const(s, 1) : OSI_EXPR_UNKNOWN;
    r = 1;
    for (int64_t i = 0; i < y && r != 0; i++)
      if (__builtin_mul_overflow(r, x, &r) || r > ((int64_t)1 << 53) || r < -((int64_t)1 << 53))
        return OSI_EXPR_UNKNOWN;
    return fold_int(s, dt, osi_expr_const(s, r));
  case FB_AND:
  case FB_OR:
  case FB_XOR:
    if (!kx || !ky) {
      /* false and x, true or x */
      if ((kx && op == FB_AND && !x) || (ky && op == FB_AND && !y)) return boolean(s, 0);
      if ((kx && op == FB_OR && x) || (ky && op == FB_OR && y)) return boolean(s, 1);
      return OSI_EXPR_UNKNOWN;
    }
    return boolean(s, op == FB_AND ? (x && y) : op == FB_OR ? (x || y) : (!x != !y));
  case FB_BITAND:
  case FB_BITOR:
  case FB_BITXOR:
    if (!kx || !ky) return OSI_EXPR_UNKNOWN;
    return fold_int(s, dt, osi_expr_const(s, op == FB_BITAND ? (x & y) : op == FB_BITOR ? (x | y) : (x ^ y)));
  case FB_SHL:
  case FB_SHR: {
    int bits = osi_dtype_size(dt) * 8;
    if (!kx || !ky || lo < 0 || y < 0 || y >= bits || x < 0) return OSI_EXPR_UNKNOWN;
    if (op == FB_SHR) return osi_expr_const(s, x >> y);
    if (y >= 63 || (x >> (63 - y)) != 0) return OSI_EXPR_UNKNOWN;
    return fold_int(s, dt, osi_expr_const(s, x << y));
  }
  default: { /* comparisons */
    return osi_expr_compare(s, compare_op(op), a, b);
  }
  }
}

/* Float comparison of symbolic elements from bounds of a - b (its float32
 * rounding keeps the sign of the exact difference). */
static OsiExpr float_compare(OsiExprStore *s, int op, OsiExpr a, OsiExpr b) {
  if (a == b) {
    double lo, hi;
    if (!osi_expr_float_bounds(s, a, &lo, &hi)) return OSI_EXPR_UNKNOWN; /* NaN != NaN */
    return osi_expr_compare_by_sign(s, compare_op(op), OSI_SIGN_GE0 | OSI_SIGN_LE0);
  }
  double lo, hi;
  OsiExpr d = osi_expr_fsub(s, a, b);
  if (d == OSI_EXPR_UNKNOWN || !osi_expr_float_bounds(s, d, &lo, &hi)) return OSI_EXPR_UNKNOWN;
  int f = (lo >= 0 ? OSI_SIGN_GE0 : 0) | (lo > 0 ? OSI_SIGN_GE1 : 0) | (hi <= 0 ? OSI_SIGN_LE0 : 0) |
          (hi < 0 ? OSI_SIGN_LEM1 : 0);
  /* For floats "> 0" is not ">= 1": GE1/LEM1 stand for strictly positive/negative here. */
  return osi_expr_compare_by_sign(s, compare_op(op), f);
}

/* x op y in float32 (no contraction: one statement per operation). */
static float f32_op(int op, float x, float y) {
  volatile float r;
  switch (op) {
  case FB_ADD: r = x + y; break;
  case FB_SUB: r = x - y; break;
  case FB_MUL: r = x * y; break;
  case FB_DIV: r = x / y; break;
  default: r = NAN; break;
  }
  return r;
}

/* An exactly representable power: x^y computed exactly when both are
 * integers and the result is an integer the dtype holds; 1 on success. */
static int exact_pow(int32_t dt, double x, double y, double *out) {
  if (y == 0) {
    *out = 1;
    return 1;
  }
  if (floor(x) != x || floor(y) != y || y < 0 || y > 64 || fabs(x) > 0x1p24) return 0;
  double r = 1;
  for (int i = 0; i < (int)y; i++) {
    r *= x;
    if (fabs(r) > exact_int_limit(dt)) return 0;
  }
  *out = r;
  return 1;
}

static OsiExpr real_binary(OsiExprStore *s, int op, int32_t dt, OsiExpr a, OsiExpr b) {
  double x, y;
  int kx = osi_expr_is_fconst(s, a, &x), ky = osi_expr_is_fconst(s, b, &y);
  if (op >= FB_EQ) { /* comparisons: exact in any precision */
    if (kx && ky) {
      int r = op == FB_EQ ? x == y : op == FB_LT ? x < y : op == FB_LE ? x <= y : op == FB_GT ? x > y : x >= y;
      return boolean(s, r);
    }
    return dt == OSI_DT_FLOAT ? float_compare(s, op, a, b) : OSI_EXPR_UNKNOWN;
  }
  if (dt == OSI_DT_FLOAT) {
    switch (op) {
    case FB_ADD: return osi_expr_fadd(s, a, b);
    case FB_SUB: return osi_expr_fsub(s, a, b);
    case FB_MUL: return osi_expr_fmul(s, a, b);
    case FB_DIV: return osi_expr_fdiv(s, a, b);
    case FB_MAX: return osi_expr_fmax(s, a, b);
    case FB_MIN: return osi_expr_fmin(s, a, b);
    default: break;
    }
  }
  if (!kx || !ky) return OSI_EXPR_UNKNOWN;
  double r;
  switch (op) {
  case FB_MAX: r = x != x || y != y ? NAN : x > y ? x : y; break;
  case FB_MIN: r = x != x || y != y ? NAN : x < y ? x : y; break;
  case FB_FMOD: r = fmod(x, y); break; /* exact */
  case FB_POW:
    if (!exact_pow(dt, x, y, &r)) return OSI_EXPR_UNKNOWN;
    break;
  case FB_ADD:
  case FB_SUB:
  case FB_MUL:
  case FB_DIV:
    if (dt == OSI_DT_DOUBLE) {
      volatile double t = op == FB_ADD ? x + y : op == FB_SUB ? x - y : op == FB_MUL ? x * y : x / y;
      r = t;
    } else {
      r = f32_op(op, (float)x, (float)y); /* float16/bfloat16 compute in float32 */
    }
    break;
  default: return OSI_EXPR_UNKNOWN;
  }
  return fold_real(s, dt, r);
}

OsiExpr fold_binary(OsiExprStore *s, int op, int32_t dt, OsiExpr a, OsiExpr b) {
  if (a == OSI_EXPR_UNKNOWN || b == OSI_EXPR_UNKNOWN) {
    /* false and x, true or x */
    int t;
    if (op == FB_AND && ((a && fold_truth(s, a, &t) && !t) || (b && fold_truth(s, b, &t) && !t))) return boolean(s, 0);
    if (op == FB_OR && ((a && fold_truth(s, a, &t) && t) || (b && fold_truth(s, b, &t) && t))) return boolean(s, 1);
    return OSI_EXPR_UNKNOWN;
  }
  if (is_real(dt)) return osi_expr_is_float(s, a) && osi_expr_is_float(s, b) ? real_binary(s, op, dt, a, b) : OSI_EXPR_UNKNOWN;
  if (osi_expr_is_float(s, a) || osi_expr_is_float(s, b)) return OSI_EXPR_UNKNOWN;
  return int_binary(s, op, dt, a, b);
}

OsiExpr fold_unary(OsiExprStore *s, int op, int32_t dt, OsiExpr a) {
  if (a == OSI_EXPR_UNKNOWN) return a;
  OsiExpr zero = osi_expr_const(s, 0);
  if (op == FU_IDENTITY) return a;
  if (!is_real(dt)) {
    int64_t c, lo, hi;
    int k = osi_expr_is_const(s, a, &c);
    int_range(dt, &lo, &hi);
    switch (op) {
    case FU_NEG: return fold_int(s, dt, osi_expr_neg(s, a));
    case FU_ABS: return fold_int(s, dt, k ? (c == INT64_MIN ? 0 : osi_expr_const(s, c < 0 ? -c : c))
                                          : osi_expr_max(s, a, osi_expr_neg(s, a)));
    case FU_RELU: return osi_expr_max(s, a, zero);
    case FU_SIGN: {
      int f = osi_expr_sign_facts(s, a);
      if (f & OSI_SIGN_GE1) return osi_expr_const(s, 1);
      if (f & OSI_SIGN_LEM1) return osi_expr_const(s, -1);
      if ((f & OSI_SIGN_GE0) && (f & OSI_SIGN_LE0)) return zero;
      return OSI_EXPR_UNKNOWN;
    }
    case FU_NOT: /* bool contents are 0 or 1 (constants, or a comparison's indicator) */
      return k ? boolean(s, !c) : dt == OSI_DT_BOOL ? osi_expr_sub(s, osi_expr_const(s, 1), a) : OSI_EXPR_UNKNOWN;
    case FU_BITNOT:
      if (!k) return OSI_EXPR_UNKNOWN;
      return fold_int(s, dt, osi_expr_const(s, lo < 0 ? ~c : hi - c));
    default: return OSI_EXPR_UNKNOWN; /* Floor, Sqrt, ... are float ops */
    }
  }
  double x;
  int k = osi_expr_is_fconst(s, a, &x);
  if (dt == OSI_DT_FLOAT && !k) {
    switch (op) {
    case FU_NEG: return osi_expr_fneg(s, a);
    case FU_ABS: return osi_expr_fmax(s, a, osi_expr_fneg(s, a));
    case FU_FLOOR: return osi_expr_ffloor(s, a);
    case FU_CEIL: return osi_expr_fceil(s, a);
    case FU_ROUND: return osi_expr_fround(s, a);
    case FU_RECIP: return osi_expr_fdiv(s, osi_expr_fconst(s, 1), a);
    case FU_RELU: return osi_expr_fmax(s, a, osi_expr_fconst(s, 0));
    default: return OSI_EXPR_UNKNOWN;
    }
  }
  if (!k) return OSI_EXPR_UNKNOWN;
  switch (op) {
  case FU_NEG: return osi_expr_fconst(s, -x);
  case FU_ABS: return osi_expr_fconst(s, fabs(x));
  case FU_FLOOR: return osi_expr_fconst(s, floor(x));
  case FU_CEIL: return osi_expr_fconst(s, ceil(x));
  case FU_ROUND: return osi_expr_fconst(s, nearbyint(x)); /* half to even */
  case FU_SQRT: return fold_real(s, dt, dt == OSI_DT_DOUBLE ? sqrt(x) : (double)sqrtf((float)x));
  case FU_RECIP:
    return fold_real(s, dt, dt == OSI_DT_DOUBLE ? 1.0 / x : (double)f32_op(FB_DIV, 1.0f, (float)x));
  case FU_RELU: return osi_expr_fconst(s, x > 0 ? x : 0);
  case FU_SIGN: return osi_expr_fconst(s, x > 0 ? 1 : x < 0 ? -1 : x == 0 ? 0 : x);
  case FU_ISNAN: return boolean(s, x != x);
  default: return OSI_EXPR_UNKNOWN;
  }
}

OsiExpr fold_cast(OsiExprStore *s, int32_t from, int32_t to, OsiExpr a) {
  if (a == OSI_EXPR_UNKNOWN || !fold_dtype_ok(from) || !fold_dtype_ok(to)) return OSI_EXPR_UNKNOWN;
  double x;
  int64_t c;
  if (!is_real(from)) {
    if (osi_expr_is_float(s, a)) return OSI_EXPR_UNKNOWN;
    int k = osi_expr_is_const(s, a, &c);
    if (to == OSI_DT_BOOL) {
      if (k) return boolean(s, c != 0);
      if (from == OSI_DT_BOOL) return a; /* 0 or 1 already */
      int f = osi_expr_sign_facts(s, a);
      if (f & (OSI_SIGN_GE1 | OSI_SIGN_LEM1)) return boolean(s, 1);
      return (f & OSI_SIGN_GE0) && (f & OSI_SIGN_LE0) ? boolean(s, 0) : OSI_EXPR_UNKNOWN;
    }
    if (!is_real(to)) return fold_int(s, to, a);
    if (to == OSI_DT_FLOAT) return osi_expr_to_float(s, a);
    return k ? fold_real(s, to, (double)c) : OSI_EXPR_UNKNOWN;
  }
  if (!osi_expr_is_float(s, a)) return OSI_EXPR_UNKNOWN;
  int k = osi_expr_is_fconst(s, a, &x);
  if (to == OSI_DT_BOOL) {
    if (k) return boolean(s, x != 0);
    double lo, hi;
    if (from != OSI_DT_FLOAT || !osi_expr_float_bounds(s, a, &lo, &hi)) return OSI_EXPR_UNKNOWN;
    return lo > 0 || hi < 0 ? boolean(s, 1) : lo == 0 && hi == 0 ? boolean(s, 0) : OSI_EXPR_UNKNOWN;
  }
  if (!is_real(to)) {
    if (from == OSI_DT_FLOAT && !k) return fold_int(s, to, osi_expr_ftoint(s, a));
    if (!k || !(x >= -0x1p63 && x < 0x1p63)) return OSI_EXPR_UNKNOWN; /* NaN, inf, beyond int64 */
    return fold_int(s, to, osi_expr_const(s, (int64_t)x));
  }
  if (to == from || (to == OSI_DT_FLOAT && from != OSI_DT_DOUBLE && !k)) return a; /* float16 -> float32 is exact */
  return k ? fold_real(s, to, x) : OSI_EXPR_UNKNOWN;
}

/* Section - Op folds */

/* Pow's exponent may have another dtype than the base: an integral
 * constant exponent as an element of the base's dtype. */
static OsiExpr pow_exponent(OsiExprStore *s, int32_t dt, OsiExpr y) {
  int64_t c;
  double d;
  if (is_real(dt) && osi_expr_is_const(s, y, &c) && c >= -(1 << 24) && c <= (1 << 24))
    return osi_expr_fconst(s, (double)c);
  if (!is_real(dt) && osi_expr_is_fconst(s, y, &d) && d == floor(d) && fabs(d) <= (1 << 24))
    return osi_expr_const(s, (int64_t)d);
  return y;
}

/* Inputs 0..n-1 broadcast into output 0, folded left to right. */
int fold_elementwise(Fold *f) {
  FoldTensor t;
  OsiExpr *out = fold_out(f, 0, &t);
  if (!out) return 0;
  int code = f->code;
  if (code == FB_MOD && osi_attr_int(f->ctx, "fmod", 0)) code = FB_FMOD;
  if (code == FB_SHL && strcmp(osi_attr_str(f->ctx, "direction", ""), "LEFT")) {
    if (strcmp(osi_attr_str(f->ctx, "direction", ""), "RIGHT")) return 0;
    code = FB_SHR;
  }
  int n = 0;
  int32_t dt = 0;
  for (int i = 0; i < f->n_in; i++) {
    if (!f->in[i].present) continue;
    if (!f->in[i].shaped || !f->in[i].e) return 0;
    if (!dt) dt = f->in[i].dtype;
    n++;
  }
  /* Comparisons give bool: the element type is the inputs'. */
  if (!n || !fold_dtype_ok(dt)) return 0;
  for (int64_t k = 0; k < t.count; k++) {
    OsiExpr acc = OSI_EXPR_UNKNOWN;
    int first = 1;
    for (int i = 0; i < f->n_in; i++) {
      const FoldTensor *x = &f->in[i];
      if (!x->present) continue;
      int64_t j = fold_broadcast_index(t.dims, t.rank, x->dims, x->rank, k);
      if (j < 0 || j >= x->count) return 0;
      OsiExpr v = code == FB_POW && !first ? pow_exponent(f->s, dt, x->e[j]) : x->e[j];
      acc = first ? v : fold_binary(f->s, code, dt, acc, v);
      first = 0;
    }
    out[k] = acc;
  }
  fold_publish(f, 0, &t, out);
  return 1;
}

int fold_unary_op(Fold *f) {
  FoldTensor t;
  const FoldTensor *x = &f->in[0];
  if (!x->present || !x->e || !fold_dtype_ok(x->dtype)) return 0;
  OsiExpr *out = fold_out(f, 0, &t);
  if (!out || t.count != x->count) return 0;
  int neg = 1, pos = 1;
  if (f->code == FU_ISINF) {
    neg = osi_attr_int(f->ctx, "detect_negative", 1) != 0;
    pos = osi_attr_int(f->ctx, "detect_positive", 1) != 0;
  }
  for (int64_t k = 0; k < t.count; k++) {
    double v;
    if (f->code == FU_ISINF)
      out[k] = osi_expr_is_fconst(f->s, x->e[k], &v) ? osi_expr_const(f->s, isinf(v) && (v > 0 ? pos : neg))
                                                     : OSI_EXPR_UNKNOWN;
    else
      out[k] = fold_unary(f->s, f->code, x->dtype, x->e[k]);
  }
  fold_publish(f, 0, &t, out);
  return 1;
}

int fold_cast_op(Fold *f) {
  FoldTensor t;
  const FoldTensor *x = &f->in[0];
  if (!x->present || !x->e) return 0;
  OsiExpr *out = fold_out(f, 0, &t);
  if (!out || t.count != x->count) return 0;
  for (int64_t k = 0; k < t.count; k++) out[k] = fold_cast(f->s, x->dtype, t.dtype, x->e[k]);
  fold_publish(f, 0, &t, out);
  return 1;
}

/* Where(cond, X, Y): an element of X or Y where the condition is known. */
int fold_where(Fold *f) {
  FoldTensor t;
  const FoldTensor *c = &f->in[0], *a = &f->in[1], *b = &f->in[2];
  if (!c->shaped || !c->e || !a->shaped || !b->shaped) return 0;
  OsiExpr *out = fold_out(f, 0, &t);
  if (!out) return 0;
  for (int64_t k = 0; k < t.count; k++) {
    int64_t i = fold_broadcast_index(t.dims, t.rank, c->dims, c->rank, k);
    int truth;
    if (i < 0 || i >= c->count) return 0;
    out[k] = OSI_EXPR_UNKNOWN;
    if (!fold_truth(f->s, c->e[i], &truth)) continue;
    const FoldTensor *pick = truth ? a : b;
    int64_t j = fold_broadcast_index(t.dims, t.rank, pick->dims, pick->rank, k);
    if (pick->e && j >= 0 && j < pick->count) out[k] = pick->e[j];
  }
  fold_publish(f, 0, &t, out);
  return 1;
}

/* Clip(x, min, max) (opset 11: inputs; before: attributes). */
int fold_clip(Fold *f) {
  FoldTensor t;
  const FoldTensor *x = &f->in[0];
  if (!x->present || !x->e || !fold_dtype_ok(x->dtype)) return 0;
  OsiExpr lo = OSI_EXPR_UNKNOWN, hi = OSI_EXPR_UNKNOWN;
  int has_lo, has_hi;
  if (osi_op_opset(f->ctx) < 11) {
    has_lo = osi_attr_has(f->ctx, "min"), has_hi = osi_attr_has(f->ctx, "max");
    if (has_lo) lo = fold_real(f->s, x->dtype, osi_attr_float(f->ctx, "min", 0));
    if (has_hi) hi = fold_real(f->s, x->dtype, osi_attr_float(f->ctx, "max", 0));
  } else {
    has_lo = f->n_in > 1 && f->in[1].present, has_hi = f->n_in > 2 && f->in[2].present;
    if ((has_lo && (!f->in[1].e || f->in[1].count != 1)) || (has_hi && (!f->in[2].e || f->in[2].count != 1)))
      return 0;
    if (has_lo) lo = f->in[1].e[0];
    if (has_hi) hi = f->in[2].e[0];
  }
  OsiExpr *out = fold_out(f, 0, &t);
  if (!out || t.count != x->count) return 0;
  for (int64_t k = 0; k < t.count; k++) {
    OsiExpr v = x->e[k];
    if (has_lo) v = fold_binary(f->s, FB_MAX, x->dtype, v, lo);
    if (has_hi) v = fold_binary(f->s, FB_MIN, x->dtype, v, hi);
    out[k] = v;
  }
  fold_publish(f, 0, &t, out);
  return 1;
}

/* Section - Reductions */

/* Axes of a Reduce node (attribute before `since`, input 1 from it on):
 * marks reduced[]; 0 when not known. */
static int reduce_axes(Fold *f, int64_t since, int rank, int *reduced) {
  int64_t axes[OSI_MAX_RANK];
  int n;
  memset(reduced, 0, (size_t)rank * sizeof(int));
  if (osi_op_opset(f->ctx) < since) {
    const int64_t *a;
    n = osi_attr_ints(f->ctx, "axes", &a);
    if (n > OSI_MAX_RANK) return 0;
    if (n > 0) memcpy(axes, a, (size_t)n * sizeof(int64_t));
  } else if (f->n_in > 1 && f->in[1].present) {
    n = osi_in_ints(f->ctx, 1, axes, OSI_MAX_RANK);
    if (n < 0) return 0;
  } else {
    n = 0;
  }
  if (n <= 0) {
    if (osi_op_opset(f->ctx) >= since && osi_attr_int(f->ctx, "noop_with_empty_axes", 0)) return 1;
    for (int i = 0; i < rank; i++) reduced[i] = 1;
    return 1;
  }
  for (int k = 0; k < n; k++) {
    int a;
    if (!osi_norm_axis(axes[k], rank, &a)) return 0;
    reduced[a] = 1;
  }
  return 1;
}

/* Output index of input element `flat` with reduced axes collapsed. */
static int64_t reduced_index(const FoldTensor *x, const int *reduced, int64_t flat) {
  int64_t out = 0, stride = 1;
  for (int i = x->rank - 1; i >= 0; i--) {
    int64_t c = flat % x->dims[i];
    flat /= x->dims[i];
    if (!reduced[i]) {
      out += c * stride;
      stride *= x->dims[i];
    }
  }
  return out;
}

/* 1 when summing (prod: multiplying) these float constants is exact in
 * any order: integer values whose magnitudes add (multiply) up below the
 * dtype's exact-integer limit. */
static int exact_in_any_order(OsiExprStore *s, int32_t dt, const OsiExpr *v, int64_t n, int prod) {
  double acc = prod ? 1 : 0, x;
  for (int64_t i = 0; i < n; i++) {
    if (!osi_expr_is_fconst(s, v[i], &x) || floor(x) != x || !isfinite(x)) return 0;
    acc = prod ? acc * fabs(x) : acc + fabs(x);
    if (acc > exact_int_limit(dt)) return 0;
  }
  return 1;
}

int fold_reduce(Fold *f) {
  const FoldTensor *x = &f->in[0];
  if (!x->shaped || !x->e || !fold_dtype_ok(x->dtype)) return 0;
  int reduced[OSI_MAX_RANK];
  if (!reduce_axes(f, !strcmp(osi_op_type(f->ctx), "ReduceSum") ? 13 : 18, x->rank, reduced)) return 0;
  FoldTensor t;
  OsiExpr *out = fold_out(f, 0, &t);
  if (!out) return 0;
  int64_t group = 1; /* elements per output element */
  for (int i = 0; i < x->rank; i++)
    if (reduced[i]) group *= x->dims[i];
  if (group * t.count != x->count) return 0;
  int real = is_real(x->dtype), mean = f->code < 0, op = mean ? FB_ADD : f->code;
  if (real && mean && group > 0 && (group & (group - 1))) return 0; /* sum * (1/n) exact only for 2^k */
  if (!real && mean) return 0;
  int64_t *fill = osi_arena_array(osi_op_arena(f->ctx), (size_t)(t.count ? t.count : 1), sizeof(int64_t));
  OsiExpr *gathered = osi_arena_array(osi_op_arena(f->ctx), (size_t)(x->count ? x->count : 1), sizeof(OsiExpr));
  if (!fill || !gathered) return 0;
  memset(fill, 0, (size_t)(t.count ? t.count : 1) * sizeof(int64_t));
  /* Group the inputs of each output element, in row-major order. */
  for (int64_t flat = 0; flat < x->count; flat++) {
    int64_t o = reduced_index(x, reduced, flat);
    gathered[o * group + fill[o]++] = x->e[flat];
  }
  for (int64_t k = 0; k < t.count; k++) {
    const OsiExpr *g = gathered + k * group;
    OsiExpr acc;
    if (group == 0) { /* empty: 0, 1; Max and Min have no value */
      acc = op == FB_ADD ? (real ? fold_real(f->s, x->dtype, 0) : osi_expr_const(f->s, 0))
            : op == FB_MUL ? (real ? fold_real(f->s, x->dtype, 1) : osi_expr_const(f->s, 1))
                           : OSI_EXPR_UNKNOWN;
    } else if (real && (op == FB_ADD || op == FB_MUL) && group > 2 &&
               !exact_in_any_order(f->s, x->dtype, g, group, op == FB_MUL)) {
      acc = OSI_EXPR_UNKNOWN; /* the runtime's summation order decides the rounding */
    } else {
      acc = g[0];
      for (int64_t i = 1; i < group; i++) acc = fold_binary(f->s, op, x->dtype, acc, g[i]);
    }
    if (mean && acc) acc = fold_binary(f->s, FB_MUL, x->dtype, acc, fold_real(f->s, x->dtype, 1.0 / (double)group));
    out[k] = acc;
  }
  fold_publish(f, 0, &t, out);
  return 1;
}

/* ArgMax / ArgMin over `axis` of constant elements (first index of the
 * extreme, the last with select_last_index). */
int fold_arg_reduce(Fold *f) {
  const FoldTensor *x = &f->in[0];
  if (!x->shaped || !x->e) return 0;
  int axis;
  if (!osi_norm_axis(osi_attr_int(f->ctx, "axis", 0), x->rank, &axis)) return 0;
  int last = osi_attr_int(f->ctx, "select_last_index", 0) != 0;
  FoldTensor t;
  OsiExpr *out = fold_out(f, 0, &t);
  if (!out) return 0;
  int64_t len = x->dims[axis], inner = 1;
  for (int i = axis + 1; i < x->rank; i++) inner *= x->dims[i];
  if (len == 0 || t.count * len != x->count) return 0;
  for (int64_t k = 0; k < t.count; k++) {
    int64_t outer = k / inner, in = k % inner, best = -1;
    double bv = 0;
    out[k] = OSI_EXPR_UNKNOWN;
    for (int64_t j = 0; j < len; j++) {
      OsiExpr e = x->e[(outer * len + j) * inner + in];
      double v;
      int64_t c;
      if (osi_expr_is_const(f->s, e, &c)) v = (double)c;
      else if (!osi_expr_is_fconst(f->s, e, &v) || v != v) {
        best = -2;
        break;
      }
      int better = f->code == FB_MAX ? (last ? v >= bv : v > bv) : (last ? v <= bv : v < bv);
      if (best < 0 || better) best = j, bv = v;
    }
    if (best >= 0) out[k] = osi_expr_const(f->s, best);
  }
  fold_publish(f, 0, &t, out);
  return 1;
}

/* CumSum(x, axis): running sums along axis (exclusive, reverse), computed
 * one addition after the other as the runtime does. */
int fold_cumsum(Fold *f) {
  const FoldTensor *x = &f->in[0];
  int64_t ax;
  int axis;
  if (!x->shaped || !x->e || !fold_dtype_ok(x->dtype) || osi_in_ints(f->ctx, 1, &ax, 1) != 1 ||
      !osi_norm_axis(ax, x->rank, &axis))
    return 0;
  int exclusive = osi_attr_int(f->ctx, "exclusive", 0) != 0, reverse = osi_attr_int(f->ctx, "reverse", 0) != 0;
  FoldTensor t;
  OsiExpr *out = fold_out(f, 0, &t);
  if (!out || t.count != x->count) return 0;
  int64_t len = x->dims[axis], inner = 1;
  for (int i = axis + 1; i < x->rank; i++) inner *= x->dims[i];
  int64_t lines = len ? x->count / len : 0;
  OsiExpr zero = is_real(x->dtype) ? fold_real(f->s, x->dtype, 0) : osi_expr_const(f->s, 0);
  for (int64_t line = 0; line < lines; line++) {
    int64_t outer = line / inner, in = line % inner;
    OsiExpr acc = OSI_EXPR_UNKNOWN;
    for (int64_t step = 0; step < len; step++) {
      int64_t at = (outer * len + (reverse ? len - 1 - step : step)) * inner + in;
      OsiExpr next = step == 0 ? x->e[at] : fold_binary(f->s, FB_ADD, x->dtype, acc, x->e[at]);
      out[at] = exclusive ? (step == 0 ? zero : acc) : next;
      acc = next;
    }
  }
  fold_publish(f, 0, &t, out);
  return 1;
}
