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
Network mobilenetV2(const std::string& id, int64_t image);
Network densenet121(const std::string& id, int64_t image);

} // namespace iterscope::zoo
