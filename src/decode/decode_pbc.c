/*
 * protobuf-c decoder. protobuf-c unpacks the message (copying every bytes
 * field) into a scratch allocator (scratch_alloc.h: no malloc per message);
 * we copy out only what inference needs into the arena and free the
 * protobuf tree right away, so weights never outlive decoding. The bytes
 * are scanned first, and rewritten when protobuf-c would merge them wrongly
 * (pbc_prescan.h); otherwise they are written again without the model
 * graph's nodes and the payloads nothing reads, and each node is read, then
 * converted, one at a time from where it lies in the original bytes: its
 * envelope (names, op type, domain, the attributes' bytes) as spans of
 * those bytes (pbc_node_fields.h: the pre-scan has checked them field by
 * field with protobuf-c's descriptors), each attribute unpacked by
 * protobuf-c unless a node before had the same bytes (attr_memo.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decode/attr_memo.h"
#include "decode/decode.h"
#include "decode/model_build.h"
#include "decode/name_intern.h"
#include "decode/pbc_node_fields.h"
#include "decode/pbc_prescan.h"
#include "onnx_shapes.pb-c.h"
#include "base/scratch_alloc.h"
#include "decode/tensor_data.h"

typedef struct Decoder {
  OsiArena *arena;
  OsiExprStore *exprs;
  OsiDecodeError *err;
  int depth;
  OsiNameInterner names; /* value names, op types, attribute names */
  /* The model graph's nodes, read one at a time from their bytes: the
   * fields of the one being read (pbc_node_fields.h), the copy of it
   * without a dropped payload when it holds one (malloc'ed), where its
   * attributes' trees go when protobuf-c unpacks them, and how many nodes
   * were read so far. */
  OsiPbcNodeFields node_fields;
  uint8_t *node_stripped;
  OsiScratch node_scratch;
  ProtobufCAllocator node_alloc;
  size_t nodes_read;
  /* The tensors whose payloads are dropped, and the first of them not
   * passed yet by the nodes unpacked from the original bytes. */
  const OsiPbcStrips *strips;
  size_t strip_at;
  OsiAttrMemo attr_memo; /* the model graph's attributes, by their bytes */
  /* Names the tables are sized for before they are read: a graph's node
   * count, but at most one per PRESIZE_BYTES of the model, so that a model
   * of empty nodes (2 bytes each) does not size them for names it lacks. */
  size_t presize_limit;
  OsiMbDimMemo dim_memo;
} Decoder;

#define PRESIZE_BYTES 16

#define PBC_REFUSED "the bytes are not a valid ONNX ModelProto (protobuf decoding failed)"

static int fail(Decoder *d, OsiStatus status, const char *msg) {
  return osi_mb_fail(d->err, status, msg);
}

/* memcpy with a NULL source is undefined even for 0 bytes. */
#define COPY(dst, src, n) ((n) != 0 ? memcpy((dst), (src), (n)) : (dst))

#define ALLOC_ARRAY(d, n, T) ((T *)osi_arena_array((d)->arena, (n) ? (size_t)(n) : 1, sizeof(T)))

static const char *str(Decoder *d, const char *s) { return osi_mb_str(d->arena, s); }

/* A name that repeats: of a value (a node input or output, a graph input, an
 * initializer ...), an op type, an attribute. */
static const char *name(Decoder *d, const char *s) {
  return s ? osi_names_intern(&d->names, s, strlen(s)) : "";
}

static const char *domain(Decoder *d, const char *s) { return osi_mb_domain(d->arena, s); }

static const OsiType *decode_type(Decoder *d, const Onnx__TypeProto *tp);

static const OsiType *decode_tensor_type(Decoder *d, OsiKind kind, int32_t elem_type,
                                         const Onnx__TensorShapeProto *shape) {
  int rank = shape ? (int)shape->n_dim : -1;
  OsiType *t = osi_mb_tensor_type(d->arena, d->err, kind, elem_type, rank);
  if (!t) return NULL;
  OsiExpr *dims = osi_type_dims_mut(t);
  for (int i = 0; i < rank; i++) {
    const Onnx__TensorShapeProto__Dimension *dim = shape->dim[i];
    OsiMbDimCase which =
        dim->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE   ? OSI_MB_DIM_VALUE
        : dim->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM ? OSI_MB_DIM_PARAM
                                                                                   : OSI_MB_DIM_NONE;
    dims[i] = osi_mb_dim(d->exprs, &d->dim_memo, which, which == OSI_MB_DIM_VALUE ? dim->dim_value : 0,
                         which == OSI_MB_DIM_PARAM ? dim->dim_param : NULL);
  }
  return t;
}

