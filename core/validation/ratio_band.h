// How sure a predicted ratio is: "AMP gives 1.9x the images/s", "16 GPUs give 13.2x one".
// Two predictions of one model err together (the same kernels, the same harness), so the
// band of their ratio is not the two bands divided: it is the spread of the errors the model
// made on ratios it could check, between published rows of one source that differ in that
// one factor alone. iterscope-fit writes those errors' conformal quantiles per kind of
// change to profiles/ratio-bands.json (beside error-bands.json); this reads them. Used by
// the advisor (core/advisor) and the GUI's comparison with a pin.
#pragma once

#include "validation/validation.h"

#include <string>
#include <string_view>
#include <vector>

namespace iterscope {

// The factors a pair of rows may differ in, as kind names: "precision", "gpu-count",
// "batch", "gpu" (the GPU model; the system may change with it), "layout", "sync", "data".
// "*" is every pair of any one kind.
inline constexpr std::string_view kRatioKindAny = "*";
const std::vector<std::string>& ratioKinds();

struct RatioClass {
    std::string kind;
    int pairs = 0;
    // Conformal quantile of |ln(measured ratio / predicted ratio)| over the pairs
    // (error_band.h's conformalHalfWidth).
    double half_width_log = 0;
    double rms_log = 0;
};

struct RatioBands {
    std::string basis;
    double coverage = 0.8;
    std::vector<RatioClass> kinds; // one per kind with any pair, and "*"
};

// The kind of change between two rows, or "" when they are not a pair: another source,
// network, image, software or metric, or more than one factor changed, except that a
// precision pair may change the layout and the batch with it, as published mixed-precision
// runs do. Row a's and b's order does not matter.
std::string ratioPairKind(const ValidationRow& a, const ValidationRow& b);

// `log_ratios[i]`: row i's ln(measured / predicted throughput) (held out, as the error bands
// use them). A pair's ratio error is the difference of its rows' errors.
std::vector<RatioClass> ratioClasses(const std::vector<ValidationRow>& rows,
                                     const std::vector<double>& log_ratios, double coverage = 0.8);

std::string ratioBandsToJson(const RatioBands& bands);
// Throws InputError naming the file.
RatioBands parseRatioBands(const std::string& text, const std::string& file);
// profilesDir()/ratio-bands.json, read once; empty bands when there is none.
const RatioBands& shippedRatioBands();

// The band of one predicted ratio: the true ratio lies within [low, high] with the bands'
// coverage. `kinds`: the factors that change (several for a combined change: their
// half-widths add in quadrature, as independent errors would).
struct RatioBand {
    double low = 1, high = 1;
    int pairs = 0;      // pairs behind the narrowest-backed kind; 0: no band known at all
    bool backed = true; // every kind had enough pairs of its own; else the "*" band stood in
    std::string basis;  // "41 published precision pairs", "no published pair changes the
                        // bucket size alone: the band of every one-factor pair (212)"
    // The band holds 1x: the change may not help, or may not hurt.
    bool holdsOne() const { return low <= 1.0 && high >= 1.0; }
};
RatioBand ratioBandFor(const RatioBands& bands, const std::vector<std::string>& kinds,
                       double ratio);

} // namespace iterscope
