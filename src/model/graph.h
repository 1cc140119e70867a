/*
 * The engine's own model of an ONNX model: what a decoder (protobuf-c or
 * nanopb) produces and everything after it reads. Nothing outside the
 * decoders sees protobuf structs. All memory belongs to the run's arena.
 *
 * Tensors keep only what inference uses: name, element type, dims, and the
 * content of small tensors (integer tensors up to OSI_MAX_VALUE_ELEMS
 * elements, floating-point tensors up to OSI_MAX_FLOAT_DATA elements).
 */
#ifndef OSI_GRAPH_H
#define OSI_GRAPH_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "model/types.h"

/* Largest floating-point tensor whose numbers are kept (Resize scales,
 * Constant scalars, ...). */
#define OSI_MAX_FLOAT_DATA 64

typedef struct OsiGraph OsiGraph;

typedef struct OsiTensor {
  const char *name;
  int32_t elem_type;
  int32_t rank;
  const int64_t *dims;
  int external;              /* data_location == EXTERNAL */
  /* Content, when kept: exactly one of ints/floats is set, count elements. */
  int64_t count;
  const int64_t *ints;       /* integer and bool tensors */
  const double *floats;      /* floating-point tensors */
} OsiTensor;

/* ONNX AttributeProto.AttributeType codes. */
typedef enum OsiAttrType {
  OSI_ATTR_UNDEFINED = 0, OSI_ATTR_FLOAT = 1, OSI_ATTR_INT = 2, OSI_ATTR_STRING = 3,
  OSI_ATTR_TENSOR = 4, OSI_ATTR_GRAPH = 5, OSI_ATTR_FLOATS = 6, OSI_ATTR_INTS = 7,
  OSI_ATTR_STRINGS = 8, OSI_ATTR_TENSORS = 9, OSI_ATTR_GRAPHS = 10,
  OSI_ATTR_SPARSE_TENSOR = 11, OSI_ATTR_SPARSE_TENSORS = 12, OSI_ATTR_TYPE_PROTO = 13,
  OSI_ATTR_TYPE_PROTOS = 14,
} OsiAttrType;

typedef struct OsiAttr {
  const char *name;
  const char *ref_attr_name;  /* inside function bodies; NULL otherwise */
  OsiAttrType type;
  /* The element count of the list (INTS ... TYPE_PROTOS); for STRING the
   * byte count of s (which may hold NUL bytes); 0 for the others. */
  size_t n;
  /* The one member `type` names (the decoders set no other, and an
   * UNDEFINED attribute has none): read a member only after checking the
   * type. One word instead of thirteen fields: a CNN's attributes were a
   * third of its whole memory. */
  union {
    int64_t i;                      /* INT */
    double f;                       /* FLOAT */
    const char *s;                  /* STRING: a NUL-terminated copy of the bytes */
    const int64_t *ints;            /* INTS */
    const double *floats;           /* FLOATS */
    const char *const *strings;     /* STRINGS */
    const OsiTensor *t;             /* TENSOR, or SPARSE_TENSOR (dims only); NULL if absent */
    const OsiTensor *const *tensors; /* TENSORS */
    const OsiGraph *g;              /* GRAPH; NULL if absent */
    const OsiGraph *const *graphs;  /* GRAPHS */
    const OsiType *tp;              /* TYPE_PROTO */
    const OsiType *const *type_protos; /* TYPE_PROTOS */
  };
} OsiAttr;

/* Whether none of the n attributes at a holds a graph (or a list of them). */
static inline int osi_attrs_graph_free(const OsiAttr *a, int n) {
  for (int i = 0; i < n; i++)
    if (a[i].type == OSI_ATTR_GRAPH || a[i].type == OSI_ATTR_GRAPHS) return 0;
  return 1;
}

typedef struct OsiNode {
  const char *name;           /* "" when absent */
  const char *op_type;
  const char *domain;         /* "" for ai.onnx ("ai.onnx" is normalised to "") */
  const char *overload;
  int n_inputs, n_outputs, n_attrs;
  /* 1 when no attribute holds a graph (osi_attrs_graph_free), so that walks
   * for subgraphs skip the node without reading its attributes; 0: look. */
  unsigned char graph_free;
  const char *const *inputs;  /* "" marks an omitted optional input */
  const char *const *outputs;
  /* The names' ids (osi_name_id; 0 for an omitted one) when the model
   * vouches for them (OsiModel.n_name_ids), else NULL: read in sequence,
   * where the names themselves lie elsewhere in memory. */
  const uint32_t *input_ids, *output_ids;
  const OsiAttr *attrs;
} OsiNode;

typedef struct OsiValueInfo {
  const char *name;
  const OsiType *type;        /* NULL when the entry has no type */
} OsiValueInfo;

struct OsiGraph {
  const char *name;
  int n_nodes, n_initializers, n_inputs, n_outputs, n_value_info;
  const OsiNode *nodes;
  const OsiTensor *initializers;  /* sparse initializers appended (dims only) */
  const OsiValueInfo *inputs, *outputs, *value_info;
};

typedef struct OsiOpsetImport {
  const char *domain;         /* normalised like OsiNode.domain */
  int64_t version;
} OsiOpsetImport;

typedef struct OsiFunction {
  const char *name, *domain, *overload;
  int n_inputs, n_outputs, n_attr_names, n_attr_defaults, n_nodes, n_opsets, n_value_info;
  const char *const *inputs, *const *outputs, *const *attr_names;
  const OsiAttr *attr_defaults;
  const OsiNode *nodes;
  const OsiOpsetImport *opsets;
  const OsiValueInfo *value_info;
} OsiFunction;

typedef struct OsiModel {
  int64_t ir_version;
  const char *producer_name;
  int n_opsets, n_functions;
  const OsiOpsetImport *opsets;
  const OsiFunction *functions;
  const OsiGraph *graph;
  /* When not 0, every non-empty value name the decoder wrote (node inputs
   * and outputs, graph inputs, outputs and value_info, initializers, in
   * every graph and function) is interned with an id in [1, n_name_ids),
   * read with osi_name_id. 0 for models built by
   * hand, and when interning ran out of memory. */
  uint32_t n_name_ids;
} OsiModel;

/* The id of a name OsiModel.n_name_ids vouches for: the decoders put it in
 * the 4 bytes before the name (decode/name_intern.c). */
static inline uint32_t osi_name_id(const char *name) {
  uint32_t id;
  memcpy(&id, name - sizeof id, sizeof id);
  return id;
}

/* Finds an attribute by name; NULL if absent. */
const OsiAttr *osi_node_attr(const OsiNode *node, const char *name);

#endif
