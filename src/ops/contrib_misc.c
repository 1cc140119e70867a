/*
 * com.microsoft (onnxruntime contrib) operators outside the attention,
 * normalization and matmul/quantization families: tensor utilities
 * (Range, ExpandDims, Pad, Unique, UnfoldTensor, ...), signal ops
 * (Rfft/Irfft), text and decoding helpers (Tokenizer, NGram*), the
 * generation loops (BeamSearch, GreedySearch, Sampling) and the external
 * engine containers. Where onnxruntime's schema inference and its kernels
 * disagree, the kernel (what actually runs) decides.
 */
#include <math.h>
#include <string.h>

#include "ops/helpers.h"

/* Section - Same-shape and element-wise */

/* NGramRepeatBlock(input_ids, scores): scores_out has scores' type and
 * shape (batch_size, vocab_size). */
OsiStatus osi_op_ms_ngram_repeat_block(OsiOpCtx *ctx) { return osi_out_same_as_input(ctx, 0, 1); }

/* MurmurHash3(X): X's shape; uint32 when `positive` is 1 (the default),
 * else int32. */
OsiStatus osi_op_ms_murmur_hash3(OsiOpCtx *ctx) {
  int32_t dtype = osi_attr_int(ctx, "positive", 1) == 1 ? OSI_DT_UINT32 : OSI_DT_INT32;
  osi_out_like(ctx, 0, dtype, osi_in(ctx, 0));
  return OSI_OK;
}

/* IsAllFinite(inputs..): a bool scalar; isinf_only and isnan_only cannot
 * both be set. */
OsiStatus osi_op_ms_is_all_finite(OsiOpCtx *ctx) {
  if (osi_attr_int(ctx, "isinf_only", 0) && osi_attr_int(ctx, "isnan_only", 0))
    return osi_op_fail(ctx, OSI_ERR_INVALID_MODEL, "isinf_only and isnan_only are both set");
  osi_out_tensor(ctx, 0, OSI_DT_BOOL, 0);
  return OSI_OK;
}

/* Inverse(X [*, M, M]): X's type and shape; the two innermost dims must
 * be equal. */
OsiStatus osi_op_ms_inverse(OsiOpCtx *ctx) {
  const OsiType *x = osi_in_ranked(ctx, 0);
  int64_t h, w;
  if (x && x->rank < 2) return osi_op_fail(ctx, OSI_ERR_SHAPE_MISMATCH, "X rank %d is below 2", x->rank);
  if (x && osi_expr_is_const(osi_op_exprs(ctx), x->dims[x->rank - 2], &h) &&
      osi_expr_is_const(osi_op_exprs(ctx), x->dims[x->rank - 1], &w) && h != w)
    return osi_op_fail(ctx, OSI_ERR_SHAPE_MISMATCH, "matrices are %lld x %lld, not square", (long long)h,
                       (long long)w);
  return osi_out_same_as_input(ctx, 0, 0);
}

/* Section - Tensor utilities */

/* Range(start, limit[, delta]): the standard Range rule; an omitted delta
 * is 1, giving Max(limit - start, 0) entries for integers and
 * ceil(limit - start) (computed in T, as the kernel) for known floats. */
OsiStatus osi_op_ms_range(OsiOpCtx *ctx) {
  if (osi_in_present(ctx, 2)) return osi_op_range(ctx);
  OsiExprStore *s = osi_op_exprs(ctx);
  int32_t dtype = osi_in_dtype(ctx, 0);
  OsiType *y = osi_out_tensor(ctx, 0, dtype, 1);
  const OsiValue *a = osi_in_value(ctx, 0), *b = osi_in_value(ctx, 1);
  if (!y || !a || !b || a->count != 1 || b->count != 1) return OSI_OK;
  OsiExpr n = OSI_EXPR_UNKNOWN;
  int64_t c;
  if (a->ints && b->ints) {
    n = osi_expr_max(s, osi_expr_sub(s, b->ints[0], a->ints[0]), osi_expr_const(s, 0));
  } else if (a->floats && b->floats) {
    double fa, fb;
    if (!osi_expr_is_fconst(s, a->floats[0], &fa) || !osi_expr_is_fconst(s, b->floats[0], &fb)) return OSI_OK;
    double diff = dtype == OSI_DT_DOUBLE ? fb - fa : (double)((float)fb - (float)fa);
    if (!(fabs(diff) < 9.0e15)) return OSI_OK;
    n = osi_expr_const(s, diff > 0 ? (int64_t)ceil(diff) : 0);
  }
  osi_type_dims_mut(y)[0] = n;
  if (!a->ints || !osi_expr_is_const(s, n, &c) || c > OSI_MAX_VALUE_ELEMS) return OSI_OK;
  OsiExpr *e;
  OsiValue *v = osi_value_ints(osi_op_arena(ctx), c, &e);
  if (!v) return OSI_OK;
  for (int64_t i = 0; i < c; i++) e[i] = osi_expr_add(s, a->ints[0], osi_expr_const(s, i));
  y->value = v;
  return OSI_OK;
}

