// A small fluent builder for writing networks in code (the built-in zoo, tests).
//
// Layers are appended in the order they are added, which makes the topological order of
// Network::layers hold by construction: a layer can only name refs that already exist.
// Only the parameter struct that belongs to a layer's kind is ever set, so a built
// network round-trips through the JSON format unchanged.
#pragma once

#include "network/network.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace iterscope {

// Index of a layer in the network being built.
using LayerRef = std::size_t;

// Convolution hyper-parameters: Conv(3).stride(2).pad(1).noBias().
class Conv {
  public:
    explicit Conv(int64_t kernel)
        : Conv(kernel, kernel) {}
    Conv(int64_t kernel_h, int64_t kernel_w) {
        p_.kernel_h = kernel_h;
        p_.kernel_w = kernel_w;
    }
    Conv stride(int64_t s) const { return stride(s, s); }
    Conv stride(int64_t h, int64_t w) const {
        Conv c = *this;
        c.p_.stride_h = h;
        c.p_.stride_w = w;
        return c;
    }
    Conv pad(int64_t p) const { return pad(p, p); }
    Conv pad(int64_t h, int64_t w) const { return pad(h, w, h, w); }
    Conv pad(int64_t top, int64_t left, int64_t bottom, int64_t right) const {
        Conv c = *this;
        c.p_.pad_top = top;
        c.p_.pad_left = left;
        c.p_.pad_bottom = bottom;
        c.p_.pad_right = right;
        return c;
    }
    Conv padMode(PadMode mode) const {
        Conv c = *this;
        c.p_.pad_mode = mode;
        return c;
    }
    Conv groups(int64_t g) const {
        Conv c = *this;
        c.p_.groups = g;
        return c;
    }
    Conv dilation(int64_t d) const {
        Conv c = *this;
        c.p_.dilation_h = d;
        c.p_.dilation_w = d;
        return c;
    }
    Conv noBias() const {
        Conv c = *this;
        c.p_.bias = false;
        return c;
    }
    ConvParams params(int64_t out_channels) const {
        ConvParams p = p_;
        p.out_channels = out_channels;
        return p;
    }

  private:
    ConvParams p_;
};

// Pooling window: Pool::max(3).stride(2).ceil().
class Pool {
  public:
    static Pool max(int64_t kernel) { return Pool(PoolKind::Max, kernel, kernel); }
    static Pool average(int64_t kernel) { return Pool(PoolKind::Average, kernel, kernel); }
    static Pool of(PoolKind kind, int64_t kernel_h, int64_t kernel_w) {
        return Pool(kind, kernel_h, kernel_w);
    }
    Pool stride(int64_t s) const { return stride(s, s); }
    Pool stride(int64_t h, int64_t w) const {
        Pool q = *this;
        q.p_.stride_h = h;
        q.p_.stride_w = w;
        return q;
    }
    Pool pad(int64_t p) const { return pad(p, p, p, p); }
    Pool pad(int64_t top, int64_t left, int64_t bottom, int64_t right) const {
        Pool q = *this;
        q.p_.pad_top = top;
        q.p_.pad_left = left;
        q.p_.pad_bottom = bottom;
        q.p_.pad_right = right;
        return q;
    }
    Pool ceil() const {
        Pool q = *this;
        q.p_.ceil_mode = true;
        return q;
    }
    Pool includePad() const {
        Pool q = *this;
        q.p_.count_include_pad = true;
        return q;
    }
    const PoolParams& params() const { return p_; }

  private:
    Pool(PoolKind kind, int64_t kernel_h, int64_t kernel_w) {
        p_.kind = kind;
        p_.kernel_h = kernel_h;
        p_.kernel_w = kernel_w;
        // PyTorch and Caffe default the stride to the kernel, not to 1.
        p_.stride_h = kernel_h;
        p_.stride_w = kernel_w;
    }
    PoolParams p_;
};

class NetworkBuilder {
  public:
    // Starts a network whose layers[0] is an Input named input_name.
    NetworkBuilder(std::string name, Dims input, std::string input_name = "input");

    LayerRef input() const { return 0; }

    LayerRef conv(const std::string& name, LayerRef in, int64_t out_channels, const Conv& spec);
    LayerRef fc(const std::string& name, LayerRef in, int64_t out_features, bool bias = true);
    LayerRef batchNorm(const std::string& name, LayerRef in, bool affine = true);
    LayerRef activation(const std::string& name, LayerRef in, ActivationKind kind);
    LayerRef relu(const std::string& name, LayerRef in) {
        return activation(name, in, ActivationKind::ReLU);
    }
    LayerRef pool(const std::string& name, LayerRef in, const Pool& spec);
    LayerRef globalPool(const std::string& name, LayerRef in, PoolKind kind = PoolKind::Average);
    LayerRef lrn(const std::string& name, LayerRef in, int64_t size);
    LayerRef concat(const std::string& name, const std::vector<LayerRef>& ins, int64_t axis = 0);
    LayerRef add(const std::string& name, LayerRef a, LayerRef b);
    // a * b with broadcasting: a squeeze-and-excitation's Cx1x1 scale over a CxHxW map.
    LayerRef mul(const std::string& name, LayerRef a, LayerRef b);
    LayerRef eltwise(const std::string& name, const std::vector<LayerRef>& ins, EltwiseKind kind);
    LayerRef dropout(const std::string& name, LayerRef in);
    LayerRef flatten(const std::string& name, LayerRef in);
    LayerRef softmax(const std::string& name, LayerRef in, int64_t axis = -1);

    // Layers on tensors of any rank (token sequences, channels-last maps).
    // A Linear on the last axis, keeping the others: every token through the same weights.
    LayerRef linear(const std::string& name, LayerRef in, int64_t out_features, bool bias = true);
    LayerRef layerNorm(const std::string& name, LayerRef in, int64_t axis = -1);
    LayerRef matmul(const std::string& name, LayerRef a, LayerRef b, bool transpose_b = false);
    LayerRef transpose(const std::string& name, LayerRef in, std::vector<int64_t> perm);
    LayerRef reshape(const std::string& name, LayerRef in, Dims target);
    LayerRef slice(const std::string& name, LayerRef in, std::vector<int64_t> axes,
                   std::vector<int64_t> starts, std::vector<int64_t> ends,
                   std::vector<int64_t> steps = {});
    // A tensor given to every sample; `params` > 0 makes it learned (a class token).
    LayerRef constant(const std::string& name, Dims dims, int64_t params);
    LayerRef pad(const std::string& name, LayerRef in, std::vector<int64_t> begins,
                 std::vector<int64_t> ends);

    // A PyTorch AdaptiveAvgPool2d to out x out as a plain average pooling over the
    // current spatial size, the way exporters lower it: torchvision's AlexNet and VGG
    // keep their classifier sizes at any input that way. Throws InputError when the
    // network so far does not fit its input.
    LayerRef adaptiveAveragePool(const std::string& name, LayerRef in, int64_t out);

    // Per-sample output dims of a layer, by analysing the network built so far.
    Dims dims(LayerRef ref) const;

    const Network& network() const { return net_; }
    // Checks the topology (unique names, layers[0] the only Input) and hands it over.
    Network build() &&;

  private:
    LayerRef append(Layer layer);
    Layer make(const std::string& name, LayerKind kind, std::vector<LayerRef> inputs) const;

    Network net_;
};

} // namespace iterscope
