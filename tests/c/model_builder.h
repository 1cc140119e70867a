/*
 * Builds small ONNX models in C tests (through the protobuf-c generated
 * code), so driver and decoder tests need no files:
 *
 *   Builder *b = builder_new(17);
 *   builder_input(b, "x", "float[N,3]");
 *   builder_node(b, "Relu", "r0", "x", "", "y", "");     // inputs "", outputs ""
 *   builder_output(b, "y", "float[*]");                  // [*]: no shape
 *   size_t len; uint8_t *bytes = builder_pack(b, &len);   // free() it
 */
#ifndef OSI_MODEL_BUILDER_H
#define OSI_MODEL_BUILDER_H

#include <stddef.h>
#include <stdint.h>

typedef struct Builder Builder;

Builder *builder_new(int64_t opset);
void builder_free(Builder *b);
void builder_opset(Builder *b, const char *domain, int64_t version);
/* Type text: "<dtype>[d0,d1]" where each dim is a number or a dim_param;
 * "[*]" means no shape; "" means no type at all. */
void builder_input(Builder *b, const char *name, const char *type);
void builder_output(Builder *b, const char *name, const char *type);
void builder_value_info(Builder *b, const char *name, const char *type);
/* A float input of rank 1 whose one dim is dim_param (any text: commas,
 * parentheses, any length). */
void builder_input_param(Builder *b, const char *name, const char *dim_param);
void builder_initializer_ints(Builder *b, const char *name, int n, const int64_t *values);
/* An initializer of element type `dtype` (ONNX code) and these dims with
 * no data written; external: marked as stored in an external file (which
 * need not exist: inference never opens it). */
void builder_initializer_shape(Builder *b, const char *name, int dtype, int rank, const int64_t *dims,
                               int external);
/* Node with inputs then outputs, each list terminated by "" (empty names
 * inside a list are written as "-"). */
void builder_node(Builder *b, const char *op, const char *name, ...);
/* Sets the domain of the most recent node. */
void builder_node_domain(Builder *b, const char *domain);
/* Attributes on the most recent node. */
void builder_attr_int(Builder *b, const char *name, int64_t v);
void builder_attr_ints(Builder *b, const char *name, int n, const int64_t *v);
void builder_attr_string(Builder *b, const char *name, const char *v);
/* An attribute referring to the calling node's attribute (function bodies). */
void builder_attr_ref(Builder *b, const char *name, int type, const char *ref_attr_name);
/* Starts a graph attribute `name` of the most recent node (an If branch):
 * nodes, inputs, outputs and initializers added until builder_subgraph_end
 * go into it. */
void builder_subgraph(Builder *b, const char *name);
void builder_subgraph_end(Builder *b);
/* Starts a model-local function: nodes added until builder_function_end go
 * into its body. Lists are NULL-terminated; `attrs` names its attributes. */
void builder_function(Builder *b, const char *name, const char *domain, const char *const *inputs,
                      const char *const *outputs, const char *const *attrs);
void builder_function_end(Builder *b);
uint8_t *builder_pack(Builder *b, size_t *len);

/* Packs the model, frees the builder, and runs osi_infer_with on it. */
struct OsiResult;
struct OsiRegistry;
struct OsiResult *builder_infer(Builder *b, uint32_t flags, const struct OsiRegistry *registry);
/* "[N,4]" for a top-level value of a result, "[*]" for an unknown rank,
 * "none" when the value has no type (static buffer). */
const char *result_dims(struct OsiResult *r, const char *name);

#endif
