// One scenario against another, as a decision needs it (issue 31 item 3): "1.13x the
// images/s of Pin 1", how sure that ratio is, and the cost per million images where both
// GPUs have a price. The ratio's band comes from the published pairs that differ in the same
// factors (core/validation/ratio_band.h), not from the two predictions' bands divided: two
// predictions of one model err together.
#pragma once

#include "model/scenario.h"
#include "validation/ratio_band.h"

#include <optional>
#include <string>
#include <vector>

namespace iterscope {

// The ratio-band kinds in which two scenarios differ: "precision", "gpu-count", "batch",
// "gpu", "layout", "sync", "data", and for the factors no published pair varies alone
// "network", "system", "overlap", "bucket", "allreduce", "parallel", "software",
// "loader-workers", "nics". Empty: the same set-up.
std::vector<std::string> differingKinds(const Scenario& a, const Scenario& b);

// Dollars per million images: GPUs x price per GPU-hour / images per hour; none without a
// price or a throughput.
std::optional<double> usdPerMillionImages(const Scenario& s, double images_per_second);

struct ScenarioComparison {
    double ratio = 1; // current images/s over the other's
    RatioBand band;   // of the ratio
    std::vector<std::string> kinds;
    std::optional<double> usd_per_million_current, usd_per_million_other;
    // Faster or slower beyond doubt: the band does not hold 1x. Without a band known, a
    // ratio is never called clear.
    bool clear() const { return band.pairs > 0 && !band.holdsOne(); }
    // "1.13x the images/s of Pin 1 (band 1.04-1.23x)", "... : not a clear win", and the cost
    // per million images of each where known.
    std::string text(const std::string& other_name) const;
};

ScenarioComparison compareScenarios(const Scenario& current, double current_images_per_second,
                                    const Scenario& other, double other_images_per_second,
                                    const RatioBands& bands = shippedRatioBands());

} // namespace iterscope
