/*
 * The ai.onnx.preview.training operator table (same format and sort rule
 * as op_list_onnx.h). Columns: op type, shape function, first opset
 * version of the domain defining the op, cost rule.
 */
/*      op type                   shape function            since, cost rule */
OSI_OP( Adagrad,                    osi_op_train_adagrad,       1, UNCOUNTED(TRAINING) )
OSI_OP( Adam,                       osi_op_train_adam,          1, UNCOUNTED(TRAINING) )
OSI_OP( Gradient,                   osi_op_train_gradient,      1, UNCOUNTED(TRAINING) )
OSI_OP( Momentum,                   osi_op_train_momentum,      1, UNCOUNTED(TRAINING) )
