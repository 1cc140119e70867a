#include "op_harness.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "infer/context.h"
#include "infer/facts.h"
#include "infer/op_context.h"
#include "ops/fold.h"
#include "ops/op_registry.h"

#define MAX_ATTRS 32
#define MAX_IO 32

struct OpTest {
  OsiArena *arena;
  OsiExprStore *exprs;
  OsiRun run;
  OsiAttr attrs[MAX_ATTRS];
  int n_attrs, n_outputs;
  const OsiType *out[MAX_IO];
  char text[MAX_IO][1024];
  char diags[2048];
  char requirements[2048];
  char bounds[2048];
  int status;
  char error[600];
};

OpTest *op_test_new(void) {
  OpTest *t = calloc(1, sizeof *t);
  t->arena = osi_arena_new();
  t->exprs = osi_expr_store_new();
  t->run.arena = t->arena;
  t->run.exprs = t->exprs;
  t->n_outputs = 1;
  return t;
}

void op_test_free(OpTest *t) {
  if (!t) return;
  osi_run_free(&t->run);
  osi_expr_store_delete(t->exprs);
  osi_arena_delete(t->arena);
  free(t);
}

OsiExprStore *op_exprs(OpTest *t) { return t->exprs; }
OsiArena *op_arena(OpTest *t) { return t->arena; }

static OsiAttr *new_attr(OpTest *t, const char *name, OsiAttrType type) {
  OsiAttr *a = &t->attrs[t->n_attrs++];
  memset(a, 0, sizeof *a);
  a->name = osi_arena_strdup(t->arena, name);
  a->type = type;
  return a;
}

void op_attr_int(OpTest *t, const char *name, int64_t v) { new_attr(t, name, OSI_ATTR_INT)->i = v; }
void op_attr_float(OpTest *t, const char *name, double v) { new_attr(t, name, OSI_ATTR_FLOAT)->f = v; }

void op_attr_str(OpTest *t, const char *name, const char *v) {
  OsiAttr *a = new_attr(t, name, OSI_ATTR_STRING);
  a->s = osi_arena_strdup(t->arena, v);
  a->n = strlen(v);
}

void op_attr_ints(OpTest *t, const char *name, int n, const int64_t *v) {
  OsiAttr *a = new_attr(t, name, OSI_ATTR_INTS);
  int64_t *c = osi_arena_array(t->arena, (size_t)n + 1, sizeof(int64_t));
  memcpy(c, v, (size_t)n * sizeof(int64_t));
  a->ints = c;
  a->n = (size_t)n;
}

void op_attr_floats(OpTest *t, const char *name, int n, const double *v) {
  OsiAttr *a = new_attr(t, name, OSI_ATTR_FLOATS);
  double *c = osi_arena_array(t->arena, (size_t)n + 1, sizeof(double));
  memcpy(c, v, (size_t)n * sizeof(double));
  a->floats = c;
  a->n = (size_t)n;
}

void op_attr_strings(OpTest *t, const char *name, int n, const char *const *v) {
  OsiAttr *a = new_attr(t, name, OSI_ATTR_STRINGS);
  const char **c = osi_arena_array(t->arena, (size_t)n + 1, sizeof(char *));
  for (int i = 0; i < n; i++) c[i] = osi_arena_strdup(t->arena, v[i]);
  a->strings = c;
  a->n = (size_t)n;
}

void op_attr_graph(OpTest *t, const char *name, const OsiGraph *g) {
  new_attr(t, name, OSI_ATTR_GRAPH)->g = g;
}

void op_set_outputs(OpTest *t, int n) { t->n_outputs = n; }

/* Section - Type syntax */

/* An element of a content list: an expression, or an int64 literal (the
 * expression grammar has no INT64_MIN literal: -9223372036854775808 is the
 * negation of a number past int64). */
static OsiExpr parse_elem(OpTest *t, const char *text) {
  char *end;
  errno = 0;
  long long v = strtoll(text, &end, 10);
  if (end != text && !*end && errno == 0) return osi_expr_const(t->exprs, v);
  return osi_expr_parse(t->exprs, text);
}

