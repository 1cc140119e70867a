#include "model_builder.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "onnx_shapes.h"
#include "onnx_shapes.pb-c.h"
#include "api/result.h"

#define MAX 512

struct Builder {
  Onnx__ModelProto model;
  Onnx__GraphProto graph;
  Onnx__OperatorSetIdProto *opsets[8];
  Onnx__ValueInfoProto *inputs[MAX], *outputs[MAX], *infos[MAX];
  Onnx__NodeProto *nodes[MAX];
  Onnx__TensorProto *inits[MAX];
  Onnx__FunctionProto *functions[16];
  Onnx__FunctionProto *fn; /* the function being built, or NULL */
  Onnx__GraphProto *sub;   /* the subgraph being built, or NULL */
  void *owned[32 * MAX];
  int n_owned;
};

/* A model too big for the list would leak silently: stop the test instead. */
static void *own(Builder *b, void *p) {
  if (b->n_owned >= 32 * MAX) {
    fprintf(stderr, "model_builder: more than %d allocations in one model\n", 32 * MAX);
    abort();
  }
  b->owned[b->n_owned++] = p;
  return p;
}

static char *dup(Builder *b, const char *s) {
  size_t n = strlen(s) + 1;
  return memcpy(own(b, malloc(n)), s, n);
}

Builder *builder_new(int64_t opset) {
  Builder *b = calloc(1, sizeof *b);
  onnx__model_proto__init(&b->model);
  onnx__graph_proto__init(&b->graph);
  b->model.has_ir_version = 1;
  b->model.ir_version = 8;
  b->model.graph = &b->graph;
  b->model.opset_import = b->opsets;
  b->graph.name = "g";
  b->graph.input = b->inputs;
  b->graph.output = b->outputs;
  b->graph.value_info = b->infos;
  b->graph.node = b->nodes;
  b->graph.initializer = b->inits;
  b->model.functions = b->functions;
  builder_opset(b, "", opset);
  return b;
}

void builder_free(Builder *b) {
  for (int i = 0; i < b->n_owned; i++) free(b->owned[i]);
  free(b);
}

void builder_opset(Builder *b, const char *domain, int64_t version) {
  Onnx__OperatorSetIdProto *o = own(b, calloc(1, sizeof *o));
  onnx__operator_set_id_proto__init(o);
  o->domain = dup(b, domain);
  o->has_version = 1;
  o->version = version;
  b->opsets[b->model.n_opset_import++] = o;
}

static Onnx__ValueInfoProto *value_info(Builder *b, const char *name, const char *type) {
  Onnx__ValueInfoProto *v = own(b, calloc(1, sizeof *v));
  onnx__value_info_proto__init(v);
  v->name = dup(b, name);
  if (!type[0]) return v;
  Onnx__TypeProto *tp = own(b, calloc(1, sizeof *tp));
  Onnx__TypeProto__Tensor *tt = own(b, calloc(1, sizeof *tt));
  onnx__type_proto__init(tp);
  onnx__type_proto__tensor__init(tt);
  tp->value_case = ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE;
  tp->tensor_type = tt;
  v->type = tp;
  const char *br = strchr(type, '[');
  static const char *const names[] = {"", "float", "uint8", "int8", "uint16", "int16", "int32", "int64", "string", "bool"};
  for (int i = 1; i < 10; i++)
    if (strlen(names[i]) == (size_t)(br - type) && !strncmp(names[i], type, (size_t)(br - type))) tt->elem_type = i;
  tt->has_elem_type = 1;
  if (!strcmp(br, "[*]")) return v;
  Onnx__TensorShapeProto *sp = own(b, calloc(1, sizeof *sp));
  onnx__tensor_shape_proto__init(sp);
  tt->shape = sp;
  Onnx__TensorShapeProto__Dimension **dims = own(b, calloc(64, sizeof *dims));
  sp->dim = dims;
  char buf[512];
  snprintf(buf, sizeof buf, "%s", br + 1);
  buf[strlen(buf) - 1] = 0;
  for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
    Onnx__TensorShapeProto__Dimension *d = own(b, calloc(1, sizeof *d));
    onnx__tensor_shape_proto__dimension__init(d);
    char *end;
    long long v2 = strtoll(tok, &end, 10);
    if (*end == 0 && end != tok) {
      d->value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE;
      d->dim_value = v2;
    } else {
      d->value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM;
      d->dim_param = dup(b, tok);
    }
    dims[sp->n_dim++] = d;
  }
  return v;
}

