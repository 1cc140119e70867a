#!/usr/bin/python3
"""Benchmark models for `npm run bench` (tests/bench/bench.mjs), written with onnx.helper.

    /usr/bin/python3 tests/bench/make_models.py OUTDIR

writes OUTDIR/transformer_{1,8,32,128}.onnx, OUTDIR/cnn_100k.onnx and OUTDIR/chain_100k.onnx (or
only the files named after OUTDIR) and prints one JSON line {"file": ..., "nodes": ..., "bytes": ...}
per model.

transformer_L: an L-layer decoder in the style torch.onnx / optimum exports it. Symbolic batch,
seq and past_seq; every layer re-reads batch/seq from tensors with Shape/Gather/Unsqueeze/Concat
and reshapes around the attention with the result, concatenates the KV cache with its past
(present.L.key/value declared [batch, heads, total_seq, head_dim] on the outputs, so anchors and
constraints see one `past_seq+seq == total_seq` per output), builds the causal attention mask with
Range/Expand/Where and applies rotary embeddings with Slice/Neg/Concat. Weights are small
(hidden 64) so that the file and python's proto copies stay small.

chain_100k: 100k Neg/Relu nodes in a chain (the model of decode_bench.mjs).

cnn_100k: ~100k nodes of residual Conv/BatchNormalization/Relu/Add blocks over a symbolic
[N, 8, H, W] input, with a stride-2 block every 1024 blocks; every block shares one weight set.
"""
import json
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OPSET = 17


def i64(name, values):
    return numpy_helper.from_array(np.array(values, dtype=np.int64), name)


def f32(name, values):
    return numpy_helper.from_array(np.array(values, dtype=np.float32), name)


def zeros(name, shape):
    return numpy_helper.from_array(np.zeros(shape, np.float32), name)


