// iterscope-cli predict [scenario flags]: one iteration's prediction (DESIGN.md "Interfaces").
#include "calibration/measured_report.h"
#include "cli/command.h"
#include "cli/prediction_output.h"
#include "model/model.h"
#include "options/scenario_options.h"

#include <iostream>
#include <optional>

namespace iterscope::cli {
namespace {

struct PredictOptions {
    ScenarioFlags flags;
    std::string format = "table";
    bool layers = false;
    std::string measured; // iterscope-calibrate measurement JSON to compare with
};

CommandRegistration reg{
    40, [](CLI::App& app) {
        auto options = std::make_shared<PredictOptions>();
        CLI::App* cmd = app.add_subcommand("predict", "Predict one training iteration");
        addScenarioFlags(cmd, options->flags);
        cmd->add_option("--format", options->format, "table or json")
            ->check(CLI::IsMember({"table", "json"}));
        cmd->add_flag("--layers", options->layers, "Also print the per-layer table");
        cmd->add_option("--measured", options->measured,
                        "Measurement JSON from iterscope-calibrate: also print measured against "
                        "predicted kernel time per layer, with error % (docs/calibrator.md)");
        cmd->callback([options] {
            const Scenario scenario = buildScenario(options->flags);
            const Prediction prediction = predict(scenario);
            // Compared before anything is printed, warnings too: a bad file leaves its one
            // error line and no partial output.
            std::optional<MeasurementComparison> measured;
            if (!options->measured.empty())
                measured = compareScenarioWithMeasurementFile(scenario, options->measured);
            const std::vector<std::string> warnings = predictionWarnings(scenario, prediction);
            for (const std::string& w : warnings)
                std::cerr << "iterscope-cli: warning: " << w << "\n";
            if (options->format == "json") {
                auto j = predictionJson(scenario, prediction, warnings);
                if (measured)
                    j["measured"] = nlohmann::ordered_json::parse(comparisonToJson(*measured));
                std::cout << j.dump(2) << "\n";
                return;
            }
            std::cout << summaryTable(scenario, prediction);
            if (options->layers)
                std::cout << "\n" << layerTable(scenario, prediction);
            if (measured)
                std::cout << "\nMeasured kernels against predicted (one GPU, no framework "
                             "overhead), from "
                          << options->measured << ":\n"
                          << formatComparisonTable(*measured);
        });
    }};

} // namespace
} // namespace iterscope::cli
