// Fitting the software profile's efficiencies to per-layer measurements on one GPU.
//
// The fit goes through predict() itself, so it follows whatever roofline, wave and tile
// corrections the model applies: for each class of layer (convolutions, fully connected)
// it bisects the one efficiency that class uses until the model's summed forward +
// backward time of that class equals the measured sum. One number per class and
// precision, never per layer, so the per-layer errors that remain are the model's.
#pragma once

#include "calibration/compare.h"
#include "calibration/kernel_scenario.h"
#include "calibration/measurement.h"
#include "hardware/hardware.h"
#include "model/prediction.h"
#include "model/scenario.h"

#include <memory>
#include <string>
#include <vector>

namespace iterscope {

struct ClassFit {
    std::string parameter; // "conv_efficiency", "fc_efficiency", "tensor_core_efficiency"
    double before = 0;     // the base profile's value
    double after = 0;      // fitted (clamped to [kMinEfficiency, kMaxEfficiency])
    double measured_ms = 0;
    double predicted_before_ms = 0;
    double predicted_after_ms = 0;
    int layers = 0;
    bool clamped = false; // the target lies outside what the bounds can reach
};

struct PrecisionFit {
    std::string precision;
    std::vector<ClassFit> classes;
};

struct SoftwareFit {
    SoftwareProfile software; // the base with fitted efficiencies, id "<base>-calibrated"
    std::vector<PrecisionFit> fits;
};

// The software profile schema's range (docs/model.md). A convolution faster than 100% of
// peak (Winograd, FFT) shows as clamped: the model's winograd_speedup covers that part.
inline constexpr double kMinEfficiency = 0.01;
inline constexpr double kMaxEfficiency = 1.0;

// The fit as the "parameters" notes of the written software profile: what was fitted on
// which layers, and the sums before and after.
std::string describeFit(const SoftwareFit& fit);

// Fits the efficiencies each run's precision uses (FP32: conv_efficiency and fc_efficiency;
// TF32/AMP on tensor cores: tensor_core_efficiency over conv and fc together). With two
// runs of one precision the later wins. Throws InputError when a run's batch or layers do
// not fit the network.
SoftwareFit fitSoftwareProfile(std::shared_ptr<const AnalyzedNetwork> network,
                               const GpuProfile& calibrated_gpu, const SoftwareProfile& base,
                               const std::vector<NetworkRun>& runs);

} // namespace iterscope
