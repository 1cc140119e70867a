/*
 * nanopb decoder: the streaming twin of decode_pbc.c. It fills exactly the
 * same OsiModel, but pulls the serialized ModelProto through a read/skip
 * source instead of unpacking it whole.
 *
 * Every submessage field is a nanopb callback (src/decode/proto/onnx_shapes.options),
 * so each NodeProto, TensorProto, ValueInfoProto, AttributeProto, TypeProto,
 * ... is decoded on its own into a struct on the C stack, converted, and
 * copied into the run's arena. Lists whose length is only known at the end
 * (nodes of a graph, attributes of a node, ...) grow in malloc'ed vectors and
 * are copied into the arena once complete.
 *
 * Tensor payloads: dims may come after raw_data in the wire order, so whether
 * a tensor's content is kept (osi_tensor_wants_data) is decided when its
 * message ends. Until then raw_data of at most OSI_NPB_MAX_KEPT_RAW bytes
 * (32 KiB: OSI_MAX_VALUE_ELEMS elements of 8 bytes) is held in a temporary
 * buffer; a longer one cannot be kept anyway and is skipped at the source
 * (a seek for files, a position bump for JS), as is every element of
 * repeated fixed-width data past OSI_NPB_MAX_KEPT_ELEMS and all of
 * string_data, external_data and SparseTensorProto.indices (repeated
 * varints past it are read and checked, not kept: protobuf-c refuses a
 * malformed one wherever it is). Such a tensor is then seen
 * as "too big", which is what osi_tensor_keep_data concludes from the full
 * payload too.
 *
 * A non-repeated message field written more than once (no ONNX writer does
 * it, the wire format allows it) is merged as protobuf specifies: each such
 * field decodes into a builder (GraphB, NpbTensorB, NpbSparseB, NpbTypeB)
 * that later occurrences keep filling, and becomes part of the model when
 * the message holding it ends (npb_internal.h).
 *
 * Fields the schema does not list are skipped by nanopb itself, which reads
 * them in 16-byte pieces; the big ones of ONNX (weights) are all listed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decode/npb_internal.h"

/* Section - Graphs, nodes, attributes */

typedef struct GraphB {
  NpbDecoder *d;
  const char *name;
  NpbVec nodes, inits, sparse, inputs, outputs, value_info;
} GraphB;

static void graph_init(GraphB *g, NpbDecoder *d) {
  memset(g, 0, sizeof *g);
  g->d = d;
  g->nodes = NPB_VEC(OsiNode);
  g->inits = NPB_VEC(OsiTensor);
  g->sparse = NPB_VEC(OsiTensor);
  g->inputs = g->outputs = g->value_info = NPB_VEC(OsiValueInfo);
}

static void graph_free(GraphB *g) {
  npb_vec_free(&g->nodes);
  npb_vec_free(&g->inits);
  npb_vec_free(&g->sparse);
  npb_vec_free(&g->inputs);
  npb_vec_free(&g->outputs);
  npb_vec_free(&g->value_info);
}

static bool decode_graph_fields(pb_istream_t *stream, GraphB *g);
static const OsiGraph *graph_finish(GraphB *g);

/* One GraphProto message -> a new OsiGraph (decode_pbc.c's decode_graph). */
static bool decode_graph_msg(NpbDecoder *d, pb_istream_t *stream, const OsiGraph **out) {
  if (++d->depth > OSI_MAX_GRAPH_DEPTH) return npb_fail(d, OSI_ERR_LIMIT_EXCEEDED, "subgraph nesting exceeds the limit");
  GraphB g;
  graph_init(&g, d);
  if (!decode_graph_fields(stream, &g)) {
    graph_free(&g);
    return false;
  }
  *out = graph_finish(&g);
  d->depth--;
  return *out != NULL;
}

typedef struct AttrB {
  NpbDecoder *d;
  const char *name, *ref_attr_name, *s;
  size_t s_len;
  int has_s;
  NpbVec ints, floats, strings, tensors, graphs, type_protos; /* int64_t, double, char*, OsiTensor*, OsiGraph*, OsiType* */
  /* the non-repeated members, merged over their occurrences (malloc'ed) */
  NpbTensorB *t;
  NpbSparseB *sparse;
  GraphB *g;
  NpbTypeB *tp;
} AttrB;

