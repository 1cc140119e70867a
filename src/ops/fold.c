/*
 * Constant folding (fold.h): the driver's entry, the table of folds, and
 * the data-movement folds (Identity, Reshape, Transpose, Expand, Tile,
 * Concat, Slice, Gather*, Scatter*, Split, Pad, ConstantOfShape, Range,
 * NonZero),
 * which move element expressions around whatever their dtype. Element
 * arithmetic is in fold_math.c.
 *
 * The rule of the op ran first and set each output's type: a fold reads
 * the output's static shape from it (never recomputes it; NonZero, whose
 * shape is its content, is the exception) and fills in the content.
 */
#include <stdint.h>
#include <string.h>

#include "base/thread_local.h"
#include "ops/fold_internal.h"

/* Section - Outputs */

OsiExpr *fold_out(Fold *f, int i, FoldTensor *t) {
  const OsiType *y = osi_out(f->ctx, i);
  memset(t, 0, sizeof *t);
  if (!y || y->kind != OSI_KIND_TENSOR || y->value || y->rank < 0 || !fold_dtype_ok(y->elem_type)) return NULL;
  t->present = 1;
  t->dtype = y->elem_type;
  t->rank = y->rank;
  t->count = 1;
  for (int k = 0; k < y->rank; k++) {
    if (!osi_expr_is_const(f->s, y->dims[k], &t->dims[k]) || t->dims[k] < 0 ||
        __builtin_mul_overflow(t->count, t->dims[k], &t->count) || t->count > OSI_MAX_VALUE_ELEMS)
      return NULL;
  }
  t->shaped = 1;
  return osi_arena_array(osi_op_arena(f->ctx), (size_t)(t->count ? t->count : 1), sizeof(OsiExpr));
}

void fold_publish(Fold *f, int i, const FoldTensor *t, OsiExpr *elems) {
  int64_t known = 0;
  for (int64_t k = 0; k < t->count && !known; k++) known = elems[k] != OSI_EXPR_UNKNOWN;
  if (t->count && !known) return; /* nothing learnt */
  OsiType *y = osi_type_copy(osi_op_arena(f->ctx), osi_out(f->ctx, i));
  OsiValue *v = osi_arena_alloc(osi_op_arena(f->ctx), sizeof *v);
  if (!y || !v) return;
  v->count = t->count;
  if (osi_dtype_is_integer(t->dtype)) v->ints = elems;
  else v->floats = elems;
  y->value = v;
  osi_set_out(f->ctx, i, y);
}

int64_t fold_broadcast_index(const int64_t *out, int out_rank, const int64_t *dims, int rank, int64_t flat) {
  int64_t idx = 0, stride = 1;
  if (rank > out_rank) return -1;
  for (int k = out_rank - 1; k >= 0; k--) {
    int64_t coord = out[k] ? flat % out[k] : 0;
    if (out[k]) flat /= out[k];
    int ik = k - (out_rank - rank);
    if (ik < 0) continue;
    if (dims[ik] != 1) {
      if (dims[ik] != out[k]) return -1;
      idx += coord * stride;
    }
    stride *= dims[ik];
  }
  return idx;
}

/* Coordinates of row-major index `flat` in dims (rank entries). */
static void coords(const int64_t *dims, int rank, int64_t flat, int64_t *c) {
  for (int k = rank - 1; k >= 0; k--) {
    c[k] = dims[k] ? flat % dims[k] : 0;
    if (dims[k]) flat /= dims[k];
  }
}

static int64_t flat_index(const int64_t *dims, int rank, const int64_t *c) {
  int64_t idx = 0;
  for (int k = 0; k < rank; k++) idx = idx * dims[k] + c[k];
  return idx;
}

/* Constant integer content of input i (count entries, at most max). */
static int const_ints(Fold *f, int i, int64_t *out, int max) {
  if (i >= f->n_in || !f->in[i].present || !f->in[i].e || f->in[i].count > max) return -1;
  for (int64_t k = 0; k < f->in[i].count; k++)
    if (!osi_expr_is_const(f->s, f->in[i].e[k], &out[k])) return -1;
  return (int)f->in[i].count;
}

/* Section - Same order, permutations, broadcasting */

/* Identity, Reshape, Flatten, Squeeze, Unsqueeze: row-major order kept. */
static int fold_same_order(Fold *f) {
  FoldTensor t;
  const FoldTensor *x = &f->in[0];
  if (!x->e) return 0;
  OsiExpr *out = fold_out(f, 0, &t);
  if (!out || t.count != x->count) return 0;
  memcpy(out, x->e, (size_t)t.count * sizeof(OsiExpr));
  fold_publish(f, 0, &t, out);
  return 1;
}

