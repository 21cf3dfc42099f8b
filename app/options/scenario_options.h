// The scenario flags shared by iterscope-cli's predict/sweep/trace/export-chart and the GUI
// (DESIGN.md "Interfaces"): binds them to core's ScenarioChoices. Kept Qt-free.
#pragma once

#include "model/scenario.h"
#include "model/scenario_choices.h"
#include "model/sweep.h"

#include <CLI/CLI.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace iterscope {

// The flags fill a core ScenarioChoices, which the GUI reads too without knowing CLI11.
// The old name stays for the commands that use it.
using ScenarioFlags = ScenarioChoices;

// Adds --network --gpu --system --nodes --gpus-per-node --batch --image --precision
// --software --sync --allreduce --overlap --bucket-mb --ps-count --layout --data
// --augmentation --parallel
// --pipeline-stages --micro-batches --schedule --nics-per-node --nic-gbps --loader-workers
// to a command.
void addScenarioFlags(CLI::App* command, ScenarioFlags& flags);

// "1,2,4,8" -> {1, 2, 4, 8}. Throws InputError naming `flag` for anything but positive
// integers in [min, max], and for more than 4096 values.
std::vector<int64_t> parseIntegerList(const std::string& text, const std::string& flag, int64_t min,
                                      int64_t max);

// Loads the network and the profiles the flags name and builds the scenario. --nodes,
// --gpus-per-node and --batch must be single values here. Throws InputError.
Scenario buildScenario(const ScenarioFlags& flags);

// The same with comma lists allowed for those three: the base scenario takes each list's
// first value, the axes the whole lists.
Scenario buildScenario(const ScenarioFlags& flags, SweepAxes& axes);

} // namespace iterscope
