/*
 * String and text operators: StringConcat, StringNormalizer, StringSplit,
 * RegexFullMatch, TfIdfVectorizer. Outputs whose length depends on the
 * strings themselves (stopwords removed, substrings found) get a fresh
 * symbol and a DATA_DEPENDENT diagnostic.
 */
#include "ops/helpers.h"

/* StringConcat-20: numpy broadcast of X and Y, string output. */
OsiStatus osi_op_string_concat(OsiOpCtx *ctx) {
  const OsiType *in[2] = {osi_in(ctx, 0), osi_in(ctx, 1)};
  OsiExpr dims[OSI_MAX_RANK];
  int rank;
  OsiStatus st = osi_broadcast(ctx, in, 2, &rank, dims);
  if (st != OSI_OK) return st;
  OsiType *y = osi_out_tensor(ctx, 0, OSI_DT_STRING, rank);
  for (int i = 0; y && i < rank; i++) osi_type_dims_mut(y)[i] = dims[i];
  return OSI_OK;
}

/* StringNormalizer-10: X is [C] or [1, C]. Without stopwords Y has X's
 * shape; with stopwords the count C' left is data-dependent (and is 1 when
 * every string is dropped). C must be positive. */
OsiStatus osi_op_string_normalizer(OsiOpCtx *ctx) {
  OsiExprStore *s = osi_op_exprs(ctx);
  const OsiType *x = osi_in_ranked(ctx, 0);
  if (!x) {
    osi_out_tensor(ctx, 0, OSI_DT_STRING, -1);
    return OSI_OK;
  }
  int64_t b, c;
  if (x->rank != 1 && x->rank != 2)
    return osi_op_fail(ctx, OSI_ERR_SHAPE_MISMATCH, "StringNormalizer input must be [C] or [1, C] (got rank %d)",
                       x->rank);
  if (x->rank == 2 && osi_expr_is_const(s, x->dims[0], &b) && b != 1)
    return osi_op_fail(ctx, OSI_ERR_SHAPE_MISMATCH, "StringNormalizer input must be [1, C] (got dim 0 = %lld)",
                       (long long)b);
  OsiType *y = osi_out_like(ctx, 0, OSI_DT_STRING, x);
  if (!y) return OSI_OK;
  OsiExpr *d = osi_type_dims_mut(y);
  if (x->rank == 2) d[0] = osi_expr_const(s, 1);
  const OsiAttr *stop = osi_attr(ctx, "stopwords");
  if (stop && stop->type == OSI_ATTR_STRINGS && stop->n > 0) {
    d[x->rank - 1] = osi_op_fresh_dim(ctx, "kept_strings");
    osi_op_diag(ctx, "DATA_DEPENDENT", "the number of strings left after removing stopwords depends on the input");
  } else if (osi_expr_is_const(s, x->dims[x->rank - 1], &c) && c == 0) {
    /* An empty input is outside the spec (C > 0); runtimes differ on it. */
    d[x->rank - 1] = OSI_EXPR_UNKNOWN;
  }
  return OSI_OK;
}

/* StringSplit-20: Y is X's shape plus a last dim holding the most
 * substrings any element split into (data-dependent); Z (int64) is X's
 * shape. */
OsiStatus osi_op_string_split(OsiOpCtx *ctx) {
  const OsiType *x = osi_in_ranked(ctx, 0);
  if (x && x->rank >= OSI_MAX_RANK)
    return osi_op_fail(ctx, OSI_ERR_LIMIT_EXCEEDED, "StringSplit output rank would exceed %d", OSI_MAX_RANK);
  if (osi_out_count(ctx) > 1) osi_out_like(ctx, 1, OSI_DT_INT64, x);
  if (!x) {
    osi_out_tensor(ctx, 0, OSI_DT_STRING, -1);
    return OSI_OK;
  }
  OsiType *y = osi_out_tensor(ctx, 0, OSI_DT_STRING, x->rank + 1);
  if (!y) return OSI_OK;
  OsiExpr *d = osi_type_dims_mut(y);
  for (int i = 0; i < x->rank; i++) d[i] = x->dims[i];
  if (osi_out_present(ctx, 0)) {
    d[x->rank] = osi_op_fresh_dim(ctx, "substrings");
    osi_op_diag(ctx, "DATA_DEPENDENT", "the number of substrings depends on the input strings");
  }
  return OSI_OK;
}

/* RegexFullMatch-20: bool of X's shape. */
OsiStatus osi_op_regex_full_match(OsiOpCtx *ctx) {
  osi_out_like(ctx, 0, OSI_DT_BOOL, osi_in(ctx, 0));
  return OSI_OK;
}

/* TfIdfVectorizer-9: X [C] -> [max(ngram_indexes) + 1], X [N, C] ->
 * [N, max(ngram_indexes) + 1]; float output. */
OsiStatus osi_op_tfidf_vectorizer(OsiOpCtx *ctx) {
  OsiExprStore *s = osi_op_exprs(ctx);
  const int64_t *idx;
  int n = osi_attr_ints(ctx, "ngram_indexes", &idx);
  if (n <= 0)
    return osi_op_fail(ctx, OSI_ERR_INVALID_MODEL, "the attribute 'ngram_indexes' is missing or empty");
  int64_t top = idx[0];
  for (int i = 1; i < n; i++) top = idx[i] > top ? idx[i] : top;
  if (top < 0) return osi_op_fail(ctx, OSI_ERR_INVALID_MODEL, "ngram_indexes are all negative");
  const OsiType *x = osi_in_ranked(ctx, 0);
  if (!x) {
    osi_out_tensor(ctx, 0, OSI_DT_FLOAT, -1);
    return OSI_OK;
  }
  if (x->rank != 1 && x->rank != 2)
    return osi_op_fail(ctx, OSI_ERR_SHAPE_MISMATCH, "TfIdfVectorizer input must be [C] or [N, C] (got rank %d)",
                       x->rank);
  OsiType *y = osi_out_tensor(ctx, 0, OSI_DT_FLOAT, x->rank);
  if (!y) return OSI_OK;
  if (x->rank == 2) osi_type_dims_mut(y)[0] = x->dims[0];
  osi_type_dims_mut(y)[x->rank - 1] = osi_expr_const(s, top + 1);
  return OSI_OK;
}
