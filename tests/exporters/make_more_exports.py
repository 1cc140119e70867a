#!/usr/bin/python3
"""More real exports for the differential of onnx-shapes against onnxruntime (a benchmark set, not CI):
torchaudio's models (Conformer, Emformer, ConvTasNet, WaveRNN, DeepSpeech, Wav2Letter, Tacotron2's
encoder and postnet), torchvision families at opsets the torchvision set does not use (11, 14, 16),
and hand-written LLM idioms (rotary caches sliced by position, KV concat with past 0, triu and
arange causal masks, repeat_interleave for grouped-query attention, masked_fill, view(-1),
expand(-1), padding to a multiple computed from the sizes).

    /usr/bin/python3 tests/exporters/make_more_exports.py OUTDIR [NAME...]
    node tests/exporters/torchvision.mjs --dir OUTDIR [-v]          # values against onnxruntime
    node tests/exporters/more_exports_cost.mjs OUTDIR               # MACs against torch.profiler

Writes the manifest torchvision.mjs reads (make_torchvision.py's format), with inputs that are not
float: {dtype, low, high} or {fill: "size", sizeOf: exported dim name} (a lengths input holding the
full length). Each entry also has `macs`: per binding, PyTorch's profiler count of conv2d and the mm
family (the gate matmuls of nn.LSTM/GRU/RNN run through addmm, so they count) plus the MACs of the
other convolutions derived from the modules' attributes (tests/cost/torch_reference.py), null where
the model computes with something neither counts.
Every model is built with random weights; nothing is downloaded.
"""
import json
import math
import os
import sys
import time
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "cost"))
import make_torchvision as TV  # noqa: E402  (its builders; it also forbids downloads)
from make_models import dims_of, expose_all, graph_summary  # noqa: E402
from torch_reference import PROFILED, derived_macs  # noqa: E402

import onnx  # noqa: E402
import torch  # noqa: E402
import torch.nn as nn  # noqa: E402
import torch.nn.functional as F  # noqa: E402
import torchaudio  # noqa: E402
import torchvision  # noqa: E402

warnings.filterwarnings("ignore")
M = torchvision.models
A = torchaudio.models


# Section - torchaudio


class Conformer(nn.Module):
    """torchaudio's Conformer. As written, its padding mask is arange(lengths.max().item()): the tracer
    bakes the trace's length in and onnxruntime refuses every other (a broken export, kept as one);
    `shape_mask` builds the same mask from the input's time dim, as Conformer's own layers take it."""

    def __init__(self, shape_mask):
        super().__init__()
        self.shape_mask = shape_mask
        self.m = A.Conformer(input_dim=16, num_heads=2, ffn_dim=32, num_layers=2, depthwise_conv_kernel_size=7)

    def forward(self, x, lengths):
        if not self.shape_mask:
            return self.m(x, lengths)
        b, t = x.shape[0], x.shape[1]
        mask = torch.arange(t).expand(b, t) >= lengths.unsqueeze(1)
        y = x.transpose(0, 1)
        for layer in self.m.conformer_layers:
            y = layer(y, mask)
        return y.transpose(0, 1), lengths


class Emformer(nn.Module):
    def __init__(self):
        super().__init__()
        self.m = A.Emformer(input_dim=16, num_heads=2, ffn_dim=32, num_layers=2, segment_length=4,
                            right_context_length=1)

    def forward(self, x, lengths):
        return self.m(x, lengths)


def conv_tasnet():
    return A.ConvTasNet(num_sources=2, enc_kernel_size=16, enc_num_feats=32, msk_kernel_size=3, msk_num_feats=16,
                        msk_num_hidden_feats=32, msk_num_layers=2, msk_num_stacks=1)


def wavernn():
    return A.WaveRNN(upsample_scales=[2, 2], n_classes=16, hop_length=4, n_res_block=1, n_rnn=16, n_fc=16,
                     kernel_size=5, n_freq=8, n_hidden=8, n_output=8)


class Tacotron2Parts(nn.Module):
    """Tacotron2's encoder convolutions (no packed LSTM) and its postnet."""

    def __init__(self):
        super().__init__()
        t = A.Tacotron2(n_symbol=20, n_mels=8, symbol_embedding_dim=32, encoder_embedding_dim=32, encoder_n_convolution=2,
                        encoder_kernel_size=5, decoder_rnn_dim=32, attention_rnn_dim=32, attention_hidden_dim=16,
                        attention_location_n_filter=4, attention_location_kernel_size=7, prenet_dim=16,
                        postnet_n_convolution=3, postnet_kernel_size=5, postnet_embedding_dim=16)
        self.embedding, self.convs, self.postnet = t.embedding, t.encoder.convolutions, t.postnet

    def forward(self, tokens, mel):
        x = self.embedding(tokens).transpose(1, 2)
        for conv in self.convs:
            x = F.relu(conv(x))
        return x, mel + self.postnet(mel)


