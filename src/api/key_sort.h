/*
 * Value keys in strcmp order (unsigned bytes, a key before its extensions),
 * for the results' sorted "values".
 */
#ifndef OSI_KEY_SORT_H
#define OSI_KEY_SORT_H

#include <stddef.h>
#include <stdint.h>

typedef struct OsiSortKey {
  const char *key;
  int index;      /* the caller's, carried along */
  uint64_t chunk; /* scratch: 8 bytes of key at the current depth */
} OsiSortKey;

void osi_sort_keys(OsiSortKey *a, size_t n);

#endif
