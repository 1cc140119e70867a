/*
 * Conformance runner: checks the engine's inferred output types against the
 * ONNX backend node tests (<dir>/<test>/model.onnx + test_data_set_0/).
 *
 *   conformance <node-dir> [--variant plain|symbolic|const|const-symbolic|all]
 *               [--only SUBSTRING] [--verbose] [--report FILE] [--results FILE]
 *               [--baseline FILE | --no-baseline] [--write-baseline FILE]
 *
 * Each test runs in up to four variants (the model is decoded with protobuf-c,
 * edited, re-packed and handed to osi_infer):
 *   plain          declared shapes of the graph outputs and every top-level
 *                  value_info are removed (element types are kept);
 *   symbolic       plain, and every dim of every graph input becomes a fresh
 *                  dim_param "in<i>_d<j>", bound to the real dim of input_<i>.pb
 *                  when the inferred output dims are evaluated;
 *   const          plain, and the inputs that carry shape-like data (integer
 *                  tensors; float tensors of at most 8 elements) become
 *                  initializers holding the test's input data;
 *   const-symbolic const, then the remaining inputs made symbolic.
 *
 * Each graph output is compared with output_<k>.pb (element type + dims):
 *   exact    elem type, rank and every dim known and equal;
 *   unknown  something unknown (NULL type, elem 0, rank -1, unknown dim, a dim
 *            that does not evaluate), nothing contradicting;
 *   wrong    something known that differs: always a bug, fails the run;
 *   (and, per case: a SHAPE_MISMATCH / INVALID_MODEL diagnostic, or a
 *   requirement on symbolic dims that is false at the test's sizes, is a
 *   false alarm on a model that runs: it fails the run too)
 *   error    osi_infer returned a status != OSI_OK (whole case);
 *   skipped  the output is not a tensor (sequence/map/optional) or its
 *            expected tensor is missing/unparsable.
 *
 * Regression gate: the baseline (default tests/conformance/baseline.txt when
 * present in the working directory) lists every "<variant> <test> <output>"
 * that is exact; the run fails (exit 1) when one of them is no longer exact
 * (or, without --only, is missing from the run), or when any output is wrong.
 * A missing or empty <node-dir> fails (exit 2): a run that compared nothing
 * must not pass.
 * Regenerate the committed files from the repository root with:
 *   build/conformance ../shared/onnx-backend/node \
 *       --write-baseline tests/conformance/baseline.txt --report tests/conformance/REPORT.md
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "expr/expr.h"
#include "onnx_shapes.h"
#include "onnx_shapes.pb-c.h"
#include "api/result.h"
#include "model/types.h"

/* Section - Small utilities */

static void die_oom(void) {
  fprintf(stderr, "conformance: out of memory\n");
  exit(2);
}

static void *xmalloc(size_t n) {
  void *p = malloc(n ? n : 1);
  if (!p) die_oom();
  return p;
}

static void *xrealloc(void *p, size_t n) {
  p = realloc(p, n ? n : 1);
  if (!p) die_oom();
  return p;
}

static char *xstrdup(const char *s) {
  size_t n = strlen(s) + 1;
  char *p = xmalloc(n);
  memcpy(p, s, n);
  return p;
}

/* Whole file in a malloc'd buffer, NULL when it cannot be read. */
static uint8_t *read_whole(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  size_t cap = 1 << 16, n = 0;
  uint8_t *buf = xmalloc(cap);
  for (;;) {
    if (n == cap) buf = xrealloc(buf, cap *= 2);
    size_t got = fread(buf + n, 1, cap - n, f);
    if (!got) break;
    n += got;
  }
  int bad = ferror(f);
  fclose(f);
  if (bad) {
    free(buf);
    return NULL;
  }
  *len = n;
  return buf;
}