static int fold_transpose(Fold *f) {
  FoldTensor t;
  const FoldTensor *x = &f->in[0];
  if (!x->shaped || !x->e) return 0;
  const int64_t *perm;
  int np = osi_attr_ints(f->ctx, "perm", &perm), p[OSI_MAX_RANK];
  if (np >= 0 && np != x->rank) return 0;
  for (int k = 0; k < x->rank; k++) {
    p[k] = np < 0 ? x->rank - 1 - k : (int)perm[k];
    if (p[k] < 0) p[k] += x->rank;
    if (p[k] < 0 || p[k] >= x->rank) return 0;
  }
  OsiExpr *out = fold_out(f, 0, &t);
  if (!out || t.rank != x->rank || t.count != x->count) return 0;
  int64_t oc[OSI_MAX_RANK], ic[OSI_MAX_RANK];
  for (int64_t k = 0; k < t.count; k++) {
    coords(t.dims, t.rank, k, oc);
    for (int a = 0; a < t.rank; a++) ic[p[a]] = oc[a];
    out[k] = x->e[flat_index(x->dims, x->rank, ic)];
  }
  fold_publish(f, 0, &t, out);
  return 1;
}

/* Expand: input 0 broadcast to the output shape. */
static int fold_expand(Fold *f) {
  FoldTensor t;
  const FoldTensor *x = &f->in[0];
  if (!x->shaped || !x->e) return 0;
  OsiExpr *out = fold_out(f, 0, &t);
  if (!out) return 0;
  for (int64_t k = 0; k < t.count; k++) {
    int64_t j = fold_broadcast_index(t.dims, t.rank, x->dims, x->rank, k);
    if (j < 0 || j >= x->count) return 0;
    out[k] = x->e[j];
  }
  fold_publish(f, 0, &t, out);
  return 1;
}

static int fold_tile(Fold *f) {
  FoldTensor t;
  const FoldTensor *x = &f->in[0];
  if (!x->shaped || !x->e) return 0;
  OsiExpr *out = fold_out(f, 0, &t);
  if (!out || t.rank != x->rank) return 0;
  int64_t oc[OSI_MAX_RANK];
  for (int64_t k = 0; k < t.count; k++) {
    coords(t.dims, t.rank, k, oc);
    for (int a = 0; a < t.rank; a++) {
      if (!x->dims[a]) return 0;
      oc[a] %= x->dims[a];
    }
    out[k] = x->e[flat_index(x->dims, x->rank, oc)];
  }
  fold_publish(f, 0, &t, out);
  return 1;
}

/* Section - Joining and cutting */

static int fold_concat(Fold *f) {
  FoldTensor t;
  OsiExpr *out = fold_out(f, 0, &t);
  int axis;
  if (!out || !osi_norm_axis(osi_attr_int(f->ctx, "axis", 0), t.rank, &axis)) return 0;
  int64_t at = 0; /* offset along axis */
  int64_t oc[OSI_MAX_RANK];
  for (int i = 0; i < f->n_in; i++) {
    const FoldTensor *x = &f->in[i];
    if (!x->shaped || !x->e || x->rank != t.rank) return 0;
    for (int64_t j = 0; j < x->count; j++) {
      coords(x->dims, x->rank, j, oc);
      oc[axis] += at;
      if (oc[axis] >= t.dims[axis]) return 0;
      out[flat_index(t.dims, t.rank, oc)] = x->e[j];
    }
    at += x->dims[axis];
  }
  if (at != t.dims[axis]) return 0;
  fold_publish(f, 0, &t, out);
  return 1;
}

/* Split: output k is the next t.dims[axis] slab along axis. */
static int fold_split(Fold *f) {
  const FoldTensor *x = &f->in[0];
  int axis;
  if (!x->shaped || !x->e || !osi_norm_axis(osi_attr_int(f->ctx, "axis", 0), x->rank, &axis)) return 0;
  int64_t at = 0, ic[OSI_MAX_RANK];
  int done = 0;
  for (int k = 0; k < osi_out_count(f->ctx); k++) {
    FoldTensor t;
    const OsiType *y = osi_out(f->ctx, k);
    int64_t len;
    if (!y || y->rank != x->rank || !osi_expr_is_const(f->s, y->dims[axis], &len)) return done;
    OsiExpr *out = fold_out(f, k, &t);
    if (out) {
      for (int64_t j = 0; j < t.count; j++) {
        coords(t.dims, t.rank, j, ic);
        ic[axis] += at;
        if (ic[axis] >= x->dims[axis]) return done;
        out[j] = x->e[flat_index(x->dims, x->rank, ic)];
      }
      fold_publish(f, k, &t, out);
      done = 1;
    }
    at += len;
  }
  return done;
}

