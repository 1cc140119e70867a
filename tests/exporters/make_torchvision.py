#!/usr/bin/python3
"""Generates torchvision models (random weights) as ONNX for the torchvision differential of onnx-shapes.

Run with Debian's python3 (python3-torchvision 0.14, python3-torch 1.13, python3-onnx 1.12):
    /usr/bin/python3 tests/exporters/make_torchvision.py OUTDIR [NAME...]

Every model is built from torchvision's own classes with `weights=None` (nothing is downloaded: the
download functions are replaced by one that raises), at small widths and depths where the classes
take them, in eval mode, and exported by torch.onnx (TorchScript exporter) with dynamic batch /
height / width / frames, given either as dict-form `dynamic_axes` (our names) or as list-form
(`[0, 2, 3]`: torch names the dims itself). Each binding of the sizes is first run in eager PyTorch:
a size the model itself refuses is no truth.

For every model NAME it writes NAME.onnx, NAME.all.onnx (every node output a graph output, from
make_models.expose_all) and an entry of OUTDIR/manifest.json: {name, family, arch, opset, axes,
file, allFile, inputs: [{name, dtype, dims}], outputs: {name: declared dims}, bindings: [{dim name
as exported: size}], sizes: [{our symbol: size}], eagerOutputs: [[dims per output] per binding],
notes}. tests/exporters/torchvision.mjs caches OUTDIR under build/ keyed by this file's hash.
"""
import json
import os
import sys
import time
import warnings
from functools import partial

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from make_models import dims_of, expose_all, graph_summary  # noqa: E402  (shared with the exporter differential)

import onnx  # noqa: E402
import torch  # noqa: E402
import torch.hub  # noqa: E402
import torch.nn as nn  # noqa: E402
import torchvision  # noqa: E402
import torchvision._internally_replaced_utils as _tv_utils  # noqa: E402
import torchvision.models._api as _tv_api  # noqa: E402
from onnx import TensorProto, helper  # noqa: E402
from torchvision.models import detection as D  # noqa: E402
from torchvision.models import segmentation as S  # noqa: E402
from torchvision.models import video as V  # noqa: E402
from torchvision.models._utils import IntermediateLayerGetter  # noqa: E402

warnings.filterwarnings("ignore")


def _no_download(*args, **kwargs):
    raise RuntimeError(f"make_torchvision.py must not download anything (asked for {args[:1]})")


torch.hub.load_state_dict_from_url = _no_download
_tv_utils.load_state_dict_from_url = _no_download
_tv_api.load_state_dict_from_url = _no_download

NUM_CLASSES = 10
SEG_CLASSES = 3
DET_CLASSES = 3  # few classes: random heads then score above box_score_thresh, so detections are not empty

# Sizes: the trace size differs from both bindings; both bindings are odd where the model allows
# (SMALL, DETECT_WIDE: other sizes again, small, batch 4, far from square).
IMAGE = {"trace": {"batch": 2, "height": 112, "width": 96},
         "bindings": [{"batch": 1, "height": 97, "width": 131}, {"batch": 3, "height": 161, "width": 123}]}
FIXED = {"bindings": [{"batch": 1}, {"batch": 3}], "trace": {"batch": 2}}
DETECT = {"trace": {"height": 112, "width": 96},
          "bindings": [{"height": 97, "width": 131}, {"height": 161, "width": 123}]}
VIDEO = {"trace": {"batch": 2, "frames": 6, "height": 48, "width": 40},
         "bindings": [{"batch": 1, "frames": 5, "height": 45, "width": 61},
                      {"batch": 2, "frames": 7, "height": 57, "width": 39}]}
# Small sizes, batch 4 and 1, a trace larger than both.
SMALL = {"trace": {"batch": 1, "height": 72, "width": 88},
         "bindings": [{"batch": 4, "height": 33, "width": 47}, {"batch": 1, "height": 65, "width": 39}]}
FIXED4 = {"bindings": [{"batch": 1}, {"batch": 4}], "trace": {"batch": 3}}
DETECT_WIDE = {"trace": {"height": 100, "width": 128},
               "bindings": [{"height": 65, "width": 201}, {"height": 301, "width": 47}]}
