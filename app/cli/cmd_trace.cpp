// iterscope-cli trace [scenario flags] --out FILE.json: the predicted iteration as a
// Chrome/Perfetto trace (open it in ui.perfetto.dev or chrome://tracing).
#include "cli/command.h"
#include "io/trace_writer.h"
#include "model/model.h"
#include "options/scenario_options.h"

#include <iostream>

namespace iterscope::cli {
namespace {

struct TraceOptions {
    ScenarioFlags flags;
    std::string out;
    int gpus = 0;
};

CommandRegistration reg{
    70, [](CLI::App& app) {
        auto options = std::make_shared<TraceOptions>();
        CLI::App* cmd =
            app.add_subcommand("trace", "Write the predicted iteration as a Chrome/Perfetto trace");
        addScenarioFlags(cmd, options->flags);
        cmd->add_option("--out", options->out, "Trace file to write (.json)")->required();
        cmd->add_option("--trace-gpus", options->gpus,
                        "GPUs to show, one process each (1-64; default all up to 8); every "
                        "group of alike GPUs, such as a pipeline stage, is shown at least once")
            ->check(CLI::Range(1, kTraceMaxGpus));
        cmd->callback([options] {
            const Scenario scenario = buildScenario(options->flags);
            const Prediction prediction = predict(scenario);
            writeChromeTrace(options->out, scenario, prediction, options->gpus);
            std::cout << "wrote " << options->out << " (" << prediction.timeline.size()
                      << " events over " << prediction.groups.size()
                      << " group(s) of alike GPUs, iteration " << prediction.iteration_ms
                      << " ms)\n";
        });
    }};

} // namespace
} // namespace iterscope::cli
