#include "ops/helpers.h"

#include <stdio.h>
#include <string.h>

OsiType *osi_out_tensor(OsiOpCtx *ctx, int i, int32_t elem_type, int rank) {
  OsiType *t = osi_type_tensor(osi_op_arena(ctx), elem_type, rank);
  if (t) osi_set_out(ctx, i, t);
  return t;
}

OsiType *osi_out_like(OsiOpCtx *ctx, int i, int32_t elem_type, const OsiType *src) {
  OsiType *t = src && src->kind == OSI_KIND_TENSOR
                   ? osi_type_tensor_dims(osi_op_arena(ctx), elem_type, src->rank, src->dims)
                   : osi_type_tensor(osi_op_arena(ctx), elem_type, -1);
  if (t) osi_set_out(ctx, i, t);
  return t;
}

OsiStatus osi_out_same_as_input(OsiOpCtx *ctx, int out, int in) {
  const OsiType *t = osi_in(ctx, in);
  if (!t) return OSI_OK;
  if (t->kind != OSI_KIND_TENSOR) {
    osi_set_out(ctx, out, t);
    return OSI_OK;
  }
  osi_out_like(ctx, out, t->elem_type, t);
  return OSI_OK;
}

int osi_norm_axis(int64_t axis, int rank, int *out) {
  if (axis < -(int64_t)rank || axis >= rank) return 0;
  *out = (int)(axis < 0 ? axis + rank : axis);
  return 1;
}

OsiExpr osi_broadcast_dim(OsiExprStore *s, OsiExpr a, OsiExpr b, int *ok) {
  int64_t ca, cb;
  int ka = osi_expr_is_const(s, a, &ca), kb = osi_expr_is_const(s, b, &cb);
  if (ka && ca == 1) return b;
  if (kb && cb == 1) return a;
  if (ka && kb) {
    if (ca != cb) *ok = 0;
    return a;
  }
  /* A constant other than 1 wins: the other side must be 1 or equal to it. */
  if (ka) return a;
  if (kb) return b;
  if (a == OSI_EXPR_UNKNOWN || b == OSI_EXPR_UNKNOWN) return OSI_EXPR_UNKNOWN;
  return osi_expr_broadcast(s, a, b);
}

/* A size broadcast against a constant c > 1 is 1 or c wherever the model
 * runs (0 too is refused): the dim is c, and the size being 1 or c is a
 * requirement, so sizes between (an evaluation, a --bind) are named as
 * impossible instead of giving c. a: output dim j so far, b: input k's dim i. */
static OsiStatus require_one_or(OsiOpCtx *ctx, int k, int i, int j, OsiExpr a, OsiExpr b) {
  OsiExprStore *s = osi_op_exprs(ctx);
  int64_t ca, cb;
  int ka = osi_expr_is_const(s, a, &ca), kb = osi_expr_is_const(s, b, &cb);
  if (ka == kb || a == OSI_EXPR_UNKNOWN || b == OSI_EXPR_UNKNOWN) return OSI_OK;
  int64_t c = ka ? ca : cb;
  OsiExpr x = ka ? b : a;
  if (c <= 1 || osi_expr_is_float(s, x)) return OSI_OK;
  char what[200];
  if (ka) snprintf(what, sizeof what, "input %d dim %d broadcasts against %lld", k, i, (long long)c);
  else snprintf(what, sizeof what, "dim %d of the inputs before input %d broadcasts against %lld (input %d dim %d)", j, k,
                (long long)c, k, i);
  return osi_op_require_one_of(ctx, "broadcast", x, c, what);
}