static const OsiType *decode_type(Decoder *d, const Onnx__TypeProto *tp) {
  if (!tp) return NULL;
  if (++d->depth > OSI_MAX_GRAPH_DEPTH) {
    fail(d, OSI_ERR_LIMIT_EXCEEDED, "type nesting exceeds the limit");
    return NULL;
  }
  const OsiType *t = NULL;
  switch (tp->value_case) {
  case ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE:
    t = decode_tensor_type(d, OSI_KIND_TENSOR, tp->tensor_type->elem_type,
                           tp->tensor_type->shape);
    break;
  case ONNX__TYPE_PROTO__VALUE_SPARSE_TENSOR_TYPE:
    t = decode_tensor_type(d, OSI_KIND_SPARSE_TENSOR, tp->sparse_tensor_type->elem_type,
                           tp->sparse_tensor_type->shape);
    break;
  case ONNX__TYPE_PROTO__VALUE_SEQUENCE_TYPE:
    t = osi_type_sequence(d->arena, decode_type(d, tp->sequence_type->elem_type));
    break;
  case ONNX__TYPE_PROTO__VALUE_OPTIONAL_TYPE:
    t = osi_type_optional(d->arena, decode_type(d, tp->optional_type->elem_type));
    break;
  case ONNX__TYPE_PROTO__VALUE_MAP_TYPE:
    t = osi_type_map(d->arena, tp->map_type->key_type, decode_type(d, tp->map_type->value_type));
    break;
  default:
    break;
  }
  d->depth--;
  return t;
}

static int decode_tensor(Decoder *d, const Onnx__TensorProto *tp, OsiTensor *out) {
  out->name = name(d, tp->name);
  out->elem_type = tp->data_type;
  if (tp->n_dims > OSI_MAX_RANK) return fail(d, OSI_ERR_LIMIT_EXCEEDED, "tensor rank exceeds the limit");
  out->rank = (int32_t)tp->n_dims;
  int64_t *dims = ALLOC_ARRAY(d, tp->n_dims, int64_t);
  if (!dims) return 0;
  COPY(dims, tp->dims, tp->n_dims * sizeof(int64_t));
  out->dims = dims;
  out->external = tp->has_data_location && tp->data_location == 1;
  OsiTensorSource src = {
      .elem_type = tp->data_type,
      .raw = tp->has_raw_data ? tp->raw_data.data : NULL,
      .raw_len = tp->has_raw_data ? tp->raw_data.len : 0,
      .has_raw = tp->has_raw_data,
      .int64_data = tp->int64_data, .n_int64 = tp->n_int64_data,
      .int32_data = tp->int32_data, .n_int32 = tp->n_int32_data,
      .uint64_data = tp->uint64_data, .n_uint64 = tp->n_uint64_data,
      .float_data = tp->float_data, .n_float = tp->n_float_data,
      .double_data = tp->double_data, .n_double = tp->n_double_data,
  };
  osi_tensor_keep_data(d->arena, out, &src);
  return 1;
}

static const OsiGraph *decode_graph(Decoder *d, const Onnx__GraphProto *gp);

