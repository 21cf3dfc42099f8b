// The scenario flags shared by iterscope-cli's predict/sweep/trace/export-chart and the GUI
// (DESIGN.md "Interfaces"). Owned by the model work; kept Qt-free.
#pragma once

#include "model/scenario.h"
#include "model/sweep.h"

#include <CLI/CLI.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace iterscope {

struct ScenarioFlags {
    std::string network = "resnet50";
    std::string gpu = "v100-sxm2-16gb";
    std::string system = "dgx1-v100";
    std::string software = "pytorch";
    // Strings, since sweep accepts comma lists for these three.
    std::string nodes = "1";
    std::string gpus_per_node = "8";
    std::string batch = "64";
    int64_t image = 0;
    std::string precision = "fp32";
    std::string sync; // empty: the software profile's default
    std::string allreduce = "auto";
    std::string overlap = "on";
    double bucket_mb = 25;
    int ps_count = 0;
};

// Adds --network --gpu --system --nodes --gpus-per-node --batch --image --precision
// --software --sync --allreduce --overlap --bucket-mb --ps-count to a command.
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
