/* Shape rules of LayerNormalization, GroupNormalization,
 * InstanceNormalization and RMSNormalization, with symbolic inputs. */
#include "op_harness.h"
#include "test.h"

#define IS_ERR(text, code) (!strncmp((text), "error:" code, strlen("error:" code)))

static void test_layer_norm(OpTest *t) {
  CHECK_STR(op_run(t, "", "LayerNormalization", 17, "float16[B,S,D]", "float16[D]", "float16[D]", NULL),
            "float16[B,S,D]");
  /* Statistics keep the dims before axis and are 1 from axis on; float by default. */
  op_set_outputs(t, 3);
  CHECK_STR(op_run(t, "", "LayerNormalization", 17, "float16[B,S,D]", "float16[D]", NULL), "float16[B,S,D]");
  CHECK_STR(op_out(t, 1), "float[B,S,1]");
  CHECK_STR(op_out(t, 2), "float[B,S,1]");
  op_set_outputs(t, 3);
  op_attr_int(t, "axis", 1);
  op_attr_int(t, "stash_type", 16);
  CHECK_STR(op_run(t, "", "LayerNormalization", 17, "bfloat16[N,C,0]", "bfloat16[C,0]", NULL),
            "bfloat16[N,C,0]");
  CHECK_STR(op_out(t, 1), "bfloat16[N,1,1]");
  op_set_outputs(t, 2);
  op_attr_int(t, "axis", -3);
  CHECK_STR(op_run(t, "", "LayerNormalization", 17, "float[N,C,H]", "float[N,C,H]", NULL), "float[N,C,H]");
  CHECK_STR(op_out(t, 1), "float[1,1,1]");
  op_set_outputs(t, 3);
  CHECK_STR(op_run(t, "", "LayerNormalization", 17, "float[*]", "float[D]", NULL), "float[*]");
  CHECK_STR(op_out(t, 2), "float[*]");
  op_attr_int(t, "axis", 2);
  CHECK(IS_ERR(op_run(t, "", "LayerNormalization", 17, "float[N,D]", "float[D]", NULL), "INVALID_MODEL"));
}

static void test_channel_norms(OpTest *t) {
  op_attr_int(t, "num_groups", 4);
  CHECK_STR(op_run(t, "", "GroupNormalization", 21, "float[N,C,H,W]", "float[C]", "float[C]", NULL),
            "float[N,C,H,W]");
  op_attr_int(t, "num_groups", 2);
  CHECK_STR(op_run(t, "", "GroupNormalization", 18, "float16[N,C,L]", "float16[2]", "float16[2]", NULL),
            "float16[N,C,L]");
  CHECK_STR(op_run(t, "", "InstanceNormalization", 6, "double[N,C,H,W]", "double[C]", "double[C]", NULL),
            "double[N,C,H,W]");
  CHECK_STR(op_run(t, "", "InstanceNormalization", 22, "float[*]", "float[C]", "float[C]", NULL), "float[*]");
  CHECK(IS_ERR(op_run(t, "", "InstanceNormalization", 6, "float[C]", "float[C]", "float[C]", NULL),
               "SHAPE_MISMATCH"));
}

static void test_rms_norm(OpTest *t) {
  /* Y takes scale's element type (V) and X's shape. */
  CHECK_STR(op_run(t, "", "RMSNormalization", 23, "float16[B,S,D]", "float[D]", NULL), "float[B,S,D]");
  op_attr_int(t, "axis", -2);
  CHECK_STR(op_run(t, "", "RMSNormalization", 23, "float[B,S,D]", "float[S,D]", NULL), "float[B,S,D]");
  CHECK_STR(op_run(t, "", "RMSNormalization", 23, "float[*]", "float[D]", NULL), "float[*]");
  op_attr_int(t, "axis", 3);
  CHECK(IS_ERR(op_run(t, "", "RMSNormalization", 23, "float[B,S,D]", "float[D]", NULL), "INVALID_MODEL"));
}

int main(void) {
  OpTest *t = op_test_new();
  test_layer_norm(t);
  test_channel_norms(t);
  test_rms_norm(t);
  op_test_free(t);
  TEST_MAIN_END();
}
