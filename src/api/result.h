/* Engine-internal access to a result, for C tests and native tools. */
#ifndef OSI_RESULT_H
#define OSI_RESULT_H

#include "onnx_shapes.h"
#include "infer/context.h"
#include "model/types.h"

/* Inferred type of a top-level value, NULL when unknown or absent. */
const OsiType *osi_result_lookup(const OsiResult *r, const char *name);
OsiExprStore *osi_result_exprs(const OsiResult *r);
int osi_result_diagnostic_count(const OsiResult *r);
/* Code of diagnostic i ("UNSUPPORTED_OP", ...). */
const char *osi_result_diagnostic_code(const OsiResult *r, int i);
const char *osi_result_diagnostic_message(const OsiResult *r, int i);
/* Requirements recorded by op rules (constraints.requirements). */
int osi_result_requirement_count(const OsiResult *r);
const OsiRequirement *osi_result_requirement(const OsiResult *r, int i);
/* The first SHAPE_MISMATCH / INVALID_MODEL diagnostic, NULL when none. */
const OsiDiagnostic *osi_result_first_error(const OsiResult *r);

#endif
