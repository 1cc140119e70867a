/*
 * Tensor-manipulation operators whose output shape follows from input
 * shapes and (possibly symbolic) attribute/input values: Pad, Tile, Split,
 * Range, OneHot, Trilu, EyeLike, DepthToSpace, SpaceToDepth, CenterCropPad,
 * ReverseSequence, CumSum, CumProd, BitCast, Det, Einsum. Pad, Tile, Split
 * and Range carry integer content, since exporters use them on shape
 * vectors. The data-dependent ones live in tensor_data_dependent.c.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "ops/helpers.h"

/* Known 1-D integer content of x whose length equals its constant dim. */
static const OsiExpr *value_1d(OsiOpCtx *ctx, const OsiType *x, int64_t *len) {
  if (!x || x->rank != 1 || !x->value || !x->value->ints) return NULL;
  if (!osi_expr_is_const(osi_op_exprs(ctx), x->dims[0], len) || *len != x->value->count) return NULL;
  return x->value->ints;
}

/* Value of a scalar (or one-element) integer-like input as an expression;
 * an integral float counts. OSI_EXPR_UNKNOWN when not known. */
static OsiExpr scalar_expr(OsiOpCtx *ctx, int i) {
  const OsiValue *v = osi_in_value(ctx, i);
  if (!v || v->count != 1) return OSI_EXPR_UNKNOWN;
  double f;
  if (v->ints) return v->ints[0];
  if (v->floats && osi_expr_is_fconst(osi_op_exprs(ctx), v->floats[0], &f) && f == floor(f) && fabs(f) < 9.0e15)
    return osi_expr_const(osi_op_exprs(ctx), (int64_t)f);
  return OSI_EXPR_UNKNOWN;
}

/* Section - Pad */

/* Pad amounts as expressions: attribute `paddings` (opset 1), `pads`
 * (2-10), input 1 (11+). -1 when unknown. */
static int pad_amounts(OsiOpCtx *ctx, OsiExpr *out) {
  OsiExprStore *s = osi_op_exprs(ctx);
  if (osi_op_opset(ctx) < 11) {
    const int64_t *a;
    int n = osi_attr_ints(ctx, osi_op_opset(ctx) < 2 ? "paddings" : "pads", &a);
    if (n < 0 || n > 2 * OSI_MAX_RANK) return -1;
    for (int i = 0; i < n; i++) out[i] = osi_expr_const(s, a[i]);
    return n;
  }
  const OsiExpr *e;
  int n = osi_in_exprs(ctx, 1, &e);
  if (n < 0 || n > 2 * OSI_MAX_RANK) return -1;
  memcpy(out, e, (size_t)n * sizeof(OsiExpr));
  return n;
}

/* Content of a padded 1-D integer vector (constant or edge mode, pads >= 0). */
static void pad_value_1d(OsiOpCtx *ctx, OsiType *y, const OsiType *x, OsiExpr b, OsiExpr e) {
  OsiExprStore *s = osi_op_exprs(ctx);
  int64_t len, pb, pe;
  const OsiExpr *xv = value_1d(ctx, x, &len);
  if (!xv || !osi_expr_is_const(s, b, &pb) || !osi_expr_is_const(s, e, &pe) || pb < 0 || pe < 0 ||
      len + pb + pe > OSI_MAX_VALUE_ELEMS)
    return;
  const char *mode = osi_attr_str(ctx, "mode", "constant");
  OsiExpr fill = osi_expr_const(s, 0);
  if (strcmp(mode, "constant") == 0) {
    if (osi_op_opset(ctx) < 11) {
      double f = osi_attr_float(ctx, "value", 0.0);
      if (f != floor(f) || fabs(f) > 9.0e15) return;
      fill = osi_expr_const(s, (int64_t)f);
    } else if (osi_in_present(ctx, 2)) {
      fill = scalar_expr(ctx, 2);
    }
  } else if (strcmp(mode, "edge") != 0 || len == 0) {
    return;
  }
  OsiExpr *out;
  OsiValue *v = osi_value_ints(osi_op_arena(ctx), len + pb + pe, &out);
  if (!v) return;
  for (int64_t i = 0; i < len + pb + pe; i++) {
    int64_t j = i - pb;
    if (j >= 0 && j < len) out[i] = xv[j];
    else if (strcmp(mode, "edge") == 0) out[i] = xv[j < 0 ? 0 : len - 1];
    else out[i] = fill;
  }
  y->value = v;
}

/*
 * Pad(data, pads, constant_value, axes): out[a] = in[a] + begin[a] + end[a]
 * with pads = [begins..., ends...] over `axes` (opset 18+, default all).
 * pads was attribute `paddings` (opset 1), `pads` (2-10), an input from 11.
 * Negative pads crop; the mode never changes the shape.
 */