/* ExpandDims(X, axis): X with a 1 inserted at position `axis` (int32
 * scalar in [-r-1, r]; a negative axis inserts at r + axis + 1, as the
 * kernel does). Content passes through. */
OsiStatus osi_op_ms_expand_dims(OsiOpCtx *ctx) {
  const OsiType *x = osi_in_ranked(ctx, 0);
  int32_t dtype = osi_in_dtype(ctx, 0);
  int64_t axis;
  int pos;
  if (!x) {
    osi_out_tensor(ctx, 0, dtype, -1);
    return OSI_OK;
  }
  if (x->rank + 1 > OSI_MAX_RANK)
    return osi_op_fail(ctx, OSI_ERR_LIMIT_EXCEEDED, "output rank is over the limit");
  if (osi_in_ints(ctx, 1, &axis, 1) != 1) {
    osi_out_tensor(ctx, 0, dtype, x->rank + 1);
    return OSI_OK;
  }
  if (!osi_norm_axis(axis, x->rank + 1, &pos))
    return osi_op_fail(ctx, OSI_ERR_INVALID_MODEL, "axis %lld is out of range [%d, %d]", (long long)axis,
                       -x->rank - 1, x->rank);
  OsiType *y = osi_out_tensor(ctx, 0, dtype, x->rank + 1);
  if (!y) return OSI_OK;
  OsiExpr *d = osi_type_dims_mut(y);
  for (int i = 0, j = 0; i <= x->rank; i++)
    d[i] = i == pos ? osi_expr_const(osi_op_exprs(ctx), 1) : x->dims[j++];
  y->value = x->value;
  return OSI_OK;
}

/* Pad(data, pads[, value]) (contrib): pads holds [begins.., ends..] (a
 * [2 * rank] or [1, 2 * rank] tensor); dim i becomes
 * dim + pads[i] + pads[i + rank]. */
OsiStatus osi_op_ms_pad(OsiOpCtx *ctx) {
  OsiExprStore *s = osi_op_exprs(ctx);
  const OsiType *x = osi_in_ranked(ctx, 0);
  const OsiExpr *p;
  int n = osi_in_exprs(ctx, 1, &p);
  if (!x) {
    osi_out_tensor(ctx, 0, osi_in_dtype(ctx, 0), -1);
    return OSI_OK;
  }
  if (n >= 0 && n != 2 * x->rank)
    return osi_op_fail(ctx, OSI_ERR_INVALID_MODEL, "pads has %d entries; expected %d", n, 2 * x->rank);
  OsiType *y = osi_out_tensor(ctx, 0, x->elem_type, x->rank);
  for (int i = 0; y && n >= 0 && i < x->rank; i++)
    osi_type_dims_mut(y)[i] = osi_expr_add(s, x->dims[i], osi_expr_add(s, p[i], p[i + x->rank]));
  return OSI_OK;
}

/* Unique(x 1-D): y (x's type) and counts (int64) hold the U distinct
 * values, U data-dependent with U <= len(x) (U = len(x) when that is 0 or
 * 1); idx (int64) has one entry per element of x. */
