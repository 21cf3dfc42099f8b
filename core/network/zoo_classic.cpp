// The plain stacks: the AlexNets, VGG and SqueezeNet.
#include "network/zoo_networks.h"

#include <stdexcept>

namespace iterscope::zoo {
namespace {

Dims image3(int64_t image) {
    return {3, image, image};
}

// fc -> ReLU -> Dropout twice, then the classifier: the order of torchvision's VGG and of
// the Caffe and TensorFlow AlexNets (torchvision's AlexNet drops out before each fc).
LayerRef dropoutAfterClassifier(NetworkBuilder& b, LayerRef x, const std::string& p,
                                int64_t hidden) {
    x = b.relu(p + ".1", b.fc(p + ".0", x, hidden));
    x = b.dropout(p + ".2", x);
    x = b.relu(p + ".4", b.fc(p + ".3", x, hidden));
    x = b.dropout(p + ".5", x);
    return b.fc(p + ".6", x, 1000);
}

} // namespace

Network alexnet(const std::string& id, int64_t image) {
    // torchvision 0.14 models/alexnet.py ("one weird trick" widths 64-192-384-256-256).
    NetworkBuilder b(id, image3(image));
    LayerRef x = b.input();
    x = b.relu("features.1", b.conv("features.0", x, 64, Conv(11).stride(4).pad(2)));
    x = b.pool("features.2", x, Pool::max(3).stride(2));
    x = b.relu("features.4", b.conv("features.3", x, 192, Conv(5).pad(2)));
    x = b.pool("features.5", x, Pool::max(3).stride(2));
    x = b.relu("features.7", b.conv("features.6", x, 384, Conv(3).pad(1)));
    x = b.relu("features.9", b.conv("features.8", x, 256, Conv(3).pad(1)));
    x = b.relu("features.11", b.conv("features.10", x, 256, Conv(3).pad(1)));
    x = b.pool("features.12", x, Pool::max(3).stride(2));
    x = b.adaptiveAveragePool("avgpool", x, 6);
    x = b.flatten("flatten", x);
    x = b.dropout("classifier.0", x);
    x = b.relu("classifier.2", b.fc("classifier.1", x, 4096));
    x = b.dropout("classifier.3", x);
    x = b.relu("classifier.5", b.fc("classifier.4", x, 4096));
    b.fc("classifier.6", x, 1000);
    return std::move(b).build();
}

Network alexnetTf(const std::string& id, int64_t image) {
    // tf_cnn_benchmarks models/alexnet_model.py: VALID 11x11/4 first convolution, SAME
    // padding for the others, VALID max pooling; biases everywhere, no normalization.
    NetworkBuilder b(id, image3(image));
    const Conv same3 = Conv(3).padMode(PadMode::SameUpper);
    LayerRef x = b.input();
    x = b.relu("conv0.relu", b.conv("conv0", x, 64, Conv(11).stride(4).padMode(PadMode::Valid)));
    x = b.pool("mpool0", x, Pool::max(3).stride(2));
    x = b.relu("conv1.relu", b.conv("conv1", x, 192, Conv(5).padMode(PadMode::SameUpper)));
    x = b.pool("mpool1", x, Pool::max(3).stride(2));
    x = b.relu("conv2.relu", b.conv("conv2", x, 384, same3));
    x = b.relu("conv3.relu", b.conv("conv3", x, 384, same3));
    x = b.relu("conv4.relu", b.conv("conv4", x, 256, same3));
    x = b.pool("mpool2", x, Pool::max(3).stride(2));
    x = b.flatten("reshape", x);
    x = b.relu("affine0.relu", b.fc("affine0", x, 4096));
    x = b.dropout("dropout0", x);
    x = b.relu("affine1.relu", b.fc("affine1", x, 4096));
    x = b.dropout("dropout1", x);
    b.fc("affine2", x, 1000);
    return std::move(b).build();
}

Network alexnetBvlc(const std::string& id, int64_t image) {
    // BVLC Caffe bvlc_alexnet: grouped conv2/4/5, LRN after conv1 and conv2, pooling
    // rounded up as Caffe always does.
    NetworkBuilder b(id, image3(image), "data");
    LayerRef x = b.input();
    x = b.relu("relu1", b.conv("conv1", x, 96, Conv(11).stride(4)));
    x = b.lrn("norm1", x, 5);
    x = b.pool("pool1", x, Pool::max(3).stride(2).ceil());
    x = b.relu("relu2", b.conv("conv2", x, 256, Conv(5).pad(2).groups(2)));
    x = b.lrn("norm2", x, 5);
    x = b.pool("pool2", x, Pool::max(3).stride(2).ceil());
    x = b.relu("relu3", b.conv("conv3", x, 384, Conv(3).pad(1)));
    x = b.relu("relu4", b.conv("conv4", x, 384, Conv(3).pad(1).groups(2)));
    x = b.relu("relu5", b.conv("conv5", x, 256, Conv(3).pad(1).groups(2)));
    x = b.pool("pool5", x, Pool::max(3).stride(2).ceil());
    x = b.relu("relu6", b.fc("fc6", x, 4096));
    x = b.dropout("drop6", x);
    x = b.relu("relu7", b.fc("fc7", x, 4096));
    x = b.dropout("drop7", x);
    b.fc("fc8", x, 1000);
    return std::move(b).build();
}

Network vgg(const std::string& id, int depth, int64_t image) {
    // torchvision 0.14 models/vgg.py configurations "D" (16) and "E" (19), no batch norm.
    int per_stage = 0;
    if (depth == 16)
        per_stage = 3;
    else if (depth == 19)
        per_stage = 4;
    else
        throw std::logic_error("vgg: unsupported depth");
    const int64_t widths[5] = {64, 128, 256, 512, 512};
    NetworkBuilder b(id, image3(image));
    LayerRef x = b.input();
    int index = 0; // torchvision's features.<index> numbering
    for (int stage = 0; stage < 5; ++stage) {
        const int convs = stage < 2 ? 2 : per_stage;
        for (int i = 0; i < convs; ++i) {
            x = b.conv("features." + std::to_string(index), x, widths[stage], Conv(3).pad(1));
            x = b.relu("features." + std::to_string(index + 1), x);
            index += 2;
        }
        x = b.pool("features." + std::to_string(index), x, Pool::max(2).stride(2));
        ++index;
    }
    x = b.adaptiveAveragePool("avgpool", x, 7);
    x = b.flatten("flatten", x);
    dropoutAfterClassifier(b, x, "classifier", 4096);
    return std::move(b).build();
}

Network squeezenet10(const std::string& id, int64_t image) {
    // torchvision 0.14 models/squeezenet.py, version 1_0.
    NetworkBuilder b(id, image3(image));
    auto fire = [&b](const std::string& p, LayerRef in, int64_t squeeze, int64_t expand) {
        LayerRef s =
            b.relu(p + ".squeeze_activation", b.conv(p + ".squeeze", in, squeeze, Conv(1)));
        LayerRef e1 =
            b.relu(p + ".expand1x1_activation", b.conv(p + ".expand1x1", s, expand, Conv(1)));
        LayerRef e3 = b.relu(p + ".expand3x3_activation",
                             b.conv(p + ".expand3x3", s, expand, Conv(3).pad(1)));
        return b.concat(p + ".cat", {e1, e3});
    };
    LayerRef x = b.input();
    x = b.relu("features.1", b.conv("features.0", x, 96, Conv(7).stride(2)));
    x = b.pool("features.2", x, Pool::max(3).stride(2).ceil());
    x = fire("features.3", x, 16, 64);
    x = fire("features.4", x, 16, 64);
    x = fire("features.5", x, 32, 128);
    x = b.pool("features.6", x, Pool::max(3).stride(2).ceil());
    x = fire("features.7", x, 32, 128);
    x = fire("features.8", x, 48, 192);
    x = fire("features.9", x, 48, 192);
    x = fire("features.10", x, 64, 256);
    x = b.pool("features.11", x, Pool::max(3).stride(2).ceil());
    x = fire("features.12", x, 64, 256);
    x = b.dropout("classifier.0", x);
    x = b.relu("classifier.2", b.conv("classifier.1", x, 1000, Conv(1)));
    x = b.globalPool("classifier.3", x, PoolKind::Average);
    b.flatten("flatten", x);
    return std::move(b).build();
}

} // namespace iterscope::zoo
