#include "validation/prediction_warnings.h"

#include "validation/error_band.h"

#include <string>
#include <utility>

namespace iterscope {

std::vector<ScenarioWarning> predictionWarnings(const Scenario& s, const Prediction& p) {
    std::vector<ScenarioWarning> out;
    const auto caution = [&out](std::string id, std::string text) {
        out.push_back({ScenarioWarning::Level::Caution, std::move(id), std::move(text)});
    };
    if (s.network)
        for (const std::string& w : s.network->import_warnings)
            // The reader's sentence names the file and the ops; what it means for the
            // figures is what a reader of the throughput needs.
            caution("unknown-ops", w + ". They cost nothing here, so the iteration time is "
                                       "too short and the throughput too high.");
    for (ScenarioWarning& w : scenarioWarnings(s))
        if (w.level == ScenarioWarning::Level::Caution)
            out.push_back(std::move(w));
    if (!p.fits_in_memory)
        caution("does-not-fit", "The batch does not fit in the GPU's memory (at most " +
                                    std::to_string(p.max_batch_that_fits) +
                                    " per GPU fits): the time is that of a GPU with enough "
                                    "memory.");
    const ErrorBand band = errorBandFor(shippedErrorBands(), s);
    if (band.extrapolated)
        caution("extrapolated-band",
                "The error band is widened beyond the measurements behind it (" + band.basis +
                    ").");
    return out;
}

} // namespace iterscope
