/*
 * Sequence and optional operators. A sequence type has one element type
 * covering every element, so adding a tensor merges its type into it
 * (equal dims kept, others unknown), and a length (the element count, an
 * expression, unknown once it depends on data) so that SequenceLength and
 * ConcatFromSequence stay known for sequences built in the graph. While the
 * length is a known constant (up to OSI_MAX_SEQ_ELEMS) each element's own
 * type is kept too, so that positions known at inference time read,
 * insert and erase single elements exactly.
 */
#include <string.h>

#include "ops/helpers.h"

static const OsiType *elem_of(const OsiType *seq) {
  return seq && seq->kind == OSI_KIND_SEQUENCE ? seq->elem : NULL;
}

static OsiExpr length_of(const OsiType *seq) {
  return seq && seq->kind == OSI_KIND_SEQUENCE ? seq->length : OSI_EXPR_UNKNOWN;
}

static void set_seq(OsiOpCtx *ctx, int i, const OsiType *elem, OsiExpr length) {
  OsiType *t = osi_type_sequence(osi_op_arena(ctx), elem);
  if (t) t->length = length;
  osi_set_out(ctx, i, t);
}

/* A sequence of the n element types e (its element type their merge;
 * `empty` the element type of an empty one). */
static void set_seq_elems(OsiOpCtx *ctx, int i, const OsiType *const *e, int n, const OsiType *empty) {
  OsiArena *arena = osi_op_arena(ctx);
  const OsiType *merged = n ? e[0] : empty;
  for (int k = 1; k < n; k++) merged = osi_type_merge(ctx, merged, e[k], NULL, NULL);
  OsiType *t = osi_type_sequence(arena, merged);
  const OsiType **copy = n <= OSI_MAX_SEQ_ELEMS ? osi_arena_array(arena, (size_t)n + 1, sizeof *copy) : NULL;
  if (t) {
    t->length = osi_expr_const(osi_op_exprs(ctx), n);
    if (copy) {
      for (int k = 0; k < n; k++) copy[k] = e[k];
      t->elems = copy, t->n_elems = n;
    }
  }
  osi_set_out(ctx, i, t);
}

static int is_empty(OsiOpCtx *ctx, const OsiType *seq) {
  int64_t n;
  return osi_expr_is_const(osi_op_exprs(ctx), length_of(seq), &n) && n == 0;
}

/* The element index that `position` (input i, absent: `dflt`) names in a
 * sequence of n elements, valid in [-n, n - 1 + end]; -1 when the position
 * is not a known constant or out of range (a run-time error). */
static int known_position(OsiOpCtx *ctx, int i, int n, int end, int dflt) {
  int64_t p = dflt;
  if (osi_in_present(ctx, i)) {
    const OsiValue *v = osi_in_value(ctx, i);
    if (!v || !v->ints || v->count != 1 || !osi_expr_is_const(osi_op_exprs(ctx), v->ints[0], &p)) return -1;
  }
  if (p < -n || p > n - 1 + end) return -1;
  return (int)(p < 0 ? p + n : p);
}

/* SequenceConstruct(inputs...) -> a sequence of the inputs. */
OsiStatus osi_op_sequence_construct(OsiOpCtx *ctx) {
  int n = osi_in_count(ctx);
  const OsiType *e[OSI_MAX_SEQ_ELEMS];
  if (n <= OSI_MAX_SEQ_ELEMS) {
    for (int i = 0; i < n; i++) e[i] = osi_in(ctx, i);
    set_seq_elems(ctx, 0, e, n, NULL);
    return OSI_OK;
  }
  const OsiType *m = osi_in(ctx, 0);
  for (int i = 1; i < n; i++) m = osi_type_merge(ctx, m, osi_in(ctx, i), NULL, NULL);
  set_seq(ctx, 0, m, osi_expr_const(osi_op_exprs(ctx), n));
  return OSI_OK;
}

