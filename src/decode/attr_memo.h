/*
 * Attributes already decoded, by their bytes (decode_pbc.c). Exporters
 * repeat attributes: a 32-layer GPT-2 export has 5,131 of them and 35
 * distinct byte strings (Constant values, Unsqueeze axes, Gather's axis), a
 * CNN's 71k Conv and pool attributes are 6. An attribute whose bytes a
 * node before it had decodes to the same OsiAttr (graph.h: everything it
 * points to is read-only), so the decoder copies that one instead of having
 * protobuf-c unpack the AttributeProto (and its TensorProto) again.
 *
 * Direct-mapped by hash: a fixed amount of memory whatever the model, and
 * an attribute that lost its slot is only unpacked once more.
 */
#ifndef OSI_ATTR_MEMO_H
#define OSI_ATTR_MEMO_H

#include <stddef.h>
#include <stdint.h>

#include "model/graph.h"

/* Attributes longer than this (in bytes) are not kept: long ones rarely
 * repeat, and each slot holds its key. */
#define OSI_ATTR_MEMO_MAX_BYTES 120

typedef struct OsiAttrMemoSlot OsiAttrMemoSlot;

typedef struct OsiAttrMemo {
  OsiAttrMemoSlot *slots; /* malloc'ed on the first put; NULL: none */
  int failed;             /* no memory for them: nothing is kept */
} OsiAttrMemo;

/* The attribute decoded from the len bytes at p before, or NULL; *hash is
 * set for osi_attr_memo_put. */
const OsiAttr *osi_attr_memo_find(const OsiAttrMemo *m, const uint8_t *p, size_t len, uint32_t *hash);

/* Keeps `a`, decoded from the len bytes at p (hash from osi_attr_memo_find).
 * The caller keeps only attributes whose decoding depends on nothing but
 * their bytes (not a graph: its decoding interns the names of a scope). */
void osi_attr_memo_put(OsiAttrMemo *m, const uint8_t *p, size_t len, uint32_t hash, const OsiAttr *a);

void osi_attr_memo_free(OsiAttrMemo *m);

#endif