/* Slice: constant starts/ends/axes/steps (attributes before opset 10),
 * clamped as the spec says. */
static int fold_slice(Fold *f) {
  const FoldTensor *x = &f->in[0];
  if (!x->shaped || !x->e) return 0;
  int64_t st[OSI_MAX_RANK], en[OSI_MAX_RANK], ax[OSI_MAX_RANK], sp[OSI_MAX_RANK];
  int ns, ne, na, nsp;
  if (osi_op_opset(f->ctx) < 10) {
    const int64_t *a;
    ns = osi_attr_ints(f->ctx, "starts", &a);
    if (ns < 0 || ns > OSI_MAX_RANK) return 0;
    memcpy(st, a, (size_t)ns * sizeof *st);
    ne = osi_attr_ints(f->ctx, "ends", &a);
    if (ne != ns) return 0;
    memcpy(en, a, (size_t)ne * sizeof *en);
    na = osi_attr_ints(f->ctx, "axes", &a);
    if (na > OSI_MAX_RANK) return 0;
    if (na > 0) memcpy(ax, a, (size_t)na * sizeof *ax);
    nsp = -1;
  } else {
    ns = const_ints(f, 1, st, OSI_MAX_RANK);
    ne = const_ints(f, 2, en, OSI_MAX_RANK);
    na = f->n_in > 3 && f->in[3].present ? const_ints(f, 3, ax, OSI_MAX_RANK) : -2;
    nsp = f->n_in > 4 && f->in[4].present ? const_ints(f, 4, sp, OSI_MAX_RANK) : -2;
    if (ns < 0 || ne != ns || na == -1 || nsp == -1) return 0;
  }
  int64_t begin[OSI_MAX_RANK] = {0}, step[OSI_MAX_RANK];
  for (int a = 0; a < x->rank; a++) step[a] = 1;
  for (int k = 0; k < ns; k++) {
    int a;
    if (!osi_norm_axis(na >= 0 ? ax[k] : k, x->rank, &a)) return 0;
    int64_t d = x->dims[a], s = st[k], p = nsp >= 0 ? sp[k] : 1;
    if (p == 0) return 0;
    if (s < 0) s += d; /* s >= INT64_MIN, d <= 4096: no overflow */
    if (p > 0) s = s < 0 ? 0 : s > d ? d : s;
    else s = s < 0 ? -1 : s > d - 1 ? d - 1 : s;
    begin[a] = s, step[a] = p;
  }
  FoldTensor t;
  OsiExpr *out = fold_out(f, 0, &t);
  if (!out || t.rank != x->rank) return 0;
  int64_t oc[OSI_MAX_RANK];
  for (int64_t k = 0; k < t.count; k++) {
    coords(t.dims, t.rank, k, oc);
    for (int a = 0; a < t.rank; a++) {
      if (__builtin_mul_overflow(oc[a], step[a], &oc[a]) || __builtin_add_overflow(oc[a], begin[a], &oc[a]) ||
          oc[a] < 0 || oc[a] >= x->dims[a])
        return 0;
    }
    out[k] = x->e[flat_index(x->dims, x->rank, oc)];
  }
  fold_publish(f, 0, &t, out);
  return 1;
}

/* Section - Gathering */

/* An index into a dim of size d (negative from the back); -1 when out of
 * range or not a constant. */
static int64_t index_at(Fold *f, OsiExpr e, int64_t d) {
  int64_t j;
  if (!osi_expr_is_const(f->s, e, &j)) return -1;
  if (j < 0) j += d;
  return j >= 0 && j < d ? j : -1;
}

