"""Scripted lists (make_models.py imports this): torch.jit.script code whose Python lists torch.onnx
exports as ONNX sequences, so that the differential compares what SplitToSequence, SequenceAt,
SequenceInsert, ConcatFromSequence and Loops building sequences compute with onnxruntime.
"""
from typing import List

import torch
import torch.nn as nn


# Lists in scripted code become ONNX sequences: torch.split by sizes and chunk (SplitToSequence, then
# SequenceAt), unbind looped over and stacked (a scalar split of 1 with keepdims = 0, a Loop
# appending to a sequence, ConcatFromSequence: sequence_length elements), and prefixes of different
# lengths collected by a loop over a constant range (a Loop the shapes decide: each element keeps its
# own shape).


@torch.jit.script
def split_pieces(x):
    parts = torch.split(x, [3, 5], dim=1)
    halves = torch.chunk(x, 2, dim=2)
    return parts[0], parts[1], halves[1]


@torch.jit.script
def doubled_steps(x):
    outs: List[torch.Tensor] = []
    for t in torch.unbind(x, 2):
        outs.append(t * 2)
    return torch.stack(outs, 2)


@torch.jit.script
def prefixes(x):
    outs: List[torch.Tensor] = []
    for i in range(3):
        outs.append(x[:, : i + 1])
    return outs[1], torch.cat(outs, 1)


class Lists(nn.Module):
    def forward(self, x):
        first, second, half = split_pieces(x)
        two, joined = prefixes(x)
        return first, second, half, doubled_steps(x), two, joined


def list_models(outdir, opset, export):
    """Exports the models above with `export` (make_models.py)."""
    outs = ["first", "second", "half", "stacked", "prefix", "prefixes"]
    dyn = {"x": {0: "batch_size", 2: "sequence_length"}, **{o: {0: "batch_size"} for o in outs}}
    export(outdir, f"lists_op{opset}", Lists(), (torch.randn(2, 8, 6),), ["x"], outs, dyn,
           {"x": {"dtype": "float32"}}, opset)
