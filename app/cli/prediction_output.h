// How predict, sweep and trace show a Prediction: JSON with DESIGN.md's field names, and
// aligned tables with units for people.
#pragma once

#include "model/prediction.h"
#include "model/scenario.h"

#include <nlohmann/json.hpp>

#include <string>

namespace iterscope::cli {

// The scenario as the prediction saw it (ids, counts, precision, strategy).
nlohmann::ordered_json scenarioJson(const Scenario& s);
// Totals and memory only: iteration_ms, images_per_second, ... fits_in_memory.
nlohmann::ordered_json summaryJson(const Prediction& p);
// Everything: the summary, layers[] and timeline[].
nlohmann::ordered_json predictionJson(const Scenario& s, const Prediction& p);

std::string summaryTable(const Scenario& s, const Prediction& p);
std::string layerTable(const Scenario& s, const Prediction& p);

} // namespace iterscope::cli
