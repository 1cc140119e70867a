#include "value_table.h"

#include <stdlib.h>
#include <string.h>

uint64_t osi_hash_string(const char *s) {
  uint64_t h = 1469598103934665603ull; /* FNV-1a */
  for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ull;
  return h;
}

int osi_value_table_init(OsiValueTable *t, size_t expected) {
  size_t cap = 16;
  while (cap < expected * 2) cap *= 2;
  t->slots = calloc(cap, sizeof *t->slots);
  t->cap = t->slots ? cap : 0;
  t->count = 0;
  return t->slots != NULL;
}

void osi_value_table_free(OsiValueTable *t) {
  free(t->slots);
  t->slots = NULL;
  t->cap = t->count = 0;
}

static size_t find_slot(OsiValueEntry **slots, size_t cap, const char *name) {
  size_t i = (size_t)osi_hash_string(name) & (cap - 1);
  while (slots[i] && strcmp(slots[i]->name, name) != 0) i = (i + 1) & (cap - 1);
  return i;
}

OsiValueEntry *osi_value_table_get(const OsiValueTable *t, const char *name) {
  if (!t->cap) return NULL;
  return t->slots[find_slot(t->slots, t->cap, name)];
}

static int grow(OsiValueTable *t) {
  size_t cap = t->cap * 2;
  OsiValueEntry **slots = calloc(cap, sizeof *slots);
  if (!slots) return 0;
  for (size_t i = 0; i < t->cap; i++)
    if (t->slots[i]) slots[find_slot(slots, cap, t->slots[i]->name)] = t->slots[i];
  free(t->slots);
  t->slots = slots;
  t->cap = cap;
  return 1;
}

int osi_value_table_put(OsiValueTable *t, OsiValueEntry *entry) {
  if ((t->count + 1) * 2 > t->cap && !grow(t)) return 0;
  size_t i = find_slot(t->slots, t->cap, entry->name);
  if (!t->slots[i]) t->count++;
  t->slots[i] = entry;
  return 1;
}