OsiStatus osi_op_ms_unique(OsiOpCtx *ctx) {
  OsiExprStore *s = osi_op_exprs(ctx);
  const OsiType *x = osi_in_ranked(ctx, 0);
  if (x && x->rank != 1)
    return osi_op_fail(ctx, OSI_ERR_SHAPE_MISMATCH, "x must be 1-D (got rank %d)", x->rank);
  OsiExpr n = x ? x->dims[0] : OSI_EXPR_UNKNOWN, u = n;
  int64_t c;
  if (!osi_expr_is_const(s, n, &c) || c > 1) {
    osi_op_diag(ctx, "DATA_DEPENDENT", "the number of unique values depends on the data");
    u = osi_op_fresh_dim(ctx, "unique");
    if (n != OSI_EXPR_UNKNOWN) osi_op_constrain_le(ctx, u, n);
  }
  OsiType *y = osi_out_tensor(ctx, 0, osi_in_dtype(ctx, 0), 1);
  if (y) osi_type_dims_mut(y)[0] = u;
  osi_out_like(ctx, 1, OSI_DT_INT64, x);
  OsiType *counts = osi_out_tensor(ctx, 2, OSI_DT_INT64, 1);
  if (counts) osi_type_dims_mut(counts)[0] = u;
  return OSI_OK;
}

/* UnfoldTensor(input): the slices of `size` every `step` (default 1)
 * along `dim` (default -1): that dim becomes (D - size) // step + 1 and
 * `size` is appended as a new last dim. */
OsiStatus osi_op_ms_unfold_tensor(OsiOpCtx *ctx) {
  OsiExprStore *s = osi_op_exprs(ctx);
  const OsiType *x = osi_in_ranked(ctx, 0);
  int64_t size = osi_attr_int(ctx, "size", -1), step = osi_attr_int(ctx, "step", 1), len;
  int dim;
  if (size <= 0 || step <= 0)
    return osi_op_fail(ctx, OSI_ERR_INVALID_MODEL, "size (required) and step must be positive");
  if (!x) {
    osi_out_tensor(ctx, 0, osi_in_dtype(ctx, 0), -1);
    return OSI_OK;
  }
  if (x->rank + 1 > OSI_MAX_RANK || !osi_norm_axis(osi_attr_int(ctx, "dim", -1), x->rank, &dim))
    return osi_op_fail(ctx, OSI_ERR_INVALID_MODEL, "dim is out of range for rank %d", x->rank);
  if (osi_expr_is_const(s, x->dims[dim], &len) && len < size)
    return osi_op_fail(ctx, OSI_ERR_SHAPE_MISMATCH, "size %lld exceeds the unfolded dim %lld",
                       (long long)size, (long long)len);
  OsiType *y = osi_out_tensor(ctx, 0, x->elem_type, x->rank + 1);
  if (!y) return OSI_OK;
  OsiExpr *d = osi_type_dims_mut(y);
  memcpy(d, x->dims, (size_t)x->rank * sizeof(OsiExpr));
  OsiExpr span = osi_expr_sub(s, x->dims[dim], osi_expr_const(s, size));
  d[dim] = osi_expr_add(s, osi_expr_floordiv(s, span, osi_expr_const(s, step)), osi_expr_const(s, 1));
  d[x->rank] = osi_expr_const(s, size);
  return OSI_OK;
}

/* CDist(A [M, N], B [K, N]): the [M, K] pairwise distances, A's type. */
OsiStatus osi_op_ms_cdist(OsiOpCtx *ctx) {
  OsiExprStore *s = osi_op_exprs(ctx);
  const OsiType *a = osi_in_ranked(ctx, 0), *b = osi_in_ranked(ctx, 1);
  int64_t na, nb;
  if ((a && a->rank != 2) || (b && b->rank != 2))
    return osi_op_fail(ctx, OSI_ERR_SHAPE_MISMATCH, "CDist needs 2-D A and B");
  if (a && b && osi_expr_is_const(s, a->dims[1], &na) && osi_expr_is_const(s, b->dims[1], &nb) && na != nb)
    return osi_op_fail(ctx, OSI_ERR_SHAPE_MISMATCH, "A has %lld columns and B %lld", (long long)na,
                       (long long)nb);
  OsiType *y = osi_out_tensor(ctx, 0, osi_in_dtype(ctx, 0), 2);
  if (!y) return OSI_OK;
  osi_type_dims_mut(y)[0] = a ? a->dims[0] : OSI_EXPR_UNKNOWN;
  osi_type_dims_mut(y)[1] = b ? b->dims[0] : OSI_EXPR_UNKNOWN;
  return OSI_OK;
}

/* CropAndResize(X [N, C, H, W], rois [R, 4], batch_indices [R],
 * crop_size [2]): [R, C, crop_height, crop_width] in X's type. */