static int fold_gather(Fold *f) {
  const FoldTensor *x = &f->in[0], *idx = &f->in[1];
  int axis;
  if (!x->shaped || !x->e || !idx->shaped || !idx->e ||
      !osi_norm_axis(osi_attr_int(f->ctx, "axis", 0), x->rank, &axis))
    return 0;
  FoldTensor t;
  OsiExpr *out = fold_out(f, 0, &t);
  if (!out || t.rank != x->rank - 1 + idx->rank) return 0;
  int64_t oc[OSI_MAX_RANK], ic[OSI_MAX_RANK];
  for (int64_t k = 0; k < t.count; k++) {
    coords(t.dims, t.rank, k, oc);
    int64_t ii = flat_index(idx->dims, idx->rank, oc + axis);
    int64_t j = index_at(f, idx->e[ii], x->dims[axis]);
    if (j < 0) return 0;
    for (int a = 0; a < axis; a++) ic[a] = oc[a];
    ic[axis] = j;
    for (int a = axis + 1; a < x->rank; a++) ic[a] = oc[a - 1 + idx->rank];
    out[k] = x->e[flat_index(x->dims, x->rank, ic)];
  }
  fold_publish(f, 0, &t, out);
  return 1;
}

static int fold_gather_elements(Fold *f) {
  const FoldTensor *x = &f->in[0], *idx = &f->in[1];
  int axis;
  if (!x->shaped || !x->e || !idx->shaped || !idx->e || idx->rank != x->rank ||
      !osi_norm_axis(osi_attr_int(f->ctx, "axis", 0), x->rank, &axis))
    return 0;
  FoldTensor t;
  OsiExpr *out = fold_out(f, 0, &t);
  if (!out || t.count != idx->count) return 0;
  int64_t c[OSI_MAX_RANK];
  for (int64_t k = 0; k < t.count; k++) {
    coords(idx->dims, idx->rank, k, c);
    int64_t j = index_at(f, idx->e[k], x->dims[axis]);
    if (j < 0) return 0;
    c[axis] = j;
    for (int a = 0; a < x->rank; a++)
      if (c[a] >= x->dims[a]) return 0;
    out[k] = x->e[flat_index(x->dims, x->rank, c)];
  }
  fold_publish(f, 0, &t, out);
  return 1;
}

static int fold_gather_nd(Fold *f) {
  const FoldTensor *x = &f->in[0], *idx = &f->in[1];
  int64_t b = osi_attr_int(f->ctx, "batch_dims", 0);
  if (!x->shaped || !x->e || !idx->shaped || !idx->e || idx->rank < 1 || b < 0 || b >= idx->rank ||
      b >= x->rank)
    return 0;
  int64_t m = idx->dims[idx->rank - 1]; /* indices per tuple */
  if (m < 1 || b + m > x->rank) return 0;
  FoldTensor t;
  OsiExpr *out = fold_out(f, 0, &t);
  if (!out) return 0;
  int64_t slice = 1; /* elements per gathered slice */
  for (int a = (int)(b + m); a < x->rank; a++) slice *= x->dims[a];
  int64_t tuples = idx->count / m;
  if (tuples * slice != t.count) return 0;
  int64_t per_batch = 1; /* tuples per batch */
  for (int a = (int)b; a < idx->rank - 1; a++) per_batch *= idx->dims[a];
  int64_t c[OSI_MAX_RANK];
  for (int64_t q = 0; q < tuples; q++) {
    int64_t batch = per_batch ? q / per_batch : 0;
    coords(x->dims, (int)b, batch, c); /* the batch coordinates */
    for (int64_t i = 0; i < m; i++) {
      int64_t j = index_at(f, idx->e[q * m + i], x->dims[b + i]);
      if (j < 0) return 0;
      c[b + i] = j;
    }
    for (int a = (int)(b + m); a < x->rank; a++) c[a] = 0;
    int64_t base = flat_index(x->dims, x->rank, c);
    for (int64_t r = 0; r < slice; r++) out[q * slice + r] = x->e[base + r];
  }
  fold_publish(f, 0, &t, out);
  return 1;
}

/* Section - Scattering */

/* How Scatter* combine an update with the element it lands on (reduction,
 * opset 16/18): none, add, mul, max, min; -2 when unknown. */
static int scatter_reduction(Fold *f) {
  const char *r = osi_attr_str(f->ctx, "reduction", "none");
  return !strcmp(r, "none") ? -1 : !strcmp(r, "add") ? FB_ADD : !strcmp(r, "mul") ? FB_MUL
         : !strcmp(r, "max") ? FB_MAX : !strcmp(r, "min") ? FB_MIN : -2;
}

static OsiExpr scatter_combine(Fold *f, int red, int32_t dt, OsiExpr old, OsiExpr upd) {
  return red < 0 ? upd : fold_binary(f->s, red, dt, old, upd);
}

/* ScatterElements (Scatter): a copy of data where each update lands at its
 * own coordinates with the axis coordinate from indices, in order. */
