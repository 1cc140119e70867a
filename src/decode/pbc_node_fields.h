/*
 * A node of the model's graph read from its bytes (decode_pbc.c): the
 * NodeProto's own fields, its envelope, as spans of those bytes.
 *
 * Why not protobuf-c here: its unpack of a node's envelope cost ~2,000
 * instructions a node (~1,300 of them inside protobuf_c_message_unpack:
 * two passes over the fields, a block from the allocator for the message,
 * each array and each string, every name copied), 45% of the protobuf-c
 * decode of a 100k-node graph, for fields that are all bytes: the names
 * (input, output, name, op_type, domain, overload) and the attributes'
 * bytes. The pre-scan (pbc_prescan.c) has already walked each of those
 * fields with protobuf-c's NodeProto descriptor (keys, lengths, no NUL in a
 * string) when the node is read here, and the decoder copies what it keeps
 * out of the bytes (names interned, strings into the arena), so the spans
 * are all it needs. protobuf-c still unpacks everything else: the model, the
 * graph, every attribute (AttributeProto, TensorProto, GraphProto, ...), the
 * value infos and their types, and every node of a subgraph or function.
 *
 * The reader is bounds-checked on its own (it never reads past the span,
 * whatever the bytes), and reads what protobuf-c's unpack of the same
 * fields read: repeated fields in order, a non-repeated field given more
 * than once the last one, unknown fields skipped by their wire type, and
 * refused where protobuf-c refuses (a known field with another wire type
 * than length-delimited, a group or invalid wire type, field number 0, a
 * key or length longer than 5 bytes, a varint longer than 10, anything past
 * the end of the span).
 */
#ifndef OSI_PBC_NODE_FIELDS_H
#define OSI_PBC_NODE_FIELDS_H

#include <stddef.h>
#include <stdint.h>

/* Bytes of a field: `len` bytes at `p` (p NULL and len 0: absent). */
typedef struct OsiPbcSpan {
  const uint8_t *p;
  size_t len;
} OsiPbcSpan;

/* One repeated field's spans, in order; the array is kept (malloc'ed) from
 * node to node. */
typedef struct OsiPbcSpans {
  OsiPbcSpan *v;
  size_t n, cap;
} OsiPbcSpans;

/* NodeProto's fields (onnx_shapes.proto), each attribute an AttributeProto's
 * bytes, unparsed. */
typedef struct OsiPbcNodeFields {
  OsiPbcSpan name, op_type, domain, overload;
  OsiPbcSpans input, output, attribute;
} OsiPbcNodeFields;

typedef enum OsiPbcNodeRead {
  OSI_PBC_NODE_READ = 0,
  OSI_PBC_NODE_REFUSED, /* protobuf-c would refuse the bytes */
  OSI_PBC_NODE_NOMEM,   /* no memory for the arrays */
} OsiPbcNodeRead;

/* The fields of the NodeProto in the len bytes at p into *f (whose arrays
 * it reuses; zero it before the first call). The spans point into p. */
OsiPbcNodeRead osi_pbc_node_fields_read(OsiPbcNodeFields *f, const uint8_t *p, size_t len);

void osi_pbc_node_fields_free(OsiPbcNodeFields *f);

#endif