static bool cb_attr_s(pb_istream_t *stream, const pb_field_t *field, void **arg) {
  (void)field;
  AttrB *a = *arg;
  a->has_s = 1;
  return npb_read_bytes(stream, a->d, &a->s, &a->s_len);
}

static bool cb_attr_ints(pb_istream_t *stream, const pb_field_t *field, void **arg) {
  (void)field;
  AttrB *a = *arg;
  while (stream->bytes_left) {
    uint64_t u;
    if (!npb_varint_as_pbc(stream, &u)) return false;
    int64_t *slot = npb_vec_push(a->d, &a->ints);
    if (!slot) return false;
    *slot = (int64_t)u;
  }
  return true;
}

static bool cb_attr_floats(pb_istream_t *stream, const pb_field_t *field, void **arg) {
  (void)field;
  AttrB *a = *arg;
  while (stream->bytes_left) {
    float f;
    if (!pb_decode_fixed32(stream, &f)) return false;
    double *slot = npb_vec_push(a->d, &a->floats);
    if (!slot) return false;
    *slot = f;
  }
  return true;
}

static bool cb_attr_strings(pb_istream_t *stream, const pb_field_t *field, void **arg) {
  (void)field;
  AttrB *a = *arg;
  const char **slot = npb_vec_push(a->d, &a->strings);
  return slot && npb_read_bytes(stream, a->d, slot, NULL);
}

static bool cb_attr_t(pb_istream_t *stream, const pb_field_t *field, void **arg) {
  (void)field;
  AttrB *a = *arg;
  if (!a->t) {
    if (!(a->t = malloc(sizeof *a->t))) return npb_nomem(a->d);
    npb_tensor_init(a->t, a->d, 1);
  }
  return npb_tensor_merge(stream, a->t);
}

static bool cb_attr_sparse(pb_istream_t *stream, const pb_field_t *field, void **arg) {
  (void)field;
  AttrB *a = *arg;
  if (!a->sparse) {
    if (!(a->sparse = malloc(sizeof *a->sparse))) return npb_nomem(a->d);
    npb_sparse_init(a->sparse, a->d);
  }
  return npb_sparse_merge(stream, a->sparse);
}

static bool cb_attr_tensors(pb_istream_t *stream, const pb_field_t *field, void **arg) {
  (void)field;
  AttrB *a = *arg;
  const OsiTensor **slot = npb_vec_push(a->d, &a->tensors);
  if (!slot) return false;
  OsiTensor *t = osi_arena_alloc(a->d->arena, sizeof *t);
  if (!t) return npb_nomem(a->d);
  *slot = t;
  return npb_decode_tensor(a->d, stream, t);
}

static bool cb_attr_g(pb_istream_t *stream, const pb_field_t *field, void **arg) {
  (void)field;
  AttrB *a = *arg;
  NpbDecoder *d = a->d;
  if (++d->depth > OSI_MAX_GRAPH_DEPTH) return npb_fail(d, OSI_ERR_LIMIT_EXCEEDED, "subgraph nesting exceeds the limit");
  if (!a->g) {
    if (!(a->g = malloc(sizeof *a->g))) return npb_nomem(d);
    graph_init(a->g, d);
  }
  if (!decode_graph_fields(stream, a->g)) return false;
  d->depth--;
  return true;
}

static bool cb_attr_graphs(pb_istream_t *stream, const pb_field_t *field, void **arg) {
  (void)field;
  AttrB *a = *arg;
  const OsiGraph **slot = npb_vec_push(a->d, &a->graphs);
  return slot && decode_graph_msg(a->d, stream, slot);
}

static bool cb_attr_tp(pb_istream_t *stream, const pb_field_t *field, void **arg) {
  (void)field;
  AttrB *a = *arg;
  return npb_merge_type(a->d, stream, &a->tp);
}

static bool cb_attr_type_protos(pb_istream_t *stream, const pb_field_t *field, void **arg) {
  (void)field;
  AttrB *a = *arg;
  const OsiType **slot = npb_vec_push(a->d, &a->type_protos);
  if (!slot) return false;
  NpbTypeB *b = NULL;
  bool ok = npb_merge_type(a->d, stream, &b);
  if (ok) *slot = npb_type_finish(a->d, b);
  npb_type_free(b);
  return ok && a->d->err->status == OSI_OK;
}

