"""Models whose shapes need what the model needs to run (README "Where the model runs"): conditions
on sizes that only the requirements and the sizes themselves decide, and If branches that cannot run.

    /usr/bin/python3 tests/exporters/make_facts_models.py OUTDIR

Written like tests/exporters/make_models.py (its record/export helpers: NAME.onnx, NAME.all.onnx with
every value exposed, a manifest entry with the bindings onnxruntime runs them at), read by
differential.mjs and by domain_property.mjs (the domain against onnxruntime). Each entry may say
`domain`: the ranges of the graph inputs' symbols stated by hand, `impossible`: bindings inside those
ranges where the model still cannot run (a relation breaks), and `vary`: the symbols the
property test moves (the others keep the first binding's sizes).

  wav2vec2_lengths_op14  torchaudio's wav2vec2_model (small widths, random weights) with a lengths
                         input, torch.onnx 1.13, dynamic batch and time. The padding mask is
                         torch.arange(T).expand(batch, T) with T = (time+240)//320-1, exported as
                         Expand(Range, Where(Equal(shape, -1), ones, shape)). torch 1.13 exports
                         `x[mask] = 0` as a Where of the [batch, T] mask against x [batch, T, C]
                         (no Unsqueeze), which onnxruntime only runs where T is 1 or C (16) and
                         batch is 1 or T: the bindings are chosen there.
  idioms_op13, _op17     a Conv1d (time-4 frames) then torch's idioms over its sizes: arange(t).
                         expand(b, t), expand(b, 3, c, t) and repeat over computed sizes (Where/Equal
                         against -1), view(-1) and view(b, -1), slices whose clamps the window
                         decides (y[:, :, 1:], y[:, :, t-2:]) and one it does not (y[:, :, :4]).
  silero_pt2_op17        Silero VAD as pytorch 2.x exports it (written with onnx.helper: torch 1.13
                         cannot): a strided conv leaves (samples-192)//512+1 frames; x.squeeze(-1)
                         is If(size == 1, Squeeze, Identity), whose branches differ in rank; the
                         decoder tests the rank (If(rank == 2, ...)) and its Gemm needs rank 2. Only
                         the squeezed branch lets it run: samples in [192, 703].
  silero_v5_like_op17    the same one level deeper (Silero v5, spox): the pipeline inside the
                         branches of a top-level If on the sample rate.
  silero_pt2_nested_op17 the rank test and the Gemm inside the taken branch of an If on a size of
                         the state input (Cast(state.shape[0]) to bool: always true), as pytorch
                         2.3's Silero export nests its LSTM: the failure that rules out the
                         unsqueezed branch is inside a branch the sizes decide.
  cnn_dynamic            examples/models/cnn_dynamic.onnx, whose smallest image is 11x11.
  tiny_pools_op17        windows that overhang their input (README "Windows over tiny inputs"): a
                         3x3 padded conv, a 2x2 stride-2 average pool (DenseNet's transition), a 1x1
                         conv, a max pool of kernel [2, 5], stride 2. onnxruntime divides a pool's
                         span rounding toward zero and runs wherever no output size is negative:
                         H from 1 (1 row at each step), W from 4 (the 2 columns of the max pool's
                         input give (2-5)/2+1 = 0 columns; from 3, that is -1). The floor rule
                         (the window fits) gave H >= 2, W >= 10.
"""
import os
import sys

import numpy as np
import onnx
import torch
import torch.nn as nn
from onnx import TensorProto, helper, numpy_helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import make_models as mm  # noqa: E402  (record, export, MODELS)

torch.manual_seed(0)


# Section - torchaudio wav2vec2 with a lengths input


