/*
 * Random generators: RandomNormal/RandomUniform (shape from an attribute),
 * their *Like variants and Bernoulli (shape of the input), Multinomial.
 * Only shapes and element types are inferred; the content is random.
 */
#include "ops/helpers.h"

/* RandomNormal/RandomUniform: the `shape` attribute (required), element
 * type `dtype` (default float). */
OsiStatus osi_op_random(OsiOpCtx *ctx) {
  OsiExprStore *s = osi_op_exprs(ctx);
  const int64_t *shape;
  int n = osi_attr_ints(ctx, "shape", &shape);
  if (n < 0) return osi_op_fail(ctx, OSI_ERR_INVALID_MODEL, "the required attribute 'shape' is missing");
  if (n > OSI_MAX_RANK) return osi_op_fail(ctx, OSI_ERR_LIMIT_EXCEEDED, "the shape input has %d entries; the rank limit is %d", n, OSI_MAX_RANK);
  for (int i = 0; i < n; i++)
    if (shape[i] < 0)
      return osi_op_fail(ctx, OSI_ERR_INVALID_MODEL, "shape entry %d is negative (%lld)", i,
                         (long long)shape[i]);
  OsiType *y = osi_out_tensor(ctx, 0, (int32_t)osi_attr_int(ctx, "dtype", OSI_DT_FLOAT), n);
  if (y)
    for (int i = 0; i < n; i++) osi_type_dims_mut(y)[i] = osi_expr_const(s, shape[i]);
  return OSI_OK;
}

/* RandomNormalLike/RandomUniformLike/Bernoulli: the input's shape; element
 * type `dtype` when given, else the input's. */
OsiStatus osi_op_random_like(OsiOpCtx *ctx) {
  const OsiType *x = osi_in(ctx, 0);
  int32_t dtype = (int32_t)osi_attr_int(ctx, "dtype", osi_in_dtype(ctx, 0));
  osi_out_like(ctx, 0, dtype, x);
  return OSI_OK;
}

/* Multinomial: input [batch, class_size] -> [batch, sample_size] of
 * `dtype` (default int32). */
OsiStatus osi_op_multinomial(OsiOpCtx *ctx) {
  OsiExprStore *s = osi_op_exprs(ctx);
  const OsiType *x = osi_in_ranked(ctx, 0);
  if (x && x->rank != 2)
    return osi_op_fail(ctx, OSI_ERR_SHAPE_MISMATCH, "Multinomial input must be [batch, class_size] (got rank %d)",
                       x->rank);
  int64_t samples = osi_attr_int(ctx, "sample_size", 1);
  if (samples < 0)
    return osi_op_fail(ctx, OSI_ERR_INVALID_MODEL, "sample_size is negative (%lld)", (long long)samples);
  OsiType *y = osi_out_tensor(ctx, 0, (int32_t)osi_attr_int(ctx, "dtype", OSI_DT_INT32), 2);
  if (!y) return OSI_OK;
  osi_type_dims_mut(y)[0] = x ? x->dims[0] : OSI_EXPR_UNKNOWN;
  osi_type_dims_mut(y)[1] = osi_expr_const(s, samples);
  return OSI_OK;
}
