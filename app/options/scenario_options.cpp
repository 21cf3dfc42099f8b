#include "options/scenario_options.h"

#include "hardware/profile_loader.h"
#include "io/network_loader.h"
#include "util/error.h"

#include <algorithm>
#include <charconv>

namespace iterscope {

namespace {

constexpr std::size_t kMaxListValues = 4096;
// Generous bounds checked here so that the error names the flag; validateScenario applies
// the system's own limits afterwards.
constexpr int64_t kMaxNodes = 1 << 16;
constexpr int64_t kMaxGpusPerNode = 1024;
constexpr int64_t kMaxBatch = 1 << 20;

int64_t single(const std::string& text, const std::string& flag, int64_t min, int64_t max) {
    const auto values = parseIntegerList(text, flag, min, max);
    if (values.size() != 1)
        throw InputError(flag + ": one value expected, got '" + text.substr(0, 60) +
                         "' (lists are for sweep)");
    return values.front();
}

} // namespace

void addScenarioFlags(CLI::App* command, ScenarioFlags& flags) {
    command->add_option("--network", flags.network,
                        "Built-in network id or .onnx/.prototxt/.json file");
    command->add_option("--gpu", flags.gpu, "GPU profile id or JSON file");
    command->add_option("--system", flags.system, "System profile id or JSON file");
    command->add_option("--software", flags.software, "Software platform id or JSON file");
    command->add_option("--nodes", flags.nodes, "Number of nodes");
    command->add_option("--gpus-per-node", flags.gpus_per_node,
                        "GPUs used per node (default: all that one node of --system holds)");
    command->add_option("--batch", flags.batch, "Minibatch per GPU");
    command->add_option("--image", flags.image, "Square input size (pixels)");
    command->add_option("--precision", flags.precision,
                        "fp32, tf32, amp (FP16 with loss scaling) or bf16");
    command->add_option("--sync", flags.sync,
                        "Gradient exchange: none, allreduce-nccl, allreduce-copy, ps-cpu, ps-gpu, "
                        "distributed-replicated, ps-async (default: the software's)");
    command->add_option("--allreduce", flags.allreduce,
                        "auto, ring, tree, hierarchical, nvls (NVLink SHARP switches) or "
                        "collnet (SHARP InfiniBand switches)");
    command->add_option("--overlap", flags.overlap,
                        "Overlap gradient exchange with backward: on|off");
    command->add_option("--bucket-mb", flags.bucket_mb, "Gradient bucket size in MB");
    command->add_option("--ps-count", flags.ps_count,
                        "Parameter servers across nodes (default: one per node for "
                        "distributed-replicated; one, on the first node, for ps-cpu and "
                        "ps-async)");
    command->add_option("--parallel", flags.parallel,
                        "Parallel strategy: data, hybrid, pipeline, zero1, zero2 or zero3 "
                        "(default data)");
    command->add_option("--pipeline-stages", flags.pipeline_stages,
                        "Pipeline stages per replica (--parallel pipeline; default 2)");
    command->add_option("--micro-batches", flags.micro_batches,
                        "Micro-batches per iteration (--parallel pipeline; default 4 per stage)");
    command->add_option("--schedule", flags.schedule, "Pipeline schedule: gpipe or 1f1b");
    command->add_option("--layout", flags.layout,
                        "Activation layout: auto (what the framework does by itself: NCHW in "
                        "PyTorch, NHWC for TensorFlow's and MXNet's 16-bit runs), nchw or nhwc "
                        "(channels-last)");
    command->add_option("--data", flags.data,
                        "Input images: auto (the software's), real (decoded by the host or "
                        "DALI, can cap the rate) or synthetic");
    command->add_option("--augmentation", flags.augmentation,
                        "Host augmentation of real images: auto (the network's recipe: "
                        "AutoAugment for EfficientNet, RandAugment for EfficientNetV2, else "
                        "standard), standard, autoaugment or randaugment");
    command->add_option("--nics-per-node", flags.nics_per_node,
                        "Network interfaces per node (default: the system's)");
    command->add_option("--nic-gbps", flags.nic_gbps,
                        "GB/s per NIC and direction, e.g. 12.5 for 100 Gb/s (default: the "
                        "system's)");
    command->add_option("--loader-workers", flags.loader_workers,
                        "Data-loader processes per GPU decoding real images (default: the "
                        "software's)");
}

std::vector<int64_t> parseIntegerList(const std::string& text, const std::string& flag, int64_t min,
                                      int64_t max) {
    std::vector<int64_t> values;
    std::size_t start = 0;
    while (true) {
        const std::size_t comma = text.find(',', start);
        const std::string item =
            text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
        int64_t v = 0;
        const char* end = item.data() + item.size();
        const auto [ptr, ec] = std::from_chars(item.data(), end, v);
        if (item.empty() || ec == std::errc::invalid_argument || ptr != end)
            throw InputError(flag + ": not an integer: '" + item.substr(0, 40) + "'");
        if (ec == std::errc::result_out_of_range || v < min || v > max)
            throw InputError(flag + ": " + item.substr(0, 40) + " is outside " +
                             std::to_string(min) + ".." + std::to_string(max));
        values.push_back(v);
        if (values.size() > kMaxListValues)
            throw InputError(flag + ": more than " + std::to_string(kMaxListValues) + " values");
        if (comma == std::string::npos)
            break;
        start = comma + 1;
    }
    return values;
}

Scenario buildScenario(const ScenarioFlags& flags, SweepAxes& axes) {
    for (const int64_t v : parseIntegerList(flags.nodes, "--nodes", 1, kMaxNodes))
        axes.nodes.push_back(static_cast<int>(v));
    if (!flags.gpus_per_node.empty())
        for (const int64_t v :
             parseIntegerList(flags.gpus_per_node, "--gpus-per-node", 1, kMaxGpusPerNode))
            axes.gpus_per_node.push_back(static_cast<int>(v));
    axes.batch = parseIntegerList(flags.batch, "--batch", 1, kMaxBatch);

    Scenario s;
    s.precision = requirePrecision(flags.precision, "--precision");
    s.allreduce = requireAllreduceAlgorithm(flags.allreduce, "--allreduce");
    if (flags.overlap != "on" && flags.overlap != "off")
        throw InputError("--overlap: expected on or off, got '" + flags.overlap.substr(0, 40) +
                         "'");
    s.overlap = flags.overlap == "on";
    s.bucket_mb = flags.bucket_mb;
    s.ps_count = flags.ps_count;
    s.layout = requireLayout(flags.layout, "--layout");
    s.data = requireDataSource(flags.data, "--data");
    if (flags.augmentation != "auto") {
        const auto a = parseAugmentation(flags.augmentation);
        if (!a)
            throw InputError("--augmentation: unknown '" + flags.augmentation.substr(0, 40) +
                             "' (auto, standard, autoaugment or randaugment)");
        s.augmentation = *a;
    }
    s.parallel = requireParallelStrategy(flags.parallel, "--parallel");
    s.schedule = requirePipelineSchedule(flags.schedule, "--schedule");
    // Checked here so that the error names the flag; validateScenario checks what the
    // network, the GPU count and the batch allow.
    if (flags.pipeline_stages < 1 || flags.pipeline_stages > 1024)
        throw InputError("--pipeline-stages: " + std::to_string(flags.pipeline_stages) +
                         " is outside 1..1024");
    if (flags.micro_batches < 0 || flags.micro_batches > kMaxBatch * 1024)
        throw InputError("--micro-batches: " + std::to_string(flags.micro_batches) +
                         " is outside 0.." + std::to_string(kMaxBatch * 1024));
    s.pipeline_stages = flags.pipeline_stages;
    s.micro_batches = flags.micro_batches;
    if (flags.image < 0 || flags.image > 8192)
        throw InputError("--image: " + std::to_string(flags.image) + " is outside 1..8192");

    s.gpu = loadGpuProfile(flags.gpu);
    s.system = loadSystemProfile(flags.system);
    // Without --gpus-per-node a node is used whole, whatever the system holds.
    if (axes.gpus_per_node.empty())
        axes.gpus_per_node.push_back(std::max(1, s.system.gpus_per_node));
    s.software = loadSoftwareProfile(flags.software);
    if (flags.nics_per_node < 0 || flags.nics_per_node > 64)
        throw InputError("--nics-per-node: " + std::to_string(flags.nics_per_node) +
                         " is outside 1..64");
    if (!(flags.nic_gbps >= 0 && flags.nic_gbps <= 10000))
        throw InputError("--nic-gbps: " + std::to_string(flags.nic_gbps) +
                         " is outside 0..10000 GB/s");
    if (!(flags.loader_workers >= 0 && flags.loader_workers <= 1024))
        throw InputError("--loader-workers: " + std::to_string(flags.loader_workers) +
                         " is outside 1..1024");
    if (flags.nics_per_node > 0)
        s.system.nics_per_node = flags.nics_per_node;
    if (flags.nic_gbps > 0)
        s.system.nic_gbps = flags.nic_gbps;
    if (flags.loader_workers > 0)
        s.software.loader_workers_per_gpu = flags.loader_workers;
    s.sync =
        requireSyncStrategy(flags.sync.empty() ? s.software.default_sync : flags.sync, "--sync");

    LoadOptions options;
    options.image = flags.image;
    s.network = loadNetwork(flags.network, options);
    s.nodes = axes.nodes.front();
    s.gpus_per_node = axes.gpus_per_node.front();
    s.batch_per_gpu = axes.batch.front();
    return s;
}

Scenario buildScenario(const ScenarioFlags& flags) {
    single(flags.nodes, "--nodes", 1, kMaxNodes);
    if (!flags.gpus_per_node.empty())
        single(flags.gpus_per_node, "--gpus-per-node", 1, kMaxGpusPerNode);
    single(flags.batch, "--batch", 1, kMaxBatch);
    SweepAxes axes;
    Scenario s = buildScenario(flags, axes);
    validateScenario(s);
    return s;
}

} // namespace iterscope
