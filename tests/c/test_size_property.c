/*
 * Property test for size arithmetic under hostile attributes and inputs
 * ([3/5] item 1-2): every op with size arithmetic gets extreme values
 * (INT64_MAX/MIN, +-2^62, 2^31, -1, 0, 1, ...) in each size attribute or
 * size input, on a constant and on a symbolic input dim. What it asserts:
 * - no output ever has a negative dim;
 * - where the spec gives a formula, the result is checked against that
 *   formula computed in __int128: a valid size that fits int64 is that
 *   size (or unknown), an impossible one (negative, a convolution window
 *   that does not fit, a zero step) is an error, and one beyond int64 is
 *   unknown or an error, never a wrapped number;
 * - on a symbolic dim H the output expression, evaluated at H = 0, 1, 2, 3,
 *   5, 10, 1000, 2^40, 2^61, equals the formula wherever the formula is a
 *   valid size, and the recorded requirements exclude exactly the H where
 *   it is not.
 */
#include <stdio.h>
#include <string.h>

#include "expr/expr.h"
#include "op_harness.h"
#include "test.h"

typedef __int128 i128;

static const int64_t EXTREMES[] = {INT64_MAX, INT64_MAX - 1, INT64_MIN, INT64_MIN + 1, (int64_t)1 << 62,
                                   -((int64_t)1 << 62), (int64_t)1 << 31, -1, 0, 1, 2, 3, 7};
#define NX ((int)(sizeof EXTREMES / sizeof EXTREMES[0]))
static const int64_t HS[] = {0, 1, 2, 3, 5, 10, 1000, (int64_t)1 << 40, (int64_t)1 << 61};
#define NH ((int)(sizeof HS / sizeof HS[0]))

static int fits(i128 v) { return v >= INT64_MIN && v <= INT64_MAX; }

/* A formula's answer for one input size. */
typedef struct Ref {
  i128 out;
  int valid;  /* the model can run: out is a size (and attributes are legal) */
  int exotic; /* an intermediate quantity leaves int64: an error is acceptable */
} Ref;

typedef Ref (*RefFn)(i128 in, const i128 *p);

static int failures_reported;

static void fail(const char *label, const char *why, const char *got) {
  test_failures++;
  if (failures_reported++ < 400) fprintf(stderr, "%s: %s (got %s)\n", label, why, got);
}

static const char *txt(OpTest *t) { return op_out(t, 0); }
static int is_error(OpTest *t) { return !strncmp(op_out(t, 0), "error:", 6); }

/* No output of the last run has a negative constant dim. */
static void check_no_negative(OpTest *t, const char *label, int n_out) {
  for (int o = 0; o < n_out; o++) {
    if (!strncmp(op_out(t, o), "error:", 6)) continue;
    const OsiType *ty = op_out_type(t, o);
    for (int i = 0; ty && ty->kind == OSI_KIND_TENSOR && i < ty->rank; i++) {
      int64_t v;
      test_checks++;
      if (osi_expr_is_const(op_exprs(t), ty->dims[i], &v) && v < 0) fail(label, "negative dim", op_out(t, o));
    }
  }
}

/* Output `o` dim `k` of the last run (input dim a constant) against r. */
static void check_const(OpTest *t, const char *label, int o, int k, Ref r) {
  test_checks++;
  check_no_negative(t, label, o + 1);
  if (!strncmp(op_out(t, o), "error:", 6)) {
    if (r.valid && fits(r.out) && !r.exotic) fail(label, "a valid size was flagged", op_out(t, o));
    return;
  }
  if (!r.valid) {
    fail(label, "an impossible size was not flagged", op_out(t, o));
    return;
  }
  const OsiType *ty = op_out_type(t, o);
  int64_t v;
  if (!ty || ty->rank <= k || !osi_expr_is_const(op_exprs(t), ty->dims[k], &v)) return; /* unknown */
  if (!fits(r.out) || (i128)v != r.out) fail(label, "wrong (wrapped?) size", op_out(t, o));
}