static int decode_attr(Decoder *d, const Onnx__AttributeProto *ap, OsiAttr *out) {
  out->name = name(d, ap->name);
  out->type = (OsiAttrType)ap->type;
  out->ref_attr_name = ap->ref_attr_name ? str(d, ap->ref_attr_name) : NULL;
  switch (out->type) {
  case OSI_ATTR_INT: out->i = ap->i; break;
  case OSI_ATTR_FLOAT: out->f = ap->f; break;
  case OSI_ATTR_STRING:
    if (ap->has_s) {
      if (!(out->s = osi_arena_strndup(d->arena, (const char *)ap->s.data, ap->s.len))) return 0;
      out->n = ap->s.len;
    }
    break;
  case OSI_ATTR_INTS: {
    int64_t *v = ALLOC_ARRAY(d, ap->n_ints, int64_t);
    if (!v) return 0;
    COPY(v, ap->ints, ap->n_ints * sizeof(int64_t));
    out->ints = v;
    out->n = ap->n_ints;
    break;
  }
  case OSI_ATTR_FLOATS: {
    double *v = ALLOC_ARRAY(d, ap->n_floats, double);
    if (!v) return 0;
    for (size_t i = 0; i < ap->n_floats; i++) v[i] = ap->floats[i];
    out->floats = v;
    out->n = ap->n_floats;
    break;
  }
  case OSI_ATTR_STRINGS: {
    const char **v = ALLOC_ARRAY(d, ap->n_strings, const char *);
    if (!v) return 0;
    for (size_t i = 0; i < ap->n_strings; i++)
      v[i] = osi_arena_strndup(d->arena, (const char *)ap->strings[i].data, ap->strings[i].len);
    out->strings = v;
    out->n = ap->n_strings;
    break;
  }
  case OSI_ATTR_TENSOR:
    if (ap->t) {
      OsiTensor *t = ALLOC_ARRAY(d, 1, OsiTensor);
      if (!t || !decode_tensor(d, ap->t, t)) return 0;
      out->t = t;
    }
    break;
  case OSI_ATTR_SPARSE_TENSOR:
    if (ap->sparse_tensor) {
      OsiTensor *t = ALLOC_ARRAY(d, 1, OsiTensor);
      if (!t) return 0;
      const Onnx__SparseTensorProto *sp = ap->sparse_tensor;
      if (sp->n_dims > OSI_MAX_RANK) return fail(d, OSI_ERR_LIMIT_EXCEEDED, "tensor rank exceeds the limit");
      int64_t *dims = ALLOC_ARRAY(d, sp->n_dims, int64_t);
      if (!dims) return 0;
      COPY(dims, sp->dims, sp->n_dims * sizeof(int64_t));
      t->dims = dims;
      t->rank = (int32_t)sp->n_dims;
      t->elem_type = sp->values ? sp->values->data_type : 0;
      t->name = name(d, sp->values ? sp->values->name : "");
      out->t = t;
    }
    break;
  case OSI_ATTR_TENSORS: {
    const OsiTensor **v = ALLOC_ARRAY(d, ap->n_tensors, const OsiTensor *);
    if (!v) return 0;
    for (size_t i = 0; i < ap->n_tensors; i++) {
      OsiTensor *t = ALLOC_ARRAY(d, 1, OsiTensor);
      if (!t || !decode_tensor(d, ap->tensors[i], t)) return 0;
      v[i] = t;
    }
    out->tensors = v;
    out->n = ap->n_tensors;
    break;
  }
  case OSI_ATTR_GRAPH:
    if (ap->g && !(out->g = decode_graph(d, ap->g))) return 0;
    break;
  case OSI_ATTR_GRAPHS: {
    const OsiGraph **v = ALLOC_ARRAY(d, ap->n_graphs, const OsiGraph *);
    if (!v) return 0;
    for (size_t i = 0; i < ap->n_graphs; i++)
      if (!(v[i] = decode_graph(d, ap->graphs[i]))) return 0;
    out->graphs = v;
    out->n = ap->n_graphs;
    break;
  }
  case OSI_ATTR_TYPE_PROTO:
    out->tp = decode_type(d, ap->tp);
    break;
  case OSI_ATTR_TYPE_PROTOS: {
    const OsiType **v = ALLOC_ARRAY(d, ap->n_type_protos, const OsiType *);
    if (!v) return 0;
    for (size_t i = 0; i < ap->n_type_protos; i++) v[i] = decode_type(d, ap->type_protos[i]);
    out->type_protos = v;
    out->n = ap->n_type_protos;
    break;
  }
  default:
    break;
  }
  return d->err->status == OSI_OK;
}

static const char *const *strings(Decoder *d, char **src, size_t n) {
  const char **v = ALLOC_ARRAY(d, n, const char *);
  if (!v) return NULL;
  for (size_t i = 0; i < n; i++) v[i] = str(d, src[i]);
  return v;
}

static const char *const *names(Decoder *d, char **src, size_t n) {
  const char **v = ALLOC_ARRAY(d, n, const char *);
  if (!v) return NULL;
  for (size_t i = 0; i < n; i++) v[i] = name(d, src[i]);
  return v;
}

/* The id of an interned name (0 for "", and 0 once interning is
 * incomplete: the model then vouches for no id). */
static uint32_t name_id(const Decoder *d, const char *v) {
  return !d->names.incomplete && v[0] ? osi_name_id(v) : 0;
}

/* A graph's node inputs or outputs, names and ids, gathered here (malloc'ed)
 * and then laid in arena arrays of their own, in node order: the
 * topological order and the wiring walk them in sequence, where scattered
 * among the attributes every node was a cache miss. */
typedef struct NameVec {
  const char **names;
  uint32_t *ids;
  size_t n, cap;
} NameVec;

static void name_vec_free(NameVec *v) {
  free(v->names);
  free(v->ids);
}

/* name_vec_room when v lacks it (out of line: every node's names ask). */
static int name_vec_grow(Decoder *d, NameVec *v, size_t n) {
  size_t cap = v->cap ? v->cap : 256;
  while (cap - v->n < n && cap <= SIZE_MAX / 2 / sizeof(char *)) cap *= 2;
  const char **names = cap - v->n >= n ? realloc(v->names, cap * sizeof *names) : NULL;
  if (names) v->names = names;
  uint32_t *ids = names ? realloc(v->ids, cap * sizeof *ids) : NULL;
  if (!ids) return fail(d, OSI_ERR_NOMEM, "out of memory while decoding the model");
  v->ids = ids;
  v->cap = cap;
  return 1;
}