static int fold_scatter_elements(Fold *f) {
  const FoldTensor *x = &f->in[0], *idx = &f->in[1], *upd = &f->in[2];
  int axis, red = scatter_reduction(f);
  if (!x->shaped || !x->e || !idx->shaped || !idx->e || !upd->shaped || !upd->e || idx->rank != x->rank ||
      upd->count != idx->count || red == -2 || !osi_norm_axis(osi_attr_int(f->ctx, "axis", 0), x->rank, &axis))
    return 0;
  FoldTensor t;
  OsiExpr *out = fold_out(f, 0, &t);
  if (!out || t.count != x->count) return 0;
  memcpy(out, x->e, (size_t)x->count * sizeof(OsiExpr));
  int64_t c[OSI_MAX_RANK];
  for (int64_t k = 0; k < idx->count; k++) {
    coords(idx->dims, idx->rank, k, c);
    int64_t j = index_at(f, idx->e[k], x->dims[axis]);
    if (j < 0) return 0;
    c[axis] = j;
    for (int a = 0; a < x->rank; a++)
      if (c[a] >= x->dims[a]) return 0;
    int64_t at = flat_index(x->dims, x->rank, c);
    out[at] = scatter_combine(f, red, x->dtype, out[at], upd->e[k]);
  }
  fold_publish(f, 0, &t, out);
  return 1;
}

/* ScatterND: each index tuple of the last axis of indices picks a slice of
 * data, replaced (or combined) by the matching slice of updates, in order. */
static int fold_scatter_nd(Fold *f) {
  const FoldTensor *x = &f->in[0], *idx = &f->in[1], *upd = &f->in[2];
  int red = scatter_reduction(f);
  if (!x->shaped || !x->e || !idx->shaped || !idx->e || !upd->shaped || !upd->e || idx->rank < 1 || red == -2)
    return 0;
  int64_t m = idx->dims[idx->rank - 1];
  if (m < 1 || m > x->rank) return 0;
  int64_t slice = 1;
  for (int a = (int)m; a < x->rank; a++) slice *= x->dims[a];
  int64_t tuples = idx->count / m;
  if (tuples * slice != upd->count) return 0;
  FoldTensor t;
  OsiExpr *out = fold_out(f, 0, &t);
  if (!out || t.count != x->count) return 0;
  memcpy(out, x->e, (size_t)x->count * sizeof(OsiExpr));
  int64_t c[OSI_MAX_RANK];
  for (int64_t q = 0; q < tuples; q++) {
    for (int a = 0; a < x->rank; a++) c[a] = 0;
    for (int64_t i = 0; i < m; i++) {
      int64_t j = index_at(f, idx->e[q * m + i], x->dims[i]);
      if (j < 0) return 0;
      c[i] = j;
    }
    int64_t base = flat_index(x->dims, x->rank, c);
    for (int64_t r = 0; r < slice; r++)
      out[base + r] = scatter_combine(f, red, x->dtype, out[base + r], upd->e[q * slice + r]);
  }
  fold_publish(f, 0, &t, out);
  return 1;
}

/* Section - Padding and generated content */

/* Pad (opset 11+: pads, constant_value, axes inputs; before: attributes)
 * in constant, edge, reflect or wrap mode. */