OsiStatus osi_broadcast(OsiOpCtx *ctx, const OsiType *const *in, int n, int *rank, OsiExpr *dims) {
  OsiExprStore *s = osi_op_exprs(ctx);
  int r = 0;
  for (int k = 0; k < n; k++) {
    if (!in[k] || in[k]->kind != OSI_KIND_TENSOR || in[k]->rank < 0) {
      *rank = -1;
      return OSI_OK;
    }
    if (in[k]->rank > r) r = in[k]->rank;
  }
  for (int i = 0; i < r; i++) dims[i] = osi_expr_const(s, 1);
  for (int k = 0; k < n; k++) {
    int off = r - in[k]->rank;
    for (int i = 0; i < in[k]->rank; i++) {
      int ok = 1;
      OsiExpr was = dims[off + i];
      dims[off + i] = osi_broadcast_dim(s, was, in[k]->dims[i], &ok);
      OsiStatus st = ok ? require_one_or(ctx, k, i, off + i, was, in[k]->dims[i]) : OSI_OK;
      if (st != OSI_OK) return st;
      if (!ok)
        return osi_op_fail(ctx, OSI_ERR_SHAPE_MISMATCH,
                           "input %d dim %d is %s, which does not broadcast with %s", k, i,
                           osi_expr_str(s, in[k]->dims[i]), osi_expr_str(s, dims[off + i]));
    }
  }
  *rank = r;
  return OSI_OK;
}

OsiStatus osi_require_broadcast_to_in(OsiOpCtx *ctx, const char *rule_head, const char *rule_tail, int in, int rank,
                                      const OsiExpr *to, const char *to_what) {
  OsiExprStore *s = osi_op_exprs(ctx);
  const OsiType *t = osi_in_ranked(ctx, in);
  if (!t || rank < 0) return OSI_OK;
  char label[96];
  if (t->rank > rank)
    return osi_op_fail(ctx, OSI_ERR_SHAPE_MISMATCH, "%s%s%s%s has rank %d, more than the %d dims of %s it must broadcast to",
                       rule_head ? rule_head : "", rule_head && rule_tail ? rule_tail : "", rule_head ? ": " : "",
                       osi_op_input_label(ctx, in, label, sizeof label), t->rank, rank, to_what);
  for (int k = 0; k < t->rank; k++) {
    int64_t c;
    if (!osi_expr_is_const(s, t->dims[k], &c) || c == 1) continue;
    int j = k + rank - t->rank;
    OsiStatus st = osi_op_require_eq_in(ctx, rule_head, rule_tail, t->dims[k], OSI_DIM(in, k), to[j],
                                        OSI_DIM_OF(j, to_what));
    if (st != OSI_OK) return st;
  }
  return OSI_OK;
}

OsiStatus osi_require_broadcast_to(OsiOpCtx *ctx, const char *rule, int in, int rank, const OsiExpr *to,
                                   const char *to_what) {
  return osi_require_broadcast_to_in(ctx, rule, NULL, in, rank, to, to_what);
}

OsiStatus osi_require_sizes(OsiOpCtx *ctx, const char *what, int n, const OsiExpr *sizes) {
  OsiExprStore *s = osi_op_exprs(ctx);
  for (int i = 0; i < n; i++) {
    int64_t c;
    if (osi_expr_is_const(s, sizes[i], &c) && c < 0)
      return osi_op_fail(ctx, OSI_ERR_INVALID_MODEL, "%s: %s has %lld at entry %d; sizes are at least 0",
                         osi_op_type(ctx), what, (long long)c, i);
  }
  return OSI_OK;
}

int osi_in_length(const OsiOpCtx *ctx, int i) {
  const OsiType *t = osi_in_ranked(ctx, i);
  int64_t n;
  if (!t || !osi_in_present(ctx, i)) return -1;
  if (t->value) return t->value->count <= OSI_MAX_RANK ? (int)t->value->count : -1;
  if (t->rank == 1 && osi_expr_is_const(osi_op_exprs((OsiOpCtx *)ctx), t->dims[0], &n) && n <= OSI_MAX_RANK)
    return (int)n;
  return -1;
}

int osi_in_exprs(const OsiOpCtx *ctx, int i, const OsiExpr **out) {
  const OsiValue *v = osi_in_value(ctx, i);
  if (!v || !v->ints) return -1;
  *out = v->ints;
  return (int)v->count;
}

