// ResNets (with ResNeXt, Wide ResNet and SE-ResNeXt), MobileNet-v2 and DenseNet-121: networks that
// reuse earlier feature maps, by addition or by concatenation.
#include "network/zoo_networks.h"

#include <stdexcept>

namespace iterscope::zoo {
namespace {

struct ResnetShape {
    bool bottleneck;
    int blocks[4];
};

ResnetShape resnetShape(int depth) {
    switch (depth) {
    case 18:
        return {false, {2, 2, 2, 2}};
    case 34:
        return {false, {3, 4, 6, 3}};
    case 50:
        return {true, {3, 4, 6, 3}};
    case 101:
        return {true, {3, 4, 23, 3}};
    case 152:
        return {true, {3, 8, 36, 3}};
    case 200:
        return {true, {3, 24, 36, 3}}; // fb.resnet.torch
    default:
        throw std::logic_error("resnet: unsupported depth");
    }
}

LayerRef convBn(NetworkBuilder& b, const std::string& conv_name, const std::string& bn_name,
                LayerRef in, int64_t out, const Conv& spec) {
    return b.batchNorm(bn_name, b.conv(conv_name, in, out, spec.noBias()));
}

} // namespace

Network resnet(const std::string& id, int depth, bool caffe_v1, int64_t image) {
    ResnetVariant v;
    v.depth = depth;
    v.caffe_v1 = caffe_v1;
    return resnet(id, v, image);
}

Network resnet(const std::string& id, const ResnetVariant& variant, int64_t image) {
    // torchvision 0.14 models/resnet.py; caffe_v1 follows Kaiming He's Caffe models, which
    // stride the first 1x1 of a bottleneck instead of its 3x3 and pool without padding,
    // rounding up. Batch norm is kept as one affine layer in both: frameworks fuse Caffe's
    // BatchNorm + Scale pair into one kernel.
    const ResnetShape shape = resnetShape(variant.depth);
    const bool caffe_v1 = variant.caffe_v1;
    const int64_t expansion = shape.bottleneck ? 4 : 1;
    NetworkBuilder b(id, {3, image, image});
    LayerRef x = convBn(b, "conv1", "bn1", b.input(), 64, Conv(7).stride(2).pad(3));
    x = b.relu("relu", x);
    x = b.pool("maxpool", x,
               caffe_v1 ? Pool::max(3).stride(2).ceil() : Pool::max(3).stride(2).pad(1));
    int64_t in_channels = 64;
    for (int stage = 0; stage < 4; ++stage) {
        const int64_t planes = int64_t{64} << stage;
        // torchvision: width = int(planes * (base_width / 64.0)) * groups.
        const int64_t width = planes * variant.width_per_group / 64 * variant.groups;
        const int64_t out_channels = planes * expansion;
        for (int block = 0; block < shape.blocks[stage]; ++block) {
            const int64_t stride = (stage > 0 && block == 0) ? 2 : 1;
            const std::string p =
                "layer" + std::to_string(stage + 1) + "." + std::to_string(block) + ".";
            LayerRef y = x;
            if (shape.bottleneck) {
                const int64_t s1 = caffe_v1 ? stride : 1;
                const int64_t s3 = caffe_v1 ? 1 : stride;
                y = b.relu(p + "relu1",
                           convBn(b, p + "conv1", p + "bn1", y, width, Conv(1).stride(s1)));
                y = b.relu(p + "relu2", convBn(b, p + "conv2", p + "bn2", y, width,
                                               Conv(3).stride(s3).pad(1).groups(variant.groups)));
                y = convBn(b, p + "conv3", p + "bn3", y, out_channels, Conv(1));
                // SE on the bottleneck's output, before the residual add, squeezing to C/16
                // (Hu et al.; the validation README's definition). DeepLearningExamples'
                // PyTorch SEBottleneck passes its "16" as the squeeze width itself, 16
                // channels at every stage: 3.7M fewer parameters (7.5% less gradient to
                // exchange), forward work the same to 0.1%.
                if (variant.squeeze_excite)
                    y = squeezeExcite(b, p + "se", y, out_channels, out_channels / 16);
            } else {
                y = b.relu(p + "relu1", convBn(b, p + "conv1", p + "bn1", y, width,
                                               Conv(3).stride(stride).pad(1)));
                y = convBn(b, p + "conv2", p + "bn2", y, width, Conv(3).pad(1));
            }
            LayerRef shortcut = x;
            if (stride != 1 || in_channels != out_channels)
                shortcut = convBn(b, p + "downsample.0", p + "downsample.1", x, out_channels,
                                  Conv(1).stride(stride));
            x = b.relu(p + "relu", b.add(p + "add", y, shortcut));
            in_channels = out_channels;
        }
    }
    poolAndClassify(b, x, false);
    return std::move(b).build();
}

Network regnetY16gf(const std::string& id, int64_t image) {
    // torchvision 0.14 models/regnet.py, regnet_y_1_6gf: BlockParams.from_init_params(depth
    // 27, w_0 48, w_a 20.71, w_m 2.65, group width 24) quantizes to these four stages. Each
    // ResBottleneckBlock: 1x1, grouped 3x3 (stride here), SE squeezing to a quarter of the
    // block's input width, 1x1, a projected shortcut where the shape changes, add, ReLU.
    struct Stage {
        int depth;
        int64_t width;
    };
    const Stage stages[] = {{2, 48}, {6, 120}, {17, 336}, {2, 888}};
    constexpr int64_t kGroupWidth = 24;
    NetworkBuilder b(id, {3, image, image});
    LayerRef x = convBnAct(b, "stem", b.input(), 32, Conv(3).stride(2).pad(1));
    int64_t in = 32;
    for (int s = 0; s < 4; ++s) {
        const int64_t w = stages[s].width;
        const std::string sp = "trunk_output.block" + std::to_string(s + 1);
        for (int j = 0; j < stages[s].depth; ++j) {
            const std::string p = sp + "." + sp.substr(13) + "-" + std::to_string(j);
            const int64_t stride = j == 0 ? 2 : 1;
            LayerRef y = convBnAct(b, p + ".f.a", x, w, Conv(1));
            y = convBnAct(b, p + ".f.b", y, w,
                          Conv(3).stride(stride).pad(1).groups(w / kGroupWidth));
            // round(0.25 x the block's input width); every width here is a multiple of 4.
            y = squeezeExcite(b, p + ".f.se", y, w, in / 4);
            y = convBn(b, p + ".f.c.conv", p + ".f.c.bn", y, w, Conv(1));
            LayerRef shortcut = x;
            if (in != w || stride != 1)
                shortcut =
                    convBn(b, p + ".proj.conv", p + ".proj.bn", x, w, Conv(1).stride(stride));
            x = b.relu(p + ".activation", b.add(p + ".add", y, shortcut));
            in = w;
        }
    }
    poolAndClassify(b, x, false);
    return std::move(b).build();
}

Network mobilenetV2(const std::string& id, int64_t image) {
    // torchvision 0.14 models/mobilenetv2.py at width 1.0 (every width already a
    // multiple of 8, so _make_divisible changes nothing).
    struct Stage {
        int64_t expand, channels, repeats, stride;
    };
    const Stage stages[] = {{1, 16, 1, 1}, {6, 24, 2, 2},  {6, 32, 3, 2}, {6, 64, 4, 2},
                            {6, 96, 3, 1}, {6, 160, 3, 2}, {6, 320, 1, 1}};
    NetworkBuilder b(id, {3, image, image});
    LayerRef x =
        convBnAct(b, "features.0", b.input(), 32, Conv(3).stride(2).pad(1), ActivationKind::ReLU6);
    int64_t in_channels = 32;
    int index = 1;
    for (const Stage& s : stages) {
        for (int64_t i = 0; i < s.repeats; ++i, ++index) {
            const int64_t stride = i == 0 ? s.stride : 1;
            const int64_t hidden = in_channels * s.expand;
            const std::string p = "features." + std::to_string(index) + ".conv";
            LayerRef y = x;
            int part = 0;
            if (s.expand != 1)
                y = convBnAct(b, p + "." + std::to_string(part++), y, hidden, Conv(1),
                              ActivationKind::ReLU6);
            y = convBnAct(b, p + "." + std::to_string(part++), y, hidden,
                          Conv(3).stride(stride).pad(1).groups(hidden), ActivationKind::ReLU6);
            y = b.conv(p + "." + std::to_string(part), y, s.channels, Conv(1).noBias());
            y = b.batchNorm(p + "." + std::to_string(part + 1), y);
            if (stride == 1 && in_channels == s.channels)
                y = b.add("features." + std::to_string(index) + ".add", x, y);
            x = y;
            in_channels = s.channels;
        }
    }
    x = convBnAct(b, "features." + std::to_string(index), x, 1280, Conv(1), ActivationKind::ReLU6);
    LayerRef pooled = b.globalPool("avgpool", x, PoolKind::Average);
    x = b.flatten("flatten", pooled);
    x = b.dropout("classifier.0", x);
    b.fc("classifier.1", x, 1000);
    return std::move(b).build();
}

Network densenet121(const std::string& id, int64_t image) {
    // torchvision 0.14 models/densenet.py: growth 32, bottleneck width 4 x 32, blocks
    // 6-12-24-16, drop rate 0. Every dense layer concatenates all earlier feature maps
    // of its block before its batch norm, as torchvision's (memory-hungry) default does.
    constexpr int64_t kGrowth = 32;
    constexpr int64_t kBottleneck = 4 * kGrowth;
    const int blocks[] = {6, 12, 24, 16};
    NetworkBuilder b(id, {3, image, image});
    LayerRef x = b.conv("features.conv0", b.input(), 64, Conv(7).stride(2).pad(3).noBias());
    x = b.relu("features.relu0", b.batchNorm("features.norm0", x));
    x = b.pool("features.pool0", x, Pool::max(3).stride(2).pad(1));
    int64_t channels = 64;
    for (int block = 0; block < 4; ++block) {
        const std::string bp = "features.denseblock" + std::to_string(block + 1);
        std::vector<LayerRef> features = {x};
        for (int layer = 0; layer < blocks[block]; ++layer) {
            const std::string p = bp + ".denselayer" + std::to_string(layer + 1);
            LayerRef in = features.size() == 1 ? features[0] : b.concat(p + ".cat", features);
            LayerRef y = b.relu(p + ".relu1", b.batchNorm(p + ".norm1", in));
            y = b.conv(p + ".conv1", y, kBottleneck, Conv(1).noBias());
            y = b.relu(p + ".relu2", b.batchNorm(p + ".norm2", y));
            y = b.conv(p + ".conv2", y, kGrowth, Conv(3).pad(1).noBias());
            features.push_back(y);
        }
        x = b.concat(bp + ".cat", features);
        channels += kGrowth * blocks[block];
        if (block < 3) {
            const std::string tp = "features.transition" + std::to_string(block + 1);
            x = b.relu(tp + ".relu", b.batchNorm(tp + ".norm", x));
            channels /= 2;
            x = b.conv(tp + ".conv", x, channels, Conv(1).noBias());
            x = b.pool(tp + ".pool", x, Pool::average(2).stride(2));
        }
    }
    x = b.relu("features.relu5", b.batchNorm("features.norm5", x));
    poolAndClassify(b, x, false, "classifier");
    return std::move(b).build();
}

} // namespace iterscope::zoo