/* Room for n more names in v. */
static inline int name_vec_room(Decoder *d, NameVec *v, size_t n) {
  return n <= v->cap - v->n || name_vec_grow(d, v, n);
}

static int push_name(Decoder *d, NameVec *v, const char *s) {
  if (!s) return 0;
  v->names[v->n] = s;
  v->ids[v->n++] = name_id(d, s); /* moot if interning turns incomplete later */
  return 1;
}

/* NUL-terminated names (unpacked nodes), or each the bytes of one (a node
 * read from its bytes: interned from where it lies, its length from the
 * wire, never counted). */
static int push_names(Decoder *d, NameVec *v, char **src, const OsiPbcSpan *bytes, size_t n) {
  if (!name_vec_room(d, v, n)) return 0;
  for (size_t i = 0; i < n; i++)
    if (!push_name(d, v, src ? name(d, src[i]) : osi_names_intern(&d->names, (const char *)bytes[i].p, bytes[i].len)))
      return 0;
  return 1;
}

/* A graph's nodes: unpacked (a subgraph's, a function's), or (the model's
 * graph: see ModelProtoNodesLater in onnx_shapes.proto) each its bytes, in
 * a copy protobuf-c made (`bytes`) or where they are in the model
 * (`spans`), read one at a time. */
typedef struct NodeSource {
  Onnx__NodeProto **unpacked;
  const ProtobufCBinaryData *bytes;
  const OsiPbcStrip *spans;
  size_t n;
} NodeSource;

/* A string field of a node: protobuf-c's NUL-terminated copy, or (a node
 * read from its bytes) its bytes and their count, taken from the wire
 * rather than counted again. */
typedef struct Text {
  const char *s; /* NULL: absent */
  size_t len;
} Text;

static Text text(const char *s) { return (Text){s, s ? strlen(s) : 0}; }
static Text text_span(OsiPbcSpan b) { return (Text){(const char *)b.p, b.len}; }

static const char *text_str(Decoder *d, Text t) {
  return t.len ? osi_arena_strndup(d->arena, t.s, t.len) : "";
}

static const char *text_domain(Decoder *d, Text t) {
  return t.len == 7 && memcmp(t.s, "ai.onnx", 7) == 0 ? "" : text_str(d, t);
}

/* What an unpacked NodeProto and one read from its bytes have alike. The
 * names and attributes: unpacked (input, output, attribute), or each its
 * bytes. */
typedef struct NodeParts {
  Text name, op_type, domain, overload;
  size_t n_input, n_output, n_attribute;
  char **input, **output;
  const OsiPbcSpan *input_bytes, *output_bytes;
  Onnx__AttributeProto **attribute;
  const OsiPbcSpan *attribute_bytes;
} NodeParts;

/* Attribute i of a node of the model's graph, from its bytes: the one a
 * node before had when it had the same bytes, else unpacked (into
 * d->node_scratch) and converted. */
static int decode_attr_bytes(Decoder *d, const OsiPbcSpan *b, OsiAttr *out) {
  uint32_t hash = 0;
  const OsiAttr *seen = osi_attr_memo_find(&d->attr_memo, b->p, b->len, &hash);
  if (seen) {
    *out = *seen;
    return 1;
  }
  Onnx__AttributeProto *ap = onnx__attribute_proto__unpack(&d->node_alloc, b->len, b->p);
  if (!ap) return fail(d, OSI_ERR_PARSE, PBC_REFUSED);
  if (!decode_attr(d, ap, out)) return 0;
  if (out->type != OSI_ATTR_GRAPH && out->type != OSI_ATTR_GRAPHS)
    osi_attr_memo_put(&d->attr_memo, b->p, b->len, hash, out);
  return 1;
}

/* One node -> *out, its names pushed onto ins and outs (the arrays
 * are set once the graph's are complete). */
static int decode_node(Decoder *d, const NodeParts *np, OsiNode *out, NameVec *ins, NameVec *outs) {
  out->name = text_str(d, np->name);
  out->op_type = osi_names_intern_few(&d->names, np->op_type.len ? np->op_type.s : "", np->op_type.len);
  out->domain = text_domain(d, np->domain);
  out->overload = text_str(d, np->overload);
  out->n_inputs = (int)np->n_input;
  out->n_outputs = (int)np->n_output;
  out->n_attrs = (int)np->n_attribute;
  if (!out->name || !out->op_type || !out->domain || !out->overload) return 0;
  if (!push_names(d, ins, np->input, np->input_bytes, np->n_input)) return 0;
  if (!push_names(d, outs, np->output, np->output_bytes, np->n_output)) return 0;
  if (np->n_attribute == 0) { /* most nodes: no zeroed array of one each */
    static const OsiAttr none[1];
    out->attrs = none;
    out->graph_free = 1;
    return 1;
  }
  OsiAttr *attrs = ALLOC_ARRAY(d, np->n_attribute, OsiAttr);
  if (!attrs) return 0;
  for (size_t i = 0; i < np->n_attribute; i++)
    if (!(np->attribute ? decode_attr(d, np->attribute[i], &attrs[i])
                        : decode_attr_bytes(d, &np->attribute_bytes[i], &attrs[i])))
      return 0;
  out->attrs = attrs;
  out->graph_free = (unsigned char)osi_attrs_graph_free(attrs, out->n_attrs);
  return 1;
}

