// A suggestion of the advisor (core/advisor/advisor.h) as the GUI applies it: its predict
// flags onto the scenario's settings, so that one click is one undo step. The GUI has no
// control for some flags (--nic-gbps, --nics-per-node, --loader-workers: they edit a
// profile); such a suggestion cannot be applied here and says which flag it needs.
#pragma once

#include "model/scenario.h"
#include "scenario/scenario_settings.h"

#include <QString>

#include <optional>
#include <string>
#include <vector>

namespace iterscope::ui {

// The settings with `flags` applied; nullopt, with the flag in `unsupported`, when one has
// no control in the GUI.
std::optional<ScenarioSettings> settingsWithFlags(const ScenarioSettings& settings,
                                                  const std::vector<std::string>& flags,
                                                  QString* unsupported = nullptr);

// The core scenario of a pin, made from the current one by the pin's settings (profiles it
// names loaded as needed), for comparing the two. Throws InputError for a profile that
// does not load.
Scenario scenarioOfPin(const Scenario& current, const ScenarioSettings& current_settings,
                       const ScenarioSettings& pin);

} // namespace iterscope::ui
