/* Sizes tried at small values of their symbols (samples.h). */
#include "infer/samples.h"

#include <string.h>

#define SAMPLE_SYMBOLS 16
#define SAMPLES 7

typedef struct Sample {
  const char *names[SAMPLE_SYMBOLS];
  int64_t values[SAMPLE_SYMBOLS];
  int n, too_many;
  const char *find;
  int found;
} Sample;

/* The names come from the expression store, which holds one symbol node,
 * and so one copy of its name, per name: a name is found by its address. */
static void sample_symbol(const char *name, void *user) {
  Sample *sm = user;
  if (sm->find && strcmp(sm->find, name) == 0) sm->found = 1;
  for (int i = 0; i < sm->n; i++)
    if (sm->names[i] == name) return;
  if (sm->n == SAMPLE_SYMBOLS) sm->too_many = 1;
  else sm->names[sm->n++] = name;
}

static int sample_lookup(void *user, const char *name, int64_t *value) {
  const Sample *sm = user;
  for (int i = 0; i < sm->n; i++)
    if (sm->names[i] == name) {
      *value = sm->values[i];
      return 1;
    }
  return 0;
}

int osi_expr_mentions(OsiExprStore *s, OsiExpr e, const char *name) {
  Sample sm = {.find = name};
  osi_expr_for_each_symbol(s, e, sample_symbol, &sm);
  return sm.found;
}

/* Whether a requirement of the top-level graph that the sample gives
 * values breaks: the model cannot run at those sizes. */
static int breaks_requirement(OsiExprStore *s, const OsiRequirements *req, Sample *sm) {
  for (int i = 0; req && i < req->count; i++) {
    int64_t x, y;
    if (req->items[i].path && req->items[i].path[0]) continue; /* a branch may not run */
    if (osi_expr_eval(s, req->items[i].lhs, sample_lookup, sm, &x) != 0 ||
        osi_expr_eval(s, req->items[i].rhs, sample_lookup, sm, &y) != 0)
      continue;
    if (req->items[i].less_equal ? x > y : x != y) return 1;
  }
  return 0;
}

/* Whether a == b (le: a <= b) at a few small sizes of their symbols (all
 * 0, and six spreads of 1..10), counting only sizes where both are
 * defined; at least one must be. Sizes at which a requirement of the model
 * breaks do not count against it (Reshape(x, [b//3, 3*vocab]) requires b
 * to be a multiple of 3, so 3*(b//3) names b). Not a proof: it tells a
 * declaration that can name one size (whatever the sizes a model really
 * takes) from one that contradicts inference at ordinary sizes. */
int osi_holds_on_samples(OsiExprStore *s, const OsiRequirements *req, OsiExpr a, OsiExpr b, int le) {
  Sample sm = {0};
  osi_expr_for_each_symbol(s, a, sample_symbol, &sm);
  osi_expr_for_each_symbol(s, b, sample_symbol, &sm);
  if (sm.too_many) return 0;
  int defined = 0;
  for (int k = 0; k < SAMPLES; k++) {
    for (int j = 0; j < sm.n; j++) sm.values[j] = k == 0 ? 0 : 1 + (7 * j + 3 * k + j * k) % 10;
    int64_t va, vb;
    if (osi_expr_eval(s, a, sample_lookup, &sm, &va) != 0 || osi_expr_eval(s, b, sample_lookup, &sm, &vb) != 0)
      continue;
    if (le ? va > vb : va != vb) {
      if (!breaks_requirement(s, req, &sm)) return 0;
      continue;
    }
    defined++;
  }
  return defined > 0;
}