OsiStatus osi_op_ms_crop_and_resize(OsiOpCtx *ctx) {
  const OsiType *x = osi_in_ranked(ctx, 0), *rois = osi_in_ranked(ctx, 1), *bi = osi_in_ranked(ctx, 2);
  const OsiExpr *crop;
  int nc = osi_in_exprs(ctx, 3, &crop);
  if ((x && x->rank != 4) || (rois && rois->rank != 2) || (bi && bi->rank != 1))
    return osi_op_fail(ctx, OSI_ERR_SHAPE_MISMATCH,
                       "CropAndResize needs 4-D X, 2-D rois and 1-D batch_indices");
  if (nc >= 0 && nc != 2)
    return osi_op_fail(ctx, OSI_ERR_INVALID_MODEL, "crop_size has %d entries; expected 2", nc);
  OsiType *y = osi_out_tensor(ctx, 0, osi_in_dtype(ctx, 0), 4);
  if (!y) return OSI_OK;
  OsiExpr *d = osi_type_dims_mut(y);
  d[0] = rois && rois->dims[0] != OSI_EXPR_UNKNOWN ? rois->dims[0] : bi ? bi->dims[0] : OSI_EXPR_UNKNOWN;
  d[1] = x ? x->dims[1] : OSI_EXPR_UNKNOWN;
  d[2] = nc == 2 ? crop[0] : OSI_EXPR_UNKNOWN;
  d[3] = nc == 2 ? crop[1] : OSI_EXPR_UNKNOWN;
  return OSI_OK;
}

/* Section - Signal */

/*
 * Rfft(X): X's dims with the last (signal) dim n -> n // 2 + 1 when
 * onesided (the default), then a trailing 2 (real, imaginary).
 * Irfft(X [.., m, 2]): the trailing 2 goes and, when onesided, the last
 * signal dim m becomes 2 * m - 1 (the kernel's rule). signal_ndim counts
 * the signal dims (Rfft default 1; required for Irfft).
 */
OsiStatus osi_op_ms_rfft(OsiOpCtx *ctx) {
  OsiExprStore *s = osi_op_exprs(ctx);
  int inverse = !strcmp(osi_op_type(ctx), "Irfft");
  int64_t ndim = osi_attr_int(ctx, "signal_ndim", inverse ? -1 : 1);
  int onesided = osi_attr_int(ctx, "onesided", 1) != 0;
  const OsiType *x = osi_in_ranked(ctx, 0);
  if (ndim < 1) return osi_op_fail(ctx, OSI_ERR_INVALID_MODEL, "signal_ndim must be set and positive");
  if (!x) {
    osi_out_tensor(ctx, 0, osi_in_dtype(ctx, 0), -1);
    return OSI_OK;
  }
  if (x->rank < ndim + inverse || x->rank + 1 > OSI_MAX_RANK)
    return osi_op_fail(ctx, OSI_ERR_SHAPE_MISMATCH, "X rank %d is too small for signal_ndim %lld", x->rank,
                       (long long)ndim);
  int r = inverse ? x->rank - 1 : x->rank + 1, last = inverse ? r - 1 : x->rank - 1;
  OsiType *y = osi_out_tensor(ctx, 0, x->elem_type, r);
  if (!y) return OSI_OK;
  OsiExpr *d = osi_type_dims_mut(y), n = x->dims[last];
  memcpy(d, x->dims, (size_t)last * sizeof(OsiExpr));
  if (onesided)
    n = inverse ? osi_expr_sub(s, osi_expr_mul(s, n, osi_expr_const(s, 2)), osi_expr_const(s, 1))
                : osi_expr_add(s, osi_expr_floordiv(s, n, osi_expr_const(s, 2)), osi_expr_const(s, 1));
  d[last] = n;
  if (!inverse) d[r - 1] = osi_expr_const(s, 2);
  return OSI_OK;
}

/* Section - Decoding helpers */

/* BifurcationDetector(src_tokens, cur_tokens, prev_suffix_match_idx[,
 * pred_tokens]): tokens is cur_tokens, followed (with pred_tokens) by a
 * data-dependent 1..len(pred_tokens) predicted tokens; suffix_match_idx
 * has prev_suffix_match_idx's shape. int64 throughout. */