/* Node i of src (for bytes: its fields read into d->node_fields, spans of
 * the bytes, its attributes left as bytes); 0 when protobuf-c would refuse
 * the bytes (d->err set). */
static int source_node(Decoder *d, const NodeSource *src, size_t i, NodeParts *out) {
  if (src->unpacked) {
    const Onnx__NodeProto *np = src->unpacked[i];
    *out = (NodeParts){text(np->name), text(np->op_type), text(np->domain), text(np->overload),
                       np->n_input, np->n_output, np->n_attribute, np->input, np->output, NULL, NULL,
                       np->attribute, NULL};
    return 1;
  }
  const uint8_t *bytes;
  size_t len;
  if (src->spans) {
    const OsiPbcStrip *node = &src->spans[i];
    const OsiPbcStrips *st = d->strips;
    bytes = node->start;
    len = node->len;
    /* A node holding a tensor whose payload is dropped (a Constant's
     * weights) is written again without it, so that protobuf-c does not
     * copy the payload when it unpacks the attribute; without the memory
     * to, it is read as it is (the same model, payload included). */
    while (d->strip_at < st->count && st->items[d->strip_at].start < node->start) d->strip_at++;
    if (d->strip_at < st->count && st->items[d->strip_at].start < node->start + node->len) {
      size_t stripped_len = 0;
      if ((d->node_stripped = osi_pbc_strip_node(st, node, &d->strip_at, &stripped_len))) {
        bytes = d->node_stripped;
        len = stripped_len;
      }
    }
  } else {
    bytes = src->bytes[i].data;
    len = src->bytes[i].len;
  }
  OsiPbcNodeFields *f = &d->node_fields;
  switch (osi_pbc_node_fields_read(f, bytes, len)) {
  case OSI_PBC_NODE_READ: break;
  case OSI_PBC_NODE_NOMEM: return fail(d, OSI_ERR_NOMEM, "out of memory while decoding the model");
  default: return fail(d, OSI_ERR_PARSE, PBC_REFUSED);
  }
  *out = (NodeParts){text_span(f->name), text_span(f->op_type), text_span(f->domain),
                     text_span(f->overload), f->input.n, f->output.n, f->attribute.n, NULL, NULL,
                     f->input.v, f->output.v, NULL, f->attribute.v};
  return 1;
}

static const OsiNode *decode_nodes(Decoder *d, const NodeSource *src) {
  OsiNode *v = ALLOC_ARRAY(d, src->n, OsiNode);
  NameVec ins = {0}, outs = {0};
  /* Room for what most graphs hold (up to two inputs and one output a
   * node), so that a big graph's arrays are not copied as they grow. */
  size_t room = src->n < d->presize_limit ? src->n : d->presize_limit;
  int ok = v != NULL && name_vec_room(d, &ins, room * 2) && name_vec_room(d, &outs, room);
  for (size_t i = 0; ok && i < src->n; i++) {
    NodeParts np = {0};
    ok = source_node(d, src, i, &np) && decode_node(d, &np, &v[i], &ins, &outs);
    if (!src->unpacked) {
      osi_scratch_rewind(&d->node_scratch); /* its attributes' trees, read */
      free(d->node_stripped);
      d->node_stripped = NULL;
      /* (A node that failed is unpacked again whole by later_nodes_unpack:
       * its attributes after the failing one were not.) */
      d->nodes_read += ok;
    }
  }
  const char **in = ok ? ALLOC_ARRAY(d, ins.n, const char *) : NULL;
  const char **out = in ? ALLOC_ARRAY(d, outs.n, const char *) : NULL;
  uint32_t *in_ids = out ? ALLOC_ARRAY(d, ins.n, uint32_t) : NULL;
  uint32_t *out_ids = in_ids ? ALLOC_ARRAY(d, outs.n, uint32_t) : NULL;
  if ((ok = out_ids != NULL)) {
    COPY(in, ins.names, ins.n * sizeof *in);
    COPY(out, outs.names, outs.n * sizeof *out);
    COPY(in_ids, ins.ids, ins.n * sizeof *in_ids);
    COPY(out_ids, outs.ids, outs.n * sizeof *out_ids);
    for (size_t i = 0, at_in = 0, at_out = 0; i < src->n; i++) {
      v[i].inputs = in + at_in;
      v[i].input_ids = in_ids + at_in;
      v[i].outputs = out + at_out;
      v[i].output_ids = out_ids + at_out;
      at_in += (size_t)v[i].n_inputs;
      at_out += (size_t)v[i].n_outputs;
    }
  }
  name_vec_free(&ins);
  name_vec_free(&outs);
  return ok ? v : NULL;
}