def wav2vec2_lengths(outdir):
    import torchaudio  # noqa: F401  (python3-torchaudio)
    from torchaudio.models import wav2vec2_model

    model = wav2vec2_model(
        extractor_mode="group_norm", extractor_conv_layer_config=[(8, 10, 5)] + [(8, 3, 2)] * 4 + [(8, 2, 2)] * 2,
        extractor_conv_bias=False, encoder_embed_dim=16, encoder_projection_dropout=0.0, encoder_pos_conv_kernel=4,
        encoder_pos_conv_groups=4, encoder_num_layers=2, encoder_num_heads=2, encoder_attention_dropout=0.0,
        encoder_ff_interm_features=32, encoder_ff_interm_dropout=0.0, encoder_dropout=0.0,
        encoder_layer_norm_first=False, encoder_layer_drop=0.0, aux_num_out=None)
    # T = (time+240)//320-1 frames must be 16 (the embedding width): time in [5200, 5519]
    bindings = [{"batch": 1, "time": 5300}, {"batch": 16, "time": 5519}]
    mm.export(outdir, "wav2vec2_lengths_op14", model, (torch.randn(2, 1600), torch.tensor([1600, 1200])),
              ["waveforms", "lengths"], ["features", "out_lengths"],
              {"waveforms": {0: "batch", 1: "time"}, "lengths": {0: "batch"}},
              {"waveforms": {"dtype": "float32"}, "lengths": {"dtype": "int64", "low": 400, "high": 5300}}, 14,
              {"bindings": bindings, "domain": {"batch": {"min": 0}, "time": {"min": 400}},
               # the encoder's mask [B,T] broadcasts against [B,T,16]: T = 2 (time 1000) is neither 1 nor 16
               "impossible": [{"batch": 1, "time": 1000}, {"batch": 1, "time": 8000}]})


# Section - torch idioms over computed sizes


