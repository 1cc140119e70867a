"""More LLM-style exports (make_models.py imports this): decoder and encoder patterns beyond
GPT-2/Llama/T5, written by hand in torch (no `transformers` here) after the models' own code, at odd
sizes (batch 1 and 3, seq 7 and 1, past 0 and 5).

  gptj_list     GPT-J: partial rotary (rotary_dim < head_dim, rotate_every_two, repeat_interleave
                of a sincos table gathered by position_ids), parallel attention + MLP, causal bias
                buffer slice; 3 layers exported with list-form dynamic_axes, so every input dim is
                its own symbol (input_ids_dynamic_axes_1, 'past_key_values.0.key_dynamic_axes_1',
                ...) and only the Concat of cache and keys says two batch symbols are one size;
  bloom         BLOOM: ALiBi from the cumsum of the mask over the total sequence, fused qkv viewed
                (b, s, heads, 3, hd), caches over batch*heads (key [b*h, hd, past], value
                [b*h, past, hd]) declared with optimum's "batch_size x num_heads", baddbmm, a bool
                causal mask built by slice assignment;
  qwen2         Qwen2/Mistral: position_ids from the mask (cumsum - 1, masked_fill, [:, -seq:]),
                rotary from inv_freq @ position_ids, GQA repeat_kv, sliding-window causal mask
                (triu with a diagonal computed from past at opset >= 14, arange comparisons at 13);
  whisper_dec   Whisper's decoder: positions table[past:past+seq], self-attention cache and a
                cross-attention cache over the encoder length, no attention_mask input (the
                caches' total_sequence_length is a label);
  wav2vec2      the conv feature extractor (kernels 10,3,3,3,3,2,2, strides 5,2,...) and the
                positional conv with an even kernel whose last frame is dropped ([:, :, :-1]);
  beam_step     a beam-search step: batch = batch_beams // beams, scores over beams * vocab,
                topk, div/mod by the vocab size, the cache reordered by index_select;
  moe           a Mixtral sparse MoE block: router topk, one_hot expert mask, torch.where per
                expert (NonZero), rows gathered and index_add-ed back (data-dependent counts).
"""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

VOCAB = 50
MAXPOS = 40
LLM_BINDINGS = [
    {"batch_size": 1, "sequence_length": 7, "past_sequence_length": 0, "encoder_sequence_length": 9},
    {"batch_size": 3, "sequence_length": 1, "past_sequence_length": 5, "encoder_sequence_length": 4},
]
for _b in LLM_BINDINGS:
    _b["total_sequence_length"] = _b["past_sequence_length"] + _b["sequence_length"]


def kv_names(layers, prefix, kinds=("key", "value")):
    return [f"{prefix}.{i}.{k}" for i in range(layers) for k in kinds]


def decoder_io(layers, past_axes, present_axes):
    past, present = kv_names(layers, "past_key_values"), kv_names(layers, "present")
    dyn = {"input_ids": {0: "batch_size", 1: "sequence_length"},
           "attention_mask": {0: "batch_size", 1: "total_sequence_length"},
           "logits": {0: "batch_size", 1: "sequence_length"}}
    dyn.update({n: dict(past_axes) for n in past})
    dyn.update({n: dict(present_axes) for n in present})
    inputs = {"input_ids": {"dtype": "int64", "high": VOCAB}, "attention_mask": {"dtype": "int64", "high": 2}}
    inputs.update({n: {"dtype": "float32"} for n in past})
    return past, present, dyn, inputs