OsiStatus osi_op_pad(OsiOpCtx *ctx) {
  OsiExprStore *s = osi_op_exprs(ctx);
  const OsiType *x = osi_in_ranked(ctx, 0);
  int32_t dtype = osi_in_dtype(ctx, 0);
  OsiExpr pads[2 * OSI_MAX_RANK];
  int64_t axes[OSI_MAX_RANK];
  int np = pad_amounts(ctx, pads), na = -2;
  if (osi_op_opset(ctx) >= 18 && osi_in_present(ctx, 3)) na = osi_in_ints(ctx, 3, axes, OSI_MAX_RANK);
  int rank = x ? x->rank : na == -2 && np >= 0 && np % 2 == 0 ? np / 2 : -1;
  /* pads has 2 entries per padded axis, known from its shape even when
   * its content comes at run time. */
  int plen = osi_op_opset(ctx) >= 11 ? osi_in_length(ctx, 1) : -1;
  int alen = na >= 0 ? na : osi_op_opset(ctx) >= 18 && osi_in_present(ctx, 3) ? osi_in_length(ctx, 3) : rank;
  if (np < 0 && plen >= 0 && alen >= 0 && plen != 2 * alen)
    return osi_op_fail(ctx, OSI_ERR_SHAPE_MISMATCH, "pads has %d entries, expected 2 * %d", plen, alen);
  OsiType *y = osi_out_tensor(ctx, 0, dtype, rank);
  if (!y || rank < 0) return OSI_OK;
  OsiExpr *d = osi_type_dims_mut(y);
  if (x) memcpy(d, x->dims, (size_t)rank * sizeof(OsiExpr));
  if (na == -1) {
    for (int i = 0; i < rank; i++) d[i] = OSI_EXPR_UNKNOWN;
    return OSI_OK;
  }
  if (na == -2) {
    na = rank;
    for (int i = 0; i < rank; i++) axes[i] = i;
  }
  if (np >= 0 && np != 2 * na)
    return osi_op_fail(ctx, OSI_ERR_INVALID_MODEL, "pads has %d entries, expected 2 * %d", np, na);
  int seen[OSI_MAX_RANK] = {0};
  const char *mode = osi_attr_str(ctx, "mode", "constant");
  int reflect = !strcmp(mode, "reflect"), edge = !strcmp(mode, "edge"), wrap = !strcmp(mode, "wrap");
  /* onnxruntime's wrap mode refuses an empty input, whatever the pads. */
  for (int i = 0; wrap && x && i < rank; i++) {
    int64_t c;
    if (osi_expr_is_const(s, x->dims[i], &c) && c == 0)
      return osi_op_fail(ctx, OSI_ERR_SHAPE_MISMATCH, "Pad: wrap mode takes a nonempty input (dim %d is 0)", i);
  }
  for (int k = 0; k < na; k++) {
    int a;
    if (!osi_norm_axis(axes[k], rank, &a) || seen[a]++)
      return osi_op_fail(ctx, OSI_ERR_INVALID_MODEL, "axes entry %lld is out of range for rank %d or repeated",
                         (long long)axes[k], rank);
    int64_t n, b, e;
    if ((reflect || edge || wrap) && np >= 0 && x && osi_expr_is_const(s, x->dims[a], &n) &&
        osi_expr_is_const(s, pads[k], &b) && osi_expr_is_const(s, pads[k + na], &e) && b > INT64_MIN / 2 &&
        e > INT64_MIN / 2) {
      /* What onnxruntime refuses in the modes that read the input: an
       * axis cropped to nothing; edge or reflect padding an empty axis;
       * reflect padding a (cropped) axis shorter than 2, or by more than
       * its length - 1 on a side. */
      int64_t eff = n + (b < 0 ? b : 0) + (e < 0 ? e : 0);
      int grows = b > 0 || e > 0;
      if (n > 0 && eff == 0 && (b < 0 || e < 0))
        return osi_op_fail(ctx, OSI_ERR_SHAPE_MISMATCH, "Pad (%s): the pads crop axis %d to nothing", mode, a);
      if ((reflect || edge) && grows && n == 0)
        return osi_op_fail(ctx, OSI_ERR_SHAPE_MISMATCH, "Pad (%s): axis %d is empty and cannot be padded", mode, a);
      if (reflect && grows && eff > 0 && (eff < 2 || b > eff - 1 || e > eff - 1))
        return osi_op_fail(ctx, OSI_ERR_SHAPE_MISMATCH,
                           "Pad (reflect): axis %d has %lld elements (after cropping); it reflects at most %lld on a side, the pads ask %lld",
                           a, (long long)eff, (long long)(eff - 1), (long long)(b > e ? b : e));
    } else if ((reflect || edge) && np >= 0 && x && !osi_expr_is_const(s, x->dims[a], &n) &&
               osi_expr_is_const(s, pads[k], &b) && osi_expr_is_const(s, pads[k + na], &e) && b >= 0 && e >= 0 &&
               (b > 0 || e > 0) && b < INT64_MAX && e < INT64_MAX) {
      /* The same on a symbolic axis, as a requirement: the model runs only
       * where reflect padding has more than its largest pad to reflect
       * (Silero's STFT frames, reflect-padded by 96 samples, need 97) and
       * edge padding an element to repeat. */
      char what[64];
      snprintf(what, sizeof what, reflect ? "the larger pad of axis %d plus 1" : "1 (an element of axis %d to repeat)", a);
      OsiStatus st = osi_op_require_le(ctx, reflect ? "Pad (reflect)" : "Pad (edge)",
                                       osi_expr_const(s, reflect ? (b > e ? b : e) + 1 : 1), OSI_WHAT(what), x->dims[a],
                                       OSI_DIM(0, a));
      if (st != OSI_OK) return st;
    }
    d[a] = np < 0 ? OSI_EXPR_UNKNOWN : osi_expr_add(s, osi_expr_add(s, d[a], pads[k]), pads[k + na]);
    /* Negative pads crop, at most the whole dim. */
    int64_t pb, pe, sum;
    if (np >= 0 && x && osi_expr_is_const(s, pads[k], &pb) && osi_expr_is_const(s, pads[k + na], &pe) &&
        !__builtin_add_overflow(pb, pe, &sum) && sum < 0 && sum > INT64_MIN) {
      char what[64];
      snprintf(what, sizeof what, "the pads' crop of axis %d", a);
      OsiStatus st = osi_op_require_le(ctx, "Pad", osi_expr_const(s, -sum), OSI_WHAT(what), x->dims[a], OSI_DIM(0, a));
      if (st != OSI_OK) return st;
    } else if (np >= 0 && x && osi_expr_is_const(s, pads[k], &pb) && osi_expr_is_const(s, pads[k + na], &pe) &&
               (__builtin_add_overflow(pb, pe, &sum) || sum == INT64_MIN)) {
      return osi_op_fail(ctx, OSI_ERR_INVALID_MODEL, "Pad: the pads of axis %d add up beyond int64", a);
    }
  }
  if (np >= 0 && rank == 1) pad_value_1d(ctx, y, x, pads[0], pads[1]);
  return OSI_OK;
}

