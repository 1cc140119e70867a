#include "infer/custom_ops.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/json.h"
#include "base/json_parse.h"
#include "infer/op_context.h"
#include "model/type_json.h"

/* Section - Registry */

typedef struct Entry {
  char *domain, *op_type;
  OsiShapeCallback fn;
  void *user;
} Entry;

struct OsiRegistry {
  Entry *entries;
  int count, cap;
};

OsiRegistry *osi_registry_new(void) { return calloc(1, sizeof(OsiRegistry)); }

void osi_registry_clear(OsiRegistry *self) {
  if (!self) return;
  for (int i = 0; i < self->count; i++) {
    free(self->entries[i].domain);
    free(self->entries[i].op_type);
  }
  self->count = 0;
}

void osi_registry_delete(OsiRegistry *self) {
  if (!self) return;
  osi_registry_clear(self);
  free(self->entries);
  free(self);
}

static char *copy(const char *s) {
  size_t n = strlen(s) + 1;
  char *d = malloc(n);
  return d ? memcpy(d, s, n) : NULL;
}

static const char *norm_domain(const char *d) { return d && strcmp(d, "ai.onnx") ? d : ""; }

int osi_registry_add(OsiRegistry *self, const char *domain, const char *op_type,
                     OsiShapeCallback fn, void *user) {
  if (!self || !op_type || !fn) return -1;
  domain = norm_domain(domain);
  for (int i = 0; i < self->count; i++)
    if (!strcmp(self->entries[i].domain, domain) && !strcmp(self->entries[i].op_type, op_type)) {
      self->entries[i].fn = fn;
      self->entries[i].user = user;
      return 0;
    }
  if (self->count == self->cap) {
    int cap = self->cap ? self->cap * 2 : 8;
    Entry *e = realloc(self->entries, (size_t)cap * sizeof *e);
    if (!e) return -1;
    self->entries = e;
    self->cap = cap;
  }
  Entry *e = &self->entries[self->count];
  e->domain = copy(domain);
  e->op_type = copy(op_type);
  if (!e->domain || !e->op_type) {
    free(e->domain);
    free(e->op_type);
    return -1;
  }
  e->fn = fn;
  e->user = user;
  self->count++;
  return 0;
}

OsiCustomOp osi_registry_find(const OsiRegistry *registry, const char *domain, const char *op_type) {
  OsiCustomOp found = {NULL, NULL};
  for (int i = 0; registry && i < registry->count; i++)
    if (!strcmp(registry->entries[i].domain, domain) &&
        !strcmp(registry->entries[i].op_type, op_type)) {
      found.fn = registry->entries[i].fn;
      found.user = registry->entries[i].user;
    }
  return found;
}

/* Section - Request */

static void write_number(OsiJson *j, double v) {
  char b[64];
  snprintf(b, sizeof b, "%.17g", v);
  osi_json_raw(j, b);
}

static void write_attr(OsiJson *j, const OsiAttr *a) {
  switch (a->type) {
  case OSI_ATTR_INT: osi_json_int(j, a->i); break;
  case OSI_ATTR_FLOAT: write_number(j, a->f); break;
  case OSI_ATTR_STRING: osi_json_string(j, a->s ? a->s : ""); break;
  case OSI_ATTR_INTS:
  case OSI_ATTR_FLOATS:
  case OSI_ATTR_STRINGS:
    osi_json_raw(j, "[");
    for (size_t i = 0; i < a->n; i++) {
      if (i) osi_json_raw(j, ",");
      if (a->type == OSI_ATTR_INTS) osi_json_int(j, a->ints[i]);
      else if (a->type == OSI_ATTR_FLOATS) write_number(j, a->floats[i]);
      else osi_json_string(j, a->strings[i]);
    }
    osi_json_raw(j, "]");
    break;
  case OSI_ATTR_TENSOR:
    if (!a->t) {
      osi_json_raw(j, "null");
      break;
    }
    osi_json_raw(j, "{\"elemType\":");
    if (osi_dtype_name(a->t->elem_type)) osi_json_string(j, osi_dtype_name(a->t->elem_type));
    else osi_json_raw(j, "null");
    osi_json_raw(j, ",\"dims\":[");
    for (int i = 0; i < a->t->rank; i++) {
      if (i) osi_json_raw(j, ",");
      osi_json_int(j, a->t->dims[i]);
    }
    osi_json_raw(j, "]}");
    break;
  default:
    osi_json_raw(j, "null"); /* graphs, sparse tensors, type protos: not passed */
  }
}

static void write_input(OsiJson *j, OsiExprStore *s, const OsiType *t) {
  OsiJson tmp = {0};
  osi_json_type(&tmp, s, t);
  if (!t || !t->value || !t->value->ints || tmp.failed || !tmp.buf) {
    osi_json_raw(j, tmp.buf && !tmp.failed ? tmp.buf : "null");
    osi_json_free(&tmp);
    return;
  }
  /* Splice the known content in before the closing brace. */
  tmp.buf[tmp.len - 1] = 0;
  osi_json_raw(j, tmp.buf);
  osi_json_raw(j, ",\"value\":[");
  for (int64_t i = 0; i < t->value->count; i++) {
    int64_t c;
    OsiExpr e = t->value->ints[i];
    if (i) osi_json_raw(j, ",");
    if (e == OSI_EXPR_UNKNOWN) osi_json_raw(j, "null");
    else if (osi_expr_is_const(s, e, &c)) osi_json_int(j, c);
    else osi_json_string(j, osi_expr_str(s, e));
  }
  osi_json_raw(j, "]}");
  osi_json_free(&tmp);
}

