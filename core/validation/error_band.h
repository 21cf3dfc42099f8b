// How sure a prediction is (DESIGN.md "The model" 9): the spread of the cross-validated
// errors of comparable published measurements (same GPU architecture, precision, one GPU or
// several), written by iterscope-fit to profiles/error-bands.json and read here.
#pragma once

#include "model/scenario.h"

#include <string>
#include <vector>

namespace iterscope {

// Errors of one class of rows, as log ratios ln(measured / predicted) of throughput: a
// positive mean means the model predicts too slow.
struct ErrorClass {
    std::string architecture; // "Ampere"; "*" for every architecture
    std::string precision;    // "fp32", "tf32", "amp"; "*" for every precision
    int multi_gpu = -1;       // 1: several GPUs, 0: one, -1: either
    int rows = 0;
    double mean_log_ratio = 0;
    double sd_log_ratio = 0;
};

struct ErrorBands {
    std::string basis; // how the residuals were made ("leave one GPU out, ...")
    // Two-sided coverage the band aims at, and the normal quantile that gives it.
    double coverage = 0.8;
    double z = 1.2816;
    std::vector<ErrorClass> classes;            // residuals of GPUs left out one at a time
    std::vector<ErrorClass> unseen_architecture; // of architectures left out one at a time
};

struct ErrorBandRow {
    std::string architecture, precision;
    bool multi_gpu = false;
    double log_ratio = 0; // ln(measured / predicted throughput)
};

// Groups residuals into classes (exact, then per precision and GPU count, then all).
std::vector<ErrorClass> errorClasses(const std::vector<ErrorBandRow>& rows);

std::string errorBandsToJson(const ErrorBands& bands);
// Throws InputError naming the file.
ErrorBands parseErrorBands(const std::string& text, const std::string& file);
// profilesDir()/error-bands.json, read once; empty bands when there is none.
const ErrorBands& shippedErrorBands();

// The band of one prediction: the true throughput lies within [low, high] x the predicted
// one with the stated coverage (and the iteration time within [1/high, 1/low] x).
struct ErrorBand {
    double low = 1, high = 1;
    int rows = 0;      // comparable rows behind it; 0: no band known
    std::string basis; // "8 Ampere amp multi-GPU rows", ...
    // Half the band's width in percent of the prediction, for a "± x %" beside a figure.
    double plusMinusPercent() const { return (high - low) / 2 * 100.0; }
};

// A class needs this many rows before its own spread is trusted; fewer fall back to the
// wider class.
inline constexpr int kMinBandRows = 4;

ErrorBand errorBandFor(const ErrorBands& bands, const Scenario& scenario);

} // namespace iterscope
