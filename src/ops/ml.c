/*
 * The ai.onnx.ml domain (classical machine learning): encoders, scalers,
 * linear/SVM/tree models, map and sequence conversions. Batched models read
 * X as [N, F] ([F] counts as one example where the spec says so); label
 * outputs are string when classlabels_strings is set, else int64. Where
 * the spec and the runtimes disagree on a shape (1-D inputs of regressors,
 * the rank of map conversions) only the element type is inferred.
 */
#include <string.h>

#include "ops/helpers.h"

/* Entries of a STRINGS attribute, -1 when absent. */
static int strings_count(const OsiOpCtx *ctx, const char *name) {
  const OsiAttr *a = osi_attr(ctx, name);
  return a && a->type == OSI_ATTR_STRINGS ? (int)a->n : -1;
}

/* Label type of classifiers: string when classlabels_strings is non-empty. */
static int32_t label_dtype(const OsiOpCtx *ctx) {
  return strings_count(ctx, "classlabels_strings") > 0 ? OSI_DT_STRING : OSI_DT_INT64;
}

/* Number of class labels (strings or ints_name), -1 when neither is set. */
static int label_count(const OsiOpCtx *ctx, const char *ints_name) {
  const int64_t *v;
  int n = strings_count(ctx, "classlabels_strings");
  return n > 0 ? n : osi_attr_ints(ctx, ints_name, &v);
}

/* Batch size N of X: dim 0 of [N, F]; 1 for [F] when one_d_is_batch.
 * Returns 0 (N unknown) for an unranked X or a 1-D X otherwise; fails on
 * other ranks. */
static OsiStatus batch_dim(OsiOpCtx *ctx, int one_d_is_batch, OsiExpr *n, int *known) {
  const OsiType *x = osi_in_ranked(ctx, 0);
  *n = OSI_EXPR_UNKNOWN;
  *known = 0;
  if (!x) return OSI_OK;
  if (x->rank != 1 && x->rank != 2)
    return osi_op_fail(ctx, OSI_ERR_SHAPE_MISMATCH, "%s input must be [N, F] or [F] (got rank %d)",
                       osi_op_type(ctx), x->rank);
  if (x->rank == 1 && !one_d_is_batch) return OSI_OK;
  *n = x->rank == 2 ? x->dims[0] : osi_expr_const(osi_op_exprs(ctx), 1);
  *known = 1;
  return OSI_OK;
}

/* Publishes a 2-D output [a, b]. */
static void out_2d(OsiOpCtx *ctx, int i, int32_t dtype, OsiExpr a, OsiExpr b) {
  OsiType *t = osi_out_tensor(ctx, i, dtype, 2);
  if (!t) return;
  osi_type_dims_mut(t)[0] = a;
  osi_type_dims_mut(t)[1] = b;
}

/* Publishes a 1-D output [a]. */
static void out_1d(OsiOpCtx *ctx, int i, int32_t dtype, OsiExpr a) {
  OsiType *t = osi_out_tensor(ctx, i, dtype, 1);
  if (t) osi_type_dims_mut(t)[0] = a;
}

/* ArrayFeatureExtractor: X [..., F] with indices Y -> [..., numel(Y)];
 * a 1-D X gives [1, numel(Y)] (as onnxruntime and the reference do). */
OsiStatus osi_op_ml_array_feature_extractor(OsiOpCtx *ctx) {
  OsiExprStore *s = osi_op_exprs(ctx);
  const OsiType *x = osi_in_ranked(ctx, 0), *idx = osi_in(ctx, 1);
  if (!x) {
    osi_out_tensor(ctx, 0, osi_in_dtype(ctx, 0), -1);
    return OSI_OK;
  }
  if (x->rank == 0) return osi_op_fail(ctx, OSI_ERR_SHAPE_MISMATCH, "ArrayFeatureExtractor X must not be a scalar");
  OsiExpr count = idx && idx->kind == OSI_KIND_TENSOR ? osi_type_numel(s, idx) : OSI_EXPR_UNKNOWN;
  OsiType *z = osi_out_tensor(ctx, 0, x->elem_type, x->rank == 1 ? 2 : x->rank);
  if (!z) return OSI_OK;
  OsiExpr *d = osi_type_dims_mut(z);
  if (x->rank == 1) d[0] = osi_expr_const(s, 1);
  for (int i = 0; i < x->rank - 1; i++) d[i] = x->dims[i];
  d[x->rank == 1 ? 1 : x->rank - 1] = count;
  return OSI_OK;
}