# Section - torchvision at other opsets


def efficientnet_v2():
    from torchvision.models.efficientnet import EfficientNet, _efficientnet_conf
    setting, last = _efficientnet_conf("efficientnet_v2_s")
    for s in setting:  # 1/8 of the widths, one layer per stage
        s.input_channels, s.out_channels, s.num_layers = max(8, s.input_channels // 8), max(8, s.out_channels // 8), 1
    return EfficientNet(setting, 0.2, num_classes=TV.NUM_CLASSES, last_channel=64)


# Section - LLM idioms


class Idioms(nn.Module):
    """A decoder layer written with the idioms of hand-written LLM code: a rotary cos/sin cache sliced
    to past+seq then indexed by positions computed from past, KV concat (past may be 0), grouped-query
    attention by repeat_interleave, a causal mask from triu (opset >= 14) or an arange comparison,
    masked_fill by the attention mask, view(-1) / expand(-1) / reshape(b, -1, ...), and the sequence
    padded to a multiple of 4 by an amount computed from its size."""

    def __init__(self, triu, interleave=False, vocab=50, hidden=32, heads=4, kv_heads=2, max_pos=64):
        super().__init__()
        self.triu, self.interleave, self.heads, self.kv_heads, self.dim = triu, interleave, heads, kv_heads, hidden // heads
        self.embed = nn.Embedding(vocab, hidden)
        self.q = nn.Linear(hidden, hidden)
        self.kv = nn.Linear(hidden, 2 * kv_heads * self.dim)
        self.o = nn.Linear(hidden, hidden)
        self.head = nn.Linear(hidden, vocab)
        inv = 1.0 / (10000 ** (torch.arange(0, self.dim, 2).float() / self.dim))
        freqs = torch.outer(torch.arange(max_pos).float(), inv)
        emb = torch.cat([freqs, freqs], dim=-1)
        self.register_buffer("cos_cached", emb.cos(), persistent=False)
        self.register_buffer("sin_cached", emb.sin(), persistent=False)

    @staticmethod
    def rotate_half(x):
        h = x.shape[-1] // 2
        return torch.cat([-x[..., h:], x[..., :h]], dim=-1)

    def forward(self, input_ids, attention_mask, past_key, past_value):
        b, s = input_ids.shape
        past = past_key.shape[2]
        x = self.embed(input_ids)
        q = self.q(x).view(b, s, self.heads, self.dim).transpose(1, 2)
        k, v = self.kv(x).view(b, s, 2, self.kv_heads, -1).unbind(2)
        k, v = k.transpose(1, 2), v.transpose(1, 2)
        positions = torch.arange(past, past + s, device=x.device).unsqueeze(0).expand(b, -1)
        cos = self.cos_cached[: past + s][positions].unsqueeze(1)
        sin = self.sin_cached[: past + s][positions].unsqueeze(1)
        q = q * cos + self.rotate_half(q) * sin
        k = k * cos + self.rotate_half(k) * sin
        k = torch.cat([past_key, k], dim=2)
        v = torch.cat([past_value, v], dim=2)
        rep = self.heads // self.kv_heads
        if self.interleave:  # torch 1.13 exports this for dim 1 with the sizes wrong: onnxruntime refuses it
            kk, vv = torch.repeat_interleave(k, rep, dim=1), torch.repeat_interleave(v, rep, dim=1)
        else:  # heads sharing a KV head in tiled order (as a Tile)
            kk, vv = k.repeat(1, rep, 1, 1), v.repeat(1, rep, 1, 1)
        scores = q @ kk.transpose(-1, -2) / math.sqrt(self.dim)
        total = past + s
        if self.triu:
            causal = torch.triu(torch.ones(s, total, dtype=torch.bool, device=x.device), diagonal=past + 1)
        else:
            causal = torch.arange(total, device=x.device).view(1, -1) > (torch.arange(s, device=x.device) + past).view(-1, 1)
        pad = (attention_mask == 0).view(b, 1, 1, -1).expand(-1, self.heads, s, -1)
        scores = scores.masked_fill(causal.view(1, 1, s, total) | pad, torch.finfo(scores.dtype).min)
        out = torch.softmax(scores, dim=-1) @ vv
        out = out.transpose(1, 2).reshape(b, s, -1)
        h = x + self.o(out)
        # pad the sequence to a multiple of 4 (as chunked attention / conv front-ends do), then drop it
        extra = (4 - s % 4) % 4
        padded = F.pad(h, (0, 0, 0, extra))
        chunks = padded.view(b, -1, 4, h.shape[-1]).mean(2)
        flat = h.view(-1)
        return self.head(h), k, v, chunks, flat


class ShapeIdioms(nn.Module):
    """Size idioms of vision and audio code, each an output: padding to a multiple of 32 (by an
    amount computed from the size), im2col (F.unfold), pixel_shuffle, a
    meshgrid of aranges, chunk and narrow of a dynamic dim, cumsum positions from a mask sliced from
    the back, flip and roll, step slices, new_zeros, a where on a broadcast mask, a sort along a dynamic
    dim, arange with a step, ceil-mode and padded pools, a transposed conv with output_padding,
    TensorFlow-style 'same' padding computed from the size, a dilated conv1d, a strided conv1d, group and layer norms,
    an einsum, patches by flatten/transpose, and a resize to sizes computed from the input's."""

    def __init__(self, opset):
        super().__init__()
        self.opset = opset
        self.up = nn.ConvTranspose2d(8, 4, 3, stride=2, padding=1, output_padding=1)
        self.same = nn.Conv2d(8, 4, 4, stride=2)
        self.same1d = nn.Conv1d(16, 8, 5, padding=4, dilation=2)
        self.stride1d = nn.Conv1d(16, 8, 3, stride=2, padding=1)
        self.gn = nn.GroupNorm(2, 8)
        self.ln = nn.LayerNorm([16])

    def forward(self, x, t, mask):
        b, c, h, w = x.shape
        time = t.shape[1]
        padded = F.pad(x, (0, (32 - w % 32) % 32, 0, (32 - h % 32) % 32))
        cols = F.unfold(x, 3, stride=2)
        shuffled = F.pixel_shuffle(x, 2)
        ys, xs = torch.meshgrid(torch.arange(h), torch.arange(w), indexing="ij")
        grid = torch.stack([ys, xs], 0)
        c0, c1, c2 = torch.chunk(t, 3, dim=1)
        narrowed = t.narrow(1, time // 4, time // 2)
        pos = mask.cumsum(-1) - 1
        pos = pos.masked_fill(mask == 0, 1)[:, -(time // 2):]
        flipped = torch.flip(t, [1]) + torch.roll(t, 1, 1)
        stepped = t[:, ::2] + 0
        stepped3 = t[:, 1::3] + 0
        zeros = t.new_zeros(b, time * 2)
        chosen = torch.where(mask.bool().unsqueeze(-1), t, t.mean(1, keepdim=True))
        order = torch.sort(t.sum(-1), dim=1, descending=True)[1]
        evens = torch.arange(0, time, 2) * 2
        pooled = F.max_pool2d(x, 3, 2, ceil_mode=True) + 0
        avg = F.avg_pool2d(x, 3, 2, padding=1, count_include_pad=False) + 0
        up = self.up(x)
        # TensorFlow-style 'same' padding (timm's Conv2dSame): kernel 4, stride 2, amount from the size
        ph = torch.clamp((torch.div(h + 1, 2, rounding_mode="floor") - 1) * 2 + 4 - h, min=0)
        pw = torch.clamp((torch.div(w + 1, 2, rounding_mode="floor") - 1) * 2 + 4 - w, min=0)
        same = self.same(F.pad(x, [pw // 2, pw - pw // 2, ph // 2, ph - ph // 2]))
        same1d = self.same1d(t.transpose(1, 2))
        strided = self.stride1d(t.transpose(1, 2))
        normed = self.gn(x) + self.ln(t).sum()
        gram = torch.einsum("bchw,bdhw->bcd", x, x) if self.opset >= 12 else x.flatten(2) @ x.flatten(2).transpose(1, 2)
        patches = x.flatten(2).transpose(1, 2)
        resized = F.interpolate(x, size=(h * 2, w + 3), mode="bilinear", align_corners=False)
        return (padded, cols, shuffled, grid, c0, c1, c2, narrowed, pos, flipped, stepped, stepped3, zeros,
                chosen, order, evens, pooled, avg, up, same, same1d, strided, normed, gram, patches, resized)


class SignalIdioms(nn.Module):
    """Audio and recurrent idioms: STFT-like frames after a centred reflect pad, LSTM and GRU with
    zero initial states of the batch's size, a transposed-conv upsampler cropped back to the input's
    length, interpolate by 0.5 with recompute_scale_factor, topk of half the length, patches by a
    reshape that needs the sizes divisible, grid_sample (opset >= 16)."""

    def __init__(self, opset):
        super().__init__()
        self.opset = opset
        self.lstm = nn.LSTM(16, 8, batch_first=True, bidirectional=True)
        self.gru = nn.GRU(16, 8)
        self.up = nn.ConvTranspose1d(16, 4, 8, stride=4, padding=2)
        self.register_buffer("window", torch.hann_window(32), persistent=False)
        self.frame = nn.Conv1d(1, 32, 32, stride=8, bias=False)  # one-hot kernels: frames of 32
        with torch.no_grad():
            self.frame.weight.copy_(torch.eye(32).unsqueeze(1))

    def forward(self, wave, t, img):
        b, time = t.shape[0], t.shape[1]
        outs = []
        # frames as an STFT export workaround does it (torch 1.13 has no aten::stft export): a centred
        # reflect pad, then a strided conv1d with one-hot kernels, windowed
        padded = F.pad(wave.unsqueeze(1), (16, 16), mode="reflect")
        frames = self.frame(padded) * self.window.view(1, -1, 1)
        outs.append(frames)
        h0 = torch.zeros(2, b, 8)
        y, (hn, cn) = self.lstm(t, (h0, h0))
        g, gn = self.gru(t.transpose(0, 1), torch.zeros(1, b, 8))
        up = self.up(t.transpose(1, 2))[..., : 4 * time]
        half = F.interpolate(img, scale_factor=0.5, mode="nearest", recompute_scale_factor=True)
        top = torch.topk(t.sum(-1), time // 2, dim=1)[0]
        hh, ww = img.shape[2], img.shape[3]
        patches = img.reshape(b, 3, hh // 4, 4, ww // 4, 4).permute(0, 2, 4, 1, 3, 5).reshape(b, -1, 48)
        outs += [y, hn, cn, g, gn, up, half, top, patches]
        if self.opset >= 16:
            grid = img[:, :2, : hh // 2].permute(0, 2, 3, 1)  # a sampling grid of half the height
            outs.append(F.grid_sample(img, grid, align_corners=False))
        return tuple(outs)


class SequenceIdioms(nn.Module):
    """Sequence idioms: a static KV cache written at cache_position by index_copy with its mask from
    an arange comparison, a sliding-window slice of keys from the back (the window may exceed the
    length), split into sizes computed from the length, repeat by a computed count, gather with an
    expanded index, nn.TransformerEncoderLayer (batch_first) with a key padding mask, and the
    data-dependent nonzero / masked_select."""

    def __init__(self, max_len=16, window=4):
        super().__init__()
        self.window = window
        self.register_buffer("cache", torch.zeros(1, 2, max_len, 8), persistent=False)
        self.proj = nn.Linear(16, 16)
        self.layer = nn.TransformerEncoderLayer(16, 2, 32, dropout=0.0, batch_first=True)

    def forward(self, t, cache_position, mask):
        b, time = t.shape[0], t.shape[1]
        k = self.proj(t).view(b, time, 2, 8).transpose(1, 2)
        cache = self.cache.expand(b, -1, -1, -1).index_copy(2, cache_position, k)
        allowed = torch.arange(self.cache.shape[2]).view(1, -1) <= cache_position.view(-1, 1)
        recent = k[:, :, -self.window:]
        first, second = torch.split(t, [time // 3, time - time // 3], dim=1)
        tiled = t[:, :1].repeat(1, time // 2 + 1, 1)
        idx = torch.argsort(t.sum(-1), dim=1)[:, : time // 2]
        picked = torch.gather(t, 1, idx.unsqueeze(-1).expand(-1, -1, 16))
        encoded = self.layer(t, src_key_padding_mask=mask == 0)
        nz = torch.nonzero(mask)
        chosen = torch.masked_select(t[..., 0], mask.bool())
        return cache, allowed, recent, first, second, tiled, picked, encoded, nz, chosen


SEQUENCE_OUTS = ["cache", "allowed", "recent", "first", "second", "tiled", "picked", "encoded", "nz", "chosen"]

SIGNAL_OUTS = ["frames", "y", "hn", "cn", "g", "gn", "up", "half", "top", "patches", "sampled"]

SHAPE_IDIOM_OUTS = ["padded", "cols", "shuffled", "grid", "c0", "c1", "c2", "narrowed", "pos", "flipped",
                    "stepped", "stepped3", "zeros", "chosen", "order", "evens", "pooled", "avg", "up", "same",
                    "same1d", "strided", "normed", "gram", "patches", "resized"]


class Features(nn.Module):
    """A backbone's every stage as an output (IntermediateLayerGetter over a ResNet, then an FPN):
    many outputs without declared axes."""

    def __init__(self):
        super().__init__()
        from torchvision.ops import FeaturePyramidNetwork
        body = M.resnet.ResNet(M.resnet.BasicBlock, [1, 1, 1, 1], width_per_group=64)
        self.body = TV.IntermediateLayerGetter(body, {f"layer{i}": str(i) for i in range(1, 5)})
        self.fpn = FeaturePyramidNetwork([64, 128, 256, 512], 32)

    def forward(self, x):
        feats = self.body(x)
        pyramid = self.fpn(feats)
        return tuple(feats.values()) + tuple(pyramid.values())


# Section - the specs (make_torchvision.py's format, with typed inputs)

AUDIO = {"trace": {"batch": 2, "time": 50}, "bindings": [{"batch": 1, "time": 37}, {"batch": 3, "time": 61}]}
# ConvTasNet pads the wave to its encoder's stride when it does not divide it, a branch the tracer
# follows at the trace size: 403 takes the padding path (one that also runs at every other size).
WAVE = {"trace": {"batch": 2, "samples": 403}, "bindings": [{"batch": 1, "samples": 331}, {"batch": 3, "samples": 517}]}
# WaveRNN: waveform length (frames - kernel_size + 1) * hop_length
VOCODER = {"trace": {"batch": 2, "frames": 12, "samples": 32},
           "bindings": [{"batch": 1, "frames": 9, "samples": 20}, {"batch": 3, "frames": 15, "samples": 44}]}
TOKENS = {"trace": {"batch": 2, "tokens": 9, "frames": 11},
          "bindings": [{"batch": 1, "tokens": 7, "frames": 5}, {"batch": 3, "tokens": 13, "frames": 17}]}
LLM = {"trace": {"batch": 2, "seq": 5, "past": 3, "total": 8},
       "bindings": [{"batch": 1, "seq": 7, "past": 0, "total": 7}, {"batch": 3, "seq": 1, "past": 5, "total": 6}]}
LENGTHS = {"dtype": "int64", "fill": "size"}


def spec(family, arch, build, variants, sizes, inputs, outputs, macs=True, opset_arg=False, outputs_at=None):
    return dict(family=family, arch=arch, build=build, variants=variants, sizes=sizes, inputs=inputs,
                outputs=outputs, macs=macs, opset_arg=opset_arg, outputs_at=outputs_at)


IMG = TV.IMG_IN
SPECS = [
    spec("audio", "conformer", lambda: Conformer(True), [(14, "dict"), (17, "list"), (16, "inputs")], AUDIO,
         [("x", ["batch", "time", 16]), ("lengths", ["batch"], dict(LENGTHS, of="time"))],
         [("y", ["batch", "time", 16]), ("out_lengths", ["batch"])]),
    spec("broken", "conformer_lengths_max", lambda: Conformer(False), [(17, "dict")], AUDIO,
         [("x", ["batch", "time", 16]), ("lengths", ["batch"], dict(LENGTHS, of="time"))],
         [("y", ["batch", "time", 16]), ("out_lengths", ["batch"])]),
    spec("audio", "emformer", Emformer, [(14, "dict"), (17, "list")],
         {"trace": {"batch": 2, "time": 17}, "bindings": [{"batch": 1, "time": 9}, {"batch": 3, "time": 22}]},
         [("x", ["batch", "time", 16]), ("lengths", ["batch"], {"dtype": "int64", "fill": "size", "of": "time",
                                                               "minus": 1})],
         [("y", ["batch", "time1", 16]), ("out_lengths", ["batch"])]),
    spec("audio", "conv_tasnet", conv_tasnet, [(11, "dict"), (16, "list"), (13, "inputs")], WAVE,
         [("wave", ["batch", 1, "samples"])], [("sources", ["batch", 2, "samples"])]),
    spec("audio", "wavernn", wavernn, [(13, "dict"), (17, "list")], VOCODER,
         [("waveform", ["batch", 1, "samples"]), ("specgram", ["batch", 1, 8, "frames"])],
         [("logits", ["batch", 1, "samples", 16])], macs=False),
    spec("audio", "deepspeech", lambda: A.DeepSpeech(16, n_hidden=32, n_class=10), [(11, "list"), (16, "dict"), (14, "inputs")],
         AUDIO, [("feats", ["batch", 1, "time", 16])], [("logits", ["batch", "time", 10])]),
    spec("audio", "wav2letter", lambda: A.Wav2Letter(num_classes=10, input_type="mfcc", num_features=16),
         [(13, "list"), (11, "inputs")], AUDIO, [("mfcc", ["batch", 16, "time"])], [("logits", ["batch", 10, "time2"])]),
    spec("audio", "tacotron2_parts", Tacotron2Parts, [(14, "dict"), (17, "inputs")], TOKENS,
         [("tokens", ["batch", "tokens"], {"dtype": "int64", "low": 0, "high": 20}), ("mel", ["batch", 8, "frames"])],
         [("encoded", ["batch", 32, "tokens"]), ("mel_post", ["batch", 8, "frames"])]),
    spec("segmentation", "fcn", TV.SPECS[[s["arch"] for s in TV.SPECS].index("fcn")]["build"], [(11, "list")],
         TV.IMAGE, IMG, TV.SEG_OUT),
    spec("segmentation", "deeplabv3", TV.SPECS[[s["arch"] for s in TV.SPECS].index("deeplabv3")]["build"],
         [(16, "dict"), (13, "inputs")], TV.IMAGE, IMG, TV.SEG_OUT),
    spec("segmentation", "lraspp", TV.SPECS[[s["arch"] for s in TV.SPECS].index("lraspp")]["build"],
         [(14, "list"), (17, "inputs")], TV.SMALL, IMG, TV.SEG_OUT[:1]),
    spec("detection", "retinanet", lambda: TV.OneImage(TV.retinanet(), ["boxes", "labels", "scores"]),
         [(16, "dict"), (13, "inputs")], TV.DETECT_WIDE, TV.DET_IN, TV.BOXES),
    spec("detection", "ssdlite", lambda: TV.OneImage(TV.ssd(True), ["boxes", "labels", "scores"]),
         [(14, "dict"), (17, "inputs")], TV.DETECT_WIDE, TV.DET_IN, TV.BOXES),
    spec("detection", "keypoint_rcnn",
         lambda: TV.OneImage(TV.keypoint_rcnn(), ["boxes", "labels", "scores", "keypoints", "keypoints_scores"]),
         [(16, "dict")], TV.DETECT_WIDE, TV.DET_IN,
         TV.BOXES + [("keypoints", ["detections", 5, 3]), ("keypoints_scores", ["detections", 5])]),
    spec("video", "r2plus1d", lambda: TV.video_resnet([M.video.resnet.Conv2Plus1D] * 4, M.video.resnet.R2Plus1dStem),
         [(11, "list"), (17, "inputs")], TV.VIDEO, [("clips", ["batch", 3, "frames", "height", "width"])], TV.LOGITS),
    spec("video", "mc3", lambda: TV.video_resnet([M.video.resnet.Conv3DSimple] + [M.video.resnet.Conv3DNoTemporal] * 3,
                                                 M.video.resnet.BasicStem),
         [(16, "dict")], TV.VIDEO, [("clips", ["batch", 3, "frames", "height", "width"])], TV.LOGITS),
    spec("classification", "efficientnet_v2", efficientnet_v2, [(16, "dict"), (11, "list"), (14, "inputs")], TV.SMALL, IMG, TV.LOGITS),
    spec("classification", "regnet", TV.regnet, [(11, "dict")], TV.SMALL, IMG, TV.LOGITS),
    spec("classification", "convnext", TV.convnext, [(14, "list"), (17, "inputs")], TV.SMALL, IMG, TV.LOGITS),
    spec("classification", "vit", lambda: M.VisionTransformer(32, 8, 2, 2, 32, 64, num_classes=TV.NUM_CLASSES),
         [(14, "list")], TV.FIXED, [("images", ["batch", 3, 32, 32])], TV.LOGITS),
    spec("classification", "maxvit", lambda: M.MaxVit((64, 64), 16, 4, [16, 32], [1, 1], 8, 0.0,
                                                      num_classes=TV.NUM_CLASSES),
         [(16, "dict")], TV.FIXED, [("images", ["batch", 3, 64, 64])], TV.LOGITS),
    spec("features", "resnet_fpn", Features, [(13, "inputs"), (17, "inputs")], TV.IMAGE, IMG,
         [(f"c{i}", []) for i in range(2, 6)] + [(f"p{i}", []) for i in range(2, 6)]),
    spec("idioms", "shapes", ShapeIdioms, [(11, "dict"), (13, "list"), (16, "dict"), (17, "list")],
         {"trace": {"batch": 2, "height": 21, "width": 26, "time": 14},
          "bindings": [{"batch": 1, "height": 17, "width": 33, "time": 9}, {"batch": 3, "height": 32, "width": 7, "time": 24}]},
         [("x", ["batch", 8, "height", "width"]), ("t", ["batch", "time", 16]),
          ("mask", ["batch", "time"], {"dtype": "int64", "low": 0, "high": 2})],
         [(o, []) for o in SHAPE_IDIOM_OUTS], macs=False, opset_arg=True),
    spec("idioms", "signal", SignalIdioms, [(17, "dict"), (16, "list"), (13, "inputs"), (11, "dict")],
         {"trace": {"batch": 2, "samples": 300, "time": 10, "height": 24, "width": 32},
          "bindings": [{"batch": 1, "samples": 203, "time": 7, "height": 16, "width": 40},
                       {"batch": 3, "samples": 517, "time": 12, "height": 44, "width": 8}]},
         [("wave", ["batch", "samples"]), ("t", ["batch", "time", 16]), ("img", ["batch", 3, "height", "width"])],
         [(o, []) for o in SIGNAL_OUTS], opset_arg=True,
         outputs_at=lambda opset: len(SIGNAL_OUTS) - (opset < 16)),
    spec("idioms", "sequence", SequenceIdioms, [(11, "dict"), (13, "inputs"), (14, "list"), (17, "dict")],
         {"trace": {"batch": 2, "time": 6}, "bindings": [{"batch": 1, "time": 3}, {"batch": 3, "time": 11}]},
         [("t", ["batch", "time", 16]), ("cache_position", ["time"], {"dtype": "int64", "fill": "arange"}),
          ("mask", ["batch", "time"], {"dtype": "int64", "low": 0, "high": 2})],
         [(o, []) for o in SEQUENCE_OUTS]),
    spec("broken", "idioms_repeat_interleave", lambda: Idioms(triu=True, interleave=True), [(17, "dict")], LLM,
         [("input_ids", ["batch", "seq"], {"dtype": "int64", "low": 0, "high": 50}),
          ("attention_mask", ["batch", "total"], {"dtype": "int64", "low": 1, "high": 2}),
          ("past_key", ["batch", 2, "past", 8]), ("past_value", ["batch", 2, "past", 8])],
         [("logits", ["batch", "seq", 50]), ("present_key", ["batch", 2, "total", 8]),
          ("present_value", ["batch", 2, "total", 8]), ("chunks", ["batch", "nchunks", 32]), ("flat", ["nflat"])]),
    spec("llm", "idioms_arange", lambda: Idioms(triu=False), [(13, "dict"), (11, "inputs")], LLM,
         [("input_ids", ["batch", "seq"], {"dtype": "int64", "low": 0, "high": 50}),
          ("attention_mask", ["batch", "total"], {"dtype": "int64", "low": 1, "high": 2}),
          ("past_key", ["batch", 2, "past", 8]), ("past_value", ["batch", 2, "past", 8])],
         [("logits", ["batch", "seq", 50]), ("present_key", ["batch", 2, "total", 8]),
          ("present_value", ["batch", 2, "total", 8]), ("chunks", ["batch", "nchunks", 32]), ("flat", ["nflat"])]),
    spec("llm", "idioms_triu", lambda: Idioms(triu=True), [(14, "list"), (17, "dict"), (16, "inputs")], LLM,
         [("input_ids", ["batch", "seq"], {"dtype": "int64", "low": 0, "high": 50}),
          ("attention_mask", ["batch", "total"], {"dtype": "int64", "low": 0, "high": 2}),
          ("past_key", ["batch", 2, "past", 8]), ("past_value", ["batch", 2, "past", 8])],
         [("logits", ["batch", "seq", 50]), ("present_key", ["batch", 2, "total", 8]),
          ("present_value", ["batch", 2, "total", 8]), ("chunks", ["batch", "nchunks", 32]), ("flat", ["nflat"])]),
]


# Section - export and record


def make_inputs(s, sizes, seed):
    g = torch.Generator().manual_seed(seed)
    out = []
    for inp in s["inputs"]:
        dims = [sizes[d] if isinstance(d, str) else d for d in inp[1]]
        t = inp[2] if len(inp) > 2 else {}
        if t.get("fill") == "arange":
            out.append(torch.arange(dims[-1], dtype=torch.int64).expand(dims).contiguous())
        elif t.get("fill") == "size":
            out.append(torch.full(dims, sizes[t["of"]] - t.get("minus", 0), dtype=torch.int64))
        elif t.get("dtype") == "int64":
            out.append(torch.randint(t.get("low", 0), t.get("high", 2), dims, generator=g))
        else:
            out.append(torch.rand(*dims, generator=g))
    return tuple(out)


def reference_macs(module, args):
    """The profiler's conv2d + mm family, plus conv1d/conv3d/transposed from the modules' attributes.
    Profiled with autograd on, as the export traces: under no_grad nn.TransformerEncoderLayer takes
    its fused fast path, whose projections the profiler does not count as the mm family."""
    from torch.profiler import ProfilerActivity, profile
    with profile(activities=[ProfilerActivity.CPU], with_flops=True) as p:
        module(*args)
    flops = sum(e.flops for e in p.events() if e.name in PROFILED and e.flops)
    return flops // 2 + derived_macs(module, args)


def export_one(s, opset, axes, outdir):
    name = f"{s['family']}_{s['arch']}_op{opset}_{axes}"
    torch.manual_seed(0)
    module = (s["build"](opset) if s.get("opset_arg") else s["build"]()).eval()
    sizes = s["sizes"]
    in_names = [i[0] for i in s["inputs"]]
    out_names = [n for n, _ in s["outputs"]]
    if s.get("outputs_at"):
        out_names = out_names[:s["outputs_at"](opset)]
    eager, macs = [], []
    with torch.no_grad():
        for i, b in enumerate(sizes["bindings"]):
            args = make_inputs(s, b, i)
            eager.append([list(t.shape) for t in TV.flat_outputs(module(*args))])
            macs.append(None)
    for i, b in enumerate(sizes["bindings"]):
        if s["macs"]:
            macs[i] = reference_macs(module, make_inputs(s, b, i))
    dyn = {}
    # "inputs": dynamic axes given for the inputs only (as many users write them): torch labels
    # every output dim itself, reusing labels across outputs of unrelated sizes.
    for n, dims, *_ in s["inputs"] + (s["outputs"] if axes != "inputs" else []):
        pos = {i: d for i, d in enumerate(dims) if isinstance(d, str)}
        if pos:
            dyn[n] = pos if axes in ("dict", "inputs") else sorted(pos)
    path = os.path.join(outdir, name + ".onnx")
    torch.onnx.export(module, make_inputs(s, sizes["trace"], 99), path, input_names=in_names,
                      output_names=out_names, dynamic_axes=dyn, opset_version=opset, do_constant_folding=True)
    model = onnx.load(path)
    notes = TV.fix_int_sqrt(model)
    onnx.checker.check_model(model)
    onnx.save(model, path)
    onnx.save(expose_all(model), os.path.join(outdir, name + ".all.onnx"))
    with open(os.path.join(outdir, name + ".graph.json"), "w") as fh:
        json.dump(graph_summary(model), fh, allow_nan=False)
    inputs, exported = [], {}
    specs = {i[0]: i for i in s["inputs"]}
    for vi in model.graph.input:
        if vi.name not in specs:
            continue
        dims = dims_of(vi)
        ours = specs[vi.name][1]
        for d, o in zip(dims, ours):
            if isinstance(o, str):
                if not isinstance(d, str) or not d:
                    raise RuntimeError(f"{name}: input {vi.name} dim {o} exported as {d!r}")
                exported[d] = o
            elif d != o:
                raise RuntimeError(f"{name}: input {vi.name} dims {dims}, expected {ours}")
        t = dict(specs[vi.name][2]) if len(specs[vi.name]) > 2 else {}
        entry = {"name": vi.name, "dtype": t.get("dtype", "float32"), "dims": dims}
        for k in ("low", "high", "fill", "minus"):
            if k in t:
                entry[k] = t[k]
        if "of" in t:
            entry["sizeOf"] = next(d for d, o in exported.items() if o == t["of"])
        inputs.append(entry)
    # a symbol of ours that only a later input names (sizeOf) must be exported by then
    for entry in inputs:
        if entry.get("fill") == "size" and "sizeOf" not in entry:
            raise RuntimeError(f"{name}: no exported dim for {entry['name']}")
    return {
        "name": name, "family": s["family"], "arch": s["arch"], "opset": opset, "axes": axes,
        "file": name + ".onnx", "allFile": name + ".all.onnx", "graphFile": name + ".graph.json", "inputs": inputs,
        "outputs": {o.name: dims_of(o) for o in model.graph.output},
        "bindings": [{d: b[o] for d, o in exported.items()} for b in sizes["bindings"]],
        "sizes": sizes["bindings"], "eagerOutputs": eager, "notes": notes, "macs": macs,
        "params": sum(p.numel() for p in module.parameters()),
    }


def main():
    if len(sys.argv) < 2:
        sys.exit("usage: make_more_exports.py OUTDIR [NAME...]")
    outdir, only = sys.argv[1], set(sys.argv[2:])
    os.makedirs(outdir, exist_ok=True)
    torch.set_num_threads(1)
    entries, failed = [], []
    t0 = time.time()
    for s in SPECS:
        for opset, axes in s["variants"]:
            name = f"{s['family']}_{s['arch']}_op{opset}_{axes}"
            if only and name not in only and s["arch"] not in only:
                continue
            t = time.time()
            try:
                entry = export_one(s, opset, axes, outdir)
            except Exception as e:  # an export torch 1.13 cannot make is reported, not fatal
                failed.append({"name": name, "error": f"{type(e).__name__}: {str(e).splitlines()[0][:300]}"})
                print(f"{name}: FAILED {failed[-1]['error']}", file=sys.stderr)
                continue
            entry["exportSeconds"] = round(time.time() - t, 2)
            entries.append(entry)
            print(f"{name}: {entry['params'] / 1e6:.3f} M params, {entry['exportSeconds']} s", file=sys.stderr)
    with open(os.path.join(outdir, "manifest.json"), "w") as fh:
        json.dump(entries, fh, indent=1)
    with open(os.path.join(outdir, "failed.json"), "w") as fh:
        json.dump(failed, fh, indent=1)
    print(f"{len(entries)} models written to {outdir} ({len(failed)} exports failed) in {time.time() - t0:.1f} s")


if __name__ == "__main__":
    main()
