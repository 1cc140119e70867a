/*
 * Constant folding, shared between fold.c (the driver's entry, the op
 * table, data movement) and fold_math.c (element semantics per dtype,
 * element-wise ops, Cast, reductions).
 *
 * A content is an array of element expressions (OsiValue.ints for integer
 * and bool tensors, OsiValue.floats for float tensors). Elements follow the
 * tensor's dtype: an integer element is an integer expression whose
 * constant value fits the dtype (a result that does not fit is unknown,
 * never wrapped); a float element is a float expression, symbolic only for
 * float32 (expr_float.c), a constant rounded to the dtype otherwise.
 */
#ifndef OSI_FOLD_INTERNAL_H
#define OSI_FOLD_INTERNAL_H

#include "ops/fold.h"
#include "ops/helpers.h"

#define FOLD_MAX_IN 16

/* One input or output: its dtype, static dims and content. */
typedef struct FoldTensor {
  int present;     /* listed and of known tensor type */
  int shaped;      /* rank and every dim known constants */
  int32_t dtype;
  int rank;
  int64_t dims[OSI_MAX_RANK];
  int64_t count;   /* product of dims when shaped */
  const OsiExpr *e; /* content (count elements) or NULL */
} FoldTensor;

typedef struct Fold {
  OsiOpCtx *ctx;
  OsiExprStore *s;
  int code; /* the table entry's operation */
  int n_in;
  FoldTensor in[FOLD_MAX_IN];
} Fold;

/* Section - Outputs (fold.c) */

/* Writable elements for output i when the rule gave it a static shape of
 * at most OSI_MAX_VALUE_ELEMS elements and no content; *t gets its shape.
 * NULL otherwise. */
OsiExpr *fold_out(Fold *f, int i, FoldTensor *t);
/* Publishes the elements filled in by the caller (none OSI_EXPR_UNKNOWN
 * needed: unknown elements stay unknown). */
void fold_publish(Fold *f, int i, const FoldTensor *t, OsiExpr *elems);

/* Row-major index in an input of shape (dims, rank) that output element
 * `flat` of shape (out, out_rank) reads under numpy broadcasting. */
int64_t fold_broadcast_index(const int64_t *out, int out_rank, const int64_t *dims, int rank,
                             int64_t flat);

/* Section - Element semantics (fold_math.c) */

/* Dtypes whose elements the fold computes: integers, bool, float, double,
 * float16, bfloat16. */
int fold_dtype_ok(int32_t dt);
/* An integer element: v when its constant value fits dt (or it is
 * symbolic), else OSI_EXPR_UNKNOWN. */
OsiExpr fold_int(OsiExprStore *s, int32_t dt, OsiExpr v);
/* A float constant rounded to dt. */
OsiExpr fold_real(OsiExprStore *s, int32_t dt, double v);

enum {
  FB_ADD, FB_SUB, FB_MUL, FB_DIV, FB_MOD, FB_FMOD, FB_POW, FB_MAX, FB_MIN, FB_AND, FB_OR, FB_XOR,
  FB_BITAND, FB_BITOR, FB_BITXOR, FB_SHL, FB_SHR, FB_EQ, FB_LT, FB_LE, FB_GT, FB_GE
};
enum {
  FU_NEG, FU_ABS, FU_FLOOR, FU_CEIL, FU_ROUND, FU_SQRT, FU_RECIP, FU_RELU, FU_SIGN, FU_NOT,
  FU_BITNOT, FU_ISNAN, FU_ISINF, FU_IDENTITY
};

/* a op b for elements of dtype dt (comparisons give bool elements). */
OsiExpr fold_binary(OsiExprStore *s, int op, int32_t dt, OsiExpr a, OsiExpr b);
OsiExpr fold_unary(OsiExprStore *s, int op, int32_t dt, OsiExpr a);
/* Cast of an element from one dtype to another. */
OsiExpr fold_cast(OsiExprStore *s, int32_t from, int32_t to, OsiExpr a);
/* 1 and *truth when the bool element is a known constant. */
int fold_truth(OsiExprStore *s, OsiExpr a, int *truth);

/* Section - Op folds (fold_math.c) */

int fold_elementwise(Fold *f); /* code: FB_* (n-ary folds left to right) */
int fold_unary_op(Fold *f);    /* code: FU_* */
int fold_cast_op(Fold *f);     /* Cast, CastLike */
int fold_where(Fold *f);
int fold_clip(Fold *f);
int fold_reduce(Fold *f);      /* code: FB_ADD sum, FB_MUL prod, FB_MAX, FB_MIN, -1 mean */
int fold_arg_reduce(Fold *f);  /* code: FB_MAX ArgMax, FB_MIN ArgMin */
int fold_cumsum(Fold *f);

#endif