int osi_in_ints(const OsiOpCtx *ctx, int i, int64_t *out, int max) {
  const OsiExpr *e;
  int n = osi_in_exprs(ctx, i, &e);
  if (n < 0 || n > max) return -1;
  OsiExprStore *s = osi_op_exprs((OsiOpCtx *)ctx);
  for (int k = 0; k < n; k++)
    if (!osi_expr_is_const(s, e[k], &out[k])) return -1;
  return n;
}

int osi_attr_or_input_ints(const OsiOpCtx *ctx, const char *name, int i, int64_t *out, int max) {
  const int64_t *a;
  int n = osi_attr_ints(ctx, name, &a);
  if (n >= 0) {
    if (n > max) return -1;
    memcpy(out, a, (size_t)n * sizeof(int64_t));
    return n;
  }
  if (!osi_in_present(ctx, i)) return -2;
  return osi_in_ints(ctx, i, out, max);
}

void osi_set_value(OsiOpCtx *ctx, OsiType *t, int64_t count, const OsiExpr *elems) {
  OsiExpr *dst;
  OsiValue *v = osi_value_ints(osi_op_arena(ctx), count, &dst);
  if (!v) return;
  if (count) memcpy(dst, elems, (size_t)count * sizeof(OsiExpr));
  t->value = v;
}

int64_t osi_static_count(OsiOpCtx *ctx, const OsiType *t) {
  if (!t || t->rank < 0) return -1;
  OsiExprStore *s = osi_op_exprs(ctx);
  int64_t n = 1;
  for (int i = 0; i < t->rank; i++) {
    int64_t d;
    if (!osi_expr_is_const(s, t->dims[i], &d) || d < 0) return -1;
    if (__builtin_mul_overflow(n, d, &n) || n > OSI_MAX_VALUE_ELEMS) return -1;
  }
  return n;
}

/* Row-major index of the input element that output element `flat` reads
 * under broadcasting. */
static int64_t broadcast_index(const int64_t *out_dims, int out_rank, const int64_t *in_dims,
                               int in_rank, int64_t flat) {
  int64_t idx = 0, stride = 1;
  for (int k = out_rank - 1; k >= 0; k--) {
    int64_t coord = flat % out_dims[k];
    flat /= out_dims[k];
    int ik = k - (out_rank - in_rank);
    if (ik >= 0) {
      if (in_dims[ik] != 1) idx += coord * stride;
      stride *= in_dims[ik];
    }
  }
  return idx;
}

static int const_dims(OsiExprStore *s, const OsiType *t, int64_t *dims) {
  for (int i = 0; i < t->rank; i++)
    if (!osi_expr_is_const(s, t->dims[i], &dims[i])) return 0;
  return 1;
}

void osi_value_binary(OsiOpCtx *ctx, OsiType *out, const OsiType *a, const OsiType *b,
                      OsiExprBinary fn) {
  if (!out || !a || !b || !a->value || !b->value || !a->value->ints || !b->value->ints) return;
  int64_t n = osi_static_count(ctx, out);
  if (n < 0) return;
  OsiExprStore *s = osi_op_exprs(ctx);
  int64_t od[OSI_MAX_RANK], ad[OSI_MAX_RANK], bd[OSI_MAX_RANK];
  if (!const_dims(s, out, od) || !const_dims(s, a, ad) || !const_dims(s, b, bd)) return;
  OsiExpr *elems;
  OsiValue *v = osi_value_ints(osi_op_arena(ctx), n, &elems);
  if (!v) return;
  for (int64_t k = 0; k < n; k++) {
    int64_t ia = broadcast_index(od, out->rank, ad, a->rank, k);
    int64_t ib = broadcast_index(od, out->rank, bd, b->rank, k);
    if (ia >= a->value->count || ib >= b->value->count) return;
    elems[k] = fn(s, a->value->ints[ia], b->value->ints[ib]);
  }
  out->value = v;
}

