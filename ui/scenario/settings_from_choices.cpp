#include "scenario/settings_from_choices.h"

#include "hardware/profile_loader.h"
#include "model/scenario.h"
#include "util/error.h"

#include <algorithm>
#include <charconv>
#include <string>

namespace iterscope::ui {
namespace {
int parseFlagInt(const std::string& flag, const std::string& text, int lo, int hi) {
    int value = 0;
    const auto* end = text.data() + text.size();
    const auto [ptr, ec] = std::from_chars(text.data(), end, value);
    if (ec != std::errc() || ptr != end || value < lo || value > hi)
        throw InputError(flag + ": '" + text + "' is not a whole number from " +
                         std::to_string(lo) + " to " + std::to_string(hi));
    return value;
}
// Without --gpus-per-node the GUI opens on a whole node of the system, like the CLI; a system
// that does not load is the panel's to report, so the node of a DGX stands in for it here.
int systemGpusPerNode(const std::string& system) {
    constexpr int kWholeDgx = 8;
    try {
        return std::clamp(loadSystemProfile(system).gpus_per_node, 1,
                          static_cast<int>(ScenarioSettings::kMaxGpus));
    } catch (const InputError&) {
        return kWholeDgx;
    }
}
} // namespace

ScenarioSettings settingsFromChoices(const ScenarioChoices& f) {
    ScenarioSettings s;
    s.network = QString::fromStdString(f.network);
    s.gpu = QString::fromStdString(f.gpu);
    s.system = QString::fromStdString(f.system);
    s.software = QString::fromStdString(f.software);
    s.nodes = parseFlagInt("--nodes", f.nodes, 1, ScenarioSettings::kMaxGpus);
    s.gpus_per_node = f.gpus_per_node.empty() ? systemGpusPerNode(f.system)
                                              : parseFlagInt("--gpus-per-node", f.gpus_per_node, 1,
                                                             ScenarioSettings::kMaxGpus);
    if (s.totalGpus() > ScenarioSettings::kMaxGpus)
        throw InputError("--nodes × --gpus-per-node: at most " +
                         std::to_string(ScenarioSettings::kMaxGpus) + " GPUs");
    s.batch = parseFlagInt("--batch", f.batch, 1, ScenarioSettings::kMaxBatch);
    if (f.image < 0 || f.image > 4096)
        throw InputError("--image: must be from 0 to 4096");
    s.image = static_cast<int>(f.image);
    s.precision = QString::fromStdString(f.precision);
    s.sync = QString::fromStdString(f.sync);
    s.allreduce = QString::fromStdString(f.allreduce);
    if (f.overlap != "on" && f.overlap != "off")
        throw InputError("--overlap: '" + f.overlap + "' is neither on nor off");
    s.overlap = f.overlap == "on";
    if (!(f.bucket_mb > 0 && f.bucket_mb <= 4096))
        throw InputError("--bucket-mb: must be above 0 and at most 4096");
    s.bucket_mb = f.bucket_mb;
    requireLayout(f.layout, "--layout");
    requireDataSource(f.data, "--data");
    s.layout = QString::fromStdString(f.layout);
    s.data = QString::fromStdString(f.data);
    requireParallelStrategy(f.parallel, "--parallel");
    requirePipelineSchedule(f.schedule, "--schedule");
    s.parallel = QString::fromStdString(f.parallel);
    s.schedule = QString::fromStdString(f.schedule);
    s.pipeline_stages = parseFlagInt("--pipeline-stages", std::to_string(f.pipeline_stages), 1,
                                     ScenarioSettings::kMaxGpus);
    s.micro_batches = parseFlagInt("--micro-batches", std::to_string(f.micro_batches), 0,
                                   ScenarioSettings::kMaxMicroBatches);
    return s;
}

} // namespace iterscope::ui
