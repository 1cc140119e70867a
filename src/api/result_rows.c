#include "api/result_rows.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/key_sort.h"

/* sv's key, made distinct from the top-level names and from `used`. */
static const char *exact_key(OsiArena *arena, const OsiContext *root, const OsiSubValue *sv,
                             OsiValueTable *used) {
  const char *key = sv->key;
  char buf[1024];
  for (int k = 2; osi_context_get(root, key) || osi_value_table_get(used, key); k++) {
    snprintf(buf, sizeof buf, "%s~%d", sv->key, k);
    key = osi_arena_strdup(arena, buf);
    if (!key) return NULL;
  }
  OsiValueEntry *e = osi_arena_alloc(arena, sizeof *e);
  if (!e) return NULL;
  e->name = key;
  osi_value_table_put(used, e);
  return key;
}

/* The rows, each subgraph value keyed by exact_key, or (`exact` 0) by its
 * own key, which osi_result_rows then checks. */
static OsiRow *collect(OsiArena *arena, const OsiContext *root, const OsiRun *run, int exact,
                       int *count, const char ***sub_keys) {
  OsiRow *rows = malloc(((size_t)root->n_order + (size_t)run->n_subs + 1) * sizeof *rows);
  const char **keys = calloc((size_t)run->n_subs + 1, sizeof *keys);
  OsiSortKey *order = malloc(((size_t)root->n_order + (size_t)run->n_subs + 1) * sizeof *order);
  OsiRow *sorted = malloc(((size_t)root->n_order + (size_t)run->n_subs + 1) * sizeof *sorted);
  OsiValueTable used = {0};
  int n = 0, ok = rows && keys && order && sorted && osi_value_table_init(&used, (size_t)run->n_subs + 1);
  for (int i = 0; ok && i < root->n_order; i++)
    if (root->order[i]->type) rows[n++] = (OsiRow){root->order[i]->name, root->order[i]->type, NULL, i};
  for (int i = 0; ok && i < run->n_subs; i++) {
    const OsiSubValue *sv = &run->subs[i];
    const char *key = !sv->type ? NULL : exact ? exact_key(arena, root, sv, &used) : sv->key;
    if (key) rows[n++] = (OsiRow){key, sv->type, sv, -1};
    keys[i] = key;
  }
  osi_value_table_free(&used);
  if (ok) {
    for (int i = 0; i < n; i++) order[i] = (OsiSortKey){rows[i].key, i, 0};
    osi_sort_keys(order, (size_t)n);
    for (int i = 0; i < n; i++) sorted[i] = rows[order[i].index];
  }
  free(order);
  free(rows);
  if (!ok) {
    free(sorted);
    free(keys);
    return NULL;
  }
  *count = n;
  *sub_keys = keys;
  return sorted;
}

/* Whether a subgraph value's own key, in rows (sorted), is another row's
 * key or names a top-level value without a type (not a row). */
static int keys_collide(const OsiRow *rows, int n, const OsiContext *root) {
  int subs = 0;
  for (int i = 0; i < n; i++) subs += rows[i].sub != NULL;
  if (!subs) return 0;
  /* Equal keys sort next to each other; top-level names are distinct. */
  for (int i = 1; i < n; i++)
    if ((rows[i - 1].sub || rows[i].sub) && strcmp(rows[i - 1].key, rows[i].key) == 0) return 1;
  OsiValueTable keys = {0};
  OsiValueEntry *entries = malloc((size_t)subs * sizeof *entries);
  int collide = !entries || !osi_value_table_init(&keys, (size_t)subs);
  for (int i = 0, k = 0; !collide && i < n; i++) {
    if (!rows[i].sub) continue;
    entries[k] = (OsiValueEntry){.name = rows[i].key};
    collide = !osi_value_table_put(&keys, &entries[k++]);
  }
  for (int i = 0; !collide && i < root->n_order; i++)
    collide = !root->order[i]->type && osi_value_table_get(&keys, root->order[i]->name);
  osi_value_table_free(&keys);
  free(entries);
  return collide;
}

OsiRow *osi_result_rows(OsiArena *arena, const OsiContext *root, const OsiRun *run, int *count,
                        const char ***sub_keys) {
  /* Subgraph values keyed by their own keys, checked against the rows once
   * sorted: asking the top-level scope for each key would build its name
   * table (every top-level name hashed, on a 32-layer export with If nodes
   * 2% of inference and packing). Should some key collide (or memory run
   * out), every key is made as exact_key makes it. */
  OsiRow *rows = collect(arena, root, run, 0, count, sub_keys);
  if (rows && !keys_collide(rows, *count, root)) return rows;
  free(rows);
  if (rows) free(*sub_keys);
  return collect(arena, root, run, 1, count, sub_keys);
}