static const OsiValueInfo *decode_value_infos(Decoder *d, Onnx__ValueInfoProto **src, size_t n) {
  OsiValueInfo *v = ALLOC_ARRAY(d, n, OsiValueInfo);
  if (!v) return NULL;
  for (size_t i = 0; i < n; i++) {
    v[i].name = name(d, src[i]->name);
    v[i].type = decode_type(d, src[i]->type);
    if (d->err->status != OSI_OK) return NULL;
  }
  return v;
}

/* What GraphProto and GraphProtoNodesLater have alike. */
typedef struct GraphParts {
  const char *name;
  NodeSource nodes;
  Onnx__ValueInfoProto **input, **output, **value_info;
  size_t n_input, n_output, n_value_info;
  Onnx__TensorProto **initializer;
  size_t n_initializer;
  Onnx__SparseTensorProto **sparse_initializer;
  size_t n_sparse_initializer;
} GraphParts;

#define GRAPH_PARTS(gp)                                                                         \
  (gp)->name, {0}, (gp)->input, (gp)->output, (gp)->value_info, (gp)->n_input, (gp)->n_output, \
      (gp)->n_value_info, (gp)->initializer, (gp)->n_initializer, (gp)->sparse_initializer,   \
      (gp)->n_sparse_initializer

static const OsiGraph *decode_graph_parts(Decoder *d, const GraphParts *gp) {
  if (++d->depth > OSI_MAX_GRAPH_DEPTH) {
    fail(d, OSI_ERR_LIMIT_EXCEEDED, "subgraph nesting exceeds the limit");
    return NULL;
  }
  OsiGraph *g = ALLOC_ARRAY(d, 1, OsiGraph);
  if (!g) return NULL;
  g->name = str(d, gp->name);
  g->n_nodes = (int)gp->nodes.n;
  g->n_inputs = (int)gp->n_input;
  g->n_outputs = (int)gp->n_output;
  g->n_value_info = (int)gp->n_value_info;
  g->n_initializers = (int)(gp->n_initializer + gp->n_sparse_initializer);
  if (!(g->nodes = decode_nodes(d, &gp->nodes))) return NULL;
  if (!(g->inputs = decode_value_infos(d, gp->input, gp->n_input))) return NULL;
  if (!(g->outputs = decode_value_infos(d, gp->output, gp->n_output))) return NULL;
  if (!(g->value_info = decode_value_infos(d, gp->value_info, gp->n_value_info))) return NULL;
  OsiTensor *inits = ALLOC_ARRAY(d, g->n_initializers, OsiTensor);
  if (!inits) return NULL;
  for (size_t i = 0; i < gp->n_initializer; i++)
    if (!decode_tensor(d, gp->initializer[i], &inits[i])) return NULL;
  for (size_t i = 0; i < gp->n_sparse_initializer; i++) {
    const Onnx__SparseTensorProto *sp = gp->sparse_initializer[i];
    OsiTensor *t = &inits[gp->n_initializer + i];
    if (sp->n_dims > OSI_MAX_RANK) {
      fail(d, OSI_ERR_LIMIT_EXCEEDED, "tensor rank exceeds the limit");
      return NULL;
    }
    int64_t *dims = ALLOC_ARRAY(d, sp->n_dims, int64_t);
    if (!dims) return NULL;
    COPY(dims, sp->dims, sp->n_dims * sizeof(int64_t));
    t->dims = dims;
    t->rank = (int32_t)sp->n_dims;
    t->elem_type = sp->values ? sp->values->data_type : 0;
    t->name = name(d, sp->values ? sp->values->name : "");
  }
  g->initializers = inits;
  d->depth--;
  return g;
}

static const OsiGraph *decode_graph(Decoder *d, const Onnx__GraphProto *gp) {
  GraphParts parts = {GRAPH_PARTS(gp)};
  parts.nodes = (NodeSource){gp->node, NULL, NULL, gp->n_node};
  return decode_graph_parts(d, &parts);
}

static const OsiOpsetImport *decode_opsets(Decoder *d, Onnx__OperatorSetIdProto **src, size_t n) {
  OsiOpsetImport *v = ALLOC_ARRAY(d, n, OsiOpsetImport);
  if (!v) return NULL;
  for (size_t i = 0; i < n; i++) {
    v[i].domain = domain(d, src[i]->domain);
    v[i].version = src[i]->version;
  }
  return v;
}

