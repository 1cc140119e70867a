/* Shape rules of RNN, GRU and LSTM, with symbolic inputs. */
#include "op_harness.h"
#include "test.h"

static void test_layouts(OpTest *t) {
  /* layout 0: Y [seq, dirs, batch, hidden], Y_h [dirs, batch, hidden]. */
  op_set_outputs(t, 2);
  op_attr_int(t, "hidden_size", 16);
  CHECK_STR(op_run(t, "", "RNN", 14, "float[S,N,8]", "float[1,16,8]", "float[1,16,16]", NULL),
            "float[S,1,N,16]");
  CHECK_STR(op_out(t, 1), "float[1,N,16]");
  /* layout 1 (opset 14): Y [batch, seq, dirs, hidden], Y_h [batch, dirs, hidden]. */
  op_set_outputs(t, 2);
  op_attr_int(t, "layout", 1);
  op_attr_str(t, "direction", "bidirectional");
  CHECK_STR(op_run(t, "", "GRU", 14, "float[N,S,I]", "float[2,3*H,I]", "float[2,3*H,H]", NULL),
            "float[N,S,2,H]");
  CHECK_STR(op_out(t, 1), "float[N,2,H]");
  /* Before opset 14 there is no layout: an attribute named so is ignored. */
  op_attr_int(t, "layout", 1);
  CHECK_STR(op_run(t, "", "GRU", 7, "float[S,N,I]", "float[1,3*H,I]", "float[1,3*H,H]", NULL),
            "float[S,1,N,H]");
}

static void test_lstm(OpTest *t) {
  /* Three outputs; Y_c like Y_h. Hidden size from R when the attribute is absent. */
  op_set_outputs(t, 3);
  op_attr_str(t, "direction", "reverse");
  CHECK_STR(op_run(t, "", "LSTM", 22, "float[S,B,I]", "float[1,4*H,I]", "float[1,4*H,H]", NULL),
            "float[S,1,B,H]");
  CHECK_STR(op_out(t, 1), "float[1,B,H]");
  CHECK_STR(op_out(t, 2), "float[1,B,H]");
  /* Hidden size from W dim 1 / 4 when R is unknown. */
  op_set_outputs(t, 3);
  CHECK_STR(op_run(t, "", "LSTM", 22, "float[S,B,I]", "float[1,28,I]", "float[*]", NULL),
            "float[S,1,B,7]");
  /* ... but not from a W dim 1 that is not a multiple of the gate count. */
  CHECK_STR(op_run(t, "", "LSTM", 22, "float[S,B,I]", "float[1,30,I]", "float[*]", NULL),
            "float[S,1,B,?]");
  /* Omitted Y: only Y_h is published. */
  op_set_outputs(t, 2);
  op_attr_int(t, "hidden_size", 3);
  op_run(t, "", "LSTM", 22, "float[1,2,4]", "float[1,12,4]", "float[1,12,3]", "float[1,24]", "int32[2]",
         "float[1,2,3]", "float[1,2,3]", "float[1,9]", NULL);
  CHECK_STR(op_out(t, 1), "float[1,2,3]");
}

static void test_unknowns_and_errors(OpTest *t) {
  /* Unknown X: batch from initial_h, seq unknown. */
  op_set_outputs(t, 2);
  CHECK_STR(op_run(t, "", "RNN", 22, "float[*]", "float[1,H,I]", "float[1,H,H]", "", "", "float[1,B,H]", NULL),
            "float[?,1,B,H]");
  CHECK_STR(op_out(t, 1), "float[1,B,H]");
  /* Zero-length sequence and zero batch stay as they are. */
  CHECK_STR(op_run(t, "", "RNN", 22, "float[0,0,4]", "float[1,5,4]", "float[1,5,5]", NULL), "float[0,1,0,5]");
  CHECK(!strncmp(op_run(t, "", "RNN", 22, "float[S,N]", "float[1,5,4]", "float[1,5,5]", NULL),
                 "error:SHAPE_MISMATCH", 20));
  op_attr_str(t, "direction", "bidirectional");
  CHECK(!strncmp(op_run(t, "", "RNN", 22, "float[S,N,4]", "float[1,5,4]", "float[1,5,5]", NULL),
                 "error:SHAPE_MISMATCH", 20));
  op_attr_int(t, "hidden_size", 6);
  CHECK(!strncmp(op_run(t, "", "GRU", 22, "float[S,N,4]", "float[1,18,4]", "float[1,18,5]", NULL),
                 "error:SHAPE_MISMATCH", 20));
  op_attr_str(t, "direction", "sideways");
  CHECK(!strncmp(op_run(t, "", "RNN", 22, "float[S,N,4]", NULL), "error:INVALID_MODEL", 19));
  op_attr_int(t, "layout", 2);
  CHECK(!strncmp(op_run(t, "", "RNN", 22, "float[S,N,4]", NULL), "error:INVALID_MODEL", 19));
}

int main(void) {
  OpTest *t = op_test_new();
  test_layouts(t);
  test_lstm(t);
  test_unknowns_and_errors(t);
  op_test_free(t);
  TEST_MAIN_END();
}