OsiStatus osi_op_ms_bifurcation_detector(OsiOpCtx *ctx) {
  OsiExprStore *s = osi_op_exprs(ctx);
  const OsiType *cur = osi_in_ranked(ctx, 1), *pred = osi_in_ranked(ctx, 3);
  if ((cur && cur->rank != 1) || (pred && pred->rank != 1))
    return osi_op_fail(ctx, OSI_ERR_SHAPE_MISMATCH, "cur_tokens and pred_tokens must be 1-D");
  if (!osi_in_present(ctx, 3)) {
    osi_out_like(ctx, 0, OSI_DT_INT64, osi_in(ctx, 1));
  } else {
    OsiExpr n = osi_op_fresh_dim(ctx, "tokens");
    osi_op_diag(ctx, "DATA_DEPENDENT", "how many predicted tokens are kept depends on the data");
    if (cur && pred) {
      osi_op_constrain_le(ctx, osi_expr_add(s, cur->dims[0], osi_expr_const(s, 1)), n);
      osi_op_constrain_le(ctx, n, osi_expr_add(s, cur->dims[0], pred->dims[0]));
    }
    OsiType *t = osi_out_tensor(ctx, 0, OSI_DT_INT64, 1);
    if (t) osi_type_dims_mut(t)[0] = n;
  }
  osi_out_like(ctx, 1, OSI_DT_INT64, osi_in(ctx, 2));
  return OSI_OK;
}

/* DynamicTimeWarping(cost [M, N] or [1, M, N]): int32 [2, x], the path
 * length x data-dependent with max(M, N) <= x <= M + N. */
OsiStatus osi_op_ms_dynamic_time_warping(OsiOpCtx *ctx) {
  OsiExprStore *s = osi_op_exprs(ctx);
  const OsiType *c = osi_in_ranked(ctx, 0);
  if (c && c->rank != 2 && c->rank != 3)
    return osi_op_fail(ctx, OSI_ERR_SHAPE_MISMATCH, "cost must be [M, N] or [1, M, N] (got rank %d)",
                       c->rank);
  OsiExpr x = osi_op_fresh_dim(ctx, "warp_path");
  osi_op_diag(ctx, "DATA_DEPENDENT", "the warping path length depends on the costs");
  if (c) {
    OsiExpr m = c->dims[c->rank - 2], n = c->dims[c->rank - 1];
    if (m != OSI_EXPR_UNKNOWN && n != OSI_EXPR_UNKNOWN) {
      osi_op_constrain_le(ctx, osi_expr_max(s, m, n), x);
      osi_op_constrain_le(ctx, x, osi_expr_add(s, m, n));
    }
  }
  OsiType *y = osi_out_tensor(ctx, 0, OSI_DT_INT32, 2);
  if (y) {
    osi_type_dims_mut(y)[0] = osi_expr_const(s, 2);
    osi_type_dims_mut(y)[1] = x;
  }
  return OSI_OK;
}

/*
 * Tokenizer(X [C] or [N, C] strings): [C, D] or [N, C, D], D (the most
 * tokens in one string, start/end marks included) data-dependent; an
 * empty X gives [0] or [N, 0] instead. A symbolic dim may be 0, which
 * changes the rank, so the rank is then left unknown.
 */
OsiStatus osi_op_ms_tokenizer(OsiOpCtx *ctx) {
  OsiExprStore *s = osi_op_exprs(ctx);
  const OsiType *x = osi_in_ranked(ctx, 0);
  if (x && x->rank != 1 && x->rank != 2)
    return osi_op_fail(ctx, OSI_ERR_SHAPE_MISMATCH, "X must be [C] or [N, C] (got rank %d)", x->rank);
  int64_t numel = x ? osi_static_count(ctx, x) : -1;
  if (!x || (numel < 0 && !osi_expr_is_const(s, osi_type_numel(s, x), &numel))) {
    osi_op_diag(ctx, "DATA_DEPENDENT", "an empty input drops the token axis, so the rank is unknown");
    osi_out_tensor(ctx, 0, OSI_DT_STRING, -1);
    return OSI_OK;
  }
  OsiType *y = osi_out_tensor(ctx, 0, OSI_DT_STRING, numel == 0 ? x->rank : x->rank + 1);
  if (!y) return OSI_OK;
  OsiExpr *d = osi_type_dims_mut(y);
  if (numel == 0) {
    if (x->rank == 2) d[0] = x->dims[0];
    d[x->rank - 1] = osi_expr_const(s, 0);
    return OSI_OK;
  }
  memcpy(d, x->dims, (size_t)x->rank * sizeof(OsiExpr));
  osi_op_diag(ctx, "DATA_DEPENDENT", "the token count per string depends on the data");
  d[x->rank] = osi_op_fresh_dim(ctx, "tokens");
  return OSI_OK;
}

