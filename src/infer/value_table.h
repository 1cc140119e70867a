/*
 * name -> value map of one graph scope: open addressing over string hashes,
 * so lookups stay O(1) on 100k-value graphs. Keys and entries live in the
 * run's arena; the slot array is malloc'ed and grows by doubling.
 */
#ifndef OSI_VALUE_TABLE_H
#define OSI_VALUE_TABLE_H

#include <stddef.h>
#include <stdint.h>

#include "base/arena.h"
#include "model/types.h"

typedef struct OsiValueEntry {
  const char *name;
  const OsiType *type;   /* NULL: defined, type unknown */
  int producer;          /* node index in its graph, -1 for inputs/initializers */
  int is_initializer;
  int order;             /* position in its scope's definition order (OsiContext.order) */
  /* Written by a node of its scope that has not run yet (topo.c puts every
   * node output in the scope before inference): not defined yet, so
   * osi_value_table_get and the scope lookups do not see it. */
  int pending;
} OsiValueEntry;

/* A slot keeps 32 bits of its name's hash, its length and the name itself,
 * so probes skip other names without touching their entries, and a match is
 * one memcmp (word by word in wasm, where strcmp goes byte by byte) that
 * does not wait for the entry to be loaded first: on a 128-layer export the
 * entries are cache misses. */
typedef struct OsiValueSlot {
  OsiValueEntry *entry; /* NULL: empty */
  const char *name;     /* entry->name */
  uint32_t hash;
  uint32_t len;
} OsiValueSlot;

typedef struct OsiValueTable {
  OsiValueSlot *slots;
  size_t cap, count;
} OsiValueTable;

int osi_value_table_init(OsiValueTable *t, size_t expected);
void osi_value_table_free(OsiValueTable *t);
/* The entry named `name`, NULL when absent or pending. */
OsiValueEntry *osi_value_table_get(const OsiValueTable *t, const char *name);

/* A name with its hash and length, for looking it up in several tables
 * (the scopes from a subgraph outwards) while hashing it once. */
typedef struct OsiNameKey {
  const char *name;
  uint64_t hash;
  size_t len;
} OsiNameKey;

OsiNameKey osi_name_key(const char *name);
/* The entry for key, pending or not. */
OsiValueEntry *osi_value_table_find(const OsiValueTable *t, const OsiNameKey *key);
/* Inserts (entry is not copied; it must outlive the table). 0 on OOM. */
int osi_value_table_put(OsiValueTable *t, OsiValueEntry *entry);
/* The entry named `name`, or a new zeroed one from `arena` with that name
 * (*created = 1), found or placed with one probe sequence. NULL on OOM. */
OsiValueEntry *osi_value_table_upsert(OsiValueTable *t, const char *name, OsiArena *arena,
                                      int *created);
uint64_t osi_hash_string(const char *s);

#endif