void osi_value_strided(OsiOpCtx *ctx, OsiType *y, const OsiType *x, const int *perm,
                       const int64_t *begin, const int64_t *step) {
  if (!y || !x || !x->value || x->rank != y->rank || x->rank < 1) return;
  OsiExprStore *s = osi_op_exprs(ctx);
  int64_t xd[OSI_MAX_RANK], yd[OSI_MAX_RANK], stride[OSI_MAX_RANK];
  int64_t n = osi_static_count(ctx, y), total = osi_static_count(ctx, x);
  if (n < 0 || total != x->value->count || !const_dims(s, x, xd) || !const_dims(s, y, yd)) return;
  for (int a = x->rank - 1, acc = 1; a >= 0; a--) { /* total <= OSI_MAX_VALUE_ELEMS: no overflow */
    stride[a] = acc;
    acc *= (int)xd[a];
  }
  OsiExpr *elems = NULL;
  const OsiExpr *from = x->value->ints ? x->value->ints : x->value->floats;
  OsiValue *v = x->value->ints ? osi_value_ints(osi_op_arena(ctx), n, &elems)
                               : osi_value_floats(osi_op_arena(ctx), n, &elems);
  if (!v || !from) return;
  for (int64_t flat = 0; flat < n; flat++) {
    int64_t rest = flat, src = 0;
    for (int k = y->rank - 1; k >= 0; k--) {
      int64_t i = rest % yd[k], a = perm[k];
      rest /= yd[k];
      /* |begin| and |step| may be anything a model writes: stay in int64. */
      int64_t at;
      if (__builtin_mul_overflow(i, step ? step[a] : 1, &at) ||
          __builtin_add_overflow(at, begin ? begin[a] : 0, &at) ||
          at < 0 || at >= xd[a])
        return;
      src += at * stride[a];
    }
    elems[flat] = from[src];
  }
  y->value = v;
}

/* Section - Type merging (control flow and sequences) */

static int same_value(const OsiValue *a, const OsiValue *b) {
  if (a == b) return 1;
  if (!a || !b || a->count != b->count || !a->ints != !b->ints) return 0;
  if (a->ints) return memcmp(a->ints, b->ints, (size_t)a->count * sizeof(OsiExpr)) == 0;
  return memcmp(a->floats, b->floats, (size_t)a->count * sizeof(OsiExpr)) == 0;
}

/* Kinds and element types of t, every shape unknown. */
static const OsiType *type_skeleton(OsiArena *arena, const OsiType *t) {
  if (!t) return NULL;
  OsiType *r;
  if (t->kind == OSI_KIND_TENSOR || t->kind == OSI_KIND_SPARSE_TENSOR) {
    r = osi_type_tensor(arena, t->elem_type, -1);
  } else {
    r = osi_type_copy(arena, t);
    if (r) r->elem = type_skeleton(arena, t->elem), r->elems = NULL;
  }
  if (r) {
    r->kind = t->kind;
    r->value = NULL;
    r->length = OSI_EXPR_UNKNOWN;
  }
  return r;
}