static int fold_pad(Fold *f) {
  const FoldTensor *x = &f->in[0];
  if (!x->shaped || !x->e) return 0;
  int64_t pads[2 * OSI_MAX_RANK], axes[OSI_MAX_RANK];
  int np, na = -1;
  OsiExpr fill = OSI_EXPR_UNKNOWN;
  int real = !osi_dtype_is_integer(x->dtype);
  if (osi_op_opset(f->ctx) < 11) {
    const int64_t *a;
    np = osi_attr_ints(f->ctx, osi_op_opset(f->ctx) < 2 ? "paddings" : "pads", &a);
    if (np < 0 || np > 2 * OSI_MAX_RANK) return 0;
    memcpy(pads, a, (size_t)np * sizeof *pads);
    double v = osi_attr_float(f->ctx, "value", 0);
    fill = real ? fold_real(f->s, x->dtype, v) : fold_int(f->s, x->dtype, osi_expr_const(f->s, (int64_t)v));
  } else {
    np = const_ints(f, 1, pads, 2 * OSI_MAX_RANK);
    if (np < 0) return 0;
    if (f->n_in > 2 && f->in[2].present) {
      if (!f->in[2].e || f->in[2].count != 1) return 0;
      fill = f->in[2].e[0];
    } else {
      fill = real ? fold_real(f->s, x->dtype, 0) : osi_expr_const(f->s, 0);
    }
    if (f->n_in > 3 && f->in[3].present && (na = const_ints(f, 3, axes, OSI_MAX_RANK)) < 0) return 0;
  }
  int n = na >= 0 ? na : x->rank;
  if (np != 2 * n) return 0;
  int64_t lo[OSI_MAX_RANK] = {0};
  for (int k = 0; k < n; k++) {
    int a;
    if (!osi_norm_axis(na >= 0 ? axes[k] : k, x->rank, &a) || pads[k] < -(1 << 30) || pads[k] > (1 << 30))
      return 0;
    lo[a] = pads[k];
  }
  const char *mode = osi_attr_str(f->ctx, "mode", "constant");
  FoldTensor t;
  OsiExpr *out = fold_out(f, 0, &t);
  if (!out || t.rank != x->rank) return 0;
  int64_t c[OSI_MAX_RANK];
  for (int64_t k = 0; k < t.count; k++) {
    coords(t.dims, t.rank, k, c);
    int inside = 1;
    for (int a = 0; a < t.rank; a++) {
      int64_t d = x->dims[a], v = c[a] - lo[a];
      if (v >= 0 && v < d) {
        c[a] = v;
        continue;
      }
      if (!strcmp(mode, "constant")) {
        inside = 0;
        break;
      }
      if (d == 0) return 0;
      if (!strcmp(mode, "edge")) v = v < 0 ? 0 : d - 1;
      else if (!strcmp(mode, "wrap")) v = ((v % d) + d) % d;
      else if (!strcmp(mode, "reflect")) {
        if (d == 1) v = 0;
        else {
          int64_t period = 2 * (d - 1);
          v = ((v % period) + period) % period;
          if (v >= d) v = period - v;
        }
      } else {
        return 0;
      }
      c[a] = v;
    }
    out[k] = inside ? x->e[flat_index(x->dims, x->rank, c)] : fill;
  }
  fold_publish(f, 0, &t, out);
  return 1;
}

static int fold_constant_of_shape(Fold *f) {
  FoldTensor t;
  OsiExpr *out = fold_out(f, 0, &t);
  if (!out) return 0;
  const OsiTensor *v = osi_attr_tensor(f->ctx, "value");
  OsiExpr fill;
  if (!v) fill = osi_expr_fconst(f->s, 0);
  else if (v->ints && v->count == 1) fill = fold_int(f->s, t.dtype, osi_expr_const(f->s, v->ints[0]));
  else if (v->floats && v->count == 1) fill = fold_real(f->s, t.dtype, v->floats[0]);
  else return 0;
  for (int64_t k = 0; k < t.count; k++) out[k] = fill;
  fold_publish(f, 0, &t, out);
  return 1;
}

/* Range of floats: only integral values the dtype holds exactly, which any
 * way of computing them (start + i*delta, or accumulating) gives. */
static int fold_range(Fold *f) {
  FoldTensor t;
  if (f->in[0].dtype == 0 || osi_dtype_is_integer(f->in[0].dtype)) return 0; /* the rule does integers */
  double v[3];
  for (int i = 0; i < 3; i++)
    if (!f->in[i].e || f->in[i].count != 1 || !osi_expr_is_fconst(f->s, f->in[i].e[0], &v[i]) ||
        v[i] != (double)(int64_t)v[i])
      return 0;
  OsiExpr *out = fold_out(f, 0, &t);
  if (!out) return 0;
  double limit = t.dtype == OSI_DT_DOUBLE ? 0x1p53 : 0x1p24;
  for (int64_t k = 0; k < t.count; k++) {
    double x = v[0] + (double)k * v[2];
    if (!(x >= -limit && x <= limit)) return 0;
    out[k] = fold_real(f->s, t.dtype, x);
  }
  fold_publish(f, 0, &t, out);
  return 1;
}

/* NonZero with known content: its shape too ([rank, count]); not for a
 * scalar, whose first dim runtimes disagree on (the rule's note). */
