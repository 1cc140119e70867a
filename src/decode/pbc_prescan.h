/*
 * What decode_pbc.c does to the bytes before protobuf-c unpacks them
 * (pbc_prescan.c): a scan that refuses what protobuf-c cannot unpack safely
 * or reads differently from the nanopb decoder; and the rewrites
 * (pbc_rewrite.c): one for the thing protobuf-c merges differently from
 * protobuf's specification, one that drops the weights it would copy.
 */
#ifndef OSI_PBC_PRESCAN_H
#define OSI_PBC_PRESCAN_H

#include <stddef.h>
#include <stdint.h>

#include "decode/decode.h"

/* A TensorProto (its content, in the scanned bytes) whose payloads inference
 * never reads. */
typedef struct OsiPbcStrip {
  const uint8_t *start;
  size_t len;
} OsiPbcStrip;

/* Such tensors, in byte order, and the bytes their payload fields take; and
 * the model graph's nodes (the contents of ModelProto.graph.node), in byte
 * order, which decode_pbc.c reads from where they are rather than from a
 * copy (osi_pbc_strip_nodes; pbc_node_fields.h). */
typedef struct OsiPbcStrips {
  OsiPbcStrip *items;
  size_t count, cap;
  size_t bytes;
  int failed; /* out of memory: the list is incomplete (then it is not used) */
  OsiPbcStrip *nodes;
  size_t n_nodes, cap_nodes;
  int nodes_failed; /* out of memory: `nodes` is incomplete (then it is not used) */
} OsiPbcStrips;

/* Walks the ModelProto in `bytes` with protobuf-c's descriptors. 1: protobuf-c
 * may unpack them (malformed bytes the scan does not name are left to it);
 * 0: the decode fails with the error set in err (PARSE_ERROR naming the byte
 * where the bytes go wrong, "the file ends early" for a truncated file, a
 * string with a NUL byte; LIMIT_EXCEEDED for nesting). *merge is set when
 * some message holds a non-repeated message field more than once. When
 * `strips` is not NULL, the tensors whose raw_data and string_data inference
 * never reads (osi_tensor_wants_data) are appended to it, and the model
 * graph's nodes to its `nodes` (free both). */
int osi_pbc_prescan(const uint8_t *bytes, size_t len, OsiDecodeError *err, int *merge,
                    OsiPbcStrips *strips);

/* The same ModelProto with every non-repeated message field written once:
 * its occurrences merged as protobuf specifies (scalars: last; repeated:
 * appended; messages: merged; a oneof: its last member, merged with earlier
 * occurrences of that member since another member last appeared). protobuf-c
 * merges two occurrences differently (a oneof member replaced, not merged;
 * an empty bytes field losing to an earlier one), so decode_pbc.c unpacks
 * this instead. Call only after osi_pbc_prescan accepted the bytes. NULL
 * when memory runs out (malloc'ed; *out_len set otherwise). */
uint8_t *osi_pbc_merge_fields(const uint8_t *bytes, size_t len, size_t *out_len);

/* 1 when writing the model again without the payloads in `strips` saves
 * enough to be worth it. */
int osi_pbc_strip_pays(const OsiPbcStrips *strips, size_t len);

/* Tests and fuzzing: with `on`, the calling thread's scans note every
 * tensor with a payload to drop, and every such list is worth a rewrite, so
 * that small models exercise it too. */
void osi_pbc_strip_always(int on);

/* The same ModelProto without the raw_data and string_data fields of the
 * tensors in `strips` (from osi_pbc_prescan on these bytes, which must need
 * no merge): protobuf-c unpacks the same model from it, but for payloads
 * nothing reads. NULL when memory runs out (malloc'ed; *out_len set
 * otherwise). */
uint8_t *osi_pbc_strip_payloads(const uint8_t *bytes, size_t len, const OsiPbcStrips *strips,
                                size_t *out_len);
/* The same, and without the model graph's nodes (strips->nodes), which
 * protobuf-c would otherwise copy (as bytes: ModelProtoNodesLater) before
 * they are read one at a time: decode_pbc.c reads each from the original
 * bytes instead, through osi_pbc_strip_node when it holds a payload to
 * drop (which protobuf-c would copy when it unpacks the attribute). Same
 * conditions and failure as osi_pbc_strip_payloads. */
uint8_t *osi_pbc_strip_nodes(const uint8_t *bytes, size_t len, const OsiPbcStrips *strips,
                             size_t *out_len);
/* The NodeProto `node` (one of strips->nodes) without the payloads of the
 * tensors in strips inside it; *next: the first of strips->items not
 * passed yet, advanced past the node's. NULL when memory runs out. */
uint8_t *osi_pbc_strip_node(const OsiPbcStrips *strips, const OsiPbcStrip *node, size_t *next,
                            size_t *out_len);

#endif
