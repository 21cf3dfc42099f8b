// The Inception family as torchvision 0.14 builds it, without the auxiliary heads.
#include "network/zoo_networks.h"

namespace iterscope::zoo {
namespace {

// torchvision's GoogLeNet Inception module. Its "5x5" branch really is a 3x3
// convolution (a known torchvision quirk kept for weight compatibility), and its pooling
// branch rounds up.
LayerRef googlenetInception(NetworkBuilder& b, const std::string& p, LayerRef in, int64_t c1,
                            int64_t c3r, int64_t c3, int64_t c5r, int64_t c5, int64_t proj) {
    LayerRef b1 = convBnAct(b, p + ".branch1", in, c1, Conv(1));
    LayerRef b2 = convBnAct(b, p + ".branch2.0", in, c3r, Conv(1));
    b2 = convBnAct(b, p + ".branch2.1", b2, c3, Conv(3).pad(1));
    LayerRef b3 = convBnAct(b, p + ".branch3.0", in, c5r, Conv(1));
    b3 = convBnAct(b, p + ".branch3.1", b3, c5, Conv(3).pad(1));
    LayerRef b4 = b.pool(p + ".branch4.0", in, Pool::max(3).stride(1).pad(1).ceil());
    b4 = convBnAct(b, p + ".branch4.1", b4, proj, Conv(1));
    return b.concat(p + ".cat", {b1, b2, b3, b4});
}

// torchvision's Inception-v3 pooling branches average over a padded 3x3 window and
// count the padding (avg_pool2d's default).
LayerRef avgPool3(NetworkBuilder& b, const std::string& name, LayerRef in) {
    return b.pool(name, in, Pool::average(3).stride(1).pad(1).includePad());
}

LayerRef inceptionA(NetworkBuilder& b, const std::string& p, LayerRef in, int64_t pool_features) {
    LayerRef b1 = convBnAct(b, p + ".branch1x1", in, 64, Conv(1));
    LayerRef b5 = convBnAct(b, p + ".branch5x5_1", in, 48, Conv(1));
    b5 = convBnAct(b, p + ".branch5x5_2", b5, 64, Conv(5).pad(2));
    LayerRef b3 = convBnAct(b, p + ".branch3x3dbl_1", in, 64, Conv(1));
    b3 = convBnAct(b, p + ".branch3x3dbl_2", b3, 96, Conv(3).pad(1));
    b3 = convBnAct(b, p + ".branch3x3dbl_3", b3, 96, Conv(3).pad(1));
    LayerRef bp = avgPool3(b, p + ".branch_pool.avg", in);
    bp = convBnAct(b, p + ".branch_pool", bp, pool_features, Conv(1));
    return b.concat(p + ".cat", {b1, b5, b3, bp});
}

LayerRef inceptionB(NetworkBuilder& b, const std::string& p, LayerRef in) {
    LayerRef b3 = convBnAct(b, p + ".branch3x3", in, 384, Conv(3).stride(2));
    LayerRef bd = convBnAct(b, p + ".branch3x3dbl_1", in, 64, Conv(1));
    bd = convBnAct(b, p + ".branch3x3dbl_2", bd, 96, Conv(3).pad(1));
    bd = convBnAct(b, p + ".branch3x3dbl_3", bd, 96, Conv(3).stride(2));
    LayerRef bp = b.pool(p + ".branch_pool", in, Pool::max(3).stride(2));
    return b.concat(p + ".cat", {b3, bd, bp});
}

LayerRef inceptionC(NetworkBuilder& b, const std::string& p, LayerRef in, int64_t c7) {
    const Conv k1x7 = Conv(1, 7).pad(0, 3);
    const Conv k7x1 = Conv(7, 1).pad(3, 0);
    LayerRef b1 = convBnAct(b, p + ".branch1x1", in, 192, Conv(1));
    LayerRef b7 = convBnAct(b, p + ".branch7x7_1", in, c7, Conv(1));
    b7 = convBnAct(b, p + ".branch7x7_2", b7, c7, k1x7);
    b7 = convBnAct(b, p + ".branch7x7_3", b7, 192, k7x1);
    LayerRef bd = convBnAct(b, p + ".branch7x7dbl_1", in, c7, Conv(1));
    bd = convBnAct(b, p + ".branch7x7dbl_2", bd, c7, k7x1);
    bd = convBnAct(b, p + ".branch7x7dbl_3", bd, c7, k1x7);
    bd = convBnAct(b, p + ".branch7x7dbl_4", bd, c7, k7x1);
    bd = convBnAct(b, p + ".branch7x7dbl_5", bd, 192, k1x7);
    LayerRef bp = avgPool3(b, p + ".branch_pool.avg", in);
    bp = convBnAct(b, p + ".branch_pool", bp, 192, Conv(1));
    return b.concat(p + ".cat", {b1, b7, bd, bp});
}

LayerRef inceptionD(NetworkBuilder& b, const std::string& p, LayerRef in) {
    LayerRef b3 = convBnAct(b, p + ".branch3x3_1", in, 192, Conv(1));
    b3 = convBnAct(b, p + ".branch3x3_2", b3, 320, Conv(3).stride(2));
    LayerRef b7 = convBnAct(b, p + ".branch7x7x3_1", in, 192, Conv(1));
    b7 = convBnAct(b, p + ".branch7x7x3_2", b7, 192, Conv(1, 7).pad(0, 3));
    b7 = convBnAct(b, p + ".branch7x7x3_3", b7, 192, Conv(7, 1).pad(3, 0));
    b7 = convBnAct(b, p + ".branch7x7x3_4", b7, 192, Conv(3).stride(2));
    LayerRef bp = b.pool(p + ".branch_pool", in, Pool::max(3).stride(2));
    return b.concat(p + ".cat", {b3, b7, bp});
}

LayerRef inceptionE(NetworkBuilder& b, const std::string& p, LayerRef in) {
    const Conv k1x3 = Conv(1, 3).pad(0, 1);
    const Conv k3x1 = Conv(3, 1).pad(1, 0);
    LayerRef b1 = convBnAct(b, p + ".branch1x1", in, 320, Conv(1));
    LayerRef b3 = convBnAct(b, p + ".branch3x3_1", in, 384, Conv(1));
    LayerRef b3a = convBnAct(b, p + ".branch3x3_2a", b3, 384, k1x3);
    LayerRef b3b = convBnAct(b, p + ".branch3x3_2b", b3, 384, k3x1);
    b3 = b.concat(p + ".branch3x3.cat", {b3a, b3b});
    LayerRef bd = convBnAct(b, p + ".branch3x3dbl_1", in, 448, Conv(1));
    bd = convBnAct(b, p + ".branch3x3dbl_2", bd, 384, Conv(3).pad(1));
    LayerRef bda = convBnAct(b, p + ".branch3x3dbl_3a", bd, 384, k1x3);
    LayerRef bdb = convBnAct(b, p + ".branch3x3dbl_3b", bd, 384, k3x1);
    bd = b.concat(p + ".branch3x3dbl.cat", {bda, bdb});
    LayerRef bp = avgPool3(b, p + ".branch_pool.avg", in);
    bp = convBnAct(b, p + ".branch_pool", bp, 192, Conv(1));
    return b.concat(p + ".cat", {b1, b3, bd, bp});
}

} // namespace

Network googlenet(const std::string& id, int64_t image) {
    // torchvision 0.14 models/googlenet.py with aux_logits=False.
    NetworkBuilder b(id, {3, image, image});
    LayerRef x = convBnAct(b, "conv1", b.input(), 64, Conv(7).stride(2).pad(3));
    x = b.pool("maxpool1", x, Pool::max(3).stride(2).ceil());
    x = convBnAct(b, "conv2", x, 64, Conv(1));
    x = convBnAct(b, "conv3", x, 192, Conv(3).pad(1));
    x = b.pool("maxpool2", x, Pool::max(3).stride(2).ceil());
    x = googlenetInception(b, "inception3a", x, 64, 96, 128, 16, 32, 32);
    x = googlenetInception(b, "inception3b", x, 128, 128, 192, 32, 96, 64);
    x = b.pool("maxpool3", x, Pool::max(3).stride(2).ceil());
    x = googlenetInception(b, "inception4a", x, 192, 96, 208, 16, 48, 64);
    x = googlenetInception(b, "inception4b", x, 160, 112, 224, 24, 64, 64);
    x = googlenetInception(b, "inception4c", x, 128, 128, 256, 24, 64, 64);
    x = googlenetInception(b, "inception4d", x, 112, 144, 288, 32, 64, 64);
    x = googlenetInception(b, "inception4e", x, 256, 160, 320, 32, 128, 128);
    x = b.pool("maxpool4", x, Pool::max(2).stride(2).ceil());
    x = googlenetInception(b, "inception5a", x, 256, 160, 320, 32, 128, 128);
    x = googlenetInception(b, "inception5b", x, 384, 192, 384, 48, 128, 128);
    poolAndClassify(b, x, true);
    return std::move(b).build();
}

Network inceptionV3(const std::string& id, int64_t image) {
    // torchvision 0.14 models/inception.py with aux_logits=False.
    NetworkBuilder b(id, {3, image, image});
    LayerRef x = convBnAct(b, "Conv2d_1a_3x3", b.input(), 32, Conv(3).stride(2));
    x = convBnAct(b, "Conv2d_2a_3x3", x, 32, Conv(3));
    x = convBnAct(b, "Conv2d_2b_3x3", x, 64, Conv(3).pad(1));
    x = b.pool("maxpool1", x, Pool::max(3).stride(2));
    x = convBnAct(b, "Conv2d_3b_1x1", x, 80, Conv(1));
    x = convBnAct(b, "Conv2d_4a_3x3", x, 192, Conv(3));
    x = b.pool("maxpool2", x, Pool::max(3).stride(2));
    x = inceptionA(b, "Mixed_5b", x, 32);
    x = inceptionA(b, "Mixed_5c", x, 64);
    x = inceptionA(b, "Mixed_5d", x, 64);
    x = inceptionB(b, "Mixed_6a", x);
    x = inceptionC(b, "Mixed_6b", x, 128);
    x = inceptionC(b, "Mixed_6c", x, 160);
    x = inceptionC(b, "Mixed_6d", x, 160);
    x = inceptionC(b, "Mixed_6e", x, 192);
    x = inceptionD(b, "Mixed_7a", x);
    x = inceptionE(b, "Mixed_7b", x);
    x = inceptionE(b, "Mixed_7c", x);
    poolAndClassify(b, x, true);
    return std::move(b).build();
}

} // namespace iterscope::zoo
