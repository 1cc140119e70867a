/*
 * The operator tables: one sorted list per domain (X-macro files
 * op_list_*.h), looked up by binary search.
 */
#ifndef OSI_OP_REGISTRY_H
#define OSI_OP_REGISTRY_H

#include "ops/ops.h"

typedef struct OsiOpEntry {
  const char *name;
  OsiOpFn fn;
  int since;   /* first opset version of the domain that defines the op */
} OsiOpEntry;

typedef struct OsiOpDomain {
  const char *domain;       /* "" is ai.onnx */
  const OsiOpEntry *ops;
  int n_ops;
  int max_opset;            /* newest opset version this engine knows */
} OsiOpDomain;

/* NULL when the domain has no table. */
const OsiOpDomain *osi_op_domain(const char *domain);
/* NULL when the domain or the op is unknown. */
const OsiOpEntry *osi_op_lookup(const OsiOpDomain *domain, const char *op_type);
/* All domain tables, for listing/coverage. */
const OsiOpDomain *osi_op_domains(int *count);

#endif