const OsiType *osi_type_merge(OsiOpCtx *ctx, const OsiType *a, const OsiType *b,
                              OsiDimMerge merge, void *user) {
  OsiArena *arena = osi_op_arena(ctx);
  if (!a || !b) return type_skeleton(arena, a ? a : b);
  if (a == b) return a;
  if (a->kind != b->kind || a->kind == OSI_KIND_UNKNOWN) return NULL;
  int32_t dtype = a->elem_type == b->elem_type ? a->elem_type : 0;
  if (a->kind != OSI_KIND_TENSOR && a->kind != OSI_KIND_SPARSE_TENSOR) {
    OsiType *r = osi_type_copy(arena, a);
    if (!r) return NULL;
    r->elem_type = dtype;
    r->length = a->length == b->length ? a->length : OSI_EXPR_UNKNOWN;
    /* An empty sequence has no elements to constrain the other's. */
    int64_t n;
    if (osi_expr_is_const(osi_op_exprs(ctx), a->length, &n) && n == 0) r->elem = b->elem;
    else if (osi_expr_is_const(osi_op_exprs(ctx), b->length, &n) && n == 0) r->elem = a->elem;
    else r->elem = osi_type_merge(ctx, a->elem, b->elem, merge, user);
    /* Element i is a's or b's element i. */
    r->elems = NULL;
    int na, nb;
    const OsiType *const *ea = osi_type_seq_elems(a, &na), *const *eb = osi_type_seq_elems(b, &nb);
    const OsiType **e = ea && eb && na == nb && r->length == a->length
                            ? osi_arena_array(arena, (size_t)na + 1, sizeof *e) : NULL;
    for (int i = 0; e && i < na; i++) e[i] = osi_type_merge(ctx, ea[i], eb[i], merge, user);
    if (e) r->elems = e, r->n_elems = na;
    return r;
  }
  int rank = a->rank == b->rank ? a->rank : -1;
  OsiType *r = osi_type_tensor(arena, dtype, rank);
  if (!r) return NULL;
  r->kind = a->kind;
  OsiExpr *d = osi_type_dims_mut(r);
  int same = rank >= 0;
  for (int i = 0; i < rank; i++) {
    d[i] = a->dims[i];
    if (a->dims[i] == b->dims[i]) continue;
    same = 0;
    d[i] = merge ? merge(ctx, a->dims[i], b->dims[i], i, user) : OSI_EXPR_UNKNOWN;
  }
  if (same && dtype == a->elem_type && same_value(a->value, b->value)) r->value = a->value;
  return r;
}

/* Section - MatMul (also used by quantization.c for QLinearMatMul) */

/* 1-D operands are promoted (and the added dim removed again); batch
 * dims broadcast. checked: the operands are as onnxruntime's matmul helper
 * sees them (not a rebuilt B of a packed weight), so its refusals of empty
 * dims apply. */
static OsiStatus matmul_shapes(OsiOpCtx *ctx, const OsiType *a, const OsiType *b, int32_t dtype,
                               int a_in, int b_in, int checked);

OsiStatus osi_matmul_out(OsiOpCtx *ctx, int a_in, int b_in, int32_t dtype) {
  return matmul_shapes(ctx, osi_in_ranked(ctx, a_in), osi_in_ranked(ctx, b_in), dtype, a_in, b_in, 1);
}

OsiStatus osi_matmul_shapes(OsiOpCtx *ctx, const OsiType *a, const OsiType *b, int32_t dtype) {
  return matmul_shapes(ctx, a, b, dtype, -1, -1, 0);
}

OsiStatus osi_matmul_operands(OsiOpCtx *ctx, const OsiType *a, const OsiType *b, int32_t dtype) {
  return matmul_shapes(ctx, a, b, dtype, -1, -1, 1);
}

/* "dim i of input 'a'" (operand: "A" when rebuilt). */
static const char *operand_dim(OsiOpCtx *ctx, int in, int i, const char *operand, char *buf, size_t cap) {
  char label[96];
  snprintf(buf, cap, "dim %d of %s", i, in >= 0 ? osi_op_input_label(ctx, in, label, sizeof label) : operand);
  return buf;
}

/* Dim i of operand t (input `in`, -1 when rebuilt), a symbol, meets the
 * constant c (0 or 1) of the other operand: it must be c's partner. */
static OsiStatus require_partner(OsiOpCtx *ctx, const OsiType *t, int in, int i, int64_t c, const char *operand,
                                 const char *other) {
  OsiExprStore *s = osi_op_exprs(ctx);
  char dim[160], what[240];
  snprintf(what, sizeof what, "%s (%s's is %lld there, and onnxruntime broadcasts a 1 up only)",
           operand_dim(ctx, in, i, operand, dim, sizeof dim), other, (long long)c);
  if (c == 1) return osi_op_require_le(ctx, "MatMul", osi_expr_const(s, 1), OSI_WHAT("1"), t->dims[i], OSI_WHAT(what));
  return osi_op_require_eq(ctx, "MatMul", t->dims[i], OSI_WHAT(what), osi_expr_const(s, 0), OSI_WHAT("0"));
}