static void attr_free(AttrB *a) {
  if (a->t) npb_tensor_free(a->t);
  free(a->t);
  if (a->sparse) npb_sparse_free(a->sparse);
  free(a->sparse);
  if (a->g) graph_free(a->g);
  free(a->g);
  npb_type_free(a->tp);
  npb_vec_free(&a->ints);
  npb_vec_free(&a->floats);
  npb_vec_free(&a->strings);
  npb_vec_free(&a->tensors);
  npb_vec_free(&a->graphs);
  npb_vec_free(&a->type_protos);
}

/* Moves list `v` into out->`field` (and out->n) when the attribute's type says so. */
static bool attr_list(NpbDecoder *d, NpbVec *v, const void **field, size_t *n) {
  *n = v->n;
  *field = npb_vec_finish(d, v);
  return *field != NULL;
}

/* One AttributeProto -> *out (decode_pbc.c's decode_attr). Every member is
 * decoded as it arrives, since `type` (field 20) comes after them on the
 * wire; the type then picks which one the attribute carries. */
static bool decode_attr_msg(NpbDecoder *d, pb_istream_t *stream, OsiAttr *out) {
  AttrB a = {.d = d};
  a.ints = NPB_VEC(int64_t);
  a.floats = NPB_VEC(double);
  a.strings = NPB_VEC(const char *);
  a.tensors = NPB_VEC(const OsiTensor *);
  a.graphs = NPB_VEC(const OsiGraph *);
  a.type_protos = NPB_VEC(const OsiType *);
  StrArg name = {d, &a.name}, ref = {d, &a.ref_attr_name};
  onnx_AttributeProto m = onnx_AttributeProto_init_zero;
  npb_set_cb(&m.name, npb_cb_name, &name);
  npb_set_cb(&m.ref_attr_name, npb_cb_string, &ref);
  npb_set_cb(&m.s, cb_attr_s, &a);
  npb_set_cb(&m.t, cb_attr_t, &a);
  npb_set_cb(&m.g, cb_attr_g, &a);
  npb_set_cb(&m.floats, cb_attr_floats, &a);
  npb_set_cb(&m.ints, cb_attr_ints, &a);
  npb_set_cb(&m.strings, cb_attr_strings, &a);
  npb_set_cb(&m.tensors, cb_attr_tensors, &a);
  npb_set_cb(&m.graphs, cb_attr_graphs, &a);
  npb_set_cb(&m.tp, cb_attr_tp, &a);
  npb_set_cb(&m.type_protos, cb_attr_type_protos, &a);
  npb_set_cb(&m.sparse_tensor, cb_attr_sparse, &a);
  npb_set_cb(&m.sparse_tensors, npb_cb_skip, NULL);
  bool ok = npb_decode_checked(stream, onnx_AttributeProto_fields, &m);
  if (ok) {
    out->name = a.name ? a.name : "";
    out->type = (OsiAttrType)m.type;
    out->ref_attr_name = a.ref_attr_name;
    switch (out->type) {
    case OSI_ATTR_INT: out->i = m.i; break;
    case OSI_ATTR_FLOAT: out->f = m.f; break;
    case OSI_ATTR_STRING:
      if (a.has_s) {
        out->s = a.s;
        out->n = a.s_len;
      }
      break;
    case OSI_ATTR_INTS: ok = attr_list(d, &a.ints, (const void **)&out->ints, &out->n); break;
    case OSI_ATTR_FLOATS: ok = attr_list(d, &a.floats, (const void **)&out->floats, &out->n); break;
    case OSI_ATTR_STRINGS: ok = attr_list(d, &a.strings, (const void **)&out->strings, &out->n); break;
    case OSI_ATTR_TENSORS: ok = attr_list(d, &a.tensors, (const void **)&out->tensors, &out->n); break;
    case OSI_ATTR_GRAPHS: ok = attr_list(d, &a.graphs, (const void **)&out->graphs, &out->n); break;
    case OSI_ATTR_TYPE_PROTOS:
      ok = attr_list(d, &a.type_protos, (const void **)&out->type_protos, &out->n);
      break;
    case OSI_ATTR_TENSOR:
    case OSI_ATTR_SPARSE_TENSOR:
      if (out->type == OSI_ATTR_TENSOR ? a.t != NULL : a.sparse != NULL) {
        OsiTensor *t = osi_arena_alloc(d->arena, sizeof *t);
        ok = t ? (out->type == OSI_ATTR_TENSOR ? npb_tensor_finish(a.t, t) : npb_sparse_finish(a.sparse, t))
               : npb_nomem(d);
        out->t = t;
      }
      break;
    case OSI_ATTR_GRAPH:
      if (a.g) {
        ok = (out->g = graph_finish(a.g)) != NULL; /* frees a.g's vectors */
        free(a.g);
        a.g = NULL;
      }
      break;
    case OSI_ATTR_TYPE_PROTO: out->tp = npb_type_finish(d, a.tp); break;
    default: break;
    }
  }
  attr_free(&a);
  return ok && d->err->status == OSI_OK;
}