class Idioms(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv1d(2, 4, 5)

    def forward(self, x):
        y = self.conv(x)  # [b, 4, time-4]
        b, c, t = y.shape
        pos = torch.arange(t).expand(b, t)
        keep = pos < t - 1
        grown = y.unsqueeze(1).expand(b, 3, c, t)
        tiled = y[:, :1].repeat(1, c, 1)
        rows = y.reshape(b, -1)
        flat = y.view(-1)
        shifted = y[:, :, 1:]
        last_two = y[:, :, t - 2:]
        head = y[:, :, :4]
        masked = y * keep.unsqueeze(1)
        return pos, keep, grown, tiled, rows, flat, shifted, last_two, head, masked


def idioms(outdir, opset):
    outs = ["pos", "keep", "grown", "tiled", "rows", "flat", "shifted", "last_two", "head", "masked"]
    bindings = [{"batch": 2, "time": 9}, {"batch": 3, "time": 5}]
    mm.export(outdir, f"idioms_op{opset}", Idioms(), (torch.randn(2, 2, 12),), ["x"], outs,
              {"x": {0: "batch", 2: "time"}, **{o: {} for o in outs}}, {"x": {"dtype": "float32"}}, opset,
              {"bindings": bindings, "domain": {"batch": {"min": 0}, "time": {"min": 5}}, "vary": ["time"]})


# Section - Silero-like graphs (onnx.helper)


N = helper.make_node
F32 = TensorProto.FLOAT


def const(name, values, dtype=np.int64):
    return numpy_helper.from_array(np.array(values, dtype=dtype), name)


def branch(name, nodes, outs, inits=()):
    return helper.make_graph(nodes, name, [], [helper.make_tensor_value_info(o, F32, None) for o in outs], list(inits))


def pipeline(p, rng, wav="input", nest_on=None):
    """Nodes and initializers of the encoder and decoder, names prefixed `p`: frames
    (samples-192)//512+1 of 16 channels, squeezed when there is one frame, a rank test, a Gemm
    (with nest_on, the name of a [2, ...] input: the rank test and the Gemm inside the then_branch of
    an If on Cast(its dim 0) to bool, true whenever it runs)."""
    inits = [
        numpy_helper.from_array((rng.standard_normal([16, 1, 192]) * 0.05).astype(np.float32), p + "enc_w"),
        numpy_helper.from_array((rng.standard_normal([16, 1]) * 0.1).astype(np.float32), p + "dec_w"),
        const(p + "two", 2), const(p + "one", 1), const(p + "axis2", [2]), const(p + "axis0", [0]),
    ]
    squeeze = N("If", [p + "one_frame"], [p + "x"],
                then_branch=branch(p + "squeezed", [N("Squeeze", [p + "feat", p + "axis2"], [p + "sq"])], [p + "sq"]),
                else_branch=branch(p + "kept", [N("Identity", [p + "feat"], [p + "id"])], [p + "id"]))
    # `if x.dim() == 2: ... else: x = x.unsqueeze(0)` of a scripted LSTMCell-like decoder
    batched = N("If", [p + "is2d"], [p + "xb"],
                then_branch=branch(p + "as_is", [N("Identity", [p + "x"], [p + "x2"])], [p + "x2"]),
                else_branch=branch(p + "unsq", [N("Unsqueeze", [p + "x", p + "axis0"], [p + "x3"])], [p + "x3"]))
    decoder = [
        N("Shape", [p + "x"], [p + "xshape"]), N("Size", [p + "xshape"], [p + "rank"]),
        N("Equal", [p + "rank", p + "two"], [p + "is2d"]), batched,
        N("Gemm", [p + "xb", p + "dec_w"], [p + "logit"]),
    ]
    if nest_on:
        inits.append(const(p + "zero", [0]))
        decoder = [
            N("Shape", [nest_on], [p + "state_shape"]), N("Gather", [p + "state_shape", p + "zero"], [p + "layers"], axis=0),
            N("Cast", [p + "layers"], [p + "has_layers"], to=TensorProto.BOOL),
            N("If", [p + "has_layers"], [p + "logit"],
              then_branch=branch(p + "decode", decoder, [p + "logit"]),
              else_branch=branch(p + "no_decode", [N("Identity", [p + "x"], [p + "x4"])], [p + "x4"])),
        ]
    nodes = [
        N("Unsqueeze", [wav, "axis1"], [p + "wav"]),
        N("Conv", [p + "wav", p + "enc_w"], [p + "conv"], strides=[512]),
        N("Relu", [p + "conv"], [p + "feat"]),
        N("Shape", [p + "feat"], [p + "shape"]), N("Gather", [p + "shape", p + "two"], [p + "frames"], axis=0),
        N("Equal", [p + "frames", p + "one"], [p + "one_frame"]), squeeze,
        *decoder, N("Sigmoid", [p + "logit"], [p + "out"]),
    ]
    return nodes, inits


SILERO_DOMAIN = {"batch": {"min": 0}, "samples": {"min": 192, "max": 703}}
SILERO_BINDINGS = [{"batch": 2, "samples": 512}, {"batch": 1, "samples": 192}]


def silero_pt2(outdir):
    rng = np.random.default_rng(11)
    nodes, inits = pipeline("", rng)
    nodes[-1] = N("Sigmoid", ["logit"], ["output"])
    graph = helper.make_graph(nodes, "silero_pt2", [helper.make_tensor_value_info("input", F32, ["batch", "samples"])],
                              [helper.make_tensor_value_info("output", F32, None)], inits + [const("axis1", [1])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], producer_name="onnx-shapes-tests")
    model.ir_version = 8
    mm.record(outdir, "silero_pt2_op17", model, 17, {"input": {"dtype": "float32"}},
              {"bindings": SILERO_BINDINGS, "domain": SILERO_DOMAIN, "vary": ["samples"]}, unshaped_outputs=True)


def silero_pt2_nested(outdir):
    rng = np.random.default_rng(13)
    nodes, inits = pipeline("", rng, nest_on="state")
    nodes[-1] = N("Sigmoid", ["logit"], ["output"])
    graph = helper.make_graph(nodes, "silero_pt2_nested",
                              [helper.make_tensor_value_info("input", F32, ["batch", "samples"]),
                               helper.make_tensor_value_info("state", F32, [2, "batch", 16])],
                              [helper.make_tensor_value_info("output", F32, None)], inits + [const("axis1", [1])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], producer_name="onnx-shapes-tests")
    model.ir_version = 8
    mm.record(outdir, "silero_pt2_nested_op17", model, 17, {"input": {"dtype": "float32"}, "state": {"dtype": "float32"}},
              {"bindings": SILERO_BINDINGS, "domain": SILERO_DOMAIN, "vary": ["samples"]}, unshaped_outputs=True)


def silero_v5_like(outdir):
    rng = np.random.default_rng(12)
    pipes = []
    for rate in (16000, 8000):
        nodes, inits = pipeline(f"r{rate}_", rng)
        pipes.append(branch(f"sr{rate}", nodes, [f"r{rate}_out"], inits))
    top = [N("Equal", ["sr", "k16000"], ["is16k"]),
           N("If", ["is16k"], ["prob"], then_branch=pipes[0], else_branch=pipes[1]),
           N("Mul", ["prob", "prob"], ["output"])]
    graph = helper.make_graph(top, "silero_v5_like",
                              [helper.make_tensor_value_info("input", F32, ["batch", "samples"]),
                               helper.make_tensor_value_info("sr", TensorProto.INT64, [])],
                              [helper.make_tensor_value_info("output", F32, None)],
                              [const("k16000", 16000), const("axis1", [1])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], producer_name="onnx-shapes-tests")
    model.ir_version = 8
    mm.record(outdir, "silero_v5_like_op17", model, 17,
              {"input": {"dtype": "float32"}, "sr": {"dtype": "int64", "low": 16000, "high": 16001}},
              {"bindings": SILERO_BINDINGS}, unshaped_outputs=True)


# Section - the bundled CNN: its smallest image is 11x11 (3x3 stride-2 conv, 2x2 pool, 3x3 conv)


def cnn_dynamic(outdir):
    here = os.path.dirname(os.path.abspath(__file__))
    model = onnx.load(os.path.join(here, "..", "..", "examples", "models", "cnn_dynamic.onnx"))
    mm.record(outdir, "cnn_dynamic", model, 17, {"image": {"dtype": "float32"}},
              {"bindings": [{"N": 2, "H": 11, "W": 16}, {"N": 1, "H": 30, "W": 11}],
               "domain": {"N": {"min": 0}, "H": {"min": 11}, "W": {"min": 11}}, "vary": ["H", "W"]})


def tiny_pools(outdir):
    rng = np.random.default_rng(5)
    w = lambda name, shape: numpy_helper.from_array((rng.standard_normal(shape) * 0.2).astype(np.float32), name)
    nodes = [N("Conv", ["image", "w1"], ["c1"], kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
             N("AveragePool", ["c1"], ["t1"], kernel_shape=[2, 2], strides=[2, 2]),
             N("Conv", ["t1", "w2"], ["c2"], kernel_shape=[1, 1]),
             N("MaxPool", ["c2"], ["p2"], kernel_shape=[2, 5], strides=[2, 2]),
             N("Relu", ["p2"], ["out"])]
    graph = helper.make_graph(nodes, "tiny_pools", [helper.make_tensor_value_info("image", F32, ["N", 3, "H", "W"])],
                              [helper.make_tensor_value_info("out", F32, None)], [w("w1", [8, 3, 3, 3]), w("w2", [8, 8, 1, 1])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], producer_name="onnx-shapes-tests")
    model.ir_version = 8
    mm.record(outdir, "tiny_pools_op17", model, 17, {"image": {"dtype": "float32"}},
              {"bindings": [{"N": 2, "H": 1, "W": 4}, {"N": 1, "H": 9, "W": 13}],
               "domain": {"N": {"min": 0}, "H": {"min": 1}, "W": {"min": 4}}, "vary": ["H", "W"]}, unshaped_outputs=True)


def main():
    outdir = sys.argv[1]
    os.makedirs(outdir, exist_ok=True)
    wav2vec2_lengths(outdir)
    for opset in (13, 17):
        idioms(outdir, opset)
    silero_pt2(outdir)
    silero_pt2_nested(outdir)
    silero_v5_like(outdir)
    cnn_dynamic(outdir)
    tiny_pools(outdir)
    with open(os.path.join(outdir, "manifest.json"), "w") as fh:
        import json
        json.dump(mm.MODELS, fh, indent=1)
    print(f"{len(mm.MODELS)} models written to {outdir}")


if __name__ == "__main__":
    main()
