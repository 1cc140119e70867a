#include "model/type_json.h"

#include <math.h>
#include <string.h>

static void write_dim(OsiJson *j, OsiExprStore *s, OsiExpr d) {
  int64_t v;
  /* Integers past 2^53 would lose precision as JS numbers. */
  if (d == OSI_EXPR_UNKNOWN) osi_json_raw(j, "null");
  else if (!osi_expr_is_const(s, d, &v)) osi_json_string(j, osi_expr_str(s, d));
  else if (v >= -(INT64_C(1) << 53) && v <= (INT64_C(1) << 53)) osi_json_int(j, v);
  else osi_json_raw(j, "null");
}

static void write_dtype(OsiJson *j, int32_t dt) {
  const char *name = osi_dtype_name(dt);
  if (name) osi_json_string(j, name);
  else osi_json_raw(j, "null");
}

static void write_type(OsiJson *j, OsiExprStore *s, const OsiType *t, int depth) {
  if (!t || depth > 64) {
    osi_json_raw(j, "null");
    return;
  }
  switch (t->kind) {
  case OSI_KIND_TENSOR:
  case OSI_KIND_SPARSE_TENSOR:
    osi_json_raw(j, t->kind == OSI_KIND_TENSOR ? "{\"kind\":\"tensor\",\"elemType\":"
                                               : "{\"kind\":\"sparse_tensor\",\"elemType\":");
    write_dtype(j, t->elem_type);
    osi_json_raw(j, ",\"dims\":");
    if (t->rank < 0) {
      osi_json_raw(j, "null");
    } else {
      osi_json_raw(j, "[");
      for (int i = 0; i < t->rank; i++) {
        if (i) osi_json_raw(j, ",");
        write_dim(j, s, t->dims[i]);
      }
      osi_json_raw(j, "]");
    }
    osi_json_raw(j, "}");
    break;
  case OSI_KIND_SEQUENCE:
  case OSI_KIND_OPTIONAL:
    osi_json_raw(j, t->kind == OSI_KIND_SEQUENCE ? "{\"kind\":\"sequence\",\"elem\":"
                                                 : "{\"kind\":\"optional\",\"elem\":");
    write_type(j, s, t->elem, depth + 1);
    osi_json_raw(j, "}");
    break;
  case OSI_KIND_MAP:
    osi_json_raw(j, "{\"kind\":\"map\",\"keyType\":");
    write_dtype(j, t->elem_type);
    osi_json_raw(j, ",\"value\":");
    write_type(j, s, t->elem, depth + 1);
    osi_json_raw(j, "}");
    break;
  default:
    osi_json_raw(j, "null");
  }
}

void osi_json_type(OsiJson *j, OsiExprStore *s, const OsiType *t) { write_type(j, s, t, 0); }

int osi_json_has_content(const OsiType *t) {
  return t && (t->kind == OSI_KIND_TENSOR || t->kind == OSI_KIND_SPARSE_TENSOR) && t->value &&
         t->value->ints && t->value->count <= OSI_JSON_MAX_CONTENT;
}

void osi_json_type_content(OsiJson *j, OsiExprStore *s, const OsiType *t) {
  if (!osi_json_has_content(t)) {
    write_type(j, s, t, 0);
    return;
  }
  /* write_type ends a tensor with "}": write it, then take the brace back. */
  write_type(j, s, t, 0);
  if (j->failed || !j->len || j->buf[j->len - 1] != '}') return;
  j->buf[--j->len] = 0;
  osi_json_raw(j, ",\"value\":[");
  for (int64_t i = 0; i < t->value->count; i++) {
    if (i) osi_json_raw(j, ",");
    write_dim(j, s, t->value->ints[i]);
  }
  osi_json_raw(j, "]}");
}

int32_t osi_dtype_from_name(const char *name) {
  for (int32_t dt = 1; name && dt < OSI_DT_COUNT; dt++)
    if (osi_dtype_name(dt) && !strcmp(osi_dtype_name(dt), name)) return dt;
  return 0;
}

static int32_t dtype_of(const OsiJsonValue *v, int *bad) {
  if (!v || v->kind == OSI_JSON_NULL) return 0;
  int32_t dt = v->kind == OSI_JSON_STRING ? osi_dtype_from_name(v->string) : 0;
  if (!dt) *bad = 1;
  return dt;
}

/* A dim string: an integer expression (a symbol's name is one: N, 'batch size'). */
static OsiExpr dim_from_text(OsiExprStore *s, const char *text, int i, OsiTypeJsonIssue *issue) {
  OsiExpr e;
  OsiExprText how = osi_expr_parse_text(s, text, &e);
  if (how == OSI_EXPR_TEXT_INT) return e;
  if (!issue->dim_text) {
    issue->dim_text = text;
    issue->dim = i;
    issue->over_budget = how == OSI_EXPR_TEXT_OVER_BUDGET;
  }
  if (how != OSI_EXPR_TEXT_OVER_BUDGET) issue->bad = 1;
  return OSI_EXPR_UNKNOWN;
}

static const OsiType *from_json(OsiArena *a, OsiExprStore *s, const OsiJsonValue *v,
                                OsiTypeJsonIssue *issue, int depth) {
  int *bad = &issue->bad;
  if (!v || v->kind == OSI_JSON_NULL) return NULL;
  const OsiJsonValue *kind = osi_json_get(v, "kind");
  if (depth > 16 || v->kind != OSI_JSON_OBJECT || (kind && kind->kind != OSI_JSON_STRING)) {
    *bad = 1;
    return NULL;
  }
  /* { elemType, dims } without a kind is a tensor: what a shape function writes most. */
  const char *k = kind ? kind->string : "tensor";
  if (!strcmp(k, "sequence") || !strcmp(k, "optional")) {
    const OsiType *e = from_json(a, s, osi_json_get(v, "elem"), issue, depth + 1);
    return k[0] == 's' ? osi_type_sequence(a, e) : osi_type_optional(a, e);
  }
  if (!strcmp(k, "map"))
    return osi_type_map(a, dtype_of(osi_json_get(v, "keyType"), bad),
                        from_json(a, s, osi_json_get(v, "value"), issue, depth + 1));
  if (strcmp(k, "tensor") != 0) {
    *bad = 1;
    return NULL;
  }
  const OsiJsonValue *dims = osi_json_get(v, "dims");
  int rank = dims && dims->kind == OSI_JSON_ARRAY ? (int)dims->n : -1;
  if (rank > OSI_MAX_RANK || (dims && dims->kind != OSI_JSON_ARRAY && dims->kind != OSI_JSON_NULL)) {
    *bad = 1;
    return NULL;
  }
  OsiType *t = osi_type_tensor(a, dtype_of(osi_json_get(v, "elemType"), bad), rank);
  if (!t) return NULL;
  for (int i = 0; i < rank; i++) {
    const OsiJsonValue *d = &dims->items[i];
    OsiExpr e = OSI_EXPR_UNKNOWN;
    if (d->kind == OSI_JSON_NUMBER && d->number >= 0 && d->number == floor(d->number) && d->number < 9e15)
      e = osi_expr_const(s, (int64_t)d->number);
    else if (d->kind == OSI_JSON_STRING)
      e = dim_from_text(s, d->string, i, issue);
    else if (d->kind != OSI_JSON_NULL)
      *bad = 1;
    osi_type_dims_mut(t)[i] = e;
  }
  return t;
}

const OsiType *osi_type_from_json(OsiArena *a, OsiExprStore *s, const OsiJsonValue *v,
                                  OsiTypeJsonIssue *issue) {
  return from_json(a, s, v, issue, 0);
}
