"""Independent MAC counts for the cost model (README "Cost", "Checked against PyTorch").

Builds eager torch modules (torchvision's with weights=None, and LLM-style decoders written after the
models' own code in tests/exporters), counts the MACs of one forward pass at given sizes with
PyTorch's own profiler, and exports each module to ONNX with dynamic axes, so that the engine's
symbolic count can be evaluated at the same sizes (tests/js/cost_torch.test.js,
tests/bench/cost_torch.mjs):

    /usr/bin/python3 tests/cost/torch_reference.py OUTDIR [--set ci|bench] [--only a,b]

writes OUTDIR/<name>.onnx and OUTDIR/reference.json:
    [{"name", "onnx", "params", "cases": [{"bindings", "macs", "profiled", "derived"}]}]

torch 1.13's profiler (torch.profiler.profile(with_flops=True)) reports 2*MACs for aten::conv2d and
the mm family (mm, addmm, bmm, baddbmm; Linear, matmul and einsum run through them): `profiled` is
half their sum. The other convolutions (conv1d, conv3d, conv_transpose*) it does not count; their
MACs (`derived`) come from each module's attributes (channels, groups, kernel) and the shapes a
forward hook sees. `params` is torch's count of the module's parameters. Nothing here reads the
ONNX file: the two sides meet only in the test.
"""
import argparse
import json
import math
import os
import sys
import warnings

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.profiler import ProfilerActivity, profile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "exporters"))
from make_models import GPT2, Llama  # noqa: E402  (the exporters' LLM-style modules)
from make_llm_models import Bloom  # noqa: E402

warnings.filterwarnings("ignore")
torch.manual_seed(0)
PROFILED = {"aten::conv2d", "aten::mm", "aten::addmm", "aten::bmm", "aten::baddbmm"}
VOCAB = 50


def profiled_macs(module, args):
    with torch.no_grad(), profile(activities=[ProfilerActivity.CPU], with_flops=True) as p:
        module(*args)
    flops = sum(e.flops for e in p.events() if e.name in PROFILED and e.flops)
    assert flops % 2 == 0
    return flops // 2