/* Binarizer, Imputer: X's element type and shape. */
OsiStatus osi_op_ml_same(OsiOpCtx *ctx) { return osi_out_same_as_input(ctx, 0, 0); }

/* Normalizer, Scaler: float output of X's shape. */
OsiStatus osi_op_ml_float_same(OsiOpCtx *ctx) {
  osi_out_like(ctx, 0, OSI_DT_FLOAT, osi_in(ctx, 0));
  return OSI_OK;
}

/* CastMap: element type from cast_to (TO_FLOAT default, TO_STRING,
 * TO_INT64). The shape is left unknown: the spec says 1-D but onnxruntime
 * produces [1, n], and n is the map size for DENSE. */
OsiStatus osi_op_ml_cast_map(OsiOpCtx *ctx) {
  const char *to = osi_attr_str(ctx, "cast_to", "TO_FLOAT");
  int32_t dt = !strcmp(to, "TO_FLOAT") ? OSI_DT_FLOAT : !strcmp(to, "TO_STRING") ? OSI_DT_STRING
             : !strcmp(to, "TO_INT64") ? OSI_DT_INT64 : 0;
  if (!dt) return osi_op_fail(ctx, OSI_ERR_INVALID_MODEL, "cast_to '%s' is not TO_FLOAT, TO_STRING or TO_INT64", to);
  osi_out_tensor(ctx, 0, dt, -1);
  return OSI_OK;
}

/* CategoryMapper: string <-> int64 (the other type of the input), same
 * shape. */
OsiStatus osi_op_ml_category_mapper(OsiOpCtx *ctx) {
  int32_t in = osi_in_dtype(ctx, 0);
  int32_t dt = in == OSI_DT_STRING ? OSI_DT_INT64 : in == OSI_DT_INT64 ? OSI_DT_STRING : 0;
  osi_out_like(ctx, 0, dt, osi_in(ctx, 0));
  return OSI_OK;
}

/* DictVectorizer: map(K, V) -> tensor of V holding one entry per
 * vocabulary word. The rank is left unknown: the spec says [1, C], the
 * reference implementation returns [C] for a single map. */
OsiStatus osi_op_ml_dict_vectorizer(OsiOpCtx *ctx) {
  const OsiType *m = osi_in(ctx, 0);
  int32_t dt = m && m->kind == OSI_KIND_MAP && m->elem && m->elem->kind == OSI_KIND_TENSOR ? m->elem->elem_type : 0;
  osi_out_tensor(ctx, 0, dt, -1);
  return OSI_OK;
}

/* FeatureVectorizer: inputs [N, C_i] (1-D as [1, C_i]) each padded or cut
 * to inputdimensions[i], concatenated: float [N, sum(inputdimensions)]. */
OsiStatus osi_op_ml_feature_vectorizer(OsiOpCtx *ctx) {
  OsiExprStore *s = osi_op_exprs(ctx);
  const int64_t *dims;
  int n = osi_attr_ints(ctx, "inputdimensions", &dims);
  OsiExpr total = n >= 0 ? osi_expr_const(s, 0) : OSI_EXPR_UNKNOWN;
  for (int i = 0; i < n; i++) total = osi_expr_add(s, total, osi_expr_const(s, dims[i]));
  const OsiType *x = osi_in_ranked(ctx, 0);
  OsiExpr batch = OSI_EXPR_UNKNOWN;
  if (x && x->rank == 1) batch = osi_expr_const(s, 1);
  else if (x && x->rank == 2) batch = x->dims[0];
  else if (x) return osi_op_fail(ctx, OSI_ERR_SHAPE_MISMATCH, "FeatureVectorizer inputs must be [N, C] or [C] (got rank %d)",
                                 x->rank);
  out_2d(ctx, 0, OSI_DT_FLOAT, batch, total);
  return OSI_OK;
}

/* LabelEncoder: X's shape. Element type: v1 maps string <-> int64; v2+
 * takes the type of the values_* attribute (v4 adds values_tensor). */
