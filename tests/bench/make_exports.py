#!/usr/bin/python3
"""Exporter graphs for `npm run bench` (tests/bench/bench.mjs): real torch.onnx exports.

    /usr/bin/python3 tests/bench/make_exports.py OUTDIR [NAME.onnx ...]

writes OUTDIR/llama_{8,32,128}.onnx and OUTDIR/gpt2_{8,32,128}.onnx (or only the files named) and
prints one JSON line {"file": ..., "nodes": ..., "bytes": ...} per model. Needs Debian's
python3-torch 1.13 (TorchScript exporter) and python3-onnx; opset 17, do_constant_folding.

Both decoders follow the modelling code Hugging Face transformers exported with the TorchScript
exporter (written here from scratch, in the same shape), with the shape arithmetic a real export
carries: every `x.size()` / `x.shape[i]` becomes Shape -> Constant -> Gather, every view a Concat
of Unsqueezed dims, so about a third of the nodes are Constant.

llama_L: RMSNorm, a rotary embedding per layer (cos/sin caches sliced to the kv length, then
  indexed by position_ids), the KV cache concatenated with past_key_values.*, a causal mask built
  from Range/Less/Where and the padding mask, SiLU-gated MLP. hidden 64, 4 heads, intermediate 128.
llamagqa_L: the same with grouped-query attention (2 kv heads, repeat_kv: Expand + Reshape),
  intermediate 172.
gpt2_L: LayerNorm, learned positions from Range(past, past+seq), Conv1D-style projections
  (view(-1, nx) -> Gemm -> view back), the causal mask sliced from each layer's constant bool
  `bias` buffer at [key_len-query_len : key_len, :key_len], Where with a masked_bias, gelu_new
  (tanh), the KV cache. hidden 64, 4 heads, MLP 256.

The weights are real (random), so the files are about what an export of these sizes weighs:
5-7 MB at 32 layers, 20-27 MB at 128 (above inferShapes's 8 MiB streaming threshold).
Exporting 128 Llama layers takes minutes (the TorchScript passes grow faster than the graph):
bench.mjs keeps the files under build/bench-models/, keyed by this file's hash.
"""
import json
import math
import os
import sys
import warnings

import onnx
import torch
import torch.nn as nn
import torch.nn.functional as F

warnings.filterwarnings("ignore")
OPSET = 17
VOCAB = 1000

# Section - Llama


class RMSNorm(nn.Module):
    def __init__(self, hidden, eps=1e-6):
        super().__init__()
        self.weight = nn.Parameter(torch.rand(hidden) + 0.5)
        self.eps = eps

    def forward(self, x):
        var = x.to(torch.float32).pow(2).mean(-1, keepdim=True)
        return self.weight * (x * torch.rsqrt(var + self.eps)).to(x.dtype)


class Rotary(nn.Module):
    def __init__(self, dim, max_pos):
        super().__init__()
        inv_freq = 1.0 / (10000 ** (torch.arange(0, dim, 2).float() / dim))
        t = torch.arange(max_pos, dtype=torch.float32)
        emb = torch.cat((torch.outer(t, inv_freq),) * 2, dim=-1)
        self.register_buffer("cos_cached", emb.cos()[None, None, :, :])
        self.register_buffer("sin_cached", emb.sin()[None, None, :, :])

    def forward(self, x, seq_len):
        return (self.cos_cached[:, :, :seq_len, ...].to(x.dtype),
                self.sin_cached[:, :, :seq_len, ...].to(x.dtype))


def rotate_half(x):
    half = x.shape[-1] // 2
    return torch.cat((-x[..., half:], x[..., :half]), dim=-1)


def apply_rotary(q, k, cos, sin, position_ids):
    cos = cos.squeeze(1).squeeze(0)[position_ids].unsqueeze(1)
    sin = sin.squeeze(1).squeeze(0)[position_ids].unsqueeze(1)
    return q * cos + rotate_half(q) * sin, k * cos + rotate_half(k) * sin


def repeat_kv(x, n_rep):
    b, kv_heads, slen, hd = x.shape
    if n_rep == 1:
        return x
    x = x[:, :, None, :, :].expand(b, kv_heads, n_rep, slen, hd)
    return x.reshape(b, kv_heads * n_rep, slen, hd)