static int lookup_h(void *user, const char *name, int64_t *value) {
  if (strcmp(name, "H")) return 0;
  *value = *(const int64_t *)user;
  return 1;
}

/* Output `o` dim `k` of the last run, on an input dim H, against the
 * formula at each H of HS; attrs_valid: the attributes alone are legal. */
static void check_symbolic(OpTest *t, const char *label, int o, int k, RefFn ref, const i128 *p, int attrs_valid) {
  test_checks++;
  check_no_negative(t, label, o + 1);
  if (!strncmp(op_out(t, o), "error:", 6)) {
    Ref any = ref(10, p);
    if (attrs_valid && !any.exotic) fail(label, "legal attributes were flagged on a symbolic input", op_out(t, o));
    return;
  }
  if (!attrs_valid) {
    fail(label, "illegal attributes were not flagged on a symbolic input", op_out(t, o));
    return;
  }
  const OsiType *ty = op_out_type(t, o);
  if (!ty || ty->rank <= k || ty->dims[k] == OSI_EXPR_UNKNOWN) return;
  for (int h = 0; h < NH; h++) {
    Ref r = ref(HS[h], p);
    int64_t v;
    int holds = op_requirements_hold(t, "H", HS[h]);
    int evaluates = osi_expr_eval(op_exprs(t), ty->dims[k], lookup_h, (void *)&HS[h], &v) == 0;
    char where[200];
    snprintf(where, sizeof where, "%s at H=%lld", label, (long long)HS[h]);
    if (r.valid && !holds && !r.exotic) fail(where, "a requirement excludes a valid size", op_out(t, o));
    if (!r.valid && holds && evaluates) fail(where, "no requirement excludes an impossible size", op_out(t, o));
    if (r.valid && holds && evaluates && (!fits(r.out) || (i128)v != r.out))
      fail(where, "the expression differs from the formula", op_out(t, o));
    if (holds && evaluates && v < 0) fail(where, "the expression is negative", op_out(t, o));
  }
}

/* Section - Sliding windows (Conv, MaxPool, AveragePool, ConvTranspose, MaxUnpool)
 * p = {pad_begin, pad_end, stride, dilation, kernel, ceil_mode / output_padding} */

static i128 floor_div(i128 a, i128 b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }
static i128 ceil_div(i128 a, i128 b) { return -floor_div(-a, b); }

static int window_attrs_valid(const i128 *p) { return p[0] >= 0 && p[1] >= 0 && p[2] >= 1 && p[3] >= 1 && p[4] >= 1; }

static int window_exotic(const i128 *p) {
  return !window_attrs_valid(p) || !fits(p[0] + p[1]) || !fits((p[4] - 1) * p[3] + 1);
}

static Ref conv_ref(i128 in, const i128 *p) {
  Ref r = {0, window_attrs_valid(p), window_exotic(p)};
  if (!r.valid) return r;
  i128 num = in + p[0] + p[1] - ((p[4] - 1) * p[3] + 1);
  r.valid = num >= 0; /* onnxruntime refuses an empty convolution output */
  r.out = r.valid ? num / p[2] + 1 : 0;
  return r;
}

/* onnxruntime's pool output: (in + pads - extent) / stride + 1 rounded
 * toward zero (C division), or up with ceil_mode; refused below 0, and on
 * an empty input unless the batch is empty too (it is 1 here). */
static Ref pool_ref(i128 in, const i128 *p) {
  Ref r = {0, window_attrs_valid(p), window_exotic(p)};
  if (!r.valid) return r;
  i128 num = in + p[0] + p[1] - ((p[4] - 1) * p[3] + 1);
  i128 out = (p[5] ? ceil_div(num, p[2]) : num / p[2]) + 1;
  if (p[5] && (out - 1) * p[2] >= in + p[0]) out -= 1;
  r.valid = out >= 0 && in >= 1;
  r.out = out;
  /* A last window dropped from the end padding is left unknown by the engine. */
  r.exotic |= p[5] && p[1] >= (p[4] - 1) * p[3] + 1;
  return r;
}