/* Section - Tile */

/*
 * Tile(input, repeats) (opset 6+): out[i] = in[i] * repeats[i]. Opset 1
 * took scalar inputs `tiles` and `axis` and multiplied that one axis.
 * A tiled 1-D integer vector keeps its (repeated) content.
 */
OsiStatus osi_op_tile(OsiOpCtx *ctx) {
  OsiExprStore *s = osi_op_exprs(ctx);
  const OsiType *x = osi_in_ranked(ctx, 0);
  int32_t dtype = osi_in_dtype(ctx, 0);
  const OsiExpr *rep;
  int nr = osi_op_opset(ctx) < 6 ? -1 : osi_in_exprs(ctx, 1, &rep);
  const OsiType *rt = osi_in_ranked(ctx, 1);
  int64_t rlen = nr;
  if (nr < 0 && rt && rt->rank == 1 && osi_op_opset(ctx) >= 6) osi_expr_is_const(s, rt->dims[0], &rlen);
  int rank = x ? x->rank : rlen >= 0 && rlen <= OSI_MAX_RANK ? (int)rlen : -1;
  OsiType *y = osi_out_tensor(ctx, 0, dtype, rank);
  if (!y || rank < 0) return OSI_OK;
  OsiExpr *d = osi_type_dims_mut(y);
  for (int i = 0; i < rank; i++) d[i] = x ? x->dims[i] : OSI_EXPR_UNKNOWN;
  if (osi_op_opset(ctx) < 6) {
    OsiExpr tiles = scalar_expr(ctx, 1), axis_e = scalar_expr(ctx, 2);
    int64_t axis;
    int a;
    if (!osi_expr_is_const(s, axis_e, &axis) || !osi_norm_axis(axis, rank, &a)) {
      for (int i = 0; i < rank; i++) d[i] = OSI_EXPR_UNKNOWN;
      return OSI_OK;
    }
    OsiStatus st = osi_require_sizes(ctx, "the tiles input", 1, &tiles);
    if (st != OSI_OK) return st;
    d[a] = osi_expr_mul(s, d[a], tiles);
    return OSI_OK;
  }
  if (nr >= 0 && nr != rank)
    return osi_op_fail(ctx, OSI_ERR_INVALID_MODEL, "repeats has %d entries for rank %d", nr, rank);
  if (nr < 0 && rlen >= 0 && rlen != rank)
    return osi_op_fail(ctx, OSI_ERR_SHAPE_MISMATCH, "repeats has %lld entries for rank %d", (long long)rlen, rank);
  if (nr >= 0) {
    OsiStatus st = osi_require_sizes(ctx, "the repeats input", nr, rep);
    if (st != OSI_OK) return st;
  }
  for (int i = 0; i < rank; i++) {
    int64_t rc;
    /* Zero repeats empty the dim even when it is unknown. */
    d[i] = nr < 0 ? OSI_EXPR_UNKNOWN
           : osi_expr_is_const(s, rep[i], &rc) && rc == 0 ? rep[i] : osi_expr_mul(s, d[i], rep[i]);
  }
  int64_t len, times, total;
  const OsiExpr *xv = value_1d(ctx, x, &len);
  if (xv && nr == 1 && osi_expr_is_const(s, rep[0], &times) && times >= 0 &&
      !__builtin_mul_overflow(len, times, &total) && total <= OSI_MAX_VALUE_ELEMS) {
    OsiExpr *out;
    OsiValue *v = osi_value_ints(osi_op_arena(ctx), total, &out);
    if (!v) return OSI_OK;
    for (int64_t i = 0; i < total; i++) out[i] = xv[i % len];
    y->value = v;
  }
  return OSI_OK;
}

/* Section - Split */

/* Split sizes as expressions: attribute `split` (opset < 13; opset 1 also
 * accepted it as input 1), input 1 from 13. Returns the count (at most max
 * are stored), -2 when absent, -1 when unknown. */
static int split_sizes(OsiOpCtx *ctx, OsiExpr *out, int max) {
  OsiExprStore *s = osi_op_exprs(ctx);
  const int64_t *a;
  int n = osi_op_opset(ctx) < 13 ? osi_attr_ints(ctx, "split", &a) : -1;
  if (n >= 0) {
    for (int i = 0; i < n && i < max; i++) out[i] = osi_expr_const(s, a[i]);
    return n;
  }
  if ((osi_op_opset(ctx) >= 2 && osi_op_opset(ctx) < 13) || !osi_in_present(ctx, 1)) return -2;
  const OsiExpr *e;
  n = osi_in_exprs(ctx, 1, &e);
  if (n > 0) memcpy(out, e, (size_t)(n < max ? n : max) * sizeof(OsiExpr));
  return n;
}

/* Publishes output k with x's dims and `size` along axis; a split of a
 * known 1-D integer vector keeps its piece of the content (from *at). */
static void split_out(OsiOpCtx *ctx, int k, const OsiType *x, int axis, OsiExpr size, int64_t *at) {
  OsiType *y = osi_out_tensor(ctx, k, x->elem_type, x->rank);
  if (!y) return;
  OsiExpr *d = osi_type_dims_mut(y);
  memcpy(d, x->dims, (size_t)x->rank * sizeof(OsiExpr));
  d[axis] = size;
  int64_t len, c;
  const OsiExpr *xv = value_1d(ctx, x, &len);
  if (!xv || *at < 0 || !osi_expr_is_const(osi_op_exprs(ctx), size, &c) || c < 0 || *at + c > len) {
    *at = -1;
    return;
  }
  osi_set_value(ctx, y, c, xv + *at);
  *at += c;
}

/*
 * Split(input, split, axis): output k has size split[k] along axis. Without
 * sizes: `num_outputs` (opset 18) gives CeilDiv(D, n) to all but the last,
 * which gets the rest; otherwise D is split equally across the outputs.
 */
