/*
 * Recurrent operators: RNN, GRU and LSTM. They share one rule; only the
 * number of gates stacked in W and R differs (1, 3, 4). Output shapes come
 * from X (sequence and batch), the `direction` attribute and the hidden
 * size (attribute, else read off R, W or initial_h).
 */
#include <stdio.h>
#include <string.h>

#include "ops/helpers.h"

/* Gates stacked along dim 1 of W [dirs, gates*hidden, input] and R. */
static int64_t gate_count(const char *op) {
  if (!strcmp(op, "GRU")) return 3;
  if (!strcmp(op, "LSTM") || !strcmp(op, "AttnLSTM")) return 4; /* AttnLSTM: com.microsoft */
  return 1;
}

/* Hidden size: the attribute, else R [dirs, G*hidden, hidden] dim 2, else
 * initial_h (input 5) last dim, else W dim 1 / G. */
static OsiExpr hidden_size(OsiOpCtx *ctx, int64_t gates) {
  OsiExprStore *s = osi_op_exprs(ctx);
  int64_t h = osi_attr_int(ctx, "hidden_size", -1);
  if (h >= 0) return osi_expr_const(s, h);
  const OsiType *r = osi_in_ranked(ctx, 2), *init = osi_in_ranked(ctx, 5), *w = osi_in_ranked(ctx, 1);
  if (r && r->rank == 3 && r->dims[2] != OSI_EXPR_UNKNOWN) return r->dims[2];
  if (init && init->rank == 3 && init->dims[2] != OSI_EXPR_UNKNOWN) return init->dims[2];
  int64_t g;
  if (!w || w->rank != 3) return OSI_EXPR_UNKNOWN;
  if (osi_expr_is_const(s, w->dims[1], &g) && g % gates) return OSI_EXPR_UNKNOWN;
  return osi_expr_floordiv(s, w->dims[1], osi_expr_const(s, gates));
}

/* Rejects a W or R whose constant leading dim is not num_directions, or an
 * R whose constant last dim contradicts hidden_size. */
static OsiStatus check_weights(OsiOpCtx *ctx, int64_t dirs, OsiExpr hidden) {
  OsiExprStore *s = osi_op_exprs(ctx);
  for (int i = 1; i <= 2; i++) {
    const OsiType *t = osi_in_ranked(ctx, i);
    if (!t) continue;
    int64_t d, h;
    if (t->rank != 3)
      return osi_op_fail(ctx, OSI_ERR_SHAPE_MISMATCH, "%s must have rank 3 (got %d)",
                         i == 1 ? "W" : "R", t->rank);
    if (osi_expr_is_const(s, t->dims[0], &d) && d != dirs)
      return osi_op_fail(ctx, OSI_ERR_SHAPE_MISMATCH, "%s dim 0 is %lld, expected num_directions %lld",
                         i == 1 ? "W" : "R", (long long)d, (long long)dirs);
    if (i == 2 && osi_expr_is_const(s, t->dims[2], &d) && osi_expr_is_const(s, hidden, &h) && d != h)
      return osi_op_fail(ctx, OSI_ERR_SHAPE_MISMATCH, "R dim 2 is %lld but hidden_size is %lld",
                         (long long)d, (long long)h);
  }
  return OSI_OK;
}

/* The spec's shapes of the other inputs, G gates of `hidden` each:
 * W [dirs, G*hidden, input], R [dirs, G*hidden, hidden], B [dirs,
 * 2*G*hidden], sequence_lens [batch], initial_h / initial_c [dirs, batch,
 * hidden] (layout 1: [batch, dirs, hidden]), LSTM's P [dirs, 3*hidden]. */
