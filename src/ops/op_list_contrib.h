/*
 * The com.microsoft operator table (onnxruntime contrib ops, spec in
 * ContribOperators.md). Same format and sort rule as op_list_onnx.h.
 */
/*      op type                   shape function            since */