/* SequenceEmpty(dtype = float) -> an empty sequence of tensors of that
 * type; their shape is open. */
OsiStatus osi_op_sequence_empty(OsiOpCtx *ctx) {
  int32_t dtype = (int32_t)osi_attr_int(ctx, "dtype", OSI_DT_FLOAT);
  set_seq_elems(ctx, 0, NULL, 0, osi_type_tensor(osi_op_arena(ctx), dtype, -1));
  return OSI_OK;
}

/* SequenceInsert(S, tensor, position?) -> S with tensor added (at the end
 * by default): the element type merges with the tensor's (an empty S takes
 * it as is); one longer. */
OsiStatus osi_op_sequence_insert(OsiOpCtx *ctx) {
  const OsiType *s = osi_in(ctx, 0), *x = osi_in(ctx, 1);
  OsiExprStore *es = osi_op_exprs(ctx);
  int n, at;
  const OsiType *const *old = osi_type_seq_elems(s, &n);
  if (old && n < OSI_MAX_SEQ_ELEMS && (at = known_position(ctx, 2, n, 1, n)) >= 0) {
    const OsiType *e[OSI_MAX_SEQ_ELEMS];
    for (int k = 0, j = 0; k <= n; k++) e[k] = k == at ? x : old[j++];
    set_seq_elems(ctx, 0, e, n + 1, NULL);
    return OSI_OK;
  }
  const OsiType *e = is_empty(ctx, s) ? x : osi_type_merge(ctx, elem_of(s), x, NULL, NULL);
  OsiExpr len = length_of(s);
  set_seq(ctx, 0, e, len == OSI_EXPR_UNKNOWN ? len : osi_expr_add(es, len, osi_expr_const(es, 1)));
  return OSI_OK;
}

/* SequenceErase(S, position?) -> S minus one element (the last by
 * default): same element type, one shorter (erasing from an empty sequence
 * is an error at run time). */
OsiStatus osi_op_sequence_erase(OsiOpCtx *ctx) {
  const OsiType *s = osi_in(ctx, 0);
  OsiExprStore *es = osi_op_exprs(ctx);
  OsiExpr len = length_of(s);
  if (is_empty(ctx, s))
    return osi_op_fail(ctx, OSI_ERR_INVALID_MODEL, "input 'input_sequence' is empty: nothing to erase");
  int n, at;
  const OsiType *const *old = osi_type_seq_elems(s, &n);
  if (old && (at = known_position(ctx, 1, n, 0, -1)) >= 0) {
    const OsiType *e[OSI_MAX_SEQ_ELEMS];
    for (int k = 0, j = 0; k < n; k++)
      if (k != at) e[j++] = old[k];
    set_seq_elems(ctx, 0, e, n - 1, s->elem);
    return OSI_OK;
  }
  set_seq(ctx, 0, elem_of(s), len == OSI_EXPR_UNKNOWN ? len : osi_expr_sub(es, len, osi_expr_const(es, 1)));
  return OSI_OK;
}

/* SequenceAt(S, position) -> one element: its own type at a known
 * position, else the type covering every element. */
OsiStatus osi_op_sequence_at(OsiOpCtx *ctx) {
  int n, at;
  const OsiType *const *elems = osi_type_seq_elems(osi_in(ctx, 0), &n);
  if (elems && (at = known_position(ctx, 1, n, 0, n)) >= 0) {
    osi_set_out(ctx, 0, elems[at]);
    return OSI_OK;
  }
  const OsiType *e = elem_of(osi_in(ctx, 0));
  osi_set_out(ctx, 0, e);
  int known = e && e->kind == OSI_KIND_TENSOR && e->rank >= 0;
  for (int i = 0; known && i < e->rank; i++) known = e->dims[i] != OSI_EXPR_UNKNOWN;
  if (e && !known)
    osi_op_diag(ctx, "DATA_DEPENDENT",
                "the elements of '%s' differ in shape, so the one at a position known only at run "
                "time has the dims they share", "input_sequence");
  return OSI_OK;
}

