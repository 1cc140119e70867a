#include "api/result_attributes.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "base/parse_double.h"
#include "model/type_json.h"

static const char *const TYPE_NAMES[] = {
    [OSI_ATTR_UNDEFINED] = "undefined", [OSI_ATTR_FLOAT] = "float",
    [OSI_ATTR_INT] = "int",             [OSI_ATTR_STRING] = "string",
    [OSI_ATTR_TENSOR] = "tensor",       [OSI_ATTR_GRAPH] = "graph",
    [OSI_ATTR_FLOATS] = "floats",       [OSI_ATTR_INTS] = "ints",
    [OSI_ATTR_STRINGS] = "strings",     [OSI_ATTR_TENSORS] = "tensors",
    [OSI_ATTR_GRAPHS] = "graphs",       [OSI_ATTR_SPARSE_TENSOR] = "sparse_tensor",
    [OSI_ATTR_SPARSE_TENSORS] = "sparse_tensors", [OSI_ATTR_TYPE_PROTO] = "type_proto",
    [OSI_ATTR_TYPE_PROTOS] = "type_protos",
};

/* JS numbers hold integers exactly up to 2^53: larger ones go as strings
 * (INT64_MAX is a common Slice end). */
static void write_int(OsiJson *j, int64_t v) {
  const int64_t safe = (int64_t)1 << 53;
  if (v >= -safe && v <= safe) {
    osi_json_int(j, v);
    return;
  }
  char buf[32];
  snprintf(buf, sizeof buf, "\"%" PRId64 "\"", v);
  osi_json_raw(j, buf);
}

/* A float attribute is a float32 held as a double: the shortest text that
 * reads back as the same float32 (1e-05, not 9.99999975e-06). */
static void write_float(OsiJson *j, double v) {
  if (isnan(v)) {
    osi_json_raw(j, "\"NaN\"");
    return;
  }
  if (isinf(v)) {
    osi_json_raw(j, v > 0 ? "\"Infinity\"" : "\"-Infinity\"");
    return;
  }
  char buf[40];
  float f = (float)v;
  int exact32 = (double)f == v;
  for (int digits = 1; digits <= 17; digits++) {
    snprintf(buf, sizeof buf, "%.*g", digits, v);
    double back = osi_parse_double(buf, NULL);
    if (exact32 ? (float)back == f : back == v) break;
  }
  osi_json_raw(j, buf);
}

static void write_tensor(OsiJson *j, const OsiTensor *t, int sparse) {
  if (!t) {
    osi_json_raw(j, "null");
    return;
  }
  const char *dtype = osi_dtype_name(t->elem_type);
  osi_json_raw(j, "{\"elemType\":");
  if (dtype) osi_json_string(j, dtype);
  else osi_json_raw(j, "null");
  osi_json_raw(j, ",\"dims\":[");
  for (int d = 0; d < t->rank; d++) {
    if (d) osi_json_char(j, ',');
    write_int(j, t->dims[d]);
  }
  osi_json_raw(j, t->external ? "],\"external\":true" : "],\"external\":false");
  osi_json_raw(j, sparse ? ",\"sparse\":true" : ",\"sparse\":false");
  if (t->ints || t->floats) {
    osi_json_raw(j, ",\"count\":");
    osi_json_int(j, t->count);
    osi_json_raw(j, ",\"values\":[");
    int64_t n = t->count < OSI_ATTR_JSON_MAX_VALUES ? t->count : OSI_ATTR_JSON_MAX_VALUES;
    for (int64_t i = 0; i < n; i++) {
      if (i) osi_json_char(j, ',');
      if (t->ints) write_int(j, t->ints[i]);
      else write_float(j, t->floats[i]);
    }
    osi_json_raw(j, "]");
  }
  osi_json_raw(j, "}");
}

static void write_graph(OsiJson *j, const OsiGraph *g) {
  if (!g) {
    osi_json_raw(j, "null");
    return;
  }
  osi_json_raw(j, "{\"name\":");
  osi_json_string(j, g->name ? g->name : "");
  osi_json_raw(j, ",\"nodes\":");
  osi_json_int(j, g->n_nodes);
  osi_json_raw(j, ",\"inputs\":");
  osi_json_int(j, g->n_inputs);
  osi_json_raw(j, ",\"outputs\":");
  osi_json_int(j, g->n_outputs);
  osi_json_raw(j, "}");
}