static Ref conv_transpose_ref(i128 in, const i128 *p) {
  Ref r = {0, window_attrs_valid(p), window_exotic(p)};
  if (!r.valid) return r;
  r.out = p[2] * (in - 1) + p[5] + ((p[4] - 1) * p[3] + 1) - p[0] - p[1];
  r.valid = r.out >= 1; /* onnxruntime refuses an empty output */
  return r;
}

/* MaxUnpool has no dilations: p[3] is not given to it. */
static Ref max_unpool_ref(i128 in, const i128 *p) {
  Ref r = {0, p[0] >= 0 && p[1] >= 0 && p[2] >= 1 && p[4] >= 1, !fits(p[0] + p[1])};
  if (!r.valid) return r;
  r.out = p[2] * (in - 1) + p[4] - p[0] - p[1];
  r.valid = r.out >= 0;
  return r;
}

/* One window op on [1,1,in] with the attributes p. */
static void run_window(OpTest *t, const char *op, const i128 *p, const char *x) {
  op_attr_ints(t, "pads", 2, (int64_t[]){(int64_t)p[0], (int64_t)p[1]});
  op_attr_ints(t, "strides", 1, (int64_t[]){(int64_t)p[2]});
  op_attr_ints(t, "kernel_shape", 1, (int64_t[]){(int64_t)p[4]});
  if (strcmp(op, "MaxUnpool")) op_attr_ints(t, "dilations", 1, (int64_t[]){(int64_t)p[3]});
  if (!strcmp(op, "MaxPool") || !strcmp(op, "AveragePool")) op_attr_int(t, "ceil_mode", (int64_t)p[5]);
  if (!strcmp(op, "ConvTranspose")) op_attr_ints(t, "output_padding", 1, (int64_t[]){(int64_t)p[5]});
  if (!strcmp(op, "Conv") || !strcmp(op, "ConvTranspose")) op_run(t, "", op, 11, x, "float[1,1,?]", NULL);
  else if (!strcmp(op, "MaxUnpool")) op_run(t, "", op, 11, x, !strcmp(x, "float[1,1,H]") ? "int64[1,1,H]" : "int64[1,1,3]", NULL);
  else op_run(t, "", op, 12, x, NULL);
}

/* ref: the size on the constant input cx; symref: on a symbolic input. */
static void window_cases(OpTest *t, const char *op, RefFn ref, RefFn symref, const char *cx, int64_t cin) {
  /* One attribute at a time at an extreme, the others ordinary (pads 1 and
   * 2, stride 2, dilation 1, kernel 3, ceil_mode / output_padding 0). */
  const i128 base[6] = {1, 2, 2, 1, 3, 0};
  for (int a = 0; a < 5; a++) {
    for (int v = 0; v < NX; v++) {
      i128 p[6];
      memcpy(p, base, sizeof p);
      p[a] = EXTREMES[v];
      for (int extra = 0; extra < 2; extra++) {
        if (extra) {
          if (!strcmp(op, "ConvTranspose")) p[5] = 1;
          else if (!strcmp(op, "MaxPool") || !strcmp(op, "AveragePool")) p[5] = 1;
          else break;
        }
        char label[160];
        snprintf(label, sizeof label, "%s %s=%lld%s", op, (const char *[]){"pad_begin", "pad_end", "stride", "dilation", "kernel"}[a],
                 (long long)EXTREMES[v], extra ? " (ceil_mode / output_padding 1)" : "");
        run_window(t, op, p, cx);
        check_const(t, label, 0, 2, ref(cin, p));
        run_window(t, op, p, "float[1,1,H]");
        check_symbolic(t, label, 0, 2, symref, p, symref(1000, p).valid || window_attrs_valid(p));
      }
    }
  }
  /* Both pads at once (their sum leaves int64). */
  for (int v = 0; v < NX; v++) {
    i128 p[6] = {EXTREMES[v], EXTREMES[v], 1, 1, 3, 0};
    char label[160];
    snprintf(label, sizeof label, "%s pads=%lld,%lld", op, (long long)EXTREMES[v], (long long)EXTREMES[v]);
    run_window(t, op, p, cx);
    check_const(t, label, 0, 2, ref(cin, p));
  }
}