static int decode_function(Decoder *d, const Onnx__FunctionProto *fp, OsiFunction *f) {
  f->name = str(d, fp->name);
  f->domain = domain(d, fp->domain);
  f->overload = str(d, fp->overload);
  f->n_inputs = (int)fp->n_input;
  f->n_outputs = (int)fp->n_output;
  f->n_attr_names = (int)fp->n_attribute;
  f->n_attr_defaults = (int)fp->n_attribute_proto;
  f->n_nodes = (int)fp->n_node;
  f->n_opsets = (int)fp->n_opset_import;
  f->n_value_info = (int)fp->n_value_info;
  if (!(f->inputs = names(d, fp->input, fp->n_input))) return 0;
  if (!(f->outputs = names(d, fp->output, fp->n_output))) return 0;
  if (!(f->attr_names = strings(d, fp->attribute, fp->n_attribute))) return 0;
  OsiAttr *defaults = ALLOC_ARRAY(d, fp->n_attribute_proto, OsiAttr);
  if (!defaults) return 0;
  for (size_t i = 0; i < fp->n_attribute_proto; i++)
    if (!decode_attr(d, fp->attribute_proto[i], &defaults[i])) return 0;
  f->attr_defaults = defaults;
  NodeSource nodes = {fp->node, NULL, NULL, fp->n_node};
  if (!(f->nodes = decode_nodes(d, &nodes))) return 0;
  if (!(f->opsets = decode_opsets(d, fp->opset_import, fp->n_opset_import))) return 0;
  if (!(f->value_info = decode_value_infos(d, fp->value_info, fp->n_value_info))) return 0;
  return 1;
}

static const OsiModel *convert(Decoder *d, const Onnx__ModelProtoNodesLater *mp) {
  OsiModel *m = ALLOC_ARRAY(d, 1, OsiModel);
  if (!m) return NULL;
  m->ir_version = mp->ir_version;
  m->producer_name = str(d, mp->producer_name);
  m->n_opsets = (int)mp->n_opset_import;
  if (!(m->opsets = decode_opsets(d, mp->opset_import, mp->n_opset_import))) return NULL;
  m->n_functions = (int)mp->n_functions;
  OsiFunction *fns = ALLOC_ARRAY(d, mp->n_functions, OsiFunction);
  if (!fns) return NULL;
  for (size_t i = 0; i < mp->n_functions; i++)
    if (!decode_function(d, mp->functions[i], &fns[i])) return NULL;
  m->functions = fns;
  if (!mp->graph) {
    fail(d, OSI_ERR_INVALID_MODEL, "the model has no graph");
    return NULL;
  }
  const Onnx__GraphProtoNodesLater *gp = mp->graph;
  GraphParts parts = {GRAPH_PARTS(gp)};
  parts.nodes = d->strips ? (NodeSource){NULL, NULL, d->strips->nodes, d->strips->n_nodes}
                          : (NodeSource){NULL, gp->node, NULL, gp->n_node};
  if (!(m->graph = decode_graph_parts(d, &parts))) return NULL;
  m->n_name_ids = osi_names_id_limit(&d->names);
  return m;
}

/* Whether protobuf-c unpacks every node of the model's graph not read yet
 * (as a NodeProto, attributes and all): the decode reports a refused node
 * before anything else found in converting. */
static int later_nodes_unpack(Decoder *d, const Onnx__ModelProtoNodesLater *mp) {
  size_t n = d->strips ? d->strips->n_nodes : mp->graph ? mp->graph->n_node : 0;
  for (size_t i = d->nodes_read; i < n; i++) {
    /* (a payload left in changes nothing protobuf-c accepts) */
    Onnx__NodeProto *np =
        d->strips ? onnx__node_proto__unpack(&d->node_alloc, d->strips->nodes[i].len, d->strips->nodes[i].start)
                  : onnx__node_proto__unpack(&d->node_alloc, mp->graph->node[i].len, mp->graph->node[i].data);
    osi_scratch_rewind(&d->node_scratch);
    if (!np) return 0;
  }
  return 1;
}

/* The caller's bytes, of which only the nodes are read now: cut after the
 * last one. Exporters write the nodes before the weights, so the weights'
 * memory goes back to the heap before the model is built (in wasm, a heap
 * that never shrinks). The spans and strips are moved along should the
 * bytes move. */
