/*
 * Wire-format reading shared by the protobuf-c pre-scan (pbc_prescan.c) and
 * the rewrites (pbc_rewrite.c): varints and the field descriptor of a key.
 */
#ifndef OSI_PBC_WIRE_H
#define OSI_PBC_WIRE_H

#include <stddef.h>
#include <stdint.h>

#include "onnx_shapes.pb-c.h"

/* Bytes of the varint at p, when it ends within min(len, 10) bytes; else 0. */
static inline size_t pbc_varint(const uint8_t *p, size_t len, uint64_t *out) {
  uint64_t v = 0;
  for (size_t i = 0; i < len && i < 10; i++) {
    v |= (uint64_t)(p[i] & 0x7f) << (7 * i);
    if (!(p[i] & 0x80)) {
      *out = v;
      return i + 1;
    }
  }
  return 0;
}

/* pbc_varint with the one-byte case (most keys and lengths) first. */
static inline size_t pbc_varint1(const uint8_t *p, size_t len, uint64_t *out) {
  if (len && p[0] < 0x80) {
    *out = p[0];
    return 1;
  }
  return pbc_varint(p, len, out);
}

/* The descriptor of the field a key names in desc, NULL for an unknown field. */
static inline const ProtobufCFieldDescriptor *pbc_field_of(const ProtobufCMessageDescriptor *desc,
                                                           uint64_t key) {
  uint64_t id = key >> 3;
  if (id > UINT32_MAX) return NULL;
  /* The generated descriptors list fields by number, mostly without gaps:
   * look back from where field `id` would be before the binary search
   * (called for every field of every message, it was a third of the scan). */
  for (unsigned i = id < desc->n_fields ? (unsigned)id : desc->n_fields; i-- > 0;) {
    if (desc->fields[i].id == id) return &desc->fields[i];
    if (desc->fields[i].id < id) break;
  }
  return protobuf_c_message_descriptor_get_field(desc, (unsigned)id);
}

#endif
