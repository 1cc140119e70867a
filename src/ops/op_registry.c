#include "ops/op_registry.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/thread_local.h"

/* Declarations of every shape function named in the lists. */
#define OSI_OP(name, fn, since, cost) OsiStatus fn(OsiOpCtx *ctx);
#include "ops/op_list_onnx.h"
#include "ops/op_list_ml.h"
#include "ops/op_list_training.h"
#include "ops/op_list_preview.h"
#include "ops/op_list_contrib.h"
#undef OSI_OP

/* Each table ends with a NULL row so that a list may be empty while it is
 * being filled; the row is not counted. */
#define OSI_OP(name, fn, since, cost) {#name, fn, since},
static const OsiOpEntry ONNX_OPS[] = {
#include "ops/op_list_onnx.h"
    {NULL, NULL, 0}};
static const OsiOpEntry ML_OPS[] = {
#include "ops/op_list_ml.h"
    {NULL, NULL, 0}};
static const OsiOpEntry TRAINING_OPS[] = {
#include "ops/op_list_training.h"
    {NULL, NULL, 0}};
static const OsiOpEntry PREVIEW_OPS[] = {
#include "ops/op_list_preview.h"
    {NULL, NULL, 0}};
static const OsiOpEntry CONTRIB_OPS[] = {
#include "ops/op_list_contrib.h"
    {NULL, NULL, 0}};
#undef OSI_OP

#define ROWS(table) ((int)(sizeof table / sizeof table[0]) - 1)

/*  domain ("" is ai.onnx)       table         rows                 newest opset */
static const OsiOpDomain DOMAINS[] = {
    {"", ONNX_OPS, ROWS(ONNX_OPS), 28},
    {"ai.onnx.ml", ML_OPS, ROWS(ML_OPS), 5},
    {"ai.onnx.preview.training", TRAINING_OPS, ROWS(TRAINING_OPS), 1},
    {"ai.onnx.preview", PREVIEW_OPS, ROWS(PREVIEW_OPS), 1},
    {"com.microsoft", CONTRIB_OPS, ROWS(CONTRIB_OPS), 1},
};

const OsiOpDomain *osi_op_domains(int *count) {
  *count = (int)(sizeof DOMAINS / sizeof DOMAINS[0]);
  return DOMAINS;
}

const OsiOpDomain *osi_op_domain(const char *domain) {
  int n;
  const OsiOpDomain *d = osi_op_domains(&n);
  for (int i = 0; i < n; i++)
    if (strcmp(d[i].domain, domain) == 0) return &d[i];
  return NULL;
}

static int compare_entry(const void *key, const void *entry) {
  return strcmp((const char *)key, ((const OsiOpEntry *)entry)->name);
}

/* A model repeats a few op types over thousands of nodes: the last lookup
 * of each (by a hash of the name) is kept, and a hit costs one strcmp
 * instead of a binary search's eight. Per thread; an entry is used only
 * when its name is op_type, so the cache never changes an answer. */
static OSI_THREAD_LOCAL struct {
  const OsiOpDomain *domain;
  const OsiOpEntry *entry;
} recent_ops[64];

const OsiOpEntry *osi_op_lookup(const OsiOpDomain *domain, const char *op_type) {
  if (!domain) return NULL;
  uint32_t h = 2166136261u;
  for (const unsigned char *p = (const unsigned char *)op_type; *p; p++) h = (h ^ *p) * 16777619u;
  size_t at = (h ^ (h >> 16)) & 63;
  if (recent_ops[at].domain == domain && !strcmp(recent_ops[at].entry->name, op_type))
    return recent_ops[at].entry;
  const OsiOpEntry *e =
      bsearch(op_type, domain->ops, (size_t)domain->n_ops, sizeof(OsiOpEntry), compare_entry);
  if (e) {
    recent_ops[at].domain = domain;
    recent_ops[at].entry = e;
  }
  return e;
}
