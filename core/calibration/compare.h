// Measured against predicted, per layer: what `iterscope-cli predict --measured` prints
// and what the GUI overlays. Pure functions of a Prediction and a measured NetworkRun.
#pragma once

#include "calibration/measurement.h"
#include "model/prediction.h"
#include "network/network.h"
#include "util/precision.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace iterscope {

struct LayerComparison {
    std::size_t layer = 0; // index into Network::layers
    std::string name;
    std::string kind;
    bool matched = false; // a measurement of this layer exists and ran a kernel
    double predicted_forward_ms = 0, measured_forward_ms = 0;
    double predicted_backward_ms = 0, measured_backward_ms = 0;
    // Signed, (predicted - measured) / measured x 100; nullopt when nothing was measured.
    std::optional<double> forward_error_pct, backward_error_pct, total_error_pct;
};

struct MeasurementComparison {
    std::string network;
    int64_t batch = 0;
    std::string precision;
    std::vector<LayerComparison> layers; // every layer of the network, in order
    // Sums over the matched layers only, so that both sides cover the same kernels.
    double predicted_forward_ms = 0, measured_forward_ms = 0;
    double predicted_backward_ms = 0, measured_backward_ms = 0;
    std::optional<double> forward_error_pct, backward_error_pct, total_error_pct;
    // Mean of |total_error_pct| over matched layers whose measured time is at least
    // `significant_ms` (tiny kernels have huge relative errors that say little).
    double layer_mape_pct = 0;
    int layers_in_mape = 0;
    int unmatched_layers = 0; // network layers with kernels predicted but not measured
    double significant_ms = 0.05;
};

// Signed percentage error; nullopt when measured is not positive.
std::optional<double> errorPct(double predicted, double measured);

// The run of `m` that matches the batch and precision, preferring one whose network
// names `network` (id or path as given to the calibrator). Throws InputError naming the
// file when none does, listing what it holds.
const NetworkRun& selectRun(const Measurement& m, const std::string& file,
                            const std::string& network, int64_t batch, Precision precision);

// Layers match by name, falling back to index when names are absent or differ in count.
MeasurementComparison compareWithMeasurement(const Network& net, const Prediction& prediction,
                                             const NetworkRun& run);

// Plain-text table: one row per layer with a kernel, then the totals.
std::string formatComparisonTable(const MeasurementComparison& c);
std::string comparisonToJson(const MeasurementComparison& c); // pretty-printed

// The measured run as compute-stream timeline events (forward in layer order, then
// backward in reverse), for a GUI to draw next to the predicted timeline.
std::vector<TimelineEvent> measuredTimeline(const NetworkRun& run);

} // namespace iterscope
