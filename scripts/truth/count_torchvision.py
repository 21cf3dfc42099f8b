#!/usr/bin/env python3
"""Counts trainable parameters and forward multiply-accumulates of reference networks.

Ground truth for tests/data/zoo-truth.json. Needs PyTorch and torchvision (Debian's
python3-torch 1.13 and python3-torchvision 0.14); CI never runs this, it only reads the JSON.

MACs are those of convolutions, linear layers and matrix products between activations
(attention) at batch 1, counted on the ATen operators a forward pass dispatches
(convolution, mm, addmm, bmm, baddbmm), so that functional calls (F.linear in Swin and
MultiheadAttention, Tensor.matmul) count as well as modules. Parameters are torchvision's
trainable ones (BatchNorm running statistics are buffers, not parameters).

Usage: count_torchvision.py [id ...]   (default: every id it knows), prints JSON.
"""
import json
import math
import sys

import torch
import torch.nn as nn
import torchvision.models as tvm
from torch.utils._python_dispatch import TorchDispatchMode
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


class MacCounter(TorchDispatchMode):
    """Counts multiply-accumulates at the ATen level, below every Python-level path
    (modules, F.linear, Tensor.matmul, @): convolutions, and matrix products, which cover
    linear layers and attention's products between activations alike."""

    def __init__(self):
        super().__init__()
        self.macs = 0

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        name = func.overloadpacket.__name__
        if name == "convolution":
            weight, groups = args[1], args[8]
            per_output = weight.shape[1] * math.prod(weight.shape[2:])
            assert weight.shape[0] % groups == 0
            self.macs += out.numel() * per_output
        elif name in ("mm", "addmm"):
            a = args[1] if name == "addmm" else args[0]
            self.macs += out.numel() * a.shape[-1]
        elif name in ("bmm", "baddbmm"):
            a = args[1] if name == "baddbmm" else args[0]
            self.macs += out.numel() * a.shape[-1]
        elif name in ("matmul", "linear", "conv2d", "_convolution") or "attention" in name:
            raise RuntimeError(f"{name} reached dispatch undecomposed; count it")
        return out


def count(model, image):
    model.eval()
    counter = MacCounter()
    # With gradients on, MultiheadAttention skips its fused inference kernel
    # (_native_multi_head_attention), which would hide its products from the count.
    with counter:
        model(torch.zeros(1, 3, image, image))
    params = sum(p.numel() for p in model.parameters() if p.requires_grad)
    return params, counter.macs


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