/* Section - Size inputs and attributes with a formula */

static Ref pad_ref(i128 in, const i128 *p) {
  Ref r = {in + p[0] + p[1], 1, !fits(p[0] + p[1])};
  r.valid = r.out >= 0;
  return r;
}

static Ref tile_ref(i128 in, const i128 *p) {
  Ref r = {in * p[0], p[0] >= 0, 0};
  return r;
}

static void pad_tile_cases(OpTest *t) {
  for (int a = 0; a < NX; a++)
    for (int b = 0; b < NX; b++) {
      char label[128], pads[96];
      i128 p[2] = {EXTREMES[a], EXTREMES[b]};
      snprintf(pads, sizeof pads, "int64[2]{%lld,%lld}", (long long)EXTREMES[a], (long long)EXTREMES[b]);
      snprintf(label, sizeof label, "Pad %s", pads);
      op_run(t, "", "Pad", 13, "float[10]", pads, NULL);
      check_const(t, label, 0, 0, pad_ref(10, p));
      op_run(t, "", "Pad", 13, "float[H]", pads, NULL);
      check_symbolic(t, label, 0, 0, pad_ref, p, p[0] + p[1] > INT64_MIN); /* some int64 H can be cropped so */
    }
  for (int a = 0; a < NX; a++) {
    char label[128], rep[64];
    i128 p[1] = {EXTREMES[a]};
    snprintf(rep, sizeof rep, "int64[1]{%lld}", (long long)EXTREMES[a]);
    snprintf(label, sizeof label, "Tile %s", rep);
    op_run(t, "", "Tile", 13, "float[3]", rep, NULL);
    check_const(t, label, 0, 0, tile_ref(3, p));
    op_run(t, "", "Tile", 13, "float[H]", rep, NULL);
    check_symbolic(t, label, 0, 0, tile_ref, p, p[0] >= 0);
  }
}

static Ref size_ref(i128 in, const i128 *p) {
  (void)in;
  Ref r = {p[0], p[0] >= 0, 0};
  return r;
}

/* Ops whose output dim is a size given as is: ConstantOfShape, Expand,
 * Resize sizes, CenterCropPad, OneHot depth, TopK k, ConvTranspose
 * output_shape, Split sizes. */
