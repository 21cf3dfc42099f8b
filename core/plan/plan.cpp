// plan(): enumerates the candidates and predicts each on all cores. Work is grouped by
// (GPU, precision, batch), the inputs of the per-layer kernel times, so each group computes
// its LayerPassTable once and shares it with every system, layout and exchange (as sweeps
// do); groups are handed out to threads one at a time, and results land in their group's
// slot, so the order of the candidates never depends on the threads.
#include "plan/plan.h"

#include "hardware/compatibility.h"
#include "model/memory_model.h"
#include "model/model.h"
#include "util/error.h"
#include "validation/error_band.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <map>
#include <mutex>
#include <thread>

namespace iterscope {

namespace {

constexpr int64_t kMaxDatasetImages = int64_t{1} << 40;
constexpr int kMaxEpochs = 100000;
constexpr double kSecondsPerHour = 3600;
constexpr double kWattsPerKilowatt = 1000;

bool hasTf32(const GpuProfile& g) {
    return g.tf32_tflops > 0 || g.measured_tf32_tflops > 0;
}
bool hasFastFp16(const GpuProfile& g) {
    return g.fp16_tensor_tflops > 0 || g.fp16_tflops > 0 || g.measured_fp16_tensor_tflops > 0;
}
// BF16 tensor cores came with Ampere (compute capability 8.0).
bool hasBf16(const GpuProfile& g) {
    return g.compute_capability >= 8.0 &&
           (g.fp16_tensor_tflops > 0 || g.measured_fp16_tensor_tflops > 0);
}

struct Group {
    int gpu = 0;
    Precision precision = Precision::FP32;
    int64_t batch = 1;
};

void fillOutcome(PlanPoint& point, const Prediction& p, const PlanRequest& request,
                 const GpuProfile& gpu, const SystemProfile& system) {
    point.iteration_ms = p.iteration_ms;
    point.images_per_second = p.images_per_second;
    point.hours = static_cast<double>(request.epochs) *
                  static_cast<double>(request.dataset_images) / p.images_per_second /
                  kSecondsPerHour;
    const double gpus = point.totalGpus();
    if (gpu.usd_per_gpu_hour)
        point.cost_usd = point.hours * gpus * *gpu.usd_per_gpu_hour;
    // A GPU draws its board power while it computes; waiting for the exchange, it is counted
    // as drawing nothing (docs/planning.md says what this leaves out).
    point.gpu_busy_share =
        p.iteration_ms > 0
            ? std::clamp((p.forward_ms + p.backward_ms + p.update_ms) / p.iteration_ms, 0.0, 1.0)
            : 0.0;
    const double watts =
        gpus * gpu.tdp_watts * point.gpu_busy_share + point.nodes * system.host_watts_per_node;
    point.energy_kwh = point.hours * watts / kWattsPerKilowatt;
}

// Every candidate of one group, in system, layout order.
std::vector<PlanPoint> planGroup(const PlanRequest& request, const Group& group,
                                 const std::vector<std::vector<int>>& systems_of_gpu,
                                 const std::vector<std::vector<Layout>>& layouts_of_system) {
    std::vector<PlanPoint> out;
    const std::vector<int>& systems = systems_of_gpu[static_cast<std::size_t>(group.gpu)];
    if (systems.empty())
        return out;
    const GpuProfile& gpu = request.gpus[static_cast<std::size_t>(group.gpu)];
    Scenario s;
    s.network = request.network;
    s.gpu = gpu;
    s.system = request.systems[static_cast<std::size_t>(systems.front())];
    s.software = request.software;
    s.batch_per_gpu = group.batch;
    s.precision = group.precision;
    s.sync = SyncStrategy::None;
    s.allreduce = request.allreduce;
    s.overlap = request.overlap;
    s.bucket_mb = request.bucket_mb;
    // Under data parallelism memory depends on the GPU, precision and batch only: a batch
    // that does not fit is never a candidate. The sharding and splitting strategies are
    // checked one by one.
    const LayerPassTable table = layerPassTable(s);
    const bool data_fits = estimateMemory(s, table.memory).fits;
    // Unless strategies are named, the others are tried only where data parallelism cannot
    // hold the batch: for a CNN it is usually the fastest where it fits, and the pipelines and
    // shardings would triple the candidates (and the time) for points that never win.
    const bool others = !request.parallels.empty() || !data_fits;
    std::map<int, LayerPassTable> pipeline_tables; // by stages: a micro-batch's layer times
    for (const int system_index : systems) {
        const SystemProfile& system = request.systems[static_cast<std::size_t>(system_index)];
        s.system = system;
        for (const Layout& layout : layouts_of_system[static_cast<std::size_t>(system_index)]) {
            if (layout.parallel == ParallelStrategy::Data ? !data_fits : !others)
                continue;
            s.nodes = layout.nodes;
            s.gpus_per_node = layout.gpus_per_node;
            s.sync = layout.sync;
            s.parallel = layout.parallel;
            s.pipeline_stages = layout.pipeline_stages;
            const LayerPassTable* passes = &table;
            if (layout.parallel != ParallelStrategy::Data) {
                try {
                    validateScenario(s); // a strategy this network cannot take
                } catch (const InputError&) {
                    continue;
                }
                if (layout.parallel == ParallelStrategy::Pipeline) {
                    auto it = pipeline_tables.find(layout.pipeline_stages);
                    if (it == pipeline_tables.end())
                        it = pipeline_tables.emplace(layout.pipeline_stages, layerPassTable(s))
                                 .first;
                    passes = &it->second;
                }
            }
            const Prediction p = predict(s, *passes, PredictDetail::Totals);
            if (!p.fits_in_memory || !(p.images_per_second > 0))
                continue;
            PlanPoint& point = out.emplace_back();
            point.gpu = group.gpu;
            point.system = system_index;
            point.nodes = layout.nodes;
            point.gpus_per_node = layout.gpus_per_node;
            point.batch_per_gpu = group.batch;
            point.precision = group.precision;
            point.sync = layout.sync;
            point.parallel = layout.parallel;
            point.pipeline_stages = s.stages();
            fillOutcome(point, p, request, gpu, system);
            point.band_log = errorBandHalfWidthLog(shippedErrorBands(), s);
        }
    }
    return out;
}

void validateRequest(const PlanRequest& r) {
    if (!r.network)
        throw InputError("plan: no network");
    if (r.gpus.empty())
        throw InputError("plan: no GPU to plan with");
    if (r.systems.empty())
        throw InputError("plan: no system to plan with");
    if (r.dataset_images < 1 || r.dataset_images > kMaxDatasetImages)
        throw InputError("plan: dataset images " + std::to_string(r.dataset_images) +
                         " is outside 1.." + std::to_string(kMaxDatasetImages));
    if (r.epochs < 1 || r.epochs > kMaxEpochs)
        throw InputError("plan: epochs " + std::to_string(r.epochs) + " is outside 1.." +
                         std::to_string(kMaxEpochs));
    if (r.constraints.max_gpus < 1)
        throw InputError("plan: max GPUs must be at least 1");
}

} // namespace

std::vector<Precision> planPrecisions(const GpuProfile& gpu, const std::vector<Precision>& wanted) {
    const std::vector<Precision> all(std::begin(kAllPrecisions), std::end(kAllPrecisions));
    std::vector<Precision> out;
    for (const Precision p : wanted.empty() ? all : wanted) {
        const bool has = p == Precision::FP32 || (p == Precision::TF32 && hasTf32(gpu)) ||
                         (p == Precision::AMP && hasFastFp16(gpu)) ||
                         (p == Precision::BF16 && hasBf16(gpu));
        if (has && std::find(out.begin(), out.end(), p) == out.end())
            out.push_back(p);
    }
    return out;
}

std::vector<Layout> planLayouts(const SystemProfile& system, int max_gpus,
                                const std::vector<SyncStrategy>& syncs,
                                const std::vector<ParallelStrategy>& parallels) {
    static const std::vector<SyncStrategy> kAll{
        SyncStrategy::AllreduceNccl, SyncStrategy::AllreduceCopy, SyncStrategy::PsCpu,
        SyncStrategy::PsGpu, SyncStrategy::DistributedReplicated};
    static const std::vector<ParallelStrategy> kAllParallel{
        ParallelStrategy::Data,  ParallelStrategy::Hybrid, ParallelStrategy::Pipeline,
        ParallelStrategy::Zero1, ParallelStrategy::Zero2,  ParallelStrategy::Zero3};
    const std::vector<SyncStrategy>& exchanges = syncs.empty() ? kAll : syncs;
    const std::vector<ParallelStrategy>& strategies = parallels.empty() ? kAllParallel : parallels;
    const auto wanted = [&](ParallelStrategy p) {
        return std::find(strategies.begin(), strategies.end(), p) != strategies.end();
    };
    const bool nccl = std::find(exchanges.begin(), exchanges.end(), SyncStrategy::AllreduceNccl) !=
                      exchanges.end();
    std::vector<Layout> out;
    auto add = [&](int nodes, int per_node) {
        const int gpus = nodes * per_node;
        if (gpus == 1) {
            out.push_back({1, 1, SyncStrategy::None});
            return;
        }
        if (wanted(ParallelStrategy::Data))
            for (const SyncStrategy sync : exchanges) {
                // Several GPUs without an exchange are several trainings, not one.
                if (sync == SyncStrategy::None)
                    continue;
                if (sync == SyncStrategy::DistributedReplicated && nodes == 1)
                    continue;
                out.push_back({nodes, per_node, sync});
            }
        if (!nccl)
            return;
        const SyncStrategy sync = SyncStrategy::AllreduceNccl;
        if (wanted(ParallelStrategy::Hybrid) && per_node > 1)
            out.push_back({nodes, per_node, sync, ParallelStrategy::Hybrid});
        if (wanted(ParallelStrategy::Pipeline))
            for (int stages = 2; stages <= 8 && stages <= gpus; stages *= 2)
                if (gpus % stages == 0 &&
                    (stages <= per_node ? per_node % stages == 0 : stages % per_node == 0))
                    out.push_back({nodes, per_node, sync, ParallelStrategy::Pipeline, stages});
        for (const ParallelStrategy zero :
             {ParallelStrategy::Zero1, ParallelStrategy::Zero2, ParallelStrategy::Zero3})
            if (wanted(zero))
                out.push_back({nodes, per_node, sync, zero});
    };
    const int full = system.gpus_per_node;
    // One node, partly or fully used: 1, 2, 4, ... GPUs and the full node.
    for (int g = 1; g <= full && g <= max_gpus; g *= 2)
        add(1, g);
    if ((full & (full - 1)) != 0 && full <= max_gpus)
        add(1, full);
    // Several nodes are whole nodes: rented or owned by the node, nobody leaves part of each
    // idle.
    for (int n = 2; n <= system.max_nodes && static_cast<int64_t>(n) * full <= max_gpus; n *= 2)
        add(n, full);
    return out;
}

PlanResult plan(const PlanRequest& request) {
    validateRequest(request);

    std::vector<std::vector<int>> systems_of_gpu(request.gpus.size());
    for (std::size_t g = 0; g < request.gpus.size(); ++g)
        for (std::size_t s = 0; s < request.systems.size(); ++s)
            if (gpuFitsSystem(request.gpus[g], request.systems[s]))
                systems_of_gpu[g].push_back(static_cast<int>(s));
    std::vector<std::vector<Layout>> layouts_of_system;
    for (const SystemProfile& system : request.systems)
        layouts_of_system.push_back(
            planLayouts(system, request.constraints.max_gpus, request.syncs, request.parallels));

    std::vector<Group> groups;
    for (std::size_t g = 0; g < request.gpus.size(); ++g) {
        if (systems_of_gpu[g].empty())
            continue;
        for (const Precision p : planPrecisions(request.gpus[g], request.precisions))
            for (int64_t b = 1; b <= kPlanMaxBatchPerGpu; b *= 2)
                groups.push_back({static_cast<int>(g), p, b});
    }

    std::vector<std::vector<PlanPoint>> slots(groups.size());
    std::atomic<std::size_t> next{0};
    std::atomic<bool> failed{false};
    std::exception_ptr error;
    std::mutex error_mutex;
    auto work = [&] {
        while (!failed.load(std::memory_order_relaxed)) {
            const std::size_t i = next.fetch_add(1);
            if (i >= groups.size())
                return;
            try {
                slots[i] = planGroup(request, groups[i], systems_of_gpu, layouts_of_system);
            } catch (...) {
                const std::lock_guard<std::mutex> lock(error_mutex);
                if (!error)
                    error = std::current_exception();
                failed = true;
            }
        }
    };
    const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
    const auto threads = static_cast<std::size_t>(std::min<std::size_t>(
        request.threads > 0 ? static_cast<std::size_t>(request.threads) : cores,
        std::max<std::size_t>(groups.size(), 1)));
    std::vector<std::thread> pool;
    for (std::size_t t = 1; t < threads; ++t)
        pool.emplace_back(work);
    work(); // this thread works too
    for (std::thread& t : pool)
        t.join();
    if (error)
        std::rethrow_exception(error);

    PlanResult result;
    std::size_t total = 0;
    for (const auto& slot : slots)
        total += slot.size();
    result.candidates.reserve(total);
    for (auto& slot : slots)
        result.candidates.insert(result.candidates.end(), slot.begin(), slot.end());
    result.selection = selectPlan(result.candidates, request.constraints);
    return result;
}

} // namespace iterscope