static OsiStatus check_shapes(OsiOpCtx *ctx, int64_t dirs, int64_t layout, OsiExpr hidden, OsiExpr input, OsiExpr batch) {
  OsiExprStore *s = osi_op_exprs(ctx);
  const char *op = osi_op_type(ctx);
  int64_t gates = gate_count(op);
  OsiExpr gh = osi_expr_mul(s, osi_expr_const(s, gates), hidden), d = osi_expr_const(s, dirs);
  char rule[48];
  snprintf(rule, sizeof rule, "%s weights", op);
  OsiStatus st;
  if ((st = osi_op_require_dim(ctx, rule, 1, 1, gh, OSI_WHAT("the gate count times hidden_size"))) != OSI_OK ||
      (st = osi_op_require_dim(ctx, rule, 1, 2, input, OSI_WHAT("the input size (dim 2 of X)"))) != OSI_OK ||
      (st = osi_op_require_dim(ctx, rule, 2, 1, gh, OSI_WHAT("the gate count times hidden_size"))) != OSI_OK ||
      (st = osi_op_require_dim(ctx, rule, 2, 2, hidden, OSI_WHAT("hidden_size"))) != OSI_OK)
    return st;
  int n_in = osi_in_count(ctx);
  if (n_in > 3 && osi_in_present(ctx, 3) &&
      ((st = osi_op_require_rank(ctx, 3, 2, 2)) != OSI_OK ||
       (st = osi_op_require_dim(ctx, rule, 3, 0, d, OSI_WHAT("num_directions"))) != OSI_OK ||
       (st = osi_op_require_dim(ctx, rule, 3, 1, osi_expr_mul(s, osi_expr_const(s, 2), gh),
                                OSI_WHAT("twice the gate count times hidden_size"))) != OSI_OK))
    return st;
  if (n_in > 4 && osi_in_present(ctx, 4) &&
      ((st = osi_op_require_rank(ctx, 4, 1, 1)) != OSI_OK ||
       (st = osi_op_require_dim(ctx, "sequence_lens", 4, 0, batch, OSI_WHAT("the batch"))) != OSI_OK))
    return st;
  int states = !strcmp(op, "LSTM") || !strcmp(op, "AttnLSTM") ? 2 : 1;
  for (int i = 5; i < 5 + states && i < n_in; i++) {
    if (!osi_in_present(ctx, i)) continue;
    if ((st = osi_op_require_rank(ctx, i, 3, 3)) != OSI_OK ||
        (st = osi_op_require_dim(ctx, "initial state", i, layout ? 1 : 0, d, OSI_WHAT("num_directions"))) != OSI_OK ||
        (st = osi_op_require_dim(ctx, "initial state", i, layout ? 0 : 1, batch, OSI_WHAT("the batch"))) != OSI_OK ||
        (st = osi_op_require_dim(ctx, "initial state", i, 2, hidden, OSI_WHAT("hidden_size"))) != OSI_OK)
      return st;
  }
  if (states == 2 && n_in > 7 && osi_in_present(ctx, 7) &&
      ((st = osi_op_require_rank(ctx, 7, 2, 2)) != OSI_OK ||
       (st = osi_op_require_dim(ctx, "LSTM peepholes", 7, 0, d, OSI_WHAT("num_directions"))) != OSI_OK ||
       (st = osi_op_require_dim(ctx, "LSTM peepholes", 7, 1, osi_expr_mul(s, osi_expr_const(s, 3), hidden),
                                OSI_WHAT("three times hidden_size"))) != OSI_OK))
    return st;
  return OSI_OK;
}

/* RNN/GRU/LSTM (opset 1+; `layout` since opset 14, 0 before):
 *   layout 0: X [seq, batch, in]  -> Y [seq, dirs, batch, hidden], Y_h/Y_c [dirs, batch, hidden]
 *   layout 1: X [batch, seq, in]  -> Y [batch, seq, dirs, hidden], Y_h/Y_c [batch, dirs, hidden]
 * dirs is 2 for direction "bidirectional", else 1. */
OsiStatus osi_op_rnn(OsiOpCtx *ctx) {
  int32_t dtype = osi_in_dtype(ctx, 0) ? osi_in_dtype(ctx, 0) : osi_in_dtype(ctx, 1);
  const char *dir = osi_attr_str(ctx, "direction", "forward");
  int64_t dirs = !strcmp(dir, "bidirectional") ? 2 : 1;
  if (dirs == 1 && strcmp(dir, "forward") && strcmp(dir, "reverse"))
    return osi_op_fail(ctx, OSI_ERR_INVALID_MODEL,
                       "direction '%s' is not forward, reverse or bidirectional", dir);
  int64_t layout = osi_op_opset(ctx) >= 14 ? osi_attr_int(ctx, "layout", 0) : 0;
  if (layout != 0 && layout != 1)
    return osi_op_fail(ctx, OSI_ERR_INVALID_MODEL, "layout must be 0 or 1 (got %lld)", (long long)layout);
  OsiExprStore *s = osi_op_exprs(ctx);
  OsiExpr hidden = hidden_size(ctx, gate_count(osi_op_type(ctx)));
  OsiStatus st = check_weights(ctx, dirs, hidden);
  if (st != OSI_OK) return st;
  OsiExpr seq = OSI_EXPR_UNKNOWN, batch = OSI_EXPR_UNKNOWN, d = osi_expr_const(s, dirs);
  const OsiType *x = osi_in_ranked(ctx, 0), *init = osi_in_ranked(ctx, 5);
  if (x) {
    if (x->rank != 3)
      return osi_op_fail(ctx, OSI_ERR_SHAPE_MISMATCH, "X must have rank 3 (got %d)", x->rank);
    seq = x->dims[layout ? 1 : 0];
    batch = x->dims[layout ? 0 : 1];
  } else if (init && init->rank == 3) {
    batch = init->dims[layout ? 0 : 1];
  }
  if ((st = check_shapes(ctx, dirs, layout, hidden, x ? x->dims[2] : OSI_EXPR_UNKNOWN, batch)) != OSI_OK) return st;
  OsiType *y = osi_out_tensor(ctx, 0, dtype, 4);
  if (y) {
    OsiExpr *yd = osi_type_dims_mut(y);
    if (layout) { yd[0] = batch; yd[1] = seq; yd[2] = d; }
    else { yd[0] = seq; yd[1] = d; yd[2] = batch; }
    yd[3] = hidden;
  }
  /* Y_h, and Y_c for LSTM, share one shape. */
  for (int o = 1; o < osi_out_count(ctx) && o <= 2; o++) {
    OsiType *h = osi_out_tensor(ctx, o, dtype, 3);
    if (!h) continue;
    OsiExpr *hd = osi_type_dims_mut(h);
    hd[0] = layout ? batch : d;
    hd[1] = layout ? d : batch;
    hd[2] = hidden;
  }
  return OSI_OK;
}
