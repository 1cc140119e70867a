#!/usr/bin/python3
"""Generates the example models bundled with onnx-shapes.

Run with Debian's python3 (python3-onnx, python3-numpy):
    /usr/bin/python3 examples/models/make_models.py [OUTDIR]

Every model is built here with onnx.helper, in the style exporters emit
(shape subgraphs of Shape/Gather/Unsqueeze/Concat/Reshape), with symbolic
input dims, so their inferred shapes are symbolic too.
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OPSET = 17


def const_i64(name, values):
    return numpy_helper.from_array(np.array(values, dtype=np.int64), name)


def weight(name, shape, seed):
    rng = np.random.default_rng(seed)
    return numpy_helper.from_array(rng.standard_normal(shape).astype(np.float32) * 0.02, name)


def tiny_decoder():
    """One transformer decoder layer with a KV cache (4 heads x 16)."""
    heads, head_dim, hidden, vocab = 4, 16, 64, 100
    nodes, inits = [], [
        weight("embed", [vocab, hidden], 1),
        weight("wq", [hidden, hidden], 2),
        weight("wk", [hidden, hidden], 3),
        weight("wv", [hidden, hidden], 4),
        weight("wo", [hidden, hidden], 5),
        weight("lm_head", [hidden, vocab], 6),
        numpy_helper.from_array(np.ones(hidden, np.float32), "ln_scale"),
        numpy_helper.from_array(np.zeros(hidden, np.float32), "ln_bias"),
        const_i64("axis0", [0]),
        const_i64("axis1", [1]),
        const_i64("axes12", [1, 2]),
        const_i64("heads", [heads]),
        const_i64("head_dim", [head_dim]),
        const_i64("hidden", [hidden]),
        numpy_helper.from_array(np.array(0.25, np.float32), "scale"),
        numpy_helper.from_array(np.array(1.0, np.float32), "one"),
        numpy_helper.from_array(np.array(-10000.0, np.float32), "neg_big"),
    ]
    n = lambda *a, **k: nodes.append(helper.make_node(*a, **k))
    n("Gather", ["embed", "input_ids"], ["h0"], name="embed_tokens")
    n("LayerNormalization", ["h0", "ln_scale", "ln_bias"], ["h"], name="ln", axis=-1)
    # Exporter-style shape subgraph: batch and seq read back from the tensor.
    n("Shape", ["h"], ["h_shape"], name="shape_h")
    n("Gather", ["h_shape", "axis0"], ["batch_1d"], name="get_batch", axis=0)
    n("Gather", ["h_shape", "axis1"], ["seq_1d"], name="get_seq", axis=0)
    n("Concat", ["batch_1d", "seq_1d", "heads", "head_dim"], ["split_shape"], name="split_shape", axis=0)
    n("Concat", ["batch_1d", "seq_1d", "hidden"], ["merge_shape"], name="merge_shape", axis=0)
    for proj in ("q", "k", "v"):
        n("MatMul", ["h", "w" + proj], [proj + "_flat"], name=proj + "_proj")
        n("Reshape", [proj + "_flat", "split_shape"], [proj + "_heads"], name=proj + "_split")
        n("Transpose", [proj + "_heads"], [proj + "_t"], name=proj + "_transpose", perm=[0, 2, 1, 3])
    n("Concat", ["past_key", "k_t"], ["present_key"], name="kv_cache_k", axis=2)
    n("Concat", ["past_value", "v_t"], ["present_value"], name="kv_cache_v", axis=2)
    n("Transpose", ["present_key"], ["k_T"], name="k_transpose", perm=[0, 1, 3, 2])
    n("MatMul", ["q_t", "k_T"], ["scores_raw"], name="qk")
    n("Mul", ["scores_raw", "scale"], ["scores_scaled"], name="scale_scores")
    n("Unsqueeze", ["attention_mask", "axes12"], ["mask_4d"], name="mask_unsqueeze")
    n("Cast", ["mask_4d"], ["mask_f"], name="mask_cast", to=TensorProto.FLOAT)
    n("Sub", ["one", "mask_f"], ["mask_inv"], name="mask_invert")
    n("Mul", ["mask_inv", "neg_big"], ["mask_bias"], name="mask_bias")
    n("Add", ["scores_scaled", "mask_bias"], ["scores"], name="apply_mask")
    n("Softmax", ["scores"], ["probs"], name="softmax", axis=-1)
    n("MatMul", ["probs", "present_value"], ["ctx_heads"], name="attend")
    n("Transpose", ["ctx_heads"], ["ctx_t"], name="ctx_transpose", perm=[0, 2, 1, 3])
    n("Reshape", ["ctx_t", "merge_shape"], ["ctx"], name="ctx_merge")
    n("MatMul", ["ctx", "wo"], ["attn_out"], name="o_proj")
    n("Add", ["h0", "attn_out"], ["residual"], name="residual")
    n("MatMul", ["residual", "lm_head"], ["logits"], name="lm_head")
    kv = lambda name, seq: helper.make_tensor_value_info(
        name, TensorProto.FLOAT, ["batch", heads, seq, head_dim])
    graph = helper.make_graph(
        nodes, "tiny_decoder",
        [helper.make_tensor_value_info("input_ids", TensorProto.INT64, ["batch", "seq"]),
         helper.make_tensor_value_info("attention_mask", TensorProto.INT64, ["batch", "total_seq"]),
         kv("past_key", "past_seq"), kv("past_value", "past_seq")],
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch", "seq", vocab]),
         kv("present_key", "total_seq"), kv("present_value", "total_seq")],
        inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)],
                             producer_name="onnx-shapes examples")


def cnn_dynamic():
    """A small CNN on images of any size (N, 3, H, W)."""
    nodes, inits = [], [
        weight("c1_w", [8, 3, 3, 3], 10), weight("c1_b", [8], 11),
        weight("c2_w", [16, 8, 3, 3], 12), weight("c2_b", [16], 13),
        weight("fc_w", [16, 10], 14),
    ]
    n = lambda *a, **k: nodes.append(helper.make_node(*a, **k))
    n("Conv", ["image", "c1_w", "c1_b"], ["c1"], name="conv1", pads=[1, 1, 1, 1], strides=[2, 2])
    n("Relu", ["c1"], ["r1"], name="relu1")
    n("MaxPool", ["r1"], ["p1"], name="pool1", kernel_shape=[2, 2], strides=[2, 2])
    n("Conv", ["p1", "c2_w", "c2_b"], ["c2"], name="conv2", pads=[0, 0, 0, 0])
    n("Relu", ["c2"], ["r2"], name="relu2")
    n("GlobalAveragePool", ["r2"], ["gap"], name="gap")
    n("Flatten", ["gap"], ["flat"], name="flatten", axis=1)
    n("MatMul", ["flat", "fc_w"], ["logits"], name="classifier")
    graph = helper.make_graph(
        nodes, "cnn_dynamic",
        [helper.make_tensor_value_info("image", TensorProto.FLOAT, ["N", 3, "H", "W"])],
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["N", 10])],
        inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)],
                             producer_name="onnx-shapes examples")


def control_flow():
    """If on a data-dependent condition, and a Loop accumulating rows."""
    then_g = helper.make_graph(
        [helper.make_node("Relu", ["x"], ["then_out"], name="then_relu")], "then_branch", [],
        [helper.make_tensor_value_info("then_out", TensorProto.FLOAT, ["N", 4])])
    else_g = helper.make_graph(
        [helper.make_node("Neg", ["x"], ["else_out"], name="else_neg")], "else_branch", [],
        [helper.make_tensor_value_info("else_out", TensorProto.FLOAT, ["N", 4])])
    body = helper.make_graph(
        [helper.make_node("Identity", ["cond_in"], ["cond_out"], name="keep_going"),
         helper.make_node("Add", ["acc_in", "y"], ["acc_out"], name="accumulate"),
         helper.make_node("Identity", ["acc_out"], ["row"], name="emit_row")],
        "loop_body",
        [helper.make_tensor_value_info("i", TensorProto.INT64, []),
         helper.make_tensor_value_info("cond_in", TensorProto.BOOL, []),
         helper.make_tensor_value_info("acc_in", TensorProto.FLOAT, ["N", 4])],
        [helper.make_tensor_value_info("cond_out", TensorProto.BOOL, []),
         helper.make_tensor_value_info("acc_out", TensorProto.FLOAT, ["N", 4]),
         helper.make_tensor_value_info("row", TensorProto.FLOAT, ["N", 4])])
    nodes = [
        helper.make_node("ReduceSum", ["x"], ["total"], name="total", keepdims=0),
        helper.make_node("Greater", ["total", "zero"], ["positive"], name="is_positive"),
        helper.make_node("If", ["positive"], ["y"], name="branch", then_branch=then_g, else_branch=else_g),
        helper.make_node("Loop", ["steps", "true", "y"], ["acc", "rows"], name="loop", body=body),
    ]
    graph = helper.make_graph(
        nodes, "control_flow",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 4])],
        [helper.make_tensor_value_info("acc", TensorProto.FLOAT, ["N", 4]),
         helper.make_tensor_value_info("rows", TensorProto.FLOAT, [3, "N", 4])],
        [numpy_helper.from_array(np.array(0.0, np.float32), "zero"),
         numpy_helper.from_array(np.array(3, np.int64), "steps"),
         numpy_helper.from_array(np.array(True), "true")])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)],
                             producer_name="onnx-shapes examples")


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
    os.makedirs(out, exist_ok=True)
    for name, build in (("tiny_decoder", tiny_decoder), ("cnn_dynamic", cnn_dynamic),
                        ("control_flow", control_flow)):
        model = build()
        onnx.checker.check_model(model, full_check=True)
        onnx.save(model, os.path.join(out, name + ".onnx"))
        print("wrote", os.path.join(out, name + ".onnx"))


if __name__ == "__main__":
    main()