/*
 * NGramHashMapping(input_ids (B, S), ...): hash_ids (B, S, heads) with
 * heads = (max_ngram_size - 1) * n_head_per_ngram, present_ids
 * (B, max_ngram_size - 1); input_ids' type. VarlenNGramHashMapping
 * (input_ids (T), .., cumulative_sequence_length (B + 1), ..): hash_ids
 * (T, heads); present_ids and int32 present_segment_ids (B, max_ngram_size - 1).
 */
OsiStatus osi_op_ms_ngram_hash_mapping(OsiOpCtx *ctx) {
  OsiExprStore *s = osi_op_exprs(ctx);
  int varlen = !strcmp(osi_op_type(ctx), "VarlenNGramHashMapping");
  int64_t m = osi_attr_int(ctx, "max_ngram_size", -1), h = osi_attr_int(ctx, "n_head_per_ngram", -1);
  if (m < 2 || h < 1)
    return osi_op_fail(ctx, OSI_ERR_INVALID_MODEL,
                       "max_ngram_size (>= 2) and n_head_per_ngram (>= 1) are required");
  const OsiType *ids = osi_in_ranked(ctx, 0), *cu = varlen ? osi_in_ranked(ctx, 3) : NULL;
  int32_t dtype = osi_in_dtype(ctx, 0);
  if (ids && ids->rank != (varlen ? 1 : 2))
    return osi_op_fail(ctx, OSI_ERR_SHAPE_MISMATCH, "input_ids has rank %d; expected %d", ids->rank,
                       varlen ? 1 : 2);
  OsiExpr batch =
      varlen ? (cu && cu->rank == 1 ? osi_expr_sub(s, cu->dims[0], osi_expr_const(s, 1)) : OSI_EXPR_UNKNOWN)
      : ids  ? ids->dims[0]
             : OSI_EXPR_UNKNOWN;
  OsiType *y = osi_out_tensor(ctx, 0, dtype, varlen ? 2 : 3);
  if (y) {
    OsiExpr *d = osi_type_dims_mut(y);
    if (ids) memcpy(d, ids->dims, (size_t)ids->rank * sizeof(OsiExpr));
    d[varlen ? 1 : 2] = osi_expr_const(s, (m - 1) * h);
  }
  for (int o = 1; o <= (varlen ? 2 : 1); o++) {
    OsiType *p = osi_out_tensor(ctx, o, o == 2 ? OSI_DT_INT32 : dtype, 2);
    if (!p) continue;
    osi_type_dims_mut(p)[0] = batch;
    osi_type_dims_mut(p)[1] = osi_expr_const(s, m - 1);
  }
  return OSI_OK;
}

/* Section - Generation loops */

/* A scalar or [1] integer input as a dim: its content when known, else a
 * fresh symbol (the value only arrives at run time). */
static OsiExpr value_dim(OsiOpCtx *ctx, int i, const char *what) {
  const OsiExpr *v;
  if (osi_in_exprs(ctx, i, &v) == 1 && v[0] != OSI_EXPR_UNKNOWN) return v[0];
  osi_op_diag(ctx, "DATA_DEPENDENT", "%s (input %d) is only known at run time", what, i);
  return osi_op_fresh_dim(ctx, what);
}

/* A new output o of element type dtype with the n given dims. */
static void out_dims(OsiOpCtx *ctx, int o, int32_t dtype, int n, const OsiExpr *dims) {
  if (!osi_out_present(ctx, o)) return;
  OsiType *t = osi_out_tensor(ctx, o, dtype, n);
  if (t) memcpy(osi_type_dims_mut(t), dims, (size_t)n * sizeof(OsiExpr));
}

