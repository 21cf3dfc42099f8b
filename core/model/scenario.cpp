#include "model/scenario.h"

#include "util/error.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <string>
#include <utility>

namespace iterscope {

namespace {

constexpr std::array<std::pair<SyncStrategy, const char*>, 7> kSyncNames{{
    {SyncStrategy::None, "none"},
    {SyncStrategy::AllreduceNccl, "allreduce-nccl"},
    {SyncStrategy::AllreduceCopy, "allreduce-copy"},
    {SyncStrategy::PsCpu, "ps-cpu"},
    {SyncStrategy::PsGpu, "ps-gpu"},
    {SyncStrategy::DistributedReplicated, "distributed-replicated"},
    {SyncStrategy::PsAsync, "ps-async"},
}};

constexpr std::array<std::pair<ParallelStrategy, const char*>, 6> kParallelNames{{
    {ParallelStrategy::Data, "data"},
    {ParallelStrategy::Hybrid, "hybrid"},
    {ParallelStrategy::Pipeline, "pipeline"},
    {ParallelStrategy::Zero1, "zero1"},
    {ParallelStrategy::Zero2, "zero2"},
    {ParallelStrategy::Zero3, "zero3"},
}};

constexpr std::array<std::pair<PipelineSchedule, const char*>, 2> kScheduleNames{{
    {PipelineSchedule::GPipe, "gpipe"},
    {PipelineSchedule::OneFOneB, "1f1b"},
}};

constexpr std::array<std::pair<AllreduceAlgorithm, const char*>, 6> kAlgorithmNames{{
    {AllreduceAlgorithm::Auto, "auto"},
    {AllreduceAlgorithm::Ring, "ring"},
    {AllreduceAlgorithm::Tree, "tree"},
    {AllreduceAlgorithm::Hierarchical, "hierarchical"},
    {AllreduceAlgorithm::Nvls, "nvls"},
    {AllreduceAlgorithm::CollNet, "collnet"},
}};

constexpr std::array<std::pair<ActivationLayout, const char*>, 3> kLayoutNames{{
    {ActivationLayout::Auto, "auto"},
    {ActivationLayout::NCHW, "nchw"},
    {ActivationLayout::NHWC, "nhwc"},
}};

constexpr std::array<std::pair<DataSource, const char*>, 3> kDataNames{{
    {DataSource::Auto, "auto"},
    {DataSource::Real, "real"},
    {DataSource::Synthetic, "synthetic"},
}};

template <typename Value, typename Table> const char* nameIn(const Table& table, Value v) {
    for (const auto& [value, name] : table)
        if (value == v)
            return name;
    return table[0].second;
}

template <typename Value, typename Table>
std::optional<Value> parseIn(const Table& table, std::string_view s) {
    for (const auto& [value, name] : table)
        if (s == name)
            return value;
    return std::nullopt;
}

// Far beyond any real run, yet small enough that products of these limits and per-sample
// counts stay well inside double precision and 64-bit byte counts.
constexpr int64_t kMaxBatchPerGpu = 1 << 20;
constexpr int kMaxNodes = 1 << 16;
constexpr int kMaxGpusPerNode = 1024;
constexpr double kMaxBucketMb = 1 << 20;
constexpr int kMaxPipelineStages = 1024;

// `kind` and `id` name the profile ("gpu", "v100-sxm2-16gb"); the message is built only
// on failure, since predict() validates on every call.
void requirePositive(double value, const char* kind, const std::string& id, const char* field) {
    if (!(value > 0) || !std::isfinite(value))
        throw InputError(std::string(kind) + " '" + id + "': " + field +
                         " must be a positive number");
}

} // namespace

const char* syncStrategyName(SyncStrategy s) {
    for (const auto& [value, name] : kSyncNames)
        if (value == s)
            return name;
    return "none";
}

std::optional<SyncStrategy> parseSyncStrategy(std::string_view s) {
    for (const auto& [value, name] : kSyncNames)
        if (s == name)
            return value;
    return std::nullopt;
}

const char* allreduceAlgorithmName(AllreduceAlgorithm a) {
    for (const auto& [value, name] : kAlgorithmNames)
        if (value == a)
            return name;
    return "auto";
}

std::optional<AllreduceAlgorithm> parseAllreduceAlgorithm(std::string_view s) {
    for (const auto& [value, name] : kAlgorithmNames)
        if (s == name)
            return value;
    return std::nullopt;
}

const char* layoutName(ActivationLayout l) {
    return nameIn(kLayoutNames, l);
}

std::optional<ActivationLayout> parseLayout(std::string_view s) {
    return parseIn<ActivationLayout>(kLayoutNames, s);
}

const char* dataSourceName(DataSource d) {
    return nameIn(kDataNames, d);
}

std::optional<DataSource> parseDataSource(std::string_view s) {
    return parseIn<DataSource>(kDataNames, s);
}

const char* parallelStrategyName(ParallelStrategy p) {
    return nameIn(kParallelNames, p);
}

std::optional<ParallelStrategy> parseParallelStrategy(std::string_view s) {
    return parseIn<ParallelStrategy>(kParallelNames, s);
}

const char* pipelineScheduleName(PipelineSchedule p) {
    return nameIn(kScheduleNames, p);
}

std::optional<PipelineSchedule> parsePipelineSchedule(std::string_view s) {
    return parseIn<PipelineSchedule>(kScheduleNames, s);
}

int Scenario::stages() const {
    return parallel == ParallelStrategy::Pipeline ? std::max(pipeline_stages, 1) : 1;
}

int Scenario::microBatches() const {
    if (parallel != ParallelStrategy::Pipeline)
        return 1;
    if (micro_batches > 0)
        return micro_batches;
    // The replica's batch is batch_per_gpu x stages: the most micro-batches up to the
    // default that divide it evenly (batch_per_gpu x stages itself divides by stages).
    const int64_t replica_batch = batch_per_gpu * stages();
    for (int64_t m = int64_t{kDefaultMicroBatchesPerStage} * stages(); m > 1; --m)
        if (replica_batch % m == 0)
            return static_cast<int>(m);
    return 1;
}

int64_t Scenario::kernelBatch() const {
    if (parallel != ParallelStrategy::Pipeline)
        return batch_per_gpu;
    return std::max<int64_t>(1, batch_per_gpu * stages() / microBatches());
}

bool Scenario::nhwc() const {
    if (layout != ActivationLayout::Auto)
        return layout == ActivationLayout::NHWC;
    switch (precision) {
    case Precision::AMP:
    case Precision::BF16:
        return software.nhwc_amp;
    case Precision::TF32:
        return software.nhwc_tf32;
    case Precision::FP32:
        return false;
    }
    return false;
}

Augmentation Scenario::augmentationInEffect() const {
    if (augmentation)
        return *augmentation;
    return network ? network->network.augmentation : Augmentation::Standard;
}

bool Scenario::realData() const {
    return data == DataSource::Auto ? software.default_real_data : data == DataSource::Real;
}

namespace {
[[noreturn]] void unknownChoice(std::string_view text, std::string_view source,
                                const std::string& accepted) {
    throw InputError(std::string(source) + ": unknown '" + std::string(text.substr(0, 40)) + "' (" +
                     accepted + ")");
}

template <typename Table> std::string namesOf(const Table& table) {
    std::string names;
    for (const auto& [value, name] : table)
        names += (names.empty() ? "" : ", ") + std::string(name);
    return names;
}
} // namespace

Precision requirePrecision(std::string_view text, std::string_view source) {
    if (const auto p = parsePrecision(text))
        return *p;
    unknownChoice(text, source, "fp32, tf32, amp or bf16");
}

SyncStrategy requireSyncStrategy(std::string_view text, std::string_view source) {
    if (const auto s = parseSyncStrategy(text))
        return *s;
    unknownChoice(text, source, namesOf(kSyncNames));
}

AllreduceAlgorithm requireAllreduceAlgorithm(std::string_view text, std::string_view source) {
    if (const auto a = parseAllreduceAlgorithm(text))
        return *a;
    unknownChoice(text, source, namesOf(kAlgorithmNames));
}

ActivationLayout requireLayout(std::string_view text, std::string_view source) {
    if (const auto l = parseLayout(text))
        return *l;
    unknownChoice(text, source, namesOf(kLayoutNames));
}

DataSource requireDataSource(std::string_view text, std::string_view source) {
    if (const auto d = parseDataSource(text))
        return *d;
    unknownChoice(text, source, namesOf(kDataNames));
}

ParallelStrategy requireParallelStrategy(std::string_view text, std::string_view source) {
    if (const auto p = parseParallelStrategy(text))
        return *p;
    unknownChoice(text, source, namesOf(kParallelNames));
}

PipelineSchedule requirePipelineSchedule(std::string_view text, std::string_view source) {
    if (const auto p = parsePipelineSchedule(text))
        return *p;
    unknownChoice(text, source, namesOf(kScheduleNames));
}

namespace {

bool isAllreduce(SyncStrategy s) {
    return s == SyncStrategy::AllreduceNccl || s == SyncStrategy::AllreduceCopy;
}

// The choices of a parallel strategy that cannot apply to this network, GPU count or
// exchange (docs/model.md "Parallel strategies").
void validateParallel(const Scenario& s) {
    const std::string name = parallelStrategyName(s.parallel);
    const int n = s.totalGpus();
    if (s.sync == SyncStrategy::PsAsync && s.parallel != ParallelStrategy::Data)
        throw InputError("scenario: ps-async parameter servers exchange whole gradients; "
                         "they apply to parallel strategy data, not " +
                         name);
    const Network& net = s.network->network;
    switch (s.parallel) {
    case ParallelStrategy::Data:
        return;
    case ParallelStrategy::Hybrid: {
        const bool has_fc = std::any_of(net.layers.begin(), net.layers.end(), [](const Layer& l) {
            return l.kind == LayerKind::FullyConnected && l.fc.flatten;
        });
        if (!has_fc)
            throw InputError("scenario: hybrid splits fully connected layers over a node's "
                             "GPUs, and '" +
                             net.name + "' has none");
        break;
    }
    case ParallelStrategy::Pipeline: {
        const int p = s.pipeline_stages;
        const auto layers = static_cast<int64_t>(
            std::count_if(net.layers.begin(), net.layers.end(),
                          [](const Layer& l) { return l.kind != LayerKind::Input; }));
        if (p < 1 || p > kMaxPipelineStages)
            throw InputError("scenario: pipeline stages " + std::to_string(p) + " is outside 1.." +
                             std::to_string(kMaxPipelineStages));
        if (p > layers)
            throw InputError("scenario: a pipeline of " + std::to_string(p) + " stages, but '" +
                             net.name + "' has only " + std::to_string(layers) + " layers");
        if (n % p != 0)
            throw InputError("scenario: " + std::to_string(n) +
                             " GPUs do not split into pipelines of " + std::to_string(p) +
                             " stages");
        const int g = s.gpus_per_node;
        if (p <= g ? g % p != 0 : p % g != 0)
            throw InputError("scenario: pipelines of " + std::to_string(p) +
                             " stages do not fill nodes of " + std::to_string(g) +
                             " GPUs evenly (use a divisor or a multiple of the GPUs per node)");
        const int64_t replica_batch = s.batch_per_gpu * p;
        if (s.micro_batches < 0 || s.micro_batches > replica_batch ||
            (s.micro_batches > 0 && replica_batch % s.micro_batches != 0))
            throw InputError("scenario: " + std::to_string(s.micro_batches) +
                             " micro-batches do not divide a pipeline's batch of " +
                             std::to_string(replica_batch) + " (batch per GPU x stages)");
        if (n > p && !isAllreduce(s.sync) && s.sync != SyncStrategy::None)
            throw InputError("scenario: pipeline replicas sum their gradients by all-reduce; "
                             "use sync allreduce-nccl or allreduce-copy, not " +
                             std::string(syncStrategyName(s.sync)));
        return;
    }
    case ParallelStrategy::Zero1:
    case ParallelStrategy::Zero2:
    case ParallelStrategy::Zero3:
        if (n < 2)
            throw InputError("scenario: " + name +
                             " shards over the GPUs and needs at least 2, not 1");
        break;
    }
    if (n > 1 && !isAllreduce(s.sync))
        throw InputError("scenario: " + name +
                         " exchanges gradients by collectives; use sync allreduce-nccl or "
                         "allreduce-copy, not " +
                         std::string(syncStrategyName(s.sync)));
}

} // namespace

void validateScenario(const Scenario& s) {
    if (!s.network || s.network->network.layers.empty() ||
        s.network->analysis.layers.size() != s.network->network.layers.size())
        throw InputError("scenario: no analyzed network");
    if (s.batch_per_gpu < 1 || s.batch_per_gpu > kMaxBatchPerGpu)
        throw InputError("scenario: batch per GPU " + std::to_string(s.batch_per_gpu) +
                         " is outside 1.." + std::to_string(kMaxBatchPerGpu));
    if (s.nodes < 1 || s.nodes > kMaxNodes)
        throw InputError("scenario: nodes " + std::to_string(s.nodes) + " is outside 1.." +
                         std::to_string(kMaxNodes));
    if (s.nodes > s.system.max_nodes)
        throw InputError("system '" + s.system.id + "': has at most " +
                         std::to_string(s.system.max_nodes) + " node(s), not " +
                         std::to_string(s.nodes));
    if (s.gpus_per_node < 1 || s.gpus_per_node > kMaxGpusPerNode)
        throw InputError("scenario: GPUs per node " + std::to_string(s.gpus_per_node) +
                         " is outside 1.." + std::to_string(kMaxGpusPerNode));
    if (s.gpus_per_node > s.system.gpus_per_node)
        throw InputError("system '" + s.system.id + "': holds " +
                         std::to_string(s.system.gpus_per_node) + " GPU(s) per node, not " +
                         std::to_string(s.gpus_per_node));
    if (!(s.bucket_mb > 0) || !(s.bucket_mb <= kMaxBucketMb))
        throw InputError("scenario: bucket size must be in (0, " +
                         std::to_string(static_cast<int64_t>(kMaxBucketMb)) + "] MB");
    if (s.ps_count < 0 || s.ps_count > s.nodes)
        throw InputError("scenario: parameter servers " + std::to_string(s.ps_count) +
                         " must be between 0 (one per node) and the node count");

    if (s.nodes > 1 && s.sync != SyncStrategy::None &&
        (s.system.nics_per_node < 1 || !(s.system.nic_gbps > 0)))
        throw InputError("system '" + s.system.id + "': has no network between nodes (" +
                         std::to_string(s.nodes) + " nodes asked for)");

    if (s.gpu.sm_count < 1)
        throw InputError("gpu '" + s.gpu.id + "': sm_count must be at least 1");
    const char* gpu = "gpu";
    requirePositive(s.gpu.fp32_tflops, gpu, s.gpu.id, "fp32_tflops");
    requirePositive(s.gpu.memory_bandwidth_gbps, gpu, s.gpu.id, "memory_bandwidth_gbps");
    requirePositive(static_cast<double>(s.gpu.memory_bytes), gpu, s.gpu.id, "memory_bytes");

    const char* sw = "software";
    const std::string& sw_id = s.software.id;
    requirePositive(s.software.conv_efficiency, sw, sw_id, "conv_efficiency");
    requirePositive(s.software.fc_efficiency, sw, sw_id, "fc_efficiency");
    requirePositive(s.software.tensor_core_efficiency, sw, sw_id, "tensor_core_efficiency");
    requirePositive(s.software.memory_efficiency, sw, sw_id, "memory_efficiency");
    requirePositive(s.software.nccl_efficiency, sw, sw_id, "nccl_efficiency");
    requirePositive(s.software.network_efficiency, sw, sw_id, "network_efficiency");
    requirePositive(s.software.memcpy_efficiency, sw, sw_id, "memcpy_efficiency");
    requirePositive(s.software.winograd_speedup, sw, sw_id, "winograd_speedup");
    if (s.software.gemm_tile_m < 1 || s.software.gemm_tile_n < 1)
        throw InputError("software '" + sw_id +
                         "': gemm_tile_m and gemm_tile_n must be at least 1");
    validateParallel(s);
}

} // namespace iterscope