/* SequenceLength(S) -> int64 scalar holding the length when known. */
OsiStatus osi_op_sequence_length(OsiOpCtx *ctx) {
  OsiType *y = osi_out_tensor(ctx, 0, OSI_DT_INT64, 0);
  OsiExpr n = length_of(osi_in(ctx, 0));
  if (y && n != OSI_EXPR_UNKNOWN) osi_set_value(ctx, y, 1, &n);
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

/* Number of pieces: the axis size without split, the split's length for
 * a 1-D split, CeilDiv(d, s) for a scalar split s. */
static OsiExpr piece_count(OsiOpCtx *ctx, OsiExpr d, int has_split) {
  OsiExprStore *s = osi_op_exprs(ctx);
  if (!has_split) return d;
  const OsiType *sp = osi_in_ranked(ctx, 1);
  const OsiExpr *e;
  if (!sp) return OSI_EXPR_UNKNOWN;
  if (sp->rank == 1) return sp->dims[0];
  int64_t c;
  if (sp->rank == 0 && osi_in_exprs(ctx, 1, &e) == 1 && osi_expr_is_const(s, e[0], &c) && c > 0)
    return osi_expr_ceildiv(s, d, e[0]);
  return OSI_EXPR_UNKNOWN;
}

/* The size of each piece along the axis (of size d) for split input 1,
 * into sizes[]: the 1-D split's entries, or chunks of a known scalar with
 * a shorter last one when d is known too. Returns the count, or -1. */
static int piece_sizes(OsiOpCtx *ctx, OsiExpr d, OsiExpr *sizes) {
  OsiExprStore *s = osi_op_exprs(ctx);
  const OsiType *sp = osi_in_ranked(ctx, 1);
  const OsiExpr *e;
  int n = osi_in_exprs(ctx, 1, &e);
  int64_t sv, dv;
  if (!sp || n < 1) return -1;
  if (sp->rank == 1) {
    if (n > OSI_MAX_SEQ_ELEMS) return -1;
    for (int i = 0; i < n; i++) sizes[i] = e[i];
    return n;
  }
  if (sp->rank != 0 || !osi_expr_is_const(s, e[0], &sv) || sv <= 0 || !osi_expr_is_const(s, d, &dv) ||
      dv < 0 || (dv + sv - 1) / sv > OSI_MAX_SEQ_ELEMS)
    return -1;
  int k = 0;
  for (int64_t at = 0; at < dv; at += sv) sizes[k++] = osi_expr_const(s, dv - at < sv ? dv - at : sv);
  return k;
}

/*
 * SplitToSequence(input, split?; axis = 0, keepdims = 1) -> sequence of
 * pieces along axis. Without split the pieces have size 1 (the axis is
 * dropped when keepdims = 0); with split the axis dim is known only when
 * every piece has the same size. keepdims = 0 also drops the axis for a
 * scalar split of 1, as onnxruntime does: the spec says a split makes
 * keepdims ignored, onnxruntime ignores it for a 1-D split only (and fails
 * on other scalars), and torch exports unbind as a scalar split of 1 with
 * keepdims = 0. Where the two may differ (a split of unknown rank or
 * value) the pieces' rank is unknown.
 */
OsiStatus osi_op_split_to_sequence(OsiOpCtx *ctx) {
  const OsiType *x = osi_in_ranked(ctx, 0);
  OsiArena *arena = osi_op_arena(ctx);
  if (!x) {
    set_seq(ctx, 0, osi_type_tensor(arena, osi_in_dtype(ctx, 0), -1), OSI_EXPR_UNKNOWN);
    return OSI_OK;
  }
  int axis;
  if (!osi_norm_axis(osi_attr_int(ctx, "axis", 0), x->rank, &axis))
    return osi_op_fail(ctx, OSI_ERR_INVALID_MODEL, "axis %lld is out of range for rank %d",
                       (long long)osi_attr_int(ctx, "axis", 0), x->rank);
  int has_split = osi_in_present(ctx, 1);
  const OsiType *sp = has_split ? osi_in_ranked(ctx, 1) : NULL;
  int64_t sv = 0;
  /* 1 keeps the axis, 0 drops it, -1: the spec and onnxruntime may differ */
  int keep = 1;
  if (osi_attr_int(ctx, "keepdims", 1) == 0) {
    if (!has_split) keep = 0;
    else if (!sp) keep = -1;
    else if (sp->rank == 0) keep = osi_in_ints(ctx, 1, &sv, 1) != 1 ? -1 : sv != 1;
  }
  if (keep < 0) {
    set_seq(ctx, 0, osi_type_tensor(arena, x->elem_type, -1), piece_count(ctx, x->dims[axis], has_split));
    return OSI_OK;
  }
  OsiType *e = osi_type_tensor(arena, x->elem_type, keep ? x->rank : x->rank - 1);
  if (!e) return osi_op_fail(ctx, OSI_ERR_NOMEM, "out of memory");
  OsiExpr *d = osi_type_dims_mut(e);
  for (int i = 0, k = 0; i < x->rank; i++) {
    if (i != axis) d[k++] = x->dims[i];
    else if (keep)
      d[k++] = has_split ? split_piece(ctx, x->dims[i]) : osi_expr_const(osi_op_exprs(ctx), 1);
  }
  OsiExpr sizes[OSI_MAX_SEQ_ELEMS];
  int n = has_split && keep ? piece_sizes(ctx, x->dims[axis], sizes) : -1;
  if (n < 0) {
    set_seq(ctx, 0, e, piece_count(ctx, x->dims[axis], has_split));
    return OSI_OK;
  }
  /* Pieces of different sizes: each its own type. */
  const OsiType *pieces[OSI_MAX_SEQ_ELEMS];
  for (int p = 0; p < n; p++) {
    OsiType *t = osi_type_copy(arena, e);
    if (!t) return osi_op_fail(ctx, OSI_ERR_NOMEM, "out of memory");
    osi_type_dims_mut(t)[axis] = sizes[p];
    pieces[p] = t;
  }
  set_seq_elems(ctx, 0, pieces, n, e);
  return OSI_OK;
}

/*
 * ConcatFromSequence(S; axis, new_axis = 0) -> the elements concatenated
 * along axis (in [-r, r-1]), or stacked on a new axis (in [-r-1, r]).
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
  /* Along the axis: the element count when stacking, else the sum of the
   * elements' sizes (the count times their common size). Elsewhere every
   * element has the same dim, which any one that knows it gives. */
  OsiExprStore *es = osi_op_exprs(ctx);
  OsiExpr n = length_of(osi_in(ctx, 0));
  int count;
  const OsiType *const *elems = osi_type_seq_elems(osi_in(ctx, 0), &count);
  for (int k = 0; elems && k < count; k++)
    if (!elems[k] || elems[k]->kind != OSI_KIND_TENSOR || elems[k]->rank != e->rank) elems = NULL;
  for (int i = 0, k = 0; i < r; i++) {
    if (i == axis && stack) {
      d[i] = n;
      continue;
    }
    OsiExpr x = e->dims[k];
    if (i == axis) x = elems ? osi_expr_const(es, 0) : osi_expr_mul(es, n, x);
    for (int j = 0; elems && j < count; j++) {
      OsiExpr dj = elems[j]->dims[k];
      if (i == axis) x = osi_expr_add(es, x, dj);
      else if (x == OSI_EXPR_UNKNOWN) x = dj;
    }
    d[i] = x;
    k++;
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
  for (int j = 0; j < n_out; j++)
    set_seq(ctx, j, out[j] ? out[j] : g->outputs[j].type, length_of(osi_in(ctx, 0)));
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