# RAFT asserts height and width are multiples of 8, and its 4-level correlation pyramid wants >= 64.
FLOW = {"trace": {"batch": 2, "height": 72, "width": 80},
        "bindings": [{"batch": 1, "height": 64, "width": 88}, {"batch": 3, "height": 96, "width": 72}]}


# Section - model builders (torchvision classes, small widths)


def mbv3_large(**kw):
    return torchvision.models.mobilenet_v3_large(weights=None, width_mult=0.25, **kw)


class Tupled(nn.Module):
    """Returns a model's dict output (segmentation) as a tuple, in `keys` order."""

    def __init__(self, model, keys):
        super().__init__()
        self.model, self.keys = model, keys

    def forward(self, x):
        out = self.model(x)
        return tuple(out[k] for k in self.keys)


class OneImage(nn.Module):
    """A detection model on one [3, H, W] image; returns that image's detections as a tuple."""

    def __init__(self, model, keys):
        super().__init__()
        self.model, self.keys = model, keys

    def forward(self, image):
        out = self.model([image])[0]
        return tuple(out[k] for k in self.keys)


class TwoFlowUpdates(nn.Module):
    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, image1, image2):
        return tuple(self.model(image1, image2, num_flow_updates=2))


def fpn_backbone(extra_blocks=None, levels=(3, 6, 12, 16)):
    """torchvision's BackboneWithFPN over a 0.25-wide MobileNetV3-Large, 32 FPN channels; `levels`
    are the feature blocks before each stride (strides 4, 8, 16, 32)."""
    features = mbv3_large(norm_layer=torchvision.ops.FrozenBatchNorm2d).features
    ret = {str(i): str(k) for k, i in enumerate(levels)}
    return D.backbone_utils.BackboneWithFPN(features, ret, [features[i].out_channels for i in levels], 32,
                                            extra_blocks=extra_blocks)


DET_COMMON = dict(min_size=96, max_size=160)
RCNN_COMMON = dict(DET_COMMON, rpn_pre_nms_top_n_test=64, rpn_post_nms_top_n_test=24, box_detections_per_img=8,
                   box_head=None, box_predictor=None)


def rcnn_box_parts(num_classes):
    return dict(box_head=D.faster_rcnn.TwoMLPHead(32 * 7 * 7, 64),
                box_predictor=D.faster_rcnn.FastRCNNPredictor(64, num_classes))


def faster_rcnn():
    return D.FasterRCNN(fpn_backbone(), **dict(RCNN_COMMON, **rcnn_box_parts(DET_CLASSES)))


def mask_rcnn():
    return D.MaskRCNN(fpn_backbone(), mask_head=D.mask_rcnn.MaskRCNNHeads(32, (32, 32), 1),
                      mask_predictor=D.mask_rcnn.MaskRCNNPredictor(32, 16, DET_CLASSES),
                      **dict(RCNN_COMMON, **rcnn_box_parts(DET_CLASSES)))


def keypoint_rcnn():
    return D.KeypointRCNN(fpn_backbone(), keypoint_head=D.keypoint_rcnn.KeypointRCNNHeads(32, (32, 32)),
                          keypoint_predictor=D.keypoint_rcnn.KeypointRCNNPredictor(32, 5),
                          **dict(RCNN_COMMON, **rcnn_box_parts(2)))


def retinanet():
    backbone = fpn_backbone(D.retinanet.LastLevelP6P7(32, 32), levels=(6, 12, 16))
    # A random head scores about 0.01 (its prior): a lower threshold keeps detections, so the
    # data-dependent values are not all empty.
    return D.RetinaNet(backbone, DET_CLASSES, score_thresh=0.001, topk_candidates=40, detections_per_img=8, **DET_COMMON)


def fcos():
    backbone = fpn_backbone(D.retinanet.LastLevelP6P7(32, 32), levels=(6, 12, 16))
    # Its head's GroupNorm refuses a 1x1 P7 map: images resized to at least 128 keep P7 above 1x1.
    return D.FCOS(backbone, DET_CLASSES, score_thresh=0.001, topk_candidates=40, detections_per_img=8, min_size=128,
                  max_size=192)