static bool cb_attr_list(pb_istream_t *stream, const pb_field_t *field, void **arg) {
  (void)field;
  ListArg *a = *arg;
  OsiAttr *slot = npb_vec_push(a->d, a->v);
  return slot && decode_attr_msg(a->d, stream, slot);
}

/* One NodeProto -> *out (decode_pbc.c's decode_node). */
static bool decode_node_msg(NpbDecoder *d, pb_istream_t *stream, OsiNode *out) {
  NpbVec inputs = NPB_VEC(const char *), outputs = NPB_VEC(const char *), attrs = NPB_VEC(OsiAttr);
  const char *name = NULL, *op_type = NULL, *domain = NULL, *overload = NULL;
  StrArg sn = {d, &name}, so = {d, &op_type}, sd = {d, &domain}, sv = {d, &overload};
  ListArg li = {d, &inputs}, lo = {d, &outputs}, la = {d, &attrs};
  onnx_NodeProto m = onnx_NodeProto_init_zero;
  npb_set_cb(&m.input, npb_cb_name_list, &li);
  npb_set_cb(&m.output, npb_cb_name_list, &lo);
  npb_set_cb(&m.name, npb_cb_string, &sn);
  npb_set_cb(&m.op_type, npb_cb_name, &so);
  npb_set_cb(&m.attribute, cb_attr_list, &la);
  npb_set_cb(&m.domain, npb_cb_string, &sd);
  npb_set_cb(&m.overload, npb_cb_string, &sv);
  bool ok = npb_decode_checked(stream, onnx_NodeProto_fields, &m);
  if (ok) {
    out->name = name ? name : "";
    out->op_type = op_type ? op_type : "";
    out->domain = osi_mb_domain(d->arena, domain);
    out->overload = overload ? overload : "";
    out->n_inputs = (int)inputs.n;
    out->n_outputs = (int)outputs.n;
    out->n_attrs = (int)attrs.n;
    ok = (out->inputs = npb_vec_finish(d, &inputs)) && (out->outputs = npb_vec_finish(d, &outputs)) &&
         (out->attrs = npb_vec_finish(d, &attrs)) &&
         (out->input_ids = npb_name_ids(d, out->inputs, out->n_inputs)) &&
         (out->output_ids = npb_name_ids(d, out->outputs, out->n_outputs));
    if (ok) out->graph_free = (unsigned char)osi_attrs_graph_free(out->attrs, out->n_attrs);
  }
  npb_vec_free(&inputs);
  npb_vec_free(&outputs);
  npb_vec_free(&attrs);
  return ok;
}

static bool cb_node(pb_istream_t *stream, const pb_field_t *field, void **arg) {
  (void)field;
  ListArg *a = *arg;
  OsiNode *slot = npb_vec_push(a->d, a->v);
  return slot && decode_node_msg(a->d, stream, slot);
}

