/* The rows of a result's "values": every value with a known type, top-level
 * and subgraph, keyed and sorted (result.c renders them, as JSON and packed). */
#ifndef OSI_RESULT_ROWS_H
#define OSI_RESULT_ROWS_H

#include "base/arena.h"
#include "infer/context.h"

typedef struct OsiRow {
  const char *key;
  const OsiType *type;
  const OsiSubValue *sub; /* NULL for top-level values */
  int ref;                /* top-level values: index in root->order */
} OsiRow;

/* The rows sorted by key (strcmp), and *sub_keys: per run->subs entry its
 * key (NULL: none). Both malloc'ed; NULL when memory runs out. A subgraph
 * value's key is its scope path + name ("loop/body/acc"); should that
 * string already name a top-level value or an earlier key, "~2", "~3", ...
 * is appended (copies in `arena`), so keys never collide with top-level
 * names. */
OsiRow *osi_result_rows(OsiArena *arena, const OsiContext *root, const OsiRun *run, int *count,
                        const char ***sub_keys);

#endif