/* Element i of list attribute a. */
static void write_item(OsiJson *j, OsiExprStore *s, const OsiAttr *a, size_t i) {
  switch (a->type) {
    case OSI_ATTR_INTS: write_int(j, a->ints[i]); break;
    case OSI_ATTR_FLOATS: write_float(j, a->floats[i]); break;
    case OSI_ATTR_STRINGS: osi_json_string(j, a->strings[i] ? a->strings[i] : ""); break;
    case OSI_ATTR_TENSORS: write_tensor(j, a->tensors[i], 0); break;
    case OSI_ATTR_SPARSE_TENSORS: write_tensor(j, a->tensors[i], 1); break;
    case OSI_ATTR_GRAPHS: write_graph(j, a->graphs[i]); break;
    case OSI_ATTR_TYPE_PROTOS: osi_json_type(j, s, a->type_protos[i]); break;
    default: osi_json_raw(j, "null"); break;
  }
}

static void write_value(OsiJson *j, OsiExprStore *s, const OsiAttr *a) {
  if (a->ref_attr_name) {
    osi_json_raw(j, "{\"ref\":");
    osi_json_string(j, a->ref_attr_name);
    osi_json_raw(j, "}");
    return;
  }
  switch (a->type) {
    case OSI_ATTR_INT: write_int(j, a->i); return;
    case OSI_ATTR_FLOAT: write_float(j, a->f); return;
    /* its n bytes: a string attribute may hold NUL bytes (it was cut at the first) */
    case OSI_ATTR_STRING: osi_json_string_n(j, a->s ? a->s : "", a->s ? a->n : 0); return;
    case OSI_ATTR_TENSOR: write_tensor(j, a->t, 0); return;
    case OSI_ATTR_SPARSE_TENSOR: write_tensor(j, a->t, 1); return;
    case OSI_ATTR_GRAPH: write_graph(j, a->g); return;
    case OSI_ATTR_TYPE_PROTO: osi_json_type(j, s, a->tp); return;
    case OSI_ATTR_INTS: case OSI_ATTR_FLOATS: case OSI_ATTR_STRINGS: case OSI_ATTR_TENSORS:
    case OSI_ATTR_SPARSE_TENSORS: case OSI_ATTR_GRAPHS: case OSI_ATTR_TYPE_PROTOS: break;
    default: osi_json_raw(j, "null"); return;
  }
  size_t n = a->n < OSI_ATTR_JSON_MAX_LIST ? a->n : 16; /* a long list: its count and head */
  if (n < a->n) {
    osi_json_raw(j, "{\"count\":");
    osi_json_int(j, (int64_t)a->n);
    osi_json_raw(j, ",\"head\":");
  }
  osi_json_char(j, '[');
  for (size_t i = 0; i < n; i++) {
    if (i) osi_json_char(j, ',');
    write_item(j, s, a, i);
  }
  osi_json_char(j, ']');
  if (n < a->n) osi_json_char(j, '}');
}

static void write_nodes(OsiJson *j, OsiExprStore *s, const OsiGraph *g) {
  osi_json_char(j, '[');
  for (int k = 0; k < g->n_nodes; k++) {
    const OsiNode *n = &g->nodes[k];
    osi_json_raw(j, k ? ",[" : "[");
    for (int i = 0; i < n->n_attrs; i++) {
      const OsiAttr *a = &n->attrs[i];
      osi_json_raw(j, i ? ",[" : "[");
      osi_json_string(j, a->name ? a->name : "");
      osi_json_char(j, ',');
      unsigned t = (unsigned)a->type;
      osi_json_string(j, t < sizeof TYPE_NAMES / sizeof *TYPE_NAMES && TYPE_NAMES[t] ? TYPE_NAMES[t] : "undefined");
      osi_json_char(j, ',');
      write_value(j, s, a);
      osi_json_char(j, ']');
    }
    osi_json_char(j, ']');
  }
  osi_json_char(j, ']');
}

void osi_json_attributes(OsiJson *j, OsiExprStore *s, const OsiRun *run) {
  osi_json_raw(j, "{\"\":");
  write_nodes(j, s, run->model->graph);
  for (int i = 0; i < run->n_scopes; i++) {
    osi_json_char(j, ',');
    osi_json_string(j, run->scopes[i].path);
    osi_json_char(j, ':');
    write_nodes(j, s, &run->scopes[i].graph);
  }
  osi_json_char(j, '}');
}
