#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ops/op_arity.h"

#define OSI_ARITY(domain, op, since, min_in, max_in, min_out, max_out, in_kinds, out_kinds) \
  {domain, op, since, min_in, max_in, min_out, max_out, in_kinds, out_kinds},
static const OsiArity ARITY[] = {
#include "ops/op_arity_table.h"
};
#undef OSI_ARITY

#define ROWS ((int)(sizeof ARITY / sizeof ARITY[0]))

static int compare_key(const char *domain, const char *op, const OsiArity *row) {
  int c = strcmp(domain, row->domain);
  return c ? c : strcmp(op, row->op);
}

const OsiArity *osi_op_arity(const char *domain, const char *op_type, int64_t opset) {
  /* The table is sorted by domain, op, version: find the last row of
   * (domain, op) whose version is not past `opset`. */
  int lo = 0, hi = ROWS; /* first row whose key is after (domain, op) */
  while (lo < hi) {
    int mid = lo + (hi - lo) / 2;
    if (compare_key(domain, op_type, &ARITY[mid]) >= 0) lo = mid + 1;
    else hi = mid;
  }
  for (int i = lo - 1; i >= 0 && compare_key(domain, op_type, &ARITY[i]) == 0; i--)
    if (ARITY[i].since <= opset) return &ARITY[i];
  return NULL;
}
