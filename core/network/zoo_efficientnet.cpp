// The EfficientNets as torchvision 0.14 builds them: inverted residual (MBConv) blocks with
// a squeeze-and-excitation gate and SiLU, every width rounded to a multiple of 8.
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
    x = b.globalPool("avgpool", x, PoolKind::Average);
    x = b.flatten("flatten", x);
    x = b.dropout("classifier.0", x);
    b.fc("classifier.1", x, 1000);
    return std::move(b).build();
}

} // namespace iterscope::zoo