static bool cb_value_info(pb_istream_t *stream, const pb_field_t *field, void **arg) {
  (void)field;
  ListArg *a = *arg;
  OsiValueInfo *slot = npb_vec_push(a->d, a->v);
  if (!slot) return false;
  const char *name = NULL;
  StrArg sn = {a->d, &name};
  TypeArg ta = {a->d, NULL};
  onnx_ValueInfoProto m = onnx_ValueInfoProto_init_zero;
  npb_set_cb(&m.name, npb_cb_name, &sn);
  npb_set_cb(&m.type, npb_cb_type, &ta);
  bool ok = npb_decode_checked(stream, onnx_ValueInfoProto_fields, &m);
  if (ok) {
    slot->name = name ? name : "";
    slot->type = npb_type_finish(a->d, ta.b);
  }
  npb_type_free(ta.b);
  return ok && a->d->err->status == OSI_OK;
}

static bool cb_initializer(pb_istream_t *stream, const pb_field_t *field, void **arg) {
  (void)field;
  ListArg *a = *arg;
  OsiTensor *slot = npb_vec_push(a->d, a->v);
  return slot && npb_decode_tensor(a->d, stream, slot);
}

static bool cb_sparse_initializer(pb_istream_t *stream, const pb_field_t *field, void **arg) {
  (void)field;
  ListArg *a = *arg;
  OsiTensor *slot = npb_vec_push(a->d, a->v);
  return slot && npb_decode_sparse(a->d, stream, slot);
}

static bool decode_graph_fields(pb_istream_t *stream, GraphB *g) {
  NpbDecoder *d = g->d;
  StrArg sn = {d, &g->name};
  ListArg ln = {d, &g->nodes}, li = {d, &g->inits}, ls = {d, &g->sparse}, lin = {d, &g->inputs},
          lout = {d, &g->outputs}, lvi = {d, &g->value_info};
  onnx_GraphProto m = onnx_GraphProto_init_zero;
  npb_set_cb(&m.node, cb_node, &ln);
  npb_set_cb(&m.name, npb_cb_string, &sn);
  npb_set_cb(&m.initializer, cb_initializer, &li);
  npb_set_cb(&m.input, cb_value_info, &lin);
  npb_set_cb(&m.output, cb_value_info, &lout);
  npb_set_cb(&m.value_info, cb_value_info, &lvi);
  npb_set_cb(&m.sparse_initializer, cb_sparse_initializer, &ls);
  return npb_decode_checked(stream, onnx_GraphProto_fields, &m);
}

/* Moves the graph's lists into the arena; frees g's vectors either way. */
static const OsiGraph *graph_finish(GraphB *g) {
  NpbDecoder *d = g->d;
  OsiGraph *out = osi_arena_alloc(d->arena, sizeof *out);
  if (!out) {
    graph_free(g);
    return npb_nomem(d), NULL;
  }
  out->name = g->name ? g->name : "";
  out->n_nodes = (int)g->nodes.n;
  out->n_inputs = (int)g->inputs.n;
  out->n_outputs = (int)g->outputs.n;
  out->n_value_info = (int)g->value_info.n;
  out->n_initializers = (int)(g->inits.n + g->sparse.n);
  /* initializers, then sparse initializers (dims only) */
  for (size_t i = 0; i < g->sparse.n; i++) {
    OsiTensor *slot = npb_vec_push(d, &g->inits);
    if (!slot) {
      graph_free(g);
      return NULL;
    }
    *slot = ((OsiTensor *)g->sparse.p)[i];
  }
  bool ok = (out->nodes = npb_vec_finish(d, &g->nodes)) && (out->inputs = npb_vec_finish(d, &g->inputs)) &&
            (out->outputs = npb_vec_finish(d, &g->outputs)) &&
            (out->value_info = npb_vec_finish(d, &g->value_info)) &&
            (out->initializers = npb_vec_finish(d, &g->inits));
  graph_free(g);
  return ok ? out : NULL;
}

/* Section - Functions and the model */

static bool cb_opset(pb_istream_t *stream, const pb_field_t *field, void **arg) {
  (void)field;
  ListArg *a = *arg;
  OsiOpsetImport *slot = npb_vec_push(a->d, a->v);
  if (!slot) return false;
  const char *domain = NULL;
  StrArg sd = {a->d, &domain};
  onnx_OperatorSetIdProto m = onnx_OperatorSetIdProto_init_zero;
  npb_set_cb(&m.domain, npb_cb_string, &sd);
  if (!npb_decode_checked(stream, onnx_OperatorSetIdProto_fields, &m)) return false;
  slot->domain = osi_mb_domain(a->d->arena, domain);
  slot->version = m.version;
  return slot->domain != NULL || npb_nomem(a->d);
}

