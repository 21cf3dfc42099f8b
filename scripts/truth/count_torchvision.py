#!/usr/bin/env python3
"""Counts trainable parameters and forward multiply-accumulates of reference networks.

Ground truth for tests/data/zoo-truth.json. Needs PyTorch and torchvision (Debian's
python3-torch 1.13 and python3-torchvision 0.14); CI never runs this, it only reads the JSON.

MACs are those of convolutions, linear layers and matrix products between activations
(attention) at batch 1: forward hooks on Conv2d and Linear modules, a hook on
MultiheadAttention for its functional projections, and wrappers around torch.matmul, bmm,
baddbmm and the @ operator for products whose operands are both activations. Parameters are
torchvision's trainable ones (BatchNorm running statistics are buffers, not parameters).

Usage: count_torchvision.py [id ...]   (default: every id it knows), prints JSON.
"""
import json
import math
import sys

import torch
import torch.nn as nn
import torchvision.models as tvm
from torchvision.models.resnet import Bottleneck, ResNet


class SqueezeExcitation(nn.Module):
    """DeepLearningExamples' SE module as the validation README defines it: global average
    pool, FC to C/16 with bias, ReLU, FC back to C with bias, sigmoid."""

    def __init__(self, channels, reduction=16):
        super().__init__()
        self.squeeze = nn.Conv2d(channels, channels // reduction, 1)
        self.expand = nn.Conv2d(channels // reduction, channels, 1)

    def forward(self, x):
        s = torch.mean(x, dim=(2, 3), keepdim=True)
        s = torch.relu(self.squeeze(s))
        return torch.sigmoid(self.expand(s))


class SEBottleneck(Bottleneck):
    """torchvision's Bottleneck with SE applied to its output before the residual add."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.se = SqueezeExcitation(self.conv3.out_channels)

    def forward(self, x):
        identity = x if self.downsample is None else self.downsample(x)
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.relu(self.bn2(self.conv2(out)))
        out = self.bn3(self.conv3(out))
        out = out * self.se(out)
        return self.relu(out + identity)


def resnext101_32x4d():
    return ResNet(Bottleneck, [3, 4, 23, 3], groups=32, width_per_group=4)


def se_resnext101_32x4d():
    return ResNet(SEBottleneck, [3, 4, 23, 3], groups=32, width_per_group=4)


# id -> (constructor, default image)
NETWORKS = {
    "resnet50": (tvm.resnet50, 224),  # a check on the counter: zoo-truth.json has it
    "resnext50-32x4d": (tvm.resnext50_32x4d, 224),
    "resnext101-32x8d": (tvm.resnext101_32x8d, 224),
    "resnext101-32x4d": (resnext101_32x4d, 224),
    "se-resnext101-32x4d": (se_resnext101_32x4d, 224),
    "wide-resnet50-2": (tvm.wide_resnet50_2, 224),
    "efficientnet-b0": (tvm.efficientnet_b0, 224),
    "efficientnet-b4": (tvm.efficientnet_b4, 380),
    "efficientnet-v2-s": (tvm.efficientnet_v2_s, 384),
    "mobilenet-v3-large": (tvm.mobilenet_v3_large, 224),
    "regnet-y-1.6gf": (tvm.regnet_y_1_6gf, 224),
    "convnext-tiny": (tvm.convnext_tiny, 224),
    "vit-b-16": (tvm.vit_b_16, 224),
    "swin-t": (tvm.swin_t, 224),
}


def count(model, image):
    macs = 0

    def conv_hook(m, inp, out):
        nonlocal macs
        per_output = m.in_channels // m.groups * math.prod(m.kernel_size)
        macs += out.numel() * per_output

    def linear_hook(m, inp, out):
        nonlocal macs
        macs += out.numel() * m.in_features

    handles = []
    for m in model.modules():
        if isinstance(m, nn.Conv2d):
            handles.append(m.register_forward_hook(conv_hook))
        elif isinstance(m, nn.Linear):
            handles.append(m.register_forward_hook(linear_hook))
        elif isinstance(m, nn.MultiheadAttention):
            # Its projections are F.linear calls inside, not nn.Linear modules: count the
            # in-projection and the out-projection here, the two matmuls below.
            def mha_hook(m, inp, out):
                nonlocal macs
                tokens = inp[0].shape[0] * inp[0].shape[1]
                macs += tokens * m.embed_dim * 3 * m.embed_dim + tokens * m.embed_dim * m.embed_dim

            handles.append(m.register_forward_hook(mha_hook))

    # Attention's matrix products between activations: every matmul / bmm / baddbmm whose
    # operands are both activations (no parameter), as ViT's and Swin's attention do.
    originals = {}

    def matmul_counter(name):
        fn = getattr(torch, name)
        originals[name] = fn

        def wrapped(*args, **kwargs):
            nonlocal macs
            out = fn(*args, **kwargs)
            tensors = [a for a in args if isinstance(a, torch.Tensor)]
            a, b = tensors[-2], tensors[-1]
            if not isinstance(a, nn.Parameter) and not isinstance(b, nn.Parameter):
                macs += out.numel() * a.shape[-1]
            return out

        setattr(torch, name, wrapped)

    for name in ("matmul", "bmm", "baddbmm"):
        matmul_counter(name)
    # Tensor.__matmul__ (a @ b) goes through torch.Tensor, not the module attribute.
    original_op = torch.Tensor.__matmul__

    def op(a, b):
        nonlocal macs
        out = original_op(a, b)
        if not isinstance(a, nn.Parameter) and not isinstance(b, nn.Parameter):
            macs += out.numel() * a.shape[-1]
        return out

    torch.Tensor.__matmul__ = op
    try:
        model.eval()
        with torch.no_grad():
            model(torch.zeros(1, 3, image, image))
    finally:
        for name, fn in originals.items():
            setattr(torch, name, fn)
        torch.Tensor.__matmul__ = original_op
        for h in handles:
            h.remove()
    params = sum(p.numel() for p in model.parameters() if p.requires_grad)
    return params, macs


def main():
    ids = sys.argv[1:] or list(NETWORKS)
    result = {}
    for nid in ids:
        make, image = NETWORKS[nid]
        torch.manual_seed(0)
        params, macs = count(make(), image)
        result[nid] = {"params": params, "macs": macs, "image": image}
    json.dump(result, sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main()
