// The GUI's settings from a scenario as a person stated it (core's ScenarioChoices, which
// the programs fill from their command-line flags). Views never see the flags themselves.
#pragma once

#include "scenario/scenario_settings.h"

#include "model/scenario_choices.h"

namespace iterscope::ui {

// Throws InputError naming the flag ("--batch: ...") for values the GUI cannot show.
ScenarioSettings settingsFromChoices(const ScenarioChoices& choices);

} // namespace iterscope::ui
