/*
 * A protobuf wire writer for tests that need bytes no ONNX writer produces:
 * a field written twice, a message split in two occurrences, a key or a
 * length in an overlong encoding, a NUL inside a name.
 *
 *   Wire m = {0};
 *   w_int(&m, 1, 8);                 // ir_version
 *   Wire g = {0}; ...; w_msg(&m, 7, &g);   // appends g as field 7 and frees it
 *   ... use m.p / m.n ...; free(m.p);
 */
#ifndef OSI_WIRE_WRITER_H
#define OSI_WIRE_WRITER_H

#include <stddef.h>
#include <stdint.h>

typedef struct Wire {
  uint8_t *p;
  size_t n, cap;
} Wire;

void w_put(Wire *w, const void *data, size_t n);
void w_varint(Wire *w, uint64_t v);
/* v in exactly `len` bytes (1..11): zero-padded with continuation bits. */
void w_varint_padded(Wire *w, uint64_t v, int len);
void w_key(Wire *w, int field, int wire);
void w_int(Wire *w, int field, int64_t v);              /* varint field */
void w_bytes(Wire *w, int field, const void *data, size_t n); /* length-delimited field */
void w_str(Wire *w, int field, const char *s);
/* `sub` as a length-delimited field; frees sub. */
void w_msg(Wire *w, int field, Wire *sub);
/* A copy of sub as a length-delimited field (sub is kept). */
void w_msg_copy(Wire *w, int field, const Wire *sub);
void w_free(Wire *w);

/* ONNX messages (field numbers of onnx.proto). A dim is a number, or a
 * dim_param when `params` names one at that index. */
Wire w_shape(int rank, const int64_t *dims, const char *const *params); /* TensorShapeProto */
/* TypeProto.Tensor: elem 0 = no elem_type field, rank -1 = no shape field. */
Wire w_tensor_type_body(int elem, int rank, const int64_t *dims);
Wire w_tensor_type(int elem, int rank, const int64_t *dims); /* TypeProto with tensor_type */
Wire w_value_info(const char *name, Wire *type);             /* frees type */
/* NodeProto; inputs/outputs NULL-terminated; attrs (AttributeProto list) may be NULL. */
Wire w_node(const char *op, const char *const *inputs, const char *const *outputs, Wire *attrs);
/* ModelProto with ir_version 8, one opset import of `opset` and the graph. */
Wire w_model(int opset, Wire *graph);

#endif
