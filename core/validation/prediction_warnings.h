// What a prediction must not be read without, one sentence each: the CLI prints them on
// stderr and puts them into predict's JSON (`warnings`), the GUI shows them in its banner
// and summary. One list, so no front end can show a number the other one warns about.
#pragma once

#include "model/prediction.h"
#include "model/scenario.h"
#include "model/scenario_warnings.h"

#include <vector>

namespace iterscope {

// In this order: what the network file's reader had to assume ("unknown-ops"), the
// scenario's cautions (scenarioWarnings, level Caution), a batch that does not fit
// ("does-not-fit") and an error band widened past its data ("extrapolated-band"). All of
// level Caution.
std::vector<ScenarioWarning> predictionWarnings(const Scenario& scenario,
                                                const Prediction& prediction);

} // namespace iterscope