OsiStatus osi_op_split(OsiOpCtx *ctx) {
  OsiExprStore *s = osi_op_exprs(ctx);
  const OsiType *x = osi_in_ranked(ctx, 0);
  int n = osi_out_count(ctx);
  int64_t num = osi_op_opset(ctx) >= 18 ? osi_attr_int(ctx, "num_outputs", -1) : -1, c;
  if (num >= 0 && num != n)
    return osi_op_fail(ctx, OSI_ERR_INVALID_MODEL, "num_outputs is %lld but the node has %d outputs",
                       (long long)num, n);
  OsiExpr *sizes = osi_arena_array(osi_op_arena(ctx), (size_t)n + 1, sizeof(OsiExpr));
  if (!sizes) return OSI_ERR_NOMEM;
  int ns = split_sizes(ctx, sizes, n), axis;
  if (ns >= 0 && ns != n)
    return osi_op_fail(ctx, OSI_ERR_INVALID_MODEL, "split has %d entries for %d outputs", ns, n);
  int slen = ns == -1 ? osi_in_length(ctx, 1) : -1;
  if (slen >= 0 && slen != n)
    return osi_op_fail(ctx, OSI_ERR_SHAPE_MISMATCH, "split has %d entries for %d outputs", slen, n);
  if (!x) {
    for (int k = 0; k < n; k++) osi_out_tensor(ctx, k, osi_in_dtype(ctx, 0), -1);
    return OSI_OK;
  }
  if (!osi_norm_axis(osi_attr_int(ctx, "axis", 0), x->rank, &axis))
    return osi_op_fail(ctx, OSI_ERR_INVALID_MODEL,
                       "attribute 'axis' (%lld) is out of range [-%d, %d] for input rank %d",
                       (long long)osi_attr_int(ctx, "axis", 0), x->rank, x->rank - 1, x->rank);
  OsiExpr dim = x->dims[axis], nn = osi_expr_const(s, n);
  if (ns == -2 && num >= 0) {
    /* onnxruntime gives every piece but the last CeilDiv(D, n) and refuses
     * a last piece below 1 (7 into 4 is 2,2,2,1; 6 into 4 and 1 into 2 are
     * refused), where the spec only says the last one is smaller. */
    if (osi_expr_is_const(s, dim, &c) && n > 0) {
      int64_t chunk = c / n + (c % n != 0);
      if (c - chunk * (n - 1) < 1)
        return osi_op_fail(ctx, OSI_ERR_SHAPE_MISMATCH, "Split: %lld elements in %d pieces of %lld leave none for the last",
                           (long long)c, n, (long long)chunk);
    }
    OsiExpr chunk = osi_expr_ceildiv(s, dim, nn);
    for (int k = 0; k < n; k++) sizes[k] = chunk;
    sizes[n - 1] = osi_expr_sub(s, dim, osi_expr_mul(s, chunk, osi_expr_const(s, n - 1)));
  } else if (ns == -2) {
    if (osi_expr_is_const(s, dim, &c) && n > 0 && c % n != 0)
      return osi_op_fail(ctx, OSI_ERR_SHAPE_MISMATCH, "dim %lld does not split into %d equal parts",
                         (long long)c, n);
    for (int k = 0; k < n; k++) sizes[k] = osi_expr_floordiv(s, dim, nn);
  } else if (ns == -1) {
    for (int k = 0; k < n; k++) sizes[k] = OSI_EXPR_UNKNOWN;
  } else {
    OsiStatus st = osi_require_sizes(ctx, "the split sizes", n, sizes);
    if (st != OSI_OK) return st;
    OsiExpr sum = osi_expr_const(s, 0);
    int64_t b;
    __int128 total = 0;
    int all_const = 1;
    for (int k = 0; k < n; k++) {
      sum = osi_expr_add(s, sum, sizes[k]);
      all_const = all_const && osi_expr_is_const(s, sizes[k], &c);
      if (all_const) total += c;
    }
    if (all_const && osi_expr_is_const(s, dim, &b) && total != b)
      return osi_op_fail(ctx, OSI_ERR_SHAPE_MISMATCH, "Split: the sizes add up to %s%lld, but axis %d has %lld",
                         total > INT64_MAX ? "more than " : "", (long long)(total > INT64_MAX ? INT64_MAX : total), axis,
                         (long long)b);
    if ((st = osi_op_require_eq(ctx, "Split", sum, OSI_WHAT("the sum of the split sizes"), dim, OSI_DIM(0, axis))) != OSI_OK)
      return st;
  }
  int64_t at = 0;
  for (int k = 0; k < n; k++) split_out(ctx, k, x, axis, sizes[k], &at);
  return OSI_OK;
}

/* Section - Range */

/* Element count of a float range when every way an implementation may
 * compute ceil((limit - start) / delta) (in float or in double) agrees;
 * -1 otherwise. float16/bfloat16 only with small integral exact ranges. */
static int64_t float_range_len(int32_t dtype, double st, double lim, double dl) {
  double q = ceil((lim - st) / dl);
  if (dtype == OSI_DT_FLOAT16 || dtype == OSI_DT_BFLOAT16) {
    if (st != floor(st) || lim != floor(lim) || dl != floor(dl) || fabs(st) > 128 || fabs(lim) > 128 ||
        fabs(dl) > 128 || fmod(lim - st, dl) != 0)
      return -1;
  } else if (dtype == OSI_DT_FLOAT) {
    float diff = (float)lim - (float)st;
    if (q != (double)ceilf(diff / (float)dl) || q != ceil((double)diff / dl)) return -1;
  } else if (dtype != OSI_DT_DOUBLE) {
    return -1;
  }
  if (!(q < 9.0e15)) return -1;
  return q > 0 ? (int64_t)q : 0;
}

/*
 * Range(start, limit, delta): 1-D of Max(CeilDiv(limit - start, delta), 0)
 * elements; with a symbolic start/limit the formula needs a constant delta
 * (a negative delta counts down: CeilDiv(start - limit, -delta)).
 */
