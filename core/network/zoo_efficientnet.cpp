// The mobile inverted-residual networks as torchvision 0.14 builds them: EfficientNet B0-B7
// and V2-S (MBConv blocks with a squeeze-and-excitation gate and SiLU, V2 starting with
// fused MBConv) and MobileNet-v3 (hard-swish, hard-sigmoid gates); widths rounded to 8.
#include "network/zoo_networks.h"

#include <algorithm>
#include <cmath>

namespace iterscope::zoo {
namespace {

// torchvision's _make_divisible(v, 8): round to the nearest multiple of 8, never below 8
// and never more than 10% below v.
int64_t makeDivisible(double v) {
    constexpr int64_t kDivisor = 8;
    int64_t rounded =
        std::max<int64_t>(kDivisor, static_cast<int64_t>(v + kDivisor / 2.0) / kDivisor * kDivisor);
    if (static_cast<double>(rounded) < 0.9 * v)
        rounded += kDivisor;
    return rounded;
}

struct MbStage {
    double expand;
    int64_t kernel, stride, in_channels, out_channels, layers;
};

// One MBConv block, torchvision's layer names: features.<stage>.<block>.block.<part>.
LayerRef mbconv(NetworkBuilder& b, const std::string& p, LayerRef x, double expand, int64_t kernel,
                int64_t stride, int64_t in_channels, int64_t out_channels) {
    const ActivationKind silu = ActivationKind::Swish;
    const int64_t expanded = makeDivisible(static_cast<double>(in_channels) * expand);
    LayerRef y = x;
    int part = 0;
    auto next = [&] { return p + ".block." + std::to_string(part++); };
    if (expanded != in_channels)
        y = convBnAct(b, next(), y, expanded, Conv(1), silu);
    y = convBnAct(b, next(), y, expanded,
                  Conv(kernel).stride(stride).pad((kernel - 1) / 2).groups(expanded), silu);
    y = squeezeExcite(b, next(), y, expanded, std::max<int64_t>(1, in_channels / 4), silu);
    const std::string project = next();
    y = b.batchNorm(project + ".bn", b.conv(project + ".conv", y, out_channels, Conv(1).noBias()));
    // Stochastic depth scales the residual branch by a per-sample mask in training; at the
    // level of shapes and counts it is the identity.
    if (stride == 1 && in_channels == out_channels)
        y = b.add(p + ".add", y, x);
    return y;
}

// EfficientNet-V2's fused MBConv: one full kxk convolution expands (or, at expansion 1,
// replaces) the 1x1 + depthwise pair; no SE.
LayerRef fusedMbconv(NetworkBuilder& b, const std::string& p, LayerRef x, double expand,
                     int64_t kernel, int64_t stride, int64_t in_channels, int64_t out_channels) {
    const ActivationKind silu = ActivationKind::Swish;
    const int64_t expanded = makeDivisible(static_cast<double>(in_channels) * expand);
    const Conv k = Conv(kernel).stride(stride).pad((kernel - 1) / 2);
    LayerRef y = x;
    if (expanded != in_channels) {
        y = convBnAct(b, p + ".block.0", y, expanded, k, silu);
        y = b.batchNorm(p + ".block.1.bn",
                        b.conv(p + ".block.1.conv", y, out_channels, Conv(1).noBias()));
    } else {
        y = convBnAct(b, p + ".block.0", y, out_channels, k, silu);
    }
    if (stride == 1 && in_channels == out_channels)
        y = b.add(p + ".add", y, x);
    return y;
}

// The classifier after the last 1x1 convolution: pool, flatten, dropout, fc.
void poolDropoutClassify(NetworkBuilder& b, LayerRef x) {
    x = b.globalPool("avgpool", x, PoolKind::Average);
    x = b.flatten("flatten", x);
    x = b.dropout("classifier.0", x);
    b.fc("classifier.1", x, 1000);
}

} // namespace

Network efficientnet(const std::string& id, double width_mult, double depth_mult, int64_t image) {
    // torchvision 0.14 models/efficientnet.py, _efficientnet_conf("efficientnet_b*").
    const MbStage base[] = {{1, 3, 1, 32, 16, 1},  {6, 3, 2, 16, 24, 2},  {6, 5, 2, 24, 40, 2},
                            {6, 3, 2, 40, 80, 3},  {6, 5, 1, 80, 112, 3}, {6, 5, 2, 112, 192, 4},
                            {6, 3, 1, 192, 320, 1}};
    auto width = [width_mult](int64_t c) {
        return makeDivisible(static_cast<double>(c) * width_mult);
    };
    NetworkBuilder b(id, {3, image, image});
    LayerRef x = convBnAct(b, "features.0", b.input(), width(32), Conv(3).stride(2).pad(1),
                           ActivationKind::Swish);
    int stage_index = 1;
    for (const MbStage& s : base) {
        const auto layers =
            static_cast<int64_t>(std::ceil(static_cast<double>(s.layers) * depth_mult));
        const int64_t out = width(s.out_channels);
        int64_t in = width(s.in_channels);
        for (int64_t i = 0; i < layers; ++i) {
            const std::string p =
                "features." + std::to_string(stage_index) + "." + std::to_string(i);
            x = mbconv(b, p, x, s.expand, s.kernel, i == 0 ? s.stride : 1, in, out);
            in = out;
        }
        ++stage_index;
    }
    const int64_t last = 4 * width(base[6].out_channels);
    x = convBnAct(b, "features." + std::to_string(stage_index), x, last, Conv(1),
                  ActivationKind::Swish);
    poolDropoutClassify(b, x);
    Network net = std::move(b).build();
    net.augmentation = Augmentation::AutoAugment; // Tan and Le 2019, section 5
    return net;
}

Network efficientnetV2S(const std::string& id, int64_t image) {
    // torchvision 0.14 models/efficientnet.py, _efficientnet_conf("efficientnet_v2_s"): three
    // fused stages, three MBConv stages, a 1280-wide head.
    struct Stage {
        bool fused;
        double expand;
        int64_t kernel, stride, in_channels, out_channels, layers;
    };
    const Stage stages[] = {{true, 1, 3, 1, 24, 24, 2},    {true, 4, 3, 2, 24, 48, 4},
                            {true, 4, 3, 2, 48, 64, 4},    {false, 4, 3, 2, 64, 128, 6},
                            {false, 6, 3, 1, 128, 160, 9}, {false, 6, 3, 2, 160, 256, 15}};
    NetworkBuilder b(id, {3, image, image});
    LayerRef x =
        convBnAct(b, "features.0", b.input(), 24, Conv(3).stride(2).pad(1), ActivationKind::Swish);
    int stage_index = 1;
    for (const Stage& s : stages) {
        int64_t in = s.in_channels;
        for (int64_t i = 0; i < s.layers; ++i) {
            const std::string p =
                "features." + std::to_string(stage_index) + "." + std::to_string(i);
            const int64_t stride = i == 0 ? s.stride : 1;
            x = s.fused ? fusedMbconv(b, p, x, s.expand, s.kernel, stride, in, s.out_channels)
                        : mbconv(b, p, x, s.expand, s.kernel, stride, in, s.out_channels);
            in = s.out_channels;
        }
        ++stage_index;
    }
    x = convBnAct(b, "features." + std::to_string(stage_index), x, 1280, Conv(1),
                  ActivationKind::Swish);
    poolDropoutClassify(b, x);
    Network net = std::move(b).build();
    net.augmentation = Augmentation::RandAugment; // Tan and Le 2021, section 4
    return net;
}

Network mobilenetV3Large(const std::string& id, int64_t image) {
    // torchvision 0.14 models/mobilenetv3.py, _mobilenet_v3_conf("mobilenet_v3_large"):
    // inverted residuals with ReLU ("RE") or hard-swish ("HS"), some with an SE gate that
    // squeezes to a quarter of the expanded width and gates with a hard sigmoid.
    struct Block {
        int64_t in, kernel, expanded, out;
        bool se, hard_swish;
        int64_t stride;
    };
    const Block blocks[] = {{16, 3, 16, 16, false, false, 1},  {16, 3, 64, 24, false, false, 2},
                            {24, 3, 72, 24, false, false, 1},  {24, 5, 72, 40, true, false, 2},
                            {40, 5, 120, 40, true, false, 1},  {40, 5, 120, 40, true, false, 1},
                            {40, 3, 240, 80, false, true, 2},  {80, 3, 200, 80, false, true, 1},
                            {80, 3, 184, 80, false, true, 1},  {80, 3, 184, 80, false, true, 1},
                            {80, 3, 480, 112, true, true, 1},  {112, 3, 672, 112, true, true, 1},
                            {112, 5, 672, 160, true, true, 2}, {160, 5, 960, 160, true, true, 1},
                            {160, 5, 960, 160, true, true, 1}};
    const ActivationKind hs = ActivationKind::HardSwish;
    NetworkBuilder b(id, {3, image, image});
    LayerRef x = convBnAct(b, "features.0", b.input(), 16, Conv(3).stride(2).pad(1), hs);
    int index = 1;
    for (const Block& k : blocks) {
        const std::string p = "features." + std::to_string(index++) + ".block";
        const ActivationKind act = k.hard_swish ? hs : ActivationKind::ReLU;
        LayerRef y = x;
        int part = 0;
        auto next = [&] { return p + "." + std::to_string(part++); };
        if (k.expanded != k.in)
            y = convBnAct(b, next(), y, k.expanded, Conv(1), act);
        y = convBnAct(b, next(), y, k.expanded,
                      Conv(k.kernel).stride(k.stride).pad((k.kernel - 1) / 2).groups(k.expanded),
                      act);
        if (k.se)
            y = squeezeExcite(b, next(), y, k.expanded,
                              makeDivisible(static_cast<double>(k.expanded / 4)),
                              ActivationKind::ReLU, ActivationKind::HardSigmoid);
        const std::string project = next();
        y = b.batchNorm(project + ".bn", b.conv(project + ".conv", y, k.out, Conv(1).noBias()));
        if (k.stride == 1 && k.in == k.out)
            y = b.add(p + ".add", y, x);
        x = y;
    }
    x = convBnAct(b, "features." + std::to_string(index), x, 960, Conv(1), hs);
    x = b.globalPool("avgpool", x, PoolKind::Average);
    x = b.flatten("flatten", x);
    x = b.activation("classifier.1", b.fc("classifier.0", x, 1280), hs);
    x = b.dropout("classifier.2", x);
    b.fc("classifier.3", x, 1000);
    return std::move(b).build();
}

} // namespace iterscope::zoo
