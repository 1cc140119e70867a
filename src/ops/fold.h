/*
 * Constant folding: the content of an op's outputs computed from its
 * inputs' contents, whatever the dtype. The driver calls osi_op_fold after
 * an op's rule set the output types; outputs that the rule left without
 * content get one when the op has a fold (fold.c lists them), every input
 * it reads has known content (elements may be symbolic) and the output is
 * a static tensor of at most OSI_MAX_VALUE_ELEMS elements. Integer results
 * that do not fit their dtype, and float results no exact computation
 * gives (sums of many floats in an order the runtime chooses,
 * transcendental functions), are unknown elements, never approximations.
 */
#ifndef OSI_FOLD_H
#define OSI_FOLD_H

#include "ops/ops.h"

void osi_op_fold(OsiOpCtx *ctx);

#endif
