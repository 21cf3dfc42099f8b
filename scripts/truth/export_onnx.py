#!/usr/bin/env python3
"""Exports torchvision models to ONNX in training mode, as a user would, for the importer's
tests (tests/data/onnx/*.structure.onnx) and benchmark (tests/bench/bench_import).

Training mode keeps BatchNormalization and Dropout. Stochastic depth (torchvision's
StochasticDepth, EfficientNet's, ConvNeXt's and Swin's) has no ONNX training-mode form, so its
probability is set to 0, which makes it the identity.

  export_onnx.py OUT_DIR ID [ID ...] [--opset N] [--image S] [--embed] [--dynamic-batch]

Without --embed the weights go to ONNX external data and the weights file is deleted: the
file keeps every initializer's dims (all an analyzer needs) in a few hundred KB. With --embed
the weights stay inside the file, as users' files usually have them. Needs python3-torch 1.13
and python3-torchvision 0.14; CI never runs this.
"""
import argparse
import os
import sys

import onnx
import torch
import torchvision.models as tvm
from torchvision.ops import StochasticDepth

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from count_torchvision import NETWORKS  # noqa: E402  (same ids, same constructors)


def without_stochastic_depth(model):
    for m in model.modules():
        if isinstance(m, StochasticDepth):
            m.p = 0.0
        # Swin's blocks and ConvNeXt's keep their own probability as a plain attribute too.
        if hasattr(m, "stochastic_depth_prob"):
            m.stochastic_depth_prob = 0.0
    return model


def export(nid, out_dir, opset, image, embed, dynamic_batch=False):
    make, default_image = NETWORKS[nid]
    image = image or default_image
    torch.manual_seed(0)
    model = without_stochastic_depth(make())
    model.train()
    path = os.path.join(out_dir, f"{nid}.onnx" if embed else f"{nid}.structure.onnx")
    torch.onnx.export(
        model,
        torch.zeros(1, 3, image, image),
        path,
        opset_version=opset,
        training=torch.onnx.TrainingMode.TRAINING,
        do_constant_folding=False,
        input_names=["input"],
        output_names=["logits"],
        dynamic_axes={"input": {0: "N"}, "logits": {0: "N"}} if dynamic_batch else None,
    )
    if not embed:
        proto = onnx.load(path)
        weights = f"{nid}.weights"
        onnx.save_model(proto, path, save_as_external_data=True, all_tensors_to_one_file=True,
                        location=weights)
        os.remove(os.path.join(out_dir, weights))
    return path


def main():
    p = argparse.ArgumentParser()
    p.add_argument("out_dir")
    p.add_argument("ids", nargs="+")
    p.add_argument("--opset", type=int, default=13)
    p.add_argument("--image", type=int, default=0)
    p.add_argument("--embed", action="store_true")
    p.add_argument("--dynamic-batch", action="store_true",
                   help="a symbolic batch, so that shapes are computed from it at run time")
    a = p.parse_args()
    os.makedirs(a.out_dir, exist_ok=True)
    for nid in a.ids:
        path = export(nid, a.out_dir, a.opset, a.image, a.embed, a.dynamic_batch)
        print(path, os.path.getsize(path))


if __name__ == "__main__":
    main()