static int fold_nonzero(Fold *f) {
  const FoldTensor *x = &f->in[0];
  if (!x->shaped || !x->e || x->rank == 0) return 0;
  int64_t n = 0;
  char *nz = osi_arena_alloc(osi_op_arena(f->ctx), (size_t)(x->count ? x->count : 1));
  if (!nz) return 0;
  for (int64_t k = 0; k < x->count; k++) {
    int truth;
    if (!fold_truth(f->s, x->e[k], &truth)) return 0;
    nz[k] = (char)truth;
    n += truth;
  }
  int rank = x->rank;
  if (n * rank > OSI_MAX_VALUE_ELEMS) return 0;
  OsiType *y = osi_out_tensor(f->ctx, 0, OSI_DT_INT64, 2);
  if (!y) return 0;
  osi_type_dims_mut(y)[0] = osi_expr_const(f->s, rank);
  osi_type_dims_mut(y)[1] = osi_expr_const(f->s, n);
  FoldTensor t;
  OsiExpr *out = fold_out(f, 0, &t);
  if (!out) return 0;
  int64_t c[OSI_MAX_RANK], j = 0;
  for (int64_t k = 0; k < x->count; k++) {
    if (!nz[k]) continue;
    coords(x->dims, x->rank, k, c);
    for (int a = 0; a < rank; a++) out[a * n + j] = osi_expr_const(f->s, c[a]);
    j++;
  }
  fold_publish(f, 0, &t, out);
  return 1;
}

/* Section - The table (sorted by name, ai.onnx domain) */

typedef int (*FoldFn)(Fold *f);

typedef struct FoldEntry {
  const char *op;
  FoldFn fn;
  int code;
} FoldEntry;

static const FoldEntry FOLDS[] = {
    {"Abs", fold_unary_op, FU_ABS},
    {"Add", fold_elementwise, FB_ADD},
    {"And", fold_elementwise, FB_AND},
    {"ArgMax", fold_arg_reduce, FB_MAX},
    {"ArgMin", fold_arg_reduce, FB_MIN},
    {"BitShift", fold_elementwise, FB_SHL},
    {"BitwiseAnd", fold_elementwise, FB_BITAND},
    {"BitwiseNot", fold_unary_op, FU_BITNOT},
    {"BitwiseOr", fold_elementwise, FB_BITOR},
    {"BitwiseXor", fold_elementwise, FB_BITXOR},
    {"Cast", fold_cast_op, 0},
    {"CastLike", fold_cast_op, 0},
    {"Ceil", fold_unary_op, FU_CEIL},
    {"Clip", fold_clip, 0},
    {"Concat", fold_concat, 0},
    {"ConstantOfShape", fold_constant_of_shape, 0},
    {"CumSum", fold_cumsum, 0},
    {"Div", fold_elementwise, FB_DIV},
    {"Equal", fold_elementwise, FB_EQ},
    {"Expand", fold_expand, 0},
    {"Flatten", fold_same_order, 0},
    {"Floor", fold_unary_op, FU_FLOOR},
    {"Gather", fold_gather, 0},
    {"GatherElements", fold_gather_elements, 0},
    {"GatherND", fold_gather_nd, 0},
    {"Greater", fold_elementwise, FB_GT},
    {"GreaterOrEqual", fold_elementwise, FB_GE},
    {"Identity", fold_same_order, 0},
    {"IsInf", fold_unary_op, FU_ISINF},
    {"IsNaN", fold_unary_op, FU_ISNAN},
    {"Less", fold_elementwise, FB_LT},
    {"LessOrEqual", fold_elementwise, FB_LE},
    {"Max", fold_elementwise, FB_MAX},
    {"Min", fold_elementwise, FB_MIN},
    {"Mod", fold_elementwise, FB_MOD},
    {"Mul", fold_elementwise, FB_MUL},
    {"Neg", fold_unary_op, FU_NEG},
    {"NonZero", fold_nonzero, 0},
    {"Not", fold_unary_op, FU_NOT},
    {"Or", fold_elementwise, FB_OR},
    {"Pad", fold_pad, 0},
    {"Pow", fold_elementwise, FB_POW},
    {"Range", fold_range, 0},
    {"Reciprocal", fold_unary_op, FU_RECIP},
    {"ReduceMax", fold_reduce, FB_MAX},
    {"ReduceMean", fold_reduce, -1},
    {"ReduceMin", fold_reduce, FB_MIN},
    {"ReduceProd", fold_reduce, FB_MUL},
    {"ReduceSum", fold_reduce, FB_ADD},
    {"Relu", fold_unary_op, FU_RELU},
    {"Reshape", fold_same_order, 0},
    {"Round", fold_unary_op, FU_ROUND},
    {"Scatter", fold_scatter_elements, 0},
    {"ScatterElements", fold_scatter_elements, 0},
    {"ScatterND", fold_scatter_nd, 0},
    {"Sign", fold_unary_op, FU_SIGN},
    {"Slice", fold_slice, 0},
    {"Split", fold_split, 0},
    {"Sqrt", fold_unary_op, FU_SQRT},
    {"Squeeze", fold_same_order, 0},
    {"Sub", fold_elementwise, FB_SUB},
    {"Sum", fold_elementwise, FB_ADD},
    {"Tile", fold_tile, 0},
    {"Transpose", fold_transpose, 0},
    {"Unsqueeze", fold_same_order, 0},
    {"Where", fold_where, 0},
    {"Xor", fold_elementwise, FB_XOR},
};

