// How predict, sweep and trace show a Prediction: JSON with DESIGN.md's field names, and
// aligned tables with units for people.
#pragma once

#include "model/breakdown.h"

#include "model/prediction.h"
#include "model/scenario.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace iterscope::cli {

// The scenario as the prediction saw it (ids, counts, precision, strategy).
nlohmann::ordered_json scenarioJson(const Scenario& s);
// Totals and memory only: iteration_ms, images_per_second, ... fits_in_memory.
nlohmann::ordered_json summaryJson(const Prediction& p);
// iteration_ms_low/high and images_per_second_low/high: the band of cross-validated errors
// of comparable published measurements (core/validation/error_band.h).
void addErrorBand(nlohmann::ordered_json& out, const Scenario& s, const Prediction& p);
// The parts of the iteration (core/model/breakdown.h), named, summing to iteration_ms.
nlohmann::ordered_json breakdownJson(const IterationBreakdown& breakdown);
// Everything: the summary, the breakdown, the error band, layers[] and timeline[].
// `warnings` are predictionWarnings(s, p), made once by the caller, which also prints them.
nlohmann::ordered_json predictionJson(const Scenario& s, const Prediction& p,
                                      const std::vector<std::string>& warnings);
// The texts of core's predictionWarnings (validation/prediction_warnings.h), which the GUI
// shows too. predict prints them on stderr and puts them into its JSON as `warnings`.
std::vector<std::string> predictionWarnings(const Scenario& s, const Prediction& p);

std::string summaryTable(const Scenario& s, const Prediction& p);
std::string layerTable(const Scenario& s, const Prediction& p);

} // namespace iterscope::cli
