// iterscope-cli compare-trace TRACE.json[.gz] --network N [scenario flags]: a PyTorch
// profiler trace's measured step against the model, per layer, per kind, per pass and per
// iteration (DESIGN.md "Interfaces"; docs/calibrating.md).
#include "cli/command.h"
#include "cli/trace_output.h"
#include "cli/trace_setup.h"

#include <iostream>

namespace iterscope::cli {
namespace {

struct CompareTraceOptions {
    std::string trace;
    ScenarioFlags flags;
    std::string format = "table";
};

CommandRegistration reg{
    64, [](CLI::App& app) {
        auto options = std::make_shared<CompareTraceOptions>();
        CLI::App* cmd = app.add_subcommand(
            "compare-trace",
            "Compare a PyTorch profiler (Kineto) trace with the model, per layer, pass and "
            "iteration. GPU, GPU count, batch, image and precision come from the trace unless "
            "given");
        cmd->add_option("trace", options->trace, "Chrome trace of torch.profiler (.json, .json.gz)")
            ->required();
        addScenarioFlags(cmd, options->flags);
        cmd->get_option("--network")->required();
        cmd->add_option("--format", options->format, "table or json")
            ->check(CLI::IsMember({"table", "json"}));
        cmd->callback([options, cmd] {
            const TraceRun run = setUpTrace(options->trace, options->flags, givenFlags(*cmd));
            const TraceComparison comparison = compareTrace(run.analysis, run.scenario);
            if (options->format == "json")
                std::cout << traceComparisonJson(run, comparison).dump(2) << "\n";
            else
                std::cout << traceComparisonTable(run, comparison);
        });
    }};

} // namespace
} // namespace iterscope::cli
