// iterscope-cli plan: time to train, cost and energy over every configuration, with the
// Pareto front of time against cost (DESIGN.md "Interfaces", docs/planning.md).
#include "cli/command.h"
#include "cli/plan_output.h"
#include "hardware/profile_loader.h"
#include "io/network_loader.h"
#include "plan/plan_inputs.h"
#include "util/error.h"

#include <cmath>
#include <cstdio>
#include <iostream>
#include <optional>

namespace iterscope::cli {
namespace {

constexpr int64_t kMaxDatasetImages = int64_t{1} << 40;
constexpr int kMaxEpochs = 100000;
constexpr int kMaxGpusFlag = 65536;

struct PlanOptions {
    std::string network;
    int64_t dataset_images = kImageNetTrainImages;
    int64_t epochs = kDefaultEpochs;
    std::string gpus, systems, precision, sync, parallel;
    std::string software = "pytorch";
    int64_t image = 0;
    std::optional<int64_t> max_gpus, max_global_batch;
    std::optional<double> deadline_hours, budget_usd;
    std::string prices;
    bool all = false;
    std::string format = "table";
};

void requireRange(int64_t v, int64_t min, int64_t max, const char* flag) {
    if (v < min || v > max)
        throw InputError(std::string(flag) + ": " + std::to_string(v) + " is outside " +
                         std::to_string(min) + ".." + std::to_string(max));
}

void requirePositive(const std::optional<double>& v, const char* flag) {
    if (v && !(std::isfinite(*v) && *v > 0))
        throw InputError(std::string(flag) + ": must be a positive number");
}

PlanRequest buildRequest(const PlanOptions& o) {
    // Cheap checks first, so a typo is reported before any file is read.
    requireRange(o.dataset_images, 1, kMaxDatasetImages, "--dataset-images");
    requireRange(o.epochs, 1, kMaxEpochs, "--epochs");
    requireRange(o.image, 0, 8192, "--image");
    if (o.max_gpus)
        requireRange(*o.max_gpus, 1, kMaxGpusFlag, "--max-gpus");
    if (o.max_global_batch)
        requireRange(*o.max_global_batch, 0, int64_t{1} << 40, "--max-global-batch");
    requirePositive(o.deadline_hours, "--deadline-hours");
    requirePositive(o.budget_usd, "--budget-usd");

    PlanRequest r;
    r.dataset_images = o.dataset_images;
    r.epochs = static_cast<int>(o.epochs);
    if (o.max_gpus)
        r.constraints.max_gpus = static_cast<int>(*o.max_gpus);
    // Bounded unless told otherwise; 0 lifts the bound.
    const int64_t max_batch = o.max_global_batch.value_or(kDefaultMaxGlobalBatch);
    if (max_batch > 0)
        r.constraints.max_global_batch = max_batch;
    r.constraints.deadline_hours = o.deadline_hours;
    r.constraints.budget_usd = o.budget_usd;
    if (!o.precision.empty())
        for (const std::string& p : splitList(o.precision, "--precision"))
            r.precisions.push_back(requirePrecision(p, "--precision"));
    if (!o.sync.empty())
        for (const std::string& s : splitList(o.sync, "--sync"))
            r.syncs.push_back(requireSyncStrategy(s, "--sync"));
    if (!o.parallel.empty())
        for (const std::string& p : splitList(o.parallel, "--parallel"))
            r.parallels.push_back(requireParallelStrategy(p, "--parallel"));

    PlanHardwareChoice choice;
    if (!o.gpus.empty())
        choice.gpus = splitList(o.gpus, "--gpus");
    if (!o.systems.empty())
        choice.systems = splitList(o.systems, "--systems");
    choice.prices_file = o.prices;
    loadPlanHardware(choice, r);
    r.software = loadSoftwareProfile(o.software);
    LoadOptions load;
    load.image = o.image;
    r.network = loadNetwork(o.network, load);
    return r;
}

void run(const PlanOptions& o) {
    const PlanRequest request = buildRequest(o);
    const PlanResult result = plan(request);
    if (result.candidates.empty())
        throw InputError("plan: " + noCandidateReason(request));
    if (result.selection.meeting_constraints == 0)
        throw InputError("plan: " + relaxAdvice(result.candidates, request.constraints));

    const PlanReport report{request, result, planNotes(request, result, o.max_global_batch)};
    if (o.format == "json") {
        std::cout << planJson(report, o.all).dump(2) << "\n";
    } else if (o.format == "csv") {
        const std::string csv = planCsv(report, o.all);
        std::fwrite(csv.data(), 1, csv.size(), stdout);
        // CSV has no place for prose: the caveats go to stderr.
        for (const std::string& note : report.notes)
            std::cerr << "iterscope-cli: note: " << note << "\n";
    } else {
        std::cout << planTable(report, o.all);
    }
}

const CommandRegistration registration{
    55, [](CLI::App& app) {
        auto o = std::make_shared<PlanOptions>();
        CLI::App* cmd = app.add_subcommand(
            "plan", "Plan a training run: time to train, cost and energy of every GPU, system, "
                    "GPU count, batch, precision and exchange, with the Pareto front");
        cmd->add_option("--network", o->network,
                        "Built-in network id or .onnx/.prototxt/.json file")
            ->required();
        cmd->add_option("--dataset-images", o->dataset_images,
                        "Training images per epoch (default ImageNet-1k's 1,281,167)");
        cmd->add_option("--epochs", o->epochs, "Epochs (default 90)");
        cmd->add_option("--gpus", o->gpus, "GPU profile ids, comma-separated (default: all)");
        cmd->add_option("--systems", o->systems,
                        "System profile ids, comma-separated (default: all)");
        cmd->add_option("--precision", o->precision,
                        "fp32, tf32, amp, comma-separated (default: all the GPU has)");
        cmd->add_option("--sync", o->sync,
                        "Gradient exchanges to try, comma-separated (default: all that apply)");
        cmd->add_option("--parallel", o->parallel,
                        "Parallel strategies to try, comma-separated: data, hybrid, pipeline, "
                        "zero1, zero2, zero3 (default: data, and the others where data "
                        "parallelism runs out of memory)");
        cmd->add_option("--software", o->software, "Software platform id or JSON file");
        cmd->add_option("--image", o->image, "Square input size (pixels)");
        cmd->add_option("--max-gpus", o->max_gpus, "At most this many GPUs (default 1024)");
        cmd->add_option("--max-global-batch", o->max_global_batch,
                        "At most this many images per iteration over all GPUs (default 8192, "
                        "where ResNet-50 keeps its accuracy; 0: no bound)");
        cmd->add_option("--deadline-hours", o->deadline_hours, "Train within this many hours");
        cmd->add_option("--budget-usd", o->budget_usd, "Spend at most this many US dollars");
        cmd->add_option("--prices", o->prices,
                        "Prices file replacing the shipped prices and power (docs/planning.md)");
        cmd->add_flag("--all", o->all, "Also list every candidate");
        cmd->add_option("--format", o->format, "table, csv or json")
            ->check(CLI::IsMember({"table", "csv", "json"}));
        cmd->callback([o] { run(*o); });
    }};

} // namespace
} // namespace iterscope::cli