static void build_request(OsiOpCtx *ctx, OsiJson *j) {
  const OsiNode *n = ctx->node;
  OsiExprStore *s = osi_op_exprs(ctx);
  osi_json_raw(j, "{\"domain\":");
  osi_json_string(j, n->domain);
  osi_json_raw(j, ",\"opType\":");
  osi_json_string(j, n->op_type);
  osi_json_raw(j, ",\"opset\":");
  osi_json_int(j, ctx->opset);
  osi_json_raw(j, ",\"node\":");
  osi_json_string(j, n->name);
  osi_json_raw(j, ",\"inputs\":[");
  for (int i = 0; i < n->n_inputs; i++) {
    if (i) osi_json_raw(j, ",");
    write_input(j, s, ctx->in[i]);
  }
  osi_json_raw(j, "],\"attributes\":{");
  for (int i = 0; i < n->n_attrs; i++) {
    if (i) osi_json_raw(j, ",");
    osi_json_string(j, n->attrs[i].name);
    osi_json_raw(j, ":");
    write_attr(j, &n->attrs[i]);
  }
  osi_json_raw(j, "}}");
}

/* Section - Call */

/* text cut to fit out (at a UTF-8 character boundary, "..." when cut). */
static void clip_text(char *out, size_t cap, const char *text) {
  size_t n = strlen(text);
  if (n < cap) {
    memcpy(out, text, n + 1);
    return;
  }
  n = cap - 4;
  while (n > 0 && ((unsigned char)text[n] & 0xC0) == 0x80) n--;
  memcpy(out, text, n);
  memcpy(out + n, "...", 4);
}

OsiStatus osi_custom_op_call(OsiOpCtx *ctx, const OsiCustomOp *op) {
  OsiJson req = {0};
  build_request(ctx, &req);
  if (req.failed || !req.buf) {
    osi_json_free(&req);
    return osi_op_fail(ctx, OSI_ERR_NOMEM, "out of memory building the custom op request");
  }
  char *answer = op->fn(op->user, req.buf);
  osi_json_free(&req);
  if (!answer)
    return osi_op_fail(ctx, OSI_ERR_UNSUPPORTED, "the custom shape function returned nothing");
  const OsiJsonValue *v = osi_json_parse(osi_op_arena(ctx), answer);
  free(answer);
  if (!v)
    return osi_op_fail(ctx, OSI_ERR_UNSUPPORTED,
                       "the custom shape function's answer is not JSON the engine reads (malformed, nested "
                       "deeper than 64, or a string holding U+0000, which no name or dim can hold)");
  const OsiJsonValue *err = osi_json_get(v, "error");
  if (err)
    return osi_op_fail(ctx, OSI_ERR_UNSUPPORTED, "the custom shape function failed: %s",
                       err->kind == OSI_JSON_STRING ? err->string : "(no message)");
  const OsiJsonValue *outs = v && v->kind == OSI_JSON_OBJECT ? osi_json_get(v, "outputs") : v;
  if (!outs || outs->kind != OSI_JSON_ARRAY)
    return osi_op_fail(ctx, OSI_ERR_UNSUPPORTED,
                       "the custom shape function must return an array of output types");
  for (size_t i = 0; i < outs->n && (int)i < osi_out_count(ctx); i++) {
    OsiTypeJsonIssue issue = {0};
    const OsiType *t = osi_type_from_json(osi_op_arena(ctx), osi_op_exprs(ctx), &outs->items[i], &issue);
    char text[96];
    if (issue.dim_text) clip_text(text, sizeof text, issue.dim_text);
    if (issue.bad && issue.dim_text)
      return osi_op_fail(ctx, OSI_ERR_UNSUPPORTED,
                         "output %zu of the custom shape function: dim %d is '%s', which is not an "
                         "integer expression (a number, a name, or an expression over them)",
                         i, issue.dim, text);
    if (issue.bad)
      return osi_op_fail(ctx, OSI_ERR_UNSUPPORTED,
                         "output %zu of the custom shape function is not a valid type", i);
    if (issue.over_budget)
      osi_op_diag(ctx, "LIMIT_EXCEEDED",
                  "output %zu of the custom shape function: dim %d ('%s') takes more than %u steps "
                  "of expression work to simplify, so it is unknown",
                  i, issue.dim, text, (unsigned)OSI_EXPR_WORK_PER_TEXT);
    osi_set_out(ctx, (int)i, t);
  }
  return OSI_OK;
}

/* Section - JavaScript callbacks (WebAssembly builds) */

#ifdef __EMSCRIPTEN__
#include <emscripten/emscripten.h>

/* Module.osiShapeCallback(id, request) is installed by js/index.js; it
 * returns a malloc'ed UTF-8 answer (0 when the JS side failed outright).
 * Nothing thrown on the JS side may unwind through the C frames: they would
 * never free what they hold. */
EM_JS(char *, osi_js_shape_callback, (int id, const char *request), {
  try {
    return Module.osiShapeCallback ? Module.osiShapeCallback(id, request) : 0;
  } catch (e) {
    return 0;
  }
});

static char *js_trampoline(void *user, const char *request) {
  return osi_js_shape_callback((int)(intptr_t)user, request);
}

int osi_registry_add_js(OsiRegistry *self, const char *domain, size_t domain_len, const char *op_type,
                        size_t op_type_len, int id) {
  /* A NUL inside would cut the C string: 'my.domain\0x' would serve my.domain. */
  if (!domain || !op_type || strlen(domain) != domain_len || strlen(op_type) != op_type_len) return -2;
  return osi_registry_add(self, domain, op_type, js_trampoline, (void *)(intptr_t)id);
}
#endif
