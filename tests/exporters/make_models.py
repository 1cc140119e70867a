#!/usr/bin/python3
"""Generates exporter-shaped ONNX models for the differential test of onnx-shapes.

Run with Debian's python3 (python3-torch 1.13, python3-onnx 1.12):
    /usr/bin/python3 tests/exporters/make_models.py OUTDIR

For every model NAME it writes into OUTDIR:
  NAME.onnx       the model as exported (torch.onnx.export, TorchScript exporter) or built
                  with onnx.helper where torch 1.13 cannot express the pattern;
  NAME.all.onnx   the same model with every node output appended as a graph output (no type),
                  so that onnxruntime reports the shape of every intermediate value;
  NAME.graph.json the main graph summarized for the checker's analyses (graph_summary: which
                  values have data-dependent shapes);
and one manifest.json: [{name, file, allFile, opset, inputs: [{name, dtype, dims, high?}],
outputs: {name: declared dims}, bindings: [{symbol: size}, ...]}].

Nothing here is committed output: the test generates the models into a temporary folder.
Models are tiny (hidden 32-64, 1-2 layers) so the whole run takes a few seconds.
"""
import json
import math
import os
import sys
import warnings

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

import torch
import torch.nn as nn
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from make_float_models import float_models  # noqa: E402  (sizes computed in float)
from make_list_models import list_models  # noqa: E402  (scripted lists: ONNX sequences)
from make_llm_models import llm_models  # noqa: E402  (more LLM-style decoders and encoders)

warnings.filterwarnings("ignore")
torch.manual_seed(0)

# Two bindings of the symbols, one with an empty cache.
BINDINGS = [
    {"batch_size": 2, "sequence_length": 3, "past_sequence_length": 0, "height": 32, "width": 24,
     "num_frames": 16},
    {"batch_size": 1, "sequence_length": 5, "past_sequence_length": 4, "height": 40, "width": 56,
     "num_frames": 23},
]
for b in BINDINGS:
    b["total_sequence_length"] = b["past_sequence_length"] + b["sequence_length"]

VOCAB = 50
MODELS = []


def dims_of(value_info):
    t = value_info.type.tensor_type
    if not t.HasField("shape"):
        return None
    return [d.dim_param if d.HasField("dim_param") else d.dim_value for d in t.shape.dim]


def expose_all(model):
    """A copy of `model` with every node output (in the main graph) as an extra graph output."""
    m = onnx.ModelProto()
    m.CopyFrom(model)
    # onnxruntime-node returns tensors only: leave out values that onnx's inference types as
    # sequences (or optionals), and outputs of sequence ops.
    inferred = onnx.shape_inference.infer_shapes(model)
    kinds = {vi.name: vi.type.WhichOneof("value") for vi in inferred.graph.value_info}
    have = {o.name for o in m.graph.output}
    for node in m.graph.node:
        seq_op = node.op_type.startswith("Sequence") or node.op_type == "SplitToSequence"
        for out in node.output:
            if seq_op or kinds.get(out, "tensor_type") != "tensor_type":
                continue
            if out and out not in have:
                have.add(out)
                m.graph.output.append(onnx.ValueInfoProto(name=out))
    return m


def json_number(v):
    """A number JSON can hold: a NaN or infinity (attention masks) as its name."""
    return v if not isinstance(v, float) or math.isfinite(v) else str(v)


def tensor_summary(t):
    """A tensor as JSON: its dtype and dims, and its values when it has at most 8."""
    small = len(t.dims) <= 1 and (t.dims[0] if t.dims else 1) <= 8
    values = [json_number(v) for v in onnx.numpy_helper.to_array(t).flatten().tolist()] if small else None
    return {"dtype": TensorProto.DataType.Name(t.data_type).lower(), "dims": list(t.dims),
            **({"values": values} if small else {})}


def attr_summary(a):
    """An attribute as JSON: numbers, strings and number lists as they are; a tensor summarized; a
    subgraph as the op types it holds."""
    if a.type in (onnx.AttributeProto.INT, onnx.AttributeProto.FLOAT, onnx.AttributeProto.STRING,
                  onnx.AttributeProto.INTS, onnx.AttributeProto.FLOATS):
        v = helper.get_attribute_value(a)
        if isinstance(v, bytes):
            return v.decode()
        return [json_number(x) for x in v] if isinstance(v, (list, tuple)) else json_number(v)
    if a.type == onnx.AttributeProto.TENSOR:
        return tensor_summary(a.t)
    if a.type == onnx.AttributeProto.GRAPH:
        return {"graph": sorted(subgraph_ops(a.g)), "implicit": sorted(outer_names(a.g))}
    return None


def subgraph_ops(g):
    """The op types of a subgraph and of the subgraphs nested in it."""
    ops = set()
    for n in g.node:
        ops.add(n.op_type)
        for a in n.attribute:
            if a.type == onnx.AttributeProto.GRAPH:
                ops |= subgraph_ops(a.g)
    return ops


def outer_names(g):
    """The values a subgraph (or one nested in it) reads from the scopes around it."""
    local = {i.name for i in g.input} | {t.name for t in g.initializer}
    local |= {o for n in g.node for o in n.output}
    used = set()
    for n in g.node:
        used |= set(n.input)
        for a in n.attribute:
            if a.type == onnx.AttributeProto.GRAPH:
                used |= outer_names(a.g)
    return {u for u in used if u and u not in local}


def graph_summary(model):
    """The main graph for the checker's analyses (producing op, node chains, data dependence)."""
    g = model.graph
    return {
        "inputs": [i.name for i in g.input], "outputs": [o.name for o in g.output],
        "initializers": {t.name: tensor_summary(t) for t in g.initializer},
        "nodes": [{"op": n.op_type, "domain": n.domain, "name": n.name, "inputs": list(n.input),
                   "outputs": list(n.output), "attrs": {a.name: attr_summary(a) for a in n.attribute}}
                  for n in g.node],
    }


def record(outdir, name, model, opset, inputs, extra=None, unshaped_outputs=False):
    """Writes NAME.onnx, NAME.all.onnx and a manifest entry. `inputs`: {name: {dtype, high?}}.
    unshaped_outputs: the graph outputs are checked with a scalar shape, written with none."""
    if unshaped_outputs:
        for o in model.graph.output:
            o.type.tensor_type.shape.SetInParent()
    onnx.checker.check_model(model)
    if unshaped_outputs:
        for o in model.graph.output:
            o.type.tensor_type.ClearField("shape")
    path = os.path.join(outdir, name + ".onnx")
    onnx.save(model, path)
    onnx.save(expose_all(model), os.path.join(outdir, name + ".all.onnx"))
    with open(os.path.join(outdir, name + ".graph.json"), "w") as fh:
        json.dump(graph_summary(model), fh, allow_nan=False)
    init_names = {i.name for i in model.graph.initializer}
    ins = []
    for vi in model.graph.input:
        if vi.name in init_names:
            continue
        spec = dict(inputs[vi.name])
        spec["name"] = vi.name
        spec["dims"] = dims_of(vi)
        ins.append(spec)
    entry = {
        "name": name,
        "file": name + ".onnx",
        "allFile": name + ".all.onnx",
        "graphFile": name + ".graph.json",
        "opset": opset,
        "inputs": ins,
        "outputs": {o.name: dims_of(o) for o in model.graph.output},
        "bindings": BINDINGS,
    }
    if extra:
        entry.update(extra)
    MODELS.append(entry)


def export(outdir, name, module, args, input_names, output_names, dynamic_axes, inputs, opset, extra=None):
    path = os.path.join(outdir, name + ".onnx")
    module.eval()
    with torch.no_grad():
        torch.onnx.export(module, args, path, input_names=input_names, output_names=output_names,
                          dynamic_axes=dynamic_axes, opset_version=opset, do_constant_folding=True)
    record(outdir, name, onnx.load(path), opset, inputs, extra)


