/*
 * Sequence and optional operators. A sequence type has one element type
 * covering every element, so adding a tensor merges its type into it
 * (equal dims kept, others unknown). Element counts are not tracked: the
 * length of a sequence and sizes summed over its elements stay unknown.
 */
#include <string.h>

#include "helpers.h"

static const OsiType *elem_of(const OsiType *seq) {
  return seq && seq->kind == OSI_KIND_SEQUENCE ? seq->elem : NULL;
}

static void set_seq(OsiOpCtx *ctx, int i, const OsiType *elem) {
  osi_set_out(ctx, i, osi_type_sequence(osi_op_arena(ctx), elem));
}

/* SequenceConstruct(inputs...) -> a sequence whose element type covers
 * every input. */
OsiStatus osi_op_sequence_construct(OsiOpCtx *ctx) {
  const OsiType *e = osi_in(ctx, 0);
  for (int i = 1; i < osi_in_count(ctx); i++)
    e = osi_type_merge(ctx, e, osi_in(ctx, i), NULL, NULL);
  set_seq(ctx, 0, e);
  return OSI_OK;
}

/* SequenceEmpty(dtype = float) -> an empty sequence of tensors of that
 * type; their shape is open. */
OsiStatus osi_op_sequence_empty(OsiOpCtx *ctx) {
  int32_t dtype = (int32_t)osi_attr_int(ctx, "dtype", OSI_DT_FLOAT);
  set_seq(ctx, 0, osi_type_tensor(osi_op_arena(ctx), dtype, -1));
  return OSI_OK;
}

/* SequenceInsert(S, tensor, position?) -> S with tensor added: the element
 * type merges with the tensor's. */
OsiStatus osi_op_sequence_insert(OsiOpCtx *ctx) {
  set_seq(ctx, 0, osi_type_merge(ctx, elem_of(osi_in(ctx, 0)), osi_in(ctx, 1), NULL, NULL));
  return OSI_OK;
}

/* SequenceErase(S, position?) -> S minus one element: same type. */
OsiStatus osi_op_sequence_erase(OsiOpCtx *ctx) {
  const OsiType *s = osi_in(ctx, 0);
  if (s && s->kind == OSI_KIND_SEQUENCE) osi_set_out(ctx, 0, s);
  else set_seq(ctx, 0, NULL);
  return OSI_OK;
}

/* SequenceAt(S, position) -> one element: the element type. */
OsiStatus osi_op_sequence_at(OsiOpCtx *ctx) {
  osi_set_out(ctx, 0, elem_of(osi_in(ctx, 0)));
  return OSI_OK;
}

/* SequenceLength(S) -> int64 scalar. */
OsiStatus osi_op_sequence_length(OsiOpCtx *ctx) {
  osi_out_tensor(ctx, 0, OSI_DT_INT64, 0);
  return OSI_OK;
}

/* Size along the axis (of size d) of every piece when splitting by the
 * scalar s: chunks of s with a shorter last one, so exact only when s
 * divides d or one chunk takes all. */
static OsiExpr scalar_piece(OsiExprStore *s, OsiExpr d, OsiExpr split) {
  int64_t dv, sv;
  if (split == d) return d;
  if (!osi_expr_is_const(s, split, &sv) || sv <= 0) return OSI_EXPR_UNKNOWN;
  if (sv == 1) return split;
  if (!osi_expr_is_const(s, d, &dv)) return OSI_EXPR_UNKNOWN;
  return dv % sv == 0 ? split : dv < sv ? d : OSI_EXPR_UNKNOWN;
}

/* Size along the axis of every piece for split input 1 (scalar or 1-D),
 * UNKNOWN when the pieces can differ. */
