// What compare-trace and fit --trace share: the trace read and analysed, and the scenario
// it was recorded in, from the flags the person gave and the trace for the rest.
#pragma once

#include "model/scenario.h"
#include "options/scenario_options.h"
#include "trace/trace_scenario.h"
#include "trace/trace_steps.h"

#include <CLI/CLI.hpp>

#include <string>

namespace iterscope::cli {

struct TraceRun {
    TraceAnalysis analysis;
    TraceScenario setting;
    Scenario scenario;
};

// Which scenario flags `cmd` was given on the command line.
TraceChoiceMask givenFlags(const CLI::App& cmd);

// Reads and analyses `path`, then builds the scenario. Warnings go to stderr, one line each.
// Throws InputError.
TraceRun setUpTrace(const std::string& path, const ScenarioFlags& flags,
                    const TraceChoiceMask& given);

} // namespace iterscope::cli
