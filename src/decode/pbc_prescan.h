/*
 * What decode_pbc.c does to the bytes before protobuf-c unpacks them
 * (pbc_prescan.c): a scan that refuses what protobuf-c cannot unpack safely
 * or reads differently from the nanopb decoder, and a rewrite for the one
 * thing protobuf-c merges differently from protobuf's specification.
 */
#ifndef OSI_PBC_PRESCAN_H
#define OSI_PBC_PRESCAN_H

#include <stddef.h>
#include <stdint.h>

#include "decode/decode.h"

/* Walks the ModelProto in `bytes` with protobuf-c's descriptors. 1: protobuf-c
 * may unpack them (malformed bytes the scan does not name are left to it);
 * 0: the decode fails with the error set in err (PARSE_ERROR naming the byte
 * where the bytes go wrong, "the file ends early" for a truncated file, a
 * string with a NUL byte; LIMIT_EXCEEDED for nesting). *merge is set when
 * some message holds a non-repeated message field more than once. */
int osi_pbc_prescan(const uint8_t *bytes, size_t len, OsiDecodeError *err, int *merge);

/* The same ModelProto with every non-repeated message field written once:
 * its occurrences merged as protobuf specifies (scalars: last; repeated:
 * appended; messages: merged; a oneof: its last member, merged with earlier
 * occurrences of that member since another member last appeared). protobuf-c
 * merges two occurrences differently (a oneof member replaced, not merged;
 * an empty bytes field losing to an earlier one), so decode_pbc.c unpacks
 * this instead. Call only after osi_pbc_prescan accepted the bytes. NULL
 * when memory runs out (malloc'ed; *out_len set otherwise). */
uint8_t *osi_pbc_merge_fields(const uint8_t *bytes, size_t len, size_t *out_len);

#endif