OsiStatus osi_op_range(OsiOpCtx *ctx) {
  OsiExprStore *s = osi_op_exprs(ctx);
  int32_t dtype = osi_in_dtype(ctx, 0);
  OsiType *y = osi_out_tensor(ctx, 0, dtype, 1);
  if (!y) return OSI_OK;
  const OsiValue *fv[3] = {osi_in_value(ctx, 0), osi_in_value(ctx, 1), osi_in_value(ctx, 2)};
  if (fv[0] && fv[1] && fv[2] && fv[0]->floats && fv[1]->floats && fv[2]->floats &&
      fv[0]->count == 1 && fv[1]->count == 1 && fv[2]->count == 1) {
    double v[3];
    int known = 1;
    for (int i = 0; i < 3; i++) known &= osi_expr_is_fconst(s, fv[i]->floats[0], &v[i]);
    if (osi_expr_is_fconst(s, fv[2]->floats[0], &v[2]) && v[2] == 0)
      return osi_op_fail(ctx, OSI_ERR_INVALID_MODEL, "input 'delta' is 0; expected a nonzero step");
    if (known) {
      int64_t n = float_range_len(dtype, v[0], v[1], v[2]);
      if (n >= 0) osi_type_dims_mut(y)[0] = osi_expr_const(s, n);
    } else if (dtype == OSI_DT_FLOAT && osi_expr_is_fconst(s, fv[2]->floats[0], &v[2]) && fabs(v[2]) == 1) {
      /* The runtime's count is ceil(double(limit - start) / delta), the
       * difference in float32; over a step of +-1 the double division is
       * exact, so the float32 form is too (arange over a float size). */
      OsiExpr q = osi_expr_fdiv(s, osi_expr_fsub(s, fv[1]->floats[0], fv[0]->floats[0]), fv[2]->floats[0]);
      osi_type_dims_mut(y)[0] = osi_expr_max(s, osi_expr_ftoint(s, osi_expr_fceil(s, q)), osi_expr_const(s, 0));
    }
    return OSI_OK;
  }
  OsiExpr start = scalar_expr(ctx, 0), limit = scalar_expr(ctx, 1), delta = scalar_expr(ctx, 2);
  int64_t dl, n;
  OsiExpr zero = osi_expr_const(s, 0);
  if (delta != OSI_EXPR_UNKNOWN && !osi_expr_is_const(s, delta, &dl) &&
      osi_expr_max(s, delta, zero) == delta) {
    /* A symbolic step that is never negative (a dim: EmbeddingBag's offsets
     * Range(0, B*S, S)) is positive wherever the model runs: 0 is an error. */
    OsiExpr len = osi_expr_max(s, osi_expr_ceildiv(s, osi_expr_sub(s, limit, start), delta), zero);
    osi_type_dims_mut(y)[0] = len;
    return OSI_OK;
  }
  if (!osi_expr_is_const(s, delta, &dl) || dl == INT64_MIN) return OSI_OK;
  if (dl == 0) return osi_op_fail(ctx, OSI_ERR_INVALID_MODEL, "input 'delta' is 0; expected a nonzero step");
  OsiExpr span = dl > 0 ? osi_expr_sub(s, limit, start) : osi_expr_sub(s, start, limit);
  OsiExpr len = osi_expr_max(s, osi_expr_ceildiv(s, span, osi_expr_const(s, dl > 0 ? dl : -dl)),
                             osi_expr_const(s, 0));
  osi_type_dims_mut(y)[0] = len;
  if (!osi_dtype_is_integer(dtype) || !osi_expr_is_const(s, len, &n) || n > OSI_MAX_VALUE_ELEMS)
    return OSI_OK;
  OsiExpr *out;
  OsiValue *v = osi_value_ints(osi_op_arena(ctx), n, &out);
  if (!v) return OSI_OK;
  for (int64_t i = 0, step; i < n; i++) {
    if (__builtin_mul_overflow(i, dl, &step)) return OSI_OK;
    out[i] = osi_expr_add(s, start, osi_expr_const(s, step));
  }
  y->value = v;
  return OSI_OK;
}

/* Section - OneHot */

/* OneHot(indices, depth, values, axis): indices' shape with `depth`
 * inserted at axis (in [-r-1, r]); element type of `values`. */
OsiStatus osi_op_one_hot(OsiOpCtx *ctx) {
  OsiExprStore *s = osi_op_exprs(ctx);
  const OsiType *idx = osi_in_ranked(ctx, 0);
  int32_t dtype = osi_in_dtype(ctx, 2);
  if (!idx) {
    osi_out_tensor(ctx, 0, dtype, -1);
    return OSI_OK;
  }
  int r = idx->rank + 1, axis;
  if (r > OSI_MAX_RANK)
    return osi_op_fail(ctx, OSI_ERR_LIMIT_EXCEEDED, "output rank %d is over the limit of %d", r, OSI_MAX_RANK);
  if (!osi_norm_axis(osi_attr_int(ctx, "axis", -1), r, &axis))
    return osi_op_fail(ctx, OSI_ERR_INVALID_MODEL,
                       "attribute 'axis' (%lld) is out of range [-%d, %d] for output rank %d",
                       (long long)osi_attr_int(ctx, "axis", -1), r, r - 1, r);
  OsiExpr depth = scalar_expr(ctx, 1);
  int64_t c;
  if (osi_expr_is_const(s, depth, &c) && c < 0)
    return osi_op_fail(ctx, OSI_ERR_INVALID_MODEL, "depth is %lld, expected a positive value", (long long)c);
  OsiType *y = osi_out_tensor(ctx, 0, dtype, r);
  if (!y) return OSI_OK;
  OsiExpr *d = osi_type_dims_mut(y);
  for (int i = 0, j = 0; i < r; i++) d[i] = i == axis ? depth : idx->dims[j++];
  return OSI_OK;
}

/* Section - Same-shape operators */