def derived_macs(module, args):
    """MACs of the convolutions the profiler does not count, from the modules' attributes."""
    total = [0]

    def conv(m, inputs, output):
        n_out = math.prod(output.shape)
        total[0] += n_out * (m.in_channels // m.groups) * math.prod(m.kernel_size)

    def conv_t(m, inputs, output):
        n_in = math.prod(inputs[0].shape)
        total[0] += n_in * (m.out_channels // m.groups) * math.prod(m.kernel_size)

    hooks = []
    for m in module.modules():
        if isinstance(m, (nn.Conv1d, nn.Conv3d)):
            hooks.append(m.register_forward_hook(conv))
        elif isinstance(m, (nn.ConvTranspose1d, nn.ConvTranspose2d, nn.ConvTranspose3d)):
            hooks.append(m.register_forward_hook(conv_t))
    with torch.no_grad():
        module(*args)
    for h in hooks:
        h.remove()
    return total[0]


def randomize_norms(module):
    """Random BatchNorm statistics and affine parameters: the exporter then has no equal tensors to
    share (weights=None makes every BatchNorm's the same), so the ONNX file keeps each of them."""
    for m in module.modules():
        if isinstance(m, nn.modules.batchnorm._BatchNorm):
            with torch.no_grad():
                m.weight.uniform_(0.5, 1.5)
                m.bias.uniform_(-0.5, 0.5)
                m.running_mean.uniform_(-0.5, 0.5)
                m.running_var.uniform_(0.5, 1.5)
    return module


# Section - Models. Each: build() -> module; args(b) -> inputs at sizes b; the ONNX names and axes;
# the sizes exported at and the cases compared.


def vision(name, bindings, fold=False):
    import torchvision
    build = lambda: randomize_norms(getattr(torchvision.models, name)(weights=None))
    args = lambda b: (torch.randn(b["batch"], 3, b["height"], b["width"]),)
    return dict(build=build, args=args, inputs=["x"], outputs=["y"], fold=fold,
                axes={"x": {0: "batch", 2: "height", 3: "width"}, "y": {0: "batch"}}, cases=bindings)


class Convs(nn.Module):
    """Convolutions the profiler does not count, next to ones it does."""

    def __init__(self):
        super().__init__()
        self.c1 = nn.Conv1d(4, 8, 3, stride=2, groups=2, padding=1)
        self.c3 = nn.Conv3d(4, 6, (3, 3, 2), padding=(1, 0, 1), dilation=(1, 2, 1))
        self.t2 = nn.ConvTranspose2d(8, 6, 3, stride=2, groups=2, padding=1, output_padding=1)
        self.t1 = nn.ConvTranspose1d(8, 4, 4, stride=3)
        self.c2 = nn.Conv2d(6, 10, 3, groups=2)
        self.fc = nn.Linear(10, 7)

    def forward(self, x1, x3, x2):
        a = self.t1(self.c1(x1))
        b = self.c3(x3)
        c = self.c2(self.t2(x2))
        return a, b, self.fc(c.mean((2, 3)))


def convs():
    args = lambda b: (torch.randn(b["n"], 4, b["length"]), torch.randn(b["n"], 4, b["depth"], b["height"], b["width"]),
                      torch.randn(b["n"], 8, b["height"], b["width"]))
    return dict(build=Convs, args=args, inputs=["x1", "x3", "x2"], outputs=["a", "b", "c"], fold=True,
                # the outputs' axes named here: torch 1.13 names them itself otherwise, and gives a's
                # length and b's depth one name although they differ
                axes={"x1": {0: "n", 2: "length"}, "x3": {0: "n", 2: "depth", 3: "height", 4: "width"},
                      "x2": {0: "n", 2: "height", 3: "width"}, "a": {0: "n", 2: "a_length"},
                      "b": {0: "n", 2: "b_depth", 3: "b_height", 4: "b_width"}, "c": {0: "n"}},
                cases=[{"n": 2, "length": 17, "depth": 5, "height": 9, "width": 7},
                       {"n": 1, "length": 30, "depth": 4, "height": 12, "width": 10}])


def decoder(make, past_shape, layers, extra_inputs=(), heads_axis=False):
    """A decoder with a KV cache: input_ids [batch, seq], attention_mask [batch, past_seq+seq], the
    caches [.., past_seq, ..]. past_shape(b) gives the cache tensors' shapes."""
    past = [f"past.{i}.{k}" for i in range(layers) for k in ("key", "value")]
    present = [f"present.{i}.{k}" for i in range(layers) for k in ("key", "value")]

    def args(b):
        t = [torch.randint(0, VOCAB, (b["batch"], b["seq"])), torch.ones(b["batch"], b["past_seq"] + b["seq"], dtype=torch.long)]
        for extra in extra_inputs:
            t.append(extra(b))
        for i in range(layers):
            kshape, vshape = past_shape(b)
            t += [torch.randn(*kshape), torch.randn(*vshape)]
        return tuple(t)

    axes = {"input_ids": {0: "batch", 1: "seq"}, "attention_mask": {0: "batch", 1: "past_seq+seq"},
            "logits": {0: "batch", 1: "seq"}}
    return dict(build=make, args=args, inputs=["input_ids", "attention_mask", *[e.__name__ for e in extra_inputs], *past],
                outputs=["logits", *present], fold=True, axes=axes, past=past, present=present,
                cases=[{"batch": 2, "seq": 5, "past_seq": 3}, {"batch": 1, "seq": 1, "past_seq": 0},
                       {"batch": 3, "seq": 7, "past_seq": 11}])


def position_ids(b):
    return torch.arange(b["past_seq"], b["past_seq"] + b["seq"]).unsqueeze(0).expand(b["batch"], b["seq"])


def llama():
    spec = decoder(lambda: Llama(hidden=64, heads=4, kv_heads=2, layers=2), lambda b: ((b["batch"], 2, b["past_seq"], 16),) * 2,
                   2, extra_inputs=(position_ids,))
    spec["axes"]["position_ids"] = {0: "batch", 1: "seq"}
    for n in spec["past"]:
        spec["axes"][n] = {0: "batch", 2: "past_seq"}
    for n in spec["present"]:
        spec["axes"][n] = {0: "batch", 2: "past_seq+seq"}
    return spec


def gpt2():
    spec = decoder(lambda: GPT2(hidden=32, heads=4, layers=2), lambda b: ((b["batch"], 4, b["past_seq"], 8),) * 2, 2)
    for n in spec["past"]:
        spec["axes"][n] = {0: "batch", 2: "past_seq"}
    for n in spec["present"]:
        spec["axes"][n] = {0: "batch", 2: "past_seq+seq"}
    return spec


def bloom():
    # caches over batch*heads: key [b*h, hd, past], value [b*h, past, hd]; baddbmm for the scores
    spec = decoder(lambda: Bloom(hidden=32, heads=4, layers=2),
                   lambda b: ((4 * b["batch"], 8, b["past_seq"]), (4 * b["batch"], b["past_seq"], 8)), 2)
    for n in spec["past"] + spec["present"]:
        seq = "past_seq" if n.startswith("past") else "past_seq+seq"
        spec["axes"][n] = {0: "4*batch", (2 if n.endswith("key") else 1): seq}
    return spec


def qwen2():
    from make_llm_models import Qwen2 as Q
    spec = decoder(lambda: Q(), lambda b: ((b["batch"], 2, b["past_seq"], 8),) * 2, 1)
    for n in spec["past"]:
        spec["axes"][n] = {0: "batch", 2: "past_seq"}
    for n in spec["present"]:
        spec["axes"][n] = {0: "batch", 2: "past_seq+seq"}
    return spec


class EinsumAttention(nn.Module):
    """Attention written with einsum (T5, Longformer and others do), projections as Linear."""

    def __init__(self, hidden=32, heads=4):
        super().__init__()
        self.heads, self.hd = heads, hidden // heads
        self.qkv, self.out = nn.Linear(hidden, 3 * hidden), nn.Linear(hidden, hidden)

    def forward(self, x):
        b, s, _ = x.shape
        q, k, v = self.qkv(x).view(b, s, 3, self.heads, self.hd).unbind(2)
        w = torch.einsum("bqhd,bkhd->bhqk", q, k).softmax(-1)
        a = torch.einsum("bhqk,bkhd->bqhd", w, v).reshape(b, s, -1)
        return self.out(a)


def einsum_attention():
    return dict(build=EinsumAttention, args=lambda b: (torch.randn(b["batch"], b["seq"], 32),), inputs=["x"], outputs=["y"],
                fold=True, axes={"x": {0: "batch", 1: "seq"}, "y": {0: "batch", 1: "seq"}},
                # (at seq 1 torch runs the einsums as products and sums, which its profiler does not count)
                cases=[{"batch": 2, "seq": 9}, {"batch": 1, "seq": 3}])


IMAGE = [{"batch": 1, "height": 224, "width": 224}, {"batch": 2, "height": 160, "width": 128}]
CI = {
    "resnet18": lambda: vision("resnet18", IMAGE),
    "mobilenet_v3_small": lambda: vision("mobilenet_v3_small", [{"batch": 2, "height": 128, "width": 96}]),
    "convs": convs,
    "llama": llama,
    "gpt2": gpt2,
    "bloom": bloom,
    "einsum_attention": einsum_attention,
}
BENCH = dict(CI, **{
    name: (lambda n=name: vision(n, IMAGE)) for name in (
        "resnet50", "mobilenet_v2", "efficientnet_b0", "convnext_tiny", "regnet_y_400mf", "shufflenet_v2_x1_0",
        "squeezenet1_1", "densenet121", "googlenet", "vgg11", "vit_b_16", "swin_t", "resnext50_32x4d")
}, qwen2=qwen2)


def run(name, spec, outdir):
    module = spec["build"]().eval()
    first = spec["cases"][0]
    path = os.path.join(outdir, name + ".onnx")
    with torch.no_grad():
        # fold=False keeps BatchNormalization as it is (in eval mode torch fuses it into the Conv
        # otherwise), so that the file has the module's own parameters
        torch.onnx.export(module, spec["args"](first), path, input_names=spec["inputs"], output_names=spec["outputs"],
                          dynamic_axes=spec["axes"], opset_version=14, do_constant_folding=spec["fold"],
                          training=torch.onnx.TrainingMode.EVAL if spec["fold"] else torch.onnx.TrainingMode.PRESERVE)
    cases = []
    for b in spec["cases"]:
        args = spec["args"](b)
        p, d = profiled_macs(module, args), derived_macs(module, args)
        bindings = {k: v for k, v in b.items()}
        cases.append({"bindings": bindings, "macs": p + d, "profiled": p, "derived": d})
    return {"name": name, "onnx": os.path.basename(path), "params": sum(t.numel() for t in module.parameters()), "cases": cases}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("outdir")
    ap.add_argument("--set", choices=["ci", "bench"], default="ci")
    ap.add_argument("--only", default="")
    a = ap.parse_args()
    specs = CI if a.set == "ci" else BENCH
    names = [n for n in specs if not a.only or n in a.only.split(",")]
    os.makedirs(a.outdir, exist_ok=True)
    out = []
    for n in names:
        out.append(run(n, specs[n](), a.outdir))
        print(n, out[-1]["cases"][0]["macs"], flush=True)
    with open(os.path.join(a.outdir, "reference.json"), "w") as f:
        json.dump(out, f, indent=1)


if __name__ == "__main__":
    main()