def ssd(lite):
    norm = partial(nn.BatchNorm2d, eps=0.001, momentum=0.03)
    backbone = D.ssdlite._mobilenet_extractor(mbv3_large(reduced_tail=True, norm_layer=norm), 6, norm)
    size = (128, 128)
    anchors = D.anchor_utils.DefaultBoxGenerator([[2, 3] for _ in range(6)], min_ratio=0.2, max_ratio=0.95)
    channels = D._utils.retrieve_out_channels(backbone, size)
    head = (D.ssdlite.SSDLiteHead(channels, anchors.num_anchors_per_location(), DET_CLASSES, norm) if lite
            else D.ssd.SSDHead(channels, anchors.num_anchors_per_location(), DET_CLASSES))
    return D.ssd.SSD(backbone, anchors, size, DET_CLASSES, head=head, score_thresh=0.001, nms_thresh=0.55,
                 detections_per_img=8, topk_candidates=40, image_mean=[0.5] * 3, image_std=[0.5] * 3)


def fasterrcnn_mobilenet_fpn():
    """fasterrcnn_mobilenet_v3_large_fpn's parts (3-level FPN from torchvision's mobilenet extractor, 5
    anchor sizes per level, an RPN score threshold) at 0.25 width."""
    backbone = D.backbone_utils._mobilenet_extractor(mbv3_large(norm_layer=torchvision.ops.FrozenBatchNorm2d), True, 6)
    anchors = D.anchor_utils.AnchorGenerator(((32, 64, 128, 256, 512),) * 3, ((0.5, 1.0, 2.0),) * 3)
    return D.FasterRCNN(backbone, None, rpn_anchor_generator=anchors, min_size=128, max_size=200,
                        rpn_pre_nms_top_n_test=64, rpn_post_nms_top_n_test=24, rpn_score_thresh=0.05,
                        box_detections_per_img=8, box_score_thresh=0.0,
                        box_head=D.faster_rcnn.TwoMLPHead(backbone.out_channels * 7 * 7, 64),
                        box_predictor=D.faster_rcnn.FastRCNNPredictor(64, DET_CLASSES))


def quantized_mobilenet_v2():
    """torchvision's quantizable MobileNetV2 (0.25 wide) fused, calibrated on one random batch and
    converted (qnnpack): torch exports QuantizeLinear/DequantizeLinear around every op."""
    from torchvision.models import quantization as Q
    torch.backends.quantized.engine = "qnnpack"
    m = Q.QuantizableMobileNetV2(num_classes=NUM_CLASSES, width_mult=0.25, block=Q.mobilenetv2.QuantizableInvertedResidual)
    Q.utils._replace_relu(m)
    m.eval().fuse_model()
    m.qconfig = torch.ao.quantization.get_default_qconfig("qnnpack")
    torch.ao.quantization.prepare(m, inplace=True)
    with torch.no_grad():
        m(torch.rand(2, 3, 64, 64, generator=torch.Generator().manual_seed(1)))
    return torch.ao.quantization.convert(m, inplace=True)


def mvit(v2):
    """torchvision's MViT (v1: class-token residual, absolute positions; v2: relative positions, residual
    pooling) at two small stages on 4x32x32 clips. Its pooling splits off the class token with
    tensor_split: a Loop inserting pieces of different sizes into a sequence."""
    from torchvision.models.video.mvit import MSBlockConfig, MViT
    q = [3, 3, 3] if v2 else []
    cfgs = [MSBlockConfig(num_heads=1, input_channels=16, output_channels=16 if v2 else 32, kernel_q=q,
                          kernel_kv=[3, 3, 3], stride_q=[1, 1, 1] if v2 else [], stride_kv=[1, 4, 4]),
            MSBlockConfig(num_heads=2, input_channels=16 if v2 else 32, output_channels=32, kernel_q=[3, 3, 3],
                          kernel_kv=[3, 3, 3], stride_q=[1, 2, 2], stride_kv=[1, 2, 2])]
    return MViT(spatial_size=(32, 32), temporal_size=4, block_setting=cfgs, residual_pool=v2,
                residual_with_cls_embed=not v2, rel_pos_embed=v2, proj_after_attn=v2, num_classes=NUM_CLASSES)