static void given_size_cases(OpTest *t) {
  for (int a = 0; a < NX; a++) {
    i128 p[1] = {EXTREMES[a]};
    long long v = (long long)EXTREMES[a];
    char label[128], one[64], three[96], two[96];
    Ref r = size_ref(0, p);
    snprintf(one, sizeof one, "int64[1]{%lld}", v);
    snprintf(three, sizeof three, "int64[3]{1,1,%lld}", v);
    snprintf(label, sizeof label, "ConstantOfShape %s", one);
    op_run(t, "", "ConstantOfShape", 20, one, NULL);
    check_const(t, label, 0, 0, r);
    snprintf(label, sizeof label, "Expand to %s", one);
    op_run(t, "", "Expand", 13, "float[1]", one, NULL);
    check_const(t, label, 0, 0, r);
    snprintf(label, sizeof label, "Resize sizes %s", three);
    op_run(t, "", "Resize", 13, "float[1,1,4]", "", "", three, NULL);
    Ref rs = {p[0], p[0] >= 1, 0}; /* onnxruntime refuses a size 0 for a nonempty axis (scale 0) */
    check_const(t, label, 0, 2, rs);
    snprintf(label, sizeof label, "CenterCropPad %s", one);
    op_run(t, "", "CenterCropPad", 18, "float[10]", one, NULL);
    check_const(t, label, 0, 0, r);
    snprintf(label, sizeof label, "OneHot depth %lld", v);
    snprintf(two, sizeof two, "int64[]{%lld}", v);
    op_run(t, "", "OneHot", 11, "int64[3]", two, "float[2]", NULL);
    Ref depth = {p[0], p[0] >= 0, p[0] == 0};
    check_const(t, label, 0, 1, depth);
    snprintf(label, sizeof label, "TopK k=%lld", v);
    op_set_outputs(t, 2);
    op_run(t, "", "TopK", 11, "float[10]", one, NULL);
    Ref k = {p[0], p[0] >= 0 && p[0] <= 10, 0};
    check_const(t, label, 0, 0, k);
    check_no_negative(t, label, 2);
    snprintf(label, sizeof label, "ConvTranspose output_shape=%lld", v);
    op_attr_ints(t, "output_shape", 1, (int64_t[]){EXTREMES[a]});
    op_run(t, "", "ConvTranspose", 11, "float[1,1,5]", "float[1,1,3]", NULL);
    /* onnxruntime also refuses an input shorter than (output_shape - 3) / 1 + 1. */
    Ref os = {p[0], p[0] >= 1 && p[0] <= 7, 0};
    check_const(t, label, 0, 2, os);
    for (int b = 0; b < NX; b++) {
      char split[96];
      snprintf(split, sizeof split, "int64[2]{%lld,%lld}", v, (long long)EXTREMES[b]);
      snprintf(label, sizeof label, "Split %s of 15", split);
      op_set_outputs(t, 2);
      op_run(t, "", "Split", 13, "float[15]", split, NULL);
      Ref s0 = {p[0], p[0] >= 0 && EXTREMES[b] >= 0 && p[0] + EXTREMES[b] == 15, 0};
      Ref s1 = {EXTREMES[b], s0.valid, 0};
      check_const(t, label, 0, 0, s0);
      check_const(t, label, 1, 0, s1);
    }
  }
}

static Ref range_ref(i128 in, const i128 *p) {
  (void)in;
  Ref r = {0, p[2] != 0, 0};
  if (!r.valid) return r;
  i128 n = ceil_div(p[1] - p[0], p[2]);
  r.out = n > 0 ? n : 0;
  return r;
}

/* Slice of one axis of `dim` by the spec's clamping rules. */
static Ref slice_ref(i128 dim, const i128 *p) {
  Ref r = {0, p[2] != 0, 0};
  if (!r.valid) return r;
  i128 s = p[0] < 0 ? p[0] + dim : p[0], e = p[1] < 0 ? p[1] + dim : p[1];
  if (p[2] > 0) {
    s = s < 0 ? 0 : s > dim ? dim : s;
    e = e < 0 ? 0 : e > dim ? dim : e;
    r.out = e > s ? ceil_div(e - s, p[2]) : 0;
  } else if (dim == 0) {
    r.out = 0; /* [0, dim - 1] is empty: nothing to take (onnxruntime would take one) */
  } else {
    s = s < 0 ? 0 : s > dim - 1 ? dim - 1 : s;
    e = e < -1 ? -1 : e > dim - 1 ? dim - 1 : e;
    r.out = s > e ? ceil_div(s - e, -p[2]) : 0;
  }
  return r;
}