static int32_t dtype_from_name(const char *s, size_t n) {
  for (int32_t dt = 1; dt < OSI_DT_COUNT; dt++) {
    const char *name = osi_dtype_name(dt);
    if (name && strlen(name) == n && strncmp(name, s, n) == 0) return dt;
  }
  return 0;
}

/* Splits "a,b,(c,d)" at top-level commas; returns the number of parts. */
static int split_top(char *s, char **parts, int max) {
  int n = 0, depth = 0;
  if (!*s) return 0;
  parts[n++] = s;
  for (; *s; s++) {
    if (*s == '(') depth++;
    else if (*s == ')') depth--;
    else if (*s == ',' && depth == 0 && n < max) {
      *s = 0;
      parts[n++] = s + 1;
    }
  }
  return n;
}

/* The element type of a sequence of these elements: their dtype, and
 * their rank and dims where they all agree (what the engine's merge keeps
 * of elements without content). */
static const OsiType *common_elem(OpTest *t, const OsiType *const *e, int n) {
  if (n == 0 || !e[0] || e[0]->kind != OSI_KIND_TENSOR) return NULL;
  int rank = e[0]->rank;
  for (int k = 1; k < n; k++)
    if (!e[k] || e[k]->rank != rank) rank = -1;
  OsiType *c = osi_type_tensor(t->arena, e[0]->elem_type, rank);
  for (int i = 0; c && i < rank; i++) {
    OsiExpr d = e[0]->dims[i];
    for (int k = 1; k < n; k++)
      if (e[k]->dims[i] != d) d = OSI_EXPR_UNKNOWN;
    osi_type_dims_mut(c)[i] = d;
  }
  return c;
}

const OsiType *op_parse_type(OpTest *t, const char *text) {
  size_t len = strlen(text);
  if (!strncmp(text, "seq[", 4)) {
    /* seq[<t0>;<t1>;...]: a sequence of these elements, each type kept */
    char inner[2048];
    snprintf(inner, sizeof inner, "%.*s", (int)(len - 5), text + 4);
    const OsiType **e = osi_arena_array(t->arena, OSI_MAX_SEQ_ELEMS + 1, sizeof *e);
    int n = 0;
    for (char *p = inner, *semi; *p && n < OSI_MAX_SEQ_ELEMS; p = semi + 1) {
      semi = strchr(p, ';');
      if (semi) *semi = 0;
      e[n++] = op_parse_type(t, p);
      if (!semi) break;
    }
    OsiType *seq = osi_type_sequence(t->arena, common_elem(t, e, n));
    if (seq) {
      seq->length = osi_expr_const(t->exprs, n);
      seq->elems = e;
      seq->n_elems = n;
    }
    return seq;
  }
  if (!strncmp(text, "seq#", 4)) {
    /* seq#<length>(<elem>): a sequence of known length */
    const char *open = strchr(text, '(');
    if (!open) return NULL;
    char num[64], inner[512];
    snprintf(num, sizeof num, "%.*s", (int)(open - text - 4), text + 4);
    snprintf(inner, sizeof inner, "%.*s", (int)(len - (size_t)(open - text) - 2), open + 1);
    OsiType *seq = osi_type_sequence(t->arena, op_parse_type(t, inner));
    if (seq) seq->length = osi_expr_parse(t->exprs, num);
    return seq;
  }
  if (!strncmp(text, "seq(", 4) || !strncmp(text, "opt(", 4)) {
    char inner[512];
    snprintf(inner, sizeof inner, "%.*s", (int)(len - 5), text + 4);
    const OsiType *e = op_parse_type(t, inner);
    return text[0] == 's' ? osi_type_sequence(t->arena, e) : osi_type_optional(t->arena, e);
  }
  const char *br = strchr(text, '[');
  if (!br) return osi_type_tensor(t->arena, dtype_from_name(text, len), -1);
  int32_t dt = dtype_from_name(text, (size_t)(br - text));
  const char *close = strchr(br, ']');
  if (!close) return NULL;
  char dims_text[512];
  snprintf(dims_text, sizeof dims_text, "%.*s", (int)(close - br - 1), br + 1);
  OsiType *type;
  if (!strcmp(dims_text, "*")) {
    type = osi_type_tensor(t->arena, dt, -1);
  } else {
    char *parts[OSI_MAX_RANK];
    int n = split_top(dims_text, parts, OSI_MAX_RANK);
    type = osi_type_tensor(t->arena, dt, n);
    for (int i = 0; i < n; i++)
      osi_type_dims_mut(type)[i] = strcmp(parts[i], "?") ? osi_expr_parse(t->exprs, parts[i]) : OSI_EXPR_UNKNOWN;
  }
  const char *brace = strchr(close, '{');
  if (brace) {
    char vals[2048];
    snprintf(vals, sizeof vals, "%.*s", (int)(strlen(brace) - 2), brace + 1);
    char *parts[OSI_MAX_VALUE_ELEMS];
    int n = split_top(vals, parts, OSI_MAX_VALUE_ELEMS);
    if (osi_dtype_is_float(dt)) {
      /* a number, or a float expression of symbols (Float(N)*0.5) */
      OsiExpr *f;
      OsiValue *v = osi_value_floats(t->arena, n, &f);
      for (int i = 0; i < n; i++) {
        char *end;
        double d = strtod(parts[i], &end);
        f[i] = !strcmp(parts[i], "?") ? OSI_EXPR_UNKNOWN
               : *end == 0            ? osi_expr_fconst(t->exprs, dt == OSI_DT_FLOAT ? (double)(float)d : d)
                                      : osi_expr_to_float(t->exprs, osi_expr_parse(t->exprs, parts[i]));
      }
      type->value = v;
    } else {
      OsiExpr *e;
      OsiValue *v = osi_value_ints(t->arena, n, &e);
      for (int i = 0; i < n; i++) e[i] = strcmp(parts[i], "?") ? parse_elem(t, parts[i]) : OSI_EXPR_UNKNOWN;
      type->value = v;
    }
  }
  return type;
}