/*
 * BeamSearch / WhisperBeamSearch(input_ids, max_length, min_length,
 * num_beams, num_return_sequences, length_penalty, repetition_penalty,
 * ...): sequences int32 (batch, R, max_length); sequences_scores (batch, R)
 * and scores (max_length - sequence_length, batch, num_beams, vocab_size)
 * in T (the penalties' type), R = num_return_sequences. Counts are the
 * inputs' values (fresh symbols when unknown); scores' first dim is known
 * for decoder-only models (model_type 0), vocab_size from its attribute.
 * Whisper adds cross_qk (float [batch, R, cross_qk_layer_head rows or
 * layers*heads, tokens, frames]) and non_speech_probs [batch].
 */
OsiStatus osi_op_ms_beam_search(OsiOpCtx *ctx) {
  OsiExprStore *s = osi_op_exprs(ctx);
  int whisper = !strcmp(osi_op_type(ctx), "WhisperBeamSearch");
  int64_t model = osi_attr_int(ctx, "model_type", whisper ? 2 : 0),
          vocab = osi_attr_int(ctx, "vocab_size", -1);
  int32_t t = osi_in_dtype(ctx, 5) ? osi_in_dtype(ctx, 5) : osi_in_dtype(ctx, 6);
  const OsiType *ids = osi_in_ranked(ctx, 0), *qk = osi_in_ranked(ctx, 12);
  if (ids && ids->rank != (model == 2 ? 3 : 2))
    return osi_op_fail(ctx, OSI_ERR_SHAPE_MISMATCH, "input_ids has rank %d; expected %d", ids->rank,
                       model == 2 ? 3 : 2);
  OsiExpr u = OSI_EXPR_UNKNOWN, batch = ids ? ids->dims[0] : u;
  OsiExpr len = value_dim(ctx, 1, "max_length"), r = value_dim(ctx, 4, "num_return_sequences");
  out_dims(ctx, 0, OSI_DT_INT32, 3, (OsiExpr[]){batch, r, len});
  out_dims(ctx, 1, t, 2, (OsiExpr[]){batch, r});
  if (osi_out_present(ctx, 2)) {
    OsiExpr steps = model == 0 && ids ? osi_expr_sub(s, len, ids->dims[1]) : u;
    OsiExpr v = vocab > 0 ? osi_expr_const(s, vocab) : u;
    out_dims(ctx, 2, t, 4, (OsiExpr[]){steps, batch, value_dim(ctx, 3, "num_beams"), v});
  }
  if (whisper) {
    out_dims(ctx, 3, OSI_DT_FLOAT, 5, (OsiExpr[]){batch, r, qk && qk->rank == 2 ? qk->dims[0] : u, u, u});
    out_dims(ctx, 4, t, 1, (OsiExpr[]){batch});
  }
  return OSI_OK;
}

/* GreedySearch / Sampling(input_ids (batch, sequence_length), max_length,
 * ...): sequences int32 (batch, max_length); Sampling's filtered_logits
 * float (batch, vocab_size), vocab_size from its attribute. */
OsiStatus osi_op_ms_greedy_search(OsiOpCtx *ctx) {
  const OsiType *ids = osi_in_ranked(ctx, 0);
  int64_t vocab = osi_attr_int(ctx, "vocab_size", -1);
  if (ids && ids->rank != 2)
    return osi_op_fail(ctx, OSI_ERR_SHAPE_MISMATCH, "input_ids has rank %d; expected 2", ids->rank);
  OsiExpr batch = ids ? ids->dims[0] : OSI_EXPR_UNKNOWN;
  out_dims(ctx, 0, OSI_DT_INT32, 2, (OsiExpr[]){batch, value_dim(ctx, 1, "max_length")});
  OsiExpr v = vocab > 0 ? osi_expr_const(osi_op_exprs(ctx), vocab) : OSI_EXPR_UNKNOWN;
  out_dims(ctx, 1, OSI_DT_FLOAT, 2, (OsiExpr[]){batch, v});
  return OSI_OK;
}

/* Section - External engines */

/* Snpe / EPContext: the outputs come from an engine payload (an SNPE DLC
 * or an execution provider's context) that the node does not describe. */
OsiStatus osi_op_ms_external(OsiOpCtx *ctx) {
  return osi_op_fail(
      ctx, OSI_ERR_UNSUPPORTED,
      "%s outputs are produced by an external engine payload; their types are not stated in the node",
      osi_op_type(ctx));
}