static void range_slice_cases(OpTest *t) {
  for (int a = 0; a < NX; a++)
    for (int b = 0; b < NX; b++)
      for (int c = 0; c < NX; c++) {
        i128 p[3] = {EXTREMES[a], EXTREMES[b], EXTREMES[c]};
        char label[160], s[3][48];
        for (int k = 0; k < 3; k++) snprintf(s[k], sizeof s[k], "int64[]{%lld}", (long long)p[k]);
        snprintf(label, sizeof label, "Range(%lld, %lld, %lld)", (long long)p[0], (long long)p[1], (long long)p[2]);
        op_run(t, "", "Range", 11, s[0], s[1], s[2], NULL);
        Ref r = range_ref(0, p);
        r.exotic = !fits(p[1] - p[0]); /* limit - start itself overflows int64 */
        check_const(t, label, 0, 0, r);
        for (int k = 0; k < 3; k++) snprintf(s[k], sizeof s[k], "int64[1]{%lld}", (long long)p[k]);
        snprintf(label, sizeof label, "Slice [%lld:%lld:%lld] of 10", (long long)p[0], (long long)p[1], (long long)p[2]);
        op_run(t, "", "Slice", 13, "float[10]", s[0], s[1], "int64[1]{0}", s[2], NULL);
        check_const(t, label, 0, 0, slice_ref(10, p));
        op_run(t, "", "Slice", 13, "float[H]", s[0], s[1], "int64[1]{0}", s[2], NULL);
        check_symbolic(t, label, 0, 0, slice_ref, p, p[2] != 0);
      }
}

/* Starts and ends around a dim of 10 (inside it, just past either end, far past): the extremes
 * above jump from -1 to -2^62, past every finite negative end a model writes (x[5:-20:-1]
 * takes 6 rows of 10, down to row 0, as numpy does: the end clamps to -1, not to 0). */
static const int64_t NEAR[] = {-25, -20, -12, -11, -10, -9, -5, -2, -1, 0, 1, 5, 8, 9, 10, 11, 12, 20};
#define NN ((int)(sizeof NEAR / sizeof NEAR[0]))

static void slice_near_cases(OpTest *t) {
  static const int64_t STEPS[] = {-3, -2, -1, 1, 2, 3};
  for (int a = 0; a < NN; a++)
    for (int b = 0; b < NN; b++)
      for (int c = 0; c < (int)(sizeof STEPS / sizeof STEPS[0]); c++) {
        i128 p[3] = {NEAR[a], NEAR[b], STEPS[c]};
        char label[160], s[3][48];
        for (int k = 0; k < 3; k++) snprintf(s[k], sizeof s[k], "int64[1]{%lld}", (long long)p[k]);
        snprintf(label, sizeof label, "Slice [%lld:%lld:%lld] of 10", (long long)p[0], (long long)p[1], (long long)p[2]);
        op_run(t, "", "Slice", 13, "float[10]", s[0], s[1], "int64[1]{0}", s[2], NULL);
        check_const(t, label, 0, 0, slice_ref(10, p));
        op_run(t, "", "Slice", 13, "float[H]", s[0], s[1], "int64[1]{0}", s[2], NULL);
        check_symbolic(t, label, 0, 0, slice_ref, p, 1);
      }
}

static void block_cases(OpTest *t) {
  for (int a = 0; a < NX; a++) {
    int64_t b = EXTREMES[a];
    char label[128];
    snprintf(label, sizeof label, "DepthToSpace blocksize %lld", (long long)b);
    op_attr_int(t, "blocksize", b);
    op_run(t, "", "DepthToSpace", 13, "float[1,8,2,3]", NULL);
    Ref r = {b >= 1 ? (i128)2 * b : 0, b >= 1 && 8 % ((i128)b * b) == 0, 0};
    check_const(t, label, 0, 2, r);
    snprintf(label, sizeof label, "SpaceToDepth blocksize %lld", (long long)b);
    op_attr_int(t, "blocksize", b);
    op_run(t, "", "SpaceToDepth", 13, "float[1,2,4,6]", NULL);
    Ref q = {b >= 1 ? 4 / b : 0, b >= 1 && 4 % b == 0 && 6 % b == 0, 0};
    check_const(t, label, 0, 2, q);
  }
}

/* Section - No negative dims from every other size attribute */

typedef struct Generic {
  const char *domain, *op;
  int opset, n_out;
  const char *attr; /* int attribute set to the extreme (or "ints2:name" for a 2-entry list) */
  const char *in[6];
} Generic;