def small_dilated_resnet():
    return torchvision.models.resnet.ResNet(torchvision.models.resnet.Bottleneck, [1, 1, 1, 1], width_per_group=8,
                                            replace_stride_with_dilation=[False, True, True])


def fcn():
    body = IntermediateLayerGetter(small_dilated_resnet(), {"layer3": "out", "layer2": "aux"})
    return S.FCN(body, S.fcn.FCNHead(1024, SEG_CLASSES), S.fcn.FCNHead(512, SEG_CLASSES))


def video_resnet(conv_makers, stem):
    """torchvision's VideoResNet, one block per stage, cut after layer2 (its default widths reach 512
    channels of 3x3x3 kernels: 100+ MB)."""
    m = V.resnet.VideoResNet(V.resnet.BasicBlock, conv_makers, [1, 1, 1, 1], stem, num_classes=NUM_CLASSES)
    m.layer3, m.layer4, m.fc = nn.Identity(), nn.Identity(), nn.Linear(128, NUM_CLASSES)
    return m


def regnet():
    from torchvision.models.regnet import BlockParams, RegNet
    return RegNet(BlockParams.from_init_params(depth=4, w_0=16, w_a=8.0, w_m=2.0, group_width=8, se_ratio=0.25),
                  num_classes=NUM_CLASSES)


def efficientnet():
    from torchvision.models.efficientnet import EfficientNet, _efficientnet_conf
    setting, last = _efficientnet_conf("efficientnet_b0", width_mult=0.25, depth_mult=0.25)
    return EfficientNet(setting, 0.2, num_classes=NUM_CLASSES, last_channel=last)


def convnext():
    from torchvision.models.convnext import CNBlockConfig, ConvNeXt
    return ConvNeXt([CNBlockConfig(16, 32, 1), CNBlockConfig(32, 64, 1), CNBlockConfig(64, None, 1)],
                    num_classes=NUM_CLASSES)


def swin():
    return torchvision.models.SwinTransformer(patch_size=[4, 4], embed_dim=16, depths=[1, 1, 1], num_heads=[1, 2, 4],
                                              window_size=[7, 7], stochastic_depth_prob=0.0, num_classes=NUM_CLASSES)


# Section - the matrix: every family at opsets 13 and 17, dict- and list-form axes

IMG_IN = [("images", ["batch", 3, "height", "width"])]
LOGITS = [("logits", ["batch", NUM_CLASSES])]
SEG_OUT = [("out", ["batch", SEG_CLASSES, "height", "width"]), ("aux", ["batch", SEG_CLASSES, "height", "width"])]
DET_IN = [("image", [3, "height", "width"])]
BOXES = [("boxes", ["detections", 4]), ("labels", ["detections"]), ("scores", ["detections"])]


def cls(arch, build, variants, sizes=IMAGE, inputs=IMG_IN):
    return dict(family="classification", arch=arch, build=build, variants=variants, sizes=sizes, inputs=inputs,
                outputs=LOGITS)