OsiStatus osi_op_ml_label_encoder(OsiOpCtx *ctx) {
  const OsiTensor *vt = osi_attr_tensor(ctx, "values_tensor");
  const int64_t *iv;
  const double *fv;
  int32_t dt = 0, in = osi_in_dtype(ctx, 0);
  if (vt) dt = vt->elem_type;
  else if (strings_count(ctx, "values_strings") >= 0) dt = OSI_DT_STRING;
  else if (osi_attr_ints(ctx, "values_int64s", &iv) >= 0) dt = OSI_DT_INT64;
  else if (osi_attr_floats(ctx, "values_floats", &fv) >= 0) dt = OSI_DT_FLOAT;
  else if (osi_op_opset(ctx) < 2) dt = in == OSI_DT_STRING ? OSI_DT_INT64 : in == OSI_DT_INT64 ? OSI_DT_STRING : 0;
  else return osi_op_fail(ctx, OSI_ERR_INVALID_MODEL, "LabelEncoder needs one of the values_* attributes");
  osi_out_like(ctx, 0, dt, osi_in(ctx, 0));
  return OSI_OK;
}

/* LinearClassifier: Y [N] labels, Z float [N, E] with E = len(intercepts),
 * or 2 for one intercept and two labels (binary). [F] counts as [1, F]. */
OsiStatus osi_op_ml_linear_classifier(OsiOpCtx *ctx) {
  OsiExprStore *s = osi_op_exprs(ctx);
  OsiExpr n;
  int known;
  OsiStatus st = batch_dim(ctx, 1, &n, &known);
  if (st != OSI_OK) return st;
  const double *ic;
  int ni = osi_attr_floats(ctx, "intercepts", &ic);
  int nl = label_count(ctx, "classlabels_ints");
  OsiExpr e = ni < 0 ? OSI_EXPR_UNKNOWN : osi_expr_const(s, ni == 1 && nl == 2 ? 2 : ni);
  out_1d(ctx, 0, label_dtype(ctx), n);
  out_2d(ctx, 1, OSI_DT_FLOAT, n, e);
  return OSI_OK;
}

/* LinearRegressor: X [N, F] -> float [N, targets] (default 1 target). */
OsiStatus osi_op_ml_linear_regressor(OsiOpCtx *ctx) {
  OsiExpr n;
  int known;
  OsiStatus st = batch_dim(ctx, 0, &n, &known);
  if (st != OSI_OK) return st;
  if (!known) osi_out_tensor(ctx, 0, OSI_DT_FLOAT, -1);
  else out_2d(ctx, 0, OSI_DT_FLOAT, n, osi_expr_const(osi_op_exprs(ctx), osi_attr_int(ctx, "targets", 1)));
  return OSI_OK;
}

/* OneHotEncoder: float X.shape + [number of categories]; exactly one of
 * cats_int64s / cats_strings. */
OsiStatus osi_op_ml_one_hot_encoder(OsiOpCtx *ctx) {
  const int64_t *v;
  int ni = osi_attr_ints(ctx, "cats_int64s", &v), ns = strings_count(ctx, "cats_strings");
  if ((ni >= 0) == (ns >= 0))
    return osi_op_fail(ctx, OSI_ERR_INVALID_MODEL, "exactly one of cats_int64s and cats_strings must be set");
  const OsiType *x = osi_in_ranked(ctx, 0);
  if (!x || x->rank >= OSI_MAX_RANK) {
    osi_out_tensor(ctx, 0, OSI_DT_FLOAT, -1);
    return OSI_OK;
  }
  OsiType *y = osi_out_tensor(ctx, 0, OSI_DT_FLOAT, x->rank + 1);
  if (!y) return OSI_OK;
  for (int i = 0; i < x->rank; i++) osi_type_dims_mut(y)[i] = x->dims[i];
  osi_type_dims_mut(y)[x->rank] = osi_expr_const(osi_op_exprs(ctx), ni >= 0 ? ni : ns);
  return OSI_OK;
}

/* SVMClassifier: Y [N] labels, Z float [N, ?] (the score count depends on
 * the kernel mode and probability attributes). [F] counts as [1, F]. */
OsiStatus osi_op_ml_svm_classifier(OsiOpCtx *ctx) {
  OsiExpr n;
  int known;
  OsiStatus st = batch_dim(ctx, 1, &n, &known);
  if (st != OSI_OK) return st;
  out_1d(ctx, 0, label_dtype(ctx), n);
  out_2d(ctx, 1, OSI_DT_FLOAT, n, OSI_EXPR_UNKNOWN);
  return OSI_OK;
}