void builder_input(Builder *b, const char *name, const char *type) {
  if (b->sub) b->sub->input[b->sub->n_input++] = value_info(b, name, type);
  else b->inputs[b->graph.n_input++] = value_info(b, name, type);
}
void builder_output(Builder *b, const char *name, const char *type) {
  if (b->sub) b->sub->output[b->sub->n_output++] = value_info(b, name, type);
  else b->outputs[b->graph.n_output++] = value_info(b, name, type);
}
void builder_input_param(Builder *b, const char *name, const char *dim_param) {
  Onnx__ValueInfoProto *v = value_info(b, name, "float[0]");
  Onnx__TensorShapeProto__Dimension *d = v->type->tensor_type->shape->dim[0];
  d->value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM;
  d->dim_param = dup(b, dim_param);
  b->inputs[b->graph.n_input++] = v;
}

void builder_value_info(Builder *b, const char *name, const char *type) {
  b->infos[b->graph.n_value_info++] = value_info(b, name, type);
}

void builder_initializer_ints(Builder *b, const char *name, int n, const int64_t *values) {
  Onnx__TensorProto *t = own(b, calloc(1, sizeof *t));
  onnx__tensor_proto__init(t);
  t->name = dup(b, name);
  t->has_data_type = 1;
  t->data_type = 7;
  t->n_dims = 1;
  t->dims = own(b, malloc(sizeof(int64_t)));
  t->dims[0] = n;
  t->n_int64_data = (size_t)n;
  t->int64_data = own(b, malloc((size_t)(n ? n : 1) * sizeof(int64_t)));
  memcpy(t->int64_data, values, (size_t)n * sizeof(int64_t));
  b->inits[b->graph.n_initializer++] = t;
}

void builder_initializer_shape(Builder *b, const char *name, int dtype, int rank, const int64_t *dims,
                               int external) {
  Onnx__TensorProto *t = own(b, calloc(1, sizeof *t));
  onnx__tensor_proto__init(t);
  t->name = dup(b, name);
  t->has_data_type = 1;
  t->data_type = dtype;
  t->n_dims = (size_t)rank;
  t->dims = own(b, malloc((size_t)(rank ? rank : 1) * sizeof(int64_t)));
  memcpy(t->dims, dims, (size_t)rank * sizeof(int64_t));
  if (external) {
    t->has_data_location = 1;
    t->data_location = 1;
  }
  if (b->sub) b->sub->initializer[b->sub->n_initializer++] = t;
  else b->inits[b->graph.n_initializer++] = t;
}

void builder_node(Builder *b, const char *op, const char *name, ...) {
  Onnx__NodeProto *n = own(b, calloc(1, sizeof *n));
  onnx__node_proto__init(n);
  n->op_type = dup(b, op);
  n->name = dup(b, name);
  n->input = own(b, calloc(32, sizeof(char *)));
  n->output = own(b, calloc(32, sizeof(char *)));
  n->attribute = own(b, calloc(16, sizeof(Onnx__AttributeProto *)));
  va_list ap;
  va_start(ap, name);
  for (const char *s; (s = va_arg(ap, const char *))[0];)
    n->input[n->n_input++] = dup(b, strcmp(s, "-") ? s : "");
  for (const char *s; (s = va_arg(ap, const char *))[0];)
    n->output[n->n_output++] = dup(b, strcmp(s, "-") ? s : "");
  va_end(ap);
  if (b->sub) b->sub->node[b->sub->n_node++] = n;
  else if (b->fn) b->fn->node[b->fn->n_node++] = n;
  else b->nodes[b->graph.n_node++] = n;
}

static char **name_list(Builder *b, const char *const *names, size_t *n) {
  char **v = own(b, calloc(32, sizeof(char *)));
  for (*n = 0; names && names[*n]; (*n)++) v[*n] = dup(b, names[*n]);
  return v;
}