class LlamaAttention(nn.Module):
    def __init__(self, hidden, heads, kv_heads, max_pos):
        super().__init__()
        self.heads, self.kv_heads, self.hd = heads, kv_heads, hidden // heads
        self.q_proj = nn.Linear(hidden, heads * self.hd, bias=False)
        self.k_proj = nn.Linear(hidden, kv_heads * self.hd, bias=False)
        self.v_proj = nn.Linear(hidden, kv_heads * self.hd, bias=False)
        self.o_proj = nn.Linear(heads * self.hd, hidden, bias=False)
        self.rotary_emb = Rotary(self.hd, max_pos)

    def forward(self, x, mask, position_ids, past_k, past_v):
        bsz, q_len, _ = x.size()
        q = self.q_proj(x).view(bsz, q_len, self.heads, self.hd).transpose(1, 2)
        k = self.k_proj(x).view(bsz, q_len, self.kv_heads, self.hd).transpose(1, 2)
        v = self.v_proj(x).view(bsz, q_len, self.kv_heads, self.hd).transpose(1, 2)
        kv_seq_len = k.shape[-2] + past_k.shape[-2]
        cos, sin = self.rotary_emb(v, seq_len=kv_seq_len)
        q, k = apply_rotary(q, k, cos, sin, position_ids)
        k = torch.cat([past_k, k], dim=2)
        v = torch.cat([past_v, v], dim=2)
        present = (k, v)
        k = repeat_kv(k, self.heads // self.kv_heads)
        v = repeat_kv(v, self.heads // self.kv_heads)
        w = torch.matmul(q, k.transpose(2, 3)) / math.sqrt(self.hd)
        w = w + mask
        w = F.softmax(w, dim=-1, dtype=torch.float32).to(q.dtype)
        a = torch.matmul(w, v).transpose(1, 2).reshape(bsz, q_len, self.heads * self.hd)
        return self.o_proj(a), present


class LlamaMLP(nn.Module):
    def __init__(self, hidden, inter):
        super().__init__()
        self.gate_proj = nn.Linear(hidden, inter, bias=False)
        self.up_proj = nn.Linear(hidden, inter, bias=False)
        self.down_proj = nn.Linear(inter, hidden, bias=False)

    def forward(self, x):
        return self.down_proj(F.silu(self.gate_proj(x)) * self.up_proj(x))


class LlamaLayer(nn.Module):
    def __init__(self, hidden, heads, kv_heads, inter, max_pos):
        super().__init__()
        self.input_layernorm = RMSNorm(hidden)
        self.self_attn = LlamaAttention(hidden, heads, kv_heads, max_pos)
        self.post_attention_layernorm = RMSNorm(hidden)
        self.mlp = LlamaMLP(hidden, inter)

    def forward(self, x, mask, position_ids, past_k, past_v):
        a, present = self.self_attn(self.input_layernorm(x), mask, position_ids, past_k, past_v)
        x = x + a
        return x + self.mlp(self.post_attention_layernorm(x)), present


def causal_mask(bsz, tgt_len, past_len, dtype):
    mask = torch.full((tgt_len, tgt_len), torch.finfo(dtype).min)
    cond = torch.arange(mask.size(-1))
    mask.masked_fill_(cond < (cond + 1).view(mask.size(-1), 1), 0)
    mask = mask.to(dtype)
    # Traced with a past, as exports with a cache are.
    mask = torch.cat([torch.zeros(tgt_len, past_len, dtype=dtype), mask], dim=-1)
    return mask[None, None, :, :].expand(bsz, 1, tgt_len, tgt_len + past_len)


def padding_mask(mask, dtype, tgt_len):
    bsz, src_len = mask.size()
    expanded = mask[:, None, None, :].expand(bsz, 1, tgt_len, src_len).to(dtype)
    inverted = 1.0 - expanded
    return inverted.masked_fill(inverted.to(torch.bool), torch.finfo(dtype).min)


class Llama(nn.Module):
    def __init__(self, layers, hidden=64, heads=4, kv_heads=4, inter=128, max_pos=256):
        super().__init__()
        self.embed_tokens = nn.Embedding(VOCAB, hidden)
        self.layers = nn.ModuleList(LlamaLayer(hidden, heads, kv_heads, inter, max_pos) for _ in range(layers))
        self.norm = RMSNorm(hidden)
        self.lm_head = nn.Linear(hidden, VOCAB, bias=False)

    def forward(self, input_ids, attention_mask, position_ids, *past):
        bsz, seq = input_ids.shape
        past_len = past[0].shape[2]
        x = self.embed_tokens(input_ids)
        mask = causal_mask(bsz, seq, past_len, x.dtype) + padding_mask(attention_mask, x.dtype, seq)
        presents = []
        for i, layer in enumerate(self.layers):
            x, (k, v) = layer(x, mask, position_ids, past[2 * i], past[2 * i + 1])
            presents += [k, v]
        return (self.lm_head(self.norm(x)), *presents)


# Section - GPT-2


class Conv1D(nn.Module):
    """GPT-2's projection: a weight stored [nx, nf], applied as addmm on the flattened rows."""

    def __init__(self, nf, nx):
        super().__init__()
        self.nf = nf
        self.weight = nn.Parameter(torch.randn(nx, nf) * 0.02)
        self.bias = nn.Parameter(torch.zeros(nf))

    def forward(self, x):
        size_out = x.size()[:-1] + (self.nf,)
        x = torch.addmm(self.bias, x.view(-1, x.size(-1)), self.weight)
        return x.view(size_out)


def gelu_new(x):
    return 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * torch.pow(x, 3.0))))


