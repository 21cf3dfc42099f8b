// The zoo's network definitions, one function per family (zoo.cpp maps ids onto them).
// Internal to core/network: the public interface is network/zoo.h.
#pragma once

#include "network/builder.h"
#include "network/network.h"

#include <cstdint>
#include <string>

namespace iterscope::zoo {

// conv (no bias) -> BatchNorm -> activation, the block torchvision calls BasicConv2d or
// Conv2dNormActivation; layers are named <prefix>.conv, <prefix>.bn, <prefix>.relu.
LayerRef convBnAct(NetworkBuilder& b, const std::string& prefix, LayerRef in, int64_t out_channels,
                   const Conv& spec, ActivationKind act = ActivationKind::ReLU);

// A squeeze-and-excitation gate on a CxHxW map: global average pool, 1x1 conv (an FC with
// bias) to `squeeze` channels, activation, 1x1 conv back to `channels`, gate, and the
// channel-wise product with the input. Layers are named <prefix>.avgpool, .fc1, .act,
// .fc2, .gate and .mul; returns the product.
LayerRef squeezeExcite(NetworkBuilder& b, const std::string& prefix, LayerRef in, int64_t channels,
                       int64_t squeeze, ActivationKind act = ActivationKind::ReLU,
                       ActivationKind gate = ActivationKind::Sigmoid);

// The classifier head shared by the global-pooling networks: pool, flatten, [dropout], fc.
LayerRef poolAndClassify(NetworkBuilder& b, LayerRef in, bool dropout,
                         const std::string& fc_name = "fc");

Network alexnet(const std::string& id, int64_t image);     // torchvision
Network alexnetTf(const std::string& id, int64_t image);   // tf_cnn_benchmarks
Network alexnetBvlc(const std::string& id, int64_t image); // Caffe, grouped, LRN
Network vgg(const std::string& id, int depth, int64_t image);
Network squeezenet10(const std::string& id, int64_t image);
Network googlenet(const std::string& id, int64_t image);
Network inceptionV3(const std::string& id, int64_t image);
// torchvision (stride in the 3x3) unless caffe_v1 (stride in the first 1x1, Caffe pooling).
Network resnet(const std::string& id, int depth, bool caffe_v1, int64_t image);
// The bottleneck ResNets' relatives: ResNeXt (grouped 3x3), Wide ResNet (a wider 3x3) and
// SE-ResNeXt (a squeeze-and-excitation on every bottleneck's output before the residual add).
struct ResnetVariant {
    int depth = 50;
    bool caffe_v1 = false;
    int64_t groups = 1;
    int64_t width_per_group = 64; // torchvision's base_width: the 3x3 has
                                  // planes * width_per_group / 64 * groups channels
    bool squeeze_excite = false;  // reduction 16, as DeepLearningExamples' SEBottleneck
};
Network resnet(const std::string& id, const ResnetVariant& variant, int64_t image);
Network mobilenetV2(const std::string& id, int64_t image);
Network densenet121(const std::string& id, int64_t image);
// torchvision's EfficientNet-B0..B7: MBConv with squeeze-and-excitation and SiLU, scaled by
// a width and a depth multiplier (B0 1.0/1.0, B4 1.4/1.8).
Network efficientnet(const std::string& id, double width_mult, double depth_mult, int64_t image);
Network efficientnetV2S(const std::string& id, int64_t image); // fused MBConv, then MBConv
Network mobilenetV3Large(const std::string& id, int64_t image);
Network regnetY16gf(const std::string& id, int64_t image);
Network convnextTiny(const std::string& id, int64_t image);
Network vitB16(const std::string& id, int64_t image);
Network swinT(const std::string& id, int64_t image);

} // namespace iterscope::zoo