/* SVMRegressor: X [N, F] -> float [N, 1]. */
OsiStatus osi_op_ml_svm_regressor(OsiOpCtx *ctx) {
  OsiExpr n;
  int known;
  OsiStatus st = batch_dim(ctx, 0, &n, &known);
  if (st != OSI_OK) return st;
  if (!known) osi_out_tensor(ctx, 0, OSI_DT_FLOAT, -1);
  else out_2d(ctx, 0, OSI_DT_FLOAT, n, osi_expr_const(osi_op_exprs(ctx), 1));
  return OSI_OK;
}

/* Target count of tree regressors: n_targets, unknown when absent. */
static OsiExpr tree_targets(OsiOpCtx *ctx) {
  int64_t t = osi_attr_int(ctx, "n_targets", -1);
  return t >= 0 ? osi_expr_const(osi_op_exprs(ctx), t) : OSI_EXPR_UNKNOWN;
}

/* TreeEnsemble (ml opset 5): X [N, F] -> [N, n_targets] of X's type. */
OsiStatus osi_op_ml_tree_ensemble(OsiOpCtx *ctx) {
  OsiExpr n;
  int known;
  OsiStatus st = batch_dim(ctx, 0, &n, &known);
  if (st != OSI_OK) return st;
  if (!known) osi_out_tensor(ctx, 0, osi_in_dtype(ctx, 0), -1);
  else out_2d(ctx, 0, osi_in_dtype(ctx, 0), n, tree_targets(ctx));
  return OSI_OK;
}

/* TreeEnsembleRegressor: X [N, F] -> float [N, n_targets]. */
OsiStatus osi_op_ml_tree_regressor(OsiOpCtx *ctx) {
  OsiExpr n;
  int known;
  OsiStatus st = batch_dim(ctx, 0, &n, &known);
  if (st != OSI_OK) return st;
  if (!known) osi_out_tensor(ctx, 0, OSI_DT_FLOAT, -1);
  else out_2d(ctx, 0, OSI_DT_FLOAT, n, tree_targets(ctx));
  return OSI_OK;
}

/* TreeEnsembleClassifier: X [N, F] -> Y [N] labels, Z float [N, E] with E
 * the number of class labels (classlabels_strings or classlabels_int64s). */
OsiStatus osi_op_ml_tree_classifier(OsiOpCtx *ctx) {
  OsiExpr n;
  int known;
  OsiStatus st = batch_dim(ctx, 0, &n, &known);
  if (st != OSI_OK) return st;
  int nl = label_count(ctx, "classlabels_int64s");
  OsiExpr e = nl >= 0 ? osi_expr_const(osi_op_exprs(ctx), nl) : OSI_EXPR_UNKNOWN;
  if (!known) {
    osi_out_tensor(ctx, 0, label_dtype(ctx), -1);
    osi_out_tensor(ctx, 1, OSI_DT_FLOAT, -1);
    return OSI_OK;
  }
  out_1d(ctx, 0, label_dtype(ctx), n);
  out_2d(ctx, 1, OSI_DT_FLOAT, n, e);
  return OSI_OK;
}

/* ZipMap: X [N, C] or [C] -> seq(map(K, float)), K string for
 * classlabels_strings, int64 for classlabels_int64s. */
OsiStatus osi_op_ml_zip_map(OsiOpCtx *ctx) {
  const OsiType *x = osi_in_ranked(ctx, 0);
  if (x && x->rank != 1 && x->rank != 2)
    return osi_op_fail(ctx, OSI_ERR_SHAPE_MISMATCH, "ZipMap input must be 1-D or 2-D (got rank %d)", x->rank);
  const int64_t *v;
  int ns = strings_count(ctx, "classlabels_strings"), ni = osi_attr_ints(ctx, "classlabels_int64s", &v);
  if ((ns > 0) == (ni > 0))
    return osi_op_fail(ctx, OSI_ERR_INVALID_MODEL,
                       "exactly one of classlabels_strings and classlabels_int64s must be set");
  OsiArena *a = osi_op_arena(ctx);
  const OsiType *val = osi_type_tensor(a, OSI_DT_FLOAT, 0);
  const OsiType *map = val ? osi_type_map(a, ns > 0 ? OSI_DT_STRING : OSI_DT_INT64, val) : NULL;
  const OsiType *seq = map ? osi_type_sequence(a, map) : NULL;
  if (seq) osi_set_out(ctx, 0, seq);
  return OSI_OK;
}