static void append(char *buf, size_t cap, const char *s) {
  size_t l = strlen(buf);
  snprintf(buf + l, cap - l, "%s", s);
}

static void type_str(OpTest *t, const OsiType *type, char *buf, size_t cap) {
  if (!type) {
    append(buf, cap, "unknown");
    return;
  }
  if (type->kind == OSI_KIND_SEQUENCE && type->length != OSI_EXPR_UNKNOWN) {
    append(buf, cap, "seq#");
    append(buf, cap, osi_expr_str(t->exprs, type->length));
    append(buf, cap, "(");
    type_str(t, type->elem, buf, cap);
    append(buf, cap, ")");
    return;
  }
  if (type->kind == OSI_KIND_SEQUENCE || type->kind == OSI_KIND_OPTIONAL) {
    append(buf, cap, type->kind == OSI_KIND_SEQUENCE ? "seq(" : "opt(");
    type_str(t, type->elem, buf, cap);
    append(buf, cap, ")");
    return;
  }
  if (type->kind == OSI_KIND_MAP) {
    append(buf, cap, "map(");
    append(buf, cap, osi_dtype_name(type->elem_type) ? osi_dtype_name(type->elem_type) : "?");
    append(buf, cap, ",");
    type_str(t, type->elem, buf, cap);
    append(buf, cap, ")");
    return;
  }
  append(buf, cap, osi_dtype_name(type->elem_type) ? osi_dtype_name(type->elem_type) : "?");
  if (type->rank < 0) {
    append(buf, cap, "[*]");
  } else {
    append(buf, cap, "[");
    for (int i = 0; i < type->rank; i++) {
      if (i) append(buf, cap, ",");
      append(buf, cap, osi_expr_str(t->exprs, type->dims[i]));
    }
    append(buf, cap, "]");
  }
  if (type->value) {
    append(buf, cap, "{");
    for (int64_t i = 0; i < type->value->count; i++) {
      char num[64];
      if (i) append(buf, cap, ",");
      if (type->value->ints) {
        append(buf, cap, osi_expr_str(t->exprs, type->value->ints[i]));
      } else {
        double d;
        if (osi_expr_is_fconst(t->exprs, type->value->floats[i], &d)) {
          snprintf(num, sizeof num, "%g", d);
          append(buf, cap, num);
        } else {
          append(buf, cap, osi_expr_str(t->exprs, type->value->floats[i]));
        }
      }
    }
    append(buf, cap, "}");
  }
}

