// predict(): one iteration of synchronous data-parallel SGD on one representative GPU.
// Streams: input (H2D copy of the next minibatch), compute (forward, then backward in
// reverse layer order), communication (gradient buckets), update (optimizer step).
#include "model/model.h"

#include "model/communication_model.h"
#include "model/compute_model.h"
#include "model/memory_model.h"
#include "model/timeline.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace iterscope {

namespace {

constexpr double kBytesPerMsPerGbps = 1e6;
constexpr double kMsPerUs = 1e-3;
constexpr double kBytesPerMb = 1024.0 * 1024.0;
constexpr double kPcie3X16Gbps = 15.75; // per direction, before the host's own limits
constexpr int64_t kFp32Bytes = 4;

bool fusedIntoPrevious(const Network& net, const Layer& layer, const SoftwareProfile& sw) {
    return sw.fused_bn_activation && layer.kind == LayerKind::Activation &&
           layer.activation.kind == ActivationKind::ReLU && layer.inputs.size() == 1 &&
           net.layers[layer.inputs[0]].kind == LayerKind::BatchNorm;
}

double hostLinkGbps(const Scenario& s) {
    if (s.system.pcie_gbps > 0)
        return s.system.pcie_gbps;
    return kPcie3X16Gbps * std::pow(2.0, std::clamp(s.gpu.pcie_gen, 1, 6) - 3) *
           std::clamp(s.gpu.pcie_lanes, 1, 16) / 16.0;
}

// Appends timeline events unless the caller asked for the totals only.
struct Timeline {
    std::vector<TimelineEvent>* events; // null: totals only

    void add(Stream stream, EventKind kind, double start, double duration, long layer = -1,
             int bucket = -1) const {
        if (!events)
            return;
        TimelineEvent& e = events->emplace_back();
        e.stream = stream;
        e.kind = kind;
        e.start_ms = start;
        e.duration_ms = duration;
        e.layer = layer;
        e.bucket = bucket;
    }
};

EventKind exchangeKind(SyncStrategy sync) {
    switch (sync) {
    case SyncStrategy::AllreduceNccl:
        return EventKind::AllReduce;
    case SyncStrategy::AllreduceCopy:
        return EventKind::CopyAllReduce;
    default:
        return EventKind::PushPull;
    }
}

// The rest of predict() once the scenario is valid and the table is its own.
Prediction predictChecked(const Scenario& s, const LayerPassTable& table, PredictDetail detail);

} // namespace

LayerPassTable layerPassTable(const Scenario& s) {
    validateScenario(s);
    const Network& net = s.network->network;
    const NetworkAnalysis& analysis = s.network->analysis;
    LayerPassTable table;
    table.network = s.network.get();
    table.batch = s.batch_per_gpu;
    table.rates = computeRates(s.gpu, s.software, s.precision);
    table.passes.resize(net.layers.size());
    for (std::size_t i = 0; i < net.layers.size(); ++i) {
        const Layer& layer = net.layers[i];
        const Dims& in = layer.inputs.empty() ? net.input : analysis.layers[layer.inputs[0]].output;
        table.passes[i] = layerPasses(layer, analysis.layers[i], in, s.batch_per_gpu, table.rates,
                                      fusedIntoPrevious(net, layer, s.software));
    }
    return table;
}

Prediction predict(const Scenario& s, PredictDetail detail) {
    return predictChecked(s, layerPassTable(s), detail); // the table's making validated s
}

Prediction predict(const Scenario& s, const LayerPassTable& table, PredictDetail detail) {
    validateScenario(s);
    if (table.network != s.network.get() || table.batch != s.batch_per_gpu ||
        !(table.rates == computeRates(s.gpu, s.software, s.precision)) ||
        table.passes.size() != s.network->network.layers.size())
        throw std::invalid_argument("predict: the layer pass table was made for another "
                                    "network, batch, GPU, software or precision");
    return predictChecked(s, table, detail);
}

