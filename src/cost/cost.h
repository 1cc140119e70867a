/*
 * The cost model (README "Cost"): per node of the model's graph its MACs,
 * FLOPs, weight and output bytes; the model's totals and totals by op
 * type; the ops not counted and why; and the activation memory over the
 * engine's schedule. Computed from a finished run (its inferred types and
 * the graph model), only when asked for: inference itself does nothing
 * for it.
 */
#ifndef OSI_COST_H
#define OSI_COST_H

#include "base/json.h"
#include "infer/context.h"

/*
 * Appends {"cost": {total, byOpType, nodes, uncounted}, "memory": {...}}
 * (the format is documented in js/index.d.ts, CostData) for the run's
 * model to j. run->status must be OSI_OK. Expressions print as the store
 * prints them at the time (with the result's named sizes when those are in
 * use). Returns 0, or -1 when memory runs out (j is then incomplete).
 */
int osi_cost_json(OsiJson *j, OsiRun *run, const OsiContext *root);

#endif