/* Trilu, ReverseSequence, CumSum, CumProd: output has the input's shape and
 * type (the extra inputs only select elements). */
OsiStatus osi_op_tensor_same_shape(OsiOpCtx *ctx) { return osi_out_same_as_input(ctx, 0, 0); }

/* ReverseSequence(input, sequence_lens): sequence_lens is [batch], the
 * batch being dim batch_axis (default 1); the output is like the input. */
OsiStatus osi_op_reverse_sequence(OsiOpCtx *ctx) {
  const OsiType *x = osi_in_ranked(ctx, 0);
  int64_t batch_axis = osi_attr_int(ctx, "batch_axis", 1), time_axis = osi_attr_int(ctx, "time_axis", 0);
  if (x && (x->rank < 2 || (batch_axis != 0 && batch_axis != 1) || (time_axis != 0 && time_axis != 1) ||
            batch_axis == time_axis))
    return osi_op_fail(ctx, OSI_ERR_INVALID_MODEL, "ReverseSequence needs rank >= 2 and batch_axis, time_axis one of 0, 1 each");
  OsiStatus st = osi_op_require_rank(ctx, 1, 1, 1);
  if (st == OSI_OK && x) st = osi_op_require_dims_eq(ctx, "ReverseSequence sequence_lens", 1, 0, 0, (int)batch_axis);
  if (st != OSI_OK) return st;
  return osi_out_same_as_input(ctx, 0, 0);
}

/* EyeLike(input): a 2-D tensor of the input's shape; element type from
 * `dtype`, else the input's. */
OsiStatus osi_op_eye_like(OsiOpCtx *ctx) {
  const OsiType *x = osi_in(ctx, 0);
  int32_t dtype = (int32_t)osi_attr_int(ctx, "dtype", osi_in_dtype(ctx, 0));
  if (x && x->kind == OSI_KIND_TENSOR && x->rank >= 0 && x->rank != 2)
    return osi_op_fail(ctx, OSI_ERR_INVALID_MODEL, "input has rank %d, expected 2", x->rank);
  if (x && x->kind == OSI_KIND_TENSOR && x->rank == 2) osi_out_like(ctx, 0, dtype, x);
  else osi_out_tensor(ctx, 0, dtype, 2);
  return OSI_OK;
}

/* Bits per element, 0 when unknown or variable (string). */
static int dtype_bits(int32_t dt) {
  switch (dt) {
  case OSI_DT_UINT2: case OSI_DT_INT2: return 2;
  case OSI_DT_UINT4: case OSI_DT_INT4: case OSI_DT_FLOAT4E2M1: return 4;
  case OSI_DT_STRING: case OSI_DT_UNDEFINED: return 0;
  default: return 8 * osi_dtype_size(dt);
  }
}

/* BitCast(input, to) (opset 26): same shape; the target type must have the
 * input type's bit width (the spec has no resizing of the last dim). */
OsiStatus osi_op_bit_cast(OsiOpCtx *ctx) {
  if (!osi_attr_has(ctx, "to")) return osi_op_fail(ctx, OSI_ERR_INVALID_MODEL, "attribute 'to' is required");
  int32_t to = (int32_t)osi_attr_int(ctx, "to", 0), from = osi_in_dtype(ctx, 0);
  if (to == OSI_DT_STRING || from == OSI_DT_STRING)
    return osi_op_fail(ctx, OSI_ERR_INVALID_MODEL, "BitCast does not accept string tensors");
  if (from && dtype_bits(from) && dtype_bits(to) && dtype_bits(from) != dtype_bits(to))
    return osi_op_fail(ctx, OSI_ERR_INVALID_MODEL, "'to' type %s has %d bits, the input type %s has %d",
                       osi_dtype_name(to) ? osi_dtype_name(to) : "?", dtype_bits(to),
                       osi_dtype_name(from) ? osi_dtype_name(from) : "?", dtype_bits(from));
  osi_out_like(ctx, 0, to, osi_in(ctx, 0));
  return OSI_OK;
}

/* Section - Block rearrangement */

/* Block size of DepthToSpace / SpaceToDepth, and the rank-4 input. */
static OsiStatus block_input(OsiOpCtx *ctx, const OsiType **x, int64_t *b) {
  *b = osi_attr_int(ctx, "blocksize", 0);
  if (*b <= 0 || *b > (1 << 20))
    return osi_op_fail(ctx, OSI_ERR_INVALID_MODEL, "blocksize %lld is not a positive size", (long long)*b);
  *x = osi_in_ranked(ctx, 0);
  if (*x && (*x)->rank != 4)
    return osi_op_fail(ctx, OSI_ERR_INVALID_MODEL, "input has rank %d, expected 4", (*x)->rank);
  if (!*x) osi_out_tensor(ctx, 0, osi_in_dtype(ctx, 0), 4);
  return OSI_OK;
}

/* DepthToSpace(input [N,C,H,W], blocksize b): [N, C/(b*b), H*b, W*b] for
 * both DCR and CRD modes; C must be a multiple of b*b. */
OsiStatus osi_op_depth_to_space(OsiOpCtx *ctx) {
  OsiExprStore *s = osi_op_exprs(ctx);
  const OsiType *x;
  int64_t b, c;
  OsiStatus st = block_input(ctx, &x, &b);
  if (st != OSI_OK || !x) return st;
  if (osi_expr_is_const(s, x->dims[1], &c) && c % (b * b) != 0)
    return osi_op_fail(ctx, OSI_ERR_SHAPE_MISMATCH, "channels %lld are not a multiple of blocksize^2 %lld",
                       (long long)c, (long long)(b * b));
  OsiType *y = osi_out_tensor(ctx, 0, x->elem_type, 4);
  if (!y) return OSI_OK;
  OsiExpr *d = osi_type_dims_mut(y), be = osi_expr_const(s, b);
  d[0] = x->dims[0];
  d[1] = osi_expr_floordiv(s, x->dims[1], osi_expr_const(s, b * b));
  d[2] = osi_expr_mul(s, x->dims[2], be);
  d[3] = osi_expr_mul(s, x->dims[3], be);
  return OSI_OK;
}