# Section - GPT-2 decoder with past_key_values


class GPT2Attention(nn.Module):
    def __init__(self, hidden, heads, max_pos):
        super().__init__()
        self.heads, self.hd = heads, hidden // heads
        self.c_attn = nn.Linear(hidden, 3 * hidden)
        self.c_proj = nn.Linear(hidden, hidden)
        self.register_buffer("bias", torch.tril(torch.ones(max_pos, max_pos, dtype=torch.bool)).view(
            1, 1, max_pos, max_pos))
        self.register_buffer("masked_bias", torch.tensor(-1e4))

    def split_heads(self, x):
        new_shape = x.size()[:-1] + (self.heads, self.hd)
        return x.view(new_shape).permute(0, 2, 1, 3)

    def forward(self, h, past_k, past_v, ext_mask):
        q, k, v = self.c_attn(h).split(self.heads * self.hd, dim=2)
        q, k, v = self.split_heads(q), self.split_heads(k), self.split_heads(v)
        k = torch.cat((past_k, k), dim=-2)
        v = torch.cat((past_v, v), dim=-2)
        w = torch.matmul(q, k.transpose(-1, -2)) / (float(v.size(-1)) ** 0.5)
        query_length, key_length = q.size(-2), k.size(-2)
        causal = self.bias[:, :, key_length - query_length:key_length, :key_length]
        w = torch.where(causal, w, self.masked_bias.to(w.dtype))
        w = w + ext_mask
        w = F.softmax(w, dim=-1)
        a = torch.matmul(w, v)
        a = a.permute(0, 2, 1, 3).contiguous()
        a = a.view(a.size()[:-2] + (self.heads * self.hd,))
        return self.c_proj(a), k, v


class GPT2(nn.Module):
    def __init__(self, hidden=32, heads=4, layers=2, max_pos=64):
        super().__init__()
        self.wte = nn.Embedding(VOCAB, hidden)
        self.wpe = nn.Embedding(max_pos, hidden)
        self.ln1 = nn.ModuleList(nn.LayerNorm(hidden) for _ in range(layers))
        self.attn = nn.ModuleList(GPT2Attention(hidden, heads, max_pos) for _ in range(layers))
        self.ln2 = nn.ModuleList(nn.LayerNorm(hidden) for _ in range(layers))
        self.mlp = nn.ModuleList(
            nn.Sequential(nn.Linear(hidden, 4 * hidden), nn.GELU(), nn.Linear(4 * hidden, hidden))
            for _ in range(layers))
        self.ln_f = nn.LayerNorm(hidden)
        self.head = nn.Linear(hidden, VOCAB, bias=False)

    def forward(self, input_ids, attention_mask, *past):
        input_shape = input_ids.size()
        past_length = past[0].size(-2)
        position_ids = torch.arange(past_length, input_shape[-1] + past_length, dtype=torch.long)
        position_ids = position_ids.unsqueeze(0).view(-1, input_shape[-1])
        ext = attention_mask.view(input_shape[0], -1)[:, None, None, :].to(torch.float32)
        ext = (1.0 - ext) * -10000.0
        h = self.wte(input_ids) + self.wpe(position_ids)
        presents = []
        for i, attn in enumerate(self.attn):
            a, k, v = attn(self.ln1[i](h), past[2 * i], past[2 * i + 1], ext)
            presents += [k, v]
            h = h + a
            h = h + self.mlp[i](self.ln2[i](h))
        return (self.head(self.ln_f(h)), *presents)


def kv_names(layers, prefix):
    names = []
    for i in range(layers):
        names += [f"{prefix}.{i}.key", f"{prefix}.{i}.value"]
    return names


def gpt2(outdir, opset):
    layers, heads, hidden = 2, 4, 32
    hd = hidden // heads
    b, t, p = 2, 3, 4
    past = [torch.randn(b, heads, p, hd) for _ in range(2 * layers)]
    args = (torch.randint(0, VOCAB, (b, t)), torch.ones(b, p + t, dtype=torch.long), *past)
    past_names, present_names = kv_names(layers, "past_key_values"), kv_names(layers, "present")
    dyn = {"input_ids": {0: "batch_size", 1: "sequence_length"},
           "attention_mask": {0: "batch_size", 1: "total_sequence_length"},
           "logits": {0: "batch_size", 1: "sequence_length"}}
    for n in past_names:
        dyn[n] = {0: "batch_size", 2: "past_sequence_length"}
    for n in present_names:
        dyn[n] = {0: "batch_size", 2: "total_sequence_length"}
    inputs = {"input_ids": {"dtype": "int64", "high": VOCAB}, "attention_mask": {"dtype": "int64", "high": 2}}
    for n in past_names:
        inputs[n] = {"dtype": "float32"}
    export(outdir, f"gpt2_op{opset}", GPT2(hidden, heads, layers), args,
           ["input_ids", "attention_mask", *past_names], ["logits", *present_names], dyn, inputs, opset)


# Section - Llama block: RMSNorm, rotary embeddings, GQA repeat_kv, Range/Less/Where causal mask


class RMSNorm(nn.Module):
    def __init__(self, hidden, eps=1e-6):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(hidden))
        self.eps = eps

    def forward(self, x):
        var = x.to(torch.float32).pow(2).mean(-1, keepdim=True)
        return self.weight * (x * torch.rsqrt(var + self.eps))


