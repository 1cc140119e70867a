/*
 * The string hash every name-keyed table uses (value tables, the decoders'
 * name interning), so that a hash computed once can serve them all.
 */
#ifndef OSI_STR_HASH_H
#define OSI_STR_HASH_H

#include <stddef.h>
#include <stdint.h>

/* A 64-bit hash of the len bytes at s. */
uint64_t osi_str_hash(const char *s, size_t len);

#endif
