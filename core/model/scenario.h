// One what-if question: a network on hardware with a training set-up. A value type; the
// GUI edits one, the CLI builds one from flags, sweeps copy and vary one.
#pragma once

#include "hardware/hardware.h"
#include "network/analysis.h"
#include "network/network.h"
#include "util/precision.h"

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace iterscope {

enum class SyncStrategy {
    None,                  // one GPU, or no exchange at all
    AllreduceNccl,         // replicated, NCCL all-reduce
    AllreduceCopy,         // replicated, device-to-device copies without NCCL
    PsCpu,                 // parameter server on the host CPU
    PsGpu,                 // parameters sharded over the GPUs
    DistributedReplicated, // local aggregation, then parameter servers across nodes
    PsAsync,               // parameter servers on the hosts' CPUs, no barrier between workers
};

// What each GPU computes and holds (DESIGN.md "The model" 8; docs/model.md "Parallel
// strategies"). Data: every GPU the whole network on its own samples (the default).
enum class ParallelStrategy {
    Data,
    Hybrid,   // convolutions data-parallel, fully connected layers split over a node's GPUs
    Pipeline, // the network cut into stages on consecutive GPUs, micro-batches flow through
    Zero1,    // optimizer state sharded over the GPUs
    Zero2,    // and gradients
    Zero3,    // and parameters (PyTorch FSDP full sharding)
};
// The order a pipeline stage runs its micro-batches: GPipe, every forward then every
// backward; 1F1B (PipeDream-Flush), one forward then one backward once the pipe is full.
enum class PipelineSchedule { GPipe, OneFOneB };

// NCCL's all-reduce algorithms: rings, double binary trees across nodes (chains inside),
// the hierarchical reduce-inside-then-across, NVLS (the reduction done by an NVLink SHARP
// switch) and CollNet (by SHARP InfiniBand switches).
enum class AllreduceAlgorithm { Auto, Ring, Tree, Hierarchical, Nvls, CollNet };

// Memory layout of activations on tensor cores. Auto: the software profile's.
enum class ActivationLayout { Auto, NCHW, NHWC };
// Where the images come from. Real images are decoded and augmented by the host (or by
// DALI on the GPU); synthetic ones are made once on the GPU. Auto: the software profile's
// benchmark default.
enum class DataSource { Auto, Real, Synthetic };

const char* syncStrategyName(SyncStrategy s); // "allreduce-nccl", ...
std::optional<SyncStrategy> parseSyncStrategy(std::string_view s);
const char* allreduceAlgorithmName(AllreduceAlgorithm a);
std::optional<AllreduceAlgorithm> parseAllreduceAlgorithm(std::string_view s);
const char* layoutName(ActivationLayout l); // "auto", "nchw", "nhwc"
std::optional<ActivationLayout> parseLayout(std::string_view s);
const char* dataSourceName(DataSource d); // "auto", "real", "synthetic"
std::optional<DataSource> parseDataSource(std::string_view s);
const char* parallelStrategyName(ParallelStrategy p); // "data", "hybrid", ... "zero3"
std::optional<ParallelStrategy> parseParallelStrategy(std::string_view s);
const char* pipelineScheduleName(PipelineSchedule p); // "gpipe", "1f1b"
std::optional<PipelineSchedule> parsePipelineSchedule(std::string_view s);

// The same, for values a person typed: an unknown one throws InputError naming where it
// came from (`source`: "--sync" on the command line, "sync" in the GUI or a session) and
// the accepted values, so the CLI and the GUI word a mistake alike.
Precision requirePrecision(std::string_view text, std::string_view source);
SyncStrategy requireSyncStrategy(std::string_view text, std::string_view source);
AllreduceAlgorithm requireAllreduceAlgorithm(std::string_view text, std::string_view source);
ActivationLayout requireLayout(std::string_view text, std::string_view source);
DataSource requireDataSource(std::string_view text, std::string_view source);
ParallelStrategy requireParallelStrategy(std::string_view text, std::string_view source);
PipelineSchedule requirePipelineSchedule(std::string_view text, std::string_view source);

// A network together with its analysis, shared immutably between threads.
struct AnalyzedNetwork {
    Network network;
    NetworkAnalysis analysis;
    std::string source; // zoo id or file path it came from
    // What the reader had to assume (unknown ONNX ops imported as zero-cost identities):
    // kept with the network, so every front end that predicts with it can say so.
    std::vector<std::string> import_warnings;
};

struct Scenario {
    std::shared_ptr<const AnalyzedNetwork> network;
    GpuProfile gpu;
    SystemProfile system;
    SoftwareProfile software;
    int64_t batch_per_gpu = 64;
    int nodes = 1;
    int gpus_per_node = 1;
    Precision precision = Precision::FP32;
    SyncStrategy sync = SyncStrategy::AllreduceNccl;
    AllreduceAlgorithm allreduce = AllreduceAlgorithm::Auto;
    bool overlap = true;   // gradient buckets overlap the rest of backward
    double bucket_mb = 25; // gradient bucket size (PyTorch DDP's default)
    int ps_count = 0;      // distributed-replicated: 0 = one per node
    ActivationLayout layout = ActivationLayout::Auto;
    DataSource data = DataSource::Auto;
    ParallelStrategy parallel = ParallelStrategy::Data;
    // Pipeline only. A replica of `pipeline_stages` GPUs trains on batch_per_gpu x stages
    // samples an iteration (the global batch stays batch_per_gpu x GPUs), cut into
    // `micro_batches` equal micro-batches; 0: kDefaultMicroBatchesPerStage per stage, or
    // the most below that which divide the replica's batch.
    int pipeline_stages = 2;
    int micro_batches = 0;
    PipelineSchedule schedule = PipelineSchedule::OneFOneB;
    // How the host augments each real image; unset: the network's published recipe.
    std::optional<Augmentation> augmentation;

    int totalGpus() const { return nodes * gpus_per_node; }
    // Stages and micro-batches in effect: 1 and 1 unless the strategy is a pipeline.
    int stages() const;
    int microBatches() const;
    // Samples each kernel runs on: a micro-batch for pipelines, else the batch per GPU.
    int64_t kernelBatch() const;
    // The layout and data source in effect once Auto is resolved by the software profile.
    bool nhwc() const;
    bool realData() const;
    Augmentation augmentationInEffect() const;
};

// GPipe's advice (Huang et al. 2019): at least four micro-batches per stage keep the
// bubble small.
inline constexpr int kDefaultMicroBatchesPerStage = 4;

// Throws InputError for impossible set-ups (0 GPUs, more GPUs per node than the system
// has, absurd batch, several nodes with no network between them, ...) and for a parallel
// strategy that cannot apply (a pipeline with more stages than layers, hybrid with no fully
// connected layer, ZeRO on one GPU, ...).
void validateScenario(const Scenario& s);

} // namespace iterscope