M = torchvision.models
SPECS = [
    cls("resnet", lambda: M.resnet.ResNet(M.resnet.BasicBlock, [1, 1, 1, 1], num_classes=NUM_CLASSES),
        [(13, "dict"), (17, "list")]),
    cls("mobilenet_v3_small", lambda: M.mobilenet_v3_small(weights=None, width_mult=0.5, num_classes=NUM_CLASSES),
        [(13, "list"), (17, "dict")]),
    cls("efficientnet", efficientnet, [(13, "dict"), (17, "list")]),
    cls("shufflenet_v2", lambda: M.ShuffleNetV2([2, 2, 2], [12, 24, 48, 96, 256], num_classes=NUM_CLASSES),
        [(13, "list"), (17, "dict")]),
    cls("squeezenet1_0", lambda: M.squeezenet1_0(weights=None, num_classes=NUM_CLASSES), [(13, "dict")]),
    cls("squeezenet1_1", lambda: M.squeezenet1_1(weights=None, num_classes=NUM_CLASSES), [(17, "list")]),
    cls("densenet", lambda: M.DenseNet(8, (2, 2, 2, 2), 16, num_classes=NUM_CLASSES), [(13, "list"), (17, "dict")]),
    cls("regnet", regnet, [(13, "dict"), (17, "list")]),
    cls("googlenet", lambda: M.GoogLeNet(num_classes=NUM_CLASSES, aux_logits=False, init_weights=False),
        [(13, "list"), (17, "dict")]),
    cls("convnext", convnext, [(13, "dict"), (17, "list")]),
    cls("swin", swin, [(13, "list"), (17, "dict")]),
    cls("vit", lambda: M.VisionTransformer(32, 8, 2, 2, 32, 64, num_classes=NUM_CLASSES), [(13, "dict"), (17, "list")],
        sizes=FIXED, inputs=[("images", ["batch", 3, 32, 32])]),
    cls("maxvit", lambda: M.MaxVit((64, 64), 16, 4, [16, 32], [1, 1], 8, 0.0, num_classes=NUM_CLASSES),
        [(13, "list"), (17, "dict")], sizes=FIXED, inputs=[("images", ["batch", 3, 64, 64])]),
    cls("quantized_mobilenet_v2", quantized_mobilenet_v2, [(13, "dict")], sizes=SMALL),
    dict(family="segmentation", arch="deeplabv3",
         build=lambda: Tupled(S.deeplabv3._deeplabv3_mobilenetv3(mbv3_large(dilated=True), SEG_CLASSES, True),
                              ["out", "aux"]),
         variants=[(13, "dict"), (17, "list")], sizes=IMAGE, inputs=IMG_IN, outputs=SEG_OUT),
    dict(family="segmentation", arch="lraspp",
         build=lambda: Tupled(S.lraspp._lraspp_mobilenetv3(mbv3_large(dilated=True), SEG_CLASSES), ["out"]),
         variants=[(13, "list"), (17, "dict")], sizes=IMAGE, inputs=IMG_IN, outputs=SEG_OUT[:1]),
    dict(family="segmentation", arch="fcn", build=lambda: Tupled(fcn(), ["out", "aux"]),
         variants=[(13, "dict"), (17, "list")], sizes=IMAGE, inputs=IMG_IN, outputs=SEG_OUT),
    dict(family="detection", arch="faster_rcnn", build=lambda: OneImage(faster_rcnn(), ["boxes", "labels", "scores"]),
         variants=[(13, "dict"), (17, "list")], sizes=DETECT, inputs=DET_IN, outputs=BOXES),
    dict(family="detection", arch="faster_rcnn_mobilenet_fpn",
         build=lambda: OneImage(fasterrcnn_mobilenet_fpn(), ["boxes", "labels", "scores"]),
         variants=[(13, "list")], sizes=DETECT_WIDE, inputs=DET_IN, outputs=BOXES),
    dict(family="detection", arch="mask_rcnn",
         build=lambda: OneImage(mask_rcnn(), ["boxes", "labels", "scores", "masks"]),
         variants=[(17, "dict")], sizes=DETECT, inputs=DET_IN,
         outputs=BOXES + [("masks", ["detections", 1, "height", "width"])]),
    dict(family="detection", arch="keypoint_rcnn",
         build=lambda: OneImage(keypoint_rcnn(), ["boxes", "labels", "scores", "keypoints", "keypoints_scores"]),
         variants=[(13, "list")], sizes=DETECT, inputs=DET_IN,
         outputs=BOXES + [("keypoints", ["detections", 5, 3]), ("keypoints_scores", ["detections", 5])]),
    dict(family="detection", arch="retinanet", build=lambda: OneImage(retinanet(), ["boxes", "labels", "scores"]),
         variants=[(13, "list")], sizes=DETECT, inputs=DET_IN, outputs=BOXES),
    dict(family="detection", arch="fcos", build=lambda: OneImage(fcos(), ["boxes", "labels", "scores"]),
         variants=[(17, "dict")], sizes=DETECT, inputs=DET_IN, outputs=BOXES),
    dict(family="detection", arch="ssd", build=lambda: OneImage(ssd(False), ["boxes", "labels", "scores"]),
         variants=[(13, "dict")], sizes=DETECT, inputs=DET_IN, outputs=BOXES),
    dict(family="detection", arch="ssdlite", build=lambda: OneImage(ssd(True), ["boxes", "labels", "scores"]),
         variants=[(17, "list")], sizes=DETECT, inputs=DET_IN, outputs=BOXES),
    dict(family="video", arch="r3d", build=lambda: video_resnet([V.resnet.Conv3DSimple] * 4, V.resnet.BasicStem),
         variants=[(13, "dict"), (17, "list")], sizes=VIDEO, inputs=[("clips", ["batch", 3, "frames", "height", "width"])],
         outputs=LOGITS),
    dict(family="video", arch="mc3",
         build=lambda: video_resnet([V.resnet.Conv3DSimple] + [V.resnet.Conv3DNoTemporal] * 3, V.resnet.BasicStem),
         variants=[(13, "list")], sizes=VIDEO, inputs=[("clips", ["batch", 3, "frames", "height", "width"])],
         outputs=LOGITS),
    dict(family="video", arch="r2plus1d", build=lambda: video_resnet([V.resnet.Conv2Plus1D] * 4, V.resnet.R2Plus1dStem),
         variants=[(17, "dict")], sizes=VIDEO, inputs=[("clips", ["batch", 3, "frames", "height", "width"])],
         outputs=LOGITS),
    dict(family="video", arch="mvit_v1", build=lambda: mvit(False), variants=[(13, "list")], sizes=FIXED4,
         inputs=[("clips", ["batch", 3, 4, 32, 32])], outputs=LOGITS),
    dict(family="video", arch="mvit_v2", build=lambda: mvit(True), variants=[(17, "dict")], sizes=FIXED4,
         inputs=[("clips", ["batch", 3, 4, 32, 32])], outputs=LOGITS),
    dict(family="optical_flow", arch="raft_small",
         build=lambda: TwoFlowUpdates(M.optical_flow.raft_small(weights=None)),
         variants=[(16, "list"), (17, "dict")], sizes=FLOW,  # grid_sample: opset >= 16
         inputs=[("image1", ["batch", 3, "height", "width"]), ("image2", ["batch", 3, "height", "width"])],
         outputs=[("flow0", ["batch", 2, "height", "width"]), ("flow1", ["batch", 2, "height", "width"])]),
]