static const Generic GENERIC[] = {
    {"", "RoiAlign", 16, 1, "output_height", {"float[1,3,8,8]", "float[4,4]", "int64[4]"}},
    {"", "RoiAlign", 16, 1, "output_width", {"float[1,3,8,8]", "float[4,4]", "int64[4]"}},
    {"", "MaxRoiPool", 1, 1, "ints2:pooled_shape", {"float[1,3,8,8]", "float[4,5]"}},
    {"", "RNN", 14, 2, "hidden_size", {"float[5,2,4]", "float[1,?,4]", "float[1,?,?]"}},
    {"", "GRU", 14, 2, "hidden_size", {"float[5,2,4]", "float[1,?,4]", "float[1,?,?]"}},
    {"", "LSTM", 14, 3, "hidden_size", {"float[5,2,4]", "float[1,?,4]", "float[1,?,?]"}},
    {"", "Multinomial", 7, 1, "sample_size", {"float[3,5]"}},
    {"", "RandomNormal", 1, 1, "ints2:shape", {NULL}},
    {"", "RandomUniform", 1, 1, "ints2:shape", {NULL}},
    {"", "EyeLike", 9, 1, "k", {"float[3,4]"}},
    {"", "TopK", 1, 2, "k", {"float[10]"}},
    {"", "Flatten", 13, 1, "axis", {"float[2,3,4]"}},
    {"", "Shape", 15, 1, "start", {"float[2,3,4]"}},
    {"", "Shape", 15, 1, "end", {"float[2,3,4]"}},
    {"", "Concat", 13, 1, "axis", {"float[2,3]", "float[2,3]"}},
    {"", "Gather", 13, 1, "axis", {"float[2,3]", "int64[4]"}},
    {"", "Split", 18, 2, "num_outputs", {"float[10]"}},
    {"", "Unsqueeze", 11, 1, "ints2:axes", {"float[2,3]"}},
    {"", "Squeeze", 11, 1, "ints2:axes", {"float[1,3]"}},
    {"", "ReduceSum", 11, 1, "ints2:axes", {"float[2,3]"}},
    {"", "DFT", 17, 1, "axis", {"float[1,16,1]"}},
    {"", "STFT", 17, 1, "onesided", {"float[1,64,1]", "int64[]{8}", "float[16]"}},
    {"", "HannWindow", 17, 1, "periodic", {"int64[]{10}"}},
    {"", "Col2Im", 18, 1, "ints2:strides", {"float[1,4,9]", "int64[2]{4,4}", "int64[2]{2,2}"}},
    {"", "Col2Im", 18, 1, "ints2:dilations", {"float[1,4,9]", "int64[2]{4,4}", "int64[2]{2,2}"}},
    {"", "Col2Im", 18, 1, "ints2:pads", {"float[1,4,9]", "int64[2]{4,4}", "int64[2]{2,2}"}},
    {"", "DeformConv", 19, 1, "ints2:pads", {"float[1,1,5,5]", "float[1,1,2,2]", "float[1,8,4,4]"}},
    {"", "DeformConv", 19, 1, "ints2:strides", {"float[1,1,5,5]", "float[1,1,2,2]", "float[1,8,4,4]"}},
    {"", "DeformConv", 19, 1, "ints2:dilations", {"float[1,1,5,5]", "float[1,1,2,2]", "float[1,8,4,4]"}},
    {"", "Attention", 23, 1, "q_num_heads", {"float[2,4,32]", "float[2,6,32]", "float[2,6,32]"}},
    {"", "RotaryEmbedding", 23, 1, "num_heads", {"float[2,3,32]", "float[50,4]", "float[50,4]", "int64[2,3]"}},
    {"", "RotaryEmbedding", 23, 1, "rotary_embedding_dim", {"float[2,4,3,8]", "float[50,4]", "float[50,4]", "int64[2,3]"}},
    {"", "GroupNormalization", 21, 1, "num_groups", {"float[1,4,5]", "float[4]", "float[4]"}},
    {"", "LinearAttention", 27, 2, "q_num_heads", {"float[2,4,32]", "float[2,4,32]", "float[2,4,32]"}},
    {"com.microsoft", "MultiHeadAttention", 1, 1, "num_heads", {"float[2,4,32]", "float[2,6,32]", "float[2,6,32]"}},
    {"com.microsoft", "GroupQueryAttention", 1, 3, "num_heads", {"float[2,4,64]", "float[2,4,32]", "float[2,4,32]"}},
    {"com.microsoft", "GroupQueryAttention", 1, 3, "kv_num_heads", {"float[2,4,64]", "float[2,4,32]", "float[2,4,32]"}},
    {"com.microsoft", "Attention", 1, 1, "num_heads", {"float[2,4,32]", "float[32,96]", "float[96]"}},
    {"com.microsoft", "NhwcMaxPool", 1, 1, "ints2:pads", {"float[1,8,8,3]"}},
    {"com.microsoft", "NhwcMaxPool", 1, 1, "ints2:strides", {"float[1,8,8,3]"}},
    {"com.microsoft", "NhwcMaxPool", 1, 1, "ints2:kernel_shape", {"float[1,8,8,3]"}},
    {"com.microsoft", "ConvTransposeWithDynamicPads", 1, 1, "ints2:strides", {"float[1,1,5,5]", "float[1,1,3,3]"}},
    {"com.microsoft", "ConvTransposeWithDynamicPads", 1, 1, "ints2:output_padding", {"float[1,1,5,5]", "float[1,1,3,3]"}},
    {"com.microsoft", "Unfold", 1, 1, "size", {"float[10,3]"}},
    {"com.microsoft", "Unfold", 1, 1, "step", {"float[10,3]"}},
    {"com.microsoft", "NGramRepeatBlock", 1, 1, "ngram_size", {"int64[2,5]", "float[2,10]"}},
    {"com.microsoft", "TorchEmbedding", 1, 1, "padding_idx", {"float[10,4]", "int64[2,3]"}},
};