def rotate_half(x):
    x1 = x[..., : x.shape[-1] // 2]
    x2 = x[..., x.shape[-1] // 2:]
    return torch.cat((-x2, x1), dim=-1)


def repeat_kv(x, n_rep):
    b, kvh, slen, hd = x.shape
    if n_rep == 1:
        return x
    x = x[:, :, None, :, :].expand(b, kvh, n_rep, slen, hd)
    return x.reshape(b, kvh * n_rep, slen, hd)


def make_causal_mask(bsz, tgt_len, past_len, dtype):
    mask = torch.full((tgt_len, tgt_len), torch.finfo(dtype).min)
    cond = torch.arange(mask.size(-1))
    mask.masked_fill_(cond < (cond + 1).view(mask.size(-1), 1), 0)
    mask = mask.to(dtype)
    if past_len > 0 or torch.onnx.is_in_onnx_export():
        mask = torch.cat([torch.zeros(tgt_len, past_len, dtype=dtype), mask], dim=-1)
    return mask[None, None, :, :].expand(bsz, 1, tgt_len, tgt_len + past_len)


def expand_mask(mask, dtype, tgt_len):
    bsz, src_len = mask.size()
    expanded = mask[:, None, None, :].expand(bsz, 1, tgt_len, src_len).to(dtype)
    inverted = 1.0 - expanded
    return inverted.masked_fill(inverted.to(torch.bool), torch.finfo(dtype).min)


class LlamaLayer(nn.Module):
    def __init__(self, hidden, heads, kv_heads, max_pos):
        super().__init__()
        self.heads, self.kv_heads, self.hd = heads, kv_heads, hidden // heads
        self.q = nn.Linear(hidden, heads * self.hd, bias=False)
        self.k = nn.Linear(hidden, kv_heads * self.hd, bias=False)
        self.v = nn.Linear(hidden, kv_heads * self.hd, bias=False)
        self.o = nn.Linear(heads * self.hd, hidden, bias=False)
        self.norm1, self.norm2 = RMSNorm(hidden), RMSNorm(hidden)
        self.gate = nn.Linear(hidden, 2 * hidden, bias=False)
        self.up = nn.Linear(hidden, 2 * hidden, bias=False)
        self.down = nn.Linear(2 * hidden, hidden, bias=False)
        inv_freq = 1.0 / (10000 ** (torch.arange(0, self.hd, 2).float() / self.hd))
        t = torch.arange(max_pos, dtype=torch.float32)
        emb = torch.cat((torch.outer(t, inv_freq),) * 2, dim=-1)
        self.register_buffer("cos_cached", emb.cos()[None, None, :, :])
        self.register_buffer("sin_cached", emb.sin()[None, None, :, :])

    def forward(self, x, mask, position_ids, past_k, past_v):
        bsz, q_len, _ = x.size()
        h = self.norm1(x)
        q = self.q(h).view(bsz, q_len, self.heads, self.hd).transpose(1, 2)
        k = self.k(h).view(bsz, q_len, self.kv_heads, self.hd).transpose(1, 2)
        v = self.v(h).view(bsz, q_len, self.kv_heads, self.hd).transpose(1, 2)
        kv_seq_len = k.shape[-2] + past_k.shape[-2]
        cos = self.cos_cached[:, :, :kv_seq_len, ...].to(x.dtype)
        sin = self.sin_cached[:, :, :kv_seq_len, ...].to(x.dtype)
        cos = cos.squeeze(1).squeeze(0)[position_ids].unsqueeze(1)
        sin = sin.squeeze(1).squeeze(0)[position_ids].unsqueeze(1)
        q = (q * cos) + (rotate_half(q) * sin)
        k = (k * cos) + (rotate_half(k) * sin)
        k = torch.cat([past_k, k], dim=2)
        v = torch.cat([past_v, v], dim=2)
        present = (k, v)
        k = repeat_kv(k, self.heads // self.kv_heads)
        v = repeat_kv(v, self.heads // self.kv_heads)
        w = torch.matmul(q, k.transpose(2, 3)) / math.sqrt(self.hd)
        w = w + mask
        w = F.softmax(w, dim=-1, dtype=torch.float32).to(q.dtype)
        a = torch.matmul(w, v).transpose(1, 2).reshape(bsz, q_len, self.heads * self.hd)
        x = x + self.o(a)
        h = self.norm2(x)
        x = x + self.down(F.silu(self.gate(h)) * self.up(h))
        return x, present


class Llama(nn.Module):
    def __init__(self, hidden=64, heads=4, kv_heads=2, layers=1, max_pos=64):
        super().__init__()
        self.embed = nn.Embedding(VOCAB, hidden)
        self.layers = nn.ModuleList(LlamaLayer(hidden, heads, kv_heads, max_pos) for _ in range(layers))
        self.norm = RMSNorm(hidden)
        self.head = nn.Linear(hidden, VOCAB, bias=False)

    def forward(self, input_ids, attention_mask, position_ids, *past):
        bsz, seq = input_ids.shape
        past_len = past[0].shape[2]
        x = self.embed(input_ids)
        mask = make_causal_mask(bsz, seq, past_len, x.dtype) + expand_mask(attention_mask, x.dtype, seq)
        presents = []
        for i, layer in enumerate(self.layers):
            x, (k, v) = layer(x, mask, position_ids, past[2 * i], past[2 * i + 1])
            presents += [k, v]
        return (self.head(self.norm(x)), *presents)


def llama(outdir, opset):
    layers, heads, kv_heads, hidden = 1, 4, 2, 64
    hd = hidden // heads
    b, t, p = 2, 3, 4
    past = [torch.randn(b, kv_heads, p, hd) for _ in range(2 * layers)]
    args = (torch.randint(0, VOCAB, (b, t)), torch.ones(b, p + t, dtype=torch.long),
            torch.arange(p, p + t).unsqueeze(0).expand(b, t), *past)
    past_names, present_names = kv_names(layers, "past_key_values"), kv_names(layers, "present")
    dyn = {"input_ids": {0: "batch_size", 1: "sequence_length"},
           "attention_mask": {0: "batch_size", 1: "total_sequence_length"},
           "position_ids": {0: "batch_size", 1: "sequence_length"},
           "logits": {0: "batch_size", 1: "sequence_length"}}
    for n in past_names:
        dyn[n] = {0: "batch_size", 2: "past_sequence_length"}
    for n in present_names:
        dyn[n] = {0: "batch_size", 2: "total_sequence_length"}
    inputs = {"input_ids": {"dtype": "int64", "high": VOCAB}, "attention_mask": {"dtype": "int64", "high": 2},
              "position_ids": {"dtype": "int64", "fill": "positions"}}
    for n in past_names:
        inputs[n] = {"dtype": "float32"}
    export(outdir, f"llama_op{opset}", Llama(hidden, heads, kv_heads, layers), args,
           ["input_ids", "attention_mask", "position_ids", *past_names], ["logits", *present_names], dyn,
           inputs, opset)


# Section - BERT encoder: token_type_ids, attention mask extension


class Bert(nn.Module):
    def __init__(self, hidden=32, heads=4, max_pos=64):
        super().__init__()
        self.word = nn.Embedding(VOCAB, hidden)
        self.pos = nn.Embedding(max_pos, hidden)
        self.tok = nn.Embedding(2, hidden)
        self.register_buffer("position_ids", torch.arange(max_pos).expand((1, -1)))
        self.ln = nn.LayerNorm(hidden)
        self.heads, self.hd = heads, hidden // heads
        self.qkv = nn.ModuleList(nn.Linear(hidden, hidden) for _ in range(3))
        self.out = nn.Linear(hidden, hidden)
        self.ln2 = nn.LayerNorm(hidden)
        self.ffn = nn.Sequential(nn.Linear(hidden, 2 * hidden), nn.GELU(), nn.Linear(2 * hidden, hidden))
        self.pool = nn.Linear(hidden, hidden)

    def heads_first(self, x):
        new_shape = x.size()[:-1] + (self.heads, self.hd)
        return x.view(new_shape).permute(0, 2, 1, 3)

    def forward(self, input_ids, token_type_ids, attention_mask):
        seq_length = input_ids.size(1)
        position_ids = self.position_ids[:, :seq_length]
        x = self.ln(self.word(input_ids) + self.tok(token_type_ids) + self.pos(position_ids))
        ext = attention_mask.unsqueeze(1).unsqueeze(2).to(torch.float32)
        ext = (1.0 - ext) * torch.finfo(torch.float32).min
        q, k, v = (self.heads_first(l(x)) for l in self.qkv)
        s = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(self.hd) + ext
        a = torch.matmul(s.softmax(-1), v).permute(0, 2, 1, 3).contiguous()
        a = a.view(a.size()[:-2] + (self.heads * self.hd,))
        x = self.ln2(x + self.out(a))
        x = x + self.ffn(x)
        return x, torch.tanh(self.pool(x[:, 0]))


def bert(outdir, opset):
    b, t = 2, 5
    args = (torch.randint(0, VOCAB, (b, t)), torch.zeros(b, t, dtype=torch.long), torch.ones(b, t, dtype=torch.long))
    bs = {0: "batch_size", 1: "sequence_length"}
    dyn = {"input_ids": bs, "token_type_ids": bs, "attention_mask": bs, "last_hidden_state": bs,
           "pooler_output": {0: "batch_size"}}
    inputs = {"input_ids": {"dtype": "int64", "high": VOCAB}, "token_type_ids": {"dtype": "int64", "high": 2},
              "attention_mask": {"dtype": "int64", "high": 2}}
    export(outdir, f"bert_op{opset}", Bert(), args, ["input_ids", "token_type_ids", "attention_mask"],
           ["last_hidden_state", "pooler_output"], dyn, inputs, opset)


# Section - ViT patch embedding


class ViT(nn.Module):
    def __init__(self, hidden=32, patch=8, max_patches=256):
        super().__init__()
        self.proj = nn.Conv2d(3, hidden, kernel_size=patch, stride=patch)
        self.cls_token = nn.Parameter(torch.randn(1, 1, hidden))
        self.pos = nn.Parameter(torch.randn(1, max_patches + 1, hidden))
        self.ln = nn.LayerNorm(hidden)

    def forward(self, pixel_values):
        x = self.proj(pixel_values).flatten(2).transpose(1, 2)
        cls = self.cls_token.expand(x.shape[0], -1, -1)
        x = torch.cat((cls, x), dim=1)
        x = x + self.pos[:, : x.shape[1]]
        return self.ln(x), x[:, 0]


def vit(outdir, opset):
    args = (torch.randn(2, 3, 32, 24),)
    dyn = {"pixel_values": {0: "batch_size", 2: "height", 3: "width"},
           "last_hidden_state": {0: "batch_size", 1: "1 + (height // 8) * (width // 8)"},
           "cls_output": {0: "batch_size"}}
    export(outdir, f"vit_op{opset}", ViT(), args, ["pixel_values"], ["last_hidden_state", "cls_output"], dyn,
           {"pixel_values": {"dtype": "float32"}}, opset)


# Section - Whisper encoder front end: Conv1d, GELU, Conv1d stride 2


class WhisperFront(nn.Module):
    def __init__(self, hidden=32, max_pos=64):
        super().__init__()
        self.conv1 = nn.Conv1d(80, hidden, kernel_size=3, padding=1)
        self.conv2 = nn.Conv1d(hidden, hidden, kernel_size=3, stride=2, padding=1)
        self.embed_positions = nn.Embedding(max_pos, hidden)

    def forward(self, input_features):
        x = F.gelu(self.conv1(input_features))
        x = F.gelu(self.conv2(x))
        x = x.permute(0, 2, 1)
        x = x + self.embed_positions.weight[: x.shape[1]]
        return x


def whisper(outdir, opset):
    args = (torch.randn(2, 80, 16),)
    dyn = {"input_features": {0: "batch_size", 2: "num_frames"},
           "last_hidden_state": {0: "batch_size", 1: "(num_frames + 1) // 2"}}
    export(outdir, f"whisper_op{opset}", WhisperFront(), args, ["input_features"], ["last_hidden_state"], dyn,
           {"input_features": {"dtype": "float32"}}, opset)


# Section - T5 relative position buckets


def relative_position_bucket(relative_position, bidirectional, num_buckets=32, max_distance=128):
    relative_buckets = 0
    if bidirectional:
        num_buckets //= 2
        relative_buckets += (relative_position > 0).to(torch.long) * num_buckets
        relative_position = torch.abs(relative_position)
    else:
        relative_position = -torch.min(relative_position, torch.zeros_like(relative_position))
    max_exact = num_buckets // 2
    is_small = relative_position < max_exact
    large = max_exact + (torch.log(relative_position.float() / max_exact) / math.log(max_distance / max_exact)
                         * (num_buckets - max_exact)).to(torch.long)
    large = torch.min(large, torch.full_like(large, num_buckets - 1))
    relative_buckets += torch.where(is_small, relative_position, large)
    return relative_buckets


class T5Attention(nn.Module):
    def __init__(self, hidden=32, heads=4, num_buckets=32):
        super().__init__()
        self.heads, self.hd = heads, hidden // heads
        self.q, self.k, self.v, self.o = (nn.Linear(hidden, hidden, bias=False) for _ in range(4))
        self.rel = nn.Embedding(num_buckets, heads)

    def compute_bias(self, query_length, key_length, bidirectional, cache_position=None):
        if cache_position is None:
            context_position = torch.arange(query_length, dtype=torch.long)[:, None]
        else:
            context_position = cache_position[:, None]
        memory_position = torch.arange(key_length, dtype=torch.long)[None, :]
        buckets = relative_position_bucket(memory_position - context_position, bidirectional)
        return self.rel(buckets).permute([2, 0, 1]).unsqueeze(0)

    def shape(self, x, b):
        return x.view(b, -1, self.heads, self.hd).transpose(1, 2)

    def forward(self, x, past_k, past_v, bidirectional, legacy):
        b, seq = x.shape[:2]
        past = past_k.shape[2]
        real_seq = seq + past
        key_length = real_seq
        q = self.shape(self.q(x), b)
        k = torch.cat([past_k, self.shape(self.k(x), b)], dim=2)
        v = torch.cat([past_v, self.shape(self.v(x), b)], dim=2)
        if legacy:
            # transformers < 4.40: all query positions, then the last `seq` rows: seq rows when
            # seq >= 1, all past+seq when seq = 0 (a -0 start is the front), so
            # past+seq-past*Min(seq,1).
            bias = self.compute_bias(real_seq, key_length, bidirectional)
            bias = bias[:, :, -seq:, :]
        else:
            # transformers >= 4.40: query positions from cache_position = arange(past, past+seq)
            cache_position = torch.arange(past, past + seq, dtype=torch.long)
            bias = self.compute_bias(real_seq, key_length, bidirectional, cache_position)
        s = torch.matmul(q, k.transpose(3, 2)) + bias
        a = torch.matmul(s.softmax(-1), v).transpose(1, 2).contiguous().view(b, -1, self.heads * self.hd)
        return self.o(a), k, v


class T5(nn.Module):
    def __init__(self, hidden=32, legacy=False):
        super().__init__()
        self.legacy = legacy
        self.embed = nn.Embedding(VOCAB, hidden)
        self.dec = T5Attention(hidden)
        self.enc = T5Attention(hidden)
        self.norm = RMSNorm(hidden)

    def forward(self, input_ids, past_k, past_v, enc_k, enc_v):
        x = self.embed(input_ids)
        a, k, v = self.dec(x, past_k, past_v, False, self.legacy)
        x = self.norm(x + a)
        e, _, _ = self.enc(x, enc_k, enc_v, True, self.legacy)
        return x + e, k, v


def t5(outdir, opset, legacy=False):
    b, t, p = 2, 3, 4
    args = (torch.randint(0, VOCAB, (b, t)), torch.randn(b, 4, p, 8), torch.randn(b, 4, p, 8),
            torch.randn(b, 4, 0, 8), torch.randn(b, 4, 0, 8))
    dyn = {"input_ids": {0: "batch_size", 1: "sequence_length"},
           "past_key": {0: "batch_size", 2: "past_sequence_length"},
           "past_value": {0: "batch_size", 2: "past_sequence_length"},
           "empty_key": {0: "batch_size"}, "empty_value": {0: "batch_size"},
           "hidden_states": {0: "batch_size", 1: "sequence_length"},
           "present_key": {0: "batch_size", 2: "total_sequence_length"},
           "present_value": {0: "batch_size", 2: "total_sequence_length"}}
    inputs = {"input_ids": {"dtype": "int64", "high": VOCAB}, "past_key": {"dtype": "float32"},
              "past_value": {"dtype": "float32"}, "empty_key": {"dtype": "float32"},
              "empty_value": {"dtype": "float32"}}
    export(outdir, f"t5{'_legacy' if legacy else ''}_op{opset}", T5(legacy=legacy), args,
           ["input_ids", "past_key", "past_value", "empty_key", "empty_value"],
           ["hidden_states", "present_key", "present_value"], dyn, inputs, opset)


# Section - beam-search-style batch expansion


class Beams(nn.Module):
    def __init__(self, beams=4):
        super().__init__()
        self.beams = beams

    def forward(self, input_ids, attention_mask):
        b, t = input_ids.shape
        ids = input_ids[:, None, :].expand(b, self.beams, t).reshape(b * self.beams, t)
        mask = attention_mask.repeat(self.beams, 1)
        idx = torch.arange(b).view(-1, 1).repeat(1, self.beams).view(-1)
        gathered = attention_mask.index_select(0, idx)
        scores = torch.zeros(b, self.beams, dtype=torch.float32)
        scores[:, 1:] = -1e9
        return ids, mask, gathered, scores.view(-1)


def beams(outdir, opset):
    args = (torch.randint(0, VOCAB, (2, 3)), torch.ones(2, 3, dtype=torch.long))
    bs = {0: "batch_size", 1: "sequence_length"}
    bb = {0: "batch_size * 4", 1: "sequence_length"}
    dyn = {"input_ids": bs, "attention_mask": bs, "expanded_ids": bb, "tiled_mask": bb,
           "gathered_mask": bb, "beam_scores": {0: "batch_size * 4"}}
    inputs = {"input_ids": {"dtype": "int64", "high": VOCAB}, "attention_mask": {"dtype": "int64", "high": 2}}
    export(outdir, f"beams_op{opset}", Beams(), args, ["input_ids", "attention_mask"],
           ["expanded_ids", "tiled_mask", "gathered_mask", "beam_scores"], dyn, inputs, opset)


# Section - Other torch modules, outputs left to the exporter
#
# Output dims are not named in dynamic_axes, so torch labels them itself ("GatherElementsg_dim_0")
# and sometimes gives unrelated outputs one label: the engine must reproduce the runtime sizes and
# ignore such contradictory declarations (ANCHOR_CONFLICT) rather than rename a size by them.


class ConvNet(nn.Module):
    """Strided/dilated Conv, MaxPool, BatchNorm, Resize by scale and by a Shape-given size,
    ConvTranspose, GroupNorm, adaptive pooling, PixelShuffle, F.pad (torch builds its pads with
    ConstantOfShape/Reshape/Slice(step -1)/Transpose), flip."""

    def __init__(self):
        super().__init__()
        self.c1 = nn.Conv2d(3, 8, 3, stride=2, padding=1)
        self.bn = nn.BatchNorm2d(8)
        self.pool = nn.MaxPool2d(3, stride=2, padding=1)
        self.c2 = nn.Conv2d(8, 8, 3, padding=2, dilation=2)
        self.up = nn.ConvTranspose2d(8, 4, 4, stride=2, padding=1)
        self.gn = nn.GroupNorm(2, 4)
        self.fc = nn.Linear(4, 5)
        self.ps = nn.PixelShuffle(2)

    def forward(self, x):
        y = self.pool(F.relu(self.bn(self.c1(x))))
        z = F.interpolate(y, scale_factor=2.0, mode="nearest")
        w = F.interpolate(self.c2(y), size=z.shape[-2:], mode="bilinear", align_corners=False)
        u = self.gn(self.up(y + self.c2(y)))
        p = F.adaptive_avg_pool2d(u, 1).flatten(1)
        padded = F.pad(self.ps(u), (1, 2, 0, 3))
        return self.fc(p), z + w, padded, torch.flip(u, [2]).mean(dim=(2, 3), keepdim=True)


def convnet(outdir, opset):
    outs = ["logits", "zw", "padded", "m"]
    dyn = {"x": {0: "batch_size", 2: "height", 3: "width"}, **{o: {0: "batch_size"} for o in outs}}
    export(outdir, f"convnet_op{opset}", ConvNet(), (torch.randn(2, 3, 32, 24),), ["x"], outs, dyn,
           {"x": {"dtype": "float32"}}, opset)


class Recurrent(nn.Module):
    """Embedding, 2-layer bidirectional LSTM, GRU (sequence first), CumSum, max, TopK."""

    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(VOCAB, 16)
        self.lstm = nn.LSTM(16, 12, num_layers=2, batch_first=True, bidirectional=True)
        self.gru = nn.GRU(24, 8)

    def forward(self, ids):
        y, (h, _) = self.lstm(self.emb(ids))
        z, hz = self.gru(y.transpose(0, 1))
        return y, h, z, hz, torch.cumsum(y, dim=1), y.max(dim=1).values, torch.topk(y, 3, dim=-1).indices


def recurrent(outdir, opset):
    outs = ["y", "h", "z", "hz", "cumsum", "max", "topk"]
    dyn = {"ids": {0: "batch_size", 1: "sequence_length"}, **{o: {} for o in outs}}
    export(outdir, f"recurrent_op{opset}", Recurrent(), (torch.randint(0, VOCAB, (2, 3)),), ["ids"], outs, dyn,
           {"ids": {"dtype": "int64", "high": VOCAB}}, opset)


class Misc(nn.Module):
    """nn.MultiheadAttention with a key padding mask, einsum, chunk/stack, GatherElements,
    repeat, narrow to a Shape-computed length, index_select of a reversed arange, masked_fill,
    argmax, var/std."""

    def __init__(self):
        super().__init__()
        self.mha = nn.MultiheadAttention(16, 4)
        self.ln = nn.LayerNorm(16)

    def forward(self, q, mask):
        a, weights = self.mha(q, q, q, key_padding_mask=mask)
        x = self.ln(a + q)
        halves = torch.chunk(x, 2, dim=-1)
        return (a, weights, torch.einsum("sbd,tbd->bst", x, q), torch.stack(halves, dim=0),
                torch.gather(x, 0, torch.zeros_like(x, dtype=torch.long)[:1]), x.repeat(1, 2, 1),
                x.narrow(0, 0, x.shape[0] - 1), torch.index_select(x, 0, torch.arange(x.shape[0] - 1, -1, -1)),
                x.masked_fill(x > 0, 0.0), torch.argmax(x, dim=-1, keepdim=True), x.var(dim=-1) + x.std(dim=-1))


def misc(outdir, opset):
    outs = ["attn", "weights", "einsum", "stacked", "gathered", "repeated", "narrowed", "selected",
            "filled", "argmax", "var_std"]
    dyn = {"q": {0: "sequence_length", 1: "batch_size"}, "mask": {0: "batch_size", 1: "sequence_length"},
           **{o: {} for o in outs}}
    export(outdir, f"misc_op{opset}", Misc(), (torch.randn(3, 2, 16), torch.zeros(2, 3, dtype=torch.bool)),
           ["q", "mask"], outs, dyn, {"q": {"dtype": "float32"}, "mask": {"dtype": "bool"}}, opset)


class Audio(nn.Module):
    """Conv1d with stride, AvgPool1d(ceil_mode), Reshape(-1), split at a Shape-computed size,
    one_hot, normalize, x[:, :, 1:-1], x[..., ::2]."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv1d(1, 4, 5, stride=3)
        self.pool = nn.AvgPool1d(2, ceil_mode=True)

    def forward(self, wav):
        x = self.pool(self.conv(wav.unsqueeze(1)))
        y = x.reshape(x.shape[0], -1)
        _, rest = torch.split(y, [2, y.shape[1] - 2], dim=1)
        onehot = F.one_hot(torch.zeros(x.shape[0], dtype=torch.long), 3)
        return x, y, rest, onehot, F.normalize(y, dim=1), x[:, :, 1:-1], x[..., ::2]


def audio(outdir, opset):
    outs = ["x", "y", "rest", "onehot", "normalized", "inner", "even"]
    dyn = {"wav": {0: "batch_size", 1: "num_frames"}, **{o: {} for o in outs}}
    export(outdir, f"audio_op{opset}", Audio(), (torch.randn(2, 40),), ["wav"], outs, dyn,
           {"wav": {"dtype": "float32"}}, opset)


class Windows(nn.Module):
    """Swin-style window partition (view/permute with h // 4), Resize by a scale recomputed in
    float from Shape (Floor(h * 0.5) computed in float32), bicubic Resize, ceil-mode
    AvgPool without padding counted, Conv3d, sort, TopK with k from Shape, meshgrid."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 6, 3, padding=1)
        self.conv3d = nn.Conv3d(1, 2, (1, 3, 3), stride=(1, 2, 2), padding=(0, 1, 1))
        self.pool = nn.AvgPool2d(3, stride=2, padding=1, count_include_pad=False, ceil_mode=True)

    def forward(self, x):
        y = self.conv(x)
        b, c, h, w = y.shape
        win = y[:, :, : (h // 4) * 4, : (w // 4) * 4]
        windows = win.reshape(b, c, h // 4, 4, w // 4, 4).permute(0, 2, 4, 1, 3, 5).reshape(-1, c, 16)
        half = F.interpolate(y, scale_factor=0.5, mode="bilinear", recompute_scale_factor=True)
        bicubic = F.interpolate(y, scale_factor=1.5, mode="bicubic", align_corners=True)
        flat = y.flatten(2)
        grid = torch.meshgrid(torch.arange(h), torch.arange(w), indexing="ij")[0]
        return (windows, half, bicubic, self.pool(y), self.conv3d(x[:, :1].unsqueeze(1)),
                torch.sort(flat, dim=-1, descending=True).values, torch.topk(flat, c, dim=-1).values, grid,
                y.view(b, c, -1).mean(-1), torch.cat([y, y[:, :2]], 1))


def windows(outdir, opset):
    outs = ["windows", "half", "bicubic", "pooled", "conv3d", "sorted", "topk", "grid", "means", "cat"]
    dyn = {"x": {0: "batch_size", 2: "height", 3: "width"}, **{o: {} for o in outs}}
    # torch labels "half" [Resizehalf_dim_0..3] and reuses those labels on "pooled": one label then
    # stands for half's batch size and pooled's height, which must not make them one size.
    export(outdir, f"windows_op{opset}", Windows(), (torch.randn(2, 3, 32, 24),), ["x"], outs, dyn,
           {"x": {"dtype": "float32"}}, opset)


class Bags(nn.Module):
    """Embedding with padding_idx, EmbeddingBag (a Loop over offsets), grouped Conv1d, arange
    expanded like the ids, ids shifted right with Concat, Where under a broadcast mask, indexing
    e[arange(B), S - 1], flip."""

    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(VOCAB, 8, padding_idx=0)
        self.bag = nn.EmbeddingBag(VOCAB, 8, mode="mean")
        self.conv = nn.Conv1d(8, 8, 3, padding=1, groups=2)

    def forward(self, ids, mask):
        e = torch.tanh(self.emb(ids))
        conv = self.conv(e.transpose(1, 2)).transpose(1, 2)
        positions = torch.arange(ids.shape[1]).unsqueeze(0).expand_as(ids)
        shifted = torch.cat([ids[:, :1], ids[:, :-1]], dim=1)
        masked = torch.where(mask.unsqueeze(-1), torch.zeros_like(e), e)
        last = e[torch.arange(e.shape[0]), ids.shape[1] - 1]
        return e, self.bag(ids), conv, positions, shifted, masked, last, e.flip(1)


def bags(outdir, opset):
    outs = ["e", "bag", "conv", "positions", "shifted", "masked", "last", "flipped"]
    dyn = {"ids": {0: "batch_size", 1: "sequence_length"}, "mask": {0: "batch_size", 1: "sequence_length"},
           **{o: {} for o in outs}}
    # torch labels "masked" [Transposeconv_dim_1, ...]: its batch dim under the name of conv's
    # sequence dim. That declaration must not make batch_size and sequence_length one size.
    export(outdir, f"bags_op{opset}", Bags(), (torch.randint(1, VOCAB, (2, 3)), torch.zeros(2, 3, dtype=torch.bool)),
           ["ids", "mask"], outs, dyn, {"ids": {"dtype": "int64", "high": VOCAB}, "mask": {"dtype": "bool"}},
           opset)


# Section - output labels: list-form dynamic_axes and undeclared output dims
#
# dynamic_axes given as a list makes torch name each dim "<name>_dynamic_axes_<k>" (k from 1, on
# inputs too); an output left out gets torch's own "<OpType><name>_dim_<i>" labels, which it may
# reuse on another output. An output-only label names a size; the computed size is kept.


class Labelled(nn.Module):
    """Conv/ReLU features, an average pool whose labels torch reuses on the logits, a flatten."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, padding=1)
        self.fc = nn.Linear(8, 5)

    def forward(self, x):
        features = F.relu(self.conv(x))
        pooled = F.avg_pool2d(features, 2)
        logits = self.fc(pooled.mean(dim=(2, 3)))
        return features, pooled, logits, features.flatten(2)


def labelled(outdir, opset):
    outs = ["features", "pooled", "logits", "flat"]
    dyn = {"x": [0, 2, 3], "features": [0, 2, 3], "logits": [0], "flat": [0, 2]}
    bindings = [{"x_dynamic_axes_1": b["batch_size"], "x_dynamic_axes_2": b["height"] + 1,
                 "x_dynamic_axes_3": b["width"] - 1} for b in BINDINGS]
    export(outdir, f"labelled_op{opset}", Labelled(), (torch.randn(2, 3, 32, 24),), ["x"], outs, dyn,
           {"x": {"dtype": "float32"}}, opset, {"bindings": bindings})


# Section - branches on ranks and sizes
#
# TorchScript turns `if x.dim() == 3` into Shape -> Size -> Equal -> If, `!=` into Equal -> Not,
# `a or b` into nested Ifs. torch folds them when it knows the rank; here it does not (the first
# If, on a dynamic size torch cannot decide, leaves y's rank open), so the Ifs stay. The shapes
# decide every condition: only the branch taken may be inferred.


@torch.jit.script
def as_frames(x):
    if x.size(0) >= 0:
        y = x.unsqueeze(1)
    else:
        y = x
    if y.dim() == 3:
        y = y.squeeze(1)
    elif y.dim() == 1:
        y = y.unsqueeze(0)
    if y.dim() != 2:
        y = y.reshape(-1, 8)
    if y.size(1) != 16 or y.dim() > 2:
        y = y.reshape(-1, 8)
    return y


class Branches(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(16, 4)

    def forward(self, x):
        y = as_frames(x)
        return self.fc(y), y * 2


def branches(outdir, opset):
    dyn = {"x": {0: "batch_size"}, "logits": {0: "batch_size"}, "frames": {0: "batch_size"}}
    export(outdir, f"branches_op{opset}", Branches(), (torch.randn(2, 16),), ["x"], ["logits", "frames"], dyn,
           {"x": {"dtype": "float32"}}, opset)


# A scripted `if x.size(0) > 4: x = x[:4]` keeps at most 4 rows: Min(batch_size, 4). torch declares
# the output with the input's name (`capped: [batch_size, 4]`), which holds only up to 4; the same
# slice under a condition on the data (`x.sum() > 0`) is data-dependent (one of batch_size and
# Min(batch_size, 4)). Bindings on both sides of 4.


@torch.jit.script
def first_rows(x):
    if x.size(0) > 4:
        x = x[:4]
    return x


@torch.jit.script
def rows_if_positive(x):
    if bool(x.sum() > 0):
        x = x[:4]
    return x


class Capped(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 4)

    def forward(self, x):
        return self.fc(first_rows(x)), self.fc(rows_if_positive(x))


def capped(outdir, opset):
    outs = ["capped", "gated"]
    dyn = {"x": {0: "batch_size"}, **{o: {0: "batch_size"} for o in outs}}
    bindings = [{"batch_size": 7}, {"batch_size": 3}]
    export(outdir, f"capped_op{opset}", Capped(), (torch.randn(6, 8),), ["x"], outs, dyn,
           {"x": {"dtype": "float32"}}, opset, {"bindings": bindings})


# Appending one row per iteration (the exporters' idiom for a list built in a loop): a scripted
# `for` runs x.size(0) times, so the result has exactly batch_size rows; a `while` that may stop
# early (at the first row whose sum is not positive) keeps between 0 and its trip count of rows.


@torch.jit.script
def rows_per_item(x):
    out = torch.zeros(0, 8)
    for i in range(x.size(0)):
        out = torch.cat([out, x[i].unsqueeze(0) * 2], 0)
    return out


@torch.jit.script
def rows_until_negative(x):
    out = torch.zeros(0, 8)
    i = 0
    while i < x.size(0) and bool(x[i].sum() > 0):
        out = torch.cat([out, x[i].unsqueeze(0)], 0)
        i += 1
    return out


class Appended(nn.Module):
    def forward(self, x):
        return rows_per_item(x) + 1, rows_until_negative(x) + 1


def appended(outdir, opset):
    dyn = {"x": {0: "batch_size"}, "rows": {0: "batch_size"}, "prefix": {0: "prefix_rows"}}
    export(outdir, f"appended_op{opset}", Appended(), (torch.randn(5, 8),), ["x"], ["rows", "prefix"], dyn,
           {"x": {"dtype": "float32"}}, opset)


def silero_like(outdir):
    """The shape of Silero VAD v5's graph: the top-level If on the sample rate (fed at run time)
    holds one pipeline per rate, each starting with `if x.dim() == 1: x = x.unsqueeze(0)`
    (Shape -> Size -> Equal -> If) and a check `x.dim() == 3 and sr == 16000` (And of a shape test
    and a runtime value). Merging those inner branches would lose the rank of both outputs."""
    f = TensorProto.FLOAT
    N = helper.make_node
    rng = np.random.default_rng(5)

    def c(name, values, dtype=np.int64):
        return numpy_helper.from_array(np.array(values, dtype=dtype), name)

    def branch(name, nodes, outs, inits=()):
        return helper.make_graph(nodes, name, [], [helper.make_tensor_value_info(o, f, None) for o in outs],
                                 list(inits))

    def pipeline(rate, stride):
        p = f"r{rate}_"
        rank_fix = N("If", [p + "is1d"], [p + "x"],
                     then_branch=branch(p + "unsq", [N("Unsqueeze", ["input", "axis0"], [p + "u"])], [p + "u"]),
                     else_branch=branch(p + "keep", [N("Identity", ["input"], [p + "i"])], [p + "i"]))
        check = N("If", [p + "bad"], [p + "xc"],
                  then_branch=branch(p + "flat", [N("Flatten", [p + "x"], [p + "fl"], axis=2)], [p + "fl"]),
                  else_branch=branch(p + "ok", [N("Identity", [p + "x"], [p + "ok"])], [p + "ok"]))
        nodes = [
            N("Shape", ["input"], [p + "shape"]), N("Size", [p + "shape"], [p + "rank"]),
            N("Equal", [p + "rank", "one"], [p + "is1d"]), rank_fix,
            N("Shape", [p + "x"], [p + "shape2"]), N("Size", [p + "shape2"], [p + "rank2"]),
            N("Equal", [p + "rank2", "three"], [p + "is3d"]), N("Equal", ["sr", "k16000"], [p + "is16k"]),
            N("And", [p + "is3d", p + "is16k"], [p + "bad"]), check,
            N("Unsqueeze", [p + "xc", "axis1"], [p + "wav"]),
            N("Conv", [p + "wav", p + "w"], [p + "feat"], strides=[stride], pads=[2, 2]),
            N("Relu", [p + "feat"], [p + "act"]),
            N("ReduceMean", [p + "act"], [p + "pooled"], axes=[2], keepdims=0),
            N("MatMul", [p + "pooled", "head"], [p + "logit"]), N("Sigmoid", [p + "logit"], [p + "out"]),
            N("Add", ["state", "state"], [p + "stateN"]),
        ]
        w = numpy_helper.from_array((rng.standard_normal([4, 1, 5]) * 0.1).astype(np.float32), p + "w")
        return branch(f"sr{rate}", nodes, [p + "out", p + "stateN"], [w])

    top = [N("Equal", ["sr", "k16000"], ["is16k"]),
           N("If", ["is16k"], ["output", "stateN"], then_branch=pipeline(16000, 4), else_branch=pipeline(8000, 2)),
           # what a caller does with them: speech flags per item, the state of the last layer
           N("Squeeze", ["output", "axis1"], ["prob"]), N("Greater", ["prob", "threshold"], ["speech"]),
           N("Cast", ["speech"], ["speech_i"], to=TensorProto.INT64), N("ReduceSum", ["speech_i"], ["n_speech"]),
           N("Gather", ["stateN", "one"], ["last"], axis=0), N("Shape", ["last"], ["last_shape"]),
           N("ConstantOfShape", ["last_shape"], ["zeros"]), N("Unsqueeze", ["prob", "axis1"], ["prob2"]),
           N("Mul", ["last", "prob2"], ["gated"]), N("Concat", ["gated", "zeros"], ["both"], axis=1)]
    head = numpy_helper.from_array((rng.standard_normal([4, 1]) * 0.1).astype(np.float32), "head")
    graph = helper.make_graph(
        top, "silero_like",
        [helper.make_tensor_value_info("input", f, ["batch_size", "num_frames"]),
         helper.make_tensor_value_info("state", f, [2, "batch_size", 128]),
         helper.make_tensor_value_info("sr", TensorProto.INT64, [])],
        # No declared shapes: the outputs' ranks come from inference alone.
        [helper.make_tensor_value_info("output", f, None), helper.make_tensor_value_info("stateN", f, None)],
        [c("one", 1), c("three", 3), c("k16000", 16000), c("axis0", [0]), c("axis1", [1]), head,
         c("threshold", 0.5, np.float32)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], producer_name="onnx-shapes-tests")
    model.ir_version = 7
    inputs = {"input": {"dtype": "float32"}, "state": {"dtype": "float32"},
              "sr": {"dtype": "int64", "low": 16000, "high": 16001}}
    record(outdir, "silero_like_op13", model, 13, inputs, unshaped_outputs=True)


# Section - onnx.helper decoder: patterns torch 1.13 does not emit


def helper_decoder(outdir):
    """Opset 17: Shape(start/end), cache_position Range + Gather of CumSum positions, Trilu causal mask, Split."""
    hidden, heads = 32, 4
    hd = hidden // heads
    rng = np.random.default_rng(3)

    def w(name, shape):
        return numpy_helper.from_array((rng.standard_normal(shape) * 0.02).astype(np.float32), name)

    def c(name, values, dtype=np.int64):
        return numpy_helper.from_array(np.array(values, dtype=dtype), name)

    inits = [w("embed", [VOCAB, hidden]), w("wqkv", [hidden, 3 * hidden]), w("wo", [hidden, hidden]),
             c("one", [1]), c("one_s", 1), c("axes01", [0, 1]), c("hd_shape", [heads, hd]), c("minus1", [-1]),
             c("neg_inf", [-1e4], np.float32), c("one_f", 1.0, np.float32), c("split3", [hidden, hidden, hidden])]
    N = helper.make_node
    nodes = [
        N("Shape", ["input_ids"], ["batch_s"], start=0, end=1),
        N("Shape", ["input_ids"], ["seq_s"], start=1),
        N("Shape", ["attention_mask"], ["total_s"], start=-1),
        N("Shape", ["past_key"], ["past_s"], start=2, end=3),
        N("Add", ["past_s", "seq_s"], ["end_s"]),
        N("Squeeze", ["past_s"], ["past_scalar"]),
        N("Squeeze", ["end_s"], ["end_scalar"]),
        # cache_position = Range(past, past + seq); position_ids = (cumsum(mask) - 1)[:, cache_position]
        N("Range", ["past_scalar", "end_scalar", "one_s"], ["cache_position"]),
        N("CumSum", ["attention_mask", "one_s"], ["mask_cum"]),
        N("Sub", ["mask_cum", "one"], ["pos_all"]),
        N("Gather", ["pos_all", "cache_position"], ["position_ids"], axis=1),
        N("Gather", ["embed", "input_ids"], ["tok"]),
        N("Cast", ["position_ids"], ["pos_f"], to=TensorProto.FLOAT),
        N("Unsqueeze", ["pos_f", "minus1"], ["pos_u"]),
        N("Mul", ["pos_u", "neg_inf"], ["pos_scaled"]),
        N("Add", ["tok", "pos_scaled"], ["h"]),
        N("MatMul", ["h", "wqkv"], ["qkv"]),
        N("Split", ["qkv", "split3"], ["q", "k", "v"], axis=2),
        N("Concat", ["batch_s", "seq_s", "hd_shape"], ["heads_shape"], axis=0),
        N("Reshape", ["q", "heads_shape"], ["q4"]),
        N("Reshape", ["k", "heads_shape"], ["k4"]),
        N("Reshape", ["v", "heads_shape"], ["v4"]),
        N("Transpose", ["q4"], ["qt"], perm=[0, 2, 1, 3]),
        N("Transpose", ["k4"], ["kt"], perm=[0, 2, 1, 3]),
        N("Transpose", ["v4"], ["vt"], perm=[0, 2, 1, 3]),
        N("Concat", ["past_key", "kt"], ["present.0.key"], axis=2),
        N("Concat", ["past_value", "vt"], ["present.0.value"], axis=2),
        N("Transpose", ["present.0.key"], ["kT"], perm=[0, 1, 3, 2]),
        N("MatMul", ["qt", "kT"], ["scores"]),
        # causal mask: Trilu(ones[seq, total], k=past) -> Where
        N("Concat", ["seq_s", "total_s"], ["mask_shape"], axis=0),
        N("ConstantOfShape", ["mask_shape"], ["ones"],
          value=numpy_helper.from_array(np.array([1], dtype=np.int64))),
        N("Trilu", ["ones", "past_scalar"], ["tril"], upper=0),
        N("Cast", ["tril"], ["tril_b"], to=TensorProto.BOOL),
        N("Where", ["tril_b", "scores", "neg_inf"], ["masked"]),
        N("Unsqueeze", ["attention_mask", "axes01"], ["am4"]),
        N("Transpose", ["am4"], ["am4t"], perm=[2, 0, 1, 3]),
        N("Cast", ["am4t"], ["am_f"], to=TensorProto.FLOAT),
        N("Sub", ["one_f", "am_f"], ["am_inv"]),
        N("Mul", ["am_inv", "neg_inf"], ["am_add"]),
        N("Add", ["masked", "am_add"], ["scores2"]),
        N("Softmax", ["scores2"], ["probs"], axis=-1),
        N("MatMul", ["probs", "present.0.value"], ["ctx"]),
        N("Transpose", ["ctx"], ["ctx_t"], perm=[0, 2, 1, 3]),
        N("Concat", ["batch_s", "seq_s", "minus1"], ["flat_shape"], axis=0),
        N("Reshape", ["ctx_t", "flat_shape"], ["ctx_flat"]),
        N("MatMul", ["ctx_flat", "wo"], ["attn_out"]),
        N("Add", ["h", "attn_out"], ["hidden_states"]),
    ]
    f = TensorProto.FLOAT
    kv = ["batch_size", heads, "past_sequence_length", hd]
    kv_out = ["batch_size", heads, "total_sequence_length", hd]
    graph = helper.make_graph(
        nodes, "helper_decoder",
        [helper.make_tensor_value_info("input_ids", TensorProto.INT64, ["batch_size", "sequence_length"]),
         helper.make_tensor_value_info("attention_mask", TensorProto.INT64,
                                       ["batch_size", "total_sequence_length"]),
         helper.make_tensor_value_info("past_key", f, kv),
         helper.make_tensor_value_info("past_value", f, kv)],
        [helper.make_tensor_value_info("hidden_states", f, ["batch_size", "sequence_length", hidden]),
         helper.make_tensor_value_info("present.0.key", f, kv_out),
         helper.make_tensor_value_info("present.0.value", f, kv_out)],
        inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], producer_name="onnx-shapes-tests")
    model.ir_version = 8
    inputs = {"input_ids": {"dtype": "int64", "high": VOCAB}, "attention_mask": {"dtype": "int64", "high": 2,
                                                                                 "low": 1},
              "past_key": {"dtype": "float32"}, "past_value": {"dtype": "float32"}}
    record(outdir, "helper_decoder_op17", model, 17, inputs)


def paddle_labels(outdir):
    """paddle2onnx's naming: every dynamic dim of every value gets its own p2o.DynamicDimension.N
    (not an identifier: a single symbol), inputs included. Output-only ones are labels."""
    f = TensorProto.FLOAT
    d = [f"p2o.DynamicDimension.{i}" for i in range(12)]
    w = numpy_helper.from_array(np.random.RandomState(0).randn(16, 8).astype(np.float32), "w")
    axes = numpy_helper.from_array(np.array([1], dtype=np.int64), "axes")
    nodes = [
        helper.make_node("MatMul", ["x", "w"], ["proj"]),
        helper.make_node("Relu", ["proj"], ["act"]),
        helper.make_node("Transpose", ["act"], ["act_t"], perm=[0, 2, 1]),
        helper.make_node("ReduceMean", ["act"], ["mean"], axes=[1], keepdims=0),
        helper.make_node("Concat", ["act", "act"], ["twice"], axis=1),
        helper.make_node("Unsqueeze", ["mean", "axes"], ["mean1"]),
        helper.make_node("Add", ["act", "mean1"], ["centered"]),
        helper.make_node("Shape", ["act"], ["shape"]),
        helper.make_node("Slice", ["shape", "zero", "two"], ["lead"]),
        helper.make_node("Concat", ["lead", "split"], ["target"], axis=0),
        helper.make_node("Reshape", ["act", "target"], ["heads"]),
        helper.make_node("Softmax", ["heads"], ["probs"], axis=-1),
        helper.make_node("Flatten", ["probs"], ["flat"], axis=1),
    ]
    graph = helper.make_graph(
        nodes, "paddle_labels",
        [helper.make_tensor_value_info("x", f, [d[0], d[1], 16])],
        [helper.make_tensor_value_info("act_t", f, [d[2], 8, d[3]]),
         helper.make_tensor_value_info("mean", f, [d[4], 8]),
         helper.make_tensor_value_info("twice", f, [d[5], d[6], 8]),
         helper.make_tensor_value_info("centered", f, [d[7], d[8], 8]),
         helper.make_tensor_value_info("flat", f, [d[9], d[10]])],
        [w, axes] + [numpy_helper.from_array(np.array(v, dtype=np.int64), n)
                     for n, v in (("zero", [0]), ("two", [2]), ("split", [2, 4]))])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], producer_name="onnx-shapes-tests")
    model.ir_version = 7
    bindings = [{d[0]: b["batch_size"], d[1]: b["sequence_length"]} for b in BINDINGS]
    record(outdir, "paddle_labels_op13", model, 13, {"x": {"dtype": "float32"}}, {"bindings": bindings})


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: make_models.py OUTDIR")
    outdir = sys.argv[1]
    os.makedirs(outdir, exist_ok=True)
    for opset in (13, 17):
        gpt2(outdir, opset)
        llama(outdir, opset)
        bert(outdir, opset)
        vit(outdir, opset)
        whisper(outdir, opset)
        t5(outdir, opset)
        beams(outdir, opset)
        convnet(outdir, opset)
        recurrent(outdir, opset)
        misc(outdir, opset)
        audio(outdir, opset)
        windows(outdir, opset)
        bags(outdir, opset)
        labelled(outdir, opset)
        branches(outdir, opset)
        float_models(outdir, opset, export, record)
        capped(outdir, opset)
        appended(outdir, opset)
        list_models(outdir, opset, export)
    llm_models(outdir, export)
    helper_decoder(outdir)
    paddle_labels(outdir)
    silero_like(outdir)
    t5(outdir, 17, legacy=True)
    with open(os.path.join(outdir, "manifest.json"), "w") as fh:
        json.dump(MODELS, fh, indent=1)
    print(f"{len(MODELS)} models written to {outdir}")


if __name__ == "__main__":
    main()