static OsiExpr split_piece(OsiOpCtx *ctx, OsiExpr d) {
  OsiExprStore *s = osi_op_exprs(ctx);
  const OsiType *sp = osi_in_ranked(ctx, 1);
  const OsiExpr *e;
  int n = osi_in_exprs(ctx, 1, &e);
  int64_t len;
  if (!sp) return OSI_EXPR_UNKNOWN;
  if (sp->rank == 0) return n == 1 ? scalar_piece(s, d, e[0]) : OSI_EXPR_UNKNOWN;
  /* One piece must take the whole axis (the entries sum to it). */
  if (sp->rank == 1 && osi_expr_is_const(s, sp->dims[0], &len) && len == 1) return d;
  if (n < 1) return OSI_EXPR_UNKNOWN;
  for (int i = 1; i < n; i++)
    if (e[i] != e[0]) return OSI_EXPR_UNKNOWN;
  return n == 1 ? d : e[0];
}

/*
 * SplitToSequence(input, split?; axis = 0, keepdims = 1) -> sequence of
 * pieces along axis. Without split the pieces have size 1 (the axis is
 * dropped when keepdims = 0); with split (keepdims ignored) the axis dim
 * is known only when every piece has the same size.
 */
OsiStatus osi_op_split_to_sequence(OsiOpCtx *ctx) {
  const OsiType *x = osi_in_ranked(ctx, 0);
  OsiArena *arena = osi_op_arena(ctx);
  if (!x) {
    set_seq(ctx, 0, osi_type_tensor(arena, osi_in_dtype(ctx, 0), -1));
    return OSI_OK;
  }
  int axis;
  if (!osi_norm_axis(osi_attr_int(ctx, "axis", 0), x->rank, &axis))
    return osi_op_fail(ctx, OSI_ERR_INVALID_MODEL, "axis %lld is out of range for rank %d",
                       (long long)osi_attr_int(ctx, "axis", 0), x->rank);
  int has_split = osi_in_present(ctx, 1);
  int keep = has_split || osi_attr_int(ctx, "keepdims", 1) != 0;
  OsiType *e = osi_type_tensor(arena, x->elem_type, keep ? x->rank : x->rank - 1);
  if (!e) return osi_op_fail(ctx, OSI_ERR_NOMEM, "out of memory");
  OsiExpr *d = osi_type_dims_mut(e);
  for (int i = 0, k = 0; i < x->rank; i++) {
    if (i != axis) d[k++] = x->dims[i];
    else if (keep)
      d[k++] = has_split ? split_piece(ctx, x->dims[i]) : osi_expr_const(osi_op_exprs(ctx), 1);
  }
  set_seq(ctx, 0, e);
  return OSI_OK;
}

/*
 * ConcatFromSequence(S; axis, new_axis = 0) -> the elements concatenated
 * along axis (in [-r, r-1]), or stacked on a new axis (in [-r-1, r]); the
 * size along it sums over elements, unknown without their count.
 */
OsiStatus osi_op_concat_from_sequence(OsiOpCtx *ctx) {
  const OsiType *e = elem_of(osi_in(ctx, 0));
  int32_t dtype = e && e->kind == OSI_KIND_TENSOR ? e->elem_type : 0;
  if (!osi_attr_has(ctx, "axis"))
    return osi_op_fail(ctx, OSI_ERR_INVALID_MODEL, "attribute axis is required");
  if (!e || e->kind != OSI_KIND_TENSOR || e->rank < 0) {
    osi_out_tensor(ctx, 0, dtype, -1);
    return OSI_OK;
  }
  int stack = osi_attr_int(ctx, "new_axis", 0) != 0, r = e->rank + stack, axis;
  int64_t a = osi_attr_int(ctx, "axis", 0);
  if (!osi_norm_axis(a, r, &axis))
    return osi_op_fail(ctx, OSI_ERR_INVALID_MODEL, "axis %lld is out of range for rank %d%s",
                       (long long)a, e->rank, stack ? " with new_axis" : "");
  if (r > OSI_MAX_RANK) return osi_op_fail(ctx, OSI_ERR_LIMIT_EXCEEDED, "output rank %d", r);
  OsiType *y = osi_out_tensor(ctx, 0, dtype, r);
  if (!y) return OSI_OK;
  OsiExpr *d = osi_type_dims_mut(y);
  for (int i = 0, k = 0; i < r; i++) {
    if (i == axis) {
      d[i] = OSI_EXPR_UNKNOWN;
      if (!stack) k++;
    } else {
      d[i] = e->dims[k++];
    }
  }
  return OSI_OK;
}

