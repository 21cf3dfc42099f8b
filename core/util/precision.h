#pragma once

#include <optional>
#include <string_view>

namespace iterscope {

// Arithmetic of a training run: plain FP32 lanes, TF32 tensor cores (FP32 storage), mixed
// precision with FP16 (FP16 tensor cores and activations, FP32 master weights, a loss
// scaler), or mixed precision with BF16 (Ampere and newer: the same tensor-core rate and
// storage as FP16, but FP32's exponent range, so no loss scaling).
enum class Precision { FP32, TF32, AMP, BF16 };

inline constexpr Precision kAllPrecisions[] = {Precision::FP32, Precision::TF32, Precision::AMP,
                                               Precision::BF16};

inline const char* precisionName(Precision p) {
    switch (p) {
    case Precision::FP32:
        return "fp32";
    case Precision::TF32:
        return "tf32";
    case Precision::AMP:
        return "amp";
    case Precision::BF16:
        return "bf16";
    }
    return "fp32";
}

inline std::optional<Precision> parsePrecision(std::string_view s) {
    if (s == "fp32")
        return Precision::FP32;
    if (s == "tf32")
        return Precision::TF32;
    if (s == "amp" || s == "fp16")
        return Precision::AMP;
    if (s == "bf16")
        return Precision::BF16;
    return std::nullopt;
}

// 16-bit activations and tensor-core inputs, FP32 master weights: FP16 with loss scaling
// (amp) or BF16.
inline bool halfPrecision(Precision p) {
    return p == Precision::AMP || p == Precision::BF16;
}

// Bytes of one activation element.
inline int activationBytes(Precision p) {
    return halfPrecision(p) ? 2 : 4;
}

} // namespace iterscope
