// ZeRO (Rajbhandari et al., "ZeRO: Memory Optimizations Toward Training Trillion Parameter
// Models", SC 2020) and PyTorch FSDP (Zhao et al., VLDB 2023): data parallelism whose
// model state is sharded over the N GPUs. Stage 1 shards the optimizer state, stage 2 the
// gradients too, stage 3 (FSDP's full sharding) the parameters too.
//   Stages 1 and 2: gradient buckets are reduce-scattered to their owners while backward
//   runs; each GPU updates its 1/N; the updated parameters are all-gathered before the next
//   forward pass (DeepSpeed's step ends with that all-gather).
//   Stage 3: parameters are gathered unit by unit just before each unit's forward and again
//   before its backward (one unit prefetched ahead, as FSDP does), and each unit's
//   gradients are reduce-scattered once its backward is done. A unit is a run of layers of
//   at least bucket_mb of parameters, like FSDP's size-based wrapping.
#include "model/communication_model.h"
#include "model/iteration.h"
#include "model/parallel_exchange.h"
#include "model/timeline.h"

#include <algorithm>

namespace iterscope {

namespace {

constexpr double kBytesPerMb = 1024.0 * 1024.0;
constexpr double kFp32Bytes = 4;
constexpr double kFp16Bytes = 2;

struct Unit {
    std::size_t first = 0, end = 0; // layers [first, end) in forward order
    double params = 0;
};

std::vector<Unit> shardingUnits(const NetworkAnalysis& a, double unit_params) {
    std::vector<Unit> units;
    Unit open;
    for (std::size_t i = 0; i < a.layers.size(); ++i) {
        open.params += static_cast<double>(a.layers[i].params);
        open.end = i + 1;
        if (open.params >= unit_params) {
            units.push_back(open);
            open = Unit{i + 1, i + 1, 0};
        }
    }
    if (open.end > open.first) {
        if (!units.empty() && open.params == 0)
            units.back().end = open.end; // trailing layers without parameters
        else
            units.push_back(open);
    }
    return units;
}

// Bytes of a parameter as the GPUs gather it: the 16-bit copy under amp and bf16.
double gatheredParamBytes(const Scenario& s) {
    return halfPrecision(s.precision) ? kFp16Bytes : kFp32Bytes;
}

double unitParams(const Scenario& s) {
    return std::max(1.0, s.bucket_mb * kBytesPerMb / gatheredParamBytes(s));
}

// Half of an all-reduce model: the cost of a reduce-scatter (or an all-gather) bucket.
ExchangeModel halfOf(ExchangeModel model) {
    for (int i = 0; i < model.candidate_count; ++i) {
        auto& c = model.candidates[static_cast<std::size_t>(i)];
        c.cost.latency_ms /= 2;
        c.cost.ms_per_byte /= 2;
        c.sent_per_byte /= 2;
    }
    return model;
}

} // namespace

double zeroSentBytes(ParallelStrategy zero, double gradient_bytes, double parameter_bytes,
                     int gpus) {
    const double scatter = collectiveSentBytes(Collective::ReduceScatter, gradient_bytes, gpus);
    const double gather = collectiveSentBytes(Collective::AllGather, parameter_bytes, gpus);
    return zero == ParallelStrategy::Zero3 ? scatter + 2 * gather : scatter + gather;
}

MemoryInputs zeroMemoryInputs(const Scenario& s, const NetworkMemoryFacts& facts) {
    MemoryInputs in = dataMemoryInputs(s, facts);
    const double n = s.totalGpus();
    if (n <= 1)
        return in;
    const double replicated_weights = in.weights;
    const double params = static_cast<double>(s.network->analysis.total_params);
    const bool amp = halfPrecision(s.precision);
    // Stage 1: the optimizer state, and under amp the FP32 master weights (ZeRO counts
    // them as optimizer state), 1/N each.
    in.optimizer /= n;
    if (amp)
        in.weights = params * kFp16Bytes + params * kFp32Bytes / n;
    if (s.parallel == ParallelStrategy::Zero1)
        return in;
    // Stage 2: the gradients too, with one bucket of unreduced gradients in flight (never
    // more than all of them).
    const double grads = in.gradients;
    const double bucket = s.bucket_mb * kBytesPerMb;
    in.gradients = std::min(grads, grads / n + bucket);
    if (s.parallel == ParallelStrategy::Zero2)
        return in;
    // Stage 3: the parameters too; the units being used and the one prefetched are whole.
    double largest = 0;
    for (const Unit& u : shardingUnits(s.network->analysis, unitParams(s)))
        largest = std::max(largest, u.params);
    const double gathered = std::min(2 * largest, params) * gatheredParamBytes(s);
    in.weights = replicated_weights / n + gathered * (n - 1) / n;
    return in;
}

Prediction predictZero(const Scenario& s, const LayerPassTable& table, PredictDetail detail) {
    const ComputeRates& rates = table.rates;
    const Network& net = s.network->network;
    const NetworkAnalysis& analysis = s.network->analysis;
    const SoftwareProfile& sw = s.software;
    const std::size_t n_layers = net.layers.size();
    const int n = s.totalGpus();
    const bool stage3 = s.parallel == ParallelStrategy::Zero3;
    const double grad_elem = static_cast<double>(detail::gradientElementBytes(s));
    const double param_elem = gatheredParamBytes(s);

    Prediction p;
    p.layers.resize(n_layers);
    const bool full = detail == PredictDetail::Full;
    if (full)
        p.timeline.reserve(2 * n_layers + 64);
    const detail::TimelineSink timeline{full ? &p.timeline : nullptr};
    double t = detail::beginIteration(s, rates, s.batch_per_gpu, p, timeline);

    const ExchangeModel exchange = exchangeModel(s);
    const ExchangeModel half = halfOf(exchange);
    int trainable_layers = 0;
    std::vector<int64_t> params(n_layers, 0);
    for (std::size_t i = 0; i < n_layers; ++i) {
        params[i] = analysis.layers[i].params;
        trainable_layers += params[i] > 0 ? 1 : 0;
        LayerTiming& lt = p.layers[i];
        detail::setPassTimes(lt, i, table.passes[i]);
        p.forward_ms += lt.forward_ms;
        p.backward_ms += lt.backward_ms;
    }
    const auto forwardLayer = [&](std::size_t i) {
        const double d = p.layers[i].forward_ms;
        if (d > 0)
            timeline.add(Stream::Compute, EventKind::Forward, t, d, static_cast<long>(i));
        t += d;
    };
    const auto backwardLayer = [&](std::size_t i) {
        const double d = p.layers[i].backward_ms;
        if (d > 0)
            timeline.add(Stream::Compute, EventKind::Backward, t, d, static_cast<long>(i));
        t += d;
    };
    int64_t largest = -1;
    const auto noteAlgorithm = [&](double bytes) {
        AllreduceAlgorithm chosen = AllreduceAlgorithm::Ring;
        exchangeMs(exchange, bytes, &chosen);
        if (s.sync == SyncStrategy::AllreduceNccl && static_cast<int64_t>(bytes) > largest) {
            largest = static_cast<int64_t>(bytes);
            p.allreduce_algorithm = allreduceAlgorithmName(chosen);
        }
    };

    double backward_end_ms = 0, comm_end = 0, waited = 0;
    if (!stage3) {
        for (std::size_t i = 0; i < n_layers; ++i)
            forwardLayer(i);
        std::vector<double> backward_end(n_layers, 0.0);
        for (std::size_t i = n_layers; i-- > 0;) {
            backwardLayer(i);
            backward_end[i] = t;
        }
        backward_end_ms = t;
        const auto bucket_bytes = static_cast<int64_t>(std::max(1.0, s.bucket_mb * kBytesPerMb));
        std::vector<Bucket> buckets = makeBuckets(p.layers, backward_end, bucket_bytes,
                                                  detail::gradientElementBytes(s), params);
        const bool overlap = s.overlap && sw.overlap_communication;
        comm_end = scheduleExchange(buckets, half, overlap, backward_end_ms);
        for (std::size_t b = 0; b < buckets.size(); ++b) {
            const Bucket& bk = buckets[b];
            p.communication_ms += bk.duration_ms;
            timeline.add(Stream::Communication, EventKind::ReduceScatter, bk.start_ms,
                         bk.duration_ms, -1, static_cast<int>(b));
            noteAlgorithm(static_cast<double>(bk.bytes));
        }
    } else {
        // One communication stream: gathers and reduce-scatters in the order they are issued.
        const std::vector<Unit> units = shardingUnits(analysis, unitParams(s));
        double stream = t;
        const auto gather = [&](const Unit& u, double issued, int index) {
            if (u.params <= 0)
                return issued;
            const double bytes = u.params * param_elem;
            const double start = std::max(stream, issued);
            const double d = collectiveMs(exchange, Collective::AllGather, bytes);
            timeline.add(Stream::Communication, EventKind::ParamGather, start, d, -1, index);
            p.communication_ms += d;
            noteAlgorithm(bytes);
            stream = start + d;
            return stream;
        };
        std::vector<double> gathered(units.size(), 0.0);
        gathered[0] = gather(units[0], t, 0);
        for (std::size_t u = 0; u < units.size(); ++u) {
            const double ready = std::max(t, gathered[u]);
            waited += ready - t;
            t = ready;
            const double unit_start = t;
            if (u + 1 < units.size()) // prefetch the next unit while this one computes
                gathered[u + 1] = gather(units[u + 1], unit_start, static_cast<int>(u + 1));
            for (std::size_t i = units[u].first; i < units[u].end; ++i)
                forwardLayer(i);
        }
        // Backward: gather again (the forward freed them), prefetching one unit ahead; each
        // unit's gradients go to their owners once its backward is done.
        const std::size_t last = units.size() - 1;
        gathered[last] = gather(units[last], t, static_cast<int>(last));
        for (std::size_t u = units.size(); u-- > 0;) {
            const double ready = std::max(t, gathered[u]);
            waited += ready - t;
            t = ready;
            const double unit_start = t;
            if (u > 0)
                gathered[u - 1] = gather(units[u - 1], unit_start, static_cast<int>(u - 1));
            for (std::size_t i = units[u].end; i-- > units[u].first;) {
                backwardLayer(i);
                if (params[i] > 0) {
                    p.layers[i].bucket = static_cast<int>(u);
                    p.layers[i].gradient_bytes =
                        static_cast<int64_t>(static_cast<double>(params[i]) * grad_elem);
                }
            }
            if (units[u].params > 0) {
                const double bytes = units[u].params * grad_elem;
                const double start = std::max(stream, t);
                const double d = collectiveMs(exchange, Collective::ReduceScatter, bytes);
                timeline.add(Stream::Communication, EventKind::ReduceScatter, start, d, -1,
                             static_cast<int>(u));
                p.communication_ms += d;
                stream = start + d;
            }
        }
        backward_end_ms = t;
        comm_end = stream;
    }
    p.exposed_communication_ms = waited + std::max(0.0, comm_end - backward_end_ms);

    const double total_params = static_cast<double>(analysis.total_params);
    p.exchanged_bytes_per_gpu = static_cast<int64_t>(
        zeroSentBytes(s.parallel, total_params * grad_elem, total_params * param_elem, n));

    // Each GPU updates its 1/N.
    p.update_ms =
        detail::optimizerStepMs(s, rates, total_params / n, table.param_tensors, trainable_layers);
    const double update_start = std::max(backward_end_ms, comm_end);
    if (p.update_ms > 0)
        timeline.add(Stream::Update, EventKind::Update, update_start, p.update_ms);
    double step_end = update_start + p.update_ms;
    if (!stage3 && total_params > 0) {
        const double bytes = total_params * param_elem;
        const double d = collectiveMs(exchange, Collective::AllGather, bytes);
        timeline.add(Stream::Communication, EventKind::ParamGather, step_end, d);
        p.communication_ms += d;
        p.exposed_communication_ms += d;
        step_end += d;
    }
    const double gpu_end = std::max(step_end, sw.overlap_input ? p.input_ms : 0.0);
    detail::endIteration(s, p, gpu_end, true, timeline);

    detail::setMemory(p, estimateMemory(s, table.memory));
    p.groups = {{"every GPU", n}};
    if (!full)
        p.layers = {};
    return p;
}

} // namespace iterscope