static bool cb_function(pb_istream_t *stream, const pb_field_t *field, void **arg) {
  (void)field;
  ListArg *a = *arg;
  NpbDecoder *d = a->d;
  OsiFunction *f = npb_vec_push(d, a->v);
  if (!f) return false;
  NpbVec inputs = NPB_VEC(const char *), outputs = NPB_VEC(const char *), attr_names = NPB_VEC(const char *),
      defaults = NPB_VEC(OsiAttr), nodes = NPB_VEC(OsiNode), opsets = NPB_VEC(OsiOpsetImport),
      value_info = NPB_VEC(OsiValueInfo);
  const char *name = NULL, *domain = NULL, *overload = NULL;
  StrArg sn = {d, &name}, sd = {d, &domain}, so = {d, &overload};
  ListArg li = {d, &inputs}, lo = {d, &outputs}, lan = {d, &attr_names}, lad = {d, &defaults},
          ln = {d, &nodes}, lop = {d, &opsets}, lvi = {d, &value_info};
  onnx_FunctionProto m = onnx_FunctionProto_init_zero;
  npb_set_cb(&m.name, npb_cb_string, &sn);
  npb_set_cb(&m.input, npb_cb_name_list, &li);
  npb_set_cb(&m.output, npb_cb_name_list, &lo);
  npb_set_cb(&m.attribute, npb_cb_string_list, &lan);
  npb_set_cb(&m.node, cb_node, &ln);
  npb_set_cb(&m.opset_import, cb_opset, &lop);
  npb_set_cb(&m.domain, npb_cb_string, &sd);
  npb_set_cb(&m.attribute_proto, cb_attr_list, &lad);
  npb_set_cb(&m.value_info, cb_value_info, &lvi);
  npb_set_cb(&m.overload, npb_cb_string, &so);
  bool ok = npb_decode_checked(stream, onnx_FunctionProto_fields, &m);
  if (ok) {
    f->name = name ? name : "";
    f->domain = osi_mb_domain(d->arena, domain);
    f->overload = overload ? overload : "";
    f->n_inputs = (int)inputs.n;
    f->n_outputs = (int)outputs.n;
    f->n_attr_names = (int)attr_names.n;
    f->n_attr_defaults = (int)defaults.n;
    f->n_nodes = (int)nodes.n;
    f->n_opsets = (int)opsets.n;
    f->n_value_info = (int)value_info.n;
    ok = (f->inputs = npb_vec_finish(d, &inputs)) && (f->outputs = npb_vec_finish(d, &outputs)) &&
         (f->attr_names = npb_vec_finish(d, &attr_names)) &&
         (f->attr_defaults = npb_vec_finish(d, &defaults)) && (f->nodes = npb_vec_finish(d, &nodes)) &&
         (f->opsets = npb_vec_finish(d, &opsets)) && (f->value_info = npb_vec_finish(d, &value_info));
  }
  npb_vec_free(&inputs);
  npb_vec_free(&outputs);
  npb_vec_free(&attr_names);
  npb_vec_free(&defaults);
  npb_vec_free(&nodes);
  npb_vec_free(&opsets);
  npb_vec_free(&value_info);
  return ok;
}

typedef struct ModelB {
  NpbDecoder *d;
  int has_graph;
  GraphB graph; /* a repeated graph field merges into it, as in protobuf-c */
} ModelB;

static bool cb_model_graph(pb_istream_t *stream, const pb_field_t *field, void **arg) {
  (void)field;
  ModelB *mb = *arg;
  NpbDecoder *d = mb->d;
  mb->has_graph = 1;
  /* decode_pbc.c decodes the main graph at depth 1 */
  if (d->depth + 1 > OSI_MAX_GRAPH_DEPTH) return npb_fail(d, OSI_ERR_LIMIT_EXCEEDED, "subgraph nesting exceeds the limit");
  d->depth++;
  bool ok = decode_graph_fields(stream, &mb->graph);
  d->depth--;
  return ok;
}

