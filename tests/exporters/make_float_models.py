"""Sizes computed in float (make_models.py imports this): the idioms torchvision's detection models
and F.interpolate emit, exported by torch.onnx so that the differential compares every value the
runtime computes through float32 with the engine's float32 expressions.

  RCNNTransform   torchvision's GeneralizedRCNNTransform: scale = min(min_size / min(h, w),
                  max_size / max(h, w)) in float, interpolate(scale_factor=scale,
                  recompute_scale_factor=True), then batching pads every size up to a multiple of
                  32 through Cast -> Div -> Ceil -> Mul -> Cast;
  Interpolate     F.interpolate by 2 (Resize scales), by 0.5 and 1.5 with recompute_scale_factor
                  (Floor(size * s) computed in the graph), by (0.3, 2.5) (Resize scales),
                  Upsample-style by 2 then Concat with a skip connection;
  FixedPadding    a fixed-size input padded to a multiple of 32 through float arithmetic on
                  constants (every value folds), and the same on dynamic sizes;
  FloatRange      torch.arange over a size computed in float (Range with float bounds);
  scale_resize    (onnx.helper: torch cannot trace a tensor scale into F.interpolate) Resize by
                  scales computed in the graph, min(64 / W, 2), and Upsample (opset 9) by them.
"""
import numpy as np
import onnx
import torch
import torch.nn as nn
import torch.nn.functional as F
from torchvision.models.detection.transform import GeneralizedRCNNTransform


class RCNNTransform(nn.Module):
    def __init__(self):
        super().__init__()
        self.t = GeneralizedRCNNTransform(64, 100, [0.485, 0.456, 0.406], [0.229, 0.224, 0.225])

    def forward(self, x):
        images, _ = self.t([x[0]])
        return images.tensors


class Interpolate(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 3, 3, stride=2, padding=1)

    def forward(self, x):
        up = F.interpolate(x, scale_factor=2.0, mode="nearest")
        half = F.interpolate(x, scale_factor=0.5, mode="bilinear", recompute_scale_factor=True)
        grown = F.interpolate(x, scale_factor=1.5, mode="nearest", recompute_scale_factor=True)
        uneven = F.interpolate(x, scale_factor=(0.3, 2.5), mode="nearest")
        skip = F.interpolate(self.conv(x), scale_factor=2.0, mode="nearest")
        return up, half, grown, uneven, torch.cat([skip, skip], 1)


class FixedPadding(nn.Module):
    def forward(self, x):
        h = torch.tensor(x.shape[-2]).to(torch.float32)
        w = torch.tensor(x.shape[-1]).to(torch.float32)
        ph = (torch.ceil(h / 32) * 32).to(torch.int64) - x.shape[-2]
        pw = (torch.ceil(w / 32) * 32).to(torch.int64) - x.shape[-1]
        return F.pad(x, (0, int(pw), 0, int(ph)))


class FloatRange(nn.Module):
    def forward(self, x):
        half = torch.arange(0, x.shape[-1] * 0.5)
        rows = torch.arange(x.shape[-2] * 1.0)
        return x[..., : half.shape[0]], rows


def scale_resize(opset):
    """x [N, C, H, W] resized by (1, 1, s, s), s = min(64 / float(W), 2): Resize's output is
    Trunc(s * dim) in float32, scales and all."""
    from onnx import TensorProto, helper, numpy_helper

    def const(name, values, dtype):
        return numpy_helper.from_array(np.array(values, dtype=dtype), name)

    nodes = [
        helper.make_node("Shape", ["x"], ["shape"]),
        helper.make_node("Gather", ["shape", "three"], ["w"], axis=0),
        helper.make_node("Cast", ["w"], ["wf"], to=TensorProto.FLOAT),
        helper.make_node("Div", ["sixty_four", "wf"], ["ratio"]),
        helper.make_node("Min", ["ratio", "two"], ["s"]),
        helper.make_node("Unsqueeze", ["s", "zero"], ["s1"]),
        helper.make_node("Concat", ["ones", "s1", "s1"], ["scales"], axis=0),
        helper.make_node("Resize", ["x", "", "scales"], ["y"], mode="nearest"),
    ]
    inits = [const("three", 3, np.int64), const("sixty_four", 64.0, np.float32), const("two", 2.0, np.float32),
             const("zero", [0], np.int64), const("ones", [1.0, 1.0], np.float32)]
    graph = helper.make_graph(
        nodes, "scale_resize",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch_size", 3, "height", "width"])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])


def float_models(outdir, opset, export, record):
    """Exports the models above with `export` and `record` (make_models.py)."""
    image = {"x": {"dtype": "float32"}}
    dyn = {"x": {0: "batch_size", 2: "height", 3: "width"}}
    export(outdir, f"rcnn_transform_op{opset}", RCNNTransform(), (torch.randn(1, 3, 112, 96),), ["x"], ["y"],
           dyn, image, opset)
    outs = ["up", "half", "grown", "uneven", "skip"]
    export(outdir, f"interpolate_op{opset}", Interpolate(), (torch.randn(2, 3, 32, 24),), ["x"], outs, dyn,
           image, opset)
    export(outdir, f"fixed_padding_op{opset}", FixedPadding(), (torch.randn(1, 3, 100, 90),), ["x"], ["y"],
           {"x": {0: "batch_size"}}, image, opset)
    export(outdir, f"dynamic_padding_op{opset}", FixedPadding(), (torch.randn(1, 3, 100, 90),), ["x"], ["y"],
           dyn, image, opset)
    export(outdir, f"float_range_op{opset}", FloatRange(), (torch.randn(1, 3, 32, 24),), ["x"], ["y", "rows"],
           dyn, image, opset)
    record(outdir, f"scale_resize_op{opset}", scale_resize(opset), opset, image, unshaped_outputs=True)
