#!/usr/bin/env python3
"""Writes tests/data/onnx/unknown-op.onnx: two convolutions around ops the importer does not
know (FancyNorm twice, Softplus), which it imports as zero-cost identities with a warning.
Encodes the protobuf by hand, so it needs neither the onnx nor the protobuf package.

    scripts/testdata/make_unknown_op_onnx.py tests/data/onnx/unknown-op.onnx
"""
import struct
import sys


def varint(n):
    out = b""
    while True:
        byte = n & 0x7F
        n >>= 7
        if n:
            out += bytes([byte | 0x80])
        else:
            return out + bytes([byte])


def field(number, wire, payload):
    return varint(number << 3 | wire) + payload


def integer(number, value):
    return field(number, 0, varint(value))


def message(number, body):
    return field(number, 2, varint(len(body)) + body)


def text(number, value):
    return message(number, value.encode())


def value_info(name, dims):
    shape = b"".join(message(1, integer(1, d)) for d in dims)  # Dimension.dim_value
    tensor_type = integer(1, 1) + message(2, shape)  # elem_type FLOAT, shape
    return text(1, name) + message(2, message(1, tensor_type))


def external_weights(name, dims):
    body = b"".join(integer(1, d) for d in dims) + integer(2, 1) + text(8, name)
    body += message(13, text(1, "location") + text(2, name + ".bin"))  # external_data
    return body + integer(14, 1)  # data_location EXTERNAL


def ints_attribute(name, values):
    return text(1, name) + b"".join(integer(8, v) for v in values) + integer(20, 7)


def node(op, inputs, outputs, attributes=()):
    body = b"".join(text(1, i) for i in inputs) + b"".join(text(2, o) for o in outputs)
    body += text(3, outputs[0]) + text(4, op)
    return body + b"".join(message(5, a) for a in attributes)


def conv(x, y, cin, cout):
    attributes = [ints_attribute("kernel_shape", [3, 3]), ints_attribute("strides", [1, 1]),
                  ints_attribute("pads", [1, 1, 1, 1])]
    return node("Conv", [x, y + ".w"], [y], attributes), external_weights(y + ".w",
                                                                          [cout, cin, 3, 3])


def main(path):
    c1, w1 = conv("x", "c1", 3, 16)
    c2, w2 = conv("n3", "c2", 16, 16)
    nodes = [c1, node("FancyNorm", ["c1"], ["n1"]), node("FancyNorm", ["n1"], ["n2"]),
             node("Softplus", ["n2"], ["n3"]), c2]
    graph = b"".join(message(1, n) for n in nodes) + text(2, "unknown-op")
    graph += message(5, w1) + message(5, w2)
    graph += message(11, value_info("x", [1, 3, 32, 32]))
    graph += message(12, value_info("c2", [1, 16, 32, 32]))
    model = integer(1, 7) + text(2, "iterscope-tests") + message(7, graph)
    model += message(8, text(1, "") + integer(2, 13))
    with open(path, "wb") as f:
        f.write(model)


if __name__ == "__main__":
    main(sys.argv[1])
