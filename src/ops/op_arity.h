/*
 * How many inputs and outputs each operator version takes, from the ONNX
 * spec (the generated table op_arity_table.h; tests/tools/gen_arity.py).
 * The driver checks a node against it before running the node's rule:
 * onnxruntime refuses a node whose counts the schema does not allow when
 * the session is created, so the rule never sees one.
 */
#ifndef OSI_OP_ARITY_H
#define OSI_OP_ARITY_H

#include <stdint.h>

#define OSI_ARITY_ANY 0x7fffffff /* no maximum (a variadic last formal) */

typedef struct OsiArity {
  const char *domain; /* "" is ai.onnx */
  const char *op;
  int since;          /* first opset version of this signature */
  int min_in, max_in, min_out, max_out;
  /* One letter per formal: 'r' single (required), 'o' optional, 'v' variadic. */
  const char *in_kinds, *out_kinds;
} OsiArity;

/* The signature of op_type in domain at opset version `opset`; NULL when
 * the spec does not define the op there (then nothing is checked). */
const OsiArity *osi_op_arity(const char *domain, const char *op_type, int64_t opset);

#endif