static void keep_nodes_only(uint8_t **owned, OsiPbcStrips *strips) {
  const OsiPbcStrip *last = &strips->nodes[strips->n_nodes - 1];
  size_t keep = (size_t)(last->start + last->len - *owned);
  while (strips->count && strips->items[strips->count - 1].start >= *owned + keep) strips->count--;
  uintptr_t before = (uintptr_t)*owned;
  uint8_t *kept = realloc(*owned, keep ? keep : 1);
  if (!kept) return; /* all kept, then */
  uintptr_t delta = (uintptr_t)kept - before;
  if (delta) {
    for (size_t i = 0; i < strips->n_nodes; i++)
      strips->nodes[i].start = (const uint8_t *)((uintptr_t)strips->nodes[i].start + delta);
    for (size_t i = 0; i < strips->count; i++)
      strips->items[i].start = (const uint8_t *)((uintptr_t)strips->items[i].start + delta);
  }
  *owned = kept;
}

/* osi_decode_pbc(_owned); `owned` (bytes, or NULL) is freed as soon as
 * protobuf-c has what it needs of it. */
static const OsiModel *decode(const uint8_t *bytes, size_t len, uint8_t *owned, OsiArena *arena,
                              OsiExprStore *exprs, OsiDecodeError *err) {
  Decoder d = {.arena = arena, .exprs = exprs, .err = err, .presize_limit = len / PRESIZE_BYTES};
  osi_names_init(&d.names, arena);
  err->status = OSI_OK;
  err->message[0] = 0;
  int merge = 0;
  OsiPbcStrips strips = {0};
  int ok = osi_pbc_prescan(bytes, len, err, &merge, &strips);
  uint8_t *merged = NULL;
  if (ok && merge) { /* a non-repeated message field written twice: see pbc_prescan.h */
    if (!(merged = osi_pbc_merge_fields(bytes, len, &len)))
      ok = fail(&d, OSI_ERR_NOMEM, "out of memory while decoding the model");
  } else if (ok && !strips.failed && !strips.nodes_failed && strips.n_nodes > 0) {
    /* The nodes stay where they are (read from there, one at a time);
     * the rest is written again without them and without the payloads.
     * Without the memory to, the original is unpacked. */
    if ((merged = osi_pbc_strip_nodes(bytes, len, &strips, &len))) d.strips = &strips;
  } else if (ok && osi_pbc_strip_pays(&strips, len)) {
    /* Weights protobuf-c would copy only for them to be dropped. Without
     * the memory to write the model again, the original is unpacked. */
    merged = osi_pbc_strip_payloads(bytes, len, &strips, &len);
  }
  if (!ok || (merged && !d.strips)) { /* the bytes are not read again */
    free(owned);
    owned = NULL;
  }
  if (!ok) {
    free(strips.items);
    free(strips.nodes);
    return NULL;
  }
  if (merged) bytes = merged;
  OsiScratch scratch = {0};
  ProtobufCAllocator alloc = {osi_scratch_alloc_cb, osi_scratch_free_cb, &scratch};
  Onnx__ModelProtoNodesLater *mp = onnx__model_proto_nodes_later__unpack(&alloc, len, bytes);
  free(merged); /* protobuf-c copied every field (the nodes' bytes too, when they were in it) */
  if (!mp) {
    free(owned);
    free(strips.items);
    free(strips.nodes);
    osi_scratch_release(&scratch);
    fail(&d, OSI_ERR_PARSE, PBC_REFUSED);
    return NULL;
  }
  if (owned && d.strips) keep_nodes_only(&owned, &strips);
  if (d.strips) /* an output a node, at least */
    osi_names_reserve(&d.names, strips.n_nodes < d.presize_limit ? strips.n_nodes : d.presize_limit);
  d.node_alloc = (ProtobufCAllocator){osi_scratch_alloc_cb, osi_scratch_free_cb, &d.node_scratch};
  const OsiModel *m = convert(&d, mp);
  if (!m && err->status != OSI_ERR_PARSE && !later_nodes_unpack(&d, mp)) {
    err->status = OSI_OK; /* as when the whole model was unpacked first */
    fail(&d, OSI_ERR_PARSE, PBC_REFUSED);
  }
  osi_names_free(&d.names);
  osi_pbc_node_fields_free(&d.node_fields);
  osi_attr_memo_free(&d.attr_memo);
  osi_mb_dim_memo_free(&d.dim_memo);
  free(owned); /* (the nodes were read from it) */
  free(strips.items);
  free(strips.nodes);
  osi_scratch_release(&d.node_scratch);
  osi_scratch_release(&scratch); /* the whole unpacked tree at once */
  if (!m && err->status == OSI_OK) osi_mb_nomem(err, arena);
  return m;
}

const OsiModel *osi_decode_pbc(const uint8_t *bytes, size_t len, OsiArena *arena,
                               OsiExprStore *exprs, OsiDecodeError *err) {
  return decode(bytes, len, NULL, arena, exprs, err);
}

const OsiModel *osi_decode_pbc_owned(uint8_t *bytes, size_t len, OsiArena *arena, OsiExprStore *exprs,
                                     OsiDecodeError *err) {
  return decode(bytes, len, bytes, arena, exprs, err);
}
