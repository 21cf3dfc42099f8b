// Networks built from layer norm, GELU and attention: ConvNeXt (a CNN on transformer lines),
// the Vision Transformer and the Swin Transformer, as torchvision 0.14 builds them and as
// its ONNX export lays them out (transposes around channels-last layer norms, attention as
// reshapes, transposes and batched products). Dropouts of probability 0 and stochastic
// depth are identities in a training step's shapes and work, and are left out.
#include "network/zoo_networks.h"

#include <cmath>
#include <string>

namespace iterscope::zoo {
namespace {

using AK = ActivationKind;

// torchvision's LayerNorm2d: permute to channels-last, normalize the channels, permute back.
LayerRef layerNorm2d(NetworkBuilder& b, const std::string& name, LayerRef x) {
    x = b.transpose(name + ".to_hwc", x, {1, 2, 0});
    x = b.layerNorm(name, x);
    return b.transpose(name + ".to_chw", x, {2, 0, 1});
}

// A Linear, GELU, Linear block on tokens; `second` is the torchvision index of the second
// Linear (after a dropout in torchvision's MLP, right after the GELU in ConvNeXt's block).
LayerRef mlp(NetworkBuilder& b, const std::string& p, LayerRef x, int64_t dim, int64_t hidden,
             int first, int second) {
    x = b.linear(p + "." + std::to_string(first), x, hidden);
    x = b.activation(p + "." + std::to_string(first + 1), x, AK::GELU);
    return b.linear(p + "." + std::to_string(second), x, dim);
}

// Multi-head attention over `tokens` rows of width `dim` laid out as [windows, tokens, dim]
// (windows = 1 for ViT, which passes [tokens, dim]): one projection to q, k and v, split
// into heads, softmax(q k^T / sqrt(d) + bias) v, merged back and projected. `bias` adds
// constants to the scores ([heads, tokens, tokens] each, broadcast over windows).
LayerRef attention(NetworkBuilder& b, const std::string& p, LayerRef x, int64_t windows,
                   int64_t tokens, int64_t dim, int64_t heads,
                   const std::vector<LayerRef>& score_bias) {
    const int64_t d = dim / heads;
    const bool vit = windows == 0;
    const int64_t w = vit ? 1 : windows;
    LayerRef qkv = b.linear(p + ".qkv", x, 3 * dim);
    qkv = b.reshape(p + ".qkv.split", qkv, {w, tokens, 3, heads, d});
    qkv = b.transpose(p + ".qkv.heads", qkv, {2, 0, 3, 1, 4}); // 3 x windows x heads x T x d
    auto part = [&](int64_t i, const char* what) {
        LayerRef r = b.slice(p + "." + what, qkv, {0}, {i}, {i + 1});
        return b.reshape(p + "." + what + ".squeeze", r, {w, heads, tokens, d});
    };
    LayerRef q = part(0, "q"), k = part(1, "k"), v = part(2, "v");
    q = b.eltwise(p + ".q.scale", {q}, EltwiseKind::Mul); // x d^-1/2
    LayerRef scores = b.matmul(p + ".scores", q, b.transpose(p + ".k.t", k, {0, 1, 3, 2}));
    for (std::size_t i = 0; i < score_bias.size(); ++i)
        scores = b.add(p + ".scores.bias" + std::to_string(i), scores, score_bias[i]);
    scores = b.softmax(p + ".softmax", scores, -1);
    LayerRef out = b.matmul(p + ".context", scores, v); // windows x heads x T x d
    out = b.transpose(p + ".merge", out, {0, 2, 1, 3});
    out = b.reshape(p + ".merge.reshape", out, vit ? Dims{tokens, dim} : Dims{w, tokens, dim});
    return b.linear(p + ".proj", out, dim);
}

// torch.roll of a [H, W, C] map by `shift` along axes 0 and 1, as the ONNX export writes
// it: the two parts of each axis sliced and concatenated the other way round.
LayerRef roll(NetworkBuilder& b, const std::string& p, LayerRef x, int64_t h, int64_t w,
              int64_t shift) {
    const int64_t sizes[2] = {h, w};
    for (int64_t axis = 0; axis < 2; ++axis) {
        const int64_t n = sizes[axis];
        const int64_t k = ((-shift) % n + n) % n; // roll(x, s) = cat(x[k:], x[:k]), k = -s mod n
        if (k == 0)
            continue;
        const std::string a = p + (axis == 0 ? ".h" : ".w");
        LayerRef tail = b.slice(a + ".tail", x, {axis}, {k}, {n});
        LayerRef head = b.slice(a + ".head", x, {axis}, {0}, {k});
        x = b.concat(a + ".cat", {tail, head}, axis);
    }
    return x;
}

} // namespace

Network convnextTiny(const std::string& id, int64_t image) {
    // torchvision 0.14 models/convnext.py, convnext_tiny: stages of 3, 3, 9, 3 CNBlocks at
    // widths 96 to 768; each block a 7x7 depthwise conv, channels-last LayerNorm, Linear to
    // 4x, GELU, Linear back, a learned per-channel layer scale, and the residual add.
    const int64_t dims[] = {96, 192, 384, 768};
    const int depths[] = {3, 3, 9, 3};
    NetworkBuilder b(id, {3, image, image});
    LayerRef x = b.conv("features.0.0", b.input(), dims[0], Conv(4).stride(4));
    x = layerNorm2d(b, "features.0.1", x);
    int index = 1;
    for (int stage = 0; stage < 4; ++stage) {
        const int64_t dim = dims[stage];
        for (int j = 0; j < depths[stage]; ++j) {
            const std::string p = "features." + std::to_string(index) + "." + std::to_string(j);
            LayerRef y = b.conv(p + ".block.0", x, dim, Conv(7).pad(3).groups(dim));
            y = b.transpose(p + ".block.1", y, {1, 2, 0});
            y = b.layerNorm(p + ".block.2", y);
            y = mlp(b, p + ".block", y, dim, 4 * dim, 3, 5);
            y = b.transpose(p + ".block.6", y, {2, 0, 1});
            LayerRef scale = b.constant(p + ".layer_scale", {dim, 1, 1}, dim);
            y = b.mul(p + ".scaled", scale, y);
            x = b.add(p + ".add", y, x);
        }
        ++index;
        if (stage < 3) {
            const std::string p = "features." + std::to_string(index);
            x = layerNorm2d(b, p + ".0", x);
            x = b.conv(p + ".1", x, dims[stage + 1], Conv(2).stride(2));
            ++index;
        }
    }
    x = b.globalPool("avgpool", x, PoolKind::Average);
    x = layerNorm2d(b, "classifier.0", x);
    x = b.flatten("classifier.1", x);
    b.fc("classifier.2", x, 1000);
    return std::move(b).build();
}

Network vitB16(const std::string& id, int64_t image) {
    // torchvision 0.14 models/vision_transformer.py, vit_b_16: 16x16 patches embedded by a
    // strided conv, a learned class token and position table, 12 pre-norm encoder blocks of
    // 12-head attention and a 3072-wide GELU MLP, the class token's row classified.
    constexpr int64_t kDim = 768, kHeads = 12, kMlp = 3072, kPatch = 16;
    NetworkBuilder b(id, {3, image, image});
    const int64_t side = image / kPatch;
    const int64_t patches = side * side, tokens = patches + 1;
    LayerRef x = b.conv("conv_proj", b.input(), kDim, Conv(kPatch).stride(kPatch));
    x = b.reshape("conv_proj.flatten", x, {kDim, patches});
    x = b.transpose("conv_proj.tokens", x, {1, 0});
    LayerRef cls = b.constant("class_token", {1, kDim}, kDim);
    x = b.concat("cat_class_token", {cls, x}, 0);
    LayerRef pos = b.constant("encoder.pos_embedding", {tokens, kDim}, tokens * kDim);
    x = b.add("encoder.add_pos_embedding", x, pos);
    for (int i = 0; i < 12; ++i) {
        const std::string p = "encoder.layers.encoder_layer_" + std::to_string(i);
        LayerRef y = b.layerNorm(p + ".ln_1", x);
        y = attention(b, p + ".self_attention", y, 0, tokens, kDim, kHeads, {});
        x = b.add(p + ".add_1", y, x);
        y = b.layerNorm(p + ".ln_2", x);
        y = mlp(b, p + ".mlp", y, kDim, kMlp, 0, 3);
        x = b.add(p + ".add_2", y, x);
    }
    x = b.layerNorm("encoder.ln", x);
    x = b.slice("class_token_row", x, {0}, {0}, {1});
    x = b.reshape("class_token_row.squeeze", x, {kDim});
    b.fc("heads.head", x, 1000);
    return std::move(b).build();
}

Network swinT(const std::string& id, int64_t image) {
    // torchvision 0.14 models/swin_transformer.py, swin_t: 4x4 patches, stages of 2, 2, 6, 2
    // blocks at widths 96 to 768 with 3 to 24 heads, attention within 7x7 windows, every
    // second block on windows shifted by 3 (a roll, and a constant mask on the scores), a
    // learned relative-position bias table per block, patch merging between stages.
    constexpr int64_t kWindow = 7, kShift = 3;
    const int depths[] = {2, 2, 6, 2};
    const int64_t heads_of[] = {3, 6, 12, 24};
    NetworkBuilder b(id, {3, image, image});
    LayerRef x = b.conv("features.0.0", b.input(), 96, Conv(4).stride(4));
    int64_t h = (image - 4) / 4 + 1, w = h, dim = 96;
    x = b.transpose("features.0.1", x, {1, 2, 0}); // H x W x C from here on
    x = b.layerNorm("features.0.2", x);
    int index = 1;
    for (int stage = 0; stage < 4; ++stage) {
        const int64_t heads = heads_of[stage];
        const int64_t pad_h = (kWindow - h % kWindow) % kWindow;
        const int64_t pad_w = (kWindow - w % kWindow) % kWindow;
        const int64_t ph = h + pad_h, pw = w + pad_w;
        const int64_t windows = (ph / kWindow) * (pw / kWindow);
        const int64_t tokens = kWindow * kWindow;
        for (int j = 0; j < depths[stage]; ++j) {
            const std::string p = "features." + std::to_string(index) + "." + std::to_string(j);
            // Windows as large as the padded map are not shifted (torchvision does the same).
            const int64_t shift = (j % 2 == 1 && kWindow < ph && kWindow < pw) ? kShift : 0;
            LayerRef y = b.layerNorm(p + ".norm1", x);
            if (pad_h > 0 || pad_w > 0)
                y = b.pad(p + ".attn.pad", y, {0, 0, 0}, {pad_h, pad_w, 0});
            if (shift > 0)
                y = roll(b, p + ".attn.roll", y, ph, pw, -shift);
            y = b.reshape(p + ".attn.windows", y,
                          {ph / kWindow, kWindow, pw / kWindow, kWindow, dim});
            y = b.transpose(p + ".attn.windows.t", y, {0, 2, 1, 3, 4});
            y = b.reshape(p + ".attn.windows.flat", y, {windows, tokens, dim});
            std::vector<LayerRef> bias = {
                b.constant(p + ".attn.relative_position_bias", {heads, tokens, tokens},
                           (2 * kWindow - 1) * (2 * kWindow - 1) * heads)};
            if (shift > 0)
                bias.push_back(b.constant(p + ".attn.mask", {windows, 1, tokens, tokens}, 0));
            y = attention(b, p + ".attn", y, windows, tokens, dim, heads, bias);
            y = b.reshape(p + ".attn.unwindow", y,
                          {ph / kWindow, pw / kWindow, kWindow, kWindow, dim});
            y = b.transpose(p + ".attn.unwindow.t", y, {0, 2, 1, 3, 4});
            y = b.reshape(p + ".attn.unwindow.flat", y, {ph, pw, dim});
            if (shift > 0)
                y = roll(b, p + ".attn.unroll", y, ph, pw, shift);
            if (pad_h > 0 || pad_w > 0)
                y = b.slice(p + ".attn.unpad", y, {0, 1}, {0, 0}, {h, w});
            x = b.add(p + ".add_1", y, x);
            y = b.layerNorm(p + ".norm2", x);
            y = mlp(b, p + ".mlp", y, dim, 4 * dim, 0, 3);
            x = b.add(p + ".add_2", y, x);
        }
        ++index;
        if (stage < 3) {
            // Patch merging: the four interleaved 2x2 neighbours side by side, normalized,
            // projected to twice the width.
            const std::string p = "features." + std::to_string(index);
            if (h % 2 != 0 || w % 2 != 0)
                x = b.pad(p + ".pad", x, {0, 0, 0}, {h % 2, w % 2, 0});
            const int64_t hh = (h + 1) / 2 * 2, ww = (w + 1) / 2 * 2;
            std::vector<LayerRef> parts;
            const int64_t offsets[4][2] = {{0, 0}, {1, 0}, {0, 1}, {1, 1}};
            for (int k = 0; k < 4; ++k)
                parts.push_back(b.slice(p + ".x" + std::to_string(k), x, {0, 1},
                                        {offsets[k][0], offsets[k][1]}, {hh, ww}, {2, 2}));
            x = b.concat(p + ".cat", parts, 2);
            x = b.layerNorm(p + ".norm", x);
            x = b.linear(p + ".reduction", x, 2 * dim, false);
            h = hh / 2;
            w = ww / 2;
            dim *= 2;
            ++index;
        }
    }
    x = b.layerNorm("norm", x);
    x = b.transpose("permute", x, {2, 0, 1});
    x = b.globalPool("avgpool", x, PoolKind::Average);
    x = b.flatten("flatten", x);
    b.fc("head", x, 1000);
    return std::move(b).build();
}

} // namespace iterscope::zoo
