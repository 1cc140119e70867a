/*
 * Every node's attributes, for viewers (a node panel: a Conv's pads and
 * strides, a Constant's value), written only when asked for: inference and
 * the default result never read them.
 */
#ifndef OSI_RESULT_ATTRIBUTES_H
#define OSI_RESULT_ATTRIBUTES_H

#include "base/json.h"
#include "infer/context.h"

/* {"":[node,...],"<body path>":[node,...],...}: the model's graph, then each
 * inferred body (the paths of "subgraphs"), nodes in graph order; a node is
 * [[name,type,value],...] in the order the model lists them, type being the
 * lower-case AttributeType ("int", "floats", "tensor", ...) and value:
 *   int / float        a number (an int beyond 2^53 and a float NaN or
 *                      infinity as a string)
 *   string             a string
 *   tensor             {"elemType","dims":[...],"external":bool,"sparse":bool,
 *                       "count":n,"values":[...]} (count and values when the
 *                       content is kept: small tensors; at most
 *                       OSI_ATTR_JSON_MAX_VALUES of them)
 *   graph              {"name","nodes":n,"inputs":n,"outputs":n}
 *   type_proto         a type as getShape gives it
 *   lists              an array of those, or {"count":n,"head":[...]} past
 *                      OSI_ATTR_JSON_MAX_LIST elements
 *   in a function body, an attribute that refers to the caller's: {"ref":name}. */
void osi_json_attributes(OsiJson *j, OsiExprStore *s, const OsiRun *run);

#define OSI_ATTR_JSON_MAX_VALUES 64
#define OSI_ATTR_JSON_MAX_LIST 1024

#endif
