#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ops/op_arity.h"

#include "base/thread_local.h"

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

/* Row after the last row of (domain, op): the table is sorted by domain, op,
 * version. */
static int rows_end(const char *domain, const char *op_type) {
  int lo = 0, hi = ROWS;
  while (lo < hi) {
    int mid = lo + (hi - lo) / 2;
    if (compare_key(domain, op_type, &ARITY[mid]) >= 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/* Every node is checked, and a model repeats a few op types: the rows of
 * the last (domain, op) found under each hash of the op type are kept, so a
 * hit costs two strcmp instead of a binary search's twenty. Per thread; an
 * entry is used only when its rows name domain and op_type, so it never
 * changes an answer. */
static OSI_THREAD_LOCAL struct {
  int begin, end; /* rows [begin, end); end 0: nothing kept */
} recent[64];

const OsiArity *osi_op_arity(const char *domain, const char *op_type, int64_t opset) {
  uint32_t h = 2166136261u;
  for (const unsigned char *p = (const unsigned char *)op_type; *p; p++) h = (h ^ *p) * 16777619u;
  size_t at = (h ^ (h >> 16)) & 63;
  int begin = recent[at].begin, end = recent[at].end;
  if (!end || compare_key(domain, op_type, &ARITY[end - 1]) != 0) {
    end = rows_end(domain, op_type);
    for (begin = end; begin > 0 && compare_key(domain, op_type, &ARITY[begin - 1]) == 0;) begin--;
    if (begin == end) return NULL;
    recent[at].begin = begin;
    recent[at].end = end;
  }
  /* the last row of (domain, op) whose version is not past `opset` */
  for (int i = end - 1; i >= begin; i--)
    if (ARITY[i].since <= opset) return &ARITY[i];
  return NULL;
}
