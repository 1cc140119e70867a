/*
 * The ai.onnx.preview operator table (experimental ops, unversioned).
 * Same format and sort rule as op_list_onnx.h.
 */
/*      op type                   shape function            since, cost rule */
OSI_OP( FlexAttention,              osi_op_flex_attention,      1, UNCOUNTED(NOT_MODELLED) )