/* SpaceToDepth(input [N,C,H,W], blocksize b): [N, C*b*b, H/b, W/b]; H and
 * W must be multiples of b. */
OsiStatus osi_op_space_to_depth(OsiOpCtx *ctx) {
  OsiExprStore *s = osi_op_exprs(ctx);
  const OsiType *x;
  int64_t b, c;
  OsiStatus st = block_input(ctx, &x, &b);
  if (st != OSI_OK || !x) return st;
  for (int i = 2; i < 4; i++)
    if (osi_expr_is_const(s, x->dims[i], &c) && c % b != 0)
      return osi_op_fail(ctx, OSI_ERR_SHAPE_MISMATCH, "dim %d (%lld) is not a multiple of blocksize %lld",
                         i, (long long)c, (long long)b);
  OsiType *y = osi_out_tensor(ctx, 0, x->elem_type, 4);
  if (!y) return OSI_OK;
  OsiExpr *d = osi_type_dims_mut(y), be = osi_expr_const(s, b);
  d[0] = x->dims[0];
  d[1] = osi_expr_mul(s, x->dims[1], osi_expr_const(s, b * b));
  d[2] = osi_expr_floordiv(s, x->dims[2], be);
  d[3] = osi_expr_floordiv(s, x->dims[3], be);
  return OSI_OK;
}

/* CenterCropPad(input, shape, axes): dims at `axes` (default all) become the
 * entries of `shape`; the others are unchanged. */
OsiStatus osi_op_center_crop_pad(OsiOpCtx *ctx) {
  const OsiType *x = osi_in_ranked(ctx, 0);
  int32_t dtype = osi_in_dtype(ctx, 0);
  const OsiExpr *shape;
  int n = osi_in_exprs(ctx, 1, &shape);
  const int64_t *axes;
  int na = osi_attr_ints(ctx, "axes", &axes);
  int rank = x ? x->rank : na < 0 ? n : -1;
  OsiType *y = osi_out_tensor(ctx, 0, dtype, rank > OSI_MAX_RANK ? -1 : rank);
  if (!y || rank < 0 || rank > OSI_MAX_RANK) return OSI_OK;
  OsiExpr *d = osi_type_dims_mut(y);
  if (x) memcpy(d, x->dims, (size_t)rank * sizeof(OsiExpr));
  int count = na < 0 ? rank : na, slen = osi_in_length(ctx, 1);
  /* onnxruntime runs the op's function body, which broadcasts a single
   * entry over the axes (its load-time inference refuses that only for a
   * constant shape, which a computed one may not be to it). */
  if (slen >= 0 && slen != count && slen != 1)
    return osi_op_fail(ctx, OSI_ERR_SHAPE_MISMATCH, "shape has %d entries for %d axes", slen, count);
  if (n >= 0) {
    OsiStatus st = osi_require_sizes(ctx, "the shape input", n, shape);
    if (st != OSI_OK) return st;
  }
  for (int k = 0; k < count; k++) {
    int a = k;
    if (na >= 0 && !osi_norm_axis(axes[k], rank, &a))
      return osi_op_fail(ctx, OSI_ERR_INVALID_MODEL, "axes entry %lld is out of range for rank %d",
                         (long long)axes[k], rank);
    d[a] = n < 0 ? OSI_EXPR_UNKNOWN : shape[n == 1 ? 0 : k];
  }
  return OSI_OK;
}

/* Det(X [..., M, M]): one determinant per matrix, shape [...]. */
OsiStatus osi_op_det(OsiOpCtx *ctx) {
  OsiExprStore *s = osi_op_exprs(ctx);
  const OsiType *x = osi_in_ranked(ctx, 0);
  int32_t dtype = osi_in_dtype(ctx, 0);
  if (!x) {
    osi_out_tensor(ctx, 0, dtype, -1);
    return OSI_OK;
  }
  if (x->rank < 2) return osi_op_fail(ctx, OSI_ERR_INVALID_MODEL, "input has rank %d, expected >= 2", x->rank);
  int64_t m, n;
  if (osi_expr_is_const(s, x->dims[x->rank - 1], &m) && osi_expr_is_const(s, x->dims[x->rank - 2], &n) &&
      m != n)
    return osi_op_fail(ctx, OSI_ERR_SHAPE_MISMATCH, "matrices are %lldx%lld, expected square",
                       (long long)n, (long long)m);
  OsiType *y = osi_out_tensor(ctx, 0, dtype, x->rank - 2);
  if (y && x->rank > 2) memcpy(osi_type_dims_mut(y), x->dims, (size_t)(x->rank - 2) * sizeof(OsiExpr));
  return OSI_OK;
}

/* Section - Einsum */

/* One operand (or the output) of an Einsum equation: its letters in order
 * and where the ellipsis sits among them (-1: none). */
typedef struct EinsumTerm {
  char labels[OSI_MAX_RANK];
  int n, ell;
} EinsumTerm;

