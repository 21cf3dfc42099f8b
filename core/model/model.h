// The iteration-time model (DESIGN.md "The model"). predict() is pure and thread-safe:
// it reads only its argument.
#pragma once

#include "model/prediction.h"
#include "model/scenario.h"

namespace iterscope {

// Throws InputError for an invalid scenario (validateScenario).
Prediction predict(const Scenario& scenario);

} // namespace iterscope
