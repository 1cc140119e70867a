#include "decode/tensor_data.h"

#include <math.h>
#include <string.h>

int64_t osi_tensor_count(int32_t rank, const int64_t *dims) {
  int64_t n = 1;
  for (int32_t i = 0; i < rank; i++) {
    if (dims[i] < 0 || __builtin_mul_overflow(n, dims[i], &n)) return -1;
  }
  return n;
}

int osi_tensor_wants_data(int32_t elem_type, int64_t count) {
  if (count < 0) return 0;
  if (osi_dtype_is_integer(elem_type)) return count <= OSI_MAX_VALUE_ELEMS;
  if (osi_dtype_is_float(elem_type)) return count <= OSI_MAX_FLOAT_DATA;
  return 0;
}

static double half_to_double(uint16_t h) {
  int sign = h >> 15, exp = (h >> 10) & 0x1f, man = h & 0x3ff;
  double v;
  if (exp == 0) v = ldexp(man, -24);
  else if (exp == 31) v = man ? NAN : INFINITY;
  else v = ldexp(man | 0x400, exp - 25);
  return sign ? -v : v;
}

static double bfloat_to_double(uint16_t b) {
  uint32_t bits = (uint32_t)b << 16;
  float f;
  memcpy(&f, &bits, sizeof f);
  return f;
}

static uint64_t read_le(const uint8_t *p, int size) {
  uint64_t v = 0;
  for (int i = size - 1; i >= 0; i--) v = (v << 8) | p[i];
  return v;
}

static int64_t raw_int(const uint8_t *p, int32_t dt) {
  switch (dt) {
  case OSI_DT_INT8: return (int8_t)p[0];
  case OSI_DT_UINT8: case OSI_DT_BOOL: return p[0];
  case OSI_DT_INT16: return (int16_t)read_le(p, 2);
  case OSI_DT_UINT16: return (uint16_t)read_le(p, 2);
  case OSI_DT_INT32: return (int32_t)read_le(p, 4);
  case OSI_DT_UINT32: return (uint32_t)read_le(p, 4);
  default: return (int64_t)read_le(p, 8); /* int64, uint64 (wraps past INT64_MAX) */
  }
}

static double raw_float(const uint8_t *p, int32_t dt) {
  switch (dt) {
  case OSI_DT_FLOAT: {
    uint32_t bits = (uint32_t)read_le(p, 4);
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
  }
  case OSI_DT_DOUBLE: {
    uint64_t bits = read_le(p, 8);
    double f;
    memcpy(&f, &bits, sizeof f);
    return f;
  }
  case OSI_DT_FLOAT16: return half_to_double((uint16_t)read_le(p, 2));
  case OSI_DT_BFLOAT16: return bfloat_to_double((uint16_t)read_le(p, 2));
  default: return NAN;
  }
}

static int keep_ints(OsiArena *a, OsiTensor *t, const OsiTensorSource *s, int64_t n) {
  int32_t dt = s->elem_type;
  /* Sub-byte integer types pack several elements per byte; not kept. */
  if (dt == OSI_DT_INT4 || dt == OSI_DT_UINT4 || dt == OSI_DT_INT2 || dt == OSI_DT_UINT2) return 0;
  int64_t *v = osi_arena_array(a, n ? (size_t)n : 1, sizeof(int64_t));
  if (!v) return 0;
  if (s->has_raw) {
    int size = osi_dtype_size(dt);
    if (s->raw_len != (size_t)n * (size_t)size) return 0;
    for (int64_t i = 0; i < n; i++) v[i] = raw_int(s->raw + i * size, dt);
  } else if (dt == OSI_DT_INT64) {
    if (s->n_int64 != (size_t)n) return 0;
    if (n) memcpy(v, s->int64_data, (size_t)n * sizeof(int64_t));
  } else if (dt == OSI_DT_UINT32 || dt == OSI_DT_UINT64) {
    if (s->n_uint64 != (size_t)n) return 0;
    for (int64_t i = 0; i < n; i++) v[i] = (int64_t)s->uint64_data[i];
  } else {
    if (s->n_int32 != (size_t)n) return 0;
    for (int64_t i = 0; i < n; i++) v[i] = s->int32_data[i];
  }
  t->ints = v;
  t->count = n;
  return 1;
}

static int keep_floats(OsiArena *a, OsiTensor *t, const OsiTensorSource *s, int64_t n) {
  int32_t dt = s->elem_type;
  double *v = osi_arena_array(a, n ? (size_t)n : 1, sizeof(double));
  if (!v) return 0;
  if (s->has_raw) {
    int size = osi_dtype_size(dt);
    if (dt != OSI_DT_FLOAT && dt != OSI_DT_DOUBLE && dt != OSI_DT_FLOAT16 && dt != OSI_DT_BFLOAT16)
      return 0;
    if (s->raw_len != (size_t)n * (size_t)size) return 0;
    for (int64_t i = 0; i < n; i++) v[i] = raw_float(s->raw + i * size, dt);
  } else if (dt == OSI_DT_FLOAT) {
    if (s->n_float != (size_t)n) return 0;
    for (int64_t i = 0; i < n; i++) v[i] = s->float_data[i];
  } else if (dt == OSI_DT_DOUBLE) {
    if (s->n_double != (size_t)n) return 0;
    if (n) memcpy(v, s->double_data, (size_t)n * sizeof(double));
  } else if (dt == OSI_DT_FLOAT16 || dt == OSI_DT_BFLOAT16) {
    /* 16-bit floats travel as their bit patterns in int32_data. */
    if (s->n_int32 != (size_t)n) return 0;
    for (int64_t i = 0; i < n; i++)
      v[i] = dt == OSI_DT_FLOAT16 ? half_to_double((uint16_t)s->int32_data[i])
                                  : bfloat_to_double((uint16_t)s->int32_data[i]);
  } else {
    return 0;
  }
  t->floats = v;
  t->count = n;
  return 1;
}

void osi_tensor_keep_data(OsiArena *arena, OsiTensor *t, const OsiTensorSource *src) {
  if (t->external) return;
  int64_t n = osi_tensor_count(t->rank, t->dims);
  if (!osi_tensor_wants_data(src->elem_type, n)) return;
  if (osi_dtype_is_integer(src->elem_type)) keep_ints(arena, t, src, n);
  else keep_floats(arena, t, src, n);
}