static void generic_cases(OpTest *t) {
  for (size_t g = 0; g < sizeof GENERIC / sizeof GENERIC[0]; g++) {
    const Generic *c = &GENERIC[g];
    for (int a = 0; a < NX; a++)
      for (int b = 0; b < NX; b++) {
        int list = !strncmp(c->attr, "ints2:", 6);
        if (!list && b) break;
        const char *name = list ? c->attr + 6 : c->attr;
        if (list) op_attr_ints(t, name, 2, (int64_t[]){EXTREMES[a], EXTREMES[b]});
        else op_attr_int(t, name, EXTREMES[a]);
        op_set_outputs(t, c->n_out);
        const char *const *in = c->in;
        op_run(t, c->domain, c->op, c->opset, in[0], in[0] ? in[1] : NULL, in[0] && in[1] ? in[2] : NULL,
               in[0] && in[1] && in[2] ? in[3] : NULL, NULL);
        char label[160];
        snprintf(label, sizeof label, "%s %s=%lld%s", c->op, name, (long long)EXTREMES[a], list ? ",..." : "");
        check_no_negative(t, label, c->n_out);
      }
  }
  op_set_outputs(t, 1);
}

int main(void) {
  OpTest *t = op_test_new();
  window_cases(t, "Conv", conv_ref, conv_ref, "float[1,1,10]", 10);
  window_cases(t, "MaxPool", pool_ref, pool_ref, "float[1,1,10]", 10);
  window_cases(t, "AveragePool", pool_ref, pool_ref, "float[1,1,10]", 10);
  window_cases(t, "ConvTranspose", conv_transpose_ref, conv_transpose_ref, "float[1,1,5]", 5);
  window_cases(t, "MaxUnpool", max_unpool_ref, max_unpool_ref, "float[1,1,3]", 3);
  pad_tile_cases(t);
  given_size_cases(t);
  range_slice_cases(t);
  slice_near_cases(t);
  block_cases(t);
  generic_cases(t);
  op_test_free(t);
  (void)txt;
  (void)is_error;
  TEST_MAIN_END();
}
