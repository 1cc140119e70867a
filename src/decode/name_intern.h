/*
 * Names interned while decoding (both decoders): value names, op types and
 * attribute names. Equal names share one copy, and the copies lie side by
 * side in blocks of their own (a CNN's 250k attribute names are a handful of
 * copies). Inference
 * looks every name up several times (the producers, the scopes, the packed
 * result); with one pointer per name a lookup that finds it reads no string,
 * and the strings it does read are a few MiB together rather than spread
 * through the whole model's memory (on a 128-layer export, where every
 * scattered name was a cache miss).
 */
#ifndef OSI_NAME_INTERN_H
#define OSI_NAME_INTERN_H

#include <stddef.h>
#include <stdint.h>

#include "base/arena.h"
#include "model/graph.h"

typedef struct OsiNameSlot {
  const char *name; /* NULL: empty */
  uint32_t hash;    /* low 32 bits of osi_str_hash */
  uint32_t len;
} OsiNameSlot;

/* A slot of the hash index: 8 bytes, so that the index a lookup probes
 * (one cache miss per new name on a big graph) is half or two thirds the
 * size of a table of OsiNameSlot, and a probe that ends on another name
 * reads no name. */
typedef struct OsiNameIndex {
  uint32_t hash; /* low 32 bits of osi_str_hash */
  uint32_t id;   /* 0: empty; else names[id - 1] */
} OsiNameIndex;

typedef struct OsiNameInterner {
  OsiArena *arena;
  char *block; /* the current block of copies, block_left bytes free */
  size_t block_left;
  OsiNameSlot *names;  /* malloc'ed, by id - 1 (in the order first seen) */
  OsiNameIndex *index; /* malloc'ed, open addressing; NULL after a failed allocation */
  /* The names interned last, by hash: most reads name a value written a
   * few nodes before, and this finds them without touching the index
   * (MiBs on a big graph: a cache miss per lookup). */
  OsiNameSlot recent[256];
  /* Names that repeat among few (op types), by length and end bytes
   * (osi_names_intern_few): found without hashing. 16 sets of 2. */
  OsiNameSlot few[16][2];
  size_t cap, count, cap_names;
  int incomplete; /* some name was copied without an id (no memory for the table) */
} OsiNameInterner;

void osi_names_init(OsiNameInterner *n, OsiArena *arena);
void osi_names_free(OsiNameInterner *n);

/* The interned copy of the len bytes at s (NUL-terminated), "" for len 0;
 * NULL when the arena is out of memory. The copy is preceded by its id
 * (osi_name_id, model/graph.h). Without memory for the table, names
 * are still copied (just not shared, and without an id: `incomplete`). Ids
 * count from 1 in the order names are first seen. */
const char *osi_names_intern(OsiNameInterner *n, const char *s, size_t len);

/* Room in the table for `count` names (a graph's node outputs), so that
 * it is not rebuilt as it doubles on the way there. */
void osi_names_reserve(OsiNameInterner *n, size_t count);

/* osi_names_intern for a name that repeats among a few (an op type: a
 * GPT-2 export's 7,809 nodes have 25): the same copy, found first among
 * the last few such names by length and end bytes, without hashing. */
const char *osi_names_intern_few(OsiNameInterner *n, const char *s, size_t len);

/* What OsiModel.n_name_ids records: one past the last id, 0 if incomplete. */
uint32_t osi_names_id_limit(const OsiNameInterner *n);

#endif
