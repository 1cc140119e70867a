/*
 * The ai.onnx.preview.training domain: the optimizers Adagrad, Adam and
 * Momentum, whose outputs are updated copies of some of their input
 * groups, and Gradient, whose outputs have the shapes of the tensors it
 * differentiates against.
 */
#include "ops/helpers.h"

/* Inputs are R, T, then `groups` groups of n tensors (X, G, ...); output
 * group k (n outputs) copies the types of input group in_group[k]. */
static OsiStatus optimizer(OsiOpCtx *ctx, int groups, const int *in_group, int out_groups) {
  int tensors = osi_in_count(ctx) - 2;
  if (tensors <= 0 || tensors % groups)
    return osi_op_fail(ctx, OSI_ERR_INVALID_MODEL, "%s expects R, T and %d groups of equally many tensors (got %d inputs)",
                       osi_op_type(ctx), groups, osi_in_count(ctx));
  int n = tensors / groups;
  if (osi_out_count(ctx) > n * out_groups)
    return osi_op_fail(ctx, OSI_ERR_INVALID_MODEL, "%s has %d outputs for %d optimized tensors (at most %d)",
                       osi_op_type(ctx), osi_out_count(ctx), n, n * out_groups);
  for (int o = 0; o < osi_out_count(ctx); o++)
    osi_out_same_as_input(ctx, o, 2 + in_group[o / n] * n + o % n);
  return OSI_OK;
}

/* Adagrad: inputs R, T, X..., G..., H...; outputs X_new... (like X), H_new... (like H). */
OsiStatus osi_op_train_adagrad(OsiOpCtx *ctx) { return optimizer(ctx, 3, (const int[]){0, 2}, 2); }

/* Momentum: inputs R, T, X..., G..., V...; outputs X_new... (like X), V_new... (like V). */
OsiStatus osi_op_train_momentum(OsiOpCtx *ctx) { return optimizer(ctx, 3, (const int[]){0, 2}, 2); }

/* Adam: inputs R, T, X..., G..., V..., H...; outputs X_new..., V_new..., H_new... */
OsiStatus osi_op_train_adam(OsiOpCtx *ctx) { return optimizer(ctx, 4, (const int[]){0, 2, 3}, 3); }

/* Gradient: output i is dy/dxs[i], evaluated at input i (the inputs are
 * the values of xs followed by zs), so it has input i's type. */
OsiStatus osi_op_train_gradient(OsiOpCtx *ctx) {
  const OsiAttr *xs = osi_attr(ctx, "xs");
  if (!xs || xs->type != OSI_ATTR_STRINGS)
    return osi_op_fail(ctx, OSI_ERR_INVALID_MODEL, "the required attribute 'xs' is missing");
  if ((size_t)osi_out_count(ctx) > xs->n)
    return osi_op_fail(ctx, OSI_ERR_INVALID_MODEL, "Gradient has %d outputs but xs names %zu tensors",
                       osi_out_count(ctx), xs->n);
  for (int o = 0; o < osi_out_count(ctx); o++) {
    if (!osi_out_present(ctx, o)) continue;
    if (o >= osi_in_count(ctx) || !osi_in_present(ctx, o)) {
      osi_op_diag(ctx, "UNSUPPORTED_CASE", "output %d: no input gives the value of '%s', so its type is unknown", o,
                  xs->strings[o]);
      continue;
    }
    osi_out_same_as_input(ctx, o, o);
  }
  return OSI_OK;
}
