#include "network/zoo.h"

#include "network/analysis.h"
#include "network/zoo_networks.h"
#include "util/error.h"

#include <functional>

namespace iterscope {
namespace {

using Factory = std::function<Network(const std::string& id, int64_t image)>;

struct Entry {
    std::string id;
    std::string family;
    int64_t default_image;
    Factory make;
};

// Grouped by family, families roughly in the order they appeared. Default sizes are the ones
// the networks were published at (and zoo-truth.json counts).
const std::vector<Entry>& entries() {
    using namespace zoo;
    auto resnetOf = [](int depth, bool v1) {
        return [depth, v1](const std::string& id, int64_t image) {
            return resnet(id, depth, v1, image);
        };
    };
    auto variantOf = [](ResnetVariant v) {
        return [v](const std::string& id, int64_t image) { return resnet(id, v, image); };
    };
    auto efficientnetOf = [](double width, double depth) {
        return [width, depth](const std::string& id, int64_t image) {
            return efficientnet(id, width, depth, image);
        };
    };
    auto vggOf = [](int depth) {
        return [depth](const std::string& id, int64_t image) { return vgg(id, depth, image); };
    };
    static const std::vector<Entry> all = {
        {"alexnet", "AlexNet", 224, alexnet},
        {"alexnet-tf", "AlexNet", 227, alexnetTf},
        {"alexnet-bvlc", "AlexNet", 227, alexnetBvlc},
        {"vgg16", "VGG", 224, vggOf(16)},
        {"vgg19", "VGG", 224, vggOf(19)},
        {"googlenet", "Inception", 224, googlenet},
        {"inception-v3", "Inception", 299, inceptionV3},
        {"resnet18", "ResNet", 224, resnetOf(18, false)},
        {"resnet34", "ResNet", 224, resnetOf(34, false)},
        {"resnet50", "ResNet", 224, resnetOf(50, false)},
        {"resnet101", "ResNet", 224, resnetOf(101, false)},
        {"resnet152", "ResNet", 224, resnetOf(152, false)},
        {"resnet200", "ResNet", 224, resnetOf(200, false)},
        {"resnet50-v1", "ResNet", 224, resnetOf(50, true)},
        {"resnet101-v1", "ResNet", 224, resnetOf(101, true)},
        {"resnet152-v1", "ResNet", 224, resnetOf(152, true)},
        {"resnext50-32x4d", "ResNeXt", 224,
         variantOf({.depth = 50, .groups = 32, .width_per_group = 4})},
        {"resnext101-32x4d", "ResNeXt", 224,
         variantOf({.depth = 101, .groups = 32, .width_per_group = 4})},
        {"resnext101-32x8d", "ResNeXt", 224,
         variantOf({.depth = 101, .groups = 32, .width_per_group = 8})},
        {"se-resnext101-32x4d", "ResNeXt", 224,
         variantOf({.depth = 101, .groups = 32, .width_per_group = 4, .squeeze_excite = true})},
        {"wide-resnet50-2", "Wide ResNet", 224, variantOf({.depth = 50, .width_per_group = 128})},
        {"densenet121", "DenseNet", 224, densenet121},
        {"squeezenet1.0", "SqueezeNet", 224, squeezenet10},
        {"mobilenet-v2", "MobileNet", 224, mobilenetV2},
        {"mobilenet-v3-large", "MobileNet", 224, mobilenetV3Large},
        {"efficientnet-b0", "EfficientNet", 224, efficientnetOf(1.0, 1.0)},
        {"efficientnet-b4", "EfficientNet", 380, efficientnetOf(1.4, 1.8)},
        {"efficientnet-v2-s", "EfficientNet", 384, efficientnetV2S},
        {"regnet-y-1.6gf", "RegNet", 224, regnetY16gf},
        {"convnext-tiny", "ConvNeXt", 224, convnextTiny},
        {"vit-b-16", "Vision Transformer", 224, vitB16},
        {"swin-t", "Swin Transformer", 224, swinT},
    };
    return all;
}

const Entry* find(std::string_view id) {
    for (const Entry& e : entries())
        if (e.id == id)
            return &e;
    return nullptr;
}

// Far above any real input; keeps per-layer element counts well inside 64 bits.
constexpr int64_t kMaxImage = 1 << 16;

} // namespace

const std::vector<std::string>& zooIds() {
    static const std::vector<std::string> ids = [] {
        std::vector<std::string> v;
        for (const Entry& e : entries())
            v.push_back(e.id);
        return v;
    }();
    return ids;
}

std::optional<Network> zooNetwork(std::string_view id, int64_t image) {
    const Entry* e = find(id);
    if (!e)
        return std::nullopt;
    if (image == 0)
        image = e->default_image;
    if (image < 1 || image > kMaxImage)
        throw InputError(e->id + ": image size " + std::to_string(image) +
                         " is out of range (1 to " + std::to_string(kMaxImage) + ")");
    // Analysing once here turns a too-small image into one clear error at the source,
    // whatever the caller does next.
    try {
        Network net = e->make(e->id, image);
        analyze(net);
        return net;
    } catch (const InputError& err) {
        throw InputError(e->id + " at image size " + std::to_string(image) + ": " + err.what());
    }
}

int64_t zooDefaultImage(std::string_view id) {
    const Entry* e = find(id);
    return e ? e->default_image : 0;
}

std::string_view zooFamily(std::string_view id) {
    const Entry* e = find(id);
    return e ? std::string_view(e->family) : std::string_view();
}

namespace zoo {

LayerRef convBnAct(NetworkBuilder& b, const std::string& prefix, LayerRef in, int64_t out_channels,
                   const Conv& spec, ActivationKind act) {
    LayerRef x = b.conv(prefix + ".conv", in, out_channels, spec.noBias());
    x = b.batchNorm(prefix + ".bn", x);
    return b.activation(prefix + ".relu", x, act);
}

LayerRef squeezeExcite(NetworkBuilder& b, const std::string& prefix, LayerRef in, int64_t channels,
                       int64_t squeeze, ActivationKind act, ActivationKind gate) {
    LayerRef s = b.globalPool(prefix + ".avgpool", in, PoolKind::Average);
    s = b.activation(prefix + ".act", b.conv(prefix + ".fc1", s, squeeze, Conv(1)), act);
    s = b.activation(prefix + ".gate", b.conv(prefix + ".fc2", s, channels, Conv(1)), gate);
    return b.mul(prefix + ".mul", in, s);
}

LayerRef poolAndClassify(NetworkBuilder& b, LayerRef in, bool dropout, const std::string& fc_name) {
    LayerRef x = b.globalPool("avgpool", in, PoolKind::Average);
    x = b.flatten("flatten", x);
    if (dropout)
        x = b.dropout("dropout", x);
    return b.fc(fc_name, x, 1000);
}

} // namespace zoo
} // namespace iterscope