/* Parses letters and at most one "..." from text[0..len); spaces ignored. */
static int einsum_term(const char *text, size_t len, EinsumTerm *t) {
  t->n = 0;
  t->ell = -1;
  for (size_t i = 0; i < len; i++) {
    char c = text[i];
    if (c == ' ') continue;
    if (c == '.' && i + 2 < len && text[i + 1] == '.' && text[i + 2] == '.' && t->ell < 0) {
      t->ell = t->n;
      i += 2;
    } else if (((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) && t->n < OSI_MAX_RANK) {
      t->labels[t->n++] = c;
    } else {
      return 0;
    }
  }
  return 1;
}

/* Accumulated facts about the operands: each letter's (broadcast) dim and
 * number of occurrences, and the broadcast ellipsis dims. */
typedef struct EinsumDims {
  OsiExpr letter[128];
  int count[128];
  int ell_rank; /* -1 unknown */
  OsiExpr ell[OSI_MAX_RANK];
} EinsumDims;

/* Folds operand i (term t) into e; letters repeated across operands must
 * agree up to numpy broadcasting, within one operand (a diagonal) exactly:
 * onnxruntime takes no 1 for the other dim there. */
static OsiStatus einsum_operand(OsiOpCtx *ctx, int i, const EinsumTerm *t, EinsumDims *e) {
  OsiExprStore *s = osi_op_exprs(ctx);
  const OsiType *x = osi_in_ranked(ctx, i);
  int er = 0;
  if (x) {
    er = x->rank - t->n;
    if ((t->ell < 0 && er != 0) || er < 0)
      return osi_op_fail(ctx, OSI_ERR_INVALID_MODEL, "operand %d has rank %d, the equation gives it %d letters",
                         i, x->rank, t->n);
    if (er > e->ell_rank && e->ell_rank >= 0) {
      for (int k = OSI_MAX_RANK - 1; k >= er - e->ell_rank; k--) e->ell[k] = e->ell[k - (er - e->ell_rank)];
      for (int k = 0; k < er - e->ell_rank; k++) e->ell[k] = osi_expr_const(s, 1);
      e->ell_rank = er;
    }
    for (int k = 0; k < er && e->ell_rank >= 0; k++) {
      int ok = 1, at = e->ell_rank - er + k;
      e->ell[at] = osi_broadcast_dim(s, e->ell[at], x->dims[t->ell + k], &ok);
      if (!ok) return osi_op_fail(ctx, OSI_ERR_SHAPE_MISMATCH, "operand %d: '...' dims do not broadcast", i);
    }
  } else if (t->ell >= 0) {
    e->ell_rank = -1;
  }
  for (int j = 0; j < t->n; j++) {
    unsigned char c = (unsigned char)t->labels[j];
    int at = t->ell >= 0 && j >= t->ell ? j + er : j;
    OsiExpr d = x ? x->dims[at] : OSI_EXPR_UNKNOWN;
    for (int k = 0; x && k < j; k++) {
      if ((unsigned char)t->labels[k] != c) continue;
      OsiStatus st = osi_op_require_dims_eq(ctx, "Einsum diagonal", i, at, i, t->ell >= 0 && k >= t->ell ? k + er : k);
      if (st != OSI_OK) return st;
      break;
    }
    int ok = 1;
    e->letter[c] = e->count[c]++ ? osi_broadcast_dim(s, e->letter[c], d, &ok) : d;
    if (!ok)
      return osi_op_fail(ctx, OSI_ERR_SHAPE_MISMATCH, "operand %d: dims of letter '%c' differ", i, c);
  }
  return OSI_OK;
}

/*
 * Einsum(inputs..., equation): output dims are the letters' dims in output
 * order, with the broadcast "..." dims in place. Without "->" (implicit
 * mode) the output is "..." then the letters seen exactly once, sorted.
 */
OsiStatus osi_op_einsum(OsiOpCtx *ctx) {
  const char *eq = osi_attr_str(ctx, "equation", NULL);
  int n_in = osi_in_count(ctx);
  if (!eq) return osi_op_fail(ctx, OSI_ERR_INVALID_MODEL, "attribute 'equation' is required");
  EinsumDims *e = osi_arena_alloc(osi_op_arena(ctx), sizeof *e);
  if (!e) return OSI_ERR_NOMEM;
  memset(e, 0, sizeof *e);
  const char *arrow = strstr(eq, "->"), *lhs_end = arrow ? arrow : eq + strlen(eq), *p = eq;
  int any_ell = 0, i = 0;
  EinsumTerm t;
  for (;; i++) {
    const char *comma = memchr(p, ',', (size_t)(lhs_end - p)), *end = comma ? comma : lhs_end;
    if (i >= n_in || !einsum_term(p, (size_t)(end - p), &t)) {
      i = -1;
      break;
    }
    any_ell |= t.ell >= 0;
    OsiStatus st = einsum_operand(ctx, i, &t, e);
    if (st != OSI_OK) return st;
    if (!comma) {
      i++;
      break;
    }
    p = comma + 1;
  }
  if (i != n_in)
    return osi_op_fail(ctx, OSI_ERR_INVALID_MODEL, "equation '%s' does not parse into %d operands", eq, n_in);
  EinsumTerm out;
  if (arrow) {
    if (!einsum_term(arrow + 2, strlen(arrow + 2), &out))
      return osi_op_fail(ctx, OSI_ERR_INVALID_MODEL, "output term of '%s' does not parse", eq);
  } else {
    out.n = 0;
    out.ell = any_ell ? 0 : -1;
    for (int c = 0; c < 128; c++)
      if (e->count[c] == 1 && out.n < OSI_MAX_RANK) out.labels[out.n++] = (char)c;
  }
  int ell_rank = out.ell < 0 ? 0 : e->ell_rank;
  int32_t dtype = osi_in_dtype(ctx, 0);
  if (ell_rank < 0 || out.n + ell_rank > OSI_MAX_RANK) {
    osi_out_tensor(ctx, 0, dtype, -1);
    return OSI_OK;
  }
  OsiType *y = osi_out_tensor(ctx, 0, dtype, out.n + ell_rank);
  if (!y) return OSI_OK;
  OsiExpr *d = osi_type_dims_mut(y);
  int used[128] = {0};
  for (int j = 0, k = 0; j <= out.n; j++) {
    if (j == out.ell)
      for (int m = 0; m < ell_rank; m++) d[k++] = e->ell[m];
    if (j == out.n) break;
    unsigned char c = (unsigned char)out.labels[j];
    if (!e->count[c] || used[c]++)
      return osi_op_fail(ctx, OSI_ERR_INVALID_MODEL, "output letter '%c' is repeated or not in any operand", c);
    d[k++] = e->letter[c];
  }
  return OSI_OK;
}