static const OsiModel *decode_model(NpbDecoder *d, pb_istream_t *stream, NpbSource *src) {
  ModelB mb = {.d = d};
  graph_init(&mb.graph, d);
  NpbVec opsets = NPB_VEC(OsiOpsetImport), functions = NPB_VEC(OsiFunction);
  const char *producer = NULL;
  StrArg sp = {d, &producer};
  ListArg lo = {d, &opsets}, lf = {d, &functions};
  onnx_ModelProto m = onnx_ModelProto_init_zero;
  npb_set_cb(&m.producer_name, npb_cb_string, &sp);
  npb_set_cb(&m.producer_version, npb_cb_string_check, d);
  npb_set_cb(&m.domain, npb_cb_string_check, d);
  npb_set_cb(&m.graph, cb_model_graph, &mb);
  npb_set_cb(&m.opset_import, cb_opset, &lo);
  npb_set_cb(&m.functions, cb_function, &lf);
  OsiModel *model = NULL;
  if (!npb_decode_checked(stream, onnx_ModelProto_fields, &m)) {
    if (d->err->status == OSI_OK) npb_source_describe_error(src, PB_GET_ERROR(stream), d->err);
    goto done;
  }
  model = osi_arena_alloc(d->arena, sizeof *model);
  if (!model) {
    npb_nomem(d);
    goto done;
  }
  model->ir_version = m.ir_version;
  model->producer_name = producer ? producer : "";
  model->n_opsets = (int)opsets.n;
  model->n_functions = (int)functions.n;
  if (!(model->opsets = npb_vec_finish(d, &opsets)) || !(model->functions = npb_vec_finish(d, &functions))) {
    model = NULL;
    goto done;
  }
  if (!mb.has_graph) {
    npb_fail(d, OSI_ERR_INVALID_MODEL, "the model has no graph");
    model = NULL;
    goto done;
  }
  d->depth++;
  model->graph = graph_finish(&mb.graph); /* frees mb.graph's vectors */
  d->depth--;
  if (!model->graph) model = NULL;
  else model->n_name_ids = osi_names_id_limit(&d->names);
done:
  graph_free(&mb.graph);
  npb_vec_free(&opsets);
  npb_vec_free(&functions);
  if (!model && d->err->status == OSI_OK) npb_nomem(d);
  return model;
}

static const OsiModel *run(NpbSource *src, OsiArena *arena, OsiExprStore *exprs, OsiDecodeError *err) {
  NpbDecoder d = {arena, exprs, err, 0, {0}, {0}};
  osi_names_init(&d.names, arena);
  err->status = OSI_OK;
  err->message[0] = 0;
  if (src->total > (uint64_t)SIZE_MAX) {
    osi_mb_fail(err, OSI_ERR_LIMIT_EXCEEDED, "the model is larger than this build can address");
    return NULL;
  }
  pb_istream_t stream = {npb_source_read, src, (size_t)src->total, NULL};
  const OsiModel *m = decode_model(&d, &stream, src);
  osi_names_free(&d.names);
  osi_mb_dim_memo_free(&d.dim_memo);
  return m;
}

const OsiModel *osi_decode_npb_stream(OsiReadFn read, OsiSkipFn skip, void *user,
                                      uint64_t total_len, OsiArena *arena, OsiExprStore *exprs,
                                      OsiDecodeError *err) {
  NpbSource src = {.read = read, .skip = skip, .user = user, .total = total_len};
  src.buf = malloc(NPB_SOURCE_BUF_SIZE);
  if (!src.buf) {
    err->status = OSI_OK;
    osi_mb_fail(err, OSI_ERR_NOMEM, "out of memory while decoding the model");
    return NULL;
  }
  const OsiModel *m = run(&src, arena, exprs, err);
  free(src.buf);
  return m;
}

const OsiModel *osi_decode_npb(const uint8_t *bytes, size_t len, OsiArena *arena,
                               OsiExprStore *exprs, OsiDecodeError *err) {
  NpbSource src = {.mem = bytes ? bytes : (const uint8_t *)"", .total = len};
  return run(&src, arena, exprs, err);
}

