// iterscope-cli report [--session FILE.iterscope] [scenario flags] [--page a4|letter]
// --out FILE.pdf|FILE.html: the report File › Export Report writes, from a session or the
// flags. Drawn by the chart renderer module, as export-chart is (chart_renderer.h).
#include "chart_renderer/chart_renderer.h"
#include "cli/command.h"
#include "cli/renderer_module.h"
#include "options/scenario_options.h"
#include "util/error.h"

#include <memory>
#include <string>
#include <vector>

namespace iterscope::cli {
namespace {

// Every scenario flag addScenarioFlags adds that a session also holds: given on the command
// line, it replaces the session's choice.
constexpr const char* kScenarioFlagNames[] = {
    "--network",   "--gpu",    "--system",    "--software", "--nodes",           "--gpus-per-node",
    "--batch",     "--image",  "--precision", "--sync",     "--allreduce",       "--overlap",
    "--bucket-mb", "--layout", "--data",      "--parallel", "--pipeline-stages", "--micro-batches",
    "--schedule"};

struct ReportOptions {
    ScenarioFlags flags;
    std::string session;
    std::string page = "a4";
    std::string out;
    std::string measurements;
    std::string trace;
    PlanChartRequest plan;
    std::string prices;
};

void writeReport(const ReportOptions& options, const CLI::App& cmd) {
    const auto render =
        reinterpret_cast<ReportRenderFunction>(rendererEntry(kReportRendererSymbol, "report"));
    std::vector<const char*> given;
    for (const char* name : kScenarioFlagNames)
        if (cmd.count(name) > 0)
            given.push_back(name);
    given.push_back(nullptr);
    ReportRenderRequest request;
    request.flags = &options.flags;
    request.given_flags = given.data();
    request.session = options.session.c_str();
    request.page = options.page.c_str();
    request.out = options.out.c_str();
    request.measurements = options.measurements.c_str();
    request.trace = options.trace.c_str();
    PlanChartRequest plan = options.plan;
    plan.prices = options.prices.c_str();
    request.plan = &plan;
    char error[1024] = {};
    if (render(&request, error, sizeof error) != 0)
        throw InputError(error[0] ? error : "report: rendering failed");
}

const CommandRegistration registration{
    85, [](CLI::App& app) {
        auto options = std::make_shared<ReportOptions>();
        auto* cmd = app.add_subcommand(
            "report", "Write a report (PDF or HTML) of a scenario or a session: summary, "
                      "charts, layers, pins, plan, warnings and the assumptions behind them");
        cmd->add_option("--out", options->out, "Output file: .pdf (paged) or .html (one page)")
            ->required();
        cmd->add_option("--session", options->session,
                        "A .iterscope session: its scenario, pins and plan constraints (scenario "
                        "flags given replace its choices)");
        cmd->add_option("--page", options->page, "PDF page size: a4 (default) or letter")
            ->check(CLI::IsMember({"a4", "letter"}));
        cmd->add_option("--measurements", options->measurements,
                        "Measured runs (a validation CSV) to report beside the prediction");
        cmd->add_option("--trace", options->trace,
                        "A PyTorch profiler trace to compare with the prediction");
        addScenarioFlags(cmd, options->flags);
        PlanChartRequest& plan = options->plan;
        cmd->add_option("--epochs", plan.epochs, "Plan: epochs (default 90)")
            ->check(CLI::Range(int64_t{1}, int64_t{100000}));
        cmd->add_option("--dataset-images", plan.dataset_images,
                        "Plan: training images per epoch (default 1,281,167)")
            ->check(CLI::Range(int64_t{1}, int64_t{1000000000}));
        cmd->add_option("--max-gpus", plan.max_gpus, "Plan: at most this many GPUs")
            ->check(CLI::Range(int64_t{1}, int64_t{1024}));
        cmd->add_option("--max-global-batch", plan.max_global_batch,
                        "Plan: at most this many images per iteration (0: no bound)")
            ->check(CLI::Range(int64_t{0}, int64_t{1} << 24));
        cmd->add_option("--deadline-hours", plan.deadline_hours,
                        "Plan: train within this (a constraint: the report plans)")
            ->check(CLI::PositiveNumber);
        cmd->add_option("--budget-usd", plan.budget_usd,
                        "Plan: spend at most this (a constraint: the report plans)")
            ->check(CLI::PositiveNumber);
        cmd->add_option("--prices", options->prices, "Plan: prices file (docs/planning.md)");
        cmd->callback([options, cmd] { writeReport(*options, *cmd); });
    }};

} // namespace
} // namespace iterscope::cli