namespace {

Prediction predictChecked(const Scenario& s, const LayerPassTable& table, PredictDetail detail) {
    const ComputeRates& rates = table.rates;
    const Network& net = s.network->network;
    const NetworkAnalysis& analysis = s.network->analysis;
    const SoftwareProfile& sw = s.software;
    const std::size_t n_layers = net.layers.size();
    const int64_t batch = s.batch_per_gpu;

    Prediction p;
    p.layers.resize(n_layers);
    const bool full = detail == PredictDetail::Full;
    if (full)
        p.timeline.reserve(2 * n_layers + 8);
    const Timeline timeline{full ? &p.timeline : nullptr};

    // Input: the H2D copy of the minibatch, and any GPU work of the input pipeline.
    int64_t input_elems = 1;
    for (int64_t d : net.input)
        input_elems *= std::max<int64_t>(d, 1);
    const double input_bytes = static_cast<double>(batch) * static_cast<double>(input_elems) *
                               static_cast<double>(rates.elem_bytes);
    p.input_ms = input_bytes / (hostLinkGbps(s) * kBytesPerMsPerGbps);
    const double copy_start = 0;
    double t = sw.overlap_input ? 0.0 : p.input_ms;
    timeline.add(Stream::Input, EventKind::InputCopy, copy_start, p.input_ms);
    const double pipeline_ms = sw.input_gpu_us_per_image * kMsPerUs * static_cast<double>(batch);
    if (pipeline_ms > 0) {
        timeline.add(Stream::Compute, EventKind::InputPipeline, t, pipeline_ms);
        t += pipeline_ms;
    }

    // Forward, then backward in reverse order.
    const std::vector<LayerPasses>& passes = table.passes;
    std::vector<double> backward_end(n_layers, 0.0);
    std::vector<int64_t> params(n_layers, 0);
    int trainable_layers = 0;
    for (std::size_t i = 0; i < n_layers; ++i) {
        const LayerCost& cost = analysis.layers[i];
        params[i] = cost.params;
        if (cost.params > 0)
            ++trainable_layers;
        LayerTiming& lt = p.layers[i];
        lt.layer = i;
        lt.forward_ms = passes[i].forward.ms;
        lt.backward_ms = passes[i].backward.ms;
        lt.forward_bound = passes[i].forward.bound;
        lt.backward_bound = passes[i].backward.bound;
        if (lt.forward_ms > 0) {
            timeline.add(Stream::Compute, EventKind::Forward, t, lt.forward_ms,
                         static_cast<long>(i));
            t += lt.forward_ms;
        }
        p.forward_ms += lt.forward_ms;
    }
    for (std::size_t i = n_layers; i-- > 0;) {
        const double d = p.layers[i].backward_ms;
        if (d > 0) {
            timeline.add(Stream::Compute, EventKind::Backward, t, d, static_cast<long>(i));
            t += d;
        }
        backward_end[i] = t;
        p.backward_ms += d;
    }
    const double backward_end_ms = t;

    // Gradient exchange in buckets, overlapped with the rest of backward.
    const ExchangeModel exchange = exchangeModel(s);
    double comm_end = backward_end_ms;
    if (exchange.active) {
        const int64_t grad_elem =
            s.precision == Precision::AMP ? sw.gradient_bytes_amp : kFp32Bytes;
        const auto bucket_bytes = static_cast<int64_t>(std::max(1.0, s.bucket_mb * kBytesPerMb));
        std::vector<Bucket> buckets =
            makeBuckets(p.layers, backward_end, bucket_bytes, grad_elem, params);
        const bool overlap = s.overlap && sw.overlap_communication;
        comm_end = scheduleExchange(buckets, exchange, overlap, backward_end_ms);
        int64_t largest = -1;
        const EventKind kind = exchangeKind(s.sync);
        for (std::size_t b = 0; b < buckets.size(); ++b) {
            const Bucket& bk = buckets[b];
            p.communication_ms += bk.duration_ms;
            timeline.add(Stream::Communication, kind, bk.start_ms, bk.duration_ms, -1,
                         static_cast<int>(b));
            if (s.sync == SyncStrategy::AllreduceNccl && bk.bytes > largest) {
                largest = bk.bytes;
                p.allreduce_algorithm = allreduceAlgorithmName(bk.algorithm);
            }
        }
    }
    p.exposed_communication_ms = std::max(0.0, comm_end - backward_end_ms);

    // Optimizer step on the GPU over its share of the parameters: read parameter, gradient
    // and state, write parameter and state (and the FP16 copy under amp).
    const double share = exchange.active ? exchange.gpu_update_share : 1.0;
    if (share > 0 && analysis.total_params > 0) {
        const double bytes_per_param = 3.0 * kFp32Bytes + 2.0 * sw.optimizer_state_bytes_per_param +
                                       (s.precision == Precision::AMP ? 2.0 : 0.0);
        const double gpu_ms = share * static_cast<double>(analysis.total_params) * bytes_per_param /
                                  rates.bytes_per_ms +
                              trainable_layers * rates.kernel_gap_ms;
        p.update_ms = std::max(gpu_ms, trainable_layers * rates.host_overhead_ms);
    }
    const double update_start = std::max(backward_end_ms, comm_end);
    if (p.update_ms > 0)
        timeline.add(Stream::Update, EventKind::Update, update_start, p.update_ms);
    p.iteration_ms = std::max(update_start + p.update_ms, sw.overlap_input ? p.input_ms : 0.0);
    p.images_per_second = p.iteration_ms > 0
                              ? static_cast<double>(batch) * s.totalGpus() * 1000.0 / p.iteration_ms
                              : 0;

    const MemoryEstimate mem = estimateMemory(s);
    p.weights_bytes = mem.weights_bytes;
    p.gradients_bytes = mem.gradients_bytes;
    p.optimizer_bytes = mem.optimizer_bytes;
    p.activations_bytes = mem.activations_bytes;
    p.workspace_bytes = mem.workspace_bytes;
    p.memory_per_gpu_bytes = mem.total_bytes;
    p.fits_in_memory = mem.fits;
    p.max_batch_that_fits = mem.max_batch_that_fits;
    if (!full)
        p.layers = {};
    return p;
}

} // namespace

} // namespace iterscope