/*
 * SequenceMap(input_sequence, additional_inputs...) runs body once per
 * element: sequence inputs contribute their element, tensors themselves.
 * Output j is a sequence of the body's output j.
 */
OsiStatus osi_op_sequence_map(OsiOpCtx *ctx) {
  const OsiAttr *attr = osi_attr(ctx, "body");
  const OsiGraph *g = attr && attr->type == OSI_ATTR_GRAPH ? attr->g : NULL;
  int n_in = osi_in_count(ctx), n_out = osi_out_count(ctx);
  if (!g || g->n_inputs != n_in || g->n_outputs != n_out)
    return osi_op_fail(ctx, OSI_ERR_INVALID_MODEL,
                       "body must be a graph with %d inputs and %d outputs", n_in, n_out);
  OsiArena *arena = osi_op_arena(ctx);
  const OsiType **in = osi_arena_array(arena, (size_t)n_in + 1, sizeof(OsiType *));
  const OsiType **out = osi_arena_array(arena, (size_t)n_out + 1, sizeof(OsiType *));
  if (!in || !out) return osi_op_fail(ctx, OSI_ERR_NOMEM, "out of memory");
  for (int i = 0; i < n_in; i++) {
    const OsiType *t = osi_in(ctx, i);
    in[i] = t && t->kind == OSI_KIND_SEQUENCE ? t->elem : t;
  }
  OsiStatus st = osi_op_infer_subgraph(ctx, g, "body", n_in, in, n_out, out);
  if (st != OSI_OK) return st;
  for (int j = 0; j < n_out; j++) set_seq(ctx, j, out[j] ? out[j] : g->outputs[j].type);
  return OSI_OK;
}

/* Optional(input?; type?) -> an optional of the input's type, or of the
 * type attribute when empty. */
OsiStatus osi_op_optional(OsiOpCtx *ctx) {
  const OsiAttr *a = osi_attr(ctx, "type");
  const OsiType *e = osi_in(ctx, 0);
  if (!osi_in_present(ctx, 0)) {
    if (!a || a->type != OSI_ATTR_TYPE_PROTO)
      return osi_op_fail(ctx, OSI_ERR_INVALID_MODEL, "Optional needs an input or a type attribute");
    e = a->tp;
  }
  osi_set_out(ctx, 0, osi_type_optional(osi_op_arena(ctx), e));
  return OSI_OK;
}

/* OptionalHasElement(input?) -> bool scalar; known false for an absent
 * input and true for a tensor or sequence (both accepted from opset 18). */
OsiStatus osi_op_optional_has_element(OsiOpCtx *ctx) {
  OsiType *y = osi_out_tensor(ctx, 0, OSI_DT_BOOL, 0);
  const OsiType *x = osi_in(ctx, 0);
  OsiExprStore *s = osi_op_exprs(ctx);
  OsiExpr v = OSI_EXPR_UNKNOWN;
  if (!osi_in_present(ctx, 0)) v = osi_expr_const(s, 0);
  else if (x && (x->kind == OSI_KIND_TENSOR || x->kind == OSI_KIND_SEQUENCE))
    v = osi_expr_const(s, 1);
  if (y && v != OSI_EXPR_UNKNOWN) osi_set_value(ctx, y, 1, &v);
  return OSI_OK;
}

/* OptionalGetElement(input) -> the optional's element. A tensor or
 * sequence input passes through: allowed from opset 18, and earlier
 * models (the opset-16 Loop test) already feed one. */
OsiStatus osi_op_optional_get_element(OsiOpCtx *ctx) {
  const OsiType *x = osi_in(ctx, 0);
  if (!x) return OSI_OK;
  if (x->kind == OSI_KIND_OPTIONAL) {
    osi_set_out(ctx, 0, x->elem);
    return OSI_OK;
  }
  osi_set_out(ctx, 0, x);
  return OSI_OK;
}