class GPT2Attention(nn.Module):
    def __init__(self, hidden, heads, max_pos):
        super().__init__()
        self.heads, self.hd, self.hidden = heads, hidden // heads, hidden
        self.register_buffer("bias", torch.tril(torch.ones((max_pos, max_pos), dtype=torch.bool)).view(
            1, 1, max_pos, max_pos))
        self.register_buffer("masked_bias", torch.tensor(-1e4))
        self.c_attn = Conv1D(3 * hidden, hidden)
        self.c_proj = Conv1D(hidden, hidden)

    def split_heads(self, x):
        return x.view(x.size()[:-1] + (self.heads, self.hd)).permute(0, 2, 1, 3)

    def merge_heads(self, x):
        x = x.permute(0, 2, 1, 3).contiguous()
        return x.view(x.size()[:-2] + (self.heads * self.hd,))

    def forward(self, h, past_k, past_v, attention_mask):
        q, k, v = self.c_attn(h).split(self.hidden, dim=2)
        q, k, v = self.split_heads(q), self.split_heads(k), self.split_heads(v)
        k = torch.cat((past_k, k), dim=-2)
        v = torch.cat((past_v, v), dim=-2)
        w = torch.matmul(q, k.transpose(-1, -2))
        w = w / torch.full([], v.size(-1) ** 0.5, dtype=w.dtype, device=w.device)
        query_length, key_length = q.size(-2), k.size(-2)
        causal = self.bias[:, :, key_length - query_length:key_length, :key_length]
        mask_value = torch.full([], torch.finfo(w.dtype).min, dtype=w.dtype, device=w.device)
        w = torch.where(causal, w.to(w.dtype), mask_value)
        w = w + attention_mask
        w = F.softmax(w, dim=-1)
        a = self.merge_heads(torch.matmul(w, v))
        return self.c_proj(a), k, v


class GPT2Block(nn.Module):
    def __init__(self, hidden, heads, max_pos):
        super().__init__()
        self.ln_1 = nn.LayerNorm(hidden)
        self.attn = GPT2Attention(hidden, heads, max_pos)
        self.ln_2 = nn.LayerNorm(hidden)
        self.c_fc = Conv1D(4 * hidden, hidden)
        self.c_proj = Conv1D(hidden, 4 * hidden)

    def forward(self, h, past_k, past_v, attention_mask):
        a, k, v = self.attn(self.ln_1(h), past_k, past_v, attention_mask)
        h = h + a
        return h + self.c_proj(gelu_new(self.c_fc(self.ln_2(h)))), k, v