# Section - export and record


def make_inputs(spec, sizes, seed):
    g = torch.Generator().manual_seed(seed)
    return tuple(torch.rand(*[sizes[d] if isinstance(d, str) else d for d in dims], generator=g)
                 for _, dims in spec["inputs"])


def flat_outputs(out):
    return list(out) if isinstance(out, (tuple, list)) else [out]


def fix_int_sqrt(model):
    """RAFT divides by torch.sqrt(torch.tensor(C)) with C from x.shape: the exporter emits Sqrt on int64,
    which onnxruntime refuses. Cast its input to float and back, as eager PyTorch's type promotion
    does in effect; returns the notes of what was changed."""
    if not any(n.op_type == "Sqrt" for n in model.graph.node):
        return []
    types = {vi.name: vi.type.tensor_type.elem_type
             for vi in onnx.shape_inference.infer_shapes(model).graph.value_info}
    notes, nodes = [], []
    for node in model.graph.node:
        if node.op_type == "Sqrt" and types.get(node.input[0]) == TensorProto.INT64:
            src, out = node.input[0], node.output[0]
            nodes += [helper.make_node("Cast", [src], [src + "_as_float"], to=TensorProto.FLOAT),
                      helper.make_node("Sqrt", [src + "_as_float"], [out + "_float"]),
                      helper.make_node("Cast", [out + "_float"], [out], to=TensorProto.INT64)]
            notes.append(f"Sqrt on int64 {src}: input cast to float, output back to int64")
        else:
            nodes.append(node)
    del model.graph.node[:]
    model.graph.node.extend(nodes)
    return notes