def transformer(layers, heads=4, head_dim=16, vocab=256, max_pos=2048):
    hidden = heads * head_dim
    ffn = 2 * hidden
    half = head_dim // 2
    nodes = []
    inits = [
        zeros("embed", [vocab, hidden]),
        zeros("lm_head", [hidden, vocab]),
        zeros("cos_cache", [max_pos, head_dim]),
        zeros("sin_cache", [max_pos, head_dim]),
        f32("eps", 1e-6), f32("two", 2.0), f32("scale", 0.25), f32("zero_f", 0.0),
        f32("neg_inf", -3.4e38), f32("one_f", 1.0),
        i64("c0", [0]), i64("c1", [1]), i64("c2", [2]), i64("c_neg1", [-1]),
        i64("s0", 0), i64("s1", 1), i64("s2", 2),
        i64("heads", [heads]), i64("head_dim", [head_dim]), i64("hidden", [hidden]),
        i64("half", [half]), i64("big", [2 ** 62]), i64("axes12", [1, 2]), i64("axis_last", [-1]),
    ]
    n = lambda op, ins, outs, name, **kw: nodes.append(helper.make_node(op, ins, outs, name=name, **kw))

    def rms_norm(x, p, w):
        n("Pow", [x, "two"], [p + "pow"], p + "Pow")
        n("ReduceMean", [p + "pow"], [p + "mean"], p + "ReduceMean", axes=[-1], keepdims=1)
        n("Add", [p + "mean", "eps"], [p + "var"], p + "Add")
        n("Sqrt", [p + "var"], [p + "std"], p + "Sqrt")
        n("Div", ["one_f", p + "std"], [p + "inv"], p + "Div")
        n("Mul", [x, p + "inv"], [p + "normed"], p + "Mul")
        n("Mul", [p + "normed", w], [p + "out"], p + "Mul_1")
        return p + "out"

    def dim_of(x, axis, p):
        """Exporter-style: Shape -> Gather(scalar) -> Unsqueeze, a 1-D [dim]."""
        n("Shape", [x], [p + "shape"], p + "Shape")
        n("Gather", [p + "shape", "s%d" % axis], [p + "dim"], p + "Gather", axis=0)
        n("Unsqueeze", [p + "dim", "c0"], [p + "dim1"], p + "Unsqueeze")
        return p + "dim", p + "dim1"

    def rotate(x, cos, sin, p):
        n("Slice", [x, "c0", "half", "axis_last"], [p + "x1"], p + "Slice")
        n("Slice", [x, "half", "big", "axis_last"], [p + "x2"], p + "Slice_1")
        n("Neg", [p + "x2"], [p + "nx2"], p + "Neg")
        n("Concat", [p + "nx2", p + "x1"], [p + "rot"], p + "Concat", axis=-1)
        n("Mul", [x, cos], [p + "xc"], p + "Mul")
        n("Mul", [p + "rot", sin], [p + "rs"], p + "Mul_1")
        n("Add", [p + "xc", p + "rs"], [p + "out"], p + "Add")
        return p + "out"

    n("Gather", ["embed", "input_ids"], ["h_0"], "embed_tokens", axis=0)
    # Positions past_seq .. past_seq+seq-1 (from the shapes), their cos/sin rows.
    _, past1 = dim_of("past_key_values.0.key", 2, "/pos/past_")
    n("Squeeze", [past1, "c0"], ["/pos/past_s"], "/pos/Squeeze")
    seq_s, _ = dim_of("input_ids", 1, "/pos/seq_")
    n("Add", ["/pos/past_s", seq_s], ["/pos/total_s"], "/pos/Add")
    n("Range", ["/pos/past_s", "/pos/total_s", "s1"], ["/pos/ids"], "/pos/Range")
    n("Gather", ["cos_cache", "/pos/ids"], ["/pos/cos"], "/pos/Gather_cos", axis=0)
    n("Gather", ["sin_cache", "/pos/ids"], ["/pos/sin"], "/pos/Gather_sin", axis=0)
    n("Unsqueeze", ["/pos/cos", "c0"], ["/pos/cos4"], "/pos/Unsqueeze_cos")
    n("Unsqueeze", ["/pos/sin", "c0"], ["/pos/sin4"], "/pos/Unsqueeze_sin")

    inputs = [
        helper.make_tensor_value_info("input_ids", TensorProto.INT64, ["batch", "seq"]),
        helper.make_tensor_value_info("attention_mask", TensorProto.INT64, ["batch", "total_seq"]),
    ]
    outputs = [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch", "seq", vocab])]
    x = "h_0"
    for l in range(layers):
        p = "/model/layers.%d/" % l
        pk, pv = "past_key_values.%d.key" % l, "past_key_values.%d.value" % l
        ok, ov = "present.%d.key" % l, "present.%d.value" % l
        kv_dims = ["batch", heads, "past_seq", head_dim]
        inputs += [helper.make_tensor_value_info(pk, TensorProto.FLOAT, kv_dims),
                   helper.make_tensor_value_info(pv, TensorProto.FLOAT, kv_dims)]
        out_dims = ["batch", heads, "total_seq", head_dim]
        outputs += [helper.make_tensor_value_info(ok, TensorProto.FLOAT, out_dims),
                    helper.make_tensor_value_info(ov, TensorProto.FLOAT, out_dims)]
        for w, shape in (("ln1", [hidden]), ("ln2", [hidden]), ("wq", [hidden, hidden]),
                         ("wk", [hidden, hidden]), ("wv", [hidden, hidden]), ("wo", [hidden, hidden]),
                         ("w_gate", [hidden, ffn]), ("w_up", [hidden, ffn]), ("w_down", [ffn, hidden])):
            inits.append(zeros(p + w, shape))
        h = rms_norm(x, p + "input_layernorm/", p + "ln1")
        a = p + "self_attn/"
        _, b1 = dim_of(h, 0, a + "batch_")
        _, s1 = dim_of(h, 1, a + "seq_")
        n("Concat", [b1, s1, "heads", "head_dim"], [a + "split_shape"], a + "Concat", axis=0)
        n("Concat", [b1, s1, "hidden"], [a + "merge_shape"], a + "Concat_1", axis=0)
        proj = {}
        for m in ("q", "k", "v"):
            n("MatMul", [h, p + "w" + m], [a + m + "_flat"], a + m + "_proj/MatMul")
            n("Reshape", [a + m + "_flat", a + "split_shape"], [a + m + "_heads"], a + m + "_Reshape")
            n("Transpose", [a + m + "_heads"], [a + m + "_t"], a + m + "_Transpose", perm=[0, 2, 1, 3])
            proj[m] = a + m + "_t"
        q = rotate(proj["q"], "/pos/cos4", "/pos/sin4", a + "rotary_q/")
        k = rotate(proj["k"], "/pos/cos4", "/pos/sin4", a + "rotary_k/")
        n("Concat", [pk, k], [ok], a + "Concat_k", axis=2)
        n("Concat", [pv, proj["v"]], [ov], a + "Concat_v", axis=2)
        # Causal mask [batch, 1, seq, total] from the cache shapes, plus the padding mask.
        _, t1 = dim_of(ok, 2, a + "total_")
        tot_s, _ = dim_of(ok, 2, a + "total2_")
        past_s, _ = dim_of(pk, 2, a + "past_")
        q_s, _ = dim_of(h, 1, a + "qlen_")
        n("Add", [past_s, q_s], [a + "q_end"], a + "mask/Add")
        n("Range", [past_s, a + "q_end", "s1"], [a + "q_pos"], a + "mask/Range")
        n("Range", ["s0", tot_s, "s1"], [a + "k_pos"], a + "mask/Range_1")
        n("Unsqueeze", [a + "q_pos", "c_neg1"], [a + "q_pos2"], a + "mask/Unsqueeze")
        n("Unsqueeze", [a + "k_pos", "c0"], [a + "k_pos2"], a + "mask/Unsqueeze_1")
        n("Greater", [a + "k_pos2", a + "q_pos2"], [a + "future"], a + "mask/Greater")
        n("Where", [a + "future", "neg_inf", "zero_f"], [a + "causal"], a + "mask/Where")
        n("Concat", [b1, "c1", s1, t1], [a + "mask_shape"], a + "mask/Concat", axis=0)
        n("Expand", [a + "causal", a + "mask_shape"], [a + "causal4"], a + "mask/Expand")
        n("Unsqueeze", ["attention_mask", "axes12"], [a + "pad4"], a + "mask/Unsqueeze_2")
        n("Cast", [a + "pad4"], [a + "padf"], a + "mask/Cast", to=TensorProto.FLOAT)
        n("Sub", ["one_f", a + "padf"], [a + "padinv"], a + "mask/Sub")
        n("Mul", [a + "padinv", "neg_inf"], [a + "padbias"], a + "mask/Mul")
        n("Add", [a + "causal4", a + "padbias"], [a + "mask"], a + "mask/Add_1")
        # Attention.
        n("Transpose", [ok], [a + "kT"], a + "Transpose_kT", perm=[0, 1, 3, 2])
        n("MatMul", [q, a + "kT"], [a + "scores_raw"], a + "MatMul")
        n("Mul", [a + "scores_raw", "scale"], [a + "scores_scaled"], a + "Mul")
        n("Add", [a + "scores_scaled", a + "mask"], [a + "scores"], a + "Add")
        n("Softmax", [a + "scores"], [a + "probs"], a + "Softmax", axis=-1)
        n("MatMul", [a + "probs", ov], [a + "ctx"], a + "MatMul_1")
        n("Transpose", [a + "ctx"], [a + "ctx_t"], a + "Transpose", perm=[0, 2, 1, 3])
        n("Reshape", [a + "ctx_t", a + "merge_shape"], [a + "ctx_m"], a + "Reshape")
        n("MatMul", [a + "ctx_m", p + "wo"], [a + "o"], a + "o_proj/MatMul")
        n("Add", [x, a + "o"], [p + "res1"], p + "Add")
        # MLP (SiLU gate).
        h2 = rms_norm(p + "res1", p + "post_attention_layernorm/", p + "ln2")
        m = p + "mlp/"
        n("MatMul", [h2, p + "w_gate"], [m + "gate"], m + "gate_proj/MatMul")
        n("Sigmoid", [m + "gate"], [m + "sig"], m + "Sigmoid")
        n("Mul", [m + "gate", m + "sig"], [m + "act"], m + "Mul")
        n("MatMul", [h2, p + "w_up"], [m + "up"], m + "up_proj/MatMul")
        n("Mul", [m + "act", m + "up"], [m + "prod"], m + "Mul_1")
        n("MatMul", [m + "prod", p + "w_down"], [m + "down"], m + "down_proj/MatMul")
        n("Add", [p + "res1", m + "down"], [p + "out"], p + "Add_1")
        x = p + "out"
    inits.append(zeros("norm_w", [hidden]))
    hf = rms_norm(x, "/model/norm/", "norm_w")
    n("MatMul", [hf, "lm_head"], ["logits"], "/lm_head/MatMul")
    g = helper.make_graph(nodes, "decoder_%d" % layers, inputs, outputs, inits)
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", OPSET)], ir_version=8)


def cnn(target_nodes=100000, channels=8, stride_every=1024):
    nodes = []
    inits = [zeros("w", [channels, channels, 3, 3]), zeros("b", [channels]),
             numpy_helper.from_array(np.ones(channels, np.float32), "bn_scale"),
             zeros("bn_bias", [channels]), zeros("bn_mean", [channels]),
             numpy_helper.from_array(np.ones(channels, np.float32), "bn_var")]
    n = lambda op, ins, outs, name, **kw: nodes.append(helper.make_node(op, ins, outs, name=name, **kw))
    x = "input"
    blk = 0
    while len(nodes) + 8 <= target_nodes:
        p = "/blocks.%d/" % blk
        stride = 2 if blk % stride_every == stride_every - 1 else 1
        n("Conv", [x, "w", "b"], [p + "conv1"], p + "conv1/Conv", kernel_shape=[3, 3], pads=[1, 1, 1, 1],
          strides=[stride, stride])
        n("BatchNormalization", [p + "conv1", "bn_scale", "bn_bias", "bn_mean", "bn_var"], [p + "bn1"],
          p + "bn1/BatchNormalization")
        n("Relu", [p + "bn1"], [p + "relu1"], p + "Relu")
        n("Conv", [p + "relu1", "w", "b"], [p + "conv2"], p + "conv2/Conv", kernel_shape=[3, 3],
          pads=[1, 1, 1, 1])
        n("BatchNormalization", [p + "conv2", "bn_scale", "bn_bias", "bn_mean", "bn_var"], [p + "bn2"],
          p + "bn2/BatchNormalization")
        if stride == 1:
            n("Add", [x, p + "bn2"], [p + "sum"], p + "Add")
        else:
            n("MaxPool", [x], [p + "skip"], p + "MaxPool", kernel_shape=[1, 1], strides=[2, 2])
            n("Add", [p + "skip", p + "bn2"], [p + "sum"], p + "Add")
        n("Relu", [p + "sum"], [p + "out"], p + "Relu_1")
        x = p + "out"
        blk += 1
    n("GlobalAveragePool", [x], ["pooled"], "/head/GlobalAveragePool")
    n("Flatten", ["pooled"], ["output"], "/head/Flatten", axis=1)
    g = helper.make_graph(
        nodes, "cnn", [helper.make_tensor_value_info("input", TensorProto.FLOAT, ["N", channels, "H", "W"])],
        [helper.make_tensor_value_info("output", TensorProto.FLOAT, ["N", channels])], inits)
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", OPSET)], ir_version=8)


def chain(n=100000):
    """The 100k-node chain of decode_bench.mjs: Neg/Relu alternating over [N, 64]."""
    nodes = [helper.make_node("Relu" if i % 2 else "Neg", ["v%d" % (i - 1) if i else "X"],
                              ["Y" if i == n - 1 else "v%d" % i], name="n%d" % i) for i in range(n)]
    g = helper.make_graph(nodes, "chain", [helper.make_tensor_value_info("X", TensorProto.FLOAT, ["N", 64])],
                          [helper.make_tensor_value_info("Y", TensorProto.FLOAT, ["N", 64])])
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", OPSET)], ir_version=8)


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else "."
    os.makedirs(out, exist_ok=True)
    models = [("transformer_%d.onnx" % l, lambda l=l: transformer(l)) for l in (1, 8, 32, 128)]
    models.append(("cnn_100k.onnx", cnn))
    models.append(("chain_100k.onnx", chain))
    only = set(sys.argv[2:])
    for name, make in models:
        if only and name not in only:
            continue
        m = make()
        path = os.path.join(out, name)
        onnx.save(m, path)
        print(json.dumps({"file": path, "nodes": len(m.graph.node), "bytes": os.path.getsize(path)}), flush=True)


if __name__ == "__main__":
    main()