void builder_function(Builder *b, const char *name, const char *domain, const char *const *inputs,
                      const char *const *outputs, const char *const *attrs) {
  Onnx__FunctionProto *f = own(b, calloc(1, sizeof *f));
  onnx__function_proto__init(f);
  f->name = dup(b, name);
  f->domain = dup(b, domain);
  f->input = name_list(b, inputs, &f->n_input);
  f->output = name_list(b, outputs, &f->n_output);
  f->attribute = name_list(b, attrs, &f->n_attribute);
  f->node = own(b, calloc(MAX, sizeof(Onnx__NodeProto *)));
  f->opset_import = b->opsets;
  f->n_opset_import = 1;
  b->functions[b->model.n_functions++] = f;
  b->fn = f;
}

void builder_function_end(Builder *b) { b->fn = NULL; }

static Onnx__NodeProto *last_node(Builder *b) {
  if (b->sub) return b->sub->node[b->sub->n_node - 1];
  return b->fn ? b->fn->node[b->fn->n_node - 1] : b->nodes[b->graph.n_node - 1];
}

static Onnx__AttributeProto *attr(Builder *b, const char *name, int type) {
  Onnx__NodeProto *n = last_node(b);
  Onnx__AttributeProto *a = own(b, calloc(1, sizeof *a));
  onnx__attribute_proto__init(a);
  a->name = dup(b, name);
  a->has_type = 1;
  a->type = type;
  n->attribute[n->n_attribute++] = a;
  return a;
}

void builder_attr_int(Builder *b, const char *name, int64_t v) {
  Onnx__AttributeProto *a = attr(b, name, 2);
  a->has_i = 1;
  a->i = v;
}

void builder_attr_ints(Builder *b, const char *name, int n, const int64_t *v) {
  Onnx__AttributeProto *a = attr(b, name, 7);
  a->n_ints = (size_t)n;
  a->ints = own(b, malloc((size_t)(n ? n : 1) * sizeof(int64_t)));
  memcpy(a->ints, v, (size_t)n * sizeof(int64_t));
}

void builder_attr_string(Builder *b, const char *name, const char *v) {
  Onnx__AttributeProto *a = attr(b, name, 3);
  a->has_s = 1;
  a->s.len = strlen(v);
  a->s.data = (uint8_t *)dup(b, v);
}

void builder_subgraph(Builder *b, const char *name) {
  Onnx__GraphProto *g = own(b, calloc(1, sizeof *g));
  onnx__graph_proto__init(g);
  g->name = dup(b, name);
  g->node = own(b, calloc(MAX, sizeof(Onnx__NodeProto *)));
  g->output = own(b, calloc(32, sizeof(Onnx__ValueInfoProto *)));
  g->input = own(b, calloc(32, sizeof(Onnx__ValueInfoProto *)));
  g->initializer = own(b, calloc(32, sizeof(Onnx__TensorProto *)));
  attr(b, name, 5)->g = g;
  b->sub = g;
}

void builder_subgraph_end(Builder *b) { b->sub = NULL; }

void builder_node_domain(Builder *b, const char *domain) {
  Onnx__NodeProto *n = last_node(b);
  n->domain = dup(b, domain);
}

void builder_attr_ref(Builder *b, const char *name, int type, const char *ref_attr_name) {
  attr(b, name, type)->ref_attr_name = dup(b, ref_attr_name);
}

uint8_t *builder_pack(Builder *b, size_t *len) {
  *len = onnx__model_proto__get_packed_size(&b->model);
  uint8_t *buf = malloc(*len ? *len : 1);
  onnx__model_proto__pack(&b->model, buf);
  return buf;
}

OsiResult *builder_infer(Builder *b, uint32_t flags, const OsiRegistry *registry) {
  size_t len;
  uint8_t *bytes = builder_pack(b, &len);
  OsiResult *r = osi_infer_with(bytes, len, flags, registry);
  free(bytes);
  builder_free(b);
  return r;
}

const char *result_dims(OsiResult *r, const char *name) {
  static char buf[512];
  const OsiType *t = osi_result_lookup(r, name);
  if (!t) return "none";
  if (t->rank < 0) return "[*]";
  size_t at = 0;
  buf[at++] = '[';
  for (int i = 0; i < t->rank && at < sizeof buf; i++)
    at += (size_t)snprintf(buf + at, sizeof buf - at, "%s%s", i ? "," : "",
                           osi_expr_str(osi_result_exprs(r), t->dims[i]));
  if (at < sizeof buf) snprintf(buf + at, sizeof buf - at, "]");
  return buf;
}
