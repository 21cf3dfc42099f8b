#!/usr/bin/env python3
"""Writes small ONNX seeds for fuzz_onnx (tests/fuzz/corpus/onnx/) covering the importer's
tensor ops: attention with heads and a moved or merged batch, LayerNorm, GELU and SiLU
written out op by op, Swin's roll, window reshapes and constant-folded mask, a class token
and position table, and the opset-17 ops. Weights are empty external data, so each seed is a
few KB. Needs python3-onnx; CI only reads the seeds.

Usage: make_onnx_seeds.py [OUT_DIR]   (default tests/fuzz/corpus/onnx)
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


class G:
    def __init__(self, opset=13):
        self.nodes, self.inits, self.opset, self.n = [], [], opset, 0

    def name(self, stem):
        self.n += 1
        return f"{stem}{self.n}"

    def weight(self, dims):
        # Dims and an external location, no data: what structure-only exports hold.
        t = onnx.TensorProto()
        t.name = self.name("w")
        t.data_type = TensorProto.FLOAT
        t.dims.extend(dims)
        t.data_location = TensorProto.EXTERNAL
        e = t.external_data.add()
        e.key, e.value = "location", "weights.bin"
        self.inits.append(t)
        return t.name

    def ints(self, values):
        name = self.name("i")
        self.inits.append(numpy_helper.from_array(np.array(values, dtype=np.int64), name))
        return name

    def scalar(self, v):
        name = self.name("c")
        self.nodes.append(helper.make_node(
            "Constant", [], [name], value=numpy_helper.from_array(np.array(v, dtype=np.float32))))
        return name

    def op(self, op, inputs, outputs=1, **attrs):
        outs = [self.name(op.lower()) for _ in range(outputs)]
        self.nodes.append(helper.make_node(op, inputs, outs, name=self.name(op), **attrs))
        return outs[0] if outputs == 1 else outs

    def save(self, path, x_dims, y):
        x = helper.make_tensor_value_info("x", TensorProto.FLOAT, x_dims)
        out = helper.make_tensor_value_info(y, TensorProto.FLOAT, None)
        g = helper.make_graph(self.nodes, "seed", [x], [out], self.inits)
        m = helper.make_model(g, opset_imports=[helper.make_opsetid("", self.opset)])
        m.ir_version = 8
        with open(path, "wb") as f:
            f.write(m.SerializeToString())


def layer_norm(g, x, width):
    d = g.op("Sub", [x, g.op("ReduceMean", [x], axes=[-1])])
    var = g.op("ReduceMean", [g.op("Pow", [d, g.scalar(2.0)])], axes=[-1])
    n = g.op("Div", [d, g.op("Sqrt", [g.op("Add", [var, g.scalar(1e-6)])])])
    return g.op("Add", [g.op("Mul", [n, g.weight([width])]), g.weight([width])])


def gelu(g, x):
    e = g.op("Erf", [g.op("Div", [x, g.scalar(1.4142135)])])
    return g.op("Mul", [g.op("Mul", [x, g.op("Add", [e, g.scalar(1.0)])]), g.scalar(0.5)])


def linear(g, x, k, n):
    return g.op("Add", [g.weight([n]), g.op("MatMul", [x, g.op("Transpose", [g.weight([n, k])],
                                                                perm=[1, 0])])])


def attention_heads(out):
    # [N, 5, 8], 2 heads of 4, q k^T softmax v, merged back, LayerNorm and a GELU MLP.
    g = G()
    qkv = linear(g, layer_norm(g, "x", 8), 8, 24)
    heads = g.op("Transpose", [g.op("Reshape", [qkv, g.ints([0, 5, 3, 2, 4])])],
                 perm=[2, 0, 3, 1, 4])
    q, k, v = (g.op("Gather", [heads, g.ints(i)], axis=0) for i in range(3))
    s = g.op("MatMul", [g.op("Mul", [q, g.scalar(0.5)]), g.op("Transpose", [k], perm=[0, 1, 3, 2])])
    c = g.op("MatMul", [g.op("Softmax", [s], axis=-1), v])
    y = g.op("Reshape", [g.op("Transpose", [c], perm=[0, 2, 1, 3]), g.ints([0, 5, 8])])
    y = linear(g, gelu(g, linear(g, y, 8, 16)), 16, 8)
    g.save(os.path.join(out, "attention_heads.onnx"), ["N", 5, 8], y)


def attention_batch_moved(out):
    # MultiheadAttention's export: [N, L, E] -> [L, N, E], heads merged with the batch from
    # the tensor's own shape, the output through [L*N, E] and a Gemm.
    g = G()
    t = g.op("Transpose", ["x"], perm=[1, 0, 2])
    shape = g.op("Shape", [t])
    n = g.op("Gather", [shape, g.ints(1)], axis=0)
    nh = g.op("Mul", [n, g.ints(2)])
    tgt = g.op("Concat", [g.ints([3]), g.op("Unsqueeze", [nh, g.ints([0])]), g.ints([2])], axis=0)
    h = g.op("Transpose", [g.op("Reshape", [t, tgt])], perm=[1, 0, 2])
    s = g.op("Softmax", [g.op("MatMul", [h, g.op("Transpose", [h], perm=[0, 2, 1])])], axis=-1)
    c = g.op("Transpose", [g.op("MatMul", [s, h])], perm=[1, 0, 2])
    rows = g.op("Reshape", [c, g.op("Concat", [g.ints([-1]), g.ints([4])], axis=0)])
    y = g.op("Gemm", [rows, g.weight([4, 4]), g.weight([4])], transB=1)
    back = g.op("Concat", [g.ints([3]), g.op("Unsqueeze", [n, g.ints([0])]), g.ints([4])], axis=0)
    y = g.op("Transpose", [g.op("Reshape", [y, back])], perm=[1, 0, 2])
    g.save(os.path.join(out, "attention_batch_moved.onnx"), ["N", 3, 4], y)


def swin_window(out):
    # Channels-last 7x7 map: padding computed from shapes, a roll as Slice + Concat, windows,
    # a mask made of ConstantOfShape, Range, ScatterND, Equal and Where, the roll undone.
    g = G()
    pads = g.op("Cast", [g.op("Concat", [g.ints([0, 0, 0, 0]), g.ints([0, 1, 1, 0])], axis=0)],
                to=TensorProto.INT64)
    x = g.op("Pad", ["x", pads], mode="constant")
    for axis in (1, 2):
        tail = g.op("Slice", [x, g.ints([3]), g.ints([8]), g.ints([axis])])
        head = g.op("Slice", [x, g.ints([0]), g.ints([3]), g.ints([axis])])
        x = g.op("Concat", [tail, head], axis=axis)
    w = g.op("Reshape", [x, g.ints([-1, 2, 4, 2, 4, 3])])
    w = g.op("Reshape", [g.op("Transpose", [w], perm=[0, 1, 3, 2, 4, 5]), g.ints([-1, 16, 3])])
    qk = g.op("MatMul", [w, g.op("Transpose", [w], perm=[0, 2, 1])])
    zeros = g.op("ConstantOfShape", [g.ints([8, 8])],
                 value=numpy_helper.from_array(np.array([0.0], dtype=np.float32)))
    idx = g.op("Unsqueeze", [g.op("Range", [g.ints(4), g.ints(8), g.ints(1)]), g.ints([1])])
    upd = g.op("ConstantOfShape", [g.ints([4, 8])],
               value=numpy_helper.from_array(np.array([1.0], dtype=np.float32)))
    mask = g.op("ScatterND", [zeros, idx, upd])
    mask = g.op("Reshape", [g.op("Transpose", [g.op("Reshape", [mask, g.ints([2, 4, 2, 4])])],
                                 perm=[0, 2, 1, 3]), g.ints([4, 16])])
    diff = g.op("Sub", [g.op("Unsqueeze", [mask, g.ints([1])]),
                        g.op("Unsqueeze", [mask, g.ints([2])])])
    mask = g.op("Where", [g.op("Equal", [diff, g.scalar(0.0)]), g.scalar(0.0), g.scalar(-100.0)])
    a = g.op("Reshape", [qk, g.ints([-1, 4, 16, 16])])
    a = g.op("Add", [a, g.op("Unsqueeze", [mask, g.ints([0])])])
    y = g.op("Softmax", [g.op("Reshape", [a, g.ints([-1, 16, 16])])], axis=-1)
    g.save(os.path.join(out, "swin_window.onnx"), ["N", 7, 7, 3], y)


def class_token(out):
    # ViT's front: patches as tokens, a learned token expanded to the batch, a position table.
    g = G(13)
    p = g.op("Conv", ["x", g.weight([8, 3, 4, 4]), g.weight([8])], kernel_shape=[4, 4],
             strides=[4, 4])
    t = g.op("Transpose", [g.op("Reshape", [p, g.ints([0, 8, 4])])], perm=[0, 2, 1])
    n = g.op("Slice", [g.op("Shape", ["x"]), g.ints([0]), g.ints([1])])
    tok = g.op("Expand", [g.weight([1, 1, 8]), g.op("Concat", [n, g.ints([1, 8])], axis=0)])
    x = g.op("Add", [g.op("Concat", [tok, t], axis=1), g.weight([1, 5, 8])])
    y = g.op("Gemm", [g.op("Gather", [x, g.ints(0)], axis=1), g.weight([10, 8]), g.weight([10])],
             transB=1)
    g.save(os.path.join(out, "class_token.onnx"), ["N", 3, 8, 8], y)


def opset17_ops(out):
    g = G(17)
    x = g.op("LayerNormalization", ["x", g.weight([6]), g.weight([6])], axis=-1)
    a, b = g.op("Split", [x, g.ints([2, 4])], outputs=2, axis=-1)
    s = g.op("ReduceSum", [b, g.ints([-1])], keepdims=1)
    e = g.op("Expand", [s, g.ints([1, 4, 2])])
    y = g.op("Mul", [g.op("Sigmoid", [a]), a])
    y = g.op("Concat", [g.op("Erf", [y]), e], axis=-1)
    g.save(os.path.join(out, "opset17_ops.onnx"), [1, 4, 6], y)


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.path.dirname(__file__), "..", "..", "tests", "fuzz", "corpus", "onnx")
    for make in (attention_heads, attention_batch_moved, swin_window, class_token, opset17_ops):
        make(out)


if __name__ == "__main__":
    main()
