// Planning a training run (docs/planning.md): every configuration of GPU, system, GPU
// count, batch, precision and gradient exchange that fits in memory, each with its time to
// train, cost and energy; the Pareto front of time against cost, and the fastest and the
// cheapest configurations that meet the user's constraints. A loop around predict(), as a
// sweep is; the model stays a pure function.
#pragma once

#include "model/scenario.h"

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace iterscope {

inline constexpr int64_t kImageNetTrainImages = 1281167; // ILSVRC-2012 training set
inline constexpr int kDefaultEpochs = 90;                // the classic ResNet schedule
// Layouts are enumerated up to this many GPUs unless max_gpus says otherwise; the GUI's
// scenario panel holds no more, so every point of the Plan tab can become its scenario.
inline constexpr int kDefaultPlanMaxGpus = 1024;
// Batches per GPU are the powers of two up to this (the GUI's largest batch).
inline constexpr int64_t kPlanMaxBatchPerGpu = 1024;
// Goyal et al., "Accurate, Large Minibatch SGD: Training ImageNet in 1 Hour" (2017,
// arXiv:1706.02677) kept ResNet-50's ImageNet accuracy up to a global batch of 8,192 with
// linear learning-rate scaling and warm-up; beyond it accuracy fell. A plan that picks a
// larger global batch says so.
inline constexpr int64_t kLargeGlobalBatch = 8192;
// What the CLI's plan and the GUI's Plan tab bound the global batch to unless told
// otherwise (--max-global-batch 0 lifts it): without a bound, the fastest point of a default
// plan trained with global batches so large that it would not reach the same accuracy.
inline constexpr int64_t kDefaultMaxGlobalBatch = kLargeGlobalBatch;

struct PlanConstraints {
    int max_gpus = kDefaultPlanMaxGpus; // also bounds the layouts plan() enumerates
    std::optional<int64_t> max_global_batch;
    std::optional<double> deadline_hours;
    std::optional<double> budget_usd;
};

struct PlanRequest {
    std::shared_ptr<const AnalyzedNetwork> network;
    SoftwareProfile software;
    std::vector<GpuProfile> gpus;       // prices and power as they should be used
    std::vector<SystemProfile> systems; // each GPU is paired with the systems it fits
    std::vector<Precision> precisions;  // empty: all; each only where the GPU has it
    std::vector<SyncStrategy> syncs;    // empty: every strategy that applies
    // Parallel strategies to try; empty: data parallelism, and every other one that applies
    // where data parallelism does not fit the batch (the non-data strategies exchange by
    // NCCL all-reduce, so they come only where allreduce-nccl is tried).
    std::vector<ParallelStrategy> parallels;
    int64_t dataset_images = kImageNetTrainImages;
    int epochs = kDefaultEpochs;
    PlanConstraints constraints;
    // Scenario choices the plan does not vary.
    AllreduceAlgorithm allreduce = AllreduceAlgorithm::Auto;
    bool overlap = true;
    double bucket_mb = 25;
    int threads = 0; // 0: every core
};

struct PlanPoint {
    int gpu = 0;    // index into PlanRequest::gpus
    int system = 0; // index into PlanRequest::systems
    int nodes = 1;
    int gpus_per_node = 1;
    int64_t batch_per_gpu = 1;
    Precision precision = Precision::FP32;
    SyncStrategy sync = SyncStrategy::None;
    ParallelStrategy parallel = ParallelStrategy::Data;
    int pipeline_stages = 1; // stages of a pipeline (1 for the other strategies)
    double iteration_ms = 0;
    double images_per_second = 0;
    double hours = 0;               // epochs x images / images_per_second / 3600
    std::optional<double> cost_usd; // hours x GPUs x price; none without a price
    double energy_kwh = 0;
    double gpu_busy_share = 0; // of the iteration each GPU computes (forward, backward, update)
    // The prediction's error band (core/validation/error_band.h), half its width in log
    // space: the throughput lies within exp(-w)..exp(w) of the predicted one, so the hours,
    // the cost and the energy, which all scale with the time, within the same factors.
    double band_log = 0;

    int totalGpus() const { return nodes * gpus_per_node; }
    // The band's bounds on a figure that scales with the run's time.
    double low(double figure) const { return figure * std::exp(-band_log); }
    double high(double figure) const { return figure * std::exp(band_log); }
    int64_t globalBatch() const { return batch_per_gpu * totalGpus(); }
};

// What the constraints leave: indices into the candidates.
struct PlanSelection {
    std::vector<std::size_t> pareto; // by hours ascending, cost descending
    std::optional<std::size_t> fastest;
    std::optional<std::size_t> cheapest;
    std::size_t meeting_constraints = 0;
    std::size_t priced = 0; // of those meeting the constraints, how many have a price
};

struct PlanResult {
    std::vector<PlanPoint> candidates; // every configuration that fits, in enumeration order
    PlanSelection selection;
};

// Throws InputError for an empty GPU or system list, a dataset or epoch count out of range,
// no analyzed network, and for profiles predict() refuses.
PlanResult plan(const PlanRequest& request);

// The pieces, for the GUI (which re-selects on every constraint change without predicting
// again) and the tests.
bool meetsConstraints(const PlanPoint& point, const PlanConstraints& constraints);
// Among the candidates that meet the constraints: the front and the cheapest rank only the
// priced ones; the fastest is the fastest, priced or not (unless a budget is set, which only
// a priced candidate can be shown to meet).
PlanSelection selectPlan(const std::vector<PlanPoint>& candidates,
                         const PlanConstraints& constraints);
// Indices of the candidates no other candidate beats on both hours and cost (ties kept once),
// by hours ascending. Candidates without a cost are left out.
std::vector<std::size_t> paretoFront(const std::vector<PlanPoint>& candidates,
                                     const std::vector<std::size_t>& among);
// When selectPlan() finds nothing: one sentence saying which constraint to relax and how far.
std::string relaxAdvice(const std::vector<PlanPoint>& candidates,
                        const PlanConstraints& constraints);

// The configurations plan() tries for one GPU in one system, without the batch and precision.
struct Layout {
    int nodes = 1;
    int gpus_per_node = 1;
    SyncStrategy sync = SyncStrategy::None;
    ParallelStrategy parallel = ParallelStrategy::Data;
    int pipeline_stages = 1;
};
// One node with 1, 2, 4, ... GPUs up to the system's, then 2, 4, 8, ... full nodes, each with
// every exchange that applies (none for one GPU; distributed-replicated only across nodes)
// under data parallelism, and with allreduce-nccl the other parallel strategies among
// `parallels` (empty: all): hybrid, pipelines of 2, 4 and 8 stages that divide the GPUs,
// ZeRO 1-3. Whether one applies to the network (hybrid needs a fully connected layer, a
// pipeline enough layers) plan() checks and skips what does not.
std::vector<Layout>
planLayouts(const SystemProfile& system, int max_gpus, const std::vector<SyncStrategy>& syncs,
            const std::vector<ParallelStrategy>& parallels = {ParallelStrategy::Data});
// The precisions among `wanted` (all three when empty) the GPU has hardware for: fp32 always,
// tf32 with TF32 tensor cores, amp with FP16 tensor cores or fast FP16.
std::vector<Precision> planPrecisions(const GpuProfile& gpu, const std::vector<Precision>& wanted);

} // namespace iterscope
