#pragma once

#include <optional>
#include <string_view>

namespace iterscope {

// Arithmetic of a training run: plain FP32 lanes, TF32 tensor cores (FP32 storage), or
// mixed precision (FP16 tensor cores, FP16 activations, FP32 master weights).
enum class Precision { FP32, TF32, AMP };

inline const char* precisionName(Precision p) {
    switch (p) {
    case Precision::FP32:
        return "fp32";
    case Precision::TF32:
        return "tf32";
    case Precision::AMP:
        return "amp";
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
    return std::nullopt;
}

// Bytes of one activation element.
inline int activationBytes(Precision p) {
    return p == Precision::AMP ? 2 : 4;
}

} // namespace iterscope