class GPT2(nn.Module):
    def __init__(self, layers, hidden=64, heads=4, max_pos=256):
        super().__init__()
        self.wte = nn.Embedding(VOCAB, hidden)
        self.wpe = nn.Embedding(max_pos, hidden)
        self.h = nn.ModuleList(GPT2Block(hidden, heads, max_pos) for _ in range(layers))
        self.ln_f = nn.LayerNorm(hidden)
        self.lm_head = nn.Linear(hidden, VOCAB, bias=False)

    def forward(self, input_ids, attention_mask, *past):
        input_shape = input_ids.size()
        input_ids = input_ids.view(-1, input_shape[-1])
        past_length = past[0].size(-2)
        position_ids = torch.arange(past_length, input_shape[-1] + past_length, dtype=torch.long)
        position_ids = position_ids.unsqueeze(0).view(-1, input_shape[-1])
        batch = input_ids.shape[0]
        attention_mask = attention_mask.view(batch, -1)[:, None, None, :].to(torch.float32)
        attention_mask = (1.0 - attention_mask) * torch.finfo(torch.float32).min
        h = self.wte(input_ids) + self.wpe(position_ids)
        presents = []
        for i, block in enumerate(self.h):
            h, k, v = block(h, past[2 * i], past[2 * i + 1], attention_mask)
            presents += [k, v]
        h = self.ln_f(h).view(input_shape + (h.size(-1),))
        return (self.lm_head(h), *presents)


# Section - Export


def kv_names(layers, prefix):
    return [f"{prefix}.{i}.{kv}" for i in range(layers) for kv in ("key", "value")]


def export(path, kind, layers):
    torch.manual_seed(layers)
    b, t, p = 2, 3, 4
    past_names, present_names = kv_names(layers, "past_key_values"), kv_names(layers, "present")
    dyn = {"input_ids": {0: "batch_size", 1: "sequence_length"},
           "attention_mask": {0: "batch_size", 1: "total_sequence_length"},
           "logits": {0: "batch_size", 1: "sequence_length"}}
    if kind in ("llama", "llamagqa"):
        module = Llama(layers, kv_heads=2, inter=172) if kind == "llamagqa" else Llama(layers)
        kv_shape = (b, module.layers[0].self_attn.kv_heads, p, 16)
        ids = ["input_ids", "attention_mask", "position_ids"]
        first = (torch.randint(0, VOCAB, (b, t)), torch.ones(b, p + t, dtype=torch.long),
                 torch.arange(p, p + t).unsqueeze(0).expand(b, t))
        dyn["position_ids"] = {0: "batch_size", 1: "sequence_length"}
    else:
        module = GPT2(layers)
        kv_shape = (b, 4, p, 16)
        ids = ["input_ids", "attention_mask"]
        first = (torch.randint(0, VOCAB, (b, t)), torch.ones(b, p + t, dtype=torch.long))
    for n in past_names:
        dyn[n] = {0: "batch_size", 2: "past_sequence_length"}
    for n in present_names:
        dyn[n] = {0: "batch_size", 2: "total_sequence_length"}
    args = (*first, *[torch.randn(*kv_shape) for _ in past_names])
    module.eval()
    with torch.no_grad():
        torch.onnx.export(module, args, path, input_names=ids + past_names, output_names=["logits", *present_names],
                          dynamic_axes=dyn, opset_version=OPSET, do_constant_folding=True)


MODELS = [f"{kind}_{layers}.onnx" for kind in ("llama", "gpt2") for layers in (8, 32, 128)] + ["llamagqa_32.onnx"]


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else "."
    os.makedirs(out, exist_ok=True)
    only = sys.argv[2:]
    for name in only or MODELS:
        if name not in MODELS:
            raise SystemExit(f"unknown model {name} (one of {', '.join(MODELS)})")
        kind, layers = name[:-len(".onnx")].split("_")
        path = os.path.join(out, name)
        export(path, kind, int(layers))
        m = onnx.load(path, load_external_data=False)
        print(json.dumps({"file": path, "nodes": len(m.graph.node), "bytes": os.path.getsize(path)}), flush=True)


if __name__ == "__main__":
    main()
