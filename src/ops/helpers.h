/*
 * Building blocks shared by the operator families: output construction,
 * axis handling, broadcasting, reading integer lists from attributes or
 * from known input values, and element-wise value propagation.
 */
#ifndef OSI_OPS_HELPERS_H
#define OSI_OPS_HELPERS_H

#include "ops/ops.h"

/* Section - Outputs */

/* A new tensor type for output i with `rank` unknown dims (rank -1:
 * unknown rank), already published; NULL on exhaustion. */
OsiType *osi_out_tensor(OsiOpCtx *ctx, int i, int32_t elem_type, int rank);
/* Output i gets input in's dtype and dims (no value). */
OsiStatus osi_out_same_as_input(OsiOpCtx *ctx, int out, int in);
/* Output i: element type from dtype, dims copied from src (no value). */
OsiType *osi_out_like(OsiOpCtx *ctx, int i, int32_t elem_type, const OsiType *src);

/* Section - Axes */

/* Maps axis in [-rank, rank) to [0, rank); 0 when out of range. */
int osi_norm_axis(int64_t axis, int rank, int *out);

/* Section - Broadcasting */

/* Multidirectional (numpy) broadcast of n tensor types. *rank = -1 when
 * any rank is unknown. dims must hold OSI_MAX_RANK entries. Fails with
 * SHAPE_MISMATCH on incompatible constant dims. */
OsiStatus osi_broadcast(OsiOpCtx *ctx, const OsiType *const *in, int n, int *rank, OsiExpr *dims);
/* Broadcast of two dims (see osi_broadcast); *ok = 0 on a mismatch. */
OsiExpr osi_broadcast_dim(OsiExprStore *s, OsiExpr a, OsiExpr b, int *ok);

/* Requires input `in` (when ranked) to broadcast one way to the
 * `rank` dims `to` (numpy: its dims right-aligned, each 1 or equal; no
 * more dims than `rank`). `to_what` names the target in messages ("the
 * output [M, N]"). A symbolic input dim is not checked (it may be 1); a
 * constant one other than 1 requires the target dim to equal it. */
OsiStatus osi_require_broadcast_to(OsiOpCtx *ctx, const char *rule, int in, int rank, const OsiExpr *to,
                                   const char *to_what);
/* The same with the rule named "<rule_head><rule_tail>", made only for a
 * message (most requirements hold). */
OsiStatus osi_require_broadcast_to_in(OsiOpCtx *ctx, const char *rule_head, const char *rule_tail, int in, int rank,
                                      const OsiExpr *to, const char *to_what);

/* Requires the n entries of `sizes` (a shape input's content, an
 * attribute's sizes) to be sizes: a negative constant is an invalid
 * model ("<what> has -5 at entry 0"). */
OsiStatus osi_require_sizes(OsiOpCtx *ctx, const char *what, int n, const OsiExpr *sizes);

/* Section - Integer lists */

/* Constant integer content of input i (at most max entries). Returns the
 * count, or -1 when the input is absent or its content is not all known
 * constants. */
int osi_in_ints(const OsiOpCtx *ctx, int i, int64_t *out, int max);
/* Integer content of input i as expressions (entries may be symbolic or
 * OSI_EXPR_UNKNOWN). Returns the count, or -1 when the content is unknown. */
int osi_in_exprs(const OsiOpCtx *ctx, int i, const OsiExpr **out);
/* Entries of the 1-D input i: its content's count when known, else its
 * static length (a parameter fed at run time still has a declared shape);
 * -1 when neither is known or it is not 1-D. */
int osi_in_length(const OsiOpCtx *ctx, int i);
/* Ints from attribute `name` when present, else from input i (the usual
 * opset migration of an attribute into an input). -1 when neither is
 * known; -2 when both are absent. */
int osi_attr_or_input_ints(const OsiOpCtx *ctx, const char *name, int i, int64_t *out, int max);

/* Section - Values */

/* Attaches an integer value (count elements) to a freshly built type. */
void osi_set_value(OsiOpCtx *ctx, OsiType *t, int64_t count, const OsiExpr *elems);
/* Total elements of a static type with at most OSI_MAX_VALUE_ELEMS
 * elements, else -1. */
int64_t osi_static_count(OsiOpCtx *ctx, const OsiType *t);

typedef OsiExpr (*OsiExprBinary)(OsiExprStore *s, OsiExpr a, OsiExpr b);
/* Element-wise value of a broadcast binary op, when both inputs' values and
 * the output shape are known: sets out->value. */
void osi_value_binary(OsiOpCtx *ctx, OsiType *out, const OsiType *a, const OsiType *b,
                      OsiExprBinary fn);

/* Content of y taken from x's by axis-wise strides: y's element at
 * (i_0, ..., i_r-1) is x's element whose coordinate on axis perm[k] is
 * begin[perm[k]] + i_k * step[perm[k]] (Transpose: begin and step NULL
 * for 0 and 1; Slice: identity perm). Sets y->value when x's content, x's
 * dims and y's dims are all known and every coordinate falls inside x. */
void osi_value_strided(OsiOpCtx *ctx, OsiType *y, const OsiType *x, const int *perm,
                       const int64_t *begin, const int64_t *step);

/* Section - Type merging (control flow and sequences) */

/* Decides dim `axis` of a merged tensor type where a and b differ (either
 * may be OSI_EXPR_UNKNOWN). */
typedef OsiExpr (*OsiDimMerge)(OsiOpCtx *ctx, OsiExpr a, OsiExpr b, int axis, void *user);
/* The most precise type covering both a and b (If branches, loop
 * iterations, sequence elements): kinds must agree (else NULL); the element
 * type is kept when equal (0 otherwise); equal ranks merge per dim (equal
 * dims kept, differing ones from `merge`, unknown when merge is NULL);
 * different ranks give unknown rank; sequences, optionals and maps merge
 * their elements. Content is kept only when both have the same. A NULL
 * side gives the other's kinds and element types with unknown shapes. */
const OsiType *osi_type_merge(OsiOpCtx *ctx, const OsiType *a, const OsiType *b,
                              OsiDimMerge merge, void *user);

/* Section - MatMul (nn.c, quantization.c, contrib_matmul.c) */

/* Output 0 = numpy matmul of inputs a_in and b_in, element type dtype
 * (unknown rank when either rank is). */
OsiStatus osi_matmul_out(OsiOpCtx *ctx, int a_in, int b_in, int32_t dtype);
/* The same for operand shapes a and b given directly (NULL or unknown
 * rank: unknown output rank); contrib ops transpose or rebuild them. */
OsiStatus osi_matmul_shapes(OsiOpCtx *ctx, const OsiType *a, const OsiType *b, int32_t dtype);
/* The same for operands onnxruntime's matmul helper sees as given (A and B
 * transposed by attributes): its refusals of empty dims apply. */
OsiStatus osi_matmul_operands(OsiOpCtx *ctx, const OsiType *a, const OsiType *b, int32_t dtype);

/* Section - Standard op functions that contrib ops (contrib_*.c) call
 * before adjusting the result */

OsiStatus osi_op_reduce(OsiOpCtx *ctx); /* reduction.c */
OsiStatus osi_op_range(OsiOpCtx *ctx);  /* tensor.c */
OsiStatus osi_op_layer_norm(OsiOpCtx *ctx); /* normalization.c */

#endif
