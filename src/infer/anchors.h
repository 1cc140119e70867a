/*
 * Anchors: shapes declared by the model's author (graph outputs, and with
 * OSI_OPT_PREFILL_VALUE_INFO the value_info entries), merged into the
 * inferred ones after the node walk (design: MergeWithAnchor).
 */
#ifndef OSI_ANCHORS_H
#define OSI_ANCHORS_H

#include "infer/constraints.h"
#include "infer/context.h"

/*
 * Merges one declared type into an inferred one. Element types, ranks or
 * constant dims that differ are a conflict (returns NULL and describes it
 * in why[0..cap)); a constant dim wins over a symbolic one; two different
 * symbolic dims keep the anchor's and record an equality constraint; a
 * declared symbolic dim where the inferred one is unknown is noted in
 * log->filled (log may be NULL).
 */
const OsiType *osi_anchor_merge(OsiRun *run, const OsiType *inferred, const OsiType *anchor,
                                char *why, size_t cap, OsiAnchorLog *log);

/* Merges the graph's output anchors (a conflict skips that anchor with an
 * ANCHOR_CONFLICT diagnostic) and, when flags ask for it, the value_info
 * anchors (a conflict ends the run with OSI_ERR_ANCHOR_CONFLICT). */
OsiStatus osi_anchors_apply(OsiContext *scope, const OsiGraph *graph, uint32_t flags,
                            OsiAnchorLog *log);

#endif
