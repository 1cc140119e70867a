/*
 * Turning a TensorProto's payload into the few numbers inference keeps.
 * Shared by both decoders: they fill an OsiTensorSource with pointers into
 * whatever they decoded and this file does the per-dtype conversion.
 */
#ifndef OSI_TENSOR_DATA_H
#define OSI_TENSOR_DATA_H

#include <stddef.h>
#include <stdint.h>

#include "model/graph.h"

typedef struct OsiTensorSource {
  int32_t elem_type;
  const uint8_t *raw;
  size_t raw_len;
  int has_raw;
  const int64_t *int64_data;
  size_t n_int64;
  const int32_t *int32_data;
  size_t n_int32;
  const uint64_t *uint64_data;
  size_t n_uint64;
  const float *float_data;
  size_t n_float;
  const double *double_data;
  size_t n_double;
} OsiTensorSource;

/* 1 when a tensor of this type and element count has its content kept. */
int osi_tensor_wants_data(int32_t elem_type, int64_t count);

/* Element count of dims (1 for rank 0); -1 on a negative dim or overflow. */
int64_t osi_tensor_count(int32_t rank, const int64_t *dims);

/* Fills t->count/ints/floats from src when the tensor is small enough and
 * the payload is consistent with the dims; leaves them unset otherwise. */
void osi_tensor_keep_data(OsiArena *arena, OsiTensor *t, const OsiTensorSource *src);

#endif
