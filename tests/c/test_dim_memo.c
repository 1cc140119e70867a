/*
 * The decoders' dim_param memo (model_build.h, osi_mb_dim): a text read
 * again gives what parsing it again would, and leaves the store as parsing
 * it again would: the same expression, the same budget left, the same
 * verdict once the budget runs out, whatever the budget (unbounded, a
 * little over one text's cap, or running out part way through the texts).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decode/model_build.h"
#include "expr/expr.h"
#include "test.h"

/* Exporters' names, repeated as they are (a Llama export: batch_size 132
 * times, each If branch's names twice), sums and floors that take some
 * work, texts past the memo's length, and names that are no expression. */
static const char *const TEXTS[] = {
    "batch_size",
    "past_sequence_length",
    "batch_size",
    "past_sequence_length + 1",
    "Squeeze/layers.0/self_attn/Squeeze_output_0_dim_0",
    "Squeeze/layers.0/self_attn/Squeeze_output_0_dim_0",
    "N//2//3//4//5//6//7//8//9//10//11//12//13//14//15//16",
    "(N+1)//2 + N//2",
    "N//2//3//4//5//6//7//8//9//10//11//12//13//14//15//16",
    "past_sequence_length + 1",
    "CeilDiv(CeilDiv(CeilDiv(CeilDiv(CeilDiv(CeilDiv(CeilDiv(N,2),2),2),2),2),2),2) + Max(a, b) * 3",
    "CeilDiv(CeilDiv(CeilDiv(CeilDiv(CeilDiv(CeilDiv(CeilDiv(N,2),2),2),2),2),2),2) + Max(a, b) * 3",
    "(N+1)//2 + N//2",
    "2.5*seq",
    "2.5*seq",
    "batch_size",
    "Max(seq, 1) + Min(seq, past)//2",
    "Max(seq, 1) + Min(seq, past)//2",
};
#define N_TEXTS (sizeof TEXTS / sizeof *TEXTS)
#define ROUNDS 3 /* the texts read this many times over */

/* Reads the texts ROUNDS times into a fresh store whose budget is `budget`,
 * with the memo or without; each step's expression (as text), budget left
 * and run-out flag go to out[step]. */
typedef struct Step {
  char expr[160];
  uint64_t left;
  int out;
} Step;

static void read_texts(uint64_t budget, int with_memo, Step *out) {
  OsiExprStore *s = osi_expr_store_new();
  OsiMbDimMemo memo = {0};
  osi_expr_set_work_budget(s, budget);
  for (size_t r = 0, k = 0; r < ROUNDS; r++) {
    for (size_t i = 0; i < N_TEXTS; i++, k++) {
      OsiExpr e = osi_mb_dim(s, with_memo ? &memo : NULL, OSI_MB_DIM_PARAM, 0, TEXTS[i]);
      const char *str = e == OSI_EXPR_UNKNOWN ? "?" : osi_expr_str(s, e);
      snprintf(out[k].expr, sizeof out[k].expr, "%s", str ? str : "(null)");
      out[k].left = osi_expr_work_left(s);
      out[k].out = osi_expr_work_exhausted(s);
    }
  }
  osi_mb_dim_memo_free(&memo);
  osi_expr_store_delete(s);
}

static int same_steps(uint64_t budget) {
  Step plain[N_TEXTS * ROUNDS], memo[N_TEXTS * ROUNDS];
  read_texts(budget, 0, plain);
  read_texts(budget, 1, memo);
  for (size_t k = 0; k < N_TEXTS * ROUNDS; k++) {
    if (strcmp(plain[k].expr, memo[k].expr) || plain[k].left != memo[k].left || plain[k].out != memo[k].out) {
      fprintf(stderr, "  budget %llu, step %zu (%s): parsed %s left %llu out %d, memo %s left %llu out %d\n",
              (unsigned long long)budget, k, TEXTS[k % N_TEXTS], plain[k].expr,
              (unsigned long long)plain[k].left, plain[k].out, memo[k].expr,
              (unsigned long long)memo[k].left, memo[k].out);
      return 0;
    }
  }
  return 1;
}

static void test_memo_changes_nothing(void) {
  /* What all the reads take, unbounded. */
  Step steps[N_TEXTS * ROUNDS];
  read_texts(UINT64_MAX, 0, steps);
  uint64_t all = UINT64_MAX - steps[N_TEXTS * ROUNDS - 1].left;
  CHECK(all > 0);
  CHECK(strcmp(steps[0].expr, "batch_size") == 0);
  CHECK(same_steps(UINT64_MAX));
  uint64_t cap = OSI_EXPR_WORK_PER_TEXT;
  /* Budgets that leave the cap, one step less or one step more just after
   * each read: where the memo stops being used, and where the budget runs
   * out in the next read. */
  for (size_t k = 0; k < N_TEXTS * ROUNDS; k++) {
    uint64_t t = UINT64_MAX - steps[k].left;
    if (!same_steps(cap + t - 1) || !same_steps(cap + t) || !same_steps(cap + t + 1) ||
        !same_steps(t) || !same_steps(t + 1)) {
      CHECK(0);
      break;
    }
  }
  CHECK(same_steps(cap));
  CHECK(same_steps(cap / 2));
  CHECK(same_steps(all));
  CHECK(same_steps(1));
  CHECK(same_steps(0));
}

/* The memo is used: a text read again takes no parse, and still its work. */
static void test_memo_is_used(void) {
  OsiExprStore *s = osi_expr_store_new();
  OsiMbDimMemo memo = {0};
  const char *text = "N//2//3//4//5//6//7//8//9//10//11//12//13//14//15//16";
  OsiExpr first = osi_mb_dim(s, &memo, OSI_MB_DIM_PARAM, 0, text);
  uint64_t after_first = osi_expr_work_left(s);
  CHECK(memo.slot != NULL);
  OsiExpr again = osi_mb_dim(s, &memo, OSI_MB_DIM_PARAM, 0, text);
  CHECK(again == first);
  CHECK(UINT64_MAX - after_first == after_first - osi_expr_work_left(s));
  osi_mb_dim_memo_free(&memo);
  CHECK(memo.slot == NULL);
  osi_expr_store_delete(s);
}

int main(void) {
  test_memo_changes_nothing();
  test_memo_is_used();
  TEST_MAIN_END();
}