static const FoldEntry *search_fold(const char *op) {
  size_t lo = 0, hi = sizeof FOLDS / sizeof FOLDS[0];
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    int c = strcmp(op, FOLDS[mid].op);
    if (c == 0) return &FOLDS[mid];
    if (c < 0) hi = mid;
    else lo = mid + 1;
  }
  return NULL;
}

/* A model repeats a few op types over thousands of nodes that read a known
 * content (a CNN's Conv and BatchNormalization read their weights: 114k
 * lookups of two op types, each a binary search of six strcmp): the last
 * answer for each op type's pointer is kept with a copy of the name, and a
 * hit costs one strcmp. Per thread; an entry is used only when its name is
 * op's, so the cache never changes an answer. */
#define RECENT_FOLD_NAME 32

static OSI_THREAD_LOCAL struct {
  char op[RECENT_FOLD_NAME];
  const FoldEntry *entry;
} recent_folds[64];

static const FoldEntry *find_fold(const char *op) {
  size_t at = ((uintptr_t)op >> 3) & 63;
  if (recent_folds[at].op[0] && !strcmp(recent_folds[at].op, op)) return recent_folds[at].entry;
  const FoldEntry *e = search_fold(op);
  size_t len = strlen(op);
  if (len > 0 && len < RECENT_FOLD_NAME) {
    memcpy(recent_folds[at].op, op, len + 1);
    recent_folds[at].entry = e;
  }
  return e;
}

/* Section - Entry */

/* An absent input: rank 0, so no rule reads its dims. Only the scalar fields
 * are cleared: the dims array is most of the struct, and folding runs on
 * every node that reads a known content (a memset of all FOLD_MAX_IN inputs
 * was 6% of a Llama export's instructions). */
static void clear_input(FoldTensor *t) {
  t->present = t->shaped = 0;
  t->dtype = 0;
  t->rank = 0;
  t->count = 0;
  t->e = NULL;
}

static void load_input(Fold *f, int i) {
  FoldTensor *t = &f->in[i];
  const OsiType *x = osi_in(f->ctx, i);
  clear_input(t);
  if (!x || x->kind != OSI_KIND_TENSOR) return;
  t->present = 1;
  t->dtype = x->elem_type;
  t->rank = x->rank;
  if (x->rank > 0) memset(t->dims, 0, (size_t)(x->rank < OSI_MAX_RANK ? x->rank : OSI_MAX_RANK) * sizeof t->dims[0]);
  t->count = 1;
  t->shaped = x->rank >= 0;
  for (int k = 0; k < x->rank && t->shaped; k++)
    if (!osi_expr_is_const(f->s, x->dims[k], &t->dims[k]) || t->dims[k] < 0 ||
        __builtin_mul_overflow(t->count, t->dims[k], &t->count) || t->count > OSI_MAX_VALUE_ELEMS)
      t->shaped = 0;
  const OsiValue *v = x->value;
  if (!v || !t->shaped || v->count != t->count) return;
  t->e = osi_dtype_is_integer(x->elem_type) ? v->ints : v->floats;
}

void osi_op_fold(OsiOpCtx *ctx) {
  int n_in = osi_in_count(ctx), any_value = 0, open = 0;
  if (n_in > FOLD_MAX_IN) return;
  for (int i = 0; i < n_in && !any_value; i++) any_value = osi_in_value(ctx, i) != NULL;
  for (int i = 0; i < osi_out_count(ctx) && !open; i++) {
    const OsiType *y = osi_out(ctx, i);
    open = y && y->kind == OSI_KIND_TENSOR && !y->value;
  }
  if (!any_value || !open) return;
  const FoldEntry *entry = find_fold(osi_op_type(ctx));
  if (!entry) return;
  Fold f;
  f.ctx = ctx;
  f.s = osi_op_exprs(ctx);
  f.code = entry->code;
  f.n_in = n_in;
  /* inputs past n_in read as absent: a rule may look at an optional input the node omits */
  for (int i = n_in; i < FOLD_MAX_IN; i++) clear_input(&f.in[i]);
  for (int i = 0; i < n_in; i++) load_input(&f, i);
  entry->fn(&f);
}
