#include "wire_writer.h"

#include <stdlib.h>
#include <string.h>

void w_put(Wire *w, const void *data, size_t n) {
  if (w->n + n > w->cap) {
    size_t cap = w->cap ? w->cap : 64;
    while (cap < w->n + n) cap *= 2;
    w->p = realloc(w->p, cap);
    if (!w->p) abort();
    w->cap = cap;
  }
  if (n) memcpy(w->p + w->n, data, n);
  w->n += n;
}

void w_varint(Wire *w, uint64_t v) {
  uint8_t tmp[10];
  int n = 0;
  do {
    tmp[n] = (uint8_t)(v & 0x7f);
    v >>= 7;
    if (v) tmp[n] |= 0x80;
    n++;
  } while (v);
  w_put(w, tmp, (size_t)n);
}

void w_varint_padded(Wire *w, uint64_t v, int len) {
  for (int i = 0; i < len; i++) {
    uint8_t b = (uint8_t)(v & 0x7f);
    v >>= 7;
    if (i + 1 < len) b |= 0x80;
    w_put(w, &b, 1);
  }
}

void w_key(Wire *w, int field, int wire) { w_varint(w, (uint64_t)field << 3 | (uint64_t)wire); }

void w_int(Wire *w, int field, int64_t v) {
  w_key(w, field, 0);
  w_varint(w, (uint64_t)v);
}

void w_bytes(Wire *w, int field, const void *data, size_t n) {
  w_key(w, field, 2);
  w_varint(w, n);
  w_put(w, data, n);
}

void w_str(Wire *w, int field, const char *s) { w_bytes(w, field, s, strlen(s)); }

void w_msg(Wire *w, int field, Wire *sub) {
  w_bytes(w, field, sub->p, sub->n);
  w_free(sub);
}

void w_msg_copy(Wire *w, int field, const Wire *sub) { w_bytes(w, field, sub->p, sub->n); }

void w_free(Wire *w) {
  free(w->p);
  *w = (Wire){0};
}

Wire w_shape(int rank, const int64_t *dims, const char *const *params) {
  Wire s = {0};
  for (int i = 0; i < rank; i++) {
    Wire d = {0};
    if (params && params[i]) w_str(&d, 2, params[i]);
    else w_int(&d, 1, dims[i]);
    w_msg(&s, 1, &d);
  }
  return s;
}

Wire w_tensor_type_body(int elem, int rank, const int64_t *dims) {
  Wire t = {0};
  if (elem) w_int(&t, 1, elem);
  if (rank >= 0) {
    Wire s = w_shape(rank, dims, NULL);
    w_msg(&t, 2, &s);
  }
  return t;
}

Wire w_tensor_type(int elem, int rank, const int64_t *dims) {
  Wire tp = {0}, t = w_tensor_type_body(elem, rank, dims);
  w_msg(&tp, 1, &t);
  return tp;
}

Wire w_value_info(const char *name, Wire *type) {
  Wire v = {0};
  w_str(&v, 1, name);
  if (type) w_msg(&v, 2, type);
  return v;
}

Wire w_node(const char *op, const char *const *inputs, const char *const *outputs, Wire *attrs) {
  Wire n = {0};
  for (int i = 0; inputs && inputs[i]; i++) w_str(&n, 1, inputs[i]);
  for (int i = 0; outputs && outputs[i]; i++) w_str(&n, 2, outputs[i]);
  w_str(&n, 4, op);
  if (attrs) {
    w_put(&n, attrs->p, attrs->n);
    w_free(attrs);
  }
  return n;
}

Wire w_model(int opset, Wire *graph) {
  Wire m = {0}, op = {0};
  w_int(&m, 1, 8);
  w_int(&op, 2, opset);
  w_msg(&m, 8, &op);
  w_msg(&m, 7, graph);
  return m;
}