const char *op_type_str(OpTest *t, const OsiType *type) {
  static char buf[2048];
  buf[0] = 0;
  type_str(t, type, buf, sizeof buf);
  return buf;
}

void op_attr_tensor(OpTest *t, const char *name, const char *type_text) {
  const OsiType *ty = op_parse_type(t, type_text);
  OsiTensor *ten = osi_arena_alloc(t->arena, sizeof *ten);
  ten->name = "";
  ten->elem_type = ty->elem_type;
  ten->rank = ty->rank;
  int64_t *dims = osi_arena_array(t->arena, (size_t)ty->rank + 1, sizeof(int64_t));
  for (int i = 0; i < ty->rank; i++) osi_expr_is_const(t->exprs, ty->dims[i], &dims[i]);
  ten->dims = dims;
  if (ty->value) {
    ten->count = ty->value->count;
    if (ty->value->ints) {
      int64_t *v = osi_arena_array(t->arena, (size_t)ten->count + 1, sizeof(int64_t));
      for (int64_t i = 0; i < ten->count; i++) osi_expr_is_const(t->exprs, ty->value->ints[i], &v[i]);
      ten->ints = v;
    } else {
      double *v = osi_arena_array(t->arena, (size_t)ten->count + 1, sizeof(double));
      for (int64_t i = 0; i < ten->count; i++) osi_expr_is_fconst(t->exprs, ty->value->floats[i], &v[i]);
      ten->floats = v;
    }
  }
  new_attr(t, name, OSI_ATTR_TENSOR)->t = ten;
}

/* Section - Running */

const char *op_run(OpTest *t, const char *domain, const char *op, int opset, ...) {
  const char *inputs[MAX_IO];
  int n_in = 0;
  va_list ap;
  va_start(ap, opset);
  for (const char *s; (s = va_arg(ap, const char *)) && n_in < MAX_IO;) inputs[n_in++] = s;
  va_end(ap);

  OsiNode node = {0};
  const char **in_names = osi_arena_array(t->arena, MAX_IO, sizeof(char *));
  const char **out_names = osi_arena_array(t->arena, MAX_IO, sizeof(char *));
  static const char *const names[MAX_IO] = {"in0", "in1", "in2", "in3", "in4", "in5", "in6", "in7",
                                            "in8", "in9", "in10", "in11", "in12", "in13", "in14", "in15",
                                            "in16", "in17", "in18", "in19", "in20", "in21", "in22", "in23",
                                            "in24", "in25", "in26", "in27", "in28", "in29", "in30", "in31"};
  for (int i = 0; i < n_in; i++) in_names[i] = inputs[i][0] ? names[i] : "";
  for (int i = 0; i < t->n_outputs; i++) out_names[i] = "out";
  node.name = "node";
  node.op_type = op;
  node.domain = domain;
  node.n_inputs = n_in;
  node.n_outputs = t->n_outputs;
  node.inputs = in_names;
  node.outputs = out_names;
  node.attrs = t->attrs;
  node.n_attrs = t->n_attrs;

  OsiOpsetImport opsets[1] = {{domain, opset}};
  OsiContext scope;
  osi_context_init(&scope, &t->run, NULL, "", 1, opsets, 16);
  OsiOpCtx ctx = {0};
  ctx.scope = &scope;
  ctx.node = &node;
  ctx.opset = opset;
  const OsiType *in_types[MAX_IO] = {0};
  for (int i = 0; i < n_in; i++) in_types[i] = inputs[i][0] ? op_parse_type(t, inputs[i]) : NULL;
  memset(t->out, 0, sizeof t->out);
  ctx.in = in_types;
  ctx.out = t->out;
  t->run.n_diags = 0;
  t->run.has_first_error = 0;
  osi_requirements_rollback(&t->run.requirements, 0);
  osi_facts_rollback(&t->run, 0); /* (each run is a model of its own: no facts from the one before) */
  t->run.less_equal.count = 0;
  t->run.status = OSI_OK;

  const OsiOpEntry *entry = osi_op_lookup(osi_op_domain(domain), op);
  t->status = entry ? entry->fn(&ctx) : OSI_ERR_UNSUPPORTED;
  /* As the driver: contents the rule left out come from the fold. */
  if (t->status == OSI_OK && !domain[0]) osi_op_fold(&ctx);
  if (!entry) snprintf(ctx.message, sizeof ctx.message, "no such op");
  if (t->status == OSI_OK && t->run.status != OSI_OK) {
    t->status = t->run.status;
    snprintf(ctx.message, sizeof ctx.message, "%.380s", t->run.message);
  }
  snprintf(t->error, sizeof t->error, "error:%s: %s", osi_status_name(t->status), ctx.message);
  t->diags[0] = 0;
  for (int i = 0; i < t->run.n_diags; i++) {
    if (i) append(t->diags, sizeof t->diags, "; ");
    append(t->diags, sizeof t->diags, t->run.diags[i].code);
    append(t->diags, sizeof t->diags, ": ");
    append(t->diags, sizeof t->diags, t->run.diags[i].message);
  }
  t->requirements[0] = 0;
  for (int i = 0; i < t->run.requirements.count; i++) {
    const OsiRequirement *q = &t->run.requirements.items[i];
    if (i) append(t->requirements, sizeof t->requirements, "; ");
    char text[512];
    append(t->requirements, sizeof t->requirements, osi_requirement_text(t->exprs, q, text, sizeof text));
  }
  t->bounds[0] = 0;
  for (int i = 0; i < t->run.less_equal.count; i++) {
    const OsiConstraint *q = &t->run.less_equal.items[i];
    if (i) append(t->bounds, sizeof t->bounds, "; ");
    append(t->bounds, sizeof t->bounds, osi_expr_str(t->exprs, q->lhs));
    append(t->bounds, sizeof t->bounds, " <= ");
    append(t->bounds, sizeof t->bounds, osi_expr_str(t->exprs, q->rhs));
  }
  for (int i = 0; i < t->n_outputs; i++) {
    t->text[i][0] = 0;
    if (t->status != OSI_OK) snprintf(t->text[i], sizeof t->text[i], "%s", t->error);
    else type_str(t, t->out[i], t->text[i], sizeof t->text[i]);
  }
  osi_context_free(&scope);
  t->n_attrs = 0;
  int n_out = t->n_outputs;
  t->n_outputs = 1;
  (void)n_out;
  return t->text[0];
}