static int is_dir(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static double now_sec(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Section - Bump allocator for protobuf-c
 *
 * Every message of a case (model, input and output tensors) is unpacked into
 * this arena and edited in place; pointers we splice in come from it too, so
 * nothing is freed piecemeal and one reset per case releases everything. */

typedef struct Chunk {
  struct Chunk *next;
  size_t used, cap;
  max_align_t data[];
} Chunk;

typedef struct {
  Chunk *head;
} Bump;

static void *bump_alloc(void *user, size_t n) {
  Bump *b = user;
  n = (n + sizeof(max_align_t) - 1) / sizeof(max_align_t) * sizeof(max_align_t);
  if (!b->head || b->head->cap - b->head->used < n) {
    size_t cap = n > (1u << 20) ? n : (1u << 20);
    Chunk *c = malloc(sizeof *c + cap);
    if (!c) return NULL;
    c->cap = cap;
    c->used = 0;
    c->next = b->head;
    b->head = c;
  }
  void *p = (char *)b->head->data + b->head->used;
  b->head->used += n;
  return p;
}

static void bump_free(void *user, void *p) {
  (void)user;
  (void)p;
}

static void bump_reset(Bump *b) {
  while (b->head) {
    Chunk *next = b->head->next;
    free(b->head);
    b->head = next;
  }
}

static Bump g_bump;
static ProtobufCAllocator g_pa = {bump_alloc, bump_free, &g_bump};

static void *balloc(size_t n) {
  void *p = bump_alloc(&g_bump, n);
  if (!p) die_oom();
  memset(p, 0, n);
  return p;
}

static char *bstrdup(const char *s) {
  size_t n = strlen(s) + 1;
  char *p = balloc(n);
  memcpy(p, s, n);
  return p;
}

/* Section - Variants, classes, records */

enum { V_PLAIN, V_SYMBOLIC, V_CONST, V_CONST_SYMBOLIC, V_COUNT };
static const char *const VARIANT_NAMES[V_COUNT] = {"plain", "symbolic", "const",
                                                   "const-symbolic"};

enum { C_EXACT, C_UNKNOWN, C_WRONG, C_ERROR, C_SKIPPED, C_COUNT };
static const char *const CLASS_NAMES[C_COUNT] = {"exact", "unknown", "wrong", "error",
                                                 "skipped"};

typedef struct {
  uint32_t test; /* index into g_tests */
  int32_t out;   /* graph output index */
  uint8_t variant, cls;
  const char *op; /* interned */
  char *why;      /* unknown outputs: inferred vs expected and the engine's reason (malloc'ed) */
} Record;

static char **g_tests;
static size_t g_n_tests, g_cap_tests;
static Record *g_recs;
static size_t g_n_recs, g_cap_recs;

typedef struct {
  const char *op;
  long counts[V_COUNT][C_COUNT];
} OpStats;

static OpStats *g_ops;
static size_t g_n_ops, g_cap_ops;
static long g_totals[V_COUNT][C_COUNT];
static long g_unparsed[V_COUNT]; /* cases whose model protobuf-c could not decode */
static long g_cases[V_COUNT];

static OpStats *op_stats(const char *op) {
  for (size_t i = 0; i < g_n_ops; i++)
    if (strcmp(g_ops[i].op, op) == 0) return &g_ops[i];
  if (g_n_ops == g_cap_ops) {
    g_cap_ops = g_cap_ops ? g_cap_ops * 2 : 64;
    g_ops = xrealloc(g_ops, g_cap_ops * sizeof *g_ops);
  }
  OpStats *s = &g_ops[g_n_ops++];
  memset(s, 0, sizeof *s);
  s->op = xstrdup(op);
  return s;
}

static void add_record(uint32_t test, int out, int variant, int cls, const char *op) {
  OpStats *s = op_stats(op);
  s->counts[variant][cls]++;
  g_totals[variant][cls]++;
  if (g_n_recs == g_cap_recs) {
    g_cap_recs = g_cap_recs ? g_cap_recs * 2 : 4096;
    g_recs = xrealloc(g_recs, g_cap_recs * sizeof *g_recs);
  }
  g_recs[g_n_recs++] = (Record){test, out, (uint8_t)variant, (uint8_t)cls, s->op, NULL};
}

/* Ops the engine registers (ai.onnx), to mark supported rows in the report. */
static const char *const SUPPORTED_OPS[] = {
#define OSI_OP(name, fn, since, cost) #name,
#include "ops/op_list_onnx.h"
#undef OSI_OP
};

static int op_supported(const char *op) {
  for (size_t i = 0; i < sizeof SUPPORTED_OPS / sizeof *SUPPORTED_OPS; i++)
    if (strcmp(SUPPORTED_OPS[i], op) == 0) return 1;
  return 0;
}

/* Section - Options */

static struct {
  const char *dir;
  int variants[V_COUNT];
  int verbose;
  const char *only;
  const char *report;
  const char *results;
  const char *baseline;
  int no_baseline;
  const char *write_baseline;
} opt;

/* Section - Crash reporting: name the case that took the runner down. */

static char g_crash_msg[512];

static void on_crash(int sig) {
  ssize_t w = write(2, g_crash_msg, strlen(g_crash_msg));
  (void)w;
  signal(sig, SIG_DFL);
  raise(sig);
}

/* Section - Expected data of one test */

typedef struct {
  int present;   /* the .pb parsed as a TensorProto */
  int32_t dtype; /* data_type */
  size_t rank;
  const int64_t *dims;
  Onnx__TensorProto *msg;
} PbTensor;

static PbTensor load_pb(const char *dir, const char *kind, size_t i) {
  PbTensor t = {0};
  char path[4096];
  snprintf(path, sizeof path, "%s/test_data_set_0/%s_%zu.pb", dir, kind, i);
  size_t len = 0;
  uint8_t *bytes = read_whole(path, &len);
  if (!bytes) return t;
  Onnx__TensorProto *m = onnx__tensor_proto__unpack(&g_pa, len, bytes);
  free(bytes);
  if (!m) return t;
  t.present = 1;
  t.dtype = m->has_data_type ? m->data_type : 0;
  t.rank = m->n_dims;
  t.dims = m->dims;
  t.msg = m;
  return t;
}

/* Section - Model editing */

static int is_tensor_type(const Onnx__TypeProto *tp) {
  return tp && tp->value_case == ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE && tp->tensor_type;
}

/* Drops every shape inside a type (nested element types too). */
static void strip_shapes(Onnx__TypeProto *tp, int depth) {
  if (!tp || depth > 32) return;
  switch (tp->value_case) {
  case ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE:
    if (tp->tensor_type) tp->tensor_type->shape = NULL;
    break;
  case ONNX__TYPE_PROTO__VALUE_SPARSE_TENSOR_TYPE:
    if (tp->sparse_tensor_type) tp->sparse_tensor_type->shape = NULL;
    break;
  case ONNX__TYPE_PROTO__VALUE_SEQUENCE_TYPE:
    if (tp->sequence_type) strip_shapes(tp->sequence_type->elem_type, depth + 1);
    break;
  case ONNX__TYPE_PROTO__VALUE_OPTIONAL_TYPE:
    if (tp->optional_type) strip_shapes(tp->optional_type->elem_type, depth + 1);
    break;
  case ONNX__TYPE_PROTO__VALUE_MAP_TYPE:
    if (tp->map_type) strip_shapes(tp->map_type->value_type, depth + 1);
    break;
  default:
    break;
  }
}

/* protobuf-c unpacks an empty bytes field as data == NULL and packs it with
 * memcpy(out, NULL, 0): harmless, but UBSan flags it in sanitized builds.
 * Points every empty attribute string of the graph (and subgraphs) at a byte. */
static uint8_t g_no_bytes[1];

static void fix_empty_bytes(Onnx__GraphProto *g, int depth) {
  if (!g || depth > 64) return;
  for (size_t i = 0; i < g->n_node; i++)
    for (size_t j = 0; j < g->node[i]->n_attribute; j++) {
      Onnx__AttributeProto *a = g->node[i]->attribute[j];
      if (a->has_s && !a->s.data) a->s.data = g_no_bytes;
      for (size_t k = 0; k < a->n_strings; k++)
        if (!a->strings[k].data) a->strings[k].data = g_no_bytes;
      fix_empty_bytes(a->g, depth + 1);
      for (size_t k = 0; k < a->n_graphs; k++) fix_empty_bytes(a->graphs[k], depth + 1);
    }
  for (size_t i = 0; i < g->n_initializer; i++)
    if (g->initializer[i]->has_raw_data && !g->initializer[i]->raw_data.data)
      g->initializer[i]->raw_data.data = g_no_bytes;
}

/* Symbol bindings for evaluating inferred dims. */
typedef struct {
  const char *name;
  int64_t value;
  int conflict;
} Binding;

typedef struct {
  Binding *b;
  size_t n, cap;
} Bindings;

static void bind(Bindings *bs, const char *name, int64_t v) {
  for (size_t i = 0; i < bs->n; i++)
    if (strcmp(bs->b[i].name, name) == 0) {
      if (bs->b[i].value != v) bs->b[i].conflict = 1;
      return;
    }
  if (bs->n == bs->cap) {
    bs->cap = bs->cap ? bs->cap * 2 : 16;
    bs->b = xrealloc(bs->b, bs->cap * sizeof *bs->b);
  }
  bs->b[bs->n++] = (Binding){name, v, 0};
}

static int lookup_binding(void *user, const char *name, int64_t *value) {
  const Bindings *bs = user;
  for (size_t i = 0; i < bs->n; i++)
    if (strcmp(bs->b[i].name, name) == 0) {
      if (bs->b[i].conflict) return 0;
      *value = bs->b[i].value;
      return 1;
    }
  return 0;
}

/* Data-carrying inputs the const variant folds into initializers. */
static int shape_like(const PbTensor *t) {
  if (!t->present) return 0;
  switch (t->dtype) {
  case OSI_DT_INT8: case OSI_DT_INT16: case OSI_DT_INT32: case OSI_DT_INT64:
  case OSI_DT_UINT8: case OSI_DT_UINT16: case OSI_DT_UINT32: case OSI_DT_UINT64:
    return 1;
  case OSI_DT_FLOAT: case OSI_DT_DOUBLE: case OSI_DT_FLOAT16: case OSI_DT_BFLOAT16: {
    int64_t n = 1;
    for (size_t i = 0; i < t->rank; i++) {
      if (t->dims[i] < 0 || t->dims[i] > 8) return 0;
      n *= t->dims[i];
    }
    return n <= 8;
  }
  default:
    return 0;
  }
}

/* Section - One test */

typedef struct {
  const char *name;
  const char *dir;
  uint32_t index;
  const uint8_t *model_bytes;
  size_t model_len;
  /* graph inputs that are not initializers, in order (names borrowed from a
   * first decode kept alive for the whole case) */
  size_t n_inputs;
  PbTensor *inputs;
  size_t n_outputs;
  PbTensor *outputs;
} Case;

static void type_str(OsiExprStore *s, const OsiType *t, const Bindings *bs, char *buf,
                     size_t cap) {
  size_t n = 0;
#define APP(...) \
  do { \
    int w_ = snprintf(buf + n, n < cap ? cap - n : 0, __VA_ARGS__); \
    if (w_ > 0) n += (size_t)w_; \
  } while (0)
  if (!t) {
    APP("(none)");
    return;
  }
  if (t->kind != OSI_KIND_TENSOR) {
    APP("(kind %d)", (int)t->kind);
    return;
  }
  const char *dn = osi_dtype_name(t->elem_type);
  APP("%s", dn ? dn : "?");
  if (t->rank < 0) {
    APP("[*]");
    return;
  }
  APP("[");
  for (int i = 0; i < t->rank; i++) {
    int64_t v;
    const char *txt = osi_expr_str(s, t->dims[i]);
    if (i) APP(",");
    if (osi_expr_is_const(s, t->dims[i], &v)) APP("%" PRId64, v);
    else if (osi_expr_eval(s, t->dims[i], lookup_binding, (void *)bs, &v) == 0)
      APP("%s=%" PRId64, txt, v);
    else APP("%s", txt);
  }
  APP("]");
#undef APP
}

static void expected_str(const PbTensor *e, char *buf, size_t cap) {
  size_t n = 0;
  const char *dn = osi_dtype_name(e->dtype);
  int w = snprintf(buf, cap, "%s[", dn ? dn : "?");
  if (w > 0) n += (size_t)w;
  for (size_t i = 0; i < e->rank && n < cap; i++) {
    w = snprintf(buf + n, cap - n, "%s%" PRId64, i ? "," : "", e->dims[i]);
    if (w > 0) n += (size_t)w;
  }
  if (n < cap) snprintf(buf + n, cap - n, "]");
}

/* exact / unknown / wrong for one tensor output. */
static int classify(OsiExprStore *s, const OsiType *t, const PbTensor *e, const Bindings *bs) {
  if (!t) return C_UNKNOWN;
  if (t->kind == OSI_KIND_UNKNOWN) return C_UNKNOWN;
  if (t->kind != OSI_KIND_TENSOR) return C_WRONG;
  int unknown = 0;
  if (t->elem_type == 0) unknown = 1;
  else if (t->elem_type != e->dtype) return C_WRONG;
  if (t->rank < 0) return C_UNKNOWN;
  if ((size_t)t->rank != e->rank) return C_WRONG;
  for (int i = 0; i < t->rank; i++) {
    int64_t v;
    if (t->dims[i] == OSI_EXPR_UNKNOWN) {
      unknown = 1;
      continue;
    }
    if (osi_expr_eval(s, t->dims[i], lookup_binding, (void *)bs, &v) != 0) {
      unknown = 1;
      continue;
    }
    if (v != e->dims[i]) return C_WRONG;
  }
  return unknown ? C_UNKNOWN : C_EXACT;
}

/* Producer op type of a value in the graph ("(input)" when none). */
static const char *producer_op(const Onnx__GraphProto *g, const char *name, char *buf,
                               size_t cap) {
  const Onnx__NodeProto *found = NULL;
  for (size_t i = 0; i < g->n_node; i++)
    for (size_t j = 0; j < g->node[i]->n_output; j++)
      if (strcmp(g->node[i]->output[j], name) == 0) found = g->node[i];
  if (!found) return "(input)";
  const char *dom = found->domain ? found->domain : "";
  const char *op = found->op_type ? found->op_type : "?";
  if (dom[0] && strcmp(dom, "ai.onnx") != 0) snprintf(buf, cap, "%s:%s", dom, op);
  else snprintf(buf, cap, "%s", op);
  return buf;
}

static int name_in_initializers(const Onnx__GraphProto *g, const char *name) {
  for (size_t i = 0; i < g->n_initializer; i++)
    if (g->initializer[i]->name && strcmp(g->initializer[i]->name, name) == 0) return 1;
  return 0;
}

static char g_dim_names[64][64][16]; /* "in<i>_d<j>" for small i, j */

static const char *dim_name(size_t i, size_t j) {
  if (i < 64 && j < 64) return g_dim_names[i][j];
  char buf[48];
  snprintf(buf, sizeof buf, "in%zu_d%zu", i, j);
  return bstrdup(buf);
}

/* "inferred X, expected Y: CODE: message" for the report, from the first
 * diagnostic that names a reason (the engine explains every unknown it
 * introduces; an unknown inherited from an unknown input has none). */
static char *unknown_reason(OsiResult *r, OsiExprStore *s, const OsiType *t, const PbTensor *e,
                            const Bindings *bs) {
  char got[512], want[512], buf[1400];
  type_str(s, t, bs, got, sizeof got);
  expected_str(e, want, sizeof want);
  const char *code = "", *msg = "no diagnostic";
  for (int i = 0; i < osi_result_diagnostic_count(r); i++) {
    code = osi_result_diagnostic_code(r, i);
    msg = osi_result_diagnostic_message(r, i);
    break;
  }
  snprintf(buf, sizeof buf, "inferred `%s`, expected `%s` | %s%s%.300s", got, want, code,
           code[0] ? ": " : "", msg);
  for (char *p = buf; *p; p++)
    if (*p == '\n') *p = ' ';
  size_t n = strlen(buf) + 1;
  char *out = xmalloc(n);
  memcpy(out, buf, n);
  return out;
}

/* Every backend model runs, so a shape check that fires on one is a false
 * alarm, and a requirement recorded on symbolic dims must hold at the
 * test's sizes (both fail the run). */
static long g_false_alarms[V_COUNT], g_false_requirements[V_COUNT];

static void check_no_alarm(OsiResult *r, OsiExprStore *s, const Case *c, int variant, const Bindings *bs) {
  for (int i = 0; i < osi_result_diagnostic_count(r); i++) {
    const char *code = osi_result_diagnostic_code(r, i);
    if (strcmp(code, "SHAPE_MISMATCH") != 0 && strcmp(code, "INVALID_MODEL") != 0) continue;
    g_false_alarms[variant]++;
    printf("FALSE ALARM [%s] %s: %s: %s\n", VARIANT_NAMES[variant], c->name, code,
           osi_result_diagnostic_message(r, i));
  }
  for (int i = 0; i < osi_result_requirement_count(r); i++) {
    const OsiRequirement *q = osi_result_requirement(r, i);
    int64_t a, b;
    if (osi_expr_eval(s, q->lhs, lookup_binding, (void *)bs, &a) != 0 ||
        osi_expr_eval(s, q->rhs, lookup_binding, (void *)bs, &b) != 0)
      continue;
    if (q->less_equal ? a <= b : a == b) continue;
    g_false_requirements[variant]++;
    printf("FALSE REQUIREMENT [%s] %s: node '%s' (%s) requires %s %s %s (%s), but the test has %lld and %lld\n",
           VARIANT_NAMES[variant], c->name, q->node, q->op_type, osi_expr_str(s, q->lhs),
           q->less_equal ? "<=" : "==", osi_expr_str(s, q->rhs), q->what, (long long)a, (long long)b);
  }
}

static void run_variant(const Case *c, int variant) {
  snprintf(g_crash_msg, sizeof g_crash_msg,
           "\nconformance: CRASH while running variant %s of %s\n", VARIANT_NAMES[variant],
           c->name);
  g_cases[variant]++;
  Onnx__ModelProto *m = onnx__model_proto__unpack(&g_pa, c->model_len, c->model_bytes);
  if (!m || !m->graph) {
    g_unparsed[variant]++;
    if (opt.verbose)
      printf("[%s] %s: model does not decode with protobuf-c; skipped\n",
             VARIANT_NAMES[variant], c->name);
    return;
  }
  Onnx__GraphProto *g = m->graph;
  int symbolic = variant == V_SYMBOLIC || variant == V_CONST_SYMBOLIC;
  int constant = variant == V_CONST || variant == V_CONST_SYMBOLIC;

  /* Expected output types, before stripping. */
  size_t n_out = g->n_output;
  int *out_is_tensor = xmalloc(n_out * sizeof *out_is_tensor);
  const char **out_names = xmalloc(n_out * sizeof *out_names);
  for (size_t k = 0; k < n_out; k++) {
    out_is_tensor[k] = is_tensor_type(g->output[k]->type);
    out_names[k] = g->output[k]->name ? g->output[k]->name : "";
    strip_shapes(g->output[k]->type, 0);
  }
  g->n_value_info = 0;
  g->value_info = NULL;

  Bindings bs = {0};
  /* Graph inputs: fold, symbolize, and record bindings. */
  size_t n_in = g->n_input, kept = 0, data_index = 0;
  Onnx__ValueInfoProto **new_inputs = balloc((n_in + 1) * sizeof *new_inputs);
  size_t n_init = g->n_initializer;
  Onnx__TensorProto **new_inits = balloc((n_init + n_in + 1) * sizeof *new_inits);
  if (n_init) memcpy(new_inits, g->initializer, n_init * sizeof *new_inits);
  for (size_t i = 0; i < n_in; i++) {
    Onnx__ValueInfoProto *vi = g->input[i];
    const char *iname = vi->name ? vi->name : "";
    if (name_in_initializers(g, iname)) {
      new_inputs[kept++] = vi;
      continue;
    }
    size_t di = data_index++;
    const PbTensor *pb = di < c->n_inputs ? &c->inputs[di] : NULL;
    int tensor = is_tensor_type(vi->type);
    if (constant && tensor && pb && shape_like(pb)) {
      Onnx__TensorProto *t = pb->msg;
      t->name = (char *)iname;
      if (t->has_raw_data && !t->raw_data.data) t->raw_data.data = g_no_bytes;
      new_inits[n_init++] = t;
      continue; /* the input is gone */
    }
    new_inputs[kept++] = vi;
    if (!tensor || !vi->type->tensor_type->shape) continue;
    Onnx__TensorShapeProto *sh = vi->type->tensor_type->shape;
    int pb_ok = pb && pb->present && pb->rank == sh->n_dim;
    for (size_t j = 0; j < sh->n_dim; j++) {
      Onnx__TensorShapeProto__Dimension *d = sh->dim[j];
      int has_val = 0;
      int64_t val = 0;
      if (pb_ok) has_val = 1, val = pb->dims[j];
      else if (d->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE)
        has_val = 1, val = d->dim_value;
      if (symbolic) {
        const char *nm = dim_name(di, j);
        d->value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM;
        d->dim_param = (char *)nm;
        if (has_val) bind(&bs, nm, val);
      } else if (d->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM &&
                 d->dim_param && d->dim_param[0] && pb_ok) {
        bind(&bs, d->dim_param, pb->dims[j]); /* a symbolic dim the model declares */
      }
    }
  }
  g->input = new_inputs;
  g->n_input = kept;
  g->initializer = new_inits;
  g->n_initializer = n_init;

  fix_empty_bytes(g, 0);
  size_t len = onnx__model_proto__get_packed_size(m);
  uint8_t *bytes = xmalloc(len);
  onnx__model_proto__pack(m, bytes);
  OsiResult *r = osi_infer(bytes, len, 0);
  free(bytes);
  if (!r) die_oom();
  int status = osi_result_status(r);
  OsiExprStore *s = osi_result_exprs(r);
  int diags_printed = 0;
  if (status != OSI_OK && opt.verbose)
    printf("[%s] %s: ERROR %s: %s%s%s\n", VARIANT_NAMES[variant], c->name,
           osi_status_name((OsiStatus)status), osi_result_error(r),
           osi_result_error_node(r)[0] ? " @ " : "", osi_result_error_node(r));

  if (status == OSI_OK) check_no_alarm(r, s, c, variant, &bs);

  for (size_t k = 0; k < n_out; k++) {
    char opbuf[256];
    const char *op = producer_op(g, out_names[k], opbuf, sizeof opbuf);
    const PbTensor *e = k < c->n_outputs ? &c->outputs[k] : NULL;
    int cls;
    const OsiType *t = NULL;
    if (status != OSI_OK) cls = C_ERROR;
    else if (!out_is_tensor[k] || !e || !e->present || e->dtype == 0) cls = C_SKIPPED;
    else {
      t = osi_result_lookup(r, out_names[k]);
      cls = classify(s, t, e, &bs);
    }
    add_record(c->index, (int)k, variant, cls, op);
    if (cls == C_UNKNOWN && opt.report) g_recs[g_n_recs - 1].why = unknown_reason(r, s, t, e, &bs);
    if (cls == C_WRONG || (opt.verbose && (cls == C_UNKNOWN))) {
      char got[1024], want[1024];
      type_str(s, t, &bs, got, sizeof got);
      expected_str(e, want, sizeof want);
      printf("%s[%s] %s output %zu '%s' (%s): inferred %s, expected %s\n",
             cls == C_WRONG ? "WRONG " : "", VARIANT_NAMES[variant], c->name, k, out_names[k],
             op, got, want);
      if (opt.verbose && !diags_printed) {
        diags_printed = 1;
        for (int i = 0; i < osi_result_diagnostic_count(r); i++)
          printf("    diagnostic %s: %s\n", osi_result_diagnostic_code(r, i),
                 osi_result_diagnostic_message(r, i));
      }
    }
  }
  osi_result_delete(r);
  free(bs.b);
  free(out_is_tensor);
  free(out_names);
}

static void run_case(const char *root, const char *name, uint32_t index) {
  char dir[4096], path[4200];
  snprintf(dir, sizeof dir, "%s/%s", root, name);
  snprintf(path, sizeof path, "%s/model.onnx", dir);
  size_t len = 0;
  uint8_t *bytes = read_whole(path, &len);
  if (!bytes) return;

  Case c = {0};
  c.name = name;
  c.dir = dir;
  c.index = index;
  c.model_bytes = bytes;
  c.model_len = len;
  /* Data files are loaded once into the arena and shared by the variants. */
  Onnx__ModelProto *m = onnx__model_proto__unpack(&g_pa, len, bytes);
  if (m && m->graph) {
    const Onnx__GraphProto *g = m->graph;
    size_t n = 0;
    for (size_t i = 0; i < g->n_input; i++)
      if (!name_in_initializers(g, g->input[i]->name ? g->input[i]->name : "")) n++;
    c.n_inputs = n;
    c.inputs = balloc((n + 1) * sizeof *c.inputs);
    for (size_t i = 0; i < n; i++) c.inputs[i] = load_pb(dir, "input", i);
    c.n_outputs = g->n_output;
    c.outputs = balloc((c.n_outputs + 1) * sizeof *c.outputs);
    for (size_t k = 0; k < c.n_outputs; k++) c.outputs[k] = load_pb(dir, "output", k);
  }
  for (int v = 0; v < V_COUNT; v++)
    if (opt.variants[v]) run_variant(&c, v);
  free(bytes);
  bump_reset(&g_bump);
}

/* Section - Baseline */

typedef struct {
  int variant;
  char *test;
  int out;
} BaseEntry;

static int rec_cmp(const void *pa, const void *pb) {
  const Record *a = pa, *b = pb;
  if (a->variant != b->variant) return a->variant < b->variant ? -1 : 1;
  int c = strcmp(g_tests[a->test], g_tests[b->test]);
  if (c) return c;
  return a->out < b->out ? -1 : a->out > b->out;
}

static int base_cmp(const void *pa, const void *pb) {
  const BaseEntry *a = pa, *b = pb;
  if (a->variant != b->variant) return a->variant < b->variant ? -1 : 1;
  int c = strcmp(a->test, b->test);
  if (c) return c;
  return a->out < b->out ? -1 : a->out > b->out;
}

static const Record *find_record(int variant, const char *test, int out) {
  size_t lo = 0, hi = g_n_recs;
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    const Record *r = &g_recs[mid];
    int c = r->variant != variant ? (r->variant < variant ? -1 : 1)
                                  : strcmp(g_tests[r->test], test);
    if (!c) c = r->out < out ? -1 : r->out > out;
    if (!c) return r;
    if (c < 0) lo = mid + 1;
    else hi = mid;
  }
  return NULL;
}

static int variant_index(const char *s) {
  for (int v = 0; v < V_COUNT; v++)
    if (strcmp(s, VARIANT_NAMES[v]) == 0) return v;
  return -1;
}

static BaseEntry *load_baseline(const char *path, size_t *count) {
  FILE *f = fopen(path, "r");
  if (!f) return NULL;
  BaseEntry *es = NULL;
  size_t n = 0, cap = 0;
  char line[1024];
  while (fgets(line, sizeof line, f)) {
    char vname[64], test[512];
    int out;
    if (line[0] == '#' || line[0] == '\n') continue;
    if (sscanf(line, "%63s %511s %d", vname, test, &out) != 3) continue;
    int v = variant_index(vname);
    if (v < 0) continue;
    if (n == cap) {
      cap = cap ? cap * 2 : 1024;
      es = xrealloc(es, cap * sizeof *es);
    }
    es[n++] = (BaseEntry){v, xstrdup(test), out};
  }
  fclose(f);
  qsort(es, n, sizeof *es, base_cmp);
  *count = n;
  return es ? es : xmalloc(1);
}

static int write_baseline(const char *path) {
  FILE *f = fopen(path, "w");
  if (!f) {
    fprintf(stderr, "conformance: cannot write %s: %s\n", path, strerror(errno));
    return 0;
  }
  fprintf(f, "# onnx-shapes conformance baseline: every \"<variant> <test> <output index>\"\n"
             "# whose inferred type is exact. The conformance run fails when one of them\n"
             "# is no longer exact. Regenerate (from the repository root) with\n"
             "#   build/conformance ../shared/onnx-backend/node --write-baseline "
             "tests/conformance/baseline.txt\n");
  for (size_t i = 0; i < g_n_recs; i++) {
    const Record *r = &g_recs[i];
    if (r->cls == C_EXACT)
      fprintf(f, "%s %s %d\n", VARIANT_NAMES[r->variant], g_tests[r->test], r->out);
  }
  fclose(f);
  return 1;
}

/* Section - Report */

static int op_cmp(const void *pa, const void *pb) {
  return strcmp(((const OpStats *)pa)->op, ((const OpStats *)pb)->op);
}

static void pct(char *buf, size_t cap, long num, long den) {
  if (den) snprintf(buf, cap, "%.1f%%", 100.0 * (double)num / (double)den);
  else snprintf(buf, cap, "-");
}

static void write_totals_row(FILE *f, const char *label, const long *c) {
  long compared = c[C_EXACT] + c[C_UNKNOWN] + c[C_WRONG] + c[C_ERROR];
  char p[32];
  pct(p, sizeof p, c[C_EXACT], compared);
  fprintf(f, "| %s | %ld | %ld | %ld | %ld | %ld | %ld | %s |\n", label, compared, c[C_EXACT],
          c[C_UNKNOWN], c[C_WRONG], c[C_ERROR], c[C_SKIPPED], p);
}

static int write_report(const char *path, size_t n_tests) {
  FILE *f = fopen(path, "w");
  if (!f) {
    fprintf(stderr, "conformance: cannot write %s: %s\n", path, strerror(errno));
    return 0;
  }
  fprintf(f,
          "# onnx-shapes conformance report\n\n"
          "Generated by `tests/c/conformance.c` over the ONNX backend node tests "
          "(%zu test cases%s%s%s). Regenerate from the repository root with:\n\n"
          "```sh\n"
          "cmake -S . -B build -DCMAKE_BUILD_TYPE=Release && cmake --build build -j2\n"
          "build/conformance ../shared/onnx-backend/node --report tests/conformance/REPORT.md\n"
          "```\n\n"
          "Each graph output is compared with `test_data_set_0/output_<k>.pb` "
          "(element type + dims):\n"
          "**exact** = everything known and equal; **unknown** = something unknown, nothing "
          "contradicting; **wrong** = a known fact that differs (a bug; must be 0); "
          "**error** = `osi_infer` failed on the case; **skipped** = non-tensor output or no "
          "expected tensor. The exact %% is over compared outputs (all but skipped). "
          "Outputs are attributed to the op type of the node producing them "
          "(for multi-node tests, e.g. `_expanded`, the last such node). "
          "Ops marked `*` are registered by the engine (`src/ops/op_list_onnx.h`).\n\n"
          "Variants: **plain** (declared output shapes and value_info removed), **symbolic** "
          "(every input dim replaced by a fresh `in<i>_d<j>` symbol, evaluated with the test "
          "input's real dims), **const** (integer inputs and float inputs of at most 8 "
          "elements turned into initializers holding the test data), **const-symbolic** "
          "(const, then the remaining inputs made symbolic).\n\n",
          n_tests, opt.only ? ", filtered by `" : "", opt.only ? opt.only : "",
          opt.only ? "`" : "");
  fprintf(f, "## Totals\n\n| variant | compared | exact | unknown | wrong | error | skipped | "
             "exact %% |\n|---|---:|---:|---:|---:|---:|---:|---:|\n");
  for (int v = 0; v < V_COUNT; v++)
    if (opt.variants[v]) write_totals_row(f, VARIANT_NAMES[v], g_totals[v]);
  fprintf(f, "\n");
  /* Supported vs. unsupported ops, plain variant first enabled. */
  qsort(g_ops, g_n_ops, sizeof *g_ops, op_cmp);
  for (int v = 0; v < V_COUNT; v++) {
    if (!opt.variants[v]) continue;
    long sup[C_COUNT] = {0}, uns[C_COUNT] = {0};
    for (size_t i = 0; i < g_n_ops; i++)
      for (int k = 0; k < C_COUNT; k++)
        (op_supported(g_ops[i].op) ? sup : uns)[k] += g_ops[i].counts[v][k];
    fprintf(f, "## Variant `%s`\n\n", VARIANT_NAMES[v]);
    if (g_unparsed[v])
      fprintf(f, "%ld model(s) did not decode with protobuf-c and were skipped.\n\n",
              g_unparsed[v]);
    fprintf(f, "| op | compared | exact | unknown | wrong | error | skipped | exact %% |\n"
               "|---|---:|---:|---:|---:|---:|---:|---:|\n");
    write_totals_row(f, "**all**", g_totals[v]);
    write_totals_row(f, "**registered ops**", sup);
    write_totals_row(f, "**other ops**", uns);
    for (size_t i = 0; i < g_n_ops; i++) {
      const long *c = g_ops[i].counts[v];
      long any = 0;
      for (int k = 0; k < C_COUNT; k++) any += c[k];
      if (!any) continue;
      char label[300];
      snprintf(label, sizeof label, "%s%s", g_ops[i].op, op_supported(g_ops[i].op) ? " *" : "");
      write_totals_row(f, label, c);
    }
    fprintf(f, "\n");
    /* Cases that need looking at. */
    for (int cls = C_WRONG; cls <= C_ERROR; cls++) {
      int header = 0;
      const char *last = NULL;
      for (size_t i = 0; i < g_n_recs; i++) {
        const Record *r = &g_recs[i];
        if (r->variant != v || r->cls != cls) continue;
        if (!header) {
          fprintf(f, "Tests with %s outputs:", CLASS_NAMES[cls]);
          header = 1;
        }
        if (last == g_tests[r->test]) continue;
        last = g_tests[r->test];
        fprintf(f, " `%s`", last);
      }
      if (header) fprintf(f, "\n\n");
    }
    if (v == V_PLAIN || v == V_CONST) {
      fprintf(f, "### Remaining unknown outputs (`%s`) and why\n\n| test | output | op | shapes | reason |\n|---|---:|---|---|---|\n",
              VARIANT_NAMES[v]);
      for (size_t i = 0; i < g_n_recs; i++) {
        const Record *r = &g_recs[i];
        if (r->variant != v || r->cls != C_UNKNOWN || !r->why) continue;
        fprintf(f, "| `%s` | %d | %s | %s |\n", g_tests[r->test], r->out, r->op, r->why);
      }
      fprintf(f, "\n");
    }
  }
  fclose(f);
  return 1;
}

static int write_results(const char *path) {
  FILE *f = fopen(path, "w");
  if (!f) {
    fprintf(stderr, "conformance: cannot write %s: %s\n", path, strerror(errno));
    return 0;
  }
  fprintf(f, "variant\ttest\toutput\top\tresult\n");
  for (size_t i = 0; i < g_n_recs; i++) {
    const Record *r = &g_recs[i];
    fprintf(f, "%s\t%s\t%d\t%s\t%s\n", VARIANT_NAMES[r->variant], g_tests[r->test], r->out,
            r->op, CLASS_NAMES[r->cls]);
  }
  fclose(f);
  return 1;
}

/* Section - main */

static int str_cmp(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

static void usage(void) {
  fprintf(stderr,
          "usage: conformance <onnx-backend-node-dir> [--variant "
          "plain|symbolic|const|const-symbolic|all]\n"
          "                   [--only SUBSTRING] [--verbose] [--report FILE] [--results FILE]\n"
          "                   [--baseline FILE | --no-baseline] [--write-baseline FILE]\n");
}

int main(int argc, char **argv) {
  int any_variant = 0;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    const char *val = i + 1 < argc ? argv[i + 1] : NULL;
#define NEED_VAL() \
  do { \
    if (!val) { \
      usage(); \
      return 2; \
    } \
    i++; \
  } while (0)
    if (strcmp(a, "--verbose") == 0 || strcmp(a, "-v") == 0) opt.verbose = 1;
    else if (strcmp(a, "--no-baseline") == 0) opt.no_baseline = 1;
    else if (strcmp(a, "--variant") == 0) {
      NEED_VAL();
      if (strcmp(val, "all") == 0) {
        for (int v = 0; v < V_COUNT; v++) opt.variants[v] = 1;
      } else {
        int v = variant_index(val);
        if (v < 0) {
          usage();
          return 2;
        }
        opt.variants[v] = 1;
      }
      any_variant = 1;
    } else if (strcmp(a, "--only") == 0) {
      NEED_VAL();
      opt.only = val;
    }
    else if (strcmp(a, "--report") == 0) {
      NEED_VAL();
      opt.report = val;
    }
    else if (strcmp(a, "--results") == 0) {
      NEED_VAL();
      opt.results = val;
    }
    else if (strcmp(a, "--baseline") == 0) {
      NEED_VAL();
      opt.baseline = val;
    }
    else if (strcmp(a, "--write-baseline") == 0) {
      NEED_VAL();
      opt.write_baseline = val;
    }
    else if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
      usage();
      return 0;
    } else if (a[0] == '-' && a[1]) {
      usage();
      return 2;
    } else if (!opt.dir) opt.dir = a;
    else {
      usage();
      return 2;
    }
#undef NEED_VAL
  }
  if (!any_variant)
    for (int v = 0; v < V_COUNT; v++) opt.variants[v] = 1;
  if (!opt.dir) {
    usage();
    return 2;
  }
  if (!is_dir(opt.dir)) {
    fprintf(stderr, "conformance: %s not found (the ONNX backend node tests; set OSI_SHARED_DIR)\n",
            opt.dir);
    return 2;
  }
  if (!opt.baseline && !opt.no_baseline) {
    const char *def = "tests/conformance/baseline.txt";
    if (access(def, R_OK) == 0) opt.baseline = def;
  }
  for (size_t i = 0; i < 64; i++)
    for (size_t j = 0; j < 64; j++)
      snprintf(g_dim_names[i][j], sizeof g_dim_names[i][j], "in%zu_d%zu", i, j);
  signal(SIGSEGV, on_crash);
  signal(SIGABRT, on_crash);
  signal(SIGFPE, on_crash);
  signal(SIGBUS, on_crash);

  /* Test list, sorted for deterministic output. */
  DIR *d = opendir(opt.dir);
  if (!d) {
    fprintf(stderr, "conformance: cannot open %s\n", opt.dir);
    return 2;
  }
  struct dirent *de;
  while ((de = readdir(d))) {
    if (de->d_name[0] == '.') continue;
    if (opt.only && !strstr(de->d_name, opt.only)) continue;
    char path[4200];
    snprintf(path, sizeof path, "%s/%s/model.onnx", opt.dir, de->d_name);
    if (access(path, R_OK) != 0) continue;
    if (g_n_tests == g_cap_tests) {
      g_cap_tests = g_cap_tests ? g_cap_tests * 2 : 1024;
      g_tests = xrealloc(g_tests, g_cap_tests * sizeof *g_tests);
    }
    g_tests[g_n_tests++] = xstrdup(de->d_name);
  }
  closedir(d);
  if (!g_n_tests) {
    fprintf(stderr, "conformance: no <test>/model.onnx under %s%s%s\n", opt.dir,
            opt.only ? " matching " : "", opt.only ? opt.only : "");
    return 2;
  }
  qsort(g_tests, g_n_tests, sizeof *g_tests, str_cmp);

  double t0 = now_sec();
  for (size_t i = 0; i < g_n_tests; i++) run_case(opt.dir, g_tests[i], (uint32_t)i);
  double elapsed = now_sec() - t0;
  qsort(g_recs, g_n_recs, sizeof *g_recs, rec_cmp);

  int fail = 0;
  long wrong = 0;
  for (int v = 0; v < V_COUNT; v++) wrong += g_totals[v][C_WRONG];
  if (wrong) {
    printf("conformance: FAIL: %ld wrong output(s) (each printed above as WRONG)\n", wrong);
    fail = 1;
  }

  long alarms = 0, false_reqs = 0;
  for (int v = 0; v < V_COUNT; v++) alarms += g_false_alarms[v], false_reqs += g_false_requirements[v];
  if (alarms || false_reqs) {
    printf("conformance: FAIL: %ld false alarm(s) and %ld false requirement(s) on valid models "
           "(each printed above)\n", alarms, false_reqs);
    fail = 1;
  }

  /* Regression gate. */
  if (opt.baseline) {
    size_t nb = 0;
    BaseEntry *be = load_baseline(opt.baseline, &nb);
    if (!be) {
      printf("conformance: cannot read baseline %s\n", opt.baseline);
      fail = 1;
    } else {
      long regressed = 0, improved = 0, absent = 0;
      for (size_t i = 0; i < nb; i++) {
        if (!opt.variants[be[i].variant]) continue;
        if (opt.only && !strstr(be[i].test, opt.only)) continue;
        const Record *r = find_record(be[i].variant, be[i].test, be[i].out);
        if (!r) {
          absent++;
          if (opt.verbose)
            printf("baseline: %s %s %d: test/output not found in this run\n",
                   VARIANT_NAMES[be[i].variant], be[i].test, be[i].out);
        } else if (r->cls != C_EXACT) {
          regressed++;
          printf("REGRESSION [%s] %s output %d (%s): was exact, now %s\n",
                 VARIANT_NAMES[be[i].variant], be[i].test, be[i].out, r->op,
                 CLASS_NAMES[r->cls]);
        }
      }
      for (size_t i = 0; i < g_n_recs; i++) {
        const Record *r = &g_recs[i];
        if (r->cls != C_EXACT) continue;
        BaseEntry key = {r->variant, g_tests[r->test], r->out};
        if (!bsearch(&key, be, nb, sizeof *be, base_cmp)) {
          improved++;
          if (opt.verbose)
            printf("improved [%s] %s output %d (%s)\n", VARIANT_NAMES[r->variant],
                   g_tests[r->test], r->out, r->op);
        }
      }
      printf("baseline %s: %ld regression(s), %ld improved%s", opt.baseline, regressed,
             improved, improved ? " (update the baseline with --write-baseline)" : "");
      if (absent) printf(", %ld entr%s not found in this run", absent, absent == 1 ? "y" : "ies");
      printf("\n");
      if (regressed) fail = 1;
      /* A whole run that misses baseline tests read less data than the baseline was made from. */
      if (absent && !opt.only) {
        printf("conformance: FAIL: %ld baseline entr%s missing: test data removed? (-v lists them)\n",
               absent, absent == 1 ? "y is" : "ies are");
        fail = 1;
      }
      for (size_t i = 0; i < nb; i++) free(be[i].test);
      free(be);
    }
  } else {
    printf("conformance: no baseline (regression gate off)\n");
  }

  if (opt.write_baseline) {
    if (opt.only || !(opt.variants[0] && opt.variants[1] && opt.variants[2] && opt.variants[3]))
      printf("conformance: warning: writing a baseline from a partial run (--only/--variant)\n");
    if (write_baseline(opt.write_baseline))
      printf("conformance: wrote baseline %s\n", opt.write_baseline);
    else fail = 1;
  }
  if (opt.report) {
    if (write_report(opt.report, g_n_tests)) printf("conformance: wrote report %s\n", opt.report);
    else fail = 1;
  }
  if (opt.results) {
    if (write_results(opt.results)) printf("conformance: wrote results %s\n", opt.results);
    else fail = 1;
  }

  printf("conformance: %zu tests in %.2fs; %s\n", g_n_tests, elapsed, fail ? "FAIL" : "OK");
  for (int v = 0; v < V_COUNT; v++) {
    if (!opt.variants[v]) continue;
    const long *c = g_totals[v];
    long compared = c[C_EXACT] + c[C_UNKNOWN] + c[C_WRONG] + c[C_ERROR];
    char p[32];
    pct(p, sizeof p, c[C_EXACT], compared);
    printf("conformance: %ld exact, %ld unknown, %ld wrong, %ld errors [%s: %s exact, %ld "
           "skipped, %ld undecodable models]\n",
           c[C_EXACT], c[C_UNKNOWN], c[C_WRONG], c[C_ERROR], VARIANT_NAMES[v], p, c[C_SKIPPED],
           g_unparsed[v]);
  }

  for (size_t i = 0; i < g_n_tests; i++) free(g_tests[i]);
  free(g_tests);
  free(g_recs);
  for (size_t i = 0; i < g_n_ops; i++) free((char *)g_ops[i].op);
  free(g_ops);
  return fail;
}
