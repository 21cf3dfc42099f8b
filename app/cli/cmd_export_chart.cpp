// iterscope-cli export-chart --kind scaling|timeline|layers|plan [scenario flags] --out FILE:
// the GUI's charts rendered headless, for reports and scripts. The rendering lives in a
// module loaded here, so that the other commands start without Qt (chart_renderer.h).
#include "chart_renderer/chart_renderer.h"
#include "cli/command.h"
#include "cli/renderer_module.h"
#include "options/scenario_options.h"
#include "util/error.h"

#include <memory>
#include <string>

namespace iterscope::cli {
namespace {

struct ExportChartOptions {
    ScenarioFlags flags;
    std::string kind = "scaling";
    std::string out;
    double scale = 2;
    PlanChartRequest plan;
    std::string prices;
};

void exportChart(const ExportChartOptions& options) {
    const auto render =
        reinterpret_cast<ChartRenderFunction>(rendererEntry(kChartRendererSymbol, "export-chart"));
    ChartRenderRequest request;
    request.flags = &options.flags;
    request.kind = options.kind.c_str();
    request.out = options.out.c_str();
    request.scale = options.scale;
    PlanChartRequest plan = options.plan;
    plan.prices = options.prices.c_str();
    request.plan = &plan;
    char error[1024] = {};
    if (render(&request, error, sizeof error) != 0)
        throw InputError(error[0] ? error : "export-chart: rendering failed");
}

const CommandRegistration registration{
    80, [](CLI::App& app) {
        auto options = std::make_shared<ExportChartOptions>();
        auto* cmd = app.add_subcommand(
            "export-chart",
            "Render the scaling curves, the timeline, the layer chart or the plan to a file");
        cmd->add_option("--kind", options->kind,
                        "scaling, timeline, layers or plan (every GPU and system, "
                        "docs/planning.md)")
            ->check(CLI::IsMember({"scaling", "timeline", "layers", "plan"}));
        cmd->add_option("--out", options->out, "Output file: .png, .svg or .pdf")->required();
        cmd->add_option("--scale", options->scale, "PNG pixels per widget pixel (default 2)")
            ->check(CLI::Range(0.25, 8.0));
        addScenarioFlags(cmd, options->flags);
        // The plan's own flags, as `plan` takes them (kind plan only).
        PlanChartRequest& plan = options->plan;
        cmd->add_option("--epochs", plan.epochs, "Plan: epochs (default 90)")
            ->check(CLI::Range(int64_t{1}, int64_t{100000}));
        cmd->add_option("--dataset-images", plan.dataset_images,
                        "Plan: training images per epoch (default 1,281,167)")
            ->check(CLI::Range(int64_t{1}, int64_t{1000000000}));
        cmd->add_option("--max-gpus", plan.max_gpus, "Plan: at most this many GPUs")
            ->check(CLI::Range(int64_t{1}, int64_t{1024}));
        cmd->add_option("--max-global-batch", plan.max_global_batch,
                        "Plan: at most this many images per iteration (default 8192; 0: no "
                        "bound)")
            ->check(CLI::Range(int64_t{0}, int64_t{1} << 24));
        cmd->add_option("--deadline-hours", plan.deadline_hours, "Plan: train within this")
            ->check(CLI::PositiveNumber);
        cmd->add_option("--budget-usd", plan.budget_usd, "Plan: spend at most this")
            ->check(CLI::PositiveNumber);
        cmd->add_option("--prices", options->prices, "Plan: prices file (docs/planning.md)");
        cmd->callback([options] { exportChart(*options); });
    }};

} // namespace
} // namespace iterscope::cli