const char *op_out(OpTest *t, int i) { return i >= 0 && i < MAX_IO ? t->text[i] : ""; }
const OsiType *op_out_type(OpTest *t, int i) { return i >= 0 && i < MAX_IO ? t->out[i] : NULL; }

void op_set_visits(OpTest *t, int64_t used, int64_t max) {
  t->run.node_visits = used;
  t->run.max_node_visits = max;
}

const char *op_seq_elems(OpTest *t, int i) {
  static char buf[2048];
  buf[0] = 0;
  const OsiType *s = op_out_type(t, i);
  int n;
  const OsiType *const *e = osi_type_seq_elems(s, &n);
  if (!e) return "untracked";
  for (int k = 0; k < n; k++) {
    if (k) append(buf, sizeof buf, ";");
    type_str(t, e[k], buf, sizeof buf);
  }
  return buf;
}
const char *op_diags(OpTest *t) { return t->diags; }
const char *op_bounds(OpTest *t) { return t->bounds; }

const char *op_requirements(OpTest *t) { return t->requirements; }

typedef struct Binding1 {
  const char *name;
  int64_t value;
} Binding1;

static int lookup1(void *user, const char *name, int64_t *value) {
  const Binding1 *b = user;
  if (strcmp(b->name, name) != 0) return 0;
  *value = b->value;
  return 1;
}

int op_requirements_hold(OpTest *t, const char *symbol, int64_t value) {
  Binding1 b = {symbol, value};
  for (int i = 0; i < t->run.requirements.count; i++) {
    const OsiRequirement *q = &t->run.requirements.items[i];
    int64_t l, r;
    if (osi_expr_eval(t->exprs, q->lhs, lookup1, &b, &l) != 0 || osi_expr_eval(t->exprs, q->rhs, lookup1, &b, &r) != 0)
      continue;
    if (q->less_equal ? l > r : l != r) return 0;
  }
  return 1;
}
