// iterscope-cli predict [scenario flags]: one iteration's prediction (DESIGN.md "Interfaces").
#include "cli/command.h"
#include "cli/prediction_output.h"
#include "model/model.h"
#include "options/scenario_options.h"

#include <iostream>

namespace iterscope::cli {
namespace {

struct PredictOptions {
    ScenarioFlags flags;
    std::string format = "table";
    bool layers = false;
};

CommandRegistration reg{
    40, [](CLI::App& app) {
        auto options = std::make_shared<PredictOptions>();
        CLI::App* cmd = app.add_subcommand("predict", "Predict one training iteration");
        addScenarioFlags(cmd, options->flags);
        cmd->add_option("--format", options->format, "table or json")
            ->check(CLI::IsMember({"table", "json"}));
        cmd->add_flag("--layers", options->layers, "Also print the per-layer table");
        cmd->callback([options] {
            const Scenario scenario = buildScenario(options->flags);
            const Prediction prediction = predict(scenario);
            if (options->format == "json") {
                std::cout << predictionJson(scenario, prediction).dump(2) << "\n";
                return;
            }
            std::cout << summaryTable(scenario, prediction);
            if (options->layers)
                std::cout << "\n" << layerTable(scenario, prediction);
        });
    }};

} // namespace
} // namespace iterscope::cli