/* Whether dim i of B's batch is its only batch dim that is not a 1. */
static int only_symbol(OsiExprStore *s, const OsiType *b, int i) {
  int64_t c;
  for (int j = 0; j < b->rank - 2; j++)
    if (j != i && !(osi_expr_is_const(s, b->dims[j], &c) && c == 1)) return 0;
  return 1;
}

/* A's dim `at` is 0 where B's is 1: onnxruntime runs that only when it
 * folds A's batch into rows, so every dim of B's batch is 1. */
static OsiStatus require_fold(OsiOpCtx *ctx, const OsiType *b, int b_in, int at) {
  OsiExprStore *s = osi_op_exprs(ctx);
  char dim[160], why[160];
  snprintf(why, sizeof why, "1 (A's dim %d is 0 against a 1: onnxruntime runs that only with B's batch all 1)", at);
  for (int j = 0; j < b->rank - 2; j++) {
    OsiStatus st = osi_op_require_eq(ctx, "MatMul", b->dims[j], OSI_WHAT(operand_dim(ctx, b_in, j, "B", dim, sizeof dim)),
                                     osi_expr_const(s, 1), OSI_WHAT(why));
    if (st != OSI_OK) return st;
  }
  return OSI_OK;
}

/* onnxruntime's matmul helper pads the operands to one rank (a 1-D B to
 * [1.., K, 1], so every dim of A but the last meets a 1 of B; a 1-D A to
 * [1.., K]) and broadcasts every position but the last two to the larger
 * size, refusing a side that is neither it nor 1: a 0 against a 1 fails
 * (numpy gives 0), and so does a 0 against a size above 1. It compares
 * nothing when it folds A's batch into rows: A and B of rank >= 2, B's not
 * above A's, B's batch dims all 1. So a size that meets a 1 is required
 * >= 1 and one that meets a 0 is required 0 (sizes above 1 are
 * osi_broadcast's), except where the fold may still happen: on A's side
 * against a 1, on B's against a 0, while B's batch dims are symbols that
 * may all be 1. Two symbols are left alone. */
static OsiStatus require_nonempty_batch(OsiOpCtx *ctx, const OsiType *a, const OsiType *b, int a_in, int b_in) {
  OsiExprStore *s = osi_op_exprs(ctx);
  int64_t c;
  int may_fold = a->rank >= 2 && b->rank >= 2 && a->rank >= b->rank, folds = may_fold;
  for (int i = 0; may_fold && i < b->rank - 2; i++) {
    int k = osi_expr_is_const(s, b->dims[i], &c);
    if (k && c != 1) may_fold = folds = 0;
    if (!k) folds = 0;
  }
  if (folds) return OSI_OK;
  OsiExpr one = osi_expr_const(s, 1);
  int n = a->rank > b->rank ? a->rank : b->rank;
  int compared = b->rank == 1 ? a->rank - 1 : n - 2;
  for (int p = 0; p < compared; p++) {
    int ia = a->rank == 1 ? -1 : p - (n - a->rank), ib = b->rank == 1 ? -1 : p - (n - b->rank);
    OsiExpr xa = ia < 0 ? one : a->dims[ia], xb = ib < 0 ? one : b->dims[ib];
    int64_t ca, cb;
    int ka = osi_expr_is_const(s, xa, &ca), kb = osi_expr_is_const(s, xb, &cb);
    OsiStatus st = OSI_OK;
    char dim[160];
    if (xa == OSI_EXPR_UNKNOWN || xb == OSI_EXPR_UNKNOWN) continue;
    if (ka && kb && ca == 0 && cb == 1 && may_fold) /* runs only folded: B's batch all 1 */
      st = require_fold(ctx, b, b_in, ia);
    else if (ka && !kb && ca == 0 && may_fold && only_symbol(s, b, ib)) /* 0 itself, or 1 and folded */
      st = osi_op_require_le(ctx, "MatMul", xb, OSI_WHAT(operand_dim(ctx, b_in, ib, "B", dim, sizeof dim)), one,
                             OSI_WHAT("1 (A's is 0 there: B's batch must be 0 there or all 1)"));
    else if (ka && kb && ((ca == 0 && cb == 1 && !may_fold) || (ca == 1 && cb == 0)))
      st = osi_op_fail(ctx, OSI_ERR_SHAPE_MISMATCH, "MatMul: %s is 0 where %s has 1 (onnxruntime broadcasts a 1 up only)",
                       ca == 0 ? operand_dim(ctx, a_in, ia, "A", dim, sizeof dim) : operand_dim(ctx, b_in, ib, "B", dim, sizeof dim),
                       ca == 0 ? "B" : "A");
    else if (!ka && kb && (cb == 0 || (cb == 1 && !may_fold)))
      st = require_partner(ctx, a, a_in, ia, cb, "A", "B");
    else if (ka && !kb && (ca == 1 || (ca == 0 && !may_fold)))
      st = require_partner(ctx, b, b_in, ib, ca, "B", "A");
    if (st != OSI_OK) return st;
  }
  return OSI_OK;
}