def rotate_half(x):
    return torch.cat((-x[..., x.shape[-1] // 2:], x[..., : x.shape[-1] // 2]), dim=-1)


def causal_mask(bsz, tgt, past, dtype):
    mask = torch.full((tgt, tgt), torch.finfo(dtype).min)
    cond = torch.arange(mask.size(-1))
    mask.masked_fill_(cond < (cond + 1).view(mask.size(-1), 1), 0)
    mask = torch.cat([torch.zeros(tgt, past, dtype=dtype), mask.to(dtype)], dim=-1)
    return mask[None, None, :, :].expand(bsz, 1, tgt, tgt + past)


def expand_mask(mask, dtype, tgt):
    bsz, src = mask.size()
    inverted = 1.0 - mask[:, None, None, :].expand(bsz, 1, tgt, src).to(dtype)
    return inverted.masked_fill(inverted.to(torch.bool), torch.finfo(dtype).min)


# Section - GPT-J, list-form dynamic_axes


def sinusoidal_positions(num_pos, dim):
    inv_freq = 1.0 / (10000 ** (torch.arange(0, dim, 2) / dim))
    sinusoid = torch.einsum("i , j -> i j", torch.arange(num_pos, dtype=torch.float), inv_freq).float()
    return torch.cat((torch.sin(sinusoid), torch.cos(sinusoid)), dim=1)


def rotate_every_two(x):
    return torch.stack((-x[:, :, :, 1::2], x[:, :, :, ::2]), dim=-1).flatten(-2)


def rotary_gptj(t, sin, cos):
    sin = torch.repeat_interleave(sin[:, :, None, :], 2, 3)
    cos = torch.repeat_interleave(cos[:, :, None, :], 2, 3)
    return (t * cos) + (rotate_every_two(t) * sin)


class GPTJBlock(nn.Module):
    def __init__(self, hidden, heads, rotary_dim):
        super().__init__()
        self.heads, self.hd, self.rot = heads, hidden // heads, rotary_dim
        self.ln = nn.LayerNorm(hidden)
        self.q, self.k, self.v, self.o = (nn.Linear(hidden, hidden, bias=False) for _ in range(4))
        self.fc_in, self.fc_out = nn.Linear(hidden, 4 * hidden), nn.Linear(4 * hidden, hidden)
        self.register_buffer("bias", torch.tril(torch.ones((MAXPOS, MAXPOS), dtype=torch.bool)).view(
            1, 1, MAXPOS, MAXPOS))
        self.register_buffer("embed_positions", sinusoidal_positions(MAXPOS, rotary_dim))

    def split(self, x):
        return x.view(x.size()[:-1] + (self.heads, self.hd))

    def forward(self, x, pk, pv, position_ids, ext):
        h = self.ln(x)
        q, k, v = self.split(self.q(h)), self.split(self.k(h)), self.split(self.v(h)).permute(0, 2, 1, 3)
        sin, cos = torch.split(self.embed_positions[position_ids], self.rot // 2, dim=-1)
        k = torch.cat([rotary_gptj(k[:, :, :, : self.rot], sin, cos), k[:, :, :, self.rot:]], dim=-1)
        q = torch.cat([rotary_gptj(q[:, :, :, : self.rot], sin, cos), q[:, :, :, self.rot:]], dim=-1)
        k = torch.cat((pk, k.permute(0, 2, 1, 3)), dim=-2)
        v = torch.cat((pv, v), dim=-2)
        q = q.permute(0, 2, 1, 3)
        ql, kl = q.size(-2), k.size(-2)
        w = torch.matmul(q, k.transpose(-1, -2))
        w = torch.where(self.bias[:, :, kl - ql: kl, :kl], w, torch.tensor(torch.finfo(w.dtype).min))
        a = torch.matmul(F.softmax(w / math.sqrt(self.hd) + ext, dim=-1), v).permute(0, 2, 1, 3).contiguous()
        a = self.o(a.view(a.size()[:-2] + (self.heads * self.hd,)))
        return a + self.fc_out(F.gelu(self.fc_in(h))) + x, k, v


class GPTJ(nn.Module):
    def __init__(self, hidden=32, heads=4, rotary_dim=4, layers=3):
        super().__init__()
        self.wte = nn.Embedding(VOCAB, hidden)
        self.blocks = nn.ModuleList(GPTJBlock(hidden, heads, rotary_dim) for _ in range(layers))
        self.ln_f = nn.LayerNorm(hidden)
        self.head = nn.Linear(hidden, VOCAB)

    def forward(self, input_ids, attention_mask, *past):
        shape = input_ids.size()
        past_length = past[0].size(-2)
        position_ids = torch.arange(past_length, shape[-1] + past_length, dtype=torch.long).unsqueeze(0).view(-1, shape[-1])
        ext = attention_mask.view(shape[0], -1)[:, None, None, :].to(torch.float32)
        ext = (1.0 - ext) * torch.finfo(torch.float32).min
        h = self.wte(input_ids)
        presents = []
        for i, blk in enumerate(self.blocks):
            h, k, v = blk(h, past[2 * i], past[2 * i + 1], position_ids, ext)
            presents += [k, v]
        return (self.head(self.ln_f(h)), *presents)


def list_form(dyn, names):
    """dict-form axes as lists, and the bindings of the dims torch then names <name>_dynamic_axes_<k>."""
    bindings = [{f"{n}_dynamic_axes_{j + 1}": b[dyn[n][ax]] for n in names for j, ax in enumerate(sorted(dyn[n]))}
                for b in LLM_BINDINGS]
    return {k: sorted(v) for k, v in dyn.items()}, bindings


def gptj_list(outdir, opset, export):
    layers, b, t, p = 3, 2, 3, 4
    past_kv = [torch.randn(b, 4, p, 8) for _ in range(2 * layers)]
    args = (torch.randint(0, VOCAB, (b, t)), torch.ones(b, p + t, dtype=torch.long), *past_kv)
    past, present, dyn, inputs = decoder_io(layers, {0: "batch_size", 2: "past_sequence_length"},
                                            {0: "batch_size", 2: "total_sequence_length"})
    names = ["input_ids", "attention_mask", *past]
    axes, bindings = list_form(dyn, names)
    export(outdir, f"gptj_list_op{opset}", GPTJ(layers=layers), args, names, ["logits", *present], axes, inputs,
           opset, {"bindings": bindings})


# Section - BLOOM


def build_alibi(attention_mask, num_heads, dtype):
    batch_size, seq_length = attention_mask.shape
    base = torch.tensor(2 ** (-(2 ** -(math.log2(num_heads) - 3))), dtype=torch.float32)
    slopes = torch.pow(base, torch.arange(1, 1 + num_heads, dtype=torch.int32))
    arange_tensor = ((attention_mask.cumsum(dim=-1) - 1) * attention_mask)[:, None, :]
    return (slopes[..., None] * arange_tensor).reshape(batch_size * num_heads, 1, seq_length).to(dtype)


def bloom_causal(batch_size, target_length, past_len):
    mask = torch.empty((target_length, target_length + past_len), dtype=torch.bool)
    seq_ids = torch.arange(target_length)
    mask[:, past_len:] = seq_ids[:, None] < seq_ids[None, :]
    mask[:, :past_len] = False
    return mask[None, None, :, :].expand(batch_size, 1, target_length, target_length + past_len)


class BloomBlock(nn.Module):
    def __init__(self, hidden, heads):
        super().__init__()
        self.heads, self.hd = heads, hidden // heads
        self.ln1, self.ln2 = nn.LayerNorm(hidden), nn.LayerNorm(hidden)
        self.qkv, self.dense = nn.Linear(hidden, 3 * hidden), nn.Linear(hidden, hidden)
        self.mlp = nn.Sequential(nn.Linear(hidden, 4 * hidden), nn.GELU(), nn.Linear(4 * hidden, hidden))

    def forward(self, x, pk, pv, alibi, mask):
        fused = self.qkv(self.ln1(x))
        b, s, _ = fused.shape
        fused = fused.view(b, s, self.heads, 3, self.hd)
        q = fused[..., 0, :].transpose(1, 2).reshape(b * self.heads, s, self.hd)
        k = fused[..., 1, :].permute(0, 2, 3, 1).reshape(b * self.heads, self.hd, s)
        v = fused[..., 2, :].transpose(1, 2).reshape(b * self.heads, s, self.hd)
        k = torch.cat((pk, k), dim=2)
        v = torch.cat((pv, v), dim=1)
        kv_length = k.shape[-1]
        scores = alibi.baddbmm(batch1=q, batch2=k, beta=1.0, alpha=1.0 / math.sqrt(self.hd)).view(
            b, self.heads, s, kv_length)
        probs = F.softmax(torch.masked_fill(scores, mask, torch.finfo(scores.dtype).min), dim=-1)
        ctx = torch.bmm(probs.view(b * self.heads, s, kv_length), v)
        ctx = ctx.view(b, self.heads, s, self.hd).permute(0, 2, 1, 3).reshape(b, s, self.heads * self.hd)
        x = x + self.dense(ctx)
        return x + self.mlp(self.ln2(x)), k, v


class Bloom(nn.Module):
    def __init__(self, hidden=32, heads=4, layers=2):
        super().__init__()
        self.heads = heads
        self.embed, self.eln = nn.Embedding(VOCAB, hidden), nn.LayerNorm(hidden)
        self.blocks = nn.ModuleList(BloomBlock(hidden, heads) for _ in range(layers))
        self.head = nn.Linear(hidden, VOCAB, bias=False)

    def forward(self, input_ids, attention_mask, *past):
        bsz, seq = input_ids.shape
        h = self.eln(self.embed(input_ids))
        alibi = build_alibi(attention_mask, self.heads, h.dtype)
        padding = ~(attention_mask[:, None, None, :].to(torch.bool))
        mask = padding.expand(bsz, 1, seq, attention_mask.shape[1]) | bloom_causal(bsz, seq, past[1].shape[1])
        presents = []
        for i, blk in enumerate(self.blocks):
            h, k, v = blk(h, past[2 * i], past[2 * i + 1], alibi, mask)
            presents += [k, v]
        return (self.head(h), *presents)


def bloom(outdir, opset, export):
    layers, heads, b, t, p = 2, 4, 2, 3, 4
    past_kv = []
    for _ in range(layers):
        past_kv += [torch.randn(b * heads, 8, p), torch.randn(b * heads, p, 8)]
    args = (torch.randint(0, VOCAB, (b, t)), torch.ones(b, p + t, dtype=torch.long), *past_kv)
    past, present, dyn, inputs = decoder_io(layers, {}, {})
    for n in past + present:
        seq = "past_sequence_length" if n in past else "total_sequence_length"
        dyn[n] = {0: "batch_size x num_heads", (2 if n.endswith("key") else 1): seq}
    bindings = [dict(bb, **{"batch_size x num_heads": heads * bb["batch_size"]}) for bb in LLM_BINDINGS]
    export(outdir, f"bloom_op{opset}", Bloom(heads=heads, layers=layers), args, ["input_ids", "attention_mask", *past],
           ["logits", *present], dyn, inputs, opset, {"bindings": bindings})


# Section - Qwen2 / Mistral


class Qwen2Layer(nn.Module):
    def __init__(self, hidden=32, heads=4, kv_heads=2):
        super().__init__()
        self.heads, self.kv_heads, self.hd = heads, kv_heads, hidden // heads
        self.q = nn.Linear(hidden, heads * self.hd)
        self.k = nn.Linear(hidden, kv_heads * self.hd)
        self.v = nn.Linear(hidden, kv_heads * self.hd)
        self.o = nn.Linear(heads * self.hd, hidden, bias=False)
        self.register_buffer("inv_freq", 1.0 / (10000 ** (torch.arange(0, self.hd, 2).float() / self.hd)))

    def forward(self, x, mask, position_ids, pk, pv):
        bsz, q_len, _ = x.size()
        q = self.q(x).view(bsz, q_len, self.heads, self.hd).transpose(1, 2)
        k = self.k(x).view(bsz, q_len, self.kv_heads, self.hd).transpose(1, 2)
        v = self.v(x).view(bsz, q_len, self.kv_heads, self.hd).transpose(1, 2)
        inv = self.inv_freq[None, :, None].float().expand(position_ids.shape[0], -1, 1)
        freqs = (inv @ position_ids[:, None, :].float()).transpose(1, 2)
        emb = torch.cat((freqs, freqs), dim=-1)
        cos, sin = emb.cos()[:, None], emb.sin()[:, None]
        q, k = q * cos + rotate_half(q) * sin, k * cos + rotate_half(k) * sin
        k, v = torch.cat([pk, k], dim=2), torch.cat([pv, v], dim=2)
        n_rep = self.heads // self.kv_heads
        kr = k[:, :, None].expand(bsz, self.kv_heads, n_rep, k.shape[2], self.hd).reshape(bsz, self.heads, -1, self.hd)
        vr = v[:, :, None].expand(bsz, self.kv_heads, n_rep, v.shape[2], self.hd).reshape(bsz, self.heads, -1, self.hd)
        w = F.softmax(torch.matmul(q, kr.transpose(2, 3)) / math.sqrt(self.hd) + mask, dim=-1, dtype=torch.float32)
        a = torch.matmul(w, vr).transpose(1, 2).contiguous().reshape(bsz, q_len, self.heads * self.hd)
        return x + self.o(a), k, v


class Qwen2(nn.Module):
    def __init__(self, hidden=32, window=4, trilu=True):
        super().__init__()
        self.window, self.trilu = window, trilu
        self.embed = nn.Embedding(VOCAB, hidden)
        self.layer = Qwen2Layer(hidden)
        self.head = nn.Linear(hidden, VOCAB, bias=False)

    def sliding(self, bsz, tgt, past, dtype):
        if self.trilu:  # transformers 4.36's AttentionMaskConverter with sliding_window
            mask = causal_mask(1, tgt, past, dtype)[0, 0].clone()
            context = 1 - torch.triu(torch.ones_like(mask, dtype=torch.int), diagonal=past - self.window + 1)
            mask = mask.masked_fill(context.bool(), torch.finfo(dtype).min)
            return mask[None, None].expand(bsz, 1, tgt, tgt + past)
        i = torch.arange(past, past + tgt)[:, None]
        j = torch.arange(past + tgt)[None, :]
        allowed = (j <= i) & (j > i - self.window)
        return torch.zeros(tgt, past + tgt, dtype=dtype).masked_fill(~allowed, torch.finfo(dtype).min)[None, None].expand(
            bsz, 1, tgt, past + tgt)

    def forward(self, input_ids, attention_mask, pk, pv):
        bsz, seq = input_ids.shape
        position_ids = attention_mask.long().cumsum(-1) - 1
        position_ids = position_ids.masked_fill(attention_mask == 0, 1)[:, -input_ids.shape[1]:]
        x = self.embed(input_ids)
        mask = self.sliding(bsz, seq, pk.shape[2], x.dtype) + expand_mask(attention_mask, x.dtype, seq)
        x, k, v = self.layer(x, mask, position_ids, pk, pv)
        return self.head(x), k, v


def qwen2(outdir, opset, export):
    b, t, p = 2, 3, 4
    args = (torch.randint(0, VOCAB, (b, t)), torch.ones(b, p + t, dtype=torch.long), torch.randn(b, 2, p, 8),
            torch.randn(b, 2, p, 8))
    dyn = {"input_ids": {0: "batch_size", 1: "sequence_length"},
           "attention_mask": {0: "batch_size", 1: "total_sequence_length"},
           "logits": {0: "batch_size", 1: "sequence_length"}}
    for n in ("past_key", "past_value"):
        dyn[n] = {0: "batch_size", 2: "past_sequence_length"}
    for n in ("present_key", "present_value"):
        dyn[n] = {0: "batch_size", 2: "total_sequence_length"}
    inputs = {"input_ids": {"dtype": "int64", "high": VOCAB}, "attention_mask": {"dtype": "int64", "high": 2},
              "past_key": {"dtype": "float32"}, "past_value": {"dtype": "float32"}}
    export(outdir, f"qwen2_op{opset}", Qwen2(trilu=opset >= 14), args,
           ["input_ids", "attention_mask", "past_key", "past_value"], ["logits", "present_key", "present_value"],
           dyn, inputs, opset, {"bindings": LLM_BINDINGS})


# Section - Whisper decoder with self and cross caches


class Seq2SeqAttn(nn.Module):
    def __init__(self, hidden, heads):
        super().__init__()
        self.heads, self.hd = heads, hidden // heads
        self.q, self.k, self.v, self.o = (nn.Linear(hidden, hidden) for _ in range(4))

    def _shape(self, t, seq, bsz):
        return t.view(bsz, seq, self.heads, self.hd).transpose(1, 2).contiguous()

    def forward(self, h, mask, k, v, new=True):
        bsz, tgt, _ = h.size()
        if new:
            k = torch.cat([k, self._shape(self.k(h), -1, bsz)], dim=2)
            v = torch.cat([v, self._shape(self.v(h), -1, bsz)], dim=2)
        proj = (bsz * self.heads, -1, self.hd)
        qs = self._shape(self.q(h) * self.hd ** -0.5, tgt, bsz).view(*proj)
        ks, vs = k.reshape(*proj), v.reshape(*proj)
        w = torch.bmm(qs, ks.transpose(1, 2)).view(bsz, self.heads, tgt, ks.size(1)) + mask
        w = F.softmax(w.view(bsz * self.heads, tgt, ks.size(1)), dim=-1)
        a = torch.bmm(w, vs).view(bsz, self.heads, tgt, self.hd).transpose(1, 2).reshape(bsz, tgt, -1)
        return self.o(a), k, v


class WhisperDecoder(nn.Module):
    def __init__(self, hidden=32, heads=4, layers=2):
        super().__init__()
        self.embed, self.pos = nn.Embedding(VOCAB, hidden), nn.Embedding(MAXPOS, hidden)
        self.self_attn = nn.ModuleList(Seq2SeqAttn(hidden, heads) for _ in range(layers))
        self.cross_attn = nn.ModuleList(Seq2SeqAttn(hidden, heads) for _ in range(layers))
        self.lns = nn.ModuleList(nn.LayerNorm(hidden) for _ in range(2 * layers))
        self.head = nn.Linear(hidden, VOCAB, bias=False)

    def forward(self, input_ids, *past):
        bsz, seq = input_ids.shape
        past_len = past[0].shape[2]
        h = self.embed(input_ids) + self.pos.weight[past_len: past_len + seq]
        mask = causal_mask(bsz, seq, past_len, h.dtype)
        presents = []
        for i in range(len(self.self_attn)):
            pk, pv, ck, cv = past[4 * i: 4 * i + 4]
            a, k, v = self.self_attn[i](self.lns[2 * i](h), mask, pk, pv)
            h = h + a
            h = h + self.cross_attn[i](self.lns[2 * i + 1](h), torch.zeros(1), ck, cv, new=False)[0]
            presents += [k, v]
        return (self.head(h), *presents)


def whisper_dec(outdir, opset, export):
    layers, b, t, p, e = 2, 2, 3, 4, 6
    past_kv = []
    for _ in range(layers):
        past_kv += [torch.randn(b, 4, p, 8), torch.randn(b, 4, p, 8), torch.randn(b, 4, e, 8), torch.randn(b, 4, e, 8)]
    past = kv_names(layers, "past_key_values", ("decoder.key", "decoder.value", "encoder.key", "encoder.value"))
    present = kv_names(layers, "present", ("decoder.key", "decoder.value"))
    dyn = {"input_ids": {0: "batch_size", 1: "sequence_length"}, "logits": {0: "batch_size", 1: "sequence_length"}}
    inputs = {"input_ids": {"dtype": "int64", "high": VOCAB}}
    for n in past:
        dyn[n] = {0: "batch_size", 2: "encoder_sequence_length" if "encoder" in n else "past_sequence_length"}
        inputs[n] = {"dtype": "float32"}
    dyn.update({n: {0: "batch_size", 2: "total_sequence_length"} for n in present})
    export(outdir, f"whisper_dec_op{opset}", WhisperDecoder(layers=layers), (torch.randint(0, VOCAB, (b, t)), *past_kv),
           ["input_ids", *past], ["logits", *present], dyn, inputs, opset, {"bindings": LLM_BINDINGS})


# Section - wav2vec2 feature extractor


class Wav2Vec2(nn.Module):
    KERNELS, STRIDES = (10, 3, 3, 3, 3, 2, 2), (5, 2, 2, 2, 2, 2, 2)

    def __init__(self, c=8, hidden=16):
        super().__init__()
        self.convs = nn.ModuleList(nn.Conv1d(1 if i == 0 else c, c, k, stride=s, bias=False)
                                   for i, (k, s) in enumerate(zip(self.KERNELS, self.STRIDES)))
        self.gn = nn.GroupNorm(c, c)
        self.proj = nn.Linear(c, hidden)
        self.pos_conv = nn.Conv1d(hidden, hidden, 4, padding=2, groups=4)

    def forward(self, input_values, attention_mask):
        x = input_values[:, None]
        for i, conv in enumerate(self.convs):
            x = F.gelu(self.gn(conv(x)) if i == 0 else conv(x))
        x = self.proj(x.transpose(1, 2))
        x = x + F.gelu(self.pos_conv(x.transpose(1, 2))[:, :, :-1]).transpose(1, 2)
        lengths = attention_mask.sum(-1)
        for k, s in zip(self.KERNELS, self.STRIDES):
            lengths = torch.div(lengths - k, s, rounding_mode="floor") + 1
        return x, torch.arange(x.shape[1])[None, :] < lengths[:, None]


def wav2vec2(outdir, opset, export):
    dyn = {"input_values": {0: "batch_size", 1: "num_samples"}, "attention_mask": {0: "batch_size", 1: "num_samples"},
           "last_hidden_state": {0: "batch_size", 1: "num_frames"}, "frame_mask": {0: "batch_size", 1: "num_frames"}}
    bindings = [dict(bb, num_samples=n) for bb, n in zip(LLM_BINDINGS, (800, 1234))]
    export(outdir, f"wav2vec2_op{opset}", Wav2Vec2(), (torch.randn(2, 800), torch.ones(2, 800, dtype=torch.long)),
           ["input_values", "attention_mask"], ["last_hidden_state", "frame_mask"], dyn,
           {"input_values": {"dtype": "float32"}, "attention_mask": {"dtype": "int64", "low": 1, "high": 2}}, opset,
           {"bindings": bindings})


# Section - beam-search step


class BeamStep(nn.Module):
    def __init__(self, beams=3):
        super().__init__()
        self.beams = beams
        self.embed, self.head = nn.Embedding(VOCAB, 16), nn.Linear(16, VOCAB)

    def forward(self, input_ids, beam_scores, past_key):
        batch = input_ids.shape[0] // self.beams
        logits = self.head(self.embed(input_ids))[:, -1, :]
        scores = F.log_softmax(logits, dim=-1) + beam_scores[:, None].expand_as(logits)
        vocab = scores.shape[-1]
        top_scores, top_tokens = torch.topk(scores.view(batch, self.beams * vocab), 2 * self.beams, dim=1)
        next_indices = torch.div(top_tokens, vocab, rounding_mode="floor")
        beam_idx = (next_indices[:, : self.beams] + torch.arange(batch)[:, None] * self.beams).view(-1)
        new_ids = torch.cat([input_ids[beam_idx, :], (top_tokens % vocab)[:, : self.beams].reshape(-1, 1)], dim=-1)
        return new_ids, top_scores[:, : self.beams].reshape(-1), past_key.index_select(0, beam_idx), next_indices


def beam_step(outdir, opset, export):
    beams = 3
    args = (torch.randint(0, VOCAB, (2 * beams, 4)), torch.zeros(2 * beams), torch.randn(2 * beams, 4, 5, 8))
    dyn = {"input_ids": {0: "batch_beams", 1: "sequence_length"}, "beam_scores": {0: "batch_beams"},
           "past_key": {0: "batch_beams", 2: "past_sequence_length"},
           "new_ids": {0: "batch_beams", 1: "sequence_length + 1"}, "new_scores": {0: "batch_beams"},
           "reordered": {0: "batch_beams", 2: "past_sequence_length"}, "next_indices": {0: "batch_size"}}
    inputs = {"input_ids": {"dtype": "int64", "high": VOCAB}, "beam_scores": {"dtype": "float32"},
              "past_key": {"dtype": "float32"}}
    bindings = [dict(bb, batch_beams=beams * bb["batch_size"]) for bb in LLM_BINDINGS]
    export(outdir, f"beam_step_op{opset}", BeamStep(beams), args, ["input_ids", "beam_scores", "past_key"],
           ["new_ids", "new_scores", "reordered", "next_indices"], dyn, inputs, opset, {"bindings": bindings})


# Section - Mixtral sparse MoE


class MoE(nn.Module):
    def __init__(self, hidden=16, experts=4, top_k=2):
        super().__init__()
        self.experts, self.top_k = experts, top_k
        self.embed = nn.Embedding(VOCAB, hidden)
        self.gate = nn.Linear(hidden, experts, bias=False)
        self.w1 = nn.ModuleList(nn.Linear(hidden, 2 * hidden, bias=False) for _ in range(experts))
        self.w2 = nn.ModuleList(nn.Linear(2 * hidden, hidden, bias=False) for _ in range(experts))

    def forward(self, input_ids):
        h = self.embed(input_ids)
        b, s, d = h.shape
        hs = h.view(-1, d)
        router_logits = self.gate(hs)
        rw, selected = torch.topk(F.softmax(router_logits, dim=1, dtype=torch.float), self.top_k, dim=-1)
        rw = rw / rw.sum(dim=-1, keepdim=True)
        final = torch.zeros((b * s, d), dtype=hs.dtype)
        expert_mask = F.one_hot(selected, num_classes=self.experts).permute(2, 1, 0)
        for e in range(self.experts):
            idx, top_x = torch.where(expert_mask[e])
            cur = self.w2[e](F.silu(self.w1[e](hs[None, top_x].reshape(-1, d)))) * rw[top_x, idx, None]
            final = final.index_add(0, top_x, cur)
        return final.reshape(b, s, d), router_logits


def moe(outdir, opset, export):
    dyn = {"input_ids": {0: "batch_size", 1: "sequence_length"},
           "hidden_states": {0: "batch_size", 1: "sequence_length"}, "router_logits": {0: "tokens"}}
    export(outdir, f"moe_op{opset}", MoE(), (torch.randint(0, VOCAB, (2, 3)),), ["input_ids"],
           ["hidden_states", "router_logits"], dyn, {"input_ids": {"dtype": "int64", "high": VOCAB}}, opset,
           {"bindings": LLM_BINDINGS})


# Which opsets each family is exported at (the ones whose rules differ by opset at more than one).
LLM_FAMILIES = [
    (gptj_list, (13, 17)), (bloom, (14,)), (qwen2, (13, 17)), (whisper_dec, (14,)), (wav2vec2, (17,)),
    (beam_step, (13,)), (moe, (17,)),
]


def llm_models(outdir, export):
    for fn, opsets in LLM_FAMILIES:
        for opset in opsets:
            fn(outdir, opset, export)