def export_one(spec, opset, axes, outdir):
    name = f"{spec['family']}_{spec['arch']}_op{opset}_{axes}"
    torch.manual_seed(0)
    module = spec["build"]().eval()
    sizes = spec["sizes"]
    out_names = [n for n, _ in spec["outputs"]]
    in_names = [n for n, _ in spec["inputs"]]
    eager = []
    with torch.no_grad():
        for i, b in enumerate(sizes["bindings"]):
            try:
                eager.append([list(t.shape) for t in flat_outputs(module(*make_inputs(spec, b, i)))])
            except Exception as e:  # a size the model refuses is no truth: choose another binding
                raise RuntimeError(f"{name}: eager PyTorch refuses binding {b}: {e}") from e
    dyn = {}
    for n, dims in spec["inputs"] + spec["outputs"]:
        pos = {i: d for i, d in enumerate(dims) if isinstance(d, str)}
        if pos:
            dyn[n] = pos if axes == "dict" else sorted(pos)
    path = os.path.join(outdir, name + ".onnx")
    # Not under no_grad: there nn.MultiheadAttention (ViT) takes its fused path, which has no export.
    torch.onnx.export(module, make_inputs(spec, sizes["trace"], 99), path, input_names=in_names,
                      output_names=out_names, dynamic_axes=dyn, opset_version=opset, do_constant_folding=True)
    model = onnx.load(path)
    notes = fix_int_sqrt(model)
    onnx.checker.check_model(model)
    onnx.save(model, path)
    onnx.save(expose_all(model), os.path.join(outdir, name + ".all.onnx"))
    with open(os.path.join(outdir, name + ".graph.json"), "w") as fh:
        json.dump(graph_summary(model), fh, allow_nan=False)
    # The exported dim names of our symbols (list form: torch's own, e.g. images_dynamic_axes_1).
    inputs, exported = [], {}
    for vi in model.graph.input:
        dims = dims_of(vi)
        ours = dict(spec["inputs"])[vi.name]
        for d, o in zip(dims, ours):
            if isinstance(o, str):
                if not isinstance(d, str) or not d:
                    raise RuntimeError(f"{name}: input {vi.name} dim {o} exported as {d!r}")
                exported[d] = o
            elif d != o:
                raise RuntimeError(f"{name}: input {vi.name} dims {dims}, expected {ours}")
        inputs.append({"name": vi.name, "dtype": "float32", "dims": dims})
    return {
        "name": name, "family": spec["family"], "arch": spec["arch"], "opset": opset, "axes": axes,
        "file": name + ".onnx", "allFile": name + ".all.onnx", "graphFile": name + ".graph.json", "inputs": inputs,
        "outputs": {o.name: dims_of(o) for o in model.graph.output},
        "bindings": [{d: b[o] for d, o in exported.items()} for b in sizes["bindings"]],
        "sizes": sizes["bindings"], "eagerOutputs": eager, "notes": notes,
        "params": sum(p.numel() for p in module.parameters()),
    }


def main():
    if len(sys.argv) < 2:
        sys.exit("usage: make_torchvision.py OUTDIR [NAME...]")
    outdir, only = sys.argv[1], set(sys.argv[2:])
    os.makedirs(outdir, exist_ok=True)
    torch.set_num_threads(2)
    entries = []
    t0 = time.time()
    for spec in SPECS:
        for opset, axes in spec["variants"]:
            name = f"{spec['family']}_{spec['arch']}_op{opset}_{axes}"
            if only and name not in only and spec["arch"] not in only:
                continue
            t = time.time()
            entry = export_one(spec, opset, axes, outdir)
            entry["exportSeconds"] = round(time.time() - t, 2)
            entries.append(entry)
            print(f"{name}: {entry['params'] / 1e6:.2f} M params, {entry['exportSeconds']} s", file=sys.stderr)
    with open(os.path.join(outdir, "manifest.json"), "w") as fh:
        json.dump(entries, fh, indent=1)
    print(f"{len(entries)} models written to {outdir} in {time.time() - t0:.1f} s")


if __name__ == "__main__":
    main()