/* a_in, b_in: the inputs a and b are (for messages), -1 when rebuilt. */
static OsiStatus matmul_shapes(OsiOpCtx *ctx, const OsiType *a, const OsiType *b, int32_t dtype,
                               int a_in, int b_in, int checked) {
  OsiExprStore *s = osi_op_exprs(ctx);
  if (!a || !b || a->rank < 0 || b->rank < 0) {
    osi_out_tensor(ctx, 0, dtype, -1);
    return OSI_OK;
  }
  if (a->rank == 0 || b->rank == 0)
    return osi_op_fail(ctx, OSI_ERR_SHAPE_MISMATCH, "MatMul operands must have rank >= 1");
  OsiExpr one = osi_expr_const(s, 1);
  OsiExpr ad[OSI_MAX_RANK + 1], bd[OSI_MAX_RANK + 1];
  int ar = a->rank, br = b->rank;
  if (ar == 1) { ad[0] = one; ad[1] = a->dims[0]; ar = 2; } else memcpy(ad, a->dims, (size_t)ar * sizeof(OsiExpr));
  if (br == 1) { bd[0] = b->dims[0]; bd[1] = one; br = 2; } else memcpy(bd, b->dims, (size_t)br * sizeof(OsiExpr));
  OsiWhat wa = a_in >= 0 ? OSI_DIM(a_in, a->rank - 1) : OSI_WHAT("the last dim of A");
  OsiWhat wb = b_in >= 0 ? OSI_DIM(b_in, b->rank == 1 ? 0 : b->rank - 2)
                         : OSI_WHAT(b->rank == 1 ? "the dim of B" : "the second-to-last dim of B");
  OsiStatus rs = osi_op_require_eq(ctx, "MatMul inner dims", bd[br - 2], wb, ad[ar - 1], wa);
  if (rs == OSI_OK && checked) rs = require_nonempty_batch(ctx, a, b, a_in, b_in);
  if (rs != OSI_OK) return rs;
  OsiType ba = {.kind = OSI_KIND_TENSOR, .elem_type = dtype, .rank = ar - 2, .dims = ad};
  OsiType bb = {.kind = OSI_KIND_TENSOR, .elem_type = dtype, .rank = br - 2, .dims = bd};
  const OsiType *batch[2] = {&ba, &bb};
  OsiExpr dims[OSI_MAX_RANK + 2];
  int r = -1;
  OsiStatus st = osi_broadcast(ctx, batch, 2, &r, dims);
  if (st != OSI_OK) return st;
  if (a->rank > 1) dims[r++] = ad[ar - 2];
  if (b->rank > 1) dims[r++] = bd[br - 1];
  OsiType *y = osi_out_tensor(ctx, 0, dtype, r);
  if (y && r) memcpy(osi_type_dims_mut(y), dims, (size_t)r * sizeof(OsiExpr));
  return OSI_OK;
}
